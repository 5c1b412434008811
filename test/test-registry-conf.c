/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The dat.conf parser against a table of malformed and tricky inputs, each
 * with its exact outcome: how many entries it yields, the diagnostic (line
 * and text) of the first bad line if any, and for some the parsed fields.
 * The registry-level outcomes (which entries are used, and what dat_ia_open
 * returns) are in test-registry.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../registry/conf.h"
#include "test.h"

#define GOOD	"u2.0 nonthreadsafe default libx.so dapl.2.0 \"p\" \"\""

struct conf_case {
	const char	*what;
	const char	*input;		/* NULL: built by the case's index */
	size_t		len;		/* 0: strlen(input) */
	size_t		entries;	/* entries expected */
	unsigned	diag_line;	/* line of the first diagnostic, 0: none */
	const char	*diag;		/* text the first diagnostic contains */
	const char	*name;		/* first entry's ia_name, if checked */
	const char	*ia_params;	/* first entry's ia_params, if checked */
	const char	*platform;	/* first entry's platform_params, if checked */
};

static const struct conf_case cases[] = {
	{ "empty file", "", 0, 0, 0, NULL, NULL, NULL, NULL },
	{ "comments and blank lines", "# a comment\n\n   \n\t# indented\n",
	  0, 0, 0, NULL, NULL, NULL, NULL },
	{ "one good line", "soft u2.0 nonthreadsafe default libx.so dapl.2.0 \"lo\" \"\"\n",
	  0, 1, 0, NULL, "soft", "lo", "" },
	{ "quoted field with blanks", "a " GOOD "\nb u2.0 nonthreadsafe default l dapl.2.0 \"lo 0\" \"x y\"\n",
	  0, 2, 0, NULL, "a", "p", "" },
	{ "escapes in quotes", "e u2.0 nonthreadsafe default l dapl.2.0 \"a \\\"b\\\" c\\\\d\" \"\"\n",
	  0, 1, 0, NULL, "e", "a \"b\" c\\d", "" },
	{ "seven fields", "a u2.0 nonthreadsafe default libx.so dapl.2.0 \"p\"\n",
	  0, 0, 1, "7 of 8 fields, platform_params is missing", NULL, NULL, NULL },
	{ "name only", "lonely\n", 0, 0, 1,
	  "1 of 8 fields, api_ver is missing", NULL, NULL, NULL },
	{ "nine fields", "a " GOOD " extra\n", 0, 0, 1,
	  "unexpected text \"extra\" after the 8th field", NULL, NULL, NULL },
	{ "api without u/k", "a 2.0 nonthreadsafe default l dapl.2.0 p q\n", 0, 0, 1,
	  "field 2 (api_ver) is \"2.0\": expected u or k", NULL, NULL, NULL },
	{ "api without minor", "a u2 nonthreadsafe default l dapl.2.0 p q\n", 0, 0, 1,
	  "field 2 (api_ver) is \"u2\"", NULL, NULL, NULL },
	{ "api minor not a number", "a u2.x nonthreadsafe default l dapl.2.0 p q\n", 0, 0, 1,
	  "field 2 (api_ver) is \"u2.x\"", NULL, NULL, NULL },
	{ "api kind unknown", "a x2.0 nonthreadsafe default l dapl.2.0 p q\n", 0, 0, 1,
	  "field 2 (api_ver) is \"x2.0\"", NULL, NULL, NULL },
	{ "api major overflows 32 bits", "a u4294967296.0 nonthreadsafe default l dapl.2.0 p q\n",
	  0, 0, 1, "field 2 (api_ver) is \"u4294967296.0\"", NULL, NULL, NULL },
	{ "kernel entry parses", "k k2.0 nonthreadsafe default l dapl.2.0 p q\n",
	  0, 1, 0, NULL, "k", "p", "q" },
	{ "threadsafety misspelt", "a u2.0 threadsafely default l dapl.2.0 p q\n", 0, 0, 1,
	  "field 3 (threadsafety) is \"threadsafely\": expected threadsafe or nonthreadsafe",
	  NULL, NULL, NULL },
	{ "threadsafety case", "a u2.0 NonThreadSafe default l dapl.2.0 p q\n", 0, 0, 1,
	  "field 3 (threadsafety)", NULL, NULL, NULL },
	{ "default misspelt", "a u2.0 nonthreadsafe defaults l dapl.2.0 p q\n", 0, 0, 1,
	  "field 4 (default) is \"defaults\": expected default or nondefault",
	  NULL, NULL, NULL },
	{ "nondefault parses", "n u2.0 nonthreadsafe nondefault l dapl.2.0 p q\n",
	  0, 1, 0, NULL, "n", "p", "q" },
	{ "provider_ver without dots", "a u2.0 nonthreadsafe default l dapl p q\n", 0, 0, 1,
	  "field 6 (provider_ver) is \"dapl\": expected ID.MAJOR.MINOR", NULL, NULL, NULL },
	{ "provider_ver empty id", "a u2.0 nonthreadsafe default l .2.0 p q\n", 0, 0, 1,
	  "field 6 (provider_ver) is \".2.0\"", NULL, NULL, NULL },
	{ "provider_ver without minor", "a u2.0 nonthreadsafe default l dapl.2 p q\n", 0, 0, 1,
	  "field 6 (provider_ver) is \"dapl.2\"", NULL, NULL, NULL },
	{ "provider_ver with a 4th part", "a u2.0 nonthreadsafe default l dapl.2.0.1 p q\n", 0, 0, 1,
	  "field 6 (provider_ver) is \"dapl.2.0.1\"", NULL, NULL, NULL },
	{ "unterminated quote", "a u2.0 nonthreadsafe default l dapl.2.0 \"lo 0\n", 0, 0, 1,
	  "unterminated quoted string in field 7 (ia_params), opened at column 41",
	  NULL, NULL, NULL },
	{ "unterminated quote hides nothing", "a u2.0 nonthreadsafe default l dapl.2.0 \"lo\n"
	  "b " GOOD "\n", 0, 1, 1, "unterminated quoted string", "b", "p", "" },
	{ "CRLF line ends", "a " GOOD "\r\nb " GOOD "\r\n", 0, 2, 0, NULL, "a", "p", "" },
	{ "NUL byte", "a u2.0 non\0threadsafe default l dapl.2.0 p q\nb " GOOD "\n",
	  sizeof("a u2.0 non\0threadsafe default l dapl.2.0 p q\nb " GOOD "\n") - 1,
	  1, 1, "NUL byte at column 11", "b", "p", "" },
	{ "line longer than 64 KiB", NULL, 0, 1, 1,
	  "line is 70000 bytes long: expected at most 65536", "after", "p", "" },
	{ "ia_name of 256 bytes", NULL, 0, 1, 1,
	  "field 1 (ia_name) is 256 bytes long: expected at most 255", NULL, "p", "" },
	{ "duplicate names both parse", "d " GOOD "\nd u2.0 nonthreadsafe default liby.so dapl.2.0 \"q\" \"\"\n",
	  0, 2, 0, NULL, "d", "p", "" },
	{ "comment after the fields", "a " GOOD " # the soft one\n", 0, 1, 0, NULL, "a", "p", "" },
	{ "hash inside a field", "na#me " GOOD "\n", 0, 1, 0, NULL, "na#me", "p", "" },
	{ "tabs between fields", "t\tu2.0\tnonthreadsafe\tdefault\tl\tdapl.2.0\t\"p\"\t\"\"\n",
	  0, 1, 0, NULL, "t", "p", "" },
	{ "no newline at the end", "a " GOOD, 0, 1, 0, NULL, "a", "p", "" },
	{ "quote glued to the next field", "a u2.0 nonthreadsafe default l dapl.2.0 \"x\"y \"\"\n",
	  0, 0, 1, "unexpected text \"\" after the 8th field", NULL, NULL, NULL },
	{ "leading blanks", "   \ta " GOOD "\n", 0, 1, 0, NULL, "a", "p", "" },
	{ "empty quoted name", "\"\" " GOOD "\n", 0, 0, 1,
	  "field 1 (ia_name) is \"\"", NULL, NULL, NULL },
	{ "bad line between good ones", "a " GOOD "\nb u3 nonthreadsafe default l dapl.2.0 p q\nc " GOOD "\n", 0, 2, 2,
	  "field 2 (api_ver) is \"u3\"", "a", "p", "" },
	{ "unquoted params", "a u2.0 nonthreadsafe default l dapl.2.0 lo -\n", 0, 1, 0, NULL,
	  "a", "lo", "-" },
	{ "control bytes are shown escaped", "a u2.0 nonthreadsafe \x01oops l dapl.2.0 p q\n", 0, 0, 1,
	  "field 4 (default) is \"\\x01oops\"", NULL, NULL, NULL },
	{ "OFED's shipped line", "ofa-v2-ib0 u2.0 nonthreadsafe default libdaplofa.so.2 dapl.2.0 \"ib0 0\" \"\"\n",
	  0, 1, 0, NULL, "ofa-v2-ib0", "ib0 0", "" },
};

struct diag_log {
	unsigned	count;
	unsigned	first_line;
	char		first[600];
};

static void record(void *arg, unsigned line, const char *msg)
{
	struct diag_log *log = arg;

	if (log->count++ == 0) {
		log->first_line = line;
		snprintf(log->first, sizeof(log->first), "%s", msg);
	}
}

/* Builds the inputs that are too long to spell out in the table. */
static char *build_input(size_t i, size_t *len)
{
	char *buf = malloc(80000);
	size_t n;

	ASSERT_NOT_NULL(buf);
	if (strcmp(cases[i].what, "line longer than 64 KiB") == 0) {
		memset(buf, 'x', 70000);
		n = 70000;
		n += (size_t)sprintf(buf + n, "\nafter " GOOD "\n");
	} else {
		memset(buf, 'n', 256);
		n = 256;
		n += (size_t)sprintf(buf + n, " " GOOD "\n");
		/* and the same name one byte shorter is fine */
		memset(buf + n, 'n', 255);
		n += 255;
		n += (size_t)sprintf(buf + n, " " GOOD "\n");
	}
	*len = n;
	return buf;
}

TEST_IMPL(registry_conf_table)
{
	size_t i, ncases = sizeof(cases) / sizeof(cases[0]);

	ASSERT_GE(ncases, 30);
	for (i = 0; i < ncases; i++) {
		const struct conf_case *c = &cases[i];
		struct dreg_conf_entry *e = NULL;
		struct diag_log log = { 0, 0, "" };
		size_t n = 0, len = c->len;
		char *built = NULL;
		const char *in = c->input;

		if (in == NULL)
			in = built = build_input(i, &len);
		else if (len == 0)
			len = strlen(in);

		fprintf(stderr, "case %zu: %s\n", i, c->what);
		ASSERT_OK(dreg_conf_parse(in, len, &e, &n, record, &log));
		ASSERT_EQ(n, c->entries);
		if (c->diag_line == 0) {
			ASSERT_EQ(log.count, 0);
		} else {
			ASSERT_EQ(log.count, 1);
			ASSERT_EQ(log.first_line, c->diag_line);
			ASSERT_STR_CONTAINS(log.first, c->diag);
		}
		if (c->ia_params != NULL) {
			ASSERT(n >= 1);
			if (c->name != NULL)
				ASSERT_STR_EQ(e[0].ia_name, c->name);
			ASSERT_STR_EQ(e[0].ia_params, c->ia_params);
			ASSERT_STR_EQ(e[0].platform_params, c->platform);
		}
		dreg_conf_free(e, n);
		free(built);
	}
	printf("%zu dat.conf cases\n", ncases);
	return 0;
}

/* The fields of a good line land where they belong, with their line number. */
TEST_IMPL(registry_conf_fields)
{
	static const char in[] =
		"# header\n"
		"\n"
		"soft-lo u2.0 threadsafe nondefault /x/libdaplsoft.so.2 soft.1.7 \"lo\" \"plat\"\n"
		"kern k1.2 nonthreadsafe default libk.so k.0.0 \"\" \"\"\n";
	struct dreg_conf_entry *e;
	size_t n;

	ASSERT_OK(dreg_conf_parse(in, sizeof(in) - 1, &e, &n, NULL, NULL));
	ASSERT_EQ(n, 2);
	ASSERT_STR_EQ(e[0].ia_name, "soft-lo");
	ASSERT_EQ(e[0].api_kind, 'u');
	ASSERT_EQ(e[0].api_major, 2);
	ASSERT_EQ(e[0].api_minor, 0);
	ASSERT_EQ(e[0].thread_safe, DAT_TRUE);
	ASSERT_EQ(e[0].is_default, DAT_FALSE);
	ASSERT_STR_EQ(e[0].lib_path, "/x/libdaplsoft.so.2");
	ASSERT_STR_EQ(e[0].provider_ver, "soft.1.7");
	ASSERT_STR_EQ(e[0].ia_params, "lo");
	ASSERT_STR_EQ(e[0].platform_params, "plat");
	ASSERT_EQ(e[0].line, 3);
	ASSERT_EQ(e[1].api_kind, 'k');
	ASSERT_EQ(e[1].api_major, 1);
	ASSERT_EQ(e[1].api_minor, 2);
	ASSERT_EQ(e[1].thread_safe, DAT_FALSE);
	ASSERT_EQ(e[1].is_default, DAT_TRUE);
	ASSERT_EQ(e[1].line, 4);
	dreg_conf_free(e, n);
	return 0;
}
