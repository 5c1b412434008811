/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl: the InfiniBand extensions of <dat2/dat_ib_extensions.h>, in
 * software. Their internal interface, and the few hooks the rest of the
 * provider calls.
 *
 *   ext.c       the handle_extendedop slot: every DAT_IB_* operation is
 *               decoded there and sent on; dat_ib_open/close_query
 *   counters.c  dat_ib_query/print_counters, start/stop (the counters
 *               themselves are the cnt[] arrays of util.h)
 *   ud.c        unreliable datagram EPs (DAT_IB_SERVICE_TYPE_UD): the
 *               object, its ops table, address handles, the data path
 *   udep.c      their core, below the entry points: state, events,
 *               flush, the socket, the engine's side, release
 *   udcm.c      their connection management: UD requests to service
 *               points, the UD CR object, REQ/REP/REJ/RTU (udproto.h)
 *
 * What goes where. RDMA write with immediate data and the atomics are
 * reliable-connection operations: the data path does them (post.h,
 * sd_post_write_imm and sd_post_atomic) and ext.c only decodes the
 * arguments. UD is a service of its own, over UDP rather than TCP.
 *
 * UD endpoints. dat_ep_create with service_type DAT_IB_SERVICE_TYPE_UD
 * (provider.c routes ep_create through sd_ext_ep_create, in ext.c) makes a
 * struct sd_ud_ep: one UDP socket bound to the IA's address. Its object
 * head points at the UD table (sd_obj_ud_table), a copy of the provider
 * table whose EP and CR slots are the UD ones (provider.c, SD_UD_SLOTS): the registry dispatches through the first word of
 * the object, so dat_ep_post_recv(ud_ep) reaches ud.c and nothing else of
 * the provider ever sees a UD object (its magic is not SD_MAGIC_EP).
 *
 * Address handles. OFED resolves the peer of a UD EP through a connection
 * attempt: dat_ep_connect(ud_ep, addr, conn_qual) at one side,
 * DAT_IB_UD_CONNECTION_REQUEST_EVENT and dat_cr_accept(cr, ud_ep) at the
 * other, then DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED at both, whose
 * extension data holds a DAT_IB_ADDR_HANDLE (type DAT_IB_UD_REMOTE_AH at
 * the requester, DAT_IB_UD_PASSIVE_REMOTE_AH at the accepter) and whose
 * context is the CM object. Here every PSP created by the consumer
 * (DAT_PSP_CONSUMER_FLAG) also has a UDP socket on the same port number
 * (provider.c routes psp_create/_any/free through udcm.c), where the
 * requests arrive. An EP may resolve any number of address handles, each
 * attempt independent: UD EPs have no connection, and connect/accept are
 * allowed in any state but DISCONNECTED.
 *
 * DAT_IB_ADDR_HANDLE for softdapl: .ah points at a struct sd_ud_ah of the
 * EP (freed by dat_ib_ud_ah_free or with the EP), .qpn is the peer EP's
 * number, .ia_addr the peer EP's socket address (the IA's IP address and
 * the EP's UDP port).
 *
 * Data. dat_ib_post_send_ud sends one datagram (at most SD_UD_MAX_MSG
 * bytes) at once from the caller's thread; it completes once the kernel
 * took it (IB UD completes on transmission too), in post order. A
 * receive gets a 40-byte area for the GRH first, as on IB (OFED's dtestx
 * reads its message 40 bytes in): a pseudo-GRH (IPv6 version, payload
 * length, source and destination addresses, IPv4-mapped for IPv4), then
 * the payload; transfered_length counts both. A datagram that finds no
 * receive posted is dropped (IB UD has no receiver-not-ready), one that
 * does not fit completes its receive with DAT_DTO_LENGTH_ERROR; the EP
 * stays usable either way. Completions are DAT_IB_DTO_EVENTs: operation
 * DAT_IB_DTO_SEND_UD / DAT_IB_DTO_RECV_UD, type DAT_IB_UD_SEND /
 * DAT_IB_UD_RECV; a receive's remote_ah has the sender's qpn and address
 * (and ah NULL: the receive path allocates nothing).
 *
 * Threads and locks. A UD EP's lock sits where ep->lock does in the lock
 * order (softdapl.h): it guards the EP's state, queues, address handles
 * and the socket's transmit side, and the event posts made under it. The
 * CM state (struct sd_ud_cm, the requests registry, the retransmission
 * timer, the service point sockets) belongs to the engine thread alone;
 * consumer threads reach it through commands. ud_sp_lock (udcm.c) is a
 * leaf guarding the list of service point sockets.
 */
#ifndef SD_EXT_H
#define SD_EXT_H

#include <netinet/in.h>
#include <uv.h>

#include "engine.h"
#include "ia.h"
#include "obj.h"
#include "udproto.h"
#include "util.h"
#include "wq.h"

/* Provider attributes of the extension (ia.c reports them). */
#define SD_EXT_VERSION		DAT_IB_EXTENSION_VERSION	/* 209 */

/* The area a UD receive reserves for the GRH, as on IB. */
#define SD_UD_GRH		40

/* ------------------------------------------------------------------ */
/* UD endpoints (ud.c)                                                 */

/* Where a queued UD send goes: copied from its address handle at post. */
struct sd_ud_dest {
	struct sockaddr_storage	addr;
	socklen_t		len;
	uint32_t		qpn, qkey;
	uint8_t			flags;		/* SD_UD_F_* */
};

struct sd_ud_ep {
	struct sd_obj		obj;		/* provider: sd_obj_ud_table */
	pthread_mutex_t		lock;
	DAT_EP_STATE		state;		/* lock; UNCONNECTED, CONNECTED,
						 * DISCONNECTED; written by
						 * sd_ud_set_state only (but at
						 * creation) */
	bool			freed;		/* lock: dat_ep_free was called */
	struct sd_pz		*pz;		/* lock (NULL once freed) */
	struct sd_evd		*recv_evd;	/* lock; NULL once freed */
	struct sd_evd		*req_evd;	/* lock; NULL once freed */
	struct sd_evd		*conn_evd;	/* lock; NULL once freed */
	DAT_EP_ATTR		attr;		/* lock (dat_ep_modify changes it) */
	int			fd;		/* const: the UDP socket; closed by the
						 * engine after the free */
	struct sockaddr_storage	local;		/* const: the socket's address */
	socklen_t		local_len;	/* const */
	uint32_t		qpn, qkey;	/* const: our number, our key */
	struct sd_wq		sq;		/* lock: sends the kernel has not taken */
	struct sd_ud_dest	*dest;		/* lock: sq.size slots, one per sq WQE */
	struct sd_wq		rq;		/* lock: receives (none with @srq) */
	struct sd_srq		*srq;		/* const: where receives come from
						 * instead (srq->eps counts it), or
						 * NULL */
	bool			tx_blocked;	/* lock: EAGAIN, POLLOUT awaited */
	struct sd_list		ahs;		/* ud_ah_lock: address handles it
						 * resolved (sd_ud_ah) */
	struct sd_list		cm_new;		/* lock: CMs the engine has not taken */
	/*
	 * Attempts (struct sd_ud_cm) made by dat_ep_connect and dat_cr_accept
	 * on this EP that have not ended yet (no ESTABLISHED, REJECT or
	 * ERROR event): dat_ep_modify refuses while there are any, as it
	 * does on an RC EP whose connection is pending. A disconnect ends
	 * them all at once: it zeroes both and starts a new @cm_epoch. An
	 * attempt of an older epoch (cm->epoch) is abandoned even if the EP
	 * was reset before the engine got to it: it ends without an event,
	 * and its late accounting changes nothing. All under lock.
	 */
	unsigned		cm_act, cm_pas;	/* active, passive attempts */
	uint32_t		cm_epoch;
	/*
	 * dat_ep_dup_connect: the service point the last address handle this
	 * EP resolved by connecting was asked at (the consumer's address, the
	 * connection qualifier as its port). Set when such an attempt is
	 * ESTABLISHED, cleared by dat_ep_reset; all under lock.
	 */
	bool			has_remote;
	struct sockaddr_storage	remote;
	socklen_t		remote_len;
	DAT_CONN_QUAL		remote_qual;
	/*
	 * dat_ep_set_watermark (ud.c): limits on the receives the EP holds
	 * (posted, not completed). DAT_WATERMARK_INFINITE: none. The soft
	 * one is armed until it fires once; all under lock.
	 */
	DAT_COUNT		soft_hw, hard_hw;
	bool			soft_armed, hard_armed;
	uint64_t		dropped;	/* atomic: datagrams thrown away */
	uint64_t		cnt[DCNT_EP_ALL_COUNTERS]; /* sd_cnt_*: DCNT_EP_* */

	/* Engine only. */
	uv_poll_t		poll;
	int			events;		/* poll events armed */
	bool			polling;	/* poll handle initialized */
	struct sd_list		cms;		/* struct sd_ud_cm of this EP */
	struct sd_cmd		start_cmd;	/* start polling */
	struct sd_cmd		io_cmd;		/* arm POLLOUT, take new CMs */
	struct sd_cmd		free_cmd;	/* close the socket, free */
};

#define SD_UD_AH_MAGIC		0x53445541u	/* "SDUA" */

/*
 * An address handle: where dat_ib_post_send_ud sends. As on InfiniBand,
 * where a handle belongs to a protection domain and not to a QP, any UD
 * EP of the same IA and PZ may send through it (dtestsrq -u: a server EP
 * answers through the handle another EP resolved). It lives until
 * dat_ib_ud_ah_free or until the EP that resolved it is destroyed.
 * sd_ud_ah_lock (udep.c), a leaf lock, guards every handle's magic and
 * node.
 */
struct sd_ud_ah {
	uint32_t		magic;		/* sd_ud_ah_lock; SD_UD_AH_MAGIC while live */
	struct sd_ud_ep		*ep;		/* const: the EP that resolved it */
	struct sd_ia		*ia;		/* const: ep's IA */
	struct sd_pz		*pz;		/* const: ep's PZ then */
	struct sd_ud_dest	dest;		/* const */
	struct sd_list		node;		/* sd_ud_ah_lock: in ep->ahs */
};

/*
 * Guards every UD EP's ahs list and each address handle's magic (udep.c,
 * where it is described).
 */
extern pthread_mutex_t sd_ud_ah_lock;

/* The live UD EP of a consumer handle, or NULL (udep.c). */
struct sd_ud_ep *sd_ud_ep_from_handle(DAT_EP_HANDLE h);

/*
 * ud.c: a UD EP of @ia, dat_ep_create's checks in ep.c's order, for
 * sd_ext_ep_create and _with_srq; @srq_h may be DAT_HANDLE_NULL (see
 * ud.c).
 */
DAT_RETURN sd_ud_ep_create(struct sd_ia *ia, DAT_PZ_HANDLE pz_handle,
			   DAT_EVD_HANDLE recv_h, DAT_EVD_HANDLE req_h,
			   DAT_EVD_HANDLE conn_h, DAT_SRQ_HANDLE srq_h,
			   const DAT_EP_ATTR *attr, DAT_EP_HANDLE *out);

/*
 * The ep_create slot (provider.c; ext.c): a UD service type makes a UD EP,
 * any other goes to sd_ep_create. Same contract as dat_ep_create.
 */
DAT_RETURN DAT_API sd_ext_ep_create(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz,
				    DAT_EVD_HANDLE recv_evd,
				    DAT_EVD_HANDLE req_evd,
				    DAT_EVD_HANDLE conn_evd,
				    const DAT_EP_ATTR *attr, DAT_EP_HANDLE *ep);

/*
 * The ep_create_with_srq slot, the same way: a UD EP whose receives come
 * from the SRQ (dtestsrq -u), else sd_ep_create_with_srq.
 */
DAT_RETURN DAT_API sd_ext_ep_create_with_srq(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz,
					     DAT_EVD_HANDLE recv_evd,
					     DAT_EVD_HANDLE req_evd,
					     DAT_EVD_HANDLE conn_evd,
					     DAT_SRQ_HANDLE srq,
					     const DAT_EP_ATTR *attr,
					     DAT_EP_HANDLE *ep);

/* dat_ib_post_send_ud (ext.c decodes it); DAT_RETURN for the consumer. */
DAT_RETURN sd_ud_post_send(DAT_EP_HANDLE ep, DAT_COUNT n,
			   const DAT_LMR_TRIPLET *iov,
			   const DAT_IB_ADDR_HANDLE *ah, DAT_DTO_COOKIE cookie,
			   DAT_COMPLETION_FLAGS flags);

/* dat_ib_ud_ah_free, dat_ib_ud_cm_free (ext.c). */
DAT_RETURN sd_ud_ah_free(DAT_EP_HANDLE ep, const DAT_IB_ADDR_HANDLE *ah);
DAT_RETURN sd_ud_cm_free(DAT_EP_HANDLE ep, void *cm);

/*
 * Makes an address handle of @ep for @dest and lists it. ep->lock held.
 * NULL when out of memory.
 */
struct sd_ud_ah *sd_ud_ah_new(struct sd_ud_ep *ep, const struct sd_ud_dest *dest);

/*
 * Moves @ep to state @to because of @why: logs it (SOFTDAPL_DEBUG) and
 * traces it (`state` line). ep->lock held.
 */
void sd_ud_set_state(struct sd_ud_ep *ep, DAT_EP_STATE to, const char *why);

/*
 * Posts a UD connection event @num of extension type @type for @ep on its
 * connection EVD: with @ah (may be NULL) as remote_ah, @cm as context and
 * @pdata_len bytes of @pdata as its private data (they must stay where
 * they are: the CM object holds them). Nothing once the EP is freed.
 * ep->lock held.
 */
void sd_ud_conn_event(struct sd_ud_ep *ep, DAT_EVENT_NUMBER num,
		      DAT_IB_EXT_TYPE type, struct sd_ud_ah *ah,
		      void *cm, uint8_t *pdata, uint16_t pdata_len);

/* Sends @len bytes of @buf to @to from @ep's socket. 0 or -errno. Any thread. */
int sd_ud_sendto(struct sd_ud_ep *ep, const void *buf, size_t len,
		 const struct sockaddr *to, socklen_t tolen);

/* The engine's milliseconds (uv_now). Engine. */
uint64_t sd_ud_now(void);

/*
 * udep.c, for ud.c's entry points; each is described where it is
 * defined. A DTO completion (sd_ud_dto_event), a post flushed at once on
 * a DISCONNECTED EP (sd_ud_flush_now), the end of an EP until
 * dat_ep_reset (sd_ud_close), one DATA datagram out (sd_ud_send_data),
 * the socket of a new EP (sd_ud_socket), and the engine commands a new
 * EP is given (start_cmd, io_cmd, free_cmd).
 */
void sd_ud_dto_event(struct sd_ud_ep *ep, bool recv, const struct sd_wqe *w,
		     DAT_DTO_COMPLETION_STATUS st, uint64_t len,
		     const struct sd_ud_hdr *h,
		     const struct sockaddr_storage *src, socklen_t srclen);
void sd_ud_flush_now(struct sd_ud_ep *ep, bool recv, DAT_DTO_COOKIE cookie,
		     DAT_COMPLETION_FLAGS flags);
void sd_ud_close(struct sd_ud_ep *ep, DAT_EVENT_NUMBER ev, const char *why);
int sd_ud_send_data(struct sd_ud_ep *ep, struct sd_ud_dest *d,
		    const struct sd_sge *sge, uint16_t nsge);
int sd_ud_socket(struct sd_ia *ia, struct sockaddr_storage *local,
		 socklen_t *local_len);
void sd_ud_start_cmd(struct sd_cmd *cmd);
void sd_ud_io_cmd(struct sd_cmd *cmd);
void sd_ud_free_cmd(struct sd_cmd *cmd);

/* ------------------------------------------------------------------ */
/* UD connection management (udcm.c)                                   */

enum sd_ud_cm_state {
	SD_UDCM_NEW,		/* made by a consumer call, not yet sent */
	SD_UDCM_REQ_SENT,	/* active: REQ out, REP or REJ awaited */
	SD_UDCM_REP_SENT,	/* passive: REP out, RTU awaited */
	SD_UDCM_ESTABLISHED,	/* both: the address handle was delivered */
	SD_UDCM_FAILED,		/* rejected, timed out, or the EP ended */
};

#define SD_UD_CM_MAGIC		0x5344554du	/* "SDUM" */

/*
 * One attempt to resolve an address handle, at either side: the context
 * of the UD connection events. Made by the consumer call (connect,
 * accept), then the engine's.
 */
struct sd_ud_cm {
	uint32_t		magic;		/* SD_UD_CM_MAGIC while live */
	struct sd_ud_ep		*ep;		/* const */
	uint64_t		id;		/* const: cm_id on the wire */
	bool			active;		/* const: we sent the REQ */
	bool			released;	/* ep->lock: dat_ib_ud_cm_free */
	uint8_t			state;		/* engine: enum sd_ud_cm_state */
	struct sockaddr_storage	peer;		/* engine: REQ target, then the peer EP */
	socklen_t		peer_len;	/* engine */
	uint32_t		peer_qpn;	/* engine: once known */
	uint32_t		peer_qkey;	/* engine: once known */
	DAT_CONN_QUAL		conn_qual;	/* const: active: the port asked for */
	uint64_t		timeout;	/* const: ms to resolve; 0: no limit */
	struct sockaddr_storage	target;		/* const: active: where the REQ went
						 * (the service point) */
	socklen_t		target_len;	/* const */
	bool			counted;	/* ep->lock: in ep->cm_act/cm_pas */
	uint32_t		epoch;		/* ep->lock, set once: the ep->cm_epoch
						 * it was made in */
	uint64_t		deadline;	/* engine: ms; 0: none */
	uint64_t		next;		/* engine: ms of the next resend */
	uint64_t		linger;		/* engine: ms; freed after, once released */
	uint32_t		rto;		/* engine: resend interval, ms */
	bool			timed;		/* engine: in the timer's list */
	struct sd_list		node;		/* ep->lock: in ep->cm_new, then
						 * engine: in ep->cms */
	struct sd_list		tnode;		/* engine: in the timer's list */
	struct sd_list		reg;		/* engine: passive: in the registry */
	uint16_t		pdata_len;	/* const: ours (REQ or REP) */
	uint16_t		peer_pdata_len;	/* engine, then const: theirs */
	uint8_t			pdata[SD_UD_MAX_PDATA];
	uint8_t			peer_pdata[SD_UD_MAX_PDATA];
};

enum sd_ud_cr_action {
	SD_UDCR_PENDING,
	SD_UDCR_ACCEPT,
	SD_UDCR_REJECT,
	SD_UDCR_HANDOFF,	/* dat_cr_handoff: to the PSP of handoff_qual */
};

/*
 * A UD connection request: made by the engine when a REQ reaches a
 * service point's UDP socket, decided by dat_cr_accept, dat_cr_reject or
 * dat_cr_handoff (taken under ia->lock, then handed to the engine through
 * @cmd; a handoff makes a new CR at the target service point), then
 * kept by the engine as a tombstone for a while so that a late copy of
 * its REQ is answered rather than taken for a new request.
 */
struct sd_ud_cr {
	struct sd_obj		obj;		/* provider: sd_obj_ud_table;
						 * node: ia->ud_crs (ia->lock) */
	uint8_t			action;		/* ia->lock: enum sd_ud_cr_action */
	DAT_CONN_QUAL		conn_qual;	/* const */
	struct sd_sp		*sp;		/* const: the PSP (for the event only) */
	struct sockaddr_storage	remote;		/* const: the requester's socket */
	socklen_t		remote_len;	/* const */
	uint64_t		cm_id;		/* const */
	uint32_t		peer_qpn;	/* const */
	uint32_t		peer_qkey;	/* const */
	struct sd_ud_cm		*cm;		/* the decision: accept's CM */
	uint16_t		pdata_len;	/* const: the REQ's */
	uint16_t		rej_len;	/* the decision: reject's */
	DAT_CONN_QUAL		handoff_qual;	/* the decision: handoff's port */
	struct sd_cmd		cmd;		/* the decision, for the engine */
	struct sd_list		reg;		/* engine: in the registry */
	uint64_t		expiry;		/* engine: tombstone until (ms) */
	uint8_t			pdata[SD_UD_MAX_PDATA];
	uint8_t			rej_pdata[SD_UD_MAX_PDATA];
};

/* The provider table's PSP slots (provider.c; ext.c): see the top of udcm.c. */
DAT_RETURN DAT_API sd_ext_psp_create(DAT_IA_HANDLE ia, DAT_CONN_QUAL conn_qual,
				     DAT_EVD_HANDLE evd, DAT_PSP_FLAGS flags,
				     DAT_PSP_HANDLE *psp);
DAT_RETURN DAT_API sd_ext_psp_create_any(DAT_IA_HANDLE ia,
					 DAT_CONN_QUAL *conn_qual,
					 DAT_EVD_HANDLE evd,
					 DAT_PSP_FLAGS flags,
					 DAT_PSP_HANDLE *psp);
DAT_RETURN DAT_API sd_ext_psp_free(DAT_PSP_HANDLE psp);

/*
 * udcm.c, for those slots: opens the UDP side of PSP @sp, if its port is
 * free; closes the UDP side of PSP @sp, if it has one. Consumer thread.
 */
void sd_ud_sp_open(struct sd_sp *sp);
void sd_ud_sp_close_for(struct sd_sp *sp);

/*
 * The UD EP and CR slots that live in udcm.c (sd_ud_ep_connect,
 * sd_ud_cr_query/_accept/_reject/_handoff) are declared with the other
 * UD slots by SD_UD_SLOTS (entry.h).
 */

/*
 * Engine: a connection datagram (REP, REJ or RTU, header @h checked,
 * @pdata after it) from @src reached @ep's socket. ep->lock held.
 */
void sd_ud_cm_input(struct sd_ud_ep *ep, const struct sd_ud_hdr *h,
		    const uint8_t *pdata, const struct sockaddr_storage *src,
		    socklen_t srclen);

/* Engine: takes the CMs consumer calls queued on @ep. ep->lock held. */
void sd_ud_cm_take_new(struct sd_ud_ep *ep);

/*
 * Engine: @ep was freed: forgets and frees its CMs (no events).
 * ep->lock held.
 */
void sd_ud_cm_ep_gone(struct sd_ud_ep *ep);

/* Engine: the UD service (its timer) is in use by one more / one less object. */
void sd_ud_svc_get(void);
void sd_ud_svc_put(void);

/*
 * ia_close's first step (ia.c): frees the IA's UD EPs, UD CRs and the
 * UDP sockets of its service points, and returns once the engine no
 * longer touches them nor the IA. No lock held.
 */
void sd_ud_ia_close(struct sd_ia *ia);

/* Frees a UD EP whatever its state (dat_ep_free, ia_close). udep.c. */
void sd_ud_ep_release(struct sd_ud_ep *ep);

/*
 * udep.c: checks @ep's watermarks (dat_ep_set_watermark) against the
 * receives it holds. An armed hard one that is exceeded while the EP is
 * CONNECTED breaks it: DISCONNECTED, everything flushed,
 * DAT_CONNECTION_EVENT_BROKEN on its connection EVD. With @soft, an
 * armed soft one that is exceeded is disarmed and true is returned: the
 * caller then posts the event with sd_evq_async_error (evq.h) once
 * it holds no lock. ep->lock held; any thread; allocates nothing.
 */
bool sd_ud_check_watermarks(struct sd_ud_ep *ep, bool soft);

/* ------------------------------------------------------------------ */
/* Counters (counters.c) and the query handle (ext.c)                  */

DAT_RETURN sd_cnt_query(DAT_HANDLE h, int cntr, DAT_UINT64 *out, int reset);
DAT_RETURN sd_cnt_print(DAT_HANDLE h, int cntr, int reset);
DAT_RETURN sd_cnt_start_stop(DAT_HANDLE h, int type, bool start);

/*
 * ia.c: fills @ia_attr and @provider_attr (either may be NULL) for an IA
 * at @addr with the named attributes @named, exactly as dat_ia_query
 * does; for dat_ib_open_query, which has no IA.
 */
void sd_ia_attr_fill(const struct sd_ia_addr *addr,
		     const struct sd_ia_named *named, DAT_IA_ATTR *ia_attr,
		     DAT_PROVIDER_ATTR *provider_attr);

#endif
