/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The consumer entry points that forward to a provider.
 *
 * A DAT object handle points at an object whose first word is its
 * provider's DAT_PROVIDER table (DAT_HANDLE_TO_PROVIDER); the registry only
 * picks the table slot and passes the arguments through unchanged. An IA
 * handle is the exception: the consumer holds a small index into the IA
 * table, which is mapped back to the provider's IA before dispatch.
 *
 * Every entry point reads: check, map, dispatch.
 *
 *  - A handle that cannot be an object (NULL, or any value below
 *    DREG_HANDLE_MIN) gives DAT_INVALID_HANDLE with the subtype of the
 *    object that argument names. OFED 2.1.10 returns the same codes for
 *    NULL and dereferences the other small values.
 *  - An IA handle that dats_get_ia_handle does not map gives
 *    DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA).
 *  - A provider whose table has no function in the slot (older providers)
 *    gives DAT_ERROR(DAT_NOT_IMPLEMENTED, 0) where OFED would jump to NULL.
 *
 * Query results that hold an ia_handle field (the *_PARAM structures of
 * most objects) pass through untouched, as in OFED: the provider reports
 * the consumer's index by calling dats_get_ia_handle itself, and mapping
 * here as well would map it twice.
 *
 * Nothing here holds state or takes a lock; thread safety is the
 * provider's, and the IA table's for the mapping.
 */
#include <stdarg.h>
#include <stdint.h>

#include "registry.h"

/*
 * The body of an entry point whose first argument @h is an object handle
 * with DAT_INVALID_HANDLE subtype @sub: returns the provider's
 * @slot(@h, ...) or the registry's error as described above. @h must be a
 * plain variable: it is evaluated more than once.
 */
#define DREG_CALL(h, sub, slot, ...)					\
	do {								\
		const DAT_PROVIDER *dreg_p_;				\
									\
		if ((uintptr_t)(h) < DREG_HANDLE_MIN)			\
			return DAT_ERROR(DAT_INVALID_HANDLE, (sub));	\
		dreg_p_ = DAT_HANDLE_TO_PROVIDER(h);			\
		if (dreg_p_ == NULL)					\
			return DAT_ERROR(DAT_INVALID_HANDLE, (sub));	\
		if (dreg_p_->slot == NULL)				\
			return DAT_ERROR(DAT_NOT_IMPLEMENTED, 0);	\
		return dreg_p_->slot((h), ##__VA_ARGS__);		\
	} while (0)

/*
 * The body of an entry point whose first argument @ia is a consumer's IA
 * handle: maps it, then dispatches like DREG_CALL.
 */
#define DREG_IA_CALL(ia, slot, ...)					\
	do {								\
		DAT_IA_HANDLE dreg_ia_;					\
									\
		if (dreg_ia_map((ia), &dreg_ia_) != DAT_SUCCESS)	\
			return DAT_ERROR(DAT_INVALID_HANDLE,		\
					 DAT_INVALID_HANDLE_IA);	\
		DREG_CALL(dreg_ia_, DAT_INVALID_HANDLE_IA, slot,	\
			  ##__VA_ARGS__);				\
	} while (0)

/*
 * Turns a consumer's IA handle into the provider's IA. Returns DAT_SUCCESS
 * and sets *ia, or DAT_INVALID_HANDLE_IA when the IA table does not know
 * the handle.
 *
 * dats_get_ia_handle maps an index to the IA pointer and a registered IA
 * pointer to its index, so the pointer is always the larger of the handle
 * and its mapping. Taking the larger serves consumers that hold the raw
 * pointer too (a provider that forgets to map the ia_handle it reports in
 * a query hands them one); OFED would dispatch on the index and crash.
 */
static DAT_RETURN dreg_ia_map(DAT_IA_HANDLE handle, DAT_IA_HANDLE *ia)
{
	DAT_IA_HANDLE mapped = DAT_HANDLE_NULL;

	if (handle == DAT_HANDLE_NULL ||
	    dats_get_ia_handle(handle, &mapped) != DAT_SUCCESS ||
	    mapped == DAT_HANDLE_NULL)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	*ia = (uintptr_t)mapped > (uintptr_t)handle ? mapped : handle;
	return DAT_SUCCESS;
}

/*
 * Resolves a handle of any kind for the generic calls (consumer context,
 * handle type, extension operations): a value below DREG_HANDLE_MIN can
 * only be an IA index and is mapped, anything else is an object pointer
 * and is returned as it is. Returns DAT_HANDLE_NULL for NULL and for
 * indices the IA table does not know.
 */
static DAT_HANDLE dreg_any_handle(DAT_HANDLE handle)
{
	DAT_IA_HANDLE ia;

	if ((uintptr_t)handle >= DREG_HANDLE_MIN)
		return handle;
	if (dreg_ia_map(handle, &ia) != DAT_SUCCESS)
		return DAT_HANDLE_NULL;
	return ia;
}

/* IA. */

DREG_EXPORT DAT_RETURN DAT_API
dat_ia_query(DAT_IA_HANDLE ia_handle, DAT_EVD_HANDLE *async_evd_handle,
	     DAT_IA_ATTR_MASK ia_attr_mask, DAT_IA_ATTR *ia_attr,
	     DAT_PROVIDER_ATTR_MASK provider_attr_mask,
	     DAT_PROVIDER_ATTR *provider_attr)
{
	DREG_IA_CALL(ia_handle, ia_query_func, async_evd_handle, ia_attr_mask,
		     ia_attr, provider_attr_mask, provider_attr);
}

/*
 * Generic handles. The DAT 2.0 spec lets these take any handle, the IA
 * included; the consumer's IA index is mapped (as OFED 2.1.10 does) and an
 * unusable handle gives DAT_INVALID_HANDLE1, OFED's code for NULL.
 */

DREG_EXPORT DAT_RETURN DAT_API
dat_set_consumer_context(DAT_HANDLE dat_handle, DAT_CONTEXT context)
{
	DAT_HANDLE h = dreg_any_handle(dat_handle);

	DREG_CALL(h, DAT_INVALID_HANDLE1, set_consumer_context_func, context);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_get_consumer_context(DAT_HANDLE dat_handle, DAT_CONTEXT *context)
{
	DAT_HANDLE h = dreg_any_handle(dat_handle);

	DREG_CALL(h, DAT_INVALID_HANDLE1, get_consumer_context_func, context);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_get_handle_type(DAT_HANDLE dat_handle, DAT_HANDLE_TYPE *handle_type)
{
	DAT_HANDLE h = dreg_any_handle(dat_handle);

	DREG_CALL(h, DAT_INVALID_HANDLE1, get_handle_type_func, handle_type);
}

/* CR. */

DREG_EXPORT DAT_RETURN DAT_API
dat_cr_query(DAT_CR_HANDLE cr_handle, DAT_CR_PARAM_MASK cr_param_mask,
	     DAT_CR_PARAM *cr_param)
{
	DREG_CALL(cr_handle, DAT_INVALID_HANDLE_CR, cr_query_func,
		  cr_param_mask, cr_param);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_cr_accept(DAT_CR_HANDLE cr_handle, DAT_EP_HANDLE ep_handle,
	      DAT_COUNT private_data_size, const DAT_PVOID private_data)
{
	DREG_CALL(cr_handle, DAT_INVALID_HANDLE_CR, cr_accept_func, ep_handle,
		  private_data_size, private_data);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_cr_reject(DAT_CR_HANDLE cr_handle, DAT_COUNT private_data_size,
	      const DAT_PVOID private_data)
{
	DREG_CALL(cr_handle, DAT_INVALID_HANDLE_CR, cr_reject_func,
		  private_data_size, private_data);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_cr_handoff(DAT_CR_HANDLE cr_handle, DAT_CONN_QUAL handoff)
{
	DREG_CALL(cr_handle, DAT_INVALID_HANDLE_CR, cr_handoff_func, handoff);
}

/*
 * EVD. OFED reports every bad EVD handle as DAT_INVALID_HANDLE_EVD_REQUEST,
 * whatever the EVD's role; consumers see the same subtype here.
 */

DREG_EXPORT DAT_RETURN DAT_API
dat_evd_create(DAT_IA_HANDLE ia_handle, DAT_COUNT evd_min_qlen,
	       DAT_CNO_HANDLE cno_handle, DAT_EVD_FLAGS evd_flags,
	       DAT_EVD_HANDLE *evd_handle)
{
	DREG_IA_CALL(ia_handle, evd_create_func, evd_min_qlen, cno_handle,
		     evd_flags, evd_handle);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_evd_query(DAT_EVD_HANDLE evd_handle, DAT_EVD_PARAM_MASK evd_param_mask,
	      DAT_EVD_PARAM *evd_param)
{
	DREG_CALL(evd_handle, DAT_INVALID_HANDLE_EVD_REQUEST, evd_query_func,
		  evd_param_mask, evd_param);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_evd_modify_cno(DAT_EVD_HANDLE evd_handle, DAT_CNO_HANDLE cno_handle)
{
	DREG_CALL(evd_handle, DAT_INVALID_HANDLE_EVD_REQUEST,
		  evd_modify_cno_func, cno_handle);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_evd_enable(DAT_EVD_HANDLE evd_handle)
{
	DREG_CALL(evd_handle, DAT_INVALID_HANDLE_EVD_REQUEST, evd_enable_func);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_evd_disable(DAT_EVD_HANDLE evd_handle)
{
	DREG_CALL(evd_handle, DAT_INVALID_HANDLE_EVD_REQUEST,
		  evd_disable_func);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_evd_wait(DAT_EVD_HANDLE evd_handle, DAT_TIMEOUT timeout,
	     DAT_COUNT threshold, DAT_EVENT *event, DAT_COUNT *n_more_events)
{
	DREG_CALL(evd_handle, DAT_INVALID_HANDLE_EVD_REQUEST, evd_wait_func,
		  timeout, threshold, event, n_more_events);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_evd_resize(DAT_EVD_HANDLE evd_handle, DAT_COUNT evd_min_qlen)
{
	DREG_CALL(evd_handle, DAT_INVALID_HANDLE_EVD_REQUEST, evd_resize_func,
		  evd_min_qlen);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_evd_post_se(DAT_EVD_HANDLE evd_handle, const DAT_EVENT *event)
{
	DREG_CALL(evd_handle, DAT_INVALID_HANDLE_EVD_REQUEST, evd_post_se_func,
		  event);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_evd_dequeue(DAT_EVD_HANDLE evd_handle, DAT_EVENT *event)
{
	DREG_CALL(evd_handle, DAT_INVALID_HANDLE_EVD_REQUEST,
		  evd_dequeue_func, event);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_evd_free(DAT_EVD_HANDLE evd_handle)
{
	DREG_CALL(evd_handle, DAT_INVALID_HANDLE_EVD_REQUEST, evd_free_func);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_evd_set_unwaitable(DAT_EVD_HANDLE evd_handle)
{
	DREG_CALL(evd_handle, DAT_INVALID_HANDLE_EVD_REQUEST,
		  evd_set_unwaitable_func);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_evd_clear_unwaitable(DAT_EVD_HANDLE evd_handle)
{
	DREG_CALL(evd_handle, DAT_INVALID_HANDLE_EVD_REQUEST,
		  evd_clear_unwaitable_func);
}

/* CNO. */

DREG_EXPORT DAT_RETURN DAT_API
dat_cno_create(DAT_IA_HANDLE ia_handle, DAT_OS_WAIT_PROXY_AGENT agent,
	       DAT_CNO_HANDLE *cno_handle)
{
	DREG_IA_CALL(ia_handle, cno_create_func, agent, cno_handle);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_cno_fd_create(DAT_IA_HANDLE ia_handle, DAT_FD *fd,
		  DAT_CNO_HANDLE *cno_handle)
{
	DREG_IA_CALL(ia_handle, cno_fd_create_func, fd, cno_handle);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_cno_modify_agent(DAT_CNO_HANDLE cno_handle, DAT_OS_WAIT_PROXY_AGENT agent)
{
	DREG_CALL(cno_handle, DAT_INVALID_HANDLE_CNO, cno_modify_agent_func,
		  agent);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_cno_query(DAT_CNO_HANDLE cno_handle, DAT_CNO_PARAM_MASK cno_param_mask,
	      DAT_CNO_PARAM *cno_param)
{
	DREG_CALL(cno_handle, DAT_INVALID_HANDLE_CNO, cno_query_func,
		  cno_param_mask, cno_param);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_cno_free(DAT_CNO_HANDLE cno_handle)
{
	DREG_CALL(cno_handle, DAT_INVALID_HANDLE_CNO, cno_free_func);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_cno_wait(DAT_CNO_HANDLE cno_handle, DAT_TIMEOUT timeout,
	     DAT_EVD_HANDLE *evd_handle)
{
	DREG_CALL(cno_handle, DAT_INVALID_HANDLE_CNO, cno_wait_func, timeout,
		  evd_handle);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_cno_trigger(DAT_CNO_HANDLE cno_handle, DAT_EVD_HANDLE *evd_handle)
{
	DREG_CALL(cno_handle, DAT_INVALID_HANDLE_CNO, cno_trigger_func,
		  evd_handle);
}

/* EP. */

DREG_EXPORT DAT_RETURN DAT_API
dat_ep_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE pz_handle,
	      DAT_EVD_HANDLE recv_evd_handle, DAT_EVD_HANDLE request_evd_handle,
	      DAT_EVD_HANDLE connect_evd_handle, const DAT_EP_ATTR *ep_attributes,
	      DAT_EP_HANDLE *ep_handle)
{
	DREG_IA_CALL(ia_handle, ep_create_func, pz_handle, recv_evd_handle,
		     request_evd_handle, connect_evd_handle, ep_attributes,
		     ep_handle);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_ep_create_with_srq(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE pz_handle,
		       DAT_EVD_HANDLE recv_evd_handle,
		       DAT_EVD_HANDLE request_evd_handle,
		       DAT_EVD_HANDLE connect_evd_handle,
		       DAT_SRQ_HANDLE srq_handle,
		       const DAT_EP_ATTR *ep_attributes,
		       DAT_EP_HANDLE *ep_handle)
{
	DREG_IA_CALL(ia_handle, ep_create_with_srq_func, pz_handle,
		     recv_evd_handle, request_evd_handle, connect_evd_handle,
		     srq_handle, ep_attributes, ep_handle);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_ep_query(DAT_EP_HANDLE ep_handle, DAT_EP_PARAM_MASK ep_param_mask,
	     DAT_EP_PARAM *ep_param)
{
	DREG_CALL(ep_handle, DAT_INVALID_HANDLE_EP, ep_query_func,
		  ep_param_mask, ep_param);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_ep_modify(DAT_EP_HANDLE ep_handle, DAT_EP_PARAM_MASK ep_param_mask,
	      const DAT_EP_PARAM *ep_param)
{
	DREG_CALL(ep_handle, DAT_INVALID_HANDLE_EP, ep_modify_func,
		  ep_param_mask, ep_param);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_ep_connect(DAT_EP_HANDLE ep_handle, DAT_IA_ADDRESS_PTR remote_ia_address,
	       DAT_CONN_QUAL remote_conn_qual, DAT_TIMEOUT timeout,
	       DAT_COUNT private_data_size, const DAT_PVOID private_data,
	       DAT_QOS quality_of_service, DAT_CONNECT_FLAGS connect_flags)
{
	DREG_CALL(ep_handle, DAT_INVALID_HANDLE_EP, ep_connect_func,
		  remote_ia_address, remote_conn_qual, timeout,
		  private_data_size, private_data, quality_of_service,
		  connect_flags);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_ep_common_connect(DAT_EP_HANDLE ep_handle,
		      DAT_IA_ADDRESS_PTR remote_ia_address, DAT_TIMEOUT timeout,
		      DAT_COUNT private_data_size, const DAT_PVOID private_data)
{
	DREG_CALL(ep_handle, DAT_INVALID_HANDLE_EP, ep_common_connect_func,
		  remote_ia_address, timeout, private_data_size,
		  private_data);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_ep_dup_connect(DAT_EP_HANDLE ep_handle, DAT_EP_HANDLE ep_dup_handle,
		   DAT_TIMEOUT timeout, DAT_COUNT private_data_size,
		   const DAT_PVOID private_data, DAT_QOS quality_of_service)
{
	DREG_CALL(ep_handle, DAT_INVALID_HANDLE_EP, ep_dup_connect_func,
		  ep_dup_handle, timeout, private_data_size, private_data,
		  quality_of_service);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_ep_disconnect(DAT_EP_HANDLE ep_handle, DAT_CLOSE_FLAGS close_flags)
{
	DREG_CALL(ep_handle, DAT_INVALID_HANDLE_EP, ep_disconnect_func,
		  close_flags);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_ep_post_send(DAT_EP_HANDLE ep_handle, DAT_COUNT num_segments,
		 DAT_LMR_TRIPLET *local_iov, DAT_DTO_COOKIE user_cookie,
		 DAT_COMPLETION_FLAGS completion_flags)
{
	DREG_CALL(ep_handle, DAT_INVALID_HANDLE_EP, ep_post_send_func,
		  num_segments, local_iov, user_cookie, completion_flags);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_ep_post_send_with_invalidate(DAT_EP_HANDLE ep_handle,
				 DAT_COUNT num_segments,
				 DAT_LMR_TRIPLET *local_iov,
				 DAT_DTO_COOKIE user_cookie,
				 DAT_COMPLETION_FLAGS completion_flags,
				 DAT_BOOLEAN invalidate_flag,
				 DAT_RMR_CONTEXT rmr_context)
{
	DREG_CALL(ep_handle, DAT_INVALID_HANDLE_EP,
		  ep_post_send_with_invalidate_func, num_segments, local_iov,
		  user_cookie, completion_flags, invalidate_flag, rmr_context);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_ep_post_recv(DAT_EP_HANDLE ep_handle, DAT_COUNT num_segments,
		 DAT_LMR_TRIPLET *local_iov, DAT_DTO_COOKIE user_cookie,
		 DAT_COMPLETION_FLAGS completion_flags)
{
	DREG_CALL(ep_handle, DAT_INVALID_HANDLE_EP, ep_post_recv_func,
		  num_segments, local_iov, user_cookie, completion_flags);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_ep_post_rdma_read(DAT_EP_HANDLE ep_handle, DAT_COUNT num_segments,
		      DAT_LMR_TRIPLET *local_iov, DAT_DTO_COOKIE user_cookie,
		      const DAT_RMR_TRIPLET *remote_iov,
		      DAT_COMPLETION_FLAGS completion_flags)
{
	DREG_CALL(ep_handle, DAT_INVALID_HANDLE_EP, ep_post_rdma_read_func,
		  num_segments, local_iov, user_cookie, remote_iov,
		  completion_flags);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_ep_post_rdma_read_to_rmr(DAT_EP_HANDLE ep_handle,
			     const DAT_RMR_TRIPLET *local_iov,
			     DAT_DTO_COOKIE user_cookie,
			     const DAT_RMR_TRIPLET *remote_iov,
			     DAT_COMPLETION_FLAGS completion_flags)
{
	DREG_CALL(ep_handle, DAT_INVALID_HANDLE_EP,
		  ep_post_rdma_read_to_rmr_func, local_iov, user_cookie,
		  remote_iov, completion_flags);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_ep_post_rdma_write(DAT_EP_HANDLE ep_handle, DAT_COUNT num_segments,
		       DAT_LMR_TRIPLET *local_iov, DAT_DTO_COOKIE user_cookie,
		       const DAT_RMR_TRIPLET *remote_iov,
		       DAT_COMPLETION_FLAGS completion_flags)
{
	DREG_CALL(ep_handle, DAT_INVALID_HANDLE_EP, ep_post_rdma_write_func,
		  num_segments, local_iov, user_cookie, remote_iov,
		  completion_flags);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_ep_get_status(DAT_EP_HANDLE ep_handle, DAT_EP_STATE *ep_state,
		  DAT_BOOLEAN *recv_idle, DAT_BOOLEAN *request_idle)
{
	DREG_CALL(ep_handle, DAT_INVALID_HANDLE_EP, ep_get_status_func,
		  ep_state, recv_idle, request_idle);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_ep_free(DAT_EP_HANDLE ep_handle)
{
	DREG_CALL(ep_handle, DAT_INVALID_HANDLE_EP, ep_free_func);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_ep_reset(DAT_EP_HANDLE ep_handle)
{
	DREG_CALL(ep_handle, DAT_INVALID_HANDLE_EP, ep_reset_func);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_ep_recv_query(DAT_EP_HANDLE ep_handle, DAT_COUNT *nbufs_allocated,
		  DAT_COUNT *bufs_alloc_span)
{
	DREG_CALL(ep_handle, DAT_INVALID_HANDLE_EP, ep_recv_query_func,
		  nbufs_allocated, bufs_alloc_span);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_ep_set_watermark(DAT_EP_HANDLE ep_handle, DAT_COUNT soft_high_watermark,
		     DAT_COUNT hard_high_watermark)
{
	DREG_CALL(ep_handle, DAT_INVALID_HANDLE_EP, ep_set_watermark_func,
		  soft_high_watermark, hard_high_watermark);
}

/* LMR. */

DREG_EXPORT DAT_RETURN DAT_API
dat_lmr_create(DAT_IA_HANDLE ia_handle, DAT_MEM_TYPE mem_type,
	       DAT_REGION_DESCRIPTION region_description, DAT_VLEN length,
	       DAT_PZ_HANDLE pz_handle, DAT_MEM_PRIV_FLAGS privileges,
	       DAT_VA_TYPE va_type, DAT_LMR_HANDLE *lmr_handle,
	       DAT_LMR_CONTEXT *lmr_context, DAT_RMR_CONTEXT *rmr_context,
	       DAT_VLEN *registered_length, DAT_VADDR *registered_address)
{
	DREG_IA_CALL(ia_handle, lmr_create_func, mem_type, region_description,
		     length, pz_handle, privileges, va_type, lmr_handle,
		     lmr_context, rmr_context, registered_length,
		     registered_address);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_lmr_query(DAT_LMR_HANDLE lmr_handle, DAT_LMR_PARAM_MASK lmr_param_mask,
	      DAT_LMR_PARAM *lmr_param)
{
	DREG_CALL(lmr_handle, DAT_INVALID_HANDLE_LMR, lmr_query_func,
		  lmr_param_mask, lmr_param);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_lmr_free(DAT_LMR_HANDLE lmr_handle)
{
	DREG_CALL(lmr_handle, DAT_INVALID_HANDLE_LMR, lmr_free_func);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_lmr_sync_rdma_read(DAT_IA_HANDLE ia_handle,
		       const DAT_LMR_TRIPLET *local_segments,
		       DAT_VLEN num_segments)
{
	DREG_IA_CALL(ia_handle, lmr_sync_rdma_read_func, local_segments,
		     num_segments);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_lmr_sync_rdma_write(DAT_IA_HANDLE ia_handle,
			const DAT_LMR_TRIPLET *local_segments,
			DAT_VLEN num_segments)
{
	DREG_IA_CALL(ia_handle, lmr_sync_rdma_write_func, local_segments,
		     num_segments);
}

/* RMR. Creating one takes the PZ, and a bad PZ is reported as such. */

DREG_EXPORT DAT_RETURN DAT_API
dat_rmr_create(DAT_PZ_HANDLE pz_handle, DAT_RMR_HANDLE *rmr_handle)
{
	DREG_CALL(pz_handle, DAT_INVALID_HANDLE_PZ, rmr_create_func,
		  rmr_handle);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_rmr_create_for_ep(DAT_PZ_HANDLE pz_handle, DAT_RMR_HANDLE *rmr_handle)
{
	DREG_CALL(pz_handle, DAT_INVALID_HANDLE_PZ, rmr_create_for_ep_func,
		  rmr_handle);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_rmr_query(DAT_RMR_HANDLE rmr_handle, DAT_RMR_PARAM_MASK rmr_param_mask,
	      DAT_RMR_PARAM *rmr_param)
{
	DREG_CALL(rmr_handle, DAT_INVALID_HANDLE_RMR, rmr_query_func,
		  rmr_param_mask, rmr_param);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_rmr_bind(DAT_RMR_HANDLE rmr_handle, DAT_LMR_HANDLE lmr_handle,
	     const DAT_LMR_TRIPLET *lmr_triplet, DAT_MEM_PRIV_FLAGS mem_priv,
	     DAT_VA_TYPE va_type, DAT_EP_HANDLE ep_handle,
	     DAT_RMR_COOKIE user_cookie, DAT_COMPLETION_FLAGS completion_flags,
	     DAT_RMR_CONTEXT *context)
{
	DREG_CALL(rmr_handle, DAT_INVALID_HANDLE_RMR, rmr_bind_func,
		  lmr_handle, lmr_triplet, mem_priv, va_type, ep_handle,
		  user_cookie, completion_flags, context);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_rmr_free(DAT_RMR_HANDLE rmr_handle)
{
	DREG_CALL(rmr_handle, DAT_INVALID_HANDLE_RMR, rmr_free_func);
}

/* PSP. */

DREG_EXPORT DAT_RETURN DAT_API
dat_psp_create(DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL conn_qual,
	       DAT_EVD_HANDLE evd_handle, DAT_PSP_FLAGS psp_flags,
	       DAT_PSP_HANDLE *psp_handle)
{
	DREG_IA_CALL(ia_handle, psp_create_func, conn_qual, evd_handle,
		     psp_flags, psp_handle);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_psp_create_any(DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL *conn_qual,
		   DAT_EVD_HANDLE evd_handle, DAT_PSP_FLAGS psp_flags,
		   DAT_PSP_HANDLE *psp_handle)
{
	DREG_IA_CALL(ia_handle, psp_create_any_func, conn_qual, evd_handle,
		     psp_flags, psp_handle);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_psp_query(DAT_PSP_HANDLE psp_handle, DAT_PSP_PARAM_MASK psp_param_mask,
	      DAT_PSP_PARAM *psp_param)
{
	DREG_CALL(psp_handle, DAT_INVALID_HANDLE_PSP, psp_query_func,
		  psp_param_mask, psp_param);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_psp_free(DAT_PSP_HANDLE psp_handle)
{
	DREG_CALL(psp_handle, DAT_INVALID_HANDLE_PSP, psp_free_func);
}

/* RSP. */

DREG_EXPORT DAT_RETURN DAT_API
dat_rsp_create(DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL conn_qual,
	       DAT_EP_HANDLE ep_handle, DAT_EVD_HANDLE evd_handle,
	       DAT_RSP_HANDLE *rsp_handle)
{
	DREG_IA_CALL(ia_handle, rsp_create_func, conn_qual, ep_handle,
		     evd_handle, rsp_handle);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_rsp_query(DAT_RSP_HANDLE rsp_handle, DAT_RSP_PARAM_MASK rsp_param_mask,
	      DAT_RSP_PARAM *rsp_param)
{
	DREG_CALL(rsp_handle, DAT_INVALID_HANDLE_RSP, rsp_query_func,
		  rsp_param_mask, rsp_param);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_rsp_free(DAT_RSP_HANDLE rsp_handle)
{
	DREG_CALL(rsp_handle, DAT_INVALID_HANDLE_RSP, rsp_free_func);
}

/* CSP. */

DREG_EXPORT DAT_RETURN DAT_API
dat_csp_create(DAT_IA_HANDLE ia_handle, DAT_COMM *comm,
	       DAT_IA_ADDRESS_PTR address, DAT_EVD_HANDLE evd_handle,
	       DAT_CSP_HANDLE *csp_handle)
{
	DREG_IA_CALL(ia_handle, csp_create_func, comm, address, evd_handle,
		     csp_handle);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_csp_query(DAT_CSP_HANDLE csp_handle, DAT_CSP_PARAM_MASK csp_param_mask,
	      DAT_CSP_PARAM *csp_param)
{
	DREG_CALL(csp_handle, DAT_INVALID_HANDLE_CSP, csp_query_func,
		  csp_param_mask, csp_param);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_csp_free(DAT_CSP_HANDLE csp_handle)
{
	DREG_CALL(csp_handle, DAT_INVALID_HANDLE_CSP, csp_free_func);
}

/* PZ. */

DREG_EXPORT DAT_RETURN DAT_API
dat_pz_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE *pz_handle)
{
	DREG_IA_CALL(ia_handle, pz_create_func, pz_handle);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_pz_query(DAT_PZ_HANDLE pz_handle, DAT_PZ_PARAM_MASK pz_param_mask,
	     DAT_PZ_PARAM *pz_param)
{
	DREG_CALL(pz_handle, DAT_INVALID_HANDLE_PZ, pz_query_func,
		  pz_param_mask, pz_param);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_pz_free(DAT_PZ_HANDLE pz_handle)
{
	DREG_CALL(pz_handle, DAT_INVALID_HANDLE_PZ, pz_free_func);
}

/* SRQ. */

DREG_EXPORT DAT_RETURN DAT_API
dat_srq_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE pz_handle,
	       DAT_SRQ_ATTR *srq_attr, DAT_SRQ_HANDLE *srq_handle)
{
	DREG_IA_CALL(ia_handle, srq_create_func, pz_handle, srq_attr,
		     srq_handle);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_srq_free(DAT_SRQ_HANDLE srq_handle)
{
	DREG_CALL(srq_handle, DAT_INVALID_HANDLE_SRQ, srq_free_func);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_srq_post_recv(DAT_SRQ_HANDLE srq_handle, DAT_COUNT num_segments,
		  DAT_LMR_TRIPLET *local_iov, DAT_DTO_COOKIE user_cookie)
{
	DREG_CALL(srq_handle, DAT_INVALID_HANDLE_SRQ, srq_post_recv_func,
		  num_segments, local_iov, user_cookie);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_srq_query(DAT_SRQ_HANDLE srq_handle, DAT_SRQ_PARAM_MASK srq_param_mask,
	      DAT_SRQ_PARAM *srq_param)
{
	DREG_CALL(srq_handle, DAT_INVALID_HANDLE_SRQ, srq_query_func,
		  srq_param_mask, srq_param);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_srq_resize(DAT_SRQ_HANDLE srq_handle, DAT_COUNT srq_max_recv_dto)
{
	DREG_CALL(srq_handle, DAT_INVALID_HANDLE_SRQ, srq_resize_func,
		  srq_max_recv_dto);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_srq_set_lw(DAT_SRQ_HANDLE srq_handle, DAT_COUNT low_watermark)
{
	DREG_CALL(srq_handle, DAT_INVALID_HANDLE_SRQ, srq_set_lw_func,
		  low_watermark);
}

/*
 * Extensions (DAT 2.0 section 6.9). The handle may be of any kind; the
 * provider that owns it validates it against the operation. This is the
 * dispatch for every operation that is neither an open nor a close query.
 */
static DAT_RETURN dreg_ext_call(DAT_HANDLE h, DAT_EXTENDED_OP op,
				va_list args)
{
	DREG_CALL(h, DAT_INVALID_HANDLE1, handle_extendedop_func, op, args);
}

/*
 * The operation's arguments follow it and go to the provider as a va_list.
 * Open and close queries (dat_ib_open_query, dat_ib_close_query) act on a
 * provider without an open IA and are served by the registry; the open
 * query's first argument is the IA name and the handle is ignored. The
 * error codes for a missing name or handle are OFED's.
 *
 * OFED also refuses every other operation with DAT_NOT_IMPLEMENTED until
 * some IA reporting extension support has been opened in the process; here
 * the provider of the handle decides, and one without an extension
 * function gets DAT_NOT_IMPLEMENTED from DREG_CALL.
 */
DREG_EXPORT DAT_RETURN DAT_API
dat_extension_op(DAT_HANDLE handle, DAT_EXTENDED_OP ext_op, ...)
{
	DAT_HANDLE h = dreg_any_handle(handle);
	DAT_RETURN ret;
	va_list args;

	va_start(args, ext_op);
	if (ext_op & DAT_OPEN_EXTENSION_BASE) {
		const char *ia_name = va_arg(args, const char *);

		if (ia_name == NULL)
			ret = DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_ARG3);
		else
			ret = dreg_ext_open_query(ia_name, ext_op, args);
	} else if (ext_op & DAT_CLOSE_EXTENSION_BASE) {
		if (h == DAT_HANDLE_NULL)
			ret = DAT_ERROR(DAT_INVALID_HANDLE,
					DAT_INVALID_HANDLE_IA);
		else
			ret = dreg_ext_close_query(h, ext_op, args);
	} else {
		ret = dreg_ext_call(h, ext_op, args);
	}
	va_end(args);
	return ret;
}
