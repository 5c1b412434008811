/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * seed12.c: the helpers of the seed synopsis programs (seed12.h). Plain
 * DAT 1.2: <dat/udat.h> and libdat.so.1 (-ldat), nothing else.
 */
#define _GNU_SOURCE	/* dl_iterate_phdr */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "seed12.h"

/* ------------------------------------------------------------------ */
/* Reporting                                                           */

static const char *section = "setup";	/* what is being checked */
static int quiet;

/* The rules of SEED-RULES.md in a line each, for the failure message. */
static const struct {
	const char	*rule;
	const char	*text;
} rules[] = {
	{ "COMMON-1", "num_segments may be 0 and local_iov NULL: a zero-length message" },
	{ "COMMON-2", "user_cookie comes back unchanged in the completion, and need not be unique" },
	{ "COMMON-3", "local_iov is the consumer's again once the post returns (the provider copies it)" },
	{ "COMMON-4", "a post does not block, and takes from preallocated pools (no allocation)" },
	{ "COMMON-5", "each segment must lie inside the LMR its lmr_context names: else DAT_INVALID_PARAMETER" },
	{ "COMMON-6", "an LMR of another PZ: DAT_PROTECTION_VIOLATION" },
	{ "COMMON-7", "an invalid LMR, or one without the local privilege needed: DAT_PRIVILEGES_VIOLATION" },
	{ "COMMON-8", "an invalid handle: DAT_INVALID_HANDLE; a full queue: DAT_INSUFFICIENT_RESOURCES" },
	{ "COMMON-9", "alignment is a hint (optimal_buffer_alignment); any alignment works" },
	{ "SEND-1", "all data of local_iov, segments in order, as one message" },
	{ "SEND-2", "completion flags: SUPPRESS, SOLICITED_WAIT, UNSIGNALLED, BARRIER_FENCE" },
	{ "SEND-3", "UNSIGNALLED only on an EP configured for it: else DAT_INVALID_PARAMETER" },
	{ "SEND-4", "valid only in CONNECTED and DISCONNECTED: else DAT_INVALID_STATE" },
	{ "SEND-5", "a successful post on a DISCONNECTED EP is flushed at once to the request EVD" },
	{ "SEND-6", "the completion carries the cookie, status and transferred length" },
	{ "RECV-1", "a receive takes the next incoming message of the connection" },
	{ "RECV-2", "segments are filled in order: full, at most one partly, the rest not at all" },
	{ "RECV-3", "whether a receive notifies depends on the EP's flags and the send's" },
	{ "RECV-4", "UNSIGNALLED only on an EP configured for it: else DAT_INVALID_PARAMETER" },
	{ "RECV-5", "a message larger than the receive: DAT_DTO_LENGTH_ERROR" },
	{ "RECV-6", "valid in every EP state; data is placed only once CONNECTED" },
	{ "RECV-7", "a successful post on a DISCONNECTED EP is flushed at once to the receive EVD" },
	{ "WRITE-1", "all data of local_iov, in order, into the remote buffer of the RMR triplet" },
	{ "WRITE-2", "completion flags: SUPPRESS, UNSIGNALLED, BARRIER_FENCE" },
	{ "WRITE-3", "UNSIGNALLED only on an EP configured for it: else DAT_INVALID_PARAMETER" },
	{ "WRITE-4", "valid only in CONNECTED and DISCONNECTED (there flushed at once): else DAT_INVALID_STATE" },
	{ "WRITE-5", "a remote buffer too small for the local data: DAT_LENGTH_ERROR" },
	{ "WRITE-6", "an rmr_context of another PZ or without remote write is refused, memory untouched" },
	{ "SRQ-1", "any connected EP using the SRQ may take a buffer posted to it" },
	{ "SRQ-2", "segments fill in order, as RECV-2" },
	{ "SRQ-3", "the EP that takes a buffer decides whether its completion notifies" },
	{ "SRQ-4", "receives complete in the order of the sends of each connection" },
	{ "SRQ-5", "valid in every SRQ state" },
	{ "SRQ-6", "only an EP in CONNECTED or DISCONNECT_PENDING takes buffers" },
	{ "SRQ-7", "at DISCONNECTED, every buffer an EP took completes (flushed if not filled)" },
	{ "SRQ-8", "another PZ, no local write, or a segment outside its LMR is refused" },
	{ "SRQ-9", "a buffer too small for the message: DAT_DTO_LENGTH_ERROR, as RECV-5" },
	{ "once", "every DTO posted successfully completes exactly once (post.c's contract)" },
};

void seed_section(const char *title)
{
	section = title;
	printf("\n== %s\n", title);
	fflush(stdout);
}

void seed_quiet(int q)
{
	quiet = q;
}

static void vreport(const char *head, const char *rule, const char *fmt, va_list ap)
{
	printf("%-4s %-10s ", head, rule);
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
}

/* The last line of a failure: which rule, what it says, where. */
static void __attribute__((noreturn)) fail_exit(const char *rule)
{
	size_t i;

	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (strcmp(rules[i].rule, rule) == 0)
			break;
	if (i < sizeof(rules) / sizeof(rules[0]))
		printf("FAIL: %s not met: %s (checking \"%s\")\n", rule,
		       rules[i].text, section);
	else
		printf("FAIL: %s (checking \"%s\")\n", rule, section);
	exit(1);
}

void seed_fail(const char *rule, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("FAIL", rule, fmt, ap);
	va_end(ap);
	fail_exit(rule);
}

void seed_check(const char *rule, int ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (!ok) {
		vreport("FAIL", rule, fmt, ap);
		va_end(ap);
		fail_exit(rule);
	}
	if (!quiet)
		vreport("ok", rule, fmt, ap);
	va_end(ap);
}

/* A few rotating buffers, so that one printf may show several values. */
static char *scratch(void)
{
	static char buf[8][160];
	static unsigned next;

	return buf[next++ % 8];
}

const char *seed_ret_str(DAT_RETURN r)
{
	const char *major = "?", *minor = "";
	char *s = scratch();

	if (r == DAT_SUCCESS)
		return "DAT_SUCCESS";
	if (dat_strerror(r, &major, &minor) != DAT_SUCCESS)
		major = "unknown", minor = "";
	snprintf(s, 160, "%s%s%s%s (0x%08x)", major, *minor ? " (" : "", minor,
		 *minor ? ")" : "", (unsigned)r);
	return s;
}

const char *seed_status_str(DAT_DTO_COMPLETION_STATUS status)
{
	static const char *const names[] = {
		"DAT_DTO_SUCCESS", "DAT_DTO_ERR_FLUSHED", "DAT_DTO_LENGTH_ERROR",
		"DAT_DTO_ERR_LOCAL_EP", "DAT_DTO_ERR_LOCAL_PROTECTION",
		"DAT_DTO_ERR_BAD_RESPONSE", "DAT_DTO_ERR_REMOTE_ACCESS",
		"DAT_DTO_ERR_REMOTE_RESPONDER", "DAT_DTO_ERR_TRANSPORT",
		"DAT_DTO_ERR_RECEIVER_NOT_READY", "DAT_DTO_ERR_PARTIAL_PACKET",
		"DAT_RMR_OPERATION_FAILED",
	};
	char *s;

	if ((unsigned)status < sizeof(names) / sizeof(names[0]))
		return names[status];
	s = scratch();
	snprintf(s, 160, "status %d", (int)status);
	return s;
}

const char *seed_event_str(DAT_EVENT_NUMBER number)
{
	static const struct {
		DAT_EVENT_NUMBER	number;
		const char		*name;
	} names[] = {
		{ DAT_DTO_COMPLETION_EVENT, "DAT_DTO_COMPLETION_EVENT" },
		{ DAT_RMR_BIND_COMPLETION_EVENT, "DAT_RMR_BIND_COMPLETION_EVENT" },
		{ DAT_CONNECTION_REQUEST_EVENT, "DAT_CONNECTION_REQUEST_EVENT" },
		{ DAT_CONNECTION_EVENT_ESTABLISHED, "DAT_CONNECTION_EVENT_ESTABLISHED" },
		{ DAT_CONNECTION_EVENT_PEER_REJECTED, "DAT_CONNECTION_EVENT_PEER_REJECTED" },
		{ DAT_CONNECTION_EVENT_NON_PEER_REJECTED, "DAT_CONNECTION_EVENT_NON_PEER_REJECTED" },
		{ DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR, "DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR" },
		{ DAT_CONNECTION_EVENT_DISCONNECTED, "DAT_CONNECTION_EVENT_DISCONNECTED" },
		{ DAT_CONNECTION_EVENT_BROKEN, "DAT_CONNECTION_EVENT_BROKEN" },
		{ DAT_CONNECTION_EVENT_TIMED_OUT, "DAT_CONNECTION_EVENT_TIMED_OUT" },
		{ DAT_CONNECTION_EVENT_UNREACHABLE, "DAT_CONNECTION_EVENT_UNREACHABLE" },
		{ DAT_ASYNC_ERROR_EVD_OVERFLOW, "DAT_ASYNC_ERROR_EVD_OVERFLOW" },
		{ DAT_SOFTWARE_EVENT, "DAT_SOFTWARE_EVENT" },
	};
	size_t i;
	char *s;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].number == number)
			return names[i].name;
	s = scratch();
	snprintf(s, 160, "event 0x%x", (unsigned)number);
	return s;
}

const char *seed_state_str(DAT_EP_STATE state)
{
	static const char *const names[] = {
		"UNCONNECTED", "UNCONFIGURED_UNCONNECTED", "RESERVED",
		"UNCONFIGURED_RESERVED", "PASSIVE_CONNECTION_PENDING",
		"UNCONFIGURED_PASSIVE", "ACTIVE_CONNECTION_PENDING",
		"TENTATIVE_CONNECTION_PENDING", "UNCONFIGURED_TENTATIVE",
		"CONNECTED", "DISCONNECT_PENDING", "DISCONNECTED",
		"COMPLETION_PENDING",
	};
	char *s;

	if ((unsigned)state < sizeof(names) / sizeof(names[0]))
		return names[state];
	s = scratch();
	snprintf(s, 160, "state %d", (int)state);
	return s;
}

void seed_check_ret(const char *rule, DAT_RETURN got, DAT_RETURN_TYPE want,
		    const char *what)
{
	int ok = want == DAT_SUCCESS ? got == DAT_SUCCESS :
		 (got & DAT_CLASS_ERROR) && DAT_GET_TYPE(got) == (DAT_UINT32)want;

	if (ok)
		seed_check(rule, 1, "%s: %s", what, seed_ret_str(got));
	else
		seed_fail(rule, "%s: returned %s, expected %s", what,
			  seed_ret_str(got), seed_ret_str(want == DAT_SUCCESS ? 0 :
				(DAT_RETURN)(DAT_CLASS_ERROR | want)));
}

void seed_call(DAT_RETURN r, const char *what, const char *file, int line)
{
	if (r == DAT_SUCCESS)
		return;
	printf("FAIL %s:%d: %s: %s\n", file, line, what, seed_ret_str(r));
	fail_exit("a call that must succeed failed");
}

void seed_pass(void)
{
	printf("\nPASS\n");
	exit(0);
}

/* ------------------------------------------------------------------ */
/* The IA and memory                                                   */

DAT_IA_HANDLE seed_open_ia(int argc, char **argv, const char *prog)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;

	if (argc < 2) {
		fprintf(stderr, "usage: %s IA-NAME (an IA of dat.conf)\n", argv[0]);
		exit(2);
	}
	printf("%s: a DAT %d.%d program (<dat/udat.h>, -ldat) on IA \"%s\"\n",
	       prog, DAT_VERSION_MAJOR, DAT_VERSION_MINOR, argv[1]);
	CALL(dat_ia_open(argv[1], 16, &async, &ia));
	return ia;
}

void seed_check_provider_attrs(DAT_IA_HANDLE ia)
{
	DAT_PROVIDER_ATTR p;
	DAT_UINT32 a;

	seed_section("COMMON-3, COMMON-9: what the provider attributes promise");
	CALL(dat_ia_query(ia, NULL, 0, NULL,
			  DAT_PROVIDER_FIELD_IOV_OWNERSHIP |
			  DAT_PROVIDER_FIELD_OPTIMAL_BUFFER_ALIGNMENT, &p));
	/* COMMON-3: the provider copies local_iov, and says so. */
	seed_check("COMMON-3", p.iov_ownership_on_return == DAT_IOV_CONSUMER,
		   "iov_ownership_on_return is %s (%d)",
		   p.iov_ownership_on_return == DAT_IOV_CONSUMER ?
		   "DAT_IOV_CONSUMER: local_iov may be reused once a post returns" :
		   "not DAT_IOV_CONSUMER", (int)p.iov_ownership_on_return);
	/* COMMON-9: an alignment hint, a power of two. */
	a = p.optimal_buffer_alignment;
	seed_check("COMMON-9", a > 0 && (a & (a - 1)) == 0,
		   "optimal_buffer_alignment is %u, a power of two", (unsigned)a);
}

void seed_mem_create(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz, DAT_VLEN len,
		     DAT_MEM_PRIV_FLAGS priv, struct seed_mem *m)
{
	DAT_REGION_DESCRIPTION region;
	DAT_VLEN reg_len;
	DAT_VADDR reg_addr;
	void *p = NULL;

	if (posix_memalign(&p, 4096, len) != 0) {
		printf("FAIL: out of memory (%llu bytes)\n", (unsigned long long)len);
		exit(1);
	}
	memset(p, 0, len);
	m->buf = p;
	m->len = len;
	region.for_va = p;
	/* DAT 1.2: no DAT_VA_TYPE argument (DAT 2.0 has one after priv). */
	CALL(dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, region, len, pz, priv,
			    &m->lmr, &m->lmr_context, &m->rmr_context,
			    &reg_len, &reg_addr));
}

void seed_mem_free(struct seed_mem *m)
{
	CALL(dat_lmr_free(m->lmr));
	free(m->buf);
	memset(m, 0, sizeof(*m));
}

DAT_LMR_TRIPLET seed_iov(const struct seed_mem *m, DAT_VLEN off, DAT_VLEN len)
{
	DAT_LMR_TRIPLET t;

	memset(&t, 0, sizeof(t));
	t.lmr_context = m->lmr_context;
	t.virtual_address = (DAT_VADDR)(uintptr_t)(m->buf + off);
	t.segment_length = len;
	return t;
}

DAT_RMR_TRIPLET seed_rmr(const struct seed_mem *m, DAT_VLEN off, DAT_VLEN len)
{
	DAT_RMR_TRIPLET t;

	memset(&t, 0, sizeof(t));
	t.rmr_context = m->rmr_context;
	t.target_address = (DAT_VADDR)(uintptr_t)(m->buf + off);
	t.segment_length = len;
	return t;
}

void seed_fill(char *p, DAT_VLEN n, unsigned seed)
{
	DAT_VLEN i;

	for (i = 0; i < n; i++)
		p[i] = (char)(seed + i * 7 + (i >> 8));
}

/* ------------------------------------------------------------------ */
/* Endpoints and connections                                           */

DAT_EP_ATTR seed_ep_attr(DAT_COMPLETION_FLAGS recv_flags,
			 DAT_COMPLETION_FLAGS request_flags,
			 DAT_COUNT max_recv_dtos, DAT_COUNT max_request_dtos)
{
	DAT_EP_ATTR a;

	memset(&a, 0, sizeof(a));
	a.service_type = DAT_SERVICE_TYPE_RC;
	a.max_message_size = 64 << 20;
	a.max_rdma_size = 64 << 20;
	a.qos = DAT_QOS_BEST_EFFORT;
	a.recv_completion_flags = recv_flags;
	a.request_completion_flags = request_flags;
	a.max_recv_dtos = max_recv_dtos;
	a.max_request_dtos = max_request_dtos;
	a.max_recv_iov = 4;
	a.max_request_iov = 4;
	a.max_rdma_read_in = 4;
	a.max_rdma_read_out = 4;
	a.srq_soft_hw = DAT_HW_DEFAULT;
	a.max_rdma_read_iov = 4;
	a.max_rdma_write_iov = 4;
	return a;
}

void seed_ep_create(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz, const DAT_EP_ATTR *attr,
		    DAT_SRQ_HANDLE srq, struct seed_ep *e)
{
	CALL(dat_evd_create(ia, 64, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &e->recv_evd));
	CALL(dat_evd_create(ia, 64, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &e->req_evd));
	CALL(dat_evd_create(ia, 8, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG,
			    &e->conn_evd));
	if (srq != DAT_HANDLE_NULL)
		CALL(dat_ep_create_with_srq(ia, pz, e->recv_evd, e->req_evd,
					    e->conn_evd, srq, attr, &e->ep));
	else
		CALL(dat_ep_create(ia, pz, e->recv_evd, e->req_evd, e->conn_evd,
				   attr, &e->ep));
}

void seed_ep_free(struct seed_ep *e)
{
	CALL(dat_ep_free(e->ep));
	CALL(dat_evd_free(e->recv_evd));
	CALL(dat_evd_free(e->req_evd));
	CALL(dat_evd_free(e->conn_evd));
}

DAT_EP_STATE seed_ep_state(const struct seed_ep *e)
{
	DAT_EP_STATE state;

	CALL(dat_ep_get_status(e->ep, &state, NULL, NULL));
	return state;
}

void seed_connect_start(DAT_IA_HANDLE ia, struct seed_ep *client,
			struct seed_listener *l)
{
	DAT_CONN_QUAL port;
	DAT_IA_ATTR attr;

	CALL(dat_ia_query(ia, NULL, DAT_IA_FIELD_IA_ADDRESS_PTR, &attr, 0, NULL));
	CALL(dat_evd_create(ia, 8, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, &l->cr_evd));
	CALL(dat_psp_create_any(ia, &port, l->cr_evd, DAT_PSP_CONSUMER_FLAG, &l->psp));
	CALL(dat_ep_connect(client->ep, attr.ia_address_ptr, port, SEED_WAIT_US,
			    0, NULL, DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
}

void seed_connect_finish(struct seed_listener *l, struct seed_ep *server,
			 struct seed_ep *client)
{
	DAT_EVENT ev = seed_wait(l->cr_evd, "the connection request");

	if (ev.event_number != DAT_CONNECTION_REQUEST_EVENT)
		seed_fail("setup", "expected a connection request, got %s",
			  seed_event_str(ev.event_number));
	CALL(dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle,
			   server->ep, 0, NULL));
	seed_expect_conn(NULL, server->conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED,
			 "server connected");
	seed_expect_conn(NULL, client->conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED,
			 "client connected");
	CALL(dat_psp_free(l->psp));
	CALL(dat_evd_free(l->cr_evd));
}

void seed_connect(DAT_IA_HANDLE ia, struct seed_ep *server, struct seed_ep *client)
{
	struct seed_listener l;

	seed_connect_start(ia, client, &l);
	seed_connect_finish(&l, server, client);
}

void seed_disconnect(struct seed_ep *a, struct seed_ep *b, DAT_CLOSE_FLAGS flags)
{
	CALL(dat_ep_disconnect(a->ep, flags));
	seed_expect_conn(NULL, a->conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED,
			 "disconnected");
	seed_expect_conn(NULL, b->conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED,
			 "peer disconnected");
}

/* ------------------------------------------------------------------ */
/* Events                                                              */

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

#define SLICE_US	(100 * 1000)

/*
 * The next event of @evd, for a check of @rule (NULL: no rule, setup):
 * dat_evd_wait in slices (seed_wait), or dat_evd_dequeue (seed_dequeue).
 */
static DAT_EVENT next_event(const char *rule, DAT_EVD_HANDLE evd,
			    const char *what, int dequeue_only)
{
	const char *who = rule != NULL ? rule : "setup";
	DAT_EVENT ev;
	DAT_COUNT nmore;
	DAT_RETURN r;
	long waited;

	for (waited = 0; waited < SEED_WAIT_US; waited += dequeue_only ? 1000 : SLICE_US) {
		if (dequeue_only) {
			r = dat_evd_dequeue(evd, &ev);
			if (r == DAT_SUCCESS)
				return ev;
			if (DAT_GET_TYPE(r) != DAT_QUEUE_EMPTY)
				seed_fail(who, "%s: dat_evd_dequeue returned %s", what,
					  seed_ret_str(r));
			sleep_ms(1);
		} else {
			r = dat_evd_wait(evd, SLICE_US, 1, &ev, &nmore);
			if (r == DAT_SUCCESS)
				return ev;
			if (DAT_GET_TYPE(r) != DAT_TIMEOUT_EXPIRED)
				seed_fail(who, "%s: dat_evd_wait returned %s", what,
					  seed_ret_str(r));
		}
	}
	seed_fail(who, "%s: no event in %d s", what, SEED_WAIT_US / 1000000);
}

DAT_EVENT seed_wait(DAT_EVD_HANDLE evd, const char *what)
{
	return next_event(NULL, evd, what, 0);
}

DAT_EVENT seed_dequeue(DAT_EVD_HANDLE evd, const char *what)
{
	return next_event(NULL, evd, what, 1);
}

DAT_DTO_COMPLETION_EVENT_DATA seed_check_dto(const char *rule, DAT_EVENT ev,
					     DAT_EP_HANDLE ep, uint64_t cookie,
					     DAT_DTO_COMPLETION_STATUS status,
					     const char *what)
{
	DAT_DTO_COMPLETION_EVENT_DATA d = ev.event_data.dto_completion_event_data;

	if (ev.event_number != DAT_DTO_COMPLETION_EVENT)
		seed_fail(rule, "%s: expected a DTO completion, got %s", what,
			  seed_event_str(ev.event_number));
	if (d.user_cookie.as_64 != cookie)
		seed_fail(rule, "%s: completion with cookie 0x%llx, expected 0x%llx "
			  "(%s, %llu bytes)", what,
			  (unsigned long long)d.user_cookie.as_64,
			  (unsigned long long)cookie, seed_status_str(d.status),
			  (unsigned long long)d.transfered_length);
	if (d.status != status)
		seed_fail(rule, "%s: cookie 0x%llx completed with %s, expected %s",
			  what, (unsigned long long)cookie,
			  seed_status_str(d.status), seed_status_str(status));
	if (ep != DAT_HANDLE_NULL && d.ep_handle != ep)
		seed_fail(rule, "%s: cookie 0x%llx completed for EP %p, expected %p",
			  what, (unsigned long long)cookie, d.ep_handle, ep);
	if (status == DAT_DTO_SUCCESS)
		seed_check(rule, 1, "%s: cookie 0x%llx, %s, %llu bytes", what,
			   (unsigned long long)cookie, seed_status_str(d.status),
			   (unsigned long long)d.transfered_length);
	else
		seed_check(rule, 1, "%s: cookie 0x%llx, %s", what,
			   (unsigned long long)cookie, seed_status_str(d.status));
	return d;
}

DAT_DTO_COMPLETION_EVENT_DATA seed_expect_dto(const char *rule, DAT_EVD_HANDLE evd,
					      DAT_EP_HANDLE ep, uint64_t cookie,
					      DAT_DTO_COMPLETION_STATUS status,
					      const char *what)
{
	return seed_check_dto(rule, next_event(rule, evd, what, 0), ep, cookie, status,
			      what);
}

void seed_expect_conn(const char *rule, DAT_EVD_HANDLE evd,
		      DAT_EVENT_NUMBER number, const char *what)
{
	DAT_EVENT ev = next_event(rule, evd, what, 0);

	if (ev.event_number != number)
		seed_fail(rule ? rule : "setup", "%s: got %s, expected %s", what,
			  seed_event_str(ev.event_number), seed_event_str(number));
	if (rule != NULL)
		seed_check(rule, 1, "%s: %s", what, seed_event_str(number));
}

void seed_expect_none(const char *rule, DAT_EVD_HANDLE evd, const char *what)
{
	DAT_EVENT ev;
	DAT_COUNT nmore;
	DAT_RETURN r;

	r = dat_evd_wait(evd, SEED_QUIET_MS * 1000, 1, &ev, &nmore);
	if (r == DAT_SUCCESS)
		seed_fail(rule, "%s: unexpected %s (cookie 0x%llx, %s)", what,
			  seed_event_str(ev.event_number),
			  (unsigned long long)ev.event_data.dto_completion_event_data.user_cookie.as_64,
			  seed_status_str(ev.event_data.dto_completion_event_data.status));
	if (DAT_GET_TYPE(r) != DAT_TIMEOUT_EXPIRED)
		seed_fail(rule, "%s: dat_evd_wait returned %s", what, seed_ret_str(r));
	/* A completion that does not notify would not have ended the wait. */
	r = dat_evd_dequeue(evd, &ev);
	if (r == DAT_SUCCESS)
		seed_fail(rule, "%s: unexpected %s queued (cookie 0x%llx, %s)", what,
			  seed_event_str(ev.event_number),
			  (unsigned long long)ev.event_data.dto_completion_event_data.user_cookie.as_64,
			  seed_status_str(ev.event_data.dto_completion_event_data.status));
	if (DAT_GET_TYPE(r) != DAT_QUEUE_EMPTY)
		seed_fail(rule, "%s: dat_evd_dequeue returned %s", what, seed_ret_str(r));
	seed_check(rule, 1, "%s: nothing in %d ms (waited on purpose)", what,
		   SEED_QUIET_MS);
}

void seed_expect_cno_fired(const char *rule, DAT_CNO_HANDLE cno,
			   DAT_EVD_HANDLE evd, const char *what)
{
	DAT_EVD_HANDLE got = DAT_HANDLE_NULL;
	DAT_RETURN r = dat_cno_wait(cno, SEED_WAIT_US, &got);

	if (r != DAT_SUCCESS)
		seed_fail(rule, "%s: the CNO did not fire: dat_cno_wait returned %s",
			  what, seed_ret_str(r));
	seed_check(rule, got == evd, "%s: the CNO fired for %s", what,
		   got == evd ? "that EVD" : "another EVD");
}

void seed_expect_cno_quiet(const char *rule, DAT_CNO_HANDLE cno, const char *what)
{
	DAT_EVD_HANDLE got = DAT_HANDLE_NULL;
	DAT_RETURN r = dat_cno_wait(cno, SEED_QUIET_MS * 1000, &got);

	if (r == DAT_SUCCESS)
		seed_fail(rule, "%s: the CNO fired (for EVD %p)", what, got);
	/* Not fired: the page's DAT_QUEUE_EMPTY, or DAT_TIMEOUT_EXPIRED. */
	seed_check(rule, DAT_GET_TYPE(r) == DAT_QUEUE_EMPTY ||
		   DAT_GET_TYPE(r) == DAT_TIMEOUT_EXPIRED,
		   "%s: the CNO did not fire in %d ms (waited on purpose): %s",
		   what, SEED_QUIET_MS, seed_ret_str(r));
}

/* ------------------------------------------------------------------ */
/* COMMON-4: counting allocations                                      */

long seed_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * A program may define malloc and its relatives itself: the dynamic
 * linker then binds every call in the process to them, those of
 * libdat.so.1, of the DAT 2.0 registry and provider it loads, and of the
 * C library itself. Each counts, then hands the call to the C library's
 * allocator under its internal name (glibc exports them). free is not
 * an allocation and is not counted, but must come from the same place.
 *
 * Every allocation counts, the dynamic linker's too: the provider's
 * thread-local variables are initial-exec, so that no thread's first
 * post or wait makes the linker allocate a block for them.
 */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void *__libc_memalign(size_t align, size_t size);
extern void __libc_free(void *p);

void *memalign(size_t align, size_t size);

static unsigned long allocations;

static void count(void)
{
	__atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED);
}

void *malloc(size_t size)
{
	count();
	return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
	count();
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
	count();
	return __libc_realloc(p, size);
}

void *memalign(size_t align, size_t size)
{
	count();
	return __libc_memalign(align, size);
}

void *aligned_alloc(size_t align, size_t size)
{
	count();
	return __libc_memalign(align, size);
}

int posix_memalign(void **out, size_t align, size_t size)
{
	void *p;

	count();
	p = __libc_memalign(align, size);
	if (p == NULL)
		return ENOMEM;
	*out = p;
	return 0;
}

void free(void *p)
{
	__libc_free(p);
}

static unsigned long counted_from;

void seed_count_start(void)
{
	counted_from = __atomic_load_n(&allocations, __ATOMIC_RELAXED);
}

void seed_count_check(const char *what)
{
	unsigned long n = __atomic_load_n(&allocations, __ATOMIC_RELAXED) - counted_from;

	/* COMMON-4 */
	seed_check("COMMON-4", n == 0, "%lu allocations during %s (expected 0)",
		   n, what);
}
