/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers for the tests of the IB extension (test-provider-ext.c,
 * test-provider-ud2.c, test-provider-counters2.c; provider-ud.c defines
 * them): one side of an unreliable datagram exchange with its objects
 * and a registered buffer, its posts and completions, the extension data
 * of an event, and the counters. Every helper fails the test on an
 * unexpected result.
 */
#ifndef TEST_PROVIDER_UD_H
#define TEST_PROVIDER_UD_H

#include <stddef.h>
#include <stdint.h>
#include <dat2/udat.h>
#include <dat2/dat_ib_extensions.h>

/* The GRH area that starts every UD receive. */
#define SDT_GRH 40

/* One side: a UD EP with its EVDs, maybe a PSP, a registered buffer. */
struct sdt_ud {
	DAT_IA_HANDLE	ia;
	DAT_PZ_HANDLE	pz;
	DAT_EVD_HANDLE	dto_evd, conn_evd, cr_evd;
	DAT_EP_HANDLE	ep;
	DAT_PSP_HANDLE	psp;
	DAT_CONN_QUAL	port;
	char		*buf;
	size_t		len;
	DAT_LMR_HANDLE	lmr;
	DAT_LMR_CONTEXT	lctx;
};

/*
 * The attributes of a UD EP: @dtos receives and requests, of @iov
 * segments each, the default completion flags, the rest 0.
 */
DAT_EP_ATTR sdt_ud_attr(DAT_COUNT dtos, DAT_COUNT iov);

/*
 * Creates the objects of @n on @ia: a PZ, a DTO EVD (512 events) for
 * both queues, a connection EVD and a CR EVD (64 each), a UD EP with
 * @attr, a @len-byte buffer registered with every privilege and, when
 * @psp, a PSP (DAT_PSP_CONSUMER_FLAG) on a port the kernel chose
 * (n->port).
 */
void sdt_ud_init(struct sdt_ud *n, DAT_IA_HANDLE ia, const DAT_EP_ATTR *attr,
		 size_t len, int psp);
/* Frees what sdt_ud_init made; an EP or PSP set to NULL is skipped. */
void sdt_ud_fini(struct sdt_ud *n);

/* A triplet of @n's buffer. */
DAT_LMR_TRIPLET sdt_ud_iov(const struct sdt_ud *n, size_t off, size_t len);
/* Posts with a one-segment iov of @n's buffer; return the DAT_RETURN. */
DAT_RETURN sdt_ud_recv(struct sdt_ud *n, size_t off, size_t len,
		       uint64_t cookie);
DAT_RETURN sdt_ud_send(struct sdt_ud *n, DAT_IB_ADDR_HANDLE *ah, size_t off,
		       size_t len, uint64_t cookie, DAT_COMPLETION_FLAGS flags);

/*
 * Waits for a UD DTO completion on @evd and checks it: @type
 * (DAT_IB_UD_SEND or DAT_IB_UD_RECV) with its operation, @status (and
 * the extension's status to match), @cookie. Returns the event.
 */
DAT_EVENT sdt_ud_expect(DAT_EVD_HANDLE evd, DAT_IB_EXT_TYPE type,
			DAT_DTO_COMPLETION_STATUS status, uint64_t cookie);

/* The IB extension's data of @ev. */
DAT_IB_EXTENSION_EVENT_DATA *sdt_ext_of(DAT_EVENT *ev);

/* Counter @which of @h (an IA, EP or EVD), not reset. */
uint64_t sdt_counter(DAT_HANDLE h, int which);

#endif
