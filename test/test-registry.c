/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The registry end to end: dat.conf lines and fake providers (built from
 * fake-provider.c, one library per behaviour) through dat_ia_open,
 * dat_ia_close and dat_registry_list_providers, with the debug output the
 * registry prints for each failure.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dat2/udat.h>
#include <dat2/dat_registry.h>

#include "fake-provider.h"
#include "test.h"

#define NOT_FOUND(sub) (DAT_CLASS_ERROR | DAT_PROVIDER_NOT_FOUND | (sub))

/* The path of fake provider @variant in the build tree. */
static const char *fake_lib(const char *variant)
{
	static char buf[8][512];
	static int next;
	char *b = buf[next++ % 8];

	snprintf(b, sizeof(buf[0]), "%s/libfake-%s.so", test_builddir(), variant);
	return b;
}

/*
 * Sends the registry's debug output (DAT_DBG_TYPE=@mask) into a file of the
 * test's directory, to be read back with debug_output(). Must run before the
 * first DAT call, as the registry reads its environment once.
 */
static void capture_debug(const char *mask)
{
	int fd = open(test_path("stderr.log"), O_WRONLY | O_CREAT | O_TRUNC, 0644);

	ASSERT(fd >= 0);
	test_setenv("DAT_DBG_TYPE", mask);
	test_setenv("DAT_DBG_DEST", NULL);
	fflush(stderr);
	ASSERT(dup2(fd, STDERR_FILENO) == STDERR_FILENO);
	close(fd);
}

static char *debug_output(void)
{
	char *s;

	fflush(stderr);
	s = test_read_file(test_path("stderr.log"));
	ASSERT_NOT_NULL(s);
	return s;
}

/* What the fake providers logged ($FAKE_LOG), "" when nothing. */
static char *fake_log(void)
{
	char *s = test_read_file(test_path("fake.log"));

	return s != NULL ? s : strdup("");
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

static void conf(const char *fmt, ...) TEST__PRINTF(1, 2);
static void conf(const char *fmt, ...)
{
	char buf[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	test_dat_conf(buf);
	test_setenv("FAKE_LOG", test_path("fake.log"));
}

/*
 * dat_ia_openv with a name from a string literal: the API spells the name
 * DAT_NAME_PTR (char *), so it is copied rather than cast. NULL stays NULL.
 */
static DAT_RETURN openv(const char *name, DAT_IA_HANDLE *ia, DAT_UINT32 major,
			DAT_UINT32 minor, DAT_BOOLEAN ts)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	char buf[512];

	if (name == NULL)
		return dat_ia_openv(NULL, 8, &async, ia, major, minor, ts);
	snprintf(buf, sizeof(buf), "%s", name);
	return dat_ia_openv(buf, 8, &async, ia, major, minor, ts);
}

static DAT_RETURN open_ia(const char *name, DAT_IA_HANDLE *ia)
{
	return openv(name, ia, DAT_VERSION_MAJOR, DAT_VERSION_MINOR,
		     DAT_THREADSAFE);
}

/* list_providers returns the usable lines: one per key, in file order. */
TEST_IMPL(registry_list_providers)
{
	DAT_PROVIDER_INFO info[8], *list[8];
	DAT_COUNT n = -1;
	int i;

	conf("a u2.0 nonthreadsafe default %s dapl.2.0 \"\" \"\"\n"
	     "bad line\n"
	     "b u2.0 threadsafe default %s dapl.2.0 \"\" \"\"\n"
	     "a u2.0 nonthreadsafe default /fallback.so dapl.2.0 \"\" \"\"\n"
	     "c u2.0 nonthreadsafe nondefault %s dapl.2.0 \"\" \"\"\n"
	     "d k2.0 nonthreadsafe default %s dapl.2.0 \"\" \"\"\n"
	     "e u1.2 nonthreadsafe default %s dapl.1.2 \"\" \"\"\n",
	     fake_lib("good"), fake_lib("good"), fake_lib("good"),
	     fake_lib("good"), fake_lib("good"));
	for (i = 0; i < 8; i++)
		list[i] = &info[i];

	ASSERT_DAT_EQ(dat_registry_list_providers(0, &n, list),
		      DAT_CLASS_ERROR | DAT_INVALID_PARAMETER | DAT_INVALID_ARG1);
	ASSERT_EQ(n, 3);
	ASSERT_DAT_EQ(dat_registry_list_providers(8, NULL, list),
		      DAT_CLASS_ERROR | DAT_INVALID_PARAMETER | DAT_INVALID_ARG2);
	ASSERT_DAT_EQ(dat_registry_list_providers(8, &n, NULL),
		      DAT_CLASS_ERROR | DAT_INVALID_PARAMETER | DAT_INVALID_ARG3);

	ASSERT_OK(dat_registry_list_providers(8, &n, list));
	ASSERT_EQ(n, 3);
	ASSERT_STR_EQ(info[0].ia_name, "a");
	ASSERT_EQ(info[0].is_thread_safe, DAT_FALSE);
	ASSERT_STR_EQ(info[1].ia_name, "b");
	ASSERT_EQ(info[1].is_thread_safe, DAT_TRUE);
	ASSERT_STR_EQ(info[2].ia_name, "e");
	ASSERT_EQ(info[2].dapl_version_major, 1);
	ASSERT_EQ(info[2].dapl_version_minor, 2);

	ASSERT_OK(dat_registry_list_providers(2, &n, list));
	ASSERT_EQ(n, 2);
	return 0;
}

/*
 * A full cycle through a provider: lazy load at the first open, a small
 * integer as handle, the provider's own IA inside, query results mapped
 * back to the small integer, fini and unload at the last close.
 */
TEST_IMPL(registry_open_close_cycle)
{
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL, ia2 = DAT_HANDLE_NULL, mapped;
	DAT_PZ_HANDLE pz;
	DAT_PZ_PARAM pz_param;
	DAT_IA_ATTR attr;
	char *log;

	conf("fake u2.0 nonthreadsafe default %s dapl.2.0 \"params here\" \"\"\n",
	     fake_lib("good"));

	log = fake_log();
	ASSERT_STR_EQ(log, "");		/* nothing is loaded before an open */
	free(log);

	ASSERT_OK(open_ia("fake", &ia));
	ASSERT_PTR_EQ(ia, (DAT_IA_HANDLE)1);
	ASSERT_OK(open_ia("fake", &ia2));
	ASSERT_PTR_EQ(ia2, (DAT_IA_HANDLE)2);

	/* Both directions of the map, as providers use it. */
	ASSERT_OK(dats_get_ia_handle(ia, &mapped));
	ASSERT_PTR_NE(mapped, ia);
	{
		DAT_IA_HANDLE back;

		ASSERT_OK(dats_get_ia_handle(mapped, &back));
		ASSERT_PTR_EQ(back, (DAT_IA_HANDLE)1);
	}
	ASSERT_DAT_EQ(dats_get_ia_handle((DAT_IA_HANDLE)3, &mapped),
		      DAT_CLASS_ERROR | DAT_INVALID_HANDLE | DAT_INVALID_HANDLE_IA);
	ASSERT_DAT_EQ(dats_get_ia_handle(DAT_HANDLE_NULL, &mapped),
		      DAT_CLASS_ERROR | DAT_INVALID_HANDLE | DAT_INVALID_HANDLE_IA);

	ASSERT_OK(dat_ia_query(ia, NULL, DAT_IA_ALL, &attr, 0, NULL));
	ASSERT_STR_EQ(attr.adapter_name, "fake");
	ASSERT_OK(dat_pz_create(ia2, &pz));
	ASSERT_OK(dat_pz_query(pz, DAT_PZ_FIELD_ALL, &pz_param));
	ASSERT_PTR_EQ(pz_param.ia_handle, (DAT_IA_HANDLE)1);

	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	ASSERT_DAT_EQ(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG),
		      DAT_CLASS_ERROR | DAT_INVALID_HANDLE | DAT_INVALID_HANDLE_IA);
	log = fake_log();
	ASSERT_EQ(count(log, "fini"), 0);	/* ia2 still holds it */
	free(log);
	ASSERT_OK(dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG));

	log = fake_log();
	ASSERT_STR_EQ(log, "init fake params=params here\nopen fake\nopen fake\n"
			   "close fake\nclose fake\nfini fake\n");
	free(log);

	/* The next open loads it again: handle 1 is free for reuse. */
	ASSERT_OK(open_ia("fake", &ia));
	ASSERT_PTR_EQ(ia, (DAT_IA_HANDLE)1);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	log = fake_log();
	ASSERT_EQ(count(log, "init fake"), 2);
	ASSERT_EQ(count(log, "fini fake"), 2);
	free(log);
	return 0;
}

/* Each near miss gets the DAT_PROVIDER_NOT_FOUND subtype that says what. */
TEST_IMPL(registry_not_found_subtypes)
{
	DAT_IA_HANDLE ia;
	char *out;

	capture_debug("1");
	conf("fake u2.0 nonthreadsafe default %s dapl.2.0 \"\" \"\"\n"
	     "quiet u2.0 nonthreadsafe nondefault %s dapl.2.0 \"\" \"\"\n"
	     "kern k2.0 nonthreadsafe default %s dapl.2.0 \"\" \"\"\n",
	     fake_lib("good"), fake_lib("good"), fake_lib("good"));

	ASSERT_DAT_EQ(open_ia("nosuch", &ia), NOT_FOUND(DAT_NAME_NOT_REGISTERED));
	ASSERT_DAT_EQ(openv("fake", &ia, 3, 0, DAT_FALSE),
		      NOT_FOUND(DAT_MAJOR_NOT_FOUND));
	ASSERT_DAT_EQ(openv("fake", &ia, 2, 1, DAT_FALSE),
		      NOT_FOUND(DAT_MINOR_NOT_FOUND));
	ASSERT_DAT_EQ(openv("fake", &ia, 2, 0, DAT_TRUE),
		      NOT_FOUND(DAT_THREAD_SAFETY_NOT_FOUND));
	ASSERT_DAT_EQ(open_ia("quiet", &ia), NOT_FOUND(DAT_NAME_NOT_REGISTERED));
	ASSERT_DAT_EQ(open_ia("kern", &ia), NOT_FOUND(DAT_NAME_NOT_REGISTERED));

	out = debug_output();
	ASSERT_STR_CONTAINS(out, "IA nosuch (u2.0 nonthreadsafe) not found: ");
	ASSERT_STR_CONTAINS(out, "has no line for it");
	ASSERT_STR_CONTAINS(out, "dat.conf:1 has u2.0 nonthreadsafe default, but the API major version differs");
	ASSERT_STR_CONTAINS(out, "but the API minor version differs");
	ASSERT_STR_CONTAINS(out, "but the thread safety differs");
	ASSERT_STR_CONTAINS(out, "dat.conf:2 has u2.0 nonthreadsafe nondefault, but it is marked nondefault");
	ASSERT_STR_CONTAINS(out, "dat.conf:3 has k2.0 nonthreadsafe default, but it is a kDAPL (k) entry");
	free(out);

	/* Bad arguments, as OFED checks them. */
	ASSERT_DAT_EQ(open_ia(NULL, &ia),
		      DAT_CLASS_ERROR | DAT_INVALID_PARAMETER | DAT_INVALID_ARG1);
	ASSERT_DAT_EQ(open_ia("fake", NULL),
		      DAT_CLASS_ERROR | DAT_INVALID_HANDLE | DAT_INVALID_HANDLE_IA);
	{
		char name[300];

		memset(name, 'a', sizeof(name) - 1);
		name[sizeof(name) - 1] = '\0';
		ASSERT_DAT_EQ(dat_ia_open(name, 8, NULL, &ia),
			      DAT_CLASS_ERROR | DAT_INVALID_PARAMETER | DAT_INVALID_ARG1);
	}
	return 0;
}

/* Libraries that are missing or are not providers: one clear line each. */
TEST_IMPL(registry_bad_libraries)
{
	DAT_IA_HANDLE ia;
	char *out, *log;

	capture_debug("1");
	conf("missing u2.0 nonthreadsafe default /nonexistent/libnothing.so dapl.2.0 \"\" \"\"\n"
	     "noinit u2.0 nonthreadsafe default %s dapl.2.0 \"\" \"\"\n"
	     "noreg u2.0 nonthreadsafe default %s dapl.2.0 \"\" \"\"\n"
	     "notalib u2.0 nonthreadsafe default %s dapl.2.0 \"\" \"\"\n",
	     fake_lib("noinit"), fake_lib("noregister"), test_path("dat.conf"));

	ASSERT_DAT_EQ(open_ia("missing", &ia), NOT_FOUND(DAT_NAME_NOT_REGISTERED));
	ASSERT_DAT_EQ(open_ia("noinit", &ia), NOT_FOUND(DAT_NAME_NOT_REGISTERED));
	ASSERT_DAT_EQ(open_ia("noreg", &ia), NOT_FOUND(DAT_NAME_NOT_REGISTERED));
	ASSERT_DAT_EQ(open_ia("notalib", &ia), NOT_FOUND(DAT_NAME_NOT_REGISTERED));
	/* A second try fails the same way (nothing was left half loaded). */
	ASSERT_DAT_EQ(open_ia("noreg", &ia), NOT_FOUND(DAT_NAME_NOT_REGISTERED));

	out = debug_output();
	ASSERT_STR_CONTAINS(out, "dat.conf:1: IA missing: cannot load /nonexistent/libnothing.so: ");
	ASSERT_STR_CONTAINS(out, "No such file or directory");
	ASSERT_STR_CONTAINS(out, "dat.conf:2: IA noinit: ");
	ASSERT_STR_CONTAINS(out, "has no dat_provider_init: it is not a DAT provider");
	ASSERT_STR_CONTAINS(out, "dat.conf:3: IA noreg: ");
	ASSERT_STR_CONTAINS(out, "did not register it");
	ASSERT_STR_CONTAINS(out, "dat.conf:4: IA notalib: cannot load");
	ASSERT_STR_CONTAINS(out, "but its library did not load or did not register");
	free(out);

	/* The provider that did not register was finalised and unloaded. */
	log = fake_log();
	ASSERT_EQ(count(log, "init noreg"), 2);
	ASSERT_EQ(count(log, "fini noreg"), 2);
	free(log);
	return 0;
}

/* A later line with the same key is a fallback library, tried in order. */
TEST_IMPL(registry_fallback_library)
{
	DAT_IA_HANDLE ia;
	char *log;

	conf("dup u2.0 nonthreadsafe default /nonexistent/first.so dapl.2.0 \"one\" \"\"\n"
	     "dup u2.0 nonthreadsafe default %s dapl.2.0 \"two\" \"\"\n"
	     "dup u2.0 nonthreadsafe default %s dapl.2.0 \"three\" \"\"\n",
	     fake_lib("good"), fake_lib("nofini"));
	ASSERT_OK(open_ia("dup", &ia));
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	log = fake_log();
	ASSERT_STR_EQ(log, "init dup params=two\nopen dup\nclose dup\nfini dup\n");
	free(log);
	return 0;
}

/* DAT_OVERRIDE naming an unreadable file leaves the registry empty. */
TEST_IMPL(registry_override_unreadable)
{
	DAT_PROVIDER_INFO info, *list[1] = { &info };
	DAT_IA_HANDLE ia;
	DAT_COUNT n = -1;
	char *out;

	capture_debug("1");
	test_setenv("DAT_OVERRIDE", test_path("no-such-dat.conf"));
	ASSERT_OK(dat_registry_list_providers(1, &n, list));
	ASSERT_EQ(n, 0);
	ASSERT_DAT_EQ(open_ia("anything", &ia), NOT_FOUND(DAT_NAME_NOT_REGISTERED));
	out = debug_output();
	ASSERT_STR_CONTAINS(out, "no-such-dat.conf cannot be read (No such file or directory)");
	free(out);
	return 0;
}

/* Bad lines go to the debug output with file:line, good ones still work. */
TEST_IMPL(registry_bad_lines_reported)
{
	DAT_IA_HANDLE ia;
	char *out;

	capture_debug("1");
	conf("# softdapl test\n"
	     "broken u2.0 nonthreadsafe default\n"
	     "fake u2.0 nonthreadsafe default %s dapl.2.0 \"\" \"\"\n"
	     "worse u2.0 sometimes default l dapl.2.0 \"\" \"\"\n",
	     fake_lib("good"));
	ASSERT_OK(open_ia("fake", &ia));
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	out = debug_output();
	ASSERT_STR_CONTAINS(out, "dat.conf:2: 4 of 8 fields, lib_path is missing");
	ASSERT_STR_CONTAINS(out, "dat.conf:4: field 3 (threadsafety) is \"sometimes\"");
	ASSERT_EQ(count(out, "dat.conf:"), 2);
	free(out);
	return 0;
}

/* A failed ia_open undoes the load: fini runs, the next open starts over. */
TEST_IMPL(registry_open_failure_unloads)
{
	DAT_IA_HANDLE ia;
	char *log;

	conf("fails u2.0 nonthreadsafe default %s dapl.2.0 \"\" \"\"\n",
	     fake_lib("openfail"));
	ASSERT_DAT_EQ(open_ia("fails", &ia),
		      DAT_CLASS_ERROR | DAT_INSUFFICIENT_RESOURCES | DAT_RESOURCE_MEMORY);
	ASSERT_DAT_EQ(open_ia("fails", &ia),
		      DAT_CLASS_ERROR | DAT_INSUFFICIENT_RESOURCES | DAT_RESOURCE_MEMORY);
	log = fake_log();
	ASSERT_STR_EQ(log, "init fails params=\nopen fails\nfini fails\n"
			   "init fails params=\nopen fails\nfini fails\n");
	free(log);
	return 0;
}

/*
 * A provider that reports another API version at close: OFED's registry
 * fails the close and never calls fini; ours closes by the key the IA was
 * opened under and says what is wrong.
 */
TEST_IMPL(registry_close_version_mismatch)
{
	DAT_IA_HANDLE ia;
	char *out, *log;

	capture_debug("1");
	conf("odd u2.0 nonthreadsafe default %s dapl.2.0 \"\" \"\"\n",
	     fake_lib("badversion"));
	ASSERT_OK(open_ia("odd", &ia));
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	log = fake_log();
	ASSERT_STR_CONTAINS(log, "fini odd");
	free(log);
	out = debug_output();
	ASSERT_STR_CONTAINS(out, "IA odd was opened as u2.0 nonthreadsafe but its provider reports u1.2 nonthreadsafe");
	free(out);
	return 0;
}

/* Registration rules of the dynamic registry. */
TEST_IMPL(registry_add_remove_provider)
{
	static DAT_PROVIDER provider;
	DAT_PROVIDER_INFO info;

	memset(&info, 0, sizeof(info));
	strcpy(info.ia_name, "manual");
	info.dapl_version_major = 2;
	test_setenv("DAT_OVERRIDE", test_path("none"));

	ASSERT_DAT_EQ(dat_registry_add_provider(NULL, &info),
		      DAT_CLASS_ERROR | DAT_INVALID_PARAMETER | DAT_INVALID_ARG1);
	ASSERT_DAT_EQ(dat_registry_add_provider(&provider, NULL),
		      DAT_CLASS_ERROR | DAT_INVALID_PARAMETER | DAT_INVALID_ARG2);
	ASSERT_OK(dat_registry_add_provider(&provider, &info));
	ASSERT_DAT_EQ(dat_registry_add_provider(&provider, &info),
		      DAT_CLASS_ERROR | DAT_PROVIDER_ALREADY_REGISTERED);
	info.is_thread_safe = DAT_TRUE;	/* another key */
	ASSERT_OK(dat_registry_add_provider(&provider, &info));
	ASSERT_OK(dat_registry_remove_provider(&provider, &info));
	ASSERT_DAT_EQ(dat_registry_remove_provider(&provider, &info),
		      NOT_FOUND(DAT_NAME_NOT_REGISTERED));
	info.is_thread_safe = DAT_FALSE;
	ASSERT_OK(dat_registry_remove_provider(&provider, &info));
	return 0;
}

/* More IAs than one step of the handle table: distinct small handles. */
TEST_IMPL(registry_many_ias)
{
	DAT_IA_HANDLE ia[150];
	int i;

	conf("fake u2.0 nonthreadsafe default %s dapl.2.0 \"\" \"\"\n",
	     fake_lib("good"));
	for (i = 0; i < 150; i++) {
		ASSERT_OK(open_ia("fake", &ia[i]));
		ASSERT_PTR_EQ(ia[i], (DAT_IA_HANDLE)(uintptr_t)(i + 1));
	}
	for (i = 0; i < 150; i += 2)
		ASSERT_OK(dat_ia_close(ia[i], DAT_CLOSE_ABRUPT_FLAG));
	for (i = 0; i < 150; i += 2) {
		ASSERT_OK(open_ia("fake", &ia[i]));
		ASSERT_PTR_EQ(ia[i], (DAT_IA_HANDLE)(uintptr_t)(i + 1));
	}
	for (i = 0; i < 150; i++)
		ASSERT_OK(dat_ia_close(ia[i], DAT_CLOSE_ABRUPT_FLAG));
	return 0;
}

#define NTHREADS 8
#define ROUNDS 50

static pthread_barrier_t start_line;

static void *open_close_thread(void *arg)
{
	DAT_PROVIDER_INFO info, *list[1] = { &info };
	DAT_COUNT n;
	int i;

	(void)arg;
	pthread_barrier_wait(&start_line);
	for (i = 0; i < ROUNDS; i++) {
		DAT_IA_HANDLE ia;

		ASSERT_OK(open_ia("fake", &ia));
		ASSERT_OK(dat_registry_list_providers(1, &n, list));
		ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	}
	return NULL;
}

/*
 * Threads race to make the first DAT call of the process, then open and
 * close IAs of one provider at once: dat.conf is read once, every open and
 * close succeeds, and init/fini pair up.
 */
TEST_IMPL(registry_concurrent_first_use)
{
	pthread_t t[NTHREADS];
	char *log;
	int i;

	conf("fake u2.0 nonthreadsafe default %s dapl.2.0 \"\" \"\"\n",
	     fake_lib("good"));
	pthread_barrier_init(&start_line, NULL, NTHREADS);
	for (i = 0; i < NTHREADS; i++)
		ASSERT_OK(pthread_create(&t[i], NULL, open_close_thread, NULL));
	for (i = 0; i < NTHREADS; i++)
		ASSERT_OK(pthread_join(t[i], NULL));
	pthread_barrier_destroy(&start_line);

	log = fake_log();
	ASSERT_EQ(count(log, "open fake"), NTHREADS * ROUNDS);
	ASSERT_EQ(count(log, "close fake"), NTHREADS * ROUNDS);
	ASSERT_GE(count(log, "init fake"), 1);
	ASSERT_EQ(count(log, "init fake"), count(log, "fini fake"));
	free(log);
	return 0;
}
