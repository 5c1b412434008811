/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tools/datinfo, run as a user runs it: against dat.conf files written
 * here, one per reason a line is not used, and --why on a typo. Output is
 * checked by the phrases that matter (ASSERT_STR_CONTAINS), not whole, so
 * that wording around them may change; the exit codes are checked exactly,
 * as scripts depend on them (0 OK, 1 unusable, 2 usage, 3 no dat.conf).
 * --explain is run on values of every kind, and its hidden --explain-all
 * is checked against dat_strerror's names and tools/dat-names.h.
 */
#include <net/if.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "test.h"
#include "../tools/dat-names.h"

#define MAX_ARGS 16

/* build/tools/datinfo, beside build/test. */
static const char *datinfo_path(void)
{
	static char path[1024];

	snprintf(path, sizeof(path), "%s/../tools/datinfo", test_builddir());
	return path;
}

/* A library of the build tree: "lib/libdaplsoft.so.2", "test/libfake-noinit.so". */
static const char *built(const char *rel)
{
	static char buf[8][1024];
	static int next;
	char *b = buf[next++ % 8];

	snprintf(b, sizeof(buf[0]), "%s/../%s", test_builddir(), rel);
	return b;
}

/*
 * Writes @conf (NULL: none) to $TEST_TMPDIR/dat.conf with DAT_OVERRIDE
 * naming it, runs datinfo with the NULL-terminated arguments, and returns
 * its output (stdout and stderr) with its exit code in *@code. The
 * registry's debug variables are cleared, as a user's usually are.
 */
static char *run_datinfo(const char *conf, int *code, ...)
{
	const char *argv[MAX_ARGS + 2];
	char *out = NULL;
	va_list ap;
	int n = 0, status;

	if (conf != NULL)
		test_dat_conf(conf);
	test_setenv("DAT_DBG_TYPE", NULL);
	test_setenv("DAT_DBG_DEST", NULL);
	argv[n++] = datinfo_path();
	va_start(ap, code);
	while (n < MAX_ARGS && (argv[n] = va_arg(ap, const char *)) != NULL)
		n++;
	va_end(ap);
	argv[n] = NULL;
	ASSERT_OK(test_run_cmd(60, &status, &out, argv));
	printf("$ datinfo ...\n%s", out);
	ASSERT(WIFEXITED(status));
	*code = WEXITSTATUS(status);
	return out;
}

/* One dat.conf line for @lib: name, version, thread safety, default. */
static const char *conf_line(const char *name, const char *ver,
			     const char *ts, const char *def, const char *lib,
			     const char *params)
{
	static char buf[8][1024];
	static int next;
	char *b = buf[next++ % 8];

	snprintf(b, sizeof(buf[0]), "%s %s %s %s %s softdapl.2.0 \"%s\" \"\"\n",
		 name, ver, ts, def, lib, params);
	return b;
}

static const char *provider(void)
{
	return built("lib/libdaplsoft.so.2");
}

TEST_IMPL(datinfo_good_entry)
{
	char *out;
	int code;

	out = run_datinfo(conf_line("dt-lo", "u2.0", "nonthreadsafe", "default",
				    provider(), "lo"), &code, NULL);
	ASSERT_EQ(code, 0);
	ASSERT_STR_CONTAINS(out, "named by the DAT_OVERRIDE environment variable");
	ASSERT_STR_CONTAINS(out, "dat.conf:1: dt-lo");
	ASSERT_STR_CONTAINS(out, " OK ");
	ASSERT_STR_CONTAINS(out, "(absolute path)");
	ASSERT_STR_CONTAINS(out, "address 127.0.0.1");
	ASSERT_STR_CONTAINS(out, "max_eps ");
	ASSERT_STR_CONTAINS(out, "max_rdma_read_per_ep ");
	ASSERT_STR_CONTAINS(out, "srq: yes");
	ASSERT_STR_CONTAINS(out, "extensions: IB");
	ASSERT_STR_CONTAINS(out, "provider softdapl");
	ASSERT_STR_CONTAINS(out, "not thread safe");
	ASSERT_STR_CONTAINS(out, "connections on this host: shared memory, RDMA "
			    "placed by the initiator where the kernel allows, "
			    "else TCP (SOFTDAPL_TRANSPORT=auto)");
	ASSERT_STR_CONTAINS(out, "1 entry: 1 OK, 0 UNUSABLE");
	free(out);

	/* The transport setting, as the provider took it. */
	test_setenv("SOFTDAPL_TRANSPORT", "tcp");
	out = run_datinfo(NULL, &code, NULL);
	ASSERT_EQ(code, 0);
	ASSERT_STR_CONTAINS(out, "connections on this host: TCP "
			    "(SOFTDAPL_TRANSPORT=tcp)");
	free(out);
	test_setenv("SOFTDAPL_TRANSPORT", NULL);

	/* -v: every attribute, the library search, the registry's output. */
	out = run_datinfo(NULL, &code, "-v", NULL);
	ASSERT_EQ(code, 0);
	ASSERT_STR_CONTAINS(out, "registry: ");
	ASSERT_STR_CONTAINS(out, "dat: using ");
	ASSERT_STR_CONTAINS(out, "dat: IA dt-lo: loading ");
	ASSERT_STR_CONTAINS(out, "DAT_SUCCESS (0x00000000)");
	ASSERT_STR_CONTAINS(out, "exports dat_provider_init and _fini");
	ASSERT_STR_CONTAINS(out, "max_lmr_block_size");
	ASSERT_STR_CONTAINS(out, "provider_specific_attr");
	ASSERT_STR_CONTAINS(out, "DAT_IB_RDMA_READ");
	free(out);

	/* -q: the verdict line, no attributes. */
	out = run_datinfo(NULL, &code, "-q", NULL);
	ASSERT_EQ(code, 0);
	ASSERT_STR_CONTAINS(out, "dat.conf:1: dt-lo");
	ASSERT_NULL(strstr(out, "max_eps"));
	free(out);
	return 0;
}

TEST_IMPL(datinfo_malformed_line)
{
	char conf[4096];
	char *out;
	int code;

	snprintf(conf, sizeof(conf), "# a comment\n%sdt-bad u2 nonthreadsafe default %s x.2.0 \"lo\" \"\"\ndt-quote u2.0 nonthreadsafe default %s x.2.0 \"lo \"\"\n",
		 conf_line("dt-lo", "u2.0", "nonthreadsafe", "default",
			   provider(), "lo"), provider(), provider());
	out = run_datinfo(conf, &code, NULL);
	ASSERT_EQ(code, 1);
	ASSERT_STR_CONTAINS(out, "dat.conf:3: dt-bad");
	ASSERT_STR_CONTAINS(out, "BAD");
	ASSERT_STR_CONTAINS(out, "field 2 (api_ver) is \"u2\"");
	ASSERT_STR_CONTAINS(out, "dat.conf:4: dt-quote");
	ASSERT_STR_CONTAINS(out, "unterminated quoted string");
	/* A bad line hides nothing after it or before it. */
	ASSERT_STR_CONTAINS(out, "3 entries: 1 OK, 0 UNUSABLE, 2 BAD");
	free(out);
	return 0;
}

TEST_IMPL(datinfo_wrong_version)
{
	char conf[4096];
	char *out;
	int code;

	snprintf(conf, sizeof(conf), "%s%s",
		 conf_line("dt-old", "u1.2", "nonthreadsafe", "default",
			   provider(), "lo"),
		 conf_line("dt-kernel", "k2.0", "nonthreadsafe", "default",
			   provider(), "lo"));
	out = run_datinfo(conf, &code, NULL);
	/*
	 * A u1.2 line is OFED's compat-dapl's: ours serves DAT 1.2 from
	 * u2.0 lines, so it is off, as a kDAPL line is (OFF lines do not
	 * make the exit status).
	 */
	ASSERT_EQ(code, 0);
	ASSERT_STR_CONTAINS(out, "dat.conf:1: dt-old");
	ASSERT_STR_CONTAINS(out, "OFF      u1.2 is for OFED's compat-dapl");
	ASSERT_STR_CONTAINS(out, "from the u2.0 line of the same name");
	ASSERT_STR_CONTAINS(out, "dat.conf:2: dt-kernel");
	ASSERT_STR_CONTAINS(out, "OFF      k2.0 is a kDAPL");
	free(out);

	/* --why names the subtype the registry returns for it. */
	out = run_datinfo(NULL, &code, "--why", "dt-old", NULL);
	ASSERT_EQ(code, 1);
	ASSERT_STR_CONTAINS(out, "DAT_PROVIDER_NOT_FOUND DAT_MAJOR_NOT_FOUND");
	ASSERT_STR_CONTAINS(out, "write u2.0 in field 2 of line 1");
	free(out);
	return 0;
}

TEST_IMPL(datinfo_thread_safety_default)
{
	char conf[4096];
	char *out;
	int code;

	snprintf(conf, sizeof(conf), "%s%s%s",
		 conf_line("dt-ts", "u2.0", "threadsafe", "default",
			   provider(), "lo"),
		 conf_line("dt-off", "u2.0", "nonthreadsafe", "nondefault",
			   provider(), "lo"),
		 conf_line("dt-lo", "u2.0", "nonthreadsafe", "default",
			   provider(), "lo"));
	out = run_datinfo(conf, &code, NULL);
	/* A threadsafe line opens with its key; OFF lines do not count. */
	ASSERT_EQ(code, 0);
	ASSERT_STR_CONTAINS(out, "only dat_ia_openv(..., DAT_TRUE) finds it");
	ASSERT_STR_CONTAINS(out, "dat.conf:2: dt-off");
	ASSERT_STR_CONTAINS(out, "marked nondefault");
	ASSERT_STR_CONTAINS(out, "3 entries: 2 OK, 0 UNUSABLE, 0 BAD, 0 FALLBACK, 1 OFF");
	free(out);

	/* But dat_ia_open, which asks for nonthreadsafe, does not find it. */
	out = run_datinfo(NULL, &code, "--why", "dt-ts", NULL);
	ASSERT_EQ(code, 1);
	ASSERT_STR_CONTAINS(out, "DAT_PROVIDER_NOT_FOUND DAT_THREAD_SAFETY_NOT_FOUND");
	ASSERT_STR_CONTAINS(out, "write nonthreadsafe in field 3 of line 1");
	free(out);

	out = run_datinfo(NULL, &code, "--why", "dt-off", NULL);
	ASSERT_EQ(code, 1);
	ASSERT_STR_CONTAINS(out, "write default in field 4 of line 2");
	free(out);
	return 0;
}

TEST_IMPL(datinfo_missing_library)
{
	char conf[4096], llp[2048];
	char *out;
	int code;

	snprintf(conf, sizeof(conf), "%s%s%s",
		 conf_line("dt-abs", "u2.0", "nonthreadsafe", "default",
			   "/nonexistent/libdatinfo-none.so.2", "lo"),
		 conf_line("dt-bare", "u2.0", "nonthreadsafe", "default",
			   "libdatinfo-none.so.2", "lo"),
		 conf_line("dt-soft", "u2.0", "nonthreadsafe", "default",
			   "libdaplsoft.so.2", "lo"));
	/* The bare name is searched in LD_LIBRARY_PATH, as dlopen does. */
	snprintf(llp, sizeof(llp), "%s", built("lib"));
	test_setenv("LD_LIBRARY_PATH", llp);
	out = run_datinfo(conf, &code, NULL);
	ASSERT_EQ(code, 1);
	ASSERT_STR_CONTAINS(out, "library /nonexistent/libdatinfo-none.so.2: No such file or directory");
	ASSERT_STR_CONTAINS(out, "library libdatinfo-none.so.2 not found: looked in LD_LIBRARY_PATH (");
	ASSERT_STR_CONTAINS(out, "/etc/ld.so.cache");
	ASSERT_STR_CONTAINS(out, "dat_ia_openv(\"dt-bare\", 2.0, DAT_FALSE): DAT_PROVIDER_NOT_FOUND DAT_NAME_NOT_REGISTERED");
	ASSERT_STR_CONTAINS(out, ", from LD_LIBRARY_PATH)");
	ASSERT_STR_CONTAINS(out, "3 entries: 1 OK, 2 UNUSABLE");
	free(out);

	out = run_datinfo(NULL, &code, "--why", "dt-bare", NULL);
	ASSERT_EQ(code, 1);
	ASSERT_STR_CONTAINS(out, "cannot load libdatinfo-none.so.2");
	ASSERT_STR_CONTAINS(out, "as an absolute path, or add the library's directory to LD_LIBRARY_PATH");
	free(out);
	return 0;
}

/*
 * The counts come first, before a long list of lines; -u shows only the
 * entries that open, says how many it left out, and exits 0 when one
 * opens, 1 when none does.
 */
TEST_IMPL(datinfo_usable_summary)
{
	char conf[4096];
	const char *counts, *first;
	char *out;
	int code;

	snprintf(conf, sizeof(conf), "%s%s%s",
		 conf_line("dt-gone", "u2.0", "nonthreadsafe", "default",
			   "/nonexistent/libdatinfo-none.so.2", "lo"),
		 conf_line("dt-ok", "u2.0", "nonthreadsafe", "default",
			   provider(), "lo"),
		 conf_line("dt-old", "u1.2", "nonthreadsafe", "default",
			   provider(), "lo"));
	out = run_datinfo(conf, &code, "-q", NULL);
	ASSERT_EQ(code, 1);
	counts = strstr(out, "3 entries: 1 OK, 1 UNUSABLE, 0 BAD, 0 FALLBACK, 1 OFF");
	first = strstr(out, "dt-gone");
	ASSERT_NOT_NULL(counts);
	ASSERT_NOT_NULL(first);
	ASSERT(counts < first);		/* the summary is the first line after the file */
	free(out);

	out = run_datinfo(NULL, &code, "-u", NULL);
	ASSERT_EQ(code, 0);
	ASSERT_STR_CONTAINS(out, "3 entries: 1 OK, 1 UNUSABLE");
	ASSERT_STR_CONTAINS(out, "dt-ok");
	ASSERT_NULL(strstr(out, "dt-gone"));
	ASSERT_NULL(strstr(out, "dt-old"));
	ASSERT_STR_CONTAINS(out, "2 entries not shown (-u): datinfo without -u lists them");
	free(out);

	snprintf(conf, sizeof(conf), "%s",
		 conf_line("dt-gone", "u2.0", "nonthreadsafe", "default",
			   "/nonexistent/libdatinfo-none.so.2", "lo"));
	out = run_datinfo(conf, &code, "-u", NULL);
	ASSERT_EQ(code, 1);
	ASSERT_STR_CONTAINS(out, "no entry opens: datinfo without -u says why");
	free(out);
	return 0;
}

TEST_IMPL(datinfo_not_a_provider)
{
	char conf[4096];
	char *out;
	int code;

	test_write_file(test_path("libtext.so"), "not an ELF file\n");
	snprintf(conf, sizeof(conf), "%s%s%s%s",
		 conf_line("dt-dat2", "u2.0", "nonthreadsafe", "default",
			   built("lib/libdat2.so.2"), "lo"),
		 conf_line("dt-noinit", "u2.0", "nonthreadsafe", "default",
			   built("test/libfake-noinit.so"), "lo"),
		 conf_line("dt-text", "u2.0", "nonthreadsafe", "default",
			   test_path("libtext.so"), "lo"),
		 conf_line("dt-openfail", "u2.0", "nonthreadsafe", "default",
			   built("test/libfake-openfail.so"), "lo"));
	out = run_datinfo(conf, &code, NULL);
	ASSERT_EQ(code, 1);
	ASSERT_STR_CONTAINS(out, "libdat2.so.2 has no dat_provider_init: it is not a DAT provider");
	ASSERT_STR_CONTAINS(out, "libfake-noinit.so has no dat_provider_init");
	/* dlopen's own words. */
	ASSERT_STR_CONTAINS(out, "libtext.so does not load: ");
	ASSERT_STR_CONTAINS(out, "libtext.so: file too short");
	/* A provider that refuses the IA: the return, major and minor. */
	ASSERT_STR_CONTAINS(out, "DAT_INSUFFICIENT_RESOURCES DAT_RESOURCE_MEMORY");
	ASSERT_STR_CONTAINS(out, "4 entries: 0 OK, 4 UNUSABLE");
	free(out);
	return 0;
}

TEST_IMPL(datinfo_duplicate_names)
{
	char conf[4096];
	char *out;
	int code;

	/* A line repeating a key is a fallback, tried if the first fails. */
	snprintf(conf, sizeof(conf), "%s%s%s%s",
		 conf_line("dt-lo", "u2.0", "nonthreadsafe", "default",
			   provider(), "lo"),
		 conf_line("dt-lo", "u2.0", "nonthreadsafe", "default",
			   "/nonexistent/libx.so", "lo"),
		 conf_line("dt-fb", "u2.0", "nonthreadsafe", "default",
			   "/nonexistent/liby.so", "lo"),
		 conf_line("dt-fb", "u2.0", "nonthreadsafe", "default",
			   provider(), "lo"));
	out = run_datinfo(conf, &code, NULL);
	ASSERT_STR_CONTAINS(out, "dat.conf:2: dt-lo");
	ASSERT_STR_CONTAINS(out, "FALLBACK repeats IA dt-lo of line 1");
	ASSERT_STR_CONTAINS(out, "note: library /nonexistent/libx.so: No such file");
	ASSERT_STR_CONTAINS(out, "used instead of line 3, whose library fails");
	ASSERT_STR_CONTAINS(out, "4 entries: 2 OK, 1 UNUSABLE, 0 BAD, 1 FALLBACK");
	ASSERT_EQ(code, 1);
	free(out);
	return 0;
}

TEST_IMPL(datinfo_override_missing)
{
	char *out;
	int code;

	test_setenv("DAT_OVERRIDE", test_path("no-such-dat.conf"));
	out = run_datinfo(NULL, &code, NULL);
	ASSERT_EQ(code, 3);
	ASSERT_STR_CONTAINS(out, "no-such-dat.conf (named by the DAT_OVERRIDE environment variable)");
	ASSERT_STR_CONTAINS(out, "cannot be read: No such file or directory");
	ASSERT_STR_CONTAINS(out, "does not fall back");
	free(out);

	out = run_datinfo(NULL, &code, "--why", "dt-lo", NULL);
	ASSERT_EQ(code, 3);
	ASSERT_STR_CONTAINS(out, "DAT_PROVIDER_NOT_FOUND DAT_NAME_NOT_REGISTERED");
	ASSERT_STR_CONTAINS(out, "point DAT_OVERRIDE at a readable dat.conf");
	free(out);

	/* A file of comments only has no entries: 3 as well. */
	out = run_datinfo("# nothing\n\n", &code, NULL);
	ASSERT_EQ(code, 3);
	ASSERT_STR_CONTAINS(out, "holds no entries");
	free(out);

	/* -f FILE is DAT_OVERRIDE too. */
	test_write_file(test_path("other.conf"),
			conf_line("dt-lo", "u2.0", "nonthreadsafe", "default",
				  provider(), "lo"));
	out = run_datinfo(NULL, &code, "-f", test_path("other.conf"), NULL);
	ASSERT_EQ(code, 0);
	ASSERT_STR_CONTAINS(out, "other.conf:1: dt-lo");
	free(out);
	return 0;
}

TEST_IMPL(datinfo_why_typo)
{
	char conf[4096];
	char *out;
	int code;

	snprintf(conf, sizeof(conf), "%s%s",
		 conf_line("softdapl-lo", "u2.0", "nonthreadsafe", "default",
			   provider(), "lo"),
		 conf_line("other-ia", "u2.0", "nonthreadsafe", "default",
			   provider(), "lo"));
	out = run_datinfo(conf, &code, "--why", "softdapl-ol", NULL);
	ASSERT_EQ(code, 1);
	ASSERT_STR_CONTAINS(out, "has no line for \"softdapl-ol\"");
	ASSERT_STR_CONTAINS(out, "did you mean \"softdapl-lo\" (line 1, 1 edit away)?");
	ASSERT_NULL(strstr(out, "did you mean \"other-ia\""));
	ASSERT_STR_CONTAINS(out, "dat_ia_open(\"softdapl-ol\") returns DAT_PROVIDER_NOT_FOUND DAT_NAME_NOT_REGISTERED (0x800a0064)");
	ASSERT_STR_CONTAINS(out, "pass \"softdapl-lo\"");
	free(out);

	out = run_datinfo(NULL, &code, "--why", "SoftDAPL-lo", NULL);
	ASSERT_EQ(code, 1);
	ASSERT_STR_CONTAINS(out, "differs only in case");
	free(out);

	/* The name of a good line: it opens, exit 0, attributes shown. */
	out = run_datinfo(NULL, &code, "-w", "softdapl-lo", NULL);
	ASSERT_EQ(code, 0);
	ASSERT_STR_CONTAINS(out, "returns DAT_SUCCESS");
	ASSERT_STR_CONTAINS(out, "max_eps ");
	free(out);
	return 0;
}

TEST_IMPL(datinfo_usage)
{
	char *out;
	int code;

	out = run_datinfo(NULL, &code, "--help", NULL);
	ASSERT_EQ(code, 0);
	ASSERT_STR_CONTAINS(out, "usage: datinfo");
	ASSERT_STR_CONTAINS(out, "--why IA");
	ASSERT_STR_CONTAINS(out, "Exit status:");
	ASSERT_STR_CONTAINS(out, "  3  no dat.conf could be read");
	free(out);

	out = run_datinfo(NULL, &code, "--no-such-option", NULL);
	ASSERT_EQ(code, 2);
	ASSERT_STR_CONTAINS(out, "usage: datinfo");
	free(out);

	out = run_datinfo(NULL, &code, "-v", "-q", NULL);
	ASSERT_EQ(code, 2);
	free(out);
	return 0;
}

/*
 * dat.conf.example, its bare library name replaced by this build's
 * provider as tools/demo does, opens every IA it names.
 */
TEST_IMPL(datinfo_example_conf)
{
	char path[1024], *example, *conf, *out, *p, *w;
	const char *lib = provider();
	size_t n = 0;
	int code;

	if (if_nametoindex("eth0") == 0)
		TEST_SKIP("dat.conf.example names eth0, which this host does not have");
	snprintf(path, sizeof(path), "%s/dat.conf.example", TEST_SRCDIR);
	example = test_read_file(path);
	ASSERT_NOT_NULL(example);
	for (p = example; (p = strstr(p, " libdaplsoft.so.2 ")) != NULL; p++)
		n++;
	ASSERT_GE(n, 4);
	conf = malloc(strlen(example) + n * strlen(lib) + 1);
	ASSERT_NOT_NULL(conf);
	for (p = example, w = conf; *p != '\0';) {
		if (strncmp(p, " libdaplsoft.so.2 ", 18) == 0) {
			w += sprintf(w, " %s ", lib);
			p += 18;
		} else {
			*w++ = *p++;
		}
	}
	*w = '\0';
	out = run_datinfo(conf, &code, NULL);
	ASSERT_EQ(code, 0);
	ASSERT_STR_CONTAINS(out, "softdapl-lo ");
	ASSERT_STR_CONTAINS(out, "address ::1");
	ASSERT_STR_CONTAINS(out, " 0 UNUSABLE, 0 BAD");
	free(out);
	free(conf);
	free(example);
	return 0;
}

/*
 * --explain: numbers and names of each kind. DAT_OVERRIDE names a file
 * that does not exist, which the report would stop at (exit 3): it reads
 * no dat.conf. Unknown values exit 1 saying what was expected, and the
 * other values of the call are still explained; usage errors exit 2.
 */
TEST_IMPL(datinfo_explain)
{
	char *out;
	int code;

	test_setenv("DAT_OVERRIDE", test_path("no-such-dat.conf"));

	/* A DAT_RETURN: its class, type and subtype, each with a sentence. */
	out = run_datinfo(NULL, &code, "--explain", "0x800b0059", NULL);
	ASSERT_EQ(code, 0);
	ASSERT_STR_CONTAINS(out, "0x800b0059 as a DAT_RETURN: "
			    "DAT_PRIVILEGES_VIOLATION DAT_PRIVILEGES_READ\n");
	ASSERT_STR_CONTAINS(out, "  class DAT_CLASS_ERROR: the call failed");
	ASSERT_STR_CONTAINS(out, "  type DAT_PRIVILEGES_VIOLATION (0x000b0000): ");
	ASSERT_STR_CONTAINS(out, "  subtype DAT_PRIVILEGES_READ (0x0059): the "
			    "lmr_context of a local_iov segment names an LMR");
	ASSERT_NULL(strstr(out, "no-such-dat.conf"));
	free(out);

	/* The decimal forms of a return code, as %u and %d print it. */
	out = run_datinfo(NULL, &code, "--explain", "2147680256", "-2146762663",
			  NULL);
	ASSERT_EQ(code, 0);
	ASSERT_STR_CONTAINS(out, "2147680256 (0x80030000) as a DAT_RETURN: "
			    "DAT_INSUFFICIENT_RESOURCES\n");
	ASSERT_STR_CONTAINS(out, "  no subtype: ");
	ASSERT_STR_CONTAINS(out, "-2146762663 (0x800b0059) as a DAT_RETURN: "
			    "DAT_PRIVILEGES_VIOLATION DAT_PRIVILEGES_READ\n");
	free(out);

	/* A status by name; 1 is that status and an event, not a return. */
	out = run_datinfo(NULL, &code, "--explain", "DAT_DTO_ERR_FLUSHED", "1",
			  NULL);
	ASSERT_EQ(code, 0);
	ASSERT_STR_CONTAINS(out, "DAT_DTO_ERR_FLUSHED: DTO completion status 1\n"
			    "  the EP became DISCONNECTED");
	ASSERT_STR_CONTAINS(out, "1 as a DTO completion status: "
			    "DAT_DTO_ERR_FLUSHED\n");
	ASSERT_STR_CONTAINS(out, "1 as an event number: "
			    "DAT_DTO_COMPLETION_EVENT\n  a posted DTO finished");
	ASSERT_NULL(strstr(out, "as a DAT_RETURN"));
	free(out);

	/* A subtype in lower case without DAT_: its type, its whole value. */
	out = run_datinfo(NULL, &code, "--explain", "invalid_handle_ep", NULL);
	ASSERT_EQ(code, 0);
	ASSERT_STR_CONTAINS(out, "DAT_INVALID_HANDLE_EP: DAT_RETURN subtype "
			    "0x000c of DAT_INVALID_HANDLE; a call returns it as "
			    "0x8005000c\n");
	ASSERT_STR_CONTAINS(out, "  type DAT_INVALID_HANDLE (0x00050000): ");
	ASSERT_STR_CONTAINS(out, "  subtype DAT_INVALID_HANDLE_EP (0x000c): "
			    "the EP handle is not a live EP");
	free(out);

	/* An event by name; a return as datinfo prints it; an alias. */
	out = run_datinfo(NULL, &code, "-e", "DAT_CONNECTION_EVENT_BROKEN",
			  "DAT_PROVIDER_NOT_FOUND DAT_NAME_NOT_REGISTERED",
			  "DAT_RMR_BIND_FAILURE", NULL);
	ASSERT_EQ(code, 0);
	ASSERT_STR_CONTAINS(out, "DAT_CONNECTION_EVENT_BROKEN: event number "
			    "0x04006\n  the connection failed");
	ASSERT_STR_CONTAINS(out, "DAT_PROVIDER_NOT_FOUND DAT_NAME_NOT_REGISTERED: "
			    "the DAT_RETURN 0x800a0064\n");
	ASSERT_STR_CONTAINS(out, "DAT_RMR_BIND_FAILURE is another name for "
			    "DAT_DTO_ERR_FLUSHED");
	free(out);

	/* Unknown values, each said; the known one still explained. */
	out = run_datinfo(NULL, &code, "--explain", "0x12345678", "DAT_NO_SUCH",
			  "0x8005ffff", "4294967296", "DAT_ABORT", NULL);
	ASSERT_EQ(code, 1);
	ASSERT_STR_CONTAINS(out, "datinfo: 0x12345678: no DAT value has this "
			    "number: expected a DAT_RETURN");
	ASSERT_STR_CONTAINS(out, "datinfo: DAT_NO_SUCH: not a DAT name or "
			    "number: expected a DAT_RETURN type or subtype");
	ASSERT_STR_CONTAINS(out, "  subtype 0xffff: not a subtype of "
			    "dat_error.h");
	ASSERT_STR_CONTAINS(out, "datinfo: 4294967296: not a number a DAT "
			    "value can be: expected 32 bits");
	ASSERT_STR_CONTAINS(out, "DAT_ABORT: DAT_RETURN type 0x00010000");
	free(out);

	/* Usage errors: no VALUE, or anything else with --explain. */
	out = run_datinfo(NULL, &code, "--explain", NULL);
	ASSERT_EQ(code, 2);
	ASSERT_STR_CONTAINS(out, "datinfo: --explain needs a VALUE");
	ASSERT_STR_CONTAINS(out, "usage: datinfo");
	free(out);
	out = run_datinfo(NULL, &code, "-q", "--explain", "1", NULL);
	ASSERT_EQ(code, 2);
	ASSERT_STR_CONTAINS(out, "it takes no other option or IA name");
	free(out);
	return 0;
}

/*
 * Whether @out has the line that starts as @fmt formats, and a sentence
 * after that start; says which line when not.
 */
static bool listed(const char *out, const char *fmt, ...)
{
	char start[160];
	const char *p;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(start, sizeof(start), fmt, ap);
	va_end(ap);
	p = strstr(out, start);
	if (p != NULL) {
		p += strlen(start);
		if (*p != '\n' && *p != '\0' &&
		    strncmp(p, "(no sentence)", 13) != 0)
			return true;
	}
	printf("no sentence after \"%s\"\n", start + (start[0] == '\n'));
	return false;
}

/*
 * Every type and subtype dat_strerror names (the tables of
 * registry/strerror.c, asked here value by value) and every status and
 * event of tools/dat-names.h has its sentence: a name added without one
 * fails here, through the listing of the hidden --explain-all.
 */
TEST_IMPL(datinfo_explain_all)
{
	const char *major, *minor;
	unsigned types = 0, subtypes = 0;
	DAT_UINT32 v;
	size_t i;
	char *out;
	int code;

	out = run_datinfo(NULL, &code, "--explain-all", NULL);
	ASSERT_EQ(code, 0);
	ASSERT_NULL(strstr(out, "(no sentence)"));
	ASSERT(listed(out, "class 0x%08x DAT_CLASS_ERROR: ", DAT_CLASS_ERROR));
	for (v = 0; v <= DAT_TYPE_MASK; v += 1u << 16) {
		if (dat_strerror(v, &major, NULL) != DAT_SUCCESS)
			continue;
		ASSERT(listed(out, "\ntype 0x%08x %s: ", (unsigned)v, major));
		types++;
	}
	for (v = 1; v <= DAT_SUBTYPE_MASK; v++) {
		if (dat_strerror(v, NULL, &minor) != DAT_SUCCESS)
			continue;
		ASSERT(listed(out, "\nsubtype 0x%04x %s: ", (unsigned)v, minor));
		subtypes++;
	}
	/* dat_error.h: 26 types, DAT_SUB_INTERRUPTED..THREAD_SAFETY_NOT_FOUND. */
	ASSERT_GE(types, 26);
	ASSERT_GE(subtypes, DAT_THREAD_SAFETY_NOT_FOUND);
	for (i = 0; i < DAT_NAMES_COUNT(dat_names_dto_statuses); i++)
		ASSERT(listed(out, "\nstatus %u %s: ",
			      (unsigned)dat_names_dto_statuses[i].value,
			      dat_names_dto_statuses[i].name));
	for (i = 0; i < DAT_NAMES_COUNT(dat_names_events); i++)
		ASSERT(listed(out, "\nevent 0x%05x %s: ",
			      (unsigned)dat_names_events[i].value,
			      dat_names_events[i].name));
	/* Every status of dat.h, DAT_DTO_SUCCESS to DAT_DTO_ERR_LOCAL_MM_ERROR. */
	ASSERT_EQ(DAT_NAMES_COUNT(dat_names_dto_statuses),
		  DAT_DTO_ERR_LOCAL_MM_ERROR + 1);
	free(out);
	return 0;
}
