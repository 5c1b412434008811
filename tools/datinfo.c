/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * datinfo: what the DAT registry makes of a dat.conf, line by line, and
 * what each IA in it answers when opened; with --why NAME, why a consumer's
 * dat_ia_open(NAME) fails and what to do; with --explain VALUE..., what a
 * DAT_RETURN, DTO status or event number means. See datinfo.h for the
 * parts and tools/man/datinfo.1 for the user's view.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "datinfo.h"

struct di_opts di_opts;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: datinfo [-f dat.conf] [-v | -q] [-u] [IA...]\n"
		"       datinfo [-f dat.conf] [-v] --why IA\n"
		"       datinfo --explain VALUE...\n"
		"\n"
		"Reports which dat.conf the DAT registry reads and why, each of its lines\n"
		"with its verdict (OK, BAD, UNUSABLE, FALLBACK, OFF) and the reason, and\n"
		"the attributes of every IA that opens. With IA names, only their lines.\n"
		"\n"
		"  -f, --file FILE  read FILE (passed to the registry as DAT_OVERRIDE)\n"
		"  -w, --why IA     explain why dat_ia_open(IA) fails: the lines naming it,\n"
		"                   near-miss names, what dat_ia_open returns, what to do\n"
		"  -e, --explain VALUE...\n"
		"                   what DAT values mean: a DAT_RETURN, DTO completion\n"
		"                   status or event number, by number (0x800b0059,\n"
		"                   -2146762663, 1) or by name (DAT_DTO_ERR_FLUSHED,\n"
		"                   invalid_handle_ep); every argument after it is a\n"
		"                   VALUE; reads no dat.conf, opens no IA\n"
		"  -v, --verbose    every attribute, the library search, the registry's\n"
		"                   debug output\n"
		"  -q, --quiet      one line per entry, no attributes\n"
		"  -u, --usable     only the entries that open (exit 0 when one does)\n"
		"  -h, --help       this text\n"
		"\n"
		"Exit status:\n"
		"  0  every entry opened (OFF and FALLBACK lines do not count);\n"
		"     --why: the IA opens; --explain: every VALUE was explained\n"
		"  1  a line is BAD or UNUSABLE, or an IA does not open;\n"
		"     --why: dat_ia_open fails; --explain: a VALUE is unknown\n"
		"  2  usage error\n"
		"  3  no dat.conf could be read, or it holds no entries\n"
		"\n"
		"Environment: DAT_OVERRIDE (the dat.conf), LD_LIBRARY_PATH (the library\n"
		"search), DAT_DBG_TYPE (when set, the registry's debug output is left to\n"
		"it instead of being collected by datinfo).\n");
}

/* A usage error: @why, then the usage; the exit status. */
static int usage_error(const char *why)
{
	fprintf(stderr, "datinfo: %s\n", why);
	usage(stderr);
	return DI_EXIT_USAGE;
}

/*
 * The index of the argument that starts --explain (-e, -eVALUE, --explain,
 * --explain=VALUE) or the hidden --explain-all, or @argc. It is found
 * before getopt runs, which then sees only the arguments before it: what
 * follows is VALUEs, never options, so that a negative number such as
 * -2146762663 is explained rather than refused.
 */
static int explain_index(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0)
			break;
		if (strncmp(a, "-e", 2) == 0 || strcmp(a, "--explain") == 0 ||
		    strncmp(a, "--explain=", 10) == 0 ||
		    strcmp(a, "--explain-all") == 0)
			return i;
	}
	return argc;
}

/*
 * --explain: @argv[0] is the option, the VALUEs follow it (a value
 * attached to the option, as -e1 or --explain=1, comes first).
 */
static int explain(int argc, char **argv)
{
	char *attached = argv[0][1] == 'e' ? argv[0] + 2 : strchr(argv[0], '=');

	if (strcmp(argv[0], "--explain-all") == 0)
		return argc == 1 ? di_explain_all() :
		       usage_error("--explain-all takes no VALUE");
	if (attached != NULL && argv[0][1] == '-')
		attached++;	/* past the '=' of --explain=VALUE */
	if (attached != NULL && attached[0] != '\0') {
		argv[0] = attached;
		return di_explain(argc, argv);
	}
	if (argc == 1)
		return usage_error("--explain needs a VALUE: a number or a name");
	return di_explain(argc - 1, argv + 1);
}

/* Prints the header: the file, why it, and (with -v) the registry. */
static void print_header(const struct di_conf *c)
{
	printf("dat.conf: %s (%s)\n", c->path, c->source);
	if (di_opts.verbose) {
		printf("registry: %s\n", di_registry_path());
		if (c->reg_log != NULL) {
			printf("registry output while reading it:\n");
			di_print_log(c->reg_log, "    ");
		}
	}
}

/* The registry's "dat: using PATH" line, checked against our choice. */
static void check_registry_file(const struct di_conf *c)
{
	const char *p = c->reg_log ? strstr(c->reg_log, "dat: using ") : NULL;
	size_t n;

	if (p == NULL)
		return;
	p += strlen("dat: using ");
	n = strcspn(p, "\n");
	if (strlen(c->path) != n || strncmp(p, c->path, n) != 0)
		printf("warning: the registry (%s) read %.*s, not %s\n",
		       di_registry_path(), (int)n, p, c->path);
}

static bool wanted(const struct di_line *l, int argc, char **argv)
{
	int i;

	if (argc == 0)
		return true;
	for (i = 0; i < argc; i++)
		if (strcmp(argv[i], l->name) == 0)
			return true;
	return false;
}

static void print_line(const struct di_conf *c, const struct di_line *l,
		       int width)
{
	char ret[256];

	printf("%s:%u: %-*s %-8s %s\n", c->path, l->line, width,
	       l->name[0] ? l->name : "-", di_verdict_name(l->verdict), l->why);
	if (di_opts.quiet)
		return;
	if (l->note[0])
		printf("    note: %s\n", l->note);
	if (l->opened_here && (l->open_ret != DAT_SUCCESS || di_opts.verbose))
		printf("    dat_ia_openv(\"%s\", %u.%u, %s): %s\n", l->name,
		       l->conf.api_major, l->conf.api_minor,
		       l->conf.thread_safe ? "DAT_TRUE" : "DAT_FALSE",
		       di_ret_str(l->open_ret, ret, sizeof(ret)));
	if (di_opts.verbose && l->lib_checked) {
		printf("    library %s: looked at %s\n", l->conf.lib_path,
		       l->lib_search);
		if (l->lib_path[0])
			printf("    found %s (%s)%s\n", l->lib_path, l->lib_how,
			       l->step > DI_STEP_SYMBOL || l->step == DI_STEP_DUP ?
			       (l->has_fini ? ", exports dat_provider_init and _fini" :
				", exports dat_provider_init, no dat_provider_fini") : "");
	}
	if (di_opts.verbose && !l->bad)
		printf("    ia_params \"%s\", provider_ver %s, platform_params \"%s\"\n",
		       l->conf.ia_params, l->conf.provider_ver,
		       l->conf.platform_params);
	if (l->attrs != NULL && !di_opts.verbose)
		di_print_log(l->attrs, "    ");
	if (l->attrs_all != NULL && di_opts.verbose)
		di_print_log(l->attrs_all, "    ");
	if (di_opts.verbose && l->reg_log != NULL) {
		printf("    registry and provider output:\n");
		di_print_log(l->reg_log, "      ");
	}
}

/* Whether line @l is printed: wanted, and with -u, one that opens. */
static bool shown(const struct di_line *l, int argc, char **argv)
{
	return wanted(l, argc, argv) && (!di_opts.usable || l->verdict == DI_OK);
}

/* The counts of the report, one line. */
static void print_counts(const unsigned *n, unsigned total)
{
	printf("%u entr%s: %u OK, %u UNUSABLE, %u BAD, %u FALLBACK, %u OFF\n",
	       total, total == 1 ? "y" : "ies", n[DI_OK], n[DI_UNUSABLE],
	       n[DI_BAD], n[DI_FALLBACK], n[DI_OFF]);
}

/*
 * The report of every line (or those of @argv, or with -u those that
 * open), the counts before and after the lines; returns the exit status.
 */
static int report(struct di_conf *c, int argc, char **argv)
{
	unsigned n[DI_OFF + 1] = { 0 }, total = 0, hidden = 0;
	int width = 8, status = DI_EXIT_OK;
	size_t i;

	for (i = 0; i < c->count; i++) {
		const struct di_line *l = &c->lines[i];

		if (!wanted(l, argc, argv))
			continue;
		n[l->verdict]++;
		total++;
		if (l->verdict == DI_BAD || l->verdict == DI_UNUSABLE)
			status = DI_EXIT_UNUSABLE;
		if (!shown(l, argc, argv))
			hidden++;
		else if ((int)strlen(l->name) > width)
			width = (int)strlen(l->name);
	}
	if (argc > 0 && total == 0) {
		printf("no line of %s names %s%s: datinfo --why %s tells why\n",
		       c->path, argv[0], argc > 1 ? " (or the others)" : "",
		       argv[0]);
		return DI_EXIT_UNUSABLE;
	}
	print_counts(n, total);
	for (i = 0; i < c->count; i++)
		if (shown(&c->lines[i], argc, argv))
			print_line(c, &c->lines[i], width);
	if (di_opts.usable) {
		if (n[DI_OK] == 0)
			printf("no entry opens: datinfo without -u says why\n");
		else if (hidden > 0)
			printf("%u entr%s not shown (-u): datinfo without -u "
			       "lists them\n", hidden, hidden == 1 ? "y" : "ies");
		return n[DI_OK] > 0 ? DI_EXIT_OK : DI_EXIT_UNUSABLE;
	}
	if (total > 8)		/* the counts again, after a long list */
		print_counts(n, total);
	if (status != DI_EXIT_OK && !di_opts.quiet)
		printf("for what to do about one: datinfo --why NAME\n");
	return status;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "file", required_argument, NULL, 'f' },
		{ "why", required_argument, NULL, 'w' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "usable", no_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	DAT_PROVIDER_INFO info[1], *list[1] = { &info[0] };
	struct di_conf c;
	const char *why = NULL;
	bool from_f = false;
	DAT_COUNT n = 0;
	int opt, status, ex = explain_index(argc, argv);

	while ((opt = getopt_long(ex, argv, "f:w:vquh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			from_f = true;
			if (setenv("DAT_OVERRIDE", optarg, 1) != 0) {
				perror("datinfo: setenv DAT_OVERRIDE");
				return DI_EXIT_USAGE;
			}
			break;
		case 'w':
			why = optarg;
			break;
		case 'v':
			di_opts.verbose = 1;
			break;
		case 'q':
			di_opts.quiet = 1;
			break;
		case 'u':
			di_opts.usable = 1;
			break;
		case 'h':
			usage(stdout);
			return DI_EXIT_OK;
		default:
			usage(stderr);
			return DI_EXIT_USAGE;
		}
	}
	if (ex < argc) {
		/* Before anything reads dat.conf: --explain needs none. */
		if (from_f || why != NULL || di_opts.verbose || di_opts.quiet ||
		    di_opts.usable || optind < ex)
			return usage_error("--explain reads no dat.conf and opens no IA: it takes no other option or IA name");
		return explain(argc - ex, argv + ex);
	}
	if ((di_opts.verbose && di_opts.quiet) || (why != NULL && optind < argc))
		return usage_error(why ? "--why takes one IA name and no others" :
				   "-v and -q do not go together");

	/*
	 * The registry reads DAT_DBG_TYPE once, at the first DAT call: unless
	 * the user chose, ask for errors, the file read and the static
	 * registry's messages on stderr, which di_capture_* collect.
	 */
	if (getenv("DAT_DBG_TYPE") == NULL) {
		setenv("DAT_DBG_TYPE", "0x7", 1);
		unsetenv("DAT_DBG_DEST");
		di_opts.capture = true;
	}

	memset(&c, 0, sizeof(c));
	di_conf_path(&c);
	if (from_f)
		di_fmt(c.source, sizeof(c.source),
		       "given with -f, passed to the registry as DAT_OVERRIDE");
	/* The first DAT call: the registry reads its dat.conf now. */
	di_capture_begin();
	dat_registry_list_providers(1, &n, list);
	c.reg_log = di_capture_end();

	if (why != NULL) {
		status = di_why(&c, why);
		di_conf_free(&c);
		return status;
	}

	print_header(&c);
	check_registry_file(&c);
	if (di_conf_load(&c) != 0) {
		printf("%s: %s\n", c.path, c.error);
		if (getenv("DAT_OVERRIDE") != NULL)
			printf("the registry registers no provider from a file then: it does not fall back to the system dat.conf\n");
		else
			printf("create it (dat.conf.example shows the format), or point DAT_OVERRIDE at a dat.conf\n");
		di_conf_free(&c);
		return DI_EXIT_NOCONF;
	}
	if (c.count == 0) {
		printf("%s holds no entries (only comments and blank lines): no IA can be opened; dat.conf.example shows the format\n",
		       c.path);
		di_conf_free(&c);
		return DI_EXIT_NOCONF;
	}
	di_check_lines(&c, NULL);
	status = report(&c, argc - optind, argv + optind);
	di_conf_free(&c);
	return status;
}
