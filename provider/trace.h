/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl's trace (SOFTDAPL_TRACE, provider/TRACE.md): one line per DAT
 * call that matters, EP state change, frame on the wire, completion and
 * event, in the format TRACE.md fixes (other tools parse it).
 *
 * Off by default and free when off: sd_trace_on is read from the
 * environment once, when the library is loaded (trace.c's constructor),
 * and never written afterwards, so every trace point is one load and a
 * branch not taken. Arguments of a trace point are evaluated only when
 * tracing is on. Lines are built on the stack (nothing is allocated) and
 * written with one write() each, so lines of several threads or
 * processes sharing the file never interleave.
 *
 * Any thread may trace; trace.c keeps no state that needs a lock.
 */
#ifndef SD_TRACE_H
#define SD_TRACE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <dat2/udat.h>

struct sd_obj;

/*
 * The DAT call without "dat_" ("evd_wait") the calling thread is inside,
 * for the by= key of its lines, or NULL; set only when tracing.
 */
extern _Thread_local const char *sd_trace_call;

/*
 * True on the engine thread, which sets it for itself when it starts
 * (engine.c): its lines say by=engine. The trace is below the engine
 * and does not ask it.
 */
extern _Thread_local bool sd_trace_engine;

/* Set once at load: nonzero when lines are written. */
extern int sd_trace_on;

#define sd_trace_enabled()	__builtin_expect(sd_trace_on != 0, 0)

/*
 * One line "TIME PID KIND OBJECT EVENT keys", TIME now: @kind is api,
 * state, tx, rx, place, dto, event or error; @obj a name from
 * sd_obj_name ("-" for none); @fmt the key=value pairs, printf-style (at
 * least a format: use "%s", "" for none).
 */
#define sd_trace(kind, obj, event, ...)					\
	do {								\
		if (sd_trace_enabled())					\
			sd_trace_line(kind, obj, event, __VA_ARGS__);	\
	} while (0)

void sd_trace_line(const char *kind, const char *obj, const char *event,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * The clock a line's TIME reads (TRACE.md): one clock_gettime. A line
 * whose moment comes before it can be written takes its time here and
 * is written later with sd_trace_at: an `api` line at its call's entry
 * (trace-api.c: the line needs the return code, so it is written when
 * the call returns, after the lines of what the call did), a `dto` line
 * before its event is queued (so that it is never later than what the
 * consumer does once it has taken the event). Read it only when
 * tracing: sd_trace_enabled() first, or in code that runs only then.
 */
static inline struct timespec sd_trace_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return t;
}

/* sd_trace, with the time @at (from sd_trace_now) instead of now. */
#define sd_trace_at(at, kind, obj, event, ...)				\
	do {								\
		if (sd_trace_enabled())					\
			sd_trace_line_at(at, kind, obj, event,		\
					 __VA_ARGS__);			\
	} while (0)

void sd_trace_line_at(const struct timespec *at, const char *kind,
		      const char *obj, const char *event, const char *fmt,
		      ...) __attribute__((format(printf, 5, 6)));

/* An sd_log message as an `error` line (obj.c calls it). */
void sd_trace_error(const char *msg);

/*
 * An object's trace name: its kind and its number in this process
 * ("ep3"), or "-". Returned by value, so it lives until the end of the
 * full expression: pass sd_obj_name(o).s straight to sd_trace or sd_log.
 */
struct sd_name {
	char	s[24];
};

struct sd_name sd_obj_name(const struct sd_obj *obj);

/*
 * The name of a consumer's handle: that of the live object it points at,
 * "-" when it is NULL or names no live object.
 */
struct sd_name sd_handle_name(DAT_HANDLE h);

/* The next number of an object of @type (sd_obj_init). Any thread. */
uint32_t sd_obj_number(DAT_HANDLE_TYPE type);

/* Names for trace values (never NULL). */
/* A frame opcode's name as `tx` and `rx` lines write it ("UNKNOWN"). */
const char *sd_trace_op_name(uint8_t op);
const char *sd_trace_ret_name(DAT_RETURN r);
const char *sd_trace_dto_status_name(DAT_DTO_COMPLETION_STATUS s);
const char *sd_trace_event_name(DAT_EVENT_NUMBER n);

/* Completion flags as TRACE.md writes them ("SUPPRESS|SOLICITED_WAIT"). */
struct sd_name sd_trace_flags(DAT_COMPLETION_FLAGS f);

/*
 * A connection as the trace names it, and the numbers of its frames in
 * each direction (handshake messages included). Lives in struct sd_sock:
 * zero for a new connection; the name is read from the socket once, when
 * the first frame is traced. Guarded as the socket's other fields are.
 */
struct sd_trace_conn {
	uint32_t	tx_seq;		/* the next frame sent */
	uint32_t	rx_seq;		/* the next frame received */
	char		name[120];	/* "LOCAL>REMOTE", or "" until known */
};

/* "ADDR:PORT" ("[ADDR]:PORT" for IPv6) of @sa into @buf of @n bytes. */
struct sockaddr;
void sd_trace_addr_str(const struct sockaddr *sa, char *buf, size_t n);

/*
 * Names connection @c "LOCAL>REMOTE" from its two addresses (either may
 * be AF_UNSPEC, "?"); a name set stays.
 */
void sd_trace_conn_set(struct sd_trace_conn *c, const struct sockaddr *local,
		       const struct sockaddr *remote);

/*
 * "LOCAL>REMOTE" of a datagram: @fd's own address, and @peer's (a
 * struct sockaddr of @len bytes). Into @buf of @n bytes.
 */
const char *sd_trace_addr_pair(int fd, const void *peer, unsigned len,
			       bool to_peer, char *buf, unsigned n);

/*
 * A data frame's line: @dir "tx" or "rx", @ep the EP, @hdr the packed
 * header (proto.h), @bad why it was refused (rx) or NULL. Numbers it on
 * @c, the connection (named by sd_trace_conn_set, or "?").
 */
void sd_trace_frame(const char *dir, const struct sd_obj *ep,
		    struct sd_trace_conn *c, const uint8_t *hdr,
		    const char *bad);

/*
 * A handshake message's line: @msg the packed message and its private
 * data; @ep the EP, or NULL before one is known, when @sp names the
 * service point; @bad as above.
 */
void sd_trace_cm(const char *dir, const struct sd_obj *ep,
		 const struct sd_obj *sp, struct sd_trace_conn *c,
		 const uint8_t *msg, const char *bad);

/*
 * The priority of trace.c's constructor, which opens the trace; trace-api.c's,
 * which wraps the RC table when tracing, runs right after it (+ 1),
 * provider.c's, which copies the RC table into the UD table, after that
 * (+ 2), trace-api.c's second, which wraps the UD table's own slots, last
 * (+ 3), and fault.c's right before them all (- 1). All before the
 * constructors of no priority.
 */
#define SD_TRACE_CTOR	200

#endif
