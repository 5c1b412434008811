/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unreliable datagram endpoints (DAT_IB_SERVICE_TYPE_UD): the object, the
 * provider table its handles dispatch through, address handles and the
 * data path. ext.h describes the service; udcm.c resolves the address
 * handles; udproto.h is the wire.
 *
 * A UD EP is a UDP socket bound to the IA's address (an ephemeral port),
 * a request queue and a receive queue, both rings preallocated at
 * creation like an RC EP's (COMMON-4: the post and completion paths
 * allocate nothing), and the address handles it resolved.
 *
 * States: UNCONNECTED, CONNECTED once it resolved an address handle
 * (udcm.c), DISCONNECTED after dat_ep_disconnect or a hard high
 * watermark, UNCONNECTED again after dat_ep_reset. dat_ep_modify,
 * _dup_connect, _recv_query and _set_watermark follow ep.c's rules for
 * RC EPs carried over to these states; each says how.
 *
 * THE CONTRACT is post.c's (STYLE habit 4): a post that fails
 * synchronously never completes; one that succeeds completes exactly
 * once, in post order per queue:
 *
 *   - a send once the kernel took its datagram: DAT_DTO_SUCCESS (not
 *     posted with DAT_COMPLETION_SUPPRESS_FLAG), or DAT_DTO_ERR_TRANSPORT
 *     if the kernel refused it for good (no route, say). A send that
 *     finds the socket full (EAGAIN) waits in the queue for POLLOUT; one
 *     the kernel drops for want of buffers (ENOBUFS) is sent as far as the
 *     consumer can tell: UD delivers nothing reliably;
 *   - a receive once a datagram is in it (DAT_DTO_SUCCESS), or one too
 *     small for the datagram that came (DAT_DTO_LENGTH_ERROR);
 *   - DAT_DTO_ERR_FLUSHED for what is outstanding when the EP is
 *     disconnected, and at once for a post on a DISCONNECTED EP.
 *
 * Threads. Posts run on the consumer's thread under ep->lock; a send is
 * written there and then unless sends are queued. The engine reads the
 * socket (every datagram, data or CM, under ep->lock) and finishes queued
 * sends on POLLOUT. Events are posted under ep->lock by whichever thread
 * completes. dat_ep_free marks the EP freed and hands it to the engine,
 * which closes the socket and frees it after every command queued before.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "api.h"
#include "ep.h"		/* SD_EVENT_WATERMARK */
#include "entry.h"
#include "ext.h"

/*
 * Guards every UD EP's ahs list and each address handle's magic (ext.h:
 * struct sd_ud_ah), so that a send through another EP's handle never
 * races with that handle's free. A leaf: taken under any EP lock.
 */
static pthread_mutex_t ud_ah_lock = PTHREAD_MUTEX_INITIALIZER;

/* Datagrams one poll callback reads at most (the poll fires again). */
#define UD_RX_BUDGET	256

/* Socket buffers asked for: a few maximal datagrams (capped by the kernel). */
#define UD_SOCKBUF	(4 << 20)

/* Engine: scratch space for connection datagrams and discarded bytes. */
static uint8_t ud_scratch[SD_UD_HDR_SIZE + SD_UD_MAX_PDATA];

/*
 * Numbers of UD EPs in this process (their "QP numbers", 24 bits as on
 * IB): unique, counting from a random start, atomically.
 */
static uint32_t ud_next_qpn;
static pthread_once_t ud_qpn_once = PTHREAD_ONCE_INIT;

static void ud_qpn_seed(void)
{
	uint32_t seed;

	if (getrandom(&seed, sizeof(seed), 0) != (ssize_t)sizeof(seed))
		seed = (uint32_t)getpid() << 8;
	ud_next_qpn = seed;
}

/* ------------------------------------------------------------------ */
/* Handles                                                             */

struct sd_ud_ep *sd_ud_ep_from_handle(DAT_EP_HANDLE h)
{
	struct sd_obj *o = sd_obj_check(h, SD_MAGIC_UD_EP);

	return o ? sd_container_of(o, struct sd_ud_ep, obj) : NULL;
}

/* A live UD object (EP or CR), for the generic entry points; else NULL. */
static struct sd_obj *ud_any(DAT_HANDLE h)
{
	struct sd_obj *o = sd_obj_check(h, SD_MAGIC_UD_EP);

	return o ? o : sd_obj_check(h, SD_MAGIC_UD_CR);
}

static DAT_RETURN DAT_API ud_set_consumer_context(DAT_HANDLE h, DAT_CONTEXT c)
{
	struct sd_obj *o = ud_any(h);

	if (o == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1);
	__atomic_store_n(&o->context.as_64, c.as_64, __ATOMIC_RELAXED);
	return DAT_SUCCESS;
}

static DAT_RETURN DAT_API ud_get_consumer_context(DAT_HANDLE h, DAT_CONTEXT *c)
{
	struct sd_obj *o = ud_any(h);

	if (o == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1);
	if (c == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	c->as_64 = __atomic_load_n(&o->context.as_64, __ATOMIC_RELAXED);
	return DAT_SUCCESS;
}

static DAT_RETURN DAT_API ud_get_handle_type(DAT_HANDLE h, DAT_HANDLE_TYPE *t)
{
	struct sd_obj *o = ud_any(h);

	if (o == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1);
	if (t == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	*t = o->type;
	return DAT_SUCCESS;
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
static void ud_trace_dto(struct sd_ud_ep *ep, bool recv, const struct sd_wqe *w,
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
	sd_trace("dto", sd_obj_name(&ep->obj).s, recv ? "RECV_UD" : "SEND_UD",
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
	sd_dbg("ud %s %s => %s (%s)", sd_obj_name(&ep->obj).s,
	       sd_qp_state_name(ep->state), sd_qp_state_name(to), why);
	sd_trace("state", sd_obj_name(&ep->obj).s, sd_qp_state_name(ep->state),
		 "to=%s why=\"%s\"", sd_qp_state_name(to), why);
	ep->state = to;
}

/*
 * A DTO completion of @ep: @recv on the receive EVD, else the request
 * EVD; @src (receives only, may be NULL) names the sender. Nothing once
 * the EP is freed (the handle is gone) or for a successful suppressed
 * send. ep->lock held.
 */
static void ud_dto_event(struct sd_ud_ep *ep, bool recv, const struct sd_wqe *w,
			 DAT_DTO_COMPLETION_STATUS st, uint64_t len,
			 const struct sd_ud_hdr *h,
			 const struct sockaddr_storage *src, socklen_t srclen)
{
	struct sd_evd *evd = recv ? ep->recv_evd : ep->req_evd;
	DAT_DTO_COMPLETION_EVENT_DATA *dto;
	DAT_IB_EXTENSION_EVENT_DATA *x;
	DAT_EVENT ev;
	bool notify = true;
	int r;

	if (evd == NULL || ep->freed) {
		if (sd_trace_enabled())
			ud_trace_dto(ep, recv, w, NULL, st, len, src, srclen, 0);
		return;
	}
	if (st == DAT_DTO_SUCCESS) {
		if (!recv && (w->flags & DAT_COMPLETION_SUPPRESS_FLAG)) {
			if (sd_trace_enabled())	/* SEND-2 */
				ud_trace_dto(ep, recv, w, NULL, st, len, src,
					     srclen, 0);
			return;
		}
		if (w->flags & DAT_COMPLETION_UNSIGNALLED_FLAG)
			notify = false;
		else if (recv && (ep->attr.recv_completion_flags &
				  DAT_COMPLETION_SOLICITED_WAIT_FLAG))
			notify = w->solicited;
	} else {
		len = 0;
	}
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
	/* After the post, as post.c's: ep->lock keeps this EP's order. */
	if (sd_trace_enabled())
		ud_trace_dto(ep, recv, w, evd, st, len, src, srclen, r);
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
		ud_dto_event(ep, false, &c, DAT_DTO_ERR_FLUSHED, 0, NULL, NULL, 0);
	}
	ep->tx_blocked = false;
	while ((w = sd_wq_at(&ep->rq, 0)) != NULL) {
		struct sd_wqe c = *w;

		sd_wq_pop(&ep->rq);
		ud_dto_event(ep, true, &c, DAT_DTO_ERR_FLUSHED, 0, NULL, NULL, 0);
	}
}

/* A post on a DISCONNECTED EP: flushed at once (SEND-5, RECV-7). ep->lock. */
static void ud_flush_now(struct sd_ud_ep *ep, bool recv, DAT_DTO_COOKIE cookie,
			 DAT_COMPLETION_FLAGS flags)
{
	struct sd_wqe w;

	memset(&w, 0, sizeof(w));
	w.cookie = cookie;
	w.flags = flags;
	ud_dto_event(ep, recv, &w, DAT_DTO_ERR_FLUSHED, 0, NULL, NULL, 0);
}

/*
 * Ends @ep for good until dat_ep_reset: DISCONNECTED, everything
 * outstanding flushed, address resolutions in progress abandoned (they
 * stop counting at once; the engine drops them), connection event @ev.
 * ep->lock held; any thread (the engine too).
 */
static void ud_close(struct sd_ud_ep *ep, DAT_EVENT_NUMBER ev, const char *why)
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
static int ud_send_data(struct sd_ud_ep *ep, struct sd_ud_dest *d,
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
		int r = ud_send_data(ep, &ep->dest[slot], w->sge, w->nsge);

		if (r == -EAGAIN) {
			ep->tx_blocked = true;
			return;
		}
		c = *w;
		sd_wq_pop(&ep->sq);
		ud_dto_event(ep, false, &c, r == 0 ? DAT_DTO_SUCCESS :
			     DAT_DTO_ERR_TRANSPORT, c.len, NULL, NULL, 0);
	}
	ep->tx_blocked = false;
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
		ud_dto_event(ep, true, &c, st, len, h, src, srclen);
	else
		ud_dto_event(ep, true, &c, st, 0, NULL, NULL, 0);
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
static void ud_start_cmd(struct sd_cmd *cmd)
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
static void ud_io_cmd(struct sd_cmd *cmd)
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

	pthread_mutex_lock(&ud_ah_lock);
	for (pos = ep->ahs.next; pos != &ep->ahs; pos = next) {
		struct sd_ud_ah *ah = sd_container_of(pos, struct sd_ud_ah, node);

		next = pos->next;
		ah->magic = 0;
		free(ah);
	}
	pthread_mutex_unlock(&ud_ah_lock);
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
static void ud_free_cmd(struct sd_cmd *cmd)
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
/* Creation                                                            */

/*
 * Checks the attributes of a UD EP and fills in its defaults. The RDMA
 * attributes mean nothing for datagrams: they are accepted and reported
 * as 0; nor does max_recv_dtos for an EP of an SRQ (@srq), as ep.c.
 */
static bool ud_attr(const DAT_EP_ATTR *in, DAT_EP_ATTR *a, bool srq)
{
	const DAT_COMPLETION_FLAGS all = SD_COMPLETION_FLAGS_ALL;

	*a = *in;
	if (a->max_message_size > SD_UD_MAX_MSG ||
	    (a->recv_completion_flags & ~all) ||
	    (a->request_completion_flags & ~all) ||
	    (!srq && (a->max_recv_dtos < 0 ||
		      a->max_recv_dtos > SD_MAX_DTO_PER_EP)) ||
	    a->max_request_dtos < 0 || a->max_request_dtos > SD_MAX_DTO_PER_EP ||
	    a->max_recv_iov < 0 || a->max_recv_iov > SD_MAX_IOV ||
	    a->max_request_iov < 0 || a->max_request_iov > SD_MAX_IOV)
		return false;
	if (a->max_message_size == 0)
		a->max_message_size = SD_UD_MAX_MSG;
	a->max_rdma_size = 0;
	a->max_rdma_read_in = a->max_rdma_read_out = 0;
	a->max_rdma_read_iov = a->max_rdma_write_iov = 0;
	a->ep_transport_specific_count = 0;
	a->ep_transport_specific = NULL;
	a->ep_provider_specific_count = 0;
	a->ep_provider_specific = NULL;
	return true;
}

/*
 * The UDP socket of a UD EP of @ia: bound to the IA's address (its
 * family's wildcard when ia_params named one), an ephemeral port. The
 * descriptor, or -errno.
 */
static int ud_socket(struct sd_ia *ia, struct sockaddr_storage *local,
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

/*
 * A UD EP of @ia, dat_ep_create's checks in ep.c's order; its receives
 * come from the SRQ of @srq_h unless that is DAT_HANDLE_NULL, which moves
 * the argument numbers after it, as dat_ep_create_with_srq does.
 */
static DAT_RETURN ud_ep_create(struct sd_ia *ia, DAT_PZ_HANDLE pz_handle,
			       DAT_EVD_HANDLE recv_h, DAT_EVD_HANDLE req_h,
			       DAT_EVD_HANDLE conn_h, DAT_SRQ_HANDLE srq_h,
			       const DAT_EP_ATTR *attr, DAT_EP_HANDLE *out)
{
	struct sd_srq *srq = NULL;
	struct sd_evd *recv_evd, *req_evd, *conn_evd;
	struct sd_pz *pz = NULL;
	struct sd_ud_ep *ep;
	DAT_EP_ATTR a;
	int fd;

	if (pz_handle != DAT_HANDLE_NULL) {
		struct sd_obj *o = sd_obj_check(pz_handle, SD_MAGIC_PZ);

		if (o == NULL || o->ia != ia)
			return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
		pz = sd_container_of(o, struct sd_pz, obj);
	}
	if (sd_evq_from_handle(recv_h, DAT_EVD_DTO_FLAG, ia, &recv_evd) < 0)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_RECV);
	if (sd_evq_from_handle(req_h, DAT_EVD_DTO_FLAG, ia, &req_evd) < 0)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST);
	if (sd_evq_from_handle(conn_h, DAT_EVD_CONNECTION_FLAG, ia,
			       &conn_evd) < 0)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_CONN);
	if (srq_h != DAT_HANDLE_NULL) {
		srq = sd_srq_from_handle(srq_h);
		if (srq == NULL || srq->obj.ia != ia)
			return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_SRQ);
	}
	if (out == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, srq ? DAT_INVALID_ARG8 :
							    DAT_INVALID_ARG7);
	if (!ud_attr(attr, &a, srq != NULL))
		return SD_ERR(DAT_INVALID_PARAMETER, srq ? DAT_INVALID_ARG7 :
							    DAT_INVALID_ARG6);

	sd_ud_provider_init();
	ep = calloc(1, sizeof(*ep));
	if (ep == NULL)
		return SD_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	ep->fd = -1;
	if (sd_wq_init(&ep->sq, (uint32_t)a.max_request_dtos,
		       (uint32_t)a.max_request_iov) < 0 ||
	    sd_wq_init(&ep->rq, srq ? 0 : (uint32_t)a.max_recv_dtos,
		       (uint32_t)a.max_recv_iov) < 0 ||
	    (a.max_request_dtos > 0 &&
	     (ep->dest = calloc((size_t)a.max_request_dtos, sizeof(*ep->dest))) == NULL))
		goto nomem;
	fd = ud_socket(ia, &ep->local, &ep->local_len);
	if (fd < 0) {
		sd_dbg("ud ep: cannot open its socket: %s", strerror(-fd));
		sd_wq_destroy(&ep->sq);
		sd_wq_destroy(&ep->rq);
		free(ep->dest);
		free(ep);
		return SD_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_DEVICE);
	}
	ep->fd = fd;
	if (getrandom(&ep->qkey, sizeof(ep->qkey), 0) != (ssize_t)sizeof(ep->qkey))
		ep->qkey = (uint32_t)(uintptr_t)ep ^ 0x5a5aa5a5u;
	pthread_once(&ud_qpn_once, ud_qpn_seed);
	do	/* never 0: the wire reserves it */
		ep->qpn = __atomic_fetch_add(&ud_next_qpn, 1, __ATOMIC_RELAXED) &
			  0xffffff;
	while (ep->qpn == 0);

	ep->obj.provider = &sd_ud_provider;
	ep->obj.magic = SD_MAGIC_UD_EP;
	ep->obj.type = DAT_HANDLE_TYPE_EP;
	ep->obj.num = sd_obj_number(DAT_HANDLE_TYPE_EP);
	ep->obj.ia = ia;
	ep->obj.context.as_64 = 0;
	sd_list_init(&ep->obj.node);
	pthread_mutex_init(&ep->lock, NULL);
	ep->state = DAT_EP_STATE_UNCONNECTED;
	ep->attr = a;
	ep->soft_hw = ep->hard_hw = DAT_WATERMARK_INFINITE;
	ep->pz = pz;
	ep->recv_evd = recv_evd;
	ep->req_evd = req_evd;
	ep->conn_evd = conn_evd;
	ep->srq = srq;
	sd_list_init(&ep->ahs);
	sd_list_init(&ep->cm_new);
	sd_list_init(&ep->cms);
	ep->start_cmd.fn = ud_start_cmd;
	ep->io_cmd.fn = ud_io_cmd;
	ep->free_cmd.fn = ud_free_cmd;

	pthread_mutex_lock(&ia->lock);
	if (pz)
		pz->refs++;
	if (recv_evd)
		recv_evd->refs++;
	if (req_evd)
		req_evd->refs++;
	if (conn_evd)
		conn_evd->refs++;
	if (srq)
		srq->eps++;
	sd_list_add_tail(&ia->ud_eps, &ep->obj.node);
	pthread_mutex_unlock(&ia->lock);
	sd_cnt_inc(ia->cnt, DCNT_IA_EP_CREATE);
	sd_engine_submit(&ep->start_cmd);
	sd_dbg("ud ep %p: qpn 0x%x", (void *)ep, ep->qpn);
	*out = (DAT_EP_HANDLE)ep;
	return DAT_SUCCESS;
nomem:
	sd_wq_destroy(&ep->sq);
	sd_wq_destroy(&ep->rq);
	free(ep->dest);
	free(ep);
	return SD_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
}

DAT_RETURN DAT_API sd_ext_ep_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE pz,
				    DAT_EVD_HANDLE recv_evd,
				    DAT_EVD_HANDLE req_evd,
				    DAT_EVD_HANDLE conn_evd,
				    const DAT_EP_ATTR *attr, DAT_EP_HANDLE *ep)
{
	struct sd_ia *ia;

	if (attr == NULL ||
	    attr->service_type != (DAT_SERVICE_TYPE)DAT_IB_SERVICE_TYPE_UD)
		return sd_ep_create(ia_handle, pz, recv_evd, req_evd, conn_evd,
				    attr, ep);
	ia = sd_ia_from_handle(ia_handle);
	if (ia == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	return ud_ep_create(ia, pz, recv_evd, req_evd, conn_evd,
			    DAT_HANDLE_NULL, attr, ep);
}

DAT_RETURN DAT_API sd_ext_ep_create_with_srq(DAT_IA_HANDLE ia_handle,
					     DAT_PZ_HANDLE pz,
					     DAT_EVD_HANDLE recv_evd,
					     DAT_EVD_HANDLE req_evd,
					     DAT_EVD_HANDLE conn_evd,
					     DAT_SRQ_HANDLE srq_h,
					     const DAT_EP_ATTR *attr,
					     DAT_EP_HANDLE *ep)
{
	struct sd_ia *ia;

	if (attr == NULL ||
	    attr->service_type != (DAT_SERVICE_TYPE)DAT_IB_SERVICE_TYPE_UD)
		return sd_ep_create_with_srq(ia_handle, pz, recv_evd, req_evd,
					     conn_evd, srq_h, attr, ep);
	ia = sd_ia_from_handle(ia_handle);
	if (ia == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	if (srq_h == DAT_HANDLE_NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_SRQ);
	return ud_ep_create(ia, pz, recv_evd, req_evd, conn_evd, srq_h, attr, ep);
}

/* ------------------------------------------------------------------ */
/* Query, state, free                                                  */

static DAT_RETURN DAT_API ud_ep_query(DAT_EP_HANDLE h, DAT_EP_PARAM_MASK mask,
				      DAT_EP_PARAM *p)
{
	struct sd_ud_ep *ep = sd_ud_ep_from_handle(h);
	/* A datagram EP has no one peer: an address of no family. */
	static struct sockaddr_storage none;

	if (ep == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	if (p == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	(void)mask;	/* all of it, as ep.c */
	memset(p, 0, sizeof(*p));
	pthread_mutex_lock(&ep->lock);
	p->ia_handle = sd_ia_handle(ep->obj.ia);
	p->ep_state = ep->state;
	p->local_ia_address_ptr = (DAT_IA_ADDRESS_PTR)&ep->local;
	p->local_port_qual = ntohs(ep->local.ss_family == AF_INET6 ?
				   ((struct sockaddr_in6 *)&ep->local)->sin6_port :
				   ((struct sockaddr_in *)&ep->local)->sin_port);
	p->remote_ia_address_ptr = (DAT_IA_ADDRESS_PTR)&none;
	p->pz_handle = (DAT_PZ_HANDLE)ep->pz;
	p->recv_evd_handle = (DAT_EVD_HANDLE)ep->recv_evd;
	p->request_evd_handle = (DAT_EVD_HANDLE)ep->req_evd;
	p->connect_evd_handle = (DAT_EVD_HANDLE)ep->conn_evd;
	p->srq_handle = (DAT_SRQ_HANDLE)ep->srq;
	p->ep_attr = ep->attr;
	pthread_mutex_unlock(&ep->lock);
	return DAT_SUCCESS;
}

static DAT_RETURN DAT_API ud_ep_get_status(DAT_EP_HANDLE h, DAT_EP_STATE *state,
					   DAT_BOOLEAN *recv_idle,
					   DAT_BOOLEAN *req_idle)
{
	struct sd_ud_ep *ep = sd_ud_ep_from_handle(h);

	if (ep == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	pthread_mutex_lock(&ep->lock);
	if (state)
		*state = ep->state;
	if (recv_idle)
		*recv_idle = ep->rq.count == 0 ? DAT_TRUE : DAT_FALSE;
	if (req_idle)
		*req_idle = ep->sq.count == 0 ? DAT_TRUE : DAT_FALSE;
	pthread_mutex_unlock(&ep->lock);
	return DAT_SUCCESS;
}

/*
 * dat_ep_disconnect on a UD EP: it has no connection to end, but the
 * consumer is done with it: DISCONNECTED, everything outstanding
 * flushed, attempts in progress abandoned (the engine drops them), and
 * DAT_CONNECTION_EVENT_DISCONNECTED as for any EP that leaves.
 */
static DAT_RETURN DAT_API ud_ep_disconnect(DAT_EP_HANDLE h, DAT_CLOSE_FLAGS flags)
{
	struct sd_ud_ep *ep = sd_ud_ep_from_handle(h);

	if (ep == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	if (flags != DAT_CLOSE_ABRUPT_FLAG && flags != DAT_CLOSE_GRACEFUL_FLAG)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	pthread_mutex_lock(&ep->lock);
	if (ep->state != DAT_EP_STATE_DISCONNECTED)
		ud_close(ep, DAT_CONNECTION_EVENT_DISCONNECTED, "disconnect");
	pthread_mutex_unlock(&ep->lock);
	return DAT_SUCCESS;
}

static DAT_RETURN DAT_API ud_ep_reset(DAT_EP_HANDLE h)
{
	struct sd_ud_ep *ep = sd_ud_ep_from_handle(h);
	DAT_RETURN ret = DAT_SUCCESS;

	if (ep == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	pthread_mutex_lock(&ep->lock);
	if (ep->state == DAT_EP_STATE_DISCONNECTED) {
		sd_ud_set_state(ep, DAT_EP_STATE_UNCONNECTED, "dat_ep_reset");
		ep->has_remote = false;	/* as ep.c forgets the peer */
	} else if (ep->state != DAT_EP_STATE_UNCONNECTED) {
		ret = SD_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_CONNECTED);
	}
	pthread_mutex_unlock(&ep->lock);
	return ret;
}

void sd_ud_ep_release(struct sd_ud_ep *ep)
{
	struct sd_ia *ia = ep->obj.ia;
	struct sd_evd *evds[3];
	struct sd_pz *pz;
	unsigned i;

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

	pthread_mutex_lock(&ia->lock);
	/* Counted while the EP is the IA's (see sd_pz_free). */
	sd_cnt_inc(ia->cnt, DCNT_IA_EP_FREE);
	sd_list_del(&ep->obj.node);
	for (i = 0; i < 3; i++)
		if (evds[i])
			evds[i]->refs--;
	if (pz)
		pz->refs--;
	if (ep->srq)
		ep->srq->eps--;
	pthread_mutex_unlock(&ia->lock);
	sd_engine_submit(&ep->free_cmd);
}

static DAT_RETURN DAT_API ud_ep_free(DAT_EP_HANDLE h)
{
	struct sd_ud_ep *ep = sd_ud_ep_from_handle(h);

	if (ep == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	sd_ud_ep_release(ep);
	return DAT_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Posts                                                               */

/*
 * What a post checks against the EP: its PZ, the completion flags it
 * allows and its segment limit for the queue posted to (@recv), read at
 * once under ep->lock since dat_ep_modify may change them. A modify that
 * lands between this and the post's own locked section is caught there
 * (the ring's max_sge). Any thread; allocates nothing.
 */
struct ud_post_attr {
	struct sd_pz		*pz;
	DAT_COMPLETION_FLAGS	flags;
	DAT_COUNT		max_iov;
};

static void ud_post_attr(struct sd_ud_ep *ep, bool recv, struct ud_post_attr *pa)
{
	pthread_mutex_lock(&ep->lock);
	pa->pz = ep->pz;
	pa->flags = recv ? ep->attr.recv_completion_flags :
			   ep->attr.request_completion_flags;
	pa->max_iov = recv ? ep->attr.max_recv_iov : ep->attr.max_request_iov;
	pthread_mutex_unlock(&ep->lock);
}

/* The live address handle of @ep behind @a, or NULL. ep->lock held. */
/*
 * The live address handle of @a that @ep may use: one of its IA, made
 * in its PZ. NULL if there is none. ud_ah_lock held.
 */
static struct sd_ud_ah *ud_ah_check(const struct sd_ud_ep *ep,
				    const DAT_IB_ADDR_HANDLE *a)
{
	struct sd_ud_ah *ah = (struct sd_ud_ah *)(void *)a->ah;

	if ((uintptr_t)ah < SD_HANDLE_MIN || ah->magic != SD_UD_AH_MAGIC ||
	    ah->ia != ep->obj.ia || ah->pz != ep->pz)
		return NULL;
	return ah;
}

/* Where @a sends, for @ep, into @d; false if @ep may not use it. */
static bool ud_ah_dest(const struct sd_ud_ep *ep, const DAT_IB_ADDR_HANDLE *a,
		       struct sd_ud_dest *d)
{
	struct sd_ud_ah *ah;

	pthread_mutex_lock(&ud_ah_lock);
	ah = ud_ah_check(ep, a);
	if (ah != NULL)
		*d = ah->dest;
	pthread_mutex_unlock(&ud_ah_lock);
	return ah != NULL;
}

DAT_RETURN sd_ud_post_send(DAT_EP_HANDLE h, DAT_COUNT n,
			   const DAT_LMR_TRIPLET *iov,
			   const DAT_IB_ADDR_HANDLE *a, DAT_DTO_COOKIE cookie,
			   DAT_COMPLETION_FLAGS flags)
{
	struct sd_ud_ep *ep = sd_ud_ep_from_handle(h);
	struct sd_sge sge[SD_MAX_IOV];
	struct ud_post_attr pa;
	struct sd_ud_dest d;
	struct sd_wqe *w;
	DAT_RETURN ret;
	uint64_t total;
	uint16_t nsge = 0;
	int r;

	/* dat_ib_post_send_ud(ep, segments, lbuf, ah, cookie, flags) */
	if (ep == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	ud_post_attr(ep, false, &pa);
	if (!sd_api_flags_ok(flags, pa.flags))
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
	if (a == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	ret = sd_api_err(sd_mem_resolve_iov(ep->obj.ia, pa.pz, n, iov,
					    pa.max_iov,
					    DAT_MEM_PRIV_LOCAL_READ_FLAG, sge,
					    &nsge, &total),
			 &(struct sd_argpos){ .count = DAT_INVALID_ARG2,
					      .iov = DAT_INVALID_ARG3 });
	if (ret != DAT_SUCCESS)
		return ret;
	if (total > SD_UD_MAX_MSG)	/* one datagram's worth */
		return SD_ERR(DAT_LENGTH_ERROR, 0);

	pthread_mutex_lock(&ep->lock);
	if (ep->freed) {
		ret = SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
		goto out;
	}
	if (!ud_ah_dest(ep, a, &d)) {
		ret = SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
		goto out;
	}
	if (ep->state == DAT_EP_STATE_DISCONNECTED) {
		ud_flush_now(ep, false, cookie, flags);
		goto out;
	}
	d.flags = (flags & DAT_COMPLETION_SOLICITED_WAIT_FLAG) ? SD_UD_F_SE : 0;
	if (ep->sq.count == 0) {
		struct sd_wqe c;

		/* Nothing queued: out now, complete now. */
		r = ud_send_data(ep, &d, sge, nsge);
		if (r != -EAGAIN) {
			memset(&c, 0, sizeof(c));
			c.cookie = cookie;
			c.flags = flags;
			ud_dto_event(ep, false, &c, r == 0 ? DAT_DTO_SUCCESS :
				     DAT_DTO_ERR_TRANSPORT, total, NULL, NULL, 0);
			goto out;
		}
	}
	if (nsge > ep->sq.max_sge) {	/* dat_ep_modify shrank it meanwhile */
		ret = SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
		goto out;
	}
	w = sd_wq_next(&ep->sq);
	if (w == NULL) {			/* COMMON-8 */
		ret = SD_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP);
		goto out;
	}
	w->cookie = cookie;
	w->flags = flags;
	w->op = SD_WR_SEND;
	w->status = 0;
	w->nsge = nsge;
	w->len = total;
	w->done = 0;
	memcpy(w->sge, sge, nsge * sizeof(*sge));
	ep->dest[w - ep->sq.wqe] = d;
	sd_wq_push(&ep->sq);
	if (!ep->tx_blocked) {
		ep->tx_blocked = true;
		sd_engine_submit(&ep->io_cmd);	/* POLLOUT */
	}
out:
	if (ret == DAT_SUCCESS) {
		sd_cnt_inc(ep->cnt, DCNT_EP_POST_SEND_UD);
		sd_cnt_add(ep->cnt, DCNT_EP_POST_SEND_UD_DATA, total);
	}
	pthread_mutex_unlock(&ep->lock);
	return ret;
}

static DAT_RETURN DAT_API ud_post_recv(DAT_EP_HANDLE h, DAT_COUNT n,
				       DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
				       DAT_COMPLETION_FLAGS flags)
{
	struct sd_ud_ep *ep = sd_ud_ep_from_handle(h);
	struct sd_sge sge[SD_MAX_IOV];
	struct ud_post_attr pa;
	struct sd_ia *ia;
	struct sd_wqe *w;
	DAT_RETURN ret;
	uint64_t total;
	uint16_t nsge = 0;
	bool soft = false;

	if (ep == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	if (ep->srq != NULL)	/* its receives come from the SRQ */
		return SD_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_SRQ_IN_USE);
	ud_post_attr(ep, true, &pa);
	if (!sd_api_flags_ok(flags, pa.flags))	/* RECV-4 */
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	ia = ep->obj.ia;
	ret = sd_api_err(sd_mem_resolve_iov(ia, pa.pz, n, iov, pa.max_iov,
					    DAT_MEM_PRIV_LOCAL_WRITE_FLAG, sge,
					    &nsge, &total),
			 &(struct sd_argpos){ .count = DAT_INVALID_ARG2,
					      .iov = DAT_INVALID_ARG3,
					      .write = true });
	if (ret != DAT_SUCCESS)
		return ret;

	pthread_mutex_lock(&ep->lock);
	if (ep->freed) {
		ret = SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
		goto out;
	}
	if (ep->state == DAT_EP_STATE_DISCONNECTED) {	/* RECV-7 */
		ud_flush_now(ep, true, cookie, flags);
		goto out;
	}
	if (nsge > ep->rq.max_sge) {	/* dat_ep_modify shrank it meanwhile */
		ret = SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
		goto out;
	}
	w = sd_wq_next(&ep->rq);
	if (w == NULL) {
		ret = SD_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP);
		goto out;
	}
	w->cookie = cookie;
	w->flags = flags;
	w->op = SD_WR_RECV;
	w->status = 0;
	w->nsge = nsge;
	w->len = total;
	w->done = 0;
	w->solicited = false;
	memcpy(w->sge, sge, nsge * sizeof(*sge));
	sd_wq_push(&ep->rq);
	/* The count rose: dat_ep_set_watermark's watermarks, if armed. */
	if (ep->soft_armed || ep->hard_armed)
		soft = sd_ud_check_watermarks(ep, true);
out:
	if (ret == DAT_SUCCESS) {
		sd_cnt_inc(ep->cnt, DCNT_EP_POST_RECV);
		sd_cnt_add(ep->cnt, DCNT_EP_POST_RECV_DATA, total);
	}
	pthread_mutex_unlock(&ep->lock);
	if (soft)
		sd_async_error(ia, SD_EVENT_WATERMARK, h,
			       DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT);
	return ret;
}

/* RC operations: a datagram EP has no RDMA and no connection to send on. */
static DAT_RETURN DAT_API ud_post_send(DAT_EP_HANDLE h, DAT_COUNT n,
				       DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE c,
				       DAT_COMPLETION_FLAGS f)
{
	(void)n; (void)iov; (void)c; (void)f;
	if (sd_ud_ep_from_handle(h) == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	/* A datagram needs an address handle: dat_ib_post_send_ud. */
	return SD_ERR(DAT_MODEL_NOT_SUPPORTED, 0);
}

static DAT_RETURN DAT_API ud_post_rdma(DAT_EP_HANDLE h, DAT_COUNT n,
				       DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE c,
				       const DAT_RMR_TRIPLET *r,
				       DAT_COMPLETION_FLAGS f)
{
	(void)n; (void)iov; (void)c; (void)r; (void)f;
	if (sd_ud_ep_from_handle(h) == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	return SD_ERR(DAT_MODEL_NOT_SUPPORTED, 0);
}

static DAT_RETURN DAT_API ud_post_send_inv(DAT_EP_HANDLE h, DAT_COUNT n,
					   DAT_LMR_TRIPLET *iov,
					   DAT_DTO_COOKIE c,
					   DAT_COMPLETION_FLAGS f,
					   DAT_BOOLEAN inv, DAT_RMR_CONTEXT ctx)
{
	(void)inv; (void)ctx;
	return ud_post_send(h, n, iov, c, f);
}

static DAT_RETURN DAT_API ud_post_read_to_rmr(DAT_EP_HANDLE h,
					      const DAT_RMR_TRIPLET *l,
					      DAT_DTO_COOKIE c,
					      const DAT_RMR_TRIPLET *r,
					      DAT_COMPLETION_FLAGS f)
{
	(void)l; (void)c; (void)r; (void)f;
	if (sd_ud_ep_from_handle(h) == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	return SD_ERR(DAT_MODEL_NOT_SUPPORTED, 0);
}

/* ------------------------------------------------------------------ */
/* Modify, dup_connect, receive query, watermarks                      */

/* DAT_INVALID_STATE with the subtype of @ep's state. ep->lock. */
static DAT_RETURN ud_bad_state(const struct sd_ud_ep *ep)
{
	switch (ep->state) {
	case DAT_EP_STATE_UNCONNECTED:
		return SD_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_UNCONNECTED);
	case DAT_EP_STATE_CONNECTED:
		return SD_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_CONNECTED);
	default:
		return SD_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_DISCONNECTED);
	}
}

/* Swaps in @to as the EVD reference of @slot. ia->lock. */
static void ud_swap_ref(struct sd_evd **slot, struct sd_evd *to)
{
	if (*slot == to)
		return;
	if (*slot)
		(*slot)->refs--;
	if (to)
		to->refs++;
	*slot = to;
}

/*
 * dat_ep_modify on a UD EP: ep.c's rules (sd_ep_modify) carried over to
 * the states a UD EP has.
 *
 *   - What may change: the PZ, the three EVDs (live EVDs of this IA
 *     accepting their stream, as dat_ep_create takes them, or NULL), the
 *     completion flags, the queue depths and segment counts (within the
 *     limits dat_ep_create enforces), max_message_size (at most a
 *     datagram's worth; 0: that), qos and srq_soft_hw (>= 0 or
 *     DAT_WATERMARK_INFINITE; the attribute only, dat_ep_set_watermark
 *     arms the watermark). The RDMA attributes are accepted and stay 0,
 *     as at creation. The consumer context is dat_set_consumer_context's.
 *   - When: only while the EP is quiescent, which for a UD EP means
 *     UNCONNECTED with no address handle being resolved. OFED's EP is
 *     ACTIVE_ or PASSIVE_CONNECTION_PENDING from dat_ep_connect or
 *     dat_cr_accept until the handle comes, and CONNECTED after, and its
 *     dapl_ep_modify refuses both, as an InfiniBand UD QP in RTS cannot
 *     change its CQs or queue sizes: here an attempt in progress is
 *     refused with DAT_INVALID_STATE_EP_ACTCONNPENDING (connect) or
 *     _PASSCONNPENDING (accept) although dat_ep_get_status says
 *     UNCONNECTED, CONNECTED and DISCONNECTED with their own subtypes
 *     (dat_ep_reset makes a DISCONNECTED EP UNCONNECTED again).
 *   - The receive completion flags only with no receive posted; new
 *     depths or segment counts reallocate the queues, only with nothing
 *     posted (DAT_INVALID_STATE with the state's subtype otherwise).
 *   - Service type: only DAT_IB_SERVICE_TYPE_UD (an EP cannot change its
 *     service), else DAT_INVALID_PARAMETER (DAT_INVALID_ARG3), as ep.c
 *     accepts only RC. Transport- and provider-specific attributes: none
 *     exist, so only a count of 0 (DAT_INVALID_ARG3).
 *   - The IA, state, communicator, addresses, port qualifiers and SRQ
 *     cannot be modified, nor can unknown mask bits be named:
 *     DAT_INVALID_PARAMETER (DAT_INVALID_ARG2).
 *
 * Checked in ep.c's order: DAT_INVALID_HANDLE (EP; PZ, EVD_RECV,
 * EVD_REQUEST, EVD_CONN for fields in @mask), DAT_INVALID_PARAMETER
 * (ARG3 for a NULL @p, ARG2, ARG3), DAT_INVALID_STATE, then
 * DAT_INSUFFICIENT_RESOURCES (DAT_RESOURCE_MEMORY) when new queues cannot
 * be allocated; a failed call changes nothing. The checks that need no
 * EP, and the copy of the masked attributes, are ep.c's own
 * (sd_api_modify_args, sd_api_modify_attr_check, sd_api_attr_take).
 * Handles in @p are read only for the fields @mask names. Any consumer
 * thread, no lock held: takes ia->lock (EVD and PZ references), then
 * ep->lock. Allocates (the queues), but not on the data path.
 */
static DAT_RETURN DAT_API ud_ep_modify(DAT_EP_HANDLE h, DAT_EP_PARAM_MASK mask,
				       const DAT_EP_PARAM *p)
{
	struct sd_ud_ep *ep = sd_ud_ep_from_handle(h);
	struct sd_evd *recv_evd = NULL, *req_evd = NULL, *conn_evd = NULL;
	struct sd_ud_dest *dest = NULL;
	struct sd_wq sq, rq;
	struct sd_pz *pz;
	DAT_RETURN ret;
	DAT_EP_ATTR in, a;
	struct sd_ia *ia;
	bool requeue;

	if (ep == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	ia = ep->obj.ia;
	ret = sd_api_modify_args(ia, mask, p, &pz);
	if (ret != DAT_SUCCESS)
		return ret;
	if (mask & DAT_EP_FIELD_RECV_EVD_HANDLE) {
		if (sd_evq_from_handle(p->recv_evd_handle, DAT_EVD_DTO_FLAG,
				       ia, &recv_evd) < 0)
			return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_RECV);
	}
	if (mask & DAT_EP_FIELD_REQUEST_EVD_HANDLE) {
		if (sd_evq_from_handle(p->request_evd_handle, DAT_EVD_DTO_FLAG,
				       ia, &req_evd) < 0)
			return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST);
	}
	if (mask & DAT_EP_FIELD_CONNECT_EVD_HANDLE) {
		if (sd_evq_from_handle(p->connect_evd_handle,
				       DAT_EVD_CONNECTION_FLAG, ia, &conn_evd) < 0)
			return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_CONN);
	}
	ret = sd_api_modify_attr_check(mask, &p->ep_attr,
				      (DAT_SERVICE_TYPE)DAT_IB_SERVICE_TYPE_UD);
	if (ret != DAT_SUCCESS)
		return ret;

	/* ia->lock for the references, then ep->lock (the lock order). */
	pthread_mutex_lock(&ia->lock);
	pthread_mutex_lock(&ep->lock);
	in = ep->attr;
	sd_api_attr_take(&in, mask, &p->ep_attr);
	if (!ud_attr(&in, &a, ep->srq != NULL)) {
		ret = SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
		goto out;
	}

	/* The state: quiescent only (see above). */
	if (ep->freed) {
		ret = SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
		goto out;
	}
	if (ep->state != DAT_EP_STATE_UNCONNECTED) {
		ret = ud_bad_state(ep);
		goto out;
	}
	if (ep->cm_act > 0 || ep->cm_pas > 0) {
		ret = SD_ERR(DAT_INVALID_STATE, ep->cm_act > 0 ?
			     DAT_INVALID_STATE_EP_ACTCONNPENDING :
			     DAT_INVALID_STATE_EP_PASSCONNPENDING);
		goto out;
	}
	if (a.recv_completion_flags != ep->attr.recv_completion_flags &&
	    ep->rq.count > 0) {
		ret = ud_bad_state(ep);
		goto out;
	}
	requeue = a.max_recv_dtos != ep->attr.max_recv_dtos ||
		  a.max_request_dtos != ep->attr.max_request_dtos ||
		  a.max_recv_iov != ep->attr.max_recv_iov ||
		  a.max_request_iov != ep->attr.max_request_iov;
	if (requeue) {
		/* Only with nothing posted: receives may be queued. */
		if (ep->sq.count > 0 || ep->rq.count > 0) {
			ret = ud_bad_state(ep);
			goto out;
		}
		memset(&sq, 0, sizeof(sq));
		memset(&rq, 0, sizeof(rq));
		if (sd_wq_init(&sq, (uint32_t)a.max_request_dtos,
			       (uint32_t)a.max_request_iov) < 0 ||
		    sd_wq_init(&rq, ep->srq ? 0 : (uint32_t)a.max_recv_dtos,
			       (uint32_t)a.max_recv_iov) < 0 ||
		    (a.max_request_dtos > 0 &&
		     (dest = calloc((size_t)a.max_request_dtos,
				    sizeof(*dest))) == NULL)) {
			sd_wq_destroy(&sq);
			sd_wq_destroy(&rq);
			ret = SD_ERR(DAT_INSUFFICIENT_RESOURCES,
				     DAT_RESOURCE_MEMORY);
			goto out;
		}
		sd_wq_destroy(&ep->sq);
		sd_wq_destroy(&ep->rq);
		free(ep->dest);
		ep->sq = sq;
		ep->rq = rq;
		ep->dest = dest;
		ep->tx_blocked = false;
	}
	ep->attr = a;
	if (mask & DAT_EP_FIELD_PZ_HANDLE && ep->pz != pz) {
		if (ep->pz)
			ep->pz->refs--;
		if (pz)
			pz->refs++;
		ep->pz = pz;
	}
	if (mask & DAT_EP_FIELD_RECV_EVD_HANDLE)
		ud_swap_ref(&ep->recv_evd, recv_evd);
	if (mask & DAT_EP_FIELD_REQUEST_EVD_HANDLE)
		ud_swap_ref(&ep->req_evd, req_evd);
	if (mask & DAT_EP_FIELD_CONNECT_EVD_HANDLE)
		ud_swap_ref(&ep->conn_evd, conn_evd);
out:
	pthread_mutex_unlock(&ep->lock);
	pthread_mutex_unlock(&ia->lock);
	return ret;
}

/*
 * dat_ep_dup_connect on a UD EP (DAT 2.0, 6.5.8): resolves, for @h, an
 * address handle to the same remote as @dup's: the service point (remote
 * address and connection qualifier) that @dup's last dat_ep_connect (or
 * dat_ep_dup_connect) asked and got its address handle from. It is that
 * dat_ep_connect on @h, with @timeout, @pdata and @qos and the default
 * flags: one more independent attempt, ESTABLISHED (DAT_IB_UD_REMOTE_AH)
 * or REJECT/ERROR on @h's connection EVD. As OFED's dapl_ep_dup_connect,
 * which reads the dup EP's remote address and qualifier under its lock
 * and calls dapl_ep_connect, @dup must be CONNECTED. As ep.c, it must be
 * of the same IA and have asked for its handle itself: an EP that has
 * only accepted requests knows its peers' sockets, not a service point
 * of theirs (DAT_INVALID_PARAMETER, DAT_INVALID_ARG2). Unlike RC, where
 * @dup == @h cannot be both unconnected and connected, a UD EP may
 * resolve any number of handles, so @dup may be @h itself.
 *
 * Returns DAT_SUCCESS; DAT_INVALID_HANDLE (DAT_INVALID_HANDLE_EP: @h or
 * @dup not a live UD EP, or of another IA); DAT_INVALID_PARAMETER
 * (ARG3 @timeout 0, ARG4/ARG5 the private data, ARG2 as above);
 * DAT_INVALID_STATE (@dup not CONNECTED: the subtype of its state; @h
 * DISCONNECTED or without a connection EVD, as dat_ep_connect); or what
 * dat_ep_connect returns (DAT_INSUFFICIENT_RESOURCES). Any consumer
 * thread, no lock held: takes @dup's lock, drops it, then @h's (one EP
 * lock at a time).
 */
static DAT_RETURN DAT_API ud_ep_dup_connect(DAT_EP_HANDLE h, DAT_EP_HANDLE dup_h,
					    DAT_TIMEOUT timeout,
					    DAT_COUNT pdata_size,
					    const DAT_PVOID pdata, DAT_QOS qos)
{
	struct sd_ud_ep *ep = sd_ud_ep_from_handle(h);
	struct sd_ud_ep *dup = sd_ud_ep_from_handle(dup_h);
	struct sockaddr_storage ss;
	DAT_CONN_QUAL qual = 0;
	DAT_RETURN ret = DAT_SUCCESS;

	if (ep == NULL || dup == NULL || dup->obj.ia != ep->obj.ia)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	if (timeout == 0)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (pdata_size < 0 || pdata_size > SD_UD_MAX_PDATA)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	if (pdata_size > 0 && pdata == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);

	memset(&ss, 0, sizeof(ss));
	pthread_mutex_lock(&dup->lock);
	if (dup->freed)
		ret = SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	else if (dup->state != DAT_EP_STATE_CONNECTED)
		ret = ud_bad_state(dup);
	else if (!dup->has_remote)
		ret = SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (ret == DAT_SUCCESS) {
		ss = dup->remote;
		qual = dup->remote_qual;
	}
	pthread_mutex_unlock(&dup->lock);
	if (ret != DAT_SUCCESS)
		return ret;
	return sd_ud_ep_connect(h, (DAT_IA_ADDRESS_PTR)&ss, qual, timeout,
				pdata_size, pdata, qos, DAT_CONNECT_DEFAULT_FLAG);
}

/*
 * What RC EPs have and UD EPs have not: dat_ep_common_connect asks a
 * Common Service Point, which takes TCP connections only (psp.c), so a
 * UD EP answers DAT_NOT_IMPLEMENTED (DAT_INVALID_HANDLE_EP for a bad
 * handle). Any thread; no lock.
 */
static DAT_RETURN DAT_API ud_ep_common_connect(DAT_EP_HANDLE h,
					       DAT_IA_ADDRESS_PTR a,
					       DAT_TIMEOUT t, DAT_COUNT n,
					       const DAT_PVOID p)
{
	(void)a; (void)t; (void)n; (void)p;
	if (sd_ud_ep_from_handle(h) == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	return SD_ERR(DAT_NOT_IMPLEMENTED, 0);
}

/*
 * dat_ep_recv_query on a UD EP (DAT 2.0, 6.5.14), as ep.c answers it for
 * RC: a snapshot, under ep->lock, of the receives the EP holds (posted,
 * not completed) and of their span. Datagrams fill receives in post
 * order, one each, so the held ones are always the newest posted,
 * without gaps: the span is the count. Either output may be NULL. Valid
 * in every state (0 once a disconnect flushed them). DAT_SUCCESS, or
 * DAT_INVALID_HANDLE (DAT_INVALID_HANDLE_EP). Any thread; no lock held.
 */
static DAT_RETURN DAT_API ud_ep_recv_query(DAT_EP_HANDLE h, DAT_COUNT *nbufs,
					   DAT_COUNT *span)
{
	struct sd_ud_ep *ep = sd_ud_ep_from_handle(h);
	DAT_COUNT n;

	if (ep == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	pthread_mutex_lock(&ep->lock);
	n = (DAT_COUNT)ep->rq.count;
	pthread_mutex_unlock(&ep->lock);
	if (nbufs)
		*nbufs = n;
	if (span)
		*span = n;
	return DAT_SUCCESS;
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
		ud_close(ep, DAT_CONNECTION_EVENT_BROKEN,
			 "hard high watermark exceeded");
	return fired;
}

/*
 * dat_ep_set_watermark on a UD EP (DAT 2.0, 6.5.15), ep.c's semantics on
 * the receives a UD EP holds (posted, not completed: what
 * dat_ep_recv_query counts). Each watermark is a count >= 0 or
 * DAT_WATERMARK_INFINITE (none); anything else is DAT_INVALID_PARAMETER
 * (DAT_INVALID_ARG2 soft, _ARG3 hard) and changes nothing. Both are
 * recorded and armed, the soft one reported as ep_attr.srq_soft_hw, and
 * checked during this call ("these can occur during this call") and
 * whenever a receive is posted (the only way the count rises):
 *
 *   - exceeding the soft one posts SD_EVENT_WATERMARK (ep.h; reason
 *     DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT, dat_handle the EP) on the IA's
 *     async EVD, once per setting;
 *   - exceeding the hard one while the EP is CONNECTED (an address
 *     handle resolved) breaks it as an RC connection is broken:
 *     DISCONNECTED, everything flushed, DAT_CONNECTION_EVENT_BROKEN on
 *     its connection EVD; an UNCONNECTED EP is checked again when its
 *     first handle is resolved (udcm.c), as cm.c checks an RC EP once
 *     connected. The receive that exceeded it is posted (its post
 *     succeeds) and flushed with the rest.
 *
 * OFED's dapl_ep_set_watermark answers DAT_NOT_IMPLEMENTED for every EP;
 * this follows softdapl's RC EPs instead. Valid in every state. Returns
 * DAT_SUCCESS, DAT_INVALID_HANDLE (DAT_INVALID_HANDLE_EP) or
 * DAT_INVALID_PARAMETER. Any consumer thread, no lock held: ep->lock,
 * then (soft event) ia->lock and the async EVD's once it is dropped.
 */
static DAT_RETURN DAT_API ud_ep_set_watermark(DAT_EP_HANDLE h, DAT_COUNT soft,
					      DAT_COUNT hard)
{
	struct sd_ud_ep *ep = sd_ud_ep_from_handle(h);
	struct sd_ia *ia;
	DAT_RETURN ret = DAT_SUCCESS;
	bool fired = false;

	if (ep == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	if (soft < 0 && soft != DAT_WATERMARK_INFINITE)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (hard < 0 && hard != DAT_WATERMARK_INFINITE)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	ia = ep->obj.ia;
	pthread_mutex_lock(&ep->lock);
	if (ep->freed) {
		ret = SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	} else {
		ep->soft_hw = soft;
		ep->soft_armed = soft != DAT_WATERMARK_INFINITE;
		ep->attr.srq_soft_hw = soft;
		ep->hard_hw = hard;
		ep->hard_armed = hard != DAT_WATERMARK_INFINITE;
		fired = sd_ud_check_watermarks(ep, true);
	}
	pthread_mutex_unlock(&ep->lock);
	if (fired)
		sd_async_error(ia, SD_EVENT_WATERMARK, h,
			       DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Address handles and CM objects                                      */

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
	pthread_mutex_lock(&ud_ah_lock);
	ah->magic = SD_UD_AH_MAGIC;
	sd_list_add_tail(&ep->ahs, &ah->node);
	pthread_mutex_unlock(&ud_ah_lock);
	return ah;
}

DAT_RETURN sd_ud_ah_free(DAT_EP_HANDLE h, const DAT_IB_ADDR_HANDLE *a)
{
	struct sd_ud_ep *ep = sd_ud_ep_from_handle(h);
	struct sd_ud_ah *ah;

	/* dat_ib_ud_ah_free(ep, ah) */
	if (ep == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	if (a == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	pthread_mutex_lock(&ep->lock);
	pthread_mutex_lock(&ud_ah_lock);
	ah = ud_ah_check(ep, a);
	if (ah != NULL) {
		sd_list_del(&ah->node);
		ah->magic = 0;
	}
	pthread_mutex_unlock(&ud_ah_lock);
	pthread_mutex_unlock(&ep->lock);
	if (ah == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	free(ah);
	return DAT_SUCCESS;
}

DAT_RETURN sd_ud_cm_free(DAT_EP_HANDLE h, void *p)
{
	struct sd_ud_ep *ep = sd_ud_ep_from_handle(h);
	struct sd_ud_cm *cm = p;
	DAT_RETURN ret = DAT_SUCCESS;

	/* dat_ib_ud_cm_free(ep, cm): the engine frees it once it is done. */
	if (ep == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	if ((uintptr_t)cm < SD_HANDLE_MIN)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	pthread_mutex_lock(&ep->lock);
	if (cm->magic != SD_UD_CM_MAGIC || cm->ep != ep || cm->released)
		ret = SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	else
		cm->released = true;
	pthread_mutex_unlock(&ep->lock);
	return ret;
}

/* ------------------------------------------------------------------ */
/* The provider table of UD objects                                    */

DAT_PROVIDER sd_ud_provider;

static pthread_once_t ud_provider_once = PTHREAD_ONCE_INIT;

static void ud_provider_build(void)
{
	DAT_PROVIDER *p = &sd_ud_provider;

	/* Every slot as for the IA's objects, except those a UD EP or CR reaches. */
	*p = sd_provider;
	p->set_consumer_context_func = ud_set_consumer_context;
	p->get_consumer_context_func = ud_get_consumer_context;
	p->get_handle_type_func = ud_get_handle_type;
	p->ep_query_func = ud_ep_query;
	p->ep_modify_func = ud_ep_modify;
	p->ep_connect_func = sd_ud_ep_connect;
	p->ep_dup_connect_func = ud_ep_dup_connect;
	p->ep_common_connect_func = ud_ep_common_connect;
	p->ep_disconnect_func = ud_ep_disconnect;
	p->ep_post_send_func = ud_post_send;
	p->ep_post_send_with_invalidate_func = ud_post_send_inv;
	p->ep_post_recv_func = ud_post_recv;
	p->ep_post_rdma_read_func = ud_post_rdma;
	p->ep_post_rdma_write_func = ud_post_rdma;
	p->ep_post_rdma_read_to_rmr_func = ud_post_read_to_rmr;
	p->ep_get_status_func = ud_ep_get_status;
	p->ep_free_func = ud_ep_free;
	p->ep_reset_func = ud_ep_reset;
	p->ep_recv_query_func = ud_ep_recv_query;
	p->ep_set_watermark_func = ud_ep_set_watermark;
	p->cr_query_func = sd_ud_cr_query;
	p->cr_accept_func = sd_ud_cr_accept;
	p->cr_reject_func = sd_ud_cr_reject;
	p->cr_handoff_func = sd_ud_cr_handoff;
	p->handle_extendedop_func = sd_handle_extendedop;
	sd_trace_wrap_ud(p);	/* api lines, when tracing */
}

void sd_ud_provider_init(void)
{
	pthread_once(&ud_provider_once, ud_provider_build);
}
