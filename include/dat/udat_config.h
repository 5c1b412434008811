/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl: <dat/udat_config.h>
 *
 * Build-time configuration of the DAT 1.2 user API: the API version and
 * the thread-safety level that dat_ia_open() asks the registry for.
 */

#ifndef _SOFTDAPL_DAT_UDAT_CONFIG_H_
#define _SOFTDAPL_DAT_UDAT_CONFIG_H_

/* DAT API version of these headers (1.2). */
#define DAT_VERSION_MAJOR	1
#define DAT_VERSION_MINOR	2

/*
 * Thread-safety level requested by dat_ia_open().  The DAT 1.2 headers
 * set DAT_FALSE whatever the build predefines; so do we, with an #undef
 * first so that no redefinition warning appears.
 */
#undef DAT_THREADSAFE
#define DAT_THREADSAFE		DAT_FALSE

#endif /* _SOFTDAPL_DAT_UDAT_CONFIG_H_ */
