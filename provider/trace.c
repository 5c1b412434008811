/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl's trace (provider/TRACE.md): where lines go, how one is built
 * and written, object, value, frame and connection names. The `api`
 * lines of the calls that go through the provider table are trace-api.c.
 *
 * SOFTDAPL_TRACE is read once, by the constructor below, before any
 * consumer can call the provider: it opens the file. When tracing,
 * trace-api.c's constructor, which runs next, points the slots of the
 * provider table (sd_provider, and the UD table once provider.c builds
 * it) at wrappers that read the clock, call the real entry point and then
 * write its `api` line, stamped with the call's entry. With tracing off
 * the table is left alone, so the calls cost nothing more. The request
 * posts are the exception: they write their line themselves (post.c),
 * before the frame they make goes out, so that a trace reads post, then
 * frame, then completion.
 *
 * After the constructor nothing here is written: any thread may trace.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "entry.h"
#include "obj.h"
#include "proto.h"
#include "trace.h"
#include "util.h"

/* Read once, when the library is loaded; never written afterwards. */
int sd_trace_on;
static int trace_fd = -1;

/*
 * The DAT call this consumer thread is inside, without "dat_", for a
 * line's by= key (TRACE.md), or NULL: set by the calls that drive
 * progress from the consumer's thread (evd.c) and by the request posts
 * (post.c), only when tracing. Initial-exec, as
 * engine.c's on_engine.
 */
_Thread_local const char *sd_trace_call __attribute__((tls_model("initial-exec")));

/* Set by the engine thread for itself (engine.c), below which this is. */
_Thread_local bool sd_trace_engine __attribute__((tls_model("initial-exec")));

/* A line's room: TRACE.md promises at most 1 KiB. */
#define TRACE_LINE_MAX	1024


/* SOFTDAPL_TRACE's path with %p replaced by the pid, into @out. */
static int expand_path(const char *s, char *out, size_t n)
{
	size_t o = 0;

	for (; *s != '\0'; s++) {
		int k;

		if (s[0] == '%' && s[1] == 'p') {
			k = snprintf(out + o, n - o, "%ld", (long)getpid());
			s++;
		} else {
			k = snprintf(out + o, n - o, "%c", *s);
		}
		if (k < 0 || (size_t)k >= n - o)
			return -ENAMETOOLONG;
		o += (size_t)k;
	}
	return 0;
}

/* Before trace-api.c's constructor, which wraps the table if tracing. */
__attribute__((constructor(SD_TRACE_CTOR))) static void sd_trace_init(void)
{
	const char *s = getenv("SOFTDAPL_TRACE");
	char path[4096], msg[4096 + 256];
	int fd, n;

	if (s == NULL || s[0] == '\0' || strcmp(s, "0") == 0)
		return;
	if (strcmp(s, "1") == 0 || strcmp(s, "stderr") == 0) {
		fd = STDERR_FILENO;
	} else if (expand_path(s, path, sizeof(path)) < 0) {
		fd = -1;
		errno = ENAMETOOLONG;
	} else {
		fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	}
	if (fd < 0) {
		n = snprintf(msg, sizeof(msg),
			     "softdapl: SOFTDAPL_TRACE=%s: %s; tracing stays off\n",
			     s, strerror(errno));
		if (n > 0 && write(STDERR_FILENO, msg,
				   (size_t)n < sizeof(msg) ? (size_t)n :
				   sizeof(msg) - 1) < 0)
			return;
		return;
	}
	trace_fd = fd;
	sd_trace_on = 1;
}

/*
 * The library is unloaded: the registry's dlclose after the last IA
 * closed, or exit. No provider code runs after a dlclose; at exit, a
 * thread of an IA the consumer never closed may still trace, and its
 * write() then fails (EBADF) and is dropped, as a write to a full disk
 * would be. stderr is not ours to close.
 */
__attribute__((destructor)) static void sd_trace_fini(void)
{
	if (trace_fd > STDERR_FILENO)
		close(trace_fd);
}

/* ------------------------------------------------------------------ */
/* Lines                                                               */

/* The line of @at, its pairs @fmt, @ap (printf-style), written at once. */
static __attribute__((format(printf, 5, 0)))
void trace_vline(const struct timespec *at, const char *kind,
		 const char *obj, const char *event, const char *fmt,
		 va_list ap)
{
	char buf[TRACE_LINE_MAX];
	unsigned long day;
	int n, k;

	day = (unsigned long)(at->tv_sec % 86400);
	n = snprintf(buf, sizeof(buf), "%02lu:%02lu:%02lu.%06lu %ld %s %s %s",
		     day / 3600, day / 60 % 60, day % 60,
		     (unsigned long)at->tv_nsec / 1000, (long)getpid(), kind,
		     obj != NULL && obj[0] != '\0' ? obj : "-", event);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	if (fmt[0] != '\0') {
		buf[n++] = ' ';
		k = vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
		if (k > 0)
			n += k;
		if (n > (int)sizeof(buf) - 2)
			n = (int)sizeof(buf) - 2;
		/* Nothing was added after all: no trailing space. */
		if (k <= 0)
			n--;
	}
	/* Whose thread wrote it; a `place` line says so itself (by=initiator). */
	if (strcmp(kind, "place") != 0) {
		if (sd_trace_engine)
			k = snprintf(buf + n, sizeof(buf) - (size_t)n,
				     " by=engine");
		else if (strcmp(kind, "api") == 0)
			k = snprintf(buf + n, sizeof(buf) - (size_t)n,
				     " by=dat_%s", event);
		else
			k = snprintf(buf + n, sizeof(buf) - (size_t)n,
				     " by=%s%s", sd_trace_call != NULL ?
				     "dat_" : "", sd_trace_call != NULL ?
				     sd_trace_call : "consumer");
		if (k > 0)
			n += k;
		if (n > (int)sizeof(buf) - 2)
			n = (int)sizeof(buf) - 2;
	}
	buf[n++] = '\n';
	if (write(trace_fd, buf, (size_t)n) < 0)
		return;		/* nowhere to say so */
}

void sd_trace_line(const char *kind, const char *obj, const char *event,
		   const char *fmt, ...)
{
	struct timespec t = sd_trace_now();
	va_list ap;

	va_start(ap, fmt);
	trace_vline(&t, kind, obj, event, fmt, ap);
	va_end(ap);
}

void sd_trace_line_at(const struct timespec *at, const char *kind,
		      const char *obj, const char *event, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	trace_vline(at, kind, obj, event, fmt, ap);
	va_end(ap);
}

void sd_trace_error(const char *msg)
{
	char q[TRACE_LINE_MAX - 64];
	size_t i;

	/* A quoted value holds no double quote, and lines no newline. */
	for (i = 0; msg[i] != '\0' && i < sizeof(q) - 1; i++)
		q[i] = msg[i] == '"' ? '\'' : msg[i] == '\n' ? ' ' : msg[i];
	q[i] = '\0';
	sd_trace_line("error", "-", "message", "msg=\"%s\"", q);
}

/* ------------------------------------------------------------------ */
/* Names                                                               */

/* Per DAT_HANDLE_TYPE: the names' prefixes and the last numbers given. */
static const char *const kind_names[] = {
	[DAT_HANDLE_TYPE_CR] = "cr",	[DAT_HANDLE_TYPE_EP] = "ep",
	[DAT_HANDLE_TYPE_EVD] = "evd",	[DAT_HANDLE_TYPE_IA] = "ia",
	[DAT_HANDLE_TYPE_LMR] = "lmr",	[DAT_HANDLE_TYPE_PSP] = "psp",
	[DAT_HANDLE_TYPE_PZ] = "pz",	[DAT_HANDLE_TYPE_RMR] = "rmr",
	[DAT_HANDLE_TYPE_RSP] = "rsp",	[DAT_HANDLE_TYPE_CNO] = "cno",
	[DAT_HANDLE_TYPE_SRQ] = "srq",	[DAT_HANDLE_TYPE_CSP] = "csp",
};
static uint32_t kind_last[SD_ARRAY_SIZE(kind_names)];

uint32_t sd_obj_number(DAT_HANDLE_TYPE type)
{
	if ((unsigned)type >= SD_ARRAY_SIZE(kind_last))
		return 0;
	return __atomic_add_fetch(&kind_last[type], 1, __ATOMIC_RELAXED);
}

struct sd_name sd_obj_name(const struct sd_obj *obj)
{
	struct sd_name n;

	if (obj == NULL || (unsigned)obj->type >= SD_ARRAY_SIZE(kind_names))
		snprintf(n.s, sizeof(n.s), "-");
	else
		snprintf(n.s, sizeof(n.s), "%s%u", kind_names[obj->type],
			 obj->num);
	return n;
}

struct sd_name sd_handle_name(DAT_HANDLE h)
{
	static const uint32_t live[] = {
		SD_MAGIC_IA, SD_MAGIC_PZ, SD_MAGIC_LMR, SD_MAGIC_RMR,
		SD_MAGIC_EVD, SD_MAGIC_CNO, SD_MAGIC_EP, SD_MAGIC_PSP,
		SD_MAGIC_RSP, SD_MAGIC_CR, SD_MAGIC_SRQ, SD_MAGIC_CSP,
		SD_MAGIC_UD_EP, SD_MAGIC_UD_CR,
	};
	const struct sd_obj *obj = h;
	size_t i;

	if ((uintptr_t)h >= 4096)
		for (i = 0; i < SD_ARRAY_SIZE(live); i++)
			if (obj->magic == live[i])
				return sd_obj_name(obj);
	return sd_obj_name(NULL);
}

const char *sd_trace_ret_name(DAT_RETURN r)
{
	static const char *const names[] = {
		"DAT_SUCCESS", "DAT_ABORT", "DAT_CONN_QUAL_IN_USE",
		"DAT_INSUFFICIENT_RESOURCES", "DAT_INTERNAL_ERROR",
		"DAT_INVALID_HANDLE", "DAT_INVALID_PARAMETER",
		"DAT_INVALID_STATE", "DAT_LENGTH_ERROR",
		"DAT_MODEL_NOT_SUPPORTED", "DAT_PROVIDER_NOT_FOUND",
		"DAT_PRIVILEGES_VIOLATION", "DAT_PROTECTION_VIOLATION",
		"DAT_QUEUE_EMPTY", "DAT_QUEUE_FULL", "DAT_TIMEOUT_EXPIRED",
		"DAT_PROVIDER_ALREADY_REGISTERED", "DAT_PROVIDER_IN_USE",
		"DAT_INVALID_ADDRESS", "DAT_INTERRUPTED_CALL",
		"DAT_CONN_QUAL_UNAVAILABLE", "DAT_RESERVED_LMR",
		"DAT_PORT_IN_USE", "DAT_COMM_NOT_SUPPORTED",
	};
	unsigned t = (unsigned)DAT_GET_TYPE(r) >> 16;

	if (DAT_GET_TYPE(r) == DAT_NOT_IMPLEMENTED)
		return "DAT_NOT_IMPLEMENTED";
	if ((DAT_GET_TYPE(r) & 0xffff) == 0 && t < SD_ARRAY_SIZE(names))
		return names[t];
	return "DAT_EXTENSION_RETURN";
}

const char *sd_trace_dto_status_name(DAT_DTO_COMPLETION_STATUS s)
{
	switch (s) {
	case DAT_DTO_SUCCESS:		return "DAT_DTO_SUCCESS";
	case DAT_DTO_ERR_FLUSHED:	return "DAT_DTO_ERR_FLUSHED";
	case DAT_DTO_ERR_LOCAL_LENGTH:	return "DAT_DTO_ERR_LOCAL_LENGTH";
	case DAT_DTO_ERR_LOCAL_EP:	return "DAT_DTO_ERR_LOCAL_EP";
	case DAT_DTO_ERR_LOCAL_PROTECTION: return "DAT_DTO_ERR_LOCAL_PROTECTION";
	case DAT_DTO_ERR_BAD_RESPONSE:	return "DAT_DTO_ERR_BAD_RESPONSE";
	case DAT_DTO_ERR_REMOTE_ACCESS:	return "DAT_DTO_ERR_REMOTE_ACCESS";
	case DAT_DTO_ERR_REMOTE_RESPONDER: return "DAT_DTO_ERR_REMOTE_RESPONDER";
	case DAT_DTO_ERR_TRANSPORT:	return "DAT_DTO_ERR_TRANSPORT";
	case DAT_DTO_ERR_RECEIVER_NOT_READY:
		return "DAT_DTO_ERR_RECEIVER_NOT_READY";
	case DAT_DTO_ERR_PARTIAL_PACKET: return "DAT_DTO_ERR_PARTIAL_PACKET";
	case DAT_RMR_OPERATION_FAILED:	return "DAT_RMR_OPERATION_FAILED";
	case DAT_DTO_ERR_LOCAL_MM_ERROR: return "DAT_DTO_ERR_LOCAL_MM_ERROR";
	default:			return "DAT_DTO_STATUS_UNKNOWN";
	}
}

const char *sd_trace_event_name(DAT_EVENT_NUMBER n)
{
	switch ((int)n) {
	case DAT_IB_DTO_EVENT:
		return "DAT_IB_DTO_EVENT";
	case DAT_IB_UD_CONNECTION_REQUEST_EVENT:
		return "DAT_IB_UD_CONNECTION_REQUEST_EVENT";
	case DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED:
		return "DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED";
	case DAT_IB_UD_CONNECTION_REJECT_EVENT:
		return "DAT_IB_UD_CONNECTION_REJECT_EVENT";
	case DAT_IB_UD_CONNECTION_ERROR_EVENT:
		return "DAT_IB_UD_CONNECTION_ERROR_EVENT";
	case DAT_DTO_COMPLETION_EVENT:	return "DAT_DTO_COMPLETION_EVENT";
	case DAT_RMR_BIND_COMPLETION_EVENT: return "DAT_RMR_BIND_COMPLETION_EVENT";
	case DAT_CONNECTION_REQUEST_EVENT: return "DAT_CONNECTION_REQUEST_EVENT";
	case DAT_CONNECTION_EVENT_ESTABLISHED:
		return "DAT_CONNECTION_EVENT_ESTABLISHED";
	case DAT_CONNECTION_EVENT_PEER_REJECTED:
		return "DAT_CONNECTION_EVENT_PEER_REJECTED";
	case DAT_CONNECTION_EVENT_NON_PEER_REJECTED:
		return "DAT_CONNECTION_EVENT_NON_PEER_REJECTED";
	case DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR:
		return "DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR";
	case DAT_CONNECTION_EVENT_DISCONNECTED:
		return "DAT_CONNECTION_EVENT_DISCONNECTED";
	case DAT_CONNECTION_EVENT_BROKEN: return "DAT_CONNECTION_EVENT_BROKEN";
	case DAT_CONNECTION_EVENT_TIMED_OUT: return "DAT_CONNECTION_EVENT_TIMED_OUT";
	case DAT_CONNECTION_EVENT_UNREACHABLE:
		return "DAT_CONNECTION_EVENT_UNREACHABLE";
	case DAT_ASYNC_ERROR_EVD_OVERFLOW: return "DAT_ASYNC_ERROR_EVD_OVERFLOW";
	case DAT_ASYNC_ERROR_IA_CATASTROPHIC:
		return "DAT_ASYNC_ERROR_IA_CATASTROPHIC";
	case DAT_ASYNC_ERROR_EP_BROKEN:	return "DAT_ASYNC_ERROR_EP_BROKEN";
	case DAT_ASYNC_ERROR_TIMED_OUT:	return "DAT_ASYNC_ERROR_TIMED_OUT";
	case DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR:
		return "DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR";
	case DAT_SOFTWARE_EVENT:	return "DAT_SOFTWARE_EVENT";
	default:			return "DAT_EVENT_UNKNOWN";
	}
}

struct sd_name sd_trace_flags(DAT_COMPLETION_FLAGS f)
{
	static const struct {
		DAT_COMPLETION_FLAGS	flag;
		const char		*name;
	} bits[] = {
		{ DAT_COMPLETION_SUPPRESS_FLAG, "SUPPRESS" },
		{ DAT_COMPLETION_SOLICITED_WAIT_FLAG, "SOLICITED_WAIT" },
		{ DAT_COMPLETION_UNSIGNALLED_FLAG, "UNSIGNALLED" },
		{ DAT_COMPLETION_BARRIER_FENCE_FLAG, "BARRIER_FENCE" },
		{ DAT_COMPLETION_EVD_THRESHOLD_FLAG, "EVD_THRESHOLD" },
		{ DAT_COMPLETION_LMR_INVALIDATE_FENCE_FLAG, "LMR_INVALIDATE_FENCE" },
	};
	struct sd_name n;
	char big[128];
	size_t i, o = 0;

	big[0] = '\0';
	for (i = 0; i < SD_ARRAY_SIZE(bits); i++)
		if (f & bits[i].flag)
			o += (size_t)snprintf(big + o, sizeof(big) - o, "%s%s",
					      o > 0 ? "|" : "", bits[i].name);
	if (o == 0)
		snprintf(big, sizeof(big), "%s", f == 0 ? "DEFAULT" : "0");
	/* sd_name is short: the rare long set is cut, never overflowed. */
	snprintf(n.s, sizeof(n.s), "%s", big);
	if (strlen(big) >= sizeof(n.s))
		snprintf(n.s, sizeof(n.s), "0x%x", (unsigned)f);
	return n;
}

/* "ADDR:PORT" ("[ADDR]:PORT" for IPv6) of @sa into @buf. */
void sd_trace_addr_str(const struct sockaddr *sa, char *buf, size_t n)
{
	char a[INET6_ADDRSTRLEN];

	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;

		inet_ntop(AF_INET, &in->sin_addr, a, sizeof(a));
		snprintf(buf, n, "%s:%u", a, ntohs(in->sin_port));
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)sa;

		inet_ntop(AF_INET6, &in6->sin6_addr, a, sizeof(a));
		snprintf(buf, n, "[%s]:%u", a, ntohs(in6->sin6_port));
	} else {
		snprintf(buf, n, "?");
	}
}

void sd_trace_conn_set(struct sd_trace_conn *c, const struct sockaddr *local,
		       const struct sockaddr *remote)
{
	char ls[59], rs[59];

	if (c->name[0] != '\0')
		return;
	sd_trace_addr_str(local, ls, sizeof(ls));
	sd_trace_addr_str(remote, rs, sizeof(rs));
	snprintf(c->name, sizeof(c->name), "%s>%s", ls, rs);
}

/* @c's name, "?>?" when it was never set. */
static const char *conn_name(const struct sd_trace_conn *c)
{
	return c->name[0] != '\0' ? c->name : "?>?";
}

const char *sd_trace_addr_pair(int fd, const void *peer, unsigned len,
			       bool to_peer, char *buf, unsigned n)
{
	struct sockaddr_storage l, r;
	socklen_t ll = sizeof(l);
	char ls[59], rs[59];

	if (getsockname(fd, (struct sockaddr *)&l, &ll) < 0)
		l.ss_family = AF_UNSPEC;
	memset(&r, 0, sizeof(r));
	if (peer != NULL)
		memcpy(&r, peer, len < sizeof(r) ? len : sizeof(r));
	sd_trace_addr_str((struct sockaddr *)&l, ls, sizeof(ls));
	sd_trace_addr_str((struct sockaddr *)&r, rs, sizeof(rs));
	snprintf(buf, n, "%s>%s", to_peer ? ls : rs, to_peer ? rs : ls);
	return buf;
}

/* ------------------------------------------------------------------ */
/* Frames                                                              */

static const char *const op_names[SD_OP_MAX + 1] = {
	[SD_OP_SEND] = "SEND",		[SD_OP_SEND_SE] = "SEND_SE",
	[SD_OP_WRITE] = "WRITE",	[SD_OP_READ_REQ] = "READ_REQ",
	[SD_OP_READ_RESP] = "READ_RESP", [SD_OP_ACK] = "ACK",
	[SD_OP_TERMINATE] = "TERMINATE", [SD_OP_DISCONNECT] = "DISCONNECT",
	[SD_OP_SEND_INV] = "SEND_INV",	[SD_OP_SEND_SE_INV] = "SEND_SE_INV",
	[SD_OP_WRITE_IMM] = "WRITE_IMM", [SD_OP_WRITE_IMM_SE] = "WRITE_IMM_SE",
	[SD_OP_FETCH_ADD] = "FETCH_ADD", [SD_OP_CMP_SWAP] = "CMP_SWAP",
	[SD_OP_ATOMIC_RESP] = "ATOMIC_RESP",
};

const char *sd_trace_op_name(uint8_t op)
{
	return op >= 1 && op <= SD_OP_MAX ? op_names[op] : "UNKNOWN";
}

/* @bad as a key, " bad=\"...\"", or "" (quotes in it become '). */
static struct sd_name_long {
	char	s[160];
} bad_key(const char *bad)
{
	struct sd_name_long k;
	size_t i, o;

	k.s[0] = '\0';
	if (bad == NULL)
		return k;
	o = (size_t)snprintf(k.s, sizeof(k.s), " bad=\"");
	for (i = 0; bad[i] != '\0' && o < sizeof(k.s) - 2; i++)
		k.s[o++] = bad[i] == '"' ? '\'' : bad[i];
	k.s[o++] = '"';
	k.s[o] = '\0';
	return k;
}

void sd_trace_frame(const char *dir, const struct sd_obj *ep,
		    struct sd_trace_conn *c, const uint8_t *hdr,
		    const char *bad)
{
	struct sd_hdr h;
	uint32_t seq = dir[0] == 't' ? c->tx_seq++ : c->rx_seq++;
	uint64_t bytes;

	sd_hdr_unpack(&h, hdr);
	bytes = SD_HDR_SIZE + (h.op >= 1 && h.op <= SD_OP_MAX &&
			       sd_op_has_payload(h.op) &&
			       !(sd_op_is_send(h.op) && h.addr != 0) ? h.len : 0);
	sd_trace_line(dir, sd_obj_name(ep).s,
		      sd_trace_op_name(h.op),
		      "conn=%s seq=%u bytes=%llu len=%u ack=%u rkey=0x%x addr=0x%llx tag=%u code=%u%s",
		      conn_name(c), seq, (unsigned long long)bytes,
		      h.len, h.ack, h.rkey, (unsigned long long)h.addr, h.tag,
		      h.code, bad_key(bad).s);
}

void sd_trace_cm(const char *dir, const struct sd_obj *ep,
		 const struct sd_obj *sp, struct sd_trace_conn *c,
		 const uint8_t *msg, const char *bad)
{
	static const char *const types[] = {
		[SD_CM_HELLO] = "HELLO", [SD_CM_ACCEPT] = "ACCEPT",
		[SD_CM_REJECT] = "REJECT", [SD_CM_RTU] = "RTU",
	};
	static const char *const reasons[] = {
		[SD_REJ_CONSUMER] = "consumer", [SD_REJ_NO_SP] = "no_sp",
		[SD_REJ_PROTOCOL] = "protocol",
	};
	uint32_t seq = dir[0] == 't' ? c->tx_seq++ : c->rx_seq++;
	struct sd_cm_msg m;
	char extra[64] = "";

	sd_cm_unpack(&m, msg);
	if (m.type == SD_CM_HELLO)
		snprintf(extra, sizeof(extra), " qual=%llu",
			 (unsigned long long)m.conn_qual);
	else if (m.type == SD_CM_REJECT)
		snprintf(extra, sizeof(extra), " reason=%s",
			 m.reason < SD_ARRAY_SIZE(reasons) ? reasons[m.reason] :
			 "unknown");
	if (ep == NULL && sp != NULL) {
		size_t o = strlen(extra);

		snprintf(extra + o, sizeof(extra) - o, " sp=%s",
			 sd_obj_name(sp).s);
	}
	sd_trace_line(dir, sd_obj_name(ep).s,
		      m.type >= 1 && m.type < SD_ARRAY_SIZE(types) ?
		      types[m.type] : "UNKNOWN",
		      "conn=%s seq=%u bytes=%u pdata=%u%s%s",
		      conn_name(c), seq,
		      (unsigned)(SD_CM_MSG_SIZE + m.pdata_len),
		      (unsigned)m.pdata_len, extra, bad_key(bad).s);
}
