/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softbench (tools/softbench*.c) still runs. Benchmarks are not tests: no
 * test asserts a time. These check that a quick run goes through a pair of
 * processes per transport, prints its table with a column per transport,
 * raw TCP's and fi_pingpong's (a number, or n/a and why), and writes its
 * CSV, a line per row and transport; that one transport keeps its min and
 * max; and that without fi_pingpong the run goes on and says how to get it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "provider-util.h"
#include "test.h"

#define CSV_HEADER "test,mode,size,unit,better,softdapl_median,softdapl_min," \
	"softdapl_max,tcp_median,tcp_min,tcp_max,ratio,runs,iters,transport," \
	"fi_pingpong,note\n"

/* softbench --quick --only send-lat -D SDT_IA_NAME, then @args; its output. */
static char *softbench(const char *const *args)
{
	const char *argv[24] = { NULL, "--quick", "--only", "send-lat", "-D",
				 SDT_IA_NAME };
	char path[1024], *out = NULL;
	int status, n = 6;

	sdt_conf("lo");
	snprintf(path, sizeof(path), "%s/../tools/softbench", test_builddir());
	argv[0] = path;
	while (*args != NULL && n < 23)
		argv[n++] = *args++;
	argv[n] = NULL;
	if (test_run_cmd(80, &status, &out, argv) != 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		TEST_FAIL("softbench failed:\n%s", out ? out : "");
	printf("%s", out);
	return out;
}

/* The CSV line of @key ("send-lat,poll,8,") over @transport, or NULL. */
static const char *csv_line(const char *csv, const char *key,
			    const char *transport)
{
	char want[64];
	const char *l;

	snprintf(want, sizeof(want), ",%s,", transport);
	for (l = csv; l != NULL; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *end = strchr(l, '\n');
		const char *t = strstr(l, want);

		if (strncmp(l, key, strlen(key)) == 0 && t != NULL &&
		    (end == NULL || t < end))
			return l;
	}
	return NULL;
}

/* The 16th field (fi_pingpong) of the CSV line @l, into @buf. */
static const char *fi_field(const char *l, char *buf, size_t len)
{
	int i;

	for (i = 0; i < 15 && l != NULL; i++) {
		l = strchr(l, ',');
		l = l ? l + 1 : NULL;
	}
	if (l == NULL)
		return NULL;
	snprintf(buf, len, "%.*s", (int)strcspn(l, ","), l);
	return buf;
}

TEST_IMPL(bench_smoke)
{
	static const char *const args[] = { "--transport", "auto,copy,tcp",
					    "--sizes", "8,64K", "--csv", NULL,
					    NULL };
	const char *argv[7], *tr[] = { "auto", "copy", "tcp" };
	char *out, *csv, fi[32];
	unsigned i;

	memcpy(argv, args, sizeof(argv));
	argv[5] = test_path("bench.csv");
	out = softbench(argv);
	ASSERT_STR_CONTAINS(out, "auto (ratio)  copy (ratio)   tcp (ratio)  "
			    "raw TCP fi_pingpong\n");
	ASSERT_STR_CONTAINS(out, "\nsend-lat        poll      8 B us     ");
	ASSERT_STR_CONTAINS(out, "\nsend-lat        block  64 KiB us     ");
	if (test_find_program("fi_pingpong") == NULL)
		ASSERT_STR_CONTAINS(out, "fi_pingpong not found: apt-get "
				    "install libfabric-bin");
	free(out);

	csv = test_read_file(test_path("bench.csv"));
	ASSERT_NOT_NULL(csv);
	ASSERT(strncmp(csv, CSV_HEADER, strlen(CSV_HEADER)) == 0);
	for (i = 0; i < 3; i++) {
		const char *poll = csv_line(csv, "send-lat,poll,8,us,lower,", tr[i]);
		const char *block = csv_line(csv, "send-lat,block,65536,us,lower,",
					     tr[i]);

		if (poll == NULL || block == NULL)
			TEST_FAIL("no send-lat line over %s in:\n%s", tr[i], csv);
		/* fi_pingpong: a number or n/a in the poll rows, else empty */
		ASSERT_NOT_NULL(fi_field(poll, fi, sizeof(fi)));
		ASSERT(strcmp(fi, "n/a") == 0 || atof(fi) > 0);
		ASSERT_NOT_NULL(fi_field(block, fi, sizeof(fi)));
		ASSERT_STR_EQ(fi, "");
	}
	free(csv);
	return 0;
}

TEST_IMPL(bench_one_transport)
{
	static const char *const args[] = { "--transport", "tcp", "--mode",
					    "poll", "--sizes", "8", "--reps",
					    "1", "--csv", NULL, NULL };
	const char *argv[11];
	char *out, *csv, *row;

	memcpy(argv, args, sizeof(argv));
	argv[9] = test_path("bench.csv");
	out = softbench(argv);
	ASSERT_STR_CONTAINS(out, "SOFTDAPL_TRANSPORT=tcp\n");
	ASSERT_STR_CONTAINS(out, "tcp (ratio)      min      max  raw TCP "
			    "fi_pingpong\n");
	row = strstr(out, "\nsend-lat        poll      8 B us     ");
	ASSERT_NOT_NULL(row);
	if (test_find_program("fi_pingpong") != NULL)
		ASSERT(strstr(row, " n/a\n") == NULL);	/* it ran */
	free(out);

	csv = test_read_file(test_path("bench.csv"));
	ASSERT_NOT_NULL(csv);
	ASSERT_NOT_NULL(csv_line(csv, "send-lat,poll,8,us,lower,", "tcp"));
	ASSERT(strstr(csv, ",auto,") == NULL && strstr(csv, ",copy,") == NULL);
	free(csv);
	return 0;
}

TEST_IMPL(bench_fi_missing)
{
	static const char *const args[] = { "--mode", "poll", "--sizes", "8",
					    "--reps", "1", NULL };
	char *out;

	/* No fi_pingpong on this PATH (softbench needs no other program). */
	setenv("PATH", test_path("empty"), 1);
	out = softbench(args);
	ASSERT_STR_CONTAINS(out, "fi_pingpong not found: apt-get install "
			    "libfabric-bin\n");
	ASSERT_STR_CONTAINS(out, "raw TCP fi_pingpong\n");
	ASSERT_NOT_NULL(strstr(strstr(out, "\nsend-lat        poll      8 B"),
			       " n/a\n"));
	free(out);
	return 0;
}
