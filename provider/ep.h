/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl: endpoints, service points, connection requests, SRQs, and how
 * they meet the engine (PROTOCOL.md tells the whole story).
 *
 *   ep.c    EP lifecycle and the state machine (sd_qp_set_state)
 *   cm.c    sockets: connect, accept, the handshake, linger and close
 *   psp.c rsp.c cr.c    service points and connection requests
 *   post.c  the DTO entry points; tx.c and rx.c the wire engine
 *   srq.c   shared receive queues; srqbuf.c their buffers
 *
 * Ownership. A TCP connection is a struct sd_sock, owned by the engine
 * thread: only the engine creates, polls and closes it. While a sock is
 * attached to an EP (ep->sock == sock) every byte it carries is read and
 * written under ep->lock, by the engine (rx, and tx when POLLOUT fires)
 * or by a consumer thread that posts (tx right away when the connection
 * is idle). Detaching (sd_sock_detach, under ep->lock, any thread) hands
 * it back to the engine alone, which flushes the control bytes left in
 * sock->out, drains the input until the peer closes, and closes it.
 *
 * Lifetime. An EP is reference counted: the consumer's handle holds one
 * (dropped by dat_ep_free through the engine, after every command queued
 * before it ran), an attached or lingering sock one, an engine command in
 * flight one where said. Memory goes with the last reference; a consumer
 * may free an EP whose socket the engine still holds.
 */
#ifndef SD_EP_H
#define SD_EP_H

#include <stdatomic.h>
#include <uv.h>

#include <poll.h>
#include <time.h>

#include "softdapl.h"
#include "proto.h"
#include "transport.h"

struct sd_ep;
struct sd_sp;
struct sd_cr;
struct sd_srq;

/* ------------------------------------------------------------------ */
/* Sockets (cm.c)                                                      */

enum sd_sock_phase {
	SD_SK_CONNECTING,	/* active: TCP connect in progress */
	SD_SK_HELLO_SENT,	/* active: HELLO out, ACCEPT/REJECT awaited */
	SD_SK_HELLO_WAIT,	/* passive: reading the HELLO */
	SD_SK_REQUEST,		/* passive: CR delivered, consumer decides */
	SD_SK_ACCEPTED,		/* passive: ACCEPT out, RTU awaited */
	SD_SK_DATA,		/* frames: tx.c and rx.c */
	SD_SK_LINGER,		/* detached: out[] flushed, input drained */
	SD_SK_CLOSED,		/* uv_close issued */
};

/*
 * A connection as the core sees it: a stream of a transport (transport.h)
 * and the handshake's state. The stream is the transport's; the core
 * reaches it only through @tp.
 */
struct sd_sock {
	struct sd_stream *stream;	/* const until the engine closes it */
	const struct sd_transport *tp;	/* const: its transport */
	uv_timer_t	deadline;	/* engine: the handshake stage's time
					 * limit (cm.c, on_deadline) */
	uv_timer_t	hold;		/* engine: fault.c's delays; set up only
					 * when fault injection is on */
	struct sd_cmd	cmd;		/* a consumer thread detached it */
	struct sd_list	node;		/* engine: in the engine's socket list */
	struct sd_list	hs_node;	/* engine: in cm.c's hs_wait while the
					 * peer owes a handshake answer */
	uint8_t		phase;		/* attached: ep->lock; else engine */
	bool		shut_wr;	/* attached: ep->lock; else engine */
	int		handles;	/* engine: the stream and timers not
					 * yet closed */
	struct sd_ep	*ep;		/* engine, set once: holds a reference */
	struct sd_cr	*cr;		/* engine: passive, until accept/reject */
	struct sd_sp	*sp;		/* engine: a listening socket's SP */
	/*
	 * Bytes to send before anything else (a handshake message, RTU, or
	 * the DISCONNECT/TERMINATE of a detached connection), and the
	 * handshake message being received. Attached: ep->lock; else engine.
	 */
	uint32_t	out_len, out_done;
	uint32_t	in_have;
	/*
	 * The connection's trace name and frame numbers (trace.h), counted
	 * from its first handshake message; only written when tracing.
	 * Attached: ep->lock; else engine.
	 */
	struct sd_trace_conn trace;
	uint8_t		out[SD_CM_MSG_SIZE + SD_PROTO_MAX_PDATA];
	uint8_t		in[SD_CM_MSG_SIZE + SD_PROTO_MAX_PDATA];
};

/*
 * @sock's trace state (trace.h), its name ("LOCAL>REMOTE") taken from the
 * stream's addresses the first time. Only when tracing.
 */
static inline struct sd_trace_conn *sd_sock_trace(struct sd_sock *sock)
{
	if (sock->trace.name[0] == '\0') {
		struct sockaddr_storage l, r;

		(void)sock->tp->peer(sock->stream, &l, &r);	/* or AF_UNSPEC */
		sd_trace_conn_set(&sock->trace, (struct sockaddr *)&l,
				  (struct sockaddr *)&r);
	}
	return &sock->trace;
}

/*
 * Hands @ep's socket back to the engine: the EP is done with it. When
 * @ctl is not NULL and the transmitter stands at a frame boundary, that
 * header (DISCONNECT or TERMINATE) goes out first; then the engine shuts
 * the write side, drains input until the peer closes (at most a few
 * seconds) and closes. Releases what the connection held (busy LMRs of
 * READ responses and WRITE placements). ep->lock held; any thread; no-op
 * without a socket.
 */
void sd_sock_detach(struct sd_ep *ep, const struct sd_hdr *ctl);

/* Engine: recomputes and arms the poll events of @ep's socket. ep->lock. */
void sd_sock_update(struct sd_ep *ep);

/*
 * Connection events in the order the peer caused them. InfiniBand carries
 * every CM message between two ports on one channel and OFED's CM thread
 * posts their events in arrival order: an RTU that the requester sent
 * before its DREQ makes ESTABLISHED there before DISCONNECTED. softdapl's
 * connections are separate TCP streams, which the engine reads in the
 * order epoll reports them. So before @ep posts a connection event its
 * peer caused (DISCONNECTED, BROKEN by the peer's close), the handshake
 * answers that the same peer host has already sent on other connections
 * of @ep's IA are read: each socket still waiting for one (cm.c, hs_wait)
 * is read once, and makes its ESTABLISHED (or REJECT) first. On one host
 * that is the order the peer sent them in; between hosts, whatever has
 * arrived. (dtestcm counts every connection event as an establishment
 * and fails without it.) Engine only, and only the outermost call: a
 * consumer thread moving frames, or a handler run from here, does
 * nothing. ep->lock held; other EPs are taken with trylock.
 */
void sd_cm_peer_order(struct sd_ep *ep);

/*
 * Opens the stream @ep's connect will use (transport.h: open): to
 * ep->remote, from the IA's address unless that is a wildcard. 0 and
 * *@stream, or -errno. Any thread; ep->lock or the EP the caller's alone.
 */
int sd_cm_open(struct sd_ep *ep, struct sd_stream **stream);

/* Engine commands of cm.c (fn of ep->cm_cmd, cr->cmd, sp->cmd). */
void sd_cm_connect_cmd(struct sd_cmd *cmd);
void sd_cm_cr_cmd(struct sd_cmd *cmd);
void sd_cm_listen_cmd(struct sd_cmd *cmd);
void sd_cm_listen_close_cmd(struct sd_cmd *cmd);

/*
 * Waits until the engine has run every command queued before the call
 * (and so left every callback it was in). Never on the engine thread.
 */
void sd_engine_sync(void);

/* Engine: closes every socket left (the engine is stopping). */
void sd_cm_shutdown_all(void);

/* ------------------------------------------------------------------ */
/* The wire engine's per-connection state (tx.c, rx.c)                 */

/*
 * A READ_REQ being answered: the region granted and what is left; or an
 * atomic executed, whose response carries @val (issue 4).
 */
struct sd_rresp {
	uint32_t	tag;
	uint8_t		op;		/* SD_OP_READ_RESP or SD_OP_ATOMIC_RESP */
	struct sd_sge	sge;		/* the bytes to send */
	struct sd_lmr	*lmr;		/* busy reference, or NULL (len 0) */
	uint8_t		val[8];		/* ATOMIC_RESP: the old value, LE */
};

enum sd_tx_kind {
	SD_TX_NONE,
	SD_TX_RAW,	/* sock->out: RTU */
	SD_TX_REQ,	/* a request WQE: SEND, WRITE, READ_REQ */
	SD_TX_RESP,	/* a READ or atomic response */
	SD_TX_CTL,	/* ACK or DISCONNECT: header only */
};

/*
 * Frames chosen to go out, oldest first, written together with one
 * sendmsg (tx.c, "Batching"): at most SD_TX_BATCH, and SD_TX_IOV iovecs.
 */
#define SD_TX_BATCH	32
#define SD_TX_IOV	128

struct sd_txf {
	uint8_t		kind;		/* enum sd_tx_kind */
	uint8_t		hdr[SD_HDR_SIZE];	/* not for SD_TX_RAW */
	uint32_t	nsge;
	const struct sd_sge *sge;	/* payload segments */
	uint64_t	len;		/* payload bytes */
	struct sd_sge	one;		/* an atomic request's payload */
};

/*
 * Fault injection's state for one connection (fault.c), under ep->lock
 * with the rest of sd_tx: zeroed by sd_wire_reset, set up when the
 * connection is established. All zero while fault injection is off.
 */
struct sd_fault_conn {
	uint64_t	key;		/* the connection's draws: hash of seed, conn */
	uint64_t	hold_until;	/* delay_us: the held write goes then (ns); 0 */
	uint32_t	conn;		/* its number in this process, from 1; 0: none */
	uint32_t	frames;		/* frames written on it */
	uint32_t	writes;		/* writes that drew a delay */
	const char	*cut;		/* why it is to be cut (tx.c cuts it), or NULL */
};

/* Transmit state; all under ep->lock. */
struct sd_tx {
	struct sd_txf	f[SD_TX_BATCH];	/* ring of frames chosen */
	uint32_t	fhead, fcount;
	uint32_t	hdr_done;	/* f[fhead]: header bytes written */
	uint32_t	traced;		/* f[fhead..fhead + traced): tx lines written
					 * (trace.h; 0 when not tracing) */
	uint64_t	done;		/* f[fhead]: payload bytes written */
	uint32_t	unwritten;	/* requests in the ring */
	uint32_t	resp_picked;	/* responses in the ring */
	bool		disc_picked;	/* our DISCONNECT is in the ring */
	uint32_t	next;		/* requests sent: sq[0..next) from the head */
	uint32_t	seq;		/* number of the next request on the wire */
	uint32_t	peer_ack;	/* our requests the peer executed */
	uint32_t	rd_out;		/* READ_REQs out, response not placed */
	uint32_t	ack_sent;	/* last ack value put in a header */
	bool		blocked;	/* EAGAIN: waiting for POLLOUT */
	bool		ack_hold;	/* no standalone ACK now (progress.c) */
	uint8_t		ack_passes;	/* consumer passes that held the owed
					 * ACK (progress.c) */
	bool		disc_want;	/* graceful: DISCONNECT once drained */
	bool		disc_sent;	/* our DISCONNECT is written */
	struct sd_rresp	*resp;		/* ring of rd_in slots */
	uint32_t	resp_head, resp_count;
	uint64_t	ep_id;		/* the EP's identity for EP-scope RMRs:
					 * set once, by the first sd_wire_reset;
					 * never 0 afterwards, never reused */
	struct sd_fault_conn fault;	/* fault.c; zero unless SOFTDAPL_FAULT */
};

enum sd_rx_state {
	SD_RX_HDR,	/* reading a header */
	SD_RX_BUF,	/* SEND, WRITE_IMM: waiting for a receive (RNR) */
	SD_RX_DATA,	/* placing a payload */
};

/*
 * Bytes read from the socket ahead of the frame being handled: a header
 * and what follows it arrive with one recv (rx.c, "Staging").
 */
#define SD_RX_STAGE	4096
/* An RDMA write's last bytes, stored last and in order (rx.c). */
#define SD_WRITE_TAIL	64

/*
 * Receive state; under ep->lock, driven by whichever thread holds it (the
 * engine, or a consumer in dat_evd_dequeue / dat_evd_wait: progress.c).
 */
struct sd_rx {
	uint8_t		state;		/* enum sd_rx_state */
	uint8_t		hdr[SD_HDR_SIZE];
	uint32_t	hdr_have;
	bool		trace_due;	/* tracing: h's rx line is not written yet
					 * (rx.c, rx_header) */
	struct sd_hdr	h;		/* the header being handled */
	const struct sd_sge *sge;	/* where the payload goes */
	uint32_t	nsge;
	uint64_t	len, done;
	uint64_t	tail;		/* payload offset from which bytes are
					 * stored in order, each once (rx.c,
					 * SD_WRITE_TAIL); len: none */
	struct sd_sge	one;		/* WRITE: the granted region; atomics:
					 * @args */
	struct sd_lmr	*lmr;		/* WRITE: busy reference */
	uint8_t		args[SD_ATOMIC_ARGS];	/* atomic operands or result */
	struct sd_wqe	*wqe;		/* SEND/READ_RESP: the WQE filled */
	bool		from_srq;	/* wqe is an SRQ buffer */
	uint32_t	executed;	/* peer's requests executed: the ack */
	uint32_t	st_off, st_len;	/* stage[st_off, st_len): not yet used */
	uint8_t		stage[SD_RX_STAGE];
};

/* ------------------------------------------------------------------ */
/* Progress from consumer threads (progress.c)                         */

/*
 * An EP is listed on the EVDs its DTOs complete to (request and receive
 * EVD), so that a thread in dat_evd_dequeue or dat_evd_wait on one of them
 * can move the EP's frames itself instead of waiting for the engine to do
 * it and wake it: the thread reads the socket and places what arrived, and
 * writes what is queued, under ep->lock like the engine. An EVD with more
 * than SD_DRIVE_MAX EPs is left to the engine (one poll set serves those
 * best: the engine's).
 */
#define SD_DRIVE_MAX	8

struct sd_drive_link {
	struct sd_list	node;		/* evd->lock of @evd: in evd->drive */
	struct sd_ep	*ep;		/* const */
	struct sd_evd	*evd;		/* ep->lock: the EVD listed on, or NULL */
};

/*
 * Lists @ep on its current request and receive EVDs and off any other
 * (after a create, modify or free changed them). ep->lock held (or the EP
 * not yet published); takes the EVDs' locks.
 */
void sd_drive_relink(struct sd_ep *ep);

/*
 * dat_evd_dequeue found @evd empty: one round of progress on the EPs
 * listed on it (what their sockets hold is read and placed, what is queued
 * is written; an EP whose lock another thread holds is skipped, as that
 * thread moves it). Returns false, having done nothing, when it has none
 * or more than SD_DRIVE_MAX: only other threads fill it then. evd->lock
 * held; dropped meanwhile.
 */
bool sd_progress_poll(struct sd_evd *evd);

/*
 * The waiting of dat_evd_wait: returns once @over(@evd, @threshold) or
 * when @until passes (NULL: never). While the EVD has EPs to move, the
 * waiter moves them itself: it spins over them while sd_spin_get lets it,
 * then sleeps in poll() on their sockets and the EVD's eventfd
 * (sd_evq_wait_fd, which sd_evq_wake writes for events other threads
 * post while evd->polling), so that a message that arrives wakes this
 * thread and no other. Without EPs to move, or without an eventfd, it
 * sleeps on the condition variable and the engine delivers. Spinning
 * stops paying after a few waits that slept anyway (evd->spin_fails,
 * spin_probe). evd->lock held; dropped meanwhile. @over is called with
 * evd->lock held.
 */
void sd_progress_wait(struct sd_evd *evd,
		      bool (*over)(const struct sd_evd *, DAT_COUNT),
		      DAT_COUNT threshold, const struct timespec *until);

/*
 * Bytes sent on one socket of this process and received on another (both
 * ends of a loopback connection in one process) are ordered by the kernel:
 * sendmsg has read them before recv returns them. ThreadSanitizer cannot
 * see through a socket (and models sendmsg's reads as done when it
 * returns, which may be after the peer's recv), so with consumers and the
 * engine both moving frames it would report the sender's memory, reused
 * after the receiver's completion, as a race. Under ThreadSanitizer a
 * leaf mutex held across each sendmsg, and taken after each recv, makes
 * the kernel's order visible. Elsewhere these are nothing.
 */
#if defined(__SANITIZE_THREAD__)
extern pthread_mutex_t sd_wire_order;
static inline void sd_wire_send_begin(void)
{
	pthread_mutex_lock(&sd_wire_order);
}

static inline void sd_wire_send_end(void)
{
	pthread_mutex_unlock(&sd_wire_order);
}

static inline void sd_wire_received(void)
{
	pthread_mutex_lock(&sd_wire_order);
	pthread_mutex_unlock(&sd_wire_order);
}
#else
static inline void sd_wire_send_begin(void) {}
static inline void sd_wire_send_end(void) {}
static inline void sd_wire_received(void) {}
#endif

/*
 * Writes that wait. Two things are held back to be written together:
 *
 * - ACKs. The engine acks what it placed at once, but a consumer that
 *   moved a message in itself holds the standalone ACK back (tx.ack_hold)
 *   for that pass and the next: the answer it is likely to post next
 *   carries the ack for free. What is still owed at the pass after goes
 *   out then.
 * - Requests posted while others are in flight (sd_tx_post): the
 *   consumer's next pass over the EVD, or the ack of those in flight,
 *   writes them in one batch.
 *
 * sd_progress_defer puts the EP on the engine's tick (SD_TICK_MS), which
 * writes whatever still waits by then, so neither ever waits on the
 * consumer. ep->lock held.
 */
void sd_progress_defer(struct sd_ep *ep);

/*
 * Parking. The engine keeps polling every socket for input, but where a
 * consumer reads it, the engine's wake-ups only race it and take the CPU
 * from it (the engine's priority is raised: it wins, reads, and acks at
 * once what the consumer's answer would have carried). The engine parks
 * the socket: stops polling it for input (EOF still) until the next
 * tick. It parks when a consumer's pass over its EVD moved the EP since
 * the last tick (ep->driven): readable then, the engine leaves the input
 * to that consumer; and when consumers read first (readable, and the
 * engine found nothing, twice running). The tick unparks a socket whose
 * consumer did not pass since the previous tick, so a consumer that stops
 * reading leaves its frames to the engine within two ticks.
 *
 * A tick that unparks a socket and finds input waiting has caught a
 * consumer that reads its completions, then spins on memory for the next
 * RDMA write (dtest -W), and each round trip would wait for the tick. The
 * engine then does not park that EP for SD_PARK_HOLD_MS (ep->park_hold):
 * one stall of at most two ticks per that time, instead of one per round
 * trip. Engine, ep->lock.
 */
void sd_progress_park(struct sd_ep *ep);

/*
 * True when a consumer's pass moved @ep since the last tick and the EP
 * may park (not held, not waiting for a receive). Engine, ep->lock.
 */
bool sd_progress_driven(const struct sd_ep *ep);

/*
 * The engine's readiness dispatch (progress.c): poll events on an attached
 * socket in phase DATA go to tx, rx or parking. Engine, ep->lock.
 */
void sd_progress_io(struct sd_ep *ep, int status, int events);

/*
 * Wakes @ep up where it waits: for a receive (RNR, SD_RX_BUF: one was
 * posted, or its SRQ got buffers), or with frames left in its stage, or
 * for the engine to poll its socket again (a consumer-side EAGAIN). Places
 * what it can, writes what is owed, then has the engine poll the socket
 * for what the EP now waits for (directly on the engine, through io_cmd
 * elsewhere). Nothing without a socket in phase DATA. ep->lock; any
 * thread.
 */
void sd_progress_resume(struct sd_ep *ep);

/* io_cmd: sd_progress_resume on the engine. */
void sd_progress_io_cmd(struct sd_cmd *cmd);

/* How long an EP whose input waited for the tick is not parked again. */
#define SD_PARK_HOLD_MS		100

/* CLOCK_MONOTONIC in nanoseconds. */
static inline uint64_t sd_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/*
 * Engine: the tick (engine.c runs it every SD_TICK_MS while wanted): sends
 * the owed ACKs, unparks. Returns whether there is still work for the tick.
 */
bool sd_progress_tick(void);


/* ------------------------------------------------------------------ */
/* Endpoints (ep.c)                                                    */

enum sd_cm_op {
	SD_CMOP_NONE,
	SD_CMOP_CONNECT,	/* dat_ep_connect, _dup_connect, _common_connect */
};

/* A WQE not completed yet carries this status. */
#define SD_WQE_PENDING	0xff

/*
 * An EP's place on its SRQ's list of those waiting for a buffer (RNR):
 * what srqbuf.c, which knows no EP, keeps of it. srq->lock.
 */
struct sd_srq_waiter {
	struct sd_list	node;		/* on srq->waiting */
	bool		waiting;
};

struct sd_ep {
	struct sd_obj	obj;
	pthread_mutex_t	lock;
	atomic_uint	refs;		/* see "Lifetime" above */
	DAT_EP_STATE	state;		/* lock; sd_qp_set_state only */
	bool		freed;		/* lock: dat_ep_free was called */
	struct sd_pz	*pz;		/* lock (ep_modify may set it) */
	struct sd_evd	*recv_evd;	/* lock; NULL once freed */
	struct sd_evd	*req_evd;	/* lock; NULL once freed */
	struct sd_evd	*conn_evd;	/* lock; NULL once freed */
	struct sd_srq	*srq;		/* const */
	DAT_EP_ATTR	attr;		/* lock */
	struct sd_wq	sq;		/* lock: requests (send, write, read) */
	struct sd_wq	rq;		/* lock: receives (not with an SRQ) */

	/* Connection: all under lock. */
	struct sd_sock	*sock;		/* attached socket, or NULL */
	struct sd_sp	*rsp;		/* RESERVED: the RSP holding it */
	struct sd_cr	*cr;		/* TENTATIVE: the request it waits on */
	struct sockaddr_storage remote;	/* the peer's address */
	DAT_CONN_QUAL	remote_port;	/* active: conn_qual; passive: port */
	DAT_CONN_QUAL	local_port;
	DAT_TIMEOUT	timeout;	/* connect timeout, microseconds */
	struct sd_stream *connect_stream; /* the stream the connect call
					 * opened (sd_tcp), until cm_cmd takes
					 * it; NULL (ep.c ep_start_connect) */
	uint8_t		cm_op;		/* enum sd_cm_op for cm_cmd */
	bool		timed_out;	/* the connect timer fired */
	bool		active;		/* this side asked for the connection:
					 * remote and remote_port name the peer's
					 * service point (dat_ep_dup_connect) */
	uint16_t	pdata_len;	/* ours: HELLO or ACCEPT */
	uint16_t	peer_pdata_len;	/* the peer's, for the event */
	uint32_t	peer_max_msg;	/* what the peer accepts from us */
	uint32_t	peer_max_rdma;
	uint32_t	rd_out_max;	/* min(our rd_out, peer's rd_in) */
	uint32_t	rd_in_max;	/* our max_rdma_read_in */
	struct sd_tx	tx;
	struct sd_rx	rx;
	struct sd_drive_link drive[2];	/* on req_evd, recv_evd (progress.c) */
	struct sd_list	ack_node;	/* progress.c ack lock: ACK owed */
	bool		ack_listed;	/* progress.c ack lock */
	struct sd_list	park_node;	/* engine: parked (progress.c) */
	bool		parked;		/* engine, lock: not polled for input */
	uint8_t		eng_miss;	/* engine: readable, found nothing */
	uint64_t	park_hold;	/* engine: not parked before this uv_now
					 * (progress.c, sd_progress_park) */
	bool		driven;		/* atomic: a consumer's pass over its
					 * EVD moved it since the last tick
					 * (progress.c, sd_progress_driven) */
	struct sd_srq_waiter srq_wait;	/* srq->lock: waiting for SRQ buffers */

	/*
	 * dat_ep_set_watermark (ep.c): limits on the receive buffers the EP
	 * holds (sd_qp_recv_count). DAT_WATERMARK_INFINITE: none. Armed
	 * until they fire once; all under lock. The engine side of a firing
	 * (the async event, the broken connection) is wm_cmd's.
	 */
	DAT_COUNT	soft_hw, hard_hw;
	bool		soft_armed, hard_armed;
	bool		soft_fire, hard_fire;	/* lock: wm_cmd has work */
	bool		wm_queued;	/* lock: wm_cmd submitted, not run yet */

	struct sd_cmd	cm_cmd;		/* connect (holds a reference) */
	struct sd_cmd	io_cmd;		/* re-arm the poll, resume rx */
	struct sd_cmd	free_cmd;	/* drops the consumer's reference */
	struct sd_cmd	wm_cmd;		/* a watermark fired (holds a reference) */

	uint8_t		pdata[SD_PROTO_MAX_PDATA];	/* lock */
	uint8_t		peer_pdata[SD_PROTO_MAX_PDATA];	/* lock */
	uint64_t	cnt[DCNT_EP_ALL_COUNTERS];	/* sd_cnt_*: DCNT_EP_* */
};

/* The live EP of a consumer handle, or NULL. */
static inline struct sd_ep *sd_ep_from_handle(DAT_EP_HANDLE h)
{
	struct sd_obj *o = sd_obj_check(h, SD_MAGIC_EP);

	return o ? sd_container_of(o, struct sd_ep, obj) : NULL;
}

void sd_qp_get(struct sd_ep *ep);
void sd_qp_put(struct sd_ep *ep);

/* "UNCONNECTED", ... for messages. */
const char *sd_qp_state_name(DAT_EP_STATE s);

/* DAT_INVALID_STATE with the subtype of EP state @s (dat_error.h). */
DAT_RETURN sd_qp_state_err(DAT_EP_STATE s);

/*
 * The debug and trace lines of a transition of EP @obj (RC or UD) from
 * @from to @to: "ep2 CONNECTED => DISCONNECTED (why)" and a `state` line.
 */
void sd_qp_trace_state(const struct sd_obj *obj, DAT_EP_STATE from,
		       DAT_EP_STATE to, const char *why);

/*
 * Whether a completion of @w (@recv: a receive, on an EP whose receive
 * completion flags are @recv_flags) with @status is a notification event
 * (complete.c; RC and UD EPs alike).
 */
bool sd_complete_notifies(const struct sd_wqe *w, bool recv,
			  DAT_COMPLETION_FLAGS recv_flags,
			  DAT_DTO_COMPLETION_STATUS status);

/*
 * The one transition function: logs "ep %p A => B (why)". Entering
 * DISCONNECTED from a connected state flushes (sd_qp_flush). ep->lock.
 */
void sd_qp_set_state(struct sd_ep *ep, DAT_EP_STATE to, const char *why);

/*
 * Ends the connection of @ep with connection event @ev (DISCONNECTED,
 * BROKEN, TIMED_OUT, ...; 0 for none): state DISCONNECTED, everything
 * flushed, the socket detached (with @ctl sent first if possible).
 * ep->lock; any thread.
 */
void sd_qp_close(struct sd_ep *ep, DAT_EVENT_NUMBER ev, const struct sd_hdr *ctl,
		 const char *why);

/* Posts connection event @ev with the peer's private data. ep->lock. */
void sd_qp_conn_event(struct sd_ep *ep, DAT_EVENT_NUMBER ev, bool pdata);

/*
 * The attributes of an EP created with ep_attributes NULL (and of the
 * EPs a PSP with DAT_PSP_PROVIDER_FLAG makes): OFED's defaults.
 */
extern const DAT_EP_ATTR sd_qp_default_attr;

/*
 * A new EP of @ia with attributes @attr (zeroes read as the provider's
 * defaults) taking its receives from @srq (or NULL), state UNCONNECTED,
 * one reference (the handle's), queues allocated; not yet on ia->eps.
 * Any thread; NULL when out of memory.
 */
struct sd_ep *sd_qp_new(struct sd_ia *ia, const DAT_EP_ATTR *attr,
			struct sd_srq *srq);

/*
 * Zero in these attributes means "the provider's default", as OFED reads
 * them (dtest and dapltest create EPs with max_message_size,
 * max_rdma_size, the read depths and the RDMA iov counts all 0): fills
 * them in. No lock.
 */
void sd_qp_attr_defaults(DAT_EP_ATTR *a);

/*
 * dat_ep_modify's new attributes @a for @ep's queues: when a depth or a
 * segment count changes, reallocates the queues. 0 (done, or nothing to
 * change), -EBUSY when they must change but DTOs are posted, -ENOMEM.
 * ep->lock.
 */
int sd_qp_resize(struct sd_ep *ep, const DAT_EP_ATTR *a);

/*
 * Completes @tmpl, a post on a DISCONNECTED EP, with DAT_DTO_ERR_FLUSHED
 * at once (SEND-5, RECV-7, WRITE-4). ep->lock.
 */
void sd_qp_flush_one(struct sd_ep *ep, const struct sd_wqe *tmpl);

/*
 * Queues the bind @b (checked by dat_rmr_bind in rmr.c, with @ep's
 * handle and @flags) on @ep's request queue, where it takes effect in
 * order with the EP's other requests (the RMR's old binding works until
 * then) and completes with DAT_RMR_BIND_COMPLETION_EVENT on the request
 * EVD. Checks the state (CONNECTED, or DISCONNECTED where it is flushed
 * at once), the PZ and the queue; reserves the new context and stores it
 * in *@ctx (0 when flushed or unbinding). Returns the DAT_RETURN for the
 * consumer. Takes ep->lock.
 */
DAT_RETURN sd_qp_post_bind(struct sd_ep *ep, const struct sd_bind *b,
			   DAT_RMR_COOKIE cookie, DAT_COMPLETION_FLAGS flags,
			   DAT_RMR_CONTEXT *ctx);

/*
 * The IA's side of releasing an EP, RC or UD: unlists @obj, counts the
 * free, and drops the references it held on its three EVDs, its PZ and
 * its SRQ (any may be NULL). Takes ia->lock (not held on entry).
 */
void sd_qp_unref(struct sd_obj *obj, struct sd_evd *const evds[3],
		 struct sd_pz *pz, struct sd_srq *srq);

/*
 * Releases @ep whatever its state (dat_ep_free, sd_qp_destroy, the IA's
 * teardown): closed abruptly, nothing of it reported any more, its
 * references dropped, its handle dead, and its memory freed on the
 * engine after every command queued for it. ep->lock held; drops it.
 */
void sd_qp_release(struct sd_ep *ep);

/*
 * Creates an EP for a PSP with DAT_PSP_PROVIDER_FLAG: no PZ, no EVDs,
 * default attributes except the RDMA read depths, which match the
 * requester's @hello (DAT 2.0 dat_psp_create: "the Provider sets up
 * Endpoint attributes to match the Active side connection request"),
 * state UNCONFIGURED_TENTATIVE. Engine; NULL on failure.
 */
struct sd_ep *sd_qp_create_passive(struct sd_ia *ia, const struct sd_cm_msg *hello);

/*
 * Destroys @ep whatever its state, as dat_ep_free does for the states it
 * allows: for a provider-made EP whose request was rejected or handed
 * off (the EP goes back to the provider: its handle dies). No lock held.
 */
void sd_qp_destroy(struct sd_ep *ep);

/*
 * Receive buffers @ep holds (dat_ep_recv_query's nbufs_allocated): its
 * posted receives not completed, or, with an SRQ, the SRQ buffer it took
 * and has not completed. ep->lock.
 */
DAT_COUNT sd_qp_recv_count(const struct sd_ep *ep);

/*
 * Checks @ep's watermarks against sd_qp_recv_count + @more (the buffer
 * about to be taken) and fires the armed ones that it exceeds: the soft
 * one as an async event, the hard one by breaking the connection; both
 * through ep->wm_cmd on the engine, so any thread may call this. Returns
 * true when the hard watermark fired (the buffer must not be taken).
 * ep->lock held (srq->lock may be held too).
 */
bool sd_qp_check_watermarks(struct sd_ep *ep, DAT_COUNT more);

/*
 * The watermark notifications (dat_ep_set_watermark's soft high
 * watermark, dat_srq_set_lw's low watermark) are asynchronous events on
 * the IA's async EVD. DAT 2.0 names their reasons
 * (DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT for an EP,
 * DAT_SRQ_LOW_WATERMARK_EVENT for an SRQ) but gives them no event number
 * of their own; softdapl posts them under this one, with dat_handle the
 * EP or SRQ and the reason telling which. No other softdapl event uses
 * it, so a consumer that armed a watermark recognizes it by number and
 * reason. They are posted, and counted, by sd_async_error
 * (softdapl.h), as every async event, once the poster holds no lock.
 */
#define SD_EVENT_WATERMARK	DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR

/* ------------------------------------------------------------------ */
/* DTOs (post.c, tx.c, rx.c)                                           */

/*
 * Completes @w of @ep's request queue or receive (@recv) with @status
 * and length @len: posts the DTO event unless it is a successful
 * suppressed one (SEND-2), or the EP is freed. Does not pop. ep->lock.
 */
void sd_complete_dto(struct sd_ep *ep, struct sd_wqe *w, bool recv,
		     DAT_DTO_COMPLETION_STATUS status, uint64_t len);

/*
 * Completes, in post order, the requests at the head of the send queue
 * that are finished: SENDs and WRITEs covered by the peer's ack, READs
 * and atomics whose response is placed, binds that took effect. ep->lock.
 */
void sd_tx_complete_acked(struct sd_ep *ep);

/*
 * Flushes everything outstanding (requests, receives, the SRQ buffer
 * taken) with DAT_DTO_ERR_FLUSHED, in order per queue (SRQ-7). Requests
 * already marked with an error status complete with it. ep->lock.
 */
void sd_qp_flush(struct sd_ep *ep);

/*
 * Fills @h as a control frame @op (TERMINATE, DISCONNECT, ACK) of @ep
 * with @tag and @code, acknowledging what @ep has executed. The one
 * place a control header is built. ep->lock.
 */
void sd_tx_ctl(const struct sd_ep *ep, struct sd_hdr *h, uint8_t op,
	       uint32_t tag, uint32_t code);

/* Resets tx and rx for a new connection. ep->lock. */
void sd_wire_reset(struct sd_ep *ep);

/*
 * Writes what can be written now: RTU, READ responses, requests in order
 * (fences and the read depth permitting), the graceful DISCONNECT, and an
 * ACK if one is owed and nothing else went out. On EAGAIN it arms POLLOUT
 * (directly on the engine, through ep->io_cmd elsewhere). A socket error
 * ends the connection (BROKEN). ep->lock; any thread.
 */
void sd_tx_progress(struct sd_ep *ep);

/*
 * A request was queued on @ep: writes it now if nothing is in flight,
 * else leaves it for a batch (sd_progress_defer). ep->lock; any thread.
 */
void sd_tx_post(struct sd_ep *ep);

/* Whether a frame is partly written: nothing else may go before it ends. */
bool sd_tx_mid_frame(const struct sd_ep *ep);

/* Forgets the frames chosen (the connection is gone). ep->lock. */
void sd_tx_drop_frames(struct sd_ep *ep);

/*
 * Reads and places frames until EAGAIN, RNR, or the connection ends.
 * Returns whether it read anything. ep->lock; any thread (rx.c).
 */
bool sd_rx_progress(struct sd_ep *ep);

/* Whether bytes read from the socket wait in rx.stage. ep->lock. */
bool sd_rx_staged(const struct sd_ep *ep);

/* ------------------------------------------------------------------ */
/* Fault injection (fault.c): SOFTDAPL_FAULT                           */

/*
 * True when SOFTDAPL_FAULT turned fault injection on; set once when the
 * library is loaded, before any thread of ours runs, and never again. The
 * hooks in tx.c test it first, so that fault injection costs one branch
 * predicted not taken when it is off (sd_fault_active).
 */
extern bool sd_fault_on;
#define sd_fault_active()	__builtin_expect(sd_fault_on, 0)

/*
 * @ep's connection is established (sd_wire_reset with the socket
 * attached): numbers it and sets up its draws. ep->lock.
 */
void sd_fault_conn_start(struct sd_ep *ep);

/*
 * A frame whose header is @op was written whole on @ep's connection:
 * counts it, and decides whether the connection is to be cut
 * (tx.fault.cut set; the transmitter calls sd_fault_cut once the write
 * under way is accounted for). ep->lock.
 */
void sd_fault_frame(struct sd_ep *ep, uint8_t op);

/*
 * Cuts @ep's connection as a network failure would: this side ends it
 * with DAT_CONNECTION_EVENT_BROKEN, the peer sees it end inside a frame.
 * ep->lock; any thread (as sd_qp_close).
 */
void sd_fault_cut(struct sd_ep *ep);

/*
 * Whether the write @ep's transmitter is about to make is held back
 * (delay_us). If so the transmitter returns; it is called again when
 * the time is up (the engine's tick, the socket's timer). ep->lock.
 */
bool sd_fault_hold(struct sd_ep *ep);

/* ------------------------------------------------------------------ */
/* Service points and connection requests (psp.c, rsp.c, cr.c)        */

/*
 * A PSP, an RSP or a CSP (obj.magic tells which). PSPs and CSPs are both
 * listed in ia->psps: a CSP is a PSP named by its socket address rather
 * than by a connection qualifier, which on TCP is the same thing (psp.c).
 * sp->lock nests inside ia->lock (sd_sp_find) and outside evd->lock (a
 * request's event is posted under it); no EP lock is taken under it.
 */
struct sd_sp {
	struct sd_obj	obj;
	pthread_mutex_t	lock;
	DAT_CONN_QUAL	conn_qual;	/* const: the TCP port */
	DAT_PSP_FLAGS	flags;		/* const; PSP only */
	DAT_COMM	comm;		/* const; CSP only: its communicator */
	struct sockaddr_storage addr;	/* const; CSP only: where it listens */
	struct sd_evd	*evd;		/* lock; NULL once freed */
	struct sd_ep	*ep;		/* RSP: const; holds a reference */
	bool		consumed;	/* lock; RSP: its request arrived */
	const struct sd_transport *tp;	/* const: the listener's transport */
	struct sd_listener *lis;	/* const until close_cmd: listening */
	bool		listening;	/* engine: lis started (listen_cmd) */
	uv_timer_t	rest;		/* engine, once listening: the pause after
					 * accept ran out of descriptors */
	struct sd_list	lnode;		/* engine, once listening: in cm.c's
					 * listener list */
	struct sd_cmd	cmd;		/* start listening */
	struct sd_cmd	close_cmd;	/* stop listening and free: runs last */
	bool		closing;	/* lock: freed; refuse new requests */
};

/*
 * A new service point of kind @magic (SD_MAGIC_PSP or SD_MAGIC_CSP, the
 * latter with its socket triple @comm) of @ia for the CR EVD @evd,
 * with @flags, listed in ia->psps with its EVD reference and listening
 * at @port (sd_sp_listen). DAT_SUCCESS and *@out; on any error nothing
 * is left behind. Any thread; takes ia->lock.
 */
DAT_RETURN sd_sp_create(struct sd_ia *ia, uint32_t magic, struct sd_evd *evd,
			DAT_PSP_FLAGS flags, const DAT_COMM *comm,
			DAT_CONN_QUAL port, struct sd_sp **out);

/*
 * Opens the listening socket of @sp on @ia's address, port @port (0: the
 * kernel picks; the real one is stored in sp->conn_qual). DAT_SUCCESS,
 * DAT_CONN_QUAL_IN_USE, DAT_INVALID_PARAMETER (port > 65535) or
 * DAT_INSUFFICIENT_RESOURCES. Consumer thread, no lock.
 */
DAT_RETURN sd_sp_listen(struct sd_sp *sp, struct sd_ia *ia, DAT_CONN_QUAL port);

/* Stops listening at once and lets the engine free @sp. */
void sd_sp_release(struct sd_sp *sp);

/*
 * The live service point of @ia that takes requests for @conn_qual: a
 * PSP or CSP listening there, or an RSP not consumed yet; NULL if none.
 * ia->lock held.
 */
struct sd_sp *sd_sp_find(struct sd_ia *ia, DAT_CONN_QUAL conn_qual);

/*
 * Engine: a HELLO arrived on @sock for @sp: makes the CR, links it to
 * @sock (sock->cr) and posts DAT_CONNECTION_REQUEST_EVENT. 0, or -errno
 * (the caller rejects).
 */
int sd_sp_request(struct sd_sp *sp, struct sd_sock *sock,
		  const struct sd_cm_msg *hello, const uint8_t *pdata);

/*
 * Fills @e (zeroed first) as the arrival of request @cr at service point
 * @sp, event number @num: DAT_CONNECTION_REQUEST_EVENT (psp.c), or
 * DAT_IB_UD_CONNECTION_REQUEST_EVENT, whose extension data the caller
 * adds (udcm.c). The event names @sp's IA address and conn_qual, and is
 * never truncated. Any thread; no lock (@sp's fields read are const).
 */
void sd_sp_cr_event(DAT_EVENT *e, DAT_EVENT_NUMBER num, struct sd_sp *sp,
		    DAT_CR_HANDLE cr);

enum sd_cr_action {
	SD_CR_PENDING,
	SD_CR_ACCEPT,
	SD_CR_REJECT,
	SD_CR_HANDOFF,	/* dat_cr_handoff: to the SP of handoff_qual */
};

struct sd_cr {
	struct sd_obj	obj;
	struct sd_sock	*sock;		/* engine; NULL once it died */
	struct sd_ep	*ep;		/* RSP or provider EP (reference) */
	struct sd_ep	*accept_ep;	/* ia->lock: dat_cr_accept's (reference) */
	uint8_t		action;		/* ia->lock: enum sd_cr_action */
	bool		provider;	/* const: @ep was made for it (PSP with
					 * DAT_PSP_PROVIDER_FLAG), not an RSP's */
	DAT_CONN_QUAL	conn_qual;	/* const */
	struct sd_cm_msg hello;		/* const: the peer's attributes */
	struct sockaddr_storage remote;	/* const: the peer's address */
	DAT_PORT_QUAL	remote_port;	/* const */
	struct sd_cmd	cmd;		/* accept/reject on the engine */
	uint16_t	pdata_len;	/* const: the HELLO's private data */
	uint16_t	rej_len;	/* ia->lock: reject's private data */
	DAT_CONN_QUAL	handoff_qual;	/* ia->lock: dat_cr_handoff's */
	uint8_t		pdata[SD_PROTO_MAX_PDATA];
	uint8_t		rej_pdata[SD_PROTO_MAX_PDATA];
};

/* ------------------------------------------------------------------ */
/* Shared receive queues (srq.c; their buffers srqbuf.c)               */

/*
 * Slots are allocated in chunks that never move (an EP placing into a
 * buffer holds a pointer to its slot without srq->lock): creation makes
 * the first, dat_srq_resize adds more, at least doubling the capacity,
 * so a few chunks reach SD_MAX_RECV_PER_SRQ.
 */
#define SD_SRQ_MAX_CHUNKS	24

struct sd_srq_chunk {
	struct sd_wqe	*slot;		/* @n buffers, numbered from @first */
	struct sd_sge	*sge;		/* @n * max_recv_iov segments */
	uint32_t	first, n;
};

struct sd_srq {
	struct sd_obj	obj;
	pthread_mutex_t	lock;
	struct sd_pz	*pz;		/* const */
	DAT_COUNT	max_recv_dtos;	/* lock: the consumer's limit (resize) */
	DAT_COUNT	max_recv_iov;	/* const */
	DAT_COUNT	low_watermark;	/* lock */
	bool		lw_armed;	/* lock: the low watermark may fire */
	struct sd_srq_chunk chunk[SD_SRQ_MAX_CHUNKS];	/* lock to add one */
	unsigned	nchunks;	/* lock */
	uint32_t	size;		/* lock: slots allocated (>= max_recv_dtos) */
	uint32_t	*avail;		/* lock: FIFO of posted slot numbers, @size */
	uint32_t	avail_head, avail_count;
	uint32_t	*free_slot;	/* lock: stack of free slot numbers, @size */
	uint32_t	nfree;
	uint32_t	taken;		/* lock: taken by EPs, not completed */
	unsigned	eps;		/* ia->lock: EPs using it */
	struct sd_list	waiting;	/* lock: EPs in RNR (srq_wait.node) */
	struct sd_cmd	cmd;		/* resume the waiting EPs */
	struct sd_cmd	lw_cmd;		/* engine: post the low-watermark event */
	struct sd_cmd	free_cmd;	/* frees it, after a queued resume */
};

static inline struct sd_srq *sd_srq_from_handle(DAT_SRQ_HANDLE h)
{
	struct sd_obj *o = sd_obj_check(h, SD_MAGIC_SRQ);

	return o ? sd_container_of(o, struct sd_srq, obj) : NULL;
}

/* Allocates @c: @n slots numbered from @first. 0 or -ENOMEM. No lock. */
int sd_srqbuf_chunk_alloc(const struct sd_srq *srq, struct sd_srq_chunk *c,
			  uint32_t first, uint32_t n);

/* The slot numbered @idx. srq->lock, or a slot the caller holds. */
struct sd_wqe *sd_srqbuf_slot_at(struct sd_srq *srq, uint32_t idx);

/*
 * Grows @srq's slots to at least @want: a new chunk of at least the
 * current size (so chunks stay few), and FIFO and free stack arrays for
 * the new size. Allocates with no lock held and installs under srq->lock;
 * a resize that raced and grew it first makes this one retry. 0, -ENOMEM
 * or -ENOSPC (out of chunk slots).
 */
int sd_srqbuf_grow(struct sd_srq *srq, uint32_t want);

/*
 * Takes the oldest posted buffer of @srq into *@w (SRQ-1, SRQ-4) for the
 * EP waiting through @wt, after asking @refuse(@arg), under srq->lock and
 * only when a buffer is posted, whether taking it would exceed the EP's
 * hard high watermark (rx.c passes sd_qp_check_watermarks). 0 with *@w;
 * -EAGAIN, *@w NULL and @wt put on the waiting list, when none is posted
 * (RNR); -EDQUOT, *@w NULL and not waiting, when refused: the buffer
 * stays posted and the engine breaks the connection (ep->wm_cmd). Either
 * way the caller treats a failure as RNR. Checks the SRQ's low
 * watermark. The EP's lock held.
 */
int sd_srqbuf_take(struct sd_srq *srq, struct sd_srq_waiter *wt,
		   bool (*refuse)(void *arg), void *arg, struct sd_wqe **w);

/*
 * Gives back a buffer taken by sd_srqbuf_take once its completion was
 * posted (or unused, @requeue: back to the front of the FIFO). ep->lock
 * held.
 */
void sd_srqbuf_release(struct sd_srq *srq, struct sd_wqe *w, bool requeue);

/*
 * A UD EP's take (ud.c): the oldest posted buffer of @srq, NULL when none
 * is (the datagram is dropped: no RNR wait, no EP watermark). The caller
 * completes it and gives it back with sd_srqbuf_release(requeue false)
 * before it drops its EP's lock. ep->lock of the UD EP held.
 */
struct sd_wqe *sd_srqbuf_take_dgram(struct sd_srq *srq);

/* Takes @wt off @srq's waiting list. The EP's lock held. */
void sd_srqbuf_forget(struct sd_srq *srq, struct sd_srq_waiter *wt);

#endif
