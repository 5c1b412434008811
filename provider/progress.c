/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Progress from consumer threads: a thread that dequeues from or waits on
 * an EVD moves the frames of the EPs completing there itself (progress.h,
 * "Progress from consumer threads").
 *
 * Why. The engine thread alone can do all the socket work, but then every
 * completion costs a hand-over: the engine reads and places, then wakes the
 * consumer through the EVD (a futex wake and a context switch, about
 * 25 us on a virtual machine), and a polling consumer competes with its
 * own engine for the CPU. A consumer that reads its sockets itself sees
 * its message as soon as a recv returns it, as with a plain socket.
 *
 * Who may. Everything the wire engine does under ep->lock (tx.c, rx.c) may
 * run on any thread; what only the engine may do (libuv calls: arming the
 * poll, closing the socket) is deferred there by those files. The engine
 * keeps watching every socket, so a frame nobody polls for (an RDMA write
 * into memory the consumer spins on, a disconnect) is still handled.
 * The engine's poll events on those sockets come here too
 * (sd_progress_io): they decide between tx, rx and parking.
 *
 * Locks: the links are under the EVD's lock (listing) and the EP's lock
 * (which EVD); sd_progress_relink takes evd->lock inside ep->lock, the lock
 * order. drive takes each ep->lock with trylock and no other lock held.
 *
 * Waiting (sd_progress_wait, for dat_evd_wait): the waiter spins over its
 * EVD's EPs while the engine's spin budget lets it, then sleeps in poll()
 * on their sockets and the EVD's eventfd (evq.c makes it, and sd_evq_wake
 * writes it for events other threads post), so that a message that
 * arrives wakes this thread and no other.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "engine.h"
#include "evq.h"
#include "progress.h"
#include "qp.h"
#include "sock.h"
#include "util.h"
#include "wire.h"

/* ---- the EVDs' lists of EPs -------------------------------------- */

static void link_to(struct sd_drive_link *l, struct sd_evd *evd)
{
	if (l->evd == evd)
		return;
	if (l->evd != NULL) {
		pthread_mutex_lock(&l->evd->lock);
		sd_list_del(&l->node);
		l->evd->ndrive--;
		pthread_mutex_unlock(&l->evd->lock);
	}
	l->evd = evd;
	if (evd != NULL) {
		pthread_mutex_lock(&evd->lock);
		sd_list_add_tail(&evd->drive, &l->node);
		evd->ndrive++;
		pthread_mutex_unlock(&evd->lock);
	}
}

void sd_progress_relink(struct sd_ep *ep)
{
	ep->drive[0].ep = ep;
	ep->drive[1].ep = ep;
	link_to(&ep->drive[0], ep->req_evd);
	/* One EVD for both: listed once. */
	link_to(&ep->drive[1], ep->recv_evd != ep->req_evd ? ep->recv_evd : NULL);
}

/*
 * The EPs listed on @evd, each with a reference, into @eps (room for
 * SD_DRIVE_MAX); 0 when there are none or more than SD_DRIVE_MAX.
 * evd->lock held.
 */
static unsigned drive_collect(struct sd_evd *evd, struct sd_ep **eps)
{
	struct sd_list *pos;
	unsigned n = 0;

	if (evd->ndrive == 0 || evd->ndrive > SD_DRIVE_MAX)
		return 0;
	sd_list_for_each(pos, &evd->drive) {
		struct sd_drive_link *l =
			sd_container_of(pos, struct sd_drive_link, node);

		sd_qp_get(l->ep);
		eps[n++] = l->ep;
	}
	return n;
}

/* Drops the references drive_collect took. */
static void drive_put(struct sd_ep **eps, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		sd_qp_put(eps[i]);
}

/* ---- moving frames ----------------------------------------------- */

/*
 * Requests the peer may have outstanding before we ack anyway: a sender
 * whose window is this small still streams.
 */
#define ACK_BATCH	16
/*
 * Passes that hold an owed ACK back: the one that moved the requests in
 * and the next. A consumer that polls its EVD until it is empty (Open
 * MPI's BTL) makes that next pass before it looks at what came, so
 * acking there would cost a frame its answer carries a moment later.
 */
#define ACK_PASSES	2

/*
 * One pass over @ep: read, then write, holding a standalone ACK back
 * for ACK_PASSES passes from the one that moved requests in, while fewer
 * than ACK_BATCH are owed (see sd_progress_defer). ep->lock held; the socket
 * attached, phase DATA.
 */
static void drive_one(struct sd_ep *ep)
{
	uint32_t before = ep->rx.executed, owed;

	if (!__atomic_load_n(&ep->driven, __ATOMIC_RELAXED))
		__atomic_store_n(&ep->driven, true, __ATOMIC_RELAXED);
	/* In RNR this only looks for a receive posted meanwhile. */
	sd_rx_progress(ep);
	if (ep->sock == NULL)
		return;
	if (ep->rx.executed != before)
		ep->tx.ack_passes = 0;
	owed = ep->rx.executed - ep->tx.ack_sent;
	ep->tx.ack_hold = owed > 0 && owed < ACK_BATCH &&
			  ep->tx.ack_passes < ACK_PASSES;
	if (ep->tx.ack_hold)
		ep->tx.ack_passes++;
	/* Room again, and no system call to know it: write on. */
	if (ep->tx.blocked && ep->sock->tp->writable(ep->sock->stream))
		ep->tx.blocked = false;
	sd_tx_progress(ep);
	ep->tx.ack_hold = false;
	if (ep->sock != NULL && ep->rx.executed != ep->tx.ack_sent)
		sd_progress_defer(ep);
}

/*
 * One round of progress on each of @eps: what their sockets hold is read
 * and placed, what is queued is written. An EP whose lock another thread
 * holds is skipped (that thread moves it). When @pfd is not NULL, fills it
 * with the sockets worth sleeping on (readable means work) and returns how
 * many; with @ready too, arms them for sleeping (wait_arm) and sets
 * *@ready when one had work already (then the caller does not sleep). No
 * lock held.
 */
static unsigned drive(struct sd_ep **eps, unsigned n, struct pollfd *pfd,
		      bool *ready)
{
	unsigned i, nfd = 0;

	for (i = 0; i < n; i++) {
		struct sd_ep *ep = eps[i];

		if (pthread_mutex_trylock(&ep->lock) != 0)
			continue;	/* its holder moves it */
		if (ep->sock != NULL && ep->sock->phase == SD_SK_DATA) {
			drive_one(ep);
			/* Waiting for a receive (RNR), readable is no news. */
			if (pfd != NULL && ep->sock != NULL &&
			    ep->rx.state != SD_RX_BUF) {
				struct sd_sock *sock = ep->sock;

				if (ready != NULL &&
				    sock->tp->wait_arm(sock->stream))
					*ready = true;
				pfd[nfd].fd = sock->tp->wait_fd(sock->stream);
				pfd[nfd].events = POLLIN | POLLRDHUP;
				pfd[nfd].revents = 0;
				nfd++;
			}
		}
		pthread_mutex_unlock(&ep->lock);
	}
	return nfd;
}

/* ---- dat_evd_dequeue and dat_evd_wait ---------------------------- */

bool sd_progress_poll(struct sd_evd *evd)
{
	struct sd_ep *eps[SD_DRIVE_MAX];
	unsigned n = drive_collect(evd, eps);

	if (n == 0)
		return false;
	pthread_mutex_unlock(&evd->lock);
	drive(eps, n, NULL, NULL);
	drive_put(eps, n);
	pthread_mutex_lock(&evd->lock);
	return true;
}

/* Waits that slept after spinning before a waiter stops spinning. */
#define SPIN_FAILS	4
/* Then one wait in this many spins again, to notice when it would pay. */
#define SPIN_PROBE	16

/* Nanoseconds from now to @t (CLOCK_MONOTONIC), negative once past. */
static int64_t ns_until(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)(t->tv_sec - now.tv_sec) * 1000000000 +
	       (t->tv_nsec - now.tv_nsec);
}

void sd_progress_wait(struct sd_evd *evd,
		      bool (*over)(const struct sd_evd *, DAT_COUNT),
		      DAT_COUNT threshold, const struct timespec *until)
{
	struct pollfd pfd[SD_DRIVE_MAX + 1];
	struct sd_ep *eps[SD_DRIVE_MAX];
	uint64_t spin_ns = 0;
	struct timespec spin_end;

	/*
	 * Spin only while spinning pays: after SPIN_FAILS waits in a row that
	 * slept anyway (long transfers, a slow peer), only every SPIN_PROBE-th
	 * wait tries again; the CPU is worth more to the engines then.
	 */
	if (evd->spin_fails < SPIN_FAILS || ++evd->spin_probe % SPIN_PROBE == 0)
		spin_ns = sd_engine_spin_get();

	if (spin_ns > 0)	/* whole microseconds (SOFTDAPL_SPIN_US) */
		sd_deadline(&spin_end, (DAT_TIMEOUT)(spin_ns / 1000));
	while (!over(evd, threshold)) {
		unsigned n = drive_collect(evd, eps), nfd;
		bool ready = false;
		struct timespec left;
		int64_t ns = 0;
		int efd;

		if (n == 0) {
			if (sd_cond_wait_until(&evd->cond, &evd->lock,
					       until) == ETIMEDOUT)
				break;
			continue;
		}
		pthread_mutex_unlock(&evd->lock);
		/* Arm the streams for sleeping only once spinning is over. */
		nfd = drive(eps, n, pfd + 1, spin_ns > 0 ? NULL : &ready);
		pthread_mutex_lock(&evd->lock);
		if (over(evd, threshold) ||
		    (until != NULL && (ns = ns_until(until)) <= 0)) {
			drive_put(eps, n);
			break;
		}
		if (ready) {		/* bytes came after the pass looked */
			drive_put(eps, n);
			continue;
		}
		if (spin_ns > 0) {
			if (ns_until(&spin_end) > 0) {
				sd_polled();
				drive_put(eps, n);
				continue;
			}
			sd_engine_spin_put();
			spin_ns = 0;
			if (evd->spin_fails < SPIN_FAILS)
				evd->spin_fails++;
			drive_put(eps, n);
			continue;	/* one more pass, arming to sleep */
		}
		efd = sd_evq_wait_fd(evd);
		if (efd < 0) {
			drive_put(eps, n);
			if (sd_cond_wait_until(&evd->cond, &evd->lock,
					       until) == ETIMEDOUT)
				break;
			continue;
		}
		evd->polling = true;
		pthread_mutex_unlock(&evd->lock);
		pfd[0].fd = efd;
		pfd[0].events = POLLIN;
		pfd[0].revents = 0;
		left.tv_sec = (time_t)(ns / 1000000000);
		left.tv_nsec = (long)(ns % 1000000000);
		if (ppoll(pfd, nfd + 1, until != NULL ? &left : NULL, NULL) > 0 &&
		    (pfd[0].revents & POLLIN))
			sd_evq_wait_clear(evd, efd);
		drive_put(eps, n);
		pthread_mutex_lock(&evd->lock);
		evd->polling = false;
	}
	if (spin_ns > 0) {
		sd_engine_spin_put();
		evd->spin_fails = 0;	/* it came while spinning */
	}
}

/* ---- the engine's readiness dispatch ---------------------------- */

void sd_progress_io(struct sd_ep *ep, int status, int events)
{
	SD_ASSERT_HELD(&ep->lock);
	SD_ASSERT_ENGINE();
	if (status < 0 && !(events & (UV_READABLE | UV_WRITABLE))) {
		sd_qp_close(ep, DAT_CONNECTION_EVENT_BROKEN, NULL, "socket error");
		return;
	}
	if (events & UV_WRITABLE) {
		ep->tx.blocked = false;
		sd_tx_progress(ep);
	}
	if (ep->sock == NULL)
		return;
	if (events & UV_READABLE && status >= 0 && !(events & UV_DISCONNECT) &&
	    sd_progress_driven(ep)) {
		sd_progress_park(ep);	/* a consumer reads it (progress.h) */
	} else if (events & UV_DISCONNECT && ep->rx.state == SD_RX_BUF) {
		/* RNR, and the peer has gone: nothing more will be read. */
		sd_qp_close(ep, DAT_CONNECTION_EVENT_DISCONNECTED, NULL,
			    "peer closed while waiting for a receive");
		return;
	} else if (events & UV_READABLE || status < 0 ||
		   (ep->parked && events & UV_DISCONNECT)) {
		/* Twice nothing: consumers read it first (progress.c). */
		if (sd_rx_progress(ep)) {
			ep->eng_miss = 0;
		} else if (++ep->eng_miss >= 2 && ep->sock != NULL &&
			 ep->rx.state != SD_RX_BUF &&
			 uv_now(sd_engine_loop()) >= ep->park_hold)
			sd_progress_park(ep);
	}
	if (ep->sock == NULL)
		return;
	sd_tx_progress(ep);	/* an ACK owed, a fence lifted */
	sd_sock_update(ep);
}

void sd_progress_resume(struct sd_ep *ep)
{
	SD_ASSERT_HELD(&ep->lock);
	if (ep->sock == NULL || ep->sock->phase != SD_SK_DATA)
		return;
	if (ep->rx.state == SD_RX_BUF || sd_rx_staged(ep))
		sd_rx_progress(ep);
	if (ep->sock == NULL)
		return;
	sd_tx_progress(ep);	/* an ACK owed, a fence lifted */
	if (sd_engine_on_thread())
		sd_sock_update(ep);
	else
		sd_engine_submit(&ep->io_cmd);
}

void sd_progress_io_cmd(struct sd_cmd *cmd)
{
	struct sd_ep *ep = sd_container_of(cmd, struct sd_ep, io_cmd);

	SD_ASSERT_ENGINE();
	pthread_mutex_lock(&ep->lock);
	sd_progress_resume(ep);
	pthread_mutex_unlock(&ep->lock);
}

/* ---- owed ACKs and parked sockets: the engine's tick ------------- */

static struct {
	pthread_mutex_t	lock;		/* leaf: acks, ack_listed */
	struct sd_list	acks;		/* EPs owing an ACK, each referenced */
	struct sd_list	parked;		/* engine: parked EPs, referenced */
} tick = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.acks = { &tick.acks, &tick.acks },
	.parked = { &tick.parked, &tick.parked },
};

void sd_progress_defer(struct sd_ep *ep)
{
	pthread_mutex_lock(&tick.lock);
	if (ep->ack_listed) {
		pthread_mutex_unlock(&tick.lock);
		return;
	}
	ep->ack_listed = true;
	sd_qp_get(ep);
	sd_list_add_tail(&tick.acks, &ep->ack_node);
	pthread_mutex_unlock(&tick.lock);
	sd_engine_tick_want();
}

bool sd_progress_driven(const struct sd_ep *ep)
{
	SD_ASSERT_HELD(&ep->lock);
	return __atomic_load_n(&ep->driven, __ATOMIC_RELAXED) &&
	       ep->rx.state != SD_RX_BUF &&
	       uv_now(sd_engine_loop()) >= ep->park_hold;
}

void sd_progress_park(struct sd_ep *ep)
{
	if (ep->parked)
		return;
	ep->parked = true;
	sd_qp_get(ep);
	sd_list_add_tail(&tick.parked, &ep->park_node);
	sd_sock_update(ep);
	sd_engine_tick_want();
}

/*
 * Receives @ep has completed (rx.c counts them): what its consumer polls a
 * receive EVD for.
 */
static uint64_t recv_count(const struct sd_ep *ep)
{
	return __atomic_load_n(&ep->cnt[DCNT_EP_RECV], __ATOMIC_RELAXED) +
	       __atomic_load_n(&ep->cnt[DCNT_EP_RECV_RDMA_IMM],
			       __ATOMIC_RELAXED);
}

bool sd_progress_tick(void)
{
	struct sd_list parked, busy;
	bool more;

	SD_ASSERT_ENGINE();
	/*
	 * Unpark those no consumer passed over since the last tick; those
	 * consumers still read first park again.
	 */
	sd_list_init(&parked);
	sd_list_splice_tail(&parked, &tick.parked);
	while (!sd_list_empty(&parked)) {
		struct sd_ep *ep = sd_container_of(parked.next, struct sd_ep,
						   park_node);
		uint32_t executed;
		uint64_t recvs;

		sd_list_del(&ep->park_node);
		if (__atomic_exchange_n(&ep->driven, false, __ATOMIC_RELAXED)) {
			sd_list_add_tail(&tick.parked, &ep->park_node);
			continue;
		}
		pthread_mutex_lock(&ep->lock);
		ep->parked = false;
		ep->eng_miss = 0;
		/*
		 * Input waited for this tick, and for one shortly before:
		 * hold parking off (progress.h). Once alone is a consumer
		 * that was preempted, not one that reads elsewhere. Only
		 * one-sided requests count (an RDMA write, a read, an atomic
		 * executed here): a message or an ACK is something its
		 * consumer polls for and was kept from.
		 */
		executed = ep->rx.executed;
		recvs = recv_count(ep);
		if (ep->sock != NULL && ep->sock->phase == SD_SK_DATA &&
		    ep->rx.state != SD_RX_BUF && sd_rx_progress(ep)) {
			uint64_t now = uv_now(sd_engine_loop());

			if (ep->rx.executed - executed <=
			    recv_count(ep) - recvs) {
				ep->park_caught = 0;
			} else {
				if (ep->park_caught != 0 &&
				    now - ep->park_caught <= SD_PARK_CAUGHT_MS)
					ep->park_hold = now + SD_PARK_HOLD_MS;
				ep->park_caught = now;
			}
			if (ep->sock != NULL)
				sd_tx_progress(ep);	/* the ACKs it owes */
		}
		if (ep->sock != NULL)
			sd_sock_update(ep);
		pthread_mutex_unlock(&ep->lock);
		sd_qp_put(ep);
	}
	/*
	 * An EP whose lock a consumer holds is moving: its pass or post
	 * writes the ACK, most often inside the answer. It stays listed for
	 * the next tick rather than have the engine sleep on the lock and be
	 * woken by that consumer's unlock.
	 */
	sd_list_init(&busy);
	for (;;) {
		struct sd_ep *ep;

		pthread_mutex_lock(&tick.lock);
		if (sd_list_empty(&tick.acks)) {
			pthread_mutex_unlock(&tick.lock);
			break;
		}
		ep = sd_container_of(tick.acks.next, struct sd_ep, ack_node);
		sd_list_del(&ep->ack_node);
		ep->ack_listed = false;
		pthread_mutex_unlock(&tick.lock);

		if (pthread_mutex_trylock(&ep->lock) != 0) {
			bool listed;

			pthread_mutex_lock(&tick.lock);
			listed = ep->ack_listed;	/* its holder deferred again */
			if (!listed) {
				ep->ack_listed = true;
				sd_list_add_tail(&busy, &ep->ack_node);
			}
			pthread_mutex_unlock(&tick.lock);
			if (listed)
				sd_qp_put(ep);
			continue;
		}
		if (ep->sock != NULL && ep->sock->phase == SD_SK_DATA)
			sd_tx_progress(ep);	/* not held: the ACK goes */
		pthread_mutex_unlock(&ep->lock);
		sd_qp_put(ep);
	}
	pthread_mutex_lock(&tick.lock);
	sd_list_splice_tail(&tick.acks, &busy);
	more = !sd_list_empty(&tick.acks);
	pthread_mutex_unlock(&tick.lock);
	return more || !sd_list_empty(&tick.parked);
}

#if defined(__SANITIZE_THREAD__)
pthread_mutex_t sd_wire_order = PTHREAD_MUTEX_INITIALIZER;
#endif
