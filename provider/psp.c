/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Public service points (dat_psp_*) and common service points
 * (dat_csp_*, at the end): the entry points. What PSPs, RSPs and CSPs
 * share (listening, release, the arrival of a request) is the
 * service-point core below them, sp.c.
 *
 * A connection qualifier is a TCP port. dat_psp_create_any lets the
 * kernel choose the port and reports it. A port in use is reported
 * synchronously (DAT_CONN_QUAL_IN_USE). Freeing shuts the listener down
 * at once: the port is free for a new service point when dat_psp_free
 * returns.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "api.h"
#include "entry.h"
#include "evq.h"
#include "ia.h"
#include "obj.h"
#include "sp.h"
#include "util.h"

/*
 * The CR EVD of a service point of @ia made by @call, @h: DAT_SUCCESS
 * and *@out, or DAT_INVALID_HANDLE (DAT_INVALID_HANDLE_EVD_CR), said.
 */
static DAT_RETURN cr_evd(const char *call, struct sd_ia *ia, DAT_EVD_HANDLE h,
			 struct sd_evd **out)
{
	if (h == DAT_HANDLE_NULL)
		return sd_refuse_handle(call, &ia->obj, "evd_handle", h,
					SD_MAGIC_EVD,
					DAT_INVALID_HANDLE_EVD_CR);
	return sd_api_evd_arg(call, &ia->obj, "evd_handle", h, DAT_EVD_CR_FLAG,
			      ia, DAT_INVALID_HANDLE_EVD_CR, out);
}

static DAT_RETURN psp_create(DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL port,
			     DAT_EVD_HANDLE evd_handle, DAT_PSP_FLAGS flags,
			     DAT_PSP_HANDLE *out, DAT_CONN_QUAL *chosen)
{
	const char *call = chosen ? "psp_create_any" : "psp_create";
	const struct sd_argpos pos = { .qual = DAT_INVALID_ARG2 };
	struct sd_ia *ia = sd_obj_ia(ia_handle);
	struct sd_evd *evd;
	struct sd_sp *sp;
	DAT_RETURN ret;
	int r;

	if (ia == NULL)
		return sd_refuse_handle(call, NULL, "ia_handle", ia_handle,
					SD_MAGIC_IA, DAT_INVALID_HANDLE_IA);
	ret = cr_evd(call, ia, evd_handle, &evd);
	if (ret != DAT_SUCCESS)
		return ret;
	if (flags != DAT_PSP_CONSUMER_FLAG && flags != DAT_PSP_PROVIDER_FLAG)
		return sd_refuse(call, &ia->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4),
				 "psp_flags 0x%x is neither "
				 "DAT_PSP_CONSUMER_FLAG nor "
				 "DAT_PSP_PROVIDER_FLAG", (unsigned)flags);
	if (out == NULL)
		return sd_refuse_null(call, &ia->obj, "psp_handle",
				      DAT_INVALID_ARG5);
	r = sd_sp_create(ia, SD_MAGIC_PSP, evd, flags, NULL, port, &sp);
	if (r < 0)
		return sd_api_fail(call, &ia->obj, r, &pos, "conn_qual %llu",
				   (unsigned long long)port);
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
		return sd_refuse_null("psp_create_any", NULL, "conn_qual",
				      DAT_INVALID_ARG2);
	return psp_create(ia, 0, evd, flags, psp, conn_qual);
}

DAT_RETURN DAT_API sd_psp_query(DAT_PSP_HANDLE h, DAT_PSP_PARAM_MASK mask,
				DAT_PSP_PARAM *p)
{
	struct sd_obj *o = sd_obj_check(h, SD_MAGIC_PSP);
	struct sd_sp *sp = o ? sd_container_of(o, struct sd_sp, obj) : NULL;

	if (sp == NULL)
		return sd_refuse_handle("psp_query", NULL, "psp_handle", h,
					SD_MAGIC_PSP, DAT_INVALID_HANDLE_PSP);
	if (p == NULL)
		return sd_refuse_null("psp_query", &sp->obj, "psp_param",
				      DAT_INVALID_ARG3);
	(void)mask;
	pthread_mutex_lock(&sp->lock);
	p->ia_handle = sd_obj_ia_handle(sp->obj.ia);
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
		return sd_refuse_handle("psp_free", NULL, "psp_handle", h,
					SD_MAGIC_PSP, DAT_INVALID_HANDLE_PSP);
	ia = o->ia;
	/* Counted while the PSP is the IA's (see sd_pz_free). */
	sd_cnt_inc(ia->cnt, DCNT_IA_PSP_FREE);
	sd_sp_release(sd_container_of(o, struct sd_sp, obj));
	return DAT_SUCCESS;
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
	const struct sd_argpos pos = { .qual = DAT_INVALID_ARG2 };
	const DAT_RETURN no_comm = SD_ERR(DAT_COMM_NOT_SUPPORTED, 0);
	struct sd_ia *ia = sd_obj_ia(ia_handle);
	struct sd_evd *evd;
	struct sd_sp *sp;
	DAT_CONN_QUAL port;
	DAT_RETURN ret;
	int r;

	if (ia == NULL)
		return sd_refuse_handle("csp_create", NULL, "ia_handle",
					ia_handle, SD_MAGIC_IA,
					DAT_INVALID_HANDLE_IA);
	if (comm == NULL)
		return sd_refuse_null("csp_create", &ia->obj, "comm",
				      DAT_INVALID_ARG2);
	if (addr == NULL)
		return sd_refuse_null("csp_create", &ia->obj, "address",
				      DAT_INVALID_ARG3);
	ret = cr_evd("csp_create", ia, evd_handle, &evd);
	if (ret != DAT_SUCCESS)
		return ret;
	if (out == NULL)
		return sd_refuse_null("csp_create", &ia->obj, "csp_handle",
				      DAT_INVALID_ARG5);
	if ((comm->domain != AF_INET && comm->domain != AF_INET6) ||
	    comm->type != SOCK_STREAM ||
	    (comm->protocol != 0 && comm->protocol != IPPROTO_TCP))
		return sd_refuse("csp_create", &ia->obj, no_comm,
				 "comm (domain %d, type %d, protocol %d) is "
				 "not TCP over AF_INET or AF_INET6",
				 (int)comm->domain, (int)comm->type,
				 (int)comm->protocol);
	if (addr->sa_family != AF_INET && addr->sa_family != AF_INET6)
		return sd_refuse("csp_create", &ia->obj,
				 SD_ERR(DAT_INVALID_ADDRESS,
					DAT_INVALID_ADDRESS_UNSUPPORTED),
				 "address has address family %u, neither "
				 "AF_INET nor AF_INET6",
				 (unsigned)addr->sa_family);
	if (addr->sa_family != comm->domain)
		return sd_refuse("csp_create", &ia->obj, no_comm,
				 "address has family %u, comm's domain is %d",
				 (unsigned)addr->sa_family, (int)comm->domain);
	if (!csp_addr_ok(ia, addr))
		return sd_refuse("csp_create", &ia->obj,
				 SD_ERR(DAT_INVALID_ADDRESS,
					DAT_INVALID_ADDRESS_UNREACHABLE),
				 "address is neither the IA's address nor the "
				 "wildcard of its family");
	port = ntohs(addr->sa_family == AF_INET6 ?
		     ((const struct sockaddr_in6 *)addr)->sin6_port :
		     ((const struct sockaddr_in *)addr)->sin_port);

	r = sd_sp_create(ia, SD_MAGIC_CSP, evd, DAT_PSP_CONSUMER_FLAG, comm,
			 port, &sp);
	if (r < 0)
		return sd_api_fail("csp_create", &ia->obj, r, &pos,
				   "address's port %llu",
				   (unsigned long long)port);
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
		return sd_refuse_handle("csp_query", NULL, "csp_handle", h,
					SD_MAGIC_CSP, DAT_INVALID_HANDLE_CSP);
	if (p == NULL)
		return sd_refuse_null("csp_query", &sp->obj, "csp_param",
				      DAT_INVALID_ARG3);
	(void)mask;	/* everything is cheap: fill it all */
	pthread_mutex_lock(&sp->lock);
	p->ia_handle = sd_obj_ia_handle(sp->obj.ia);
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
		return sd_refuse_handle("csp_free", NULL, "csp_handle", h,
					SD_MAGIC_CSP, DAT_INVALID_HANDLE_CSP);
	sd_sp_release(sp);
	return DAT_SUCCESS;
}
