/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl: <dat2/dat_registry.h>
 *
 * Interface between the DAT registry (libdat2) and providers.  Consumers
 * do not need it.  It declares how a provider adds itself to / removes
 * itself from the registry, the entry points the registry calls when it
 * loads / unloads a provider library, and the high-availability query.
 *
 * <dat2/udat.h> must be included first; this header then brings in the
 * provider dispatch table (struct dat_provider) via
 * <dat2/udat_redirection.h>.
 */

#ifndef _DAT_REGISTRY_H_
#define _DAT_REGISTRY_H_

#if defined(_UDAT_H_)
#include <dat2/udat_redirection.h>
#else
#error "softdapl: include <dat2/udat.h> before <dat2/dat_registry.h>"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Register / unregister a provider's dispatch table under the key in
 * DAT_PROVIDER_INFO (IA name, DAT version, thread safety).  The registry
 * keeps the pointer, so the DAT_PROVIDER must stay valid until removed.
 */
extern DAT_RETURN DAT_API dat_registry_add_provider(
	IN	const DAT_PROVIDER *,		/* provider */
	IN	const DAT_PROVIDER_INFO *);	/* provider_info */

extern DAT_RETURN DAT_API dat_registry_remove_provider(
	IN	const DAT_PROVIDER *,		/* provider */
	IN	const DAT_PROVIDER_INFO *);	/* provider_info */

/*
 * Library entry points.  A provider library that the registry loads from
 * the static registry (dat.conf) exports these two symbols.  The init
 * function receives the entry's provider info and its instance data
 * string (the "ia params" field of dat.conf) and is expected to call
 * dat_registry_add_provider(); the fini function undoes that.
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

/* Answer of dat_registry_providers_related(). */
typedef enum dat_ha_relationship {
	DAT_HA_FALSE,		/* the two IAs are unrelated */
	DAT_HA_TRUE,		/* the two IAs back each other up */
	DAT_HA_UNKNOWN,		/* the relationship cannot be determined */
	DAT_HA_CONFLICTING,	/* the two providers disagree */
	DAT_HA_EXTENSION_BASE	/* first value extensions may use */
} DAT_HA_RELATIONSHIP;

/* Are the IAs named by the two providers an HA (failover) pair? */
extern DAT_RETURN DAT_API dat_registry_providers_related(
	IN	const DAT_NAME_PTR,		/* ia_name_1 */
	IN	const DAT_NAME_PTR,		/* ia_name_2 */
	OUT	DAT_HA_RELATIONSHIP *);		/* relationship */

#ifdef __cplusplus
}
#endif

#endif /* _DAT_REGISTRY_H_ */
