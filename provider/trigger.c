/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CNO triggering, below the CNO entry points (cno.c): what an EVD's
 * notification event does to its CNO, the calls of the proxy agent, and
 * the release of a CNO when its EVDs are gone (evq.c and ia.c call it).
 *
 * Triggering. An EVD triggers its CNO through sd_trigger_notify, under its
 * own lock (the lock order puts cno->lock inside evd->lock), when a
 * notification event arrives while it is enabled and nobody waits on it
 * directly; evd.c states those rules and their sources (CNO-1..CNO-4).
 * The notification is sticky: the CNO stays "fired", naming the latest
 * EVD that triggered it, until a dat_cno_wait or dat_cno_trigger takes
 * it, so one that arrives before the wait is not lost. The EVD is only a
 * hint (dat_cno_wait(3)): the consumer polls all its EVDs.
 *
 * The proxy agent is one-shot, as dat_cno_create(3) says and OFED does:
 * invoked at the next trigger, then no longer associated with the CNO
 * until dat_cno_modify_agent sets one again.
 *
 * The CNO rule: the proxy agent runs with no provider lock held, so it
 * may call back into the provider, on the EVD and on the EP that
 * triggered it (dat_evd_dequeue, dat_ep_post_recv, dat_ep_post_send,
 * dat_cno_modify_agent to arm itself again). The trigger takes the agent
 * (once: a second trigger finds none, or the one armed since), and it is
 * called exactly once for that trigger:
 *
 *   - dat_evd_post_se, whose caller holds no lock once the EVD's lock is
 *     dropped, calls it itself, on the consumer's thread, before it
 *     returns;
 *   - every other trigger (DTO and RMR bind completions, connection and
 *     CR events, async errors and watermark events, UD completions) comes
 *     with provider locks held (ep->lock, srq->lock, the async lock), so
 *     the agent is handed to the engine thread: agent_cmd, embedded in the
 *     CNO (nothing allocated), calls it from the engine's command loop,
 *     where no provider lock is held. A trigger that finds an agent
 *     still due there leaves the newly armed one for agent_cmd to take.
 *   - Releasing the CNO (below) calls the armed agent with a NULL EVD on
 *     the releasing thread after its locks are dropped; dat_cno_free and
 *     dat_ia_close call an agent still due the same way, so none is lost.
 *
 * An agent that runs on the engine thread must not block (dat_evd_wait,
 * dat_cno_wait) nor close the IA: the engine moves the data it would
 * wait for, and ia_close waits for the engine. An EVD freed while an
 * agent call for it is due is not named: that call gets a NULL EVD.
 *
 * Release (dat_cno_wait(3)). When the last EVD feeding the CNO is freed,
 * or the IA is closed, every waiter returns DAT_SUCCESS with a NULL EVD,
 * the proxy agent, if one is set, is called with a NULL EVD, and an fd
 * CNO becomes readable (dat_cno_trigger then gives a NULL EVD). A timeout
 * returns DAT_QUEUE_EMPTY with a NULL EVD, as the uDAPL page and OFED do.
 */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "engine.h"
#include "evq.h"
#include "ia.h"
#include "obj.h"
#include "util.h"

/* True while @cno has not been freed or destroyed. Caller holds cno->lock. */
bool sd_trigger_alive(const struct sd_cno *cno)
{
	SD_ASSERT_HELD(&cno->lock);
	return cno->obj.magic == SD_MAGIC_CNO;
}

/* Calls a proxy agent taken from the CNO, if any. No provider lock held. */
void sd_trigger_call_agent(DAT_OS_WAIT_PROXY_AGENT agent, struct sd_evd *evd)
{
	if (agent.proxy_agent_func != NULL)
		agent.proxy_agent_func(agent.instance_data, (DAT_EVD_HANDLE)evd);
}

/* Returns the agent and forgets it (one-shot). Caller holds cno->lock. */
static DAT_OS_WAIT_PROXY_AGENT cno_take_agent(struct sd_cno *cno)
{
	DAT_OS_WAIT_PROXY_AGENT agent = cno->agent;

	SD_ASSERT_HELD(&cno->lock);
	cno->agent.instance_data = NULL;
	cno->agent.proxy_agent_func = NULL;
	return agent;
}

/* Returns the agent due for the engine to call and forgets it. cno->lock. */
static DAT_OS_WAIT_PROXY_AGENT cno_take_due(struct sd_cno *cno)
{
	DAT_OS_WAIT_PROXY_AGENT agent = cno->due;

	SD_ASSERT_HELD(&cno->lock);
	cno->due.instance_data = NULL;
	cno->due.proxy_agent_func = NULL;
	cno->due_evd = NULL;
	return agent;
}

/*
 * agent_cmd (the CNO rule, at the top): on the engine thread, with no
 * provider lock held, calls each agent a trigger took, once, until none
 * is due; then frees the CNO if dat_cno_free or sd_trigger_destroy left that
 * to it. Allocates nothing.
 */
void sd_trigger_agent_cmd(struct sd_cmd *cmd)
{
	struct sd_cno *cno = sd_container_of(cmd, struct sd_cno, agent_cmd);
	DAT_OS_WAIT_PROXY_AGENT agent;
	struct sd_evd *evd;
	bool release;

	SD_ASSERT_ENGINE();
	assert(sd_engine_on_thread());
	pthread_mutex_lock(&cno->lock);
	assert(cno->agent_busy);
	/*
	 * A dead CNO's due agents went to whoever freed it
	 * (sd_trigger_retire).
	 */
	while (sd_trigger_alive(cno)) {
		if (cno->due.proxy_agent_func == NULL && cno->again) {
			/* The one a trigger left armed (none if removed since). */
			cno->due = cno_take_agent(cno);
			cno->due_evd = cno->again_evd;
			cno->again = false;
			cno->again_evd = NULL;
		}
		if (cno->due.proxy_agent_func == NULL)
			break;
		evd = cno->due_evd;
		agent = cno_take_due(cno);
		pthread_mutex_unlock(&cno->lock);
		sd_trigger_call_agent(agent, evd);
		pthread_mutex_lock(&cno->lock);
	}
	cno->agent_busy = false;
	release = cno->free_pending;
	pthread_mutex_unlock(&cno->lock);
	if (release)
		sd_trigger_release(cno);
}

/*
 * The CNO is dead (dat_cno_free, sd_trigger_destroy): moves the agents still
 * owed a call into @owed (the one due, and the armed one a trigger left
 * for the engine), for the caller to call with a NULL EVD once its locks
 * are dropped. Returns true when the caller frees the CNO, false when
 * agent_cmd is queued or running and frees it. Caller holds cno->lock.
 */
bool sd_trigger_retire(struct sd_cno *cno, DAT_OS_WAIT_PROXY_AGENT owed[2])
{
	SD_ASSERT_HELD(&cno->lock);
	owed[0] = cno_take_due(cno);
	owed[1] = cno->again ? cno_take_agent(cno) :
		  (DAT_OS_WAIT_PROXY_AGENT){ NULL, NULL };
	cno->again = false;
	cno->again_evd = NULL;
	if (cno->agent_busy) {
		cno->free_pending = true;
		return false;
	}
	return true;
}

/*
 * Marks @cno fired by @evd (NULL: released) and makes its fd readable if
 * it was not fired yet: one write per pending trigger, so that one read
 * clears it. An eventfd write of 1 cannot fail here (the counter never
 * nears its limit) and allocates nothing. Caller holds cno->lock.
 */
static void cno_fire(struct sd_cno *cno, struct sd_evd *evd)
{
	uint64_t one = 1;

	SD_ASSERT_HELD(&cno->lock);
	if (!cno->fired && cno->fd >= 0 &&
	    write(cno->fd, &one, sizeof(one)) != (ssize_t)sizeof(one))
		sd_dbg("cno %p: eventfd write failed (errno %d)", (void *)cno,
		       errno);
	cno->fired = true;
	cno->triggered = evd;
}

/*
 * Releases every waiter with a NULL EVD and makes an fd CNO readable
 * (dat_cno_wait(3)); returns the agent for the caller to call with a NULL
 * EVD. Caller holds cno->lock.
 */
static DAT_OS_WAIT_PROXY_AGENT cno_release_all(struct sd_cno *cno)
{
	SD_ASSERT_HELD(&cno->lock);
	if (cno->fd >= 0)
		cno_fire(cno, NULL);
	cno->release++;
	pthread_cond_broadcast(&cno->cond);
	return cno_take_agent(cno);
}

/* Frees an unlisted, unused CNO, closing its fd. */
void sd_trigger_release(struct sd_cno *cno)
{
	if (cno->fd >= 0)
		close(cno->fd);
	pthread_cond_destroy(&cno->cond);
	pthread_mutex_destroy(&cno->lock);
	free(cno);
}

DAT_OS_WAIT_PROXY_AGENT sd_trigger_notify(struct sd_cno *cno,
					  struct sd_evd *evd, bool direct)
{
	DAT_OS_WAIT_PROXY_AGENT agent = { NULL, NULL };

	pthread_mutex_lock(&cno->lock);
	cno_fire(cno, evd);
	if (cno->agent.proxy_agent_func != NULL && direct) {
		agent = cno_take_agent(cno);
	} else if (cno->agent.proxy_agent_func != NULL) {
		/* The CNO rule: the engine calls it. */
		if (cno->due.proxy_agent_func == NULL) {
			cno->due = cno_take_agent(cno);
			cno->due_evd = evd;
		} else {
			cno->again = true;
			cno->again_evd = evd;
		}
		if (!cno->agent_busy) {
			cno->agent_busy = true;
			sd_engine_submit(&cno->agent_cmd);
		}
	}
	if (cno->waiters > 0)
		pthread_cond_signal(&cno->cond);
	pthread_mutex_unlock(&cno->lock);
	return agent;
}

void sd_trigger_forget_evd(struct sd_cno *cno, struct sd_evd *evd)
{
	pthread_mutex_lock(&cno->lock);
	if (cno->triggered == evd)
		cno->triggered = NULL;	/* never hand out a freed EVD */
	if (cno->due_evd == evd)
		cno->due_evd = NULL;
	if (cno->again_evd == evd)
		cno->again_evd = NULL;
	pthread_mutex_unlock(&cno->lock);
}

DAT_OS_WAIT_PROXY_AGENT sd_trigger_orphaned(struct sd_cno *cno)
{
	DAT_OS_WAIT_PROXY_AGENT agent;

	pthread_mutex_lock(&cno->lock);
	agent = cno_release_all(cno);
	pthread_mutex_unlock(&cno->lock);
	return agent;
}

void sd_trigger_destroy(struct sd_cno *cno)
{
	DAT_OS_WAIT_PROXY_AGENT agent, owed[2];
	struct sd_ia *ia = cno->obj.ia;
	bool release;

	pthread_mutex_lock(&ia->lock);
	pthread_mutex_lock(&cno->lock);
	cno->obj.magic = SD_MAGIC_DEAD;
	release = sd_trigger_retire(cno, owed);	/* before: it may take the armed */
	agent = cno_release_all(cno);
	/* Each waiter sees the CNO dead, returns and signals back. */
	while (cno->waiters > 0) {
		pthread_cond_broadcast(&cno->cond);
		pthread_cond_wait(&cno->cond, &cno->lock);
	}
	pthread_mutex_unlock(&cno->lock);
	sd_list_del(&cno->obj.node);
	pthread_mutex_unlock(&ia->lock);
	sd_trigger_call_agent(owed[0], NULL);
	sd_trigger_call_agent(owed[1], NULL);
	sd_trigger_call_agent(agent, NULL);
	if (release)
		sd_trigger_release(cno);
}
