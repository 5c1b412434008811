/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl: <dat/udat.h>
 *
 * The DAT 1.2 user API (uDAPL 1.2): the API of the seed manual pages,
 * whose synopsis is "#include <dat/udat.h>" and "cc ... -ldat".  A program
 * includes this header and links with libdat.so.1 (-ldat), which serves
 * every call from the DAT 2.0 registry (libdat2.so.2) and its providers,
 * translating the 1.2 types below to those of <dat2/udat.h> and back.
 *
 * Every call is a real function of libdat.so.1, never a macro that
 * dispatches through a provider's table; only dat_ia_open() is a macro, of
 * dat_ia_openv() with the 1.2 version numbers, as in the DAT 1.2 headers.
 *
 * Names, values, layouts and prototypes are those of the DAT 1.2 headers
 * (illumos's libdat, built for x86-64 Linux: test/abi12 compares every
 * one).  Where DAT 1.2 differs from DAT 2.0 in layout, among others:
 *   - DAT_LMR_TRIPLET and DAT_RMR_TRIPLET are 24 bytes: a 32-bit context,
 *     a 32-bit pad, a 64-bit address and a 64-bit (DAT_VLEN) length; the
 *     RMR triplet's address is target_address (2.0: 16 bytes, address,
 *     32-bit length, context; virtual_address);
 *   - dat_lmr_create() has no DAT_VA_TYPE argument, dat_rmr_bind() no LMR
 *     handle nor DAT_VA_TYPE, dat_cr_reject() no private data;
 *   - lengths in events and attributes are 64-bit DAT_VLEN (2.0:
 *     DAT_SEG_LENGTH, 32 bits): transfered_length, max_message_size,
 *     max_rdma_size, max_lmr_block_size; DAT_EVENT is 48 bytes (2.0: 120);
 *   - DAT_CNO_PARAM holds the agent itself (2.0: a proxy type and union);
 *   - several enums number their members differently (DAT_SRQ_STATE,
 *     DAT_RETURN_SUBTYPE after DAT_INVALID_HANDLE_SRQ, DAT_PZ_SUPPORT,
 *     the LMR, EP and CNO masks) and DAT_NOT_IMPLEMENTED is 0x0FFF0000.
 * DIFFERENCES-FROM-DAT2.md, next to this file, lists every difference.
 *
 * A file includes this API or DAT 2.0's (<dat2/udat.h>), never both: the
 * two declare the same names with different layouts.  Including
 * <dat/udat.h> after a <dat2/...> header stops at the #error below; the
 * other order fails on the first conflicting definition.
 *
 * The provider side of DAT 1.2 is not declared: there is no struct
 * dat_provider function table and no redirection macros (see
 * <dat/dat_registry.h>), because a 1.2 program calls the library, which
 * serves it from a DAT 2.0 provider.
 */

#ifndef _SOFTDAPL_DAT_UDAT_H_
#define _SOFTDAPL_DAT_UDAT_H_

#if defined(_DAT_PLATFORM_SPECIFIC_H_) || defined(_UDAT_H_) || defined(_DAT_H_)
#error "softdapl: <dat/udat.h> (DAT 1.2) and <dat2/udat.h> (DAT 2.0) cannot be included in the same file"
#endif

#include <dat/udat_config.h>
#include <dat/dat_platform_specific.h>
#include <stddef.h>		/* NULL, for DAT_HANDLE_NULL and DAT_OS_WAIT_PROXY_AGENT_NULL */

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Types that dat.h needs before it can be parsed                     */
/* ------------------------------------------------------------------ */

typedef enum dat_mem_type {
	DAT_MEM_TYPE_VIRTUAL		= 0x00,	/* plain virtual address */
	DAT_MEM_TYPE_LMR		= 0x01,	/* region of an existing LMR */
	DAT_MEM_TYPE_SHARED_VIRTUAL	= 0x02,	/* uDAPL only: shared memory */
	DAT_MEM_TYPE_SO_VIRTUAL		= 0x03	/* Solaris: strongly ordered */
} DAT_MEM_TYPE;

typedef enum dat_handle_type {
	DAT_HANDLE_TYPE_CR,
	DAT_HANDLE_TYPE_EP,
	DAT_HANDLE_TYPE_EVD,
	DAT_HANDLE_TYPE_IA,
	DAT_HANDLE_TYPE_LMR,
	DAT_HANDLE_TYPE_PSP,
	DAT_HANDLE_TYPE_PZ,
	DAT_HANDLE_TYPE_RMR,
	DAT_HANDLE_TYPE_RSP,
	DAT_HANDLE_TYPE_CNO,
	DAT_HANDLE_TYPE_SRQ
} DAT_HANDLE_TYPE;

/*
 * An EVD state is the OR of one value from each of three independent
 * groups: enabled/disabled, waitable/unwaitable, and the notification
 * configuration (0x10, 0x20 or 0x30).
 */
typedef enum dat_evd_state {
	DAT_EVD_STATE_ENABLED		= 0x01,
	DAT_EVD_STATE_DISABLED		= 0x02,
	DAT_EVD_STATE_WAITABLE		= 0x04,
	DAT_EVD_STATE_UNWAITABLE	= 0x08,
	DAT_EVD_STATE_CONFIG_NOTIFY	= 0x10,
	DAT_EVD_STATE_CONFIG_SOLICITED	= 0x20,
	DAT_EVD_STATE_CONFIG_THRESHOLD	= 0x30
} DAT_EVD_STATE;

typedef enum dat_evd_param_mask {
	DAT_EVD_FIELD_IA_HANDLE		= 0x01,
	DAT_EVD_FIELD_EVD_QLEN		= 0x02,
	DAT_EVD_FIELD_EVD_STATE		= 0x04,
	DAT_EVD_FIELD_CNO		= 0x08,
	DAT_EVD_FIELD_EVD_FLAGS		= 0x10,
	DAT_EVD_FIELD_ALL		= 0x1F
} DAT_EVD_PARAM_MASK;

typedef DAT_UINT64 DAT_PROVIDER_ATTR_MASK;

#include <dat/dat.h>

/* ------------------------------------------------------------------ */
/* Consumer notification objects (CNO) and EVD parameters             */
/* ------------------------------------------------------------------ */

typedef DAT_HANDLE DAT_CNO_HANDLE;

struct dat_evd_param {
	DAT_IA_HANDLE		ia_handle;
	DAT_COUNT		evd_qlen;
	DAT_EVD_STATE		evd_state;
	DAT_CNO_HANDLE		cno_handle;
	DAT_EVD_FLAGS		evd_flags;
};

/* Opaque token naming a shared memory region (DAT_MEM_TYPE_SHARED_VIRTUAL). */
#define DAT_LMR_COOKIE_SIZE	40
typedef char (*DAT_LMR_COOKIE)[DAT_LMR_COOKIE_SIZE];

/* Callback a CNO invokes when one of its EVDs becomes notifiable. */
typedef void (*DAT_AGENT_FUNC)(
	DAT_PVOID,			/* instance_data */
	DAT_EVD_HANDLE);		/* evd that fired */

typedef struct dat_os_wait_proxy_agent {
	DAT_PVOID		instance_data;
	DAT_AGENT_FUNC		proxy_agent_func;
} DAT_OS_WAIT_PROXY_AGENT;

/* "No agent": a compound literal, usable wherever an agent is passed. */
#define DAT_OS_WAIT_PROXY_AGENT_NULL					\
	(DAT_OS_WAIT_PROXY_AGENT) {					\
		(DAT_PVOID) NULL,					\
		(DAT_AGENT_FUNC) NULL					\
	}

/*
 * Special async EVD handle values.
 *
 * DAT_EVD_ASYNC_EXISTS is passed to dat_ia_open() by a consumer that opens
 * an IA which is already open elsewhere in the process and whose existing
 * async EVD should keep receiving the asynchronous errors; no new async
 * EVD is created.  dat_ia_query() on such an IA instance then reports
 * DAT_EVD_OUT_OF_SCOPE as its async EVD.
 */
#define DAT_EVD_ASYNC_EXISTS	((DAT_EVD_HANDLE) 0x1)
#define DAT_EVD_OUT_OF_SCOPE	((DAT_EVD_HANDLE) 0x2)

/* ------------------------------------------------------------------ */
/* Local memory regions (LMR)                                         */
/* ------------------------------------------------------------------ */

/* uDAPL only: a region shared between processes. */
typedef struct dat_shared_memory {
	DAT_PVOID		virtual_address;
	DAT_LMR_COOKIE		shared_memory_id;
} DAT_SHARED_MEMORY;

/* What to register; the member used is selected by DAT_MEM_TYPE. */
typedef union dat_region_description {
	DAT_PVOID		for_va;
	DAT_LMR_HANDLE		for_lmr_handle;
	DAT_SHARED_MEMORY	for_shared_memory;
} DAT_REGION_DESCRIPTION;

/* dat_lmr_query() result (2.0 adds va_type after mem_priv). */
struct dat_lmr_param {
	DAT_IA_HANDLE		ia_handle;
	DAT_MEM_TYPE		mem_type;
	DAT_REGION_DESCRIPTION	region_desc;
	DAT_VLEN		length;
	DAT_PZ_HANDLE		pz_handle;
	DAT_MEM_PRIV_FLAGS	mem_priv;
	DAT_LMR_CONTEXT		lmr_context;
	DAT_RMR_CONTEXT		rmr_context;
	DAT_VLEN		registered_size;
	DAT_VADDR		registered_address;
};

/* dat_cno_query() result: the agent itself (2.0: proxy type and union). */
typedef struct dat_cno_param {
	DAT_IA_HANDLE		ia_handle;
	DAT_OS_WAIT_PROXY_AGENT	agent;
} DAT_CNO_PARAM;

typedef enum dat_cno_param_mask {
	DAT_CNO_FIELD_IA_HANDLE	= 0x1,
	DAT_CNO_FIELD_AGENT	= 0x2,
	DAT_CNO_FIELD_ALL	= 0x3
} DAT_CNO_PARAM_MASK;

/* ------------------------------------------------------------------ */
/* Provider attributes                                                */
/* ------------------------------------------------------------------ */

/* (2.0 has no DAT_PZ_SAME: its DAT_PZ_SHAREABLE is 1, here 2.) */
typedef enum dat_pz_support {
	DAT_PZ_UNIQUE,
	DAT_PZ_SAME,
	DAT_PZ_SHAREABLE
} DAT_PZ_SUPPORT;

/*
 * evd_stream_merging_supported[i][j] is DAT_TRUE when event streams i and
 * j may feed the same EVD.  Index order follows DAT_EVD_FLAGS: 0 software,
 * 1 connection request, 2 DTO completion, 3 connection, 4 RMR bind,
 * 5 asynchronous.  The diagonal is always DAT_TRUE.
 */
struct dat_provider_attr {
	char			provider_name[DAT_NAME_MAX_LENGTH];
	DAT_UINT32		provider_version_major;
	DAT_UINT32		provider_version_minor;
	DAT_UINT32		dapl_version_major;
	DAT_UINT32		dapl_version_minor;
	DAT_MEM_TYPE		lmr_mem_types_supported;
	DAT_IOV_OWNERSHIP	iov_ownership_on_return;
	DAT_QOS			dat_qos_supported;
	DAT_COMPLETION_FLAGS	completion_flags_supported;
	DAT_BOOLEAN		is_thread_safe;
	DAT_COUNT		max_private_data_size;
	DAT_BOOLEAN		supports_multipath;
	DAT_EP_CREATOR_FOR_PSP	ep_creator;
	DAT_PZ_SUPPORT		pz_support;
	DAT_UINT32		optimal_buffer_alignment;
	const DAT_BOOLEAN	evd_stream_merging_supported[6][6];
	DAT_BOOLEAN		srq_supported;
	DAT_COUNT		srq_watermarks_supported;
	DAT_BOOLEAN		srq_ep_pz_difference_supported;
	DAT_COUNT		srq_info_supported;
	DAT_COUNT		ep_recv_info_supported;
	DAT_BOOLEAN		lmr_sync_req;
	DAT_BOOLEAN		dto_async_return_guaranteed;
	DAT_BOOLEAN		rdma_write_for_rdma_read_req;
	DAT_COUNT		num_provider_specific_attr;
	DAT_NAMED_ATTR		*provider_specific_attr;
};

/* DAT_PROVIDER_ATTR_MASK bits, one per field above in order. */
#define DAT_PROVIDER_FIELD_PROVIDER_NAME			UINT64_C(0x0000001)
#define DAT_PROVIDER_FIELD_PROVIDER_VERSION_MAJOR		UINT64_C(0x0000002)
#define DAT_PROVIDER_FIELD_PROVIDER_VERSION_MINOR		UINT64_C(0x0000004)
#define DAT_PROVIDER_FIELD_DAPL_VERSION_MAJOR			UINT64_C(0x0000008)
#define DAT_PROVIDER_FIELD_DAPL_VERSION_MINOR			UINT64_C(0x0000010)
#define DAT_PROVIDER_FIELD_LMR_MEM_TYPE_SUPPORTED		UINT64_C(0x0000020)
#define DAT_PROVIDER_FIELD_IOV_OWNERSHIP			UINT64_C(0x0000040)
#define DAT_PROVIDER_FIELD_DAT_QOS_SUPPORTED			UINT64_C(0x0000080)
#define DAT_PROVIDER_FIELD_COMPLETION_FLAGS_SUPPORTED		UINT64_C(0x0000100)
#define DAT_PROVIDER_FIELD_IS_THREAD_SAFE			UINT64_C(0x0000200)
#define DAT_PROVIDER_FIELD_MAX_PRIVATE_DATA_SIZE		UINT64_C(0x0000400)
#define DAT_PROVIDER_FIELD_SUPPORTS_MULTIPATH			UINT64_C(0x0000800)
#define DAT_PROVIDER_FIELD_EP_CREATOR				UINT64_C(0x0001000)
#define DAT_PROVIDER_FIELD_PZ_SUPPORT				UINT64_C(0x0002000)
#define DAT_PROVIDER_FIELD_OPTIMAL_BUFFER_ALIGNMENT		UINT64_C(0x0004000)
#define DAT_PROVIDER_FIELD_EVD_STREAM_MERGING_SUPPORTED		UINT64_C(0x0008000)
#define DAT_PROVIDER_FIELD_SRQ_SUPPORTED			UINT64_C(0x0010000)
#define DAT_PROVIDER_FIELD_SRQ_WATERMARKS_SUPPORTED		UINT64_C(0x0020000)
#define DAT_PROVIDER_FIELD_SRQ_EP_PZ_DIFFERENCE_SUPPORTED	UINT64_C(0x0040000)
#define DAT_PROVIDER_FIELD_SRQ_INFO_SUPPORTED			UINT64_C(0x0080000)
#define DAT_PROVIDER_FIELD_EP_RECV_INFO_SUPPORTED		UINT64_C(0x0100000)
#define DAT_PROVIDER_FIELD_LMR_SYNC_REQ				UINT64_C(0x0200000)
#define DAT_PROVIDER_FIELD_DTO_ASYNC_RETURN_GUARANTEED		UINT64_C(0x0400000)
#define DAT_PROVIDER_FIELD_RDMA_WRITE_FOR_RDMA_READ_REQ		UINT64_C(0x0800000)
#define DAT_PROVIDER_FIELD_NUM_PROVIDER_SPECIFIC_ATTR		UINT64_C(0x1000000)
#define DAT_PROVIDER_FIELD_PROVIDER_SPECIFIC_ATTR		UINT64_C(0x2000000)
#define DAT_PROVIDER_FIELD_ALL					UINT64_C(0x3FFFFFF)
#define DAT_PROVIDER_FIELD_NONE					UINT64_C(0x0)

#include <dat/udat_vendor_specific.h>

/* ------------------------------------------------------------------ */
/* User-level calls (the common ones are declared in dat.h)           */
/* ------------------------------------------------------------------ */

/* LMR (2.0 adds a DAT_VA_TYPE after the privileges). */
extern DAT_RETURN DAT_API dat_lmr_create(
	IN	DAT_IA_HANDLE,			/* ia_handle */
	IN	DAT_MEM_TYPE,			/* mem_type */
	IN	DAT_REGION_DESCRIPTION,		/* region_description */
	IN	DAT_VLEN,			/* length */
	IN	DAT_PZ_HANDLE,			/* pz_handle */
	IN	DAT_MEM_PRIV_FLAGS,		/* privileges */
	OUT	DAT_LMR_HANDLE *,		/* lmr_handle */
	OUT	DAT_LMR_CONTEXT *,		/* lmr_context */
	OUT	DAT_RMR_CONTEXT *,		/* rmr_context */
	OUT	DAT_VLEN *,			/* registered_length */
	OUT	DAT_VADDR *);			/* registered_address */

/* EVD */

extern DAT_RETURN DAT_API dat_evd_create(
	IN	DAT_IA_HANDLE,			/* ia_handle */
	IN	DAT_COUNT,			/* evd_min_qlen */
	IN	DAT_CNO_HANDLE,			/* cno_handle */
	IN	DAT_EVD_FLAGS,			/* evd_flags */
	OUT	DAT_EVD_HANDLE *);		/* evd_handle */

extern DAT_RETURN DAT_API dat_evd_modify_cno(
	IN	DAT_EVD_HANDLE,			/* evd_handle */
	IN	DAT_CNO_HANDLE);		/* cno_handle */

/* CNO */

extern DAT_RETURN DAT_API dat_cno_create(
	IN	DAT_IA_HANDLE,			/* ia_handle */
	IN	DAT_OS_WAIT_PROXY_AGENT,	/* agent */
	OUT	DAT_CNO_HANDLE *);		/* cno_handle */

extern DAT_RETURN DAT_API dat_cno_modify_agent(
	IN	DAT_CNO_HANDLE,			/* cno_handle */
	IN	DAT_OS_WAIT_PROXY_AGENT);	/* agent */

extern DAT_RETURN DAT_API dat_cno_query(
	IN	DAT_CNO_HANDLE,			/* cno_handle */
	IN	DAT_CNO_PARAM_MASK,		/* cno_param_mask */
	OUT	DAT_CNO_PARAM *);		/* cno_param */

extern DAT_RETURN DAT_API dat_cno_free(
	IN	DAT_CNO_HANDLE);		/* cno_handle */

extern DAT_RETURN DAT_API dat_cno_wait(
	IN	DAT_CNO_HANDLE,			/* cno_handle */
	IN	DAT_TIMEOUT,			/* timeout */
	OUT	DAT_EVD_HANDLE *);		/* evd that triggered */

/* EVD waiting and enabling */

extern DAT_RETURN DAT_API dat_evd_enable(
	IN	DAT_EVD_HANDLE);		/* evd_handle */

extern DAT_RETURN DAT_API dat_evd_wait(
	IN	DAT_EVD_HANDLE,			/* evd_handle */
	IN	DAT_TIMEOUT,			/* timeout */
	IN	DAT_COUNT,			/* threshold */
	OUT	DAT_EVENT *,			/* event */
	OUT	DAT_COUNT *);			/* nmore: events still queued */

extern DAT_RETURN DAT_API dat_evd_disable(
	IN	DAT_EVD_HANDLE);		/* evd_handle */

extern DAT_RETURN DAT_API dat_evd_set_unwaitable(
	IN	DAT_EVD_HANDLE);		/* evd_handle */

extern DAT_RETURN DAT_API dat_evd_clear_unwaitable(
	IN	DAT_EVD_HANDLE);		/* evd_handle */

#ifdef __cplusplus
}
#endif

#endif /* _SOFTDAPL_DAT_UDAT_H_ */
