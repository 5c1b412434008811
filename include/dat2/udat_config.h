/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl: <dat2/udat_config.h>
 *
 * Build-time configuration of the uDAT API seen by consumers: the API
 * version and thread-safety level that dat_ia_open() requests from the
 * registry, and whether the extension interfaces are declared.
 */

#ifndef _UDAT_CONFIG_H_
#define _UDAT_CONFIG_H_

/* DAT API version implemented by these headers (2.0). */
#define DAT_VERSION_MAJOR	2
#define DAT_VERSION_MINOR	0

/*
 * Thread-safety level requested by dat_ia_open().  The registry only
 * opens a provider registered with exactly this level, and dat.conf
 * entries are conventionally "nonthreadsafe".  The OFED headers force
 * DAT_FALSE even when the build predefines DAT_THREADSAFE; we do the
 * same, so such builds request what they always did, and #undef first
 * so that no redefinition warning appears.
 */
#undef DAT_THREADSAFE
#define DAT_THREADSAFE		DAT_FALSE

/*
 * Declare the DAT 2.0 extension interfaces (extension enumerators,
 * dat_extension_op()).  The headers only test whether it is defined, so
 * a value predefined by the build is kept and extensions stay enabled.
 */
#ifndef DAT_EXTENSIONS
#define DAT_EXTENSIONS		1
#endif

#endif /* _UDAT_CONFIG_H_ */
