/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzzes the same-host transport from its listening side (provider/shm.c:
 * the ring reader and writer, the positions and flags the peer writes,
 * the PENDING listener's choice between ring and TCP, wake-ups and the
 * end of a stream), with what it feeds: the RTU (cm.c's passive_rtu) and
 * the frame decoder (rx.c) reading through a ring, placement, completions.
 *
 * Design. The provider runs in this process (peer.h), with 4 KiB rings
 * (SOFTDAPL_SHM_RING_KB=4: frames wrap, and a ring fills up, within a
 * short input) and its memory laid out as fuzz-rx.c's: one arena, every
 * registered region between guard bytes. For each input the harness
 *
 *   1. creates an EP and posts receives into fixed slots (the slots,
 *      regions and contexts are fuzz-rx.c's, less the SRQ);
 *   2. plays a requester that offers shared memory: connects to the
 *      victim's PSP, writes a HELLO with SD_CM_F_SHM, accepts the request
 *      as the consumer, reads the ACCEPT and its segment extension, opens,
 *      checks and maps the segment and unlinks its name (proto.h, "The
 *      same-host segment");
 *   3. writes the RTU into ring 1 as a correct writer, waits for the EP to
 *      be CONNECTED, binds two RMRs through it and, with OPT_REQUESTS,
 *      posts requests (READ, atomics, SEND, WRITE: fuzz-rx.c's, tags 0 to
 *      4) and reads them out of ring 0;
 *   4. runs the input's operations (OP_*, below) on the segment and on
 *      the TCP connection;
 *   5. closes its write side of TCP (unless an operation closed it) and,
 *      reading ring 0 and TCP, waits for the victim to close its side; then
 *      takes the connection's end and every completion and checks: each
 *      DTO posted completed exactly once, no successful receive is longer
 *      than its buffer, no EVD overflowed, and no byte changed in memory
 *      the peer was not granted (fuzz-rx.c's check_memory);
 *   6. frees the EP and unmaps the segment, and checks that the engine
 *      still answers others (check_engine): a stream that keeps its loop
 *      busy hangs every connection of the process.
 *
 * Checks on what the victim writes into ring 0, while the harness has not
 * set that ring's positions (OP_SET of its tail or of our head): its tail
 * never passes our head by more than the ring's size, and its bytes are
 * frames (a known op, zero reserved bytes, a payload only where the op
 * has one).
 *
 * The input. Byte 0 holds the options OPT_*; the rest is a sequence of
 * operations, each an op byte (taken modulo NOP) and its arguments;
 * arguments cut short by the end of the input read as zeros, and a
 * length past the end is clamped to what is left. Multi-byte integers are
 * little-endian.
 *
 *   OP_PUT     u16 n, n bytes: into ring 1 as a correct writer: within
 *              the room the victim's head leaves (waiting up to STALL_MS
 *              for room, once per input, reading ring 0 meanwhile), the
 *              tail published, a wake-up sent if the victim armed
 *              rd_armed. Small rkeys are given real contexts as in
 *              fuzz-rx.c (ctx_fix), taking the bytes as starting at a
 *              frame.
 *   OP_SET     u8 sel, u64 v: a field of the segment (field_def, by sel's
 *              low 4 bits) is set, by sel's bits 4-5: to v; to itself + v;
 *              to itself - v; to its counterpart + v (ring 1's tail: the
 *              victim's head; our head of ring 0: the victim's tail, and
 *              conversely), with atomic stores as a peer's. SET_ADOPT
 *              (0x40): for ring 1's tail or ring 0's head, the harness's
 *              own position becomes the value too (later PUTs and READ0s
 *              go on from there). SET_BELL (0x80): a wake-up after.
 *   OP_REWRITE u16 off, u8 n, n bytes: rewrites ring 1's bytes from the
 *              victim's published head + off: bytes it may be reading.
 *   OP_BELL    one wake-up byte over TCP.
 *   OP_READ0   reads and discards what ring 0 holds, as a correct reader
 *              (head published; a wake-up if the victim waits for room).
 *   OP_WAIT    u8 ms: up to ms % 32 ms for the victim to take everything
 *              in ring 1, reading ring 0 meanwhile (unless OPT_NOREAD),
 *              and no longer than TCP lasts.
 *   OP_DRIVE   the consumer moves the frames itself (progress.c): a short
 *              dat_evd_wait on each DTO EVD, then dequeues.
 *   OP_POST    posts a receive into every slot that has none.
 *   OP_VSEND   u8 k: the victim posts a SEND of 16 * k bytes (at most
 *              NVSEND outstanding), which goes into ring 0.
 *   OP_SHUT    shuts down the write side of TCP (the victim's EOF).
 *   OP_CLOSE   closes TCP at once (RST): the peer is gone.
 *   OP_DISC    u8 b: the victim's consumer disconnects: abruptly if b is
 *              odd, gracefully otherwise.
 *   OP_SIDE    u8 sel, u64 v: the sides' blocks (proto.h, for RDMA placed
 *              by the initiator and SENDs by address): with sel's bit 7,
 *              the harness proves itself as a peer would (it echoes the
 *              victim's challenge, names its pid, says it is exposed and,
 *              with v odd, that it pulls); else a field of side_def, by
 *              sel modulo NSIDE, is set to v. The victim's busy flag is
 *              not among them: a peer that holds it only makes the
 *              victim's revokes wait (cma.c, bounded), which no fuzzer
 *              should spend its seconds on.
 *
 * With OPT_NO_RTU the harness does not send the RTU: the input does (or
 * does not), through the ring or over TCP (a wake-up byte before any ring
 * byte makes the victim take the TCP path: then that byte starts the
 * RTU). The RMRs and requests need the connection, so they are left out.
 *
 * The seeds (test/fuzz/mkcorpus.py) know the options and operations.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <dat2/dat_ib_extensions.h>

#include "../../provider/proto.h"
#include "peer.h"

/* The input's first byte. */
#define OPT_RECVS	0x07	/* receives to post first */
#define OPT_REQUESTS	0x08	/* post READ, atomics, SEND, WRITE first */
#define OPT_DISC	0x10	/* graceful disconnect after the input */
#define OPT_RD1		0x20	/* max_rdma_read_in/out 1, not 4 */
#define OPT_NO_RTU	0x40	/* the input sends the RTU, or not */
#define OPT_NOREAD	0x80	/* ring 0 is read only by OP_READ0 */

enum {
	OP_PUT, OP_SET, OP_REWRITE, OP_BELL, OP_READ0, OP_WAIT, OP_DRIVE,
	OP_POST, OP_VSEND, OP_SHUT, OP_CLOSE, OP_DISC, OP_SIDE, NOP
};

#define SET_HOW		0x30
#define SET_ADOPT	0x40
#define SET_BELL	0x80

#define RING_KB		4
#define RING_SIZE	(RING_KB * 1024u)

/* A correct writer that finds no room waits this long, once per input. */
#define STALL_MS	100

/*
 * The segment's fields (proto.h), as OP_SET names them. The victim reads
 * ring 1's writer line and ring 0's reader line (the peer's); the others
 * are its own, which it writes but must not trust.
 */
enum { F_TAIL1, F_CLOSED1, F_WAITING1, F_HEAD1, F_ARMED1, F_TAIL0, F_CLOSED0,
       F_WAITING0, F_HEAD0, F_ARMED0, F_MAGIC, F_VERSION, F_NONCE, F_SIZE,
       F_PID_L, F_PID_R, NFIELD };

static const struct {
	unsigned	off;
	unsigned	width;		/* bytes: 4 or 8 */
	int		pair;		/* the counterpart position, or -1 */
} field_def[NFIELD] = {
	[F_TAIL1] = { SD_SHM_OFF_WRITER(1) + SD_SHM_W_TAIL, 8, F_HEAD1 },
	[F_CLOSED1] = { SD_SHM_OFF_WRITER(1) + SD_SHM_W_CLOSED, 4, -1 },
	[F_WAITING1] = { SD_SHM_OFF_WRITER(1) + SD_SHM_W_WAITING, 4, -1 },
	[F_HEAD1] = { SD_SHM_OFF_READER(1) + SD_SHM_R_HEAD, 8, F_TAIL1 },
	[F_ARMED1] = { SD_SHM_OFF_READER(1) + SD_SHM_R_ARMED, 4, -1 },
	[F_TAIL0] = { SD_SHM_OFF_WRITER(0) + SD_SHM_W_TAIL, 8, F_HEAD0 },
	[F_CLOSED0] = { SD_SHM_OFF_WRITER(0) + SD_SHM_W_CLOSED, 4, -1 },
	[F_WAITING0] = { SD_SHM_OFF_WRITER(0) + SD_SHM_W_WAITING, 4, -1 },
	[F_HEAD0] = { SD_SHM_OFF_READER(0) + SD_SHM_R_HEAD, 8, F_TAIL0 },
	[F_ARMED0] = { SD_SHM_OFF_READER(0) + SD_SHM_R_ARMED, 4, -1 },
	[F_MAGIC] = { 0, 4, -1 },
	[F_VERSION] = { 4, 4, -1 },
	[F_NONCE] = { SD_SHM_OFF_NONCE, 8, -1 },
	[F_SIZE] = { SD_SHM_OFF_RING_SIZE, 4, -1 },
	[F_PID_L] = { SD_SHM_OFF_PID_L, 4, -1 },
	[F_PID_R] = { SD_SHM_OFF_PID_R, 4, -1 },
};

/* The sides' fields OP_SIDE sets: the requester's (ours), the victim's. */
static const unsigned side_def[] = {
	SD_SHM_OFF_SIDE(1) + SD_SHM_S_CHALLENGE, SD_SHM_OFF_SIDE(1) + SD_SHM_S_ECHO,
	SD_SHM_OFF_SIDE(1) + SD_SHM_S_GRANTS, SD_SHM_OFF_SIDE(1) + SD_SHM_S_SLOTS,
	SD_SHM_OFF_SIDE(1) + SD_SHM_S_EXPOSED, SD_SHM_OFF_SIDE(1) + SD_SHM_S_PZ,
	SD_SHM_OFF_SIDE(1) + SD_SHM_S_EP, SD_SHM_OFF_SIDE(1) + SD_SHM_S_EPOCH,
	SD_SHM_OFF_SIDE(1) + SD_SHM_S_BUSY, SD_SHM_OFF_SIDE(1) + SD_SHM_S_PULLS,
	SD_SHM_OFF_SIDE(0) + SD_SHM_S_EXPOSED, SD_SHM_OFF_SIDE(0) + SD_SHM_S_PULLS,
	SD_SHM_OFF_SIDE(0) + SD_SHM_S_EPOCH, SD_SHM_OFF_SIDE(0) + SD_SHM_S_ECHO,
};
#define NSIDE	(sizeof(side_def) / sizeof(side_def[0]))

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
	[R_RECV] = { 6912, DAT_MEM_PRIV_LOCAL_WRITE_FLAG, 0, 0 },
	[R_REQ] = { 4096 + 1024, DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG, 0, 0 },
	[R_DEAD] = { 256, DAT_MEM_PRIV_ALL_FLAG, 0, 0 },	/* freed at once */
};

/* The RMR windows over R_WIN: [off, off + len). */
#define WIN_OFF		256
#define WIN_LEN		512
#define WIN_EP_OFF	1024
#define WIN_EP_LEN	256

/* Receive slots: fuzz-rx.c's (slot 1 is larger than the ring). */
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

/* Requests: local buffers in R_REQ. */
#define RQ_READ0	0	/* READ into 64 + 32 bytes */
#define RQ_READ1	128
#define RQ_FA		256	/* fetch-and-add's old value */
#define RQ_CS		264	/* compare-and-swap's */
#define RQ_SEND		512	/* 100 bytes sent */
#define RQ_WRITE	640	/* 64 bytes written */
#define RQ_VSEND	1024	/* OP_VSEND's bytes: up to 4080 */
#define NVSEND		8

/* Cookies. */
enum {
	CK_RECV = 1,			/* + slot */
	CK_BIND = CK_RECV + NSLOT,
	CK_BIND_EP,
	CK_READ, CK_FA, CK_SEND, CK_WRITE, CK_CS,
	CK_VSEND,			/* + k < NVSEND */
	NCOOKIE = CK_VSEND + NVSEND
};

#define NCTX	8

/* What the harness reads out of ring 0: frame by frame. */
struct walker {
	uint8_t		hdr[SD_HDR_SIZE];
	unsigned	have;		/* header bytes so far */
	uint64_t	skip;		/* payload bytes left */
	unsigned	requests;	/* request frames seen */
};

static struct {
	struct fz_victim	v;
	DAT_PZ_HANDLE		pz2;
	DAT_EVD_HANDLE		req_evd, recv_evd, conn_evd, cr_evd;
	DAT_PSP_HANDLE		psp;
	DAT_CONN_QUAL		port;
	DAT_EP_HANDLE		ep;		/* this input's, for FUZZ_GDB */
	DAT_RMR_HANDLE		rmr, rmr_ep;
	uint8_t			*arena, *ref, *mask;
	char			*base[NREG];
	DAT_LMR_HANDLE		lmr[NREG];
	DAT_LMR_CONTEXT		lctx[NREG];
	DAT_RMR_CONTEXT		rctx[NREG];
	DAT_RMR_CONTEXT		ctx[NCTX];	/* what rkey 0..NCTX-1 names */
	char			*ctx_base[NCTX];
	uint32_t		cap[NCOOKIE];	/* receive slots: bytes */
	uint8_t			pending[NCOOKIE];	/* posted, not completed */
	/* This input's peer. */
	uint8_t			opt;
	int			fd;		/* TCP, or -1 once closed */
	int			shut;		/* our write side is shut */
	int			stalled;	/* a PUT found no room for long */
	uint8_t			*seg;		/* the segment, mapped */
	size_t			seg_len;
	uint64_t		tail1;		/* ours: written into ring 1 */
	uint64_t		head0;		/* ours: read out of ring 0 */
	int			tamper0;	/* ring 0's positions were set */
	struct walker		w;
} g;

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* ---- memory ------------------------------------------------------- */

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
			g.cap[CK_RECV + i] += slot_def[i].len[k];
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
	char kb[16];

	(void)argc;
	(void)argv;
	/* Shared memory offered (auto), small rings; read once, so first. */
	unsetenv("SOFTDAPL_TRANSPORT");
	snprintf(kb, sizeof(kb), "%u", RING_KB);
	setenv("SOFTDAPL_SHM_RING_KB", kb, 1);
	unsetenv("SOFTDAPL_SHM_BUDGET_MB");
	fz_victim_open(&g.v);
	FUZZ_CHECK(dat_pz_create(g.v.ia, &g.pz2) == DAT_SUCCESS);
	g.req_evd = fz_evd(&g.v, 256, DAT_EVD_DTO_FLAG | DAT_EVD_RMR_BIND_FLAG);
	g.recv_evd = fz_evd(&g.v, 256, DAT_EVD_DTO_FLAG);
	g.conn_evd = fz_evd(&g.v, 16, DAT_EVD_CONNECTION_FLAG);
	g.cr_evd = fz_evd(&g.v, 16, DAT_EVD_CR_FLAG);
	setup_memory();
	FUZZ_CHECK(dat_rmr_create(g.v.pz, &g.rmr) == DAT_SUCCESS);
	FUZZ_CHECK(dat_rmr_create_for_ep(g.v.pz, &g.rmr_ep) == DAT_SUCCESS);
	FUZZ_CHECK(dat_psp_create_any(g.v.ia, &g.port, g.cr_evd,
				      DAT_PSP_CONSUMER_FLAG, &g.psp) == DAT_SUCCESS);
	return 0;
}

/* ---- posting ------------------------------------------------------ */

static DAT_DTO_COOKIE ck(unsigned c)
{
	DAT_DTO_COOKIE k;

	k.as_64 = c;
	return k;
}

/* A receive into every slot of the first @n that has none. */
static void post_recvs(DAT_EP_HANDLE ep, unsigned n)
{
	DAT_LMR_TRIPLET iov[4];
	unsigned i, k;

	for (i = 0; i < n && i < NSLOT; i++) {
		if (g.pending[CK_RECV + i])
			continue;
		for (k = 0; k < slot_def[i].n; k++) {
			iov[k].lmr_context = g.lctx[R_RECV];
			iov[k].virtual_address = (DAT_VADDR)(uintptr_t)
				(g.base[R_RECV] + slot_def[i].base + slot_def[i].off[k]);
			iov[k].segment_length = slot_def[i].len[k];
		}
		/* A broken connection refuses posts: then nothing is owed. */
		if (dat_ep_post_recv(ep, (DAT_COUNT)slot_def[i].n, iov,
				     ck(CK_RECV + i), 0) == DAT_SUCCESS)
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
 * WRITE (tag 3, 64 bytes), CMP_SWAP (tag 4): fuzz-rx.c's. With a read
 * depth of 1 only the READ goes out before its response.
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

/* The victim sends @len bytes of R_REQ (OP_VSEND), if a cookie is free. */
static void post_vsend(DAT_EP_HANDLE ep, size_t len)
{
	DAT_LMR_TRIPLET l;
	unsigned k;

	for (k = 0; k < NVSEND; k++)
		if (!g.pending[CK_VSEND + k])
			break;
	if (k == NVSEND)
		return;
	l = req_iov(RQ_VSEND, len);
	if (dat_ep_post_send(ep, 1, &l, ck(CK_VSEND + k), 0) == DAT_SUCCESS)
		g.pending[CK_VSEND + k] = 1;
}

/* ---- the segment, as the peer sees it ------------------------------ */

/*
 * The peer's accesses to the segment. The peer is another process in
 * earnest: what it does to the segment is not this process's memory
 * model's business, so ThreadSanitizer (make check's TSan build replays
 * the inputs) is not told of them; a hostile peer races by design.
 */
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 8)
#define PEER_ACCESS	__attribute__((no_sanitize("thread"), noinline))
#else
#define PEER_ACCESS	__attribute__((noinline))
#endif

static PEER_ACCESS uint64_t seg_load(unsigned off, unsigned width)
{
	if (width == 8)
		return __atomic_load_n((uint64_t *)(void *)(g.seg + off),
				       __ATOMIC_SEQ_CST);
	return __atomic_load_n((uint32_t *)(void *)(g.seg + off),
			       __ATOMIC_SEQ_CST);
}

/*
 * Sequentially consistent, as the provider's stores and fences: a flag
 * read after a position was published sees what the other side set
 * before it looked (shm.c, "Wake-ups").
 */
static PEER_ACCESS void seg_store(unsigned off, unsigned width, uint64_t v)
{
	if (width == 8)
		__atomic_store_n((uint64_t *)(void *)(g.seg + off), v,
				 __ATOMIC_SEQ_CST);
	else
		__atomic_store_n((uint32_t *)(void *)(g.seg + off), (uint32_t)v,
				 __ATOMIC_SEQ_CST);
}

/* Clears a wake-up flag; whether it was set (the peer then rings). */
static PEER_ACCESS int seg_take_flag(unsigned off)
{
	uint32_t *p = (uint32_t *)(void *)(g.seg + off);

	return __atomic_load_n(p, __ATOMIC_SEQ_CST) != 0 &&
	       __atomic_exchange_n(p, 0, __ATOMIC_SEQ_CST) != 0;
}

/* Writes @n bytes of @p into ring @r from stream position @pos. */
static PEER_ACCESS void ring_write(int r, uint64_t pos, const uint8_t *p,
				   size_t n)
{
	volatile uint8_t *ring = g.seg + SD_SHM_HDR_SIZE + (size_t)r * RING_SIZE;
	size_t i;

	for (i = 0; i < n; i++)
		ring[(pos + i) % RING_SIZE] = p[i];
}

/* Reads @n bytes of ring @r from stream position @pos into @p. */
static PEER_ACCESS void ring_read(int r, uint64_t pos, uint8_t *p, size_t n)
{
	volatile uint8_t *ring = g.seg + SD_SHM_HDR_SIZE + (size_t)r * RING_SIZE;
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = ring[(pos + i) % RING_SIZE];
}

static uint64_t field_get(unsigned f)
{
	return seg_load(field_def[f].off, field_def[f].width);
}

static void field_set(unsigned f, uint64_t v)
{
	seg_store(field_def[f].off, field_def[f].width, v);
}

/* ---- TCP ----------------------------------------------------------- */

/* Reads and discards the victim's wake-up bytes; -1 at its end. */
static int tcp_discard(void)
{
	char sink[256];

	if (g.fd < 0)
		return -1;
	for (;;) {
		ssize_t r = recv(g.fd, sink, sizeof(sink), MSG_DONTWAIT);

		if (r > 0)
			continue;
		if (r < 0 && errno == EINTR)
			continue;
		return r < 0 && errno == EAGAIN ? 0 : -1;
	}
}

/* One wake-up byte; a full socket or a closed one is no matter. */
static void bell(void)
{
	static const char b = '!';

	if (g.fd >= 0 && !g.shut)
		(void)send(g.fd, &b, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
}

/* ---- ring 0: the victim's frames ------------------------------------ */

/*
 * Walks @n bytes of ring 0 at @p: counts requests and checks that the
 * victim writes frames (proto.h), unless ring 0 was tampered with.
 */
static void walk(const uint8_t *p, size_t n)
{
	struct walker *w = &g.w;
	struct sd_hdr h;

	while (n > 0) {
		size_t k;

		if (w->skip > 0) {
			k = w->skip < n ? (size_t)w->skip : n;
			w->skip -= k;
			p += k;
			n -= k;
			continue;
		}
		k = SD_HDR_SIZE - w->have < n ? SD_HDR_SIZE - w->have : n;
		memcpy(w->hdr + w->have, p, k);
		w->have += (unsigned)k;
		p += k;
		n -= k;
		if (w->have < SD_HDR_SIZE)
			continue;
		w->have = 0;
		sd_hdr_unpack(&h, w->hdr);
		if (!g.tamper0) {
			FUZZ_CHECK(h.op >= SD_OP_SEND && h.op <= SD_OP_MAX);
			FUZZ_CHECK(h.flags == 0 && w->hdr[SD_HDR_OFF_PAD] == 0 &&
				   w->hdr[SD_HDR_OFF_PAD + 1] == 0);
		}
		if (sd_op_has_payload(h.op))
			w->skip = h.len;
		if (sd_op_is_request(h.op))
			w->requests++;
	}
}

/*
 * Reads what ring 0 holds as a correct reader: copies it out, walks it,
 * publishes our head, and rings if the victim waits for room. A tail the
 * victim made impossible is a bug, unless we tampered with the ring.
 */
static void read0(void)
{
	uint64_t tail = field_get(F_TAIL0), n = tail - g.head0;
	uint8_t buf[RING_SIZE];

	if (n > RING_SIZE) {
		FUZZ_CHECK(g.tamper0);
		return;
	}
	if (n == 0)
		return;
	if (!g.tamper0) {
		ring_read(0, g.head0, buf, (size_t)n);
		walk(buf, (size_t)n);
	}
	g.head0 = tail;
	field_set(F_HEAD0, g.head0);
	if (seg_take_flag(SD_SHM_OFF_WRITER(0) + SD_SHM_W_WAITING))
		bell();
}

/*
 * Our reads, while we wait for something: -1 once TCP is at its end (the
 * victim closed, or we did), when nothing more is worth waiting for.
 */
static int idle(void)
{
	int r = tcp_discard();

	if (!(g.opt & OPT_NOREAD))
		read0();
	return r;
}

/* ---- ring 1: ours --------------------------------------------------- */

/* Room in ring 1 as the victim's published head leaves it (0 if absurd). */
static size_t room1(void)
{
	uint64_t used = g.tail1 - field_get(F_HEAD1);

	return used > RING_SIZE ? 0 : (size_t)(RING_SIZE - used);
}

/* Publishes our tail, and rings if the victim sleeps on it. */
static void publish1(void)
{
	field_set(F_TAIL1, g.tail1);
	if (seg_take_flag(SD_SHM_OFF_READER(1) + SD_SHM_R_ARMED))
		bell();
}

/*
 * Writes @n bytes into ring 1 as a correct writer, in pieces as room
 * comes; gives up when none comes for STALL_MS (the victim waits for a
 * receive, or the connection is gone), and then waits no more this input.
 */
static void put(const uint8_t *p, size_t n)
{
	long long last = now_ms();

	while (n > 0) {
		size_t k = room1();

		if (k > 0) {
			if (k > n)
				k = n;
			ring_write(1, g.tail1, p, k);
			g.tail1 += k;
			publish1();
			p += k;
			n -= k;
			last = now_ms();
			continue;
		}
		if (g.stalled || now_ms() - last > STALL_MS) {
			g.stalled = 1;
			return;
		}
		/* As a writer would: ask for a wake-up, then look again. */
		field_set(F_WAITING1, 1);
		if (idle() < 0)
			g.stalled = 1;
		else
			usleep(100);
	}
}

/* Waits up to @ms for the victim to take all of ring 1. */
static void wait_taken(unsigned ms)
{
	long long end = now_ms() + ms;

	while (field_get(F_HEAD1) != g.tail1 && now_ms() < end && idle() == 0)
		usleep(100);
}

/* ---- the input ---------------------------------------------------- */

struct input {
	const uint8_t	*p;
	size_t		n;
};

static uint64_t arg(struct input *in, unsigned bytes)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < bytes; i++) {
		if (in->n == 0)
			break;
		v |= (uint64_t)in->p[0] << (8 * i);
		in->p++;
		in->n--;
	}
	return v;
}

/* The next @want bytes (fewer at the end): a copy the caller frees. */
static uint8_t *take(struct input *in, size_t want, size_t *got)
{
	uint8_t *b;

	if (want > in->n)
		want = in->n;
	b = calloc(1, want + 1);
	FUZZ_CHECK(b != NULL);
	memcpy(b, in->p, want);
	in->p += want;
	in->n -= want;
	*got = want;
	return b;
}

static int op_has_rkey(uint8_t op)
{
	return op == SD_OP_WRITE || op == SD_OP_WRITE_IMM ||
	       op == SD_OP_WRITE_IMM_SE || op == SD_OP_READ_REQ ||
	       op == SD_OP_FETCH_ADD || op == SD_OP_CMP_SWAP ||
	       op == SD_OP_SEND_INV || op == SD_OP_SEND_SE_INV;
}

/* Gives small rkeys their real context and addr its region (fuzz-rx.c). */
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

/* OP_SIDE. The u32 fields are those at +24, +28, +56 and +60. */
static void op_side(struct input *in)
{
	static uint64_t echo;
	unsigned sel = (unsigned)arg(in, 1), off;
	uint64_t v = arg(in, 8);

	if (sel & 0x80) {
		echo = seg_load(SD_SHM_OFF_SIDE(0) + SD_SHM_S_CHALLENGE, 8);
		seg_store(SD_SHM_OFF_SIDE(1) + SD_SHM_S_ECHO, 8,
			  (uint64_t)(uintptr_t)&echo);
		field_set(F_PID_R, (uint32_t)getpid());
		seg_store(SD_SHM_OFF_SIDE(1) + SD_SHM_S_PULLS, 4, v & 1);
		seg_store(SD_SHM_OFF_SIDE(1) + SD_SHM_S_EXPOSED, 4, 1);
		return;
	}
	off = side_def[sel % NSIDE];
	seg_store(off, (off % 64 == 24 || off % 64 == 28 || off % 64 >= 56) ?
		  4 : 8, v);
}

/* OP_SET. */
static void op_set(struct input *in)
{
	unsigned sel = (unsigned)arg(in, 1), f = sel % 16;
	uint64_t v = arg(in, 8), cur = field_get(f);

	switch ((sel & SET_HOW) >> 4) {
	case 0:
		break;
	case 1:
		v = cur + v;
		break;
	case 2:
		v = cur - v;
		break;
	default:
		if (field_def[f].pair >= 0)
			v += field_get((unsigned)field_def[f].pair);
		break;
	}
	field_set(f, v);
	if (f == F_TAIL0 || f == F_HEAD0)
		g.tamper0 = 1;
	if (sel & SET_ADOPT) {
		if (f == F_TAIL1)
			g.tail1 = v;
		else if (f == F_HEAD0)
			g.head0 = v;
	}
	if (sel & SET_BELL)
		bell();
}

/* OP_REWRITE: ring 1's bytes from the victim's head on, published or not. */
static void op_rewrite(struct input *in)
{
	uint64_t off = arg(in, 2);
	size_t want = (size_t)arg(in, 1), n;
	uint8_t *b = take(in, want, &n);

	ring_write(1, field_get(F_HEAD1) + off, b, n);
	free(b);
}

static void op_put(struct input *in)
{
	size_t want = (size_t)arg(in, 2), n;
	uint8_t *b = take(in, want, &n);

	ctx_fix(b, n);
	put(b, n);
	free(b);
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
		FUZZ_CHECK(c > 0 && c < NCOOKIE && c != CK_BIND &&
			   c != CK_BIND_EP && g.pending[c]);
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

/* OP_DRIVE: the consumer's wait moves the frames (progress.c). */
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

static void run_ops(DAT_EP_HANDLE ep, struct input *in)
{
	while (in->n > 0) {
		unsigned op = (unsigned)arg(in, 1) % NOP;

		switch (op) {
		case OP_PUT:
			op_put(in);
			break;
		case OP_SET:
			op_set(in);
			break;
		case OP_REWRITE:
			op_rewrite(in);
			break;
		case OP_BELL:
			bell();
			break;
		case OP_READ0:
			(void)tcp_discard();
			read0();
			break;
		case OP_WAIT:
			wait_taken((unsigned)arg(in, 1) % 32);
			break;
		case OP_DRIVE:
			drive();
			break;
		case OP_POST:
			post_recvs(ep, NSLOT);
			break;
		case OP_VSEND:
			post_vsend(ep, 16 * (size_t)(arg(in, 1) % 256));
			break;
		case OP_SHUT:
			if (g.fd >= 0 && !g.shut)
				shutdown(g.fd, SHUT_WR);
			g.shut = 1;
			break;
		case OP_CLOSE:
			if (g.fd >= 0)
				fz_close(g.fd);
			g.fd = -1;
			break;
		case OP_DISC:
			(void)dat_ep_disconnect(ep, arg(in, 1) & 1 ?
						DAT_CLOSE_ABRUPT_FLAG :
						DAT_CLOSE_GRACEFUL_FLAG);
			break;
		case OP_SIDE:
			op_side(in);
			break;
		}
	}
}

/* ---- the connection ----------------------------------------------- */

/*
 * Plays the requester up to the segment: HELLO offering shared memory,
 * the consumer's accept of @ep, the ACCEPT and its offer, the segment
 * opened, checked, mapped and unlinked.
 */
static void connect_attach(DAT_EP_HANDLE ep)
{
	uint8_t b[SD_CM_MSG_SIZE + SD_CM_SHM_EXT_SIZE];
	struct sd_cm_shm_ext e;
	struct sd_cm_msg m;
	struct stat st;
	DAT_EVENT ev;
	char name[64];
	int fd;

	g.fd = fz_connect((uint16_t)g.port);
	memset(&m, 0, sizeof(m));
	m.magic = SD_PROTO_MAGIC;
	m.version = SD_PROTO_VERSION;
	m.type = SD_CM_HELLO;
	m.conn_qual = g.port;
	m.max_msg = 1u << 31;
	m.max_rdma = 1u << 31;
	m.rd_in = m.rd_out = g.opt & OPT_RD1 ? 1 : 4;
	m.flags = SD_CM_F_SHM;
	sd_cm_pack(&m, b);
	FUZZ_CHECK(send(g.fd, b, SD_CM_MSG_SIZE, MSG_NOSIGNAL) == SD_CM_MSG_SIZE);
	fz_wait(g.cr_evd, &ev);
	FUZZ_CHECK(ev.event_number == DAT_CONNECTION_REQUEST_EVENT);
	FUZZ_CHECK(dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle,
				 ep, 0, NULL) == DAT_SUCCESS);
	FUZZ_CHECK(fz_read(g.fd, b, sizeof(b)) == 0);
	sd_cm_unpack(&m, b);
	FUZZ_CHECK(sd_cm_check(&m, SD_CM_ACCEPT) == 0 && m.pdata_len == 0);
	FUZZ_CHECK(m.flags & SD_CM_F_SHM);
	sd_cm_shm_ext_unpack(&e, b + SD_CM_MSG_SIZE);
	FUZZ_CHECK(e.pid == (uint32_t)getpid() && e.ring_size == RING_SIZE);

	snprintf(name, sizeof(name), "/softdapl-%u-%016llx", e.pid,
		 (unsigned long long)e.nonce);
	fd = shm_open(name, O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0);
	FUZZ_CHECK(fd >= 0);
	g.seg_len = SD_SHM_HDR_SIZE + 2 * (size_t)RING_SIZE;
	FUZZ_CHECK(fstat(fd, &st) == 0 && st.st_size == (off_t)g.seg_len &&
		   (st.st_mode & 077) == 0);
	g.seg = mmap(NULL, g.seg_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	FUZZ_CHECK(g.seg != MAP_FAILED);
	close(fd);
	FUZZ_CHECK(shm_unlink(name) == 0);
	FUZZ_CHECK(field_get(F_MAGIC) == SD_SHM_MAGIC &&
		   field_get(F_VERSION) == SD_SHM_VERSION &&
		   field_get(F_NONCE) == e.nonce &&
		   field_get(F_SIZE) == RING_SIZE);
	field_set(F_PID_R, (uint32_t)getpid());
}

/* The RTU through ring 1, as a requester that attached sends it. */
static void send_rtu(void)
{
	uint8_t b[SD_CM_MSG_SIZE];
	struct sd_cm_msg m;
	DAT_EVENT ev;

	memset(&m, 0, sizeof(m));
	m.magic = SD_PROTO_MAGIC;
	m.version = SD_PROTO_VERSION;
	m.type = SD_CM_RTU;
	sd_cm_pack(&m, b);
	put(b, sizeof(b));
	bell();
	fz_wait(g.conn_evd, &ev);
	FUZZ_CHECK(ev.event_number == DAT_CONNECTION_EVENT_ESTABLISHED);
}

/* Reads ring 0 until the victim has sent @want requests. */
static void read_requests(unsigned want)
{
	long long end = now_ms() + FZ_WAIT_MS;

	while (g.w.requests < want) {
		FUZZ_CHECK(now_ms() < end);
		(void)tcp_discard();
		read0();
		usleep(100);
	}
}

/*
 * The end: our write side shut (the victim sees EOF), ring 0 and TCP
 * read until the victim closes TCP. A victim that never does hangs.
 */
static void finish(void)
{
	long long end = now_ms() + FZ_WAIT_MS;

	if (g.fd < 0)
		return;
	if (!g.shut)
		shutdown(g.fd, SHUT_WR);
	g.shut = 1;
	for (;;) {
		struct pollfd p = { g.fd, POLLIN, 0 };

		if (!(g.opt & OPT_NOREAD))
			read0();
		if (tcp_discard() < 0)
			return;
		FUZZ_CHECK(now_ms() < end);
		(void)poll(&p, 1, 5);
	}
}

/*
 * The engine still serves everyone else: a malformed HELLO to the PSP is
 * refused (REJECT) within FZ_WAIT_MS. A stream of this input that keeps
 * the engine's loop from turning, or a connection that never ended,
 * shows here, not at the next input.
 */
static void check_engine(void)
{
	uint8_t b[SD_CM_MSG_SIZE];
	struct sd_cm_msg m;
	int fd = fz_connect((uint16_t)g.port);

	memset(&m, 0, sizeof(m));
	m.magic = SD_PROTO_MAGIC;
	m.version = SD_PROTO_VERSION + 1;
	m.type = SD_CM_HELLO;
	m.conn_qual = g.port;
	sd_cm_pack(&m, b);
	FUZZ_CHECK(send(fd, b, sizeof(b), MSG_NOSIGNAL) == (ssize_t)sizeof(b));
	FUZZ_CHECK(fz_read(fd, b, sizeof(b)) == 0);
	FUZZ_CHECK(b[SD_CM_OFF_TYPE] == SD_CM_REJECT);
	fz_close(fd);
}

/* Nothing changed where the peer had no right to write. */
static void check_memory(void)
{
	size_t i;

	for (i = 0; i < ARENA; i++) {
		if (g.mask[i] || g.arena[i] == g.ref[i])
			continue;
		fprintf(stderr, "fuzz-ring: byte %zu of the arena changed\n", i);
		FUZZ_CHECK(!"memory outside what was granted changed");
	}
	memcpy(g.arena, g.ref, ARENA);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	DAT_EVENT_NUMBER first = 0;
	struct input in;
	DAT_EP_ATTR attr;
	DAT_EP_HANDLE ep;
	DAT_EVENT ev;
	unsigned i;

	if (size < 1)
		return 0;
	g.opt = data[0];
	in.p = data + 1;
	in.n = size - 1;
	g.fd = -1;
	g.shut = g.stalled = g.tamper0 = 0;
	g.tail1 = g.head0 = 0;
	memset(&g.w, 0, sizeof(g.w));

	memset(&attr, 0, sizeof(attr));
	attr.service_type = DAT_SERVICE_TYPE_RC;
	attr.max_recv_dtos = NSLOT;
	attr.max_request_dtos = 16;
	attr.max_recv_iov = 4;
	attr.max_request_iov = 4;
	attr.max_rdma_read_in = g.opt & OPT_RD1 ? 1 : 4;
	attr.max_rdma_read_out = attr.max_rdma_read_in;
	attr.srq_soft_hw = DAT_HW_DEFAULT;
	FUZZ_CHECK(dat_ep_create(g.v.ia, g.v.pz, g.recv_evd, g.req_evd,
				 g.conn_evd, &attr, &ep) == DAT_SUCCESS);
	g.ep = ep;
	post_recvs(ep, g.opt & OPT_RECVS);
	connect_attach(ep);
	if (!(g.opt & OPT_NO_RTU)) {
		send_rtu();
		first = DAT_CONNECTION_EVENT_ESTABLISHED;
		bind_rmrs(ep);
		if (g.opt & OPT_REQUESTS) {
			post_requests(ep);
			read_requests(g.opt & OPT_RD1 ? 1 : 5);
		}
	}

	run_ops(ep, &in);
	if (g.opt & OPT_DISC)
		(void)dat_ep_disconnect(ep, DAT_CLOSE_GRACEFUL_FLAG);
	finish();

	/* The connection's end (established first, or refused), then every
	 * completion (flushed first). */
	do {
		fz_wait(g.conn_evd, &ev);
		if (first == 0)
			first = ev.event_number;
	} while (ev.event_number == DAT_CONNECTION_EVENT_ESTABLISHED);
	FUZZ_CHECK(first == DAT_CONNECTION_EVENT_ESTABLISHED ||
		   first == DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
	FUZZ_CHECK(ev.event_number == DAT_CONNECTION_EVENT_DISCONNECTED ||
		   ev.event_number == DAT_CONNECTION_EVENT_BROKEN ||
		   ev.event_number == DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
	FUZZ_CHECK(!fz_poll(g.conn_evd, &ev));	/* exactly one end */
	FUZZ_CHECK(!fz_poll(g.cr_evd, &ev));
	while (reap(g.req_evd) || reap(g.recv_evd))
		;
	for (i = 1; i < NCOOKIE; i++)
		FUZZ_CHECK(!g.pending[i]);	/* exactly once */
	while (fz_poll(g.v.async_evd, &ev))
		FUZZ_CHECK(ev.event_number == DAT_ASYNC_ERROR_EP_BROKEN);
	check_memory();

	FUZZ_CHECK(dat_ep_free(ep) == DAT_SUCCESS);
	munmap(g.seg, g.seg_len);
	g.seg = NULL;
	if (g.fd >= 0)
		fz_close(g.fd);
	check_engine();
	return 0;
}
