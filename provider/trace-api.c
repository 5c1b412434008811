/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The `api` lines of the calls that go through the provider table
 * (provider/TRACE.md): with tracing on, this file's constructors (after
 * trace.c's, which opens the trace) point the slots of sd_provider
 * (trace_wrap_rc) and, once provider.c has built it, the UD table's own
 * (trace_wrap_ud) at the wrappers below, each of which reads the clock,
 * calls the real entry point and then writes its line with that time:
 * TIME is the call's entry (TRACE.md), so that the line is never later
 * than what the call did, though it is written after those lines (it
 * needs the return code). With tracing off nothing here runs and the
 * tables are left as they are, so the clock is not read. The request
 * posts write their own line (post.c), before their frame goes out.
 *
 * The tables are written once, at load, before any consumer calls; after
 * that any thread may trace.
 */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "entry.h"
#include "obj.h"
#include "trace.h"
#include "util.h"

#define NAME(h)		(sd_handle_name((DAT_HANDLE)(h)).s)
#define OUT_NAME(r, p)	((r) == DAT_SUCCESS && (p) != NULL ? NAME(*(p)) : "-")
#define RET(r)		sd_trace_ret_name(r)

/*
 * Calls @call's real entry point as the expression @e, with sd_trace_call
 * naming it meanwhile, so that the lines written from this thread inside
 * it (its state changes, the frames it sends, the completions it flushes)
 * say by=dat_@call (TRACE.md). A call made inside it that names itself
 * (post.c, evd.c) puts this name back when it returns.
 */
#define IN_CALL(call, e)						\
	({								\
		const char *prev_ = sd_trace_call;			\
		DAT_RETURN r_;						\
									\
		sd_trace_call = (call);					\
		r_ = (e);						\
		sd_trace_call = prev_;					\
		r_;							\
	})

/* Bytes of @n segments; 0 unless the call succeeded (else @iov may lie). */
static uint64_t iov_len(DAT_RETURN r, DAT_COUNT n, const DAT_LMR_TRIPLET *iov)
{
	uint64_t len = 0;
	DAT_COUNT i;

	if (r != DAT_SUCCESS || iov == NULL)
		return 0;
	for (i = 0; i < n; i++)
		len += iov[i].segment_length;
	return len;
}

/* The address of a connect, as "ADDR" (no port: that is the qualifier). */
static struct sd_name addr_name(DAT_IA_ADDRESS_PTR a)
{
	struct sd_name n;
	char buf[96], *colon;

	if (a == NULL) {
		snprintf(n.s, sizeof(n.s), "-");
		return n;
	}
	sd_trace_addr_str((const struct sockaddr *)a, buf, sizeof(buf));
	colon = strrchr(buf, ':');
	if (colon != NULL)
		*colon = '\0';
	if (strlen(buf) >= sizeof(n.s))
		snprintf(n.s, sizeof(n.s), "?");
	else
		snprintf(n.s, sizeof(n.s), "%s", buf);
	return n;
}

/*
 * The lines the RC and the UD wrappers share: each writes its call's line,
 * stamped @at (the call's entry), and returns @r, the call's return.
 */
static DAT_RETURN line_connect(const struct timespec *at, DAT_EP_HANDLE ep,
			       DAT_IA_ADDRESS_PTR a, DAT_CONN_QUAL q,
			       DAT_COUNT plen, DAT_RETURN r)
{
	sd_trace_at(at, "api", NAME(ep), "ep_connect",
		    "ret=%s addr=%s port=%llu pdata=%d", RET(r),
		    addr_name(a).s, (unsigned long long)q, (int)plen);
	return r;
}

static DAT_RETURN line_disconnect(const struct timespec *at, DAT_EP_HANDLE ep,
				  DAT_CLOSE_FLAGS f, DAT_RETURN r)
{
	sd_trace_at(at, "api", NAME(ep), "ep_disconnect", "ret=%s close=%s",
		    RET(r), f == DAT_CLOSE_ABRUPT_FLAG ? "ABRUPT" : "GRACEFUL");
	return r;
}

/*
 * A post written after the call (receives, UD sends): a receive posted to
 * a DISCONNECTED EP is flushed, and a UD send completes, inside the call,
 * so their dto line comes first in the file (with a later time).
 */
static DAT_RETURN line_post(const struct timespec *at, DAT_EP_HANDLE ep,
			    const char *call, DAT_COUNT n,
			    const DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
			    DAT_COMPLETION_FLAGS f, DAT_RETURN r)
{
	sd_trace_at(at, "api", NAME(ep), call,
		    "ret=%s cookie=0x%llx len=%llu segs=%d flags=%s", RET(r),
		    (unsigned long long)cookie.as_64,
		    (unsigned long long)iov_len(r, n, iov), (int)n,
		    sd_trace_flags(f).s);
	return r;
}

/* cr_accept (@accept, of @ep) or cr_reject of the CR named @n. */
static DAT_RETURN line_cr(const struct timespec *at, struct sd_name n,
			  bool accept, DAT_EP_HANDLE ep, DAT_COUNT plen,
			  DAT_RETURN r)
{
	const char *call = accept ? "cr_accept" : "cr_reject";

	if (accept)
		sd_trace_at(at, "api", n.s, call, "ret=%s ep=%s pdata=%d",
			    RET(r), NAME(ep), (int)plen);
	else
		sd_trace_at(at, "api", n.s, call, "ret=%s pdata=%d", RET(r),
			    (int)plen);
	return r;
}

/* The real entry points of the RC table and of the UD table. */
struct real {
	DAT_IA_OPEN_FUNC		ia_open;
	DAT_IA_CLOSE_FUNC		ia_close;
	DAT_PZ_CREATE_FUNC		pz_create;
	DAT_PZ_FREE_FUNC		pz_free;
	DAT_LMR_CREATE_FUNC		lmr_create;
	DAT_LMR_FREE_FUNC		lmr_free;
	DAT_RMR_CREATE_FUNC		rmr_create;
	DAT_RMR_CREATE_FOR_EP_FUNC	rmr_create_for_ep;
	DAT_RMR_BIND_FUNC		rmr_bind;
	DAT_RMR_FREE_FUNC		rmr_free;
	DAT_EVD_CREATE_FUNC		evd_create;
	DAT_EVD_FREE_FUNC		evd_free;
	DAT_EVD_ENABLE_FUNC		evd_enable;
	DAT_EVD_DISABLE_FUNC		evd_disable;
	DAT_EVD_SET_UNWAITABLE_FUNC	evd_set_unwaitable;
	DAT_EVD_CLEAR_UNWAITABLE_FUNC	evd_clear_unwaitable;
	DAT_EVD_RESIZE_FUNC		evd_resize;
	DAT_EVD_MODIFY_CNO_FUNC		evd_modify_cno;
	DAT_CNO_CREATE_FUNC		cno_create;
	DAT_CNO_FREE_FUNC		cno_free;
	DAT_EP_CREATE_FUNC		ep_create;
	DAT_EP_CREATE_WITH_SRQ_FUNC	ep_create_with_srq;
	DAT_EP_FREE_FUNC		ep_free;
	DAT_EP_CONNECT_FUNC		ep_connect;
	DAT_EP_DUP_CONNECT_FUNC		ep_dup_connect;
	DAT_EP_COMMON_CONNECT_FUNC	ep_common_connect;
	DAT_EP_DISCONNECT_FUNC		ep_disconnect;
	DAT_EP_RESET_FUNC		ep_reset;
	DAT_EP_POST_RECV_FUNC		ep_post_recv;
	DAT_EP_POST_SEND_FUNC		ep_post_send;
	DAT_PSP_CREATE_FUNC		psp_create;
	DAT_PSP_CREATE_ANY_FUNC		psp_create_any;
	DAT_PSP_FREE_FUNC		psp_free;
	DAT_RSP_CREATE_FUNC		rsp_create;
	DAT_RSP_FREE_FUNC		rsp_free;
	DAT_CSP_CREATE_FUNC		csp_create;
	DAT_CSP_FREE_FUNC		csp_free;
	DAT_CR_ACCEPT_FUNC		cr_accept;
	DAT_CR_REJECT_FUNC		cr_reject;
	DAT_CR_HANDOFF_FUNC		cr_handoff;
	DAT_SRQ_CREATE_FUNC		srq_create;
	DAT_SRQ_FREE_FUNC		srq_free;
	DAT_SRQ_POST_RECV_FUNC		srq_post_recv;
};

/* Written by the constructors (rc, then ud), at load. */
static struct real rc, ud;

static DAT_RETURN DAT_API tr_ia_open(const DAT_NAME_PTR name, DAT_COUNT qlen,
				     DAT_EVD_HANDLE *evd, DAT_IA_HANDLE *ia)
{
	const struct timespec at = sd_trace_now();
	DAT_RETURN r = IN_CALL("ia_open", rc.ia_open(name, qlen, evd, ia));

	sd_trace_at(&at, "api", OUT_NAME(r, ia), "ia_open", "ret=%s evd=%s",
		    RET(r), OUT_NAME(r, evd));
	return r;
}

static DAT_RETURN DAT_API tr_ia_close(DAT_IA_HANDLE ia, DAT_CLOSE_FLAGS f)
{
	const struct timespec at = sd_trace_now();
	struct sd_name n = sd_handle_name(ia);
	DAT_RETURN r = IN_CALL("ia_close", rc.ia_close(ia, f));

	sd_trace_at(&at, "api", n.s, "ia_close", "ret=%s close=%s", RET(r),
		    f == DAT_CLOSE_ABRUPT_FLAG ? "ABRUPT" : "GRACEFUL");
	return r;
}

static DAT_RETURN DAT_API tr_pz_create(DAT_IA_HANDLE ia, DAT_PZ_HANDLE *pz)
{
	const struct timespec at = sd_trace_now();
	DAT_RETURN r = IN_CALL("pz_create", rc.pz_create(ia, pz));

	sd_trace_at(&at, "api", OUT_NAME(r, pz), "pz_create", "ret=%s ia=%s",
		    RET(r), NAME(ia));
	return r;
}

/*
 * A call of one handle, of table @tab (rc or ud): tr_@pfx@fn. The free
 * calls among them: the name is taken before the object goes.
 */
#define TR_ONE(tab, pfx, fn, T)						\
static DAT_RETURN DAT_API tr_##pfx##fn(T h)				\
{									\
	const struct timespec at = sd_trace_now();			\
	struct sd_name n = sd_handle_name(h);				\
	DAT_RETURN r = tab.fn(h);					\
									\
	sd_trace_at(&at, "api", n.s, #fn, "ret=%s", RET(r));		\
	return r;							\
}
#define TR_FREE(fn, T)	TR_ONE(rc, , fn, T)

TR_FREE(pz_free, DAT_PZ_HANDLE)
TR_FREE(lmr_free, DAT_LMR_HANDLE)
TR_FREE(rmr_free, DAT_RMR_HANDLE)
TR_FREE(evd_free, DAT_EVD_HANDLE)
TR_FREE(cno_free, DAT_CNO_HANDLE)
TR_FREE(ep_free, DAT_EP_HANDLE)
TR_FREE(ep_reset, DAT_EP_HANDLE)
TR_FREE(psp_free, DAT_PSP_HANDLE)
TR_FREE(rsp_free, DAT_RSP_HANDLE)
TR_FREE(csp_free, DAT_CSP_HANDLE)
TR_FREE(srq_free, DAT_SRQ_HANDLE)
TR_FREE(evd_enable, DAT_EVD_HANDLE)
TR_FREE(evd_disable, DAT_EVD_HANDLE)
TR_FREE(evd_set_unwaitable, DAT_EVD_HANDLE)
TR_FREE(evd_clear_unwaitable, DAT_EVD_HANDLE)

static DAT_RETURN DAT_API tr_evd_resize(DAT_EVD_HANDLE evd, DAT_COUNT qlen)
{
	const struct timespec at = sd_trace_now();
	DAT_RETURN r = IN_CALL("evd_resize", rc.evd_resize(evd, qlen));

	sd_trace_at(&at, "api", NAME(evd), "evd_resize", "ret=%s qlen=%d",
		    RET(r), (int)qlen);
	return r;
}

static DAT_RETURN DAT_API tr_evd_modify_cno(DAT_EVD_HANDLE evd,
					    DAT_CNO_HANDLE cno)
{
	const struct timespec at = sd_trace_now();
	DAT_RETURN r = IN_CALL("evd_modify_cno", rc.evd_modify_cno(evd, cno));

	sd_trace_at(&at, "api", NAME(evd), "evd_modify_cno", "ret=%s cno=%s",
		    RET(r), NAME(cno));
	return r;
}

/* A name for each bit of @v set, "|"-joined, into @buf; @none for 0. */
struct bit_name {
	unsigned	bit;
	const char	*name;
};

static const char *bit_names(const struct bit_name *t, size_t n, unsigned v,
			     const char *none, char *buf, size_t len)
{
	size_t i, o = 0;

	buf[0] = '\0';
	for (i = 0; i < n && o < len; i++)
		if (v & t[i].bit) {
			o += (size_t)snprintf(buf + o, len - o, "%s%s",
					      o > 0 ? "|" : "", t[i].name);
			v &= ~t[i].bit;
		}
	if (o == 0)
		snprintf(buf, len, "%s", none);
	else if (v != 0 && o < len)	/* bits no table names */
		snprintf(buf + o, len - o, "|0x%x", v);
	return buf;
}

/* Memory privileges as TRACE.md writes them ("LOCAL_READ|REMOTE_WRITE"). */
static const char *priv_names(DAT_MEM_PRIV_FLAGS priv, char *buf, size_t len)
{
	static const struct bit_name t[] = {
		{ DAT_MEM_PRIV_LOCAL_READ_FLAG, "LOCAL_READ" },
		{ DAT_MEM_PRIV_LOCAL_WRITE_FLAG, "LOCAL_WRITE" },
		{ DAT_MEM_PRIV_REMOTE_READ_FLAG, "REMOTE_READ" },
		{ DAT_MEM_PRIV_REMOTE_WRITE_FLAG, "REMOTE_WRITE" },
		{ DAT_MEM_PRIV_EXTENSION_BASE, "REMOTE_ATOMIC" },
	};

	return bit_names(t, SD_ARRAY_SIZE(t), (unsigned)priv, "NONE", buf, len);
}

/* EVD stream flags as TRACE.md writes them ("DTO|CONNECTION"). */
static const char *evd_flag_names(DAT_EVD_FLAGS f, char *buf, size_t len)
{
	static const struct bit_name t[] = {
		{ DAT_EVD_SOFTWARE_FLAG, "SOFTWARE" },
		{ DAT_EVD_CR_FLAG, "CR" },
		{ DAT_EVD_DTO_FLAG, "DTO" },
		{ DAT_EVD_CONNECTION_FLAG, "CONNECTION" },
		{ DAT_EVD_RMR_BIND_FLAG, "RMR_BIND" },
		{ DAT_EVD_ASYNC_FLAG, "ASYNC" },
	};

	return bit_names(t, SD_ARRAY_SIZE(t), (unsigned)f, "NONE", buf, len);
}

static DAT_RETURN DAT_API tr_lmr_create(DAT_IA_HANDLE ia, DAT_MEM_TYPE type,
					DAT_REGION_DESCRIPTION region,
					DAT_VLEN len, DAT_PZ_HANDLE pz,
					DAT_MEM_PRIV_FLAGS priv,
					DAT_VA_TYPE va, DAT_LMR_HANDLE *lmr,
					DAT_LMR_CONTEXT *lctx,
					DAT_RMR_CONTEXT *rctx,
					DAT_VLEN *rlen, DAT_VADDR *raddr)
{
	const struct timespec at = sd_trace_now();
	DAT_RETURN r = IN_CALL("lmr_create",
			       rc.lmr_create(ia, type, region, len, pz, priv,
					     va, lmr, lctx, rctx, rlen, raddr));
	char pn[96];

	sd_trace_at(&at, "api", OUT_NAME(r, lmr), "lmr_create",
		    "ret=%s pz=%s len=%llu lmr_context=0x%x rmr_context=0x%x priv=%s",
		    RET(r), NAME(pz), (unsigned long long)len,
		    r == DAT_SUCCESS && lctx != NULL ? (unsigned)*lctx : 0,
		    r == DAT_SUCCESS && rctx != NULL ? (unsigned)*rctx : 0,
		    priv_names(priv, pn, sizeof(pn)));
	return r;
}

static DAT_RETURN DAT_API tr_rmr_create(DAT_PZ_HANDLE pz, DAT_RMR_HANDLE *rmr)
{
	const struct timespec at = sd_trace_now();
	DAT_RETURN r = IN_CALL("rmr_create", rc.rmr_create(pz, rmr));

	sd_trace_at(&at, "api", OUT_NAME(r, rmr), "rmr_create", "ret=%s pz=%s",
		    RET(r), NAME(pz));
	return r;
}

static DAT_RETURN DAT_API tr_rmr_create_for_ep(DAT_PZ_HANDLE pz,
					       DAT_RMR_HANDLE *rmr)
{
	const struct timespec at = sd_trace_now();
	DAT_RETURN r = IN_CALL("rmr_create_for_ep",
			       rc.rmr_create_for_ep(pz, rmr));

	sd_trace_at(&at, "api", OUT_NAME(r, rmr), "rmr_create_for_ep",
		    "ret=%s pz=%s", RET(r), NAME(pz));
	return r;
}

static DAT_RETURN DAT_API tr_rmr_bind(DAT_RMR_HANDLE rmr, DAT_LMR_HANDLE lmr,
				      const DAT_LMR_TRIPLET *t,
				      DAT_MEM_PRIV_FLAGS priv, DAT_VA_TYPE va,
				      DAT_EP_HANDLE ep, DAT_RMR_COOKIE cookie,
				      DAT_COMPLETION_FLAGS f,
				      DAT_RMR_CONTEXT *ctx)
{
	const struct timespec at = sd_trace_now();
	DAT_RETURN r = IN_CALL("rmr_bind", rc.rmr_bind(rmr, lmr, t, priv, va,
							ep, cookie, f, ctx));
	char pn[96];

	sd_trace_at(&at, "api", NAME(rmr), "rmr_bind",
		    "ret=%s ep=%s lmr=%s cookie=0x%llx len=%llu flags=%s rmr_context=0x%x priv=%s",
		    RET(r), NAME(ep), NAME(lmr),
		    (unsigned long long)cookie.as_64,
		    r == DAT_SUCCESS && t != NULL ?
		    (unsigned long long)t->segment_length : 0ull,
		    sd_trace_flags(f).s,
		    r == DAT_SUCCESS && ctx != NULL ? (unsigned)*ctx : 0,
		    priv_names(priv, pn, sizeof(pn)));
	return r;
}

static DAT_RETURN DAT_API tr_evd_create(DAT_IA_HANDLE ia, DAT_COUNT qlen,
					DAT_CNO_HANDLE cno, DAT_EVD_FLAGS f,
					DAT_EVD_HANDLE *evd)
{
	const struct timespec at = sd_trace_now();
	DAT_RETURN r = IN_CALL("evd_create",
			       rc.evd_create(ia, qlen, cno, f, evd));
	char fn[96];

	sd_trace_at(&at, "api", OUT_NAME(r, evd), "evd_create",
		    "ret=%s qlen=%d flags=%s cno=%s", RET(r), (int)qlen,
		    evd_flag_names(f, fn, sizeof(fn)), NAME(cno));
	return r;
}

static DAT_RETURN DAT_API tr_cno_create(DAT_IA_HANDLE ia,
					DAT_OS_WAIT_PROXY_AGENT agent,
					DAT_CNO_HANDLE *cno)
{
	const struct timespec at = sd_trace_now();
	DAT_RETURN r = IN_CALL("cno_create", rc.cno_create(ia, agent, cno));

	sd_trace_at(&at, "api", OUT_NAME(r, cno), "cno_create", "ret=%s",
		    RET(r));
	return r;
}

static DAT_RETURN DAT_API tr_ep_create(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz,
				       DAT_EVD_HANDLE recv, DAT_EVD_HANDLE req,
				       DAT_EVD_HANDLE conn,
				       const DAT_EP_ATTR *attr,
				       DAT_EP_HANDLE *ep)
{
	const struct timespec at = sd_trace_now();
	DAT_RETURN r = IN_CALL("ep_create", rc.ep_create(ia, pz, recv, req,
							  conn, attr, ep));

	sd_trace_at(&at, "api", OUT_NAME(r, ep), "ep_create",
		    "ret=%s pz=%s evd=%s recv_evd=%s conn_evd=%s", RET(r),
		    NAME(pz), NAME(req), NAME(recv), NAME(conn));
	return r;
}

static DAT_RETURN DAT_API tr_ep_create_with_srq(DAT_IA_HANDLE ia,
						DAT_PZ_HANDLE pz,
						DAT_EVD_HANDLE recv,
						DAT_EVD_HANDLE req,
						DAT_EVD_HANDLE conn,
						DAT_SRQ_HANDLE srq,
						const DAT_EP_ATTR *attr,
						DAT_EP_HANDLE *ep)
{
	const struct timespec at = sd_trace_now();
	DAT_RETURN r = IN_CALL("ep_create_with_srq",
			       rc.ep_create_with_srq(ia, pz, recv, req, conn,
						     srq, attr, ep));

	sd_trace_at(&at, "api", OUT_NAME(r, ep), "ep_create_with_srq",
		    "ret=%s pz=%s srq=%s evd=%s recv_evd=%s conn_evd=%s",
		    RET(r), NAME(pz), NAME(srq), NAME(req), NAME(recv),
		    NAME(conn));
	return r;
}

static DAT_RETURN DAT_API tr_ep_connect(DAT_EP_HANDLE ep, DAT_IA_ADDRESS_PTR a,
					DAT_CONN_QUAL q, DAT_TIMEOUT t,
					DAT_COUNT plen, const DAT_PVOID pdata,
					DAT_QOS qos, DAT_CONNECT_FLAGS f)
{
	const struct timespec at = sd_trace_now();
	DAT_RETURN r = IN_CALL("ep_connect", rc.ep_connect(ep, a, q, t, plen,
							    pdata, qos, f));

	return line_connect(&at, ep, a, q, plen, r);
}

static DAT_RETURN DAT_API tr_ep_dup_connect(DAT_EP_HANDLE ep, DAT_EP_HANDLE dup,
					    DAT_TIMEOUT t, DAT_COUNT plen,
					    const DAT_PVOID pdata, DAT_QOS qos)
{
	const struct timespec at = sd_trace_now();
	DAT_RETURN r = IN_CALL("ep_dup_connect",
			       rc.ep_dup_connect(ep, dup, t, plen, pdata,
						 qos));

	sd_trace_at(&at, "api", NAME(ep), "ep_dup_connect",
		    "ret=%s ep=%s pdata=%d", RET(r), NAME(dup), (int)plen);
	return r;
}

static DAT_RETURN DAT_API tr_ep_common_connect(DAT_EP_HANDLE ep,
					       DAT_IA_ADDRESS_PTR a,
					       DAT_TIMEOUT t, DAT_COUNT plen,
					       const DAT_PVOID pdata)
{
	const struct timespec at = sd_trace_now();
	DAT_RETURN r = IN_CALL("ep_common_connect",
			       rc.ep_common_connect(ep, a, t, plen, pdata));

	sd_trace_at(&at, "api", NAME(ep), "ep_common_connect",
		    "ret=%s addr=%s pdata=%d", RET(r), addr_name(a).s,
		    (int)plen);
	return r;
}

static DAT_RETURN DAT_API tr_ep_disconnect(DAT_EP_HANDLE ep, DAT_CLOSE_FLAGS f)
{
	const struct timespec at = sd_trace_now();
	DAT_RETURN r = IN_CALL("ep_disconnect", rc.ep_disconnect(ep, f));

	return line_disconnect(&at, ep, f, r);
}

/*
 * A receive's line comes after the call: a receive posted to a
 * DISCONNECTED EP is flushed inside it, so its dto line comes first.
 */
static DAT_RETURN DAT_API tr_ep_post_recv(DAT_EP_HANDLE ep, DAT_COUNT n,
					  DAT_LMR_TRIPLET *iov,
					  DAT_DTO_COOKIE cookie,
					  DAT_COMPLETION_FLAGS f)
{
	const struct timespec at = sd_trace_now();
	DAT_RETURN r = IN_CALL("ep_post_recv",
			       rc.ep_post_recv(ep, n, iov, cookie, f));

	return line_post(&at, ep, "ep_post_recv", n, iov, cookie, f, r);
}

static DAT_RETURN DAT_API tr_psp_create(DAT_IA_HANDLE ia, DAT_CONN_QUAL q,
					DAT_EVD_HANDLE evd, DAT_PSP_FLAGS f,
					DAT_PSP_HANDLE *psp)
{
	const struct timespec at = sd_trace_now();
	DAT_RETURN r = IN_CALL("psp_create", rc.psp_create(ia, q, evd, f, psp));

	sd_trace_at(&at, "api", OUT_NAME(r, psp), "psp_create",
		    "ret=%s port=%llu evd=%s", RET(r), (unsigned long long)q,
		    NAME(evd));
	return r;
}

static DAT_RETURN DAT_API tr_psp_create_any(DAT_IA_HANDLE ia, DAT_CONN_QUAL *q,
					    DAT_EVD_HANDLE evd, DAT_PSP_FLAGS f,
					    DAT_PSP_HANDLE *psp)
{
	const struct timespec at = sd_trace_now();
	DAT_RETURN r = IN_CALL("psp_create_any",
			       rc.psp_create_any(ia, q, evd, f, psp));

	sd_trace_at(&at, "api", OUT_NAME(r, psp), "psp_create_any",
		    "ret=%s port=%llu evd=%s", RET(r),
		    r == DAT_SUCCESS && q != NULL ?
		    (unsigned long long)*q : 0ull,
		    NAME(evd));
	return r;
}

static DAT_RETURN DAT_API tr_rsp_create(DAT_IA_HANDLE ia, DAT_CONN_QUAL q,
					DAT_EP_HANDLE ep, DAT_EVD_HANDLE evd,
					DAT_RSP_HANDLE *rsp)
{
	const struct timespec at = sd_trace_now();
	DAT_RETURN r = IN_CALL("rsp_create",
			       rc.rsp_create(ia, q, ep, evd, rsp));

	sd_trace_at(&at, "api", OUT_NAME(r, rsp), "rsp_create",
		    "ret=%s port=%llu ep=%s evd=%s", RET(r),
		    (unsigned long long)q, NAME(ep), NAME(evd));
	return r;
}

static DAT_RETURN DAT_API tr_csp_create(DAT_IA_HANDLE ia, DAT_COMM *comm,
					DAT_IA_ADDRESS_PTR a,
					DAT_EVD_HANDLE evd, DAT_CSP_HANDLE *csp)
{
	const struct timespec at = sd_trace_now();
	DAT_RETURN r = IN_CALL("csp_create",
			       rc.csp_create(ia, comm, a, evd, csp));

	sd_trace_at(&at, "api", OUT_NAME(r, csp), "csp_create",
		    "ret=%s addr=%s evd=%s", RET(r), addr_name(a).s, NAME(evd));
	return r;
}

static DAT_RETURN DAT_API tr_cr_accept(DAT_CR_HANDLE cr, DAT_EP_HANDLE ep,
				       DAT_COUNT plen, const DAT_PVOID pdata)
{
	const struct timespec at = sd_trace_now();
	struct sd_name n = sd_handle_name(cr);
	DAT_RETURN r = IN_CALL("cr_accept", rc.cr_accept(cr, ep, plen, pdata));

	return line_cr(&at, n, true, ep, plen, r);
}

static DAT_RETURN DAT_API tr_cr_reject(DAT_CR_HANDLE cr, DAT_COUNT plen,
				       const DAT_PVOID pdata)
{
	const struct timespec at = sd_trace_now();
	struct sd_name n = sd_handle_name(cr);
	DAT_RETURN r = IN_CALL("cr_reject", rc.cr_reject(cr, plen, pdata));

	return line_cr(&at, n, false, NULL, plen, r);
}

static DAT_RETURN DAT_API tr_cr_handoff(DAT_CR_HANDLE cr, DAT_CONN_QUAL q)
{
	const struct timespec at = sd_trace_now();
	struct sd_name n = sd_handle_name(cr);
	DAT_RETURN r = IN_CALL("cr_handoff", rc.cr_handoff(cr, q));

	sd_trace_at(&at, "api", n.s, "cr_handoff", "ret=%s port=%llu", RET(r),
		    (unsigned long long)q);
	return r;
}

static DAT_RETURN DAT_API tr_srq_create(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz,
					DAT_SRQ_ATTR *attr, DAT_SRQ_HANDLE *srq)
{
	const struct timespec at = sd_trace_now();
	DAT_RETURN r = IN_CALL("srq_create", rc.srq_create(ia, pz, attr, srq));

	sd_trace_at(&at, "api", OUT_NAME(r, srq), "srq_create", "ret=%s pz=%s",
		    RET(r), NAME(pz));
	return r;
}

static DAT_RETURN DAT_API tr_srq_post_recv(DAT_SRQ_HANDLE srq, DAT_COUNT n,
					   DAT_LMR_TRIPLET *iov,
					   DAT_DTO_COOKIE cookie)
{
	const struct timespec at = sd_trace_now();
	DAT_RETURN r = IN_CALL("srq_post_recv",
			       rc.srq_post_recv(srq, n, iov, cookie));

	sd_trace_at(&at, "api", NAME(srq), "srq_post_recv",
		    "ret=%s cookie=0x%llx len=%llu segs=%d", RET(r),
		    (unsigned long long)cookie.as_64,
		    (unsigned long long)iov_len(r, n, iov), (int)n);
	return r;
}

/* The UD table's own EP and CR calls (ext.h), with ud's real functions. */
TR_ONE(ud, ud_, ep_free, DAT_EP_HANDLE)
TR_ONE(ud, ud_, ep_reset, DAT_EP_HANDLE)

static DAT_RETURN DAT_API tr_ud_ep_connect(DAT_EP_HANDLE ep,
					   DAT_IA_ADDRESS_PTR a,
					   DAT_CONN_QUAL q, DAT_TIMEOUT t,
					   DAT_COUNT plen, const DAT_PVOID pdata,
					   DAT_QOS qos, DAT_CONNECT_FLAGS f)
{
	const struct timespec at = sd_trace_now();
	DAT_RETURN r = IN_CALL("ep_connect", ud.ep_connect(ep, a, q, t, plen,
							    pdata, qos, f));

	return line_connect(&at, ep, a, q, plen, r);
}

static DAT_RETURN DAT_API tr_ud_ep_disconnect(DAT_EP_HANDLE ep,
					      DAT_CLOSE_FLAGS f)
{
	const struct timespec at = sd_trace_now();
	DAT_RETURN r = IN_CALL("ep_disconnect", ud.ep_disconnect(ep, f));

	return line_disconnect(&at, ep, f, r);
}

static DAT_RETURN DAT_API tr_ud_ep_post_recv(DAT_EP_HANDLE ep, DAT_COUNT n,
					     DAT_LMR_TRIPLET *iov,
					     DAT_DTO_COOKIE cookie,
					     DAT_COMPLETION_FLAGS f)
{
	const struct timespec at = sd_trace_now();
	DAT_RETURN r = IN_CALL("ep_post_recv",
			       ud.ep_post_recv(ep, n, iov, cookie, f));

	return line_post(&at, ep, "ep_post_recv", n, iov, cookie, f, r);
}

static DAT_RETURN DAT_API tr_ud_ep_post_send(DAT_EP_HANDLE ep, DAT_COUNT n,
					     DAT_LMR_TRIPLET *iov,
					     DAT_DTO_COOKIE cookie,
					     DAT_COMPLETION_FLAGS f)
{
	const struct timespec at = sd_trace_now();
	DAT_RETURN r = IN_CALL("ep_post_send",
			       ud.ep_post_send(ep, n, iov, cookie, f));

	return line_post(&at, ep, "ep_post_send", n, iov, cookie, f, r);
}

static DAT_RETURN DAT_API tr_ud_cr_accept(DAT_CR_HANDLE cr, DAT_EP_HANDLE ep,
					  DAT_COUNT plen, const DAT_PVOID pdata)
{
	const struct timespec at = sd_trace_now();
	struct sd_name n = sd_handle_name(cr);
	DAT_RETURN r = IN_CALL("cr_accept", ud.cr_accept(cr, ep, plen, pdata));

	return line_cr(&at, n, true, ep, plen, r);
}

static DAT_RETURN DAT_API tr_ud_cr_reject(DAT_CR_HANDLE cr, DAT_COUNT plen,
					  const DAT_PVOID pdata)
{
	const struct timespec at = sd_trace_now();
	struct sd_name n = sd_handle_name(cr);
	DAT_RETURN r = IN_CALL("cr_reject", ud.cr_reject(cr, plen, pdata));

	return line_cr(&at, n, false, NULL, plen, r);
}

/* Points @slot of @p at tr_@fn, keeping the real one in @r. */
#define WRAP(r, p, slot, fn)						\
	do {								\
		(r)->slot = (p)->slot##_func;				\
		(p)->slot##_func = tr_##fn;				\
	} while (0)

/*
 * Weak: the test runner links obj.c and this file without provider.c
 * (Makefile, TEST_LINK_OBJS); there is no table to wrap there.
 */
extern DAT_PROVIDER sd_provider __attribute__((weak));

__attribute__((constructor(SD_TRACE_CTOR + 1))) static void trace_wrap_rc(void)
{
	DAT_PROVIDER *p = &sd_provider;

	if (p == NULL || !sd_trace_enabled())
		return;

	WRAP(&rc, p, ia_open, ia_open);
	WRAP(&rc, p, ia_close, ia_close);
	WRAP(&rc, p, pz_create, pz_create);
	WRAP(&rc, p, pz_free, pz_free);
	WRAP(&rc, p, lmr_create, lmr_create);
	WRAP(&rc, p, lmr_free, lmr_free);
	WRAP(&rc, p, rmr_create, rmr_create);
	WRAP(&rc, p, rmr_create_for_ep, rmr_create_for_ep);
	WRAP(&rc, p, rmr_bind, rmr_bind);
	WRAP(&rc, p, rmr_free, rmr_free);
	WRAP(&rc, p, evd_create, evd_create);
	WRAP(&rc, p, evd_free, evd_free);
	WRAP(&rc, p, evd_enable, evd_enable);
	WRAP(&rc, p, evd_disable, evd_disable);
	WRAP(&rc, p, evd_set_unwaitable, evd_set_unwaitable);
	WRAP(&rc, p, evd_clear_unwaitable, evd_clear_unwaitable);
	WRAP(&rc, p, evd_resize, evd_resize);
	WRAP(&rc, p, evd_modify_cno, evd_modify_cno);
	WRAP(&rc, p, cno_create, cno_create);
	WRAP(&rc, p, cno_free, cno_free);
	WRAP(&rc, p, ep_create, ep_create);
	WRAP(&rc, p, ep_create_with_srq, ep_create_with_srq);
	WRAP(&rc, p, ep_free, ep_free);
	WRAP(&rc, p, ep_connect, ep_connect);
	WRAP(&rc, p, ep_dup_connect, ep_dup_connect);
	WRAP(&rc, p, ep_common_connect, ep_common_connect);
	WRAP(&rc, p, ep_disconnect, ep_disconnect);
	WRAP(&rc, p, ep_reset, ep_reset);
	WRAP(&rc, p, ep_post_recv, ep_post_recv);
	WRAP(&rc, p, psp_create, psp_create);
	WRAP(&rc, p, psp_create_any, psp_create_any);
	WRAP(&rc, p, psp_free, psp_free);
	WRAP(&rc, p, rsp_create, rsp_create);
	WRAP(&rc, p, rsp_free, rsp_free);
	WRAP(&rc, p, csp_create, csp_create);
	WRAP(&rc, p, csp_free, csp_free);
	WRAP(&rc, p, cr_accept, cr_accept);
	WRAP(&rc, p, cr_reject, cr_reject);
	WRAP(&rc, p, cr_handoff, cr_handoff);
	WRAP(&rc, p, srq_create, srq_create);
	WRAP(&rc, p, srq_free, srq_free);
	WRAP(&rc, p, srq_post_recv, srq_post_recv);
}

/* The UD table's own slots, once provider.c has built it (trace.h). */
__attribute__((constructor(SD_TRACE_CTOR + 3))) static void trace_wrap_ud(void)
{
	DAT_PROVIDER *p = sd_obj_ud_table;

	if (p == NULL || !sd_trace_enabled())
		return;
	WRAP(&ud, p, ep_free, ud_ep_free);
	WRAP(&ud, p, ep_reset, ud_ep_reset);
	WRAP(&ud, p, ep_connect, ud_ep_connect);
	WRAP(&ud, p, ep_disconnect, ud_ep_disconnect);
	WRAP(&ud, p, ep_post_recv, ud_ep_post_recv);
	WRAP(&ud, p, ep_post_send, ud_ep_post_send);
	WRAP(&ud, p, cr_accept, ud_cr_accept);
	WRAP(&ud, p, cr_reject, ud_cr_reject);
}
