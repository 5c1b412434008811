/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * seed12.h: what the four seed synopsis programs share.
 *
 * The programs post-send.c, post-recv.c, post-rdma-write.c and
 * srq-post-recv.c are DAT 1.2 programs, one per seed manual page
 * (dat_ep_post_send(3DAT), dat_ep_post_recv(3DAT),
 * dat_ep_post_rdma_write(3DAT), dat_srq_post_recv(3DAT)). Each builds
 * exactly as its page's SYNOPSIS says,
 *
 *	cc -I<tree>/include prog.c seed12.c -L<tree>/build/lib -ldat
 *
 * with #include <dat/udat.h> and nothing of DAT 2.0, and checks every
 * rule of its page (and the COMMON rules that apply to it) that a program
 * can observe. The rules are those of the project's SEED-RULES.md; each
 * check names its rule in a comment and in what it prints.
 *
 * Each program runs in one process: two endpoints (EPs) of one Interface
 * Adapter (IA), connected to each other over loopback through a public
 * service point (PSP). The IA's name is the first argument; the DAT
 * registry finds it in the dat.conf named by $DAT_OVERRIDE (or
 * /etc/dat.conf).
 *
 * What a program prints: one line per check,
 *
 *	ok   SEND-5   post on the DISCONNECTED client: DAT_SUCCESS
 *
 * and "PASS" at the end (exit status 0); or, at the first check that
 * fails, a line "FAIL <rule> ..." saying what was expected and what
 * came, and exit status 1.
 *
 * Every wait is bounded: an event that must come is waited for at most
 * SEED_WAIT_US; a check that an event does NOT come waits SEED_QUIET_MS
 * and says so.
 */
#ifndef SEED12_H
#define SEED12_H

#include <stdint.h>

#include <dat/udat.h>

/* How long to wait for an event that must come: a few seconds. */
#define SEED_WAIT_US	(5 * 1000 * 1000)

/* How long a check that something does NOT happen watches for it. */
#define SEED_QUIET_MS	200

/* ------------------------------------------------------------------ */
/* Reporting                                                           */

/*
 * Starts the checks of one rule (or group of rules) and prints @title.
 * A setup call that fails later names this section in its message.
 */
void seed_section(const char *title);

/* Prints "ok   @rule  <message>" when @ok, else fails with that message. */
void seed_check(const char *rule, int ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prints "FAIL @rule  <message>" and exits with status 1. */
void seed_fail(const char *rule, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

/*
 * Checks the DAT_RETURN @got of @what: DAT_SUCCESS when @want is
 * DAT_SUCCESS, else an error of type @want (DAT_INVALID_PARAMETER...),
 * whatever its subtype. Prints what came, with its subtype.
 */
void seed_check_ret(const char *rule, DAT_RETURN got, DAT_RETURN_TYPE want,
		    const char *what);

/* A call that must succeed (setup, teardown): exits with a message if not. */
#define CALL(call)	seed_call((call), #call, __FILE__, __LINE__)
void seed_call(DAT_RETURN r, const char *what, const char *file, int line);

/* dat_strerror's text of @r: "DAT_INVALID_STATE (DAT_INVALID_STATE_EP_UNCONNECTED)". */
const char *seed_ret_str(DAT_RETURN r);
const char *seed_status_str(DAT_DTO_COMPLETION_STATUS status);
const char *seed_event_str(DAT_EVENT_NUMBER number);
const char *seed_state_str(DAT_EP_STATE state);

/* Prints "PASS" and exits with status 0. */
void seed_pass(void) __attribute__((noreturn));

/*
 * While quiet, the seed_expect_* functions print nothing when their
 * check passes (for loops of thousands of DTOs); failures still print.
 */
void seed_quiet(int quiet);

/* ------------------------------------------------------------------ */
/* The IA, memory, endpoints and connections                           */

/*
 * Opens the IA named by argv[1] (it is required) and prints what @prog
 * checks against which IA.
 */
DAT_IA_HANDLE seed_open_ia(int argc, char **argv, const char *prog);

/*
 * COMMON-3 and COMMON-9 as the provider states them in its attributes:
 * the consumer owns local_iov again as soon as a post returns
 * (DAT_IOV_CONSUMER), and an optimal buffer alignment, a power of two.
 */
void seed_check_provider_attrs(DAT_IA_HANDLE ia);

/* A registered buffer: page-aligned, zeroed, @len bytes. */
struct seed_mem {
	char			*buf;
	DAT_VLEN		len;
	DAT_LMR_HANDLE		lmr;
	DAT_LMR_CONTEXT		lmr_context;	/* names it in local iovs */
	DAT_RMR_CONTEXT		rmr_context;	/* names it to the peer */
};

/* Allocates and registers @len bytes in @pz with privileges @priv. */
void seed_mem_create(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz, DAT_VLEN len,
		     DAT_MEM_PRIV_FLAGS priv, struct seed_mem *m);
void seed_mem_free(struct seed_mem *m);

/* The local segment [@off, @off + @len) of @m. */
DAT_LMR_TRIPLET seed_iov(const struct seed_mem *m, DAT_VLEN off, DAT_VLEN len);
/* The same bytes as a peer names them for RDMA. */
DAT_RMR_TRIPLET seed_rmr(const struct seed_mem *m, DAT_VLEN off, DAT_VLEN len);

/* Fills @n bytes at @p with a pattern that depends on @seed. */
void seed_fill(char *p, DAT_VLEN n, unsigned seed);

/*
 * EP attributes: reliable connected, the receive and request completion
 * flags the EP allows (DAT_COMPLETION_EVD_THRESHOLD_FLAG, the provider's
 * default, or UNSIGNALLED, or SOLICITED_WAIT), and its queue depths.
 */
DAT_EP_ATTR seed_ep_attr(DAT_COMPLETION_FLAGS recv_flags,
			 DAT_COMPLETION_FLAGS request_flags,
			 DAT_COUNT max_recv_dtos, DAT_COUNT max_request_dtos);

/*
 * One endpoint and its event dispatchers (EVDs): receive completions,
 * request completions (sends, RDMA) and connection events each on an
 * EVD of their own, so that a check sees which EVD an event went to.
 */
struct seed_ep {
	DAT_EP_HANDLE		ep;
	DAT_EVD_HANDLE		recv_evd;
	DAT_EVD_HANDLE		req_evd;
	DAT_EVD_HANDLE		conn_evd;
};

/*
 * Creates @e in @pz with attributes @attr (NULL: the provider's), taking
 * its receive buffers from @srq unless that is DAT_HANDLE_NULL.
 */
void seed_ep_create(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz, const DAT_EP_ATTR *attr,
		    DAT_SRQ_HANDLE srq, struct seed_ep *e);
void seed_ep_free(struct seed_ep *e);

/* The state of @e (dat_ep_get_status). */
DAT_EP_STATE seed_ep_state(const struct seed_ep *e);

/*
 * Connecting, in two halves so that a program can look at the client
 * while its request is pending: seed_connect_start creates a PSP on a
 * port the provider picks (dat_psp_create_any) and connects @client to
 * it at the IA's own address; seed_connect_finish takes the connection
 * request, accepts it with @server (dat_cr_accept), waits until both
 * EPs see DAT_CONNECTION_EVENT_ESTABLISHED, and frees the PSP.
 */
struct seed_listener {
	DAT_EVD_HANDLE		cr_evd;
	DAT_PSP_HANDLE		psp;
};
void seed_connect_start(DAT_IA_HANDLE ia, struct seed_ep *client,
			struct seed_listener *l);
void seed_connect_finish(struct seed_listener *l, struct seed_ep *server,
			 struct seed_ep *client);
void seed_connect(DAT_IA_HANDLE ia, struct seed_ep *server, struct seed_ep *client);

/*
 * @a disconnects (@flags: DAT_CLOSE_GRACEFUL_FLAG or _ABRUPT_FLAG) and
 * both @a and @b see DAT_CONNECTION_EVENT_DISCONNECTED.
 */
void seed_disconnect(struct seed_ep *a, struct seed_ep *b, DAT_CLOSE_FLAGS flags);

/* ------------------------------------------------------------------ */
/* Events                                                              */

/*
 * Waits for the next event of @evd in dat_evd_wait, at most
 * SEED_WAIT_US; fails naming @what if none comes. It waits in slices
 * of 100 ms: a completion that does not notify (unsignalled, or a
 * receive without a solicited event on an EP that waits for those) is
 * queued without waking a waiter, and the next slice, starting with it
 * queued, returns it at once.
 */
DAT_EVENT seed_wait(DAT_EVD_HANDLE evd, const char *what);

/*
 * The same without ever waiting in dat_evd_wait: polls dat_evd_dequeue.
 * For an EVD whose notifications a CNO watches: a thread waiting on
 * the EVD would take the notification instead of the CNO.
 */
DAT_EVENT seed_dequeue(DAT_EVD_HANDLE evd, const char *what);

/*
 * Checks that @ev is the DTO completion of @ep (unless that is
 * DAT_HANDLE_NULL) with @cookie and @status; prints it and returns its
 * data.
 */
DAT_DTO_COMPLETION_EVENT_DATA seed_check_dto(const char *rule, DAT_EVENT ev,
					     DAT_EP_HANDLE ep, uint64_t cookie,
					     DAT_DTO_COMPLETION_STATUS status,
					     const char *what);

/* seed_check_dto of the next event of @evd (seed_wait). */
DAT_DTO_COMPLETION_EVENT_DATA seed_expect_dto(const char *rule, DAT_EVD_HANDLE evd,
					      DAT_EP_HANDLE ep, uint64_t cookie,
					      DAT_DTO_COMPLETION_STATUS status,
					      const char *what);

/* Waits for the next event of @evd and checks it is connection event @number. */
void seed_expect_conn(const char *rule, DAT_EVD_HANDLE evd,
		      DAT_EVENT_NUMBER number, const char *what);

/*
 * Checks that no event arrives on @evd: waits SEED_QUIET_MS for one in
 * dat_evd_wait, then checks that nothing that does not notify was
 * queued meanwhile (dat_evd_dequeue).
 */
void seed_expect_none(const char *rule, DAT_EVD_HANDLE evd, const char *what);

/*
 * A consumer notification object (CNO) fires when an EVD attached to it
 * (dat_evd_modify_cno) gets a notification event and no thread waits on
 * that EVD. A completion that does not notify is queued and fires
 * nothing. seed_expect_cno_fired checks that @cno fired for @evd (and
 * takes the trigger); seed_expect_cno_quiet that it did not fire within
 * SEED_QUIET_MS.
 */
void seed_expect_cno_fired(const char *rule, DAT_CNO_HANDLE cno,
			   DAT_EVD_HANDLE evd, const char *what);
void seed_expect_cno_quiet(const char *rule, DAT_CNO_HANDLE cno, const char *what);

/* ------------------------------------------------------------------ */
/* COMMON-4                                                            */

/* Milliseconds on a monotonic clock. */
long seed_now_ms(void);

/*
 * COMMON-4: a post takes from preallocated pools. seed12.c counts every
 * allocation the process makes (malloc, calloc, realloc, the aligned
 * allocators), in any thread. seed_count_start starts counting (after a
 * warm-up); seed_count_check checks that nothing was allocated since,
 * during @what, and prints what it found.
 */
void seed_count_start(void);
void seed_count_check(const char *what);

#endif
