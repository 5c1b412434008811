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

/* softdapl's median over TCP's; NAN when either is not positive. */
double sb_ratio(const struct sb_row *r)
{
	if (!(r->dat.median > 0) || !(r->tcp.median > 0))
		return NAN;
	return r->dat.median / r->tcp.median;
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

#define ROW_FMT "%-16s %-5s %8s %-7s %9s %9s %9s %9s %7s %s\n"

void sb_report_header(const struct sb_opts *o, const char *where)
{
	printf("softbench: softdapl (IA %s, SOFTDAPL_TRANSPORT=%s) against raw TCP, %s\n",
	       o->ia_name, getenv("SOFTDAPL_TRANSPORT") ? getenv("SOFTDAPL_TRANSPORT") :
	       "auto", where);
	printf("  command: %s\n", o->cmdline);
	printf("  %d runs per point (median, min, max); sizes are bytes per message\n",
	       o->reps);
	printf("  latency: microseconds, one way (half a ping-pong's round trip;"
	       " read-lat: a whole\n  read), LOWER is better;"
	       " bandwidth MB/s (10^6 B/s) and rates: HIGHER is better\n");
	printf("  ratio = softdapl median / TCP median:"
	       " below 1 favours softdapl where lower is better,\n"
	       "  above 1 where higher is better (the last column says which)\n\n");
	printf(ROW_FMT, "test", "mode", "size", "unit", "softdapl", "min", "max",
	       "TCP", "ratio", "better");
	fflush(stdout);
}

void sb_report_row(const struct sb_row *r)
{
	char sz[32], a[32], b[32], c[32], d[32], e[32];

	if (r->size != 0)
		sb_size_str(r->size, sz, sizeof(sz));
	else
		snprintf(sz, sizeof(sz), "-");
	printf(ROW_FMT, r->test, r->mode, sz, r->unit,
	       num(r->dat.median, a, sizeof(a)), num(r->dat.min, b, sizeof(b)),
	       num(r->dat.max, c, sizeof(c)), num(r->tcp.median, d, sizeof(d)),
	       num(sb_ratio(r), e, sizeof(e)), r->lower_better ? "lower" : "higher");
	fflush(stdout);
}

static int write_csv(const char *path, const struct sb_row *rows, int n)
{
	FILE *f = fopen(path, "w");
	int i;

	if (f == NULL) {
		fprintf(stderr, "softbench: cannot write %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	fprintf(f, "test,mode,size,unit,better,softdapl_median,softdapl_min,"
		"softdapl_max,tcp_median,tcp_min,tcp_max,ratio,runs,iters,note\n");
	for (i = 0; i < n; i++) {
		const struct sb_row *r = &rows[i];
		double ratio = sb_ratio(r);

		fprintf(f, "%s,%s,%llu,%s,%s,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,",
			r->test, r->mode, (unsigned long long)r->size, r->unit,
			r->lower_better ? "lower" : "higher", r->dat.median,
			r->dat.min, r->dat.max, r->tcp.median, r->tcp.min,
			r->tcp.max);
		if (!isnan(ratio))
			fprintf(f, "%.4f", ratio);
		fprintf(f, ",%d,%llu,\"%s\"\n", r->dat.n,
			(unsigned long long)r->iters, r->note);
	}
	if (fclose(f) != 0) {
		fprintf(stderr, "softbench: cannot write %s: %s\n", path,
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

static bool have_gnuplot(void)
{
	const char *path = getenv("PATH");
	char file[PATH_MAX];

	while (path != NULL && *path != '\0') {
		size_t n = strcspn(path, ":");

		snprintf(file, sizeof(file), "%.*s/gnuplot", (int)n, path);
		if (access(file, X_OK) == 0)
			return true;
		path += n;
		path += *path == ':';
	}
	return false;
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
		if (write_csv(o->csv, rows, n) < 0)
			return -1;
		printf("results: %s\n", o->csv);
	}
	if (o->plot == NULL)
		return 0;
	if (!have_gnuplot()) {
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
