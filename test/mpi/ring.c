/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ring: a token goes around all ranks, several laps.
 *
 * Rank 0 starts the token; each rank receives it from rank - 1, checks
 * it, adds its own mark and passes it to rank + 1 (the last rank back to
 * rank 0). The token is a header (lap, hops so far, running sum of the
 * ranks it passed) and a payload that every rank checks byte by byte and
 * rewrites for the next hop. Laps alternate between a payload below the
 * eager limit of the transports and one far above it, so both the eager
 * and the rendezvous protocols carry it.
 */
#include "mpitest.h"

#define LAPS 10
#define SMALL (1u << 10)	/* 1 KiB: eager */
#define LARGE (1u << 18)	/* 256 KiB: rendezvous, pipelined RDMA */

struct head {
	int32_t lap, hops;
	int64_t sum;
};

/* The payload a token carries when it leaves rank r on lap l. */
static uint32_t payload_tag(int lap, int r)
{
	return 0x52000000u + (uint32_t)lap * 1024u + (uint32_t)r;
}

int main(int argc, char **argv)
{
	unsigned char *buf;
	struct head *h;

	mt_init(&argc, &argv, "ring");
	if (mt_size < 2)
		mt_fail("needs at least 2 ranks");
	buf = mt_alloc(sizeof(*h) + LARGE);
	h = (struct head *)buf;

	int next = (mt_rank + 1) % mt_size;
	int prev = (mt_rank + mt_size - 1) % mt_size;
	/* 0 + 1 + ... + (size - 1): what one lap adds to the sum. */
	int64_t lapsum = (int64_t)mt_size * (mt_size - 1) / 2;

	for (int lap = 0; lap < LAPS; lap++) {
		size_t plen = lap % 2 ? LARGE : SMALL;
		int n = (int)(sizeof(*h) + plen);
		MPI_Status st;
		int count;

		if (mt_rank == 0) {
			h->lap = lap;
			h->hops = 1;
			h->sum = lap * lapsum;
			mt_fill(buf + sizeof(*h), plen, payload_tag(lap, 0));
			MT_CHECK(MPI_Send(buf, n, MPI_BYTE, next, lap,
					  MPI_COMM_WORLD));
		}

		MT_CHECK(MPI_Recv(buf, n, MPI_BYTE, prev, lap, MPI_COMM_WORLD,
				  &st));
		MT_CHECK(MPI_Get_count(&st, MPI_BYTE, &count));
		if (count != n)
			mt_fail("lap %d: received %d bytes, expected %d",
				lap, count, n);

		/* Each sender counts a hop and adds its rank to the sum: the
		 * token reaching rank r has made r hops and summed
		 * 0 + ... + (r - 1); reaching rank 0 again, it has made size. */
		int64_t rr = mt_rank == 0 ? mt_size : mt_rank;
		int hops = (int)rr;
		int64_t sum = lap * lapsum + rr * (rr - 1) / 2;
		if (h->lap != lap || h->hops != hops || h->sum != sum)
			mt_fail("lap %d: token says lap %d, %d hops, sum %lld; "
				"expected lap %d, %d hops, sum %lld", lap,
				h->lap, h->hops, (long long)h->sum, lap, hops,
				(long long)sum);

		char what[64];
		snprintf(what, sizeof(what), "lap %d payload from rank %d",
			 lap, prev);
		mt_verify(buf + sizeof(*h), plen, payload_tag(lap, prev), what);

		if (mt_rank != 0) {
			h->hops++;
			h->sum += mt_rank;
			mt_fill(buf + sizeof(*h), plen,
				payload_tag(lap, mt_rank));
			MT_CHECK(MPI_Send(buf, n, MPI_BYTE, next, lap,
					  MPI_COMM_WORLD));
		}
	}
	if (mt_rank == 0)
		printf("ring: %d laps of %d ranks, payloads of %u and %u "
		       "bytes\n", LAPS, mt_size, SMALL, LARGE);
	free(buf);
	return mt_finish();
}
