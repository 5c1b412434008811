/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of connections rather than bytes, DAT and TCP side by side:
 *
 *   conn-rate   one connection at a time: connect, accept, established
 *               on both sides (TCP: connect, accept, one byte from the
 *               server), timed on the client; the teardown is not timed;
 *   ep-setup    cmd->window endpoint pairs (TCP: connections) set up with
 *               at most PIPELINE connects in flight, kept for
 *   ep-bw       an RDMA write stream over all of them at once (TCP: the
 *               same bytes over every connection, driven by epoll), and
 *               the memory each costs (VmRSS before and after, divided);
 *   ep-down     their teardown (not reported);
 *   idle-cpu    a process blocked for cmd->iters milliseconds in
 *               dat_evd_wait(DAT_TIMEOUT_INFINITE) on a connected endpoint
 *               (TCP: in recv()): the CPU its threads used, from getrusage.
 *
 * These use the provider's default EP attributes (ep_attributes NULL), as
 * most consumers do, and EVDs of their own.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "softbench.h"

#define PIPELINE	64	/* connects in flight while setting up many */

static DAT_TIMEOUT connect_timeout(void)
{
	return (DAT_TIMEOUT)SB_TIMEOUT_S * 1000000;
}

static void ep_connect(struct sb_ctx *c, DAT_EP_HANDLE ep)
{
	sb_check(dat_ep_connect(ep, (DAT_IA_ADDRESS_PTR)&c->peer, c->dat.port,
				connect_timeout(), 0, NULL, DAT_QOS_BEST_EFFORT,
				DAT_CONNECT_DEFAULT_FLAG), "dat_ep_connect");
}

static DAT_EP_HANDLE ep_create(struct sb_dat *d, DAT_EVD_HANDLE req_evd,
			       DAT_EVD_HANDLE conn_evd)
{
	DAT_EP_HANDLE ep;

	sb_check(dat_ep_create(d->ia, d->pz, d->recv_evd, req_evd, conn_evd,
			       NULL, &ep), "dat_ep_create");
	return ep;
}

static DAT_EVD_HANDLE evd_create(struct sb_dat *d, DAT_COUNT qlen,
				 DAT_EVD_FLAGS flags)
{
	DAT_EVD_HANDLE evd;

	sb_check(dat_evd_create(d->ia, qlen, DAT_HANDLE_NULL, flags, &evd),
		 "dat_evd_create");
	return evd;
}

/* --- connection rate --------------------------------------------------- */

double sb_dat_client_conn_rate(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	struct sb_dat *d = &c->dat;
	enum sb_mode mode = (enum sb_mode)cmd->mode;
	double sum = 0;
	uint64_t i;

	sb_ctl_wait_ready(c);
	for (i = 0; i < cmd->iters; i++) {
		DAT_EP_HANDLE ep = ep_create(d, d->req_evd, d->c_conn_evd);
		double t0 = sb_now();

		ep_connect(c, ep);
		sb_dat_expect(d->c_conn_evd, mode,
			      DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
		sum += sb_now() - t0;
		sb_check(dat_ep_disconnect(ep, DAT_CLOSE_GRACEFUL_FLAG),
			 "dat_ep_disconnect");
		sb_dat_expect(d->c_conn_evd, mode,
			      DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
		sb_check(dat_ep_free(ep), "dat_ep_free");
	}
	return sum;
}

double sb_dat_server_conn_rate(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	struct sb_dat *d = &c->dat;
	enum sb_mode mode = (enum sb_mode)cmd->mode;
	uint64_t i;

	sb_ctl_ready(c);
	for (i = 0; i < cmd->iters; i++) {
		DAT_EP_HANDLE ep = ep_create(d, d->req_evd, d->c_conn_evd);
		DAT_EVENT e;

		sb_dat_expect(d->cr_evd, mode, DAT_CONNECTION_REQUEST_EVENT, &e);
		sb_check(dat_cr_accept(e.event_data.cr_arrival_event_data.cr_handle,
				       ep, 0, NULL), "dat_cr_accept");
		sb_dat_expect(d->c_conn_evd, mode,
			      DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
		sb_dat_expect(d->c_conn_evd, mode,
			      DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
		sb_check(dat_ep_free(ep), "dat_ep_free");
	}
	return 0;
}

static void set_nonblock(int fd, bool on)
{
	int fl = fcntl(fd, F_GETFL);

	fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

double sb_tcp_client_conn_rate(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	enum sb_mode mode = (enum sb_mode)cmd->mode;
	double sum = 0;
	uint64_t i;
	char b;

	sb_ctl_wait_ready(c);
	for (i = 0; i < cmd->iters; i++) {
		double t0 = sb_now();
		int fd = sb_tcp_connect((struct sockaddr *)&c->peer, c->peer_len,
					c->tcp.port);

		sb_recv_all(fd, &b, 1, mode);
		sum += sb_now() - t0;
		close(fd);
	}
	return sum;
}

double sb_tcp_server_conn_rate(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	enum sb_mode mode = (enum sb_mode)cmd->mode;
	double start = sb_now();
	uint64_t i, spins = 0;
	char b = 'H';

	set_nonblock(c->tcp.lfd, mode == SB_POLL);
	sb_ctl_ready(c);
	for (i = 0; i < cmd->iters; i++) {
		int fd;

		while ((fd = accept4(c->tcp.lfd, NULL, NULL, SOCK_CLOEXEC)) < 0) {
			if (errno != EAGAIN && errno != EINTR)
				sb_die("accept: %s", strerror(errno));
			sb_deadline_check(start, &spins, "a TCP connection");
		}
		sb_tcp_nodelay(fd);
		sb_send_all(fd, &b, 1, mode);
		close(fd);
	}
	set_nonblock(c->tcp.lfd, false);
	return 0;
}

/* --- many endpoint pairs ----------------------------------------------- */

/*
 * The client connects cmd->window EPs, PIPELINE at a time; the server
 * accepts them as their requests come. Each side measures VmRSS before it
 * creates the EPs and once all are established (the buffers were allocated
 * and touched long before, so they are not in the difference).
 */
double sb_dat_client_ep_setup(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	struct sb_dat *d = &c->dat;
	uint32_t i, n = cmd->window, est = 0;
	long rss0;
	double t0, t;

	d->m_conn_evd = evd_create(d, (DAT_COUNT)(2 * n + 16),
				   DAT_EVD_CONNECTION_FLAG);
	d->m_req_evd = evd_create(d, (DAT_COUNT)(n + 16), DAT_EVD_DTO_FLAG);
	d->many = calloc(n, sizeof(*d->many));
	d->many_count = calloc(n, sizeof(*d->many_count));
	if (d->many == NULL || d->many_count == NULL)
		sb_die("out of memory for %u endpoints", n);
	d->nmany = n;
	rss0 = sb_rss_bytes();
	for (i = 0; i < n; i++)
		d->many[i] = ep_create(d, d->m_req_evd, d->m_conn_evd);

	sb_ctl_wait_ready(c);
	t0 = sb_now();
	for (i = 0; i < n; i++) {
		while (i - est >= PIPELINE) {
			sb_dat_expect(d->m_conn_evd, SB_BLOCK,
				      DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
			est++;
		}
		ep_connect(c, d->many[i]);
	}
	for (; est < n; est++)
		sb_dat_expect(d->m_conn_evd, SB_BLOCK,
			      DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	t = sb_now() - t0;
	d->rss_per_ep = (double)(sb_rss_bytes() - rss0) / n;
	return t;
}

/* Returns the bytes of VmRSS each EP cost the server. */
double sb_dat_server_ep_setup(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	struct sb_dat *d = &c->dat;
	uint32_t i, n = cmd->window, est = 0;
	DAT_EVENT e;
	long rss0;

	d->m_conn_evd = evd_create(d, (DAT_COUNT)(2 * n + 16),
				   DAT_EVD_CONNECTION_FLAG);
	d->many = calloc(n, sizeof(*d->many));
	if (d->many == NULL)
		sb_die("out of memory for %u endpoints", n);
	d->nmany = n;
	rss0 = sb_rss_bytes();
	for (i = 0; i < n; i++)
		d->many[i] = ep_create(d, d->req_evd, d->m_conn_evd);

	sb_ctl_ready(c);
	for (i = 0; i < n; i++) {
		sb_dat_expect(d->cr_evd, SB_BLOCK, DAT_CONNECTION_REQUEST_EVENT, &e);
		sb_check(dat_cr_accept(e.event_data.cr_arrival_event_data.cr_handle,
				       d->many[i], 0, NULL), "dat_cr_accept");
		while (dat_evd_dequeue(d->m_conn_evd, &e) == DAT_SUCCESS) {
			if (e.event_number != DAT_CONNECTION_EVENT_ESTABLISHED)
				sb_die("endpoint %u: %s", i,
				       dat_event_name(e.event_number));
			est++;
		}
	}
	for (; est < n; est++)
		sb_dat_expect(d->m_conn_evd, SB_BLOCK,
			      DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	return (double)(sb_rss_bytes() - rss0) / n;
}

/*
 * An RDMA write stream over every EP at once: one write of cmd->size bytes
 * outstanding on each, cmd->iters writes per EP in all, into the same
 * region of the server (the server's CPU takes no part).
 */
double sb_dat_client_ep_bw(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	struct sb_dat *d = &c->dat;
	enum sb_mode mode = (enum sb_mode)cmd->mode;
	uint64_t done = 0, total = (uint64_t)d->nmany * cmd->iters;
	DAT_EVENT e;
	double t0;
	uint32_t i;

	sb_ctl_wait_ready(c);
	t0 = sb_now();
	for (i = 0; i < d->nmany; i++) {
		sb_dat_post_write(d, d->many[i], cmd->size, i);
		d->many_count[i] = 1;
	}
	while (done < total) {
		sb_dat_expect(d->m_req_evd, mode, DAT_DTO_COMPLETION_EVENT, &e);
		i = (uint32_t)e.event_data.dto_completion_event_data.user_cookie.as_64;
		done++;
		if (i < d->nmany && d->many_count[i] < cmd->iters) {
			sb_dat_post_write(d, d->many[i], cmd->size, i);
			d->many_count[i]++;
		}
	}
	return sb_now() - t0;
}

static void many_free(struct sb_dat *d)
{
	uint32_t i;

	for (i = 0; i < d->nmany; i++)
		sb_check(dat_ep_free(d->many[i]), "dat_ep_free");
	free(d->many);
	free(d->many_count);
	d->many = NULL;
	d->many_count = NULL;
	d->nmany = 0;
	sb_check(dat_evd_free(d->m_conn_evd), "dat_evd_free");
	if (d->m_req_evd != DAT_HANDLE_NULL)
		sb_check(dat_evd_free(d->m_req_evd), "dat_evd_free");
	d->m_conn_evd = d->m_req_evd = DAT_HANDLE_NULL;
}

/* The client disconnects every EP; both sides free them once down. */
double sb_dat_client_ep_down(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	struct sb_dat *d = &c->dat;
	uint32_t i;

	sb_ctl_wait_ready(c);
	for (i = 0; i < d->nmany; i++)
		sb_check(dat_ep_disconnect(d->many[i], DAT_CLOSE_GRACEFUL_FLAG),
			 "dat_ep_disconnect");
	for (i = 0; i < d->nmany; i++)
		sb_dat_expect(d->m_conn_evd, SB_BLOCK,
			      DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
	many_free(d);
	return 0;
}

double sb_dat_server_ep_down(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	struct sb_dat *d = &c->dat;
	uint32_t i;

	sb_ctl_ready(c);
	for (i = 0; i < d->nmany; i++)
		sb_dat_expect(d->m_conn_evd, SB_BLOCK,
			      DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
	many_free(d);
	return 0;
}

/*
 * TCP: the same, with sockets. The client connects non-blocking, PIPELINE
 * in flight, and counts a connection once the server's byte arrives.
 */
static int epoll_new(void)
{
	int ep = epoll_create1(EPOLL_CLOEXEC);

	if (ep < 0)
		sb_die("epoll_create1: %s", strerror(errno));
	return ep;
}

static void epoll_add(int ep, int fd, uint32_t events, uint32_t index)
{
	struct epoll_event ev;

	ev.events = events;
	ev.data.u64 = index;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0)
		sb_die("epoll_ctl: %s", strerror(errno));
}

/* epoll_wait in @mode (SB_POLL: never sleeps); dies after SB_TIMEOUT_S. */
static int epoll_in_mode(int ep, struct epoll_event *evs, int max,
			 enum sb_mode mode, double start, uint64_t *spins)
{
	for (;;) {
		int n = epoll_wait(ep, evs, max, mode == SB_POLL ? 0 : 1000);

		if (n > 0)
			return n;
		if (n < 0 && errno != EINTR)
			sb_die("epoll_wait: %s", strerror(errno));
		if (mode == SB_BLOCK)
			*spins |= 4095;		/* check the clock every time */
		sb_deadline_check(start, spins, "TCP connections");
	}
}

double sb_tcp_client_ep_setup(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	struct sb_tcp *t = &c->tcp;
	struct epoll_event evs[PIPELINE];
	uint32_t i, n = cmd->window, est = 0;
	uint64_t spins = 0;
	int ep = epoll_new();
	double t0, took;
	long rss0;

	t->many = calloc(n, sizeof(*t->many));
	if (t->many == NULL)
		sb_die("out of memory for %u connections", n);
	t->nmany = n;
	rss0 = sb_rss_bytes();

	sb_ctl_wait_ready(c);
	t0 = sb_now();
	for (i = 0; i < n || est < n; ) {
		int k, got;

		if (i < n && i - est < PIPELINE) {
			int fd = socket(c->peer.ss_family,
					SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
			struct sockaddr_storage ss = c->peer;

			if (fd < 0)
				sb_die("socket: %s", strerror(errno));
			sb_set_port(&ss, t->port);
			if (connect(fd, (struct sockaddr *)&ss, c->peer_len) < 0 &&
			    errno != EINPROGRESS)
				sb_die("connect: %s", strerror(errno));
			t->many[i] = fd;
			epoll_add(ep, fd, EPOLLIN, i);
			i++;
			continue;
		}
		got = epoll_in_mode(ep, evs, PIPELINE, SB_BLOCK, t0, &spins);
		for (k = 0; k < got; k++) {
			int fd = t->many[evs[k].data.u64];
			char b;

			if (recv(fd, &b, 1, MSG_DONTWAIT) != 1)
				sb_die("connection %llu failed",
				       (unsigned long long)evs[k].data.u64);
			epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
			est++;
		}
	}
	took = sb_now() - t0;
	close(ep);
	t->rss_per_conn = (double)(sb_rss_bytes() - rss0) / n;
	return took;
}

double sb_tcp_server_ep_setup(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	struct sb_tcp *t = &c->tcp;
	uint32_t i, n = cmd->window;
	long rss0;
	char b = 'H';

	t->many = calloc(n, sizeof(*t->many));
	if (t->many == NULL)
		sb_die("out of memory for %u connections", n);
	t->nmany = n;
	rss0 = sb_rss_bytes();
	sb_ctl_ready(c);
	for (i = 0; i < n; i++) {
		t->many[i] = accept4(t->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (t->many[i] < 0)
			sb_die("accept: %s", strerror(errno));
		sb_tcp_nodelay(t->many[i]);
		sb_send_all(t->many[i], &b, 1, SB_BLOCK);
	}
	return (double)(sb_rss_bytes() - rss0) / n;
}

/*
 * cmd->iters messages of cmd->size bytes on every connection, written as
 * epoll says each can take more; the server acknowledges the last byte on
 * the main TCP connection.
 */
double sb_tcp_client_ep_bw(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	struct sb_tcp *t = &c->tcp;
	enum sb_mode mode = (enum sb_mode)cmd->mode;
	struct epoll_event evs[256];
	uint64_t *left, spins = 0;
	uint32_t i, busy = t->nmany;
	int ep = epoll_new();
	double t0;
	char ack;

	left = calloc(t->nmany, sizeof(*left));
	if (left == NULL)
		sb_die("out of memory");
	sb_ctl_wait_ready(c);
	t0 = sb_now();
	for (i = 0; i < t->nmany; i++) {
		left[i] = cmd->iters * cmd->size;
		epoll_add(ep, t->many[i], EPOLLOUT, i);
	}
	while (busy > 0) {
		int k, got = epoll_in_mode(ep, evs, 256, mode, t0, &spins);

		for (k = 0; k < got; k++) {
			uint32_t j = (uint32_t)evs[k].data.u64;
			size_t len = left[j] < cmd->size ? left[j] : cmd->size;
			ssize_t w = send(t->many[j], t->buf, len,
					 MSG_DONTWAIT | MSG_NOSIGNAL);

			if (w < 0 && errno != EAGAIN)
				sb_die("send: %s", strerror(errno));
			if (w > 0)
				left[j] -= (uint64_t)w;
			if (left[j] == 0) {
				epoll_ctl(ep, EPOLL_CTL_DEL, t->many[j], NULL);
				busy--;
			}
		}
	}
	sb_recv_all(t->fd, &ack, 1, mode);
	close(ep);
	free(left);
	return sb_now() - t0;
}

double sb_tcp_server_ep_bw(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	struct sb_tcp *t = &c->tcp;
	enum sb_mode mode = (enum sb_mode)cmd->mode;
	struct epoll_event evs[256];
	uint64_t total = (uint64_t)t->nmany * cmd->iters * cmd->size, got = 0;
	uint64_t spins = 0;
	int ep = epoll_new();
	double start;
	uint32_t i;
	char ack = 'A';

	for (i = 0; i < t->nmany; i++)
		epoll_add(ep, t->many[i], EPOLLIN, i);
	sb_ctl_ready(c);
	start = sb_now();
	while (got < total) {
		int k, n = epoll_in_mode(ep, evs, 256, mode, start, &spins);

		for (k = 0; k < n; k++) {
			ssize_t r;

			while ((r = recv(t->many[evs[k].data.u64],
					 t->buf + SB_MAX_SIZE, SB_MAX_SIZE,
					 MSG_DONTWAIT)) > 0)
				got += (uint64_t)r;
			if (r == 0)
				sb_die("a connection closed early");
		}
	}
	close(ep);
	sb_send_all(t->fd, &ack, 1, mode);
	return 0;
}

static void many_close(struct sb_tcp *t)
{
	uint32_t i;

	for (i = 0; i < t->nmany; i++)
		close(t->many[i]);
	free(t->many);
	t->many = NULL;
	t->nmany = 0;
}

double sb_tcp_client_ep_down(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	sb_ctl_wait_ready(c);
	many_close(&c->tcp);
	return 0;
}

double sb_tcp_server_ep_down(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	sb_ctl_ready(c);
	many_close(&c->tcp);
	return 0;
}

/* --- idle CPU ---------------------------------------------------------- */

/*
 * The server blocks on a connected EP until the client, having slept
 * cmd->iters milliseconds, sends it 8 bytes; the reply is the percentage
 * of one CPU the server process (its waiting thread and the engine thread)
 * used meanwhile. The client measures its own process the same way while
 * it sleeps (an IA open, nothing waiting).
 */
double sb_dat_client_idle(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	struct sb_dat *d = &c->dat;
	double cpu0, t0;

	sb_ctl_wait_ready(c);
	cpu0 = sb_cpu_seconds();
	t0 = sb_now();
	sb_sleep((double)cmd->iters / 1000);
	c->client_idle = 100 * (sb_cpu_seconds() - cpu0) / (sb_now() - t0);
	sb_dat_post_send(d, d->ep, 8);
	sb_dat_reap(d, SB_BLOCK, 0);
	return 0;
}

double sb_dat_server_idle(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	struct sb_dat *d = &c->dat;
	double cpu0, t0, cpu;
	DAT_COUNT more;
	DAT_EVENT e;

	sb_dat_post_recv(d, d->ep, 8);
	sb_ctl_ready(c);
	cpu0 = sb_cpu_seconds();
	t0 = sb_now();
	sb_check(dat_evd_wait(d->recv_evd, DAT_TIMEOUT_INFINITE, 1, &e, &more),
		 "dat_evd_wait");
	cpu = 100 * (sb_cpu_seconds() - cpu0) / (sb_now() - t0);
	if (e.event_number != DAT_DTO_COMPLETION_EVENT)
		sb_die("unexpected %s", dat_event_name(e.event_number));
	return cpu;
}

double sb_tcp_client_idle(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	double cpu0, t0;
	char b = 'W';

	sb_ctl_wait_ready(c);
	cpu0 = sb_cpu_seconds();
	t0 = sb_now();
	sb_sleep((double)cmd->iters / 1000);
	c->client_idle = 100 * (sb_cpu_seconds() - cpu0) / (sb_now() - t0);
	sb_send_all(c->tcp.fd, &b, 1, SB_BLOCK);
	return 0;
}

double sb_tcp_server_idle(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	double cpu0, t0;
	char b;

	sb_ctl_ready(c);
	cpu0 = sb_cpu_seconds();
	t0 = sb_now();
	sb_recv_all(c->tcp.fd, &b, 1, SB_BLOCK);
	return 100 * (sb_cpu_seconds() - cpu0) / (sb_now() - t0);
}
