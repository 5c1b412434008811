/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The core of unreliable datagram EPs (ext.h describes the service, ud.c
 * has their entry points): everything an EP does once it exists and
 * that udcm.c and counters.c call as well. Its state and connection
 * events, completions and flush, the socket (sending, the engine's
 * polling and receiving), the engine commands that start, wake and free
 * an EP, its release, watermarks and address handles.
 *
 * ud.c's top comment is the contract of the data path and of the
 * threads; this file is where it is kept. Layer 4: nothing here names a
 * DAT entry point.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "engine.h"
#include "evq.h"
#include "ext.h"
#include "ia.h"
#include "mem.h"
#include "obj.h"
#include "qp.h"
#include "srqbuf.h"
#include "trace.h"
#include "udproto.h"
#include "util.h"
#include "wq.h"

/*
 * Guards every UD EP's ahs list and each address handle's magic (ext.h:
 * struct sd_ud_ah), so that a send through another EP's handle never
 * races with that handle's free. A leaf: taken under any EP lock.
 */
pthread_mutex_t sd_ud_ah_lock = PTHREAD_MUTEX_INITIALIZER;

/* Datagrams one poll callback reads at most (the poll fires again). */
#define UD_RX_BUDGET	256

/* Socket buffers asked for: a few maximal datagrams (capped by the kernel). */
#define UD_SOCKBUF	(4 << 20)

/* Engine: scratch space for connection datagrams and discarded bytes. */
static uint8_t ud_scratch[SD_UD_HDR_SIZE + SD_UD_MAX_PDATA];

/* ------------------------------------------------------------------ */
/* Handles                                                             */

struct sd_ud_ep *sd_ud_ep_from_handle(DAT_EP_HANDLE h)
{
	struct sd_obj *o = sd_obj_check(h, SD_MAGIC_UD_EP);

	return o ? sd_container_of(o, struct sd_ud_ep, obj) : NULL;
}

/* ------------------------------------------------------------------ */
/* Events                                                              */

/*
 * Posts @ev on @evd. @notify false: it wakes nobody and triggers no CNO
 * (an unsignalled completion, SEND-2; a receive without a solicited
 * event on a SOLICITED_WAIT EP, RECV-3).
 */
static int ud_evd_post(struct sd_evd *evd, const DAT_EVENT *ev, bool notify)
{
	return sd_evq_post_completion(evd, ev, notify);
}

/*
 * Tracing: the `dto` line of a UD completion (trace.h), queued to @evd
 * or not (NULL: suppressed, or dropped=freed; @r -ENOSPC, what the post
 * returned: lost to @evd's overflow, dropped=overflow); a receive names
 * the datagram's sender (from=).
 */
static void ud_trace_dto(const struct timespec *at, struct sd_ud_ep *ep,
			 bool recv, const struct sd_wqe *w,
			 struct sd_evd *evd, DAT_DTO_COMPLETION_STATUS st,
			 uint64_t len, const struct sockaddr_storage *src,
			 socklen_t srclen, int r)
{
	char from[160] = "";

	if (src != NULL) {
		char pair[128];

		sd_trace_addr_pair(ep->fd, src, srclen, true, pair,
				   sizeof(pair));
		snprintf(from, sizeof(from), " conn=%s", pair);
	}
	sd_trace_at(at, "dto", sd_obj_name(&ep->obj).s,
		    recv ? "RECV_UD" : "SEND_UD",
		    "evd=%s cookie=0x%llx status=%s len=%llu%s%s",
		    evd != NULL ? sd_obj_name(&evd->obj).s : "none",
		    (unsigned long long)w->cookie.as_64,
		    sd_trace_dto_status_name(st),
		    (unsigned long long)(st == DAT_DTO_SUCCESS ? len : 0), from,
		    ep->freed ? " dropped=freed" :
		    r == -ENOSPC ? " dropped=overflow" : "");
}

void sd_ud_set_state(struct sd_ud_ep *ep, DAT_EP_STATE to, const char *why)
{
	if (ep->state == to)
		return;
	sd_qp_trace_state(&ep->obj, ep->state, to, why);
	ep->state = to;
}

/*
 * A DTO completion of @ep: @recv on the receive EVD, else the request
 * EVD; @src (receives only, may be NULL) names the sender. Nothing once
 * the EP is freed (the handle is gone) or for a successful suppressed
 * send. ep->lock held.
 */
void sd_ud_dto_event(struct sd_ud_ep *ep, bool recv, const struct sd_wqe *w,
		     DAT_DTO_COMPLETION_STATUS st, uint64_t len,
		     const struct sd_ud_hdr *h,
		     const struct sockaddr_storage *src, socklen_t srclen)
{
	struct sd_evd *evd = recv ? ep->recv_evd : ep->req_evd;
	DAT_DTO_COMPLETION_EVENT_DATA *dto;
	DAT_IB_EXTENSION_EVENT_DATA *x;
	struct timespec at = { 0, 0 };
	DAT_EVENT ev;
	bool notify;
	int r;

	if (sd_trace_enabled())
		at = sd_trace_now();
	if (evd == NULL || ep->freed) {
		if (sd_trace_enabled())
			ud_trace_dto(&at, ep, recv, w, NULL, st, len, src,
				     srclen, 0);
		return;
	}
	if (st == DAT_DTO_SUCCESS) {
		if (!recv && (w->flags & DAT_COMPLETION_SUPPRESS_FLAG)) {
			if (sd_trace_enabled())	/* SEND-2 */
				ud_trace_dto(&at, ep, recv, w, NULL, st, len,
					     src, srclen, 0);
			return;
		}
	} else {
		len = 0;
	}
	notify = sd_complete_notifies(w, recv, ep->attr.recv_completion_flags,
				      st);
	memset(&ev, 0, sizeof(ev));
	ev.event_number = (DAT_EVENT_NUMBER)DAT_IB_DTO_EVENT;
	dto = &ev.event_data.dto_completion_event_data;
	dto->ep_handle = (DAT_EP_HANDLE)ep;
	dto->user_cookie = w->cookie;
	dto->status = st;
	dto->transfered_length = (DAT_SEG_LENGTH)len;
	dto->operation = (DAT_DTOS)(recv ? DAT_IB_DTO_RECV_UD : DAT_IB_DTO_SEND_UD);
	x = (DAT_IB_EXTENSION_EVENT_DATA *)ev.event_extension_data;
	x->type = recv ? DAT_IB_UD_RECV : DAT_IB_UD_SEND;
	x->status = st == DAT_DTO_SUCCESS ? DAT_OP_SUCCESS : DAT_IB_OP_ERR;
	if (h != NULL && src != NULL) {
		x->remote_ah.ah = NULL;
		x->remote_ah.qpn = h->src_qpn;
		memcpy(&x->remote_ah.ia_addr, src,
		       srclen < sizeof(x->remote_ah.ia_addr) ? srclen :
		       sizeof(x->remote_ah.ia_addr));
	}
	r = ud_evd_post(evd, &ev, notify);
	/*
	 * After the post, with the time read before it, as complete.c's:
	 * ep->lock keeps this EP's order.
	 */
	if (sd_trace_enabled())
		ud_trace_dto(&at, ep, recv, w, evd, st, len, src, srclen, r);
}

void sd_ud_conn_event(struct sd_ud_ep *ep, DAT_EVENT_NUMBER num,
		      DAT_IB_EXT_TYPE type, struct sd_ud_ah *ah,
		      void *cm, uint8_t *pdata, uint16_t pdata_len)
{
	DAT_IB_EXTENSION_EVENT_DATA *x;
	DAT_EVENT ev;

	if (ep->conn_evd == NULL || ep->freed)
		return;
	memset(&ev, 0, sizeof(ev));
	ev.event_number = num;
	ev.event_data.connect_event_data.ep_handle = (DAT_EP_HANDLE)ep;
	if (pdata_len > 0) {
		ev.event_data.connect_event_data.private_data_size = pdata_len;
		ev.event_data.connect_event_data.private_data = pdata;
	}
	x = (DAT_IB_EXTENSION_EVENT_DATA *)ev.event_extension_data;
	x->type = type;
	x->status = num == (DAT_EVENT_NUMBER)DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED ?
		    DAT_OP_SUCCESS : DAT_IB_OP_ERR;
	if (ah != NULL) {
		x->remote_ah.ah = (struct ibv_ah *)(void *)ah;	/* opaque to the consumer */
		x->remote_ah.qpn = ah->dest.qpn;
		memcpy(&x->remote_ah.ia_addr, &ah->dest.addr,
		       ah->dest.len < sizeof(x->remote_ah.ia_addr) ?
		       ah->dest.len : sizeof(x->remote_ah.ia_addr));
	}
	x->context.as_ptr = cm;
	sd_evq_post(ep->conn_evd, &ev);
}

/* Completes everything outstanding with DAT_DTO_ERR_FLUSHED. ep->lock. */
static void ud_flush(struct sd_ud_ep *ep)
{
	struct sd_wqe *w;

	while ((w = sd_wq_at(&ep->sq, 0)) != NULL) {
		struct sd_wqe c = *w;

		sd_wq_pop(&ep->sq);
		sd_ud_dto_event(ep, false, &c, DAT_DTO_ERR_FLUSHED, 0, NULL, NULL, 0);
	}
	ep->tx_blocked = false;
	while ((w = sd_wq_at(&ep->rq, 0)) != NULL) {
		struct sd_wqe c = *w;

		sd_wq_pop(&ep->rq);
		sd_ud_dto_event(ep, true, &c, DAT_DTO_ERR_FLUSHED, 0, NULL, NULL, 0);
	}
}

/* A post on a DISCONNECTED EP: flushed at once (SEND-5, RECV-7). ep->lock. */
void sd_ud_flush_now(struct sd_ud_ep *ep, bool recv, DAT_DTO_COOKIE cookie,
		     DAT_COMPLETION_FLAGS flags)
{
	struct sd_wqe w;

	memset(&w, 0, sizeof(w));
	w.cookie = cookie;
	w.flags = flags;
	sd_ud_dto_event(ep, recv, &w, DAT_DTO_ERR_FLUSHED, 0, NULL, NULL, 0);
}

/*
 * Ends @ep for good until dat_ep_reset: DISCONNECTED, everything
 * outstanding flushed, address resolutions in progress abandoned (they
 * stop counting at once; the engine drops them), connection event @ev.
 * ep->lock held; any thread (the engine too).
 */
void sd_ud_close(struct sd_ud_ep *ep, DAT_EVENT_NUMBER ev, const char *why)
{
	DAT_EVENT e;

	sd_ud_set_state(ep, DAT_EP_STATE_DISCONNECTED, why);
	ep->cm_act = ep->cm_pas = 0;
	ep->cm_epoch++;
	ud_flush(ep);
	sd_cnt_inc(ep->cnt, DCNT_EP_DISCONNECT);
	if (ep->conn_evd != NULL && !ep->freed) {
		memset(&e, 0, sizeof(e));
		e.event_number = ev;
		e.event_data.connect_event_data.ep_handle = (DAT_EP_HANDLE)ep;
		sd_evq_post(ep->conn_evd, &e);
	}
	sd_engine_submit(&ep->io_cmd);	/* the engine drops the CMs */
}

/* ------------------------------------------------------------------ */
/* Sockets                                                             */

uint64_t sd_ud_now(void)
{
	return uv_now(sd_engine_loop());
}

int sd_ud_sendto(struct sd_ud_ep *ep, const void *buf, size_t len,
		 const struct sockaddr *to, socklen_t tolen)
{
	for (;;) {
		if (sendto(ep->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL, to,
			   tolen) >= 0)
			return 0;
		if (errno != EINTR)
			return -errno;
	}
}

/*
 * Tracing: the tx or rx line of a DATA datagram of @bytes exchanged with
 * @peer, refused when @bad is not NULL. Datagrams have no connection:
 * conn= is the pair of addresses, and there is no seq= (one may be lost).
 */
static void ud_trace_dgram(struct sd_ud_ep *ep, const char *dir,
			   const struct sd_ud_hdr *h, uint64_t bytes,
			   const void *peer, socklen_t len, const char *bad)
{
	char pair[128];

	sd_trace(dir, sd_obj_name(&ep->obj).s, "DATA",
		 "conn=%s bytes=%llu src_qpn=%u dst_qpn=%u%s%s%s",
		 sd_trace_addr_pair(ep->fd, peer, len, true, pair, sizeof(pair)),
		 (unsigned long long)bytes, h->src_qpn, h->dst_qpn,
		 bad ? " bad=\"" : "", bad ? bad : "", bad ? "\"" : "");
}

/*
 * Sends one DATA datagram from @ep to @d: our header, then @nsge segments
 * straight from the consumer's memory. 0 when the kernel took it (or
 * dropped it for want of buffers, which is loss), -EAGAIN when the socket
 * is full, another -errno when it refused. ep->lock held.
 */
int sd_ud_send_data(struct sd_ud_ep *ep, struct sd_ud_dest *d,
		    const struct sd_sge *sge, uint16_t nsge)
{
	struct iovec iov[SD_MAX_IOV + 1];
	uint8_t hb[SD_UD_HDR_SIZE];
	struct sd_ud_hdr h;
	struct msghdr m;
	uint16_t i;

	memset(&h, 0, sizeof(h));
	h.magic = SD_UD_MAGIC;
	h.version = SD_UD_VERSION;
	h.type = SD_UD_DATA;
	h.flags = d->flags;
	h.dst_qpn = d->qpn;
	h.dst_qkey = d->qkey;
	h.src_qpn = ep->qpn;
	h.src_qkey = ep->qkey;
	ud_hdr_pack(&h, hb);
	iov[0].iov_base = hb;
	iov[0].iov_len = sizeof(hb);
	for (i = 0; i < nsge; i++) {
		iov[i + 1].iov_base = sge[i].addr;
		iov[i + 1].iov_len = (size_t)sge[i].len;
	}
	memset(&m, 0, sizeof(m));
	m.msg_name = &d->addr;
	m.msg_namelen = d->len;
	m.msg_iov = iov;
	m.msg_iovlen = (size_t)nsge + 1;
	if (sd_trace_enabled()) {
		uint64_t bytes = sizeof(hb);

		for (i = 0; i < nsge; i++)
			bytes += sge[i].len;
		ud_trace_dgram(ep, "tx", &h, bytes, &d->addr, d->len, NULL);
	}
	for (;;) {
		if (sendmsg(ep->fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL) >= 0)
			return 0;
		switch (errno) {
		case EINTR:
			continue;
		case EAGAIN:
#if EWOULDBLOCK != EAGAIN
		case EWOULDBLOCK:
#endif
			return -EAGAIN;
		case ENOBUFS:
			__atomic_fetch_add(&ep->dropped, 1, __ATOMIC_RELAXED);
			return 0;
		default:
			return -errno;
		}
	}
}

static void ud_poll_cb(uv_poll_t *p, int status, int events);

/* Engine: arms the poll for what @ep waits for. ep->lock held. */
static void ud_arm(struct sd_ud_ep *ep)
{
	int ev = UV_READABLE;

	if (!ep->polling || ep->freed)
		return;
	if (ep->tx_blocked)
		ev |= UV_WRITABLE;
	if (ev == ep->events)
		return;
	if (uv_poll_start(&ep->poll, ev, ud_poll_cb) == 0)
		ep->events = ev;
}

/*
 * Writes the queued sends in order, completing each, until the socket is
 * full. ep->lock held; the engine (POLLOUT), or the poster when the queue
 * is not blocked.
 */
static void ud_tx_progress(struct sd_ud_ep *ep)
{
	struct sd_wqe *w;

	while ((w = sd_wq_at(&ep->sq, 0)) != NULL) {
		uint32_t slot = (uint32_t)(w - ep->sq.wqe);
		struct sd_wqe c;
		int r = sd_ud_send_data(ep, &ep->dest[slot], w->sge, w->nsge);

		if (r == -EAGAIN) {
			ep->tx_blocked = true;
			return;
		}
		c = *w;
		sd_wq_pop(&ep->sq);
		sd_ud_dto_event(ep, false, &c, r == 0 ? DAT_DTO_SUCCESS :
				DAT_DTO_ERR_TRANSPORT, c.len, NULL, NULL, 0);
	}
	ep->tx_blocked = false;
}

/*
 * The UDP socket of a UD EP of @ia: bound to the IA's address (its
 * family's wildcard when ia_params named one), an ephemeral port. The
 * descriptor, or -errno.
 */
int sd_ud_socket(struct sd_ia *ia, struct sockaddr_storage *local,
		 socklen_t *local_len)
{
	struct sockaddr_storage ss = ia->addr.ss;
	int fd, sz = UD_SOCKBUF;

	if (ss.ss_family == AF_INET6) {
		((struct sockaddr_in6 *)&ss)->sin6_port = 0;
		if (ia->addr.any)
			((struct sockaddr_in6 *)&ss)->sin6_addr = in6addr_any;
	} else {
		((struct sockaddr_in *)&ss)->sin_port = 0;
		if (ia->addr.any)
			((struct sockaddr_in *)&ss)->sin_addr.s_addr = htonl(INADDR_ANY);
	}
	fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	if (bind(fd, (struct sockaddr *)&ss, ia->addr.len) < 0) {
		int err = errno;

		close(fd);
		return -err;
	}
	*local_len = sizeof(*local);
	if (getsockname(fd, (struct sockaddr *)local, local_len) < 0) {
		int err = errno;

		close(fd);
		return -err;
	}
	/* Report the IA's address rather than a wildcard. */
	if (ia->addr.any) {
		uint16_t port = local->ss_family == AF_INET6 ?
			((struct sockaddr_in6 *)local)->sin6_port :
			((struct sockaddr_in *)local)->sin_port;

		*local = ia->addr.ss;
		*local_len = ia->addr.len;
		if (local->ss_family == AF_INET6)
			((struct sockaddr_in6 *)local)->sin6_port = port;
		else
			((struct sockaddr_in *)local)->sin_port = port;
	}
	return fd;
}

/* ------------------------------------------------------------------ */
/* Receiving (engine)                                                  */

/* Copies @len bytes of @src into the segments @sge, from byte @off of them. */
static void sge_copy_in(const struct sd_sge *sge, uint16_t nsge, uint64_t off,
			const uint8_t *src, uint64_t len)
{
	uint16_t i;

	for (i = 0; i < nsge && len > 0; i++) {
		uint64_t n;

		if (off >= sge[i].len) {
			off -= sge[i].len;
			continue;
		}
		n = sge[i].len - off;
		if (n > len)
			n = len;
		memcpy(sge[i].addr + off, src, (size_t)n);
		src += n;
		len -= n;
		off = 0;
	}
}

/* The 16 bytes of a GID for @ss: IPv6 as is, IPv4 mapped (::ffff:a.b.c.d). */
static void gid_of(const struct sockaddr_storage *ss, uint8_t gid[16])
{
	memset(gid, 0, 16);
	if (ss->ss_family == AF_INET6) {
		memcpy(gid, &((const struct sockaddr_in6 *)ss)->sin6_addr, 16);
	} else if (ss->ss_family == AF_INET) {
		gid[10] = gid[11] = 0xff;
		memcpy(gid + 12, &((const struct sockaddr_in *)ss)->sin_addr, 4);
	}
}

/*
 * The pseudo-GRH a UD receive starts with: IPv6 header layout (version 6,
 * payload length, next header 0x1b as IB's, hop limit), SGID the sender's
 * address, DGID ours.
 */
static void ud_grh(const struct sd_ud_ep *ep, const struct sockaddr_storage *src,
		   uint64_t payload, uint8_t grh[SD_UD_GRH])
{
	memset(grh, 0, SD_UD_GRH);
	grh[0] = 0x60;
	grh[4] = (uint8_t)(payload >> 8);
	grh[5] = (uint8_t)payload;
	grh[6] = 0x1b;
	grh[7] = 64;
	gid_of(src, grh + 8);
	gid_of(&ep->local, grh + 24);
}

/* Throws the next datagram away. */
static void ud_discard(struct sd_ud_ep *ep)
{
	while (recv(ep->fd, ud_scratch, 1, MSG_DONTWAIT) < 0 && errno == EINTR)
		;
	__atomic_fetch_add(&ep->dropped, 1, __ATOMIC_RELAXED);
}

/*
 * ud_rx_data's placement of the datagram into receive @w, which the
 * caller took from its queue: the status to complete it with, and in
 * *@len the bytes placed. ep->lock held.
 */
static DAT_DTO_COMPLETION_STATUS ud_place(struct sd_ud_ep *ep,
					  const struct sd_wqe *w,
					  const struct sd_ud_hdr *h, uint64_t n,
					  const struct sockaddr_storage *src,
					  socklen_t srclen, uint64_t *len)
{
	struct iovec iov[SD_MAX_IOV + 1];
	uint8_t hb[SD_UD_HDR_SIZE], grh[SD_UD_GRH];
	uint64_t payload = n - SD_UD_HDR_SIZE, off = SD_UD_GRH;
	struct msghdr m;
	size_t k = 1;
	uint16_t i;
	ssize_t r;

	if (w->len < SD_UD_GRH || payload > w->len - SD_UD_GRH) {
		if (sd_trace_enabled())
			ud_trace_dgram(ep, "rx", h, n, src, srclen,
				       "longer than the receive");
		ud_discard(ep);
		return DAT_DTO_LENGTH_ERROR;
	}
	if (sd_trace_enabled())
		ud_trace_dgram(ep, "rx", h, n, src, srclen, NULL);
	iov[0].iov_base = hb;
	iov[0].iov_len = sizeof(hb);
	for (i = 0; i < w->nsge; i++) {
		if (off >= w->sge[i].len) {
			off -= w->sge[i].len;
			continue;
		}
		iov[k].iov_base = w->sge[i].addr + off;
		iov[k].iov_len = (size_t)(w->sge[i].len - off);
		off = 0;
		k++;
	}
	memset(&m, 0, sizeof(m));
	m.msg_iov = iov;
	m.msg_iovlen = k;
	do
		r = recvmsg(ep->fd, &m, MSG_DONTWAIT);
	while (r < 0 && errno == EINTR);
	if (r < 0 || (uint64_t)r != n || (m.msg_flags & MSG_TRUNC)) {
		/* Gone or changed under us (cannot happen: we are its reader). */
		return DAT_DTO_ERR_LOCAL_EP;
	}
	ud_grh(ep, src, payload, grh);
	sge_copy_in(w->sge, w->nsge, 0, grh, SD_UD_GRH);
	sd_cnt_inc(ep->cnt, DCNT_EP_RECV_UD);
	sd_cnt_add(ep->cnt, DCNT_EP_RECV_UD_DATA, payload);
	*len = SD_UD_GRH + payload;
	return DAT_DTO_SUCCESS;
}

/*
 * Places the DATA datagram of @n bytes (header @h, from @src) that waits
 * in the socket into the oldest receive, or drops it when none is posted.
 * ep->lock held.
 */
static void ud_rx_data(struct sd_ud_ep *ep, const struct sd_ud_hdr *h,
		       uint64_t n, const struct sockaddr_storage *src,
		       socklen_t srclen)
{
	DAT_DTO_COMPLETION_STATUS st;
	const char *why = NULL;
	struct sd_wqe *w = NULL, c;
	uint64_t len = 0;

	if (h->dst_qpn != ep->qpn || h->dst_qkey != ep->qkey)
		why = "not for this EP";
	else if (ep->state == DAT_EP_STATE_DISCONNECTED)
		why = "disconnected";
	else if ((w = ep->srq != NULL ? sd_srqbuf_take_dgram(ep->srq) :
		  sd_wq_at(&ep->rq, 0)) == NULL)
		why = "no receive posted";
	if (why != NULL) {
		if (sd_trace_enabled())
			ud_trace_dgram(ep, "rx", h, n, src, srclen, why);
		ud_discard(ep);		/* not ours, or no receive: lost */
		return;
	}
	st = ud_place(ep, w, h, n, src, srclen, &len);
	/*
	 * The receive leaves its queue before its completion is posted, so a
	 * consumer that reposts the buffer as soon as it sees the event finds
	 * room (an SRQ counts its taken buffers against max_recv_dtos).
	 */
	c = *w;
	c.solicited = (h->flags & SD_UD_F_SE) != 0;	/* the copy: slots stay clean */
	if (ep->srq != NULL)
		sd_srqbuf_release(ep->srq, w, false);
	else
		sd_wq_pop(&ep->rq);
	if (st == DAT_DTO_SUCCESS)
		sd_ud_dto_event(ep, true, &c, st, len, h, src, srclen);
	else
		sd_ud_dto_event(ep, true, &c, st, 0, NULL, NULL, 0);
}

/* Engine: @ep's socket is readable. ep->lock held. */
static void ud_rx(struct sd_ud_ep *ep)
{
	unsigned budget;

	for (budget = 0; budget < UD_RX_BUDGET; budget++) {
		struct sockaddr_storage src;
		uint8_t hb[SD_UD_HDR_SIZE];
		struct sd_ud_hdr h;
		struct iovec iov = { hb, sizeof(hb) };
		struct msghdr m;
		ssize_t n;

		memset(&m, 0, sizeof(m));
		memset(&src, 0, sizeof(src));
		m.msg_name = &src;
		m.msg_namelen = sizeof(src);
		m.msg_iov = &iov;
		m.msg_iovlen = 1;
		/* The header, and (MSG_TRUNC) the datagram's real length. */
		n = recvmsg(ep->fd, &m, MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			continue;	/* EINTR, or a socket error it consumed */
		}
		if ((size_t)n < sizeof(hb)) {
			ud_discard(ep);
			continue;
		}
		ud_hdr_unpack(&h, hb);
		if (ud_hdr_check(&h, (uint64_t)n) < 0 || h.type == SD_UD_REQ) {
			sd_dbg("ud %s: bad datagram of %zd bytes dropped",
			       sd_obj_name(&ep->obj).s, n);
			ud_discard(ep);
			continue;
		}
		if (h.type == SD_UD_DATA) {
			ud_rx_data(ep, &h, (uint64_t)n, &src, m.msg_namelen);
			continue;
		}
		/* Connection management: checked to fit ud_scratch. */
		do
			n = recv(ep->fd, ud_scratch, sizeof(ud_scratch), MSG_DONTWAIT);
		while (n < 0 && errno == EINTR);
		if (n != (ssize_t)(SD_UD_HDR_SIZE + h.pdata_len))
			continue;
		sd_ud_cm_input(ep, &h, ud_scratch + SD_UD_HDR_SIZE, &src,
			       m.msg_namelen);
	}
}

static void ud_poll_cb(uv_poll_t *p, int status, int events)
{
	struct sd_ud_ep *ep = p->data;

	pthread_mutex_lock(&ep->lock);
	if (ep->freed) {
		pthread_mutex_unlock(&ep->lock);
		return;
	}
	if (status < 0) {
		/* libuv stopped the poll on POLLERR: read the error out, re-arm. */
		ep->events = 0;
		events = UV_READABLE;
	}
	if (events & UV_READABLE)
		ud_rx(ep);
	if ((events & UV_WRITABLE) && ep->tx_blocked)
		ud_tx_progress(ep);
	ud_arm(ep);
	pthread_mutex_unlock(&ep->lock);
}

/* ------------------------------------------------------------------ */
/* Engine commands                                                     */

/* start_cmd: the engine watches the socket from now on. */
void sd_ud_start_cmd(struct sd_cmd *cmd)
{
	struct sd_ud_ep *ep = sd_container_of(cmd, struct sd_ud_ep, start_cmd);

	if (uv_poll_init_socket(sd_engine_loop(), &ep->poll, ep->fd) < 0) {
		sd_log("ud %s: cannot watch its socket", sd_obj_name(&ep->obj).s);
		return;
	}
	ep->poll.data = ep;
	sd_ud_svc_get();
	pthread_mutex_lock(&ep->lock);
	ep->polling = true;
	if (!ep->freed && uv_poll_start(&ep->poll, UV_READABLE, ud_poll_cb) == 0)
		ep->events = UV_READABLE;
	sd_ud_cm_take_new(ep);
	pthread_mutex_unlock(&ep->lock);
}

/* io_cmd: a consumer queued CMs or blocked on a full socket. */
void sd_ud_io_cmd(struct sd_cmd *cmd)
{
	struct sd_ud_ep *ep = sd_container_of(cmd, struct sd_ud_ep, io_cmd);

	pthread_mutex_lock(&ep->lock);
	if (!ep->freed && ep->polling) {
		sd_ud_cm_take_new(ep);
		if (ep->tx_blocked)
			ud_tx_progress(ep);	/* maybe room came already */
		ud_arm(ep);
	}
	pthread_mutex_unlock(&ep->lock);
}

/* Frees the memory of @ep; nothing else refers to it any more. */
static void ud_destroy(struct sd_ud_ep *ep)
{
	struct sd_list *pos, *next;

	pthread_mutex_lock(&sd_ud_ah_lock);
	for (pos = ep->ahs.next; pos != &ep->ahs; pos = next) {
		struct sd_ud_ah *ah = sd_container_of(pos, struct sd_ud_ah, node);

		next = pos->next;
		ah->magic = 0;
		free(ah);
	}
	pthread_mutex_unlock(&sd_ud_ah_lock);
	if (ep->fd >= 0)
		close(ep->fd);
	sd_wq_destroy(&ep->sq);
	sd_wq_destroy(&ep->rq);
	free(ep->dest);
	pthread_mutex_destroy(&ep->lock);
	free(ep);
}

static void ud_closed_cb(uv_handle_t *h)
{
	ud_destroy(h->data);
	sd_ud_svc_put();
}

/* free_cmd, after every command queued for @ep before: close and free. */
void sd_ud_free_cmd(struct sd_cmd *cmd)
{
	struct sd_ud_ep *ep = sd_container_of(cmd, struct sd_ud_ep, free_cmd);
	struct sd_list *pos;

	pthread_mutex_lock(&ep->lock);
	sd_ud_cm_ep_gone(ep);
	/* CMs a consumer made after the engine last looked: never sent. */
	while ((pos = ep->cm_new.next) != &ep->cm_new) {
		struct sd_ud_cm *cm = sd_container_of(pos, struct sd_ud_cm, node);

		sd_list_del(pos);
		cm->magic = 0;
		free(cm);
	}
	pthread_mutex_unlock(&ep->lock);
	if (ep->polling) {
		uv_poll_stop(&ep->poll);
		uv_close((uv_handle_t *)&ep->poll, ud_closed_cb);
	} else {
		ud_destroy(ep);
	}
}

/* ------------------------------------------------------------------ */
/* Release and watermarks                                              */

void sd_ud_ep_release(struct sd_ud_ep *ep)
{
	struct sd_evd *evds[3];
	struct sd_pz *pz;

	pthread_mutex_lock(&ep->lock);
	/* What was outstanding is discarded: the handle events name is gone. */
	ep->freed = true;
	ep->obj.magic = SD_MAGIC_DEAD;
	evds[0] = ep->recv_evd;
	evds[1] = ep->req_evd;
	evds[2] = ep->conn_evd;
	ep->recv_evd = ep->req_evd = ep->conn_evd = NULL;
	pz = ep->pz;
	ep->pz = NULL;
	pthread_mutex_unlock(&ep->lock);

	sd_qp_unref(&ep->obj, evds, pz, ep->srq);
	sd_engine_submit(&ep->free_cmd);
}

bool sd_ud_check_watermarks(struct sd_ud_ep *ep, bool soft)
{
	DAT_COUNT n = (DAT_COUNT)ep->rq.count;
	bool fired = false;

	if (soft && ep->soft_armed && n > ep->soft_hw) {
		ep->soft_armed = false;		/* once per setting */
		fired = true;
	}
	if (ep->hard_armed && n > ep->hard_hw &&
	    ep->state == DAT_EP_STATE_CONNECTED && !ep->freed)
		sd_ud_close(ep, DAT_CONNECTION_EVENT_BROKEN,
			    "hard high watermark exceeded");
	return fired;
}

/* ------------------------------------------------------------------ */
/* Address handles                                                     */

struct sd_ud_ah *sd_ud_ah_new(struct sd_ud_ep *ep, const struct sd_ud_dest *dest)
{
	struct sd_ud_ah *ah = calloc(1, sizeof(*ah));

	if (ah == NULL)
		return NULL;
	ah->ep = ep;
	ah->ia = ep->obj.ia;
	ah->pz = ep->pz;
	ah->dest = *dest;
	ah->dest.flags = 0;
	pthread_mutex_lock(&sd_ud_ah_lock);
	ah->magic = SD_UD_AH_MAGIC;
	sd_list_add_tail(&ep->ahs, &ah->node);
	pthread_mutex_unlock(&sd_ud_ah_lock);
	return ah;
}
