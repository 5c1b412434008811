/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The results: statistics of a point's runs, the table on stdout (one row
 * as each point is done), the CSV file, and the plot, which
 * tools/bench-plot draws with gnuplot from the CSV.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "softbench.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median, min and max of @v (sorted in place). */
void sb_stats_of(double *v, int n, struct sb_stats *s)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	s->n = n;
	s->min = v[0];
	s->max = v[n - 1];
	s->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* softdapl's median over transport @i over TCP's; NAN when either is not positive. */
double sb_ratio(const struct sb_row *r, int i)
{
	if (!(r->dat[i].s.median > 0) || !(r->tcp.median > 0))
		return NAN;
	return r->dat[i].s.median / r->tcp.median;
}

/* Four significant digits or so, never an exponent. */
static const char *num(double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (v >= 1000)
		snprintf(buf, len, "%.0f", v);
	else if (v >= 100)
		snprintf(buf, len, "%.1f", v);
	else if (v >= 10)
		snprintf(buf, len, "%.2f", v);
	else
		snprintf(buf, len, "%.3f", v);
	return buf;
}

/*
 * The table, at most 99 columns wide with three transports: test, mode,
 * size, unit; per transport "median (ratio)"; with one transport only,
 * its min and max too; raw TCP's median; fi_pingpong's, in the rows it
 * applies to (none: no column).
 */
#define COL_KEY		"%-15s %-5s %7s %-6s"
#define COL_DAT		" %13s"
#define COL_NUM		" %8s"
#define COL_FI		" %11s"

/* A column's cell, "0.440 (0.103)", of transport @i in @r. */
static const char *dat_cell(const struct sb_row *r, int i, char *buf,
			    size_t len)
{
	char v[32], q[32];

	snprintf(buf, len, "%s (%s)", num(r->dat[i].s.median, v, sizeof(v)),
		 num(sb_ratio(r, i), q, sizeof(q)));
	return buf;
}

/* fi_pingpong's cell of a row it applies to: n/a unmeasured. */
static const char *fi_cell(const struct sb_row *r, char *buf, size_t len)
{
	if (r->fi.n == 0)
		return "n/a";
	return num(r->fi.median, buf, len);
}

static void print_legend(const struct sb_opts *o, const char *where)
{
	int i;

	printf("softbench: softdapl (IA %s) against raw TCP, %s\n", o->ia_name,
	       where);
	printf("  command: %s\n", o->cmdline);
	printf("  softdapl's connections use SOFTDAPL_TRANSPORT=");
	for (i = 0; i < o->ntransports; i++)
		printf("%s%s", i ? ", " : "", o->transports[i]);
	printf(o->ntransports > 1 ? " (a column each)\n" : "\n");
	printf("  %d run%s per point: medians%s; sizes are bytes per message\n",
	       o->reps, o->reps > 1 ? "s" : "", o->ntransports > 1 ?
	       " (min and max in the CSV)" : ", softdapl's min and max");
	printf("  latency: microseconds, one way (half a ping-pong's round trip;"
	       " read-lat: a whole\n  read), LOWER is better, as are KiB/EP"
	       " and %%CPU; MB/s (10^6 B/s) and rates: HIGHER\n");
	printf("  \"v (r)\": softdapl's median v, and r = v / raw TCP's median:"
	       " below 1 favours\n  softdapl where lower is better, above 1"
	       " where higher is better\n");
	if (o->fi != SB_FI_NONE)
		printf("  fi_pingpong: libfabric's tcp provider, fi_pingpong -p tcp"
		       " -e msg, one way (send-lat\n  poll rows only: the same"
		       " ping-pong)\n");
	if (o->fi == SB_FI_MISSING)
		printf("fi_pingpong not found: apt-get install libfabric-bin\n");
	else if (o->fi == SB_FI_REMOTE)
		printf("fi_pingpong: n/a between two hosts (it runs over "
		       "loopback here)\n");
	printf("\n");
}

void sb_report_header(const struct sb_opts *o, const char *where)
{
	char head[32];
	int i;

	print_legend(o, where);
	printf(COL_KEY, "test", "mode", "size", "unit");
	for (i = 0; i < o->ntransports; i++) {
		snprintf(head, sizeof(head), "%s (ratio)", o->transports[i]);
		printf(COL_DAT, head);
	}
	if (o->ntransports == 1)
		printf(COL_NUM COL_NUM, "min", "max");
	printf(COL_NUM, "raw TCP");
	if (o->fi != SB_FI_NONE)
		printf(COL_FI, "fi_pingpong");
	printf("\n");
	fflush(stdout);
}

void sb_report_row(const struct sb_opts *o, const struct sb_row *r)
{
	char sz[32], a[32], b[32];
	int i;

	if (r->size != 0)
		sb_size_str(r->size, sz, sizeof(sz));
	else
		snprintf(sz, sizeof(sz), "-");
	printf(COL_KEY, r->test, r->mode, sz, r->unit);
	for (i = 0; i < o->ntransports; i++)
		printf(COL_DAT, dat_cell(r, i, a, sizeof(a)));
	if (o->ntransports == 1)
		printf(COL_NUM COL_NUM, num(r->dat[0].s.min, a, sizeof(a)),
		       num(r->dat[0].s.max, b, sizeof(b)));
	printf(COL_NUM, num(r->tcp.median, a, sizeof(a)));
	if (r->fi_row)
		printf(COL_FI, fi_cell(r, b, sizeof(b)));
	printf("\n");
	fflush(stdout);
}

/* The CSV's note of transport @i in @r: the row's, then the column's. */
static void csv_note(FILE *f, const struct sb_row *r, int i)
{
	const char *col = r->dat[i].note;

	fprintf(f, "\"%s%s%s\"", r->note, r->note[0] && col[0] ? "; " : "", col);
}

/* One line of the CSV: @r over transport @i. */
static void csv_line(FILE *f, const struct sb_opts *o, const struct sb_row *r,
		     int i)
{
	const struct sb_stats *d = &r->dat[i].s;
	double ratio = sb_ratio(r, i);

	fprintf(f, "%s,%s,%llu,%s,%s,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,",
		r->test, r->mode, (unsigned long long)r->size, r->unit,
		r->lower_better ? "lower" : "higher", d->median, d->min, d->max,
		r->tcp.median, r->tcp.min, r->tcp.max);
	if (!isnan(ratio))
		fprintf(f, "%.4f", ratio);
	fprintf(f, ",%d,%llu,%s,", d->n, (unsigned long long)r->dat[i].iters,
		o->transports[i]);
	if (r->fi_row && r->fi.n > 0)
		fprintf(f, "%.6g", r->fi.median);
	else if (r->fi_row)
		fprintf(f, "n/a");
	fprintf(f, ",");
	csv_note(f, r, i);
	fprintf(f, "\n");
}

/*
 * The CSV: a line per row and transport, the columns of softbench's first
 * CSV and then transport and fi_pingpong (one-way us; empty where it does
 * not apply, n/a unmeasured) before the note, which stays last.
 */
static int write_csv(const struct sb_opts *o, const struct sb_row *rows, int n)
{
	FILE *f = fopen(o->csv, "w");
	int i, t;

	if (f == NULL) {
		fprintf(stderr, "softbench: cannot write %s: %s\n", o->csv,
			strerror(errno));
		return -1;
	}
	fprintf(f, "test,mode,size,unit,better,softdapl_median,softdapl_min,"
		"softdapl_max,tcp_median,tcp_min,tcp_max,ratio,runs,iters,"
		"transport,fi_pingpong,note\n");
	for (i = 0; i < n; i++)
		for (t = 0; t < o->ntransports; t++)
			csv_line(f, o, &rows[i], t);
	if (fclose(f) != 0) {
		fprintf(stderr, "softbench: cannot write %s: %s\n", o->csv,
			strerror(errno));
		return -1;
	}
	return 0;
}

/* bench-plot beside this executable (the build copies it there). */
static const char *plot_script(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 16);
	char *slash;

	if (n <= 0)
		return "bench-plot";
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	snprintf(slash + 1, len - (size_t)(slash + 1 - buf), "bench-plot");
	return buf;
}

/* Runs bench-plot CSV PLOT; 0 when it made the plot. */
static int draw(const char *csv, const char *plot)
{
	char script[PATH_MAX], a1[PATH_MAX], a2[PATH_MAX];
	char *argv[4] = { script, a1, a2, NULL };
	int status;
	pid_t pid;

	snprintf(a1, sizeof(a1), "%s", plot_script(script, sizeof(script)));
	snprintf(script, sizeof(script), "%s", a1);
	snprintf(a1, sizeof(a1), "%s", csv);
	snprintf(a2, sizeof(a2), "%s", plot);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execv(argv[0], argv);
		fprintf(stderr, "softbench: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		return -1;
	return 0;
}

int sb_report_files(const struct sb_opts *o, const struct sb_row *rows, int n)
{
	int ret = 0;

	if (o->csv != NULL) {
		if (write_csv(o, rows, n) < 0)
			return -1;
		printf("results: %s\n", o->csv);
	}
	if (o->plot == NULL)
		return 0;
	if (!sb_find_program("gnuplot")) {
		printf("plot:    not drawn: gnuplot is not installed; get it with\n"
		       "             apt-get install -y gnuplot-nox\n"
		       "         then draw it with: tools/bench-plot %s %s\n",
		       o->csv, o->plot);
	} else if (draw(o->csv, o->plot) < 0) {
		printf("plot:    bench-plot failed (see above)\n");
		ret = -1;
	} else {
		printf("plot:    %s\n", o->plot);
	}
	return ret;
}
