/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libdat.so.1: the DAT 1.2 API (include/dat, the API of the seed pages)
 * served by a DAT 2.0 registry (libdat2.so.2: ours or OFED's) and its
 * providers. Internal interface of registry/dat12.
 *
 * Every DAT 1.2 call is a function here that converts its arguments to
 * DAT 2.0, calls the DAT_2.0 function of libdat2.so.2 and converts the
 * results back. Nothing else keeps state: handles are the DAT 2.0
 * registry's and provider's, passed through unchanged, so a DAT 1.2
 * program and a DAT 2.0 program use the same IAs (the u2.0 lines of
 * dat.conf) and talk to each other.
 *
 * The sources see both APIs at once: <dat/udat.h> (1.2, DAT_ and dat_
 * names) and <d2/udat.h>, the project's DAT 2.0 headers with every DAT_
 * and dat_ renamed D2_ and d2_ (the Makefile makes the copy), so that
 * the compiler checks each conversion against both sets of types.
 *
 * Where the two APIs differ in meaning, not only in layout, the file that
 * converts says so at the conversion:
 *   - lengths: DAT 1.2 segment and message lengths are 64-bit (DAT_VLEN),
 *     DAT 2.0's 32-bit (DAT_SEG_LENGTH): a 1.2 length above 2^32 - 1
 *     cannot be passed on (convert.c, d12_len);
 *   - events: 2.0 adds the DTO's operation, an RMR context, a truncation
 *     flag and 64 bytes of extension data, which 1.2 drops (convert.c);
 *   - memory: 1.2 has no DAT_VA_TYPE (every address is virtual, which is
 *     DAT_VA_TYPE_VA) and dat_rmr_bind names no LMR handle (mem.c);
 *   - return values: 1.2's DAT_NOT_IMPLEMENTED is another number, 2.0's
 *     DAT_PORT_IN_USE, DAT_RESERVED_LMR and DAT_COMM_NOT_SUPPORTED do not
 *     exist in 1.2, and 2.0 numbers most subtypes one or two higher
 *     (convert.c, d12_ret);
 *   - values: 1.2 numbers the SRQ states the other way round, and its
 *     DAT_PZ_SHAREABLE is 2 (2.0: 1); DAT_MEM_PRIV_RO_DISABLE_FLAG (1.2
 *     only, a relaxed-ordering hint) means nothing here and is dropped;
 *   - CNOs: 1.2 knows only proxy agents, not 2.0's file descriptor CNOs.
 *
 * Threads: every call may come from any thread; the only shared data is
 * the table of DAT 2.0 functions, written once when the library is
 * loaded (d2.c) and read only after.
 */
#ifndef SD_DAT12_H
#define SD_DAT12_H

#include <dat/udat.h>
#include <d2/udat.h>
#include <d2/dat_registry.h>

/* The DAT 2.0 calls this library makes, by their names without dat_. */
#define D12_CALLS(X)							\
	X(ia_openv) X(ia_close) X(ia_query) X(set_consumer_context)	\
	X(get_consumer_context) X(get_handle_type)			\
	X(cr_query) X(cr_accept) X(cr_reject) X(cr_handoff)		\
	X(evd_create) X(evd_resize) X(evd_post_se) X(evd_dequeue)	\
	X(evd_query) X(evd_free) X(evd_modify_cno) X(evd_enable)	\
	X(evd_disable) X(evd_wait) X(evd_set_unwaitable)		\
	X(evd_clear_unwaitable)						\
	X(cno_create) X(cno_modify_agent) X(cno_query) X(cno_free)	\
	X(cno_wait)							\
	X(ep_create) X(ep_create_with_srq) X(ep_query) X(ep_modify)	\
	X(ep_connect) X(ep_dup_connect) X(ep_disconnect)		\
	X(ep_post_send) X(ep_post_recv) X(ep_post_rdma_read)		\
	X(ep_post_rdma_write) X(ep_get_status) X(ep_free) X(ep_reset)	\
	X(ep_recv_query) X(ep_set_watermark)				\
	X(lmr_create) X(lmr_query) X(lmr_free) X(lmr_sync_rdma_read)	\
	X(lmr_sync_rdma_write)						\
	X(rmr_create) X(rmr_query) X(rmr_bind) X(rmr_free)		\
	X(psp_create) X(psp_create_any) X(psp_query) X(psp_free)	\
	X(rsp_create) X(rsp_query) X(rsp_free)				\
	X(pz_create) X(pz_query) X(pz_free)				\
	X(srq_create) X(srq_free) X(srq_post_recv) X(srq_query)		\
	X(srq_resize) X(srq_set_lw)					\
	X(registry_list_providers) X(strerror)

/*
 * The DAT_2.0 functions of the libdat2.so.2 this library was loaded with,
 * typed by the 2.0 prototypes. Filled once at load (d2.c); a slot whose
 * function that registry does not export stays NULL, and then
 * dat_ia_openv refuses to open anything (d12_missing).
 */
struct d12_calls {
#define D12_SLOT(name) __typeof__(d2_##name) *name;
	D12_CALLS(D12_SLOT)
#undef D12_SLOT
};
extern struct d12_calls d2;

/*
 * The name of the first DAT 2.0 call the registry lacks, NULL when it
 * has them all, and the path of the registry (for messages).
 */
const char *d12_missing(void);
const char *d12_registry_path(void);

/* The DAT 1.2 calls, exported (the library is built -fvisibility=hidden). */
#define D12_API	__attribute__((visibility("default")))

/* A DAT 1.2 error: class, type and subtype (1.2 has no public macro). */
#define D12_ERR(type, sub)	((DAT_RETURN)(DAT_CLASS_ERROR | (type) | (sub)))

/* ---- convert.c: one place for every conversion ------------------- */

/* Segments a post converts on the stack: above any provider's limit. */
#define D12_IOV_MAX	64

/* A 2.0 return value as 1.2 says it (types and subtypes: convert.c). */
DAT_RETURN d12_ret(D2_RETURN r);

/* A 1.2 subtype as 2.0 numbers it (for dat_strerror). */
unsigned d12_sub20(DAT_RETURN_SUBTYPE s);

/*
 * @n 1.2 LMR triplets into @out (D12_IOV_MAX slots). DAT_SUCCESS, or
 * the 1.2 error a post returns: DAT_INVALID_PARAMETER with @n_arg (the
 * count's argument) for @n outside [0, D12_IOV_MAX], or with the next
 * argument for a NULL @iov with @n > 0; DAT_LENGTH_ERROR for a segment
 * longer than 2^32 - 1.
 */
DAT_RETURN d12_lmr_iov(DAT_COUNT n, const DAT_LMR_TRIPLET *iov,
		       D2_LMR_TRIPLET *out, DAT_RETURN_SUBTYPE n_arg);
void d12_lmr_triplet_back(const D2_LMR_TRIPLET *in, DAT_LMR_TRIPLET *out);
DAT_RETURN d12_rmr_triplet(const DAT_RMR_TRIPLET *in, D2_RMR_TRIPLET *out);
void d12_rmr_triplet_back(const D2_RMR_TRIPLET *in, DAT_RMR_TRIPLET *out);

/* Events, both ways (dat_evd_post_se takes one in). */
void d12_event(const D2_EVENT *in, DAT_EVENT *out);
DAT_RETURN d12_event_in(const DAT_EVENT *in, D2_EVENT *out);

/* EP attributes, both ways; the 1.2 lengths are checked on the way in. */
DAT_RETURN d12_ep_attr_in(const DAT_EP_ATTR *in, D2_EP_ATTR *out);
void d12_ep_attr(const D2_EP_ATTR *in, DAT_EP_ATTR *out);

void d12_ia_attr(const D2_IA_ATTR *in, DAT_IA_ATTR *out);
void d12_provider_attr(const D2_PROVIDER_ATTR *in, DAT_PROVIDER_ATTR *out);

#endif
