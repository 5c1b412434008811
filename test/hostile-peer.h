/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A hostile peer for the provider's tests (hostile-peer.c defines it): a
 * requester that speaks softdapl's wire protocol (provider/proto.h,
 * provider/PROTOCOL.md) over a plain TCP socket with every byte chosen by
 * the test, so that it can send what no DAT peer ever would: handshake
 * messages of any magic, version, type or private data length, frames of
 * any opcode, flags, length, context, address, tag or ack, and streams
 * cut anywhere. It reads back what the victim answers (ACCEPT or REJECT,
 * frames, the TERMINATE, the end of the stream), each read bounded by a
 * timeout.
 *
 * Every function returns 0 (or a count) or a negative errno; none fails
 * the test by itself, so that a test can expect an error (the victim
 * closing is -EPIPE). Timeouts are in milliseconds, multiplied by
 * TEST_TIMEOUT_SCALE (test_timeout_scale()). Sockets are blocking;
 * reads wait in poll().
 */
#ifndef TEST_HOSTILE_PEER_H
#define TEST_HOSTILE_PEER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "../provider/proto.h"

/* The limits a HELLO of hp_hello announces (the victim must obey them). */
#define HP_MAX_MSG	(1u << 20)
#define HP_RD		4		/* rd_in and rd_out */

/* ---- the stream ----------------------------------------------------- */

/*
 * A TCP connection to @sa (blocking, TCP_NODELAY): the socket, or
 * -errno.
 */
int hp_connect(const struct sockaddr *sa, socklen_t len);

/* Sends all of @buf: 0, or -errno (-EPIPE once the victim has closed). */
int hp_send(int fd, const void *buf, size_t len);

/*
 * Reads exactly @len bytes: 0; -EPIPE when the stream ends first (the
 * bytes read are lost), -ETIMEDOUT when none come for @timeout_ms,
 * -ECONNRESET, or another -errno.
 */
int hp_recv(int fd, void *buf, size_t len, int timeout_ms);

/*
 * Reads and drops whatever comes until the victim ends the stream:
 * the number of bytes dropped (0 at once for a stream already ended),
 * -ETIMEDOUT if it has not ended within @timeout_ms (counted from the
 * call), or -errno (-ECONNRESET: ended by a reset).
 */
long hp_wait_eof(int fd, int timeout_ms);

/* ---- the handshake --------------------------------------------------- */

/*
 * A valid HELLO asking for @port: magic, version, type HELLO, limits
 * HP_MAX_MSG for messages and RDMA, rd_in and rd_out HP_RD, no private
 * data. A test changes what it wants to be wrong.
 */
void hp_hello(struct sd_cm_msg *m, uint64_t port);

/*
 * Sends @m (packed as it is: its fields may lie) and @n bytes of
 * @pdata, whatever m->pdata_len says.
 */
int hp_send_cm(int fd, const struct sd_cm_msg *m, const void *pdata, size_t n);

/* An RTU without private data (the active side's last message). */
int hp_send_rtu(int fd);

/*
 * Reads one handshake message (ACCEPT or REJECT) and its private data
 * into @m and @pdata (room for SD_PROTO_MAX_PDATA bytes, or NULL): 0;
 * -EPROTO when the header is not softdapl's (bad magic or version, or
 * private data above the maximum); or hp_recv's errors.
 */
int hp_recv_cm(int fd, struct sd_cm_msg *m, void *pdata, int timeout_ms);

/* ---- frames ---------------------------------------------------------- */

/*
 * A frame header: @op, @len, @rkey, @addr and @tag; ack, flags and code
 * 0. The ack 0 acknowledges nothing: a victim's requests stay
 * outstanding until the connection ends.
 */
struct sd_hdr hp_hdr(uint8_t op, uint32_t len, uint32_t rkey, uint64_t addr,
		     uint32_t tag);

/*
 * Sends the header @h and then @n bytes of @payload, in one send,
 * whatever h->len says (a frame may lie about its length).
 */
int hp_send_frame(int fd, const struct sd_hdr *h, const void *payload, size_t n);

/*
 * Reads the next frame: its header into @h, and, for the ops with a
 * payload (sd_op_has_payload), its h->len payload bytes, of which the
 * first @cap go into @payload (the rest is read and dropped). Returns
 * the payload bytes kept; -EPIPE when the stream ends between frames,
 * -EPROTO when it ends inside one (or announces more than 64 MiB), or
 * hp_recv's errors.
 */
long hp_recv_frame(int fd, struct sd_hdr *h, void *payload, size_t cap,
		   int timeout_ms);

/* How the victim ended a connection, as the peer saw it (hp_expect_end). */
struct hp_end {
	unsigned	frames;		/* frames read before the end (ACKs, ...) */
	int		terminated;	/* a TERMINATE came: @term */
	struct sd_hdr	term;
	int		disconnected;	/* a DISCONNECT came */
	int		reset;		/* the stream ended with a reset */
};

/*
 * Reads frames until the victim ends the stream (EOF or reset), noting
 * the TERMINATE or DISCONNECT it sent. 0; -EPROTO if anything follows a
 * TERMINATE or a DISCONNECT, or the stream ends inside a frame;
 * -ETIMEDOUT if it does not end within @timeout_ms.
 */
int hp_expect_end(int fd, struct hp_end *end, int timeout_ms);

#endif
