/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Our libdat2 against binaries we did not write: Debian's dapltest and dtest
 * (built against OFED's registry) must bind every DAT symbol to ours, and
 * OFED's own provider must load under ours and fail cleanly on a machine
 * without RDMA hardware. Also the symbol table of the library itself, and a
 * program written from the seed pages' synopsis.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"

#ifndef TEST_SRCDIR
#error TEST_SRCDIR must name the source tree
#endif

/* Sanitized builds of our library cannot be loaded into Debian's binaries. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif

static const char *libdir(void)
{
	static char buf[512];

	snprintf(buf, sizeof(buf), "%s/../lib", test_builddir());
	return buf;
}

static unsigned count(const char *hay, const char *needle)
{
	unsigned n = 0;

	while ((hay = strstr(hay, needle)) != NULL) {
		n++;
		hay++;
	}
	return n;
}

/*
 * Runs a Debian binary with our libdat2 first on the library path, every
 * symbol bound at start (LD_BIND_NOW) and the bindings traced; checks that
 * each DAT symbol it imports is bound to our library and none to another.
 */
static char *run_with_our_registry(const char *const args[], unsigned *bound)
{
	char *out = NULL, *line, *save = NULL, *copy;
	const char *prog = args[0];
	int status;

	test_setenv("LD_LIBRARY_PATH", libdir());
	test_setenv("LD_BIND_NOW", "1");
	test_setenv("LD_DEBUG", "bindings");
	test_setenv("LD_DEBUG_OUTPUT", test_path("ld"));
	ASSERT_OK(test_run_cmd(60, &status, &out, args));
	test_setenv("LD_DEBUG", NULL);
	test_setenv("LD_DEBUG_OUTPUT", NULL);
	test_setenv("LD_BIND_NOW", NULL);
	/* A clean failure is an exit, never a signal. */
	if (!WIFEXITED(status)) {
		char buf[64];

		TEST_FAIL("%s: %s\n%s", prog,
			  test_status_str(status, buf, sizeof(buf)), out);
	}

	/* LD_DEBUG_OUTPUT writes ld.<pid>; gather every file of the run. */
	{
		char cmd[1024];
		char *trace = NULL;

		snprintf(cmd, sizeof(cmd), "cat %s/ld.* > %s/ld-all", test_tmpdir(),
			 test_tmpdir());
		ASSERT_OK(system(cmd));
		trace = test_read_file(test_path("ld-all"));
		ASSERT_NOT_NULL(trace);
		copy = trace;
	}

	*bound = 0;
	for (line = strtok_r(copy, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strstr(line, "binding file") == NULL ||
		    strstr(line, "`dat") == NULL ||
		    strstr(line, "`dat_provider_") != NULL)	/* a provider's own */
			continue;
		if (strstr(line, "/build") == NULL || strstr(line, "libdat2.so.2") == NULL)
			TEST_FAIL("%s bound a DAT symbol elsewhere: %s", prog, line);
		/* The program's own imports carry OFED's version node. */
		if (strstr(line, ".so") < strstr(line, " to ") &&
		    strstr(line, ".so") != NULL)
			;	/* a provider's unversioned import: fine */
		else if (strstr(line, "[DAT_2.0]") == NULL)
			TEST_FAIL("%s bound a DAT symbol without DAT_2.0: %s", prog, line);
		(*bound)++;
	}
	free(copy);
	return out;
}

TEST_IMPL(interop_dapltest_binds_to_us)
{
	static const char *const argv[] = { "dapltest", "-T", "L", "-D", "no-such-ia", NULL };
	unsigned bound;
	char *out;

#ifdef SANITIZED
	TEST_SKIP("sanitized libdat2 cannot be loaded into Debian's dapltest");
#endif
	if (test_find_program("dapltest") == NULL)
		TEST_SKIP("dapltest missing: apt-get install -y dapl2-utils");
	test_dat_conf("# empty\n");
	out = run_with_our_registry(argv, &bound);
	ASSERT_STR_CONTAINS(out, "DAT_PROVIDER_NOT_FOUND DAT_NAME_NOT_REGISTERED");
	/* OFED's registry prints this at exit; ours must not be in use. */
	ASSERT_EQ(count(out, "DAT Registry: Stopped"), 0);
	ASSERT_GE(bound, 20);
	printf("dapltest: %u DAT symbols bound to our libdat2\n", bound);
	free(out);
	return 0;
}

TEST_IMPL(interop_dtest_binds_to_us)
{
	static const char *const argv[] = { "dtest", "-P", "no-such-ia", NULL };
	unsigned bound;
	char *out;

#ifdef SANITIZED
	TEST_SKIP("sanitized libdat2 cannot be loaded into Debian's dtest");
#endif
	if (test_find_program("dtest") == NULL)
		TEST_SKIP("dtest missing: apt-get install -y dapl2-utils");
	test_dat_conf("# empty\n");
	out = run_with_our_registry(argv, &bound);
	ASSERT_STR_CONTAINS(out, "DAT_PROVIDER_NOT_FOUND");
	ASSERT_GE(bound, 20);
	printf("dtest: %u DAT symbols bound to our libdat2\n", bound);
	free(out);
	return 0;
}

/*
 * OFED's socket-CM provider, loaded by our registry through dat.conf: its
 * dat_provider_init registers, its ia_open fails for want of a verbs
 * device, and our registry finalises and unloads it, twice over.
 */
TEST_IMPL(interop_ofed_provider_under_our_registry)
{
	static const char *const argv[] = { "dapltest", "-T", "L", "-D", "ofa-scm", "limit_ia", NULL };
	unsigned bound;
	char *out;

#ifdef SANITIZED
	TEST_SKIP("sanitized libdat2 cannot be loaded into Debian's dapltest");
#endif
	if (test_find_program("dapltest") == NULL)
		TEST_SKIP("dapltest missing: apt-get install -y dapl2-utils");
	if (access("/usr/lib/x86_64-linux-gnu/libdaploscm.so.2", R_OK) != 0)
		TEST_SKIP("libdaploscm.so.2 missing: apt-get install -y libdapl2");
	test_dat_conf("ofa-scm u2.0 nonthreadsafe default libdaploscm.so.2 dapl.2.0 \"mlx4_0 1\" \"\"\n");
	test_setenv("DAT_DBG_TYPE", "0x7");
	out = run_with_our_registry(argv, &bound);
	ASSERT_STR_CONTAINS(out, "dat: IA ofa-scm: loading libdaploscm.so.2");
	ASSERT_STR_CONTAINS(out, "dat_ia_open (ofa-scm)");
	ASSERT_STR_CONTAINS(out, "dat: IA ofa-scm: unloading libdaploscm.so.2");
	free(out);
	return 0;
}

/*
 * libdat2.so.2 exports exactly the 83 entry points dat2/udat.h declares plus
 * dats_get_ia_handle, all under DAT_2.0, and has the right soname.
 */
TEST_IMPL(registry_exports)
{
	char cmd[2048], *out = NULL;
	int status;

	snprintf(cmd, sizeof(cmd),
		 "set -e; lib=%s/libdat2.so.2;"
		 " readelf -d $lib | grep -q 'SONAME.*\\[libdat2.so.2\\]';"
		 " printf '#include <dat2/udat.h>\\n#include <dat2/dat_registry.h>\\n' |"
		 "  ${CC:-cc} -E -I%s/include -x c - | grep -oE '\\bdat_[a-z_0-9]+ *\\(' |"
		 "  sed 's/ *(//' | sort -u > declared;"
		 " echo dats_get_ia_handle >> declared; sort -o declared declared;"
		 " readelf --dyn-syms -W $lib | awk '$7 != \"UND\" && $5 == \"GLOBAL\" {print $8}' |"
		 "  grep -v -e '^DAT_2.0@@DAT_2.0$' -e '^DAT_2.0$' > exported;"
		 " if grep -v '@@DAT_2.0$' exported; then echo 'unversioned or other version'; exit 1; fi;"
		 " sed 's/@@DAT_2.0$//' exported | sort > names;"
		 " diff declared names; echo declared $(wc -l < declared) exported $(wc -l < names)",
		 libdir(), TEST_SRCDIR);
	ASSERT_OK(test_run_cmdl(30, &status, &out, "sh", "-c", cmd, NULL));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		TEST_FAIL("exports differ:\n%s", out);
	ASSERT_STR_CONTAINS(out, "declared 84 exported 84");
	free(out);
	return 0;
}

/*
 * A program written from the seed pages' synopsis (uDAPL 1.2 man pages:
 * #include <dat/udat.h>, cc file.c -ldat) compiles and links unchanged
 * against our tree, the four seed calls keeping their signatures.
 */
TEST_IMPL(seed_synopsis_compiles)
{
	static const char prog[] =
		"#include <dat/udat.h>\n"
		"\n"
		"DAT_RETURN post_all(DAT_EP_HANDLE ep, DAT_SRQ_HANDLE srq,\n"
		"                    DAT_LMR_TRIPLET *iov, DAT_RMR_TRIPLET *rmr);\n"
		"DAT_RETURN post_all(DAT_EP_HANDLE ep, DAT_SRQ_HANDLE srq,\n"
		"                    DAT_LMR_TRIPLET *iov, DAT_RMR_TRIPLET *rmr)\n"
		"{\n"
		"    DAT_DTO_COOKIE cookie;\n"
		"    DAT_RETURN r;\n"
		"\n"
		"    cookie.as_64 = 1;\n"
		"    r = dat_ep_post_send(ep, 1, iov, cookie, DAT_COMPLETION_DEFAULT_FLAG);\n"
		"    if (r != DAT_SUCCESS) return r;\n"
		"    r = dat_ep_post_recv(ep, 1, iov, cookie, DAT_COMPLETION_DEFAULT_FLAG);\n"
		"    if (r != DAT_SUCCESS) return r;\n"
		"    r = dat_ep_post_rdma_write(ep, 1, iov, cookie, rmr,\n"
		"                               DAT_COMPLETION_DEFAULT_FLAG);\n"
		"    if (r != DAT_SUCCESS) return r;\n"
		"    return dat_srq_post_recv(srq, 1, iov, cookie);\n"
		"}\n"
		"\n"
		"int main(int argc, char **argv)\n"
		"{\n"
		"    DAT_RETURN (*post)(DAT_EP_HANDLE, DAT_COUNT, DAT_LMR_TRIPLET *,\n"
		"                       DAT_DTO_COOKIE, DAT_COMPLETION_FLAGS) = dat_ep_post_send;\n"
		"    (void)argv;\n"
		"    if (argc > 5)\n"
		"        return (int)post_all(NULL, NULL, NULL, NULL);\n"
		"    return post == 0;\n"
		"}\n";
	char cmd[2048], *out = NULL;
	int status;

	test_write_file("seed.c", prog);
	snprintf(cmd, sizeof(cmd),
		 "${CC:-cc} -Wall -Wextra -Werror -I%s/include seed.c -L%s -ldat "
		 "-Wl,-rpath,%s -o seed %s",
		 TEST_SRCDIR, libdir(), libdir(),
#ifdef SANITIZED
		 /* links against the sanitized library, cannot run without it */
		 ""
#else
		 "&& ./seed"
#endif
		 );
	ASSERT_OK(test_run_cmdl(60, &status, &out, "sh", "-c", cmd, NULL));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		TEST_FAIL("the seed program does not build or run:\n%s", out);
	free(out);
	return 0;
}
