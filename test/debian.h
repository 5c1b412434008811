/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Running Debian's DAT programs (dapl2-utils: dapltest, dtest, dtestx,
 * dtestcm, dtestsrq) against our provider, for the conformance matrix
 * (test-conformance.c) and the tests that run them in other settings
 * (test-provider-dapltest.c). Every helper fails the test on an
 * unexpected result.
 */
#ifndef TEST_DEBIAN_H
#define TEST_DEBIAN_H

#include <stdbool.h>

/*
 * dtest and dtestx hand the server's address to the client over a plain
 * TCP connection to this fixed port (CONN_PORT in their sources), as a
 * 128-byte message; dtest's service point is SERVER_CONN_QUAL 45248,
 * dtestx's SERVER_ID 31112. Programs that use them cannot run two at a
 * time on one host.
 */
#define DEB_PARAMS_PORT		15828
#define DEB_PARAMS_SIZE		128
#define DEB_DTEST_PSP		45248
#define DEB_DTESTX_PSP		31112

/*
 * Which registry the programs started from now on use: ours
 * (LD_LIBRARY_PATH=build/lib) or OFED's (the system's libdat2), with a
 * dat.conf naming our provider SDT_IA_NAME over "lo" in either case; in
 * a sanitized build the sanitizer's runtime is preloaded
 * (sdt_sanitize_debian).
 */
void deb_registry(bool ours);

/* True while something listens on TCP port @port of this host. */
bool deb_listening(unsigned port);

/* Waits up to @timeout_s (scaled) for something to listen on @port. */
bool deb_wait_listening(unsigned port, int timeout_s);

/*
 * Waits (30 s, scaled) until nothing listens on @port: a program of an
 * earlier test may still be tearing down. Fails the test after that,
 * naming @why.
 */
void deb_port_quiet(unsigned port, const char *why);

/*
 * A block of 32 free loopback ports below the kernel's ephemeral range
 * (where active connections take their source ports), at a place that
 * depends on the pid so that parallel runs do not meet: dapltest's
 * server listens on the first and each of its tests on those after.
 */
unsigned deb_free_ports(void);

/*
 * Relays dtest's address exchange so that its client cannot race its
 * server. The server sends its address to the client before it creates
 * the service point the client then connects to (dtest.c:
 * send_server_params, then dat_psp_create), so a quick client is refused
 * by nobody listening (NON_PEER_REJECTED), a race of dtest's own. The relay takes the server's message on
 * DEB_PARAMS_PORT itself, waits until TCP port @psp listens, then
 * listens on DEB_PARAMS_PORT in the server's place: the client, started
 * after deb_relay_start returns, gets the same 128 bytes from it.
 * deb_relay_finish waits (bounded) until the client took them.
 */
struct deb_relay {
	int	lfd;
	char	msg[DEB_PARAMS_SIZE];
};
void deb_relay_start(struct deb_relay *r, unsigned psp, int timeout_s);
void deb_relay_finish(struct deb_relay *r, int timeout_s);

/*
 * The sanitizer reports about our libraries in @out, the output of
 * @who (sdt_sanitizer_reports): fails the test if there are any.
 */
void deb_no_reports(const char *who, const char *out);

/* Prints the lines of @out that contain @key (figures for the log). */
void deb_show(const char *out, const char *key);

/* The start of the last @n lines of @out (for failure messages). */
const char *deb_tail(const char *out, unsigned n);

#endif
