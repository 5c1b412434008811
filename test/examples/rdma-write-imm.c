/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma-write-imm: an RDMA write that rings the target's doorbell.
 *
 * A plain RDMA write is one-sided: the target's CPU never hears of it.
 * An RDMA write with immediate data (dat_ib_post_rdma_write_immed, the
 * IB extension of <dat2/dat_ib_extensions.h>) places its data the same
 * way, straight into the buffer the target exposed, and then carries 32
 * bits more, the immediate data, which consume one receive the target
 * posted. So the target gets a completion after all: a DAT_IB_DTO_EVENT
 * whose operation is DAT_IB_DTO_RECV_IMMED, with the immediate data and
 * the number of bytes written. The receive's own buffer stays untouched:
 * the data went where the rmr_context pointed.
 *
 * The initiator's completion is a DAT_IB_DTO_EVENT too (operation
 * DAT_IB_DTO_RDMA_WRITE_IMMED), on its request EVD.
 */
#include <dat2/dat_ib_extensions.h>

#include "example.h"

/* The immediate data: here, which slot of the target's buffer is new. */
#define SLOT 7

/* The extension's part of an event (DAT_EVENT.event_extension_data). */
static DAT_IB_EXTENSION_EVENT_DATA *ext_of(DAT_EVENT *e)
{
	return (DAT_IB_EXTENSION_EVENT_DATA *)(void *)e->event_extension_data;
}

/* Waits for an extended completion with operation @op, successful. */
static DAT_EVENT wait_ext(DAT_EVD_HANDLE evd, int op)
{
	DAT_EVENT e = example_wait(evd, (DAT_EVENT_NUMBER)DAT_IB_DTO_EVENT);
	DAT_DTO_COMPLETION_EVENT_DATA *d = &e.event_data.dto_completion_event_data;

	if (d->status != DAT_DTO_SUCCESS || (int)d->operation != op) {
		fprintf(stderr, "extended completion: operation %d, %s\n",
			(int)d->operation, dat_dto_status_name(d->status));
		exit(1);
	}
	return e;
}

int main(int argc, char **argv)
{
	static char source[32] = "placed, then the doorbell";
	static char target[32];
	static char doorbell[16];	/* the receive: stays empty */
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_LMR_TRIPLET src_iov, tgt_iov, bell_iov;
	DAT_LMR_HANDLE lmr[3];
	DAT_RMR_TRIPLET remote;
	struct side server, client;
	DAT_DTO_COOKIE cookie;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	DAT_EVENT e;
	DAT_RETURN r;
	int i;

	CHECK(dat_ia_open(example_ia_name(argc, argv), 8, &async, &ia));
	CHECK(dat_pz_create(ia, &pz));
	lmr[0] = example_register(ia, pz, source, sizeof(source), 0, &src_iov, NULL);
	lmr[1] = example_register(ia, pz, target, sizeof(target),
				  DAT_MEM_PRIV_REMOTE_WRITE_FLAG, &tgt_iov, &remote);
	lmr[2] = example_register(ia, pz, doorbell, sizeof(doorbell), 0,
				  &bell_iov, NULL);

	example_side(ia, pz, NULL, &server);
	example_side(ia, pz, NULL, &client);
	/* The receive the immediate data will consume. */
	cookie.as_64 = 1;
	CHECK(dat_ep_post_recv(server.ep, 1, &bell_iov, cookie,
			       DAT_COMPLETION_DEFAULT_FLAG));
	example_connect(ia, &server, &client);

	cookie.as_64 = 2;
	r = dat_ib_post_rdma_write_immed(client.ep, 1, &src_iov, cookie,
					 &remote, SLOT,
					 DAT_COMPLETION_DEFAULT_FLAG);
	if (DAT_GET_TYPE(r) == DAT_NOT_IMPLEMENTED) {
		printf("rdma-write-imm: the provider has no IB extension\n");
		return 1;
	}
	CHECK(r);

	/* The initiator: its write is done. */
	wait_ext(client.dto_evd, DAT_IB_DTO_RDMA_WRITE_IMMED);
	/* The target: a completion for a write, thanks to the immediate. */
	e = wait_ext(server.dto_evd, DAT_IB_DTO_RECV_IMMED);
	printf("target completion: immediate data %u, %llu bytes written\n",
	       (unsigned)ext_of(&e)->val.immed.data,
	       (unsigned long long)e.event_data.dto_completion_event_data.transfered_length);
	printf("target now holds: \"%s\"\n", target);
	if (ext_of(&e)->type != DAT_IB_RDMA_WRITE_IMMED_DATA ||
	    ext_of(&e)->val.immed.data != SLOT ||
	    e.event_data.dto_completion_event_data.transfered_length !=
	    sizeof(source) || strcmp(target, source) != 0)
		return 1;
	/* The receive's buffer: nothing was written into it. */
	for (i = 0; i < (int)sizeof(doorbell); i++)
		if (doorbell[i] != 0)
			return 1;
	printf("receive buffer untouched\n");

	example_teardown(&server, &client);
	for (i = 0; i < 3; i++)
		CHECK(dat_lmr_free(lmr[i]));
	CHECK(dat_pz_free(pz));
	CHECK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	printf("rdma-write-imm: ok\n");
	return 0;
}
