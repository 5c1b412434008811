/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Consumer notification objects (DAT 2.0, 6.3.2): one thread, proxy agent
 * or file descriptor waits here for any of several EVDs of the IA.
 *
 * Triggering, the proxy agent and the CNO rule, and the release of a
 * CNO whose EVDs are gone: trigger.c.
 *
 * The file descriptor (dat_cno_fd_create, DAT 2.0). The CNO owns an
 * eventfd (non-blocking, close-on-exec) that is readable exactly while
 * the CNO is fired: poll(2), select(2) and epoll(7) see POLLIN/EPOLLIN
 * when a trigger is pending. The consumer does not read it: the next
 * dat_cno_trigger (or dat_cno_wait) takes the trigger, returns the EVD
 * and makes the fd unreadable again in the same step. A consumer that
 * reads the fd itself loses nothing (the CNO stays fired, and the next
 * dat_cno_trigger returns the EVD), but the fd then stays unreadable
 * until that trigger is taken. The fd is closed by dat_cno_free (or
 * dat_ia_close): the consumer must stop polling it first.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "entry.h"
#include "evq.h"
#include "ia.h"
#include "obj.h"
#include "refuse.h"
#include "util.h"

/* The refusal of @call's cno_handle @h, which names no live CNO. */
#define SD_CNO_BAD_HANDLE(call, h)					\
	sd_refuse_handle(call, NULL, "cno_handle", h, SD_MAGIC_CNO,	\
			 DAT_INVALID_HANDLE_CNO)

/*
 * DAT_QUEUE_EMPTY from dat_cno_wait and dat_cno_trigger is an outcome
 * (no trigger came), not a refusal: it says nothing.
 */

/* The live CNO behind a consumer handle, or NULL. */
static struct sd_cno *cno_from_handle(DAT_CNO_HANDLE h)
{
	struct sd_obj *obj = sd_obj_check(h, SD_MAGIC_CNO);

	return obj ? sd_container_of(obj, struct sd_cno, obj) : NULL;
}

/*
 * Takes the pending trigger: *@evd is the EVD that fired (NULL once its
 * EVDs are gone), the CNO is no longer fired and its fd no longer
 * readable. Caller holds cno->lock and has checked cno->fired.
 */
static void cno_take(struct sd_cno *cno, DAT_EVD_HANDLE *evd)
{
	uint64_t n;

	*evd = (DAT_EVD_HANDLE)cno->triggered;
	cno->fired = false;
	cno->triggered = NULL;
	/* EAGAIN when the consumer read it already: nothing to clear. */
	if (cno->fd >= 0 && read(cno->fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		sd_dbg("cno %p: eventfd read failed (errno %d)", (void *)cno,
		       errno);
}

/*
 * Makes a CNO of @ia with @agent and @fd (-1: none; the CNO owns it from
 * here on, even on failure) and lists it. DAT_SUCCESS or
 * DAT_INSUFFICIENT_RESOURCES.
 */
static DAT_RETURN cno_new(const char *call, struct sd_ia *ia,
			  DAT_OS_WAIT_PROXY_AGENT agent, int fd,
			  DAT_CNO_HANDLE *cno_handle)
{
	struct sd_cno *cno;

	cno = calloc(1, sizeof(*cno));
	if (cno == NULL)
		goto fail;
	if (pthread_mutex_init(&cno->lock, NULL) != 0)
		goto fail_cno;
	if (sd_cond_init(&cno->cond) != 0)
		goto fail_lock;
	sd_obj_init(&cno->obj, ia, SD_MAGIC_CNO, DAT_HANDLE_TYPE_CNO);
	cno->agent = agent;
	cno->agent_cmd.fn = sd_trigger_agent_cmd;
	cno->fd = fd;

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
	if (fd >= 0)
		close(fd);
	return sd_refuse(call, &ia->obj, SD_ERR(DAT_INSUFFICIENT_RESOURCES,
						DAT_RESOURCE_MEMORY),
			 "no memory for the CNO");
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
	struct sd_ia *ia;

	ia = sd_obj_ia(ia_handle);
	if (ia == NULL)
		return sd_refuse_handle("cno_create", NULL, "ia_handle",
					ia_handle, SD_MAGIC_IA,
					DAT_INVALID_HANDLE_IA);
	if (cno_handle == NULL)
		return sd_refuse_null("cno_create", &ia->obj, "cno_handle",
				      DAT_INVALID_ARG3);
	return cno_new("cno_create", ia, agent, -1, cno_handle);
}

/*
 * dat_cno_fd_create (DAT 2.0): a CNO whose file descriptor, returned in
 * *fd, is readable while the CNO is triggered (see the top of this file);
 * it has no proxy agent. DAT_INVALID_HANDLE for the IA,
 * DAT_INVALID_PARAMETER without fd (ARG2) or cno_handle (ARG3),
 * DAT_INSUFFICIENT_RESOURCES without memory or a free descriptor.
 * OFED 2.1.10 returns DAT_MODEL_NOT_SUPPORTED here.
 */
DAT_RETURN DAT_API sd_cno_fd_create(DAT_IA_HANDLE ia_handle, DAT_FD *fd,
				    DAT_CNO_HANDLE *cno_handle)
{
	DAT_CNO_HANDLE h;
	struct sd_ia *ia;
	DAT_RETURN ret;
	int efd;

	ia = sd_obj_ia(ia_handle);
	if (ia == NULL)
		return sd_refuse_handle("cno_fd_create", NULL, "ia_handle",
					ia_handle, SD_MAGIC_IA,
					DAT_INVALID_HANDLE_IA);
	if (fd == NULL)
		return sd_refuse_null("cno_fd_create", &ia->obj, "fd",
				      DAT_INVALID_ARG2);
	if (cno_handle == NULL)
		return sd_refuse_null("cno_fd_create", &ia->obj, "cno_handle",
				      DAT_INVALID_ARG3);

	efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (efd < 0) {
		int e = errno;

		return sd_refuse("cno_fd_create", &ia->obj,
				 SD_ERR(DAT_INSUFFICIENT_RESOURCES,
					e == ENOMEM ? DAT_RESOURCE_MEMORY :
					DAT_RESOURCE_DEVICE),
				 "no eventfd for the CNO: %s", strerror(e));
	}
	ret = cno_new("cno_fd_create", ia, DAT_OS_WAIT_PROXY_AGENT_NULL, efd,
		      &h);
	if (ret != DAT_SUCCESS)
		return ret;
	*fd = efd;
	*cno_handle = h;
	return DAT_SUCCESS;
}

/*
 * dat_cno_modify_agent: the agent the next trigger calls;
 * DAT_OS_WAIT_PROXY_AGENT_NULL (no function) removes it. A CNO made by
 * dat_cno_fd_create keeps its fd as its one proxy (dat_cno_query reports
 * a single proxy_type): setting an agent on it is DAT_INVALID_PARAMETER
 * (ARG2), removing one a no-op.
 */
DAT_RETURN DAT_API sd_cno_modify_agent(DAT_CNO_HANDLE cno_handle,
				       DAT_OS_WAIT_PROXY_AGENT agent)
{
	struct sd_cno *cno = cno_from_handle(cno_handle);

	if (cno == NULL)
		return SD_CNO_BAD_HANDLE("cno_modify_agent", cno_handle);
	if (cno->fd >= 0 && agent.proxy_agent_func != NULL)
		return sd_refuse("cno_modify_agent", &cno->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
				 "the CNO was made by dat_cno_fd_create: its fd "
				 "is its one proxy, it takes no agent");
	pthread_mutex_lock(&cno->lock);
	cno->agent = agent;
	pthread_mutex_unlock(&cno->lock);
	return DAT_SUCCESS;
}

/*
 * dat_cno_query: every field whatever the mask (the DAT_CNO_FIELD_* values
 * are not bits). proxy_type is DAT_PROXY_TYPE_FD with the fd for a CNO of
 * dat_cno_fd_create, DAT_PROXY_TYPE_AGENT while an agent is set, else
 * DAT_PROXY_TYPE_NONE.
 */
DAT_RETURN DAT_API sd_cno_query(DAT_CNO_HANDLE cno_handle,
				DAT_CNO_PARAM_MASK mask, DAT_CNO_PARAM *param)
{
	struct sd_cno *cno = cno_from_handle(cno_handle);

	if (cno == NULL)
		return SD_CNO_BAD_HANDLE("cno_query", cno_handle);
	if (param == NULL)
		return sd_refuse_null("cno_query", &cno->obj, "cno_param",
				      DAT_INVALID_ARG3);

	param->ia_handle = sd_obj_ia_handle(cno->obj.ia);
	pthread_mutex_lock(&cno->lock);
	if (cno->fd >= 0) {
		param->proxy_type = DAT_PROXY_TYPE_FD;
		param->proxy.fd = cno->fd;
	} else if (cno->agent.proxy_agent_func != NULL) {
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
 * EVD feeds the CNO or a thread waits on it (dat_cno_free(3)). Closes the
 * fd of a CNO made by dat_cno_fd_create. An agent call still due is made
 * here, with a NULL EVD (its EVD is gone), before this returns.
 */
DAT_RETURN DAT_API sd_cno_free(DAT_CNO_HANDLE cno_handle)
{
	DAT_OS_WAIT_PROXY_AGENT owed[2];
	struct sd_cno *cno;
	struct sd_ia *ia;
	bool release;

	cno = cno_from_handle(cno_handle);
	if (cno == NULL)
		return SD_CNO_BAD_HANDLE("cno_free", cno_handle);
	ia = cno->obj.ia;

	pthread_mutex_lock(&ia->lock);
	pthread_mutex_lock(&cno->lock);
	if (cno->refs > 0 || cno->waiters > 0) {
		DAT_RETURN ret = sd_refuse("cno_free", &cno->obj,
					   SD_ERR(DAT_INVALID_STATE,
						  DAT_INVALID_STATE_CNO_IN_USE),
					   "%s", cno->refs > 0 ?
					   "EVDs still feed it (free them or "
					   "dat_evd_modify_cno them away "
					   "first)" : "a thread waits on it");

		pthread_mutex_unlock(&cno->lock);
		pthread_mutex_unlock(&ia->lock);
		return ret;
	}
	cno->obj.magic = SD_MAGIC_DEAD;
	release = sd_trigger_retire(cno, owed);
	pthread_mutex_unlock(&cno->lock);
	sd_list_del(&cno->obj.node);
	pthread_mutex_unlock(&ia->lock);
	sd_trigger_call_agent(owed[0], NULL);
	sd_trigger_call_agent(owed[1], NULL);
	if (release)
		sd_trigger_release(cno);
	return DAT_SUCCESS;
}

/*
 * dat_cno_wait: blocks until the CNO is triggered (returns at once if a
 * trigger is pending) and takes the trigger: *evd_handle is the EVD that
 * triggered it. DAT_SUCCESS with a NULL EVD when the CNO's last EVD was
 * freed or the IA closed (dat_cno_wait(3)). After @timeout microseconds
 * (DAT_TIMEOUT_INFINITE: never) returns DAT_QUEUE_EMPTY with *evd_handle
 * NULL (dat_cno_wait(3) and OFED; not DAT_TIMEOUT_EXPIRED).
 * DAT_INVALID_PARAMETER without evd_handle (ARG3). Any number of threads
 * may wait; each trigger releases one.
 */
DAT_RETURN DAT_API sd_cno_wait(DAT_CNO_HANDLE cno_handle, DAT_TIMEOUT timeout,
			       DAT_EVD_HANDLE *evd_handle)
{
	struct timespec deadline, *until = NULL;
	struct sd_cno *cno;
	DAT_RETURN ret = DAT_SUCCESS;
	unsigned release;

	cno = cno_from_handle(cno_handle);
	if (cno == NULL)
		return SD_CNO_BAD_HANDLE("cno_wait", cno_handle);
	if (evd_handle == NULL)
		return sd_refuse_null("cno_wait", &cno->obj, "evd_handle",
				      DAT_INVALID_ARG3);

	pthread_mutex_lock(&cno->lock);
	release = cno->release;
	if (!cno->fired && timeout != 0) {
		if (timeout != DAT_TIMEOUT_INFINITE) {
			sd_deadline(&deadline, timeout);
			until = &deadline;
		}
		cno->waiters++;
		while (!cno->fired && cno->release == release &&
		       sd_trigger_alive(cno)) {
			if (sd_cond_wait_until(&cno->cond, &cno->lock,
					       until) == ETIMEDOUT)
				break;
		}
		cno->waiters--;
		if (!sd_trigger_alive(cno)) {
			/* sd_trigger_destroy waits for the last of us. */
			pthread_cond_broadcast(&cno->cond);
			pthread_mutex_unlock(&cno->lock);
			*evd_handle = DAT_HANDLE_NULL;
			return DAT_SUCCESS;
		}
	}
	if (cno->fired) {
		cno_take(cno, evd_handle);
	} else {
		*evd_handle = DAT_HANDLE_NULL;
		if (cno->release == release)
			ret = SD_ERR(DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE);
	}
	pthread_mutex_unlock(&cno->lock);
	return ret;
}

/*
 * dat_cno_trigger (DAT 2.0): "returns the latest EVD that triggered the
 * CNO" (OFED's dapl_cno_util.c, citing the DAT 2.0 spec, 6.3.2). Never
 * blocks: it is dat_cno_wait with a zero timeout, meant for the CNO of
 * dat_cno_fd_create once its fd polls readable. If a trigger is pending,
 * takes it (the fd is no longer readable) and returns DAT_SUCCESS with
 * the EVD (NULL when the CNO's EVDs were freed); otherwise
 * DAT_QUEUE_EMPTY with a NULL EVD. Works on any CNO.
 * DAT_INVALID_PARAMETER without evd_handle (ARG2).
 */
DAT_RETURN DAT_API sd_cno_trigger(DAT_CNO_HANDLE cno_handle,
				  DAT_EVD_HANDLE *evd_handle)
{
	struct sd_cno *cno;
	DAT_RETURN ret = DAT_SUCCESS;

	cno = cno_from_handle(cno_handle);
	if (cno == NULL)
		return SD_CNO_BAD_HANDLE("cno_trigger", cno_handle);
	if (evd_handle == NULL)
		return sd_refuse_null("cno_trigger", &cno->obj, "evd_handle",
				      DAT_INVALID_ARG2);

	pthread_mutex_lock(&cno->lock);
	if (cno->fired) {
		cno_take(cno, evd_handle);
	} else {
		*evd_handle = DAT_HANDLE_NULL;
		ret = SD_ERR(DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE);
	}
	pthread_mutex_unlock(&cno->lock);
	return ret;
}
