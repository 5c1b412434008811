/*
 * runner.c - softdapl's test runner, built as run-tests with every
 * test/test-*.c file.  Modelled on libuv's: the runner re-executes itself
 * once per test, so every test starts in a clean process, in a fresh
 * temporary directory, with a timeout, and its output is shown only when it
 * fails.  test/README says how to use it; test/test.h is the API a test sees.
 *
 * One binary, three modes:
 *
 *	run-tests [options] [NAME|GLOB]...	the runner (main_runner)
 *	run-tests --run-one NAME [--result-fd N] one test, in this process
 *	run-tests --helper NAME [ARG]...	one helper process
 *
 * The runner is single-threaded.  It forks one child per test; the child
 * puts itself in a process group of its own, moves into the test's
 * directory, sends stdout and stderr into an unlinked temporary file and
 * executes /proc/self/exe --run-one NAME.  The runner watches its children
 * with pidfds (Linux >= 5.3; polling waitpid every 10 ms otherwise).  When a
 * test's process exits, the runner kills whatever is left of its process
 * group (helpers) before reaping it; when it runs out of time the group gets
 * SIGTERM, then SIGKILL 2 s later.
 *
 * A test tells the runner why it failed or was skipped through a pipe whose
 * write end it receives as --result-fd: one line, written by test__fail or
 * test__skip.  Everything else is read from the exit status.
 *
 * The second half of the file implements test.h for the test and helper
 * processes, which unlike the runner may have threads: between fork and exec
 * the children made there call only async-signal-safe functions.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* pipe2, ppoll, mkostemp, strchrnul */
#endif

#include "test.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* ------------------------------------------------------------------------
 * The list of tests and helpers, from test-list.h.
 */

#define TEST_ENTRY(name) int run_test_##name(void);
#define TEST_ENTRY_TIMEOUT(name, s) TEST_ENTRY(name)
#define TEST_ENTRY_HIDDEN(name) TEST_ENTRY(name)
#define TEST_ENTRY_HIDDEN_TIMEOUT(name, s) TEST_ENTRY(name)
#define HELPER_ENTRY(name) int run_helper_##name(int argc, char **argv);
#include "test-list.h"
#undef TEST_ENTRY
#undef TEST_ENTRY_TIMEOUT
#undef TEST_ENTRY_HIDDEN
#undef TEST_ENTRY_HIDDEN_TIMEOUT
#undef HELPER_ENTRY

struct test_entry {
	const char *name;
	int (*fn)(void);
	double timeout;		/* seconds, before scaling; 0 = the default */
	int hidden;		/* run only when named exactly */
};

struct helper_entry {
	const char *name;
	int (*fn)(int argc, char **argv);
};

#define TEST_ENTRY(name) { #name, run_test_##name, 0, 0 },
#define TEST_ENTRY_TIMEOUT(name, s) { #name, run_test_##name, (s), 0 },
#define TEST_ENTRY_HIDDEN(name) { #name, run_test_##name, 0, 1 },
#define TEST_ENTRY_HIDDEN_TIMEOUT(name, s) { #name, run_test_##name, (s), 1 },
#define HELPER_ENTRY(name)
static const struct test_entry tests[] = {
#include "test-list.h"
	{ NULL, NULL, 0, 0 }
};
#undef TEST_ENTRY
#undef TEST_ENTRY_TIMEOUT
#undef TEST_ENTRY_HIDDEN
#undef TEST_ENTRY_HIDDEN_TIMEOUT
#undef HELPER_ENTRY

#define TEST_ENTRY(name)
#define TEST_ENTRY_TIMEOUT(name, s)
#define TEST_ENTRY_HIDDEN(name)
#define TEST_ENTRY_HIDDEN_TIMEOUT(name, s)
#define HELPER_ENTRY(name) { #name, run_helper_##name },
static const struct helper_entry helpers[] = {
#include "test-list.h"
	{ NULL, NULL }
};
#undef TEST_ENTRY
#undef TEST_ENTRY_TIMEOUT
#undef TEST_ENTRY_HIDDEN
#undef TEST_ENTRY_HIDDEN_TIMEOUT
#undef HELPER_ENTRY

#define DEFAULT_TIMEOUT_S	30.0	/* per test, before scaling */
#define KILL_GRACE_MS		2000	/* SIGTERM to SIGKILL */
#define READY_TIMEOUT_S		30	/* test_helper_wait_ready */
#define POLL_FALLBACK_MS	10	/* when there is no pidfd */
#define OUTPUT_SHOW_MAX		(1024 * 1024)	/* tail shown on failure */
#define CMD_OUTPUT_MAX		(64 * 1024 * 1024)	/* test_run_cmd */
#define REASON_MAX		1024

/* ------------------------------------------------------------------------
 * State of this process, whatever its mode.
 */

/* Absolute path of this binary, for messages and test_self_exe. */
static char self_exe[PATH_MAX] = "/proc/self/exe";

/* --run-one: where test__fail and test__skip write the reason, or -1. */
static int result_fd = -1;
/* The process that owns result_fd: a child forked without exec must not
 * write a reason in its parent's name. */
static pid_t result_owner;

/* --helper: the readiness pipe, or -1. */
static int ready_fd = -1;

/* Prefix of assertion messages: "" in a test, "[helper NAME] " in one. */
static char proc_label[128];

/* Set to 1 to act as if the kernel had no pidfd_open (TEST_NO_PIDFD). */
static int no_pidfd;

/* ------------------------------------------------------------------------
 * Small utilities.
 */

uint64_t test_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void test_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

double test_timeout_scale(void)
{
	const char *s = getenv("TEST_TIMEOUT_SCALE");
	char *end;
	double v;

	if (s == NULL || *s == '\0')
		return 1.0;
	v = strtod(s, &end);
	if (*end != '\0' || !(v > 0))
		return 1.0;
	return v;
}

/* Scaled timeout in milliseconds. */
static uint64_t scaled_ms(double seconds)
{
	double ms = seconds * test_timeout_scale() * 1000.0;

	return ms <= 0 ? 0 : (uint64_t)ms;
}

const char *test_signal_name(int sig)
{
	static char buf[32];

	switch (sig) {
#define SIGNAME(s) case s: return #s;
	SIGNAME(SIGHUP) SIGNAME(SIGINT) SIGNAME(SIGQUIT) SIGNAME(SIGILL)
	SIGNAME(SIGTRAP) SIGNAME(SIGABRT) SIGNAME(SIGBUS) SIGNAME(SIGFPE)
	SIGNAME(SIGKILL) SIGNAME(SIGUSR1) SIGNAME(SIGSEGV) SIGNAME(SIGUSR2)
	SIGNAME(SIGPIPE) SIGNAME(SIGALRM) SIGNAME(SIGTERM) SIGNAME(SIGCHLD)
	SIGNAME(SIGCONT) SIGNAME(SIGSTOP) SIGNAME(SIGTSTP) SIGNAME(SIGTTIN)
	SIGNAME(SIGTTOU) SIGNAME(SIGURG) SIGNAME(SIGXCPU) SIGNAME(SIGXFSZ)
	SIGNAME(SIGVTALRM) SIGNAME(SIGPROF) SIGNAME(SIGWINCH) SIGNAME(SIGIO)
	SIGNAME(SIGSYS)
#ifdef SIGSTKFLT
	SIGNAME(SIGSTKFLT)
#endif
#ifdef SIGPWR
	SIGNAME(SIGPWR)
#endif
#undef SIGNAME
	default:
		snprintf(buf, sizeof(buf), "signal %d", sig);
		return buf;
	}
}

const char *test_status_str(int status, char *buf, size_t len)
{
	if (WIFEXITED(status))
		snprintf(buf, len, "exit status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %s%s",
		    test_signal_name(WTERMSIG(status)),
		    WCOREDUMP(status) ? " (core dumped)" : "");
	else
		snprintf(buf, len, "wait status 0x%x", (unsigned int)status);
	return buf;
}

/* write() all of buf; for pipes and files. */
static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Strings handed out by test_path() and friends, freed at exit so leak
 * checkers stay quiet.  A lock-free stack: tests may call from any thread.
 */
struct interned {
	struct interned *next;
	char s[];
};

static struct interned *interned_head;

static const char *intern(const char *s)
{
	size_t len = strlen(s) + 1;
	struct interned *n = malloc(sizeof(*n) + len);

	if (n == NULL)
		test__fail(__FILE__, __LINE__, "out of memory");
	memcpy(n->s, s, len);
	n->next = __atomic_load_n(&interned_head, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&interned_head, &n->next, n, 1,
	    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
	return n->s;
}

static void intern_free_all(void)
{
	struct interned *n = __atomic_exchange_n(&interned_head, NULL,
	    __ATOMIC_ACQUIRE);

	while (n != NULL) {
		struct interned *next = n->next;

		free(n);
		n = next;
	}
}

/*
 * pidfd_open(2), or -1 when the kernel has none: the callers then poll
 * waitid every POLL_FALLBACK_MS.
 */
static int pidfd_open_(pid_t pid)
{
#ifdef SYS_pidfd_open
	int fd;

	if (no_pidfd)
		return -1;
	fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd >= 0) {
		fcntl(fd, F_SETFD, FD_CLOEXEC);
		return fd;
	}
#else
	(void)pid;
#endif
	return -1;
}

/* Whether child pid has exited, without reaping it. */
static int child_exited(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno == ECHILD;	/* reaped by someone else */
	return si.si_pid == pid;
}

/* Reap child pid; its wait status, or -1 if someone else reaped it. */
static int child_reap(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -1;
	}
	return status;
}

/*
 * Wait until fd (if >= 0) is readable or pidfd (if >= 0) says the child
 * exited, for at most timeout_ms; with no pidfd, for at most
 * POLL_FALLBACK_MS so that the caller polls the child.  sigmask (if not
 * NULL) is the signal mask to wait with.  Returns ppoll's result.
 */
static int wait_fds(int fd, int pidfd, uint64_t timeout_ms,
    const sigset_t *sigmask)
{
	struct pollfd pfd[2];
	struct timespec ts;
	nfds_t n = 0;

	if (pidfd < 0 && timeout_ms > POLL_FALLBACK_MS)
		timeout_ms = POLL_FALLBACK_MS;
	if (fd >= 0) {
		pfd[n].fd = fd;
		pfd[n].events = POLLIN;
		n++;
	}
	if (pidfd >= 0) {
		pfd[n].fd = pidfd;
		pfd[n].events = POLLIN;
		n++;
	}
	ts.tv_sec = (time_t)(timeout_ms / 1000);
	ts.tv_nsec = (long)(timeout_ms % 1000) * 1000000;
	return ppoll(pfd, n, &ts, sigmask);
}

/* ------------------------------------------------------------------------
 * Assertion back end.
 */

void test__fail(const char *file, int line, const char *fmt, ...)
{
	char msg[REASON_MAX];
	char out[REASON_MAX + 256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);

	fflush(stdout);
	n = snprintf(out, sizeof(out), "%s%s:%d: %s\n", proc_label, file,
	    line, msg);
	if (n > (int)sizeof(out) - 1)
		n = (int)sizeof(out) - 1;
	write_all(STDERR_FILENO, out, (size_t)n);
	if (result_fd >= 0 && getpid() == result_owner)
		write_all(result_fd, out, (size_t)n);
	_exit(1);
}

int test__skip(const char *reason)
{
	char out[REASON_MAX];
	int n;

	n = snprintf(out, sizeof(out), "%s\n", reason ? reason : "");
	if (n > (int)sizeof(out) - 1)
		n = (int)sizeof(out) - 1;
	printf("skipped: %s", out);
	fflush(stdout);
	if (result_fd >= 0 && getpid() == result_owner)
		write_all(result_fd, out, (size_t)n);
	return TEST_SKIP_CODE;
}

/* ------------------------------------------------------------------------
 * The test's environment.
 */

static const char *cached_env(const char **cache, const char *name)
{
	const char *v = __atomic_load_n(cache, __ATOMIC_ACQUIRE);

	if (v == NULL) {
		const char *e = getenv(name);

		if (e == NULL || *e == '\0')
			test__fail(__FILE__, __LINE__, "%s is not set (is "
			    "this running under run-tests?)", name);
		v = intern(e);
		__atomic_store_n(cache, v, __ATOMIC_RELEASE);
	}
	return v;
}

const char *test_tmpdir(void)
{
	static const char *cache;

	return cached_env(&cache, "TEST_TMPDIR");
}

const char *test_builddir(void)
{
	static const char *cache;

	return cached_env(&cache, "TEST_BUILDDIR");
}

const char *test_self_exe(void)
{
	return self_exe;
}

const char *test_path(const char *name)
{
	char buf[PATH_MAX];

	if ((size_t)snprintf(buf, sizeof(buf), "%s/%s", test_tmpdir(),
	    name) >= sizeof(buf))
		test__fail(__FILE__, __LINE__, "test_path(%s): too long",
		    name);
	return intern(buf);
}

void test_write_file(const char *path, const char *content)
{
	int fd, r;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		test__fail(__FILE__, __LINE__, "test_write_file: open %s: %s",
		    path, strerror(errno));
	r = write_all(fd, content, strlen(content));
	if (r < 0)
		test__fail(__FILE__, __LINE__, "test_write_file: write %s: %s",
		    path, strerror(-r));
	if (close(fd) < 0)
		test__fail(__FILE__, __LINE__, "test_write_file: close %s: %s",
		    path, strerror(errno));
}

/* Read all of fd from offset 0 (pread) or from where it is (read). */
static char *read_fd(int fd, int from_start, size_t *lenp)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);

	if (buf == NULL)
		return NULL;
	for (;;) {
		ssize_t n;

		if (cap - len < 2) {
			char *nb = realloc(buf, cap * 2);

			if (nb == NULL) {
				free(buf);
				return NULL;
			}
			buf = nb;
			cap *= 2;
		}
		n = from_start ? pread(fd, buf + len, cap - len - 1,
		    (off_t)len) : read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	if (lenp)
		*lenp = len;
	return buf;
}

char *test_read_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf;

	if (fd < 0)
		return NULL;
	buf = read_fd(fd, 1, NULL);
	close(fd);
	return buf;
}

void test_setenv(const char *name, const char *value)
{
	int r = value ? setenv(name, value, 1) : unsetenv(name);

	if (r != 0)
		test__fail(__FILE__, __LINE__, "test_setenv(%s): %s", name,
		    strerror(errno));
}

const char *test_dat_conf(const char *content)
{
	const char *path = test_path("dat.conf");

	test_write_file(path, content);
	test_setenv("DAT_OVERRIDE", path);
	return path;
}

const char *test_find_program(const char *program)
{
	const char *path, *p;
	char buf[PATH_MAX];

	if (strchr(program, '/'))
		return access(program, X_OK) == 0 ? intern(program) : NULL;
	path = getenv("PATH");
	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;; ) {
		const char *end = strchrnul(p, ':');
		int dlen = (int)(end - p);

		if ((size_t)snprintf(buf, sizeof(buf), "%.*s/%s",
		    dlen ? dlen : 1, dlen ? p : ".", program) < sizeof(buf) &&
		    access(buf, X_OK) == 0) {
			struct stat st;

			if (stat(buf, &st) == 0 && S_ISREG(st.st_mode))
				return intern(buf);
		}
		if (*end == '\0')
			break;
		p = end + 1;
	}
	return NULL;
}

/* ------------------------------------------------------------------------
 * Child processes of a test.
 */

struct test_helper {
	pid_t pid;
	int pidfd;		/* -1: no pidfd, poll waitid */
	int own_pgrp;		/* in a process group of its own */
	int reaped;
	int status;		/* wait status, once reaped */
	int ready_fd;		/* read end of the readiness pipe, or -1 */
	char *ready_line;	/* the readiness line, as read so far */
	int ready_done;		/* ready_line is complete */
	size_t ready_len;	/* bytes of it read so far */
	char *log_path;		/* test_spawn_cmd: captured output */
	char *output;		/* last test_helper_output() result */
};

/*
 * exec takes char *const argv[] for historical reasons and never writes
 * through it; this hands it an array we hold as const.
 */
static char *const *exec_argv(const char *const argv[])
{
	union { const char *const *c; char *const *m; } u = { argv };

	return u.m;
}

/*
 * Start path with argv.  In the child: a process group of its own if
 * own_pgrp, SIGKILL when the spawning thread dies, stdin from /dev/null,
 * stdout and stderr to out_fd if >= 0, readiness write end ready_w kept
 * open (and named in TEST_READY_FD) if >= 0.  Returns 0 and the pid in
 * *pidp, or -errno if the program could not be executed.
 */
static int spawn(const char *path, const char *const argv[], int own_pgrp,
    int out_fd, int ready_w, pid_t *pidp)
{
	char **envp = environ;
	char ready_env[32];
	sigset_t empty;
	int errpipe[2], devnull, err, r;
	pid_t parent = getpid(), pid;
	ssize_t n;

	/* Everything the child needs is prepared here: after fork it may
	 * only call async-signal-safe functions. */
	if (ready_w >= 0) {
		size_t count = 0, i;

		while (environ[count] != NULL)
			count++;
		envp = calloc(count + 2, sizeof(*envp));
		if (envp == NULL)
			return -ENOMEM;
		snprintf(ready_env, sizeof(ready_env), "TEST_READY_FD=%d",
		    ready_w);
		for (i = 0; i < count; i++)
			envp[i] = environ[i];
		envp[count] = ready_env;
	}
	sigemptyset(&empty);
	devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (devnull < 0) {
		err = -errno;
		goto out_env;
	}
	if (pipe2(errpipe, O_CLOEXEC) < 0) {
		err = -errno;
		goto out_devnull;
	}

	pid = fork();
	if (pid < 0) {
		err = -errno;
		goto out_pipe;
	}
	if (pid == 0) {
		struct sigaction sa;

		if (own_pgrp)
			setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		sigaction(SIGPIPE, &sa, NULL);
		sigaction(SIGCHLD, &sa, NULL);
		sigprocmask(SIG_SETMASK, &empty, NULL);
		dup2(devnull, STDIN_FILENO);
		if (out_fd >= 0) {
			dup2(out_fd, STDOUT_FILENO);
			dup2(out_fd, STDERR_FILENO);
		}
		if (ready_w >= 0)
			fcntl(ready_w, F_SETFD, 0);
		execve(path, exec_argv(argv), envp);
		err = errno;
		while (write(errpipe[1], &err, sizeof(err)) < 0 &&
		    errno == EINTR)
			;
		_exit(127);
	}

	if (own_pgrp)
		setpgid(pid, pid);	/* also in the parent: no race */
	close(errpipe[1]);
	errpipe[1] = -1;
	do
		n = read(errpipe[0], &r, sizeof(r));
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(r)) {
		child_reap(pid);
		err = -r;
		goto out_pipe;
	}
	*pidp = pid;
	err = 0;

out_pipe:
	close(errpipe[0]);
	if (errpipe[1] >= 0)
		close(errpipe[1]);
out_devnull:
	close(devnull);
out_env:
	if (envp != environ)
		free(envp);
	return err;
}

static test_helper_t *helper_new(pid_t pid, int own_pgrp)
{
	test_helper_t *h = calloc(1, sizeof(*h));

	if (h == NULL)
		test__fail(__FILE__, __LINE__, "out of memory");
	h->pid = pid;
	h->pidfd = pidfd_open_(pid);
	h->own_pgrp = own_pgrp;
	h->ready_fd = -1;
	return h;
}

test_helper_t *test_spawn_helperv(const char *name, const char *const argv[])
{
	const struct helper_entry *e;
	test_helper_t *h;
	const char **args;
	size_t argc = 0, i;
	int p[2], r;
	pid_t pid;

	for (e = helpers; e->name != NULL; e++)
		if (strcmp(e->name, name) == 0)
			break;
	if (e->name == NULL)
		test__fail(__FILE__, __LINE__, "test_spawn_helper: no helper "
		    "named %s in test-list.h", name);
	while (argv && argv[argc] != NULL)
		argc++;
	args = calloc(argc + 4, sizeof(*args));
	if (args == NULL)
		test__fail(__FILE__, __LINE__, "out of memory");
	args[0] = self_exe;
	args[1] = "--helper";
	args[2] = name;
	for (i = 0; i < argc; i++)
		args[3 + i] = argv[i];
	if (pipe2(p, O_CLOEXEC) < 0)
		test__fail(__FILE__, __LINE__, "test_spawn_helper: pipe: %s",
		    strerror(errno));
	/* By its path, not /proc/self/exe: under valgrind (tools/memcheck)
	 * /proc/self/exe is valgrind itself, which it cannot execute. */
	r = spawn(self_exe, args, 0, -1, p[1], &pid);
	free(args);
	close(p[1]);
	if (r < 0)
		test__fail(__FILE__, __LINE__, "test_spawn_helper(%s): %s",
		    name, strerror(-r));
	h = helper_new(pid, 0);
	h->ready_fd = p[0];
	return h;
}

test_helper_t *test_spawn_helper(const char *name, ...)
{
	test_helper_t *h;
	const char **argv;
	size_t n = 0, i;
	va_list ap;

	va_start(ap, name);
	while (va_arg(ap, const char *) != NULL)
		n++;
	va_end(ap);
	argv = calloc(n + 1, sizeof(*argv));
	if (argv == NULL)
		test__fail(__FILE__, __LINE__, "out of memory");
	va_start(ap, name);
	for (i = 0; i < n; i++)
		argv[i] = va_arg(ap, const char *);
	va_end(ap);
	h = test_spawn_helperv(name, argv);
	free(argv);
	return h;
}

test_helper_t *test_spawn_cmd(const char *const argv[])
{
	static unsigned int counter;
	const char *path, *base;
	char name[PATH_MAX];
	test_helper_t *h;
	int fd, r;
	pid_t pid;

	if (argv == NULL || argv[0] == NULL)
		test__fail(__FILE__, __LINE__, "test_spawn_cmd: no program");
	path = test_find_program(argv[0]);
	if (path == NULL)
		test__fail(__FILE__, __LINE__, "test_spawn_cmd: %s not found",
		    argv[0]);
	base = strrchr(argv[0], '/');
	base = base ? base + 1 : argv[0];
	snprintf(name, sizeof(name), "%s-%u.log", base,
	    __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED));
	{
		const char *log = test_path(name);

		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND |
		    O_CLOEXEC, 0644);
		if (fd < 0)
			test__fail(__FILE__, __LINE__, "test_spawn_cmd: %s: %s",
			    log, strerror(errno));
		r = spawn(path, argv, 0, fd, -1, &pid);
		close(fd);
		if (r < 0)
			test__fail(__FILE__, __LINE__, "test_spawn_cmd(%s): %s",
			    argv[0], strerror(-r));
		h = helper_new(pid, 0);
		h->log_path = strdup(log);
		if (h->log_path == NULL)
			test__fail(__FILE__, __LINE__, "out of memory");
	}
	return h;
}

pid_t test_helper_pid(const test_helper_t *h)
{
	return h->pid;
}

/* Reap h if it has exited; whether it has. */
static int helper_check(test_helper_t *h)
{
	if (h->reaped)
		return 1;
	if (!child_exited(h->pid))
		return 0;
	h->status = child_reap(h->pid);
	h->reaped = 1;
	return 1;
}

int test_helper_wait(test_helper_t *h, int timeout_s, int *status)
{
	uint64_t deadline = test_now_ms() + scaled_ms(timeout_s);

	while (!helper_check(h)) {
		uint64_t now = test_now_ms();

		if (now >= deadline)
			return -ETIMEDOUT;
		wait_fds(-1, h->pidfd, deadline - now, NULL);
	}
	if (status)
		*status = h->status;
	return 0;
}

int test_helper_wait_ready(test_helper_t *h, const char **line)
{
	uint64_t deadline = test_now_ms() + scaled_ms(READY_TIMEOUT_S);
	char c;

	if (h->ready_done)
		goto done;
	if (h->ready_fd < 0)
		return -EPIPE;
	for (;;) {
		uint64_t now = test_now_ms();
		ssize_t n;
		char *nl;

		if (now >= deadline)
			return -ETIMEDOUT;
		if (wait_fds(h->ready_fd, -1, deadline - now, NULL) <= 0)
			continue;
		n = read(h->ready_fd, &c, 1);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			close(h->ready_fd);
			h->ready_fd = -1;
			return -EPIPE;
		}
		nl = realloc(h->ready_line, h->ready_len + 2);
		if (nl == NULL)
			test__fail(__FILE__, __LINE__, "out of memory");
		h->ready_line = nl;
		if (c == '\n')
			break;
		h->ready_line[h->ready_len++] = c;
		h->ready_line[h->ready_len] = '\0';
	}
	h->ready_line[h->ready_len] = '\0';
	h->ready_done = 1;
	close(h->ready_fd);
	h->ready_fd = -1;
done:
	if (line)
		*line = h->ready_line;
	return 0;
}

const char *test_helper_output(test_helper_t *h)
{
	char *out;

	if (h->log_path == NULL)
		return "";
	out = test_read_file(h->log_path);
	if (out == NULL)
		test__fail(__FILE__, __LINE__, "test_helper_output: %s: %s",
		    h->log_path, strerror(errno));
	free(h->output);
	h->output = out;
	return out;
}

int test_helper_wait_output(test_helper_t *h, const char *needle,
    int timeout_s)
{
	uint64_t deadline = test_now_ms() + scaled_ms(timeout_s);

	for (;;) {
		/* Look at the exit first: a process that printed the line
		 * and then exited still counts as having printed it. */
		int exited = helper_check(h);

		if (strstr(test_helper_output(h), needle) != NULL)
			return 0;
		if (exited)
			return -EPIPE;
		if (test_now_ms() >= deadline)
			return -ETIMEDOUT;
		test_sleep_ms(20);
	}
}

int test_helper_kill(test_helper_t *h, int sig)
{
	if (h->reaped)
		return -ESRCH;
	return kill(h->pid, sig) == 0 ? 0 : -errno;
}

void test_helper_free(test_helper_t *h)
{
	if (h == NULL)
		return;
	if (!helper_check(h)) {
		kill(h->own_pgrp ? -h->pid : h->pid, SIGKILL);
		h->status = child_reap(h->pid);
		h->reaped = 1;
	}
	if (h->pidfd >= 0)
		close(h->pidfd);
	if (h->ready_fd >= 0)
		close(h->ready_fd);
	free(h->ready_line);
	free(h->log_path);
	free(h->output);
	free(h);
}

void test_helper_ready(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	if (ready_fd < 0) {
		fwrite(buf, 1, (size_t)n, stdout);
		fflush(stdout);
		return;
	}
	write_all(ready_fd, buf, (size_t)n);
	close(ready_fd);
	ready_fd = -1;
}

int test_run_cmd(int timeout_s, int *status, char **output,
    const char *const argv[])
{
	uint64_t deadline = test_now_ms() + scaled_ms(timeout_s);
	uint64_t kill_at = 0, drain_until;
	const char *path;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int p[2] = { -1, -1 }, pidfd, st = 0, r, timed_out = 0;
	pid_t pid;

	if (output)
		*output = NULL;
	if (argv == NULL || argv[0] == NULL)
		return -EINVAL;
	path = test_find_program(argv[0]);
	if (path == NULL)
		return -ENOENT;
	if (output && pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	r = spawn(path, argv, 1, p[1], -1, &pid);
	if (p[1] >= 0)
		close(p[1]);
	if (r < 0) {
		if (p[0] >= 0)
			close(p[0]);
		return r;
	}
	pidfd = pidfd_open_(pid);

	for (;;) {
		uint64_t now, wait_ms;

		if (child_exited(pid)) {
			/* Leftovers in its group go with it. */
			kill(-pid, SIGKILL);
			st = child_reap(pid);
			break;
		}
		now = test_now_ms();
		if (!timed_out && now >= deadline) {
			kill(-pid, SIGTERM);
			timed_out = 1;
			kill_at = now + KILL_GRACE_MS;
		}
		if (kill_at && now >= kill_at) {
			kill(-pid, SIGKILL);
			kill_at = 0;
		}
		wait_ms = timed_out ? (kill_at ? kill_at - now : 1000) :
		    deadline - now;
		wait_fds(p[0], pidfd, wait_ms, NULL);
		while (p[0] >= 0) {
			struct pollfd pfd = { p[0], POLLIN, 0 };
			ssize_t n;

			if (poll(&pfd, 1, 0) <= 0)
				break;
			if (cap - len < 4096) {
				char *nb;

				cap = cap ? cap * 2 : 16384;
				nb = realloc(buf, cap);
				if (nb == NULL)
					test__fail(__FILE__, __LINE__,
					    "out of memory");
				buf = nb;
			}
			n = read(p[0], buf + len, cap - len - 1);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close(p[0]);
				p[0] = -1;
				break;
			}
			if (len + (size_t)n <= CMD_OUTPUT_MAX)
				len += (size_t)n;
		}
	}

	/* Read what is left; a process that escaped the group may hold the
	 * pipe open, so do not wait for EOF for ever. */
	drain_until = test_now_ms() + KILL_GRACE_MS;
	while (p[0] >= 0) {
		uint64_t now = test_now_ms();
		ssize_t n;

		if (now >= drain_until ||
		    wait_fds(p[0], -1, drain_until - now, NULL) < 0)
			break;
		if (cap - len < 4096) {
			char *nb;

			cap = cap ? cap * 2 : 16384;
			nb = realloc(buf, cap);
			if (nb == NULL)
				test__fail(__FILE__, __LINE__,
				    "out of memory");
			buf = nb;
		}
		n = read(p[0], buf + len, cap - len - 1);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			break;
		if (len + (size_t)n <= CMD_OUTPUT_MAX)
			len += (size_t)n;
	}
	if (p[0] >= 0)
		close(p[0]);
	if (pidfd >= 0)
		close(pidfd);
	if (output) {
		if (buf == NULL) {
			buf = malloc(1);
			if (buf == NULL)
				test__fail(__FILE__, __LINE__, "out of memory");
		}
		buf[len] = '\0';
		*output = buf;
	}
	if (status)
		*status = st;
	return timed_out ? -ETIMEDOUT : 0;
}

int test_run_cmdl(int timeout_s, int *status, char **output,
    const char *arg0, ...)
{
	const char **argv;
	size_t n = 1, i;
	va_list ap;
	int r;

	va_start(ap, arg0);
	while (va_arg(ap, const char *) != NULL)
		n++;
	va_end(ap);
	argv = calloc(n + 1, sizeof(*argv));
	if (argv == NULL)
		return -ENOMEM;
	argv[0] = arg0;
	va_start(ap, arg0);
	for (i = 1; i < n; i++)
		argv[i] = va_arg(ap, const char *);
	va_end(ap);
	r = test_run_cmd(timeout_s, status, output, argv);
	free(argv);
	return r;
}

/* ------------------------------------------------------------------------
 * --run-one and --helper: the child side.
 */

static const struct test_entry *find_test(const char *name)
{
	const struct test_entry *t;

	for (t = tests; t->name != NULL; t++)
		if (strcmp(t->name, name) == 0)
			return t;
	return NULL;
}

static int main_run_one(int argc, char **argv)
{
	const struct test_entry *t;
	int rc;

	if (argc < 3) {
		fprintf(stderr, "usage: run-tests --run-one NAME "
		    "[--result-fd N]\n");
		return 2;
	}
	t = find_test(argv[2]);
	if (t == NULL) {
		fprintf(stderr, "run-tests: no test named %s\n", argv[2]);
		return 2;
	}
	if (argc >= 5 && strcmp(argv[3], "--result-fd") == 0) {
		result_fd = atoi(argv[4]);
		result_owner = getpid();
		fcntl(result_fd, F_SETFD, FD_CLOEXEC);
	}

	/* Run by hand (e.g. under gdb): make the directory the runner would
	 * have made, and keep it. */
	if (getenv("TEST_TMPDIR") == NULL) {
		const char *base = getenv("TMPDIR");
		char dir[PATH_MAX];

		snprintf(dir, sizeof(dir), "%s/t-%.40s-XXXXXX",
		    base && *base ? base : "/tmp", t->name);
		if (mkdtemp(dir) == NULL || chdir(dir) < 0) {
			fprintf(stderr, "run-tests: %s: %s\n", dir,
			    strerror(errno));
			return 2;
		}
		setenv("TEST_TMPDIR", dir, 1);
		fprintf(stderr, "run-tests: test directory %s\n", dir);
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	atexit(intern_free_all);
	rc = t->fn();
	fflush(stdout);
	if (rc == 0 || rc == TEST_SKIP_CODE)
		return rc;
	if (result_fd >= 0) {
		char msg[64];
		int n = snprintf(msg, sizeof(msg), "returned %d\n", rc);

		write_all(result_fd, msg, (size_t)n);
	}
	return 1;
}

static int main_helper(int argc, char **argv)
{
	const struct helper_entry *e;
	const char *fd_env;

	if (argc < 3) {
		fprintf(stderr, "usage: run-tests --helper NAME [ARG]...\n");
		return 2;
	}
	for (e = helpers; e->name != NULL; e++)
		if (strcmp(e->name, argv[2]) == 0)
			break;
	if (e->name == NULL) {
		fprintf(stderr, "run-tests: no helper named %s\n", argv[2]);
		return 2;
	}
	snprintf(proc_label, sizeof(proc_label), "[helper %s] ", e->name);
	fd_env = getenv("TEST_READY_FD");
	if (fd_env != NULL) {
		ready_fd = atoi(fd_env);
		if (fcntl(ready_fd, F_SETFD, FD_CLOEXEC) < 0)
			ready_fd = -1;
		unsetenv("TEST_READY_FD");
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	atexit(intern_free_all);
	return e->fn(argc - 2, argv + 2);
}

/* ------------------------------------------------------------------------
 * The runner.
 */

struct job {
	const struct test_entry *test;
	pid_t pid;		/* 0 when the slot is free */
	int pidfd;		/* -1: poll waitid */
	int out_fd;		/* unlinked file: the test's stdout+stderr */
	int result_fd;		/* read end of the reason pipe */
	char tmpdir[PATH_MAX];
	double timeout_s;	/* scaled */
	uint64_t start_ms;
	uint64_t deadline_ms;
	uint64_t kill_at_ms;	/* SIGKILL due; 0 = none */
	int timed_out;
};

struct runner {
	const char *tmp_base;	/* $TMPDIR or /tmp */
	double default_timeout;	/* seconds, before scaling */
	int verbose;
	int jobs;
	int number;		/* of the last result line */
	int passed, failed, skipped;
	sigset_t wait_mask;	/* the mask to wait with: nothing blocked */
	pid_t pid;		/* the runner's */
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

static int rm_entry(const char *path, const struct stat *st, int type,
    struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	remove(path);
	return 0;
}

static void rm_rf(const char *dir)
{
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Start test t in slot j.  Returns 0 or -errno (the test was not run). */
static int job_start(struct runner *r, struct job *j,
    const struct test_entry *t)
{
	char outpath[PATH_MAX], fdarg[16];
	int rp[2] = { -1, -1 }, devnull = -1, err;
	pid_t pid;

	memset(j, 0, sizeof(*j));
	j->test = t;
	j->pidfd = j->out_fd = j->result_fd = -1;
	snprintf(j->tmpdir, sizeof(j->tmpdir), "%s/t-%.40s-XXXXXX",
	    r->tmp_base, t->name);
	if (mkdtemp(j->tmpdir) == NULL)
		return -errno;
	snprintf(outpath, sizeof(outpath), "%s/run-tests-out-XXXXXX",
	    r->tmp_base);
	j->out_fd = mkostemp(outpath, O_CLOEXEC | O_APPEND);
	if (j->out_fd < 0) {
		err = -errno;
		goto fail;
	}
	unlink(outpath);
	if (pipe2(rp, O_CLOEXEC) < 0) {
		err = -errno;
		goto fail;
	}
	j->result_fd = rp[0];
	fcntl(rp[0], F_SETFL, O_NONBLOCK);
	devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (devnull < 0) {
		err = -errno;
		goto fail;
	}
	snprintf(fdarg, sizeof(fdarg), "%d", rp[1]);

	pid = fork();
	if (pid < 0) {
		err = -errno;
		goto fail;
	}
	if (pid == 0) {
		/* The runner is single-threaded: anything goes here. */
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != r->pid)
			_exit(127);
		if (chdir(j->tmpdir) < 0) {
			dprintf(j->out_fd, "run-tests: chdir %s: %s\n",
			    j->tmpdir, strerror(errno));
			_exit(126);
		}
		setenv("TEST_TMPDIR", j->tmpdir, 1);
		dup2(devnull, STDIN_FILENO);
		dup2(j->out_fd, STDOUT_FILENO);
		dup2(j->out_fd, STDERR_FILENO);
		fcntl(rp[1], F_SETFD, 0);
		sigprocmask(SIG_SETMASK, &r->wait_mask, NULL);
		execl("/proc/self/exe", self_exe, "--run-one", t->name,
		    "--result-fd", fdarg, (char *)NULL);
		fprintf(stderr, "run-tests: exec %s: %s\n", self_exe,
		    strerror(errno));
		_exit(126);
	}
	setpgid(pid, pid);	/* also here, so that kill(-pid) can't miss */
	close(rp[1]);
	close(devnull);
	j->pid = pid;
	j->pidfd = pidfd_open_(pid);
	j->timeout_s = (t->timeout > 0 ? t->timeout : r->default_timeout) *
	    test_timeout_scale();
	j->start_ms = test_now_ms();
	j->deadline_ms = j->start_ms + (uint64_t)(j->timeout_s * 1000.0);
	return 0;

fail:
	if (devnull >= 0)
		close(devnull);
	if (rp[1] >= 0)
		close(rp[1]);
	if (j->out_fd >= 0)
		close(j->out_fd);
	if (j->result_fd >= 0)
		close(j->result_fd);
	rmdir(j->tmpdir);
	return err;
}

/* Print text with every line prefixed by "#   ". */
static void print_indented(const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		printf("#   %.*s\n", (int)n, p);
		p += n + (nl != NULL);
	}
}

static void print_output(int fd, int failed)
{
	size_t len;
	char *out = read_fd(fd, 1, &len);
	const char *p;

	if (out == NULL || len == 0) {
		if (out != NULL && failed)
			printf("#   (no output)\n");
		free(out);
		return;
	}
	p = out;
	if (len > OUTPUT_SHOW_MAX) {
		/* Show the tail, from the start of a line. */
		const char *nl;

		p = out + len - OUTPUT_SHOW_MAX;
		nl = memchr(p, '\n', OUTPUT_SHOW_MAX);
		if (nl != NULL)
			p = nl + 1;
		printf("#   [... %zu bytes of output left out ...]\n",
		    (size_t)(p - out));
		len -= (size_t)(p - out);
	}
	print_indented(p, len);
	free(out);
}

/* The reason line the test wrote, without its newline, or "". */
static void read_reason(int fd, char *buf, size_t size)
{
	ssize_t n;
	char *nl;

	do
		n = read(fd, buf, size - 1);
	while (n < 0 && errno == EINTR);
	buf[n > 0 ? n : 0] = '\0';
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
}

/* j's process has exited with status (or was interrupted): report it. */
static void job_finish(struct runner *r, struct job *j, int status)
{
	char reason[REASON_MAX], why[REASON_MAX + 64], st[64];
	double secs = (double)(test_now_ms() - j->start_ms) / 1000.0;
	enum { PASS, FAIL, SKIP } result;

	read_reason(j->result_fd, reason, sizeof(reason));
	if (interrupted && !j->timed_out && !(WIFEXITED(status) &&
	    (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) ==
	    TEST_SKIP_CODE))) {
		result = FAIL;
		snprintf(why, sizeof(why), "interrupted by %s",
		    test_signal_name(interrupted));
	} else if (j->timed_out) {
		result = FAIL;
		snprintf(why, sizeof(why), "timeout after %g s",
		    j->timeout_s);
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		result = PASS;
	} else if (WIFEXITED(status) &&
	    WEXITSTATUS(status) == TEST_SKIP_CODE) {
		result = SKIP;
		snprintf(why, sizeof(why), "%s",
		    reason[0] ? reason : "no reason given");
	} else {
		result = FAIL;
		if (reason[0] && WIFEXITED(status))
			snprintf(why, sizeof(why), "%s", reason);
		else if (reason[0])
			snprintf(why, sizeof(why), "%s, then %s", reason,
			    test_status_str(status, st, sizeof(st)));
		else
			test_status_str(status, why, sizeof(why));
	}

	r->number++;
	switch (result) {
	case PASS:
		r->passed++;
		printf("ok %d - %s (%.2f s)\n", r->number, j->test->name,
		    secs);
		break;
	case SKIP:
		r->skipped++;
		printf("ok %d - %s # SKIP %s\n", r->number, j->test->name,
		    why);
		break;
	case FAIL:
		r->failed++;
		printf("not ok %d - %s: %s\n", r->number, j->test->name, why);
		printf("#   test directory kept: %s\n", j->tmpdir);
		break;
	}
	if (result == FAIL || r->verbose)
		print_output(j->out_fd, result == FAIL);
	fflush(stdout);

	if (result != FAIL)
		rm_rf(j->tmpdir);
	if (j->pidfd >= 0)
		close(j->pidfd);
	close(j->out_fd);
	close(j->result_fd);
	j->pid = 0;
}

/* Look at running job j: finish it, or enforce its timeout. */
static void job_check(struct runner *r, struct job *j)
{
	uint64_t now;

	if (child_exited(j->pid)) {
		/* Its helpers, and anything else left in its group, die
		 * with it; the group id stays reserved until it is
		 * reaped. */
		kill(-j->pid, SIGKILL);
		job_finish(r, j, child_reap(j->pid));
		return;
	}
	now = test_now_ms();
	if (!j->timed_out && now >= j->deadline_ms) {
		kill(-j->pid, SIGTERM);
		j->timed_out = 1;
		j->kill_at_ms = now + KILL_GRACE_MS;
	} else if (j->kill_at_ms && now >= j->kill_at_ms) {
		kill(-j->pid, SIGKILL);
		j->kill_at_ms = 0;
	}
}

/* Wait until some job may need attention, at most until its deadline. */
static void jobs_wait(struct runner *r, struct job *jobs, int njobs)
{
	struct pollfd pfd[64];
	uint64_t now = test_now_ms(), next = now + 60000;
	struct timespec ts;
	nfds_t n = 0;
	int i, fallback = 0;

	for (i = 0; i < njobs; i++) {
		struct job *j = &jobs[i];
		uint64_t due;

		if (j->pid == 0)
			continue;
		due = j->timed_out ? (j->kill_at_ms ? j->kill_at_ms :
		    now + 1000) : j->deadline_ms;
		if (due < next)
			next = due;
		if (j->pidfd >= 0 && n < sizeof(pfd) / sizeof(pfd[0])) {
			pfd[n].fd = j->pidfd;
			pfd[n].events = POLLIN;
			n++;
		} else {
			fallback = 1;
		}
	}
	next = next > now ? next - now : 0;
	if (fallback && next > POLL_FALLBACK_MS)
		next = POLL_FALLBACK_MS;
	ts.tv_sec = (time_t)(next / 1000);
	ts.tv_nsec = (long)(next % 1000) * 1000000;
	ppoll(pfd, n, &ts, &r->wait_mask);
}

static void usage(FILE *f)
{
	fprintf(f,
	    "usage: run-tests [-v] [-j N] [--timeout SECONDS] [NAME|GLOB]...\n"
	    "       run-tests --list [-v]\n"
	    "       run-tests --run-one NAME\n"
	    "       run-tests --helper NAME [ARG]...\n"
	    "\n"
	    "Runs the named tests (shell globs match the tests not hidden),\n"
	    "or every test not hidden, each in a process and directory of\n"
	    "its own.  -j N runs N at a time.  Timeouts are multiplied by\n"
	    "$TEST_TIMEOUT_SCALE.  See test/README.\n");
}

static int parse_num(const char *opt, const char *s, double min, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (errno || end == s || *end != '\0' || !(*v >= min)) {
		fprintf(stderr, "run-tests: bad value for %s: %s\n", opt, s);
		return -1;
	}
	return 0;
}

static int main_runner(int argc, char **argv)
{
	struct runner r;
	struct sigaction sa;
	sigset_t block;
	struct job *jobs;
	char *selected;
	int ntests = 0, nsel = 0, list = 0, i, next, running;
	double v;

	memset(&r, 0, sizeof(r));
	r.default_timeout = DEFAULT_TIMEOUT_S;
	r.jobs = 1;
	r.pid = getpid();
	r.tmp_base = getenv("TMPDIR");
	if (r.tmp_base == NULL || *r.tmp_base == '\0')
		r.tmp_base = "/tmp";

	while (tests[ntests].name != NULL)
		ntests++;
	selected = calloc((size_t)ntests + 1, 1);
	if (selected == NULL)
		return 2;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0) {
			i++;
			break;
		} else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			free(selected);
			return 0;
		} else if (strcmp(a, "-v") == 0 ||
		    strcmp(a, "--verbose") == 0) {
			r.verbose = 1;
		} else if (strcmp(a, "--list") == 0) {
			list = 1;
		} else if (strcmp(a, "-j") == 0 || strcmp(a, "--jobs") == 0 ||
		    strcmp(a, "--timeout") == 0) {
			if (i + 1 >= argc) {
				fprintf(stderr, "run-tests: %s needs a "
				    "value\n", a);
				free(selected);
				return 2;
			}
			int is_timeout = strcmp(a, "--timeout") == 0;

			if (parse_num(a, argv[++i], is_timeout ? 0.001 : 1,
			    &v) < 0) {
				free(selected);
				return 2;
			}
			if (is_timeout)
				r.default_timeout = v;
			else
				r.jobs = (int)v;
		} else if (strncmp(a, "-j", 2) == 0) {
			if (parse_num("-j", a + 2, 1, &v) < 0) {
				free(selected);
				return 2;
			}
			r.jobs = (int)v;
		} else if (a[0] == '-') {
			fprintf(stderr, "run-tests: unknown option %s\n", a);
			usage(stderr);
			free(selected);
			return 2;
		} else {
			break;
		}
	}
	if (r.jobs > 64)
		r.jobs = 64;

	if (list) {
		const struct test_entry *t;

		for (t = tests; t->name != NULL; t++) {
			if (!t->hidden)
				printf("%s\n", t->name);
			else if (r.verbose)
				printf("%s (hidden)\n", t->name);
		}
		free(selected);
		return 0;
	}

	if (i >= argc) {
		int k;

		for (k = 0; k < ntests; k++)
			selected[k] = !tests[k].hidden;
	}
	for (; i < argc; i++) {
		int k, matched = 0;

		for (k = 0; k < ntests; k++) {
			if (strcmp(argv[i], tests[k].name) == 0 ||
			    (!tests[k].hidden &&
			    fnmatch(argv[i], tests[k].name, 0) == 0)) {
				selected[k] = 1;
				matched = 1;
			}
		}
		if (!matched) {
			fprintf(stderr, "run-tests: no test matches '%s'\n",
			    argv[i]);
			free(selected);
			return 2;
		}
	}
	for (i = 0; i < ntests; i++)
		nsel += selected[i];

	jobs = calloc((size_t)r.jobs, sizeof(*jobs));
	if (jobs == NULL) {
		free(selected);
		return 2;
	}

	/* Signals that end the run are blocked except while waiting, so
	 * that none is lost between a check and ppoll. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &r.wait_mask);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	printf("1..%d\n", nsel);
	fflush(stdout);

	next = 0;
	running = 0;
	for (;;) {
		/* Fill the free slots. */
		while (!interrupted && running < r.jobs) {
			struct job *slot = NULL;
			int k, err;

			while (next < ntests && !selected[next])
				next++;
			if (next >= ntests)
				break;
			for (k = 0; k < r.jobs; k++)
				if (jobs[k].pid == 0) {
					slot = &jobs[k];
					break;
				}
			err = job_start(&r, slot, &tests[next]);
			if (err < 0) {
				r.number++;
				r.failed++;
				printf("not ok %d - %s: could not start: "
				    "%s\n", r.number, tests[next].name,
				    strerror(-err));
				fflush(stdout);
			} else {
				running++;
			}
			next++;
		}
		if (running == 0)
			break;

		jobs_wait(&r, jobs, r.jobs);

		if (interrupted) {
			for (i = 0; i < r.jobs; i++)
				if (jobs[i].pid != 0)
					kill(-jobs[i].pid, SIGKILL);
		}
		for (i = 0; i < r.jobs; i++) {
			if (jobs[i].pid == 0)
				continue;
			job_check(&r, &jobs[i]);
			if (jobs[i].pid == 0)
				running--;
		}
	}

	if (interrupted)
		printf("# interrupted by %s\n", test_signal_name(interrupted));
	if (r.skipped)
		printf("%d passed, %d failed, %d skipped\n", r.passed,
		    r.failed, r.skipped);
	else
		printf("%d passed, %d failed\n", r.passed, r.failed);
	fflush(stdout);
	free(jobs);
	free(selected);
	return r.failed || interrupted ? 1 : 0;
}

int main(int argc, char **argv)
{
	ssize_t n;
	int fd;

	/* Make sure 0, 1 and 2 are open, so that no file we open lands
	 * there and gets clobbered by a child's dup2. */
	do
		fd = open("/dev/null", O_RDWR);
	while (fd >= 0 && fd <= STDERR_FILENO);
	if (fd >= 0)
		close(fd);

	n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	if (n > 0)
		self_exe[n] = '\0';
	else
		strcpy(self_exe, "/proc/self/exe");
	if (getenv("TEST_NO_PIDFD") != NULL)
		no_pidfd = 1;

	if (getenv("TEST_BUILDDIR") == NULL) {
		char dir[PATH_MAX], *slash;

		snprintf(dir, sizeof(dir), "%s", self_exe);
		slash = strrchr(dir, '/');
		if (slash != NULL && slash != dir) {
			*slash = '\0';
			setenv("TEST_BUILDDIR", dir, 1);
		}
	}

	if (argc >= 2 && strcmp(argv[1], "--run-one") == 0)
		return main_run_one(argc, argv);
	if (argc >= 2 && strcmp(argv[1], "--helper") == 0)
		return main_helper(argc, argv);
	return main_runner(argc, argv);
}
