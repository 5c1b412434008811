/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl-seq: the layout every output shares. Items go on lanes (one
 * lifeline per EP, service point and SRQ, one per process for the rest),
 * each rx is paired with its tx and each RDMA placed by its initiator with
 * the target's lane, the rows are ordered (each file's order, but a call
 * above what it caused; an rx never before its tx), the options' filters
 * mark what is shown, the waits between shown rows are measured (the
 * long ones to be folded), and the shown lanes are put in order from
 * left to right.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "softdapl-seq.h"

/* (pid, conn) -> lane of an EP or of a service point. */
struct connmap {
	long pid;
	const char *conn;
	int lane;
	int is_ep;
};

/* (pid, cr name) -> the service point lane its request came to. */
struct crmap {
	long pid;
	const char *cr;
	int lane;
};

struct lane *lanes;
int nlanes;
static int alanes;
struct proc *procs;
int nprocs;
static struct connmap *conns;
static int nconns, aconns;
static struct crmap *crs;
static int ncrs, acrs;
int *order;
int norder;
int *lane_order;
int nshown_lanes;

/* ------------------------------------------------------------------------
 * Lanes: which lifeline each item goes on
 */

/* "ep12" with prefix "ep" -> 12; -1 when @name is not prefix + digits. */
int obj_num(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);
	const char *p;

	if (name == NULL || strncmp(name, prefix, n) != 0 || name[n] == '\0')
		return -1;
	for (p = name + n; *p; p++)
		if (!isdigit((unsigned char)*p))
			return -1;
	return atoi(name + n);
}

static int proc_of(long pid)
{
	int i;

	for (i = 0; i < nprocs; i++)
		if (procs[i].pid == pid)
			return i;
	procs = xrealloc(procs, (size_t)(nprocs + 1) * sizeof(*procs));
	procs[nprocs].pid = pid;
	procs[nprocs].first = nprocs;
	return nprocs++;
}

static int lane_of(long pid, const char *name, enum lane_kind kind, int num)
{
	struct lane *l;
	int i;

	for (i = 0; i < nlanes; i++)
		if (lanes[i].pid == pid && strcmp(lanes[i].name, name) == 0)
			return i;
	GROW(lanes, nlanes, alanes);
	l = &lanes[nlanes];
	memset(l, 0, sizeof(*l));
	l->pid = pid;
	snprintf(l->name, sizeof(l->name), "%s", name);
	l->kind = kind;
	l->num = num;
	l->proc = proc_of(pid);
	return nlanes++;
}

/* The lane of a named object, or -1 when it has none of its own. */
static int named_lane(long pid, const char *name)
{
	static const char *const sps[] = { "psp", "rsp", "csp" };
	int n, i;

	if ((n = obj_num(name, "ep")) >= 0)
		return lane_of(pid, name, L_EP, n);
	for (i = 0; i < 3; i++)
		if ((n = obj_num(name, sps[i])) >= 0)
			return lane_of(pid, name, L_SP, n);
	if ((n = obj_num(name, "srq")) >= 0)
		return lane_of(pid, name, L_SRQ, n);
	return -1;
}

static void conn_add(long pid, const char *conn, int lane, int is_ep)
{
	int i;

	for (i = 0; i < nconns; i++)
		if (conns[i].pid == pid && strcmp(conns[i].conn, conn) == 0) {
			if (is_ep && !conns[i].is_ep) {
				conns[i].lane = lane;
				conns[i].is_ep = 1;
			}
			return;
		}
	GROW(conns, nconns, aconns);
	conns[nconns].pid = pid;
	conns[nconns].conn = conn;
	conns[nconns].lane = lane;
	conns[nconns].is_ep = is_ep;
	nconns++;
}

/* @pid < 0: any process. */
int conn_lane(long pid, const char *conn)
{
	int i;

	for (i = 0; i < nconns; i++)
		if ((pid < 0 || conns[i].pid == pid) &&
		    strcmp(conns[i].conn, conn) == 0)
			return conns[i].lane;
	return -1;
}

/*
 * A line whose conn= is the connection of its EP: a frame (tx, rx), or an
 * RDMA placed by the initiator (place).
 */
static int on_conn(const struct item *it)
{
	return it->kind == K_TX || it->kind == K_RX || it->kind == K_PLACE;
}

/* "A>B" -> "B>A" into @buf. */
const char *conn_reverse(const char *conn, char *buf, size_t len)
{
	const char *gt = strchr(conn, '>');

	if (gt == NULL)
		snprintf(buf, len, "%s", conn);
	else
		snprintf(buf, len, "%s>%.*s", gt + 1, (int)(gt - conn), conn);
	return buf;
}

/*
 * Puts every item on a lane: a completion on the EP it names (ep=, for an
 * SRQ's receive), else on its object's lane, else on the EP its keys name
 * (ep=), the service point of its CR, or its service point (sp=, the
 * passive side's HELLO), else, for a frame of no object, the lane its
 * connection has in the same process, else its process's lane. An EP's
 * header shows the first connection of its frames and placed RDMA.
 */
void assign_lanes(void)
{
	int i;

	/* First the connections of the lines that name their EP. */
	for (i = 0; i < nitems; i++) {
		struct item *it = &items[i];
		int l;

		if (!on_conn(it))
			continue;
		l = obj_num(it->obj, "ep") >= 0 ?
			named_lane(it->pid, it->obj) : -1;
		if (l < 0 && find_kv(it, "sp") != NULL)
			l = named_lane(it->pid, find_kv(it, "sp"));
		if (l >= 0)
			conn_add(it->pid, find_kv(it, "conn"), l,
				 lanes[l].kind == L_EP);
	}
	for (i = 0; i < nitems; i++) {
		struct item *it = &items[i];
		const char *v;
		int l = -1, j;

		/* A receive taken from an SRQ completes on the EP that took it. */
		if (it->kind == K_DTO && (v = find_kv(it, "ep")) != NULL)
			l = named_lane(it->pid, v);
		if (l < 0)
			l = named_lane(it->pid, it->obj);
		if (l < 0 && (v = find_kv(it, "ep")) != NULL)
			l = named_lane(it->pid, v);
		if (l < 0 && obj_num(it->obj, "cr") >= 0)
			for (j = 0; j < ncrs; j++)
				if (crs[j].pid == it->pid &&
				    strcmp(crs[j].cr, it->obj) == 0)
					l = crs[j].lane;
		/* A HELLO read before its EP is known: at the listener. */
		if (l < 0 && (v = find_kv(it, "sp")) != NULL)
			l = named_lane(it->pid, v);
		if (l < 0 && on_conn(it))
			l = conn_lane(it->pid, find_kv(it, "conn"));
		if (l < 0)
			l = lane_of(it->pid, "", L_PROC, 0);
		it->lane = l;
		/* A request's CR lives where the request arrived. */
		if (it->kind == K_EVENT && (v = find_kv(it, "cr")) != NULL &&
		    lanes[l].kind == L_SP) {
			GROW(crs, ncrs, acrs);
			crs[ncrs].pid = it->pid;
			crs[ncrs].cr = v;
			crs[ncrs].lane = l;
			ncrs++;
		}
		if (on_conn(it) && lanes[l].kind == L_EP) {
			struct lane *ln = &lanes[l];
			const char *c = find_kv(it, "conn");

			if (ln->nconn == 0) {
				snprintf(ln->conn, sizeof(ln->conn), "%s", c);
				ln->nconn = 1;
			} else if (strcmp(ln->conn, c) != 0 && ln->nconn == 1) {
				ln->nconn = 2;	/* "and more" is enough */
			}
		}
	}
}

/* ------------------------------------------------------------------------
 * Matching frames and ordering rows
 */

struct fkey {
	char *key;		/* "LOCAL>REMOTE#seq" as the sender sees it */
	int item;
};

static int fkey_cmp(const void *a, const void *b)
{
	const struct fkey *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c != 0)
		return c;
	if (items[x->item].t != items[y->item].t)
		return items[x->item].t < items[y->item].t ? -1 : 1;
	return x->item - y->item;
}

static char *frame_key(const char *conn, const char *seq, int reverse)
{
	char rev[256], *k;
	size_t n;

	if (reverse)
		conn = conn_reverse(conn, rev, sizeof(rev));
	if (seq == NULL)
		seq = "-";	/* a datagram (UD): no seq */
	n = strlen(conn) + strlen(seq) + 2;
	k = xrealloc(NULL, n);
	snprintf(k, n, "%s#%s", conn, seq);
	return k;
}

/*
 * Gives each place line its target: the EP whose frames name the same
 * connection reversed (REMOTE>LOCAL), in any process, as an rx finds its
 * tx. None (-1) when the target's trace is not given, or its connection
 * is known only at a service point (a HELLO).
 */
static void match_places(void)
{
	char rev[256];
	int i, l;

	for (i = 0; i < nitems; i++) {
		struct item *it = &items[i];

		if (it->kind != K_PLACE)
			continue;
		l = conn_lane(-1, conn_reverse(find_kv(it, "conn"), rev,
					       sizeof(rev)));
		it->peer = l >= 0 && lanes[l].kind == L_EP && l != it->lane ?
			l : -1;
	}
}

/* A place line's RDMA took bytes from the target (else it put some). */
int place_is_read(const struct item *it)
{
	return strcmp(it->ev, "RDMA_READ") == 0;
}

/*
 * The lanes a place line's arrow joins, the way the bytes went: a write's
 * from the initiator to its target, a read's back. Returns -1, setting
 * neither, when the target's lane is not known or not shown: the line is
 * then a note on the initiator's lifeline. Valid after apply_filters().
 */
int place_arrow(const struct item *it, int *from, int *to)
{
	if (it->kind != K_PLACE || it->peer < 0 || !lanes[it->peer].shown)
		return -1;
	*from = place_is_read(it) ? it->peer : it->lane;
	*to = place_is_read(it) ? it->lane : it->peer;
	return 0;
}

/*
 * Pairs each rx with the earliest unmatched tx of (conn reversed, seq),
 * and each place line with its target's lane.
 */
void match_frames(void)
{
	struct fkey *tx = NULL;
	int ntx = 0, i;

	match_places();
	for (i = 0; i < nitems; i++)
		if (items[i].kind == K_TX)
			ntx++;
	tx = xrealloc(NULL, (size_t)ntx * sizeof(*tx));
	ntx = 0;
	for (i = 0; i < nitems; i++)
		if (items[i].kind == K_TX) {
			tx[ntx].key = frame_key(find_kv(&items[i], "conn"),
						find_kv(&items[i], "seq"), 0);
			tx[ntx++].item = i;
		}
	qsort(tx, (size_t)ntx, sizeof(*tx), fkey_cmp);
	for (i = 0; i < nitems; i++) {
		struct item *it = &items[i];
		char *key;
		int lo = 0, hi = ntx;

		if (it->kind != K_RX)
			continue;
		key = frame_key(find_kv(it, "conn"), find_kv(it, "seq"), 1);
		while (lo < hi) {
			int mid = (lo + hi) / 2;

			if (strcmp(tx[mid].key, key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (find_kv(it, "seq") == NULL) {
			/*
			 * Datagrams may be lost, so they have no seq: the
			 * latest datagram sent on that pair before this one
			 * arrived, else the earliest not yet taken.
			 */
			int best = -1, first = -1;

			for (; lo < ntx && strcmp(tx[lo].key, key) == 0; lo++) {
				struct item *t = &items[tx[lo].item];

				if (t->match >= 0)
					continue;
				if (first < 0)
					first = tx[lo].item;
				if (t->t <= it->t)
					best = tx[lo].item;
			}
			if (best < 0)
				best = first;
			if (best >= 0) {
				items[best].match = i;
				it->match = best;
			}
			free(key);
			continue;
		}
		for (; lo < ntx && strcmp(tx[lo].key, key) == 0; lo++)
			if (items[tx[lo].item].match < 0) {
				items[tx[lo].item].match = i;
				it->match = tx[lo].item;
				break;
			}
		free(key);
	}
	for (i = 0; i < ntx; i++)
		free(tx[i].key);
	free(tx);
}

/* @s ends in @suffix. */
static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* @call is one of the NULL-terminated @calls. */
static int call_is(const char *call, const char *const calls[])
{
	for (; *calls != NULL; calls++)
		if (strcmp(call, *calls) == 0)
			return 1;
	return 0;
}

static const char *const ends_calls[] = {
	"ep_disconnect", "ep_free", "ep_reset", NULL,
};
static const char *const connect_calls[] = {
	"ep_connect", "ep_dup_connect", "ep_common_connect", NULL,
};
static const char *const recv_calls[] = {
	"ep_post_recv", "srq_post_recv", NULL,
};

/*
 * Whether @l, a line of @a's process that is before @a in its file with
 * the same time, is one that call @a caused, by the links the trace has
 * (TRACE.md): a state change of its object whose why= names the call (a
 * disconnect's "graceful disconnect", ep_free's "freed"); the frame the
 * call sends (a connect's HELLO, cr_accept's ACCEPT, cr_reject's REJECT,
 * a disconnect's DISCONNECT, a UD send's datagram); a completion with its
 * cookie, or flushed by a disconnect; a disconnect's DISCONNECTED event;
 * for a receive, the frame it let in and the ACK that followed.
 */
static int caused_by(const struct item *a, const struct item *l)
{
	const char *v, *c;

	if (l->pid != a->pid || l->kind == K_API)
		return 0;
	if (l->kind == K_DTO) {
		v = find_kv(l, "cookie");
		c = find_kv(a, "cookie");
		if (v != NULL && c != NULL && strcmp(v, c) == 0)
			return 1;
	}
	if (l->lane != a->lane)
		return 0;
	switch (l->kind) {
	case K_STATE:
		v = find_kv(l, "why");
		if (v == NULL)
			return 0;
		return strstr(v, a->ev) != NULL ||
			(strcmp(a->ev, "ep_disconnect") == 0 &&
			 ends_with(v, " disconnect")) ||
			(strcmp(a->ev, "ep_free") == 0 &&
			 strcmp(v, "freed") == 0);
	case K_TX:
		if (call_is(a->ev, connect_calls))
			return strcmp(l->ev, "HELLO") == 0;
		if (call_is(a->ev, ends_calls))
			return strcmp(l->ev, "DISCONNECT") == 0 ||
				strcmp(l->ev, "TERMINATE") == 0;
		if (call_is(a->ev, recv_calls))
			return strcmp(l->ev, "ACK") == 0;
		if (strcmp(a->ev, "cr_accept") == 0)
			return strcmp(l->ev, "ACCEPT") == 0;
		if (strcmp(a->ev, "cr_reject") == 0)
			return strcmp(l->ev, "REJECT") == 0;
		return strcmp(l->ev, "DATA") == 0 &&
			(strcmp(a->ev, "ep_post_send") == 0 ||
			 strcmp(a->ev, "ib_post_send_ud") == 0);
	case K_RX:
		return call_is(a->ev, recv_calls) &&
			(strncmp(l->ev, "SEND", 4) == 0 ||
			 strncmp(l->ev, "WRITE_IMM", 9) == 0 ||
			 strcmp(l->ev, "DATA") == 0);
	case K_DTO:
		v = find_kv(l, "status");
		return call_is(a->ev, ends_calls) && v != NULL &&
			strcmp(v, "DAT_DTO_ERR_FLUSHED") == 0;
	case K_EVENT:
		return call_is(a->ev, ends_calls) &&
			strcmp(l->ev, "DAT_CONNECTION_EVENT_DISCONNECTED") == 0;
	default:
		return 0;
	}
}

/*
 * One file's lines, the @count items from items[@first], in causal order
 * into @seq (their indices): the file's own order (of its write()s), but
 * an `api` line goes up above the lines before it that its call may have
 * caused. TRACE.md: an api line's TIME is its call's entry, but the line
 * is written when the call returns, after the lines of what the call did.
 * So it rises above every line before it that is later than its time
 * (those began after the call did: nothing in them can have led to it),
 * and above those of the same time that its call caused (caused_by);
 * it stops at the first other one.
 */
static void order_file(int first, int count, int *seq)
{
	int i, k;

	for (i = 0; i < count; i++) {
		const struct item *a = &items[first + i];

		k = i;
		if (a->kind == K_API)
			for (; k > 0; k--) {
				const struct item *l = &items[seq[k - 1]];

				if (l->t < a->t || (l->t == a->t &&
						    !caused_by(a, l)))
					break;
				seq[k] = seq[k - 1];
			}
		seq[k] = first + i;
	}
}

/*
 * The row order: a merge of the files, each in its causal order
 * (order_file), taking the earliest head by timestamp, except that an rx
 * waits for its tx. If every head waits (inconsistent input), the
 * earliest goes anyway.
 */
void order_items(void)
{
	int *next = xrealloc(NULL, (size_t)nfiles * sizeof(int) + 1);
	int *len = xrealloc(NULL, (size_t)nfiles * sizeof(int) + 1);
	int **seq = xrealloc(NULL, (size_t)nfiles * sizeof(int *) + 1);
	int f, i;

	order = xrealloc(NULL, (size_t)nitems * sizeof(int) + 1);
	/* items[] holds each file's lines contiguously, in file order. */
	for (f = 0, i = 0; f < nfiles; f++) {
		int first = i;

		while (i < nitems && items[i].file == f)
			i++;
		len[f] = i - first;
		seq[f] = xrealloc(NULL, (size_t)len[f] * sizeof(int) + 1);
		order_file(first, len[f], seq[f]);
		next[f] = 0;
	}
	for (norder = 0; norder < nitems; norder++) {
		int best = -1, any = -1;

		for (f = 0; f < nfiles; f++) {
			struct item *h;

			if (next[f] >= len[f])
				continue;
			h = &items[seq[f][next[f]]];
			if (any < 0 || h->t < items[seq[any][next[any]]].t)
				any = f;
			if (h->kind == K_RX && h->match >= 0 &&
			    !items[h->match].emitted)
				continue;
			if (best < 0 || h->t < items[seq[best][next[best]]].t)
				best = f;
		}
		if (best < 0)
			best = any;
		order[norder] = seq[best][next[best]++];
		items[order[norder]].emitted = 1;
	}
	for (f = 0; f < nfiles; f++)
		free(seq[f]);
	free(seq);
	free(len);
	free(next);
}

/* ------------------------------------------------------------------------
 * Filters
 */

static int lane_selected(const struct lane *l)
{
	char buf[64];
	int i;

	if (opt_no_process && l->kind == L_PROC)
		return 0;
	if (opt_neps == 0)
		return 1;
	for (i = 0; i < opt_neps; i++) {
		const char *s = opt_eps[i];

		if (l->name[0] != '\0' && strcmp(s, l->name) == 0)
			return 1;
		snprintf(buf, sizeof(buf), "%ld", l->pid);
		if (strcmp(s, buf) == 0)
			return 1;
		snprintf(buf, sizeof(buf), "%ld:%s", l->pid,
			 l->name[0] ? l->name : "proc");
		if (strcmp(s, buf) == 0)
			return 1;
	}
	return 0;
}

void apply_filters(void)
{
	int i;

	for (i = 0; i < nlanes; i++)
		lanes[i].shown = lane_selected(&lanes[i]);
	for (i = 0; i < nitems; i++) {
		struct item *it = &items[i];

		it->shown = lanes[it->lane].shown;
		if (opt_hide_acks && (it->kind == K_TX || it->kind == K_RX) &&
		    strcmp(it->ev, "ACK") == 0)
			it->shown = 0;
		if (opt_have_from && it->t < opt_from)
			it->shown = 0;
		if (opt_have_to && it->t > opt_to)
			it->shown = 0;
	}
	/*
	 * A lifeline with nothing left on it goes too, except the target of
	 * a placed RDMA that is shown, where its arrow ends (if the options
	 * select that lifeline).
	 */
	for (i = 0; i < nlanes; i++)
		lanes[i].shown = 0;
	for (i = 0; i < nitems; i++) {
		const struct item *it = &items[i];

		if (!it->shown)
			continue;
		lanes[it->lane].shown = 1;
		if (it->kind == K_PLACE && it->peer >= 0 &&
		    lane_selected(&lanes[it->peer]))
			lanes[it->peer].shown = 1;
	}
}

/*
 * The time between each shown row and the rows above it (the latest of
 * them: a row may be earlier than one above it, where a frame's rx waits
 * for its tx or two hosts' clocks disagree), and which of these waits are
 * long enough to be folded (opt_fold). Valid after apply_filters().
 */
void mark_folds(void)
{
	int64_t last = 0;
	int i, any = 0;

	for (i = 0; i < norder; i++) {
		struct item *it = &items[order[i]];

		if (!it->shown)
			continue;
		it->gap = any && it->t > last ? it->t - last : 0;
		it->fold = any && opt_fold > 0 && it->gap >= opt_fold;
		if (!any || it->t > last)
			last = it->t;
		any = 1;
	}
}

/* ------------------------------------------------------------------------
 * The lifelines from left to right
 */

static int lane_cmp(const void *a, const void *b)
{
	const struct lane *x = &lanes[*(const int *)a];
	const struct lane *y = &lanes[*(const int *)b];
	int mirror;

	if (x->proc != y->proc)
		return procs[x->proc].first - procs[y->proc].first;
	/*
	 * The first process reads process, SRQs, service points, EPs from the
	 * left; the others mirrored, so that peers' EPs stand side by side.
	 */
	mirror = procs[x->proc].first > 0 ? -1 : 1;
	if (x->kind != y->kind)
		return mirror * ((int)x->kind - (int)y->kind);
	if (x->num != y->num)
		return mirror * (x->num - y->num);
	return mirror * strcmp(x->name, y->name);
}

/* lane_order[]: the shown lanes, by process, then kind and number. */
void sort_lanes(void)
{
	int i;

	lane_order = xrealloc(NULL, (size_t)nlanes * sizeof(int) + 1);
	nshown_lanes = 0;
	for (i = 0; i < nlanes; i++)
		if (lanes[i].shown)
			lane_order[nshown_lanes++] = i;
	qsort(lane_order, (size_t)nshown_lanes, sizeof(int), lane_cmp);
}

void free_layout(void)
{
	free(lanes);
	free(procs);
	free(conns);
	free(crs);
	free(order);
	free(lane_order);
}
