/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * post-rdma-write: the seed page dat_ep_post_rdma_write(3DAT), as a DAT
 * 1.2 program.
 *
 *	cc -I<tree>/include post-rdma-write.c seed12.c -L<tree>/build/lib -ldat
 *	./a.out IA-NAME
 *
 * A "client" EP writes into the memory of a "server" EP of the same IA
 * over loopback. The server tells nobody: an RDMA write needs no receive.
 * (The page's SYNOPSIS misprints the name as dat_ep_post_rdma_read; the
 * call is dat_ep_post_rdma_write.) Checks, in this order (SEED-RULES.md):
 *
 *   WRITE-4  a write is refused before the connection (UNCONNECTED, and
 *            ACTIVE_CONNECTION_PENDING while the request waits)
 *   WRITE-1  the segments of local_iov land, in order, in the remote
 *            buffer the RMR triplet names, and nothing around it changes
 *   COMMON-2 the cookie comes back unchanged
 *   COMMON-3 local_iov (and the RMR triplet) may be overwritten as soon
 *            as the post returns
 *   COMMON-1 a write of no segments (NULL local_iov)
 *   COMMON-9 any alignment works
 *   WRITE-2  SUPPRESS (no completion when it succeeds), UNSIGNALLED (a
 *            completion that does not notify), BARRIER_FENCE (the write
 *            waits for an earlier RDMA read)
 *   WRITE-3  UNSIGNALLED only on an EP configured for it
 *   WRITE-5  a remote buffer shorter than the local data: DAT_LENGTH_ERROR
 *   COMMON-5..8  the checks of local_iov and of the EP, and a full queue
 *   COMMON-4 a post returns at once, and posts and completions allocate
 *            nothing
 *   WRITE-6  an rmr_context without remote write privilege, or of another
 *            PZ than the server's EP, or a range outside the one granted:
 *            the server refuses it, the write completes with a remote
 *            access error, the connection breaks, and the server's memory
 *            is untouched
 *   WRITE-4  on a DISCONNECTED EP a write is accepted and flushed at once
 *            to the request EVD
 *
 * and that every DTO completes exactly once, the flushed ones included:
 * each is waited for by its cookie, and at the end every EVD is empty.
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

/* True when all @n bytes at @p are zero. */
static int all_zero(const char *p, DAT_VLEN n)
{
	DAT_VLEN i;

	for (i = 0; i < n; i++)
		if (p[i] != 0)
			return 0;
	return 1;
}

/* After a broken connection: both EPs back to UNCONNECTED, then connected. */
static void reconnect(DAT_IA_HANDLE ia, struct seed_ep *server, struct seed_ep *client)
{
	CALL(dat_ep_reset(client->ep));
	CALL(dat_ep_reset(server->ep));
	seed_connect(ia, server, client);
}

/*
 * WRITE-6: the client writes 4096 bytes through @rmr, which the server
 * does not grant. The post succeeds (only the server can tell), then:
 * the write completes DAT_DTO_ERR_REMOTE_ACCESS, a send posted behind it
 * and a receive the server holds are flushed, the connection breaks on
 * both sides, and not one byte of the server's buffer changed.
 */
static void refused_write(struct seed_ep *server, struct seed_ep *client,
			  struct seed_mem *smem, struct seed_mem *cmem,
			  DAT_RMR_TRIPLET rmr, uint64_t c, const char *what)
{
	DAT_LMR_TRIPLET iov;

	memset(smem->buf, 0, smem->len);
	iov = seed_iov(smem, 0, 16);
	CALL(dat_ep_post_recv(server->ep, 1, &iov, cookie(c + 1), 0));
	iov = seed_iov(cmem, 0, 4096);
	/* WRITE-6: only the server can tell: the post succeeds. */
	seed_check_ret("WRITE-6", dat_ep_post_rdma_write(client->ep, 1, &iov,
							 cookie(c), &rmr, 0),
		       DAT_SUCCESS, what);
	iov = seed_iov(cmem, 0, 16);
	CALL(dat_ep_post_send(client->ep, 1, &iov, cookie(c + 2), 0));
	/* WRITE-6: a remote access error, then a broken connection. */
	seed_expect_dto("WRITE-6", client->req_evd, client->ep, c,
			DAT_DTO_ERR_REMOTE_ACCESS, "the write is refused by the server");
	seed_expect_dto("WRITE-6", client->req_evd, client->ep, c + 2,
			DAT_DTO_ERR_FLUSHED, "the send behind it");
	seed_expect_conn("WRITE-6", client->conn_evd, DAT_CONNECTION_EVENT_BROKEN,
			 "the client's connection");
	seed_expect_conn("WRITE-6", server->conn_evd, DAT_CONNECTION_EVENT_BROKEN,
			 "the server's connection");
	seed_expect_dto("WRITE-6", server->recv_evd, server->ep, c + 1,
			DAT_DTO_ERR_FLUSHED, "the server's receive");
	/* WRITE-6: the server's memory was never touched. */
	seed_check("WRITE-6", all_zero(smem->buf, smem->len),
		   "all %llu bytes of the server's buffer are untouched",
		   (unsigned long long)smem->len);
}

int main(int argc, char **argv)
{
	struct seed_ep client, server;
	struct seed_mem cmem, smem, smem_no_write, smem_pz2, other_pz_mem, no_local_mem;
	struct seed_listener listener;
	DAT_LMR_TRIPLET iov[2];
	DAT_RMR_TRIPLET rmr, rmr2;
	DAT_DTO_COMPLETION_EVENT_DATA d;
	DAT_EP_ATTR client_attr;
	DAT_REGION_DESCRIPTION region;
	DAT_CNO_HANDLE cno;
	DAT_PZ_HANDLE pz, pz2;
	DAT_IA_HANDLE ia;
	DAT_VLEN reg_len;
	DAT_VADDR reg_addr;
	DAT_EVENT ev;
	long t0;
	int i, ok;

	memset(&ev, 0, sizeof(ev));
	ia = seed_open_ia(argc, argv, "post-rdma-write");
	seed_check_provider_attrs(ia);		/* COMMON-3, COMMON-9 */

	/*
	 * The server's buffer may be written and read remotely. The client's
	 * EP allows unsignalled requests and holds QUEUE of them; the
	 * server's has the provider's defaults.
	 */
	CALL(dat_pz_create(ia, &pz));
	CALL(dat_pz_create(ia, &pz2));
	seed_mem_create(ia, pz, BUF, DAT_MEM_PRIV_LOCAL_READ_FLAG |
			DAT_MEM_PRIV_LOCAL_WRITE_FLAG, &cmem);
	seed_mem_create(ia, pz, BUF, DAT_MEM_PRIV_ALL_FLAG, &smem);
	client_attr = seed_ep_attr(DAT_COMPLETION_EVD_THRESHOLD_FLAG,
				   DAT_COMPLETION_UNSIGNALLED_FLAG, 16, QUEUE);
	seed_ep_create(ia, pz, &client_attr, DAT_HANDLE_NULL, &client);
	seed_ep_create(ia, pz, NULL, DAT_HANDLE_NULL, &server);
	CALL(dat_cno_create(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno));
	seed_fill(cmem.buf, BUF, 5);

	/* ---------------------------------------------------------- */
	seed_section("WRITE-4: no write before the connection");
	iov[0] = seed_iov(&cmem, 0, 16);
	rmr = seed_rmr(&smem, 0, 16);
	/* WRITE-4: UNCONNECTED. */
	seed_check("WRITE-4", seed_ep_state(&client) == DAT_EP_STATE_UNCONNECTED,
		   "client is %s", seed_state_str(seed_ep_state(&client)));
	seed_check_ret("WRITE-4", dat_ep_post_rdma_write(client.ep, 1, iov, cookie(0x401),
							 &rmr, 0),
		       DAT_INVALID_STATE, "write on the UNCONNECTED client");
	/* WRITE-4: ACTIVE_CONNECTION_PENDING (nobody has accepted yet). */
	seed_connect_start(ia, &client, &listener);
	seed_check("WRITE-4",
		   seed_ep_state(&client) == DAT_EP_STATE_ACTIVE_CONNECTION_PENDING,
		   "client is %s", seed_state_str(seed_ep_state(&client)));
	seed_check_ret("WRITE-4", dat_ep_post_rdma_write(client.ep, 1, iov, cookie(0x402),
							 &rmr, 0),
		       DAT_INVALID_STATE, "write on the connecting client");
	seed_connect_finish(&listener, &server, &client);
	seed_check("WRITE-4", seed_ep_state(&client) == DAT_EP_STATE_CONNECTED,
		   "client is %s: writes are valid now",
		   seed_state_str(seed_ep_state(&client)));
	seed_expect_none("WRITE-4", client.req_evd, "no completion of a refused write");

	/* ---------------------------------------------------------- */
	seed_section("WRITE-1, COMMON-2, COMMON-3: two segments into the remote buffer");
	/* 200 + 300 bytes of the client's buffer, to offset 4096 of the server's. */
	iov[0] = seed_iov(&cmem, 0, 200);
	iov[1] = seed_iov(&cmem, 5000, 300);
	rmr = seed_rmr(&smem, 4096, 500);
	CALL(dat_ep_post_rdma_write(client.ep, 2, iov, cookie(0xfedcba9876543210ULL),
				    &rmr, DAT_COMPLETION_DEFAULT_FLAG));
	/* COMMON-3: the arrays are the consumer's again at once. */
	memset(iov, 0xff, sizeof(iov));
	memset(&rmr, 0xff, sizeof(rmr));
	/* COMMON-2: all 64 bits of the cookie come back. */
	d = seed_expect_dto("COMMON-2", client.req_evd, client.ep,
			    0xfedcba9876543210ULL, DAT_DTO_SUCCESS, "write completion");
	seed_check("WRITE-1", d.transfered_length == 500,
		   "transfered_length %llu (expected 500)",
		   (unsigned long long)d.transfered_length);
	/* WRITE-1: the segments in the order of local_iov, nothing around. */
	ok = memcmp(smem.buf + 4096, cmem.buf, 200) == 0 &&
	     memcmp(smem.buf + 4296, cmem.buf + 5000, 300) == 0;
	seed_check("WRITE-1", ok, "the server's buffer holds segment 1 then segment 2");
	seed_check("WRITE-1", all_zero(smem.buf, 4096) &&
		   all_zero(smem.buf + 4596, BUF - 4596),
		   "nothing outside the 500 bytes named changed");
	seed_check("COMMON-3", ok, "the arrays overwritten after the post did "
		   "not change the write");
	seed_expect_none("WRITE-1", server.recv_evd,
			 "the server saw no completion: a write needs no receive");

	/* ---------------------------------------------------------- */
	seed_section("COMMON-1, COMMON-9: an empty write; any alignment");
	rmr = seed_rmr(&smem, 0, 0);
	/* COMMON-1: no segments, NULL local_iov. */
	seed_check_ret("COMMON-1", dat_ep_post_rdma_write(client.ep, 0, NULL, cookie(0x100),
							  &rmr, 0),
		       DAT_SUCCESS, "write of 0 segments, local_iov NULL");
	d = seed_expect_dto("COMMON-1", client.req_evd, client.ep, 0x100,
			    DAT_DTO_SUCCESS, "it completes");
	seed_check("COMMON-1", d.transfered_length == 0, "%llu bytes",
		   (unsigned long long)d.transfered_length);
	/* COMMON-9: 333 bytes from an odd address to an odd address. */
	memset(smem.buf, 0, BUF);
	iov[0] = seed_iov(&cmem, 1, 333);
	rmr = seed_rmr(&smem, 3, 333);
	CALL(dat_ep_post_rdma_write(client.ep, 1, iov, cookie(0x900), &rmr, 0));
	seed_expect_dto("COMMON-9", client.req_evd, client.ep, 0x900,
			DAT_DTO_SUCCESS, "write between odd addresses");
	seed_check("COMMON-9", memcmp(smem.buf + 3, cmem.buf + 1, 333) == 0 &&
		   smem.buf[2] == 0 && smem.buf[336] == 0,
		   "333 bytes arrived intact, nothing around them");

	/* ---------------------------------------------------------- */
	seed_section("WRITE-2: DAT_COMPLETION_SUPPRESS_FLAG");
	iov[0] = seed_iov(&cmem, 0, 64);
	rmr = seed_rmr(&smem, 0, 64);
	CALL(dat_ep_post_rdma_write(client.ep, 1, iov, cookie(0x201), &rmr,
				    DAT_COMPLETION_SUPPRESS_FLAG));
	rmr = seed_rmr(&smem, 64, 64);
	CALL(dat_ep_post_rdma_write(client.ep, 1, iov, cookie(0x202), &rmr,
				    DAT_COMPLETION_DEFAULT_FLAG));
	/* WRITE-2: completions come in post order: the first one seen is
	 * the second write's, so the suppressed one made none. */
	seed_expect_dto("WRITE-2", client.req_evd, client.ep, 0x202,
			DAT_DTO_SUCCESS, "only the unsuppressed write completes");
	seed_check("WRITE-2", memcmp(smem.buf, cmem.buf, 64) == 0,
		   "the suppressed write was done all the same");
	seed_expect_none("WRITE-2", client.req_evd, "no completion of the suppressed write");

	/* ---------------------------------------------------------- */
	seed_section("WRITE-2, WRITE-3: DAT_COMPLETION_UNSIGNALLED_FLAG");
	/*
	 * The CNO watches the client's request EVD. Completions are taken
	 * with dat_evd_dequeue only: a thread waiting on the EVD would take
	 * a notification before the CNO could.
	 */
	CALL(dat_evd_modify_cno(client.req_evd, cno));
	/* WRITE-3: the client's EP allows unsignalled requests. */
	seed_check_ret("WRITE-3", dat_ep_post_rdma_write(client.ep, 1, iov, cookie(0x203),
							 &rmr, DAT_COMPLETION_UNSIGNALLED_FLAG),
		       DAT_SUCCESS, "unsignalled write on the client (EP allows it)");
	/* WRITE-2: it completes, but does not notify. */
	seed_check_dto("WRITE-2", seed_dequeue(client.req_evd, "unsignalled write"),
		       client.ep, 0x203, DAT_DTO_SUCCESS,
		       "the unsignalled write completes (dequeued)");
	seed_expect_cno_quiet("WRITE-2", cno, "unsignalled completion");
	CALL(dat_ep_post_rdma_write(client.ep, 1, iov, cookie(0x204), &rmr, 0));
	seed_check_dto("WRITE-2", seed_dequeue(client.req_evd, "signalled write"),
		       client.ep, 0x204, DAT_DTO_SUCCESS,
		       "the signalled write completes (dequeued)");
	seed_expect_cno_fired("WRITE-2", cno, client.req_evd, "signalled completion");
	CALL(dat_evd_modify_cno(client.req_evd, DAT_HANDLE_NULL));
	/* WRITE-3: the server's EP was not configured for unsignalled. */
	iov[0] = seed_iov(&smem, 0, 64);
	rmr2 = seed_rmr(&cmem, 0, 64);
	seed_check_ret("WRITE-3", dat_ep_post_rdma_write(server.ep, 1, iov, cookie(0x301),
							 &rmr2, DAT_COMPLETION_UNSIGNALLED_FLAG),
		       DAT_INVALID_PARAMETER,
		       "unsignalled write on the server (EP does not allow it)");
	seed_expect_none("WRITE-3", server.req_evd, "no completion of the refused write");

	/* ---------------------------------------------------------- */
	seed_section("WRITE-2: DAT_COMPLETION_BARRIER_FENCE_FLAG");
	/*
	 * The client reads BIG bytes of the server's buffer into its own,
	 * then writes that same buffer, fenced, to the server's second
	 * half. That holds a copy of the first only if the write waited for
	 * the read: a read this large cannot be done when the post returns.
	 */
	seed_fill(smem.buf, BIG, 23);
	memset(smem.buf + BIG, 0, BIG);
	memset(cmem.buf, 0, BIG);
	iov[0] = seed_iov(&cmem, 0, BIG);
	rmr = seed_rmr(&smem, 0, BIG);
	CALL(dat_ep_post_rdma_read(client.ep, 1, iov, cookie(0x205), &rmr, 0));
	rmr = seed_rmr(&smem, BIG, BIG);
	CALL(dat_ep_post_rdma_write(client.ep, 1, iov, cookie(0x206), &rmr,
				    DAT_COMPLETION_BARRIER_FENCE_FLAG));
	seed_expect_dto("WRITE-2", client.req_evd, client.ep, 0x205,
			DAT_DTO_SUCCESS, "the RDMA read");
	seed_expect_dto("WRITE-2", client.req_evd, client.ep, 0x206,
			DAT_DTO_SUCCESS, "the fenced write, after it");
	seed_check("WRITE-2", memcmp(smem.buf + BIG, smem.buf, BIG) == 0,
		   "the fenced write carried what the read brought (%d bytes)", BIG);
	seed_fill(cmem.buf, BUF, 5);

	/* ---------------------------------------------------------- */
	seed_section("WRITE-5: a remote buffer too small for the local data");
	memset(smem.buf, 0, BUF);
	iov[0] = seed_iov(&cmem, 0, 100);
	iov[1] = seed_iov(&cmem, 1000, 100);
	rmr = seed_rmr(&smem, 0, 199);
	/* WRITE-5: refused at the post, and never completes. */
	seed_check_ret("WRITE-5", dat_ep_post_rdma_write(client.ep, 2, iov, cookie(0x501),
							 &rmr, 0),
		       DAT_LENGTH_ERROR, "200 bytes into a remote buffer of 199");
	rmr.segment_length = 200;
	seed_check_ret("WRITE-5", dat_ep_post_rdma_write(client.ep, 2, iov, cookie(0x502),
							 &rmr, 0),
		       DAT_SUCCESS, "200 bytes into a remote buffer of 200");
	seed_expect_dto("WRITE-5", client.req_evd, client.ep, 0x502,
			DAT_DTO_SUCCESS, "only the accepted write completes");
	seed_check("WRITE-5", all_zero(smem.buf + 200, BUF - 200),
		   "nothing beyond the 200 bytes changed");

	/* ---------------------------------------------------------- */
	seed_section("COMMON-5..8: what a post checks");
	seed_mem_create(ia, pz2, 4096, DAT_MEM_PRIV_ALL_FLAG, &other_pz_mem);
	seed_mem_create(ia, pz, 4096, DAT_MEM_PRIV_REMOTE_READ_FLAG, &no_local_mem);
	rmr = seed_rmr(&smem, 0, 4096);
	/* COMMON-5: a segment that ends beyond its LMR. */
	iov[0] = seed_iov(&cmem, BUF - 10, 20);
	seed_check_ret("COMMON-5", dat_ep_post_rdma_write(client.ep, 1, iov, cookie(0x5f1),
							  &rmr, 0),
		       DAT_INVALID_PARAMETER, "segment past the end of its LMR");
	/* COMMON-6: an LMR of another PZ. */
	iov[0] = seed_iov(&other_pz_mem, 0, 16);
	seed_check_ret("COMMON-6", dat_ep_post_rdma_write(client.ep, 1, iov, cookie(0x601),
							  &rmr, 0),
		       DAT_PROTECTION_VIOLATION, "LMR of another PZ");
	/* COMMON-7: an lmr_context that names no LMR. */
	iov[0] = seed_iov(&cmem, 0, 16);
	iov[0].lmr_context ^= 0x5a5a5a;
	seed_check_ret("COMMON-7", dat_ep_post_rdma_write(client.ep, 1, iov, cookie(0x701),
							  &rmr, 0),
		       DAT_PRIVILEGES_VIOLATION, "unknown lmr_context");
	/* COMMON-7: writing out reads local memory: local read is needed. */
	iov[0] = seed_iov(&no_local_mem, 0, 16);
	seed_check_ret("COMMON-7", dat_ep_post_rdma_write(client.ep, 1, iov, cookie(0x702),
							  &rmr, 0),
		       DAT_PRIVILEGES_VIOLATION, "LMR without local read (remote read only)");
	/* COMMON-8: not an EP handle. */
	seed_check_ret("COMMON-8", dat_ep_post_rdma_write((DAT_EP_HANDLE)pz, 0, NULL,
							  cookie(0x801), &rmr, 0),
		       DAT_INVALID_HANDLE, "a PZ handle as the EP");
	seed_expect_none("COMMON-5", client.req_evd, "no completion of a refused write");

	/* ---------------------------------------------------------- */
	seed_section("COMMON-4, COMMON-8: posts do not block; a full queue");
	/*
	 * Sends to a server that has no receive posted wait (receiver not
	 * ready) and hold the client's QUEUE request slots: each post
	 * returns at once (COMMON-4), and a write behind them finds the
	 * queue full (COMMON-8).
	 */
	iov[0] = seed_iov(&cmem, 0, 64);
	t0 = seed_now_ms();
	for (i = 0; i < QUEUE; i++)
		CALL(dat_ep_post_send(client.ep, 1, iov, cookie(0x810 + (uint64_t)i), 0));
	seed_check("COMMON-4", seed_now_ms() - t0 < 1000, "%d sends posted in %ld ms "
		   "while the peer has no receive", QUEUE, seed_now_ms() - t0);
	rmr = seed_rmr(&smem, 0, 64);
	seed_check_ret("COMMON-8", dat_ep_post_rdma_write(client.ep, 1, iov, cookie(0x8ff),
							  &rmr, 0),
		       DAT_INSUFFICIENT_RESOURCES, "a write with the request queue full");
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
	seed_quiet(1);
	iov[0] = seed_iov(&cmem, 0, 4096);
	rmr = seed_rmr(&smem, 8192, 4096);
	for (i = 0; i < 1100; i++) {
		if (i == 100)
			seed_count_start();	/* after a warm-up */
		CALL(dat_ep_post_rdma_write(client.ep, 1, iov, cookie(0x10000 + (uint64_t)i),
					    &rmr, 0));
		seed_expect_dto("COMMON-4", client.req_evd, client.ep,
				0x10000 + (uint64_t)i, DAT_DTO_SUCCESS, "write");
	}
	seed_quiet(0);
	/* COMMON-4: not one allocation since the count started. */
	seed_count_check("1000 writes and their completions");

	/* ---------------------------------------------------------- */
	seed_section("WRITE-6: what the server does not grant is refused there");
	/* WRITE-6 (a): the server's buffer again, registered for remote read only. */
	region.for_va = smem.buf;
	CALL(dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, region, BUF, pz,
			    DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_REMOTE_READ_FLAG,
			    &smem_no_write.lmr, &smem_no_write.lmr_context,
			    &smem_no_write.rmr_context, &reg_len, &reg_addr));
	smem_no_write.buf = smem.buf;
	smem_no_write.len = BUF;
	refused_write(&server, &client, &smem, &cmem, seed_rmr(&smem_no_write, 0, 4096),
		      0x6a0, "write through an rmr_context without remote write");
	reconnect(ia, &server, &client);
	/* WRITE-6 (b): the server's buffer again, registered in another PZ than its EP. */
	CALL(dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, region, BUF, pz2,
			    DAT_MEM_PRIV_ALL_FLAG, &smem_pz2.lmr, &smem_pz2.lmr_context,
			    &smem_pz2.rmr_context, &reg_len, &reg_addr));
	smem_pz2.buf = smem.buf;
	smem_pz2.len = BUF;
	refused_write(&server, &client, &smem, &cmem, seed_rmr(&smem_pz2, 0, 4096),
		      0x6b0, "write through an rmr_context of another PZ");
	reconnect(ia, &server, &client);
	/* WRITE-6 (c): a range that ends beyond the registered buffer. */
	rmr = seed_rmr(&smem, BUF - 100, 4096);
	refused_write(&server, &client, &smem, &cmem, rmr, 0x6c0,
		      "write that runs past the granted region");
	CALL(dat_lmr_free(smem_no_write.lmr));
	CALL(dat_lmr_free(smem_pz2.lmr));

	/* ---------------------------------------------------------- */
	seed_section("WRITE-4: writes on a DISCONNECTED EP are flushed at once");
	seed_check("WRITE-4", seed_ep_state(&client) == DAT_EP_STATE_DISCONNECTED,
		   "client is %s", seed_state_str(seed_ep_state(&client)));
	iov[0] = seed_iov(&cmem, 0, 16);
	rmr = seed_rmr(&smem, 0, 16);
	seed_check_ret("WRITE-4", dat_ep_post_rdma_write(client.ep, 1, iov, cookie(0x4d0),
							 &rmr, 0),
		       DAT_SUCCESS, "write on the DISCONNECTED client");
	/* WRITE-4: flushed at once: queued before the post returned. */
	ok = dat_evd_dequeue(client.req_evd, &ev) == DAT_SUCCESS;
	seed_check("WRITE-4", ok, "its completion is queued when the post returns");
	seed_check_dto("WRITE-4", ev, client.ep, 0x4d0, DAT_DTO_ERR_FLUSHED,
		       "on the request EVD");
	/* WRITE-2: an error is reported even when success would be suppressed. */
	seed_check_ret("WRITE-4", dat_ep_post_rdma_write(client.ep, 1, iov, cookie(0x4d1),
							 &rmr, DAT_COMPLETION_SUPPRESS_FLAG),
		       DAT_SUCCESS, "suppressed write on the DISCONNECTED client");
	seed_expect_dto("WRITE-2", client.req_evd, client.ep, 0x4d1,
			DAT_DTO_ERR_FLUSHED, "flushed, though suppressed");
	seed_check("WRITE-4", all_zero(smem.buf, BUF), "the server's buffer is untouched");

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
