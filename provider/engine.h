/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl, layer 2: the engine (engine.c). The event loop thread, the
 * commands other threads reach it with (struct sd_cmd), the hooks the
 * layers above register, its tick, spinning, and the thread assertions
 * (SD_ASSERT_ENGINE, SD_ASSERT_NOT_ENGINE).
 */
#ifndef SD_ENGINE_H
#define SD_ENGINE_H

#include "util.h"

/* ------------------------------------------------------------------ */
/* The engine (engine.c)                                              */

/*
 * A unit of work for the engine thread. Embedded in the object it acts on,
 * so submitting allocates nothing; @fn runs on the engine thread, in
 * submission order, with no provider lock held.
 */
struct sd_cmd {
	struct sd_list	node;		/* engine command lock */
	void		(*fn)(struct sd_cmd *cmd);
	bool		queued;		/* engine command lock */
};

struct uv_loop_s;

/*
 * What the engine calls of the layers above it, which register it: it
 * names none of them. Both run on the engine thread with no provider lock
 * held. @tick: the tick (every SD_TICK_MS while wanted); returns whether
 * it has work left. @shutdown: the last IA is closing; close every
 * socket before the loop ends (the tick then runs until it has none).
 */
struct sd_engine_hooks {
	bool	(*tick)(void);
	void	(*shutdown)(void);
};

/*
 * Start (first IA) and stop (last IA) the engine thread. 0 or -errno.
 * Every caller passes the same @hooks (the first one's are kept).
 */
int sd_engine_get(const struct sd_engine_hooks *hooks);
void sd_engine_put(void);

/*
 * Spinning. A waiter may poll its EPs for a while before it sleeps (a
 * thread wake-up costs tens of microseconds), and so may the engine, but
 * only while spinners in this process stay fewer than the CPUs less one:
 * sd_engine_spin_get says whether this thread may, and for how long (ns, 0:
 * not), sd_engine_spin_put gives its turn back. SOFTDAPL_SPIN_US sets the time
 * (default 50; 0 never spins). Any thread.
 */
uint64_t sd_engine_spin_get(void);
void sd_engine_spin_put(void);

/*
 * Polls of consumers (each dat_evd_dequeue, each round of a waiter's
 * spin): a count that changes while a consumer is at work, when the
 * engine had better not spin for frames itself. Any thread, relaxed.
 */
extern unsigned long sd_engine_polls;
static inline void sd_polled(void)
{
	__atomic_add_fetch(&sd_engine_polls, 1, __ATOMIC_RELAXED);
}

static inline unsigned long sd_polls_seen(void)
{
	return __atomic_load_n(&sd_engine_polls, __ATOMIC_RELAXED);
}

/*
 * Queues @cmd for the engine thread. A command already queued is not
 * queued twice (it runs once). Any thread.
 */
void sd_engine_submit(struct sd_cmd *cmd);
/*
 * Engine: takes @cmd out of the queue if it is there (its object is going
 * away before the engine came to it).
 */
void sd_engine_cancel(struct sd_cmd *cmd);

/* The engine's loop; use only on the engine thread. */
struct uv_loop_s *sd_engine_loop(void);

/*
 * Asks for the engine's tick (hooks->tick every SD_TICK_MS) to run
 * until it says it has nothing left. Any thread; a system call only when
 * the tick was off.
 */
#define SD_TICK_MS	1
void sd_engine_tick_want(void);

/* Engine: a round answered a peer's READ or atomic; the loop may spin for
 * the next (engine.c). */
void sd_engine_worked(void);

/* True on the engine thread. */
bool sd_engine_on_thread(void);

/*
 * Waits until the engine has run every command queued before the call
 * (and so left every callback it was in). Never on the engine thread.
 */
void sd_engine_sync(void);

/*
 * The thread assertions (util.h describes them with SD_ASSERT_HELD):
 * SD_ASSERT_ENGINE() on the engine thread, SD_ASSERT_NOT_ENGINE() on any
 * other. Compiled out with NDEBUG.
 */
#ifdef NDEBUG
#define SD_ASSERT_ENGINE()	((void)0)
#define SD_ASSERT_NOT_ENGINE()	((void)0)
#else
#define SD_ASSERT_ENGINE()	assert(sd_engine_on_thread())
#define SD_ASSERT_NOT_ENGINE()	assert(!sd_engine_on_thread())
#endif

#endif
