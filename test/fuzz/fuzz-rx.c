/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzzes the frame decoder and the receive state machine (provider/rx.c:
 * sd_rx_progress, rx_header and the handler of every opcode), with what
 * they reach: placement into registered memory, remote access checks
 * (lmr.c, rmr.c), receives and SRQ buffers, READ and atomic responders,
 * acks and completions, TERMINATE and DISCONNECT, flushing.
 *
 * Design. The provider runs in this process (peer.h): one IA on
 * 127.0.0.1 whose memory is laid out in one arena, every registered
 * region between guard bytes. For each input the harness
 *
 *   1. creates an EP (with an SRQ or not), posts receives into fixed
 *      slots, and connects it to a listening socket of its own;
 *   2. plays the passive side of the handshake by hand (reads the HELLO,
 *      writes an ACCEPT, reads the RTU: proto.h), so that the EP is
 *      CONNECTED with a real socket whose other end is the harness;
 *   3. binds two RMRs through the EP and posts requests (READ, atomics,
 *      SEND, WRITE) whose responses and acks the input may then carry,
 *      and reads them off the socket;
 *   4. writes the input (less its first two bytes, which pick the
 *      options OPT_* and OPT2_*) into that socket as the peer, reading and
 *      discarding what the victim answers, then closes its write side;
 *   5. waits for the connection to end (the victim sees at least the EOF),
 *      takes every completion and checks: each DTO posted completed
 *      exactly once (the EP is DISCONNECTED: everything is flushed), no
 *      successful receive is longer than its buffer, no EVD overflowed,
 *      and no byte changed in memory the peer was not granted: guard
 *      bytes, regions without remote write, other PZs, an LMR outside the
 *      RMR windows bound over it, receive buffers outside their segments;
 *   6. frees the EP and restores the arena.
 *
 * The contexts are random, so the input names them by index: a header
 * whose rkey is below NCTX gets the real context g.ctx[rkey] and its
 * addr is taken as an offset into that region (ctx_fix). Frames are found
 * as the victim finds them (a 32-byte header, then len bytes for the ops
 * that carry a payload); the rest of the input goes out as it is.
 *
 * The seeds (test/fuzz/mkcorpus.py) know this layout, the options and
 * the tags of the requests.
 */
#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <dat2/dat_ib_extensions.h>

#include "../../provider/proto.h"
#include "peer.h"

/* The input's first byte. */
#define OPT_RECVS	0x07	/* receives to post (SRQ: to have posted) */
#define OPT_SRQ		0x08	/* the EP takes its receives from an SRQ */
#define OPT_REQUESTS	0x10	/* post READ, atomics, SEND, WRITE first */
#define OPT_CHUNKS	0x20	/* write the input 7 bytes at a time */
#define OPT_RD1		0x40	/* max_rdma_read_in/out 1, not 4 */
#define OPT_DISC	0x80	/* graceful disconnect after the input */
/* Its second byte. */
#define OPT2_LATE	0x01	/* post the receives after the input (RNR) */
#define OPT2_DRIVE	0x02	/* the harness waits on the DTO EVDs while the
				 * input arrives: consumer-driven progress */

#define GUARD	64
#define ARENA	(40 * 1024)

enum { R_RW, R_RO, R_LOCAL, R_WIN, R_OTHER, R_RECV, R_REQ, R_DEAD, NREG };

static const struct {
	size_t			len;
	DAT_MEM_PRIV_FLAGS	priv;
	int			other_pz;
	int			all_mutable;	/* the peer may write all of it */
} reg_def[NREG] = {
	[R_RW] = { 16384, (DAT_MEM_PRIV_FLAGS)(DAT_MEM_PRIV_ALL_FLAG |
					      DAT_IB_MEM_PRIV_REMOTE_ATOMIC), 0, 1 },
	[R_RO] = { 1024, DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_REMOTE_READ_FLAG, 0, 0 },
	[R_LOCAL] = { 1024, DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG, 0, 0 },
	[R_WIN] = { 2048, DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG, 0, 0 },
	[R_OTHER] = { 1024, (DAT_MEM_PRIV_FLAGS)(DAT_MEM_PRIV_ALL_FLAG |
						 DAT_IB_MEM_PRIV_REMOTE_ATOMIC), 1, 0 },
	[R_RECV] = { 2 * 6912, DAT_MEM_PRIV_LOCAL_WRITE_FLAG, 0, 0 },
	[R_REQ] = { 1024, DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG, 0, 0 },
	[R_DEAD] = { 256, DAT_MEM_PRIV_ALL_FLAG, 0, 0 },	/* freed at once */
};

/* The RMR windows over R_WIN: [off, off + len). */
#define WIN_OFF		256
#define WIN_LEN		512
#define WIN_EP_OFF	1024
#define WIN_EP_LEN	256

/*
 * Receive slots: up to 4 segments each (the default max_recv_iov), at
 * @base in the EP's half of R_RECV or the SRQ's. Slot 1 holds more than
 * the receive stage (SD_RX_STAGE): its payload is read with readv.
 */
#define NSLOT		8
static const struct {
	uint32_t	base;
	unsigned	n;
	uint32_t	off[4], len[4];
} slot_def[NSLOT] = {
	{ 0, 1, { 0 }, { 0 } },
	{ 256, 2, { 0, 4096 }, { 4000, 1000 } },
	{ 5376, 1, { 0 }, { 16 } },
	{ 5632, 2, { 0, 64 }, { 8, 24 } },
	{ 5888, 1, { 0 }, { 128 } },
	{ 6144, 4, { 0, 16, 32, 64 }, { 1, 2, 3, 100 } },
	{ 6400, 3, { 0, 64, 128 }, { 50, 0, 50 } },
	{ 6656, 1, { 0 }, { 256 } },
};
#define SRQ_BASE	6912	/* the SRQ's slots after the EP's */

/* Requests: local buffers in R_REQ. */
#define RQ_READ0	0	/* READ into 64 + 32 bytes */
#define RQ_READ1	128
#define RQ_FA		256	/* fetch-and-add's old value */
#define RQ_CS		264	/* compare-and-swap's */
#define RQ_SEND		512	/* 100 bytes sent */
#define RQ_WRITE	640	/* 64 bytes written */

/* Cookies. */
enum {
	CK_RECV = 1,			/* + slot */
	CK_SRQ = CK_RECV + NSLOT,	/* + slot */
	CK_BIND = CK_SRQ + NSLOT,
	CK_BIND_EP,
	CK_READ, CK_FA, CK_SEND, CK_WRITE, CK_CS,
	NCOOKIE
};

#define NCTX	8

static struct {
	struct fz_victim	v;
	DAT_PZ_HANDLE		pz2;
	DAT_EVD_HANDLE		req_evd, recv_evd, conn_evd;
	DAT_SRQ_HANDLE		srq;
	DAT_EP_HANDLE		ep;		/* this input's, for FUZZ_GDB */
	DAT_RMR_HANDLE		rmr, rmr_ep;
	int			lfd;
	uint16_t		port;
	uint8_t			*arena, *ref, *mask;
	char			*base[NREG];
	DAT_LMR_HANDLE		lmr[NREG];
	DAT_LMR_CONTEXT		lctx[NREG];
	DAT_RMR_CONTEXT		rctx[NREG];
	DAT_RMR_CONTEXT		ctx[NCTX];	/* what rkey 0..NCTX-1 names */
	char			*ctx_base[NCTX];
	uint32_t		cap[NCOOKIE];	/* receive slots: bytes */
	uint8_t			pending[NCOOKIE];	/* posted, not completed */
} g;

static void mark(char *p, size_t len)
{
	memset(g.mask + ((uint8_t *)p - g.arena), 1, len);
}

static void setup_memory(void)
{
	size_t off = GUARD;
	unsigned r, i, k;

	g.arena = aligned_alloc(4096, ARENA);
	g.ref = malloc(ARENA);
	g.mask = calloc(1, ARENA);
	FUZZ_CHECK(g.arena && g.ref && g.mask);
	for (i = 0; i < ARENA; i++)
		g.ref[i] = (uint8_t)(i * 7 + (i >> 8));
	memcpy(g.arena, g.ref, ARENA);
	for (r = 0; r < NREG; r++) {
		DAT_REGION_DESCRIPTION rd;

		g.base[r] = (char *)g.arena + off;
		off += reg_def[r].len + GUARD;
		FUZZ_CHECK(off <= ARENA);
		rd.for_va = g.base[r];
		FUZZ_CHECK(dat_lmr_create(g.v.ia, DAT_MEM_TYPE_VIRTUAL, rd,
					  reg_def[r].len,
					  reg_def[r].other_pz ? g.pz2 : g.v.pz,
					  reg_def[r].priv, DAT_VA_TYPE_VA,
					  &g.lmr[r], &g.lctx[r], &g.rctx[r],
					  NULL, NULL) == DAT_SUCCESS);
		if (reg_def[r].all_mutable)
			mark(g.base[r], reg_def[r].len);
	}
	/* A context that was valid once. */
	FUZZ_CHECK(dat_lmr_free(g.lmr[R_DEAD]) == DAT_SUCCESS);
	g.lmr[R_DEAD] = DAT_HANDLE_NULL;

	mark(g.base[R_WIN] + WIN_OFF, WIN_LEN);
	mark(g.base[R_WIN] + WIN_EP_OFF, WIN_EP_LEN);
	for (i = 0; i < NSLOT; i++)
		for (k = 0; k < slot_def[i].n; k++) {
			mark(g.base[R_RECV] + slot_def[i].base + slot_def[i].off[k],
			     slot_def[i].len[k]);
			mark(g.base[R_RECV] + SRQ_BASE + slot_def[i].base +
			     slot_def[i].off[k], slot_def[i].len[k]);
			g.cap[CK_RECV + i] += slot_def[i].len[k];
			g.cap[CK_SRQ + i] += slot_def[i].len[k];
		}
	mark(g.base[R_REQ] + RQ_READ0, 64);
	mark(g.base[R_REQ] + RQ_READ1, 32);
	mark(g.base[R_REQ] + RQ_FA, 8);
	mark(g.base[R_REQ] + RQ_CS, 8);

	g.ctx[0] = g.rctx[R_RW];	g.ctx_base[0] = g.base[R_RW];
	g.ctx[1] = g.rctx[R_RO];	g.ctx_base[1] = g.base[R_RO];
	g.ctx[2] = g.rctx[R_LOCAL];	g.ctx_base[2] = g.base[R_LOCAL];
	/* 3, 4: the RMRs, bound for each input. */
	g.ctx_base[3] = g.base[R_WIN] + WIN_OFF;
	g.ctx_base[4] = g.base[R_WIN] + WIN_EP_OFF;
	g.ctx[5] = g.rctx[R_OTHER];	g.ctx_base[5] = g.base[R_OTHER];
	g.ctx[6] = g.rctx[R_DEAD];	g.ctx_base[6] = g.base[R_DEAD];
	g.ctx[7] = g.rctx[R_RECV];	g.ctx_base[7] = g.base[R_RECV];
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	DAT_SRQ_ATTR sa;

	(void)argc;
	(void)argv;
	fz_victim_open(&g.v);
	FUZZ_CHECK(dat_pz_create(g.v.ia, &g.pz2) == DAT_SUCCESS);
	g.req_evd = fz_evd(&g.v, 256, DAT_EVD_DTO_FLAG | DAT_EVD_RMR_BIND_FLAG);
	g.recv_evd = fz_evd(&g.v, 256, DAT_EVD_DTO_FLAG);
	g.conn_evd = fz_evd(&g.v, 16, DAT_EVD_CONNECTION_FLAG);
	setup_memory();
	memset(&sa, 0, sizeof(sa));
	sa.max_recv_dtos = NSLOT;
	sa.max_recv_iov = 4;
	FUZZ_CHECK(dat_srq_create(g.v.ia, g.v.pz, &sa, &g.srq) == DAT_SUCCESS);
	FUZZ_CHECK(dat_rmr_create(g.v.pz, &g.rmr) == DAT_SUCCESS);
	FUZZ_CHECK(dat_rmr_create_for_ep(g.v.pz, &g.rmr_ep) == DAT_SUCCESS);
	g.lfd = fz_listen(&g.port);
	return 0;
}

/* ---- posting ------------------------------------------------------ */

static DAT_DTO_COOKIE ck(unsigned c)
{
	DAT_DTO_COOKIE k;

	k.as_64 = c;
	return k;
}

static void slot_iov(unsigned slot, size_t base, DAT_LMR_TRIPLET *iov)
{
	unsigned k;

	for (k = 0; k < slot_def[slot].n; k++) {
		iov[k].lmr_context = g.lctx[R_RECV];
		iov[k].virtual_address = (DAT_VADDR)(uintptr_t)
			(g.base[R_RECV] + base + slot_def[slot].base + slot_def[slot].off[k]);
		iov[k].segment_length = slot_def[slot].len[k];
	}
}

static void post_recvs(DAT_EP_HANDLE ep, unsigned n, int srq)
{
	DAT_LMR_TRIPLET iov[4];
	unsigned i, posted = 0;

	if (srq) {
		for (i = 0; i < NSLOT; i++)
			posted += g.pending[CK_SRQ + i];
		for (i = 0; i < NSLOT && posted < n; i++) {
			if (g.pending[CK_SRQ + i])
				continue;
			slot_iov(i, SRQ_BASE, iov);
			FUZZ_CHECK(dat_srq_post_recv(g.srq, (DAT_COUNT)slot_def[i].n,
						     iov, ck(CK_SRQ + i)) == DAT_SUCCESS);
			g.pending[CK_SRQ + i] = 1;
			posted++;
		}
		return;
	}
	for (i = 0; i < n; i++) {
		slot_iov(i, 0, iov);
		FUZZ_CHECK(dat_ep_post_recv(ep, (DAT_COUNT)slot_def[i].n, iov,
					    ck(CK_RECV + i), 0) == DAT_SUCCESS);
		g.pending[CK_RECV + i] = 1;
	}
}

static DAT_LMR_TRIPLET req_iov(size_t off, size_t len)
{
	DAT_LMR_TRIPLET t;

	t.lmr_context = g.lctx[R_REQ];
	t.virtual_address = (DAT_VADDR)(uintptr_t)(g.base[R_REQ] + off);
	t.segment_length = len;
	return t;
}

/* The RMRs, through @ep; their contexts become rkeys 3 and 4. */
static void bind_rmrs(DAT_EP_HANDLE ep)
{
	DAT_LMR_TRIPLET t;

	t.lmr_context = g.lctx[R_WIN];
	t.virtual_address = (DAT_VADDR)(uintptr_t)(g.base[R_WIN] + WIN_OFF);
	t.segment_length = WIN_LEN;
	FUZZ_CHECK(dat_rmr_bind(g.rmr, g.lmr[R_WIN], &t,
				DAT_MEM_PRIV_REMOTE_READ_FLAG |
				DAT_MEM_PRIV_REMOTE_WRITE_FLAG, DAT_VA_TYPE_VA,
				ep, ck(CK_BIND), 0, &g.ctx[3]) == DAT_SUCCESS);
	g.pending[CK_BIND] = 1;
	t.virtual_address = (DAT_VADDR)(uintptr_t)(g.base[R_WIN] + WIN_EP_OFF);
	t.segment_length = WIN_EP_LEN;
	FUZZ_CHECK(dat_rmr_bind(g.rmr_ep, g.lmr[R_WIN], &t,
				(DAT_MEM_PRIV_FLAGS)(DAT_MEM_PRIV_REMOTE_WRITE_FLAG |
						     DAT_IB_MEM_PRIV_REMOTE_ATOMIC),
				DAT_VA_TYPE_VA, ep, ck(CK_BIND_EP), 0,
				&g.ctx[4]) == DAT_SUCCESS);
	g.pending[CK_BIND_EP] = 1;
}

/*
 * READ (tag 0, 96 bytes), FETCH_ADD (tag 1), SEND (tag 2, 100 bytes),
 * WRITE (tag 3, 64 bytes), CMP_SWAP (tag 4), in this order on the wire:
 * the corpus's responses and acks name them so. With a read depth of 1
 * only the READ goes out: the rest waits, in order, for its response.
 */
static void post_requests(DAT_EP_HANDLE ep)
{
	DAT_LMR_TRIPLET l[2];
	DAT_RMR_TRIPLET r;

	r.rmr_context = 0x1234;
	r.virtual_address = 0x10000;
	r.segment_length = 96;
	l[0] = req_iov(RQ_READ0, 64);
	l[1] = req_iov(RQ_READ1, 32);
	FUZZ_CHECK(dat_ep_post_rdma_read(ep, 2, l, ck(CK_READ), &r, 0) == DAT_SUCCESS);
	g.pending[CK_READ] = 1;
	r.segment_length = 8;
	l[0] = req_iov(RQ_FA, 8);
	FUZZ_CHECK(dat_ib_post_fetch_and_add(ep, 5, l, ck(CK_FA), &r, 0) ==
		   DAT_SUCCESS);
	g.pending[CK_FA] = 1;
	l[0] = req_iov(RQ_SEND, 100);
	FUZZ_CHECK(dat_ep_post_send(ep, 1, l, ck(CK_SEND), 0) == DAT_SUCCESS);
	g.pending[CK_SEND] = 1;
	r.segment_length = 64;
	l[0] = req_iov(RQ_WRITE, 64);
	FUZZ_CHECK(dat_ep_post_rdma_write(ep, 1, l, ck(CK_WRITE), &r, 0) ==
		   DAT_SUCCESS);
	g.pending[CK_WRITE] = 1;
	r.segment_length = 8;
	l[0] = req_iov(RQ_CS, 8);
	FUZZ_CHECK(dat_ib_post_cmp_and_swap(ep, 7, 9, l, ck(CK_CS), &r, 0) ==
		   DAT_SUCCESS);
	g.pending[CK_CS] = 1;
}

/*
 * Reads what the victim sends until @want requests have come (and the
 * frames before them: acks), so that the input's acks and responses find
 * them sent: a post while others are in flight waits for a batch.
 */
static void read_requests(int fd, unsigned want)
{
	uint8_t b[SD_HDR_SIZE], sink[256];
	struct sd_hdr h;

	while (want > 0) {
		FUZZ_CHECK(fz_read(fd, b, sizeof(b)) == 0);
		sd_hdr_unpack(&h, b);
		if (sd_op_has_payload(h.op)) {
			FUZZ_CHECK(h.len <= sizeof(sink));
			FUZZ_CHECK(fz_read(fd, sink, h.len) == 0);
		}
		if (sd_op_is_request(h.op))
			want--;
	}
}

/* ---- the input ---------------------------------------------------- */

static int op_has_rkey(uint8_t op)
{
	return op == SD_OP_WRITE || op == SD_OP_WRITE_IMM ||
	       op == SD_OP_WRITE_IMM_SE || op == SD_OP_READ_REQ ||
	       op == SD_OP_FETCH_ADD || op == SD_OP_CMP_SWAP ||
	       op == SD_OP_SEND_INV || op == SD_OP_SEND_SE_INV;
}

/* Gives small rkeys their real context and addr its region (see above). */
static void ctx_fix(uint8_t *b, size_t n)
{
	size_t pos = 0;

	while (n - pos >= SD_HDR_SIZE) {
		uint8_t *h = b + pos;
		uint32_t rkey = sd_get32(h + 12), len = sd_get32(h + 8);

		if (op_has_rkey(h[0]) && rkey < NCTX) {
			sd_put32(h + 12, g.ctx[rkey]);
			sd_put64(h + 16, sd_get64(h + 16) +
				 (uint64_t)(uintptr_t)g.ctx_base[rkey]);
		}
		pos += SD_HDR_SIZE;
		if (h[0] <= SD_OP_MAX && !sd_op_has_payload(h[0]))
			continue;
		if (len >= n - pos)
			break;
		pos += len;
	}
}

/* ---- the connection ----------------------------------------------- */

/* Plays the passive side of the handshake; the victim's EP connects. */
static int handshake(DAT_EP_HANDLE ep)
{
	struct sockaddr_in sa = g.v.addr;
	uint8_t b[SD_CM_MSG_SIZE];
	struct sd_cm_msg m;
	DAT_EVENT ev;
	int fd;

	FUZZ_CHECK(dat_ep_connect(ep, (DAT_IA_ADDRESS_PTR)&sa, g.port,
				  FZ_WAIT_MS * 1000, 0, NULL, DAT_QOS_BEST_EFFORT,
				  DAT_CONNECT_DEFAULT_FLAG) == DAT_SUCCESS);
	fd = fz_accept(g.lfd);
	FUZZ_CHECK(fz_read(fd, b, sizeof(b)) == 0);
	sd_cm_unpack(&m, b);
	FUZZ_CHECK(sd_cm_check(&m, SD_CM_HELLO) == 0 && m.pdata_len == 0);
	memset(&m, 0, sizeof(m));
	m.magic = SD_PROTO_MAGIC;
	m.version = SD_PROTO_VERSION;
	m.type = SD_CM_ACCEPT;
	m.max_msg = 1u << 31;
	m.max_rdma = 1u << 31;
	m.rd_in = 4;
	m.rd_out = 4;
	sd_cm_pack(&m, b);
	FUZZ_CHECK(send(fd, b, sizeof(b), MSG_NOSIGNAL) == (ssize_t)sizeof(b));
	fz_wait(g.conn_evd, &ev);
	FUZZ_CHECK(ev.event_number == DAT_CONNECTION_EVENT_ESTABLISHED);
	FUZZ_CHECK(fz_read(fd, b, sizeof(b)) == 0);
	sd_cm_unpack(&m, b);
	FUZZ_CHECK(sd_cm_check(&m, SD_CM_RTU) == 0);
	return fd;
}

/* Checks and counts completion @ev. */
static void handle(const DAT_EVENT *ev)
{
	uint64_t c;

	switch (ev->event_number) {
	case DAT_DTO_COMPLETION_EVENT:
	case DAT_IB_DTO_EVENT: {
		const DAT_DTO_COMPLETION_EVENT_DATA *d =
			&ev->event_data.dto_completion_event_data;

		c = d->user_cookie.as_64;
		FUZZ_CHECK(c > 0 && c < NCOOKIE && g.pending[c]);
		/* A receive holds no more than its buffer (but a write's
		 * immediate data reports the bytes written elsewhere). */
		if (c < CK_BIND && d->status == DAT_DTO_SUCCESS &&
		    ev->event_number == DAT_DTO_COMPLETION_EVENT)
			FUZZ_CHECK(d->transfered_length <= g.cap[c]);
		break;
	}
	case DAT_RMR_BIND_COMPLETION_EVENT:
		c = ev->event_data.rmr_completion_event_data.user_cookie.as_64;
		FUZZ_CHECK(c == CK_BIND || c == CK_BIND_EP);
		FUZZ_CHECK(g.pending[c]);
		break;
	default:
		FUZZ_CHECK(!"unexpected event on a DTO EVD");
		return;
	}
	g.pending[c] = 0;
}

/* Takes one completion off @evd; false when there is none. */
static int reap(DAT_EVD_HANDLE evd)
{
	DAT_EVENT ev;

	if (!fz_poll(evd, &ev))
		return 0;
	handle(&ev);
	return 1;
}

/*
 * A consumer in dat_evd_wait moves the frames of the EPs completing on
 * that EVD itself (progress.c): a short wait on each DTO EVD, then a
 * dequeue (which moves them too) until both are empty.
 */
static void drive(void)
{
	DAT_EVENT ev;
	DAT_COUNT n;

	if (dat_evd_wait(g.recv_evd, 1000, 1, &ev, &n) == DAT_SUCCESS)
		handle(&ev);
	if (dat_evd_wait(g.req_evd, 1000, 1, &ev, &n) == DAT_SUCCESS)
		handle(&ev);
	while (reap(g.recv_evd) || reap(g.req_evd))
		;
}

/* Nothing changed where the peer had no right to write. */
static void check_memory(void)
{
	size_t i;

	for (i = 0; i < ARENA; i++) {
		if (g.mask[i] || g.arena[i] == g.ref[i])
			continue;
		fprintf(stderr, "fuzz-rx: byte %zu of the arena changed\n", i);
		FUZZ_CHECK(!"memory outside what was granted changed");
	}
	memcpy(g.arena, g.ref, ARENA);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	DAT_EP_ATTR attr;
	DAT_EP_HANDLE ep;
	DAT_EVENT ev;
	uint8_t opt, opt2, *in;
	unsigned i;
	size_t n;
	int fd;

	if (size < 2)
		return 0;
	opt = data[0];
	opt2 = data[1];
	n = size - 2;
	in = malloc(n + 1);
	FUZZ_CHECK(in != NULL);
	memcpy(in, data + 2, n);

	memset(&attr, 0, sizeof(attr));
	attr.service_type = DAT_SERVICE_TYPE_RC;
	attr.max_recv_dtos = NSLOT;
	attr.max_request_dtos = 16;
	attr.max_recv_iov = 4;
	attr.max_request_iov = 4;
	attr.max_rdma_read_in = opt & OPT_RD1 ? 1 : 4;
	attr.max_rdma_read_out = attr.max_rdma_read_in;
	attr.srq_soft_hw = DAT_HW_DEFAULT;
	if (opt & OPT_SRQ)
		FUZZ_CHECK(dat_ep_create_with_srq(g.v.ia, g.v.pz, g.recv_evd,
						  g.req_evd, g.conn_evd, g.srq,
						  &attr, &ep) == DAT_SUCCESS);
	else
		FUZZ_CHECK(dat_ep_create(g.v.ia, g.v.pz, g.recv_evd, g.req_evd,
					 g.conn_evd, &attr, &ep) == DAT_SUCCESS);
	g.ep = ep;
	if (!(opt2 & OPT2_LATE))
		post_recvs(ep, opt & OPT_RECVS, opt & OPT_SRQ);
	fd = handshake(ep);
	bind_rmrs(ep);
	if (opt & OPT_REQUESTS) {
		post_requests(ep);
		/* In order: with a read depth of 1, the rest waits for the READ. */
		read_requests(fd, opt & OPT_RD1 ? 1 : 5);
	}

	ctx_fix(in, n);
	fz_write(fd, in, n, opt & OPT_CHUNKS ? 7 : 0);
	if (opt2 & OPT2_DRIVE)
		drive();
	if (opt2 & OPT2_LATE)	/* a receiver not ready resumes */
		post_recvs(ep, opt & OPT_RECVS, opt & OPT_SRQ);
	if (opt & OPT_DISC)
		dat_ep_disconnect(ep, DAT_CLOSE_GRACEFUL_FLAG);
	shutdown(fd, SHUT_WR);
	fz_drain(fd);		/* the victim closes once it saw our EOF */

	/* The connection event, then every completion (flushed first). */
	fz_wait(g.conn_evd, &ev);
	FUZZ_CHECK(ev.event_number == DAT_CONNECTION_EVENT_DISCONNECTED ||
		   ev.event_number == DAT_CONNECTION_EVENT_BROKEN);
	FUZZ_CHECK(!fz_poll(g.conn_evd, &ev));	/* exactly one */
	while (reap(g.req_evd) || reap(g.recv_evd))
		;
	for (i = 1; i < NCOOKIE; i++)
		if (i < CK_SRQ || i >= CK_BIND)
			FUZZ_CHECK(!g.pending[i]);	/* exactly once */
	while (fz_poll(g.v.async_evd, &ev))
		FUZZ_CHECK(ev.event_number == DAT_ASYNC_ERROR_EP_BROKEN);
	check_memory();

	FUZZ_CHECK(dat_ep_free(ep) == DAT_SUCCESS);
	fz_close(fd);
	free(in);
	return 0;
}
