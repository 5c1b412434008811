/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl: <dat/dat_redirection.h>
 *
 * The DAT_xxx_FUNC pointer types of the DAT 1.2 calls common to uDAT and
 * kDAT: the type of each call, for a program that keeps a pointer to it.
 * Normally reached through <dat/dat_registry.h>.
 *
 * What the DAT 1.2 headers also put here is left out: the DAT_xxx()
 * redirection macros and DAT_HANDLE_TO_PROVIDER, which dispatch a call
 * through the function table of the provider that owns a handle.  A 1.2
 * program calls libdat.so.1 instead, which serves it from a DAT 2.0
 * provider; no 1.2 provider table exists (see <dat/dat_registry.h>).
 * DAT_PROVIDER remains, as an incomplete type.
 */

#ifndef _SOFTDAPL_DAT_DAT_REDIRECTION_H_
#define _SOFTDAPL_DAT_DAT_REDIRECTION_H_

#include <dat/udat.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dat_provider DAT_PROVIDER;

/* ------------------------------------------------------------------ */
/* IA and generic handle operations                                   */
/* ------------------------------------------------------------------ */

/*
 * The registry's call of a provider's ia_open.  Linux: four arguments,
 * as in every Linux DAT (compat-dapl 1.2, DAT 2.0); Solaris's adds a
 * fifth, a boolean_t "relaxed ordering aware" that Linux has no type for.
 */
typedef DAT_RETURN (DAT_API *DAT_IA_OPEN_FUNC)(
	IN	const DAT_NAME_PTR,	/* ia_name */
	IN	DAT_COUNT,		/* async_evd_min_qlen */
	INOUT	DAT_EVD_HANDLE *,	/* async_evd_handle */
	OUT	DAT_IA_HANDLE *);	/* ia_handle */

typedef DAT_RETURN (DAT_API *DAT_IA_OPENV_FUNC)(
	IN	const DAT_NAME_PTR,	/* ia_name */
	IN	DAT_COUNT,		/* async_evd_min_qlen */
	INOUT	DAT_EVD_HANDLE *,	/* async_evd_handle */
	OUT	DAT_IA_HANDLE *,	/* ia_handle */
	IN	DAT_UINT32,		/* dapl_version_major */
	IN	DAT_UINT32,		/* dapl_version_minor */
	IN	DAT_BOOLEAN);		/* thread_safety */

typedef DAT_RETURN (DAT_API *DAT_IA_CLOSE_FUNC)(
	IN	DAT_IA_HANDLE,		/* ia_handle */
	IN	DAT_CLOSE_FLAGS);	/* close_flags */

typedef DAT_RETURN (DAT_API *DAT_IA_QUERY_FUNC)(
	IN	DAT_IA_HANDLE,		/* ia_handle */
	OUT	DAT_EVD_HANDLE *,	/* async_evd_handle */
	IN	DAT_IA_ATTR_MASK,	/* ia_attr_mask */
	OUT	DAT_IA_ATTR *,		/* ia_attr */
	IN	DAT_PROVIDER_ATTR_MASK,	/* provider_attr_mask */
	OUT	DAT_PROVIDER_ATTR *);	/* provider_attr */

typedef DAT_RETURN (DAT_API *DAT_SET_CONSUMER_CONTEXT_FUNC)(
	IN	DAT_HANDLE,		/* dat_handle */
	IN	DAT_CONTEXT);		/* context */

typedef DAT_RETURN (DAT_API *DAT_GET_CONSUMER_CONTEXT_FUNC)(
	IN	DAT_HANDLE,		/* dat_handle */
	OUT	DAT_CONTEXT *);		/* context */

typedef DAT_RETURN (DAT_API *DAT_GET_HANDLE_TYPE_FUNC)(
	IN	DAT_HANDLE,		/* dat_handle */
	OUT	DAT_HANDLE_TYPE *);	/* handle_type */

/* ------------------------------------------------------------------ */
/* Connection Requests                                                */
/* ------------------------------------------------------------------ */

typedef DAT_RETURN (DAT_API *DAT_CR_QUERY_FUNC)(
	IN	DAT_CR_HANDLE,		/* cr_handle */
	IN	DAT_CR_PARAM_MASK,	/* cr_param_mask */
	OUT	DAT_CR_PARAM *);	/* cr_param */

typedef DAT_RETURN (DAT_API *DAT_CR_ACCEPT_FUNC)(
	IN	DAT_CR_HANDLE,		/* cr_handle */
	IN	DAT_EP_HANDLE,		/* ep_handle */
	IN	DAT_COUNT,		/* private_data_size */
	IN	const DAT_PVOID);	/* private_data */

typedef DAT_RETURN (DAT_API *DAT_CR_REJECT_FUNC)(
	IN	DAT_CR_HANDLE);		/* cr_handle */

typedef DAT_RETURN (DAT_API *DAT_CR_HANDOFF_FUNC)(
	IN	DAT_CR_HANDLE,		/* cr_handle */
	IN	DAT_CONN_QUAL);		/* handoff */

/* ------------------------------------------------------------------ */
/* Event Dispatchers                                                  */
/* ------------------------------------------------------------------ */

typedef DAT_RETURN (DAT_API *DAT_EVD_RESIZE_FUNC)(
	IN	DAT_EVD_HANDLE,		/* evd_handle */
	IN	DAT_COUNT);		/* evd_min_qlen */

typedef DAT_RETURN (DAT_API *DAT_EVD_POST_SE_FUNC)(
	IN	DAT_EVD_HANDLE,		/* evd_handle */
	IN	const DAT_EVENT *);	/* event */

typedef DAT_RETURN (DAT_API *DAT_EVD_DEQUEUE_FUNC)(
	IN	DAT_EVD_HANDLE,		/* evd_handle */
	OUT	DAT_EVENT *);		/* event */

typedef DAT_RETURN (DAT_API *DAT_EVD_FREE_FUNC)(
	IN	DAT_EVD_HANDLE);	/* evd_handle */

typedef DAT_RETURN (DAT_API *DAT_EVD_QUERY_FUNC)(
	IN	DAT_EVD_HANDLE,		/* evd_handle */
	IN	DAT_EVD_PARAM_MASK,	/* evd_param_mask */
	OUT	DAT_EVD_PARAM *);	/* evd_param */

/* ------------------------------------------------------------------ */
/* Endpoints                                                          */
/* ------------------------------------------------------------------ */

typedef DAT_RETURN (DAT_API *DAT_EP_CREATE_FUNC)(
	IN	DAT_IA_HANDLE,		/* ia_handle */
	IN	DAT_PZ_HANDLE,		/* pz_handle */
	IN	DAT_EVD_HANDLE,		/* recv_evd_handle */
	IN	DAT_EVD_HANDLE,		/* request_evd_handle */
	IN	DAT_EVD_HANDLE,		/* connect_evd_handle */
	IN	const DAT_EP_ATTR *,	/* ep_attributes */
	OUT	DAT_EP_HANDLE *);	/* ep_handle */

typedef DAT_RETURN (DAT_API *DAT_EP_CREATE_WITH_SRQ_FUNC)(
	IN	DAT_IA_HANDLE,		/* ia_handle */
	IN	DAT_PZ_HANDLE,		/* pz_handle */
	IN	DAT_EVD_HANDLE,		/* recv_evd_handle */
	IN	DAT_EVD_HANDLE,		/* request_evd_handle */
	IN	DAT_EVD_HANDLE,		/* connect_evd_handle */
	IN	DAT_SRQ_HANDLE,		/* srq_handle */
	IN	const DAT_EP_ATTR *,	/* ep_attributes */
	OUT	DAT_EP_HANDLE *);	/* ep_handle */

typedef DAT_RETURN (DAT_API *DAT_EP_QUERY_FUNC)(
	IN	DAT_EP_HANDLE,		/* ep_handle */
	IN	DAT_EP_PARAM_MASK,	/* ep_param_mask */
	OUT	DAT_EP_PARAM *);	/* ep_param */

typedef DAT_RETURN (DAT_API *DAT_EP_MODIFY_FUNC)(
	IN	DAT_EP_HANDLE,		/* ep_handle */
	IN	DAT_EP_PARAM_MASK,	/* ep_param_mask */
	IN	const DAT_EP_PARAM *);	/* ep_param */

typedef DAT_RETURN (DAT_API *DAT_EP_CONNECT_FUNC)(
	IN	DAT_EP_HANDLE,		/* ep_handle */
	IN	DAT_IA_ADDRESS_PTR,	/* remote_ia_address */
	IN	DAT_CONN_QUAL,		/* remote_conn_qual */
	IN	DAT_TIMEOUT,		/* timeout */
	IN	DAT_COUNT,		/* private_data_size */
	IN	const DAT_PVOID,	/* private_data */
	IN	DAT_QOS,		/* quality_of_service */
	IN	DAT_CONNECT_FLAGS);	/* connect_flags */

typedef DAT_RETURN (DAT_API *DAT_EP_DUP_CONNECT_FUNC)(
	IN	DAT_EP_HANDLE,		/* ep_handle */
	IN	DAT_EP_HANDLE,		/* ep_dup_handle */
	IN	DAT_TIMEOUT,		/* timeout */
	IN	DAT_COUNT,		/* private_data_size */
	IN	const DAT_PVOID,	/* private_data */
	IN	DAT_QOS);		/* quality_of_service */

typedef DAT_RETURN (DAT_API *DAT_EP_DISCONNECT_FUNC)(
	IN	DAT_EP_HANDLE,		/* ep_handle */
	IN	DAT_CLOSE_FLAGS);	/* disconnect_flags */

typedef DAT_RETURN (DAT_API *DAT_EP_POST_SEND_FUNC)(
	IN	DAT_EP_HANDLE,		/* ep_handle */
	IN	DAT_COUNT,		/* num_segments */
	IN	DAT_LMR_TRIPLET *,	/* local_iov */
	IN	DAT_DTO_COOKIE,		/* user_cookie */
	IN	DAT_COMPLETION_FLAGS);	/* completion_flags */

typedef DAT_RETURN (DAT_API *DAT_EP_POST_RECV_FUNC)(
	IN	DAT_EP_HANDLE,		/* ep_handle */
	IN	DAT_COUNT,		/* num_segments */
	IN	DAT_LMR_TRIPLET *,	/* local_iov */
	IN	DAT_DTO_COOKIE,		/* user_cookie */
	IN	DAT_COMPLETION_FLAGS);	/* completion_flags */

typedef DAT_RETURN (DAT_API *DAT_EP_POST_RDMA_READ_FUNC)(
	IN	DAT_EP_HANDLE,		/* ep_handle */
	IN	DAT_COUNT,		/* num_segments */
	IN	DAT_LMR_TRIPLET *,	/* local_iov */
	IN	DAT_DTO_COOKIE,		/* user_cookie */
	IN	const DAT_RMR_TRIPLET *, /* remote_buffer */
	IN	DAT_COMPLETION_FLAGS);	/* completion_flags */

typedef DAT_RETURN (DAT_API *DAT_EP_POST_RDMA_WRITE_FUNC)(
	IN	DAT_EP_HANDLE,		/* ep_handle */
	IN	DAT_COUNT,		/* num_segments */
	IN	DAT_LMR_TRIPLET *,	/* local_iov */
	IN	DAT_DTO_COOKIE,		/* user_cookie */
	IN	const DAT_RMR_TRIPLET *, /* remote_buffer */
	IN	DAT_COMPLETION_FLAGS);	/* completion_flags */

typedef DAT_RETURN (DAT_API *DAT_EP_GET_STATUS_FUNC)(
	IN	DAT_EP_HANDLE,		/* ep_handle */
	OUT	DAT_EP_STATE *,		/* ep_state */
	OUT	DAT_BOOLEAN *,		/* recv_idle */
	OUT	DAT_BOOLEAN *);		/* request_idle */

typedef DAT_RETURN (DAT_API *DAT_EP_FREE_FUNC)(
	IN	DAT_EP_HANDLE);		/* ep_handle */

typedef DAT_RETURN (DAT_API *DAT_EP_RESET_FUNC)(
	IN	DAT_EP_HANDLE);		/* ep_handle */

typedef DAT_RETURN (DAT_API *DAT_EP_RECV_QUERY_FUNC)(
	IN	DAT_EP_HANDLE,		/* ep_handle */
	OUT	DAT_COUNT *,		/* nbufs_allocated */
	OUT	DAT_COUNT *);		/* bufs_alloc_span */

typedef DAT_RETURN (DAT_API *DAT_EP_SET_WATERMARK_FUNC)(
	IN	DAT_EP_HANDLE,		/* ep_handle */
	IN	DAT_COUNT,		/* soft_high_watermark */
	IN	DAT_COUNT);		/* hard_high_watermark */

/* ------------------------------------------------------------------ */
/* Memory regions                                                     */
/* ------------------------------------------------------------------ */

typedef DAT_RETURN (DAT_API *DAT_LMR_FREE_FUNC)(
	IN	DAT_LMR_HANDLE);	/* lmr_handle */

typedef DAT_RETURN (DAT_API *DAT_LMR_QUERY_FUNC)(
	IN	DAT_LMR_HANDLE,		/* lmr_handle */
	IN	DAT_LMR_PARAM_MASK,	/* lmr_param_mask */
	OUT	DAT_LMR_PARAM *);	/* lmr_param */

typedef DAT_RETURN (DAT_API *DAT_LMR_SYNC_RDMA_READ_FUNC)(
	IN	DAT_IA_HANDLE,		/* ia_handle */
	IN	const DAT_LMR_TRIPLET *, /* local_segments */
	IN	DAT_VLEN);		/* num_segments */

typedef DAT_RETURN (DAT_API *DAT_LMR_SYNC_RDMA_WRITE_FUNC)(
	IN	DAT_IA_HANDLE,		/* ia_handle */
	IN	const DAT_LMR_TRIPLET *, /* local_segments */
	IN	DAT_VLEN);		/* num_segments */

typedef DAT_RETURN (DAT_API *DAT_RMR_CREATE_FUNC)(
	IN	DAT_PZ_HANDLE,		/* pz_handle */
	OUT	DAT_RMR_HANDLE *);	/* rmr_handle */

typedef DAT_RETURN (DAT_API *DAT_RMR_QUERY_FUNC)(
	IN	DAT_RMR_HANDLE,		/* rmr_handle */
	IN	DAT_RMR_PARAM_MASK,	/* rmr_param_mask */
	OUT	DAT_RMR_PARAM *);	/* rmr_param */

typedef DAT_RETURN (DAT_API *DAT_RMR_BIND_FUNC)(
	IN	DAT_RMR_HANDLE,		/* rmr_handle */
	IN	const DAT_LMR_TRIPLET *, /* lmr_triplet */
	IN	DAT_MEM_PRIV_FLAGS,	/* mem_priv */
	IN	DAT_EP_HANDLE,		/* ep_handle */
	IN	DAT_RMR_COOKIE,		/* user_cookie */
	IN	DAT_COMPLETION_FLAGS,	/* completion_flags */
	OUT	DAT_RMR_CONTEXT *);	/* rmr_context */

typedef DAT_RETURN (DAT_API *DAT_RMR_FREE_FUNC)(
	IN	DAT_RMR_HANDLE);	/* rmr_handle */

/* ------------------------------------------------------------------ */
/* Service points and Protection Zones                                */
/* ------------------------------------------------------------------ */

typedef DAT_RETURN (DAT_API *DAT_PSP_CREATE_FUNC)(
	IN	DAT_IA_HANDLE,		/* ia_handle */
	IN	DAT_CONN_QUAL,		/* conn_qual */
	IN	DAT_EVD_HANDLE,		/* evd_handle */
	IN	DAT_PSP_FLAGS,		/* psp_flags */
	OUT	DAT_PSP_HANDLE *);	/* psp_handle */

typedef DAT_RETURN (DAT_API *DAT_PSP_CREATE_ANY_FUNC)(
	IN	DAT_IA_HANDLE,		/* ia_handle */
	OUT	DAT_CONN_QUAL *,	/* conn_qual */
	IN	DAT_EVD_HANDLE,		/* evd_handle */
	IN	DAT_PSP_FLAGS,		/* psp_flags */
	OUT	DAT_PSP_HANDLE *);	/* psp_handle */

typedef DAT_RETURN (DAT_API *DAT_PSP_QUERY_FUNC)(
	IN	DAT_PSP_HANDLE,		/* psp_handle */
	IN	DAT_PSP_PARAM_MASK,	/* psp_param_mask */
	OUT	DAT_PSP_PARAM *);	/* psp_param */

typedef DAT_RETURN (DAT_API *DAT_PSP_FREE_FUNC)(
	IN	DAT_PSP_HANDLE);	/* psp_handle */

typedef DAT_RETURN (DAT_API *DAT_RSP_CREATE_FUNC)(
	IN	DAT_IA_HANDLE,		/* ia_handle */
	IN	DAT_CONN_QUAL,		/* conn_qual */
	IN	DAT_EP_HANDLE,		/* ep_handle */
	IN	DAT_EVD_HANDLE,		/* evd_handle */
	OUT	DAT_RSP_HANDLE *);	/* rsp_handle */

typedef DAT_RETURN (DAT_API *DAT_RSP_QUERY_FUNC)(
	IN	DAT_RSP_HANDLE,		/* rsp_handle */
	IN	DAT_RSP_PARAM_MASK,	/* rsp_param_mask */
	OUT	DAT_RSP_PARAM *);	/* rsp_param */

typedef DAT_RETURN (DAT_API *DAT_RSP_FREE_FUNC)(
	IN	DAT_RSP_HANDLE);	/* rsp_handle */

typedef DAT_RETURN (DAT_API *DAT_PZ_CREATE_FUNC)(
	IN	DAT_IA_HANDLE,		/* ia_handle */
	OUT	DAT_PZ_HANDLE *);	/* pz_handle */

typedef DAT_RETURN (DAT_API *DAT_PZ_QUERY_FUNC)(
	IN	DAT_PZ_HANDLE,		/* pz_handle */
	IN	DAT_PZ_PARAM_MASK,	/* pz_param_mask */
	OUT	DAT_PZ_PARAM *);	/* pz_param */

typedef DAT_RETURN (DAT_API *DAT_PZ_FREE_FUNC)(
	IN	DAT_PZ_HANDLE);		/* pz_handle */

/* ------------------------------------------------------------------ */
/* Shared Receive Queues                                              */
/* ------------------------------------------------------------------ */

typedef DAT_RETURN (DAT_API *DAT_SRQ_CREATE_FUNC)(
	IN	DAT_IA_HANDLE,		/* ia_handle */
	IN	DAT_PZ_HANDLE,		/* pz_handle */
	IN	DAT_SRQ_ATTR *,		/* srq_attr */
	OUT	DAT_SRQ_HANDLE *);	/* srq_handle */

typedef DAT_RETURN (DAT_API *DAT_SRQ_SET_LW_FUNC)(
	IN	DAT_SRQ_HANDLE,		/* srq_handle */
	IN	DAT_COUNT);		/* low_watermark */

typedef DAT_RETURN (DAT_API *DAT_SRQ_FREE_FUNC)(
	IN	DAT_SRQ_HANDLE);	/* srq_handle */

typedef DAT_RETURN (DAT_API *DAT_SRQ_QUERY_FUNC)(
	IN	DAT_SRQ_HANDLE,		/* srq_handle */
	IN	DAT_SRQ_PARAM_MASK,	/* srq_param_mask */
	OUT	DAT_SRQ_PARAM *);	/* srq_param */

typedef DAT_RETURN (DAT_API *DAT_SRQ_RESIZE_FUNC)(
	IN	DAT_SRQ_HANDLE,		/* srq_handle */
	IN	DAT_COUNT);		/* srq_max_recv_dto */

typedef DAT_RETURN (DAT_API *DAT_SRQ_POST_RECV_FUNC)(
	IN	DAT_SRQ_HANDLE,		/* srq_handle */
	IN	DAT_COUNT,		/* num_segments */
	IN	DAT_LMR_TRIPLET *,	/* local_iov */
	IN	DAT_DTO_COOKIE);	/* user_cookie */

#ifdef __cplusplus
}
#endif

#endif /* _SOFTDAPL_DAT_DAT_REDIRECTION_H_ */
