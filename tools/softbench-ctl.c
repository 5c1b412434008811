/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control channel: the session's start (hello both ways, then the DAT
 * and TCP data connections), one command per measurement point, and the
 * server's loop that serves them.
 *
 * A command of N runs goes
 *
 *     client                      server
 *     struct sb_cmd  ---------->
 *                                 prepares run 1 (posts receives...)
 *                    <----------  'R'
 *     runs and times it           serves it
 *     'D'            ---------->
 *     ...                         (N times)
 *                    <----------  struct sb_reply
 *
 * so that the server is ready before the clock starts and both sides are
 * quiet between runs.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "softbench.h"

/* Who serves which test: the two roles, for DAT and for TCP. */
struct sb_roles {
	sb_run_fn *client, *server;
};

static sb_run_fn serve_passive;

static const struct sb_roles roles[SB_NTESTS][2] = {
	[SB_SEND_LAT] = {
		{ sb_dat_client_send_lat, sb_dat_server_send_lat },
		{ sb_tcp_client_pingpong, sb_tcp_server_pingpong } },
	[SB_WRITE_LAT] = {
		{ sb_dat_client_write_lat, sb_dat_server_write_lat },
		{ sb_tcp_client_pingpong, sb_tcp_server_pingpong } },
	[SB_READ_LAT] = {
		{ sb_dat_client_read_lat, serve_passive },
		{ sb_tcp_client_read_lat, sb_tcp_server_read_lat } },
	[SB_SEND_BW] = {
		{ sb_dat_client_stream, sb_dat_server_stream },
		{ sb_tcp_client_stream, sb_tcp_server_stream } },
	[SB_WRITE_BW] = {
		{ sb_dat_client_stream, serve_passive },
		{ sb_tcp_client_stream, sb_tcp_server_stream } },
	[SB_READ_BW] = {
		{ sb_dat_client_stream, serve_passive },
		{ sb_tcp_client_read_bw, sb_tcp_server_read_bw } },
	[SB_MSG_RATE] = {
		{ sb_dat_client_stream, sb_dat_server_stream },
		{ sb_tcp_client_stream, sb_tcp_server_stream } },
	[SB_CONN_RATE] = {
		{ sb_dat_client_conn_rate, sb_dat_server_conn_rate },
		{ sb_tcp_client_conn_rate, sb_tcp_server_conn_rate } },
	[SB_EP_SETUP] = {
		{ sb_dat_client_ep_setup, sb_dat_server_ep_setup },
		{ sb_tcp_client_ep_setup, sb_tcp_server_ep_setup } },
	[SB_EP_BW] = {
		{ sb_dat_client_ep_bw, serve_passive },
		{ sb_tcp_client_ep_bw, sb_tcp_server_ep_bw } },
	[SB_EP_DOWN] = {
		{ sb_dat_client_ep_down, sb_dat_server_ep_down },
		{ sb_tcp_client_ep_down, sb_tcp_server_ep_down } },
	[SB_IDLE_CPU] = {
		{ sb_dat_client_idle, sb_dat_server_idle },
		{ sb_tcp_client_idle, sb_tcp_server_idle } },
};

static const struct sb_roles *roles_of(const struct sb_cmd *cmd)
{
	if (cmd->test >= SB_NTESTS || cmd->impl >= SB_NIMPLS)
		sb_die("bad command: test %u, impl %u", cmd->test, cmd->impl);
	return &roles[cmd->test][cmd->impl == SB_DAT ? 0 : 1];
}

/* The server's part of a one-sided test: nothing but being there. */
static double serve_passive(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	sb_ctl_ready(c);
	return 0;
}

static void ctl_send(struct sb_ctx *c, const void *buf, size_t len)
{
	sb_send_all(c->ctl, buf, len, SB_BLOCK);
}

/* Blocking; the other process leaving ends this one too. */
static void ctl_recv(struct sb_ctx *c, void *buf, size_t len)
{
	char *p = buf;

	while (len > 0) {
		ssize_t n = recv(c->ctl, p, len, 0);

		if (n == 0)
			sb_die("the %s process has gone (its message, if any, is above)",
			       c->server ? "client" : "server");
		if (n < 0 && errno != EINTR)
			sb_die("control connection: %s", strerror(errno));
		if (n > 0) {
			p += n;
			len -= (size_t)n;
		}
	}
}

static void ctl_byte(struct sb_ctx *c, char b)
{
	ctl_send(c, &b, 1);
}

static void ctl_expect(struct sb_ctx *c, char b)
{
	char got;

	ctl_recv(c, &got, 1);
	if (got != b)
		sb_die("control: expected '%c', got 0x%02x", b, (unsigned char)got);
}

void sb_ctl_ready(struct sb_ctx *c)
{
	ctl_byte(c, 'R');
}

void sb_ctl_wait_ready(struct sb_ctx *c)
{
	ctl_expect(c, 'R');
}

/*
 * The client's start: the server's hello (its ports and buffer), ours (our
 * buffer, for the RDMA write ping-pong), then the two data connections.
 */
void sb_client_start(struct sb_ctx *c)
{
	struct sb_hello h, mine;

	ctl_recv(c, &h, sizeof(h));
	if (h.magic != SB_MAGIC)
		sb_die("the server speaks another protocol (magic 0x%08x)", h.magic);
	sb_dat_open(c);
	sb_tcp_open(c);
	sb_dat_peer(&c->dat, &h);
	c->dat.port = h.dat_port;

	memset(&mine, 0, sizeof(mine));
	mine.magic = SB_MAGIC;
	sb_dat_hello(&c->dat, &mine);
	ctl_send(c, &mine, sizeof(mine));

	sb_dat_connect(c);
	sb_tcp_connect_data(c, (int)h.tcp_port);
	ctl_expect(c, 'R');	/* the server holds both connections */
}

/*
 * Runs one command: its runs one by one, each run's time in samples[];
 * then the server's reply, whose value is left in c->last_value.
 */
int sb_run_command(struct sb_ctx *c, const struct sb_cmd *cmd, double *samples)
{
	const struct sb_roles *r = roles_of(cmd);
	struct sb_reply reply;
	uint32_t i;

	ctl_send(c, cmd, sizeof(*cmd));
	for (i = 0; i < cmd->runs; i++) {
		samples[i] = r->client(c, cmd);
		ctl_byte(c, 'D');
	}
	ctl_recv(c, &reply, sizeof(reply));
	if (reply.magic != SB_MAGIC || reply.status != 0)
		sb_die("the server failed a command");
	c->last_value = reply.value;
	return 0;
}

void sb_client_quit(struct sb_ctx *c)
{
	struct sb_cmd cmd;

	memset(&cmd, 0, sizeof(cmd));
	cmd.magic = SB_MAGIC;
	cmd.test = SB_QUIT;
	ctl_send(c, &cmd, sizeof(cmd));
	ctl_expect(c, 'Q');
}

/*
 * The server: listens for the control connection on @ctl_port (0: any;
 * the port goes to @ready_fd as a line, or to stdout when @ready_fd < 0),
 * serves one client session, and returns when the client quits.
 */
void sb_serve(struct sb_ctx *c, int ctl_port, int ready_fd)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	socklen_t len = sizeof(ss);
	struct sb_hello h;
	struct sb_cmd cmd;
	int lfd, port;

	memset(&ss, 0, sizeof(ss));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(ready_fd >= 0 ? INADDR_LOOPBACK : INADDR_ANY);
	lfd = sb_tcp_listen((struct sockaddr *)&ss, sizeof(*sin), ctl_port);
	port = sb_tcp_port(lfd);

	/* The IA, the buffers and the PSP exist before the client is told. */
	sb_dat_open(c);
	sb_tcp_open(c);
	if (ready_fd >= 0) {
		char line[32];
		int n = snprintf(line, sizeof(line), "%d\n", port);

		if (write(ready_fd, line, (size_t)n) != n)
			sb_die("cannot report the port: %s", strerror(errno));
		close(ready_fd);
	} else {
		printf("softbench server: listening on port %d "
		       "(run: softbench --client THIS_HOST --port %d)\n", port, port);
		fflush(stdout);
	}
	c->ctl = accept(lfd, (struct sockaddr *)&c->peer, &len);
	if (c->ctl < 0)
		sb_die("accept: %s", strerror(errno));
	c->peer_len = len;
	close(lfd);
	sb_tcp_nodelay(c->ctl);

	memset(&h, 0, sizeof(h));
	h.magic = SB_MAGIC;
	h.dat_port = (uint32_t)c->dat.port;
	h.tcp_port = (uint32_t)sb_tcp_port(c->tcp.lfd);
	sb_dat_hello(&c->dat, &h);
	ctl_send(c, &h, sizeof(h));

	ctl_recv(c, &h, sizeof(h));
	if (h.magic != SB_MAGIC)
		sb_die("the client speaks another protocol (magic 0x%08x)", h.magic);
	sb_dat_peer(&c->dat, &h);

	sb_dat_connect(c);
	sb_tcp_accept(c);
	ctl_byte(c, 'R');

	for (;;) {
		struct sb_reply reply;
		const struct sb_roles *r;
		uint32_t i;

		ctl_recv(c, &cmd, sizeof(cmd));
		if (cmd.magic != SB_MAGIC)
			sb_die("bad command (magic 0x%08x)", cmd.magic);
		if (cmd.test == SB_QUIT)
			break;
		r = roles_of(&cmd);
		memset(&reply, 0, sizeof(reply));
		reply.magic = SB_MAGIC;
		for (i = 0; i < cmd.runs; i++) {
			reply.value = r->server(c, &cmd);
			ctl_expect(c, 'D');
		}
		ctl_send(c, &reply, sizeof(reply));
	}
	sb_dat_close(c);
	sb_tcp_close(c);
	ctl_byte(c, 'Q');
	close(c->ctl);
}
