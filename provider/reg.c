/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The registrations of the provider table, one per key dat_provider_init
 * was called with (provider.c says why there is one per IA name), and the
 * lookup dat_ia_open and dat_ib_open_query make in them (sd_reg_open).
 *
 * A registration lives from init to fini, and longer while IAs opened
 * through it are still open (a registry calling fini too early would
 * otherwise leave their objects pointing at a freed table).
 *
 * Layer 1: the table is passed in by dat_provider_init (provider.c), so
 * nothing here names the entry points.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ia.h"
#include "trace.h"
#include "util.h"

/* One registration: a key dat_provider_init was called with. */
struct sd_prov {
	DAT_PROVIDER		table;		/* const; device_name = info.ia_name */
	DAT_PROVIDER_INFO	info;		/* const; the registry key */
	char			*params;	/* const; ia_params, "" when NULL */
	struct sd_list		node;		/* prov_lock; in provs while registered */
	unsigned		inits;		/* prov_lock; inits not yet undone by fini */
	unsigned		open_ias;	/* prov_lock; IAs opened through it */
};

static pthread_mutex_t prov_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sd_list provs = { &provs, &provs };	/* prov_lock */

static bool same_key(const DAT_PROVIDER_INFO *a, const DAT_PROVIDER_INFO *b)
{
	return strncmp(a->ia_name, b->ia_name, DAT_NAME_MAX_LENGTH) == 0 &&
	       a->dapl_version_major == b->dapl_version_major &&
	       a->dapl_version_minor == b->dapl_version_minor &&
	       a->is_thread_safe == b->is_thread_safe;
}

/* The registration of key @info; prov_lock held. */
static struct sd_prov *find_key(const DAT_PROVIDER_INFO *info)
{
	struct sd_list *pos;

	sd_list_for_each(pos, &provs) {
		struct sd_prov *p = sd_container_of(pos, struct sd_prov, node);

		if (same_key(&p->info, info))
			return p;
	}
	return NULL;
}

static void prov_free(struct sd_prov *p)
{
	free(p->params);
	free(p);
}

void sd_reg_add(const DAT_PROVIDER_INFO *info, const char *ia_params,
		const DAT_PROVIDER *table)
{
	struct sd_prov *p;
	DAT_RETURN ret;

	if (info == NULL)
		return;
	pthread_mutex_lock(&prov_lock);
	p = find_key(info);
	if (p != NULL) {
		/* Registered already: the registry keeps the first. */
		p->inits++;
		pthread_mutex_unlock(&prov_lock);
		return;
	}

	p = calloc(1, sizeof(*p));
	if (p == NULL || (p->params = strdup(ia_params ? ia_params : "")) == NULL) {
		sd_log("cannot register IA %.*s: out of memory",
		       DAT_NAME_MAX_LENGTH, info->ia_name);
		free(p);
		pthread_mutex_unlock(&prov_lock);
		return;
	}
	p->info = *info;
	p->info.ia_name[DAT_NAME_MAX_LENGTH - 1] = '\0';
	p->table = *table;
	p->table.device_name = p->info.ia_name;
	p->inits = 1;
	if (info->dapl_version_major != 2 || info->dapl_version_minor != 0 ||
	    info->is_thread_safe != DAT_FALSE)
		sd_log("IA %s is registered as u%u.%u %s, but softdapl implements u2.0 nonthreadsafe: OFED's dat_ia_close will refuse it; write u2.0 nonthreadsafe in its dat.conf line",
		       p->info.ia_name, info->dapl_version_major,
		       info->dapl_version_minor,
		       info->is_thread_safe ? "threadsafe" : "nonthreadsafe");

	/* As in fini, the registry is called under prov_lock. */
	ret = dat_registry_add_provider(&p->table, &p->info);
	if (ret != DAT_SUCCESS) {
		sd_log("IA %s: dat_registry_add_provider failed: %s; the IA "
		       "cannot be opened", p->info.ia_name,
		       sd_trace_ret_name(ret));
		prov_free(p);
	} else {
		sd_list_add_tail(&provs, &p->node);
		sd_dbg("IA %s registered, ia_params \"%s\"", p->info.ia_name,
		       p->params);
	}
	pthread_mutex_unlock(&prov_lock);
}

void sd_reg_remove(const DAT_PROVIDER_INFO *info)
{
	struct sd_prov *p;

	if (info == NULL)
		return;
	pthread_mutex_lock(&prov_lock);
	p = find_key(info);
	if (p == NULL || --p->inits > 0) {
		pthread_mutex_unlock(&prov_lock);
		return;
	}
	/*
	 * Neither registry holds a lock of its own while it calls into a
	 * provider's ia_open, so calling it under prov_lock cannot deadlock.
	 */
	dat_registry_remove_provider(&p->table, &p->info);
	sd_list_del(&p->node);
	sd_dbg("IA %s unregistered", p->info.ia_name);
	if (p->open_ias == 0)
		prov_free(p);
	else	/* sd_reg_close frees it with the last IA */
		sd_log("IA %s: dat_provider_fini with %u IAs still open; their table is kept",
		       p->info.ia_name, p->open_ias);
	pthread_mutex_unlock(&prov_lock);
}

int sd_reg_open(const char *name, DAT_PROVIDER **table, char **ia_params)
{
	struct sd_list *pos;
	int ret = -ENOENT;

	pthread_mutex_lock(&prov_lock);
	sd_list_for_each(pos, &provs) {
		struct sd_prov *p = sd_container_of(pos, struct sd_prov, node);

		if (strncmp(p->info.ia_name, name, DAT_NAME_MAX_LENGTH) != 0)
			continue;
		*ia_params = strdup(p->params);
		if (*ia_params == NULL) {
			ret = -ENOMEM;
			break;
		}
		p->open_ias++;
		*table = &p->table;
		ret = 0;
		break;
	}
	pthread_mutex_unlock(&prov_lock);
	return ret;
}

void sd_reg_close(DAT_PROVIDER *table)
{
	struct sd_prov *p = sd_container_of(table, struct sd_prov, table);

	pthread_mutex_lock(&prov_lock);
	/* Freed here when fini came first (it left it unlisted). */
	if (--p->open_ias == 0 && p->inits == 0)
		prov_free(p);
	pthread_mutex_unlock(&prov_lock);
}
