/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * make install into a DESTDIR: a consumer builds from the installed tree
 * with nothing but `pkg-config --cflags --libs dat2` and opens an IA
 * through the installed dat.conf; make uninstall removes exactly what
 * install wrote, and never an existing dat.conf or a file of someone
 * else's. The man pages render without a warning, and make deb builds
 * packages with the expected files, fields and maintainer scripts. In a
 * fresh Debian 12 root with Debian's dapl2-utils: make install with each
 * choice of registry, and each package, beside Debian's DAPL or in place
 * of its registry.
 *
 * The tests drive make and the shell: each writes its script into its
 * temporary directory and runs it with the source tree and the build
 * directory as $1 and $2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "test.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#endif

/*
 * Writes @script to $TEST_TMPDIR/NAME.sh and runs it with sh, the source
 * tree and the build directory as $1 and $2; the output (stdout and
 * stderr) into *@out. Fails the test when it does not exit 0.
 */
static void run_script(const char *name, int timeout_s, const char *script,
		       char **out)
{
	char file[256], o[4096], status_buf[64];
	int status;

	snprintf(file, sizeof(file), "%s.sh", name);
	snprintf(o, sizeof(o), "%s/..", test_builddir());
	test_write_file(file, script);
	ASSERT_OK(test_run_cmdl(timeout_s, &status, out, "sh", file,
				TEST_SRCDIR, o, NULL));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		TEST_FAIL("%s failed (%s):\n%s", file,
			  test_status_str(status, status_buf,
					  sizeof(status_buf)), *out);
}

/* Both halves of the consumer: dat_strerror alone, or open and close. */
static const char consumer_c[] =
	"#include <dat2/udat.h>\n"
	"#include <stdio.h>\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"    const char *major = 0, *minor = 0;\n"
	"    DAT_EVD_HANDLE async = DAT_HANDLE_NULL;\n"
	"    DAT_IA_HANDLE ia;\n"
	"    DAT_RETURN r;\n"
	"    if (argc < 2) {\n"
	"        dat_strerror(DAT_INVALID_HANDLE | DAT_INVALID_HANDLE_IA, &major, &minor);\n"
	"        printf(\"%s %s\\n\", major, minor);\n"
	"        return 0;\n"
	"    }\n"
	"    r = dat_ia_open(argv[1], 8, &async, &ia);\n"
	"    if (r != DAT_SUCCESS) {\n"
	"        dat_strerror(r, &major, &minor);\n"
	"        printf(\"dat_ia_open %s: %s %s\\n\", argv[1], major, minor);\n"
	"        return 1;\n"
	"    }\n"
	"    printf(\"opened %s\\n\", argv[1]);\n"
	"    r = dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG);\n"
	"    printf(\"%s\\n\", r == DAT_SUCCESS ? \"closed\" : \"close failed\");\n"
	"    return r != DAT_SUCCESS;\n"
	"}\n";

/*
 * The installed dat.conf names /usr/local/lib/libdaplsoft.so.2, where the
 * tree is meant to end up. The consumer runs where that path is the
 * DESTDIR's: in a mount namespace with $d/usr/local bound on /usr/local
 * (a user namespace too when not root). Without namespaces it runs with a
 * copy of the installed dat.conf whose paths point into the DESTDIR.
 */
static const char install_script[] =
	"set -e\n"
	"src=$1; o=$2; d=$PWD/dest\n"
	"m() { make -s -C \"$src\" O=\"$o\" PREFIX=/usr/local DESTDIR=\"$d\" \"$@\"; }\n"
	"m install\n"
	"m install	# again: nothing changes, uninstall still removes it all\n"
	"l=$d/usr/local\n"
	"test -f $l/include/dat2/udat.h; test -f $l/include/dat/udat.h\n"
	"test -L $l/lib/libdat2.so.2; test -L $l/lib/libdaplsoft.so.2\n"
	"test -x $l/bin/datinfo; test -x $l/bin/softbench\n"
	"for f in $src/tools/man/*.[1-8]; do\n"
	"	p=${f##*/}; test -f $l/share/man/man${p##*.}/$p\n"
	"done\n"
	"for f in $src/tools/man/*.3; do\n"
	"	for n in $($src/tools/man-names $f); do\n"
	"		test -f $l/share/man/man3/$n.3\n"
	"	done\n"
	"done\n"
	"MANWIDTH=80 man -l $l/share/man/man3/dat_ep_post_send.3 | grep -q dat_ep_post_send\n"
	"if test -f $src/tools/softdapl.lua; then\n"
	"	test -f $l/lib/wireshark/plugins/softdapl.lua\n"
	"fi\n"
	"cmp $d/etc/dat.conf $l/share/doc/softdapl/softdapl.dat.conf\n"
	"grep -q '^softdapl-lo .* /usr/local/lib/libdaplsoft.so.2 ' $d/etc/dat.conf\n"
	"export PKG_CONFIG_PATH=$l/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$d\n"
	"${CC:-cc} consumer.c $(pkg-config --cflags --libs dat2) -o consumer\n"
	"LD_LIBRARY_PATH=$l/lib ./consumer\n"
	"run='mount --bind \"$0/usr/local\" /usr/local &&"
	" DAT_OVERRIDE=\"$0/etc/dat.conf\" LD_LIBRARY_PATH=/usr/local/lib"
	" ./consumer softdapl-lo'\n"
	"if unshare -m true 2>/dev/null; then\n"
	"	unshare -m sh -c \"$run\" \"$d\"\n"
	"elif unshare -rm true 2>/dev/null; then\n"
	"	unshare -rm sh -c \"$run\" \"$d\"\n"
	"else\n"
	"	echo 'no mount namespace: a copy of dat.conf points into DESTDIR'\n"
	"	sed \"s|/usr/local/|$l/|\" $d/etc/dat.conf > copy.conf\n"
	"	DAT_OVERRIDE=$PWD/copy.conf LD_LIBRARY_PATH=$l/lib ./consumer softdapl-lo\n"
	"fi\n"
	"m uninstall\n"
	"echo left: $(find $d -mindepth 1 | wc -l)\n"
	"find $d -mindepth 1\n";

TEST_IMPL(install_destdir_pkg_config)
{
	char *out = NULL;

#ifdef SANITIZED
	TEST_SKIP("installs the normal build only");
#endif
	if (test_find_program("pkg-config") == NULL)
		TEST_SKIP("pkg-config missing: apt-get install -y pkg-config");
	test_write_file("consumer.c", consumer_c);
	run_script("install", 120, install_script, &out);
	printf("%s", out);
	ASSERT_STR_CONTAINS(out, "created /etc/dat.conf");
	ASSERT_STR_CONTAINS(out, "DAT_INVALID_HANDLE DAT_INVALID_HANDLE_IA");
	ASSERT_STR_CONTAINS(out, "opened softdapl-lo\nclosed\n");
	ASSERT_STR_CONTAINS(out, "left: 0");
	free(out);
	return 0;
}

/*
 * A DESTDIR that already holds a dat.conf and files of others in every
 * directory install writes to (and an empty directory of its own): install
 * adds our entries to that dat.conf as one marked block (once, however
 * often it runs) and touches nothing else; uninstall puts the tree back as
 * it was, byte for byte. Entries a user added by hand stay.
 */
static const char keep_script[] =
	"set -e\n"
	"src=$1; o=$2; d=$PWD/dest; l=$d/usr/local\n"
	"m() { make -s -C \"$src\" O=\"$o\" PREFIX=/usr/local DESTDIR=\"$d\" \"$@\"; }\n"
	"mkdir -p $d/etc $l/bin $l/lib/pkgconfig $l/include/dat2 $l/include/dat\n"
	"mkdir -p $l/share/doc/softdapl $l/share/man/man1 $l/share/man/man7\n"
	"mkdir -p $l/lib/wireshark/plugins $l/share/man/man5\n"
	"echo 'ofa-v2-ib0 u2.0 nonthreadsafe default libdaploscm.so.2 dapl.2.0 \"mlx4_0 1\" \"\"' > $d/etc/dat.conf\n"
	"for f in bin/other lib/libother.so.1 lib/pkgconfig/other.pc \\\n"
	"	include/dat2/other.h include/dat/other.h share/doc/softdapl/NOTES \\\n"
	"	share/man/man1/other.1 share/man/man7/other.7 \\\n"
	"	lib/wireshark/plugins/other.lua; do\n"
	"	echo \"$f\" > $l/$f\n"
	"done\n"
	"snap() { (cd $d && find . | LC_ALL=C sort &&"
	" find . -type f | LC_ALL=C sort | xargs md5sum); }\n"
	"snap > before\n"
	"m install > install.out; cat install.out\n"
	"grep -q '^ofa-v2-ib0 ' $d/etc/dat.conf\n"
	"grep -q '^softdapl-lo .* /usr/local/lib/libdaplsoft.so.2 ' $d/etc/dat.conf\n"
	"sed -n '/^# >>> softdapl/,/^# <<< softdapl/p' $d/etc/dat.conf\n"
	"test -x $l/bin/datinfo\n"
	"m install	# again: one block, not two\n"
	"echo blocks: $(grep -c '^# >>> softdapl' $d/etc/dat.conf)\n"
	"m uninstall\n"
	"snap > after\n"
	"diff before after && echo 'tree as before'\n"
	"# Our entries added by hand, outside a block: install leaves them.\n"
	"cat $src/dat.conf.example | grep -v '^#' |"
	" sed 's|libdaplsoft.so.2|/usr/local/lib/libdaplsoft.so.2|' >> $d/etc/dat.conf\n"
	"cp $d/etc/dat.conf appended\n"
	"m install\n"
	"m uninstall\n"
	"cmp appended $d/etc/dat.conf && echo 'appended dat.conf kept'\n";

TEST_IMPL(install_keeps_unrelated_files)
{
	char *out = NULL;

#ifdef SANITIZED
	TEST_SKIP("installs the normal build only");
#endif
	run_script("keep", 120, keep_script, &out);
	ASSERT_STR_CONTAINS(out, "/etc/dat.conf: softdapl's entries added between "
				 "softdapl's marker lines");
	ASSERT_STR_CONTAINS(out, "blocks: 1\n");
	ASSERT_STR_CONTAINS(out, "/etc/dat.conf: softdapl's entries removed");
	ASSERT_STR_CONTAINS(out, "tree as before");
	ASSERT_STR_CONTAINS(out, "already names /usr/local/lib/libdaplsoft.so.2");
	ASSERT_STR_CONTAINS(out, "appended dat.conf kept");
	free(out);
	return 0;
}

/* A dat.conf that install created and the user changed outlives uninstall. */
static const char changed_script[] =
	"set -e\n"
	"src=$1; o=$2; d=$PWD/dest\n"
	"m() { make -s -C \"$src\" O=\"$o\" PREFIX=/usr/local DESTDIR=\"$d\" \"$@\"; }\n"
	"m install\n"
	"echo 'mine u2.0 nonthreadsafe default libmine.so.2 mine.1.0 \"\" \"\"' >> $d/etc/dat.conf\n"
	"m uninstall\n"
	"grep -q '^mine ' $d/etc/dat.conf\n"
	"echo left: $(cd $d && find . -mindepth 1 | LC_ALL=C sort | tr '\\n' ' ')\n";

TEST_IMPL(install_changed_dat_conf_kept)
{
	char *out = NULL;

#ifdef SANITIZED
	TEST_SKIP("installs the normal build only");
#endif
	run_script("changed", 120, changed_script, &out);
	ASSERT_STR_CONTAINS(out, "changed since make install created it");
	ASSERT_STR_CONTAINS(out, "left: ./etc ./etc/dat.conf\n");
	free(out);
	return 0;
}

/*
 * Every page of tools/man renders without a warning, with groff's
 * warnings all on (tbl for the pages with tables) and through man at 80
 * columns, as a user reads it.
 */
/*
 * The build tree used in place, as the README shows it: in a shell that
 * has nothing of ours, eval "$(build/tools/softdapl-env)", then an example
 * built with pkg-config alone links this tree's registry (ldd), runs over
 * this tree's dat.conf, and datinfo is on the PATH. Debian's dtest, where
 * installed, loads this tree's registry too.
 */
static const char tree_env_script[] =
	"set -e\n"
	"src=$1; o=$(cd \"$2\" && pwd)\n"
	"env -i HOME=\"$HOME\" PATH=/usr/bin:/bin sh -ec '\n"
	"	eval \"$($1/tools/softdapl-env)\"\n"
	"	${CC:-cc} -I\"$2/tools\" \"$2/test/examples/send-recv.c\" \\\n"
	"		$(pkg-config --cflags --libs dat2) -o app\n"
	"	ldd ./app | grep \"libdat2.so.2 => $1/lib/libdat2.so.2\"\n"
	"	./app softdapl-lo\n"
	"	datinfo -q | head -1\n"
	"	if test -x /usr/bin/dtest; then\n"
	"		ldd /usr/bin/dtest | grep \"libdat2.so.2 => $1/lib/\"\n"
	"	fi\n"
	"' sh \"$o\" \"$src\"\n";

TEST_IMPL(tree_env_builds_example)
{
	char *out = NULL;

#ifdef SANITIZED
	TEST_SKIP("builds against the normal build only");
#endif
	if (test_find_program("pkg-config") == NULL)
		TEST_SKIP("pkg-config missing: apt-get install -y pkg-config");
	run_script("tree-env", 60, tree_env_script, &out);
	printf("%s", out);
	ASSERT_STR_CONTAINS(out, "send-recv: ok");
	ASSERT_STR_CONTAINS(out, "/dat.conf (named by the DAT_OVERRIDE");
	free(out);
	return 0;
}

/*
 * make demo's last lines, pasted as a user would: from the source tree
 * the eval line, then in a directory of one's own the cc line on a
 * program of one's own, which then opens softdapl-lo; and, where Debian's
 * dapl2-utils are installed, the dtest pair, which passes on both sides.
 */
static const char demo_hint_script[] =
	"set -e\n"
	"src=$1; o=$(cd \"$2\" && pwd); t=$PWD\n"
	"(cd \"$src\" && tools/demo \"$o\") > demo.out\n"
	"sed -n '/^== the same in your shell/,$p' demo.out | sed -n 's/^   //p' > hint\n"
	"cat hint\n"
	"test $(wc -l < hint) = 3\n"
	"cp consumer.c app.c\n"
	"cd \"$src\"; eval \"$(sed -n 1p \"$t/hint\")\"; cd \"$t\"\n"
	"eval \"$(sed -n 2p hint)\"\n"
	"./app softdapl-lo\n"
	"if test -x /usr/bin/dtest; then\n"
	"	eval \"$(sed -n 3p hint)\" > dtest.out 2>&1; wait\n"
	"	echo dtest passed: $(grep -c 'DAPL Test Complete. PASSED' dtest.out)\n"
	"else\n"
	"	echo 'dtest passed: 2 (not installed: dapl2-utils)'\n"
	"fi\n";

TEST_IMPL(demo_hint_works_pasted)
{
	char *out = NULL;

#ifdef SANITIZED
	TEST_SKIP("builds against the normal build only");
#endif
	if (test_find_program("pkg-config") == NULL)
		TEST_SKIP("pkg-config missing: apt-get install -y pkg-config");
	test_write_file("consumer.c", consumer_c);
	run_script("demo-hint", 90, demo_hint_script, &out);
	printf("%s", out);
	ASSERT_STR_CONTAINS(out, "eval \"$(");
	ASSERT_STR_CONTAINS(out, "opened softdapl-lo\nclosed\n");
	ASSERT_STR_CONTAINS(out, "dtest passed: 2");
	free(out);
	return 0;
}

/*
 * Runs @cmd with sh -c as root in a fresh Debian 12 root with dapl2-utils
 * (test/fresh-root, the root kept in the build directory), its output in
 * *@out. Returns 0 when it ran (its exit status checked), or 77 with the
 * reason in @why when no root can be made here (the caller skips).
 */
static int in_fresh_root(const char *cmd, char **out, char *why, size_t len)
{
	char cache[4096], script[256];
	const char *p, *nl;
	int status;

	snprintf(cache, sizeof(cache), "%s/../fresh-root", test_builddir());
	snprintf(script, sizeof(script), "%s/test/fresh-root", TEST_SRCDIR);
	ASSERT_OK(test_run_cmdl(600, &status, out, script, cache, test_tmpdir(),
				TEST_SRCDIR, "sh", "-c", cmd, NULL));
	printf("%s", *out);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
		p = strstr(*out, "fresh-root: ");
		p = p != NULL ? p + strlen("fresh-root: ") : "no fresh root";
		nl = strchr(p, '\n');
		snprintf(why, len, "%.*s",
			 (int)(nl != NULL ? nl - p : (long)strlen(p)), p);
		return 77;
	}
	ASSERT_EXIT_OK(status);
	return 0;
}

/* How many times @needle occurs in @hay. */
static unsigned occurrences(const char *hay, const char *needle)
{
	unsigned n = 0;

	while ((hay = strstr(hay, needle)) != NULL) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

/*
 * The README's "Quick start", line by line as a user pastes it
 * (test/quick-start reads the lines from the README itself), in a fresh
 * Debian 12 root with Debian's dapl2-utils: the packages, the demo, the
 * build tree's environment, Debian's dtest over softdapl (both sides
 * PASSED), an example built against the tree; then in a new shell make
 * install, dtest and the example again against the installed softdapl,
 * and make uninstall. make check is left out: it is this suite.
 */
TEST_IMPL(readme_quick_start_fresh_root)
{
	static char why[256];
	char *out = NULL;

#ifdef SANITIZED
	TEST_SKIP("runs the normal build only");
#endif
	if (in_fresh_root("cd /src && test/quick-start --skip 'make check' "
			  "README", &out, why, sizeof(why)) == 77) {
		free(out);
		TEST_SKIP(why);
	}
	ASSERT_STR_CONTAINS(out, "quick-start: every line ran\n");
	ASSERT_STR_CONTAINS(out, "$ make check\n(left out here)\n");
	/* The demo's examples, then the one built against the tree, then
	 * against the installed softdapl. */
	ASSERT(occurrences(out, "send-recv: ok\n") >= 3);
	ASSERT_EQ(occurrences(out, "DAPL Test Complete. PASSED"), 4);
	ASSERT_NULL(strstr(out, "FAILED"));
	ASSERT_STR_CONTAINS(out, "registry: dtest and other DAT programs use");
	ASSERT_STR_CONTAINS(out, "the object is not in a state that allows");
	free(out);
	return 0;
}

/*
 * tools/ci-setup as a CI job runs it, in a fresh Debian 12 root that has
 * Debian's dapl2-utils (test/fresh-root): it installs the build's
 * packages, builds, installs into a prefix, prints the environment, and
 * its smoke test (Debian's dtest over softdapl-lo, both sides PASSED)
 * passes. Skips, saying why, where no root can be made (not root, no
 * debootstrap, no Debian mirror).
 */
TEST_IMPL(ci_setup_fresh_root)
{
	static char why[256];
	char *out = NULL;

#ifdef SANITIZED
	TEST_SKIP("runs the normal build only");
#endif
	if (in_fresh_root("cd /src && tools/ci-setup --prefix /opt/softdapl"
			  " && echo CI-SETUP-OK", &out, why, sizeof(why)) == 77) {
		free(out);
		TEST_SKIP(why);
	}
	ASSERT_STR_CONTAINS(out, "export DAT_OVERRIDE=/opt/softdapl/etc/dat.conf");
	ASSERT_STR_CONTAINS(out, "smoke test passed: dtest -P softdapl-lo, "
				 "both sides PASSED");
	ASSERT_STR_CONTAINS(out, "CI-SETUP-OK");
	free(out);
	return 0;
}

/*
 * The shell functions every script of a fresh root starts with: the
 * build's packages, the checksum of Debian's /etc/dat.conf before
 * anything of ours, a dtest pair over softdapl-lo whose both sides must
 * print PASSED (OFED's dtest exits 0 after FAILED; the client tries
 * again while the server is not listening yet), which libdat2.so.2
 * Debian's dtest loads and which package owns it, and dpkg's view of
 * Debian's three packages.
 */
#define FRESH_ROOT_PRELUDE						\
	"set -e\n"							\
	"cd /src\n"							\
	"tools/install-deps build >/dev/null\n"				\
	"md5sum /etc/dat.conf > /tmp/dat.conf.md5\n"			\
	"dt() {\n"							\
	"	dtest -s -P softdapl-lo > /tmp/s.out 2>&1 &\n"		\
	"	for i in 1 2 3 4 5 6 7 8 9 10; do\n"			\
	"		sleep 1\n"					\
	"		if dtest -P softdapl-lo -h 127.0.0.1 > /tmp/c.out 2>&1 &&\n" \
	"		   grep -q PASSED /tmp/c.out; then break; fi\n"	\
	"		grep -q \"Couldn't connect\" /tmp/c.out || break\n"	\
	"	done\n"							\
	"	wait\n"							\
	"	echo \"$1: dtest passed: $(cat /tmp/s.out /tmp/c.out |"	\
	" grep -c 'Test Complete. PASSED')\"\n"				\
	"}\n"								\
	"loads() {\n"							\
	"	f=$(ldd /usr/bin/dtest | sed -n 's/.*libdat2.so.2 => \\([^ ]*\\).*/\\1/p')\n" \
	"	p=$(dpkg -S \"$(readlink -f \"$f\")\" 2>/dev/null | cut -d: -f1)\n" \
	"	echo \"$1: dtest loads $f (${p:-no package's})\"\n"	\
	"}\n"								\
	"states() {\n"							\
	"	for p in libdapl2 dapl2-utils libdapl-dev softdapl softdapl-registry softdapl-dev; do\n" \
	"		s=$(dpkg-query -W -f='${db:Status-Abbrev}' $p 2>/dev/null | tr -d ' ')\n" \
	"		printf ' %s=%s' $p \"${s:-un}\"\n"			\
	"	done | sed \"s/^/$1: dpkg:/\"; echo\n"			\
	"}\n"								\
	"debian_intact() {\n"						\
	"	md5sum -c /tmp/dat.conf.md5 | sed \"s/^/$1: /\"\n"	\
	"	dpkg --verify libdapl2 dapl2-utils && echo \"$1: dpkg --verify: clean\"\n" \
	"}\n"

/*
 * make install beside Debian's DAPL, in a fresh Debian 12 root that has
 * dapl2-utils (and so libdapl2's registry and /etc/dat.conf): by default
 * Debian's registry stays the system's, and make install says so. Debian's
 * dtest loads it (/lib/x86_64-linux-gnu/libdat2.so.2, libdapl2's) and,
 * through it, our provider: dtest -P softdapl-lo and dapltest pass with no
 * environment. Our registry is in /usr/local/lib/softdapl, which
 * softdapl's tools and a program built with pkg-config dat2 load (RPATH).
 * Our entries outlive a reinstall of Debian's packages; make uninstall
 * leaves /etc/dat.conf as Debian's, byte for byte, nothing of ours under
 * /usr/local, and dpkg --verify finds nothing of Debian's changed.
 */
static const char beside_script[] =
	FRESH_ROOT_PRELUDE
	"make -s -j2 installable >/dev/null 2>&1\n"
	"make -s install\n"
	"sed -n '/^# >>> softdapl/,/^# <<< softdapl/p' /etc/dat.conf\n"
	"loads installed\n"
	"dt installed\n"
	"dapltest -T F -D softdapl-lo -f pz | grep -c 'Result: PASS' |"
	" sed 's/^/dapltest pz passes: /'\n"
	"echo \"datinfo loads: $(ldd /usr/local/bin/datinfo | grep -o '/[^ ]*libdat2.so.2')\"\n"
	"/usr/local/bin/datinfo -q softdapl-lo | grep -o 'softdapl-lo OK *opens'\n"
	"cc -Itools test/examples/send-recv.c $(pkg-config --cflags --libs dat2) -o /tmp/app\n"
	"echo \"app loads: $(ldd /tmp/app | grep -o '/[^ ]*libdat2.so.2')\"\n"
	"/tmp/app softdapl-lo\n"
	"apt-get install -y -qq --reinstall -o Dpkg::Options::=--force-confdef"
	" -o Dpkg::Options::=--force-confold libdapl2 dapl2-utils >/dev/null 2>&1\n"
	"grep -c '^softdapl-lo ' /etc/dat.conf | sed 's/^/after reinstall: /'\n"
	"dt reinstalled\n"
	"make -s uninstall\n"
	"debian_intact uninstalled\n"
	"loads uninstalled\n"
	"echo \"left: $(find /usr/local -name '*softdapl*' -o -name '*dat2*' -o -name 'libdat*' | wc -l)\"\n";

TEST_IMPL(install_beside_debian_fresh_root)
{
	static char why[256];
	char *out = NULL;

#ifdef SANITIZED
	TEST_SKIP("installs the normal build only");
#endif
	if (in_fresh_root(beside_script, &out, why, sizeof(why)) == 77) {
		free(out);
		TEST_SKIP(why);
	}
	ASSERT_STR_CONTAINS(out, "registry: dtest and other DAT programs use the "
				 "system's /lib/x86_64-linux-gnu/libdat2.so.2; ours "
				 "is in /usr/local/lib/softdapl for softdapl's tools "
				 "and pkg-config dat2 (make install REGISTRY=replace: "
				 "ours for all)\n");
	ASSERT_STR_CONTAINS(out, "installed: dtest loads /lib/x86_64-linux-gnu/"
				 "libdat2.so.2 (libdapl2)\n");
	ASSERT_STR_CONTAINS(out, "installed: dtest passed: 2\n");
	ASSERT_STR_CONTAINS(out, "dapltest pz passes: ");
	ASSERT_NULL(strstr(out, "dapltest pz passes: 0\n"));
	ASSERT_STR_CONTAINS(out, "datinfo loads: /usr/local/lib/softdapl/libdat2.so.2\n");
	ASSERT_STR_CONTAINS(out, "softdapl-lo OK       opens");
	ASSERT_STR_CONTAINS(out, "app loads: /usr/local/lib/softdapl/libdat2.so.2\n");
	ASSERT_STR_CONTAINS(out, "send-recv: ok");
	ASSERT_STR_CONTAINS(out, "after reinstall: 1\n");
	ASSERT_STR_CONTAINS(out, "reinstalled: dtest passed: 2\n");
	ASSERT_STR_CONTAINS(out, "uninstalled: /etc/dat.conf: OK\n");
	ASSERT_STR_CONTAINS(out, "uninstalled: dpkg --verify: clean\n");
	ASSERT_STR_CONTAINS(out, "uninstalled: dtest loads /lib/x86_64-linux-gnu/"
				 "libdat2.so.2 (libdapl2)\n");
	ASSERT_STR_CONTAINS(out, "left: 0\n");
	free(out);
	return 0;
}

/*
 * make install REGISTRY=replace beside Debian's DAPL: our libdat2.so.2 in
 * /usr/local/lib comes before libdapl2's, and Debian's dtest loads it, as
 * make install says. A plain make install again keeps that choice;
 * REGISTRY=keep takes ours out of the loader's way, and REGISTRY=replace
 * puts it back. REGISTRY=replace into libdapl2's own directory is refused
 * before anything is written. make uninstall gives dtest Debian's
 * registry back and leaves /etc/dat.conf and dpkg --verify as they were.
 */
static const char replace_script[] =
	FRESH_ROOT_PRELUDE
	"make -s -j2 installable >/dev/null 2>&1\n"
	"make -s install REGISTRY=replace\n"
	"loads replaced\n"
	"dt replaced\n"
	"make -s install | grep '^registry:' | sed 's/^/again: /'\n"
	"loads again\n"
	"make -s install REGISTRY=keep | grep '^registry:' | sed 's/^/keep: /'\n"
	"loads keep\n"
	"echo \"keep: in /usr/local/lib: $(ls /usr/local/lib | grep -c '^libdat')\"\n"
	"dt keep\n"
	"make -s install REGISTRY=replace | grep '^registry:' | sed 's/^/back: /'\n"
	"loads back\n"
	"echo \"back: in /usr/local/lib/softdapl: $(ls /usr/local/lib/softdapl 2>/dev/null | wc -l)\"\n"
	"if make -s install PREFIX=/usr LIBDIR=/usr/lib/x86_64-linux-gnu"
	" DOCDIR=/tmp/doc REGISTRY=replace > refused.out 2>&1; then\n"
	"	echo 'overwrote libdapl2'\n"
	"fi\n"
	"sed 's/^/refused: /' refused.out\n"
	"test ! -e /tmp/doc && test ! -e /usr/lib/x86_64-linux-gnu/libdaplsoft.so.2 &&"
	" echo 'refused: nothing written'\n"
	"make -s uninstall\n"
	"debian_intact uninstalled\n"
	"loads uninstalled\n"
	"echo \"left: $(find /usr/local -name '*softdapl*' -o -name '*dat2*' -o -name 'libdat*' | wc -l)\"\n";

TEST_IMPL(install_registry_replace_fresh_root)
{
	static char why[256];
	char *out = NULL;

#ifdef SANITIZED
	TEST_SKIP("installs the normal build only");
#endif
	if (in_fresh_root(replace_script, &out, why, sizeof(why)) == 77) {
		free(out);
		TEST_SKIP(why);
	}
	ASSERT_STR_CONTAINS(out, "registry: dtest and other DAT programs use ours, "
				 "/usr/local/lib/libdat2.so.2, before the system's "
				 "/lib/x86_64-linux-gnu/libdat2.so.2 (make install "
				 "REGISTRY=keep leaves them the system's)\n");
	ASSERT_STR_CONTAINS(out, "replaced: dtest loads /usr/local/lib/libdat2.so.2 "
				 "(no package's)\n");
	ASSERT_STR_CONTAINS(out, "replaced: dtest passed: 2\n");
	ASSERT_STR_CONTAINS(out, "again: registry: dtest and other DAT programs use ours");
	ASSERT_STR_CONTAINS(out, "again: dtest loads /usr/local/lib/libdat2.so.2");
	ASSERT_STR_CONTAINS(out, "keep: registry: dtest and other DAT programs use the "
				 "system's /lib/x86_64-linux-gnu/libdat2.so.2");
	ASSERT_STR_CONTAINS(out, "keep: dtest loads /lib/x86_64-linux-gnu/libdat2.so.2 "
				 "(libdapl2)\n");
	ASSERT_STR_CONTAINS(out, "keep: in /usr/local/lib: 0\n");
	ASSERT_STR_CONTAINS(out, "keep: dtest passed: 2\n");
	ASSERT_STR_CONTAINS(out, "back: dtest loads /usr/local/lib/libdat2.so.2");
	ASSERT_STR_CONTAINS(out, "back: in /usr/local/lib/softdapl: 0\n");
	ASSERT_NULL(strstr(out, "overwrote libdapl2"));
	ASSERT_STR_CONTAINS(out, "refused: make install: /usr/lib/x86_64-linux-gnu/"
				 "libdat2.so.2 is not softdapl's (it is libdapl2's)");
	ASSERT_STR_CONTAINS(out, "refused: nothing written\n");
	ASSERT_STR_CONTAINS(out, "uninstalled: /etc/dat.conf: OK\n");
	ASSERT_STR_CONTAINS(out, "uninstalled: dpkg --verify: clean\n");
	ASSERT_STR_CONTAINS(out, "uninstalled: dtest loads /lib/x86_64-linux-gnu/"
				 "libdat2.so.2 (libdapl2)\n");
	ASSERT_STR_CONTAINS(out, "left: 0\n");
	free(out);
	return 0;
}

/*
 * The package softdapl (make deb) beside Debian's DAPL: apt installs it
 * without removing anything, dapl2-utils stays, and Debian's dtest loads
 * libdapl2's registry and through it our provider, whose entries
 * postinst put into /etc/dat.conf between marker lines. A reinstall of
 * Debian's packages keeps them. dpkg -r, and a purge after a second
 * install, leave /etc/dat.conf as Debian's, byte for byte, and dpkg
 * --verify clean.
 */
static const char deb_beside_script[] =
	FRESH_ROOT_PRELUDE
	"make -s -j2 deb > deb.out 2>&1 || { cat deb.out; exit 1; }\n"
	"grep '[.]deb$' deb.out\n"
	"apt-get install -y ./build/softdapl_*.deb > apt.out 2>&1 || { cat apt.out; exit 1; }\n"
	"grep -A2 'REMOVED' apt.out || echo 'apt removed nothing'\n"
	"grep '^softdapl: ' apt.out\n"
	"states installed\n"
	"loads installed\n"
	"dt installed\n"
	"datinfo -q softdapl-lo | grep -o 'softdapl-lo OK *opens'\n"
	"apt-get install -y -qq --reinstall -o Dpkg::Options::=--force-confdef"
	" -o Dpkg::Options::=--force-confold libdapl2 dapl2-utils >/dev/null 2>&1\n"
	"grep -c '^softdapl-lo ' /etc/dat.conf | sed 's/^/after reinstall: /'\n"
	"dt reinstalled\n"
	"dpkg -r softdapl | grep '^softdapl: ' | sed 's/^/removed: /'\n"
	"states removed\n"
	"debian_intact removed\n"
	"apt-get install -y -qq ./build/softdapl_*.deb >/dev/null 2>&1\n"
	"dt again\n"
	"dpkg --purge softdapl >/dev/null\n"
	"states purged\n"
	"debian_intact purged\n";

TEST_IMPL(deb_provider_beside_debian_fresh_root)
{
	static char why[256];
	char *out = NULL;

#ifdef SANITIZED
	TEST_SKIP("make deb packages the normal build only");
#endif
	if (in_fresh_root(deb_beside_script, &out, why, sizeof(why)) == 77) {
		free(out);
		TEST_SKIP(why);
	}
	ASSERT_STR_CONTAINS(out, "build/softdapl_");
	ASSERT_STR_CONTAINS(out, "apt removed nothing\n");
	ASSERT_STR_CONTAINS(out, "softdapl: /etc/dat.conf: softdapl's entries added "
				 "between softdapl's marker lines (softdapl-lo, "
				 "softdapl-any, softdapl-lo6)");
	ASSERT_STR_CONTAINS(out, "installed: dpkg: libdapl2=ii dapl2-utils=ii "
				 "libdapl-dev=un softdapl=ii softdapl-registry=un "
				 "softdapl-dev=un\n");
	ASSERT_STR_CONTAINS(out, "installed: dtest loads /lib/x86_64-linux-gnu/"
				 "libdat2.so.2 (libdapl2)\n");
	ASSERT_STR_CONTAINS(out, "installed: dtest passed: 2\n");
	ASSERT_STR_CONTAINS(out, "softdapl-lo OK       opens");
	ASSERT_STR_CONTAINS(out, "after reinstall: 1\n");
	ASSERT_STR_CONTAINS(out, "reinstalled: dtest passed: 2\n");
	ASSERT_STR_CONTAINS(out, "removed: softdapl: /etc/dat.conf: softdapl's "
				 "entries removed\n");
	ASSERT_STR_CONTAINS(out, "removed: dpkg: libdapl2=ii dapl2-utils=ii "
				 "libdapl-dev=un softdapl=rc softdapl-registry=un "
				 "softdapl-dev=un\n");
	ASSERT_STR_CONTAINS(out, "removed: /etc/dat.conf: OK\n");
	ASSERT_STR_CONTAINS(out, "removed: dpkg --verify: clean\n");
	ASSERT_STR_CONTAINS(out, "again: dtest passed: 2\n");
	ASSERT_STR_CONTAINS(out, "purged: dpkg: libdapl2=ii dapl2-utils=ii "
				 "libdapl-dev=un softdapl=un softdapl-registry=un "
				 "softdapl-dev=un\n");
	ASSERT_STR_CONTAINS(out, "purged: /etc/dat.conf: OK\n");
	ASSERT_STR_CONTAINS(out, "purged: dpkg --verify: clean\n");
	free(out);
	return 0;
}

/*
 * The package softdapl-registry takes libdapl2's place: apt removes
 * libdapl2 (its /etc/dat.conf, a conffile, stays), and keeps dapl2-utils,
 * whose unversioned dependency on libdapl2 our Provides meets, and
 * libdapl-dev, whose libdapl2 (= VERSION) the versioned Provides meets.
 * Debian's dtest then loads our libdat2.so.2 (softdapl-registry's) and
 * passes. softdapl-dev replaces libdapl-dev, and a program builds with
 * pkg-config dat2 alone. Installing libdapl2 again is the way back: apt
 * removes softdapl-registry and softdapl-dev, softdapl stays and dtest
 * passes with libdapl2's registry; a purge of softdapl leaves
 * /etc/dat.conf as Debian's and dpkg --verify clean.
 */
static const char deb_registry_script[] =
	FRESH_ROOT_PRELUDE
	"make -s -j2 deb > deb.out 2>&1 || { cat deb.out; exit 1; }\n"
	"grep '[.]deb$' deb.out\n"
	"dpkg-deb -f build/softdapl-registry_*.deb Provides | sed 's/^/registry provides: /'\n"
	"apt-get install -y -qq libdapl-dev >/dev/null 2>&1\n"
	"apt-get install -y ./build/softdapl-registry_*.deb ./build/softdapl_*.deb"
	" > apt.out 2>&1 || { cat apt.out; exit 1; }\n"
	"sed -n '/REMOVED/,/^[^ ]/p' apt.out | sed 's/^/apt: /'\n"
	"states replaced\n"
	"loads replaced\n"
	"dt replaced\n"
	"dapltest -T F -D softdapl-lo -f pz | grep -c 'Result: PASS' |"
	" sed 's/^/dapltest pz passes: /'\n"
	"apt-get install -y ./build/softdapl-dev_*.deb > apt.out 2>&1 || { cat apt.out; exit 1; }\n"
	"states dev\n"
	"cc -Itools test/examples/send-recv.c $(pkg-config --cflags --libs dat2) -o /tmp/app\n"
	"/tmp/app softdapl-lo\n"
	"apt-get install -y libdapl2 > apt.out 2>&1 || { cat apt.out; exit 1; }\n"
	"sed -n '/REMOVED/,/^[^ ]/p' apt.out | sed 's/^/back: apt: /'\n"
	"states back\n"
	"loads back\n"
	"dt back\n"
	"dpkg --purge softdapl >/dev/null\n"
	"debian_intact purged\n";

TEST_IMPL(deb_registry_replaces_libdapl2_fresh_root)
{
	static char why[256];
	char *out = NULL;

#ifdef SANITIZED
	TEST_SKIP("make deb packages the normal build only");
#endif
	if (in_fresh_root(deb_registry_script, &out, why, sizeof(why)) == 77) {
		free(out);
		TEST_SKIP(why);
	}
	ASSERT_STR_CONTAINS(out, "registry provides: libdapl2 (= 2.1.10");
	ASSERT_STR_CONTAINS(out, "apt: The following packages will be REMOVED:\n"
				 "apt:   libdapl2\n");
	ASSERT_STR_CONTAINS(out, "replaced: dpkg: libdapl2=rc dapl2-utils=ii "
				 "libdapl-dev=ii softdapl=ii softdapl-registry=ii "
				 "softdapl-dev=un\n");
	ASSERT_STR_CONTAINS(out, "replaced: dtest loads /lib/x86_64-linux-gnu/"
				 "libdat2.so.2 (softdapl-registry)\n");
	ASSERT_STR_CONTAINS(out, "replaced: dtest passed: 2\n");
	ASSERT_STR_CONTAINS(out, "dapltest pz passes: ");
	ASSERT_NULL(strstr(out, "dapltest pz passes: 0\n"));
	ASSERT_STR_CONTAINS(out, "dev: dpkg: libdapl2=rc dapl2-utils=ii "
				 "libdapl-dev=un softdapl=ii softdapl-registry=ii "
				 "softdapl-dev=ii\n");
	ASSERT_STR_CONTAINS(out, "send-recv: ok");
	ASSERT_STR_CONTAINS(out, "back: apt:   softdapl-dev softdapl-registry\n");
	ASSERT_STR_CONTAINS(out, "back: dpkg: libdapl2=ii dapl2-utils=ii "
				 "libdapl-dev=un softdapl=ii softdapl-registry=un "
				 "softdapl-dev=un\n");
	ASSERT_STR_CONTAINS(out, "back: dtest loads /lib/x86_64-linux-gnu/"
				 "libdat2.so.2 (libdapl2)\n");
	ASSERT_STR_CONTAINS(out, "back: dtest passed: 2\n");
	ASSERT_STR_CONTAINS(out, "purged: /etc/dat.conf: OK\n");
	ASSERT_STR_CONTAINS(out, "purged: dpkg --verify: clean\n");
	free(out);
	return 0;
}

/*
 * What make and tools/install-deps say on a machine without the build's
 * packages (a dpkg-query that knows none, a pkg-config that finds no
 * libuv): the packages and the apt-get line, before anything compiles;
 * and with the build's packages but none of the tests' tools, make check's
 * mode goes on, saying which tests will skip.
 */
static const char deps_script[] =
	"set -e\n"
	"src=$1\n"
	"mkdir -p none some\n"
	"printf '#!/bin/sh\\nexit 1\\n' > none/dpkg-query\n"
	"printf '#!/bin/sh\\ncase \" gcc make pkg-config libuv1-dev \" in\\n"
	"*\" $3 \"*) echo \"install ok installed\";;\\nesac\\n' > some/dpkg-query\n"
	"chmod +x none/dpkg-query some/dpkg-query\n"
	"if PATH=$PWD/none:$PATH PKG_CONFIG_LIBDIR=/nonexistent \\\n"
	"	make -s -C \"$src\" O=\"$PWD/o\" > make.out 2>&1; then\n"
	"	echo 'make went on'; exit 1\n"
	"fi\n"
	"cat make.out\n"
	"echo objects: $(find o -name '*.o' 2>/dev/null | wc -l)\n"
	"PATH=$PWD/some:$PATH PKG_CONFIG_LIBDIR=/nonexistent \\\n"
	"	\"$src/tools/install-deps\" check --check\n"
	"echo check: $?\n";

TEST_IMPL(install_deps_says_what_is_missing)
{
	char *out = NULL;

	run_script("deps", 60, deps_script, &out);
	printf("%s", out);
	ASSERT_STR_CONTAINS(out, "build needs packages that are missing: gcc "
				 "make pkg-config libuv1-dev");
	ASSERT_STR_CONTAINS(out, "apt-get install -y gcc make pkg-config "
				 "libuv1-dev\n");
	ASSERT_STR_CONTAINS(out, "nothing was compiled");
	ASSERT_STR_CONTAINS(out, "objects: 0");
	ASSERT_STR_CONTAINS(out, "without libdapl-dev libdapl2 dapl2-utils");
	ASSERT_STR_CONTAINS(out, "the tests that use them skip");
	ASSERT_STR_CONTAINS(out, "check: 0");
	free(out);
	return 0;
}

static const char man_script[] =
	"cd \"$1/tools/man\" || exit 1\n"
	"n=0\n"
	"for f in *; do\n"
	"	case $f in *.[1-8]) ;; *) echo \"$f: not a man page name\"; continue ;; esac\n"
	"	n=$((n + 1))\n"
	"	groff -t -man -ww -z \"$f\" 2>&1 | sed \"s|^|$f: groff: |\"\n"
	"	MANROFFOPT=-ww MANWIDTH=80 man -l \"$f\" 2>&1 >/dev/null |"
	" sed \"s|^|$f: man: |\"\n"
	"done\n"
	"echo \"pages: $n\"\n";

/*
 * Every entry point of DAT 2.0 (the 83 of tools/api-coverage's table) is
 * a name of a page of section 3, so that man NAME finds it once installed.
 */
static const char every_call_script[] =
	"set -e\n"
	"src=$1\n"
	"for f in \"$src\"/tools/man/*.3; do \"$src/tools/man-names\" \"$f\"; done |"
	" sort -u > named\n"
	"\"$src/tools/api-coverage\" | sed -n 's/^| \\(dat_[a-z_0-9]*\\) |.*/\\1/p' |"
	" sort -u > calls\n"
	"echo calls: $(wc -l < calls)\n"
	"comm -23 calls named | sed 's/^/no page names /'\n"
	"for f in \"$src\"/tools/man/*.3; do\n"
	"	p=${f##*/}; p=${p%.3}\n"
	"	grep -q \"^\\.BR $p \" \"$src/tools/man/softdapl.7\" ||"
	" echo \"softdapl(7) does not list $p(3)\"\n"
	"done\n";

TEST_IMPL(man_page_every_entry_point)
{
	char *out = NULL;

	run_script("every-call", 60, every_call_script, &out);
	printf("%s", out);
	ASSERT_STR_CONTAINS(out, "calls: 83\n");
	if (strstr(out, "no page names") != NULL ||
	    strstr(out, "does not list") != NULL)
		TEST_FAIL("calls without a man page, or pages softdapl(7) "
			  "does not list:\n%s", out);
	free(out);
	return 0;
}

TEST_IMPL(man_pages_render)
{
	static const char *const ours[] = { "dat.conf.5", "softdapl.7",
					    "softbench.1" };
	char *out = NULL, path[4096];
	unsigned i;

	if (test_find_program("groff") == NULL || test_find_program("man") == NULL)
		TEST_SKIP("groff or man missing: apt-get install -y groff-base man-db");
	for (i = 0; i < sizeof(ours) / sizeof(ours[0]); i++) {
		snprintf(path, sizeof(path), "%s/tools/man/%s", TEST_SRCDIR,
			 ours[i]);
		if (access(path, R_OK) != 0)
			TEST_FAIL("%s is missing", path);
	}
	run_script("man", 60, man_script, &out);
	printf("%s", out);
	if (strncmp(out, "pages: ", 7) != 0)
		TEST_FAIL("warnings while rendering the man pages:\n%s", out);
	free(out);
	return 0;
}

/*
 * make deb into the test's directory: three packages, each with its
 * fields and files (the registry's, the development files and the rest
 * each in one package, none in two, no /etc/dat.conf anywhere), md5sums
 * that match, no RUNPATH; softdapl without a Conflicts, the other two
 * Providing, Conflicting with and Replacing libdapl2 and libdapl-dev. The
 * maintainer scripts run against a DPKG_ROOT: postinst puts our entries
 * into an existing dat.conf between marker lines (and creates a missing
 * one), postrm remove or purge restores the file byte for byte; a file
 * that names our provider already, or that the admin changed, is kept.
 */
static const char deb_script[] =
	"set -e\n"
	"src=$1; o=$2; out=$PWD\n"
	"make -s -C \"$src\" O=\"$o\" DEBDIR=\"$out\" deb > made; cat made\n"
	"ver=$(sed -n 's/^VERSION[[:space:]]*:=[[:space:]]*//p' \"$src/Makefile\")\n"
	"arch=$(dpkg --print-architecture)\n"
	"ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || ${CC:-cc} -print-multiarch)\n"
	"deb=$out/softdapl_${ver}_$arch.deb\n"
	"reg=$out/softdapl-registry_${ver}_$arch.deb\n"
	"dev=$out/softdapl-dev_${ver}_$arch.deb\n"
	"test \"$(cat made)\" = \"$(printf '%s\\n' $deb $reg $dev)\"\n"
	"dpkg-deb --info \"$deb\" > info; cat info\n"
	"for f in control md5sums postinst postrm triggers; do\n"
	"	grep -q \" $f\" info || { echo \"no $f in the control archive\"; exit 1; }\n"
	"done\n"
	"for d in $deb $reg $dev; do\n"
	"	p=${d##*/}; p=${p%%_*}\n"
	"	test \"$(dpkg-deb -f \"$d\" Package)\" = $p\n"
	"	test \"$(dpkg-deb -f \"$d\" Version)\" = \"$ver\"\n"
	"	test \"$(dpkg-deb -f \"$d\" Architecture)\" = \"$arch\"\n"
	"	echo \"$p: $(dpkg-deb -f \"$d\" Depends Provides Conflicts Replaces | tr '\\n' ' ')\"\n"
	"done\n"
	"dpkg-deb -f \"$deb\" Depends | grep -q 'libuv1 (>= [0-9]'\n"
	"dpkg-deb -f \"$deb\" Depends | grep -q 'libdapl2 | softdapl-registry'\n"
	"test -z \"$(dpkg-deb -f \"$deb\" Conflicts Replaces Provides)\"\n"
	"for f in Conflicts Replaces; do\n"
	"	test \"$(dpkg-deb -f \"$reg\" $f)\" = libdapl2\n"
	"	test \"$(dpkg-deb -f \"$dev\" $f)\" = libdapl-dev\n"
	"done\n"
	"dpkg-deb -f \"$reg\" Provides | grep -q '^libdapl2'\n"
	"dpkg-deb -f \"$dev\" Provides | grep -q '^libdapl-dev'\n"
	"test \"$(dpkg-deb -f \"$dev\" Depends)\" = \"softdapl-registry (= $ver)\"\n"
	"for d in $deb $reg $dev; do\n"
	"	dpkg-deb --contents \"$d\" | awk '{ print $6 }' | grep -v '/$' > paths.${d##*/}\n"
	"done\n"
	"cat paths.* | sort | uniq -d | sed 's/^/in two packages: /'\n"
	"L=./usr/lib/$ma\n"
	"want() {	# PACKAGE-FILE PATH...\n"
	"	f=paths.${1##*/}; shift\n"
	"	for p in \"$@\"; do grep -qx \"$p\" $f || { echo \"missing: $p\"; exit 1; }; done\n"
	"}\n"
	"want $reg $L/libdat2.so.2.0.0 $L/libdat2.so.2 $L/libdat.so.1 \\\n"
	"	./usr/share/doc/softdapl-registry/copyright\n"
	"want $dev $L/libdat2.so $L/libdat.so $L/pkgconfig/dat2.pc ./usr/include/dat2/udat.h \\\n"
	"	./usr/include/dat2/dat.h ./usr/include/dat/udat.h ./usr/share/doc/softdapl-dev/copyright\n"
	"want $deb ./usr/bin/datinfo ./usr/bin/softbench ./usr/bin/bench-plot \\\n"
	"	$L/libdaplsoft.so.2.0.0 $L/libdaplsoft.so.2 \\\n"
	"	./usr/share/doc/softdapl/copyright ./usr/share/doc/softdapl/README.gz \\\n"
	"	./usr/share/doc/softdapl/dat.conf.example ./usr/share/doc/softdapl/softdapl.dat.conf\n"
	"for f in $src/tools/man/*.[1-8]; do\n"
	"	p=${f##*/}\n"
	"	case $p in\n"
	"	dat.conf.5) want $deb ./usr/share/man/man5/dat.conf.5softdapl.gz ;;\n"
	"	*) want $deb ./usr/share/man/man${p##*.}/$p.gz ;;\n"
	"	esac\n"
	"done\n"
	"# dapl2-utils ships /usr/share/man/man5/dat.conf.5.gz\n"
	"if grep -qx ./usr/share/man/man5/dat.conf.5.gz paths.*; then echo 'ships dat.conf.5.gz'; exit 1; fi\n"
	"test ! -f $src/tools/softdapl.lua || want $deb $L/wireshark/plugins/softdapl.lua\n"
	"test ! -x $o/tools/softdapl-seq || want $deb ./usr/bin/softdapl-seq\n"
	"if grep -q '^./etc/' paths.*; then echo 'ships /etc'; exit 1; fi\n"
	"if grep -q 'install-manifest' paths.*; then echo 'ships the manifest'; exit 1; fi\n"
	"if grep -q 'libdat' paths.${deb##*/}; then echo 'softdapl ships a registry file'; exit 1; fi\n"
	"for d in $deb $reg $dev; do\n"
	"	rm -rf root ctl; dpkg-deb -x \"$d\" root; dpkg-deb -e \"$d\" ctl\n"
	"	(cd root && md5sum -c --quiet ../ctl/md5sums)\n"
	"	test \"$(wc -l < ctl/md5sums)\" -eq \"$(find root -type f | wc -l)\"\n"
	"	for b in root/usr/bin/* root/usr/lib/$ma/*.so.*; do\n"
	"		test -f \"$b\" || continue\n"
	"		if readelf -d \"$b\" 2>/dev/null | grep -q 'R.*PATH'; then echo \"$b has an RPATH\"; exit 1; fi\n"
	"	done\n"
	"done\n"
	"rm -rf root; dpkg-deb -x \"$reg\" root\n"
	"test \"$(readlink root/usr/lib/$ma/libdat2.so.2)\" = libdat2.so.2.0.0\n"
	"rm -rf root; dpkg-deb -x \"$dev\" root\n"
	"grep -qx prefix=/usr root/usr/lib/$ma/pkgconfig/dat2.pc\n"
	"grep -qx libdir=/usr/lib/$ma root/usr/lib/$ma/pkgconfig/dat2.pc\n"
	"grep -qx 'Libs: -L${libdir} -ldat2' root/usr/lib/$ma/pkgconfig/dat2.pc\n"
	"rm -rf root ctl; dpkg-deb -x \"$deb\" root; dpkg-deb -e \"$deb\" ctl\n"
	"gzip -t root/usr/share/man/man7/softdapl.7.gz\n"
	"r=$PWD/froot; c=$r/etc/dat.conf; mkdir -p $r/etc\n"
	"export DPKG_ROOT=$r\n"
	"# No dat.conf: postinst creates it, remove or purge takes it away.\n"
	"sh ctl/postinst configure\n"
	"grep -q \"^softdapl-lo .* /usr/lib/$ma/libdaplsoft.so.2 \" $c\n"
	"sh ctl/postinst configure 0.0.1	# an upgrade: one block still\n"
	"test \"$(grep -c '^softdapl-lo ' $c)\" = 1\n"
	"sh ctl/postrm remove; test ! -e $c\n"
	"sh ctl/postinst configure; sh ctl/postrm purge; test ! -e $c\n"
	"# Debian's, without a final newline: our lines in a block, then none.\n"
	"printf 'ofa-v2-ib0 u2.0 nonthreadsafe default libdaploscm.so.2 dapl.2.0 \"mlx4_0 1\" \"\"' > $c\n"
	"cp $c debian\n"
	"sh ctl/postinst configure > p.out; cat p.out\n"
	"grep -q \"softdapl: /etc/dat.conf: softdapl's entries added between softdapl's marker lines\" p.out\n"
	"grep -q '^# >>> softdapl: removing the package softdapl removes these lines' $c\n"
	"sh ctl/postrm remove > r.out; cat r.out; cmp debian $c\n"
	"sh ctl/postinst configure > /dev/null; sh ctl/postrm purge > /dev/null; cmp debian $c\n"
	"# Ours added by hand: left alone, and by postrm too.\n"
	"grep -v '^#' root/usr/share/doc/softdapl/softdapl.dat.conf >> $c; cp $c mine\n"
	"sh ctl/postinst configure | grep -q 'already names'\n"
	"cmp mine $c; sh ctl/postrm purge; cmp mine $c\n"
	"# Lines the admin added after ours: they stay, ours go.\n"
	"rm $c; sh ctl/postinst configure > /dev/null; echo '# changed' >> $c\n"
	"sh ctl/postrm purge > /dev/null; test \"$(cat $c)\" = '# changed'\n"
	"# The whole cycle with dpkg itself, into an empty root of its own.\n"
	"unset DPKG_ROOT; r=$PWD/droot; a=$r/var/lib/dpkg\n"
	"mkdir -p $a/info $a/updates $r/etc; touch $a/status\n"
	"dp() { dpkg --root=$r --force-depends --force-script-chrootless --log=/dev/null \"$@\"; }\n"
	"dp -i \"$reg\" \"$dev\" \"$deb\"\n"
	"test -x $r/usr/bin/datinfo; grep -q '^softdapl-lo ' $r/etc/dat.conf\n"
	"test -f $r/usr/lib/$ma/libdat2.so.2.0.0; test -f $r/usr/include/dat2/udat.h\n"
	"dp -P softdapl softdapl-dev softdapl-registry\n"
	"echo left: $(cd $r && find . -mindepth 1 ! -path './var*' | tr '\\n' ' ')\n"
	"echo 'deb ok'\n";

TEST_IMPL(deb_package_contents)
{
	char *out = NULL;

#ifdef SANITIZED
	TEST_SKIP("make deb packages the normal build only");
#endif
	if (test_find_program("dpkg-deb") == NULL ||
	    test_find_program("dpkg-architecture") == NULL)
		TEST_SKIP("dpkg-deb missing: apt-get install -y dpkg-dev");
	run_script("deb", 180, deb_script, &out);
	ASSERT_STR_CONTAINS(out, "left: ./etc\n");
	ASSERT_STR_CONTAINS(out, "deb ok");
	free(out);
	return 0;
}

/* The README's API table is the one tools/api-coverage makes from the code. */
TEST_IMPL(readme_api_table_current)
{
	char cmd[1024], *out = NULL;
	int status;

	snprintf(cmd, sizeof(cmd), "%s/tools/api-coverage --check", TEST_SRCDIR);
	ASSERT_OK(test_run_cmdl(60, &status, &out, "sh", "-c", cmd, NULL));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		TEST_FAIL("README's API table is stale (tools/api-coverage --update):\n%s",
			  out);
	printf("%s", out);
	free(out);
	return 0;
}
