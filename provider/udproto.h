/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl: the wire format of unreliable datagram (UD) endpoints, and
 * nothing else (ext.h tells the story; ud.c and udcm.c speak it).
 *
 * A UD endpoint is one UDP socket. Every datagram, data or connection
 * management, starts with the same 40-byte header, every field a fixed-
 * width little-endian integer at a fixed offset; ud_hdr_pack/unpack are
 * the only code that knows the offsets. A receiver unpacks and checks the
 * header (ud_hdr_check) before it looks at anything else: datagrams come
 * from anyone, and a bad one is dropped and counted, never answered.
 *
 *   DATA  payload: the message. dst_qpn/dst_qkey name the receiving EP
 *         (from its address handle); src_qpn/src_qkey the sender.
 *   REQ   active EP -> the UDP port of a PSP (same number as its TCP port):
 *         "resolve an address handle to an EP you accept me on". cm_id
 *         names the attempt; arg is the connection qualifier; the
 *         requester's private data follows.
 *   REP   accepting EP -> requester: dat_cr_accept. Sent from the
 *         accepting EP's own socket, so its source address is where data
 *         goes; src_qpn/src_qkey complete the address handle. The
 *         accepter's private data follows.
 *   REJ   -> requester: dat_cr_reject (arg SD_UD_REJ_CONSUMER, private
 *         data follows) or no consumer service point (SD_UD_REJ_NO_SP).
 *   RTU   requester -> accepting EP: the REP arrived; the accepter's
 *         address handle is complete too.
 *
 * Losses are repaired by the requester resending REQ and the accepter
 * resending REP (udcm.c); duplicates are recognised by cm_id.
 */
#ifndef SD_UDPROTO_H
#define SD_UDPROTO_H

#include <stdint.h>

#include "proto.h"	/* sd_put*, sd_get* */

#define SD_UD_MAGIC		0x44554453u	/* "SDUD" */
#define SD_UD_VERSION		1
#define SD_UD_HDR_SIZE		40
#define SD_UD_MAX_PDATA		SD_PROTO_MAX_PDATA	/* 1024 */

/*
 * The largest UDP payload (IPv4: 65535 - 20 - 8; IPv6 allows 20 more,
 * but one limit serves both) less our header: what one datagram carries.
 */
#define SD_UD_MAX_DGRAM		65507u
#define SD_UD_MAX_MSG		(SD_UD_MAX_DGRAM - SD_UD_HDR_SIZE)

enum sd_ud_type {
	SD_UD_DATA	= 1,
	SD_UD_REQ	= 2,
	SD_UD_REP	= 3,
	SD_UD_REJ	= 4,
	SD_UD_RTU	= 5,
	SD_UD_TYPE_MAX	= 5,
};

/* flags */
#define SD_UD_F_SE		0x01	/* DATA: the sender asked for a solicited event */

/* REJ: arg */
enum sd_ud_rej_reason {
	SD_UD_REJ_CONSUMER	= 0,	/* dat_cr_reject */
	SD_UD_REJ_NO_SP		= 1,	/* nothing accepts UD requests there */
};

struct sd_ud_hdr {
	uint32_t	magic;		/* SD_UD_MAGIC */
	uint8_t		version;	/* SD_UD_VERSION */
	uint8_t		type;		/* enum sd_ud_type */
	uint8_t		flags;		/* SD_UD_F_*; 0 except on DATA */
	uint8_t		rsvd;		/* 0 */
	uint32_t	dst_qpn;	/* the receiving EP; 0 in REQ */
	uint32_t	dst_qkey;	/* its key; 0 in REQ */
	uint32_t	src_qpn;	/* the sending EP */
	uint32_t	src_qkey;	/* its key (for the peer's address handle) */
	uint64_t	cm_id;		/* REQ, REP, REJ, RTU: the attempt; DATA: 0 */
	uint32_t	arg;		/* REQ: conn_qual; REJ: reason; else 0 */
	uint16_t	pdata_len;	/* REQ, REP, REJ: private data bytes that
					 * follow; else 0 */
	uint16_t	rsvd2;		/* 0 */
};

static inline void ud_hdr_pack(const struct sd_ud_hdr *h, uint8_t *b)
{
	sd_put32(b + 0, h->magic);
	b[4] = h->version;
	b[5] = h->type;
	b[6] = h->flags;
	b[7] = 0;
	sd_put32(b + 8, h->dst_qpn);
	sd_put32(b + 12, h->dst_qkey);
	sd_put32(b + 16, h->src_qpn);
	sd_put32(b + 20, h->src_qkey);
	sd_put64(b + 24, h->cm_id);
	sd_put32(b + 32, h->arg);
	sd_put16(b + 36, h->pdata_len);
	sd_put16(b + 38, 0);
}

static inline void ud_hdr_unpack(struct sd_ud_hdr *h, const uint8_t *b)
{
	h->magic = sd_get32(b + 0);
	h->version = b[4];
	h->type = b[5];
	h->flags = b[6];
	h->rsvd = b[7];
	h->dst_qpn = sd_get32(b + 8);
	h->dst_qkey = sd_get32(b + 12);
	h->src_qpn = sd_get32(b + 16);
	h->src_qkey = sd_get32(b + 20);
	h->cm_id = sd_get64(b + 24);
	h->arg = sd_get32(b + 32);
	h->pdata_len = sd_get16(b + 36);
	h->rsvd2 = sd_get16(b + 38);
}

/*
 * Checks an unpacked header of a datagram of @n bytes: magic, version,
 * type, reserved fields, flags only on DATA, and for connection messages
 * a private data length that is within bounds and is exactly what
 * follows. 0, or -EPROTO (-71: no <errno.h> here).
 */
static inline int ud_hdr_check(const struct sd_ud_hdr *h, uint64_t n)
{
	if (n < SD_UD_HDR_SIZE || h->magic != SD_UD_MAGIC ||
	    h->version != SD_UD_VERSION || h->type == 0 ||
	    h->type > SD_UD_TYPE_MAX || h->rsvd != 0 || h->rsvd2 != 0 ||
	    h->src_qpn == 0)
		return -71;
	if (h->type == SD_UD_DATA)
		return (h->flags & ~SD_UD_F_SE) || h->pdata_len != 0 ||
		       h->cm_id != 0 || n > SD_UD_MAX_DGRAM ? -71 : 0;
	if (h->flags != 0 || h->pdata_len > SD_UD_MAX_PDATA ||
	    n != (uint64_t)SD_UD_HDR_SIZE + h->pdata_len)
		return -71;
	if ((h->type == SD_UD_RTU) && h->pdata_len != 0)
		return -71;
	return 0;
}

#endif
