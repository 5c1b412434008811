/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl, layer 4: progress from consumer threads (progress.c). EPs
 * listed on the EVDs they complete to, moved by the threads waiting there;
 * writes held back and batched; parking; the engine's tick.
 */
#ifndef SD_PROGRESS_H
#define SD_PROGRESS_H

#include <poll.h>

#include "engine.h"

struct sd_ep;
struct sd_evd;

/* ------------------------------------------------------------------ */
/* Progress from consumer threads (progress.c)                         */

/*
 * An EP is listed on the EVDs its DTOs complete to (request and receive
 * EVD), so that a thread in dat_evd_dequeue or dat_evd_wait on one of them
 * can move the EP's frames itself instead of waiting for the engine to do
 * it and wake it: the thread reads the socket and places what arrived, and
 * writes what is queued, under ep->lock like the engine. An EVD with more
 * than SD_DRIVE_MAX EPs is left to the engine (one poll set serves those
 * best: the engine's).
 */
#define SD_DRIVE_MAX	8

struct sd_drive_link {
	struct sd_list	node;		/* evd->lock of @evd: in evd->drive */
	struct sd_ep	*ep;		/* const */
	struct sd_evd	*evd;		/* ep->lock: the EVD listed on, or NULL */
};

/*
 * Lists @ep on its current request and receive EVDs and off any other
 * (after a create, modify or free changed them). ep->lock held (or the EP
 * not yet published); takes the EVDs' locks.
 */
void sd_progress_relink(struct sd_ep *ep);

/*
 * dat_evd_dequeue found @evd empty: one round of progress on the EPs
 * listed on it (what their sockets hold is read and placed, what is queued
 * is written; an EP whose lock another thread holds is skipped, as that
 * thread moves it). Returns false, having done nothing, when it has none
 * or more than SD_DRIVE_MAX: only other threads fill it then. evd->lock
 * held; dropped meanwhile.
 */
bool sd_progress_poll(struct sd_evd *evd);

/*
 * The waiting of dat_evd_wait: returns once @over(@evd, @threshold) or
 * when @until passes (NULL: never). While the EVD has EPs to move, the
 * waiter moves them itself: it spins over them while sd_engine_spin_get
 * lets it, then sleeps in poll() on their sockets and the EVD's eventfd
 * (sd_evq_wait_fd, which sd_evq_wake writes for events other threads
 * post while evd->polling), so that a message that arrives wakes this
 * thread and no other. Without EPs to move, or without an eventfd, it
 * sleeps on the condition variable and the engine delivers. Spinning
 * stops paying after a few waits that slept anyway (evd->spin_fails,
 * spin_probe). evd->lock held; dropped meanwhile. @over is called with
 * evd->lock held.
 */
void sd_progress_wait(struct sd_evd *evd,
		      bool (*over)(const struct sd_evd *, DAT_COUNT),
		      DAT_COUNT threshold, const struct timespec *until);

/*
 * Bytes sent on one socket of this process and received on another (both
 * ends of a loopback connection in one process) are ordered by the kernel:
 * sendmsg has read them before recv returns them. ThreadSanitizer cannot
 * see through a socket (and models sendmsg's reads as done when it
 * returns, which may be after the peer's recv), so with consumers and the
 * engine both moving frames it would report the sender's memory, reused
 * after the receiver's completion, as a race. Under ThreadSanitizer a
 * leaf mutex held across each sendmsg, and taken after each recv, makes
 * the kernel's order visible. Elsewhere these are nothing.
 */
#if defined(__SANITIZE_THREAD__)
extern pthread_mutex_t sd_wire_order;
static inline void sd_wire_send_begin(void)
{
	pthread_mutex_lock(&sd_wire_order);
}

static inline void sd_wire_send_end(void)
{
	pthread_mutex_unlock(&sd_wire_order);
}

static inline void sd_wire_received(void)
{
	pthread_mutex_lock(&sd_wire_order);
	pthread_mutex_unlock(&sd_wire_order);
}
#else
static inline void sd_wire_send_begin(void) {}
static inline void sd_wire_send_end(void) {}
static inline void sd_wire_received(void) {}
#endif


/*
 * Writes that wait. Two things are held back to be written together:
 *
 * - ACKs. The engine acks what it placed at once, but a consumer that
 *   moved a message in itself holds the standalone ACK back (tx.ack_hold)
 *   for that pass and the next: the answer it is likely to post next
 *   carries the ack for free. What is still owed at the pass after goes
 *   out then.
 * - Requests posted while others are in flight (sd_tx_post): the
 *   consumer's next pass over the EVD, or the ack of those in flight,
 *   writes them in one batch.
 *
 * sd_progress_defer puts the EP on the engine's tick (SD_TICK_MS), which
 * writes whatever still waits by then, so neither ever waits on the
 * consumer. ep->lock held.
 */
void sd_progress_defer(struct sd_ep *ep);

/*
 * Parking. The engine keeps polling every socket for input, but where a
 * consumer reads it, the engine's wake-ups only race it and take the CPU
 * from it (the engine's priority is raised: it wins, reads, and acks at
 * once what the consumer's answer would have carried). The engine parks
 * the socket: stops polling it for input (EOF still) until the next
 * tick. It parks when a consumer's pass over its EVD moved the EP since
 * the last tick (ep->driven): readable then, the engine leaves the input
 * to that consumer; and when consumers read first (readable, and the
 * engine found nothing, twice running). The tick unparks a socket whose
 * consumer did not pass since the previous tick, so a consumer that stops
 * reading leaves its frames to the engine within two ticks.
 *
 * A tick that unparks a socket and finds one-sided input waiting (an
 * RDMA write, read or atomic, which completes nothing here), twice within
 * SD_PARK_CAUGHT_MS, has caught a consumer that reads its completions,
 * then spins on memory for the next RDMA write (dtest -W), and each round
 * trip would wait for the tick. The engine then does not park that EP for
 * SD_PARK_HOLD_MS (ep->park_hold): two stalls of at most two ticks per
 * that time, instead of one per round trip. A message or an ACK caught
 * waiting is one its consumer polls for and was kept from (preempted):
 * holding then would only set the engine racing that consumer. Engine,
 * ep->lock.
 */
void sd_progress_park(struct sd_ep *ep);

/*
 * True when a consumer's pass moved @ep since the last tick and the EP
 * may park (not held, not waiting for a receive). Engine, ep->lock.
 */
bool sd_progress_driven(const struct sd_ep *ep);

/*
 * The engine's readiness dispatch (progress.c): poll events on an attached
 * socket in phase DATA go to tx, rx or parking. Engine, ep->lock.
 */
void sd_progress_io(struct sd_ep *ep, int status, int events);

/*
 * Wakes @ep up where it waits: for a receive (RNR, SD_RX_BUF: one was
 * posted, or its SRQ got buffers), or with frames left in its stage, or
 * for the engine to poll its socket again (a consumer-side EAGAIN). Places
 * what it can, writes what is owed, then has the engine poll the socket
 * for what the EP now waits for (directly on the engine, through io_cmd
 * elsewhere). Nothing without a socket in phase DATA. ep->lock; any
 * thread.
 */
void sd_progress_resume(struct sd_ep *ep);

/* io_cmd: sd_progress_resume on the engine. */
void sd_progress_io_cmd(struct sd_cmd *cmd);

/* How long an EP whose input waited for the tick is not parked again. */
#define SD_PARK_HOLD_MS		100
/*
 * Within how long of the previous catch the tick must find input waiting
 * again before it holds parking off: a consumer that spins on memory is
 * caught every round trip; one that polls its EVD is caught only when the
 * scheduler takes its CPU for a tick, and holding parking off then would
 * set the engine racing it for SD_PARK_HOLD_MS.
 */
#define SD_PARK_CAUGHT_MS	10

/*
 * Engine: the tick (engine.c runs it every SD_TICK_MS while wanted): sends
 * the owed ACKs, unparks. Returns whether there is still work for the tick.
 */
bool sd_progress_tick(void);

#endif
