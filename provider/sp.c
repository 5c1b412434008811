/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The service-point core that PSPs, RSPs and CSPs share (struct sd_sp):
 * the listening socket, its release, and the arrival of a connection
 * request (the CR, the EP a PSP with DAT_PSP_PROVIDER_FLAG makes, and
 * DAT_CONNECTION_REQUEST_EVENT). The entry points (psp.c, rsp.c) create
 * and free service points through it; the engine's connection manager
 * (cm.c) finds one for an arriving HELLO and hands the request to it.
 *
 * A connection qualifier is a TCP port: the service point listens on the
 * IA's address (ia->addr: the address or interface of ia_params) at that
 * port. The socket is opened, bound and listening when sd_sp_listen
 * returns, so a port in use is reported synchronously
 * (DAT_CONN_QUAL_IN_USE); the engine starts polling it right after.
 *
 * Releasing shuts the listener down at once (the port is free for a new
 * service point when dat_psp_free returns) and lets the engine close it.
 * Connection requests already delivered stay valid: a CR is independent
 * of its service point.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "engine.h"
#include "evq.h"
#include "ia.h"
#include "obj.h"
#include "proto.h"
#include "qp.h"
#include "sock.h"
#include "sp.h"
#include "transport.h"
#include "util.h"

int sd_sp_listen(struct sd_sp *sp, struct sd_ia *ia, DAT_CONN_QUAL port)
{
	struct sockaddr_storage ss = ia->addr.ss;
	socklen_t len = ia->addr.len;
	int r;

	if (sd_qual_port(port) < 0)
		return -EDOM;
	port = (DAT_CONN_QUAL)sd_qual_port(port);
	/*
	 * An IA named by a wildcard (ia_params "0.0.0.0" or "::") reports one
	 * of the host's addresses but listens on all of them (README).
	 */
	if (ia->addr.any) {
		if (ss.ss_family == AF_INET6)
			((struct sockaddr_in6 *)&ss)->sin6_addr = in6addr_any;
		else
			((struct sockaddr_in *)&ss)->sin_addr.s_addr = htonl(INADDR_ANY);
	}
	if (ss.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&ss)->sin6_port = htons((uint16_t)port);
	else
		((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)port);
	/* "::" takes IPv4 peers too, whatever bindv6only (tcp.c). */
	sp->tp = SD_TP_DEFAULT;
	r = sp->tp->listen(&sp->lis, (struct sockaddr *)&ss, len, &ss);
	if (r == -EADDRINUSE || r == -EACCES)
		return -EADDRINUSE;
	if (r < 0)
		return -EIO;
	sp->conn_qual = ntohs(ss.ss_family == AF_INET6 ?
			      ((struct sockaddr_in6 *)&ss)->sin6_port :
			      ((struct sockaddr_in *)&ss)->sin_port);
	sp->cmd.fn = sd_cm_listen_cmd;
	sp->close_cmd.fn = sd_cm_listen_close_cmd;
	sd_engine_submit(&sp->cmd);
	return 0;
}

void sd_sp_release(struct sd_sp *sp)
{
	struct sd_ia *ia = sp->obj.ia;
	struct sd_evd *evd;

	pthread_mutex_lock(&sp->lock);
	sp->closing = true;
	evd = sp->evd;
	sp->evd = NULL;
	pthread_mutex_unlock(&sp->lock);
	/* The listener stops now; the engine closes it. */
	if (sp->lis != NULL)
		sp->tp->listen_stop(sp->lis);

	pthread_mutex_lock(&ia->lock);
	sd_list_del(&sp->obj.node);
	if (evd)
		evd->refs--;
	sp->obj.magic = SD_MAGIC_DEAD;
	pthread_mutex_unlock(&ia->lock);
	/*
	 * A command of its own, queued after the listen command: commands run
	 * in submission order, so the engine frees @sp only after every
	 * earlier use of it, and nothing here touches @sp afterwards.
	 */
	sd_engine_submit(&sp->close_cmd);
}

/*
 * Whether @evd can take one more event now. Another stream sharing the
 * EVD may fill it before sd_evq_post does (an overflow then, as for any
 * poster); a CR EVD of its own cannot. sp->lock held; takes evd->lock.
 */
static bool evd_has_room(struct sd_evd *evd)
{
	bool room;

	pthread_mutex_lock(&evd->lock);
	room = !evd->overflowed && evd->count < evd->qlen;
	pthread_mutex_unlock(&evd->lock);
	return room;
}

/* A request's arrival event (sp.h); udcm.c's UD requests use it too. */
void sd_sp_cr_event(DAT_EVENT *e, DAT_EVENT_NUMBER num, struct sd_sp *sp,
		    DAT_CR_HANDLE cr)
{
	DAT_CR_ARRIVAL_EVENT_DATA *a = &e->event_data.cr_arrival_event_data;

	memset(e, 0, sizeof(*e));
	e->event_number = num;
	a->sp_handle.psp_handle = (DAT_PSP_HANDLE)sp;
	a->local_ia_address_ptr = (DAT_IA_ADDRESS_PTR)&sp->obj.ia->addr.ss;
	a->conn_qual = sp->conn_qual;
	a->cr_handle = cr;
	a->truncate_flag = DAT_FALSE;
}

/*
 * An IPv4 peer of a service point listening on the IPv6 wildcard (an IA
 * of ia_params "::") arrives as ::ffff:a.b.c.d: report it as the AF_INET
 * address its IA has (dat_cr_query, dat_ep_query), which is also what a
 * consumer passes back to dat_ep_connect.
 */
static void unmap_v4(struct sockaddr_storage *ss)
{
	const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)ss;
	struct sockaddr_in in;

	if (ss->ss_family != AF_INET6 || !IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr))
		return;
	memset(&in, 0, sizeof(in));
	in.sin_family = AF_INET;
	in.sin_port = in6->sin6_port;
	memcpy(&in.sin_addr, &in6->sin6_addr.s6_addr[12], sizeof(in.sin_addr));
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, &in, sizeof(in));
}

/*
 * Engine: the HELLO on @sock asks for @sp. Makes the CR (and, for a PSP
 * with DAT_PSP_PROVIDER_FLAG, the EP), moves an RSP's EP to
 * TENTATIVE_CONNECTION_PENDING, and posts DAT_CONNECTION_REQUEST_EVENT.
 */
int sd_sp_request(struct sd_sp *sp, struct sd_sock *sock,
		  const struct sd_cm_msg *hello, const uint8_t *pdata)
{
	struct sd_ia *ia = sp->obj.ia;
	bool rsp = sp->ep != NULL;
	struct sockaddr_storage ss;
	struct sd_ep *ep = NULL;
	struct sd_cr *cr;
	DAT_EVENT e;
	int r = 0;

	SD_ASSERT_ENGINE();
	if (hello->conn_qual != sp->conn_qual)
		return -ENOENT;
	cr = calloc(1, sizeof(*cr));
	if (cr == NULL)
		return -ENOMEM;
	sd_obj_init(&cr->obj, ia, SD_MAGIC_CR, DAT_HANDLE_TYPE_CR);
	cr->sock = sock;
	cr->conn_qual = sp->conn_qual;
	cr->hello = *hello;
	cr->pdata_len = hello->pdata_len;
	memcpy(cr->pdata, pdata, hello->pdata_len);
	cr->cmd.fn = sd_cm_cr_cmd;
	memset(&ss, 0, sizeof(ss));
	if (sock->tp->peer(sock->stream, NULL, &ss) == 0) {
		unmap_v4(&ss);
		cr->remote = ss;
		cr->remote_port = ntohs(ss.ss_family == AF_INET6 ?
					((struct sockaddr_in6 *)&ss)->sin6_port :
					((struct sockaddr_in *)&ss)->sin_port);
	}

	if (rsp) {
		ep = sp->ep;
		pthread_mutex_lock(&ep->lock);
		if (ep->state != DAT_EP_STATE_RESERVED || ep->rsp != sp) {
			pthread_mutex_unlock(&ep->lock);
			free(cr);
			return -EBUSY;
		}
		sd_qp_set_state(ep, DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING,
				"connection request");
		ep->cr = cr;
		ep->remote = cr->remote;	/* dat_ep_query shows the requester */
		ep->remote_port = cr->remote_port;
		pthread_mutex_unlock(&ep->lock);
		sd_qp_get(ep);
	} else if (sp->flags == DAT_PSP_PROVIDER_FLAG) {
		ep = sd_qp_create_passive(ia, hello);
		if (ep == NULL) {
			free(cr);
			return -ENOMEM;
		}
		pthread_mutex_lock(&ep->lock);
		ep->cr = cr;
		ep->remote = cr->remote;
		ep->remote_port = cr->remote_port;
		pthread_mutex_unlock(&ep->lock);
		cr->provider = true;
		sd_qp_get(ep);	/* the CR's; the consumer's is the handle */
	}
	cr->ep = ep;

	pthread_mutex_lock(&ia->lock);
	sd_list_add_tail(&ia->crs, &cr->obj.node);
	pthread_mutex_unlock(&ia->lock);

	sd_sp_cr_event(&e, DAT_CONNECTION_REQUEST_EVENT, sp, (DAT_CR_HANDLE)cr);
	pthread_mutex_lock(&sp->lock);
	/*
	 * DAT 2.0 dat_psp_create: "Consumers can control the size of backlog
	 * through the queue size of the associated Event Dispatcher". A
	 * request that finds it full is refused (the requester sees
	 * NON_PEER_REJECTED, "Backlog of the requested Service Point is
	 * full") before it is posted: an event that does not fit would put
	 * the EVD out of service for good (evd.c, overflow).
	 */
	if (sp->closing || sp->evd == NULL || (rsp && sp->consumed)) {
		r = -ENOENT;
	} else if (!evd_has_room(sp->evd)) {
		r = -ENOSPC;
	} else {
		/*
		 * It reached a live service point with room for it: counted
		 * before the consumer can see the event (it may still be lost
		 * if another stream fills a shared EVD meanwhile).
		 */
		sd_cnt_inc(ia->cnt, DCNT_IA_SP_CR);
		if (sd_evq_post(sp->evd, &e) < 0) {
			r = -ENOSPC;
		} else {
			sp->consumed = true;
			sock->cr = cr;	/* the engine clears both links if it dies */
		}
	}
	pthread_mutex_unlock(&sp->lock);
	if (r == 0)
		return 0;

	/* Nobody will see it: undo. */
	pthread_mutex_lock(&ia->lock);
	sd_list_del(&cr->obj.node);
	pthread_mutex_unlock(&ia->lock);
	if (ep != NULL) {
		pthread_mutex_lock(&ep->lock);
		ep->cr = NULL;
		if (rsp && ep->state == DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING) {
			memset(&ep->remote, 0, sizeof(ep->remote));
			ep->remote_port = 0;
			sd_qp_set_state(ep, DAT_EP_STATE_RESERVED, "request dropped");
		}
		pthread_mutex_unlock(&ep->lock);
		if (!rsp)
			sd_qp_destroy(ep);
		sd_qp_put(ep);
	}
	free(cr);
	return r;
}

struct sd_sp *sd_sp_find(struct sd_ia *ia, DAT_CONN_QUAL conn_qual)
{
	struct sd_list *lists[2] = { &ia->psps, &ia->rsps };
	struct sd_list *pos;
	unsigned i;

	for (i = 0; i < 2; i++) {
		sd_list_for_each(pos, lists[i]) {
			struct sd_sp *sp = sd_container_of(pos, struct sd_sp, obj.node);
			bool live;

			if (sp->conn_qual != conn_qual)
				continue;
			pthread_mutex_lock(&sp->lock);
			live = !sp->closing && sp->evd != NULL &&
			       !(sp->ep != NULL && sp->consumed);
			pthread_mutex_unlock(&sp->lock);
			if (live)
				return sp;
		}
	}
	return NULL;
}

/* Allocates a service point of kind @magic for @evd (checked). */
static struct sd_sp *sp_new(struct sd_ia *ia, uint32_t magic,
			    DAT_HANDLE_TYPE type, struct sd_evd *evd)
{
	struct sd_sp *sp = calloc(1, sizeof(*sp));

	if (sp == NULL)
		return NULL;
	sd_obj_init(&sp->obj, ia, magic, type);
	pthread_mutex_init(&sp->lock, NULL);
	sp->evd = evd;
	return sp;
}

/* Lists @sp in @list and takes its EVD reference. */
static void sp_list(struct sd_sp *sp, struct sd_list *list)
{
	struct sd_ia *ia = sp->obj.ia;

	pthread_mutex_lock(&ia->lock);
	sp->evd->refs++;
	sd_list_add_tail(list, &sp->obj.node);
	pthread_mutex_unlock(&ia->lock);
}

int sd_sp_create(struct sd_ia *ia, uint32_t magic, struct sd_evd *evd,
		 DAT_PSP_FLAGS flags, const DAT_COMM *comm, DAT_CONN_QUAL port,
		 struct sd_sp **out)
{
	struct sd_sp *sp;
	int ret;

	sp = sp_new(ia, magic, magic == SD_MAGIC_CSP ? DAT_HANDLE_TYPE_CSP :
						       DAT_HANDLE_TYPE_PSP, evd);
	if (sp == NULL)
		return -ENOMEM;
	sp->flags = flags;
	if (comm != NULL)
		sp->comm = *comm;
	sp_list(sp, &ia->psps);
	ret = sd_sp_listen(sp, ia, port);
	if (ret < 0) {
		/* Never listened: undo by hand, nothing reached the engine. */
		pthread_mutex_lock(&ia->lock);
		sd_list_del(&sp->obj.node);
		evd->refs--;
		pthread_mutex_unlock(&ia->lock);
		pthread_mutex_destroy(&sp->lock);
		free(sp);
		return ret;
	}
	*out = sp;
	return 0;
}
