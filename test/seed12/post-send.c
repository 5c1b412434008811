/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * post-send: the seed page dat_ep_post_send(3DAT), as a DAT 1.2 program.
 *
 *	cc -I<tree>/include post-send.c seed12.c -L<tree>/build/lib -ldat
 *	./a.out IA-NAME
 *
 * A "client" EP sends to a "server" EP of the same IA over loopback.
 * Checks, in this order (SEED-RULES.md):
 *
 *   SEND-4   a send is refused before the connection (UNCONNECTED, and
 *            ACTIVE_CONNECTION_PENDING while the request waits)
 *   SEND-1   several segments arrive in order, as one message
 *   SEND-6   the completion carries cookie, status and length
 *   COMMON-2 the cookie comes back unchanged, and need not be unique
 *   COMMON-3 local_iov may be overwritten as soon as the post returns
 *   COMMON-1 a send of no segments (NULL local_iov): a zero-length message
 *   COMMON-9 any alignment works
 *   SEND-2   SUPPRESS (no completion when it succeeds), UNSIGNALLED (a
 *            completion that does not notify), SOLICITED_WAIT (the
 *            receive notifies on an EP that waits for solicited events),
 *            BARRIER_FENCE (the send waits for an earlier RDMA read)
 *   SEND-3   UNSIGNALLED only on an EP configured for it
 *   COMMON-5..8  the checks of local_iov and of the EP, and a full queue
 *   COMMON-4 a post returns while the peer cannot receive yet, and posts
 *            and completions allocate nothing
 *   SEND-4, SEND-5  on a DISCONNECTED EP a send is accepted and flushed
 *            at once to the request EVD (SUPPRESS or not)
 *
 * and that every send and receive completes exactly once: each is
 * waited for by its cookie, and at the end every EVD is empty.
 */
#include <stdio.h>
#include <string.h>

#include "seed12.h"

#define BUF	(8 << 20)	/* each side's registered buffer */
#define BIG	(4 << 20)	/* the fenced transfer */
#define QUEUE	8		/* the client's request queue */

static DAT_DTO_COOKIE cookie(uint64_t v)
{
	DAT_DTO_COOKIE c;

	c.as_64 = v;
	return c;
}

int main(int argc, char **argv)
{
	struct seed_ep client, server;
	struct seed_mem cmem, smem, other_pz_mem, no_local_mem;
	struct seed_listener listener;
	DAT_LMR_TRIPLET iov[3];
	DAT_DTO_COMPLETION_EVENT_DATA d;
	DAT_EP_ATTR client_attr, server_attr;
	DAT_RMR_TRIPLET rmr;
	DAT_CNO_HANDLE cno;
	DAT_PZ_HANDLE pz, pz2;
	DAT_IA_HANDLE ia;
	DAT_COUNT nbufs;
	DAT_EVENT ev;
	long t0;
	int i, ok;

	memset(&ev, 0, sizeof(ev));
	ia = seed_open_ia(argc, argv, "post-send");
	seed_check_provider_attrs(ia);		/* COMMON-3, COMMON-9 */

	/*
	 * One PZ for both sides. The server's buffer may be read remotely
	 * (for the BARRIER_FENCE check). The client's EP allows unsignalled
	 * requests and holds QUEUE of them; the server's EP completes a
	 * receive with a notification only when the sender asks for one
	 * (SOLICITED_WAIT), and allows no unsignalled request.
	 */
	CALL(dat_pz_create(ia, &pz));
	seed_mem_create(ia, pz, BUF, DAT_MEM_PRIV_LOCAL_READ_FLAG |
			DAT_MEM_PRIV_LOCAL_WRITE_FLAG, &cmem);
	seed_mem_create(ia, pz, BUF, DAT_MEM_PRIV_LOCAL_READ_FLAG |
			DAT_MEM_PRIV_LOCAL_WRITE_FLAG |
			DAT_MEM_PRIV_REMOTE_READ_FLAG, &smem);
	client_attr = seed_ep_attr(DAT_COMPLETION_EVD_THRESHOLD_FLAG,
				   DAT_COMPLETION_UNSIGNALLED_FLAG, 16, QUEUE);
	server_attr = seed_ep_attr(DAT_COMPLETION_SOLICITED_WAIT_FLAG,
				   DAT_COMPLETION_EVD_THRESHOLD_FLAG, 16, 16);
	seed_ep_create(ia, pz, &client_attr, DAT_HANDLE_NULL, &client);
	seed_ep_create(ia, pz, &server_attr, DAT_HANDLE_NULL, &server);
	CALL(dat_cno_create(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno));

	/* ---------------------------------------------------------- */
	seed_section("SEND-4: no send before the connection");
	iov[0] = seed_iov(&cmem, 0, 16);
	/* SEND-4: UNCONNECTED. */
	seed_check("SEND-4", seed_ep_state(&client) == DAT_EP_STATE_UNCONNECTED,
		   "client is %s", seed_state_str(seed_ep_state(&client)));
	seed_check_ret("SEND-4", dat_ep_post_send(client.ep, 1, iov, cookie(0x401),
						  DAT_COMPLETION_DEFAULT_FLAG),
		       DAT_INVALID_STATE, "send on the UNCONNECTED client");
	/* SEND-4: ACTIVE_CONNECTION_PENDING (nobody has accepted yet). */
	seed_connect_start(ia, &client, &listener);
	seed_check("SEND-4",
		   seed_ep_state(&client) == DAT_EP_STATE_ACTIVE_CONNECTION_PENDING,
		   "client is %s", seed_state_str(seed_ep_state(&client)));
	seed_check_ret("SEND-4", dat_ep_post_send(client.ep, 1, iov, cookie(0x402),
						  DAT_COMPLETION_DEFAULT_FLAG),
		       DAT_INVALID_STATE, "send on the connecting client");
	seed_connect_finish(&listener, &server, &client);
	seed_check("SEND-4", seed_ep_state(&client) == DAT_EP_STATE_CONNECTED,
		   "client is %s: sends are valid now",
		   seed_state_str(seed_ep_state(&client)));
	/* The refused posts never complete (checked again at the end). */
	seed_expect_none("SEND-4", client.req_evd, "no completion of a refused send");

	/* ---------------------------------------------------------- */
	seed_section("SEND-1, SEND-6, COMMON-2, COMMON-3: three segments, one message");
	/* Two receives; the message must fill the first one only. */
	iov[0] = seed_iov(&smem, 0, 1000);
	CALL(dat_ep_post_recv(server.ep, 1, iov, cookie(0x101), 0));
	iov[0] = seed_iov(&smem, 1000, 1000);
	CALL(dat_ep_post_recv(server.ep, 1, iov, cookie(0x102), 0));
	/* Three segments, not in address order: 100 + 200 + 300 bytes. */
	seed_fill(cmem.buf, 20000, 1);
	iov[0] = seed_iov(&cmem, 4096, 100);
	iov[1] = seed_iov(&cmem, 0, 200);
	iov[2] = seed_iov(&cmem, 10000, 300);
	CALL(dat_ep_post_send(client.ep, 3, iov, cookie(0xfedcba9876543210ULL),
			      DAT_COMPLETION_DEFAULT_FLAG));
	/* COMMON-3: the iov array is the consumer's again at once. */
	memset(iov, 0xff, sizeof(iov));
	/* SEND-6, COMMON-2: cookie (all 64 bits), status, length, EP. */
	d = seed_expect_dto("SEND-6", client.req_evd, client.ep,
			    0xfedcba9876543210ULL, DAT_DTO_SUCCESS, "send completion");
	seed_check("SEND-6", d.transfered_length == 600,
		   "send completion: transfered_length %llu (expected 600)",
		   (unsigned long long)d.transfered_length);
	d = seed_expect_dto("SEND-1", server.recv_evd, server.ep, 0x101,
			    DAT_DTO_SUCCESS, "the first receive took the message");
	seed_check("SEND-1", d.transfered_length == 600,
		   "receive length %llu: all three segments (600)",
		   (unsigned long long)d.transfered_length);
	/* SEND-1: the segments in the order of local_iov. */
	seed_check("SEND-1", memcmp(smem.buf, cmem.buf + 4096, 100) == 0 &&
		   memcmp(smem.buf + 100, cmem.buf, 200) == 0 &&
		   memcmp(smem.buf + 300, cmem.buf + 10000, 300) == 0,
		   "received bytes are segment 1, 2, 3 in order");
	/* COMMON-3: the send did not use the overwritten iov array. */
	seed_check("COMMON-3", smem.buf[600] == 0,
		   "the iov overwritten after the post did not change the message");
	/* SEND-1: one message: the second receive is still posted. */
	CALL(dat_ep_recv_query(server.ep, &nbufs, NULL));
	seed_check("SEND-1", nbufs == 1, "one message: the server still holds "
		   "%d receive (expected 1)", (int)nbufs);

	/* ---------------------------------------------------------- */
	seed_section("COMMON-1, COMMON-2: zero-length messages, one cookie twice");
	iov[0] = seed_iov(&smem, 2000, 1000);
	CALL(dat_ep_post_recv(server.ep, 1, iov, cookie(0x103), 0));
	/* COMMON-1: no segments, NULL local_iov. Twice, same cookie. */
	seed_check_ret("COMMON-1", dat_ep_post_send(client.ep, 0, NULL, cookie(7),
						    DAT_COMPLETION_DEFAULT_FLAG),
		       DAT_SUCCESS, "send of 0 segments, local_iov NULL");
	seed_check_ret("COMMON-2", dat_ep_post_send(client.ep, 0, NULL, cookie(7),
						    DAT_COMPLETION_DEFAULT_FLAG),
		       DAT_SUCCESS, "another one with the same cookie");
	d = seed_expect_dto("COMMON-1", server.recv_evd, server.ep, 0x102,
			    DAT_DTO_SUCCESS, "receive of the first empty message");
	seed_check("COMMON-1", d.transfered_length == 0, "it holds %llu bytes",
		   (unsigned long long)d.transfered_length);
	d = seed_expect_dto("COMMON-1", server.recv_evd, server.ep, 0x103,
			    DAT_DTO_SUCCESS, "receive of the second empty message");
	seed_check("COMMON-1", d.transfered_length == 0, "it holds %llu bytes",
		   (unsigned long long)d.transfered_length);
	/* COMMON-2: a cookie need not be unique; each comes back as given. */
	d = seed_expect_dto("COMMON-2", client.req_evd, client.ep, 7,
			    DAT_DTO_SUCCESS, "first send with cookie 7");
	seed_check("COMMON-1", d.transfered_length == 0, "it sent %llu bytes",
		   (unsigned long long)d.transfered_length);
	seed_expect_dto("COMMON-2", client.req_evd, client.ep, 7,
			DAT_DTO_SUCCESS, "second send with cookie 7");

	/* ---------------------------------------------------------- */
	seed_section("COMMON-9: any alignment");
	memset(smem.buf, 0, 4096);
	iov[0] = seed_iov(&smem, 3, 1000);
	CALL(dat_ep_post_recv(server.ep, 1, iov, cookie(0x104), 0));
	iov[0] = seed_iov(&cmem, 1, 333);
	/* COMMON-9: 333 bytes from an odd address into an odd address. */
	CALL(dat_ep_post_send(client.ep, 1, iov, cookie(0x901), 0));
	seed_expect_dto("COMMON-9", client.req_evd, client.ep, 0x901,
			DAT_DTO_SUCCESS, "send from an odd address");
	d = seed_expect_dto("COMMON-9", server.recv_evd, server.ep, 0x104,
			    DAT_DTO_SUCCESS, "receive at an odd address");
	seed_check("COMMON-9", d.transfered_length == 333 &&
		   memcmp(smem.buf + 3, cmem.buf + 1, 333) == 0 &&
		   smem.buf[2] == 0 && smem.buf[336] == 0,
		   "333 bytes arrived intact, nothing around them");

	/* ---------------------------------------------------------- */
	seed_section("SEND-2: DAT_COMPLETION_SUPPRESS_FLAG");
	iov[0] = seed_iov(&smem, 0, 100);
	CALL(dat_ep_post_recv(server.ep, 1, iov, cookie(0x105), 0));
	iov[0] = seed_iov(&smem, 100, 100);
	CALL(dat_ep_post_recv(server.ep, 1, iov, cookie(0x106), 0));
	iov[0] = seed_iov(&cmem, 0, 10);
	CALL(dat_ep_post_send(client.ep, 1, iov, cookie(0x201),
			      DAT_COMPLETION_SUPPRESS_FLAG));
	CALL(dat_ep_post_send(client.ep, 1, iov, cookie(0x202),
			      DAT_COMPLETION_DEFAULT_FLAG));
	/* SEND-2: both messages arrive... */
	seed_expect_dto("SEND-2", server.recv_evd, server.ep, 0x105,
			DAT_DTO_SUCCESS, "the suppressed send arrived");
	seed_expect_dto("SEND-2", server.recv_evd, server.ep, 0x106,
			DAT_DTO_SUCCESS, "the next send arrived");
	/* ...and completions come in post order: the first one seen is
	 * the second send's, so the suppressed one made none. */
	seed_expect_dto("SEND-2", client.req_evd, client.ep, 0x202,
			DAT_DTO_SUCCESS, "only the unsuppressed send completes");
	seed_expect_none("SEND-2", client.req_evd, "no completion of the suppressed send");

	/* ---------------------------------------------------------- */
	seed_section("SEND-2, SEND-3: DAT_COMPLETION_UNSIGNALLED_FLAG");
	/*
	 * The CNO watches the client's request EVD. Completions are taken
	 * with dat_evd_dequeue only: a thread waiting on the EVD would take
	 * a notification before the CNO could.
	 */
	CALL(dat_evd_modify_cno(client.req_evd, cno));
	iov[0] = seed_iov(&smem, 0, 100);
	CALL(dat_ep_post_recv(server.ep, 1, iov, cookie(0x107), 0));
	iov[0] = seed_iov(&smem, 100, 100);
	CALL(dat_ep_post_recv(server.ep, 1, iov, cookie(0x108), 0));
	iov[0] = seed_iov(&cmem, 0, 10);
	/* SEND-3: the client's EP allows unsignalled requests. */
	seed_check_ret("SEND-3", dat_ep_post_send(client.ep, 1, iov, cookie(0x203),
						  DAT_COMPLETION_UNSIGNALLED_FLAG),
		       DAT_SUCCESS, "unsignalled send on the client (EP allows it)");
	/* SEND-2: it completes, but does not notify. */
	seed_check_dto("SEND-2", seed_dequeue(client.req_evd, "unsignalled send"),
		       client.ep, 0x203, DAT_DTO_SUCCESS,
		       "the unsignalled send completes (dequeued)");
	seed_expect_cno_quiet("SEND-2", cno, "unsignalled completion");
	/* A send with the default flag completes and notifies. */
	CALL(dat_ep_post_send(client.ep, 1, iov, cookie(0x204), 0));
	seed_check_dto("SEND-2", seed_dequeue(client.req_evd, "signalled send"),
		       client.ep, 0x204, DAT_DTO_SUCCESS,
		       "the signalled send completes (dequeued)");
	seed_expect_cno_fired("SEND-2", cno, client.req_evd, "signalled completion");
	CALL(dat_evd_modify_cno(client.req_evd, DAT_HANDLE_NULL));
	seed_expect_dto("SEND-2", server.recv_evd, server.ep, 0x107,
			DAT_DTO_SUCCESS, "receive of the unsignalled send");
	seed_expect_dto("SEND-2", server.recv_evd, server.ep, 0x108,
			DAT_DTO_SUCCESS, "receive of the signalled send");
	/* SEND-3: the server's EP was not configured for unsignalled. */
	seed_check_ret("SEND-3", dat_ep_post_send(server.ep, 1, iov, cookie(0x301),
						  DAT_COMPLETION_UNSIGNALLED_FLAG),
		       DAT_INVALID_PARAMETER,
		       "unsignalled send on the server (EP does not allow it)");
	seed_expect_none("SEND-3", server.req_evd, "no completion of the refused send");

	/* ---------------------------------------------------------- */
	seed_section("SEND-2: DAT_COMPLETION_SOLICITED_WAIT_FLAG");
	/*
	 * The server's EP waits for solicited events: a receive notifies
	 * only when the matching send asked for it. The CNO watches the
	 * server's receive EVD.
	 */
	CALL(dat_evd_modify_cno(server.recv_evd, cno));
	iov[0] = seed_iov(&smem, 0, 100);
	CALL(dat_ep_post_recv(server.ep, 1, iov, cookie(0x109), 0));
	iov[0] = seed_iov(&smem, 100, 100);
	CALL(dat_ep_post_recv(server.ep, 1, iov, cookie(0x10a), 0));
	iov[0] = seed_iov(&cmem, 0, 10);
	CALL(dat_ep_post_send(client.ep, 1, iov, cookie(0x205), 0));
	seed_check_dto("SEND-2", seed_dequeue(server.recv_evd, "unsolicited receive"),
		       server.ep, 0x109, DAT_DTO_SUCCESS,
		       "receive of a send without SOLICITED_WAIT (dequeued)");
	seed_expect_cno_quiet("SEND-2", cno, "receive of an unsolicited send");
	CALL(dat_ep_post_send(client.ep, 1, iov, cookie(0x206),
			      DAT_COMPLETION_SOLICITED_WAIT_FLAG));
	seed_check_dto("SEND-2", seed_dequeue(server.recv_evd, "solicited receive"),
		       server.ep, 0x10a, DAT_DTO_SUCCESS,
		       "receive of a send with SOLICITED_WAIT (dequeued)");
	seed_expect_cno_fired("SEND-2", cno, server.recv_evd,
			      "receive of a solicited send");
	CALL(dat_evd_modify_cno(server.recv_evd, DAT_HANDLE_NULL));
	seed_expect_dto("SEND-2", client.req_evd, client.ep, 0x205,
			DAT_DTO_SUCCESS, "the unsolicited send");
	seed_expect_dto("SEND-2", client.req_evd, client.ep, 0x206,
			DAT_DTO_SUCCESS, "the solicited send");

	/* ---------------------------------------------------------- */
	seed_section("SEND-2: DAT_COMPLETION_BARRIER_FENCE_FLAG");
	/*
	 * The client reads BIG bytes of the server's buffer into its own,
	 * then sends that same buffer, fenced. The server receives what
	 * it had only if the send waited for the read: a read this large
	 * cannot be done when dat_ep_post_rdma_read returns.
	 */
	seed_fill(smem.buf, BIG, 17);
	memset(smem.buf + BIG, 0, BIG);
	memset(cmem.buf, 0, BIG);
	iov[0] = seed_iov(&smem, BIG, BIG);
	CALL(dat_ep_post_recv(server.ep, 1, iov, cookie(0x10b), 0));
	iov[0] = seed_iov(&cmem, 0, BIG);
	rmr = seed_rmr(&smem, 0, BIG);
	CALL(dat_ep_post_rdma_read(client.ep, 1, iov, cookie(0x207), &rmr, 0));
	CALL(dat_ep_post_send(client.ep, 1, iov, cookie(0x208),
			      DAT_COMPLETION_BARRIER_FENCE_FLAG |
			      DAT_COMPLETION_SOLICITED_WAIT_FLAG));
	d = seed_expect_dto("SEND-2", server.recv_evd, server.ep, 0x10b,
			    DAT_DTO_SUCCESS, "receive of the fenced send");
	seed_check("SEND-2", d.transfered_length == BIG &&
		   memcmp(smem.buf + BIG, smem.buf, BIG) == 0,
		   "the fenced send carried what the read brought (%d bytes)", BIG);
	seed_expect_dto("SEND-2", client.req_evd, client.ep, 0x207,
			DAT_DTO_SUCCESS, "the RDMA read");
	seed_expect_dto("SEND-2", client.req_evd, client.ep, 0x208,
			DAT_DTO_SUCCESS, "the fenced send, after it");

	/* ---------------------------------------------------------- */
	seed_section("COMMON-5..8: what a post checks");
	CALL(dat_pz_create(ia, &pz2));
	seed_mem_create(ia, pz2, 4096, DAT_MEM_PRIV_ALL_FLAG, &other_pz_mem);
	seed_mem_create(ia, pz, 4096, DAT_MEM_PRIV_REMOTE_READ_FLAG, &no_local_mem);
	/* COMMON-5: a segment that ends beyond its LMR. */
	iov[0] = seed_iov(&cmem, BUF - 10, 20);
	seed_check_ret("COMMON-5", dat_ep_post_send(client.ep, 1, iov, cookie(0x501), 0),
		       DAT_INVALID_PARAMETER, "segment past the end of its LMR");
	/* COMMON-5: a good segment then one that starts before its LMR. */
	iov[0] = seed_iov(&cmem, 0, 20);
	iov[1] = seed_iov(&cmem, 0, 20);
	iov[1].virtual_address -= 1;
	seed_check_ret("COMMON-5", dat_ep_post_send(client.ep, 2, iov, cookie(0x502), 0),
		       DAT_INVALID_PARAMETER, "second segment starts before its LMR");
	/* COMMON-6: an LMR of another PZ. */
	iov[0] = seed_iov(&other_pz_mem, 0, 16);
	seed_check_ret("COMMON-6", dat_ep_post_send(client.ep, 1, iov, cookie(0x601), 0),
		       DAT_PROTECTION_VIOLATION, "LMR of another PZ");
	/* COMMON-7: an lmr_context that names no LMR. */
	iov[0] = seed_iov(&cmem, 0, 16);
	iov[0].lmr_context ^= 0x5a5a5a;
	seed_check_ret("COMMON-7", dat_ep_post_send(client.ep, 1, iov, cookie(0x701), 0),
		       DAT_PRIVILEGES_VIOLATION, "unknown lmr_context");
	/*
	 * COMMON-7: sending reads local memory: local read is needed. (An
	 * LMR with local write may be read too, as with verbs: this one
	 * has remote read only.)
	 */
	iov[0] = seed_iov(&no_local_mem, 0, 16);
	seed_check_ret("COMMON-7", dat_ep_post_send(client.ep, 1, iov, cookie(0x702), 0),
		       DAT_PRIVILEGES_VIOLATION, "LMR without local read (remote read only)");
	/* COMMON-8: not an EP handle. */
	seed_check_ret("COMMON-8", dat_ep_post_send((DAT_EP_HANDLE)pz, 0, NULL,
						    cookie(0x801), 0),
		       DAT_INVALID_HANDLE, "a PZ handle as the EP");
	seed_check_ret("COMMON-8", dat_ep_post_send(DAT_HANDLE_NULL, 0, NULL,
						    cookie(0x802), 0),
		       DAT_INVALID_HANDLE, "DAT_HANDLE_NULL as the EP");
	seed_expect_none("COMMON-5", client.req_evd,
			 "no completion of any refused send");

	/* ---------------------------------------------------------- */
	seed_section("COMMON-4, COMMON-8: posts do not block; a full queue");
	/*
	 * The server has no receive posted: the sends cannot be delivered
	 * (receiver not ready), yet each post returns at once (COMMON-4),
	 * until the client's QUEUE request slots are used (COMMON-8).
	 */
	iov[0] = seed_iov(&cmem, 0, 64);
	t0 = seed_now_ms();
	for (i = 0; i < QUEUE; i++)
		CALL(dat_ep_post_send(client.ep, 1, iov, cookie(0x810 + (uint64_t)i), 0));
	seed_check("COMMON-4", seed_now_ms() - t0 < 1000, "%d sends posted in %ld ms "
		   "while the peer has no receive", QUEUE, seed_now_ms() - t0);
	seed_check_ret("COMMON-8", dat_ep_post_send(client.ep, 1, iov, cookie(0x8ff), 0),
		       DAT_INSUFFICIENT_RESOURCES, "one send more than the queue holds");
	seed_expect_none("COMMON-4", client.req_evd, "the sends wait for receives");
	for (i = 0; i < QUEUE; i++) {
		iov[0] = seed_iov(&smem, (DAT_VLEN)i * 64, 64);
		CALL(dat_ep_post_recv(server.ep, 1, iov, cookie(0x110 + (uint64_t)i), 0));
	}
	for (i = 0; i < QUEUE; i++) {
		seed_expect_dto("COMMON-8", client.req_evd, client.ep,
				0x810 + (uint64_t)i, DAT_DTO_SUCCESS, "queued send");
		seed_expect_dto("COMMON-8", server.recv_evd, server.ep,
				0x110 + (uint64_t)i, DAT_DTO_SUCCESS, "its receive");
	}

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
		iov[0] = seed_iov(&cmem, 0, 64);
		CALL(dat_ep_post_send(client.ep, 1, iov, cookie(0x20000 + (uint64_t)i),
				      DAT_COMPLETION_SOLICITED_WAIT_FLAG));
		seed_expect_dto("COMMON-4", server.recv_evd, server.ep,
				0x10000 + (uint64_t)i, DAT_DTO_SUCCESS, "receive");
		seed_expect_dto("COMMON-4", client.req_evd, client.ep,
				0x20000 + (uint64_t)i, DAT_DTO_SUCCESS, "send");
	}
	seed_quiet(0);
	/* COMMON-4: not one allocation since the count started. */
	seed_count_check("1000 sends, receives and their completions");

	/* ---------------------------------------------------------- */
	seed_section("SEND-4, SEND-5: sends on a DISCONNECTED EP are flushed at once");
	/* Receives outstanding at the disconnect are flushed too. */
	iov[0] = seed_iov(&smem, 0, 100);
	CALL(dat_ep_post_recv(server.ep, 1, iov, cookie(0x120), 0));
	CALL(dat_ep_post_recv(server.ep, 1, iov, cookie(0x121), 0));
	seed_disconnect(&client, &server, DAT_CLOSE_GRACEFUL_FLAG);
	seed_expect_dto("SEND-5", server.recv_evd, server.ep, 0x120,
			DAT_DTO_ERR_FLUSHED, "receive outstanding at the disconnect");
	seed_expect_dto("SEND-5", server.recv_evd, server.ep, 0x121,
			DAT_DTO_ERR_FLUSHED, "receive outstanding at the disconnect");
	seed_check("SEND-4", seed_ep_state(&client) == DAT_EP_STATE_DISCONNECTED,
		   "client is %s", seed_state_str(seed_ep_state(&client)));
	iov[0] = seed_iov(&cmem, 0, 10);
	/* SEND-4: valid in DISCONNECTED. */
	seed_check_ret("SEND-4", dat_ep_post_send(client.ep, 1, iov, cookie(0x501f), 0),
		       DAT_SUCCESS, "send on the DISCONNECTED client");
	/* SEND-5: flushed at once: queued before the post returned. */
	ok = dat_evd_dequeue(client.req_evd, &ev) == DAT_SUCCESS;
	seed_check("SEND-5", ok, "its completion is queued when the post returns");
	seed_check_dto("SEND-5", ev, client.ep, 0x501f, DAT_DTO_ERR_FLUSHED,
		       "on the request EVD");
	/* SEND-2: an error is reported even when success would be suppressed. */
	seed_check_ret("SEND-5", dat_ep_post_send(client.ep, 1, iov, cookie(0x502f),
						  DAT_COMPLETION_SUPPRESS_FLAG),
		       DAT_SUCCESS, "suppressed send on the DISCONNECTED client");
	seed_expect_dto("SEND-2", client.req_evd, client.ep, 0x502f,
			DAT_DTO_ERR_FLUSHED, "flushed, though suppressed");
	seed_expect_none("SEND-5", client.recv_evd, "nothing on the receive EVD");

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
	seed_mem_free(&no_local_mem);
	CALL(dat_pz_free(pz2));
	CALL(dat_pz_free(pz));
	CALL(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	seed_pass();
}
