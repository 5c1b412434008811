/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl-seq: the diagram as an SVG picture (with a legend, no script)
 * or as a self-contained HTML page (the SVG inline, a legend above it, the
 * page's controls and scripts of softdapl-seq-page.c, and a self-check of
 * the drawing for developers). Every row holds exactly one item, so no
 * two labels can overlap, and a label is cut to the room between the
 * lifelines beside it (lane_room); the self-check checks this, and that
 * every arrow (a frame's, or an RDMA's that its initiator placed) ends on
 * a lifeline. Rows are spaced by the time between them (gap_px), and a wait
 * of --fold or more is a band with its length in words (put_folds).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "softdapl-seq.h"

/* ------------------------------------------------------------------------
 * Geometry. Monospace text: CHAR_W pixels per character at FONT px.
 */

#define FONT		11
#define CHAR_W		6.7
#define SMALL_FONT	9
#define SMALL_W		5.5
#define LEFT		100	/* the time column */
#define RIGHT		40	/* room right of the last lane */
#define TOP		84	/* process band and lane headers */
#define ROW		18	/* a note or a frame label */
#define ROW_RX		8	/* the end of an arrow */
#define STUB		70	/* length of a stub arrow */
#define MAX_CHARS	72
#define OCTAVE_PX	8	/* room a wait adds each time it doubles */
#define OCTAVE_US	16	/* the wait that adds OCTAVE_PX */
#define FOLD_MIN	40	/* the height of a folded wait, at least */
#define ROW_SMALL	11	/* a line of SMALL_FONT text under a note */

static int width, height;
static int body_height;	/* height without the legend */
int lane_w = 210;	/* --lane-width */

/*
 * Arrow families: colour, dashes and arrowhead. All but the last are
 * frames' (family_of()); the last is an RDMA its initiator placed in the
 * target's memory, no frame at all.
 */
struct family {
	const char *name;	/* class and arrowhead id */
	const char *label;	/* in the legend */
	const char *color;
	const char *dash;	/* stroke-dasharray, or NULL for a solid line */
};

static const struct family families[] = {
	{ "send", "SEND", "#1565c0", NULL },
	{ "write", "WRITE", "#6a1b9a", NULL },
	{ "readreq", "READ_REQ", "#00838f", NULL },
	{ "readresp", "READ_RESP", "#e65100", NULL },
	{ "atomic", "atomics", "#5d4037", NULL },
	{ "ack", "ACK", "#9e9e9e", "3 2" },
	{ "end", "DISCONNECT/TERMINATE/REJECT", "#c62828", NULL },
	{ "cm", "handshake", "#37474f", NULL },
	{ "place", "RDMA placed by initiator (no frame, target CPU idle)",
	  "#ad1457", "7 4" },
};

#define NFAMILIES	(sizeof(families) / sizeof(families[0]))

/*
 * Whose thread did a row's work: the tags of who_tag() (label.c), each
 * coloured in the labels (class by-TAG, esc_cut) and explained in the
 * legend. Two tags share a colour when they are the same kind of work:
 * the consumer in a call of its own (a post or another), the consumer
 * moving its EVD's EPs (inside dat_evd_wait or dat_evd_dequeue).
 */
struct thread_kind {
	const char *tags[2];	/* "eng"; NULL ends */
	const char *label;
	const char *color;
};

static const struct thread_kind threads[] = {
	{ { "eng", NULL }, "the engine thread", "#558b2f" },
	{ { "post", "cons" }, "the consumer, in its own DAT call",
	  "#283593" },
	{ { "wait", "dequeue" },
	  "the consumer, moving its EPs in dat_evd_wait/dequeue", "#9e6a00" },
	{ { "init", NULL }, "the initiator, in the target's memory",
	  "#ad1457" },
};

#define NTHREADS	(sizeof(threads) / sizeof(threads[0]))

/* A thread kind's legend entry: "[post/cons] the consumer, ...". */
static const char *thread_legend(const struct thread_kind *th, char *buf,
				 size_t len)
{
	snprintf(buf, len, "[%s%s%s] %s", th->tags[0], th->tags[1] ? "/" : "",
		 th->tags[1] ? th->tags[1] : "", th->label);
	return buf;
}

/* True when a shown row says whose thread wrote it (by=, TRACE.md). */
static int who_shown(void)
{
	int i;

	for (i = 0; i < nitems; i++)
		if (items[i].shown && find_kv(&items[i], "by") != NULL)
			return 1;
	return 0;
}

static const struct family *const place_family = &families[NFAMILIES - 1];

static const struct family *family_of(const char *op)
{
	if (strncmp(op, "SEND", 4) == 0 || strcmp(op, "DATA") == 0)
		return &families[0];
	if (strncmp(op, "WRITE", 5) == 0)
		return &families[1];
	if (strcmp(op, "READ_REQ") == 0)
		return &families[2];
	if (strcmp(op, "READ_RESP") == 0)
		return &families[3];
	if (strcmp(op, "FETCH_ADD") == 0 || strcmp(op, "CMP_SWAP") == 0 ||
	    strcmp(op, "ATOMIC_RESP") == 0)
		return &families[4];
	if (strcmp(op, "ACK") == 0)
		return &families[5];
	if (strcmp(op, "TERMINATE") == 0 || strcmp(op, "DISCONNECT") == 0 ||
	    strcmp(op, "REJECT") == 0)
		return &families[6];
	return &families[7];
}

static const char *state_color(const char *state)
{
	if (strcmp(state, "CONNECTED") == 0)
		return "#43a047";
	if (strstr(state, "PENDING") != NULL)
		return "#fb8c00";
	if (strcmp(state, "DISCONNECTED") == 0)
		return "#e53935";
	if (strcmp(state, "RESERVED") == 0)
		return "#8e24aa";
	return "#b0bec5";
}

static int item_height(const struct item *it)
{
	switch (it->kind) {
	case K_RX:
		if (it->match >= 0 && items[it->match].shown &&
		    find_kv(it, "bad") == NULL)
			return ROW_RX;
		return find_kv(it, "bad") != NULL ? ROW + ROW_RX : ROW;
	case K_RNR:
		if (rnr_is_wait(it)) {
			int n = 0;

			while (rnr_contrast[n] != NULL)
				n++;
			return ROW + n * ROW_SMALL + 4;
		}
		return ROW;
	default:
		return ROW;
	}
}

static int out_svg;		/* a picture, with a legend */
static int legend_rows(int draw);

/*
 * The room a wait of @us microseconds adds between two rows: none for
 * none, then OCTAVE_PX more each time the wait doubles (OCTAVE_PX *
 * log2(1 + us / OCTAVE_US), the logarithm taken a piece of straight line
 * per octave: monotonic, and no libm). A scale of the logarithm, not of
 * the time itself: rows a few microseconds apart and rows a few hundred
 * apart must both be readable on one page, and every wait at least as
 * long as --fold is folded into a labelled band anyway.
 */
static int gap_px(int64_t us)
{
	double v = 1 + (double)us / OCTAVE_US;
	int octaves = 0;

	while (v >= 2) {
		v /= 2;
		octaves++;
	}
	return (int)(OCTAVE_PX * (octaves + (v - 1)) + 0.5);
}

/* The height of a folded wait's band: taller than any wait not folded. */
static int fold_px(void)
{
	int h = gap_px(opt_fold) + 6;

	return h > FOLD_MIN ? h : FOLD_MIN;
}

/*
 * Places the lifelines (x) and the rows (y, h) of what apply_filters() left
 * shown, in sort_lanes()'s order, each row below the one above by the
 * room of the wait between them (gap_px; none with --even), or below the
 * band of a folded wait; @picture: an SVG, which has a legend.
 */
void svg_layout(int picture)
{
	int i, y = TOP;

	out_svg = picture;
	for (i = 0; i < nshown_lanes; i++)
		lanes[lane_order[i]].x = LEFT + lane_w / 2 + i * lane_w;
	width = LEFT + nshown_lanes * lane_w + RIGHT;
	for (i = 0; i < norder; i++) {
		struct item *it = &items[order[i]];

		if (!it->shown)
			continue;
		if (it->fold) {
			it->fold_y = y;
			y += fold_px();
		} else if (!opt_even) {
			y += gap_px(it->gap);
		}
		it->y = y;
		it->h = item_height(it);
		y += it->h;
	}
	body_height = height = y + 24;
	if (out_svg)
		height += legend_rows(0) * ROW + 8;
}

/* ------------------------------------------------------------------------
 * Output
 */

static FILE *out;

static void put(const char *s)
{
	fputs(s, out);
}

#define P(...) fprintf(out, __VA_ARGS__)

/* Characters of @s as displayed (UTF-8 continuation bytes not counted). */
static int text_len(const char *s)
{
	int n = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

/* XML-escapes at most @max characters of @s (an ellipsis marks the cut). */
static void esc(const char *s, int max)
{
	int n = 0;

	for (; *s; s++) {
		/* Characters, not bytes: UTF-8 continuations do not count. */
		if (((unsigned char)*s & 0xc0) != 0x80) {
			if (max >= 0 && n >= max - 1 && text_len(s) > 1) {
				put("\xe2\x80\xa6");
				return;
			}
			n++;
		}
		switch (*s) {
		case '&': put("&amp;"); break;
		case '<': put("&lt;"); break;
		case '>': put("&gt;"); break;
		case '"': put("&quot;"); break;
		case '\'': put("&#39;"); break;
		default:
			putc(*s, out);	/* sanitize() made it valid UTF-8 */
		}
	}
}

/*
 * The length of @s's leading thread tag ("[eng] ", "[post>eng] ": who_tag,
 * label.c), or 0 when it has none.
 */
static int who_prefix(const char *s)
{
	int i;

	if (s[0] != '[')
		return 0;
	for (i = 1; i < 24 && ((s[i] >= 'a' && s[i] <= 'z') || s[i] == '>');
	     i++)
		;
	return i > 1 && s[i] == ']' && s[i + 1] == ' ' ? i + 2 : 0;
}

/*
 * @s cut to @max characters (esc); when cut, whole in the text's tooltip,
 * a <title> inside the <text>.
 */
static void esc_cut(const char *s, int max)
{
	int n = who_prefix(s);

	if (n > 0 && (max < 0 || max > n + 1)) {
		/* "[post>eng] ": each thread's name in its colour. */
		const char *p = s + 1, *end = s + n - 2;

		put("[");
		while (p < end) {
			const char *q = memchr(p, '>', (size_t)(end - p));
			int len = (int)((q ? q : end) - p);

			P("<tspan class=\"by-%.*s\">%.*s</tspan>", len, p, len,
			  p);
			if (q == NULL)
				break;
			put("&gt;");
			p = q + 1;
		}
		put("] ");
		esc(s + n, max < 0 ? -1 : max - n);
	} else {
		esc(s, max);
	}
	if (max >= 0 && text_len(s) > max) {
		put("<title>");
		esc(s, -1);
		put("</title>");
	}
}

static void put_fileline(const struct item *it)
{
	esc(files[it->file], -1);
	P(":%ld", it->lineno);
}

/* A row's common attributes: where it came from, and its tooltip. */
static void put_origin(const struct item *it)
{
	char c[48];

	put(" data-line=\"");
	put_fileline(it);
	P("\" data-t=\"%s\"", time_label(it->t, c, sizeof(c)));
}

static void put_title(const struct item *it)
{
	put("<title>");
	put_fileline(it);
	put(": ");
	esc(it->raw, -1);
	put("</title>");
}


/*
 * The nearest lifelines left and right of @x (not at @x): their x, or the
 * time column's edge and the picture's. A label stays between them, so
 * that it is over no lifeline but its own.
 */
static void lane_room(int x, int *lo, int *hi)
{
	int i;

	*lo = LEFT;
	*hi = width;
	for (i = 0; i < nshown_lanes; i++) {
		int lx = lanes[lane_order[i]].x;

		if (lx < x && lx > *lo)
			*lo = lx;
		if (lx > x && lx < *hi)
			*hi = lx;
	}
}

/*
 * A note box centred on its lane, between the lifelines on either side
 * (lane_room): cut with an ellipsis when wider, its row's tooltip says it
 * whole.
 */
static void put_note(const struct item *it, const char *cls, const char *text,
		     int y)
{
	int x = lanes[it->lane].x, chars = text_len(text), w, bx, lo, hi;
	int room;

	lane_room(x, &lo, &hi);
	lo += 4;
	hi -= 4;
	room = (int)((hi - lo - 8) / CHAR_W);

	if (chars > MAX_CHARS)
		chars = MAX_CHARS;
	if (chars > room)
		chars = room;
	w = (int)(chars * CHAR_W) + 8;
	bx = x - w / 2;
	if (bx < lo)
		bx = lo;
	if (bx + w > hi)
		bx = hi - w;
	P("<rect class=\"box %s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"14\" "
	  "rx=\"3\"/>", cls, bx, y + 2, w);
	P("<text class=\"lbl\" x=\"%d\" y=\"%d\">", bx + 4, y + 13);
	esc_cut(text, chars);
	put("</text>");
}

static void put_marker_defs(void)
{
	size_t i;

	put("<defs>");
	for (i = 0; i < NFAMILIES; i++)
		P("<marker id=\"ah-%s\" viewBox=\"0 0 10 10\" refX=\"9\" "
		  "refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
		  "orient=\"auto\"><path d=\"M0,0L10,5L0,10z\" fill=\"%s\"/>"
		  "</marker>", families[i].name, families[i].color);
	put("</defs>");
}

/* The threads' colours: a tag's text in the pictures, on the page too. */
static void put_threads_css(void)
{
	size_t i, j;

	for (i = 0; i < NTHREADS; i++)
		for (j = 0; j < 2 && threads[i].tags[j] != NULL; j++)
			P(".by-%s{fill:%s;color:%s;font-weight:bold}",
			  threads[i].tags[j], threads[i].color,
			  threads[i].color);
}

static const char *const css =
	"svg.seq{background:#fff}"
	".seq text{font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace;"
	"font-size:11px;fill:#212121;white-space:pre}"
	".seq text.time{font-size:9px;fill:#757575}"
	".seq text.hdr{font-weight:bold}"
	".seq text.addr{font-size:9px;fill:#455a64}"
	".seq text.pid{font-size:10px;fill:#546e7a}"
	".seq .procband{fill:#f5f7fa;stroke:#cfd8dc}"
	".seq .procband.odd{fill:#fbf8f2}"
	".seq .lifeline line{stroke:#90a4ae;stroke-dasharray:4 3}"
	".seq .hdrbox{fill:#eceff1;stroke:#78909c}"
	".seq .hdrbox.ep{fill:#e3f2fd;stroke:#1e88e5}"
	".seq .box{stroke-width:1}"
	".seq .box.api{fill:#fff;stroke:#78909c}"
	".seq .box.api.fail{fill:#ffebee;stroke:#c62828}"
	".seq .box.dto.ok{fill:#e8f5e9;stroke:#2e7d32}"
	".seq .box.dto.err{fill:#ffebee;stroke:#c62828}"
	".seq .box.state{fill:#fff8e1;stroke:#f9a825}"
	".seq .box.event{fill:#ede7f6;stroke:#5e35b1}"
	".seq .box.error{fill:#ffcdd2;stroke:#b71c1c}"
	".seq .box.bad{fill:#ffcdd2;stroke:#b71c1c}"
	".seq .dto.ok text{fill:#1b5e20}"
	".seq .dto.err text,.seq .error text,.seq .api.fail text{fill:#b71c1c}"
	".seq .frame line,.seq .legend line{stroke-width:1.5;fill:none}"
	".seq .place line{stroke-width:2;fill:none}"
	".seq .frame.ack line{stroke-width:1}"
	".seq .frame text{font-size:10px}"
	".seq .frame.ack text{fill:#757575}"
	".seq .place.arrow text{font-size:10px}"
	".seq .place text{fill:#880e4f}"
	".seq .box.place{fill:#fce4ec;stroke:#ad1457;stroke-dasharray:4 2}"
	".seq .stubmark{fill:#fff;stroke-width:1.5}"
	".seq .statebar{stroke:none}"
	".seq .foldband{fill:#f5f5f5}"
	".seq .foldedge{fill:none;stroke:#9e9e9e;stroke-width:1}"
	".seq .foldlbl{fill:#fff;stroke:#9e9e9e}"
	".seq text.fold{font-style:italic;fill:#424242}"
	".seq .hdrbg{fill:#fff;fill-opacity:0}"
	".seq .headers.stuck .hdrbg{fill-opacity:.93}";

/* Added to css when an RNR wait is drawn (rnr_shown()). */
static const char *const rnr_css =
	".seq .box.rnr{fill:#fff3e0;stroke:#e65100}"
	".seq .rnr text{fill:#bf360c}"
	".seq .rnr text.contrast{font-size:9px;fill:#4e342e}"
	".seq .rnrband{fill:#e65100;opacity:0.35}"
	".seq .contrastbox{fill:#fff;stroke:#ffcc80}";

/* The process bands and the lifelines, with their state bars. */
static void put_lanes(void)
{
	int i, j;

	for (i = 0; i < nshown_lanes;) {
		int p = lanes[lane_order[i]].proc, x0, x1;

		for (j = i; j < nshown_lanes && lanes[lane_order[j]].proc == p; j++)
			;
		x0 = lanes[lane_order[i]].x - lane_w / 2 + 3;
		x1 = lanes[lane_order[j - 1]].x + lane_w / 2 - 3;
		P("<rect class=\"procband%s\" data-pid=\"%ld\" x=\"%d\" "
		  "y=\"2\" width=\"%d\" height=\"%d\" rx=\"6\"/>\n",
		  procs[p].first % 2 ? " odd" : "", procs[p].pid, x0, x1 - x0,
		  body_height - 4);
		i = j;
	}
	for (i = 0; i < nshown_lanes; i++) {
		struct lane *l = &lanes[lane_order[i]];

		P("<g class=\"lifeline %s\" id=\"lane%d\" data-lane=\"%s\" "
		  "data-pid=\"%ld\" data-x=\"%d\" data-top=\"%d\" "
		  "data-bottom=\"%d\">", l->kind == L_EP ? "ep" :
		  l->kind == L_PROC ? "proc" : "obj", lane_order[i],
		  l->name[0] ? l->name : "proc", l->pid, l->x, TOP - 6,
		  body_height - 8);
		P("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/></g>\n",
		  l->x, TOP - 6, l->x, body_height - 8);
	}
	/* State bars: from each state line to the next of its EP. */
	for (i = 0; i < norder; i++) {
		struct item *it = &items[order[i]];
		const char *to;
		int end = body_height - 8;

		if (!it->shown || it->kind != K_STATE ||
		    (to = find_kv(it, "to")) == NULL)
			continue;
		for (j = i + 1; j < norder; j++) {
			struct item *n = &items[order[j]];

			if (n->shown && n->lane == it->lane &&
			    n->kind == K_STATE) {
				end = n->y + 2;
				break;
			}
		}
		P("<rect class=\"statebar\" data-lane=\"lane%d\" "
		  "data-state=\"", it->lane);
		esc(to, -1);
		P("\" x=\"%d\" y=\"%d\" width=\"5\" height=\"%d\" fill=\"%s\" "
		  "opacity=\"0.55\"/>\n", lanes[it->lane].x - 2, it->y + 16,
		  end - it->y - 16 > 0 ? end - it->y - 16 : 1, state_color(to));
	}
}

/*
 * Receivers not ready: a band on the lifeline from each `rnr` wait's row
 * to its resume's (to the bottom when the trace ends first).
 * <rect class="rnrband" data-lane="laneN" data-us="WAITED">.
 */
static void put_rnr_bands(void)
{
	int i, j;

	for (i = 0; i < norder; i++) {
		struct item *it = &items[order[i]];
		const char *us = NULL;
		int end = body_height - 8;

		if (!it->shown || !rnr_is_wait(it))
			continue;
		for (j = i + 1; j < norder; j++) {
			struct item *n = &items[order[j]];

			if (n->shown && n->lane == it->lane &&
			    n->kind == K_RNR) {
				end = n->y + 2;
				us = find_kv(n, "waited_us");
				break;
			}
		}
		P("<rect class=\"rnrband\" data-lane=\"lane%d\" data-us=\"",
		  it->lane);
		esc(us ? us : "", -1);
		P("\" x=\"%d\" y=\"%d\" width=\"9\" height=\"%d\"/>\n",
		  lanes[it->lane].x - 4, it->y + 16,
		  end - it->y - 16 > 0 ? end - it->y - 16 : 1);
	}
}

/* The direction (+1 right, -1 left) from lane @from toward @it's peer. */
static int peer_dir(const struct item *it)
{
	char rev[256];
	int l = conn_lane(-1, conn_reverse(find_kv(it, "conn"), rev,
					   sizeof(rev)));

	if (l < 0 || !lanes[l].shown || lanes[l].x == lanes[it->lane].x)
		return lanes[it->lane].x + lane_w / 2 + STUB < width ? 1 : -1;
	return lanes[l].x > lanes[it->lane].x ? 1 : -1;
}

/* An arrow's line in @fam's colour and dashes, with its head if @head. */
static void put_line(int x1, int y1, int x2, int y2, const struct family *fam,
		     int head)
{
	P("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\"", x1, y1,
	  x2, y2, fam->color);
	if (fam->dash != NULL)
		P(" stroke-dasharray=\"%s\"", fam->dash);
	if (head)
		P(" marker-end=\"url(#ah-%s)\"", fam->name);
	put("/>");
}

static void put_frame_attrs(const struct item *tx, const struct item *rx,
			    const struct family *fam)
{
	const struct item *it = tx ? tx : rx;
	char lower[32];
	size_t i;

	for (i = 0; it->ev[i] && i < sizeof(lower) - 1; i++)
		lower[i] = (char)tolower((unsigned char)it->ev[i]);
	lower[i] = '\0';
	P("<g class=\"frame %s op-%s%s\" data-op=\"", fam->name, lower,
	  tx && rx ? "" : " stub");
	esc(it->ev, -1);
	put("\" data-seq=\"");
	esc(find_kv(it, "seq") ? find_kv(it, "seq") : "", -1);
	put("\" data-conn=\"");
	esc(find_kv(it, "conn"), -1);
	put("\"");
	if (tx != NULL) {
		P(" data-from=\"lane%d\" data-tx=\"", tx->lane);
		put_fileline(tx);
		put("\"");
	} else {
		put(" data-from=\"\" data-tx=\"missing\"");
	}
	if (rx != NULL) {
		P(" data-to=\"lane%d\" data-rx=\"", rx->lane);
		put_fileline(rx);
		put("\"");
		if (find_kv(rx, "bad") != NULL) {
			put(" data-bad=\"");
			esc(find_kv(rx, "bad"), -1);
			put("\"");
		}
	} else {
		put(" data-to=\"\" data-rx=\"missing\"");
	}
	put(">");
}

/* A frame's words from @x toward @dir, up to the next lifeline. */
static void put_frame_text(int x, int y, int dir, const char *text)
{
	int lo, hi, room;

	lane_room(x, &lo, &hi);
	room = dir > 0 ? hi - x - 4 : x - lo - 4;
	int max = (int)(room / (CHAR_W * 10 / 11));

	if (max > MAX_CHARS)
		max = MAX_CHARS;
	P("<text class=\"lbl\" x=\"%d\" y=\"%d\" text-anchor=\"%s\">", x, y,
	  dir > 0 ? "start" : "end");
	esc_cut(text, max);
	put("</text>");
}

/* A tx, with its arrow to the rx (or a stub); an rx without tx. */
static void put_frame(const struct item *it)
{
	const struct family *fam = family_of(it->ev);
	const struct item *rx = NULL, *tx = NULL;
	char label[512];
	int x1, y1, x2, y2, dir;

	if (it->kind == K_TX) {
		tx = it;
		if (it->match >= 0 && items[it->match].shown)
			rx = &items[it->match];
	} else {
		rx = it;
		if (it->match >= 0 && items[it->match].shown)
			return;		/* drawn with its tx */
	}
	frame_label(it, label, sizeof(label), 0);
	put_frame_attrs(tx, rx, fam);
	put_title(it);
	if (tx != NULL && rx != NULL) {
		x1 = lanes[tx->lane].x;
		x2 = lanes[rx->lane].x;
		dir = x2 >= x1 ? 1 : -1;
		y1 = tx->y + 15;
		y2 = rx->y + 4;
		put_frame_text(x1 + dir * 6, tx->y + 12, dir, label);
	} else if (tx != NULL) {
		/* Nothing received it: a stub that ends in a cross, then the
		 * label, on the line. */
		dir = peer_dir(tx);
		x1 = lanes[tx->lane].x;
		x2 = x1 + dir * STUB;
		y1 = y2 = tx->y + 9;
		put_frame_text(x2 + dir * 9, tx->y + 13, dir, label);
	} else {
		/* Nobody's tx: it comes from a circle, the label before it. */
		dir = -peer_dir(rx);
		x2 = lanes[rx->lane].x;
		x1 = x2 - dir * STUB;
		y1 = y2 = rx->y + 9;
		put_frame_text(x1 - dir * 8, rx->y + 13, -dir, label);
	}
	put_line(x1, y1, x2, y2, fam, rx != NULL);
	if (tx != NULL && rx == NULL)
		P("<path class=\"stubmark\" d=\"M%d,%dl8,8m0,-8l-8,8\" "
		  "stroke=\"%s\"/>", x2 - 4, y2 - 4, fam->color);
	if (tx == NULL)
		P("<circle class=\"stubmark\" cx=\"%d\" cy=\"%d\" r=\"3.5\" "
		  "stroke=\"%s\"/>", x1, y1, fam->color);
	if (rx != NULL && find_kv(rx, "bad") != NULL) {
		char bad[300];

		snprintf(bad, sizeof(bad), "refused: %s", find_kv(rx, "bad"));
		put_note(rx, "bad", bad, rx->y + (rx->h - ROW));
	}
	put("</g>\n");
}

/*
 * An RDMA its initiator did itself in the target's memory: a dashed arrow
 * on its row between the two EPs' lifelines, the way the bytes went, its
 * words along it, and nothing on the target's side, whose CPU took no
 * part; a note on the initiator's lifeline when the target is not drawn.
 * <g class="place arrow|note write|read">, with data-from and data-to
 * (lanes) for an arrow, data-lane for a note.
 */
static void put_place(const struct item *it)
{
	char label[512];
	int from, to, arrow = place_arrow(it, &from, &to) == 0;

	place_label(it, label, sizeof(label), 0, 0);
	P("<g class=\"place %s %s\" data-op=\"", arrow ? "arrow" : "note",
	  place_is_read(it) ? "read" : "write");
	esc(it->ev, -1);
	put("\" data-conn=\"");
	esc(find_kv(it, "conn"), -1);
	put("\"");
	if (arrow)
		P(" data-from=\"lane%d\" data-to=\"lane%d\"", from, to);
	else
		P(" data-lane=\"lane%d\"", it->lane);
	put_origin(it);
	put(">");
	put_title(it);
	if (arrow) {
		int x1 = lanes[from].x, x2 = lanes[to].x;
		int dir = x2 > x1 ? 1 : -1;

		put_frame_text(x1 + dir * 6, it->y + 12, dir, label);
		put_line(x1, it->y + 15, x2, it->y + 15, place_family, 1);
	} else {
		put_note(it, "place", label, it->y);
	}
	put("</g>\n");
}

/* Under an RNR wait's note: what InfiniBand would do, and softdapl does. */
static void put_contrast(const struct item *it)
{
	int i, chars = 0, x;

	for (i = 0; rnr_contrast[i] != NULL; i++)
		if (text_len(rnr_contrast[i]) > chars)
			chars = text_len(rnr_contrast[i]);
	x = lanes[it->lane].x - (int)(chars * SMALL_W) / 2;
	if (x + (int)(chars * SMALL_W) > width - 4)
		x = width - 4 - (int)(chars * SMALL_W);
	if (x < LEFT + 2)
		x = LEFT + 2;
	for (i = 0; rnr_contrast[i] != NULL; i++)
		;
	P("<rect class=\"contrastbox\" x=\"%d\" y=\"%d\" width=\"%d\" "
	  "height=\"%d\" rx=\"3\"/>", x - 4, it->y + ROW,
	  (int)(chars * SMALL_W) + 8, i * ROW_SMALL + 4);
	for (i = 0; rnr_contrast[i] != NULL; i++) {
		P("<text class=\"lbl contrast\" x=\"%d\" y=\"%d\">", x,
		  it->y + ROW + (i + 1) * ROW_SMALL);
		esc(rnr_contrast[i], -1);
		put("</text>");
	}
}

static void put_item(const struct item *it)
{
	char text[1200], c[48];
	const char *cls, *v;

	if (it->h >= ROW)
		P("<text class=\"lbl time\" x=\"4\" y=\"%d\">%s</text>",
		  it->y + 12, time_label(it->t, c, sizeof(c)));
	if (it->kind == K_TX || it->kind == K_RX) {
		put_frame(it);
		return;
	}
	if (it->kind == K_PLACE) {
		put_place(it);
		return;
	}
	note_text(it, text, sizeof(text), 0);
	switch (it->kind) {
	case K_API:
		v = find_kv(it, "ret");
		cls = v && strcmp(v, "DAT_SUCCESS") != 0 ? "api fail" : "api";
		P("<g class=\"%s\" data-lane=\"lane%d\" data-call=\"", cls,
		  it->lane);
		esc(it->ev, -1);
		put("\" data-ret=\"");
		esc(v ? v : "", -1);
		put("\"");
		break;
	case K_DTO:
		v = find_kv(it, "status");
		cls = v && strcmp(v, "DAT_DTO_SUCCESS") == 0 ? "dto ok" :
			"dto err";
		P("<g class=\"%s\" data-lane=\"lane%d\" data-op=\"", cls,
		  it->lane);
		esc(it->ev, -1);
		put("\" data-status=\"");
		esc(v ? v : "", -1);
		put("\"");
		break;
	case K_STATE:
		cls = "state";
		P("<g class=\"state\" data-lane=\"lane%d\" data-from=\"",
		  it->lane);
		esc(it->ev, -1);
		put("\" data-to=\"");
		esc(find_kv(it, "to") ? find_kv(it, "to") : "", -1);
		put("\"");
		break;
	case K_RNR:
		cls = "rnr";
		P("<g class=\"rnr %s\" data-lane=\"lane%d\" data-seq=\"",
		  it->ev, it->lane);
		esc(find_kv(it, "seq") ? find_kv(it, "seq") : "", -1);
		put("\"");
		break;
	case K_EVENT:
		cls = "event";
		P("<g class=\"event\" data-lane=\"lane%d\" data-event=\"",
		  it->lane);
		esc(it->ev, -1);
		put("\"");
		break;
	default:
		cls = "error";
		P("<g class=\"error\" data-lane=\"lane%d\"", it->lane);
		break;
	}
	put_origin(it);
	put(">");
	put_title(it);
	put_note(it, cls, text, it->y);
	if (rnr_is_wait(it))
		put_contrast(it);
	put("</g>\n");
}

/*
 * The folded waits: a band across the lifelines with zigzag edges, where
 * the time scale breaks (before the rows, @labels 0), and its words, "305
 * ms pass", over whatever crosses it (after them, @labels 1).
 * <g class="fold" data-us="GAP" data-y="TOP" data-h="HEIGHT">.
 */
static void put_folds(int labels)
{
	int i, h = fold_px(), x0 = 2, x1 = width - 2;

	for (i = 0; i < norder; i++) {
		const struct item *it = &items[order[i]];
		char text[64];
		int x, y, w, bottom;

		if (!it->shown || !it->fold)
			continue;
		y = it->fold_y;
		if (!labels) {
			P("<g class=\"fold\" data-us=\"%lld\" data-y=\"%d\" "
			  "data-h=\"%d\"><rect class=\"foldband\" x=\"%d\" "
			  "y=\"%d\" width=\"%d\" height=\"%d\"/>",
			  (long long)it->gap, y, h, x0, y + 4, x1 - x0, h - 8);
			/* Zigzag edges, the bottom one a mirror of the top. */
			for (bottom = 0; bottom < 2; bottom++) {
				P("<path class=\"foldedge\" d=\"M%d,%d", x0,
				  bottom ? y + h - 4 : y + 4);
				for (x = x0; x + 8 <= x1; x += 8)
					P("l4,%dl4,%d", bottom ? 3 : -3,
					  bottom ? -3 : 3);
				put("\"/>");
			}
			put("</g>\n");
			continue;
		}
		fold_label(it->gap, text, sizeof(text));
		w = (int)(text_len(text) * CHAR_W) + 12;
		x = LEFT + nshown_lanes * lane_w / 2;
		P("<g class=\"foldlabel\"><rect class=\"foldlbl\" x=\"%d\" "
		  "y=\"%d\" width=\"%d\" height=\"16\" rx=\"8\"/>"
		  "<text class=\"lbl fold\" x=\"%d\" y=\"%d\" "
		  "text-anchor=\"middle\">", x - w / 2, y + h / 2 - 8, w, x,
		  y + h / 2 + 4);
		esc(text, -1);
		put("</text></g>\n");
	}
}

/*
 * The headers of the processes and lifelines, drawn last so that the page's
 * script can keep them at the top of the window (over the rows) while the
 * reader scrolls; their backdrop shows only then.
 */
static void put_headers(void)
{
	int i, j;

	put("<g class=\"headers\">");
	P("<rect class=\"hdrbg\" x=\"0\" y=\"0\" width=\"%d\" "
	  "height=\"%d\"/>\n", width, TOP - 8);
	for (i = 0; i < nshown_lanes;) {
		int p = lanes[lane_order[i]].proc;

		for (j = i; j < nshown_lanes && lanes[lane_order[j]].proc == p; j++)
			;
		P("<text class=\"lbl pid\" x=\"%d\" y=\"15\">pid %ld</text>\n",
		  lanes[lane_order[i]].x - lane_w / 2 + 9, procs[p].pid);
		i = j;
	}
	for (i = 0; i < nshown_lanes; i++) {
		struct lane *l = &lanes[lane_order[i]];
		char buf[96];
		int bw = lane_w - 16;

		P("<g class=\"lanehead\" data-lane=\"lane%d\">", lane_order[i]);
		P("<rect class=\"hdrbox%s\" x=\"%d\" y=\"24\" width=\"%d\" "
		  "height=\"%d\" rx=\"4\"/>", l->kind == L_EP ? " ep" : "",
		  l->x - bw / 2, bw, l->kind == L_PROC ? 22 : 48);
		P("<text class=\"lbl hdr\" x=\"%d\" y=\"39\" "
		  "text-anchor=\"middle\">", l->x);
		esc(lane_label(l, buf, sizeof(buf)), (int)((bw - 6) / CHAR_W));
		put("</text>");
		if (l->nconn > 0) {
			const char *gt = strchr(l->conn, '>');
			int n = gt ? (int)(gt - l->conn) : (int)strlen(l->conn);
			int max = (int)((bw - 6) / SMALL_W);

			P("<text class=\"lbl addr\" x=\"%d\" y=\"53\" "
			  "text-anchor=\"middle\">", l->x);
			snprintf(buf, sizeof(buf), "local %.*s", n, l->conn);
			esc(buf, max);
			put("</text>");
			P("<text class=\"lbl addr\" x=\"%d\" y=\"65\" "
			  "text-anchor=\"middle\">", l->x);
			snprintf(buf, sizeof(buf), "peer %s%s", gt ? gt + 1 : "?",
				 l->nconn > 1 ? " (+more)" : "");
			esc(buf, max);
			put("</text>");
		}
		put("</g>\n");
	}
	put("</g>\n");
}

/* What the colours and marks mean, under the rows of a picture. */
static const char *const legend_notes[] = {
	"\xe2\x9c\x93 done", "\xe2\x9c\x97 flushed/error",
	"\xe2\x87\x92 state", "\xe2\x9a\x91 event",
	"\xe2\x9c\x95 not received", "\xe2\x97\x8b tx not traced",
	"+ms: after the first line",
	"\xe2\x89\x88 a long wait, folded",
	"\xe2\x96\xae receiver not ready (RNR): not reading",
};

/* The last of legend_notes, only when an RNR wait is drawn. */
#define LEGEND_RNR	1

/* Draws the legend if @draw; returns its rows. */
static int legend_rows(int draw)
{
	size_t i, n = NFAMILIES;
	size_t m = sizeof(legend_notes) / sizeof(legend_notes[0]) -
		   (rnr_shown() ? 0 : LEGEND_RNR);
	size_t k = who_shown() ? NTHREADS : 0;
	int x = LEFT, rows = 1;

	for (i = 0; i < n + m + k; i++) {
		const struct thread_kind *th = i >= n + m ?
			&threads[i - n - m] : NULL;
		char who[96];
		const char *t;
		int w;

		if (th != NULL)
			t = thread_legend(th, who, sizeof(who));
		else
			t = i < n ? families[i].label : legend_notes[i - n];
		w = (i < n ? 24 : 0) + (int)(text_len(t) * CHAR_W) + 16;

		if (x + w > width - 4 && x > LEFT) {
			rows++;
			x = LEFT;
		}
		if (draw) {
			int y = body_height + 4 + (rows - 1) * ROW;

			if (i < n)
				put_line(x, y + 9, x + 18, y + 9,
					 &families[i], 1);
			P("<text class=\"lbl\" x=\"%d\" y=\"%d\">",
			  x + (i < n ? 24 : 0), y + 13);
			if (th != NULL)
				P("<tspan class=\"by-%s\">", th->tags[0]);
			esc(t, -1);
			if (th != NULL)
				put("</tspan>");
			put("</text>");
		}
		x += w;
	}
	return rows;
}

/*
 * A picture's --notice: the title in bold, then the notice's lines wrapped
 * to the picture's width, in a band above the lane headers; drawn if
 * @draw. Returns the band's height in pixels (0 without --notice).
 */
#define NOTICE_ROW	15
static int put_notice(int draw, const char *title)
{
	int i, rows = 0, max = (int)((width - 16) / CHAR_W);

	if (nnotice == 0)
		return 0;
	if (draw) {
		put("<g class=\"notice\"><text class=\"lbl hdr title\" "
		    "x=\"8\" y=\"18\">");
		esc(title, max);
		put("</text>\n");
	}
	for (i = 0; i < nnotice; i++) {
		const char *s = notice[i];
		int cut, next;

		while (*s != '\0') {
			cut = wrap_cut(s, max, &next);
			rows++;
			if (draw) {
				/* The row alone, whatever its length. */
				char *row = memcpy(xrealloc(NULL, (size_t)cut + 1),
						   s, (size_t)cut);

				row[cut] = '\0';
				P("<text class=\"lbl\" x=\"8\" y=\"%d\">",
				  18 + rows * NOTICE_ROW);
				esc(row, -1);
				put("</text>\n");
				free(row);
			}
			s += next;
		}
	}
	if (draw)
		put("</g>\n");
	return 18 + rows * NOTICE_ROW + 12;
}

static void put_svg(int standalone, const char *title)
{
	/* A picture's notice: a band on top, everything else below it. */
	int i, row = 0, band = standalone ? put_notice(0, title) : 0;

	P("<svg %sclass=\"seq\" width=\"%d\" height=\"%d\" "
	  "viewBox=\"0 0 %d %d\">\n", standalone ?
	  "xmlns=\"http://www.w3.org/2000/svg\" " : "", width,
	  height + band, width, height + band);
	if (standalone) {
		put("<title>");
		esc(title, -1);
		P("</title>\n<style>%s%s", css, rnr_shown() ? rnr_css : "");
		put_threads_css();
		put("</style>\n");
	}
	if (band > 0) {
		put_notice(1, title);
		P("<g transform=\"translate(0,%d)\">\n", band);
	}
	put_marker_defs();
	put("\n");
	if (!standalone)
		page_content_open(out, width, body_height);
	put_lanes();
	put_rnr_bands();
	put_folds(0);
	for (i = 0; i < norder; i++) {
		const struct item *it = &items[order[i]];

		if (!it->shown)
			continue;
		/* The page: each row a group of its own, to step through. */
		if (!standalone && row_drawn(it))
			page_row_open(out, it, row++);
		put_item(it);
		if (!standalone && row_drawn(it))
			page_row_close(out);
	}
	put_folds(1);
	if (!standalone)
		page_content_close(out, width);
	if (standalone) {
		put("<g class=\"legend\">");
		legend_rows(1);
		put("</g>\n");
	}
	put_headers();
	if (band > 0)
		put("</g>\n");
	put("</svg>\n");
}

/*
 * The page's self-check, for developers and tests: no two texts overlap,
 * no row's text is over a lifeline but its own, and every arrow (a
 * frame's or a placed RDMA's) starts and ends on the lifeline of its lane
 * (a stub on one of them), within its extent. seqSelfcheck() returns
 * "selfcheck: ok ..." or "selfcheck: FAIL N: ..."; the page's script
 * runs it for #selfcheck or --selfcheck only (softdapl-seq-page.c).
 */
static const char *const selfcheck_js =
	"function seqSelfcheck(){\n"
	"var svg=document.querySelector('svg.seq'),bad=[],i,j;\n"
	"var t=[].slice.call(svg.querySelectorAll('text')).filter(function(e){\n"
	" return e.getClientRects().length>0;}).map(function(e){\n"
	" var b=e.getBBox();return{e:e,x:b.x,y:b.y,w:b.width,h:b.height};});\n"
	"t.sort(function(a,b){return a.y-b.y;});\n"
	"for(i=0;i<t.length;i++)for(j=i+1;j<t.length&&t[j].y<t[i].y+t[i].h-0.5;"
	"j++){var a=t[i],b=t[j];\n"
	" if(a.w>0&&b.w>0&&a.x<b.x+b.w-0.5&&b.x<a.x+a.w-0.5)\n"
	"  bad.push('overlap: \"'+a.e.textContent+'\" / \"'+b.e.textContent+'\"');}\n"
	"var lanes={};[].forEach.call(svg.querySelectorAll('g.lifeline'),"
	"function(g){\n"
	" lanes[g.id]={x:+g.dataset.x,top:+g.dataset.top,\n"
	"  bottom:+g.dataset.bottom};});\n"
	"function on(id,x,y){var l=lanes[id];return l&&Math.abs(l.x-x)<0.5&&"
	"y>=l.top&&y<=l.bottom;}\n"
	"var fr=svg.querySelectorAll('g.frame'),"
	"pl=svg.querySelectorAll('g.place.arrow');\n"
	"[].concat([].slice.call(fr),[].slice.call(pl)).forEach(function(g){\n"
	" var l=g.querySelector('line'),\n"
	" x1=+l.getAttribute('x1'),y1=+l.getAttribute('y1'),"
	"x2=+l.getAttribute('x2'),y2=+l.getAttribute('y2'),\n"
	" f=g.dataset.from,to=g.dataset.to,ok=true;\n"
	" if(f&&!on(f,x1,y1))ok=false;if(to&&!on(to,x2,y2))ok=false;\n"
	" if(!f&&!to)ok=false;if(f&&to&&y2<y1)ok=false;\n"
	" if(!ok)bad.push('arrow off its lifelines: '+g.dataset.op+"
	"(g.dataset.seq?' #'+g.dataset.seq:''));});\n"
	"t.forEach(function(a){var r=a.e.closest('g.row'),own;\n"
	" if(!r||a.w<=0||a.e.classList.contains('contrast'))return;\n"
	" own=r.dataset.lanes.split(' ');\n"
	" Object.keys(lanes).forEach(function(id){var l=lanes[id];\n"
	"  if(own.indexOf(id)<0&&l.x>a.x+0.5&&l.x<a.x+a.w-0.5&&"
	"a.y<l.bottom&&a.y+a.h>l.top)\n"
	"   bad.push('over lifeline '+id+': \"'+a.e.textContent+'\"');});});\n"
	"var r=bad.length?'selfcheck: FAIL '+bad.length+': '+bad.slice(0,5)."
	"join('; '):\n"
	" 'selfcheck: ok '+t.length+' labels, '+fr.length+' frames, '+"
	"Object.keys(lanes).length+' lifelines'+"
	"(pl.length?', '+pl.length+' placed':'');\n"
	"return r;}\n";

/* The page, to @f; svg_layout(0) has run. Errors are left in @f. */
void write_html(FILE *f, const char *title)
{
	out = f;
	put("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	    "<title>");
	esc(title, -1);
	P("</title>\n<style>body{margin:8px;font-family:sans-serif}"
	  "h1{font-size:15px;margin:0 0 4px}"
	  "#notice{font-size:13px;max-width:60em;margin:0 0 6px}"
	  "#legend{font-size:12px;color:#455a64;margin:0 0 6px}"
	  "#legend span{margin-right:12px}"
	  "%s%s", css, rnr_shown() ? rnr_css : "");
	page_head(out);
	put_threads_css();
	put("</style>\n</head><body>\n<h1>");
	esc(title, -1);
	put("</h1>\n");
	if (nnotice > 0) {
		/* --notice: a paragraph, its lines as the file has them. */
		int i;

		put("<p id=\"notice\">");
		for (i = 0; i < nnotice; i++) {
			put(i > 0 ? "<br>\n" : "");
			esc(notice[i], -1);
		}
		put("</p>\n");
	}
	put("<div id=\"legend\">");
	{
		size_t i;

		for (i = 0; i < NFAMILIES; i++)
			P("<span style=\"color:%s\">\xe2\x96\xac %s</span>",
			  families[i].color, families[i].label);
	}
	put("<span>\xe2\x9c\x93/\xe2\x9c\x97 completion</span>"
	    "<span>\xe2\x87\x92 state</span><span>\xe2\x9a\x91 event</span>"
	    "<span>\xe2\x9c\x95 frame not received</span>"
	    "<span>\xe2\x97\x8b frame whose tx is missing</span>"
	    "<span>+ms: time after the first line</span>"
	    "<span>\xe2\x89\x88 a long wait, folded</span>");
	if (rnr_shown())
		put("<span>\xe2\x96\xae receiver not ready (RNR): not "
		    "reading</span>");
	if (who_shown()) {
		char who[96];
		size_t i;

		put("<br>Whose thread did it, before a label ([sender&gt;"
		    "receiver] on a frame): ");
		for (i = 0; i < NTHREADS; i++)
			P("<span class=\"by-%s\">%s</span>",
			  threads[i].tags[0],
			  thread_legend(&threads[i], who, sizeof(who)));
	}
	put("</div>\n<div id=\"lanes\">Lifelines: </div>\n");
	put_svg(0, title);
	page_tail(out, selfcheck_js);
	put("</body></html>\n");
}

/* The picture, to @f; svg_layout(1) has run. Errors are left in @f. */
void write_svg(FILE *f, const char *title)
{
	out = f;
	put("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	put_svg(1, title);
}
