/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzzes the dat.conf parser (registry/conf.c): the input is the whole
 * file, given to dreg_conf_parse exactly as the registry gives it the
 * bytes it read (sr.c). Besides not crashing, leaking or reading outside
 * the buffer, the parser must keep its word (conf.h): every entry it
 * returns is well formed, comes from a line of the input, in order, and
 * every diagnostic names a line of the input and says something.
 */
#include <string.h>

#include "../../registry/conf.h"
#include "fuzz.h"

struct diag_state {
	unsigned	lines;		/* lines in the input */
	unsigned	last;		/* line of the last diagnostic */
	unsigned	count;
};

static void diag(void *arg, unsigned line, const char *msg)
{
	struct diag_state *d = arg;

	FUZZ_CHECK(line >= 1 && line <= d->lines);
	FUZZ_CHECK(line > d->last);	/* one per bad line, in order */
	FUZZ_CHECK(msg != NULL && msg[0] != '\0' && strlen(msg) < 512);
	d->last = line;
	d->count++;
}

/* Whether @s is "ID.MAJOR.MINOR"-ish: a non-empty id before a dot. */
static int has_id_dot(const char *s)
{
	const char *dot = strchr(s, '.');

	return dot != NULL && dot != s;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dreg_conf_entry *e = NULL;
	struct diag_state d = { 0, 0, 0 };
	unsigned prev = 0;
	size_t n = 0, i;
	char *copy;

	/* Lines as the parser counts them: a last line needs no newline. */
	for (i = 0; i < size; i++)
		if (data[i] == '\n')
			d.lines++;
	if (size > 0 && data[size - 1] != '\n')
		d.lines++;

	/* An exact-size heap copy: ASan sees any read past the end. */
	copy = malloc(size ? size : 1);
	FUZZ_CHECK(copy != NULL);
	if (size > 0)
		memcpy(copy, data, size);

	if (dreg_conf_parse(copy, size, &e, &n, diag, &d) != 0) {
		/* Only -ENOMEM may fail, and then nothing is returned. */
		FUZZ_CHECK(e == NULL && n == 0);
		free(copy);
		return 0;
	}
	FUZZ_CHECK(n == 0 || e != NULL);
	FUZZ_CHECK(n + d.count <= d.lines);
	for (i = 0; i < n; i++) {
		FUZZ_CHECK(e[i].line > prev && e[i].line <= d.lines);
		prev = e[i].line;
		FUZZ_CHECK(e[i].ia_name[0] != '\0');
		FUZZ_CHECK(strlen(e[i].ia_name) < DAT_NAME_MAX_LENGTH);
		FUZZ_CHECK(e[i].api_kind == 'u' || e[i].api_kind == 'k');
		FUZZ_CHECK(e[i].thread_safe == DAT_TRUE ||
			   e[i].thread_safe == DAT_FALSE);
		FUZZ_CHECK(e[i].is_default == DAT_TRUE ||
			   e[i].is_default == DAT_FALSE);
		FUZZ_CHECK(e[i].lib_path[0] != '\0');
		FUZZ_CHECK(has_id_dot(e[i].provider_ver));
		/* A field never spans lines. */
		FUZZ_CHECK(strchr(e[i].ia_params, '\n') == NULL);
		FUZZ_CHECK(strchr(e[i].platform_params, '\n') == NULL);
	}
	dreg_conf_free(e, n);
	free(copy);
	return 0;
}
