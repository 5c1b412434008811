/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connection management: the connections (struct sd_sock) and the
 * handshake that turns a transport's stream (transport.h; TCP, tcp.c)
 * into a DAT connection.
 *
 *   active (dat_ep_connect)               passive (PSP/RSP/CSP)
 *   socket, connect        ---- TCP ---->  accept: sock HELLO_WAIT
 *   CONNECTING -> HELLO_SENT ---- HELLO -->  sd_sp_request: CR, event
 *                                          dat_cr_accept / _reject / _handoff
 *   HELLO_SENT  <--- ACCEPT or REJECT ----  ACCEPTED (or linger, close)
 *   CONNECTED, ESTABLISHED ---- RTU ---->  CONNECTED, ESTABLISHED
 *
 * How a failed establishment is reported on the EP's connection EVD
 * (DAT 2.0 dat_ep_connect; the EP ends DISCONNECTED, its receives flushed):
 *
 *   TIMED_OUT          the consumer's connect timeout ran out first,
 *                      whatever the stage (TCP connect, HELLO unanswered,
 *                      the peer consumer not deciding)
 *   NON_PEER_REJECTED  ECONNREFUSED (nothing listens), the service point
 *                      is gone or refuses, a malformed answer
 *   UNREACHABLE        any other connect(2) error: ENETUNREACH,
 *                      EHOSTUNREACH, ...
 *   PEER_REJECTED      dat_cr_reject
 *   ACCEPT_COMPLETION_ERROR (passive) the requester left, or sent no
 *                      RTU within the handshake timeout, after the accept
 *
 * Everything here runs on the engine thread. A socket attached to an EP
 * is handled under ep->lock; one that is not (a passive socket before
 * accept, a lingering one) belongs to the engine alone. The request on a
 * passive socket and its CR point at each other (sock->cr, cr->sock)
 * until the CR is taken or the socket dies, which clears both.
 *
 * Closing: sock_close closes the stream and the timers; the last close
 * callback drops the EP reference and frees the socket (close first, free
 * in the close callback).
 */
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "cma.h"
#include "engine.h"
#include "ia.h"
#include "mem.h"
#include "progress.h"
#include "proto.h"
#include "qp.h"
#include "sock.h"
#include "sp.h"
#include "srqbuf.h"
#include "trace.h"
#include "transport.h"
#include "util.h"
#include "wire.h"
#include "wq.h"

/* How long a detached socket may wait for the peer's FIN, in ms. */
#define SD_LINGER_MS	5000

/*
 * How long the passive side waits for the requester's next handshake
 * message, in ms: the HELLO after the TCP accept, the RTU after our
 * ACCEPT. A peer that sends nothing must not hold a socket, or an EP in
 * PASSIVE_CONNECTION_PENDING (which the consumer can neither disconnect
 * nor free), for ever: past it the socket is closed, and an accepting EP
 * ends with DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR. The wait for
 * the consumer's decision on a CR has no limit. SOFTDAPL_CM_TIMEOUT_MS
 * overrides it (tests use a short one).
 */
#define SD_CM_TIMEOUT_MS	20000

/* Engine: every socket, for sd_cm_shutdown_all and service point frees. */
static struct sd_list socks = { &socks, &socks };

/* Engine: the service points listening, for sd_cm_shutdown_all. */
static struct sd_list listeners = { &listeners, &listeners };

/*
 * Engine: the attached sockets whose peer owes the handshake message that
 * makes a connection event here (an active socket's ACCEPT or REJECT, a
 * passive one's RTU), oldest first, for sd_cm_peer_order. A socket leaves
 * when its own handler ran (hs_step) or when it is freed.
 */
static struct sd_list hs_wait = { &hs_wait, &hs_wait };

/* Engine: scratch space for bytes drained from lingering sockets. */
static uint8_t drain_buf[65536];

static void poll_cb(struct sd_stream *stream, int status, int events, void *arg);
static void sock_linger(struct sd_sock *sock);
static void sock_set_phase(struct sd_sock *sock, uint8_t to, const char *why);
static void sock_deadline(struct sd_sock *sock, uint64_t ms);

/*
 * Engine: SD_CM_TIMEOUT_MS, or the environment's, read once. A value that
 * is not a whole positive number of milliseconds is refused with a message
 * ("20s" would otherwise read as 20).
 */
static uint64_t cm_timeout_ms(void)
{
	static uint64_t ms;

	if (ms == 0)
		ms = (uint64_t)sd_env_num("SOFTDAPL_CM_TIMEOUT_MS", 1, LONG_MAX,
					  SD_CM_TIMEOUT_MS,
					  "a positive number of milliseconds");
	return ms;
}

/*
 * Engine: @sock now carries a DAT connection. Its transport notices a
 * peer that fell silent (a link down, a host gone) on its own terms (TCP:
 * keepalive and TCP_USER_TIMEOUT, tcp.c) and reports it as a stream
 * error: DAT_CONNECTION_EVENT_BROKEN on both sides, everything
 * outstanding flushed.
 */
static void sock_data_start(struct sd_sock *sock)
{
	int r = sock->tp->set_liveness(sock->stream, SD_TP_LIVENESS_DEFAULT);

	if (r < 0)
		sd_dbg("ep %p: no liveness check: %s", (void *)sock->ep,
		       strerror(-r));
}

/* ------------------------------------------------------------------ */
/* Counters                                                            */

/*
 * The IB extension's connection manager counters of @ia (counters.c maps
 * the handshake onto the IB CM names). A message sent counts once it is
 * queued on its connection (sock->out, which goes out before anything
 * else), as IB CM counts a MAD once it is posted; a message received
 * once it is read whole and valid. Each count is made before the event it
 * leads to is posted, so that a consumer woken by that event reads it.
 *
 * @ia is open whenever one of these runs: the caller holds an object that
 * ia_close destroys only through the engine, after this callback: an EP
 * under ep->lock with its socket attached (ep_release detaches it first),
 * or not freed (ep->freed false), a CR that sd_cm_cr_cmd has not freed
 * yet, or a service point that sock->sp still names (its close_cmd
 * clears that). A socket left with none of them counts nothing.
 */
static void cm_cnt(struct sd_ia *ia, unsigned i)
{
	sd_cnt_inc(ia->cnt, i);
}

/* cm_cnt on the IA of service point @sp, unless it is gone (NULL). */
static void sp_cnt(const struct sd_sp *sp, unsigned i)
{
	if (sp != NULL)
		cm_cnt(sp->obj.ia, i);
}

/*
 * The counter of a handshake that failed with @err (a negative errno of
 * the transport's connect, writev or readv, or of sock_read_msg).
 */
static unsigned cm_err_cnt(int err)
{
	switch (err) {
	case -ECONNREFUSED:
		return DCNT_IA_CM_ERR_REFUSED;
	case -ETIMEDOUT:
		return DCNT_IA_CM_ERR_TIMEOUT;
	case -ECONNRESET:
	case -EPIPE:		/* sock_read_msg's EOF, a write to a closed peer */
		return DCNT_IA_CM_ERR_RESET;
	case -EPROTO:		/* a malformed handshake message */
		return DCNT_IA_CM_ERR_UNEXPECTED;
	default:
		return DCNT_IA_CM_ERR;
	}
}

/* ------------------------------------------------------------------ */
/* Socket basics                                                       */

/* Engine: wraps @stream of @tp; NULL (the stream closed) on failure. */
static struct sd_sock *sock_new(const struct sd_transport *tp,
				struct sd_stream *stream, uint8_t phase)
{
	struct sd_sock *sock = calloc(1, sizeof(*sock));

	if (sock == NULL) {
		tp->close(stream, NULL, NULL);
		return NULL;
	}
	uv_timer_init(sd_engine_loop(), &sock->deadline);
	sock->deadline.data = sock;
	sock->handles = 2;
	if (sd_fault_active()) {
		uv_timer_init(sd_engine_loop(), &sock->hold);
		sock->hold.data = sock;
		sock->handles++;
	}
	sock->stream = stream;
	sock->tp = tp;
	sock->phase = phase;
	sd_list_add_tail(&socks, &sock->node);
	sd_list_init(&sock->hs_node);
	return sock;
}

static void sock_closed(void *arg)
{
	struct sd_sock *sock = arg;
	struct sd_ep *ep;

	if (--sock->handles > 0)
		return;
	sd_list_del(&sock->node);
	sd_list_del(&sock->hs_node);
	ep = sock->ep;
	free(sock);
	if (ep != NULL)
		sd_qp_put(ep);
}

static void sock_timer_closed_cb(uv_handle_t *h)
{
	sock_closed(h->data);
}

/* Engine: closes @sock; it is freed once the loop let go of it. */
static void sock_close(struct sd_sock *sock)
{
	if (sock->phase == SD_SK_CLOSED)
		return;
	sock_set_phase(sock, SD_SK_CLOSED, "closed");
	if (sock->cr != NULL) {
		sock->cr->sock = NULL;
		sock->cr = NULL;
	}
	sock->tp->close(sock->stream, sock_closed, sock);
	uv_close((uv_handle_t *)&sock->deadline, sock_timer_closed_cb);
	if (sd_fault_active())
		uv_close((uv_handle_t *)&sock->hold, sock_timer_closed_cb);
}

/* Engine: arms @events on @sock's stream (0 stops it). */
static void sock_arm(struct sd_sock *sock, int events)
{
	if (sock->phase == SD_SK_CLOSED)
		return;
	(void)sock->tp->arm(sock->stream, events, poll_cb, sock);
}

/*
 * Writes what is left of sock->out. 0 when all is out, -EAGAIN, or
 * another -errno. The caller holds whatever guards the socket.
 */
static int sock_flush(struct sd_sock *sock)
{
	while (sock->out_done < sock->out_len) {
		struct iovec iov = {
			.iov_base = sock->out + sock->out_done,
			.iov_len = sock->out_len - sock->out_done,
		};
		ssize_t n = sock->tp->writev(sock->stream, &iov, 1);

		if (n < 0)
			return (int)n;
		sock->out_done += (uint32_t)n;
	}
	sock->out_len = sock->out_done = 0;
	return 0;
}

/* Puts a handshake message and its private data into sock->out. */
static void sock_put_msg(struct sd_sock *sock, const struct sd_cm_msg *m,
			 const uint8_t *pdata)
{
	sd_cm_pack(m, sock->out);
	if (m->pdata_len > 0)
		memcpy(sock->out + SD_CM_MSG_SIZE, pdata, m->pdata_len);
	sock->out_len = SD_CM_MSG_SIZE + m->pdata_len;
	sock->out_done = 0;
	if (sd_trace_enabled())
		sd_trace_cm("tx", sock->ep ? &sock->ep->obj : NULL,
			    sock->sp ? &sock->sp->obj : NULL,
			    sd_sock_trace(sock), sock->out, NULL);
}

/* Tracing: the rx line of the handshake message in sock->in. */
static void trace_cm_rx(struct sd_sock *sock, const char *bad)
{
	sd_trace_cm("rx", sock->ep ? &sock->ep->obj : NULL,
		    sock->sp ? &sock->sp->obj : NULL, sd_sock_trace(sock),
		    sock->in, bad);
}

/*
 * Reads one handshake message of type @type (0: ACCEPT or REJECT) into
 * sock->in, exactly its bytes (frames may follow it). 1 when complete
 * (@m unpacked and checked), 0 when more is needed, -EPROTO for a bad
 * message, -EPIPE at EOF, or another -errno.
 */
static int sock_read_msg(struct sd_sock *sock, uint8_t type, struct sd_cm_msg *m)
{
	for (;;) {
		uint32_t want = SD_CM_MSG_SIZE;
		struct iovec iov;
		ssize_t n;

		if (sock->in_have >= SD_CM_MSG_SIZE) {
			uint8_t t = type;

			if (t == 0)
				t = sock->in[SD_CM_OFF_TYPE] == SD_CM_REJECT ? SD_CM_REJECT :
								  SD_CM_ACCEPT;
			sd_cm_unpack(m, sock->in);
			if (sd_cm_check(m, t) < 0) {
				if (sd_trace_enabled())
					trace_cm_rx(sock, "malformed handshake message");
				return -EPROTO;
			}
			want += m->pdata_len;
			if (m->type == SD_CM_ACCEPT && (m->flags & SD_CM_F_SHM))
				want += SD_CM_SHM_EXT_SIZE;
			if (sock->in_have == want) {
				if (sd_trace_enabled())
					trace_cm_rx(sock, NULL);
				return 1;
			}
		}
		iov.iov_base = sock->in + sock->in_have;
		iov.iov_len = want - sock->in_have;
		n = sock->tp->readv(sock->stream, &iov, 1);
		if (n == 0)
			return -EPIPE;
		if (n < 0)
			return n == -EAGAIN ? 0 : (int)n;
		sock->in_have += (uint32_t)n;
	}
}

/* Whether @a and @b are addresses of the same host (ports aside). */
static bool same_host(const struct sockaddr_storage *a,
		      const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		      &((const struct sockaddr_in6 *)b)->sin6_addr,
		      sizeof(struct in6_addr)) == 0;
}

/* The handshake attributes of @ep (ep->lock). */
static void ep_fill_msg(const struct sd_ep *ep, struct sd_cm_msg *m, uint8_t type)
{
	memset(m, 0, sizeof(*m));
	m->magic = SD_PROTO_MAGIC;
	m->version = SD_PROTO_VERSION;
	m->type = type;
	/*
	 * What we accept: the provider's limits, not the EP's attributes,
	 * which OFED does not enforce either (dtest writes 4 MiB on an EP
	 * created with max_rdma_size 64 KiB).
	 */
	m->max_msg = SD_MAX_MESSAGE_SIZE;
	m->max_rdma = SD_MAX_RDMA_SIZE;
	m->rd_in = (uint32_t)ep->attr.max_rdma_read_in;
	m->rd_out = (uint32_t)ep->attr.max_rdma_read_out;
	m->pdata_len = ep->pdata_len;
	if (type == SD_CM_HELLO && sd_shm_policy() != SD_SHM_OFF)
		m->flags = SD_CM_F_SHM;	/* shared memory if on one host */
}

/*
 * Listener, engine, ep->lock: the ACCEPT @m about to go out on @sock.
 * When the HELLO @hello offered shared memory, the peer is on this host
 * and the setting allows, makes a segment (shm.c): the ACCEPT names it,
 * and @sock's stream becomes the shared-memory one, which learns from the
 * RTU whether the requester attached. Otherwise, or when no segment can
 * be made, the connection stays on TCP. Returns the extension bytes to
 * append to the ACCEPT (0 or SD_CM_SHM_EXT_SIZE) in @ext.
 */
static unsigned shm_offer(struct sd_sock *sock, const struct sd_cm_msg *hello,
			  struct sd_cm_msg *m, uint8_t *ext)
{
	struct sockaddr_storage l, r;
	struct sd_cm_shm_ext e;
	struct sd_stream *s;
	const char *why = "";
	int err;

	if (!(hello->flags & SD_CM_F_SHM) || sd_shm_policy() == SD_SHM_OFF ||
	    sock->tp != &sd_tcp)
		return 0;
	if (sock->tp->peer(sock->stream, &l, &r) != 0 || !same_host(&l, &r)) {
		sd_dbg("ep %p: TCP: the requester is on another host",
		       (void *)sock->ep);
		return 0;
	}
	err = sd_shm_offer(sock->stream, &e, &s, &why);
	if (err < 0) {
		sd_dbg("ep %p: TCP: no shared memory segment (%s: %s)",
		       (void *)sock->ep, why, strerror(-err));
		return 0;
	}
	sock->stream = s;
	sock->tp = &sd_shm;
	m->flags |= SD_CM_F_SHM;
	sd_cm_shm_ext_pack(&e, ext);
	sd_dbg("ep %p: offered shared memory (%u-byte rings)", (void *)sock->ep,
	       e.ring_size);
	return SD_CM_SHM_EXT_SIZE;
}

/*
 * Requester, engine, ep->lock: the ACCEPT @m in sock->in offered shared
 * memory; attach, and send the RTU and everything after it through the
 * segment, or stay on TCP (SOFTDAPL_DEBUG says why).
 */
static void shm_attach(struct sd_ep *ep, struct sd_sock *sock,
		       const struct sd_cm_msg *m)
{
	struct sd_cm_shm_ext e;
	struct sd_stream *s;
	const char *why = "";
	int err;

	if (!(m->flags & SD_CM_F_SHM) || sock->tp != &sd_tcp)
		return;
	if (sd_shm_policy() == SD_SHM_OFF) {
		sd_dbg("ep %p: TCP: SOFTDAPL_TRANSPORT=tcp", (void *)ep);
		return;
	}
	sd_cm_shm_ext_unpack(&e, sock->in + SD_CM_MSG_SIZE + m->pdata_len);
	err = sd_shm_attach(sock->stream, &e, &s, &why);
	if (err < 0) {
		sd_dbg("ep %p: TCP: cannot attach the listener's segment (%s: %s)",
		       (void *)ep, why, strerror(-err));
		return;
	}
	sock->stream = s;
	sock->tp = &sd_shm;
	sd_dbg("ep %p: shared memory (%u-byte rings)", (void *)ep, e.ring_size);
}

/*
 * Established, ep->lock: a same-host peer may now place into and read
 * from the memory @ep's IA grants to it (transport.h, expose); a
 * transport that cannot says no, and nothing changes.
 */
static void sock_expose(struct sd_ep *ep, struct sd_sock *sock)
{
	struct sd_tp_expose x = {
		.grants = sd_cma_table_addr(ep->obj.ia),
		.slots = sd_cma_table_slots(ep->obj.ia),
		.pz = (uint64_t)(uintptr_t)ep->pz,
		.ep = ep->tx.ep_id,
	};

	if (sock->tp->expose(sock->stream, &x) == 0)
		sd_dbg("ep %p: the peer may place RDMA in our memory itself",
		       (void *)ep);
}

/* Takes the peer's limits from its HELLO or ACCEPT. ep->lock. */
static void ep_take_peer(struct sd_ep *ep, const struct sd_cm_msg *m)
{
	uint32_t out = (uint32_t)ep->attr.max_rdma_read_out;

	ep->peer_max_msg = m->max_msg;
	ep->peer_max_rdma = m->max_rdma;
	ep->rd_out_max = m->rd_in < out ? m->rd_in : out;
	ep->rd_in_max = (uint32_t)ep->attr.max_rdma_read_in;
}

/* ------------------------------------------------------------------ */
/* Poll events                                                         */

void sd_sock_update(struct sd_ep *ep)
{
	struct sd_sock *sock = ep->sock;
	int ev = 0;

	SD_ASSERT_HELD(&ep->lock);
	SD_ASSERT_ENGINE();
	if (sock == NULL || !sd_engine_on_thread())
		return;
	switch (sock->phase) {
	case SD_SK_CONNECTING:
		ev = UV_WRITABLE;
		break;
	case SD_SK_HELLO_SENT:
	case SD_SK_ACCEPTED:
		ev = UV_READABLE | UV_DISCONNECT;
		if (sock->out_done < sock->out_len)
			ev |= UV_WRITABLE;
		break;
	case SD_SK_DATA:
		/* RNR: stop reading (TCP holds the sender), watch for EOF. */
		ev = UV_DISCONNECT;
		if (ep->rx.state != SD_RX_BUF && !ep->parked)
			ev |= UV_READABLE;
		if (ep->tx.blocked)
			ev |= UV_WRITABLE;
		break;
	default:
		return;
	}
	sock_arm(sock, ev);
}

/* A connect error as the connection event DAT reports for it. */
static DAT_EVENT_NUMBER connect_error_event(int err)
{
	switch (err) {
	case ECONNREFUSED:
		return DAT_CONNECTION_EVENT_NON_PEER_REJECTED;
	case ETIMEDOUT:
		return DAT_CONNECTION_EVENT_TIMED_OUT;
	default:
		return DAT_CONNECTION_EVENT_UNREACHABLE;
	}
}

/* @ep's HELLO, packed into @out (room for SD_CM_MSG_SIZE + pdata); its size. */
static uint32_t hello_pack(const struct sd_ep *ep, uint8_t *out)
{
	struct sd_cm_msg m;

	ep_fill_msg(ep, &m, SD_CM_HELLO);
	m.conn_qual = ep->remote_port;
	sd_cm_pack(&m, out);
	memcpy(out + SD_CM_MSG_SIZE, ep->pdata, m.pdata_len);
	return SD_CM_MSG_SIZE + m.pdata_len;
}

/*
 * Active, engine, ep->lock: the stream is connected; the HELLO goes out,
 * of which the connect call wrote @sent bytes already (counted then), and
 * traced it whether or not it could write (sd_cm_connect_now).
 */
static void active_hello(struct sd_ep *ep, struct sd_sock *sock, uint32_t sent)
{
	struct sockaddr_storage ss;
	int err;

	if (sock->tp->peer(sock->stream, &ss, NULL) == 0)
		ep->local_port = ntohs(ss.ss_family == AF_INET6 ?
				       ((struct sockaddr_in6 *)&ss)->sin6_port :
				       ((struct sockaddr_in *)&ss)->sin_port);
	sock->out_len = hello_pack(ep, sock->out);
	sock->out_done = sent;
	if (sent == 0)
		cm_cnt(ep->obj.ia, DCNT_IA_CM_REQ_TX);
	if (!sd_trace_enabled())
		;
	else if (ep->connect_now == SD_CONNECT_NOW_HELLO)
		sd_sock_trace(sock)->tx_seq = 1;	/* the HELLO was 0 */
	else
		sd_trace_cm("tx", &ep->obj, NULL, sd_sock_trace(sock),
			    sock->out, NULL);
	sock_set_phase(sock, SD_SK_HELLO_SENT, "connected");
	sd_list_add_tail(&hs_wait, &sock->hs_node);
	err = sock_flush(sock);
	if (err < 0 && err != -EAGAIN) {
		cm_cnt(ep->obj.ia, cm_err_cnt(err));
		sd_qp_close(ep, DAT_CONNECTION_EVENT_NON_PEER_REJECTED, NULL,
			    "cannot send HELLO");
		return;
	}
	sd_sock_update(ep);
}

/* A connect that failed with @err (a positive errno), as its event. */
static void active_failed(struct sd_ep *ep, int err)
{
	sd_dbg("ep %p: connect: %s", (void *)ep, strerror(err));
	cm_cnt(ep->obj.ia, cm_err_cnt(-err));
	sd_qp_close(ep, connect_error_event(err), NULL, "connect failed");
}

/* Active, ep->lock: the stream is up (or failed); send the HELLO. */
static void active_connected(struct sd_ep *ep, struct sd_sock *sock)
{
	int err = -sock->tp->connect_result(sock->stream);

	if (err != 0) {
		active_failed(ep, err);
		return;
	}
	active_hello(ep, sock, 0);
}

/* Active, ep->lock: the answer to our HELLO. */
static void active_answer(struct sd_ep *ep, struct sd_sock *sock, int events)
{
	struct sd_cm_msg m;
	int r;

	if ((events & UV_WRITABLE) && sock->out_done < sock->out_len) {
		r = sock_flush(sock);
		if (r < 0 && r != -EAGAIN)
			goto refused;
	}
	if (!(events & (UV_READABLE | UV_DISCONNECT))) {
		sd_sock_update(ep);
		return;
	}
	r = sock_read_msg(sock, 0, &m);
	if (r == 0) {
		sd_sock_update(ep);
		return;
	}
	if (r < 0)
		goto refused;
	ep->peer_pdata_len = m.pdata_len;
	memcpy(ep->peer_pdata, sock->in + SD_CM_MSG_SIZE, m.pdata_len);
	if (m.type == SD_CM_REJECT) {
		/* The consumer's reject is IB's REJ "consumer defined". */
		cm_cnt(ep->obj.ia, m.reason == SD_REJ_CONSUMER ?
		       DCNT_IA_CM_USER_REJ_RX : DCNT_IA_CM_ERR_REJ_RX);
		sd_qp_close(ep, m.reason == SD_REJ_CONSUMER ?
			    DAT_CONNECTION_EVENT_PEER_REJECTED :
			    DAT_CONNECTION_EVENT_NON_PEER_REJECTED, NULL,
			    "peer rejected");
		return;
	}
	cm_cnt(ep->obj.ia, DCNT_IA_CM_REP_RX);
	ep_take_peer(ep, &m);
	shm_attach(ep, sock, &m);	/* the RTU goes the way chosen */
	memset(&m, 0, sizeof(m));
	m.magic = SD_PROTO_MAGIC;
	m.version = SD_PROTO_VERSION;
	m.type = SD_CM_RTU;
	sock_put_msg(sock, &m, NULL);
	cm_cnt(ep->obj.ia, DCNT_IA_CM_RTU_TX);
	sd_tx_reset(ep);
	sock_expose(ep, sock);
	sock_set_phase(sock, SD_SK_DATA, "ACCEPT");
	sock_data_start(sock);
	sd_qp_set_state(ep, DAT_EP_STATE_CONNECTED, "handshake done");
	cm_cnt(ep->obj.ia, DCNT_IA_CM_ACTIVE_EST);
	sd_qp_conn_event(ep, DAT_CONNECTION_EVENT_ESTABLISHED, true);
	sd_qp_check_watermarks(ep, 0);	/* the hard one holds from now on */
	sd_tx_progress(ep);	/* the RTU, then whatever is queued */
	sd_sock_update(ep);
	return;
refused:
	sd_dbg("ep %p: no valid answer to HELLO (%d)", (void *)ep, r);
	cm_cnt(ep->obj.ia, cm_err_cnt(r));
	sd_qp_close(ep, DAT_CONNECTION_EVENT_NON_PEER_REJECTED, NULL,
		    "no answer");
}

/*
 * Passive, ep->lock: waiting for the RTU after our ACCEPT; with @frames,
 * the frames that follow it are read too.
 */
static void passive_rtu(struct sd_ep *ep, struct sd_sock *sock, int events,
			bool frames)
{
	struct sd_cm_msg m;
	int r;

	if ((events & UV_WRITABLE) && sock->out_done < sock->out_len) {
		r = sock_flush(sock);
		if (r < 0 && r != -EAGAIN)
			goto failed;
	}
	if (!(events & (UV_READABLE | UV_DISCONNECT))) {
		sd_sock_update(ep);
		return;
	}
	r = sock_read_msg(sock, SD_CM_RTU, &m);
	if (r == 0) {
		sd_sock_update(ep);
		return;
	}
	if (r < 0)
		goto failed;
	if (m.pdata_len != 0 || sock->out_done < sock->out_len) {
		r = -EPROTO;	/* an RTU with data, or before our ACCEPT left */
		goto failed;
	}
	cm_cnt(ep->obj.ia, DCNT_IA_CM_RTU_RX);
	sd_tx_reset(ep);
	sock_expose(ep, sock);
	sock_set_phase(sock, SD_SK_DATA, "RTU");
	sock_data_start(sock);
	sd_qp_set_state(ep, DAT_EP_STATE_CONNECTED, "handshake done");
	cm_cnt(ep->obj.ia, DCNT_IA_CM_PASSIVE_EST);
	sd_qp_conn_event(ep, DAT_CONNECTION_EVENT_ESTABLISHED, false);
	sd_qp_check_watermarks(ep, 0);	/* the hard one holds from now on */
	if (frames)
		sd_rx_progress(ep);	/* frames may follow the RTU */
	if (ep->sock == sock) {
		sd_tx_progress(ep);
		sd_sock_update(ep);
	}
	return;
failed:
	cm_cnt(ep->obj.ia, cm_err_cnt(r));
	sd_qp_close(ep, DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR, NULL,
		    "no RTU");
}

/*
 * Engine, ep->lock: the handshake handler of @sock's phase for @events;
 * @sock leaves hs_wait once the message it waited for was handled. With
 * @frames, frames that follow an RTU are read as well; without, they wait
 * for the socket's poll (sd_cm_peer_order: a DISCONNECT right behind the
 * RTU must not overtake the RTUs of other connections).
 */
static void hs_step(struct sd_ep *ep, struct sd_sock *sock, int events,
		    bool frames)
{
	uint8_t phase = sock->phase;

	if (phase == SD_SK_HELLO_SENT)
		active_answer(ep, sock, events);
	else
		passive_rtu(ep, sock, events, frames);
	if (ep->sock != sock || sock->phase != phase) {
		sd_list_del(&sock->hs_node);
		sd_list_init(&sock->hs_node);
	}
}

void sd_cm_peer_order(struct sd_ep *ep)
{
	static bool busy;	/* engine: a handler below closed its EP */
	struct sd_list *pos, *next;

	SD_ASSERT_HELD(&ep->lock);
	/* Engine only: both statics are the engine's. */
	if (!sd_engine_on_thread() || busy || sd_list_empty(&hs_wait))
		return;
	busy = true;
	/*
	 * Only the socket being handled leaves the list meanwhile: hs_step
	 * reads no frame after the RTU, so no other EP changes here.
	 */
	for (pos = hs_wait.next; pos != &hs_wait; pos = next) {
		struct sd_sock *s = sd_container_of(pos, struct sd_sock, hs_node);
		struct sd_ep *o = s->ep;

		next = pos->next;
		if (o == NULL || o == ep || o->obj.ia != ep->obj.ia ||
		    pthread_mutex_trylock(&o->lock) != 0)
			continue;	/* a consumer holds it: it is not waiting */
		if (o->sock == s && same_host(&o->remote, &ep->remote) &&
		    (s->phase == SD_SK_HELLO_SENT || s->phase == SD_SK_ACCEPTED))
			hs_step(o, s, UV_READABLE, false);
		pthread_mutex_unlock(&o->lock);
	}
	busy = false;
}

/* Engine: refuses the request on @sock (REJECT @reason) and lets it go. */
static void sock_reject(struct sd_sock *sock, uint8_t reason)
{
	struct sd_cm_msg m;

	memset(&m, 0, sizeof(m));
	m.magic = SD_PROTO_MAGIC;
	m.version = SD_PROTO_VERSION;
	m.type = SD_CM_REJECT;
	m.reason = reason;
	sock_put_msg(sock, &m, NULL);
	sock_linger(sock);
}

/* Passive, engine: reading the HELLO, or waiting for the consumer. */
static void passive_io(struct sd_sock *sock, int events)
{
	struct sd_cm_msg m;
	struct sd_sp *sp = sock->sp;
	int r;

	if (sock->phase == SD_SK_REQUEST) {
		/* Only EOF or an error can come now: the peer gave up. */
		sd_dbg("connection request: the peer left");
		if (sock->cr != NULL)
			cm_cnt(sock->cr->obj.ia, DCNT_IA_CM_ERR_RESET);
		sock_close(sock);
		return;
	}
	r = sock_read_msg(sock, SD_CM_HELLO, &m);
	if (r == 0)
		return;
	if (r < 0) {
		if (r == -EPROTO && sock->in_have >= SD_CM_MSG_SIZE) {
			sp_cnt(sp, DCNT_IA_CM_ERR_UNEXPECTED);
			sp_cnt(sp, DCNT_IA_CM_ERR_REJ_TX);
			sock_reject(sock, SD_REJ_PROTOCOL);
		} else {
			sock_close(sock);	/* no handshake began */
		}
		return;
	}
	sock->sp = NULL;
	sock_set_phase(sock, SD_SK_REQUEST, "HELLO");	/* the consumer decides */
	/*
	 * A service point freed while its request was read has no IA left
	 * to count on: that request and its refusal count nowhere.
	 */
	sp_cnt(sp, DCNT_IA_CM_REQ_RX);
	if (sp == NULL || sd_sp_request(sp, sock, &m, sock->in + SD_CM_MSG_SIZE) < 0) {
		sp_cnt(sp, DCNT_IA_CM_ERR_REJ_TX);
		sock_reject(sock, SD_REJ_NO_SP);
		return;
	}
	sock_arm(sock, UV_DISCONNECT);
}

/* Engine: the requester on @sock was silent for too long (passive). */
static void hello_expired(struct sd_sock *sock)
{
	/*
	 * libuv runs expired timers before it polls: a HELLO that arrived
	 * in time may still be unread (an engine kept busy, or starved of
	 * CPU). Read what is there first; only a requester whose HELLO is
	 * still incomplete is given up (and its socket closed without
	 * unread bytes, so that it sees the end of the stream, not a reset).
	 */
	if (sock->phase == SD_SK_HELLO_WAIT)
		passive_io(sock, UV_READABLE);
	if (sock->phase == SD_SK_HELLO_WAIT) {
		sd_dbg("connection request: no HELLO in time");
		sp_cnt(sock->sp, DCNT_IA_CM_ERR_TIMEOUT);
		sock_close(sock);
	}
}

/*
 * How long a listener rests when there was no descriptor (or memory) to
 * accept with, in ms (listen_io).
 */
#define SD_ACCEPT_RETRY_MS	100

static void listen_io(struct sd_listener *l, void *arg);

/* Engine: a resting listener's time is up: watch it again. */
static void listen_resume(uv_timer_t *t)
{
	struct sd_sp *sp = t->data;

	(void)sp->tp->listen_start(sp->lis, listen_io, sp);
}

/* Engine: connections wait on @sp's listener: accept them. */
static void listen_io(struct sd_listener *l, void *arg)
{
	struct sd_sp *sp = arg;

	for (;;) {
		struct sd_stream *stream;
		struct sd_sock *sock;
		int r = sp->tp->accept(l, &stream);

		if (r < 0) {
			if (r == -EMFILE || r == -ENFILE || r == -ENOBUFS ||
			    r == -ENOMEM) {
				/*
				 * The connection stays in the kernel's backlog
				 * and the listener readable: watched at once, it
				 * would spin the engine. It rests, the requester
				 * waits, as for a full backlog, until it is
				 * accepted or its connect timeout runs out.
				 */
				sd_dbg("port %llu: accept: %s; again in %d ms",
				       (unsigned long long)sp->conn_qual,
				       strerror(-r), SD_ACCEPT_RETRY_MS);
				(void)sp->tp->listen_start(l, NULL, NULL);
				sp->rest.data = sp;
				uv_timer_start(&sp->rest, listen_resume,
					       SD_ACCEPT_RETRY_MS, 0);
			}
			return;
		}
		sock = sock_new(sp->tp, stream, SD_SK_HELLO_WAIT);
		if (sock == NULL)
			continue;
		sock->sp = sp;
		sock_deadline(sock, cm_timeout_ms());
		sock_arm(sock, UV_READABLE | UV_DISCONNECT);
	}
}

/* Engine: a detached socket: flush out[], shut down, drain, close. */
static void linger_io(struct sd_sock *sock, int status, int events)
{
	if (status < 0) {
		sock_close(sock);
		return;
	}
	if (sock->out_done < sock->out_len) {
		int r = sock_flush(sock);

		if (r == -EAGAIN) {
			sock_arm(sock, UV_WRITABLE | UV_READABLE | UV_DISCONNECT);
			goto drain;
		}
		if (r < 0) {
			sock_close(sock);
			return;
		}
	}
	if (!sock->shut_wr) {
		(void)sock->tp->shutdown_wr(sock->stream);
		sock->shut_wr = true;
	}
	sock_arm(sock, UV_READABLE | UV_DISCONNECT);
drain:
	for (;;) {
		struct iovec iov = { drain_buf, sizeof(drain_buf) };
		ssize_t n = sock->tp->readv(sock->stream, &iov, 1);

		if (n > 0)
			continue;
		if (n == -EAGAIN)
			return;
		sock_close(sock);	/* EOF or error */
		return;
	}
	(void)events;
}


/* Engine: @sock belongs to the engine alone now; see linger_io. */
static void sock_linger(struct sd_sock *sock)
{
	if (sock->phase == SD_SK_CLOSED)
		return;
	sock_set_phase(sock, SD_SK_LINGER, "detached");
	if (sock->cr != NULL) {
		sock->cr->sock = NULL;
		sock->cr = NULL;
	}
	if (sock->reset) {
		sock->tp->reset(sock->stream);
		sock_close(sock);
		return;
	}
	sock_deadline(sock, SD_LINGER_MS);
	linger_io(sock, 0, UV_WRITABLE | UV_READABLE);
}

/* Engine: the connect timeout of an active EP ran out. */
static void connect_expired(struct sd_sock *sock)
{
	struct sd_ep *ep = sock->ep;

	pthread_mutex_lock(&ep->lock);
	if (ep->sock == sock &&
	    ep->state == DAT_EP_STATE_ACTIVE_CONNECTION_PENDING) {
		ep->timed_out = true;
		cm_cnt(ep->obj.ia, DCNT_IA_CM_ERR_TIMEOUT);
		sd_qp_close(ep, DAT_CONNECTION_EVENT_TIMED_OUT, NULL,
			    "connect timeout");
	}
	pthread_mutex_unlock(&ep->lock);
}

/*
 * Engine, ep->lock: a socket error (a reset; ETIMEDOUT from the dead-peer
 * timeout above) while @ep waits for a receive (RNR). Nothing reads the
 * socket then, so nothing would take the error, and the poll reports it
 * again whenever it is armed: it ends the connection here, as rx.c ends
 * one whose peer left during the wait (a reset is the peer closing with
 * our data unread: DISCONNECTED, as rx.c counts it too).
 */
static void data_error_rnr(struct sd_ep *ep, struct sd_sock *sock)
{
	int err = -sock->tp->connect_result(sock->stream);

	sd_dbg("ep %p: socket error while waiting for a receive: %s",
	       (void *)ep, strerror(err));
	if (err == ECONNRESET || err == EPIPE)
		sd_qp_close(ep, DAT_CONNECTION_EVENT_DISCONNECTED, NULL,
			    "peer closed while waiting for a receive");
	else
		sd_qp_close(ep, DAT_CONNECTION_EVENT_BROKEN, NULL,
			    "connection lost while waiting for a receive");
}

static void poll_cb(struct sd_stream *stream, int status, int events, void *arg)
{
	struct sd_sock *sock = arg;
	struct sd_ep *ep;

	(void)stream;
	switch (sock->phase) {
	case SD_SK_LINGER:
		linger_io(sock, status, events);
		return;
	case SD_SK_HELLO_WAIT:
	case SD_SK_REQUEST:
		if (sock->ep == NULL) {
			passive_io(sock, status < 0 ? UV_DISCONNECT : events);
			return;
		}
		break;
	case SD_SK_CLOSED:
		return;
	default:
		break;
	}

	ep = sock->ep;
	pthread_mutex_lock(&ep->lock);
	if (ep->sock != sock) {
		/* Detached by a consumer thread: sock->cmd takes over. */
		sock_arm(sock, 0);
		pthread_mutex_unlock(&ep->lock);
		return;
	}
	if (status < 0)
		events |= UV_READABLE | UV_DISCONNECT;
	switch (sock->phase) {
	case SD_SK_CONNECTING:
		active_connected(ep, sock);
		break;
	case SD_SK_HELLO_SENT:
	case SD_SK_ACCEPTED:
		hs_step(ep, sock, events, true);
		break;
	case SD_SK_DATA:
		if (status < 0 && ep->rx.state == SD_RX_BUF) {
			data_error_rnr(ep, sock);
			break;
		}
		sd_progress_io(ep, status, events);
		break;
	default:
		break;
	}
	pthread_mutex_unlock(&ep->lock);
}

/* ------------------------------------------------------------------ */
/* Detaching                                                           */

/* sock->cmd: a consumer thread detached the socket. */
static void sock_detached_cmd(struct sd_cmd *cmd)
{
	struct sd_sock *sock = sd_container_of(cmd, struct sd_sock, cmd);

	/* What the detacher wrote under ep->lock: read it under it too. */
	pthread_mutex_lock(&sock->ep->lock);
	pthread_mutex_unlock(&sock->ep->lock);
	if (sock->phase == SD_SK_CONNECTING)
		sock_close(sock);
	else
		sock_linger(sock);
}

void sd_sock_detach(struct sd_ep *ep, const struct sd_hdr *ctl)
{
	struct sd_sock *sock = ep->sock;
	uint32_t i;

	SD_ASSERT_HELD(&ep->lock);
	if (sock == NULL)
		return;
	/* Tracing: the frame whose handler closes the EP was accepted. */
	if (ep->rx.trace_due) {
		ep->rx.trace_due = false;
		sd_trace_frame("rx", &ep->obj, sd_sock_trace(sock),
			       ep->rx.hdr, NULL);
	}
	ep->sock = NULL;
	/*
	 * Out of the peer's reach before anything is flushed: a consumer may
	 * reuse a flushed SEND's buffer, or free memory, at once.
	 */
	(void)sock->tp->expose(sock->stream, NULL);
	/* A control frame fits only between frames, and never after ours. */
	if (ctl != NULL && sock->phase == SD_SK_DATA &&
	    !sd_tx_mid_frame(ep) && !ep->tx.disc_sent &&
	    sock->out_len - sock->out_done + SD_HDR_SIZE <= sizeof(sock->out)) {
		if (sock->out_done > 0) {
			memmove(sock->out, sock->out + sock->out_done,
				sock->out_len - sock->out_done);
			sock->out_len -= sock->out_done;
			sock->out_done = 0;
		}
		sd_hdr_pack(ctl, sock->out + sock->out_len);
		if (sd_trace_enabled())
			sd_trace_frame("tx", &ep->obj, sd_sock_trace(sock),
				       sock->out + sock->out_len, NULL);
		sock->out_len += SD_HDR_SIZE;
		/*
		 * A DISCONNECT is the DREP answering the peer's when the
		 * header rx.c is handling is that DISCONNECT (rx_disconnect
		 * answers through here; rx.h is cleared for each connection
		 * by sd_tx_reset), and our DREQ otherwise.
		 */
		if (ctl->op == SD_OP_DISCONNECT)
			cm_cnt(ep->obj.ia, ep->rx.h.op == SD_OP_DISCONNECT ?
			       DCNT_IA_CM_DREP_TX : DCNT_IA_CM_DREQ_TX);
	} else if (sd_tx_mid_frame(ep)) {
		/*
		 * Mid-frame: nothing more may follow. A disconnect still
		 * tells the peer it was one (a reset: DISCONNECTED there, as
		 * the peer of an InfiniBand QP that disconnects gets); any
		 * other end shows as the end of the stream (BROKEN).
		 */
		sock->out_len = sock->out_done = 0;
		sock->reset = ctl != NULL && ctl->op == SD_OP_DISCONNECT;
	}
	if (ep->tx.disc_sent)
		sock->shut_wr = true;
	/* Release what the connection held in remote memory. */
	for (i = 0; i < ep->tx.resp_count; i++) {
		struct sd_rresp *r = &ep->tx.resp[(ep->tx.resp_head + i) %
						  ep->rd_in_max];

		if (r->lmr != NULL)
			sd_mem_remote_done(r->lmr);
		r->lmr = NULL;
	}
	ep->tx.resp_count = 0;
	sd_tx_drop_frames(ep);
	ep->tx.blocked = false;
	if (ep->rx.lmr != NULL) {
		sd_mem_remote_done(ep->rx.lmr);
		ep->rx.lmr = NULL;
	}
	if (ep->srq != NULL)
		sd_srqbuf_forget(ep->srq, &ep->srq_wait);

	if (sd_engine_on_thread()) {
		if (sock->phase == SD_SK_CONNECTING)
			sock_close(sock);
		else
			sock_linger(sock);
	} else {
		sock->cmd.fn = sock_detached_cmd;
		sd_engine_submit(&sock->cmd);
	}
}

/* ------------------------------------------------------------------ */
/* Commands                                                            */

int sd_cm_open(struct sd_ep *ep, struct sd_stream **stream)
{
	const struct sd_ia *ia = ep->obj.ia;
	struct sockaddr_storage src = ia->addr.ss;
	socklen_t alen = ep->remote.ss_family == AF_INET6 ?
			 sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	bool any = true;

	/* Leave from the IA's address unless it is a wildcard. */
	if (src.ss_family == ep->remote.ss_family) {
		if (src.ss_family == AF_INET) {
			((struct sockaddr_in *)&src)->sin_port = 0;
			any = ((struct sockaddr_in *)&src)->sin_addr.s_addr ==
			      htonl(INADDR_ANY);
		} else {
			((struct sockaddr_in6 *)&src)->sin6_port = 0;
			any = memcmp(&((struct sockaddr_in6 *)&src)->sin6_addr,
				     &in6addr_any, sizeof(in6addr_any)) == 0;
		}
	}
	return SD_TP_DEFAULT->open(stream, any ? NULL : (struct sockaddr *)&src,
				  any ? 0 : ia->addr.len,
				  (const struct sockaddr *)&ep->remote, alen);
}

/* ep->cm_cmd: dat_ep_connect. Holds a reference on the EP. */
void sd_cm_connect_cmd(struct sd_cmd *cmd)
{
	struct sd_ep *ep = sd_container_of(cmd, struct sd_ep, cm_cmd);
	const struct sd_transport *tp = SD_TP_DEFAULT;
	struct sd_stream *stream;
	struct sd_sock *sock;
	int r, err;

	SD_ASSERT_ENGINE();
	pthread_mutex_lock(&ep->lock);
	/* The stream dat_ep_connect opened (ep.c), ours to use or close. */
	stream = ep->connect_stream;
	ep->connect_stream = NULL;
	if (ep->state != DAT_EP_STATE_ACTIVE_CONNECTION_PENDING ||
	    ep->cm_op != SD_CMOP_CONNECT || ep->sock != NULL) {
		pthread_mutex_unlock(&ep->lock);
		if (stream != NULL)
			tp->close(stream, NULL, NULL);
		sd_qp_put(ep);
		return;
	}
	ep->cm_op = SD_CMOP_NONE;
	if (stream == NULL) {	/* it could not: its error is reported here */
		err = -sd_cm_open(ep, &stream);
		if (err != 0)
			goto fail;
	}
	/* The connect call started it, or failed to (sd_cm_connect_now). */
	r = ep->connect_now != SD_CONNECT_NOW_NONE ? ep->connect_err :
						     tp->connect(stream);
	err = r < 0 ? -r : 0;	/* 1, connected already: writable says so */
	if (err != 0) {
		tp->close(stream, NULL, NULL);
		goto fail;
	}
	sock = sock_new(tp, stream, SD_SK_CONNECTING);
	if (sock == NULL) {
		err = ENOMEM;
		goto fail;
	}
	sock->ep = ep;		/* takes over the command's reference */
	ep->sock = sock;
	if (ep->timeout != DAT_TIMEOUT_INFINITE) {
		uint64_t ms = ((uint64_t)ep->timeout + 999) / 1000;

		sock_deadline(sock, ms ? ms : 1);
	}
	if (ep->hello_out > 0)
		active_hello(ep, sock, ep->hello_out);
	else
		sd_sock_update(ep);	/* connected (writable): active_connected */
	pthread_mutex_unlock(&ep->lock);
	return;
fail:
	active_failed(ep, err);
	pthread_mutex_unlock(&ep->lock);
	sd_qp_put(ep);
}

void sd_cm_connect_now(struct sd_ep *ep)
{
	const struct sd_transport *tp = SD_TP_DEFAULT;
	struct sd_stream *s = ep->connect_stream;
	uint8_t msg[SD_CM_MSG_SIZE + SD_PROTO_MAX_PDATA];
	struct iovec iov = { msg, 0 };
	ssize_t n;
	int r;

	SD_ASSERT_HELD(&ep->lock);
	assert(ep->state == DAT_EP_STATE_ACTIVE_CONNECTION_PENDING);
	ep->connect_now = SD_CONNECT_NOW_NONE;
	ep->connect_err = 0;
	ep->hello_out = 0;
	if (s == NULL)
		return;		/* cm_cmd opens it, and says why it cannot */
	ep->connect_now = SD_CONNECT_NOW_STARTED;
	r = tp->connect(s);
	if (r <= 0) {
		ep->connect_err = r;	/* or in progress: the engine waits */
		return;
	}
	ep->connect_now = SD_CONNECT_NOW_HELLO;
	iov.iov_len = hello_pack(ep, msg);
	/* Traced before it leaves: the peer's rx line may come first. */
	if (sd_trace_enabled()) {
		struct sd_trace_conn tc;
		struct sockaddr_storage here, there;

		memset(&tc, 0, sizeof(tc));
		(void)tp->peer(s, &here, &there);
		sd_trace_conn_set(&tc, (struct sockaddr *)&here,
				  (struct sockaddr *)&there);
		sd_trace_cm("tx", &ep->obj, NULL, &tc, msg, NULL);
	}
	n = tp->writev(s, &iov, 1);
	if (n == -EAGAIN)
		return;		/* not connected yet: the engine waits for it */
	if (n < 0) {
		ep->connect_err = (int)n;	/* refused, reset ... */
		return;
	}
	ep->hello_out = (uint32_t)n;
	cm_cnt(ep->obj.ia, DCNT_IA_CM_REQ_TX);
}

/* Engine: the accepting EP waited too long for the RTU. */
static void rtu_expired(struct sd_sock *sock)
{
	struct sd_ep *ep = sock->ep;

	pthread_mutex_lock(&ep->lock);
	/* An RTU that arrived in time may be unread (see hello_expired). */
	if (ep->sock == sock && sock->phase == SD_SK_ACCEPTED)
		hs_step(ep, sock, UV_READABLE, true);
	if (ep->sock == sock && sock->phase == SD_SK_ACCEPTED) {
		cm_cnt(ep->obj.ia, DCNT_IA_CM_ERR_TIMEOUT);
		sd_qp_close(ep, DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR,
			    NULL, "no RTU in time");
	}
	pthread_mutex_unlock(&ep->lock);
}

/*
 * Engine: dat_cr_handoff moved the request on @sock (phase REQUEST) to
 * the service point at cr->handoff_qual: a new CR there, as if the
 * HELLO had asked for it; refused (NO_SP) if it is gone by now.
 */
static void cr_handoff(struct sd_cr *cr, struct sd_sock *sock)
{
	struct sd_ia *ia = cr->obj.ia;
	struct sd_cm_msg hello = cr->hello;
	struct sd_sp *sp;

	hello.conn_qual = cr->handoff_qual;
	pthread_mutex_lock(&ia->lock);
	sp = sd_sp_find(ia, cr->handoff_qual);
	pthread_mutex_unlock(&ia->lock);
	/* Freed since? Its close_cmd is queued behind us: @sp is intact. */
	if (sp == NULL || sd_sp_request(sp, sock, &hello, cr->pdata) < 0) {
		cm_cnt(ia, DCNT_IA_CM_ERR_REJ_TX);
		sock_reject(sock, SD_REJ_NO_SP);
	}
}

/* cr->cmd: dat_cr_accept, _reject or _handoff; frees the CR. */
void sd_cm_cr_cmd(struct sd_cmd *cmd)
{
	struct sd_cr *cr = sd_container_of(cmd, struct sd_cr, cmd);
	struct sd_sock *sock = cr->sock;
	struct sd_ep *ep = cr->accept_ep;
	uint8_t ext[SD_CM_SHM_EXT_SIZE];
	unsigned ext_len;
	struct sd_cm_msg m;

	SD_ASSERT_ENGINE();
	if (sock != NULL) {
		sock->cr = NULL;
		cr->sock = NULL;
	}
	if (cr->action == SD_CR_REJECT) {
		if (sock != NULL) {
			memset(&m, 0, sizeof(m));
			m.magic = SD_PROTO_MAGIC;
			m.version = SD_PROTO_VERSION;
			m.type = SD_CM_REJECT;
			m.reason = SD_REJ_CONSUMER;
			m.pdata_len = cr->rej_len;
			sock_put_msg(sock, &m, cr->rej_pdata);
			cm_cnt(cr->obj.ia, DCNT_IA_CM_USER_REJ_TX);
			sock_linger(sock);
		}
		goto out;
	}
	if (cr->action == SD_CR_HANDOFF) {
		if (sock != NULL)
			cr_handoff(cr, sock);
		goto out;
	}

	pthread_mutex_lock(&ep->lock);
	if (ep->state != DAT_EP_STATE_PASSIVE_CONNECTION_PENDING ||
	    sock == NULL || ep->sock != NULL) {
		if (ep->state == DAT_EP_STATE_PASSIVE_CONNECTION_PENDING)
			sd_qp_close(ep, DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR,
				    NULL, "the requester left");
		pthread_mutex_unlock(&ep->lock);
		if (sock != NULL)
			sock_close(sock);
		goto out;
	}
	sock->ep = ep;		/* takes over accept_ep's reference */
	cr->accept_ep = NULL;
	ep->sock = sock;
	ep->remote = cr->remote;
	ep->remote_port = cr->remote_port;
	ep->local_port = cr->conn_qual;
	ep_take_peer(ep, &cr->hello);
	ep_fill_msg(ep, &m, SD_CM_ACCEPT);
	ext_len = shm_offer(sock, &cr->hello, &m, ext);
	sock_put_msg(sock, &m, ep->pdata);
	memcpy(sock->out + sock->out_len, ext, ext_len);
	sock->out_len += ext_len;
	cm_cnt(ep->obj.ia, DCNT_IA_CM_REP_TX);
	sock->in_have = 0;	/* the HELLO is consumed; the RTU comes next */
	sock_set_phase(sock, SD_SK_ACCEPTED, "accepted");
	sd_list_add_tail(&hs_wait, &sock->hs_node);
	sock_deadline(sock, cm_timeout_ms());
	(void)sock_flush(sock);	/* a failure shows on the poll next */
	sd_sock_update(ep);
	pthread_mutex_unlock(&ep->lock);
out:
	if (cr->accept_ep != NULL)
		sd_qp_put(cr->accept_ep);
	if (cr->ep != NULL)
		sd_qp_put(cr->ep);
	free(cr);
}

/* sp->cmd: start watching the listener, unless already freed. */
void sd_cm_listen_cmd(struct sd_cmd *cmd)
{
	struct sd_sp *sp = sd_container_of(cmd, struct sd_sp, cmd);
	bool closing;
	int r;

	SD_ASSERT_ENGINE();
	pthread_mutex_lock(&sp->lock);
	closing = sp->closing;
	pthread_mutex_unlock(&sp->lock);
	if (closing || sp->listening || sp->lis == NULL)
		return;		/* close_cmd is queued behind us */
	r = sp->tp->listen_start(sp->lis, listen_io, sp);
	if (r < 0) {
		sd_log("%s: cannot watch its listener (port %llu): %s; no "
		       "connection request will arrive, free it",
		       sd_obj_name(&sp->obj).s,
		       (unsigned long long)sp->conn_qual, uv_strerror(r));
		return;
	}
	uv_timer_init(sd_engine_loop(), &sp->rest);
	sp->listening = true;
	sd_list_add_tail(&listeners, &sp->lnode);
}

static void sp_free(void *arg)
{
	struct sd_sp *sp = arg;

	if (sp->ep != NULL)
		sd_qp_put(sp->ep);
	pthread_mutex_destroy(&sp->lock);
	free(sp);
}

/* Engine: closes @sp's listener, then frees @sp. */
static void sp_close_listener(struct sd_sp *sp)
{
	struct sd_listener *l = sp->lis;

	sp->lis = NULL;
	if (l != NULL)
		sp->tp->listen_close(l, sp_free, sp);
	else
		sp_free(sp);
}

static void sp_rest_closed_cb(uv_handle_t *h)
{
	sp_close_listener(h->data);
}

/* sp->close_cmd, the last use of @sp: stop listening, free it. */
void sd_cm_listen_close_cmd(struct sd_cmd *cmd)
{
	struct sd_sp *sp = sd_container_of(cmd, struct sd_sp, close_cmd);
	struct sd_list *pos;

	SD_ASSERT_ENGINE();
	/* Forget it in the requests still reading their HELLO. */
	sd_list_for_each(pos, &socks) {
		struct sd_sock *sock = sd_container_of(pos, struct sd_sock, node);

		if (sock->sp == sp)
			sock->sp = NULL;
	}
	if (sp->listening) {
		sp->listening = false;
		sd_list_del(&sp->lnode);
		sp->rest.data = sp;
		uv_close((uv_handle_t *)&sp->rest, sp_rest_closed_cb);
	} else {
		sp_close_listener(sp);
	}
}

void sd_cm_shutdown_all(void)
{
	struct sd_list *pos, *next;

	SD_ASSERT_ENGINE();
	for (pos = listeners.next; pos != &listeners; pos = next) {
		struct sd_sp *sp = sd_container_of(pos, struct sd_sp, lnode);

		next = pos->next;
		sd_list_del(&sp->lnode);
		sp->listening = false;
		uv_close((uv_handle_t *)&sp->rest, NULL);
		if (sp->lis != NULL)
			sp->tp->listen_close(sp->lis, NULL, NULL);
		sp->lis = NULL;
	}
	for (pos = socks.next; pos != &socks; pos = next) {
		struct sd_sock *sock = sd_container_of(pos, struct sd_sock, node);

		next = pos->next;
		if (sock->phase != SD_SK_CLOSED)
			sock_close(sock);
	}
}

/* ------------------------------------------------------------------ */
/* Deadlines                                                           */

/*
 * One deadline per handshake stage, on sock->deadline: what runs when the
 * stage's time is up, by phase. The connect timeout spans CONNECTING and
 * HELLO_SENT (it runs from the connect command until the answer comes);
 * REQUEST has no limit (the consumer decides), DATA none (the transport's
 * liveness watches a connection; fault.c's delays have sock->hold).
 */
static const struct {
	void (*fn)(struct sd_sock *sock);
	const char *what;
} on_deadline[SD_SK_CLOSED + 1] = {
	[SD_SK_CONNECTING]	= { connect_expired, "connect" },
	[SD_SK_HELLO_SENT]	= { connect_expired, "connect" },
	[SD_SK_HELLO_WAIT]	= { hello_expired, "HELLO" },
	[SD_SK_ACCEPTED]	= { rtu_expired, "RTU" },
	[SD_SK_LINGER]		= { sock_close, "linger" },
};

static const char *const phase_names[SD_SK_CLOSED + 1] = {
	[SD_SK_CONNECTING] = "CONNECTING", [SD_SK_HELLO_SENT] = "HELLO_SENT",
	[SD_SK_HELLO_WAIT] = "HELLO_WAIT", [SD_SK_REQUEST] = "REQUEST",
	[SD_SK_ACCEPTED] = "ACCEPTED", [SD_SK_DATA] = "DATA",
	[SD_SK_LINGER] = "LINGER", [SD_SK_CLOSED] = "CLOSED",
};

static void deadline_cb(uv_timer_t *t)
{
	struct sd_sock *sock = t->data;

	assert(sd_engine_on_thread());
	if (on_deadline[sock->phase].fn == NULL) {
		/* Its stage ended as the time ran out. */
		sd_dbg("sock %p: stale deadline in %s", (void *)sock,
		       phase_names[sock->phase]);
		return;
	}
	sd_dbg("sock %p: %s deadline", (void *)sock,
	       on_deadline[sock->phase].what);
	on_deadline[sock->phase].fn(sock);
}

/* Engine: the current stage of @sock ends in @ms unless it moves on. */
static void sock_deadline(struct sd_sock *sock, uint64_t ms)
{
	uv_timer_start(&sock->deadline, deadline_cb, ms, 0);
}

/*
 * Engine: @sock goes to phase @to (@why, for the debug line). The
 * deadline stops when the new phase's stage differs from the old one's.
 * ep->lock while attached.
 */
static void sock_set_phase(struct sd_sock *sock, uint8_t to, const char *why)
{
	uint8_t from = sock->phase;

	if (on_deadline[from].fn != on_deadline[to].fn)
		uv_timer_stop(&sock->deadline);
	sock->phase = to;
	sd_dbg("sock %p %s => %s (%s)", (void *)sock, phase_names[from],
	       phase_names[to], why);
}
