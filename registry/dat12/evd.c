/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DAT 1.2: event dispatchers and consumer notification objects
 * (dat12.h). EVD flags, states and parameters, event numbers and proxy
 * agents are the same in both APIs; events differ in layout and are
 * converted one by one as they are taken (convert.c).
 */
#include <string.h>

#include "dat12.h"

D12_API DAT_RETURN DAT_API dat_evd_create(DAT_IA_HANDLE ia, DAT_COUNT qlen,
				  DAT_CNO_HANDLE cno, DAT_EVD_FLAGS flags,
				  DAT_EVD_HANDLE *evd)
{
	return d12_ret(d2.evd_create(ia, qlen, cno, (D2_EVD_FLAGS)flags, evd));
}

D12_API DAT_RETURN DAT_API dat_evd_modify_cno(DAT_EVD_HANDLE evd, DAT_CNO_HANDLE cno)
{
	return d12_ret(d2.evd_modify_cno(evd, cno));
}

D12_API DAT_RETURN DAT_API dat_evd_enable(DAT_EVD_HANDLE evd)
{
	return d12_ret(d2.evd_enable(evd));
}

D12_API DAT_RETURN DAT_API dat_evd_disable(DAT_EVD_HANDLE evd)
{
	return d12_ret(d2.evd_disable(evd));
}

D12_API DAT_RETURN DAT_API dat_evd_set_unwaitable(DAT_EVD_HANDLE evd)
{
	return d12_ret(d2.evd_set_unwaitable(evd));
}

D12_API DAT_RETURN DAT_API dat_evd_clear_unwaitable(DAT_EVD_HANDLE evd)
{
	return d12_ret(d2.evd_clear_unwaitable(evd));
}

D12_API DAT_RETURN DAT_API dat_evd_resize(DAT_EVD_HANDLE evd, DAT_COUNT qlen)
{
	return d12_ret(d2.evd_resize(evd, qlen));
}

D12_API DAT_RETURN DAT_API dat_evd_free(DAT_EVD_HANDLE evd)
{
	return d12_ret(d2.evd_free(evd));
}

/* The event is converted only when one was taken (DAT_SUCCESS). */
D12_API DAT_RETURN DAT_API dat_evd_wait(DAT_EVD_HANDLE evd, DAT_TIMEOUT timeout,
				DAT_COUNT threshold, DAT_EVENT *event,
				DAT_COUNT *nmore)
{
	D2_EVENT e;
	D2_RETURN r;

	r = d2.evd_wait(evd, timeout, threshold, event != NULL ? &e : NULL,
			nmore);
	if (r == D2_SUCCESS && event != NULL)
		d12_event(&e, event);
	return d12_ret(r);
}

D12_API DAT_RETURN DAT_API dat_evd_dequeue(DAT_EVD_HANDLE evd, DAT_EVENT *event)
{
	D2_EVENT e;
	D2_RETURN r;

	r = d2.evd_dequeue(evd, event != NULL ? &e : NULL);
	if (r == D2_SUCCESS && event != NULL)
		d12_event(&e, event);
	return d12_ret(r);
}

D12_API DAT_RETURN DAT_API dat_evd_post_se(DAT_EVD_HANDLE evd, const DAT_EVENT *event)
{
	D2_EVENT e;

	if (event == NULL)
		return d12_ret(d2.evd_post_se(evd, NULL));
	d12_event_in(event, &e);
	return d12_ret(d2.evd_post_se(evd, &e));
}

D12_API DAT_RETURN DAT_API dat_evd_query(DAT_EVD_HANDLE evd, DAT_EVD_PARAM_MASK mask,
				 DAT_EVD_PARAM *param)
{
	D2_EVD_PARAM p;
	D2_RETURN r;

	if (param == NULL)
		return d12_ret(d2.evd_query(evd, (D2_EVD_PARAM_MASK)mask, NULL));
	r = d2.evd_query(evd, (D2_EVD_PARAM_MASK)mask, &p);
	if (r != D2_SUCCESS)
		return d12_ret(r);
	memset(param, 0, sizeof(*param));
	param->ia_handle = p.ia_handle;
	param->evd_qlen = p.evd_qlen;
	param->evd_state = (DAT_EVD_STATE)p.evd_state;
	param->cno_handle = p.cno_handle;
	param->evd_flags = (DAT_EVD_FLAGS)p.evd_flags;
	return DAT_SUCCESS;
}

/* ---- CNOs: 1.2 has proxy agents only --------------------------- */

static D2_OS_WAIT_PROXY_AGENT agent_in(DAT_OS_WAIT_PROXY_AGENT a)
{
	D2_OS_WAIT_PROXY_AGENT b;

	b.instance_data = a.instance_data;
	/* Both take (instance data, EVD handle): one calling convention. */
	b.proxy_agent_func = (D2_AGENT_FUNC)a.proxy_agent_func;
	return b;
}

D12_API DAT_RETURN DAT_API dat_cno_create(DAT_IA_HANDLE ia, DAT_OS_WAIT_PROXY_AGENT agent,
				  DAT_CNO_HANDLE *cno)
{
	return d12_ret(d2.cno_create(ia, agent_in(agent), cno));
}

D12_API DAT_RETURN DAT_API dat_cno_modify_agent(DAT_CNO_HANDLE cno,
					DAT_OS_WAIT_PROXY_AGENT agent)
{
	return d12_ret(d2.cno_modify_agent(cno, agent_in(agent)));
}

D12_API DAT_RETURN DAT_API dat_cno_query(DAT_CNO_HANDLE cno, DAT_CNO_PARAM_MASK mask,
				 DAT_CNO_PARAM *param)
{
	D2_CNO_PARAM p;
	D2_RETURN r;

	if (param == NULL)
		return d12_ret(d2.cno_query(cno, mask ? D2_CNO_FIELD_ALL : 0, NULL));
	r = d2.cno_query(cno, mask ? D2_CNO_FIELD_ALL : 0, &p);
	if (r != D2_SUCCESS)
		return d12_ret(r);
	memset(param, 0, sizeof(*param));
	param->ia_handle = p.ia_handle;
	if (p.proxy_type == D2_PROXY_TYPE_AGENT) {
		param->agent.instance_data = p.proxy.agent.instance_data;
		param->agent.proxy_agent_func =
			(DAT_AGENT_FUNC)p.proxy.agent.proxy_agent_func;
	}
	return DAT_SUCCESS;
}

D12_API DAT_RETURN DAT_API dat_cno_free(DAT_CNO_HANDLE cno)
{
	return d12_ret(d2.cno_free(cno));
}

D12_API DAT_RETURN DAT_API dat_cno_wait(DAT_CNO_HANDLE cno, DAT_TIMEOUT timeout,
				DAT_EVD_HANDLE *evd)
{
	return d12_ret(d2.cno_wait(cno, timeout, evd));
}
