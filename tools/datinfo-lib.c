/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * datinfo: finding a dat.conf line's library as dlopen does when the
 * registry (libdat2, which has no RUNPATH) passes it lib_path: a path with
 * a slash is used as it is; a bare name is looked up in LD_LIBRARY_PATH,
 * then /etc/ld.so.cache, then the system directories. datinfo looks itself
 * instead of asking dlopen, whose search from datinfo would also use
 * datinfo's own RUNPATH (build/lib in the tree). Then dlopen and dlsym
 * check that it loads and is a provider.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "datinfo.h"

/* Looks @name up in /etc/ld.so.cache (glibc's 1.1 format); into @out. */
static bool ldcache_lookup(const char *name, char *out, size_t size)
{
	static const char magic[] = "glibc-ld.so.cache1.1";
	size_t len = 0, i, hdr = 48, ent = 24;
	bool found = false;
	uint32_t nlibs;
	char *buf;

	buf = di_read_file("/etc/ld.so.cache", &len);
	if (buf == NULL)
		return false;
	if (len < hdr || memcmp(buf, magic, sizeof(magic) - 1) != 0)
		goto out;
	memcpy(&nlibs, buf + 20, sizeof(nlibs));
	for (i = 0; i < nlibs && hdr + (i + 1) * ent <= len && !found; i++) {
		const char *p = buf + hdr + i * ent;
		uint32_t key, value;
		int32_t flags;

		memcpy(&flags, p, 4);
		memcpy(&key, p + 4, 4);
		memcpy(&value, p + 8, 4);
#if defined(__x86_64__)
		if (flags != 0x0303)	/* FLAG_ELF_LIBC6 | FLAG_X8664_LIB64 */
			continue;
#endif
		if (key >= len || value >= len ||
		    memchr(buf + key, '\0', len - key) == NULL ||
		    memchr(buf + value, '\0', len - value) == NULL)
			continue;
		if (strcmp(buf + key, name) == 0) {
			di_fmt(out, size, "%s", buf + value);
			found = true;
		}
	}
out:
	free(buf);
	return found;
}

/* The system directories: libc's own, its /usr twin, /lib, /usr/lib. */
static size_t system_dirs(char dirs[4][PATH_MAX])
{
	Dl_info info;
	size_t n = 0;
	void *sym = dlsym(RTLD_DEFAULT, "gnu_get_libc_version");
	char *slash;

	if (sym != NULL && dladdr(sym, &info) && info.dli_fname != NULL &&
	    info.dli_fname[0] == '/') {
		di_fmt(dirs[n], PATH_MAX, "%s", info.dli_fname);
		slash = strrchr(dirs[n], '/');
		*slash = '\0';
		if (strcmp(dirs[n], "/lib") != 0 &&
		    strcmp(dirs[n], "/usr/lib") != 0) {
			n++;
			if (strncmp(dirs[n - 1], "/lib/", 5) == 0) {
				di_fmt(dirs[n], PATH_MAX, "/usr%s", dirs[n - 1]);
				n++;
			}
		}
	}
	di_fmt(dirs[n++], PATH_MAX, "/lib");
	di_fmt(dirs[n++], PATH_MAX, "/usr/lib");
	return n;
}

/* Fills @l->lib_path and lib_how; false with @l->why set if not found. */
static bool find_library(struct di_line *l)
{
	const char *name = l->conf.lib_path;
	const char *llp = getenv("LD_LIBRARY_PATH");
	char dirs[4][PATH_MAX], cand[PATH_MAX];
	size_t i, n;

	l->lib_search[0] = '\0';
	if (strchr(name, '/') != NULL) {
		char cwd[PATH_MAX];

		if (name[0] == '/') {
			di_fmt(l->lib_how, sizeof(l->lib_how), "absolute path");
		} else {
			if (getcwd(cwd, sizeof(cwd)) == NULL)
				di_fmt(cwd, sizeof(cwd), ".");
			di_fmt(l->lib_how, sizeof(l->lib_how),
			       "relative path: from the consumer's current directory, here %s",
			       cwd);
		}
		di_append(l->lib_search, sizeof(l->lib_search), "%s", name);
		if (access(name, F_OK) == 0) {
			di_fmt(l->lib_path, sizeof(l->lib_path), "%s", name);
			return true;
		}
		di_fmt(l->why, sizeof(l->why), "library %s: %s (%s)", name,
		       strerror(errno), l->lib_how);
		return false;
	}

	/* LD_LIBRARY_PATH: ':' or ';' separated, an empty item is ".". */
	if (llp != NULL) {
		const char *p = llp;

		for (;;) {
			size_t k = strcspn(p, ":;");

			di_fmt(cand, sizeof(cand), "%.*s%s%s", (int)k, p,
			       k ? "/" : "./", name);
			di_append(l->lib_search, sizeof(l->lib_search), "%s%s",
			       l->lib_search[0] ? ", " : "", cand);
			if (access(cand, F_OK) == 0) {
				di_fmt(l->lib_path, sizeof(l->lib_path), "%s", cand);
				di_fmt(l->lib_how, sizeof(l->lib_how),
				       "found in %.*s, from LD_LIBRARY_PATH",
				       (int)k, k ? p : ".");
				return true;
			}
			if (p[k] == '\0')
				break;
			p += k + 1;
		}
	}

	di_append(l->lib_search, sizeof(l->lib_search), "%s/etc/ld.so.cache",
	       l->lib_search[0] ? ", " : "");
	if (ldcache_lookup(name, l->lib_path, sizeof(l->lib_path))) {
		di_fmt(l->lib_how, sizeof(l->lib_how),
		       "found through /etc/ld.so.cache");
		return true;
	}

	n = system_dirs(dirs);
	for (i = 0; i < n; i++) {
		di_fmt(cand, sizeof(cand), "%s/%s", dirs[i], name);
		di_append(l->lib_search, sizeof(l->lib_search), ", %s", cand);
		if (access(cand, F_OK) == 0) {
			di_fmt(l->lib_path, sizeof(l->lib_path), "%s", cand);
			di_fmt(l->lib_how, sizeof(l->lib_how),
			       "found in the system directory %s", dirs[i]);
			return true;
		}
	}
	di_fmt(l->why, sizeof(l->why),
	       "library %s not found: looked in LD_LIBRARY_PATH (%s), /etc/ld.so.cache",
	       name, llp ? llp : "not set");
	for (i = 0; i < n; i++)
		di_append(l->why, sizeof(l->why), ", %s", dirs[i]);
	return false;
}

/*
 * Finds @l's library, dlopens it (RTLD_LAZY | RTLD_LOCAL: datinfo only
 * looks) and checks that it exports dat_provider_init. Sets @l->step to the
 * step that failed, with @l->why, or leaves it at DI_STEP_OPEN.
 */
void di_check_library(struct di_line *l)
{
	void *h;

	l->lib_checked = true;
	if (!find_library(l)) {
		l->step = DI_STEP_FIND;
		return;
	}
	dlerror();
	h = dlopen(l->lib_path, RTLD_LAZY | RTLD_LOCAL);
	if (h == NULL) {
		const char *err = dlerror();

		l->step = DI_STEP_DLOPEN;
		di_fmt(l->why, sizeof(l->why), "library %s does not load: %s",
		       l->lib_path, err ? err : "unknown dlopen error");
		return;
	}
	if (dlsym(h, DAT_PROVIDER_INIT_FUNC_STR) == NULL) {
		l->step = DI_STEP_SYMBOL;
		di_fmt(l->why, sizeof(l->why),
		       "library %s has no %s: it is not a DAT provider",
		       l->lib_path, DAT_PROVIDER_INIT_FUNC_STR);
	} else {
		l->step = DI_STEP_OPEN;
	}
	l->has_fini = dlsym(h, DAT_PROVIDER_FINI_FUNC_STR) != NULL;
	dlclose(h);
}

