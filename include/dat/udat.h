/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl: <dat/udat.h>
 *
 * Compatibility entry point.  The uDAPL manual pages give the synopsis
 * "#include <dat/udat.h>" (the DAT 1.x install location), whereas DAT 2.0
 * headers live under <dat2/>.  Programs written from those pages build
 * unchanged by getting the DAT 2.0 API through this file.
 */

#ifndef _SOFTDAPL_DAT_UDAT_H_
#define _SOFTDAPL_DAT_UDAT_H_

#include <dat2/udat.h>

#endif /* _SOFTDAPL_DAT_UDAT_H_ */
