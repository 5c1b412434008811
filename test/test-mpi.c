/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Open MPI 1.6.5's uDAPL BTL, a DAT 1.2 consumer built unmodified against
 * this tree (tools/ompi-build, make ompi), over our provider: the MPI
 * programs of test/mpi/, each built with the installation's mpicc into
 * the build directory and run by mpirun over --mca btl udapl,self, at 2
 * and 4 ranks under our registry and at 2 ranks under OFED's; and the
 * same programs over tcp,self, the baseline whose pingpong and bw figures
 * conformance_mpi_tcp_baseline prints beside udapl's.
 *
 * The installation is $SOFTDAPL_OMPI, else the ompi directory beside the
 * build's test directory (build/ompi: make check passes OMPI_PREFIX);
 * without one every row skips, saying how to make it.
 *
 * A row passes when mpirun exits 0 within the program's time and rank 0
 * printed "<prog>: ok (N ranks)". Each program checks every byte it
 * receives and on a mismatch prints "<prog>: rank R: FAIL: ..." and calls
 * MPI_Abort: the row then fails with that line, the command and mpirun's
 * last lines. A row past its time fails as hung; the job dies with its
 * process group (Open MPI 1.6.5 leaves the ranks in mpirun's group).
 *
 * Ports are Open MPI's: its runtime and the TCP BTL bind ephemeral ports,
 * the udapl BTL calls dat_psp_create_any. Rows may run in parallel.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "debian.h"
#include "provider-util.h"
#include "test.h"

#ifndef TEST_SRCDIR
#error TEST_SRCDIR must name the source tree
#endif
#ifndef TEST_WARNINGS
#error TEST_WARNINGS must hold the warning flags of the build
#endif

/* The system's libdat2.so.2 (OFED's registry), when installed. */
#define OFED_LIBDAT2	"/usr/lib/x86_64-linux-gnu/libdat2.so.2"

/*
 * Each program's time for one mpirun, in seconds (scaled by
 * TEST_TIMEOUT_SCALE). They take 0.1 to 1.5 s on two cores, pingpong
 * about 10 s; the margin is for a loaded CI machine, not for a hang. A
 * row's entry in test-list-mpi.h allows its program's time plus 40 s
 * (building it, the ldd check, tearing down a killed job).
 */
static const struct mpi_prog {
	const char	*name;
	int		secs;
} progs[] = {
	{ "hello",	 60 },
	{ "ring",	 60 },
	{ "pingpong",	180 },
	{ "bw",		120 },
	{ "collectives", 60 },
	{ "onesided",	 60 },
};

#define NPROGS		(sizeof(progs) / sizeof(progs[0]))
#define UDAPL		"udapl,self"
#define TCP		"tcp,self"

static const struct mpi_prog *prog_of(const char *name)
{
	size_t i;

	for (i = 0; i < NPROGS; i++)
		if (strcmp(progs[i].name, name) == 0)
			return &progs[i];
	TEST_FAIL("no MPI program %s", name);
}

/* "asan" or "tsan" in a sanitized build, else NULL. */
static const char *sanitizer(void)
{
#if defined(__SANITIZE_ADDRESS__)
	return "asan";
#elif defined(__SANITIZE_THREAD__)
	return "tsan";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
	return "asan";
#elif __has_feature(thread_sanitizer)
	return "tsan";
#endif
#endif
	return NULL;
}

/* snprintf into @buf of @len bytes; a path too long fails the test. */
static void TEST__PRINTF(3, 4) fmt(char *buf, size_t len, const char *f, ...)
{
	va_list ap;
	int n;

	va_start(ap, f);
	n = vsnprintf(buf, len, f, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len)
		TEST_FAIL("a path or command is too long: %s...", buf);
}

/* The Open MPI installation the rows use (it may not exist). */
static const char *ompi_prefix(void)
{
	static char buf[PATH_MAX];
	const char *env = getenv("SOFTDAPL_OMPI");

	if (env != NULL && env[0] != '\0')
		fmt(buf, sizeof(buf), "%s", env);
	else
		fmt(buf, sizeof(buf), "%s/../ompi", test_builddir());
	return buf;
}

/* @rel under the installation, into @buf of PATH_MAX bytes. */
static char *ompi_file(char *buf, const char *rel)
{
	fmt(buf, PATH_MAX, "%s/%s", ompi_prefix(), rel);
	return buf;
}

/*
 * Why the rows cannot run here, or NULL. Open MPI is a plain build: in
 * a sanitized build its ranks would load this build's libdat.so.1 and
 * libdaplsoft.so.2, which load only after the sanitizer's runtime, and
 * with it preloaded into mpirun and every rank the sanitizer would judge
 * Open MPI's own uninstrumented code.
 */
static const char *skip_reason(void)
{
	static char why[PATH_MAX + 256];
	char f1[PATH_MAX], f2[PATH_MAX];

	if (sanitizer() != NULL) {
		fmt(why, sizeof(why), "Open MPI is not built with %s: its "
			 "ranks cannot load this build's sanitized DAT "
			 "libraries; the plain build runs these rows",
			 sanitizer());
		return why;
	}
	if (access(ompi_file(f1, "bin/mpirun"), X_OK) != 0 ||
	    access(ompi_file(f2, "bin/mpicc"), X_OK) != 0) {
		fmt(why, sizeof(why), "no Open MPI in %s (make ompi "
			 "OMPI_GIT=<git directory of Open MPI> builds it; "
			 "SOFTDAPL_OMPI names another installation)",
			 ompi_prefix());
		return why;
	}
	if (access(ompi_file(f1, "lib/openmpi/mca_btl_udapl.so"), R_OK) != 0) {
		fmt(why, sizeof(why), "the Open MPI in %s has no udapl "
			 "BTL (lib/openmpi/mca_btl_udapl.so): build it with "
			 "tools/ompi-build", ompi_prefix());
		return why;
	}
	return NULL;
}

/* The canonical path of @path, which must exist, into @buf (PATH_MAX). */
static char *real(const char *path, char *buf)
{
	if (realpath(path, buf) == NULL)
		TEST_FAIL("realpath(%s): %s", path, strerror(errno));
	return buf;
}

/*
 * The DAT libraries ldd says @btl loads must be @want2 (libdat2.so.2)
 * and, if it needs it, @want12 (libdat.so.1); @got receives them as
 * "name => file, ...".
 */
static void check_dat_libs(const char *btl, const char *want2,
			   const char *want12, char *got, size_t len)
{
	char *out = NULL, *line, *save = NULL;
	bool found2 = false;
	int status;

	got[0] = '\0';
	ASSERT_OK(test_run_cmdl(30, &status, &out, "ldd", btl, NULL));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		TEST_FAIL("ldd %s failed:\n%s", btl, out);
	for (line = strtok_r(out, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[256], file[PATH_MAX], r1[PATH_MAX], r2[PATH_MAX];
		const char *want;

		if (sscanf(line, " %255s => %4095s", name, file) != 2 ||
		    strncmp(name, "libdat", 6) != 0)
			continue;
		if (strcmp(name, "libdat2.so.2") == 0) {
			want = want2;
			found2 = true;
		} else if (strcmp(name, "libdat.so.1") == 0) {
			want = want12;
		} else {
			TEST_FAIL("the udapl BTL needs %s, neither libdat.so.1 "
				  "nor libdat2.so.2: %s", name, line);
		}
		if (access(file, R_OK) != 0 ||
		    strcmp(real(file, r1), real(want, r2)) != 0)
			TEST_FAIL("with LD_LIBRARY_PATH=%s the udapl BTL %s "
				  "gets %s => %s, not %s",
				  getenv("LD_LIBRARY_PATH"), btl, name, file,
				  want);
		fmt(got + strlen(got), len - strlen(got), "%s%s => %s",
			 got[0] ? ", " : "", name, file);
	}
	free(out);
	if (!found2)
		TEST_FAIL("ldd %s names no libdat2.so.2", btl);
}

/*
 * The environment of every mpirun from now on: a dat.conf naming our
 * provider as SDT_IA_NAME over "lo" (DAT_OVERRIDE), the installation's
 * bin and lib first on PATH and LD_LIBRARY_PATH, and before them the
 * DAT libraries the udapl BTL is to load. The BTL has no RPATH: it
 * needs libdat.so.1 (built against this tree's DAT 1.2 layer), or
 * libdat2.so.2 directly, and the loader's path decides whose. Ours:
 * build/lib. OFED's: a directory holding only a link to our
 * libdat.so.1, which then finds the system's libdat2.so.2. ldd must
 * then show the BTL getting exactly those.
 */
static void mpi_env(bool ours)
{
	static char ldpath[3 * PATH_MAX + 8], path[PATH_MAX + 4096];
	char btl[PATH_MAX], libdir[PATH_MAX], want2[PATH_MAX];
	char want12[PATH_MAX], got[2 * PATH_MAX + 64], *conf;
	const char *oldpath = getenv("PATH");

	fmt(want12, sizeof(want12), "%s/../lib", test_builddir());
	real(want12, libdir);
	fmt(want12, sizeof(want12), "%s/libdat.so.1", libdir);
	ompi_file(btl, "lib/openmpi/mca_btl_udapl.so");
	sdt_conf(NULL);
	if (ours) {
		fmt(want2, sizeof(want2), "%s/libdat2.so.2", libdir);
		fmt(ldpath, sizeof(ldpath), "%s:%s/lib", libdir,
			 ompi_prefix());
	} else {
		const char *dir = test_path("ofed");
		char link[PATH_MAX + 16], target[PATH_MAX];

		fmt(want2, sizeof(want2), "%s", OFED_LIBDAT2);
		ASSERT_OK(mkdir(dir, 0755));
		fmt(link, sizeof(link), "%s/libdat.so.1", dir);
		ASSERT_OK(symlink(real(want12, target), link));
		fmt(ldpath, sizeof(ldpath), "%s:%s/lib", dir,
			 ompi_prefix());
	}
	test_setenv("LD_LIBRARY_PATH", ldpath);
	fmt(path, sizeof(path), "%s/bin:%s", ompi_prefix(),
		 oldpath ? oldpath : "/usr/bin:/bin");
	test_setenv("PATH", path);

	check_dat_libs(btl, want2, want12, got, sizeof(got));
	printf("%s registry: the udapl BTL loads %s\n",
	       ours ? "our" : "OFED's", got);
	conf = test_read_file(getenv("DAT_OVERRIDE"));
	ASSERT_NOT_NULL(conf);
	printf("DAT_OVERRIDE=%s: %s", getenv("DAT_OVERRIDE"), conf);
	free(conf);
}

/*
 * Builds test/mpi/@name.c with the installation's mpicc, the build's
 * warnings as errors, into the build directory (its test/mpi/): each
 * time, since the installation may have changed, into a file of this
 * process renamed over the program at the end, so that a row running
 * the program meanwhile is not disturbed. Returns the program's path.
 */
static const char *build_prog(const char *name)
{
	static char bin[PATH_MAX];
	char dir[PATH_MAX], tmp[PATH_MAX + 32], src[PATH_MAX], cc[PATH_MAX];
	char *out = NULL;
	int status;

	fmt(dir, sizeof(dir), "%s/mpi", test_builddir());
	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		TEST_FAIL("mkdir %s: %s", dir, strerror(errno));
	fmt(bin, sizeof(bin), "%s/%s", dir, name);
	fmt(tmp, sizeof(tmp), "%s.%ld.tmp", bin, (long)getpid());
	fmt(src, sizeof(src), "%s/test/mpi/%s.c", TEST_SRCDIR, name);
	/* sh splits the warning flags. */
	ASSERT_OK(test_run_cmdl(120, &status, &out, "sh", "-c",
				"exec \"$0\" -std=gnu11 -O2 -g " TEST_WARNINGS
				" -o \"$1\" \"$2\"",
				ompi_file(cc, "bin/mpicc"), tmp, src, NULL));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		unlink(tmp);
		TEST_FAIL("%s does not build with %s:\n%s", src, cc, out);
	}
	free(out);
	if (rename(tmp, bin) != 0)
		TEST_FAIL("rename %s: %s", tmp, strerror(errno));
	return bin;
}

/* The first line of @out holding ": FAIL: ", into @buf; NULL if none. */
static const char *fail_line(const char *out, char *buf, size_t len)
{
	const char *p = strstr(out, ": FAIL: ");

	if (p == NULL)
		return NULL;
	while (p > out && p[-1] != '\n')
		p--;
	snprintf(buf, len, "%.*s", (int)strcspn(p, "\n"), p);
	return buf;
}

/*
 * Runs program @name (built from test/mpi/) at @np ranks over the BTL
 * list @btl, in the environment mpi_env set; fails the test unless it
 * passed. Returns its output (malloc'd).
 */
static char *mpi_run(const char *name, int np, const char *btl)
{
	const struct mpi_prog *pg = prog_of(name);
	const char *bin = build_prog(name);
	bool udapl = strstr(btl, "udapl") != NULL;
	char mpirun[PATH_MAX], nps[16], ok[64], why[128], fl[1024];
	char cmd[8 * PATH_MAX];
	const char *argv[12];
	size_t n = 0;
	char *out = NULL;
	uint64_t t0;
	int r, status = 0;

	ompi_file(mpirun, "bin/mpirun");
	fmt(nps, sizeof(nps), "%d", np);
	argv[n++] = mpirun;
	argv[n++] = "-np";
	argv[n++] = nps;
	argv[n++] = "--mca";
	argv[n++] = "btl";
	argv[n++] = btl;
	if (udapl) {
		/* Left alone, the BTL opens every IA of dat.conf. */
		argv[n++] = "--mca";
		argv[n++] = "btl_udapl_if_include";
		argv[n++] = SDT_IA_NAME;
	}
	argv[n++] = bin;
	argv[n] = NULL;

	fmt(cmd, sizeof(cmd), "DAT_OVERRIDE=%s LD_LIBRARY_PATH=%s",
		 getenv("DAT_OVERRIDE"), getenv("LD_LIBRARY_PATH"));
	for (n = 0; argv[n] != NULL; n++)
		fmt(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), " %s",
			 argv[n]);
	printf("%s\n", cmd);
	fflush(stdout);
	t0 = test_now_ms();
	r = test_run_cmd(pg->secs, &status, &out, argv);
	if (r != 0 && r != -ETIMEDOUT)
		TEST_FAIL("%s could not be started: %s", mpirun, strerror(-r));
	fmt(ok, sizeof(ok), "%s: ok (%d ranks)", name, np);
	if (r == -ETIMEDOUT)
		fmt(why, sizeof(why), "hung: killed after %.0f s",
			 pg->secs * test_timeout_scale());
	else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		test_status_str(status, why, sizeof(why));
	else if (strstr(out, ok) == NULL)
		fmt(why, sizeof(why), "exit status 0 without \"%s\"", ok);
	else
		why[0] = '\0';
	if (why[0] != '\0')
		TEST_FAIL("%s, %d ranks, --mca btl %s: %s\n  %s\n  %s\n"
			  "--- mpirun's output, last lines ---\n%s",
			  name, np, btl, why,
			  fail_line(out, fl, sizeof(fl)) ? fl :
			  "(no FAIL line from the program)", cmd,
			  deb_tail(out, 40));
	printf("%s--- %s, %d ranks, %s: passed in %.1f s\n\n", out, name, np,
	       btl, (double)(test_now_ms() - t0) / 1000);
	return out;
}

/* One row: program @name at @np ranks over udapl,self. */
static int mpi_row(const char *name, int np, bool ours)
{
	const char *why = skip_reason();

	if (why != NULL)
		TEST_SKIP(why);
	if (!ours && access(OFED_LIBDAT2, R_OK) != 0)
		TEST_SKIP("OFED's registry missing: apt-get install -y libdapl2");
	mpi_env(ours);
	free(mpi_run(name, np, UDAPL));
	return 0;
}

#define MPI_ROW(test, prog, np, ours)					\
	TEST_IMPL(test)							\
	{								\
		return mpi_row(#prog, np, ours);			\
	}

MPI_ROW(conformance_mpi_hello_np2, hello, 2, true)
MPI_ROW(conformance_mpi_hello_np4, hello, 4, true)
MPI_ROW(conformance_mpi_ring_np2, ring, 2, true)
MPI_ROW(conformance_mpi_ring_np4, ring, 4, true)
MPI_ROW(conformance_mpi_pingpong_np2, pingpong, 2, true)
MPI_ROW(conformance_mpi_pingpong_np4, pingpong, 4, true)
MPI_ROW(conformance_mpi_bw_np2, bw, 2, true)
MPI_ROW(conformance_mpi_bw_np4, bw, 4, true)
MPI_ROW(conformance_mpi_collectives_np2, collectives, 2, true)
MPI_ROW(conformance_mpi_collectives_np4, collectives, 4, true)
MPI_ROW(conformance_mpi_onesided_np2, onesided, 2, true)
MPI_ROW(conformance_mpi_onesided_np4, onesided, 4, true)

MPI_ROW(conformance_mpi_ofed_hello_np2, hello, 2, false)
MPI_ROW(conformance_mpi_ofed_ring_np2, ring, 2, false)
MPI_ROW(conformance_mpi_ofed_pingpong_np2, pingpong, 2, false)
MPI_ROW(conformance_mpi_ofed_bw_np2, bw, 2, false)
MPI_ROW(conformance_mpi_ofed_collectives_np2, collectives, 2, false)
MPI_ROW(conformance_mpi_ofed_onesided_np2, onesided, 2, false)

/* ---- the TCP baseline --------------------------------------------- */

#define PP_MAX		32

/* pingpong's table: size, half round trip (usec), MB/s per line. */
struct pp {
	unsigned	n;
	unsigned long	bytes[PP_MAX];
	double		usec[PP_MAX], mbs[PP_MAX];
};

static void parse_pp(const char *out, struct pp *pp, const char *btl)
{
	const char *p;

	pp->n = 0;
	for (p = out; *p != '\0'; p += strcspn(p, "\n"), p += *p == '\n') {
		char line[256];
		unsigned long bytes;
		unsigned iters;
		double usec, mbs;

		/* One line at a time: sscanf would skip newlines. */
		snprintf(line, sizeof(line), "%.*s", (int)strcspn(p, "\n"), p);
		if (sscanf(line, "%lu %u %lf %lf", &bytes, &iters, &usec,
			   &mbs) != 4)
			continue;
		ASSERT_LT(pp->n, PP_MAX);
		pp->bytes[pp->n] = bytes;
		pp->usec[pp->n] = usec;
		pp->mbs[pp->n] = mbs;
		pp->n++;
	}
	if (pp->n == 0)
		TEST_FAIL("pingpong over %s printed no figures:\n%s", btl, out);
}

static double parse_bw(const char *out, const char *btl)
{
	const char *p = strstr(out, "bw: total ");
	double mbs;

	if (p == NULL || sscanf(p, "bw: total %lf MB/s", &mbs) != 1)
		TEST_FAIL("bw over %s printed no total:\n%s", btl, out);
	return mbs;
}

/*
 * Every program over tcp,self at 2 ranks, then pingpong (2 ranks) and bw
 * (2 and 4 ranks) over udapl,self and tcp,self back to back, and their
 * figures side by side (the ratios are udapl / tcp). The figures of one
 * machine move a lot from run to run: compare the two BTLs within one
 * run only. They are printed, never judged.
 */
TEST_IMPL(conformance_mpi_tcp_baseline)
{
	static const char *const alone[] = { "hello", "ring", "collectives",
					     "onesided" };
	static const int bw_np[] = { 2, 4 };
	struct pp u, t;
	const char *why = skip_reason();
	double bu[2], bt[2];
	char *out;
	size_t i, j;

	if (why != NULL)
		TEST_SKIP(why);
	mpi_env(true);
	for (i = 0; i < sizeof(alone) / sizeof(alone[0]); i++)
		free(mpi_run(alone[i], 2, TCP));

	out = mpi_run("pingpong", 2, UDAPL);
	parse_pp(out, &u, UDAPL);
	free(out);
	out = mpi_run("pingpong", 2, TCP);
	parse_pp(out, &t, TCP);
	free(out);
	for (i = 0; i < 2; i++) {
		out = mpi_run("bw", bw_np[i], UDAPL);
		bu[i] = parse_bw(out, UDAPL);
		free(out);
		out = mpi_run("bw", bw_np[i], TCP);
		bt[i] = parse_bw(out, TCP);
		free(out);
	}

	printf("\npingpong, 2 ranks, udapl,self and tcp,self in one run: "
	       "half round trip (usec) and bandwidth (MB/s)\n");
	printf("%10s  %10s %10s %7s  %10s %10s %7s\n", "bytes", "udapl us",
	       "tcp us", "u/t", "udapl MB/s", "tcp MB/s", "u/t");
	for (i = 0; i < u.n; i++) {
		for (j = 0; j < t.n && t.bytes[j] != u.bytes[i]; j++)
			;
		if (j == t.n)
			TEST_FAIL("tcp's pingpong has no %lu-byte line",
				  u.bytes[i]);
		printf("%10lu  %10.2f %10.2f %7.2f  %10.2f %10.2f %7.2f\n",
		       u.bytes[i], u.usec[i], t.usec[j],
		       t.usec[j] > 0 ? u.usec[i] / t.usec[j] : 0,
		       u.mbs[i], t.mbs[j],
		       t.mbs[j] > 0 ? u.mbs[i] / t.mbs[j] : 0);
	}
	for (i = 0; i < 2; i++)
		printf("%sbw, %d ranks (pairs 0 -> 1%s, windows of 16 x 1 MiB, "
		       "all pairs' sum): udapl,self %.1f MB/s, tcp,self "
		       "%.1f MB/s, u/t %.2f\n", i == 0 ? "\n" : "",
		       bw_np[i], bw_np[i] > 2 ? ", 2 -> 3" : "", bu[i], bt[i],
		       bt[i] > 0 ? bu[i] / bt[i] : 0);
	return 0;
}
