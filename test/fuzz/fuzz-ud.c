/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzzes the datagram parsers of unreliable datagram EPs (provider/udep.c
 * ud_rx and ud_rx_data, udcm.c sd_ud_cm_input and the service point's
 * sp_poll_cb, udproto.h ud_hdr_check), through real UDP sockets (peer.h).
 *
 * Design. One UD EP lives for the whole run, with a receive buffer
 * between guard bytes, beside a PSP (whose UDP side takes REQs). At
 * start, the EP's dat_ep_connect to the harness's own UDP socket tells
 * the harness, by its REQ, the EP's QP number, Q_Key and address; the
 * harness answers REP, so the EP has an address handle and is CONNECTED.
 * For each input, the harness
 *
 *   1. posts receives (the input's first byte says how many) into fixed
 *      slots of the buffer;
 *   2. sends the rest of the input as datagrams, each a record of a
 *      2-byte little-endian length (bit 15: to the PSP's port, else to
 *      the EP's) and that many bytes. In a datagram of at least 40 bytes,
 *      a dst_qpn of 1 becomes the EP's QP number, a dst_qkey of 1 its
 *      Q_Key, a cm_id of 1 the id of the harness's established attempt,
 *      and a REQ's arg of 0 the PSP's port: the fuzzer cannot guess them;
 *   3. sends a marker, a valid DATA datagram, until a receive completes
 *      with it: the EP reads its socket in order, so every datagram before
 *      the marker has been handled (posting one more receive when none is
 *      left);
 *   4. rejects the connection requests the PSP reported;
 *   5. disconnects the EP (its receives are flushed), checks that every
 *      receive completed exactly once, none successfully with more than
 *      its buffer holds, no EVD overflowed and no byte outside the
 *      receives' segments changed; then dat_ep_reset for the next input.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <dat2/dat_ib_extensions.h>

#include "../../provider/udproto.h"
#include "peer.h"

#define OPT_RECVS	0x0f	/* receives to post */

#define GUARD	64
#define SLOT	256
#define NSLOT	16
#define SYNC_OFF	(NSLOT * SLOT)	/* the markers' receive */
#define BUF	(SYNC_OFF + SLOT)
#define ARENA	(GUARD + BUF + GUARD)

/* Receive layouts (the GRH takes the first 40 bytes of each). */
static const struct {
	unsigned	n;
	uint32_t	off[4], len[4];
} slot_def[8] = {
	{ 1, { 0 }, { 40 } },
	{ 1, { 0 }, { 41 } },
	{ 1, { 0 }, { 39 } },
	{ 2, { 0, 64 }, { 20, 100 } },
	{ 1, { 0 }, { 256 } },
	{ 4, { 0, 48, 96, 144 }, { 40, 0, 30, 100 } },
	{ 1, { 0 }, { 0 } },
	{ 3, { 0, 100, 200 }, { 10, 40, 56 } },
};

#define MARK_QPN	0x5ec
#define CK_SYNC		100

static struct {
	struct fz_victim	v;
	DAT_EVD_HANDLE		dto_evd, conn_evd, cr_evd;
	DAT_EP_HANDLE		ep;
	DAT_PSP_HANDLE		psp;
	DAT_CONN_QUAL		psp_port;
	DAT_LMR_HANDLE		lmr;
	DAT_LMR_CONTEXT		lctx;
	uint8_t			*arena, *ref, *mask;
	char			*buf;
	int			fd;		/* the harness's UDP socket */
	struct sockaddr_in	ep_addr, psp_addr, self;
	uint32_t		qpn, qkey;
	uint64_t		cm_id;
	uint32_t		cap[NSLOT];
	uint8_t			pending[NSLOT];
	unsigned		sync_pending;	/* marker receives posted */
	uint32_t		round;
} g;

static DAT_EP_ATTR ud_attr(void)
{
	DAT_EP_ATTR a;

	memset(&a, 0, sizeof(a));
	a.service_type = (DAT_SERVICE_TYPE)DAT_IB_SERVICE_TYPE_UD;
	a.max_recv_dtos = NSLOT + 8;
	a.max_request_dtos = 8;
	a.max_recv_iov = 4;
	a.max_request_iov = 4;
	return a;
}

static void mark(size_t off, size_t len)
{
	memset(g.mask + GUARD + off, 1, len);
}

static void setup_memory(void)
{
	DAT_REGION_DESCRIPTION rd;
	unsigned i, k;

	g.arena = malloc(ARENA);
	g.ref = malloc(ARENA);
	g.mask = calloc(1, ARENA);
	FUZZ_CHECK(g.arena && g.ref && g.mask);
	for (i = 0; i < ARENA; i++)
		g.ref[i] = (uint8_t)(i * 11 + 3);
	memcpy(g.arena, g.ref, ARENA);
	g.buf = (char *)g.arena + GUARD;
	rd.for_va = g.buf;
	FUZZ_CHECK(dat_lmr_create(g.v.ia, DAT_MEM_TYPE_VIRTUAL, rd, BUF, g.v.pz,
				  DAT_MEM_PRIV_LOCAL_WRITE_FLAG, DAT_VA_TYPE_VA,
				  &g.lmr, &g.lctx, NULL, NULL, NULL) == DAT_SUCCESS);
	for (i = 0; i < NSLOT; i++)
		for (k = 0; k < slot_def[i % 8].n; k++) {
			mark(i * SLOT + slot_def[i % 8].off[k], slot_def[i % 8].len[k]);
			g.cap[i] += slot_def[i % 8].len[k];
		}
	mark(SYNC_OFF, SLOT);
}

/* A UD header into @b. */
static void put_hdr(uint8_t *b, uint8_t type, uint32_t dst_qpn,
		    uint32_t dst_qkey, uint32_t src_qpn, uint64_t cm_id)
{
	struct sd_ud_hdr h;

	memset(&h, 0, sizeof(h));
	h.magic = SD_UD_MAGIC;
	h.version = SD_UD_VERSION;
	h.type = type;
	h.dst_qpn = dst_qpn;
	h.dst_qkey = dst_qkey;
	h.src_qpn = src_qpn;
	h.src_qkey = 0x99;
	h.cm_id = cm_id;
	ud_hdr_pack(&h, b);
}

/* The next datagram to the harness's socket, within FZ_WAIT_MS. */
static ssize_t recv_dgram(uint8_t *b, size_t n, struct sockaddr_in *from)
{
	socklen_t sl = sizeof(*from);
	unsigned tries;

	for (tries = 0; tries < FZ_WAIT_MS; tries++) {
		ssize_t r = recvfrom(g.fd, b, n, MSG_DONTWAIT,
				     (struct sockaddr *)from, &sl);

		if (r >= 0)
			return r;
		FUZZ_CHECK(errno == EAGAIN || errno == EINTR);
		usleep(1000);
	}
	FUZZ_CHECK(!"no datagram from the victim");
	return -1;
}

/* Learns the EP's numbers from its REQ and answers it: CONNECTED. */
static void meet_ep(void)
{
	struct sockaddr_in sa = g.self;
	uint8_t b[SD_UD_HDR_SIZE + SD_UD_MAX_PDATA];
	struct sd_ud_hdr h;
	DAT_EVENT ev;
	ssize_t n;

	FUZZ_CHECK(dat_ep_connect(g.ep, (DAT_IA_ADDRESS_PTR)&sa,
				  ntohs(g.self.sin_port), DAT_TIMEOUT_INFINITE, 0,
				  NULL, DAT_QOS_BEST_EFFORT,
				  DAT_CONNECT_DEFAULT_FLAG) == DAT_SUCCESS);
	n = recv_dgram(b, sizeof(b), &g.ep_addr);
	FUZZ_CHECK(n >= SD_UD_HDR_SIZE);
	ud_hdr_unpack(&h, b);
	FUZZ_CHECK(ud_hdr_check(&h, (uint64_t)n) == 0 && h.type == SD_UD_REQ);
	g.qpn = h.src_qpn;
	g.qkey = h.src_qkey;
	g.cm_id = h.cm_id;
	put_hdr(b, SD_UD_REP, g.qpn, g.qkey, 0x77, g.cm_id);
	FUZZ_CHECK(sendto(g.fd, b, SD_UD_HDR_SIZE, 0, (struct sockaddr *)&g.ep_addr,
			  sizeof(g.ep_addr)) == SD_UD_HDR_SIZE);
	fz_wait(g.conn_evd, &ev);
	FUZZ_CHECK(ev.event_number == (DAT_EVENT_NUMBER)DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	DAT_EP_ATTR a = ud_attr();
	socklen_t sl = sizeof(g.self);

	(void)argc;
	(void)argv;
	fz_victim_open(&g.v);
	g.dto_evd = fz_evd(&g.v, 512, DAT_EVD_DTO_FLAG);
	g.conn_evd = fz_evd(&g.v, 64, DAT_EVD_CONNECTION_FLAG);
	g.cr_evd = fz_evd(&g.v, 256, DAT_EVD_CR_FLAG);
	setup_memory();
	FUZZ_CHECK(dat_ep_create(g.v.ia, g.v.pz, g.dto_evd, g.dto_evd, g.conn_evd,
				 &a, &g.ep) == DAT_SUCCESS);
	FUZZ_CHECK(dat_psp_create_any(g.v.ia, &g.psp_port, g.cr_evd,
				      DAT_PSP_CONSUMER_FLAG, &g.psp) == DAT_SUCCESS);
	g.psp_addr = g.v.addr;
	g.psp_addr.sin_port = htons((uint16_t)g.psp_port);

	g.fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	FUZZ_CHECK(g.fd >= 0);
	memset(&g.self, 0, sizeof(g.self));
	g.self.sin_family = AF_INET;
	g.self.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	FUZZ_CHECK(bind(g.fd, (struct sockaddr *)&g.self, sizeof(g.self)) == 0);
	FUZZ_CHECK(getsockname(g.fd, (struct sockaddr *)&g.self, &sl) == 0);
	meet_ep();
	return 0;
}

/* ---- receives and completions ------------------------------------- */

static DAT_DTO_COOKIE ck(unsigned c)
{
	DAT_DTO_COOKIE k;

	k.as_64 = c;
	return k;
}

static void post_slot(unsigned i)
{
	DAT_LMR_TRIPLET iov[4];
	unsigned k;

	for (k = 0; k < slot_def[i % 8].n; k++) {
		iov[k].lmr_context = g.lctx;
		iov[k].virtual_address = (DAT_VADDR)(uintptr_t)
			(g.buf + i * SLOT + slot_def[i % 8].off[k]);
		iov[k].segment_length = slot_def[i % 8].len[k];
	}
	FUZZ_CHECK(dat_ep_post_recv(g.ep, (DAT_COUNT)slot_def[i % 8].n, iov,
				    ck(i), 0) == DAT_SUCCESS);
	g.pending[i] = 1;
}

static void post_sync(void)
{
	DAT_LMR_TRIPLET t;

	t.lmr_context = g.lctx;
	t.virtual_address = (DAT_VADDR)(uintptr_t)(g.buf + SYNC_OFF);
	t.segment_length = SLOT;
	FUZZ_CHECK(dat_ep_post_recv(g.ep, 1, &t, ck(CK_SYNC), 0) == DAT_SUCCESS);
	g.sync_pending++;
}

/* Checks completion @ev; 1, or 2 when it was this round's marker. */
static int handle(const DAT_EVENT *ev)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d;
	const DAT_IB_EXTENSION_EVENT_DATA *x;
	uint64_t c;

	FUZZ_CHECK(ev->event_number == (DAT_EVENT_NUMBER)DAT_IB_DTO_EVENT ||
		   ev->event_number == DAT_DTO_COMPLETION_EVENT);
	d = &ev->event_data.dto_completion_event_data;
	x = (const DAT_IB_EXTENSION_EVENT_DATA *)(const void *)ev->event_extension_data;
	c = d->user_cookie.as_64;
	if (c == CK_SYNC) {
		FUZZ_CHECK(g.sync_pending > 0);
		g.sync_pending--;
		if (d->status == DAT_DTO_SUCCESS) {
			uint32_t r;

			FUZZ_CHECK(d->transfered_length <= SLOT);
			memcpy(&r, g.buf + SYNC_OFF + 40, sizeof(r));
			if (ev->event_number == (DAT_EVENT_NUMBER)DAT_IB_DTO_EVENT &&
			    x->remote_ah.qpn == MARK_QPN &&
			    d->transfered_length == 40 + sizeof(r) && r == g.round)
				return 2;
		}
		return 1;
	}
	FUZZ_CHECK(c < NSLOT && g.pending[c]);
	g.pending[c] = 0;
	if (d->status == DAT_DTO_SUCCESS)
		FUZZ_CHECK(d->transfered_length <= g.cap[c]);
	return 1;
}

/* Takes one completion off the EVD: 0 if none, else as handle. */
static int reap(void)
{
	DAT_EVENT ev;

	return fz_poll(g.dto_evd, &ev) ? handle(&ev) : 0;
}

/* Until the marker of this round has come back (see the top). */
static void sync_marker(void)
{
	uint8_t b[SD_UD_HDR_SIZE + 4];
	unsigned tries;
	int r;

	g.round++;
	put_hdr(b, SD_UD_DATA, g.qpn, g.qkey, MARK_QPN, 0);
	memcpy(b + SD_UD_HDR_SIZE, &g.round, 4);
	for (tries = 0; tries < 1000; tries++) {
		unsigned i, left = g.sync_pending;
		DAT_EVENT ev;
		DAT_COUNT n;

		for (i = 0; i < NSLOT; i++)
			left += g.pending[i];
		if (left == 0)
			post_sync();
		FUZZ_CHECK(sendto(g.fd, b, sizeof(b), 0,
				  (struct sockaddr *)&g.ep_addr,
				  sizeof(g.ep_addr)) == (ssize_t)sizeof(b));
		/* Each datagram completes one receive at most: wait for one. */
		if (dat_evd_wait(g.dto_evd, 20000, 1, &ev, &n) == DAT_SUCCESS &&
		    handle(&ev) == 2)
			return;
		while ((r = reap()) != 0)
			if (r == 2)
				return;
	}
	FUZZ_CHECK(!"the marker never came back");
}

/* ---- the input ---------------------------------------------------- */

static void send_one(uint8_t *d, size_t n, int to_psp)
{
	struct sockaddr_in *to = to_psp ? &g.psp_addr : &g.ep_addr;

	if (n >= SD_UD_HDR_SIZE) {
		if (sd_get32(d + 8) == 1)
			sd_put32(d + 8, g.qpn);
		if (sd_get32(d + 12) == 1)
			sd_put32(d + 12, g.qkey);
		if (sd_get64(d + 24) == 1)
			sd_put64(d + 24, g.cm_id);
		if (d[5] == SD_UD_REQ && sd_get32(d + 32) == 0)
			sd_put32(d + 32, (uint32_t)g.psp_port);
	}
	/* A full socket buffer drops it, as a network may. */
	(void)sendto(g.fd, d, n, MSG_DONTWAIT, (struct sockaddr *)to, sizeof(*to));
}

/* Rejects the connection requests the PSP reported so far. */
static void reject_requests(void)
{
	DAT_EVENT ev;

	while (fz_poll(g.cr_evd, &ev)) {
		FUZZ_CHECK(ev.event_number ==
			   (DAT_EVENT_NUMBER)DAT_IB_UD_CONNECTION_REQUEST_EVENT);
		FUZZ_CHECK(dat_cr_reject(ev.event_data.cr_arrival_event_data.cr_handle,
					 0, NULL) == DAT_SUCCESS);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *in, sink[2048];
	struct sockaddr_in from;
	size_t pos = 1, i;
	DAT_EVENT ev;

	if (size < 1)
		return 0;
	in = malloc(size);
	FUZZ_CHECK(in != NULL);
	memcpy(in, data, size);
	for (i = 0; i < (size_t)(data[0] & OPT_RECVS); i++)
		post_slot((unsigned)i);

	while (size - pos >= 2) {
		size_t n = sd_get16(in + pos) & 0x7fff;
		int to_psp = sd_get16(in + pos) >> 15;

		pos += 2;
		if (n > size - pos)
			n = size - pos;
		send_one(in + pos, n, to_psp);
		pos += n;
	}
	sync_marker();
	reject_requests();

	/* Flush what is left, and check every completion. */
	FUZZ_CHECK(dat_ep_disconnect(g.ep, DAT_CLOSE_ABRUPT_FLAG) == DAT_SUCCESS);
	while (reap())
		;
	for (i = 0; i < NSLOT; i++)
		FUZZ_CHECK(!g.pending[i]);
	FUZZ_CHECK(g.sync_pending == 0);
	while (fz_poll(g.conn_evd, &ev))
		;
	while (fz_poll(g.v.async_evd, &ev))
		FUZZ_CHECK(ev.event_number != DAT_ASYNC_ERROR_EVD_OVERFLOW);
	FUZZ_CHECK(dat_ep_reset(g.ep) == DAT_SUCCESS);
	/* What the victim sent us (RTUs, REPs, REJs) is of no interest. */
	while (recvfrom(g.fd, sink, sizeof(sink), MSG_DONTWAIT,
			(struct sockaddr *)&from, &(socklen_t){ sizeof(from) }) >= 0)
		;

	for (i = 0; i < ARENA; i++) {
		if (g.mask[i] || g.arena[i] == g.ref[i])
			continue;
		fprintf(stderr, "fuzz-ud: byte %zu of the arena changed\n", i);
		FUZZ_CHECK(!"memory outside the receives changed");
	}
	memcpy(g.arena, g.ref, ARENA);
	free(in);
	return 0;
}
