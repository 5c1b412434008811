/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA placed by the initiator between two processes of one host
 * (provider/cma.c): a write and a read land without a frame and without
 * the target's CPU, a bad one still gets the target's error, the copy
 * setting keeps every byte in frames, and nothing lands after the
 * target's dat_lmr_free has returned, however hard the initiator writes.
 *
 * The target is the test's process; the initiator is a helper, so that
 * it can be traced (SOFTDAPL_TRACE is read when the library loads): its
 * trace shows `place` lines for what it placed itself, `tx` frames for
 * the rest.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "provider-conn.h"
#include "provider-util.h"
#include "test.h"

#define SEG	65536		/* the target's second region */
#define BIG	49152		/* a SEND sent by address (>= 32 KiB) */

/* What the target tells the initiator: where it may write. */
struct offer {
	uint64_t	addr;
	uint32_t	rctx;
	uint32_t	len;
};

/* The target: a listener, a second region of SEG bytes registered. */
struct target {
	struct sdt_node	s;
	DAT_IA_HANDLE	ia;
	char		*seg;
	DAT_LMR_HANDLE	lmr;
	DAT_RMR_CONTEXT	rctx;
	test_helper_t	*h;
	char		trace[512];
};

static void target_up(struct target *t, const char *setting, const char *mode)
{
	DAT_REGION_DESCRIPTION rd;
	DAT_LMR_CONTEXT lctx;
	DAT_VLEN rlen;
	DAT_VADDR raddr;
	struct offer *o;
	char port[16];
	DAT_EVENT ev;

	memset(t, 0, sizeof(*t));
	test_setenv("SOFTDAPL_TRANSPORT", setting);
	t->ia = sdt_open_ia(NULL, NULL);
	sdt_node_init(&t->s, t->ia, NULL, 65536);
	t->seg = mmap(NULL, SEG, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT(t->seg != MAP_FAILED);
	rd.for_va = t->seg;
	ASSERT_OK(dat_lmr_create(t->ia, DAT_MEM_TYPE_VIRTUAL, rd, SEG, t->s.pz,
				 DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA, &t->lmr,
				 &lctx, &t->rctx, &rlen, &raddr));
	ASSERT_OK(dat_psp_create_any(t->ia, &t->s.port, t->s.cr_evd,
				     DAT_PSP_CONSUMER_FLAG, &t->s.psp));
	ASSERT_OK(sdt_recv(&t->s, 8192, BIG, 1));
	snprintf(t->trace, sizeof(t->trace), "%s/initiator.trace",
		 test_tmpdir());
	snprintf(port, sizeof(port), "%u", (unsigned)t->s.port);
	test_setenv("SOFTDAPL_TRACE", t->trace);
	t->h = test_spawn_helper("cma_initiator", setting, port, mode, NULL);
	test_setenv("SOFTDAPL_TRACE", NULL);
	ev = sdt_wait(t->s.cr_evd, 20000);
	ASSERT_EQ(ev.event_number, DAT_CONNECTION_REQUEST_EVENT);
	ASSERT_OK(dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle,
				t->s.ep, 0, NULL));
	sdt_expect_conn(t->s.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	o = (struct offer *)(void *)(t->s.buf + 4096);
	o->addr = (uint64_t)(uintptr_t)t->seg;
	o->rctx = t->rctx;
	o->len = SEG;
	ASSERT_OK(sdt_send(&t->s, 4096, sizeof(*o), 2, 0));
	sdt_expect_dto(t->s.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 2);
}

static void target_down(struct target *t)
{
	int status;

	ASSERT_OK(test_helper_wait(t->h, 30, &status));	/* again: the same */
	ASSERT_EXIT_CODE(status, 0);
	test_helper_free(t->h);
	if (t->lmr != DAT_HANDLE_NULL)
		ASSERT_OK(dat_lmr_free(t->lmr));
	munmap(t->seg, SEG);
	sdt_node_fini(&t->s);
	ASSERT_OK(dat_ia_close(t->ia, DAT_CLOSE_ABRUPT_FLAG));
}

/*
 * Lines of the initiator's trace of @kind whose event is @event, and
 * with @has in them when not NULL.
 */
static unsigned file_count_with(const char *path, const char *kind,
				const char *event, const char *has)
{
	char *text = test_read_file(path), *line, *save = NULL;
	char want[64];
	unsigned n = 0;

	ASSERT_NOT_NULL(text);
	snprintf(want, sizeof(want), " %s ", kind);
	for (line = strtok_r(text, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		char *k = strstr(line, want), *ev;

		if (k == NULL)
			continue;
		ev = strchr(k + strlen(want), ' ');	/* after the object */
		if (ev != NULL && strncmp(ev + 1, event, strlen(event)) == 0 &&
		    ev[1 + strlen(event)] == ' ' &&
		    (has == NULL || strstr(ev, has) != NULL))
			n++;
	}
	free(text);
	return n;
}

static unsigned trace_count_with(const struct target *t, const char *kind,
				 const char *event, const char *has)
{
	return file_count_with(t->trace, kind, event, has);
}

static unsigned trace_count(const struct target *t, const char *kind,
			    const char *event)
{
	return trace_count_with(t, kind, event, NULL);
}

/*
 * One write and one read, then a write to a context the target never
 * gave: the first two are the initiator's (auto) or frames (copy), the
 * last is refused by the target either way.
 */
static void write_read(const char *setting, bool one_sided)
{
	struct target t;
	int i;

	target_up(&t, setting, "basic");
	sdt_expect_dto(t.s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 1);
	for (i = 0; i < 4096; i++)
		ASSERT_EQ(t.seg[i], 0x5a);
	ASSERT_EQ(t.seg[4096], 0);
	/* The bad write: the target's rx refuses it, as over TCP. */
	sdt_expect_conn(t.s.conn_evd, DAT_CONNECTION_EVENT_BROKEN);
	target_down(&t);
	if (one_sided) {
		ASSERT_EQ(trace_count(&t, "place", "RDMA_WRITE"), 1);
		ASSERT_EQ(trace_count(&t, "place", "RDMA_READ"), 1);
		ASSERT_EQ(trace_count(&t, "tx", "WRITE"), 1);	/* the bad one */
		ASSERT_EQ(trace_count(&t, "tx", "READ_REQ"), 0);
	} else {
		ASSERT_EQ(trace_count(&t, "place", "RDMA_WRITE"), 0);
		ASSERT_EQ(trace_count(&t, "place", "RDMA_READ"), 0);
		ASSERT_EQ(trace_count(&t, "tx", "WRITE"), 2);
		ASSERT_EQ(trace_count(&t, "tx", "READ_REQ"), 1);
	}
}

TEST_IMPL(provider_cma_one_sided)
{
	write_read("auto", true);
	return 0;
}

TEST_IMPL(provider_cma_copy_forced)
{
	write_read("copy", false);
	return 0;
}

/*
 * A SEND of 48 KiB: by address where the target can read the
 * initiator's memory (the frame is a header alone, addr= names the
 * message), through the ring with copy.
 */
static void send_big(const char *setting, bool by_address)
{
	struct target t;
	int i;

	target_up(&t, setting, "send");
	sdt_expect_dto(t.s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 1);
	for (i = 0; i < BIG; i++)
		ASSERT_EQ(t.s.buf[8192 + i], (char)(i * 7 + 1));
	ASSERT_OK(dat_ep_disconnect(t.s.ep, DAT_CLOSE_GRACEFUL_FLAG));
	sdt_expect_conn(t.s.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	target_down(&t);
	ASSERT_EQ(trace_count(&t, "tx", "SEND"), 1);
	ASSERT_EQ(trace_count_with(&t, "tx", "SEND", " bytes=32 "),
		  by_address ? 1u : 0u);
	ASSERT_EQ(trace_count_with(&t, "tx", "SEND", " addr=0x0 "),
		  by_address ? 0u : 1u);
}

TEST_IMPL(provider_cma_send_by_address)
{
	send_big("auto", true);
	return 0;
}

TEST_IMPL(provider_cma_send_copy_forced)
{
	send_big("copy", false);
	return 0;
}

/*
 * A SEND by address whose sender's connection ends (abruptly, the SEND
 * flushed on its side) before the receiver took it: it was withdrawn
 * with the connection and never arrives, so no receive completes with
 * bytes the sender's consumer may have reused since. The receiver had
 * no receive posted for it (RNR) until the sender's consumer had the
 * buffer back and wrote over it.
 */
TEST_IMPL(provider_cma_send_withdrawn)
{
	struct target t;
	DAT_EVENT ev;

	target_up(&t, "auto", "withdraw");
	sdt_expect_dto(t.s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 1);
	/* Its consumer has the buffer back and wrote over it; it lives on. */
	ASSERT_OK(test_helper_wait_ready(t.h, NULL));
	ASSERT_OK(sdt_recv(&t.s, 8192, BIG, 3));
	sdt_expect_dto(t.s.recv_evd, DAT_DTO_ERR_FLUSHED, DAT_DTO_RECEIVE, 3);
	ev = sdt_wait(t.s.conn_evd, 20000);
	ASSERT(ev.event_number == DAT_CONNECTION_EVENT_DISCONNECTED ||
	       ev.event_number == DAT_CONNECTION_EVENT_BROKEN);
	target_down(&t);
	ASSERT_EQ(trace_count_with(&t, "tx", "SEND", " bytes=32 "), 1);
	return 0;
}

/*
 * The initiator writes 0x55 into the region without a pause; the target
 * frees the region's LMR, paints it 0xaa and looks 200 ms later: not a
 * byte may have changed. The initiator's next writes go as frames, which
 * the target refuses: the connection breaks.
 */
TEST_IMPL(provider_cma_revoke)
{
	struct target t;
	DAT_RETURN r;
	int i;

	target_up(&t, "auto", "race");
	sdt_expect_dto(t.s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 1);
	usleep(20000);				/* it writes meanwhile */
	while ((r = dat_lmr_free(t.lmr)) ==
	       ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_LMR_IN_USE))
		;				/* a frame placing (copy path) */
	ASSERT_OK(r);
	t.lmr = DAT_HANDLE_NULL;
	memset(t.seg, 0xaa, SEG);
	usleep(200000);
	for (i = 0; i < SEG; i++)
		if ((unsigned char)t.seg[i] != 0xaa)
			TEST_FAIL("byte %d changed after dat_lmr_free returned", i);
	sdt_expect_conn(t.s.conn_evd, DAT_CONNECTION_EVENT_BROKEN);
	target_down(&t);
	ASSERT_GT(trace_count(&t, "place", "RDMA_WRITE"), 0);
	return 0;
}

/*
 * Where the kernel refuses cross-memory attach, RDMA goes by frames and
 * SOFTDAPL_DEBUG says why. Two helpers as an unprivileged user (65534),
 * the target made not dumpable: no process of that user may then ptrace
 * it or reach its memory, as Yama's ptrace_scope 1 refuses siblings. The
 * control: the same two with the target dumpable place one-sided.
 */
static void unprivileged(bool refused)
{
	char dir[512], trace[600], port[16];
	const char *line, *out;
	test_helper_t *tg, *in;
	int status;

	/* Both read the dat.conf made here; the initiator writes its trace. */
	sdt_conf("lo");
	snprintf(dir, sizeof(dir), "%s/shared", test_tmpdir());
	ASSERT_OK(mkdir(dir, 0777));
	ASSERT_OK(chmod(dir, 0777));
	ASSERT_OK(chmod(test_tmpdir(), 0755));
	snprintf(trace, sizeof(trace), "%s/initiator.trace", dir);
	close(open(trace, O_CREAT | O_WRONLY, 0666));
	ASSERT_OK(chmod(trace, 0666));	/* opened when the provider loads */
	tg = test_spawn_helper("cma_target", refused ? "nodump" : "dump", NULL);
	ASSERT_OK(test_helper_wait_ready(tg, &line));
	snprintf(port, sizeof(port), "%s", line);
	test_setenv("SOFTDAPL_TRACE", trace);
	test_setenv("SOFTDAPL_DEBUG", "1");
	in = test_spawn_cmd((const char *const[]){ test_self_exe(), "--helper",
		"cma_initiator", "auto", port, "basic", "nobody", NULL });
	test_setenv("SOFTDAPL_TRACE", NULL);
	test_setenv("SOFTDAPL_DEBUG", NULL);
	ASSERT_OK(test_helper_wait(in, 30, &status));
	out = test_helper_output(in);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		TEST_FAIL("the initiator failed:\n%s", out);
	ASSERT_OK(test_helper_wait(tg, 30, &status));
	ASSERT_EXIT_CODE(status, 0);
	if (refused) {
		ASSERT_STR_CONTAINS(out, "the kernel refuses cross-memory attach");
		ASSERT_EQ(file_count_with(trace, "place", "RDMA_WRITE", NULL), 0);
		ASSERT_EQ(file_count_with(trace, "tx", "WRITE", NULL), 2);
		ASSERT_EQ(file_count_with(trace, "tx", "READ_REQ", NULL), 1);
	} else {
		ASSERT_STR_CONTAINS(out, "one-sided RDMA: on with pid");
		ASSERT_EQ(file_count_with(trace, "place", "RDMA_WRITE", NULL), 1);
		ASSERT_EQ(file_count_with(trace, "place", "RDMA_READ", NULL), 1);
	}
	test_helper_free(in);
	test_helper_free(tg);
}

TEST_IMPL(provider_cma_refused_copies)
{
	if (geteuid() != 0)
		TEST_SKIP("needs root, to run two helpers as another user");
	unprivileged(true);
	return 0;
}

TEST_IMPL(provider_cma_unprivileged_one_sided)
{
	if (geteuid() != 0)
		TEST_SKIP("needs root, to run two helpers as another user");
	unprivileged(false);
	return 0;
}

/* This helper as user and group 65534, @dumpable or not (see above). */
static void become_nobody(bool dumpable)
{
	ASSERT_OK(setresgid(65534, 65534, 65534));
	ASSERT_OK(setresuid(65534, 65534, 65534));
	ASSERT_OK(prctl(PR_SET_DUMPABLE, dumpable ? 1 : 0, 0, 0, 0));
}

/*
 * argv[1]: "nodump" or "dump". The target of unprivileged(): as user
 * 65534, a listener with a region to write; says its port, accepts one
 * connection, offers the region, takes "done", checks the bytes, and
 * expects the bad write to break the connection.
 */
HELPER_IMPL(cma_target)
{
	char name[] = SDT_IA_NAME;
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_REGION_DESCRIPTION rd;
	DAT_LMR_CONTEXT lctx;
	DAT_VLEN rlen;
	DAT_VADDR raddr;
	struct target t;
	struct offer *o;
	DAT_EVENT ev;
	int i;

	(void)argc;
	test_setenv("SOFTDAPL_TRANSPORT", "auto");	/* whatever the suite's */
	become_nobody(strcmp(argv[1], "dump") == 0);
	memset(&t, 0, sizeof(t));
	ASSERT_OK(dat_ia_open(name, 16, &async, &t.ia));
	sdt_node_init(&t.s, t.ia, NULL, 65536);
	t.seg = mmap(NULL, SEG, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT(t.seg != MAP_FAILED);
	rd.for_va = t.seg;
	ASSERT_OK(dat_lmr_create(t.ia, DAT_MEM_TYPE_VIRTUAL, rd, SEG, t.s.pz,
				 DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA, &t.lmr,
				 &lctx, &t.rctx, &rlen, &raddr));
	ASSERT_OK(dat_psp_create_any(t.ia, &t.s.port, t.s.cr_evd,
				     DAT_PSP_CONSUMER_FLAG, &t.s.psp));
	ASSERT_OK(sdt_recv(&t.s, 8192, BIG, 1));
	test_helper_ready("%u", (unsigned)t.s.port);
	ev = sdt_wait(t.s.cr_evd, 20000);
	ASSERT_EQ(ev.event_number, DAT_CONNECTION_REQUEST_EVENT);
	ASSERT_OK(dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle,
				t.s.ep, 0, NULL));
	sdt_expect_conn(t.s.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	o = (struct offer *)(void *)(t.s.buf + 4096);
	o->addr = (uint64_t)(uintptr_t)t.seg;
	o->rctx = t.rctx;
	o->len = SEG;
	ASSERT_OK(sdt_send(&t.s, 4096, sizeof(*o), 2, 0));
	sdt_expect_dto(t.s.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 2);
	sdt_expect_dto(t.s.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 1);
	for (i = 0; i < 4096; i++)
		ASSERT_EQ(t.seg[i], 0x5a);
	sdt_expect_conn(t.s.conn_evd, DAT_CONNECTION_EVENT_BROKEN);
	ASSERT_OK(dat_lmr_free(t.lmr));
	sdt_node_fini(&t.s);
	ASSERT_OK(dat_ia_close(t.ia, DAT_CLOSE_ABRUPT_FLAG));
	return 0;
}

/* ------------------------------------------------------------------ */
/* The initiator                                                       */

/* Posts an RDMA write or read of 4096 bytes; its completion's status. */
static DAT_DTO_COMPLETION_STATUS rdma(struct sdt_node *c, bool write,
				      size_t off, const struct offer *o,
				      uint32_t rctx, uint64_t cookie)
{
	DAT_LMR_TRIPLET iov = sdt_iov(c, off, 4096);
	DAT_RMR_TRIPLET rt;
	DAT_DTO_COOKIE ck;
	DAT_EVENT ev;

	rt.virtual_address = o->addr;
	rt.segment_length = 4096;
	rt.rmr_context = rctx;
	ck.as_64 = cookie;
	if (write)
		ASSERT_OK(dat_ep_post_rdma_write(c->ep, 1, &iov, ck, &rt,
						 DAT_COMPLETION_DEFAULT_FLAG));
	else
		ASSERT_OK(dat_ep_post_rdma_read(c->ep, 1, &iov, ck, &rt,
						DAT_COMPLETION_DEFAULT_FLAG));
	ev = sdt_wait(c->req_evd, 20000);
	ASSERT_EQ(ev.event_number, DAT_DTO_COMPLETION_EVENT);
	ASSERT_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64,
		  cookie);
	return ev.event_data.dto_completion_event_data.status;
}

/*
 * argv[1]: SOFTDAPL_TRANSPORT; argv[2]: the target's port; argv[3]:
 * "basic" (a write, a read, "done", a bad write), "send" (one SEND of
 * BIG bytes, then the target disconnects) or "race" (writes until one
 * fails, "started" after the first); argv[4], if "nobody": as user 65534
 * (unprivileged()), with the test's dat.conf.
 */
HELPER_IMPL(cma_initiator)
{
	struct sdt_node c;
	struct offer o;
	DAT_IA_HANDLE ia;
	uint64_t k;
	int i;

	test_setenv("SOFTDAPL_TRANSPORT", argv[1]);
	if (argc > 4 && strcmp(argv[4], "nobody") == 0) {
		char name[] = SDT_IA_NAME;
		DAT_EVD_HANDLE async = DAT_HANDLE_NULL;

		become_nobody(true);	/* the dat.conf is the test's */
		ASSERT_OK(dat_ia_open(name, 16, &async, &ia));
	} else {
		ia = sdt_open_ia(NULL, NULL);
	}
	sdt_node_init(&c, ia, NULL, 65536);
	ASSERT_OK(sdt_recv(&c, 0, 64, 1));
	sdt_connect_to(ia, c.ep, (DAT_CONN_QUAL)atoi(argv[2]),
		       DAT_TIMEOUT_INFINITE);
	sdt_expect_conn(c.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	sdt_expect_dto(c.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 1);
	memcpy(&o, c.buf, sizeof(o));
	memset(c.buf + 4096, 0x5a, 4096);
	if (strcmp(argv[3], "basic") == 0) {
		ASSERT_EQ(rdma(&c, true, 4096, &o, o.rctx, 10), DAT_DTO_SUCCESS);
		ASSERT_EQ(rdma(&c, false, 8192, &o, o.rctx, 11), DAT_DTO_SUCCESS);
		for (i = 0; i < 4096; i++)
			ASSERT_EQ(c.buf[8192 + i], 0x5a);
		ASSERT_OK(sdt_send(&c, 4096, 8, 12, 0));
		sdt_expect_dto(c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 12);
		/* A context of another slot, never given: refused. */
		ASSERT(rdma(&c, true, 4096, &o, o.rctx ^ 0x40000u, 13) !=
		       DAT_DTO_SUCCESS);
	} else if (strcmp(argv[3], "withdraw") == 0) {
		/* A small one, then one by address the target has no receive for. */
		ASSERT_OK(sdt_send(&c, 4096, 8, 4, 0));
		sdt_expect_dto(c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 4);
		ASSERT_OK(sdt_send(&c, 8192, BIG, 5, 0));
		usleep(50000);		/* its frame in the ring, unread */
		ASSERT_OK(dat_ep_disconnect(c.ep, DAT_CLOSE_ABRUPT_FLAG));
		sdt_expect_dto(c.req_evd, DAT_DTO_ERR_FLUSHED, DAT_DTO_SEND, 5);
		memset(c.buf + 8192, 0xee, BIG);	/* reused at once */
		test_helper_ready("reused");
		usleep(500000);		/* alive while the target looks */
	} else if (strcmp(argv[3], "send") == 0) {
		for (i = 0; i < BIG; i++)
			c.buf[8192 + i] = (char)(i * 7 + 1);
		ASSERT_OK(sdt_send(&c, 8192, BIG, 5, 0));
		sdt_expect_dto(c.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 5);
		sdt_expect_conn(c.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	} else {
		memset(c.buf + 4096, 0x55, 4096);
		for (k = 100;; k++) {
			if (rdma(&c, true, 4096, &o, o.rctx, k) != DAT_DTO_SUCCESS)
				break;
			if (k == 100) {
				ASSERT_OK(sdt_send(&c, 4096, 8, 1, 0));
				sdt_expect_dto(c.req_evd, DAT_DTO_SUCCESS,
					       DAT_DTO_SEND, 1);
			}
		}
	}
	sdt_node_fini(&c);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	return 0;
}
