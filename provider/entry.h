/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The provider's entry points: one per slot of struct dat_provider, in the
 * order of the struct, each declared with exactly the type of its slot so
 * that a definition that drifts from the ABI does not compile.
 *
 * X(slot, TYPE): slot is the field name without "_func"; the function is
 * sd_<slot>, defined in the file of its object (see softdapl.h).
 */
#ifndef SD_ENTRY_H
#define SD_ENTRY_H

#include <dat2/udat.h>
#include <dat2/dat_registry.h>

#define SD_ENTRY_POINTS(X) \
	X(ia_open, DAT_IA_OPEN_FUNC) \
	X(ia_query, DAT_IA_QUERY_FUNC) \
	X(ia_close, DAT_IA_CLOSE_FUNC) \
	X(set_consumer_context, DAT_SET_CONSUMER_CONTEXT_FUNC) \
	X(get_consumer_context, DAT_GET_CONSUMER_CONTEXT_FUNC) \
	X(get_handle_type, DAT_GET_HANDLE_TYPE_FUNC) \
	X(cno_create, DAT_CNO_CREATE_FUNC) \
	X(cno_modify_agent, DAT_CNO_MODIFY_AGENT_FUNC) \
	X(cno_query, DAT_CNO_QUERY_FUNC) \
	X(cno_free, DAT_CNO_FREE_FUNC) \
	X(cno_wait, DAT_CNO_WAIT_FUNC) \
	X(cr_query, DAT_CR_QUERY_FUNC) \
	X(cr_accept, DAT_CR_ACCEPT_FUNC) \
	X(cr_reject, DAT_CR_REJECT_FUNC) \
	X(cr_handoff, DAT_CR_HANDOFF_FUNC) \
	X(evd_create, DAT_EVD_CREATE_FUNC) \
	X(evd_query, DAT_EVD_QUERY_FUNC) \
	X(evd_modify_cno, DAT_EVD_MODIFY_CNO_FUNC) \
	X(evd_enable, DAT_EVD_ENABLE_FUNC) \
	X(evd_disable, DAT_EVD_DISABLE_FUNC) \
	X(evd_wait, DAT_EVD_WAIT_FUNC) \
	X(evd_resize, DAT_EVD_RESIZE_FUNC) \
	X(evd_post_se, DAT_EVD_POST_SE_FUNC) \
	X(evd_dequeue, DAT_EVD_DEQUEUE_FUNC) \
	X(evd_free, DAT_EVD_FREE_FUNC) \
	X(ep_create, DAT_EP_CREATE_FUNC) \
	X(ep_query, DAT_EP_QUERY_FUNC) \
	X(ep_modify, DAT_EP_MODIFY_FUNC) \
	X(ep_connect, DAT_EP_CONNECT_FUNC) \
	X(ep_dup_connect, DAT_EP_DUP_CONNECT_FUNC) \
	X(ep_disconnect, DAT_EP_DISCONNECT_FUNC) \
	X(ep_post_send, DAT_EP_POST_SEND_FUNC) \
	X(ep_post_recv, DAT_EP_POST_RECV_FUNC) \
	X(ep_post_rdma_read, DAT_EP_POST_RDMA_READ_FUNC) \
	X(ep_post_rdma_write, DAT_EP_POST_RDMA_WRITE_FUNC) \
	X(ep_get_status, DAT_EP_GET_STATUS_FUNC) \
	X(ep_free, DAT_EP_FREE_FUNC) \
	X(lmr_create, DAT_LMR_CREATE_FUNC) \
	X(lmr_query, DAT_LMR_QUERY_FUNC) \
	X(lmr_free, DAT_LMR_FREE_FUNC) \
	X(rmr_create, DAT_RMR_CREATE_FUNC) \
	X(rmr_query, DAT_RMR_QUERY_FUNC) \
	X(rmr_bind, DAT_RMR_BIND_FUNC) \
	X(rmr_free, DAT_RMR_FREE_FUNC) \
	X(psp_create, DAT_PSP_CREATE_FUNC) \
	X(psp_query, DAT_PSP_QUERY_FUNC) \
	X(psp_free, DAT_PSP_FREE_FUNC) \
	X(rsp_create, DAT_RSP_CREATE_FUNC) \
	X(rsp_query, DAT_RSP_QUERY_FUNC) \
	X(rsp_free, DAT_RSP_FREE_FUNC) \
	X(pz_create, DAT_PZ_CREATE_FUNC) \
	X(pz_query, DAT_PZ_QUERY_FUNC) \
	X(pz_free, DAT_PZ_FREE_FUNC) \
	X(psp_create_any, DAT_PSP_CREATE_ANY_FUNC) \
	X(ep_reset, DAT_EP_RESET_FUNC) \
	X(evd_set_unwaitable, DAT_EVD_SET_UNWAITABLE_FUNC) \
	X(evd_clear_unwaitable, DAT_EVD_CLEAR_UNWAITABLE_FUNC) \
	X(lmr_sync_rdma_read, DAT_LMR_SYNC_RDMA_READ_FUNC) \
	X(lmr_sync_rdma_write, DAT_LMR_SYNC_RDMA_WRITE_FUNC) \
	X(ep_create_with_srq, DAT_EP_CREATE_WITH_SRQ_FUNC) \
	X(ep_recv_query, DAT_EP_RECV_QUERY_FUNC) \
	X(ep_set_watermark, DAT_EP_SET_WATERMARK_FUNC) \
	X(srq_create, DAT_SRQ_CREATE_FUNC) \
	X(srq_free, DAT_SRQ_FREE_FUNC) \
	X(srq_post_recv, DAT_SRQ_POST_RECV_FUNC) \
	X(srq_query, DAT_SRQ_QUERY_FUNC) \
	X(srq_resize, DAT_SRQ_RESIZE_FUNC) \
	X(srq_set_lw, DAT_SRQ_SET_LW_FUNC) \
	X(csp_create, DAT_CSP_CREATE_FUNC) \
	X(csp_query, DAT_CSP_QUERY_FUNC) \
	X(csp_free, DAT_CSP_FREE_FUNC) \
	X(ep_common_connect, DAT_EP_COMMON_CONNECT_FUNC) \
	X(rmr_create_for_ep, DAT_RMR_CREATE_FOR_EP_FUNC) \
	X(ep_post_send_with_invalidate, DAT_EP_POST_SEND_WITH_INVALIDATE_FUNC) \
	X(ep_post_rdma_read_to_rmr, DAT_EP_POST_RDMA_READ_TO_RMR_FUNC) \
	X(cno_fd_create, DAT_CNO_FD_CREATE_FUNC) \
	X(cno_trigger, DAT_CNO_TRIGGER_FUNC) \
	X(ia_ha_related, DAT_IA_HA_RELATED_FUNC) \
	X(handle_extendedop, DAT_HANDLE_EXTENDEDOP_FUNC)

#define SD_DECLARE_ENTRY(slot, TYPE) \
	extern __typeof__(*(TYPE)0) sd_##slot;
SD_ENTRY_POINTS(SD_DECLARE_ENTRY)
#undef SD_DECLARE_ENTRY

/*
 * The UD table (provider.c): the slots a UD EP or CR reaches, which are
 * not sd_provider's, and their entry points (ud.c, udcm.c). X(slot, fn);
 * each fn is declared with exactly the type of its slot. In the order
 * provider.c sets them.
 */
#define SD_UD_SLOTS(X) \
	X(set_consumer_context, sd_ud_set_consumer_context) \
	X(get_consumer_context, sd_ud_get_consumer_context) \
	X(get_handle_type, sd_ud_get_handle_type) \
	X(ep_query, sd_ud_ep_query) \
	X(ep_modify, sd_ud_ep_modify) \
	X(ep_connect, sd_ud_ep_connect) \
	X(ep_dup_connect, sd_ud_ep_dup_connect) \
	X(ep_common_connect, sd_ud_ep_common_connect) \
	X(ep_disconnect, sd_ud_ep_disconnect) \
	X(ep_post_send, sd_ud_ep_post_send) \
	X(ep_post_send_with_invalidate, sd_ud_ep_post_send_with_invalidate) \
	X(ep_post_recv, sd_ud_ep_post_recv) \
	X(ep_post_rdma_read, sd_ud_ep_post_rdma_read) \
	X(ep_post_rdma_write, sd_ud_ep_post_rdma_write) \
	X(ep_post_rdma_read_to_rmr, sd_ud_ep_post_rdma_read_to_rmr) \
	X(ep_get_status, sd_ud_ep_get_status) \
	X(ep_free, sd_ud_ep_free) \
	X(ep_reset, sd_ud_ep_reset) \
	X(ep_recv_query, sd_ud_ep_recv_query) \
	X(ep_set_watermark, sd_ud_ep_set_watermark) \
	X(cr_query, sd_ud_cr_query) \
	X(cr_accept, sd_ud_cr_accept) \
	X(cr_reject, sd_ud_cr_reject) \
	X(cr_handoff, sd_ud_cr_handoff)

#define SD_DECLARE_UD_ENTRY(slot, fn) \
	extern __typeof__(*((DAT_PROVIDER *)0)->slot##_func) fn;
SD_UD_SLOTS(SD_DECLARE_UD_ENTRY)
#undef SD_DECLARE_UD_ENTRY

#endif
