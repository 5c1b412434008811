/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The transmit half of the wire engine: frames out of the request queue,
 * READ responses, ACKs and the graceful DISCONNECT, written with one
 * sendmsg of the header and the consumer's own memory (no copy).
 *
 * Any thread may drive it under ep->lock: a consumer right after posting
 * (the fast path: no hop to the engine), the engine when POLLOUT fires or
 * after the receive side made room (a READ placed unblocks a fence, an
 * ack is owed). A frame once begun is finished before another starts;
 * when the socket is full the rest waits for POLLOUT.
 *
 * What goes first: bytes left in sock->out (the RTU), then READ and
 * atomic responses (the peer waits on them), then requests in post order
 * (a BARRIER_FENCE request waits for earlier reads and atomics, SEND-2; a
 * READ or atomic waits while rd_out_max are outstanding; an RMR bind
 * takes effect here, when its turn comes, and sends nothing), then the
 * DISCONNECT of a graceful close once all of that is out, then a
 * standalone ACK if one is owed.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "ep.h"

#define TX_IOV_MAX	(SD_MAX_IOV + 1)

/* The last EP identity given out (sd_tx.ep_id); any thread, atomic. */
static uint64_t last_ep_id;

void sd_wire_reset(struct sd_ep *ep)
{
	struct sd_rresp *resp = ep->tx.resp;
	uint64_t id = ep->tx.ep_id;

	if (id == 0)
		id = __atomic_add_fetch(&last_ep_id, 1, __ATOMIC_RELAXED);
	memset(&ep->tx, 0, sizeof(ep->tx));
	ep->tx.resp = resp;
	ep->tx.ep_id = id;
	memset(&ep->rx, 0, sizeof(ep->rx));
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

	while (ep->tx.next > 0 && (w = sd_wq_at(&ep->sq, 0)) != NULL) {
		if (completes_locally(w->op)) {
			if (w->status == SD_WQE_PENDING)
				break;
		} else {
			/* Covered by the ack: (ack - seq) as a signed count. */
			if ((int32_t)(ep->tx.peer_ack - w->seq) <= 0)
				break;
			w->status = DAT_DTO_SUCCESS;
		}
		if (ep->tx.kind == SD_TX_REQ && ep->tx.sge == w->sge)
			break;	/* never: acked implies written; be safe */
		{
			struct sd_wqe c = *w;

			sd_wq_pop(&ep->sq);
			ep->tx.next--;
			sd_dto_complete(ep, &c, false, c.status, c.len);
		}
	}
}

/* Starts a header-only frame of @op. */
static void ctl_frame(struct sd_ep *ep, uint8_t op)
{
	struct sd_hdr h;

	memset(&h, 0, sizeof(h));
	h.op = op;
	h.ack = ep->rx.executed;
	h.tag = SD_TAG_NONE;
	sd_hdr_pack(&h, ep->tx.hdr);
	ep->tx.ack_sent = h.ack;
	ep->tx.kind = SD_TX_CTL;
	ep->tx.hdr_done = 0;
	ep->tx.sge = NULL;
	ep->tx.nsge = 0;
	ep->tx.len = ep->tx.done = 0;
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
		w->status = sd_rmr_bind_exec(&w->x.bind, tx->ep_id);
		tx->next++;
		sd_tx_complete_acked(ep);
	}
	return NULL;
}

/* Picks the next frame (see the top of the file); false if none. */
static bool next_frame(struct sd_ep *ep, struct sd_sock *sock)
{
	struct sd_tx *tx = &ep->tx;
	struct sd_hdr h;
	struct sd_wqe *w;
	bool se;

	if (sock->out_done < sock->out_len) {
		tx->kind = SD_TX_RAW;
		return true;
	}
	if (tx->disc_sent)
		return false;
	memset(&h, 0, sizeof(h));
	h.tag = SD_TAG_NONE;
	if (tx->resp_count > 0) {
		struct sd_rresp *r = &tx->resp[tx->resp_head];

		h.op = r->op;
		h.len = (uint32_t)r->sge.len;
		h.tag = r->tag;
		tx->kind = SD_TX_RESP;
		tx->sge = &r->sge;
		tx->nsge = r->sge.len > 0 ? 1 : 0;
		tx->len = r->sge.len;
		goto frame;
	}
	w = next_request(ep);
	if (w != NULL) {
		w->seq = tx->seq++;
		tx->next++;
		h.len = (uint32_t)w->len;
		h.rkey = w->remote.rmr_context;
		h.addr = w->remote.virtual_address;
		se = w->flags & DAT_COMPLETION_SOLICITED_WAIT_FLAG;
		tx->sge = w->sge;
		tx->nsge = w->nsge;
		tx->len = w->len;
		switch (w->op) {
		case SD_WR_SEND:
			/* rkey: the peer's context to invalidate, if any. */
			if (w->inv)
				h.op = se ? SD_OP_SEND_SE_INV : SD_OP_SEND_INV;
			else
				h.op = se ? SD_OP_SEND_SE : SD_OP_SEND;
			h.rkey = w->inv ? w->remote.rmr_context : 0;
			h.addr = 0;
			break;
		case SD_WR_RDMA_WRITE:
			h.op = SD_OP_WRITE;
			break;
		case SD_WR_WRITE_IMM:
			h.op = se ? SD_OP_WRITE_IMM_SE : SD_OP_WRITE_IMM;
			h.code = w->imm;
			break;
		case SD_WR_RDMA_READ:
			h.op = SD_OP_READ_REQ;
			h.tag = w->seq;
			tx->rd_out++;
			tx->sge = NULL;
			tx->nsge = 0;
			tx->len = 0;
			break;
		default:	/* atomics: the operands are the payload */
			h.op = w->op == SD_WR_FETCH_ADD ? SD_OP_FETCH_ADD :
			       SD_OP_CMP_SWAP;
			h.tag = w->seq;
			h.len = SD_ATOMIC_ARGS;
			tx->rd_out++;
			tx->one.addr = (char *)w->x.atomic;
			tx->one.len = SD_ATOMIC_ARGS;
			tx->sge = &tx->one;
			tx->nsge = 1;
			tx->len = SD_ATOMIC_ARGS;
			break;
		}
		tx->kind = SD_TX_REQ;
		goto frame;
	}
	if (tx->disc_want && sd_wq_at(&ep->sq, tx->next) == NULL &&
	    tx->resp_count == 0) {
		ctl_frame(ep, SD_OP_DISCONNECT);
		return true;
	}
	if (ep->rx.executed != tx->ack_sent) {
		ctl_frame(ep, SD_OP_ACK);
		return true;
	}
	return false;
frame:
	h.ack = ep->rx.executed;
	tx->ack_sent = h.ack;
	sd_hdr_pack(&h, tx->hdr);
	tx->hdr_done = 0;
	tx->done = 0;
	return true;
}

/* The frame just written is out: account for it. */
static void frame_done(struct sd_ep *ep, struct sd_sock *sock)
{
	struct sd_tx *tx = &ep->tx;

	switch (tx->kind) {
	case SD_TX_RAW:
		sock->out_len = sock->out_done = 0;
		break;
	case SD_TX_RESP: {
		struct sd_rresp *r = &tx->resp[tx->resp_head];

		if (r->lmr != NULL)
			sd_lmr_remote_done(r->lmr);
		r->lmr = NULL;
		tx->resp_head = (tx->resp_head + 1) % ep->rd_in_max;
		tx->resp_count--;
		break;
	}
	case SD_TX_CTL:
		if (tx->hdr[0] == SD_OP_DISCONNECT) {
			tx->disc_sent = true;
			shutdown(sock->fd, SHUT_WR);
			sock->shut_wr = true;
		}
		break;
	default:
		break;
	}
	tx->kind = SD_TX_NONE;
}

/* Fills @iov with what is left of the current frame; returns the count. */
static int frame_iov(struct sd_ep *ep, struct sd_sock *sock, struct iovec *iov)
{
	struct sd_tx *tx = &ep->tx;
	uint64_t skip;
	uint32_t i;
	int n = 0;

	if (tx->kind == SD_TX_RAW) {
		iov[0].iov_base = sock->out + sock->out_done;
		iov[0].iov_len = sock->out_len - sock->out_done;
		return 1;
	}
	if (tx->hdr_done < SD_HDR_SIZE) {
		iov[n].iov_base = tx->hdr + tx->hdr_done;
		iov[n].iov_len = SD_HDR_SIZE - tx->hdr_done;
		n++;
	}
	skip = tx->done;
	for (i = 0; i < tx->nsge && n < TX_IOV_MAX; i++) {
		const struct sd_sge *s = &tx->sge[i];

		if (skip >= s->len) {
			skip -= s->len;
			continue;
		}
		iov[n].iov_base = s->addr + skip;
		iov[n].iov_len = s->len - skip;
		skip = 0;
		n++;
	}
	return n;
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
	struct iovec iov[TX_IOV_MAX];

	if (sock == NULL || sock->phase != SD_SK_DATA || ep->tx.blocked)
		return;
	for (;;) {
		struct msghdr msg;
		ssize_t n;
		size_t left;

		if (ep->tx.kind == SD_TX_NONE && !next_frame(ep, sock))
			return;
		memset(&msg, 0, sizeof(msg));
		msg.msg_iov = iov;
		msg.msg_iovlen = (size_t)frame_iov(ep, sock, iov);
		if (msg.msg_iovlen == 0) {
			frame_done(ep, sock);
			continue;
		}
		n = sendmsg(sock->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				want_pollout(ep);
				return;
			}
			sd_dbg("ep %p: send: %s", (void *)ep, strerror(errno));
			sd_ep_close(ep, errno == EPIPE || errno == ECONNRESET ?
				    DAT_CONNECTION_EVENT_DISCONNECTED :
				    DAT_CONNECTION_EVENT_BROKEN, NULL, "send failed");
			return;
		}
		/* Advance through the raw bytes or the header, then payload. */
		left = (size_t)n;
		if (ep->tx.kind == SD_TX_RAW) {
			sock->out_done += (uint32_t)left;
			if (sock->out_done == sock->out_len)
				frame_done(ep, sock);
			continue;
		}
		if (ep->tx.hdr_done < SD_HDR_SIZE) {
			size_t h = SD_HDR_SIZE - ep->tx.hdr_done;

			if (left < h) {
				ep->tx.hdr_done += (uint32_t)left;
				continue;
			}
			ep->tx.hdr_done = SD_HDR_SIZE;
			left -= h;
		}
		ep->tx.done += left;
		if (ep->tx.done == ep->tx.len)
			frame_done(ep, sock);
	}
}
