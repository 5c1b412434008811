/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Consumer notification objects (DAT 2.0, 6.3.2): one thread or proxy
 * agent waits here for any of several EVDs of the IA.
 *
 * An EVD that receives an event while it is enabled and nobody waits on
 * it directly calls sd_cno_notify under its own lock (the lock order puts
 * cno->lock inside evd->lock). The notification is sticky: it stays
 * "fired", naming the EVD, until a dat_cno_wait takes it, so one that
 * arrives before the wait is not lost. The EVD is only a hint
 * (dat_cno_wait(3)): the consumer polls all its EVDs.
 *
 * The proxy agent is one-shot, as the spec says and OFED does: invoked at
 * the next notification, then no longer associated with the CNO until
 * dat_cno_modify_agent sets one again. It is called by the notifying
 * thread after every provider lock is dropped, so it may call back into
 * the provider (dat_evd_dequeue, typically).
 *
 * When the last EVD feeding the CNO is freed while threads wait, a waiter
 * is released with a NULL EVD (dat_cno_wait(3)); a timeout returns
 * DAT_QUEUE_EMPTY with a NULL EVD, as the uDAPL page and OFED do.
 */
#include <errno.h>
#include <stdlib.h>

#include "entry.h"
#include "softdapl.h"

#define SD_CNO_BAD_HANDLE SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO)

/* The live CNO behind a consumer handle, or NULL. */
static struct sd_cno *cno_from_handle(DAT_CNO_HANDLE h)
{
	struct sd_obj *obj = sd_obj_check(h, SD_MAGIC_CNO);

	return obj ? sd_container_of(obj, struct sd_cno, obj) : NULL;
}

/* True while @cno has not been freed or destroyed. Caller holds cno->lock. */
static bool cno_alive(const struct sd_cno *cno)
{
	return cno->obj.magic == SD_MAGIC_CNO;
}

/* Frees an unlisted, unused CNO. */
static void cno_release(struct sd_cno *cno)
{
	pthread_cond_destroy(&cno->cond);
	pthread_mutex_destroy(&cno->lock);
	free(cno);
}

DAT_OS_WAIT_PROXY_AGENT sd_cno_notify(struct sd_cno *cno, struct sd_evd *evd)
{
	DAT_OS_WAIT_PROXY_AGENT agent;

	pthread_mutex_lock(&cno->lock);
	cno->fired = true;
	cno->triggered = evd;
	agent = cno->agent;
	cno->agent.instance_data = NULL;
	cno->agent.proxy_agent_func = NULL;
	if (cno->waiters > 0)
		pthread_cond_signal(&cno->cond);
	pthread_mutex_unlock(&cno->lock);
	return agent;
}

/*
 * dat_cno_create: a CNO of the IA with an optional proxy agent.
 * DAT_INVALID_HANDLE for the IA, DAT_INVALID_PARAMETER without cno_handle,
 * DAT_INSUFFICIENT_RESOURCES without memory.
 */
DAT_RETURN DAT_API sd_cno_create(DAT_IA_HANDLE ia_handle,
				 DAT_OS_WAIT_PROXY_AGENT agent,
				 DAT_CNO_HANDLE *cno_handle)
{
	struct sd_cno *cno;
	struct sd_ia *ia;

	ia = sd_ia_from_handle(ia_handle);
	if (ia == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	if (cno_handle == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);

	cno = calloc(1, sizeof(*cno));
	if (cno == NULL)
		goto fail;
	if (pthread_mutex_init(&cno->lock, NULL) != 0)
		goto fail_cno;
	if (sd_cond_init(&cno->cond) != 0)
		goto fail_lock;
	sd_obj_init(&cno->obj, ia, SD_MAGIC_CNO, DAT_HANDLE_TYPE_CNO);
	cno->agent = agent;

	pthread_mutex_lock(&ia->lock);
	sd_list_add_tail(&ia->cnos, &cno->obj.node);
	pthread_mutex_unlock(&ia->lock);
	*cno_handle = (DAT_CNO_HANDLE)cno;
	return DAT_SUCCESS;

fail_lock:
	pthread_mutex_destroy(&cno->lock);
fail_cno:
	free(cno);
fail:
	return SD_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
}

/* dat_cno_modify_agent: the agent the next notification calls. */
DAT_RETURN DAT_API sd_cno_modify_agent(DAT_CNO_HANDLE cno_handle,
				       DAT_OS_WAIT_PROXY_AGENT agent)
{
	struct sd_cno *cno = cno_from_handle(cno_handle);

	if (cno == NULL)
		return SD_CNO_BAD_HANDLE;
	pthread_mutex_lock(&cno->lock);
	cno->agent = agent;
	pthread_mutex_unlock(&cno->lock);
	return DAT_SUCCESS;
}

/*
 * dat_cno_query: every field whatever the mask (the DAT_CNO_FIELD_* values
 * are not bits). proxy_type is DAT_PROXY_TYPE_AGENT while an agent is set,
 * else DAT_PROXY_TYPE_NONE.
 */
DAT_RETURN DAT_API sd_cno_query(DAT_CNO_HANDLE cno_handle,
				DAT_CNO_PARAM_MASK mask, DAT_CNO_PARAM *param)
{
	struct sd_cno *cno = cno_from_handle(cno_handle);

	if (cno == NULL)
		return SD_CNO_BAD_HANDLE;
	if (param == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);

	param->ia_handle = sd_ia_handle(cno->obj.ia);
	pthread_mutex_lock(&cno->lock);
	if (cno->agent.proxy_agent_func != NULL) {
		param->proxy_type = DAT_PROXY_TYPE_AGENT;
		param->proxy.agent = cno->agent;
	} else {
		param->proxy_type = DAT_PROXY_TYPE_NONE;
		param->proxy.none = NULL;
	}
	pthread_mutex_unlock(&cno->lock);
	return DAT_SUCCESS;
}

/*
 * dat_cno_free: DAT_INVALID_STATE / DAT_INVALID_STATE_CNO_IN_USE while an
 * EVD feeds the CNO or a thread waits on it (dat_cno_free(3)).
 */
DAT_RETURN DAT_API sd_cno_free(DAT_CNO_HANDLE cno_handle)
{
	struct sd_cno *cno;
	struct sd_ia *ia;

	cno = cno_from_handle(cno_handle);
	if (cno == NULL)
		return SD_CNO_BAD_HANDLE;
	ia = cno->obj.ia;

	pthread_mutex_lock(&ia->lock);
	pthread_mutex_lock(&cno->lock);
	if (cno->refs > 0 || cno->waiters > 0) {
		pthread_mutex_unlock(&cno->lock);
		pthread_mutex_unlock(&ia->lock);
		return SD_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_CNO_IN_USE);
	}
	cno->obj.magic = SD_MAGIC_DEAD;
	pthread_mutex_unlock(&cno->lock);
	sd_list_del(&cno->obj.node);
	pthread_mutex_unlock(&ia->lock);
	cno_release(cno);
	return DAT_SUCCESS;
}

void sd_cno_destroy(struct sd_cno *cno)
{
	struct sd_ia *ia = cno->obj.ia;

	pthread_mutex_lock(&ia->lock);
	pthread_mutex_lock(&cno->lock);
	cno->obj.magic = SD_MAGIC_DEAD;
	/* Each waiter sees the CNO dead, returns DAT_ABORT and signals back. */
	while (cno->waiters > 0) {
		pthread_cond_broadcast(&cno->cond);
		pthread_cond_wait(&cno->cond, &cno->lock);
	}
	pthread_mutex_unlock(&cno->lock);
	sd_list_del(&cno->obj.node);
	pthread_mutex_unlock(&ia->lock);
	cno_release(cno);
}

/*
 * dat_cno_wait: blocks until a notification (returned at once if one is
 * pending) and sets *evd_handle to the EVD that fired, NULL when the CNO
 * lost its last EVD. After @timeout microseconds (DAT_TIMEOUT_INFINITE:
 * never) returns DAT_QUEUE_EMPTY with *evd_handle NULL (dat_cno_wait(3)
 * and OFED; not DAT_TIMEOUT_EXPIRED). DAT_ABORT when the IA is closed
 * underneath. Any number of threads may wait; each notification releases
 * one.
 */
DAT_RETURN DAT_API sd_cno_wait(DAT_CNO_HANDLE cno_handle, DAT_TIMEOUT timeout,
			       DAT_EVD_HANDLE *evd_handle)
{
	struct timespec deadline, *until = NULL;
	struct sd_cno *cno;
	DAT_RETURN ret = DAT_SUCCESS;

	cno = cno_from_handle(cno_handle);
	if (cno == NULL)
		return SD_CNO_BAD_HANDLE;
	if (evd_handle == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);

	pthread_mutex_lock(&cno->lock);
	if (!cno->fired && timeout != 0) {
		if (timeout != DAT_TIMEOUT_INFINITE) {
			sd_deadline(&deadline, timeout);
			until = &deadline;
		}
		cno->waiters++;
		while (!cno->fired && cno_alive(cno)) {
			if (sd_cond_wait_until(&cno->cond, &cno->lock,
					       until) == ETIMEDOUT)
				break;
		}
		cno->waiters--;
		if (!cno_alive(cno)) {
			/* sd_cno_destroy waits for the last of us. */
			pthread_cond_broadcast(&cno->cond);
			pthread_mutex_unlock(&cno->lock);
			*evd_handle = DAT_HANDLE_NULL;
			return SD_ERR(DAT_ABORT, DAT_NO_SUBTYPE);
		}
	}
	if (cno->fired) {
		*evd_handle = (DAT_EVD_HANDLE)cno->triggered;
		cno->fired = false;
		cno->triggered = NULL;
	} else {
		*evd_handle = DAT_HANDLE_NULL;
		ret = SD_ERR(DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE);
	}
	pthread_mutex_unlock(&cno->lock);
	return ret;
}

/*
 * dat_cno_fd_create and dat_cno_trigger, the DAT 2.0 CNO bound to a file
 * descriptor, come with a later issue; OFED 2.1.10 does not implement
 * them either (it returns DAT_MODEL_NOT_SUPPORTED).
 */
DAT_RETURN DAT_API sd_cno_fd_create(DAT_IA_HANDLE ia_handle, DAT_FD *fd,
				    DAT_CNO_HANDLE *cno_handle)
{
	return SD_ERR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
}

DAT_RETURN DAT_API sd_cno_trigger(DAT_CNO_HANDLE cno_handle,
				  DAT_EVD_HANDLE *evd_handle)
{
	return SD_ERR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
}
