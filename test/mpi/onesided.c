/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * onesided: MPI_Put, MPI_Get and MPI_Accumulate between fences, checked.
 *
 * Every rank exposes a window of COUNT int32. In each epoch (between two
 * MPI_Win_fence calls) every rank works on its right-hand neighbour's
 * window, or on everyone's:
 *
 *   put         each rank writes its pattern into the next rank's window;
 *               the owner checks it after the fence
 *   get         each rank reads the previous rank's window (which that
 *               rank filled before the fence) and checks it
 *   accumulate  every rank adds its contribution (MPI_SUM) into every
 *               window; each owner checks the total
 *
 * COUNT is 1 MiB of int32 for the large round and 16 for the small one,
 * so both the eager and the large-message paths of the one-sided
 * component carry the data.
 */
#include "mpitest.h"

static int32_t value(int rank, int round, int k)
{
	return rank * 7000003 + round * 101 + k;
}

static void check(const int32_t *got, int count, int32_t (*want)(int, int),
		  int arg, const char *op)
{
	for (int k = 0; k < count; k++)
		if (got[k] != want(arg, k))
			mt_fail("%s of %d int32: element %d is %d, "
				"expected %d", op, count, k, (int)got[k],
				(int)want(arg, k));
}

static int g_round;
static int32_t want_put(int from, int k) { return value(from, g_round, k); }
static int32_t want_acc(int owner, int k)
{
	/* Owner's start value plus sum over r of (r + 1) * (k % 97 + 1). */
	int64_t n = mt_size;

	return value(owner, g_round, k) +
	       (int32_t)(n * (n + 1) / 2 * (k % 97 + 1));
}

static void round_of(int count, int round)
{
	int32_t *base, *mine = mt_alloc((size_t)count * sizeof(int32_t));
	int next = (mt_rank + 1) % mt_size;
	int prev = (mt_rank + mt_size - 1) % mt_size;
	MPI_Win win;

	g_round = round;
	MT_CHECK(MPI_Alloc_mem((MPI_Aint)count * sizeof(int32_t),
			       MPI_INFO_NULL, &base));
	memset(base, 0, (size_t)count * sizeof(int32_t));
	MT_CHECK(MPI_Win_create(base, (MPI_Aint)count * sizeof(int32_t),
				sizeof(int32_t), MPI_INFO_NULL,
				MPI_COMM_WORLD, &win));

	/* Put: into the next rank's window. */
	for (int k = 0; k < count; k++)
		mine[k] = value(mt_rank, round, k);
	MT_CHECK(MPI_Win_fence(0, win));
	MT_CHECK(MPI_Put(mine, count, MPI_INT32_T, next, 0, count,
			 MPI_INT32_T, win));
	MT_CHECK(MPI_Win_fence(0, win));
	check(base, count, want_put, prev, "put");

	/* Get: each window now holds its owner's pattern; read prev's. */
	for (int k = 0; k < count; k++)
		base[k] = value(mt_rank, round, k);
	memset(mine, 0, (size_t)count * sizeof(int32_t));
	MT_CHECK(MPI_Win_fence(0, win));
	MT_CHECK(MPI_Get(mine, count, MPI_INT32_T, prev, 0, count,
			 MPI_INT32_T, win));
	MT_CHECK(MPI_Win_fence(0, win));
	check(mine, count, want_put, prev, "get");

	/* Accumulate: everyone adds (rank + 1) * (k % 97 + 1) everywhere. */
	for (int k = 0; k < count; k++)
		mine[k] = (mt_rank + 1) * (k % 97 + 1);
	MT_CHECK(MPI_Win_fence(0, win));
	for (int r = 0; r < mt_size; r++)
		MT_CHECK(MPI_Accumulate(mine, count, MPI_INT32_T, r, 0, count,
					MPI_INT32_T, MPI_SUM, win));
	MT_CHECK(MPI_Win_fence(0, win));
	check(base, count, want_acc, mt_rank, "accumulate");

	MT_CHECK(MPI_Win_free(&win));
	MT_CHECK(MPI_Free_mem(base));
	free(mine);
}

int main(int argc, char **argv)
{
	mt_init(&argc, &argv, "onesided");
	round_of(16, 1);
	round_of(1 << 20, 2);
	round_of(1000, 3);
	if (mt_rank == 0)
		printf("onesided: put, get, accumulate of 16, 1048576 and "
		       "1000 int32 with fences\n");
	return mt_finish();
}
