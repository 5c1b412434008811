/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl, layer 4: sockets (cm.c). A connection as the core sees it, and
 * what cm.c offers: detach, poll updates, connect, the engine commands of
 * the handshake and listening.
 *
 * Ownership. A TCP connection is a struct sd_sock, owned by the engine
 * thread: only the engine creates, polls and closes it. While a sock is
 * attached to an EP (ep->sock == sock) every byte it carries is read and
 * written under ep->lock, by the engine (rx, and tx when POLLOUT fires)
 * or by a consumer thread that posts (tx right away when the connection
 * is idle). Detaching (sd_sock_detach, under ep->lock, any thread) hands
 * it back to the engine alone, which flushes the control bytes left in
 * sock->out, drains the input until the peer closes, and closes it.
 */
#ifndef SD_SOCK_H
#define SD_SOCK_H

#include <uv.h>

#include "engine.h"
#include "proto.h"
#include "trace.h"
#include "transport.h"

struct sd_ep;
struct sd_sp;
struct sd_cr;

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
	/*
	 * The stream and its transport. Set when made; changed once at most,
	 * by the engine under ep->lock during the handshake, when a same-host
	 * connection moves to shared memory (cm.c: sd_shm_offer and
	 * sd_shm_attach wrap the TCP stream); then const until closed.
	 */
	struct sd_stream *stream;
	const struct sd_transport *tp;
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
	bool		reset;		/* detached mid-frame by a disconnect:
					 * end with the transport's reset */
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
	uint8_t		out[SD_CM_MSG_SIZE + SD_PROTO_MAX_PDATA + SD_CM_SHM_EXT_SIZE];
	uint8_t		in[SD_CM_MSG_SIZE + SD_PROTO_MAX_PDATA + SD_CM_SHM_EXT_SIZE];
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

/*
 * The connect call's thread, ep->lock, the EP ACTIVE_CONNECTION_PENDING
 * with its stream open (ep->connect_stream): starts the transport's
 * connect and writes the HELLO at once if the stream takes it (on one
 * host the kernel completes a TCP connect within the call), so that the
 * request leaves without waiting for the engine thread to be scheduled.
 * What is left (the socket, its poll and timer, the rest of the HELLO) is
 * sd_cm_connect_cmd's; so is reporting an error met here, as the
 * connection event it always was (ep->connect_err).
 */
void sd_cm_connect_now(struct sd_ep *ep);

/* How far sd_cm_connect_now went (ep->connect_now). */
enum sd_connect_now {
	SD_CONNECT_NOW_NONE,	/* nothing: cm_cmd connects */
	SD_CONNECT_NOW_STARTED,	/* connecting, or failed (connect_err) */
	SD_CONNECT_NOW_HELLO,	/* connected, the HELLO written (hello_out
				 * bytes) or tried, and traced */
};

/* Engine commands of cm.c (fn of ep->cm_cmd, cr->cmd, sp->cmd). */
void sd_cm_connect_cmd(struct sd_cmd *cmd);
void sd_cm_cr_cmd(struct sd_cmd *cmd);
void sd_cm_listen_cmd(struct sd_cmd *cmd);
void sd_cm_listen_close_cmd(struct sd_cmd *cmd);

/* Engine: closes every socket left (the engine is stopping). */
void sd_cm_shutdown_all(void);

#endif
