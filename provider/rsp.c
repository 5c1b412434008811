/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reserved service points (dat_rsp_*): a listening port for one
 * connection request, for one EP named in advance. The EP goes from
 * UNCONNECTED to RESERVED at creation, to TENTATIVE_CONNECTION_PENDING
 * when the request arrives (the CR names it as local_ep_handle), and is
 * accepted with dat_cr_accept. Later requests at the port are refused
 * (the RSP is consumed); dat_rsp_free stops listening and returns a
 * still-RESERVED EP to UNCONNECTED. Listening is shared with PSPs
 * (psp.c).
 */
#include <stdlib.h>

#include "api.h"
#include "entry.h"
#include "evq.h"
#include "ia.h"
#include "obj.h"
#include "qp.h"
#include "sp.h"
#include "util.h"

static struct sd_sp *rsp_from_handle(DAT_RSP_HANDLE h)
{
	struct sd_obj *o = sd_obj_check(h, SD_MAGIC_RSP);

	return o ? sd_container_of(o, struct sd_sp, obj) : NULL;
}

DAT_RETURN DAT_API sd_rsp_create(DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL port,
				 DAT_EP_HANDLE ep_handle, DAT_EVD_HANDLE evd_handle,
				 DAT_RSP_HANDLE *out)
{
	const struct sd_argpos pos = { .qual = DAT_INVALID_ARG2 };
	struct sd_ia *ia = sd_obj_ia(ia_handle);
	struct sd_ep *ep = sd_ep_from_handle(ep_handle);
	struct sd_evd *evd;
	struct sd_sp *sp;
	DAT_RETURN ret;
	int r;

	if (ia == NULL)
		return sd_refuse_handle("rsp_create", NULL, "ia_handle",
					ia_handle, SD_MAGIC_IA,
					DAT_INVALID_HANDLE_IA);
	if (ep == NULL || ep->obj.ia != ia)
		return sd_refuse_handle("rsp_create", &ia->obj, "ep_handle",
					ep_handle, SD_MAGIC_EP,
					DAT_INVALID_HANDLE_EP);
	if (evd_handle == DAT_HANDLE_NULL)
		return sd_refuse_handle("rsp_create", &ia->obj, "evd_handle",
					evd_handle, SD_MAGIC_EVD,
					DAT_INVALID_HANDLE_EVD_CR);
	ret = sd_api_evd_arg("rsp_create", &ia->obj, "evd_handle", evd_handle,
			     DAT_EVD_CR_FLAG, ia, DAT_INVALID_HANDLE_EVD_CR,
			     &evd);
	if (ret != DAT_SUCCESS)
		return ret;
	if (out == NULL)
		return sd_refuse_null("rsp_create", &ia->obj, "rsp_handle",
				      DAT_INVALID_ARG5);
	sp = calloc(1, sizeof(*sp));
	if (sp == NULL)
		return sd_refuse("rsp_create", &ia->obj,
				 SD_ERR(DAT_INSUFFICIENT_RESOURCES,
					DAT_RESOURCE_MEMORY),
				 "no memory for the RSP");
	sd_obj_init(&sp->obj, ia, SD_MAGIC_RSP, DAT_HANDLE_TYPE_RSP);
	pthread_mutex_init(&sp->lock, NULL);
	sp->evd = evd;
	sp->ep = ep;

	pthread_mutex_lock(&ep->lock);
	if (ep->state != DAT_EP_STATE_UNCONNECTED || ep->rsp != NULL) {
		ret = sd_refuse("rsp_create", &ia->obj,
				sd_api_state_err(ep->state),
				"ep_handle %s is %s, needs UNCONNECTED%s",
				sd_obj_name(&ep->obj).s,
				sd_qp_state_name(ep->state),
				ep->rsp != NULL ? " and no RSP" : "");
		pthread_mutex_unlock(&ep->lock);
		goto fail;
	}
	sd_qp_set_state(ep, DAT_EP_STATE_RESERVED, "rsp_create");
	ep->rsp = sp;
	pthread_mutex_unlock(&ep->lock);
	sd_qp_get(ep);

	pthread_mutex_lock(&ia->lock);
	evd->refs++;
	sd_list_add_tail(&ia->rsps, &sp->obj.node);
	pthread_mutex_unlock(&ia->lock);

	r = sd_sp_listen(sp, ia, port);
	if (r < 0) {
		ret = sd_api_fail("rsp_create", &ia->obj, r, &pos,
				  "conn_qual %llu", (unsigned long long)port);
		pthread_mutex_lock(&ep->lock);
		ep->rsp = NULL;
		sd_qp_set_state(ep, DAT_EP_STATE_UNCONNECTED, "rsp_create failed");
		pthread_mutex_unlock(&ep->lock);
		pthread_mutex_lock(&ia->lock);
		evd->refs--;
		sd_list_del(&sp->obj.node);
		pthread_mutex_unlock(&ia->lock);
		sd_qp_put(ep);
		goto fail;
	}
	/* An RSP listens on TCP only: its listen is counted here. */
	sd_cnt_inc(ia->cnt, DCNT_IA_RSP_CREATE);
	sd_cnt_inc(ia->cnt, DCNT_IA_CM_LISTEN);
	*out = (DAT_RSP_HANDLE)sp;
	return DAT_SUCCESS;
fail:
	pthread_mutex_destroy(&sp->lock);
	free(sp);
	return ret;
}

DAT_RETURN DAT_API sd_rsp_query(DAT_RSP_HANDLE h, DAT_RSP_PARAM_MASK mask,
				DAT_RSP_PARAM *p)
{
	struct sd_sp *sp = rsp_from_handle(h);

	if (sp == NULL)
		return sd_refuse_handle("rsp_query", NULL, "rsp_handle", h,
					SD_MAGIC_RSP, DAT_INVALID_HANDLE_RSP);
	if (p == NULL)
		return sd_refuse_null("rsp_query", &sp->obj, "rsp_param",
				      DAT_INVALID_ARG3);
	(void)mask;
	pthread_mutex_lock(&sp->lock);
	p->ia_handle = sd_obj_ia_handle(sp->obj.ia);
	p->conn_qual = sp->conn_qual;
	p->evd_handle = (DAT_EVD_HANDLE)sp->evd;
	p->ep_handle = (DAT_EP_HANDLE)sp->ep;
	pthread_mutex_unlock(&sp->lock);
	return DAT_SUCCESS;
}

DAT_RETURN DAT_API sd_rsp_free(DAT_RSP_HANDLE h)
{
	struct sd_sp *sp = rsp_from_handle(h);
	struct sd_ia *ia;
	struct sd_ep *ep;

	if (sp == NULL)
		return sd_refuse_handle("rsp_free", NULL, "rsp_handle", h,
					SD_MAGIC_RSP, DAT_INVALID_HANDLE_RSP);
	ia = sp->obj.ia;
	ep = sp->ep;
	pthread_mutex_lock(&ep->lock);
	if (ep->rsp == sp) {
		ep->rsp = NULL;
		if (ep->state == DAT_EP_STATE_RESERVED)
			sd_qp_set_state(ep, DAT_EP_STATE_UNCONNECTED, "rsp_free");
	}
	pthread_mutex_unlock(&ep->lock);
	/* Counted while the RSP is the IA's (see sd_pz_free). */
	sd_cnt_inc(ia->cnt, DCNT_IA_RSP_FREE);
	sd_sp_release(sp);	/* the engine drops sp's EP reference */
	return DAT_SUCCESS;
}

/* ia_close (sd_obj_close): as dat_rsp_free. */
static void rsp_close(struct sd_obj *o)
{
	sd_rsp_free((DAT_RSP_HANDLE)o);
}

SD_OBJ_CLOSE_OP(SD_MAGIC_RSP, rsp_close)
