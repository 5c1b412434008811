/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl: <dat/dat_registry.h>
 *
 * The provider side of the DAT 1.2 registry, as far as a 1.2 program can
 * name it: the DAT_xxx_FUNC types of every call (through
 * <dat/udat_redirection.h>), DAT_PROVIDER as an incomplete type, and the
 * names and types of a provider library's entry points.  Consumers do not
 * need it.  <dat/udat.h> must be included first.
 *
 * Not declared, unlike the DAT 1.2 headers: struct dat_provider (the
 * provider's function table), the DAT_xxx() redirection macros, and
 * dat_registry_add_provider() / dat_registry_remove_provider().  A 1.2
 * program calls libdat.so.1, which serves it from a DAT 2.0 provider
 * registered with libdat2.so.2 (<dat2/dat_registry.h>); no 1.2 provider
 * is ever loaded, so nothing could fill or register a 1.2 table.
 */

#ifndef _SOFTDAPL_DAT_DAT_REGISTRY_H_
#define _SOFTDAPL_DAT_DAT_REGISTRY_H_

#if defined(_SOFTDAPL_DAT_UDAT_H_)
#include <dat/udat_redirection.h>
#else
#error "softdapl: include <dat/udat.h> before <dat/dat_registry.h>"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Library entry points of a DAT 1.2 provider: the init function receives
 * its dat.conf entry's provider info and instance data (the "ia params"
 * field); the fini function undoes it.
 */
#define DAT_PROVIDER_INIT_FUNC_NAME	dat_provider_init
#define DAT_PROVIDER_FINI_FUNC_NAME	dat_provider_fini

#define DAT_PROVIDER_INIT_FUNC_STR	"dat_provider_init"
#define DAT_PROVIDER_FINI_FUNC_STR	"dat_provider_fini"

typedef void (DAT_API *DAT_PROVIDER_INIT_FUNC)(
	IN	const DAT_PROVIDER_INFO *,	/* provider_info */
	IN	const char *);			/* instance_data */

typedef void (DAT_API *DAT_PROVIDER_FINI_FUNC)(
	IN	const DAT_PROVIDER_INFO *);	/* provider_info */

#ifdef __cplusplus
}
#endif

#endif /* _SOFTDAPL_DAT_DAT_REGISTRY_H_ */
