/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A DAT 1.2 program (<dat/udat.h>, -ldat) talking to a DAT 2.0 one: the
 * client side of dat12_talks_to_dat2 (test/test-dat12-interop.c), whose
 * server is DAT 2.0. Usage: peer IA ADDRESS PORT (an IPv4 address).
 *
 *   1. we send "hello from DAT 1.2" and the RMR triplet of our buffer;
 *   2. the server RDMA-writes "written by DAT 2.0" into our buffer, then
 *      sends "hello from DAT 2.0" and the RMR triplet of its buffer;
 *   3. we check both, RDMA-write "written by DAT 1.2" into its buffer and
 *      send "done"; the server checks what we wrote.
 *
 * Prints PASS and exits 0, or says what failed and exits 1.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dat/udat.h>

#include "wire.h"

#define WAIT_US	(10 * 1000 * 1000)

static void check(DAT_RETURN r, const char *what)
{
	const char *major = "?", *minor = "?";

	if (r == DAT_SUCCESS)
		return;
	dat_strerror(r, &major, &minor);
	printf("%s: %s %s (0x%x)\n", what, major, minor, (unsigned)r);
	exit(1);
}

static DAT_EVENT wait_event(DAT_EVD_HANDLE evd, DAT_EVENT_NUMBER want,
			    const char *what)
{
	DAT_EVENT ev;
	DAT_COUNT more;

	check(dat_evd_wait(evd, WAIT_US, 1, &ev, &more), what);
	if (ev.event_number != want) {
		printf("%s: event 0x%x, wanted 0x%x\n", what,
		       (unsigned)ev.event_number, (unsigned)want);
		exit(1);
	}
	if (want == DAT_DTO_COMPLETION_EVENT &&
	    ev.event_data.dto_completion_event_data.status != DAT_DTO_SUCCESS) {
		printf("%s: DTO status %d\n", what,
		       (int)ev.event_data.dto_completion_event_data.status);
		exit(1);
	}
	return ev;
}

int main(int argc, char **argv)
{
	static char buf[8192];
	struct sockaddr_in srv;
	struct peer_msg *in = (struct peer_msg *)(void *)buf;
	struct peer_msg *out = (struct peer_msg *)(void *)(buf + 256);
	char *region = buf + 4096;
	DAT_IA_HANDLE ia;
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL, dto, conn;
	DAT_PZ_HANDLE pz;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
	DAT_VLEN rlen;
	DAT_VADDR raddr;
	DAT_REGION_DESCRIPTION rd;
	DAT_EP_HANDLE ep;
	DAT_LMR_TRIPLET t;
	DAT_RMR_TRIPLET r;
	DAT_DTO_COOKIE c;
	DAT_EVENT ev;

	if (argc != 4) {
		printf("usage: peer IA ADDRESS PORT\n");
		return 1;
	}
	memset(&srv, 0, sizeof(srv));
	srv.sin_family = AF_INET;
	if (inet_pton(AF_INET, argv[2], &srv.sin_addr) != 1) {
		printf("%s: not an IPv4 address\n", argv[2]);
		return 1;
	}
	check(dat_ia_open(argv[1], 8, &async, &ia), "dat_ia_open");
	check(dat_pz_create(ia, &pz), "dat_pz_create");
	check(dat_evd_create(ia, 16, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &dto),
	      "dat_evd_create");
	check(dat_evd_create(ia, 4, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG,
			     &conn), "dat_evd_create");
	rd.for_va = buf;
	/* DAT 1.2: no DAT_VA_TYPE argument. */
	check(dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, rd, sizeof(buf), pz,
			     DAT_MEM_PRIV_ALL_FLAG, &lmr, &lctx, &rctx, &rlen,
			     &raddr), "dat_lmr_create");
	check(dat_ep_create(ia, pz, dto, dto, conn, NULL, &ep), "dat_ep_create");

	/* Both of the server's messages, before we connect (RECV-6). */
	memset(&t, 0, sizeof(t));
	t.lmr_context = lctx;
	t.virtual_address = (DAT_VADDR)(uintptr_t)in;
	t.segment_length = sizeof(*in);
	c.as_64 = 1;
	check(dat_ep_post_recv(ep, 1, &t, c, DAT_COMPLETION_DEFAULT_FLAG),
	      "dat_ep_post_recv");
	srv.sin_port = htons((uint16_t)atoi(argv[3]));
	check(dat_ep_connect(ep, (DAT_IA_ADDRESS_PTR)&srv,
			     (DAT_CONN_QUAL)atoi(argv[3]), WAIT_US, 0, NULL,
			     DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG),
	      "dat_ep_connect");
	wait_event(conn, DAT_CONNECTION_EVENT_ESTABLISHED, "connection");

	/* 1: hello, and where the server may write. */
	memset(out, 0, sizeof(*out));
	snprintf(out->text, sizeof(out->text), "%s", PEER_HELLO12);
	out->rmr_context = rctx;
	out->addr = (uint64_t)(uintptr_t)region;
	out->len = 1024;
	t.virtual_address = (DAT_VADDR)(uintptr_t)out;
	t.segment_length = sizeof(*out);
	c.as_64 = 2;
	check(dat_ep_post_send(ep, 1, &t, c, DAT_COMPLETION_DEFAULT_FLAG),
	      "dat_ep_post_send");
	ev = wait_event(dto, DAT_DTO_COMPLETION_EVENT, "send");
	if (ev.event_data.dto_completion_event_data.user_cookie.as_64 != 2 ||
	    ev.event_data.dto_completion_event_data.transfered_length !=
	    sizeof(*out)) {
		printf("send: cookie %llu length %llu\n",
		       (unsigned long long)ev.event_data.dto_completion_event_data.user_cookie.as_64,
		       (unsigned long long)ev.event_data.dto_completion_event_data.transfered_length);
		return 1;
	}

	/* 2: the server wrote, then said hello. */
	ev = wait_event(dto, DAT_DTO_COMPLETION_EVENT, "receive");
	if (ev.event_data.dto_completion_event_data.transfered_length !=
	    sizeof(*in) || strcmp(in->text, PEER_HELLO2) != 0) {
		printf("receive: %llu bytes \"%.32s\"\n",
		       (unsigned long long)ev.event_data.dto_completion_event_data.transfered_length,
		       in->text);
		return 1;
	}
	if (strcmp(region, PEER_WRITTEN2) != 0) {
		printf("our buffer holds \"%.32s\", not the server's write\n",
		       region);
		return 1;
	}
	printf("received \"%s\"; the server wrote \"%s\" into our buffer\n",
	       in->text, region);

	/* 3: our write into the server's buffer, then done. */
	snprintf(out->text, sizeof(out->text), "%s", PEER_WRITTEN12);
	t.virtual_address = (DAT_VADDR)(uintptr_t)out->text;
	t.segment_length = strlen(PEER_WRITTEN12) + 1;
	memset(&r, 0, sizeof(r));
	r.rmr_context = in->rmr_context;
	r.target_address = in->addr;	/* DAT 2.0: virtual_address */
	r.segment_length = t.segment_length;
	c.as_64 = 3;
	check(dat_ep_post_rdma_write(ep, 1, &t, c, &r,
				     DAT_COMPLETION_DEFAULT_FLAG),
	      "dat_ep_post_rdma_write");
	wait_event(dto, DAT_DTO_COMPLETION_EVENT, "RDMA write");
	snprintf(out->text, sizeof(out->text), "%s", PEER_DONE);
	t.virtual_address = (DAT_VADDR)(uintptr_t)out;
	t.segment_length = sizeof(*out);
	c.as_64 = 4;
	check(dat_ep_post_send(ep, 1, &t, c, DAT_COMPLETION_DEFAULT_FLAG),
	      "dat_ep_post_send");
	wait_event(dto, DAT_DTO_COMPLETION_EVENT, "send of done");

	/* The server disconnects once it checked our write. */
	wait_event(conn, DAT_CONNECTION_EVENT_DISCONNECTED, "disconnect");
	check(dat_ep_free(ep), "dat_ep_free");
	check(dat_lmr_free(lmr), "dat_lmr_free");
	check(dat_evd_free(dto), "dat_evd_free");
	check(dat_evd_free(conn), "dat_evd_free");
	check(dat_pz_free(pz), "dat_pz_free");
	check(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG), "dat_ia_close");
	printf("PASS\n");
	return 0;
}
