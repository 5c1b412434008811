/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every conversion between DAT 1.2 and DAT 2.0 values (dat12.h), field by
 * field, so that the compiler checks each side's types. What differs in
 * meaning is said where it is converted.
 */
#include <stdint.h>
#include <string.h>

#include "dat12.h"

/*
 * Subtypes: 2.0 inserts DAT_INVALID_HANDLE_CSP (26) and
 * DAT_INVALID_STATE_SRQ_SHUTDOWN (88) into the enumeration, so the 1.2
 * subtypes from DAT_INVALID_HANDLE1 on are one less than 2.0's, and from
 * DAT_PRIVILEGES_READ on two less; 1.2 alone has DAT_INVALID_RO_COOKIE.
 * The two 2.0-only subtypes become their kind's plainest 1.2 value. Both
 * maps are checked against the headers below.
 */
_Static_assert((int)D2_INVALID_HANDLE_CSP == 26 && (int)DAT_INVALID_HANDLE1 == 26 &&
	       (int)D2_INVALID_HANDLE1 == 27, "subtypes from HANDLE1: +1");
_Static_assert((int)DAT_INVALID_STATE_SRQ_IN_USE + 1 == (int)D2_INVALID_STATE_SRQ_IN_USE &&
	       (int)D2_INVALID_STATE_SRQ_SHUTDOWN == (int)D2_INVALID_STATE_SRQ_IN_USE + 1,
	       "SRQ_SHUTDOWN follows SRQ_IN_USE in 2.0 only");
_Static_assert((int)DAT_PRIVILEGES_READ + 2 == (int)D2_PRIVILEGES_READ &&
	       (int)DAT_THREAD_SAFETY_NOT_FOUND + 2 == (int)D2_THREAD_SAFETY_NOT_FOUND,
	       "subtypes from PRIVILEGES_READ: +2");

static DAT_RETURN_SUBTYPE sub12(unsigned s)
{
	if (s < (unsigned)D2_INVALID_HANDLE_CSP)
		return (DAT_RETURN_SUBTYPE)s;
	if (s == (unsigned)D2_INVALID_HANDLE_CSP)
		return DAT_NO_SUBTYPE;
	if (s < (unsigned)D2_INVALID_STATE_SRQ_SHUTDOWN)
		return (DAT_RETURN_SUBTYPE)(s - 1);
	if (s == (unsigned)D2_INVALID_STATE_SRQ_SHUTDOWN)
		return DAT_INVALID_STATE_SRQ_IN_USE;
	if (s <= (unsigned)D2_THREAD_SAFETY_NOT_FOUND)
		return (DAT_RETURN_SUBTYPE)(s - 2);
	return DAT_NO_SUBTYPE;
}

unsigned d12_sub20(DAT_RETURN_SUBTYPE s)
{
	if (s < DAT_INVALID_HANDLE1)
		return (unsigned)s;
	if (s < DAT_PRIVILEGES_READ)
		return (unsigned)s + 1;
	if (s <= DAT_THREAD_SAFETY_NOT_FOUND)
		return (unsigned)s + 2;
	return (unsigned)D2_NO_SUBTYPE;	/* DAT_INVALID_RO_COOKIE: 1.2 only */
}

DAT_RETURN d12_ret(D2_RETURN r)
{
	DAT_RETURN cls = (DAT_RETURN)(r & D2_CLASS_ERROR);
	DAT_RETURN sub = sub12(D2_GET_SUBTYPE(r));

	if (r == D2_SUCCESS)
		return DAT_SUCCESS;
	switch (D2_GET_TYPE(r)) {
	case D2_NOT_IMPLEMENTED:
		/* 1.2 numbers it 0x0fff0000, 2.0 0x3fff0000. */
		return cls | DAT_NOT_IMPLEMENTED | sub;
	case D2_PORT_IN_USE:
		/* 2.0's CSPs; in 1.2 a qualifier in use is this. */
		return cls | DAT_CONN_QUAL_IN_USE;
	case D2_RESERVED_LMR:
	case D2_COMM_NOT_SUPPORTED:
		return cls | DAT_INVALID_PARAMETER;
	default:
		/* Every other type has the same number in both. */
		return cls | (DAT_RETURN)D2_GET_TYPE(r) | sub;
	}
}

/*
 * A 1.2 length (64-bit) for DAT 2.0, whose segments and messages are
 * 32-bit: false when it does not fit. DAT 2.0 providers report at most
 * 2^32 - 1 in max_message_size, so no such transfer could be asked of one.
 */
static int d12_len(DAT_VLEN v, D2_SEG_LENGTH *out)
{
	if (v > UINT32_MAX)
		return 0;
	*out = (D2_SEG_LENGTH)v;
	return 1;
}

DAT_RETURN d12_lmr_iov(DAT_COUNT n, const DAT_LMR_TRIPLET *iov,
		       D2_LMR_TRIPLET *out, DAT_RETURN_SUBTYPE n_arg)
{
	DAT_COUNT i;

	/* The provider's own answers (post.c sd_resolve_iov). */
	if (n < 0 || n > D12_IOV_MAX)
		return D12_ERR(DAT_INVALID_PARAMETER, n_arg);
	if (n > 0 && iov == NULL)
		return D12_ERR(DAT_INVALID_PARAMETER, n_arg + 1);
	for (i = 0; i < n; i++) {
		out[i].virtual_address = iov[i].virtual_address;
		out[i].lmr_context = iov[i].lmr_context;
		if (!d12_len(iov[i].segment_length, &out[i].segment_length))
			return D12_ERR(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE);
	}
	return DAT_SUCCESS;
}

void d12_lmr_triplet_back(const D2_LMR_TRIPLET *in, DAT_LMR_TRIPLET *out)
{
	memset(out, 0, sizeof(*out));
	out->lmr_context = in->lmr_context;
	out->virtual_address = in->virtual_address;
	out->segment_length = in->segment_length;
}

DAT_RETURN d12_rmr_triplet(const DAT_RMR_TRIPLET *in, D2_RMR_TRIPLET *out)
{
	/* 1.2 calls the remote address target_address, 2.0 virtual_address. */
	out->virtual_address = in->target_address;
	out->rmr_context = in->rmr_context;
	if (!d12_len(in->segment_length, &out->segment_length))
		return D12_ERR(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE);
	return DAT_SUCCESS;
}

void d12_rmr_triplet_back(const D2_RMR_TRIPLET *in, DAT_RMR_TRIPLET *out)
{
	memset(out, 0, sizeof(*out));
	out->rmr_context = in->rmr_context;
	out->target_address = in->virtual_address;
	out->segment_length = in->segment_length;
}

/*
 * A 2.0 event as 1.2 has it. Dropped: a DTO's operation and RMR context,
 * a connection request's truncate_flag, and the extension data (1.2 has
 * no extensions). Event numbers are the same in both APIs.
 */
void d12_event(const D2_EVENT *in, DAT_EVENT *out)
{
	const D2_EVENT_DATA *d = &in->event_data;
	DAT_EVENT_DATA *o = &out->event_data;

	memset(out, 0, sizeof(*out));
	out->event_number = (DAT_EVENT_NUMBER)in->event_number;
	out->evd_handle = in->evd_handle;
	switch ((int)in->event_number & ~0xfff) {
	case DAT_DTO_COMPLETION_EVENT & ~0xfff:
		o->dto_completion_event_data.ep_handle =
			d->dto_completion_event_data.ep_handle;
		o->dto_completion_event_data.user_cookie.as_64 =
			d->dto_completion_event_data.user_cookie.as_64;
		o->dto_completion_event_data.status = (DAT_DTO_COMPLETION_STATUS)
			d->dto_completion_event_data.status;
		o->dto_completion_event_data.transfered_length =
			d->dto_completion_event_data.transfered_length;
		break;
	case DAT_RMR_BIND_COMPLETION_EVENT & ~0xfff:
		o->rmr_completion_event_data.rmr_handle =
			d->rmr_completion_event_data.rmr_handle;
		o->rmr_completion_event_data.user_cookie.as_64 =
			d->rmr_completion_event_data.user_cookie.as_64;
		o->rmr_completion_event_data.status =
			(DAT_RMR_BIND_COMPLETION_STATUS)
			d->rmr_completion_event_data.status;
		break;
	case DAT_CONNECTION_REQUEST_EVENT & ~0xfff:
		o->cr_arrival_event_data.sp_handle.psp_handle =
			d->cr_arrival_event_data.sp_handle.psp_handle;
		o->cr_arrival_event_data.local_ia_address_ptr =
			d->cr_arrival_event_data.local_ia_address_ptr;
		o->cr_arrival_event_data.conn_qual =
			d->cr_arrival_event_data.conn_qual;
		o->cr_arrival_event_data.cr_handle =
			d->cr_arrival_event_data.cr_handle;
		break;
	case DAT_CONNECTION_EVENT_ESTABLISHED & ~0xfff:
		o->connect_event_data.ep_handle = d->connect_event_data.ep_handle;
		o->connect_event_data.private_data_size =
			d->connect_event_data.private_data_size;
		o->connect_event_data.private_data =
			d->connect_event_data.private_data;
		break;
	case DAT_ASYNC_ERROR_EVD_OVERFLOW & ~0xfff:
		o->asynch_error_event_data.dat_handle =
			d->asynch_error_event_data.d2_handle;
		o->asynch_error_event_data.reason =
			d->asynch_error_event_data.reason;
		break;
	case DAT_SOFTWARE_EVENT & ~0xfff:
		o->software_event_data.pointer = d->software_event_data.pointer;
		break;
	default:	/* an extension's event: its number, no data */
		break;
	}
}

DAT_RETURN d12_event_in(const DAT_EVENT *in, D2_EVENT *out)
{
	memset(out, 0, sizeof(*out));
	out->event_number = (D2_EVENT_NUMBER)in->event_number;
	out->evd_handle = in->evd_handle;
	/* dat_evd_post_se takes software events only: the provider says so. */
	if (in->event_number == DAT_SOFTWARE_EVENT)
		out->event_data.software_event_data.pointer =
			in->event_data.software_event_data.pointer;
	return DAT_SUCCESS;
}

DAT_RETURN d12_ep_attr_in(const DAT_EP_ATTR *in, D2_EP_ATTR *out)
{
	memset(out, 0, sizeof(*out));
	out->service_type = (D2_SERVICE_TYPE)in->service_type;
	if (!d12_len(in->max_message_size, &out->max_message_size) ||
	    !d12_len(in->max_rdma_size, &out->max_rdma_size))
		return D12_ERR(DAT_INVALID_PARAMETER, DAT_NO_SUBTYPE);
	out->qos = (D2_QOS)in->qos;
	out->recv_completion_flags = (D2_COMPLETION_FLAGS)in->recv_completion_flags;
	out->request_completion_flags =
		(D2_COMPLETION_FLAGS)in->request_completion_flags;
	out->max_recv_dtos = in->max_recv_dtos;
	out->max_request_dtos = in->max_request_dtos;
	out->max_recv_iov = in->max_recv_iov;
	out->max_request_iov = in->max_request_iov;
	out->max_rdma_read_in = in->max_rdma_read_in;
	out->max_rdma_read_out = in->max_rdma_read_out;
	out->srq_soft_hw = in->srq_soft_hw;
	out->max_rdma_read_iov = in->max_rdma_read_iov;
	out->max_rdma_write_iov = in->max_rdma_write_iov;
	out->ep_transport_specific_count = in->ep_transport_specific_count;
	out->ep_transport_specific = (D2_NAMED_ATTR *)in->ep_transport_specific;
	out->ep_provider_specific_count = in->ep_provider_specific_count;
	out->ep_provider_specific = (D2_NAMED_ATTR *)in->ep_provider_specific;
	return DAT_SUCCESS;
}

void d12_ep_attr(const D2_EP_ATTR *in, DAT_EP_ATTR *out)
{
	memset(out, 0, sizeof(*out));
	out->service_type = (DAT_SERVICE_TYPE)in->service_type;
	out->max_message_size = in->max_message_size;
	out->max_rdma_size = in->max_rdma_size;
	out->qos = (DAT_QOS)in->qos;
	out->recv_completion_flags = (DAT_COMPLETION_FLAGS)in->recv_completion_flags;
	out->request_completion_flags =
		(DAT_COMPLETION_FLAGS)in->request_completion_flags;
	out->max_recv_dtos = in->max_recv_dtos;
	out->max_request_dtos = in->max_request_dtos;
	out->max_recv_iov = in->max_recv_iov;
	out->max_request_iov = in->max_request_iov;
	out->max_rdma_read_in = in->max_rdma_read_in;
	out->max_rdma_read_out = in->max_rdma_read_out;
	out->srq_soft_hw = in->srq_soft_hw;
	out->max_rdma_read_iov = in->max_rdma_read_iov;
	out->max_rdma_write_iov = in->max_rdma_write_iov;
	out->ep_transport_specific_count = in->ep_transport_specific_count;
	out->ep_transport_specific = (DAT_NAMED_ATTR *)in->ep_transport_specific;
	out->ep_provider_specific_count = in->ep_provider_specific_count;
	out->ep_provider_specific = (DAT_NAMED_ATTR *)in->ep_provider_specific;
}

/* 2.0 adds zb_supported and the extension fields, which 1.2 lacks. */
void d12_ia_attr(const D2_IA_ATTR *in, DAT_IA_ATTR *out)
{
	memset(out, 0, sizeof(*out));
	memcpy(out->adapter_name, in->adapter_name, sizeof(out->adapter_name));
	memcpy(out->vendor_name, in->vendor_name, sizeof(out->vendor_name));
	out->hardware_version_major = in->hardware_version_major;
	out->hardware_version_minor = in->hardware_version_minor;
	out->firmware_version_major = in->firmware_version_major;
	out->firmware_version_minor = in->firmware_version_minor;
	out->ia_address_ptr = in->ia_address_ptr;
	out->max_eps = in->max_eps;
	out->max_dto_per_ep = in->max_dto_per_ep;
	out->max_rdma_read_per_ep_in = in->max_rdma_read_per_ep_in;
	out->max_rdma_read_per_ep_out = in->max_rdma_read_per_ep_out;
	out->max_evds = in->max_evds;
	out->max_evd_qlen = in->max_evd_qlen;
	out->max_iov_segments_per_dto = in->max_iov_segments_per_dto;
	out->max_lmrs = in->max_lmrs;
	out->max_lmr_block_size = in->max_lmr_block_size;
	out->max_lmr_virtual_address = in->max_lmr_virtual_address;
	out->max_pzs = in->max_pzs;
	out->max_message_size = in->max_message_size;
	out->max_rdma_size = in->max_rdma_size;
	out->max_rmrs = in->max_rmrs;
	out->max_rmr_target_address = in->max_rmr_target_address;
	out->max_srqs = in->max_srqs;
	out->max_ep_per_srq = in->max_ep_per_srq;
	out->max_recv_per_srq = in->max_recv_per_srq;
	out->max_iov_segments_per_rdma_read = in->max_iov_segments_per_rdma_read;
	out->max_iov_segments_per_rdma_write = in->max_iov_segments_per_rdma_write;
	out->max_rdma_read_in = in->max_rdma_read_in;
	out->max_rdma_read_out = in->max_rdma_read_out;
	out->max_rdma_read_per_ep_in_guaranteed =
		(DAT_BOOLEAN)in->max_rdma_read_per_ep_in_guaranteed;
	out->max_rdma_read_per_ep_out_guaranteed =
		(DAT_BOOLEAN)in->max_rdma_read_per_ep_out_guaranteed;
	out->num_transport_attr = in->num_transport_attr;
	out->transport_attr = (DAT_NAMED_ATTR *)in->transport_attr;
	out->num_vendor_attr = in->num_vendor_attr;
	out->vendor_attr = (DAT_NAMED_ATTR *)in->vendor_attr;
}

/*
 * 2.0 adds rdma_read_lmr_rmr_context_exposure, rmr_scope_supported,
 * is_signal_safe and the HA fields, which 1.2 lacks. The provider's
 * DAPL version is reported as 1.2: the API this caller speaks.
 */
void d12_provider_attr(const D2_PROVIDER_ATTR *in, DAT_PROVIDER_ATTR *out)
{
	DAT_BOOLEAN (*merge)[6] = (DAT_BOOLEAN (*)[6])(uintptr_t)
				  out->evd_stream_merging_supported;
	int i, j;

	memset(out, 0, sizeof(*out));
	memcpy(out->provider_name, in->provider_name, sizeof(out->provider_name));
	out->provider_version_major = in->provider_version_major;
	out->provider_version_minor = in->provider_version_minor;
	out->dapl_version_major = DAT_VERSION_MAJOR;
	out->dapl_version_minor = DAT_VERSION_MINOR;
	out->lmr_mem_types_supported = (DAT_MEM_TYPE)in->lmr_mem_types_supported;
	out->iov_ownership_on_return = (DAT_IOV_OWNERSHIP)in->iov_ownership_on_return;
	out->dat_qos_supported = (DAT_QOS)in->d2_qos_supported;
	out->completion_flags_supported =
		(DAT_COMPLETION_FLAGS)in->completion_flags_supported;
	out->is_thread_safe = (DAT_BOOLEAN)in->is_thread_safe;
	out->max_private_data_size = in->max_private_data_size;
	out->supports_multipath = (DAT_BOOLEAN)in->supports_multipath;
	out->ep_creator = (DAT_EP_CREATOR_FOR_PSP)in->ep_creator;
	/* 2.0 has no DAT_PZ_SAME: its SHAREABLE is 1, 1.2's 2. */
	out->pz_support = in->pz_support == D2_PZ_UNIQUE ? DAT_PZ_UNIQUE :
			  DAT_PZ_SHAREABLE;
	out->optimal_buffer_alignment = in->optimal_buffer_alignment;
	for (i = 0; i < 6; i++)
		for (j = 0; j < 6; j++)
			merge[i][j] = (DAT_BOOLEAN)in->evd_stream_merging_supported[i][j];
	out->srq_supported = (DAT_BOOLEAN)in->srq_supported;
	out->srq_watermarks_supported = in->srq_watermarks_supported;
	out->srq_ep_pz_difference_supported =
		(DAT_BOOLEAN)in->srq_ep_pz_difference_supported;
	out->srq_info_supported = in->srq_info_supported;
	out->ep_recv_info_supported = in->ep_recv_info_supported;
	out->lmr_sync_req = (DAT_BOOLEAN)in->lmr_sync_req;
	out->dto_async_return_guaranteed =
		(DAT_BOOLEAN)in->dto_async_return_guaranteed;
	out->rdma_write_for_rdma_read_req =
		(DAT_BOOLEAN)in->rdma_write_for_rdma_read_req;
	out->num_provider_specific_attr = in->num_provider_specific_attr;
	out->provider_specific_attr = (DAT_NAMED_ATTR *)in->provider_specific_attr;
}
