/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl-seq: reading trace lines (provider/TRACE.md) into items[]. A line
 * that is not a trace line is reported as FILE:LINE and skipped; what is
 * kept is sanitized (valid UTF-8, no control characters), since every
 * output writes it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "softdapl-seq.h"

static const char *const kind_names[K_NKINDS] = {
	"api", "state", "tx", "rx", "place", "dto", "event", "error", "rnr",
};

/* Unparsable lines reported one by one, per file; the rest are counted. */
#define MAX_REPORTS	20

struct item *items;
int nitems;
static int aitems;
char **files;
int nfiles;
long nbad;
int64_t t_origin;

/* HH:MM:SS.uuuuuu (1 to 6 fractional digits) to microseconds; -1 if not. */
int64_t parse_clock(const char *s)
{
	int64_t h, m, sec, us = 0, scale = 100000;
	const char *p = s;

	if (!isdigit((unsigned char)p[0]) || !isdigit((unsigned char)p[1]) ||
	    p[2] != ':' || !isdigit((unsigned char)p[3]) ||
	    !isdigit((unsigned char)p[4]) || p[5] != ':' ||
	    !isdigit((unsigned char)p[6]) || !isdigit((unsigned char)p[7]))
		return -1;
	h = (p[0] - '0') * 10 + (p[1] - '0');
	m = (p[3] - '0') * 10 + (p[4] - '0');
	sec = (p[6] - '0') * 10 + (p[7] - '0');
	p += 8;
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return -1;
		while (isdigit((unsigned char)*p) && scale > 0) {
			us += (*p++ - '0') * scale;
			scale /= 10;
		}
	}
	if (*p != '\0' || h > 23 || m > 59 || sec > 60)
		return -1;
	return ((h * 60 + m) * 60 + sec) * 1000000 + us;
}

const char *find_kv(const struct item *it, const char *key)
{
	int i;

	for (i = 0; i < it->nkv; i++)
		if (strcmp(it->kv[i].k, key) == 0)
			return it->kv[i].v;
	return NULL;
}

/* Cuts the next space-separated column off *p; NULL at the end. */
static char *next_col(char **p)
{
	char *s = *p, *e;

	if (*s == '\0' || *s == ' ')
		return NULL;
	e = strchr(s, ' ');
	if (e != NULL) {
		*e = '\0';
		*p = e + 1;
	} else {
		*p = s + strlen(s);
	}
	return s;
}

/*
 * Parses @line (no newline) into @it; returns NULL or why it cannot.
 * TRACE.md: five columns split on single spaces, then key=value or
 * key="value with spaces" pairs to the end of the line.
 */
static const char *parse_line(const char *line, struct item *it)
{
	char *p, *time_s, *pid_s, *kind_s, *end;
	int k, akv = 0;

	memset(it, 0, sizeof(*it));
	it->match = -1;
	it->peer = -1;
	it->buf = xstrdup(line);
	p = it->buf;
	time_s = next_col(&p);
	pid_s = next_col(&p);
	kind_s = next_col(&p);
	it->obj = next_col(&p);
	it->ev = next_col(&p);
	if (it->ev == NULL)
		return "fewer than five columns (TIME PID KIND OBJECT EVENT)";
	it->t = parse_clock(time_s);
	if (it->t < 0)
		return "bad time (want HH:MM:SS.uuuuuu)";
	errno = 0;
	it->pid = strtol(pid_s, &end, 10);
	if (errno != 0 || *end != '\0' || it->pid < 0)
		return "bad pid";
	for (k = 0; k < K_NKINDS; k++)
		if (strcmp(kind_s, kind_names[k]) == 0)
			break;
	if (k == K_NKINDS)
		return "unknown kind (want api, state, tx, rx, place, dto, "
			"event, error or rnr)";
	it->kind = (enum kind)k;
	while (*p != '\0') {
		char *key = p, *eq, *val;

		if (*p == ' ') {
			p++;
			continue;
		}
		eq = strchr(p, '=');
		if (eq == NULL || eq == key || memchr(key, ' ', (size_t)(eq - key)))
			return "a column after EVENT that is not key=value";
		*eq = '\0';
		val = eq + 1;
		if (*val == '"') {
			char *q = strchr(val + 1, '"');

			if (q == NULL)
				return "unterminated quoted value";
			val++;
			*q = '\0';
			p = q + 1;
			if (*p != '\0' && *p != ' ')
				return "text after a quoted value";
		} else {
			char *sp = strchr(val, ' ');

			if (sp != NULL) {
				*sp = '\0';
				p = sp + 1;
			} else {
				p = val + strlen(val);
			}
		}
		GROW(it->kv, it->nkv, akv);
		it->kv[it->nkv].k = key;
		it->kv[it->nkv].v = val;
		it->nkv++;
	}
	/* Frames and placed RDMA name their connection: it pairs them. */
	if ((it->kind == K_TX || it->kind == K_RX || it->kind == K_PLACE) &&
	    (find_kv(it, "conn") == NULL ||
	     strchr(find_kv(it, "conn"), '>') == NULL))
		return it->kind == K_PLACE ?
			"a place line without conn=LOCAL>REMOTE" :
			"a frame without conn=LOCAL>REMOTE";
	it->raw = xstrdup(line);
	return NULL;
}

void free_item(struct item *it)
{
	free(it->buf);
	free(it->kv);
	free(it->raw);
}

/*
 * Replaces, in place, every byte that is not part of valid UTF-8, and every
 * control character, by '?': the output is XML, which allows neither.
 */
static void sanitize(char *s)
{
	unsigned char *p = (unsigned char *)s;

	while (*p) {
		int n = *p < 0x80 ? 1 : *p >= 0xc2 && *p <= 0xdf ? 2 :
			*p >= 0xe0 && *p <= 0xef ? 3 :
			*p >= 0xf0 && *p <= 0xf4 ? 4 : 0, i;

		for (i = 1; i < n; i++)
			if ((p[i] & 0xc0) != 0x80)
				break;
		if (n == 0 || i < n) {
			*p++ = '?';
			continue;
		}
		if (n == 1 && (*p < 0x20 || *p == 0x7f))
			*p = '?';
		p += n;
	}
}

/* Reads one trace (stdin for "-"); its unparsable lines are reported. */
int read_trace(const char *path)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
	int64_t day = 0, last = -1;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	long lineno = 0, bad = 0;
	int fi;

	if (f == NULL) {
		fprintf(stderr, "softdapl-seq: cannot open %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	files = xrealloc(files, (size_t)(nfiles + 1) * sizeof(*files));
	fi = nfiles++;
	files[fi] = xstrdup(name);
	sanitize(files[fi]);
	while ((n = getline(&line, &cap, f)) >= 0) {
		struct item it;
		const char *why;

		lineno++;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (n == 0)
			continue;
		sanitize(line);
		why = parse_line(line, &it);
		if (why != NULL) {
			/* A program's own output mixed in: say it once. */
			if (++bad <= MAX_REPORTS)
				fprintf(stderr, "%s:%ld: skipped: %s\n", name,
					lineno, why);
			free_item(&it);
			nbad++;
			continue;
		}
		it.file = fi;
		it.lineno = lineno;
		/* A file that passes midnight goes on on the next day. */
		if (last >= 0 && it.t + day < last - 12LL * 3600 * 1000000)
			day += 24LL * 3600 * 1000000;
		it.t += day;
		last = it.t;
		GROW(items, nitems, aitems);
		items[nitems++] = it;
	}
	free(line);
	if (bad > MAX_REPORTS)
		fprintf(stderr, "%s: %ld more lines skipped\n", name,
			bad - MAX_REPORTS);
	if (ferror(f))
		fprintf(stderr, "softdapl-seq: error reading %s: %s\n", name,
			strerror(errno));
	if (f != stdin)
		fclose(f);
	return 0;
}

/* --notice: the lines of the text under the title (softdapl-seq.h). */
char **notice;
int nnotice;

/*
 * Reads the --notice file @path: each line that is not blank is one line
 * of the text, its spaces at both ends dropped, sanitized as the traces
 * are. Returns 0, or -1 (said on stderr) when the file cannot be read or
 * holds no text or more than NOTICE_MAX_LINES lines.
 */
int read_notice(const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, *s;
	size_t cap = 0;
	ssize_t n;
	int ret = 0;

	if (f == NULL) {
		fprintf(stderr, "softdapl-seq: --notice %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	while ((n = getline(&line, &cap, f)) >= 0) {
		while (n > 0 && isspace((unsigned char)line[n - 1]))
			line[--n] = '\0';
		for (s = line; isspace((unsigned char)*s); s++)
			;
		if (*s == '\0')
			continue;
		if (nnotice == NOTICE_MAX_LINES) {
			fprintf(stderr, "softdapl-seq: --notice %s: more than "
				"%d lines\n", path, NOTICE_MAX_LINES);
			ret = -1;
			break;
		}
		notice = xrealloc(notice, (size_t)(nnotice + 1) *
				  sizeof(*notice));
		notice[nnotice] = xstrdup(s);
		sanitize(notice[nnotice++]);
	}
	if (ret == 0 && ferror(f)) {
		fprintf(stderr, "softdapl-seq: --notice %s: %s\n", path,
			strerror(errno));
		ret = -1;
	}
	if (ret == 0 && nnotice == 0) {
		fprintf(stderr, "softdapl-seq: --notice %s: no text\n", path);
		ret = -1;
	}
	free(line);
	fclose(f);
	return ret;
}

/* See softdapl-seq.h. */
int wrap_cut(const char *s, int max, int *next)
{
	int n = 0, cut = -1, i;

	/* @max characters, not bytes: UTF-8 continuations do not count. */
	for (i = 0; s[i] != '\0'; i++) {
		if (((unsigned char)s[i] & 0xc0) == 0x80)
			continue;
		if (s[i] == ' ')
			cut = i;	/* a space at @max still fits what is before */
		if (n == max)
			break;
		n++;
	}
	if (s[i] == '\0' || cut <= 0)
		cut = i;	/* all of it, or a word longer than @max */
	for (*next = cut; s[*next] == ' '; (*next)++)
		;
	return cut;
}

void free_notice(void)
{
	int i;

	for (i = 0; i < nnotice; i++)
		free(notice[i]);
	free(notice);
	notice = NULL;
	nnotice = 0;
}
