/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl: <dat2/udat_vendor_specific.h>
 *
 * Hook for vendor additions to the uDAT API, included by <dat2/udat.h>.
 * softdapl defines no vendor-specific items; only the common hook
 * <dat2/dat_vendor_specific.h> is pulled in.
 */

#ifndef _UDAT_VENDOR_SPECIFIC_H_
#define _UDAT_VENDOR_SPECIFIC_H_

#include <dat2/dat_vendor_specific.h>

#endif /* _UDAT_VENDOR_SPECIFIC_H_ */
