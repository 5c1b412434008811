/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Debug output of the registry: DAT_DBG_TYPE and DAT_DBG_DEST are read once,
 * on first use, from any thread.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <syslog.h>

#include "dbg.h"

static unsigned dreg_dbg_mask;
static unsigned dreg_dbg_dest = DREG_DEST_STDERR;
static pthread_once_t dreg_dbg_once = PTHREAD_ONCE_INIT;

static unsigned env_mask(const char *name, unsigned fallback)
{
	const char *s = getenv(name);
	char *end;
	unsigned long v;

	if (s == NULL || *s == '\0')
		return fallback;
	v = strtoul(s, &end, 0);
	if (*end != '\0')
		return fallback;
	return (unsigned)v;
}

static void dreg_dbg_init(void)
{
	dreg_dbg_mask = env_mask("DAT_DBG_TYPE", 0);
	dreg_dbg_dest = env_mask("DAT_DBG_DEST", DREG_DEST_STDERR);
	if ((dreg_dbg_dest & (DREG_DEST_STDOUT | DREG_DEST_SYSLOG |
			      DREG_DEST_STDERR)) == 0)
		dreg_dbg_dest = DREG_DEST_STDERR;
}

int dreg_dbg_on(unsigned type)
{
	pthread_once(&dreg_dbg_once, dreg_dbg_init);
	return (dreg_dbg_mask & type) != 0;
}

void dreg_dbg(unsigned type, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (!dreg_dbg_on(type))
		return;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);

	/* One fprintf per line so that lines from several threads stay whole. */
	if (dreg_dbg_dest & DREG_DEST_STDERR)
		fprintf(stderr, "dat: %s\n", line);
	if (dreg_dbg_dest & DREG_DEST_STDOUT) {
		fprintf(stdout, "dat: %s\n", line);
		fflush(stdout);
	}
	if (dreg_dbg_dest & DREG_DEST_SYSLOG)
		syslog(type & DREG_DBG_ERROR ? LOG_ERR : LOG_DEBUG, "dat: %s", line);
}
