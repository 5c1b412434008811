/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tools/softdapl.lua, the Wireshark dissector of softdapl's wire protocol,
 * run in Debian's tshark (4.0, built with Lua 5.2):
 *
 *   wireshark_reassembly        a capture written here by hand (pcap,
 *                               Ethernet/IPv4/TCP and UDP), packed with
 *                               provider/proto.h and udproto.h: a message
 *                               cut in two, a frame over three segments,
 *                               several frames in one segment, a frame
 *                               after a partial header; a stream with an
 *                               unknown op; UD datagrams
 *   wireshark_decode_as         the same decoded through the port
 *                               preference and "Decode As" instead of the
 *                               heuristic, and nothing without either
 *   wireshark_capture_examples  a real capture on lo (in a network
 *                               namespace of the test's own, so that only
 *                               the examples' traffic is in it) of the
 *                               rdma-read, rdma-write, send-recv and
 *                               refused examples run with SOFTDAPL_TRACE:
 *                               every payload byte decodes, no expert
 *                               error, the frames each example sends, and
 *                               every tx line of the trace (TRACE.md)
 *                               matches a decoded frame in type and values
 *                               (every rx line in type), and every decoded
 *                               frame has a tx line
 *   wireshark_capture_ud        a real capture of a UD address handle
 *                               resolved (REQ, REP, RTU) and a datagram
 *                               sent, with the QP numbers and port each
 *                               carries
 *
 * Each skips, with the reason, without tshark or Lua in it; the captures
 * also when not root or when capturing on lo fails. tshark runs with HOME
 * set to the test's directory, away from the user's Wireshark settings.
 */
#include <dirent.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../provider/proto.h"
#include "../provider/udproto.h"
#include "provider-conn.h"
#include "provider-ud.h"
#include "provider-util.h"
#include "test.h"

#define LUA_ARG "lua_script:" TEST_SRCDIR "/tools/softdapl.lua"

/* ---- tshark ------------------------------------------------------- */

/*
 * NULL when tshark with Lua is here; else why not (a skip reason). Also
 * keeps the user's Wireshark settings and plugins (a softdapl.lua copied
 * there would be loaded twice) out of the test: HOME is the test's
 * directory.
 */
static const char *tshark_missing(void)
{
	char *out = NULL;
	int status, lua;

	test_setenv("HOME", test_tmpdir());
	test_setenv("XDG_CONFIG_HOME", NULL);
	test_setenv("WIRESHARK_CONFIG_DIR", NULL);
	test_setenv("WIRESHARK_PLUGIN_DIR", NULL);

	if (test_find_program("tshark") == NULL)
		return "tshark is not installed: apt-get install -y tshark";
	if (test_run_cmdl(60, &status, &out, "tshark", "-v", NULL) < 0 ||
	    !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		free(out);
		return "tshark -v failed";
	}
	lua = strstr(out, "with Lua") != NULL;
	free(out);
	return lua ? NULL : "this tshark is built without Lua";
}

/*
 * Runs tshark -n -r @file -X lua_script:tools/softdapl.lua @args... and
 * returns what it printed on stdout and stderr, less the "Running as user"
 * warning (malloc'd). Fails the test if tshark fails or reports a Lua
 * error.
 */
static char *tshark(const char *file, const char *const args[])
{
	const char *argv[64];
	char *out = NULL, *line, *next, *res;
	size_t n = 0, len = 0;
	int status, i;

	argv[n++] = "tshark";
	argv[n++] = "-n";
	argv[n++] = "-r";
	argv[n++] = file;
	argv[n++] = "-X";
	argv[n++] = LUA_ARG;
	for (i = 0; args[i] != NULL && n < 63; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	ASSERT_OK(test_run_cmd(120, &status, &out, argv));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
	    strstr(out, "Lua") != NULL)
		TEST_FAIL("tshark failed or the dissector erred:\n%s", out);
	res = malloc(strlen(out) + 1);
	ASSERT_NOT_NULL(res);
	for (line = out; *line != '\0'; line = next) {
		next = strchrnul(line, '\n');
		if (*next == '\n')
			next++;
		if (strncmp(line, "Running as user", 15) == 0)
			continue;
		memcpy(res + len, line, (size_t)(next - line));
		len += (size_t)(next - line);
	}
	res[len] = '\0';
	free(out);
	return res;
}

/* ---- a capture by hand -------------------------------------------- */

struct tcp_conn {
	uint32_t ip[2];		/* host order; [0] the active side */
	uint16_t port[2];
	uint32_t seq[2];	/* the next sequence number of each side */
};

#define TH_FIN	0x01
#define TH_SYN	0x02
#define TH_PSH	0x08
#define TH_ACK	0x10

static void put16be(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32be(uint8_t *p, uint32_t v)
{
	put16be(p, (uint16_t)(v >> 16));
	put16be(p + 2, (uint16_t)v);
}

/* One pcap record: Ethernet, IPv4 (@proto) and @l4. */
static void cap_ip(FILE *f, uint32_t src, uint32_t dst, uint8_t proto,
		   const uint8_t *l4, size_t n)
{
	static uint32_t usec;
	uint8_t pkt[14 + 20 + 2048];
	uint32_t rec[4], sum = 0;
	size_t len = 14 + 20 + n, i;

	ASSERT_LE(n, 2048);
	memset(pkt, 0, 34);
	memcpy(pkt, "\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00", 14);
	pkt[14] = 0x45;
	put16be(pkt + 16, (uint16_t)(20 + n));
	pkt[20] = 0x40;				/* don't fragment */
	pkt[22] = 64;
	pkt[23] = proto;
	put32be(pkt + 26, src);
	put32be(pkt + 30, dst);
	for (i = 0; i < 20; i += 2)
		sum += (uint32_t)pkt[14 + i] << 8 | pkt[14 + i + 1];
	while (sum > 0xffff)
		sum = (sum & 0xffff) + (sum >> 16);
	put16be(pkt + 24, (uint16_t)~sum);
	memcpy(pkt + 34, l4, n);
	usec += 1000;
	rec[0] = 1700000000;
	rec[1] = usec;
	rec[2] = rec[3] = (uint32_t)len;
	ASSERT_EQ(fwrite(rec, sizeof(rec), 1, f), 1);
	ASSERT_EQ(fwrite(pkt, len, 1, f), 1);
}

/* A TCP segment of @c from side @from (0 active, 1 passive). */
static void cap_tcp(FILE *f, struct tcp_conn *c, int from, uint8_t flags,
		    const uint8_t *data, size_t n)
{
	uint8_t seg[20 + 2048];

	ASSERT_LE(n, 2048);
	memset(seg, 0, 20);
	put16be(seg, c->port[from]);
	put16be(seg + 2, c->port[!from]);
	put32be(seg + 4, c->seq[from]);
	if (flags & TH_ACK)
		put32be(seg + 8, c->seq[!from]);
	seg[12] = 5 << 4;
	seg[13] = flags;
	put16be(seg + 14, 65535);
	if (n > 0)
		memcpy(seg + 20, data, n);
	cap_ip(f, c->ip[from], c->ip[!from], IPPROTO_TCP, seg, 20 + n);
	c->seq[from] += (uint32_t)n + !!(flags & TH_SYN) + !!(flags & TH_FIN);
}

static void cap_handshake(FILE *f, struct tcp_conn *c)
{
	cap_tcp(f, c, 0, TH_SYN, NULL, 0);
	cap_tcp(f, c, 1, TH_SYN | TH_ACK, NULL, 0);
	cap_tcp(f, c, 0, TH_ACK, NULL, 0);
}

/* Segment [@from_off, @to_off) of @stream, sent by side @side. */
static void cap_part(FILE *f, struct tcp_conn *c, int side,
		     const uint8_t *stream, size_t from_off, size_t to_off)
{
	cap_tcp(f, c, side, TH_PSH | TH_ACK, stream + from_off,
		to_off - from_off);
}

/* Appends a handshake message with @pdata to @b at *@off. */
static void put_cm(uint8_t *b, size_t *off, uint8_t type, uint8_t reason,
		   uint64_t qual, const char *pdata)
{
	struct sd_cm_msg m = {
		.magic = SD_PROTO_MAGIC, .version = SD_PROTO_VERSION,
		.type = type, .reason = reason, .conn_qual = qual,
		.max_msg = 0x80000000u, .max_rdma = 0x80000000u,
		.rd_in = 4, .rd_out = 8,
		.pdata_len = (uint16_t)strlen(pdata),
	};

	if (type == SD_CM_RTU)
		m.max_msg = m.max_rdma = m.rd_in = m.rd_out = 0;
	sd_cm_pack(&m, b + *off);
	memcpy(b + *off + SD_CM_MSG_SIZE, pdata, m.pdata_len);
	*off += SD_CM_MSG_SIZE + m.pdata_len;
}

/* Appends a data frame with @payload bytes of payload (a pattern). */
static void put_frame(uint8_t *b, size_t *off, uint8_t op, uint32_t ack,
		      uint32_t len, uint32_t rkey, uint64_t addr, uint32_t tag,
		      uint32_t code, size_t payload)
{
	struct sd_hdr h = {
		.op = op, .ack = ack, .len = len, .rkey = rkey, .addr = addr,
		.tag = tag, .code = code,
	};
	size_t i;

	sd_hdr_pack(&h, b + *off);
	for (i = 0; i < payload; i++)
		b[*off + SD_HDR_SIZE + i] = (uint8_t)('a' + i % 26);
	*off += SD_HDR_SIZE + payload;
}

static void cap_ud(FILE *f, uint8_t type, uint32_t arg, const char *pdata,
		   size_t payload)
{
	struct sd_ud_hdr h = {
		.magic = SD_UD_MAGIC, .version = SD_UD_VERSION, .type = type,
		.src_qpn = 0x123, .src_qkey = 0xabcd,
		.cm_id = type == SD_UD_DATA ? 0 : 0x1122334455667788ull,
		.arg = arg, .pdata_len = (uint16_t)strlen(pdata),
	};
	uint8_t d[8 + 1024];
	size_t n = SD_UD_HDR_SIZE + h.pdata_len + payload;

	if (type != SD_UD_REQ)
		h.dst_qpn = 0x456, h.dst_qkey = 0x789;
	memset(d, 0, sizeof(d));
	put16be(d, 50000);
	put16be(d + 2, 40002);
	put16be(d + 4, (uint16_t)(8 + n));
	ud_hdr_pack(&h, d + 8);
	memcpy(d + 8 + SD_UD_HDR_SIZE, pdata, h.pdata_len);
	cap_ip(f, 0x0a000001, 0x0a000002, IPPROTO_UDP, d, 8 + n);
}

/*
 * Writes the capture; returns the frame number of the segment with the
 * unknown op in *@bad_frame.
 *
 * Stream 0, 10.0.0.1:40001 (active) to 10.0.0.2:40002, frames 1-13:
 *   4, 5   HELLO (5 bytes of pdata) cut after 20 bytes
 *   6      ACCEPT (3 bytes of pdata)
 *   7      RTU, then 10 bytes of WRITE's header
 *   8      the middle of WRITE
 *   9      the end of WRITE, READ_REQ, 7 bytes of SEND's header
 *   10     the rest of SEND, FETCH_ADD
 *   11     READ_RESP's header and 18 of its 64 bytes
 *   12     the rest of READ_RESP, ACK, ATOMIC_RESP, DISCONNECT
 *   13     DISCONNECT
 * Stream 1, 10.0.0.3:40003 to 10.0.0.2:40002, frames 14-19: HELLO,
 * ACCEPT, RTU and a frame of op 99 in one segment, then a segment that
 * cannot be decoded. Then two UD datagrams, REQ and DATA, frames 20-21.
 */
static void write_capture(const char *path, int *bad_frame)
{
	static const uint32_t hdr[6] = { 0xa1b2c3d4, 0x00040002, 0, 0, 65535, 1 };
	struct tcp_conn c = { { 0x0a000001, 0x0a000002 }, { 40001, 40002 },
			      { 1000, 5000 } };
	struct tcp_conn d = { { 0x0a000003, 0x0a000002 }, { 40003, 40002 },
			      { 7000, 9000 } };
	uint8_t a[1024], b[1024];
	size_t na = 0, nb = 0;
	FILE *f = fopen(path, "wb");

	ASSERT_NOT_NULL(f);
	ASSERT_EQ(fwrite(hdr, sizeof(hdr), 1, f), 1);

	/* Active side: offsets 0, 45, 85, 217, 249, 284, 332, 364. */
	put_cm(a, &na, SD_CM_HELLO, 0, 40002, "hello");
	put_cm(a, &na, SD_CM_RTU, 0, 0, "");
	put_frame(a, &na, SD_OP_WRITE, 0, 100, 0x1a2b, 0x7f0000001000ull, 0, 0, 100);
	put_frame(a, &na, SD_OP_READ_REQ, 0, 64, 0x2b3c, 0x7f0000002000ull, 0, 0, 0);
	put_frame(a, &na, SD_OP_SEND, 0, 3, 0, 0, 0, 0, 3);
	put_frame(a, &na, SD_OP_FETCH_ADD, 0, 16, 0x3c4d, 0x7f0000003000ull, 1, 0, 16);
	put_frame(a, &na, SD_OP_DISCONNECT, 1, 0, 0, 0, SD_TAG_NONE, 0, 0);
	ASSERT_EQ(na, 364);
	/* Passive side: offsets 0, 43, 139, 171, 211, 243. */
	put_cm(b, &nb, SD_CM_ACCEPT, 0, 0, "yes");
	put_frame(b, &nb, SD_OP_READ_RESP, 2, 64, 0, 0, 0, 0, 64);
	put_frame(b, &nb, SD_OP_ACK, 4, 0, 0, 0, SD_TAG_NONE, 0, 0);
	put_frame(b, &nb, SD_OP_ATOMIC_RESP, 4, 8, 0, 0, 1, 0, 8);
	put_frame(b, &nb, SD_OP_DISCONNECT, 4, 0, 0, 0, SD_TAG_NONE, 0, 0);
	ASSERT_EQ(nb, 243);

	cap_handshake(f, &c);				/* 1-3 */
	cap_part(f, &c, 0, a, 0, 20);			/* 4 */
	cap_part(f, &c, 0, a, 20, 45);			/* 5 */
	cap_part(f, &c, 1, b, 0, 43);			/* 6 */
	cap_part(f, &c, 0, a, 45, 95);			/* 7 */
	cap_part(f, &c, 0, a, 95, 150);			/* 8 */
	cap_part(f, &c, 0, a, 150, 256);		/* 9 */
	cap_part(f, &c, 0, a, 256, 332);		/* 10 */
	cap_part(f, &c, 1, b, 43, 93);			/* 11 */
	cap_part(f, &c, 1, b, 93, 243);			/* 12 */
	cap_part(f, &c, 0, a, 332, 364);		/* 13 */

	na = nb = 0;
	put_cm(a, &na, SD_CM_HELLO, 0, 40002, "");
	put_cm(a, &na, SD_CM_RTU, 0, 0, "");
	put_frame(a, &na, 99, 0, 0, 0, 0, 0, 0, 0);
	put_frame(a, &na, SD_OP_SEND, 0, 0, 0, 0, 0, 0, 0);
	put_cm(b, &nb, SD_CM_ACCEPT, 0, 0, "");
	cap_handshake(f, &d);				/* 14-16 */
	cap_part(f, &d, 0, a, 0, 40);			/* 17 */
	cap_part(f, &d, 1, b, 0, 40);			/* 18 */
	cap_part(f, &d, 0, a, 40, 112);			/* 19 */
	*bad_frame = 19;
	cap_part(f, &d, 0, a, 112, 144);		/* 20 */

	cap_ud(f, SD_UD_REQ, 40002, "hi", 0);		/* 21 */
	cap_ud(f, SD_UD_DATA, 0, "", 100);		/* 22 */
	ASSERT_OK(fclose(f));
}

#define C0 " conn=10.0.0.1:40001>10.0.0.2:40002 "
#define C1 " conn=10.0.0.2:40002>10.0.0.1:40001 "

/* What -T fields -e frame.number -e softdapl.trace shows of stream 0. */
static const char expect_stream0[] =
	"5\tHELLO" C0 "seq=0 bytes=45 pdata=5 qual=40002\n"
	"6\tACCEPT" C1 "seq=0 bytes=43 pdata=3\n"
	"7\tRTU" C0 "seq=1 bytes=40 pdata=0\n"
	"9\tWRITE" C0 "seq=2 bytes=132 len=100 ack=0 rkey=0x1a2b "
	"addr=0x7f0000001000 tag=0 code=0|"
	"READ_REQ" C0 "seq=3 bytes=32 len=64 ack=0 rkey=0x2b3c "
	"addr=0x7f0000002000 tag=0 code=0\n"
	"10\tSEND" C0 "seq=4 bytes=35 len=3 ack=0 rkey=0x0 addr=0x0 tag=0 "
	"code=0|"
	"FETCH_ADD" C0 "seq=5 bytes=48 len=16 ack=0 rkey=0x3c4d "
	"addr=0x7f0000003000 tag=1 code=0\n"
	"12\tREAD_RESP" C1 "seq=1 bytes=96 len=64 ack=2 rkey=0x0 addr=0x0 "
	"tag=0 code=0|"
	"ACK" C1 "seq=2 bytes=32 len=0 ack=4 rkey=0x0 addr=0x0 "
	"tag=4294967295 code=0|"
	"ATOMIC_RESP" C1 "seq=3 bytes=40 len=8 ack=4 rkey=0x0 addr=0x0 "
	"tag=1 code=0|"
	"DISCONNECT" C1 "seq=4 bytes=32 len=0 ack=4 rkey=0x0 addr=0x0 "
	"tag=4294967295 code=0\n"
	"13\tDISCONNECT" C0 "seq=6 bytes=32 len=0 ack=1 rkey=0x0 addr=0x0 "
	"tag=4294967295 code=0\n";

static const char *const trace_fields[] = {
	"-Y", "tcp.stream == 0 && softdapl", "-T", "fields",
	"-E", "aggregator=|", "-E", "occurrence=a",
	"-e", "frame.number", "-e", "softdapl.trace", NULL
};

/* The same in two passes: the second must find what the first counted. */
static const char *const trace_fields_2[] = {
	"-2", "-Y", "tcp.stream == 0 && softdapl", "-T", "fields",
	"-E", "aggregator=|", "-E", "occurrence=a",
	"-e", "frame.number", "-e", "softdapl.trace", NULL
};

TEST_IMPL(wireshark_reassembly)
{
	static const char *const errors[] = {
		"-Y", "_ws.malformed || _ws.expert.severity >= error",
		"-T", "fields", "-e", "frame.number", "-e", "softdapl.name",
		NULL };
	static const char *const info[] = {
		"-Y", "frame.number == 9", "-T", "fields", "-e", "_ws.col.Info",
		NULL };
	static const char *const rest[] = {
		"-Y", "softdapl && !(tcp.stream == 0)", "-T", "fields",
		"-E", "occurrence=a", "-e", "frame.number",
		"-e", "softdapl.name", "-e", "softdapl.ud.type",
		"-e", "softdapl.ud.qual", "-e", "softdapl.ud.cm_id",
		"-e", "softdapl.ud.pdata_len", "-e", "softdapl.payload_len",
		"-e", "_ws.expert.message", NULL };
	const char *why = tshark_missing(), *cap;
	char *out, want[64];
	int bad;

	if (why != NULL)
		TEST_SKIP(why);
	cap = test_path("hand.pcap");
	write_capture(cap, &bad);

	out = tshark(cap, trace_fields);
	printf("%s", out);
	ASSERT_STR_EQ(out, expect_stream0);
	free(out);
	out = tshark(cap, trace_fields_2);
	ASSERT_STR_EQ(out, expect_stream0);
	free(out);

	out = tshark(cap, info);
	ASSERT_STR_EQ(out, "WRITE len=100 rkey=0x1a2b addr=0x7f0000001000 "
		      "ack=0 seq=2, READ_REQ len=64 rkey=0x2b3c "
		      "addr=0x7f0000002000 tag=0 ack=0 seq=3\n");
	free(out);

	/* Only the unknown op is an error. */
	out = tshark(cap, errors);
	snprintf(want, sizeof(want), "%d\tRTU\n", bad);
	ASSERT_STR_EQ(out, want);
	free(out);

	out = tshark(cap, rest);
	printf("%s", out);
	ASSERT_STR_EQ(out,
		"17\tHELLO\t\t\t\t\t\t\n"
		"18\tACCEPT\t\t\t\t\t\t\n"
		"19\tRTU\t\t\t\t\t\tunknown op 99\n"
		"20\t\t\t\t\t\t\tstream not decoded after a malformed frame\n"
		"21\tUD_REQ\t2\t40002\t0x1122334455667788\t2\t\t\n"
		"22\tUD_DATA\t1\t\t0x0000000000000000\t0\t100\t\n");
	free(out);
	return 0;
}

/* The port preference and Decode As find what the heuristic finds. */
TEST_IMPL(wireshark_decode_as)
{
	static const char *const by_pref[] = {
		"-o", "softdapl.heuristic:FALSE", "-o", "softdapl.tcp_ports:40002",
		"-Y", "tcp.stream == 0 && softdapl", "-T", "fields",
		"-E", "aggregator=|", "-E", "occurrence=a",
		"-e", "frame.number", "-e", "softdapl.trace", NULL };
	static const char *const by_decode_as[] = {
		"-o", "softdapl.heuristic:FALSE", "-d", "tcp.port==40002,softdapl",
		"-Y", "tcp.stream == 0 && softdapl", "-T", "fields",
		"-E", "aggregator=|", "-E", "occurrence=a",
		"-e", "frame.number", "-e", "softdapl.trace", NULL };
	static const char *const neither[] = {
		"-o", "softdapl.heuristic:FALSE", "-Y", "softdapl", NULL };
	const char *why = tshark_missing(), *cap;
	char *out;
	int bad;

	if (why != NULL)
		TEST_SKIP(why);
	cap = test_path("hand.pcap");
	write_capture(cap, &bad);

	out = tshark(cap, by_pref);
	ASSERT_STR_EQ(out, expect_stream0);
	free(out);
	out = tshark(cap, by_decode_as);
	ASSERT_STR_EQ(out, expect_stream0);
	free(out);
	out = tshark(cap, neither);
	ASSERT_STR_EQ(out, "");
	free(out);
	return 0;
}

/* ---- a real capture ----------------------------------------------- */

/* Brings @ifname up in the current network namespace; 0 or -1. */
static int link_up(const char *ifname)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM, 0), r = -1;

	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	strncpy(ifr.ifr_name, ifname, sizeof(ifr.ifr_name) - 1);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP;
		r = ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	close(fd);
	return r;
}

/*
 * A TCP connection on lo that the capture must see last: returns the
 * connecting side's port, which tshark's summary of the SYN-ACK shows as
 * "PORT [SYN, ACK]".
 */
static int sentinel_connection(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	int l, c, a, port;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	c = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_GE(l, 0);
	ASSERT_GE(c, 0);
	ASSERT_OK(bind(l, (struct sockaddr *)&sin, sizeof(sin)));
	ASSERT_OK(listen(l, 1));
	ASSERT_OK(getsockname(l, (struct sockaddr *)&sin, &len));
	ASSERT_OK(connect(c, (struct sockaddr *)&sin, sizeof(sin)));
	len = sizeof(sin);
	ASSERT_OK(getsockname(c, (struct sockaddr *)&sin, &len));
	port = ntohs(sin.sin_port);
	a = accept(l, NULL, NULL);
	ASSERT_GE(a, 0);
	close(a);
	close(c);
	close(l);
	return port;
}

/*
 * Waits until the capture of @h (tshark -l -P) shows a connection made
 * now: everything sent on lo from then on is captured, and everything sent
 * before is in the file. tshark prints "Capturing on" before the capture
 * is live, so connections are made until one shows; 0 or -ETIMEDOUT.
 */
static int sync_capture(test_helper_t *h)
{
	char needle[32];
	int i;

	for (i = 0; i < 20; i++) {
		snprintf(needle, sizeof(needle), "%d [SYN, ACK]",
			 sentinel_connection());
		if (test_helper_wait_output(h, needle, i < 5 ? 1 : 5) == 0)
			return 0;
	}
	return -ETIMEDOUT;
}

/*
 * In a network namespace of the test's own (only the test's traffic on
 * its lo), starts tshark capturing packets of @filter on lo into @cap and
 * waits until the capture is live. Returns NULL and the capture in *@hp,
 * or why it cannot be done (a skip reason).
 */
static const char *start_capture(const char *cap, const char *filter,
				 test_helper_t **hp)
{
	const char *argv[] = { "tshark", "-n", "-l", "-P", "-i", "lo",
			       "-f", filter, "-w", cap, NULL };
	const char *why = tshark_missing();
	test_helper_t *h;

	if (getuid() != 0)
		return "capturing on lo needs root";
	if (why != NULL)
		return why;
	if (unshare(CLONE_NEWNET) < 0 || link_up("lo") < 0)
		return "cannot make a network namespace with lo up";
	h = test_spawn_cmd(argv);
	if (test_helper_wait_output(h, "Capturing on", 30) < 0 ||
	    sync_capture(h) < 0) {
		printf("%s", test_helper_output(h));
		test_helper_free(h);
		return "capturing on lo failed (tshark -i lo)";
	}
	*hp = h;
	return NULL;
}

/* Stops the capture once everything sent so far is in its file. */
static void stop_capture(test_helper_t *h)
{
	int status;

	ASSERT_OK(sync_capture(h));
	ASSERT_OK(test_helper_kill(h, SIGINT));
	ASSERT_OK(test_helper_wait(h, 30, &status));
	test_helper_free(h);
}

/* One decoded frame (a value of softdapl.trace) of the real capture. */
struct pdu {
	int frame, stream;
	int matched;		/* a tx line of the trace names it */
	char text[480];
};

#define MAX_PDUS 512

/* The value of @key in "EVENT key=value ..." @s into @out; 0 or -1. */
static int kv(const char *s, const char *key, char *out, size_t n)
{
	size_t kl = strlen(key), vl;
	const char *p;

	for (p = strchr(s, ' '); p != NULL; p = strchr(p + 1, ' ')) {
		if (strncmp(p + 1, key, kl) == 0 && p[1 + kl] == '=') {
			p += kl + 2;
			vl = strcspn(p, " \n");
			if (vl >= n)
				vl = n - 1;
			memcpy(out, p, vl);
			out[vl] = '\0';
			return 0;
		}
	}
	return -1;
}

/* Whether two values of a key agree: as numbers if both are, else as text. */
static int same_value(const char *x, const char *y)
{
	char *ex, *ey;
	unsigned long long a = strtoull(x, &ex, 0), b = strtoull(y, &ey, 0);

	if (*x != '\0' && *ex == '\0' && *y != '\0' && *ey == '\0')
		return a == b;
	return strcmp(x, y) == 0;
}

/* The event word of "EVENT key=value ...". */
static void event_of(const char *s, char *out, size_t n)
{
	size_t l = strcspn(s, " \n");

	if (l >= n)
		l = n - 1;
	memcpy(out, s, l);
	out[l] = '\0';
}

/* "A>B" into "B>A". */
static void swap_conn(const char *conn, char *out, size_t n)
{
	const char *gt = strchr(conn, '>');

	if (gt == NULL) {
		snprintf(out, n, "%s", conn);
		return;
	}
	snprintf(out, n, "%s>%.*s", gt + 1, (int)(gt - conn), conn);
}

static struct pdu *find_pdu(struct pdu *p, int n, const char *conn,
			    const char *seq)
{
	char c[128], s[32];
	int i;

	for (i = 0; i < n; i++)
		if (kv(p[i].text, "conn", c, sizeof(c)) == 0 &&
		    kv(p[i].text, "seq", s, sizeof(s)) == 0 &&
		    strcmp(c, conn) == 0 && strcmp(s, seq) == 0)
			return &p[i];
	return NULL;
}

/*
 * Checks the trace lines of one file against the decoded frames: each tx
 * line names a frame with the same type and values, each rx line a frame
 * of the same type. Returns the number of tx lines.
 */
static int check_trace_file(const char *path, struct pdu *p, int n)
{
	static const char *const keys[] = {
		"len", "ack", "rkey", "addr", "tag", "code", "bytes", "pdata",
		"qual", NULL };
	char *text = test_read_file(path), *line, *next;
	char kind[16], ev[32], pev[32], conn[128], key_conn[128], seq[32];
	char tv[64], dv[64];
	const char *rest;
	struct pdu *d;
	int tx = 0, i, col;

	ASSERT_NOT_NULL(text);
	for (line = text; *line != '\0'; line = next) {
		next = strchrnul(line, '\n');
		if (*next == '\n')
			*next++ = '\0';
		/* TIME PID KIND OBJECT EVENT key=value... */
		rest = line;
		for (col = 0; col < 4 && rest != NULL; col++) {
			if (col == 2)
				event_of(rest, kind, sizeof(kind));
			rest = strchr(rest, ' ');
			if (rest != NULL)
				rest++;
		}
		if (rest == NULL ||
		    (strcmp(kind, "tx") != 0 && strcmp(kind, "rx") != 0))
			continue;
		event_of(rest, ev, sizeof(ev));
		if (kv(rest, "conn", conn, sizeof(conn)) < 0 ||
		    kv(rest, "seq", seq, sizeof(seq)) < 0)
			TEST_FAIL("%s: no conn= or seq=: %s", path, line);
		if (strcmp(kind, "rx") == 0)
			swap_conn(conn, key_conn, sizeof(key_conn));
		else
			snprintf(key_conn, sizeof(key_conn), "%s", conn);
		d = find_pdu(p, n, key_conn, seq);
		if (d == NULL)
			TEST_FAIL("%s: no decoded frame for: %s", path, line);
		event_of(d->text, pev, sizeof(pev));
		if (strcmp(ev, pev) != 0)
			TEST_FAIL("trace line: %s\ndecoded frame %d: %s",
				  line, d->frame, d->text);
		if (strcmp(kind, "rx") == 0)
			continue;
		tx++;
		d->matched = 1;
		for (i = 0; keys[i] != NULL; i++) {
			int in_t = kv(rest, keys[i], tv, sizeof(tv)) == 0;
			int in_d = kv(d->text, keys[i], dv, sizeof(dv)) == 0;

			/* TRACE.md: a data frame's line has all six. */
			if (in_d && !in_t && i < 6)
				TEST_FAIL("no %s= in trace line: %s", keys[i], line);
			if (in_t && in_d && !same_value(tv, dv))
				TEST_FAIL("%s differs:\ntrace line: %s\n"
					  "decoded frame %d: %s", keys[i],
					  line, d->frame, d->text);
		}
	}
	free(text);
	return tx;
}

/* Decodes the real capture @cap into @p; returns the number of frames. */
static int decode_capture(const char *cap, struct pdu *p)
{
	static const char *const fields[] = {
		"-o", "tcp.try_heuristic_first:TRUE", "-Y", "softdapl",
		"-T", "fields", "-E", "aggregator=|", "-E", "occurrence=a",
		"-e", "frame.number", "-e", "tcp.stream", "-e", "softdapl.trace",
		NULL };
	char *out = tshark(cap, fields), *line, *next, *t, *bar;
	int n = 0, frame, stream, used;

	for (line = out; *line != '\0'; line = next) {
		next = strchrnul(line, '\n');
		if (*next == '\n')
			*next++ = '\0';
		if (sscanf(line, "%d\t%d\t%n", &frame, &stream, &used) != 2)
			TEST_FAIL("unexpected tshark output: %s", line);
		for (t = line + used; t != NULL; t = bar ? bar + 1 : NULL) {
			bar = strchr(t, '|');
			if (bar != NULL)
				*bar = '\0';
			ASSERT_LT(n, MAX_PDUS);
			p[n].frame = frame;
			p[n].stream = stream;
			p[n].matched = 0;
			snprintf(p[n].text, sizeof(p[n].text), "%s", t);
			n++;
		}
	}
	free(out);
	return n;
}

/*
 * Every payload byte of the capture belongs to a decoded frame: per
 * stream and sending port, the TCP payload bytes add up to the frames'
 * bytes=.
 */
static void check_every_byte(const char *cap)
{
	static const char *const fields[] = {
		"-o", "tcp.try_heuristic_first:TRUE",
		"-Y", "tcp.len > 0 && !tcp.analysis.retransmission",
		"-T", "fields", "-E", "aggregator=+", "-E", "occurrence=a",
		"-e", "tcp.stream", "-e", "tcp.srcport", "-e", "tcp.len",
		"-e", "softdapl.bytes", NULL };
	struct { int stream, port; long tcp, sd; } dir[64];
	char *out = tshark(cap, fields), *line, *next, *b;
	int nd = 0, i, stream, port, used;
	long len;

	for (line = out; *line != '\0'; line = next) {
		next = strchrnul(line, '\n');
		if (*next == '\n')
			*next++ = '\0';
		if (sscanf(line, "%d\t%d\t%ld\t%n", &stream, &port, &len,
			   &used) != 3)
			TEST_FAIL("unexpected tshark output: %s", line);
		for (i = 0; i < nd; i++)
			if (dir[i].stream == stream && dir[i].port == port)
				break;
		if (i == nd) {
			ASSERT_LT(nd, 64);
			dir[nd].stream = stream;
			dir[nd].port = port;
			dir[nd].tcp = dir[nd].sd = 0;
			nd++;
		}
		dir[i].tcp += len;
		for (b = line + used; *b != '\0'; b++)
			if (b == line + used || b[-1] == '+')
				dir[i].sd += strtol(b, NULL, 10);
	}
	free(out);
	ASSERT_GE(nd, 6);	/* three examples, two directions each */
	for (i = 0; i < nd; i++)
		if (dir[i].tcp != dir[i].sd)
			TEST_FAIL("stream %d from port %d: %ld payload bytes, "
				  "%ld decoded", dir[i].stream, dir[i].port,
				  dir[i].tcp, dir[i].sd);
}

/* Some stream has frames with each of these "EVENT key=value" texts. */
static void expect_stream(struct pdu *p, int n, const char *const want[])
{
	char v[64];
	int s, i, j, k, found, all;

	for (s = 0; s <= p[n - 1].stream; s++) {
		all = 1;
		for (k = 0; want[k] != NULL && all; k++) {
			char ev[32], key[32], val[64];
			const char *sp = strchr(want[k], ' '), *eq;

			event_of(want[k], ev, sizeof(ev));
			key[0] = '\0';
			if (sp != NULL && (eq = strchr(sp, '=')) != NULL) {
				snprintf(key, sizeof(key), "%.*s",
					 (int)(eq - sp - 1), sp + 1);
				snprintf(val, sizeof(val), "%s", eq + 1);
			}
			found = 0;
			for (i = 0; i < n && !found; i++) {
				char pev[32];

				if (p[i].stream != s)
					continue;
				event_of(p[i].text, pev, sizeof(pev));
				found = strcmp(pev, ev) == 0 && (key[0] == '\0' ||
					(kv(p[i].text, key, v, sizeof(v)) == 0 &&
					 strcmp(v, val) == 0));
			}
			all = found;
		}
		if (all)
			return;
	}
	for (j = 0; want[j] != NULL; j++)
		printf("expected: %s\n", want[j]);
	TEST_FAIL("no stream has all the frames expected");
}

TEST_IMPL(wireshark_capture_examples)
{
	static const char *const examples[] = {
		"rdma-read", "rdma-write", "send-recv", "refused", NULL };
	static const char *const want_read[] = {
		"HELLO", "ACCEPT", "RTU", "READ_REQ len=32", "READ_RESP len=32",
		"READ_RESP bytes=64", "DISCONNECT", NULL };
	static const char *const want_write[] = {
		"HELLO", "ACCEPT", "RTU", "WRITE len=32", "WRITE bytes=64",
		"ACK", "DISCONNECT", NULL };
	static const char *const want_send[] = {
		"HELLO", "ACCEPT", "RTU", "SEND len=20", "ACK", "DISCONNECT",
		NULL };
	static const char *const want_reject[] = {
		"HELLO", "REJECT reason=consumer", NULL };
	static const char *const errors[] = {
		"-o", "tcp.try_heuristic_first:TRUE",
		"-Y", "_ws.malformed || _ws.expert.severity >= error", NULL };
	const char *why, *cap = test_path("cap.pcapng");
	struct pdu *p;
	struct dirent *de;
	char path[1024], *out;
	test_helper_t *h;
	int i, n, status, files = 0, tx = 0;
	DIR *dir;

	why = start_capture(cap, "tcp", &h);
	if (why != NULL)
		TEST_SKIP(why);

	sdt_conf("lo");
	/* Wireshark sees what goes over TCP: no shared memory on one host. */
	test_setenv("SOFTDAPL_TRANSPORT", "tcp");
	test_setenv("SOFTDAPL_TRACE", test_path("trace-%p.log"));
	for (i = 0; examples[i] != NULL; i++) {
		snprintf(path, sizeof(path), "%s/examples/%s", test_builddir(),
			 examples[i]);
		ASSERT_OK(test_run_cmdl(60, &status, &out, path, SDT_IA_NAME,
					NULL));
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			TEST_FAIL("%s failed:\n%s", examples[i], out);
		free(out);
	}
	test_setenv("SOFTDAPL_TRACE", NULL);
	stop_capture(h);

	out = tshark(cap, errors);
	if (out[0] != '\0')
		TEST_FAIL("malformed frames or expert errors:\n%s", out);
	free(out);
	check_every_byte(cap);

	p = calloc(MAX_PDUS, sizeof(*p));
	ASSERT_NOT_NULL(p);
	n = decode_capture(cap, p);
	for (i = 0; i < n; i++)
		printf("%d\t%d\t%s\n", p[i].frame, p[i].stream, p[i].text);
	ASSERT_GT(n, 0);
	expect_stream(p, n, want_read);
	expect_stream(p, n, want_write);
	expect_stream(p, n, want_send);
	expect_stream(p, n, want_reject);

	/* The provider's trace, where it writes one (TRACE.md). */
	dir = opendir(test_tmpdir());
	ASSERT_NOT_NULL(dir);
	while ((de = readdir(dir)) != NULL) {
		if (strncmp(de->d_name, "trace-", 6) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", test_tmpdir(), de->d_name);
		files++;
		tx += check_trace_file(path, p, n);
	}
	closedir(dir);
	if (files == 0 || tx == 0)
		TEST_FAIL("SOFTDAPL_TRACE: %d trace files, %d tx lines", files, tx);
	for (i = 0; i < n; i++)
		if (!p[i].matched)
			TEST_FAIL("decoded frame %d has no tx line in the trace: %s",
				  p[i].frame, p[i].text);
	printf("%d tx lines of %d trace files match %d frames\n", tx, files, n);
	free(p);
	return 0;
}

/*
 * A UD exchange captured: an address handle resolved (REQ, REP, RTU) and
 * one 100-byte message, decoded with the QP numbers and port they carry.
 */
TEST_IMPL(wireshark_capture_ud)
{
	static const char *const fields[] = {
		"-Y", "softdapl", "-T", "fields", "-e", "softdapl.name",
		"-e", "softdapl.ud.src_qpn", "-e", "softdapl.ud.dst_qpn",
		"-e", "softdapl.ud.qual", "-e", "softdapl.payload_len", NULL };
	static const char *const errors[] = {
		"-Y", "_ws.malformed || _ws.expert.severity >= error", NULL };
	const char *why, *cap = test_path("ud.pcapng");
	DAT_EP_ATTR attr = sdt_ud_attr(16, 2);
	DAT_IB_ADDR_HANDLE ah;
	struct sdt_ud a, b;
	unsigned req_qpn = 0, rep_qpn = 0, src, dst, qual, len;
	int seen[4] = { 0 }, n;
	char name[32], *out, *line, *next;
	test_helper_t *h;
	DAT_IA_HANDLE ia;
	DAT_EVENT ev;

	why = start_capture(cap, "tcp or udp", &h);
	if (why != NULL)
		TEST_SKIP(why);

	ia = sdt_open_ia("lo", NULL);
	sdt_ud_init(&a, ia, &attr, 4096, 0);
	sdt_ud_init(&b, ia, &attr, 4096, 1);
	sdt_connect_to(ia, a.ep, b.port, DAT_TIMEOUT_INFINITE);
	ev = sdt_wait(b.cr_evd, 10000);
	ASSERT_EQ(ev.event_number, DAT_IB_UD_CONNECTION_REQUEST_EVENT);
	ASSERT_OK(dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle,
				b.ep, 0, NULL));
	ev = sdt_wait(a.conn_evd, 10000);
	ASSERT_EQ(ev.event_number, DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED);
	ah = sdt_ext_of(&ev)->remote_ah;
	ASSERT_OK(dat_ib_ud_cm_free(a.ep, sdt_ext_of(&ev)->context.as_ptr));
	ev = sdt_wait(b.conn_evd, 10000);
	ASSERT_EQ(ev.event_number, DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED);
	ASSERT_OK(dat_ib_ud_cm_free(b.ep, sdt_ext_of(&ev)->context.as_ptr));
	ASSERT_OK(sdt_ud_recv(&b, 0, 1024, 1));
	ASSERT_OK(sdt_ud_send(&a, &ah, 2048, 100, 2, DAT_COMPLETION_DEFAULT_FLAG));
	sdt_ud_expect(a.dto_evd, DAT_IB_UD_SEND, DAT_DTO_SUCCESS, 2);
	sdt_ud_expect(b.dto_evd, DAT_IB_UD_RECV, DAT_DTO_SUCCESS, 1);
	sdt_ud_fini(&a);
	sdt_ud_fini(&b);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	stop_capture(h);

	out = tshark(cap, errors);
	if (out[0] != '\0')
		TEST_FAIL("malformed datagrams or expert errors:\n%s", out);
	free(out);

	/* Resends may repeat REQ or REP: each copy must agree. */
	out = tshark(cap, fields);
	printf("%s", out);
	for (line = out; *line != '\0'; line = next) {
		next = strchrnul(line, '\n');
		if (*next == '\n')
			*next++ = '\0';
		qual = len = 0;
		n = sscanf(line, "%31[^\t]\t%u\t%u\t%u\t%u", name, &src, &dst,
			   &qual, &len);
		ASSERT_GE(n, 3);
		if (strcmp(name, "UD_REQ") == 0) {
			ASSERT_EQ(qual, b.port);
			ASSERT_EQ(dst, 0);
			req_qpn = src;
			seen[0]++;
		} else if (strcmp(name, "UD_REP") == 0) {
			ASSERT_EQ(dst, req_qpn);
			rep_qpn = src;
			seen[1]++;
		} else if (strcmp(name, "UD_RTU") == 0) {
			ASSERT_EQ(src, req_qpn);
			ASSERT_EQ(dst, rep_qpn);
			seen[2]++;
		} else if (strcmp(name, "UD_DATA") == 0) {
			/* No qual column: the payload length is the 4th. */
			ASSERT_EQ(n, 4);
			ASSERT_EQ(qual, 100);
			ASSERT_EQ(src, req_qpn);
			ASSERT_EQ(dst, rep_qpn);
			seen[3]++;
		} else {
			TEST_FAIL("unexpected datagram: %s", line);
		}
	}
	free(out);
	ASSERT_NE(req_qpn, 0);
	ASSERT_GE(seen[0], 1);
	ASSERT_GE(seen[1], 1);
	ASSERT_GE(seen[2], 1);
	ASSERT_EQ(seen[3], 1);
	return 0;
}
