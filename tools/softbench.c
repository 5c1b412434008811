/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softbench: how softdapl compares with raw TCP between two processes.
 *
 *   softbench [options]                    both processes, over loopback
 *   softbench --server [--port N]          one host of two...
 *   softbench --client HOST --port N       ...and the other
 *
 * See usage() and the README's "Benchmarks". This file holds the options,
 * the dat.conf and the client's run (its agents, the plan, the report);
 * softbench.h says where the rest is.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "softbench.h"

#define DEFAULT_IA	"softdapl-lo"

static void usage(FILE *f)
{
	fprintf(f,
"usage: softbench [options]                 over loopback: client and server\n"
"       softbench --server [--port N]       serve one session (two hosts)\n"
"       softbench --client HOST --port N    run against that server\n"
"\n"
"  -D NAME          the IA both sides open (default " DEFAULT_IA "); unless\n"
"                   DAT_OVERRIDE is set, a temporary dat.conf names the\n"
"                   libdaplsoft.so.2 of this build with \"lo\" (\"0.0.0.0\"\n"
"                   for --server and --client)\n"
"  --quick          short: sizes 8 B, 64 KiB, 4 MiB, 3 short runs, 200\n"
"                   endpoint pairs, 0.5 s idle (make bench's three\n"
"                   transports: about half a minute)\n"
"  --transport LIST what softdapl's connections on one host use, comma-\n"
"                   separated, a table column each: auto (shared memory,\n"
"                   RDMA placed by the initiator), copy (shared-memory\n"
"                   rings only) or tcp; each has its own pair of processes,\n"
"                   with SOFTDAPL_TRANSPORT set. Default $SOFTDAPL_TRANSPORT,\n"
"                   else auto; make bench: auto,copy,tcp. Raw TCP is\n"
"                   measured once. --server and --client take one\n"
"  --only LIST      tests, comma-separated: send-lat, write-lat, read-lat,\n"
"                   send-bw, write-bw, read-bw, msg-rate, conn-rate,\n"
"                   many-ep, idle-cpu (default: all)\n"
"  --mode MODE      poll (dat_evd_dequeue; recv(MSG_DONTWAIT) in a loop),\n"
"                   block (dat_evd_wait; blocking recv) or both (default)\n"
"  --sizes LIST     bytes per message, e.g. 8,4K,1M (8 B to 4 MiB; default\n"
"                   8,64,512,4K,32K,64K,256K,1M,4M)\n"
"  --reps N         runs per point (default 7; --quick 3)\n"
"  --time MS        how long one run should last (default 30; --quick 5)\n"
"  --iters N        instead, N iterations per run and no calibration (fixed\n"
"                   work, for profilers)\n"
"  --window N       posts outstanding in the bandwidth tests (default 32)\n"
"  --rate-window N  posts outstanding in msg-rate (default 64)\n"
"  --eps N          endpoint pairs for many-ep (default 2000)\n"
"  --idle SECONDS   length of idle-cpu (default 3)\n"
"  --csv FILE       write the results as CSV\n"
"  --plot FILE      draw latency and bandwidth against size (.svg or .png)\n"
"                   with bench-plot, which needs gnuplot\n"
"  --port N         the control port (--server: default any, printed)\n"
"\n"
"The send-lat poll rows have a third reference over loopback: fi_pingpong\n"
"-p tcp -e msg (libfabric's tcp provider, Debian's libfabric-bin), one way,\n"
"median of --reps runs of as many round trips as raw TCP's runs; n/a where\n"
"it is not installed or fails.\n");
}

static char conf_path[1024];
static pid_t conf_owner;

static void remove_conf(void)
{
	if (conf_path[0] != '\0' && getpid() == conf_owner)
		unlink(conf_path);
}

/*
 * Ctrl-C or a kill: the dat.conf goes too, and fi_pingpong's processes
 * (unlink and kill are async-signal-safe).
 */
static void on_signal(int sig)
{
	remove_conf();
	sb_fi_kill();
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * Without DAT_OVERRIDE, a dat.conf of one line: @name for the provider of
 * this build (../lib beside this program) with @params, as tools/demo does.
 */
static void write_conf(const char *name, const char *params)
{
	char exe[1024], lib[1200], *slash;
	ssize_t n;
	FILE *f;
	int fd;

	if (getenv("DAT_OVERRIDE") != NULL)
		return;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		sb_die("cannot find this program: %s", strerror(errno));
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	*slash = '\0';
	snprintf(lib, sizeof(lib), "%s/../lib/libdaplsoft.so.2", exe);
	if (access(lib, R_OK) != 0)
		snprintf(lib, sizeof(lib), "libdaplsoft.so.2");	/* installed */

	snprintf(conf_path, sizeof(conf_path), "%s/softbench-dat.conf.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	fd = mkstemp(conf_path);
	if (fd < 0 || (f = fdopen(fd, "w")) == NULL)
		sb_die("cannot write a dat.conf: %s", strerror(errno));
	conf_owner = getpid();
	atexit(remove_conf);
	fprintf(f, "%s u2.0 nonthreadsafe default %s softdapl.2.0 \"%s\" \"\"\n",
		name, lib, params);
	fclose(f);
	setenv("DAT_OVERRIDE", conf_path, 1);
}

static uint64_t parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (*end == 'K' || *end == 'k')
		v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		v <<= 20, end++;
	if (end == s || (*end != '\0' && *end != ',') || v < 1 || v > SB_MAX_SIZE)
		sb_die("bad size '%s' (1 to 4M)", s);
	return v;
}

static void parse_sizes(struct sb_opts *o, const char *list)
{
	o->nsizes = 0;
	while (*list != '\0') {
		if (o->nsizes == (int)(sizeof(o->sizes) / sizeof(o->sizes[0])))
			sb_die("too many sizes");
		o->sizes[o->nsizes++] = parse_size(list);
		list += strcspn(list, ",");
		list += *list == ',';
	}
	if (o->nsizes == 0)
		sb_die("--sizes needs at least one size");
}

static long number(const char *opt, const char *s, long min, long max)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (end == s || *end != '\0' || v < min || v > max)
		sb_die("%s: '%s' is not a number from %ld to %ld", opt, s, min, max);
	return v;
}

/* Whole command line, for the report. */
static char *join(int argc, char **argv)
{
	size_t len = 1;
	char *s;
	int i;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = calloc(1, len);
	if (s == NULL)
		sb_die("out of memory");
	for (i = 0; i < argc; i++) {
		strcat(s, argv[i]);
		if (i + 1 < argc)
			strcat(s, " ");
	}
	return s;
}

/* The server's address, for the control connection and the DAT connect. */
static void resolve(struct sb_ctx *c, const char *host)
{
	struct addrinfo hints, *ai;
	int r;

	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	r = getaddrinfo(host, NULL, &hints, &ai);
	if (r != 0)
		sb_die("%s: %s", host, gai_strerror(r));
	memcpy(&c->peer, ai->ai_addr, ai->ai_addrlen);
	c->peer_len = ai->ai_addrlen;
	freeaddrinfo(ai);
}

/*
 * What the rest of the machine did meanwhile: the share of all its CPUs
 * that other processes used between @busy0/@total0 and now, our own
 * (@own: this process and the server, once reaped) taken out. On a busy
 * machine the numbers measure the scheduler more than softdapl.
 */
static void report_others(double busy0, double total0, double own0)
{
	double busy, total, others;

	if (sb_machine_cpu(&busy, &total) < 0 || total <= total0)
		return;
	others = (busy - busy0 - (sb_cpu_with_children() - own0)) / (total - total0);
	if (others < 0)
		others = 0;
	printf("others:  other processes used %.0f%% of this machine's %ld CPUs "
	       "during the run%s\n", 100 * others, sysconf(_SC_NPROCESSORS_ONLN),
	       others > 0.1 ? ":\n         the numbers are disturbed, run it "
	       "again on an idle machine" : "");
}

static bool known_transport(const char *t)
{
	return strcmp(t, "auto") == 0 || strcmp(t, "copy") == 0 ||
	       strcmp(t, "tcp") == 0;
}

/*
 * --transport LIST into o->transports: auto, copy or tcp, each once, in
 * the order given. The strings stay in @list, which is not copied.
 */
static void parse_transports(struct sb_opts *o, char *list)
{
	char *name, *save = NULL;
	int i;

	o->ntransports = 0;
	for (name = strtok_r(list, ",", &save); name != NULL;
	     name = strtok_r(NULL, ",", &save)) {
		if (!known_transport(name))
			sb_die("--transport: '%s' is not auto, copy or tcp", name);
		for (i = 0; i < o->ntransports; i++)
			if (strcmp(o->transports[i], name) == 0)
				sb_die("--transport: %s twice", name);
		o->transports[o->ntransports++] = name;
	}
	if (o->ntransports == 0)
		sb_die("--transport needs auto, copy or tcp");
}

static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/*
 * The client's side of the run: an agent per transport (over loopback
 * when @host is NULL, each with its server; else against @host's server
 * at @port), the plan, the report. The exit status.
 */
static int run_client(struct sb_opts *o, struct sb_ctx *tmpl,
		      const char *host, int port)
{
	struct sb_agent agents[SB_MAX_TRANSPORTS];
	double busy0 = 0, total0 = 0, own0 = 0;
	struct sb_row *rows;
	char where[300];
	int i, nrows, ret;

	if (sb_machine_cpu(&busy0, &total0) == 0)
		own0 = sb_cpu_with_children();
	tmpl->loopback = host == NULL;
	if (host == NULL) {
		host = "127.0.0.1";
		snprintf(where, sizeof(where),
			 "over loopback, a pair of processes per transport");
	} else {
		snprintf(where, sizeof(where), "client here, server %s port %d",
			 host, port);
	}
	resolve(tmpl, host);
	if (sb_plan_has_fi(o))
		o->fi = sb_fi_probe(tmpl->loopback);
	for (i = 0; i < o->ntransports; i++)
		sb_agent_start(agents, i, tmpl, o->transports[i], port);
	sb_report_header(o, where);
	rows = sb_run_plan(agents, o, &nrows);
	for (i = 0; i < o->ntransports; i++)
		sb_agent_stop(&agents[i]);
	printf("\n");
	if (total0 > 0)
		report_others(busy0, total0, own0);
	ret = sb_report_files(o, rows, nrows);
	free(rows);
	return ret < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	/* Every size the targets name (8 B, 4 KiB, 64 KiB, 1 MiB). */
	static const uint64_t std_sizes[] = { 8, 64, 512, 4096, 32768, 65536,
					      262144, 1 << 20, 4 << 20 };
	static const uint64_t quick_sizes[] = { 8, 65536, 4 << 20 };
	struct sb_opts o;
	struct sb_ctx c;
	const char *host = NULL, *sizes = NULL, *transports;
	char *cmdline, *tlist;
	bool server = false;
	long time_ms = -1, eps = -1, reps = -1, iters = 0;
	double idle = -1;
	int i, port = 0, ret;

	memset(&o, 0, sizeof(o));
	memset(&c, 0, sizeof(c));
	o.ia_name = DEFAULT_IA;
	o.modes = (1 << SB_POLL) | (1 << SB_BLOCK);
	o.window = 32;
	o.rate_window = 64;
	transports = getenv("SOFTDAPL_TRANSPORT");
	if (transports == NULL || !known_transport(transports))
		transports = "auto";	/* the provider's default */
	cmdline = join(argc, argv);
	o.cmdline = cmdline;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool takes = true;

		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			return 0;
		} else if (strcmp(a, "--quick") == 0) {
			o.quick = true;
			takes = false;
		} else if (strcmp(a, "--server") == 0) {
			server = true;
			takes = false;
		} else if (v == NULL) {
			fprintf(stderr, "softbench: %s: unknown option or missing value\n", a);
			usage(stderr);
			return 2;
		} else if (strcmp(a, "--transport") == 0) {
			transports = v;		/* the last one counts */
		} else if (strcmp(a, "-D") == 0) {
			o.ia_name = v;
		} else if (strcmp(a, "--only") == 0) {
			o.only = v;
		} else if (strcmp(a, "--mode") == 0) {
			if (strcmp(v, "poll") == 0)
				o.modes = 1 << SB_POLL;
			else if (strcmp(v, "block") == 0)
				o.modes = 1 << SB_BLOCK;
			else if (strcmp(v, "both") != 0)
				sb_die("--mode: poll, block or both");
		} else if (strcmp(a, "--sizes") == 0) {
			sizes = v;
		} else if (strcmp(a, "--reps") == 0) {
			reps = number(a, v, 1, 63);
		} else if (strcmp(a, "--time") == 0) {
			time_ms = number(a, v, 1, 60000);
		} else if (strcmp(a, "--iters") == 0) {
			iters = number(a, v, 1, 100000000);
		} else if (strcmp(a, "--window") == 0) {
			o.window = (uint32_t)number(a, v, 1, 256);
		} else if (strcmp(a, "--rate-window") == 0) {
			o.rate_window = (uint32_t)number(a, v, 1, 256);
		} else if (strcmp(a, "--eps") == 0) {
			eps = number(a, v, 1, 10000);
		} else if (strcmp(a, "--idle") == 0) {
			idle = atof(v);
			if (!(idle > 0 && idle < 3600))
				sb_die("--idle: seconds, more than 0");
		} else if (strcmp(a, "--csv") == 0) {
			o.csv = v;
		} else if (strcmp(a, "--plot") == 0) {
			o.plot = v;
		} else if (strcmp(a, "--client") == 0) {
			host = v;
		} else if (strcmp(a, "--port") == 0) {
			port = (int)number(a, v, 1, 65535);
		} else {
			fprintf(stderr, "softbench: %s: unknown option\n", a);
			usage(stderr);
			return 2;
		}
		i += takes;
	}
	if (o.only != NULL) {
		char *list = strdup(o.only), *name, *save = NULL;

		for (name = strtok_r(list, ",", &save); name != NULL;
		     name = strtok_r(NULL, ",", &save))
			if (sb_test_by_name(name) < 0)
				sb_die("--only: no test named '%s' (see --help)", name);
		free(list);
	}
	tlist = strdup(transports);
	if (tlist == NULL)
		sb_die("out of memory");
	parse_transports(&o, tlist);
	if (sizes != NULL) {
		parse_sizes(&o, sizes);
	} else if (o.quick) {
		memcpy(o.sizes, quick_sizes, sizeof(quick_sizes));
		o.nsizes = (int)(sizeof(quick_sizes) / sizeof(quick_sizes[0]));
	} else {
		memcpy(o.sizes, std_sizes, sizeof(std_sizes));
		o.nsizes = (int)(sizeof(std_sizes) / sizeof(std_sizes[0]));
	}
	o.reps = (int)(reps > 0 ? reps : o.quick ? 3 : 7);
	o.target_s = (double)(time_ms > 0 ? time_ms : o.quick ? 5 : 30) / 1000;
	o.iters = (uint64_t)iters;
	o.eps = (uint32_t)(eps > 0 ? eps : o.quick ? 200 : 2000);
	o.idle_s = idle > 0 ? idle : o.quick ? 0.5 : 3;
	o.progress = isatty(STDERR_FILENO);
	if (o.plot != NULL && o.csv == NULL)
		sb_die("--plot needs --csv (the plot is drawn from it)");
	if (server && host != NULL)
		sb_die("--server and --client exclude each other");
	if (host != NULL && port == 0)
		sb_die("--client needs the server's --port");
	if ((server || host != NULL) && o.ntransports > 1)
		sb_die("--server and --client take one transport (a server "
		       "serves one session)");

	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	raise_fd_limit();
	write_conf(o.ia_name, server || host != NULL ? "0.0.0.0" : "lo");
	c.ia_name = o.ia_name;

	if (server) {
		sb_role = "server";
		c.server = true;
		setenv("SOFTDAPL_TRANSPORT", o.transports[0], 1);
		sb_serve(&c, port, -1);
		return 0;
	}
	ret = run_client(&o, &c, host, port);
	free(tlist);
	free(cmdline);
	return ret;
}
