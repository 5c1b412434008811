/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every entry point of libdat2 that forwards to a provider (registry/api.c),
 * against the fake provider, whose slot n answers fake_code(n), and against
 * a provider of the test's own, registered in-process with
 * dat_registry_add_provider, whose table is empty but for the IA slots the
 * registry itself needs (so the others give DAT_NOT_IMPLEMENTED).
 *
 * One table lists the entry points: the slot each must reach, the kind of
 * handle its first argument is, the DAT_INVALID_HANDLE subtype it reports
 * for a NULL one (the codes of OFED 2.1.10's libdat2, checked against it
 * for the calls OFED exports) and a thunk that calls it with a given handle
 * and harmless other arguments. The table is checked against api.c itself:
 * each function api.c defines that libdat2 exports must have exactly one
 * row, and the rows must cover every provider slot but the three no
 * exported entry point dispatches to.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dat2/udat.h>
#include <dat2/dat_registry.h>

#include "fake-provider.h"
#include "test.h"

#define HANDLE_ERR(sub)	DAT_ERROR(DAT_INVALID_HANDLE, (sub))
#define NOT_IMPL	DAT_ERROR(DAT_NOT_IMPLEMENTED, 0)

/* An extension operation that is neither an open nor a close query. */
#define PLAIN_EXT_OP	7

/* What the first argument of an entry point is. */
enum arg_kind {
	ARG_IA,		/* the consumer's IA handle, mapped by the registry */
	ARG_OBJ,	/* an object handle, passed through */
	ARG_ANY		/* any handle: an IA index is mapped, objects pass */
};

/*
 * Where the thunks put what the calls return. Only the fake's real
 * ia_query, pz_create and pz_query write here; the other slots ignore
 * their arguments, but every output still points somewhere valid.
 */
static struct {
	DAT_EVD_HANDLE		evd;
	DAT_CNO_HANDLE		cno;
	DAT_EP_HANDLE		ep;
	DAT_LMR_HANDLE		lmr;
	DAT_RMR_HANDLE		rmr;
	DAT_PSP_HANDLE		psp;
	DAT_RSP_HANDLE		rsp;
	DAT_CSP_HANDLE		csp;
	DAT_PZ_HANDLE		pz;
	DAT_SRQ_HANDLE		srq;
	DAT_IA_ATTR		ia_attr;
	DAT_PROVIDER_ATTR	provider_attr;
	DAT_CONTEXT		context;
	DAT_HANDLE_TYPE		handle_type;
	DAT_CR_PARAM		cr_param;
	DAT_EVD_PARAM		evd_param;
	DAT_EVENT		event;
	DAT_COUNT		count1, count2;
	DAT_FD			fd;
	DAT_CNO_PARAM		cno_param;
	DAT_EP_PARAM		ep_param;
	DAT_EP_STATE		ep_state;
	DAT_BOOLEAN		idle1, idle2;
	DAT_LMR_CONTEXT		lmr_context;
	DAT_RMR_CONTEXT		rmr_context;
	DAT_VLEN		vlen;
	DAT_VADDR		vaddr;
	DAT_LMR_PARAM		lmr_param;
	DAT_RMR_PARAM		rmr_param;
	DAT_CONN_QUAL		conn_qual;
	DAT_PSP_PARAM		psp_param;
	DAT_RSP_PARAM		rsp_param;
	DAT_CSP_PARAM		csp_param;
	DAT_PZ_PARAM		pz_param;
	DAT_SRQ_ATTR		srq_attr;
	DAT_SRQ_PARAM		srq_param;
} out;

/* Arguments passed by value that are structures or unions, all zero. */
static const DAT_CONTEXT zero_context;
static const DAT_OS_WAIT_PROXY_AGENT zero_agent;
static const DAT_REGION_DESCRIPTION zero_region;

/*
 * Every dispatching entry point: X(kind, function, slot field, NULL
 * handle subtype, arguments after the handle...).
 */
#define DISPATCH_CALLS(X)						\
	X(ARG_IA, dat_ia_query, ia_query_func, DAT_INVALID_HANDLE_IA,	\
	  &out.evd, DAT_IA_ALL, &out.ia_attr, DAT_PROVIDER_FIELD_ALL,	\
	  &out.provider_attr)						\
	X(ARG_ANY, dat_set_consumer_context, set_consumer_context_func, \
	  DAT_INVALID_HANDLE1, zero_context)				\
	X(ARG_ANY, dat_get_consumer_context, get_consumer_context_func, \
	  DAT_INVALID_HANDLE1, &out.context)				\
	X(ARG_ANY, dat_get_handle_type, get_handle_type_func,		\
	  DAT_INVALID_HANDLE1, &out.handle_type)			\
	X(ARG_OBJ, dat_cr_query, cr_query_func, DAT_INVALID_HANDLE_CR,	\
	  0, &out.cr_param)						\
	X(ARG_OBJ, dat_cr_accept, cr_accept_func, DAT_INVALID_HANDLE_CR, \
	  NULL, 0, NULL)						\
	X(ARG_OBJ, dat_cr_reject, cr_reject_func, DAT_INVALID_HANDLE_CR, \
	  0, NULL)							\
	X(ARG_OBJ, dat_cr_handoff, cr_handoff_func, DAT_INVALID_HANDLE_CR, \
	  0)								\
	X(ARG_IA, dat_evd_create, evd_create_func, DAT_INVALID_HANDLE_IA, \
	  8, NULL, 0, &out.evd)						\
	X(ARG_OBJ, dat_evd_query, evd_query_func,			\
	  DAT_INVALID_HANDLE_EVD_REQUEST, 0, &out.evd_param)		\
	X(ARG_OBJ, dat_evd_modify_cno, evd_modify_cno_func,		\
	  DAT_INVALID_HANDLE_EVD_REQUEST, NULL)				\
	X(ARG_OBJ, dat_evd_enable, evd_enable_func,			\
	  DAT_INVALID_HANDLE_EVD_REQUEST)				\
	X(ARG_OBJ, dat_evd_disable, evd_disable_func,			\
	  DAT_INVALID_HANDLE_EVD_REQUEST)				\
	X(ARG_OBJ, dat_evd_wait, evd_wait_func,				\
	  DAT_INVALID_HANDLE_EVD_REQUEST, 0, 1, &out.event, &out.count1) \
	X(ARG_OBJ, dat_evd_resize, evd_resize_func,			\
	  DAT_INVALID_HANDLE_EVD_REQUEST, 8)				\
	X(ARG_OBJ, dat_evd_post_se, evd_post_se_func,			\
	  DAT_INVALID_HANDLE_EVD_REQUEST, &out.event)			\
	X(ARG_OBJ, dat_evd_dequeue, evd_dequeue_func,			\
	  DAT_INVALID_HANDLE_EVD_REQUEST, &out.event)			\
	X(ARG_OBJ, dat_evd_free, evd_free_func,				\
	  DAT_INVALID_HANDLE_EVD_REQUEST)				\
	X(ARG_OBJ, dat_evd_set_unwaitable, evd_set_unwaitable_func,	\
	  DAT_INVALID_HANDLE_EVD_REQUEST)				\
	X(ARG_OBJ, dat_evd_clear_unwaitable, evd_clear_unwaitable_func, \
	  DAT_INVALID_HANDLE_EVD_REQUEST)				\
	X(ARG_IA, dat_cno_create, cno_create_func, DAT_INVALID_HANDLE_IA, \
	  zero_agent, &out.cno)						\
	X(ARG_IA, dat_cno_fd_create, cno_fd_create_func,		\
	  DAT_INVALID_HANDLE_IA, &out.fd, &out.cno)			\
	X(ARG_OBJ, dat_cno_modify_agent, cno_modify_agent_func,		\
	  DAT_INVALID_HANDLE_CNO, zero_agent)				\
	X(ARG_OBJ, dat_cno_query, cno_query_func, DAT_INVALID_HANDLE_CNO, \
	  0, &out.cno_param)						\
	X(ARG_OBJ, dat_cno_free, cno_free_func, DAT_INVALID_HANDLE_CNO)	\
	X(ARG_OBJ, dat_cno_wait, cno_wait_func, DAT_INVALID_HANDLE_CNO,	\
	  0, &out.evd)							\
	X(ARG_OBJ, dat_cno_trigger, cno_trigger_func,			\
	  DAT_INVALID_HANDLE_CNO, &out.evd)				\
	X(ARG_IA, dat_ep_create, ep_create_func, DAT_INVALID_HANDLE_IA,	\
	  NULL, NULL, NULL, NULL, NULL, &out.ep)			\
	X(ARG_IA, dat_ep_create_with_srq, ep_create_with_srq_func,	\
	  DAT_INVALID_HANDLE_IA, NULL, NULL, NULL, NULL, NULL, NULL,	\
	  &out.ep)							\
	X(ARG_OBJ, dat_ep_query, ep_query_func, DAT_INVALID_HANDLE_EP,	\
	  0, &out.ep_param)						\
	X(ARG_OBJ, dat_ep_modify, ep_modify_func, DAT_INVALID_HANDLE_EP, \
	  0, &out.ep_param)						\
	X(ARG_OBJ, dat_ep_connect, ep_connect_func, DAT_INVALID_HANDLE_EP, \
	  NULL, 0, 0, 0, NULL, 0, 0)					\
	X(ARG_OBJ, dat_ep_common_connect, ep_common_connect_func,	\
	  DAT_INVALID_HANDLE_EP, NULL, 0, 0, NULL)			\
	X(ARG_OBJ, dat_ep_dup_connect, ep_dup_connect_func,		\
	  DAT_INVALID_HANDLE_EP, NULL, 0, 0, NULL, 0)			\
	X(ARG_OBJ, dat_ep_disconnect, ep_disconnect_func,		\
	  DAT_INVALID_HANDLE_EP, DAT_CLOSE_ABRUPT_FLAG)			\
	X(ARG_OBJ, dat_ep_post_send, ep_post_send_func,			\
	  DAT_INVALID_HANDLE_EP, 0, NULL, zero_context, 0)		\
	X(ARG_OBJ, dat_ep_post_send_with_invalidate,			\
	  ep_post_send_with_invalidate_func, DAT_INVALID_HANDLE_EP,	\
	  0, NULL, zero_context, 0, DAT_FALSE, 0)			\
	X(ARG_OBJ, dat_ep_post_recv, ep_post_recv_func,			\
	  DAT_INVALID_HANDLE_EP, 0, NULL, zero_context, 0)		\
	X(ARG_OBJ, dat_ep_post_rdma_read, ep_post_rdma_read_func,	\
	  DAT_INVALID_HANDLE_EP, 0, NULL, zero_context, NULL, 0)	\
	X(ARG_OBJ, dat_ep_post_rdma_read_to_rmr,			\
	  ep_post_rdma_read_to_rmr_func, DAT_INVALID_HANDLE_EP,		\
	  NULL, zero_context, NULL, 0)					\
	X(ARG_OBJ, dat_ep_post_rdma_write, ep_post_rdma_write_func,	\
	  DAT_INVALID_HANDLE_EP, 0, NULL, zero_context, NULL, 0)	\
	X(ARG_OBJ, dat_ep_get_status, ep_get_status_func,		\
	  DAT_INVALID_HANDLE_EP, &out.ep_state, &out.idle1, &out.idle2)	\
	X(ARG_OBJ, dat_ep_free, ep_free_func, DAT_INVALID_HANDLE_EP)	\
	X(ARG_OBJ, dat_ep_reset, ep_reset_func, DAT_INVALID_HANDLE_EP)	\
	X(ARG_OBJ, dat_ep_recv_query, ep_recv_query_func,		\
	  DAT_INVALID_HANDLE_EP, &out.count1, &out.count2)		\
	X(ARG_OBJ, dat_ep_set_watermark, ep_set_watermark_func,		\
	  DAT_INVALID_HANDLE_EP, 0, 0)					\
	X(ARG_IA, dat_lmr_create, lmr_create_func, DAT_INVALID_HANDLE_IA, \
	  DAT_MEM_TYPE_VIRTUAL, zero_region, 0, NULL, 0, DAT_VA_TYPE_VA, \
	  &out.lmr, &out.lmr_context, &out.rmr_context, &out.vlen,	\
	  &out.vaddr)							\
	X(ARG_OBJ, dat_lmr_query, lmr_query_func, DAT_INVALID_HANDLE_LMR, \
	  0, &out.lmr_param)						\
	X(ARG_OBJ, dat_lmr_free, lmr_free_func, DAT_INVALID_HANDLE_LMR)	\
	X(ARG_IA, dat_lmr_sync_rdma_read, lmr_sync_rdma_read_func,	\
	  DAT_INVALID_HANDLE_IA, NULL, 0)				\
	X(ARG_IA, dat_lmr_sync_rdma_write, lmr_sync_rdma_write_func,	\
	  DAT_INVALID_HANDLE_IA, NULL, 0)				\
	X(ARG_OBJ, dat_rmr_create, rmr_create_func, DAT_INVALID_HANDLE_PZ, \
	  &out.rmr)							\
	X(ARG_OBJ, dat_rmr_create_for_ep, rmr_create_for_ep_func,	\
	  DAT_INVALID_HANDLE_PZ, &out.rmr)				\
	X(ARG_OBJ, dat_rmr_query, rmr_query_func, DAT_INVALID_HANDLE_RMR, \
	  0, &out.rmr_param)						\
	X(ARG_OBJ, dat_rmr_bind, rmr_bind_func, DAT_INVALID_HANDLE_RMR,	\
	  NULL, NULL, 0, DAT_VA_TYPE_VA, NULL, zero_context, 0,		\
	  &out.rmr_context)						\
	X(ARG_OBJ, dat_rmr_free, rmr_free_func, DAT_INVALID_HANDLE_RMR)	\
	X(ARG_IA, dat_psp_create, psp_create_func, DAT_INVALID_HANDLE_IA, \
	  0, NULL, 0, &out.psp)						\
	X(ARG_IA, dat_psp_create_any, psp_create_any_func,		\
	  DAT_INVALID_HANDLE_IA, &out.conn_qual, NULL, 0, &out.psp)	\
	X(ARG_OBJ, dat_psp_query, psp_query_func, DAT_INVALID_HANDLE_PSP, \
	  0, &out.psp_param)						\
	X(ARG_OBJ, dat_psp_free, psp_free_func, DAT_INVALID_HANDLE_PSP)	\
	X(ARG_IA, dat_rsp_create, rsp_create_func, DAT_INVALID_HANDLE_IA, \
	  0, NULL, NULL, &out.rsp)					\
	X(ARG_OBJ, dat_rsp_query, rsp_query_func, DAT_INVALID_HANDLE_RSP, \
	  0, &out.rsp_param)						\
	X(ARG_OBJ, dat_rsp_free, rsp_free_func, DAT_INVALID_HANDLE_RSP)	\
	X(ARG_IA, dat_csp_create, csp_create_func, DAT_INVALID_HANDLE_IA, \
	  NULL, NULL, NULL, &out.csp)					\
	X(ARG_OBJ, dat_csp_query, csp_query_func, DAT_INVALID_HANDLE_CSP, \
	  0, &out.csp_param)						\
	X(ARG_OBJ, dat_csp_free, csp_free_func, DAT_INVALID_HANDLE_CSP)	\
	X(ARG_IA, dat_pz_create, pz_create_func, DAT_INVALID_HANDLE_IA,	\
	  &out.pz)							\
	X(ARG_OBJ, dat_pz_query, pz_query_func, DAT_INVALID_HANDLE_PZ,	\
	  DAT_PZ_FIELD_ALL, &out.pz_param)				\
	X(ARG_OBJ, dat_pz_free, pz_free_func, DAT_INVALID_HANDLE_PZ)	\
	X(ARG_IA, dat_srq_create, srq_create_func, DAT_INVALID_HANDLE_IA, \
	  NULL, &out.srq_attr, &out.srq)				\
	X(ARG_OBJ, dat_srq_free, srq_free_func, DAT_INVALID_HANDLE_SRQ)	\
	X(ARG_OBJ, dat_srq_post_recv, srq_post_recv_func,		\
	  DAT_INVALID_HANDLE_SRQ, 0, NULL, zero_context)		\
	X(ARG_OBJ, dat_srq_query, srq_query_func, DAT_INVALID_HANDLE_SRQ, \
	  0, &out.srq_param)						\
	X(ARG_OBJ, dat_srq_resize, srq_resize_func,			\
	  DAT_INVALID_HANDLE_SRQ, 0)					\
	X(ARG_OBJ, dat_srq_set_lw, srq_set_lw_func,			\
	  DAT_INVALID_HANDLE_SRQ, 0)					\
	X(ARG_ANY, dat_extension_op, handle_extendedop_func,		\
	  DAT_INVALID_HANDLE1, PLAIN_EXT_OP, 0)

/* One thunk per entry point: call_<function>(handle). */
#define THUNK(kind, fn, field, sub, ...)				\
	static DAT_RETURN call_##fn(DAT_HANDLE h)			\
	{								\
		return fn(h, ##__VA_ARGS__);				\
	}
DISPATCH_CALLS(THUNK)
#undef THUNK

struct dispatch_call {
	const char	*name;
	int		 slot;		/* fake_slot() of the field it must reach */
	enum arg_kind	 kind;
	DAT_RETURN	 null_ret;	/* its answer to a NULL handle */
	DAT_RETURN	(*call)(DAT_HANDLE h);
};

#define ROW(kind, fn, field, sub, ...)					\
	{ #fn, fake_slot(field), kind, HANDLE_ERR(sub), call_##fn },
static const struct dispatch_call calls[] = {
	DISPATCH_CALLS(ROW)
};
#undef ROW

#define NCALLS ((int)(sizeof(calls) / sizeof(calls[0])))

/*
 * The slots no exported entry point reaches: ia_open and ia_close are the
 * registry's own business (udat.c), and dat_ia_ha_related, which api.c
 * defines, is not exported (libdat2.map lists what udat.h declares, and
 * udat.h does not declare it; OFED does not export it either).
 */
static int slot_has_no_entry_point(int slot)
{
	return slot == fake_slot(ia_open_func) ||
	       slot == fake_slot(ia_close_func) ||
	       slot == fake_slot(ia_ha_related_func);
}

/*
 * What the fake answers in @slot when handed its own objects: its code,
 * except in the few slots it implements for real.
 */
static DAT_RETURN fake_answer(int slot)
{
	if (slot == fake_slot(ia_query_func) ||
	    slot == fake_slot(pz_create_func) ||
	    slot == fake_slot(pz_query_func))
		return DAT_SUCCESS;
	return fake_code(slot);
}

/* Fails the test, naming the entry point and the case, unless got == want. */
static void expect(const struct dispatch_call *c, const char *what,
		   DAT_RETURN got, DAT_RETURN want)
{
	if (got != want)
		TEST_FAIL("%s with %s: 0x%08x, expected 0x%08x", c->name, what,
			  (unsigned)got, (unsigned)want);
}

static DAT_HANDLE small(uintptr_t n)
{
	return (DAT_HANDLE)n;
}

/* The path of fake provider @variant in the build tree. */
static const char *fake_lib(const char *variant)
{
	static char buf[512];

	snprintf(buf, sizeof(buf), "%s/libfake-%s.so", test_builddir(), variant);
	return buf;
}

/* Opens IA @name (from a literal: the API spells names DAT_NAME_PTR). */
static DAT_RETURN open_ia(const char *name, DAT_IA_HANDLE *ia)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	char buf[DAT_NAME_MAX_LENGTH];

	snprintf(buf, sizeof(buf), "%s", name);
	return dat_ia_openv(buf, 8, &async, ia, DAT_VERSION_MAJOR,
			    DAT_VERSION_MINOR, DAT_THREADSAFE);
}

/*
 * The fake provider, opened through dat.conf: its IA (the consumer's
 * index and the provider's pointer) and the object its pz_create hands out,
 * which every object slot of the fake accepts.
 */
struct fake_env {
	DAT_IA_HANDLE	ia;		/* the consumer's small integer */
	DAT_IA_HANDLE	ia_raw;		/* the fake's own IA */
	DAT_HANDLE	obj;
};

static void fake_open(struct fake_env *e)
{
	char conf[1024];

	snprintf(conf, sizeof(conf),
		 "fake u2.0 nonthreadsafe default %s dapl.2.0 \"\" \"\"\n",
		 fake_lib("good"));
	test_dat_conf(conf);
	ASSERT_OK(open_ia("fake", &e->ia));
	ASSERT_LT((uintptr_t)e->ia, 4096);
	ASSERT_OK(dats_get_ia_handle(e->ia, &e->ia_raw));
	ASSERT_GE((uintptr_t)e->ia_raw, 4096);
	ASSERT_OK(dat_pz_create(e->ia, &e->obj));
	ASSERT_GE((uintptr_t)e->obj, 4096);
	ASSERT_PTR_NE(e->obj, e->ia_raw);
}

/*
 * The test's own provider, registered in-process under the name given to
 * own_register(). Its IA and objects point at own_provider; it fills the
 * IA slots the registry needs for open and close, and the three generic
 * slots only when asked, recording the handle they were given.
 */
struct own_obj {
	const DAT_PROVIDER	*provider;	/* first word, as DAT wants */
	DAT_HANDLE_TYPE		 type;
	DAT_CONTEXT		 context;
};

static DAT_PROVIDER own_provider;
static DAT_PROVIDER_INFO own_info;
static struct own_obj own_ia = { &own_provider, DAT_HANDLE_TYPE_IA, { 0 } };
static struct own_obj own_ep = { &own_provider, DAT_HANDLE_TYPE_EP, { 0 } };
static DAT_HANDLE own_seen;		/* the handle the last slot got */

static DAT_RETURN DAT_API
own_ia_open(const DAT_NAME_PTR name, DAT_COUNT qlen, DAT_EVD_HANDLE *async,
	    DAT_IA_HANDLE *ia)
{
	*ia = &own_ia;
	return DAT_SUCCESS;
}

static DAT_RETURN DAT_API
own_ia_close(DAT_IA_HANDLE ia, DAT_CLOSE_FLAGS flags)
{
	return ia == &own_ia ? DAT_SUCCESS :
	       HANDLE_ERR(DAT_INVALID_HANDLE_IA);
}

/* Reports the version it registered, which the registry checks at close. */
static DAT_RETURN DAT_API
own_ia_query(DAT_IA_HANDLE ia, DAT_EVD_HANDLE *async, DAT_IA_ATTR_MASK amask,
	     DAT_IA_ATTR *attr, DAT_PROVIDER_ATTR_MASK pmask,
	     DAT_PROVIDER_ATTR *pattr)
{
	if (ia != &own_ia)
		return HANDLE_ERR(DAT_INVALID_HANDLE_IA);
	if (async != NULL)
		*async = DAT_HANDLE_NULL;
	if (attr != NULL)
		memset(attr, 0, sizeof(*attr));
	if (pattr != NULL) {
		memset(pattr, 0, sizeof(*pattr));
		pattr->dapl_version_major = own_info.dapl_version_major;
		pattr->dapl_version_minor = own_info.dapl_version_minor;
		pattr->is_thread_safe = own_info.is_thread_safe;
	}
	return DAT_SUCCESS;
}

static struct own_obj *own_obj_of(DAT_HANDLE h)
{
	own_seen = h;
	if (h == &own_ia)
		return &own_ia;
	if (h == &own_ep)
		return &own_ep;
	return NULL;
}

static DAT_RETURN DAT_API
own_set_consumer_context(DAT_HANDLE h, DAT_CONTEXT context)
{
	struct own_obj *o = own_obj_of(h);

	if (o == NULL)
		return HANDLE_ERR(0);
	o->context = context;
	return DAT_SUCCESS;
}

static DAT_RETURN DAT_API
own_get_consumer_context(DAT_HANDLE h, DAT_CONTEXT *context)
{
	struct own_obj *o = own_obj_of(h);

	if (o == NULL)
		return HANDLE_ERR(0);
	*context = o->context;
	return DAT_SUCCESS;
}

static DAT_RETURN DAT_API
own_get_handle_type(DAT_HANDLE h, DAT_HANDLE_TYPE *type)
{
	struct own_obj *o = own_obj_of(h);

	if (o == NULL)
		return HANDLE_ERR(0);
	*type = o->type;
	return DAT_SUCCESS;
}

/* Registers the own provider as @name, u2.0 nonthreadsafe, and opens it. */
static DAT_IA_HANDLE own_register(const char *name, int with_context)
{
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;

	memset(&own_info, 0, sizeof(own_info));
	snprintf(own_info.ia_name, sizeof(own_info.ia_name), "%s", name);
	own_info.dapl_version_major = DAT_VERSION_MAJOR;
	own_info.dapl_version_minor = DAT_VERSION_MINOR;
	own_info.is_thread_safe = DAT_THREADSAFE;

	memset(&own_provider, 0, sizeof(own_provider));
	own_provider.device_name = own_info.ia_name;
	own_provider.ia_open_func = own_ia_open;
	own_provider.ia_close_func = own_ia_close;
	own_provider.ia_query_func = own_ia_query;
	if (with_context) {
		own_provider.set_consumer_context_func = own_set_consumer_context;
		own_provider.get_consumer_context_func = own_get_consumer_context;
		own_provider.get_handle_type_func = own_get_handle_type;
	}
	ASSERT_OK(dat_registry_add_provider(&own_provider, &own_info));
	ASSERT_OK(open_ia(name, &ia));
	return ia;
}

static void own_unregister(DAT_IA_HANDLE ia)
{
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	ASSERT_OK(dat_registry_remove_provider(&own_provider, &own_info));
}

/*
 * The number of dispatching entry points, from the source: the functions
 * registry/api.c defines (each DREG_EXPORT, its name at the start of the
 * next line) that libdat2 exports. Each must have exactly one row in
 * calls[]; those it defines but does not export are printed.
 */
static int count_api_entry_points(void)
{
	char *src = test_read_file(TEST_SRCDIR "/registry/api.c");
	const char *p;
	int exported = 0, i;

	ASSERT_NOT_NULL(src);
	for (p = src; (p = strstr(p, "\nDREG_EXPORT")) != NULL; ) {
		char name[64];
		size_t len;
		int rows = 0;

		p = strchr(p + 1, '\n');
		ASSERT_NOT_NULL(p);
		p++;
		len = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_");
		ASSERT(len > 4 && len < sizeof(name) && p[len] == '(');
		memcpy(name, p, len);
		name[len] = '\0';
		p += len;

		for (i = 0; i < NCALLS; i++)
			if (strcmp(calls[i].name, name) == 0)
				rows++;
		if (dlsym(RTLD_DEFAULT, name) == NULL) {
			printf("api.c defines %s, which libdat2 does not export\n",
			       name);
			ASSERT_EQ(rows, 0);
			continue;
		}
		if (rows != 1)
			TEST_FAIL("%s: %d rows in calls[], expected 1", name, rows);
		exported++;
	}
	free(src);
	return exported;
}

/*
 * Every entry point reaches its slot, with the provider's own IA where it
 * takes the consumer's IA handle and with the object unchanged otherwise:
 * the fake answers fake_code(slot) only when handed its own IA or object.
 */
TEST_IMPL(registry_dispatch_every_slot)
{
	unsigned char covered[FAKE_NSLOTS] = { 0 };
	struct fake_env e;
	int i, checked = 0, calls_made = 0, api;
	char name[] = "fake";

	fake_open(&e);

	for (i = 0; i < NCALLS; i++) {
		const struct dispatch_call *c = &calls[i];
		DAT_RETURN want = fake_answer(c->slot);

		ASSERT(c->slot >= 0 && c->slot < FAKE_NSLOTS);
		if (covered[c->slot]++)
			TEST_FAIL("%s: slot %d has two entry points", c->name,
				  c->slot);

		memset(&out, 0, sizeof(out));
		switch (c->kind) {
		case ARG_IA:
			expect(c, "the IA index", c->call(e.ia), want);
			/* api.c also serves consumers holding the raw IA. */
			expect(c, "the provider's IA", c->call(e.ia_raw), want);
			calls_made += 2;
			break;
		case ARG_OBJ:
			expect(c, "an object", c->call(e.obj), want);
			calls_made++;
			break;
		case ARG_ANY:
			expect(c, "an object", c->call(e.obj), want);
			expect(c, "the IA index", c->call(e.ia), want);
			expect(c, "the provider's IA", c->call(e.ia_raw), want);
			calls_made += 3;
			break;
		}

		/* The slots the fake implements show that they ran. */
		if (c->slot == fake_slot(ia_query_func))
			ASSERT_STR_EQ(out.ia_attr.adapter_name, "fake");
		if (c->slot == fake_slot(pz_create_func))
			ASSERT_PTR_EQ(out.pz, e.obj);
		if (c->slot == fake_slot(pz_query_func))
			ASSERT_PTR_EQ(out.pz_param.ia_handle, e.ia);
		checked++;
	}

	/* Every slot has its entry point, but those that have none. */
	for (i = 0; i < FAKE_NSLOTS; i++)
		if ((covered[i] == 0) != slot_has_no_entry_point(i))
			TEST_FAIL("slot %d: %s", i, covered[i] ?
				  "has an entry point, expected none" :
				  "no entry point reaches it");

	/*
	 * Extension open and close queries are served by the registry: the
	 * open query reaches the provider registered under the name, with
	 * the name as handle (the fake answers any handle not its own with a
	 * bare DAT_INVALID_HANDLE, which the registry never returns); the
	 * close query reaches the provider of the object.
	 */
	ASSERT_DAT_EQ(dat_extension_op(DAT_HANDLE_NULL,
				       DAT_OPEN_EXTENSION_BASE | 1, name, 0),
		      HANDLE_ERR(0));
	ASSERT_DAT_EQ(dat_extension_op(e.obj, DAT_CLOSE_EXTENSION_BASE | 1, 0),
		      fake_code(fake_slot(handle_extendedop_func)));
	ASSERT_DAT_EQ(dat_extension_op(e.ia, DAT_CLOSE_EXTENSION_BASE | 1, 0),
		      fake_code(fake_slot(handle_extendedop_func)));
	calls_made += 3;

	api = count_api_entry_points();
	printf("%d dispatching entry points checked (%d calls); api.c "
	       "exports %d\n", checked, calls_made, api);
	ASSERT_EQ(checked, api);
	ASSERT_EQ(checked, FAKE_NSLOTS - 3);

	ASSERT_OK(dat_ia_close(e.ia, DAT_CLOSE_ABRUPT_FLAG));
	return 0;
}

/*
 * Handles that are not what an entry point expects are refused before any
 * provider sees them: NULL and small integers that are no open IA give the
 * entry point's DAT_INVALID_HANDLE code, an object where an IA is expected
 * gives DAT_INVALID_HANDLE_IA, an IA index where an object is expected is
 * not dereferenced, and a provider without the slot gives
 * DAT_NOT_IMPLEMENTED.
 */
TEST_IMPL(registry_dispatch_bad_handles)
{
	DAT_IA_HANDLE stale = DAT_HANDLE_NULL, own;
	DAT_HANDLE own_object = &own_ep;
	struct fake_env e;
	int i, checked = 0, calls_made = 0;
	char name[] = "nullprov", nosuch[] = "nosuch";

	fake_open(&e);
	own = own_register("nullprov", 0);
	ASSERT_OK(open_ia("fake", &stale));
	ASSERT_OK(dat_ia_close(stale, DAT_CLOSE_ABRUPT_FLAG));
	ASSERT_PTR_NE(stale, e.ia);
	ASSERT_PTR_NE(stale, own);

	/*
	 * The registry calls ia_query itself at open and close, so the own
	 * provider has one; it goes away while dat_ia_query is tested.
	 */
	own_provider.ia_query_func = NULL;

	for (i = 0; i < NCALLS; i++) {
		const struct dispatch_call *c = &calls[i];
		DAT_RETURN bad = c->null_ret;

		expect(c, "NULL", c->call(DAT_HANDLE_NULL), bad);
		expect(c, "(void *)7", c->call(small(7)), bad);
		expect(c, "(void *)4095", c->call(small(4095)), bad);
		expect(c, "a closed IA's index", c->call(stale), bad);
		calls_made += 4;
		switch (c->kind) {
		case ARG_IA:
			expect(c, "an object", c->call(e.obj),
			       HANDLE_ERR(DAT_INVALID_HANDLE_IA));
			expect(c, "an IA without the slot", c->call(own),
			       NOT_IMPL);
			calls_made += 2;
			break;
		case ARG_OBJ:
			expect(c, "an IA index", c->call(e.ia), bad);
			expect(c, "another IA index", c->call(own), bad);
			expect(c, "an object without the slot",
			       c->call(own_object), NOT_IMPL);
			calls_made += 3;
			break;
		case ARG_ANY:
			expect(c, "an object without the slot",
			       c->call(own_object), NOT_IMPL);
			expect(c, "an IA without the slot", c->call(own),
			       NOT_IMPL);
			calls_made += 2;
			break;
		}
		checked++;
	}
	own_provider.ia_query_func = own_ia_query;

	/* The registry-served extension queries. */
	ASSERT_DAT_EQ(dat_extension_op(e.ia, DAT_OPEN_EXTENSION_BASE | 1,
				       (char *)NULL, 0),
		      HANDLE_ERR(DAT_INVALID_ARG3));
	ASSERT_DAT_EQ(dat_extension_op(DAT_HANDLE_NULL,
				       DAT_OPEN_EXTENSION_BASE | 1, nosuch, 0),
		      DAT_ERROR(DAT_PROVIDER_NOT_FOUND,
				DAT_NAME_NOT_REGISTERED));
	ASSERT_DAT_EQ(dat_extension_op(DAT_HANDLE_NULL,
				       DAT_OPEN_EXTENSION_BASE | 1, name, 0),
		      NOT_IMPL);
	ASSERT_DAT_EQ(dat_extension_op(DAT_HANDLE_NULL,
				       DAT_CLOSE_EXTENSION_BASE | 1, 0),
		      HANDLE_ERR(DAT_INVALID_HANDLE_IA));
	ASSERT_DAT_EQ(dat_extension_op(small(7), DAT_CLOSE_EXTENSION_BASE | 1,
				       0),
		      HANDLE_ERR(DAT_INVALID_HANDLE_IA));
	ASSERT_DAT_EQ(dat_extension_op(stale, DAT_CLOSE_EXTENSION_BASE | 1, 0),
		      HANDLE_ERR(DAT_INVALID_HANDLE_IA));
	ASSERT_DAT_EQ(dat_extension_op(own_object, DAT_CLOSE_EXTENSION_BASE | 1,
				       0),
		      NOT_IMPL);
	ASSERT_DAT_EQ(dat_extension_op(own, DAT_CLOSE_EXTENSION_BASE | 1, 0),
		      NOT_IMPL);

	calls_made += 8;
	printf("%d entry points checked with bad handles (%d calls)\n",
	       checked, calls_made);
	ASSERT_EQ(checked, FAKE_NSLOTS - 3);

	own_unregister(own);
	ASSERT_OK(dat_ia_close(e.ia, DAT_CLOSE_ABRUPT_FLAG));
	return 0;
}

/*
 * The generic calls on an IA index reach the provider with the provider's
 * own IA, as OFED's registry maps it, and objects pass unchanged.
 */
TEST_IMPL(registry_consumer_context_on_ia)
{
	DAT_CONTEXT ctx, got;
	DAT_HANDLE_TYPE type;
	DAT_IA_HANDLE own, raw;
	struct fake_env e;

	/* The fake answers its code only when given its own IA or object. */
	fake_open(&e);
	ctx.as_64 = 0x1234;
	ASSERT_DAT_EQ(dat_set_consumer_context(e.ia, ctx),
		      fake_code(fake_slot(set_consumer_context_func)));
	ASSERT_DAT_EQ(dat_get_consumer_context(e.ia, &got),
		      fake_code(fake_slot(get_consumer_context_func)));
	ASSERT_DAT_EQ(dat_get_handle_type(e.ia, &type),
		      fake_code(fake_slot(get_handle_type_func)));

	/* The own provider records what it was given. */
	own = own_register("ctxprov", 1);
	ASSERT_LT((uintptr_t)own, 4096);
	ASSERT_OK(dats_get_ia_handle(own, &raw));
	ASSERT_PTR_EQ(raw, &own_ia);

	own_seen = DAT_HANDLE_NULL;
	ctx.as_64 = UINT64_C(0xfeedface12345678);
	ASSERT_OK(dat_set_consumer_context(own, ctx));
	ASSERT_PTR_EQ(own_seen, &own_ia);
	ASSERT_UINT64_EQ(own_ia.context.as_64, ctx.as_64);

	own_seen = DAT_HANDLE_NULL;
	got.as_64 = 0;
	ASSERT_OK(dat_get_consumer_context(own, &got));
	ASSERT_PTR_EQ(own_seen, &own_ia);
	ASSERT_UINT64_EQ(got.as_64, ctx.as_64);

	own_seen = DAT_HANDLE_NULL;
	type = DAT_HANDLE_TYPE_EP;
	ASSERT_OK(dat_get_handle_type(own, &type));
	ASSERT_PTR_EQ(own_seen, &own_ia);
	ASSERT_EQ(type, DAT_HANDLE_TYPE_IA);

	/* The provider's own IA pointer is passed as it is. */
	own_seen = DAT_HANDLE_NULL;
	got.as_64 = 0;
	ASSERT_OK(dat_get_consumer_context(raw, &got));
	ASSERT_PTR_EQ(own_seen, &own_ia);
	ASSERT_UINT64_EQ(got.as_64, ctx.as_64);

	/* An object passes unchanged, with a context of its own. */
	ctx.as_ptr = &own_ep;
	ASSERT_OK(dat_set_consumer_context(&own_ep, ctx));
	ASSERT_PTR_EQ(own_seen, &own_ep);
	got.as_64 = 0;
	ASSERT_OK(dat_get_consumer_context(&own_ep, &got));
	ASSERT_PTR_EQ(got.as_ptr, &own_ep);
	ASSERT_OK(dat_get_handle_type(&own_ep, &type));
	ASSERT_EQ(type, DAT_HANDLE_TYPE_EP);
	ASSERT_OK(dat_get_consumer_context(own, &got));
	ASSERT_UINT64_EQ(got.as_64, UINT64_C(0xfeedface12345678));

	/* A closed IA's index reaches no provider. */
	own_seen = DAT_HANDLE_NULL;
	own_unregister(own);
	ASSERT_DAT_EQ(dat_get_consumer_context(own, &got),
		      HANDLE_ERR(DAT_INVALID_HANDLE1));
	ASSERT_DAT_EQ(dat_set_consumer_context(own, ctx),
		      HANDLE_ERR(DAT_INVALID_HANDLE1));
	ASSERT_DAT_EQ(dat_get_handle_type(own, &type),
		      HANDLE_ERR(DAT_INVALID_HANDLE1));
	ASSERT_NULL(own_seen);

	ASSERT_OK(dat_ia_close(e.ia, DAT_CLOSE_ABRUPT_FLAG));
	return 0;
}
