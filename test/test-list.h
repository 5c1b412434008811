/*
 * test-list.h - every test and helper of run-tests, each named once.
 *
 * runner.c includes this file several times with different definitions of
 * the macros below (declarations, then the tables), so it has no include
 * guard and nothing but these lines:
 *
 *	TEST_ENTRY(name)			a test, TEST_IMPL(name)
 *	TEST_ENTRY_TIMEOUT(name, seconds)	one that needs more (or less)
 *						than the default timeout
 *	TEST_ENTRY_HIDDEN(name)			run only when named exactly,
 *						never by default or by a glob
 *	TEST_ENTRY_HIDDEN_TIMEOUT(name, seconds)
 *	HELPER_ENTRY(name)			a helper process,
 *						HELPER_IMPL(name)
 *
 * Keep the entries grouped by file (test/test-<area>.c), in the order the
 * file defines them; a test's name starts with its area.
 */

/* test-runner-self.c: the runner itself */
TEST_ENTRY(runner_pass)
TEST_ENTRY(runner_skip)
TEST_ENTRY(runner_helper_tcp)
TEST_ENTRY(runner_helper_exit_early)
TEST_ENTRY(runner_run_cmd)
TEST_ENTRY(runner_run_cmd_timeout)
TEST_ENTRY(runner_spawn_cmd)
TEST_ENTRY(runner_reports_format)
TEST_ENTRY(runner_reports_failures)
TEST_ENTRY(runner_reports_timeout)
TEST_ENTRY_HIDDEN(runner_selftest_fail_assert)
TEST_ENTRY_HIDDEN(runner_selftest_fail_return)
TEST_ENTRY_HIDDEN(runner_selftest_fail_exit)
TEST_ENTRY_HIDDEN(runner_selftest_fail_crash)
TEST_ENTRY_HIDDEN_TIMEOUT(runner_selftest_fail_timeout, 1)
HELPER_ENTRY(runner_tcp_echo)
HELPER_ENTRY(runner_exit_early)
HELPER_ENTRY(runner_sleeper)

/* test-registry-conf.c: the dat.conf parser */
TEST_ENTRY(registry_conf_table)
TEST_ENTRY(registry_conf_fields)

/* test-registry.c: the registry with fake providers */
TEST_ENTRY(registry_list_providers)
TEST_ENTRY(registry_open_close_cycle)
TEST_ENTRY(registry_not_found_subtypes)
TEST_ENTRY(registry_bad_libraries)
TEST_ENTRY(registry_fallback_library)
TEST_ENTRY(registry_override_unreadable)
TEST_ENTRY(registry_bad_lines_reported)
TEST_ENTRY(registry_open_failure_unloads)
TEST_ENTRY(registry_close_version_mismatch)
TEST_ENTRY(registry_add_remove_provider)
TEST_ENTRY(registry_many_ias)
TEST_ENTRY_TIMEOUT(registry_concurrent_first_use, 60)

/* test-abi.c: our headers against Debian's libdapl-dev */
TEST_ENTRY_TIMEOUT(abi_headers_match_ofed, 120)
TEST_ENTRY_TIMEOUT(abi_checker_catches_changes, 180)

/* test-abi12.c: our DAT 1.2 headers against illumos's, built for Linux */
TEST_ENTRY_TIMEOUT(abi12_headers_match_illumos, 120)

/* test-layers.c: the provider's calls against its layer table */
TEST_ENTRY(layers_no_upcalls)
TEST_ENTRY(layers_checker_catches_upcall)

/* test-install.c: make install, pkg-config, make uninstall, man pages, make deb */
TEST_ENTRY_TIMEOUT(install_destdir_pkg_config, 120)
TEST_ENTRY_TIMEOUT(install_keeps_unrelated_files, 120)
TEST_ENTRY_TIMEOUT(install_changed_dat_conf_kept, 120)
TEST_ENTRY_TIMEOUT(man_pages_render, 60)
TEST_ENTRY_TIMEOUT(man_page_every_entry_point, 60)
TEST_ENTRY_TIMEOUT(tree_env_builds_example, 60)
TEST_ENTRY_TIMEOUT(demo_hint_works_pasted, 120)
TEST_ENTRY_TIMEOUT(ci_setup_fresh_root, 900)
TEST_ENTRY_TIMEOUT(install_beside_debian_fresh_root, 900)
TEST_ENTRY_TIMEOUT(readme_quick_start_fresh_root, 900)
TEST_ENTRY_TIMEOUT(install_registry_replace_fresh_root, 900)
TEST_ENTRY_TIMEOUT(deb_provider_beside_debian_fresh_root, 900)
TEST_ENTRY_TIMEOUT(deb_registry_replaces_libdapl2_fresh_root, 900)
TEST_ENTRY_TIMEOUT(install_deps_says_what_is_missing, 60)
TEST_ENTRY_TIMEOUT(deb_package_contents, 180)
TEST_ENTRY(readme_api_table_current)

/* test-interop.c: Debian's binaries and OFED's provider with our registry */
TEST_ENTRY_TIMEOUT(interop_dapltest_binds_to_us, 90)
TEST_ENTRY_TIMEOUT(interop_dtest_binds_to_us, 90)
TEST_ENTRY_TIMEOUT(interop_ofed_provider_under_our_registry, 90)
TEST_ENTRY(registry_exports)
TEST_ENTRY_TIMEOUT(seed_synopsis_compiles, 60)

/* test-registry-dispatch.c, test-strerror.c */
TEST_ENTRY(registry_dispatch_every_slot)
TEST_ENTRY(registry_dispatch_bad_handles)
TEST_ENTRY(registry_consumer_context_on_ia)
TEST_ENTRY(strerror_every_code)

/* The provider, one list per area (each file owns its list). */
#include "test-list-mem.h"
#include "test-list-evd.h"
#include "test-list-ep.h"
#include "test-list-srq.h"
#include "test-list-examples.h"
#include "test-list-evd2.h"
#include "test-list-bench.h"
#include "test-list-mem2.h"
#include "test-list-conn2.h"
#include "test-list-ext.h"
#include "test-list-counters2.h"
#include "test-list-ud2.h"
#include "test-list-ctx.h"
#include "test-list-env.h"
#include "test-list-transport.h"
#include "test-list-fuzz.h"
#include "test-list-netns.h"
#include "test-list-faults.h"
#include "test-list-hostile.h"
#include "test-list-soak.h"
#include "test-list-wireshark.h"
#include "test-list-datinfo.h"
#include "test-list-seq.h"
#include "test-list-trace.h"

#include "test-list-dat12.h"

/* test-dat12-interop.c: a DAT 1.2 process and a DAT 2.0 process talk */
TEST_ENTRY_TIMEOUT(dat12_talks_to_dat2_ours, 90)
TEST_ENTRY_TIMEOUT(dat12_talks_to_dat2_ofed, 90)

#include "test-list-mpi.h"

/*
 * test-conformance.c: Debian's DAT programs in every documented mode, each
 * row of conformance.h under our registry and under OFED's.
 */
#define CONF(name, kind, san, srv, cli, want, secs)			\
	TEST_ENTRY_TIMEOUT(conformance_ours_##name, secs)		\
	TEST_ENTRY_TIMEOUT(conformance_ofed_##name, secs)
#include "conformance.h"
#undef CONF
