/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dat-names.h: the names of DAT event numbers and DTO completion statuses,
 * and one sentence each on what they mean, for the messages of our tools
 * and example programs. Return codes have dat_strerror; events and
 * statuses have nothing in the DAT API, so a program that reports one
 * prints its name from here, never a bare number, and datinfo --explain
 * prints the sentence. Header-only: nothing to link.
 *
 * The sentences say what softdapl does, where it does something particular
 * (provider/post.c has the contract of DTO completions, provider/qp.c the
 * flush, provider/cm.c and udcm.c the connection events), and say so when
 * softdapl never produces a value another provider may.
 */
#ifndef DAT_NAMES_H
#define DAT_NAMES_H

#include <stddef.h>

#include <dat2/udat.h>
#include <dat2/dat_ib_extensions.h>

/* A named value and what it means: one row of the tables below. */
struct dat_names_entry {
	DAT_UINT32	value;
	const char	*name;	/* as the DAT headers spell it */
	const char	*text;	/* one sentence: meaning, what to do */
};

/* A row for value @v, its name spelled once, by the preprocessor. */
#define DAT_NAMES_ENTRY(v, text) { (DAT_UINT32)(v), #v, text }

#define DAT_NAMES_COUNT(table) (sizeof(table) / sizeof((table)[0]))

/*
 * Every DAT_DTO_COMPLETION_STATUS of dat2/dat.h: what happened to the DTO
 * (or RMR bind: DAT_RMR_BIND_SUCCESS and _FAILURE are 0 and 1).
 */
static const struct dat_names_entry dat_names_dto_statuses[] = {
	DAT_NAMES_ENTRY(DAT_DTO_SUCCESS,
		"the DTO completed: a SEND or RDMA WRITE once the peer has "
		"placed its data, an RDMA READ or atomic once the response is "
		"in your buffer, a receive once a whole message is in it "
		"(transfered_length says how long); for an RMR bind "
		"(DAT_RMR_BIND_SUCCESS) the new rmr_context is in effect; a "
		"post with DAT_COMPLETION_SUPPRESS_FLAG gets no event when it "
		"succeeds"),
	DAT_NAMES_ENTRY(DAT_DTO_ERR_FLUSHED,
		"the EP became DISCONNECTED (dat_ep_disconnect at either end, "
		"or a broken, rejected or timed-out connection) before the DTO "
		"completed, or it was posted to an EP already DISCONNECTED; it "
		"did not complete: a flushed SEND or RDMA WRITE may or may not "
		"have reached the peer and a flushed receive or RDMA READ "
		"buffer may hold part of the data, so treat its contents as "
		"undefined, and the connection event says why the connection "
		"ended (as DAT_RMR_BIND_FAILURE, this value also reports a bind "
		"whose RMR was freed first)"),
	DAT_NAMES_ENTRY(DAT_DTO_ERR_LOCAL_LENGTH,
		"the receive was too small: the message that arrived is longer "
		"than its segments together; softdapl then breaks an RC "
		"connection (DAT_CONNECTION_EVENT_BROKEN at both ends, the "
		"sender's SEND completing DAT_DTO_ERR_REMOTE_RESPONDER) while "
		"on a UD EP only that receive fails, so post receives as large "
		"as the largest message the peer sends"),
	DAT_NAMES_ENTRY(DAT_DTO_ERR_LOCAL_EP,
		"the local EP could not process the DTO; softdapl gives it only "
		"to a UD receive whose datagram vanished from the socket while "
		"it was read, which should not happen: report it with the "
		"SOFTDAPL_DEBUG=1 output"),
	DAT_NAMES_ENTRY(DAT_DTO_ERR_LOCAL_PROTECTION,
		"the DTO's local memory failed a protection check while it "
		"ran; softdapl checks local segments when they are posted, so "
		"the post itself returns DAT_PRIVILEGES_VIOLATION or "
		"DAT_PROTECTION_VIOLATION and no completion carries this "
		"status"),
	DAT_NAMES_ENTRY(DAT_DTO_ERR_BAD_RESPONSE,
		"the peer ended the connection blaming this request for a "
		"protocol error (a TERMINATE naming it with neither the access "
		"nor the length code); a softdapl peer never blames a request "
		"that way, so suspect a peer of another version or "
		"implementation; the connection is broken and the rest "
		"flushed"),
	DAT_NAMES_ENTRY(DAT_DTO_ERR_REMOTE_ACCESS,
		"the peer refused this RDMA WRITE, RDMA READ or atomic (its "
		"rmr_context is unknown there, of another PZ, lacks the remote "
		"right, or the range lies outside it) or this SEND with "
		"invalidate named nothing it may invalidate; softdapl then "
		"breaks the connection at both ends and flushes the rest, so "
		"check the RMR triplet the peer gave you"),
	DAT_NAMES_ENTRY(DAT_DTO_ERR_REMOTE_RESPONDER,
		"the peer's receive was too small for this SEND (it completed "
		"DAT_DTO_ERR_LOCAL_LENGTH there) and the peer broke the "
		"connection; have the peer post larger receives, or send "
		"smaller messages"),
	DAT_NAMES_ENTRY(DAT_DTO_ERR_TRANSPORT,
		"the transport could not carry the DTO; in softdapl only a UD "
		"send gets it, when the kernel refuses the datagram (no route, "
		"too large for the socket), while a failing RC connection ends "
		"with DAT_CONNECTION_EVENT_BROKEN and flushed DTOs instead"),
	DAT_NAMES_ENTRY(DAT_DTO_ERR_RECEIVER_NOT_READY,
		"the peer had no receive posted for the SEND and the retries "
		"ran out; softdapl never fails a SEND for that (the sender "
		"waits, flow-controlled by TCP, until the peer posts a "
		"receive), so a SEND that never completes is the symptom to "
		"look for there"),
	DAT_NAMES_ENTRY(DAT_DTO_ERR_PARTIAL_PACKET,
		"only part of a packet arrived, an error of hardware "
		"transports; softdapl never produces it"),
	DAT_NAMES_ENTRY(DAT_RMR_OPERATION_FAILED,
		"an RMR operation failed; softdapl reports a bind that did not "
		"take effect as DAT_RMR_BIND_FAILURE (1, the value of "
		"DAT_DTO_ERR_FLUSHED) and never produces this status"),
	DAT_NAMES_ENTRY(DAT_DTO_ERR_LOCAL_MM_ERROR,
		"a local memory-management error, a kDAPL status; uDAPL "
		"providers, softdapl among them, never produce it"),
};

/*
 * Every DAT_EVENT_NUMBER of dat2/dat.h and DAT_IB_EVENT_NUMBER of
 * dat2/dat_ib_extensions.h: when a consumer gets the event and what to
 * do. DAT_IB_EXTENSION_RANGE_BASE is left out: it is DAT_IB_DTO_EVENT.
 */
static const struct dat_names_entry dat_names_events[] = {
	DAT_NAMES_ENTRY(DAT_DTO_COMPLETION_EVENT,
		"a posted DTO finished, on the EP's request EVD (sends, RDMA) "
		"or receive EVD (receives): user_cookie says which post and "
		"status how it ended (datinfo --explain STATUS); every post "
		"that returned DAT_SUCCESS gets exactly one, failed and flushed "
		"ones included, except a success posted with "
		"DAT_COMPLETION_SUPPRESS_FLAG and anything of an EP already "
		"freed"),
	DAT_NAMES_ENTRY(DAT_RMR_BIND_COMPLETION_EVENT,
		"a dat_rmr_bind finished, on the request EVD of the EP it was "
		"posted through: status DAT_RMR_BIND_SUCCESS means the new "
		"rmr_context is in effect and may be sent to the peer, "
		"DAT_RMR_BIND_FAILURE (1) that it never took effect (the EP "
		"disconnected, or the RMR was freed)"),
	DAT_NAMES_ENTRY(DAT_CONNECTION_REQUEST_EVENT,
		"a peer's connect reached one of your service points (PSP, RSP "
		"or CSP), on its CR EVD: answer cr_handle with dat_cr_accept or "
		"dat_cr_reject; softdapl keeps the request pending as long as "
		"you take, and if the requester gives up meanwhile the accept "
		"ends with DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR"),
	DAT_NAMES_ENTRY(DAT_CONNECTION_EVENT_ESTABLISHED,
		"the connection is up at this end, on the EP's connection EVD "
		"(each side gets one): the EP is CONNECTED and sends and RDMA "
		"may be posted; at the active side the event carries the "
		"private data the peer passed to dat_cr_accept"),
	DAT_NAMES_ENTRY(DAT_CONNECTION_EVENT_PEER_REJECTED,
		"the peer's consumer refused your connection request with "
		"dat_cr_reject (its private data, if any, comes with the "
		"event); the EP is DISCONNECTED: dat_ep_reset it before "
		"connecting again"),
	DAT_NAMES_ENTRY(DAT_CONNECTION_EVENT_NON_PEER_REJECTED,
		"the request was refused without the peer's consumer "
		"deciding: nothing listens at that address and connection "
		"qualifier (TCP refused it), or the peer's provider turned it "
		"down or broke off the handshake (an RSP already used, a PSP "
		"being freed); check the server's address and port and that "
		"its PSP exists, then dat_ep_reset and retry"),
	DAT_NAMES_ENTRY(DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR,
		"you accepted a request with dat_cr_accept but the connection "
		"never completed: the requester left, or did not confirm "
		"within SOFTDAPL_CM_TIMEOUT_MS (20 s by default); the EP is "
		"DISCONNECTED: dat_ep_reset or free it"),
	DAT_NAMES_ENTRY(DAT_CONNECTION_EVENT_DISCONNECTED,
		"the connection ended in order: dat_ep_disconnect at either "
		"end, or the peer closed (its EP freed, its process gone); "
		"DTOs still outstanding complete with DAT_DTO_ERR_FLUSHED, "
		"and the EP is DISCONNECTED: dat_ep_reset it to reuse it, or "
		"free it"),
	DAT_NAMES_ENTRY(DAT_CONNECTION_EVENT_BROKEN,
		"the connection failed: a socket error or reset, a peer silent "
		"past the transport's liveness timeout, or an error for which "
		"one side terminated it (a remote access error, a receive too "
		"small, a protocol violation); outstanding DTOs are flushed, "
		"the DTO at fault carries its own error status, and "
		"SOFTDAPL_DEBUG=1 logs the reason"),
	DAT_NAMES_ENTRY(DAT_CONNECTION_EVENT_TIMED_OUT,
		"the peer did not complete the connection within the timeout "
		"given to dat_ep_connect, or TCP gave up connecting; the EP is "
		"DISCONNECTED: check that the server is up and reachable or "
		"pass a longer timeout, and dat_ep_reset before retrying"),
	DAT_NAMES_ENTRY(DAT_CONNECTION_EVENT_UNREACHABLE,
		"the connect failed for want of a route to the remote address "
		"(host or network unreachable); check the address and the "
		"routing to it (ping it), then dat_ep_reset and retry"),
	DAT_NAMES_ENTRY(DAT_ASYNC_ERROR_EVD_OVERFLOW,
		"the EVD in dat_handle was full when an event came: that event "
		"and every later one on it are lost and the EVD is out of "
		"service for good (dat_evd_wait and dat_evd_dequeue return "
		"DAT_INVALID_STATE), so free it and create one whose qlen "
		"holds every DTO and event that can be outstanding at once"),
	DAT_NAMES_ENTRY(DAT_ASYNC_ERROR_IA_CATASTROPHIC,
		"the IA failed as a whole and nothing in it can be used any "
		"more: close it and open it again; softdapl never posts it"),
	DAT_NAMES_ENTRY(DAT_ASYNC_ERROR_EP_BROKEN,
		"the EP in dat_handle, an EP of an SRQ, left its connection and "
		"takes no more buffers from the SRQ (reason "
		"DAT_EP_TRANSFER_TO_ERROR, verbs' last WQE reached); softdapl "
		"posts it for EPs of an SRQ only, and their connection EVD "
		"says why the connection ended"),
	DAT_NAMES_ENTRY(DAT_ASYNC_ERROR_TIMED_OUT,
		"an EP's transport timed out in the background; softdapl "
		"reports a dead connection on its connection EVD as "
		"DAT_CONNECTION_EVENT_BROKEN instead and never posts this"),
	DAT_NAMES_ENTRY(DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR,
		"from softdapl a watermark notification, not a failure: "
		"dat_handle is the EP whose soft high watermark "
		"(dat_ep_set_watermark, reason "
		"DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT) or the SRQ whose low "
		"watermark (dat_srq_set_lw, reason DAT_SRQ_LOW_WATERMARK_EVENT) "
		"was crossed; from another provider, an internal failure"),
	DAT_NAMES_ENTRY(DAT_HA_DOWN_TO_1,
		"a multipath connection is down to a single path; softdapl "
		"makes no multipath connections and never posts it"),
	DAT_NAMES_ENTRY(DAT_HA_UP_TO_MULTI_PATH,
		"a multipath connection has more than one path again; softdapl "
		"never posts it"),
	DAT_NAMES_ENTRY(DAT_SOFTWARE_EVENT,
		"an event a consumer queued itself with dat_evd_post_se on an "
		"EVD created with DAT_EVD_SOFTWARE_FLAG, usually to wake a "
		"thread waiting there: software_event_data.pointer is the "
		"value it passed"),
	DAT_NAMES_ENTRY(DAT_EXTENSION_EVENT,
		"the first event number reserved for DAT extensions, the base "
		"of a range rather than an event: extension events carry "
		"numbers of their own ranges (the IB extension's from "
		"0x40000)"),
	DAT_NAMES_ENTRY(DAT_IB_DTO_EVENT,
		"an IB-extension operation finished (RDMA write with immediate "
		"data or its receive, fetch-and-add, compare-and-swap, UD send "
		"or receive): the DTO fields as in DAT_DTO_COMPLETION_EVENT, "
		"and in event_extension_data a DAT_IB_EXTENSION_EVENT_DATA "
		"whose type says which operation, with the immediate data or "
		"the UD sender's address"),
	DAT_NAMES_ENTRY(DAT_IB_UD_CONNECTION_REQUEST_EVENT,
		"a UD EP's dat_ep_connect reached one of your PSPs created with "
		"DAT_PSP_CONSUMER_FLAG: dat_cr_accept(cr, your UD EP) sends it "
		"your address, dat_cr_reject refuses"),
	DAT_NAMES_ENTRY(DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED,
		"a UD address exchange finished: the extension data holds the "
		"remote address handle (type DAT_IB_UD_REMOTE_AH at the "
		"requester, DAT_IB_UD_PASSIVE_REMOTE_AH at the accepter) to "
		"pass to dat_ib_post_send_ud"),
	DAT_NAMES_ENTRY(DAT_IB_UD_CONNECTION_REJECT_EVENT,
		"the UD request was refused: the peer's consumer called "
		"dat_cr_reject, nothing takes UD requests at that port (no "
		"PSP, or one with DAT_PSP_PROVIDER_FLAG), or the PSP it was "
		"handed off to went away"),
	DAT_NAMES_ENTRY(DAT_IB_UD_CONNECTION_ERROR_EVENT,
		"the UD address exchange failed: no answer came before the "
		"connect timeout (softdapl resends the request every 200 ms "
		"to 2 s until then) or no address handle could be made; check "
		"the peer's address, port and PSP"),
	DAT_NAMES_ENTRY(DAT_IB_COLLECTIVE_EVENT,
		"an IB-extension MPI collective finished; softdapl implements "
		"no collectives (they return DAT_NOT_IMPLEMENTED) and never "
		"posts it"),
	DAT_NAMES_ENTRY(DAT_IW_EXTENSION_RANGE_BASE,
		"the first event number of the iWARP extension's range, a base "
		"no event carries; softdapl has no iWARP extension"),
};

/* The row of @table (@n rows) for @value, or NULL. */
static inline const struct dat_names_entry *
dat_names_find(const struct dat_names_entry *table, size_t n, DAT_UINT32 value)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (table[i].value == value)
			return &table[i];
	return NULL;
}

/* The name of event number @n, as the DAT headers spell it. */
static inline const char *dat_event_name(DAT_EVENT_NUMBER n)
{
	const struct dat_names_entry *e =
		dat_names_find(dat_names_events, DAT_NAMES_COUNT(dat_names_events),
			       (DAT_UINT32)n);

	return e != NULL ? e->name : "an unknown event";
}

/* The name of DTO completion status @s, as dat2/dat.h spells it. */
static inline const char *dat_dto_status_name(DAT_DTO_COMPLETION_STATUS s)
{
	const struct dat_names_entry *e =
		dat_names_find(dat_names_dto_statuses,
			       DAT_NAMES_COUNT(dat_names_dto_statuses),
			       (DAT_UINT32)s);

	return e != NULL ? e->name : "an unknown status";
}

#endif /* DAT_NAMES_H */
