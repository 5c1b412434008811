/* SPDX-License-Identifier: BSD-3-Clause */
/* The provider in this process and the raw peer: see peer.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "peer.h"

#include <dat2/dat_registry.h>

/* The provider's entry point, linked in (provider/provider.c). */
void dat_provider_init(const DAT_PROVIDER_INFO *info, const char *ia_params);

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

void fz_victim_open(struct fz_victim *v)
{
	static const char empty[] = "/dev/null";
	DAT_PROVIDER_INFO info;
	DAT_IA_ATTR attr;
	char name[] = "fuzz";

	memset(v, 0, sizeof(*v));
	/* Nothing from a dat.conf; handshakes that stall end soon. */
	setenv("DAT_OVERRIDE", empty, 1);
	setenv("SOFTDAPL_CM_TIMEOUT_MS", "2000", 1);
	memset(&info, 0, sizeof(info));
	strcpy(info.ia_name, name);
	info.dapl_version_major = 2;
	info.dapl_version_minor = 0;
	info.is_thread_safe = DAT_FALSE;
	dat_provider_init(&info, "127.0.0.1");
	FUZZ_CHECK(dat_ia_open(name, 64, &v->async_evd, &v->ia) == DAT_SUCCESS);
	FUZZ_CHECK(dat_ia_query(v->ia, NULL, DAT_IA_FIELD_IA_ADDRESS_PTR, &attr,
				0, NULL) == DAT_SUCCESS);
	memcpy(&v->addr, attr.ia_address_ptr, sizeof(v->addr));
	FUZZ_CHECK(v->addr.sin_family == AF_INET);
	FUZZ_CHECK(dat_pz_create(v->ia, &v->pz) == DAT_SUCCESS);
}

DAT_EVD_HANDLE fz_evd(struct fz_victim *v, DAT_COUNT qlen, DAT_EVD_FLAGS flags)
{
	DAT_EVD_HANDLE evd;

	FUZZ_CHECK(dat_evd_create(v->ia, qlen, DAT_HANDLE_NULL, flags, &evd) ==
		   DAT_SUCCESS);
	return evd;
}

void fz_wait(DAT_EVD_HANDLE evd, DAT_EVENT *ev)
{
	DAT_COUNT n;

	FUZZ_CHECK(dat_evd_wait(evd, FZ_WAIT_MS * 1000, 1, ev, &n) == DAT_SUCCESS);
}

int fz_poll(DAT_EVD_HANDLE evd, DAT_EVENT *ev)
{
	return dat_evd_dequeue(evd, ev) == DAT_SUCCESS;
}

int fz_listen(uint16_t *port)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	FUZZ_CHECK(fd >= 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	FUZZ_CHECK(bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
	FUZZ_CHECK(listen(fd, 16) == 0);
	FUZZ_CHECK(getsockname(fd, (struct sockaddr *)&sa, &sl) == 0);
	*port = ntohs(sa.sin_port);
	return fd;
}

/*
 * Waits for @events on @fd until @deadline (ms); poll's revents, 0 at the
 * end. A signal does not end the wait: libFuzzer's -timeout watchdog is a
 * SIGALRM every half timeout, which interrupts poll() (EINTR) in
 * whichever thread it lands.
 */
static int wait_fd(int fd, short events, long long deadline)
{
	for (;;) {
		struct pollfd p = { fd, events, 0 };
		long long left = deadline - now_ms();
		int r;

		if (left <= 0)
			return 0;
		r = poll(&p, 1, (int)left);
		if (r > 0)
			return p.revents;
		FUZZ_CHECK(r == 0 || errno == EINTR);
	}
}

int fz_accept(int lfd)
{
	int fd;

	FUZZ_CHECK(wait_fd(lfd, POLLIN, now_ms() + FZ_WAIT_MS) != 0);
	do
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	while (fd < 0 && errno == EINTR);
	FUZZ_CHECK(fd >= 0);
	return fd;
}

int fz_connect(uint16_t port)
{
	long long deadline = now_ms() + FZ_WAIT_MS;
	struct sockaddr_in sa;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons(port);
	for (;;) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		FUZZ_CHECK(fd >= 0);
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
			FUZZ_CHECK(fcntl(fd, F_SETFL, O_NONBLOCK) == 0);
			return fd;
		}
		/*
		 * A signal (EINTR: libFuzzer's SIGALRM), or out of ephemeral
		 * ports: this side's closed connections wait in TIME_WAIT (it
		 * sends the first FIN); they free up. Try again.
		 */
		if (errno != EINTR)
			fprintf(stderr, "fuzz: connect to port %u: %s\n", port,
				strerror(errno));
		FUZZ_CHECK(errno == EADDRNOTAVAIL || errno == EAGAIN ||
			   errno == EINTR);
		close(fd);
		FUZZ_CHECK(now_ms() < deadline);
		usleep(10000);
	}
}

int fz_read(int fd, void *buf, size_t n)
{
	long long deadline = now_ms() + FZ_WAIT_MS;
	size_t have = 0;

	while (have < n) {
		ssize_t r = recv(fd, (char *)buf + have, n - have, MSG_DONTWAIT);

		if (r > 0) {
			have += (size_t)r;
			continue;
		}
		if (r == 0 || (errno != EAGAIN && errno != EINTR))
			return -1;
		FUZZ_CHECK(wait_fd(fd, POLLIN, deadline) != 0);
	}
	return 0;
}

/* Reads and discards what is there; -1 at EOF or on an error. */
static int discard(int fd)
{
	static char sink[65536];

	for (;;) {
		ssize_t r = recv(fd, sink, sizeof(sink), MSG_DONTWAIT);

		if (r > 0)
			continue;
		if (r < 0 && errno == EINTR)
			continue;
		return r < 0 && errno == EAGAIN ? 0 : -1;
	}
}

void fz_write(int fd, const uint8_t *p, size_t n, size_t chunk)
{
	/* A victim that reads nothing for this long waits for a receive. */
	const long long stall = 200;
	long long last = now_ms();
	size_t done = 0;

	while (done < n) {
		size_t want = n - done;
		ssize_t r;
		int ev;

		if (chunk > 0 && want > chunk)
			want = chunk;
		r = send(fd, p + done, want, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (r > 0) {
			done += (size_t)r;
			last = now_ms();
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno != EAGAIN)
			return;		/* the victim closed */
		ev = wait_fd(fd, POLLIN | POLLOUT, last + stall);
		if (ev == 0)
			return;		/* stalled: receiver not ready */
		if ((ev & (POLLIN | POLLERR | POLLHUP)) && discard(fd) < 0)
			return;
	}
}

void fz_drain(int fd)
{
	long long deadline = now_ms() + FZ_WAIT_MS;

	while (discard(fd) == 0)
		FUZZ_CHECK(wait_fd(fd, POLLIN, deadline) != 0);
}

void fz_close(int fd)
{
	struct linger l = { 1, 0 };

	setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	close(fd);
}
