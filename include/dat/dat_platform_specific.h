/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl: <dat/dat_platform_specific.h>
 *
 * Host-dependent foundation of the DAT 1.2 API: the fixed-width integer
 * types, the socket-address types that name Interface Adapters, and the
 * empty annotation macros (IN, OUT, INOUT) that decorate every prototype.
 *
 * softdapl runs in Linux user space only.  Where the DAT 1.2 headers of
 * Solaris (illumos) choose differently for their own platform, these are
 * the choices of a Linux x86-64 build of DAT 1.2 (illumos's own __linux__
 * branch, which OFED's compat-dapl 1.2 shares), each noted below; the
 * sizes, offsets and values that follow are the same on both.
 */

#ifndef _SOFTDAPL_DAT_PLATFORM_SPECIFIC_H_
#define _SOFTDAPL_DAT_PLATFORM_SPECIFIC_H_

#if !defined(__linux__)
#error "softdapl: the DAT headers support Linux user space only"
#endif
#if defined(__KERNEL__)
#error "softdapl: kernel DAT (kDAPL) is not provided"
#endif

/*
 * The DAT 2.0 headers (<dat2/...>) declare the same names with other
 * layouts: a file includes one API or the other.  Their include guards
 * are the ones tested here.
 */
#if defined(_DAT_PLATFORM_SPECIFIC_H_) || defined(_UDAT_H_) || defined(_DAT_H_)
#error "softdapl: <dat/...> (DAT 1.2) and <dat2/...> (DAT 2.0) cannot be included in the same file"
#endif

/*
 * Only <sys/types.h> and <sys/socket.h>, as the Linux build of DAT 1.2
 * has it: <netinet/in.h> (and <stdint.h>, which it pulls in) are the
 * program's to include.  Solaris's header also includes <netinet/in.h>
 * and <inttypes.h>.
 */
#include <sys/types.h>
#include <sys/socket.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Buffer alignment (bytes) that gives the best transfer performance. */
#ifndef DAT_OPTIMAL_ALIGNMENT
#define DAT_OPTIMAL_ALIGNMENT	256
#endif

/* ------------------------------------------------------------------ */
/* Scalar types                                                        */
/* ------------------------------------------------------------------ */

/*
 * Linux: u_int32_t and u_int64_t of <sys/types.h> (Solaris: uint32_t and
 * uint64_t of <inttypes.h>).  On x86-64 glibc u_int64_t is uint64_t, an
 * unsigned long.
 */
typedef u_int32_t		DAT_UINT32;	/* host byte order, 32 bits */
typedef u_int64_t		DAT_UINT64;	/* host byte order, 64 bits */
typedef unsigned long long	DAT_UVERYLONG;	/* widest unsigned integer */
typedef void			*DAT_PVOID;
typedef int			DAT_COUNT;	/* signed element count */
typedef DAT_UINT64		DAT_PADDR;	/* physical address */

/*
 * 64-bit constant helper of the attribute and parameter masks.  Linux:
 * c ## ULL unless <stdint.h> came first (Solaris takes <inttypes.h>'s), so
 * that the mask constants are unsigned long long, as they are for every
 * Linux program built against DAT 1.2.
 */
#ifndef UINT64_C
#define UINT64_C(c)	c ## ULL
#endif

/* ------------------------------------------------------------------ */
/* Addresses                                                           */
/* ------------------------------------------------------------------ */

/*
 * An IA address is the native struct sockaddr of the host.  The caller
 * owns the storage, sizes it for its address family (a struct
 * sockaddr_in6 for IPv6; include <netinet/in.h> for it), sets sa_family,
 * and passes it as a DAT_IA_ADDRESS_PTR.  DAT_SOCK_ADDR6 is complete only
 * where the program has included <netinet/in.h>.
 */
typedef struct sockaddr		DAT_SOCK_ADDR;
typedef struct sockaddr_in6	DAT_SOCK_ADDR6;

#define DAT_AF_INET		AF_INET
#define DAT_AF_INET6		AF_INET6

/* ------------------------------------------------------------------ */
/* Declaration decorations                                             */
/* ------------------------------------------------------------------ */

/*
 * Calling convention of the DAT calls: the default.  DAT 1.2 has no such
 * macro; it is the one of <dat2/...>, kept so that declarations read the
 * same in both header sets.
 */
#define DAT_API

/* Parameter direction markers; documentation only. */
#ifndef IN
#define IN
#endif
#ifndef OUT
#define OUT
#endif
#ifndef INOUT
#define INOUT
#endif

#ifdef __cplusplus
}
#endif

#endif /* _SOFTDAPL_DAT_PLATFORM_SPECIFIC_H_ */
