/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl, layer 1: the basics every file uses. Error values (SD_ERR),
 * the provider's identity, intrusive lists, the counters of the IB
 * extension (their inlines), debug output, timed waits, numbers from the
 * environment, the clock, and the lock assertion (SD_ASSERT_HELD).
 * util.c defines what is not inline here.
 */
#ifndef SD_UTIL_H
#define SD_UTIL_H

#include <assert.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <dat2/udat.h>
#include <dat2/dat_registry.h>
#include <dat2/dat_ib_extensions.h>

#include "trace.h"

#define SD_EXPORT __attribute__((visibility("default")))

/* The failing DAT_RETURN for a type and subtype (DAT 2.0, 6.1). */
#define SD_ERR(type, subtype) \
	((DAT_RETURN)(DAT_CLASS_ERROR | (type) | (subtype)))

#define SD_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define sd_container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/* Provider identity, reported in ia_query and checked by OFED's registry. */
#define SD_PROVIDER_NAME	"softdapl"
#define SD_VENDOR_NAME		"softdapl"
#define SD_VERSION_MAJOR	0
#define SD_VERSION_MINOR	1

/* ------------------------------------------------------------------ */
/* Intrusive doubly linked lists                                      */

struct sd_list {
	struct sd_list *next, *prev;
};

static inline void sd_list_init(struct sd_list *l)
{
	l->next = l->prev = l;
}

static inline bool sd_list_empty(const struct sd_list *l)
{
	return l->next == l;
}

static inline void sd_list_add_tail(struct sd_list *l, struct sd_list *n)
{
	n->prev = l->prev;
	n->next = l;
	l->prev->next = n;
	l->prev = n;
}

static inline void sd_list_del(struct sd_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->next = n->prev = n;
}

/* Moves every node of @from to the tail of @to, in order; @from is left empty. */
static inline void sd_list_splice_tail(struct sd_list *to, struct sd_list *from)
{
	if (sd_list_empty(from))
		return;
	from->next->prev = to->prev;
	from->prev->next = to;
	to->prev->next = from->next;
	to->prev = from->prev;
	sd_list_init(from);
}

#define sd_list_for_each(pos, head) \
	for ((pos) = (head)->next; (pos) != (head); (pos) = (pos)->next)

/* ------------------------------------------------------------------ */
/* Counters of the IB extension (counters.c)                           */

/*
 * dat_ib_query_counters reads the cnt[] arrays of IAs, EPs and EVDs,
 * indexed by the DCNT_IA_*, DCNT_EP_* and DCNT_EVD_* values of
 * <dat2/dat_ib_extensions.h>. Whoever does what a counter counts bumps
 * it where it happens, from any thread, with or without locks held: a
 * counter is a relaxed atomic, a statistic that orders nothing. Cheap
 * (one locked add) and allocation-free, so the data path may count.
 */
static inline void sd_cnt_add(uint64_t *cnt, unsigned i, uint64_t n)
{
	__atomic_fetch_add(&cnt[i], n, __ATOMIC_RELAXED);
}

static inline void sd_cnt_inc(uint64_t *cnt, unsigned i)
{
	sd_cnt_add(cnt, i, 1);
}

/* ------------------------------------------------------------------ */
/* Debug output                                                       */

/*
 * SOFTDAPL_DEBUG=1 prints provider messages (state transitions, errors,
 * and why each refused call was refused: refuse.h) on stderr, prefixed
 * "softdapl: ". Off by default and cheap when off.
 */
extern int sd_debug_level;
/*
 * sd_log: a message on stderr, and an `error` line of the trace when
 * tracing (trace.h); sd_dbg: a debug message, on stderr only.
 */
void sd_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void sd_log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define sd_dbg(...) do { if (sd_debug_level) sd_log_debug(__VA_ARGS__); } while (0)

/* ------------------------------------------------------------------ */
/* Timed waits, numbers from the environment, the clock (util.c)      */

/*
 * Timed waits for evd.c and cno.c (util.c). sd_cond_init makes a condition variable
 * on CLOCK_MONOTONIC (0 or an errno). sd_deadline turns a DAT_TIMEOUT in
 * microseconds into an absolute time on that clock. sd_cond_wait_until
 * waits once until @deadline, or without limit when it is NULL; it returns
 * 0 or ETIMEDOUT, and the caller re-checks its condition either way.
 */
int sd_cond_init(pthread_cond_t *cond);

/*
 * The number environment variable @name holds (util.c): a whole decimal
 * number from @min to @max. Unset or empty gives @def; anything else
 * ("20s", "3x", out of range) gives @def too, with a message saying it
 * is not @what. Every numeric SOFTDAPL_* variable is read through it.
 */
long sd_env_num(const char *name, long min, long max, long def,
		const char *what);
void sd_deadline(struct timespec *deadline, DAT_TIMEOUT timeout_us);
int sd_cond_wait_until(pthread_cond_t *cond, pthread_mutex_t *mutex,
		       const struct timespec *deadline);

/* CLOCK_MONOTONIC in nanoseconds. */
static inline uint64_t sd_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* ------------------------------------------------------------------ */
/* Lock assertions                                                    */

/*
 * Lock and thread assertions. A function whose contract names a lock or a
 * thread ("ep->lock.", "Engine.") checks it on entry with these. Like
 * assert() they are compiled out with NDEBUG; every build this tree makes
 * (the sanitizer builds included) has them on.
 *
 *   SD_ASSERT_HELD(m)       the calling thread holds mutex @m (glibc
 *                           records a mutex's owner; elsewhere unchecked)
 *   SD_ASSERT_ENGINE()      on the engine thread (engine.c)
 *   SD_ASSERT_NOT_ENGINE()  on any other thread
 */
bool sd_mutex_held(const pthread_mutex_t *m);
#ifdef NDEBUG
#define SD_ASSERT_HELD(m)	((void)0)
#else
#define SD_ASSERT_HELD(m)	assert(sd_mutex_held(m))
#endif

#endif
