/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the registry tests and the fake provider agree on: the code each slot
 * of the fake DAT_PROVIDER answers with, and which slots take an IA handle.
 * Slot n is the n-th function pointer of struct dat_provider, counting
 * ia_open_func as 0 (79 slots, handle_extendedop_func last).
 */
#ifndef FAKE_PROVIDER_H
#define FAKE_PROVIDER_H

#include <dat2/udat.h>

#define FAKE_NSLOTS 79

/* Providers make their own error codes; the public headers leave it open. */
#ifndef DAT_ERROR
#define DAT_ERROR(type, subtype) ((DAT_RETURN)(DAT_CLASS_ERROR | (type) | (subtype)))
#endif

/* The answer of slot @n: an error no real call returns. */
#define fake_code(n) DAT_ERROR(DAT_INTERNAL_ERROR, 0x100 + (n))

/* The slot of field @f of struct dat_provider. */
#define fake_slot(f) ((int)((offsetof(DAT_PROVIDER, f) - \
			     offsetof(DAT_PROVIDER, ia_open_func)) / sizeof(void *)))

/* X-macro over every slot: S(n) for handle slots, I(n) for IA slots. */
#define FAKE_SLOTS(S, I) \
	S(0) S(1) S(2) S(3) S(4) S(5) I(6) S(7) \
	S(8) S(9) S(10) S(11) S(12) S(13) S(14) I(15) \
	S(16) S(17) S(18) S(19) S(20) S(21) S(22) S(23) \
	S(24) I(25) S(26) S(27) S(28) S(29) S(30) S(31) \
	S(32) S(33) S(34) S(35) S(36) I(37) S(38) S(39) \
	S(40) S(41) S(42) S(43) I(44) S(45) S(46) I(47) \
	S(48) S(49) I(50) S(51) S(52) I(53) S(54) S(55) \
	S(56) I(57) I(58) I(59) S(60) S(61) I(62) S(63) \
	S(64) S(65) S(66) S(67) I(68) S(69) S(70) S(71) \
	S(72) S(73) S(74) I(75) S(76) I(77) S(78)

/* Providers declare this registry service themselves, as OFED's do. */
extern DAT_RETURN DAT_API dats_get_ia_handle(DAT_IA_HANDLE handle,
					     DAT_IA_HANDLE *ia_handle_p);

#endif
