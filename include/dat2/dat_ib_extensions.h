/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl: <dat2/dat_ib_extensions.h>
 *
 * InfiniBand transport extensions to DAT 2.0, version 2.0.9 of the OFED
 * DAPL extension interface: atomics, RDMA write with immediate data,
 * unreliable datagrams, counters, fast provider query and the MPI
 * collective operations.
 *
 * Every operation here is a macro over the variadic dat_extension_op()
 * entry point (dat.h): the first argument is the handle that routes the
 * call to a provider, the second a DAT_IB_OP code, and the rest are the
 * operation's arguments in the order the provider reads them back with
 * va_arg().  The casts in each macro fix those argument types, so they
 * are part of the binary interface.  DAT_CONTEXT arguments go through a
 * GNU cast-to-union (so a pointer or a 64-bit value may be passed as
 * well as a DAT_CONTEXT); __extension__ keeps -Wpedantic quiet about it.
 *
 * Include after <dat2/udat.h> (it is included here too if it was not).
 * Extended results arrive as DAT_EVENTs whose event_number is one of
 * DAT_IB_EVENT_NUMBER and whose extension_data holds a
 * DAT_IB_EXTENSION_EVENT_DATA.
 */

#ifndef _DAT_IB_EXTENSIONS_H_
#define _DAT_IB_EXTENSIONS_H_

#include <netinet/in.h>		/* struct sockaddr_in6 (DAT_SOCK_ADDR6) */
#include <stddef.h>		/* NULL */
#include <dat2/udat.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Version of this interface, reported by dat_ia_query() in
 * DAT_IA_ATTR.extension_version (with extension_supported DAT_EXTENSION_IB).
 *   201  atomics and RDMA write with immediate data
 *   202  unreliable datagram (UD) send, remote AH via connect events
 *   203  IA/EP/EVD counters
 *   204  UD connection reject event
 *   205  UD connection error events
 *   206  MPI collectives
 *   207  CM, link and diagnostic IA counters
 *   208  open/close fast provider query
 *   209  UD CM and AH free
 */
#define DAT_IB_EXTENSION_VERSION	209

/*
 * Names of the provider-specific attributes (DAT_PROVIDER_ATTR, value
 * "TRUE" or "FALSE") through which a provider advertises each capability.
 */
#define DAT_IB_ATTR_COUNTERS		"DAT_COUNTERS"
#define DAT_IB_ATTR_FETCH_AND_ADD	"DAT_IB_FETCH_AND_ADD"
#define DAT_IB_ATTR_CMP_AND_SWAP	"DAT_IB_CMP_AND_SWAP"
#define DAT_IB_ATTR_IMMED_DATA		"DAT_IB_IMMED_DATA"
#define DAT_IB_ATTR_UD			"DAT_IB_UD"

#define DAT_IB_COLL_SET_CLOCK		"DAT_COLL_SET_CLOCK"
#define DAT_IB_COLL_READ_CLOCK		"DAT_COLL_READ_CLOCK"
#define DAT_IB_COLL_BROADCAST		"DAT_COLL_BROADCAST"
#define DAT_IB_COLL_BARRIER		"DAT_COLL_BARRIER"
#define DAT_IB_COLL_SCATTER		"DAT_COLL_SCATTER"
#define DAT_IB_COLL_SCATTERV		"DAT_COLL_SCATTERV"
#define DAT_IB_COLL_GATHER		"DAT_COLL_GATHER"
#define DAT_IB_COLL_GATHERV		"DAT_COLL_GATHERV"
#define DAT_IB_COLL_ALLGATHER		"DAT_COLL_ALLGATHER"
#define DAT_IB_COLL_ALLGATHERV		"DAT_COLL_ALLGATHERV"
#define DAT_IB_COLL_ALLTOALL		"DAT_COLL_ALLTOALL"
#define DAT_IB_COLL_ALLTOALLV		"DAT_COLL_ALLTOALLV"
#define DAT_IB_COLL_REDUCE		"DAT_COLL_REDUCE"
#define DAT_IB_COLL_ALLREDUCE		"DAT_COLL_ALLREDUCE"
#define DAT_IB_COLL_REDUCE_SCATTER	"DAT_COLL_REDUCE_SCATTER"
#define DAT_IB_COLL_SCAN		"DAT_COLL_SCAN"

typedef DAT_HANDLE DAT_IB_COLLECTIVE_HANDLE;

/* ------------------------------------------------------------------ */
/* Codes                                                              */
/* ------------------------------------------------------------------ */

/* DAT_EVENT.event_number values for extended events. */
typedef enum dat_ib_event_number {
	DAT_IB_DTO_EVENT = DAT_IB_EXTENSION_RANGE_BASE,	/* any extended op */
	DAT_IB_UD_CONNECTION_REQUEST_EVENT,
	DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED,
	DAT_IB_UD_CONNECTION_REJECT_EVENT,
	DAT_IB_UD_CONNECTION_ERROR_EVENT,
	DAT_IB_COLLECTIVE_EVENT
} DAT_IB_EVENT_NUMBER;

/* Operation codes for dat_extension_op(). */
typedef enum dat_ib_op {
	DAT_IB_FETCH_AND_ADD_OP,
	DAT_IB_CMP_AND_SWAP_OP,
	DAT_IB_RDMA_WRITE_IMMED_OP,
	DAT_IB_UD_SEND_OP,
	DAT_IB_QUERY_COUNTERS_OP,
	DAT_IB_PRINT_COUNTERS_OP,
	DAT_IB_COLLECTIVE_CREATE_MEMBER_OP,
	DAT_IB_COLLECTIVE_FREE_MEMBER_OP,
	DAT_IB_COLLECTIVE_CREATE_GROUP_OP,
	DAT_IB_COLLECTIVE_FREE_GROUP_OP,
	DAT_IB_COLLECTIVE_SET_CLOCK_OP,
	DAT_IB_COLLECTIVE_READ_CLOCK_OP,
	DAT_IB_COLLECTIVE_SCATTER_OP,
	DAT_IB_COLLECTIVE_SCATTERV_OP,
	DAT_IB_COLLECTIVE_GATHER_OP,
	DAT_IB_COLLECTIVE_GATHERV_OP,
	DAT_IB_COLLECTIVE_ALLGATHER_OP,
	DAT_IB_COLLECTIVE_ALLGATHERV_OP,
	DAT_IB_COLLECTIVE_ALLTOALL_OP,
	DAT_IB_COLLECTIVE_ALLTOALLV_OP,
	DAT_IB_COLLECTIVE_REDUCE_OP,
	DAT_IB_COLLECTIVE_ALLREDUCE_OP,
	DAT_IB_COLLECTIVE_REDUCE_SCATTER_OP,
	DAT_IB_COLLECTIVE_SCAN_OP,
	DAT_IB_COLLECTIVE_BROADCAST_OP,
	DAT_IB_COLLECTIVE_BARRIER_OP,
	DAT_IB_START_COUNTERS_OP,
	DAT_IB_STOP_COUNTERS_OP,
	DAT_IB_UD_CM_FREE_OP,
	DAT_IB_UD_AH_FREE_OP,

	/*
	 * Ops the registry handles itself, without an open IA: those in the
	 * open range are routed by the provider name that follows the op
	 * code; those in the close range take the handle the open returned.
	 */
	DAT_IB_OPEN_QUERY_OP	= DAT_OPEN_EXTENSION_BASE,
	DAT_IB_CLOSE_QUERY_OP	= DAT_CLOSE_EXTENSION_BASE
} DAT_IB_OP;

/*
 * DAT_IB_EXTENSION_EVENT_DATA.type: what completed.  Every extended
 * completion, DTO or not, is delivered with event_number DAT_IB_DTO_EVENT
 * (or one of the other DAT_IB_EVENT_NUMBER values) and identified here.
 */
typedef enum dat_ib_ext_type {
	DAT_IB_FETCH_AND_ADD,				/*  0 */
	DAT_IB_CMP_AND_SWAP,				/*  1 */
	DAT_IB_RDMA_WRITE_IMMED,			/*  2 */
	DAT_IB_RDMA_WRITE_IMMED_DATA,			/*  3 */
	DAT_IB_RECV_IMMED_DATA,				/*  4 */
	DAT_IB_UD_CONNECT_REQUEST,			/*  5 */
	DAT_IB_UD_REMOTE_AH,				/*  6 */
	DAT_IB_UD_PASSIVE_REMOTE_AH,			/*  7 */
	DAT_IB_UD_SEND,					/*  8 */
	DAT_IB_UD_RECV,					/*  9 */
	DAT_IB_UD_CONNECT_REJECT,			/* 10 */
	DAT_IB_UD_CONNECT_ERROR,			/* 11 */
	DAT_IB_COLLECTIVE_CREATE_STATUS,		/* 12 */
	DAT_IB_COLLECTIVE_CREATE_DATA,			/* 13 */
	DAT_IB_COLLECTIVE_CLOCK_SET_STATUS,		/* 14 */
	DAT_IB_COLLECTIVE_SCATTER_STATUS,		/* 15 */
	DAT_IB_COLLECTIVE_SCATTERV_STATUS,		/* 16 */
	DAT_IB_COLLECTIVE_GATHER_STATUS,		/* 17 */
	DAT_IB_COLLECTIVE_GATHERV_STATUS,		/* 18 */
	DAT_IB_COLLECTIVE_ALLGATHER_STATUS,		/* 19 */
	DAT_IB_COLLECTIVE_ALLGATHERV_STATUS,		/* 20 */
	DAT_IB_COLLECTIVE_ALLTOALL_STATUS,		/* 21 */
	DAT_IB_COLLECTIVE_ALLTOALLV_STATUS,		/* 22 */
	DAT_IB_COLLECTIVE_REDUCE_STATUS,		/* 23 */
	DAT_IB_COLLECTIVE_ALLREDUCE_STATUS,		/* 24 */
	DAT_IB_COLLECTIVE_REDUCE_SCATTER_STATUS,	/* 25 */
	DAT_IB_COLLECTIVE_SCAN_STATUS,			/* 26 */
	DAT_IB_COLLECTIVE_BROADCAST_STATUS,		/* 27 */
	DAT_IB_COLLECTIVE_BARRIER_STATUS		/* 28 */
} DAT_IB_EXT_TYPE;

/* DAT_IB_EXTENSION_EVENT_DATA.status */
typedef enum dat_ib_status {
	DAT_OP_SUCCESS = DAT_SUCCESS,
	DAT_IB_OP_ERR,
	DAT_IB_COLL_COMP_ERR
} DAT_IB_STATUS;

/* Extension DAT_RETURN types, above the standard DAT_TYPE_STATUS range. */
typedef enum dat_ib_return {
	DAT_IB_ERR = DAT_EXTENSION_BASE,
	DAT_IB_COLLECTIVE_ERR
} DAT_IB_RETURN;

/* DAT_DTO_COMPLETION_EVENT_DATA.operation values for extended DTOs. */
typedef enum dat_ib_dtos {
	DAT_IB_DTO_RDMA_WRITE_IMMED = DAT_DTO_EXTENSION_BASE,
	DAT_IB_DTO_RECV_IMMED,
	DAT_IB_DTO_FETCH_ADD,
	DAT_IB_DTO_CMP_SWAP,
	DAT_IB_DTO_RECV_MSG_IMMED,
	DAT_IB_DTO_SEND_UD,
	DAT_IB_DTO_RECV_UD,
	DAT_IB_DTO_RECV_UD_IMMED,
	DAT_IB_DTO_COLLECTIVES
} DAT_IB_DTOS;

/* Extra DAT_HANDLE_TYPE values. */
typedef enum dat_ib_handle_type {
	DAT_IB_HANDLE_TYPE_EXT = DAT_HANDLE_TYPE_EXTENSION_BASE,
	DAT_IB_HANDLE_TYPE_COLLECTIVE
} DAT_IB_HANDLE_TYPE;

/* EVD flag for an EVD carrying events of no standard stream type. */
typedef enum dat_ib_evd_extension_flags {
	DAT_IB_EVD_EXTENSION_FLAG = DAT_EVD_EXTENSION_BASE
} DAT_IB_EVD_EXTENSION_FLAGS;

/* Memory privilege needed by the target of the atomic operations. */
typedef enum dat_ib_mem_priv_flags {
	DAT_IB_MEM_PRIV_REMOTE_ATOMIC = DAT_MEM_PRIV_EXTENSION_BASE
} DAT_IB_MEM_PRIV_FLAGS;

/* Extra DAT_SERVICE_TYPE value: an unreliable datagram endpoint. */
typedef enum dat_ib_service_type {
	DAT_IB_SERVICE_TYPE_UD = DAT_SERVICE_TYPE_EXTENSION_BASE
} DAT_IB_SERVICE_TYPE;

/* ------------------------------------------------------------------ */
/* Extended event data                                                */
/* ------------------------------------------------------------------ */

/* Destination of a UD send, as reported by the UD connection events. */
typedef struct dat_ib_addr_handle {
	struct ibv_ah		*ah;		/* verbs address handle */
	DAT_UINT32		qpn;		/* remote queue pair number */
	DAT_SOCK_ADDR6		ia_addr;	/* remote IA address */
} DAT_IB_ADDR_HANDLE;

typedef struct dat_ib_immed_data {
	DAT_UINT32		data;
} DAT_IB_IMMED_DATA;

typedef struct dat_ib_collective_event_data {
	DAT_HANDLE		handle;
	DAT_CONTEXT		context;
} DAT_IB_COLLECTIVE_EVENT_DATA;

/*
 * Overlays DAT_EVENT.extension_data (64 bytes) for extended events; this
 * structure is exactly 64 bytes on LP64.
 *
 * For DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED, remote_ah holds the address
 * handle to send to (free with dat_ib_ud_ah_free()) and context the CM
 * object (free with dat_ib_ud_cm_free()); if the CM is freed, the AH must
 * still be freed before the EP is.
 */
typedef struct dat_ib_extension_event_data {
	DAT_IB_EXT_TYPE		type;
	DAT_IB_STATUS		status;
	union {
		DAT_IB_IMMED_DATA	immed;
	} val;
	__extension__ union {			/* anonymous (C11); by event */
		DAT_IB_ADDR_HANDLE		remote_ah;
		DAT_IB_COLLECTIVE_EVENT_DATA	coll;
	};
	DAT_CONTEXT		context;
} DAT_IB_EXTENSION_EVENT_DATA;

/* ------------------------------------------------------------------ */
/* Counters                                                           */
/* ------------------------------------------------------------------ */

/* 64-bit counters kept per IA; DCNT_IA_ALL_COUNTERS selects them all. */
typedef enum dat_ia_counters {
	DCNT_IA_PZ_CREATE,
	DCNT_IA_PZ_FREE,
	DCNT_IA_LMR_CREATE,
	DCNT_IA_LMR_FREE,
	DCNT_IA_RMR_CREATE,
	DCNT_IA_RMR_FREE,
	DCNT_IA_PSP_CREATE,
	DCNT_IA_PSP_CREATE_ANY,
	DCNT_IA_PSP_FREE,
	DCNT_IA_RSP_CREATE,
	DCNT_IA_RSP_FREE,
	DCNT_IA_EVD_CREATE,
	DCNT_IA_EVD_FREE,
	DCNT_IA_EP_CREATE,
	DCNT_IA_EP_FREE,
	DCNT_IA_SRQ_CREATE,
	DCNT_IA_SRQ_FREE,
	DCNT_IA_SP_CR,
	DCNT_IA_SP_CR_ACCEPTED,
	DCNT_IA_SP_CR_REJECTED,
	DCNT_IA_MEM_ALLOC,
	DCNT_IA_MEM_ALLOC_DATA,
	DCNT_IA_MEM_FREE,
	DCNT_IA_ASYNC_ERROR,
	DCNT_IA_ASYNC_QP_ERROR,
	DCNT_IA_ASYNC_CQ_ERROR,

	/* connection manager */
	DCNT_IA_CM_LISTEN,
	DCNT_IA_CM_REQ_TX,
	DCNT_IA_CM_REQ_RX,
	DCNT_IA_CM_REP_TX,
	DCNT_IA_CM_REP_RX,
	DCNT_IA_CM_RTU_TX,
	DCNT_IA_CM_RTU_RX,
	DCNT_IA_CM_USER_REJ_TX,
	DCNT_IA_CM_USER_REJ_RX,
	DCNT_IA_CM_ACTIVE_EST,
	DCNT_IA_CM_PASSIVE_EST,
	DCNT_IA_CM_AH_REQ_TX,
	DCNT_IA_CM_AH_REQ_RX,
	DCNT_IA_CM_AH_RESOLVED,
	DCNT_IA_CM_DREQ_TX,
	DCNT_IA_CM_DREQ_RX,
	DCNT_IA_CM_DREP_TX,
	DCNT_IA_CM_DREP_RX,
	DCNT_IA_CM_MRA_TX,
	DCNT_IA_CM_MRA_RX,
	DCNT_IA_CM_REQ_FULLQ_POLL,
	DCNT_IA_CM_ERR,
	DCNT_IA_CM_ERR_REQ_FULLQ,
	DCNT_IA_CM_ERR_REQ_DUP,
	DCNT_IA_CM_ERR_REQ_RETRY,
	DCNT_IA_CM_ERR_REP_DUP,
	DCNT_IA_CM_ERR_REP_RETRY,
	DCNT_IA_CM_ERR_RTU_DUP,
	DCNT_IA_CM_ERR_RTU_RETRY,
	DCNT_IA_CM_ERR_REFUSED,
	DCNT_IA_CM_ERR_RESET,
	DCNT_IA_CM_ERR_TIMEOUT,
	DCNT_IA_CM_ERR_REJ_TX,
	DCNT_IA_CM_ERR_REJ_RX,
	DCNT_IA_CM_ERR_DREQ_DUP,
	DCNT_IA_CM_ERR_DREQ_RETRY,
	DCNT_IA_CM_ERR_DREP_DUP,
	DCNT_IA_CM_ERR_DREP_RETRY,
	DCNT_IA_CM_ERR_MRA_DUP,
	DCNT_IA_CM_ERR_MRA_RETRY,
	DCNT_IA_CM_ERR_UNEXPECTED,

	/* port link errors (sampled, see dat_ib_start_counter()) */
	DCNT_IA_LNK_ERR_RCV,
	DCNT_IA_LNK_ERR_RCV_REM_PHYS,
	DCNT_IA_LNK_ERR_RCV_CONSTRAINT,
	DCNT_IA_LNK_ERR_XMT_DISCARDS,
	DCNT_IA_LNK_ERR_XMT_CONTRAINT,		/* sic */
	DCNT_IA_LNK_ERR_INTEGRITY,
	DCNT_IA_LNK_ERR_EXC_BUF_OVERRUN,
	DCNT_IA_LNK_WARN_RCV_SW_RELAY,
	DCNT_IA_LNK_WARN_XMT_WAIT,

	/* device diagnostics (sampled) */
	DCNT_IA_DIAG_ERR_RQ_RAE,
	DCNT_IA_DIAG_ERR_RQ_OOS,
	DCNT_IA_DIAG_ERR_RQ_RIRE,
	DCNT_IA_DIAG_ERR_RQ_UDSDPRD,
	DCNT_IA_DIAG_ERR_SQ_RAE,
	DCNT_IA_DIAG_ERR_SQ_OOS,
	DCNT_IA_DIAG_ERR_SQ_RIRE,
	DCNT_IA_DIAG_ERR_SQ_RREE,
	DCNT_IA_DIAG_ERR_SQ_TREE,

	DCNT_IA_ALL_COUNTERS			/* count; keep last */
} DAT_IA_COUNTERS;

/* 64-bit counters kept per EP. */
typedef enum dat_ep_counters {
	DCNT_EP_CONNECT,
	DCNT_EP_DISCONNECT,
	DCNT_EP_POST_SEND,
	DCNT_EP_POST_SEND_DATA,
	DCNT_EP_POST_SEND_UD,
	DCNT_EP_POST_SEND_UD_DATA,
	DCNT_EP_POST_RECV,
	DCNT_EP_POST_RECV_DATA,
	DCNT_EP_POST_WRITE,
	DCNT_EP_POST_WRITE_DATA,
	DCNT_EP_POST_WRITE_IMM,
	DCNT_EP_POST_WRITE_IMM_DATA,
	DCNT_EP_POST_READ,
	DCNT_EP_POST_READ_DATA,
	DCNT_EP_POST_CMP_SWAP,
	DCNT_EP_POST_FETCH_ADD,
	DCNT_EP_RECV,
	DCNT_EP_RECV_DATA,
	DCNT_EP_RECV_UD,
	DCNT_EP_RECV_UD_DATA,
	DCNT_EP_RECV_IMM,
	DCNT_EP_RECV_IMM_DATA,
	DCNT_EP_RECV_RDMA_IMM,
	DCNT_EP_RECV_RDMA_IMM_DATA,
	DCNT_EP_ALL_COUNTERS			/* count; keep last */
} DAT_EP_COUNTERS;

/* 64-bit counters kept per EVD. */
typedef enum dat_evd_counters {
	DCNT_EVD_WAIT,
	DCNT_EVD_WAIT_BLOCKED,
	DCNT_EVD_WAIT_NOTIFY,
	DCNT_EVD_DEQUEUE,
	DCNT_EVD_DEQUEUE_FOUND,
	DCNT_EVD_DEQUEUE_NOT_FOUND,
	DCNT_EVD_DEQUEUE_POLL,
	DCNT_EVD_DEQUEUE_POLL_FOUND,
	DCNT_EVD_CONN_CALLBACK,
	DCNT_EVD_DTO_CALLBACK,
	DCNT_EVD_ALL_COUNTERS			/* count; keep last */
} DAT_EVD_COUNTERS;

/* IA counter groups that are sampled rather than counted continuously. */
typedef enum dat_ia_counter_type {
	DCNT_IA_CM,
	DCNT_IA_LNK,
	DCNT_IA_DIAG
} DAT_IA_COUNTER_TYPE;

/* ------------------------------------------------------------------ */
/* Collective types                                                   */
/* ------------------------------------------------------------------ */

/* Element type of reduction buffers (the pair types are for MINLOC/MAXLOC). */
typedef enum dat_ib_collective_data_type {
	DAT_IB_COLLECTIVE_TYPE_INT8,
	DAT_IB_COLLECTIVE_TYPE_UINT8,
	DAT_IB_COLLECTIVE_TYPE_INT16,
	DAT_IB_COLLECTIVE_TYPE_UINT16,
	DAT_IB_COLLECTIVE_TYPE_INT32,
	DAT_IB_COLLECTIVE_TYPE_UINT32,
	DAT_IB_COLLECTIVE_TYPE_INT64,
	DAT_IB_COLLECTIVE_TYPE_UINT64,
	DAT_IB_COLLECTIVE_TYPE_FLOAT,
	DAT_IB_COLLECTIVE_TYPE_DOUBLE,
	DAT_IB_COLLECTIVE_TYPE_LONG_DOUBLE,
	DAT_IB_COLLECTIVE_TYPE_SHORT_INT,
	DAT_IB_COLLECTIVE_TYPE_2INT,
	DAT_IB_COLLECTIVE_TYPE_FLOAT_INT,
	DAT_IB_COLLECTIVE_TYPE_LONG_INT,
	DAT_IB_COLLECTIVE_TYPE_DOUBLE_INT
} DAT_IB_COLLECTIVE_DATA_TYPE;

/* Reduction operators (MPI semantics). */
typedef enum dat_ib_collective_reduce_data_op {
	DAT_IB_COLLECTIVE_REDUCE_OP_MAX,
	DAT_IB_COLLECTIVE_REDUCE_OP_MIN,
	DAT_IB_COLLECTIVE_REDUCE_OP_SUM,
	DAT_IB_COLLECTIVE_REDUCE_OP_PROD,
	DAT_IB_COLLECTIVE_REDUCE_OP_LAND,
	DAT_IB_COLLECTIVE_REDUCE_OP_BAND,
	DAT_IB_COLLECTIVE_REDUCE_OP_LOR,
	DAT_IB_COLLECTIVE_REDUCE_OP_BOR,
	DAT_IB_COLLECTIVE_REDUCE_OP_LXOR,
	DAT_IB_COLLECTIVE_REDUCE_OP_BXOR,
	DAT_IB_COLLECTIVE_REDUCE_OP_MAXLOC,
	DAT_IB_COLLECTIVE_REDUCE_OP_MINLOC
} DAT_IB_COLLECTIVE_REDUCE_DATA_OP;

typedef unsigned int	DAT_IB_COLLECTIVE_RANK;
typedef unsigned int	DAT_IB_COLLECTIVE_ID;
typedef void		*DAT_IB_COLLECTIVE_MEMBER;	/* opaque address */

/* Process layout passed to group creation; ranks are global MPI ranks. */
typedef struct dat_ib_collective_group {
	int	local_size;		/* processes on this node */
	int	local_rank;		/* this process's rank on the node */
	int	*local_ranks;		/* global rank of each local process */
	int	external_size;		/* nodes; one "external" process each */
	int	external_rank;		/* rank among those, or -1 */
	int	*external_ranks;	/* global rank of each of them */
	int	*intranode_table;	/* global -> local rank, or -1 */
	int	*internode_table;	/* global -> external rank, or -1 */
	int	is_comm_world;
} DAT_IB_COLLECTIVE_GROUP;

/* ------------------------------------------------------------------ */
/* String helpers                                                     */
/* ------------------------------------------------------------------ */

/* Like dat_strerror(), but also names the extension DAT_RETURN types. */
static __inline__ DAT_RETURN DAT_API
dat_strerror_extension(IN DAT_IB_RETURN value, OUT const char **message)
{
	switch (DAT_GET_TYPE(value)) {
	case DAT_IB_ERR:
		*message = "DAT_IB_ERR";
		return DAT_SUCCESS;
	default:
		return dat_strerror(value, message, NULL);
	}
}

/* Names a DAT_IB_EXTENSION_EVENT_DATA.status value. */
static __inline__ DAT_RETURN DAT_API
dat_strerror_ext_status(IN DAT_IB_STATUS value, OUT const char **message)
{
	switch (value) {
	case DAT_OP_SUCCESS:
		*message = " ";
		return DAT_SUCCESS;
	case DAT_IB_OP_ERR:
		*message = "DAT_IB_OP_ERR";
		return DAT_SUCCESS;
	case DAT_IB_COLL_COMP_ERR:
		*message = "DAT_IB_COLL_COMP_ERR";
		return DAT_SUCCESS;
	default:
		*message = "unknown extension status";
		return DAT_INVALID_PARAMETER;
	}
}

/* ------------------------------------------------------------------ */
/* Extended operations                                                */
/* ------------------------------------------------------------------ */

/*
 * Atomic fetch-and-add: add add_val to the 64-bit word at rbuf and return
 * its previous value into lbuf.  Completes on the request EVD.
 */
#define dat_ib_post_fetch_and_add(ep, add_val, lbuf, cookie, rbuf, flgs) \
	dat_extension_op( \
		(DAT_EP_HANDLE) (ep), \
		(DAT_IB_OP) DAT_IB_FETCH_AND_ADD_OP, \
		(DAT_UINT64) (add_val), \
		(DAT_LMR_TRIPLET *) (lbuf), \
		(cookie), \
		(DAT_RMR_TRIPLET *) (rbuf), \
		(DAT_COMPLETION_FLAGS) (flgs))

/*
 * Atomic compare-and-swap: if the 64-bit word at rbuf equals cmp_val,
 * replace it with swap_val.  Its previous value is always returned into
 * lbuf.
 */
#define dat_ib_post_cmp_and_swap(ep, cmp_val, swap_val, lbuf, cookie, rbuf, \
		flgs) \
	dat_extension_op( \
		(DAT_EP_HANDLE) (ep), \
		(DAT_IB_OP) DAT_IB_CMP_AND_SWAP_OP, \
		(DAT_UINT64) (cmp_val), \
		(DAT_UINT64) (swap_val), \
		(DAT_LMR_TRIPLET *) (lbuf), \
		(cookie), \
		(DAT_RMR_TRIPLET *) (rbuf), \
		(DAT_COMPLETION_FLAGS) (flgs))

/*
 * RDMA write carrying 32 bits of immediate data.  The immediate data
 * consumes a posted receive at the target, which completes as an extended
 * event with the data in DAT_IB_EXTENSION_EVENT_DATA.val.immed.
 */
#define dat_ib_post_rdma_write_immed(ep, size, lbuf, cookie, rbuf, idata, \
		flgs) \
	dat_extension_op( \
		(DAT_EP_HANDLE) (ep), \
		(DAT_IB_OP) DAT_IB_RDMA_WRITE_IMMED_OP, \
		(DAT_COUNT) (size), \
		(DAT_LMR_TRIPLET *) (lbuf), \
		(cookie), \
		(DAT_RMR_TRIPLET *) (rbuf), \
		(DAT_UINT32) (idata), \
		(DAT_COMPLETION_FLAGS) (flgs))

/* Unreliable datagram send to the destination described by ah_ptr. */
#define dat_ib_post_send_ud(ep, segments, lbuf, ah_ptr, cookie, flgs) \
	dat_extension_op( \
		(DAT_EP_HANDLE) (ep), \
		(DAT_IB_OP) DAT_IB_UD_SEND_OP, \
		(DAT_COUNT) (segments), \
		(DAT_LMR_TRIPLET *) (lbuf), \
		(DAT_IB_ADDR_HANDLE *) (ah_ptr), \
		(cookie), \
		(DAT_COMPLETION_FLAGS) (flgs))

/* Unreliable datagram receive is an ordinary receive. */
#define dat_ib_post_recv_ud	dat_ep_post_recv

/*
 * Release the CM object of an established UD connection (passed as the
 * event's context) once its address handle and private data have been
 * copied.  Optional; valid until the EP is freed.
 */
#define dat_ib_ud_cm_free(ep, cm) \
	dat_extension_op( \
		(DAT_EP_HANDLE) (ep), \
		(DAT_IB_OP) DAT_IB_UD_CM_FREE_OP, \
		__extension__ (DAT_CONTEXT) (cm))

/* Release a UD address handle: after its last send, before the EP is freed. */
#define dat_ib_ud_ah_free(ep, ah) \
	dat_extension_op( \
		(DAT_EP_HANDLE) (ep), \
		(DAT_IB_OP) DAT_IB_UD_AH_FREE_OP, \
		(DAT_IB_ADDR_HANDLE *) (ah))

/*
 * Read the counters of an IA, EP or EVD handle into p_cntrs_out (one
 * counter, or all of them with DCNT_xx_ALL_COUNTERS), clearing them after
 * if reset is nonzero.
 */
#define dat_ib_query_counters(dat_handle, cntr, p_cntrs_out, reset) \
	dat_extension_op( \
		(DAT_HANDLE) (dat_handle), \
		(DAT_IB_OP) DAT_IB_QUERY_COUNTERS_OP, \
		(int) (cntr), \
		(DAT_UINT64 *) (p_cntrs_out), \
		(int) (reset))

/* As above, but print the counters (to the provider's log) instead. */
#define dat_ib_print_counters(dat_handle, cntr, reset) \
	dat_extension_op( \
		(DAT_HANDLE) (dat_handle), \
		(DAT_IB_OP) DAT_IB_PRINT_COUNTERS_OP, \
		(int) (cntr), \
		(int) (reset))

/* Start or stop sampling one DAT_IA_COUNTER_TYPE group on an IA. */
#define dat_ib_start_counter(dat_handle, type) \
	dat_extension_op( \
		(DAT_HANDLE) (dat_handle), \
		(DAT_IB_OP) DAT_IB_START_COUNTERS_OP, \
		(DAT_IA_COUNTER_TYPE) (type))

#define dat_ib_stop_counter(dat_handle, type) \
	dat_extension_op( \
		(DAT_HANDLE) (dat_handle), \
		(DAT_IB_OP) DAT_IB_STOP_COUNTERS_OP, \
		(DAT_IA_COUNTER_TYPE) (type))

/*
 * Fast attribute query: open the named IA just far enough to fill in
 * ia_attr and prov_attr (as dat_ia_query() would), returning a handle to
 * pass to dat_ib_close_query().  No handle exists yet, so NULL is passed
 * and the registry routes the call by name.
 */
#define dat_ib_open_query(name, ia_handle, ia_mask, ia_attr, prov_mask, \
		prov_attr) \
	dat_extension_op( \
		(DAT_HANDLE) (NULL), \
		(DAT_IB_OP) DAT_IB_OPEN_QUERY_OP, \
		(DAT_NAME_PTR) (name), \
		(DAT_HANDLE *) (ia_handle), \
		(DAT_IA_ATTR_MASK) (ia_mask), \
		(DAT_IA_ATTR *) (ia_attr), \
		(DAT_PROVIDER_ATTR_MASK) (prov_mask), \
		(DAT_PROVIDER_ATTR *) (prov_attr))

#define dat_ib_close_query(ia_handle) \
	dat_extension_op( \
		(DAT_HANDLE) (ia_handle), \
		(DAT_IB_OP) DAT_IB_CLOSE_QUERY_OP)

/* ------------------------------------------------------------------ */
/* MPI collectives                                                    */
/* ------------------------------------------------------------------ */

/*
 * Group set-up.  Each rank creates its member address blob (synchronous),
 * the blobs are exchanged out of band, and every rank then calls
 * dat_ib_collective_create_group() with the same array (in rank order)
 * and the same group_id.  Group creation completes asynchronously on evd
 * with a DAT_IB_COLLECTIVE_CREATE_DATA event carrying the collective
 * handle and user_context.
 */
#define dat_ib_collective_create_member(ia_handle, progress_func, member, \
		member_size) \
	dat_extension_op( \
		(DAT_IA_HANDLE) (ia_handle), \
		(DAT_IB_OP) DAT_IB_COLLECTIVE_CREATE_MEMBER_OP, \
		(void *) (progress_func), \
		(DAT_IB_COLLECTIVE_MEMBER *) (member), \
		(DAT_UINT32 *) (member_size))

#define dat_ib_collective_free_member(ia_handle, member) \
	dat_extension_op( \
		(DAT_IA_HANDLE) (ia_handle), \
		(DAT_IB_OP) DAT_IB_COLLECTIVE_FREE_MEMBER_OP, \
		(DAT_IB_COLLECTIVE_MEMBER) (member))

/* Note: routed by the EVD handle, which comes sixth in the argument list. */
#define dat_ib_collective_create_group(members, group_size, self, group_id, \
		group_info, evd, pd, user_context) \
	dat_extension_op( \
		(DAT_EVD_HANDLE) (evd), \
		(DAT_IB_OP) DAT_IB_COLLECTIVE_CREATE_GROUP_OP, \
		(DAT_IB_COLLECTIVE_MEMBER *) (members), \
		(DAT_COUNT) (group_size), \
		(DAT_IB_COLLECTIVE_RANK) (self), \
		(DAT_IB_COLLECTIVE_ID) (group_id), \
		(DAT_IB_COLLECTIVE_GROUP *) (group_info), \
		(DAT_PZ_HANDLE) (pd), \
		__extension__ (DAT_CONTEXT) (user_context))

/* Synchronous; outstanding operations on the group are flushed to the EVD. */
#define dat_ib_collective_free_group(coll_handle) \
	dat_extension_op( \
		(DAT_IB_COLLECTIVE_HANDLE) (coll_handle), \
		(DAT_IB_OP) DAT_IB_COLLECTIVE_FREE_GROUP_OP)

/*
 * Network clock.  Setting it (one member, on behalf of all) completes
 * asynchronously on the collective EVD; reading it is synchronous and
 * cheap.
 */
#define dat_ib_collective_set_clock(coll_handle, clock_value, user_context) \
	dat_extension_op( \
		(DAT_IB_COLLECTIVE_HANDLE) (coll_handle), \
		(DAT_IB_OP) DAT_IB_COLLECTIVE_SET_CLOCK_OP, \
		(DAT_UINT64) (clock_value), \
		__extension__ (DAT_CONTEXT) (user_context))

#define dat_ib_collective_read_clock(coll_handle, clock_value) \
	dat_extension_op( \
		(DAT_IB_COLLECTIVE_HANDLE) (coll_handle), \
		(DAT_IB_OP) DAT_IB_COLLECTIVE_READ_CLOCK_OP, \
		(DAT_UINT64 *) (clock_value))

/*
 * Data movement, MPI style.  All complete on the collective EVD unless
 * suppressed by the completion flags.  Sizes are byte counts; the "v"
 * variants take per-rank size and displacement arrays.  For the rooted
 * operations, a NULL receive buffer at the root (scatter) or NULL send
 * buffer at the root (gather) requests an in-place transfer.
 */
#define dat_ib_collective_scatter(coll_handle, sendbuf, sendsize, recvbuf, \
		recvsize, root, user_context, flags) \
	dat_extension_op( \
		(DAT_IB_COLLECTIVE_HANDLE) (coll_handle), \
		(DAT_IB_OP) DAT_IB_COLLECTIVE_SCATTER_OP, \
		(DAT_PVOID) (sendbuf), \
		(DAT_COUNT) (sendsize), \
		(DAT_PVOID) (recvbuf), \
		(DAT_COUNT) (recvsize), \
		(DAT_IB_COLLECTIVE_RANK) (root), \
		__extension__ (DAT_CONTEXT) (user_context), \
		(DAT_COMPLETION_FLAGS) (flags))

#define dat_ib_collective_scatterv(coll_handle, sendbuf, sendsizes, displs, \
		recvbuf, recvsize, root, user_context, flags) \
	dat_extension_op( \
		(DAT_IB_COLLECTIVE_HANDLE) (coll_handle), \
		(DAT_IB_OP) DAT_IB_COLLECTIVE_SCATTERV_OP, \
		(DAT_PVOID) (sendbuf), \
		(DAT_COUNT *) (sendsizes), \
		(DAT_COUNT *) (displs), \
		(DAT_PVOID) (recvbuf), \
		(DAT_COUNT) (recvsize), \
		(DAT_IB_COLLECTIVE_RANK) (root), \
		__extension__ (DAT_CONTEXT) (user_context), \
		(DAT_COMPLETION_FLAGS) (flags))

#define dat_ib_collective_gather(coll_handle, sendbuf, sendsize, recvbuf, \
		recvsize, root, user_context, flags) \
	dat_extension_op( \
		(DAT_IB_COLLECTIVE_HANDLE) (coll_handle), \
		(DAT_IB_OP) DAT_IB_COLLECTIVE_GATHER_OP, \
		(DAT_PVOID) (sendbuf), \
		(DAT_COUNT) (sendsize), \
		(DAT_PVOID) (recvbuf), \
		(DAT_COUNT) (recvsize), \
		(DAT_IB_COLLECTIVE_RANK) (root), \
		__extension__ (DAT_CONTEXT) (user_context), \
		(DAT_COMPLETION_FLAGS) (flags))

#define dat_ib_collective_gatherv(coll_handle, sendbuf, sendsize, recvbufs, \
		recvsizes, displs, root, user_context, flags) \
	dat_extension_op( \
		(DAT_IB_COLLECTIVE_HANDLE) (coll_handle), \
		(DAT_IB_OP) DAT_IB_COLLECTIVE_GATHERV_OP, \
		(DAT_PVOID) (sendbuf), \
		(DAT_COUNT) (sendsize), \
		(DAT_PVOID) (recvbufs), \
		(DAT_COUNT *) (recvsizes), \
		(DAT_COUNT *) (displs), \
		(DAT_IB_COLLECTIVE_RANK) (root), \
		__extension__ (DAT_CONTEXT) (user_context), \
		(DAT_COMPLETION_FLAGS) (flags))

#define dat_ib_collective_allgather(coll_handle, sendbuf, sendsize, recvbuf, \
		recvsize, user_context, flags) \
	dat_extension_op( \
		(DAT_IB_COLLECTIVE_HANDLE) (coll_handle), \
		(DAT_IB_OP) DAT_IB_COLLECTIVE_ALLGATHER_OP, \
		(DAT_PVOID) (sendbuf), \
		(DAT_COUNT) (sendsize), \
		(DAT_PVOID) (recvbuf), \
		(DAT_COUNT) (recvsize), \
		__extension__ (DAT_CONTEXT) (user_context), \
		(DAT_COMPLETION_FLAGS) (flags))

#define dat_ib_collective_allgatherv(coll_handle, sendbuf, sendsize, recvbuf, \
		recvsizes, displs, user_context, flags) \
	dat_extension_op( \
		(DAT_IB_COLLECTIVE_HANDLE) (coll_handle), \
		(DAT_IB_OP) DAT_IB_COLLECTIVE_ALLGATHERV_OP, \
		(DAT_PVOID) (sendbuf), \
		(DAT_COUNT) (sendsize), \
		(DAT_PVOID) (recvbuf), \
		(DAT_COUNT *) (recvsizes), \
		(DAT_COUNT *) (displs), \
		__extension__ (DAT_CONTEXT) (user_context), \
		(DAT_COMPLETION_FLAGS) (flags))

#define dat_ib_collective_alltoall(coll_handle, sendbuf, sendsize, recvbuf, \
		recvsize, user_context, flags) \
	dat_extension_op( \
		(DAT_IB_COLLECTIVE_HANDLE) (coll_handle), \
		(DAT_IB_OP) DAT_IB_COLLECTIVE_ALLTOALL_OP, \
		(DAT_PVOID) (sendbuf), \
		(DAT_COUNT) (sendsize), \
		(DAT_PVOID) (recvbuf), \
		(DAT_COUNT) (recvsize), \
		__extension__ (DAT_CONTEXT) (user_context), \
		(DAT_COMPLETION_FLAGS) (flags))

#define dat_ib_collective_alltoallv(coll_handle, sendbuf, sendsizes, \
		senddispls, recvbuf, recvsizes, recvdispls, user_context, \
		flags) \
	dat_extension_op( \
		(DAT_IB_COLLECTIVE_HANDLE) (coll_handle), \
		(DAT_IB_OP) DAT_IB_COLLECTIVE_ALLTOALLV_OP, \
		(DAT_PVOID) (sendbuf), \
		(DAT_COUNT *) (sendsizes), \
		(DAT_COUNT *) (senddispls), \
		(DAT_PVOID) (recvbuf), \
		(DAT_COUNT *) (recvsizes), \
		(DAT_COUNT *) (recvdispls), \
		__extension__ (DAT_CONTEXT) (user_context), \
		(DAT_COMPLETION_FLAGS) (flags))

/*
 * Reductions combine elements of the given type with op.  For MINLOC and
 * MAXLOC each element is a (value, DAT_IB_COLLECTIVE_TYPE_UINT32 rank)
 * pair.  reduce delivers to root only, allreduce to everyone,
 * reduce_scatter splits the result by recvsizes, and scan gives rank i
 * the reduction over ranks 0..i.
 */
#define dat_ib_collective_reduce(coll_handle, sendbuf, sendsize, recvbuf, \
		recvsize, op, type, root, user_context, flags) \
	dat_extension_op( \
		(DAT_IB_COLLECTIVE_HANDLE) (coll_handle), \
		(DAT_IB_OP) DAT_IB_COLLECTIVE_REDUCE_OP, \
		(DAT_PVOID) (sendbuf), \
		(DAT_COUNT) (sendsize), \
		(DAT_PVOID) (recvbuf), \
		(DAT_COUNT) (recvsize), \
		(DAT_IB_COLLECTIVE_REDUCE_DATA_OP) (op), \
		(DAT_IB_COLLECTIVE_DATA_TYPE) (type), \
		(DAT_IB_COLLECTIVE_RANK) (root), \
		__extension__ (DAT_CONTEXT) (user_context), \
		(DAT_COMPLETION_FLAGS) (flags))

#define dat_ib_collective_allreduce(coll_handle, sendbuf, sendsize, recvbuf, \
		recvsize, op, type, user_context, flags) \
	dat_extension_op( \
		(DAT_IB_COLLECTIVE_HANDLE) (coll_handle), \
		(DAT_IB_OP) DAT_IB_COLLECTIVE_ALLREDUCE_OP, \
		(DAT_PVOID) (sendbuf), \
		(DAT_COUNT) (sendsize), \
		(DAT_PVOID) (recvbuf), \
		(DAT_COUNT) (recvsize), \
		(DAT_IB_COLLECTIVE_REDUCE_DATA_OP) (op), \
		(DAT_IB_COLLECTIVE_DATA_TYPE) (type), \
		__extension__ (DAT_CONTEXT) (user_context), \
		(DAT_COMPLETION_FLAGS) (flags))

#define dat_ib_collective_reduce_scatter(coll_handle, sendbuf, sendsize, \
		recvbuf, recvsizes, op, type, user_context, flags) \
	dat_extension_op( \
		(DAT_IB_COLLECTIVE_HANDLE) (coll_handle), \
		(DAT_IB_OP) DAT_IB_COLLECTIVE_REDUCE_SCATTER_OP, \
		(DAT_PVOID) (sendbuf), \
		(DAT_COUNT) (sendsize), \
		(DAT_PVOID) (recvbuf), \
		(DAT_COUNT *) (recvsizes), \
		(DAT_IB_COLLECTIVE_REDUCE_DATA_OP) (op), \
		(DAT_IB_COLLECTIVE_DATA_TYPE) (type), \
		__extension__ (DAT_CONTEXT) (user_context), \
		(DAT_COMPLETION_FLAGS) (flags))

#define dat_ib_collective_scan(coll_handle, sendbuf, sendsize, recvbuf, \
		recvsize, op, type, user_context, flags) \
	dat_extension_op( \
		(DAT_IB_COLLECTIVE_HANDLE) (coll_handle), \
		(DAT_IB_OP) DAT_IB_COLLECTIVE_SCAN_OP, \
		(DAT_PVOID) (sendbuf), \
		(DAT_COUNT) (sendsize), \
		(DAT_PVOID) (recvbuf), \
		(DAT_COUNT) (recvsize), \
		(DAT_IB_COLLECTIVE_REDUCE_DATA_OP) (op), \
		(DAT_IB_COLLECTIVE_DATA_TYPE) (type), \
		__extension__ (DAT_CONTEXT) (user_context), \
		(DAT_COMPLETION_FLAGS) (flags))

/* In-place broadcast of buf from root to every member. */
#define dat_ib_collective_broadcast(coll_handle, buf, size, root, \
		user_context, flags) \
	dat_extension_op( \
		(DAT_IB_COLLECTIVE_HANDLE) (coll_handle), \
		(DAT_IB_OP) DAT_IB_COLLECTIVE_BROADCAST_OP, \
		(DAT_PVOID) (buf), \
		(DAT_COUNT) (size), \
		(DAT_IB_COLLECTIVE_RANK) (root), \
		__extension__ (DAT_CONTEXT) (user_context), \
		(DAT_COMPLETION_FLAGS) (flags))

/* Completes on the collective EVD once every member has entered it. */
#define dat_ib_collective_barrier(coll_handle, user_context, flags) \
	dat_extension_op( \
		(DAT_IB_COLLECTIVE_HANDLE) (coll_handle), \
		(DAT_IB_OP) DAT_IB_COLLECTIVE_BARRIER_OP, \
		__extension__ (DAT_CONTEXT) (user_context), \
		(DAT_COMPLETION_FLAGS) (flags))

/* ------------------------------------------------------------------ */
/* Older spellings, kept for source compatibility                     */
/* ------------------------------------------------------------------ */

#define DAT_ATTR_COUNTERS	DAT_IB_ATTR_COUNTERS
#define dat_query_counters	dat_ib_query_counters
#define dat_print_counters	dat_ib_print_counters
#define DAT_QUERY_COUNTERS_OP	DAT_IB_QUERY_COUNTERS_OP
#define DAT_PRINT_COUNTERS_OP	DAT_IB_PRINT_COUNTERS_OP

#ifdef __cplusplus
}
#endif

#endif /* _DAT_IB_EXTENSIONS_H_ */
