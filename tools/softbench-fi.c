/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A third reference beside raw TCP: libfabric's tcp provider, measured
 * with its own ping-pong (fi_pingpong -p tcp -e msg, Debian's
 * libfabric-bin) on the same machine in the same run, where it measures
 * what send-lat poll does: a message of a size each way, the receiver
 * polling. fi_pingpong reports usec/xfer, half a round trip: one way, as
 * softbench's latency column.
 *
 * Each size runs a server and a client, on a control port the kernel
 * chose (bound to port 0 and released just before), bounded by
 * FI_TIMEOUT_S. A size that fails prints n/a and the run goes on.
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

#define FI_TIMEOUT_S	20

/* A TCP port free just now on 127.0.0.1, or 0. */
static int free_port(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = 0;

	if (fd < 0)
		return 0;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&sin, &len) == 0)
		port = ntohs(sin.sin_port);
	close(fd);
	return port;
}

/* Waits up to FI_TIMEOUT_S for @pid; kills it then. Whether it exited 0. */
static bool wait_bounded(pid_t pid)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int status, i;

	for (i = 0; i < FI_TIMEOUT_S * 100; i++) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return WIFEXITED(status) && WEXITSTATUS(status) == 0;
		if (r < 0 && errno != EINTR)
			return false;
		nanosleep(&ts, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return false;
}

/* Spawns @argv with stdout (and stderr) into @out_fd, or /dev/null (-1). */
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
	posix_spawn_file_actions_destroy(&fa);
	return pid;
}

/*
 * The usec/xfer of fi_pingpong's result line in @text (its 7th column),
 * or a negative number.
 */
static double parse_usec(const char *text)
{
	const char *l = strstr(text, "usec/xfer");
	double v[2];

	if (l == NULL || (l = strchr(l, '\n')) == NULL)
		return -1;
	/* bytes #sent #ack total time MB/sec usec/xfer: "64k 2k =2k 250m ..." */
	if (sscanf(l + 1, "%*s %*s %*s %*s %*s %lf %lf", &v[0], &v[1]) != 2)
		return -1;
	return v[1];
}

/* One ping-pong of @size bytes; one-way microseconds, or negative. */
static double one(uint64_t size)
{
	/* About a second of work, whatever the size. */
	const char *iters = size <= 4096 ? "20000" : size <= 65536 ? "2000" : "200";
	char s[32], bport[16], pport[16], buf[4096];
	const char *srv[] = { "fi_pingpong", "-p", "tcp", "-e", "msg", "-S", s, "-I",
			      iters, "-B", bport, NULL };
	const char *cli[] = { "fi_pingpong", "-p", "tcp", "-e", "msg", "-S", s, "-I",
			      iters, "-P", pport, "127.0.0.1", NULL };
	int port = free_port(), fds[2], tries;
	pid_t sp, cp = -1;
	ssize_t n, got = 0;

	if (port == 0 || pipe(fds) < 0)
		return -1;
	snprintf(s, sizeof(s), "%llu", (unsigned long long)size);
	snprintf(bport, sizeof(bport), "%d", port);
	snprintf(pport, sizeof(pport), "%d", port);
	sp = spawn(srv, -1);
	/* The server listens within moments; the client retries until then. */
	for (tries = 0; sp > 0 && tries < 50; tries++) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };

		nanosleep(&ts, NULL);
		cp = spawn(cli, fds[1]);
		if (cp < 0)
			break;
		if (wait_bounded(cp))
			break;
		cp = -1;
	}
	close(fds[1]);
	while (got < (ssize_t)sizeof(buf) - 1 &&
	       (n = read(fds[0], buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
		got += n;
	buf[got] = '\0';
	close(fds[0]);
	if (sp > 0 && !wait_bounded(sp))
		cp = -1;
	return cp > 0 ? parse_usec(buf) : -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void sb_fi_pingpong(const struct sb_opts *o)
{
	int i, r, k;

	if (access("/usr/bin/fi_pingpong", X_OK) != 0 &&
	    system("command -v fi_pingpong >/dev/null 2>&1") != 0) {
		printf("\nfi_pingpong: n/a (not found: apt-get install libfabric-bin)\n");
		return;
	}
	printf("\nfi_pingpong -p tcp -e msg (libfabric's tcp provider), the same "
	       "ping-pong as send-lat poll:\n%-16s %-6s %9s %-5s %12s %9s %9s\n",
	       "test", "mode", "size", "unit", "fi_pingpong", "min", "max");
	for (i = 0; i < o->nsizes; i++) {
		double v[16];

		if (o->sizes[i] > (1u << 20))
			continue;	/* its buffers: 1 MiB is the last of "all" */
		for (r = 0, k = 0; r < o->reps && r < 16; r++) {
			double u = one(o->sizes[i]);

			if (u > 0)
				v[k++] = u;
		}
		if (k == 0) {
			printf("%-16s %-6s %9llu %-5s %12s\n", "send-lat", "poll",
			       (unsigned long long)o->sizes[i], "us", "n/a");
			continue;
		}
		qsort(v, (size_t)k, sizeof(v[0]), cmp_double);
		printf("%-16s %-6s %9llu %-5s %12.3f %9.3f %9.3f\n", "send-lat",
		       "poll", (unsigned long long)o->sizes[i], "us", v[k / 2],
		       v[0], v[k - 1]);
	}
}
