/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl: the transport seam, what the connection core (cm.c, tx.c,
 * rx.c, sp.c, progress.c, ep.c) needs from a byte stream: open and
 * connect one, listen and accept, write and read bytes of frames, be told
 * when it is ready, half-close and close it, the addresses of its two
 * ends, and the detection of a dead peer. TCP (tcp.c) is the first
 * implementation; a transport added later fills a struct sd_transport of
 * its own, and no DAT object file changes.
 *
 * The seam moves bytes and nothing else: framing stays in the core (tx.c
 * builds frames as iovecs, rx.c parses and stages them), and partial
 * writes and reads are normal (the tx ring and the rx state track where a
 * frame stands). A message-based transport may take fewer bytes than
 * offered and stop at a frame boundary (proto.h gives the header size, so
 * it can find one), but must never return -EAGAIN for a write that holds
 * a whole frame while it has room.
 *
 * Conventions, for every operation:
 *
 *   - Returns 0 (or a byte count) on success, or a negative errno; errno
 *     itself means nothing afterwards. EINTR never comes back: the
 *     transport retries. Nothing blocks: a stream and a listener are
 *     nonblocking, and what cannot be done now is -EAGAIN.
 *   - Threads: "engine" means the engine thread only (engine.c); "any"
 *     means any thread, with the lock the core holds for the object said.
 *     Callbacks (readiness, listener, closed) run on the engine with no
 *     lock held; a callback may call any operation, including close.
 *   - Ownership: open and accept allocate a stream, listen a listener;
 *     only close (for a stream) and listen_close (for a listener) free
 *     them, in their @done callback, after the loop let go of them (close
 *     first, free in the callback). The caller owns every buffer it
 *     passes; nothing is kept after return.
 *   - A transport that cannot do something fills the slot with a stub
 *     returning -EOPNOTSUPP; no slot is NULL.
 *
 * Datagrams (UD: ud.c, udcm.c) are not streams and are not behind this
 * seam.
 */
#ifndef SD_TRANSPORT_H
#define SD_TRANSPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

struct sd_stream;		/* a transport's connection; opaque to the core */
struct sd_tp_expose;
struct sd_tp_rdma;
struct sd_listener;		/* a transport's listening endpoint */

/*
 * Readiness is told in libuv's poll events (uv_poll_event: UV_READABLE,
 * UV_WRITABLE, UV_DISCONNECT): every transport runs on the engine's loop.
 */

/*
 * Engine, no lock held: @s became readable, writable or hung up
 * (@events); @status < 0 when the transport saw an error, and
 * then readiness is off until armed again.
 */
typedef void (*sd_stream_cb)(struct sd_stream *s, int status, int events,
			     void *arg);
/* Engine, no lock held: connections wait on @l (accept takes them). */
typedef void (*sd_listen_cb)(struct sd_listener *l, void *arg);
/* Engine, no lock held: the stream or listener is freed. */
typedef void (*sd_closed_cb)(void *arg);

/*
 * The liveness limit a connection's transport applies unless told
 * otherwise (set_liveness): its own (TCP: SOFTDAPL_TCP_USER_TIMEOUT_MS).
 */
#define SD_TP_LIVENESS_DEFAULT	0u

struct sd_transport {
	const char *name;		/* "tcp" */

	/*
	 * Any thread, no lock. Prepares an outbound stream to @dst, to
	 * leave from @src (its port ignored: the transport picks one), or
	 * from any address when @src is NULL. Nothing is sent yet; the
	 * address is checked when connect runs. 0 and *@s, or -errno:
	 * -EMFILE, -ENFILE, -ENOBUFS, -ENOMEM (out of resources), others.
	 */
	int (*open)(struct sd_stream **s, const struct sockaddr *src,
		    socklen_t srclen, const struct sockaddr *dst,
		    socklen_t dstlen);
	/*
	 * Starts connecting @s: 1 when connected already (TCP on one host,
	 * often), 0 when in progress, or -errno (-ECONNREFUSED,
	 * -ENETUNREACH, an address @src cannot be bound to ...). Completion
	 * shows as writability (arm); then connect_result tells whether it
	 * succeeded. Any thread, with the lock of the object that owns @s
	 * (ep->lock), while @s was never armed; then the engine.
	 */
	int (*connect)(struct sd_stream *s);
	/*
	 * Engine. The stream's pending error, cleared by the read: 0 or
	 * -errno. After a connect completes (writable): whether it
	 * succeeded. After readiness reported an error on a connected
	 * stream: what the error was (-ECONNRESET, -ETIMEDOUT ...).
	 */
	int (*connect_result)(struct sd_stream *s);

	/*
	 * Any thread, no lock. Binds @addr (port 0: the transport picks one)
	 * and listens; *@bound gets the address taken. 0 and *@l, or
	 * -errno: -EADDRINUSE or -EACCES when the address is taken or
	 * refused, others (-EMFILE ...) when out of resources.
	 */
	int (*listen)(struct sd_listener **l, const struct sockaddr *addr,
		      socklen_t len, struct sockaddr_storage *bound);
	/*
	 * Engine. Calls @cb whenever connections wait to be accepted; a NULL
	 * @cb stops that (a listener resting after -EMFILE). 0 or -errno.
	 */
	int (*listen_start)(struct sd_listener *l, sd_listen_cb cb, void *arg);
	/*
	 * Engine. One waiting connection: 0 and *@s (nonblocking, ready for
	 * frames), -EAGAIN when none waits, -EMFILE, -ENFILE, -ENOBUFS or
	 * -ENOMEM when out of resources (the connection keeps waiting: the
	 * caller rests, or @cb would be called at once again), other -errno.
	 */
	int (*accept)(struct sd_listener *l, struct sd_stream **s);
	/*
	 * Any thread, no lock, at most once, before listen_close: stops
	 * taking connections now (requests arriving after it are refused by
	 * the transport), though the listener lives on until listen_close.
	 */
	void (*listen_stop)(struct sd_listener *l);
	/*
	 * Engine. Stops listening and frees @l; @done(@arg) runs on the
	 * engine once the loop let go of it. @done may be NULL.
	 */
	void (*listen_close)(struct sd_listener *l, sd_closed_cb done, void *arg);

	/*
	 * Writes bytes of @n iovecs (n >= 1), without blocking. Returns the
	 * bytes taken (> 0, maybe fewer than offered), -EAGAIN (nothing
	 * taken: arm UV_WRITABLE), or -errno (-EPIPE, -ECONNRESET: the
	 * peer is gone; others: the stream is broken). Never raises a
	 * signal. Any thread: ep->lock while the stream is attached to an
	 * EP (consumer threads move frames, progress.c), or while it is the
	 * connecting EP's and never armed (the HELLO, cm.c); else the engine.
	 */
	ssize_t (*writev)(struct sd_stream *s, const struct iovec *iov, int n);
	/*
	 * Reads into @n iovecs (n >= 1), without blocking. Bytes read (> 0),
	 * 0 at the end of the stream, -EAGAIN when nothing waits, or -errno.
	 * Same threads and locks as writev.
	 */
	ssize_t (*readv)(struct sd_stream *s, const struct iovec *iov, int n);

	/*
	 * Engine. Arms exactly @events (0 stops readiness): @cb(@s,
	 * status, events, @arg) runs on the engine, no lock held, while one
	 * of them holds. Arming what is armed already costs nothing. 0 or
	 * -errno.
	 */
	int (*arm)(struct sd_stream *s, int events, sd_stream_cb cb, void *arg);
	/*
	 * Any thread. A file descriptor that poll(2) reports readable when
	 * @s has bytes or ended (progress.c's consumer threads sleep in
	 * ppoll on them), or -1 when there is none (the waiter sleeps on its
	 * EVD instead). Constant while @s lives.
	 */
	int (*wait_fd)(const struct sd_stream *s);
	/*
	 * The caller is about to sleep on wait_fd: from now on, bytes that
	 * arrive (or the end) make it readable. Returns true when some are
	 * there already, and the caller does not sleep. Same threads and
	 * locks as readv. (TCP: the fd is readable exactly then; false.)
	 */
	bool (*wait_arm)(struct sd_stream *s);
	/*
	 * Whether a write would take bytes now, known without a system call
	 * (shared memory: a look at the ring); false when that takes the
	 * engine's readiness (TCP). A consumer thread that moves a stream's
	 * frames retries a write that found no room when this says so,
	 * instead of waiting for the engine to be scheduled. Same threads
	 * and locks as writev.
	 */
	bool (*writable)(struct sd_stream *s);

	/*
	 * Half-closes @s after the last byte written: the peer reads the end
	 * of the stream; reading goes on. 0 or -errno. Same threads and
	 * locks as writev.
	 */
	int (*shutdown_wr)(struct sd_stream *s);
	/*
	 * Engine. Stops readiness and frees @s; @done(@arg) runs on the
	 * engine once the loop let go of it (@done may be NULL). Unread
	 * bytes are dropped (TCP may answer them with a reset). A stream
	 * never armed (open's, before connect) may be closed on any thread,
	 * and is freed, @done called, before close returns.
	 */
	void (*close)(struct sd_stream *s, sd_closed_cb done, void *arg);
	/*
	 * Engine, right before close: ends @s as an abort, not an end. The
	 * peer reads what was written before, then its reads fail with
	 * -ECONNRESET instead of reading the end of the stream (TCP: a reset,
	 * SO_LINGER 0), so it knows the cut was meant even mid-frame.
	 */
	void (*reset)(struct sd_stream *s);

	/*
	 * One-sided RDMA, where a transport can reach the peer's memory
	 * itself (shared memory: cma.h). expose: the connection is
	 * established, and @x says what of ours a peer may reach; from now
	 * on it may place into and read from our memory as @x's grants
	 * allow, until the stream ends, or until expose(@s, NULL), which
	 * returns once the peer is out of our memory (at the connection's
	 * end, before its requests are flushed). rdma: does @op in the peer's memory
	 * now; 0 when done, or -EAGAIN (or -EOPNOTSUPP): it goes as a frame
	 * instead. Same threads and locks as writev.
	 */
	int (*expose)(struct sd_stream *s, const struct sd_tp_expose *x);
	int (*rdma)(struct sd_stream *s, const struct sd_tp_rdma *op);
	/*
	 * SENDs by address (proto.h): peer_pulls says whether the peer reads
	 * a SEND's payload from our memory itself (then a SEND may name it
	 * instead of writing it); pulls whether we can read the peer's, and
	 * pull reads @op->len bytes at @op->addr of it into @op->local (0;
	 * -ESHUTDOWN: the peer's end came first, and withdrew the SEND;
	 * -EFAULT: the peer named memory it does not have). Same threads and
	 * locks as writev.
	 */
	bool (*peer_pulls)(struct sd_stream *s);
	bool (*pulls)(struct sd_stream *s);
	int (*pull)(struct sd_stream *s, const struct sd_tp_rdma *op);

	/*
	 * Any thread. The addresses of @s's two ends, either pointer NULL
	 * when not wanted; an end not known is left with ss_family
	 * AF_UNSPEC. 0, or -errno when an end wanted is not known.
	 */
	int (*peer)(const struct sd_stream *s, struct sockaddr_storage *local,
		    struct sockaddr_storage *remote);
	/*
	 * Engine. @s carries a connection from now on: the transport is to
	 * notice a dead peer (a link down, a host gone) within @ms, or
	 * within its own limit (SD_TP_LIVENESS_DEFAULT), and report it as an
	 * error on the stream (readiness status < 0, then readv or writev
	 * fail). 0 or -errno.
	 */
	int (*set_liveness)(struct sd_stream *s, unsigned ms);
};

/* What a side of a connection lets its peer reach (expose). */
struct sd_tp_expose {
	uint64_t	grants;		/* its IA's grant table (cma.h), or 0 */
	uint32_t	slots;		/* entries in it */
	uint64_t	pz;		/* its EP's protection zone */
	uint64_t	ep;		/* its EP's number (sd_tx.ep_id) */
};

/* An RDMA write or read to do in the peer's memory (rdma). */
struct sd_tp_rdma {
	bool			write;
	const struct iovec	*local;		/* @n segments, @len bytes */
	int			n;
	uint64_t		len;
	uint32_t		rkey;		/* the peer's context */
	uint64_t		addr;		/* in the peer's memory */
};

/* TCP (tcp.c). */
extern const struct sd_transport sd_tcp;

/*
 * Shared memory between two processes of one host and one user (shm.c):
 * a stream of it wraps the TCP stream its handshake ran on, and moves the
 * bytes through rings in a segment both map (proto.h, "The same-host
 * segment"); the TCP stream carries wake-ups and the peer's end. Its
 * open, connect and listening slots are stubs: cm.c makes its streams
 * with the two calls below.
 */
extern const struct sd_transport sd_shm;

struct sd_cm_shm_ext;

/* SOFTDAPL_TRANSPORT: what a connection on one host may use. */
enum sd_shm_policy {
	SD_SHM_AUTO,	/* "auto" (default): shared memory where it can */
	SD_SHM_OFF,	/* "tcp": TCP only */
	SD_SHM_COPY,	/* "copy": shared memory, every byte through rings */
};

/* The setting, read once (a bad value is said, and auto taken). Any thread. */
enum sd_shm_policy sd_shm_policy(void);

/*
 * Listener, engine: makes a segment for the connection on TCP stream
 * @tcp, whose HELLO offered shared memory, and fills @ext for the ACCEPT.
 * *@out wraps @tcp (which it owns from now on) and carries the ACCEPT by
 * TCP; what comes next decides: an RTU in the ring means the requester
 * attached, one by TCP that it did not (sd_shm_is_ring tells which). 0,
 * or -errno and *@why (the connection stays on @tcp, which is untouched).
 */
int sd_shm_offer(struct sd_stream *tcp, struct sd_cm_shm_ext *ext,
		 struct sd_stream **out, const char **why);
/*
 * Requester, engine: attaches to the segment an ACCEPT's @ext names,
 * after checking that it is its user's own, closed to others and the one
 * offered. *@out wraps @tcp (owned from now on) and sends everything
 * through the ring, the RTU first. 0, or -errno and *@why (@tcp untouched).
 */
int sd_shm_attach(struct sd_stream *tcp, const struct sd_cm_shm_ext *ext,
		  struct sd_stream **out, const char **why);
/* Whether @s (of sd_shm) moves its bytes through the rings by now. */
bool sd_shm_is_ring(const struct sd_stream *s);

/*
 * The transport of every connection and service point: TCP, until an IA
 * chooses one when it opens.
 */
#define SD_TP_DEFAULT	(&sd_tcp)

/*
 * TCP's writev and readv, for the data path to call without the table
 * when the stream is TCP's (tx.c, rx.c): see sd_tp_writev.
 */
ssize_t sd_tcp_writev(struct sd_stream *s, const struct iovec *iov, int n);
ssize_t sd_tcp_readv(struct sd_stream *s, const struct iovec *iov, int n);

/*
 * The data path's writes and reads. A call through the table costs one
 * indirect branch per system call; where the stream is TCP's, these call
 * tcp.c directly (devirtualized by hand), so the branch is predicted and
 * the call can be inlined into nothing more than a compare.
 */
static inline ssize_t sd_tp_writev(const struct sd_transport *tp,
				   struct sd_stream *s,
				   const struct iovec *iov, int n)
{
	if (tp == &sd_tcp)
		return sd_tcp_writev(s, iov, n);
	return tp->writev(s, iov, n);
}

static inline ssize_t sd_tp_readv(const struct sd_transport *tp,
				  struct sd_stream *s,
				  const struct iovec *iov, int n)
{
	if (tp == &sd_tcp)
		return sd_tcp_readv(s, iov, n);
	return tp->readv(s, iov, n);
}

#endif
