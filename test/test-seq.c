/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tools/softdapl-seq: traces (provider/TRACE.md) drawn as sequence
 * diagrams. The fixtures below are written by hand after TRACE.md: a
 * client (pid 100) and a server (pid 200) in two files, the server's clock
 * running behind, with a handshake, an RDMA read, a send, a lost write, a
 * disconnect that flushes a receive, an rx whose tx is missing and two
 * lines that are not trace lines. The pages are opened in headless
 * Chromium, which runs the page's self-check; seq_real_* draw what the
 * provider itself writes when an example runs with SOFTDAPL_TRACE, and
 * seq_causal_* and seq_time_fold what it writes in this process (a late
 * receive, a disconnect, a barrier fence), checking that every row comes
 * after its causes and that waits show.
 */
#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "provider-conn.h"
#include "provider-util.h"
#include "test.h"

#define C_CONN "conn=127.0.0.1:50312>127.0.0.1:4791"
#define S_CONN "conn=127.0.0.1:4791>127.0.0.1:50312"
#define NOTAG "tag=4294967295 code=0"

static const char client_trace[] =
"12:00:00.000100 100 api ia1 ia_open ret=DAT_SUCCESS\n"
"12:00:00.000200 100 api ep1 ep_create ret=DAT_SUCCESS pz=pz1 evd=evd2\n"
"12:00:00.000300 100 api ep1 ep_connect ret=DAT_SUCCESS addr=127.0.0.1 "
	"port=4791 pdata=0\n"
"12:00:00.000310 100 state ep1 UNCONNECTED to=ACTIVE_CONNECTION_PENDING "
	"why=dat_ep_connect\n"
"12:00:00.000400 100 tx ep1 HELLO " C_CONN " seq=0 bytes=40 pdata=0 "
	"qual=4791\n"
"12:00:00.000900 100 rx ep1 ACCEPT " C_CONN " seq=0 bytes=40 pdata=0\n"
"12:00:00.000950 100 tx ep1 RTU " C_CONN " seq=1 bytes=40 pdata=0\n"
"12:00:00.000960 100 state ep1 ACTIVE_CONNECTION_PENDING to=CONNECTED "
	"why=\"handshake done\"\n"
"12:00:00.000970 100 event evd2 DAT_CONNECTION_EVENT_ESTABLISHED ep=ep1\n"
"12:00:00.001000 100 api ep1 ep_post_rdma_read ret=DAT_SUCCESS cookie=0x7 "
	"len=32 segs=1 rkey=0x1a2b raddr=0x5000 rlen=32 flags=DEFAULT\n"
"12:00:00.001010 100 tx ep1 READ_REQ " C_CONN " seq=2 bytes=32 len=32 ack=0 "
	"rkey=0x1a2b addr=0x5000 tag=0 code=0\n"
"12:00:00.001500 100 rx ep1 READ_RESP " C_CONN " seq=1 bytes=64 len=32 "
	"ack=1 rkey=0x0 addr=0x0 tag=0 code=0\n"
"12:00:00.001510 100 dto ep1 RDMA_READ evd=evd2 cookie=0x7 "
	"status=DAT_DTO_SUCCESS len=32\n"
"12:00:00.001600 100 api ep1 ep_post_send ret=DAT_SUCCESS cookie=0x8 "
	"len=20 segs=1 flags=DEFAULT\n"
"12:00:00.001610 100 tx ep1 SEND " C_CONN " seq=3 bytes=52 len=20 ack=1 "
	"rkey=0x0 addr=0x0 " NOTAG "\n"
"12:00:00.001660 100 rx ep1 ACK " C_CONN " seq=2 bytes=32 len=0 ack=2 "
	"rkey=0x0 addr=0x0 " NOTAG "\n"
"12:00:00.001670 100 dto ep1 SEND evd=evd2 cookie=0x8 "
	"status=DAT_DTO_SUCCESS len=20\n"
"12:00:00.001700 100 api ep1 ep_post_rdma_write ret=DAT_SUCCESS cookie=0x9 "
	"len=16 segs=1 rkey=0x3c4d raddr=0x6000 rlen=16 flags=DEFAULT\n"
"12:00:00.001710 100 tx ep1 WRITE " C_CONN " seq=4 bytes=48 len=16 ack=1 "
	"rkey=0x3c4d addr=0x6000 " NOTAG "\n"
"12:00:00.002200 100 api ep1 ep_disconnect ret=DAT_SUCCESS flags=ABRUPT\n"
"12:00:00.002210 100 state ep1 CONNECTED to=DISCONNECTED "
	"why=dat_ep_disconnect\n"
"12:00:00.002220 100 tx ep1 DISCONNECT " C_CONN " seq=5 bytes=32 len=0 "
	"ack=1 rkey=0x0 addr=0x0 " NOTAG "\n"
"12:00:00.002230 100 dto ep1 RDMA_WRITE evd=evd2 cookie=0x9 "
	"status=DAT_DTO_ERR_FLUSHED len=0\n"
"12:00:00.002240 100 event evd2 DAT_CONNECTION_EVENT_DISCONNECTED ep=ep1\n"
"12:00:00.002250 100 api ep1 ep_post_send ret=DAT_INVALID_STATE "
	"cookie=0xa len=4 segs=1 flags=DEFAULT\n"
"12:00:00.002300 100 api ep1 ep_free ret=DAT_SUCCESS\n";

/* Its clock is behind: its rx lines carry times before their tx. */
static const char server_trace[] =
"11:59:59.999000 200 api psp1 psp_create ret=DAT_SUCCESS port=4791 "
	"evd=evd1\n"
"11:59:59.999100 200 api ep1 ep_create ret=DAT_SUCCESS pz=pz1 evd=evd2\n"
"11:59:59.999200 200 api ep1 ep_post_recv ret=DAT_SUCCESS cookie=0x1 "
	"len=64 segs=1 flags=DEFAULT\n"
"11:59:59.999210 200 api ep1 ep_post_recv ret=DAT_SUCCESS cookie=0x2 "
	"len=64 segs=1 flags=DEFAULT\n"
"12:00:00.000200 200 rx - HELLO " S_CONN " seq=0 bytes=40 pdata=0 "
	"qual=4791 sp=psp1\n"
"12:00:00.000210 200 event evd1 DAT_CONNECTION_REQUEST_EVENT cr=cr1 "
	"sp=psp1\n"
"12:00:00.000300 200 api cr1 cr_accept ret=DAT_SUCCESS ep=ep1 pdata=0\n"
"12:00:00.000310 200 state ep1 UNCONNECTED to=PASSIVE_CONNECTION_PENDING "
	"why=dat_cr_accept\n"
"12:00:00.000320 200 tx ep1 ACCEPT " S_CONN " seq=0 bytes=40 pdata=0\n"
"12:00:00.000700 200 rx ep1 RTU " S_CONN " seq=1 bytes=40 pdata=0\n"
"12:00:00.000710 200 state ep1 PASSIVE_CONNECTION_PENDING to=CONNECTED "
	"why=\"handshake done\"\n"
"12:00:00.000720 200 event evd2 DAT_CONNECTION_EVENT_ESTABLISHED ep=ep1\n"
"12:00:00.000750 200 rx ep1 READ_REQ " S_CONN " seq=2 bytes=32 len=32 "
	"ack=0 rkey=0x1a2b addr=0x5000 tag=0 code=0\n"
"12:00:00.000760 200 tx ep1 READ_RESP " S_CONN " seq=1 bytes=64 len=32 "
	"ack=1 rkey=0x0 addr=0x0 tag=0 code=0\n"
"12:00:00.001320 200 rx ep1 SEND " S_CONN " seq=3 bytes=52 len=20 ack=1 "
	"rkey=0x0 addr=0x0 " NOTAG "\n"
"12:00:00.001330 200 dto ep1 RECEIVE evd=evd2 cookie=0x1 "
	"status=DAT_DTO_SUCCESS len=20\n"
"12:00:00.001340 200 tx ep1 ACK " S_CONN " seq=2 bytes=32 len=0 ack=2 "
	"rkey=0x0 addr=0x0 " NOTAG "\n"
"this is not a trace line\n"
"12:00:00.001400 200 warp ep1 FOO x=1\n"
"12:00:00.002000 200 rx ep1 DISCONNECT " S_CONN " seq=5 bytes=32 len=0 "
	"ack=1 rkey=0x0 addr=0x0 " NOTAG "\n"
"12:00:00.002010 200 state ep1 CONNECTED to=DISCONNECTED "
	"why=\"peer closed\"\n"
"12:00:00.002020 200 dto ep1 RECEIVE evd=evd2 cookie=0x2 "
	"status=DAT_DTO_ERR_FLUSHED len=0\n"
"12:00:00.002030 200 event evd2 DAT_CONNECTION_EVENT_DISCONNECTED ep=ep1\n"
"12:00:00.002040 200 rx ep1 ACK " S_CONN " seq=6 bytes=32 len=0 ack=3 "
	"rkey=0x0 addr=0x0 " NOTAG "\n";

static const char *seq_tool(void)
{
	static char path[1024];

	snprintf(path, sizeof(path), "%s/../tools/softdapl-seq",
		 test_builddir());
	return path;
}

/*
 * Runs softdapl-seq with the NULL-terminated arguments; returns its exit
 * status, and its output (stdout and stderr) in *out (free it).
 */
static int run_seq(char **out, ...)
{
	const char *argv[32];
	va_list ap;
	int n = 0, status;

	argv[n++] = seq_tool();
	va_start(ap, out);
	while ((argv[n] = va_arg(ap, const char *)) != NULL && n < 30)
		n++;
	va_end(ap);
	argv[n] = NULL;
	ASSERT_OK(test_run_cmd(60, &status, out, argv));
	ASSERT(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void write_fixture(void)
{
	test_write_file("client.trace", client_trace);
	test_write_file("server.trace", server_trace);
}

/*
 * strstr by hand: ASan's strstr measures the whole haystack at each call,
 * which makes searching a long page again and again quadratic.
 */
static const char *find(const char *s, const char *needle)
{
	size_t n = strlen(needle);

	for (; *s; s++)
		if (*s == needle[0] && strncmp(s, needle, n) == 0)
			return s;
	return NULL;
}

/* Occurrences of @needle in @s. */
static int count(const char *s, const char *needle)
{
	int n = 0;

	while ((s = find(s, needle)) != NULL) {
		n++;
		s += strlen(needle);
	}
	return n;
}

/* The group that starts with @open (<g class="frame ...">...</g>) whose
 * attributes contain all of @a and @b; a malloc'd copy, or NULL. */
static char *find_group(const char *doc, const char *open, const char *a,
			const char *b)
{
	const char *p = doc;

	while ((p = strstr(p, open)) != NULL) {
		const char *gt = strchr(p, '>'), *end = strstr(p, "</g>");
		size_t head = gt ? (size_t)(gt - p) : 0;

		if (gt == NULL || end == NULL)
			return NULL;
		if (memmem(p, head, a, strlen(a)) != NULL &&
		    (b == NULL || memmem(p, head, b, strlen(b)) != NULL))
			return strndup(p, (size_t)(end - p));
		p = end;
	}
	return NULL;
}

static char *find_frame(const char *doc, const char *a, const char *b)
{
	return find_group(doc, "<g class=\"frame ", a, b);
}

/* An RDMA placed by its initiator: <g class="place arrow|note ...">. */
static char *find_place(const char *doc, const char *a, const char *b)
{
	return find_group(doc, "<g class=\"place ", a, b);
}

/* The integer value of attribute @name="N" in the element at @s, or -1. */
static long attr(const char *s, const char *name)
{
	char key[64], elem[512];
	const char *p;
	size_t n;

	for (n = 0; n < sizeof(elem) - 1 && s[n] && s[n] != '>'; n++)
		elem[n] = s[n];
	elem[n] = '\0';
	snprintf(key, sizeof(key), " %s=\"", name);
	p = strstr(elem, key);
	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

/* Every arrow of a frame (a <line> in a frame group) goes down or across. */
static int arrows_go_down(const char *doc)
{
	const char *p = doc;
	int n = 0;

	while ((p = find(p, "<g class=\"frame ")) != NULL) {
		const char *l = find(p, "<line ");

		ASSERT_NOT_NULL(l);
		ASSERT_GE(attr(l, "y1"), 0);
		if (attr(l, "y2") < attr(l, "y1"))
			TEST_FAIL("an arrow goes up: %.300s", p);
		n++;
		p = l;
	}
	return n;
}

/*
 * The files of @paths (NULL-terminated) are well-formed XML (an SVG that
 * is not does not show at all): checked with python3's parser when there
 * is one.
 */
static void check_xmlv(const char *const paths[])
{
	const char *argv[16] = { "python3", "-c",
		"import sys, xml.etree.ElementTree as E\n"
		"for p in sys.argv[1:]: E.parse(p)\n" };
	char *out;
	int status, n = 3;

	if (test_find_program("python3") == NULL)
		return;
	while (*paths != NULL && n < 15)
		argv[n++] = *paths++;
	argv[n] = NULL;
	ASSERT_OK(test_run_cmd(60, &status, &out, argv));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		TEST_FAIL("not well-formed XML:\n%s", out);
	free(out);
}

static void check_xml(const char *path)
{
	const char *paths[] = { path, NULL };

	check_xmlv(paths);
}

/* What every drawing of the fixture holds. */
static void check_fixture_drawing(const char *doc)
{
	char *f;

	/* Lifelines: the two EPs, the service point, the client's process. */
	ASSERT_EQ(count(doc, "<g class=\"lifeline "), 4);
	ASSERT_EQ(count(doc, "<g class=\"lifeline ep\""), 2);
	ASSERT_STR_CONTAINS(doc, "ep1 (pid 100)");
	ASSERT_STR_CONTAINS(doc, "ep1 (pid 200)");
	ASSERT_STR_CONTAINS(doc, "127.0.0.1:50312");

	/* The read: request and response, each matched with its rx. */
	f = find_frame(doc, "data-op=\"READ_REQ\"", "data-seq=\"2\"");
	ASSERT_NOT_NULL(f);
	ASSERT(strstr(f, " stub") == NULL);
	ASSERT_STR_CONTAINS(f, "data-tx=\"client.trace:11\"");
	ASSERT_STR_CONTAINS(f, "data-rx=\"server.trace:13\"");
	ASSERT_STR_CONTAINS(f, "rkey=0x1a2b");
	free(f);
	f = find_frame(doc, "data-op=\"READ_RESP\"", "data-seq=\"1\"");
	ASSERT_NOT_NULL(f);
	ASSERT_STR_CONTAINS(f, "data-rx=\"client.trace:12\"");
	free(f);

	/* The passive side's HELLO, read before its EP was known. */
	f = find_frame(doc, "data-op=\"HELLO\"", NULL);
	ASSERT_NOT_NULL(f);
	ASSERT(strstr(f, "data-rx=\"server.trace:5\"") != NULL);
	free(f);

	/* The lost WRITE ends in a stub; the ACK without tx starts in one. */
	f = find_frame(doc, "data-op=\"WRITE\"", NULL);
	ASSERT_NOT_NULL(f);
	ASSERT_STR_CONTAINS(f, "data-rx=\"missing\"");
	ASSERT_STR_CONTAINS(f, " stub");
	free(f);
	f = find_frame(doc, "data-op=\"ACK\"", "data-seq=\"6\"");
	ASSERT_NOT_NULL(f);
	ASSERT_STR_CONTAINS(f, "data-tx=\"missing\"");
	free(f);

	/* Completions, states, events and a failed call. */
	ASSERT_EQ(count(doc, "data-status=\"DAT_DTO_SUCCESS\""), 3);
	ASSERT_EQ(count(doc, "data-status=\"DAT_DTO_ERR_FLUSHED\""), 2);
	ASSERT_EQ(count(doc, "<g class=\"dto err\""), 2);
	ASSERT_EQ(count(doc, "<g class=\"state\""), 6);
	ASSERT_STR_CONTAINS(doc, "data-to=\"DISCONNECTED\"");
	ASSERT_STR_CONTAINS(doc, "data-event=\"DAT_CONNECTION_REQUEST_EVENT\"");
	ASSERT_STR_CONTAINS(doc, "data-ret=\"DAT_INVALID_STATE\"");
	ASSERT_STR_CONTAINS(doc, "peer closed");

	/* 10 frames; causality wins over the server's slow clock. */
	ASSERT_EQ(arrows_go_down(doc), 10);
}

TEST_IMPL(seq_fixture_svg)
{
	char *out, *doc;

	write_fixture();
	ASSERT_EQ(run_seq(&out, "-o", "fixture.svg", "client.trace",
			  "server.trace", NULL), 0);
	/* The two lines that are not trace lines, by file:line. */
	ASSERT_STR_CONTAINS(out, "server.trace:18:");
	ASSERT_STR_CONTAINS(out, "server.trace:19:");
	ASSERT_EQ(count(out, "skipped:"), 2);
	free(out);
	doc = test_read_file("fixture.svg");
	ASSERT_NOT_NULL(doc);
	ASSERT(strncmp(doc, "<?xml", 5) == 0);
	ASSERT_STR_CONTAINS(doc, "xmlns=\"http://www.w3.org/2000/svg\"");
	ASSERT(strstr(doc, "<script") == NULL);
	ASSERT(strstr(doc, "http://") == strstr(doc, "http://www.w3.org/2000/svg"));
	check_fixture_drawing(doc);
	free(doc);
	check_xml("fixture.svg");

	/* The same from standard input, as HTML on standard output. */
	ASSERT_EQ(run_seq(&out, "--format", "html", "client.trace", NULL), 0);
	ASSERT_STR_CONTAINS(out, "<!DOCTYPE html>");
	ASSERT_STR_CONTAINS(out, "ep1 (pid 100)");
	/* Self-contained: nothing to fetch. */
	ASSERT(strstr(out, "http") == NULL);
	ASSERT(strstr(out, "src=") == NULL);
	ASSERT(strstr(out, "@import") == NULL);
	ASSERT(strstr(out, "href") == NULL);
	free(out);
	return 0;
}

TEST_IMPL(seq_options)
{
	char *out, *doc, *f;

	write_fixture();

	/* --hide-acks */
	ASSERT_EQ(run_seq(&out, "--hide-acks", "-o", "a.svg", "client.trace",
			  "server.trace", NULL), 0);
	free(out);
	doc = test_read_file("a.svg");
	ASSERT(strstr(doc, "data-op=\"ACK\"") == NULL);
	ASSERT_STR_CONTAINS(doc, "data-op=\"SEND\"");
	free(doc);

	/* --ep: one lifeline; its frames end in stubs. */
	ASSERT_EQ(run_seq(&out, "--ep", "100:ep1", "-o", "b.html",
			  "client.trace", "server.trace", NULL), 0);
	free(out);
	doc = test_read_file("b.html");
	ASSERT_EQ(count(doc, "<g class=\"lifeline "), 1);
	ASSERT_STR_CONTAINS(doc, "ep1 (pid 100)");
	f = find_frame(doc, "data-op=\"READ_REQ\"", NULL);
	ASSERT_NOT_NULL(f);
	ASSERT_STR_CONTAINS(f, "data-rx=\"missing\"");
	free(f);
	free(doc);

	/* -e adds up. */
	ASSERT_EQ(run_seq(&out, "-e", "100:ep1", "--ep", "psp1", "-o", "b.svg",
			  "client.trace", "server.trace", NULL), 0);
	free(out);
	doc = test_read_file("b.svg");
	ASSERT_EQ(count(doc, "<g class=\"lifeline "), 2);
	free(doc);

	/* --ep by name in every process, and -P. */
	ASSERT_EQ(run_seq(&out, "-e", "ep1", "-o", "c.svg", "client.trace",
			  "server.trace", NULL), 0);
	free(out);
	doc = test_read_file("c.svg");
	ASSERT_EQ(count(doc, "<g class=\"lifeline "), 2);
	free(doc);
	ASSERT_EQ(run_seq(&out, "-P", "-o", "c.svg", "client.trace",
			  "server.trace", NULL), 0);
	free(out);
	doc = test_read_file("c.svg");
	ASSERT_EQ(count(doc, "<g class=\"lifeline "), 3);
	free(doc);

	/* A time window: the read only (absolute and relative forms). */
	ASSERT_EQ(run_seq(&out, "--from", "12:00:00.001000", "--to",
			  "12:00:00.001510", "-o", "d.svg", "client.trace", NULL),
		  0);
	free(out);
	doc = test_read_file("d.svg");
	ASSERT_STR_CONTAINS(doc, "data-op=\"READ_REQ\"");
	ASSERT(strstr(doc, "data-op=\"HELLO\"") == NULL);
	ASSERT(strstr(doc, "data-op=\"SEND\"") == NULL);
	/* The process's lifeline has nothing left in the window. */
	ASSERT_EQ(count(doc, "<g class=\"lifeline "), 1);
	free(doc);
	ASSERT_EQ(run_seq(&out, "--from", "+0.0009", "--to", "+0.00141",
			  "-o", "d.svg", "client.trace", NULL), 0);
	free(out);
	doc = test_read_file("d.svg");
	ASSERT_STR_CONTAINS(doc, "data-op=\"READ_REQ\"");
	ASSERT(strstr(doc, "data-op=\"HELLO\"") == NULL);
	free(doc);

	/* Nothing to draw: exit 1, and no file written. */
	test_write_file("junk.trace", "not a trace\nnor this\n");
	ASSERT_EQ(run_seq(&out, "-o", "e.svg", "junk.trace", NULL), 1);
	ASSERT_STR_CONTAINS(out, "junk.trace:1:");
	ASSERT_STR_CONTAINS(out, "junk.trace:2:");
	ASSERT_STR_CONTAINS(out, "nothing to draw");
	free(out);
	ASSERT_NULL(test_read_file("e.svg"));
	ASSERT_EQ(run_seq(&out, "--ep", "ep9", "-o", "e.svg", "client.trace",
			  NULL), 1);
	free(out);
	ASSERT_EQ(run_seq(&out, "-o", "e.svg", "missing.trace", NULL), 1);
	ASSERT_STR_CONTAINS(out, "missing.trace");
	free(out);
	/* A program's output mixed in: 20 lines named, the rest counted. */
	{
		char noisy[4096] = "";
		int i;

		for (i = 0; i < 25; i++)
			strcat(noisy, "read 32 bytes\n");
		strcat(noisy, "12:00:00.000001 1 api ia1 ia_open "
		       "ret=DAT_SUCCESS\n");
		test_write_file("noisy.trace", noisy);
	}
	ASSERT_EQ(run_seq(&out, "-o", "f.svg", "noisy.trace", NULL), 0);
	ASSERT_STR_CONTAINS(out, "noisy.trace:20: skipped");
	ASSERT(strstr(out, "noisy.trace:21:") == NULL);
	ASSERT_STR_CONTAINS(out, "noisy.trace: 5 more lines skipped");
	ASSERT_STR_CONTAINS(out, "25 lines skipped");
	free(out);

	/* Empty standard input (the runner gives /dev/null). */
	ASSERT_EQ(run_seq(&out, "-o", "e.svg", NULL), 1);
	free(out);

	/* Usage errors, and --help. */
	ASSERT_EQ(run_seq(&out, "-o", "e.png", "client.trace", NULL), 2);
	ASSERT_STR_CONTAINS(out, ".html, .svg or .txt");
	free(out);
	ASSERT_EQ(run_seq(&out, "--format", "pdf", "client.trace", NULL), 2);
	free(out);
	ASSERT_EQ(run_seq(&out, "--from", "noon", "client.trace", NULL), 2);
	free(out);
	ASSERT_EQ(run_seq(&out, "--bogus", NULL), 2);
	free(out);
	ASSERT_EQ(run_seq(&out, "--help", NULL), 0);
	ASSERT_STR_CONTAINS(out, "usage: softdapl-seq");
	ASSERT_STR_CONTAINS(out, "--hide-acks");
	ASSERT_STR_CONTAINS(out, "--text");
	free(out);
	return 0;
}

/*
 * Hostile input: quoted values, unknown keys, broken pairs, bytes that are
 * not UTF-8, control characters and markup; the output stays well-formed.
 */
TEST_IMPL(seq_odd_lines)
{
	char *out, *doc;

	test_write_file("odd.trace",
		"12:00:00.000001 7 error - msg msg=\"a <b> & 'c' \xff\x01 d\"\n"
		"12:00:00.000002 7 api ep1 ep_create ret=DAT_SUCCESS newkey=1\n"
		"12:00:00.000003 7 api ep1 ep_free ret=DAT_SUCCESS broken\n"
		"12:00:00.000004 7 api ep1 ep_free why=\"unterminated\n"
		"12:00:00.000005 7 tx ep1 SEND seq=1\n"
		"12:00:00.000006 7 state ep1 UNCONNECTED to=CONNECTED "
			"why=\"<script>\"\n"
		"25:00:00.000007 7 api ep1 ep_free ret=DAT_SUCCESS\n"
		"12:00:00.000008 x api ep1 ep_free ret=DAT_SUCCESS\n"
		"12:00:00.000009 7 api\n");
	ASSERT_EQ(run_seq(&out, "-o", "odd.svg", "odd.trace", NULL), 0);
	ASSERT_STR_CONTAINS(out, "odd.trace:3:");
	ASSERT_STR_CONTAINS(out, "odd.trace:4:");
	ASSERT_STR_CONTAINS(out, "odd.trace:5:");
	ASSERT_STR_CONTAINS(out, "odd.trace:7:");
	ASSERT_STR_CONTAINS(out, "odd.trace:8:");
	ASSERT_STR_CONTAINS(out, "odd.trace:9:");
	ASSERT_EQ(count(out, "skipped:"), 6);
	free(out);
	doc = test_read_file("odd.svg");
	ASSERT_STR_CONTAINS(doc, "a &lt;b&gt; &amp; &#39;c&#39; ?? d");
	ASSERT_STR_CONTAINS(doc, "&lt;script&gt;");
	ASSERT(strstr(doc, "<script") == NULL);
	ASSERT(strstr(doc, "\xff") == NULL);
	free(doc);
	check_xml("odd.svg");
	return 0;
}

/*
 * Datagrams (UD) have no seq: a tx goes with the rx of the latest datagram
 * sent on the pair before it arrived; a lost one ends in a stub. Both
 * processes write into one file here.
 */
TEST_IMPL(seq_ud_datagrams)
{
	char *out, *doc, *f;

#define UD_A "conn=127.0.0.1:5000>127.0.0.1:6000 "
#define UD_B "conn=127.0.0.1:6000>127.0.0.1:5000 "
	test_write_file("ud.trace",
		"12:00:00.000100 1 tx ep1 DATA " UD_A "bytes=64 src_qpn=1 "
			"dst_qpn=2\n"
		"12:00:00.000150 2 rx ep1 DATA " UD_B "bytes=64 src_qpn=1 "
			"dst_qpn=2\n"
		"12:00:00.000160 2 dto ep1 RECV_UD evd=evd1 cookie=0x1 "
			"status=DAT_DTO_SUCCESS len=24 " UD_B "\n"
		"12:00:00.000200 1 tx ep1 DATA " UD_A "bytes=65 src_qpn=1 "
			"dst_qpn=2\n"
		"12:00:00.000300 1 tx ep1 DATA " UD_A "bytes=66 src_qpn=1 "
			"dst_qpn=2\n"
		"12:00:00.000350 2 rx ep1 DATA " UD_B "bytes=66 src_qpn=1 "
			"dst_qpn=2 bad=\"no receive posted\"\n");
#undef UD_A
#undef UD_B
	ASSERT_EQ(run_seq(&out, "-o", "ud.svg", "ud.trace", NULL), 0);
	ASSERT(strstr(out, "skipped") == NULL);
	free(out);
	doc = test_read_file("ud.svg");
	ASSERT_EQ(count(doc, "<g class=\"frame "), 3);
	ASSERT_EQ(count(doc, "<g class=\"lifeline ep\""), 2);
	f = find_frame(doc, "data-tx=\"ud.trace:1\"", NULL);
	ASSERT_NOT_NULL(f);
	ASSERT_STR_CONTAINS(f, "data-rx=\"ud.trace:2\"");
	ASSERT_STR_CONTAINS(f, "DATA bytes=64 src_qpn=1 dst_qpn=2");
	free(f);
	f = find_frame(doc, "data-tx=\"ud.trace:4\"", NULL);
	ASSERT_NOT_NULL(f);
	ASSERT_STR_CONTAINS(f, "data-rx=\"missing\"");
	free(f);
	f = find_frame(doc, "data-tx=\"ud.trace:5\"", NULL);
	ASSERT_NOT_NULL(f);
	ASSERT_STR_CONTAINS(f, "data-rx=\"ud.trace:6\"");
	ASSERT_STR_CONTAINS(f, "data-bad=\"no receive posted\"");
	ASSERT_STR_CONTAINS(f, "refused: no receive posted");
	free(f);
	ASSERT_EQ(arrows_go_down(doc), 3);
	free(doc);
	return 0;
}

/* ------------------------------------------------------------------------
 * Plain text (--text, -o FILE.txt)
 */

/*
 * @doc is pure ASCII (printable characters and newlines), ends in a
 * newline, and no line is longer than @width; returns its lines.
 */
static int check_text(const char *doc, int width)
{
	const char *p, *line = doc;
	int lines = 0;

	ASSERT_NOT_NULL(doc);
	for (p = doc; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '\n') {
			if (p - line > width)
				TEST_FAIL("a line of %d columns, want %d at most:"
					  "\n%.*s", (int)(p - line), width,
					  (int)(p - line), line);
			line = p + 1;
			lines++;
		} else if (c < 0x20 || c > 0x7e) {
			TEST_FAIL("byte 0x%02x at offset %ld is not printable "
				  "ASCII", c, (long)(p - doc));
		}
	}
	ASSERT(p == line);
	return lines;
}

/* The first line of @doc that contains @needle: a malloc'd copy without
 * its newline, or NULL. */
static char *text_line(const char *doc, const char *needle)
{
	const char *p = find(doc, needle), *b, *e;

	if (p == NULL)
		return NULL;
	for (b = p; b > doc && b[-1] != '\n'; b--)
		;
	e = strchr(p, '\n');
	return strndup(b, e ? (size_t)(e - b) : strlen(b));
}

/*
 * The line under the headers: the first made of nothing but spaces and at
 * least one '|' (the lifelines' heads); NULL if none.
 */
static const char *lifeline_row(const char *doc)
{
	const char *line = doc;

	while (*line) {
		size_t n = strcspn(line, "\n");

		if (n > 0 && strspn(line, " |") == n &&
		    memchr(line, '|', n) != NULL)
			return line;
		line += n + (line[n] == '\n');
	}
	return NULL;
}

/* The lifelines' columns, from lifeline_row(): how many, at most @max. */
static int lifeline_cols(const char *doc, int *cols, int max)
{
	const char *line = lifeline_row(doc);
	int k = 0, i;

	for (i = 0; line != NULL && line[i] && line[i] != '\n' && k < max; i++)
		if (line[i] == '|')
			cols[k++] = i;
	return k;
}

/*
 * @line holds an arrow from the lifeline at column @from to the one at
 * @to, its shaft of @fill ('-' a frame's, '=' a placed RDMA's): both ends
 * are lifelines, the head ('>' or '<') touches @to, and no lifeline is
 * between them.
 */
static void check_arrow(const char *line, int from, int to, char fill)
{
	int lo = from < to ? from : to, hi = from < to ? to : from, i;

	ASSERT_NOT_NULL(line);
	if ((int)strlen(line) <= hi || line[lo] != '|' || line[hi] != '|' ||
	    (to > from ? line[to - 1] != '>' : line[to + 1] != '<') ||
	    (to > from ? line[from + 1] != fill : line[from - 1] != fill))
		TEST_FAIL("not an arrow of '%c' from column %d to %d:\n%s",
			  fill, from, to, line);
	for (i = lo + 1; i < hi; i++)
		if (line[i] == '|')
			TEST_FAIL("a lifeline inside the arrow:\n%s", line);
}

/* The index of the line of @doc that holds @needle, or -1. */
static long line_no(const char *doc, const char *needle)
{
	const char *p = find(doc, needle), *q;
	long n = 0;

	if (p == NULL)
		return -1;
	for (q = doc; q < p; q++)
		n += *q == '\n';
	return n;
}

TEST_IMPL(seq_text_fixture)
{
	char *out, *doc, *l, *many;
	int cols[8], i;

	write_fixture();

	/* The two EPs: the client's on the left, the server's on the right. */
	ASSERT_EQ(run_seq(&out, "--text", "-e", "ep1", "-o", "ep.txt",
			  "client.trace", "server.trace", NULL), 0);
	free(out);
	doc = test_read_file("ep.txt");
	printf("%s", doc);
	check_text(doc, 100);
	ASSERT_EQ(lifeline_cols(doc, cols, 8), 2);
	ASSERT_STR_CONTAINS(doc, "ep1 (pid 100)");
	ASSERT_STR_CONTAINS(doc, "ep1 (pid 200)");
	ASSERT_LT(find(doc, "ep1 (pid 100)") - doc,
		  find(doc, "ep1 (pid 200)") - doc);
	ASSERT_STR_CONTAINS(doc, "local 127.0.0.1:50312");

	/* The read: the request to the right, the response back. */
	l = text_line(doc, "READ_REQ seq=2");
	check_arrow(l, cols[0], cols[1], '-');
	ASSERT_STR_CONTAINS(l, "rkey=0x1a2b");
	/* Its time: 2.010 ms after the server's first line. */
	ASSERT(strncmp(l + strspn(l, " "), "+2.010 ms ", 10) == 0);
	free(l);
	l = text_line(doc, "READ_RESP seq=1");
	check_arrow(l, cols[1], cols[0], '-');
	free(l);
	l = text_line(doc, "[ok] RDMA_READ len=32 cookie=0x7");
	ASSERT_NOT_NULL(l);
	ASSERT_EQ(l[cols[0]], '*');
	free(l);
	ASSERT_LT(line_no(doc, "READ_REQ seq=2"), line_no(doc,
							   "READ_RESP seq=1"));
	ASSERT_LT(line_no(doc, "READ_RESP seq=1"),
		  line_no(doc, "[ok] RDMA_READ"));
	/* One row per frame: its rx has none of its own. */
	ASSERT_EQ(count(doc, "READ_REQ"), 1);

	/* The send, its receive on the server, the ACK back. */
	l = text_line(doc, "SEND seq=3");
	check_arrow(l, cols[0], cols[1], '-');
	free(l);
	l = text_line(doc, "[ok] RECEIVE len=20 cookie=0x1");
	ASSERT_NOT_NULL(l);
	ASSERT_EQ(l[cols[1]], '*');
	free(l);
	/* The lost WRITE ends in a cross; the ACK without tx starts in 'o'. */
	l = text_line(doc, "WRITE seq=4");
	ASSERT_NOT_NULL(l);
	ASSERT_STR_CONTAINS(l, "--x");
	free(l);
	l = text_line(doc, "ACK seq=6");
	ASSERT_NOT_NULL(l);
	ASSERT_STR_CONTAINS(l, "o--");
	free(l);
	/* Flushed completions, states, events, a failed call. */
	ASSERT_STR_CONTAINS(doc, "[FLUSHED] RDMA_WRITE len=0 cookie=0x9");
	ASSERT_STR_CONTAINS(doc, "[FLUSHED] RECEIVE len=0 cookie=0x2");
	ASSERT_STR_CONTAINS(doc, "CONNECTED => DISCONNECTED (peer closed)");
	ASSERT_STR_CONTAINS(doc, "event CONNECTION_EVENT_ESTABLISHED");
	ASSERT_STR_CONTAINS(doc, "ep_post_send cookie=0xa len=4 -> "
			    "DAT_INVALID_STATE");
	free(doc);

	/* Every lifeline, in 100 columns; ACKs hidden. */
	ASSERT_EQ(run_seq(&out, "-o", "all.txt", "--hide-acks", "client.trace",
			  "server.trace", NULL), 0);
	free(out);
	doc = test_read_file("all.txt");
	check_text(doc, 100);
	ASSERT_EQ(lifeline_cols(doc, cols, 8), 4);
	ASSERT_STR_CONTAINS(doc, "process 100");
	ASSERT_STR_CONTAINS(doc, "psp1 (pid 200)");
	ASSERT(strstr(doc, "ACK seq") == NULL);
	ASSERT_STR_CONTAINS(doc, "HELLO seq=0");
	free(doc);

	/* Narrow: 40 columns hold it all, cut; 39 is refused. */
	ASSERT_EQ(run_seq(&out, "--text", "-W", "40", "-o", "narrow.txt",
			  "client.trace", "server.trace", NULL), 0);
	free(out);
	doc = test_read_file("narrow.txt");
	check_text(doc, 40);
	ASSERT_EQ(lifeline_cols(doc, cols, 8), 4);
	ASSERT_STR_CONTAINS(doc, "...");
	free(doc);
	ASSERT_EQ(run_seq(&out, "--text", "--width", "39", "client.trace",
			  NULL), 2);
	ASSERT_STR_CONTAINS(out, "--width 39");
	free(out);

	/* To standard output: --text, -f text and -o - are the same. */
	ASSERT_EQ(run_seq(&out, "-o", "c.txt", "client.trace", NULL), 0);
	free(out);
	doc = test_read_file("c.txt");
	check_text(doc, 100);
	ASSERT_EQ(run_seq(&out, "--text", "client.trace", NULL), 0);
	ASSERT_STR_EQ(out, doc);
	free(out);
	ASSERT_EQ(run_seq(&out, "-f", "text", "-o", "-", "client.trace", NULL),
		  0);
	ASSERT_STR_EQ(out, doc);
	free(out);
	free(doc);

	/* More lifelines than 40 columns hold: nothing written, exit 1. */
	many = malloc(16 * 80);
	ASSERT_NOT_NULL(many);
	many[0] = '\0';
	for (i = 1; i <= 12; i++)
		sprintf(many + strlen(many), "12:00:00.%06d 1 api ep%d "
			"ep_create ret=DAT_SUCCESS\n", i, i);
	test_write_file("many.trace", many);
	free(many);
	ASSERT_EQ(run_seq(&out, "-W", "40", "-o", "many.txt", "many.trace",
			  NULL), 1);
	ASSERT_STR_CONTAINS(out, "12 lifelines do not fit in 40 columns");
	free(out);
	ASSERT_NULL(test_read_file("many.txt"));
	ASSERT_EQ(run_seq(&out, "-W", "100", "-o", "many.txt", "many.trace",
			  NULL), 0);
	free(out);
	doc = test_read_file("many.txt");
	check_text(doc, 100);
	ASSERT_EQ(lifeline_cols(doc, cols, 8), 8);
	free(doc);

	/* Characters that are not ASCII, markup, a refused datagram. */
	test_write_file("u.trace",
		"12:00:00.000001 7 error - msg msg=\"caf\xc3\xa9 <b> \xff\"\n"
		"12:00:00.000002 7 tx ep1 DATA conn=1.1.1.1:5>2.2.2.2:6 "
			"bytes=64 src_qpn=1 dst_qpn=2\n"
		"12:00:00.000003 8 rx ep1 DATA conn=2.2.2.2:6>1.1.1.1:5 "
			"bytes=64 src_qpn=1 dst_qpn=2 bad=\"no receive "
			"posted\"\n");
	ASSERT_EQ(run_seq(&out, "--text", "-o", "u.txt", "u.trace", NULL), 0);
	free(out);
	doc = test_read_file("u.txt");
	printf("%s", doc);
	check_text(doc, 100);
	ASSERT_STR_CONTAINS(doc, "error: caf? <b> ?");
	ASSERT_STR_CONTAINS(doc, "refused: no receive posted");
	ASSERT_EQ(lifeline_cols(doc, cols, 8), 3);
	l = text_line(doc, "DATA bytes=64");
	check_arrow(l, cols[1], cols[2], '-');
	free(l);
	free(doc);
	return 0;
}

/* Thousands of lines, two processes: all drawn, matched, in order. */
TEST_IMPL(seq_long_trace)
{
	enum { N = 2000 };
	FILE *a, *b;
	char *out, *doc;
	int i;

	a = fopen("a.trace", "w");
	b = fopen("b.trace", "w");
	ASSERT_NOT_NULL(a);
	ASSERT_NOT_NULL(b);
	for (i = 0; i < N; i++) {
		int us = 10 + i * 10;

		fprintf(a, "12:00:%02d.%06d 1 tx ep1 SEND " C_CONN " seq=%d "
			"bytes=40 len=8 ack=%d rkey=0x0 addr=0x0 " NOTAG "\n",
			us / 1000000, us % 1000000, i, i);
		/* The receiver's clock is 5 us behind: rx "before" tx. */
		fprintf(b, "12:00:%02d.%06d 2 rx ep1 SEND " S_CONN " seq=%d "
			"bytes=40 len=8 ack=%d rkey=0x0 addr=0x0 " NOTAG "\n",
			us / 1000000, us % 1000000 - 5, i, i);
		fprintf(b, "12:00:%02d.%06d 2 dto ep1 RECEIVE evd=evd1 "
			"cookie=0x%x status=DAT_DTO_SUCCESS len=8\n",
			us / 1000000, us % 1000000 - 4, i);
	}
	ASSERT_OK(fclose(a));
	ASSERT_OK(fclose(b));
	ASSERT_EQ(run_seq(&out, "-o", "long.html", "a.trace", "b.trace",
			  NULL), 0);
	ASSERT(strstr(out, "skipped") == NULL);
	free(out);
	doc = test_read_file("long.html");
	ASSERT_NOT_NULL(doc);
	ASSERT_EQ(count(doc, "<g class=\"frame "), N);
	ASSERT_EQ(count(doc, "data-rx=\"missing\""), 0);
	ASSERT_EQ(count(doc, "<g class=\"dto ok\""), N);
	ASSERT_EQ(arrows_go_down(doc), N);
	free(doc);
	return 0;
}

/* ------------------------------------------------------------------------
 * Headless Chromium
 */

/*
 * Decodes a PNG (8-bit RGB or RGBA, not interlaced) and prints
 * "png WIDTH HEIGHT NONWHITE DARK": the pixels that are not white, and
 * those that are dark (as text is, not dimmed).
 */
static const char png_py[] =
"import struct, sys, zlib\n"
"d = open(sys.argv[1], 'rb').read()\n"
"assert d[:8] == b'\\x89PNG\\r\\n\\x1a\\n', 'not a PNG'\n"
"p, idat, w = 8, b'', 0\n"
"while p < len(d):\n"
"    n, t = struct.unpack('>I4s', d[p:p + 8])\n"
"    c = d[p + 8:p + 8 + n]\n"
"    if t == b'IHDR':\n"
"        w, h, depth, ctype, _, _, lace = struct.unpack('>IIBBBBB', c)\n"
"        assert depth == 8 and ctype in (2, 6) and lace == 0, 'format'\n"
"    elif t == b'IDAT':\n"
"        idat += c\n"
"    p += 12 + n\n"
"bpp = 3 if ctype == 2 else 4\n"
"raw, stride, prev, nonwhite, o = zlib.decompress(idat), w * bpp, None, 0, 0\n"
"dark = 0\n"
"for y in range(h):\n"
"    f, row = raw[o], bytearray(raw[o + 1:o + 1 + stride])\n"
"    o += 1 + stride\n"
"    up = prev if prev is not None else bytearray(stride)\n"
"    for i in range(stride):\n"
"        a = row[i - bpp] if i >= bpp else 0\n"
"        b = up[i]\n"
"        c = up[i - bpp] if i >= bpp else 0\n"
"        if f == 1: row[i] = (row[i] + a) & 255\n"
"        elif f == 2: row[i] = (row[i] + b) & 255\n"
"        elif f == 3: row[i] = (row[i] + (a + b) // 2) & 255\n"
"        elif f == 4:\n"
"            q = a + b - c\n"
"            pa, pb, pc = abs(q - a), abs(q - b), abs(q - c)\n"
"            pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)\n"
"            row[i] = (row[i] + pr) & 255\n"
"    for i in range(0, stride, bpp):\n"
"        if row[i] < 250 or row[i + 1] < 250 or row[i + 2] < 250:\n"
"            nonwhite += 1\n"
"        if row[i] + row[i + 1] + row[i + 2] < 300:\n"
"            dark += 1\n"
"    prev = row\n"
"print('png', w, h, nonwhite, dark)\n";

/*
 * Opens @html with the URL fragment @frag ("#step=3", "" for none) in
 * headless Chromium: if @shot_too, a 1200x2000 screenshot into
 * $TEST_TMPDIR/shot.png, checked to be a picture of that size that is not
 * blank, its dark pixels into *@dark (when python3 can count them, else
 * -1); then the DOM after the page's scripts ran, returned (free it).
 * Returns NULL when Chromium is not installed.
 */
static char *chromium_at(const char *html, const char *frag, int shot_too,
			 long *dark)
{
	const char *chromium = test_find_program("chromium");
	char url[1200], udd[1200], shot[1200], *out, *dom;
	unsigned w = 0, h = 0;
	int status;
	long size;
	FILE *f;

	if (chromium == NULL)
		return NULL;
	snprintf(url, sizeof(url), "file://%s%s", test_path(html), frag);
	if (dark != NULL)
		*dark = -1;
	snprintf(udd, sizeof(udd), "--user-data-dir=%s",
		 test_path("chromium-profile"));
	snprintf(shot, sizeof(shot), "--screenshot=%s", test_path("shot.png"));
	if (!shot_too)
		goto dom;
	ASSERT_OK(test_run_cmdl(120, &status, &out, chromium, "--headless",
				"--no-sandbox", "--disable-gpu", udd, shot,
				"--window-size=1200,2000", url, NULL));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		TEST_FAIL("chromium --screenshot failed:\n%s", out);
	free(out);

	/* A PNG, 1200x2000 (IHDR), and not blank. */
	f = fopen("shot.png", "rb");
	ASSERT_NOT_NULL(f);
	{
		unsigned char hdr[24];

		ASSERT_EQ(fread(hdr, 1, sizeof(hdr), f), sizeof(hdr));
		ASSERT(memcmp(hdr, "\x89PNG\r\n\x1a\n", 8) == 0);
		ASSERT(memcmp(hdr + 12, "IHDR", 4) == 0);
		w = (unsigned)hdr[16] << 24 | hdr[17] << 16 | hdr[18] << 8 |
			hdr[19];
		h = (unsigned)hdr[20] << 24 | hdr[21] << 16 | hdr[22] << 8 |
			hdr[23];
	}
	ASSERT_OK(fseek(f, 0, SEEK_END));
	size = ftell(f);
	fclose(f);
	ASSERT_EQ(w, 1200);
	ASSERT_EQ(h, 2000);
	if (test_find_program("python3") != NULL) {
		unsigned pw = 0, ph = 0;
		long nonwhite = -1, dk = -1;

		test_write_file("png.py", png_py);
		ASSERT_OK(test_run_cmdl(120, &status, &out, "python3",
					test_path("png.py"), test_path("shot.png"),
					NULL));
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
		    sscanf(out, "png %u %u %ld %ld", &pw, &ph, &nonwhite,
			   &dk) != 4)
			TEST_FAIL("decoding the screenshot failed:\n%s", out);
		printf("screenshot: %s", out);
		free(out);
		ASSERT_EQ(pw, 1200);
		ASSERT_EQ(ph, 2000);
		/* Lifelines, boxes and text cover far more than this. */
		ASSERT_GT(nonwhite, 20000);
		if (dark != NULL)
			*dark = dk;
	} else {
		/* A blank page compresses to a few kilobytes. */
		printf("python3 missing: screenshot checked by size (%ld)\n",
		       size);
		ASSERT_GT(size, 40000);
	}

dom:
	ASSERT_OK(test_run_cmdl(120, &status, &dom, chromium, "--headless",
				"--no-sandbox", "--disable-gpu", udd,
				"--dump-dom", url, NULL));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		TEST_FAIL("chromium --dump-dom failed:\n%s", dom);
	return dom;
}

/* The page, its developers' self-check run (#selfcheck). */
static char *chromium_dom(const char *html, int shot_too)
{
	return chromium_at(html, "#selfcheck", shot_too, NULL);
}

/* The text of the page's hidden <div id="selfcheck" hidden>. */
static const char *selfcheck_text(const char *dom)
{
	const char *p = strstr(dom, "<div id=\"selfcheck\"");

	ASSERT_NOT_NULL(p);
	p = strchr(p, '>');
	ASSERT_NOT_NULL(p);
	return p + 1;
}

/*
 * The page's own check (overlaps, labels over other lifelines, arrows on
 * lifelines) passed.
 */
static void check_selfcheck(const char *dom)
{
	const char *p = selfcheck_text(dom);

	if (strncmp(p, "selfcheck: ok ", 14) != 0)
		TEST_FAIL("the page's self-check: %.600s", p);
	ASSERT_STR_CONTAINS(dom, "<title>selfcheck: ok ");
}

/* The page of the long trace opens, and its self-check passes. */
TEST_IMPL(seq_long_trace_chromium)
{
	char *out, *dom;
	FILE *a;
	int i;

	a = fopen("a.trace", "w");
	ASSERT_NOT_NULL(a);
	for (i = 0; i < 1500; i++)
		fprintf(a, "12:00:00.%06d 1 tx ep1 %s " C_CONN " seq=%d "
			"bytes=32 len=0 ack=%d rkey=0x0 addr=0x0 " NOTAG "\n"
			"12:00:00.%06d 2 rx ep1 %s " S_CONN " seq=%d bytes=32 "
			"len=0 ack=%d rkey=0x0 addr=0x0 " NOTAG "\n",
			i * 100, i % 2 ? "ACK" : "SEND", i, i,
			i * 100 + 50, i % 2 ? "ACK" : "SEND", i, i);
	ASSERT_OK(fclose(a));
	ASSERT_EQ(run_seq(&out, "-o", "long.html", "a.trace", NULL), 0);
	free(out);
	dom = chromium_dom("long.html", 0);
	if (dom == NULL)
		TEST_SKIP("chromium missing: apt-get install -y chromium");
	check_selfcheck(dom);
	ASSERT_STR_CONTAINS(dom, " 1500 frames, 2 lifelines");
	free(dom);
	return 0;
}

TEST_IMPL(seq_chromium_fixture)
{
	char *out, *dom;

	write_fixture();
	ASSERT_EQ(run_seq(&out, "-o", "fixture.html", "client.trace",
			  "server.trace", NULL), 0);
	free(out);
	dom = chromium_dom("fixture.html", 1);
	if (dom == NULL)
		TEST_SKIP("chromium missing: apt-get install -y chromium");
	check_selfcheck(dom);
	check_fixture_drawing(dom);
	free(dom);
	return 0;
}

/* ------------------------------------------------------------------------
 * RDMA placed by the initiator (place lines)
 */

/*
 * A same-host session where the client (pid 100) writes 4096 bytes into
 * the server's memory and reads 32 back itself: place lines on the
 * client, nothing at all on the server meanwhile (its CPU took no part).
 */
static const char place_client_trace[] =
"12:00:00.000100 100 api ep1 ep_connect ret=DAT_SUCCESS addr=127.0.0.1 "
	"port=4791 pdata=0\n"
"12:00:00.000400 100 tx ep1 HELLO " C_CONN " seq=0 bytes=40 pdata=0 "
	"qual=4791\n"
"12:00:00.000900 100 rx ep1 ACCEPT " C_CONN " seq=0 bytes=40 pdata=0\n"
"12:00:00.000950 100 tx ep1 RTU " C_CONN " seq=1 bytes=40 pdata=0\n"
"12:00:00.001000 100 api ep1 ep_post_rdma_write ret=DAT_SUCCESS cookie=0x9 "
	"len=4096 segs=1 rkey=0x4a3c1 raddr=0x7f3a1c000000 rlen=4096 "
	"flags=DEFAULT\n"
"12:00:00.001010 100 place ep1 RDMA_WRITE " C_CONN " by=initiator "
	"rkey=0x4a3c1 raddr=0x7f3a1c000000 len=4096\n"
"12:00:00.001020 100 dto ep1 RDMA_WRITE evd=evd2 cookie=0x9 "
	"status=DAT_DTO_SUCCESS len=4096\n"
"12:00:00.001100 100 api ep1 ep_post_rdma_read ret=DAT_SUCCESS cookie=0xa "
	"len=32 segs=1 rkey=0x4a3c1 raddr=0x7f3a1c000000 rlen=32 "
	"flags=DEFAULT\n"
"12:00:00.001110 100 place ep1 RDMA_READ " C_CONN " by=initiator "
	"rkey=0x4a3c1 raddr=0x7f3a1c000000 len=32\n"
"12:00:00.001120 100 dto ep1 RDMA_READ evd=evd2 cookie=0xa "
	"status=DAT_DTO_SUCCESS len=32\n";

static const char place_server_trace[] =
"12:00:00.000050 200 api psp1 psp_create ret=DAT_SUCCESS port=4791 "
	"evd=evd1\n"
"12:00:00.000450 200 rx - HELLO " S_CONN " seq=0 bytes=40 pdata=0 "
	"qual=4791 sp=psp1\n"
"12:00:00.000500 200 api cr1 cr_accept ret=DAT_SUCCESS ep=ep2 pdata=0\n"
"12:00:00.000520 200 tx ep2 ACCEPT " S_CONN " seq=0 bytes=40 pdata=0\n"
"12:00:00.000980 200 rx ep2 RTU " S_CONN " seq=1 bytes=40 pdata=0\n"
"12:00:00.002000 200 api ep2 ep_free ret=DAT_SUCCESS\n";

#define WRITE_WORDS	"RDMA_WRITE 4096 B placed by initiator"
#define READ_WORDS	"RDMA_READ 32 B read by initiator"
#define EM_DASH_IDLE	" \xe2\x80\x94 target CPU idle"

static void write_place_fixture(void)
{
	test_write_file("pclient.trace", place_client_trace);
	test_write_file("pserver.trace", place_server_trace);
}

/* The id ("laneN") of the lifeline of @pid's @name in a picture. */
static void lane_id(const char *doc, long pid, const char *name, char *id,
		    size_t len)
{
	char needle[128];
	int n;

	for (n = 0; n < 64; n++) {
		snprintf(needle, sizeof(needle), "id=\"lane%d\" "
			 "data-lane=\"%s\" data-pid=\"%ld\"", n, name, pid);
		if (find(doc, needle) != NULL) {
			snprintf(id, len, "lane%d", n);
			return;
		}
	}
	TEST_FAIL("no lifeline of %ld:%s", pid, name);
}

/*
 * What a picture of both traces holds: the write an arrow from the
 * client's EP to the server's, the read one back, both dashed in the
 * place style with their words; no frame for either.
 */
static void check_place_arrows(const char *doc)
{
	char cli[16], srv[16], from[48], to[48], *f;

	lane_id(doc, 100, "ep1", cli, sizeof(cli));
	lane_id(doc, 200, "ep2", srv, sizeof(srv));
	snprintf(from, sizeof(from), "data-from=\"%s\"", cli);
	snprintf(to, sizeof(to), "data-to=\"%s\"", srv);
	f = find_place(doc, "class=\"place arrow write\"", from);
	ASSERT_NOT_NULL(f);
	ASSERT_STR_CONTAINS(f, to);
	ASSERT_STR_CONTAINS(f, "data-op=\"RDMA_WRITE\"");
	ASSERT_STR_CONTAINS(f, "data-conn=\"127.0.0.1:50312&gt;"
			    "127.0.0.1:4791\"");
	ASSERT_STR_CONTAINS(f, "data-line=\"pclient.trace:6\"");
	ASSERT_STR_CONTAINS(f, WRITE_WORDS EM_DASH_IDLE);
	ASSERT_STR_CONTAINS(f, "stroke-dasharray=");
	ASSERT_STR_CONTAINS(f, "marker-end=\"url(#ah-place)\"");
	free(f);
	snprintf(from, sizeof(from), "data-from=\"%s\"", srv);
	snprintf(to, sizeof(to), "data-to=\"%s\"", cli);
	f = find_place(doc, "class=\"place arrow read\"", from);
	ASSERT_NOT_NULL(f);
	ASSERT_STR_CONTAINS(f, to);
	ASSERT_STR_CONTAINS(f, READ_WORDS EM_DASH_IDLE);
	free(f);
	ASSERT(strstr(doc, "<g class=\"place note") == NULL);
	/* The handshake's three frames, and nothing for the RDMA. */
	ASSERT_EQ(count(doc, "<g class=\"frame "), 3);
	ASSERT_EQ(arrows_go_down(doc), 3);
	ASSERT(strstr(doc, "data-op=\"WRITE\"") == NULL);
	ASSERT(strstr(doc, "data-op=\"READ_REQ\"") == NULL);
}

/*
 * Both sides' traces: each place line is an arrow between the two EPs (the
 * peer found by its connection reversed, as an rx finds its tx), the
 * legend says what the style means, and the text has '=' arrows.
 */
TEST_IMPL(seq_place_matched)
{
	char *out, *doc, *dom, *l;
	int cols[8];

	write_place_fixture();
	ASSERT_EQ(run_seq(&out, "-o", "place.svg", "pclient.trace",
			  "pserver.trace", NULL), 0);
	/* place is a kind of line, not something to skip. */
	ASSERT(strstr(out, "skipped") == NULL);
	free(out);
	doc = test_read_file("place.svg");
	ASSERT_NOT_NULL(doc);
	check_place_arrows(doc);
	/* Its arrowhead, and the legend's entry with the same line. */
	ASSERT_STR_CONTAINS(doc, "<marker id=\"ah-place\"");
	ASSERT_STR_CONTAINS(doc, "RDMA placed by initiator (no frame, "
			    "target CPU idle)");
	ASSERT_GE(count(doc, "url(#ah-place)"), 3);
	free(doc);
	check_xml("place.svg");

	/* A window with only the client's lines keeps the target's EP. */
	ASSERT_EQ(run_seq(&out, "--from", "12:00:00.001000", "-o", "win.svg",
			  "pclient.trace", "pserver.trace", NULL), 0);
	free(out);
	doc = test_read_file("win.svg");
	ASSERT_STR_CONTAINS(doc, "data-lane=\"ep2\" data-pid=\"200\"");
	ASSERT_EQ(count(doc, "<g class=\"place arrow "), 2);
	free(doc);

	/* Text: the write to the right, the read back, shafts of '='. */
	ASSERT_EQ(run_seq(&out, "--text", "-e", "ep1,ep2", "-o", "place.txt",
			  "pclient.trace", "pserver.trace", NULL), 0);
	free(out);
	doc = test_read_file("place.txt");
	printf("%s", doc);
	check_text(doc, 100);
	ASSERT_EQ(lifeline_cols(doc, cols, 8), 2);
	/* Too long for the arrow whole: who did it is left to the style. */
	l = text_line(doc, "RDMA_WRITE 4096 B, target CPU idle");
	check_arrow(l, cols[0], cols[1], '=');
	free(l);
	l = text_line(doc, READ_WORDS ", target CPU idle");
	check_arrow(l, cols[1], cols[0], '=');
	free(l);
	ASSERT_LT(line_no(doc, "RDMA_WRITE 4096 B,"),
		  line_no(doc, "[ok] RDMA_WRITE len=4096"));
	ASSERT_STR_CONTAINS(doc, "|====>| an RDMA its initiator placed");
	free(doc);

	/* The page's self-check: the arrows end on their lifelines. */
	ASSERT_EQ(run_seq(&out, "-o", "place.html", "pclient.trace",
			  "pserver.trace", NULL), 0);
	free(out);
	dom = chromium_dom("place.html", 0);
	if (dom == NULL) {
		printf("chromium missing: the page's self-check not run\n");
		return 0;
	}
	check_selfcheck(dom);
	ASSERT_STR_CONTAINS(dom, " 3 frames, 3 lifelines, 2 placed");
	check_place_arrows(dom);
	free(dom);
	return 0;
}

/*
 * Only the initiator's trace (or the target's lifeline filtered out): each
 * place line is a note on the initiator's EP, with the same words (the
 * lifeline wide enough for them: a one-lifeline picture is narrow).
 */
TEST_IMPL(seq_place_alone)
{
	char *out, *doc, *f, *l;
	int cols[8];

	write_place_fixture();
	ASSERT_EQ(run_seq(&out, "-w", "400", "-o", "alone.svg", "pclient.trace",
			  NULL), 0);
	ASSERT(strstr(out, "skipped") == NULL);
	free(out);
	doc = test_read_file("alone.svg");
	ASSERT_NOT_NULL(doc);
	ASSERT(strstr(doc, "<g class=\"place arrow") == NULL);
	ASSERT_EQ(count(doc, "<g class=\"place note "), 2);
	f = find_place(doc, "class=\"place note write\"", NULL);
	ASSERT_NOT_NULL(f);
	ASSERT_STR_CONTAINS(f, "data-op=\"RDMA_WRITE\"");
	ASSERT_STR_CONTAINS(f, "<rect class=\"box place\"");
	ASSERT_STR_CONTAINS(f, WRITE_WORDS EM_DASH_IDLE);
	free(f);
	f = find_place(doc, "class=\"place note read\"", NULL);
	ASSERT_NOT_NULL(f);
	ASSERT_STR_CONTAINS(f, READ_WORDS EM_DASH_IDLE);
	free(f);
	/* The lone handshake frames still end in stubs. */
	ASSERT_EQ(count(doc, "<g class=\"frame "), 3);
	free(doc);
	check_xml("alone.svg");

	/* Both traces, the server's EP left out by --ep: notes too. */
	ASSERT_EQ(run_seq(&out, "--ep", "100:ep1", "-o", "ep.svg",
			  "pclient.trace", "pserver.trace", NULL), 0);
	free(out);
	doc = test_read_file("ep.svg");
	ASSERT_EQ(count(doc, "<g class=\"lifeline "), 1);
	ASSERT_EQ(count(doc, "<g class=\"place note "), 2);
	free(doc);

	/* Text: a note on the EP's lifeline, the whole words. */
	ASSERT_EQ(run_seq(&out, "--text", "-o", "alone.txt", "pclient.trace",
			  NULL), 0);
	free(out);
	doc = test_read_file("alone.txt");
	printf("%s", doc);
	check_text(doc, 100);
	ASSERT_EQ(lifeline_cols(doc, cols, 8), 1);
	l = text_line(doc, WRITE_WORDS ", target CPU idle");
	ASSERT_NOT_NULL(l);
	ASSERT_EQ(l[cols[0]], '*');
	free(l);
	l = text_line(doc, READ_WORDS ", target CPU idle");
	ASSERT_NOT_NULL(l);
	ASSERT_EQ(l[cols[0]], '*');
	free(l);
	free(doc);

	/* A place line must name its connection. */
	test_write_file("noconn.trace",
		"12:00:00.000001 7 place ep1 RDMA_WRITE by=initiator len=8\n"
		"12:00:00.000002 7 api ep1 ep_free ret=DAT_SUCCESS\n");
	ASSERT_EQ(run_seq(&out, "-o", "noconn.svg", "noconn.trace", NULL), 0);
	ASSERT_STR_CONTAINS(out, "noconn.trace:1: skipped: a place line "
			    "without conn=LOCAL>REMOTE");
	free(out);
	return 0;
}

/*
 * Runs example @name with SOFTDAPL_TRACE=trace.%p and returns the trace it
 * wrote (a malloc'd path), or NULL when it wrote none.
 */
static char *trace_example(const char *name)
{
	char prog[1024], *out, *found = NULL;
	struct dirent *de;
	int status;
	DIR *d;

	sdt_conf("lo");
	test_setenv("SOFTDAPL_TRACE", test_path("trace.%p"));
	snprintf(prog, sizeof(prog), "%s/examples/%s", test_builddir(), name);
	ASSERT_OK(test_run_cmdl(60, &status, &out, prog, SDT_IA_NAME, NULL));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		TEST_FAIL("%s failed:\n%s", name, out);
	free(out);
	test_setenv("SOFTDAPL_TRACE", NULL);
	d = opendir(".");
	ASSERT_NOT_NULL(d);
	while ((de = readdir(d)) != NULL)
		if (strncmp(de->d_name, "trace.", 6) == 0 && found == NULL)
			found = strdup(de->d_name);
	closedir(d);
	if (found != NULL) {
		char *t = test_read_file(found);

		if (t == NULL || t[0] == '\0') {
			free(found);
			found = NULL;
		}
		free(t);
	}
	return found;
}

/*
 * Who does the work (by=, TRACE.md), drawn: over TCP the target answers
 * an RDMA read on its engine thread ([eng] READ_RESP) and the initiator's
 * post is its consumer's call; over shared memory the initiator places
 * the read itself (its arrow; no READ_RESP of the target's). In text and in SVG alike.
 */
TEST_IMPL(seq_who)
{
	char *trace, *out, *doc;

	test_setenv("SOFTDAPL_TRANSPORT", "tcp");
	trace = trace_example("rdma-read");
	test_setenv("SOFTDAPL_TRANSPORT", NULL);
	if (trace == NULL)
		TEST_SKIP("the provider wrote no SOFTDAPL_TRACE lines");
	ASSERT_EQ(run_seq(&out, "-f", "text", "-W", "200", trace, NULL), 0);
	/*
	 * A frame's tag names its sender's thread and its receiver's: the
	 * target's engine took the request and sent the response; the
	 * initiator's engine, or its consumer polling in dat_evd_wait, took
	 * the response.
	 */
	ASSERT_STR_CONTAINS(out, "[post>eng] READ_REQ");
	if (strstr(out, "[eng>eng] READ_RESP") == NULL &&
	    strstr(out, "[eng>wait] READ_RESP") == NULL)
		TEST_FAIL("no [eng>eng] or [eng>wait] READ_RESP:\n%s", out);
	ASSERT_STR_CONTAINS(out, "RDMA_READ len=32");
	free(out);
	ASSERT_EQ(run_seq(&out, "-o", "who.svg", trace, NULL), 0);
	free(out);
	doc = test_read_file("who.svg");
	ASSERT_NOT_NULL(doc);
	/* Each thread's name in its colour, and the legend says which. */
	ASSERT_STR_CONTAINS(doc, "[<tspan class=\"by-post\">post</tspan>&gt;"
			    "<tspan class=\"by-eng\">eng</tspan>] READ_REQ");
	ASSERT_STR_CONTAINS(doc, "[<tspan class=\"by-eng\">eng</tspan>&gt;");
	ASSERT_STR_CONTAINS(doc, ".by-eng{fill:#558b2f");
	ASSERT_STR_CONTAINS(doc, "<tspan class=\"by-eng\">[eng] the engine "
			    "thread</tspan>");
	ASSERT_STR_CONTAINS(doc, "[post/cons] the consumer, in its own DAT "
			    "call");
	free(doc);
	ASSERT_EQ(run_seq(&out, "-o", "who.html", trace, NULL), 0);
	free(out);
	doc = test_read_file("who.html");
	ASSERT_NOT_NULL(doc);
	ASSERT_STR_CONTAINS(doc, "<span class=\"by-wait\">[wait/dequeue] ");
	free(doc);
	unlink(trace);
	free(trace);

	test_setenv("SOFTDAPL_TRANSPORT", NULL);
	trace = trace_example("rdma-read");
	ASSERT_NOT_NULL(trace);
	ASSERT_EQ(run_seq(&out, "-f", "text", "-W", "200", trace, NULL), 0);
	ASSERT_STR_CONTAINS(out, "RDMA_READ 32 B");
	ASSERT(strstr(out, "READ_RESP") == NULL);
	ASSERT(strstr(out, "READ_REQ") == NULL);
	free(out);
	free(trace);
	return 0;
}

/*
 * The read through frames (SOFTDAPL_TRANSPORT=copy, whatever the kernel
 * allows): READ_REQ and READ_RESP, each with both ends.
 */
TEST_IMPL(seq_real_rdma_read)
{
	char *trace, *out, *dom, *f;

	test_setenv("SOFTDAPL_TRANSPORT", "copy");
	trace = trace_example("rdma-read");
	test_setenv("SOFTDAPL_TRANSPORT", NULL);
	if (trace == NULL)
		TEST_SKIP("the provider wrote no SOFTDAPL_TRACE lines");
	ASSERT_EQ(run_seq(&out, "-o", "real.html", trace, NULL), 0);
	/* The provider's own lines must all parse. */
	if (strstr(out, "skipped") != NULL)
		TEST_FAIL("lines of the provider's trace skipped:\n%s", out);
	free(out);
	free(trace);
	dom = chromium_dom("real.html", 1);
	if (dom == NULL)
		TEST_SKIP("chromium missing: apt-get install -y chromium");
	check_selfcheck(dom);
	/* Both EPs of the example (server and client) have a lifeline. */
	ASSERT_GE(count(dom, "<g class=\"lifeline ep\""), 2);
	f = find_frame(dom, "data-op=\"READ_REQ\"", NULL);
	ASSERT_NOT_NULL(f);
	ASSERT(strstr(f, " stub") == NULL);
	free(f);
	f = find_frame(dom, "data-op=\"READ_RESP\"", NULL);
	ASSERT_NOT_NULL(f);
	ASSERT(strstr(f, " stub") == NULL);
	free(f);
	ASSERT_STR_CONTAINS(dom, "data-op=\"RDMA_READ\" "
			    "data-status=\"DAT_DTO_SUCCESS\"");
	ASSERT_STR_CONTAINS(dom, "data-to=\"CONNECTED\"");
	ASSERT_STR_CONTAINS(dom,
			    "data-event=\"DAT_CONNECTION_EVENT_ESTABLISHED\"");
	free(dom);
	return 0;
}

/* A flushed queue, drawn from the provider's trace of example flush. */
TEST_IMPL(seq_real_flush)
{
	char *trace, *out, *doc;

	trace = trace_example("flush");
	if (trace == NULL)
		TEST_SKIP("the provider wrote no SOFTDAPL_TRACE lines");
	ASSERT_EQ(run_seq(&out, "-o", "flush.svg", trace, NULL), 0);
	if (strstr(out, "skipped") != NULL)
		TEST_FAIL("lines of the provider's trace skipped:\n%s", out);
	free(out);
	free(trace);
	doc = test_read_file("flush.svg");
	ASSERT_GE(count(doc, "data-status=\"DAT_DTO_ERR_FLUSHED\""), 4);
	ASSERT_STR_CONTAINS(doc, "data-to=\"DISCONNECTED\"");
	ASSERT_GE(arrows_go_down(doc), 1);
	free(doc);
	return 0;
}

/*
 * The page's self-check can fail: a text laid over another and an arrow
 * that misses its lifelines, added to a good page (above its top, where
 * nothing else is), are both reported.
 */
TEST_IMPL(seq_selfcheck_catches)
{
	char *out, *page, *bad, *dom;
	const char *end;
	size_t n;

	write_fixture();
	ASSERT_EQ(run_seq(&out, "-o", "good.html", "client.trace",
			  "server.trace", NULL), 0);
	free(out);
	page = test_read_file("good.html");
	ASSERT_NOT_NULL(page);
	end = strstr(page, "</svg>");
	ASSERT_NOT_NULL(end);
	n = strlen(page) + 1024;
	bad = malloc(n);
	ASSERT_NOT_NULL(bad);
	snprintf(bad, n, "%.*s"
		 "<text class=\"lbl\" x=\"300\" y=\"-60\">overlapping one</text>"
		 "<text class=\"lbl\" x=\"310\" y=\"-58\">overlapping two</text>"
		 "<g class=\"frame\" data-op=\"BOGUS\" data-seq=\"9\" "
		 "data-from=\"lane0\" data-to=\"lane1\"><line x1=\"1\" "
		 "y1=\"100\" x2=\"2\" y2=\"100\"/></g>%s",
		 (int)(end - page), page, end);
	test_write_file("bad.html", bad);
	free(bad);
	free(page);
	dom = chromium_dom("bad.html", 0);
	if (dom == NULL)
		TEST_SKIP("chromium missing: apt-get install -y chromium");
	ASSERT(strncmp(selfcheck_text(dom), "selfcheck: FAIL 2: ", 19) == 0);
	ASSERT_STR_CONTAINS(dom, "overlap: \"overlapping one\" / "
			    "\"overlapping two\"");
	ASSERT_STR_CONTAINS(dom, "arrow off its lifelines: BOGUS #9");
	free(dom);
	return 0;
}

/*
 * Every example of test/examples, traced by the provider, is drawn whole:
 * each line parses, and in these one-process sessions every frame has both
 * ends (no stub) and every RDMA placed by its initiator (where the kernel
 * allows cross-memory attach) is an arrow to its target's EP.
 */
TEST_IMPL(seq_real_examples)
{
	static const char *const examples[] = {
		"send-recv", "rdma-write", "rdma-read", "flush", "refused", "srq",
		"rdma-write-imm", "atomics", "rnr", "fence", "solicited",
		"access-error",
	};
	size_t i;

	for (i = 0; i < sizeof(examples) / sizeof(examples[0]); i++) {
		char *trace, *out, *doc, *text, svg[64];
		int placed;

		trace = trace_example(examples[i]);
		if (trace == NULL)
			TEST_SKIP("the provider wrote no SOFTDAPL_TRACE lines");
		text = test_read_file(trace);
		ASSERT_NOT_NULL(text);
		placed = count(text, " place ");
		free(text);
		snprintf(svg, sizeof(svg), "%s.svg", examples[i]);
		ASSERT_EQ(run_seq(&out, "-o", svg, trace, NULL), 0);
		if (strstr(out, "skipped") != NULL)
			TEST_FAIL("%s: lines of the provider's trace skipped:\n%s",
				  examples[i], out);
		free(out);
		ASSERT_OK(remove(trace));
		free(trace);
		doc = test_read_file(svg);
		ASSERT_NOT_NULL(doc);
		printf("%s: %d frames, %d placed, %d completions\n",
		       examples[i], count(doc, "<g class=\"frame "), placed,
		       count(doc, "<g class=\"dto "));
		ASSERT_EQ(count(doc, "<g class=\"place arrow "), placed);
		ASSERT_EQ(count(doc, "<g class=\"place note "), 0);
		ASSERT_GE(count(doc, "<g class=\"lifeline ep\""), 2);
		if (count(doc, " stub\"") != 0)
			TEST_FAIL("%s: a frame without its other end", examples[i]);
		ASSERT_EQ(arrows_go_down(doc), count(doc, "<g class=\"frame "));
		if (strcmp(examples[i], "refused") == 0)
			ASSERT_STR_CONTAINS(doc, "data-op=\"REJECT\"");
		else if (strcmp(examples[i], "access-error") == 0)
			ASSERT_STR_CONTAINS(doc, "DAT_DTO_ERR_REMOTE_ACCESS");
		else
			ASSERT_GE(count(doc, "data-status=\"DAT_DTO_SUCCESS\""), 1);
		free(doc);
	}
	return 0;
}

/*
 * The pictures of the examples (make pictures) are in the tree, one per
 * example, well-formed, drawn from real traces, without paths of the
 * machine that made them.
 */
TEST_IMPL(seq_pictures_committed)
{
	static const char *const examples[] = {
		"send-recv", "rdma-write", "rdma-read", "flush", "refused", "srq",
	};
	static char paths[6][1024];
	const char *list[7];
	size_t i;

	for (i = 0; i < sizeof(examples) / sizeof(examples[0]); i++) {
		char *doc;

		snprintf(paths[i], sizeof(paths[i]), "%s/tools/pictures/%s.svg",
			 TEST_SRCDIR, examples[i]);
		doc = test_read_file(paths[i]);
		if (doc == NULL)
			TEST_FAIL("%s missing: run make pictures", paths[i]);
		ASSERT(strncmp(doc, "<?xml", 5) == 0);
		ASSERT_GE(count(doc, "<g class=\"lifeline ep\""), 2);
		ASSERT_GE(count(doc, "<g class=\"frame "), 2);
		ASSERT_STR_CONTAINS(doc, "data-line=\"build/pictures/");
		ASSERT(strstr(doc, TEST_SRCDIR) == NULL);
		free(doc);
		list[i] = paths[i];
	}
	list[i] = NULL;
	check_xmlv(list);
	return 0;
}

/*
 * The text pictures of the examples (make pictures) are in the tree, one
 * per example, pure ASCII in 100 columns, titled with the example's name,
 * with headers that name the EPs and arrows between them.
 */
TEST_IMPL(seq_pictures_text)
{
	static const char *const examples[] = {
		"send-recv", "rdma-write", "rdma-read", "flush", "refused", "srq",
	};
	size_t i;

	for (i = 0; i < sizeof(examples) / sizeof(examples[0]); i++) {
		char path[1024], *doc, *head;
		const char *p;
		int cols[16], n;

		snprintf(path, sizeof(path), "%s/tools/pictures/%s.txt",
			 TEST_SRCDIR, examples[i]);
		doc = test_read_file(path);
		if (doc == NULL)
			TEST_FAIL("%s missing: run make pictures", path);
		ASSERT_GE(check_text(doc, 100), 10);
		ASSERT(strncmp(doc, examples[i], strlen(examples[i])) == 0);
		ASSERT_EQ(doc[strlen(examples[i])], '\n');
		n = lifeline_cols(doc, cols, 16);
		ASSERT_GE(n, 2);
		/* The headers: everything above the lifelines' heads. */
		p = lifeline_row(doc);
		ASSERT_NOT_NULL(p);
		head = strndup(doc, (size_t)(p - doc));
		ASSERT_STR_CONTAINS(head, "ep1");
		ASSERT_STR_CONTAINS(head, "ep2");
		ASSERT_STR_CONTAINS(head, "pid ");
		/* Addresses, or ports: local and peer of a connection (in
		 * refused, only the client's EP has one). */
		ASSERT_GE(count(head, ":"), 2);
		free(head);
		ASSERT_GE(count(doc, "->|") + count(doc, "|<-"), 2);
		if (strcmp(examples[i], "refused") != 0)
			ASSERT_STR_CONTAINS(doc, "[ok] ");
		else
			ASSERT_STR_CONTAINS(doc, "REJECT seq=0");
		/*
		 * Both ends on one host: the initiator reads and writes the
		 * target's memory itself, drawn as such (no frame).
		 */
		if (strcmp(examples[i], "rdma-read") == 0) {
			/* An arrow of '=' (its length follows the time
			 * column's width, which follows the trace's). */
			char *l = text_line(doc, "= RDMA_READ 32 B");

			ASSERT_NOT_NULL(l);
			ASSERT_STR_CONTAINS(l, "|===");
			ASSERT(strstr(l, "===>|") != NULL ||
			       strstr(l, "|<===") != NULL);
			free(l);
			ASSERT_STR_CONTAINS(doc, "target CPU idle");
			ASSERT(strstr(doc, "READ_REQ seq=") == NULL);
			ASSERT_STR_CONTAINS(doc, "[ok] RDMA_READ");
		}
		if (strcmp(examples[i], "rdma-write") == 0) {
			ASSERT_STR_CONTAINS(doc, "RDMA_WRITE 32 B");
			ASSERT_STR_CONTAINS(doc, "target CPU idle");
			ASSERT(strstr(doc, "WRITE seq=") == NULL);
		}
		ASSERT(strstr(doc, TEST_SRCDIR) == NULL);
		free(doc);
	}
	return 0;
}

/* ------------------------------------------------------------------------
 * Causal order and time, drawn from the provider's own traces
 */

/* The buffer of each node of the scenarios below. */
#define SCENE_LEN	4096

/*
 * Opens our IA with SOFTDAPL_TRACE=@file (read when the provider loads,
 * which is now: each test runs in a process of its own that has not
 * loaded it) and SOFTDAPL_TRANSPORT=@transport (NULL: the default), and
 * connects two nodes of it, @cli (ep1) to @srv (ep2).
 */
static DAT_IA_HANDLE scene_open(const char *file, const char *transport,
				struct sdt_node *cli, struct sdt_node *srv)
{
	DAT_IA_HANDLE ia;

	unlink(file);
	test_setenv("SOFTDAPL_TRANSPORT", transport);
	test_setenv("SOFTDAPL_TRACE", file);
	ia = sdt_open_ia("lo", NULL);
	test_setenv("SOFTDAPL_TRACE", NULL);
	sdt_node_init(cli, ia, NULL, SCENE_LEN);
	sdt_node_init(srv, ia, NULL, SCENE_LEN);
	sdt_connect(cli, srv);
	return ia;
}

/* Frees what scene_open made; the trace is complete after it. */
static void scene_close(DAT_IA_HANDLE ia, struct sdt_node *cli,
			struct sdt_node *srv)
{
	sdt_node_fini(cli);
	sdt_node_fini(srv);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	test_setenv("SOFTDAPL_TRANSPORT", NULL);
}

/*
 * A receive posted 300 ms after the send it is for: the client sends at
 * once (cookie 0x51), the server posts its receive (0x52) 300 ms later.
 */
static void scene_late_recv(const char *file)
{
	struct sdt_node cli, srv;
	DAT_IA_HANDLE ia = scene_open(file, NULL, &cli, &srv);

	ASSERT_OK(sdt_send(&cli, 0, 64, 0x51, DAT_COMPLETION_DEFAULT_FLAG));
	test_sleep_ms(300);
	ASSERT_OK(sdt_recv(&srv, 0, 64, 0x52));
	sdt_expect_dto(srv.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 0x52);
	sdt_expect_dto(cli.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 0x51);
	sdt_disconnect(&cli, &srv);
	scene_close(ia, &cli, &srv);
}

/*
 * A graceful disconnect by the client, each side with a receive posted
 * (0x61 on the client, 0x62 on the server) that the disconnect flushes.
 */
static void scene_disconnect(const char *file)
{
	struct sdt_node cli, srv;
	DAT_IA_HANDLE ia = scene_open(file, NULL, &cli, &srv);

	ASSERT_OK(sdt_recv(&cli, 0, 64, 0x61));
	ASSERT_OK(sdt_recv(&srv, 0, 64, 0x62));
	ASSERT_OK(dat_ep_disconnect(cli.ep, DAT_CLOSE_GRACEFUL_FLAG));
	sdt_expect_conn(cli.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	sdt_expect_conn(srv.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	sdt_expect_dto(cli.recv_evd, DAT_DTO_ERR_FLUSHED, DAT_DTO_RECEIVE,
		       0x61);
	sdt_expect_dto(srv.recv_evd, DAT_DTO_ERR_FLUSHED, DAT_DTO_RECEIVE,
		       0x62);
	scene_close(ia, &cli, &srv);
}

/*
 * SEND-2's barrier fence, through frames (SOFTDAPL_TRANSPORT=copy): the
 * client reads 32 bytes of the server's memory (0x71), then sends them
 * with DAT_COMPLETION_BARRIER_FENCE_FLAG (0x72), which waits for the
 * read; the server's receive (0x73) takes them.
 */
static void scene_fence(const char *file)
{
	struct sdt_node cli, srv;
	DAT_IA_HANDLE ia = scene_open(file, "copy", &cli, &srv);
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET r;
	DAT_DTO_COOKIE ck;

	ASSERT_OK(sdt_recv(&srv, 1024, 64, 0x73));
	iov = sdt_iov(&cli, 0, 32);
	r = sdt_rmr(&srv, 0, 32);
	ck.as_64 = 0x71;
	ASSERT_OK(dat_ep_post_rdma_read(cli.ep, 1, &iov, ck, &r,
					DAT_COMPLETION_DEFAULT_FLAG));
	ASSERT_OK(sdt_send(&cli, 0, 32, 0x72,
			   DAT_COMPLETION_BARRIER_FENCE_FLAG));
	sdt_expect_dto(srv.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 0x73);
	sdt_expect_dto(cli.req_evd, DAT_DTO_SUCCESS, DAT_DTO_RDMA_READ, 0x71);
	sdt_expect_dto(cli.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 0x72);
	sdt_disconnect(&cli, &srv);
	scene_close(ia, &cli, &srv);
}

/* Draws @trace as text (-P) into @txt and returns it (free it). */
static char *scene_text(const char *trace, const char *txt)
{
	char *out, *doc;

	ASSERT_EQ(run_seq(&out, "--text", "-P", "-o", txt, trace, NULL), 0);
	if (strstr(out, "skipped") != NULL)
		TEST_FAIL("lines of the provider's trace skipped:\n%s", out);
	free(out);
	doc = test_read_file(txt);
	ASSERT_NOT_NULL(doc);
	check_text(doc, 100);
	printf("%s\n", doc);
	return doc;
}


/* The line of @doc holding @a is above the one holding @b. */
static void above(const char *doc, const char *a, const char *b)
{
	long la = line_no(doc, a), lb = line_no(doc, b);

	if (la < 0 || lb < 0)
		TEST_FAIL("no row \"%s\"", la < 0 ? a : b);
	if (la >= lb)
		TEST_FAIL("\"%s\" (row %ld) is not above \"%s\" (row %ld)", a,
			  la, b, lb);
}

/*
 * The column of the lifeline whose header names @lane ("ep1 (pid"):
 * the one nearest the middle of its name, among the @n of @cols.
 */
static int lane_col(const char *doc, const char *lane, const int *cols,
		    int n)
{
	const char *p = find(doc, lane), *b;
	int mid, best = -1, i;

	ASSERT_NOT_NULL(p);
	for (b = p; b > doc && b[-1] != '\n'; b--)
		;
	mid = (int)(p - b) + (int)strlen(lane) / 2;
	for (i = 0; i < n; i++)
		if (best < 0 || abs(cols[i] - mid) < abs(best - mid))
			best = cols[i];
	return best;
}

/* The column where the arrow of @line starts (its tail), among @cols. */
static int arrow_tail(const char *line, const int *cols, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		int c = cols[i];

		if ((int)strlen(line) <= c + 1 || line[c] != '|')
			continue;
		if (line[c + 1] == '-' || line[c + 1] == '=')
			return c;	/* |---->| */
		if (c > 0 && (line[c - 1] == '-' || line[c - 1] == '='))
			return c;	/* |<----| */
	}
	return -1;
}

/*
 * The y of the row of the group (<g class="@cls) whose attributes hold
 * @a (and @b unless NULL): its first box's or line's top.
 */
static long svg_row_y(const char *doc, const char *cls, const char *a,
		      const char *b)
{
	char open[64], *g;
	const char *r, *l;
	long y;

	snprintf(open, sizeof(open), "<g class=\"%s", cls);
	g = find_group(doc, open, a, b);
	if (g == NULL)
		TEST_FAIL("no %s group with %s", cls, a);
	r = strstr(g, "<rect ");
	l = strstr(g, "<line ");
	if (l != NULL && (r == NULL || l < r))
		y = attr(l, "y1");
	else
		y = r != NULL ? attr(r, "y") : -1;
	free(g);
	ASSERT_GE(y, 0);
	return y;
}

/*
 * A receive posted 300 ms late: the client's post is above its SEND,
 * which is above the server's completion, and so is the server's post
 * that made the completion possible (its api line, written when the call
 * returned, follows the completion in the file); in the text and in the
 * picture alike.
 */
TEST_IMPL(seq_causal_late_recv)
{
	char *doc, *l, *out;
	int cols[8], n, c1, c2;

	scene_late_recv("late.trace");
	doc = scene_text("late.trace", "late.txt");
	above(doc, "ep_post_send cookie=0x51", "SEND seq=");
	above(doc, "SEND seq=", "[ok] RECEIVE len=64 cookie=0x52");
	above(doc, "ep_post_recv cookie=0x52",
	      "[ok] RECEIVE len=64 cookie=0x52");
	above(doc, "ep_post_recv cookie=0x52", "ACK seq=");
	/* The SEND goes from the client's lifeline to the server's. */
	n = lifeline_cols(doc, cols, 8);
	c1 = lane_col(doc, "ep1 (pid", cols, n);
	c2 = lane_col(doc, "ep2 (pid", cols, n);
	l = text_line(doc, "SEND seq=");
	check_arrow(l, c1, c2, '-');
	free(l);
	l = text_line(doc, "ep_post_recv cookie=0x52");
	ASSERT_EQ(l[c2], '*');
	free(l);
	free(doc);

	ASSERT_EQ(run_seq(&out, "-P", "-o", "late.svg", "late.trace", NULL), 0);
	free(out);
	doc = test_read_file("late.svg");
	ASSERT_NOT_NULL(doc);
	ASSERT_LT(svg_row_y(doc, "api", "data-call=\"ep_post_send\"", NULL),
		  svg_row_y(doc, "frame", "data-op=\"SEND\"", NULL));
	ASSERT_LT(svg_row_y(doc, "frame", "data-op=\"SEND\"", NULL),
		  svg_row_y(doc, "dto", "data-op=\"RECEIVE\"", NULL));
	ASSERT_LT(svg_row_y(doc, "api", "data-call=\"ep_post_recv\"", NULL),
		  svg_row_y(doc, "dto", "data-op=\"RECEIVE\"", NULL));
	ASSERT_EQ(arrows_go_down(doc), count(doc, "<g class=\"frame "));
	free(doc);
	return 0;
}

/*
 * A graceful disconnect: the call is above the state change it made and
 * the DISCONNECT frame it sent (the client's, the first), and above the
 * receive it flushed; the server's receive is flushed once that frame
 * arrived.
 */
TEST_IMPL(seq_causal_disconnect)
{
	char *doc, *l;
	int cols[8], n, c1, c2;

	scene_disconnect("disc.trace");
	doc = scene_text("disc.trace", "disc.txt");
	above(doc, "ep_post_recv cookie=0x61", "ep_disconnect close=GRACEFUL");
	above(doc, "ep_post_recv cookie=0x62", "ep_disconnect close=GRACEFUL");
	above(doc, "ep_disconnect close=GRACEFUL",
	      "CONNECTED => DISCONNECT_PENDING");
	above(doc, "ep_disconnect close=GRACEFUL", "DISCONNECT seq=");
	above(doc, "DISCONNECT seq=", "[FLUSHED] RECEIVE len=0 cookie=0x62");
	above(doc, "ep_disconnect close=GRACEFUL",
	      "[FLUSHED] RECEIVE len=0 cookie=0x61");
	/* The first DISCONNECT is the client's, the one the call sent. */
	n = lifeline_cols(doc, cols, 8);
	c1 = lane_col(doc, "ep1 (pid", cols, n);
	c2 = lane_col(doc, "ep2 (pid", cols, n);
	l = text_line(doc, "ep_disconnect close=GRACEFUL");
	ASSERT_EQ(l[c1], '*');
	free(l);
	l = text_line(doc, "DISCONNECT seq=");
	check_arrow(l, c1, c2, '-');
	ASSERT_EQ(arrow_tail(l, cols, n), c1);
	free(l);
	free(doc);
	return 0;
}

/*
 * SEND-2's barrier fence after an RDMA read, through frames: the read's
 * post, its request, its response and its completion in that order, and
 * the fenced SEND, posted before the read is done, leaves only after it:
 * below the READ_RESP and the read's completion, above the server's
 * completion of its receive.
 */
TEST_IMPL(seq_causal_fence)
{
	char *doc, *l;
	int cols[8], n, c1, c2;

	scene_fence("fence.trace");
	doc = scene_text("fence.trace", "fence.txt");
	above(doc, "ep_post_rdma_read cookie=0x71", "READ_REQ seq=");
	above(doc, "READ_REQ seq=", "READ_RESP seq=");
	above(doc, "READ_RESP seq=", "[ok] RDMA_READ len=32 cookie=0x71");
	above(doc, "ep_post_rdma_read cookie=0x71", "ep_post_send cookie=0x72");
	above(doc, "ep_post_send cookie=0x72", "SEND seq=");
	above(doc, "READ_RESP seq=", "SEND seq=");
	above(doc, "[ok] RDMA_READ len=32 cookie=0x71", "SEND seq=");
	above(doc, "SEND seq=", "[ok] RECEIVE len=32 cookie=0x73");
	above(doc, "SEND seq=", "[ok] SEND len=32 cookie=0x72");
	/* The fenced post (its flags may be cut in the text). */
	l = test_read_file("fence.trace");
	ASSERT_NOT_NULL(l);
	ASSERT_STR_CONTAINS(l, " ep_post_send ret=DAT_SUCCESS cookie=0x72 "
			    "len=32 segs=1 flags=BARRIER_FENCE");
	free(l);
	n = lifeline_cols(doc, cols, 8);
	c1 = lane_col(doc, "ep1 (pid", cols, n);
	c2 = lane_col(doc, "ep2 (pid", cols, n);
	l = text_line(doc, "READ_REQ seq=");
	check_arrow(l, c1, c2, '-');
	free(l);
	l = text_line(doc, "READ_RESP seq=");
	check_arrow(l, c2, c1, '-');
	free(l);
	l = text_line(doc, "SEND seq=");
	check_arrow(l, c1, c2, '-');
	free(l);
	free(doc);
	return 0;
}

/*
 * An api line whose time ties with lines before it in its file (the
 * provider stamps a call at its entry and writes its line when it
 * returns): it goes above those its call caused (by the trace's links:
 * the state change that names it, the frame it sends, the completion it
 * flushed), not above another call's line or another call's frame, and
 * above any line later than it.
 */
TEST_IMPL(seq_causal_ties)
{
	char *out, *doc;

	test_write_file("tie.trace",
"12:00:00.000100 1 api ep1 ep_post_send ret=DAT_SUCCESS cookie=0x1 len=8 "
	"segs=1 flags=DEFAULT\n"
"12:00:00.000101 1 tx ep1 SEND " C_CONN " seq=2 bytes=40 len=8 ack=0 "
	"rkey=0x0 addr=0x0 " NOTAG "\n"
"12:00:00.000101 1 state ep1 CONNECTED to=DISCONNECT_PENDING "
	"why=\"graceful disconnect\"\n"
"12:00:00.000105 1 rx ep2 ACK " S_CONN " seq=1 bytes=32 len=0 ack=1 "
	"rkey=0x0 addr=0x0 " NOTAG "\n"
"12:00:00.000101 1 tx ep1 DISCONNECT " C_CONN " seq=3 bytes=32 len=0 "
	"ack=0 rkey=0x0 addr=0x0 " NOTAG "\n"
"12:00:00.000101 1 dto ep1 RECEIVE evd=evd3 cookie=0x2 "
	"status=DAT_DTO_ERR_FLUSHED len=0\n"
"12:00:00.000101 1 api ep1 ep_disconnect ret=DAT_SUCCESS close=GRACEFUL\n"
"12:00:00.000102 1 api ep1 ep_free ret=DAT_SUCCESS\n");
	ASSERT_EQ(run_seq(&out, "--text", "-o", "tie.txt", "tie.trace", NULL),
		  0);
	free(out);
	doc = test_read_file("tie.txt");
	ASSERT_NOT_NULL(doc);
	printf("%s", doc);
	above(doc, "ep_post_send cookie=0x1", "SEND seq=2");
	above(doc, "SEND seq=2", "ep_disconnect close=GRACEFUL");
	above(doc, "ep_disconnect close=GRACEFUL",
	      "CONNECTED => DISCONNECT_PENDING");
	above(doc, "ep_disconnect close=GRACEFUL", "ACK seq=1");
	above(doc, "ep_disconnect close=GRACEFUL", "DISCONNECT seq=3");
	above(doc, "ep_disconnect close=GRACEFUL", "[FLUSHED] RECEIVE");
	above(doc, "[FLUSHED] RECEIVE", "ep_free");
	free(doc);
	return 0;
}

/*
 * The time every output shows: one format, "+304.709 ms" after the first
 * line; rows spaced by the time between them in the pictures; the 300 ms
 * of a late receive folded into a band, "300 ms pass", in the picture and
 * in the text ("... 300 ms pass ..."). With --even the rows are evenly
 * spaced but the wait is still folded and said.
 */
TEST_IMPL(seq_time_fold)
{
	enum { MAXROWS = 256 };
	static long ys[MAXROWS];
	static char ts[MAXROWS][32];
	const char *p;
	char *doc, *txt, *out, *l, want[64];
	long us, rows = 0, big = -1, small = -1, even_small = -1, i;

	scene_late_recv("late.trace");
	txt = scene_text("late.trace", "late.txt");

	/*
	 * Text: one "... N ms pass ..." row with N >= 300 (others, of a
	 * few ms, may be folded too), between the SEND and the late post;
	 * its times all "+N.NNN ms".
	 */
	want[0] = '\0';
	for (p = txt; (p = find(p, "\n")) != NULL; p++) {
		const char *q;

		l = strndup(p + 1, strcspn(p + 1, "\n"));
		q = strstr(l, "... ");
		if (q != NULL && strstr(q, " ms pass ...") != NULL &&
		    l[0] == ' ' && atol(q + 4) >= 300) {
			ASSERT_EQ(want[0], '\0');
			snprintf(want, sizeof(want), "%ld ms pass",
				 atol(q + 4));
		}
		free(l);
	}
	if (want[0] == '\0')
		TEST_FAIL("no row \"... N ms pass ...\" with N >= 300");
	above(txt, "SEND seq=", want);
	above(txt, want, "ep_post_recv cookie=0x52");
	ASSERT_STR_CONTAINS(txt, "time: milliseconds after the first line");
	for (p = txt; (p = strchr(p, '\n')) != NULL; p++) {
		const char *q = p + 1 + strspn(p + 1, " ");
		char t[32];
		int n;

		if (*q != '+')
			continue;
		/* "+D.DDD ms" then the lifelines. */
		n = (int)strspn(q + 1, "0123456789");
		ASSERT_GT(n, 0);
		ASSERT_EQ(q[1 + n], '.');
		ASSERT_EQ(strspn(q + 2 + n, "0123456789"), 3);
		ASSERT(strncmp(q + 5 + n, " ms ", 4) == 0);
		snprintf(t, sizeof(t), ">%.*s</text>", 8 + n, q);
		if (rows < MAXROWS)
			snprintf(ts[rows++], sizeof(ts[0]), "%s", t);
	}
	ASSERT_GE(rows, 20);

	/* The picture: the band, its words, the same times. */
	ASSERT_EQ(run_seq(&out, "-P", "-o", "late.svg", "late.trace", NULL), 0);
	free(out);
	doc = test_read_file("late.svg");
	ASSERT_NOT_NULL(doc);
	check_xml("late.svg");
	us = 0;
	for (p = doc; (p = find(p, "<g class=\"fold\" data-us=\"")) != NULL;
	     p++)
		if (atol(p + strlen("<g class=\"fold\" data-us=\"")) > us)
			us = atol(p + strlen("<g class=\"fold\" data-us=\""));
	ASSERT_GE(us, 300000);
	ASSERT_LT(us, 10000000);
	ASSERT_STR_CONTAINS(doc, want);
	for (i = 0; i < rows; i++)
		if (find(doc, ts[i]) == NULL)
			TEST_FAIL("the text's time %s is not the picture's",
				  ts[i]);
	/*
	 * The rows with a time (<text class="lbl time" y=...>), top to
	 * bottom: the two on either side of the wait are further apart
	 * than any two 3 us apart or less.
	 */
	rows = 0;
	for (p = doc; (p = find(p, "<text class=\"lbl time\" ")) != NULL;
	     p++) {
		const char *v = strchr(p, '>') + 1;
		long ms, frac;

		ASSERT_EQ(sscanf(v, "+%ld.%ld ms<", &ms, &frac), 2);
		if (rows < MAXROWS) {
			ys[rows] = attr(p, "y");
			snprintf(ts[rows], sizeof(ts[0]), "%ld",
				 ms * 1000 + frac);
			rows++;
		}
	}
	ASSERT_GE(rows, 20);
	for (i = 1; i < rows; i++) {
		long dt = atol(ts[i]) - atol(ts[i - 1]), dy = ys[i] - ys[i - 1];

		ASSERT_GT(dy, 0);
		if (dt >= 300000)
			big = dy;
		else if (dt >= 0 && dt <= 3 && dy > small)
			small = dy;
	}
	printf("rows apart: %ld px across the wait, %ld px at most 3 us "
	       "apart\n", big, small);
	ASSERT_GT(big, 0);
	/* A busy machine may leave no two rows 3 us apart: the fixture
	 * below has them for sure. */
	if (small > 0)
		ASSERT_GT(big, small);
	free(doc);

	/*
	 * The same, by hand, to the pixel: four notes 0, 3 us, 300 ms and
	 * 300 ms + 3 us after the first; 3 us apart is a row (18 px) and a
	 * little, the wait a band taller than any wait not folded.
	 */
	test_write_file("gap.trace",
		"12:00:00.000000 1 api ep1 ep_create ret=DAT_SUCCESS\n"
		"12:00:00.000003 1 api ep1 ep_post_recv ret=DAT_SUCCESS "
			"cookie=0x1\n"
		"12:00:00.300003 1 api ep1 ep_post_recv ret=DAT_SUCCESS "
			"cookie=0x2\n"
		"12:00:00.300006 1 api ep1 ep_free ret=DAT_SUCCESS\n");
	ASSERT_EQ(run_seq(&out, "-o", "gap.svg", "gap.trace", NULL), 0);
	free(out);
	doc = test_read_file("gap.svg");
	rows = 0;
	for (p = doc; (p = find(p, "<text class=\"lbl time\" ")) != NULL;
	     p++)
		if (rows < MAXROWS)
			ys[rows++] = attr(p, "y");
	ASSERT_EQ(rows, 4);
	printf("by hand: rows %ld, %ld, %ld, %ld px\n", ys[0], ys[1], ys[2],
	       ys[3]);
	ASSERT_GT(ys[1] - ys[0], 18);
	ASSERT_LT(ys[1] - ys[0], 18 + 8);
	ASSERT_EQ(ys[3] - ys[2], ys[1] - ys[0]);
	ASSERT_GT(ys[2] - ys[1], ys[1] - ys[0] + 18);
	ASSERT_STR_CONTAINS(doc, ">300 ms pass</text>");
	ASSERT_STR_CONTAINS(doc, ">+300.003 ms</text>");
	free(doc);
	ASSERT_EQ(run_seq(&out, "--text", "-o", "gap.txt", "gap.trace", NULL),
		  0);
	free(out);
	doc = test_read_file("gap.txt");
	printf("%s", doc);
	ASSERT_STR_CONTAINS(doc, "... 300 ms pass ...");
	above(doc, "+0.003 ms", "... 300 ms pass ...");
	above(doc, "... 300 ms pass ...", "+300.003 ms");
	free(doc);

	/* --even: rows evenly spaced, the wait still folded and said. */
	ASSERT_EQ(run_seq(&out, "-P", "--even", "-o", "even.svg", "late.trace",
			  NULL), 0);
	free(out);
	doc = test_read_file("even.svg");
	ASSERT_STR_CONTAINS(doc, want);
	rows = 0;
	for (p = doc; (p = find(p, "<text class=\"lbl time\" ")) != NULL;
	     p++)
		if (rows < MAXROWS)
			ys[rows++] = attr(p, "y");
	for (i = 1; i < rows; i++)
		if (even_small < 0 || ys[i] - ys[i - 1] < even_small)
			even_small = ys[i] - ys[i - 1];
	ASSERT_EQ(even_small, 18);	/* ROW: no room for time */
	free(doc);

	/* --fold 0: never folded (only the legend says "ms pass"). */
	ASSERT_EQ(run_seq(&out, "-P", "--fold", "0", "-o", "nofold.txt",
			  "late.trace", NULL), 0);
	free(out);
	doc = test_read_file("nofold.txt");
	ASSERT_EQ(count(doc, "ms pass"), 1);
	free(doc);
	ASSERT_EQ(run_seq(&out, "-P", "--fold", "0", "-o", "nofold.svg",
			  "late.trace", NULL), 0);
	free(out);
	doc = test_read_file("nofold.svg");
	ASSERT(strstr(doc, "class=\"fold") == NULL);
	free(doc);
	ASSERT_EQ(run_seq(&out, "--fold", "x", "late.trace", NULL), 2);
	ASSERT_STR_CONTAINS(out, "--fold x");
	free(out);
	free(txt);

	/* The page: its self-check passes over the band and its words. */
	ASSERT_EQ(run_seq(&out, "-P", "-o", "late.html", "late.trace", NULL),
		  0);
	free(out);
	doc = chromium_dom("late.html", 1);
	if (doc == NULL)
		TEST_SKIP("chromium missing: apt-get install -y chromium");
	check_selfcheck(doc);
	ASSERT_STR_CONTAINS(doc, want);
	ASSERT_EQ(count(doc, "<g class=\"fold\""), count(doc,
		  "<g class=\"foldlabel\""));
	free(doc);
	return 0;
}

/*
 * The RNR lines of @trace for @ep ("ep2"): its SEND's rx, the wait, the
 * resume, then the receive's completion (@dto: " dto ep2 RECEIVE "), in
 * that order, one wait and one resume; their lines into @wait, @resume.
 */
static void rnr_lines(const char *trace, const char *ep, const char *dto_at,
		      const char **wait, const char **resume)
{
	char rx_at[32], wait_at[48], resume_at[48];
	const char *rx, *dto;

	snprintf(rx_at, sizeof(rx_at), " rx %s SEND ", ep);
	snprintf(wait_at, sizeof(wait_at), " rnr %s wait op=SEND seq=", ep);
	snprintf(resume_at, sizeof(resume_at), " rnr %s resume op=SEND seq=",
		 ep);
	rx = find(trace, rx_at);
	*wait = find(trace, wait_at);
	*resume = find(trace, resume_at);
	dto = find(trace, dto_at);
	ASSERT_NOT_NULL(rx);
	ASSERT_NOT_NULL(*wait);
	ASSERT_NOT_NULL(*resume);
	ASSERT_NOT_NULL(dto);
	ASSERT(rx < *wait);
	ASSERT(*wait < *resume);
	ASSERT(*resume < dto);
	ASSERT_EQ(count(trace, " rnr "), 2);
}

/*
 * Receiver not ready. The late receive's trace: the server's EP stops
 * reading after the SEND's rx (rnr wait, its seq=) and starts again once
 * the receive is posted (rnr resume, waited_us= about 300 ms), before the
 * receive completes. The text draws both rows, InfiniBand's way beside
 * the wait and the lifeline '#' between; the picture a band on the
 * lifeline from one to the other.
 */
TEST_IMPL(seq_rnr_late_recv)
{
	char *trace, *doc, *out, *l, *g;
	const char *rx, *wait, *resume, *w;
	long us;
	int cols[8], n, c2;

	scene_late_recv("late.trace");
	trace = test_read_file("late.trace");
	ASSERT_NOT_NULL(trace);
	/* Once per wait; the seq is the SEND's. */
	rnr_lines(trace, "ep2", " dto ep2 RECEIVE ", &wait, &resume);
	rx = find(trace, " rx ep2 SEND ");
	ASSERT_EQ(strtol(find(rx, "seq=") + 4, NULL, 10),
		  strtol(find(wait, "seq=") + 4, NULL, 10));
	ASSERT_EQ(strtol(find(resume, "seq=") + 4, NULL, 10),
		  strtol(find(wait, "seq=") + 4, NULL, 10));
	w = find(resume, "waited_us=");
	ASSERT_NOT_NULL(w);
	us = strtol(w + 10, NULL, 10);
	ASSERT_GE(us, 250000);
	ASSERT_LT(us, 5000000);
	free(trace);

	doc = scene_text("late.trace", "late.txt");
	above(doc, "SEND seq=", "RNR: no receive posted: stops reading");
	above(doc, "RNR: no receive posted: stops reading",
	      "InfiniBand: the receiver answers RNR NAK");
	above(doc, "InfiniBand: the receiver answers RNR NAK",
	      "receive posted: reading again after");
	above(doc, "ep_post_recv cookie=0x52",
	      "receive posted: reading again after");
	above(doc, "receive posted: reading again after",
	      "[ok] RECEIVE len=64 cookie=0x52");
	ASSERT_NOT_NULL(find(doc, "(RNR retry exceeded)"));
	ASSERT_NOT_NULL(find(doc, "DAT has no RNR retry count"));
	/* The server's lifeline: '#' in the wait, '|' before and after. */
	n = lifeline_cols(doc, cols, 8);
	c2 = lane_col(doc, "ep2 (pid", cols, n);
	l = text_line(doc, "(RNR retry exceeded)");
	ASSERT_NOT_NULL(l);
	ASSERT_EQ(l[c2], '#');
	free(l);
	l = text_line(doc, "RNR: no receive posted");
	ASSERT_EQ(l[c2], '*');
	free(l);
	l = text_line(doc, "[ok] RECEIVE len=64 cookie=0x52");
	ASSERT_EQ(l[c2], '*');
	free(l);
	l = text_line(doc, "[ok] SEND");
	ASSERT_NOT_NULL(l);
	ASSERT_EQ(l[c2], '|');
	free(l);
	free(doc);

	ASSERT_EQ(run_seq(&out, "-P", "-o", "late.svg", "late.trace", NULL), 0);
	free(out);
	doc = test_read_file("late.svg");
	ASSERT_NOT_NULL(doc);
	check_xml("late.svg");
	ASSERT_LT(svg_row_y(doc, "frame", "data-op=\"SEND\"", NULL),
		  svg_row_y(doc, "rnr wait", "data-seq=", NULL));
	ASSERT_LT(svg_row_y(doc, "rnr wait", "data-seq=", NULL),
		  svg_row_y(doc, "rnr resume", "data-seq=", NULL));
	ASSERT_LT(svg_row_y(doc, "api", "data-call=\"ep_post_recv\"", NULL),
		  svg_row_y(doc, "rnr resume", "data-seq=", NULL));
	ASSERT_LT(svg_row_y(doc, "rnr resume", "data-seq=", NULL),
		  svg_row_y(doc, "dto", "data-op=\"RECEIVE\"", NULL));
	g = find_group(doc, "<g class=\"rnr wait", "data-seq=", NULL);
	ASSERT_NOT_NULL(g);
	ASSERT_NOT_NULL(find(g, "RNR: no receive posted: stops reading"));
	ASSERT_NOT_NULL(find(g, "class=\"lbl contrast\""));
	ASSERT_NOT_NULL(find(g, "InfiniBand: the receiver answers RNR NAK"));
	free(g);
	/* The band: from under the wait's note down to the resume's row. */
	ASSERT_EQ(count(doc, "<rect class=\"rnrband\""), 1);
	{
		const char *b = find(doc, "<rect class=\"rnrband\"");
		long y = attr(b, "y"), h = attr(b, "height");

		ASSERT_EQ(y, svg_row_y(doc, "rnr wait", "data-seq=", NULL) +
			  14);
		ASSERT_EQ(y + h,
			  svg_row_y(doc, "rnr resume", "data-seq=", NULL));
	}
	ASSERT_NOT_NULL(find(doc, "receiver not ready (RNR)"));
	free(doc);
	return 0;
}

/*
 * A receive posted before the SEND arrives: the provider traces no RNR
 * wait, and the drawings show none.
 */
TEST_IMPL(seq_rnr_in_time)
{
	struct sdt_node cli, srv;
	DAT_IA_HANDLE ia = scene_open("intime.trace", NULL, &cli, &srv);
	char *trace, *doc, *out;

	ASSERT_OK(sdt_recv(&srv, 0, 64, 0x82));
	ASSERT_OK(sdt_send(&cli, 0, 64, 0x81, DAT_COMPLETION_DEFAULT_FLAG));
	sdt_expect_dto(srv.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 0x82);
	sdt_expect_dto(cli.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 0x81);
	sdt_disconnect(&cli, &srv);
	scene_close(ia, &cli, &srv);
	trace = test_read_file("intime.trace");
	ASSERT_NOT_NULL(trace);
	ASSERT_NOT_NULL(find(trace, " rx ep2 SEND "));
	ASSERT_NOT_NULL(find(trace, " dto ep2 RECEIVE "));
	ASSERT_EQ(count(trace, " rnr "), 0);
	free(trace);
	doc = scene_text("intime.trace", "intime.txt");
	ASSERT_NULL(find(doc, "RNR:"));
	ASSERT_NULL(find(doc, "InfiniBand"));
	ASSERT_NULL(find(doc, "receiver not ready"));
	free(doc);
	/* Nor the picture, its legend or its style. */
	ASSERT_EQ(run_seq(&out, "-P", "-o", "intime.svg", "intime.trace",
			  NULL), 0);
	free(out);
	doc = test_read_file("intime.svg");
	ASSERT_NOT_NULL(doc);
	ASSERT_NULL(find(doc, "rnr"));
	ASSERT_NULL(find(doc, "RNR"));
	free(doc);
	return 0;
}

/*
 * The same wait on an EP of an SRQ: the SEND finds no buffer in the SRQ;
 * srq_post_recv, 100 ms later, gives one. Both lines name the SRQ; the
 * text says where no receive was posted.
 */
TEST_IMPL(seq_rnr_srq)
{
	struct sdt_node cli, srv;
	DAT_SRQ_ATTR a = { 16, 1, 0 };
	DAT_SRQ_HANDLE srq;
	DAT_LMR_TRIPLET iov;
	DAT_DTO_COOKIE ck;
	DAT_IA_HANDLE ia;
	char *trace, *doc;
	const char *wait, *resume, *dto;

	unlink("srq.trace");
	test_setenv("SOFTDAPL_TRACE", "srq.trace");
	ia = sdt_open_ia("lo", NULL);
	test_setenv("SOFTDAPL_TRACE", NULL);
	sdt_node_init(&cli, ia, NULL, SCENE_LEN);
	sdt_node_init(&srv, ia, NULL, SCENE_LEN);
	ASSERT_OK(dat_srq_create(ia, srv.pz, &a, &srq));
	ASSERT_OK(dat_ep_free(srv.ep));
	ASSERT_OK(dat_ep_create_with_srq(ia, srv.pz, srv.recv_evd, srv.req_evd,
					 srv.conn_evd, srq, NULL, &srv.ep));
	sdt_connect(&cli, &srv);
	ASSERT_OK(sdt_send(&cli, 0, 64, 0x91, DAT_COMPLETION_DEFAULT_FLAG));
	test_sleep_ms(100);
	iov = sdt_iov(&srv, 0, 64);
	ck.as_64 = 0x92;
	ASSERT_OK(dat_srq_post_recv(srq, 1, &iov, ck));
	sdt_expect_dto(srv.recv_evd, DAT_DTO_SUCCESS, DAT_DTO_RECEIVE, 0x92);
	sdt_expect_dto(cli.req_evd, DAT_DTO_SUCCESS, DAT_DTO_SEND, 0x91);
	sdt_disconnect(&cli, &srv);
	ASSERT_OK(dat_ep_free(srv.ep));
	srv.ep = DAT_HANDLE_NULL;
	ASSERT_OK(dat_srq_free(srq));
	scene_close(ia, &cli, &srv);

	trace = test_read_file("srq.trace");
	ASSERT_NOT_NULL(trace);
	rnr_lines(trace, "ep3", " dto srq1 RECEIVE ", &wait, &resume);
	dto = find(trace, " dto srq1 RECEIVE ");
	ASSERT(find(wait, " srq=srq1") < resume);
	ASSERT(find(resume, " srq=srq1") < dto);
	free(trace);
	doc = scene_text("srq.trace", "srq.txt");
	above(doc, "RNR: no receive posted in srq1: stops reading",
	      "receive posted: reading again after");
	above(doc, "receive posted: reading again after",
	      "[ok] RECEIVE len=64 cookie=0x92");
	free(doc);
	return 0;
}

/* ------------------------------------------------------------------------
 * --notice: a reader's text under the title
 */

/*
 * --notice prints its file's lines under the title, once, in every
 * output: text (the long line wrapped to --width, the title still first),
 * SVG (the title and the notice in a band of their own above the
 * headers, the drawing moved down below it) and HTML (a paragraph under
 * the <h1>). A missing file, one without text and a second --notice are
 * bad usage.
 */
TEST_IMPL(seq_notice)
{
	static const char notice[] =
		"\n  Notice the READ_REQ: the target CPU does not post anything.  \n"
		"\n"
		"A long line that the text output wraps at a space, because it is "
		"much longer than the sixty columns asked for, and the picture "
		"does too.\n";
	const char *key = "Notice the READ_REQ: the target CPU does not post "
			  "anything.";
	char *out, *doc;
	const char *p, *band, *head;

	write_fixture();
	test_write_file("notice.txt", notice);

	ASSERT_EQ(run_seq(&out, "--notice", "notice.txt", "-t", "lecture",
			  "-W", "60", "-o", "n.txt", "client.trace",
			  "server.trace", NULL), 0);
	free(out);
	doc = test_read_file("n.txt");
	ASSERT_GE(check_text(doc, 60), 10);
	ASSERT(strncmp(doc, "lecture\n", 8) == 0);
	ASSERT(strncmp(doc + 8, key, strlen(key)) == 0);
	ASSERT_EQ(doc[8 + strlen(key)], '\n');
	ASSERT_EQ(count(doc, key), 1);
	ASSERT_EQ(count(doc, "A long line that the text output wraps"), 1);
	ASSERT_EQ(count(doc, "\npicture does too.\n"), 1);
	/* The lifelines' headers come after the notice. */
	ASSERT(find(doc, "ep1") > find(doc, "does too."));
	free(doc);

	ASSERT_EQ(run_seq(&out, "--notice", "notice.txt", "-t", "lecture",
			  "-o", "n.svg", "client.trace", "server.trace", NULL), 0);
	free(out);
	check_xml("n.svg");
	doc = test_read_file("n.svg");
	ASSERT_EQ(count(doc, key), 1);
	band = find(doc, "<g class=\"notice\">");
	head = find(doc, "<g class=\"headers\">");
	ASSERT_NOT_NULL(band);
	ASSERT_NOT_NULL(head);
	p = find(band, key);
	ASSERT(p != NULL && p < head);
	ASSERT_STR_CONTAINS(band, ">lecture</text>");
	/* Everything else, headers included, is drawn below the band. */
	p = find(band, "<g transform=\"translate(0,");
	ASSERT(p != NULL && p < head);
	ASSERT_GT(strtol(p + strlen("<g transform=\"translate(0,"), NULL, 10),
		  18 + 2 * 15);
	ASSERT_EQ(count(doc, "does too."), 1);
	free(doc);

	ASSERT_EQ(run_seq(&out, "--notice", "notice.txt", "-t", "lecture",
			  "-o", "n.html", "client.trace", "server.trace", NULL), 0);
	free(out);
	doc = test_read_file("n.html");
	ASSERT_EQ(count(doc, key), 1);
	p = find(doc, "<h1>lecture</h1>\n<p id=\"notice\">");
	ASSERT_NOT_NULL(p);
	ASSERT(find(p, key) < find(p, "</p>"));
	ASSERT(find(p, "</p>") < find(p, "<svg"));
	ASSERT_EQ(count(doc, "does too."), 1);
	free(doc);

	/* Bad usage: no such file, no text, twice. */
	ASSERT_EQ(run_seq(&out, "--notice", "no-such-notice", "client.trace",
			  NULL), 2);
	ASSERT_STR_CONTAINS(out, "no-such-notice");
	free(out);
	test_write_file("blank.txt", "\n  \n");
	ASSERT_EQ(run_seq(&out, "--notice", "blank.txt", "client.trace", NULL), 2);
	ASSERT_STR_CONTAINS(out, "no text");
	free(out);
	ASSERT_EQ(run_seq(&out, "--notice", "notice.txt", "--notice",
			  "notice.txt", "client.trace", NULL), 2);
	ASSERT_STR_CONTAINS(out, "twice");
	free(out);
	return 0;
}

/*
 * The lecture set (make pictures): every lecture has its notice, and its
 * picture, page and text in the tree, each with the notice's first words
 * once under its title; the pictures are well-formed.
 */
TEST_IMPL(seq_pictures_lectures)
{
	static const char *const lectures[] = {
		"send-recv", "rdma-write", "rdma-write-imm", "rdma-read",
		"atomics", "srq", "rnr", "fence", "solicited", "flush",
		"refused", "access-error",
	};
	static char svgs[12][1024];
	const char *list[13];
	size_t i, j, k;

	for (i = 0; i < sizeof(lectures) / sizeof(lectures[0]); i++) {
		static const char *const ext[] = { "svg", "html", "txt" };
		char path[1024], words[64], xml[400], *notice, *doc;

		snprintf(path, sizeof(path), "%s/tools/pictures/%s.notice",
			 TEST_SRCDIR, lectures[i]);
		notice = test_read_file(path);
		if (notice == NULL)
			TEST_FAIL("%s missing", path);
		/* Its first words, and the same as XML writes them. */
		for (k = 0; k < sizeof(words) - 1 && notice[k] != '\n' &&
		     notice[k] != '\0'; k++)
			words[k] = notice[k];
		while (k > 0 && words[k - 1] != ' ')
			k--;
		words[k > 0 ? k - 1 : 0] = '\0';
		ASSERT_GE(strlen(words), 20);
		free(notice);
		xml[0] = '\0';
		for (k = 0; words[k] != '\0'; k++) {
			char c[2] = { words[k], '\0' };

			strcat(xml, c[0] == '&' ? "&amp;" : c[0] == '<' ? "&lt;" :
			       c[0] == '>' ? "&gt;" : c[0] == '"' ? "&quot;" :
			       c[0] == '\'' ? "&#39;" : c);
		}
		for (j = 0; j < 3; j++) {
			const char *w = j < 2 ? xml : words;

			snprintf(path, sizeof(path), "%s/tools/pictures/%s.%s",
				 TEST_SRCDIR, lectures[i], ext[j]);
			doc = test_read_file(path);
			if (doc == NULL)
				TEST_FAIL("%s missing: run make pictures", path);
			if (count(doc, w) != 1)
				TEST_FAIL("%s: \"%s\" %d times, want once", path,
					  w, count(doc, w));
			ASSERT(strstr(doc, TEST_SRCDIR) == NULL);
			free(doc);
		}
		snprintf(svgs[i], sizeof(svgs[i]), "%s/tools/pictures/%s.svg",
			 TEST_SRCDIR, lectures[i]);
		list[i] = svgs[i];
	}
	list[i] = NULL;
	check_xmlv(list);
	return 0;
}

/* ------------------------------------------------------------------------
 * The page as a lesson: steps, paths, folds, the lifeline filter
 */

/*
 * The page of example @name traced by the provider over @transport (NULL:
 * the default), into @html with the extra option @opt (NULL: none).
 * Returns 0, or -1 when the provider wrote no trace.
 */
static int page_example(const char *name, const char *transport,
			const char *html, const char *opt)
{
	char *trace, *out;

	test_setenv("SOFTDAPL_TRANSPORT", transport);
	trace = trace_example(name);
	test_setenv("SOFTDAPL_TRANSPORT", NULL);
	if (trace == NULL)
		return -1;
	if (opt != NULL)
		ASSERT_EQ(run_seq(&out, opt, "-o", html, trace, NULL), 0);
	else
		ASSERT_EQ(run_seq(&out, "-o", html, trace, NULL), 0);
	free(out);
	ASSERT_OK(remove(trace));
	free(trace);
	return 0;
}

/* The start tag of row @n (<g class="row ..." id="rowN" ...>), or NULL. */
static const char *row_tag(const char *doc, int n)
{
	char key[32];
	const char *p;

	snprintf(key, sizeof(key), " id=\"row%d\" ", n);
	p = find(doc, key);
	if (p == NULL)
		return NULL;
	while (p > doc && *p != '<')
		p--;
	return p;
}

/*
 * The value of attribute @name of the element at @s (up to its '>'),
 * into @buf; "" when it has none.
 */
static const char *str_attr(const char *s, const char *name, char *buf,
			    size_t len)
{
	char key[64];
	const char *gt = strchr(s, '>'), *p, *q;

	snprintf(key, sizeof(key), " %s=\"", name);
	buf[0] = '\0';
	p = strstr(s, key);
	if (p == NULL || gt == NULL || p > gt)
		return buf;
	p += strlen(key);
	q = strchr(p, '"');
	snprintf(buf, len, "%.*s", (int)(q - p), p);
	return buf;
}

/* Row @n's class attribute has the word @cls. */
static int row_has(const char *doc, int n, const char *cls)
{
	char buf[256], word[64];
	const char *t = row_tag(doc, n);

	ASSERT_NOT_NULL(t);
	snprintf(word, sizeof(word), " %s ", cls);
	str_attr(t, "class", buf + 1, sizeof(buf) - 2);
	buf[0] = ' ';
	strcat(buf, " ");
	return strstr(buf, word) != NULL;
}

/* The space-separated @list has @word. */
static int has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = list; (p = strstr(p, word)) != NULL; p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
	return 0;
}

static int rows_of(const char *doc)
{
	return count(doc, "<g class=\"row");
}

static const char *svg_tag(const char *doc)
{
	const char *p = find(doc, "<svg ");

	ASSERT_NOT_NULL(p);
	return p;
}

/*
 * Stepping: #step=N makes row N the current one, the rows after it
 * dimmed, those before it not; the keys (j next, k back, End, Escape)
 * move the same way; the screenshot has far fewer dark pixels at the
 * first step than with every row revealed. A key hint is on the page.
 */
TEST_IMPL(seq_page_step)
{
	long dark0, dark_all;
	char *dom, buf[64];
	int n, i;

	if (page_example("rdma-read", "copy", "step.html", NULL) < 0)
		TEST_SKIP("the provider wrote no SOFTDAPL_TRACE lines");
	dom = chromium_at("step.html", "#step=5", 0, NULL);
	if (dom == NULL)
		TEST_SKIP("chromium missing: apt-get install -y chromium");
	n = rows_of(dom);
	ASSERT_GE(n, 12);
	ASSERT_STR_EQ(str_attr(svg_tag(dom), "data-step", buf, sizeof(buf)),
		      "5");
	ASSERT(row_has(dom, 5, "current"));
	for (i = 0; i < n; i++) {
		ASSERT_EQ(row_has(dom, i, "future"), i > 5);
		if (i != 5)
			ASSERT(!row_has(dom, i, "current"));
	}
	ASSERT_STR_CONTAINS(dom, "<div id=\"keys\">");
	ASSERT_STR_CONTAINS(dom, "next row");
	free(dom);

	/* The keys: j, j, j, k from the start: the second row. */
	dom = chromium_at("step.html", "#unfold&keys=j,j,j,k", 0, NULL);
	ASSERT_STR_EQ(str_attr(svg_tag(dom), "data-step", buf, sizeof(buf)),
		      "1");
	ASSERT(row_has(dom, 1, "current"));
	ASSERT(row_has(dom, 2, "future"));
	ASSERT(!row_has(dom, 0, "future"));
	free(dom);
	dom = chromium_at("step.html", "#unfold&keys=j,End", 0, NULL);
	snprintf(buf, sizeof(buf), "%d", n - 1);
	ASSERT_STR_CONTAINS(dom, buf);
	ASSERT(row_has(dom, n - 1, "current"));
	ASSERT_EQ(count(dom, " future"), 0);
	free(dom);
	dom = chromium_at("step.html", "#step=3&keys=Escape", 0, NULL);
	ASSERT_STR_EQ(str_attr(svg_tag(dom), "data-step", buf, sizeof(buf)),
		      "");
	ASSERT_EQ(count(dom, " future"), 0);
	free(dom);

	/* Pixels: the first step dims nearly everything. */
	dom = chromium_at("step.html", "#step=0", 1, &dark0);
	free(dom);
	dom = chromium_at("step.html", "#unfold", 1, &dark_all);
	free(dom);
	printf("dark pixels: %ld at the first step, %ld all shown\n", dark0,
	       dark_all);
	if (dark0 >= 0)
		ASSERT_LT(dark0 * 2, dark_all);
	return 0;
}

/*
 * An RDMA read's path (SOFTDAPL_TRANSPORT=copy: through frames): a click
 * (#path=P, P from the post's row) highlights the post, the READ_REQ and
 * READ_RESP frames and the completion, and dims every other row.
 */
TEST_IMPL(seq_page_path)
{
	char *page, *dom, frag[64], path[32], buf[64];
	const char *p, *row = NULL;
	int i, n, on = 0;
	long dark_path, dark_none;

	if (page_example("rdma-read", "copy", "path.html", NULL) < 0)
		TEST_SKIP("the provider wrote no SOFTDAPL_TRACE lines");
	page = test_read_file("path.html");
	ASSERT_NOT_NULL(page);
	/* The post's row: the last <g class="row" before its call. */
	p = find(page, "data-call=\"ep_post_rdma_read\"");
	ASSERT_NOT_NULL(p);
	for (; p > page; p--)
		if (strncmp(p, "<g class=\"row\"", 14) == 0) {
			row = p;
			break;
		}
	ASSERT_NOT_NULL(row);
	str_attr(row, "data-path", path, sizeof(path));
	ASSERT_NE(path[0], '\0');
	path[strcspn(path, " ")] = '\0';
	free(page);
	snprintf(frag, sizeof(frag), "#path=%s", path);
	dom = chromium_at("path.html", frag, 1, &dark_path);
	if (dom == NULL)
		TEST_SKIP("chromium missing: apt-get install -y chromium");
	ASSERT_STR_EQ(str_attr(svg_tag(dom), "data-path", buf, sizeof(buf)),
		      path);
	n = rows_of(dom);
	for (i = 0; i < n; i++) {
		const char *t = row_tag(dom, i), *end = find(t, "</g>\n<g");
		char *g = strndup(t, end ? (size_t)(end - t) : strlen(t));
		int want = strstr(g, "data-call=\"ep_post_rdma_read\"") ||
			strstr(g, "data-op=\"READ_REQ\"") ||
			strstr(g, "data-op=\"READ_RESP\"") ||
			(strstr(g, "<g class=\"dto ok\" data-lane=\"") &&
			 strstr(g, "data-op=\"RDMA_READ\""));

		if (row_has(dom, i, "onpath") != want)
			TEST_FAIL("row %d: %s, want %s:\n%.400s", i,
				  row_has(dom, i, "onpath") ? "on the path" :
				  "off it", want ? "on" : "off", g);
		ASSERT_EQ(row_has(dom, i, "offpath"), !want);
		on += want;
		free(g);
	}
	ASSERT_EQ(on, 4);
	free(dom);
	dom = chromium_at("path.html", "#unfold", 1, &dark_none);
	free(dom);
	/* And the highlight clears: a click again, or Escape. */
	snprintf(frag, sizeof(frag), "#path=%s&keys=Escape", path);
	dom = chromium_at("path.html", frag, 0, NULL);
	ASSERT_EQ(count(dom, " onpath"), 0);
	ASSERT_EQ(count(dom, " offpath"), 0);
	free(dom);
	printf("dark pixels: %ld the path, %ld none\n", dark_path, dark_none);
	if (dark_path >= 0)
		ASSERT_LT(dark_path, dark_none);
	return 0;
}

/*
 * Setup and teardown folded by default, each into one labelled row, the
 * page shorter; #unfold (or the key f) unfolds them.
 */
TEST_IMPL(seq_page_fold)
{
	char *dom, buf[64];
	long h_folded, h_open;
	int i, n, setup = 0;

	if (page_example("send-recv", NULL, "fold.html", NULL) < 0)
		TEST_SKIP("the provider wrote no SOFTDAPL_TRACE lines");
	dom = chromium_at("fold.html", "", 1, NULL);
	if (dom == NULL)
		TEST_SKIP("chromium missing: apt-get install -y chromium");
	ASSERT_STR_EQ(str_attr(svg_tag(dom), "data-folded", buf, sizeof(buf)),
		      "setup teardown");
	n = rows_of(dom);
	for (i = 0; i < n; i++) {
		const char *t = row_tag(dom, i);

		str_attr(t, "data-part", buf, sizeof(buf));
		ASSERT_EQ(row_has(dom, i, "folded"), strcmp(buf, "body") != 0);
		setup += strcmp(buf, "setup") == 0;
	}
	ASSERT_GE(setup, 5);
	snprintf(buf, sizeof(buf), "setup: %d rows", setup);
	ASSERT_STR_CONTAINS(dom, buf);
	ASSERT_STR_CONTAINS(dom, "<g class=\"partfold\" data-part=\"setup\"");
	h_folded = attr(svg_tag(dom), "height");
	free(dom);
	dom = chromium_at("fold.html", "#unfold", 0, NULL);
	ASSERT_STR_EQ(str_attr(svg_tag(dom), "data-folded", buf, sizeof(buf)),
		      "");
	for (i = 0; i < n; i++)
		ASSERT(!row_has(dom, i, "folded"));
	h_open = attr(svg_tag(dom), "height");
	free(dom);
	printf("height: %ld folded, %ld unfolded\n", h_folded, h_open);
	ASSERT_LT(h_folded + 200, h_open);
	dom = chromium_at("fold.html", "#keys=f", 0, NULL);
	for (i = 0; i < n; i++)
		ASSERT(!row_has(dom, i, "folded"));
	free(dom);
	return 0;
}

/*
 * The filter by lifeline: #ep=ep1 hides the other lifelines and the rows
 * that touch none of ep1's, and the rows left close up; a checkbox per
 * lifeline.
 */
TEST_IMPL(seq_page_ep)
{
	char *dom, buf[256], lane[32];
	const char *p;
	int i, n, hidden = 0, kept = 0;
	long h_ep, h_all;

	if (page_example("send-recv", NULL, "ep.html", NULL) < 0)
		TEST_SKIP("the provider wrote no SOFTDAPL_TRACE lines");
	dom = chromium_at("ep.html", "#unfold&ep=ep1", 1, NULL);
	if (dom == NULL)
		TEST_SKIP("chromium missing: apt-get install -y chromium");
	p = find(dom, "data-lane=\"ep1\" data-pid=");
	ASSERT_NOT_NULL(p);
	while (*p != '<')
		p--;
	str_attr(p, "id", lane, sizeof(lane));
	ASSERT_STR_EQ(str_attr(svg_tag(dom), "data-eps", buf, sizeof(buf)),
		      lane);
	ASSERT(strstr(str_attr(p, "class", buf, sizeof(buf)), "epoff") == NULL);
	p = find(dom, "data-lane=\"ep2\" data-pid=");
	ASSERT_NOT_NULL(p);
	while (*p != '<')
		p--;
	ASSERT_STR_CONTAINS(str_attr(p, "class", buf, sizeof(buf)), "epoff");
	n = rows_of(dom);
	for (i = 0; i < n; i++) {
		const char *t = row_tag(dom, i);

		str_attr(t, "data-lanes", buf, sizeof(buf));
		ASSERT_EQ(row_has(dom, i, "epoff"), !has_word(buf, lane));
		if (row_has(dom, i, "epoff"))
			hidden++;
		else
			kept++;
	}
	ASSERT_GT(hidden, 0);
	ASSERT_GT(kept, 0);
	ASSERT_GE(count(dom, "<input type=\"checkbox\""), 2);
	h_ep = attr(svg_tag(dom), "height");
	free(dom);
	/* The rows left close up: the page is shorter. */
	dom = chromium_at("ep.html", "#unfold", 0, NULL);
	h_all = attr(svg_tag(dom), "height");
	free(dom);
	printf("height: %ld for ep1, %ld for all\n", h_ep, h_all);
	ASSERT_LT(h_ep + 100, h_all);
	return 0;
}

/*
 * What a student sees: nothing from the network (no http: or https:
 * anywhere), no self-check (hidden, not run, not in the title) unless
 * #selfcheck or --selfcheck asks for it, and no label over a lifeline but
 * its own, even with narrow lanes (cut, whole in a tooltip).
 */
TEST_IMPL(seq_page_student)
{
	char *page, *dom, *out;
	const char *t;

	if (page_example("rdma-read", "copy", "student.html", NULL) < 0)
		TEST_SKIP("the provider wrote no SOFTDAPL_TRACE lines");
	page = test_read_file("student.html");
	ASSERT_NOT_NULL(page);
	ASSERT(strstr(page, "http:") == NULL);
	ASSERT(strstr(page, "https:") == NULL);
	ASSERT(strstr(page, "<link") == NULL);
	ASSERT(strstr(page, " src=") == NULL);
	ASSERT_STR_CONTAINS(page, "<div id=\"selfcheck\" hidden>");
	free(page);
	dom = chromium_at("student.html", "", 1, NULL);
	if (dom == NULL)
		TEST_SKIP("chromium missing: apt-get install -y chromium");
	ASSERT(strncmp(selfcheck_text(dom), "selfcheck: not run", 18) == 0);
	t = strstr(dom, "<title>");
	ASSERT_NOT_NULL(t);
	ASSERT(strncmp(t, "<title>softdapl trace:", 22) == 0);
	free(dom);

	/* --selfcheck: run at load, whatever the URL. */
	ASSERT_EQ(page_example("rdma-read", "copy", "dev.html", "--selfcheck"),
		  0);
	dom = chromium_at("dev.html", "", 0, NULL);
	check_selfcheck(dom);
	free(dom);

	/* Narrow lanes: the labels are cut to the room between lifelines. */
	write_fixture();
	ASSERT_EQ(run_seq(&out, "-w", "120", "-o", "narrow.html",
			  "client.trace", "server.trace", NULL), 0);
	free(out);
	page = test_read_file("narrow.html");
	ASSERT_GE(count(page, "\xe2\x80\xa6<title>"), 5);
	free(page);
	dom = chromium_dom("narrow.html", 1);
	check_selfcheck(dom);
	free(dom);
	return 0;
}

/*
 * The row that holds @needle, after its <g class="row" tag: its
 * data-path into @buf ("" when it has none, or no row holds @needle).
 */
static const char *path_of(const char *page, const char *needle, char *buf,
			   size_t len)
{
	const char *p = find(page, needle);

	buf[0] = '\0';
	if (p == NULL)
		return buf;
	for (; p > page; p--)
		if (strncmp(p, "<g class=\"row\"", 14) == 0)
			return str_attr(p, "data-path", buf, len);
	return buf;
}

/*
 * The paths as softdapl-seq writes them for the fixture: the send's post,
 * its frame, its completion and the receive it used at the server (whose
 * own path is its post's); the read's post, request, response and
 * completion; the receive the disconnect flushed on no send's path.
 */
TEST_IMPL(seq_page_paths_written)
{
	char *out, *page, send[32], read[32], buf[32];

	write_fixture();
	ASSERT_EQ(run_seq(&out, "-o", "paths.html", "client.trace",
			  "server.trace", NULL), 0);
	free(out);
	page = test_read_file("paths.html");
	ASSERT_NOT_NULL(page);
	path_of(page, "data-call=\"ep_post_send\" data-ret=\"DAT_SUCCESS\"",
		send, sizeof(send));
	path_of(page, "data-call=\"ep_post_rdma_read\"", read, sizeof(read));
	ASSERT_NE(send[0], '\0');
	ASSERT_NE(read[0], '\0');
	ASSERT(strcmp(send, read) != 0);
	printf("send: path %s, read: path %s\n", send, read);
	ASSERT_STR_EQ(path_of(page, "data-op=\"SEND\" data-seq=\"3\"", buf,
			      sizeof(buf)), send);
	ASSERT_STR_EQ(path_of(page, "cookie=0x8 status=DAT_DTO_SUCCESS", buf,
			      sizeof(buf)), send);
	ASSERT(has_word(path_of(page, "cookie=0x1 status=DAT_DTO_SUCCESS", buf,
				sizeof(buf)), send));
	ASSERT(!has_word(path_of(page, "cookie=0x2 status=DAT_DTO_ERR_FLUSHED",
				 buf, sizeof(buf)), send));
	ASSERT_STR_EQ(path_of(page, "data-op=\"READ_REQ\"", buf, sizeof(buf)),
		      read);
	ASSERT_STR_EQ(path_of(page, "data-op=\"READ_RESP\"", buf, sizeof(buf)),
		      read);
	ASSERT_STR_EQ(path_of(page, "cookie=0x7 status=DAT_DTO_SUCCESS", buf,
			      sizeof(buf)), read);
	/* The failed post has no path; the handshake none either. */
	ASSERT_STR_EQ(path_of(page, "data-ret=\"DAT_INVALID_STATE\"", buf,
			      sizeof(buf)), "");
	ASSERT_STR_EQ(path_of(page, "data-op=\"HELLO\"", buf, sizeof(buf)), "");
	free(page);
	return 0;
}

/*
 * What a flush teaches stays in view: the receives a disconnect flushes
 * are rows of the body, not of the teardown folded by default (the
 * flush example; no Chromium needed: the parts are written by C).
 */
TEST_IMPL(seq_page_flush_in_view)
{
	const char *p, *next;
	int flushed = 0, teardown = 0;
	char *page;

	if (page_example("flush", NULL, "flush.html", NULL) < 0)
		TEST_SKIP("the provider wrote no SOFTDAPL_TRACE lines");
	page = test_read_file("flush.html");
	ASSERT_NOT_NULL(page);
	for (p = strstr(page, "<g class=\"row\""); p != NULL; p = next) {
		const char *f;

		next = strstr(p + 1, "<g class=\"row\"");
		f = strstr(p, "FLUSHED");
		teardown += strncmp(strstr(p, "data-part=\""),
				    "data-part=\"teardown\"", 20) == 0;
		if (f == NULL || (next != NULL && f > next))
			continue;
		flushed++;
		if (strncmp(strstr(p, "data-part=\""), "data-part=\"body\"",
			    16) != 0)
			TEST_FAIL("a flushed receive outside the body: %.200s",
				  p);
	}
	free(page);
	printf("%d flushed rows in the body, %d rows of teardown\n", flushed,
	       teardown);
	ASSERT_GE(flushed, 3);
	ASSERT_GE(teardown, 1);
	return 0;
}
