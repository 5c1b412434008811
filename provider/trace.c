/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl's trace (provider/TRACE.md): where lines go, how one is built
 * and written, object and value names, and the `api` lines of the calls
 * that go through the provider table.
 *
 * SOFTDAPL_TRACE is read once, by the constructor below, before any
 * consumer can call the provider: it opens the file and, when tracing,
 * points the slots of the provider table (sd_provider, and the UD table
 * once ud.c builds it) at wrappers that call the real entry point and
 * then write its `api` line. With tracing off the table is left alone, so
 * the calls cost nothing more. The request posts are the exception: they
 * write their line themselves (post.c), before the frame they make goes
 * out, so that a trace reads post, then frame, then completion.
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

#include "softdapl.h"
#include "entry.h"
#include "proto.h"

/* Read once, when the library is loaded; never written afterwards. */
int sd_trace_on;
static int trace_fd = -1;

/* A line's room: TRACE.md promises at most 1 KiB. */
#define TRACE_LINE_MAX	1024

static void wrap_rc(void);

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

__attribute__((constructor)) static void sd_trace_init(void)
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
	wrap_rc();
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

void sd_trace_line(const char *kind, const char *obj, const char *event,
		   const char *fmt, ...)
{
	char buf[TRACE_LINE_MAX];
	struct timespec t;
	unsigned long day;
	va_list ap;
	int n, k;

	clock_gettime(CLOCK_REALTIME, &t);
	day = (unsigned long)(t.tv_sec % 86400);
	n = snprintf(buf, sizeof(buf), "%02lu:%02lu:%02lu.%06lu %ld %s %s %s",
		     day / 3600, day / 60 % 60, day % 60,
		     (unsigned long)t.tv_nsec / 1000, (long)getpid(), kind,
		     obj != NULL && obj[0] != '\0' ? obj : "-", event);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	if (fmt[0] != '\0') {
		buf[n++] = ' ';
		va_start(ap, fmt);
		k = vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
		va_end(ap);
		if (k > 0)
			n += k;
		if (n > (int)sizeof(buf) - 2)
			n = (int)sizeof(buf) - 2;
		/* Nothing was added after all: no trailing space. */
		if (k <= 0)
			n--;
	}
	buf[n++] = '\n';
	if (write(trace_fd, buf, (size_t)n) < 0)
		return;		/* nowhere to say so */
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
static void addr_str(const struct sockaddr *sa, char *buf, size_t n)
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

const char *sd_trace_conn_name(struct sd_trace_conn *c, int fd)
{
	struct sockaddr_storage l, r;
	socklen_t ll = sizeof(l), rl = sizeof(r);
	char ls[59], rs[59];

	if (c->name[0] != '\0')
		return c->name;
	if (fd < 0 || getsockname(fd, (struct sockaddr *)&l, &ll) < 0)
		l.ss_family = AF_UNSPEC;
	if (fd < 0 || getpeername(fd, (struct sockaddr *)&r, &rl) < 0)
		r.ss_family = AF_UNSPEC;
	addr_str((struct sockaddr *)&l, ls, sizeof(ls));
	addr_str((struct sockaddr *)&r, rs, sizeof(rs));
	snprintf(c->name, sizeof(c->name), "%s>%s", ls, rs);
	return c->name;
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
	addr_str((struct sockaddr *)&l, ls, sizeof(ls));
	addr_str((struct sockaddr *)&r, rs, sizeof(rs));
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
		    struct sd_trace_conn *c, int fd, const uint8_t *hdr,
		    const char *bad)
{
	struct sd_hdr h;
	uint32_t seq = dir[0] == 't' ? c->tx_seq++ : c->rx_seq++;
	uint64_t bytes;

	sd_hdr_unpack(&h, hdr);
	bytes = SD_HDR_SIZE + (h.op >= 1 && h.op <= SD_OP_MAX &&
			       sd_op_has_payload(h.op) ? h.len : 0);
	sd_trace_line(dir, sd_obj_name(ep).s,
		      h.op >= 1 && h.op <= SD_OP_MAX ? op_names[h.op] : "UNKNOWN",
		      "conn=%s seq=%u bytes=%llu len=%u ack=%u rkey=0x%x addr=0x%llx tag=%u code=%u%s",
		      sd_trace_conn_name(c, fd), seq, (unsigned long long)bytes,
		      h.len, h.ack, h.rkey, (unsigned long long)h.addr, h.tag,
		      h.code, bad_key(bad).s);
}

void sd_trace_cm(const char *dir, const struct sd_obj *ep,
		 const struct sd_obj *sp, struct sd_trace_conn *c, int fd,
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
		      sd_trace_conn_name(c, fd), seq,
		      (unsigned)(SD_CM_MSG_SIZE + m.pdata_len),
		      (unsigned)m.pdata_len, extra, bad_key(bad).s);
}

/* ------------------------------------------------------------------ */
/* api lines of the table's calls                                      */

#define NAME(h)		(sd_handle_name((DAT_HANDLE)(h)).s)
#define OUT_NAME(r, p)	((r) == DAT_SUCCESS && (p) != NULL ? NAME(*(p)) : "-")
#define RET(r)		sd_trace_ret_name(r)

/* Bytes of @n segments; 0 unless the call succeeded (else @iov may lie). */
static uint64_t iov_len(DAT_RETURN r, DAT_COUNT n, const DAT_LMR_TRIPLET *iov)
{
	uint64_t len = 0;
	DAT_COUNT i;

	if (r != DAT_SUCCESS || iov == NULL)
		return 0;
	for (i = 0; i < n; i++)
		len += iov[i].segment_length;
	return len;
}

/* The address of a connect, as "ADDR" (no port: that is the qualifier). */
static struct sd_name addr_name(DAT_IA_ADDRESS_PTR a)
{
	struct sd_name n;
	char buf[96], *colon;

	if (a == NULL) {
		snprintf(n.s, sizeof(n.s), "-");
		return n;
	}
	addr_str((const struct sockaddr *)a, buf, sizeof(buf));
	colon = strrchr(buf, ':');
	if (colon != NULL)
		*colon = '\0';
	if (strlen(buf) >= sizeof(n.s))
		snprintf(n.s, sizeof(n.s), "?");
	else
		snprintf(n.s, sizeof(n.s), "%s", buf);
	return n;
}

/* The real entry points of the RC table and of the UD table. */
struct real {
	DAT_IA_OPEN_FUNC		ia_open;
	DAT_IA_CLOSE_FUNC		ia_close;
	DAT_PZ_CREATE_FUNC		pz_create;
	DAT_PZ_FREE_FUNC		pz_free;
	DAT_LMR_CREATE_FUNC		lmr_create;
	DAT_LMR_FREE_FUNC		lmr_free;
	DAT_RMR_CREATE_FUNC		rmr_create;
	DAT_RMR_CREATE_FOR_EP_FUNC	rmr_create_for_ep;
	DAT_RMR_BIND_FUNC		rmr_bind;
	DAT_RMR_FREE_FUNC		rmr_free;
	DAT_EVD_CREATE_FUNC		evd_create;
	DAT_EVD_FREE_FUNC		evd_free;
	DAT_CNO_CREATE_FUNC		cno_create;
	DAT_CNO_FREE_FUNC		cno_free;
	DAT_EP_CREATE_FUNC		ep_create;
	DAT_EP_CREATE_WITH_SRQ_FUNC	ep_create_with_srq;
	DAT_EP_FREE_FUNC		ep_free;
	DAT_EP_CONNECT_FUNC		ep_connect;
	DAT_EP_DUP_CONNECT_FUNC		ep_dup_connect;
	DAT_EP_COMMON_CONNECT_FUNC	ep_common_connect;
	DAT_EP_DISCONNECT_FUNC		ep_disconnect;
	DAT_EP_RESET_FUNC		ep_reset;
	DAT_EP_POST_RECV_FUNC		ep_post_recv;
	DAT_EP_POST_SEND_FUNC		ep_post_send;
	DAT_PSP_CREATE_FUNC		psp_create;
	DAT_PSP_CREATE_ANY_FUNC		psp_create_any;
	DAT_PSP_FREE_FUNC		psp_free;
	DAT_RSP_CREATE_FUNC		rsp_create;
	DAT_RSP_FREE_FUNC		rsp_free;
	DAT_CSP_CREATE_FUNC		csp_create;
	DAT_CSP_FREE_FUNC		csp_free;
	DAT_CR_ACCEPT_FUNC		cr_accept;
	DAT_CR_REJECT_FUNC		cr_reject;
	DAT_CR_HANDOFF_FUNC		cr_handoff;
	DAT_SRQ_CREATE_FUNC		srq_create;
	DAT_SRQ_FREE_FUNC		srq_free;
	DAT_SRQ_POST_RECV_FUNC		srq_post_recv;
};

/* Written by the constructor (rc) and once by ud.c's pthread_once (ud). */
static struct real rc, ud;

static DAT_RETURN DAT_API tr_ia_open(const DAT_NAME_PTR name, DAT_COUNT qlen,
				     DAT_EVD_HANDLE *evd, DAT_IA_HANDLE *ia)
{
	DAT_RETURN r = rc.ia_open(name, qlen, evd, ia);

	sd_trace("api", OUT_NAME(r, ia), "ia_open", "ret=%s evd=%s", RET(r),
		 OUT_NAME(r, evd));
	return r;
}

static DAT_RETURN DAT_API tr_ia_close(DAT_IA_HANDLE ia, DAT_CLOSE_FLAGS f)
{
	struct sd_name n = sd_handle_name(ia);
	DAT_RETURN r = rc.ia_close(ia, f);

	sd_trace("api", n.s, "ia_close", "ret=%s close=%s", RET(r),
		 f == DAT_CLOSE_ABRUPT_FLAG ? "ABRUPT" : "GRACEFUL");
	return r;
}

static DAT_RETURN DAT_API tr_pz_create(DAT_IA_HANDLE ia, DAT_PZ_HANDLE *pz)
{
	DAT_RETURN r = rc.pz_create(ia, pz);

	sd_trace("api", OUT_NAME(r, pz), "pz_create", "ret=%s ia=%s", RET(r),
		 NAME(ia));
	return r;
}

/* The free calls: the name is taken before the object goes. */
#define TR_FREE(fn, T)							\
static DAT_RETURN DAT_API tr_##fn(T h)					\
{									\
	struct sd_name n = sd_handle_name(h);				\
	DAT_RETURN r = rc.fn(h);					\
									\
	sd_trace("api", n.s, #fn, "ret=%s", RET(r));			\
	return r;							\
}

TR_FREE(pz_free, DAT_PZ_HANDLE)
TR_FREE(lmr_free, DAT_LMR_HANDLE)
TR_FREE(rmr_free, DAT_RMR_HANDLE)
TR_FREE(evd_free, DAT_EVD_HANDLE)
TR_FREE(cno_free, DAT_CNO_HANDLE)
TR_FREE(ep_free, DAT_EP_HANDLE)
TR_FREE(ep_reset, DAT_EP_HANDLE)
TR_FREE(psp_free, DAT_PSP_HANDLE)
TR_FREE(rsp_free, DAT_RSP_HANDLE)
TR_FREE(csp_free, DAT_CSP_HANDLE)
TR_FREE(srq_free, DAT_SRQ_HANDLE)

/* A name for each bit of @v set, "|"-joined, into @buf; @none for 0. */
struct bit_name {
	unsigned	bit;
	const char	*name;
};

static const char *bit_names(const struct bit_name *t, size_t n, unsigned v,
			     const char *none, char *buf, size_t len)
{
	size_t i, o = 0;

	buf[0] = '\0';
	for (i = 0; i < n && o < len; i++)
		if (v & t[i].bit) {
			o += (size_t)snprintf(buf + o, len - o, "%s%s",
					      o > 0 ? "|" : "", t[i].name);
			v &= ~t[i].bit;
		}
	if (o == 0)
		snprintf(buf, len, "%s", none);
	else if (v != 0 && o < len)	/* bits no table names */
		snprintf(buf + o, len - o, "|0x%x", v);
	return buf;
}

/* Memory privileges as TRACE.md writes them ("LOCAL_READ|REMOTE_WRITE"). */
static const char *priv_names(DAT_MEM_PRIV_FLAGS priv, char *buf, size_t len)
{
	static const struct bit_name t[] = {
		{ DAT_MEM_PRIV_LOCAL_READ_FLAG, "LOCAL_READ" },
		{ DAT_MEM_PRIV_LOCAL_WRITE_FLAG, "LOCAL_WRITE" },
		{ DAT_MEM_PRIV_REMOTE_READ_FLAG, "REMOTE_READ" },
		{ DAT_MEM_PRIV_REMOTE_WRITE_FLAG, "REMOTE_WRITE" },
		{ DAT_MEM_PRIV_EXTENSION_BASE, "REMOTE_ATOMIC" },
	};

	return bit_names(t, SD_ARRAY_SIZE(t), (unsigned)priv, "NONE", buf, len);
}

/* EVD stream flags as TRACE.md writes them ("DTO|CONNECTION"). */
static const char *evd_flag_names(DAT_EVD_FLAGS f, char *buf, size_t len)
{
	static const struct bit_name t[] = {
		{ DAT_EVD_SOFTWARE_FLAG, "SOFTWARE" },
		{ DAT_EVD_CR_FLAG, "CR" },
		{ DAT_EVD_DTO_FLAG, "DTO" },
		{ DAT_EVD_CONNECTION_FLAG, "CONNECTION" },
		{ DAT_EVD_RMR_BIND_FLAG, "RMR_BIND" },
		{ DAT_EVD_ASYNC_FLAG, "ASYNC" },
	};

	return bit_names(t, SD_ARRAY_SIZE(t), (unsigned)f, "NONE", buf, len);
}

static DAT_RETURN DAT_API tr_lmr_create(DAT_IA_HANDLE ia, DAT_MEM_TYPE type,
					DAT_REGION_DESCRIPTION region,
					DAT_VLEN len, DAT_PZ_HANDLE pz,
					DAT_MEM_PRIV_FLAGS priv,
					DAT_VA_TYPE va, DAT_LMR_HANDLE *lmr,
					DAT_LMR_CONTEXT *lctx,
					DAT_RMR_CONTEXT *rctx,
					DAT_VLEN *rlen, DAT_VADDR *raddr)
{
	DAT_RETURN r = rc.lmr_create(ia, type, region, len, pz, priv, va, lmr,
				     lctx, rctx, rlen, raddr);
	char pn[96];

	sd_trace("api", OUT_NAME(r, lmr), "lmr_create",
		 "ret=%s pz=%s len=%llu lmr_context=0x%x rmr_context=0x%x priv=%s",
		 RET(r), NAME(pz), (unsigned long long)len,
		 r == DAT_SUCCESS && lctx != NULL ? (unsigned)*lctx : 0,
		 r == DAT_SUCCESS && rctx != NULL ? (unsigned)*rctx : 0,
		 priv_names(priv, pn, sizeof(pn)));
	return r;
}

static DAT_RETURN DAT_API tr_rmr_create(DAT_PZ_HANDLE pz, DAT_RMR_HANDLE *rmr)
{
	DAT_RETURN r = rc.rmr_create(pz, rmr);

	sd_trace("api", OUT_NAME(r, rmr), "rmr_create", "ret=%s pz=%s", RET(r),
		 NAME(pz));
	return r;
}

static DAT_RETURN DAT_API tr_rmr_create_for_ep(DAT_PZ_HANDLE pz,
					       DAT_RMR_HANDLE *rmr)
{
	DAT_RETURN r = rc.rmr_create_for_ep(pz, rmr);

	sd_trace("api", OUT_NAME(r, rmr), "rmr_create_for_ep", "ret=%s pz=%s",
		 RET(r), NAME(pz));
	return r;
}

static DAT_RETURN DAT_API tr_rmr_bind(DAT_RMR_HANDLE rmr, DAT_LMR_HANDLE lmr,
				      const DAT_LMR_TRIPLET *t,
				      DAT_MEM_PRIV_FLAGS priv, DAT_VA_TYPE va,
				      DAT_EP_HANDLE ep, DAT_RMR_COOKIE cookie,
				      DAT_COMPLETION_FLAGS f,
				      DAT_RMR_CONTEXT *ctx)
{
	DAT_RETURN r = rc.rmr_bind(rmr, lmr, t, priv, va, ep, cookie, f, ctx);
	char pn[96];

	sd_trace("api", NAME(rmr), "rmr_bind",
		 "ret=%s ep=%s lmr=%s cookie=0x%llx len=%llu flags=%s rmr_context=0x%x priv=%s",
		 RET(r), NAME(ep), NAME(lmr), (unsigned long long)cookie.as_64,
		 r == DAT_SUCCESS && t != NULL ?
		 (unsigned long long)t->segment_length : 0ull,
		 sd_trace_flags(f).s,
		 r == DAT_SUCCESS && ctx != NULL ? (unsigned)*ctx : 0,
		 priv_names(priv, pn, sizeof(pn)));
	return r;
}

static DAT_RETURN DAT_API tr_evd_create(DAT_IA_HANDLE ia, DAT_COUNT qlen,
					DAT_CNO_HANDLE cno, DAT_EVD_FLAGS f,
					DAT_EVD_HANDLE *evd)
{
	DAT_RETURN r = rc.evd_create(ia, qlen, cno, f, evd);
	char fn[96];

	sd_trace("api", OUT_NAME(r, evd), "evd_create",
		 "ret=%s qlen=%d flags=%s cno=%s", RET(r), (int)qlen,
		 evd_flag_names(f, fn, sizeof(fn)), NAME(cno));
	return r;
}

static DAT_RETURN DAT_API tr_cno_create(DAT_IA_HANDLE ia,
					DAT_OS_WAIT_PROXY_AGENT agent,
					DAT_CNO_HANDLE *cno)
{
	DAT_RETURN r = rc.cno_create(ia, agent, cno);

	sd_trace("api", OUT_NAME(r, cno), "cno_create", "ret=%s", RET(r));
	return r;
}

static DAT_RETURN DAT_API tr_ep_create(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz,
				       DAT_EVD_HANDLE recv, DAT_EVD_HANDLE req,
				       DAT_EVD_HANDLE conn,
				       const DAT_EP_ATTR *attr,
				       DAT_EP_HANDLE *ep)
{
	DAT_RETURN r = rc.ep_create(ia, pz, recv, req, conn, attr, ep);

	sd_trace("api", OUT_NAME(r, ep), "ep_create",
		 "ret=%s pz=%s evd=%s recv_evd=%s conn_evd=%s", RET(r),
		 NAME(pz), NAME(req), NAME(recv), NAME(conn));
	return r;
}

static DAT_RETURN DAT_API tr_ep_create_with_srq(DAT_IA_HANDLE ia,
						DAT_PZ_HANDLE pz,
						DAT_EVD_HANDLE recv,
						DAT_EVD_HANDLE req,
						DAT_EVD_HANDLE conn,
						DAT_SRQ_HANDLE srq,
						const DAT_EP_ATTR *attr,
						DAT_EP_HANDLE *ep)
{
	DAT_RETURN r = rc.ep_create_with_srq(ia, pz, recv, req, conn, srq,
					     attr, ep);

	sd_trace("api", OUT_NAME(r, ep), "ep_create_with_srq",
		 "ret=%s pz=%s srq=%s evd=%s recv_evd=%s conn_evd=%s", RET(r),
		 NAME(pz), NAME(srq), NAME(req), NAME(recv), NAME(conn));
	return r;
}

static DAT_RETURN DAT_API tr_ep_connect(DAT_EP_HANDLE ep, DAT_IA_ADDRESS_PTR a,
					DAT_CONN_QUAL q, DAT_TIMEOUT t,
					DAT_COUNT plen, const DAT_PVOID pdata,
					DAT_QOS qos, DAT_CONNECT_FLAGS f)
{
	DAT_RETURN r = rc.ep_connect(ep, a, q, t, plen, pdata, qos, f);

	sd_trace("api", NAME(ep), "ep_connect",
		 "ret=%s addr=%s port=%llu pdata=%d", RET(r), addr_name(a).s,
		 (unsigned long long)q, (int)plen);
	return r;
}

static DAT_RETURN DAT_API tr_ep_dup_connect(DAT_EP_HANDLE ep, DAT_EP_HANDLE dup,
					    DAT_TIMEOUT t, DAT_COUNT plen,
					    const DAT_PVOID pdata, DAT_QOS qos)
{
	DAT_RETURN r = rc.ep_dup_connect(ep, dup, t, plen, pdata, qos);

	sd_trace("api", NAME(ep), "ep_dup_connect", "ret=%s ep=%s pdata=%d",
		 RET(r), NAME(dup), (int)plen);
	return r;
}

static DAT_RETURN DAT_API tr_ep_common_connect(DAT_EP_HANDLE ep,
					       DAT_IA_ADDRESS_PTR a,
					       DAT_TIMEOUT t, DAT_COUNT plen,
					       const DAT_PVOID pdata)
{
	DAT_RETURN r = rc.ep_common_connect(ep, a, t, plen, pdata);

	sd_trace("api", NAME(ep), "ep_common_connect",
		 "ret=%s addr=%s pdata=%d", RET(r), addr_name(a).s, (int)plen);
	return r;
}

static DAT_RETURN DAT_API tr_ep_disconnect(DAT_EP_HANDLE ep, DAT_CLOSE_FLAGS f)
{
	DAT_RETURN r = rc.ep_disconnect(ep, f);

	sd_trace("api", NAME(ep), "ep_disconnect", "ret=%s close=%s", RET(r),
		 f == DAT_CLOSE_ABRUPT_FLAG ? "ABRUPT" : "GRACEFUL");
	return r;
}

/*
 * A receive's line comes after the call: a receive posted to a
 * DISCONNECTED EP is flushed inside it, so its dto line comes first.
 */
static DAT_RETURN DAT_API tr_ep_post_recv(DAT_EP_HANDLE ep, DAT_COUNT n,
					  DAT_LMR_TRIPLET *iov,
					  DAT_DTO_COOKIE cookie,
					  DAT_COMPLETION_FLAGS f)
{
	DAT_RETURN r = rc.ep_post_recv(ep, n, iov, cookie, f);

	sd_trace("api", NAME(ep), "ep_post_recv",
		 "ret=%s cookie=0x%llx len=%llu segs=%d flags=%s", RET(r),
		 (unsigned long long)cookie.as_64,
		 (unsigned long long)iov_len(r, n, iov), (int)n,
		 sd_trace_flags(f).s);
	return r;
}

static DAT_RETURN DAT_API tr_psp_create(DAT_IA_HANDLE ia, DAT_CONN_QUAL q,
					DAT_EVD_HANDLE evd, DAT_PSP_FLAGS f,
					DAT_PSP_HANDLE *psp)
{
	DAT_RETURN r = rc.psp_create(ia, q, evd, f, psp);

	sd_trace("api", OUT_NAME(r, psp), "psp_create",
		 "ret=%s port=%llu evd=%s", RET(r), (unsigned long long)q,
		 NAME(evd));
	return r;
}

static DAT_RETURN DAT_API tr_psp_create_any(DAT_IA_HANDLE ia, DAT_CONN_QUAL *q,
					    DAT_EVD_HANDLE evd, DAT_PSP_FLAGS f,
					    DAT_PSP_HANDLE *psp)
{
	DAT_RETURN r = rc.psp_create_any(ia, q, evd, f, psp);

	sd_trace("api", OUT_NAME(r, psp), "psp_create_any",
		 "ret=%s port=%llu evd=%s", RET(r),
		 r == DAT_SUCCESS && q != NULL ? (unsigned long long)*q : 0ull,
		 NAME(evd));
	return r;
}

static DAT_RETURN DAT_API tr_rsp_create(DAT_IA_HANDLE ia, DAT_CONN_QUAL q,
					DAT_EP_HANDLE ep, DAT_EVD_HANDLE evd,
					DAT_RSP_HANDLE *rsp)
{
	DAT_RETURN r = rc.rsp_create(ia, q, ep, evd, rsp);

	sd_trace("api", OUT_NAME(r, rsp), "rsp_create",
		 "ret=%s port=%llu ep=%s evd=%s", RET(r),
		 (unsigned long long)q, NAME(ep), NAME(evd));
	return r;
}

static DAT_RETURN DAT_API tr_csp_create(DAT_IA_HANDLE ia, DAT_COMM *comm,
					DAT_IA_ADDRESS_PTR a,
					DAT_EVD_HANDLE evd, DAT_CSP_HANDLE *csp)
{
	DAT_RETURN r = rc.csp_create(ia, comm, a, evd, csp);

	sd_trace("api", OUT_NAME(r, csp), "csp_create", "ret=%s addr=%s evd=%s",
		 RET(r), addr_name(a).s, NAME(evd));
	return r;
}

static DAT_RETURN DAT_API tr_cr_accept(DAT_CR_HANDLE cr, DAT_EP_HANDLE ep,
				       DAT_COUNT plen, const DAT_PVOID pdata)
{
	struct sd_name n = sd_handle_name(cr);
	DAT_RETURN r = rc.cr_accept(cr, ep, plen, pdata);

	sd_trace("api", n.s, "cr_accept", "ret=%s ep=%s pdata=%d", RET(r),
		 NAME(ep), (int)plen);
	return r;
}

static DAT_RETURN DAT_API tr_cr_reject(DAT_CR_HANDLE cr, DAT_COUNT plen,
				       const DAT_PVOID pdata)
{
	struct sd_name n = sd_handle_name(cr);
	DAT_RETURN r = rc.cr_reject(cr, plen, pdata);

	sd_trace("api", n.s, "cr_reject", "ret=%s pdata=%d", RET(r), (int)plen);
	return r;
}

static DAT_RETURN DAT_API tr_cr_handoff(DAT_CR_HANDLE cr, DAT_CONN_QUAL q)
{
	struct sd_name n = sd_handle_name(cr);
	DAT_RETURN r = rc.cr_handoff(cr, q);

	sd_trace("api", n.s, "cr_handoff", "ret=%s port=%llu", RET(r),
		 (unsigned long long)q);
	return r;
}

static DAT_RETURN DAT_API tr_srq_create(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz,
					DAT_SRQ_ATTR *attr, DAT_SRQ_HANDLE *srq)
{
	DAT_RETURN r = rc.srq_create(ia, pz, attr, srq);

	sd_trace("api", OUT_NAME(r, srq), "srq_create", "ret=%s pz=%s", RET(r),
		 NAME(pz));
	return r;
}

static DAT_RETURN DAT_API tr_srq_post_recv(DAT_SRQ_HANDLE srq, DAT_COUNT n,
					   DAT_LMR_TRIPLET *iov,
					   DAT_DTO_COOKIE cookie)
{
	DAT_RETURN r = rc.srq_post_recv(srq, n, iov, cookie);

	sd_trace("api", NAME(srq), "srq_post_recv",
		 "ret=%s cookie=0x%llx len=%llu segs=%d", RET(r),
		 (unsigned long long)cookie.as_64,
		 (unsigned long long)iov_len(r, n, iov), (int)n);
	return r;
}

/* The UD table's own EP and CR calls (ext.h), with ud's real functions. */
static DAT_RETURN DAT_API tr_ud_ep_free(DAT_EP_HANDLE ep)
{
	struct sd_name n = sd_handle_name(ep);
	DAT_RETURN r = ud.ep_free(ep);

	sd_trace("api", n.s, "ep_free", "ret=%s", RET(r));
	return r;
}

static DAT_RETURN DAT_API tr_ud_ep_reset(DAT_EP_HANDLE ep)
{
	DAT_RETURN r = ud.ep_reset(ep);

	sd_trace("api", NAME(ep), "ep_reset", "ret=%s", RET(r));
	return r;
}

static DAT_RETURN DAT_API tr_ud_ep_connect(DAT_EP_HANDLE ep,
					   DAT_IA_ADDRESS_PTR a,
					   DAT_CONN_QUAL q, DAT_TIMEOUT t,
					   DAT_COUNT plen, const DAT_PVOID pdata,
					   DAT_QOS qos, DAT_CONNECT_FLAGS f)
{
	DAT_RETURN r = ud.ep_connect(ep, a, q, t, plen, pdata, qos, f);

	sd_trace("api", NAME(ep), "ep_connect",
		 "ret=%s addr=%s port=%llu pdata=%d", RET(r), addr_name(a).s,
		 (unsigned long long)q, (int)plen);
	return r;
}

static DAT_RETURN DAT_API tr_ud_ep_disconnect(DAT_EP_HANDLE ep,
					      DAT_CLOSE_FLAGS f)
{
	DAT_RETURN r = ud.ep_disconnect(ep, f);

	sd_trace("api", NAME(ep), "ep_disconnect", "ret=%s close=%s", RET(r),
		 f == DAT_CLOSE_ABRUPT_FLAG ? "ABRUPT" : "GRACEFUL");
	return r;
}

static DAT_RETURN DAT_API tr_ud_ep_post_recv(DAT_EP_HANDLE ep, DAT_COUNT n,
					     DAT_LMR_TRIPLET *iov,
					     DAT_DTO_COOKIE cookie,
					     DAT_COMPLETION_FLAGS f)
{
	DAT_RETURN r = ud.ep_post_recv(ep, n, iov, cookie, f);

	sd_trace("api", NAME(ep), "ep_post_recv",
		 "ret=%s cookie=0x%llx len=%llu segs=%d flags=%s", RET(r),
		 (unsigned long long)cookie.as_64,
		 (unsigned long long)iov_len(r, n, iov), (int)n,
		 sd_trace_flags(f).s);
	return r;
}

static DAT_RETURN DAT_API tr_ud_ep_post_send(DAT_EP_HANDLE ep, DAT_COUNT n,
					     DAT_LMR_TRIPLET *iov,
					     DAT_DTO_COOKIE cookie,
					     DAT_COMPLETION_FLAGS f)
{
	DAT_RETURN r = ud.ep_post_send(ep, n, iov, cookie, f);

	sd_trace("api", NAME(ep), "ep_post_send",
		 "ret=%s cookie=0x%llx len=%llu segs=%d flags=%s", RET(r),
		 (unsigned long long)cookie.as_64,
		 (unsigned long long)iov_len(r, n, iov), (int)n,
		 sd_trace_flags(f).s);
	return r;
}

static DAT_RETURN DAT_API tr_ud_cr_accept(DAT_CR_HANDLE cr, DAT_EP_HANDLE ep,
					  DAT_COUNT plen, const DAT_PVOID pdata)
{
	struct sd_name n = sd_handle_name(cr);
	DAT_RETURN r = ud.cr_accept(cr, ep, plen, pdata);

	sd_trace("api", n.s, "cr_accept", "ret=%s ep=%s pdata=%d", RET(r),
		 NAME(ep), (int)plen);
	return r;
}

static DAT_RETURN DAT_API tr_ud_cr_reject(DAT_CR_HANDLE cr, DAT_COUNT plen,
					  const DAT_PVOID pdata)
{
	struct sd_name n = sd_handle_name(cr);
	DAT_RETURN r = ud.cr_reject(cr, plen, pdata);

	sd_trace("api", n.s, "cr_reject", "ret=%s pdata=%d", RET(r), (int)plen);
	return r;
}

/* Points @slot of @p at tr_@fn, keeping the real one in @r. */
#define WRAP(r, p, slot, fn)						\
	do {								\
		(r)->slot = (p)->slot##_func;				\
		(p)->slot##_func = tr_##fn;				\
	} while (0)

/*
 * Weak: the test runner links obj.c and this file without provider.c
 * (Makefile, TEST_LINK_OBJS); there is no table to wrap there.
 */
extern DAT_PROVIDER sd_provider __attribute__((weak));

static void wrap_rc(void)
{
	DAT_PROVIDER *p = &sd_provider;

	if (p == NULL)
		return;

	WRAP(&rc, p, ia_open, ia_open);
	WRAP(&rc, p, ia_close, ia_close);
	WRAP(&rc, p, pz_create, pz_create);
	WRAP(&rc, p, pz_free, pz_free);
	WRAP(&rc, p, lmr_create, lmr_create);
	WRAP(&rc, p, lmr_free, lmr_free);
	WRAP(&rc, p, rmr_create, rmr_create);
	WRAP(&rc, p, rmr_create_for_ep, rmr_create_for_ep);
	WRAP(&rc, p, rmr_bind, rmr_bind);
	WRAP(&rc, p, rmr_free, rmr_free);
	WRAP(&rc, p, evd_create, evd_create);
	WRAP(&rc, p, evd_free, evd_free);
	WRAP(&rc, p, cno_create, cno_create);
	WRAP(&rc, p, cno_free, cno_free);
	WRAP(&rc, p, ep_create, ep_create);
	WRAP(&rc, p, ep_create_with_srq, ep_create_with_srq);
	WRAP(&rc, p, ep_free, ep_free);
	WRAP(&rc, p, ep_connect, ep_connect);
	WRAP(&rc, p, ep_dup_connect, ep_dup_connect);
	WRAP(&rc, p, ep_common_connect, ep_common_connect);
	WRAP(&rc, p, ep_disconnect, ep_disconnect);
	WRAP(&rc, p, ep_reset, ep_reset);
	WRAP(&rc, p, ep_post_recv, ep_post_recv);
	WRAP(&rc, p, psp_create, psp_create);
	WRAP(&rc, p, psp_create_any, psp_create_any);
	WRAP(&rc, p, psp_free, psp_free);
	WRAP(&rc, p, rsp_create, rsp_create);
	WRAP(&rc, p, rsp_free, rsp_free);
	WRAP(&rc, p, csp_create, csp_create);
	WRAP(&rc, p, csp_free, csp_free);
	WRAP(&rc, p, cr_accept, cr_accept);
	WRAP(&rc, p, cr_reject, cr_reject);
	WRAP(&rc, p, cr_handoff, cr_handoff);
	WRAP(&rc, p, srq_create, srq_create);
	WRAP(&rc, p, srq_free, srq_free);
	WRAP(&rc, p, srq_post_recv, srq_post_recv);
}

void sd_trace_wrap_ud(DAT_PROVIDER *p)
{
	if (!sd_trace_enabled())
		return;
	WRAP(&ud, p, ep_free, ud_ep_free);
	WRAP(&ud, p, ep_reset, ud_ep_reset);
	WRAP(&ud, p, ep_connect, ud_ep_connect);
	WRAP(&ud, p, ep_disconnect, ud_ep_disconnect);
	WRAP(&ud, p, ep_post_recv, ud_ep_post_recv);
	WRAP(&ud, p, ep_post_send, ud_ep_post_send);
	WRAP(&ud, p, cr_accept, ud_cr_accept);
	WRAP(&ud, p, cr_reject, ud_cr_reject);
}
