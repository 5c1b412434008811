/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine: one thread per process running a libuv loop that owns every
 * socket of every IA (cm.c, tx.c, rx.c do the work; this file only runs
 * the loop and carries commands to it).
 *
 * Life. sd_engine_get (ia_open) starts the thread with the first IA,
 * sd_engine_put (ia_close) stops and joins it with the last. Stopping runs
 * every command still queued first (they were submitted before the IA
 * closed: frees of EPs and service points), then closes whatever socket is
 * left (hooks->shutdown), then lets the loop run until every handle's
 * close callback ran.
 *
 * Commands. A consumer thread never calls libuv: it queues a struct
 * sd_cmd embedded in the object concerned and, when the engine has not
 * been told yet, writes the engine's eventfd, which a uv_poll_t watches.
 * The engine runs queued commands in submission order, with no provider
 * lock held. Submitting allocates nothing and cannot fail. (Not
 * uv_async_send: libuv 1.44 marks the handle busy around the write, and
 * the woken loop spins until the sender marks it done; a sender that the
 * woken engine has just preempted on a small machine cannot, and the
 * engine spun there for a third of its time setting up connections.)
 *
 * Layer 2: the engine names nothing above it. What it runs of the
 * connection core (the tick, closing the sockets at stop) comes as
 * struct sd_engine_hooks from sd_engine_get; commands carry their own
 * function. The spin budget of every waiting thread lives here too.
 *
 * Locks: ctl_lock serializes start and stop (held across the join, so it
 * is never taken on the engine thread); qlock guards the command queue
 * and is a leaf.
 */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <uv.h>

#include "engine.h"
#include "trace.h"
#include "util.h"

static struct {
	pthread_mutex_t	ctl_lock;	/* refs, thread */
	unsigned	refs;		/* ctl_lock: IAs open */
	pthread_t	thread;		/* ctl_lock */
	/* Set by the first sd_engine_get, before the thread starts. */
	const struct sd_engine_hooks *hooks;

	pthread_mutex_t	qlock;		/* leaf */
	struct sd_list	cmds;		/* qlock: queued commands */
	bool		stop;		/* qlock: stop once the queue is run */
	bool		told;		/* qlock: wake_fd written, and the
					 * engine has not found the queue
					 * empty since */

	uv_loop_t	loop;		/* engine (set up under ctl_lock) */
	int		wake_fd;	/* eventfd: written by tell() */
	uv_poll_t	wake;		/* engine: watches wake_fd */
	uv_timer_t	tick;		/* engine: hooks->tick */
	bool		tick_wanted;	/* atomic: the tick runs or is asked for */
	struct sd_cmd	tick_cmd;	/* starts the tick */
	unsigned long	work;		/* engine: sd_engine_worked calls */
} eng = {
	.ctl_lock = PTHREAD_MUTEX_INITIALIZER,
	.qlock = PTHREAD_MUTEX_INITIALIZER,
	.cmds = { &eng.cmds, &eng.cmds },
};

/*
 * True on the engine thread only (set when it starts): sd_engine_on_thread.
 * Initial-exec: the provider is dlopened, and a variable of the default
 * (dynamic) model costs each thread an allocation in __tls_get_addr the
 * first time it reads it, on whatever path that is (a post, a wait);
 * initial-exec takes the static TLS glibc keeps for dlopened libraries.
 */
static _Thread_local bool on_engine __attribute__((tls_model("initial-exec")));

bool sd_engine_on_thread(void)
{
	return on_engine;
}

struct uv_loop_s *sd_engine_loop(void)
{
	return &eng.loop;
}

/* Wakes the loop (its wake_cb runs). Any thread, qlock not held. */
static void tell(void)
{
	uint64_t one = 1;

	while (write(eng.wake_fd, &one, sizeof(one)) < 0 && errno == EINTR)
		;	/* EAGAIN: the counter is full, so it is readable */
}

void sd_engine_submit(struct sd_cmd *cmd)
{
	bool wake = false;

	pthread_mutex_lock(&eng.qlock);
	if (!cmd->queued) {
		cmd->queued = true;
		sd_list_add_tail(&eng.cmds, &cmd->node);
		wake = !eng.told;
		eng.told = true;
	}
	pthread_mutex_unlock(&eng.qlock);
	if (wake)
		tell();
}

void sd_engine_cancel(struct sd_cmd *cmd)
{
	SD_ASSERT_ENGINE();
	pthread_mutex_lock(&eng.qlock);
	if (cmd->queued) {
		cmd->queued = false;
		sd_list_del(&cmd->node);
	}
	pthread_mutex_unlock(&eng.qlock);
}

/* ---- the tick ------------------------------------------------------ */

static void tick_cb(uv_timer_t *t)
{
	SD_ASSERT_ENGINE();
	if (eng.hooks->tick())
		return;
	/*
	 * Nothing left: stop, unless work came after the tick looked (its
	 * sender saw tick_wanted still set and did not ask again).
	 */
	__atomic_store_n(&eng.tick_wanted, false, __ATOMIC_SEQ_CST);
	if (eng.hooks->tick())
		__atomic_store_n(&eng.tick_wanted, true, __ATOMIC_SEQ_CST);
	else
		uv_timer_stop(t);
}

static void tick_start(void)
{
	if (!uv_is_active((uv_handle_t *)&eng.tick))
		uv_timer_start(&eng.tick, tick_cb, SD_TICK_MS, SD_TICK_MS);
}

static void tick_cmd_fn(struct sd_cmd *cmd)
{
	SD_ASSERT_ENGINE();
	(void)cmd;
	tick_start();
}

void sd_engine_tick_want(void)
{
	if (__atomic_exchange_n(&eng.tick_wanted, true, __ATOMIC_SEQ_CST))
		return;
	if (on_engine)
		tick_start();
	else
		sd_engine_submit(&eng.tick_cmd);
}

/*
 * Engine: runs the queued commands, then stops if asked to. The eventfd
 * is read first; told is cleared only when the queue is found empty, so
 * a command queued after that writes it again, and one queued before is
 * run here.
 */
static void wake_cb(uv_poll_t *p, int status, int events)
{
	uint64_t n;
	bool stop;

	SD_ASSERT_ENGINE();
	(void)status;
	(void)events;
	(void)!read(eng.wake_fd, &n, sizeof(n));	/* EAGAIN: already read */
	for (;;) {
		struct sd_cmd *cmd = NULL;

		pthread_mutex_lock(&eng.qlock);
		if (!sd_list_empty(&eng.cmds)) {
			cmd = sd_container_of(eng.cmds.next, struct sd_cmd, node);
			sd_list_del(&cmd->node);
			cmd->queued = false;
		} else {
			eng.told = false;
		}
		stop = eng.stop;
		pthread_mutex_unlock(&eng.qlock);
		if (cmd == NULL)
			break;
		cmd->fn(cmd);
	}
	if (stop) {
		eng.hooks->shutdown();
		while (eng.hooks->tick())
			;	/* drops what it holds */
		uv_close((uv_handle_t *)&eng.tick, NULL);
		uv_close((uv_handle_t *)p, NULL);
	}
}

/* A command that wakes the thread waiting in sd_engine_sync. */
struct sync_cmd {
	struct sd_cmd	cmd;
	pthread_mutex_t	lock;
	pthread_cond_t	cond;
	bool		done;		/* lock */
};

static void sync_cb(struct sd_cmd *cmd)
{
	struct sync_cmd *s = sd_container_of(cmd, struct sync_cmd, cmd);

	SD_ASSERT_ENGINE();
	pthread_mutex_lock(&s->lock);
	s->done = true;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

void sd_engine_sync(void)
{
	struct sync_cmd s = { .cmd = { .fn = sync_cb } };

	SD_ASSERT_NOT_ENGINE();
	pthread_mutex_init(&s.lock, NULL);
	pthread_cond_init(&s.cond, NULL);
	sd_engine_submit(&s.cmd);
	pthread_mutex_lock(&s.lock);
	while (!s.done)
		pthread_cond_wait(&s.cond, &s.lock);
	pthread_mutex_unlock(&s.lock);
	pthread_cond_destroy(&s.cond);
	pthread_mutex_destroy(&s.lock);
}

void sd_engine_worked(void)
{
	SD_ASSERT_ENGINE();
	eng.work++;
}

/*
 * The loop. After a round that answered a peer's READ or atomic, the
 * engine polls without sleeping for as long as sd_engine_spin_get allows
 * (extended by each round that answers more, cut short when a consumer
 * calls dat_evd_dequeue), so that the next request of a requester reading
 * back to back is taken without a wake-up; no local thread takes part in
 * those. After placing a SEND or WRITE it does not spin: a local consumer
 * has to react, and on a machine with few CPUs a spinning engine (of
 * raised priority, below) would take the CPU from it. Rounds woken for
 * anything else go straight back to sleep.
 */
/*
 * The engine does what an HCA does in hardware, and a consumer may wait
 * for it by spinning on memory (an RDMA write's target, as dtest does),
 * outside any DAT call: with as many spinners as CPUs, a thread of normal
 * priority runs only when the scheduler takes a CPU from one of them, a
 * time slice later. So the engine asks for a higher priority
 * (SOFTDAPL_ENGINE_NICE, default -10; "off" leaves it alone), as a
 * kernel provider's softirq has one. Without the privilege to raise it
 * (CAP_SYS_NICE, or RLIMIT_NICE), it runs as it is.
 */
static void engine_priority(void)
{
	const char *s = getenv("SOFTDAPL_ENGINE_NICE");
	long nice = -10;

	if (s != NULL && strcmp(s, "off") == 0)
		return;
	nice = sd_env_num("SOFTDAPL_ENGINE_NICE", -20, 19, -10,
			  "a nice value from -20 to 19 or \"off\"");
	if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), (int)nice) < 0)
		sd_dbg("engine: cannot set nice %ld: %s", nice, strerror(errno));
}

/* ---- spinning ------------------------------------------------------ */

unsigned long sd_engine_polls;


static struct {
	pthread_once_t	once;
	uint64_t	ns;		/* const after once: spin time */
	long		max;		/* const after once: spinners allowed */
	long		now;		/* atomic: spinning threads */
} spin = { .once = PTHREAD_ONCE_INIT };

static void spin_init(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	long us = sd_env_num("SOFTDAPL_SPIN_US", 0, 1000000, 50,
			     "a number of microseconds up to 1000000");

	spin.ns = (uint64_t)us * 1000;
	/* Never more spinners than CPUs, one left for everything else. */
	spin.max = cpus > 1 ? cpus - 1 : 0;
}

uint64_t sd_engine_spin_get(void)
{
	pthread_once(&spin.once, spin_init);
	if (spin.ns == 0)
		return 0;
	if (__atomic_add_fetch(&spin.now, 1, __ATOMIC_RELAXED) > spin.max) {
		__atomic_sub_fetch(&spin.now, 1, __ATOMIC_RELAXED);
		return 0;
	}
	return spin.ns;
}

void sd_engine_spin_put(void)
{
	__atomic_sub_fetch(&spin.now, 1, __ATOMIC_RELAXED);
}

/* ---- the thread ---------------------------------------------------- */

static void *engine_main(void *arg)
{
	(void)arg;
	on_engine = true;
	sd_trace_engine = true;		/* its trace lines: by=engine */
	/* What top -H, perf and gdb call it. */
	(void)pthread_setname_np(pthread_self(), "softdapl-engine");
	engine_priority();
	while (uv_run(&eng.loop, UV_RUN_ONCE) != 0) {
		uint64_t ns, end;
		unsigned long w, polls;
		bool alive = true;

		if (eng.work == 0 || (ns = sd_engine_spin_get()) == 0) {
			eng.work = 0;
			continue;
		}
		end = sd_now_ns() + ns;
		polls = sd_polls_seen();
		do {
			w = eng.work;
			alive = uv_run(&eng.loop, UV_RUN_NOWAIT) != 0;
			if (eng.work != w)
				end = sd_now_ns() + ns;
			/* A consumer polls: it spins already, and reads. */
		} while (alive && sd_now_ns() < end && sd_polls_seen() == polls);
		sd_engine_spin_put();
		eng.work = 0;
		if (!alive)
			break;
	}
	return NULL;
}

int sd_engine_get(const struct sd_engine_hooks *hooks)
{
	int r = 0;

	assert(hooks != NULL && hooks->tick != NULL && hooks->shutdown != NULL);
	pthread_mutex_lock(&eng.ctl_lock);
	if (eng.refs++ > 0) {
		assert(hooks == eng.hooks);
		goto out;
	}
	eng.hooks = hooks;
	r = uv_loop_init(&eng.loop);
	if (r < 0)
		goto fail;
	eng.wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (eng.wake_fd < 0) {
		r = -errno;
		uv_loop_close(&eng.loop);
		goto fail;
	}
	r = uv_poll_init(&eng.loop, &eng.wake, eng.wake_fd);
	if (r == 0)
		r = uv_poll_start(&eng.wake, UV_READABLE, wake_cb);
	if (r < 0) {
		uv_close((uv_handle_t *)&eng.wake, NULL);
		uv_run(&eng.loop, UV_RUN_DEFAULT);
		uv_loop_close(&eng.loop);
		close(eng.wake_fd);
		goto fail;
	}
	uv_timer_init(&eng.loop, &eng.tick);	/* cannot fail */
	eng.tick_cmd.fn = tick_cmd_fn;
	eng.tick_wanted = false;
	eng.stop = false;
	eng.told = false;
	r = -pthread_create(&eng.thread, NULL, engine_main, NULL);
	if (r < 0) {
		uv_close((uv_handle_t *)&eng.tick, NULL);
		uv_close((uv_handle_t *)&eng.wake, NULL);
		uv_run(&eng.loop, UV_RUN_DEFAULT);
		uv_loop_close(&eng.loop);
		close(eng.wake_fd);
		goto fail;
	}
	goto out;
fail:
	sd_log("cannot start the engine thread: %s", strerror(-r));
	eng.refs--;
out:
	pthread_mutex_unlock(&eng.ctl_lock);
	return r;
}

void sd_engine_put(void)
{
	pthread_mutex_lock(&eng.ctl_lock);
	if (eng.refs == 0 || --eng.refs > 0) {
		pthread_mutex_unlock(&eng.ctl_lock);
		return;
	}
	pthread_mutex_lock(&eng.qlock);
	eng.stop = true;
	eng.told = true;
	pthread_mutex_unlock(&eng.qlock);
	tell();
	pthread_join(eng.thread, NULL);
	if (uv_loop_close(&eng.loop) != 0)
		sd_log("engine loop closed with handles still open");
	close(eng.wake_fd);
	pthread_mutex_unlock(&eng.ctl_lock);
}
