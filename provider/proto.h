/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl: the wire format, and nothing else (PROTOCOL.md explains it).
 *
 * Every field is a fixed-width little-endian integer at a fixed offset;
 * nothing on the wire is a C struct. The pack/unpack helpers below are the
 * only code that knows the offsets. A receiver unpacks into the host
 * structs and checks every field (sd_cm_check, sd_hdr_check and the
 * handlers in rx.c) before it acts on any of it: the peer is hostile until
 * proven otherwise.
 *
 * Two kinds of messages share a TCP stream:
 *
 *   1. The handshake (cm.c): HELLO (active -> passive), then ACCEPT or
 *      REJECT (passive -> active), then RTU (active -> passive). Each is a
 *      40-byte struct sd_cm_msg followed by pdata_len bytes of private
 *      data (at most SD_PROTO_MAX_PDATA).
 *   2. After RTU, data frames (tx.c, rx.c): a 32-byte struct sd_hdr,
 *      followed by `len` payload bytes for the ops with a payload (see
 *      sd_op_has_payload), by nothing for the others.
 */
#ifndef SD_PROTO_H
#define SD_PROTO_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

#define SD_PROTO_MAGIC		0x4c504453u	/* "SDPL" */
#define SD_PROTO_VERSION	1
#define SD_PROTO_MAX_PDATA	1024		/* = SD_MAX_PRIVATE_DATA */

/* ------------------------------------------------------------------ */
/* Handshake                                                           */

enum sd_cm_type {
	SD_CM_HELLO	= 1,	/* active -> passive: connection request */
	SD_CM_ACCEPT	= 2,	/* passive -> active: dat_cr_accept */
	SD_CM_REJECT	= 3,	/* passive -> active: dat_cr_reject, or no
				 * such service point / bad request */
	SD_CM_RTU	= 4,	/* active -> passive: ready to use */
};

#define SD_CM_MSG_SIZE	40
#define SD_CM_OFF_TYPE	6	/* the type byte, read before unpacking */

/*
 * The attributes carried both ways are those the peer needs to police
 * what it receives: the largest message and RDMA it may be sent and how
 * many RDMA reads may be outstanding in each direction.
 */
struct sd_cm_msg {
	uint32_t	magic;		/* SD_PROTO_MAGIC */
	uint16_t	version;	/* SD_PROTO_VERSION */
	uint8_t		type;		/* enum sd_cm_type */
	uint8_t		reason;		/* REJECT: enum sd_reject_reason */
	uint64_t	conn_qual;	/* HELLO: the qualifier asked for */
	uint32_t	max_msg;	/* the sender's max_message_size */
	uint32_t	max_rdma;	/* the sender's max_rdma_size */
	uint32_t	rd_in;		/* reads the sender serves at once */
	uint32_t	rd_out;		/* reads the sender issues at once */
	uint16_t	pdata_len;	/* private data bytes that follow */
	uint8_t		flags;		/* enum sd_cm_flags */
	/* 5 bytes reserved, sent as zero, ignored */
};

/*
 * Handshake flags. A peer that does not know a flag ignores it (the byte
 * was reserved and sent as zero), so an offer is only ever answered by a
 * peer that understands it.
 *
 * SD_CM_F_SHM: in a HELLO, the requester can move its data through shared
 * memory (shm.c) if the listener is on the same host. In the ACCEPT that
 * answers it, the listener made a segment for this connection: an
 * SD_CM_SHM_EXT_SIZE extension follows the private data, naming it. The
 * requester either attaches and sends everything from its RTU on through
 * the segment, or stays on TCP; the listener tells which from where the
 * RTU arrives.
 */
enum sd_cm_flags {
	SD_CM_F_SHM	= 1u << 0,
};

/*
 * The ACCEPT's segment extension: the listener's pid (u32), the bytes of
 * each ring (u32), and a 64-bit random nonce (u64). The segment's name is
 * made of the pid and the nonce (shm.c); its header repeats both.
 */
#define SD_CM_SHM_EXT_SIZE	16

struct sd_cm_shm_ext {
	uint32_t	pid;
	uint32_t	ring_size;
	uint64_t	nonce;
};

enum sd_reject_reason {
	SD_REJ_CONSUMER	= 0,	/* dat_cr_reject: PEER_REJECTED */
	SD_REJ_NO_SP	= 1,	/* nothing listens there any more */
	SD_REJ_PROTOCOL	= 2,	/* the HELLO was malformed */
};

/* ------------------------------------------------------------------ */
/* Data frames                                                         */

enum sd_op {
	SD_OP_SEND		= 1,	/* payload: the message */
	SD_OP_SEND_SE		= 2,	/* the same, solicited event */
	SD_OP_WRITE		= 3,	/* payload placed at rkey/addr */
	SD_OP_READ_REQ		= 4,	/* no payload; len bytes at rkey/addr */
	SD_OP_READ_RESP		= 5,	/* payload: the bytes read; tag */
	SD_OP_ACK		= 6,	/* no payload: just the ack field */
	SD_OP_TERMINATE		= 7,	/* no payload; code, tag */
	SD_OP_DISCONNECT	= 8,	/* no payload: orderly end */
	/*
	 * Issue 4. A peer that does not know these answers TERMINATE
	 * (protocol), so no handshake change was needed: a consumer only
	 * sends them through calls the same provider implements.
	 */
	SD_OP_SEND_INV		= 9,	/* SEND, then invalidate the receiver's
					 * RMR whose context is rkey */
	SD_OP_SEND_SE_INV	= 10,	/* the same, solicited event */
	SD_OP_WRITE_IMM		= 11,	/* WRITE, then consume a receive that
					 * completes with the immediate data
					 * carried in code */
	SD_OP_WRITE_IMM_SE	= 12,	/* the same, solicited event */
	SD_OP_FETCH_ADD		= 13,	/* payload: SD_ATOMIC_ARGS bytes; the
					 * 8-byte word at rkey/addr += add */
	SD_OP_CMP_SWAP		= 14,	/* payload: SD_ATOMIC_ARGS bytes; the
					 * word = swap if it equals compare */
	SD_OP_ATOMIC_RESP	= 15,	/* payload: the word's old value
					 * (SD_ATOMIC_SIZE bytes); tag */
	SD_OP_MAX		= 15,
};

/*
 * Atomics: the request's payload is two little-endian 64-bit operands,
 * compare-or-add then swap (0 for fetch-and-add); the response's is the
 * target word's previous value, little-endian.
 */
#define SD_ATOMIC_SIZE	8
#define SD_ATOMIC_ARGS	16

/*
 * Requests are the frames the ack counts and the responder executes in
 * order: everything but READ_RESP, ATOMIC_RESP, ACK, TERMINATE and
 * DISCONNECT.
 */
static inline int sd_op_is_request(uint8_t op)
{
	return op != SD_OP_READ_RESP && op != SD_OP_ATOMIC_RESP &&
	       op != SD_OP_ACK && op != SD_OP_TERMINATE &&
	       op != SD_OP_DISCONNECT;
}

/* The ops whose len counts payload bytes that follow the header. */
static inline int sd_op_has_payload(uint8_t op)
{
	return op != SD_OP_READ_REQ && op != SD_OP_ACK &&
	       op != SD_OP_TERMINATE && op != SD_OP_DISCONNECT;
}

/* A SEND by address (same host: "The same-host segment" below). */
static inline int sd_op_is_send(uint8_t op)
{
	return op == SD_OP_SEND || op == SD_OP_SEND_SE ||
	       op == SD_OP_SEND_INV || op == SD_OP_SEND_SE_INV;
}

#define SD_HDR_SIZE	32	/* the only (and so the maximum) header size */
#define SD_HDR_OFF_OP	0	/* the op byte of an encoded header */
#define SD_HDR_OFF_PAD	2	/* two bytes that must be 0, not unpacked */

/*
 * A frame header. @ack is cumulative: the number of requests
 * (sd_op_is_request) the sender has received and executed since the
 * connection was established, modulo 2^32. A requester's SEND or WRITE
 * (of any flavour) completes once the ack covers it, a READ or an atomic
 * once its response is placed.
 */
struct sd_hdr {
	uint8_t		op;	/* enum sd_op */
	uint8_t		flags;	/* 0 (reserved) */
	uint32_t	ack;	/* requests of the peer executed so far */
	uint32_t	len;	/* payload bytes; READ_REQ: bytes asked for */
	uint32_t	rkey;	/* WRITE*, READ_REQ, atomics: the rmr_context;
				 * SEND*_INV: the context to invalidate */
	uint64_t	addr;	/* WRITE*, READ_REQ, atomics: the target */
	uint32_t	tag;	/* READ_REQ/RESP, atomics and ATOMIC_RESP: the
				 * request number; TERMINATE: the request
				 * number at fault, or SD_TAG_NONE */
	uint32_t	code;	/* TERMINATE: enum sd_term_code;
				 * WRITE_IMM*: the immediate data */
};

#define SD_TAG_NONE	0xffffffffu

/* Why a TERMINATE was sent; how the requester completes the culprit. */
enum sd_term_code {
	SD_TERM_PROTOCOL	= 1,	/* malformed frame, limits exceeded */
	SD_TERM_REMOTE_ACCESS	= 2,	/* WRITE*, READ_REQ, atomics: rkey,
					 * bounds, PZ, privilege, alignment;
					 * SEND*_INV: nothing to invalidate
					 * -> DAT_DTO_ERR_REMOTE_ACCESS */
	SD_TERM_LENGTH		= 3,	/* SEND longer than the receive buffer
					 * -> DAT_DTO_ERR_REMOTE_RESPONDER */
	SD_TERM_MAX		= 3,
};

/* ------------------------------------------------------------------ */
/* Encoding                                                            */

static inline void sd_put16(uint8_t *p, uint16_t v)
{
	v = htole16(v);
	memcpy(p, &v, 2);
}

static inline void sd_put32(uint8_t *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, 4);
}

static inline void sd_put64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, 8);
}

static inline uint16_t sd_get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return le16toh(v);
}

static inline uint32_t sd_get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

static inline uint64_t sd_get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

static inline void sd_cm_pack(const struct sd_cm_msg *m, uint8_t *b)
{
	memset(b, 0, SD_CM_MSG_SIZE);
	sd_put32(b + 0, m->magic);
	sd_put16(b + 4, m->version);
	b[SD_CM_OFF_TYPE] = m->type;
	b[7] = m->reason;
	sd_put64(b + 8, m->conn_qual);
	sd_put32(b + 16, m->max_msg);
	sd_put32(b + 20, m->max_rdma);
	sd_put32(b + 24, m->rd_in);
	sd_put32(b + 28, m->rd_out);
	sd_put16(b + 32, m->pdata_len);
	b[34] = m->flags;
}

static inline void sd_cm_unpack(struct sd_cm_msg *m, const uint8_t *b)
{
	m->magic = sd_get32(b + 0);
	m->version = sd_get16(b + 4);
	m->type = b[SD_CM_OFF_TYPE];
	m->reason = b[7];
	m->conn_qual = sd_get64(b + 8);
	m->max_msg = sd_get32(b + 16);
	m->max_rdma = sd_get32(b + 20);
	m->rd_in = sd_get32(b + 24);
	m->rd_out = sd_get32(b + 28);
	m->pdata_len = sd_get16(b + 32);
	m->flags = b[34];
}

static inline void sd_cm_shm_ext_pack(const struct sd_cm_shm_ext *e,
				      uint8_t *b)
{
	sd_put32(b + 0, e->pid);
	sd_put32(b + 4, e->ring_size);
	sd_put64(b + 8, e->nonce);
}

static inline void sd_cm_shm_ext_unpack(struct sd_cm_shm_ext *e,
					const uint8_t *b)
{
	e->pid = sd_get32(b + 0);
	e->ring_size = sd_get32(b + 4);
	e->nonce = sd_get64(b + 8);
}

/*
 * Checks an unpacked handshake message of the expected @type: magic,
 * version, type and the private data length. 0 or -EPROTO.
 */
static inline int sd_cm_check(const struct sd_cm_msg *m, uint8_t type)
{
	if (m->magic != SD_PROTO_MAGIC || m->version != SD_PROTO_VERSION ||
	    m->type != type || m->pdata_len > SD_PROTO_MAX_PDATA)
		return -71;	/* -EPROTO, without <errno.h> here */
	return 0;
}

static inline void sd_hdr_pack(const struct sd_hdr *h, uint8_t *b)
{
	b[SD_HDR_OFF_OP] = h->op;
	b[1] = h->flags;
	b[SD_HDR_OFF_PAD] = b[SD_HDR_OFF_PAD + 1] = 0;
	sd_put32(b + 4, h->ack);
	sd_put32(b + 8, h->len);
	sd_put32(b + 12, h->rkey);
	sd_put64(b + 16, h->addr);
	sd_put32(b + 24, h->tag);
	sd_put32(b + 28, h->code);
}

static inline void sd_hdr_unpack(struct sd_hdr *h, const uint8_t *b)
{
	h->op = b[SD_HDR_OFF_OP];
	h->flags = b[1];
	h->ack = sd_get32(b + 4);
	h->len = sd_get32(b + 8);
	h->rkey = sd_get32(b + 12);
	h->addr = sd_get64(b + 16);
	h->tag = sd_get32(b + 24);
	h->code = sd_get32(b + 28);
}

/* ------------------------------------------------------------------ */
/* The same-host segment (shm.c)                                       */

/*
 * A connection between two processes of one host and one user may move
 * its bytes through a shared-memory segment instead of TCP (SD_CM_F_SHM).
 * The segment holds two rings of bytes, each a byte stream that carries
 * exactly what TCP would have carried (the handshake's RTU, then data
 * frames); the TCP connection stays up, carrying only wake-ups (one byte,
 * any value, meaning "look at the rings") and, by its end, the news that
 * the peer is gone.
 *
 * Both ends are on one host: fields are native-endian, at the offsets
 * below, and the ring fields are read and written with atomic operations
 * in place. Ring 0 carries listener -> requester, ring 1 requester ->
 * listener. Everything in the segment is written by a peer and checked
 * by its reader before use (shm.c): a position beyond what a ring can
 * hold breaks the connection; a byte in a ring is a frame byte, which
 * rx.c checks as it checks those from TCP.
 *
 *   0    u32  magic SD_SHM_MAGIC
 *   4    u32  version SD_SHM_VERSION
 *   8    u64  nonce (the ACCEPT's)
 *   16   u32  ring size in bytes
 *   20   u32  listener's pid
 *   24   u32  requester's pid (written when it attaches)
 *   64 + 128 * r   ring r, its writer's cache line:
 *        +0  u64 tail: bytes written since the start
 *        +8  u32 closed: the writer has written its last byte:
 *                SD_SHM_END, or SD_SHM_RESET when it aborted (the
 *                reader then fails with a reset, as TCP's RST)
 *        +12 u32 wr_waiting: the writer waits for room (wants a wake-up)
 *   128 + 128 * r  ring r, its reader's cache line:
 *        +0  u64 head: bytes consumed since the start
 *        +8  u32 rd_armed: the reader sleeps (wants a wake-up on data)
 *   320 + 64 * s   side s (0 the listener, 1 the requester), for RDMA
 *        placed by the initiator (cross-memory attach, cma.c), written by
 *        that side unless said:
 *        +0  u64 challenge: random, the side's own, for the peer to echo
 *        +8  u64 echo: where in the side's memory its copy of the peer's
 *                challenge is (what proves its pid, see cma.c)
 *        +16 u64 grants: the address of the side's grant table
 *        +24 u32 slots: the entries in it
 *        +28 u32 exposed: 1 while the side takes one-sided accesses,
 *                written last; 0 from its end on
 *        +32 u64 pz: its EP's protection zone (an opaque number)
 *        +40 u64 ep: its EP's number (an RMR of EP scope names it)
 *        +48 u64 epoch: bumped at every grant revoked
 *        +56 u32 busy: written by the peer: 1 while it reads or writes
 *                the side's memory
 *        +60 u32 pulls: 1 once the side has proved the peer and can read
 *                its memory: the peer may then send a SEND's payload by
 *                address (below) instead of through the ring
 *   SD_SHM_HDR_SIZE + r * ring size: ring r's bytes, byte i of the stream
 *        at i modulo ring size
 *
 * A SEND whose header has addr != 0 (allowed only towards a side whose
 * "pulls" is 1) carries no payload in the stream: its len bytes wait at
 * addr in the sender's memory, contiguous, until the SEND is
 * acknowledged, and the receiver reads them from there into the receive
 * (process_vm_readv). Anywhere else, addr != 0 on a SEND breaks the
 * connection (protocol).
 *
 * A grant table (struct sd_cma_grant) is an array in a process's private
 * memory, indexed by the slot of a context (mem.h, sd_ctx_index), that
 * its peers read with process_vm_readv and never write. An entry changes
 * under a sequence number that is odd meanwhile; a reader reads it twice
 * in one call and takes it when both copies agree and the number is even.
 */
#define SD_SHM_MAGIC		0x4d485344u	/* "SDHM" */
#define SD_SHM_VERSION		1
#define SD_SHM_HDR_SIZE		512
#define SD_SHM_OFF_NONCE	8
#define SD_SHM_OFF_RING_SIZE	16
#define SD_SHM_OFF_PID_L	20
#define SD_SHM_OFF_PID_R	24
#define SD_SHM_OFF_WRITER(r)	(64 + 128 * (r))
#define SD_SHM_OFF_READER(r)	(128 + 128 * (r))
#define SD_SHM_W_TAIL		0
#define SD_SHM_W_CLOSED		8
#define SD_SHM_W_WAITING	12
#define SD_SHM_R_HEAD		0
#define SD_SHM_R_ARMED		8
#define SD_SHM_END		1
#define SD_SHM_RESET		2
#define SD_SHM_RING_MIN		4096u
#define SD_SHM_RING_MAX		(16u << 20)
#define SD_SHM_OFF_SIDE(s)	(320 + 64 * (s))
#define SD_SHM_S_CHALLENGE	0
#define SD_SHM_S_ECHO		8
#define SD_SHM_S_GRANTS		16
#define SD_SHM_S_SLOTS		24
#define SD_SHM_S_EXPOSED	28
#define SD_SHM_S_PZ		32
#define SD_SHM_S_EP		40
#define SD_SHM_S_EPOCH		48
#define SD_SHM_S_BUSY		56
#define SD_SHM_S_PULLS		60

/* A field of the segment at byte @off of @p (a line or a side's block). */
static inline uint64_t *sd_shm_u64(uint8_t *p, unsigned off)
{
	return (uint64_t *)(void *)(p + off);
}

static inline uint32_t *sd_shm_u32(uint8_t *p, unsigned off)
{
	return (uint32_t *)(void *)(p + off);
}

struct sd_cma_grant {
	uint32_t	seq;	/* odd while the entry changes */
	uint32_t	ctx;	/* the remote context; 0: none */
	uint32_t	priv;	/* DAT_MEM_PRIV_REMOTE_* granted */
	uint32_t	pad;
	uint64_t	pz;	/* the protection zone, as in the side's pz */
	uint64_t	ep;	/* 0: any EP of the zone; else the side's ep */
	uint64_t	start;	/* the range granted, in the owner's memory */
	uint64_t	size;
};
_Static_assert(sizeof(struct sd_cma_grant) == 48, "grant entry layout");

#endif
