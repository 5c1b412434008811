/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * collectives: MPI_Alltoall, MPI_Allreduce and MPI_Bcast, checked.
 *
 * Each runs at a small size and at sizes large enough that the
 * collective algorithms split the data and the transports switch to
 * their rendezvous protocols. Every element every rank receives is
 * compared with the value it must have, computed from who sent it and
 * where it sits.
 */
#include "mpitest.h"

/* The value rank `from` sends rank `to` at index k in the alltoall. */
static int32_t a2a_value(int from, int to, int k)
{
	return from * 1000003 + to * 1009 + k;
}

static void alltoall(int count)
{
	size_t n = (size_t)count * (size_t)mt_size;
	int32_t *sbuf = mt_alloc(n * sizeof(int32_t));
	int32_t *rbuf = mt_alloc(n * sizeof(int32_t));

	for (int to = 0; to < mt_size; to++)
		for (int k = 0; k < count; k++)
			sbuf[(size_t)to * count + k] =
				a2a_value(mt_rank, to, k);
	memset(rbuf, 0xff, n * sizeof(int32_t));
	MT_CHECK(MPI_Alltoall(sbuf, count, MPI_INT32_T, rbuf, count,
			      MPI_INT32_T, MPI_COMM_WORLD));
	for (int from = 0; from < mt_size; from++)
		for (int k = 0; k < count; k++) {
			int32_t got = rbuf[(size_t)from * count + k];
			int32_t want = a2a_value(from, mt_rank, k);

			if (got != want)
				mt_fail("alltoall of %d: element %d from rank "
					"%d is %d, expected %d", count, k,
					from, (int)got, (int)want);
		}
	free(sbuf);
	free(rbuf);
}

/* Sum and maximum over all ranks of what each rank puts at index k. */
static void allreduce(int count)
{
	int64_t *in = mt_alloc((size_t)count * sizeof(int64_t));
	int64_t *out = mt_alloc((size_t)count * sizeof(int64_t));
	int64_t n = mt_size;

	/* Sum: rank r gives (r + 1) * (k + 1): total (k + 1) n (n + 1) / 2. */
	for (int k = 0; k < count; k++)
		in[k] = (int64_t)(mt_rank + 1) * (k + 1);
	MT_CHECK(MPI_Allreduce(in, out, count, MPI_INT64_T, MPI_SUM,
			       MPI_COMM_WORLD));
	for (int k = 0; k < count; k++)
		if (out[k] != (int64_t)(k + 1) * n * (n + 1) / 2)
			mt_fail("allreduce sum of %d: element %d is %lld, "
				"expected %lld", count, k, (long long)out[k],
				(long long)((int64_t)(k + 1) * n * (n + 1) / 2));

	/* Maximum: the largest value comes from rank k % n. */
	for (int k = 0; k < count; k++)
		in[k] = mt_rank == k % mt_size ? 1000000 + k : k - mt_rank;
	MT_CHECK(MPI_Allreduce(in, out, count, MPI_INT64_T, MPI_MAX,
			       MPI_COMM_WORLD));
	for (int k = 0; k < count; k++)
		if (out[k] != 1000000 + k)
			mt_fail("allreduce max of %d: element %d is %lld, "
				"expected %d", count, k, (long long)out[k],
				1000000 + k);
	free(in);
	free(out);
}

/* Every rank broadcasts in turn; every byte is checked everywhere. */
static void bcast(int len)
{
	unsigned char *buf = mt_alloc((size_t)len);
	char what[64];

	for (int root = 0; root < mt_size; root++) {
		uint32_t tag = 0xbc000000u + (uint32_t)len + (uint32_t)root;

		if (mt_rank == root)
			mt_fill(buf, (size_t)len, tag);
		else
			memset(buf, 0, (size_t)len);
		MT_CHECK(MPI_Bcast(buf, len, MPI_BYTE, root, MPI_COMM_WORLD));
		snprintf(what, sizeof(what), "bcast from rank %d", root);
		mt_verify(buf, (size_t)len, tag, what);
	}
	free(buf);
}

int main(int argc, char **argv)
{
	static const int a2a_counts[] = { 1, 1000, 65536 };
	static const int red_counts[] = { 1, 1000, 262144 };
	static const int bcast_lens[] = { 1, 4096, 100000, 1 << 20, 4 << 20 };

	mt_init(&argc, &argv, "collectives");
	for (size_t i = 0; i < sizeof(a2a_counts) / sizeof(int); i++)
		alltoall(a2a_counts[i]);
	for (size_t i = 0; i < sizeof(red_counts) / sizeof(int); i++)
		allreduce(red_counts[i]);
	for (size_t i = 0; i < sizeof(bcast_lens) / sizeof(int); i++)
		bcast(bcast_lens[i]);
	if (mt_rank == 0)
		printf("collectives: alltoall of 1, 1000, 65536 int32 per "
		       "rank; allreduce sum and max of 1, 1000, 262144 "
		       "int64; bcast of 1 B to 4 MiB from every root\n");
	return mt_finish();
}
