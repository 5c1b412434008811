/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl: <dat/dat_vendor_specific.h>
 *
 * Hook for vendor additions common to uDAT and kDAT.  The DAT headers
 * include it so a vendor could add definitions here; softdapl, a pure
 * software provider, has none, and the file is intentionally empty.
 */

#ifndef _SOFTDAPL_DAT_DAT_VENDOR_SPECIFIC_H_
#define _SOFTDAPL_DAT_DAT_VENDOR_SPECIFIC_H_

#endif /* _SOFTDAPL_DAT_DAT_VENDOR_SPECIFIC_H_ */
