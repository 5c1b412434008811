/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl, layer 1: why a call was refused (refuse.c). With
 * SOFTDAPL_DEBUG=1 every entry point that returns an error for a
 * consumer's mistake (or for a resource it lacks) says why, in one line
 * on stderr, as rdma-core's and libfabric's debug logs do:
 *
 *   softdapl: dat_ep_post_send(ep3): refused: completion_flags 0x40 has
 *   bits DAT 2.0 does not define (0x40) (DAT_INVALID_PARAMETER DAT_INVALID_ARG5)
 *
 * the call, the object it was made on ("ep3", sd_obj_name; left out when
 * the object's own handle is what is wrong), the argument and what is
 * wrong with it, then the names of the DAT_RETURN (dat_strerror's).
 *
 * Each macro evaluates to the DAT_RETURN the call returns, so a refusal
 * reads `return sd_refuse(...);`. @ret is evaluated once; the reason's
 * arguments only with debugging on. With SOFTDAPL_DEBUG off a refusal
 * costs one load and a branch more than the bare return, and the paths
 * that succeed (the posts, the polls) cost nothing: nothing here is
 * reached before a check has failed. Nothing allocates. Any thread, any
 * lock held (the line is written with one fputs).
 *
 * @call is the call's name without its "dat_" (as the trace names it:
 * "ep_post_send", "ib_post_fetch_and_add"); @obj the object the call
 * was made on, or NULL.
 *
 * What is an outcome rather than a refusal says nothing: an empty queue
 * (DAT_QUEUE_EMPTY), a timeout (DAT_TIMEOUT_EXPIRED), a wait the IA's
 * close ended (DAT_ABORT). Errors found below the entry points are said
 * by the entry point that returns them: the layer below explains itself
 * through a struct sd_why (below), or the errno's meaning (api.c,
 * sd_api_fail) completes the entry point's reason.
 */
#ifndef SD_REFUSE_H
#define SD_REFUSE_H

#include <stdint.h>

#include "obj.h"
#include "util.h"

#define SD_REFUSING()	__builtin_expect(sd_debug_level != 0, 0)

/* @ret, after the line "dat_CALL(OBJ): refused: REASON (NAMES)". */
#define sd_refuse(call, obj, ret, ...)					\
	(SD_REFUSING() ? sd_refused(call, obj, ret, __VA_ARGS__) : (ret))

/*
 * DAT_INVALID_HANDLE with subtype @sub for handle argument @arg ("pz_handle"),
 * @h, which is not a live object of kind @magic (0: of any kind) usable
 * here. The reason is worked out from @h: NULL, not a handle at all,
 * another kind of object ("is ep3 (an EP), not an LMR"), a freed one,
 * or, when it is of kind @magic, one of another IA than @obj's ("is pz2
 * of ia2, not of ia1"). A handle of the right kind that is refused for
 * some other reason (an EVD without the stream it needs) is a plain
 * sd_refuse with that reason.
 */
#define sd_refuse_handle(call, obj, arg, h, magic, sub)		\
	(SD_REFUSING() ?						\
	 sd_refused_handle(call, obj, arg, (DAT_HANDLE)(h), magic, sub) : \
	 SD_ERR(DAT_INVALID_HANDLE, sub))

/* DAT_INVALID_PARAMETER with subtype @sub: pointer argument @arg is NULL. */
#define sd_refuse_null(call, obj, arg, sub)				\
	sd_refuse(call, obj, SD_ERR(DAT_INVALID_PARAMETER, sub),	\
		  "%s is NULL", arg)

/*
 * @ret for flags or a mask, argument @arg of value @v, that has bits
 * outside @known, the ones DAT 2.0 defines for it: "completion_flags
 * 0x40 has bits DAT 2.0 does not define (0x40)". Bits DAT defines that
 * the call refuses are a plain sd_refuse saying why.
 */
#define sd_refuse_bits(call, obj, ret, arg, v, known)			\
	(SD_REFUSING() ?						\
	 sd_refused_bits(call, obj, ret, arg, (uint64_t)(v),		\
			 (uint64_t)(known)) : (ret))

DAT_RETURN sd_refused(const char *call, const struct sd_obj *obj,
		      DAT_RETURN ret, const char *fmt, ...)
	__attribute__((cold, format(printf, 4, 5)));
DAT_RETURN sd_refused_handle(const char *call, const struct sd_obj *obj,
			     const char *arg, DAT_HANDLE h, uint32_t magic,
			     DAT_RETURN_SUBTYPE sub) __attribute__((cold));
DAT_RETURN sd_refused_bits(const char *call, const struct sd_obj *obj,
			   DAT_RETURN ret, const char *arg, uint64_t v,
			   uint64_t known) __attribute__((cold));

/*
 * A reason worked out below the entry points, where the facts are (mem.c
 * names the LMR and its bounds under the memory lock), for the entry
 * point to give sd_refuse with the DAT_RETURN it makes of the errno. A
 * function that takes one fills it (sd_why_set) on every failure when
 * debugging is on, and never otherwise: on the paths that succeed it is
 * stack space nobody touches.
 */
struct sd_why {
	char	s[200];
};

void sd_why_set(struct sd_why *w, const char *fmt, ...)
	__attribute__((cold, format(printf, 2, 3)));

#endif
