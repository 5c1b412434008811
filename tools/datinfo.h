/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * datinfo: the diagnostic tool of a DAT setup (as ibv_devinfo is for verbs,
 * fi_info for libfabric). Its files:
 *
 *   datinfo.c       options, the report, exit codes
 *   datinfo-conf.c  which dat.conf applies, its lines and their verdicts
 *   datinfo-lib.c   the library search and the dlopen/dlsym check
 *   datinfo-ia.c    opening IAs through libdat2, printing their attributes,
 *                   capturing the registry's debug output
 *   datinfo-why.c   --why NAME: why a consumer's dat_ia_open(NAME) fails
 *   datinfo-explain.c  --explain VALUE...: what a DAT_RETURN, DTO status
 *                   or event number means, from its number or its name
 *
 * The verdicts predict what our registry (registry/sr.c) does with each
 * line; the IA is then really opened through libdat2, and what
 * dat_ia_open returns is printed beside the prediction. --explain opens
 * nothing and reads no dat.conf. Single-threaded.
 */
#ifndef DATINFO_H
#define DATINFO_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

#include <dat2/udat.h>
#include <dat2/dat_registry.h>

#include "../registry/conf.h"

/* Exit statuses, documented in --help and datinfo(1). */
enum {
	DI_EXIT_OK	= 0,	/* every entry that counts opened */
	DI_EXIT_UNUSABLE = 1,	/* a bad line, an unusable entry, an IA that fails;
				 * --explain: a VALUE not known */
	DI_EXIT_USAGE	= 2,	/* bad options */
	DI_EXIT_NOCONF	= 3,	/* no dat.conf could be read, or it has no entries */
};

/* What the registry makes of one line (the report's second column). */
enum di_verdict {
	DI_OK,		/* registered, its library loads, the IA opens */
	DI_BAD,		/* malformed: the registry skips it */
	DI_UNUSABLE,	/* well formed, but a DAT 2.0 consumer cannot use it */
	DI_FALLBACK,	/* same key as an earlier line: tried only if that fails */
	DI_OFF,		/* switched off on purpose: nondefault, or kDAPL */
};

/* How far a line got; the first failing step is the reason. */
enum di_step {
	DI_STEP_PARSE,		/* malformed */
	DI_STEP_KIND,		/* a "k" line */
	DI_STEP_DEFAULT,	/* marked nondefault */
	DI_STEP_VERSION,	/* API version other than 2.0 */
	DI_STEP_DUP,		/* fallback of an earlier line */
	DI_STEP_FIND,		/* library not found */
	DI_STEP_DLOPEN,		/* dlopen failed */
	DI_STEP_SYMBOL,		/* no dat_provider_init */
	DI_STEP_OPEN,		/* dat_ia_open(v) failed */
	DI_STEP_DONE,		/* opened */
};

struct di_line {
	unsigned	line;		/* 1-based line number */
	bool		bad;		/* malformed: only @name and @msg are set */
	char		name[DAT_NAME_MAX_LENGTH]; /* field 1 (first token if bad) */
	char		msg[600];	/* the parser's message when @bad */
	struct dreg_conf_entry conf;	/* the parsed line when !@bad */

	enum di_verdict	verdict;
	enum di_step	step;		/* first failing step, or DI_STEP_DONE */
	char		why[1024];	/* the reason, one line */
	char		note[512];	/* a warning beside an OK verdict, or "" */
	unsigned	first;		/* DI_STEP_DUP: the line it repeats */
	bool		lib_checked;	/* the library checks below ran */
	char		lib_path[PATH_MAX]; /* where the library was found */
	char		lib_how[PATH_MAX + 64]; /* how: "absolute path", ... */
	char		lib_search[4096]; /* every place looked at, for -v */
	bool		has_fini;	/* exports dat_provider_fini */
	bool		opened_here;	/* the IA open below is this line's */
	DAT_RETURN	open_ret;	/* what dat_ia_openv returned */
	char		*reg_log;	/* registry output during the open */
	DAT_RETURN	query_ret;	/* dat_ia_query, when it opened */
	DAT_RETURN	close_ret;	/* dat_ia_close, when it opened */
	char		*attrs;		/* the attributes, formatted while open */
	char		*attrs_all;	/* every attribute, for -v */
};

/* The dat.conf that applies and its lines. */
struct di_conf {
	char		path[PATH_MAX];
	char		source[PATH_MAX + 128];	/* why this file */
	char		error[PATH_MAX + 256];	/* why it could not be read, or "" */
	struct di_line	*lines;		/* entries and bad lines, in file order */
	size_t		count;
	char		*reg_log;	/* the registry's output while reading it */
};

/* Options shared by the parts. */
struct di_opts {
	int		verbose;	/* -v */
	int		quiet;		/* -q */
	int		usable;		/* -u: only the entries that open */
	bool		capture;	/* registry debug output captured by us */
};

extern struct di_opts di_opts;

/* datinfo-conf.c */
void di_fmt(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *di_conf_path(struct di_conf *c);
int di_conf_load(struct di_conf *c);
void di_conf_free(struct di_conf *c);
void di_check_lines(struct di_conf *c, const char *only);
char *di_read_file(const char *path, size_t *len);
void di_append(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* datinfo-lib.c */
void di_check_library(struct di_line *l);
const char *di_verdict_name(enum di_verdict v);

/* datinfo-ia.c */
const char *di_ret_str(DAT_RETURN r, char *buf, size_t len);
void di_capture_begin(void);
char *di_capture_end(void);
void di_print_log(const char *log, const char *indent);
DAT_RETURN di_open_query(const char *name, DAT_UINT32 major, DAT_UINT32 minor,
			 DAT_BOOLEAN ts, struct di_line *l);
void di_line_free(struct di_line *l);
const char *di_registry_path(void);

/* datinfo-why.c */
int di_why(struct di_conf *c, const char *name);

/*
 * datinfo-explain.c. di_explain prints every reading of each of the @argc
 * VALUEs of @argv (numbers or names); DI_EXIT_OK when all were explained,
 * DI_EXIT_UNUSABLE when one is unknown or has an unknown part (said on
 * stderr or in its reading). di_explain_all lists every class, type,
 * subtype, status and event with its sentence, one a line, for the tests:
 * DI_EXIT_UNUSABLE if a sentence is missing.
 */
int di_explain(int argc, char **argv);
int di_explain_all(void);

#endif
