/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>

#include "provider-util.h"
#include "test.h"

const char *sdt_provider_path(void)
{
	static char buf[1024];

	snprintf(buf, sizeof(buf), "%s/../lib/libdaplsoft.so.2", test_builddir());
	return buf;
}

void sdt_conf(const char *ia_params)
{
	char conf[2048];

	snprintf(conf, sizeof(conf),
		 SDT_IA_NAME " u2.0 nonthreadsafe default %s softdapl.2.0 \"%s\" \"\"\n",
		 sdt_provider_path(), ia_params ? ia_params : "lo");
	test_dat_conf(conf);
}

DAT_IA_HANDLE sdt_open_ia(const char *ia_params, DAT_EVD_HANDLE *async_evd)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;
	char name[] = SDT_IA_NAME;

	sdt_conf(ia_params);
	ASSERT_OK(dat_ia_open(name, 16, async_evd ? async_evd : &async, &ia));
	return ia;
}
