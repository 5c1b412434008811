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

/* DAT_INVALID_STATE with the subtype of EP state @s (dat_error.h). */
DAT_RETURN sd_api_state_err(DAT_EP_STATE s);

/*
 * dat_ep_modify's argument checks that need no EP, the same for RC EPs
 * (sd_ep_modify) and UD EPs (ud.c ud_ep_modify), which call them in this
 * order after checking the EP handle:
 *
 *   - sd_api_modify_args: a NULL @p (DAT_INVALID_PARAMETER,
 *     DAT_INVALID_ARG3); in @mask a field that cannot be modified (the
 *     IA, state, communicator, addresses, port qualifiers and SRQ) or a
 *     bit outside DAT_EP_FIELD_ALL (DAT_INVALID_ARG2); and, when @mask
 *     names it, the PZ, which must be a live PZ of @ia or NULL
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
 * Both return DAT_SUCCESS or the error to return. Any thread, no lock.
 */
DAT_RETURN sd_api_modify_args(struct sd_ia *ia, DAT_EP_PARAM_MASK mask,
			     const DAT_EP_PARAM *p, struct sd_pz **pz);
DAT_RETURN sd_api_modify_attr_check(DAT_EP_PARAM_MASK mask,
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

#endif
