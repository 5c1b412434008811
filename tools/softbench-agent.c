/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The agents: one client session per transport, each in a process of its
 * own, since the provider reads SOFTDAPL_TRANSPORT once per process.
 *
 *     main --socketpair-- agent (client) --control, DAT, TCP-- server
 *
 * The main process runs the plan and hands each command to an agent; the
 * agent runs it as the client (sb_run_command, which also times it) and
 * answers with a struct sb_result. Over loopback each agent forks its own
 * server, with the same setting; with --client the one agent connects to
 * the server on the other host. An agent that fails says why and exits
 * non-zero, and the main process dies when it reads its end; an agent
 * whose main process has gone ends its session and exits.
 *
 * Both ends are forks of one program: the messages are raw structs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "softbench.h"

/* Reads all @len bytes of @fd; false when the other end closed first. */
static bool read_full(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len > 0) {
		ssize_t n = read(fd, p, len);

		if (n == 0)
			return false;
		if (n < 0 && errno != EINTR)
			sb_die("agent channel: %s", strerror(errno));
		if (n > 0) {
			p += n;
			len -= (size_t)n;
		}
	}
	return true;
}

/* Waits for @pid; whether it exited 0. */
static bool reaped_ok(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return false;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Forks this agent's server over loopback; returns its pid and control port. */
static pid_t fork_server(struct sb_ctx *c, const char *role, int *port)
{
	char line[32] = "";
	ssize_t n, got = 0;
	int fds[2];
	pid_t pid;

	if (pipe(fds) < 0)
		sb_die("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		sb_die("fork: %s", strerror(errno));
	if (pid == 0) {
		close(fds[0]);
		sb_role = role;
		c->server = true;
		sb_serve(c, 0, fds[1]);
		exit(0);
	}
	close(fds[1]);
	while (got < (ssize_t)sizeof(line) - 1 &&
	       (n = read(fds[0], line + got, sizeof(line) - 1 - (size_t)got)) > 0)
		got += n;
	close(fds[0]);
	*port = atoi(line);
	if (*port <= 0)
		sb_die("the server process did not start");
	return pid;
}

/* The agent's loop: the main process's commands on @fd until SB_QUIT. */
static void serve_main(struct sb_ctx *c, int fd)
{
	struct sb_result res;
	struct sb_cmd cmd;

	while (read_full(fd, &cmd, sizeof(cmd)) && cmd.test != SB_QUIT) {
		if (cmd.runs > SB_MAX_RUNS)
			sb_die("a command of %u runs", cmd.runs);
		memset(&res, 0, sizeof(res));
		sb_run_command(c, &cmd, res.t);
		res.server_value = c->last_value;
		res.client_idle = c->client_idle;
		res.rss_per_ep = cmd.impl == SB_DAT ? c->dat.rss_per_ep :
			c->tcp.rss_per_conn;
		sb_send_all(fd, &res, sizeof(res), SB_BLOCK);
	}
}

/*
 * The agent process: SOFTDAPL_TRANSPORT=@transport, a session with its
 * server (forked here over loopback, else at @port of c->peer), one byte
 * on @fd once it is connected, then the commands. Never returns.
 */
static void agent_main(struct sb_ctx *c, int fd, const char *transport,
		       int port)
{
	static char client_role[32], server_role[32];
	const char ready = 'R';
	pid_t server = -1;

	snprintf(client_role, sizeof(client_role), "client (%s)", transport);
	snprintf(server_role, sizeof(server_role), "server (%s)", transport);
	sb_role = client_role;
	setenv("SOFTDAPL_TRANSPORT", transport, 1);
	if (c->loopback)
		server = fork_server(c, server_role, &port);
	c->ctl = sb_tcp_connect((struct sockaddr *)&c->peer, c->peer_len, port);
	sb_client_start(c);
	sb_send_all(fd, &ready, 1, SB_BLOCK);
	serve_main(c, fd);
	sb_client_quit(c);
	sb_dat_close(c);
	sb_tcp_close(c);
	close(c->ctl);
	if (server > 0 && !reaped_ok(server))
		sb_die("the server process failed");
	exit(0);
}

/*
 * Starts agents[@i] for @transport from the template @tmpl (the server's
 * address, the IA, loopback), against the server at @port unless over
 * loopback; returns once its session is connected. The agents before it
 * keep their channels to this process alone.
 */
void sb_agent_start(struct sb_agent *agents, int i, const struct sb_ctx *tmpl,
		    const char *transport, int port)
{
	struct sb_agent *a = &agents[i];
	struct sb_ctx c = *tmpl;
	int sv[2], k;
	char ready;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		sb_die("socketpair: %s", strerror(errno));
	fflush(stdout);
	a->transport = transport;
	a->pid = fork();
	if (a->pid < 0)
		sb_die("fork: %s", strerror(errno));
	if (a->pid == 0) {
		for (k = 0; k < i; k++)
			close(agents[k].fd);
		close(sv[0]);
		agent_main(&c, sv[1], transport, port);
	}
	close(sv[1]);
	a->fd = sv[0];
	if (!read_full(a->fd, &ready, 1))
		sb_die("the client process of transport %s did not start "
		       "(its message is above)", transport);
}

/* Runs @cmd in @a's session; its times and figures go into @res. */
void sb_agent_run(struct sb_agent *a, const struct sb_cmd *cmd,
		  struct sb_result *res)
{
	sb_send_all(a->fd, cmd, sizeof(*cmd), SB_BLOCK);
	if (!read_full(a->fd, res, sizeof(*res)))
		sb_die("the client process of transport %s has gone (its "
		       "message, if any, is above)", a->transport);
}

/* Ends @a's session and waits for it; dies if it failed. */
void sb_agent_stop(struct sb_agent *a)
{
	struct sb_cmd cmd;

	memset(&cmd, 0, sizeof(cmd));
	cmd.magic = SB_MAGIC;
	cmd.test = SB_QUIT;
	sb_send_all(a->fd, &cmd, sizeof(cmd), SB_BLOCK);
	close(a->fd);
	if (!reaped_ok(a->pid))
		sb_die("the client process of transport %s failed", a->transport);
}
