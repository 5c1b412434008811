/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl: <dat2/dat_platform_specific.h>
 *
 * Host-dependent foundation of the DAT 2.0 API: fixed-width integer types,
 * the socket-address types that DAT uses to name Interface Adapters, the
 * communicator triple used by Common Service Points, and the empty
 * annotation macros (DAT_API, IN, OUT, INOUT) that decorate every
 * prototype.
 *
 * softdapl runs in Linux user space only (x86-64 and other LP64
 * architectures); no Windows, Solaris or kernel (kDAPL) variant exists.
 */

#ifndef _DAT_PLATFORM_SPECIFIC_H_
#define _DAT_PLATFORM_SPECIFIC_H_

#if !defined(__linux__)
#error "softdapl: the DAT headers support Linux user space only"
#endif
#if defined(__KERNEL__)
#error "softdapl: kernel DAT (kDAPL) is not provided"
#endif

/*
 * System headers.  Besides what the definitions below need, existing DAT
 * consumers expect <stdio.h>, <stddef.h>, <sys/types.h> and the socket
 * headers to arrive through <dat2/udat.h>, so they are pulled in here.
 * <netinet/in.h> makes struct sockaddr_in / sockaddr_in6 complete, so
 * DAT_SOCK_ADDR6 (embedded by value in <dat2/dat_ib_extensions.h>) and
 * IPv4/IPv6 IA addresses can be declared directly.
 */
#include <sys/types.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/socket.h>
#include <netinet/in.h>

/* Buffer alignment (bytes) that gives the best transfer performance. */
#ifndef DAT_OPTIMAL_ALIGNMENT
#define DAT_OPTIMAL_ALIGNMENT	256
#endif

/* ------------------------------------------------------------------ */
/* Scalar types                                                        */
/* ------------------------------------------------------------------ */

typedef u_int32_t		DAT_UINT32;	/* host byte order, 32 bits */
typedef u_int64_t		DAT_UINT64;	/* host byte order, 64 bits */
typedef unsigned long long	DAT_UVERYLONG;	/* widest unsigned integer */
typedef void *			DAT_PVOID;
typedef int			DAT_COUNT;	/* signed element count */
typedef DAT_UINT64		DAT_PADDR;	/* physical address */

/*
 * 64-bit constant helper used by the attribute/parameter masks.  When
 * <stdint.h> has not been included yet, supply it ourselves with the
 * same expansion the OFED headers use (unsigned long long), so mask
 * constants keep the type existing consumers were compiled with.
 */
#ifndef UINT64_C
#define UINT64_C(c)	c ## ULL
#endif

/* Round-trip an IA handle through an unsigned long (same width on LP64). */
#define DAT_IA_HANDLE_TO_UL(a)	(unsigned long)(a)
#define DAT_UL_TO_IA_HANDLE(a)	(DAT_IA_HANDLE)(a)

/* ------------------------------------------------------------------ */
/* Communicator and descriptors                                        */
/* ------------------------------------------------------------------ */

/* The socket(2) triple a Common Service Point listens with. */
typedef struct dat_comm {
	int	domain;		/* address family, e.g. AF_INET */
	int	type;		/* socket type, e.g. SOCK_STREAM */
	int	protocol;	/* protocol number, usually 0 */
} DAT_COMM;

typedef int DAT_FD;		/* file descriptor (CNO wait proxy) */

/* ------------------------------------------------------------------ */
/* Addresses                                                           */
/* ------------------------------------------------------------------ */

/*
 * An IA address is the native struct sockaddr of the host.  The caller
 * owns the storage and must size it for its address family (use a
 * struct sockaddr_in6 for IPv6) and set sa_family; it is passed to DAT
 * as a DAT_IA_ADDRESS_PTR (a DAT_SOCK_ADDR pointer).
 */
typedef struct sockaddr		DAT_SOCK_ADDR;
typedef struct sockaddr_in6	DAT_SOCK_ADDR6;

#define DAT_AF_INET		AF_INET
#define DAT_AF_INET6		AF_INET6

/* ------------------------------------------------------------------ */
/* Declaration decorations                                             */
/* ------------------------------------------------------------------ */

#define DAT_API				/* calling convention: default */
#define DAT_EXPORT		extern	/* linkage of exported symbols */

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

#endif /* _DAT_PLATFORM_SPECIFIC_H_ */
