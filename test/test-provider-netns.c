/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Real multi-host networks: hosts made of network namespaces joined by
 * veth pairs on one bridge, with IPv4 and IPv6 addresses; our own DAT
 * client and server and Debian's dapltest and dtest run across them, and
 * a host's link is taken down in the middle of traffic. Also IPv6 where a
 * consumer gives an address: dat_ep_connect to a sockaddr_in6 (::1, a
 * global and a link-local address), dat_psp_create on an IA opened on an
 * IPv6 address, interface or wildcard, ia_query and ep_query reporting
 * IPv6 addresses, dat_cr_query giving the peer's.
 *
 * The topology, made by each test under names unique to its process
 * (sd<pid>-sw, sd<pid>-h1 .. -h3):
 *
 *                         sd<pid>-sw: bridge br0
 *                   h1p /           | h2p          \ h3p
 *            h1: sd0              h2: sd0              h3: sd0
 *            10.77.0.1/24         10.77.0.2/24         (no IPv4)
 *            fd00::1/64           fd00::2/64           fd00::3/64
 *            fe80::77:1/64        fe80::77:2/64        fe80::77:3/64
 *
 * The IPv6 addresses are added with nodad (no duplicate address detection
 * delay). h3 has no IPv4 address, so ia_params "sd0" there selects IPv6.
 * Processes enter a host with setns (our helpers; the test process itself
 * for the client side) or `ip netns exec` (Debian's binaries). Fixed
 * ports are fine here: each namespace has ports of its own.
 *
 * A link taken down (`ip link set sd0 down` in h2, or h2's veth deleted
 * at the switch) is a silence, not a close: each side learns of it from
 * the provider's dead-peer timeout (cm.c, SOFTDAPL_TCP_USER_TIMEOUT_MS,
 * 2000 here), as DAT_CONNECTION_EVENT_BROKEN, and every DTO posted must
 * complete exactly once. The same timeout must not end a wait for a
 * receiver not ready (provider_netns_rnr_outlasts_timeout, over loopback).
 *
 * The tests that make namespaces need root and a working `ip netns add`;
 * they are skipped otherwise, with the reason (the loopback ones run
 * anywhere). Namespaces are deleted at the end of each
 * test and, however the test ends (a failed assertion, a crash, the
 * runner's timeout kill), by a reaper process outside the test's process
 * group that waits for the test process to go.
 *
 * Debian's binaries are IPv4-only across hosts: dapltest -s resolves IPv4
 * names only, and dtest's bootstrap passes an AF_INET6 IA address as IB
 * UCM's (lid, qpn) rather than as an address. They run over IPv4 here,
 * one of them against a server IA on the IPv6 wildcard "::".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "provider-conn.h"
#include "provider-util.h"
#include "test.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif

#ifdef SANITIZED
#define SKIP_SANITIZED() TEST_SKIP("sanitized libraries cannot be loaded into Debian's binaries")
#else
#define SKIP_SANITIZED() do { } while (0)
#endif

/* ------------------------------------------------------------------ */
/* The network                                                         */

#define NHOSTS	3

/* Namespace names: [0] the switch, [1..NHOSTS] the hosts. */
static char nsn[NHOSTS + 1][40];

static const char *const v4[NHOSTS + 1] = { NULL, "10.77.0.1", "10.77.0.2", NULL };
static const char *const v6[NHOSTS + 1] = { NULL, "fd00::1", "fd00::2", "fd00::3" };
static const char *const ll[NHOSTS + 1] = { NULL, "fe80::77:1", "fe80::77:2",
					    "fe80::77:3" };

/* The write end of the reaper's pipe: open as long as this process lives. */
static int reaper_fd = -1;

/*
 * Runs `ip` with the words of @fmt as arguments. Returns its exit status
 * (-1 if it could not run or was killed); its output in *@out (malloc'd)
 * when @out is not NULL.
 */
TEST__PRINTF(2, 3)
static int ip(char **out, const char *fmt, ...)
{
	char line[512], *save = NULL, *tok, *output = NULL;
	const char *argv[40];
	int n = 0, status = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	argv[n++] = "ip";
	for (tok = strtok_r(line, " ", &save); tok != NULL && n < 39;
	     tok = strtok_r(NULL, " ", &save))
		argv[n++] = tok;
	argv[n] = NULL;
	if (test_run_cmd(20, &status, &output, argv) != 0 || !WIFEXITED(status))
		status = -1;
	else
		status = WEXITSTATUS(status);
	if (out != NULL)
		*out = output;
	else
		free(output);
	return status;
}

/* `ip ...`, failing the test with its output if it fails. */
#define IP_MUST(...)							\
	do {								\
		char *ip__out = NULL;					\
		if (ip(&ip__out, __VA_ARGS__) != 0)			\
			TEST_FAIL("ip failed: %s", ip__out ? ip__out : "");\
		free(ip__out);						\
	} while (0)

/*
 * Starts the reaper: a process in a session of its own (the runner kills
 * the test's process group, not it) that waits until every copy of the
 * pipe's write end is closed, i.e. until this process is gone however it
 * ended, then deletes the namespaces. Called once the names are set.
 */
static void reaper_start(void)
{
	int p[2], i;
	pid_t pid;

	ASSERT_OK(pipe2(p, O_CLOEXEC));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);
		char c;

		setsid();
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		for (fd = 3; fd < 1024; fd++)
			if (fd != p[0])
				close(fd);
		while (read(p[0], &c, 1) < 0 && errno == EINTR)
			;
		for (i = NHOSTS; i >= 0; i--) {
			pid_t k = fork();

			if (k == 0) {
				execlp("ip", "ip", "netns", "del", nsn[i], (char *)NULL);
				_exit(127);
			}
			if (k > 0)
				while (waitpid(k, NULL, 0) < 0 && errno == EINTR)
					;
		}
		_exit(0);
	}
	close(p[0]);
	reaper_fd = p[1];
}

/* Deletes the namespaces now (the reaper finds nothing left to do). */
static void net_teardown(void)
{
	int i;

	for (i = NHOSTS; i >= 0; i--)
		(void)ip(NULL, "netns del %s", nsn[i]);
}

/*
 * Makes the topology at the top of this file. Returns NULL, or why the
 * test must be skipped: not root, no ip, namespaces, veths or IPv6 not
 * available here.
 */
static const char *net_setup(void)
{
	static char why[512];
	char *out = NULL;
	int i;

	if (geteuid() != 0)
		return "needs root for ip netns (network namespaces)";
	if (test_find_program("ip") == NULL)
		return "ip missing: apt-get install -y iproute2";
	for (i = 0; i <= NHOSTS; i++) {
		if (i == 0)
			snprintf(nsn[i], sizeof(nsn[i]), "sd%d-sw", (int)getpid());
		else
			snprintf(nsn[i], sizeof(nsn[i]), "sd%d-h%d", (int)getpid(), i);
	}
	reaper_start();
	if (ip(&out, "netns add %s", nsn[0]) != 0) {
		snprintf(why, sizeof(why), "ip netns add does not work here: %s",
			 out ? out : "");
		free(out);
		return why;
	}
	free(out);
	out = NULL;
	if (ip(&out, "-n %s link add br0 type bridge", nsn[0]) != 0) {
		snprintf(why, sizeof(why), "no bridge in a namespace: %s", out ? out : "");
		free(out);
		net_teardown();
		return why;
	}
	free(out);
	out = NULL;
	IP_MUST("-n %s link set br0 up", nsn[0]);
	for (i = 1; i <= NHOSTS; i++) {
		IP_MUST("netns add %s", nsn[i]);
		if (ip(&out, "-n %s link add h%dp type veth peer name sd0 netns %s",
		       nsn[0], i, nsn[i]) != 0) {
			snprintf(why, sizeof(why), "no veth pairs here: %s",
				 out ? out : "");
			free(out);
			net_teardown();
			return why;
		}
		free(out);
		out = NULL;
		IP_MUST("-n %s link set h%dp master br0", nsn[0], i);
		IP_MUST("-n %s link set h%dp up", nsn[0], i);
		IP_MUST("-n %s link set lo up", nsn[i]);
		if (v4[i] != NULL)
			IP_MUST("-n %s addr add %s/24 dev sd0", nsn[i], v4[i]);
		if (ip(&out, "-n %s addr add %s/64 dev sd0 nodad", nsn[i], v6[i]) != 0) {
			snprintf(why, sizeof(why), "no IPv6 in a namespace: %s",
				 out ? out : "");
			free(out);
			net_teardown();
			return why;
		}
		free(out);
		out = NULL;
		IP_MUST("-n %s addr add %s/64 dev sd0 nodad", nsn[i], ll[i]);
		IP_MUST("-n %s link set sd0 up", nsn[i]);
	}
	return NULL;
}

/* Moves the calling thread (and the threads it makes) into host @name. */
static void netns_enter(const char *name)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		TEST_FAIL("open %s: %s", path, strerror(errno));
	if (setns(fd, CLONE_NEWNET) < 0)
		TEST_FAIL("setns %s: %s", path, strerror(errno));
	close(fd);
}

/*
 * The dat.conf of these tests: one IA name per form of ia_params (the
 * interface of the namespace, wildcards, loopback, each host's addresses).
 */
static void write_conf(void)
{
	static const char *const entries[][2] = {
		{ "nsif", "sd0" },		/* the namespace's interface */
		{ "nsif0", "sd0 0" },		/* OFED's style, port ignored */
		{ "any4", "0.0.0.0" },
		{ "any6", "::" },
		{ "lo6", "::1" },
		{ "h1-v4", "10.77.0.1" },
		{ "h2-v4", "10.77.0.2" },
		{ "h1-v6", "fd00::1" },
		{ "h2-v6", "fd00::2" },
		{ "h3-v6", "[fd00::3]" },
		{ "h1-ll", "[fe80::77:1%sd0]" },
		{ "h2-ll", "fe80::77:2%sd0" },
	};
	char conf[4096];
	size_t n = 0, i;

	for (i = 0; i < sizeof(entries) / sizeof(entries[0]); i++)
		n += (size_t)snprintf(conf + n, sizeof(conf) - n,
				      "%s u2.0 nonthreadsafe default %s softdapl.2.0 \"%s\" \"\"\n",
				      entries[i][0], sdt_provider_path(), entries[i][1]);
	ASSERT_LT(n, sizeof(conf));
	test_dat_conf(conf);
}

/* ------------------------------------------------------------------ */
/* Addresses                                                           */

/* The text of @sa's address, without port or scope. */
static const char *addr_text(const struct sockaddr *sa, char *buf, size_t len)
{
	const void *a = NULL;

	if (sa->sa_family == AF_INET)
		a = &((const struct sockaddr_in *)sa)->sin_addr;
	else if (sa->sa_family == AF_INET6)
		a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
	if (a == NULL || inet_ntop(sa->sa_family, a, buf, (socklen_t)len) == NULL)
		snprintf(buf, len, "(family %d)", sa->sa_family);
	return buf;
}

/* Address literal @text (IPv6 may carry a %scope) into @ss, port 0. */
static void addr_parse(const char *text, struct sockaddr_storage *ss)
{
	struct addrinfo hints, *res;
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = AI_NUMERICHOST;
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(text, NULL, &hints, &res);
	if (rc != 0)
		TEST_FAIL("address %s: %s", text, gai_strerror(rc));
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
}

/* Asserts that @sa is the address @want (IPv4 or IPv6 by its text). */
static void expect_addr(const struct sockaddr *sa, const char *want,
			const char *what)
{
	char buf[INET6_ADDRSTRLEN + 16];
	int family = strchr(want, ':') != NULL ? AF_INET6 : AF_INET;
	size_t n = strcspn(want, "%");	/* the scope is checked below */

	addr_text(sa, buf, sizeof(buf));
	if (sa->sa_family != family || strlen(buf) != n ||
	    strncmp(buf, want, n) != 0)
		TEST_FAIL("%s: %s (family %d), expected %s", what, buf,
			  sa->sa_family, want);
	if (family == AF_INET6 && strncmp(want, "fe80:", 5) == 0 &&
	    ((const struct sockaddr_in6 *)sa)->sin6_scope_id == 0)
		TEST_FAIL("%s: link-local %s without a scope", what, buf);
}

/* dat_ia_open of IA @name from the test's dat.conf. */
static DAT_IA_HANDLE ia_open(const char *name)
{
	char buf[DAT_NAME_MAX_LENGTH];
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;

	snprintf(buf, sizeof(buf), "%s", name);
	ASSERT_OK(dat_ia_open(buf, 16, &async, &ia));
	return ia;
}

/* ia_query's ia_address_ptr of @ia must be @want. */
static void expect_ia_addr(DAT_IA_HANDLE ia, const char *want)
{
	struct sockaddr_storage ss;

	sdt_ia_addr(ia, &ss);
	expect_addr((struct sockaddr *)&ss, want, "ia_query ia_address_ptr");
}

/* ep_query's remote_ia_address_ptr of @ep must be @want. */
static void expect_ep_remote(DAT_EP_HANDLE ep, const char *want)
{
	DAT_EP_PARAM p;

	ASSERT_OK(dat_ep_query(ep, DAT_EP_FIELD_REMOTE_IA_ADDRESS_PTR, &p));
	ASSERT_NOT_NULL(p.remote_ia_address_ptr);
	expect_addr(p.remote_ia_address_ptr, want, "ep_query remote address");
}

/* ------------------------------------------------------------------ */
/* Our DAT client and server                                           */

/*
 * Each side's buffer: a receive slot and a send slot for messages, the
 * region the server exposes to RDMA (DATA) and local staging (LOCAL: the
 * client's RDMA read target and write source; in the link-down test the
 * server's receive slots and the client's send sources).
 */
#define MSGSZ		1024
#define BIG		(1u << 20)
#define RECV_OFF	0
#define SEND_OFF	4096
#define DATA_OFF	8192
#define LOCAL_OFF	(8192 + BIG)
#define BUFLEN		(8192 + 2 * BIG)
#define NPING		100

enum { MSG_PING = 1, MSG_REGION, MSG_DONE, MSG_OK };

/* The head of every message; a pattern fills the rest. */
struct msg {
	uint32_t	kind;
	uint32_t	seq;
	uint64_t	va;
	uint32_t	rctx;
	uint32_t	len;
};

static uint8_t pat(unsigned seed, size_t i)
{
	return (uint8_t)(seed * 131u + i * 7u + (i >> 8) + 1u);
}

static void fill(char *p, size_t len, unsigned seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (char)pat(seed, i);
}

/* Fails the test unless @p holds pattern @seed. */
static void check(const char *p, size_t len, unsigned seed, const char *what)
{
	size_t i;

	for (i = 0; i < len; i++)
		if ((uint8_t)p[i] != pat(seed, i))
			TEST_FAIL("%s: byte %zu is 0x%02x, expected 0x%02x", what,
				  i, (uint8_t)p[i], pat(seed, i));
}

/* Sends a message of @kind from @n's send slot and waits for its completion. */
static void send_msg(struct sdt_node *n, uint32_t kind, uint32_t seq,
		     unsigned seed, uint64_t cookie, const struct msg *extra)
{
	struct msg m;

	memset(&m, 0, sizeof(m));
	if (extra != NULL)
		m = *extra;
	m.kind = kind;
	m.seq = seq;
	memcpy(n->buf + SEND_OFF, &m, sizeof(m));
	fill(n->buf + SEND_OFF + sizeof(m), MSGSZ - sizeof(m), seed);
	ASSERT_OK(sdt_send(n, SEND_OFF, MSGSZ, cookie, DAT_COMPLETION_DEFAULT_FLAG));
	sdt_expect_dto(n->req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, cookie);
}

/*
 * Waits for the message in @n's receive slot (cookie 1), checks its kind,
 * sequence and pattern, and returns its head.
 */
static struct msg recv_msg(struct sdt_node *n, uint32_t kind, uint32_t seq,
			   unsigned seed)
{
	DAT_DTO_COMPLETION_EVENT_DATA d;
	struct msg m;

	d = sdt_expect_dto(n->recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 1);
	ASSERT_EQ(d.transfered_length, MSGSZ);
	memcpy(&m, n->buf + RECV_OFF, sizeof(m));
	ASSERT_EQ(m.kind, kind);
	ASSERT_EQ(m.seq, seq);
	check(n->buf + RECV_OFF + sizeof(m), MSGSZ - sizeof(m), seed, "message");
	return m;
}

/*
 * The client's side of one exchange: from IA @ia_name (whose address must
 * be @local) to the server at @server, @port: ping-pong messages with data
 * checks, an RDMA read of the server's region, an RDMA write into it, and
 * a graceful disconnect.
 */
static void xfer_client(const char *ia_name, const char *local,
			const char *server, DAT_CONN_QUAL port)
{
	struct sockaddr_storage to;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET rmr;
	DAT_DTO_COOKIE ck;
	DAT_IA_HANDLE ia;
	struct sdt_node c;
	struct msg m;
	uint32_t i;

	addr_parse(server, &to);
	ia = ia_open(ia_name);
	expect_ia_addr(ia, local);
	sdt_node_init(&c, ia, NULL, BUFLEN);
	ASSERT_OK(sdt_recv(&c, RECV_OFF, MSGSZ, 1));
	ASSERT_OK(dat_ep_connect(c.ep, (DAT_IA_ADDRESS_PTR)&to, port,
				 (DAT_TIMEOUT)(10000000 * test_timeout_scale()),
				 0, NULL, DAT_QOS_BEST_EFFORT,
				 DAT_CONNECT_DEFAULT_FLAG));
	sdt_expect_conn(c.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	expect_ep_remote(c.ep, server);

	for (i = 0; i < NPING; i++) {
		send_msg(&c, MSG_PING, i, i, 100 + i, NULL);
		recv_msg(&c, MSG_PING, i, i + 5000);
		ASSERT_OK(sdt_recv(&c, RECV_OFF, MSGSZ, 1));
	}
	m = recv_msg(&c, MSG_REGION, 0, 1);
	ASSERT_EQ(m.len, BIG);
	ASSERT_OK(sdt_recv(&c, RECV_OFF, MSGSZ, 1));

	/* RDMA read the server's region; check it; write another pattern. */
	rmr.rmr_context = m.rctx;
	rmr.virtual_address = m.va;
	rmr.segment_length = BIG;
	iov = sdt_iov(&c, LOCAL_OFF, BIG);
	ck.as_64 = 200;
	ASSERT_OK(dat_ep_post_rdma_read(c.ep, 1, &iov, ck, &rmr,
					DAT_COMPLETION_DEFAULT_FLAG));
	sdt_expect_dto(c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_RDMA_READ, 200);
	check(c.buf + LOCAL_OFF, BIG, 777, "RDMA read");
	fill(c.buf + LOCAL_OFF, BIG, 888);
	ck.as_64 = 201;
	ASSERT_OK(dat_ep_post_rdma_write(c.ep, 1, &iov, ck, &rmr,
					 DAT_COMPLETION_DEFAULT_FLAG));
	sdt_expect_dto(c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_RDMA_WRITE, 201);
	send_msg(&c, MSG_DONE, 0, 2, 202, NULL);
	recv_msg(&c, MSG_OK, 0, 3);

	ASSERT_OK(dat_ep_disconnect(c.ep, DAT_CLOSE_GRACEFUL_FLAG));
	sdt_expect_conn(c.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	sdt_node_fini(&c);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	printf("client %s (%s) -> %s port %llu: %d pings, RDMA read and write "
	       "of %u bytes checked\n", ia_name, local, server,
	       (unsigned long long)port, NPING, BIG);
}

/*
 * Waits for a connection request on @cr_evd, checks the requester's
 * address (dat_cr_query) against @peer and accepts it on @n's EP.
 */
static void accept_from(struct sdt_node *n, DAT_EVD_HANDLE cr_evd, const char *peer)
{
	DAT_CR_HANDLE cr = sdt_expect_cr(cr_evd, NULL);
	DAT_CR_PARAM p;

	ASSERT_OK(dat_cr_query(cr, DAT_CR_FIELD_ALL, &p));
	ASSERT_NOT_NULL(p.remote_ia_address_ptr);
	expect_addr(p.remote_ia_address_ptr, peer, "dat_cr_query remote address");
	ASSERT_OK(dat_cr_accept(cr, n->ep, 0, NULL));
	sdt_expect_conn(n->conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	expect_ep_remote(n->ep, peer);
}

/* The server's side of xfer_client, for a requester at @peer. */
static void xfer_serve(DAT_IA_HANDLE ia, DAT_EVD_HANDLE cr_evd, const char *peer)
{
	struct sdt_node s;
	struct msg m;
	uint32_t i;

	sdt_node_init(&s, ia, NULL, BUFLEN);
	ASSERT_OK(sdt_recv(&s, RECV_OFF, MSGSZ, 1));
	accept_from(&s, cr_evd, peer);
	for (i = 0; i < NPING; i++) {
		recv_msg(&s, MSG_PING, i, i);
		ASSERT_OK(sdt_recv(&s, RECV_OFF, MSGSZ, 1));
		send_msg(&s, MSG_PING, i, i + 5000, 100 + i, NULL);
	}
	fill(s.buf + DATA_OFF, BIG, 777);
	memset(&m, 0, sizeof(m));
	m.va = (uint64_t)(uintptr_t)(s.buf + DATA_OFF);
	m.rctx = s.rctx;
	m.len = BIG;
	send_msg(&s, MSG_REGION, 0, 1, 300, &m);
	recv_msg(&s, MSG_DONE, 0, 2);
	check(s.buf + DATA_OFF, BIG, 888, "RDMA write");
	send_msg(&s, MSG_OK, 0, 3, 301, NULL);
	sdt_expect_conn(s.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	sdt_node_fini(&s);
}

/* ------------------------------------------------------------------ */
/* Traffic while a link goes down                                      */

#define DOWN_W		32		/* the client's requests in flight */
#define DOWN_RECVS	64		/* the server's receives posted */
#define DOWN_SZ		16384		/* each send and RDMA write */
#define DOWN_MAX	(1u << 16)	/* cookies (sequence numbers) */
#define DOWN_CRECVS	8		/* the client's receives */

/*
 * One side's accounting: every cookie posted completes exactly once,
 * successfully or flushed.
 */
struct ledger {
	uint8_t		state[DOWN_MAX];	/* 0 free, 1 posted, 2 done */
	unsigned	posted, ok, flushed;
};

static void ledger_post(struct ledger *l, uint64_t cookie)
{
	ASSERT_LT(cookie, DOWN_MAX);
	ASSERT_EQ(l->state[cookie], 0);
	l->state[cookie] = 1;
	l->posted++;
}

/* Records a completion; returns true when it succeeded. */
static int ledger_done(struct ledger *l, const DAT_EVENT *ev, const char *side)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d = &ev->event_data.dto_completion_event_data;
	uint64_t c = d->user_cookie.as_64;

	if (ev->event_number != DAT_DTO_COMPLETION_EVENT)
		TEST_FAIL("%s: event 0x%x on a DTO EVD", side,
			  (unsigned)ev->event_number);
	if (c >= DOWN_MAX || l->state[c] != 1)
		TEST_FAIL("%s: cookie %llu completed %s", side, (unsigned long long)c,
			  c < DOWN_MAX && l->state[c] == 2 ? "twice" : "but never posted");
	l->state[c] = 2;
	if (d->status == DAT_DTO_SUCCESS) {
		l->ok++;
		return 1;
	}
	if (d->status != DAT_DTO_ERR_FLUSHED)
		TEST_FAIL("%s: cookie %llu completed with status %d", side,
			  (unsigned long long)c, d->status);
	l->flushed++;
	return 0;
}

/* Every cookie posted is done. */
static int ledger_settled(const struct ledger *l)
{
	return l->ok + l->flushed == l->posted;
}

/*
 * Checks a connection event during the link-down traffic: only BROKEN
 * may come (DISCONNECTED would mean that someone closed it).
 */
static void expect_broken(const DAT_EVENT *ev, const char *side)
{
	if (ev->event_number != DAT_CONNECTION_EVENT_BROKEN)
		TEST_FAIL("%s: connection event 0x%x, expected BROKEN (0x%x)", side,
			  (unsigned)ev->event_number,
			  (unsigned)DAT_CONNECTION_EVENT_BROKEN);
}

/*
 * The server of the link-down tests: @nrecv receives of DOWN_SZ kept
 * posted, each checked (its sequence number and pattern), until the
 * connection breaks; then every receive must be flushed, once. With
 * @nrecv 0 the first SEND finds no receive: the connection waits, receiver
 * not ready, when the link goes down. Writes "<monotonic ms of BROKEN>
 * <received> <flushed>" to down-server.result.
 */
static void down_serve(DAT_IA_HANDLE ia, DAT_EVD_HANDLE cr_evd, const char *peer,
		       unsigned nrecv)
{
	static struct ledger l;
	uint64_t next = 0, broken_at = 0, deadline;
	struct sdt_node s;
	struct msg m;
	char res[128];
	DAT_EVENT ev;
	unsigned k;

	sdt_node_init(&s, ia, NULL, BUFLEN);
	for (k = 0; k < nrecv; k++, next++) {
		ASSERT_OK(sdt_recv(&s, LOCAL_OFF + (next % DOWN_RECVS) * DOWN_SZ,
				   DOWN_SZ, next));
		ledger_post(&l, next);
	}
	accept_from(&s, cr_evd, peer);
	memset(&m, 0, sizeof(m));
	m.va = (uint64_t)(uintptr_t)(s.buf + DATA_OFF);
	m.rctx = s.rctx;
	m.len = BIG;
	send_msg(&s, MSG_REGION, 0, 1, 60000, &m);

	deadline = test_now_ms() + (uint64_t)(120000 * test_timeout_scale());
	while (broken_at == 0 || !ledger_settled(&l)) {
		int got = 0;

		if (test_now_ms() > deadline)
			TEST_FAIL("server: %s after 120 s (%u posted, %u received, "
				  "%u flushed)", broken_at ? "receives not flushed" :
				  "no BROKEN", l.posted, l.ok, l.flushed);
		if (dat_evd_dequeue(s.conn_evd, &ev) == DAT_SUCCESS) {
			expect_broken(&ev, "server");
			ASSERT_EQ(broken_at, 0);
			broken_at = test_now_ms();
			got = 1;
		}
		while (dat_evd_dequeue(s.recv_evd, &ev) == DAT_SUCCESS) {
			const DAT_DTO_COMPLETION_EVENT_DATA *d =
				&ev.event_data.dto_completion_event_data;
			uint64_t c = d->user_cookie.as_64;
			char *slot = s.buf + LOCAL_OFF + (c % DOWN_RECVS) * DOWN_SZ;
			uint32_t seq;

			got = 1;
			if (!ledger_done(&l, &ev, "server"))
				continue;
			ASSERT_EQ(d->transfered_length, DOWN_SZ);
			memcpy(&seq, slot, sizeof(seq));
			check(slot + 8, DOWN_SZ - 8, seq, "received message");
			if (broken_at == 0 && next < DOWN_MAX && nrecv > 0 &&
			    sdt_recv(&s, LOCAL_OFF + (next % DOWN_RECVS) * DOWN_SZ,
				     DOWN_SZ, next) == DAT_SUCCESS) {
				ledger_post(&l, next);
				next++;
			}
		}
		if (!got)
			test_sleep_ms(2);
	}
	ASSERT_EQ(sdt_ep_state(s.ep), DAT_EP_STATE_DISCONNECTED);
	sdt_expect_none(s.recv_evd, 300);
	sdt_expect_none(s.conn_evd, 0);
	snprintf(res, sizeof(res), "%llu %u %u\n", (unsigned long long)broken_at,
		 l.ok, l.flushed);
	test_write_file("down-server.result", res);
	sdt_node_fini(&s);
}

/*
 * The client of the link-down tests, from IA @ia_name to @server: sends
 * and RDMA writes of DOWN_SZ, DOWN_W in flight, each send carrying its
 * sequence number and pattern; once @before have succeeded it runs `ip
 * @down` (taking a link down), then waits for BROKEN and for every
 * request and receive to be flushed, exactly once. Returns how long
 * BROKEN took after the link went down, in ms, and when it went down
 * (test_now_ms) in *@t_down.
 */
static uint64_t down_client(const char *ia_name, const char *server,
			    DAT_CONN_QUAL port, unsigned before, const char *down,
			    uint64_t *t_down)
{
	static struct ledger l, rl;
	uint64_t seq = 0, t0 = 0, broken_at = 0, deadline;
	struct sockaddr_storage to;
	DAT_DTO_COMPLETION_EVENT_DATA d;
	DAT_IA_HANDLE ia;
	struct sdt_node c;
	struct msg m;
	DAT_EVENT ev;
	unsigned k;

	addr_parse(server, &to);
	ia = ia_open(ia_name);
	sdt_node_init(&c, ia, NULL, BUFLEN);
	for (k = 0; k < DOWN_CRECVS; k++) {
		ASSERT_OK(sdt_recv(&c, RECV_OFF, MSGSZ, 1 + k));
		ledger_post(&rl, 1 + k);
	}
	ASSERT_OK(dat_ep_connect(c.ep, (DAT_IA_ADDRESS_PTR)&to, port,
				 (DAT_TIMEOUT)(10000000 * test_timeout_scale()),
				 0, NULL, DAT_QOS_BEST_EFFORT,
				 DAT_CONNECT_DEFAULT_FLAG));
	sdt_expect_conn(c.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	ev = sdt_wait(c.recv_evd, 10000);
	d = ev.event_data.dto_completion_event_data;
	ASSERT_EQ(d.status, DAT_DTO_SUCCESS);
	ASSERT(ledger_done(&rl, &ev, "client"));
	memcpy(&m, c.buf + RECV_OFF, sizeof(m));
	ASSERT_EQ(m.kind, MSG_REGION);

	deadline = test_now_ms() + (uint64_t)(60000 * test_timeout_scale());
	while (broken_at == 0 || !ledger_settled(&l) || !ledger_settled(&rl)) {
		int got = 0;

		/* Keep DOWN_W requests in flight until the connection ends. */
		while (broken_at == 0 && l.posted - l.ok - l.flushed < DOWN_W &&
		       seq < DOWN_MAX) {
			char *src = c.buf + LOCAL_OFF + (seq % DOWN_W) * DOWN_SZ;
			DAT_LMR_TRIPLET iov = sdt_iov(&c, LOCAL_OFF + (seq % DOWN_W) * DOWN_SZ,
						      DOWN_SZ);
			DAT_DTO_COOKIE ck;
			uint32_t s32 = (uint32_t)seq;
			DAT_RETURN r;

			memcpy(src, &s32, sizeof(s32));
			fill(src + 8, DOWN_SZ - 8, s32);
			ck.as_64 = seq;
			if (seq % 2 == 0) {
				r = dat_ep_post_send(c.ep, 1, &iov, ck,
						     DAT_COMPLETION_DEFAULT_FLAG);
			} else {
				DAT_RMR_TRIPLET rmr;

				rmr.rmr_context = m.rctx;
				rmr.virtual_address = m.va + (seq / 2 % (BIG / DOWN_SZ)) * DOWN_SZ;
				rmr.segment_length = DOWN_SZ;
				r = dat_ep_post_rdma_write(c.ep, 1, &iov, ck, &rmr,
							   DAT_COMPLETION_DEFAULT_FLAG);
			}
			if (r != DAT_SUCCESS)
				break;	/* the connection is ending: no completion */
			ledger_post(&l, seq);
			seq++;
		}
		if (t0 == 0 && l.ok >= before) {
			char *out = NULL;

			if (ip(&out, "%s", down) != 0)
				TEST_FAIL("ip %s: %s", down, out ? out : "");
			free(out);
			t0 = test_now_ms();
		}
		if (test_now_ms() > deadline)
			TEST_FAIL("client: %s after 60 s (%u posted, %u done, %u "
				  "flushed; link %s)", broken_at ? "requests not flushed" :
				  "no BROKEN", l.posted, l.ok, l.flushed,
				  t0 ? "down" : "still up");
		if (dat_evd_dequeue(c.conn_evd, &ev) == DAT_SUCCESS) {
			expect_broken(&ev, "client");
			ASSERT_EQ(broken_at, 0);
			ASSERT_NE(t0, 0);
			broken_at = test_now_ms();
			got = 1;
		}
		while (dat_evd_dequeue(c.req_evd, &ev) == DAT_SUCCESS) {
			(void)ledger_done(&l, &ev, "client");
			got = 1;
		}
		while (dat_evd_dequeue(c.recv_evd, &ev) == DAT_SUCCESS) {
			if (ledger_done(&rl, &ev, "client receives"))
				TEST_FAIL("client: a receive completed although "
					  "the server sends nothing more");
			got = 1;
		}
		if (!got)
			test_sleep_ms(2);
	}
	ASSERT_EQ(sdt_ep_state(c.ep), DAT_EP_STATE_DISCONNECTED);
	ASSERT_EQ(rl.flushed, DOWN_CRECVS - 1);
	sdt_expect_none(c.req_evd, 300);
	sdt_expect_none(c.recv_evd, 0);
	sdt_expect_none(c.conn_evd, 0);
	printf("client: %u requests posted, %u succeeded, %u flushed (%u before "
	       "the link went down); %u of %u receives flushed; BROKEN %llu ms "
	       "after `ip %s`\n", l.posted, l.ok, l.flushed, before, rl.flushed,
	       rl.posted, (unsigned long long)(broken_at - t0), down);
	sdt_node_fini(&c);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	*t_down = t0;
	return broken_at - t0;
}

/* ------------------------------------------------------------------ */
/* Helpers                                                             */

/*
 * provider_netns_server NS IA MODE LOCAL PEER...: in namespace NS ("-":
 * this one), opens IA, checks that ia_query reports LOCAL, listens
 * (psp_create_any) and reports "<port> <address>"; then serves one
 * connection per PEER, in order, each from that address: MODE "xfer"
 * (xfer_serve), "down" (down_serve) or "rnr" (down_serve, no receives).
 */
HELPER_IMPL(provider_netns_server)
{
	DAT_EVD_HANDLE cr_evd;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL port;
	DAT_IA_HANDLE ia;
	char buf[INET6_ADDRSTRLEN + 16];
	struct sockaddr_storage ss;
	int i;

	ASSERT_GE(argc, 6);
	if (strcmp(argv[1], "-") != 0)
		netns_enter(argv[1]);
	ia = ia_open(argv[2]);
	expect_ia_addr(ia, argv[4]);
	sdt_ia_addr(ia, &ss);
	ASSERT_OK(dat_evd_create(ia, 16, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, &cr_evd));
	ASSERT_OK(dat_psp_create_any(ia, &port, cr_evd, DAT_PSP_CONSUMER_FLAG, &psp));
	test_helper_ready("%llu %s", (unsigned long long)port,
			  addr_text((struct sockaddr *)&ss, buf, sizeof(buf)));
	for (i = 5; i < argc; i++) {
		if (strcmp(argv[3], "down") == 0)
			down_serve(ia, cr_evd, argv[i], DOWN_RECVS);
		else if (strcmp(argv[3], "rnr") == 0)
			down_serve(ia, cr_evd, argv[i], 0);
		else
			xfer_serve(ia, cr_evd, argv[i]);
	}
	ASSERT_OK(dat_psp_free(psp));
	ASSERT_OK(dat_evd_free(cr_evd));
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* provider_netns_client NS IA LOCAL SERVER PORT: xfer_client in NS. */
HELPER_IMPL(provider_netns_client)
{
	ASSERT_EQ(argc, 6);
	if (strcmp(argv[1], "-") != 0)
		netns_enter(argv[1]);
	xfer_client(argv[2], argv[3], argv[4], strtoull(argv[5], NULL, 10));
	return 0;
}

/* Starts a server helper and returns the port it listens on. */
static DAT_CONN_QUAL start_server(test_helper_t **h, const char *const argv[])
{
	const char *line;

	*h = test_spawn_helperv("provider_netns_server", argv);
	ASSERT_OK(test_helper_wait_ready(*h, &line));
	return strtoull(line, NULL, 10);
}

static void wait_ok(test_helper_t *h, int timeout_s)
{
	int status;

	ASSERT_OK(test_helper_wait(h, timeout_s, &status));
	ASSERT_EXIT_OK(status);
	test_helper_free(h);
}

/* ------------------------------------------------------------------ */
/* Tests                                                               */

/*
 * IPv6 loopback, in this host's namespace (no root needed): an IA on
 * "::1", dat_psp_create on it, dat_ep_connect to a sockaddr_in6 ::1, the
 * addresses in ia_query, ep_query and dat_cr_query.
 */
TEST_IMPL(provider_netns_ipv6_loopback)
{
	struct sockaddr_in6 sin6;
	test_helper_t *h;
	DAT_CONN_QUAL port;
	int fd;

	fd = socket(AF_INET6, SOCK_STREAM, 0);
	memset(&sin6, 0, sizeof(sin6));
	sin6.sin6_family = AF_INET6;
	sin6.sin6_addr = in6addr_loopback;
	if (fd < 0 || bind(fd, (struct sockaddr *)&sin6, sizeof(sin6)) < 0) {
		if (fd >= 0)
			close(fd);
		TEST_SKIP("no IPv6 loopback (::1) here");
	}
	close(fd);
	write_conf();
	{
		const char *args[] = { "-", "lo6", "xfer", "::1", "::1", NULL };

		port = start_server(&h, args);
	}
	xfer_client("lo6", "::1", "::1", port);
	wait_ok(h, 30);
	return 0;
}

/*
 * IPv4 across hosts: a server in h2 on its interface (ia_params "sd0");
 * clients in h1, by interface and by address.
 */
TEST_IMPL(provider_netns_ipv4)
{
	const char *why = net_setup();
	test_helper_t *h;
	DAT_CONN_QUAL port;

	if (why != NULL)
		TEST_SKIP(why);
	write_conf();
	{
		const char *args[] = { nsn[2], "nsif", "xfer", v4[2], v4[1], v4[1],
				       v4[1], NULL };

		port = start_server(&h, args);
	}
	netns_enter(nsn[1]);
	xfer_client("nsif", v4[1], v4[2], port);
	xfer_client("h1-v4", v4[1], v4[2], port);
	xfer_client("nsif0", v4[1], v4[2], port);
	wait_ok(h, 30);
	net_teardown();
	return 0;
}

/*
 * IPv6 across three hosts: a server in h2 on its global address, with
 * clients in h1 (by address) and h3 (by interface: h3 has IPv6 only); a
 * server on the IPv6 wildcard "::" that an IPv4 client reaches (its
 * address reported as IPv4, not as ::ffff:a.b.c.d) and an IPv6 one; a
 * server on a link-local address with its scope.
 */
TEST_IMPL(provider_netns_ipv6)
{
	const char *why = net_setup();
	test_helper_t *h, *c;
	DAT_CONN_QUAL port;
	char pbuf[32], sll[64];

	if (why != NULL)
		TEST_SKIP(why);
	write_conf();
	{
		const char *args[] = { nsn[2], "h2-v6", "xfer", v6[2], v6[3], v6[1],
				       NULL };

		port = start_server(&h, args);
	}
	/* h3 first, from a helper: the test process then enters h1. */
	snprintf(pbuf, sizeof(pbuf), "%llu", (unsigned long long)port);
	c = test_spawn_helper("provider_netns_client", nsn[3], "nsif", v6[3],
			      v6[2], pbuf, NULL);
	wait_ok(c, 30);
	netns_enter(nsn[1]);
	xfer_client("h1-v6", v6[1], v6[2], port);
	wait_ok(h, 30);

	{
		const char *args[] = { nsn[2], "any6", "xfer", v6[2], v4[1], v6[1],
				       NULL };

		port = start_server(&h, args);
	}
	xfer_client("h1-v4", v4[1], v4[2], port);
	xfer_client("h1-v6", v6[1], v6[2], port);
	wait_ok(h, 30);

	{
		const char *args[] = { nsn[2], "h2-ll", "xfer", ll[2], ll[1], NULL };

		port = start_server(&h, args);
	}
	snprintf(sll, sizeof(sll), "%s%%sd0", ll[2]);
	xfer_client("h1-ll", ll[1], sll, port);
	wait_ok(h, 30);
	net_teardown();
	return 0;
}

/*
 * The provider's dead-peer timeout for the link-down tests (cm.c:
 * SOFTDAPL_TCP_USER_TIMEOUT_MS), and how long BROKEN may take after the
 * link went down: the timeout, the kernel's next retransmission or probe
 * after it, and the engine's check (a quarter of the timeout).
 */
#define DOWN_TIMEOUT_MS		2000
#define DOWN_LIMIT_MS		(4 * DOWN_TIMEOUT_MS)

/*
 * A link goes down in the middle of traffic between the client (the test
 * process, in host @cli) and a server in h2: both sides must see
 * DAT_CONNECTION_EVENT_BROKEN within DOWN_LIMIT_MS and every DTO posted
 * must complete exactly once (success before, flushed after).
 */
static void link_down(int cli, const char *cli_ia, const char *cli_addr,
		      const char *srv_ia, const char *srv_addr, const char *down,
		      int rnr)
{
	const char *args[] = { nsn[2], srv_ia, rnr ? "rnr" : "down", srv_addr,
			       cli_addr, NULL };
	unsigned long long s_broken = 0;
	unsigned s_ok = 0, s_flushed = 0;
	uint64_t c_ms, t0, s_ms;
	test_helper_t *h;
	DAT_CONN_QUAL port;
	char buf[16], *res;

	write_conf();
	snprintf(buf, sizeof(buf), "%d", DOWN_TIMEOUT_MS);
	test_setenv("SOFTDAPL_TCP_USER_TIMEOUT_MS", buf);
	port = start_server(&h, args);
	netns_enter(nsn[cli]);
	c_ms = down_client(cli_ia, srv_addr, port, rnr ? 0 : 400, down, &t0);
	wait_ok(h, (int)(DOWN_LIMIT_MS / 1000) + 60);
	res = test_read_file("down-server.result");
	ASSERT_NOT_NULL(res);
	ASSERT_EQ(sscanf(res, "%llu %u %u", &s_broken, &s_ok, &s_flushed), 3);
	free(res);
	s_ms = s_broken > t0 ? s_broken - t0 : 0;
	printf("server: %u messages received and checked, %u receives flushed; "
	       "BROKEN %llu ms after the link went down\n", s_ok, s_flushed,
	       (unsigned long long)s_ms);
	ASSERT_EQ(s_flushed, rnr ? 0 : DOWN_RECVS);
	ASSERT_LT(c_ms, DOWN_LIMIT_MS * test_timeout_scale());
	ASSERT_LT(s_ms, DOWN_LIMIT_MS * test_timeout_scale());
}

/* h2 sets its interface down (`ip link set sd0 down`), IPv4. */
TEST_IMPL(provider_netns_link_down_ipv4)
{
	const char *why = net_setup();
	char down[128];

	if (why != NULL)
		TEST_SKIP(why);
	snprintf(down, sizeof(down), "-n %s link set sd0 down", nsn[2]);
	link_down(1, "nsif", v4[1], "nsif", v4[2], down, 0);
	net_teardown();
	return 0;
}

/*
 * IPv6 from h3 to a server on the wildcard "::" in h2; the switch loses
 * h2's cable (its veth is deleted, which removes h2's sd0 as well).
 */
TEST_IMPL(provider_netns_link_down_ipv6)
{
	const char *why = net_setup();
	char down[128];

	if (why != NULL)
		TEST_SKIP(why);
	snprintf(down, sizeof(down), "-n %s link del h2p", nsn[0]);
	link_down(3, "h3-v6", v6[3], "any6", v6[2], down, 0);
	net_teardown();
	return 0;
}

/*
 * The link goes down while the server is not ready to receive: the
 * client's first SEND found no receive, so the server's side stopped
 * reading and the client's requests wait behind it; both must still see
 * BROKEN, the client's requests flushed.
 */
TEST_IMPL(provider_netns_link_down_rnr)
{
	const char *why = net_setup();
	char down[128];

	if (why != NULL)
		TEST_SKIP(why);
	snprintf(down, sizeof(down), "-n %s link set sd0 down", nsn[2]);
	link_down(1, "h1-v4", v4[1], "h2-v4", v4[2], down, 1);
	net_teardown();
	return 0;
}

/*
 * The dead-peer timeout must not end a wait for a receiver not ready,
 * which lasts as long as the receiver takes (README): over loopback, a
 * SEND that finds no receive, then RDMA writes of 48 MiB behind it, more
 * than the sockets hold, so that the sender's data waits behind a closed
 * TCP window for four times SOFTDAPL_TCP_USER_TIMEOUT_MS (which Linux
 * would apply to the window probes: cm.c turns it off meanwhile). Then
 * the receive is posted and everything completes.
 */
#define RNR_TIMEOUT_MS	1000
#define RNR_WRITES	48

TEST_IMPL(provider_netns_rnr_outlasts_timeout)
{
	struct sdt_node c, s;
	DAT_RMR_TRIPLET rmr;
	DAT_LMR_TRIPLET iov;
	DAT_DTO_COOKIE ck;
	DAT_IA_HANDLE ia;
	char buf[16];
	unsigned i;

	snprintf(buf, sizeof(buf), "%d", RNR_TIMEOUT_MS);
	test_setenv("SOFTDAPL_TCP_USER_TIMEOUT_MS", buf);
	ia = sdt_open_ia("lo", NULL);
	sdt_node_init(&c, ia, NULL, 4096 + BIG);
	sdt_node_init(&s, ia, NULL, 4096 + BIG);
	sdt_connect(&c, &s);
	fill(c.buf, 4096 + BIG, 5);
	ASSERT_OK(sdt_send(&c, 0, MSGSZ, 1, DAT_COMPLETION_DEFAULT_FLAG));
	iov = sdt_iov(&c, 4096, BIG);
	rmr = sdt_rmr(&s, 4096, BIG);
	for (i = 0; i < RNR_WRITES; i++) {
		ck.as_64 = 2 + i;
		ASSERT_OK(dat_ep_post_rdma_write(c.ep, 1, &iov, ck, &rmr,
						 DAT_COMPLETION_DEFAULT_FLAG));
	}
	sdt_expect_none(c.req_evd, 4 * RNR_TIMEOUT_MS);
	sdt_expect_none(c.conn_evd, 0);
	sdt_expect_none(s.conn_evd, 0);
	ASSERT_EQ(sdt_ep_state(c.ep), DAT_EP_STATE_CONNECTED);

	ASSERT_OK(sdt_recv(&s, 0, MSGSZ, 100));
	sdt_expect_dto(s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 100);
	check(s.buf, MSGSZ, 5, "message");
	sdt_expect_dto(c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 1);
	for (i = 0; i < RNR_WRITES; i++)
		sdt_expect_dto(c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_RDMA_WRITE, 2 + i);
	ASSERT_MEM_EQ(s.buf + 4096, c.buf + 4096, BIG);
	sdt_disconnect(&c, &s);
	sdt_node_fini(&c);
	sdt_node_fini(&s);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Debian's dapltest and dtest across hosts                            */

/* Our registry in front (LD_LIBRARY_PATH), and the tests' dat.conf. */
static void debian_env(void)
{
	static char lib[512];

	snprintf(lib, sizeof(lib), "%s/../lib", test_builddir());
	test_setenv("LD_LIBRARY_PATH", lib);
	write_conf();
}

/* argv of `ip netns exec @ns @args...` into @argv (80 entries). */
static void ns_argv(const char **argv, const char *ns, const char *const args[])
{
	size_t n = 0, i;

	argv[n++] = "ip";
	argv[n++] = "netns";
	argv[n++] = "exec";
	argv[n++] = ns;
	for (i = 0; args[i] != NULL && n < 79; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
}

/* Runs @args in host @ns to completion: exit 0 and @want printed. */
static char *ns_run(const char *ns, int timeout, const char *want,
		    const char *const args[])
{
	const char *argv[80];
	char *out = NULL;
	int status;

	ns_argv(argv, ns, args);
	ASSERT_OK(test_run_cmd(timeout, &status, &out, argv));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
	    (want != NULL && strstr(out, want) == NULL))
		TEST_FAIL("%s in %s failed: %s", args[0], ns, out);
	return out;
}

/* Starts @args in host @ns in the background (test_spawn_cmd). */
static test_helper_t *ns_spawn(const char *ns, const char *const args[])
{
	const char *argv[80];

	ns_argv(argv, ns, args);
	return test_spawn_cmd(argv);
}

/* Prints the lines of @out that contain @key (figures for the log). */
static void show(const char *out, const char *key)
{
	const char *p = out;

	while ((p = strstr(p, key)) != NULL) {
		const char *b = p, *e = strchr(p, '\n');

		while (b > out && b[-1] != '\n')
			b--;
		printf("  %.*s\n", (int)(e ? e - b : (long)strlen(b)), b);
		p = e ? e : p + strlen(p);
	}
}

/* The port of dapltest's server; each namespace has ports of its own. */
#define DAPLTEST_PORT	"45000"

/*
 * dapltest -T T with @mix from h1 (IA @cli_ia) to the server in h2: it
 * must exit 0 and report its totals (dapltest exits 0 and prints "End of
 * Work" even when its connection fails, so the totals are what counts).
 */
static void dapltest_mix(const char *cli_ia, const char *const mix[])
{
	const char *argv[64] = { "dapltest", "-T", "T", "-D", cli_ia, "-n",
				 DAPLTEST_PORT, "-s", v4[2] };
	size_t n = 9, i;
	char *out;

	for (i = 0; mix[i] != NULL; i++)
		argv[n++] = mix[i];
	argv[n] = NULL;
	out = ns_run(nsn[1], 180, "Total Send", argv);
	if (strstr(out, "bad connection") != NULL || strstr(out, "FAIL") != NULL)
		TEST_FAIL("dapltest: %s", out);
	printf("dapltest -T T -D %s -s %s", cli_ia, v4[2]);
	for (i = 0; mix[i] != NULL; i++)
		printf(" %s", mix[i]);
	printf(":\n");
	show(out, "Total");
	free(out);
}

static void dapltest_perf(const char *cli_ia, const char *mode, const char *op)
{
	const char *argv[] = { "dapltest", "-T", "P", "-D", cli_ia, "-n",
			       DAPLTEST_PORT, "-s", v4[2], "-i", "2000", "-p", "16",
			       "-m", mode, op, "65536", "2", NULL };
	char *out = ns_run(nsn[1], 120, "End of Work", argv);

	if (strstr(out, "Bandwidth") == NULL)
		TEST_FAIL("dapltest -T P: %s", out);
	printf("dapltest -T P -D %s -s %s -m %s %s 65536 2:\n", cli_ia, v4[2],
	       mode, op);
	show(out, "Throughput");
	show(out, "Bandwidth");
	free(out);
}

/*
 * Debian's dapltest between h2 (-T S) and h1 (-T T, -T P, -T Q): the
 * server's IA on h2's interface ("sd0"), the client's on h1's address;
 * then a server IA on the IPv6 wildcard "::" with IPv4 clients.
 */
TEST_IMPL(provider_netns_dapltest)
{
	static const char *const sr[] = { "-i", "1000", "-t", "1", "-w", "1",
		"client", "SR", "256", "server", "SR", "256", NULL };
	static const char *const validated[] = { "-V", "-i", "500", "-t", "2",
		"-w", "2", "client", "RW", "4096", "1", "server", "RW", "2048", "4",
		"client", "RR", "1024", "2", "server", "RR", "2048", "2",
		"client", "SR", "1024", "3", "-f", "server", "SR", "256", "3", "-f",
		NULL };
	static const char *const wide[] = { "-i", "500", "-t", "4", "-w", "8",
		"client", "SR", "256", "server", "RW", "4096", "server", "SR", "256",
		"client", "SR", "256", "server", "RR", "4096", "server", "SR", "256",
		"client", "SR", "4096", "server", "SR", "256", NULL };
	const char *srv[] = { "dapltest", "-T", "S", "-D", "nsif", "-n",
			      DAPLTEST_PORT, NULL };
	const char *quit[] = { "dapltest", "-T", "Q", "-D", "h1-v4", "-n",
			       DAPLTEST_PORT, "-s", v4[2], NULL };
	const char *why;
	test_helper_t *h;
	int status;

	SKIP_SANITIZED();
	if (test_find_program("dapltest") == NULL)
		TEST_SKIP("dapltest missing: apt-get install -y dapl2-utils");
	why = net_setup();
	if (why != NULL)
		TEST_SKIP(why);
	debian_env();

	printf("dapltest -T S in h2 on IA nsif (ia_params \"sd0\"):\n");
	h = ns_spawn(nsn[2], srv);
	ASSERT_OK(test_helper_wait_output(h, "Service Point Ready", 30));
	dapltest_mix("h1-v4", sr);
	dapltest_mix("nsif", validated);
	dapltest_mix("h1-v4", wide);
	dapltest_perf("h1-v4", "p", "RW");
	dapltest_perf("nsif", "b", "RR");
	free(ns_run(nsn[1], 60, "End of Work", quit));
	ASSERT_OK(test_helper_wait(h, 30, &status));
	ASSERT_EXIT_OK(status);
	test_helper_free(h);

	srv[4] = "any6";
	printf("dapltest -T S in h2 on IA any6 (ia_params \"::\"):\n");
	h = ns_spawn(nsn[2], srv);
	ASSERT_OK(test_helper_wait_output(h, "Service Point Ready", 30));
	dapltest_mix("h1-v4", validated);
	free(ns_run(nsn[1], 60, "End of Work", quit));
	ASSERT_OK(test_helper_wait(h, 30, &status));
	ASSERT_EXIT_OK(status);
	test_helper_free(h);
	net_teardown();
	return 0;
}

/*
 * A dtest-style pair: the server in h2 (line-buffered, so that its ready
 * line shows), the client in h1; both must pass.
 */
static void dtest_pair(const char *const srv[], const char *ready,
		       const char *const cli[], const char *want,
		       const char *figures)
{
	test_helper_t *h;
	char *out;
	int status;
	size_t i;

	h = ns_spawn(nsn[2], srv);
	ASSERT_OK(test_helper_wait_output(h, ready, 30));
	out = ns_run(nsn[1], 180, want, cli);
	for (i = 0; cli[i] != NULL; i++)
		printf("%s%s", i ? " " : "", cli[i]);
	printf(":\n");
	show(out, figures);
	free(out);
	ASSERT_OK(test_helper_wait(h, 60, &status));
	ASSERT_EXIT_OK(status);
	if (strstr(test_helper_output(h), want) == NULL)
		TEST_FAIL("server: %s", test_helper_output(h));
	test_helper_free(h);
}

/*
 * Debian's dtest and dtestcm between h2 (-s, IA on the interface) and h1
 * (IA on its address), over IPv4 (dtest's fixed ports are private to the
 * namespaces).
 *
 * dtestcm runs 1000 connections, as provider_dtest_* do on loopback. Its
 * server counts any connection event as an establishment (its check is
 * `!= ESTABLISHED && (ud_test && ...)`), so a DISCONNECTED of an early EP
 * that it reads before the ESTABLISHED of a late one makes it miscount
 * and then fail with DAT_INVALID_HANDLE or wait forever. The provider's
 * events are right (a trace shows each EP's ESTABLISHED before its
 * DISCONNECTED); the client just disconnects while the server still
 * reads the last RTUs. With -c 200 that happened in about one run in
 * four here, and in none of 22 with -c 1000.
 */
TEST_IMPL(provider_netns_dtest)
{
	const char *srv[] = { "stdbuf", "-oL", "dtest", "-s", "-P", "nsif", NULL };
	const char *cli[] = { "dtest", "-P", "h1-v4", "-h", v4[2], NULL };
	const char *cm_srv[] = { "stdbuf", "-oL", "dtestcm", "-s", "-P", "nsif",
				 "-c", "1000", NULL };
	const char *cm_cli[] = { "dtestcm", "-P", "h1-v4", "-h", v4[2], "-c",
				 "1000", NULL };
	const char *why;

	SKIP_SANITIZED();
	if (test_find_program("dtest") == NULL || test_find_program("stdbuf") == NULL)
		TEST_SKIP("dtest or stdbuf missing: apt-get install -y dapl2-utils coreutils");
	why = net_setup();
	if (why != NULL)
		TEST_SKIP(why);
	debian_env();
	dtest_pair(srv, "waiting for client connection", cli,
		   "Test Complete. PASSED", "MB/s");
	dtest_pair(cm_srv, "waiting for client", cm_cli,
		   "Connection Test Complete", "Connections");
	net_teardown();
	return 0;
}
