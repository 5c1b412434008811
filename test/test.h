/*
 * test.h - the softdapl test API: how a test is written, what it may assert,
 * and the helpers it may call.  Everything here is implemented in runner.c.
 *
 * A test is a function in test/test-<area>.c:
 *
 *	TEST_IMPL(registry_parse_table)
 *	{
 *		ASSERT_EQ(parse("x"), 0);
 *		return 0;
 *	}
 *
 * registered once in test/test-list.h.  Each test runs in a process of its
 * own, in a fresh temporary directory that is also its working directory, so
 * it may change the environment, the cwd and global state freely.  A test
 * passes when it returns 0, is skipped through TEST_SKIP("why"), and fails
 * when an assertion fails, when it returns anything else, when it crashes or
 * when it runs out of time.
 *
 * Every timeout given to this API is in seconds and is multiplied by the
 * environment variable TEST_TIMEOUT_SCALE (default 1), like the runner's own
 * per-test timeouts, so that sanitizer builds can be given more time in one
 * place.
 *
 * This header needs nothing but libc.  It does not include the DAT headers:
 * ASSERT_OK and ASSERT_DAT_EQ work on any integer, DAT_RETURN included.
 */
#ifndef SOFTDAPL_TEST_H_
#define SOFTDAPL_TEST_H_

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>

/* Exit status that means "skipped" (the automake convention). */
#define TEST_SKIP_CODE 77

#if defined(__GNUC__) || defined(__clang__)
#define TEST__NORETURN __attribute__((noreturn))
#define TEST__PRINTF(f, a) __attribute__((format(printf, f, a)))
#define TEST__SENTINEL __attribute__((sentinel))
#define TEST__UNUSED __attribute__((unused))
#else
#define TEST__NORETURN
#define TEST__PRINTF(f, a)
#define TEST__SENTINEL
#define TEST__UNUSED
#endif

/*
 * TEST_IMPL(name) { ... return 0; } defines a test.
 * HELPER_IMPL(name) { ... } defines a helper process body: it gets argc and
 * argv like main(), argv[0] being the helper's name and argv[1..] the
 * arguments given to test_spawn_helper().  Its return value is its exit
 * status.
 */
#define TEST_IMPL(name)						\
	int run_test_##name(void);					\
	int run_test_##name(void)

#define HELPER_IMPL(name)						\
	int run_helper_##name(int argc, char **argv);			\
	int run_helper_##name(int argc TEST__UNUSED, char **argv TEST__UNUSED)

/*
 * Skip the running test at run time, e.g. when a Debian binary the test
 * needs is not installed.  The reason is printed on the result line.
 */
#define TEST_SKIP(reason) return test__skip(reason)

/* ------------------------------------------------------------------------
 * Assertions.  A failed assertion prints "file:line: what failed: values"
 * to stderr and as the reason on the test's result line, then ends the
 * process with status 1 at once (no abort(), no core file, no atexit
 * handlers, so a failed test is not also reported for the leaks it left).
 * An assertion may fail in any thread of the test or in a helper process.
 */

#define ASSERT(expr)							\
	do {								\
		if (!(expr))						\
			test__fail(__FILE__, __LINE__,			\
			    "ASSERT(%s) failed", #expr);		\
	} while (0)

/* Integer comparisons: both sides are converted to int64_t. */
#define ASSERT__INT(name, a, op, nop, b)				\
	do {								\
		int64_t test__a = (int64_t)(a);				\
		int64_t test__b = (int64_t)(b);				\
		if (!(test__a op test__b))				\
			test__fail(__FILE__, __LINE__,			\
			    "%s(%s, %s) failed: %" PRId64 " %s %" PRId64, \
			    name, #a, #b, test__a, nop, test__b);	\
	} while (0)

#define ASSERT_EQ(a, b) ASSERT__INT("ASSERT_EQ", a, ==, "!=", b)
#define ASSERT_NE(a, b) ASSERT__INT("ASSERT_NE", a, !=, "==", b)
#define ASSERT_LT(a, b) ASSERT__INT("ASSERT_LT", a, <, ">=", b)
#define ASSERT_LE(a, b) ASSERT__INT("ASSERT_LE", a, <=, ">", b)
#define ASSERT_GT(a, b) ASSERT__INT("ASSERT_GT", a, >, "<=", b)
#define ASSERT_GE(a, b) ASSERT__INT("ASSERT_GE", a, >=, "<", b)

/* Unsigned 64-bit comparison, for values beyond INT64_MAX. */
#define ASSERT_UINT64_EQ(a, b)						\
	do {								\
		uint64_t test__a = (uint64_t)(a);			\
		uint64_t test__b = (uint64_t)(b);			\
		if (test__a != test__b)					\
			test__fail(__FILE__, __LINE__,			\
			    "ASSERT_UINT64_EQ(%s, %s) failed: 0x%" PRIx64 \
			    " != 0x%" PRIx64, #a, #b, test__a, test__b); \
	} while (0)

/*
 * ASSERT_OK(r): r == 0, for a DAT_RETURN (DAT_SUCCESS is 0), a negative
 * errno or a libc status.  The value is printed in hex (how DAT_RETURN
 * values read) and in decimal (how errno values read).
 */
#define ASSERT_OK(r)							\
	do {								\
		int64_t test__r = (int64_t)(r);				\
		if (test__r != 0)					\
			test__fail(__FILE__, __LINE__,			\
			    "ASSERT_OK(%s) failed: 0x%08" PRIx32	\
			    " (%" PRId64 ")", #r, (uint32_t)test__r,	\
			    test__r);					\
	} while (0)

/* ASSERT_DAT_EQ(ret, DAT_INVALID_PARAMETER): DAT_RETURN values, in hex. */
#define ASSERT_DAT_EQ(ret, expected)					\
	do {								\
		uint32_t test__a = (uint32_t)(ret);			\
		uint32_t test__b = (uint32_t)(expected);		\
		if (test__a != test__b)					\
			test__fail(__FILE__, __LINE__,			\
			    "ASSERT_DAT_EQ(%s, %s) failed: 0x%08" PRIx32 \
			    " != 0x%08" PRIx32, #ret, #expected,	\
			    test__a, test__b);				\
	} while (0)

/* Strings; NULL is allowed on either side and equals only NULL. */
#define ASSERT__STR(name, a, eq, nop, b)				\
	do {								\
		const char *test__a = (a);				\
		const char *test__b = (b);				\
		int test__eq = test__a == NULL || test__b == NULL ?	\
		    test__a == test__b : strcmp(test__a, test__b) == 0;	\
		if (test__eq != (eq))					\
			test__fail(__FILE__, __LINE__,			\
			    "%s(%s, %s) failed: %s%s%s %s %s%s%s", name, \
			    #a, #b, test__a ? "\"" : "",		\
			    test__a ? test__a : "NULL",			\
			    test__a ? "\"" : "", nop,			\
			    test__b ? "\"" : "",			\
			    test__b ? test__b : "NULL",			\
			    test__b ? "\"" : "");			\
	} while (0)

#define ASSERT_STR_EQ(a, b) ASSERT__STR("ASSERT_STR_EQ", a, 1, "!=", b)
#define ASSERT_STR_NE(a, b) ASSERT__STR("ASSERT_STR_NE", a, 0, "==", b)

/* haystack contains needle (both non-NULL); prints the haystack. */
#define ASSERT_STR_CONTAINS(haystack, needle)				\
	do {								\
		const char *test__h = (haystack);			\
		const char *test__n = (needle);				\
		if (test__h == NULL || test__n == NULL ||		\
		    strstr(test__h, test__n) == NULL)			\
			test__fail(__FILE__, __LINE__,			\
			    "ASSERT_STR_CONTAINS(%s, %s) failed: "	\
			    "\"%s\" not found in \"%s\"", #haystack,	\
			    #needle, test__n ? test__n : "NULL",	\
			    test__h ? test__h : "NULL");		\
	} while (0)

#define ASSERT_MEM_EQ(a, b, len)					\
	do {								\
		if (memcmp((a), (b), (len)) != 0)			\
			test__fail(__FILE__, __LINE__,			\
			    "ASSERT_MEM_EQ(%s, %s, %s) failed",		\
			    #a, #b, #len);				\
	} while (0)

#define ASSERT__PTR(name, a, op, nop, b)				\
	do {								\
		const void *test__a = (const void *)(a);		\
		const void *test__b = (const void *)(b);		\
		if (!(test__a op test__b))				\
			test__fail(__FILE__, __LINE__,			\
			    "%s(%s, %s) failed: %p %s %p", name, #a, #b, \
			    test__a, nop, test__b);			\
	} while (0)

#define ASSERT_PTR_EQ(a, b) ASSERT__PTR("ASSERT_PTR_EQ", a, ==, "!=", b)
#define ASSERT_PTR_NE(a, b) ASSERT__PTR("ASSERT_PTR_NE", a, !=, "==", b)
#define ASSERT_NULL(p)							\
	do {								\
		const void *test__p = (const void *)(p);		\
		if (test__p != NULL)					\
			test__fail(__FILE__, __LINE__,			\
			    "ASSERT_NULL(%s) failed: %p", #p, test__p);	\
	} while (0)
#define ASSERT_NOT_NULL(p)						\
	do {								\
		if ((const void *)(p) == NULL)				\
			test__fail(__FILE__, __LINE__,			\
			    "ASSERT_NOT_NULL(%s) failed", #p);		\
	} while (0)

/*
 * ASSERT_EXIT_CODE(status, code): a wait status (from test_helper_wait or
 * test_run_cmd) is a normal exit with that code; the failure message says
 * what happened instead ("killed by signal SIGSEGV").
 */
#define ASSERT_EXIT_CODE(status, code)					\
	do {								\
		int test__s = (status);					\
		int test__c = (code);					\
		if (!WIFEXITED(test__s) ||				\
		    WEXITSTATUS(test__s) != test__c) {			\
			char test__buf[64];				\
			test__fail(__FILE__, __LINE__,			\
			    "ASSERT_EXIT_CODE(%s, %s) failed: %s, "	\
			    "expected exit status %d", #status, #code,	\
			    test_status_str(test__s, test__buf,		\
			    sizeof(test__buf)), test__c);		\
		}							\
	} while (0)
#define ASSERT_EXIT_OK(status) ASSERT_EXIT_CODE(status, 0)

/* Fail the test with a message of one's own. */
#define TEST_FAIL(...) test__fail(__FILE__, __LINE__, __VA_ARGS__)

/* ------------------------------------------------------------------------
 * The test's environment.  Returned strings stay valid until the process
 * ends; the caller does not free them.  Functions that return void end the
 * test with a failure when they cannot do their job.
 */

/* The test's own temporary directory ($TEST_TMPDIR, also the cwd). */
const char *test_tmpdir(void);

/* $TEST_TMPDIR/name. */
const char *test_path(const char *name);

/*
 * The directory of the run-tests binary ($TEST_BUILDDIR unless it was set
 * before the runner started), where the build puts what tests load.
 */
const char *test_builddir(void);

/* Absolute path of the running binary, to run the runner itself. */
const char *test_self_exe(void);

/* TEST_TIMEOUT_SCALE, or 1. */
double test_timeout_scale(void);

/* Create or truncate path (relative to the cwd) and write content. */
void test_write_file(const char *path, const char *content);

/* The whole file, NUL-terminated, malloc'd (free it); NULL if unreadable. */
char *test_read_file(const char *path);

/* setenv(name, value, 1), or unsetenv(name) when value is NULL. */
void test_setenv(const char *name, const char *value);

/*
 * Write content to $TEST_TMPDIR/dat.conf and point DAT_OVERRIDE at it.
 * Returns the file's path.
 */
const char *test_dat_conf(const char *content);

/* Monotonic milliseconds, and a sleep that resumes after signals. */
uint64_t test_now_ms(void);
void test_sleep_ms(unsigned int ms);

/* "exit status 3", "killed by signal SIGSEGV (core dumped)"... into buf. */
const char *test_status_str(int status, char *buf, size_t len);

/* Name of a signal ("SIGSEGV"), or "signal N" in a static buffer. */
const char *test_signal_name(int sig);

/* ------------------------------------------------------------------------
 * Child processes.
 *
 * A helper is this same binary run as `run-tests --helper NAME args...`,
 * registered with HELPER_ENTRY(NAME) and written with HELPER_IMPL(NAME).  It
 * stays in the test's process group and dies with the test: the runner
 * kills the test's whole group when the test ends, however it ends, and a
 * helper is also killed (PR_SET_PDEATHSIG) when the thread that spawned it
 * exits, so spawn helpers from the test's main thread.  Its stdout and
 * stderr go where the test's go, into the output shown on failure.
 *
 * A server helper binds port 0, reads back the port the kernel gave it and
 * calls test_helper_ready("%d", port); the test calls
 * test_helper_wait_ready(h, &line) and reads the port from line.  Nobody
 * sleeps and hopes.
 *
 * test_spawn_cmd runs an external program (e.g. Debian's dapltest) the same
 * way, with its output captured into a file in the test's directory, for
 * servers that announce readiness by printing a line.
 *
 * The functions that return int return 0 or a negative errno.
 */
typedef struct test_helper test_helper_t;

/* Spawn helper NAME with arguments, NULL-terminated.  Never NULL. */
test_helper_t *test_spawn_helper(const char *name, ...) TEST__SENTINEL;
test_helper_t *test_spawn_helperv(const char *name, const char *const argv[]);

/*
 * Run argv (argv[0] is looked up in PATH) in the background, stdout and
 * stderr into a file $TEST_TMPDIR/<basename>-<pid>.log.  Never NULL: a
 * program that cannot be executed ends the test with a failure (check
 * with test_find_program first when it may be missing).
 */
test_helper_t *test_spawn_cmd(const char *const argv[]);

/*
 * Wait up to 30 s (scaled) for the helper's readiness line.  On success
 * *line (if line is not NULL) is the line without its newline, owned by the
 * handle.  Returns -ETIMEDOUT, or -EPIPE when the helper exited or closed
 * the pipe without a line.  Only for helpers.
 */
int test_helper_wait_ready(test_helper_t *h, const char **line);

/*
 * Wait up to timeout_s (scaled) until the captured output of a process
 * started by test_spawn_cmd contains needle.  Returns -ETIMEDOUT, or -EPIPE
 * when the process exited without printing it.
 */
int test_helper_wait_output(test_helper_t *h, const char *needle,
    int timeout_s);

/* What the process started by test_spawn_cmd printed so far. */
const char *test_helper_output(test_helper_t *h);

/*
 * Wait up to timeout_s (scaled; 0 = just look) for the process to exit and
 * store its wait status in *status (if not NULL).  Returns -ETIMEDOUT if it
 * is still running.  Waiting again after it exited returns the same status.
 */
int test_helper_wait(test_helper_t *h, int timeout_s, int *status);

/* Send a signal to the process (not to its group). */
int test_helper_kill(test_helper_t *h, int sig);

pid_t test_helper_pid(const test_helper_t *h);

/* Kill the process if it still runs (SIGKILL), reap it, free the handle. */
void test_helper_free(test_helper_t *h);

/*
 * In a helper: report readiness with one line (formatted like printf, no
 * newline needed) to the test waiting in test_helper_wait_ready.  Call it
 * once; when the helper was not started by a test it prints the line to
 * stdout instead.
 */
void test_helper_ready(const char *fmt, ...) TEST__PRINTF(1, 2);

/*
 * Run argv (argv[0] looked up in PATH) to completion, in a process group of
 * its own, with the environment passed through and stdin from /dev/null.
 * If output is not NULL, stdout and stderr are captured together into
 * *output (malloc'd, NUL-terminated; free it); else they go where the
 * test's go.  If status is not NULL it receives the wait status.
 *
 * Returns 0 when the program ended by itself (whatever its status),
 * -ETIMEDOUT when it ran past timeout_s (scaled) and was killed with its
 * whole process group (SIGTERM, then SIGKILL after 2 s; *status and
 * *output are still set), or -errno when it could not be started (-ENOENT
 * for a missing program; *output is then NULL).  Whatever is left in the
 * program's process group when it exits is killed.
 */
int test_run_cmd(int timeout_s, int *status, char **output,
    const char *const argv[]);

/* The same, with the arguments listed: test_run_cmdl(10, &st, &out, "ls",
 * "-l", NULL). */
int test_run_cmdl(int timeout_s, int *status, char **output,
    const char *arg0, ...) TEST__SENTINEL;

/* The full path of program as found in PATH, or NULL. */
const char *test_find_program(const char *program);

/* ------------------------------------------------------------------------
 * Internals used by the macros above.
 */
void test__fail(const char *file, int line, const char *fmt, ...)
    TEST__PRINTF(3, 4) TEST__NORETURN;
int test__skip(const char *reason);

#endif /* SOFTDAPL_TEST_H_ */
