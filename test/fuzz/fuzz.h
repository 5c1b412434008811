/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The libFuzzer interface every harness of test/fuzz implements, and the
 * check that ends a run when a harness finds something wrong.
 *
 * Each fuzz-<target>.c defines LLVMFuzzerTestOneInput (and, if it needs
 * process-wide setup, LLVMFuzzerInitialize). The same file is linked two
 * ways (Makefile):
 *
 *   make fuzz     with clang -fsanitize=fuzzer,address,undefined into
 *                 build-fuzz/fuzz-<target>: libFuzzer's main mutates inputs
 *   make check    with the build's compiler and sanitizers into
 *                 $(O)/test/fuzz/replay-<target>, with replay.c's main,
 *                 which runs every file of test/fuzz/corpus/<target> and
 *                 test/fuzz/regress/<target> through it once (the tests
 *                 fuzz_replay_<target>, test/test-fuzz.c)
 *
 * A harness never returns an error for bad input: bad input is what it is
 * for. It calls FUZZ_CHECK on every invariant of the code under test; a
 * violation aborts, which both drivers report as a crash with its input.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FUZZ_CHECK(expr)						\
	do {								\
		if (!(expr))						\
			fuzz_fail(__FILE__, __LINE__, #expr);		\
	} while (0)

/*
 * Reports a failed FUZZ_CHECK and aborts. With FUZZ_GDB set in the
 * environment, gdb first prints the stack of every thread: what a hang
 * (a wait that ran out) was waiting for; a value other than 1 is more of
 * gdb's arguments (FUZZ_GDB="-ex 'p *(struct sd_ep *)g.ep'").
 */
static inline void __attribute__((noreturn, unused))
fuzz_fail(const char *file, int line, const char *expr)
{
	const char *gdb = getenv("FUZZ_GDB");

	fprintf(stderr, "%s:%d: FUZZ_CHECK(%s) failed\n", file, line, expr);
	if (gdb != NULL) {
		char cmd[1024];

		snprintf(cmd, sizeof(cmd), "gdb -p %d -batch -ex 'thread apply "
			 "all bt' %s >&2 </dev/null", (int)getpid(),
			 strcmp(gdb, "1") != 0 ? gdb : "");
		if (system(cmd) != 0)
			fprintf(stderr, "fuzz: gdb failed\n");
	}
	abort();
}

#endif
