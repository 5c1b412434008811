/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A third reference beside raw TCP: libfabric's tcp provider, measured
 * with its own ping-pong (fi_pingpong -p tcp -e msg, Debian's
 * libfabric-bin) in the same run, where it measures what send-lat poll
 * does: a message of a size each way, each side polling its completion
 * queue. fi_pingpong's usec/xfer is its timed loop's time over twice its
 * iterations, half a round trip: one way, as softbench's latency column,
 * so it is taken as it is.
 *
 * A run is a server and a client over loopback on a control port the
 * kernel chose (a socket bound to port 0, read and closed just before);
 * the client starts once the server listens, and each is given
 * FI_TIMEOUT_S, then killed. A run that fails ends its point, which is
 * n/a if no run before it gave a number, and softbench goes on.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <netinet/in.h>

#include "softbench.h"

extern char **environ;

#define FI_PROGRAM	"fi_pingpong"
#define FI_TIMEOUT_S	10	/* for each process of a run */
#define FI_PORT_TRIES	3	/* control ports tried, should one be taken */

/* A run's processes while they live (0: none), for sb_fi_kill(). */
static volatile sig_atomic_t live[2];

static void track(pid_t pid, pid_t was)
{
	int i;

	for (i = 0; i < 2; i++)
		if (live[i] == was) {
			live[i] = pid;
			return;
		}
}

/* Kills the processes of the run under way; async-signal-safe. */
void sb_fi_kill(void)
{
	int i;

	for (i = 0; i < 2; i++)
		if (live[i] > 0)
			kill((pid_t)live[i], SIGKILL);
}

enum sb_fi sb_fi_probe(bool loopback)
{
	if (!loopback)
		return SB_FI_REMOTE;
	return sb_find_program(FI_PROGRAM) ? SB_FI_RUN : SB_FI_MISSING;
}

/* A TCP port that no socket holds just now (fi_pingpong's server binds
 * it on every address), or 0. */
static int free_port(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port = 0;

	if (fd < 0)
		return 0;
	sin.sin_addr.s_addr = htonl(INADDR_ANY);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&sin, &len) == 0)
		port = ntohs(sin.sin_port);
	close(fd);
	return port;
}

/* Whether an IPv4 socket listens on TCP @port (/proc/net/tcp). */
static bool listening(int port)
{
	FILE *f = fopen("/proc/net/tcp", "r");
	unsigned int lport, state;
	char line[256];
	bool found = false;

	if (f == NULL)
		return false;
	while (!found && fgets(line, sizeof(line), f) != NULL)
		found = sscanf(line, " %*u: %*x:%x %*x:%*x %x", &lport,
			       &state) == 2 && lport == (unsigned int)port &&
			state == 0x0A;	/* TCP_LISTEN */
	fclose(f);
	return found;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* Reaps @pid if it has exited: whether it has, and with status 0 in *@ok. */
static bool exited(pid_t pid, bool *ok)
{
	int status;

	if (waitpid(pid, &status, WNOHANG) != pid)
		return false;
	track(0, pid);
	*ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
	return true;
}

/* Kills @pid and reaps it. */
static void end(pid_t pid)
{
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	track(0, pid);
}

/* Waits up to FI_TIMEOUT_S for @pid, killed then; whether it exited 0. */
static bool wait_bounded(pid_t pid)
{
	bool ok;
	int i;

	for (i = 0; i < FI_TIMEOUT_S * 200; i++) {
		if (exited(pid, &ok))
			return ok;
		sleep_ms(5);
	}
	end(pid);
	return false;
}

/*
 * Spawns @argv with stdout and stderr into @out_fd (or /dev/null: -1); it
 * is tracked until exited() or end() reaps it.
 */
static pid_t spawn(const char *const argv[], int out_fd)
{
	posix_spawn_file_actions_t fa;
	char *const *av;
	pid_t pid;

	memcpy(&av, &argv, sizeof(av));	/* posix_spawn's argv is not const */
	posix_spawn_file_actions_init(&fa);
	if (out_fd >= 0) {
		posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
		posix_spawn_file_actions_adddup2(&fa, out_fd, 2);
	} else {
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	}
	if (posix_spawnp(&pid, argv[0], &fa, NULL, av, environ) != 0)
		pid = -1;
	else
		track(pid, 0);
	posix_spawn_file_actions_destroy(&fa);
	return pid;
}

/*
 * fi_pingpong's server of @size bytes and @iters iterations, listening:
 * its pid and, in @port, its control port; or -1.
 */
static pid_t start_server(const char *size, const char *iters, char *port,
			  size_t len)
{
	const char *argv[] = { FI_PROGRAM, "-p", "tcp", "-e", "msg", "-S", size,
			       "-I", iters, "-B", port, NULL };
	bool ok;
	pid_t pid;
	int try, i;

	for (try = 0; try < FI_PORT_TRIES; try++) {
		snprintf(port, len, "%d", free_port());
		if (strcmp(port, "0") == 0 || (pid = spawn(argv, -1)) < 0)
			return -1;
		for (i = 0; i < FI_TIMEOUT_S * 200; i++) {
			if (listening(atoi(port)))
				return pid;
			if (exited(pid, &ok))
				break;	/* the port was taken meanwhile? */
			sleep_ms(5);
		}
		if (i == FI_TIMEOUT_S * 200) {
			end(pid);
			return -1;
		}
	}
	return -1;
}

/*
 * The usec/xfer of fi_pingpong's result line in @text (its 7th column),
 * or a negative number.
 */
static double parse_usec(const char *text)
{
	const char *l = strstr(text, "usec/xfer");
	double mbs, usec;

	if (l == NULL || (l = strchr(l, '\n')) == NULL)
		return -1;
	/* bytes #sent #ack total time MB/sec usec/xfer: "64k 2k =2k 250m ..." */
	if (sscanf(l + 1, "%*s %*s %*s %*s %*s %lf %lf", &mbs, &usec) != 2)
		return -1;
	return usec;
}

/* What @f holds, from its start, into @buf. */
static void slurp(FILE *f, char *buf, size_t len)
{
	size_t n;

	rewind(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
}

/* The last line of @text, for a message. */
static const char *last_line(char *text)
{
	char *end = text + strlen(text), *l;

	while (end > text && end[-1] == '\n')
		*--end = '\0';
	l = strrchr(text, '\n');
	return l != NULL ? l + 1 : text;
}

/*
 * One run: a ping-pong of @iters round trips of @size bytes. One-way
 * microseconds, or negative (said on stderr).
 */
static double one_run(uint64_t size, uint64_t iters)
{
	char s[32], n[32], port[16], out[4096];
	const char *cli[] = { FI_PROGRAM, "-p", "tcp", "-e", "msg", "-S", s, "-I",
			      n, "-P", port, "127.0.0.1", NULL };
	double usec = -1;
	FILE *f = tmpfile();
	pid_t sp, cp;

	if (f == NULL)
		return -1;
	snprintf(s, sizeof(s), "%llu", (unsigned long long)size);
	snprintf(n, sizeof(n), "%llu", (unsigned long long)iters);
	out[0] = '\0';
	sp = start_server(s, n, port, sizeof(port));
	if (sp < 0) {
		snprintf(out, sizeof(out), "its server did not start");
	} else if ((cp = spawn(cli, fileno(f))) < 0) {
		snprintf(out, sizeof(out), "cannot run it");
		end(sp);
	} else if (wait_bounded(cp)) {
		slurp(f, out, sizeof(out));
		usec = parse_usec(out);
		/* The client's result stands, whatever its server does after. */
		(void)wait_bounded(sp);
	} else {
		slurp(f, out, sizeof(out));
		end(sp);
	}
	fclose(f);
	if (usec < 0)
		fprintf(stderr, "\nsoftbench: " FI_PROGRAM " -S %s -I %s: n/a (%s)\n",
			s, n, out[0] != '\0' ? last_line(out) : "no result");
	return usec;
}

/*
 * o->reps runs of @iters round trips of @size bytes into @s (one-way
 * microseconds). A run that fails ends the point, its runs before it
 * count; with none, @s->n is 0: n/a.
 */
void sb_fi_measure(const struct sb_opts *o, uint64_t size, uint64_t iters,
		   struct sb_stats *s)
{
	double v[SB_MAX_RUNS], u;
	int k = 0;

	memset(s, 0, sizeof(*s));
	while (k < o->reps && (u = one_run(size, iters)) > 0)
		v[k++] = u;
	if (k > 0)
		sb_stats_of(v, k, s);
}
