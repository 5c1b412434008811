/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl: <dat/udat_vendor_specific.h>
 *
 * Hook for vendor additions to the uDAT API, included by <dat/udat.h>.
 * softdapl defines no vendor-specific items; only the common hook
 * <dat/dat_vendor_specific.h> is pulled in.
 */

#ifndef _SOFTDAPL_DAT_UDAT_VENDOR_SPECIFIC_H_
#define _SOFTDAPL_DAT_UDAT_VENDOR_SPECIFIC_H_

#include <dat/dat_vendor_specific.h>

#endif /* _SOFTDAPL_DAT_UDAT_VENDOR_SPECIFIC_H_ */
