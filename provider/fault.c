/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fault injection: connections that fail on purpose, so that a test, or
 * CI, can check what a consumer sees when the network fails under it, and
 * run the same failure again.
 *
 * Off by default. The environment variable SOFTDAPL_FAULT, read once when
 * the provider library is loaded (before dat_provider_init), turns it on
 * for the whole process:
 *
 *   SOFTDAPL_FAULT=seed=42,drop_after=100,delay_us=500,cut=0.01
 *
 *   seed=N        the seed of every draw: an unsigned 64-bit number,
 *                 decimal or 0x hex (default 0)
 *   drop_after=N  cut each connection once N frames were written on it
 *                 (1 <= N <= 4294967295)
 *   delay_us=N    hold each write of frames back for a time drawn from
 *                 0 to N microseconds (N <= 1000000)
 *   cut=P         after each frame written, cut the connection with
 *                 probability P (a decimal number, 0 <= P <= 1)
 *
 * Items are separated by commas, in any order, each at most once. An
 * unknown name, a value that does not parse or is out of range, a string
 * longer than 255 bytes or one that names no fault (only a seed) prints
 * one line on stderr, "softdapl: SOFTDAPL_FAULT=...: <why>; fault
 * injection stays off", and leaves it off. When it is on, one line on
 * stderr gives every value, so a failed run's log holds its seed:
 * "softdapl: fault injection on: seed=42 drop_after=100 delay_us=500
 * cut=0.01".
 *
 * What counts as a frame: a header and its payload on an established
 * connection (tx.c): requests, READ and atomic responses, standalone
 * ACKs; not the handshake's messages (RTU included), not the DISCONNECT.
 * A frame counts when its last byte is written. Frames leave in batches
 * (one sendmsg of up to SD_TX_BATCH frames), and a cut comes after the
 * batch that holds the frame that decided it: a connection cut by
 * drop_after=N has carried at least N frames, and at most one batch more.
 * Each process counts the frames it writes: with SOFTDAPL_FAULT in both
 * processes, either may cut a connection first.
 *
 * A cut looks like a network failure to both ends. This side ends the
 * connection with DAT_CONNECTION_EVENT_BROKEN (its outstanding DTOs are
 * flushed, PROTOCOL.md "Disconnect and flush"); what is left on the wire
 * for the peer is half a frame header followed by end of stream (or only
 * the end, where a frame was half written already), so the peer reads the
 * connection end inside a frame and sees BROKEN too (except a peer waiting
 * for a receive, RNR, for which an end of stream is DISCONNECTED). Every
 * cut is logged on stderr whatever SOFTDAPL_DEBUG says ("softdapl:
 * fault: ep 0x.. connection 3: cut after 100 frames (drop_after)");
 * SOFTDAPL_DEBUG=1 also logs each connection's number and each delay.
 *
 * Determinism. Connections are numbered 1, 2, ... in the order this
 * process establishes them. Every draw for a connection is a hash of the
 * seed, its number, and the frame (cut) or write (delay) it is drawn for,
 * not a stream shared with anything else: whether a connection is cut
 * after its k-th frame, and how long its j-th held write waits, depends on
 * SOFTDAPL_FAULT and those numbers alone, so a rerun with the same value
 * makes the same decisions. Which traffic the k-th frame carries still
 * depends on timing (batching, ACKs), as it would on a network.
 *
 * Delays never sleep. A held write stays in the transmit ring and the
 * transmitter returns: on a consumer thread it hands the EP to the
 * engine's tick (sd_progress_defer, every SD_TICK_MS); on the engine it
 * starts the socket's hold timer (sock->hold, set up when fault injection
 * is on), rounded up to the millisecond, whose callback writes. Nothing
 * waits under a lock, and a held frame
 * leaves in order with the rest.
 *
 * Cost when off: one test of sd_fault_on, predicted not taken, per frame
 * written, per write and per connection established (tx.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "progress.h"
#include "proto.h"
#include "qp.h"
#include "sock.h"
#include "trace.h"
#include "util.h"
#include "wire.h"

bool sd_fault_on;

/* What SOFTDAPL_FAULT asked for; const once the library is loaded. */
static struct {
	uint64_t	seed;
	uint32_t	drop_after;	/* 0: none */
	uint32_t	delay_us;	/* 0: none */
	double		cut;		/* probability per frame */
	uint64_t	cut_below;	/* cut when a 53-bit draw is below */
} cfg;

/* The last connection number given out; any thread, atomic. */
static uint32_t last_conn;

/* splitmix64's finalizer: a 64-bit hash, every bit of input in every bit. */
static uint64_t mix64(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The draw for event @n of kind @salt on @f's connection. */
static uint64_t draw(const struct sd_fault_conn *f, uint64_t salt, uint64_t n)
{
	return mix64(f->key ^ mix64(salt + n));
}

#define SALT_CUT	0x637574ull		/* "cut" */
#define SALT_DELAY	0x64656c6179ull		/* "delay" */

/* ---- SOFTDAPL_FAULT ----------------------------------------------- */

/* An unsigned number (decimal, or 0x hex) up to @max; 0 or -1. */
static int parse_num(const char *v, uint64_t max, uint64_t *out)
{
	unsigned long long x;
	char *end;

	if (*v < '0' || *v > '9')
		return -1;	/* no sign, no blank: strtoull takes both */
	errno = 0;
	x = strtoull(v, &end, 0);
	if (errno != 0 || *end != '\0' || x > max)
		return -1;
	*out = x;
	return 0;
}

/* Parses @s into cfg; 0, or -1 with the reason in @why. */
static int parse(const char *s, char *why, size_t whylen)
{
	char buf[256], *item, *save = NULL;
	unsigned seen = 0;

	if (strlen(s) >= sizeof(buf)) {
		snprintf(why, whylen, "longer than %zu bytes", sizeof(buf) - 1);
		return -1;
	}
	strcpy(buf, s);
	for (item = strtok_r(buf, ",", &save); item != NULL;
	     item = strtok_r(NULL, ",", &save)) {
		static const char *const names[] = {
			"seed", "drop_after", "delay_us", "cut",
		};
		char *v = strchr(item, '=');
		uint64_t x = 0;
		unsigned i;

		if (v == NULL) {
			snprintf(why, whylen, "\"%s\" is not name=value", item);
			return -1;
		}
		*v++ = '\0';
		for (i = 0; i < SD_ARRAY_SIZE(names); i++)
			if (strcmp(item, names[i]) == 0)
				break;
		if (i == SD_ARRAY_SIZE(names)) {
			snprintf(why, whylen, "unknown name \"%s\" (seed, "
				 "drop_after, delay_us, cut)", item);
			return -1;
		}
		if (seen & (1u << i)) {
			snprintf(why, whylen, "%s given twice", item);
			return -1;
		}
		seen |= 1u << i;
		switch (i) {
		case 0:
			if (parse_num(v, UINT64_MAX, &x) < 0)
				goto bad;
			cfg.seed = x;
			break;
		case 1:
			if (parse_num(v, UINT32_MAX, &x) < 0 || x == 0)
				goto bad;
			cfg.drop_after = (uint32_t)x;
			break;
		case 2:
			if (parse_num(v, 1000000, &x) < 0)
				goto bad;
			cfg.delay_us = (uint32_t)x;
			break;
		default: {
			char *end;
			double p;

			if ((*v < '0' || *v > '9') && *v != '.')
				goto bad;
			errno = 0;
			p = strtod(v, &end);
			/* NaN fails both comparisons. */
			if (errno != 0 || *end != '\0' || !(p >= 0.0 && p <= 1.0))
				goto bad;
			cfg.cut = p;
			/* Draws are 53-bit: p = 1 is 2^53, above them all. */
			cfg.cut_below = (uint64_t)(p * 9007199254740992.0);
			break;
		}
		}
		continue;
bad:
		snprintf(why, whylen, "bad value \"%s\" for %s", v, item);
		return -1;
	}
	if (cfg.drop_after == 0 && cfg.delay_us == 0 && cfg.cut_below == 0) {
		snprintf(why, whylen, "names no fault (drop_after, delay_us, "
			 "cut)");
		return -1;
	}
	return 0;
}

/*
 * Before dat_provider_init, and before any thread of ours exists; before
 * the trace opens too, so that its banner goes to stderr only.
 */
__attribute__((constructor(SD_TRACE_CTOR - 1))) static void sd_fault_init(void)
{
	const char *s = getenv("SOFTDAPL_FAULT");
	char why[160];

	if (s == NULL || *s == '\0')
		return;
	if (parse(s, why, sizeof(why)) < 0) {
		memset(&cfg, 0, sizeof(cfg));
		sd_log("SOFTDAPL_FAULT=%s: %s; fault injection stays off", s, why);
		return;
	}
	sd_fault_on = true;
	sd_log("fault injection on: seed=%llu drop_after=%u delay_us=%u cut=%g",
	       (unsigned long long)cfg.seed, cfg.drop_after, cfg.delay_us,
	       cfg.cut);
}

/* ---- the hooks ----------------------------------------------------- */

void sd_fault_conn_start(struct sd_ep *ep)
{
	struct sd_fault_conn *f = &ep->tx.fault;

	SD_ASSERT_HELD(&ep->lock);
	memset(f, 0, sizeof(*f));
	f->conn = __atomic_add_fetch(&last_conn, 1, __ATOMIC_RELAXED);
	f->key = mix64(cfg.seed ^ mix64(f->conn));
	sd_dbg("fault: ep %p is connection %u", (void *)ep, f->conn);
}

void sd_fault_frame(struct sd_ep *ep, uint8_t op)
{
	struct sd_fault_conn *f = &ep->tx.fault;

	if (f->conn == 0 || f->cut != NULL || op == SD_OP_DISCONNECT)
		return;
	f->frames++;
	if (cfg.drop_after != 0 && f->frames >= cfg.drop_after)
		f->cut = "drop_after";
	else if (cfg.cut_below != 0 &&
		 draw(f, SALT_CUT, f->frames) >> 11 < cfg.cut_below)
		f->cut = "cut";
}

void sd_fault_cut(struct sd_ep *ep)
{
	struct sd_fault_conn *f = &ep->tx.fault;
	struct sd_sock *sock = ep->sock;
	const uint32_t half = SD_HDR_SIZE / 2;

	SD_ASSERT_HELD(&ep->lock);
	sd_log("fault: %s connection %u: cut after %u frames (%s)",
	       sd_obj_name(&ep->obj).s, f->conn, f->frames, f->cut);
	f->cut = NULL;
	if (sock == NULL)
		return;
	/*
	 * Half a header for the peer to read before the end of stream
	 * (sock->out goes out before the socket is shut: cm.c linger_io),
	 * unless a frame is half written already, whose rest never comes
	 * (sd_sock_detach), or our DISCONNECT is out and the write side
	 * shut. Its bytes are never looked at.
	 */
	if (!sd_tx_mid_frame(ep) && !ep->tx.disc_sent &&
	    sock->out_len + half <= sizeof(sock->out)) {
		memset(sock->out + sock->out_len, 0, half);
		sock->out_len += half;
	}
	sd_qp_close(ep, DAT_CONNECTION_EVENT_BROKEN, NULL, "fault injected");
}

/* Engine: a held write's time is up (sock->hold). */
static void hold_timer_cb(uv_timer_t *t)
{
	struct sd_sock *sock = t->data;
	struct sd_ep *ep = sock->ep;	/* the socket holds a reference */

	pthread_mutex_lock(&ep->lock);
	if (ep->sock == sock && sock->phase == SD_SK_DATA) {
		sd_tx_progress(ep);
		sd_sock_update(ep);
	}
	pthread_mutex_unlock(&ep->lock);
}

bool sd_fault_hold(struct sd_ep *ep)
{
	struct sd_fault_conn *f = &ep->tx.fault;
	struct sd_sock *sock = ep->sock;
	uint64_t now;

	SD_ASSERT_HELD(&ep->lock);
	/* A frame half written goes on: its peer is reading it. */
	if (cfg.delay_us == 0 || f->conn == 0 || sd_tx_mid_frame(ep))
		return false;
	now = sd_now_ns();
	if (f->hold_until == 0) {
		uint64_t us = draw(f, SALT_DELAY, f->writes++) %
			      ((uint64_t)cfg.delay_us + 1);

		if (us == 0)
			return false;
		f->hold_until = now + us * 1000;
		sd_dbg("fault: ep %p connection %u: write held %llu us",
		       (void *)ep, f->conn, (unsigned long long)us);
	}
	if (now >= f->hold_until) {
		f->hold_until = 0;
		return false;
	}
	if (sd_engine_on_thread()) {
		uint64_t ms = (f->hold_until - now + 999999) / 1000000;

		uv_timer_start(&sock->hold, hold_timer_cb, ms, 0);
	} else {
		sd_progress_defer(ep);
	}
	return true;
}
