/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The dat.conf parser.
 *
 * One entry per line, eight fields separated by blanks (space, tab):
 *
 *   <ia_name> <api_ver> <threadsafety> <default> <lib_path>
 *       <provider_ver> <ia_params> <platform_params>
 *
 *   api_ver       "u" or "k", then MAJOR.MINOR in decimal:   u2.0
 *   threadsafety  "threadsafe" or "nonthreadsafe"
 *   default       "default" or "nondefault"
 *   provider_ver  ID.MAJOR.MINOR, ID not empty:              dapl.2.0
 *
 * A field is a run of non-blank bytes, or a double-quoted string in which a
 * backslash takes the next byte literally ("a \"b\"" is a "b"). A "#" that
 * starts a field starts a comment running to the end of the line. These are
 * the rules of OFED's tokenizer; where it goes wrong we differ, on purpose:
 *
 *   - a CR before the LF is ignored (OFED reads it into the last field and
 *     drops the whole entry);
 *   - a bad line is reported and skipped, and parsing goes on (OFED stops at
 *     an unterminated quote and loses every line after it);
 *   - keywords must match whole ("defaultly" is an error, OFED takes the
 *     prefix), and versions must have both numbers ("u2" is an error);
 *   - a NUL byte, or a line longer than DREG_CONF_MAX_LINE, makes the line
 *     an error instead of truncating a field.
 *
 * The parser only reads bytes: it opens nothing and loads nothing, so that it
 * can be fuzzed on its own. Thread-safe: no global state.
 */
#ifndef DREG_CONF_H
#define DREG_CONF_H

#include <stddef.h>

#include <dat2/udat.h>

#define DREG_CONF_FIELDS	8
#define DREG_CONF_MAX_LINE	65536

/* One well-formed line of dat.conf. Strings are NUL-terminated copies. */
struct dreg_conf_entry {
	char		*ia_name;
	char		api_kind;	/* 'u' (uDAPL) or 'k' (kDAPL) */
	DAT_UINT32	api_major;
	DAT_UINT32	api_minor;
	DAT_BOOLEAN	thread_safe;
	DAT_BOOLEAN	is_default;
	char		*lib_path;
	char		*provider_ver;	/* the whole field, checked for ID.M.m */
	char		*ia_params;	/* handed to dat_provider_init unchanged */
	char		*platform_params; /* read and kept, unused */
	unsigned	line;		/* 1-based line number in the file */
};

/*
 * Called once for every line that is not an entry, a comment or blank:
 * @line is 1-based, @msg says what is wrong and what was expected.
 */
typedef void (*dreg_conf_diag_fn)(void *arg, unsigned line, const char *msg);

/*
 * Parses @len bytes of @buf (NUL bytes allowed: they make their line bad).
 * On success returns 0 with *@entries (malloc'd, possibly NULL when
 * *@count is 0) and *@count set; bad lines are reported through @diag
 * (which may be NULL) and skipped. Returns -ENOMEM if memory runs out.
 */
int dreg_conf_parse(const char *buf, size_t len,
		    struct dreg_conf_entry **entries, size_t *count,
		    dreg_conf_diag_fn diag, void *arg);

void dreg_conf_free(struct dreg_conf_entry *entries, size_t count);

#endif
