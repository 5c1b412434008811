/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The dat.conf parser: bytes in, entries and diagnostics out. See conf.h for
 * the syntax and where it differs from OFED's on purpose.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"

static const char *const field_names[DREG_CONF_FIELDS] = {
	"ia_name", "api_ver", "threadsafety", "default",
	"lib_path", "provider_ver", "ia_params", "platform_params",
};

/* A line being parsed: its fields point into @buf, NUL-terminated. */
struct conf_line {
	char		*buf;
	char		*field[DREG_CONF_FIELDS + 1];
	unsigned	nfields;	/* up to DREG_CONF_FIELDS + 1 */
	char		msg[512];	/* the diagnostic, when the line is bad */
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * Writes @s into @out as a C-like quoted string, escaping what a terminal
 * would not show, and cut to a readable length.
 */
static void quote(char *out, size_t size, const char *s)
{
	size_t o = 0, i;

	out[o++] = '"';
	for (i = 0; s[i] != '\0' && o + 8 < size; i++) {
		unsigned char c = (unsigned char)s[i];

		if (i == 64) {
			o += (size_t)snprintf(out + o, size - o, "...");
			break;
		}
		if (c == '"' || c == '\\')
			o += (size_t)snprintf(out + o, size - o, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			o += (size_t)snprintf(out + o, size - o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	out[o++] = '"';
	out[o] = '\0';
}

/*
 * Splits line @p (length @n, no newline) into fields, unescaping quoted
 * strings into @l->buf. Returns false with @l->msg set on a syntax error.
 */
static bool split_fields(struct conf_line *l, const char *p, size_t n)
{
	char *w = l->buf;
	size_t i = 0;

	l->nfields = 0;
	for (;;) {
		while (i < n && is_blank(p[i]))
			i++;
		if (i == n || p[i] == '#')
			return true;
		if (l->nfields == DREG_CONF_FIELDS + 1)
			return true;	/* enough to report "too many" */

		l->field[l->nfields++] = w;
		if (p[i] == '"') {
			size_t open = i++;
			bool closed = false;

			while (i < n) {
				if (p[i] == '\\' && i + 1 < n) {
					*w++ = p[i + 1];
					i += 2;
				} else if (p[i] == '"') {
					i++;
					closed = true;
					break;
				} else {
					*w++ = p[i++];
				}
			}
			if (!closed) {
				snprintf(l->msg, sizeof(l->msg),
					 "unterminated quoted string in field %u (%s), opened at column %zu: add the closing \"",
					 l->nfields,
					 l->nfields <= DREG_CONF_FIELDS ?
					 field_names[l->nfields - 1] : "extra",
					 open + 1);
				return false;
			}
		} else {
			while (i < n && !is_blank(p[i]))
				*w++ = p[i++];
		}
		*w++ = '\0';
	}
}

/* Parses a decimal number of at least one digit that fits in 32 bits. */
static const char *parse_u32(const char *s, DAT_UINT32 *v)
{
	uint64_t x = 0;
	const char *start = s;

	while (*s >= '0' && *s <= '9') {
		x = x * 10 + (uint64_t)(*s - '0');
		if (x > UINT32_MAX)
			return NULL;
		s++;
	}
	if (s == start)
		return NULL;
	*v = (DAT_UINT32)x;
	return s;
}

/* "MAJOR.MINOR" exactly; returns false otherwise. */
static bool parse_version(const char *s, DAT_UINT32 *major, DAT_UINT32 *minor)
{
	s = parse_u32(s, major);
	if (s == NULL || *s != '.')
		return false;
	s = parse_u32(s + 1, minor);
	return s != NULL && *s == '\0';
}

static bool parse_keyword(const char *s, const char *yes, const char *no,
			  DAT_BOOLEAN *v)
{
	if (strcmp(s, yes) == 0)
		*v = DAT_TRUE;
	else if (strcmp(s, no) == 0)
		*v = DAT_FALSE;
	else
		return false;
	return true;
}

static bool bad_field(struct conf_line *l, unsigned f, const char *expected)
{
	char q[160];

	quote(q, sizeof(q), l->field[f]);
	snprintf(l->msg, sizeof(l->msg), "field %u (%s) is %s: expected %s",
		 f + 1, field_names[f], q, expected);
	return false;
}

/* Checks the fields of @l and fills @e; false with @l->msg set if bad. */
static bool check_fields(struct conf_line *l, struct dreg_conf_entry *e)
{
	char q[160];
	const char *dot;

	if (l->nfields < DREG_CONF_FIELDS) {
		snprintf(l->msg, sizeof(l->msg),
			 "%u of 8 fields, %s is missing: expected ia_name api_ver threadsafety default lib_path provider_ver ia_params platform_params (write \"\" for an empty field)",
			 l->nfields, field_names[l->nfields]);
		return false;
	}
	if (l->nfields > DREG_CONF_FIELDS) {
		quote(q, sizeof(q), l->field[DREG_CONF_FIELDS]);
		snprintf(l->msg, sizeof(l->msg),
			 "unexpected text %s after the 8th field (platform_params): quote fields that contain blanks",
			 q);
		return false;
	}

	if (strlen(l->field[0]) >= DAT_NAME_MAX_LENGTH) {
		snprintf(l->msg, sizeof(l->msg),
			 "field 1 (ia_name) is %zu bytes long: expected at most %d",
			 strlen(l->field[0]), DAT_NAME_MAX_LENGTH - 1);
		return false;
	}
	if (l->field[0][0] == '\0')
		return bad_field(l, 0, "a name, such as ofa-v2-ib0");

	e->api_kind = l->field[1][0];
	if ((e->api_kind != 'u' && e->api_kind != 'k') ||
	    !parse_version(l->field[1] + 1, &e->api_major, &e->api_minor))
		return bad_field(l, 1, "u or k followed by MAJOR.MINOR, such as u2.0");

	if (!parse_keyword(l->field[2], "threadsafe", "nonthreadsafe",
			   &e->thread_safe))
		return bad_field(l, 2, "threadsafe or nonthreadsafe");

	if (!parse_keyword(l->field[3], "default", "nondefault",
			   &e->is_default))
		return bad_field(l, 3, "default or nondefault");

	if (l->field[4][0] == '\0')
		return bad_field(l, 4, "a library path or name, such as libdaplsoft.so.2");

	dot = strchr(l->field[5], '.');
	{
		DAT_UINT32 major, minor;

		if (dot == NULL || dot == l->field[5] ||
		    !parse_version(dot + 1, &major, &minor))
			return bad_field(l, 5, "ID.MAJOR.MINOR, such as dapl.2.0");
	}
	return true;
}

static char *dup_field(const char *s)
{
	return strdup(s);
}

static void free_entry(struct dreg_conf_entry *e)
{
	free(e->ia_name);
	free(e->lib_path);
	free(e->provider_ver);
	free(e->ia_params);
	free(e->platform_params);
}

void dreg_conf_free(struct dreg_conf_entry *entries, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		free_entry(&entries[i]);
	free(entries);
}

/* Appends the entry of line @l; returns -ENOMEM on failure. */
static int add_entry(struct dreg_conf_entry **entries, size_t *count,
		     size_t *cap, struct conf_line *l, struct dreg_conf_entry *e)
{
	if (*count == *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;
		struct dreg_conf_entry *n = realloc(*entries, ncap * sizeof(*n));

		if (n == NULL)
			return -ENOMEM;
		*entries = n;
		*cap = ncap;
	}
	e->ia_name = dup_field(l->field[0]);
	e->lib_path = dup_field(l->field[4]);
	e->provider_ver = dup_field(l->field[5]);
	e->ia_params = dup_field(l->field[6]);
	e->platform_params = dup_field(l->field[7]);
	if (!e->ia_name || !e->lib_path || !e->provider_ver ||
	    !e->ia_params || !e->platform_params) {
		free_entry(e);
		return -ENOMEM;
	}
	(*entries)[(*count)++] = *e;
	return 0;
}

int dreg_conf_parse(const char *buf, size_t len,
		    struct dreg_conf_entry **entries, size_t *count,
		    dreg_conf_diag_fn diag, void *arg)
{
	struct conf_line l;
	size_t pos = 0, cap = 0;
	unsigned lineno = 0;
	int err = 0;

	*entries = NULL;
	*count = 0;
	l.buf = malloc(DREG_CONF_MAX_LINE + 1);
	if (l.buf == NULL)
		return -ENOMEM;

	while (pos < len) {
		const char *p = buf + pos;
		const char *nl = memchr(p, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - p) : len - pos;
		struct dreg_conf_entry e;
		const char *nul;

		pos += n + (nl != NULL);
		lineno++;
		if (n > 0 && p[n - 1] == '\r')
			n--;

		l.msg[0] = '\0';
		memset(&e, 0, sizeof(e));
		e.line = lineno;

		if (n > DREG_CONF_MAX_LINE) {
			snprintf(l.msg, sizeof(l.msg),
				 "line is %zu bytes long: expected at most %d",
				 n, DREG_CONF_MAX_LINE);
		} else if ((nul = memchr(p, '\0', n)) != NULL) {
			snprintf(l.msg, sizeof(l.msg),
				 "NUL byte at column %zu: dat.conf is a text file",
				 (size_t)(nul - p) + 1);
		} else if (split_fields(&l, p, n) && l.nfields > 0 &&
			   check_fields(&l, &e)) {
			err = add_entry(entries, count, &cap, &l, &e);
			if (err)
				break;
			continue;
		}
		if (l.msg[0] != '\0' && diag != NULL)
			diag(arg, lineno, l.msg);
	}

	free(l.buf);
	if (err) {
		dreg_conf_free(*entries, *count);
		*entries = NULL;
		*count = 0;
	}
	return err;
}
