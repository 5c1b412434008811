/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Endpoints and connection management, second part: the EP state machine
 * of DAT 2.0 (6.5) call by call and state by state, every connection
 * event on the EVD it belongs to, a PSP with DAT_PSP_PROVIDER_FLAG, the
 * SRQ rules on disconnect (SRQ-6, SRQ-7) under load, and the calls of
 * issue 4: dat_ep_dup_connect, the CSP calls and dat_ep_common_connect,
 * dat_ep_recv_query, dat_ep_set_watermark, dat_cr_handoff,
 * dat_srq_resize and dat_srq_set_lw.
 *
 * Some tests play the requester by hand over a plain TCP socket (struct
 * raw), following provider/proto.h, to hold the passive side where a DAT
 * peer never stays: after ACCEPT without the RTU, or inside a frame.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../provider/proto.h"
#include "provider-conn.h"
#include "provider-util.h"
#include "test.h"

/* ------------------------------------------------------------------ */
/* Helpers                                                             */

static DAT_DTO_COOKIE ck(uint64_t v)
{
	DAT_DTO_COOKIE c;

	c.as_64 = v;
	return c;
}

static DAT_RETURN bad_state(DAT_RETURN_SUBTYPE sub)
{
	return ERR(DAT_INVALID_STATE, sub);
}

/* Starts @cli's connect to @srv's PSP (made if needed); no accept. */
static void start_connect(struct sdt_node *cli, struct sdt_node *srv,
			  DAT_TIMEOUT timeout)
{
	if (srv->psp == NULL)
		ASSERT_OK(dat_psp_create_any(srv->ia, &srv->port, srv->cr_evd,
					     DAT_PSP_CONSUMER_FLAG, &srv->psp));
	sdt_connect_to(cli->ia, cli->ep, srv->port, timeout);
}

/*
 * An RSP for @ep on a port of its own: one a PSP got from the kernel,
 * taken over once that PSP is freed (retried while the kernel still
 * holds it).
 */
static DAT_RSP_HANDLE rsp_any(struct sdt_node *n, DAT_EP_HANDLE ep,
			      DAT_CONN_QUAL *port)
{
	DAT_PSP_HANDLE psp;
	DAT_RSP_HANDLE rsp;
	int i;

	ASSERT_OK(dat_psp_create_any(n->ia, port, n->cr_evd,
				     DAT_PSP_CONSUMER_FLAG, &psp));
	ASSERT_OK(dat_psp_free(psp));
	for (i = 0; dat_rsp_create(n->ia, *port, ep, n->cr_evd, &rsp) != DAT_SUCCESS; i++) {
		ASSERT_LT(i, 1000);
		test_sleep_ms(1);
	}
	return rsp;
}

/* A sockaddr_in for @ip (dotted) and @port. */
static struct sockaddr_in sin_of(const char *ip, uint16_t port)
{
	struct sockaddr_in sin;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	ASSERT_EQ(inet_pton(AF_INET, ip, &sin.sin_addr), 1);
	return sin;
}

/* ---- a requester by hand (provider/proto.h) ---------------------- */

struct raw {
	int fd;
};

/* Waits up to 10 s (scaled) until @fd is readable. */
static void raw_wait(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r;

	do
		r = poll(&p, 1, (int)(10000 * test_timeout_scale()));
	while (r < 0 && errno == EINTR);
	if (r != 1)
		TEST_FAIL("raw peer: nothing to read");
}

static void raw_read(int fd, void *buf, size_t len)
{
	size_t have = 0;

	while (have < len) {
		ssize_t n;

		raw_wait(fd);
		n = recv(fd, (char *)buf + have, len - have, 0);
		if (n <= 0)
			TEST_FAIL("raw peer: read: %zd (%s)", n, strerror(errno));
		have += (size_t)n;
	}
}

static void raw_write(int fd, const void *buf, size_t len)
{
	ASSERT_EQ(send(fd, buf, len, MSG_NOSIGNAL), (ssize_t)len);
}

static void raw_send_cm(struct raw *r, uint8_t type, uint64_t qual,
			const void *pdata, uint16_t len)
{
	uint8_t b[SD_CM_MSG_SIZE + SD_PROTO_MAX_PDATA];
	struct sd_cm_msg m;

	memset(&m, 0, sizeof(m));
	m.magic = SD_PROTO_MAGIC;
	m.version = SD_PROTO_VERSION;
	m.type = type;
	m.conn_qual = qual;
	m.max_msg = 1u << 20;
	m.max_rdma = 1u << 20;
	m.rd_in = 4;
	m.rd_out = 4;
	m.pdata_len = len;
	sd_cm_pack(&m, b);
	if (len)
		memcpy(b + SD_CM_MSG_SIZE, pdata, len);
	raw_write(r->fd, b, SD_CM_MSG_SIZE + len);
}

/* Connects to @port of @ia's address and sends a HELLO for it. */
static void raw_hello(struct raw *r, DAT_IA_HANDLE ia, DAT_CONN_QUAL port)
{
	struct sockaddr_storage ss;

	sdt_ia_addr(ia, &ss);
	((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)port);
	r->fd = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_GE(r->fd, 0);
	ASSERT_OK(connect(r->fd, (struct sockaddr *)&ss, sizeof(struct sockaddr_in)));
	raw_send_cm(r, SD_CM_HELLO, port, "raw", 3);
}

/* Reads the answer to the HELLO; returns its type. */
static uint8_t raw_answer(struct raw *r)
{
	uint8_t b[SD_CM_MSG_SIZE + SD_PROTO_MAX_PDATA];
	struct sd_cm_msg m;

	raw_read(r->fd, b, SD_CM_MSG_SIZE);
	sd_cm_unpack(&m, b);
	ASSERT_EQ(m.magic, SD_PROTO_MAGIC);
	ASSERT_LE(m.pdata_len, SD_PROTO_MAX_PDATA);
	raw_read(r->fd, b + SD_CM_MSG_SIZE, m.pdata_len);
	return m.type;
}

/* A frame header: @op, @len payload bytes to follow, our @ack. */
static void raw_frame(struct raw *r, uint8_t op, uint32_t len, uint32_t ack)
{
	uint8_t b[SD_HDR_SIZE];
	struct sd_hdr h;

	memset(&h, 0, sizeof(h));
	h.op = op;
	h.len = len;
	h.ack = ack;
	h.tag = SD_TAG_NONE;
	sd_hdr_pack(&h, b);
	raw_write(r->fd, b, sizeof(b));
}

/* Reads frames until EOF; returns how many (of any kind) came. */
static int raw_drain(struct raw *r)
{
	uint8_t b[SD_HDR_SIZE];
	int frames = 0;

	for (;;) {
		struct sd_hdr h;
		size_t have = 0;

		while (have < sizeof(b)) {
			ssize_t n;

			raw_wait(r->fd);
			n = recv(r->fd, b + have, sizeof(b) - have, 0);
			if (n == 0 && have == 0)
				return frames;
			ASSERT_GT(n, 0);
			have += (size_t)n;
		}
		sd_hdr_unpack(&h, b);
		if (h.op == SD_OP_SEND || h.op == SD_OP_SEND_SE) {
			char pay[4096];

			ASSERT_LE(h.len, sizeof(pay));
			raw_read(r->fd, pay, h.len);
		}
		frames++;
	}
}

static void raw_close(struct raw *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

/*
 * @srv's EP accepts a raw requester and stays PASSIVE_CONNECTION_PENDING:
 * the requester got the ACCEPT and sends no RTU.
 */
static void raw_hold_passive(struct raw *r, struct sdt_node *srv)
{
	DAT_CR_HANDLE cr;

	if (srv->psp == NULL)
		ASSERT_OK(dat_psp_create_any(srv->ia, &srv->port, srv->cr_evd,
					     DAT_PSP_CONSUMER_FLAG, &srv->psp));
	raw_hello(r, srv->ia, srv->port);
	cr = sdt_expect_cr(srv->cr_evd, NULL);
	ASSERT_OK(dat_cr_accept(cr, srv->ep, 0, NULL));
	ASSERT_EQ(raw_answer(r), SD_CM_ACCEPT);
	ASSERT_EQ(sdt_ep_state(srv->ep), DAT_EP_STATE_PASSIVE_CONNECTION_PENDING);
}

/* @srv's EP connected to a raw requester (RTU sent). */
static void raw_connected(struct raw *r, struct sdt_node *srv)
{
	raw_hold_passive(r, srv);
	raw_send_cm(r, SD_CM_RTU, 0, NULL, 0);
	sdt_expect_conn(srv->conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
}

/*
 * Holds @x in DISCONNECT_PENDING: connected to a raw requester, it sends
 * a message (from @mem's buffer) and disconnects gracefully; the
 * requester never acks nor answers with its DISCONNECT.
 */
static void hold_disconnect_pending(struct raw *r, struct sdt_node *x,
				    const struct sdt_node *mem)
{
	DAT_LMR_TRIPLET t = sdt_iov(mem, 0, 64);

	raw_connected(r, x);
	ASSERT_OK(dat_ep_post_send(x->ep, 1, &t, ck(900), 0));
	ASSERT_OK(dat_ep_disconnect(x->ep, DAT_CLOSE_GRACEFUL_FLAG));
	ASSERT_EQ(sdt_ep_state(x->ep), DAT_EP_STATE_DISCONNECT_PENDING);
}

/* The requester answers: its DISCONNECT acks the message; both end. */
static void release_disconnect_pending(struct raw *r, struct sdt_node *x)
{
	raw_frame(r, SD_OP_DISCONNECT, 0, 1);
	sdt_expect_dto(x->req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 900);
	sdt_expect_conn(x->conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	ASSERT_EQ(raw_drain(r), 2);	/* our SEND and DISCONNECT */
}

/* ------------------------------------------------------------------ */
/* A PSP with DAT_PSP_PROVIDER_FLAG                                    */

/* Configures the provider's EP @ep with @n's PZ and EVDs. */
static void configure(DAT_EP_HANDLE ep, const struct sdt_node *n)
{
	DAT_EP_PARAM p;

	memset(&p, 0, sizeof(p));
	p.pz_handle = n->pz;
	p.recv_evd_handle = n->recv_evd;
	p.request_evd_handle = n->req_evd;
	p.connect_evd_handle = n->conn_evd;
	ASSERT_OK(dat_ep_modify(ep, DAT_EP_FIELD_PZ_HANDLE |
				DAT_EP_FIELD_RECV_EVD_HANDLE |
				DAT_EP_FIELD_REQUEST_EVD_HANDLE |
				DAT_EP_FIELD_CONNECT_EVD_HANDLE, &p));
}

TEST_IMPL(provider_conn2_psp_provider_ep)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	struct sockaddr_storage ss;
	struct sdt_node c, s;
	DAT_PSP_HANDLE psp;
	DAT_PSP_PARAM pp;
	DAT_CONN_QUAL port;
	DAT_CR_PARAM crp;
	DAT_EP_PARAM p;
	DAT_CR_HANDLE cr;
	DAT_EP_HANDLE pep;
	char hi[] = "hi";
	int round;

	sdt_node_init(&c, ia, NULL, 4096);
	sdt_node_init(&s, ia, NULL, 4096);
	ASSERT_OK(dat_ep_free(s.ep));	/* the provider makes the server's */
	s.ep = DAT_HANDLE_NULL;
	ASSERT_OK(dat_psp_create_any(ia, &port, s.cr_evd, DAT_PSP_PROVIDER_FLAG, &psp));
	ASSERT_OK(dat_psp_query(psp, DAT_PSP_FIELD_ALL, &pp));
	ASSERT_EQ(pp.psp_flags, DAT_PSP_PROVIDER_FLAG);
	ASSERT_UINT64_EQ(pp.conn_qual, port);
	ASSERT_DAT_EQ(dat_psp_create_any(ia, &port, s.cr_evd, 7, &psp),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4));
	sdt_ia_addr(ia, &ss);

	for (round = 0; round < 3; round++) {
		if (round > 0)
			ASSERT_OK(dat_ep_reset(c.ep));
		ASSERT_OK(dat_ep_connect(c.ep, (DAT_IA_ADDRESS_PTR)&ss, port,
					 DAT_TIMEOUT_INFINITE, 3, hi,
					 DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
		cr = sdt_expect_cr(s.cr_evd, NULL);
		ASSERT_OK(dat_cr_query(cr, DAT_CR_FIELD_ALL, &crp));
		pep = crp.local_ep_handle;
		ASSERT_NOT_NULL(pep);
		ASSERT_EQ(crp.private_data_size, 3);
		/* Made by the provider: no PZ, no EVDs, UNCONFIGURED_TENTATIVE. */
		ASSERT_OK(dat_ep_query(pep, DAT_EP_FIELD_ALL, &p));
		ASSERT_EQ(p.ep_state, DAT_EP_STATE_UNCONFIGURED_TENTATIVE);
		ASSERT_NULL(p.pz_handle);
		ASSERT_NULL(p.recv_evd_handle);
		ASSERT_NULL(p.request_evd_handle);
		ASSERT_NULL(p.connect_evd_handle);
		ASSERT_EQ(p.ep_attr.service_type, DAT_SERVICE_TYPE_RC);
		/* It shows the requester, whose port the CR reports. */
		ASSERT_EQ(p.remote_ia_address_ptr->sa_family, AF_INET);
		ASSERT_UINT64_EQ(p.remote_port_qual, crp.remote_port_qual);
		/* Not usable as is, nor the consumer's to free. */
		ASSERT_DAT_EQ(dat_cr_accept(cr, DAT_HANDLE_NULL, 0, NULL),
			      bad_state(DAT_INVALID_STATE_EP_UNCONFTENTATIVE));
		ASSERT_DAT_EQ(dat_ep_free(pep),
			      bad_state(DAT_INVALID_STATE_EP_UNCONFTENTATIVE));
		ASSERT_DAT_EQ(dat_ep_disconnect(pep, DAT_CLOSE_ABRUPT_FLAG),
			      bad_state(DAT_INVALID_STATE_EP_UNCONFTENTATIVE));
		ASSERT_DAT_EQ(dat_ep_reset(pep),
			      bad_state(DAT_INVALID_STATE_EP_UNCONFTENTATIVE));
		ASSERT_DAT_EQ(dat_ep_connect(pep, (DAT_IA_ADDRESS_PTR)&ss, port,
					     DAT_TIMEOUT_INFINITE, 0, NULL,
					     DAT_QOS_BEST_EFFORT, 0),
			      bad_state(DAT_INVALID_STATE_EP_UNCONFTENTATIVE));
		/* Another consumer EP is not the one the CR names. */
		ASSERT_DAT_EQ(dat_cr_accept(cr, c.ep, 0, NULL),
			      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
		if (round == 1) {
			/* Rejected unconfigured: back to the provider. */
			ASSERT_OK(dat_cr_reject(cr, 0, NULL));
			sdt_expect_conn(c.conn_evd, DAT_CONNECTION_EVENT_PEER_REJECTED);
			continue;
		}
		/* dat_ep_modify configures it: TENTATIVE_CONNECTION_PENDING. */
		configure(pep, &s);
		ASSERT_EQ(sdt_ep_state(pep), DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING);
		ASSERT_DAT_EQ(dat_ep_free(pep),
			      bad_state(DAT_INVALID_STATE_EP_TENTCONNPENDING));
		if (round == 2) {
			/* Rejected configured: it goes all the same. */
			ASSERT_OK(dat_cr_reject(cr, 0, NULL));
			sdt_expect_conn(c.conn_evd, DAT_CONNECTION_EVENT_PEER_REJECTED);
			continue;
		}
		ASSERT_OK(dat_cr_accept(cr, DAT_HANDLE_NULL, 0, NULL));
		sdt_expect_conn(c.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
		sdt_expect_conn(s.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
		ASSERT_EQ(sdt_ep_state(pep), DAT_EP_STATE_CONNECTED);
		/* Data flows on it. */
		s.ep = pep;
		ASSERT_OK(sdt_recv(&s, 0, 16, 1));
		memcpy(c.buf, "provider", 9);
		ASSERT_OK(sdt_send(&c, 0, 9, 2, 0));
		sdt_expect_dto(s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 1);
		sdt_expect_dto(c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 2);
		ASSERT_STR_EQ(s.buf, "provider");
		sdt_disconnect(&c, &s);
		/* Once connected it is the consumer's: free it. */
		ASSERT_OK(dat_ep_free(pep));
		s.ep = DAT_HANDLE_NULL;
	}
	ASSERT_OK(dat_psp_free(psp));
	sdt_node_fini(&c);
	sdt_node_fini(&s);
	/*
	 * A graceful close fails while objects remain: the EPs of the two
	 * rejected requests went back to the provider, which freed them.
	 * (Their handles are dead: using them is undefined through the
	 * registry, which reads the provider from the object.)
	 */
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* ------------------------------------------------------------------ */
/* TIMED_OUT, UNREACHABLE, ACCEPT_COMPLETION_ERROR                      */

/*
 * The DAT-level timeout: the server never decides on the CR. The
 * requester sees TIMED_OUT (DAT 2.0 dat_ep_connect: "when the timeout
 * expired prior to completion of the Connection establishment"), its
 * preposted receive flushed; the server's later accept finds the
 * requester gone: ACCEPT_COMPLETION_ERROR on its connection EVD.
 */
TEST_IMPL(provider_conn2_timed_out_then_accept)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	struct sdt_node c, s;
	DAT_CR_HANDLE cr;

	sdt_node_init(&c, ia, NULL, 4096);
	sdt_node_init(&s, ia, NULL, 4096);
	ASSERT_OK(sdt_recv(&c, 0, 16, 5));
	start_connect(&c, &s, 300 * 1000);
	cr = sdt_expect_cr(s.cr_evd, NULL);
	ASSERT_EQ(sdt_ep_state(c.ep), DAT_EP_STATE_ACTIVE_CONNECTION_PENDING);
	sdt_expect_conn(c.conn_evd, DAT_CONNECTION_EVENT_TIMED_OUT);
	ASSERT_EQ(sdt_ep_state(c.ep), DAT_EP_STATE_DISCONNECTED);
	sdt_expect_dto(c.recv_evd, DAT_DTO_ERR_FLUSHED, DAT_DTO_RECEIVE, 5);
	/* Only the connection EVD heard of it. */
	sdt_expect_none(c.req_evd, 0);
	sdt_expect_none(s.conn_evd, 0);

	ASSERT_OK(dat_cr_accept(cr, s.ep, 0, NULL));
	sdt_expect_conn(s.conn_evd, DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
	ASSERT_EQ(sdt_ep_state(s.ep), DAT_EP_STATE_DISCONNECTED);
	sdt_expect_none(c.conn_evd, 50);

	/* Both go again after a reset. */
	ASSERT_OK(dat_ep_reset(c.ep));
	ASSERT_OK(dat_ep_reset(s.ep));
	sdt_connect(&c, &s);
	sdt_disconnect(&c, &s);
	sdt_node_fini(&c);
	sdt_node_fini(&s);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/*
 * The transport-level timeout: a listener whose accept queue is full
 * drops our SYN (Linux, without tcp_abort_on_overflow), so the TCP
 * connect itself never completes; if a SYN does get through, the HELLO
 * is never answered. Either way: TIMED_OUT.
 */
TEST_IMPL(provider_conn2_timed_out_backlog)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	struct sockaddr_storage ss;
	struct sockaddr_in sin = sin_of("127.0.0.1", 0);
	socklen_t sl = sizeof(sin);
	struct sdt_node c;
	int lfd, fill[8], i;

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_OK(bind(lfd, (struct sockaddr *)&sin, sizeof(sin)));
	ASSERT_OK(listen(lfd, 0));
	ASSERT_OK(getsockname(lfd, (struct sockaddr *)&sin, &sl));
	for (i = 0; i < 8; i++) {
		fill[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		(void)connect(fill[i], (struct sockaddr *)&sin, sizeof(sin));
	}

	sdt_node_init(&c, ia, NULL, 4096);
	sdt_ia_addr(ia, &ss);
	ASSERT_OK(dat_ep_connect(c.ep, (DAT_IA_ADDRESS_PTR)&ss, ntohs(sin.sin_port),
				 200 * 1000, 0, NULL, DAT_QOS_BEST_EFFORT,
				 DAT_CONNECT_DEFAULT_FLAG));
	sdt_expect_conn(c.conn_evd, DAT_CONNECTION_EVENT_TIMED_OUT);
	ASSERT_EQ(sdt_ep_state(c.ep), DAT_EP_STATE_DISCONNECTED);
	for (i = 0; i < 8; i++)
		close(fill[i]);
	close(lfd);
	sdt_node_fini(&c);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* Brings @ifname up in the current network namespace. */
static int link_up(const char *ifname)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM, 0), r;

	memset(&ifr, 0, sizeof(ifr));
	strncpy(ifr.ifr_name, ifname, sizeof(ifr.ifr_name) - 1);
	r = ioctl(fd, SIOCGIFFLAGS, &ifr);
	if (r == 0) {
		ifr.ifr_flags |= IFF_UP;
		r = ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	close(fd);
	return r;
}

/* Writes @s to the file @path; 0 or -1. */
static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), r = -1;

	if (fd >= 0) {
		r = write(fd, s, strlen(s)) == (ssize_t)strlen(s) ? 0 : -1;
		close(fd);
	}
	return r;
}

/*
 * UNREACHABLE: in a network namespace of its own (made here, as root or
 * in a user namespace; the test skips where neither is allowed) the
 * only interface is lo, so an address off it has no route: connect()
 * fails at once with ENETUNREACH, and nothing leaves the machine.
 */
TEST_IMPL(provider_conn2_unreachable)
{
	DAT_IA_HANDLE ia;
	struct sockaddr_in to = sin_of("10.255.255.1", 4791);
	struct sdt_node c;
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (unshare(CLONE_NEWNET) < 0) {
		char map[64];

		if (unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0)
			TEST_SKIP("no network namespace (needs root or user namespaces)");
		snprintf(map, sizeof(map), "0 %u 1", (unsigned)uid);
		(void)write_str("/proc/self/setgroups", "deny");
		if (write_str("/proc/self/uid_map", map) < 0)
			TEST_SKIP("cannot map the user namespace");
		snprintf(map, sizeof(map), "0 %u 1", (unsigned)gid);
		(void)write_str("/proc/self/gid_map", map);
	}
	if (link_up("lo") < 0)
		TEST_SKIP("cannot bring lo up in the new namespace");

	ia = sdt_open_ia("lo", NULL);
	sdt_node_init(&c, ia, NULL, 4096);
	ASSERT_OK(sdt_recv(&c, 0, 16, 3));
	ASSERT_OK(dat_ep_connect(c.ep, (DAT_IA_ADDRESS_PTR)&to, 4791,
				 DAT_TIMEOUT_INFINITE, 0, NULL,
				 DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
	sdt_expect_conn(c.conn_evd, DAT_CONNECTION_EVENT_UNREACHABLE);
	ASSERT_EQ(sdt_ep_state(c.ep), DAT_EP_STATE_DISCONNECTED);
	sdt_expect_dto(c.recv_evd, DAT_DTO_ERR_FLUSHED, DAT_DTO_RECEIVE, 3);
	sdt_expect_none(c.req_evd, 0);
	sdt_node_fini(&c);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* Addresses refused synchronously (DAT_INVALID_ADDRESS), and the rest. */
TEST_IMPL(provider_conn2_connect_args)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	static const struct {
		const char *ip;
		DAT_RETURN_SUBTYPE sub;
	} bad[] = {
		{ "224.0.0.1", DAT_INVALID_ADDRESS_UNSUPPORTED },
		{ "255.255.255.255", DAT_INVALID_ADDRESS_UNSUPPORTED },
		{ "0.0.0.0", DAT_INVALID_ADDRESS_MALFORMED },
	};
	struct sockaddr_storage unix_addr;
	struct sockaddr_in6 six;
	struct sockaddr_in sin;
	struct sdt_node c;
	size_t i;

	sdt_node_init(&c, ia, NULL, 4096);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		sin = sin_of(bad[i].ip, 1000);
		ASSERT_DAT_EQ(dat_ep_connect(c.ep, (DAT_IA_ADDRESS_PTR)&sin, 1000,
					     DAT_TIMEOUT_INFINITE, 0, NULL,
					     DAT_QOS_BEST_EFFORT, 0),
			      ERR(DAT_INVALID_ADDRESS, bad[i].sub));
	}
	memset(&six, 0, sizeof(six));
	six.sin6_family = AF_INET6;
	ASSERT_EQ(inet_pton(AF_INET6, "ff02::1", &six.sin6_addr), 1);
	ASSERT_DAT_EQ(dat_ep_connect(c.ep, (DAT_IA_ADDRESS_PTR)&six, 1000,
				     DAT_TIMEOUT_INFINITE, 0, NULL,
				     DAT_QOS_BEST_EFFORT, 0),
		      ERR(DAT_INVALID_ADDRESS, DAT_INVALID_ADDRESS_UNSUPPORTED));
	memset(&six.sin6_addr, 0, sizeof(six.sin6_addr));
	ASSERT_DAT_EQ(dat_ep_connect(c.ep, (DAT_IA_ADDRESS_PTR)&six, 1000,
				     DAT_TIMEOUT_INFINITE, 0, NULL,
				     DAT_QOS_BEST_EFFORT, 0),
		      ERR(DAT_INVALID_ADDRESS, DAT_INVALID_ADDRESS_MALFORMED));
	memset(&unix_addr, 0, sizeof(unix_addr));
	unix_addr.ss_family = AF_UNIX;
	ASSERT_DAT_EQ(dat_ep_connect(c.ep, (DAT_IA_ADDRESS_PTR)&unix_addr, 1000,
				     DAT_TIMEOUT_INFINITE, 0, NULL,
				     DAT_QOS_BEST_EFFORT, 0),
		      ERR(DAT_INVALID_ADDRESS, DAT_INVALID_ADDRESS_UNSUPPORTED));
	sin = sin_of("127.0.0.1", 1000);
	ASSERT_DAT_EQ(dat_ep_connect(c.ep, (DAT_IA_ADDRESS_PTR)&sin, 1000,
				     DAT_TIMEOUT_INFINITE, 1, NULL,
				     DAT_QOS_BEST_EFFORT, 0),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6));
	ASSERT_DAT_EQ(dat_ep_connect(c.ep, (DAT_IA_ADDRESS_PTR)&sin, 1000,
				     DAT_TIMEOUT_INFINITE, 0, NULL,
				     DAT_QOS_BEST_EFFORT, 0x80),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG8));
	ASSERT_DAT_EQ(dat_ep_connect(c.ep, (DAT_IA_ADDRESS_PTR)&sin, 1000,
				     DAT_TIMEOUT_INFINITE, 0, NULL,
				     DAT_QOS_BEST_EFFORT,
				     DAT_CONNECT_MULTIPATH_REQUIRED_FLAG),
		      ERR(DAT_MODEL_NOT_SUPPORTED, 0));
	ASSERT_DAT_EQ(dat_ep_connect(c.buf, (DAT_IA_ADDRESS_PTR)&sin, 1000,
				     DAT_TIMEOUT_INFINITE, 0, NULL,
				     DAT_QOS_BEST_EFFORT, 0),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	/* Nothing was started by any of these. */
	ASSERT_EQ(sdt_ep_state(c.ep), DAT_EP_STATE_UNCONNECTED);
	sdt_expect_none(c.conn_evd, 0);

	/* Not ready: no connection EVD. */
	{
		DAT_EP_HANDLE ep;

		ASSERT_OK(dat_ep_create(ia, c.pz, c.recv_evd, c.req_evd,
					DAT_HANDLE_NULL, NULL, &ep));
		ASSERT_DAT_EQ(dat_ep_connect(ep, (DAT_IA_ADDRESS_PTR)&sin, 1000,
					     DAT_TIMEOUT_INFINITE, 0, NULL,
					     DAT_QOS_BEST_EFFORT, 0),
			      bad_state(DAT_INVALID_STATE_EP_NOTREADY));
		ASSERT_OK(dat_ep_free(ep));
	}
	sdt_node_fini(&c);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/*
 * ACCEPT_COMPLETION_ERROR when the requester goes away after the ACCEPT
 * and before the RTU; and when it stays silent past the handshake
 * timeout (SOFTDAPL_CM_TIMEOUT_MS), which also frees a socket whose
 * requester never sends a HELLO.
 */
TEST_IMPL(provider_conn2_accept_completion_error)
{
	DAT_IA_HANDLE ia;
	struct sdt_node s;
	struct raw r, idle;

	test_setenv("SOFTDAPL_CM_TIMEOUT_MS", "300");
	ia = sdt_open_ia(NULL, NULL);
	sdt_node_init(&s, ia, NULL, 4096);
	ASSERT_OK(sdt_recv(&s, 0, 16, 8));

	/* Gone after the ACCEPT. */
	raw_hold_passive(&r, &s);
	raw_close(&r);
	sdt_expect_conn(s.conn_evd, DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
	ASSERT_EQ(sdt_ep_state(s.ep), DAT_EP_STATE_DISCONNECTED);
	sdt_expect_dto(s.recv_evd, DAT_DTO_ERR_FLUSHED, DAT_DTO_RECEIVE, 8);
	ASSERT_OK(dat_ep_reset(s.ep));

	/* Silent after the ACCEPT: the handshake timeout ends it. */
	raw_hold_passive(&r, &s);
	sdt_expect_conn(s.conn_evd, DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
	ASSERT_EQ(sdt_ep_state(s.ep), DAT_EP_STATE_DISCONNECTED);
	/* The requester finds the connection closed. */
	{
		char b[64];

		raw_wait(r.fd);
		ASSERT_LE(recv(r.fd, b, sizeof(b), 0), 0);
	}
	raw_close(&r);
	ASSERT_OK(dat_ep_reset(s.ep));

	/* A requester that never sends its HELLO is dropped as well. */
	{
		struct sockaddr_storage ss;
		char b[64];

		sdt_ia_addr(ia, &ss);
		((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)s.port);
		idle.fd = socket(AF_INET, SOCK_STREAM, 0);
		ASSERT_OK(connect(idle.fd, (struct sockaddr *)&ss,
				  sizeof(struct sockaddr_in)));
		raw_wait(idle.fd);
		ASSERT_LE(recv(idle.fd, b, sizeof(b), 0), 0);
		raw_close(&idle);
	}
	sdt_expect_none(s.cr_evd, 0);
	sdt_node_fini(&s);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Each call in each state                                             */

/* The states a test can hold an EP in, and how. */
enum hold {
	H_UNCONNECTED,
	H_RESERVED,
	H_ACTIVE,
	H_PASSIVE,
	H_TENTATIVE,
	H_CONNECTED,
	H_DISC_PENDING,
	H_DISCONNECTED,
	H_COUNT
};

static const DAT_EP_STATE hold_state[H_COUNT] = {
	[H_UNCONNECTED] = DAT_EP_STATE_UNCONNECTED,
	[H_RESERVED] = DAT_EP_STATE_RESERVED,
	[H_ACTIVE] = DAT_EP_STATE_ACTIVE_CONNECTION_PENDING,
	[H_PASSIVE] = DAT_EP_STATE_PASSIVE_CONNECTION_PENDING,
	[H_TENTATIVE] = DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING,
	[H_CONNECTED] = DAT_EP_STATE_CONNECTED,
	[H_DISC_PENDING] = DAT_EP_STATE_DISCONNECT_PENDING,
	[H_DISCONNECTED] = DAT_EP_STATE_DISCONNECTED,
};

static const DAT_RETURN_SUBTYPE hold_sub[H_COUNT] = {
	[H_UNCONNECTED] = DAT_INVALID_STATE_EP_UNCONNECTED,
	[H_RESERVED] = DAT_INVALID_STATE_EP_RESERVED,
	[H_ACTIVE] = DAT_INVALID_STATE_EP_ACTCONNPENDING,
	[H_PASSIVE] = DAT_INVALID_STATE_EP_PASSCONNPENDING,
	[H_TENTATIVE] = DAT_INVALID_STATE_EP_TENTCONNPENDING,
	[H_CONNECTED] = DAT_INVALID_STATE_EP_CONNECTED,
	[H_DISC_PENDING] = DAT_INVALID_STATE_EP_DISCPENDING,
	[H_DISCONNECTED] = DAT_INVALID_STATE_EP_DISCONNECTED,
};

/* One EP held in a state: the EP under test is t->x.ep. */
struct held {
	enum hold	h;
	struct sdt_node	x, peer;	/* x: under test */
	DAT_RSP_HANDLE	rsp;
	DAT_CR_HANDLE	cr;
	struct raw	raw;
};

static void hold(struct held *t, DAT_IA_HANDLE ia, enum hold h)
{
	DAT_CONN_QUAL port;

	memset(t, 0, sizeof(*t));
	t->h = h;
	t->raw.fd = -1;
	sdt_node_init(&t->x, ia, NULL, 4096);
	sdt_node_init(&t->peer, ia, NULL, 4096);
	switch (h) {
	case H_UNCONNECTED:
		break;
	case H_RESERVED:
	case H_TENTATIVE:
		t->rsp = rsp_any(&t->x, t->x.ep, &port);
		if (h == H_TENTATIVE) {
			struct sockaddr_storage ss;

			sdt_ia_addr(ia, &ss);
			ASSERT_OK(dat_ep_connect(t->peer.ep, (DAT_IA_ADDRESS_PTR)&ss,
						 port, DAT_TIMEOUT_INFINITE, 0, NULL,
						 DAT_QOS_BEST_EFFORT, 0));
			t->cr = sdt_expect_cr(t->x.cr_evd, NULL);
		}
		break;
	case H_ACTIVE:
		start_connect(&t->x, &t->peer, DAT_TIMEOUT_INFINITE);
		t->cr = sdt_expect_cr(t->peer.cr_evd, NULL);
		break;
	case H_PASSIVE:
		raw_hold_passive(&t->raw, &t->x);
		break;
	case H_DISC_PENDING:
		hold_disconnect_pending(&t->raw, &t->x, &t->x);
		break;
	case H_CONNECTED:
	case H_DISCONNECTED:
		sdt_connect(&t->x, &t->peer);
		if (h == H_DISCONNECTED)
			sdt_disconnect(&t->x, &t->peer);
		break;
	default:
		break;
	}
	ASSERT_EQ(sdt_ep_state(t->x.ep), hold_state[h]);
}

/* Ends what hold() started and frees everything. */
static void unhold(struct held *t)
{
	if (t->h == H_DISC_PENDING && t->x.ep != DAT_HANDLE_NULL &&
	    sdt_ep_state(t->x.ep) == DAT_EP_STATE_DISCONNECT_PENDING)
		release_disconnect_pending(&t->raw, &t->x);
	if (t->cr != DAT_HANDLE_NULL)
		(void)dat_cr_reject(t->cr, 0, NULL);
	if (t->rsp != DAT_HANDLE_NULL)
		ASSERT_OK(dat_rsp_free(t->rsp));
	raw_close(&t->raw);
	/* Whatever it is now, free must work once it is not pending. */
	if (t->x.ep != DAT_HANDLE_NULL) {
		DAT_EP_STATE s = sdt_ep_state(t->x.ep);

		if (s == DAT_EP_STATE_PASSIVE_CONNECTION_PENDING)
			sdt_expect_conn(t->x.conn_evd,
					DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
	}
	sdt_node_fini(&t->x);
	sdt_node_fini(&t->peer);
}

/*
 * dat_ep_connect is valid only in UNCONNECTED; dat_ep_disconnect in
 * CONNECTED, DISCONNECT_PENDING (graceful: no effect), the connecting
 * states and DISCONNECTED (no-op); dat_ep_reset in UNCONNECTED (no-op)
 * and DISCONNECTED; sends (SEND-4) in CONNECTED and DISCONNECTED;
 * receives (RECV-6), dat_ep_recv_query, dat_ep_set_watermark,
 * dat_ep_query and dat_ep_get_status in every state. Each refusal is
 * DAT_INVALID_STATE with the subtype of the state.
 */
TEST_IMPL(provider_conn2_calls_by_state)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	struct sockaddr_in to = sin_of("127.0.0.1", sdt_dead_port());
	enum hold h;

	for (h = 0; h < H_COUNT; h++) {
		struct held t;
		DAT_RETURN sub_err;
		DAT_COUNT n;
		DAT_EP_PARAM p;

		hold(&t, ia, h);
		sub_err = bad_state(hold_sub[h]);
		/* connect */
		ASSERT_DAT_EQ(dat_ep_connect(t.x.ep, (DAT_IA_ADDRESS_PTR)&to,
					     ntohs(to.sin_port),
					     DAT_TIMEOUT_INFINITE, 0, NULL,
					     DAT_QOS_BEST_EFFORT, 0),
			      h == H_UNCONNECTED ? DAT_SUCCESS : sub_err);
		if (h == H_UNCONNECTED) {
			/* Refused: nobody listens there. Then reset. */
			sdt_expect_conn(t.x.conn_evd,
					DAT_CONNECTION_EVENT_NON_PEER_REJECTED);
			ASSERT_OK(dat_ep_reset(t.x.ep));
		}
		/* reset */
		ASSERT_DAT_EQ(dat_ep_reset(t.x.ep),
			      h == H_UNCONNECTED ? DAT_SUCCESS :
			      h == H_DISCONNECTED ? DAT_SUCCESS : sub_err);
		if (h == H_DISCONNECTED) {
			ASSERT_EQ(sdt_ep_state(t.x.ep), DAT_EP_STATE_UNCONNECTED);
			unhold(&t);
			hold(&t, ia, h);
		}
		/* send: SEND-4 */
		ASSERT_DAT_EQ(sdt_send(&t.x, 0, 8, 77, 0),
			      h == H_CONNECTED || h == H_DISCONNECTED ?
			      DAT_SUCCESS : sub_err);
		if (h == H_DISCONNECTED)	/* SEND-5 */
			sdt_expect_dto(t.x.req_evd, DAT_DTO_ERR_FLUSHED,
				       DAT_DTO_SEND, 77);
		if (h == H_CONNECTED) {
			ASSERT_OK(sdt_recv(&t.peer, 0, 8, 78));
			sdt_expect_dto(t.x.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 77);
			sdt_expect_dto(t.peer.recv_evd, DAT_DTO_SUCCESS,
				       DAT_DTO_RECEIVE, 78);
		}
		/* Valid everywhere: receives (RECV-6; RECV-7 when disconnected). */
		ASSERT_OK(sdt_recv(&t.x, 200, 8, 55));
		if (h == H_DISCONNECTED)
			sdt_expect_dto(t.x.recv_evd, DAT_DTO_ERR_FLUSHED,
				       DAT_DTO_RECEIVE, 55);
		ASSERT_OK(dat_ep_recv_query(t.x.ep, &n, NULL));
		ASSERT_EQ(n, h == H_DISCONNECTED ? 0 : 1);
		ASSERT_OK(dat_ep_set_watermark(t.x.ep, DAT_WATERMARK_INFINITE,
					       DAT_WATERMARK_INFINITE));
		ASSERT_OK(dat_ep_query(t.x.ep, DAT_EP_FIELD_ALL, &p));
		ASSERT_EQ(p.ep_state, hold_state[h]);
		/* disconnect: "disallowed" in the non-connecting ones. */
		switch (h) {
		case H_UNCONNECTED:
		case H_RESERVED:
		case H_PASSIVE:
		case H_TENTATIVE:
			ASSERT_DAT_EQ(dat_ep_disconnect(t.x.ep, DAT_CLOSE_ABRUPT_FLAG),
				      sub_err);
			ASSERT_DAT_EQ(dat_ep_disconnect(t.x.ep, DAT_CLOSE_GRACEFUL_FLAG),
				      sub_err);
			break;
		case H_DISC_PENDING:
			/* Graceful again: no effect. Abrupt: ends it now. */
			ASSERT_OK(dat_ep_disconnect(t.x.ep, DAT_CLOSE_GRACEFUL_FLAG));
			ASSERT_EQ(sdt_ep_state(t.x.ep), DAT_EP_STATE_DISCONNECT_PENDING);
			ASSERT_OK(dat_ep_disconnect(t.x.ep, DAT_CLOSE_ABRUPT_FLAG));
			ASSERT_EQ(sdt_ep_state(t.x.ep), DAT_EP_STATE_DISCONNECTED);
			sdt_expect_conn(t.x.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
			sdt_expect_dto(t.x.req_evd, DAT_DTO_ERR_FLUSHED,
				       DAT_DTO_SEND, 900);
			break;
		case H_DISCONNECTED:
			ASSERT_OK(dat_ep_disconnect(t.x.ep, DAT_CLOSE_GRACEFUL_FLAG));
			ASSERT_EQ(sdt_ep_state(t.x.ep), DAT_EP_STATE_DISCONNECTED);
			sdt_expect_none(t.x.conn_evd, 0);
			break;
		case H_ACTIVE:
		case H_CONNECTED:
			ASSERT_OK(dat_ep_disconnect(t.x.ep, DAT_CLOSE_ABRUPT_FLAG));
			ASSERT_EQ(sdt_ep_state(t.x.ep), DAT_EP_STATE_DISCONNECTED);
			sdt_expect_conn(t.x.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
			break;
		default:
			break;
		}
		unhold(&t);
	}
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/*
 * dat_ep_free in every state: refused in RESERVED, PASSIVE_ and
 * TENTATIVE_CONNECTION_PENDING; elsewhere the EP goes, aborting what it
 * was doing: the peer of a connection sees DISCONNECTED, the server of
 * a request in progress finds the requester gone.
 */
TEST_IMPL(provider_conn2_free_by_state)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	enum hold h;

	for (h = 0; h < H_COUNT; h++) {
		struct held t;
		bool refused = h == H_RESERVED || h == H_PASSIVE || h == H_TENTATIVE;

		hold(&t, ia, h);
		ASSERT_DAT_EQ(dat_ep_free(t.x.ep),
			      refused ? bad_state(hold_sub[h]) : DAT_SUCCESS);
		if (refused) {
			ASSERT_EQ(sdt_ep_state(t.x.ep), hold_state[h]);
			unhold(&t);
			continue;
		}
		t.x.ep = DAT_HANDLE_NULL;
		switch (h) {
		case H_ACTIVE:
			/* The request is there; accepting it fails. */
			ASSERT_OK(dat_cr_accept(t.cr, t.peer.ep, 0, NULL));
			t.cr = DAT_HANDLE_NULL;
			sdt_expect_conn(t.peer.conn_evd,
					DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
			break;
		case H_CONNECTED:
			sdt_expect_conn(t.peer.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
			break;
		case H_DISC_PENDING:
			/* The peer gets what was sent, then the end. */
			ASSERT_EQ(raw_drain(&t.raw), 2);
			break;
		default:
			break;
		}
		/* Nothing more is reported about the freed EP. */
		sdt_expect_none(t.x.conn_evd, 20);
		sdt_expect_none(t.x.req_evd, 0);
		unhold(&t);
	}
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/*
 * dat_ep_modify by state (DAT 2.0 dat_ep_modify): the PZ only in the
 * quiescent states (UNCONNECTED, TENTATIVE), the EVDs and attributes
 * also in RESERVED; nothing once a connection is under way.
 */
TEST_IMPL(provider_conn2_modify_by_state)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	enum hold h;

	for (h = 0; h < H_COUNT; h++) {
		struct held t;
		DAT_EP_PARAM p;
		bool quiet = h == H_UNCONNECTED || h == H_TENTATIVE;
		bool early = quiet || h == H_RESERVED;

		hold(&t, ia, h);
		memset(&p, 0, sizeof(p));
		p.pz_handle = t.x.pz;
		p.connect_evd_handle = t.x.conn_evd;
		p.ep_attr.max_message_size = 4096;
		ASSERT_DAT_EQ(dat_ep_modify(t.x.ep, DAT_EP_FIELD_PZ_HANDLE, &p),
			      quiet ? DAT_SUCCESS : bad_state(hold_sub[h]));
		ASSERT_DAT_EQ(dat_ep_modify(t.x.ep, DAT_EP_FIELD_CONNECT_EVD_HANDLE, &p),
			      early ? DAT_SUCCESS : bad_state(hold_sub[h]));
		ASSERT_DAT_EQ(dat_ep_modify(t.x.ep,
					    DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE, &p),
			      early ? DAT_SUCCESS : bad_state(hold_sub[h]));
		/* Arguments before states: fixed fields are never modifiable. */
		ASSERT_DAT_EQ(dat_ep_modify(t.x.ep, DAT_EP_FIELD_EP_STATE, &p),
			      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
		ASSERT_DAT_EQ(dat_ep_modify(t.x.ep, DAT_EP_FIELD_PZ_HANDLE, NULL),
			      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
		ASSERT_EQ(sdt_ep_state(t.x.ep), hold_state[h]);
		unhold(&t);
	}
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/*
 * dat_ep_reset: a no-op in UNCONNECTED that keeps posted receives;
 * DISCONNECTED to UNCONNECTED, after which the EP connects again.
 */
TEST_IMPL(provider_conn2_reset_rules)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	struct sdt_node c, s;
	DAT_COUNT n;
	DAT_EP_PARAM p;

	sdt_node_init(&c, ia, NULL, 4096);
	sdt_node_init(&s, ia, NULL, 4096);
	ASSERT_OK(sdt_recv(&s, 0, 16, 1));
	ASSERT_OK(sdt_recv(&s, 16, 16, 2));
	ASSERT_OK(dat_ep_reset(s.ep));
	ASSERT_OK(dat_ep_recv_query(s.ep, &n, NULL));
	ASSERT_EQ(n, 2);
	/* The receives posted before the reset serve the connection. */
	sdt_connect(&c, &s);
	ASSERT_OK(sdt_send(&c, 0, 4, 3, 0));
	sdt_expect_dto(s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 1);
	sdt_expect_dto(c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 3);
	sdt_disconnect(&s, &c);
	sdt_expect_dto(s.recv_evd, DAT_DTO_ERR_FLUSHED, DAT_DTO_RECEIVE, 2);
	ASSERT_OK(dat_ep_recv_query(s.ep, &n, NULL));
	ASSERT_EQ(n, 0);
	/* Reset clears the connection's traces. */
	ASSERT_OK(dat_ep_reset(c.ep));
	ASSERT_OK(dat_ep_query(c.ep, DAT_EP_FIELD_ALL, &p));
	ASSERT_EQ(p.ep_state, DAT_EP_STATE_UNCONNECTED);
	ASSERT_UINT64_EQ(p.remote_port_qual, 0);
	ASSERT_OK(dat_ep_reset(c.ep));	/* again: a no-op */
	ASSERT_OK(dat_ep_reset(s.ep));
	sdt_connect(&c, &s);
	ASSERT_DAT_EQ(dat_ep_reset(c.ep), bad_state(DAT_INVALID_STATE_EP_CONNECTED));
	sdt_disconnect(&c, &s);
	ASSERT_DAT_EQ(dat_ep_reset(c.buf), ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	sdt_node_fini(&c);
	sdt_node_fini(&s);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/*
 * Disconnect while ACTIVE_CONNECTION_PENDING, graceful or abrupt: the
 * establishment is aborted, the EP DISCONNECTED with a DISCONNECTED
 * event, its preposted receives flushed; the server's accept of the
 * request then fails.
 */
TEST_IMPL(provider_conn2_disconnect_while_connecting)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	struct sdt_node c, s;
	int round;

	sdt_node_init(&c, ia, NULL, 4096);
	sdt_node_init(&s, ia, NULL, 4096);
	for (round = 0; round < 2; round++) {
		DAT_CR_HANDLE cr;

		ASSERT_OK(sdt_recv(&c, 0, 16, 10 + (uint64_t)round));
		start_connect(&c, &s, DAT_TIMEOUT_INFINITE);
		cr = sdt_expect_cr(s.cr_evd, NULL);
		ASSERT_OK(dat_ep_disconnect(c.ep, round ? DAT_CLOSE_GRACEFUL_FLAG :
						     DAT_CLOSE_ABRUPT_FLAG));
		ASSERT_EQ(sdt_ep_state(c.ep), DAT_EP_STATE_DISCONNECTED);
		sdt_expect_conn(c.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
		sdt_expect_dto(c.recv_evd, DAT_DTO_ERR_FLUSHED, DAT_DTO_RECEIVE,
			       10 + (uint64_t)round);
		ASSERT_OK(dat_cr_accept(cr, s.ep, 0, NULL));
		sdt_expect_conn(s.conn_evd, DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
		sdt_expect_none(c.conn_evd, 20);
		ASSERT_OK(dat_ep_reset(c.ep));
		ASSERT_OK(dat_ep_reset(s.ep));
	}
	sdt_node_fini(&c);
	sdt_node_fini(&s);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/*
 * Every connection event on the EVD it belongs to: CR arrivals on the
 * service point's EVD, ESTABLISHED, PEER_REJECTED, NON_PEER_REJECTED,
 * BROKEN and DISCONNECTED on the EP's connection EVD, and nothing of
 * them on the DTO EVDs (each stream has its EVD here).
 */
TEST_IMPL(provider_conn2_events_on_their_evds)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	struct sdt_node c, s;
	DAT_CR_ARRIVAL_EVENT_DATA a;
	DAT_CR_HANDLE cr;
	DAT_EVENT ev;

	sdt_node_init(&c, ia, NULL, 4096);
	sdt_node_init(&s, ia, NULL, 4096);
	/* PEER_REJECTED */
	start_connect(&c, &s, DAT_TIMEOUT_INFINITE);
	cr = sdt_expect_cr(s.cr_evd, &a);
	ASSERT_PTR_EQ(a.sp_handle.psp_handle, s.psp);
	ASSERT_UINT64_EQ(a.conn_qual, s.port);
	ASSERT_NOT_NULL(a.local_ia_address_ptr);
	ASSERT_EQ(a.truncate_flag, DAT_FALSE);
	ASSERT_OK(dat_cr_reject(cr, 0, NULL));
	ev = sdt_wait(c.conn_evd, 10000);
	ASSERT_EQ(ev.event_number, DAT_CONNECTION_EVENT_PEER_REJECTED);
	ASSERT_PTR_EQ(ev.event_data.connect_event_data.ep_handle, c.ep);
	/* NON_PEER_REJECTED: the PSP is gone. */
	ASSERT_OK(dat_ep_reset(c.ep));
	ASSERT_OK(dat_psp_free(s.psp));
	s.psp = DAT_HANDLE_NULL;
	{
		struct sockaddr_storage ss;

		sdt_ia_addr(ia, &ss);
		ASSERT_OK(dat_ep_connect(c.ep, (DAT_IA_ADDRESS_PTR)&ss, s.port,
					 DAT_TIMEOUT_INFINITE, 0, NULL,
					 DAT_QOS_BEST_EFFORT, 0));
	}
	sdt_expect_conn(c.conn_evd, DAT_CONNECTION_EVENT_NON_PEER_REJECTED);
	/* ESTABLISHED, then BROKEN (RECV-5), then DISCONNECTED. */
	ASSERT_OK(dat_ep_reset(c.ep));
	sdt_connect(&c, &s);
	ASSERT_OK(sdt_recv(&s, 0, 4, 1));
	ASSERT_OK(sdt_send(&c, 0, 64, 2, 0));
	sdt_expect_dto(s.recv_evd, DAT_DTO_LENGTH_ERROR, DAT_DTO_RECEIVE, 1);
	sdt_expect_dto(c.req_evd, DAT_DTO_ERR_REMOTE_RESPONDER, DAT_DTO_SEND, 2);
	sdt_expect_conn(c.conn_evd, DAT_CONNECTION_EVENT_BROKEN);
	sdt_expect_conn(s.conn_evd, DAT_CONNECTION_EVENT_BROKEN);
	ASSERT_OK(dat_ep_reset(c.ep));
	ASSERT_OK(dat_ep_reset(s.ep));
	sdt_connect(&c, &s);
	sdt_disconnect(&c, &s);
	/* Nothing strayed. */
	sdt_expect_none(c.recv_evd, 20);
	sdt_expect_none(c.req_evd, 0);
	sdt_expect_none(s.req_evd, 0);
	sdt_expect_none(s.recv_evd, 0);
	sdt_expect_none(c.cr_evd, 0);
	sdt_expect_none(s.cr_evd, 0);
	sdt_node_fini(&c);
	sdt_node_fini(&s);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* ------------------------------------------------------------------ */
/* SRQ-6 and SRQ-7                                                     */

/* An EP of @srq in place of @n's, with @n's PZ and EVDs (@recv_evd's). */
static void srq_ep(struct sdt_node *n, DAT_SRQ_HANDLE srq, DAT_PZ_HANDLE pz,
		   DAT_EVD_HANDLE recv_evd)
{
	if (n->ep != DAT_HANDLE_NULL)
		ASSERT_OK(dat_ep_free(n->ep));
	ASSERT_OK(dat_ep_create_with_srq(n->ia, pz, recv_evd, n->req_evd,
					 n->conn_evd, srq, NULL, &n->ep));
}

static DAT_COUNT srq_avail(DAT_SRQ_HANDLE srq, DAT_COUNT *outstanding)
{
	DAT_SRQ_PARAM p;

	ASSERT_OK(dat_srq_query(srq, DAT_SRQ_FIELD_ALL, &p));
	if (outstanding)
		*outstanding = p.outstanding_dto_count;
	return p.available_dto_count;
}

/*
 * SRQ-6: only an EP in CONNECTED or DISCONNECT_PENDING takes buffers.
 * Unconnected, connecting and disconnected EPs of the SRQ hold none
 * while another EP drains it; one in DISCONNECT_PENDING still takes.
 */
TEST_IMPL(provider_conn2_srq6_only_connected_take)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	DAT_SRQ_ATTR a = { 16, 1, 0 };
	DAT_DTO_COMPLETION_EVENT_DATA ev_dto;
	struct sdt_node c[3], s[3];
	DAT_SRQ_HANDLE srq;
	DAT_COUNT n;
	int i;

	for (i = 0; i < 3; i++) {
		sdt_node_init(&c[i], ia, NULL, 4096);
		sdt_node_init(&s[i], ia, NULL, 4096);
	}
	ASSERT_OK(dat_srq_create(ia, s[0].pz, &a, &srq));
	for (i = 0; i < 3; i++)
		srq_ep(&s[i], srq, s[0].pz, s[0].recv_evd);
	for (i = 0; i < 6; i++) {
		DAT_LMR_TRIPLET t = sdt_iov(&s[0], (size_t)i * 100, 100);

		ASSERT_OK(dat_srq_post_recv(srq, 1, &t, ck((uint64_t)i)));
	}
	/* s[1] stays UNCONNECTED, s[2] is connected then disconnected. */
	sdt_connect(&c[0], &s[0]);
	sdt_connect(&c[2], &s[2]);
	sdt_disconnect(&c[2], &s[2]);
	ASSERT_OK(sdt_send(&c[0], 0, 10, 1, 0));
	sdt_expect_dto(s[0].recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 0);
	sdt_expect_dto(c[0].req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 1);
	for (i = 1; i < 3; i++) {
		ASSERT_OK(dat_ep_recv_query(s[i].ep, &n, NULL));
		ASSERT_EQ(n, 0);
	}
	ASSERT_EQ(srq_avail(srq, NULL), 5);
	/* A connecting EP takes nothing either. */
	start_connect(&s[1], &c[1], DAT_TIMEOUT_INFINITE);
	ASSERT_EQ(sdt_ep_state(s[1].ep), DAT_EP_STATE_ACTIVE_CONNECTION_PENDING);
	ASSERT_OK(dat_ep_recv_query(s[1].ep, &n, NULL));
	ASSERT_EQ(n, 0);
	ASSERT_OK(dat_cr_reject(sdt_expect_cr(c[1].cr_evd, NULL), 0, NULL));
	sdt_expect_conn(s[1].conn_evd, DAT_CONNECTION_EVENT_PEER_REJECTED);

	sdt_disconnect(&c[0], &s[0]);

	/*
	 * DISCONNECT_PENDING: s[1], connected to a raw requester, sent a
	 * message and disconnects; the requester's message still lands.
	 */
	ASSERT_OK(dat_ep_reset(s[1].ep));
	{
		struct raw r;
		char pay[10] = "0123456789";

		hold_disconnect_pending(&r, &s[1], &s[0]);
		raw_frame(&r, SD_OP_SEND, sizeof(pay), 0);
		raw_write(r.fd, pay, sizeof(pay));
		ev_dto = sdt_expect_dto(s[0].recv_evd, DAT_DTO_SUCCESS,
					DAT_DTO_RECEIVE, 1);
		ASSERT_PTR_EQ(ev_dto.ep_handle, s[1].ep);
		ASSERT_MEM_EQ(s[0].buf + 100, pay, sizeof(pay));
		ASSERT_EQ(sdt_ep_state(s[1].ep), DAT_EP_STATE_DISCONNECT_PENDING);
		release_disconnect_pending(&r, &s[1]);
		raw_close(&r);
	}
	ASSERT_EQ(srq_avail(srq, &n), 4);
	ASSERT_EQ(n, 4);
	sdt_expect_none(s[0].recv_evd, 20);

	for (i = 0; i < 3; i++) {
		ASSERT_OK(dat_ep_free(s[i].ep));
		s[i].ep = DAT_HANDLE_NULL;
	}
	ASSERT_OK(dat_srq_free(srq));
	for (i = 0; i < 3; i++) {
		sdt_node_fini(&c[i]);
		sdt_node_fini(&s[i]);
	}
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

#define L_EPS	8		/* EPs on the SRQ */
#define L_SENDS	16		/* messages from each client */
#define L_MSG	(32 * 1024)	/* bytes per message */
#define L_BUFS	(L_EPS * L_SENDS + 32)

/*
 * SRQ-7 under load: L_EPS connections share one SRQ and one receive
 * EVD; every client sends L_SENDS large messages at once, and while
 * they fly four connections are cut abruptly, two from each side. Every
 * buffer an EP took completes exactly once, filled or flushed; the
 * others stay posted; each connection's messages land in order (SRQ-4);
 * the connections left alone receive everything.
 */
TEST_IMPL(provider_conn2_srq7_load)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	DAT_SRQ_ATTR a = { L_BUFS, 1, 0 };
	struct sdt_node c[L_EPS], s[L_EPS];
	static unsigned char seen[L_BUFS];
	int got[L_EPS], flushed[L_EPS], sent_ok[L_EPS];
	DAT_SRQ_HANDLE srq;
	DAT_COUNT avail, outstanding;
	DAT_EVENT ev;
	int i, k, total = 0;

	for (i = 0; i < L_EPS; i++) {
		sdt_node_init(&c[i], ia, NULL, (size_t)L_SENDS * L_MSG);
		sdt_node_init(&s[i], ia, NULL, i == 0 ? (size_t)L_BUFS * L_MSG : 64);
		got[i] = flushed[i] = sent_ok[i] = 0;
	}
	ASSERT_OK(dat_srq_create(ia, s[0].pz, &a, &srq));
	for (i = 0; i < L_EPS; i++) {
		srq_ep(&s[i], srq, s[0].pz, s[0].recv_evd);
		sdt_connect(&c[i], &s[i]);
	}
	for (k = 0; k < L_BUFS; k++) {
		DAT_LMR_TRIPLET t = sdt_iov(&s[0], (size_t)k * L_MSG, L_MSG);

		ASSERT_OK(dat_srq_post_recv(srq, 1, &t, ck((uint64_t)k)));
	}
	/* Each message says whose and which it is, all through. */
	for (i = 0; i < L_EPS; i++)
		for (k = 0; k < L_SENDS; k++)
			memset(c[i].buf + (size_t)k * L_MSG, i * L_SENDS + k + 1, L_MSG);
	for (k = 0; k < L_SENDS; k++)
		for (i = 0; i < L_EPS; i++)
			ASSERT_OK(sdt_send(&c[i], (size_t)k * L_MSG, L_MSG,
					   (uint64_t)(i * 1000 + k), 0));
	for (i = 0; i < 2; i++)
		ASSERT_OK(dat_ep_disconnect(s[i].ep, DAT_CLOSE_ABRUPT_FLAG));
	for (i = 2; i < 4; i++)
		ASSERT_OK(dat_ep_disconnect(c[i].ep, DAT_CLOSE_ABRUPT_FLAG));

	/* Every send completes once; the cut ones may be flushed. */
	for (i = 0; i < L_EPS; i++) {
		unsigned char done[L_SENDS];

		memset(done, 0, sizeof(done));
		for (k = 0; k < L_SENDS; k++) {
			DAT_DTO_COMPLETION_EVENT_DATA *d;

			ev = sdt_wait(c[i].req_evd, 20000);
			d = &ev.event_data.dto_completion_event_data;
			ASSERT_EQ(ev.event_number, DAT_DTO_COMPLETION_EVENT);
			ASSERT_EQ(d->user_cookie.as_64 / 1000, (uint64_t)i);
			ASSERT_EQ(done[d->user_cookie.as_64 % 1000], 0);
			done[d->user_cookie.as_64 % 1000] = 1;
			if (d->status == DAT_DTO_SUCCESS)
				sent_ok[i]++;
			else
				ASSERT_EQ(d->status, DAT_DTO_ERR_FLUSHED);
			ASSERT(i < 4 || d->status == DAT_DTO_SUCCESS);
		}
	}
	for (i = 0; i < 4; i++) {
		sdt_expect_conn(c[i].conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
		sdt_expect_conn(s[i].conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	}
	for (i = 4; i < L_EPS; i++)
		sdt_disconnect(&c[i], &s[i]);

	/* Every EP is DISCONNECTED: all its completions are queued. */
	while (sdt_poll(s[0].recv_evd, &ev)) {
		DAT_DTO_COMPLETION_EVENT_DATA *d = &ev.event_data.dto_completion_event_data;
		uint64_t b = d->user_cookie.as_64;

		ASSERT_EQ(ev.event_number, DAT_DTO_COMPLETION_EVENT);
		ASSERT_EQ(d->operation, DAT_DTO_RECEIVE);
		ASSERT_LT(b, L_BUFS);
		ASSERT_EQ(seen[b], 0);		/* exactly once */
		seen[b] = 1;
		total++;
		for (i = 0; i < L_EPS && d->ep_handle != s[i].ep; i++)
			;
		ASSERT_LT(i, L_EPS);
		if (d->status == DAT_DTO_ERR_FLUSHED) {
			flushed[i]++;
			continue;
		}
		ASSERT_EQ(d->status, DAT_DTO_SUCCESS);
		ASSERT_EQ(d->transfered_length, L_MSG);
		/* SRQ-4: this EP's messages in the order they were sent. */
		ASSERT_EQ((unsigned char)s[0].buf[b * L_MSG],
			  (unsigned char)(i * L_SENDS + got[i] + 1));
		ASSERT_EQ((unsigned char)s[0].buf[b * L_MSG + L_MSG - 1],
			  (unsigned char)(i * L_SENDS + got[i] + 1));
		got[i]++;
	}
	for (i = 0; i < L_EPS; i++) {
		printf("ep %d: %d sends done, %d received, %d flushed\n", i,
		       sent_ok[i], got[i], flushed[i]);
		/* One buffer at most is in placement when a connection ends. */
		ASSERT_LE(flushed[i], 1);
		/* A send completes only once its message is placed. */
		ASSERT_LE(sent_ok[i], got[i]);
		if (i >= 4) {
			ASSERT_EQ(got[i], L_SENDS);
			ASSERT_EQ(flushed[i], 0);
		}
	}
	avail = srq_avail(srq, &outstanding);
	ASSERT_EQ(outstanding, avail);		/* nothing is held any more */
	ASSERT_EQ(total + avail, L_BUFS);	/* every buffer accounted for */

	for (i = 0; i < L_EPS; i++) {
		ASSERT_OK(dat_ep_free(s[i].ep));
		s[i].ep = DAT_HANDLE_NULL;
	}
	ASSERT_OK(dat_srq_free(srq));
	for (i = 0; i < L_EPS; i++) {
		sdt_node_fini(&c[i]);
		sdt_node_fini(&s[i]);
	}
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Issue 4: dat_ep_dup_connect                                         */

TEST_IMPL(provider_conn2_dup_connect)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	struct sdt_node c1, c2, s1, s2;
	DAT_CR_ARRIVAL_EVENT_DATA a;
	DAT_CR_PARAM crp;
	DAT_CR_HANDLE cr;
	DAT_EP_PARAM p1, p2;
	char dup[] = "dup";

	sdt_node_init(&c1, ia, NULL, 4096);
	sdt_node_init(&c2, ia, NULL, 4096);
	sdt_node_init(&s1, ia, NULL, 4096);
	sdt_node_init(&s2, ia, NULL, 4096);
	/* Not connected yet: the state of the EP to duplicate. */
	ASSERT_DAT_EQ(dat_ep_dup_connect(c2.ep, c1.ep, DAT_TIMEOUT_INFINITE, 0,
					 NULL, DAT_QOS_BEST_EFFORT),
		      bad_state(DAT_INVALID_STATE_EP_UNCONNECTED));
	sdt_connect(&c1, &s1);
	/* Arguments. */
	ASSERT_DAT_EQ(dat_ep_dup_connect(c2.buf, c1.ep, DAT_TIMEOUT_INFINITE, 0,
					 NULL, DAT_QOS_BEST_EFFORT),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	ASSERT_DAT_EQ(dat_ep_dup_connect(c2.ep, c2.buf, DAT_TIMEOUT_INFINITE, 0,
					 NULL, DAT_QOS_BEST_EFFORT),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	ASSERT_DAT_EQ(dat_ep_dup_connect(c1.ep, c1.ep, DAT_TIMEOUT_INFINITE, 0,
					 NULL, DAT_QOS_BEST_EFFORT),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(dat_ep_dup_connect(c2.ep, c1.ep, 0, 0, NULL,
					 DAT_QOS_BEST_EFFORT),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_DAT_EQ(dat_ep_dup_connect(c2.ep, c1.ep, DAT_TIMEOUT_INFINITE, -1,
					 NULL, DAT_QOS_BEST_EFFORT),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4));
	ASSERT_DAT_EQ(dat_ep_dup_connect(c2.ep, c1.ep, DAT_TIMEOUT_INFINITE, 4,
					 NULL, DAT_QOS_BEST_EFFORT),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5));
	/* The passive side of a connection names no service point. */
	ASSERT_DAT_EQ(dat_ep_dup_connect(c2.ep, s1.ep, DAT_TIMEOUT_INFINITE, 0,
					 NULL, DAT_QOS_BEST_EFFORT),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	/* The same service point as c1's connection, with c2's data. */
	ASSERT_OK(dat_ep_dup_connect(c2.ep, c1.ep, DAT_TIMEOUT_INFINITE,
				     sizeof(dup), dup, DAT_QOS_BEST_EFFORT));
	ASSERT_EQ(sdt_ep_state(c2.ep), DAT_EP_STATE_ACTIVE_CONNECTION_PENDING);
	cr = sdt_expect_cr(s1.cr_evd, &a);
	ASSERT_PTR_EQ(a.sp_handle.psp_handle, s1.psp);
	ASSERT_UINT64_EQ(a.conn_qual, s1.port);
	ASSERT_OK(dat_cr_query(cr, DAT_CR_FIELD_ALL, &crp));
	ASSERT_EQ(crp.private_data_size, sizeof(dup));
	ASSERT_STR_EQ(crp.private_data, "dup");
	ASSERT_OK(dat_cr_accept(cr, s2.ep, 0, NULL));
	sdt_expect_conn(c2.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	sdt_expect_conn(s2.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	ASSERT_OK(dat_ep_query(c1.ep, DAT_EP_FIELD_ALL, &p1));
	ASSERT_OK(dat_ep_query(c2.ep, DAT_EP_FIELD_ALL, &p2));
	ASSERT_UINT64_EQ(p1.remote_port_qual, p2.remote_port_qual);
	ASSERT_MEM_EQ(p1.remote_ia_address_ptr, p2.remote_ia_address_ptr,
		      sizeof(struct sockaddr_in));
	/* An EP that is not UNCONNECTED cannot connect. */
	ASSERT_DAT_EQ(dat_ep_dup_connect(c1.ep, c2.ep, DAT_TIMEOUT_INFINITE, 0,
					 NULL, DAT_QOS_BEST_EFFORT),
		      bad_state(DAT_INVALID_STATE_EP_CONNECTED));
	ASSERT_OK(sdt_recv(&s2, 0, 8, 1));
	ASSERT_OK(sdt_send(&c2, 0, 8, 2, 0));
	sdt_expect_dto(s2.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 1);
	sdt_expect_dto(c2.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 2);
	sdt_disconnect(&c1, &s1);
	sdt_disconnect(&c2, &s2);
	/* Once disconnected, there is nothing to duplicate. */
	ASSERT_OK(dat_ep_reset(c1.ep));
	ASSERT_DAT_EQ(dat_ep_dup_connect(c1.ep, c2.ep, DAT_TIMEOUT_INFINITE, 0,
					 NULL, DAT_QOS_BEST_EFFORT),
		      bad_state(DAT_INVALID_STATE_EP_DISCONNECTED));
	sdt_node_fini(&c1);
	sdt_node_fini(&c2);
	sdt_node_fini(&s1);
	sdt_node_fini(&s2);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Issue 4: CSPs and dat_ep_common_connect                              */

TEST_IMPL(provider_conn2_csp)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	DAT_COMM comm = { AF_INET, SOCK_STREAM, 0 };
	DAT_COMM dgram = { AF_INET, SOCK_DGRAM, 0 };
	DAT_COMM six = { AF_INET6, SOCK_STREAM, 0 };
	struct sockaddr_in addr = sin_of("127.0.0.1", 0), any = sin_of("0.0.0.0", 0);
	struct sockaddr_in other = sin_of("127.0.0.2", 0), at;
	struct sdt_node c, s;
	DAT_CR_ARRIVAL_EVENT_DATA a;
	DAT_CSP_HANDLE csp, csp2;
	DAT_HANDLE_TYPE type;
	DAT_CSP_PARAM p;
	DAT_CR_HANDLE cr;
	uint16_t port;

	sdt_node_init(&c, ia, NULL, 4096);
	sdt_node_init(&s, ia, NULL, 4096);
	/* Arguments, in order. */
	ASSERT_DAT_EQ(dat_csp_create(ia, NULL, (DAT_IA_ADDRESS_PTR)&addr, s.cr_evd, &csp),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(dat_csp_create(ia, &comm, NULL, s.cr_evd, &csp),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_DAT_EQ(dat_csp_create(ia, &comm, (DAT_IA_ADDRESS_PTR)&addr, s.conn_evd, &csp),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_CR));
	ASSERT_DAT_EQ(dat_csp_create(ia, &comm, (DAT_IA_ADDRESS_PTR)&addr, s.cr_evd, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5));
	ASSERT_DAT_EQ(dat_csp_create(ia, &dgram, (DAT_IA_ADDRESS_PTR)&addr, s.cr_evd, &csp),
		      ERR(DAT_COMM_NOT_SUPPORTED, 0));
	ASSERT_DAT_EQ(dat_csp_create(ia, &six, (DAT_IA_ADDRESS_PTR)&addr, s.cr_evd, &csp),
		      ERR(DAT_COMM_NOT_SUPPORTED, 0));
	ASSERT_DAT_EQ(dat_csp_create(ia, &comm, (DAT_IA_ADDRESS_PTR)&other, s.cr_evd, &csp),
		      ERR(DAT_INVALID_ADDRESS, DAT_INVALID_ADDRESS_UNREACHABLE));

	/* Port 0: the kernel picks one, which dat_csp_query reports. */
	ASSERT_OK(dat_csp_create(ia, &comm, (DAT_IA_ADDRESS_PTR)&addr, s.cr_evd, &csp));
	ASSERT_OK(dat_get_handle_type(csp, &type));
	ASSERT_EQ(type, DAT_HANDLE_TYPE_CSP);
	ASSERT_OK(dat_csp_query(csp, DAT_CSP_FIELD_ALL, &p));
	ASSERT_PTR_EQ(p.ia_handle, ia);
	ASSERT_PTR_EQ(p.evd_handle, s.cr_evd);
	ASSERT_EQ(p.comm->domain, AF_INET);
	ASSERT_EQ(p.comm->type, SOCK_STREAM);
	ASSERT_EQ(p.address_ptr->sa_family, AF_INET);
	memcpy(&at, p.address_ptr, sizeof(at));
	port = ntohs(at.sin_port);
	ASSERT_NE(port, 0);
	ASSERT_EQ(at.sin_addr.s_addr, htonl(INADDR_LOOPBACK));
	ASSERT_DAT_EQ(dat_csp_query(csp, DAT_CSP_FIELD_ALL, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	/* Its port is taken, by a CSP (the wildcard means the IA) or a PSP. */
	any.sin_port = htons(port);
	ASSERT_DAT_EQ(dat_csp_create(ia, &comm, (DAT_IA_ADDRESS_PTR)&any, s.cr_evd, &csp2),
		      ERR(DAT_CONN_QUAL_IN_USE, 0));
	ASSERT_DAT_EQ(dat_psp_create(ia, port, s.cr_evd, DAT_PSP_CONSUMER_FLAG, &s.psp),
		      ERR(DAT_CONN_QUAL_IN_USE, 0));
	/* Not a PSP's handle. */
	ASSERT_DAT_EQ(dat_psp_free(csp), ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PSP));

	/* dat_ep_common_connect: arguments. */
	ASSERT_DAT_EQ(dat_ep_common_connect(c.ep, NULL, DAT_TIMEOUT_INFINITE, 0, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(dat_ep_common_connect(c.ep, (DAT_IA_ADDRESS_PTR)&addr,
					    DAT_TIMEOUT_INFINITE, 0, NULL),
		      ERR(DAT_INVALID_ADDRESS, DAT_INVALID_ADDRESS_MALFORMED));
	{
		struct sockaddr_in mc = sin_of("239.1.2.3", port);

		ASSERT_DAT_EQ(dat_ep_common_connect(c.ep, (DAT_IA_ADDRESS_PTR)&mc,
						    DAT_TIMEOUT_INFINITE, 0, NULL),
			      ERR(DAT_INVALID_ADDRESS, DAT_INVALID_ADDRESS_UNSUPPORTED));
	}
	ASSERT_DAT_EQ(dat_ep_common_connect(c.ep, (DAT_IA_ADDRESS_PTR)&at, 0, 0, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_DAT_EQ(dat_ep_common_connect(c.ep, (DAT_IA_ADDRESS_PTR)&at,
					    DAT_TIMEOUT_INFINITE, 2000, c.buf),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4));
	ASSERT_DAT_EQ(dat_ep_common_connect(c.ep, (DAT_IA_ADDRESS_PTR)&at,
					    DAT_TIMEOUT_INFINITE, 4, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5));
	ASSERT_DAT_EQ(dat_ep_common_connect(c.buf, (DAT_IA_ADDRESS_PTR)&at,
					    DAT_TIMEOUT_INFINITE, 0, NULL),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));

	/* A connection through the CSP. */
	ASSERT_OK(dat_ep_common_connect(c.ep, (DAT_IA_ADDRESS_PTR)&at,
					DAT_TIMEOUT_INFINITE, 3, c.buf));
	ASSERT_DAT_EQ(dat_ep_common_connect(c.ep, (DAT_IA_ADDRESS_PTR)&at,
					    DAT_TIMEOUT_INFINITE, 0, NULL),
		      bad_state(DAT_INVALID_STATE_EP_ACTCONNPENDING));
	cr = sdt_expect_cr(s.cr_evd, &a);
	ASSERT_PTR_EQ(a.sp_handle.csp_handle, csp);
	ASSERT_UINT64_EQ(a.conn_qual, port);
	ASSERT_OK(dat_cr_accept(cr, s.ep, 0, NULL));
	sdt_expect_conn(c.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	sdt_expect_conn(s.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	ASSERT_OK(sdt_recv(&s, 0, 8, 1));
	ASSERT_OK(sdt_send(&c, 0, 8, 2, 0));
	sdt_expect_dto(s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 1);
	sdt_expect_dto(c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 2);
	sdt_disconnect(&c, &s);
	/* dat_ep_connect with the port as qualifier reaches it too. */
	ASSERT_OK(dat_ep_reset(c.ep));
	ASSERT_OK(dat_ep_reset(s.ep));
	ASSERT_OK(dat_ep_connect(c.ep, (DAT_IA_ADDRESS_PTR)&at, port,
				 DAT_TIMEOUT_INFINITE, 0, NULL, DAT_QOS_BEST_EFFORT, 0));
	cr = sdt_expect_cr(s.cr_evd, &a);
	ASSERT_PTR_EQ(a.sp_handle.csp_handle, csp);
	ASSERT_OK(dat_cr_reject(cr, 0, NULL));
	sdt_expect_conn(c.conn_evd, DAT_CONNECTION_EVENT_PEER_REJECTED);

	/* Freed: the handle is dead, the port free again, requests refused. */
	ASSERT_OK(dat_csp_free(csp));
	ASSERT_OK(dat_ep_reset(c.ep));
	ASSERT_OK(dat_ep_common_connect(c.ep, (DAT_IA_ADDRESS_PTR)&at,
					DAT_TIMEOUT_INFINITE, 0, NULL));
	sdt_expect_conn(c.conn_evd, DAT_CONNECTION_EVENT_NON_PEER_REJECTED);
	/* The wildcard names the IA's address. */
	ASSERT_OK(dat_csp_create(ia, &comm, (DAT_IA_ADDRESS_PTR)&any, s.cr_evd, &csp2));
	ASSERT_OK(dat_csp_query(csp2, DAT_CSP_FIELD_IA_ADDRESS, &p));
	ASSERT_EQ(((struct sockaddr_in *)p.address_ptr)->sin_addr.s_addr,
		  htonl(INADDR_LOOPBACK));
	ASSERT_OK(dat_csp_free(csp2));
	sdt_node_fini(&c);
	sdt_node_fini(&s);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Issue 4: dat_ep_recv_query                                          */

/*
 * The receive buffers an EP holds: its posted receives, or the SRQ
 * buffer it took for the message it is placing. A raw requester sends
 * half a message to an EP of an SRQ and stops: the EP holds one buffer;
 * then the requester leaves mid-frame (BROKEN) and the buffer completes,
 * flushed, exactly once (SRQ-7).
 */
TEST_IMPL(provider_conn2_recv_query)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	DAT_SRQ_ATTR sa = { 8, 1, 0 };
	struct sdt_node s;
	DAT_SRQ_HANDLE srq;
	DAT_COUNT n, span;
	struct raw r;
	char half[40];
	int i;

	sdt_node_init(&s, ia, NULL, 4096);
	ASSERT_OK(dat_ep_recv_query(s.ep, &n, &span));
	ASSERT_EQ(n, 0);
	ASSERT_EQ(span, 0);
	for (i = 0; i < 3; i++)
		ASSERT_OK(sdt_recv(&s, (size_t)i * 100, 100, (uint64_t)i));
	ASSERT_OK(dat_ep_recv_query(s.ep, &n, &span));
	ASSERT_EQ(n, 3);
	ASSERT_GE(span, n);	/* "never ... n buffers in a span less than n" */
	ASSERT_OK(dat_ep_recv_query(s.ep, NULL, &span));
	ASSERT_OK(dat_ep_recv_query(s.ep, &n, NULL));
	ASSERT_OK(dat_ep_recv_query(s.ep, NULL, NULL));
	ASSERT_DAT_EQ(dat_ep_recv_query(s.buf, &n, &span),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	/* One message consumes one. */
	raw_connected(&r, &s);
	raw_frame(&r, SD_OP_SEND, 10, 0);
	raw_write(r.fd, "0123456789", 10);
	sdt_expect_dto(s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 0);
	ASSERT_OK(dat_ep_recv_query(s.ep, &n, &span));
	ASSERT_EQ(n, 2);
	raw_frame(&r, SD_OP_DISCONNECT, 0, 0);
	sdt_expect_conn(s.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	sdt_expect_dto(s.recv_evd, DAT_DTO_ERR_FLUSHED, DAT_DTO_RECEIVE, 1);
	sdt_expect_dto(s.recv_evd, DAT_DTO_ERR_FLUSHED, DAT_DTO_RECEIVE, 2);
	ASSERT_OK(dat_ep_recv_query(s.ep, &n, &span));
	ASSERT_EQ(n, 0);
	raw_close(&r);

	/* An EP of an SRQ holds only what it took. */
	ASSERT_OK(dat_srq_create(ia, s.pz, &sa, &srq));
	srq_ep(&s, srq, s.pz, s.recv_evd);
	for (i = 0; i < 4; i++) {
		DAT_LMR_TRIPLET t = sdt_iov(&s, (size_t)i * 100, 100);

		ASSERT_OK(dat_srq_post_recv(srq, 1, &t, ck(10 + (uint64_t)i)));
	}
	ASSERT_OK(dat_ep_recv_query(s.ep, &n, &span));
	ASSERT_EQ(n, 0);
	raw_connected(&r, &s);
	memset(half, 'h', sizeof(half));
	raw_frame(&r, SD_OP_SEND, 80, 0);
	raw_write(r.fd, half, sizeof(half));
	for (i = 0; i < 10000; i++) {
		ASSERT_OK(dat_ep_recv_query(s.ep, &n, &span));
		if (n == 1)
			break;
		test_sleep_ms(1);
	}
	ASSERT_EQ(n, 1);
	ASSERT_EQ(span, 1);
	ASSERT_EQ(srq_avail(srq, &n), 3);
	ASSERT_EQ(n, 4);			/* taken, not completed */
	sdt_expect_none(s.recv_evd, 0);
	raw_close(&r);				/* EOF inside the frame */
	sdt_expect_conn(s.conn_evd, DAT_CONNECTION_EVENT_BROKEN);
	sdt_expect_dto(s.recv_evd, DAT_DTO_ERR_FLUSHED, DAT_DTO_RECEIVE, 10);
	sdt_expect_none(s.recv_evd, 20);	/* once only */
	ASSERT_OK(dat_ep_recv_query(s.ep, &n, &span));
	ASSERT_EQ(n, 0);
	ASSERT_EQ(srq_avail(srq, &n), 3);
	ASSERT_EQ(n, 3);

	ASSERT_OK(dat_ep_free(s.ep));
	s.ep = DAT_HANDLE_NULL;
	ASSERT_OK(dat_srq_free(srq));
	sdt_node_fini(&s);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Issue 4: dat_ep_set_watermark                                       */

TEST_IMPL(provider_conn2_ep_watermarks)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, &async);
	DAT_SRQ_ATTR sa = { 8, 1, 0 };
	struct sdt_node s, c;
	DAT_SRQ_HANDLE srq;
	DAT_EP_PARAM p;
	struct raw r;
	int i;

	sdt_node_init(&s, ia, NULL, 4096);
	sdt_node_init(&c, ia, NULL, 4096);
	ASSERT_DAT_EQ(dat_ep_set_watermark(s.buf, 1, 1),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	ASSERT_DAT_EQ(dat_ep_set_watermark(s.ep, -2, 1),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(dat_ep_set_watermark(s.ep, 1, -2),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));

	/* Soft: an async event, once per setting, at the call if exceeded. */
	for (i = 0; i < 3; i++)
		ASSERT_OK(sdt_recv(&s, (size_t)i * 100, 100, (uint64_t)i));
	ASSERT_OK(dat_ep_set_watermark(s.ep, 3, DAT_WATERMARK_INFINITE));
	sdt_expect_none(async, 20);
	ASSERT_OK(dat_ep_set_watermark(s.ep, 2, DAT_WATERMARK_INFINITE));
	sdt_expect_watermark(async, s.ep, DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT);
	ASSERT_OK(dat_ep_query(s.ep, DAT_EP_FIELD_EP_ATTR_SRQ_SOFT_HW, &p));
	ASSERT_EQ(p.ep_attr.srq_soft_hw, 2);
	ASSERT_OK(sdt_recv(&s, 300, 100, 3));
	sdt_expect_none(async, 20);			/* fired already */
	ASSERT_OK(dat_ep_set_watermark(s.ep, 2, DAT_WATERMARK_INFINITE));
	sdt_expect_watermark(async, s.ep, DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT);
	/* Hard, unconnected: nothing to break yet. */
	ASSERT_OK(dat_ep_set_watermark(s.ep, DAT_WATERMARK_INFINITE, 1));
	sdt_expect_none(s.conn_evd, 20);
	/* Once connected, the EP holds more than that: BROKEN at once. */
	sdt_connect(&c, &s);
	sdt_expect_conn(s.conn_evd, DAT_CONNECTION_EVENT_BROKEN);
	sdt_expect_conn(c.conn_evd, DAT_CONNECTION_EVENT_BROKEN);
	for (i = 0; i < 4; i++)
		sdt_expect_dto(s.recv_evd, DAT_DTO_ERR_FLUSHED, DAT_DTO_RECEIVE,
			       (uint64_t)i);
	sdt_expect_none(async, 0);
	ASSERT_OK(dat_ep_reset(s.ep));
	ASSERT_OK(dat_ep_reset(c.ep));

	/* With an SRQ: the buffer taken counts; soft 0 fires on the first. */
	ASSERT_OK(dat_srq_create(ia, s.pz, &sa, &srq));
	srq_ep(&s, srq, s.pz, s.recv_evd);
	for (i = 0; i < 4; i++) {
		DAT_LMR_TRIPLET t = sdt_iov(&s, (size_t)i * 100, 100);

		ASSERT_OK(dat_srq_post_recv(srq, 1, &t, ck(10 + (uint64_t)i)));
	}
	ASSERT_OK(dat_ep_set_watermark(s.ep, 0, DAT_WATERMARK_INFINITE));
	sdt_expect_none(async, 20);
	raw_connected(&r, &s);
	for (i = 0; i < 2; i++) {
		raw_frame(&r, SD_OP_SEND, 4, 0);
		raw_write(r.fd, "abcd", 4);
		sdt_expect_dto(s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE,
			       10 + (uint64_t)i);
	}
	/* "Recv buffers at EP" are counted by their arrival, once. */
	sdt_expect_watermark(async, s.ep, DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT);
	sdt_expect_none(async, 20);
	/* Hard 0: the next message breaks the connection, untaken. */
	ASSERT_OK(dat_ep_set_watermark(s.ep, DAT_WATERMARK_INFINITE, 0));
	raw_frame(&r, SD_OP_SEND, 4, 0);
	raw_write(r.fd, "abcd", 4);
	sdt_expect_conn(s.conn_evd, DAT_CONNECTION_EVENT_BROKEN);
	/* The requester is told: a TERMINATE, then the end. */
	{
		uint8_t b[SD_HDR_SIZE];
		struct sd_hdr h;

		do {		/* after the ACK of what it placed, maybe */
			raw_read(r.fd, b, sizeof(b));
			sd_hdr_unpack(&h, b);
		} while (h.op == SD_OP_ACK);
		ASSERT_EQ(h.op, SD_OP_TERMINATE);
		ASSERT_EQ(h.ack, 2);
	}
	raw_close(&r);
	ASSERT_EQ(srq_avail(srq, NULL), 2);	/* the buffer stayed posted */
	sdt_expect_none(s.recv_evd, 20);
	ASSERT_OK(dat_ep_free(s.ep));
	s.ep = DAT_HANDLE_NULL;
	ASSERT_OK(dat_srq_free(srq));
	/* The SRQ EP's "last WQE" events (EP_BROKEN) are left: drain them. */
	{
		DAT_EVENT ev;

		while (sdt_poll(async, &ev))
			ASSERT_EQ(ev.event_number, DAT_ASYNC_ERROR_EP_BROKEN);
	}
	sdt_node_fini(&s);
	sdt_node_fini(&c);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Issue 4: the whole of dat_ep_modify                                  */

TEST_IMPL(provider_conn2_modify_attributes)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	static const DAT_EP_PARAM_MASK fixed[] = {
		DAT_EP_FIELD_IA_HANDLE, DAT_EP_FIELD_EP_STATE, DAT_EP_FIELD_COMM,
		DAT_EP_FIELD_LOCAL_IA_ADDRESS_PTR, DAT_EP_FIELD_LOCAL_PORT_QUAL,
		DAT_EP_FIELD_REMOTE_IA_ADDRESS_PTR, DAT_EP_FIELD_REMOTE_PORT_QUAL,
		DAT_EP_FIELD_SRQ_HANDLE, UINT64_C(0x80000000),
	};
	struct sdt_node c, s;
	DAT_EVD_HANDLE evd2;
	DAT_PZ_HANDLE pz2;
	DAT_EP_PARAM p, q;
	DAT_LMR_TRIPLET iov[3];
	size_t i;

	sdt_node_init(&c, ia, NULL, 4096);
	sdt_node_init(&s, ia, NULL, 4096);
	ASSERT_OK(dat_evd_create(ia, 64, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &evd2));
	ASSERT_OK(dat_pz_create(ia, &pz2));
	ASSERT_OK(dat_ep_query(s.ep, DAT_EP_FIELD_ALL, &p));

	/* Never modifiable: DAT_INVALID_PARAMETER, DAT_INVALID_ARG2. */
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		ASSERT_DAT_EQ(dat_ep_modify(s.ep, fixed[i], &p),
			      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	/* Values: only RC, no transport- or provider-specific ones. */
	q = p;
	q.ep_attr.service_type = DAT_SERVICE_TYPE_RC;
	ASSERT_OK(dat_ep_modify(s.ep, DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE, &q));
	q.ep_attr.service_type = (DAT_SERVICE_TYPE)7;
	ASSERT_DAT_EQ(dat_ep_modify(s.ep, DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE, &q),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	q = p;
	ASSERT_OK(dat_ep_modify(s.ep, DAT_EP_FIELD_EP_ATTR_NUM_TRANSPORT_ATTR |
				DAT_EP_FIELD_EP_ATTR_NUM_PROVIDER_ATTR, &q));
	q.ep_attr.ep_provider_specific_count = 1;
	ASSERT_DAT_EQ(dat_ep_modify(s.ep, DAT_EP_FIELD_EP_ATTR_PROVIDER_SPECIFIC_ATTR, &q),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	q = p;
	q.ep_attr.max_recv_iov = 1000;
	ASSERT_DAT_EQ(dat_ep_modify(s.ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_IOV, &q),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	q.ep_attr.srq_soft_hw = -5;
	ASSERT_DAT_EQ(dat_ep_modify(s.ep, DAT_EP_FIELD_EP_ATTR_SRQ_SOFT_HW, &q),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	/* Handles. */
	q = p;
	q.pz_handle = s.recv_evd;
	ASSERT_DAT_EQ(dat_ep_modify(s.ep, DAT_EP_FIELD_PZ_HANDLE, &q),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ));
	q = p;
	q.recv_evd_handle = s.conn_evd;
	ASSERT_DAT_EQ(dat_ep_modify(s.ep, DAT_EP_FIELD_RECV_EVD_HANDLE, &q),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_RECV));
	q = p;
	q.request_evd_handle = s.cr_evd;
	ASSERT_DAT_EQ(dat_ep_modify(s.ep, DAT_EP_FIELD_REQUEST_EVD_HANDLE, &q),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST));
	q = p;
	q.connect_evd_handle = s.recv_evd;
	ASSERT_DAT_EQ(dat_ep_modify(s.ep, DAT_EP_FIELD_CONNECT_EVD_HANDLE, &q),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_CONN));
	/* Nothing changed by any refusal. */
	ASSERT_OK(dat_ep_query(s.ep, DAT_EP_FIELD_ALL, &q));
	ASSERT_MEM_EQ(&q.ep_attr, &p.ep_attr, sizeof(p.ep_attr));

	/* Every modifiable attribute, at once. */
	q = p;
	q.ep_attr.max_message_size = 1 << 16;
	q.ep_attr.max_rdma_size = 1 << 17;
	q.ep_attr.qos = DAT_QOS_HIGH_THROUGHPUT;
	q.ep_attr.recv_completion_flags = DAT_COMPLETION_SOLICITED_WAIT_FLAG;
	q.ep_attr.request_completion_flags = DAT_COMPLETION_UNSIGNALLED_FLAG;
	q.ep_attr.max_recv_dtos = 2;
	q.ep_attr.max_request_dtos = 3;
	q.ep_attr.max_recv_iov = 3;
	q.ep_attr.max_request_iov = 2;
	q.ep_attr.max_rdma_read_in = 2;
	q.ep_attr.max_rdma_read_out = 1;
	q.ep_attr.srq_soft_hw = 5;
	q.ep_attr.max_rdma_read_iov = 1;
	q.ep_attr.max_rdma_write_iov = 2;
	q.recv_evd_handle = evd2;
	q.pz_handle = s.pz;
	ASSERT_OK(dat_ep_modify(s.ep, DAT_EP_FIELD_EP_ATTR_ALL |
				DAT_EP_FIELD_RECV_EVD_HANDLE |
				DAT_EP_FIELD_PZ_HANDLE, &q));
	ASSERT_OK(dat_ep_query(s.ep, DAT_EP_FIELD_ALL, &p));
	ASSERT_EQ(p.ep_attr.max_message_size, 1 << 16);
	ASSERT_EQ(p.ep_attr.max_rdma_size, 1 << 17);
	ASSERT_EQ(p.ep_attr.qos, DAT_QOS_HIGH_THROUGHPUT);
	ASSERT_EQ(p.ep_attr.recv_completion_flags, DAT_COMPLETION_SOLICITED_WAIT_FLAG);
	ASSERT_EQ(p.ep_attr.request_completion_flags, DAT_COMPLETION_UNSIGNALLED_FLAG);
	ASSERT_EQ(p.ep_attr.max_recv_dtos, 2);
	ASSERT_EQ(p.ep_attr.max_request_dtos, 3);
	ASSERT_EQ(p.ep_attr.max_recv_iov, 3);
	ASSERT_EQ(p.ep_attr.max_request_iov, 2);
	ASSERT_EQ(p.ep_attr.max_rdma_read_in, 2);
	ASSERT_EQ(p.ep_attr.max_rdma_read_out, 1);
	ASSERT_EQ(p.ep_attr.srq_soft_hw, 5);
	ASSERT_EQ(p.ep_attr.max_rdma_read_iov, 1);
	ASSERT_EQ(p.ep_attr.max_rdma_write_iov, 2);
	ASSERT_PTR_EQ(p.recv_evd_handle, evd2);
	/* The EVD in use cannot go; the one left can. */
	ASSERT_NE(dat_evd_free(evd2), DAT_SUCCESS);

	/* The new limits hold: two receives of up to three segments. */
	for (i = 0; i < 3; i++)
		iov[i] = sdt_iov(&s, i * 10, 10);
	ASSERT_DAT_EQ(dat_ep_post_recv(s.ep, 4, iov, ck(0), 0),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_OK(dat_ep_post_recv(s.ep, 3, iov, ck(1), 0));
	ASSERT_OK(dat_ep_post_recv(s.ep, 3, iov, ck(2), 0));
	ASSERT_EQ(DAT_GET_TYPE(dat_ep_post_recv(s.ep, 3, iov, ck(3), 0)),
		  DAT_INSUFFICIENT_RESOURCES);
	/* With receives posted: no new queue sizes, no new receive flags. */
	q = p;
	q.ep_attr.max_recv_dtos = 4;
	ASSERT_DAT_EQ(dat_ep_modify(s.ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, &q),
		      bad_state(DAT_INVALID_STATE_EP_UNCONNECTED));
	q = p;
	q.ep_attr.recv_completion_flags = DAT_COMPLETION_EVD_THRESHOLD_FLAG;
	ASSERT_DAT_EQ(dat_ep_modify(s.ep, DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS, &q),
		      bad_state(DAT_INVALID_STATE_EP_UNCONNECTED));
	/* Other attributes still can change, and the PZ. */
	q = p;
	q.ep_attr.max_message_size = 4096;
	q.pz_handle = pz2;
	ASSERT_OK(dat_ep_modify(s.ep, DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE |
				DAT_EP_FIELD_PZ_HANDLE, &q));
	q.pz_handle = s.pz;
	ASSERT_OK(dat_ep_modify(s.ep, DAT_EP_FIELD_PZ_HANDLE, &q));
	ASSERT_OK(dat_pz_free(pz2));

	/* Connected with them: a message in three pieces. */
	sdt_connect(&c, &s);
	memcpy(c.buf, "abcdefghijklmnopqrstuvwxyz01234", 30);
	ASSERT_OK(sdt_send(&c, 0, 30, 9, DAT_COMPLETION_SOLICITED_WAIT_FLAG));
	sdt_expect_dto(evd2, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 1);
	sdt_expect_dto(c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 9);
	ASSERT_MEM_EQ(s.buf, "abcdefghijklmnopqrstuvwxyz01234", 30);
	sdt_disconnect(&c, &s);
	sdt_expect_dto(evd2, DAT_DTO_ERR_FLUSHED, DAT_DTO_RECEIVE, 2);

	ASSERT_OK(dat_ep_free(s.ep));
	s.ep = DAT_HANDLE_NULL;
	ASSERT_OK(dat_evd_free(evd2));
	sdt_node_fini(&c);
	sdt_node_fini(&s);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Issue 4: dat_cr_handoff                                             */

TEST_IMPL(provider_conn2_cr_handoff)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	DAT_COMM comm = { AF_INET, SOCK_STREAM, IPPROTO_TCP };
	struct sockaddr_in any = sin_of("0.0.0.0", 0);
	struct sockaddr_storage ss;
	struct sdt_node c, a, b, r;
	DAT_CR_ARRIVAL_EVENT_DATA ev;
	DAT_PSP_HANDLE prov;
	DAT_RSP_HANDLE rsp;
	DAT_CSP_HANDLE csp;
	DAT_CSP_PARAM cp;
	DAT_CR_PARAM crp, crp2;
	DAT_CONN_QUAL prov_port, rsp_port, csp_port;
	DAT_CR_HANDLE cr, cr2;
	char hello[] = "handoff";

	sdt_node_init(&c, ia, NULL, 4096);
	sdt_node_init(&a, ia, NULL, 4096);
	sdt_node_init(&b, ia, NULL, 4096);
	sdt_node_init(&r, ia, NULL, 4096);
	ASSERT_OK(dat_psp_create_any(ia, &a.port, a.cr_evd, DAT_PSP_CONSUMER_FLAG, &a.psp));
	ASSERT_OK(dat_psp_create_any(ia, &b.port, b.cr_evd, DAT_PSP_CONSUMER_FLAG, &b.psp));
	sdt_ia_addr(ia, &ss);

	/* A to B. */
	ASSERT_OK(dat_ep_connect(c.ep, (DAT_IA_ADDRESS_PTR)&ss, a.port,
				 DAT_TIMEOUT_INFINITE, sizeof(hello), hello,
				 DAT_QOS_BEST_EFFORT, 0));
	cr = sdt_expect_cr(a.cr_evd, NULL);
	ASSERT_OK(dat_cr_query(cr, DAT_CR_FIELD_ALL, &crp));
	ASSERT_DAT_EQ(dat_cr_handoff(c.buf, b.port),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR));
	ASSERT_DAT_EQ(dat_cr_handoff(cr, 70000),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(dat_cr_handoff(cr, sdt_dead_port()),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_OK(dat_cr_query(cr, DAT_CR_FIELD_ALL, &crp2));	/* still alive */
	/*
	 * The CR is destroyed (its handle dead: using it is undefined, the
	 * registry reads the provider from freed memory); B gets a new one.
	 */
	ASSERT_OK(dat_cr_handoff(cr, b.port));
	cr2 = sdt_expect_cr(b.cr_evd, &ev);
	ASSERT_PTR_NE(cr2, cr);
	ASSERT_PTR_EQ(ev.sp_handle.psp_handle, b.psp);
	ASSERT_UINT64_EQ(ev.conn_qual, b.port);
	ASSERT_OK(dat_cr_query(cr2, DAT_CR_FIELD_ALL, &crp2));
	ASSERT_EQ(crp2.private_data_size, sizeof(hello));
	ASSERT_STR_EQ(crp2.private_data, hello);
	ASSERT_UINT64_EQ(crp2.remote_port_qual, crp.remote_port_qual);
	ASSERT_NULL(crp2.local_ep_handle);
	sdt_expect_none(a.cr_evd, 0);
	ASSERT_OK(dat_cr_accept(cr2, b.ep, 0, NULL));
	sdt_expect_conn(c.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	sdt_expect_conn(b.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	sdt_disconnect(&c, &b);
	ASSERT_OK(dat_ep_reset(c.ep));

	/* To an RSP: the request then names its EP. */
	rsp = rsp_any(&r, r.ep, &rsp_port);
	ASSERT_OK(dat_ep_connect(c.ep, (DAT_IA_ADDRESS_PTR)&ss, a.port,
				 DAT_TIMEOUT_INFINITE, 0, NULL, DAT_QOS_BEST_EFFORT, 0));
	ASSERT_OK(dat_cr_handoff(sdt_expect_cr(a.cr_evd, NULL), rsp_port));
	cr2 = sdt_expect_cr(r.cr_evd, &ev);
	ASSERT_PTR_EQ(ev.sp_handle.rsp_handle, rsp);
	ASSERT_OK(dat_cr_query(cr2, DAT_CR_FIELD_ALL, &crp2));
	ASSERT_PTR_EQ(crp2.local_ep_handle, r.ep);
	ASSERT_EQ(sdt_ep_state(r.ep), DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING);
	/* The RSP is consumed: nothing more can be handed to it. */
	ASSERT_OK(dat_ep_reset(b.ep));
	{
		struct sdt_node d;

		sdt_node_init(&d, ia, NULL, 64);
		ASSERT_OK(dat_ep_connect(d.ep, (DAT_IA_ADDRESS_PTR)&ss, a.port,
					 DAT_TIMEOUT_INFINITE, 0, NULL,
					 DAT_QOS_BEST_EFFORT, 0));
		cr = sdt_expect_cr(a.cr_evd, NULL);
		ASSERT_DAT_EQ(dat_cr_handoff(cr, rsp_port),
			      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
		ASSERT_OK(dat_cr_reject(cr, 0, NULL));
		sdt_expect_conn(d.conn_evd, DAT_CONNECTION_EVENT_PEER_REJECTED);
		sdt_node_fini(&d);
	}
	ASSERT_OK(dat_cr_accept(cr2, DAT_HANDLE_NULL, 0, NULL));
	sdt_expect_conn(c.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	sdt_expect_conn(r.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	sdt_disconnect(&r, &c);
	ASSERT_OK(dat_rsp_free(rsp));
	ASSERT_OK(dat_ep_reset(c.ep));

	/* From a PSP that made an EP, to a CSP: the EP goes with the CR. */
	ASSERT_OK(dat_psp_create_any(ia, &prov_port, a.cr_evd, DAT_PSP_PROVIDER_FLAG, &prov));
	ASSERT_OK(dat_csp_create(ia, &comm, (DAT_IA_ADDRESS_PTR)&any, b.cr_evd, &csp));
	ASSERT_OK(dat_csp_query(csp, DAT_CSP_FIELD_ALL, &cp));
	csp_port = ntohs(((struct sockaddr_in *)cp.address_ptr)->sin_port);
	ASSERT_OK(dat_ep_connect(c.ep, (DAT_IA_ADDRESS_PTR)&ss, prov_port,
				 DAT_TIMEOUT_INFINITE, 0, NULL, DAT_QOS_BEST_EFFORT, 0));
	cr = sdt_expect_cr(a.cr_evd, NULL);
	ASSERT_OK(dat_cr_query(cr, DAT_CR_FIELD_ALL, &crp));
	ASSERT_NOT_NULL(crp.local_ep_handle);
	ASSERT_OK(dat_cr_handoff(cr, csp_port));
	cr2 = sdt_expect_cr(b.cr_evd, &ev);
	ASSERT_PTR_EQ(ev.sp_handle.csp_handle, csp);
	ASSERT_OK(dat_cr_query(cr2, DAT_CR_FIELD_ALL, &crp2));
	ASSERT_NULL(crp2.local_ep_handle);
	ASSERT_OK(dat_ep_reset(b.ep));
	ASSERT_OK(dat_cr_accept(cr2, b.ep, 0, NULL));
	sdt_expect_conn(c.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	sdt_expect_conn(b.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	sdt_disconnect(&c, &b);
	ASSERT_OK(dat_csp_free(csp));
	ASSERT_OK(dat_psp_free(prov));

	sdt_node_fini(&c);
	sdt_node_fini(&a);
	sdt_node_fini(&b);
	sdt_node_fini(&r);
	/* Graceful: the provider's EP of the handed-off request is gone. */
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Issue 4: dat_srq_resize and dat_srq_set_lw                          */

/* An SRQ of @depth on @s's PZ, @s's EP replaced by one of it. */
static DAT_SRQ_HANDLE srq_node(struct sdt_node *s, DAT_COUNT depth, DAT_COUNT lw)
{
	DAT_SRQ_ATTR a = { depth, 1, lw };
	DAT_SRQ_HANDLE srq;

	ASSERT_OK(dat_srq_create(s->ia, s->pz, &a, &srq));
	srq_ep(s, srq, s->pz, s->recv_evd);
	return srq;
}

static DAT_RETURN srq_post(DAT_SRQ_HANDLE srq, const struct sdt_node *s, int i)
{
	DAT_LMR_TRIPLET t = sdt_iov(s, (size_t)i * 64, 64);

	return dat_srq_post_recv(srq, 1, &t, ck((uint64_t)i));
}

static void srq_done(struct sdt_node *s, DAT_SRQ_HANDLE srq)
{
	ASSERT_OK(dat_ep_free(s->ep));
	s->ep = DAT_HANDLE_NULL;
	ASSERT_OK(dat_srq_free(srq));
}

TEST_IMPL(provider_conn2_srq_resize)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	struct sdt_node c, s;
	DAT_SRQ_HANDLE srq;
	DAT_SRQ_PARAM p;
	struct raw r;
	char msg[64];
	int i, next = 0;

	sdt_node_init(&c, ia, NULL, 4096);
	sdt_node_init(&s, ia, NULL, 200 * 64);
	srq = srq_node(&s, 8, 0);
	ASSERT_DAT_EQ(dat_srq_resize(c.buf, 8), ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_SRQ));
	ASSERT_DAT_EQ(dat_srq_resize(srq, 0), ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(dat_srq_resize(srq, -1), ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(dat_srq_resize(srq, 1 << 24),
		      ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_SRQ));
	for (i = 0; i < 6; i++)
		ASSERT_OK(srq_post(srq, &s, next++));
	/* Never below the buffers outstanding: nothing changes. */
	ASSERT_DAT_EQ(dat_srq_resize(srq, 5), bad_state(DAT_INVALID_STATE_SRQ_IN_USE));
	ASSERT_OK(dat_srq_query(srq, DAT_SRQ_FIELD_ALL, &p));
	ASSERT_EQ(p.max_recv_dtos, 8);
	/* Down to the fill: full at once. */
	ASSERT_OK(dat_srq_resize(srq, 6));
	ASSERT_EQ(DAT_GET_TYPE(srq_post(srq, &s, 99)), DAT_INSUFFICIENT_RESOURCES);
	ASSERT_OK(dat_srq_query(srq, DAT_SRQ_FIELD_ALL, &p));
	ASSERT_EQ(p.max_recv_dtos, 6);
	/* Never below the low watermark either. */
	sdt_connect(&c, &s);
	for (i = 0; i < 4; i++) {
		ASSERT_OK(sdt_send(&c, 0, 8, 100 + (uint64_t)i, 0));
		sdt_expect_dto(s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, (uint64_t)i);
		sdt_expect_dto(c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 100 + (uint64_t)i);
	}
	ASSERT_OK(dat_srq_query(srq, DAT_SRQ_FIELD_ALL, &p));
	ASSERT_EQ(p.outstanding_dto_count, 2);
	ASSERT_OK(dat_srq_set_lw(srq, 1));
	ASSERT_OK(dat_srq_resize(srq, 2));
	ASSERT_OK(dat_srq_set_lw(srq, 2));
	ASSERT_DAT_EQ(dat_srq_resize(srq, 1), bad_state(DAT_INVALID_STATE_SRQ_IN_USE));
	ASSERT_OK(dat_srq_set_lw(srq, 0));

	/*
	 * Growing past what is allocated, while the EP holds a buffer half
	 * filled: the raw requester's message lands in it afterwards.
	 */
	sdt_disconnect(&c, &s);
	ASSERT_OK(dat_ep_reset(s.ep));
	raw_connected(&r, &s);
	memset(msg, 'm', sizeof(msg));
	raw_frame(&r, SD_OP_SEND, sizeof(msg), 0);
	raw_write(r.fd, msg, 20);
	for (i = 0; i < 10000; i++) {
		DAT_COUNT n;

		ASSERT_OK(dat_ep_recv_query(s.ep, &n, NULL));
		if (n == 1)
			break;
		test_sleep_ms(1);
	}
	ASSERT_OK(dat_srq_resize(srq, 150));
	ASSERT_OK(dat_srq_query(srq, DAT_SRQ_FIELD_ALL, &p));
	ASSERT_EQ(p.max_recv_dtos, 150);
	ASSERT_EQ(p.outstanding_dto_count, 2);
	ASSERT_EQ(p.available_dto_count, 1);
	raw_write(r.fd, msg + 20, sizeof(msg) - 20);
	sdt_expect_dto(s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 4);
	ASSERT_MEM_EQ(s.buf + 4 * 64, msg, sizeof(msg));
	/* Up to the new size, and the FIFO order across the growth. */
	for (i = 0; i < 149; i++)
		ASSERT_OK(srq_post(srq, &s, next++));
	ASSERT_EQ(DAT_GET_TYPE(srq_post(srq, &s, 199)), DAT_INSUFFICIENT_RESOURCES);
	for (i = 0; i < 150; i++) {
		raw_frame(&r, SD_OP_SEND, 4, 0);
		raw_write(r.fd, "four", 4);
		sdt_expect_dto(s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE,
			       (uint64_t)(5 + i));
	}
	ASSERT_OK(dat_srq_query(srq, DAT_SRQ_FIELD_ALL, &p));
	ASSERT_EQ(p.available_dto_count, 0);
	ASSERT_EQ(p.outstanding_dto_count, 0);
	raw_frame(&r, SD_OP_DISCONNECT, 0, 0);
	sdt_expect_conn(s.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	raw_close(&r);
	/* Smaller again, within what is allocated. */
	ASSERT_OK(dat_srq_resize(srq, 3));
	for (i = 0; i < 3; i++)
		ASSERT_OK(srq_post(srq, &s, i));
	ASSERT_EQ(DAT_GET_TYPE(srq_post(srq, &s, 3)), DAT_INSUFFICIENT_RESOURCES);

	srq_done(&s, srq);
	sdt_node_fini(&c);
	sdt_node_fini(&s);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

TEST_IMPL(provider_conn2_srq_low_watermark)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, &async);
	DAT_SRQ_ATTR bad = { 4, 1, 5 };
	struct sdt_node s;
	DAT_SRQ_HANDLE srq;
	DAT_SRQ_PARAM p;
	struct raw r;
	int i, next = 0;

	sdt_node_init(&s, ia, NULL, 100 * 64);
	ASSERT_DAT_EQ(dat_srq_create(ia, s.pz, &bad, &srq),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	/* Armed from creation: fires when a take leaves fewer than 2. */
	srq = srq_node(&s, 16, 2);
	ASSERT_DAT_EQ(dat_srq_set_lw(s.buf, 1),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_SRQ));
	ASSERT_DAT_EQ(dat_srq_set_lw(srq, -1), ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(dat_srq_set_lw(srq, 17), ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	for (i = 0; i < 3; i++)
		ASSERT_OK(srq_post(srq, &s, next++));
	raw_connected(&r, &s);
	for (i = 0; i < 3; i++) {
		raw_frame(&r, SD_OP_SEND, 4, 0);
		raw_write(r.fd, "four", 4);
		sdt_expect_dto(s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, (uint64_t)i);
		if (i == 0)
			sdt_expect_none(async, 20);	/* 2 left: not below */
		if (i == 1)
			sdt_expect_watermark(async, srq, DAT_SRQ_LOW_WATERMARK_EVENT);
	}
	sdt_expect_none(async, 20);			/* once per setting */
	/* Set below the fill: fires from the call itself. */
	ASSERT_OK(dat_srq_set_lw(srq, 1));
	sdt_expect_watermark(async, srq, DAT_SRQ_LOW_WATERMARK_EVENT);
	ASSERT_OK(dat_srq_query(srq, DAT_SRQ_FIELD_ALL, &p));
	ASSERT_EQ(p.low_watermark, 1);
	/* 0 never fires. */
	ASSERT_OK(dat_srq_set_lw(srq, 0));
	ASSERT_OK(srq_post(srq, &s, next++));
	raw_frame(&r, SD_OP_SEND, 4, 0);
	raw_write(r.fd, "four", 4);
	sdt_expect_dto(s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 3);
	sdt_expect_none(async, 20);
	/* Re-armed: silent while enough are posted, then once. */
	for (i = 0; i < 6; i++)
		ASSERT_OK(srq_post(srq, &s, next++));
	ASSERT_OK(dat_srq_set_lw(srq, 3));
	sdt_expect_none(async, 20);
	for (i = 0; i < 6; i++) {
		raw_frame(&r, SD_OP_SEND, 4, 0);
		raw_write(r.fd, "four", 4);
		sdt_expect_dto(s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE,
			       (uint64_t)(4 + i));
		if (i == 3)	/* 2 left */
			sdt_expect_watermark(async, srq, DAT_SRQ_LOW_WATERMARK_EVENT);
	}
	sdt_expect_none(async, 20);
	raw_frame(&r, SD_OP_DISCONNECT, 0, 0);
	sdt_expect_conn(s.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	raw_close(&r);
	srq_done(&s, srq);
	sdt_node_fini(&s);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/*
 * The backlog of a PSP is its EVD's queue (DAT 2.0 dat_psp_create): a
 * request that finds it full is refused, NON_PEER_REJECTED at the
 * requester ("Backlog of the requested Service Point is full"), and
 * those queued go on normally.
 */
#define BL_MAX 32

TEST_IMPL(provider_conn2_cr_backlog)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, &async);
	struct sockaddr_storage ss;
	static struct sdt_node c[BL_MAX];
	int refused = -1, peer_rejected = 0;
	DAT_EVD_HANDLE evd;
	DAT_EVD_PARAM ep;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL port;
	DAT_COUNT qlen, i;
	DAT_EVENT ev;
	uint64_t t0;

	ASSERT_OK(dat_evd_create(ia, 1, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, &evd));
	ASSERT_OK(dat_evd_query(evd, DAT_EVD_FIELD_EVD_QLEN, &ep));
	qlen = ep.evd_qlen;
	if (qlen >= BL_MAX)
		TEST_SKIP("the smallest EVD holds too many events");
	ASSERT_OK(dat_psp_create_any(ia, &port, evd, DAT_PSP_CONSUMER_FLAG, &psp));
	sdt_ia_addr(ia, &ss);
	/* One request more than the queue holds; nobody dequeues. */
	for (i = 0; i <= qlen; i++) {
		sdt_node_init(&c[i], ia, NULL, 64);
		ASSERT_OK(dat_ep_connect(c[i].ep, (DAT_IA_ADDRESS_PTR)&ss, port,
					 DAT_TIMEOUT_INFINITE, 0, NULL,
					 DAT_QOS_BEST_EFFORT, 0));
	}
	/* Exactly one, the last to arrive, is refused. */
	t0 = test_now_ms();
	while (refused < 0) {
		for (i = 0; i <= qlen && refused < 0; i++)
			if (sdt_poll(c[i].conn_evd, &ev)) {
				ASSERT_EQ(ev.event_number,
					  DAT_CONNECTION_EVENT_NON_PEER_REJECTED);
				refused = (int)i;
			}
		if (test_now_ms() - t0 > (uint64_t)(10000 * test_timeout_scale()))
			TEST_FAIL("no request was refused");
		test_sleep_ms(1);
	}
	/* A full backlog is no overflow: the EVD stays in service. */
	sdt_expect_none(async, 20);
	/* The others are all there, and go on: rejected here. */
	for (i = 0; i < qlen; i++)
		ASSERT_OK(dat_cr_reject(sdt_expect_cr(evd, NULL), 0, NULL));
	sdt_expect_none(evd, 20);
	for (i = 0; i <= qlen; i++) {
		if ((int)i == refused)
			continue;
		sdt_expect_conn(c[i].conn_evd, DAT_CONNECTION_EVENT_PEER_REJECTED);
		peer_rejected++;
	}
	ASSERT_EQ(peer_rejected, qlen);
	ASSERT_OK(dat_psp_free(psp));
	for (i = 0; i <= qlen; i++)
		sdt_node_fini(&c[i]);
	ASSERT_OK(dat_evd_free(evd));
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* ------------------------------------------------------------------ */
/* The order of connection events across connections                 */

#define ORDER_EPS	64

/*
 * cm.c, sd_cm_peer_order: the connection events of the EPs between two
 * IAs come in the order the peer caused them, as InfiniBand's one CM
 * channel per port pair gives them. The requester connects 64 EPs, waits
 * for all 64 ESTABLISHED (each sent its RTU), then disconnects them all:
 * the accepting side sees 64 ESTABLISHED, then 64 DISCONNECTED, never a
 * DISCONNECTED before an ESTABLISHED (dtestcm -w counts any connection
 * event as an establishment). Three rounds; the EVDs are shared, as
 * dtestcm's.
 */
TEST_IMPL(provider_conn2_event_order_across_eps)
{
	DAT_EP_HANDLE cep[ORDER_EPS], sep[ORDER_EPS];
	DAT_EVD_HANDLE cdto, sdto, cconn, sconn, cr_evd;
	DAT_PZ_HANDLE cpz, spz;
	DAT_IA_HANDLE ia;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL port;
	unsigned round, i, est;

	ia = sdt_open_ia(NULL, NULL);
	ASSERT_OK(dat_pz_create(ia, &cpz));
	ASSERT_OK(dat_pz_create(ia, &spz));
	ASSERT_OK(dat_evd_create(ia, 2 * ORDER_EPS, DAT_HANDLE_NULL,
				 DAT_EVD_DTO_FLAG, &cdto));
	ASSERT_OK(dat_evd_create(ia, 2 * ORDER_EPS, DAT_HANDLE_NULL,
				 DAT_EVD_DTO_FLAG, &sdto));
	ASSERT_OK(dat_evd_create(ia, 2 * ORDER_EPS, DAT_HANDLE_NULL,
				 DAT_EVD_CONNECTION_FLAG, &cconn));
	ASSERT_OK(dat_evd_create(ia, 2 * ORDER_EPS, DAT_HANDLE_NULL,
				 DAT_EVD_CONNECTION_FLAG, &sconn));
	ASSERT_OK(dat_evd_create(ia, ORDER_EPS, DAT_HANDLE_NULL,
				 DAT_EVD_CR_FLAG, &cr_evd));
	ASSERT_OK(dat_psp_create_any(ia, &port, cr_evd, DAT_PSP_CONSUMER_FLAG,
				     &psp));
	for (round = 0; round < 3; round++) {
		for (i = 0; i < ORDER_EPS; i++) {
			ASSERT_OK(dat_ep_create(ia, cpz, cdto, cdto, cconn, NULL,
						&cep[i]));
			ASSERT_OK(dat_ep_create(ia, spz, sdto, sdto, sconn, NULL,
						&sep[i]));
			sdt_connect_to(ia, cep[i], port, DAT_TIMEOUT_INFINITE);
		}
		for (i = 0; i < ORDER_EPS; i++)
			ASSERT_OK(dat_cr_accept(sdt_expect_cr(cr_evd, NULL),
						sep[i], 0, NULL));
		for (i = 0; i < ORDER_EPS; i++)
			sdt_expect_conn(cconn, DAT_CONNECTION_EVENT_ESTABLISHED);
		for (i = 0; i < ORDER_EPS; i++)
			ASSERT_OK(dat_ep_disconnect(cep[i], DAT_CLOSE_GRACEFUL_FLAG));
		for (i = 0, est = 0; i < 2 * ORDER_EPS; i++) {
			DAT_EVENT ev = sdt_wait(sconn, 10000);

			if (ev.event_number == DAT_CONNECTION_EVENT_ESTABLISHED) {
				if (est < i)
					TEST_FAIL("round %u: ESTABLISHED after %u "
						  "DISCONNECTED", round, i - est);
				est++;
			} else {
				ASSERT_EQ(ev.event_number,
					  DAT_CONNECTION_EVENT_DISCONNECTED);
			}
		}
		ASSERT_EQ(est, ORDER_EPS);
		for (i = 0; i < ORDER_EPS; i++)
			sdt_expect_conn(cconn, DAT_CONNECTION_EVENT_DISCONNECTED);
		for (i = 0; i < ORDER_EPS; i++) {
			ASSERT_OK(dat_ep_free(cep[i]));
			ASSERT_OK(dat_ep_free(sep[i]));
		}
	}
	ASSERT_OK(dat_psp_free(psp));
	ASSERT_OK(dat_evd_free(cr_evd));
	ASSERT_OK(dat_evd_free(sconn));
	ASSERT_OK(dat_evd_free(cconn));
	ASSERT_OK(dat_evd_free(sdto));
	ASSERT_OK(dat_evd_free(cdto));
	ASSERT_OK(dat_pz_free(spz));
	ASSERT_OK(dat_pz_free(cpz));
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}
