/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the harnesses of the provider's wire input (fuzz-cm.c, fuzz-rx.c)
 * share: the provider under test, in this process, and a raw peer that
 * speaks to it over loopback TCP with plain sockets.
 *
 * The provider and the registry are linked in as objects (not loaded from
 * their .so files): the harness registers the provider itself, calling its
 * dat_provider_init as a registry would for a dat.conf line
 *
 *   fuzz u2.0 nonthreadsafe default - softdapl.2.0 "127.0.0.1" ""
 *
 * with DAT_OVERRIDE naming an empty file, so that nothing is loaded from
 * disk, and then uses the ordinary DAT API (dat_ia_open, dat_ep_create...)
 * to get real objects. The raw peer is the other end of the victim's TCP
 * connections: it writes the fuzzer's bytes as they come and reads and
 * discards whatever the victim answers.
 *
 * Every wait is bounded; a bound exceeded is a hang, reported through
 * FUZZ_CHECK as a crash.
 */
#ifndef FUZZ_PEER_H
#define FUZZ_PEER_H

#include <netinet/in.h>

#include <dat2/udat.h>

#include "fuzz.h"

/*
 * How long the victim may take to answer anything, in ms: far beyond any
 * answer it owes (a few ms), with room for a machine loaded with other
 * test suites and a sanitizer's slowness.
 */
#define FZ_WAIT_MS	20000

struct fz_victim {
	DAT_IA_HANDLE		ia;
	DAT_EVD_HANDLE		async_evd;
	DAT_PZ_HANDLE		pz;
	struct sockaddr_in	addr;	/* the IA's: 127.0.0.1 */
};

/* Registers the provider, opens the IA "fuzz" on 127.0.0.1 and a PZ. */
void fz_victim_open(struct fz_victim *v);

/* An EVD of @qlen for the streams of @flags. */
DAT_EVD_HANDLE fz_evd(struct fz_victim *v, DAT_COUNT qlen, DAT_EVD_FLAGS flags);

/*
 * The next event of @evd within FZ_WAIT_MS (a hang otherwise); or, with
 * @poll, the next event if there is one: true when *@ev was filled.
 */
void fz_wait(DAT_EVD_HANDLE evd, DAT_EVENT *ev);
int fz_poll(DAT_EVD_HANDLE evd, DAT_EVENT *ev);

/* The raw peer's sockets: blocking until the bounds above. */
int fz_listen(uint16_t *port);			/* on 127.0.0.1, port 0 */
int fz_accept(int lfd);
int fz_connect(uint16_t port);			/* to 127.0.0.1 */

/* Reads exactly @n bytes; 0, or -1 at EOF or error. */
int fz_read(int fd, void *buf, size_t n);

/*
 * Writes @n bytes of @p in pieces of at most @chunk bytes (0: as many as
 * the socket takes), discarding what the victim sends meanwhile. Gives up
 * quietly when the victim stops reading for a while (a receiver not
 * ready: TCP holds us, as it should) or closes.
 */
void fz_write(int fd, const uint8_t *p, size_t n, size_t chunk);

/* Reads and discards until EOF or an error (a hang past FZ_WAIT_MS). */
void fz_drain(int fd);

/* Closes @fd at once (RST): no TIME_WAIT left behind per input. */
void fz_close(int fd);

#endif
