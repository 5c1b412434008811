/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl-seq's private header: what its parts share.
 *
 * The program is single-threaded and runs in steps, each filling the
 * tables the next one reads:
 *
 *   softdapl-seq-parse.c   read_trace(): lines -> items[], files[]
 *   softdapl-seq-layout.c  assign_lanes(): items -> lanes[], procs[];
 *                          match_frames(): tx <-> rx, place -> the
 *                          target's lane; order_items(): order[], in
 *                          causal order; apply_filters(): shown;
 *                          mark_folds(): gap, fold; sort_lanes():
 *                          lane_order[], the lifelines left to right
 *   softdapl-seq-path.c    mark_paths(): each row's operations (path,
 *                          path2) and part (setup, body, teardown)
 *   softdapl-seq-label.c   the words of a row (frame labels, notes,
 *                          lifeline names), shared by every output
 *   softdapl-seq-svg.c     svg_layout(), write_svg(), write_html()
 *   softdapl-seq-page.c    the page's steps, paths, folds and filters
 *   softdapl-seq-text.c    write_text(): the same rows in plain ASCII
 *   softdapl-seq.c         main: options, the steps in order, cleanup
 *
 * The tables are globals of the file that fills them, declared here;
 * after a step has run they are only read.
 */
#ifndef SOFTDAPL_SEQ_H
#define SOFTDAPL_SEQ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The KIND column, in TRACE.md's order. */
enum kind {
	K_API, K_STATE, K_TX, K_RX, K_PLACE, K_DTO, K_EVENT, K_ERROR, K_RNR,
	K_NKINDS
};

/* What a lane stands for; also its order inside a process. */
enum lane_kind { L_PROC, L_SRQ, L_SP, L_EP };

struct kv {
	const char *k;
	const char *v;
};

/* One parsed trace line. */
struct item {
	int file;		/* index into files[] */
	long lineno;		/* 1-based line number in that file */
	int64_t t;		/* microseconds since midnight (+ days seen) */
	long pid;
	enum kind kind;
	const char *obj;	/* OBJECT column, "-" when none */
	const char *ev;		/* EVENT column */
	struct kv *kv;		/* the key=value pairs, in line order */
	int nkv;
	char *raw;		/* the whole line, for tooltips */
	char *buf;		/* owns obj, ev and the pairs' strings */
	int lane;		/* lanes[] index */
	int match;		/* tx: its rx, rx: its tx, or -1 */
	int peer;		/* place: the target EP's lane, or -1 */
	int emitted;		/* placed in the row order yet */
	int shown;		/* survives the filters */
	int64_t gap;		/* shown: microseconds since the rows above */
	int fold;		/* shown: a folded wait (gap >= opt_fold) above */
	int y, h;		/* the SVG row: top and height in pixels */
	int fold_y;		/* fold: the SVG band's top */
	int path, path2;	/* the operations it is part of, or -1 */
	int part;		/* PART_SETUP, PART_BODY or PART_TEARDOWN */
};

struct lane {
	long pid;
	char name[40];		/* "ep1", "psp1", "srq1" or "" for the process */
	enum lane_kind kind;
	int num;		/* the object's number, for ordering */
	int shown;
	int x;			/* the SVG lifeline's x */
	int proc;		/* procs[] index */
	char conn[96];		/* the first connection seen, LOCAL>REMOTE */
	int nconn;		/* connections seen */
};

struct proc {
	long pid;
	int first;		/* order of appearance */
};

/* softdapl-seq.c: allocation that exits on failure, and the options. */
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

#define GROW(arr, n, a)							\
	do {								\
		if ((n) == (a)) {					\
			(a) = (a) ? 2 * (a) : 64;			\
			(arr) = xrealloc((arr), (size_t)(a) * sizeof(*(arr))); \
		}							\
	} while (0)

extern int opt_hide_acks;
extern int opt_no_process;
extern int opt_even;
extern int64_t opt_fold;	/* microseconds: a longer wait is folded */
extern int opt_have_from, opt_have_to;
extern int64_t opt_from, opt_to;
extern char **opt_eps;
extern int opt_neps;

/* softdapl-seq-parse.c: the trace lines. */
extern struct item *items;	/* each file's lines together, in order */
extern int nitems;
extern char **files;		/* the traces' names, sanitized */
extern int nfiles;
extern long nbad;		/* lines that could not be parsed */

extern int64_t t_origin;	/* the first line's time: times count from it */

/*
 * --notice FILE: a few lines for a reader (what to notice in the picture),
 * written under the title by every output, each line wrapped to its width.
 * read_notice() fills notice[] (its lines that are not blank, sanitized);
 * wrap_cut() returns how many bytes of @s make the next wrapped line of at
 * most @max characters (cut at a space, or inside a longer word) and in
 * *@next where the line after it starts (past the spaces).
 */
#define NOTICE_MAX_LINES	20
extern char **notice;
extern int nnotice;

int read_notice(const char *path);
int wrap_cut(const char *s, int max, int *next);
void free_notice(void);

int64_t parse_clock(const char *s);
int read_trace(const char *path);
const char *find_kv(const struct item *it, const char *key);
void free_item(struct item *it);

/* softdapl-seq-layout.c: lifelines, pairs of frames, rows. */
extern struct lane *lanes;
extern int nlanes;
extern struct proc *procs;
extern int nprocs;
extern int *order;		/* items in row order */
extern int norder;
extern int *lane_order;		/* the shown lanes, left to right */
extern int nshown_lanes;

int obj_num(const char *name, const char *prefix);
int conn_lane(long pid, const char *conn);
const char *conn_reverse(const char *conn, char *buf, size_t len);
void assign_lanes(void);
void match_frames(void);
int place_is_read(const struct item *it);
int place_arrow(const struct item *it, int *from, int *to);
void order_items(void);
void apply_filters(void);
void mark_folds(void);
void sort_lanes(void);
void free_layout(void);

/*
 * softdapl-seq-path.c: the operations and the parts of the session, for
 * the page. Valid after mark_folds(); npaths: the path ids, 0 to npaths - 1.
 */
enum { PART_SETUP, PART_BODY, PART_TEARDOWN };

extern int npaths;
void mark_paths(void);

/*
 * softdapl-seq-label.c: the words of rows. @ascii picks plain ASCII
 * (the text output) over the UTF-8 marks of the pictures.
 */
void frame_label(const struct item *it, char *buf, size_t len, int ascii);
void note_text(const struct item *it, char *buf, size_t len, int ascii);
void place_label(const struct item *it, char *buf, size_t len, int ascii,
		 int brief);
const char *lane_label(const struct lane *l, char *buf, size_t len);

/*
 * Receiver not ready: an `rnr` line's `wait` opens a band on its EP's
 * lifeline that its `resume` closes. rnr_is_wait() tells which; the
 * lines of rnr_contrast (NULL-terminated) say what InfiniBand would do
 * there and what softdapl does instead, under the wait's note.
 */
int rnr_is_wait(const struct item *it);
int rnr_shown(void);	/* a wait is among the rows shown */
extern const char *const rnr_contrast[];

/*
 * Times, the same on every output: a row's as "+304.709 ms", after
 * t_origin (time_label); a wait's as "305 ms", to three figures at most
 * ("12.5 ms", "1.18 ms", "0.350 ms": ms_label); a folded wait's as "305
 * ms pass" (fold_label).
 */
const char *ms_label(int64_t us, char *buf, size_t len);
const char *time_label(int64_t t, char *buf, size_t len);
const char *fold_label(int64_t us, char *buf, size_t len);

/* softdapl-seq-svg.c: pictures and pages. */
extern int lane_w;		/* --lane-width */

void svg_layout(int picture);
void write_svg(FILE *f, const char *title);
void write_html(FILE *f, const char *title);

/*
 * softdapl-seq-page.c: what makes the page teach (keys, paths, folds, the
 * EP filter), called by write_html(). page_row_open() and page_row_close()
 * wrap a row's drawing in <g class="row">; page_content_open() and
 * page_content_close() wrap the rows and lifelines so that the parts can
 * fold (@bottom: the rows' bottom, @width the picture's). page_tail()
 * writes the controls, the style and the script. opt_selfcheck: the
 * developers' self-check runs at load, not only for #selfcheck.
 */
extern int opt_selfcheck;
void page_content_open(FILE *f, int width, int bottom);
void page_content_close(FILE *f, int width);
void page_row_open(FILE *f, const struct item *it, int row);
void page_row_close(FILE *f);
int row_drawn(const struct item *it);
void page_head(FILE *f);
void page_tail(FILE *f, const char *selfcheck_js);

/*
 * softdapl-seq-text.c: the diagram in plain ASCII, @width columns at most
 * (text_layout() fails, saying why, when the lifelines do not fit).
 */
#define TEXT_WIDTH	100
#define TEXT_MIN_WIDTH	40
#define TEXT_MAX_WIDTH	1000

int text_layout(int width);
void write_text(FILE *f, const char *title);

#endif /* SOFTDAPL_SEQ_H */
