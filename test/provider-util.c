/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "provider-util.h"
#include "test.h"

const char *sdt_provider_path(void)
{
	static char buf[1024];

	snprintf(buf, sizeof(buf), "%s/../lib/libdaplsoft.so.2", test_builddir());
	return buf;
}

void sdt_conf(const char *ia_params)
{
	char conf[2048];

	snprintf(conf, sizeof(conf),
		 SDT_IA_NAME " u2.0 nonthreadsafe default %s softdapl.2.0 \"%s\" \"\"\n",
		 sdt_provider_path(), ia_params ? ia_params : "lo");
	test_dat_conf(conf);
}

DAT_IA_HANDLE sdt_open_ia(const char *ia_params, DAT_EVD_HANDLE *async_evd)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;
	char name[] = SDT_IA_NAME;

	sdt_conf(ia_params);
	ASSERT_OK(dat_ia_open(name, 16, async_evd ? async_evd : &async, &ia));
	return ia;
}

/* The path of the loaded shared object whose name contains @name, or NULL. */
static const char *mapped_path(const char *name)
{
	static char path[1024];
	char line[1400];
	const char *found = NULL;
	FILE *f = fopen("/proc/self/maps", "r");

	if (f == NULL)
		return NULL;
	while (found == NULL && fgets(line, sizeof(line), f) != NULL) {
		char *p = strchr(line, '/');

		if (p == NULL || strstr(p, name) == NULL)
			continue;
		p[strcspn(p, "\n")] = '\0';
		snprintf(path, sizeof(path), "%s", p);
		found = path;
	}
	fclose(f);
	return found;
}

/* Appends ":@opts" to the environment variable @var (or sets it). */
static void add_options(const char *var, const char *opts)
{
	const char *old = getenv(var);
	char buf[2048];

	snprintf(buf, sizeof(buf), "%s%s%s", old && *old ? old : "",
		 old && *old ? ":" : "", opts);
	test_setenv(var, buf);
}

const char *sdt_sanitize_debian(void)
{
	const char *kind = NULL, *rt;

#if defined(__SANITIZE_ADDRESS__)
	kind = "asan";
#elif defined(__SANITIZE_THREAD__)
	kind = "tsan";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
	kind = "asan";
#elif __has_feature(thread_sanitizer)
	kind = "tsan";
#endif
#endif
	if (kind == NULL)
		return NULL;
	rt = mapped_path(strcmp(kind, "asan") == 0 ? "/libasan.so" : "/libtsan.so");
	if (rt == NULL)
		TEST_FAIL("no %s runtime mapped in this process", kind);
	test_setenv("LD_PRELOAD", rt);
	if (strcmp(kind, "asan") == 0) {
		/*
		 * The frames of an uninstrumented binary have no frame
		 * pointers: the slow unwinder follows them, so that a leak's
		 * stack shows whether our code made the block.
		 */
		add_options("ASAN_OPTIONS", "fast_unwind_on_malloc=0");
		add_options("LSAN_OPTIONS", "exitcode=0");
	} else {
		add_options("TSAN_OPTIONS", "exitcode=0");
	}
	return kind;
}

/* True if @report has a frame in one of our libraries. */
static int ours(const char *report, size_t len)
{
	static const char *const libs[] = { "libdaplsoft.so", "libdat2.so" };
	size_t i;

	for (i = 0; i < sizeof(libs) / sizeof(libs[0]); i++)
		if (memmem(report, len, libs[i], strlen(libs[i])) != NULL)
			return 1;
	return 0;
}

unsigned sdt_sanitizer_reports(const char *who, const char *out)
{
	/* Where a report starts, and what ends it. */
	static const struct {
		const char *start, *end;
		int always;	/* ours whatever its frames */
	} kinds[] = {
		{ "WARNING: ThreadSanitizer:", "\n==================", 0 },
		{ "Direct leak of ", "\n\n", 0 },
		{ "Indirect leak of ", "\n\n", 0 },
		{ "ERROR: AddressSanitizer:", "\n==", 1 },
		{ "runtime error:", "\n", 1 },
	};
	unsigned n = 0;
	size_t k;

	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		const char *p = out;

		while ((p = strstr(p, kinds[k].start)) != NULL) {
			const char *e = strstr(p, kinds[k].end);
			size_t len = e ? (size_t)(e - p) : strlen(p);

			if (kinds[k].always || ours(p, len)) {
				printf("%s: a report about our libraries:\n%.*s\n",
				       who, (int)len, p);
				n++;
			} else {
				printf("%s: its own, not counted: %.*s\n", who,
				       (int)strcspn(p, "\n"), p);
			}
			p += len;
		}
	}
	return n;
}
