/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The raw TCP baselines of the data transfer tests: the same process
 * structure, sizes and wait mode as the DAT side (SB_POLL spins on
 * non-blocking calls, SB_BLOCK blocks in the kernel), with what plain
 * sockets offer in place of each DAT operation:
 *
 *   send-lat, write-lat   ping-pong of messages of the size
 *   read-lat              an 8-byte request, answered with the size
 *   send-bw, write-bw     a stream of messages, then a 1-byte
 *   msg-rate              acknowledgement from the receiver
 *   read-bw               requests kept cmd->window ahead of the answers
 *
 * A TCP_NODELAY connection, the kernel's default buffer sizes.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "softbench.h"

void sb_tcp_open(struct sb_ctx *c)
{
	struct sb_tcp *t = &c->tcp;

	t->buf = aligned_alloc(4096, 2 * (size_t)SB_MAX_SIZE);
	if (t->buf == NULL)
		sb_die("out of memory for the buffers");
	memset(t->buf, 0x5a, 2 * (size_t)SB_MAX_SIZE);
	t->fd = -1;
	t->lfd = -1;
	if (c->server) {
		struct sockaddr_in sin;

		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_addr.s_addr = htonl(c->loopback ? INADDR_LOOPBACK : INADDR_ANY);
		t->lfd = sb_tcp_listen((struct sockaddr *)&sin, sizeof(sin), 0);
		t->port = sb_tcp_port(t->lfd);
	}
}

void sb_tcp_accept(struct sb_ctx *c)
{
	c->tcp.fd = accept4(c->tcp.lfd, NULL, NULL, SOCK_CLOEXEC);
	if (c->tcp.fd < 0)
		sb_die("accept: %s", strerror(errno));
	sb_tcp_nodelay(c->tcp.fd);
}

void sb_tcp_connect_data(struct sb_ctx *c, int port)
{
	c->tcp.port = port;
	c->tcp.fd = sb_tcp_connect((struct sockaddr *)&c->peer, c->peer_len, port);
}

void sb_tcp_close(struct sb_ctx *c)
{
	if (c->tcp.fd >= 0)
		close(c->tcp.fd);
	if (c->tcp.lfd >= 0)
		close(c->tcp.lfd);
	free(c->tcp.buf);
}

static unsigned char *tx(struct sb_ctx *c)
{
	return c->tcp.buf;
}

static unsigned char *rx(struct sb_ctx *c)
{
	return c->tcp.buf + SB_MAX_SIZE;
}

/* --- latency ----------------------------------------------------------- */

double sb_tcp_client_pingpong(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	enum sb_mode mode = (enum sb_mode)cmd->mode;
	double t0;
	uint64_t i;

	sb_ctl_wait_ready(c);
	t0 = sb_now();
	for (i = 0; i < cmd->iters; i++) {
		sb_send_all(c->tcp.fd, tx(c), cmd->size, mode);
		sb_recv_all(c->tcp.fd, rx(c), cmd->size, mode);
	}
	return sb_now() - t0;
}

double sb_tcp_server_pingpong(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	enum sb_mode mode = (enum sb_mode)cmd->mode;
	uint64_t i;

	sb_ctl_ready(c);
	for (i = 0; i < cmd->iters; i++) {
		sb_recv_all(c->tcp.fd, rx(c), cmd->size, mode);
		sb_send_all(c->tcp.fd, tx(c), cmd->size, mode);
	}
	return 0;
}

double sb_tcp_client_read_lat(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	enum sb_mode mode = (enum sb_mode)cmd->mode;
	uint64_t i, req = cmd->size;
	double t0;

	sb_ctl_wait_ready(c);
	t0 = sb_now();
	for (i = 0; i < cmd->iters; i++) {
		sb_send_all(c->tcp.fd, &req, sizeof(req), mode);
		sb_recv_all(c->tcp.fd, rx(c), cmd->size, mode);
	}
	return sb_now() - t0;
}

/* Serves cmd->iters requests of 8 bytes, each with the size it names. */
double sb_tcp_server_read_lat(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	enum sb_mode mode = (enum sb_mode)cmd->mode;
	uint64_t i, req;

	sb_ctl_ready(c);
	for (i = 0; i < cmd->iters; i++) {
		sb_recv_all(c->tcp.fd, &req, sizeof(req), mode);
		if (req != cmd->size)
			sb_die("read request for %llu bytes, expected %llu",
			       (unsigned long long)req,
			       (unsigned long long)cmd->size);
		sb_send_all(c->tcp.fd, tx(c), cmd->size, mode);
	}
	return 0;
}

/* --- streams ----------------------------------------------------------- */

/* Sends all of @iov (modified) with sendmsg, as sb_send_all does. */
static void sendmsg_all(int fd, struct iovec *iov, int n, enum sb_mode mode)
{
	int flags = MSG_NOSIGNAL | (mode == SB_POLL ? MSG_DONTWAIT : 0);
	struct msghdr msg;
	double start = 0;
	uint64_t spins = 0;

	memset(&msg, 0, sizeof(msg));
	while (n > 0) {
		ssize_t done;

		msg.msg_iov = iov;
		msg.msg_iovlen = (size_t)n;
		done = sendmsg(fd, &msg, flags);
		if (done < 0) {
			if (errno != EAGAIN && errno != EINTR)
				sb_die("sendmsg: %s", strerror(errno));
			if (start == 0)
				start = sb_now();
			sb_deadline_check(start, &spins, "a TCP send");
			continue;
		}
		while (n > 0 && (size_t)done >= iov->iov_len) {
			done -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + done;
			iov->iov_len -= (size_t)done;
		}
	}
}

/*
 * The sender of a stream: cmd->iters messages of cmd->size bytes, one
 * send() each, or SB_BATCH per writev() for SB_TCP_BATCH; the run ends
 * when the receiver acknowledges the last byte.
 */
double sb_tcp_client_stream(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	enum sb_mode mode = (enum sb_mode)cmd->mode;
	struct iovec iov[SB_BATCH];
	uint64_t i = 0;
	double t0;
	char ack;

	sb_ctl_wait_ready(c);
	t0 = sb_now();
	if (cmd->impl == SB_TCP_BATCH) {
		while (i < cmd->iters) {
			int j, n = (int)(cmd->iters - i < SB_BATCH ? cmd->iters - i :
					 SB_BATCH);

			for (j = 0; j < n; j++) {
				iov[j].iov_base = tx(c) + (size_t)j * cmd->size %
						  (SB_MAX_SIZE - cmd->size + 1);
				iov[j].iov_len = cmd->size;
			}
			sendmsg_all(c->tcp.fd, iov, n, mode);
			i += (uint64_t)n;
		}
	} else {
		for (; i < cmd->iters; i++)
			sb_send_all(c->tcp.fd, tx(c), cmd->size, mode);
	}
	sb_recv_all(c->tcp.fd, &ack, 1, mode);
	return sb_now() - t0;
}

/* The receiver: reads as much as is there each time, acknowledges the end. */
double sb_tcp_server_stream(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	enum sb_mode mode = (enum sb_mode)cmd->mode;
	uint64_t total = cmd->iters * cmd->size, got = 0;
	char ack = 'A';

	sb_ctl_ready(c);
	while (got < total) {
		uint64_t want = total - got;

		got += sb_recv_some(c->tcp.fd, rx(c),
				    want < SB_MAX_SIZE ? want : SB_MAX_SIZE, mode);
	}
	sb_send_all(c->tcp.fd, &ack, 1, mode);
	return 0;
}

/*
 * read-bw's baseline: requests for cmd->size bytes, cmd->window of them
 * ahead of the answers, as RDMA reads are kept outstanding.
 */
double sb_tcp_client_read_bw(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	enum sb_mode mode = (enum sb_mode)cmd->mode;
	uint64_t sent = 0, got, req = cmd->size;
	double t0;

	sb_ctl_wait_ready(c);
	t0 = sb_now();
	while (sent < cmd->iters && sent < cmd->window) {
		sb_send_all(c->tcp.fd, &req, sizeof(req), mode);
		sent++;
	}
	for (got = 0; got < cmd->iters; got++) {
		sb_recv_all(c->tcp.fd, rx(c), cmd->size, mode);
		if (sent < cmd->iters) {
			sb_send_all(c->tcp.fd, &req, sizeof(req), mode);
			sent++;
		}
	}
	return sb_now() - t0;
}

double sb_tcp_server_read_bw(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	return sb_tcp_server_read_lat(c, cmd);
}
