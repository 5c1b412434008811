/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * api.c: helpers the entry points share (layer 5s). Only entry-point
 * files (layer 5e) include this header.
 */
#ifndef SD_API_H
#define SD_API_H

#include "evq.h"
#include "ia.h"
#include "mem.h"
#include "qp.h"		/* sd_qp_state_name, for sd_api_bad_state */
#include "refuse.h"
#include "trace.h"

/*
 * Every refusal of an entry point goes through refuse.h's macros, which
 * say why under SOFTDAPL_DEBUG, or through the ones below, which do for
 * the checks that more than one entry-point file makes. Each evaluates
 * to the DAT_RETURN to return; the reasons are formatted only with
 * debugging on (refuse.h). @call and @obj are refuse.h's.
 */

/* DAT_INVALID_STATE with the subtype of EP state @s (dat_error.h). */
DAT_RETURN sd_api_state_err(DAT_EP_STATE s);

/*
 * sd_api_state_err(@s) for a call on EP @obj, in state @s, that is valid
 * only in the states @needs names: "state CONNECTED, needs UNCONNECTED".
 */
#define sd_api_bad_state(call, obj, s, needs)				\
	sd_refuse(call, obj, sd_api_state_err(s), "state %s, needs %s",	\
		  sd_qp_state_name(s), needs)

/*
 * dat_ep_modify's argument checks that need no EP, the same for RC EPs
 * (sd_ep_modify) and UD EPs (ud.c ud_ep_modify), which call them in this
 * order after checking the EP handle:
 *
 *   - sd_api_modify_args: a NULL @p (DAT_INVALID_PARAMETER,
 *     DAT_INVALID_ARG3); in @mask a field that cannot be modified (the
 *     IA, state, communicator, addresses, port qualifiers and SRQ) or a
 *     bit outside DAT_EP_FIELD_ALL (DAT_INVALID_ARG2); and, when @mask
 *     names it, the PZ, which must be a live PZ of @ep's IA or NULL
 *     (DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ). *@pz is the PZ named
 *     (NULL when @mask does not name one). @p's handles are read only
 *     for the fields @mask names.
 *   - sd_api_modify_attr_check, after the caller's EVD checks: the fields
 *     of @in that @mask names and that need no EP: the service type must
 *     be @service (an EP cannot change its service), the transport- and
 *     provider-specific counts 0 (none exist), srq_soft_hw >= 0 or
 *     DAT_WATERMARK_INFINITE; else DAT_INVALID_PARAMETER
 *     (DAT_INVALID_ARG3).
 *
 * Both return DAT_SUCCESS or the error to return, said as a refusal of
 * dat_ep_modify on @ep. Any thread, no lock.
 */
DAT_RETURN sd_api_modify_args(const struct sd_obj *ep, DAT_EP_PARAM_MASK mask,
			     const DAT_EP_PARAM *p, struct sd_pz **pz);
DAT_RETURN sd_api_modify_attr_check(const struct sd_obj *ep,
				   DAT_EP_PARAM_MASK mask,
				   const DAT_EP_ATTR *in,
				   DAT_SERVICE_TYPE service);

/*
 * Copies into @a the attributes of @in that @mask names, of those
 * dat_ep_modify may change (DAT_EP_FIELD_EP_ATTR_*, the service type and
 * the specific attributes excepted); the caller then checks the result.
 */
void sd_api_attr_take(DAT_EP_ATTR *a, DAT_EP_PARAM_MASK mask,
		     const DAT_EP_ATTR *in);

/*
 * dat_ep_modify's commit, for RC and UD EPs: makes @to the EVD of @slot,
 * moving the EVD references. ia->lock held.
 */
void sd_api_swap_ref(struct sd_evd **slot, struct sd_evd *to);

/*
 * True when completion flags @f are ones a post may carry, with
 * UNSIGNALLED only if the EP's @allowed flags have it (SEND-3, RECV-4,
 * WRITE-3).
 */
bool sd_api_flags_ok(DAT_COMPLETION_FLAGS f, DAT_COMPLETION_FLAGS allowed);

/*
 * DAT_INVALID_PARAMETER with subtype @arg for completion flags @f that
 * sd_api_flags_ok refused, @allowed being the EP's attribute @attr
 * ("request_completion_flags"): bits DAT 2.0 does not define, an EP
 * attribute's flag (EVD_THRESHOLD, LMR_INVALIDATE_FENCE), or UNSIGNALLED
 * where @attr does not allow it.
 */
#define sd_api_bad_flags(call, obj, f, allowed, attr, arg)		\
	(SD_REFUSING() ?						\
	 sd_api_flags_refused(call, obj, f, allowed, attr, arg) :	\
	 SD_ERR(DAT_INVALID_PARAMETER, arg))
DAT_RETURN sd_api_flags_refused(const char *call, const struct sd_obj *obj,
				DAT_COMPLETION_FLAGS f,
				DAT_COMPLETION_FLAGS allowed,
				const char *attr, DAT_RETURN_SUBTYPE arg)
	__attribute__((cold));

/*
 * The EVD handle argument @arg of an EP's creation or modification, @h,
 * as sd_evq_from_handle takes it (@flag, @ia): DAT_SUCCESS with *@out
 * the EVD (NULL for DAT_HANDLE_NULL), or DAT_INVALID_HANDLE with subtype
 * @sub, saying whether @h is no EVD, one of another IA, or one without
 * the stream @flag. Inline (and sd_api_bad_state a macro) so that api.o
 * calls nothing the memory tests do not link: they link it with the
 * memory objects alone (Makefile, TEST_LINK_OBJS).
 */
static inline DAT_RETURN sd_api_evd_arg(const char *call,
					const struct sd_obj *obj,
					const char *arg, DAT_EVD_HANDLE h,
					DAT_EVD_FLAGS flag,
					const struct sd_ia *ia,
					DAT_RETURN_SUBTYPE sub,
					struct sd_evd **out)
{
	const struct sd_obj *o;

	if (sd_evq_from_handle(h, flag, ia, out) == 0)
		return DAT_SUCCESS;
	o = sd_obj_check(h, SD_MAGIC_EVD);
	if (o == NULL || (ia != NULL && o->ia != ia))
		return sd_refuse_handle(call, obj, arg, h, SD_MAGIC_EVD, sub);
	return sd_refuse(call, obj, SD_ERR(DAT_INVALID_HANDLE, sub),
			 "%s %s was created without %s", arg, sd_obj_name(o).s,
			 flag == DAT_EVD_DTO_FLAG ? "DAT_EVD_DTO_FLAG" :
			 flag == DAT_EVD_CR_FLAG ? "DAT_EVD_CR_FLAG" :
			 "DAT_EVD_CONNECTION_FLAG");
}

/*
 * The three EVD handle arguments of an EP's creation (@in_param false:
 * "recv_evd_handle" ...) or modification (true: "ep_param.recv_evd_handle"
 * ...), each as sd_api_evd_arg takes it for @ia (the EP's IA, or NULL
 * where an EVD of another IA will do, as for an RC EP): DAT_SUCCESS with
 * the EVDs in *@recv, *@req, *@conn (NULL for DAT_HANDLE_NULL), or the
 * first refusal, said. A handle not to be looked at is passed as
 * DAT_HANDLE_NULL (sd_api_modify_evds).
 */
static inline DAT_RETURN sd_api_ep_evds(const char *call,
					const struct sd_obj *obj,
					bool in_param,
					DAT_EVD_HANDLE recv_h,
					DAT_EVD_HANDLE req_h,
					DAT_EVD_HANDLE conn_h,
					const struct sd_ia *ia,
					struct sd_evd **recv,
					struct sd_evd **req,
					struct sd_evd **conn)
{
	static const char *const name[2][3] = {
		{ "recv_evd_handle", "request_evd_handle",
		  "connect_evd_handle" },
		{ "ep_param.recv_evd_handle", "ep_param.request_evd_handle",
		  "ep_param.connect_evd_handle" },
	};
	DAT_RETURN ret;

	ret = sd_api_evd_arg(call, obj, name[in_param][0], recv_h,
			     DAT_EVD_DTO_FLAG, ia, DAT_INVALID_HANDLE_EVD_RECV,
			     recv);
	if (ret == DAT_SUCCESS)
		ret = sd_api_evd_arg(call, obj, name[in_param][1], req_h,
				     DAT_EVD_DTO_FLAG, ia,
				     DAT_INVALID_HANDLE_EVD_REQUEST, req);
	if (ret == DAT_SUCCESS)
		ret = sd_api_evd_arg(call, obj, name[in_param][2], conn_h,
				     DAT_EVD_CONNECTION_FLAG, ia,
				     DAT_INVALID_HANDLE_EVD_CONN, conn);
	return ret;
}

/* dat_ep_modify's: the EVD handles of @p that @mask names. */
static inline DAT_RETURN sd_api_modify_evds(const struct sd_obj *ep,
					    DAT_EP_PARAM_MASK mask,
					    const DAT_EP_PARAM *p,
					    const struct sd_ia *ia,
					    struct sd_evd **recv,
					    struct sd_evd **req,
					    struct sd_evd **conn)
{
	return sd_api_ep_evds("ep_modify", ep, true,
			      mask & DAT_EP_FIELD_RECV_EVD_HANDLE ?
			      p->recv_evd_handle : DAT_HANDLE_NULL,
			      mask & DAT_EP_FIELD_REQUEST_EVD_HANDLE ?
			      p->request_evd_handle : DAT_HANDLE_NULL,
			      mask & DAT_EP_FIELD_CONNECT_EVD_HANDLE ?
			      p->connect_evd_handle : DAT_HANDLE_NULL,
			      ia, recv, req, conn);
}

/*
 * The PZ handle argument of an EP's creation or modification, @h:
 * DAT_SUCCESS with *@out the PZ of @ia it names (NULL for
 * DAT_HANDLE_NULL), else DAT_INVALID_HANDLE (DAT_INVALID_HANDLE_PZ),
 * said.
 */
DAT_RETURN sd_api_pz_arg(const char *call, const struct sd_obj *obj,
			 struct sd_ia *ia, DAT_PZ_HANDLE h, struct sd_pz **out);

/*
 * Numeric attributes and their limits (an EP's or an SRQ's): each
 * @name's value @v must be from @min to @max. sd_api_in_range returns
 * true when all @n are; else false, with the first that is not in @why
 * ("max_request_dtos 20000 is not from 0 to 16384") when debugging.
 */
struct sd_api_range {
	const char	*name;
	long long	v, min, max;
};

bool sd_api_in_range(const struct sd_api_range *r, size_t n,
		     struct sd_why *why);

/*
 * Where the call being made keeps the arguments an error below may name:
 * the segment count (or a queue length) and the segment list (or the one
 * triplet), the connection qualifier, the flags, and
 * whether its memory is written (the privilege and protection subtypes
 * then say WRITE, else READ).
 */
struct sd_argpos {
	DAT_RETURN_SUBTYPE	count;
	DAT_RETURN_SUBTYPE	iov;
	DAT_RETURN_SUBTYPE	qual;	/* a connection qualifier */
	DAT_RETURN_SUBTYPE	flags;	/* the call's flags */
	bool			write;
};

/*
 * The DAT_RETURN of negative errno @err from the layers below, for a call
 * whose arguments stand at @pos: the one place such a translation is
 * written (api.c, SD_ERRNO_MAP). 0 gives DAT_SUCCESS, inline: a post that
 * succeeds pays no call. An errno the table lacks is a provider bug:
 * logged, and DAT_INTERNAL_ERROR.
 */
DAT_RETURN sd_api_errno(int err, const struct sd_argpos *pos);

static inline DAT_RETURN sd_api_err(int err, const struct sd_argpos *pos)
{
	return err == 0 ? DAT_SUCCESS : sd_api_errno(err, pos);
}

/*
 * sd_api_errno(@err, @pos) (@err negative) for a call that failed below:
 * "WHAT: MEANING", WHAT formatted from the arguments (the argument the
 * errno is about: "conn_qual 5000"), MEANING the errno's in the table
 * (api.c, SD_ERRNO_MAP: "the port it names is in use").
 */
#define sd_api_fail(call, obj, err, pos, ...)				\
	(SD_REFUSING() ? sd_api_failed(call, obj, err, pos, __VA_ARGS__) : \
	 sd_api_errno(err, pos))
DAT_RETURN sd_api_failed(const char *call, const struct sd_obj *obj, int err,
			 const struct sd_argpos *pos, const char *fmt, ...)
	__attribute__((cold, format(printf, 5, 6)));

#endif
