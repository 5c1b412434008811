/*
 * test-runner-self.c - tests of the test runner itself: the environment a
 * test gets, helpers and their readiness pipe, test_run_cmd, and how the
 * runner reports passes, skips, failures, crashes and timeouts.
 *
 * The reporting tests run the runner again (test_self_exe()) on the hidden
 * runner_selftest_fail_* tests, which fail on purpose, and read its output.
 * The nested runner gets TMPDIR=$TEST_TMPDIR/inner, so the directories it
 * keeps for failed tests go away with ours.
 */
#include "test.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether pid is gone (or a zombie nobody reaps) within timeout_ms. */
static int pid_gone(pid_t pid, unsigned int timeout_ms)
{
	uint64_t deadline = test_now_ms() + timeout_ms;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (;;) {
		char *stat;
		const char *paren;

		if (kill(pid, 0) < 0 && errno == ESRCH)
			return 1;
		stat = test_read_file(path);
		if (stat == NULL)
			return 1;
		paren = strrchr(stat, ')');
		if (paren != NULL && (paren[2] == 'Z' || paren[2] == 'X')) {
			free(stat);
			return 1;
		}
		free(stat);
		if (test_now_ms() >= deadline)
			return 0;
		test_sleep_ms(20);
	}
}

/* Number of entries in dir, not counting . and .. */
static int dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	ASSERT_NOT_NULL(d);
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

/* The last line of text, copied into buf. */
static const char *last_line(const char *text, char *buf, size_t len)
{
	size_t n = strlen(text);
	const char *start;

	while (n > 0 && text[n - 1] == '\n')
		n--;
	start = text + n;
	while (start > text && start[-1] != '\n')
		start--;
	snprintf(buf, len, "%.*s", (int)(text + n - start), start);
	return buf;
}

/*
 * Run the runner with args (NULL-terminated) in $TEST_TMPDIR/inner; its
 * wait status in *status, its output in *out (free it).
 */
static void run_self(int *status, char **out, ...)
{
	const char *argv[32];
	const char *inner = test_path("inner");
	va_list ap;
	int n = 0, r;

	mkdir(inner, 0700);
	test_setenv("TMPDIR", inner);
	argv[n++] = test_self_exe();
	va_start(ap, out);
	while (n < 31 && (argv[n] = va_arg(ap, const char *)) != NULL)
		n++;
	va_end(ap);
	argv[n] = NULL;
	r = test_run_cmd(60, status, out, argv);
	if (r < 0)
		printf("%s", *out ? *out : "");
	ASSERT_OK(r);
	printf("--- nested run-tests output ---\n%s--- end ---\n", *out);
}

/* ------------------------------------------------------------------------
 * What a test gets.
 */

TEST_IMPL(runner_pass)
{
	char cwd[4096], real[4096];
	struct stat st;
	char *content;
	char c;

	/* Its own empty directory, which is also its cwd. */
	ASSERT_NOT_NULL(getcwd(cwd, sizeof(cwd)));
	ASSERT_NOT_NULL(realpath(test_tmpdir(), real));
	ASSERT_STR_EQ(cwd, real);
	ASSERT_EQ(dir_entries("."), 0);
	ASSERT_STR_EQ(getenv("TEST_TMPDIR"), test_tmpdir());

	/* The build directory, and stdin that reads nothing. */
	ASSERT_OK(stat(test_builddir(), &st));
	ASSERT(S_ISDIR(st.st_mode));
	ASSERT_EQ(read(STDIN_FILENO, &c, 1), 0);

	/* Files and the environment. */
	test_write_file("a.txt", "hello\n");
	content = test_read_file(test_path("a.txt"));
	ASSERT_STR_EQ(content, "hello\n");
	free(content);
	ASSERT_NULL(test_read_file("missing.txt"));

	ASSERT_STR_EQ(test_dat_conf("ofa-v2-tcp u2.0 nonthreadsafe default "
	    "libdaplsoft.so.2 dapl.2.0 \"lo 0\" \"\"\n"),
	    test_path("dat.conf"));
	ASSERT_STR_EQ(getenv("DAT_OVERRIDE"), test_path("dat.conf"));
	content = test_read_file("dat.conf");
	ASSERT_STR_CONTAINS(content, "ofa-v2-tcp");
	free(content);

	test_setenv("RUNNER_SELF_X", "1");
	ASSERT_STR_EQ(getenv("RUNNER_SELF_X"), "1");
	test_setenv("RUNNER_SELF_X", NULL);
	ASSERT_NULL(getenv("RUNNER_SELF_X"));

	ASSERT_GT(test_timeout_scale(), 0);
	ASSERT_EQ(access(test_self_exe(), X_OK), 0);
	ASSERT_NOT_NULL(test_find_program("sh"));
	ASSERT_NULL(test_find_program("no-such-program-softdapl"));
	return 0;
}

TEST_IMPL(runner_skip)
{
	TEST_SKIP("runner self-test of TEST_SKIP");
}

/* ------------------------------------------------------------------------
 * Helpers: a TCP server on port 0 that says which port it got.
 */

HELPER_IMPL(runner_tcp_echo)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	char buf[256], reply[512];
	ssize_t n;
	size_t got = 0;
	int lfd, fd;

	ASSERT_EQ(argc, 2);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_GE(lfd, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = 0;
	ASSERT_OK(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)));
	ASSERT_OK(listen(lfd, 1));
	ASSERT_OK(getsockname(lfd, (struct sockaddr *)&sa, &len));
	test_helper_ready("%d", ntohs(sa.sin_port));

	fd = accept(lfd, NULL, NULL);
	ASSERT_GE(fd, 0);
	while (got < sizeof(buf) - 1 && memchr(buf, '\n', got) == NULL) {
		n = read(fd, buf + got, sizeof(buf) - 1 - got);
		ASSERT_GT(n, 0);
		got += (size_t)n;
	}
	buf[got] = '\0';
	n = snprintf(reply, sizeof(reply), "%s:%s", argv[1], buf);
	ASSERT_EQ(write(fd, reply, (size_t)n), n);
	close(fd);
	close(lfd);
	return 0;
}

HELPER_IMPL(runner_exit_early)
{
	return 3;
}

TEST_IMPL(runner_helper_tcp)
{
	test_helper_t *h;
	struct sockaddr_in sa;
	const char *line;
	char buf[256];
	size_t got = 0;
	ssize_t n;
	int fd, port, status;

	h = test_spawn_helper("runner_tcp_echo", "hello-arg", NULL);
	ASSERT_GT(test_helper_pid(h), 0);
	ASSERT_OK(test_helper_wait_ready(h, &line));
	port = atoi(line);
	ASSERT_GT(port, 0);
	ASSERT_LT(port, 65536);
	/* Asking again gives the same line. */
	ASSERT_OK(test_helper_wait_ready(h, &line));
	ASSERT_EQ(atoi(line), port);

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_GE(fd, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons((uint16_t)port);
	ASSERT_OK(connect(fd, (struct sockaddr *)&sa, sizeof(sa)));
	ASSERT_EQ(write(fd, "ping\n", 5), 5);
	while ((n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += (size_t)n;
	ASSERT_EQ(n, 0);
	buf[got] = '\0';
	ASSERT_STR_EQ(buf, "hello-arg:ping\n");
	close(fd);

	ASSERT_OK(test_helper_wait(h, 10, &status));
	ASSERT_EXIT_OK(status);
	/* Waiting again returns the same status. */
	ASSERT_OK(test_helper_wait(h, 0, &status));
	ASSERT_EXIT_OK(status);
	test_helper_free(h);
	return 0;
}

TEST_IMPL(runner_helper_exit_early)
{
	test_helper_t *h;
	const char *line = NULL;
	int status;

	/* A helper that dies before it is ready: no hanging, -EPIPE. */
	h = test_spawn_helper("runner_exit_early", NULL);
	ASSERT_EQ(test_helper_wait_ready(h, &line), -EPIPE);
	ASSERT_NULL(line);
	ASSERT_OK(test_helper_wait(h, 10, &status));
	ASSERT_EXIT_CODE(status, 3);
	test_helper_free(h);

	/* A helper that never gets ready: the wait times out, and freeing
	 * the handle kills it. */
	h = test_spawn_helper("runner_sleeper", "quiet", NULL);
	ASSERT_EQ(test_helper_wait(h, 0, &status), -ETIMEDOUT);
	ASSERT_OK(test_helper_kill(h, SIGTERM));
	ASSERT_OK(test_helper_wait(h, 10, &status));
	ASSERT(WIFSIGNALED(status));
	ASSERT_EQ(WTERMSIG(status), SIGTERM);
	test_helper_free(h);

	/* Freeing a running helper kills it. */
	test_helper_free(test_spawn_helper("runner_sleeper", "quiet", NULL));
	return 0;
}

/*
 * Sleeps until killed.  Unless its argument is "quiet" it first writes its
 * pid to helper.pid in the test's directory and says it is ready.
 */
HELPER_IMPL(runner_sleeper)
{
	if (argc < 2 || strcmp(argv[1], "quiet") != 0) {
		char pid[32];

		snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
		test_write_file("helper.pid", pid);
		test_helper_ready("sleeping");
	}
	for (;;)
		pause();
}

/* ------------------------------------------------------------------------
 * test_run_cmd and test_spawn_cmd.
 */

TEST_IMPL(runner_run_cmd)
{
	static char sentinel;
	char *out;
	int status;

	ASSERT_OK(test_run_cmdl(10, &status, &out, "sh", "-c",
	    "echo to-stdout; echo to-stderr >&2; echo \"$RUNNER_SELF_ENV\"; "
	    "exit 3", NULL));
	ASSERT_EXIT_CODE(status, 3);
	ASSERT_STR_CONTAINS(out, "to-stdout\n");
	ASSERT_STR_CONTAINS(out, "to-stderr\n");
	free(out);

	/* The environment is passed through. */
	test_setenv("RUNNER_SELF_ENV", "passed-through");
	ASSERT_OK(test_run_cmdl(10, &status, &out, "sh", "-c",
	    "echo \"$RUNNER_SELF_ENV\"", NULL));
	ASSERT_EXIT_OK(status);
	ASSERT_STR_EQ(out, "passed-through\n");
	free(out);

	/* No output wanted: it goes to the test's own. */
	ASSERT_OK(test_run_cmdl(10, &status, NULL, "true", NULL));
	ASSERT_EXIT_OK(status);

	/* Large output does not block. */
	ASSERT_OK(test_run_cmdl(10, &status, &out, "sh", "-c",
	    "i=0; while [ $i -lt 20000 ]; do echo 0123456789; i=$((i+1)); "
	    "done", NULL));
	ASSERT_EXIT_OK(status);
	ASSERT_EQ(strlen(out), 20000 * 11);
	free(out);

	/* A program that is not there. */
	out = &sentinel;
	ASSERT_EQ(test_run_cmdl(10, &status, &out, "no-such-program-softdapl",
	    NULL), -ENOENT);
	ASSERT_NULL(out);
	ASSERT_EQ(test_run_cmdl(10, &status, &out, "/nonexistent/prog",
	    NULL), -ENOENT);
	ASSERT_NULL(out);
	return 0;
}

TEST_IMPL(runner_run_cmd_timeout)
{
	uint64_t t0, limit;
	char *out;
	int status, pid;

	/* sleep 100 with a 1 s timeout: killed by SIGTERM. */
	limit = (uint64_t)(test_timeout_scale() * 1000) + 1500;
	t0 = test_now_ms();
	ASSERT_EQ(test_run_cmdl(1, &status, &out, "sleep", "100", NULL),
	    -ETIMEDOUT);
	ASSERT_LT(test_now_ms() - t0, limit);
	ASSERT(WIFSIGNALED(status));
	ASSERT_EQ(WTERMSIG(status), SIGTERM);
	ASSERT_STR_EQ(out, "");
	free(out);

	/* The whole process group goes, and SIGKILL follows SIGTERM: the
	 * shell ignores SIGTERM, its background sleep does not. */
	t0 = test_now_ms();
	ASSERT_EQ(test_run_cmdl(1, &status, &out, "sh", "-c",
	    "trap '' TERM; sleep 100 & echo $!; wait; sleep 100", NULL),
	    -ETIMEDOUT);
	ASSERT_GE(test_now_ms() - t0, 2000);
	ASSERT_LT(test_now_ms() - t0, limit + 2000);
	ASSERT(WIFSIGNALED(status));
	ASSERT_EQ(WTERMSIG(status), SIGKILL);
	pid = atoi(out);
	ASSERT_GT(pid, 0);
	ASSERT(pid_gone(pid, 2000));
	free(out);

	/* A program that exits leaving a child behind that holds the
	 * output pipe: the child is killed with the group, nobody hangs. */
	t0 = test_now_ms();
	ASSERT_OK(test_run_cmdl(30, &status, &out, "sh", "-c",
	    "sleep 100 & echo $!", NULL));
	ASSERT_LT(test_now_ms() - t0, 5000);
	ASSERT_EXIT_OK(status);
	pid = atoi(out);
	ASSERT_GT(pid, 0);
	ASSERT(pid_gone(pid, 2000));
	free(out);
	return 0;
}

TEST_IMPL(runner_spawn_cmd)
{
	const char *const argv[] = {
		"sh", "-c",
		"echo starting; echo Service Point Ready; "
		    "exec sleep 100",
		NULL
	};
	const char *const quick[] = {
		"sh", "-c", "echo done; exit 4", NULL
	};
	test_helper_t *h;
	int status;

	h = test_spawn_cmd(argv);
	ASSERT_OK(test_helper_wait_output(h, "Service Point Ready", 10));
	ASSERT_STR_CONTAINS(test_helper_output(h), "starting\n");
	ASSERT_EQ(test_helper_wait(h, 0, &status), -ETIMEDOUT);
	ASSERT_OK(test_helper_kill(h, SIGTERM));
	ASSERT_OK(test_helper_wait(h, 10, &status));
	ASSERT(WIFSIGNALED(status));
	ASSERT_EQ(WTERMSIG(status), SIGTERM);
	test_helper_free(h);

	/* Output never printed, program gone: -EPIPE, not a hang. */
	h = test_spawn_cmd(quick);
	ASSERT_EQ(test_helper_wait_output(h, "never printed", 10), -EPIPE);
	ASSERT_OK(test_helper_wait(h, 10, &status));
	ASSERT_EXIT_CODE(status, 4);
	ASSERT_STR_EQ(test_helper_output(h), "done\n");
	test_helper_free(h);
	return 0;
}

/* ------------------------------------------------------------------------
 * The runner's reports, checked by running it again.
 */

TEST_IMPL(runner_reports_format)
{
	char *out, buf[256];
	int status;

	/* A pass and a skip, two at a time. */
	run_self(&status, &out, "-j", "2", "runner_pass", "runner_skip",
	    NULL);
	ASSERT_EXIT_OK(status);
	ASSERT_EQ(strncmp(out, "1..2\n", 5), 0);
	ASSERT_STR_CONTAINS(out, " - runner_pass (");
	ASSERT_STR_CONTAINS(out,
	    " - runner_skip # SKIP runner self-test of TEST_SKIP\n");
	ASSERT_STR_CONTAINS(out, "ok 1 - ");
	ASSERT_STR_CONTAINS(out, "ok 2 - ");
	ASSERT_NULL(strstr(out, "not ok"));
	ASSERT_STR_EQ(last_line(out, buf, sizeof(buf)),
	    "1 passed, 0 failed, 1 skipped");
	/* The directories of tests that did not fail are removed. */
	ASSERT_EQ(dir_entries(test_path("inner")), 0);
	free(out);

	/* Without skips the last line has no skip count; -v shows the
	 * output of passing tests, behind "#". */
	run_self(&status, &out, "-v", "runner_pass", NULL);
	ASSERT_EXIT_OK(status);
	ASSERT_STR_CONTAINS(out, "ok 1 - runner_pass (");
	ASSERT_STR_EQ(last_line(out, buf, sizeof(buf)), "1 passed, 0 failed");
	free(out);

	/* --list names the visible tests only. */
	run_self(&status, &out, "--list", NULL);
	ASSERT_EXIT_OK(status);
	ASSERT_STR_CONTAINS(out, "runner_pass\n");
	ASSERT_NULL(strstr(out, "runner_selftest_fail_assert"));
	free(out);

	/* Globs match visible tests only; a name that matches nothing is
	 * an error, not an empty run. */
	run_self(&status, &out, "--list", "-v", NULL);
	ASSERT_STR_CONTAINS(out, "runner_selftest_fail_assert (hidden)\n");
	free(out);
	run_self(&status, &out, "runner_selftest_fail_*", NULL);
	ASSERT_EXIT_CODE(status, 2);
	ASSERT_STR_CONTAINS(out, "no test matches 'runner_selftest_fail_*'");
	free(out);
	run_self(&status, &out, "runner_no_such_test", NULL);
	ASSERT_EXIT_CODE(status, 2);
	free(out);
	return 0;
}

TEST_IMPL(runner_selftest_fail_assert)
{
	int two = 1 + 1;

	printf("output before the failure\n");
	fprintf(stderr, "and on stderr\n");
	ASSERT_EQ(two, 3);
	return 0;
}

TEST_IMPL(runner_selftest_fail_return)
{
	return 5;
}

TEST_IMPL(runner_selftest_fail_exit)
{
	exit(3);
}

TEST_IMPL(runner_selftest_fail_crash)
{
	struct rlimit rl = { 0, 0 };

	setrlimit(RLIMIT_CORE, &rl);
	signal(SIGABRT, SIG_DFL);
	raise(SIGABRT);
	return 0;
}

TEST_IMPL(runner_selftest_fail_timeout)
{
	test_helper_t *h;

	/* A helper that the runner must kill with us, and a test that
	 * ignores SIGTERM so that SIGKILL has to follow. */
	h = test_spawn_helper("runner_sleeper", NULL);
	ASSERT_OK(test_helper_wait_ready(h, NULL));
	signal(SIGTERM, SIG_IGN);
	printf("waiting to be killed\n");
	for (;;)
		pause();
}

TEST_IMPL(runner_reports_failures)
{
	char *out, buf[256], kept[4200];
	glob_t g;
	int status;

	run_self(&status, &out, "runner_selftest_fail_assert",
	    "runner_selftest_fail_return", "runner_selftest_fail_exit",
	    "runner_selftest_fail_crash", NULL);
	ASSERT_EXIT_CODE(status, 1);
	ASSERT_EQ(strncmp(out, "1..4\n", 5), 0);
	ASSERT_STR_CONTAINS(out, "not ok 1 - runner_selftest_fail_assert: ");
	ASSERT_STR_CONTAINS(out, "test-runner-self.c:");
	ASSERT_STR_CONTAINS(out, ": ASSERT_EQ(two, 3) failed: 2 != 3\n");
	ASSERT_STR_CONTAINS(out, "#   output before the failure\n");
	ASSERT_STR_CONTAINS(out, "#   and on stderr\n");
	ASSERT_STR_CONTAINS(out,
	    "not ok 2 - runner_selftest_fail_return: returned 5\n");
	ASSERT_STR_CONTAINS(out,
	    "not ok 3 - runner_selftest_fail_exit: exit status 3\n");
	ASSERT_STR_CONTAINS(out, "not ok 4 - runner_selftest_fail_crash: "
	    "killed by signal SIGABRT\n");
	ASSERT_STR_EQ(last_line(out, buf, sizeof(buf)), "0 passed, 4 failed");

	/* Every failed test's directory is kept, and its path printed. */
	ASSERT_OK(glob(test_path("inner/t-runner_selftest_fail_*"), 0, NULL,
	    &g));
	ASSERT_EQ(g.gl_pathc, 4);
	snprintf(kept, sizeof(kept), "#   test directory kept: %s\n",
	    g.gl_pathv[0]);
	ASSERT_STR_CONTAINS(out, kept);
	globfree(&g);
	free(out);
	return 0;
}

TEST_IMPL(runner_reports_timeout)
{
	char *out, buf[256], want[128], *pidtext;
	uint64_t t0;
	glob_t g;
	int status, pid;

	t0 = test_now_ms();
	run_self(&status, &out, "runner_selftest_fail_timeout", NULL);
	ASSERT_EXIT_CODE(status, 1);
	/* The test ignores SIGTERM: SIGKILL comes 2 s later. */
	ASSERT_GE(test_now_ms() - t0, 3000);
	snprintf(want, sizeof(want), "not ok 1 - runner_selftest_fail_timeout:"
	    " timeout after %g s\n", 1 * test_timeout_scale());
	ASSERT_STR_CONTAINS(out, want);
	ASSERT_STR_CONTAINS(out, "#   waiting to be killed\n");
	ASSERT_STR_EQ(last_line(out, buf, sizeof(buf)), "0 passed, 1 failed");

	/* The test's helper died with it. */
	ASSERT_OK(glob(test_path("inner/t-runner_selftest_fail_timeout-*/"
	    "helper.pid"), 0, NULL, &g));
	ASSERT_EQ(g.gl_pathc, 1);
	pidtext = test_read_file(g.gl_pathv[0]);
	ASSERT_NOT_NULL(pidtext);
	pid = atoi(pidtext);
	ASSERT_GT(pid, 0);
	ASSERT(pid_gone(pid, 2000));
	free(pidtext);
	globfree(&g);
	free(out);
	return 0;
}
