/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Interface adapters: open, query, close, and where asynchronous errors
 * go.
 *
 * An IA is what ia_params named (params.c) plus the objects made through
 * it. The registry calls ia_open with the IA's name; provider.c gives the
 * table and ia_params registered under that name. Each open IA holds a
 * reference on the engine thread (engine.c), taken at open and dropped at
 * close.
 *
 * The lock of this file, placed in softdapl.h's lock order:
 *
 *   ias_lock (before ia->lock) guards the list of open IAs, through their
 *   obj.node. DAT_EVD_ASYNC_EXISTS finds another IA of the same name in
 *   it, and the abrupt close of an IA walks it to detach the other IAs
 *   whose async errors went to one of its EVDs.
 *
 * The async lock, which ia->async_evd is also written under, and the
 * posting of async errors: evq.c.
 *
 * The async EVD. DAT 2.0 (dat_ia_open): a consumer passing a handle whose
 * value is DAT_HANDLE_NULL gets an EVD made for the IA, of async_evd_qlen
 * events; one passing an EVD with DAT_EVD_ASYNC_FLAG has the IA use it
 * (it may belong to another open IA of this provider); one passing
 * DAT_EVD_ASYNC_EXISTS shares the async EVD of an IA of the same name
 * opened earlier, and dat_ia_query then reports DAT_EVD_OUT_OF_SCOPE.
 * Each IA using an EVD that way counts in its refs, so dat_evd_free
 * refuses it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "api.h"
#include "cma.h"
#include "engine.h"
#include "entry.h"
#include "evq.h"
#include "ext.h"
#include "ia.h"
#include "mem.h"
#include "obj.h"
#include "progress.h"	/* the engine's hooks: progress and sockets */
#include "qp.h"
#include "sock.h"
#include "sp.h"
#include "transport.h"
#include "udproto.h"
#include "util.h"
#include "wq.h"

/* What the engine runs of the connection core (engine.c calls no one). */
static const struct sd_engine_hooks engine_hooks = {
	.tick = sd_progress_tick,
	.shutdown = sd_cm_shutdown_all,
};

static pthread_mutex_t ias_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sd_list ias = { &ias, &ias };		/* ias_lock */

/* ------------------------------------------------------------------ */
/* Asynchronous errors                                                */

/*
 * Points @ia's async errors at the EVD the consumer asked for (see the top
 * of this file) and takes a reference on it. Returns DAT_SUCCESS or the
 * error for dat_ia_open.
 */
/* The least room of an async EVD that dat_ia_open creates. */
#define SD_ASYNC_QLEN 1024

static DAT_RETURN attach_async(struct sd_ia *ia, DAT_EVD_HANDLE h, DAT_COUNT qlen)
{
	struct sd_evd *evd = NULL;
	struct sd_list *pos;
	DAT_RETURN ret;

	if (h == DAT_HANDLE_NULL) {
		if (qlen <= 0)
			return sd_refuse("ia_open", NULL,
					 SD_ERR(DAT_INVALID_PARAMETER,
						DAT_INVALID_ARG2),
					 "%s: async_evd_min_qlen %d is not "
					 "positive", ia->name, (int)qlen);
		/*
		 * The qlen is a minimum (dat_ia_open(3)). Every SRQ endpoint
		 * that leaves its connection posts DAT_ASYNC_ERROR_EP_BROKEN
		 * here (dtestsrq waits for one per endpoint), so a consumer
		 * that disconnects many at once would overflow a small queue
		 * and lose it for good: ours holds at least SD_ASYNC_QLEN.
		 */
		const struct sd_argpos qpos = { .count = DAT_INVALID_ARG2 };
		int r = sd_evq_create(ia, qlen > SD_ASYNC_QLEN ? qlen :
				      SD_ASYNC_QLEN, DAT_EVD_ASYNC_FLAG, &evd);

		if (r < 0)
			return sd_api_fail("ia_open", NULL, r, &qpos,
					   "%s: async_evd_min_qlen %d",
					   ia->name, (int)qlen);
		pthread_mutex_lock(&ia->lock);
		evd->refs++;
		ia->async_evd = evd;	/* not yet visible to anyone */
		ia->async_evd_ours = true;
		pthread_mutex_unlock(&ia->lock);
		return DAT_SUCCESS;
	}

	/*
	 * Another IA's EVD: that IA is found in the list of open IAs, so it
	 * cannot close while its EVD's refs are raised.
	 */
	ret = SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_ASYNC);
	pthread_mutex_lock(&ias_lock);
	sd_list_for_each(pos, &ias) {
		struct sd_ia *other = sd_container_of(pos, struct sd_ia, obj.node);

		pthread_mutex_lock(&other->lock);
		if (h == DAT_EVD_ASYNC_EXISTS) {
			if (strcmp(other->name, ia->name) == 0 &&
			    other->async_evd_ours && other->async_evd != NULL)
				evd = other->async_evd;
		} else {
			struct sd_list *e;

			sd_list_for_each(e, &other->evds)
				if (e == &((struct sd_obj *)h)->node)
					evd = sd_container_of(e, struct sd_evd,
							      obj.node);
			if (evd != NULL && !(evd->flags & DAT_EVD_ASYNC_FLAG))
				evd = NULL;
		}
		if (evd != NULL) {
			evd->refs++;
			pthread_mutex_unlock(&other->lock);
			ia->async_evd = evd;
			ia->async_evd_shared = h == DAT_EVD_ASYNC_EXISTS;
			ret = DAT_SUCCESS;
			break;
		}
		pthread_mutex_unlock(&other->lock);
	}
	pthread_mutex_unlock(&ias_lock);
	if (ret != DAT_SUCCESS)
		return sd_refuse("ia_open", NULL, ret, "%s: async_evd_handle "
				 "%p %s", ia->name, h,
				 h == DAT_EVD_ASYNC_EXISTS ?
				 "(DAT_EVD_ASYNC_EXISTS): no open IA of that "
				 "name has an async EVD of its own" :
				 "names no EVD of an open IA made with "
				 "DAT_EVD_ASYNC_FLAG");
	return ret;
}

/*
 * Stops @ia's async errors and drops its reference on their EVD; and,
 * when @ia goes away, stops every other IA's errors going to one of its
 * EVDs. ias_lock held.
 */
static void detach_async(struct sd_ia *ia)
{
	struct sd_list *pos;
	struct sd_evd *evd;

	pthread_mutex_lock(&ia->lock);
	pthread_mutex_lock(&sd_evq_async_lock);
	evd = ia->async_evd;
	ia->async_evd = NULL;
	pthread_mutex_unlock(&sd_evq_async_lock);
	if (evd != NULL && evd->obj.ia == ia)
		evd->refs--;
	pthread_mutex_unlock(&ia->lock);
	if (evd != NULL && evd->obj.ia != ia) {
		pthread_mutex_lock(&evd->obj.ia->lock);
		evd->refs--;
		pthread_mutex_unlock(&evd->obj.ia->lock);
	}

	sd_list_for_each(pos, &ias) {
		struct sd_ia *other = sd_container_of(pos, struct sd_ia, obj.node);

		if (other == ia)
			continue;
		pthread_mutex_lock(&other->lock);
		pthread_mutex_lock(&sd_evq_async_lock);
		if (other->async_evd != NULL && other->async_evd->obj.ia == ia) {
			sd_dbg("IA %s: its async EVD went with IA %s",
			       other->name, ia->name);
			other->async_evd = NULL;
		}
		pthread_mutex_unlock(&sd_evq_async_lock);
		pthread_mutex_unlock(&other->lock);
	}
}

/* ------------------------------------------------------------------ */
/* Open and close                                                     */

/* Frees what is left of @ia once its objects are gone. */
static void ia_free(struct sd_ia *ia)
{
	free(ia->ctx_table);
	sd_cma_table_fini(ia);
	pthread_mutex_destroy(&ia->lock);
	ia->obj.magic = SD_MAGIC_DEAD;
	free(ia);
}

/*
 * Destroys every object of @ia in the order softdapl.h gives (what uses
 * a thing goes before it). No lock held; @ia is no longer listed.
 */
/* The first object on @list of @ia, or NULL. Takes ia->lock. */
static struct sd_obj *first_obj(struct sd_ia *ia, struct sd_list *list)
{
	struct sd_obj *o = NULL;

	pthread_mutex_lock(&ia->lock);
	if (!sd_list_empty(list))
		o = sd_container_of(list->next, struct sd_obj, node);
	pthread_mutex_unlock(&ia->lock);
	return o;
}

/*
 * ia_close's teardown of what the consumer left open, in this order: the
 * IB extension's UD objects; the service points (PSPs and CSPs), RSPs,
 * CRs, EPs (flushed as by an abrupt disconnect, nothing reported) and
 * SRQs; then, once the engine has run everything queued for them and no
 * longer touches them nor the IA's memory, the RMRs, LMRs, PZs, EVDs and
 * CNOs. Each goes through its kind's close op (sd_obj_close) or the core
 * below; each may assume that what comes earlier is gone. No lock held.
 */
static void ia_teardown(struct sd_ia *ia)
{
	struct sd_list *entry_lists[] = { &ia->rsps, &ia->crs };
	struct sd_list *mem_lists[] = { &ia->rmrs, &ia->lmrs, &ia->pzs };
	struct sd_obj *o;
	size_t i;

	sd_ud_ia_close(ia);	/* the IB extension's UD objects (udcm.c) */
	while ((o = first_obj(ia, &ia->psps)) != NULL)	/* PSPs and CSPs */
		sd_sp_release(sd_container_of(o, struct sd_sp, obj));
	for (i = 0; i < SD_ARRAY_SIZE(entry_lists); i++)
		while ((o = first_obj(ia, entry_lists[i])) != NULL)
			sd_obj_close(o);
	while ((o = first_obj(ia, &ia->eps)) != NULL) {
		struct sd_ep *ep = sd_container_of(o, struct sd_ep, obj);

		pthread_mutex_lock(&ep->lock);
		sd_qp_release(ep);
	}
	while ((o = first_obj(ia, &ia->srqs)) != NULL)
		sd_obj_close(o);
	/* Everything queued above has run: the engine is done with them. */
	sd_engine_sync();

	for (i = 0; i < SD_ARRAY_SIZE(mem_lists); i++)
		while ((o = first_obj(ia, mem_lists[i])) != NULL)
			sd_obj_close(o);
	while ((o = first_obj(ia, &ia->evds)) != NULL)
		sd_evq_destroy(sd_container_of(o, struct sd_evd, obj));
	while ((o = first_obj(ia, &ia->cnos)) != NULL)
		sd_trigger_destroy(sd_container_of(o, struct sd_cno, obj));
}

DAT_RETURN DAT_API sd_ia_open(const DAT_NAME_PTR name, DAT_COUNT qlen,
			      DAT_EVD_HANDLE *async_evd, DAT_IA_HANDLE *ia_handle)
{
	DAT_PROVIDER *table;
	struct sd_ia *ia;
	char *params = NULL, err[256];
	DAT_RETURN ret;
	int rc;

	const struct sd_argpos pos = { 0 };

	if (name == NULL)
		return sd_refuse_null("ia_open", NULL, "ia_name",
				      DAT_INVALID_ARG1);
	if (async_evd == NULL)
		return sd_refuse_null("ia_open", NULL, "async_evd_handle",
				      DAT_INVALID_ARG3);
	if (ia_handle == NULL)
		return sd_refuse_null("ia_open", NULL, "ia_handle",
				      DAT_INVALID_ARG4);
	rc = sd_reg_open(name, &table, &params);
	if (rc < 0)
		return sd_api_fail("ia_open", NULL, rc, &pos, "ia_name %s",
				   name);

	ia = calloc(1, sizeof(*ia));
	if (ia == NULL) {
		ret = sd_refuse("ia_open", NULL,
				SD_ERR(DAT_INSUFFICIENT_RESOURCES,
				       DAT_RESOURCE_MEMORY),
				"%s: no memory for the IA", name);
		goto out_provider;
	}
	ia->obj.provider = table;
	sd_obj_init(&ia->obj, ia, SD_MAGIC_IA, DAT_HANDLE_TYPE_IA);
	snprintf(ia->name, sizeof(ia->name), "%s", name);
	pthread_mutex_init(&ia->lock, NULL);
	sd_list_init(&ia->pzs);
	sd_list_init(&ia->lmrs);
	sd_list_init(&ia->rmrs);
	sd_list_init(&ia->evds);
	sd_list_init(&ia->cnos);
	sd_list_init(&ia->eps);
	sd_list_init(&ia->psps);
	sd_list_init(&ia->rsps);
	sd_list_init(&ia->crs);
	sd_list_init(&ia->srqs);
	sd_list_init(&ia->ud_eps);
	sd_list_init(&ia->ud_crs);
	if (sd_ctx_init(ia) != 0) {		/* the key of its contexts */
		ret = sd_refuse("ia_open", NULL, SD_ERR(DAT_INTERNAL_ERROR, 0),
				"%s: no key for its contexts", ia->name);
		goto out_ia;
	}
	/* Without it, same-host peers place nothing themselves: no harm. */
	ia->cma_grants = NULL;
	if (sd_shm_policy() == SD_SHM_AUTO && sd_cma_table_init(ia) != 0)
		sd_dbg("ia %p: no grant table: same-host RDMA goes by copies",
		       (void *)ia);

	/*
	 * A dat.conf mistake: DAT_INVALID_ADDRESS, MALFORMED for syntax,
	 * UNREACHABLE for a name or address this host does not have.
	 */
	rc = sd_params_parse(params, &ia->addr, err, sizeof(err));
	if (rc == -EMFILE || rc == -ENFILE || rc == -ENOMEM || rc == -ENOBUFS) {
		/* Not the address's fault: nothing to look it up with. */
		sd_log("IA %s: %s", ia->name, err);
		ret = sd_refuse("ia_open", NULL,
				SD_ERR(DAT_INSUFFICIENT_RESOURCES,
				       rc == -ENOMEM ? DAT_RESOURCE_MEMORY :
				       DAT_RESOURCE_DEVICE),
				"%s: %s", ia->name, err);
		goto out_ia;
	}
	if (rc != 0) {
		/* Said always: the consumer only sees DAT_INVALID_ADDRESS. */
		sd_log("IA %s: %s; fix the ia_params field of its dat.conf line "
		       "(softdapl(7) lists the forms)", ia->name, err);
		ret = sd_refuse("ia_open", NULL,
				SD_ERR(DAT_INVALID_ADDRESS, rc == -EINVAL ?
				       DAT_INVALID_ADDRESS_MALFORMED :
				       DAT_INVALID_ADDRESS_UNREACHABLE),
				"%s: ia_params: %s", ia->name, err);
		goto out_ia;
	}
	sd_ia_named_init(&ia->named, &ia->addr);

	rc = sd_engine_get(&engine_hooks);
	if (rc != 0) {
		sd_log("IA %s: cannot start the engine thread: %s; dat_ia_open "
		       "returns DAT_INSUFFICIENT_RESOURCES", ia->name,
		       strerror(-rc));
		ret = SD_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_DEVICE);
		goto out_ia;	/* said just above, debugging or not */
	}

	ret = attach_async(ia, *async_evd, qlen);
	if (ret != DAT_SUCCESS)
		goto out_engine;

	pthread_mutex_lock(&ias_lock);
	sd_list_add_tail(&ias, &ia->obj.node);
	pthread_mutex_unlock(&ias_lock);

	if (ia->async_evd_ours)
		*async_evd = ia->async_evd;
	*ia_handle = ia;
	free(params);
	sd_dbg("IA %s open", ia->name);
	return DAT_SUCCESS;

out_engine:
	/* attach_async failed: the IA holds no EVD reference. */
	ia_teardown(ia);
	sd_engine_put();
out_ia:
	ia_free(ia);
out_provider:
	free(params);
	sd_reg_close(table);
	return ret;
}

/*
 * True when objects of @ia remain, other than the async EVD it made and
 * uses alone. ia->lock held.
 */
static bool ia_in_use(const struct sd_ia *ia)
{
	const struct sd_list *lists[] = { &ia->pzs, &ia->lmrs, &ia->rmrs,
					  &ia->cnos, &ia->eps, &ia->psps,
					  &ia->rsps, &ia->crs, &ia->srqs,
					  &ia->ud_eps, &ia->ud_crs };
	size_t i;

	for (i = 0; i < SD_ARRAY_SIZE(lists); i++)
		if (!sd_list_empty(lists[i]))
			return true;
	if (sd_list_empty(&ia->evds))
		return false;
	/* The only EVD left must be our async EVD, used by us alone. */
	return !ia->async_evd_ours || ia->async_evd == NULL ||
	       ia->evds.next != &ia->async_evd->obj.node ||
	       ia->evds.next->next != &ia->evds || ia->async_evd->refs > 1;
}

/*
 * DAT_CLOSE_GRACEFUL_FLAG refuses (DAT_INVALID_STATE_IA_IN_USE) while
 * objects of the IA remain, or while another IA uses its async EVD;
 * DAT_CLOSE_ABRUPT_FLAG destroys them all, flushing what is in flight.
 */
DAT_RETURN DAT_API sd_ia_close(DAT_IA_HANDLE ia_handle, DAT_CLOSE_FLAGS flags)
{
	struct sd_ia *ia = sd_obj_ia(ia_handle);
	DAT_PROVIDER *table;

	if (ia == NULL)
		return sd_refuse_handle("ia_close", NULL, "ia_handle", ia_handle,
					SD_MAGIC_IA, DAT_INVALID_HANDLE_IA);
	if (flags != DAT_CLOSE_ABRUPT_FLAG && flags != DAT_CLOSE_GRACEFUL_FLAG)
		return sd_refuse("ia_close", &ia->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
				 "ia_flags 0x%x is neither DAT_CLOSE_ABRUPT_FLAG "
				 "nor DAT_CLOSE_GRACEFUL_FLAG", (unsigned)flags);

	pthread_mutex_lock(&ias_lock);
	if (flags == DAT_CLOSE_GRACEFUL_FLAG) {
		bool busy;

		pthread_mutex_lock(&ia->lock);
		busy = ia_in_use(ia);
		pthread_mutex_unlock(&ia->lock);
		if (busy) {
			pthread_mutex_unlock(&ias_lock);
			return sd_refuse("ia_close", &ia->obj,
					 SD_ERR(DAT_INVALID_STATE,
						DAT_INVALID_STATE_IA_IN_USE),
					 "DAT_CLOSE_GRACEFUL_FLAG, and objects "
					 "of the IA remain (free them, or close "
					 "with DAT_CLOSE_ABRUPT_FLAG)");
		}
	}
	sd_list_del(&ia->obj.node);
	detach_async(ia);
	pthread_mutex_unlock(&ias_lock);

	ia_teardown(ia);
	sd_dbg("IA %s closed", ia->name);
	table = ia->obj.provider;
	ia_free(ia);
	sd_engine_put();
	sd_reg_close(table);
	return DAT_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Query                                                              */

/*
 * The provider-specific named attributes: the set OFED's openib providers
 * give (dapls_query_provider_specific_attr), which consumers read by name,
 * with values true of softdapl, and SOFTDAPL_TRANSPORT (the setting: auto,
 * tcp or copy; dat_ep_query names what a connection uses). OFED takes the
 * port's facts from the HCA; softdapl takes them from the IA's interface
 * as a RoCE device does (Linux rxe), read once at open (params.c):
 *
 *   DAT_IB_PROVIDER_NAME      "softdapl"
 *   DAT_IB_DEVICE_NAME        ia_attr.adapter_name, as OFED
 *   DAT_IB_CONNECTIVITY_MODE  "DIRECT" (no proxy)
 *   DAT_IB_RDMA_READ          "TRUE" (dtest runs its RDMA reads on it)
 *   DAT_IB_NODE_GUID          the interface's MAC as an EUI-64 (rxe's node
 *                             GUID; 0200:00ff:fe00:0000 for lo)
 *   DAT_IB_GID                the IA's address as a RoCE v2 GID: an IPv6
 *                             address as is, IPv4 as ::ffff:a.b.c.d
 *   DAT_IB_TRANSPORT_MTU      the largest IB MTU (256 ... 4096) whose UD
 *                             datagram (our 40-byte UD header, UDP and IP
 *                             headers) fits one packet of the interface, as
 *                             RoCE picks 1024 on 1500-byte Ethernet and
 *                             4096 on lo; 4096 if the MTU is unknown.
 *                             Datagrams of up to SD_UD_MAX_MSG work, in
 *                             IP fragments; dtestsrq sizes its buffers and
 *                             its UD messages by this value
 *   DAT_IB_PORT_STATUS        "ACTIVE" when the interface was up and running
 *                             at open, else "DOWN"; "UNKNOWN" without one
 *   DAT_IB_PORT_NUMBER        "1": an IA has one port
 *
 * then the IB extension's capabilities (ext.h), by the names of
 * dat_ib_extensions.h: RDMA write with immediate data and the atomics
 * (dtestx skips the atomics unless they are TRUE), unreliable datagrams
 * and counters (dtestx -p looks for the name). Not the MPI collectives
 * (ext.c refuses them).
 */
static const DAT_NAMED_ATTR named_const[] = {
	{ "DAT_IB_RDMA_READ", "TRUE" },
	{ "DAT_EXTENSION_INTERFACE", "TRUE" },
	{ DAT_IB_ATTR_IMMED_DATA, "TRUE" },
	{ DAT_IB_ATTR_FETCH_AND_ADD, "TRUE" },
	{ DAT_IB_ATTR_CMP_AND_SWAP, "TRUE" },
	{ DAT_IB_ATTR_UD, "TRUE" },
	{ DAT_IB_ATTR_COUNTERS, "TRUE" },
};
/* The 8 made per IA, then these, then SOFTDAPL_TRANSPORT. */
_Static_assert(8 + SD_ARRAY_SIZE(named_const) + 1 <= SD_IA_NAMED_MAX,
	       "struct sd_ia_named holds them all");

/* The IB MTU of a UD datagram in one packet of an interface of @mtu. */
static unsigned ib_mtu(const struct sd_ia_addr *a)
{
	unsigned over = SD_UD_HDR_SIZE + 8 +
		(a->ss.ss_family == AF_INET6 ? 40 : 20), m;

	if (a->mtu == 0)
		return 4096;
	for (m = 4096; m > 256 && m + over > a->mtu; m /= 2)
		;
	return m;
}

void sd_ia_named_init(struct sd_ia_named *nd, const struct sd_ia_addr *a)
{
	uint8_t gid[16];
	size_t i;

	memset(nd, 0, sizeof(*nd));
	if (a->ss.ss_family == AF_INET6) {
		memcpy(gid, &((const struct sockaddr_in6 *)&a->ss)->sin6_addr, 16);
	} else {
		memset(gid, 0, 10);
		gid[10] = gid[11] = 0xff;
		memcpy(gid + 12, &((const struct sockaddr_in *)&a->ss)->sin_addr, 4);
	}
	for (i = 0; i < 8; i++)
		snprintf(nd->gid + 5 * i, sizeof(nd->gid) - 5 * i, "%02x%02x%s",
			 gid[2 * i], gid[2 * i + 1], i < 7 ? ":" : "");
	snprintf(nd->guid, sizeof(nd->guid), "%02x%02x:%02xff:fe%02x:%02x%02x",
		 a->mac[0] ^ 2, a->mac[1], a->mac[2], a->mac[3], a->mac[4],
		 a->mac[5]);
	snprintf(nd->mtu, sizeof(nd->mtu), "%u", ib_mtu(a));

#define NAMED(k, v) (nd->attr[nd->n++] = (DAT_NAMED_ATTR){ (k), (v) })
	NAMED("DAT_IB_PROVIDER_NAME", SD_PROVIDER_NAME);
	NAMED("DAT_IB_DEVICE_NAME", SD_PROVIDER_NAME);	/* adapter_name */
	NAMED("DAT_IB_CONNECTIVITY_MODE", "DIRECT");
	NAMED("DAT_IB_NODE_GUID", nd->guid);
	NAMED("DAT_IB_GID", nd->gid);
	NAMED("DAT_IB_TRANSPORT_MTU", nd->mtu);
	NAMED("DAT_IB_PORT_STATUS", a->ifname[0] == '\0' ? "UNKNOWN" :
	      a->up ? "ACTIVE" : "DOWN");
	NAMED("DAT_IB_PORT_NUMBER", "1");
#undef NAMED
	for (i = 0; i < SD_ARRAY_SIZE(named_const); i++)
		nd->attr[nd->n++] = named_const[i];
	/* What connections on this host may use (transport.h). */
	nd->attr[nd->n].name = "SOFTDAPL_TRANSPORT";
	nd->attr[nd->n++].value = sd_shm_policy() == SD_SHM_OFF ? "tcp" :
				  sd_shm_policy() == SD_SHM_COPY ? "copy" : "auto";
}

/*
 * What this provider is; see the README for the limits. Notably:
 * dapl_version 2.0 and is_thread_safe false, because OFED's registry
 * rebuilds its key from them at dat_ia_close (the provider is in fact
 * thread safe); iov_ownership DAT_IOV_CONSUMER, because posts copy the
 * consumer's iov (COMMON-3); optimal_buffer_alignment 64, a cache line,
 * as a hint only (COMMON-9).
 */
static const DAT_PROVIDER_ATTR provider_attr_template = {
	.provider_name = SD_PROVIDER_NAME,
	.provider_version_major = SD_VERSION_MAJOR,
	.provider_version_minor = SD_VERSION_MINOR,
	.dapl_version_major = 2,
	.dapl_version_minor = 0,
	.lmr_mem_types_supported = DAT_MEM_TYPE_VIRTUAL | DAT_MEM_TYPE_LMR |
		DAT_MEM_TYPE_SHARED_VIRTUAL,
	.iov_ownership_on_return = DAT_IOV_CONSUMER,
	.dat_qos_supported = DAT_QOS_BEST_EFFORT,
	.completion_flags_supported = DAT_COMPLETION_SUPPRESS_FLAG |
		DAT_COMPLETION_SOLICITED_WAIT_FLAG |
		DAT_COMPLETION_UNSIGNALLED_FLAG |
		DAT_COMPLETION_BARRIER_FENCE_FLAG |
		DAT_COMPLETION_EVD_THRESHOLD_FLAG,
	.is_thread_safe = DAT_FALSE,
	.max_private_data_size = SD_MAX_PRIVATE_DATA,
	.supports_multipath = DAT_FALSE,
	.ep_creator = DAT_PSP_CREATES_EP_NEVER,
	.pz_support = DAT_PZ_UNIQUE,
	.optimal_buffer_alignment = 64,
	/* Any event streams may share an EVD. */
	.evd_stream_merging_supported = {
		{ DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE },
		{ DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE },
		{ DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE },
		{ DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE },
		{ DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE },
		{ DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE },
	},
	.srq_supported = DAT_TRUE,
	/* srq.c: dat_srq_set_lw; ep.c: dat_ep_set_watermark, _recv_query. */
	.srq_watermarks_supported = 1,
	.srq_ep_pz_difference_supported = DAT_FALSE,
	.srq_info_supported = 1,
	.ep_recv_info_supported = 1,
	.lmr_sync_req = DAT_FALSE,
	.dto_async_return_guaranteed = DAT_FALSE,
	.rdma_write_for_rdma_read_req = DAT_FALSE,
	.rdma_read_lmr_rmr_context_exposure = DAT_FALSE,
	.rmr_scope_supported = DAT_RMR_SCOPE_ANY,
	.is_signal_safe = DAT_FALSE,
	.ha_supported = DAT_FALSE,
	.ha_loadbalancing = DAT_HA_LB_NONE,
	/* The IA's own: sd_ia_attr_fill. */
	.num_provider_specific_attr = 0,
	.provider_specific_attr = NULL,
};

/*
 * EPs, like every socket the engine opens, are limited by the process's
 * open file limit: report that, less a margin for the process's own
 * files, within [64, SD_MAX_EPS].
 */
static DAT_COUNT max_eps(void)
{
	struct rlimit rl;
	rlim_t n = 1024;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
		n = rl.rlim_cur == RLIM_INFINITY ? SD_MAX_EPS : rl.rlim_cur;
	n = n > 128 ? n - 64 : 64;
	return n > SD_MAX_EPS ? SD_MAX_EPS : (DAT_COUNT)n;
}

static void fill_ia_attr(const struct sd_ia_addr *addr, DAT_IA_ATTR *a)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->adapter_name, sizeof(a->adapter_name), "%s", SD_PROVIDER_NAME);
	snprintf(a->vendor_name, sizeof(a->vendor_name), "%s", SD_VENDOR_NAME);
	a->hardware_version_major = 0;
	a->hardware_version_minor = 0;
	a->firmware_version_major = SD_VERSION_MAJOR;
	a->firmware_version_minor = SD_VERSION_MINOR;
	a->ia_address_ptr = (DAT_IA_ADDRESS_PTR)(uintptr_t)&addr->ss;
	a->max_eps = max_eps();
	a->max_dto_per_ep = SD_MAX_DTO_PER_EP;
	a->max_rdma_read_per_ep_in = SD_MAX_RDMA_READ_PER_EP;
	a->max_rdma_read_per_ep_out = SD_MAX_RDMA_READ_PER_EP;
	a->max_evds = SD_MAX_EVDS;
	a->max_evd_qlen = SD_MAX_EVD_QLEN;
	a->max_iov_segments_per_dto = SD_MAX_IOV;
	a->max_lmrs = SD_MAX_LMRS;
	/* Registrations may be larger; the field has 32 bits. */
	a->max_lmr_block_size = UINT32_MAX;
	a->max_lmr_virtual_address = (DAT_VADDR)UINTPTR_MAX;
	a->max_pzs = SD_MAX_PZS;
	a->max_message_size = SD_MAX_MESSAGE_SIZE;
	a->max_rdma_size = SD_MAX_RDMA_SIZE;
	a->max_rmrs = SD_MAX_LMRS;
	a->max_rmr_target_address = (DAT_VADDR)UINTPTR_MAX;
	a->max_srqs = SD_MAX_SRQS;
	a->max_ep_per_srq = a->max_eps < SD_MAX_EP_PER_SRQ ? a->max_eps :
			    SD_MAX_EP_PER_SRQ;
	a->max_recv_per_srq = SD_MAX_RECV_PER_SRQ;
	a->max_iov_segments_per_rdma_read = SD_MAX_IOV;
	a->max_iov_segments_per_rdma_write = SD_MAX_IOV;
	a->max_rdma_read_in = SD_MAX_RDMA_READ_PER_EP;
	a->max_rdma_read_out = SD_MAX_RDMA_READ_PER_EP;
	a->max_rdma_read_per_ep_in_guaranteed = DAT_TRUE;
	a->max_rdma_read_per_ep_out_guaranteed = DAT_TRUE;
	a->zb_supported = DAT_FALSE;
	/* The IB extensions, at OFED 2.1.10's level (ext.h). */
	a->extension_supported = DAT_EXTENSION_IB;
	a->extension_version = SD_EXT_VERSION;
	a->num_transport_attr = 0;
	a->transport_attr = NULL;
	a->num_vendor_attr = 0;
	a->vendor_attr = NULL;
}

/*
 * Fills every field whatever the masks (DAT leaves fields outside the
 * mask undefined) and accepts NULL for any output: the registry asks for
 * ia_attr alone at open and provider_attr alone at close.
 */
DAT_RETURN DAT_API sd_ia_query(DAT_IA_HANDLE ia_handle, DAT_EVD_HANDLE *async_evd,
			       DAT_IA_ATTR_MASK ia_mask, DAT_IA_ATTR *ia_attr,
			       DAT_PROVIDER_ATTR_MASK provider_mask,
			       DAT_PROVIDER_ATTR *provider_attr)
{
	struct sd_ia *ia = sd_obj_ia(ia_handle);

	if (ia == NULL)
		return sd_refuse_handle("ia_query", NULL, "ia_handle", ia_handle,
					SD_MAGIC_IA, DAT_INVALID_HANDLE_IA);
	/*
	 * A NULL output is fine when nothing is asked of it (both registries
	 * query that way at open and at close), but asking for fields with
	 * nowhere to put them is a bad parameter (dapltest -T F queryinfo
	 * case 10).
	 */
	if (ia_attr == NULL && ia_mask != 0)
		return sd_refuse("ia_query", &ia->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4),
				 "ia_attr is NULL, ia_attr_mask 0x%llx asks "
				 "for fields", (unsigned long long)ia_mask);
	if (provider_attr == NULL && provider_mask != 0)
		return sd_refuse("ia_query", &ia->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6),
				 "provider_attr is NULL, provider_attr_mask "
				 "0x%llx asks for fields",
				 (unsigned long long)provider_mask);
	if (async_evd != NULL) {
		pthread_mutex_lock(&ia->lock);
		if (ia->async_evd_shared)
			*async_evd = DAT_EVD_OUT_OF_SCOPE;
		else
			*async_evd = ia->async_evd;
		pthread_mutex_unlock(&ia->lock);
	}
	sd_ia_attr_fill(&ia->addr, &ia->named, ia_attr, provider_attr);
	return DAT_SUCCESS;
}

void sd_ia_attr_fill(const struct sd_ia_addr *addr,
		     const struct sd_ia_named *named, DAT_IA_ATTR *ia_attr,
		     DAT_PROVIDER_ATTR *provider_attr)
{
	if (ia_attr != NULL)
		fill_ia_attr(addr, ia_attr);
	if (provider_attr != NULL) {
		memcpy(provider_attr, &provider_attr_template,
		       sizeof(*provider_attr));
		provider_attr->num_provider_specific_attr = named->n;
		/* DAT_NAMED_ATTR's fields are not const; nobody writes them. */
		provider_attr->provider_specific_attr =
			(DAT_NAMED_ATTR *)(uintptr_t)named->attr;
	}
}

/*
 * softdapl has no high-availability support (ha_supported is false): no
 * IA is the failover partner of another.
 */
DAT_RETURN DAT_API sd_ia_ha_related(DAT_IA_HANDLE ia_handle,
				    const DAT_NAME_PTR name, DAT_BOOLEAN *answer)
{
	struct sd_ia *ia = sd_obj_ia(ia_handle);

	if (ia == NULL)
		return sd_refuse_handle("ia_ha_related", NULL, "ia_handle",
					ia_handle, SD_MAGIC_IA,
					DAT_INVALID_HANDLE_IA);
	if (name == NULL)
		return sd_refuse_null("ia_ha_related", &ia->obj, "ia_name",
				      DAT_INVALID_ARG2);
	if (answer == NULL)
		return sd_refuse_null("ia_ha_related", &ia->obj, "answer",
				      DAT_INVALID_ARG3);
	*answer = DAT_FALSE;
	return DAT_SUCCESS;
}
