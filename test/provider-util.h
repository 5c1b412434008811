/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers for the provider's tests: an IA of our provider through a
 * dat.conf written into the test's directory.
 */
#ifndef TEST_PROVIDER_UTIL_H
#define TEST_PROVIDER_UTIL_H

#include <dat2/udat.h>

/* The IA name the helpers register: "sdtest". */
#define SDT_IA_NAME "sdtest"

/*
 * Writes a dat.conf with one entry, SDT_IA_NAME, for build/lib's
 * libdaplsoft.so.2 with @ia_params ("lo" when NULL), and points
 * DAT_OVERRIDE at it.
 */
void sdt_conf(const char *ia_params);

/* sdt_conf(ia_params), then dat_ia_open; fails the test on error. */
DAT_IA_HANDLE sdt_open_ia(const char *ia_params, DAT_EVD_HANDLE *async_evd);

/* The path of our provider library in the build tree. */
const char *sdt_provider_path(void);

/*
 * Debian's binaries (dapltest, dtest...) are not instrumented, and our
 * sanitized libdat2 and libdaplsoft load into them only when the
 * sanitizer's runtime is loaded first. In a sanitized build this points
 * LD_PRELOAD at the runtime this process runs with (libasan.so.8,
 * libtsan.so.2) for every program the test runs from here on, and makes
 * sanitizer reports leave their exit status alone (the binaries leak,
 * and ASan, LSan and UBSan share one exitcode option): the test must
 * read their output with sdt_sanitizer_reports. It returns "asan" or
 * "tsan"; in a plain build it changes nothing and returns NULL.
 */
const char *sdt_sanitize_debian(void);

/*
 * The sanitizer reports in @out, the output of a Debian binary (@who
 * names it in what is printed), that concern our libraries: a
 * ThreadSanitizer report or a leak with a frame in libdat2 or
 * libdaplsoft, and any AddressSanitizer or UBSan error. Each is printed
 * whole. The others, whose every frame is the binary's, libc's or the
 * sanitizer's, are the binary's own (dapltest and dtest leak, and
 * dapltest synchronises some of its threads in ways TSan cannot see):
 * their summary is printed and they are not counted.
 */
unsigned sdt_sanitizer_reports(const char *who, const char *out);

#endif
