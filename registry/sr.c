/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The static registry: dat.conf, read once per process at the first DAT
 * call, and the provider libraries loaded from it.
 *
 * Which file: $DAT_OVERRIDE when set (if it cannot be read the registry
 * stays empty: a consumer that names a file never silently gets another),
 * else $(SYSCONFDIR)/dat.conf, else /etc/dat.conf.
 *
 * Which lines are used, as OFED decides: "u" entries marked "default";
 * for a key (name, API major, minor, thread safety) seen again, the later
 * line is a fallback library tried when the earlier one does not load.
 * Every line that is not used says why on the debug output.
 *
 * All of sr's state is guarded by sr_lock (recursive, see sr.h).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"
#include "dbg.h"
#include "sr.h"

#ifndef DREG_SYSCONFDIR
#define DREG_SYSCONFDIR "/etc"
#endif

#define SR_MAX_FILE (16u << 20)	/* a dat.conf larger than this is refused */

enum sr_state {
	SR_USABLE,		/* first line of its key: loaded on demand */
	SR_FALLBACK,		/* same key as an earlier line: tried after it */
	SR_KERNEL,		/* a "k" (kDAPL) line */
	SR_NONDEFAULT,		/* marked nondefault */
};

struct sr_entry {
	struct dreg_conf_entry	conf;
	DAT_PROVIDER_INFO	info;	/* the key */
	enum sr_state		state;
	void			*dl;	/* dlopen handle while loaded */
	DAT_PROVIDER_FINI_FUNC	fini;
	unsigned		ref;	/* IAs open on this library */
};

static pthread_once_t sr_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t sr_lock;
static struct sr_entry *sr_entries;
static size_t sr_count;
static char sr_path[4096];	/* the file read, or tried */
static char sr_why[sizeof(sr_path) + 256];	/* why no file was read; empty if one was */

static void diag(void *arg, unsigned line, const char *msg)
{
	dreg_dbg(DREG_DBG_ERROR, "%s:%u: %s", (const char *)arg, line, msg);
}

/* Reads @path whole; returns the malloc'd bytes, or NULL with errno set. */
static char *read_file(const char *path, size_t *len)
{
	struct stat st;
	char *buf = NULL;
	size_t size = 0, cap = 0;
	int fd, saved;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		goto fail;
	}
	for (;;) {
		ssize_t n;

		if (size == cap) {
			char *nbuf;

			if (cap >= SR_MAX_FILE) {
				errno = EFBIG;
				goto fail;
			}
			cap = cap ? cap * 2 : 4096;
			nbuf = realloc(buf, cap);
			if (nbuf == NULL)
				goto fail;
			buf = nbuf;
		}
		n = read(fd, buf + size, cap - size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail;
		if (n == 0)
			break;
		size += (size_t)n;
	}
	close(fd);
	*len = size;
	return buf;
fail:
	saved = errno;
	free(buf);
	close(fd);
	errno = saved;
	return NULL;
}

/* Opens the dat.conf that applies; fills sr_path, or sr_why on failure. */
static char *sr_read_conf(size_t *len)
{
	const char *env = getenv("DAT_OVERRIDE");
	const char *sys = DREG_SYSCONFDIR "/dat.conf";
	char *buf;

	if (env != NULL) {
		snprintf(sr_path, sizeof(sr_path), "%s", env);
		buf = read_file(env, len);
		if (buf == NULL)
			snprintf(sr_why, sizeof(sr_why),
				 "DAT_OVERRIDE=%s cannot be read (%s): no provider is registered from a file",
				 env, strerror(errno));
		return buf;
	}

	snprintf(sr_path, sizeof(sr_path), "%s", sys);
	buf = read_file(sys, len);
	if (buf == NULL && strcmp(sys, "/etc/dat.conf") != 0) {
		dreg_dbg(DREG_DBG_SR, "%s cannot be read (%s), trying /etc/dat.conf",
			 sys, strerror(errno));
		snprintf(sr_path, sizeof(sr_path), "/etc/dat.conf");
		buf = read_file(sr_path, len);
	}
	if (buf == NULL)
		snprintf(sr_why, sizeof(sr_why),
			 "%s cannot be read (%s); set DAT_OVERRIDE to a dat.conf",
			 sr_path, strerror(errno));
	return buf;
}

/* Gives each parsed line its key and state. */
static void sr_classify(void)
{
	size_t i, j;

	for (i = 0; i < sr_count; i++) {
		struct sr_entry *e = &sr_entries[i];
		const char *skip = NULL;

		snprintf(e->info.ia_name, sizeof(e->info.ia_name), "%s",
			 e->conf.ia_name);
		e->info.dapl_version_major = e->conf.api_major;
		e->info.dapl_version_minor = e->conf.api_minor;
		e->info.is_thread_safe = e->conf.thread_safe;
		e->state = SR_USABLE;

		if (e->conf.api_kind == 'k') {
			e->state = SR_KERNEL;
			skip = "a kDAPL (k) entry, not for user space";
		} else if (!e->conf.is_default) {
			e->state = SR_NONDEFAULT;
			skip = "marked nondefault";
		} else {
			for (j = 0; j < i; j++) {
				if (sr_entries[j].state == SR_USABLE &&
				    dreg_info_equal(&sr_entries[j].info, &e->info)) {
					e->state = SR_FALLBACK;
					dreg_dbg(DREG_DBG_SR,
						 "%s:%u: IA %s repeats line %u: %s is a fallback library",
						 sr_path, e->conf.line, e->info.ia_name,
						 sr_entries[j].conf.line, e->conf.lib_path);
					break;
				}
			}
		}
		if (skip != NULL)
			dreg_dbg(DREG_DBG_SR, "%s:%u: IA %s not registered: %s",
				 sr_path, e->conf.line, e->info.ia_name, skip);
	}
}

static void sr_load_conf(void)
{
	pthread_mutexattr_t attr;
	struct dreg_conf_entry *conf = NULL;
	size_t len = 0, n = 0, i;
	char *buf;

	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&sr_lock, &attr);
	pthread_mutexattr_destroy(&attr);

	buf = sr_read_conf(&len);
	if (buf == NULL) {
		dreg_dbg(DREG_DBG_ERROR, "%s", sr_why);
		return;
	}
	dreg_dbg(DREG_DBG_GENERIC, "using %s", sr_path);

	if (dreg_conf_parse(buf, len, &conf, &n, diag, sr_path) != 0) {
		snprintf(sr_why, sizeof(sr_why), "%s: out of memory while parsing",
			 sr_path);
		dreg_dbg(DREG_DBG_ERROR, "%s", sr_why);
		free(buf);
		return;
	}
	free(buf);

	sr_entries = calloc(n ? n : 1, sizeof(*sr_entries));
	if (sr_entries == NULL) {
		dreg_conf_free(conf, n);
		return;
	}
	for (i = 0; i < n; i++)
		sr_entries[i].conf = conf[i];
	free(conf);		/* the strings now belong to sr_entries */
	sr_count = n;
	sr_classify();
}

void dreg_init(void)
{
	pthread_once(&sr_once, sr_load_conf);
}

/* The loaded entry for @info, or NULL. Caller holds sr_lock. */
static struct sr_entry *sr_loaded(const DAT_PROVIDER_INFO *info)
{
	size_t i;

	for (i = 0; i < sr_count; i++)
		if (sr_entries[i].dl != NULL &&
		    dreg_info_equal(&sr_entries[i].info, info))
			return &sr_entries[i];
	return NULL;
}

/* Unloads @e after its last IA. Caller holds sr_lock. */
static void sr_unload(struct sr_entry *e)
{
	dreg_dbg(DREG_DBG_SR, "IA %s: unloading %s", e->info.ia_name,
		 e->conf.lib_path);
	if (e->fini != NULL)
		e->fini(&e->info);
	dlclose(e->dl);
	e->dl = NULL;
	e->fini = NULL;
}

/*
 * Loads the library of @e and calls its dat_provider_init; true when it
 * then is registered under @e's key. Caller holds sr_lock.
 */
static bool sr_load(struct sr_entry *e)
{
	DAT_PROVIDER_INIT_FUNC init;
	const char *where = e->conf.lib_path;

	dreg_dbg(DREG_DBG_SR, "IA %s: loading %s", e->info.ia_name, where);
	e->dl = dlopen(where, RTLD_NOW | RTLD_GLOBAL);
	if (e->dl == NULL) {
		dreg_dbg(DREG_DBG_ERROR,
			 "%s:%u: IA %s: cannot load %s: %s",
			 sr_path, e->conf.line, e->info.ia_name, where, dlerror());
		return false;
	}
	*(void **)&init = dlsym(e->dl, DAT_PROVIDER_INIT_FUNC_STR);
	*(void **)&e->fini = dlsym(e->dl, DAT_PROVIDER_FINI_FUNC_STR);
	if (init == NULL) {
		dreg_dbg(DREG_DBG_ERROR,
			 "%s:%u: IA %s: %s has no %s: it is not a DAT provider",
			 sr_path, e->conf.line, e->info.ia_name, where,
			 DAT_PROVIDER_INIT_FUNC_STR);
		dlclose(e->dl);
		e->dl = NULL;
		return false;
	}

	init(&e->info, e->conf.ia_params);

	if (!dreg_dr_has(&e->info)) {
		dreg_dbg(DREG_DBG_ERROR,
			 "%s:%u: IA %s: %s did not register it: its %s must call dat_registry_add_provider with the DAT_PROVIDER_INFO it is given",
			 sr_path, e->conf.line, e->info.ia_name, where,
			 DAT_PROVIDER_INIT_FUNC_STR);
		sr_unload(e);
		return false;
	}
	return true;
}

DAT_RETURN dreg_sr_open(const DAT_PROVIDER_INFO *info)
{
	DAT_RETURN ret = DAT_ERROR(DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);
	struct sr_entry *e;
	size_t i;

	dreg_init();
	if (sr_count == 0)
		return ret;

	pthread_mutex_lock(&sr_lock);
	e = sr_loaded(info);
	if (e != NULL) {
		e->ref++;
		ret = DAT_SUCCESS;
		goto out;
	}
	for (i = 0; i < sr_count; i++) {
		e = &sr_entries[i];
		if ((e->state != SR_USABLE && e->state != SR_FALLBACK) ||
		    !dreg_info_equal(&e->info, info))
			continue;
		if (sr_load(e)) {
			e->ref = 1;
			ret = DAT_SUCCESS;
			break;
		}
	}
out:
	pthread_mutex_unlock(&sr_lock);
	return ret;
}

void dreg_sr_close(const DAT_PROVIDER_INFO *info)
{
	struct sr_entry *e;

	if (sr_count == 0)
		return;
	pthread_mutex_lock(&sr_lock);
	e = sr_loaded(info);
	if (e != NULL && e->ref > 0 && --e->ref == 0)
		sr_unload(e);
	pthread_mutex_unlock(&sr_lock);
}

DAT_COUNT dreg_sr_size(void)
{
	DAT_COUNT n = 0;
	size_t i;

	dreg_init();
	for (i = 0; i < sr_count; i++)
		n += sr_entries[i].state == SR_USABLE;
	return n;
}

DAT_RETURN dreg_sr_list(DAT_COUNT max, DAT_COUNT *returned,
			DAT_PROVIDER_INFO *list[])
{
	DAT_COUNT n = 0;
	size_t i;

	dreg_init();
	for (i = 0; i < sr_count && n < max; i++) {
		if (sr_entries[i].state != SR_USABLE)
			continue;
		if (list[n] == NULL) {
			*returned = n;
			return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
		}
		*list[n++] = sr_entries[i].info;
	}
	*returned = n;
	return DAT_SUCCESS;
}

bool dreg_sr_has_name(const char *name)
{
	size_t i;

	dreg_init();
	for (i = 0; i < sr_count; i++)
		if (sr_entries[i].state == SR_USABLE &&
		    strcmp(sr_entries[i].info.ia_name, name) == 0)
			return true;
	return false;
}

static const char *ts_name(DAT_BOOLEAN ts)
{
	return ts ? "threadsafe" : "nonthreadsafe";
}

DAT_RETURN dreg_sr_explain(const DAT_PROVIDER_INFO *info)
{
	/*
	 * How close the nearest usable line came, and the subtype that says
	 * so: a line with the right name but another major version gives
	 * DAT_MAJOR_NOT_FOUND, and so on; a line that matched but whose
	 * library failed is "name not registered", as nothing registered it.
	 */
	static const DAT_RETURN subtype[] = {
		DAT_NAME_NOT_REGISTERED, DAT_MAJOR_NOT_FOUND,
		DAT_MINOR_NOT_FOUND, DAT_THREAD_SAFETY_NOT_FOUND,
		DAT_NAME_NOT_REGISTERED,
	};
	unsigned best = 0;
	bool named = false;
	char want[64];
	size_t i;

	dreg_init();
	snprintf(want, sizeof(want), "u%u.%u %s", info->dapl_version_major,
		 info->dapl_version_minor, ts_name(info->is_thread_safe));
	if (sr_why[0] != '\0')
		dreg_dbg(DREG_DBG_ERROR, "IA %s (%s) not found: %s",
			 info->ia_name, want, sr_why);

	for (i = 0; i < sr_count; i++) {
		const struct sr_entry *e = &sr_entries[i];
		const char *why;
		unsigned rank = 0;

		if (strcmp(e->info.ia_name, info->ia_name) != 0)
			continue;
		named = true;
		if (e->state == SR_KERNEL) {
			why = "it is a kDAPL (k) entry";
		} else if (e->state == SR_NONDEFAULT) {
			why = "it is marked nondefault";
		} else if (e->info.dapl_version_major != info->dapl_version_major) {
			rank = 1;
			why = "the API major version differs";
		} else if (e->info.dapl_version_minor != info->dapl_version_minor) {
			rank = 2;
			why = "the API minor version differs";
		} else if (e->info.is_thread_safe != info->is_thread_safe) {
			rank = 3;
			why = "the thread safety differs";
		} else {
			rank = 4;
			why = "its library did not load or did not register";
		}
		if (rank > best)
			best = rank;
		dreg_dbg(DREG_DBG_ERROR,
			 "IA %s (%s) not found: %s:%u has %c%u.%u %s %s, but %s",
			 info->ia_name, want, sr_path, e->conf.line,
			 e->conf.api_kind, e->info.dapl_version_major,
			 e->info.dapl_version_minor,
			 ts_name(e->info.is_thread_safe),
			 e->conf.is_default ? "default" : "nondefault", why);
	}
	if (!named && sr_why[0] == '\0')
		dreg_dbg(DREG_DBG_ERROR,
			 "IA %s (%s) not found: %s has no line for it",
			 info->ia_name, want, sr_path);

	return DAT_ERROR(DAT_PROVIDER_NOT_FOUND, subtype[best]);
}
