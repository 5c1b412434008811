/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connection management of UD endpoints: how a UD EP resolves address
 * handles (ext.h explains the model, udproto.h the datagrams).
 *
 *   requester (dat_ep_connect)          service point's UDP port
 *   REQ (cm_id, qpn, qkey, pdata) --->  UD CR, DAT_IB_UD_CONNECTION_REQUEST_EVENT
 *                                       dat_cr_accept(cr, ud_ep)  dat_cr_reject
 *   <--- REP (from the accepting EP's socket: its qpn, qkey, pdata)
 *   <--- REJ (reason, pdata)             ... REJECT_EVENT at the requester
 *   ESTABLISHED, DAT_IB_UD_REMOTE_AH
 *   RTU ------------------------------>  ESTABLISHED, DAT_IB_UD_PASSIVE_REMOTE_AH
 *
 * dat_cr_handoff moves a request to another PSP of the IA: a new CR
 * there, as if the REQ had gone to that port (sd_ud_cr_handoff).
 *
 * Service points. Every PSP also gets a UDP socket bound to the IA's
 * address at its port number: provider.c routes dat_psp_create,
 * dat_psp_create_any and dat_psp_free through sd_ext_psp_* (ext.c), which
 * call psp.c and then open or close that socket (sd_ud_sp_open,
 * sd_ud_sp_close_for). A port whose UDP side is
 * taken (another program's) keeps its PSP, without UD (SOFTDAPL_DEBUG
 * says so); a PSP with DAT_PSP_PROVIDER_FLAG answers UD requests with a
 * REJ (the provider cannot make a UD EP for it). RSPs take no UD
 * requests.
 *
 * Losses. The requester resends REQ (every rto, doubling from 200 ms to
 * 2 s) until it has an answer or its connect timeout ends it
 * (DAT_IB_UD_CONNECTION_ERROR_EVENT); the accepter resends REP until the
 * RTU comes, for SD_UD_PASSIVE_MS at most. Duplicates are recognised by
 * cm_id (random, 64 bits) and the sender's address: a copy of a REQ
 * whose CR is pending is ignored, one already accepted gets its REP
 * again, one rejected its REJ again (a rejected CR stays as a tombstone
 * for SD_UD_TOMB_MS); a copy of a REP gets the RTU again. A CM object
 * the consumer released (dat_ib_ud_cm_free) lingers SD_UD_LINGER_MS for
 * the same reason before the engine frees it.
 *
 * Threads. Everything here that touches sockets, CM states, the
 * registry of requests and the timer runs on the engine thread; the
 * consumer calls (connect, accept, reject, PSP create and free) check
 * their arguments, prepare, and hand over through commands. A UD EP's
 * lock is held for anything about that EP (its CMs, its events, its
 * socket); ud_sp_lock (a leaf) guards the list of service point sockets.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "engine.h"
#include "entry.h"
#include "evq.h"
#include "ext.h"
#include "ia.h"
#include "obj.h"
#include "refuse.h"
#include "sp.h"
#include "trace.h"
#include "udproto.h"
#include "util.h"

#define SD_UD_RTO_MS		200	/* first resend interval */
#define SD_UD_RTO_MAX_MS	2000
#define SD_UD_PASSIVE_MS	20000	/* an accepter waits this long for RTU */
#define SD_UD_TOMB_MS		5000	/* a rejected request is remembered */
#define SD_UD_LINGER_MS		5000	/* a released CM object is kept */
#define SD_UD_TICK_MS		50

/* A service point's UDP socket. */
struct ud_sp {
	struct sd_sp		*sp;		/* const: its PSP (freed after us) */
	struct sd_ia		*ia;		/* const */
	DAT_CONN_QUAL		port;		/* const */
	int			fd;		/* const; closed by the engine */
	bool			dead;		/* atomic: unlisted, being closed */
	bool			polling;	/* engine */
	uv_poll_t		poll;		/* engine */
	struct sd_cmd		start_cmd;
	struct sd_cmd		close_cmd;
	struct sd_list		node;		/* ud_sp_lock: in ud_sps */
};

static pthread_mutex_t ud_sp_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sd_list ud_sps = { &ud_sps, &ud_sps };	/* ud_sp_lock */

/* The engine's side of the service: all of it engine only. */
static struct {
	unsigned	users;		/* UD EPs and SP sockets being polled */
	uv_timer_t	*timer;		/* while users > 0 */
	bool		ticking;
	struct sd_list	timed;		/* CMs with something due (cm->tnode) */
	struct sd_list	crs;		/* UD CRs: pending and tombstones (cr->reg) */
	struct sd_list	pcms;		/* passive CMs (cm->reg) */
} svc = {
	.timed = { &svc.timed, &svc.timed },
	.crs = { &svc.crs, &svc.crs },
	.pcms = { &svc.pcms, &svc.pcms },
};

/* Engine: scratch space for requests read at service points. */
static uint8_t sp_buf[SD_UD_HDR_SIZE + SD_UD_MAX_PDATA];

static void ud_tick(uv_timer_t *t);

/* ------------------------------------------------------------------ */
/* Helpers                                                             */

static bool sa_equal(const struct sockaddr_storage *a,
		     const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *x = (const struct sockaddr_in *)a;
		const struct sockaddr_in *y = (const struct sockaddr_in *)b;

		return x->sin_port == y->sin_port &&
		       x->sin_addr.s_addr == y->sin_addr.s_addr;
	}
	if (a->ss_family == AF_INET6) {
		const struct sockaddr_in6 *x = (const struct sockaddr_in6 *)a;
		const struct sockaddr_in6 *y = (const struct sockaddr_in6 *)b;

		return x->sin6_port == y->sin6_port &&
		       memcmp(&x->sin6_addr, &y->sin6_addr, 16) == 0;
	}
	return false;
}

static socklen_t sa_len(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
					   sizeof(struct sockaddr_in);
}

/* Builds a connection datagram into @buf; its length. */
static size_t cm_msg(uint8_t *buf, uint8_t type, const struct sd_ud_ep *ep,
		     uint32_t dst_qpn, uint32_t dst_qkey, uint64_t id,
		     uint32_t arg, const uint8_t *pdata, uint16_t pdata_len)
{
	struct sd_ud_hdr h;

	memset(&h, 0, sizeof(h));
	h.magic = SD_UD_MAGIC;
	h.version = SD_UD_VERSION;
	h.type = type;
	h.dst_qpn = dst_qpn;
	h.dst_qkey = dst_qkey;
	/* A REJ from a service point has no EP: qpn 1 stands for "none". */
	h.src_qpn = ep ? ep->qpn : 1;
	h.src_qkey = ep ? ep->qkey : 0;
	h.cm_id = id;
	h.arg = arg;
	h.pdata_len = pdata_len;
	ud_hdr_pack(&h, buf);
	if (pdata_len > 0)
		memcpy(buf + SD_UD_HDR_SIZE, pdata, pdata_len);
	return SD_UD_HDR_SIZE + pdata_len;
}

/* Engine: the timer runs while something is due. */
static void svc_kick(void)
{
	if (svc.timer != NULL && !svc.ticking) {
		uv_timer_start(svc.timer, ud_tick, SD_UD_TICK_MS, SD_UD_TICK_MS);
		svc.ticking = true;
	}
}

static void cm_timed(struct sd_ud_cm *cm, bool on)
{
	if (cm->timed == on)
		return;
	cm->timed = on;
	if (on) {
		sd_list_add_tail(&svc.timed, &cm->tnode);
		svc_kick();
	} else {
		sd_list_del(&cm->tnode);
	}
}

/* Engine: unlinks and frees @cm. ep->lock held. */
static void cm_destroy(struct sd_ud_cm *cm)
{
	cm_timed(cm, false);
	sd_list_del(&cm->node);
	if (!cm->active)
		sd_list_del(&cm->reg);
	cm->magic = 0;
	free(cm);
}

/* The IA counters of @ep, unless it is freed (its IA may be gone). */
static void ia_cnt(struct sd_ud_ep *ep, unsigned i)
{
	if (!ep->freed)
		sd_cnt_inc(ep->obj.ia->cnt, i);
}

/*
 * Counts @cm, made by a consumer call that succeeds, as an attempt of its
 * EP in progress (ep->cm_act or cm_pas, for dat_ep_modify). ep->lock.
 */
static void cm_count(struct sd_ud_cm *cm)
{
	struct sd_ud_ep *ep = cm->ep;

	cm->counted = true;
	cm->epoch = ep->cm_epoch;
	if (cm->active)
		ep->cm_act++;
	else
		ep->cm_pas++;
}

/*
 * @cm ended (established, failed, abandoned): it no longer counts, unless
 * a disconnect already forgot it (another epoch). Idempotent. ep->lock.
 */
static void cm_uncount(struct sd_ud_cm *cm)
{
	struct sd_ud_ep *ep = cm->ep;

	if (!cm->counted)
		return;
	cm->counted = false;
	if (cm->epoch != ep->cm_epoch)
		return;
	if (cm->active)
		ep->cm_act--;
	else
		ep->cm_pas--;
}

/*
 * True when @cm's EP gave up its attempts after @cm was made: it is
 * DISCONNECTED, or was and has been reset since (another epoch). Such an
 * attempt ends without an event, whatever answer comes. ep->lock.
 */
static bool cm_abandoned(const struct sd_ud_cm *cm)
{
	return cm->ep->state == DAT_EP_STATE_DISCONNECTED ||
	       cm->epoch != cm->ep->cm_epoch;
}

/* Engine, ep->lock: sends the message @cm is waiting on an answer to. */
static void cm_send(struct sd_ud_cm *cm)
{
	struct sd_ud_ep *ep = cm->ep;
	uint8_t buf[SD_UD_HDR_SIZE + SD_UD_MAX_PDATA];
	size_t n;
	int r;

	if (cm->active)
		n = cm_msg(buf, SD_UD_REQ, ep, 0, 0, cm->id,
			   (uint32_t)cm->conn_qual, cm->pdata, cm->pdata_len);
	else
		n = cm_msg(buf, SD_UD_REP, ep, cm->peer_qpn, cm->peer_qkey,
			   cm->id, 0, cm->pdata, cm->pdata_len);
	r = sd_ud_sendto(ep, buf, n, (struct sockaddr *)&cm->peer, cm->peer_len);
	if (r < 0)
		sd_dbg("ud ep %p: cm 0x%llx: send: %s", (void *)ep,
		       (unsigned long long)cm->id, strerror(-r));
}

/* Engine, ep->lock: the RTU for @cm (to the accepter, from its REP). */
static void cm_send_rtu(struct sd_ud_cm *cm)
{
	uint8_t buf[SD_UD_HDR_SIZE];
	size_t n = cm_msg(buf, SD_UD_RTU, cm->ep, cm->peer_qpn, cm->peer_qkey,
			  cm->id, 0, NULL, 0);

	sd_ud_sendto(cm->ep, buf, n, (struct sockaddr *)&cm->peer, cm->peer_len);
}

/* Engine, ep->lock: @cm ended without an address handle: event @num. */
static void cm_fail(struct sd_ud_cm *cm, DAT_EVENT_NUMBER num,
		    DAT_IB_EXT_TYPE type)
{
	struct sd_ud_ep *ep = cm->ep;

	cm->state = SD_UDCM_FAILED;
	cm_timed(cm, false);
	cm_uncount(cm);
	if (num != 0)
		sd_ud_conn_event(ep, num, type, NULL, cm, cm->peer_pdata,
				 cm->peer_pdata_len);
	if (cm->released) {
		cm->linger = sd_ud_now() + SD_UD_LINGER_MS;
		cm_timed(cm, true);
	}
}

/* Engine, ep->lock: @cm has its address handle: deliver it. */
static void cm_established(struct sd_ud_cm *cm)
{
	struct sd_ud_ep *ep = cm->ep;
	struct sd_ud_dest d;
	struct sd_ud_ah *ah;

	memset(&d, 0, sizeof(d));
	d.addr = cm->peer;
	d.len = cm->peer_len;
	d.qpn = cm->peer_qpn;
	d.qkey = cm->peer_qkey;
	ah = sd_ud_ah_new(ep, &d);
	if (ah == NULL) {
		cm_fail(cm, (DAT_EVENT_NUMBER)DAT_IB_UD_CONNECTION_ERROR_EVENT,
			DAT_IB_UD_CONNECT_ERROR);
		return;
	}
	cm->state = SD_UDCM_ESTABLISHED;
	cm_timed(cm, false);
	cm_uncount(cm);
	if (cm->active) {
		/* What dat_ep_dup_connect asks again. */
		ep->has_remote = true;
		ep->remote = cm->target;
		ep->remote_len = cm->target_len;
		ep->remote_qual = cm->conn_qual;
	}
	if (ep->state == DAT_EP_STATE_UNCONNECTED) {
		sd_ud_set_state(ep, DAT_EP_STATE_CONNECTED, "address handle");
	}
	ia_cnt(ep, DCNT_IA_CM_AH_RESOLVED);
	ia_cnt(ep, cm->active ? DCNT_IA_CM_ACTIVE_EST : DCNT_IA_CM_PASSIVE_EST);
	sd_ud_conn_event(ep, (DAT_EVENT_NUMBER)DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED,
			 cm->active ? DAT_IB_UD_REMOTE_AH :
				      DAT_IB_UD_PASSIVE_REMOTE_AH,
			 ah, cm, cm->peer_pdata, cm->peer_pdata_len);
	/*
	 * An armed hard watermark the EP already exceeds breaks it now, as
	 * an RC connection is broken as soon as it is established (ep.c);
	 * the soft one cannot newly fire here (only receives raise the count,
	 * and dat_ep_post_recv checks it).
	 */
	(void)sd_ud_check_watermarks(ep, false);
	if (cm->released) {
		cm->linger = sd_ud_now() + SD_UD_LINGER_MS;
		cm_timed(cm, true);
	}
}

/* Sends a REJ to @to for request @id from a socket of its own. Engine. */
static void send_rej(const struct sockaddr_storage *to, uint32_t qpn,
		     uint32_t qkey, uint64_t id, uint32_t reason,
		     const uint8_t *pdata, uint16_t pdata_len)
{
	uint8_t buf[SD_UD_HDR_SIZE + SD_UD_MAX_PDATA];
	size_t n = cm_msg(buf, SD_UD_REJ, NULL, qpn, qkey, id, reason, pdata,
			  pdata_len);
	int fd = socket(to->ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return;
	(void)sendto(fd, buf, n, MSG_DONTWAIT | MSG_NOSIGNAL,
		     (const struct sockaddr *)to, sa_len(to));
	close(fd);
}

/* ------------------------------------------------------------------ */
/* The service's timer                                                 */

void sd_ud_svc_get(void)
{
	if (svc.users++ > 0)
		return;
	svc.timer = malloc(sizeof(*svc.timer));
	if (svc.timer == NULL || uv_timer_init(sd_engine_loop(), svc.timer) < 0) {
		sd_log("ud: no timer: lost requests will not be resent");
		free(svc.timer);
		svc.timer = NULL;
	}
	svc.ticking = false;
}

static void timer_closed(uv_handle_t *h)
{
	free(h);
}

void sd_ud_svc_put(void)
{
	struct sd_list *pos;

	if (--svc.users > 0)
		return;
	/*
	 * No service point is left to hear a late request: tombstones go,
	 * and pending CRs (the consumer's still) leave the registry.
	 */
	while ((pos = svc.crs.next) != &svc.crs) {
		struct sd_ud_cr *cr = sd_container_of(pos, struct sd_ud_cr, reg);

		sd_list_del(pos);
		if (cr->expiry != 0)
			free(cr);
	}
	if (svc.timer != NULL)
		uv_close((uv_handle_t *)svc.timer, timer_closed);
	svc.timer = NULL;
	svc.ticking = false;
}

/* Engine: resends what is due, ends what timed out, frees what lingered. */
static void ud_tick(uv_timer_t *t)
{
	uint64_t now = sd_ud_now();
	struct sd_list *pos, *next;

	(void)t;
	for (pos = svc.timed.next; pos != &svc.timed; pos = next) {
		struct sd_ud_cm *cm = sd_container_of(pos, struct sd_ud_cm, tnode);
		struct sd_ud_ep *ep = cm->ep;

		next = pos->next;
		pthread_mutex_lock(&ep->lock);
		if (ep->freed) {
			/* free_cmd is on its way and frees it. */
		} else if (cm->state == SD_UDCM_REQ_SENT ||
			   cm->state == SD_UDCM_REP_SENT) {
			if (cm_abandoned(cm)) {
				cm_fail(cm, 0, DAT_IB_UD_CONNECT_ERROR);
			} else if (cm->deadline != 0 && now >= cm->deadline) {
				sd_dbg("ud ep %p: cm 0x%llx timed out", (void *)ep,
				       (unsigned long long)cm->id);
				ia_cnt(ep, DCNT_IA_CM_ERR_TIMEOUT);
				cm_fail(cm, (DAT_EVENT_NUMBER)DAT_IB_UD_CONNECTION_ERROR_EVENT,
					DAT_IB_UD_CONNECT_ERROR);
			} else if (now >= cm->next) {
				ia_cnt(ep, cm->active ? DCNT_IA_CM_ERR_REQ_RETRY :
						       DCNT_IA_CM_ERR_REP_RETRY);
				cm_send(cm);
				cm->rto = cm->rto * 2 > SD_UD_RTO_MAX_MS ?
					  SD_UD_RTO_MAX_MS : cm->rto * 2;
				cm->next = now + cm->rto;
			}
		} else if (!cm->released) {
			cm_timed(cm, false);
		} else if (now >= cm->linger) {
			cm_destroy(cm);
		}
		pthread_mutex_unlock(&ep->lock);
	}
	for (pos = svc.crs.next; pos != &svc.crs; pos = next) {
		struct sd_ud_cr *cr = sd_container_of(pos, struct sd_ud_cr, reg);

		next = pos->next;
		if (cr->expiry != 0 && now >= cr->expiry) {
			sd_list_del(pos);
			free(cr);
		}
	}
	if (sd_list_empty(&svc.timed)) {
		bool tombs = false;

		sd_list_for_each(pos, &svc.crs)
			if (sd_container_of(pos, struct sd_ud_cr, reg)->expiry != 0)
				tombs = true;
		if (!tombs && svc.timer != NULL) {
			uv_timer_stop(svc.timer);
			svc.ticking = false;
		}
	}
}

/* ------------------------------------------------------------------ */
/* The requester                                                       */

/*
 * Whether UD EP @ep may resolve an address handle now, asking
 * (dat_ep_connect) or answering (dat_cr_accept, @call on @obj, the CR):
 * DAT_SUCCESS, or the refusal: freed, DISCONNECTED, or without a
 * connection EVD for the outcome. ep->lock held.
 */
static DAT_RETURN ud_ep_ready(const char *call, const struct sd_obj *obj,
			      struct sd_ud_ep *ep)
{
	if (ep->freed)
		return sd_refuse(call, obj,
				 SD_ERR(DAT_INVALID_HANDLE,
					DAT_INVALID_HANDLE_EP),
				 "%s is being freed", sd_obj_name(&ep->obj).s);
	if (ep->state == DAT_EP_STATE_DISCONNECTED)
		return sd_refuse(call, obj,
				 SD_ERR(DAT_INVALID_STATE,
					DAT_INVALID_STATE_EP_DISCONNECTED),
				 "%s is DISCONNECTED (dat_ep_reset it first)",
				 sd_obj_name(&ep->obj).s);
	if (ep->conn_evd == NULL)
		return sd_refuse(call, obj,
				 SD_ERR(DAT_INVALID_STATE,
					DAT_INVALID_STATE_EP_NOTREADY),
				 "%s has no connection EVD",
				 sd_obj_name(&ep->obj).s);
	return DAT_SUCCESS;
}

DAT_RETURN DAT_API sd_ud_ep_connect(DAT_EP_HANDLE h, DAT_IA_ADDRESS_PTR addr,
				    DAT_CONN_QUAL conn_qual, DAT_TIMEOUT timeout,
				    DAT_COUNT pdata_size, const DAT_PVOID pdata,
				    DAT_QOS qos, DAT_CONNECT_FLAGS flags)
{
	struct sd_ud_ep *ep = sd_ud_ep_from_handle(h);
	DAT_RETURN ret = DAT_SUCCESS;
	struct sd_ud_cm *cm;
	size_t alen;

	(void)qos;
	if (ep == NULL)
		return sd_refuse_handle("ep_connect", NULL, "ep_handle", h,
					SD_MAGIC_UD_EP, DAT_INVALID_HANDLE_EP);
	if (addr == NULL)
		return sd_refuse_null("ep_connect", &ep->obj,
				      "remote_ia_address", DAT_INVALID_ARG2);
	if (addr->sa_family == AF_INET)
		alen = sizeof(struct sockaddr_in);
	else if (addr->sa_family == AF_INET6)
		alen = sizeof(struct sockaddr_in6);
	else
		return sd_refuse("ep_connect", &ep->obj,
				 SD_ERR(DAT_INVALID_ADDRESS,
					DAT_INVALID_ADDRESS_UNSUPPORTED),
				 "remote_ia_address has address family %u, "
				 "neither AF_INET nor AF_INET6",
				 (unsigned)addr->sa_family);
	/* The EP's socket speaks its IA's family only. */
	if (addr->sa_family != ep->local.ss_family)
		return sd_refuse("ep_connect", &ep->obj,
				 SD_ERR(DAT_INVALID_ADDRESS,
					DAT_INVALID_ADDRESS_UNSUPPORTED),
				 "remote_ia_address is %s, the UD EP's socket "
				 "%s", addr->sa_family == AF_INET ? "IPv4" :
				 "IPv6", ep->local.ss_family == AF_INET ?
				 "IPv4" : "IPv6");
	if (sd_qual_port(conn_qual) < 0)
		return sd_refuse("ep_connect", &ep->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3),
				 "remote_conn_qual 0x%llx names no port (its "
				 "low 16 bits are 0)",
				 (unsigned long long)conn_qual);
	conn_qual = (DAT_CONN_QUAL)sd_qual_port(conn_qual);
	if (timeout == 0)
		return sd_refuse("ep_connect", &ep->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4),
				 "timeout 0: an address handle cannot be "
				 "resolved in no time");
	if (pdata_size < 0 || pdata_size > SD_UD_MAX_PDATA)
		return sd_refuse("ep_connect", &ep->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5),
				 "private_data_size %d is not from 0 to %d",
				 (int)pdata_size, (int)SD_UD_MAX_PDATA);
	if (pdata_size > 0 && pdata == NULL)
		return sd_refuse("ep_connect", &ep->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6),
				 "private_data is NULL, private_data_size %d",
				 (int)pdata_size);
	if (flags & DAT_CONNECT_MULTIPATH_REQUIRED_FLAG)
		return sd_refuse("ep_connect", &ep->obj,
				 SD_ERR(DAT_MODEL_NOT_SUPPORTED, 0),
				 "connect_flags 0x%x: "
				 "DAT_CONNECT_MULTIPATH_REQUIRED_FLAG, and "
				 "softdapl has one path", (unsigned)flags);
	if (flags & ~(DAT_CONNECT_MULTIPATH_FLAG))
		return sd_refuse_bits("ep_connect", &ep->obj,
				      SD_ERR(DAT_INVALID_PARAMETER,
					     DAT_INVALID_ARG8),
				      "connect_flags", flags,
				      DAT_CONNECT_MULTIPATH_FLAG |
				      DAT_CONNECT_MULTIPATH_REQUIRED_FLAG);

	cm = calloc(1, sizeof(*cm));
	if (cm == NULL)
		return sd_refuse("ep_connect", &ep->obj,
				 SD_ERR(DAT_INSUFFICIENT_RESOURCES,
					DAT_RESOURCE_MEMORY),
				 "no memory for the request");
	cm->magic = SD_UD_CM_MAGIC;
	cm->ep = ep;
	cm->active = true;
	cm->state = SD_UDCM_NEW;
	if (getrandom(&cm->id, sizeof(cm->id), 0) != (ssize_t)sizeof(cm->id))
		cm->id = (uint64_t)(uintptr_t)cm ^ ((uint64_t)ep->qpn << 40);
	memcpy(&cm->peer, addr, alen);
	cm->peer_len = (socklen_t)alen;
	if (addr->sa_family == AF_INET)
		((struct sockaddr_in *)&cm->peer)->sin_port = htons((uint16_t)conn_qual);
	else
		((struct sockaddr_in6 *)&cm->peer)->sin6_port = htons((uint16_t)conn_qual);
	cm->target = cm->peer;
	cm->target_len = cm->peer_len;
	cm->conn_qual = conn_qual;
	cm->timeout = timeout == DAT_TIMEOUT_INFINITE ? 0 :
		      ((uint64_t)timeout + 999) / 1000;
	cm->pdata_len = (uint16_t)pdata_size;
	if (pdata_size > 0)
		memcpy(cm->pdata, pdata, (size_t)pdata_size);
	sd_list_init(&cm->tnode);
	sd_list_init(&cm->reg);

	pthread_mutex_lock(&ep->lock);
	ret = ud_ep_ready("ep_connect", &ep->obj, ep);
	if (ret == DAT_SUCCESS) {
		sd_list_add_tail(&ep->cm_new, &cm->node);
		cm_count(cm);
		sd_cnt_inc(ep->cnt, DCNT_EP_CONNECT);
		sd_engine_submit(&ep->io_cmd);
	}
	pthread_mutex_unlock(&ep->lock);
	if (ret != DAT_SUCCESS)
		free(cm);
	return ret;
}

void sd_ud_cm_take_new(struct sd_ud_ep *ep)
{
	uint64_t now = sd_ud_now();
	struct sd_list *pos, *next;

	while ((pos = ep->cm_new.next) != &ep->cm_new) {
		struct sd_ud_cm *cm = sd_container_of(pos, struct sd_ud_cm, node);

		sd_list_del(pos);
		if (cm_abandoned(cm)) {
			cm_uncount(cm);
			cm->magic = 0;		/* abandoned before it began */
			free(cm);
			continue;
		}
		sd_list_add_tail(&ep->cms, &cm->node);
		cm->state = SD_UDCM_REQ_SENT;
		cm->rto = SD_UD_RTO_MS;
		cm->next = now + cm->rto;
		cm->deadline = cm->timeout ? now + cm->timeout : 0;
		ia_cnt(ep, DCNT_IA_CM_AH_REQ_TX);
		cm_send(cm);
		cm_timed(cm, true);
	}
	/* Released objects start lingering; a disconnect ends attempts. */
	for (pos = ep->cms.next; pos != &ep->cms; pos = next) {
		struct sd_ud_cm *cm = sd_container_of(pos, struct sd_ud_cm, node);

		next = pos->next;
		if (cm->released && !cm->timed) {
			cm->linger = now + SD_UD_LINGER_MS;
			cm_timed(cm, true);
		}
		if (cm_abandoned(cm) &&
		    (cm->state == SD_UDCM_REQ_SENT || cm->state == SD_UDCM_REP_SENT))
			cm_fail(cm, 0, DAT_IB_UD_CONNECT_ERROR);
	}
}

/* The CM of @ep that sent or accepted request @id, or NULL. ep->lock. */
static struct sd_ud_cm *cm_find(struct sd_ud_ep *ep, uint64_t id, bool active)
{
	struct sd_list *pos;

	sd_list_for_each(pos, &ep->cms) {
		struct sd_ud_cm *cm = sd_container_of(pos, struct sd_ud_cm, node);

		if (cm->id == id && cm->active == active)
			return cm;
	}
	return NULL;
}

void sd_ud_cm_input(struct sd_ud_ep *ep, const struct sd_ud_hdr *h,
		    const uint8_t *pdata, const struct sockaddr_storage *src,
		    socklen_t srclen)
{
	struct sd_ud_cm *cm;

	SD_ASSERT_HELD(&ep->lock);
	SD_ASSERT_ENGINE();
	/* Only what names this EP exactly; anything else is someone else's. */
	if (h->dst_qpn != ep->qpn || h->dst_qkey != ep->qkey ||
	    ep->state == DAT_EP_STATE_DISCONNECTED)
		return;
	switch (h->type) {
	case SD_UD_REP:
		cm = cm_find(ep, h->cm_id, true);
		if (cm == NULL) {
			ia_cnt(ep, DCNT_IA_CM_ERR_UNEXPECTED);
			return;
		}
		ia_cnt(ep, DCNT_IA_CM_REP_RX);
		if (cm->state == SD_UDCM_ESTABLISHED) {
			ia_cnt(ep, DCNT_IA_CM_ERR_REP_DUP);
			cm_send_rtu(cm);	/* our RTU was lost */
			return;
		}
		if (cm->state != SD_UDCM_REQ_SENT || cm_abandoned(cm))
			return;
		/* Data goes where the REP came from: the accepting EP. */
		memset(&cm->peer, 0, sizeof(cm->peer));
		memcpy(&cm->peer, src, srclen < sizeof(cm->peer) ? srclen :
		       sizeof(cm->peer));
		cm->peer_len = srclen;
		cm->peer_qpn = h->src_qpn;
		cm->peer_qkey = h->src_qkey;
		cm->peer_pdata_len = h->pdata_len;
		memcpy(cm->peer_pdata, pdata, h->pdata_len);
		cm_send_rtu(cm);
		ia_cnt(ep, DCNT_IA_CM_RTU_TX);
		cm_established(cm);
		return;
	case SD_UD_REJ:
		cm = cm_find(ep, h->cm_id, true);
		if (cm == NULL || cm->state != SD_UDCM_REQ_SENT ||
		    cm_abandoned(cm))
			return;
		ia_cnt(ep, h->arg == SD_UD_REJ_CONSUMER ? DCNT_IA_CM_USER_REJ_RX :
							 DCNT_IA_CM_ERR_REJ_RX);
		cm->peer_pdata_len = h->pdata_len;
		memcpy(cm->peer_pdata, pdata, h->pdata_len);
		cm_fail(cm, (DAT_EVENT_NUMBER)DAT_IB_UD_CONNECTION_REJECT_EVENT,
			DAT_IB_UD_CONNECT_REJECT);
		return;
	case SD_UD_RTU:
		cm = cm_find(ep, h->cm_id, false);
		if (cm == NULL || !sa_equal(&cm->peer, src))
			return;
		ia_cnt(ep, DCNT_IA_CM_RTU_RX);
		if (cm->state != SD_UDCM_REP_SENT) {
			ia_cnt(ep, DCNT_IA_CM_ERR_RTU_DUP);
			return;
		}
		if (cm_abandoned(cm))
			return;
		cm_established(cm);
		return;
	default:
		return;
	}
}

void sd_ud_cm_ep_gone(struct sd_ud_ep *ep)
{
	struct sd_list *pos;

	while ((pos = ep->cms.next) != &ep->cms)
		cm_destroy(sd_container_of(pos, struct sd_ud_cm, node));
}

/* ------------------------------------------------------------------ */
/* Connection requests                                                 */

static struct sd_ud_cr *ud_cr_from_handle(DAT_CR_HANDLE h)
{
	struct sd_obj *o = sd_obj_check(h, SD_MAGIC_UD_CR);

	return o ? sd_container_of(o, struct sd_ud_cr, obj) : NULL;
}

/* The UD form of sd_obj_claim and sd_obj_unclaim (obj.h). */
static bool cr_take(struct sd_ud_cr *cr, uint8_t action)
{
	return sd_obj_claim(&cr->obj, SD_MAGIC_UD_CR, &cr->action,
			    SD_UDCR_PENDING, action);
}

static void cr_untake(struct sd_ud_cr *cr)
{
	sd_obj_unclaim(&cr->obj, SD_MAGIC_UD_CR, &cr->action, SD_UDCR_PENDING,
		       &cr->obj.ia->ud_crs);
}

static void ud_cr_cmd(struct sd_cmd *cmd);
static int cr_offer(struct ud_sp *u, struct sd_ud_cr *cr);

/*
 * Engine: a new UD CR of @ia, pending, listed nowhere yet (cr_offer lists
 * it); the caller fills in the request. NULL when out of memory.
 */
static struct sd_ud_cr *cr_new(struct sd_ia *ia)
{
	struct sd_ud_cr *cr = calloc(1, sizeof(*cr));

	if (cr == NULL)
		return NULL;
	cr->obj.provider = sd_obj_ud_table;
	cr->obj.magic = SD_MAGIC_UD_CR;
	cr->obj.type = DAT_HANDLE_TYPE_CR;
	cr->obj.num = sd_obj_number(DAT_HANDLE_TYPE_CR);
	cr->obj.ia = ia;
	sd_list_init(&cr->obj.node);
	cr->action = SD_UDCR_PENDING;
	cr->cmd.fn = ud_cr_cmd;
	sd_list_init(&cr->reg);
	return cr;
}

/*
 * The UDP side of @ia's service point at @port (not being closed), or
 * NULL. Takes ud_sp_lock (a leaf: callers may hold ia->lock). The result
 * may be used only on the engine thread, which alone frees it, or as a
 * yes/no.
 */
static struct ud_sp *ud_sp_at(struct sd_ia *ia, DAT_CONN_QUAL port)
{
	struct ud_sp *found = NULL;
	struct sd_list *pos;

	pthread_mutex_lock(&ud_sp_lock);
	sd_list_for_each(pos, &ud_sps) {
		struct ud_sp *u = sd_container_of(pos, struct ud_sp, node);

		if (u->ia == ia && u->port == port &&
		    !__atomic_load_n(&u->dead, __ATOMIC_ACQUIRE)) {
			found = u;
			break;
		}
	}
	pthread_mutex_unlock(&ud_sp_lock);
	return found;
}

/*
 * Engine: @cr was rejected, or its handoff refused: a REJ (@reason) to
 * the requester, then @cr stays in the registry as a tombstone for
 * SD_UD_TOMB_MS so that a late copy of its REQ gets the REJ again rather
 * than making a new request; freed at once when no service point is left
 * to hear one.
 */
static void cr_tomb(struct sd_ud_cr *cr, uint32_t reason)
{
	send_rej(&cr->remote, cr->peer_qpn, cr->peer_qkey, cr->cm_id, reason,
		 cr->rej_pdata, cr->rej_len);
	sd_list_del(&cr->reg);	/* (svc_put may have unlisted it) */
	if (svc.timer == NULL) {
		free(cr);
		return;
	}
	sd_list_add_tail(&svc.crs, &cr->reg);
	cr->expiry = sd_ud_now() + SD_UD_TOMB_MS;
	svc_kick();
}

/*
 * Engine: dat_cr_handoff moved @cr to the PSP at cr->handoff_qual. A new
 * CR is offered there (cr_offer) as if the REQ had been sent to that
 * port: same requester, cm_id and private data. It takes @cr's place in
 * the registry, so that copies of the REQ still arriving at the first
 * port are recognised as pending. If that PSP is gone by now or cannot
 * take the request, the requester is refused (SD_UD_REJ_NO_SP, as if
 * nothing had listened) and @cr stays as a tombstone; otherwise @cr is
 * freed.
 */
static void cr_handoff(struct sd_ud_cr *cr)
{
	struct sd_ia *ia = cr->obj.ia;
	struct ud_sp *u = ud_sp_at(ia, cr->handoff_qual);
	struct sd_ud_cr *to;

	sd_list_del(&cr->reg);
	if (u != NULL && (to = cr_new(ia)) != NULL) {
		to->remote = cr->remote;
		to->remote_len = cr->remote_len;
		to->cm_id = cr->cm_id;
		to->peer_qpn = cr->peer_qpn;
		to->peer_qkey = cr->peer_qkey;
		to->pdata_len = cr->pdata_len;
		memcpy(to->pdata, cr->pdata, cr->pdata_len);
		if (cr_offer(u, to) == 0) {
			free(cr);
			return;
		}
		free(to);
	}
	sd_dbg("ud cr %p: handoff to port %llu refused", (void *)cr,
	       (unsigned long long)cr->handoff_qual);
	sd_cnt_inc(ia->cnt, DCNT_IA_CM_ERR_REJ_TX);
	cr->rej_len = 0;
	cr_tomb(cr, SD_UD_REJ_NO_SP);
}

DAT_RETURN DAT_API sd_ud_cr_query(DAT_CR_HANDLE h, DAT_CR_PARAM_MASK mask,
				  DAT_CR_PARAM *p)
{
	struct sd_ud_cr *cr = ud_cr_from_handle(h);

	if (cr == NULL)
		return sd_refuse_handle("cr_query", NULL, "cr_handle", h,
					SD_MAGIC_UD_CR, DAT_INVALID_HANDLE_CR);
	if (p == NULL)
		return sd_refuse_null("cr_query", &cr->obj, "cr_param",
				      DAT_INVALID_ARG3);
	(void)mask;
	p->remote_ia_address_ptr = (DAT_IA_ADDRESS_PTR)&cr->remote;
	p->remote_port_qual = ntohs(cr->remote.ss_family == AF_INET6 ?
				    ((struct sockaddr_in6 *)&cr->remote)->sin6_port :
				    ((struct sockaddr_in *)&cr->remote)->sin_port);
	p->private_data_size = cr->pdata_len;
	p->private_data = cr->pdata_len ? cr->pdata : NULL;
	p->local_ep_handle = DAT_HANDLE_NULL;
	return DAT_SUCCESS;
}

/*
 * cr->cmd: the consumer decided (accept, reject or handoff); the engine
 * answers. Frees or keeps @cr.
 */
static void ud_cr_cmd(struct sd_cmd *cmd)
{
	struct sd_ud_cr *cr = sd_container_of(cmd, struct sd_ud_cr, cmd);
	struct sd_ud_cm *cm = cr->cm;
	struct sd_ud_ep *ep;
	uint64_t now = sd_ud_now();

	if (cr->action == SD_UDCR_REJECT) {
		cr_tomb(cr, SD_UD_REJ_CONSUMER);
		return;
	}
	if (cr->action == SD_UDCR_HANDOFF) {
		cr_handoff(cr);
		return;
	}
	sd_list_del(&cr->reg);
	ep = cm->ep;
	pthread_mutex_lock(&ep->lock);
	if (ep->freed || cm_abandoned(cm)) {
		cm_uncount(cm);
		pthread_mutex_unlock(&ep->lock);
		send_rej(&cr->remote, cr->peer_qpn, cr->peer_qkey, cr->cm_id,
			 SD_UD_REJ_NO_SP, NULL, 0);
		cm->magic = 0;
		free(cm);
		free(cr);
		return;
	}
	sd_list_add_tail(&ep->cms, &cm->node);
	sd_list_add_tail(&svc.pcms, &cm->reg);
	cm->state = SD_UDCM_REP_SENT;
	cm->rto = SD_UD_RTO_MS;
	cm->next = now + cm->rto;
	cm->deadline = now + SD_UD_PASSIVE_MS;
	ia_cnt(ep, DCNT_IA_CM_REP_TX);
	cm_send(cm);
	cm_timed(cm, true);
	pthread_mutex_unlock(&ep->lock);
	free(cr);
}

DAT_RETURN DAT_API sd_ud_cr_accept(DAT_CR_HANDLE h, DAT_EP_HANDLE ep_handle,
				   DAT_COUNT size, const DAT_PVOID pdata)
{
	struct sd_ud_cr *cr = ud_cr_from_handle(h);
	struct sd_ud_ep *ep = sd_ud_ep_from_handle(ep_handle);
	DAT_RETURN ret = DAT_SUCCESS;
	struct sd_ud_cm *cm;

	if (cr == NULL)
		return sd_refuse_handle("cr_accept", NULL, "cr_handle", h,
					SD_MAGIC_UD_CR, DAT_INVALID_HANDLE_CR);
	/* A UD request is accepted on a UD EP of the same IA, never NULL. */
	if (ep == NULL || ep->obj.ia != cr->obj.ia)
		return sd_refuse_handle("cr_accept", &cr->obj, "ep_handle",
					ep_handle, SD_MAGIC_UD_EP,
					DAT_INVALID_HANDLE_EP);
	if (size < 0 || size > SD_UD_MAX_PDATA)
		return sd_refuse("cr_accept", &cr->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3),
				 "private_data_size %d is not from 0 to %d",
				 (int)size, (int)SD_UD_MAX_PDATA);
	if (size > 0 && pdata == NULL)
		return sd_refuse("cr_accept", &cr->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4),
				 "private_data is NULL, private_data_size %d",
				 (int)size);
	cm = calloc(1, sizeof(*cm));
	if (cm == NULL)
		return sd_refuse("cr_accept", &cr->obj,
				 SD_ERR(DAT_INSUFFICIENT_RESOURCES,
					DAT_RESOURCE_MEMORY),
				 "no memory for the reply");
	if (!cr_take(cr, SD_UDCR_ACCEPT)) {
		free(cm);
		return sd_refuse("cr_accept", NULL,
				 SD_ERR(DAT_INVALID_HANDLE,
					DAT_INVALID_HANDLE_CR),
				 "cr_handle %p: the request was accepted, "
				 "rejected or handed off meanwhile", h);
	}
	cm->magic = SD_UD_CM_MAGIC;
	cm->ep = ep;
	cm->active = false;
	cm->state = SD_UDCM_NEW;
	cm->id = cr->cm_id;
	cm->peer = cr->remote;
	cm->peer_len = cr->remote_len;
	cm->peer_qpn = cr->peer_qpn;
	cm->peer_qkey = cr->peer_qkey;
	cm->conn_qual = cr->conn_qual;
	cm->pdata_len = (uint16_t)size;
	if (size > 0)
		memcpy(cm->pdata, pdata, (size_t)size);
	cm->peer_pdata_len = cr->pdata_len;
	memcpy(cm->peer_pdata, cr->pdata, cr->pdata_len);
	sd_list_init(&cm->node);
	sd_list_init(&cm->tnode);
	sd_list_init(&cm->reg);

	pthread_mutex_lock(&ep->lock);
	ret = ud_ep_ready("cr_accept", &cr->obj, ep);
	if (ret == DAT_SUCCESS)
		cm_count(cm);
	pthread_mutex_unlock(&ep->lock);
	if (ret != DAT_SUCCESS) {
		cr_untake(cr);
		free(cm);
		return ret;
	}
	sd_cnt_inc(cr->obj.ia->cnt, DCNT_IA_SP_CR_ACCEPTED);
	cr->cm = cm;
	/* After this the engine owns @cr: no touching it. */
	sd_engine_submit(&cr->cmd);
	return DAT_SUCCESS;
}

DAT_RETURN DAT_API sd_ud_cr_reject(DAT_CR_HANDLE h, DAT_COUNT size,
				   const DAT_PVOID pdata)
{
	struct sd_ud_cr *cr = ud_cr_from_handle(h);

	if (cr == NULL)
		return sd_refuse_handle("cr_reject", NULL, "cr_handle", h,
					SD_MAGIC_UD_CR, DAT_INVALID_HANDLE_CR);
	if (size < 0 || size > SD_UD_MAX_PDATA)
		return sd_refuse("cr_reject", &cr->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
				 "private_data_size %d is not from 0 to %d",
				 (int)size, (int)SD_UD_MAX_PDATA);
	if (size > 0 && pdata == NULL)
		return sd_refuse("cr_reject", &cr->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3),
				 "private_data is NULL, private_data_size %d",
				 (int)size);
	if (!cr_take(cr, SD_UDCR_REJECT))
		return sd_refuse("cr_reject", NULL,
				 SD_ERR(DAT_INVALID_HANDLE,
					DAT_INVALID_HANDLE_CR),
				 "cr_handle %p: the request was accepted, "
				 "rejected or handed off meanwhile", h);
	cr->rej_len = (uint16_t)size;
	if (size > 0)
		memcpy(cr->rej_pdata, pdata, (size_t)size);
	sd_cnt_inc(cr->obj.ia->cnt, DCNT_IA_SP_CR_REJECTED);
	sd_cnt_inc(cr->obj.ia->cnt, DCNT_IA_CM_USER_REJ_TX);
	sd_engine_submit(&cr->cmd);
	return DAT_SUCCESS;
}

/* True when PSP @sp has a UDP side that is not being closed. ud_sp_lock. */
static bool sp_takes_ud(const struct sd_sp *sp)
{
	struct sd_list *pos;
	bool yes = false;

	pthread_mutex_lock(&ud_sp_lock);
	sd_list_for_each(pos, &ud_sps) {
		struct ud_sp *u = sd_container_of(pos, struct ud_sp, node);

		if (u->sp == sp && !__atomic_load_n(&u->dead, __ATOMIC_ACQUIRE)) {
			yes = true;
			break;
		}
	}
	pthread_mutex_unlock(&ud_sp_lock);
	return yes;
}

/*
 * dat_cr_handoff on a UD connection request (DAT 2.0, 6.4.2.4), as cr.c
 * does it for RC: hands the request to the service point of this IA
 * listening at @qual (folded as sd_qual_port), synchronously as far as
 * the consumer sees: the CR handle is dead when this returns (later
 * calls on it: DAT_INVALID_HANDLE), and that PSP's EVD gets a
 * DAT_IB_UD_CONNECTION_REQUEST_EVENT with a new CR, as if the REQ had
 * been sent to @qual (conn_qual @qual, the same requester and private
 * data). The target must be one that takes UD requests: a PSP created
 * with DAT_PSP_CONSUMER_FLAG whose UDP side is open (an RSP, a CSP or a
 * PSP with DAT_PSP_PROVIDER_FLAG never does; see the top of this file);
 * any other service point at @qual, or none, is DAT_INVALID_PARAMETER
 * (DAT_INVALID_ARG2), cr.c's answer when nothing listens there, and the
 * CR stays pending. The engine moves the request (cr_handoff): if the
 * target is freed meanwhile, the requester gets
 * DAT_IB_UD_CONNECTION_REJECT_EVENT, as if nothing had listened.
 * Returns DAT_SUCCESS, DAT_INVALID_HANDLE (DAT_INVALID_HANDLE_CR: not a
 * pending UD CR) or DAT_INVALID_PARAMETER. Any consumer thread, no lock
 * held: takes ia->lock, then sp->lock (sd_sp_find) and ud_sp_lock inside
 * it.
 */
DAT_RETURN DAT_API sd_ud_cr_handoff(DAT_CR_HANDLE h, DAT_CONN_QUAL qual)
{
	struct sd_ud_cr *cr = ud_cr_from_handle(h);
	DAT_RETURN ret = DAT_SUCCESS;
	struct sd_sp *sp;
	struct sd_ia *ia;

	if (cr == NULL)
		return sd_refuse_handle("cr_handoff", NULL, "cr_handle", h,
					SD_MAGIC_UD_CR, DAT_INVALID_HANDLE_CR);
	if (sd_qual_port(qual) < 0)
		return sd_refuse("cr_handoff", &cr->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
				 "handoff 0x%llx names no port (its low 16 bits "
				 "are 0)", (unsigned long long)qual);
	qual = (DAT_CONN_QUAL)sd_qual_port(qual);
	ia = cr->obj.ia;
	pthread_mutex_lock(&ia->lock);
	if (cr->action != SD_UDCR_PENDING || cr->obj.magic != SD_MAGIC_UD_CR) {
		ret = sd_refuse("cr_handoff", NULL,
				SD_ERR(DAT_INVALID_HANDLE,
				       DAT_INVALID_HANDLE_CR),
				"cr_handle %p: the request was accepted, "
				"rejected or handed off meanwhile", h);
	} else if ((sp = sd_sp_find(ia, qual)) == NULL ||
		   sp->obj.magic != SD_MAGIC_PSP ||
		   sp->flags != DAT_PSP_CONSUMER_FLAG || !sp_takes_ud(sp)) {
		ret = sd_refuse("cr_handoff", &cr->obj,
				SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
				"handoff %llu: %s", (unsigned long long)qual,
				sp == NULL ? "no service point of this IA "
				"listens there" : "the service point there "
				"takes no UD requests (only a PSP with "
				"DAT_PSP_CONSUMER_FLAG does)");
	} else {
		cr->action = SD_UDCR_HANDOFF;
		cr->handoff_qual = qual;
		cr->obj.magic = SD_MAGIC_DEAD;
		sd_list_del(&cr->obj.node);
	}
	pthread_mutex_unlock(&ia->lock);
	if (ret != DAT_SUCCESS)
		return ret;
	/* After this the engine owns @cr: no touching it. */
	sd_engine_submit(&cr->cmd);
	return DAT_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Service points                                                      */

/*
 * Engine: lists @cr (filled in, not yet listed anywhere) as a pending
 * request of service point @u and posts DAT_IB_UD_CONNECTION_REQUEST_EVENT
 * for it on the PSP's EVD. 0; or -ENOENT when the PSP takes no UD
 * requests now (freed, no EVD, DAT_PSP_PROVIDER_FLAG) or its EVD is
 * full: nothing is listed then, and the caller frees @cr and refuses.
 */
static int cr_offer(struct ud_sp *u, struct sd_ud_cr *cr)
{
	struct sd_ia *ia = u->ia;
	struct sd_sp *sp = u->sp;
	DAT_IB_EXTENSION_EVENT_DATA *x;
	DAT_EVENT e;
	int r = -ENOENT;

	cr->conn_qual = u->port;
	cr->sp = sp;
	/*
	 * Listed under ia->lock only while @u is not being closed: ia_close
	 * marks the IA's service point sockets dead before it looks for the
	 * CRs left under ia->lock, so it either sees this one or we see it.
	 */
	pthread_mutex_lock(&ia->lock);
	if (__atomic_load_n(&u->dead, __ATOMIC_ACQUIRE)) {
		pthread_mutex_unlock(&ia->lock);
		return -ENOENT;
	}
	sd_list_add_tail(&ia->ud_crs, &cr->obj.node);
	pthread_mutex_unlock(&ia->lock);

	/* u->ia and u->port are @sp's IA and conn_qual. */
	sd_sp_cr_event(&e, (DAT_EVENT_NUMBER)DAT_IB_UD_CONNECTION_REQUEST_EVENT,
		       sp, (DAT_CR_HANDLE)cr);
	x = (DAT_IB_EXTENSION_EVENT_DATA *)e.event_extension_data;
	x->type = DAT_IB_UD_CONNECT_REQUEST;
	x->status = DAT_OP_SUCCESS;
	/* As psp.c posts its requests: under the service point's lock. */
	pthread_mutex_lock(&sp->lock);
	if (!sp->closing && sp->evd != NULL && sp->flags == DAT_PSP_CONSUMER_FLAG) {
		sd_list_add_tail(&svc.crs, &cr->reg);
		r = sd_evq_post(sp->evd, &e) < 0 ? -ENOENT : 0;
		if (r < 0)
			sd_list_del(&cr->reg);
	}
	pthread_mutex_unlock(&sp->lock);
	if (r == 0) {
		sd_cnt_inc(ia->cnt, DCNT_IA_SP_CR);
		return 0;
	}
	/* Nobody will see it: undo. */
	pthread_mutex_lock(&ia->lock);
	sd_list_del(&cr->obj.node);
	pthread_mutex_unlock(&ia->lock);
	return r;
}

/*
 * Engine: a REQ (@h, @pdata) from @src reached @u. Answers a copy of a
 * known request; otherwise makes a CR and posts
 * DAT_IB_UD_CONNECTION_REQUEST_EVENT on the PSP's EVD, or refuses.
 */
static void sp_request(struct ud_sp *u, const struct sd_ud_hdr *h,
		       const uint8_t *pdata, const struct sockaddr_storage *src,
		       socklen_t srclen)
{
	struct sd_ia *ia = u->ia;
	struct sd_list *pos;
	struct sd_ud_cr *cr;

	sd_cnt_inc(ia->cnt, DCNT_IA_CM_AH_REQ_RX);
	if (h->arg != u->port)
		return;		/* not for this service point: a stray */
	sd_list_for_each(pos, &svc.crs) {
		cr = sd_container_of(pos, struct sd_ud_cr, reg);
		if (cr->cm_id != h->cm_id || !sa_equal(&cr->remote, src))
			continue;
		sd_cnt_inc(ia->cnt, DCNT_IA_CM_ERR_REQ_DUP);
		if (cr->expiry != 0)	/* rejected: say it again */
			send_rej(&cr->remote, cr->peer_qpn, cr->peer_qkey,
				 cr->cm_id, SD_UD_REJ_CONSUMER, cr->rej_pdata,
				 cr->rej_len);
		return;		/* pending: the consumer has not decided */
	}
	sd_list_for_each(pos, &svc.pcms) {
		struct sd_ud_cm *cm = sd_container_of(pos, struct sd_ud_cm, reg);
		struct sd_ud_ep *ep = cm->ep;

		if (cm->id != h->cm_id || !sa_equal(&cm->peer, src))
			continue;
		sd_cnt_inc(ia->cnt, DCNT_IA_CM_ERR_REQ_DUP);
		pthread_mutex_lock(&ep->lock);
		if (!ep->freed && cm->state != SD_UDCM_FAILED)
			cm_send(cm);	/* our REP was lost */
		pthread_mutex_unlock(&ep->lock);
		return;
	}

	cr = cr_new(ia);
	if (cr != NULL) {
		memcpy(&cr->remote, src, srclen < sizeof(cr->remote) ? srclen :
		       sizeof(cr->remote));
		cr->remote_len = srclen;
		cr->cm_id = h->cm_id;
		cr->peer_qpn = h->src_qpn;
		cr->peer_qkey = h->src_qkey;
		cr->pdata_len = h->pdata_len;
		memcpy(cr->pdata, pdata, h->pdata_len);
		if (cr_offer(u, cr) == 0)
			return;
		free(cr);
	}
	sd_cnt_inc(ia->cnt, DCNT_IA_CM_ERR_REJ_TX);
	send_rej(src, h->src_qpn, h->src_qkey, h->cm_id, SD_UD_REJ_NO_SP, NULL, 0);
}

static void sp_poll_cb(uv_poll_t *p, int status, int events)
{
	struct ud_sp *u = p->data;
	unsigned budget;

	(void)events;
	/* libuv stopped the poll on POLLERR: the reads below clear the error. */
	if (status < 0 && !__atomic_load_n(&u->dead, __ATOMIC_ACQUIRE))
		uv_poll_start(&u->poll, UV_READABLE, sp_poll_cb);
	for (budget = 0; budget < 64; budget++) {
		struct sockaddr_storage src;
		socklen_t sl = sizeof(src);
		struct sd_ud_hdr h;
		ssize_t n;

		if (__atomic_load_n(&u->dead, __ATOMIC_ACQUIRE))
			return;		/* close_cmd is on its way */
		memset(&src, 0, sizeof(src));
		n = recvfrom(u->fd, sp_buf, sizeof(sp_buf), MSG_DONTWAIT | MSG_TRUNC,
			     (struct sockaddr *)&src, &sl);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			continue;	/* a pending socket error, consumed */
		}
		if ((size_t)n < SD_UD_HDR_SIZE || (size_t)n > sizeof(sp_buf))
			continue;
		ud_hdr_unpack(&h, sp_buf);
		if (ud_hdr_check(&h, (uint64_t)n) < 0 || h.type != SD_UD_REQ) {
			sd_dbg("ud port %llu: bad datagram of %zd bytes dropped",
			       (unsigned long long)u->port, n);
			continue;
		}
		sp_request(u, &h, sp_buf + SD_UD_HDR_SIZE, &src, sl);
	}
}

static void sp_start_cmd(struct sd_cmd *cmd)
{
	struct ud_sp *u = sd_container_of(cmd, struct ud_sp, start_cmd);

	if (uv_poll_init_socket(sd_engine_loop(), &u->poll, u->fd) < 0)
		return;
	u->poll.data = u;
	u->polling = true;
	sd_ud_svc_get();
	uv_poll_start(&u->poll, UV_READABLE, sp_poll_cb);
}

static void sp_closed_cb(uv_handle_t *h)
{
	struct ud_sp *u = h->data;

	close(u->fd);
	free(u);
	sd_ud_svc_put();
}

static void sp_close_cmd(struct sd_cmd *cmd)
{
	struct ud_sp *u = sd_container_of(cmd, struct ud_sp, close_cmd);

	if (u->polling) {
		uv_poll_stop(&u->poll);
		uv_close((uv_handle_t *)&u->poll, sp_closed_cb);
		return;
	}
	close(u->fd);
	free(u);
}

/* Opens the UDP side of PSP @sp, if its port is free. Consumer thread. */
void sd_ud_sp_open(struct sd_sp *sp)
{
	struct sd_ia *ia = sp->obj.ia;
	struct sockaddr_storage ss = ia->addr.ss;
	struct ud_sp *u;
	int fd;

	if (ss.ss_family == AF_INET6) {
		((struct sockaddr_in6 *)&ss)->sin6_port = htons((uint16_t)sp->conn_qual);
		if (ia->addr.any)
			((struct sockaddr_in6 *)&ss)->sin6_addr = in6addr_any;
	} else {
		((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)sp->conn_qual);
		if (ia->addr.any)
			((struct sockaddr_in *)&ss)->sin_addr.s_addr = htonl(INADDR_ANY);
	}
	fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (bind(fd, (struct sockaddr *)&ss, ia->addr.len) < 0) {
		sd_dbg("psp %p: UDP port %llu: %s: no UD requests there",
		       (void *)sp, (unsigned long long)sp->conn_qual,
		       strerror(errno));
		close(fd);
		return;
	}
	u = calloc(1, sizeof(*u));
	if (u == NULL) {
		close(fd);
		return;
	}
	u->sp = sp;
	u->ia = ia;
	u->port = sp->conn_qual;
	u->fd = fd;
	u->start_cmd.fn = sp_start_cmd;
	u->close_cmd.fn = sp_close_cmd;
	pthread_mutex_lock(&ud_sp_lock);
	sd_list_add_tail(&ud_sps, &u->node);
	pthread_mutex_unlock(&ud_sp_lock);
	sd_cnt_inc(ia->cnt, DCNT_IA_CM_LISTEN);
	sd_engine_submit(&u->start_cmd);
}

/* Closes the UDP side of @u, unlisted already. */
static void sp_close(struct ud_sp *u)
{
	__atomic_store_n(&u->dead, true, __ATOMIC_RELEASE);
	sd_engine_submit(&u->close_cmd);
}

/* Closes the UDP side of PSP @sp, if it has one. Consumer thread. */
void sd_ud_sp_close_for(struct sd_sp *sp)
{
	struct ud_sp *u = NULL;
	struct sd_list *pos;

	pthread_mutex_lock(&ud_sp_lock);
	sd_list_for_each(pos, &ud_sps) {
		struct ud_sp *x = sd_container_of(pos, struct ud_sp, node);

		if (x->sp == sp) {
			u = x;
			sd_list_del(pos);
			break;
		}
	}
	pthread_mutex_unlock(&ud_sp_lock);
	if (u != NULL)
		sp_close(u);
}

/* ------------------------------------------------------------------ */
/* IA close                                                            */

void sd_ud_ia_close(struct sd_ia *ia)
{
	struct sd_list mine, *pos, *next;
	struct sd_obj *o;

	sd_list_init(&mine);
	pthread_mutex_lock(&ud_sp_lock);
	for (pos = ud_sps.next; pos != &ud_sps; pos = next) {
		struct ud_sp *u = sd_container_of(pos, struct ud_sp, node);

		next = pos->next;
		if (u->ia == ia) {
			sd_list_del(pos);
			sd_list_add_tail(&mine, pos);
		}
	}
	pthread_mutex_unlock(&ud_sp_lock);
	while ((pos = mine.next) != &mine) {
		sd_list_del(pos);
		sp_close(sd_container_of(pos, struct ud_sp, node));
	}
	for (;;) {
		pthread_mutex_lock(&ia->lock);
		o = sd_list_empty(&ia->ud_crs) ? NULL :
		    sd_container_of(ia->ud_crs.next, struct sd_obj, node);
		pthread_mutex_unlock(&ia->lock);
		if (o == NULL)
			break;
		sd_ud_cr_reject((DAT_CR_HANDLE)o, 0, NULL);
	}
	for (;;) {
		pthread_mutex_lock(&ia->lock);
		o = sd_list_empty(&ia->ud_eps) ? NULL :
		    sd_container_of(ia->ud_eps.next, struct sd_obj, node);
		pthread_mutex_unlock(&ia->lock);
		if (o == NULL)
			break;
		sd_ud_ep_release(sd_container_of(o, struct sd_ud_ep, obj));
	}
	/* Every command queued above has run: nothing of ours uses the IA. */
	sd_engine_sync();
}
