/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The client's plan: which tests run, at which sizes and in which wait
 * modes, how many iterations a run gets, and what each run's time means.
 *
 * Every point is measured for softdapl and then for TCP, one right after
 * the other. Each first calibrates: single runs with growing iteration
 * counts (which also warm both sides up) until one lasts a tenth of the
 * target, then the count that makes a run last o->target_s; then
 * o->reps runs of that count give the median, min and max.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "softbench.h"

/* What a run's time turns into. */
enum sb_metric {
	M_HALF_RTT,	/* microseconds per half round trip */
	M_RTT,		/* microseconds per round trip */
	M_BW,		/* MB/s of iters * size */
	M_RATE,		/* million messages per second */
	M_CONN,		/* connections per second */
};

struct test_def {
	const char *name;	/* for --only, the table and the CSV */
	enum sb_metric metric;
	int modes;		/* the wait modes it runs in */
	bool sized;		/* runs at every size of the plan */
};

#define BOTH	((1 << SB_POLL) | (1 << SB_BLOCK))

static const struct test_def tests[SB_NTESTS] = {
	[SB_SEND_LAT] = { "send-lat", M_HALF_RTT, BOTH, true },
	/* The target learns of a write only by polling its memory. */
	[SB_WRITE_LAT] = { "write-lat", M_HALF_RTT, 1 << SB_POLL, true },
	[SB_READ_LAT] = { "read-lat", M_RTT, BOTH, true },
	[SB_SEND_BW] = { "send-bw", M_BW, BOTH, true },
	[SB_WRITE_BW] = { "write-bw", M_BW, BOTH, true },
	[SB_READ_BW] = { "read-bw", M_BW, BOTH, true },
	[SB_MSG_RATE] = { "msg-rate", M_RATE, BOTH, false },
	[SB_CONN_RATE] = { "conn-rate", M_CONN, BOTH, false },
	[SB_EP_SETUP] = { "many-ep", M_CONN, 1 << SB_BLOCK, false },
	[SB_EP_BW] = { NULL, M_BW, 0, false },
	[SB_EP_DOWN] = { NULL, M_CONN, 0, false },
	[SB_IDLE_CPU] = { "idle-cpu", M_CONN, 1 << SB_BLOCK, false },
};

static const char *const mode_names[] = { "poll", "block" };
static const char *const units[] = {
	[M_HALF_RTT] = "us", [M_RTT] = "us", [M_BW] = "MB/s",
	[M_RATE] = "Mmsg/s", [M_CONN] = "conn/s",
};

int sb_test_by_name(const char *name)
{
	int t;

	for (t = 0; t < SB_NTESTS; t++)
		if (tests[t].name != NULL && strcmp(tests[t].name, name) == 0)
			return t;
	return -1;
}

static bool selected(const struct sb_opts *o, enum sb_test t)
{
	const char *p = o->only;
	size_t len = strlen(tests[t].name);

	if (p == NULL)
		return true;
	while (*p != '\0') {
		size_t n = strcspn(p, ",");

		if (n == len && strncmp(p, tests[t].name, n) == 0)
			return true;
		p += n;
		p += *p == ',';
	}
	return false;
}

/* The plan's state while it runs: counts for the progress line, rows. */
struct plan {
	struct sb_ctx *c;
	const struct sb_opts *o;
	int done, total;	/* points (one per impl) */
	struct sb_row *rows;
	int nrows;
	char what[96];		/* the point being measured, for progress */
};

static void progress(struct plan *p, const char *fmt, ...) SB_PRINTF(2, 3);

static void progress(struct plan *p, const char *fmt, ...)
{
	char line[160];
	va_list ap;

	if (!p->o->progress)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "\r[%3d/%d] %-66.66s", p->done + 1, p->total, line);
	fflush(stderr);
}

static void progress_clear(struct plan *p)
{
	if (p->o->progress)
		fprintf(stderr, "\r%79s\r", "");
}

static double metric(enum sb_metric m, const struct sb_cmd *cmd, double t)
{
	double n = (double)cmd->iters;

	switch (m) {
	case M_HALF_RTT:
		return t / n / 2 * 1e6;
	case M_RTT:
		return t / n * 1e6;
	case M_BW:
		return n * (double)cmd->size / t / 1e6;
	case M_RATE:
		return n / t / 1e6;
	case M_CONN:
		return n / t;
	}
	return NAN;
}

/* Runs one command of @runs runs; its times go into @t. */
static void run(struct plan *p, struct sb_cmd *cmd, uint32_t runs, double *t)
{
	cmd->magic = SB_MAGIC;
	cmd->runs = runs;
	sb_run_command(p->c, cmd, t);
}

static const char *impl_name(uint32_t impl)
{
	return impl == SB_DAT ? "softdapl" : impl == SB_TCP ? "tcp" : "tcp-writev";
}

/* Sets cmd->iters between @min and @max (see the top of the file). */
static void calibrate(struct plan *p, struct sb_cmd *cmd, uint64_t min,
		      uint64_t max)
{
	double t[1], t2[1], target = p->o->target_s;
	uint64_t iters = min;

	progress(p, "%s %s: calibrating", p->what, impl_name(cmd->impl));
	for (;;) {
		cmd->iters = iters;
		run(p, cmd, 1, t);
		if (t[0] >= target / 10 || iters >= max)
			break;
		iters *= 4;
	}
	/*
	 * One run more of the same size, and the faster of the two sets the
	 * count: a single stall in the run that ended the growth (a time
	 * slice lost on a busy machine) would otherwise shrink every run of
	 * the point to a handful of iterations.
	 */
	run(p, cmd, 1, t2);
	if (t2[0] < t[0])
		t[0] = t2[0];
	iters = (uint64_t)((double)iters * target / (t[0] > 1e-9 ? t[0] : 1e-9));
	cmd->iters = iters < min ? min : iters > max ? max : iters;
}

/*
 * Measures o->reps runs of @cmd into @s, after calibrating it (unless
 * --iters fixed the count: then without a warm-up either).
 */
static void measure(struct plan *p, struct sb_cmd *cmd, enum sb_metric m,
		    uint64_t min, uint64_t max, struct sb_stats *s)
{
	const struct sb_opts *o = p->o;
	double t[64], v[64];
	int i;

	if (o->iters > 0)
		cmd->iters = o->iters < min ? min : o->iters;
	else
		calibrate(p, cmd, min, max);
	progress(p, "%s %s: %d runs of %llu", p->what, impl_name(cmd->impl),
		 o->reps, (unsigned long long)cmd->iters);
	run(p, cmd, (uint32_t)o->reps, t);
	for (i = 0; i < o->reps; i++)
		v[i] = metric(m, cmd, t[i]);
	sb_stats_of(v, o->reps, s);
	p->done++;
}

static struct sb_row *new_row(struct plan *p, enum sb_test t, const char *name,
			      enum sb_mode mode, uint64_t size)
{
	struct sb_row *r = &p->rows[p->nrows++];

	memset(r, 0, sizeof(*r));
	snprintf(r->test, sizeof(r->test), "%s", name ? name : tests[t].name);
	snprintf(r->mode, sizeof(r->mode), "%s", mode_names[mode]);
	r->size = size;
	r->unit = units[tests[t].metric];
	r->lower_better = tests[t].metric == M_HALF_RTT || tests[t].metric == M_RTT;
	return r;
}

static void emit(struct plan *p, struct sb_row *r)
{
	progress_clear(p);
	sb_report_row(r);
}

/* Iteration limits per metric: enough to fill a window, bounded. */
static void limits(const struct sb_opts *o, enum sb_test t, uint32_t window,
		   uint64_t *min, uint64_t *max)
{
	switch (tests[t].metric) {
	case M_HALF_RTT:
	case M_RTT:
		*min = 16;
		*max = 200000;
		break;
	case M_CONN:
		*min = 16;
		*max = 4000;
		break;
	default:
		*min = 2 * (uint64_t)window;
		*max = 20000000;
		break;
	}
}

/* One sized point: softdapl then TCP. */
static void sized_point(struct plan *p, enum sb_test t, enum sb_mode mode,
			uint64_t size)
{
	struct sb_cmd cmd;
	struct sb_row *r;
	uint64_t min, max;
	char sz[32];

	snprintf(p->what, sizeof(p->what), "%s %s %s", tests[t].name,
		 mode_names[mode], sb_size_str(size, sz, sizeof(sz)));
	r = new_row(p, t, NULL, mode, size);
	memset(&cmd, 0, sizeof(cmd));
	cmd.test = t;
	cmd.mode = mode;
	cmd.size = size;
	cmd.window = p->o->window;
	limits(p->o, t, cmd.window, &min, &max);
	cmd.impl = SB_DAT;
	measure(p, &cmd, tests[t].metric, min, max, &r->dat);
	r->iters = cmd.iters;
	cmd.impl = SB_TCP;
	measure(p, &cmd, tests[t].metric, min, max, &r->tcp);
	emit(p, r);
}

/* msg-rate: softdapl, then TCP one send() per message, then writev(). */
static void msg_rate(struct plan *p, enum sb_mode mode)
{
	struct sb_cmd cmd;
	struct sb_stats dat;
	struct sb_row *r;
	uint64_t min, max;

	snprintf(p->what, sizeof(p->what), "msg-rate %s 64 B", mode_names[mode]);
	memset(&cmd, 0, sizeof(cmd));
	cmd.test = SB_MSG_RATE;
	cmd.mode = mode;
	cmd.size = 64;
	cmd.window = p->o->rate_window;
	limits(p->o, SB_MSG_RATE, cmd.window, &min, &max);
	cmd.impl = SB_DAT;
	measure(p, &cmd, M_RATE, min, max, &dat);

	r = new_row(p, SB_MSG_RATE, "msg-rate", mode, 64);
	r->dat = dat;
	r->iters = cmd.iters;
	snprintf(r->note, sizeof(r->note),
		 "window %u; TCP: one send() per message", cmd.window);
	cmd.impl = SB_TCP;
	measure(p, &cmd, M_RATE, min, max, &r->tcp);
	emit(p, r);

	r = new_row(p, SB_MSG_RATE, "msg-rate/writev", mode, 64);
	r->dat = dat;
	r->iters = cmd.iters;
	snprintf(r->note, sizeof(r->note),
		 "window %u; TCP: %d messages per writev()", cmd.window, SB_BATCH);
	cmd.impl = SB_TCP_BATCH;
	measure(p, &cmd, M_RATE, min, max, &r->tcp);
	emit(p, r);
}

static void conn_rate(struct plan *p, enum sb_mode mode)
{
	struct sb_cmd cmd;
	struct sb_row *r;
	uint64_t min, max;

	snprintf(p->what, sizeof(p->what), "conn-rate %s", mode_names[mode]);
	r = new_row(p, SB_CONN_RATE, NULL, mode, 0);
	snprintf(r->note, sizeof(r->note), "one at a time; teardown not timed; "
		 "TCP: connect, accept, 1 byte back");
	memset(&cmd, 0, sizeof(cmd));
	cmd.test = SB_CONN_RATE;
	cmd.mode = mode;
	limits(p->o, SB_CONN_RATE, 0, &min, &max);
	cmd.impl = SB_DAT;
	measure(p, &cmd, M_CONN, min, max, &r->dat);
	r->iters = cmd.iters;
	cmd.impl = SB_TCP;
	measure(p, &cmd, M_CONN, min, max, &r->tcp);
	emit(p, r);
}

/* A single-valued statistic. */
static void one(struct sb_stats *s, double v)
{
	sb_stats_of(&v, 1, s);
}

/*
 * many-ep, for one implementation: sets up o->eps pairs (the setup rate and
 * the memory), streams 64 KiB writes over all of them (o->reps runs), then
 * over the main connection alone for comparison, and takes them down.
 */
#define EP_BW_SIZE	(64u << 10)

/* Writes per EP: 256 MiB in all (32 MiB when quick), at least 2 each. */
static uint64_t ep_bw_iters(const struct sb_opts *o)
{
	uint64_t total = o->quick ? 32u << 20 : 256u << 20;
	uint64_t n = total / ((uint64_t)o->eps * EP_BW_SIZE);

	return n < 2 ? 2 : n;
}

static void many_impl(struct plan *p, uint32_t impl, struct sb_stats *setup,
		      double *mem_client, double *mem_server,
		      struct sb_stats *bw, struct sb_stats *one_bw)
{
	const struct sb_opts *o = p->o;
	struct sb_cmd cmd;
	double t[64], v[64];
	uint64_t min, max;
	int i;

	memset(&cmd, 0, sizeof(cmd));
	cmd.impl = impl;
	cmd.mode = SB_BLOCK;
	cmd.window = o->eps;

	progress(p, "many-ep %s: connecting %u pairs", impl_name(impl), o->eps);
	cmd.test = SB_EP_SETUP;
	cmd.iters = o->eps;
	run(p, &cmd, 1, t);
	one(setup, o->eps / t[0]);
	*mem_client = impl == SB_DAT ? p->c->dat.rss_per_ep : p->c->tcp.rss_per_conn;
	*mem_server = p->c->last_value;

	progress(p, "many-ep %s: writing over %u pairs", impl_name(impl), o->eps);
	cmd.test = SB_EP_BW;
	cmd.size = EP_BW_SIZE;
	cmd.iters = ep_bw_iters(o);
	run(p, &cmd, (uint32_t)o->reps, t);
	for (i = 0; i < o->reps; i++)
		v[i] = (double)o->eps * (double)cmd.iters * EP_BW_SIZE / t[i] / 1e6;
	sb_stats_of(v, o->reps, bw);

	cmd.test = SB_EP_DOWN;
	run(p, &cmd, 1, t);

	/* The same writes over one connection (TCP: its stream). */
	snprintf(p->what, sizeof(p->what), "many-ep: one connection");
	memset(&cmd, 0, sizeof(cmd));
	cmd.impl = impl;
	cmd.mode = SB_BLOCK;
	cmd.test = SB_WRITE_BW;
	cmd.size = EP_BW_SIZE;
	cmd.window = o->window;
	limits(o, SB_WRITE_BW, cmd.window, &min, &max);
	measure(p, &cmd, M_BW, min, max, one_bw);
	p->done--;
}

static void many_ep(struct plan *p)
{
	const struct sb_opts *o = p->o;
	struct sb_stats dsetup, tsetup, dbw, tbw, done, tone;
	double dmem, dmem_srv, tmem, tmem_srv;
	struct sb_row *r;

	many_impl(p, SB_DAT, &dsetup, &dmem, &dmem_srv, &dbw, &done);
	p->done++;
	many_impl(p, SB_TCP, &tsetup, &tmem, &tmem_srv, &tbw, &tone);
	p->done++;

	r = new_row(p, SB_EP_SETUP, "ep-setup", SB_BLOCK, 0);
	r->dat = dsetup;
	r->tcp = tsetup;
	r->iters = o->eps;
	snprintf(r->note, sizeof(r->note), "%u pairs, %d connects in flight",
		 o->eps, 64);
	emit(p, r);

	r = new_row(p, SB_EP_SETUP, "ep-mem", SB_BLOCK, 0);
	r->unit = "KiB/EP";
	r->lower_better = true;
	one(&r->dat, dmem / 1024);
	one(&r->tcp, tmem / 1024);
	r->iters = o->eps;
	snprintf(r->note, sizeof(r->note),
		 "VmRSS delta / %u, client side (server: %.1f KiB; TCP server: "
		 "%.1f KiB); kernel socket memory not counted",
		 o->eps, dmem_srv / 1024, tmem_srv / 1024);
	emit(p, r);

	r = new_row(p, SB_EP_SETUP, "ep-bw", SB_BLOCK, EP_BW_SIZE);
	r->unit = "MB/s";
	r->dat = dbw;
	r->tcp = tbw;
	r->iters = ep_bw_iters(o);
	snprintf(r->note, sizeof(r->note),
		 "aggregate over %u pairs = %.2fx one connection (%.0f MB/s); "
		 "TCP %.2fx (%.0f MB/s)", o->eps, dbw.median / done.median,
		 done.median, tbw.median / tone.median, tone.median);
	emit(p, r);
}

static void idle_cpu(struct plan *p)
{
	struct sb_cmd cmd;
	struct sb_row *r;
	double t[1], dclient;

	snprintf(p->what, sizeof(p->what), "idle-cpu");
	r = new_row(p, SB_IDLE_CPU, NULL, SB_BLOCK, 0);
	r->unit = "%CPU";
	r->lower_better = true;
	memset(&cmd, 0, sizeof(cmd));
	cmd.test = SB_IDLE_CPU;
	cmd.mode = SB_BLOCK;
	cmd.iters = (uint64_t)(p->o->idle_s * 1000);

	progress(p, "idle-cpu softdapl: %.1f s in dat_evd_wait", p->o->idle_s);
	cmd.impl = SB_DAT;
	run(p, &cmd, 1, t);
	one(&r->dat, p->c->last_value);
	dclient = p->c->client_idle;
	p->done++;
	progress(p, "idle-cpu tcp: %.1f s in recv", p->o->idle_s);
	cmd.impl = SB_TCP;
	run(p, &cmd, 1, t);
	one(&r->tcp, p->c->last_value);
	p->done++;
	r->iters = 1;
	snprintf(r->note, sizeof(r->note),
		 "%.1f s in dat_evd_wait(INFINITE) (TCP: recv); the client's "
		 "process meanwhile (IA open, sleeping): %.3f%%",
		 p->o->idle_s, dclient);
	emit(p, r);
}

/* Points of the plan, for the progress line. */
static int count_points(const struct sb_opts *o)
{
	int t, m, n = 0;

	for (t = 0; t < SB_NTESTS; t++) {
		if (tests[t].name == NULL || !selected(o, (enum sb_test)t))
			continue;
		for (m = 0; m < 2; m++) {
			if (!(tests[t].modes & o->modes & (1 << m)) &&
			    !(t >= SB_EP_SETUP && m == SB_BLOCK))
				continue;
			if (tests[t].sized)
				n += 2 * o->nsizes;
			else if (t == SB_MSG_RATE)
				n += 3;
			else
				n += 2;
		}
	}
	return n;
}

/* Runs the plan, printing each row as it is done; returns the rows. */
struct sb_row *sb_run_plan(struct sb_ctx *c, const struct sb_opts *o, int *nrows)
{
	struct plan p;
	int t, m, i;

	memset(&p, 0, sizeof(p));
	p.c = c;
	p.o = o;
	p.total = count_points(o);
	p.rows = calloc(512, sizeof(*p.rows));
	if (p.rows == NULL)
		sb_die("out of memory");

	for (t = 0; t < SB_NTESTS; t++) {
		if (tests[t].name == NULL || !selected(o, (enum sb_test)t))
			continue;
		if (t == SB_EP_SETUP) {
			many_ep(&p);
			continue;
		}
		if (t == SB_IDLE_CPU) {
			idle_cpu(&p);
			continue;
		}
		for (m = 0; m < 2; m++) {
			if (!(tests[t].modes & o->modes & (1 << m)))
				continue;
			if (t == SB_MSG_RATE)
				msg_rate(&p, (enum sb_mode)m);
			else if (t == SB_CONN_RATE)
				conn_rate(&p, (enum sb_mode)m);
			else
				for (i = 0; i < o->nsizes; i++)
					sized_point(&p, (enum sb_test)t,
						    (enum sb_mode)m, o->sizes[i]);
		}
	}
	progress_clear(&p);
	*nrows = p.nrows;
	return p.rows;
}
