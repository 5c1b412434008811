/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * post-recv: the seed page dat_ep_post_recv(3DAT), as a DAT 1.2 program.
 *
 *	cc -I<tree>/include post-recv.c seed12.c -L<tree>/build/lib -ldat
 *	./a.out IA-NAME
 *
 * A "server" EP receives what a "client" EP of the same IA sends over
 * loopback (and the client receives too). Checks, in this order
 * (SEED-RULES.md):
 *
 *   RECV-6   receives may be posted in any state (UNCONNECTED,
 *            ACTIVE_CONNECTION_PENDING); nothing is placed before the
 *            connection, which then uses them
 *   COMMON-8 a full receive queue, in any state
 *   RECV-1   each message fills the next posted receive
 *   RECV-2   segments are filled in order: full, one partly, the rest not
 *   COMMON-1 a receive of no segments (NULL local_iov) takes an empty
 *            message
 *   COMMON-2 the cookie comes back unchanged
 *   COMMON-3 local_iov may be overwritten as soon as the post returns
 *   COMMON-9 any alignment works
 *   RECV-3   on an EP that waits for solicited events, a receive notifies
 *            only when its send asked for it; UNSIGNALLED receives do not
 *            notify, others do
 *   RECV-4   UNSIGNALLED only on an EP configured for it
 *   COMMON-5..8  the checks of local_iov (receiving needs local write)
 *   COMMON-4 posts and completions allocate nothing
 *   RECV-5   a message longer than the receive: DAT_DTO_LENGTH_ERROR
 *   RECV-6, RECV-7  on a DISCONNECTED EP a receive is accepted and
 *            flushed at once to the receive EVD
 *
 * and that every send and receive completes exactly once, the flushed
 * ones included: each is waited for by its cookie, and at the end every
 * EVD is empty.
 */
#include <stdio.h>
#include <string.h>

#include "seed12.h"

#define BUF	(1 << 20)	/* each side's registered buffer */
#define RQ	4		/* the server's receive queue */

static DAT_DTO_COOKIE cookie(uint64_t v)
{
	DAT_DTO_COOKIE c;

	c.as_64 = v;
	return c;
}

/* The client sends @len bytes at @off of its buffer; returns the post's result. */
static DAT_RETURN send_bytes(struct seed_ep *client, struct seed_mem *cmem,
			     DAT_VLEN off, DAT_VLEN len, uint64_t c,
			     DAT_COMPLETION_FLAGS flags)
{
	DAT_LMR_TRIPLET iov = seed_iov(cmem, off, len);

	return dat_ep_post_send(client->ep, 1, &iov, cookie(c), flags);
}

int main(int argc, char **argv)
{
	struct seed_ep client, server;
	struct seed_mem cmem, smem, other_pz_mem, read_only_mem;
	struct seed_listener listener;
	DAT_LMR_TRIPLET iov[4];
	DAT_DTO_COMPLETION_EVENT_DATA d;
	DAT_EP_ATTR client_attr, server_attr;
	DAT_CNO_HANDLE cno;
	DAT_PZ_HANDLE pz, pz2;
	DAT_IA_HANDLE ia;
	DAT_COUNT nbufs;
	DAT_EVENT ev;
	int i, ok;

	memset(&ev, 0, sizeof(ev));
	ia = seed_open_ia(argc, argv, "post-recv");
	seed_check_provider_attrs(ia);		/* COMMON-3, COMMON-9 */

	/*
	 * The server's EP holds RQ receives and completes them with a
	 * notification only when the sender asks (SOLICITED_WAIT); the
	 * client's EP allows unsignalled receives.
	 */
	CALL(dat_pz_create(ia, &pz));
	seed_mem_create(ia, pz, BUF, DAT_MEM_PRIV_LOCAL_READ_FLAG |
			DAT_MEM_PRIV_LOCAL_WRITE_FLAG, &cmem);
	seed_mem_create(ia, pz, BUF, DAT_MEM_PRIV_LOCAL_READ_FLAG |
			DAT_MEM_PRIV_LOCAL_WRITE_FLAG, &smem);
	client_attr = seed_ep_attr(DAT_COMPLETION_UNSIGNALLED_FLAG,
				   DAT_COMPLETION_EVD_THRESHOLD_FLAG, 16, 16);
	server_attr = seed_ep_attr(DAT_COMPLETION_SOLICITED_WAIT_FLAG,
				   DAT_COMPLETION_EVD_THRESHOLD_FLAG, RQ, 16);
	seed_ep_create(ia, pz, &client_attr, DAT_HANDLE_NULL, &client);
	seed_ep_create(ia, pz, &server_attr, DAT_HANDLE_NULL, &server);
	CALL(dat_cno_create(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno));
	seed_fill(cmem.buf, BUF, 3);

	/* ---------------------------------------------------------- */
	seed_section("RECV-6, COMMON-8: receives before the connection");
	seed_check("RECV-6", seed_ep_state(&server) == DAT_EP_STATE_UNCONNECTED,
		   "server is %s", seed_state_str(seed_ep_state(&server)));
	/* RECV-6: valid while UNCONNECTED: RQ receives of 100 bytes. */
	for (i = 0; i < RQ; i++) {
		iov[0] = seed_iov(&smem, (DAT_VLEN)i * 100, 100);
		seed_check_ret("RECV-6", dat_ep_post_recv(server.ep, 1, iov,
							  cookie(0x600 + (uint64_t)i), 0),
			       DAT_SUCCESS, "receive on the UNCONNECTED server");
	}
	/* COMMON-8: the receive queue is full, whatever the EP's state. */
	iov[0] = seed_iov(&smem, 1000, 100);
	seed_check_ret("COMMON-8", dat_ep_post_recv(server.ep, 1, iov, cookie(0x6ff), 0),
		       DAT_INSUFFICIENT_RESOURCES, "one receive more than the queue holds");
	/* RECV-6: nothing is placed while not connected. */
	seed_expect_none("RECV-6", server.recv_evd, "no receive completes unconnected");
	/* RECV-6: valid while the client's connection request is pending. */
	seed_connect_start(ia, &client, &listener);
	seed_check("RECV-6",
		   seed_ep_state(&client) == DAT_EP_STATE_ACTIVE_CONNECTION_PENDING,
		   "client is %s", seed_state_str(seed_ep_state(&client)));
	iov[0] = seed_iov(&cmem, BUF / 2, 100);
	seed_check_ret("RECV-6", dat_ep_post_recv(client.ep, 1, iov, cookie(0x610), 0),
		       DAT_SUCCESS, "receive on the connecting client");
	seed_expect_none("RECV-6", client.recv_evd, "it does not complete yet");
	seed_connect_finish(&listener, &server, &client);

	/* ---------------------------------------------------------- */
	seed_section("RECV-1, RECV-6: the receives posted before are used, in order");
	/* Four messages of 10, 20, 30 and 40 bytes from different places. */
	for (i = 0; i < RQ; i++)
		CALL(send_bytes(&client, &cmem, 1000 * (DAT_VLEN)i, 10 * (DAT_VLEN)(i + 1),
				0x700 + (uint64_t)i, DAT_COMPLETION_DEFAULT_FLAG));
	for (i = 0; i < RQ; i++) {
		/* RECV-1: receive i holds message i. */
		d = seed_expect_dto("RECV-1", server.recv_evd, server.ep,
				    0x600 + (uint64_t)i, DAT_DTO_SUCCESS,
				    "receive posted before the connection");
		seed_check("RECV-1", d.transfered_length == 10 * (DAT_VLEN)(i + 1) &&
			   memcmp(smem.buf + i * 100, cmem.buf + 1000 * i,
				  10 * (size_t)(i + 1)) == 0,
			   "it holds message %d (%d bytes)", i, 10 * (i + 1));
		seed_expect_dto("RECV-1", client.req_evd, client.ep,
				0x700 + (uint64_t)i, DAT_DTO_SUCCESS, "its send");
	}
	/* RECV-6: the client's receive, posted while connecting, is used. */
	iov[0] = seed_iov(&smem, 0, 50);
	CALL(dat_ep_post_send(server.ep, 1, iov, cookie(0x710), 0));
	d = seed_expect_dto("RECV-6", client.recv_evd, client.ep, 0x610,
			    DAT_DTO_SUCCESS, "receive posted while connecting");
	seed_check("RECV-6", d.transfered_length == 50 &&
		   memcmp(cmem.buf + BUF / 2, smem.buf, 50) == 0,
		   "it holds the server's message");
	seed_expect_dto("RECV-6", server.req_evd, server.ep, 0x710,
			DAT_DTO_SUCCESS, "the server's send");

	/* ---------------------------------------------------------- */
	seed_section("RECV-2, COMMON-2, COMMON-3: four segments, filled in order");
	memset(smem.buf, 0, BUF);
	iov[0] = seed_iov(&smem, 5000, 100);
	iov[1] = seed_iov(&smem, 1000, 100);
	iov[2] = seed_iov(&smem, 20000, 1000);
	iov[3] = seed_iov(&smem, 30000, 50);
	CALL(dat_ep_post_recv(server.ep, 4, iov, cookie(0xfedcba9876543210ULL), 0));
	/* COMMON-3: the iov array is the consumer's again at once. */
	memset(iov, 0xff, sizeof(iov));
	CALL(send_bytes(&client, &cmem, 0, 350, 0x720, DAT_COMPLETION_SOLICITED_WAIT_FLAG));
	/* COMMON-2: all 64 bits of the cookie come back. */
	d = seed_expect_dto("COMMON-2", server.recv_evd, server.ep,
			    0xfedcba9876543210ULL, DAT_DTO_SUCCESS,
			    "receive of 350 bytes into 100 + 100 + 1000 + 50");
	seed_check("RECV-2", d.transfered_length == 350, "transfered_length %llu",
		   (unsigned long long)d.transfered_length);
	/* RECV-2: the front segments full, one partly, the rest untouched. */
	seed_check("RECV-2", memcmp(smem.buf + 5000, cmem.buf, 100) == 0 &&
		   memcmp(smem.buf + 1000, cmem.buf + 100, 100) == 0,
		   "segments 1 and 2 are full, in order");
	seed_check("RECV-2", memcmp(smem.buf + 20000, cmem.buf + 200, 150) == 0 &&
		   smem.buf[20150] == 0,
		   "segment 3 holds the last 150 bytes, nothing after them");
	seed_check("RECV-2", smem.buf[30000] == 0 &&
		   memcmp(smem.buf + 30000, smem.buf + 30001, 49) == 0,
		   "segment 4 is untouched");
	/* COMMON-3: the overwritten array did not redirect the data. */
	seed_check("COMMON-3", smem.buf[0] == 0 && smem.buf[5100] == 0,
		   "the receive used the segments given at the post");
	seed_expect_dto("RECV-2", client.req_evd, client.ep, 0x720,
			DAT_DTO_SUCCESS, "the send");

	/* ---------------------------------------------------------- */
	seed_section("COMMON-1, COMMON-9: an empty receive; any alignment");
	/* COMMON-1: no segments, NULL local_iov. */
	seed_check_ret("COMMON-1", dat_ep_post_recv(server.ep, 0, NULL, cookie(0x100), 0),
		       DAT_SUCCESS, "receive of 0 segments, local_iov NULL");
	CALL(dat_ep_post_send(client.ep, 0, NULL, cookie(0x101), 0));
	d = seed_expect_dto("COMMON-1", server.recv_evd, server.ep, 0x100,
			    DAT_DTO_SUCCESS, "it takes an empty message");
	seed_check("COMMON-1", d.transfered_length == 0, "%llu bytes",
		   (unsigned long long)d.transfered_length);
	seed_expect_dto("COMMON-1", client.req_evd, client.ep, 0x101,
			DAT_DTO_SUCCESS, "the empty send");
	/* COMMON-9: 333 bytes into an odd address, from an odd address. */
	memset(smem.buf, 0, 4096);
	iov[0] = seed_iov(&smem, 3, 1000);
	CALL(dat_ep_post_recv(server.ep, 1, iov, cookie(0x900), 0));
	CALL(send_bytes(&client, &cmem, 1, 333, 0x901, 0));
	d = seed_expect_dto("COMMON-9", server.recv_evd, server.ep, 0x900,
			    DAT_DTO_SUCCESS, "receive at an odd address");
	seed_check("COMMON-9", d.transfered_length == 333 &&
		   memcmp(smem.buf + 3, cmem.buf + 1, 333) == 0 &&
		   smem.buf[2] == 0 && smem.buf[336] == 0,
		   "333 bytes arrived intact, nothing around them");
	seed_expect_dto("COMMON-9", client.req_evd, client.ep, 0x901,
			DAT_DTO_SUCCESS, "the send");

	/* ---------------------------------------------------------- */
	seed_section("RECV-3: a SOLICITED_WAIT EP: only solicited receives notify");
	/*
	 * The CNO watches the server's receive EVD; the receives are taken
	 * with dat_evd_dequeue only (a thread waiting on the EVD would take
	 * a notification before the CNO could).
	 */
	CALL(dat_evd_modify_cno(server.recv_evd, cno));
	iov[0] = seed_iov(&smem, 0, 100);
	CALL(dat_ep_post_recv(server.ep, 1, iov, cookie(0x300), 0));
	iov[0] = seed_iov(&smem, 100, 100);
	CALL(dat_ep_post_recv(server.ep, 1, iov, cookie(0x301), 0));
	CALL(send_bytes(&client, &cmem, 0, 10, 0x310, DAT_COMPLETION_DEFAULT_FLAG));
	seed_check_dto("RECV-3", seed_dequeue(server.recv_evd, "unsolicited receive"),
		       server.ep, 0x300, DAT_DTO_SUCCESS,
		       "receive of an unsolicited send (dequeued)");
	seed_expect_cno_quiet("RECV-3", cno, "it did not notify");
	CALL(send_bytes(&client, &cmem, 0, 10, 0x311, DAT_COMPLETION_SOLICITED_WAIT_FLAG));
	seed_check_dto("RECV-3", seed_dequeue(server.recv_evd, "solicited receive"),
		       server.ep, 0x301, DAT_DTO_SUCCESS,
		       "receive of a solicited send (dequeued)");
	seed_expect_cno_fired("RECV-3", cno, server.recv_evd, "it notified");
	CALL(dat_evd_modify_cno(server.recv_evd, DAT_HANDLE_NULL));
	seed_expect_dto("RECV-3", client.req_evd, client.ep, 0x310,
			DAT_DTO_SUCCESS, "the unsolicited send");
	seed_expect_dto("RECV-3", client.req_evd, client.ep, 0x311,
			DAT_DTO_SUCCESS, "the solicited send");

	/* ---------------------------------------------------------- */
	seed_section("RECV-3, RECV-4: DAT_COMPLETION_UNSIGNALLED_FLAG");
	CALL(dat_evd_modify_cno(client.recv_evd, cno));
	/* RECV-4: the client's EP allows unsignalled receives. */
	iov[0] = seed_iov(&cmem, BUF / 2, 100);
	seed_check_ret("RECV-4", dat_ep_post_recv(client.ep, 1, iov, cookie(0x400),
						  DAT_COMPLETION_UNSIGNALLED_FLAG),
		       DAT_SUCCESS, "unsignalled receive on the client (EP allows it)");
	iov[0] = seed_iov(&cmem, BUF / 2 + 100, 100);
	CALL(dat_ep_post_recv(client.ep, 1, iov, cookie(0x401), DAT_COMPLETION_DEFAULT_FLAG));
	iov[0] = seed_iov(&smem, 0, 10);
	CALL(dat_ep_post_send(server.ep, 1, iov, cookie(0x410), 0));
	/* RECV-3: the unsignalled receive completes without notifying. */
	seed_check_dto("RECV-3", seed_dequeue(client.recv_evd, "unsignalled receive"),
		       client.ep, 0x400, DAT_DTO_SUCCESS,
		       "the unsignalled receive completes (dequeued)");
	seed_expect_cno_quiet("RECV-3", cno, "it did not notify");
	/* RECV-3: a receive of this EP posted without the flag notifies. */
	CALL(dat_ep_post_send(server.ep, 1, iov, cookie(0x411), 0));
	seed_check_dto("RECV-3", seed_dequeue(client.recv_evd, "signalled receive"),
		       client.ep, 0x401, DAT_DTO_SUCCESS,
		       "the other receive completes (dequeued)");
	seed_expect_cno_fired("RECV-3", cno, client.recv_evd, "it notified");
	CALL(dat_evd_modify_cno(client.recv_evd, DAT_HANDLE_NULL));
	seed_expect_dto("RECV-3", server.req_evd, server.ep, 0x410,
			DAT_DTO_SUCCESS, "the server's first send");
	seed_expect_dto("RECV-3", server.req_evd, server.ep, 0x411,
			DAT_DTO_SUCCESS, "the server's second send");
	/* RECV-4: the server's EP was not configured for unsignalled. */
	iov[0] = seed_iov(&smem, 0, 10);
	seed_check_ret("RECV-4", dat_ep_post_recv(server.ep, 1, iov, cookie(0x402),
						  DAT_COMPLETION_UNSIGNALLED_FLAG),
		       DAT_INVALID_PARAMETER,
		       "unsignalled receive on the server (EP does not allow it)");
	CALL(dat_ep_recv_query(server.ep, &nbufs, NULL));
	seed_check("RECV-4", nbufs == 0, "the server holds %d receives (expected 0)",
		   (int)nbufs);

	/* ---------------------------------------------------------- */
	seed_section("COMMON-5..8: what a post checks");
	CALL(dat_pz_create(ia, &pz2));
	seed_mem_create(ia, pz2, 4096, DAT_MEM_PRIV_ALL_FLAG, &other_pz_mem);
	seed_mem_create(ia, pz, 4096, DAT_MEM_PRIV_LOCAL_READ_FLAG, &read_only_mem);
	/* COMMON-5: a segment that ends beyond its LMR. */
	iov[0] = seed_iov(&smem, BUF - 10, 20);
	seed_check_ret("COMMON-5", dat_ep_post_recv(server.ep, 1, iov, cookie(0x501), 0),
		       DAT_INVALID_PARAMETER, "segment past the end of its LMR");
	/* COMMON-6: an LMR of another PZ. */
	iov[0] = seed_iov(&other_pz_mem, 0, 16);
	seed_check_ret("COMMON-6", dat_ep_post_recv(server.ep, 1, iov, cookie(0x601), 0),
		       DAT_PROTECTION_VIOLATION, "LMR of another PZ");
	/* COMMON-7: an lmr_context that names no LMR. */
	iov[0] = seed_iov(&smem, 0, 16);
	iov[0].lmr_context ^= 0x5a5a5a;
	seed_check_ret("COMMON-7", dat_ep_post_recv(server.ep, 1, iov, cookie(0x701), 0),
		       DAT_PRIVILEGES_VIOLATION, "unknown lmr_context");
	/* COMMON-7: receiving writes local memory: local write is needed. */
	iov[0] = seed_iov(&read_only_mem, 0, 16);
	seed_check_ret("COMMON-7", dat_ep_post_recv(server.ep, 1, iov, cookie(0x702), 0),
		       DAT_PRIVILEGES_VIOLATION, "LMR with local read only");
	/* COMMON-8: not an EP handle. */
	seed_check_ret("COMMON-8", dat_ep_post_recv((DAT_EP_HANDLE)pz, 0, NULL,
						    cookie(0x801), 0),
		       DAT_INVALID_HANDLE, "a PZ handle as the EP");
	CALL(dat_ep_recv_query(server.ep, &nbufs, NULL));
	seed_check("COMMON-5", nbufs == 0, "no refused receive was queued "
		   "(the server holds %d)", (int)nbufs);
	seed_expect_none("COMMON-5", server.recv_evd, "no completion of a refused receive");

	/* ---------------------------------------------------------- */
	seed_section("COMMON-4: posts and completions allocate nothing");
	/*
	 * Round trips of a receive and a solicited send (the server's
	 * receives notify only when solicited), completions waited for.
	 * The first ones warm up; then no allocation may happen at all.
	 */
	seed_quiet(1);
	for (i = 0; i < 1100; i++) {
		if (i == 100)
			seed_count_start();	/* after a warm-up */
		iov[0] = seed_iov(&smem, 0, 64);
		CALL(dat_ep_post_recv(server.ep, 1, iov, cookie(0x10000 + (uint64_t)i), 0));
		CALL(send_bytes(&client, &cmem, 0, 64, 0x20000 + (uint64_t)i,
				DAT_COMPLETION_SOLICITED_WAIT_FLAG));
		seed_expect_dto("COMMON-4", server.recv_evd, server.ep,
				0x10000 + (uint64_t)i, DAT_DTO_SUCCESS, "receive");
		seed_expect_dto("COMMON-4", client.req_evd, client.ep,
				0x20000 + (uint64_t)i, DAT_DTO_SUCCESS, "send");
	}
	seed_quiet(0);
	/* COMMON-4: not one allocation since the count started. */
	seed_count_check("1000 receives, sends and their completions");

	/* ---------------------------------------------------------- */
	seed_section("RECV-5: a message longer than the receive");
	/*
	 * A receive of 100 bytes, and one behind it; 101 bytes arrive. The
	 * receive completes DAT_DTO_LENGTH_ERROR, the sender learns it,
	 * the connection breaks, and everything outstanding is flushed.
	 */
	iov[0] = seed_iov(&smem, 0, 100);
	CALL(dat_ep_post_recv(server.ep, 1, iov, cookie(0x550), 0));
	iov[0] = seed_iov(&smem, 100, 100);
	CALL(dat_ep_post_recv(server.ep, 1, iov, cookie(0x551), 0));
	iov[0] = seed_iov(&cmem, 0, 100);
	CALL(dat_ep_post_recv(client.ep, 1, iov, cookie(0x552), 0));
	CALL(send_bytes(&client, &cmem, 0, 101, 0x560, 0));
	CALL(send_bytes(&client, &cmem, 0, 10, 0x561, 0));
	/* RECV-5: DAT_DTO_LENGTH_ERROR; the rest as a broken connection. */
	seed_expect_dto("RECV-5", server.recv_evd, server.ep, 0x550,
			DAT_DTO_LENGTH_ERROR, "receive of 100 bytes, 101 came");
	seed_expect_dto("RECV-5", server.recv_evd, server.ep, 0x551,
			DAT_DTO_ERR_FLUSHED, "the receive behind it");
	seed_expect_conn("RECV-5", server.conn_evd, DAT_CONNECTION_EVENT_BROKEN,
			 "the server's connection");
	seed_expect_dto("RECV-5", client.req_evd, client.ep, 0x560,
			DAT_DTO_ERR_REMOTE_RESPONDER, "the sender's send");
	seed_expect_dto("RECV-5", client.req_evd, client.ep, 0x561,
			DAT_DTO_ERR_FLUSHED, "the send behind it");
	seed_expect_dto("RECV-5", client.recv_evd, client.ep, 0x552,
			DAT_DTO_ERR_FLUSHED, "the client's outstanding receive");
	seed_expect_conn("RECV-5", client.conn_evd, DAT_CONNECTION_EVENT_BROKEN,
			 "the client's connection");

	/* ---------------------------------------------------------- */
	seed_section("RECV-6, RECV-7: receives on a DISCONNECTED EP are flushed at once");
	seed_check("RECV-7", seed_ep_state(&server) == DAT_EP_STATE_DISCONNECTED,
		   "server is %s", seed_state_str(seed_ep_state(&server)));
	iov[0] = seed_iov(&smem, 0, 100);
	/* RECV-6: valid in DISCONNECTED too. */
	seed_check_ret("RECV-6", dat_ep_post_recv(server.ep, 1, iov, cookie(0x770), 0),
		       DAT_SUCCESS, "receive on the DISCONNECTED server");
	/* RECV-7: flushed at once: queued before the post returned. */
	ok = dat_evd_dequeue(server.recv_evd, &ev) == DAT_SUCCESS;
	seed_check("RECV-7", ok, "its completion is queued when the post returns");
	seed_check_dto("RECV-7", ev, server.ep, 0x770, DAT_DTO_ERR_FLUSHED,
		       "on the receive EVD");
	/* Also an unsignalled one: an error always completes. */
	iov[0] = seed_iov(&cmem, 0, 100);
	seed_check_ret("RECV-7", dat_ep_post_recv(client.ep, 1, iov, cookie(0x771),
						  DAT_COMPLETION_UNSIGNALLED_FLAG),
		       DAT_SUCCESS, "unsignalled receive on the DISCONNECTED client");
	seed_expect_dto("RECV-7", client.recv_evd, client.ep, 0x771,
			DAT_DTO_ERR_FLUSHED, "flushed too");
	seed_expect_none("RECV-7", server.req_evd, "nothing on the request EVD");

	/* ---------------------------------------------------------- */
	seed_section("every DTO completed exactly once");
	seed_expect_none("once", client.req_evd, "client request EVD empty");
	seed_expect_none("once", client.recv_evd, "client receive EVD empty");
	seed_expect_none("once", server.req_evd, "server request EVD empty");
	seed_expect_none("once", server.recv_evd, "server receive EVD empty");

	CALL(dat_cno_free(cno));
	seed_ep_free(&client);
	seed_ep_free(&server);
	seed_mem_free(&cmem);
	seed_mem_free(&smem);
	seed_mem_free(&other_pz_mem);
	seed_mem_free(&read_only_mem);
	CALL(dat_pz_free(pz2));
	CALL(dat_pz_free(pz));
	CALL(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	seed_pass();
}
