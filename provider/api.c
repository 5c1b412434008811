/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers that the entry points of more than one file share (layer 5s):
 * the DAT_INVALID_STATE subtype of an EP state, dat_ep_modify's argument
 * checks for RC and UD EPs, and the completion flags a post may carry.
 * They check arguments and compute return values; they hold no lock and
 * touch no object's state, so any thread may call them. Nothing below the
 * entry points calls them.
 */
#include <errno.h>

#include "api.h"
#include "evq.h"
#include "ia.h"
#include "mem.h"
#include "obj.h"
#include "util.h"

/*
 * Negative errno from the layers below, and the DAT_RETURN each becomes:
 * X(errno, type, subtype), where the subtype is a constant or one of
 * the POS_* below, taken from the call's struct sd_argpos.
 *
 *   -E2BIG   a segment count above the EP's or SRQ's limit (COMMON-1)
 *   -EFAULT  no segment list for a count above 0
 *   -ERANGE  a segment outside its region (COMMON-5)
 *   -ENOKEY  a context that names no LMR of the IA (COMMON-7): no
 *            subtype, which tells it from a missing privilege
 *   -EACCES  a missing privilege (COMMON-7)
 *   -EPERM   memory of another protection zone (COMMON-6)
 *   -ENODEV  a segment to resolve on an EP without a PZ
 *   -ENOSPC  no context left to bind an RMR with
 *   -ENOMEM  out of memory
 *   -EDOM    a connection qualifier that names no port
 *   -EADDRINUSE  the qualifier's port is taken
 *   -EIO     no listener could be made
 *   -EXDEV   an RMR bound through an EP of another protection zone
 *   -ENOBUFS the request queue is full (COMMON-8)
 *   -EINVAL  a queue length that is not positive
 *   -EOVERFLOW   a queue longer than the provider makes
 *   -EOPNOTSUPP  flags the call does not know
 *   -ENOENT  no provider registered under the IA name
 */
enum { POS_COUNT = -1, POS_IOV = -2, POS_PRIV = -3, POS_PROT = -4,
       POS_QUAL = -5, POS_FLAGS = -6 };

#define SD_ERRNO_MAP(X)							\
	X(E2BIG,  DAT_INVALID_PARAMETER,      POS_COUNT)			\
	X(EFAULT, DAT_INVALID_PARAMETER,      POS_IOV)			\
	X(ERANGE, DAT_INVALID_PARAMETER,      POS_IOV)			\
	X(ENOKEY, DAT_PRIVILEGES_VIOLATION,   0)			\
	X(EACCES, DAT_PRIVILEGES_VIOLATION,   POS_PRIV)			\
	X(EPERM,  DAT_PROTECTION_VIOLATION,   POS_PROT)			\
	X(ENODEV, DAT_INVALID_STATE,          DAT_INVALID_STATE_EP_PZ)	\
	X(ENOSPC, DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY_REGION) \
	X(ENOMEM, DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY)	\
	X(EDOM,   DAT_INVALID_PARAMETER,      POS_QUAL)			\
	X(EADDRINUSE, DAT_CONN_QUAL_IN_USE,   0)			\
	X(EIO,    DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_DEVICE)	\
	X(EXDEV,  DAT_PROTECTION_VIOLATION,   0)			\
	X(ENOBUFS, DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP)	\
	X(EINVAL, DAT_INVALID_PARAMETER,      POS_COUNT)			\
	X(EOVERFLOW, DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEVD)	\
	X(EOPNOTSUPP, DAT_INVALID_PARAMETER,  POS_FLAGS)		\
	X(ENOENT, DAT_PROVIDER_NOT_FOUND,     DAT_NAME_NOT_REGISTERED)

static const struct {
	int		err;
	DAT_RETURN	type;
	int		sub;
} errno_map[] = {
#define SD_ERRNO_ROW(e, t, s) { e, t, s },
	SD_ERRNO_MAP(SD_ERRNO_ROW)
#undef SD_ERRNO_ROW
};

DAT_RETURN sd_api_errno(int err, const struct sd_argpos *pos)
{
	size_t i;

	for (i = 0; i < SD_ARRAY_SIZE(errno_map); i++) {
		int sub = errno_map[i].sub;

		if (errno_map[i].err != -err)
			continue;
		switch (sub) {
		case POS_COUNT:
			return SD_ERR(errno_map[i].type, pos->count);
		case POS_IOV:
			return SD_ERR(errno_map[i].type, pos->iov);
		case POS_QUAL:
			return SD_ERR(errno_map[i].type, pos->qual);
		case POS_FLAGS:
			return SD_ERR(errno_map[i].type, pos->flags);
		case POS_PRIV:
			return SD_ERR(errno_map[i].type, pos->write ?
				      DAT_PRIVILEGES_WRITE : DAT_PRIVILEGES_READ);
		case POS_PROT:
			return SD_ERR(errno_map[i].type, pos->write ?
				      DAT_PROTECTION_WRITE : DAT_PROTECTION_READ);
		default:
			return SD_ERR(errno_map[i].type, sub);
		}
	}
	sd_log("internal error: errno %d has no DAT_RETURN", -err);
	return SD_ERR(DAT_INTERNAL_ERROR, 0);
}

/* dat_ep_modify's checks and copy that need no EP, shared with ud.c (api.h). */
DAT_RETURN sd_api_modify_args(struct sd_ia *ia, DAT_EP_PARAM_MASK mask,
			     const DAT_EP_PARAM *p, struct sd_pz **pz)
{
	const DAT_EP_PARAM_MASK fixed = DAT_EP_FIELD_IA_HANDLE |
		DAT_EP_FIELD_EP_STATE | DAT_EP_FIELD_COMM |
		DAT_EP_FIELD_LOCAL_IA_ADDRESS_PTR | DAT_EP_FIELD_LOCAL_PORT_QUAL |
		DAT_EP_FIELD_REMOTE_IA_ADDRESS_PTR |
		DAT_EP_FIELD_REMOTE_PORT_QUAL | DAT_EP_FIELD_SRQ_HANDLE;

	*pz = NULL;
	if (p == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (mask & fixed || mask & ~DAT_EP_FIELD_ALL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (mask & DAT_EP_FIELD_PZ_HANDLE && p->pz_handle != DAT_HANDLE_NULL) {
		struct sd_obj *o = sd_obj_check(p->pz_handle, SD_MAGIC_PZ);

		if (o == NULL || o->ia != ia)
			return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
		*pz = sd_container_of(o, struct sd_pz, obj);
	}
	return DAT_SUCCESS;
}

DAT_RETURN sd_api_modify_attr_check(DAT_EP_PARAM_MASK mask,
				   const DAT_EP_ATTR *in,
				   DAT_SERVICE_TYPE service)
{
	if (mask & DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE &&
	    in->service_type != service)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	/* None exist: only "none" can be asked for. */
	if ((mask & (DAT_EP_FIELD_EP_ATTR_NUM_TRANSPORT_ATTR |
		     DAT_EP_FIELD_EP_ATTR_TRANSPORT_SPECIFIC_ATTR) &&
	     in->ep_transport_specific_count != 0) ||
	    (mask & (DAT_EP_FIELD_EP_ATTR_NUM_PROVIDER_ATTR |
		     DAT_EP_FIELD_EP_ATTR_PROVIDER_SPECIFIC_ATTR) &&
	     in->ep_provider_specific_count != 0))
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (mask & DAT_EP_FIELD_EP_ATTR_SRQ_SOFT_HW &&
	    in->srq_soft_hw < 0 && in->srq_soft_hw != DAT_WATERMARK_INFINITE)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	return DAT_SUCCESS;
}

void sd_api_attr_take(DAT_EP_ATTR *a, DAT_EP_PARAM_MASK mask,
		     const DAT_EP_ATTR *in)
{
#define TAKE(bit, field) if (mask & (bit)) a->field = in->field
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE, max_message_size);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_SIZE, max_rdma_size);
	TAKE(DAT_EP_FIELD_EP_ATTR_QOS, qos);
	TAKE(DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS, recv_completion_flags);
	TAKE(DAT_EP_FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS, request_completion_flags);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, max_recv_dtos);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_DTOS, max_request_dtos);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RECV_IOV, max_recv_iov);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV, max_request_iov);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IN, max_rdma_read_in);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_OUT, max_rdma_read_out);
	TAKE(DAT_EP_FIELD_EP_ATTR_SRQ_SOFT_HW, srq_soft_hw);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IOV, max_rdma_read_iov);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_WRITE_IOV, max_rdma_write_iov);
#undef TAKE
}

/* See api.h. */
bool sd_api_flags_ok(DAT_COMPLETION_FLAGS f, DAT_COMPLETION_FLAGS allowed)
{
	if (f & ~(DAT_COMPLETION_SUPPRESS_FLAG | DAT_COMPLETION_SOLICITED_WAIT_FLAG |
		  DAT_COMPLETION_UNSIGNALLED_FLAG | DAT_COMPLETION_BARRIER_FENCE_FLAG))
		return false;
	/* SEND-3, RECV-4, WRITE-3 */
	if ((f & DAT_COMPLETION_UNSIGNALLED_FLAG) &&
	    !(allowed & DAT_COMPLETION_UNSIGNALLED_FLAG))
		return false;
	return true;
}

/* Swaps in @to as the EVD reference of @slot. ia->lock. */
void sd_api_swap_ref(struct sd_evd **slot, struct sd_evd *to)
{
	if (*slot == to)
		return;
	if (*slot)
		(*slot)->refs--;
	if (to)
		to->refs++;
	*slot = to;
}

/* The DAT_INVALID_STATE subtype of each state (dat_error.h). */
static const DAT_RETURN_SUBTYPE state_subtypes[] = {
	[DAT_EP_STATE_UNCONNECTED] = DAT_INVALID_STATE_EP_UNCONNECTED,
	[DAT_EP_STATE_UNCONFIGURED_UNCONNECTED] = DAT_INVALID_STATE_EP_UNCONFIGURED,
	[DAT_EP_STATE_RESERVED] = DAT_INVALID_STATE_EP_RESERVED,
	[DAT_EP_STATE_UNCONFIGURED_RESERVED] = DAT_INVALID_STATE_EP_UNCONFRESERVED,
	[DAT_EP_STATE_PASSIVE_CONNECTION_PENDING] = DAT_INVALID_STATE_EP_PASSCONNPENDING,
	[DAT_EP_STATE_UNCONFIGURED_PASSIVE] = DAT_INVALID_STATE_EP_UNCONFPASSIVE,
	[DAT_EP_STATE_ACTIVE_CONNECTION_PENDING] = DAT_INVALID_STATE_EP_ACTCONNPENDING,
	[DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING] = DAT_INVALID_STATE_EP_TENTCONNPENDING,
	[DAT_EP_STATE_UNCONFIGURED_TENTATIVE] = DAT_INVALID_STATE_EP_UNCONFTENTATIVE,
	[DAT_EP_STATE_CONNECTED] = DAT_INVALID_STATE_EP_CONNECTED,
	[DAT_EP_STATE_DISCONNECT_PENDING] = DAT_INVALID_STATE_EP_DISCPENDING,
	[DAT_EP_STATE_DISCONNECTED] = DAT_INVALID_STATE_EP_DISCONNECTED,
	[DAT_EP_STATE_COMPLETION_PENDING] = DAT_INVALID_STATE_EP_COMPLPENDING,
	[DAT_EP_STATE_CONNECTED_SINGLE_PATH] = DAT_INVALID_STATE_EP_CONNECTED,
	[DAT_EP_STATE_CONNECTED_MULTI_PATH] = DAT_INVALID_STATE_EP_CONNECTED,
};

DAT_RETURN sd_api_state_err(DAT_EP_STATE s)
{
	return SD_ERR(DAT_INVALID_STATE,
		      (unsigned)s < SD_ARRAY_SIZE(state_subtypes) ?
		      state_subtypes[s] : 0);
}
