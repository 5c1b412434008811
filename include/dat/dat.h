/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl: <dat/dat.h>
 *
 * The part of the DAT 1.2 API shared by user (uDAT) and kernel (kDAT)
 * consumers: handles, flags, memory triplets, the attribute and parameter
 * structures of IAs, Endpoints, SRQs and service points, events, and the
 * prototypes of the common calls.
 *
 * Do not include this header directly; include <dat/udat.h>, which sets
 * up the configuration and the uDAT-only types this file refers to
 * (DAT_HANDLE_TYPE, DAT_EVD_PARAM_MASK, DAT_PROVIDER_ATTR_MASK) before
 * including it.
 */

#ifndef _SOFTDAPL_DAT_DAT_H_
#define _SOFTDAPL_DAT_DAT_H_

#include <dat/dat_error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================== */
/* Basic types                                                         */
/* ================================================================== */

typedef char *DAT_NAME_PTR;		/* IA / attribute name (C string) */
#define DAT_NAME_MAX_LENGTH	256	/* bytes, including the NUL */

/* A (name, value) string pair for transport/provider/vendor attributes. */
typedef struct dat_named_attr {
	const char	*name;
	const char	*value;
} DAT_NAMED_ATTR;

typedef enum dat_boolean {
	DAT_FALSE	= 0,
	DAT_TRUE	= 1
} DAT_BOOLEAN;

/* 64 bits of consumer data carried opaquely through DAT. */
typedef union dat_context {
	DAT_PVOID	as_ptr;
	DAT_UINT64	as_64;
	DAT_UVERYLONG	as_index;
} DAT_CONTEXT;

typedef DAT_CONTEXT	DAT_DTO_COOKIE;	/* returned in a DTO completion */
typedef DAT_CONTEXT	DAT_RMR_COOKIE;	/* returned in an RMR bind completion */

/* Per-operation completion control for posted DTOs and binds. */
typedef enum dat_completion_flags {
	DAT_COMPLETION_DEFAULT_FLAG		= 0x00, /* always report */
	DAT_COMPLETION_SUPPRESS_FLAG		= 0x01, /* report only on error */
	DAT_COMPLETION_SOLICITED_WAIT_FLAG	= 0x02, /* sender asks the receiver to be woken */
	DAT_COMPLETION_UNSIGNALLED_FLAG		= 0x04, /* report without notification */
	DAT_COMPLETION_BARRIER_FENCE_FLAG	= 0x08, /* wait for earlier RDMA Reads first */
	/* uDAPL EP receive attribute: wake-up governed by the
	 * dat_evd_wait() threshold; excludes UNSIGNALLED receives. */
	DAT_COMPLETION_EVD_THRESHOLD_FLAG	= 0x10
} DAT_COMPLETION_FLAGS;

typedef DAT_UINT32 DAT_TIMEOUT;		/* microseconds */
#define DAT_TIMEOUT_INFINITE	((DAT_TIMEOUT) ~0)

/* Object handles: opaque pointers owned by the provider. */
typedef DAT_PVOID	DAT_HANDLE;
typedef DAT_HANDLE	DAT_CR_HANDLE;	/* connection request */
typedef DAT_HANDLE	DAT_EP_HANDLE;	/* endpoint */
typedef DAT_HANDLE	DAT_EVD_HANDLE;	/* event dispatcher */
typedef DAT_HANDLE	DAT_IA_HANDLE;	/* interface adapter */
typedef DAT_HANDLE	DAT_LMR_HANDLE;	/* local memory region */
typedef DAT_HANDLE	DAT_PSP_HANDLE;	/* public service point */
typedef DAT_HANDLE	DAT_PZ_HANDLE;	/* protection zone */
typedef DAT_HANDLE	DAT_RMR_HANDLE;	/* remote memory region */
typedef DAT_HANDLE	DAT_RSP_HANDLE;	/* reserved service point */
typedef DAT_HANDLE	DAT_SRQ_HANDLE;	/* shared receive queue */

#define DAT_HANDLE_NULL	((DAT_HANDLE)NULL)

/* Network addressing. */
typedef DAT_SOCK_ADDR	*DAT_IA_ADDRESS_PTR;	/* sockaddr of any family */
typedef DAT_UINT64	DAT_CONN_QUAL;		/* service id (e.g. port) to connect to */
typedef DAT_UINT64	DAT_PORT_QUAL;		/* port of an established connection */

/* Requested quality of service. */
typedef enum dat_qos {
	DAT_QOS_BEST_EFFORT	= 0x00,
	DAT_QOS_HIGH_THROUGHPUT	= 0x01,
	DAT_QOS_LOW_LATENCY	= 0x02,
	DAT_QOS_ECONOMY		= 0x04,	/* neither of the two above */
	DAT_QOS_PREMIUM		= 0x08	/* both of the two above */
} DAT_QOS;

/* dat_ep_connect() flags. */
typedef enum dat_connect_flags {
	DAT_CONNECT_DEFAULT_FLAG	= 0x00,
	DAT_CONNECT_MULTIPATH_FLAG	= 0x01	/* multipath requested */
} DAT_CONNECT_FLAGS;

/* dat_ep_disconnect() / dat_ia_close() flags. */
typedef enum dat_close_flags {
	DAT_CLOSE_ABRUPT_FLAG	= 0x00,
	DAT_CLOSE_GRACEFUL_FLAG	= 0x01
} DAT_CLOSE_FLAGS;

#define DAT_CLOSE_DEFAULT	DAT_CLOSE_ABRUPT_FLAG

/* Event streams an EVD accepts (dat_evd_create()). */
typedef enum dat_evd_flags {
	DAT_EVD_SOFTWARE_FLAG	= 0x001,
	DAT_EVD_CR_FLAG		= 0x010,
	DAT_EVD_DTO_FLAG	= 0x020,
	DAT_EVD_CONNECTION_FLAG	= 0x040,
	DAT_EVD_RMR_BIND_FLAG	= 0x080,
	DAT_EVD_ASYNC_FLAG	= 0x100,
	DAT_EVD_DEFAULT_FLAG	= 0x1F0	/* all DAT streams, no software events */
} DAT_EVD_FLAGS;

/* Who supplies the Endpoint for connections arriving at a PSP. */
typedef enum dat_psp_flags {
	DAT_PSP_CONSUMER_FLAG	= 0x00,	/* consumer passes one to accept */
	DAT_PSP_PROVIDER_FLAG	= 0x01	/* provider creates one per request */
} DAT_PSP_FLAGS;

/* ================================================================== */
/* Memory                                                              */
/* ================================================================== */

/*
 * Triplets name a buffer segment by region context, 64-bit virtual
 * address and 64-bit length, in host byte order whatever the pointer
 * width; the pad keeps address and length 8-byte aligned.  A
 * segment_length of 0 makes the other fields don't-care.  Buffers aligned
 * to the provider's optimal alignment transfer fastest.
 *
 * This is the DAT 1.2 layout (24 bytes: context, pad, address, length);
 * DAT 2.0's triplets are 16 bytes (address, 32-bit length, context).
 */
typedef DAT_UINT32	DAT_LMR_CONTEXT;	/* local key */
typedef DAT_UINT32	DAT_RMR_CONTEXT;	/* remote key */
typedef DAT_UINT64	DAT_VLEN;		/* region or segment length */
typedef DAT_UINT64	DAT_VADDR;		/* virtual address */

/* Defined in <dat/udat.h>. */
typedef struct dat_provider_attr	DAT_PROVIDER_ATTR;
typedef struct dat_evd_param		DAT_EVD_PARAM;
typedef struct dat_lmr_param		DAT_LMR_PARAM;

/* Local scatter/gather element. */
typedef struct dat_lmr_triplet {
	DAT_LMR_CONTEXT	lmr_context;	/* of the LMR covering the segment */
	DAT_UINT32	pad;
	DAT_VADDR	virtual_address;
	DAT_VLEN	segment_length;
} DAT_LMR_TRIPLET;

/* Remote buffer description, as exchanged with the peer. */
typedef struct dat_rmr_triplet {
	DAT_RMR_CONTEXT	rmr_context;	/* of the LMR/RMR exposing the segment */
	DAT_UINT32	pad;
	DAT_VADDR	target_address;	/* 2.0: virtual_address */
	DAT_VLEN	segment_length;
} DAT_RMR_TRIPLET;

/* Access rights of a memory region. */
typedef enum dat_mem_priv_flags {
	DAT_MEM_PRIV_NONE_FLAG		= 0x00,
	DAT_MEM_PRIV_LOCAL_READ_FLAG	= 0x01,
	DAT_MEM_PRIV_REMOTE_READ_FLAG	= 0x02,
	DAT_MEM_PRIV_LOCAL_WRITE_FLAG	= 0x10,
	DAT_MEM_PRIV_REMOTE_WRITE_FLAG	= 0x20,
	DAT_MEM_PRIV_ALL_FLAG		= 0x33,
	/* Solaris: register with relaxed ordering disabled. */
	DAT_MEM_PRIV_RO_DISABLE_FLAG	= 0x100
} DAT_MEM_PRIV_FLAGS;

/* DAT 1.0 combined rights. */
#define DAT_MEM_PRIV_READ_FLAG	\
	(DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_REMOTE_READ_FLAG)
#define DAT_MEM_PRIV_WRITE_FLAG	\
	(DAT_MEM_PRIV_LOCAL_WRITE_FLAG | DAT_MEM_PRIV_REMOTE_WRITE_FLAG)

/* Bits selecting DAT_LMR_PARAM fields in dat_lmr_query(). */
typedef enum dat_lmr_param_mask {
	DAT_LMR_FIELD_IA_HANDLE			= 0x001,
	DAT_LMR_FIELD_MEM_TYPE			= 0x002,
	DAT_LMR_FIELD_REGION_DESC		= 0x004,
	DAT_LMR_FIELD_LENGTH			= 0x008,
	DAT_LMR_FIELD_PZ_HANDLE			= 0x010,
	DAT_LMR_FIELD_MEM_PRIV			= 0x020,
	DAT_LMR_FIELD_LMR_CONTEXT		= 0x040,
	DAT_LMR_FIELD_RMR_CONTEXT		= 0x080,
	DAT_LMR_FIELD_REGISTERED_SIZE		= 0x100,
	DAT_LMR_FIELD_REGISTERED_ADDRESS	= 0x200,
	DAT_LMR_FIELD_ALL			= 0x3FF
} DAT_LMR_PARAM_MASK;

/* dat_rmr_query() result. */
typedef struct dat_rmr_param {
	DAT_IA_HANDLE		ia_handle;
	DAT_PZ_HANDLE		pz_handle;
	DAT_LMR_TRIPLET		lmr_triplet;	/* currently bound segment */
	DAT_MEM_PRIV_FLAGS	mem_priv;
	DAT_RMR_CONTEXT		rmr_context;	/* remote key of the binding */
} DAT_RMR_PARAM;

typedef enum dat_rmr_param_mask {
	DAT_RMR_FIELD_IA_HANDLE		= 0x01,
	DAT_RMR_FIELD_PZ_HANDLE		= 0x02,
	DAT_RMR_FIELD_LMR_TRIPLET	= 0x04,
	DAT_RMR_FIELD_MEM_PRIV		= 0x08,
	DAT_RMR_FIELD_RMR_CONTEXT	= 0x10,
	DAT_RMR_FIELD_ALL		= 0x1F
} DAT_RMR_PARAM_MASK;

/* ================================================================== */
/* Interface Adapter attributes                                        */
/* ================================================================== */

/* Whether the provider touches an IOV after the DTO completes. */
typedef enum dat_iov_ownership {
	DAT_IOV_CONSUMER	= 0x0,	/* reusable as soon as the post returns */
	DAT_IOV_PROVIDER_NOMOD	= 0x1,	/* in use until completion, left unchanged */
	DAT_IOV_PROVIDER_MOD	= 0x2	/* in use until completion, may be changed */
} DAT_IOV_OWNERSHIP;

/* Provider's ability to create Endpoints for PSP connection requests. */
typedef enum dat_ep_creator_for_psp {
	DAT_PSP_CREATES_EP_NEVER,
	DAT_PSP_CREATES_EP_IFASKED,	/* when DAT_PSP_PROVIDER_FLAG is given */
	DAT_PSP_CREATES_EP_ALWAYS
} DAT_EP_CREATOR_FOR_PSP;

/*
 * Older (DAT 1.0 and 1.1) spellings of renamed IA attribute fields.  The
 * two lower-case names are object-like macros: they rename any identifier
 * spelled that way in the including source.
 */
#define max_rdma_read_per_ep	max_rdma_read_per_ep_in
#define max_mtu_size		max_message_size
/*
 * As in the DAT 1.2 headers, this expands to two tokens that name
 * nothing: it never compiled where used, and is kept for #ifdef only.
 */
#define DAT_IA_FIELD_IA_MAX_DTO_PER_OP	DAT_IA_FIELD_IA_ MAX_DTO_PER_EP_IN

/*
 * dat_ia_query() result.  The lengths are 64-bit DAT_VLEN (2.0: 32-bit
 * DAT_SEG_LENGTH), and 2.0's zb_supported, extension_supported and
 * extension_version do not exist.
 */
typedef struct dat_ia_attr {
	char			adapter_name[DAT_NAME_MAX_LENGTH];
	char			vendor_name[DAT_NAME_MAX_LENGTH];
	DAT_UINT32		hardware_version_major;
	DAT_UINT32		hardware_version_minor;
	DAT_UINT32		firmware_version_major;
	DAT_UINT32		firmware_version_minor;
	DAT_IA_ADDRESS_PTR	ia_address_ptr;
	DAT_COUNT		max_eps;
	DAT_COUNT		max_dto_per_ep;
	DAT_COUNT		max_rdma_read_per_ep_in;
	DAT_COUNT		max_rdma_read_per_ep_out;
	DAT_COUNT		max_evds;
	DAT_COUNT		max_evd_qlen;
	DAT_COUNT		max_iov_segments_per_dto;
	DAT_COUNT		max_lmrs;
	DAT_VLEN		max_lmr_block_size;
	DAT_VADDR		max_lmr_virtual_address;
	DAT_COUNT		max_pzs;
	DAT_VLEN		max_message_size;
	DAT_VLEN		max_rdma_size;
	DAT_COUNT		max_rmrs;
	DAT_VADDR		max_rmr_target_address;
	DAT_COUNT		max_srqs;
	DAT_COUNT		max_ep_per_srq;
	DAT_COUNT		max_recv_per_srq;
	DAT_COUNT		max_iov_segments_per_rdma_read;
	DAT_COUNT		max_iov_segments_per_rdma_write;
	DAT_COUNT		max_rdma_read_in;
	DAT_COUNT		max_rdma_read_out;
	DAT_BOOLEAN		max_rdma_read_per_ep_in_guaranteed;
	DAT_BOOLEAN		max_rdma_read_per_ep_out_guaranteed;
	DAT_COUNT		num_transport_attr;
	DAT_NAMED_ATTR		*transport_attr;
	DAT_COUNT		num_vendor_attr;
	DAT_NAMED_ATTR		*vendor_attr;
} DAT_IA_ATTR;

/* Older spelling of the max_message_size bit. */
#define DAT_IA_FIELD_IA_MAX_MTU_SIZE		DAT_IA_FIELD_IA_MAX_MESSAGE_SIZE

/* Bits selecting DAT_IA_ATTR fields in dat_ia_query(), one per field. */
typedef DAT_UINT64 DAT_IA_ATTR_MASK;

#define DAT_IA_FIELD_IA_ADAPTER_NAME				UINT64_C(0x000000001)
#define DAT_IA_FIELD_IA_VENDOR_NAME				UINT64_C(0x000000002)
#define DAT_IA_FIELD_IA_HARDWARE_MAJOR_VERSION			UINT64_C(0x000000004)
#define DAT_IA_FIELD_IA_HARDWARE_MINOR_VERSION			UINT64_C(0x000000008)
#define DAT_IA_FIELD_IA_FIRMWARE_MAJOR_VERSION			UINT64_C(0x000000010)
#define DAT_IA_FIELD_IA_FIRMWARE_MINOR_VERSION			UINT64_C(0x000000020)
#define DAT_IA_FIELD_IA_ADDRESS_PTR				UINT64_C(0x000000040)
#define DAT_IA_FIELD_IA_MAX_EPS					UINT64_C(0x000000080)
#define DAT_IA_FIELD_IA_MAX_DTO_PER_EP				UINT64_C(0x000000100)
#define DAT_IA_FIELD_IA_MAX_RDMA_READ_PER_EP_IN			UINT64_C(0x000000200)
#define DAT_IA_FIELD_IA_MAX_RDMA_READ_PER_EP_OUT		UINT64_C(0x000000400)
#define DAT_IA_FIELD_IA_MAX_EVDS				UINT64_C(0x000000800)
#define DAT_IA_FIELD_IA_MAX_EVD_QLEN				UINT64_C(0x000001000)
#define DAT_IA_FIELD_IA_MAX_IOV_SEGMENTS_PER_DTO		UINT64_C(0x000002000)
#define DAT_IA_FIELD_IA_MAX_LMRS				UINT64_C(0x000004000)
#define DAT_IA_FIELD_IA_MAX_LMR_BLOCK_SIZE			UINT64_C(0x000008000)
#define DAT_IA_FIELD_IA_MAX_LMR_VIRTUAL_ADDRESS			UINT64_C(0x000010000)
#define DAT_IA_FIELD_IA_MAX_PZS					UINT64_C(0x000020000)
#define DAT_IA_FIELD_IA_MAX_MESSAGE_SIZE			UINT64_C(0x000040000)
#define DAT_IA_FIELD_IA_MAX_RDMA_SIZE				UINT64_C(0x000080000)
#define DAT_IA_FIELD_IA_MAX_RMRS				UINT64_C(0x000100000)
#define DAT_IA_FIELD_IA_MAX_RMR_TARGET_ADDRESS			UINT64_C(0x000200000)
#define DAT_IA_FIELD_IA_MAX_SRQS				UINT64_C(0x000400000)
#define DAT_IA_FIELD_IA_MAX_EP_PER_SRQ				UINT64_C(0x000800000)
#define DAT_IA_FIELD_IA_MAX_RECV_PER_SRQ			UINT64_C(0x001000000)
#define DAT_IA_FIELD_IA_MAX_IOV_SEGMENTS_PER_RDMA_READ		UINT64_C(0x002000000)
#define DAT_IA_FIELD_IA_MAX_IOV_SEGMENTS_PER_RDMA_WRITE		UINT64_C(0x004000000)
#define DAT_IA_FIELD_IA_MAX_RDMA_READ_IN			UINT64_C(0x008000000)
#define DAT_IA_FIELD_IA_MAX_RDMA_READ_OUT			UINT64_C(0x010000000)
#define DAT_IA_FIELD_IA_MAX_RDMA_READ_PER_EP_IN_GUARANTEED	UINT64_C(0x020000000)
#define DAT_IA_FIELD_IA_MAX_RDMA_READ_PER_EP_OUT_GUARANTEED	UINT64_C(0x040000000)
#define DAT_IA_FIELD_IA_NUM_TRANSPORT_ATTR			UINT64_C(0x080000000)
#define DAT_IA_FIELD_IA_TRANSPORT_ATTR				UINT64_C(0x100000000)
#define DAT_IA_FIELD_IA_NUM_VENDOR_ATTR				UINT64_C(0x200000000)
#define DAT_IA_FIELD_IA_VENDOR_ATTR				UINT64_C(0x400000000)

/* Every field, none, and the DAT 1.0/1.1 spelling of "every field". */
#define DAT_IA_ALL						DAT_IA_FIELD_ALL
#define DAT_IA_FIELD_ALL					UINT64_C(0x7FFFFFFFF)
#define DAT_IA_FIELD_NONE					UINT64_C(0x0)

/* ================================================================== */
/* Endpoints                                                           */
/* ================================================================== */

typedef enum dat_service_type {
	DAT_SERVICE_TYPE_RC		/* reliable connected */
} DAT_SERVICE_TYPE;

/*
 * Endpoint attributes: requested at creation, reported by query.  The
 * two sizes are 64-bit DAT_VLEN (2.0: 32-bit DAT_SEG_LENGTH).
 */
typedef struct dat_ep_attr {
	DAT_SERVICE_TYPE	service_type;
	DAT_VLEN		max_message_size;	/* bytes per send/recv */
	DAT_VLEN		max_rdma_size;		/* bytes per RDMA op */
	DAT_QOS			qos;
	DAT_COMPLETION_FLAGS	recv_completion_flags;	/* allowed on receives */
	DAT_COMPLETION_FLAGS	request_completion_flags; /* allowed on requests */
	DAT_COUNT		max_recv_dtos;		/* receive queue depth */
	DAT_COUNT		max_request_dtos;	/* request queue depth */
	DAT_COUNT		max_recv_iov;		/* segments per receive */
	DAT_COUNT		max_request_iov;	/* segments per request */
	DAT_COUNT		max_rdma_read_in;	/* RDMA Reads as target */
	DAT_COUNT		max_rdma_read_out;	/* RDMA Reads as initiator */
	DAT_COUNT		srq_soft_hw;		/* SRQ soft high watermark */
	DAT_COUNT		max_rdma_read_iov;	/* segments per RDMA Read */
	DAT_COUNT		max_rdma_write_iov;	/* segments per RDMA Write */
	DAT_COUNT		ep_transport_specific_count;
	DAT_NAMED_ATTR		*ep_transport_specific;	/* array of the above count */
	DAT_COUNT		ep_provider_specific_count;
	DAT_NAMED_ATTR		*ep_provider_specific;	/* array of the above count */
} DAT_EP_ATTR;

/* Older name of the disconnected state. */
#define DAT_EP_STATE_ERROR	DAT_EP_STATE_DISCONNECTED

/*
 * Endpoint life cycle.  The UNCONFIGURED_* variants are the same states
 * for an Endpoint that still lacks its PZ or EVDs (e.g. one the provider
 * created for a PSP).
 */
typedef enum dat_ep_state {
	DAT_EP_STATE_UNCONNECTED,		/* idle, ready to connect */
	DAT_EP_STATE_UNCONFIGURED_UNCONNECTED,
	DAT_EP_STATE_RESERVED,			/* bound to an RSP */
	DAT_EP_STATE_UNCONFIGURED_RESERVED,
	DAT_EP_STATE_PASSIVE_CONNECTION_PENDING, /* accepting a request */
	DAT_EP_STATE_UNCONFIGURED_PASSIVE,
	DAT_EP_STATE_ACTIVE_CONNECTION_PENDING,	/* dat_ep_connect() issued */
	DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING, /* request pending accept/reject */
	DAT_EP_STATE_UNCONFIGURED_TENTATIVE,
	DAT_EP_STATE_CONNECTED,
	DAT_EP_STATE_DISCONNECT_PENDING,
	DAT_EP_STATE_DISCONNECTED,
	DAT_EP_STATE_COMPLETION_PENDING
} DAT_EP_STATE;

/* dat_ep_query() / dat_ep_modify() parameters (2.0 adds comm). */
typedef struct dat_ep_param {
	DAT_IA_HANDLE		ia_handle;
	DAT_EP_STATE		ep_state;
	DAT_IA_ADDRESS_PTR	local_ia_address_ptr;
	DAT_PORT_QUAL		local_port_qual;
	DAT_IA_ADDRESS_PTR	remote_ia_address_ptr;	/* valid once connected */
	DAT_PORT_QUAL		remote_port_qual;
	DAT_PZ_HANDLE		pz_handle;
	DAT_EVD_HANDLE		recv_evd_handle;	/* receive completions */
	DAT_EVD_HANDLE		request_evd_handle;	/* send/RDMA/bind completions */
	DAT_EVD_HANDLE		connect_evd_handle;	/* connection events */
	DAT_SRQ_HANDLE		srq_handle;		/* DAT_HANDLE_NULL without SRQ */
	DAT_EP_ATTR		ep_attr;
} DAT_EP_PARAM;

/* Bits selecting DAT_EP_PARAM fields; ep_attr fields start at 0x1000. */
typedef DAT_UINT64 DAT_EP_PARAM_MASK;

#define DAT_EP_FIELD_IA_HANDLE				UINT64_C(0x00000001)
#define DAT_EP_FIELD_EP_STATE				UINT64_C(0x00000002)
#define DAT_EP_FIELD_LOCAL_IA_ADDRESS_PTR		UINT64_C(0x00000004)
#define DAT_EP_FIELD_LOCAL_PORT_QUAL			UINT64_C(0x00000008)
#define DAT_EP_FIELD_REMOTE_IA_ADDRESS_PTR		UINT64_C(0x00000010)
#define DAT_EP_FIELD_REMOTE_PORT_QUAL			UINT64_C(0x00000020)
#define DAT_EP_FIELD_PZ_HANDLE				UINT64_C(0x00000040)
#define DAT_EP_FIELD_RECV_EVD_HANDLE			UINT64_C(0x00000080)
#define DAT_EP_FIELD_REQUEST_EVD_HANDLE			UINT64_C(0x00000100)
#define DAT_EP_FIELD_CONNECT_EVD_HANDLE			UINT64_C(0x00000200)
#define DAT_EP_FIELD_SRQ_HANDLE				UINT64_C(0x00000400)
#define DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE		UINT64_C(0x00001000)
#define DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE		UINT64_C(0x00002000)
#define DAT_EP_FIELD_EP_ATTR_MAX_RDMA_SIZE		UINT64_C(0x00004000)
#define DAT_EP_FIELD_EP_ATTR_QOS			UINT64_C(0x00008000)
#define DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS	UINT64_C(0x00010000)
#define DAT_EP_FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS	UINT64_C(0x00020000)
#define DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS		UINT64_C(0x00040000)
#define DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_DTOS		UINT64_C(0x00080000)
#define DAT_EP_FIELD_EP_ATTR_MAX_RECV_IOV		UINT64_C(0x00100000)
#define DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV		UINT64_C(0x00200000)
#define DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IN		UINT64_C(0x00400000)
#define DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_OUT		UINT64_C(0x00800000)
#define DAT_EP_FIELD_EP_ATTR_SRQ_SOFT_HW		UINT64_C(0x01000000)
#define DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IOV		UINT64_C(0x02000000)
#define DAT_EP_FIELD_EP_ATTR_MAX_RDMA_WRITE_IOV		UINT64_C(0x04000000)
#define DAT_EP_FIELD_EP_ATTR_NUM_TRANSPORT_ATTR		UINT64_C(0x08000000)
#define DAT_EP_FIELD_EP_ATTR_TRANSPORT_SPECIFIC_ATTR	UINT64_C(0x10000000)
#define DAT_EP_FIELD_EP_ATTR_NUM_PROVIDER_ATTR		UINT64_C(0x20000000)
#define DAT_EP_FIELD_EP_ATTR_PROVIDER_SPECIFIC_ATTR	UINT64_C(0x40000000)
#define DAT_EP_FIELD_EP_ATTR_ALL			UINT64_C(0x7FFFF000)
#define DAT_EP_FIELD_ALL				UINT64_C(0x7FFFF7FF)

/* Watermark values (dat_ep_set_watermark(), srq_soft_hw). */
#define DAT_WATERMARK_INFINITE	((DAT_COUNT)~0)		/* -1: never fires */
#define DAT_HW_DEFAULT		DAT_WATERMARK_INFINITE
#define DAT_SRQ_LW_DEFAULT	0x0

/* ================================================================== */
/* Shared Receive Queues                                               */
/* ================================================================== */

/* Note the order: OPERATIONAL is 0 here, 1 in DAT 2.0. */
typedef enum dat_srq_state {
	DAT_SRQ_STATE_OPERATIONAL,
	DAT_SRQ_STATE_ERROR
} DAT_SRQ_STATE;

/* A count the provider cannot determine (-2). */
#define DAT_VALUE_UNKNOWN	(((DAT_COUNT) ~0)-1)

/* dat_srq_create() attributes. */
typedef struct dat_srq_attr {
	DAT_COUNT	max_recv_dtos;	/* queue depth */
	DAT_COUNT	max_recv_iov;	/* segments per receive */
	DAT_COUNT	low_watermark;	/* posted-buffer level that raises an event */
} DAT_SRQ_ATTR;

/* dat_srq_query() result. */
typedef struct dat_srq_param {
	DAT_IA_HANDLE	ia_handle;
	DAT_SRQ_STATE	srq_state;
	DAT_PZ_HANDLE	pz_handle;
	DAT_COUNT	max_recv_dtos;
	DAT_COUNT	max_recv_iov;
	DAT_COUNT	low_watermark;
	DAT_COUNT	available_dto_count;	/* posted, not yet consumed */
	DAT_COUNT	outstanding_dto_count;	/* posted, not yet completed */
} DAT_SRQ_PARAM;

typedef enum dat_srq_param_mask {
	DAT_SRQ_FIELD_IA_HANDLE			= 0x001,
	DAT_SRQ_FIELD_SRQ_STATE			= 0x002,
	DAT_SRQ_FIELD_PZ_HANDLE			= 0x004,
	DAT_SRQ_FIELD_MAX_RECV_DTO		= 0x008,
	DAT_SRQ_FIELD_MAX_RECV_IOV		= 0x010,
	DAT_SRQ_FIELD_LOW_WATERMARK		= 0x020,
	DAT_SRQ_FIELD_AVAILABLE_DTO_COUNT	= 0x040,
	DAT_SRQ_FIELD_OUTSTANDING_DTO_COUNT	= 0x080,
	DAT_SRQ_FIELD_ALL			= 0x0FF
} DAT_SRQ_PARAM_MASK;

/* ================================================================== */
/* Protection Zones and service points                                 */
/* ================================================================== */

typedef struct dat_pz_param {
	DAT_IA_HANDLE	ia_handle;
} DAT_PZ_PARAM;

typedef enum dat_pz_param_mask {
	DAT_PZ_FIELD_IA_HANDLE	= 0x01,
	DAT_PZ_FIELD_ALL	= 0x01
} DAT_PZ_PARAM_MASK;

/* Public Service Point: listens on a connection qualifier. */
typedef struct dat_psp_param {
	DAT_IA_HANDLE	ia_handle;
	DAT_CONN_QUAL	conn_qual;
	DAT_EVD_HANDLE	evd_handle;	/* receives connection requests */
	DAT_PSP_FLAGS	psp_flags;
} DAT_PSP_PARAM;

typedef enum dat_psp_param_mask {
	DAT_PSP_FIELD_IA_HANDLE		= 0x01,
	DAT_PSP_FIELD_CONN_QUAL		= 0x02,
	DAT_PSP_FIELD_EVD_HANDLE	= 0x04,
	DAT_PSP_FIELD_PSP_FLAGS		= 0x08,
	DAT_PSP_FIELD_ALL		= 0x0F
} DAT_PSP_PARAM_MASK;

/* Reserved Service Point: one request, for one preassigned Endpoint. */
typedef struct dat_rsp_param {
	DAT_IA_HANDLE	ia_handle;
	DAT_CONN_QUAL	conn_qual;
	DAT_EVD_HANDLE	evd_handle;	/* receives the connection request */
	DAT_EP_HANDLE	ep_handle;	/* the reserved Endpoint */
} DAT_RSP_PARAM;

typedef enum dat_rsp_param_mask {
	DAT_RSP_FIELD_IA_HANDLE		= 0x01,
	DAT_RSP_FIELD_CONN_QUAL		= 0x02,
	DAT_RSP_FIELD_EVD_HANDLE	= 0x04,
	DAT_RSP_FIELD_EP_HANDLE		= 0x08,
	DAT_RSP_FIELD_ALL		= 0x0F
} DAT_RSP_PARAM_MASK;

/* ================================================================== */
/* Connection Requests                                                 */
/* ================================================================== */

/*
 * dat_cr_query() result.  Attributes of the remote Endpoint are not
 * reported; peers that need them exchange them in private data.
 */
typedef struct dat_cr_param {
	DAT_IA_ADDRESS_PTR	remote_ia_address_ptr;	/* requesting IA */
	DAT_PORT_QUAL		remote_port_qual;	/* requesting Endpoint's port */
	DAT_COUNT		private_data_size;	/* bytes at private_data */
	DAT_PVOID		private_data;		/* sent with the request */
	/* Endpoint preassigned by the service point (RSP, or PSP with
	 * DAT_PSP_PROVIDER_FLAG), else DAT_HANDLE_NULL. */
	DAT_EP_HANDLE		local_ep_handle;
} DAT_CR_PARAM;

typedef enum dat_cr_param_mask {
	DAT_CR_FIELD_REMOTE_IA_ADDRESS_PTR	= 0x01,
	DAT_CR_FIELD_REMOTE_PORT_QUAL		= 0x02,
	DAT_CR_FIELD_PRIVATE_DATA_SIZE		= 0x04,
	DAT_CR_FIELD_PRIVATE_DATA		= 0x08,
	DAT_CR_FIELD_LOCAL_EP_HANDLE		= 0x10,
	DAT_CR_FIELD_ALL			= 0x1F
} DAT_CR_PARAM_MASK;

/* ================================================================== */
/* Events                                                              */
/* ================================================================== */

/* Older names of DTO statuses. */
#define DAT_DTO_LENGTH_ERROR	DAT_DTO_ERR_LOCAL_LENGTH
#define DAT_DTO_FAILURE		DAT_DTO_ERR_FLUSHED

/* Completion status of a DTO. */
typedef enum dat_dto_completion_status {
	DAT_DTO_SUCCESS			= 0,
	DAT_DTO_ERR_FLUSHED		= 1,	/* EP left the connected state */
	DAT_DTO_ERR_LOCAL_LENGTH	= 2,
	DAT_DTO_ERR_LOCAL_EP		= 3,
	DAT_DTO_ERR_LOCAL_PROTECTION	= 4,
	DAT_DTO_ERR_BAD_RESPONSE	= 5,
	DAT_DTO_ERR_REMOTE_ACCESS	= 6,
	DAT_DTO_ERR_REMOTE_RESPONDER	= 7,
	DAT_DTO_ERR_TRANSPORT		= 8,
	DAT_DTO_ERR_RECEIVER_NOT_READY	= 9,
	DAT_DTO_ERR_PARTIAL_PACKET	= 10,
	DAT_RMR_OPERATION_FAILED	= 11
} DAT_DTO_COMPLETION_STATUS;

/* Older names of bind statuses; RMR binds share the DTO status type. */
#define DAT_RMR_BIND_SUCCESS	DAT_DTO_SUCCESS
#define DAT_RMR_BIND_FAILURE	DAT_DTO_ERR_FLUSHED
#define DAT_RMR_BIND_COMPLETION_STATUS	DAT_DTO_COMPLETION_STATUS

/*
 * DAT_DTO_COMPLETION_EVENT.  transfered_length (a 64-bit DAT_VLEN; 2.0:
 * 32-bit, followed by operation and rmr_context) is meaningful only when
 * status is DAT_DTO_SUCCESS.
 */
typedef struct dat_dto_completion_event_data {
	DAT_EP_HANDLE			ep_handle;
	DAT_DTO_COOKIE			user_cookie;	/* as given when posted */
	DAT_DTO_COMPLETION_STATUS	status;
	DAT_VLEN			transfered_length; /* bytes moved */
} DAT_DTO_COMPLETION_EVENT_DATA;

/* DAT_RMR_BIND_COMPLETION_EVENT. */
typedef struct dat_rmr_bind_completion_event_data {
	DAT_RMR_HANDLE			rmr_handle;
	DAT_RMR_COOKIE			user_cookie;	/* as given to dat_rmr_bind() */
	DAT_RMR_BIND_COMPLETION_STATUS	status;
} DAT_RMR_BIND_COMPLETION_EVENT_DATA;

/* Either kind of service point handle. */
typedef union dat_sp_handle {
	DAT_RSP_HANDLE	rsp_handle;
	DAT_PSP_HANDLE	psp_handle;
} DAT_SP_HANDLE;

/* DAT_CONNECTION_REQUEST_EVENT. */
typedef struct dat_cr_arrival_event_data {
	/* Receiving service point; DAT_HANDLE_NULL for an RSP, which is
	 * consumed by the request it receives. */
	DAT_SP_HANDLE		sp_handle;
	DAT_IA_ADDRESS_PTR	local_ia_address_ptr;	/* IA the request arrived on */
	DAT_CONN_QUAL		conn_qual;		/* qualifier it was sent to */
	DAT_CR_HANDLE		cr_handle;	/* accept/reject/query this */
} DAT_CR_ARRIVAL_EVENT_DATA;

/* DAT_CONNECTION_EVENT_*. */
typedef struct dat_connection_event_data {
	DAT_EP_HANDLE	ep_handle;
	DAT_COUNT	private_data_size;	/* bytes at private_data */
	DAT_PVOID	private_data;		/* sent by the peer, if any */
} DAT_CONNECTION_EVENT_DATA;

/* DAT_ASYNC_ERROR_*. */
typedef struct dat_asynch_error_event_data {
	/* Affected object: the IA for unaffiliated errors, else the EP,
	 * EVD, SRQ, LMR, RMR or PZ concerned. */
	DAT_HANDLE	dat_handle;
	DAT_COUNT	reason;	/* a DAT_<object>_ASYNC_ERROR_REASON value */
} DAT_ASYNCH_ERROR_EVENT_DATA;

/* Values of DAT_ASYNCH_ERROR_EVENT_DATA.reason, per object type. */
typedef enum ia_async_error_reason {
	DAT_IA_CATASTROPHIC_ERROR,
	DAT_IA_OTHER_ERROR
} DAT_IA_ASYNC_ERROR_REASON;

typedef enum ep_async_error_reason {
	DAT_EP_TRANSFER_TO_ERROR,
	DAT_EP_OTHER_ERROR,
	DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT
} DAT_EP_ASYNC_ERROR_REASON;

/* (The DAT 1.2 tags of these two start with ep_; 2.0's with evd_, srq_.) */
typedef enum ep_evd_error_reason {
	DAT_EVD_OVERFLOW_ERROR,
	DAT_EVD_OTHER_ERROR
} DAT_EVD_ASYNC_ERROR_REASON;

typedef enum ep_srq_error_reason {
	DAT_SRQ_TRANSFER_TO_ERROR,
	DAT_SRQ_OTHER_ERROR,
	DAT_SRQ_LOW_WATERMARK_EVENT
} DAT_SRQ_ASYNC_ERROR_REASON;

typedef enum lmr_async_error_reason {
	DAT_LMR_OTHER_ERROR
} DAT_LMR_ASYNC_ERROR_REASON;

typedef enum rmr_async_error_reason {
	DAT_RMR_OTHER_ERROR
} DAT_RMR_ASYNC_ERROR_REASON;

typedef enum pz_async_error_reason {
	DAT_PZ_OTHER_ERROR
} DAT_PZ_ASYNC_ERROR_REASON;

/* DAT_SOFTWARE_EVENT (dat_evd_post_se()). */
typedef struct dat_software_event_data {
	DAT_PVOID	pointer;	/* consumer's value, passed through */
} DAT_SOFTWARE_EVENT_DATA;

/*
 * Event numbers.  Bits 12 and up name the stream: 0x00000 DTO, 0x01000
 * RMR bind, 0x02000 connection request, 0x04000 connection, 0x08000
 * async error, 0x10000 software.
 */
typedef enum dat_event_number {
	DAT_DTO_COMPLETION_EVENT			= 0x00001,
	DAT_RMR_BIND_COMPLETION_EVENT			= 0x01001,
	DAT_CONNECTION_REQUEST_EVENT			= 0x02001,
	DAT_CONNECTION_EVENT_ESTABLISHED		= 0x04001,
	DAT_CONNECTION_EVENT_PEER_REJECTED		= 0x04002,
	DAT_CONNECTION_EVENT_NON_PEER_REJECTED		= 0x04003,
	DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR	= 0x04004,
	DAT_CONNECTION_EVENT_DISCONNECTED		= 0x04005,
	DAT_CONNECTION_EVENT_BROKEN			= 0x04006,
	DAT_CONNECTION_EVENT_TIMED_OUT			= 0x04007,
	DAT_CONNECTION_EVENT_UNREACHABLE		= 0x04008,
	DAT_ASYNC_ERROR_EVD_OVERFLOW			= 0x08001,
	DAT_ASYNC_ERROR_IA_CATASTROPHIC			= 0x08002,
	DAT_ASYNC_ERROR_EP_BROKEN			= 0x08003,
	DAT_ASYNC_ERROR_TIMED_OUT			= 0x08004,
	DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR		= 0x08005,
	DAT_SOFTWARE_EVENT				= 0x10001
} DAT_EVENT_NUMBER;

/* Event payload; the member in use follows from event_number. */
typedef union dat_event_data {
	DAT_DTO_COMPLETION_EVENT_DATA		dto_completion_event_data;
	DAT_RMR_BIND_COMPLETION_EVENT_DATA	rmr_completion_event_data;
	DAT_CR_ARRIVAL_EVENT_DATA		cr_arrival_event_data;
	DAT_CONNECTION_EVENT_DATA		connect_event_data;
	DAT_ASYNCH_ERROR_EVENT_DATA		asynch_error_event_data;
	DAT_SOFTWARE_EVENT_DATA			software_event_data;
} DAT_EVENT_DATA;

/*
 * One event as dequeued from an EVD: 48 bytes on LP64 (DAT 2.0's is 120:
 * a 32-byte payload union here, 40 there, and 64 bytes of
 * event_extension_data).
 */
typedef struct dat_event {
	DAT_EVENT_NUMBER	event_number;
	DAT_EVD_HANDLE		evd_handle;	/* EVD the event came from */
	DAT_EVENT_DATA		event_data;
} DAT_EVENT;

/* ================================================================== */
/* Registry                                                            */
/* ================================================================== */

/* Registry entry: the key by which dat_ia_open() finds a provider. */
typedef struct dat_provider_info {
	char		ia_name[DAT_NAME_MAX_LENGTH];	/* NUL-terminated */
	DAT_UINT32	dapl_version_major;		/* DAT API version */
	DAT_UINT32	dapl_version_minor;
	DAT_BOOLEAN	is_thread_safe;
} DAT_PROVIDER_INFO;

/* ================================================================== */
/* Functions                                                           */
/* ================================================================== */

/*
 * Every DAT 1.2 call is a real function of libdat.so.1 (-ldat), never a
 * macro dispatching through a provider's table: the library serves each
 * call from a DAT 2.0 provider.
 *
 * Interface Adapter.  dat_ia_open() supplies the version (1.2) and
 * thread-safety arguments of dat_ia_openv() from <dat/udat_config.h>.
 */
extern DAT_RETURN DAT_API dat_ia_openv(
	IN	const DAT_NAME_PTR,	/* ia_name */
	IN	DAT_COUNT,		/* async_evd_min_qlen */
	INOUT	DAT_EVD_HANDLE *,	/* async_evd_handle */
	OUT	DAT_IA_HANDLE *,	/* ia_handle */
	IN	DAT_UINT32,		/* dapl_version_major */
	IN	DAT_UINT32,		/* dapl_version_minor */
	IN	DAT_BOOLEAN);		/* thread_safety */

#define dat_ia_open(name, qlen, async_evd, ia)				\
	dat_ia_openv((name), (qlen), (async_evd), (ia),			\
		     DAT_VERSION_MAJOR, DAT_VERSION_MINOR, DAT_THREADSAFE)

extern DAT_RETURN DAT_API dat_ia_query(
	IN	DAT_IA_HANDLE,		/* ia_handle */
	OUT	DAT_EVD_HANDLE *,	/* async_evd_handle */
	IN	DAT_IA_ATTR_MASK,	/* ia_attr_mask */
	OUT	DAT_IA_ATTR *,		/* ia_attr */
	IN	DAT_PROVIDER_ATTR_MASK,	/* provider_attr_mask */
	OUT	DAT_PROVIDER_ATTR *);	/* provider_attr */

extern DAT_RETURN DAT_API dat_ia_close(
	IN	DAT_IA_HANDLE,		/* ia_handle */
	IN	DAT_CLOSE_FLAGS);	/* close_flags */

/* Any handle. */
extern DAT_RETURN DAT_API dat_set_consumer_context(
	IN	DAT_HANDLE,		/* dat_handle */
	IN	DAT_CONTEXT);		/* context */

extern DAT_RETURN DAT_API dat_get_consumer_context(
	IN	DAT_HANDLE,		/* dat_handle */
	OUT	DAT_CONTEXT *);		/* context */

extern DAT_RETURN DAT_API dat_get_handle_type(
	IN	DAT_HANDLE,		/* dat_handle */
	OUT	DAT_HANDLE_TYPE *);	/* handle_type */

/* Connection Requests. */
extern DAT_RETURN DAT_API dat_cr_query(
	IN	DAT_CR_HANDLE,		/* cr_handle */
	IN	DAT_CR_PARAM_MASK,	/* cr_param_mask */
	OUT	DAT_CR_PARAM *);	/* cr_param */

extern DAT_RETURN DAT_API dat_cr_accept(
	IN	DAT_CR_HANDLE,		/* cr_handle */
	IN	DAT_EP_HANDLE,		/* ep_handle */
	IN	DAT_COUNT,		/* private_data_size */
	IN	const DAT_PVOID);	/* private_data */

/* (2.0 adds private data to the rejection.) */
extern DAT_RETURN DAT_API dat_cr_reject(
	IN	DAT_CR_HANDLE);		/* cr_handle */

extern DAT_RETURN DAT_API dat_cr_handoff(
	IN	DAT_CR_HANDLE,		/* cr_handle */
	IN	DAT_CONN_QUAL);		/* handoff: qualifier to pass it to */

/* Event Dispatchers (creation and waiting are in <dat/udat.h>). */
extern DAT_RETURN DAT_API dat_evd_resize(
	IN	DAT_EVD_HANDLE,		/* evd_handle */
	IN	DAT_COUNT);		/* evd_min_qlen */

extern DAT_RETURN DAT_API dat_evd_post_se(
	IN	DAT_EVD_HANDLE,		/* evd_handle */
	IN	const DAT_EVENT *);	/* event */

extern DAT_RETURN DAT_API dat_evd_dequeue(
	IN	DAT_EVD_HANDLE,		/* evd_handle */
	OUT	DAT_EVENT *);		/* event */

extern DAT_RETURN DAT_API dat_evd_query(
	IN	DAT_EVD_HANDLE,		/* evd_handle */
	IN	DAT_EVD_PARAM_MASK,	/* evd_param_mask */
	OUT	DAT_EVD_PARAM *);	/* evd_param */

extern DAT_RETURN DAT_API dat_evd_free(
	IN	DAT_EVD_HANDLE);	/* evd_handle */

/* Endpoints: creation, parameters, connection management. */
extern DAT_RETURN DAT_API dat_ep_create(
	IN	DAT_IA_HANDLE,		/* ia_handle */
	IN	DAT_PZ_HANDLE,		/* pz_handle */
	IN	DAT_EVD_HANDLE,		/* recv_evd_handle */
	IN	DAT_EVD_HANDLE,		/* request_evd_handle */
	IN	DAT_EVD_HANDLE,		/* connect_evd_handle */
	IN	const DAT_EP_ATTR *,	/* ep_attributes (NULL: defaults) */
	OUT	DAT_EP_HANDLE *);	/* ep_handle */

extern DAT_RETURN DAT_API dat_ep_query(
	IN	DAT_EP_HANDLE,		/* ep_handle */
	IN	DAT_EP_PARAM_MASK,	/* ep_param_mask */
	OUT	DAT_EP_PARAM *);	/* ep_param */

extern DAT_RETURN DAT_API dat_ep_modify(
	IN	DAT_EP_HANDLE,		/* ep_handle */
	IN	DAT_EP_PARAM_MASK,	/* ep_param_mask */
	IN	const DAT_EP_PARAM *);	/* ep_param */

extern DAT_RETURN DAT_API dat_ep_connect(
	IN	DAT_EP_HANDLE,		/* ep_handle */
	IN	DAT_IA_ADDRESS_PTR,	/* remote_ia_address */
	IN	DAT_CONN_QUAL,		/* remote_conn_qual */
	IN	DAT_TIMEOUT,		/* timeout */
	IN	DAT_COUNT,		/* private_data_size */
	IN	const DAT_PVOID,	/* private_data */
	IN	DAT_QOS,		/* quality_of_service */
	IN	DAT_CONNECT_FLAGS);	/* connect_flags */

extern DAT_RETURN DAT_API dat_ep_dup_connect(
	IN	DAT_EP_HANDLE,		/* ep_handle */
	IN	DAT_EP_HANDLE,		/* ep_dup_handle: connect to its peer */
	IN	DAT_TIMEOUT,		/* timeout */
	IN	DAT_COUNT,		/* private_data_size */
	IN	const DAT_PVOID,	/* private_data */
	IN	DAT_QOS);		/* quality_of_service */

extern DAT_RETURN DAT_API dat_ep_disconnect(
	IN	DAT_EP_HANDLE,		/* ep_handle */
	IN	DAT_CLOSE_FLAGS);	/* disconnect_flags */

/* Endpoints: data transfer (with the 24-byte 1.2 triplets). */
extern DAT_RETURN DAT_API dat_ep_post_send(
	IN	DAT_EP_HANDLE,		/* ep_handle */
	IN	DAT_COUNT,		/* num_segments */
	IN	DAT_LMR_TRIPLET *,	/* local_iov */
	IN	DAT_DTO_COOKIE,		/* user_cookie */
	IN	DAT_COMPLETION_FLAGS);	/* completion_flags */

extern DAT_RETURN DAT_API dat_ep_post_recv(
	IN	DAT_EP_HANDLE,		/* ep_handle */
	IN	DAT_COUNT,		/* num_segments */
	IN	DAT_LMR_TRIPLET *,	/* local_iov */
	IN	DAT_DTO_COOKIE,		/* user_cookie */
	IN	DAT_COMPLETION_FLAGS);	/* completion_flags */

extern DAT_RETURN DAT_API dat_ep_post_rdma_read(
	IN	DAT_EP_HANDLE,		/* ep_handle */
	IN	DAT_COUNT,		/* num_segments */
	IN	DAT_LMR_TRIPLET *,	/* local_iov */
	IN	DAT_DTO_COOKIE,		/* user_cookie */
	IN	const DAT_RMR_TRIPLET *, /* remote_buffer */
	IN	DAT_COMPLETION_FLAGS);	/* completion_flags */

extern DAT_RETURN DAT_API dat_ep_post_rdma_write(
	IN	DAT_EP_HANDLE,		/* ep_handle */
	IN	DAT_COUNT,		/* num_segments */
	IN	DAT_LMR_TRIPLET *,	/* local_iov */
	IN	DAT_DTO_COOKIE,		/* user_cookie */
	IN	const DAT_RMR_TRIPLET *, /* remote_buffer */
	IN	DAT_COMPLETION_FLAGS);	/* completion_flags */

/* Endpoints: status and life cycle. */
extern DAT_RETURN DAT_API dat_ep_get_status(
	IN	DAT_EP_HANDLE,		/* ep_handle */
	OUT	DAT_EP_STATE *,		/* ep_state */
	OUT	DAT_BOOLEAN *,		/* recv_idle */
	OUT	DAT_BOOLEAN *);		/* request_idle */

extern DAT_RETURN DAT_API dat_ep_free(
	IN	DAT_EP_HANDLE);		/* ep_handle */

extern DAT_RETURN DAT_API dat_ep_reset(
	IN	DAT_EP_HANDLE);		/* ep_handle */

/* Local Memory Regions (creation is in <dat/udat.h>). */
extern DAT_RETURN DAT_API dat_lmr_query(
	IN	DAT_LMR_HANDLE,		/* lmr_handle */
	IN	DAT_LMR_PARAM_MASK,	/* lmr_param_mask */
	OUT	DAT_LMR_PARAM *);	/* lmr_param */

extern DAT_RETURN DAT_API dat_lmr_free(
	IN	DAT_LMR_HANDLE);	/* lmr_handle */

/*
 * For memory not kept coherent with RDMA by the platform: sync before the
 * peer RDMA-Reads the segments, and after it RDMA-Wrote them.
 */
extern DAT_RETURN DAT_API dat_lmr_sync_rdma_read(
	IN	DAT_IA_HANDLE,		/* ia_handle */
	IN	const DAT_LMR_TRIPLET *, /* local_segments */
	IN	DAT_VLEN);		/* num_segments */

extern DAT_RETURN DAT_API dat_lmr_sync_rdma_write(
	IN	DAT_IA_HANDLE,		/* ia_handle */
	IN	const DAT_LMR_TRIPLET *, /* local_segments */
	IN	DAT_VLEN);		/* num_segments */

/* Remote Memory Regions. */
extern DAT_RETURN DAT_API dat_rmr_create(
	IN	DAT_PZ_HANDLE,		/* pz_handle */
	OUT	DAT_RMR_HANDLE *);	/* rmr_handle */

extern DAT_RETURN DAT_API dat_rmr_query(
	IN	DAT_RMR_HANDLE,		/* rmr_handle */
	IN	DAT_RMR_PARAM_MASK,	/* rmr_param_mask */
	OUT	DAT_RMR_PARAM *);	/* rmr_param */

/* (2.0 adds the LMR handle and a DAT_VA_TYPE.) */
extern DAT_RETURN DAT_API dat_rmr_bind(
	IN	DAT_RMR_HANDLE,		/* rmr_handle */
	IN	const DAT_LMR_TRIPLET *, /* lmr_triplet */
	IN	DAT_MEM_PRIV_FLAGS,	/* mem_priv */
	IN	DAT_EP_HANDLE,		/* ep_handle */
	IN	DAT_RMR_COOKIE,		/* user_cookie */
	IN	DAT_COMPLETION_FLAGS,	/* completion_flags */
	OUT	DAT_RMR_CONTEXT *);	/* rmr_context */

extern DAT_RETURN DAT_API dat_rmr_free(
	IN	DAT_RMR_HANDLE);	/* rmr_handle */

/* Public Service Points. */
extern DAT_RETURN DAT_API dat_psp_create(
	IN	DAT_IA_HANDLE,		/* ia_handle */
	IN	DAT_CONN_QUAL,		/* conn_qual */
	IN	DAT_EVD_HANDLE,		/* evd_handle */
	IN	DAT_PSP_FLAGS,		/* psp_flags */
	OUT	DAT_PSP_HANDLE *);	/* psp_handle */

extern DAT_RETURN DAT_API dat_psp_create_any(
	IN	DAT_IA_HANDLE,		/* ia_handle */
	OUT	DAT_CONN_QUAL *,	/* conn_qual chosen by the provider */
	IN	DAT_EVD_HANDLE,		/* evd_handle */
	IN	DAT_PSP_FLAGS,		/* psp_flags */
	OUT	DAT_PSP_HANDLE *);	/* psp_handle */

extern DAT_RETURN DAT_API dat_psp_query(
	IN	DAT_PSP_HANDLE,		/* psp_handle */
	IN	DAT_PSP_PARAM_MASK,	/* psp_param_mask */
	OUT	DAT_PSP_PARAM *);	/* psp_param */

extern DAT_RETURN DAT_API dat_psp_free(
	IN	DAT_PSP_HANDLE);	/* psp_handle */

/* Reserved Service Points. */
extern DAT_RETURN DAT_API dat_rsp_create(
	IN	DAT_IA_HANDLE,		/* ia_handle */
	IN	DAT_CONN_QUAL,		/* conn_qual */
	IN	DAT_EP_HANDLE,		/* ep_handle */
	IN	DAT_EVD_HANDLE,		/* evd_handle */
	OUT	DAT_RSP_HANDLE *);	/* rsp_handle */

extern DAT_RETURN DAT_API dat_rsp_query(
	IN	DAT_RSP_HANDLE,		/* rsp_handle */
	IN	DAT_RSP_PARAM_MASK,	/* rsp_param_mask */
	OUT	DAT_RSP_PARAM *);	/* rsp_param */

extern DAT_RETURN DAT_API dat_rsp_free(
	IN	DAT_RSP_HANDLE);	/* rsp_handle */

/* Protection Zones. */
extern DAT_RETURN DAT_API dat_pz_create(
	IN	DAT_IA_HANDLE,		/* ia_handle */
	OUT	DAT_PZ_HANDLE *);	/* pz_handle */

extern DAT_RETURN DAT_API dat_pz_query(
	IN	DAT_PZ_HANDLE,		/* pz_handle */
	IN	DAT_PZ_PARAM_MASK,	/* pz_param_mask */
	OUT	DAT_PZ_PARAM *);	/* pz_param */

extern DAT_RETURN DAT_API dat_pz_free(
	IN	DAT_PZ_HANDLE);		/* pz_handle */

/* Endpoints on a Shared Receive Queue, and the SRQ itself. */
extern DAT_RETURN DAT_API dat_ep_create_with_srq(
	IN	DAT_IA_HANDLE,		/* ia_handle */
	IN	DAT_PZ_HANDLE,		/* pz_handle */
	IN	DAT_EVD_HANDLE,		/* recv_evd_handle */
	IN	DAT_EVD_HANDLE,		/* request_evd_handle */
	IN	DAT_EVD_HANDLE,		/* connect_evd_handle */
	IN	DAT_SRQ_HANDLE,		/* srq_handle */
	IN	const DAT_EP_ATTR *,	/* ep_attributes */
	OUT	DAT_EP_HANDLE *);	/* ep_handle */

extern DAT_RETURN DAT_API dat_ep_recv_query(
	IN	DAT_EP_HANDLE,		/* ep_handle */
	OUT	DAT_COUNT *,		/* nbufs_allocated */
	OUT	DAT_COUNT *);		/* bufs_alloc_span */

extern DAT_RETURN DAT_API dat_ep_set_watermark(
	IN	DAT_EP_HANDLE,		/* ep_handle */
	IN	DAT_COUNT,		/* soft_high_watermark */
	IN	DAT_COUNT);		/* hard_high_watermark */

extern DAT_RETURN DAT_API dat_srq_create(
	IN	DAT_IA_HANDLE,		/* ia_handle */
	IN	DAT_PZ_HANDLE,		/* pz_handle */
	IN	DAT_SRQ_ATTR *,		/* srq_attr */
	OUT	DAT_SRQ_HANDLE *);	/* srq_handle */

extern DAT_RETURN DAT_API dat_srq_free(
	IN	DAT_SRQ_HANDLE);	/* srq_handle */

extern DAT_RETURN DAT_API dat_srq_post_recv(
	IN	DAT_SRQ_HANDLE,		/* srq_handle */
	IN	DAT_COUNT,		/* num_segments */
	IN	DAT_LMR_TRIPLET *,	/* local_iov */
	IN	DAT_DTO_COOKIE);	/* user_cookie */

extern DAT_RETURN DAT_API dat_srq_query(
	IN	DAT_SRQ_HANDLE,		/* srq_handle */
	IN	DAT_SRQ_PARAM_MASK,	/* srq_param_mask */
	OUT	DAT_SRQ_PARAM *);	/* srq_param */

extern DAT_RETURN DAT_API dat_srq_resize(
	IN	DAT_SRQ_HANDLE,		/* srq_handle */
	IN	DAT_COUNT);		/* srq_max_recv_dto */

extern DAT_RETURN DAT_API dat_srq_set_lw(
	IN	DAT_SRQ_HANDLE,		/* srq_handle */
	IN	DAT_COUNT);		/* low_watermark */

/* Registry: list the registered providers (up to max_to_return). */
extern DAT_RETURN DAT_API dat_registry_list_providers(
	IN	DAT_COUNT,		/* max_to_return */
	OUT	DAT_COUNT *,		/* entries_returned */
	OUT	DAT_PROVIDER_INFO *[]);	/* dat_provider_list */

/* Map a DAT_RETURN to static major (type) and minor (subtype) text. */
extern DAT_RETURN DAT_API dat_strerror(
	IN	DAT_RETURN,		/* value */
	OUT	const char **,		/* major_message */
	OUT	const char **);		/* minor_message */

#ifdef __cplusplus
}
#endif

#endif /* _SOFTDAPL_DAT_DAT_H_ */
