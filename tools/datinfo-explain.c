/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * datinfo --explain VALUE...: what a DAT value a user has in hand means,
 * given as a number or as a name, without opening an IA or reading
 * dat.conf.
 *
 * A number is read in every way that fits, each reading printed with its
 * label: as a DAT_RETURN (class, type and subtype, each with a sentence),
 * as a DTO completion status and as an event number. A DAT_RETURN reading
 * is made of any value with class bits, of 0 (DAT_SUCCESS), and of a bare
 * type (no class, no subtype: what dat_evd_dequeue returns for an empty
 * DTO EVD, and dat_strerror for its own failure); the other two only of
 * values their tables hold. A name is looked up among the return types,
 * the subtypes, the statuses and the events, without case and with or
 * without its DAT_ prefix; "TYPE SUBTYPE" and "TYPE:SUBTYPE" (the forms
 * datinfo and softdapl's traces print) name a whole DAT_RETURN.
 *
 * The names of types and subtypes are dat_strerror's (registry/strerror.c
 * holds the only table of them); their sentences are here, keyed by value,
 * and --explain-all lists every name dat_strerror knows with its sentence,
 * so that a test fails when one is missing. Statuses and events have their
 * names and sentences in dat-names.h. The sentences say what softdapl
 * does where it does something particular, as its sources have it
 * (provider/api.c's errno table, post.c's DTO contract, qp.c's flush,
 * rx.c's statuses, cm.c's connection events, evd.c's EVD rules), and that
 * it never returns a value when it does not.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dat-names.h"
#include "datinfo.h"

/* A sentence for a value: a DAT_RETURN type. */
struct di_text {
	DAT_UINT32	value;
	const char	*text;
};

/*
 * The class bits (31..30). DAT_CLASS_SUCCESS (no bit) is only printed for
 * a bare type: DAT_SUCCESS itself needs no class line.
 */
static const struct dat_names_entry di_classes[] = {
	DAT_NAMES_ENTRY(DAT_CLASS_ERROR,
		"the call failed: it made no object, and a post that fails "
		"produces no completion event; the type and subtype say why"),
	DAT_NAMES_ENTRY(DAT_CLASS_WARNING,
		"a warning: the call did its work but reports something about "
		"it; DAT 2.0 defines no warning, and neither softdapl nor its "
		"registry returns one"),
	DAT_NAMES_ENTRY(DAT_CLASS_SUCCESS,
		"no class bits: a bare type, as dat_strerror returns its own "
		"failure and dat_evd_dequeue returns DAT_QUEUE_EMPTY on a DTO "
		"EVD (as OFED does); compare DAT_GET_TYPE(ret) with a type, not "
		"ret itself, to catch both forms"),
};

/*
 * Every DAT_RETURN_TYPE of dat_error.h, as it stands in bits 29..16:
 * what it tells the caller, and the usual cause in softdapl.
 */
static const struct di_text di_types[] = {
	{ DAT_SUCCESS,
	  "the call did what it was asked and its outputs are set; a post "
	  "that returns it gets its completion event later" },
	{ DAT_ABORT,
	  "the operation was cut short because its object went away under "
	  "it: softdapl's dat_evd_wait returns it when the IA is closed "
	  "while the thread waits; do not use the EVD again" },
	{ DAT_CONN_QUAL_IN_USE,
	  "the connection qualifier, a TCP port in softdapl, already has a "
	  "listener (a service point of this or another process); pick "
	  "another, or let dat_psp_create_any choose one" },
	{ DAT_INSUFFICIENT_RESOURCES,
	  "the provider ran out of what the subtype names (memory, a queue "
	  "slot, a descriptor, a limit); nothing was created or posted: free "
	  "something, reap completions or ask for less, then retry" },
	{ DAT_INTERNAL_ERROR,
	  "the provider failed in a way the caller did not cause: softdapl "
	  "could not draw the random key of an IA's memory contexts "
	  "(getrandom failed at dat_ia_open), or a lower layer reported an "
	  "error it does not translate (a bug: its log says \"errno N has no "
	  "DAT_RETURN\"); libdat.so.1 also returns it to a DAT 1.2 program "
	  "when libdat2 lacks what it needs" },
	{ DAT_INVALID_HANDLE,
	  "a handle argument is not a live object of the kind the call "
	  "needs: NULL, already freed, of another kind or of another IA; the "
	  "subtype says which handle" },
	{ DAT_INVALID_PARAMETER,
	  "an argument that is not a handle has a value the call refuses (a "
	  "NULL pointer, an unknown flag, a count out of range); the subtype "
	  "DAT_INVALID_ARGn counts the arguments from 1, handles included" },
	{ DAT_INVALID_STATE,
	  "the object is not in a state that allows the call; for an EP the "
	  "subtype names the state it is in, not the one the call needs, and "
	  "with no subtype from dat_evd_wait, dat_evd_dequeue or "
	  "dat_evd_resize the EVD overflowed and is out of service for good" },
	{ DAT_LENGTH_ERROR,
	  "a length is out of bounds: in softdapl a post whose local "
	  "segments add up to more than the provider's or the peer's message "
	  "or RDMA size, or more than the remote segment_length, an atomic "
	  "given fewer than 8 bytes, or dat_lmr_create of length 0" },
	{ DAT_MODEL_NOT_SUPPORTED,
	  "the call asks for something softdapl does not do: "
	  "DAT_CONNECT_MULTIPATH_REQUIRED_FLAG, or a send or RDMA post on a "
	  "UD EP (datagrams go through dat_ib_post_send_ud)" },
	{ DAT_PROVIDER_NOT_FOUND,
	  "dat_ia_open found no usable dat.conf entry with this IA name, API "
	  "version and thread safety; the subtype says which part of the key "
	  "failed, and datinfo --why NAME shows the lines and what to do" },
	{ DAT_PRIVILEGES_VIOLATION,
	  "memory the call names lacks an access right it needs; with no "
	  "subtype, softdapl's answer for a context that names no memory of "
	  "this IA (a local_iov lmr_context never registered, or freed, or "
	  "read_to_rmr's local rmr_context)" },
	{ DAT_PROTECTION_VIOLATION,
	  "memory and the object using it are in different protection zones: "
	  "a post's LMR and its EP, an RMR and the LMR bound to it, or an "
	  "RMR and the EP it is bound through; create them in one PZ" },
	{ DAT_QUEUE_EMPTY,
	  "there was nothing to take: dat_evd_dequeue on an empty EVD "
	  "(softdapl returns the bare 0x000d0000 for DTO EVDs, as OFED "
	  "does), or dat_cno_wait's timeout with no trigger; not a failure, "
	  "poll or wait again" },
	{ DAT_QUEUE_FULL,
	  "dat_evd_post_se found the EVD full (or overflowed), so nothing "
	  "was queued; dequeue events first, or create the EVD larger" },
	{ DAT_TIMEOUT_EXPIRED,
	  "dat_evd_wait's timeout passed before threshold events came; "
	  "nothing was taken and *nmore says how many are queued: wait "
	  "again, or with a lower threshold" },
	{ DAT_PROVIDER_ALREADY_REGISTERED,
	  "dat_registry_add_provider was called for an IA name, version and "
	  "thread safety already registered: a provider initialized twice" },
	{ DAT_PROVIDER_IN_USE,
	  "dat_registry_remove_provider was refused because an IA of that "
	  "entry is still open; close it first" },
	{ DAT_INVALID_ADDRESS,
	  "an address is not usable: the IA's own (its dat.conf ia_params) "
	  "at dat_ia_open, or the one a connect or service point names; the "
	  "subtype says why" },
	{ DAT_INTERRUPTED_CALL,
	  "a blocking call was interrupted before it finished; softdapl's "
	  "waits resume after a signal and never return it, another "
	  "provider's may: call again" },
	{ DAT_CONN_QUAL_UNAVAILABLE,
	  "the provider has no connection qualifier left to hand out; "
	  "softdapl lets the kernel pick a free port for dat_psp_create_any "
	  "and never returns it" },
	{ DAT_RESERVED_LMR,
	  "a kDAPL type about reserved LMRs of kernel consumers; no uDAPL "
	  "call, and nothing in softdapl, returns it" },
	{ DAT_PORT_IN_USE,
	  "the local port asked for is taken; softdapl reports a taken port "
	  "as DAT_CONN_QUAL_IN_USE and never returns this" },
	{ DAT_COMM_NOT_SUPPORTED,
	  "dat_csp_create's communicator is not one the provider takes: "
	  "softdapl wants domain AF_INET or AF_INET6 (the family of the "
	  "address), type SOCK_STREAM and protocol 0 or IPPROTO_TCP" },
	{ DAT_EXTENSION_BASE,
	  "the first of the types DAT extensions define (0x10000000 to "
	  "0x3ffe0000): with the IB extension it is DAT_IB_ERR, an extension "
	  "operation's failure; softdapl does not return it" },
	{ DAT_NOT_IMPLEMENTED,
	  "the provider has no such operation: softdapl answers the IB "
	  "extension's MPI collectives and unknown extension operations with "
	  "it, and the registry answers so for an entry point a provider's "
	  "table lacks" },
};

/*
 * Every DAT_RETURN_SUBTYPE of dat_error.h, indexed by value; a line left
 * out is a NULL that --explain-all reports (and a test with it).
 */
static const char *const di_subtypes[] = {
	[DAT_NO_SUBTYPE] =
		"the type is all the call tells",
	[DAT_SUB_INTERRUPTED] =
		"the operation was interrupted rather than failed; softdapl "
		"returns DAT_ABORT without it",

	/* DAT_INSUFFICIENT_RESOURCES */
	[DAT_RESOURCE_MEMORY] =
		"memory ran out (malloc, or the kernel said ENOMEM) while "
		"making the object; free memory or ask for smaller queues",
	[DAT_RESOURCE_DEVICE] =
		"a system resource other than memory ran out: no file "
		"descriptor was left (for an IA's address lookup, a CNO's "
		"eventfd, a UD EP's socket) or no thread for the IA's engine; "
		"raise ulimit -n, or close objects",
	[DAT_RESOURCE_TEP] =
		"the EP's request or receive queue is full (more DTOs "
		"outstanding than max_request_dtos or max_recv_dtos: reap "
		"completions before posting more), or dat_ep_connect could not "
		"open a socket",
	[DAT_RESOURCE_TEVD] =
		"the event queue asked for is longer than the provider makes: "
		"dat_evd_create or dat_evd_resize with a qlen above the "
		"max_evd_qlen that dat_ia_query reports",
	[DAT_RESOURCE_PROTECTION_DOMAIN] =
		"no protection zone could be made; softdapl's PZs cost only "
		"memory, so it says DAT_RESOURCE_MEMORY instead",
	[DAT_RESOURCE_MEMORY_REGION] =
		"the IA's table of memory contexts is full (softdapl holds "
		"16383 LMRs and RMRs at once per IA, each with its lmr_context "
		"or rmr_context) or could not grow; free the LMRs and RMRs no "
		"longer used",
	[DAT_RESOURCE_ERROR_HANDLER] =
		"no error handler could be set up, a resource DAT names that "
		"softdapl does not have: it never returns this",
	[DAT_RESOURCE_CREDITS] =
		"no credit was left, such as an inbound RDMA Read slot; "
		"softdapl queues RDMA Reads beyond max_rdma_read_out instead of "
		"failing them and never returns this",
	[DAT_RESOURCE_SRQ] =
		"an SRQ limit: dat_srq_create or dat_srq_resize beyond "
		"max_recv_per_srq or the IA's max_recv_iov, or dat_srq_post_recv "
		"on an SRQ that already holds max_recv_dtos buffers",

	/* DAT_INVALID_HANDLE */
	[DAT_INVALID_HANDLE_IA] =
		"the IA handle is not an open IA: NULL, already closed by "
		"dat_ia_close, or not one dat_ia_open returned (the registry "
		"maps IA handles through its own table)",
	[DAT_INVALID_HANDLE_EP] =
		"the EP handle is not a live EP of this process: NULL, freed by "
		"dat_ep_free, another kind of handle, or an EP of another IA "
		"where the call needs this IA's",
	[DAT_INVALID_HANDLE_LMR] =
		"the LMR handle is not a live LMR: NULL or freed by "
		"dat_lmr_free (posts name memory by lmr_context instead, which "
		"gives DAT_PRIVILEGES_VIOLATION when wrong)",
	[DAT_INVALID_HANDLE_RMR] =
		"the RMR handle is not a live RMR: NULL, or freed by "
		"dat_rmr_free",
	[DAT_INVALID_HANDLE_PZ] =
		"the PZ handle is not a live PZ of this IA: freed, created on "
		"another IA, or NULL where one is needed (dat_lmr_create, "
		"dat_srq_create)",
	[DAT_INVALID_HANDLE_PSP] =
		"the PSP handle is not a live PSP: NULL, or freed by "
		"dat_psp_free",
	[DAT_INVALID_HANDLE_RSP] =
		"the RSP handle is not a live RSP: NULL, or freed by "
		"dat_rsp_free",
	[DAT_INVALID_HANDLE_CR] =
		"the CR handle is not a pending connection request: a CR is "
		"used up by the dat_cr_accept, dat_cr_reject or dat_cr_handoff "
		"that takes it, so a second call on it gets this",
	[DAT_INVALID_HANDLE_CNO] =
		"the CNO handle is not a live CNO (from dat_cno_create or "
		"dat_cno_fd_create): freed, or of another IA",
	[DAT_INVALID_HANDLE_EVD_CR] =
		"the EVD given to dat_psp_create, dat_rsp_create or "
		"dat_csp_create is not a live EVD of this IA created with "
		"DAT_EVD_CR_FLAG",
	[DAT_INVALID_HANDLE_EVD_REQUEST] =
		"the request EVD given to dat_ep_create or dat_ep_modify is not "
		"a live EVD with DAT_EVD_DTO_FLAG; the registry also gives it "
		"for any bad EVD handle passed to an EVD call (dat_evd_wait, "
		"dat_evd_free...), as OFED does",
	[DAT_INVALID_HANDLE_EVD_RECV] =
		"the receive EVD given to dat_ep_create or dat_ep_modify is not "
		"a live EVD created with DAT_EVD_DTO_FLAG",
	[DAT_INVALID_HANDLE_EVD_CONN] =
		"the connection EVD given to dat_ep_create or dat_ep_modify is "
		"not a live EVD created with DAT_EVD_CONNECTION_FLAG",
	[DAT_INVALID_HANDLE_EVD_ASYNC] =
		"dat_ia_open's async EVD is neither DAT_HANDLE_NULL (to have "
		"one made), nor DAT_EVD_ASYNC_EXISTS with an IA of that name "
		"open, nor the async EVD of an open IA",
	[DAT_INVALID_HANDLE_SRQ] =
		"the SRQ handle is not a live SRQ of this IA: NULL, freed by "
		"dat_srq_free, or created on another IA",
	[DAT_INVALID_HANDLE_CSP] =
		"the CSP handle is not a live CSP: NULL, or freed by "
		"dat_csp_free (a DAT 2.0 subtype: DAT 1.2 numbers the subtypes "
		"after it one lower, which libdat.so.1 converts)",
	[DAT_INVALID_HANDLE1] =
		"the handle in the first argument is not a live DAT object: "
		"what softdapl and its registry say for the calls that take any "
		"kind (dat_get_handle_type, dat_set_consumer_context, "
		"dat_get_consumer_context, the IB extension's counters)",
	[DAT_INVALID_HANDLE2] =
		"the handle in the second argument is unusable; softdapl names "
		"its kind instead (dat_cr_accept's EP gives "
		"DAT_INVALID_HANDLE_EP), so this comes from another provider",
	[DAT_INVALID_HANDLE3] =
		"the handle in the third argument is unusable; softdapl names "
		"its kind instead (dat_evd_create's CNO gives "
		"DAT_INVALID_HANDLE_CNO), so this comes from another provider",
	[DAT_INVALID_HANDLE4] =
		"the handle in the fourth argument is unusable; softdapl names "
		"its kind instead (dat_rsp_create's EVD gives "
		"DAT_INVALID_HANDLE_EVD_CR), so this comes from another "
		"provider",
	[DAT_INVALID_HANDLE5] =
		"the handle in the fifth argument is unusable; softdapl names "
		"its kind instead (dat_ep_create's connection EVD gives "
		"DAT_INVALID_HANDLE_EVD_CONN), so this comes from another "
		"provider",
	[DAT_INVALID_HANDLE6] =
		"the handle in the sixth argument is unusable; softdapl names "
		"its kind instead (dat_rmr_bind's EP gives "
		"DAT_INVALID_HANDLE_EP), so this comes from another provider",
	[DAT_INVALID_HANDLE7] =
		"the handle in the seventh argument is unusable; no DAT 2.0 "
		"call of softdapl's has a handle there, so this comes from "
		"another provider",
	[DAT_INVALID_HANDLE8] =
		"the handle in the eighth argument is unusable; softdapl never "
		"returns it, so look up that argument in the other provider's "
		"documentation",
	[DAT_INVALID_HANDLE9] =
		"the handle in the ninth argument is unusable; nothing in "
		"softdapl returns it",
	[DAT_INVALID_HANDLE10] =
		"the handle in the tenth argument is unusable, the last "
		"position DAT numbers; softdapl never returns it",

	/* DAT_INVALID_PARAMETER */
	[DAT_INVALID_ARG1] =
		"the first argument is refused: dat_ia_open's name NULL or "
		"longer than DAT_NAME_MAX_LENGTH, dat_evd_post_se on an EVD "
		"without DAT_EVD_SOFTWARE_FLAG, or a registry call's NULL "
		"provider or bad count",
	[DAT_INVALID_ARG2] =
		"the second argument is refused: a post's num_segments "
		"(negative, or above the EP's max iov for that DTO), a queue "
		"length of 0 or less (dat_ia_open, dat_evd_create, "
		"dat_srq_resize), or a dat_ep_modify mask naming a field that "
		"cannot change",
	[DAT_INVALID_ARG3] =
		"the third argument is refused: a post's local_iov (NULL with "
		"segments, or a segment not inside its LMR's region), "
		"dat_lmr_create's region (NULL, or not all mapped), "
		"dat_ep_connect's conn_qual (no TCP port), or dat_evd_wait's "
		"threshold (outside 1 to qlen)",
	[DAT_INVALID_ARG4] =
		"the fourth argument is refused: dat_ep_connect's timeout (0), "
		"dat_evd_wait's event pointer (NULL), dat_ia_query's ia_attr "
		"(NULL with a mask), dat_lmr_create's length (running past the "
		"address space), or dat_rmr_bind's mem_priv (unknown bits)",
	[DAT_INVALID_ARG5] =
		"the fifth argument is refused: a send's or receive's "
		"completion flags (unknown, or UNSIGNALLED the EP does not "
		"allow), an RDMA post's remote_iov (NULL, or misaligned for an "
		"atomic), dat_ep_connect's private_data_size, or dat_evd_wait's "
		"nmore (NULL)",
	[DAT_INVALID_ARG6] =
		"the sixth argument is refused: an RDMA write's or read's "
		"completion flags, dat_ep_connect's private_data (NULL with a "
		"size), dat_ep_create's ep_attr (attributes out of range), "
		"dat_lmr_create's privileges (unknown bits), or dat_ia_query's "
		"provider_attr (NULL with a mask)",
	[DAT_INVALID_ARG7] =
		"the seventh argument is refused: dat_ep_create's ep_handle "
		"pointer (NULL), dat_ep_create_with_srq's ep_attr, "
		"dat_lmr_create's va_type (softdapl takes DAT_VA_TYPE_VA only), "
		"or the flags of an IB-extension write with immediate data or "
		"compare-and-swap",
	[DAT_INVALID_ARG8] =
		"the eighth argument is refused: dat_ep_create_with_srq's "
		"ep_handle pointer or dat_lmr_create's lmr_handle pointer "
		"(NULL), dat_ep_connect's flags (unknown bits), or "
		"dat_rmr_bind's completion flags",
	[DAT_INVALID_ARG9] =
		"the ninth argument is refused: dat_rmr_bind's rmr_context "
		"pointer is NULL where an LMR is bound",
	[DAT_INVALID_ARG10] =
		"the tenth argument is refused (dat_lmr_create's rmr_context "
		"pointer would be one); softdapl never returns it",

	/* DAT_INVALID_STATE: the EP's state */
	[DAT_INVALID_STATE_EP_UNCONNECTED] =
		"the EP is not connected (never, or reset since): sends and "
		"RDMA need CONNECTED, so connect it and wait for "
		"DAT_CONNECTION_EVENT_ESTABLISHED; receives may be posted now",
	[DAT_INVALID_STATE_EP_ACTCONNPENDING] =
		"the EP's dat_ep_connect is still under way: wait for its "
		"connection event before posting or connecting again "
		"(dat_ep_disconnect aborts it)",
	[DAT_INVALID_STATE_EP_PASSCONNPENDING] =
		"the EP is being accepted (dat_cr_accept was called, the "
		"handshake is not over): wait for "
		"DAT_CONNECTION_EVENT_ESTABLISHED",
	[DAT_INVALID_STATE_EP_TENTCONNPENDING] =
		"a request arrived for the EP (from its RSP, or a PSP with "
		"DAT_PSP_PROVIDER_FLAG): accept or reject its CR first",
	[DAT_INVALID_STATE_EP_CONNECTED] =
		"the EP is connected: connecting it, accepting onto it or "
		"dat_ep_reset need an unconnected EP, so disconnect first",
	[DAT_INVALID_STATE_EP_DISCONNECTED] =
		"the EP's connection ended (or never came): dat_ep_reset it to "
		"connect again, or free it; posts on it are not refused but "
		"flushed",
	[DAT_INVALID_STATE_EP_RESERVED] =
		"the EP is held by an RSP (dat_rsp_create) until a request "
		"comes: wait for it, or dat_rsp_free to get the EP back",
	[DAT_INVALID_STATE_EP_COMPLPENDING] =
		"the EP waits for its connection to complete "
		"(COMPLETION_PENDING); softdapl never enters that state, so "
		"this comes from another provider",
	[DAT_INVALID_STATE_EP_DISCPENDING] =
		"a graceful dat_ep_disconnect is waiting for the peer: wait "
		"for DAT_CONNECTION_EVENT_DISCONNECTED, or disconnect with "
		"DAT_CLOSE_ABRUPT_FLAG",
	[DAT_INVALID_STATE_EP_PROVIDERCONTROL] =
		"the EP is under the provider's control and not yet the "
		"consumer's; softdapl never returns it",
	[DAT_INVALID_STATE_EP_NOTREADY] =
		"the EP lacks what a connection needs: dat_ep_connect or "
		"dat_cr_accept on an EP without a PZ or without a connection "
		"EVD; give it both at dat_ep_create or with dat_ep_modify",
	[DAT_INVALID_STATE_EP_RECV_WATERMARK] =
		"a receive watermark forbids the call; softdapl never returns "
		"it (its watermarks only post notifications)",
	[DAT_INVALID_STATE_EP_PZ] =
		"the EP has no PZ, so the memory of a post's segments cannot "
		"be checked: create the EP with a PZ or give it one with "
		"dat_ep_modify (segments of length 0 need none)",
	[DAT_INVALID_STATE_EP_EVD_REQUEST] =
		"the EP's request EVD does not allow the call; softdapl never "
		"returns it (an EP without one completes its requests unseen)",
	[DAT_INVALID_STATE_EP_EVD_RECV] =
		"the EP's receive EVD does not allow the call; softdapl never "
		"returns it (an EP without one completes its receives unseen)",
	[DAT_INVALID_STATE_EP_EVD_CONNECT] =
		"the EP's connection EVD does not allow the call; softdapl "
		"says DAT_INVALID_STATE_EP_NOTREADY for an EP without one",
	[DAT_INVALID_STATE_EP_UNCONFIGURED] =
		"the EP is unconnected and lacks the PZ or the EVDs a "
		"connection needs (UNCONFIGURED_UNCONNECTED); softdapl never "
		"leaves an EP in that state",
	[DAT_INVALID_STATE_EP_UNCONFRESERVED] =
		"the EP is reserved by an RSP but not configured "
		"(UNCONFIGURED_RESERVED); softdapl never enters that state",
	[DAT_INVALID_STATE_EP_UNCONFPASSIVE] =
		"the EP is being accepted but not configured "
		"(UNCONFIGURED_PASSIVE); softdapl never enters that state",
	[DAT_INVALID_STATE_EP_UNCONFTENTATIVE] =
		"the EP the provider made for a request to a PSP with "
		"DAT_PSP_PROVIDER_FLAG has no PZ or no connection EVD yet: give "
		"it both with dat_ep_modify, then dat_cr_accept",

	/* DAT_INVALID_STATE: CNO */
	[DAT_INVALID_STATE_CNO_IN_USE] =
		"dat_cno_free was refused: an EVD still feeds the CNO or a "
		"thread waits on it; move the EVDs off it (dat_evd_modify_cno "
		"to NULL, or free them) and let the waiter return first",
	[DAT_INVALID_STATE_CNO_DEAD] =
		"the CNO is dead and can no longer be waited on; softdapl's "
		"CNOs live until freed and never give it",

	/* DAT_INVALID_STATE: EVD */
	[DAT_INVALID_STATE_EVD_OPEN] =
		"the EVD is open where the call wants it otherwise; softdapl "
		"never returns it",
	[DAT_INVALID_STATE_EVD_ENABLED] =
		"the EVD is enabled where the call wants it disabled; softdapl "
		"never returns it",
	[DAT_INVALID_STATE_EVD_DISABLED] =
		"the EVD is disabled (dat_evd_disable) where the call wants it "
		"enabled; softdapl never returns it",
	[DAT_INVALID_STATE_EVD_WAITABLE] =
		"the EVD is waitable where the call wants it unwaitable; "
		"softdapl never returns it",
	[DAT_INVALID_STATE_EVD_UNWAITABLE] =
		"dat_evd_wait on an EVD made unwaitable by "
		"dat_evd_set_unwaitable, before or during the wait (a waiter is "
		"released at once); dat_evd_clear_unwaitable before waiting "
		"again",
	[DAT_INVALID_STATE_EVD_IN_USE] =
		"dat_evd_free was refused: an EP or service point still uses "
		"the EVD, a thread waits on it, or it is the IA's async EVD "
		"(dat_ia_close frees that); free those first",
	[DAT_INVALID_STATE_EVD_CONFIG_NOTIFY] =
		"dat_evd_wait with a threshold above 1 on an EVD where an EP "
		"completes DTOs with DAT_COMPLETION_UNSIGNALLED_FLAG: "
		"thresholds and notification control do not mix, so wait with "
		"threshold 1",
	[DAT_INVALID_STATE_EVD_CONFIG_SOLICITED] =
		"dat_evd_wait with a threshold above 1 on an EVD that takes "
		"the receives of an EP with DAT_COMPLETION_SOLICITED_WAIT_FLAG "
		"in its receive completion flags; wait with threshold 1",
	[DAT_INVALID_STATE_EVD_CONFIG_THRESHOLD] =
		"the EVD is set up for threshold waits where the call needs "
		"notify or solicited waits; softdapl never returns it",
	[DAT_INVALID_STATE_EVD_WAITER] =
		"another thread is already in dat_evd_wait on this EVD: one "
		"waiter at a time, and dat_evd_dequeue and dat_evd_resize are "
		"refused meanwhile, so let one thread own the EVD",
	[DAT_INVALID_STATE_EVD_ASYNC] =
		"the call needs an async EVD and got another kind; softdapl "
		"says DAT_INVALID_HANDLE_EVD_ASYNC instead",

	/* DAT_INVALID_STATE: IA, LMR, PZ */
	[DAT_INVALID_STATE_IA_IN_USE] =
		"dat_ia_close with DAT_CLOSE_GRACEFUL_FLAG was refused: objects "
		"of the IA still exist (EPs, EVDs, LMRs...); free them first, "
		"or close with DAT_CLOSE_ABRUPT_FLAG",
	[DAT_INVALID_STATE_LMR_IN_USE] =
		"dat_lmr_free was refused: an RMR is bound to the LMR, an LMR "
		"was made over it, or the peer's RDMA is placing into it right "
		"now; unbind or free those first",
	[DAT_INVALID_STATE_LMR_FREE] =
		"the LMR is already freed; softdapl says "
		"DAT_INVALID_HANDLE_LMR for a freed LMR instead",
	[DAT_INVALID_STATE_PZ_IN_USE] =
		"dat_pz_free was refused: EPs, LMRs, RMRs or SRQs still belong "
		"to the PZ; free them first",
	[DAT_INVALID_STATE_PZ_FREE] =
		"the PZ is already freed; softdapl says DAT_INVALID_HANDLE_PZ "
		"for a freed PZ instead",

	/* DAT_INVALID_STATE: SRQ */
	[DAT_INVALID_STATE_SRQ_OPERATIONAL] =
		"the SRQ is working where the call wants it in error or shut "
		"down; softdapl never returns it",
	[DAT_INVALID_STATE_SRQ_ERROR] =
		"the SRQ went into the error state and serves no EP; "
		"softdapl's SRQs never do",
	[DAT_INVALID_STATE_SRQ_IN_USE] =
		"the SRQ is in use: dat_srq_free while EPs still take from it, "
		"dat_srq_resize below the buffers outstanding or the low "
		"watermark, or dat_ep_post_recv on an EP of an SRQ (post to "
		"the SRQ with dat_srq_post_recv)",
	[DAT_INVALID_STATE_SRQ_SHUTDOWN] =
		"the SRQ is being shut down (a DAT 2.0 subtype a DAT 1.2 "
		"program never sees); softdapl never returns it",

	/* DAT_PRIVILEGES_VIOLATION */
	[DAT_PRIVILEGES_READ] =
		"the lmr_context of a local_iov segment names an LMR of this IA "
		"registered without local read, which a SEND or RDMA WRITE "
		"needs to read from it; register it with "
		"DAT_MEM_PRIV_LOCAL_READ_FLAG (softdapl takes LOCAL_WRITE as "
		"read too) and check that the lmr_context is the one "
		"dat_lmr_create gave for that buffer",
	[DAT_PRIVILEGES_WRITE] =
		"the lmr_context of a local_iov segment names an LMR registered "
		"without local write, which a receive, RDMA READ or atomic "
		"needs to place data in it (or dat_ep_post_rdma_read_to_rmr's "
		"local RMR grants no remote write); register it with "
		"DAT_MEM_PRIV_LOCAL_WRITE_FLAG",
	[DAT_PRIVILEGES_RDMA_READ] =
		"dat_rmr_bind asked for remote read on an LMR registered "
		"without local read (or write); register the LMR with "
		"DAT_MEM_PRIV_LOCAL_READ_FLAG",
	[DAT_PRIVILEGES_RDMA_WRITE] =
		"dat_rmr_bind asked for remote write or remote atomics on an "
		"LMR registered without local write; register the LMR with "
		"DAT_MEM_PRIV_LOCAL_WRITE_FLAG",

	/* DAT_PROTECTION_VIOLATION */
	[DAT_PROTECTION_READ] =
		"a segment the DTO reads from (a SEND's or RDMA WRITE's) is in "
		"an LMR of another PZ than the EP; the LMR and the EP must "
		"share one PZ",
	[DAT_PROTECTION_WRITE] =
		"a segment the DTO writes into (a receive's, RDMA READ's or "
		"atomic's, or read_to_rmr's local RMR) belongs to another PZ "
		"than the EP; the memory and the EP must share one PZ",
	[DAT_PROTECTION_RDMA_READ] =
		"an RDMA READ touched memory of another PZ; softdapl reports "
		"what the peer refuses in the requester's completion "
		"(DAT_DTO_ERR_REMOTE_ACCESS) and never returns this",
	[DAT_PROTECTION_RDMA_WRITE] =
		"an RDMA WRITE touched memory of another PZ; softdapl reports "
		"it as DAT_DTO_ERR_REMOTE_ACCESS in the writer's completion and "
		"never returns this",

	/* DAT_INVALID_ADDRESS */
	[DAT_INVALID_ADDRESS_UNSUPPORTED] =
		"the address is of a family or kind the provider cannot use: "
		"softdapl connects to IPv4 and IPv6 unicast addresses only (no "
		"multicast, no broadcast), and a UD EP to its IA's family only",
	[DAT_INVALID_ADDRESS_UNREACHABLE] =
		"the address is not one this IA can use: at dat_ia_open the "
		"dat.conf ia_params name an interface or address this host "
		"does not have (softdapl logs which), or dat_csp_create was "
		"given an address that is not the IA's",
	[DAT_INVALID_ADDRESS_MALFORMED] =
		"the address cannot name a peer: the unspecified address "
		"(0.0.0.0 or ::) as a remote address, port 0 for "
		"dat_ep_common_connect, or dat.conf ia_params that do not parse "
		"at dat_ia_open",

	/* DAT_PROVIDER_NOT_FOUND */
	[DAT_NAME_NOT_REGISTERED] =
		"no usable dat.conf line has this IA name (none at all, or its "
		"library did not load), so no provider is registered for it; "
		"datinfo --why NAME shows which and what to do",
	[DAT_MAJOR_NOT_FOUND] =
		"a line has this IA name but another major API version (a u1.2 "
		"line for a DAT 2.0 consumer): the registry compares versions "
		"exactly, so write u2.0 in its second field",
	[DAT_MINOR_NOT_FOUND] =
		"a line has this IA name and major version but another minor "
		"one (u2.1 where 2.0 is asked); write the version the consumer "
		"asks for",
	[DAT_THREAD_SAFETY_NOT_FOUND] =
		"a line has this IA name and version but the other thread "
		"safety: dat_ia_open asks for nonthreadsafe, so a threadsafe "
		"line is found only by dat_ia_openv(..., DAT_TRUE)",
};

/* The type each run of subtypes qualifies, as dat_error.h groups them. */
static const struct di_group {
	DAT_RETURN_SUBTYPE	first, last;
	DAT_RETURN_TYPE		type;
} di_groups[] = {
	{ DAT_SUB_INTERRUPTED, DAT_SUB_INTERRUPTED, DAT_ABORT },
	{ DAT_RESOURCE_MEMORY, DAT_RESOURCE_SRQ, DAT_INSUFFICIENT_RESOURCES },
	{ DAT_INVALID_HANDLE_IA, DAT_INVALID_HANDLE10, DAT_INVALID_HANDLE },
	{ DAT_INVALID_ARG1, DAT_INVALID_ARG10, DAT_INVALID_PARAMETER },
	{ DAT_INVALID_STATE_EP_UNCONNECTED, DAT_INVALID_STATE_SRQ_SHUTDOWN,
	  DAT_INVALID_STATE },
	{ DAT_PRIVILEGES_READ, DAT_PRIVILEGES_RDMA_WRITE,
	  DAT_PRIVILEGES_VIOLATION },
	{ DAT_PROTECTION_READ, DAT_PROTECTION_RDMA_WRITE,
	  DAT_PROTECTION_VIOLATION },
	{ DAT_INVALID_ADDRESS_UNSUPPORTED, DAT_INVALID_ADDRESS_MALFORMED,
	  DAT_INVALID_ADDRESS },
	{ DAT_NAME_NOT_REGISTERED, DAT_THREAD_SAFETY_NOT_FOUND,
	  DAT_PROVIDER_NOT_FOUND },
};

/* Other spellings the DAT headers #define, and what each names. */
static const struct di_alias {
	const char	*alias;
	const char	*name;
	const char	*where;
} di_aliases[] = {
	{ "DAT_NAME_NOT_FOUND", "DAT_PROVIDER_NOT_FOUND", "dat_error.h, DAT 1.0" },
	{ "DAT_DTO_LENGTH_ERROR", "DAT_DTO_ERR_LOCAL_LENGTH", "dat.h" },
	{ "DAT_DTO_FAILURE", "DAT_DTO_ERR_FLUSHED", "dat.h" },
	{ "DAT_RMR_BIND_SUCCESS", "DAT_DTO_SUCCESS", "dat.h" },
	{ "DAT_RMR_BIND_FAILURE", "DAT_DTO_ERR_FLUSHED", "dat.h" },
	{ "DAT_IB_EXTENSION_RANGE_BASE", "DAT_IB_DTO_EVENT", "dat.h" },
	{ "DAT_IB_ERR", "DAT_EXTENSION_BASE", "dat_ib_extensions.h" },
};

#define DI_COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The kinds of named values, in the order names are searched. */
enum di_kind {
	DI_TYPE,	/* a DAT_RETURN type, bits 29..16 */
	DI_SUBTYPE,	/* a DAT_RETURN subtype, bits 15..0 */
	DI_STATUS,	/* a DAT_DTO_COMPLETION_STATUS */
	DI_EVENT,	/* a DAT_EVENT_NUMBER */
};

/* ------------------------------------------------------------------------
 * Names and sentences of types and subtypes.
 */

/* dat_strerror's name of @type (bits 29..16 only), or NULL if unknown. */
static const char *type_name(DAT_UINT32 type)
{
	const char *major = NULL;

	if (dat_strerror((DAT_RETURN)type, &major, NULL) != DAT_SUCCESS)
		return NULL;
	return major;
}

/* dat_strerror's name of subtype @sub ("" for none), or NULL if unknown. */
static const char *subtype_name(DAT_UINT32 sub)
{
	const char *minor = NULL;

	if (dat_strerror((DAT_RETURN)sub, NULL, &minor) != DAT_SUCCESS)
		return NULL;
	return minor;
}

/* The sentence of @type (bits 29..16 only), or NULL. */
static const char *type_text(DAT_UINT32 type)
{
	size_t i;

	for (i = 0; i < DI_COUNT(di_types); i++)
		if (di_types[i].value == type)
			return di_types[i].text;
	return NULL;
}

/* The sentence of subtype @sub, or NULL. */
static const char *subtype_text(DAT_UINT32 sub)
{
	return sub < DI_COUNT(di_subtypes) ? di_subtypes[sub] : NULL;
}

/* The type subtype @sub qualifies (dat_error.h's groups), or false. */
static bool subtype_type(DAT_UINT32 sub, DAT_UINT32 *type)
{
	size_t i;

	for (i = 0; i < DI_COUNT(di_groups); i++) {
		if (sub >= (DAT_UINT32)di_groups[i].first &&
		    sub <= (DAT_UINT32)di_groups[i].last) {
			*type = (DAT_UINT32)di_groups[i].type;
			return true;
		}
	}
	return false;
}

/* The sentence of @value of @kind, or NULL when there is none. */
static const char *kind_text(enum di_kind kind, DAT_UINT32 value)
{
	const struct dat_names_entry *e;

	switch (kind) {
	case DI_TYPE:
		return type_text(value);
	case DI_SUBTYPE:
		return subtype_text(value);
	case DI_STATUS:
		e = dat_names_find(dat_names_dto_statuses,
				   DAT_NAMES_COUNT(dat_names_dto_statuses), value);
		return e != NULL ? e->text : NULL;
	case DI_EVENT:
		e = dat_names_find(dat_names_events,
				   DAT_NAMES_COUNT(dat_names_events), value);
		return e != NULL ? e->text : NULL;
	}
	return NULL;
}

/* A sentence to print: the text, or a mark that it is missing. */
static const char *said(const char *text)
{
	return text != NULL && text[0] != '\0' ? text : "(no sentence)";
}

/*
 * Calls @fn for every named value: the types and subtypes dat_strerror
 * names (every value of their fields is asked, so none is missed), then
 * the statuses and events of dat-names.h. Stops when @fn returns false.
 */
static void for_each_name(bool (*fn)(enum di_kind kind, DAT_UINT32 value,
				     const char *name, void *arg),
			  void *arg)
{
	const char *name;
	DAT_UINT32 v;
	size_t i;

	for (v = 0; v <= DAT_TYPE_MASK; v += 1u << 16)
		if ((name = type_name(v)) != NULL && !fn(DI_TYPE, v, name, arg))
			return;
	for (v = 1; v <= DAT_SUBTYPE_MASK; v++)
		if ((name = subtype_name(v)) != NULL &&
		    !fn(DI_SUBTYPE, v, name, arg))
			return;
	for (i = 0; i < DAT_NAMES_COUNT(dat_names_dto_statuses); i++)
		if (!fn(DI_STATUS, dat_names_dto_statuses[i].value,
			dat_names_dto_statuses[i].name, arg))
			return;
	for (i = 0; i < DAT_NAMES_COUNT(dat_names_events); i++)
		if (!fn(DI_EVENT, dat_names_events[i].value,
			dat_names_events[i].name, arg))
			return;
}

/* ------------------------------------------------------------------------
 * Printing one reading.
 */

/* The class line of DAT_RETURN @v (not 0); false if its class is unknown. */
static bool print_class(DAT_UINT32 v)
{
	DAT_UINT32 cls = v & (DAT_CLASS_ERROR | DAT_CLASS_WARNING);
	const struct dat_names_entry *e =
		dat_names_find(di_classes, DI_COUNT(di_classes), cls);

	if (e == NULL) {
		printf("  class bits 0x%08x: both class bits set, which is no "
		       "DAT class: not a value a DAT call returns\n",
		       (unsigned)cls);
		return false;
	}
	if (cls == DAT_CLASS_SUCCESS)
		printf("  %s\n", e->text);
	else
		printf("  class %s: %s\n", e->name, e->text);
	return true;
}

/*
 * The line of a type or subtype (@kind) @v of @digits hex digits, named
 * @name (NULL: unknown, said so), without its newline; false if unknown.
 */
static bool print_part(const char *kind, DAT_UINT32 v, int digits,
		       const char *name, const char *text)
{
	if (name == NULL) {
		printf("  %s 0x%0*x: not a %s of dat_error.h (dat_strerror does "
		       "not know it)", kind, digits, (unsigned)v, kind);
		return false;
	}
	printf("  %s %s (0x%0*x): %s", kind, name, digits, (unsigned)v,
	       said(text));
	return true;
}

/* The type line of DAT_RETURN @v; false if its type is unknown. */
static bool print_type(DAT_UINT32 v)
{
	DAT_UINT32 type = DAT_GET_TYPE(v);
	bool ok = print_part("type", type, 8, type_name(type), type_text(type));

	printf("\n");
	return ok;
}

/* The subtype line of DAT_RETURN @v; false if its subtype is unknown. */
static bool print_subtype(DAT_UINT32 v)
{
	DAT_UINT32 sub = DAT_GET_SUBTYPE(v), owner;
	bool ok;

	if (sub == DAT_NO_SUBTYPE) {
		printf("  no subtype: %s\n", said(subtype_text(sub)));
		return true;
	}
	ok = print_part("subtype", sub, 4, subtype_name(sub), subtype_text(sub));
	if (ok && subtype_type(sub, &owner) && owner != DAT_GET_TYPE(v) &&
	    type_name(owner) != NULL)
		printf(" (dat_error.h lists it under %s, not this type)",
		       type_name(owner));
	printf("\n");
	return ok;
}

/* The names of DAT_RETURN @v for a heading: "TYPE SUBTYPE", or unknown. */
static void print_return_names(DAT_UINT32 v)
{
	const char *type = type_name(DAT_GET_TYPE(v));
	const char *sub = subtype_name(DAT_GET_SUBTYPE(v));

	printf("%s", type != NULL ? type : "(unknown type)");
	if (DAT_GET_SUBTYPE(v) != DAT_NO_SUBTYPE)
		printf(" %s", sub != NULL ? sub : "(unknown subtype)");
	printf("\n");
}

/*
 * The lines of DAT_RETURN @v: class (but for DAT_SUCCESS), type and, for
 * an error or warning, subtype. False if a part is not defined.
 */
static bool print_return(DAT_UINT32 v)
{
	bool ok;

	if (v == DAT_SUCCESS)
		return print_type(v);
	ok = print_class(v);
	ok = print_type(v) && ok;
	if (v & (DAT_CLASS_ERROR | DAT_CLASS_WARNING) ||
	    DAT_GET_SUBTYPE(v) != DAT_NO_SUBTYPE)
		ok = print_subtype(v) && ok;
	return ok;
}

/* Whether @v is read as a DAT_RETURN (see the top of the file). */
static bool is_return(DAT_UINT32 v)
{
	if (v == DAT_SUCCESS || (v & (DAT_CLASS_ERROR | DAT_CLASS_WARNING)))
		return true;
	return DAT_GET_SUBTYPE(v) == DAT_NO_SUBTYPE && type_name(v) != NULL;
}

/* ------------------------------------------------------------------------
 * Numbers.
 */

/*
 * Parses @s: hexadecimal with 0x, else decimal, negative as printed with
 * %d. True with *@v set when it is a number that fits 32 bits.
 */
static bool parse_number(const char *s, DAT_UINT32 *v)
{
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	const char *digits = hex ? s + 2 : s[0] == '-' ? s + 1 : s;
	unsigned char first = (unsigned char)digits[0];
	char *end;

	if (hex ? !isxdigit(first) : !isdigit(first))
		return false;
	errno = 0;
	if (s[0] == '-') {
		long long n = strtoll(s, &end, 10);

		if (errno != 0 || *end != '\0' || n < INT32_MIN)
			return false;
		*v = (DAT_UINT32)(int32_t)n;
	} else {
		unsigned long long n = strtoull(digits, &end, hex ? 16 : 10);

		if (errno != 0 || *end != '\0' || n > UINT32_MAX)
			return false;
		*v = (DAT_UINT32)n;
	}
	return true;
}

/* Whether @s starts as a number does: no DAT name does. */
static bool numeric(const char *s)
{
	return isdigit((unsigned char)s[0]) ||
	       (s[0] == '-' && isdigit((unsigned char)s[1]));
}

/* Says what number was expected of @arg, which starts as one. */
static void bad_number(const char *arg)
{
	fprintf(stderr, "datinfo: %s: not a number a DAT value can be: "
		"expected 32 bits, in hexadecimal with 0x (0x800b0059) or in "
		"decimal (2148204633, or -2146762663 as %%d prints it)\n", arg);
}

/* Prints @arg as given, with its hexadecimal value when that says more. */
static void print_arg(const char *arg, DAT_UINT32 v)
{
	bool hex = arg[0] == '0' && (arg[1] == 'x' || arg[1] == 'X');

	if (hex || v < 10)
		printf("%s", arg);
	else
		printf("%s (0x%08x)", arg, (unsigned)v);
}

/* Every reading of number @v; returns whether all of it was explained. */
static bool explain_number(const char *arg, DAT_UINT32 v)
{
	const struct dat_names_entry *e;
	bool ok = true, any = false;

	if (is_return(v)) {
		print_arg(arg, v);
		printf(" as a DAT_RETURN: ");
		print_return_names(v);
		ok = print_return(v);
		any = true;
	}
	e = dat_names_find(dat_names_dto_statuses,
			   DAT_NAMES_COUNT(dat_names_dto_statuses), v);
	if (e != NULL) {
		print_arg(arg, v);
		printf(" as a DTO completion status: %s\n  %s\n", e->name,
		       said(e->text));
		any = true;
	}
	e = dat_names_find(dat_names_events, DAT_NAMES_COUNT(dat_names_events),
			   v);
	if (e != NULL) {
		print_arg(arg, v);
		printf(" as an event number: %s\n  %s\n", e->name,
		       said(e->text));
		any = true;
	}
	if (!any)
		fprintf(stderr, "datinfo: %s: no DAT value has this number: "
			"expected a DAT_RETURN (class in bits 31..30, type in "
			"29..16, subtype in 15..0: an error is 0x8TTTSSSS), a "
			"DTO completion status (0 to %u) or an event number "
			"(such as 0x04006)\n", arg,
			(unsigned)dat_names_dto_statuses[
				DAT_NAMES_COUNT(dat_names_dto_statuses) - 1].value);
	return any && ok;
}

/* ------------------------------------------------------------------------
 * Names.
 */

/* @s without its DAT_ prefix (of any case), if it has one. */
static const char *bare(const char *s)
{
	return strncasecmp(s, "DAT_", 4) == 0 ? s + 4 : s;
}

/* Whether @arg names @name: no case, the DAT_ prefix optional. */
static bool same_name(const char *arg, const char *name)
{
	return strcasecmp(bare(arg), bare(name)) == 0;
}

/* What explain_name looks for, and how many it found. */
struct di_lookup {
	const char	*arg;
	unsigned	found;
	bool		ok;		/* all it found is known */
};

/* The explanation of type @v, named. */
static void explain_type(const char *name, DAT_UINT32 v)
{
	if (v == DAT_SUCCESS)
		printf("%s: the DAT_RETURN of success, 0x00000000\n", name);
	else
		printf("%s: DAT_RETURN type 0x%08x (as an error: 0x%08x with a "
		       "subtype in bits 15..0)\n", name, (unsigned)v,
		       (unsigned)(DAT_CLASS_ERROR | v));
	printf("  %s\n", said(type_text(v)));
}

/* The explanation of subtype @v, named: with its type, the whole value. */
static bool explain_subtype(const char *name, DAT_UINT32 v)
{
	DAT_UINT32 type, ret;

	if (!subtype_type(v, &type) || type_name(type) == NULL) {
		printf("%s: DAT_RETURN subtype 0x%04x\n  %s\n", name,
		       (unsigned)v, said(subtype_text(v)));
		return true;
	}
	ret = DAT_CLASS_ERROR | type | v;
	printf("%s: DAT_RETURN subtype 0x%04x of %s; a call returns it as "
	       "0x%08x\n", name, (unsigned)v, type_name(type), (unsigned)ret);
	return print_return(ret);
}

/* for_each_name's callback of explain_name: explains each match. */
static bool explain_match(enum di_kind kind, DAT_UINT32 v, const char *name,
			  void *arg)
{
	struct di_lookup *q = arg;

	if (!same_name(q->arg, name))
		return true;
	q->found++;
	switch (kind) {
	case DI_TYPE:
		explain_type(name, v);
		break;
	case DI_SUBTYPE:
		q->ok = explain_subtype(name, v) && q->ok;
		break;
	case DI_STATUS:
		printf("%s: DTO completion status %u\n  %s\n", name,
		       (unsigned)v, said(kind_text(kind, v)));
		break;
	case DI_EVENT:
		printf("%s: event number 0x%05x\n  %s\n", name, (unsigned)v,
		       said(kind_text(kind, v)));
		break;
	}
	return true;
}

/* for_each_name's callback of suggest: prints names holding q->arg. */
static bool suggest_match(enum di_kind kind, DAT_UINT32 v, const char *name,
			  void *arg)
{
	struct di_lookup *q = arg;

	(void)kind;
	(void)v;
	if (strcasestr(name, bare(q->arg)) == NULL)
		return true;
	fprintf(stderr, "%s %s", q->found == 0 ? "  names holding it:" : ",",
		name);
	return ++q->found < 8;
}

/* After an unknown name @arg: the known names that hold it, if any. */
static void suggest(const char *arg)
{
	struct di_lookup q = { .arg = arg };

	if (strlen(bare(arg)) < 3)
		return;
	for_each_name(suggest_match, &q);
	if (q.found > 0)
		fprintf(stderr, "%s\n", q.found == 8 ? ", ..." : "");
}

/* The value of a type or subtype name @s, by dat_strerror's names. */
static bool lookup_part(const char *s, bool subtype, DAT_UINT32 *v)
{
	DAT_UINT32 step = subtype ? 1 : 1u << 16;
	DAT_UINT32 last = subtype ? DAT_SUBTYPE_MASK : DAT_TYPE_MASK;
	const char *name;
	DAT_UINT32 i;

	for (i = subtype ? 1 : 0; i <= last; i += step) {
		name = subtype ? subtype_name(i) : type_name(i);
		if (name != NULL && same_name(s, name)) {
			*v = i;
			return true;
		}
	}
	return false;
}

/*
 * "TYPE SUBTYPE" or "TYPE:SUBTYPE" (@sep points at the separator): the
 * whole DAT_RETURN of an error. -1 if @arg is not of that form.
 */
static int explain_pair(const char *arg, const char *sep)
{
	char type[128];
	DAT_UINT32 t, s;
	size_t n = (size_t)(sep - arg);

	if (n >= sizeof(type))
		return -1;
	memcpy(type, arg, n);
	type[n] = '\0';
	while (*sep == ' ' || *sep == ':')
		sep++;
	if (!lookup_part(type, false, &t) || !lookup_part(sep, true, &s))
		return -1;
	printf("%s: the DAT_RETURN 0x%08x\n", arg,
	       (unsigned)(DAT_CLASS_ERROR | t | s));
	return print_return(DAT_CLASS_ERROR | t | s) ? 1 : 0;
}

/* Every table's entry named @arg; returns whether it was all explained. */
static bool explain_name(const char *arg)
{
	struct di_lookup q = { .arg = arg, .ok = true };
	const char *sep = strpbrk(arg, " :");
	size_t i;
	int r;

	if (sep != NULL && (r = explain_pair(arg, sep)) >= 0)
		return r == 1;
	for (i = 0; i < DI_COUNT(di_aliases); i++) {
		if (same_name(arg, di_aliases[i].alias)) {
			printf("%s is another name for %s (%s)\n",
			       di_aliases[i].alias, di_aliases[i].name,
			       di_aliases[i].where);
			q.arg = di_aliases[i].name;
			break;
		}
	}
	for_each_name(explain_match, &q);
	if (q.found > 0)
		return q.ok;
	fprintf(stderr, "datinfo: %s: not a DAT name or number: expected a "
		"DAT_RETURN type or subtype (dat_error.h), a DTO completion "
		"status or an event number (dat.h, dat_ib_extensions.h), with "
		"or without DAT_, or a number such as 0x800b0059 or -2146762663\n",
		arg);
	suggest(arg);
	return false;
}

/* ------------------------------------------------------------------------
 * The entry points.
 */

int di_explain(int argc, char **argv)
{
	int i, status = DI_EXIT_OK;

	for (i = 0; i < argc; i++) {
		DAT_UINT32 v;
		bool ok;

		if (i > 0)
			printf("\n");
		fflush(stdout);		/* before stderr's messages */
		if (parse_number(argv[i], &v)) {
			ok = explain_number(argv[i], v);
		} else if (numeric(argv[i])) {
			bad_number(argv[i]);
			ok = false;
		} else {
			ok = explain_name(argv[i]);
		}
		fflush(stdout);
		if (!ok)
			status = DI_EXIT_UNUSABLE;
	}
	return status;
}

/* for_each_name's callback of di_explain_all: one line per name. */
static bool list_one(enum di_kind kind, DAT_UINT32 v, const char *name,
		     void *arg)
{
	const char *text = kind_text(kind, v);
	bool *ok = arg;

	switch (kind) {
	case DI_TYPE:
		printf("type 0x%08x", (unsigned)v);
		break;
	case DI_SUBTYPE:
		printf("subtype 0x%04x", (unsigned)v);
		break;
	case DI_STATUS:
		printf("status %u", (unsigned)v);
		break;
	case DI_EVENT:
		printf("event 0x%05x", (unsigned)v);
		break;
	}
	printf(" %s: %s\n", name, said(text));
	if (text == NULL || text[0] == '\0')
		*ok = false;
	return true;
}

int di_explain_all(void)
{
	bool ok = true;
	size_t i;

	for (i = 0; i < DI_COUNT(di_classes); i++)
		printf("class 0x%08x %s: %s\n", (unsigned)di_classes[i].value,
		       di_classes[i].name, said(di_classes[i].text));
	printf("subtype 0x0000 (none): %s\n", said(subtype_text(0)));
	for_each_name(list_one, &ok);
	return ok ? DI_EXIT_OK : DI_EXIT_UNUSABLE;
}
