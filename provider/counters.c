/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The counter operations of the IB extension: dat_ib_query_counters,
 * dat_ib_print_counters, dat_ib_start_counter and dat_ib_stop_counter, on
 * an IA, an EP (reliable or datagram) or an EVD.
 *
 * The counters are the cnt[] arrays of those objects (util.h: sd_cnt_*), bumped
 * with relaxed atomics where the counted thing happens: reading one
 * needs no lock, and a reset swaps each counter read with 0 atomically,
 * so nothing counted meanwhile is lost. A query copies what it is asked
 * for (one counter, or all with DCNT_xx_ALL_COUNTERS) into the caller's
 * array. Printing goes to the provider's log (stderr, "softdapl: "),
 * whatever SOFTDAPL_DEBUG says: the consumer asked for it.
 *
 * Who counts. Each counter is bumped by the file that does what it
 * counts, once the thing has happened (a call that fails counts nothing),
 * and before the event it leads to is posted, so that a consumer woken by
 * the event reads it counted. The IB extension's own code counts UD EPs
 * (creation, posts, receives), their connection manager (udcm.c: the
 * DCNT_IA_CM_AH_* exchange, and DCNT_IA_CM_LISTEN for every PSP, whose
 * UDP side it opens) and the RC extension posts (ext.c). For the
 * reliable-connection objects:
 *
 *   pz.c lmr.c rmr.c srq.c   DCNT_IA_{PZ,LMR,RMR,SRQ}_CREATE and _FREE,
 *                            on the consumer's calls (an RMR of either
 *                            scope; what ia_close tears down may count
 *                            or not: a closed IA's counters are gone)
 *   psp.c                    DCNT_IA_PSP_CREATE (dat_psp_create),
 *                            _CREATE_ANY (dat_psp_create_any), _FREE;
 *                            DCNT_IA_SP_CR for each request that reached
 *                            a live service point with room for its event
 *                            (a handed-off request again, at its new one);
 *                            DCNT_IA_CM_LISTEN for a CSP (which has no
 *                            counters of its own)
 *   rsp.c                    DCNT_IA_RSP_CREATE, _FREE, DCNT_IA_CM_LISTEN
 *   cr.c                     DCNT_IA_SP_CR_ACCEPTED, _REJECTED (the
 *                            consumer's dat_cr_accept and dat_cr_reject;
 *                            a handoff is neither)
 *   ia.c                     DCNT_IA_ASYNC_ERROR for every asynchronous
 *                            error (a watermark event too: it arrives as
 *                            DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR),
 *                            delivered or not; also _ASYNC_QP_ERROR
 *                            for one about an EP (EP_BROKEN, TIMED_OUT),
 *                            _ASYNC_CQ_ERROR for an EVD overflow
 *   cm.c                     the RC handshake, below
 *
 * The handshake (PROTOCOL.md) in IB CM terms. A message sent counts once
 * it is queued on its TCP connection, as IB CM counts a MAD once posted;
 * one received once it is read whole and valid.
 *
 *   HELLO                    REQ        DCNT_IA_CM_REQ_TX, _REQ_RX
 *   ACCEPT                   REP        DCNT_IA_CM_REP_TX, _REP_RX
 *   RTU                      RTU        DCNT_IA_CM_RTU_TX, _RTU_RX
 *   REJECT (dat_cr_reject)   REJ, consumer reason
 *                                       DCNT_IA_CM_USER_REJ_TX, _USER_REJ_RX
 *   REJECT (no such service point, request malformed or refused for want
 *   of room)                 REJ, another reason
 *                                       DCNT_IA_CM_ERR_REJ_TX, _ERR_REJ_RX
 *   ACCEPT read (active)                DCNT_IA_CM_ACTIVE_EST
 *   RTU read (passive)                  DCNT_IA_CM_PASSIVE_EST
 *   DISCONNECT frame         DREQ when it starts the end of a connection,
 *                            DREP when it answers the peer's
 *                                       DCNT_IA_CM_DREQ_TX, _DREQ_RX,
 *                                       DCNT_IA_CM_DREP_TX, _DREP_RX
 *
 * (A DISCONNECT that crosses ours on the wire is taken as the answer to
 * ours: _DREP_RX. The graceful DREQ goes out in tx.c, the DISCONNECTs
 * read in rx.c; an abrupt DREQ, dat_ep_free's, and every DREP are queued
 * by cm.c, sd_sock_detach.) A handshake that fails counts why, on the
 * side that sees it:
 *
 *   DCNT_IA_CM_ERR_REFUSED     connect(2): ECONNREFUSED (nothing listens)
 *   DCNT_IA_CM_ERR_TIMEOUT     the connect timeout ran out; connect(2)'s
 *                              ETIMEDOUT; the passive side waited in vain
 *                              for the HELLO or the RTU
 *   DCNT_IA_CM_ERR_RESET       the connection was reset or closed before
 *                              the handshake ended (either side; passive:
 *                              also a requester leaving while its CR waits)
 *   DCNT_IA_CM_ERR_UNEXPECTED  a malformed handshake message
 *   DCNT_IA_CM_ERR             any other failure (EHOSTUNREACH, ENOMEM...)
 *
 * TCP never loses nor repeats a message: the _DUP, _RETRY, MRA and
 * REQ_FULLQ counters stay 0 for RC, as do DCNT_IA_MEM_*. The rest:
 *
 *   ep.c     DCNT_IA_EP_CREATE, _FREE; DCNT_EP_CONNECT, _DISCONNECT (each
 *            dat_ep_connect and dat_ep_disconnect that acts);
 *            DCNT_EVD_CONN_CALLBACK (each connection event posted)
 *   evd.c    DCNT_IA_EVD_CREATE, _FREE (the consumer's EVDs);
 *            DCNT_EVD_DEQUEUE, _FOUND, _NOT_FOUND; DCNT_EVD_WAIT,
 *            _WAIT_BLOCKED (it had to wait), _WAIT_NOTIFY (and woke with
 *            its events)
 *   post.c   DCNT_EP_POST_SEND, _WRITE, _READ, _RECV and their _DATA
 *            bytes; DCNT_EVD_DTO_CALLBACK (each DTO completion queued)
 *   rx.c     DCNT_EP_RECV, _RECV_DATA (messages received),
 *            DCNT_EP_RECV_RDMA_IMM, _DATA (write-immediates)
 *
 * ext.c counts the RC write-immediates and atomics it posts. The
 * DCNT_EVD_DEQUEUE_POLL counters read 0 (no poll mode apart from
 * dat_evd_dequeue), as does DCNT_EP_RECV_IMM (a send with immediate data
 * is not an operation of softdapl's wire).
 *
 * Groups started and stopped (DAT_IA_COUNTER_TYPE): connection manager
 * counters count all the time; the link and diagnostic counters describe
 * an IB port and an HCA, which a software provider has not got, and stay
 * 0. Start and stop therefore only check their arguments.
 */
#include <stdio.h>

#include "evq.h"
#include "ext.h"
#include "ia.h"
#include "obj.h"
#include "qp.h"
#include "refuse.h"
#include "util.h"

#define N(x) [x] = #x

static const char *const ia_names[DCNT_IA_ALL_COUNTERS] = {
	N(DCNT_IA_PZ_CREATE), N(DCNT_IA_PZ_FREE), N(DCNT_IA_LMR_CREATE),
	N(DCNT_IA_LMR_FREE), N(DCNT_IA_RMR_CREATE), N(DCNT_IA_RMR_FREE),
	N(DCNT_IA_PSP_CREATE), N(DCNT_IA_PSP_CREATE_ANY),
	N(DCNT_IA_PSP_FREE), N(DCNT_IA_RSP_CREATE), N(DCNT_IA_RSP_FREE),
	N(DCNT_IA_EVD_CREATE), N(DCNT_IA_EVD_FREE), N(DCNT_IA_EP_CREATE),
	N(DCNT_IA_EP_FREE), N(DCNT_IA_SRQ_CREATE), N(DCNT_IA_SRQ_FREE),
	N(DCNT_IA_SP_CR), N(DCNT_IA_SP_CR_ACCEPTED),
	N(DCNT_IA_SP_CR_REJECTED), N(DCNT_IA_MEM_ALLOC),
	N(DCNT_IA_MEM_ALLOC_DATA), N(DCNT_IA_MEM_FREE),
	N(DCNT_IA_ASYNC_ERROR), N(DCNT_IA_ASYNC_QP_ERROR),
	N(DCNT_IA_ASYNC_CQ_ERROR), N(DCNT_IA_CM_LISTEN),
	N(DCNT_IA_CM_REQ_TX), N(DCNT_IA_CM_REQ_RX), N(DCNT_IA_CM_REP_TX),
	N(DCNT_IA_CM_REP_RX), N(DCNT_IA_CM_RTU_TX), N(DCNT_IA_CM_RTU_RX),
	N(DCNT_IA_CM_USER_REJ_TX), N(DCNT_IA_CM_USER_REJ_RX),
	N(DCNT_IA_CM_ACTIVE_EST), N(DCNT_IA_CM_PASSIVE_EST),
	N(DCNT_IA_CM_AH_REQ_TX), N(DCNT_IA_CM_AH_REQ_RX),
	N(DCNT_IA_CM_AH_RESOLVED), N(DCNT_IA_CM_DREQ_TX),
	N(DCNT_IA_CM_DREQ_RX), N(DCNT_IA_CM_DREP_TX), N(DCNT_IA_CM_DREP_RX),
	N(DCNT_IA_CM_MRA_TX), N(DCNT_IA_CM_MRA_RX),
	N(DCNT_IA_CM_REQ_FULLQ_POLL), N(DCNT_IA_CM_ERR),
	N(DCNT_IA_CM_ERR_REQ_FULLQ), N(DCNT_IA_CM_ERR_REQ_DUP),
	N(DCNT_IA_CM_ERR_REQ_RETRY), N(DCNT_IA_CM_ERR_REP_DUP),
	N(DCNT_IA_CM_ERR_REP_RETRY), N(DCNT_IA_CM_ERR_RTU_DUP),
	N(DCNT_IA_CM_ERR_RTU_RETRY), N(DCNT_IA_CM_ERR_REFUSED),
	N(DCNT_IA_CM_ERR_RESET), N(DCNT_IA_CM_ERR_TIMEOUT),
	N(DCNT_IA_CM_ERR_REJ_TX), N(DCNT_IA_CM_ERR_REJ_RX),
	N(DCNT_IA_CM_ERR_DREQ_DUP), N(DCNT_IA_CM_ERR_DREQ_RETRY),
	N(DCNT_IA_CM_ERR_DREP_DUP), N(DCNT_IA_CM_ERR_DREP_RETRY),
	N(DCNT_IA_CM_ERR_MRA_DUP), N(DCNT_IA_CM_ERR_MRA_RETRY),
	N(DCNT_IA_CM_ERR_UNEXPECTED), N(DCNT_IA_LNK_ERR_RCV),
	N(DCNT_IA_LNK_ERR_RCV_REM_PHYS), N(DCNT_IA_LNK_ERR_RCV_CONSTRAINT),
	N(DCNT_IA_LNK_ERR_XMT_DISCARDS), N(DCNT_IA_LNK_ERR_XMT_CONTRAINT),
	N(DCNT_IA_LNK_ERR_INTEGRITY), N(DCNT_IA_LNK_ERR_EXC_BUF_OVERRUN),
	N(DCNT_IA_LNK_WARN_RCV_SW_RELAY), N(DCNT_IA_LNK_WARN_XMT_WAIT),
	N(DCNT_IA_DIAG_ERR_RQ_RAE), N(DCNT_IA_DIAG_ERR_RQ_OOS),
	N(DCNT_IA_DIAG_ERR_RQ_RIRE), N(DCNT_IA_DIAG_ERR_RQ_UDSDPRD),
	N(DCNT_IA_DIAG_ERR_SQ_RAE), N(DCNT_IA_DIAG_ERR_SQ_OOS),
	N(DCNT_IA_DIAG_ERR_SQ_RIRE), N(DCNT_IA_DIAG_ERR_SQ_RREE),
	N(DCNT_IA_DIAG_ERR_SQ_TREE),
};

static const char *const ep_names[DCNT_EP_ALL_COUNTERS] = {
	N(DCNT_EP_CONNECT), N(DCNT_EP_DISCONNECT), N(DCNT_EP_POST_SEND),
	N(DCNT_EP_POST_SEND_DATA), N(DCNT_EP_POST_SEND_UD),
	N(DCNT_EP_POST_SEND_UD_DATA), N(DCNT_EP_POST_RECV),
	N(DCNT_EP_POST_RECV_DATA), N(DCNT_EP_POST_WRITE),
	N(DCNT_EP_POST_WRITE_DATA), N(DCNT_EP_POST_WRITE_IMM),
	N(DCNT_EP_POST_WRITE_IMM_DATA), N(DCNT_EP_POST_READ),
	N(DCNT_EP_POST_READ_DATA), N(DCNT_EP_POST_CMP_SWAP),
	N(DCNT_EP_POST_FETCH_ADD), N(DCNT_EP_RECV), N(DCNT_EP_RECV_DATA),
	N(DCNT_EP_RECV_UD), N(DCNT_EP_RECV_UD_DATA), N(DCNT_EP_RECV_IMM),
	N(DCNT_EP_RECV_IMM_DATA), N(DCNT_EP_RECV_RDMA_IMM),
	N(DCNT_EP_RECV_RDMA_IMM_DATA),
};

static const char *const evd_names[DCNT_EVD_ALL_COUNTERS] = {
	N(DCNT_EVD_WAIT), N(DCNT_EVD_WAIT_BLOCKED), N(DCNT_EVD_WAIT_NOTIFY),
	N(DCNT_EVD_DEQUEUE), N(DCNT_EVD_DEQUEUE_FOUND),
	N(DCNT_EVD_DEQUEUE_NOT_FOUND), N(DCNT_EVD_DEQUEUE_POLL),
	N(DCNT_EVD_DEQUEUE_POLL_FOUND), N(DCNT_EVD_CONN_CALLBACK),
	N(DCNT_EVD_DTO_CALLBACK),
};

#undef N

/* The counters of one object. */
struct cnt_set {
	const struct sd_obj	*obj;		/* whose they are */
	uint64_t		*c;
	unsigned		n;		/* DCNT_xx_ALL_COUNTERS */
	const char *const	*names;
	char			what[DAT_NAME_MAX_LENGTH + 16];	/* for printing */
};

/* The counters behind @h (an IA index or pointer, an EP, an EVD). */
static bool cnt_set(DAT_HANDLE h, struct cnt_set *s)
{
	struct sd_ia *ia = sd_obj_ia(h);
	struct sd_ud_ep *ud;
	struct sd_obj *o;
	struct sd_ep *ep;

	if (ia != NULL) {
		s->obj = &ia->obj;
		s->c = ia->cnt;
		s->n = DCNT_IA_ALL_COUNTERS;
		s->names = ia_names;
		snprintf(s->what, sizeof(s->what), "IA %s", ia->name);
	} else if ((ep = sd_ep_from_handle(h)) != NULL) {
		s->obj = &ep->obj;
		s->c = ep->cnt;
		s->n = DCNT_EP_ALL_COUNTERS;
		s->names = ep_names;
		snprintf(s->what, sizeof(s->what), "EP %p", h);
	} else if ((ud = sd_ud_ep_from_handle(h)) != NULL) {
		s->obj = &ud->obj;
		s->c = ud->cnt;
		s->n = DCNT_EP_ALL_COUNTERS;
		s->names = ep_names;
		snprintf(s->what, sizeof(s->what), "UD EP %p", h);
	} else if ((o = sd_obj_check(h, SD_MAGIC_EVD)) != NULL) {
		s->obj = o;
		s->c = sd_container_of(o, struct sd_evd, obj)->cnt;
		s->n = DCNT_EVD_ALL_COUNTERS;
		s->names = evd_names;
		snprintf(s->what, sizeof(s->what), "EVD %p", h);
	} else {
		return false;
	}
	return true;
}

/* Counter @i of @s, cleared if @reset. */
static uint64_t cnt_take(const struct cnt_set *s, unsigned i, int reset)
{
	if (reset)
		return __atomic_exchange_n(&s->c[i], 0, __ATOMIC_RELAXED);
	return __atomic_load_n(&s->c[i], __ATOMIC_RELAXED);
}

/* The counters a query or print addresses: [*first, *end). */
static bool cnt_range(const struct cnt_set *s, int cntr, unsigned *first,
		      unsigned *end)
{
	if (cntr < 0 || (unsigned)cntr > s->n)
		return false;
	*first = (unsigned)cntr == s->n ? 0 : (unsigned)cntr;
	*end = (unsigned)cntr == s->n ? s->n : (unsigned)cntr + 1;
	return true;
}

/*
 * The refusals of @call, made on @h, that a query and a print share: a
 * handle with no counters, a counter out of range. DAT_SUCCESS when
 * neither applies.
 */
static DAT_RETURN cnt_args(const char *call, DAT_HANDLE h, int cntr,
			   struct cnt_set *s, unsigned *first, unsigned *end)
{
	if (!cnt_set(h, s))
		return sd_refuse(call, NULL,
				 SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1),
				 "handle %p is not an IA, an EP or an EVD (the "
				 "objects with counters)", h);
	if (!cnt_range(s, cntr, first, end))
		return sd_refuse(call, s->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
				 "counter %d is not from 0 to %u (all)", cntr,
				 s->n);
	return DAT_SUCCESS;
}

DAT_RETURN sd_cnt_query(DAT_HANDLE h, int cntr, DAT_UINT64 *out, int reset)
{
	struct cnt_set s;
	unsigned i, first, end;
	DAT_RETURN ret;

	ret = cnt_args("ib_query_counters", h, cntr, &s, &first, &end);
	if (ret != DAT_SUCCESS)
		return ret;
	if (out == NULL)
		return sd_refuse_null("ib_query_counters", s.obj, "p_cntrs_out",
				      DAT_INVALID_ARG3);
	for (i = first; i < end; i++)
		out[i - first] = cnt_take(&s, i, reset);
	return DAT_SUCCESS;
}

DAT_RETURN sd_cnt_print(DAT_HANDLE h, int cntr, int reset)
{
	struct cnt_set s;
	unsigned i, first, end;
	DAT_RETURN ret;

	ret = cnt_args("ib_print_counters", h, cntr, &s, &first, &end);
	if (ret != DAT_SUCCESS)
		return ret;
	for (i = first; i < end; i++)
		sd_log("%s: %s = %llu", s.what, s.names[i],
		       (unsigned long long)cnt_take(&s, i, reset));
	return DAT_SUCCESS;
}

DAT_RETURN sd_cnt_start_stop(DAT_HANDLE h, int type, bool start)
{
	struct sd_ia *ia = sd_obj_ia(h);

	const char *call = start ? "ib_start_counters" : "ib_stop_counters";

	if (ia == NULL)
		return sd_refuse_handle(call, NULL, "ia_handle", h, SD_MAGIC_IA,
					DAT_INVALID_HANDLE_IA);
	if (type != DCNT_IA_CM && type != DCNT_IA_LNK && type != DCNT_IA_DIAG)
		return sd_refuse(call, &ia->obj,
				 SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
				 "counter type %d is not DCNT_IA_CM, _LNK or "
				 "_DIAG", type);
	sd_dbg("IA %s: %s counter group %d: CM counters always count, "
	       "link and diagnostic ones stay 0", ia->name,
	       start ? "start" : "stop", type);
	return DAT_SUCCESS;
}
