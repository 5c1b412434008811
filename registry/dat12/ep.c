/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DAT 1.2: endpoints, service points, connection requests and shared
 * receive queues (dat12.h).
 *
 * The parameter blocks of service points, connection requests and SRQs
 * have one layout in both APIs (the assertions below check every field):
 * they are passed as they are. EP attributes and parameters differ
 * (64-bit lengths in 1.2; 2.0 adds the communicator, so the field bits of
 * dat_ep_modify's mask below the EP attributes move by one).
 */
#include <stddef.h>
#include <string.h>

#include "dat12.h"

/* One layout in both APIs: the same size, and each field at its place. */
#define SAME(T, f)	_Static_assert(offsetof(DAT_##T, f) == offsetof(D2_##T, f) && \
				       sizeof(((DAT_##T *)0)->f) == \
				       sizeof(((D2_##T *)0)->f), #T "." #f)
#define SAME_SIZE(T)	_Static_assert(sizeof(DAT_##T) == sizeof(D2_##T), #T)

SAME_SIZE(CR_PARAM);
SAME(CR_PARAM, remote_ia_address_ptr);
SAME(CR_PARAM, remote_port_qual);
SAME(CR_PARAM, private_data_size);
SAME(CR_PARAM, private_data);
SAME(CR_PARAM, local_ep_handle);
_Static_assert((int)DAT_CR_FIELD_ALL == (int)D2_CR_FIELD_ALL, "cr masks");
SAME_SIZE(PSP_PARAM);
SAME(PSP_PARAM, ia_handle);
SAME(PSP_PARAM, conn_qual);
SAME(PSP_PARAM, evd_handle);
SAME(PSP_PARAM, psp_flags);
_Static_assert((int)DAT_PSP_FIELD_ALL == (int)D2_PSP_FIELD_ALL, "psp masks");
SAME_SIZE(RSP_PARAM);
SAME(RSP_PARAM, ia_handle);
SAME(RSP_PARAM, conn_qual);
SAME(RSP_PARAM, evd_handle);
SAME(RSP_PARAM, ep_handle);
_Static_assert((int)DAT_RSP_FIELD_ALL == (int)D2_RSP_FIELD_ALL, "rsp masks");
SAME_SIZE(SRQ_ATTR);
SAME(SRQ_ATTR, max_recv_dtos);
SAME(SRQ_ATTR, max_recv_iov);
SAME(SRQ_ATTR, low_watermark);
SAME_SIZE(SRQ_PARAM);
SAME(SRQ_PARAM, ia_handle);
SAME(SRQ_PARAM, srq_state);	/* values differ: dat_srq_query */
SAME(SRQ_PARAM, pz_handle);
SAME(SRQ_PARAM, max_recv_dtos);
SAME(SRQ_PARAM, max_recv_iov);
SAME(SRQ_PARAM, low_watermark);
SAME(SRQ_PARAM, available_dto_count);
SAME(SRQ_PARAM, outstanding_dto_count);
_Static_assert((int)DAT_SRQ_FIELD_ALL == (int)D2_SRQ_FIELD_ALL, "srq masks");

/* ---- endpoints --------------------------------------------------- */

D12_API DAT_RETURN DAT_API dat_ep_create(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz,
				 DAT_EVD_HANDLE recv_evd, DAT_EVD_HANDLE req_evd,
				 DAT_EVD_HANDLE conn_evd, const DAT_EP_ATTR *attr,
				 DAT_EP_HANDLE *ep)
{
	D2_EP_ATTR a;

	if (attr != NULL && d12_ep_attr_in(attr, &a) != DAT_SUCCESS)
		return D12_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
	return d12_ret(d2.ep_create(ia, pz, recv_evd, req_evd, conn_evd,
				    attr != NULL ? &a : NULL, ep));
}

D12_API DAT_RETURN DAT_API dat_ep_create_with_srq(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz,
					  DAT_EVD_HANDLE recv_evd,
					  DAT_EVD_HANDLE req_evd,
					  DAT_EVD_HANDLE conn_evd,
					  DAT_SRQ_HANDLE srq,
					  const DAT_EP_ATTR *attr,
					  DAT_EP_HANDLE *ep)
{
	D2_EP_ATTR a;

	if (attr != NULL && d12_ep_attr_in(attr, &a) != DAT_SUCCESS)
		return D12_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG7);
	return d12_ret(d2.ep_create_with_srq(ia, pz, recv_evd, req_evd, conn_evd,
					     srq, attr != NULL ? &a : NULL, ep));
}

/* The 1.2 mask's bits as 2.0's: 2.0 puts its comm field at 0x4. */
static D2_EP_PARAM_MASK ep_mask(DAT_EP_PARAM_MASK m)
{
	return (D2_EP_PARAM_MASK)((m & 0x3) | ((m & 0x7fc) << 1) |
				  (m & DAT_EP_FIELD_EP_ATTR_ALL) |
				  (m & ~(DAT_EP_PARAM_MASK)DAT_EP_FIELD_ALL));
}

D12_API DAT_RETURN DAT_API dat_ep_query(DAT_EP_HANDLE ep, DAT_EP_PARAM_MASK mask,
				DAT_EP_PARAM *param)
{
	D2_EP_PARAM p;
	D2_RETURN r;

	if (param == NULL)
		return d12_ret(d2.ep_query(ep, ep_mask(mask), NULL));
	r = d2.ep_query(ep, ep_mask(mask), &p);
	if (r != D2_SUCCESS)
		return d12_ret(r);
	memset(param, 0, sizeof(*param));
	param->ia_handle = p.ia_handle;
	param->ep_state = (DAT_EP_STATE)p.ep_state;
	param->local_ia_address_ptr = p.local_ia_address_ptr;
	param->local_port_qual = p.local_port_qual;
	param->remote_ia_address_ptr = p.remote_ia_address_ptr;
	param->remote_port_qual = p.remote_port_qual;
	param->pz_handle = p.pz_handle;
	param->recv_evd_handle = p.recv_evd_handle;
	param->request_evd_handle = p.request_evd_handle;
	param->connect_evd_handle = p.connect_evd_handle;
	param->srq_handle = p.srq_handle;
	d12_ep_attr(&p.ep_attr, &param->ep_attr);
	return DAT_SUCCESS;
}

D12_API DAT_RETURN DAT_API dat_ep_modify(DAT_EP_HANDLE ep, DAT_EP_PARAM_MASK mask,
				 const DAT_EP_PARAM *param)
{
	D2_EP_PARAM p;

	if (param == NULL)
		return d12_ret(d2.ep_modify(ep, ep_mask(mask), NULL));
	memset(&p, 0, sizeof(p));
	p.ia_handle = param->ia_handle;
	p.ep_state = (D2_EP_STATE)param->ep_state;
	p.local_ia_address_ptr = param->local_ia_address_ptr;
	p.local_port_qual = param->local_port_qual;
	p.remote_ia_address_ptr = param->remote_ia_address_ptr;
	p.remote_port_qual = param->remote_port_qual;
	p.pz_handle = param->pz_handle;
	p.recv_evd_handle = param->recv_evd_handle;
	p.request_evd_handle = param->request_evd_handle;
	p.connect_evd_handle = param->connect_evd_handle;
	p.srq_handle = param->srq_handle;
	if (d12_ep_attr_in(&param->ep_attr, &p.ep_attr) != DAT_SUCCESS)
		return D12_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	return d12_ret(d2.ep_modify(ep, ep_mask(mask), &p));
}

D12_API DAT_RETURN DAT_API dat_ep_connect(DAT_EP_HANDLE ep, DAT_IA_ADDRESS_PTR addr,
				  DAT_CONN_QUAL qual, DAT_TIMEOUT timeout,
				  DAT_COUNT pdata_size, const DAT_PVOID pdata,
				  DAT_QOS qos, DAT_CONNECT_FLAGS flags)
{
	return d12_ret(d2.ep_connect(ep, addr, qual, timeout, pdata_size, pdata,
				     (D2_QOS)qos, (D2_CONNECT_FLAGS)flags));
}

D12_API DAT_RETURN DAT_API dat_ep_dup_connect(DAT_EP_HANDLE ep, DAT_EP_HANDLE dup,
				      DAT_TIMEOUT timeout, DAT_COUNT pdata_size,
				      const DAT_PVOID pdata, DAT_QOS qos)
{
	return d12_ret(d2.ep_dup_connect(ep, dup, timeout, pdata_size, pdata,
					 (D2_QOS)qos));
}

D12_API DAT_RETURN DAT_API dat_ep_disconnect(DAT_EP_HANDLE ep, DAT_CLOSE_FLAGS flags)
{
	return d12_ret(d2.ep_disconnect(ep, (D2_CLOSE_FLAGS)flags));
}

D12_API DAT_RETURN DAT_API dat_ep_get_status(DAT_EP_HANDLE ep, DAT_EP_STATE *state,
				     DAT_BOOLEAN *recv_idle,
				     DAT_BOOLEAN *request_idle)
{
	D2_EP_STATE s;
	D2_BOOLEAN ri, qi;
	D2_RETURN r;

	r = d2.ep_get_status(ep, state != NULL ? &s : NULL,
			     recv_idle != NULL ? &ri : NULL,
			     request_idle != NULL ? &qi : NULL);
	if (r == D2_SUCCESS) {
		if (state != NULL)
			*state = (DAT_EP_STATE)s;
		if (recv_idle != NULL)
			*recv_idle = (DAT_BOOLEAN)ri;
		if (request_idle != NULL)
			*request_idle = (DAT_BOOLEAN)qi;
	}
	return d12_ret(r);
}

D12_API DAT_RETURN DAT_API dat_ep_free(DAT_EP_HANDLE ep)
{
	return d12_ret(d2.ep_free(ep));
}

D12_API DAT_RETURN DAT_API dat_ep_reset(DAT_EP_HANDLE ep)
{
	return d12_ret(d2.ep_reset(ep));
}

D12_API DAT_RETURN DAT_API dat_ep_recv_query(DAT_EP_HANDLE ep, DAT_COUNT *nbufs,
				     DAT_COUNT *span)
{
	return d12_ret(d2.ep_recv_query(ep, nbufs, span));
}

D12_API DAT_RETURN DAT_API dat_ep_set_watermark(DAT_EP_HANDLE ep, DAT_COUNT soft,
					DAT_COUNT hard)
{
	return d12_ret(d2.ep_set_watermark(ep, soft, hard));
}

/* ---- service points and connection requests --------------------- */

D12_API DAT_RETURN DAT_API dat_psp_create(DAT_IA_HANDLE ia, DAT_CONN_QUAL qual,
				  DAT_EVD_HANDLE evd, DAT_PSP_FLAGS flags,
				  DAT_PSP_HANDLE *psp)
{
	return d12_ret(d2.psp_create(ia, qual, evd, (D2_PSP_FLAGS)flags, psp));
}

D12_API DAT_RETURN DAT_API dat_psp_create_any(DAT_IA_HANDLE ia, DAT_CONN_QUAL *qual,
				      DAT_EVD_HANDLE evd, DAT_PSP_FLAGS flags,
				      DAT_PSP_HANDLE *psp)
{
	return d12_ret(d2.psp_create_any(ia, qual, evd, (D2_PSP_FLAGS)flags, psp));
}

D12_API DAT_RETURN DAT_API dat_psp_query(DAT_PSP_HANDLE psp, DAT_PSP_PARAM_MASK mask,
				 DAT_PSP_PARAM *param)
{
	return d12_ret(d2.psp_query(psp, (D2_PSP_PARAM_MASK)mask,
				    (D2_PSP_PARAM *)param));
}

D12_API DAT_RETURN DAT_API dat_psp_free(DAT_PSP_HANDLE psp)
{
	return d12_ret(d2.psp_free(psp));
}

D12_API DAT_RETURN DAT_API dat_rsp_create(DAT_IA_HANDLE ia, DAT_CONN_QUAL qual,
				  DAT_EP_HANDLE ep, DAT_EVD_HANDLE evd,
				  DAT_RSP_HANDLE *rsp)
{
	return d12_ret(d2.rsp_create(ia, qual, ep, evd, rsp));
}

D12_API DAT_RETURN DAT_API dat_rsp_query(DAT_RSP_HANDLE rsp, DAT_RSP_PARAM_MASK mask,
				 DAT_RSP_PARAM *param)
{
	return d12_ret(d2.rsp_query(rsp, (D2_RSP_PARAM_MASK)mask,
				    (D2_RSP_PARAM *)param));
}

D12_API DAT_RETURN DAT_API dat_rsp_free(DAT_RSP_HANDLE rsp)
{
	return d12_ret(d2.rsp_free(rsp));
}

D12_API DAT_RETURN DAT_API dat_cr_query(DAT_CR_HANDLE cr, DAT_CR_PARAM_MASK mask,
				DAT_CR_PARAM *param)
{
	return d12_ret(d2.cr_query(cr, (D2_CR_PARAM_MASK)mask,
				   (D2_CR_PARAM *)param));
}

D12_API DAT_RETURN DAT_API dat_cr_accept(DAT_CR_HANDLE cr, DAT_EP_HANDLE ep,
				 DAT_COUNT pdata_size, const DAT_PVOID pdata)
{
	return d12_ret(d2.cr_accept(cr, ep, pdata_size, pdata));
}

/* DAT 1.2 rejects without private data (2.0 may send some). */
D12_API DAT_RETURN DAT_API dat_cr_reject(DAT_CR_HANDLE cr)
{
	return d12_ret(d2.cr_reject(cr, 0, NULL));
}

D12_API DAT_RETURN DAT_API dat_cr_handoff(DAT_CR_HANDLE cr, DAT_CONN_QUAL qual)
{
	return d12_ret(d2.cr_handoff(cr, qual));
}

/* ---- shared receive queues (the receives are in post.c) ---------- */

D12_API DAT_RETURN DAT_API dat_srq_create(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz,
				  DAT_SRQ_ATTR *attr, DAT_SRQ_HANDLE *srq)
{
	return d12_ret(d2.srq_create(ia, pz, (D2_SRQ_ATTR *)attr, srq));
}

D12_API DAT_RETURN DAT_API dat_srq_free(DAT_SRQ_HANDLE srq)
{
	return d12_ret(d2.srq_free(srq));
}

D12_API DAT_RETURN DAT_API dat_srq_query(DAT_SRQ_HANDLE srq, DAT_SRQ_PARAM_MASK mask,
				 DAT_SRQ_PARAM *param)
{
	D2_RETURN r = d2.srq_query(srq, (D2_SRQ_PARAM_MASK)mask,
				   (D2_SRQ_PARAM *)param);

	/* 1.2 numbers the states the other way round (no SHUTDOWN in 1.2). */
	if (r == D2_SUCCESS && param != NULL)
		param->srq_state = (D2_SRQ_STATE)param->srq_state ==
				   D2_SRQ_STATE_OPERATIONAL ?
				   DAT_SRQ_STATE_OPERATIONAL : DAT_SRQ_STATE_ERROR;
	return d12_ret(r);
}

D12_API DAT_RETURN DAT_API dat_srq_resize(DAT_SRQ_HANDLE srq, DAT_COUNT qlen)
{
	return d12_ret(d2.srq_resize(srq, qlen));
}

D12_API DAT_RETURN DAT_API dat_srq_set_lw(DAT_SRQ_HANDLE srq, DAT_COUNT lw)
{
	return d12_ret(d2.srq_set_lw(srq, lw));
}
