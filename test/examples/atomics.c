/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * atomics: fetch-and-add and compare-and-swap on a word of the peer.
 *
 * The target registers one 64-bit word, a shared counter, with the remote
 * atomic privilege (DAT_IB_MEM_PRIV_REMOTE_ATOMIC) and gives its
 * rmr_context and address to the initiator. The initiator then changes it
 * with the IB extension's atomics (<dat2/dat_ib_extensions.h>):
 *
 *   dat_ib_post_fetch_and_add  adds a value to the word;
 *   dat_ib_post_cmp_and_swap   replaces the word with a new value only if
 *                              it equals the value compared with.
 *
 * Each is one indivisible step at the target, whoever else touches the
 * word, and each brings back the value the word had before into a local
 * buffer of the initiator: that is how a compare-and-swap tells whether
 * it won. Like RDMA read and write they are one-sided: the target posts
 * nothing, its CPU does not take part, and it gets no completion. Only the
 * initiator does, a DAT_IB_DTO_EVENT (operation DAT_IB_DTO_FETCH_ADD or
 * DAT_IB_DTO_CMP_SWAP) once the old value has landed.
 */
#include <dat2/dat_ib_extensions.h>

#include "example.h"

/* Waits for the initiator's extended completion @op; checks it succeeded. */
static void wait_ext(DAT_EVD_HANDLE evd, int op)
{
	DAT_EVENT e = example_wait(evd, (DAT_EVENT_NUMBER)DAT_IB_DTO_EVENT);
	DAT_DTO_COMPLETION_EVENT_DATA *d = &e.event_data.dto_completion_event_data;

	if (d->status != DAT_DTO_SUCCESS || (int)d->operation != op) {
		fprintf(stderr, "extended completion: operation %d, %s\n",
			(int)d->operation, dat_dto_status_name(d->status));
		exit(1);
	}
}

int main(int argc, char **argv)
{
	/* Atomics work on aligned 64-bit words. */
	static uint64_t counter __attribute__((aligned(8))) = 40;
	static uint64_t old __attribute__((aligned(8)));
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_LMR_TRIPLET counter_iov, old_iov;
	DAT_LMR_HANDLE lmr[2];
	DAT_RMR_TRIPLET remote;
	struct side server, client;
	DAT_DTO_COOKIE cookie;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	DAT_EVENT e;
	DAT_RETURN r;
	int fails = 0;

	CHECK(dat_ia_open(example_ia_name(argc, argv), 8, &async, &ia));
	CHECK(dat_pz_create(ia, &pz));
	/* The target's counter: remote peers may apply atomics to it. */
	lmr[0] = example_register(ia, pz, &counter, sizeof(counter),
				  (DAT_MEM_PRIV_FLAGS)DAT_IB_MEM_PRIV_REMOTE_ATOMIC,
				  &counter_iov, &remote);
	/* The initiator's buffer, where each old value lands. */
	lmr[1] = example_register(ia, pz, &old, sizeof(old), 0, &old_iov, NULL);

	example_side(ia, pz, NULL, &server);
	example_side(ia, pz, NULL, &client);
	example_connect(ia, &server, &client);

	/* counter += 2: the old value comes back. */
	cookie.as_64 = 1;
	r = dat_ib_post_fetch_and_add(client.ep, 2, &old_iov, cookie, &remote,
				      DAT_COMPLETION_DEFAULT_FLAG);
	if (DAT_GET_TYPE(r) == DAT_NOT_IMPLEMENTED) {
		printf("atomics: the provider has no IB extension\n");
		return 1;
	}
	CHECK(r);
	wait_ext(client.dto_evd, DAT_IB_DTO_FETCH_ADD);
	printf("fetch-and-add 2: old %llu, counter now %llu\n",
	       (unsigned long long)old, (unsigned long long)counter);
	fails += old != 40 || counter != 42;

	/* If counter is 42, make it 100: it is, so the swap happens. */
	cookie.as_64 = 2;
	CHECK(dat_ib_post_cmp_and_swap(client.ep, 42, 100, &old_iov, cookie,
				       &remote, DAT_COMPLETION_DEFAULT_FLAG));
	wait_ext(client.dto_evd, DAT_IB_DTO_CMP_SWAP);
	printf("compare-and-swap 42 -> 100: old %llu (%s), counter now %llu\n",
	       (unsigned long long)old, old == 42 ? "swapped" : "not swapped",
	       (unsigned long long)counter);
	fails += old != 42 || counter != 100;

	/* Again: counter is no longer 42, the word stays as it is. */
	cookie.as_64 = 3;
	CHECK(dat_ib_post_cmp_and_swap(client.ep, 42, 7, &old_iov, cookie,
				       &remote, DAT_COMPLETION_DEFAULT_FLAG));
	wait_ext(client.dto_evd, DAT_IB_DTO_CMP_SWAP);
	printf("compare-and-swap 42 -> 7: old %llu (%s), counter now %llu\n",
	       (unsigned long long)old, old == 42 ? "swapped" : "not swapped",
	       (unsigned long long)counter);
	fails += old != 100 || counter != 100;

	/* The target took no part: no completion on its side. */
	if (dat_evd_dequeue(server.dto_evd, &e) != DAT_SUCCESS)
		printf("target completions: none\n");
	else
		fails++;
	if (fails != 0)
		return 1;

	example_teardown(&server, &client);
	CHECK(dat_lmr_free(lmr[0]));
	CHECK(dat_lmr_free(lmr[1]));
	CHECK(dat_pz_free(pz));
	CHECK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	printf("atomics: ok\n");
	return 0;
}
