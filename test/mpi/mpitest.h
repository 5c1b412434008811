/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mpitest.h: what the MPI test programs share.
 *
 * Each program checks every result it gets and, on the first mismatch,
 * says what it expected and what it found, then ends the whole job with
 * MPI_Abort: mpirun exits non-zero. A program that finishes prints a line
 * "<name>: ok" from rank 0.
 *
 * Data patterns are a function of (tag, index), so a receiver can compute
 * what every byte must be without having been sent the answer.
 */
#ifndef MPITEST_H
#define MPITEST_H

#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *mt_prog = "?";
static int mt_rank = -1;
static int mt_size;

static inline void mt_init(int *argc, char ***argv, const char *prog)
{
	mt_prog = prog;
	MPI_Init(argc, argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &mt_size);
}

/* Report a failure and end the job. */
__attribute__((format(printf, 1, 2), noreturn))
static inline void mt_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: rank %d: FAIL: ", mt_prog, mt_rank);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1);
}

/* An MPI call that must succeed (the default error handler aborts on
 * error already; this also catches MPI_ERRORS_RETURN being set). */
#define MT_CHECK(call)							\
	do {								\
		int mt_rc_ = (call);					\
		if (mt_rc_ != MPI_SUCCESS)				\
			mt_fail("%s returned %d", #call, mt_rc_);	\
	} while (0)

static inline void *mt_alloc(size_t len)
{
	void *p = malloc(len ? len : 1);

	if (p == NULL)
		mt_fail("out of memory (%zu bytes)", len);
	return p;
}

/* The byte at index i of the buffer identified by tag. */
static inline unsigned char mt_byte(uint32_t tag, size_t i)
{
	uint32_t x = tag * 2654435761u + (uint32_t)i * 40503u;

	return (unsigned char)(x ^ (x >> 11) ^ (uint32_t)(i >> 8));
}

static inline void mt_fill(void *buf, size_t len, uint32_t tag)
{
	unsigned char *p = buf;

	for (size_t i = 0; i < len; i++)
		p[i] = mt_byte(tag, i);
}

/* Check every byte; on the first wrong one, fail naming what and where. */
static inline void mt_verify(const void *buf, size_t len, uint32_t tag,
		      const char *what)
{
	const unsigned char *p = buf;

	for (size_t i = 0; i < len; i++)
		if (p[i] != mt_byte(tag, i))
			mt_fail("%s: %zu bytes, byte %zu is 0x%02x, "
				"expected 0x%02x (tag %u)", what, len, i,
				p[i], mt_byte(tag, i), (unsigned)tag);
}

/* Rank 0 says the program passed; every rank leaves MPI. */
static inline int mt_finish(void)
{
	MT_CHECK(MPI_Barrier(MPI_COMM_WORLD));
	if (mt_rank == 0) {
		printf("%s: ok (%d ranks)\n", mt_prog, mt_size);
		fflush(stdout);
	}
	MPI_Finalize();
	return 0;
}

#endif /* MPITEST_H */
