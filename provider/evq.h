/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl, layer 3: events below the entry points. The EVD and the CNO
 * (struct sd_evd, struct sd_cno), posting to an EVD (evq.c), CNO
 * triggering (trigger.c), and the IA's async errors (evq.c).
 */
#ifndef SD_EVQ_H
#define SD_EVQ_H

#include "engine.h"
#include "obj.h"

/* ------------------------------------------------------------------ */
/* Events (evd.c, evq.c, cno.c, trigger.c)                            */

struct sd_cno;

/*
 * The longest event queue an EVD may have: ia_query reports it as
 * max_evd_qlen; a longer evd_min_qlen gives DAT_INSUFFICIENT_RESOURCES
 * (DAT_RESOURCE_TEVD), as OFED does when the HCA's CQ is too small.
 */
#define SD_MAX_EVD_QLEN		(1 << 20)

/* The event streams of DAT_EVD_FLAGS we know; extensions are refused. */
#define SD_EVD_FLAGS_KNOWN \
	(DAT_EVD_SOFTWARE_FLAG | DAT_EVD_CR_FLAG | DAT_EVD_DTO_FLAG | \
	 DAT_EVD_CONNECTION_FLAG | DAT_EVD_RMR_BIND_FLAG | DAT_EVD_ASYNC_FLAG)

/*
 * EVDs and PZs per IA that ia_query reports as max_evds and max_pzs.
 * Reported, not enforced: both are plain memory, so an IA may in fact
 * create more.
 */
#define SD_MAX_EVDS		65536
#define SD_MAX_PZS		65536

/*
 * An event dispatcher: a ring of @qlen events, allocated at creation (and
 * by resize), so that posting, dequeueing and waiting allocate nothing.
 * At most one thread waits in dat_evd_wait at a time. evd.c states the
 * rules (waiting, notification, overflow) and where each comes from.
 */
struct sd_evd {
	struct sd_obj		obj;
	pthread_mutex_t		lock;
	pthread_cond_t		cond;		/* CLOCK_MONOTONIC; the waiter sleeps on it */
	DAT_EVD_FLAGS		flags;		/* const */
	DAT_EVENT		*ring;		/* lock; qlen slots */
	DAT_COUNT		qlen;		/* lock */
	DAT_COUNT		head;		/* lock; oldest event */
	DAT_COUNT		count;		/* lock; events in the ring */
	bool			enabled;	/* lock */
	bool			waitable;	/* lock */
	bool			overflowed;	/* lock; an event was lost: the EVD is
						 * out of service for good (evd.c) */
	uint64_t		lost;		/* lock; events lost to the overflow,
						 * the first and every later one */
	DAT_COUNT		threshold;	/* lock; of the current waiter */
	bool			notified;	/* lock; a notification event came during the wait */
	bool			unwaited;	/* lock; set_unwaitable released the waiter */
	unsigned		waiters;	/* lock; 0 or 1 */
	struct sd_cno		*cno;		/* lock, and ia->lock to change it */
	unsigned		refs;		/* ia->lock: EPs, PSPs, RSPs, SRQs using it */
	struct sd_list		drive;		/* lock: sd_drive_link of the EPs
						 * completing here (progress.c) */
	unsigned		ndrive;		/* lock: links in @drive */
	int			efd;		/* lock: eventfd that wakes a waiter
						 * asleep in poll(); -1 until one is */
	bool			polling;	/* lock: the waiter sleeps in poll() */
	uint8_t			spin_fails;	/* lock: waits that spun in vain */
	uint8_t			spin_probe;	/* lock: waits since, modulo 256 */
	uint64_t		cnt[DCNT_EVD_ALL_COUNTERS];	/* sd_cnt_*: DCNT_EVD_* */
};

/*
 * Creates an EVD of at least @qlen events accepting the streams of @flags
 * and lists it in ia->evds; ia_open uses it for the async EVD. Returns
 * 0, -EINVAL (qlen <= 0), -EOVERFLOW (qlen > SD_MAX_EVD_QLEN),
 * -EOPNOTSUPP (unknown flags) or -ENOMEM, in that order of checks. Takes
 * ia->lock.
 */
int sd_evq_create(struct sd_ia *ia, DAT_COUNT qlen, DAT_EVD_FLAGS flags,
		  struct sd_evd **out);

/*
 * Unlists and frees @evd whatever its references (ia_close abrupt): a
 * thread blocked in dat_evd_wait returns DAT_ABORT first. Takes ia->lock:
 * the caller must not hold it.
 */
void sd_evq_destroy(struct sd_evd *evd);

/*
 * The EVD behind handle @h for an EP, which must accept the stream @flag
 * and, when @ia is not NULL, belong to @ia (an RC EP may use the EVDs of
 * another IA of this provider, as OFED allows; a UD EP may not). 0 with
 * *@out the EVD, or NULL for DAT_HANDLE_NULL; -EINVAL (and *@out NULL)
 * for anything else. Used by ep.c and ud.c.
 */
int sd_evq_from_handle(DAT_EVD_HANDLE h, DAT_EVD_FLAGS flag,
		       const struct sd_ia *ia, struct sd_evd **out);

/*
 * Appends @ev to @evd (its evd_handle is set to @evd) and wakes the waiter
 * once the ring holds its threshold, or, when nobody waits and the EVD is
 * enabled, triggers its CNO. Any thread; takes evd->lock (and cno->lock),
 * so the caller may hold an EP or SRQ lock but no EVD or CNO lock.
 * Allocates nothing. Returns 0, or -ENOSPC when the event is lost: the
 * ring was full, which overflows the EVD, or the EVD had overflowed before.
 *
 * The overflow rule (evd.c, Overflow: the DAT pages leave an overflow to
 * the provider, dat_ep_create(3), dat_evd_set_unwaitable(3); OFED
 * 2.1.10's catastrophic_overflow: dat_evd_wait and dat_evd_dequeue return
 * DAT_INVALID_STATE from then on).
 * An event the EVD cannot hold is accounted for, never silently dropped:
 * the first one puts the EVD in its overflow state for good (its waiter
 * is released with DAT_INVALID_STATE, dat_evd_wait, dat_evd_dequeue and
 * dat_evd_resize return DAT_INVALID_STATE, dat_evd_post_se
 * DAT_QUEUE_FULL) and posts DAT_ASYNC_ERROR_EVD_OVERFLOW naming it, once,
 * through sd_evq_async_error; every lost event, that one and all later
 * ones, counts in evd->lost and is traced dropped=overflow. A poster of
 * completions passes -ENOSPC to its `dto` trace line; what a lost
 * completion means for its EP is the poster's to decide (the DTO
 * posters: nothing, the EP goes on and the work request is done).
 */
int sd_evq_post(struct sd_evd *evd, const DAT_EVENT *ev);

/*
 * A DTO completion for @ep on @evd; as sd_evq_post, except that a
 * completion that is not a notification event (@notify false: an
 * unsignalled DTO, or a receive that did not ask for a solicited event on
 * an EP configured for DAT_COMPLETION_SOLICITED_WAIT_FLAG) is queued
 * without waking a waiter or triggering the CNO (SEND-2, RECV-3, SRQ-3).
 */
int sd_evq_post_dto(struct sd_evd *evd, DAT_EP_HANDLE ep, DAT_DTO_COOKIE cookie,
		    DAT_DTO_COMPLETION_STATUS status, DAT_SEG_LENGTH len,
		    DAT_DTOS op, bool notify);

/*
 * A completion event the caller built (an RMR bind, a DTO of the IB
 * extension, a UD DTO, a receive with invalidate); as sd_evq_post_dto
 * for @notify: false queues it without waking a waiter or triggering
 * the CNO (SEND-2, RECV-3, SRQ-3).
 */
int sd_evq_post_completion(struct sd_evd *evd, const DAT_EVENT *ev,
			   bool notify);

/*
 * dat_evd_post_se's post of its software event: as sd_evq_post, except
 * that a full ring is not an overflow (the event is refused, -ENOSPC) and
 * that the CNO's proxy agent, if the event triggers it, is called by this
 * function once evd->lock is dropped (the CNO rule, trigger.c), so the
 * caller must hold no provider lock.
 */
int sd_evq_post_se(struct sd_evd *evd, const DAT_EVENT *ev);

/*
 * What evd.c uses of evq.c. sd_evq_wake wakes the thread waiting on @evd
 * (evd->lock held). sd_evq_state_str writes the EVD state that trace
 * lines name ("ENABLED|WAITABLE") into @buf. sd_evq_set_cno points @evd
 * at @cno (either may be NULL) and moves the CNO references (ia->lock
 * held); when @freeing drops the old CNO's last EVD it returns that CNO's
 * proxy agent, for the caller to call with sd_evq_call_agent and a NULL
 * EVD once every lock is dropped. sd_evq_release frees an unlisted,
 * unused EVD that sd_evq_create made.
 */
void sd_evq_wake(struct sd_evd *evd);
const char *sd_evq_state_str(bool enabled, bool waitable, bool overflowed,
			     char *buf, size_t n);
DAT_OS_WAIT_PROXY_AGENT sd_evq_set_cno(struct sd_evd *evd, struct sd_cno *cno,
				       bool freeing);
void sd_evq_call_agent(DAT_OS_WAIT_PROXY_AGENT agent, struct sd_evd *evd);
void sd_evq_release(struct sd_evd *evd);

/*
 * What the waiter of dat_evd_wait (progress.c) uses of evq.c while it
 * sleeps in poll(). sd_evq_wait_fd returns the EVD's eventfd, which
 * sd_evq_wake writes while evd->polling, made on first use; -1 when none
 * can be made. evd->lock held. sd_evq_wait_clear takes what was written to
 * that fd @fd once poll() found it readable. No lock held. The fd is
 * closed with the EVD (sd_evq_release).
 */
int sd_evq_wait_fd(struct sd_evd *evd);
void sd_evq_wait_clear(const struct sd_evd *evd, int fd);

/*
 * A consumer notification object. "Fired" is sticky: a notification that
 * arrives with nobody in dat_cno_wait is returned by the next wait (or
 * dat_cno_trigger). A CNO made by dat_cno_fd_create has an eventfd that
 * is readable exactly while it is fired (cno.c).
 */
struct sd_cno {
	struct sd_obj		obj;
	pthread_mutex_t		lock;
	pthread_cond_t		cond;		/* CLOCK_MONOTONIC; waiters sleep on it */
	int			fd;		/* const; the eventfd, -1 without one */
	DAT_OS_WAIT_PROXY_AGENT	agent;		/* lock; one-shot, cleared when called */
	bool			fired;		/* lock; a notification not yet taken */
	struct sd_evd		*triggered;	/* lock; EVD that fired, if any */
	unsigned		waiters;	/* lock; threads in dat_cno_wait */
	unsigned		release;	/* lock; bumped to release every waiter
						 * with a NULL EVD */
	unsigned		refs;		/* ia->lock: EVDs using it */
	/*
	 * The agent calls the engine makes (trigger.c, the CNO rule): @due is
	 * an agent a trigger took and nobody called yet, for @due_evd;
	 * @again says a later trigger found @due taken and left the armed
	 * agent for the engine to take, for @again_evd. @agent_busy is
	 * set while @agent_cmd is queued or running; a CNO freed meanwhile
	 * is left to it (@free_pending) to free.
	 */
	struct sd_cmd		agent_cmd;	/* fn const */
	DAT_OS_WAIT_PROXY_AGENT	due;		/* lock */
	struct sd_evd		*due_evd;	/* lock */
	bool			again;		/* lock */
	struct sd_evd		*again_evd;	/* lock */
	bool			agent_busy;	/* lock */
	bool			free_pending;	/* lock */
};

/*
 * Notifies @cno that @evd received a notification event while enabled
 * and not waited on: records it as the EVD that triggered the CNO, makes
 * an fd CNO readable and wakes one waiter. Called by evq.c with
 * evd->lock held (cno->lock nests inside it); allocates nothing. The
 * proxy agent, if one is armed, is taken (dat_cno_create(3): invoked
 * once, then no longer associated). With @direct (dat_evd_post_se: the
 * caller holds no provider lock once it drops evd->lock) it is returned
 * for the caller to call with @evd after dropping evd->lock, if
 * proxy_agent_func is set; otherwise the engine thread calls it (the
 * CNO rule, trigger.c) and a null agent is returned.
 */
DAT_OS_WAIT_PROXY_AGENT sd_trigger_notify(struct sd_cno *cno,
					  struct sd_evd *evd, bool direct);

/*
 * @evd, which fed @cno, is being freed: a trigger of its that the CNO
 * holds (sticky, or an agent call not yet made) no longer names it.
 * Called by evq.c with ia->lock held.
 */
void sd_trigger_forget_evd(struct sd_cno *cno, struct sd_evd *evd);

/*
 * The last EVD feeding @cno was freed (dat_cno_wait(3)): every thread in
 * dat_cno_wait returns DAT_SUCCESS with a NULL EVD and an fd CNO becomes
 * readable (dat_cno_trigger then gives a NULL EVD). Returns the proxy
 * agent, which the CNO forgets, for the caller to call with a NULL EVD
 * once its locks are dropped. Called by evq.c with ia->lock held.
 */
DAT_OS_WAIT_PROXY_AGENT sd_trigger_orphaned(struct sd_cno *cno);

/*
 * Unlists and frees @cno whatever its references (ia_close abrupt, after
 * the IA's EVDs are destroyed), releasing its waiters and agent as when
 * its last EVD is freed; closes its fd. Takes ia->lock: the caller must
 * not hold it.
 */
void sd_trigger_destroy(struct sd_cno *cno);

/*
 * What cno.c uses of trigger.c. sd_trigger_alive: true while @cno has not
 * been freed or destroyed (cno->lock held). sd_trigger_call_agent calls
 * @agent with @evd if it has a function; no provider lock held.
 * sd_trigger_agent_cmd is the engine command that calls the agents the
 * triggers took (cno->agent_cmd.fn). sd_trigger_retire, on a dead CNO,
 * moves the agents still owed a call into @owed for the caller to call
 * with a NULL EVD once its locks are dropped, and returns true when the
 * caller frees the CNO (sd_trigger_release), false when the agent command
 * does (cno->lock held). sd_trigger_release frees an unlisted, unused CNO
 * and closes its fd.
 */
bool sd_trigger_alive(const struct sd_cno *cno);
void sd_trigger_call_agent(DAT_OS_WAIT_PROXY_AGENT agent, struct sd_evd *evd);
void sd_trigger_agent_cmd(struct sd_cmd *cmd);
bool sd_trigger_retire(struct sd_cno *cno, DAT_OS_WAIT_PROXY_AGENT owed[2]);
void sd_trigger_release(struct sd_cno *cno);

/* ------------------------------------------------------------------ */
/* Async errors (evq.c)                                               */

/*
 * Posts an asynchronous event @ev about object @h with @reason on @ia's
 * async EVD: a DAT_ASYNC_ERROR_* with its DAT_*_ERROR reason, or a
 * watermark event (SD_EVENT_WATERMARK, qp.h, with the DAT_SRQ_*_EVENT
 * reason). The one path to the async EVD: it counts the event
 * (DCNT_IA_ASYNC_*). @h == @ia is reported as the consumer's IA handle.
 * Any thread, with no EVD or CNO lock held (an EP or SRQ lock is fine);
 * takes the async lock, then the EVD's. Dropped, with a debug message,
 * when the IA has no async EVD or that EVD is full; a recursive call (the
 * async EVD overflowing while this posts) is dropped too. @ia must stay
 * open meanwhile: callers hold one of its objects that ia_close destroys
 * only after they return.
 */
void sd_evq_async_error(struct sd_ia *ia, DAT_EVENT_NUMBER ev, DAT_HANDLE h,
		    DAT_COUNT reason);

/*
 * The async lock (evq.c): held while an async error is posted and while
 * an ia->async_evd changes (ia.c, with ia->lock), so that the EVD an error
 * is posted to cannot be destroyed meanwhile.
 */
extern pthread_mutex_t sd_evq_async_lock;

#endif
