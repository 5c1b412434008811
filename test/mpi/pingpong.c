/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pingpong: latency and bandwidth between ranks 0 and 1.
 *
 * For each size from 8 B to 4 MiB in powers of two, rank 0 sends a
 * message to rank 1 and rank 1 sends one back: a round trip. Rank 0 picks
 * N so that N round trips take about TARGET seconds, times three runs of
 * N and keeps the best. It prints the half round trip in microseconds and
 * the bandwidth it gives, size / half round trip, in MB/s (10^6 bytes).
 * Other ranks, if any, only wait.
 *
 * Checking: before the timed runs, each size makes CHECKED round trips
 * whose messages have a fresh pattern each way and each time, and every
 * byte of every one is checked. During the timed runs the checks stay
 * out of the clock: every message carries its iteration number in its
 * first and last 4 bytes, checked each time, and after
 * each run the receiver checks every byte of the last message.
 */
#include "mpitest.h"

#define MIN_SIZE 8u
#define MAX_SIZE (4u << 20)
#define RUNS 3
#define CHECKED 3
#define TARGET 0.15		/* seconds per timed run */
#define CALIBRATE 0.02		/* seconds the calibration run must last */
#define MIN_ITERS 5
#define MAX_ITERS 100000

/* Put/check the iteration stamp in a message of len >= 8 bytes. */
static void stamp(unsigned char *p, size_t len, uint32_t it)
{
	memcpy(p, &it, 4);
	memcpy(p + len - 4, &it, 4);
}

static void check_stamp(const unsigned char *p, size_t len, uint32_t it,
			const char *dir)
{
	uint32_t a, b;

	memcpy(&a, p, 4);
	memcpy(&b, p + len - 4, 4);
	if (a != it || b != it)
		mt_fail("%s, %zu bytes, iteration %u: stamps read %u and %u",
			dir, len, (unsigned)it, (unsigned)a, (unsigned)b);
}

/* The pattern of the message going to rank `to`, for a size and step. */
static uint32_t tag_of(size_t len, int to, uint32_t step)
{
	return (uint32_t)len * 7919u + (uint32_t)to * 0x10000u + step;
}

/* N round trips with stamped messages; returns rank 0's elapsed time.
 * `run` makes the patterns of this run differ from the others'. */
static double timed_run(unsigned char *sbuf, unsigned char *rbuf,
			size_t len, uint32_t iters, uint32_t run)
{
	int peer = 1 - mt_rank;
	int n = (int)len;
	double t0;

	/* The bytes between the stamps; the last message is checked whole. */
	mt_fill(sbuf, len, tag_of(len, peer, 1000 + run));
	t0 = MPI_Wtime();
	for (uint32_t it = 0; it < iters; it++) {
		if (mt_rank == 0) {
			stamp(sbuf, len, it);
			MT_CHECK(MPI_Send(sbuf, n, MPI_BYTE, 1, 1,
					  MPI_COMM_WORLD));
			MT_CHECK(MPI_Recv(rbuf, n, MPI_BYTE, 1, 1,
					  MPI_COMM_WORLD, MPI_STATUS_IGNORE));
			check_stamp(rbuf, len, it, "1 -> 0");
		} else {
			MT_CHECK(MPI_Recv(rbuf, n, MPI_BYTE, 0, 1,
					  MPI_COMM_WORLD, MPI_STATUS_IGNORE));
			check_stamp(rbuf, len, it, "0 -> 1");
			stamp(sbuf, len, it);
			MT_CHECK(MPI_Send(sbuf, n, MPI_BYTE, 0, 1,
					  MPI_COMM_WORLD));
		}
	}
	double t = MPI_Wtime() - t0;

	/* The last message, whole: its pattern with the last stamps. */
	unsigned char *want = mt_alloc(len);
	mt_fill(want, len, tag_of(len, mt_rank, 1000 + run));
	stamp(want, len, iters - 1);
	for (size_t i = 0; i < len; i++)
		if (rbuf[i] != want[i])
			mt_fail("timed run %u, %zu bytes: byte %zu of the last "
				"message is 0x%02x, expected 0x%02x",
				(unsigned)run, len, i, rbuf[i], want[i]);
	free(want);
	return t;
}

int main(int argc, char **argv)
{
	unsigned char *sbuf, *rbuf;

	mt_init(&argc, &argv, "pingpong");
	if (mt_size < 2)
		mt_fail("needs at least 2 ranks");
	sbuf = mt_alloc(MAX_SIZE);
	rbuf = mt_alloc(MAX_SIZE);

	if (mt_rank == 0)
		printf("%10s %8s %12s %12s\n", "bytes", "iters",
		       "usec", "MB/s");

	for (size_t len = MIN_SIZE; mt_rank < 2 && len <= MAX_SIZE;
	     len *= 2) {
		int peer = 1 - mt_rank;
		int n = (int)len;
		char what[64];

		/* Checked round trips, a fresh pattern every message. */
		for (uint32_t step = 0; step < CHECKED; step++) {
			mt_fill(sbuf, len, tag_of(len, peer, step));
			if (mt_rank == 0) {
				MT_CHECK(MPI_Send(sbuf, n, MPI_BYTE, 1, 0,
						  MPI_COMM_WORLD));
				MT_CHECK(MPI_Recv(rbuf, n, MPI_BYTE, 1, 0,
						  MPI_COMM_WORLD,
						  MPI_STATUS_IGNORE));
			} else {
				MT_CHECK(MPI_Recv(rbuf, n, MPI_BYTE, 0, 0,
						  MPI_COMM_WORLD,
						  MPI_STATUS_IGNORE));
				MT_CHECK(MPI_Send(sbuf, n, MPI_BYTE, 0, 0,
						  MPI_COMM_WORLD));
			}
			snprintf(what, sizeof(what), "checked message %u, "
				 "%d -> %d", (unsigned)step, peer, mt_rank);
			mt_verify(rbuf, len, tag_of(len, mt_rank, step), what);
		}

		/* Calibration: rank 0 doubles the number of round trips
		 * until a run lasts CALIBRATE seconds, then tells rank 1 the
		 * N that fills TARGET seconds (0 meaning: double again). */
		uint32_t iters = 1, next;
		for (;;) {
			double t = timed_run(sbuf, rbuf, len, iters, 0);

			if (mt_rank == 0) {
				double want = TARGET * iters / t;

				if (t < CALIBRATE && iters < MAX_ITERS)
					next = 0;
				else
					next = want < MIN_ITERS ? MIN_ITERS :
					       want > MAX_ITERS ? MAX_ITERS :
					       (uint32_t)want;
				MT_CHECK(MPI_Send(&next, 1, MPI_UINT32_T, 1, 2,
						  MPI_COMM_WORLD));
			} else {
				MT_CHECK(MPI_Recv(&next, 1, MPI_UINT32_T, 0, 2,
						  MPI_COMM_WORLD,
						  MPI_STATUS_IGNORE));
			}
			if (next != 0) {
				iters = next;
				break;
			}
			iters *= 2;
		}

		double best = 0;
		for (uint32_t run = 1; run <= RUNS; run++) {
			double t = timed_run(sbuf, rbuf, len, iters, run);
			if (run == 1 || t < best)
				best = t;
		}
		if (mt_rank == 0) {
			double half_us = best / iters / 2 * 1e6;
			printf("%10zu %8u %12.2f %12.2f\n", len,
			       (unsigned)iters, half_us, len / half_us);
			fflush(stdout);
		}
	}
	free(sbuf);
	free(rbuf);
	return mt_finish();
}
