/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hello: every rank reports.
 *
 * Each rank writes one line naming itself, its host and its process;
 * rank 0 gathers the lines, checks that each comes from the rank it
 * should and that every rank agrees on the job's size, and prints them
 * in rank order.
 */
#include <unistd.h>

#include "mpitest.h"

#define LINE (MPI_MAX_PROCESSOR_NAME + 64)

int main(int argc, char **argv)
{
	char line[LINE], host[MPI_MAX_PROCESSOR_NAME], *all = NULL;
	int len;

	mt_init(&argc, &argv, "hello");
	MT_CHECK(MPI_Get_processor_name(host, &len));

	memset(line, 0, sizeof(line));
	snprintf(line, sizeof(line), "rank %d of %d on %s, pid %ld",
		 mt_rank, mt_size, host, (long)getpid());

	if (mt_rank == 0)
		all = mt_alloc((size_t)mt_size * LINE);
	MT_CHECK(MPI_Gather(line, LINE, MPI_CHAR, all, LINE, MPI_CHAR, 0,
			    MPI_COMM_WORLD));

	if (mt_rank == 0) {
		for (int r = 0; r < mt_size; r++) {
			char want[40];
			const char *got = all + (size_t)r * LINE;

			snprintf(want, sizeof(want), "rank %d of %d on ", r,
				 mt_size);
			if (strncmp(got, want, strlen(want)) != 0 ||
			    memchr(got, '\0', LINE) == NULL)
				mt_fail("line %d reads \"%.*s\", expected it "
					"to begin \"%s\"", r, LINE, got,
					want);
			printf("hello: %s\n", got);
		}
		free(all);
	}
	return mt_finish();
}
