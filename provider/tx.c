/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The transmit half of the wire engine: frames out of the request queue,
 * READ responses, ACKs and the graceful DISCONNECT, written with sendmsg
 * from the headers and the consumer's own memory (no copy).
 *
 * Any thread may drive it under ep->lock: a consumer right after posting
 * (the fast path: no hop to the engine), a consumer moving its EPs from
 * an EVD (progress.c), the engine when POLLOUT fires or after the receive
 * side made room (a READ placed unblocks a fence, an ack is owed). A frame
 * once begun is finished before another starts; when the socket is full
 * the rest waits for POLLOUT.
 *
 * Batching. Frames are chosen into a ring of SD_TX_BATCH slots (struct
 * sd_txf) and written together, headers and payloads in one sendmsg of
 * up to SD_TX_IOV iovecs, so that requests queued while the socket was
 * busy, or posted in a burst, cost one system call, not one each. A frame
 * chosen is committed: its request is numbered and counted sent (tx.next)
 * and its ack value taken; sd_tx_complete_acked completes only requests
 * whose frame has left the ring (tx.unwritten).
 *
 * What goes first: bytes left in sock->out (the RTU), then READ and
 * atomic responses (the peer waits on them), then requests in post order
 * (a BARRIER_FENCE request waits for earlier reads and atomics, SEND-2; a
 * READ or atomic waits while rd_out_max are outstanding; an RMR bind
 * takes effect here, when its turn comes, and sends nothing), then the
 * DISCONNECT of a graceful close once all of that is out, then a
 * standalone ACK if one is owed and no frame of the batch carries it.
 *
 * Fault injection (fault.c, SOFTDAPL_FAULT) hooks in where a connection
 * starts (sd_tx_reset), where a frame is written whole (frame_done),
 * before each write (delay_us) and after it (a cut); each hook is one
 * branch on sd_fault_on when it is off.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "engine.h"
#include "ia.h"
#include "mem.h"
#include "progress.h"
#include "proto.h"
#include "qp.h"
#include "sock.h"
#include "trace.h"
#include "transport.h"
#include "util.h"
#include "wire.h"
#include "wq.h"

/* The last EP identity given out (sd_tx.ep_id); any thread, atomic. */
static uint64_t last_ep_id;

void sd_tx_reset(struct sd_ep *ep)
{
	struct sd_rresp *resp = ep->tx.resp;
	uint64_t id = ep->tx.ep_id;

	SD_ASSERT_HELD(&ep->lock);
	if (id == 0)
		id = __atomic_add_fetch(&last_ep_id, 1, __ATOMIC_RELAXED);
	memset(&ep->tx, 0, sizeof(ep->tx));
	ep->tx.resp = resp;
	ep->tx.ep_id = id;
	memset(&ep->rx, 0, sizeof(ep->rx));
	/* Attached: a connection is established (not dat_ep_reset). */
	if (sd_fault_active() && ep->sock != NULL)
		sd_fault_conn_start(ep);
}

/*
 * True for the requests that complete by themselves rather than by the
 * peer's ack: READs and atomics once their response is placed, binds once
 * they took effect.
 */
static bool completes_locally(uint8_t op)
{
	return op == SD_WR_RDMA_READ || op == SD_WR_FETCH_ADD ||
	       op == SD_WR_CMP_SWAP || op == SD_WR_BIND;
}

void sd_tx_complete_acked(struct sd_ep *ep)
{
	struct sd_wqe *w;

	SD_ASSERT_HELD(&ep->lock);
	/* sq[0..next - unwritten) are fully written; only those complete. */
	while (ep->tx.next > ep->tx.unwritten &&
	       (w = sd_wq_at(&ep->sq, 0)) != NULL) {
		if (completes_locally(w->op)) {
			if (w->status == SD_WQE_PENDING)
				break;
		} else {
			/* Covered by the ack: (ack - seq) as a signed count. */
			if ((int32_t)(ep->tx.peer_ack - w->seq) <= 0)
				break;
			w->status = DAT_DTO_SUCCESS;
		}
		{
			struct sd_wqe c = *w;

			sd_wq_pop(&ep->sq);
			ep->tx.next--;
			sd_complete_dto(ep, &c, false, c.status, c.len);
		}
	}
}

/* ---- choosing frames --------------------------------------------- */

/* A header-only frame of @op into @f. */
void sd_tx_ctl(const struct sd_ep *ep, struct sd_hdr *h, uint8_t op,
	       uint32_t tag, uint32_t code)
{
	SD_ASSERT_HELD(&ep->lock);
	memset(h, 0, sizeof(*h));
	h->op = op;
	h->ack = ep->rx.executed;
	h->tag = tag;
	h->code = code;
}

static void ctl_frame(struct sd_ep *ep, struct sd_txf *f, uint8_t op)
{
	struct sd_hdr h;

	sd_tx_ctl(ep, &h, op, SD_TAG_NONE, 0);
	sd_hdr_pack(&h, f->hdr);
	ep->tx.ack_sent = h.ack;
	f->kind = SD_TX_CTL;
	f->sge = NULL;
	f->nsge = 0;
	f->len = 0;
}

/* True for the requests that take a response and count in rd_out. */
static bool is_read_like(uint8_t op)
{
	return op == SD_WR_RDMA_READ || op == SD_WR_FETCH_ADD ||
	       op == SD_WR_CMP_SWAP;
}

/*
 * The next request of the send queue that may go now, or NULL: a fenced
 * one waits for the reads and atomics before it (SEND-2), a read-like
 * one for room in the read depth. An RMR bind on the way takes effect
 * here and completes (in order, through sd_tx_complete_acked) without a
 * frame. ep->lock held.
 */
static struct sd_wqe *next_request(struct sd_ep *ep)
{
	struct sd_tx *tx = &ep->tx;
	struct sd_wqe *w;

	while ((w = sd_wq_at(&ep->sq, tx->next)) != NULL) {
		if ((w->flags & DAT_COMPLETION_BARRIER_FENCE_FLAG) && tx->rd_out > 0)
			return NULL;
		if (is_read_like(w->op) && tx->rd_out >= ep->rd_out_max)
			return NULL;
		if (w->op != SD_WR_BIND)
			return w;
		w->status = sd_mem_bind_exec(&w->x.bind, tx->ep_id);
		tx->next++;
		sd_tx_complete_acked(ep);
	}
	return NULL;
}

/*
 * SENDs from this size on go by address to a peer that reads them from
 * our memory itself (proto.h): one copy instead of two, and no waits for
 * room in the ring. Below it, the ring's copy costs less than the
 * receiver's system call.
 */
#define SEND_BY_ADDRESS_MIN	(32u * 1024)

static bool send_by_address(const struct sd_wqe *w, struct sd_sock *sock)
{
	return w->len >= SEND_BY_ADDRESS_MIN && w->nsge == 1 &&
	       sock->tp != &sd_tcp && !sd_fault_active() &&
	       sock->tp->peer_pulls(sock->stream);
}

/* A request frame for @w into @f: numbers it, counts it sent. */
static void request_frame(struct sd_ep *ep, struct sd_sock *sock,
			  struct sd_wqe *w, struct sd_txf *f, struct sd_hdr *h)
{
	struct sd_tx *tx = &ep->tx;
	bool se = w->flags & DAT_COMPLETION_SOLICITED_WAIT_FLAG;

	w->seq = tx->seq++;
	tx->next++;
	tx->unwritten++;
	h->len = (uint32_t)w->len;
	h->rkey = w->remote.rmr_context;
	h->addr = w->remote.virtual_address;
	f->kind = SD_TX_REQ;
	f->sge = w->sge;
	f->nsge = w->nsge;
	f->len = w->len;
	switch (w->op) {
	case SD_WR_SEND:
		/* rkey: the peer's context to invalidate, if any. */
		if (w->inv)
			h->op = se ? SD_OP_SEND_SE_INV : SD_OP_SEND_INV;
		else
			h->op = se ? SD_OP_SEND_SE : SD_OP_SEND;
		h->rkey = w->inv ? w->remote.rmr_context : 0;
		h->addr = 0;
		if (send_by_address(w, sock)) {
			h->addr = (uint64_t)(uintptr_t)w->sge[0].addr;
			f->sge = NULL;
			f->nsge = 0;
			f->len = 0;
		}
		break;
	case SD_WR_RDMA_WRITE:
		h->op = SD_OP_WRITE;
		break;
	case SD_WR_WRITE_IMM:
		h->op = se ? SD_OP_WRITE_IMM_SE : SD_OP_WRITE_IMM;
		h->code = w->imm;
		break;
	case SD_WR_RDMA_READ:
		h->op = SD_OP_READ_REQ;
		h->tag = w->seq;
		tx->rd_out++;
		f->sge = NULL;
		f->nsge = 0;
		f->len = 0;
		break;
	default:	/* atomics: the operands are the payload */
		h->op = w->op == SD_WR_FETCH_ADD ? SD_OP_FETCH_ADD :
			SD_OP_CMP_SWAP;
		h->tag = w->seq;
		h->len = SD_ATOMIC_ARGS;
		tx->rd_out++;
		f->one.addr = (char *)w->x.atomic;
		f->one.len = SD_ATOMIC_ARGS;
		f->sge = &f->one;
		f->nsge = 1;
		f->len = SD_ATOMIC_ARGS;
		break;
	}
}

/*
 * One-sided: @w, the next request, done by us in the peer's memory when
 * the transport reaches it (a same-host peer: transport.h, rdma) and it
 * is an RDMA write or read with nothing ahead of it: every earlier
 * request acknowledged, so executed by the peer (the order of requests
 * holds), and no frame in the ring. Completes it and returns true; false
 * when it goes as a frame (the target then checks it, as over TCP).
 */
#define ONE_SIDED_SGE	16

static bool one_sided(struct sd_ep *ep, struct sd_sock *sock, struct sd_wqe *w)
{
	struct iovec local[ONE_SIDED_SGE];
	struct sd_tp_rdma op;
	uint16_t i;

	if ((w->op != SD_WR_RDMA_WRITE && w->op != SD_WR_RDMA_READ) ||
	    sock->tp == &sd_tcp || sd_fault_active() ||
	    ep->tx.next != 0 || ep->tx.fcount != 0 ||
	    w->len == 0 || w->nsge > ONE_SIDED_SGE)
		return false;
	for (i = 0; i < w->nsge; i++) {
		local[i].iov_base = w->sge[i].addr;
		local[i].iov_len = w->sge[i].len;
	}
	op.write = w->op == SD_WR_RDMA_WRITE;
	op.local = local;
	op.n = w->nsge;
	op.len = w->len;
	op.rkey = w->remote.rmr_context;
	op.addr = w->remote.virtual_address;
	if (sock->tp->rdma(sock->stream, &op) != 0)
		return false;
	sd_trace("place", sd_obj_name(&ep->obj).s,
		 op.write ? "RDMA_WRITE" : "RDMA_READ",
		 "conn=%s by=initiator rkey=0x%x raddr=0x%llx len=%llu",
		 sd_sock_trace(sock)->name[0] != '\0' ?
		 sd_sock_trace(sock)->name : "?", op.rkey,
		 (unsigned long long)op.addr, (unsigned long long)op.len);
	{
		struct sd_wqe c = *w;

		sd_wq_pop(&ep->sq);
		sd_complete_dto(ep, &c, false, DAT_DTO_SUCCESS, c.len);
	}
	return true;
}

/*
 * Chooses the next frame (see the top of the file) into a new slot at
 * the ring's tail; false if none may go now.
 */
static bool pick(struct sd_ep *ep, struct sd_sock *sock)
{
	struct sd_tx *tx = &ep->tx;
	struct sd_txf *f = &tx->f[(tx->fhead + tx->fcount) % SD_TX_BATCH];
	struct sd_hdr h;
	struct sd_wqe *w;

	if (tx->disc_sent || tx->disc_picked)
		return false;
	if (sock->out_done < sock->out_len) {
		/* The RTU goes alone, first; its progress is sock->out_done. */
		if (tx->fcount > 0)
			return false;
		f->kind = SD_TX_RAW;
		f->sge = NULL;
		f->nsge = 0;
		f->len = sock->out_len;
		goto picked;
	}
	memset(&h, 0, sizeof(h));
	h.tag = SD_TAG_NONE;
	if (tx->resp_count > tx->resp_picked) {
		struct sd_rresp *r = &tx->resp[(tx->resp_head + tx->resp_picked) %
					       ep->rd_in_max];

		h.op = r->op;
		h.len = (uint32_t)r->sge.len;
		h.tag = r->tag;
		f->kind = SD_TX_RESP;
		f->sge = &r->sge;
		f->nsge = r->sge.len > 0 ? 1 : 0;
		f->len = r->sge.len;
		tx->resp_picked++;
		goto frame;
	}
	while ((w = next_request(ep)) != NULL && one_sided(ep, sock, w))
		;
	if (w != NULL) {
		request_frame(ep, sock, w, f, &h);
		goto frame;
	}
	if (tx->disc_want && sd_wq_at(&ep->sq, tx->next) == NULL &&
	    tx->resp_count == 0) {
		sd_cnt_inc(ep->obj.ia->cnt, DCNT_IA_CM_DREQ_TX);
		ctl_frame(ep, f, SD_OP_DISCONNECT);
		tx->disc_picked = true;
		goto picked;
	}
	/* A standalone ACK only when nothing else carries one. */
	if (ep->rx.executed != tx->ack_sent && !tx->ack_hold && tx->fcount == 0) {
		ctl_frame(ep, f, SD_OP_ACK);
		goto picked;
	}
	return false;
frame:
	h.ack = ep->rx.executed;
	tx->ack_sent = h.ack;
	sd_hdr_pack(&h, f->hdr);
picked:
	tx->fcount++;
	return true;
}

/* ---- writing ------------------------------------------------------ */

/* The head frame is out: account for it and drop it from the ring. */
static void frame_done(struct sd_ep *ep, struct sd_sock *sock)
{
	struct sd_tx *tx = &ep->tx;
	struct sd_txf *f = &tx->f[tx->fhead];

	switch (f->kind) {
	case SD_TX_RAW:
		sock->out_len = sock->out_done = 0;
		break;
	case SD_TX_REQ:
		tx->unwritten--;
		break;
	case SD_TX_RESP: {
		struct sd_rresp *r = &tx->resp[tx->resp_head];

		if (r->lmr != NULL)
			sd_mem_remote_done(r->lmr);
		r->lmr = NULL;
		tx->resp_head = (tx->resp_head + 1) % ep->rd_in_max;
		tx->resp_count--;
		tx->resp_picked--;
		break;
	}
	case SD_TX_CTL:
		if (f->hdr[SD_HDR_OFF_OP] == SD_OP_DISCONNECT) {
			tx->disc_sent = true;
			(void)sock->tp->shutdown_wr(sock->stream);
			sock->shut_wr = true;
		}
		break;
	default:
		break;
	}
	if (sd_fault_active() && f->kind != SD_TX_RAW)
		sd_fault_frame(ep, f->hdr[SD_HDR_OFF_OP]);
	if (tx->traced > 0)
		tx->traced--;
	f->kind = SD_TX_NONE;
	tx->fhead = (tx->fhead + 1) % SD_TX_BATCH;
	tx->fcount--;
	tx->hdr_done = 0;
	tx->done = 0;
}

/* Bytes of the head frame not written yet. */
static uint64_t head_left(const struct sd_ep *ep, const struct sd_sock *sock)
{
	const struct sd_txf *f = &ep->tx.f[ep->tx.fhead];

	if (f->kind == SD_TX_RAW)
		return sock->out_len - sock->out_done;
	return (SD_HDR_SIZE - ep->tx.hdr_done) + (f->len - ep->tx.done);
}

/*
 * Fills @iov with what is left of the ring's frames, oldest first, as
 * many whole frames as fit; returns the count.
 */
static int ring_iov(struct sd_ep *ep, struct sd_sock *sock, struct iovec *iov)
{
	struct sd_tx *tx = &ep->tx;
	uint32_t k;
	int n = 0;

	for (k = 0; k < tx->fcount; k++) {
		struct sd_txf *f = &tx->f[(tx->fhead + k) % SD_TX_BATCH];
		uint64_t skip = k == 0 ? tx->done : 0;
		uint32_t hdone = k == 0 ? tx->hdr_done : 0;
		uint32_t i;

		if (k > 0 && n + 1 + (int)f->nsge > SD_TX_IOV)
			break;
		if (f->kind == SD_TX_RAW) {
			iov[n].iov_base = sock->out + sock->out_done;
			iov[n].iov_len = sock->out_len - sock->out_done;
			n++;
			continue;
		}
		if (hdone < SD_HDR_SIZE) {
			iov[n].iov_base = f->hdr + hdone;
			iov[n].iov_len = SD_HDR_SIZE - hdone;
			n++;
		}
		for (i = 0; i < f->nsge && n < SD_TX_IOV; i++) {
			const struct sd_sge *s = &f->sge[i];

			if (skip >= s->len) {
				skip -= s->len;
				continue;
			}
			iov[n].iov_base = s->addr + skip;
			iov[n].iov_len = s->len - skip;
			skip = 0;
			n++;
		}
	}
	return n;
}

/* @n bytes went out: advance through the ring, completing frames. */
static void ring_advance(struct sd_ep *ep, struct sd_sock *sock, size_t n)
{
	struct sd_tx *tx = &ep->tx;

	while (tx->fcount > 0) {
		struct sd_txf *f = &tx->f[tx->fhead];
		uint64_t left = head_left(ep, sock);

		if (n >= left) {
			n -= (size_t)left;
			frame_done(ep, sock);
			continue;
		}
		if (f->kind == SD_TX_RAW) {
			sock->out_done += (uint32_t)n;
		} else if (n < SD_HDR_SIZE - tx->hdr_done) {
			tx->hdr_done += (uint32_t)n;
		} else {
			n -= SD_HDR_SIZE - tx->hdr_done;
			tx->hdr_done = SD_HDR_SIZE;
			tx->done += n;
		}
		return;
	}
}

bool sd_tx_mid_frame(const struct sd_ep *ep)
{
	const struct sd_txf *f = &ep->tx.f[ep->tx.fhead];

	return ep->tx.fcount > 0 && f->kind != SD_TX_RAW &&
	       (ep->tx.hdr_done > 0 || ep->tx.done > 0);
}

void sd_tx_drop_frames(struct sd_ep *ep)
{
	struct sd_tx *tx = &ep->tx;

	SD_ASSERT_HELD(&ep->lock);
	tx->fhead = tx->fcount = 0;
	tx->traced = 0;
	tx->hdr_done = 0;
	tx->done = 0;
	tx->unwritten = 0;
	tx->resp_picked = 0;
	tx->disc_picked = false;
}

void sd_tx_post(struct sd_ep *ep)
{
	SD_ASSERT_HELD(&ep->lock);
	/*
	 * With requests in flight, their ack (or the consumer's next pass
	 * over its EVD) comes soon and writes this one with whatever else
	 * is posted meanwhile; the tick makes sure.
	 */
	if (ep->tx.next > 0 && ep->sock != NULL && !sd_engine_on_thread()) {
		sd_progress_defer(ep);
		return;
	}
	sd_tx_progress(ep);
}

/*
 * Tracing: the tx lines of the ring's frames not traced yet, as they are
 * handed to the socket (the RTU in sock->out is cm.c's). ep->lock.
 */
static void trace_ring(struct sd_ep *ep, struct sd_sock *sock)
{
	struct sd_tx *tx = &ep->tx;

	for (; tx->traced < tx->fcount; tx->traced++) {
		struct sd_txf *f = &tx->f[(tx->fhead + tx->traced) % SD_TX_BATCH];

		if (f->kind != SD_TX_RAW)
			sd_trace_frame("tx", &ep->obj, sd_sock_trace(sock),
				       f->hdr, NULL);
	}
}

/* Arms POLLOUT for @ep: directly on the engine, else through io_cmd. */
static void want_pollout(struct sd_ep *ep)
{
	ep->tx.blocked = true;
	if (sd_engine_on_thread())
		sd_sock_update(ep);
	else
		sd_engine_submit(&ep->io_cmd);
}

void sd_tx_progress(struct sd_ep *ep)
{
	struct sd_sock *sock = ep->sock;
	struct iovec iov[SD_TX_IOV];

	SD_ASSERT_HELD(&ep->lock);
	if (sock == NULL || sock->phase != SD_SK_DATA || ep->tx.blocked)
		return;
	for (;;) {
		int niov;
		ssize_t n;

		while (ep->tx.fcount < SD_TX_BATCH && pick(ep, sock))
			;
		if (ep->tx.fcount == 0)
			return;
		if (sd_fault_active() && sd_fault_hold(ep))
			return;		/* delay_us: written later */
		if (sd_trace_enabled())
			trace_ring(ep, sock);
		niov = ring_iov(ep, sock, iov);
		if (niov == 0) {
			frame_done(ep, sock);	/* nothing left in it */
			continue;
		}
		sd_wire_send_begin();
		n = sd_tp_writev(sock->tp, sock->stream, iov, niov);
		sd_wire_send_end();
		if (n < 0) {
			if (n == -EAGAIN) {
				want_pollout(ep);
				return;
			}
			sd_dbg("ep %p: send: %s", (void *)ep, strerror((int)-n));
			sd_qp_close(ep, n == -EPIPE || n == -ECONNRESET ?
				    DAT_CONNECTION_EVENT_DISCONNECTED :
				    DAT_CONNECTION_EVENT_BROKEN, NULL, "send failed");
			return;
		}
		ring_advance(ep, sock, (size_t)n);
		if (sd_fault_active() && ep->tx.fault.cut != NULL) {
			sd_fault_cut(ep);	/* drop_after, cut */
			return;
		}
		if (ep->tx.disc_sent)
			return;
	}
}
