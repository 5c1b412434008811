/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softbench: how softdapl compares with raw TCP between two processes.
 *
 *   softbench [options]                    both processes, over loopback
 *   softbench --server [--port N]          one host of two...
 *   softbench --client HOST --port N       ...and the other
 *
 * See usage() and the README's "Benchmarks". This file holds the options,
 * the dat.conf and the two processes; softbench.h says where the rest is.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "softbench.h"

#define DEFAULT_IA	"softdapl-lo"

static void usage(FILE *f)
{
	fprintf(f,
"usage: softbench [options]                 server and client over loopback\n"
"       softbench --server [--port N]       serve one session (two hosts)\n"
"       softbench --client HOST --port N    run against that server\n"
"\n"
"  -D NAME          the IA both sides open (default " DEFAULT_IA "); unless\n"
"                   DAT_OVERRIDE is set, a temporary dat.conf names the\n"
"                   libdaplsoft.so.2 of this build with \"lo\" (\"0.0.0.0\"\n"
"                   for --server and --client)\n"
"  --quick          a few seconds: sizes 8 B, 64 KiB, 4 MiB, 3 short runs,\n"
"                   200 endpoint pairs, 0.5 s idle\n"
"  --fi-pingpong    then fi_pingpong -p tcp -e msg (libfabric-bin) at the\n"
"                   sizes up to 1 MiB: send-lat poll by libfabric's tcp\n"
"                   provider, one way, median of the runs (loopback only)\n"
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
"  --transport T    what softdapl's connections use on one host: auto\n"
"                   (shared memory, the default), tcp or copy (sets\n"
"                   SOFTDAPL_TRANSPORT for both processes)\n");
}

static char conf_path[1024];
static pid_t conf_owner;

static void remove_conf(void)
{
	if (conf_path[0] != '\0' && getpid() == conf_owner)
		unlink(conf_path);
}

/* Ctrl-C: the dat.conf goes too (unlink is async-signal-safe). */
static void on_signal(int sig)
{
	remove_conf();
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
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
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

/* Starts the server process; returns its pid and its control port. */
static pid_t fork_server(struct sb_ctx *c, int *port)
{
	char line[32] = "";
	ssize_t n, got = 0;
	int fds[2];
	pid_t pid;

	if (pipe(fds) < 0)
		sb_die("pipe: %s", strerror(errno));
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		sb_die("fork: %s", strerror(errno));
	if (pid == 0) {
		close(fds[0]);
		sb_role = "server";
		c->server = true;
		sb_serve(c, 0, fds[1]);
		exit(0);
	}
	close(fds[1]);
	while (got < (ssize_t)sizeof(line) - 1 &&
	       (n = read(fds[0], line + got, sizeof(line) - 1 - (size_t)got)) > 0)
		got += n;
	close(fds[0]);
	*port = atoi(line);
	if (*port <= 0)
		sb_die("the server process did not start");
	return pid;
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
	       others > 0.1 ? ": the numbers are disturbed, run it again on an "
	       "idle machine" : "");
}

static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int main(int argc, char **argv)
{
	/* Every size the targets name (8 B, 4 KiB, 64 KiB, 1 MiB). */
	static const uint64_t std_sizes[] = { 8, 64, 512, 4096, 32768, 65536,
					      262144, 1 << 20, 4 << 20 };
	static const uint64_t quick_sizes[] = { 8, 65536, 4 << 20 };
	struct sb_opts o;
	struct sb_ctx c;
	const char *host = NULL, *sizes = NULL;
	char where[300], *cmdline;
	bool server = false;
	long time_ms = -1, eps = -1, reps = -1, iters = 0;
	double idle = -1;
	int i, port = 0, status, ret;
	double busy0 = 0, total0 = 0, own0 = 0;
	struct sb_row *rows;
	int nrows;
	pid_t pid = -1;

	memset(&o, 0, sizeof(o));
	memset(&c, 0, sizeof(c));
	o.ia_name = DEFAULT_IA;
	o.modes = (1 << SB_POLL) | (1 << SB_BLOCK);
	o.window = 32;
	o.rate_window = 64;
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
		} else if (strcmp(a, "--fi-pingpong") == 0) {
			o.fi_pingpong = true;
			takes = false;
		} else if (strcmp(a, "--server") == 0) {
			server = true;
			takes = false;
		} else if (v == NULL) {
			fprintf(stderr, "softbench: %s: unknown option or missing value\n", a);
			usage(stderr);
			return 2;
		} else if (strcmp(a, "--transport") == 0) {
			if (strcmp(v, "auto") != 0 && strcmp(v, "tcp") != 0 &&
			    strcmp(v, "copy") != 0)
				sb_die("--transport: auto, tcp or copy");
			setenv("SOFTDAPL_TRANSPORT", v, 1);
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

	signal(SIGPIPE, SIG_IGN);
	raise_fd_limit();
	write_conf(o.ia_name, server || host != NULL ? "0.0.0.0" : "lo");
	c.ia_name = o.ia_name;

	if (server) {
		sb_role = "server";
		c.server = true;
		sb_serve(&c, port, -1);
		return 0;
	}
	if (sb_machine_cpu(&busy0, &total0) == 0)
		own0 = sb_cpu_with_children();
	if (host == NULL) {
		c.loopback = true;
		pid = fork_server(&c, &port);
		host = "127.0.0.1";
		snprintf(where, sizeof(where),
			 "two processes over loopback (127.0.0.1)");
	} else {
		snprintf(where, sizeof(where), "client here, server %s port %d",
			 host, port);
	}
	resolve(&c, host);
	c.ctl = sb_tcp_connect((struct sockaddr *)&c.peer, c.peer_len, port);
	sb_client_start(&c);
	sb_report_header(&o, where);
	rows = sb_run_plan(&c, &o, &nrows);
	if (o.fi_pingpong && c.loopback)
		sb_fi_pingpong(&o);
	sb_client_quit(&c);
	sb_dat_close(&c);
	sb_tcp_close(&c);
	close(c.ctl);
	if (pid > 0) {
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			sb_die("the server process failed");
	}
	printf("\n");
	if (total0 > 0)
		report_others(busy0, total0, own0);
	ret = sb_report_files(&o, rows, nrows);
	free(rows);
	free(cmdline);
	return ret < 0 ? 1 : 0;
}
