/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bw: streaming bandwidth with a window of nonblocking sends.
 *
 * Ranks pair up, 0 -> 1, 2 -> 3, ... (an odd last rank only waits), all
 * pairs at once. A window is WINDOW messages of 1 MiB that the sender
 * posts with MPI_Isend and the receiver with MPI_Irecv, into as many
 * separate buffers; when all have arrived the receiver answers with a
 * 4-byte acknowledgement, and the next window starts. A run is WINDOWS
 * windows; of RUNS runs, the sender keeps the fastest. Rank 0 prints each
 * pair's bandwidth in MB/s (10^6 bytes per second) and their sum.
 *
 * Checking: a first window, untimed, has a distinct pattern in every
 * message and each byte is checked. In the timed windows every message
 * carries the window's number in its first and last 4 bytes, checked as
 * each window completes, and after each run the receiver checks every
 * byte of its whole last window.
 */
#include "mpitest.h"

#define MSG (1u << 20)
#define WINDOW 16
#define WINDOWS 8
#define RUNS 3

static uint32_t tag_of(int pair, int msg, uint32_t run)
{
	return 0xb0000000u + (uint32_t)pair * 0x100000u + run * 0x100u +
	       (uint32_t)msg;
}

static void stamp(unsigned char *p, uint32_t w)
{
	memcpy(p, &w, 4);
	memcpy(p + MSG - 4, &w, 4);
}

/* One window: post, complete, then the receiver acknowledges. */
static void window(unsigned char **buf, int sender, int peer, uint32_t w,
		   int stamped)
{
	MPI_Request req[WINDOW];
	uint32_t ack = w;

	for (int i = 0; i < WINDOW; i++) {
		if (sender) {
			if (stamped)
				stamp(buf[i], w);
			MT_CHECK(MPI_Isend(buf[i], MSG, MPI_BYTE, peer, i,
					   MPI_COMM_WORLD, &req[i]));
		} else {
			MT_CHECK(MPI_Irecv(buf[i], MSG, MPI_BYTE, peer, i,
					   MPI_COMM_WORLD, &req[i]));
		}
	}
	MT_CHECK(MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE));

	if (sender) {
		MT_CHECK(MPI_Recv(&ack, 1, MPI_UINT32_T, peer, WINDOW,
				  MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		if (ack != w)
			mt_fail("window %u acknowledged as %u", (unsigned)w,
				(unsigned)ack);
		return;
	}
	for (int i = 0; stamped && i < WINDOW; i++) {
		uint32_t a, b;

		memcpy(&a, buf[i], 4);
		memcpy(&b, buf[i] + MSG - 4, 4);
		if (a != w || b != w)
			mt_fail("window %u, message %d: stamps read %u and %u",
				(unsigned)w, i, (unsigned)a, (unsigned)b);
	}
	MT_CHECK(MPI_Send(&ack, 1, MPI_UINT32_T, peer, WINDOW,
			  MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
	unsigned char *buf[WINDOW];
	double mbs = 0, *all = NULL;
	char what[80];

	mt_init(&argc, &argv, "bw");
	if (mt_size < 2)
		mt_fail("needs at least 2 ranks");

	int pair = mt_rank / 2;
	int active = pair * 2 + 1 < mt_size;
	int sender = mt_rank % 2 == 0;
	int peer = sender ? mt_rank + 1 : mt_rank - 1;

	for (int i = 0; i < WINDOW; i++)
		buf[i] = mt_alloc(MSG);

	if (active) {
		/* The checked window: every message differs, every byte. */
		for (int i = 0; i < WINDOW; i++)
			if (sender)
				mt_fill(buf[i], MSG, tag_of(pair, i, 0));
		window(buf, sender, peer, 0, 0);
		for (int i = 0; !sender && i < WINDOW; i++) {
			snprintf(what, sizeof(what), "checked window, "
				 "message %d from rank %d", i, peer);
			mt_verify(buf[i], MSG, tag_of(pair, i, 0), what);
		}

		for (uint32_t run = 1; run <= RUNS; run++) {
			for (int i = 0; sender && i < WINDOW; i++)
				mt_fill(buf[i], MSG, tag_of(pair, i, run));

			double t0 = MPI_Wtime();
			for (uint32_t w = 1; w <= WINDOWS; w++)
				window(buf, sender, peer, w, 1);
			double t = MPI_Wtime() - t0;
			double r = (double)MSG * WINDOW * WINDOWS / t / 1e6;
			if (r > mbs)
				mbs = r;

			for (int i = 0; !sender && i < WINDOW; i++) {
				unsigned char *want = mt_alloc(MSG);

				mt_fill(want, MSG, tag_of(pair, i, run));
				stamp(want, WINDOWS);
				for (size_t k = 0; k < MSG; k++)
					if (buf[i][k] != want[k])
						mt_fail("run %u, message %d: "
							"byte %zu is 0x%02x, "
							"expected 0x%02x",
							(unsigned)run, i, k,
							buf[i][k], want[k]);
				free(want);
			}
		}
	}

	/* Rank 0 gathers the senders' figures and prints them. */
	if (mt_rank == 0)
		all = mt_alloc(sizeof(double) * (size_t)mt_size);
	MT_CHECK(MPI_Gather(&mbs, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0,
			    MPI_COMM_WORLD));
	if (mt_rank == 0) {
		double sum = 0;

		for (int r = 0; r + 1 < mt_size; r += 2) {
			printf("bw: rank %d -> %d: %.1f MB/s (%d x %u bytes "
			       "per window, best of %d runs of %d windows)\n",
			       r, r + 1, all[r], WINDOW, MSG, RUNS, WINDOWS);
			sum += all[r];
		}
		printf("bw: total %.1f MB/s\n", sum);
		free(all);
	}
	for (int i = 0; i < WINDOW; i++)
		free(buf[i]);
	return mt_finish();
}
