/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TCP, the first transport behind the seam (transport.h): a stream is a
 * nonblocking TCP socket and the libuv poll that watches it, a listener a
 * listening socket and its poll. Every socket system call of the
 * connection core is here.
 *
 * A stream's poll is set up on the engine the first time the stream is
 * armed (open runs on a consumer thread, and the loop is the engine's), so
 * a stream never armed is closed at once, on any thread.
 */
#include <errno.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <uv.h>

#include "engine.h"
#include "transport.h"
#include "util.h"

struct sd_stream {
	uv_poll_t	poll;		/* engine, once poll_init */
	int		fd;		/* const until closed */
	bool		poll_init;	/* engine */
	bool		polling;	/* engine: poll started */
	int		events;		/* engine: events armed */
	sd_stream_cb	cb;		/* engine */
	void		*arg;
	sd_closed_cb	done;		/* engine: close's */
	void		*done_arg;
	struct sd_list	live_node;	/* engine: in live.streams */
	bool		live;		/* engine: liveness set */
	/* open's: where connect goes, and from where (src_len 0: any). */
	socklen_t	src_len, dst_len;
	struct sockaddr_storage src, dst;
};

struct sd_listener {
	uv_poll_t	poll;		/* engine, once poll_init */
	int		fd;		/* const until closed */
	bool		poll_init;	/* engine */
	sd_listen_cb	cb;		/* engine */
	void		*arg;
	sd_closed_cb	done;		/* engine: listen_close's */
	void		*done_arg;
};

static int neg_errno(void)
{
	return errno == EWOULDBLOCK ? -EAGAIN : -errno;
}

static void set_nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static struct sd_stream *stream_new(int fd)
{
	struct sd_stream *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	s->fd = fd;
	sd_list_init(&s->live_node);
	return s;
}

/* ------------------------------------------------------------------ */
/* Dead peers and dead links                                           */

/*
 * TCP notices a peer that closes or resets, not one that falls silent: a
 * link taken down, a cable pulled, a host powered off. Left to the
 * kernel's defaults, a connection with data in flight retransmits for
 * about 15 minutes (tcp_retries2) before it fails, and an idle one never
 * does; an RC endpoint on InfiniBand gives up after its transport retries,
 * seconds. So once a connection is established (set_liveness):
 *
 *   TCP_USER_TIMEOUT: data that stays unacknowledged this long fails the
 *     socket with ETIMEDOUT;
 *   keepalive probes after a third of it without traffic, then every
 *     third: an idle connection probes, and with TCP_USER_TIMEOUT set the
 *     kernel fails it once probes went unanswered that long.
 *
 * The failure reaches the EP as a socket error: DAT_CONNECTION_EVENT_BROKEN
 * on both sides (each side times out by itself), everything outstanding
 * flushed. SOFTDAPL_TCP_USER_TIMEOUT_MS sets the time (default 30000; the
 * keepalive's resolution is a second); 0 leaves the kernel's defaults.
 *
 * A receiver not ready must still wait indefinitely (README): a peer that
 * stopped reading leaves our data queued behind its closed window, and
 * Linux applies TCP_USER_TIMEOUT to its window probes too, answered or not
 * (since 5.11). So a timer looks at every connection each quarter of the
 * timeout, and while a socket has data queued, none in flight and no more
 * than one window probe unanswered (tcp_info), the peer is alive and only
 * not reading: its user timeout is off until that no longer holds. A link
 * that dies during such a wait is noticed once probes go unanswered; the
 * kernel spaces them out (up to two minutes apart), so that takes longer.
 */
#define SD_TCP_USER_TIMEOUT_MS	30000

/* Engine: the streams whose liveness is watched, and the timer that does. */
static struct {
	struct sd_list	streams;
	uv_timer_t	*timer;		/* NULL while no stream is watched */
	unsigned	ms;		/* the timer's stream limit */
} live = { { &live.streams, &live.streams }, NULL, 0 };

/* Engine: SD_TCP_USER_TIMEOUT_MS, or the environment's (0: off), read once. */
static unsigned tcp_user_timeout_ms(void)
{
	static unsigned ms;
	static bool done;

	if (!done) {
		ms = (unsigned)sd_env_num("SOFTDAPL_TCP_USER_TIMEOUT_MS", 0,
					  3600000, SD_TCP_USER_TIMEOUT_MS,
					  "a number of milliseconds from 0 to "
					  "3600000");
		done = true;
	}
	return ms;
}

/*
 * Engine: turns @s's user timeout off while its peer's window is closed
 * and the peer answers, on otherwise (see above).
 */
static void live_check(struct sd_stream *s, unsigned ms)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti), clen = sizeof(unsigned);
	unsigned cur = 0, want = ms;
	int queued = 0;

	if (getsockopt(s->fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0 ||
	    ioctl(s->fd, SIOCOUTQ, &queued) < 0 ||
	    getsockopt(s->fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &cur, &clen) < 0)
		return;
	if (queued > 0 && ti.tcpi_unacked == 0 && ti.tcpi_probes <= 1)
		want = 0;
	if (cur == want)
		return;
	sd_dbg("tcp stream %p: %s", (void *)s, want ? "user timeout on" :
	       "the peer's window is closed: user timeout off");
	setsockopt(s->fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &want, sizeof(want));
}

/* Engine: every quarter of the timeout, while streams are watched. */
static void live_tick(uv_timer_t *t)
{
	struct sd_list *pos;

	(void)t;
	sd_list_for_each(pos, &live.streams)
		live_check(sd_container_of(pos, struct sd_stream, live_node),
			   live.ms);
}

static void live_timer_closed(uv_handle_t *h)
{
	free(h);
}

/* Engine: @s is no longer watched; the last one takes the timer along. */
static void live_forget(struct sd_stream *s)
{
	if (!s->live)
		return;
	s->live = false;
	sd_list_del(&s->live_node);
	sd_list_init(&s->live_node);
	if (sd_list_empty(&live.streams) && live.timer != NULL) {
		uv_close((uv_handle_t *)live.timer, live_timer_closed);
		live.timer = NULL;
	}
}

static int tcp_set_liveness(struct sd_stream *s, unsigned ms)
{
	unsigned tick;
	int one = 1, secs;

	if (ms == SD_TP_LIVENESS_DEFAULT)
		ms = tcp_user_timeout_ms();
	if (ms == 0 || s->live)
		return 0;
	secs = ms >= 6000 ? (int)(ms / 3000) : 1;
	if (setsockopt(s->fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &ms, sizeof(ms)) < 0 ||
	    setsockopt(s->fd, IPPROTO_TCP, TCP_KEEPIDLE, &secs, sizeof(secs)) < 0 ||
	    setsockopt(s->fd, IPPROTO_TCP, TCP_KEEPINTVL, &secs, sizeof(secs)) < 0 ||
	    setsockopt(s->fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one)) < 0)
		return -errno;
	if (live.timer == NULL) {
		live.timer = malloc(sizeof(*live.timer));
		if (live.timer == NULL)
			return -ENOMEM;
		uv_timer_init(sd_engine_loop(), live.timer);
		live.ms = ms;
		tick = ms / 4 > 10 ? ms / 4 : 10;
		uv_timer_start(live.timer, live_tick, tick, tick);
	}
	s->live = true;
	sd_list_add_tail(&live.streams, &s->live_node);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Connecting                                                          */

static int tcp_open(struct sd_stream **sp, const struct sockaddr *src,
		    socklen_t srclen, const struct sockaddr *dst,
		    socklen_t dstlen)
{
	struct sd_stream *s;
	int fd;

	if (dstlen > sizeof(s->dst) || srclen > sizeof(s->src))
		return -EINVAL;
	fd = socket(dst->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	s = stream_new(fd);
	if (s == NULL) {
		close(fd);
		return -ENOMEM;
	}
	set_nodelay(fd);
	/*
	 * Connection qualifiers are TCP ports, and the kernel takes the
	 * source ports of connections from the same range (dtest's 45248
	 * is in it). On InfiniBand a connection never keeps a service ID
	 * from being listened on; here SO_REUSEADDR lets a dat_psp_create
	 * take a port that this connection holds, or held until its
	 * TIME_WAIT ends (dtestcm's 1000 connections leave as many), and
	 * the port is chosen at connect (IP_BIND_ADDRESS_NO_PORT), where
	 * the kernel avoids the ports of service points.
	 */
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &(int){ 1 }, sizeof(int));
	(void)setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &(int){ 1 },
			 sizeof(int));
	memcpy(&s->dst, dst, dstlen);
	s->dst_len = dstlen;
	if (src != NULL) {
		memcpy(&s->src, src, srclen);
		s->src_len = srclen;
	}
	*sp = s;
	return 0;
}

static int tcp_connect(struct sd_stream *s)
{
	struct pollfd p = { .fd = s->fd, .events = POLLOUT };

	if (s->src_len > 0 &&
	    bind(s->fd, (struct sockaddr *)&s->src, s->src_len) < 0)
		return -errno;
	if (connect(s->fd, (struct sockaddr *)&s->dst, s->dst_len) == 0)
		return 1;
	if (errno != EINPROGRESS)
		return -errno;
	/*
	 * On one host the kernel has run the handshake within the call. A
	 * failure is left to connect_result, as for one that takes longer.
	 */
	if (poll(&p, 1, 0) == 1 && p.revents == POLLOUT)
		return 1;
	return 0;
}

static int tcp_connect_result(struct sd_stream *s)
{
	int err = 0;
	socklen_t len = sizeof(err);

	if (getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
		return -errno;
	return -err;
}

/* ------------------------------------------------------------------ */
/* Listening                                                           */

static int tcp_listen(struct sd_listener **lp, const struct sockaddr *addr,
		      socklen_t len, struct sockaddr_storage *bound)
{
	struct sd_listener *l;
	socklen_t blen = sizeof(*bound);
	int one = 1, fd, err;

	fd = socket(addr->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (addr->sa_family == AF_INET6 &&
	    memcmp(&((const struct sockaddr_in6 *)addr)->sin6_addr,
		   &in6addr_any, sizeof(in6addr_any)) == 0) {
		int zero = 0;	/* "::" takes IPv4 peers too, whatever bindv6only */

		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	}
	if (bind(fd, addr, len) < 0 || listen(fd, 1024) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	memset(bound, 0, sizeof(*bound));
	getsockname(fd, (struct sockaddr *)bound, &blen);
	l = calloc(1, sizeof(*l));
	if (l == NULL) {
		close(fd);
		return -ENOMEM;
	}
	l->fd = fd;
	*lp = l;
	return 0;
}

static void listen_poll_cb(uv_poll_t *p, int status, int events)
{
	struct sd_listener *l = p->data;

	(void)status;
	(void)events;
	if (l->cb != NULL)
		l->cb(l, l->arg);
}

static int tcp_listen_start(struct sd_listener *l, sd_listen_cb cb, void *arg)
{
	int r;

	if (!l->poll_init) {
		r = uv_poll_init_socket(sd_engine_loop(), &l->poll, l->fd);
		if (r < 0)
			return r;
		l->poll_init = true;
		l->poll.data = l;
	}
	l->cb = cb;
	l->arg = arg;
	if (cb == NULL)
		return uv_poll_stop(&l->poll);
	return uv_poll_start(&l->poll, UV_READABLE, listen_poll_cb);
}

static int tcp_accept(struct sd_listener *l, struct sd_stream **sp)
{
	for (;;) {
		struct sd_stream *s;
		int fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return neg_errno();
		}
		set_nodelay(fd);
		s = stream_new(fd);
		if (s == NULL) {
			close(fd);
			continue;	/* as before: this one is dropped */
		}
		*sp = s;
		return 0;
	}
}

static void tcp_listen_stop(struct sd_listener *l)
{
	shutdown(l->fd, SHUT_RDWR);
}

static void listener_free(struct sd_listener *l)
{
	sd_closed_cb done = l->done;
	void *arg = l->done_arg;

	close(l->fd);
	free(l);
	if (done != NULL)
		done(arg);
}

static void listener_closed_cb(uv_handle_t *h)
{
	listener_free(h->data);
}

static void tcp_listen_close(struct sd_listener *l, sd_closed_cb done, void *arg)
{
	l->done = done;
	l->done_arg = arg;
	l->cb = NULL;
	if (l->poll_init)
		uv_close((uv_handle_t *)&l->poll, listener_closed_cb);
	else
		listener_free(l);
}

/* ------------------------------------------------------------------ */
/* Bytes                                                               */

ssize_t sd_tcp_writev(struct sd_stream *s, const struct iovec *iov, int n)
{
	struct msghdr msg;

	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = (struct iovec *)(uintptr_t)iov;	/* sendmsg reads it */
	msg.msg_iovlen = (size_t)n;
	for (;;) {
		ssize_t r = sendmsg(s->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (r >= 0)
			return r;
		if (errno != EINTR)
			return neg_errno();
	}
}

ssize_t sd_tcp_readv(struct sd_stream *s, const struct iovec *iov, int n)
{
	for (;;) {
		/* One buffer: recv, as the stage is filled (rx.c). */
		ssize_t r = n == 1 ?
			recv(s->fd, iov[0].iov_base, iov[0].iov_len, MSG_DONTWAIT) :
			readv(s->fd, iov, n);

		if (r >= 0)
			return r;
		if (errno != EINTR)
			return neg_errno();
	}
}

static int tcp_shutdown_wr(struct sd_stream *s)
{
	return shutdown(s->fd, SHUT_WR) < 0 ? -errno : 0;
}

/* ------------------------------------------------------------------ */
/* Readiness and closing                                               */

static void stream_poll_cb(uv_poll_t *p, int status, int events)
{
	struct sd_stream *s = p->data;

	if (status < 0)
		s->polling = false;	/* libuv stopped it (POLLERR) */
	s->cb(s, status, events, s->arg);
}

static int tcp_arm(struct sd_stream *s, int events, sd_stream_cb cb, void *arg)
{
	int r;

	if (events == 0) {
		if (s->polling)
			uv_poll_stop(&s->poll);
		s->polling = false;
		s->events = 0;
		return 0;
	}
	s->cb = cb;
	s->arg = arg;
	if (s->polling && s->events == events)
		return 0;
	if (!s->poll_init) {
		r = uv_poll_init_socket(sd_engine_loop(), &s->poll, s->fd);
		if (r < 0)
			return r;
		s->poll_init = true;
		s->poll.data = s;
	}
	r = uv_poll_start(&s->poll, events, stream_poll_cb);
	if (r == 0) {
		s->polling = true;
		s->events = events;
	}
	return r;
}

static int tcp_wait_fd(const struct sd_stream *s)
{
	return s->fd;
}

static bool tcp_wait_arm(struct sd_stream *s)
{
	(void)s;
	return false;	/* readable exactly when bytes or the end wait */
}

static bool tcp_writable(struct sd_stream *s)
{
	(void)s;
	return false;	/* a system call to know: the engine's POLLOUT */
}

static void stream_free(struct sd_stream *s)
{
	sd_closed_cb done = s->done;
	void *arg = s->done_arg;

	close(s->fd);
	free(s);
	if (done != NULL)
		done(arg);
}

static void stream_closed_cb(uv_handle_t *h)
{
	stream_free(h->data);
}

static void tcp_close(struct sd_stream *s, sd_closed_cb done, void *arg)
{
	s->done = done;
	s->done_arg = arg;
	live_forget(s);
	if (s->poll_init)
		uv_close((uv_handle_t *)&s->poll, stream_closed_cb);
	else
		stream_free(s);	/* never armed: any thread */
}

static void tcp_reset(struct sd_stream *s)
{
	struct linger l = { .l_onoff = 1, .l_linger = 0 };

	(void)setsockopt(s->fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
}

static int tcp_peer(const struct sd_stream *s, struct sockaddr_storage *local,
		    struct sockaddr_storage *remote)
{
	socklen_t ll = sizeof(*local), rl = sizeof(*remote);
	int err = 0;

	if (local != NULL) {
		memset(local, 0, sizeof(*local));
		if (getsockname(s->fd, (struct sockaddr *)local, &ll) < 0) {
			err = -errno;
			local->ss_family = AF_UNSPEC;
		}
	}
	if (remote != NULL) {
		memset(remote, 0, sizeof(*remote));
		if (getpeername(s->fd, (struct sockaddr *)remote, &rl) < 0) {
			err = -errno;
			remote->ss_family = AF_UNSPEC;
		}
	}
	return err;
}

/* TCP reaches nothing of the peer's memory: every RDMA is a frame. */
static int tcp_expose(struct sd_stream *s, const struct sd_tp_expose *x)
{
	(void)s;
	(void)x;
	return -EOPNOTSUPP;
}

static int tcp_rdma(struct sd_stream *s, const struct sd_tp_rdma *op)
{
	(void)s;
	(void)op;
	return -EOPNOTSUPP;
}

static bool tcp_pulls(struct sd_stream *s)
{
	(void)s;
	return false;
}

const struct sd_transport sd_tcp = {
	.name		= "tcp",
	.open		= tcp_open,
	.connect	= tcp_connect,
	.connect_result	= tcp_connect_result,
	.listen		= tcp_listen,
	.listen_start	= tcp_listen_start,
	.accept		= tcp_accept,
	.listen_stop	= tcp_listen_stop,
	.listen_close	= tcp_listen_close,
	.writev		= sd_tcp_writev,
	.readv		= sd_tcp_readv,
	.arm		= tcp_arm,
	.wait_fd	= tcp_wait_fd,
	.wait_arm	= tcp_wait_arm,
	.writable	= tcp_writable,
	.shutdown_wr	= tcp_shutdown_wr,
	.close		= tcp_close,
	.reset		= tcp_reset,
	.expose		= tcp_expose,
	.rdma		= tcp_rdma,
	.peer_pulls	= tcp_pulls,
	.pulls		= tcp_pulls,
	.pull		= tcp_rdma,
	.peer		= tcp_peer,
	.set_liveness	= tcp_set_liveness,
};
