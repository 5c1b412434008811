/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SOFTDAPL_TRACE (provider/TRACE.md): the example programs run with the
 * trace on, and what they write is read back as the format's parsers
 * read it: every line parses, the frames of one side are the frames of
 * the other (same seq, connection reversed), every post that succeeded
 * has exactly one completion, and the off, stderr, %p and bad path cases
 * behave as documented. Two processes tracing into one %p pattern write
 * two files whose frames match each other's.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "provider-conn.h"
#include "provider-util.h"
#include "test.h"

#define ARRAY_N(a)	(sizeof(a) / sizeof((a)[0]))

/* The buffer of each node of the tests that connect two. */
#define TWO_LEN		4096

/* ------------------------------------------------------------------ */
/* Reading a trace                                                     */

#define MAX_KEYS	24

struct tline {
	long		pid;
	char		kind[8];
	char		obj[32];
	char		event[64];
	unsigned	nkeys;
	char		key[MAX_KEYS][24];
	char		val[MAX_KEYS][256];
};

struct trace {
	struct tline	*l;
	unsigned	n;
};

static bool all_digits(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return n > 0;
}

/* The next space-separated column of *@s into @out (@n bytes); 0 or -1. */
static int column(const char **s, char *out, size_t n)
{
	const char *e = strchr(*s, ' ');
	size_t len = e ? (size_t)(e - *s) : strlen(*s);

	if (len == 0 || len >= n)
		return -1;
	memcpy(out, *s, len);
	out[len] = '\0';
	*s += len + (e ? 1 : 0);
	return 0;
}

/*
 * Parses @s as TRACE.md says a parser does: five columns split on
 * spaces, then key=value or key="value" pairs to the end. Returns NULL,
 * or what is wrong.
 */
static const char *parse_line(const char *s, struct tline *t)
{
	static const char *const kinds[] = {
		"api", "state", "tx", "rx", "place", "dto", "event", "error",
		NULL };
	char tm[32], pid[16];
	size_t i;

	memset(t, 0, sizeof(*t));
	if (column(&s, tm, sizeof(tm)) < 0 || strlen(tm) != 15 ||
	    !all_digits(tm, 2) || tm[2] != ':' || !all_digits(tm + 3, 2) ||
	    tm[5] != ':' || !all_digits(tm + 6, 2) || tm[8] != '.' ||
	    !all_digits(tm + 9, 6))
		return "bad TIME";
	if (column(&s, pid, sizeof(pid)) < 0 || !all_digits(pid, strlen(pid)))
		return "bad PID";
	t->pid = atol(pid);
	if (column(&s, t->kind, sizeof(t->kind)) < 0)
		return "no KIND";
	for (i = 0; kinds[i] != NULL && strcmp(kinds[i], t->kind) != 0; i++)
		;
	if (kinds[i] == NULL)
		return "unknown KIND";
	if (column(&s, t->obj, sizeof(t->obj)) < 0)
		return "no OBJECT";
	if (strcmp(t->obj, "-") != 0) {
		for (i = 0; islower((unsigned char)t->obj[i]); i++)
			;
		if (i == 0 || !all_digits(t->obj + i, strlen(t->obj + i)))
			return "OBJECT is not a name like ep3";
	}
	if (column(&s, t->event, sizeof(t->event)) < 0 ||
	    strpbrk(t->event, "=\"") != NULL)
		return "bad EVENT";
	while (*s != '\0') {
		const char *eq = strchr(s, '='), *v, *e;
		size_t klen, vlen;

		if (t->nkeys == MAX_KEYS)
			return "too many keys";
		if (eq == NULL || eq == s || (size_t)(eq - s) >= sizeof(t->key[0]))
			return "a pair without key=";
		klen = (size_t)(eq - s);
		for (i = 0; i < klen; i++)
			if (!islower((unsigned char)s[i]) && s[i] != '_')
				return "a key that is not a word";
		memcpy(t->key[t->nkeys], s, klen);
		t->key[t->nkeys][klen] = '\0';
		v = eq + 1;
		if (*v == '"') {
			v++;
			e = strchr(v, '"');
			if (e == NULL)
				return "an unterminated quoted value";
			vlen = (size_t)(e - v);
			e++;
		} else {
			e = strchr(v, ' ');
			if (e == NULL)
				e = v + strlen(v);
			vlen = (size_t)(e - v);
			if (vlen == 0 || memchr(v, '=', vlen) || memchr(v, '"', vlen))
				return "a bad unquoted value";
		}
		if (vlen >= sizeof(t->val[0]))
			return "a value too long";
		memcpy(t->val[t->nkeys], v, vlen);
		t->val[t->nkeys][vlen] = '\0';
		t->nkeys++;
		if (*e == ' ') {
			if (e[1] == '\0' || e[1] == ' ')
				return "a stray space";
			e++;
		} else if (*e != '\0') {
			return "no space after a value";
		}
		s = e;
	}
	if (strcmp(t->kind, "api") == 0) {
		for (i = 0; i < t->nkeys && strcmp(t->key[i], "ret") != 0; i++)
			;
		if (i == t->nkeys)
			return "an api line without ret=";
	}
	return NULL;
}

/* The value of @key in @t, or NULL. */
static const char *kv(const struct tline *t, const char *key)
{
	unsigned i;

	for (i = 0; i < t->nkeys; i++)
		if (strcmp(t->key[i], key) == 0)
			return t->val[i];
	return NULL;
}

/* Reads and parses the trace file @path; fails the test on a bad line. */
static void trace_load(const char *path, struct trace *tr)
{
	char *text = test_read_file(path), *line, *save = NULL;
	unsigned cap = 256;

	if (text == NULL)
		TEST_FAIL("no trace file %s", path);
	tr->n = 0;
	tr->l = malloc(cap * sizeof(*tr->l));
	ASSERT_NOT_NULL(tr->l);
	ASSERT(text[0] == '\0' || text[strlen(text) - 1] == '\n');
	for (line = strtok_r(text, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *why;

		if (tr->n == cap) {
			cap *= 2;
			tr->l = realloc(tr->l, cap * sizeof(*tr->l));
			ASSERT_NOT_NULL(tr->l);
		}
		why = parse_line(line, &tr->l[tr->n]);
		if (why != NULL)
			TEST_FAIL("%s: %s in line %u: %s", path, why, tr->n + 1, line);
		tr->n++;
	}
	free(text);
}

static void trace_free(struct trace *tr)
{
	free(tr->l);
	tr->l = NULL;
	tr->n = 0;
}

/* Lines of @kind, with @event unless NULL, from @from on; index or -1. */
static int find(const struct trace *tr, int from, const char *kind,
		const char *event)
{
	unsigned i;

	for (i = (unsigned)from; i < tr->n; i++)
		if (strcmp(tr->l[i].kind, kind) == 0 &&
		    (event == NULL || strcmp(tr->l[i].event, event) == 0))
			return (int)i;
	return -1;
}

static unsigned count(const struct trace *tr, const char *kind,
		      const char *event)
{
	unsigned n = 0;
	int i = -1;

	while ((i = find(tr, i + 1, kind, event)) >= 0)
		n++;
	return n;
}

/* The first line of @kind and @event; fails the test if there is none. */
static const struct tline *first(const struct trace *tr, const char *kind,
				 const char *event)
{
	int i = find(tr, 0, kind, event);

	if (i < 0)
		TEST_FAIL("no %s %s line", kind, event);
	return &tr->l[i];
}

/* "A>B" reversed into @out. */
static const char *reversed(const char *conn, char *out, size_t n)
{
	const char *gt = strchr(conn, '>');

	if (gt == NULL)
		return "";
	snprintf(out, n, "%s>%.*s", gt + 1, (int)(gt - conn), conn);
	return out;
}

/*
 * The rx line of @peer for the tx line @t: same EVENT and seq, the
 * connection reversed. Index or -1.
 */
static int peer_of(const struct trace *peer, const struct tline *t,
		   const char *peer_kind)
{
	char rev[256];
	unsigned i;

	ASSERT_NOT_NULL(kv(t, "conn"));
	ASSERT_NOT_NULL(kv(t, "seq"));
	reversed(kv(t, "conn"), rev, sizeof(rev));
	for (i = 0; i < peer->n; i++) {
		const struct tline *p = &peer->l[i];

		if (strcmp(p->kind, peer_kind) == 0 &&
		    strcmp(p->event, t->event) == 0 && kv(p, "conn") &&
		    strcmp(kv(p, "conn"), rev) == 0 && kv(p, "seq") &&
		    strcmp(kv(p, "seq"), kv(t, "seq")) == 0)
			return (int)i;
	}
	return -1;
}

/* Every rx line of @a has its tx line in @b. */
static void check_rx_have_tx(const struct trace *a, const struct trace *b)
{
	int i = -1;

	while ((i = find(a, i + 1, "rx", NULL)) >= 0)
		if (peer_of(b, &a->l[i], "tx") < 0)
			TEST_FAIL("rx line %d (%s seq %s on %s) has no tx line "
				  "on the other side", i + 1, a->l[i].event,
				  kv(&a->l[i], "seq"), kv(&a->l[i], "conn"));
}

/*
 * Exactly once, as the trace sees it: every ep_post_* that returned
 * DAT_SUCCESS has one dto line with its cookie on its EP, and every dto
 * line of an EP a post of it; an SRQ's dto lines each take a buffer
 * srq_post_recv posted (a buffer left in a freed SRQ completes nowhere).
 */
static void check_exactly_once(const struct trace *tr)
{
	unsigned i, j;
	int *used = calloc(tr->n, sizeof(int));

	ASSERT_NOT_NULL(used);
	for (i = 0; i < tr->n; i++) {
		const struct tline *p = &tr->l[i];
		bool srq = strcmp(p->event, "srq_post_recv") == 0;
		unsigned found = 0;

		if (strcmp(p->kind, "api") != 0 ||
		    (strncmp(p->event, "ep_post_", 8) != 0 && !srq) ||
		    strcmp(kv(p, "ret"), "DAT_SUCCESS") != 0)
			continue;
		ASSERT_NOT_NULL(kv(p, "cookie"));
		for (j = 0; j < tr->n && found == 0; j++) {
			const struct tline *d = &tr->l[j];

			if (used[j] || strcmp(d->kind, "dto") != 0 ||
			    strcmp(d->obj, p->obj) != 0 || !kv(d, "cookie") ||
			    strcmp(kv(d, "cookie"), kv(p, "cookie")) != 0)
				continue;
			used[j] = 1;
			found++;
		}
		if (found == 0 && !srq)
			TEST_FAIL("line %u: %s %s cookie %s: no dto line", i + 1,
				  p->obj, p->event, kv(p, "cookie"));
	}
	for (j = 0; j < tr->n; j++)
		if (strcmp(tr->l[j].kind, "dto") == 0 && !used[j] &&
		    strcmp(tr->l[j].event, "BIND") != 0)
			TEST_FAIL("line %u: dto %s %s cookie %s: no post of it",
				  j + 1, tr->l[j].obj, tr->l[j].event,
				  kv(&tr->l[j], "cookie"));
	free(used);
}

/* ------------------------------------------------------------------ */
/* Running the examples                                                */

/*
 * Runs example @name with SOFTDAPL_TRACE=@trace (NULL: unset); it must
 * exit 0. Returns its output (free it).
 */
static char *run_traced(const char *name, const char *trace)
{
	char path[1024], *out = NULL;
	int status;

	sdt_conf("lo");
	test_setenv("SOFTDAPL_TRACE", trace);
	snprintf(path, sizeof(path), "%s/examples/%s", test_builddir(), name);
	ASSERT_OK(test_run_cmdl(60, &status, &out, path, SDT_IA_NAME, NULL));
	test_setenv("SOFTDAPL_TRACE", NULL);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		TEST_FAIL("%s failed:\n%s", name, out);
	return out;
}

/* Runs @name traced into a file of its own and loads the trace. */
static void run_and_load(const char *name, struct trace *tr)
{
	char file[256];

	snprintf(file, sizeof(file), "%s/%s.trace", test_tmpdir(), name);
	unlink(file);
	free(run_traced(name, file));
	trace_load(file, tr);
	ASSERT_GT(tr->n, 10);
}

/* Every example: every line parses, every post completes once. */
TEST_IMPL(trace_examples_parse)
{
	static const char *const names[] = {
		"send-recv", "rdma-write", "rdma-read", "flush", "refused", "srq",
	};
	static const char *const kinds[] = {
		"api", "state", "tx", "rx", "dto", "event",
	};
	size_t i, k;

	for (i = 0; i < ARRAY_N(names); i++) {
		struct trace tr;

		run_and_load(names[i], &tr);
		/* refused never connects: nothing to complete. */
		for (k = 0; k < ARRAY_N(kinds); k++)
			if (count(&tr, kinds[k], NULL) == 0 &&
			    !(i == 4 && strcmp(kinds[k], "dto") == 0))
				TEST_FAIL("%s: no %s line", names[i], kinds[k]);
		check_exactly_once(&tr);
		/* One process, both ends: each frame read was written. */
		check_rx_have_tx(&tr, &tr);
		printf("%s: %u lines\n", names[i], tr.n);
		trace_free(&tr);
	}
	return 0;
}

/*
 * The READ of rdma-read, from the post to the completion, through frames
 * (SOFTDAPL_TRANSPORT=copy: the target answers it).
 */
TEST_IMPL(trace_rdma_read)
{
	const struct tline *post, *req, *resp;
	struct trace tr;
	int i, j;

	test_setenv("SOFTDAPL_TRANSPORT", "copy");
	run_and_load("rdma-read", &tr);
	ASSERT_EQ(count(&tr, "place", NULL), 0);
	i = find(&tr, 0, "api", "ep_post_rdma_read");
	ASSERT_GE(i, 0);
	post = &tr.l[i];
	ASSERT_STR_EQ(kv(post, "ret"), "DAT_SUCCESS");
	ASSERT_STR_EQ(kv(post, "cookie"), "0x7");
	ASSERT_NOT_NULL(kv(post, "rkey"));
	ASSERT_NOT_NULL(kv(post, "raddr"));
	ASSERT_STR_EQ(kv(post, "len"), "32");

	i = find(&tr, i, "tx", "READ_REQ");
	ASSERT_GE(i, 0);
	req = &tr.l[i];
	ASSERT_STR_EQ(req->obj, post->obj);
	ASSERT_STR_EQ(kv(req, "rkey"), kv(post, "rkey"));
	ASSERT_STR_EQ(kv(req, "addr"), kv(post, "raddr"));
	ASSERT_STR_EQ(kv(req, "len"), "32");
	j = peer_of(&tr, req, "rx");
	ASSERT_GE(j, 0);
	ASSERT_STR_NE(tr.l[j].obj, req->obj);
	ASSERT_STR_EQ(kv(&tr.l[j], "rkey"), kv(req, "rkey"));

	/* The responder answers on the same connection, its own numbering. */
	i = find(&tr, j, "tx", "READ_RESP");
	ASSERT_GE(i, 0);
	resp = &tr.l[i];
	ASSERT_STR_EQ(resp->obj, tr.l[j].obj);
	ASSERT_STR_EQ(kv(resp, "conn"), kv(&tr.l[j], "conn"));
	ASSERT_STR_EQ(kv(resp, "bytes"), "64");
	j = peer_of(&tr, resp, "rx");
	ASSERT_GE(j, 0);
	ASSERT_STR_EQ(tr.l[j].obj, post->obj);

	i = find(&tr, j, "dto", "RDMA_READ");
	ASSERT_GE(i, 0);
	ASSERT_STR_EQ(tr.l[i].obj, post->obj);
	ASSERT_STR_EQ(kv(&tr.l[i], "cookie"), "0x7");
	ASSERT_STR_EQ(kv(&tr.l[i], "status"), "DAT_DTO_SUCCESS");
	ASSERT_STR_EQ(kv(&tr.l[i], "len"), "32");
	ASSERT_NOT_NULL(kv(&tr.l[i], "evd"));
	ASSERT_STR_NE(kv(&tr.l[i], "evd"), "none");
	trace_free(&tr);
	return 0;
}

/*
 * The READ of rdma-read by default: both ends on one host, so the
 * initiator reads the target's memory itself. A `place` line between the
 * post and the completion names the triplet and the connection; no frame
 * carries the READ, and the target traces nothing of it.
 */
TEST_IMPL(trace_rdma_read_placed)
{
	const struct tline *post, *pl;
	struct trace tr;
	int i;

	test_setenv("SOFTDAPL_TRANSPORT", NULL);
	run_and_load("rdma-read", &tr);
	i = find(&tr, 0, "api", "ep_post_rdma_read");
	ASSERT_GE(i, 0);
	post = &tr.l[i];
	i = find(&tr, i, "place", "RDMA_READ");
	ASSERT_GE(i, 0);
	pl = &tr.l[i];
	ASSERT_STR_EQ(pl->obj, post->obj);
	ASSERT_STR_EQ(kv(pl, "by"), "initiator");
	ASSERT_STR_EQ(kv(pl, "rkey"), kv(post, "rkey"));
	ASSERT_STR_EQ(kv(pl, "raddr"), kv(post, "raddr"));
	ASSERT_STR_EQ(kv(pl, "len"), "32");
	ASSERT_NOT_NULL(strchr(kv(pl, "conn"), '>'));
	ASSERT_EQ(count(&tr, "tx", "READ_REQ"), 0);
	ASSERT_EQ(count(&tr, "tx", "READ_RESP"), 0);
	i = find(&tr, i, "dto", "RDMA_READ");
	ASSERT_GE(i, 0);
	ASSERT_STR_EQ(tr.l[i].obj, post->obj);
	ASSERT_STR_EQ(kv(&tr.l[i], "status"), "DAT_DTO_SUCCESS");
	trace_free(&tr);
	return 0;
}

/* True when @by is a value TRACE.md allows for by=. */
static bool by_known(const char *by)
{
	return by != NULL && (strcmp(by, "engine") == 0 ||
			      strcmp(by, "consumer") == 0 ||
			      strcmp(by, "initiator") == 0 ||
			      strncmp(by, "dat_", 4) == 0);
}

/*
 * Who does the work (by=, TRACE.md). Over TCP the target of an RDMA
 * read answers it on its engine thread, and no call of the target's
 * consumer takes part; a receive's completion is queued by the engine
 * or by the consumer's thread in the call that moved the EP; an `api`
 * line is its own call's.
 */
TEST_IMPL(trace_who)
{
	const struct tline *req;
	struct trace tr;
	unsigned k;
	int i, j;

	test_setenv("SOFTDAPL_TRANSPORT", "tcp");
	run_and_load("rdma-read", &tr);
	for (k = 0; k < tr.n; k++) {
		const struct tline *t = &tr.l[k];

		if (!by_known(kv(t, "by")))
			TEST_FAIL("line %u (%s %s): by=%s", k, t->kind,
				  t->event, kv(t, "by") ? kv(t, "by") : "none");
		if (strcmp(t->kind, "api") == 0)
			ASSERT_STR_EQ(kv(t, "by") + 4, t->event);
	}
	i = find(&tr, 0, "tx", "READ_REQ");
	ASSERT_GE(i, 0);
	req = &tr.l[i];
	j = peer_of(&tr, req, "rx");
	ASSERT_GE(j, 0);
	ASSERT_STR_EQ(kv(&tr.l[j], "by"), "engine");
	i = find(&tr, j, "tx", "READ_RESP");
	ASSERT_GE(i, 0);
	ASSERT_STR_EQ(kv(&tr.l[i], "by"), "engine");
	/* Nothing of the target's EP between them came from a consumer. */
	for (k = (unsigned)j; k <= (unsigned)i; k++)
		if (strcmp(tr.l[k].obj, tr.l[j].obj) == 0)
			ASSERT_STR_EQ(kv(&tr.l[k], "by"), "engine");
	trace_free(&tr);

	run_and_load("send-recv", &tr);
	i = find(&tr, 0, "dto", "RECEIVE");
	ASSERT_GE(i, 0);
	if (strcmp(kv(&tr.l[i], "by"), "engine") != 0 &&
	    strcmp(kv(&tr.l[i], "by"), "dat_evd_dequeue") != 0 &&
	    strcmp(kv(&tr.l[i], "by"), "dat_evd_wait") != 0)
		TEST_FAIL("RECEIVE by=%s", kv(&tr.l[i], "by"));
	i = find(&tr, 0, "api", "ep_post_recv");
	ASSERT_GE(i, 0);
	ASSERT_STR_EQ(kv(&tr.l[i], "by"), "dat_ep_post_recv");
	/*
	 * What a call with an api line does from its thread is that call's:
	 * the disconnecting side's state change and DISCONNECT frame.
	 */
	i = find(&tr, 0, "api", "ep_disconnect");
	ASSERT_GE(i, 0);
	j = find(&tr, 0, "tx", "DISCONNECT");
	ASSERT_GE(j, 0);
	ASSERT_STR_EQ(tr.l[j].obj, tr.l[i].obj);
	ASSERT_STR_EQ(kv(&tr.l[j], "by"), "dat_ep_disconnect");
	for (k = 0; k < tr.n; k++) {
		const struct tline *t = &tr.l[k];

		if (strcmp(t->kind, "state") == 0 &&
		    strcmp(kv(t, "to"), "DISCONNECT_PENDING") == 0)
			ASSERT_STR_EQ(kv(t, "by"), "dat_ep_disconnect");
		/* Every consumer line names its call. */
		if (strcmp(kv(t, "by"), "consumer") == 0)
			TEST_FAIL("line %u (%s %s %s): by=consumer", k,
				  t->kind, t->obj, t->event);
	}
	trace_free(&tr);
	test_setenv("SOFTDAPL_TRANSPORT", NULL);
	return 0;
}

/* flush: the state changes, and the receives flushed. */
TEST_IMPL(trace_flush)
{
	struct trace tr;
	unsigned flushed = 0, to_disc = 0, connected = 0;
	unsigned i;

	run_and_load("flush", &tr);
	for (i = 0; i < tr.n; i++) {
		const struct tline *t = &tr.l[i];

		if (strcmp(t->kind, "dto") == 0 &&
		    strcmp(kv(t, "status"), "DAT_DTO_ERR_FLUSHED") == 0) {
			ASSERT_STR_EQ(t->event, "RECEIVE");
			ASSERT_STR_EQ(kv(t, "len"), "0");
			flushed++;
		}
		if (strcmp(t->kind, "state") == 0) {
			ASSERT_NOT_NULL(kv(t, "to"));
			ASSERT_NOT_NULL(kv(t, "why"));
			to_disc += strcmp(kv(t, "to"), "DISCONNECTED") == 0;
			connected += strcmp(kv(t, "to"), "CONNECTED") == 0;
		}
	}
	ASSERT_GE(flushed, 2);
	ASSERT_GE(to_disc, 2);
	ASSERT_EQ(connected, 2);
	trace_free(&tr);
	return 0;
}

/* refused: nobody listening, then a consumer's reject. */
TEST_IMPL(trace_refused)
{
	struct trace tr;
	int i, j;

	run_and_load("refused", &tr);
	i = find(&tr, 0, "tx", "REJECT");
	ASSERT_GE(i, 0);
	ASSERT_STR_EQ(kv(&tr.l[i], "reason"), "consumer");
	ASSERT_STR_EQ(tr.l[i].obj, "-");
	j = peer_of(&tr, &tr.l[i], "rx");
	ASSERT_GE(j, 0);
	ASSERT_STR_EQ(kv(&tr.l[j], "pdata"), kv(&tr.l[i], "pdata"));
	ASSERT_GE(find(&tr, j, "event", "DAT_CONNECTION_EVENT_PEER_REJECTED"), 0);
	ASSERT_GE(find(&tr, 0, "event", "DAT_CONNECTION_EVENT_NON_PEER_REJECTED"), 0);
	/* The passive side's HELLO, before an EP is known, names its PSP. */
	i = find(&tr, 0, "rx", "HELLO");
	ASSERT_GE(i, 0);
	ASSERT_STR_EQ(tr.l[i].obj, "-");
	ASSERT_NOT_NULL(kv(&tr.l[i], "sp"));
	trace_free(&tr);
	return 0;
}

/* Unset, empty or 0: no file, nothing more on the output. */
TEST_IMPL(trace_off)
{
	static const char *const values[] = { NULL, "", "0" };
	size_t i;

	for (i = 0; i < ARRAY_N(values); i++) {
		char *out = run_traced("send-recv", values[i]);
		DIR *d;
		struct dirent *e;

		ASSERT(strstr(out, "softdapl:") == NULL);
		ASSERT(strstr(out, " api ") == NULL);
		ASSERT_STR_CONTAINS(out, "send-recv: ok");
		free(out);
		/* The test's directory holds dat.conf, nothing the trace made. */
		d = opendir(test_tmpdir());
		ASSERT_NOT_NULL(d);
		while ((e = readdir(d)) != NULL)
			if (e->d_name[0] != '.' && strcmp(e->d_name, "dat.conf") != 0)
				TEST_FAIL("%s appeared with SOFTDAPL_TRACE=%s",
					  e->d_name, values[i] ? values[i] : "(unset)");
		closedir(d);
	}
	return 0;
}

/* A path that cannot be opened: one message, the program goes on. */
TEST_IMPL(trace_bad_path)
{
	char *out = run_traced("send-recv", "/nonexistent/dir/x");
	const char *msg = "softdapl: SOFTDAPL_TRACE=/nonexistent/dir/x: "
			  "No such file or directory; tracing stays off\n";
	const char *p = strstr(out, msg);

	ASSERT_NOT_NULL(p);
	ASSERT_NULL(strstr(p + strlen(msg), "SOFTDAPL_TRACE"));
	ASSERT_NULL(strstr(out, "softdapl: SOFTDAPL_TRACE") == p ? NULL : out);
	ASSERT(strstr(out, " api ") == NULL);
	ASSERT_STR_CONTAINS(out, "send-recv: ok");
	free(out);
	return 0;
}

/* %p is the process id; 1 writes to stderr. */
TEST_IMPL(trace_pid_and_stderr)
{
	struct trace tr;
	struct dirent *e;
	char file[512] = "", *out, *line, *save = NULL;
	long pid = 0;
	unsigned i, lines = 0;
	DIR *d;

	free(run_traced("rdma-write", "tp.%p.log"));
	d = opendir(test_tmpdir());
	ASSERT_NOT_NULL(d);
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "tp.", 3) != 0)
			continue;
		ASSERT_STR_EQ(file, "");	/* one file only */
		snprintf(file, sizeof(file), "%s", e->d_name);
		pid = atol(e->d_name + 3);
	}
	closedir(d);
	ASSERT_GT(pid, 0);
	ASSERT_STR_EQ(strchr(file + 3, '.'), ".log");
	trace_load(file, &tr);
	ASSERT_GT(tr.n, 10);
	for (i = 0; i < tr.n; i++)
		ASSERT_EQ(tr.l[i].pid, pid);
	trace_free(&tr);

	out = run_traced("rdma-write", "1");
	for (line = strtok_r(out, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		struct tline t;

		if (parse_line(line, &t) == NULL)
			lines++;
	}
	free(out);
	ASSERT_GT(lines, 10);
	return 0;
}

/*
 * Tracing allocates nothing either: test-provider-alloc.c's probe (100,000
 * posts and completions, each traced) with the trace on (into /dev/null:
 * a file would take hundreds of MB; the write is the same).
 */
TEST_IMPL(trace_allocates_nothing)
{
	char lib[1024], *out = NULL;
	int status;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	TEST_SKIP("the sanitizers own malloc: nothing to preload");
#endif
	snprintf(lib, sizeof(lib), "%s/libcountalloc.so", test_builddir());
	sdt_conf(NULL);
	test_setenv("LD_PRELOAD", lib);
	test_setenv("SOFTDAPL_TRACE", "/dev/null");
	ASSERT_OK(test_run_cmdl(300, &status, &out, test_self_exe(), "--helper",
				"alloc_probe", NULL));
	test_setenv("LD_PRELOAD", NULL);
	test_setenv("SOFTDAPL_TRACE", NULL);
	printf("%s", out);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		TEST_FAIL("the data path allocated while tracing:\n%s", out);
	ASSERT_STR_CONTAINS(out, "allocations during 100000 posts and completions: 0");
	free(out);
	return 0;
}

/* ------------------------------------------------------------------ */
/* In this process: a refused frame, a message                         */

/*
 * Opens our IA with SOFTDAPL_TRACE=@file (read when the provider loads,
 * which is now: this process has not loaded it yet) and connects two
 * nodes of it.
 */
static DAT_IA_HANDLE open_traced(const char *file, struct sdt_node *cli,
				 struct sdt_node *srv)
{
	DAT_IA_HANDLE ia;

	unlink(file);
	test_setenv("SOFTDAPL_TRACE", file);
	ia = sdt_open_ia("lo", NULL);
	test_setenv("SOFTDAPL_TRACE", NULL);
	sdt_node_init(cli, ia, NULL, TWO_LEN);
	sdt_node_init(srv, ia, NULL, TWO_LEN);
	sdt_connect(cli, srv);
	return ia;
}

/* An RDMA write to a context nobody has: rx WRITE bad=, then the end. */
TEST_IMPL(trace_refused_write)
{
	struct sdt_node cli, srv;
	DAT_LMR_TRIPLET l;
	DAT_RMR_TRIPLET r;
	DAT_DTO_COOKIE ck;
	DAT_IA_HANDLE ia;
	struct trace tr;
	const struct tline *rx;
	int i;

	ia = open_traced("w.trace", &cli, &srv);
	l = sdt_iov(&cli, 0, 64);
	r = sdt_rmr(&srv, 0, 64);
	r.rmr_context ^= 0x5a5a5a;
	ck.as_64 = 9;
	ASSERT_OK(dat_ep_post_rdma_write(cli.ep, 1, &l, ck, &r,
					 DAT_COMPLETION_DEFAULT_FLAG));
	sdt_expect_dto(cli.req_evd, DAT_DTO_ERR_REMOTE_ACCESS,
		       DAT_DTO_RDMA_WRITE, 9);
	sdt_expect_conn(cli.conn_evd, DAT_CONNECTION_EVENT_BROKEN);
	sdt_expect_conn(srv.conn_evd, DAT_CONNECTION_EVENT_BROKEN);
	sdt_node_fini(&cli);
	sdt_node_fini(&srv);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));

	trace_load("w.trace", &tr);
	rx = first(&tr, "rx", "WRITE");
	ASSERT_STR_EQ(kv(rx, "bad"), "rkey unknown");
	i = (int)(rx - tr.l);
	/* The responder's error follows: TERMINATE, then DISCONNECTED. */
	i = find(&tr, i, "tx", "TERMINATE");
	ASSERT_GE(i, 0);
	ASSERT_STR_EQ(tr.l[i].obj, rx->obj);
	ASSERT_GE(peer_of(&tr, &tr.l[i], "rx"), 0);
	/* (The peer's lines may come between: another thread writes them.) */
	while ((i = find(&tr, i + 1, "state", "CONNECTED")) >= 0 &&
	       strcmp(tr.l[i].obj, rx->obj) != 0)
		;
	ASSERT_GE(i, 0);
	ASSERT_STR_EQ(kv(&tr.l[i], "to"), "DISCONNECTED");
	ASSERT_STR_EQ(kv(&tr.l[i], "why"), "rkey unknown");
	i = find(&tr, 0, "dto", "RDMA_WRITE");
	ASSERT_GE(i, 0);
	ASSERT_STR_EQ(kv(&tr.l[i], "status"), "DAT_DTO_ERR_REMOTE_ACCESS");
	ASSERT_STR_EQ(kv(&tr.l[i], "cookie"), "0x9");
	check_exactly_once(&tr);
	check_rx_have_tx(&tr, &tr);
	trace_free(&tr);
	return 0;
}

/* How many api lines of @call the trace has. */
static size_t count_calls(const struct trace *tr, const char *call)
{
	size_t n = 0;
	int i = 0;

	while ((i = find(tr, i, "api", call)) >= 0) {
		n++;
		i++;
	}
	return n;
}

/*
 * An EVD's state changes (enabled, waitable) are state lines, each after
 * its call's api line comes: why= names the call.
 */
TEST_IMPL(trace_evd_states)
{
	static const char *const want[][3] = {
		{ "ENABLED|WAITABLE", "DISABLED|WAITABLE", "dat_evd_disable" },
		{ "DISABLED|WAITABLE", "DISABLED|UNWAITABLE", "dat_evd_set_unwaitable" },
		{ "DISABLED|UNWAITABLE", "DISABLED|WAITABLE", "dat_evd_clear_unwaitable" },
		{ "DISABLED|WAITABLE", "ENABLED|WAITABLE", "dat_evd_enable" },
	};
	DAT_EVD_HANDLE evd;
	DAT_IA_HANDLE ia;
	struct trace tr;
	int i = 0;
	size_t k;

	unlink("e.trace");
	test_setenv("SOFTDAPL_TRACE", "e.trace");
	ia = sdt_open_ia("lo", NULL);
	test_setenv("SOFTDAPL_TRACE", NULL);
	ASSERT_OK(dat_evd_create(ia, 4, DAT_HANDLE_NULL, DAT_EVD_SOFTWARE_FLAG,
				 &evd));
	ASSERT_OK(dat_evd_disable(evd));
	ASSERT_OK(dat_evd_disable(evd));	/* no change: no line */
	ASSERT_OK(dat_evd_set_unwaitable(evd));
	ASSERT_OK(dat_evd_clear_unwaitable(evd));
	ASSERT_OK(dat_evd_enable(evd));
	ASSERT_OK(dat_evd_resize(evd, 8));
	ASSERT_OK(dat_evd_free(evd));
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));

	trace_load("e.trace", &tr);
	ASSERT_GE(find(&tr, 0, "api", "evd_create"), 0);
	for (k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		i = find(&tr, i, "state", want[k][0]);
		ASSERT_GE(i, 0);
		ASSERT_STR_EQ(tr.l[i].obj, first(&tr, "api", "evd_create")->obj);
		ASSERT_STR_EQ(kv(&tr.l[i], "to"), want[k][1]);
		ASSERT_STR_EQ(kv(&tr.l[i], "why"), want[k][2]);
		/* Its call's api line follows. */
		ASSERT_STR_EQ(tr.l[i + 1].kind, "api");
		ASSERT_STR_EQ(tr.l[i + 1].event, want[k][2] + 4);
		i++;
	}
	/* The second disable changed nothing: one state line per change. */
	for (k = 0, i = 0; (i = find(&tr, i, "state", "ENABLED|WAITABLE")) >= 0;
	     i++)
		k += strcmp(kv(&tr.l[i], "to"), "DISABLED|WAITABLE") == 0;
	ASSERT_EQ(k, 1);
	ASSERT_EQ(count_calls(&tr, "evd_disable"), 2);
	i = find(&tr, 0, "api", "evd_resize");
	ASSERT_GE(i, 0);
	ASSERT_STR_EQ(kv(&tr.l[i], "qlen"), "8");
	ASSERT_STR_EQ(kv(&tr.l[i], "ret"), "DAT_SUCCESS");
	trace_free(&tr);
	return 0;
}

/*
 * A completion lost to an overflow is not silent (evq.h,
 * sd_evq_post): a receive EVD of four events (its evd_qlen) gets two
 * receive completions more than it holds. The EVD's state line says
 * OVERFLOWED, the async event names it, and exactly the completions it
 * could not hold have dto lines with dropped=overflow.
 */
TEST_IMPL(trace_overflow_dropped)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL, tiny;
	struct sdt_node cli, srv;
	DAT_EP_PARAM ep_param;
	DAT_EVD_PARAM p;
	DAT_IA_HANDLE ia;
	DAT_COUNT n, i, kept = 0, lost = 0;
	DAT_EVENT ev;
	struct trace tr;
	char name[32];
	unsigned k;
	int j = 0;

	unlink("o.trace");
	test_setenv("SOFTDAPL_TRACE", "o.trace");
	ia = sdt_open_ia("lo", &async);
	test_setenv("SOFTDAPL_TRACE", NULL);
	ASSERT_OK(dat_evd_create(ia, 4, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG,
				 &tiny));
	ASSERT_OK(dat_evd_query(tiny, DAT_EVD_FIELD_EVD_QLEN, &p));
	n = p.evd_qlen + 2;
	sdt_node_init(&cli, ia, NULL, TWO_LEN);
	sdt_node_init(&srv, ia, NULL, TWO_LEN);
	ASSERT_LE((size_t)n * 64, (size_t)TWO_LEN);
	memset(&ep_param, 0, sizeof(ep_param));
	ep_param.recv_evd_handle = tiny;
	ASSERT_OK(dat_ep_modify(srv.ep, DAT_EP_FIELD_RECV_EVD_HANDLE,
				&ep_param));
	sdt_connect(&cli, &srv);
	for (i = 0; i < n; i++)
		ASSERT_OK(sdt_recv(&srv, (size_t)i * 64, 64, 100 + i));
	for (i = 0; i < n; i++)
		ASSERT_OK(sdt_send(&cli, (size_t)i * 16, 16, 200 + i,
				   DAT_COMPLETION_DEFAULT_FLAG));
	for (i = 0; i < n; i++)
		sdt_expect_dto(cli.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND,
			       200 + i);
	ev = sdt_wait(async, 10000);
	ASSERT_EQ(ev.event_number, DAT_ASYNC_ERROR_EVD_OVERFLOW);
	ASSERT_PTR_EQ(ev.event_data.asynch_error_event_data.dat_handle, tiny);
	sdt_disconnect(&cli, &srv);
	sdt_node_fini(&cli);
	sdt_node_fini(&srv);
	ASSERT_OK(dat_evd_free(tiny));
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));

	trace_load("o.trace", &tr);
	k = (unsigned)find(&tr, 0, "event", "DAT_ASYNC_ERROR_EVD_OVERFLOW");
	ASSERT_GE((int)k, 0);
	snprintf(name, sizeof(name), "%s", kv(&tr.l[k], "handle"));
	for (j = 0; (j = find(&tr, j, "state", "ENABLED|WAITABLE")) >= 0; j++)
		if (strcmp(tr.l[j].obj, name) == 0)
			break;
	ASSERT_GE(j, 0);
	ASSERT_STR_EQ(kv(&tr.l[j], "to"), "ENABLED|WAITABLE|OVERFLOWED");
	for (k = 0; k < tr.n; k++) {
		const struct tline *t = &tr.l[k];
		unsigned long long cookie;

		if (strcmp(t->kind, "dto") != 0 ||
		    strcmp(t->event, "RECEIVE") != 0 ||
		    strcmp(kv(t, "evd"), name) != 0 ||
		    strcmp(kv(t, "status"), "DAT_DTO_SUCCESS") != 0)
			continue;
		cookie = strtoull(kv(t, "cookie"), NULL, 16);
		if (cookie < 100 + (unsigned long long)p.evd_qlen) {
			ASSERT_NULL(kv(t, "dropped"));
			kept++;
		} else {
			ASSERT_NOT_NULL(kv(t, "dropped"));
			ASSERT_STR_EQ(kv(t, "dropped"), "overflow");
			lost++;
		}
	}
	ASSERT_EQ(kept, p.evd_qlen);
	ASSERT_EQ(lost, n - p.evd_qlen);
	check_exactly_once(&tr);
	trace_free(&tr);
	return 0;
}

/* What the provider prints on stderr is an error line too. */
TEST_IMPL(trace_error_line)
{
	struct sdt_node cli, srv;
	DAT_IA_HANDLE ia;
	DAT_EVENT ev;
	struct trace tr;
	const struct tline *e;
	int k;

	test_setenv("SOFTDAPL_FAULT", "drop_after=3");
	ia = open_traced("e.trace", &cli, &srv);
	test_setenv("SOFTDAPL_FAULT", NULL);
	for (k = 0; k < 8; k++)
		ASSERT_OK(sdt_recv(&srv, (size_t)k * 64, 64, 100 + (uint64_t)k));
	for (k = 0; k < 8; k++)
		ASSERT_OK(sdt_send(&cli, (size_t)k * 64, 64, 200 + (uint64_t)k,
				   DAT_COMPLETION_DEFAULT_FLAG));
	ev = sdt_wait(cli.conn_evd, 10000);
	ASSERT_NE(ev.event_number, DAT_CONNECTION_EVENT_ESTABLISHED);
	sdt_node_fini(&cli);
	sdt_node_fini(&srv);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));

	trace_load("e.trace", &tr);
	e = first(&tr, "error", "message");
	ASSERT_STR_EQ(e->obj, "-");
	ASSERT_NOT_NULL(kv(e, "msg"));
	ASSERT_STR_CONTAINS(kv(e, "msg"), "fault: ep");
	ASSERT_STR_CONTAINS(kv(e, "msg"), "cut after 3 frames (drop_after)");
	check_exactly_once(&tr);
	trace_free(&tr);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Two processes                                                       */

/* trace_server: accepts one connection, answers one SEND, waits for the end. */
HELPER_IMPL(trace_server)
{
	struct sdt_node n;
	DAT_IA_HANDLE ia;
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_CR_HANDLE cr;
	char name[] = SDT_IA_NAME;

	ASSERT_OK(dat_ia_open(name, 8, &async, &ia));
	sdt_node_init(&n, ia, NULL, TWO_LEN);
	ASSERT_OK(sdt_recv(&n, 0, 64, 1));
	ASSERT_OK(dat_psp_create_any(ia, &n.port, n.cr_evd,
				     DAT_PSP_CONSUMER_FLAG, &n.psp));
	test_helper_ready("%llu", (unsigned long long)n.port);
	cr = sdt_expect_cr(n.cr_evd, NULL);
	ASSERT_OK(dat_cr_accept(cr, n.ep, 0, NULL));
	sdt_expect_conn(n.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	sdt_expect_dto(n.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 1);
	ASSERT_OK(sdt_send(&n, 0, 64, 2, DAT_COMPLETION_DEFAULT_FLAG));
	sdt_expect_dto(n.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 2);
	sdt_expect_conn(n.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	sdt_node_fini(&n);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* trace_client PORT: SEND, receive the answer, RDMA READ it back, leave. */
HELPER_IMPL(trace_client)
{
	struct sdt_node n;
	DAT_IA_HANDLE ia;
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	char name[] = SDT_IA_NAME;

	ASSERT_EQ(argc, 2);
	ASSERT_OK(dat_ia_open(name, 8, &async, &ia));
	sdt_node_init(&n, ia, NULL, TWO_LEN);
	ASSERT_OK(sdt_recv(&n, 1024, 64, 3));
	sdt_connect_to(ia, n.ep, strtoull(argv[1], NULL, 10),
		       (DAT_TIMEOUT)(10000000 * test_timeout_scale()));
	sdt_expect_conn(n.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	ASSERT_OK(sdt_send(&n, 0, 64, 4, DAT_COMPLETION_DEFAULT_FLAG));
	sdt_expect_dto(n.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 4);
	sdt_expect_dto(n.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 3);
	ASSERT_OK(dat_ep_disconnect(n.ep, DAT_CLOSE_GRACEFUL_FLAG));
	sdt_expect_conn(n.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	sdt_node_fini(&n);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* Two processes, one pattern: two files whose frames match. */
TEST_IMPL(trace_two_processes)
{
	test_helper_t *srv, *cli;
	struct trace ts, tc;
	const char *line;
	char fs[512], fc[512];
	int status;

	sdt_conf("lo");
	test_setenv("SOFTDAPL_TRACE", "two.%p");
	srv = test_spawn_helper("trace_server", NULL);
	ASSERT_OK(test_helper_wait_ready(srv, &line));
	cli = test_spawn_helper("trace_client", line, NULL);
	test_setenv("SOFTDAPL_TRACE", NULL);
	ASSERT_OK(test_helper_wait(cli, 60, &status));
	ASSERT_EXIT_OK(status);
	ASSERT_OK(test_helper_wait(srv, 60, &status));
	ASSERT_EXIT_OK(status);
	snprintf(fs, sizeof(fs), "two.%ld", (long)test_helper_pid(srv));
	snprintf(fc, sizeof(fc), "two.%ld", (long)test_helper_pid(cli));
	test_helper_free(srv);
	test_helper_free(cli);

	trace_load(fs, &ts);
	trace_load(fc, &tc);
	ASSERT_GE(count(&ts, "rx", NULL), 4);	/* HELLO, RTU, SEND, DISCONNECT */
	ASSERT_GE(count(&tc, "rx", NULL), 3);	/* ACCEPT, SEND, DISCONNECT */
	check_rx_have_tx(&ts, &tc);
	check_rx_have_tx(&tc, &ts);
	/* And the other way: the handshake and the SENDs arrived. */
	ASSERT_GE(peer_of(&ts, first(&tc, "tx", "HELLO"), "rx"), 0);
	ASSERT_GE(peer_of(&tc, first(&ts, "tx", "ACCEPT"), "rx"), 0);
	ASSERT_GE(peer_of(&ts, first(&tc, "tx", "SEND"), "rx"), 0);
	ASSERT_GE(peer_of(&tc, first(&ts, "tx", "SEND"), "rx"), 0);
	check_exactly_once(&ts);
	check_exactly_once(&tc);
	trace_free(&ts);
	trace_free(&tc);
	return 0;
}
