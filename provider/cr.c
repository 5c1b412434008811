/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connection requests (dat_cr_*). A CR is made by the engine when a valid
 * HELLO reaches a service point (psp.c: sd_sp_request) and lives until
 * the consumer accepts, rejects or hands it off; the handle is dead as
 * soon as one of these calls returns. Taking a CR is decided under
 * ia->lock, so only one of racing calls wins; the socket work is done by
 * the engine (cm.c: sd_cm_cr_cmd), which frees the CR.
 *
 * The CR keeps the requester's private data (dat_cr_query) and address.
 * If the requester leaves before the decision, the CR stays valid: an
 * accept then ends with DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR.
 */
#include <string.h>

#include "api.h"
#include "engine.h"
#include "entry.h"
#include "ia.h"
#include "obj.h"
#include "qp.h"
#include "sp.h"
#include "util.h"
#include "wq.h"

static struct sd_cr *cr_from_handle(DAT_CR_HANDLE h)
{
	struct sd_obj *o = sd_obj_check(h, SD_MAGIC_CR);

	return o ? sd_container_of(o, struct sd_cr, obj) : NULL;
}

/* The RC form of sd_obj_claim and sd_obj_unclaim (obj.h). */
static bool cr_take(struct sd_cr *cr, uint8_t action)
{
	return sd_obj_claim(&cr->obj, SD_MAGIC_CR, &cr->action, SD_CR_PENDING,
			    action);
}

static void cr_untake(struct sd_cr *cr)
{
	sd_obj_unclaim(&cr->obj, SD_MAGIC_CR, &cr->action, SD_CR_PENDING,
		       &cr->obj.ia->crs);
}

DAT_RETURN DAT_API sd_cr_query(DAT_CR_HANDLE h, DAT_CR_PARAM_MASK mask,
			       DAT_CR_PARAM *p)
{
	struct sd_cr *cr = cr_from_handle(h);

	if (cr == NULL)
		return sd_refuse_handle("cr_query", NULL, "cr_handle", h,
					SD_MAGIC_CR, DAT_INVALID_HANDLE_CR);
	if (p == NULL)
		return sd_refuse_null("cr_query", &cr->obj, "cr_param",
				      DAT_INVALID_ARG3);
	(void)mask;
	p->remote_ia_address_ptr = (DAT_IA_ADDRESS_PTR)&cr->remote;
	p->remote_port_qual = cr->remote_port;
	p->private_data_size = cr->pdata_len;
	p->private_data = cr->pdata_len ? cr->pdata : NULL;
	p->local_ep_handle = (DAT_EP_HANDLE)cr->ep;
	return DAT_SUCCESS;
}

DAT_RETURN DAT_API sd_cr_accept(DAT_CR_HANDLE h, DAT_EP_HANDLE ep_handle,
				DAT_COUNT size, const DAT_PVOID pdata)
{
	struct sd_cr *cr = cr_from_handle(h);
	struct sd_ep *ep;
	DAT_RETURN ret = DAT_SUCCESS;

	if (cr == NULL)
		return sd_refuse_handle("cr_accept", NULL, "cr_handle", h,
					SD_MAGIC_CR, DAT_INVALID_HANDLE_CR);
	if (ep_handle == DAT_HANDLE_NULL) {
		ep = cr->ep;	/* the RSP's or the provider's EP */
		if (ep == NULL)
			return sd_refuse("cr_accept", &cr->obj,
					 SD_ERR(DAT_INVALID_HANDLE,
						DAT_INVALID_HANDLE_EP),
					 "ep_handle is NULL and the request "
					 "names no EP (it came to a PSP of "
					 "DAT_PSP_CONSUMER_FLAG)");
	} else {
		ep = sd_ep_from_handle(ep_handle);
		if (ep == NULL || ep->obj.ia != cr->obj.ia)
			return sd_refuse_handle("cr_accept", &cr->obj,
						"ep_handle", ep_handle,
						SD_MAGIC_EP,
						DAT_INVALID_HANDLE_EP);
		if (cr->ep != NULL && ep != cr->ep)
			return sd_refuse("cr_accept", &cr->obj,
					 SD_ERR(DAT_INVALID_HANDLE,
						DAT_INVALID_HANDLE_EP),
					 "ep_handle is %s, but the request is "
					 "for %s (its RSP's or the provider's)",
					 sd_obj_name(&ep->obj).s,
					 sd_obj_name(&cr->ep->obj).s);
	}
	if (size < 0 || size > SD_MAX_PRIVATE_DATA)
		return sd_refuse("cr_accept", &cr->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3),
				 "private_data_size %d is not from 0 to %d",
				 (int)size, SD_MAX_PRIVATE_DATA);
	if (size > 0 && pdata == NULL)
		return sd_refuse("cr_accept", &cr->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4),
				 "private_data is NULL, private_data_size %d",
				 (int)size);
	if (!cr_take(cr, SD_CR_ACCEPT))
		return sd_refuse("cr_accept", NULL,
				 SD_ERR(DAT_INVALID_HANDLE,
					DAT_INVALID_HANDLE_CR),
				 "cr_handle %p: the request was accepted, "
				 "rejected or handed off meanwhile", h);

	pthread_mutex_lock(&ep->lock);
	if (ep->state != (cr->ep ? DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING :
				   DAT_EP_STATE_UNCONNECTED)) {
		ret = sd_refuse("cr_accept", &cr->obj,
				sd_api_state_err(ep->state),
				"ep_handle %s is %s, needs %s%s",
				sd_obj_name(&ep->obj).s,
				sd_qp_state_name(ep->state),
				cr->ep ? "TENTATIVE_CONNECTION_PENDING" :
				"UNCONNECTED",
				ep->state == DAT_EP_STATE_UNCONFIGURED_TENTATIVE ?
				" (give it a PZ and a connection EVD with "
				"dat_ep_modify)" : "");
	} else if (ep->pz == NULL || ep->conn_evd == NULL) {
		ret = sd_refuse("cr_accept", &cr->obj,
				SD_ERR(DAT_INVALID_STATE,
				       DAT_INVALID_STATE_EP_NOTREADY),
				"ep_handle %s has no %s",
				sd_obj_name(&ep->obj).s, ep->pz == NULL ? "PZ" :
				"connection EVD");
	} else {
		ep->pdata_len = (uint16_t)size;
		if (size > 0)
			memcpy(ep->pdata, pdata, (size_t)size);
		ep->peer_pdata_len = 0;
		ep->cr = NULL;
		sd_qp_set_state(ep, DAT_EP_STATE_PASSIVE_CONNECTION_PENDING,
				"cr_accept");
	}
	pthread_mutex_unlock(&ep->lock);
	if (ret != DAT_SUCCESS) {
		cr_untake(cr);
		return ret;
	}
	sd_qp_get(ep);
	cr->accept_ep = ep;
	/* Before the submit: from there on the engine may free @cr. */
	sd_cnt_inc(cr->obj.ia->cnt, DCNT_IA_SP_CR_ACCEPTED);
	sd_engine_submit(&cr->cmd);
	return DAT_SUCCESS;
}

/*
 * Gives the EP a CR named back to its owner once the CR is taken by a
 * reject or a handoff: an RSP's EP returns to the consumer, UNCONNECTED
 * (its RSP is consumed); a provider-made EP returns to the provider,
 * which destroys it, so its handle dies (DAT 2.0 dat_psp_create: "if
 * rejected, control of the Local Endpoint point is returned back to the
 * Provider and its ep_handle is no longer usable"). No lock held.
 */
static void cr_drop_ep(struct sd_cr *cr, const char *why)
{
	struct sd_ep *ep = cr->ep;

	if (ep == NULL)
		return;
	pthread_mutex_lock(&ep->lock);
	ep->cr = NULL;
	if (!cr->provider &&
	    ep->state == DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING) {
		ep->rsp = NULL;
		sd_qp_set_state(ep, DAT_EP_STATE_UNCONNECTED, why);
	}
	pthread_mutex_unlock(&ep->lock);
	if (cr->provider)
		sd_qp_destroy(ep);
}

DAT_RETURN DAT_API sd_cr_reject(DAT_CR_HANDLE h, DAT_COUNT size,
				const DAT_PVOID pdata)
{
	struct sd_cr *cr = cr_from_handle(h);

	if (cr == NULL)
		return sd_refuse_handle("cr_reject", NULL, "cr_handle", h,
					SD_MAGIC_CR, DAT_INVALID_HANDLE_CR);
	if (size < 0 || size > SD_MAX_PRIVATE_DATA)
		return sd_refuse("cr_reject", &cr->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
				 "private_data_size %d is not from 0 to %d",
				 (int)size, SD_MAX_PRIVATE_DATA);
	if (size > 0 && pdata == NULL)
		return sd_refuse("cr_reject", &cr->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3),
				 "private_data is NULL, private_data_size %d",
				 (int)size);
	if (!cr_take(cr, SD_CR_REJECT))
		return sd_refuse("cr_reject", NULL,
				 SD_ERR(DAT_INVALID_HANDLE,
					DAT_INVALID_HANDLE_CR),
				 "cr_handle %p: the request was accepted, "
				 "rejected or handed off meanwhile", h);
	cr->rej_len = (uint16_t)size;
	if (size > 0)
		memcpy(cr->rej_pdata, pdata, (size_t)size);
	cr_drop_ep(cr, "cr_reject");
	sd_cnt_inc(cr->obj.ia->cnt, DCNT_IA_SP_CR_REJECTED);
	sd_engine_submit(&cr->cmd);
	return DAT_SUCCESS;
}

/*
 * dat_cr_handoff (DAT 2.0, 6.4.2.4): hands the request to the service
 * point of this IA listening at @qual (a PSP or CSP, or an RSP not
 * consumed yet: sd_sp_find), synchronously as far as the consumer sees:
 * the CR handle is dead when this returns (DAT_INVALID_HANDLE after),
 * and the target's EVD gets a DAT_CONNECTION_REQUEST_EVENT with a new
 * CR, as if the request had been sent to @qual (conn_qual @qual, the
 * same private data and requester). The EP the CR named, if any, is
 * given back as by a reject. The engine moves the request (cm.c): if the
 * target is freed meanwhile, or the requester left, the requester sees
 * the request refused (NON_PEER_REJECTED) as if nothing had listened.
 * No service point at @qual (folded as sd_qual_port): DAT_INVALID_PARAMETER
 * (DAT_INVALID_ARG2).
 */
DAT_RETURN DAT_API sd_cr_handoff(DAT_CR_HANDLE h, DAT_CONN_QUAL qual)
{
	struct sd_cr *cr = cr_from_handle(h);
	struct sd_ia *ia;
	DAT_RETURN ret = DAT_SUCCESS;

	if (cr == NULL)
		return sd_refuse_handle("cr_handoff", NULL, "cr_handle", h,
					SD_MAGIC_CR, DAT_INVALID_HANDLE_CR);
	if (sd_qual_port(qual) < 0)
		return sd_refuse("cr_handoff", &cr->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
				 "handoff 0x%llx names no port (its low 16 bits "
				 "are 0)", (unsigned long long)qual);
	qual = (DAT_CONN_QUAL)sd_qual_port(qual);
	ia = cr->obj.ia;
	pthread_mutex_lock(&ia->lock);
	if (cr->action != SD_CR_PENDING || cr->obj.magic != SD_MAGIC_CR) {
		ret = sd_refuse("cr_handoff", NULL,
				SD_ERR(DAT_INVALID_HANDLE,
				       DAT_INVALID_HANDLE_CR),
				"cr_handle %p: the request was accepted, "
				"rejected or handed off meanwhile", h);
	} else if (sd_sp_find(ia, qual) == NULL) {
		ret = sd_refuse("cr_handoff", &cr->obj,
				SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
				"handoff %llu: no service point of this IA "
				"listens there", (unsigned long long)qual);
	} else {
		cr->action = SD_CR_HANDOFF;
		cr->handoff_qual = qual;
		cr->obj.magic = SD_MAGIC_DEAD;
		sd_list_del(&cr->obj.node);
	}
	pthread_mutex_unlock(&ia->lock);
	if (ret != DAT_SUCCESS)
		return ret;
	cr_drop_ep(cr, "cr_handoff");
	sd_engine_submit(&cr->cmd);
	return DAT_SUCCESS;
}

/* ia_close (sd_obj_close): a pending request is rejected. */
static void cr_close(struct sd_obj *o)
{
	sd_cr_reject((DAT_CR_HANDLE)o, 0, NULL);
}

SD_OBJ_CLOSE_OP(SD_MAGIC_CR, cr_close)
