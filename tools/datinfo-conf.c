/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * datinfo: which dat.conf applies, what the registry makes of each of its
 * lines, and whether each line's library can be found and is a provider.
 *
 * The file is chosen as registry/sr.c chooses it and parsed by the
 * registry's own parser (registry/conf.o is linked in), so a line datinfo
 * calls malformed is one the registry skips, with the same message. The
 * library checks are in datinfo-lib.c.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "datinfo.h"

#ifndef DREG_SYSCONFDIR
#define DREG_SYSCONFDIR "/etc"
#endif

#define DI_MAX_FILE (16u << 20)	/* as registry/sr.c: larger files are refused */

const char *di_verdict_name(enum di_verdict v)
{
	static const char *const names[] = {
		[DI_OK] = "OK", [DI_BAD] = "BAD", [DI_UNUSABLE] = "UNUSABLE",
		[DI_FALLBACK] = "FALLBACK", [DI_OFF] = "OFF",
	};

	return names[v];
}

/*
 * snprintf into a fixed buffer, where cutting a long path is acceptable (a
 * function, so that -Wformat-truncation leaves these calls alone).
 */
void di_fmt(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

/* Appends to the NUL-terminated @buf of @size bytes; cuts silently. */
void di_append(char *buf, size_t size, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, size - n, fmt, ap);
	va_end(ap);
}

/* Reads @path whole (at most DI_MAX_FILE); NULL with errno set on failure. */
char *di_read_file(const char *path, size_t *len)
{
	struct stat st;
	size_t n = 0, cap = 4096, k;
	char *buf, *nbuf;
	FILE *f;

	f = fopen(path, "re");
	if (f == NULL)
		return NULL;
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		errno = EISDIR;
		return NULL;
	}
	buf = malloc(cap);
	while (buf != NULL && (k = fread(buf + n, 1, cap - n, f)) > 0) {
		n += k;
		if (n < cap)
			continue;
		nbuf = cap > DI_MAX_FILE ? NULL : realloc(buf, cap * 2);
		if (nbuf == NULL) {
			free(buf);
			buf = NULL;
			errno = cap > DI_MAX_FILE ? EFBIG : ENOMEM;
			break;
		}
		buf = nbuf;
		cap *= 2;
	}
	if (buf != NULL && ferror(f)) {
		free(buf);
		buf = NULL;
		errno = EIO;
	}
	fclose(f);
	*len = n;
	return buf;
}

/*
 * Chooses the file as registry/sr.c does: $DAT_OVERRIDE (no fallback when
 * it cannot be read), else SYSCONFDIR/dat.conf, else /etc/dat.conf. Fills
 * @c->path and @c->source; returns the path.
 */
const char *di_conf_path(struct di_conf *c)
{
	const char *env = getenv("DAT_OVERRIDE");
	const char *sys = DREG_SYSCONFDIR "/dat.conf";

	if (env != NULL) {
		di_fmt(c->path, sizeof(c->path), "%s", env);
		di_fmt(c->source, sizeof(c->source),
		       "named by the DAT_OVERRIDE environment variable");
	} else if (strcmp(sys, "/etc/dat.conf") == 0 || access(sys, R_OK) == 0) {
		di_fmt(c->path, sizeof(c->path), "%s", sys);
		di_fmt(c->source, sizeof(c->source),
		       "the default: DAT_OVERRIDE is not set");
	} else {
		di_fmt(c->path, sizeof(c->path), "/etc/dat.conf");
		di_fmt(c->source, sizeof(c->source),
		       "DAT_OVERRIDE is not set and %s cannot be read", sys);
	}
	return c->path;
}

/* The first blank-separated token of line @lineno of @buf, into @out. */
static void first_token(const char *buf, size_t len, unsigned lineno,
			char *out, size_t size)
{
	const char *p = buf, *end = buf + len, *nl;
	size_t n = 0;

	while (--lineno > 0 && p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		p = nl ? nl + 1 : end;
	}
	while (p < end && (*p == ' ' || *p == '\t' || *p == '"'))
		p++;
	while (p < end && n + 1 < size && *p != ' ' && *p != '\t' &&
	       *p != '"' && *p != '\n' && *p != '\r' && *p != '\0')
		out[n++] = *p++;
	out[n] = '\0';
}

struct diag_ctx {
	struct di_conf	*c;
	size_t		cap;
	int		err;
};

static struct di_line *new_line(struct diag_ctx *d)
{
	struct di_conf *c = d->c;

	if (c->count == d->cap) {
		size_t ncap = d->cap ? d->cap * 2 : 16;
		struct di_line *n = realloc(c->lines, ncap * sizeof(*n));

		if (n == NULL) {
			d->err = -ENOMEM;
			return NULL;
		}
		c->lines = n;
		d->cap = ncap;
	}
	memset(&c->lines[c->count], 0, sizeof(c->lines[0]));
	return &c->lines[c->count++];
}

static void on_bad_line(void *arg, unsigned line, const char *msg)
{
	struct diag_ctx *d = arg;
	struct di_line *l = new_line(d);

	if (l == NULL)
		return;
	l->line = line;
	l->bad = true;
	di_fmt(l->msg, sizeof(l->msg), "%s", msg);
}

static int by_line(const void *a, const void *b)
{
	const struct di_line *x = a, *y = b;

	return (x->line > y->line) - (x->line < y->line);
}

/*
 * Reads and parses the file di_conf_path chose. Returns 0, or -1 with
 * @c->error set when it cannot be read.
 */
int di_conf_load(struct di_conf *c)
{
	struct dreg_conf_entry *e = NULL;
	struct diag_ctx d = { c, 0, 0 };
	size_t len = 0, n = 0, i;
	char *buf;

	buf = di_read_file(c->path, &len);
	if (buf == NULL) {
		di_fmt(c->error, sizeof(c->error), "cannot be read: %s",
		       strerror(errno));
		return -1;
	}
	if (dreg_conf_parse(buf, len, &e, &n, on_bad_line, &d) != 0 || d.err) {
		di_fmt(c->error, sizeof(c->error), "out of memory parsing it");
		dreg_conf_free(e, n);
		free(buf);
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct di_line *l = new_line(&d);

		if (l == NULL) {
			size_t k;

			/* The entries not yet moved are freed here. */
			for (k = i; k < n; k++) {
				free(e[k].ia_name);
				free(e[k].lib_path);
				free(e[k].provider_ver);
				free(e[k].ia_params);
				free(e[k].platform_params);
			}
			break;
		}
		l->conf = e[i];
		l->line = e[i].line;
		di_fmt(l->name, sizeof(l->name), "%s", e[i].ia_name);
	}
	free(e);		/* the strings now belong to c->lines */
	if (c->count > 0)
		qsort(c->lines, c->count, sizeof(c->lines[0]), by_line);
	for (i = 0; i < c->count; i++)
		if (c->lines[i].bad)
			first_token(buf, len, c->lines[i].line, c->lines[i].name,
				    sizeof(c->lines[i].name));
	free(buf);
	if (d.err) {
		di_fmt(c->error, sizeof(c->error), "out of memory parsing it");
		return -1;
	}
	return 0;
}

void di_conf_free(struct di_conf *c)
{
	size_t i;

	for (i = 0; i < c->count; i++) {
		struct di_line *l = &c->lines[i];

		if (!l->bad) {
			free(l->conf.ia_name);
			free(l->conf.lib_path);
			free(l->conf.provider_ver);
			free(l->conf.ia_params);
			free(l->conf.platform_params);
		}
		di_line_free(l);
	}
	free(c->lines);
	free(c->reg_log);
	c->lines = NULL;
	c->count = 0;
	c->reg_log = NULL;
}

static bool same_key(const struct di_line *a, const struct di_line *b)
{
	return strcmp(a->conf.ia_name, b->conf.ia_name) == 0 &&
	       a->conf.api_major == b->conf.api_major &&
	       a->conf.api_minor == b->conf.api_minor &&
	       a->conf.thread_safe == b->conf.thread_safe;
}

/* True when the registry registers @l (sr.c's SR_USABLE or SR_FALLBACK). */
static bool registered(const struct di_line *l)
{
	return !l->bad && l->conf.api_kind == 'u' && l->conf.is_default;
}

/* The static verdicts: parse, kind, default, version, duplicates. */
static void classify(struct di_conf *c)
{
	size_t i, j;

	for (i = 0; i < c->count; i++) {
		struct di_line *l = &c->lines[i];

		l->verdict = DI_UNUSABLE;
		if (l->bad) {
			l->verdict = DI_BAD;
			l->step = DI_STEP_PARSE;
			di_fmt(l->why, sizeof(l->why), "malformed, skipped: %s",
			       l->msg);
			continue;
		}
		if (l->conf.api_kind == 'k') {
			l->verdict = DI_OFF;
			l->step = DI_STEP_KIND;
			di_fmt(l->why, sizeof(l->why),
			       "k%u.%u is a kDAPL (kernel) entry: the user-space registry skips it",
			       l->conf.api_major, l->conf.api_minor);
			continue;
		}
		if (!l->conf.is_default) {
			l->verdict = DI_OFF;
			l->step = DI_STEP_DEFAULT;
			di_fmt(l->why, sizeof(l->why),
			       "marked nondefault: the registry skips it (write default to use it)");
			continue;
		}
		if (l->conf.api_major == 1) {
			/*
			 * OFED's compat-dapl read u1.x lines with a DAT 1.2
			 * registry of its own; softdapl's libdat.so.1 serves
			 * DAT 1.2 programs from the u2.0 lines instead.
			 */
			l->verdict = DI_OFF;
			l->step = DI_STEP_VERSION;
			di_fmt(l->why, sizeof(l->why),
			       "u%u.%u is for OFED's compat-dapl: softdapl's libdat.so.1 serves DAT 1.2 programs from the u2.0 line of the same name (write one)",
			       l->conf.api_major, l->conf.api_minor);
			continue;
		}
		if (l->conf.api_major != DAT_VERSION_MAJOR ||
		    l->conf.api_minor != DAT_VERSION_MINOR) {
			l->step = DI_STEP_VERSION;
			di_fmt(l->why, sizeof(l->why),
			       "api_ver is u%u.%u: DAT 2.0 consumers ask for u2.0, so dat_ia_open never finds it (write u2.0)",
			       l->conf.api_major, l->conf.api_minor);
			continue;
		}
		for (j = 0; j < i; j++) {
			if (registered(&c->lines[j]) &&
			    same_key(&c->lines[j], l)) {
				l->verdict = DI_FALLBACK;
				l->step = DI_STEP_DUP;
				l->first = c->lines[j].line;
				di_fmt(l->why, sizeof(l->why),
				       "repeats IA %s of line %u (same name, version and thread safety): a fallback library, loaded only if line %u's does not load",
				       l->name, l->first, l->first);
				break;
			}
		}
		if (l->step == DI_STEP_DUP)
			continue;
		l->step = DI_STEP_OPEN;
	}
}

/*
 * Opens the IA of key-leading line @i the way a consumer would, with the
 * line's own key, and gives the result to the line the registry used.
 */
static void open_key(struct di_conf *c, size_t i)
{
	struct di_line *first = &c->lines[i], *used = NULL, *l;
	char ret[256];
	size_t j;

	/*
	 * The registry tries this line and its fallbacks in file order, until
	 * a library loads; the fallbacks after that one are not tried, but
	 * their libraries are checked all the same, for the report.
	 */
	for (j = i; j < c->count; j++) {
		l = &c->lines[j];
		if (j != i && !(l->step == DI_STEP_DUP && l->first == first->line))
			continue;
		if (used != NULL) {
			char keep[sizeof(l->why)];

			memcpy(keep, l->why, sizeof(keep));
			di_check_library(l);
			if (l->step != DI_STEP_OPEN)
				di_fmt(l->note, sizeof(l->note), "%s", l->why);
			memcpy(l->why, keep, sizeof(keep));
			l->step = DI_STEP_DUP;
			continue;
		}
		di_check_library(l);
		if (l->step == DI_STEP_OPEN)
			used = l;
		else
			l->verdict = DI_UNUSABLE;
	}
	l = used ? used : first;
	l->opened_here = true;
	l->open_ret = di_open_query(first->conf.ia_name, first->conf.api_major,
				    first->conf.api_minor,
				    first->conf.thread_safe, l);
	if (l->open_ret == DAT_SUCCESS) {
		l->step = DI_STEP_DONE;
		l->verdict = DI_OK;
		di_fmt(l->why, sizeof(l->why), "opens (DAT 2.0, and DAT 1.2 through libdat.so.1); library %s (%s)",
		       l->lib_path[0] ? l->lib_path : l->conf.lib_path,
		       l->lib_how);
		if (l != first)
			di_fmt(l->note, sizeof(l->note),
			       "used instead of line %u, whose library fails",
			       first->line);
		if (l->lib_path[0] == '\0')
			di_fmt(l->note, sizeof(l->note),
			       "the registry loaded %s where datinfo did not find it",
			       l->conf.lib_path);
	} else if (l->step == DI_STEP_OPEN) {
		l->verdict = DI_UNUSABLE;
		di_fmt(l->why, sizeof(l->why),
		       "library %s loads, but the provider does not open the IA (ia_params \"%s\")",
		       l->lib_path, l->conf.ia_params);
	}
	if (l->open_ret == DAT_SUCCESS && (l->query_ret != DAT_SUCCESS ||
					   l->close_ret != DAT_SUCCESS)) {
		bool q = l->query_ret != DAT_SUCCESS;

		l->step = DI_STEP_OPEN;
		l->verdict = DI_UNUSABLE;
		di_fmt(l->why, sizeof(l->why), "opens, but %s returns %s",
		       q ? "dat_ia_query" : "dat_ia_close",
		       di_ret_str(q ? l->query_ret : l->close_ret, ret,
		       sizeof(ret)));
	}
	if (first->conf.thread_safe && l->open_ret == DAT_SUCCESS)
		di_fmt(l->note, sizeof(l->note),
		       "threadsafe: only dat_ia_openv(..., DAT_TRUE) finds it; dat_ia_open asks for nonthreadsafe (DAT_THREADSAFE is DAT_FALSE)");
	if (l != first && l->open_ret != DAT_SUCCESS)
		l->verdict = DI_UNUSABLE;
}

/*
 * Gives every line its verdict; opens each usable key's IA once. With
 * @only, opens only the keys of that name (the others keep DI_STEP_OPEN
 * and DI_UNUSABLE, unchecked).
 */
void di_check_lines(struct di_conf *c, const char *only)
{
	size_t i;

	classify(c);
	for (i = 0; i < c->count; i++)
		if ((only == NULL || strcmp(c->lines[i].name, only) == 0) &&
		    c->lines[i].step == DI_STEP_OPEN &&
		    c->lines[i].verdict == DI_UNUSABLE && !c->lines[i].lib_checked)
			open_key(c, i);
}
