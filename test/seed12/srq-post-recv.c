/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srq-post-recv: the seed page dat_srq_post_recv(3DAT), as a DAT 1.2
 * program.
 *
 *	cc -I<tree>/include srq-post-recv.c seed12.c -L<tree>/build/lib -ldat
 *	./a.out IA-NAME
 *
 * A shared receive queue (SRQ) and two EPs of the same IA that both take
 * their receive buffers from it, connected to each other over loopback:
 * what the "client" sends lands in a buffer the "server" takes from the
 * SRQ, and the other way round. The client's EP waits for solicited
 * events (DAT_COMPLETION_SOLICITED_WAIT_FLAG), the server's has the
 * default (DAT_COMPLETION_EVD_THRESHOLD_FLAG); each has its own receive
 * EVD. Checks, in this order (SEED-RULES.md):
 *
 *   SRQ-5    buffers may be posted while no EP is connected
 *   SRQ-6    EPs that are not connected take no buffer
 *   SRQ-1    whichever connected EP receives takes the next buffer; its
 *            completion names that EP
 *   SRQ-4    the messages of a connection fill buffers in the order sent
 *   COMMON-2 the cookie comes back unchanged
 *   COMMON-3 local_iov may be overwritten as soon as the post returns
 *   SRQ-2    segments are filled in order, as RECV-2
 *   COMMON-1 a buffer of no segments (NULL local_iov) takes an empty
 *            message
 *   COMMON-9 any alignment works
 *   SRQ-3    the EP that takes a buffer decides whether its completion
 *            notifies: SOLICITED_WAIT, the default, and EVD_THRESHOLD
 *            with a dat_evd_wait threshold
 *   SRQ-8    the checks of local_iov (COMMON-5..7 for an SRQ)
 *   COMMON-8 an invalid handle, and a full SRQ
 *   COMMON-4 posts and completions allocate nothing
 *   SRQ-7    at a disconnect, buffers an EP took complete (filled or
 *            flushed), exactly once; those it did not take stay posted
 *            and serve the next connection; SRQ-6 for DISCONNECTED EPs
 *   SRQ-9    a buffer too small for the message: DAT_DTO_LENGTH_ERROR
 *
 * and that every send and receive completes exactly once: each is
 * waited for by its cookie, and at the end every EVD is empty.
 *
 * Not checked, because two well-behaved EPs of one process cannot hold
 * the state: SRQ-6 for an EP in DISCONNECT_PENDING (the graceful
 * disconnect of a loopback connection completes at once), and the SRQ's
 * ERROR state of SRQ-5 (nothing a consumer does puts an SRQ in it).
 */
#include <stdio.h>
#include <string.h>

#include "seed12.h"

#define IN_LEN	(16 << 20)	/* the memory of the SRQ's buffers */
#define OUT_LEN	(8 << 20)	/* what both EPs send from */
#define DEPTH	16		/* buffers the SRQ holds */
#define BIGMSG	(1 << 20)	/* the messages in flight at a disconnect */
#define NBIG	8

static DAT_DTO_COOKIE cookie(uint64_t v)
{
	DAT_DTO_COOKIE c;

	c.as_64 = v;
	return c;
}

/* Posts one buffer of @len bytes at @off of @in to @srq. */
static DAT_RETURN post_buffer(DAT_SRQ_HANDLE srq, struct seed_mem *in,
			      DAT_VLEN off, DAT_VLEN len, uint64_t c)
{
	DAT_LMR_TRIPLET iov = seed_iov(in, off, len);

	return dat_srq_post_recv(srq, 1, &iov, cookie(c));
}

/* @from sends @len bytes at @off of @out. */
static DAT_RETURN send_bytes(struct seed_ep *from, struct seed_mem *out,
			     DAT_VLEN off, DAT_VLEN len, uint64_t c,
			     DAT_COMPLETION_FLAGS flags)
{
	DAT_LMR_TRIPLET iov = seed_iov(out, off, len);

	return dat_ep_post_send(from->ep, 1, &iov, cookie(c), flags);
}

/* The SRQ's counts: posted and not taken, and posted and not completed. */
static DAT_COUNT available(DAT_SRQ_HANDLE srq, DAT_COUNT *outstanding)
{
	DAT_SRQ_PARAM p;

	CALL(dat_srq_query(srq, DAT_SRQ_FIELD_ALL, &p));
	if (outstanding != NULL)
		*outstanding = p.outstanding_dto_count;
	return p.available_dto_count;
}

/* How many buffers @e holds (taken from the SRQ, not completed). */
static DAT_COUNT held(const struct seed_ep *e)
{
	DAT_COUNT n;

	CALL(dat_ep_recv_query(e->ep, &n, NULL));
	return n;
}

static DAT_SRQ_STATE srq_state(DAT_SRQ_HANDLE srq)
{
	DAT_SRQ_PARAM p;

	CALL(dat_srq_query(srq, DAT_SRQ_FIELD_SRQ_STATE, &p));
	return p.srq_state;
}

/* After a disconnect: both EPs back to UNCONNECTED, then connected. */
static void reconnect(DAT_IA_HANDLE ia, struct seed_ep *server, struct seed_ep *client)
{
	CALL(dat_ep_reset(client->ep));
	CALL(dat_ep_reset(server->ep));
	seed_connect(ia, server, client);
}

int main(int argc, char **argv)
{
	struct seed_ep client, server;
	struct seed_mem in, out, other_pz_mem, read_only_mem;
	DAT_LMR_TRIPLET iov[4];
	DAT_DTO_COMPLETION_EVENT_DATA d;
	DAT_EP_ATTR client_attr, server_attr;
	DAT_SRQ_ATTR srq_attr;
	DAT_SRQ_HANDLE srq;
	DAT_CNO_HANDLE cno;
	DAT_PZ_HANDLE pz, pz2;
	DAT_IA_HANDLE ia;
	DAT_COUNT avail, outstanding, nmore;
	DAT_EVENT ev;
	DAT_RETURN r;
	unsigned char seen[NBIG];
	int i, sent_ok, got, flushed;

	ia = seed_open_ia(argc, argv, "srq-post-recv");
	seed_check_provider_attrs(ia);		/* COMMON-3, COMMON-9 */

	CALL(dat_pz_create(ia, &pz));
	seed_mem_create(ia, pz, IN_LEN, DAT_MEM_PRIV_LOCAL_READ_FLAG |
			DAT_MEM_PRIV_LOCAL_WRITE_FLAG, &in);
	seed_mem_create(ia, pz, OUT_LEN, DAT_MEM_PRIV_LOCAL_READ_FLAG |
			DAT_MEM_PRIV_LOCAL_WRITE_FLAG, &out);
	seed_fill(out.buf, OUT_LEN, 9);

	/* The SRQ, in the EPs' PZ, and both EPs on it. */
	srq_attr.max_recv_dtos = DEPTH;
	srq_attr.max_recv_iov = 4;
	srq_attr.low_watermark = DAT_SRQ_LW_DEFAULT;
	CALL(dat_srq_create(ia, pz, &srq_attr, &srq));
	client_attr = seed_ep_attr(DAT_COMPLETION_SOLICITED_WAIT_FLAG,
				   DAT_COMPLETION_EVD_THRESHOLD_FLAG, 16, 16);
	server_attr = seed_ep_attr(DAT_COMPLETION_EVD_THRESHOLD_FLAG,
				   DAT_COMPLETION_EVD_THRESHOLD_FLAG, 16, 16);
	seed_ep_create(ia, pz, &client_attr, srq, &client);
	seed_ep_create(ia, pz, &server_attr, srq, &server);
	CALL(dat_cno_create(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno));

	/* ---------------------------------------------------------- */
	seed_section("SRQ-5, SRQ-6: buffers posted before any connection");
	/* SRQ-5: the SRQ is OPERATIONAL, and no EP is connected. */
	seed_check("SRQ-5", srq_state(srq) == DAT_SRQ_STATE_OPERATIONAL,
		   "the SRQ is %s",
		   srq_state(srq) == DAT_SRQ_STATE_OPERATIONAL ? "OPERATIONAL" : "not OPERATIONAL");
	for (i = 0; i < 4; i++)
		seed_check_ret("SRQ-5", post_buffer(srq, &in, 1000 * (DAT_VLEN)i, 1000,
						    0x100 + (uint64_t)i),
			       DAT_SUCCESS, "buffer posted while no EP is connected");
	/* SRQ-6: UNCONNECTED EPs take nothing. */
	seed_check("SRQ-6", held(&client) == 0 && held(&server) == 0 &&
		   available(srq, NULL) == 4,
		   "the UNCONNECTED EPs hold %d and %d buffers, the SRQ has %d",
		   (int)held(&client), (int)held(&server), (int)available(srq, NULL));
	seed_connect(ia, &server, &client);
	seed_check("SRQ-6", available(srq, NULL) == 4,
		   "connected, nothing received yet: %d buffers still in the SRQ",
		   (int)available(srq, NULL));

	/* ---------------------------------------------------------- */
	seed_section("SRQ-1, SRQ-4, COMMON-2, COMMON-3: any connected EP takes the next buffer");
	/* SRQ-1: the server receives the client's message into buffer 0. */
	CALL(send_bytes(&client, &out, 0, 100, 0x200, 0));
	d = seed_expect_dto("SRQ-1", server.recv_evd, server.ep, 0x100,
			    DAT_DTO_SUCCESS, "the server took the first buffer");
	seed_check("SRQ-1", d.transfered_length == 100 &&
		   memcmp(in.buf, out.buf, 100) == 0, "it holds the client's message");
	seed_expect_dto("SRQ-1", client.req_evd, client.ep, 0x200,
			DAT_DTO_SUCCESS, "the client's send");
	/* SRQ-1: the client receives the server's message into buffer 1. */
	CALL(send_bytes(&server, &out, 1000, 200, 0x201,
			DAT_COMPLETION_SOLICITED_WAIT_FLAG));
	d = seed_expect_dto("SRQ-1", client.recv_evd, client.ep, 0x101,
			    DAT_DTO_SUCCESS, "the client took the next buffer");
	seed_check("SRQ-1", d.transfered_length == 200 &&
		   memcmp(in.buf + 1000, out.buf + 1000, 200) == 0,
		   "it holds the server's message");
	seed_expect_dto("SRQ-1", server.req_evd, server.ep, 0x201,
			DAT_DTO_SUCCESS, "the server's send");
	/* One more buffer, with a cookie of all 64 bits (COMMON-2). */
	iov[0] = seed_iov(&in, 4000, 1000);
	CALL(dat_srq_post_recv(srq, 1, iov, cookie(0xfedcba9876543210ULL)));
	/* COMMON-3: the iov array is the consumer's again at once. */
	memset(iov, 0xff, sizeof(iov));
	/* SRQ-4: three messages in a row fill the buffers in the order sent. */
	for (i = 0; i < 3; i++)
		CALL(send_bytes(&client, &out, 10000 * (DAT_VLEN)(i + 1), 300 + (DAT_VLEN)i,
				0x210 + (uint64_t)i, 0));
	for (i = 0; i < 3; i++) {
		uint64_t c = i < 2 ? 0x102 + (uint64_t)i : 0xfedcba9876543210ULL;

		d = seed_expect_dto(i < 2 ? "SRQ-4" : "COMMON-2", server.recv_evd,
				    server.ep, c, DAT_DTO_SUCCESS, "next buffer, in post order");
		seed_check("SRQ-4", d.transfered_length == 300 + (DAT_VLEN)i &&
			   memcmp(in.buf + (i < 2 ? 2000 + 1000 * i : 4000),
				  out.buf + 10000 * (i + 1), 300 + (size_t)i) == 0,
			   "it holds message %d of the connection", i + 1);
		seed_expect_dto("SRQ-4", client.req_evd, client.ep,
				0x210 + (uint64_t)i, DAT_DTO_SUCCESS, "its send");
	}
	avail = available(srq, &outstanding);
	seed_check("SRQ-1", avail == 0 && outstanding == 0,
		   "the SRQ is empty: %d available, %d outstanding",
		   (int)avail, (int)outstanding);

	/* ---------------------------------------------------------- */
	seed_section("SRQ-2, COMMON-3: four segments, filled in order");
	memset(in.buf, 0, 65536);
	iov[0] = seed_iov(&in, 5000, 100);
	iov[1] = seed_iov(&in, 1000, 100);
	iov[2] = seed_iov(&in, 20000, 1000);
	iov[3] = seed_iov(&in, 30000, 50);
	CALL(dat_srq_post_recv(srq, 4, iov, cookie(0x300)));
	memset(iov, 0xff, sizeof(iov));		/* COMMON-3 */
	CALL(send_bytes(&client, &out, 0, 350, 0x301, 0));
	d = seed_expect_dto("SRQ-2", server.recv_evd, server.ep, 0x300,
			    DAT_DTO_SUCCESS, "350 bytes into 100 + 100 + 1000 + 50");
	/* SRQ-2: the front segments full, one partly, the rest untouched. */
	seed_check("SRQ-2", d.transfered_length == 350 &&
		   memcmp(in.buf + 5000, out.buf, 100) == 0 &&
		   memcmp(in.buf + 1000, out.buf + 100, 100) == 0,
		   "segments 1 and 2 are full, in order");
	seed_check("SRQ-2", memcmp(in.buf + 20000, out.buf + 200, 150) == 0 &&
		   in.buf[20150] == 0, "segment 3 holds the last 150 bytes, "
		   "nothing after them");
	seed_check("SRQ-2", in.buf[30000] == 0 &&
		   memcmp(in.buf + 30000, in.buf + 30001, 49) == 0,
		   "segment 4 is untouched");
	seed_check("COMMON-3", in.buf[0] == 0 && in.buf[5100] == 0,
		   "the buffer used the segments given at the post");
	seed_expect_dto("SRQ-2", client.req_evd, client.ep, 0x301,
			DAT_DTO_SUCCESS, "the send");

	/* ---------------------------------------------------------- */
	seed_section("COMMON-1, COMMON-9: an empty buffer; any alignment");
	/* COMMON-1: no segments, NULL local_iov. */
	seed_check_ret("COMMON-1", dat_srq_post_recv(srq, 0, NULL, cookie(0x310)),
		       DAT_SUCCESS, "buffer of 0 segments, local_iov NULL");
	CALL(dat_ep_post_send(client.ep, 0, NULL, cookie(0x311), 0));
	d = seed_expect_dto("COMMON-1", server.recv_evd, server.ep, 0x310,
			    DAT_DTO_SUCCESS, "it takes an empty message");
	seed_check("COMMON-1", d.transfered_length == 0, "%llu bytes",
		   (unsigned long long)d.transfered_length);
	seed_expect_dto("COMMON-1", client.req_evd, client.ep, 0x311,
			DAT_DTO_SUCCESS, "the empty send");
	/* COMMON-9: 333 bytes into an odd address. */
	memset(in.buf, 0, 4096);
	CALL(post_buffer(srq, &in, 3, 1000, 0x320));
	CALL(send_bytes(&client, &out, 1, 333, 0x321, 0));
	d = seed_expect_dto("COMMON-9", server.recv_evd, server.ep, 0x320,
			    DAT_DTO_SUCCESS, "buffer at an odd address");
	seed_check("COMMON-9", d.transfered_length == 333 &&
		   memcmp(in.buf + 3, out.buf + 1, 333) == 0 &&
		   in.buf[2] == 0 && in.buf[336] == 0,
		   "333 bytes arrived intact, nothing around them");
	seed_expect_dto("COMMON-9", client.req_evd, client.ep, 0x321,
			DAT_DTO_SUCCESS, "the send");

	/* ---------------------------------------------------------- */
	seed_section("SRQ-3: the EP that takes a buffer decides how it notifies");
	/*
	 * The CNO watches one receive EVD at a time, whose completions are
	 * taken with dat_evd_dequeue only (a thread waiting on the EVD
	 * would take a notification before the CNO could).
	 *
	 * The client's EP waits for solicited events: the send decides.
	 */
	CALL(dat_evd_modify_cno(client.recv_evd, cno));
	CALL(post_buffer(srq, &in, 0, 100, 0x330));
	CALL(post_buffer(srq, &in, 100, 100, 0x331));
	CALL(send_bytes(&server, &out, 0, 10, 0x332, 0));
	/* SRQ-3: SOLICITED_WAIT EP, unsolicited send: no notification. */
	seed_check_dto("SRQ-3", seed_dequeue(client.recv_evd, "unsolicited message"),
		       client.ep, 0x330, DAT_DTO_SUCCESS,
		       "SOLICITED_WAIT EP, unsolicited send (dequeued)");
	seed_expect_cno_quiet("SRQ-3", cno, "it did not notify");
	CALL(send_bytes(&server, &out, 0, 10, 0x333, DAT_COMPLETION_SOLICITED_WAIT_FLAG));
	/* SRQ-3: SOLICITED_WAIT EP, solicited send: a notification. */
	seed_check_dto("SRQ-3", seed_dequeue(client.recv_evd, "solicited message"),
		       client.ep, 0x331, DAT_DTO_SUCCESS,
		       "SOLICITED_WAIT EP, solicited send (dequeued)");
	seed_expect_cno_fired("SRQ-3", cno, client.recv_evd, "it notified");
	CALL(dat_evd_modify_cno(client.recv_evd, DAT_HANDLE_NULL));
	seed_expect_dto("SRQ-3", server.req_evd, server.ep, 0x332, DAT_DTO_SUCCESS,
			"the unsolicited send");
	seed_expect_dto("SRQ-3", server.req_evd, server.ep, 0x333, DAT_DTO_SUCCESS,
			"the solicited send");
	/* The server's EP does not wait for solicited events: it notifies. */
	CALL(dat_evd_modify_cno(server.recv_evd, cno));
	CALL(post_buffer(srq, &in, 200, 100, 0x334));
	CALL(send_bytes(&client, &out, 0, 10, 0x335, 0));
	/* SRQ-3: an EP without SOLICITED_WAIT: every completion notifies. */
	seed_check_dto("SRQ-3", seed_dequeue(server.recv_evd, "message to the server"),
		       server.ep, 0x334, DAT_DTO_SUCCESS,
		       "EVD_THRESHOLD EP, unsolicited send (dequeued)");
	seed_expect_cno_fired("SRQ-3", cno, server.recv_evd, "it notified");
	CALL(dat_evd_modify_cno(server.recv_evd, DAT_HANDLE_NULL));
	seed_expect_dto("SRQ-3", client.req_evd, client.ep, 0x335, DAT_DTO_SUCCESS,
			"the send");
	/*
	 * EVD_THRESHOLD: the dat_evd_wait threshold decides. Two receive
	 * completions are queued (a send completes only once its message
	 * is placed); a wait for three returns only with the third.
	 */
	for (i = 0; i < 3; i++)
		CALL(post_buffer(srq, &in, 1000 + 100 * (DAT_VLEN)i, 100, 0x340 + (uint64_t)i));
	for (i = 0; i < 2; i++) {
		CALL(send_bytes(&client, &out, 0, 10, 0x350 + (uint64_t)i, 0));
		seed_expect_dto("SRQ-3", client.req_evd, client.ep, 0x350 + (uint64_t)i,
				DAT_DTO_SUCCESS, "send, placed");
	}
	/* SRQ-3: below the threshold the waiter does not wake... */
	r = dat_evd_wait(server.recv_evd, SEED_QUIET_MS * 1000, 3, &ev, &nmore);
	seed_check("SRQ-3", DAT_GET_TYPE(r) == DAT_TIMEOUT_EXPIRED,
		   "a wait for 3 with 2 queued times out (waited %d ms on purpose): %s",
		   SEED_QUIET_MS, seed_ret_str(r));
	CALL(send_bytes(&client, &out, 0, 10, 0x352, 0));
	/* SRQ-3: ...at it, it does. */
	r = dat_evd_wait(server.recv_evd, SEED_WAIT_US, 3, &ev, &nmore);
	seed_check("SRQ-3", r == DAT_SUCCESS && nmore == 2,
		   "the third completion ends the wait: %s, %d more queued",
		   seed_ret_str(r), (int)nmore);
	seed_check_dto("SRQ-3", ev, server.ep, 0x340, DAT_DTO_SUCCESS, "first of three");
	seed_expect_dto("SRQ-3", server.recv_evd, server.ep, 0x341, DAT_DTO_SUCCESS,
			"second of three");
	seed_expect_dto("SRQ-3", server.recv_evd, server.ep, 0x342, DAT_DTO_SUCCESS,
			"third of three");
	seed_expect_dto("SRQ-3", client.req_evd, client.ep, 0x352, DAT_DTO_SUCCESS,
			"the third send");

	/* ---------------------------------------------------------- */
	seed_section("SRQ-8, COMMON-5..8: what a post checks");
	CALL(dat_pz_create(ia, &pz2));
	seed_mem_create(ia, pz2, 4096, DAT_MEM_PRIV_ALL_FLAG, &other_pz_mem);
	seed_mem_create(ia, pz, 4096, DAT_MEM_PRIV_LOCAL_READ_FLAG, &read_only_mem);
	/* SRQ-8, COMMON-6: an LMR of another PZ than the SRQ. */
	iov[0] = seed_iov(&other_pz_mem, 0, 16);
	seed_check_ret("SRQ-8", dat_srq_post_recv(srq, 1, iov, cookie(0x801)),
		       DAT_PROTECTION_VIOLATION, "LMR of another PZ");
	/* SRQ-8, COMMON-7: receiving writes local memory: local write is needed. */
	iov[0] = seed_iov(&read_only_mem, 0, 16);
	seed_check_ret("SRQ-8", dat_srq_post_recv(srq, 1, iov, cookie(0x802)),
		       DAT_PRIVILEGES_VIOLATION, "LMR with local read only");
	/* SRQ-8, COMMON-5: a segment outside its LMR (the second of two). */
	iov[0] = seed_iov(&in, 0, 16);
	iov[1] = seed_iov(&in, IN_LEN - 10, 20);
	seed_check_ret("SRQ-8", dat_srq_post_recv(srq, 2, iov, cookie(0x803)),
		       DAT_INVALID_PARAMETER, "second segment past the end of its LMR");
	/* COMMON-7: an lmr_context that names no LMR. */
	iov[0] = seed_iov(&in, 0, 16);
	iov[0].lmr_context ^= 0x5a5a5a;
	seed_check_ret("COMMON-7", dat_srq_post_recv(srq, 1, iov, cookie(0x804)),
		       DAT_PRIVILEGES_VIOLATION, "unknown lmr_context");
	/* COMMON-8: not an SRQ handle. */
	seed_check_ret("COMMON-8", dat_srq_post_recv((DAT_SRQ_HANDLE)server.ep, 0, NULL,
						     cookie(0x805)),
		       DAT_INVALID_HANDLE, "an EP handle as the SRQ");
	seed_check("SRQ-8", available(srq, NULL) == 0,
		   "no refused buffer was queued (the SRQ has %d)",
		   (int)available(srq, NULL));

	/* ---------------------------------------------------------- */
	seed_section("COMMON-4: posts and completions allocate nothing");
	seed_quiet(1);
	for (i = 0; i < 1100; i++) {
		if (i == 100)
			seed_count_start();	/* after a warm-up */
		CALL(post_buffer(srq, &in, 0, 64, 0x10000 + (uint64_t)i));
		CALL(send_bytes(&client, &out, 0, 64, 0x20000 + (uint64_t)i, 0));
		seed_expect_dto("COMMON-4", server.recv_evd, server.ep,
				0x10000 + (uint64_t)i, DAT_DTO_SUCCESS, "receive");
		seed_expect_dto("COMMON-4", client.req_evd, client.ep,
				0x20000 + (uint64_t)i, DAT_DTO_SUCCESS, "send");
	}
	seed_quiet(0);
	/* COMMON-4: not one allocation since the count started. */
	seed_count_check("1000 SRQ receives, sends and their completions");

	/* ---------------------------------------------------------- */
	seed_section("COMMON-8: a full SRQ");
	for (i = 0; i < DEPTH; i++)
		CALL(post_buffer(srq, &in, 100 * (DAT_VLEN)i, 100, 0x900 + (uint64_t)i));
	seed_check_ret("COMMON-8", post_buffer(srq, &in, 0, 100, 0x9ff),
		       DAT_INSUFFICIENT_RESOURCES, "one buffer more than the SRQ holds");
	/* They are all used, in post order; the refused one never completes. */
	for (i = 0; i < DEPTH; i++)
		CALL(send_bytes(&client, &out, 0, 50, 0x910 + (uint64_t)i, 0));
	seed_quiet(1);
	for (i = 0; i < DEPTH; i++) {
		seed_expect_dto("COMMON-8", server.recv_evd, server.ep,
				0x900 + (uint64_t)i, DAT_DTO_SUCCESS, "buffer of a full SRQ");
		seed_expect_dto("COMMON-8", client.req_evd, client.ep,
				0x910 + (uint64_t)i, DAT_DTO_SUCCESS, "its send");
	}
	seed_quiet(0);
	seed_check("COMMON-8", available(srq, NULL) == 0,
		   "the %d buffers completed in post order, the SRQ is empty", DEPTH);

	/* ---------------------------------------------------------- */
	seed_section("SRQ-7, SRQ-6, SRQ-5: a graceful disconnect with buffers posted");
	CALL(post_buffer(srq, &in, 0, 1000, 0x700));
	CALL(post_buffer(srq, &in, 1000, 1000, 0x701));
	seed_disconnect(&client, &server, DAT_CLOSE_GRACEFUL_FLAG);
	/* SRQ-7: neither EP took a buffer: nothing to complete, both stay. */
	seed_expect_none("SRQ-7", server.recv_evd, "no buffer completes on the server");
	seed_expect_none("SRQ-7", client.recv_evd, "no buffer completes on the client");
	avail = available(srq, &outstanding);
	seed_check("SRQ-7", avail == 2 && outstanding == 2,
		   "both buffers are still posted (%d available, %d outstanding)",
		   (int)avail, (int)outstanding);
	/* SRQ-6: DISCONNECTED EPs hold none. */
	seed_check("SRQ-6", held(&client) == 0 && held(&server) == 0,
		   "the DISCONNECTED EPs hold %d and %d buffers",
		   (int)held(&client), (int)held(&server));
	/* SRQ-5: still OPERATIONAL; posting while no EP is connected. */
	seed_check("SRQ-5", srq_state(srq) == DAT_SRQ_STATE_OPERATIONAL,
		   "the SRQ is still OPERATIONAL");
	seed_check_ret("SRQ-5", post_buffer(srq, &in, 2000, 1000, 0x702), DAT_SUCCESS,
		       "buffer posted while both EPs are DISCONNECTED");
	/* The next connection uses them, in post order. */
	reconnect(ia, &server, &client);
	for (i = 0; i < 3; i++)
		CALL(send_bytes(&client, &out, 0, 500, 0x710 + (uint64_t)i, 0));
	for (i = 0; i < 3; i++) {
		seed_expect_dto("SRQ-7", server.recv_evd, server.ep, 0x700 + (uint64_t)i,
				DAT_DTO_SUCCESS, "a buffer posted before serves the "
				"new connection");
		seed_expect_dto("SRQ-7", client.req_evd, client.ep, 0x710 + (uint64_t)i,
				DAT_DTO_SUCCESS, "its send");
	}

	/* ---------------------------------------------------------- */
	seed_section("SRQ-7: an abrupt disconnect with messages in flight");
	/*
	 * NBIG buffers of BIGMSG bytes; the client sends NBIG such messages
	 * (message k all bytes k + 1), and once the first is in, the server
	 * disconnects abruptly while the others stream. How far the
	 * transfer got is up to the timing (often a buffer is being filled
	 * at that moment); whatever it is, every buffer the server took
	 * completes exactly once, filled (in the order sent) or flushed, at
	 * most one flushed (the one being filled), and the buffers it did
	 * not take stay posted.
	 */
	for (i = 0; i < NBIG; i++) {
		memset(out.buf + (size_t)i * BIGMSG, i + 1, BIGMSG);
		CALL(post_buffer(srq, &in, (DAT_VLEN)i * BIGMSG, BIGMSG, 0x7a0 + (uint64_t)i));
	}
	for (i = 0; i < NBIG; i++)
		CALL(send_bytes(&client, &out, (DAT_VLEN)i * BIGMSG, BIGMSG,
				0x7b0 + (uint64_t)i, 0));
	/* Once the first message is in, the next ones are on their way. */
	memset(seen, 0, sizeof(seen));
	seed_expect_dto("SRQ-7", server.recv_evd, server.ep, 0x7a0, DAT_DTO_SUCCESS,
			"the first message");
	seen[0] = 1;
	got = 1;
	flushed = 0;
	seed_disconnect(&server, &client, DAT_CLOSE_ABRUPT_FLAG);
	/* Every send completes once, in post order: done, then flushed. */
	sent_ok = 0;
	for (i = 0; i < NBIG; i++) {
		DAT_DTO_COMPLETION_STATUS want = DAT_DTO_SUCCESS;

		ev = seed_wait(client.req_evd, "a send in flight at the disconnect");
		/* Once one is flushed, all those behind it are. */
		if (i > sent_ok || ev.event_data.dto_completion_event_data.status !=
		    DAT_DTO_SUCCESS)
			want = DAT_DTO_ERR_FLUSHED;
		seed_check_dto("SRQ-7", ev, client.ep, 0x7b0 + (uint64_t)i, want,
			       "send in flight at the disconnect");
		if (want == DAT_DTO_SUCCESS)
			sent_ok++;
	}
	/* The server is DISCONNECTED: its completions are all queued. */
	while (dat_evd_dequeue(server.recv_evd, &ev) == DAT_SUCCESS) {
		uint64_t k;

		d = ev.event_data.dto_completion_event_data;
		k = d.user_cookie.as_64 - 0x7a0;
		seed_check("SRQ-7", ev.event_number == DAT_DTO_COMPLETION_EVENT &&
			   k < NBIG && !seen[k] && d.ep_handle == server.ep,
			   "buffer 0x%llx completes once, for the server: %s",
			   (unsigned long long)d.user_cookie.as_64,
			   seed_status_str(d.status));
		seen[k] = 1;
		if (d.status == DAT_DTO_ERR_FLUSHED) {
			flushed++;
			continue;
		}
		/* SRQ-4: the buffers were taken in post order, messages in send order. */
		seed_check("SRQ-7", d.status == DAT_DTO_SUCCESS &&
			   d.transfered_length == BIGMSG && (int)k == got &&
			   in.buf[k * BIGMSG] == (char)(got + 1) &&
			   in.buf[k * BIGMSG + BIGMSG - 1] == (char)(got + 1),
			   "it holds message %d, whole", got + 1);
		got++;
	}
	avail = available(srq, &outstanding);
	printf("     %d sends done, %d buffers filled, %d flushed, %d still posted\n",
	       sent_ok, got, flushed, (int)avail);
	seed_check("SRQ-7", flushed <= 1, "%d buffer flushed (at most the one "
		   "being filled)", flushed);
	seed_check("SRQ-7", sent_ok <= got, "no send completed without its "
		   "message placed (%d sends, %d messages)", sent_ok, got);
	seed_check("SRQ-7", avail == outstanding && avail + got + flushed == NBIG,
		   "the %d buffers not taken stay posted (%d outstanding)",
		   (int)avail, (int)outstanding);
	seed_expect_none("SRQ-7", server.recv_evd, "nothing more on the server");
	seed_expect_none("SRQ-7", client.recv_evd, "nothing on the client");

	/* ---------------------------------------------------------- */
	seed_section("SRQ-9: a buffer too small for the message");
	reconnect(ia, &server, &client);
	/* The big buffers left are used first (post order): fill them. */
	for (i = 0; i < avail; i++)
		CALL(send_bytes(&client, &out, 0, 10, 0x920 + (uint64_t)i, 0));
	seed_quiet(1);
	for (i = 0; i < avail; i++) {
		uint64_t k;

		ev = seed_wait(server.recv_evd, "a buffer left from before");
		k = ev.event_data.dto_completion_event_data.user_cookie.as_64 - 0x7a0;
		seed_check("SRQ-7", ev.event_data.dto_completion_event_data.status ==
			   DAT_DTO_SUCCESS && k < NBIG && !seen[k],
			   "a buffer left from before serves the new connection");
		seen[k] = 1;
		seed_expect_dto("SRQ-7", client.req_evd, client.ep, 0x920 + (uint64_t)i,
				DAT_DTO_SUCCESS, "its send");
	}
	seed_quiet(0);
	/* Now a buffer of 10 bytes, and one of 1000 behind it. */
	CALL(post_buffer(srq, &in, 0, 10, 0x990));
	CALL(post_buffer(srq, &in, 100, 1000, 0x991));
	CALL(send_bytes(&client, &out, 0, 300, 0x992, 0));
	CALL(send_bytes(&client, &out, 0, 10, 0x993, 0));
	/* SRQ-9: DAT_DTO_LENGTH_ERROR, and the connection breaks as RECV-5. */
	seed_expect_dto("SRQ-9", server.recv_evd, server.ep, 0x990,
			DAT_DTO_LENGTH_ERROR, "300 bytes into a buffer of 10");
	seed_expect_dto("SRQ-9", client.req_evd, client.ep, 0x992,
			DAT_DTO_ERR_REMOTE_RESPONDER, "the sender's send");
	seed_expect_dto("SRQ-9", client.req_evd, client.ep, 0x993,
			DAT_DTO_ERR_FLUSHED, "the send behind it");
	seed_expect_conn("SRQ-9", server.conn_evd, DAT_CONNECTION_EVENT_BROKEN,
			 "the server's connection");
	seed_expect_conn("SRQ-9", client.conn_evd, DAT_CONNECTION_EVENT_BROKEN,
			 "the client's connection");
	/* SRQ-7: the buffer behind it was not taken: it stays posted. */
	avail = available(srq, &outstanding);
	seed_check("SRQ-7", avail == 1 && outstanding == 1,
		   "the buffer behind it is still posted (%d available)", (int)avail);

	/* ---------------------------------------------------------- */
	seed_section("every DTO completed exactly once");
	seed_expect_none("once", client.req_evd, "client request EVD empty");
	seed_expect_none("once", client.recv_evd, "client receive EVD empty");
	seed_expect_none("once", server.req_evd, "server request EVD empty");
	seed_expect_none("once", server.recv_evd, "server receive EVD empty");

	CALL(dat_cno_free(cno));
	seed_ep_free(&client);
	seed_ep_free(&server);
	CALL(dat_srq_free(srq));	/* with one buffer still posted */
	seed_mem_free(&in);
	seed_mem_free(&out);
	seed_mem_free(&other_pz_mem);
	seed_mem_free(&read_only_mem);
	CALL(dat_pz_free(pz2));
	CALL(dat_pz_free(pz));
	CALL(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	seed_pass();
}
