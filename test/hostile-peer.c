/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A hostile peer speaking softdapl's wire protocol over a raw socket:
 * see hostile-peer.h. Only libc and provider/proto.h: it knows the
 * format, not the provider.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "hostile-peer.h"
#include "test.h"

/* The largest payload hp_recv_frame reads through: a victim's frame. */
#define HP_MAX_FRAME	(64u << 20)

static int scaled(int ms)
{
	return (int)(ms * test_timeout_scale());
}

int hp_connect(const struct sockaddr *sa, socklen_t len)
{
	int one = 1;
	int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	while (connect(fd, sa, len) < 0) {
		int err = errno;

		if (err == EINTR)
			continue;
		close(fd);
		return -err;
	}
	return fd;
}

int hp_send(int fd, const void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = send(fd, (const char *)buf + done, len - done,
				 MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		done += (size_t)n;
	}
	return 0;
}

/*
 * Sends all of @iov (@cnt entries, changed as they go out) with sendmsg,
 * so that a message and its payload leave together: the victim reads
 * them as a real peer's would come. 0 or -errno.
 */
static int send_iov(int fd, struct iovec *iov, int cnt)
{
	while (cnt > 0) {
		struct msghdr msg;
		ssize_t n;

		memset(&msg, 0, sizeof(msg));
		msg.msg_iov = iov;
		msg.msg_iovlen = (size_t)cnt;
		n = sendmsg(fd, &msg, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		while (cnt > 0 && (size_t)n >= iov->iov_len) {
			n -= (ssize_t)iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt > 0) {
			iov->iov_base = (char *)iov->iov_base + n;
			iov->iov_len -= (size_t)n;
		}
	}
	return 0;
}

/* Waits until @fd is readable before @deadline (test_now_ms()). */
static int wait_readable(int fd, uint64_t deadline)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t now = test_now_ms();
		int r;

		if (now >= deadline)
			return -ETIMEDOUT;
		r = poll(&p, 1, (int)(deadline - now));
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return -errno;
	}
}

int hp_recv(int fd, void *buf, size_t len, int timeout_ms)
{
	size_t have = 0;

	while (have < len) {
		ssize_t n;
		int r = wait_readable(fd, test_now_ms() + (uint64_t)scaled(timeout_ms));

		if (r < 0)
			return r;
		n = recv(fd, (char *)buf + have, len - have, MSG_DONTWAIT);
		if (n == 0)
			return -EPIPE;
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		have += (size_t)n;
	}
	return 0;
}

long hp_wait_eof(int fd, int timeout_ms)
{
	uint64_t deadline = test_now_ms() + (uint64_t)scaled(timeout_ms);
	long dropped = 0;

	for (;;) {
		char b[4096];
		ssize_t n;
		int r = wait_readable(fd, deadline);

		if (r < 0)
			return r;
		n = recv(fd, b, sizeof(b), MSG_DONTWAIT);
		if (n == 0)
			return dropped;
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		dropped += n;
	}
}

/* ---- the handshake --------------------------------------------------- */

void hp_hello(struct sd_cm_msg *m, uint64_t port)
{
	memset(m, 0, sizeof(*m));
	m->magic = SD_PROTO_MAGIC;
	m->version = SD_PROTO_VERSION;
	m->type = SD_CM_HELLO;
	m->conn_qual = port;
	m->max_msg = HP_MAX_MSG;
	m->max_rdma = HP_MAX_MSG;
	m->rd_in = HP_RD;
	m->rd_out = HP_RD;
}

int hp_send_cm(int fd, const struct sd_cm_msg *m, const void *pdata, size_t n)
{
	uint8_t b[SD_CM_MSG_SIZE];
	struct iovec iov[2] = {
		{ .iov_base = b, .iov_len = sizeof(b) },
		{ .iov_base = (void *)(uintptr_t)pdata, .iov_len = n },
	};

	sd_cm_pack(m, b);
	return send_iov(fd, iov, n > 0 ? 2 : 1);
}

int hp_send_rtu(int fd)
{
	struct sd_cm_msg m;

	memset(&m, 0, sizeof(m));
	m.magic = SD_PROTO_MAGIC;
	m.version = SD_PROTO_VERSION;
	m.type = SD_CM_RTU;
	return hp_send_cm(fd, &m, NULL, 0);
}

int hp_recv_cm(int fd, struct sd_cm_msg *m, void *pdata, int timeout_ms)
{
	uint8_t b[SD_CM_MSG_SIZE];
	uint8_t drop[SD_PROTO_MAX_PDATA];
	int r = hp_recv(fd, b, sizeof(b), timeout_ms);

	if (r < 0)
		return r;
	sd_cm_unpack(m, b);
	if (m->magic != SD_PROTO_MAGIC || m->version != SD_PROTO_VERSION ||
	    m->pdata_len > SD_PROTO_MAX_PDATA)
		return -EPROTO;
	return hp_recv(fd, pdata ? pdata : drop, m->pdata_len, timeout_ms);
}

/* ---- frames ---------------------------------------------------------- */

struct sd_hdr hp_hdr(uint8_t op, uint32_t len, uint32_t rkey, uint64_t addr,
		     uint32_t tag)
{
	struct sd_hdr h;

	memset(&h, 0, sizeof(h));
	h.op = op;
	h.len = len;
	h.rkey = rkey;
	h.addr = addr;
	h.tag = tag;
	return h;
}

int hp_send_frame(int fd, const struct sd_hdr *h, const void *payload, size_t n)
{
	uint8_t b[SD_HDR_SIZE];
	struct iovec iov[2] = {
		{ .iov_base = b, .iov_len = sizeof(b) },
		{ .iov_base = (void *)(uintptr_t)payload, .iov_len = n },
	};

	sd_hdr_pack(h, b);
	return send_iov(fd, iov, n > 0 ? 2 : 1);
}

long hp_recv_frame(int fd, struct sd_hdr *h, void *payload, size_t cap,
		   int timeout_ms)
{
	uint8_t b[SD_HDR_SIZE];
	size_t kept, left;
	int r;

	/* EOF on the first byte is between frames; later, inside one. */
	r = hp_recv(fd, b, 1, timeout_ms);
	if (r < 0)
		return r;
	r = hp_recv(fd, b + 1, sizeof(b) - 1, timeout_ms);
	if (r < 0)
		return r == -EPIPE ? -EPROTO : r;
	sd_hdr_unpack(h, b);
	if (!sd_op_has_payload(h->op))
		return 0;
	if (h->len > HP_MAX_FRAME)
		return -EPROTO;
	kept = h->len < cap ? h->len : cap;
	r = hp_recv(fd, payload, kept, timeout_ms);
	for (left = h->len - kept; r == 0 && left > 0;) {
		char drop[4096];
		size_t n = left < sizeof(drop) ? left : sizeof(drop);

		r = hp_recv(fd, drop, n, timeout_ms);
		left -= n;
	}
	if (r < 0)
		return r == -EPIPE ? -EPROTO : r;
	return (long)kept;
}

int hp_expect_end(int fd, struct hp_end *end, int timeout_ms)
{
	uint64_t deadline = test_now_ms() + (uint64_t)scaled(timeout_ms);

	memset(end, 0, sizeof(*end));
	for (;;) {
		struct sd_hdr h;
		long r;

		if (test_now_ms() >= deadline)
			return -ETIMEDOUT;
		r = hp_recv_frame(fd, &h, NULL, 0, timeout_ms);
		if (r == -EPIPE || r == -ECONNRESET) {
			end->reset = r == -ECONNRESET;
			return 0;
		}
		if (r < 0)
			return (int)r;
		/* Nothing may follow a TERMINATE or a DISCONNECT. */
		if (end->terminated || end->disconnected)
			return -EPROTO;
		if (h.op == SD_OP_TERMINATE) {
			end->terminated = 1;
			end->term = h;
		} else if (h.op == SD_OP_DISCONNECT) {
			end->disconnected = 1;
		} else {
			end->frames++;
		}
	}
}
