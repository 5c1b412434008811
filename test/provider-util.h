/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers for the provider's tests: an IA of our provider through a
 * dat.conf written into the test's directory.
 */
#ifndef TEST_PROVIDER_UTIL_H
#define TEST_PROVIDER_UTIL_H

#include <dat2/udat.h>

/* The IA name the helpers register: "sdtest". */
#define SDT_IA_NAME "sdtest"

/*
 * Writes a dat.conf with one entry, SDT_IA_NAME, for build/lib's
 * libdaplsoft.so.2 with @ia_params ("lo" when NULL), and points
 * DAT_OVERRIDE at it.
 */
void sdt_conf(const char *ia_params);

/* sdt_conf(ia_params), then dat_ia_open; fails the test on error. */
DAT_IA_HANDLE sdt_open_ia(const char *ia_params, DAT_EVD_HANDLE *async_evd);

/* The path of our provider library in the build tree. */
const char *sdt_provider_path(void);

#endif
