/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl, layer 5e: the requests of the IB extension that post.c serves
 * for ext.c (RDMA write with immediate data, the atomics).
 */
#ifndef SD_POST_H
#define SD_POST_H

#include "util.h"

/* ------------------------------------------------------------------ */
/* Extended requests of the data path (post.c, tx.c, rx.c)             */

/*
 * Used by ext.c: the IB extension's dat_ib_post_rdma_write_immed,
 * dat_ib_post_fetch_and_add and dat_ib_post_cmp_and_swap end here. Both
 * are request posts with post.c's contract (STYLE habit 4): a synchronous
 * failure returns the DAT_RETURN for the consumer and never completes; a
 * success completes exactly once, in post order with the EP's other
 * requests, on the EP's request EVD. ext.c passes the consumer's
 * arguments unchanged and returns what these return; they check every
 * argument (the EP handle included) and allocate nothing. Any consumer
 * thread, no lock held.
 *
 * Completion events are made by the data path itself (post.c), in
 * OFED's format: event_number DAT_IB_DTO_EVENT, the DTO fields in
 * event_data.dto_completion_event_data (operation DAT_IB_DTO_RDMA_WRITE_IMMED,
 * DAT_IB_DTO_FETCH_ADD or DAT_IB_DTO_CMP_SWAP; transfered_length the bytes
 * written, 8 for an atomic), and a DAT_IB_EXTENSION_EVENT_DATA in
 * event_extension_data (type DAT_IB_RDMA_WRITE_IMMED, DAT_IB_FETCH_AND_ADD
 * or DAT_IB_CMP_AND_SWAP; status DAT_OP_SUCCESS or DAT_IB_OP_ERR).
 *
 * sd_post_write_imm: an RDMA write of @iov (@n segments, local read
 * privilege) to @remote, then 32 bits of immediate data @imm. At the
 * target, once the data is placed, the write consumes the next receive
 * (the EP's or one of its SRQ), which completes on the receive EVD as
 * DAT_IB_DTO_EVENT, operation DAT_IB_DTO_RECV_IMMED, type
 * DAT_IB_RDMA_WRITE_IMMED_DATA, val.immed.data = @imm, transfered_length
 * = the bytes written (the receive's own buffer is not touched). The
 * target waits for a receive as for a SEND (RNR: no timeout). Flags:
 * SUPPRESS, UNSIGNALLED (if the EP allows it), BARRIER_FENCE,
 * SOLICITED_WAIT (the target's receive completes as a solicited event).
 * Errors: as dat_ep_post_rdma_write, with DAT_INVALID_ARG2 for @n,
 * _ARG3 for @iov, _ARG5 for @remote, _ARG7 for @flags (the order of
 * dat_ib_post_rdma_write_immed's arguments).
 *
 * sd_post_atomic: an 8-byte atomic at remote->virtual_address (8-byte
 * aligned, remote->segment_length >= 8) through remote->rmr_context,
 * which must grant DAT_IB_MEM_PRIV_REMOTE_ATOMIC. SD_ATOMIC_FETCH_ADD
 * adds @cmp_add; SD_ATOMIC_CMP_SWAP stores @swap if the word equals
 * @cmp_add. The word is a host-order uint64_t of the target, changed with
 * one hardware atomic instruction, hence atomic with respect to every
 * other atomic on it, from any connection, IA or process. Its previous
 * value is written to the first 8 bytes of @local (one triplet, local
 * write privilege, segment_length >= 8) before the completion. Atomics
 * count against the EP's RDMA read depth (max_rdma_read_out/in), as on
 * IB. Flags: SUPPRESS, UNSIGNALLED (if allowed), BARRIER_FENCE.
 * Errors: DAT_INVALID_HANDLE (EP), DAT_INVALID_PARAMETER (@op, a
 * misaligned address: subtype of @remote's argument; unknown flags),
 * DAT_LENGTH_ERROR (a triplet shorter than 8 bytes), COMMON-5..7 for
 * @local, DAT_INVALID_STATE, DAT_INSUFFICIENT_RESOURCES. Subtypes follow
 * the order of the dat_ib_post_* macros: fetch-and-add (ep, add, local,
 * cookie, remote, flags) ARG3/ARG5/ARG6; compare-and-swap (ep, cmp, swap,
 * local, cookie, remote, flags) ARG4/ARG6/ARG7.
 */
DAT_RETURN sd_post_write_imm(DAT_EP_HANDLE ep, DAT_COUNT n,
			     const DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
			     const DAT_RMR_TRIPLET *remote, uint32_t imm,
			     DAT_COMPLETION_FLAGS flags);

enum sd_atomic_op {
	SD_ATOMIC_FETCH_ADD,
	SD_ATOMIC_CMP_SWAP,
};

DAT_RETURN sd_post_atomic(DAT_EP_HANDLE ep, enum sd_atomic_op op,
			  uint64_t cmp_add, uint64_t swap,
			  const DAT_LMR_TRIPLET *local, DAT_DTO_COOKIE cookie,
			  const DAT_RMR_TRIPLET *remote,
			  DAT_COMPLETION_FLAGS flags);

#endif
