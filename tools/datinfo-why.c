/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * datinfo --why NAME: why a consumer's dat_ia_open(NAME) returns
 * DAT_PROVIDER_NOT_FOUND (or another error), and what to do about it.
 *
 * It assumes the consumer runs with datinfo's environment (DAT_OVERRIDE,
 * LD_LIBRARY_PATH) and calls dat_ia_open, which asks for API 2.0 and
 * nonthreadsafe (DAT_THREADSAFE is DAT_FALSE in udat_config.h).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "datinfo.h"

/*
 * Edit distance between @a and @b, letters compared without case, an
 * adjacent transposition counting as one edit (optimal string alignment).
 */
static unsigned distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	unsigned d[DAT_NAME_MAX_LENGTH + 1][DAT_NAME_MAX_LENGTH + 1];

	if (la > DAT_NAME_MAX_LENGTH || lb > DAT_NAME_MAX_LENGTH)
		return ~0u;
	for (i = 0; i <= la; i++)
		d[i][0] = (unsigned)i;
	for (j = 0; j <= lb; j++)
		d[0][j] = (unsigned)j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			unsigned cost = tolower((unsigned char)a[i - 1]) !=
					tolower((unsigned char)b[j - 1]);
			unsigned v = d[i - 1][j] + 1;

			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < v)
				v = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 &&
			    tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == tolower((unsigned char)b[j - 1]) &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return d[la][lb];
}

/*
 * Prints the names of @c closest to @name (case differences, typos): up to
 * three, closest first. Returns the closest line, or NULL.
 */
static const struct di_line *near_misses(const struct di_conf *c,
					 const char *name)
{
	const struct di_line *best[3] = { NULL, NULL, NULL };
	unsigned bestd[3] = { ~0u, ~0u, ~0u };
	size_t len = strlen(name), i, k;
	unsigned limit = len >= 9 ? 3 : len >= 5 ? 2 : 1;

	for (i = 0; i < c->count; i++) {
		const struct di_line *l = &c->lines[i];
		unsigned d = distance(name, l->name);
		bool seen = false;

		if (l->name[0] == '\0' || d > limit)
			continue;
		for (k = 0; k < 3; k++)
			if (best[k] != NULL && strcmp(best[k]->name, l->name) == 0)
				seen = true;
		if (seen)
			continue;
		for (k = 0; k < 3; k++) {
			if (d < bestd[k]) {
				memmove(&best[k + 1], &best[k],
					(2 - k) * sizeof(best[0]));
				memmove(&bestd[k + 1], &bestd[k],
					(2 - k) * sizeof(bestd[0]));
				best[k] = l;
				bestd[k] = d;
				break;
			}
		}
	}
	for (k = 0; k < 3 && best[k] != NULL; k++) {
		printf("  did you mean \"%s\" (line %u, %s)?\n", best[k]->name,
		       best[k]->line,
		       strcasecmp(best[k]->name, name) == 0 ?
		       "differs only in case: names are compared exactly" :
		       bestd[k] == 1 ? "1 edit away" : "a few edits away");
	}
	return best[0];
}

/* The advice for the line that came closest, @l (NULL: no line). */
static void advise(const struct di_conf *c, const struct di_line *l,
		   const struct di_line *near, const char *name)
{
	printf("what to do:\n  ");
	if (l == NULL && near != NULL) {
		printf("pass \"%s\", the name in %s (dapltest -D %s, dtest -P %s), or add a line for \"%s\"\n",
		       near->name, c->path, near->name, near->name, name);
		return;
	}
	if (l == NULL) {
		printf("add a line for it to %s, such as:\n    %s u2.0 nonthreadsafe default libdaplsoft.so.2 softdapl.2.0 \"lo\" \"\"\n",
		       c->path, name);
		return;
	}
	switch (l->step) {
	case DI_STEP_PARSE:
		printf("fix line %u as the message says, then check it with datinfo -f %s\n",
		       l->line, c->path);
		break;
	case DI_STEP_KIND:
		printf("write u2.0 in field 2 of line %u: k lines are for kernel consumers\n",
		       l->line);
		break;
	case DI_STEP_DEFAULT:
		printf("write default in field 4 of line %u\n", l->line);
		break;
	case DI_STEP_VERSION:
		printf("write u2.0 in field 2 of line %u (a u1.2 line is for DAT 1.2's libdat.so.1, not this registry)\n",
		       l->line);
		break;
	case DI_STEP_DUP:
		printf("line %u repeats line %u: fix line %u first\n", l->line,
		       l->first, l->first);
		break;
	case DI_STEP_FIND:
		printf("write lib_path (field 5 of line %u) as an absolute path, or add the library's directory to LD_LIBRARY_PATH in the consumer's environment, or install the library\n",
		       l->line);
		break;
	case DI_STEP_DLOPEN:
		printf("the library exists but does not load: install what the dlopen error names (ldd %s lists missing dependencies)\n",
		       l->lib_path);
		break;
	case DI_STEP_SYMBOL:
		printf("lib_path (field 5 of line %u) names a library that is not a DAT provider: name the provider's library (softdapl: libdaplsoft.so.2; OFED: libdaplofa.so.2, libdaploscm.so.2...)\n",
		       l->line);
		break;
	case DI_STEP_OPEN:
		printf("the provider refuses to open the IA: check ia_params (field 7 of line %u, \"%s\") for this machine; DAT_DBG_TYPE=0x5 and, for softdapl, SOFTDAPL_DEBUG=1 say more\n",
		       l->line, l->conf.ia_params);
		if (strstr(l->lib_path, "libdaplsoft") == NULL)
			printf("  a hardware provider (OFED's libdaplofa, libdaploscm, libdaploucm) also needs an RDMA device: ibv_devinfo lists them; without one, use softdapl (dat.conf.example)\n");
		break;
	case DI_STEP_DONE:
		if (l->conf.thread_safe)
			printf("write nonthreadsafe in field 3 of line %u (dat_ia_open asks for nonthreadsafe), or have the consumer call dat_ia_openv(..., DAT_TRUE)\n",
			       l->line);
		else
			printf("it opens here: a consumer that still fails runs with another environment (DAT_OVERRIDE, LD_LIBRARY_PATH), another libdat2 than %s, or asks dat_ia_openv for another version\n",
			       di_registry_path());
		break;
	}
}

int di_why(struct di_conf *c, const char *name)
{
	const struct di_line *best = NULL, *near = NULL;
	struct di_line probe;
	char ret[256];
	bool named = false;
	size_t i;
	int status;

	printf("why dat_ia_open(\"%s\") fails, or not (it asks for u2.0 nonthreadsafe):\n",
	       name);
	printf("dat.conf: %s (%s)\n", c->path, c->source);
	if (di_conf_load(c) != 0) {
		printf("  %s: %s\n", c->path, c->error);
		if (getenv("DAT_OVERRIDE") != NULL)
			printf("  the registry then registers no provider from a file: it does not fall back to the system dat.conf\n");
	} else {
		di_check_lines(c, name);
		for (i = 0; i < c->count; i++) {
			const struct di_line *l = &c->lines[i];

			if (strcmp(l->name, name) != 0)
				continue;
			named = true;
			printf("  %s:%u: %s %s\n", c->path, l->line,
			       di_verdict_name(l->verdict), l->why);
			if (l->note[0])
				printf("    note: %s\n", l->note);
			/* The closest line is the one that got furthest. */
			if (best == NULL || (l->step != DI_STEP_DUP &&
					     (best->step == DI_STEP_DUP ||
					      l->step > best->step)))
				best = l;
		}
		if (!named) {
			printf("  %s has no line for \"%s\" (%zu line%s checked)\n",
			       c->path, name, c->count, c->count == 1 ? "" : "s");
			near = near_misses(c, name);
		}
	}

	memset(&probe, 0, sizeof(probe));
	probe.open_ret = di_open_query(name, DAT_VERSION_MAJOR,
				       DAT_VERSION_MINOR, DAT_THREADSAFE, &probe);
	printf("dat_ia_open(\"%s\") returns %s\n", name,
	       di_ret_str(probe.open_ret, ret, sizeof(ret)));
	if (probe.reg_log != NULL) {
		printf("  the registry and the provider say:\n");
		di_print_log(probe.reg_log, "    ");
	}
	if (probe.open_ret == DAT_SUCCESS && probe.attrs != NULL)
		di_print_log(di_opts.verbose ? probe.attrs_all : probe.attrs, "    ");

	if (c->error[0] != '\0') {
		printf("what to do:\n  ");
		if (getenv("DAT_OVERRIDE") != NULL)
			printf("point DAT_OVERRIDE at a readable dat.conf (dat.conf.example shows the format), or unset it to use the system one\n");
		else
			printf("create %s, or set DAT_OVERRIDE=/path/to/dat.conf\n",
			       c->path);
		status = probe.open_ret == DAT_SUCCESS ? DI_EXIT_OK : DI_EXIT_NOCONF;
	} else {
		if (probe.open_ret != DAT_SUCCESS)
			advise(c, best, near, name);
		status = probe.open_ret == DAT_SUCCESS ? DI_EXIT_OK :
			 DI_EXIT_UNUSABLE;
	}
	di_line_free(&probe);
	return status;
}
