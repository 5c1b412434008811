/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl-seq: the words of the rows, shared by every output: a frame's
 * label, an RDMA placed by its initiator, the text of a note (api, dto,
 * state, event, error, and place when its target is not drawn), the name
 * of a lifeline. The pictures mark notes with UTF-8 signs; the text
 * output asks for plain ASCII.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "softdapl-seq.h"

/* Appends " key=value" for each of @keys that @it has (skipping @skip). */
static void add_keys(char *buf, size_t len, const struct item *it,
		     const char *const keys[], const char *skip_val)
{
	int i;

	for (i = 0; keys[i] != NULL; i++) {
		const char *v = find_kv(it, keys[i]);
		size_t n = strlen(buf);

		if (v == NULL || (skip_val && strcmp(v, skip_val) == 0))
			continue;
		snprintf(buf + n, len - n, " %s=%s", keys[i], v);
	}
}

/* The signs of the two outputs. */
struct signs {
	const char *seq;	/* before a frame's seq */
	const char *ret;	/* before a failed call's return code */
	const char *state;	/* between the old state and the new */
	const char *event;	/* before an event's name */
	const char *error;	/* before an error's message */
	const char *idle;	/* before a placed RDMA's "target CPU idle" */
};

static const struct signs utf8_signs = {
	" #", " \xe2\x86\x92 ", " \xe2\x87\x92 ", "\xe2\x9a\x91 ",
	"\xe2\x9a\xa0 ", " \xe2\x80\x94 ",
};
static const struct signs ascii_signs = {
	" seq=", " -> ", " => ", "event ", "error: ", ", ",
};

/*
 * A completion's status, short: "ok" for DAT_DTO_SUCCESS, the name without
 * DAT_DTO_ERR_ for the errors (FLUSHED, LOCAL_LENGTH ...).
 */
static const char *status_short(const char *status)
{
	static const char *const prefixes[] = { "DAT_DTO_ERR_", "DAT_DTO_",
						"DAT_" };
	size_t i;

	if (status == NULL)
		return "?";
	if (strcmp(status, "DAT_DTO_SUCCESS") == 0)
		return "ok";
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(status, prefixes[i], strlen(prefixes[i])) == 0 &&
		    status[strlen(prefixes[i])] != '\0')
			return status + strlen(prefixes[i]);
	return status;
}

/* The short name of a by= value (TRACE.md): "eng", "post", "wait" ... */
static const char *who_name(const char *by)
{
	if (strcmp(by, "engine") == 0)
		return "eng";
	if (strcmp(by, "initiator") == 0)
		return "init";
	if (strncmp(by, "dat_ep_post_", 12) == 0 ||
	    strncmp(by, "dat_ib_post_", 12) == 0 ||
	    strcmp(by, "dat_srq_post_recv") == 0)
		return "post";	/* a post, the IB extension's requests too */
	if (strcmp(by, "dat_evd_wait") == 0 ||
	    strcmp(by, "dat_evd_dequeue") == 0)
		return by + 8;	/* "wait", "dequeue" */
	return "cons";	/* "consumer", another call (its tooltip) */
}

/*
 * "[eng] ", "[wait] ", "[post] ": whose thread wrote @it (its by=,
 * TRACE.md), before its label; for a frame received, the sender's and
 * the receiver's, "[post>eng] "; "" for a trace without by=.
 */
static const char *who_tag(const struct item *it, char *buf, size_t len)
{
	const char *by = find_kv(it, "by"), *rx = NULL;

	if (by == NULL)
		return "";
	if (it->kind == K_TX && it->match >= 0)
		rx = find_kv(&items[it->match], "by");
	if (rx != NULL)
		snprintf(buf, len, "[%s>%s] ", who_name(by), who_name(rx));
	else
		snprintf(buf, len, "[%s] ", who_name(by));
	return buf;
}

/* The words of a frame's label: "READ_REQ #2 len=32 ..." (" seq=2" in
 * ASCII). */
void frame_label(const struct item *it, char *buf, size_t len, int ascii)
{
	static const char *const k_send[] = { "len", "ack", NULL };
	static const char *const k_inv[] = { "len", "rkey", "ack", NULL };
	static const char *const k_write[] = { "len", "rkey", "addr", "ack", NULL };
	static const char *const k_wimm[] = { "len", "rkey", "addr", "code",
					      "ack", NULL };
	static const char *const k_rreq[] = { "len", "rkey", "addr", "tag",
					      "ack", NULL };
	static const char *const k_rresp[] = { "len", "tag", "ack", NULL };
	static const char *const k_atomic[] = { "rkey", "addr", "tag", "ack",
						NULL };
	static const char *const k_ack[] = { "ack", NULL };
	static const char *const k_term[] = { "code", "tag", "ack", NULL };
	static const char *const k_hello[] = { "qual", "pdata", NULL };
	static const char *const k_rej[] = { "reason", "pdata", NULL };
	static const char *const k_pdata[] = { "pdata", NULL };
	static const char *const k_other[] = { "len", "rkey", "addr", "tag",
					       "code", "ack", NULL };
	const struct signs *sg = ascii ? &ascii_signs : &utf8_signs;
	const char *op = it->ev;
	const char *const *keys;

	static const char *const k_ud[] = { "bytes", "src_qpn", "dst_qpn",
					    NULL };

	char who[48];

	if (find_kv(it, "seq") != NULL)
		snprintf(buf, len, "%s%s%s%s", who_tag(it, who, sizeof(who)),
			 op, sg->seq, find_kv(it, "seq"));
	else
		snprintf(buf, len, "%s%s", who_tag(it, who, sizeof(who)), op);
	if (strcmp(op, "DATA") == 0) {
		add_keys(buf, len, it, k_ud, NULL);
		return;
	}
	if (strcmp(op, "SEND") == 0 || strcmp(op, "SEND_SE") == 0)
		keys = k_send;
	else if (strncmp(op, "SEND", 4) == 0)
		keys = k_inv;
	else if (strcmp(op, "WRITE") == 0)
		keys = k_write;
	else if (strncmp(op, "WRITE_IMM", 9) == 0)
		keys = k_wimm;
	else if (strcmp(op, "READ_REQ") == 0)
		keys = k_rreq;
	else if (strcmp(op, "READ_RESP") == 0 || strcmp(op, "ATOMIC_RESP") == 0)
		keys = k_rresp;
	else if (strcmp(op, "FETCH_ADD") == 0 || strcmp(op, "CMP_SWAP") == 0)
		keys = k_atomic;
	else if (strcmp(op, "ACK") == 0 || strcmp(op, "DISCONNECT") == 0)
		keys = k_ack;
	else if (strcmp(op, "TERMINATE") == 0)
		keys = k_term;
	else if (strcmp(op, "HELLO") == 0)
		keys = k_hello;
	else if (strcmp(op, "REJECT") == 0)
		keys = k_rej;
	else if (strcmp(op, "ACCEPT") == 0 || strcmp(op, "RTU") == 0)
		keys = k_pdata;
	else
		keys = k_other;
	/* SD_TAG_NONE (proto.h) names no request: not worth a word. */
	add_keys(buf, len, it, keys, "4294967295");
	if (strcmp(op, "HELLO") == 0 || strcmp(op, "ACCEPT") == 0 ||
	    strcmp(op, "REJECT") == 0 || strcmp(op, "RTU") == 0) {
		/* pdata=0 says nothing */
		char *p = strstr(buf, " pdata=0");

		if (p != NULL && p[8] == '\0')
			*p = '\0';
	}
}

/*
 * The words of an RDMA its initiator did itself in the target's memory,
 * for its arrow and its note alike: "RDMA_WRITE 4096 B placed by initiator
 * -- target CPU idle", a read's "read by initiator" (an em dash for "--"
 * in the pictures, a comma in ASCII); with a length of up to three digits
 * it fits inside an arrow between two text lifelines MAX_SPACING apart.
 * @brief leaves out who did it ("RDMA_WRITE 4096 B, target CPU idle"),
 * for a shorter arrow, whose style says it.
 */
void place_label(const struct item *it, char *buf, size_t len, int ascii,
		 int brief)
{
	const struct signs *sg = ascii ? &ascii_signs : &utf8_signs;
	const char *n = find_kv(it, "len");

	snprintf(buf, len, "%s %s B%s%starget CPU idle", it->ev, n ? n : "?",
		 brief ? "" : place_is_read(it) ? " read by initiator" :
		 " placed by initiator", sg->idle);
}

/*
 * The text of a note. A completion reads "RDMA_READ len=32 ..." after a
 * check mark, or "SEND DAT_DTO_ERR_FLUSHED ..." after a cross; in ASCII
 * "[ok] RDMA_READ len=32 ..." or "[FLUSHED] SEND ...".
 */
void note_text(const struct item *it, char *buf, size_t len, int ascii)
{
	static const char *const k_api[] = { "cookie", "len", "rkey",
		"raddr", "rlen", "lmr_context", "rmr_context", "addr", "port",
		"pdata", "flags", "close", "evd", "ep", "srq", "pz", NULL };
	static const char *const k_segs[] = { "segs", NULL };
	static const char *const k_dto[] = { "len", "cookie", NULL };
	const struct signs *sg = ascii ? &ascii_signs : &utf8_signs;
	const char *v;
	char num[32];
	size_t n;

	buf[0] = '\0';
	switch (it->kind) {
	case K_API:
		snprintf(buf, len, "%s", it->ev);
		if (strcmp(lanes[it->lane].name, it->obj) != 0 &&
		    strcmp(it->obj, "-") != 0) {
			n = strlen(buf);
			snprintf(buf + n, len - n, " %s", it->obj);
		}
		add_keys(buf, len, it, k_api, "DEFAULT");
		add_keys(buf, len, it, k_segs, "1");	/* the usual */
		v = find_kv(it, "ret");
		if (v != NULL && strcmp(v, "DAT_SUCCESS") != 0) {
			n = strlen(buf);
			snprintf(buf + n, len - n, "%s%s", sg->ret, v);
		}
		break;
	case K_DTO:
		v = find_kv(it, "status");
		if (ascii)
			snprintf(buf, len, "[%s] %s", status_short(v), it->ev);
		else
			snprintf(buf, len, "%s %s", v && strcmp(v,
				 "DAT_DTO_SUCCESS") == 0 ? "\xe2\x9c\x93" :
				 "\xe2\x9c\x97", it->ev);
		if (!ascii && v != NULL && strcmp(v, "DAT_DTO_SUCCESS") != 0) {
			n = strlen(buf);
			snprintf(buf + n, len - n, " %s", v);
		}
		add_keys(buf, len, it, k_dto, NULL);
		if ((v = find_kv(it, "evd")) != NULL && strcmp(v, "none") == 0) {
			n = strlen(buf);
			snprintf(buf + n, len - n, " (suppressed)");
		}
		if (obj_num(it->obj, "srq") >= 0) {
			n = strlen(buf);
			snprintf(buf + n, len - n, " from %s", it->obj);
		}
		break;
	case K_STATE:
		v = find_kv(it, "why");
		snprintf(buf, len, "%s%s%s%s%s%s", it->ev, sg->state,
			 find_kv(it, "to") ? find_kv(it, "to") : "?",
			 v ? " (" : "", v ? v : "", v ? ")" : "");
		break;
	case K_EVENT:
		v = it->ev;
		if (strncmp(v, "DAT_", 4) == 0)
			v += 4;
		snprintf(buf, len, "%s%s", sg->event, v);
		if ((v = find_kv(it, "cr")) != NULL) {
			n = strlen(buf);
			snprintf(buf + n, len - n, " %s", v);
		}
		break;
	case K_ERROR:
		v = find_kv(it, "msg");
		snprintf(buf, len, "%s%s", sg->error, v ? v : it->ev);
		break;
	case K_PLACE:
		place_label(it, buf, len, ascii, 0);
		break;
	case K_RNR:
		if (rnr_is_wait(it)) {
			v = find_kv(it, "srq");
			snprintf(buf, len, "RNR: no receive posted%s%s: stops "
				 "reading; TCP holds the sender",
				 v ? " in " : "", v ? v : "");
			break;
		}
		v = find_kv(it, "waited_us");
		snprintf(buf, len, "receive posted: reading again after %s",
			 v ? ms_label(strtoll(v, NULL, 10), num, sizeof(num)) :
			 "?");
		break;
	default:
		break;
	}
	/*
	 * An api line is its own call's, and a place line says "by
	 * initiator" itself: no tag says so again.
	 */
	v = find_kv(it, "by");
	if (v != NULL && it->kind != K_PLACE &&
	    !(it->kind == K_API && strncmp(v, "dat_", 4) == 0 &&
	      strcmp(v + 4, it->ev) == 0)) {
		char who[48], tmp[1200];

		snprintf(tmp, sizeof(tmp), "%s%s",
			 who_tag(it, who, sizeof(who)), buf);
		snprintf(buf, len, "%s", tmp);
	}
}

int rnr_is_wait(const struct item *it)
{
	return it->kind == K_RNR && strcmp(it->ev, "wait") == 0;
}

int rnr_shown(void)
{
	int i;

	for (i = 0; i < norder; i++)
		if (items[order[i]].shown && rnr_is_wait(&items[order[i]]))
			return 1;
	return 0;
}

/*
 * InfiniBand's RC transport: the responder answers RNR NAK, the
 * requester retries after the RNR timer, rnr_retry times (7: without
 * end), then completes with an RNR retry exceeded error and the QP goes
 * to the error state.
 */
const char *const rnr_contrast[] = {
	"InfiniBand: the receiver answers RNR NAK; the sender retries",
	"after the RNR timer, rnr_retry times (7 = forever), then fails",
	"the QP (RNR retry exceeded). softdapl instead stops reading the",
	"socket: TCP flow control holds the sender for as long as it",
	"takes (DAT has no RNR retry count).",
	NULL
};

/* "ep1 (pid 4711)", or "process 4711" for a process's own lane. */
const char *lane_label(const struct lane *l, char *buf, size_t len)
{
	if (l->kind == L_PROC)
		snprintf(buf, len, "process %ld", l->pid);
	else
		snprintf(buf, len, "%s (pid %ld)", l->name, l->pid);
	return buf;
}

const char *time_label(int64_t t, char *buf, size_t len)
{
	int64_t us = t - t_origin;

	/* t_origin is the least time read, so never negative; if it were: */
	if (us < 0)
		snprintf(buf, len, "-%lld.%03lld ms", (long long)(-us / 1000),
			 (long long)(-us % 1000));
	else
		snprintf(buf, len, "+%lld.%03lld ms", (long long)(us / 1000),
			 (long long)(us % 1000));
	return buf;
}

const char *ms_label(int64_t us, char *buf, size_t len)
{
	if (us >= 100000)
		snprintf(buf, len, "%lld ms", (long long)((us + 500) / 1000));
	else if (us >= 10000)
		snprintf(buf, len, "%.1f ms", (double)us / 1000);
	else if (us >= 1000)
		snprintf(buf, len, "%.2f ms", (double)us / 1000);
	else
		snprintf(buf, len, "%.3f ms", (double)us / 1000);
	return buf;
}

const char *fold_label(int64_t us, char *buf, size_t len)
{
	char ms[32];

	snprintf(buf, len, "%s pass", ms_label(us, ms, sizeof(ms)));
	return buf;
}
