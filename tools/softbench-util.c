/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softbench's small helpers: errors, the clock, /proc and getrusage, and
 * plain socket calls in the two wait modes.
 */
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "softbench.h"

const char *sb_role = "client";

void sb_die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "\nsoftbench %s: ", sb_role);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* Stops the program at a failed DAT call, saying which and why. */
void sb_check(DAT_RETURN r, const char *what)
{
	const char *major = "?", *minor = "";

	if (r == DAT_SUCCESS)
		return;
	dat_strerror(r, &major, &minor);
	sb_die("%s failed: %s %s", what, major, minor ? minor : "");
}

double sb_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * Called in every spin loop: every 4096 spins, gives up (fatally) once the
 * loop has run SB_TIMEOUT_S seconds, so that a lost message ends the run
 * instead of hanging it.
 */
void sb_deadline_check(double start, uint64_t *spins, const char *what)
{
	if ((++*spins & 4095) != 0)
		return;
	if (sb_now() - start > SB_TIMEOUT_S)
		sb_die("timed out after %d s waiting for %s", SB_TIMEOUT_S, what);
}

/* VmRSS of this process in bytes, from /proc/self/status; -1 if unknown. */
long sb_rss_bytes(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb < 0 ? -1 : kb * 1024;
}

/* User plus system CPU time of the whole process (every thread). */
double sb_cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

/*
 * The machine's CPU time so far, from /proc/stat, in seconds summed over
 * its CPUs: @busy (everything but idle and iowait) and @total. 0 or -1.
 */
int sb_machine_cpu(double *busy, double *total)
{
	unsigned long long v[8] = { 0 };
	double tick = (double)sysconf(_SC_CLK_TCK);
	FILE *f = fopen("/proc/stat", "r");
	int n;

	if (f == NULL)
		return -1;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 5 || tick <= 0)
		return -1;
	*busy = (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / tick;
	*total = *busy + (double)(v[3] + v[4]) / tick;
	return 0;
}

/* CPU time of this process and of its children that were waited for. */
double sb_cpu_with_children(void)
{
	struct rusage ru;
	double t = sb_cpu_seconds();

	getrusage(RUSAGE_CHILDREN, &ru);
	return t + (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

void sb_sleep(double seconds)
{
	struct timespec ts;

	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Sets the port of an AF_INET or AF_INET6 address. */
void sb_set_port(struct sockaddr_storage *ss, int port)
{
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
}

/* A listening TCP socket on @addr (any port field), port @port (0: any). */
int sb_tcp_listen(const struct sockaddr *addr, socklen_t len, int port)
{
	struct sockaddr_storage ss;
	int fd, one = 1;

	memcpy(&ss, addr, len);
	sb_set_port(&ss, port);
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		sb_die("socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) < 0)
		sb_die("bind to port %d: %s", port, strerror(errno));
	if (listen(fd, 4096) < 0)
		sb_die("listen: %s", strerror(errno));
	return fd;
}

int sb_tcp_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		sb_die("getsockname: %s", strerror(errno));
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

void sb_tcp_nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* A blocking TCP connection to @addr, port @port, with TCP_NODELAY. */
int sb_tcp_connect(const struct sockaddr *addr, socklen_t len, int port)
{
	struct sockaddr_storage ss;
	int fd;

	memcpy(&ss, addr, len);
	sb_set_port(&ss, port);
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		sb_die("socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&ss, len) < 0)
		sb_die("connect to port %d: %s", port, strerror(errno));
	sb_tcp_nodelay(fd);
	return fd;
}

/*
 * Sends all of @buf. SB_POLL spins on a non-blocking send; SB_BLOCK blocks
 * in the kernel.
 */
void sb_send_all(int fd, const void *buf, size_t len, enum sb_mode mode)
{
	const char *p = buf;
	int flags = MSG_NOSIGNAL | (mode == SB_POLL ? MSG_DONTWAIT : 0);
	double start = 0;
	uint64_t spins = 0;

	while (len > 0) {
		ssize_t n = send(fd, p, len, flags);

		if (n > 0) {
			p += n;
			len -= (size_t)n;
		} else if (n < 0 && errno == EAGAIN) {
			if (start == 0)
				start = sb_now();
			sb_deadline_check(start, &spins, "a TCP send");
		} else if (n < 0 && errno != EINTR) {
			sb_die("send: %s", strerror(errno));
		}
	}
}

/*
 * Receives between 1 and @len bytes (SB_POLL: spinning on a non-blocking
 * recv); returns how many. The peer closing is fatal.
 */
size_t sb_recv_some(int fd, void *buf, size_t len, enum sb_mode mode)
{
	int flags = mode == SB_POLL ? MSG_DONTWAIT : 0;
	double start = 0;
	uint64_t spins = 0;

	for (;;) {
		ssize_t n = recv(fd, buf, len, flags);

		if (n > 0)
			return (size_t)n;
		if (n == 0)
			sb_die("the peer closed its TCP connection");
		if (errno == EAGAIN) {
			if (start == 0)
				start = sb_now();
			sb_deadline_check(start, &spins, "a TCP receive");
		} else if (errno != EINTR) {
			sb_die("recv: %s", strerror(errno));
		}
	}
}

void sb_recv_all(int fd, void *buf, size_t len, enum sb_mode mode)
{
	char *p = buf;

	while (len > 0) {
		size_t n = sb_recv_some(fd, p, len, mode);

		p += n;
		len -= n;
	}
}

/* "8 B", "64 KiB", "4 MiB". */
const char *sb_size_str(uint64_t size, char *buf, size_t len)
{
	if (size >= (1u << 20) && size % (1u << 20) == 0)
		snprintf(buf, len, "%llu MiB", (unsigned long long)(size >> 20));
	else if (size >= 1024 && size % 1024 == 0)
		snprintf(buf, len, "%llu KiB", (unsigned long long)(size >> 10));
	else
		snprintf(buf, len, "%llu B", (unsigned long long)size);
	return buf;
}

/* Whether an executable @name is in one of PATH's directories. */
bool sb_find_program(const char *name)
{
	const char *path = getenv("PATH");
	char file[PATH_MAX];

	while (path != NULL && *path != '\0') {
		size_t n = strcspn(path, ":");

		snprintf(file, sizeof(file), "%.*s/%s", (int)n, path, name);
		if (access(file, X_OK) == 0)
			return true;
		path += n;
		path += *path == ':';
	}
	return false;
}
