/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Utilities below every object: messages on stderr (sd_log, the debug
 * level), timed waits on CLOCK_MONOTONIC for the EVD and CNO waits
 * (util.h says what each returns), the owner check behind
 * SD_ASSERT_HELD, and the SOFTDAPL_* numbers. Any thread; no lock of
 * their own.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "trace.h"
#include "util.h"

/* Read once, when the library is loaded; never written afterwards. */
int sd_debug_level;

__attribute__((constructor)) static void sd_debug_init(void)
{
	sd_debug_level = (int)sd_env_num("SOFTDAPL_DEBUG", 0, INT_MAX, 0,
					 "a number (0: off)");
}

/*
 * One line on stderr, written with a single call so that lines of
 * different threads do not interleave; with @trace, also an `error` line
 * of the trace when tracing.
 */
__attribute__((format(printf, 2, 0)))
static void vlog(bool trace, const char *fmt, va_list ap)
{
	static const char prefix[] = "softdapl: ";
	char buf[512];
	int n;

	n = snprintf(buf, sizeof(buf), "%s", prefix);
	n += vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n] = '\0';
	if (trace && sd_trace_enabled())
		sd_trace_error(buf + sizeof(prefix) - 1);
	buf[n++] = '\n';
	buf[n] = '\0';
	fputs(buf, stderr);
}

void sd_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(true, fmt, ap);
	va_end(ap);
}

void sd_log_debug(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(false, fmt, ap);
	va_end(ap);
}

int sd_cond_init(pthread_cond_t *cond)
{
	pthread_condattr_t attr;
	int rc;

	rc = pthread_condattr_init(&attr);
	if (rc != 0)
		return rc;
	rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	if (rc == 0)
		rc = pthread_cond_init(cond, &attr);
	pthread_condattr_destroy(&attr);
	return rc;
}

void sd_deadline(struct timespec *deadline, DAT_TIMEOUT timeout_us)
{
	clock_gettime(CLOCK_MONOTONIC, deadline);
	deadline->tv_sec += timeout_us / 1000000;
	deadline->tv_nsec += (long)(timeout_us % 1000000) * 1000;
	if (deadline->tv_nsec >= 1000000000L) {
		deadline->tv_sec++;
		deadline->tv_nsec -= 1000000000L;
	}
}

int sd_cond_wait_until(pthread_cond_t *cond, pthread_mutex_t *mutex,
		       const struct timespec *deadline)
{
	if (deadline == NULL)
		return pthread_cond_wait(cond, mutex);
	return pthread_cond_timedwait(cond, mutex, deadline) == ETIMEDOUT ?
	       ETIMEDOUT : 0;
}

/*
 * glibc keeps the kernel thread id of a mutex's owner in __data.__owner
 * (0 when unlocked). The id of this thread is read once per thread.
 */
bool sd_mutex_held(const pthread_mutex_t *m)
{
#ifdef __GLIBC__
	static __thread pid_t self __attribute__((tls_model("initial-exec")));

	if (self == 0)
		self = (pid_t)syscall(SYS_gettid);
	return __atomic_load_n(&m->__data.__owner, __ATOMIC_RELAXED) == self;
#else
	(void)m;
	return true;
#endif
}

long sd_env_num(const char *name, long min, long max, long def,
		const char *what)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (s == NULL || *s == '\0')
		return def;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max) {
		sd_log("%s=%s: not %s; using %ld", name, s, what, def);
		return def;
	}
	return v;
}
