/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl: <dat/udat_redirection.h>
 *
 * The DAT_xxx_FUNC pointer types of the user-only DAT 1.2 calls (LMR
 * creation, EVD creation, waiting and enabling, CNOs); the common ones
 * come from <dat/dat_redirection.h>.  Normally reached through
 * <dat/dat_registry.h>.
 *
 * Left out, as in <dat/dat_redirection.h>: the user-only redirection
 * macros, and struct dat_provider, the provider's function table, which
 * the DAT 1.2 headers define here.  A 1.2 program calls libdat.so.1,
 * which serves it from a DAT 2.0 provider: there is no 1.2 table to fill.
 */

#ifndef _SOFTDAPL_DAT_UDAT_REDIRECTION_H_
#define _SOFTDAPL_DAT_UDAT_REDIRECTION_H_

#include <dat/udat.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Local memory regions (2.0 adds a DAT_VA_TYPE after the privileges) */
typedef DAT_RETURN (DAT_API *DAT_LMR_CREATE_FUNC)(
	IN	DAT_IA_HANDLE,			/* ia_handle */
	IN	DAT_MEM_TYPE,			/* mem_type */
	IN	DAT_REGION_DESCRIPTION,		/* region_description */
	IN	DAT_VLEN,			/* length */
	IN	DAT_PZ_HANDLE,			/* pz_handle */
	IN	DAT_MEM_PRIV_FLAGS,		/* privileges */
	OUT	DAT_LMR_HANDLE *,		/* lmr_handle */
	OUT	DAT_LMR_CONTEXT *,		/* lmr_context */
	OUT	DAT_RMR_CONTEXT *,		/* rmr_context */
	OUT	DAT_VLEN *,			/* registered_length */
	OUT	DAT_VADDR *);			/* registered_address */

/* Event dispatchers */
typedef DAT_RETURN (DAT_API *DAT_EVD_CREATE_FUNC)(
	IN	DAT_IA_HANDLE,			/* ia_handle */
	IN	DAT_COUNT,			/* evd_min_qlen */
	IN	DAT_CNO_HANDLE,			/* cno_handle */
	IN	DAT_EVD_FLAGS,			/* evd_flags */
	OUT	DAT_EVD_HANDLE *);		/* evd_handle */

typedef DAT_RETURN (DAT_API *DAT_EVD_MODIFY_CNO_FUNC)(
	IN	DAT_EVD_HANDLE,			/* evd_handle */
	IN	DAT_CNO_HANDLE);		/* cno_handle */

/* Consumer notification objects */
typedef DAT_RETURN (DAT_API *DAT_CNO_CREATE_FUNC)(
	IN	DAT_IA_HANDLE,			/* ia_handle */
	IN	DAT_OS_WAIT_PROXY_AGENT,	/* agent */
	OUT	DAT_CNO_HANDLE *);		/* cno_handle */

typedef DAT_RETURN (DAT_API *DAT_CNO_MODIFY_AGENT_FUNC)(
	IN	DAT_CNO_HANDLE,			/* cno_handle */
	IN	DAT_OS_WAIT_PROXY_AGENT);	/* agent */

typedef DAT_RETURN (DAT_API *DAT_CNO_QUERY_FUNC)(
	IN	DAT_CNO_HANDLE,			/* cno_handle */
	IN	DAT_CNO_PARAM_MASK,		/* cno_param_mask */
	OUT	DAT_CNO_PARAM *);		/* cno_param */

typedef DAT_RETURN (DAT_API *DAT_CNO_FREE_FUNC)(
	IN	DAT_CNO_HANDLE);		/* cno_handle */

typedef DAT_RETURN (DAT_API *DAT_CNO_WAIT_FUNC)(
	IN	DAT_CNO_HANDLE,			/* cno_handle */
	IN	DAT_TIMEOUT,			/* timeout */
	OUT	DAT_EVD_HANDLE *);		/* evd that triggered */

/* Waiting and enabling */
typedef DAT_RETURN (DAT_API *DAT_EVD_ENABLE_FUNC)(
	IN	DAT_EVD_HANDLE);		/* evd_handle */

typedef DAT_RETURN (DAT_API *DAT_EVD_WAIT_FUNC)(
	IN	DAT_EVD_HANDLE,			/* evd_handle */
	IN	DAT_TIMEOUT,			/* timeout */
	IN	DAT_COUNT,			/* threshold */
	OUT	DAT_EVENT *,			/* event */
	OUT	DAT_COUNT *);			/* nmore */

typedef DAT_RETURN (DAT_API *DAT_EVD_DISABLE_FUNC)(
	IN	DAT_EVD_HANDLE);		/* evd_handle */

typedef DAT_RETURN (DAT_API *DAT_EVD_SET_UNWAITABLE_FUNC)(
	IN	DAT_EVD_HANDLE);		/* evd_handle */

typedef DAT_RETURN (DAT_API *DAT_EVD_CLEAR_UNWAITABLE_FUNC)(
	IN	DAT_EVD_HANDLE);		/* evd_handle */

#ifdef __cplusplus
}
#endif

#include <dat/dat_redirection.h>	/* DAT_PROVIDER, the common types */

#endif /* _SOFTDAPL_DAT_UDAT_REDIRECTION_H_ */
