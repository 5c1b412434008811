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
	struct sd_ia *ia = sd_obj_ia(ia_handle);
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
	ret = sd_api_err(sd_sp_create(ia, SD_MAGIC_PSP, evd, flags, NULL, port,
				      &sp),
			 &(struct sd_argpos){ .qual = DAT_INVALID_ARG2 });
	if (ret != DAT_SUCCESS)
		return ret;
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
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PSP);
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
	struct sd_ia *ia = sd_obj_ia(ia_handle);
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

	ret = sd_api_err(sd_sp_create(ia, SD_MAGIC_CSP, evd,
				      DAT_PSP_CONSUMER_FLAG, comm, port, &sp),
			 &(struct sd_argpos){ .qual = DAT_INVALID_ARG2 });
	if (ret != DAT_SUCCESS)
		return ret;
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
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CSP);
	sd_sp_release(sp);
	return DAT_SUCCESS;
}
