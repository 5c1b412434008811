/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receive half of the wire engine: a resumable state machine that
 * reads a header, checks it, and places the payload straight into its
 * destination with readv, with one handler per opcode.
 *
 *   SD_RX_HDR   reading the 32-byte header (into rx.hdr)
 *   SD_RX_BUF   a SEND arrived and no receive is posted: RNR. The engine
 *               stops reading the socket (TCP flow control holds the
 *               sender, nothing is dropped) until a receive is posted,
 *               however long that takes; the peer's EOF is still seen
 *               (UV_DISCONNECT, i.e. EPOLLRDHUP).
 *   SD_RX_DATA  placing the payload: a SEND into the receive's segments
 *               (the EP's or an SRQ buffer), a WRITE into the region that
 *               sd_lmr_resolve_remote granted, a READ_RESP into the READ's
 *               segments. No bounce buffer, no allocation.
 *
 * Everything the peer sends is checked before it is acted on: the
 * opcode, the reserved bits, lengths against our own limits (negotiated
 * in the handshake), the ack against what we sent, READ depth, READ_RESP
 * against the oldest READ outstanding. A violation sends TERMINATE
 * (protocol) and breaks the connection. Remote access is checked by
 * sd_lmr_resolve_remote before a byte is placed: a refusal sends
 * TERMINATE (remote access) naming the request, and breaks (WRITE-6).
 *
 * Engine thread only, under ep->lock.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "ep.h"

#define RX_IOV_MAX	SD_MAX_IOV
/* Frames handled per readable event before other sockets get a turn. */
#define RX_BUDGET	256

/* Result of a handler: go on reading, or stop (the EP was closed). */
enum { RX_GO = 0, RX_STOP = 1 };

/* Sends TERMINATE(@code, @tag) and breaks the connection. */
static int terminate(struct sd_ep *ep, uint32_t code, uint32_t tag, const char *why)
{
	struct sd_hdr t;

	memset(&t, 0, sizeof(t));
	t.op = SD_OP_TERMINATE;
	t.ack = ep->rx.executed;
	t.tag = tag;
	t.code = code;
	sd_dbg("ep %p: terminate (%s)", (void *)ep, why);
	sd_ep_close(ep, DAT_CONNECTION_EVENT_BROKEN, &t, why);
	return RX_STOP;
}

static int protocol_error(struct sd_ep *ep, const char *why)
{
	return terminate(ep, SD_TERM_PROTOCOL, SD_TAG_NONE, why);
}

/* Sets up the payload placement into @nsge segments for @len bytes. */
static void place(struct sd_ep *ep, const struct sd_sge *sge, uint32_t nsge,
		  uint64_t len)
{
	ep->rx.sge = sge;
	ep->rx.nsge = nsge;
	ep->rx.len = len;
	ep->rx.done = 0;
	ep->rx.state = SD_RX_DATA;
}

/* ---- SEND -------------------------------------------------------- */

/* A SEND needs a receive: the EP's head, or a buffer of its SRQ. */
static int send_take_buffer(struct sd_ep *ep)
{
	struct sd_hdr *h = &ep->rx.h;
	struct sd_wqe *w;

	if (ep->srq != NULL) {
		w = sd_srq_take(ep->srq, ep);	/* SRQ-1, SRQ-4, SRQ-6 */
		ep->rx.from_srq = true;
	} else {
		w = sd_wq_at(&ep->rq, 0);
		ep->rx.from_srq = false;
	}
	if (w == NULL) {
		ep->rx.state = SD_RX_BUF;	/* RNR: wait for a post */
		return RX_STOP;
	}
	ep->rx.wqe = w;
	if (h->len > w->len) {
		/* RECV-5, SRQ-9: the receive fails, so does the connection. */
		struct sd_wqe c = *w;

		if (ep->rx.from_srq)
			sd_srq_release(ep->srq, w, false);
		else
			sd_wq_pop(&ep->rq);
		sd_dto_complete(ep, &c, true, DAT_DTO_LENGTH_ERROR, 0);
		ep->rx.wqe = NULL;
		return terminate(ep, SD_TERM_LENGTH, ep->rx.executed,
				 "message longer than the receive");
	}
	place(ep, w->sge, w->nsge, h->len);
	return RX_GO;
}

static int rx_send(struct sd_ep *ep)
{
	if (ep->rx.h.len > SD_MAX_MESSAGE_SIZE)
		return protocol_error(ep, "SEND above max_message_size");
	return send_take_buffer(ep);
}

static int send_done(struct sd_ep *ep)
{
	struct sd_wqe c = *ep->rx.wqe;

	c.solicited = ep->rx.h.op == SD_OP_SEND_SE;	/* RECV-3 */

	ep->rx.executed++;
	if (ep->rx.from_srq)
		sd_srq_release(ep->srq, ep->rx.wqe, false);
	else
		sd_wq_pop(&ep->rq);
	ep->rx.wqe = NULL;
	ep->rx.from_srq = false;
	/* RECV-1, RECV-2: the whole message, front segments first. */
	sd_dto_complete(ep, &c, true, DAT_DTO_SUCCESS, ep->rx.h.len);
	return RX_GO;
}

/* ---- WRITE ------------------------------------------------------- */

static int rx_write(struct sd_ep *ep)
{
	struct sd_hdr *h = &ep->rx.h;
	int r;

	if (h->len > SD_MAX_RDMA_SIZE)
		return protocol_error(ep, "WRITE above max_rdma_size");
	if (h->len == 0) {
		place(ep, NULL, 0, 0);
		return RX_GO;
	}
	/* WRITE-6: nothing is touched unless the region grants it. */
	r = sd_lmr_resolve_remote(ep->obj.ia, ep->pz, h->rkey, h->addr, h->len,
				  DAT_MEM_PRIV_REMOTE_WRITE_FLAG, &ep->rx.one,
				  &ep->rx.lmr);
	if (r < 0) {
		ep->rx.lmr = NULL;
		return terminate(ep, SD_TERM_REMOTE_ACCESS, ep->rx.executed,
				 "WRITE refused");
	}
	place(ep, &ep->rx.one, 1, h->len);
	return RX_GO;
}

static int write_done(struct sd_ep *ep)
{
	if (ep->rx.lmr != NULL) {
		sd_lmr_remote_done(ep->rx.lmr);
		ep->rx.lmr = NULL;
	}
	ep->rx.executed++;
	return RX_GO;
}

/* ---- READ_REQ ---------------------------------------------------- */

static int rx_read_req(struct sd_ep *ep)
{
	struct sd_hdr *h = &ep->rx.h;
	struct sd_rresp *resp;
	struct sd_lmr *lmr = NULL;
	struct sd_sge sge = { NULL, 0 };

	if (h->len > SD_MAX_RDMA_SIZE)
		return protocol_error(ep, "READ above max_rdma_size");
	if (ep->tx.resp_count >= ep->rd_in_max)
		return protocol_error(ep, "too many READs outstanding");
	if (h->len > 0 &&
	    sd_lmr_resolve_remote(ep->obj.ia, ep->pz, h->rkey, h->addr, h->len,
				  DAT_MEM_PRIV_REMOTE_READ_FLAG, &sge, &lmr) < 0)
		return terminate(ep, SD_TERM_REMOTE_ACCESS, ep->rx.executed,
				 "READ refused");
	resp = &ep->tx.resp[(ep->tx.resp_head + ep->tx.resp_count) %
			    ep->rd_in_max];
	resp->tag = h->tag;
	resp->sge = sge;
	resp->lmr = lmr;
	ep->tx.resp_count++;
	ep->rx.executed++;
	ep->rx.state = SD_RX_HDR;
	return RX_GO;
}

/* ---- READ_RESP --------------------------------------------------- */

static int rx_read_resp(struct sd_ep *ep)
{
	struct sd_hdr *h = &ep->rx.h;
	struct sd_wqe *w = NULL;
	uint32_t i;

	/* The peer answers in order: the oldest READ still waiting. */
	for (i = 0; i < ep->tx.next; i++) {
		struct sd_wqe *x = sd_wq_at(&ep->sq, i);

		if (x->op == SD_WR_RDMA_READ && x->status == SD_WQE_PENDING) {
			w = x;
			break;
		}
	}
	if (w == NULL || w->seq != h->tag || w->len != h->len)
		return protocol_error(ep, "unexpected READ_RESP");
	ep->rx.wqe = w;
	ep->rx.from_srq = false;
	place(ep, w->sge, w->nsge, h->len);
	return RX_GO;
}

static int read_resp_done(struct sd_ep *ep)
{
	ep->rx.wqe->status = DAT_DTO_SUCCESS;
	ep->rx.wqe = NULL;
	ep->tx.rd_out--;
	sd_tx_complete_acked(ep);
	return RX_GO;
}

/* ---- the rest ---------------------------------------------------- */

static int rx_ack(struct sd_ep *ep)
{
	ep->rx.state = SD_RX_HDR;
	return RX_GO;
}

static int rx_terminate(struct sd_ep *ep)
{
	struct sd_hdr *h = &ep->rx.h;
	uint32_t i;

	if (h->code == 0 || h->code > SD_TERM_MAX)
		return protocol_error(ep, "bad TERMINATE");
	for (i = 0; i < ep->tx.next; i++) {
		struct sd_wqe *w = sd_wq_at(&ep->sq, i);

		if (w->seq != h->tag)
			continue;
		/* The culprit; the rest is flushed when the EP closes. */
		if (h->code == SD_TERM_REMOTE_ACCESS)
			w->status = DAT_DTO_ERR_REMOTE_ACCESS;
		else if (h->code == SD_TERM_LENGTH)
			w->status = DAT_DTO_ERR_REMOTE_RESPONDER;
		else
			w->status = DAT_DTO_ERR_BAD_RESPONSE;
		break;
	}
	sd_ep_close(ep, DAT_CONNECTION_EVENT_BROKEN, NULL, "peer terminated");
	return RX_STOP;
}

static int rx_disconnect(struct sd_ep *ep)
{
	struct sd_hdr d;

	/* Answer with ours (its ack completes the peer's requests). */
	memset(&d, 0, sizeof(d));
	d.op = SD_OP_DISCONNECT;
	d.ack = ep->rx.executed;
	d.tag = SD_TAG_NONE;
	sd_ep_close(ep, DAT_CONNECTION_EVENT_DISCONNECTED,
		    ep->tx.disc_sent ? NULL : &d, "peer disconnected");
	return RX_STOP;
}

/*
 * One handler per opcode: @start runs when the header is in (checked
 * already), @done when the payload is placed.
 */
static const struct {
	int (*start)(struct sd_ep *ep);
	int (*done)(struct sd_ep *ep);
	bool payload;		/* len counts payload bytes that follow */
} handlers[SD_OP_MAX + 1] = {
	[SD_OP_SEND] = { rx_send, send_done, true },
	[SD_OP_SEND_SE] = { rx_send, send_done, true },
	[SD_OP_WRITE] = { rx_write, write_done, true },
	[SD_OP_READ_REQ] = { rx_read_req, NULL, false },
	[SD_OP_READ_RESP] = { rx_read_resp, read_resp_done, true },
	[SD_OP_ACK] = { rx_ack, NULL, false },
	[SD_OP_TERMINATE] = { rx_terminate, NULL, false },
	[SD_OP_DISCONNECT] = { rx_disconnect, NULL, false },
};

/* A complete header: check it, take its ack, dispatch. */
static int rx_header(struct sd_ep *ep)
{
	struct sd_hdr *h = &ep->rx.h;
	uint32_t acked;

	sd_hdr_unpack(h, ep->rx.hdr);
	ep->rx.hdr_have = 0;
	if (h->op == 0 || h->op > SD_OP_MAX || h->flags != 0 ||
	    ep->rx.hdr[2] != 0 || ep->rx.hdr[3] != 0)
		return protocol_error(ep, "bad opcode or flags");
	if (!handlers[h->op].payload && h->len != 0 && h->op != SD_OP_READ_REQ)
		return protocol_error(ep, "length on a frame without payload");
	/* The ack may only cover requests we sent. */
	acked = h->ack - ep->tx.peer_ack;
	if (acked > ep->tx.seq - ep->tx.peer_ack)
		return protocol_error(ep, "ack beyond what was sent");
	if (acked > 0) {
		ep->tx.peer_ack = h->ack;
		sd_tx_complete_acked(ep);
	}
	return handlers[h->op].start(ep);
}

/* Reads payload bytes into the placement set up by place(). */
static ssize_t rx_readv(struct sd_ep *ep, int fd)
{
	struct iovec iov[RX_IOV_MAX];
	uint64_t skip = ep->rx.done;
	uint64_t want = ep->rx.len - ep->rx.done;
	uint32_t i;
	int n = 0;

	for (i = 0; i < ep->rx.nsge && n < RX_IOV_MAX && want > 0; i++) {
		const struct sd_sge *s = &ep->rx.sge[i];
		uint64_t l;

		if (skip >= s->len) {
			skip -= s->len;
			continue;
		}
		l = s->len - skip;
		if (l > want)
			l = want;
		iov[n].iov_base = s->addr + skip;
		iov[n].iov_len = l;
		want -= l;
		skip = 0;
		n++;
	}
	return readv(fd, iov, n);
}

/* The socket ended (EOF @n == 0, or errno @err). */
static void rx_eof(struct sd_ep *ep, ssize_t n, int err)
{
	bool clean = n == 0 && ep->rx.state == SD_RX_HDR && ep->rx.hdr_have == 0;

	if (n < 0 && (err == ECONNRESET || err == EPIPE))
		clean = true;
	sd_ep_close(ep, clean ? DAT_CONNECTION_EVENT_DISCONNECTED :
		    DAT_CONNECTION_EVENT_BROKEN, NULL,
		    clean ? "peer closed" : "connection lost");
}

void sd_rx_progress(struct sd_ep *ep)
{
	int budget = RX_BUDGET;

	while (budget > 0) {
		struct sd_sock *sock = ep->sock;
		ssize_t n;

		if (sock == NULL || sock->phase != SD_SK_DATA)
			return;
		switch (ep->rx.state) {
		case SD_RX_HDR:
			n = recv(sock->fd, ep->rx.hdr + ep->rx.hdr_have,
				 SD_HDR_SIZE - ep->rx.hdr_have, MSG_DONTWAIT);
			if (n <= 0)
				goto eof_or_again;
			ep->rx.hdr_have += (uint32_t)n;
			if (ep->rx.hdr_have < SD_HDR_SIZE)
				continue;
			budget--;
			if (rx_header(ep) == RX_STOP)
				return;
			break;
		case SD_RX_BUF:
			if (send_take_buffer(ep) == RX_STOP)
				return;
			break;
		case SD_RX_DATA:
			if (ep->rx.done < ep->rx.len) {
				n = rx_readv(ep, sock->fd);
				if (n <= 0)
					goto eof_or_again;
				ep->rx.done += (uint64_t)n;
			}
			break;
		}
		if (ep->rx.state == SD_RX_DATA && ep->rx.done == ep->rx.len) {
			ep->rx.state = SD_RX_HDR;
			if (handlers[ep->rx.h.op].done(ep) == RX_STOP)
				return;
		}
		continue;
eof_or_again:
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		rx_eof(ep, n, n < 0 ? errno : 0);
		return;
	}
}

void sd_ep_io(struct sd_ep *ep, int status, int events)
{
	if (status < 0 && !(events & (UV_READABLE | UV_WRITABLE))) {
		sd_ep_close(ep, DAT_CONNECTION_EVENT_BROKEN, NULL, "socket error");
		return;
	}
	if (events & UV_WRITABLE) {
		ep->tx.blocked = false;
		sd_tx_progress(ep);
	}
	if (ep->sock == NULL)
		return;
	if (events & UV_READABLE || status < 0) {
		sd_rx_progress(ep);
	} else if (events & UV_DISCONNECT && ep->rx.state == SD_RX_BUF) {
		/* RNR, and the peer has gone: nothing more will be read. */
		sd_ep_close(ep, DAT_CONNECTION_EVENT_DISCONNECTED, NULL,
			    "peer closed while waiting for a receive");
		return;
	}
	if (ep->sock == NULL)
		return;
	sd_tx_progress(ep);	/* an ACK owed, a fence lifted */
	sd_sock_update(ep);
}

void sd_ep_io_cmd(struct sd_cmd *cmd)
{
	struct sd_ep *ep = sd_container_of(cmd, struct sd_ep, io_cmd);

	pthread_mutex_lock(&ep->lock);
	if (ep->sock != NULL && ep->sock->phase == SD_SK_DATA) {
		if (ep->rx.state == SD_RX_BUF)
			sd_rx_progress(ep);
		if (ep->sock != NULL) {
			sd_tx_progress(ep);
			sd_sock_update(ep);
		}
	}
	pthread_mutex_unlock(&ep->lock);
}
