/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl-seq: the diagram as plain text, for a terminal or a README.
 *
 *      time  ep1 (pid 4711)                           ep2 (pid 4711)
 *            local 127.0.0.1:44829             local 127.0.0.1:45805
 *            peer 127.0.0.1:45805               peer 127.0.0.1:44829
 *                |                                                |
 * +0.629 ms  ep_post_rdma_read cookie=0x7 len=32 rkey=0x1 radd... *
 * +0.632 ms      |<- READ_REQ seq=2 len=32 rkey=0x1 addr=0x5... --|
 *                :             ... 1.06 ms pass ...               :
 * +1.711 ms      |------ READ_RESP seq=1 len=32 tag=0 ack=1 ----->|
 * +1.734 ms      |               [ok] RDMA_READ len=32 cookie=0x7 *
 *
 * The lifelines are columns ('|'), in the order of the pictures; the rows
 * are the pictures' rows, one item each, time going down, with the time in
 * milliseconds after the first line of the traces on the left, as the
 * pictures write it; a wait of --fold or more is a row of its own that
 * says how long it was, the lifelines broken (':'). A note
 * (call, completion, state change, event, error) is a '*' on its lifeline
 * with its text on the right (on the left when only that side has room); a
 * frame is an arrow on the row of its tx, from the sender's lifeline to
 * the receiver's, its label inside when it fits, else beside it; the rx
 * line's own row is left out unless the receiver refused the frame. A
 * frame nobody received ends in 'x', one whose tx is not in the traces
 * starts from 'o'. An RDMA its initiator placed in the target's memory is
 * an arrow of '=' between the two EPs, the way the bytes went (a note on
 * the initiator's lifeline when the target's is not drawn); there is no
 * frame, and nothing on the target's side. A receiver not ready (an
 * `rnr` wait) is a note that says so and what InfiniBand would do, its
 * lifeline '#' until the note of its resume. Labels that do not fit are
 * cut with "...": no line is longer than the width, and the output is
 * pure ASCII (any other character of a trace becomes '?').
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "softdapl-seq.h"

#define NOTE_MARK	'*'
#define FRAME_FILL	'-'	/* the shaft of a frame's arrow */
#define PLACE_FILL	'='	/* and of an RDMA placed by its initiator */
#define RNR_MARK	'#'	/* a lifeline not reading: RNR */
#define MAX_SPACING	60	/* columns between two lifelines, at most */
#define MIN_SPACING	6	/* and at least */
#define LABEL_LEN	1200	/* a label's or note's text, at most */

static FILE *out;
static int width;		/* columns of a line, at most */
static int tw;			/* the time column, with its gap */
static int c0, spacing;		/* the first lifeline's column, the gap */
static int *col;		/* lanes[] index -> column of its lifeline */
static char *rnr;		/* lanes[] index -> in an RNR wait */
static char row[TEXT_MAX_WIDTH + 1];

/*
 * Places the lifelines in @w columns: the time column, then the lanes
 * evenly, MAX_SPACING apart at most. Returns 0, or -1 when they do not
 * fit (said on stderr).
 */
int text_layout(int w)
{
	int64_t last = t_origin;
	char buf[48];
	int i;

	width = w;
	for (i = 0; i < norder; i++)
		if (items[order[i]].shown && items[order[i]].t > last)
			last = items[order[i]].t;
	tw = (int)strlen(time_label(last, buf, sizeof(buf))) + 2;
	c0 = tw + 4;	/* room for a short header, centred */
	spacing = 0;
	if (nshown_lanes > 1)
		spacing = (width - 2 - c0) / (nshown_lanes - 1);
	if (nshown_lanes > 1 && spacing < MIN_SPACING) {
		fprintf(stderr, "softdapl-seq: %d lifelines do not fit in %d "
			"columns: give --width %d or more, or fewer lifelines "
			"(--ep, -P)\n", nshown_lanes, width,
			c0 + 2 + MIN_SPACING * (nshown_lanes - 1));
		return -1;
	}
	if (spacing > MAX_SPACING)
		spacing = MAX_SPACING;
	return 0;
}

/*
 * Copies @s into @dst as ASCII: a character that is not printable ASCII
 * becomes one '?' (sanitize() made the input valid UTF-8, so a character
 * is a lead byte and its continuation bytes).
 */
static void to_ascii(char *dst, size_t len, const char *s)
{
	size_t n = 0;

	for (; *s && n + 1 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c & 0xc0) == 0x80)
			continue;
		dst[n++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	dst[n] = '\0';
}

/* The row as blank lifelines, with the time of @it unless it is NULL. */
static void row_start(const struct item *it)
{
	int i;

	memset(row, ' ', (size_t)width);
	row[width] = '\0';
	if (it != NULL) {
		char buf[48];
		int n = (int)strlen(time_label(it->t, buf, sizeof(buf)));

		if (n <= tw - 2)
			memcpy(row + tw - 2 - n, buf, (size_t)n);
	}
	for (i = 0; i < nshown_lanes; i++)
		row[col[lane_order[i]]] = rnr[lane_order[i]] ? RNR_MARK : '|';
}

static void row_end(void)
{
	int n = width;

	while (n > 0 && row[n - 1] == ' ')
		n--;
	fprintf(out, "%.*s\n", n, row);
}

/*
 * Writes ASCII @s at column @at, in @room columns at most: cut with "..."
 * when longer. Returns the columns written.
 */
static int put_at(int at, int room, const char *s)
{
	int n = (int)strlen(s);

	if (at < 0 || room <= 0 || at >= width)
		return 0;
	if (at + room > width)
		room = width - at;
	if (n <= room) {
		memcpy(row + at, s, (size_t)n);
		return n;
	}
	if (room <= 3) {
		memset(row + at, '.', (size_t)room);
		return room;
	}
	memcpy(row + at, s, (size_t)(room - 3));
	memcpy(row + at + room - 3, "...", 3);
	return room;
}

/*
 * Text beside column @c: right of it from @c + @gap when it fits there,
 * else left of it, ending @gap before @c, when it fits there, else cut on
 * the right (where text is read from), or on the left when the right has
 * hardly any room.
 */
static void put_beside(int c, int gap, const char *s)
{
	int n = (int)strlen(s);
	int right = width - (c + gap), left = c - gap + 1 - tw;

	if (n <= right || (n > left && (right >= 20 || right >= left))) {
		put_at(c + gap, right, s);
		return;
	}
	if (n > left)
		n = left;
	put_at(c - gap + 1 - n, n, s);
}

/* A note: a mark on the lifeline, its text beside it. */
static void put_note(int lane, const char *text)
{
	row[col[lane]] = NOTE_MARK;
	put_beside(col[lane], 2, text);
}

/*
 * A label of @n columns fits inside an arrow between the lifelines of
 * columns @from and @to, with three of its shaft on each side.
 */
static int fits_arrow(int from, int to, int n)
{
	return n + 6 <= abs(to - from) - 1;
}

/*
 * An arrow between the lifelines of columns @from and @to, its shaft of
 * @fill, its label inside when it fits with three of @fill on both sides,
 * else beside the arrow when it fits there (right of its right end, or
 * left of its left end), else inside, cut (beside it, cut, when the arrow
 * is too short).
 */
static void put_arrow(int from, int to, const char *label, char fill)
{
	int lo = from < to ? from : to, hi = from < to ? to : from;
	int inner = hi - lo - 1, n = (int)strlen(label), right, left;

	memset(row + lo + 1, fill, (size_t)inner);
	if (to > from)
		row[hi - 1] = '>';
	else
		row[lo + 1] = '<';
	if (fits_arrow(from, to, n)) {
		int at = lo + 1 + (inner - n) / 2;

		row[at - 1] = ' ';
		put_at(at, n, label);
		row[at + n] = ' ';
		return;
	}
	right = width - (hi + 2);
	left = lo - 1 - tw;
	if (n <= right) {
		put_at(hi + 2, right, label);
	} else if (n <= left) {
		put_at(lo - 1 - n, n, label);
	} else if (inner - 6 >= 12 || (inner - 6 > 0 && inner - 6 >= right &&
					inner - 6 >= left)) {
		row[lo + 3] = ' ';
		put_at(lo + 4, inner - 6, label);
		row[hi - 3] = ' ';
	} else if (right >= left) {
		put_at(hi + 2, right, label);
	} else {
		put_at(tw, left, label);
	}
}

/*
 * Which way the peer of frame @it is: toward its lane when that is shown
 * (*@peer its column, else -1), else the side with room for @len columns
 * (the right first).
 */
static int peer_dir(const struct item *it, int len, int *peer)
{
	char rev[256];
	int l = conn_lane(-1, conn_reverse(find_kv(it, "conn"), rev,
					   sizeof(rev)));
	int c = col[it->lane];

	*peer = -1;
	if (l >= 0 && lanes[l].shown && col[l] != c) {
		*peer = col[l];
		return col[l] > c ? 1 : -1;
	}
	return c + len < width || c - tw < width - c ? 1 : -1;
}

/*
 * Half a frame: "|--- label --x" (a tx nobody received) or "o--- label
 * -->|" (an rx whose tx is not there), toward or from the peer's side; it
 * stops short of the peer's lifeline when that is shown. A label that
 * does not fit in the stub is cut, or goes on the lifeline's other side
 * when the stub is too short for a word.
 */
static void put_stub(const struct item *it, const char *label, int is_tx)
{
	int c = col[it->lane], n = (int)strlen(label), room, dir, lo, hi;
	int total, peer;

	dir = peer_dir(it, n + 9, &peer);
	room = dir > 0 ? width - 1 - c : c - tw;
	if (peer >= 0 && (dir > 0 ? peer - c : c - peer) - 2 < room)
		room = (dir > 0 ? peer - c : c - peer) - 2;
	total = n + 8 < room ? n + 8 : room;
	if (total < 2)
		return;
	lo = dir > 0 ? c + 1 : c - total;
	hi = lo + total - 1;
	memset(row + lo, '-', (size_t)(hi - lo + 1));
	if (is_tx) {
		row[dir > 0 ? hi : lo] = 'x';
	} else {
		row[dir > 0 ? hi : lo] = 'o';
		row[dir > 0 ? lo : hi] = dir > 0 ? '<' : '>';
	}
	if (total - 8 >= 8 || (total - 8 > 0 && total - 8 >= n)) {
		row[lo + 3] = ' ';
		put_at(lo + 4, total - 8, label);
		row[lo + 4 + (n < total - 8 ? n : total - 8)] = ' ';
	} else if (dir > 0) {
		n = n < c - 1 - tw ? n : c - 1 - tw;
		put_at(c - 1 - n, n, label);
	} else {
		put_at(c + 2, width - c - 2, label);
	}
}

/* "refused: why", the note of an rx the receiver refused. */
static void put_refused(const struct item *rx)
{
	char text[LABEL_LEN], a[LABEL_LEN];

	snprintf(text, sizeof(text), "refused: %s", find_kv(rx, "bad"));
	to_ascii(a, sizeof(a), text);
	put_note(rx->lane, a);
}

static void put_frame_rows(const struct item *it)
{
	const struct item *tx = NULL, *rx = NULL;
	char label[LABEL_LEN], a[LABEL_LEN];

	if (it->kind == K_TX) {
		tx = it;
		if (it->match >= 0 && items[it->match].shown)
			rx = &items[it->match];
	} else {
		rx = it;
		if (it->match >= 0 && items[it->match].shown) {
			/* Its arrow is on its tx's row: only a refusal here. */
			if (find_kv(rx, "bad") != NULL) {
				row_start(rx);
				put_refused(rx);
				row_end();
			}
			return;
		}
	}
	frame_label(it, label, sizeof(label), 1);
	to_ascii(a, sizeof(a), label);
	row_start(it);
	if (tx != NULL && rx != NULL && col[tx->lane] != col[rx->lane])
		put_arrow(col[tx->lane], col[rx->lane], a, FRAME_FILL);
	else if (tx != NULL && rx != NULL)
		put_note(tx->lane, a);	/* to its own lifeline */
	else
		put_stub(it, a, tx != NULL);
	row_end();
	if (tx == NULL && find_kv(rx, "bad") != NULL) {
		row_start(NULL);
		put_refused(rx);
		row_end();
	}
}

/*
 * The row of an RDMA its initiator placed, when its target's lifeline is
 * drawn: an arrow of PLACE_FILL the way the bytes went, its label brief
 * when the whole one does not fit inside (otherwise the row is a note, as
 * for the lines of one lifeline).
 */
static void put_place_row(const struct item *it, int from, int to)
{
	char label[LABEL_LEN], a[LABEL_LEN];

	place_label(it, label, sizeof(label), 1, 0);
	if (!fits_arrow(col[from], col[to], (int)strlen(label)))
		place_label(it, label, sizeof(label), 1, 1);
	to_ascii(a, sizeof(a), label);
	row_start(it);
	put_arrow(col[from], col[to], a, PLACE_FILL);
	row_end();
}

/* The columns [*lo, *hi) that the header of the @i-th lifeline may use. */
static void lane_region(int i, int *lo, int *hi)
{
	int c = col[lane_order[i]];

	*lo = i == 0 ? tw : (col[lane_order[i - 1]] + c) / 2 + 1;
	*hi = i == nshown_lanes - 1 ? width : (c + col[lane_order[i + 1]]) / 2;
}

/*
 * A header cell over the @i-th lifeline: the first of @cand (NULL-
 * terminated, at most 3) that fits in its region, centred over it; else
 * the last, cut with "..." at its end or, if @cut_left, at its start (an
 * address keeps its port).
 */
static void put_cell(int i, const char *const cand[], int cut_left)
{
	int c = col[lane_order[i]], lo, hi, n, at, k;
	char a[LABEL_LEN] = "";

	lane_region(i, &lo, &hi);
	for (k = 0; cand[k] != NULL; k++) {
		to_ascii(a, sizeof(a), cand[k]);
		if ((int)strlen(a) <= hi - lo)
			break;
	}
	n = (int)strlen(a);
	if (n > hi - lo) {
		n = hi - lo;
		if (cut_left && n > 3) {
			memmove(a + 3, a + strlen(a) - (size_t)(n - 3),
				(size_t)(n - 3) + 1);
			memcpy(a, "...", 3);
		}
	}
	at = c - n / 2;
	if (at + n > hi)
		at = hi - n;
	if (at < lo)
		at = lo;
	put_at(at, n, a);
}

/* "127.0.0.1:4791" -> "...:4791" into @buf: the port, when the host does
 * not fit. */
static void port_only(const char *addr, char *buf, size_t len)
{
	const char *colon = strrchr(addr, ':');

	snprintf(buf, len, "...%s", colon ? colon : addr);
}

/*
 * The lifelines' headers: "ep1 (pid 4711)" ("ep1" over "pid 4711" when
 * one of them does not fit), then the local and peer addresses of the
 * EPs' connections, if any ("...:4791" when only the port fits).
 */
static void put_headers(void)
{
	char label[LABEL_LEN], name[LABEL_LEN], pid[64], addr[2][128];
	char port[136];
	int i, lo, hi, fit = 1, conns = 0;

	for (i = 0; i < nshown_lanes; i++) {
		const struct lane *l = &lanes[lane_order[i]];

		lane_region(i, &lo, &hi);
		if ((int)strlen(lane_label(l, label, sizeof(label))) > hi - lo)
			fit = 0;
		conns |= l->nconn > 0;
	}
	memset(row, ' ', (size_t)width);
	put_at(tw - 6, 4, "time");
	for (i = 0; i < nshown_lanes; i++) {
		const struct lane *l = &lanes[lane_order[i]];
		const char *cand[2] = { label, NULL };

		if (fit)
			lane_label(l, label, sizeof(label));
		else
			snprintf(label, sizeof(label), "%s",
				 l->name[0] ? l->name : "process");
		put_cell(i, cand, 0);
	}
	row_end();
	if (!fit) {
		memset(row, ' ', (size_t)width);
		for (i = 0; i < nshown_lanes; i++) {
			const char *cand[2] = { pid, NULL };

			snprintf(pid, sizeof(pid), "pid %ld",
				 lanes[lane_order[i]].pid);
			put_cell(i, cand, 0);
		}
		row_end();
	}
	if (!conns)
		return;
	memset(row, ' ', (size_t)width);
	for (i = 0; i < nshown_lanes; i++) {
		const struct lane *l = &lanes[lane_order[i]];
		const char *gt = strchr(l->conn, '>');
		const char *cand[4] = { name, addr[0], port, NULL };

		if (l->nconn == 0)
			continue;
		snprintf(addr[0], sizeof(addr[0]), "%.*s", gt ?
			 (int)(gt - l->conn) : (int)strlen(l->conn), l->conn);
		snprintf(name, sizeof(name), "local %s", addr[0]);
		port_only(addr[0], port, sizeof(port));
		put_cell(i, cand, 1);
	}
	row_end();
	memset(row, ' ', (size_t)width);
	for (i = 0; i < nshown_lanes; i++) {
		const struct lane *l = &lanes[lane_order[i]];
		const char *gt = strchr(l->conn, '>');
		const char *cand[4] = { name, addr[1], port, NULL };

		if (l->nconn == 0)
			continue;
		snprintf(addr[1], sizeof(addr[1]), "%s", gt ? gt + 1 : "?");
		snprintf(name, sizeof(name), "peer %s%s", addr[1],
			 l->nconn > 1 ? " (+more)" : "");
		port_only(addr[1], port, sizeof(port));
		put_cell(i, cand, 1);
	}
	row_end();
}

/*
 * A folded wait: "... 305 ms pass ..." across the lifelines, which break
 * there (':').
 */
static void put_fold(const struct item *it)
{
	char label[64], text[80];
	int i, lo, hi, n;

	row_start(NULL);
	for (i = 0; i < nshown_lanes; i++)
		row[col[lane_order[i]]] = ':';
	fold_label(it->gap, label, sizeof(label));
	n = snprintf(text, sizeof(text), "... %s ...", label);
	lo = col[lane_order[0]];
	hi = col[lane_order[nshown_lanes - 1]];
	i = (lo + hi) / 2 - n / 2;
	if (i + n > width)
		i = width - n;
	if (i < tw)
		i = tw;
	put_at(i, n, text);
	row_end();
}

/*
 * Receiver not ready: the wait's note, then rnr_contrast beside the
 * lifeline, which reads '#' until the resume's row.
 */
static void put_rnr(const struct item *it, const char *text)
{
	int i;

	row_start(it);
	put_note(it->lane, text);
	row_end();
	if (!rnr_is_wait(it)) {
		rnr[it->lane] = 0;
		return;
	}
	rnr[it->lane] = 1;
	for (i = 0; rnr_contrast[i] != NULL; i++) {
		row_start(NULL);
		put_beside(col[it->lane], 2, rnr_contrast[i]);
		row_end();
	}
}

/* @s, wrapped at spaces into lines of the width. */
static void put_wrapped(const char *s)
{
	while (*s) {
		int n = (int)strlen(s), cut = n;

		if (n > width) {
			for (cut = width; cut > 0 && s[cut] != ' '; cut--)
				;
			if (cut == 0)
				cut = width;
		}
		fprintf(out, "%.*s\n", cut, s);
		s += cut;
		while (*s == ' ')
			s++;
	}
}

/* The diagram, to @f; text_layout() has run. Errors are left in @f. */
void write_text(FILE *f, const char *title)
{
	char a[1024];
	int i;

	out = f;
	col = xrealloc(NULL, (size_t)nlanes * sizeof(*col) + 1);
	rnr = xrealloc(NULL, (size_t)nlanes + 1);
	for (i = 0; i < nlanes; i++) {
		col[i] = -1;
		rnr[i] = 0;
	}
	for (i = 0; i < nshown_lanes; i++)
		col[lane_order[i]] = c0 + i * spacing;
	to_ascii(a, sizeof(a), title);
	memset(row, ' ', (size_t)width);
	row[width] = '\0';
	put_at(0, width, a);
	row_end();
	/* --notice: under the title, each line wrapped to the width. */
	for (i = 0; i < nnotice; i++) {
		to_ascii(a, sizeof(a), notice[i]);
		put_wrapped(a);
	}
	fputc('\n', out);

	put_headers();
	row_start(NULL);
	row_end();

	for (i = 0; i < norder; i++) {
		const struct item *it = &items[order[i]];
		char text[LABEL_LEN];
		int from, to;

		if (!it->shown)
			continue;
		if (it->fold)
			put_fold(it);
		if (it->kind == K_TX || it->kind == K_RX) {
			put_frame_rows(it);
			continue;
		}
		if (place_arrow(it, &from, &to) == 0) {
			put_place_row(it, from, to);
			continue;
		}
		note_text(it, text, sizeof(text), 1);
		to_ascii(a, sizeof(a), text);
		if (it->kind == K_RNR) {
			put_rnr(it, a);
			continue;
		}
		row_start(it);
		put_note(it->lane, a);
		row_end();
	}
	row_start(NULL);
	row_end();
	fputc('\n', out);
	put_wrapped("time: milliseconds after the first line of the traces. "
		    "... N ms pass ... a wait of N ms, folded. "
		    "|---->| a frame, on the row of its tx; --x a frame nobody "
		    "received; o--> one whose tx is not traced. |====>| an "
		    "RDMA its initiator placed in the target's memory itself: "
		    "no frame, the target's CPU idle. * a call, a completion "
		    "([ok], [FLUSHED] ...), a state change (OLD => NEW), an "
		    "event, an error, or an RDMA placed in a target not "
		    "drawn. [eng] [post] [wait] [dequeue] [cons]: whose thread "
		    "did it (by=): the engine, a consumer in dat_ep_post_* "
		    "(or dat_ib_post_*), "
		    "dat_evd_wait, dat_evd_dequeue, or another call; none on "
		    "a call's own line; on a frame [sender>receiver], as "
		    "[post>eng]: the consumer's post sent it, the other "
		    "side's engine took it.");
	if (rnr_shown())
		put_wrapped("# a lifeline that stopped reading: a message came "
			    "and no receive was posted (receiver not ready).");
	free(col);
	col = NULL;
	free(rnr);
	rnr = NULL;
}
