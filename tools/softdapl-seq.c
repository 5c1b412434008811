/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl-seq: softdapl traces (provider/TRACE.md) drawn as a sequence
 * diagram, a self-contained HTML page, a plain SVG or plain ASCII text.
 *
 *   softdapl-seq [-o FILE.html|FILE.svg|FILE.txt] [options] [TRACE...]
 *
 * One lifeline per EP (and per service point and SRQ, and one per process
 * for the other objects), grouped by process. Every line of the traces is
 * one row, in time order: api calls, completions, state changes, events
 * and errors as notes on their lifeline, frames as arrows from the tx line
 * on the sender's lifeline to the matching rx line on the receiver's. A tx
 * matches the rx of the same seq on the same connection seen from the
 * other side (conn reversed); a frame without its other half ends in a
 * stub. An RDMA that its initiator placed in the target's memory itself
 * (a place line: no frame, nothing traced by the target) is an arrow of
 * its own style to or from the EP at the other end of its connection
 * (found the same way), or a note on the initiator's EP when that one is
 * not drawn. Rows are in causal order (provider/TRACE.md, TIME): each
 * file's order, except that a call's row goes above the rows of what it
 * caused (its api line is stamped at its entry but written when it
 * returns), and a frame's rx below its tx whatever the clocks say;
 * otherwise they follow the timestamps. Times are milliseconds after the
 * first line ("+304.709 ms") on every output; in the pictures the room
 * between two rows grows with the time between them (--even: none), and
 * a wait of --fold or more (1 ms) is a band that says how long it was
 * ("300 ms pass"), a row "... 300 ms pass ..." in the text. --notice
 * adds a few lines of the reader's own under the title of every output.
 *
 * Because every row holds exactly one item, no two labels can overlap,
 * and a label is cut to the room between the lifelines beside it. The
 * HTML page teaches: the keys step through the rows, a click shows an
 * operation's path, setup and teardown fold, lifelines can be hidden
 * (softdapl-seq-page.c). Its developers' check of the drawing (overlaps,
 * labels over lifelines, arrows off them) runs for #selfcheck or
 * --selfcheck and writes its result to the title and a hidden
 * <div id="selfcheck">. The text output has the same rows.
 *
 * Needs nothing but libc. Exit status: 0 when something was drawn (lines
 * that could not be parsed are reported on stderr with file:line and
 * skipped), 1 when nothing could be drawn or the output failed, 2 on bad
 * usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "softdapl-seq.h"

/* Options (softdapl-seq.h), set once by main before the steps run. */
int opt_hide_acks;
int opt_no_process;
int opt_even;
/* A wait this long (microseconds) or longer is folded: 1 ms. */
#define FOLD_DEFAULT	1000
int64_t opt_fold = FOLD_DEFAULT;
int opt_have_from, opt_have_to;
int64_t opt_from, opt_to;
char **opt_eps;
int opt_neps;
static const char *opt_from_s, *opt_to_s;
static const char *opt_title;

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (q == NULL) {
		fprintf(stderr, "softdapl-seq: out of memory\n");
		exit(1);
	}
	return q;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xrealloc(NULL, n), s, n);
}

/* ------------------------------------------------------------------------
 * main
 */

static void usage(FILE *f)
{
	fputs(
"usage: softdapl-seq [-o FILE] [options] [TRACE...]\n"
"\n"
"Draws softdapl traces (SOFTDAPL_TRACE, provider/TRACE.md) as a sequence\n"
"diagram: one lifeline per EP, grouped by process; calls, completions,\n"
"state changes and events as notes; frames as arrows from sender to\n"
"receiver; RDMA that the initiator placed itself (no frame) as dashed\n"
"arrows. Several traces (the peers of one session) are merged by time.\n"
"Without TRACE, or with -, reads standard input.\n"
"\n"
"  -o, --output FILE     write FILE: .html (a page), .svg (a picture) or\n"
"                        .txt (plain text); - or none: standard output,\n"
"                        as HTML unless --format or --text says otherwise\n"
"  -f, --format FMT      html, svg or text, whatever the file is called\n"
"  -T, --text            plain ASCII text (--format text)\n"
"  -W, --width COLS      text: columns per line, at most (default 100)\n"
"  -e, --ep LIST         show only these lifelines, comma-separated:\n"
"                        ep2, psp1, srq1 (in every process), 4711:ep2,\n"
"                        4711:proc, or 4711 (all of a process)\n"
"  -P, --no-process      hide the process lifelines (objects other than\n"
"                        EPs, service points and SRQs)\n"
"  -a, --hide-acks       hide ACK frames\n"
"  -E, --even            pictures: rows evenly spaced (by default the\n"
"                        room between two rows grows with the time\n"
"                        between them)\n"
"      --fold MS         fold each wait of MS milliseconds or more into\n"
"                        a band (a row in text) that says how long it\n"
"                        was: \"305 ms pass\" (default 1; 0: never)\n"
"      --from TIME       drop lines before TIME: HH:MM:SS[.uuuuuu], or\n"
"                        +SECONDS after the first line\n"
"      --to TIME         drop lines after TIME (same forms)\n"
"  -t, --title TEXT      the page's title (default: the file names)\n"
"      --notice FILE     print the lines of FILE under the title (what\n"
"                        a reader should notice), wrapped to the width\n"
"  -w, --lane-width PX   pixels between lifelines (default 210)\n"
"      --selfcheck       page: run the developers' check of the drawing\n"
"                        at load (else only for the URL's #selfcheck);\n"
"                        its result goes to the title\n"
"  -h, --help            this text\n"
"\n"
"The page: Right/j/Space and Left/k step through the rows, a click on a\n"
"row shows its operation's path, f folds setup and teardown, boxes above\n"
"hide lifelines; the URL's #step=N, #path=P, #ep=NAME, #unfold do the\n"
"same (softdapl-seq(1)). It needs no network.\n"
"\n"
"Rows are in causal order: a call above what it caused, a frame's tx\n"
"above its rx. Times are milliseconds after the first line, \"+1.234 ms\",\n"
"in every output.\n"
"Lines that cannot be parsed are reported as FILE:LINE and skipped.\n"
"Exit status: 0 when something was drawn, 1 when nothing could be,\n"
"2 on bad usage.\n", f);
}

/* --from/--to: absolute, or "+seconds" relative to @first. */
static int parse_when(const char *s, int64_t first, int64_t *t)
{
	if (s[0] == '+') {
		char *end;
		double d;

		errno = 0;
		d = strtod(s + 1, &end);
		if (errno != 0 || *end != '\0' || end == s + 1 || d < 0)
			return -1;
		*t = first + (int64_t)(d * 1e6 + 0.5);
		return 0;
	}
	*t = parse_clock(s);
	return *t < 0 ? -1 : 0;
}

/* A number of milliseconds, 0 or more, as microseconds into *@us. */
static int parse_ms(const char *s, int64_t *us)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (errno != 0 || *end != '\0' || end == s || !(d >= 0) || d > 1e9)
		return -1;
	*us = (int64_t)(d * 1000 + 0.5);
	return 0;
}

static void split_eps(char *list)
{
	char *tok, *save = NULL;

	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		opt_eps = xrealloc(opt_eps, (size_t)(opt_neps + 1) *
				   sizeof(*opt_eps));
		opt_eps[opt_neps++] = tok;
	}
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' },
		{ "ep", required_argument, NULL, 'e' },
		{ "no-process", no_argument, NULL, 'P' },
		{ "hide-acks", no_argument, NULL, 'a' },
		{ "from", required_argument, NULL, 'F' },
		{ "to", required_argument, NULL, 'O' },
		{ "title", required_argument, NULL, 't' },
		{ "lane-width", required_argument, NULL, 'w' },
		{ "text", no_argument, NULL, 'x' },
		{ "width", required_argument, NULL, 'W' },
		{ "even", no_argument, NULL, 'E' },
		{ "fold", required_argument, NULL, 'L' },
		{ "notice", required_argument, NULL, 'N' },
		{ "selfcheck", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *output = NULL, *format = NULL;
	char *eplist = NULL, title[1024], *end;
	FILE *out;
	size_t n;
	int c, i, svg, text, shown = 0, ret = 0, width = TEXT_WIDTH;
	int64_t first = -1;

	while ((c = getopt_long(argc, argv, "o:f:e:PaEt:w:TW:h", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'o': output = optarg; break;
		case 'f': format = optarg; break;
		case 'e':
			/* Repeated -e add up: split once, after the options. */
			n = eplist ? strlen(eplist) + 1 : 0;
			eplist = xrealloc(eplist, n + strlen(optarg) + 1);
			if (n > 0)
				eplist[n - 1] = ',';
			strcpy(eplist + n, optarg);
			break;
		case 'P': opt_no_process = 1; break;
		case 'E': opt_even = 1; break;
		case 'L':
			if (parse_ms(optarg, &opt_fold) < 0) {
				fprintf(stderr, "softdapl-seq: --fold %s: want "
					"milliseconds, 0 or more\n", optarg);
				ret = 2;
				goto out;
			}
			break;
		case 'a': opt_hide_acks = 1; break;
		case 'F': opt_from_s = optarg; break;
		case 'O': opt_to_s = optarg; break;
		case 't': opt_title = optarg; break;
		case 'N':
			/* Once: a second --notice would mean two texts. */
			if (nnotice > 0) {
				fprintf(stderr, "softdapl-seq: --notice given "
					"twice\n");
				ret = 2;
				goto out;
			}
			if (read_notice(optarg) < 0) {
				ret = 2;
				goto out;
			}
			break;
		case 'w':
			lane_w = atoi(optarg);
			if (lane_w < 120 || lane_w > 1000) {
				fprintf(stderr, "softdapl-seq: --lane-width %s: "
					"want 120 to 1000 pixels\n", optarg);
				ret = 2;
				goto out;
			}
			break;
		case 'x':
		case 'T': format = "text"; break;
		case 'W':
			errno = 0;
			width = (int)strtol(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || end == optarg ||
			    width < TEXT_MIN_WIDTH || width > TEXT_MAX_WIDTH) {
				fprintf(stderr, "softdapl-seq: --width %s: "
					"want %d to %d columns\n", optarg,
					TEXT_MIN_WIDTH, TEXT_MAX_WIDTH);
				ret = 2;
				goto out;
			}
			break;
		case 'S': opt_selfcheck = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); ret = 2; goto out;
		}
	}
	if (format != NULL && strcmp(format, "html") != 0 &&
	    strcmp(format, "svg") != 0 && strcmp(format, "text") != 0) {
		fprintf(stderr, "softdapl-seq: --format %s: want html, svg or "
			"text\n", format);
		ret = 2;
		goto out;
	}
	if (output != NULL && strcmp(output, "-") == 0)
		output = NULL;		/* standard output */
	if (format == NULL && output != NULL && !ends_with(output, ".svg") &&
	    !ends_with(output, ".html") && !ends_with(output, ".htm") &&
	    !ends_with(output, ".txt")) {
		fprintf(stderr, "softdapl-seq: %s: name it .html, .svg or "
			".txt, or give --format\n", output);
		ret = 2;
		goto out;
	}
	if (eplist != NULL)
		split_eps(eplist);
	svg = format ? strcmp(format, "svg") == 0 :
		output != NULL && ends_with(output, ".svg");
	text = format ? strcmp(format, "text") == 0 :
		output != NULL && ends_with(output, ".txt");

	if (optind == argc) {
		/* A first run without arguments: say what it wants, not hang. */
		if (isatty(STDIN_FILENO)) {
			fprintf(stderr, "softdapl-seq: no trace given: name trace files "
				"(SOFTDAPL_TRACE=FILE) or pipe one in; --help for more\n");
			return 2;
		}
		read_trace("-");
	} else {
		for (i = optind; i < argc; i++)
			if (read_trace(argv[i]) < 0)
				ret = 1;
	}
	for (i = 0; i < nitems; i++)
		if (first < 0 || items[i].t < first)
			first = items[i].t;
	t_origin = first;
	if ((opt_from_s && parse_when(opt_from_s, first, &opt_from) < 0) ||
	    (opt_to_s && parse_when(opt_to_s, first, &opt_to) < 0)) {
		fprintf(stderr, "softdapl-seq: bad time %s: want HH:MM:SS[.uuuuuu]"
			" or +SECONDS\n", opt_from_s && parse_when(opt_from_s,
			first, &opt_from) < 0 ? opt_from_s : opt_to_s);
		ret = 2;
		goto out;
	}
	opt_have_from = opt_from_s != NULL;
	opt_have_to = opt_to_s != NULL;

	assign_lanes();
	match_frames();
	order_items();
	apply_filters();
	mark_folds();
	mark_paths();
	for (i = 0; i < nitems; i++)
		shown += items[i].shown;
	if (shown == 0) {
		fprintf(stderr, "softdapl-seq: nothing to draw (%d lines read, "
			"%ld skipped%s)\n", nitems, nbad, nitems ?
			", none left by the filters" : "");
		ret = 1;
		goto out;
	}
	sort_lanes();
	if (text && text_layout(width) < 0) {
		ret = 1;
		goto out;
	}
	if (!text)
		svg_layout(svg);

	if (opt_title != NULL) {
		snprintf(title, sizeof(title), "%s", opt_title);
	} else {
		snprintf(title, sizeof(title), "softdapl trace:");
		for (i = 0; i < nfiles; i++) {
			n = strlen(title);
			snprintf(title + n, sizeof(title) - n, " %s", files[i]);
		}
	}
	out = output ? fopen(output, "w") : stdout;
	if (out == NULL) {
		fprintf(stderr, "softdapl-seq: cannot write %s: %s\n", output,
			strerror(errno));
		ret = 1;
		goto out;
	}
	if (text)
		write_text(out, title);
	else if (svg)
		write_svg(out, title);
	else
		write_html(out, title);
	if (fflush(out) != 0 || ferror(out) ||
	    (out != stdout && fclose(out) != 0)) {
		fprintf(stderr, "softdapl-seq: cannot write %s: %s\n",
			output ? output : "standard output", strerror(errno));
		ret = 1;
	} else {
		ret = 0;	/* a trace that could not be read is not fatal */
	}
	if (ret == 0 && nbad > 0)
		fprintf(stderr, "softdapl-seq: %ld line%s skipped\n", nbad,
			nbad == 1 ? "" : "s");
out:
	for (i = 0; i < nitems; i++)
		free_item(&items[i]);
	free(items);
	free_layout();
	for (i = 0; i < nfiles; i++)
		free(files[i]);
	free(files);
	free(opt_eps);
	free(eplist);
	free_notice();
	return ret;
}
