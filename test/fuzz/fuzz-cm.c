/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzzes the connection handshake (provider/cm.c: sock_read_msg,
 * passive_io, active_answer, passive_rtu, and sd_cm_unpack/sd_cm_check of
 * proto.h), on both sides, through real sockets (peer.h):
 *
 *   passive (the input's first byte even): the harness connects to one
 *     of the victim's service points and writes the input as the
 *     requester: a HELLO and its private data, then whatever follows
 *     (RTU, frames). If the HELLO is one the victim must take (valid, for
 *     a port it listens on, all its bytes there), the harness waits for
 *     the connection request, checks that it carries the HELLO's private
 *     data, and accepts it (rejects it, with OPT_REJECT); the victim then
 *     reads the RTU from what follows. A conn_qual of 0 names the
 *     consumer PSP, 1 the PSP with DAT_PSP_PROVIDER_FLAG (its EP is
 *     given a PZ and EVDs with dat_ep_modify before the accept).
 *   active (odd): the victim's EP connects to the harness, which reads and
 *     checks the HELLO and writes the input as the answer: ACCEPT or
 *     REJECT, private data, then frames. Established or refused, the
 *     event's private data must be the answer's.
 *
 * Then the harness closes its write side and waits until the victim has
 * closed too and reported the end of the connection (every wait bounded),
 * and frees what it made. The first 40 bytes are also checked to unpack,
 * pack and unpack again to the same message.
 */
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../provider/proto.h"
#include "peer.h"

#define OPT_ACTIVE	0x01
#define OPT_REJECT	0x02	/* passive: reject the request */
#define OPT_CHUNKS	0x04	/* write the input 5 bytes at a time */
#define OPT_PDATA	0x08	/* our own private data: 16 bytes */

static struct {
	struct fz_victim	v;
	DAT_EVD_HANDLE		cr_evd, conn_evd, dto_evd;
	DAT_PSP_HANDLE		psp, psp_prov;
	DAT_CONN_QUAL		port, port_prov;
	int			lfd;
	uint16_t		lport;
} g;

static uint8_t our_pdata[16] = "softdapl fuzzing";

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_victim_open(&g.v);
	g.cr_evd = fz_evd(&g.v, 16, DAT_EVD_CR_FLAG);
	g.conn_evd = fz_evd(&g.v, 16, DAT_EVD_CONNECTION_FLAG);
	g.dto_evd = fz_evd(&g.v, 64, DAT_EVD_DTO_FLAG);
	FUZZ_CHECK(dat_psp_create_any(g.v.ia, &g.port, g.cr_evd,
				      DAT_PSP_CONSUMER_FLAG, &g.psp) == DAT_SUCCESS);
	FUZZ_CHECK(dat_psp_create_any(g.v.ia, &g.port_prov, g.cr_evd,
				      DAT_PSP_PROVIDER_FLAG, &g.psp_prov) ==
		   DAT_SUCCESS);
	g.lfd = fz_listen(&g.lport);
	return 0;
}

static DAT_EP_HANDLE new_ep(void)
{
	DAT_EP_HANDLE ep;

	FUZZ_CHECK(dat_ep_create(g.v.ia, g.v.pz, g.dto_evd, g.dto_evd,
				 g.conn_evd, NULL, &ep) == DAT_SUCCESS);
	return ep;
}

/* Waits for the end of @ep's connection; ESTABLISHED may come first. */
static void wait_end(DAT_EVENT_NUMBER *first)
{
	DAT_EVENT ev;

	do {
		fz_wait(g.conn_evd, &ev);
		if (*first == 0)
			*first = ev.event_number;
	} while (ev.event_number == DAT_CONNECTION_EVENT_ESTABLISHED);
}

/* Drops the completions (flushed receives: none are posted) and errors. */
static void drain_evds(void)
{
	DAT_EVENT ev;

	while (fz_poll(g.dto_evd, &ev))
		;
	while (fz_poll(g.v.async_evd, &ev))
		FUZZ_CHECK(ev.event_number != DAT_ASYNC_ERROR_EVD_OVERFLOW);
	FUZZ_CHECK(!fz_poll(g.conn_evd, &ev));
}

/* The message at @b (40 bytes) survives a round trip through the codec. */
static void check_codec(const uint8_t *b)
{
	struct sd_cm_msg m, m2;
	uint8_t p[SD_CM_MSG_SIZE];

	sd_cm_unpack(&m, b);
	sd_cm_pack(&m, p);
	FUZZ_CHECK(memcmp(p, b, 34) == 0);	/* all but the reserved bytes */
	sd_cm_unpack(&m2, p);
	FUZZ_CHECK(m.magic == m2.magic && m.version == m2.version &&
		   m.type == m2.type && m.reason == m2.reason &&
		   m.conn_qual == m2.conn_qual && m.max_msg == m2.max_msg &&
		   m.max_rdma == m2.max_rdma && m.rd_in == m2.rd_in &&
		   m.rd_out == m2.rd_out && m.pdata_len == m2.pdata_len);
	/* The check holds exactly for what cm.c may act on. */
	FUZZ_CHECK((sd_cm_check(&m, m.type) == 0) ==
		   (m.magic == SD_PROTO_MAGIC && m.version == SD_PROTO_VERSION &&
		    m.pdata_len <= SD_PROTO_MAX_PDATA));
}

static void passive(uint8_t opt, uint8_t *in, size_t n)
{
	struct sd_cm_msg m;
	DAT_EVENT_NUMBER first = 0;
	DAT_CR_HANDLE cr;
	DAT_CR_PARAM crp;
	DAT_EP_HANDLE ep = DAT_HANDLE_NULL;
	DAT_EVENT ev;
	int request = 0, prov = 0, fd;

	/* A HELLO for another port than the one it reaches is refused. */
	if (n >= SD_CM_MSG_SIZE) {
		sd_cm_unpack(&m, in);
		if (m.conn_qual <= 1) {
			prov = m.conn_qual == 1;
			m.conn_qual = prov ? g.port_prov : g.port;
			sd_put64(in + 8, m.conn_qual);
		}
		request = sd_cm_check(&m, SD_CM_HELLO) == 0 &&
			  n >= (size_t)SD_CM_MSG_SIZE + m.pdata_len &&
			  m.conn_qual == (prov ? g.port_prov : g.port);
	}
	fd = fz_connect((uint16_t)(prov ? g.port_prov : g.port));
	fz_write(fd, in, n, opt & OPT_CHUNKS ? 5 : 0);
	if (request) {
		fz_wait(g.cr_evd, &ev);
		FUZZ_CHECK(ev.event_number == DAT_CONNECTION_REQUEST_EVENT);
		cr = ev.event_data.cr_arrival_event_data.cr_handle;
		FUZZ_CHECK(dat_cr_query(cr, DAT_CR_FIELD_ALL, &crp) == DAT_SUCCESS);
		FUZZ_CHECK(crp.private_data_size == m.pdata_len);
		FUZZ_CHECK(m.pdata_len == 0 ||
			   memcmp(crp.private_data, in + SD_CM_MSG_SIZE,
				  m.pdata_len) == 0);
		FUZZ_CHECK(prov == (crp.local_ep_handle != DAT_HANDLE_NULL));
		if (opt & OPT_REJECT) {
			FUZZ_CHECK(dat_cr_reject(cr, opt & OPT_PDATA ?
						 sizeof(our_pdata) : 0,
						 our_pdata) == DAT_SUCCESS);
		} else {
			if (prov) {
				DAT_EP_PARAM p;

				ep = crp.local_ep_handle;
				memset(&p, 0, sizeof(p));
				p.pz_handle = g.v.pz;
				p.recv_evd_handle = g.dto_evd;
				p.request_evd_handle = g.dto_evd;
				p.connect_evd_handle = g.conn_evd;
				FUZZ_CHECK(dat_ep_modify(ep, DAT_EP_FIELD_PZ_HANDLE |
					DAT_EP_FIELD_RECV_EVD_HANDLE |
					DAT_EP_FIELD_REQUEST_EVD_HANDLE |
					DAT_EP_FIELD_CONNECT_EVD_HANDLE, &p) ==
					   DAT_SUCCESS);
			} else {
				ep = new_ep();
			}
			FUZZ_CHECK(dat_cr_accept(cr, prov ? DAT_HANDLE_NULL : ep,
						 opt & OPT_PDATA ? sizeof(our_pdata) : 0,
						 our_pdata) == DAT_SUCCESS);
		}
	}
	shutdown(fd, SHUT_WR);
	fz_drain(fd);
	if (ep != DAT_HANDLE_NULL) {
		wait_end(&first);
		FUZZ_CHECK(first == DAT_CONNECTION_EVENT_ESTABLISHED ||
			   first == DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
		FUZZ_CHECK(dat_ep_free(ep) == DAT_SUCCESS);
	}
	fz_close(fd);
	FUZZ_CHECK(!fz_poll(g.cr_evd, &ev));
	drain_evds();
}

static void active(uint8_t opt, const uint8_t *in, size_t n)
{
	struct sockaddr_in sa = g.v.addr;
	uint8_t hello[SD_CM_MSG_SIZE + sizeof(our_pdata)];
	DAT_COUNT plen = opt & OPT_PDATA ? sizeof(our_pdata) : 0;
	DAT_EVENT_NUMBER first = 0;
	struct sd_cm_msg m, a;
	DAT_EP_HANDLE ep = new_ep();
	DAT_EVENT ev;
	int fd, whole = 0;

	FUZZ_CHECK(dat_ep_connect(ep, (DAT_IA_ADDRESS_PTR)&sa, g.lport,
				  FZ_WAIT_MS * 1000, plen, our_pdata,
				  DAT_QOS_BEST_EFFORT,
				  DAT_CONNECT_DEFAULT_FLAG) == DAT_SUCCESS);
	fd = fz_accept(g.lfd);
	FUZZ_CHECK(fz_read(fd, hello, SD_CM_MSG_SIZE + (size_t)plen) == 0);
	sd_cm_unpack(&m, hello);
	FUZZ_CHECK(sd_cm_check(&m, SD_CM_HELLO) == 0);
	FUZZ_CHECK(m.conn_qual == g.lport && m.pdata_len == plen);
	FUZZ_CHECK(memcmp(hello + SD_CM_MSG_SIZE, our_pdata, (size_t)plen) == 0);

	memset(&a, 0, sizeof(a));
	if (n >= SD_CM_MSG_SIZE) {
		sd_cm_unpack(&a, in);
		whole = n >= (size_t)SD_CM_MSG_SIZE + a.pdata_len;
	}
	fz_write(fd, in, n, opt & OPT_CHUNKS ? 5 : 0);
	shutdown(fd, SHUT_WR);
	fz_drain(fd);
	do {
		fz_wait(g.conn_evd, &ev);
		if (first == 0)
			first = ev.event_number;
		/* What the answer said is what the consumer sees. */
		if (ev.event_number == DAT_CONNECTION_EVENT_ESTABLISHED ||
		    ev.event_number == DAT_CONNECTION_EVENT_PEER_REJECTED) {
			const DAT_CONNECTION_EVENT_DATA *d =
				&ev.event_data.connect_event_data;

			FUZZ_CHECK(whole && sd_cm_check(&a, a.type) == 0);
			FUZZ_CHECK(d->private_data_size == a.pdata_len);
			FUZZ_CHECK(a.pdata_len == 0 ||
				   memcmp(d->private_data, in + SD_CM_MSG_SIZE,
					  a.pdata_len) == 0);
		}
	} while (ev.event_number == DAT_CONNECTION_EVENT_ESTABLISHED);
	FUZZ_CHECK(first != DAT_CONNECTION_EVENT_TIMED_OUT);
	FUZZ_CHECK(dat_ep_free(ep) == DAT_SUCCESS);
	fz_close(fd);
	drain_evds();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *in;

	if (size < 1)
		return 0;
	if (size > 1 + 4096)
		return 0;	/* a handshake is at most 1064 bytes */
	in = malloc(size);
	FUZZ_CHECK(in != NULL);
	memcpy(in, data + 1, size - 1);
	if (size - 1 >= SD_CM_MSG_SIZE)
		check_codec(in);
	if (data[0] & OPT_ACTIVE)
		active(data[0], in, size - 1);
	else
		passive(data[0], in, size - 1);
	free(in);
	return 0;
}
