/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Debug output of the registry.
 *
 * DAT_DBG_TYPE is a bit mask with the bits OFED's registry uses, so that
 * users keep their habits; DAT_DBG_DEST picks where the lines go. Unlike
 * OFED, the default destination is stderr (a library should not write into
 * a consumer's stdout unless asked to).
 */
#ifndef DREG_DBG_H
#define DREG_DBG_H

enum dreg_dbg_type {
	DREG_DBG_ERROR		= 0x01,	/* errors: bad dat.conf lines, load failures */
	DREG_DBG_GENERIC	= 0x02,	/* which dat.conf was read */
	DREG_DBG_SR		= 0x04,	/* static registry: entries, loading */
	DREG_DBG_DR		= 0x08,	/* dynamic registry: add/remove provider */
	DREG_DBG_PROVIDER_API	= 0x10,	/* calls made by providers */
	DREG_DBG_CONSUMER_API	= 0x20,	/* calls made by consumers */
};

enum dreg_dbg_dest {
	DREG_DEST_STDOUT	= 0x1,
	DREG_DEST_SYSLOG	= 0x2,
	DREG_DEST_STDERR	= 0x4,	/* ours; the default when DAT_DBG_DEST is unset */
};

/* True when any bit of @type is enabled. Cheap: reads a cached mask. */
int dreg_dbg_on(unsigned type);

/* Prints one line (a newline is added) prefixed with "dat: ". */
void dreg_dbg(unsigned type, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
