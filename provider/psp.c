/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Public service points (dat_psp_*), what PSPs, RSPs and CSPs share
 * (struct sd_sp: the listening socket and the arrival of a request), and
 * common service points (dat_csp_*, at the end).
 *
 * A connection qualifier is a TCP port: the service point listens on the
 * IA's address (ia->addr: the address or interface of ia_params) at that
 * port. dat_psp_create_any lets the kernel choose the port and reports
 * it. The socket is opened, bound and listening when the call returns,
 * so a port in use is reported synchronously (DAT_CONN_QUAL_IN_USE); the
 * engine starts polling it right after.
 *
 * Freeing shuts the listener down at once (the port is free for a new
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

#include "ep.h"
#include "entry.h"

DAT_RETURN sd_sp_listen(struct sd_sp *sp, struct sd_ia *ia, DAT_CONN_QUAL port)
{
	struct sockaddr_storage ss = ia->addr.ss;
	socklen_t len = ia->addr.len;
	int one = 1, fd;

	if (sd_qual_port(port) < 0)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
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
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return SD_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_DEVICE);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ia->addr.any && ss.ss_family == AF_INET6) {
		int zero = 0;	/* "::" takes IPv4 peers too, whatever bindv6only */

		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	}
	if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 1024) < 0) {
		int err = errno;

		close(fd);
		if (err == EADDRINUSE || err == EACCES)
			return SD_ERR(DAT_CONN_QUAL_IN_USE, 0);
		return SD_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_DEVICE);
	}
	len = sizeof(ss);
	getsockname(fd, (struct sockaddr *)&ss, &len);
	sp->conn_qual = ntohs(ss.ss_family == AF_INET6 ?
			      ((struct sockaddr_in6 *)&ss)->sin6_port :
			      ((struct sockaddr_in *)&ss)->sin_port);
	sp->fd = fd;
	sp->cmd.fn = sd_cm_listen_cmd;
	sp->close_cmd.fn = sd_cm_listen_close_cmd;
	sd_engine_submit(&sp->cmd);
	return DAT_SUCCESS;
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
	/* The listener stops now; the engine closes the descriptor. */
	if (sp->fd >= 0)
		shutdown(sp->fd, SHUT_RDWR);

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
	sp->fd = -1;
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

/* The CR EVD of a service point of @ia, or NULL. */
static struct sd_evd *cr_evd(struct sd_ia *ia, DAT_EVD_HANDLE h)
{
	struct sd_obj *o = sd_obj_check(h, SD_MAGIC_EVD);
	struct sd_evd *evd = o ? sd_container_of(o, struct sd_evd, obj) : NULL;

	if (evd == NULL || o->ia != ia || !(evd->flags & DAT_EVD_CR_FLAG))
		return NULL;
	return evd;
}

static DAT_RETURN psp_create(DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL port,
			     DAT_EVD_HANDLE evd_handle, DAT_PSP_FLAGS flags,
			     DAT_PSP_HANDLE *out, DAT_CONN_QUAL *chosen)
{
	struct sd_ia *ia = sd_ia_from_handle(ia_handle);
	struct sd_evd *evd;
	struct sd_sp *sp;
	DAT_RETURN ret;

	if (ia == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	evd = cr_evd(ia, evd_handle);
	if (evd == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_CR);
	if (flags != DAT_PSP_CONSUMER_FLAG && flags != DAT_PSP_PROVIDER_FLAG)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	if (out == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	sp = sp_new(ia, SD_MAGIC_PSP, DAT_HANDLE_TYPE_PSP, evd);
	if (sp == NULL)
		return SD_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	sp->flags = flags;
	sp_list(sp, &ia->psps);
	ret = sd_sp_listen(sp, ia, port);
	if (ret != DAT_SUCCESS) {
		/* Never listened: undo by hand, nothing reached the engine. */
		pthread_mutex_lock(&ia->lock);
		sd_list_del(&sp->obj.node);
		evd->refs--;
		pthread_mutex_unlock(&ia->lock);
		pthread_mutex_destroy(&sp->lock);
		free(sp);
		return ret;
	}
	if (chosen)
		*chosen = sp->conn_qual;
	/*
	 * Its listen (DCNT_IA_CM_LISTEN) is counted by the UD side that
	 * udcm.c opens on every PSP, dat_psp_create's entry point.
	 */
	sd_cnt_inc(ia->cnt, chosen ? DCNT_IA_PSP_CREATE_ANY : DCNT_IA_PSP_CREATE);
	*out = (DAT_PSP_HANDLE)sp;
	return DAT_SUCCESS;
}

DAT_RETURN DAT_API sd_psp_create(DAT_IA_HANDLE ia, DAT_CONN_QUAL conn_qual,
				 DAT_EVD_HANDLE evd, DAT_PSP_FLAGS flags,
				 DAT_PSP_HANDLE *psp)
{
	return psp_create(ia, conn_qual, evd, flags, psp, NULL);
}

DAT_RETURN DAT_API sd_psp_create_any(DAT_IA_HANDLE ia, DAT_CONN_QUAL *conn_qual,
				     DAT_EVD_HANDLE evd, DAT_PSP_FLAGS flags,
				     DAT_PSP_HANDLE *psp)
{
	if (conn_qual == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	return psp_create(ia, 0, evd, flags, psp, conn_qual);
}

DAT_RETURN DAT_API sd_psp_query(DAT_PSP_HANDLE h, DAT_PSP_PARAM_MASK mask,
				DAT_PSP_PARAM *p)
{
	struct sd_obj *o = sd_obj_check(h, SD_MAGIC_PSP);
	struct sd_sp *sp = o ? sd_container_of(o, struct sd_sp, obj) : NULL;

	if (sp == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PSP);
	if (p == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	(void)mask;
	pthread_mutex_lock(&sp->lock);
	p->ia_handle = sd_ia_handle(sp->obj.ia);
	p->conn_qual = sp->conn_qual;
	p->evd_handle = (DAT_EVD_HANDLE)sp->evd;
	p->psp_flags = sp->flags;
	pthread_mutex_unlock(&sp->lock);
	return DAT_SUCCESS;
}

DAT_RETURN DAT_API sd_psp_free(DAT_PSP_HANDLE h)
{
	struct sd_obj *o = sd_obj_check(h, SD_MAGIC_PSP);
	struct sd_ia *ia;

	if (o == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PSP);
	ia = o->ia;
	/* Counted while the PSP is the IA's (see sd_pz_free). */
	sd_cnt_inc(ia->cnt, DCNT_IA_PSP_FREE);
	sd_sp_release(sd_container_of(o, struct sd_sp, obj));
	return DAT_SUCCESS;
}

/*
 * Whether @evd can take one more event now. Another stream sharing the
 * EVD may fill it before sd_evd_post does (an overflow then, as for any
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

/* A request's arrival event (ep.h); udcm.c's UD requests use it too. */
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
	socklen_t sl = sizeof(ss);
	struct sd_ep *ep = NULL;
	struct sd_cr *cr;
	DAT_EVENT e;
	int r = 0;

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
	if (getpeername(sock->fd, (struct sockaddr *)&ss, &sl) == 0) {
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
		if (sd_evd_post(sp->evd, &e) < 0) {
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

/* ------------------------------------------------------------------ */
/* Common service points                                               */

/*
 * A Common Service Point (DAT 2.0, 6.4.4) listens "on socket-equivalent
 * for requests for connections arriving on a specified IP port instead
 * of transport-dependent Connection Qualifier". softdapl's transport is
 * TCP and its connection qualifiers are already TCP ports, so a CSP is a
 * PSP named by a socket address:
 *
 *   - @comm is the socket(2) triple: domain AF_INET or AF_INET6, the
 *     family of @addr; type SOCK_STREAM; protocol 0 or IPPROTO_TCP.
 *     Anything else is DAT_COMM_NOT_SUPPORTED.
 *   - @addr is where it listens: its host must be the IA's address
 *     (ia_address_ptr) or the unspecified address of that family (which
 *     means the IA's address here), else DAT_INVALID_ADDRESS
 *     (DAT_INVALID_ADDRESS_UNREACHABLE: not an address of this IA); its
 *     port is the service point's, 0 letting the kernel choose (then
 *     dat_csp_query reports the port chosen). A port in use is
 *     DAT_CONN_QUAL_IN_USE.
 *   - Requests arrive as for a PSP with DAT_PSP_CONSUMER_FLAG: a
 *     DAT_CONNECTION_REQUEST_EVENT on @evd (sp_handle.csp_handle, conn_qual
 *     the port). dat_ep_common_connect reaches a CSP, and so does
 *     dat_ep_connect with the port as conn_qual (and common_connect a
 *     PSP): on TCP the two name spaces are one.
 */
static struct sd_sp *csp_from_handle(DAT_CSP_HANDLE h)
{
	struct sd_obj *o = sd_obj_check(h, SD_MAGIC_CSP);

	return o ? sd_container_of(o, struct sd_sp, obj) : NULL;
}

/* Whether @addr names @ia's address or the wildcard of its family. */
static bool csp_addr_ok(const struct sd_ia *ia, const struct sockaddr *addr)
{
	const struct sockaddr_storage *own = &ia->addr.ss;

	if (addr->sa_family != own->ss_family)
		return false;
	if (addr->sa_family == AF_INET) {
		const struct in_addr *a = &((const struct sockaddr_in *)addr)->sin_addr;

		return a->s_addr == htonl(INADDR_ANY) ||
		       a->s_addr == ((const struct sockaddr_in *)own)->sin_addr.s_addr;
	}
	{
		const struct in6_addr *a = &((const struct sockaddr_in6 *)addr)->sin6_addr;

		return IN6_IS_ADDR_UNSPECIFIED(a) ||
		       IN6_ARE_ADDR_EQUAL(a, &((const struct sockaddr_in6 *)own)->sin6_addr);
	}
}

DAT_RETURN DAT_API sd_csp_create(DAT_IA_HANDLE ia_handle, DAT_COMM *comm,
				 DAT_IA_ADDRESS_PTR addr, DAT_EVD_HANDLE evd_handle,
				 DAT_CSP_HANDLE *out)
{
	struct sd_ia *ia = sd_ia_from_handle(ia_handle);
	struct sd_evd *evd;
	struct sd_sp *sp;
	DAT_CONN_QUAL port;
	DAT_RETURN ret;

	if (ia == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	if (comm == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (addr == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	evd = cr_evd(ia, evd_handle);
	if (evd == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_CR);
	if (out == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	if ((comm->domain != AF_INET && comm->domain != AF_INET6) ||
	    comm->type != SOCK_STREAM ||
	    (comm->protocol != 0 && comm->protocol != IPPROTO_TCP))
		return SD_ERR(DAT_COMM_NOT_SUPPORTED, 0);
	if (addr->sa_family != AF_INET && addr->sa_family != AF_INET6)
		return SD_ERR(DAT_INVALID_ADDRESS, DAT_INVALID_ADDRESS_UNSUPPORTED);
	if (addr->sa_family != comm->domain)
		return SD_ERR(DAT_COMM_NOT_SUPPORTED, 0);
	if (!csp_addr_ok(ia, addr))
		return SD_ERR(DAT_INVALID_ADDRESS, DAT_INVALID_ADDRESS_UNREACHABLE);
	port = ntohs(addr->sa_family == AF_INET6 ?
		     ((const struct sockaddr_in6 *)addr)->sin6_port :
		     ((const struct sockaddr_in *)addr)->sin_port);

	sp = sp_new(ia, SD_MAGIC_CSP, DAT_HANDLE_TYPE_CSP, evd);
	if (sp == NULL)
		return SD_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	sp->flags = DAT_PSP_CONSUMER_FLAG;
	sp->comm = *comm;
	sp_list(sp, &ia->psps);
	ret = sd_sp_listen(sp, ia, port);
	if (ret != DAT_SUCCESS) {
		pthread_mutex_lock(&ia->lock);
		sd_list_del(&sp->obj.node);
		evd->refs--;
		pthread_mutex_unlock(&ia->lock);
		pthread_mutex_destroy(&sp->lock);
		free(sp);
		return ret;
	}
	/* A CSP has no counters of its own; it listens on TCP only. */
	sd_cnt_inc(ia->cnt, DCNT_IA_CM_LISTEN);
	/* What it listens on: the IA's address, the port bound. */
	sp->addr = ia->addr.ss;
	if (sp->addr.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&sp->addr)->sin6_port = htons((uint16_t)sp->conn_qual);
	else
		((struct sockaddr_in *)&sp->addr)->sin_port = htons((uint16_t)sp->conn_qual);
	*out = (DAT_CSP_HANDLE)sp;
	return DAT_SUCCESS;
}

/* The returned pointers name the CSP's own copies: valid until its free. */
DAT_RETURN DAT_API sd_csp_query(DAT_CSP_HANDLE h, DAT_CSP_PARAM_MASK mask,
				DAT_CSP_PARAM *p)
{
	struct sd_sp *sp = csp_from_handle(h);

	if (sp == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CSP);
	if (p == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	(void)mask;	/* everything is cheap: fill it all */
	pthread_mutex_lock(&sp->lock);
	p->ia_handle = sd_ia_handle(sp->obj.ia);
	p->comm = &sp->comm;
	p->address_ptr = (DAT_IA_ADDRESS_PTR)&sp->addr;
	p->evd_handle = (DAT_EVD_HANDLE)sp->evd;
	pthread_mutex_unlock(&sp->lock);
	return DAT_SUCCESS;
}

/* As dat_psp_free: the port is free again when this returns. */
DAT_RETURN DAT_API sd_csp_free(DAT_CSP_HANDLE h)
{
	struct sd_sp *sp = csp_from_handle(h);

	if (sp == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CSP);
	sd_sp_release(sp);
	return DAT_SUCCESS;
}
