/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Utilities below every object: timed waits on CLOCK_MONOTONIC, for the
 * EVD and CNO waits (softdapl.h says what each returns), and the owner
 * check behind SD_ASSERT_HELD. Any thread; no lock of their own.
 */
#include <errno.h>
#include <stdlib.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "softdapl.h"

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
	static __thread pid_t self;

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
