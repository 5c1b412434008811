/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The client's plan: which tests run, at which sizes and in which wait
 * modes, how many iterations a run gets, and what each run's time means.
 *
 * Every point is measured for softdapl over each transport (in its agent's
 * session), then for raw TCP (in the first agent's), one right after the
 * other; a send-lat poll point then runs fi_pingpong too (softbench-fi.c),
 * as many round trips per run as raw TCP's runs had. Each measurement
 * first calibrates: single runs with growing iteration counts (which also
 * warm both sides up) until one lasts a tenth of the target, then the
 * count that makes a run last o->target_s; then o->reps runs of that count
 * give the median, min and max.
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

/* Whether fi_pingpong's column applies to @t in @mode. */
static bool fi_applies(enum sb_test t, enum sb_mode mode)
{
	return t == SB_SEND_LAT && mode == SB_POLL;
}

/* Whether the plan has rows that fi_applies() to: send-lat poll. */
bool sb_plan_has_fi(const struct sb_opts *o)
{
	return selected(o, SB_SEND_LAT) && (o->modes & (1 << SB_POLL));
}

/* The plan's state while it runs: counts for the progress line, rows. */
struct plan {
	struct sb_agent *agents;	/* as o->transports[] */
	const struct sb_opts *o;
	int done, total;	/* measurements, for the progress line */
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

/*
 * Runs one command of @runs runs in the session of agent @a (softdapl over
 * o->transports[@a]; raw TCP: 0); its times and figures go into @res.
 */
static void run(struct plan *p, int a, struct sb_cmd *cmd, uint32_t runs,
		struct sb_result *res)
{
	cmd->magic = SB_MAGIC;
	cmd->runs = runs;
	sb_agent_run(&p->agents[a], cmd, res);
}

/* "softdapl/copy", "tcp" or "tcp-writev", for the progress line. */
static const char *side_name(struct plan *p, int a, uint32_t impl)
{
	static char buf[32];

	if (impl != SB_DAT)
		return impl == SB_TCP ? "tcp" : "tcp-writev";
	snprintf(buf, sizeof(buf), "softdapl/%s", p->agents[a].transport);
	return buf;
}

/* Sets cmd->iters between @min and @max (see the top of the file). */
static void calibrate(struct plan *p, int a, struct sb_cmd *cmd, uint64_t min,
		      uint64_t max)
{
	struct sb_result res;
	double t, target = p->o->target_s;
	uint64_t iters = min;

	progress(p, "%s %s: calibrating", p->what, side_name(p, a, cmd->impl));
	for (;;) {
		cmd->iters = iters;
		run(p, a, cmd, 1, &res);
		if (res.t[0] >= target / 10 || iters >= max)
			break;
		iters *= 4;
	}
	/*
	 * One run more of the same size, and the faster of the two sets the
	 * count: a single stall in the run that ended the growth (a time
	 * slice lost on a busy machine) would otherwise shrink every run of
	 * the point to a handful of iterations.
	 */
	t = res.t[0];
	run(p, a, cmd, 1, &res);
	if (res.t[0] < t)
		t = res.t[0];
	iters = (uint64_t)((double)iters * target / (t > 1e-9 ? t : 1e-9));
	cmd->iters = iters < min ? min : iters > max ? max : iters;
}

/*
 * Measures o->reps runs of @cmd in agent @a's session into @s, after
 * calibrating it (unless --iters fixed the count: then without a warm-up
 * either).
 */
static void measure(struct plan *p, int a, struct sb_cmd *cmd,
		    enum sb_metric m, uint64_t min, uint64_t max,
		    struct sb_stats *s)
{
	const struct sb_opts *o = p->o;
	struct sb_result res;
	double v[SB_MAX_RUNS];
	int i;

	if (o->iters > 0)
		cmd->iters = o->iters < min ? min : o->iters;
	else
		calibrate(p, a, cmd, min, max);
	progress(p, "%s %s: %d runs of %llu", p->what, side_name(p, a, cmd->impl),
		 o->reps, (unsigned long long)cmd->iters);
	run(p, a, cmd, (uint32_t)o->reps, &res);
	for (i = 0; i < o->reps; i++)
		v[i] = metric(m, cmd, res.t[i]);
	sb_stats_of(v, o->reps, s);
	p->done++;
}

/* @cmd measured over every transport into @r's softdapl columns. */
static void measure_dat(struct plan *p, struct sb_cmd *cmd, enum sb_metric m,
			uint64_t min, uint64_t max, struct sb_row *r)
{
	int i;

	cmd->impl = SB_DAT;
	for (i = 0; i < p->o->ntransports; i++) {
		measure(p, i, cmd, m, min, max, &r->dat[i].s);
		r->dat[i].iters = cmd->iters;
	}
}

/* fi_pingpong's column of @r, @iters round trips per run (if it runs). */
static void measure_fi(struct plan *p, struct sb_row *r, uint64_t iters)
{
	if (p->o->fi != SB_FI_RUN)
		return;
	progress(p, "%s fi_pingpong: %d runs of %llu", p->what, p->o->reps,
		 (unsigned long long)iters);
	sb_fi_measure(p->o, r->size, iters, &r->fi);
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
	r->fi_row = fi_applies(t, mode);
	return r;
}

static void emit(struct plan *p, struct sb_row *r)
{
	progress_clear(p);
	sb_report_row(p->o, r);
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

/* One sized point: softdapl over each transport, raw TCP, fi_pingpong. */
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
	measure_dat(p, &cmd, tests[t].metric, min, max, r);
	cmd.impl = SB_TCP;
	measure(p, 0, &cmd, tests[t].metric, min, max, &r->tcp);
	if (r->fi_row)
		measure_fi(p, r, cmd.iters);
	emit(p, r);
}

/* msg-rate: softdapl, then TCP one send() per message, then writev(). */
static void msg_rate(struct plan *p, enum sb_mode mode)
{
	struct sb_cmd cmd;
	struct sb_row *r, *w;
	uint64_t min, max;

	snprintf(p->what, sizeof(p->what), "msg-rate %s 64 B", mode_names[mode]);
	memset(&cmd, 0, sizeof(cmd));
	cmd.test = SB_MSG_RATE;
	cmd.mode = mode;
	cmd.size = 64;
	cmd.window = p->o->rate_window;
	limits(p->o, SB_MSG_RATE, cmd.window, &min, &max);
	r = new_row(p, SB_MSG_RATE, "msg-rate", mode, 64);
	measure_dat(p, &cmd, M_RATE, min, max, r);
	snprintf(r->note, sizeof(r->note),
		 "window %u; TCP: one send() per message", cmd.window);
	cmd.impl = SB_TCP;
	measure(p, 0, &cmd, M_RATE, min, max, &r->tcp);
	emit(p, r);

	w = new_row(p, SB_MSG_RATE, "msg-rate/writev", mode, 64);
	memcpy(w->dat, r->dat, sizeof(w->dat));
	snprintf(w->note, sizeof(w->note),
		 "window %u; TCP: %d messages per writev()", cmd.window, SB_BATCH);
	cmd.impl = SB_TCP_BATCH;
	measure(p, 0, &cmd, M_RATE, min, max, &w->tcp);
	emit(p, w);
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
	measure_dat(p, &cmd, M_CONN, min, max, r);
	cmd.impl = SB_TCP;
	measure(p, 0, &cmd, M_CONN, min, max, &r->tcp);
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

/* many-ep's figures for one side. */
struct many {
	struct sb_stats setup;		/* pairs per second */
	double mem_client, mem_server;	/* bytes per pair */
	struct sb_stats bw, one_bw;	/* MB/s over all pairs, over one */
};

/* many-ep for @impl in agent @a's session. */
static void many_impl(struct plan *p, int a, uint32_t impl, struct many *m)
{
	const struct sb_opts *o = p->o;
	struct sb_result res;
	struct sb_cmd cmd;
	double v[SB_MAX_RUNS];
	uint64_t min, max;
	int i;

	memset(&cmd, 0, sizeof(cmd));
	cmd.impl = impl;
	cmd.mode = SB_BLOCK;
	cmd.window = o->eps;

	progress(p, "many-ep %s: connecting %u pairs", side_name(p, a, impl),
		 o->eps);
	cmd.test = SB_EP_SETUP;
	cmd.iters = o->eps;
	run(p, a, &cmd, 1, &res);
	one(&m->setup, o->eps / res.t[0]);
	m->mem_client = res.rss_per_ep;
	m->mem_server = res.server_value;

	progress(p, "many-ep %s: writing over %u pairs", side_name(p, a, impl),
		 o->eps);
	cmd.test = SB_EP_BW;
	cmd.size = EP_BW_SIZE;
	cmd.iters = ep_bw_iters(o);
	run(p, a, &cmd, (uint32_t)o->reps, &res);
	for (i = 0; i < o->reps; i++)
		v[i] = (double)o->eps * (double)cmd.iters * EP_BW_SIZE / res.t[i] / 1e6;
	sb_stats_of(v, o->reps, &m->bw);

	cmd.test = SB_EP_DOWN;
	run(p, a, &cmd, 1, &res);

	/* The same writes over one connection (TCP: its stream). */
	snprintf(p->what, sizeof(p->what), "many-ep: one connection");
	memset(&cmd, 0, sizeof(cmd));
	cmd.impl = impl;
	cmd.mode = SB_BLOCK;
	cmd.test = SB_WRITE_BW;
	cmd.size = EP_BW_SIZE;
	cmd.window = o->window;
	limits(o, SB_WRITE_BW, cmd.window, &min, &max);
	measure(p, a, &cmd, M_BW, min, max, &m->one_bw);
	p->done--;
}

static void many_ep(struct plan *p)
{
	const struct sb_opts *o = p->o;
	struct many dm[SB_MAX_TRANSPORTS], tm;
	struct sb_row *setup, *mem, *bw;
	int i;

	for (i = 0; i < o->ntransports; i++) {
		many_impl(p, i, SB_DAT, &dm[i]);
		p->done++;
	}
	many_impl(p, 0, SB_TCP, &tm);
	p->done++;

	setup = new_row(p, SB_EP_SETUP, "ep-setup", SB_BLOCK, 0);
	mem = new_row(p, SB_EP_SETUP, "ep-mem", SB_BLOCK, 0);
	bw = new_row(p, SB_EP_SETUP, "ep-bw", SB_BLOCK, EP_BW_SIZE);
	mem->unit = "KiB/EP";
	mem->lower_better = true;
	bw->unit = "MB/s";
	setup->tcp = tm.setup;
	one(&mem->tcp, tm.mem_client / 1024);
	bw->tcp = tm.bw;
	for (i = 0; i < o->ntransports; i++) {
		setup->dat[i].s = dm[i].setup;
		setup->dat[i].iters = o->eps;
		one(&mem->dat[i].s, dm[i].mem_client / 1024);
		mem->dat[i].iters = o->eps;
		snprintf(mem->dat[i].note, sizeof(mem->dat[i].note),
			 "server: %.1f KiB", dm[i].mem_server / 1024);
		bw->dat[i].s = dm[i].bw;
		bw->dat[i].iters = ep_bw_iters(o);
		snprintf(bw->dat[i].note, sizeof(bw->dat[i].note),
			 "%.2fx one connection (%.0f MB/s)",
			 dm[i].bw.median / dm[i].one_bw.median,
			 dm[i].one_bw.median);
	}
	snprintf(setup->note, sizeof(setup->note),
		 "%u pairs, %d connects in flight", o->eps, 64);
	snprintf(mem->note, sizeof(mem->note),
		 "VmRSS delta / %u, client side (TCP server: %.1f KiB); kernel "
		 "socket memory not counted", o->eps, tm.mem_server / 1024);
	snprintf(bw->note, sizeof(bw->note),
		 "aggregate over %u pairs; TCP %.2fx one connection (%.0f MB/s)",
		 o->eps, tm.bw.median / tm.one_bw.median, tm.one_bw.median);
	emit(p, setup);
	emit(p, mem);
	emit(p, bw);
}

/* idle-cpu in agent @a's session: the server's %CPU, the client's. */
static void idle_impl(struct plan *p, int a, uint32_t impl,
		      struct sb_stats *s, double *client)
{
	struct sb_result res;
	struct sb_cmd cmd;

	memset(&cmd, 0, sizeof(cmd));
	cmd.test = SB_IDLE_CPU;
	cmd.mode = SB_BLOCK;
	cmd.impl = impl;
	cmd.iters = (uint64_t)(p->o->idle_s * 1000);
	progress(p, "idle-cpu %s: %.1f s waiting", side_name(p, a, impl),
		 p->o->idle_s);
	run(p, a, &cmd, 1, &res);
	one(s, res.server_value);
	*client = res.client_idle;
	p->done++;
}

static void idle_cpu(struct plan *p)
{
	struct sb_row *r;
	double client;
	int i;

	snprintf(p->what, sizeof(p->what), "idle-cpu");
	r = new_row(p, SB_IDLE_CPU, NULL, SB_BLOCK, 0);
	r->unit = "%CPU";
	r->lower_better = true;
	for (i = 0; i < p->o->ntransports; i++) {
		idle_impl(p, i, SB_DAT, &r->dat[i].s, &client);
		r->dat[i].iters = 1;
		snprintf(r->dat[i].note, sizeof(r->dat[i].note),
			 "the client's process meanwhile (IA open, sleeping): "
			 "%.3f%%", client);
	}
	idle_impl(p, 0, SB_TCP, &r->tcp, &client);
	snprintf(r->note, sizeof(r->note),
		 "%.1f s in dat_evd_wait(INFINITE) (TCP: recv)", p->o->idle_s);
	emit(p, r);
}

/* Measurements of the plan, for the progress line. */
static int count_points(const struct sb_opts *o)
{
	int t, m, n = 0, per = o->ntransports + 1;	/* softdapl's, TCP */

	for (t = 0; t < SB_NTESTS; t++) {
		if (tests[t].name == NULL || !selected(o, (enum sb_test)t))
			continue;
		for (m = 0; m < 2; m++) {
			if (!(tests[t].modes & o->modes & (1 << m)) &&
			    !(t >= SB_EP_SETUP && m == SB_BLOCK))
				continue;
			if (tests[t].sized)
				n += (per + (o->fi == SB_FI_RUN &&
					     fi_applies((enum sb_test)t,
							(enum sb_mode)m))) *
				     o->nsizes;
			else if (t == SB_MSG_RATE)
				n += per + 1;	/* and writev() */
			else
				n += per;
		}
	}
	return n;
}

/* Runs the plan, printing each row as it is done; returns the rows. */
struct sb_row *sb_run_plan(struct sb_agent *agents, const struct sb_opts *o,
			   int *nrows)
{
	struct plan p;
	int t, m, i;

	memset(&p, 0, sizeof(p));
	p.agents = agents;
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
