/* SPDX-License-Identifier: BSD-3-Clause */
/* Running Debian's DAT programs: see debian.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "debian.h"
#include "provider-util.h"
#include "test.h"

void deb_registry(bool ours)
{
	static char buf[512];

	snprintf(buf, sizeof(buf), "%s/../lib", test_builddir());
	test_setenv("LD_LIBRARY_PATH", ours ? buf : NULL);
	sdt_conf(NULL);
	sdt_sanitize_debian();
}

bool deb_listening(unsigned port)
{
	static const char *const files[] = { "/proc/net/tcp", "/proc/net/tcp6" };
	char line[512], want[16];
	size_t i;
	bool found = false;

	snprintf(want, sizeof(want), ":%04X", port);
	for (i = 0; i < sizeof(files) / sizeof(files[0]) && !found; i++) {
		FILE *f = fopen(files[i], "r");

		if (f == NULL)
			continue;
		while (fgets(line, sizeof(line), f) != NULL) {
			char local[64], remote[64], st[8];
			size_t n;

			/* "sl: local rem st ...", local "ADDR:PORT" in hex. */
			if (sscanf(line, "%*d: %63s %63s %7s", local, remote, st) != 3)
				continue;
			n = strlen(local);
			if (n > strlen(want) &&
			    strcmp(local + n - strlen(want), want) == 0 &&
			    strcmp(st, "0A") == 0) {
				found = true;
				break;
			}
		}
		fclose(f);
	}
	return found;
}

/* Waits up to @timeout_s (scaled) until @port listens or not (@on). */
static bool wait_listening(unsigned port, bool on, int timeout_s)
{
	uint64_t end = test_now_ms() +
		       (uint64_t)timeout_s * 1000 * test_timeout_scale();

	while (deb_listening(port) != on) {
		if (test_now_ms() > end)
			return false;
		test_sleep_ms(5);
	}
	return true;
}

bool deb_wait_listening(unsigned port, int timeout_s)
{
	return wait_listening(port, true, timeout_s);
}

void deb_port_quiet(unsigned port, const char *why)
{
	if (!wait_listening(port, false, 30))
		TEST_FAIL("TCP port %u stays busy (%s): is another dtest running?",
			  port, why);
}

/* True if @port can be bound on loopback now. */
static bool port_free(unsigned port)
{
	struct sockaddr_in sin;
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	bool ok;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons((uint16_t)port);
	ok = bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0;
	close(fd);
	return ok;
}

unsigned deb_free_ports(void)
{
	unsigned base = 10000 + ((unsigned)getpid() % 500) * 40, tries, i;

	for (tries = 0; tries < 500; tries++, base = 10000 + (base - 10000 + 40) % 20000) {
		for (i = 0; i < 32 && port_free(base + i); i++)
			;
		if (i == 32)
			return base;
	}
	TEST_FAIL("no block of 32 free ports");
}

/* A TCP socket on 127.0.0.1:@port, connected (@listen false) or listening. */
static int loopback_socket(unsigned port, bool listening)
{
	struct sockaddr_in sin;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	ASSERT(fd >= 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons((uint16_t)port);
	if (!listening) {
		if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0)
			TEST_FAIL("connect to port %u: %s", port, strerror(errno));
		return fd;
	}
	ASSERT_OK(setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)));
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0 || listen(fd, 1) < 0)
		TEST_FAIL("listen on port %u: %s", port, strerror(errno));
	return fd;
}

/* Waits up to @timeout_s (scaled) for @fd to have @events. */
static void wait_fd(int fd, short events, int timeout_s, const char *what)
{
	struct pollfd p = { .fd = fd, .events = events };
	int r;

	do
		r = poll(&p, 1, timeout_s * 1000 * test_timeout_scale());
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		TEST_FAIL("%s: nothing within %d s", what, timeout_s);
}

void deb_relay_start(struct deb_relay *r, unsigned psp, int timeout_s)
{
	size_t got = 0;
	int fd;

	if (!wait_listening(DEB_PARAMS_PORT, true, timeout_s))
		TEST_FAIL("the server never listened on port %u", DEB_PARAMS_PORT);
	fd = loopback_socket(DEB_PARAMS_PORT, false);
	while (got < sizeof(r->msg)) {
		ssize_t n;

		wait_fd(fd, POLLIN, timeout_s, "the server's address message");
		n = read(fd, r->msg + got, sizeof(r->msg) - got);
		if (n <= 0)
			TEST_FAIL("the server's address message: %zu of %zu bytes",
				  got, sizeof(r->msg));
		got += (size_t)n;
	}
	close(fd);
	/* The server makes its service point, and closes its listener. */
	if (!wait_listening(psp, true, timeout_s))
		TEST_FAIL("the server's service point (port %u) never listened", psp);
	if (!wait_listening(DEB_PARAMS_PORT, false, timeout_s))
		TEST_FAIL("the server kept listening on port %u", DEB_PARAMS_PORT);
	r->lfd = loopback_socket(DEB_PARAMS_PORT, true);
}

void deb_relay_finish(struct deb_relay *r, int timeout_s)
{
	size_t done = 0;
	int fd;

	wait_fd(r->lfd, POLLIN, timeout_s, "the client's address request");
	fd = accept(r->lfd, NULL, NULL);
	ASSERT(fd >= 0);
	while (done < sizeof(r->msg)) {
		ssize_t n = write(fd, r->msg + done, sizeof(r->msg) - done);

		if (n <= 0)
			TEST_FAIL("relaying the address message: %s", strerror(errno));
		done += (size_t)n;
	}
	close(fd);
	close(r->lfd);
	r->lfd = -1;
}

void deb_no_reports(const char *who, const char *out)
{
	unsigned n = sdt_sanitizer_reports(who, out);

	if (n != 0)
		TEST_FAIL("%s: %u sanitizer report(s) about our libraries", who, n);
}

void deb_show(const char *out, const char *key)
{
	const char *p = out;

	while ((p = strstr(p, key)) != NULL) {
		const char *b = p, *e = strchr(p, '\n');

		while (b > out && b[-1] != '\n')
			b--;
		printf("%.*s\n", (int)(e ? e - b : (long)strlen(b)), b);
		p = e ? e : p + strlen(p);
	}
}

const char *deb_tail(const char *out, unsigned n)
{
	const char *p = out + strlen(out);
	unsigned lines = 0;

	/* A final newline does not start a line. */
	if (p > out && p[-1] == '\n')
		p--;
	while (p > out) {
		if (p[-1] == '\n' && ++lines == n)
			break;
		p--;
	}
	return p;
}
