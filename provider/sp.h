/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl, layer 4: service points and connection requests (struct sd_sp,
 * struct sd_cr; sp.c serves psp.c, rsp.c and cr.c).
 */
#ifndef SD_SP_H
#define SD_SP_H

#include <uv.h>

#include "engine.h"
#include "obj.h"
#include "proto.h"
#include "transport.h"

struct sd_ep;
struct sd_evd;
struct sd_sock;

/* ------------------------------------------------------------------ */
/* Service points and connection requests (psp.c, rsp.c, cr.c)        */

/*
 * A PSP, an RSP or a CSP (obj.magic tells which). PSPs and CSPs are both
 * listed in ia->psps: a CSP is a PSP named by its socket address rather
 * than by a connection qualifier, which on TCP is the same thing (psp.c).
 * sp->lock nests inside ia->lock (sd_sp_find) and outside evd->lock (a
 * request's event is posted under it); no EP lock is taken under it.
 */
struct sd_sp {
	struct sd_obj	obj;
	pthread_mutex_t	lock;
	DAT_CONN_QUAL	conn_qual;	/* const: the TCP port */
	DAT_PSP_FLAGS	flags;		/* const; PSP only */
	DAT_COMM	comm;		/* const; CSP only: its communicator */
	struct sockaddr_storage addr;	/* const; CSP only: where it listens */
	struct sd_evd	*evd;		/* lock; NULL once freed */
	struct sd_ep	*ep;		/* RSP: const; holds a reference */
	bool		consumed;	/* lock; RSP: its request arrived */
	const struct sd_transport *tp;	/* const: the listener's transport */
	struct sd_listener *lis;	/* const until close_cmd: listening */
	bool		listening;	/* engine: lis started (listen_cmd) */
	uv_timer_t	rest;		/* engine, once listening: the pause after
					 * accept ran out of descriptors */
	struct sd_list	lnode;		/* engine, once listening: in cm.c's
					 * listener list */
	struct sd_cmd	cmd;		/* start listening */
	struct sd_cmd	close_cmd;	/* stop listening and free: runs last */
	bool		closing;	/* lock: freed; refuse new requests */
};

/*
 * A new service point of kind @magic (SD_MAGIC_PSP or SD_MAGIC_CSP, the
 * latter with its socket triple @comm) of @ia for the CR EVD @evd,
 * with @flags, listed in ia->psps with its EVD reference and listening
 * at @port (sd_sp_listen). 0 and *@out, -ENOMEM, or an error of
 * sd_sp_listen; on any error nothing is left behind. Any thread; takes
 * ia->lock.
 */
int sd_sp_create(struct sd_ia *ia, uint32_t magic, struct sd_evd *evd,
		 DAT_PSP_FLAGS flags, const DAT_COMM *comm, DAT_CONN_QUAL port,
		 struct sd_sp **out);

/*
 * Opens the listening socket of @sp on @ia's address, port @port (0: the
 * kernel picks; the real one is stored in sp->conn_qual). 0, -EDOM (a
 * qualifier that folds to port 0), -EADDRINUSE (the port is taken), or
 * -EIO (no listener could be made). Consumer thread, no lock.
 */
int sd_sp_listen(struct sd_sp *sp, struct sd_ia *ia, DAT_CONN_QUAL port);

/* Stops listening at once and lets the engine free @sp. */
void sd_sp_release(struct sd_sp *sp);

/*
 * The live service point of @ia that takes requests for @conn_qual: a
 * PSP or CSP listening there, or an RSP not consumed yet; NULL if none.
 * ia->lock held.
 */
struct sd_sp *sd_sp_find(struct sd_ia *ia, DAT_CONN_QUAL conn_qual);

/*
 * Engine: a HELLO arrived on @sock for @sp: makes the CR, links it to
 * @sock (sock->cr) and posts DAT_CONNECTION_REQUEST_EVENT. 0, or -errno
 * (the caller rejects).
 */
int sd_sp_request(struct sd_sp *sp, struct sd_sock *sock,
		  const struct sd_cm_msg *hello, const uint8_t *pdata);

/*
 * Fills @e (zeroed first) as the arrival of request @cr at service point
 * @sp, event number @num: DAT_CONNECTION_REQUEST_EVENT (psp.c), or
 * DAT_IB_UD_CONNECTION_REQUEST_EVENT, whose extension data the caller
 * adds (udcm.c). The event names @sp's IA address and conn_qual, and is
 * never truncated. Any thread; no lock (@sp's fields read are const).
 */
void sd_sp_cr_event(DAT_EVENT *e, DAT_EVENT_NUMBER num, struct sd_sp *sp,
		    DAT_CR_HANDLE cr);

enum sd_cr_action {
	SD_CR_PENDING,
	SD_CR_ACCEPT,
	SD_CR_REJECT,
	SD_CR_HANDOFF,	/* dat_cr_handoff: to the SP of handoff_qual */
};

struct sd_cr {
	struct sd_obj	obj;
	struct sd_sock	*sock;		/* engine; NULL once it died */
	struct sd_ep	*ep;		/* RSP or provider EP (reference) */
	struct sd_ep	*accept_ep;	/* ia->lock: dat_cr_accept's (reference) */
	uint8_t		action;		/* ia->lock: enum sd_cr_action */
	bool		provider;	/* const: @ep was made for it (PSP with
					 * DAT_PSP_PROVIDER_FLAG), not an RSP's */
	DAT_CONN_QUAL	conn_qual;	/* const */
	struct sd_cm_msg hello;		/* const: the peer's attributes */
	struct sockaddr_storage remote;	/* const: the peer's address */
	DAT_PORT_QUAL	remote_port;	/* const */
	struct sd_cmd	cmd;		/* accept/reject on the engine */
	uint16_t	pdata_len;	/* const: the HELLO's private data */
	uint16_t	rej_len;	/* ia->lock: reject's private data */
	DAT_CONN_QUAL	handoff_qual;	/* ia->lock: dat_cr_handoff's */
	uint8_t		pdata[SD_PROTO_MAX_PDATA];
	uint8_t		rej_pdata[SD_PROTO_MAX_PDATA];
};

#endif
