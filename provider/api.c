/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers that the entry points of more than one file share (layer 5s):
 * the DAT_INVALID_STATE subtype of an EP state, dat_ep_modify's argument
 * checks for RC and UD EPs, the completion flags a post may carry, and
 * the refusals more than one entry-point file says (api.h), with the
 * meaning of each errno of the layers below. They check arguments and
 * compute return values; they hold no lock and
 * touch no object's state, so any thread may call them. Nothing below the
 * entry points calls them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "api.h"
#include "evq.h"
#include "ia.h"
#include "mem.h"
#include "obj.h"
#include "refuse.h"
#include "util.h"
#include "wq.h"		/* SD_COMPLETION_FLAGS_ALL */

/* The completion flags a post may carry (sd_api_flags_ok). */
#define POST_FLAGS (DAT_COMPLETION_SUPPRESS_FLAG |			\
		    DAT_COMPLETION_SOLICITED_WAIT_FLAG |		\
		    DAT_COMPLETION_UNSIGNALLED_FLAG |			\
		    DAT_COMPLETION_BARRIER_FENCE_FLAG)

/*
 * Negative errno from the layers below, the DAT_RETURN each becomes, and
 * what it means in a refusal's reason: X(errno, type, subtype, meaning),
 * where the subtype is a constant or one of the POS_* below, taken from
 * the call's struct sd_argpos. The meaning follows "WHAT: " (sd_api_fail).
 *
 *   -E2BIG   a segment count above the EP's or SRQ's limit (COMMON-1)
 *   -ENOKEY  a context that names no LMR of the IA (COMMON-7): no
 *            subtype, which tells it from a missing privilege
 *   -ERANGE  COMMON-5; -EACCES COMMON-7; -EPERM COMMON-6; -ENOBUFS COMMON-8
 */
enum { POS_COUNT = -1, POS_IOV = -2, POS_PRIV = -3, POS_PROT = -4,
       POS_QUAL = -5, POS_FLAGS = -6 };

#define SD_ERRNO_MAP(X)							\
	X(E2BIG,  DAT_INVALID_PARAMETER,      POS_COUNT,			\
	  "above the limit it was created with")			\
	X(EFAULT, DAT_INVALID_PARAMETER,      POS_IOV,			\
	  "no segment list for a count above 0")			\
	X(ERANGE, DAT_INVALID_PARAMETER,      POS_IOV,			\
	  "a segment outside its region")				\
	X(ENOKEY, DAT_PRIVILEGES_VIOLATION,   0,			\
	  "a context that names no LMR (or bound RMR) of this IA")	\
	X(EACCES, DAT_PRIVILEGES_VIOLATION,   POS_PRIV,			\
	  "the region lacks the privilege")				\
	X(EPERM,  DAT_PROTECTION_VIOLATION,   POS_PROT,			\
	  "memory of another protection zone")				\
	X(ENODEV, DAT_INVALID_STATE,          DAT_INVALID_STATE_EP_PZ,	\
	  "the EP has no PZ")						\
	X(ENOSPC, DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY_REGION, \
	  "no context is left to bind an RMR with")			\
	X(ENOMEM, DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY,	\
	  "out of memory")						\
	X(EDOM,   DAT_INVALID_PARAMETER,      POS_QUAL,			\
	  "names no port (its low 16 bits are 0)")			\
	X(EADDRINUSE, DAT_CONN_QUAL_IN_USE,   0,			\
	  "its port is in use")						\
	X(EIO,    DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_DEVICE,	\
	  "no listening socket could be made")				\
	X(EXDEV,  DAT_PROTECTION_VIOLATION,   0,			\
	  "bound through an EP of another protection zone")		\
	X(ENOBUFS, DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP,	\
	  "the request queue is full")					\
	X(EINVAL, DAT_INVALID_PARAMETER,      POS_COUNT,		\
	  "not positive")						\
	X(EOVERFLOW, DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEVD,	\
	  "above the longest queue the provider makes")			\
	X(EOPNOTSUPP, DAT_INVALID_PARAMETER,  POS_FLAGS,		\
	  "flags the call does not know")				\
	X(ENOENT, DAT_PROVIDER_NOT_FOUND,     DAT_NAME_NOT_REGISTERED,	\
	  "no provider is registered under that name")

static const struct {
	int		err;
	DAT_RETURN	type;
	int		sub;
	const char	*meaning;
} errno_map[] = {
#define SD_ERRNO_ROW(e, t, s, m) { e, t, s, m },
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

/* See api.h. */
DAT_RETURN sd_api_failed(const char *call, const struct sd_obj *obj, int err,
			 const struct sd_argpos *pos, const char *fmt, ...)
{
	const char *meaning = "an error the provider does not know";
	char what[200];
	va_list ap;
	size_t i;

	for (i = 0; i < SD_ARRAY_SIZE(errno_map); i++)
		if (errno_map[i].err == -err)
			meaning = errno_map[i].meaning;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return sd_refused(call, obj, sd_api_errno(err, pos), "%s: %s", what,
			  meaning);
}

DAT_RETURN sd_api_flags_refused(const char *call, const struct sd_obj *obj,
				DAT_COMPLETION_FLAGS f,
				DAT_COMPLETION_FLAGS allowed,
				const char *attr, DAT_RETURN_SUBTYPE arg)
{
	DAT_RETURN ret = SD_ERR(DAT_INVALID_PARAMETER, arg);

	if (f & ~SD_COMPLETION_FLAGS_ALL)
		return sd_refused_bits(call, obj, ret, "completion_flags", f,
				       SD_COMPLETION_FLAGS_ALL);
	if (f & ~POST_FLAGS)
		return sd_refused(call, obj, ret, "completion_flags 0x%x has "
				  "0x%x: an EP attribute's flags, not a post's "
				  "(a post takes SUPPRESS, SOLICITED_WAIT, "
				  "UNSIGNALLED and BARRIER_FENCE)", (unsigned)f,
				  (unsigned)(f & ~POST_FLAGS));
	return sd_refused(call, obj, ret, "completion_flags 0x%x asks for "
			  "DAT_COMPLETION_UNSIGNALLED_FLAG, which the EP's %s "
			  "0x%x does not allow (SEND-3, RECV-4)", (unsigned)f,
			  attr, (unsigned)allowed);
}

DAT_RETURN sd_api_pz_arg(const char *call, const struct sd_obj *obj,
			 struct sd_ia *ia, DAT_PZ_HANDLE h, struct sd_pz **out)
{
	struct sd_obj *o;

	*out = NULL;
	if (h == DAT_HANDLE_NULL)
		return DAT_SUCCESS;
	o = sd_obj_check(h, SD_MAGIC_PZ);
	if (o == NULL || o->ia != ia)
		return sd_refuse_handle(call, obj, "pz_handle", h, SD_MAGIC_PZ,
					DAT_INVALID_HANDLE_PZ);
	*out = sd_container_of(o, struct sd_pz, obj);
	return DAT_SUCCESS;
}

bool sd_api_in_range(const struct sd_api_range *r, size_t n,
		     struct sd_why *why)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (r[i].v >= r[i].min && r[i].v <= r[i].max)
			continue;
		if (SD_REFUSING())
			sd_why_set(why, "%s %lld is not from %lld to %lld",
				   r[i].name, r[i].v, r[i].min, r[i].max);
		return false;
	}
	return true;
}

/* dat_ep_modify's checks and copy that need no EP, shared with ud.c (api.h). */
DAT_RETURN sd_api_modify_args(const struct sd_obj *ep, DAT_EP_PARAM_MASK mask,
			     const DAT_EP_PARAM *p, struct sd_pz **pz)
{
	const DAT_EP_PARAM_MASK fixed = DAT_EP_FIELD_IA_HANDLE |
		DAT_EP_FIELD_EP_STATE | DAT_EP_FIELD_COMM |
		DAT_EP_FIELD_LOCAL_IA_ADDRESS_PTR | DAT_EP_FIELD_LOCAL_PORT_QUAL |
		DAT_EP_FIELD_REMOTE_IA_ADDRESS_PTR |
		DAT_EP_FIELD_REMOTE_PORT_QUAL | DAT_EP_FIELD_SRQ_HANDLE;
	const DAT_RETURN bad_mask = SD_ERR(DAT_INVALID_PARAMETER,
					   DAT_INVALID_ARG2);

	*pz = NULL;
	if (p == NULL)
		return sd_refuse_null("ep_modify", ep, "ep_param",
				      DAT_INVALID_ARG3);
	if (mask & ~DAT_EP_FIELD_ALL)
		return sd_refuse_bits("ep_modify", ep, bad_mask, "ep_param_mask",
				      mask, DAT_EP_FIELD_ALL);
	if (mask & fixed)
		return sd_refuse("ep_modify", ep, bad_mask, "ep_param_mask 0x%llx "
				 "names fields that cannot be modified (0x%llx: "
				 "the IA, state, communicator, addresses, port "
				 "qualifiers or SRQ)", (unsigned long long)mask,
				 (unsigned long long)(mask & fixed));
	if (mask & DAT_EP_FIELD_PZ_HANDLE)
		return sd_api_pz_arg("ep_modify", ep, ep->ia, p->pz_handle, pz);
	return DAT_SUCCESS;
}

DAT_RETURN sd_api_modify_attr_check(const struct sd_obj *ep,
				   DAT_EP_PARAM_MASK mask,
				   const DAT_EP_ATTR *in,
				   DAT_SERVICE_TYPE service)
{
	const DAT_RETURN bad = SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);

	if (mask & DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE &&
	    in->service_type != service)
		return sd_refuse("ep_modify", ep, bad, "ep_attr.service_type %u: "
				 "an EP keeps the service it was created with "
				 "(%u)", (unsigned)in->service_type,
				 (unsigned)service);
	/* None exist: only "none" can be asked for. */
	if ((mask & (DAT_EP_FIELD_EP_ATTR_NUM_TRANSPORT_ATTR |
		     DAT_EP_FIELD_EP_ATTR_TRANSPORT_SPECIFIC_ATTR) &&
	     in->ep_transport_specific_count != 0))
		return sd_refuse("ep_modify", ep, bad, "ep_attr."
				 "ep_transport_specific_count %d: softdapl has "
				 "no transport-specific attributes",
				 (int)in->ep_transport_specific_count);
	if (mask & (DAT_EP_FIELD_EP_ATTR_NUM_PROVIDER_ATTR |
		    DAT_EP_FIELD_EP_ATTR_PROVIDER_SPECIFIC_ATTR) &&
	    in->ep_provider_specific_count != 0)
		return sd_refuse("ep_modify", ep, bad, "ep_attr."
				 "ep_provider_specific_count %d: no "
				 "provider-specific attribute can be modified",
				 (int)in->ep_provider_specific_count);
	if (mask & DAT_EP_FIELD_EP_ATTR_SRQ_SOFT_HW &&
	    in->srq_soft_hw < 0 && in->srq_soft_hw != DAT_WATERMARK_INFINITE)
		return sd_refuse("ep_modify", ep, bad, "ep_attr.srq_soft_hw %d: "
				 "neither a count nor DAT_WATERMARK_INFINITE",
				 (int)in->srq_soft_hw);
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
	if (f & ~POST_FLAGS)
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
