/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The library's two exported functions and the DAT_PROVIDER table.
 *
 * A registry (ours or OFED's) loads libdaplsoft.so.2 for a dat.conf entry
 * and calls dat_provider_init(info, ia_params) once per IA name it loads
 * the library for, and dat_provider_fini(info) once per name at the end.
 * The same library may be listed under several names with different
 * ia_params ("sd-lo ... "lo"", "sd-eth ... "eth0""), so init keeps one
 * registration per key: the ia_params, and a copy of the provider table
 * whose device_name is that IA name. The copy is needed because OFED's
 * dat_ia_close rebuilds the registry key from provider->device_name: with
 * one shared table, closing an IA of the second name would look up the
 * first. Every object points at its IA's copy (struct sd_obj).
 *
 * A registration lives from init to fini, and longer while IAs opened
 * through it are still open (a registry calling fini too early would
 * otherwise leave their objects pointing at a freed table).
 */
#include <stdlib.h>
#include <string.h>

#include "softdapl.h"
#include "entry.h"
#include "ext.h"

SD_EXPORT void DAT_API dat_provider_init(const DAT_PROVIDER_INFO *info,
					 const char *ia_params);
SD_EXPORT void DAT_API dat_provider_fini(const DAT_PROVIDER_INFO *info);

/*
 * The table, built module by module: adding an entry point is one token
 * in its module's list. Slots left out are NULL, which both registries
 * answer with DAT_NOT_IMPLEMENTED.
 */
#define SD_SLOTS_IA(X) \
	X(ia_open) X(ia_query) X(ia_close) X(ia_ha_related) \
	X(set_consumer_context) X(get_consumer_context) X(get_handle_type)

#define SD_SLOTS_MEM(X) \
	X(pz_create) X(pz_query) X(pz_free) \
	X(lmr_create) X(lmr_query) X(lmr_free) \
	X(lmr_sync_rdma_read) X(lmr_sync_rdma_write) \
	X(rmr_create) X(rmr_create_for_ep) X(rmr_query) X(rmr_bind) \
	X(rmr_free)

#define SD_SLOTS_EVD(X) \
	X(evd_create) X(evd_query) X(evd_modify_cno) X(evd_enable) \
	X(evd_disable) X(evd_wait) X(evd_resize) X(evd_post_se) \
	X(evd_dequeue) X(evd_free) X(evd_set_unwaitable) \
	X(evd_clear_unwaitable)

#define SD_SLOTS_CNO(X) \
	X(cno_create) X(cno_fd_create) X(cno_modify_agent) X(cno_query) \
	X(cno_free) X(cno_wait) X(cno_trigger)

/* EP, PSP, RSP, CR, CSP, SRQ and the posts (ep.c and the files after it). */
#define SD_SLOTS_EP(X) \
	X(ep_query) X(ep_modify) \
	X(ep_connect) X(ep_dup_connect) X(ep_common_connect) \
	X(ep_disconnect) X(ep_reset) X(ep_get_status) X(ep_free) \
	X(ep_recv_query) X(ep_set_watermark) \
	X(ep_post_send) X(ep_post_recv) X(ep_post_rdma_read) \
	X(ep_post_rdma_write) X(ep_post_send_with_invalidate) \
	X(ep_post_rdma_read_to_rmr) \
	X(psp_query) \
	X(rsp_create) X(rsp_query) X(rsp_free) \
	X(csp_create) X(csp_query) X(csp_free) \
	X(cr_query) X(cr_accept) X(cr_reject) X(cr_handoff) \
	X(srq_create) X(srq_free) X(srq_post_recv) X(srq_query) \
	X(srq_resize) X(srq_set_lw)

/*
 * The IB extensions (ext.h): the extension op, and the slots it routes
 * first. A UD service type makes a UD EP (ud.c), anything else goes to
 * sd_ep_create or sd_ep_create_with_srq; every PSP also listens for UD requests on its port's UDP
 * side (udcm.c), then psp.c does the rest.
 */
#define SD_SLOTS_EXT(X) \
	X(handle_extendedop, sd_handle_extendedop) \
	X(ep_create, sd_ext_ep_create) \
	X(ep_create_with_srq, sd_ext_ep_create_with_srq) \
	X(psp_create, sd_ext_psp_create) \
	X(psp_create_any, sd_ext_psp_create_any) \
	X(psp_free, sd_ext_psp_free)

#define SD_SLOT(slot) .slot##_func = sd_##slot,
#define SD_SLOT_FN(slot, fn) .slot##_func = fn,

DAT_PROVIDER sd_provider = {
	.device_name = SD_PROVIDER_NAME,
	SD_SLOTS_IA(SD_SLOT)
	SD_SLOTS_MEM(SD_SLOT)
	SD_SLOTS_EVD(SD_SLOT)
	SD_SLOTS_CNO(SD_SLOT)
	SD_SLOTS_EP(SD_SLOT)
	SD_SLOTS_EXT(SD_SLOT_FN)
};

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

SD_EXPORT void DAT_API dat_provider_init(const DAT_PROVIDER_INFO *info,
					 const char *ia_params)
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
	p->table = sd_provider;
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

SD_EXPORT void DAT_API dat_provider_fini(const DAT_PROVIDER_INFO *info)
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
	else	/* sd_provider_close frees it with the last IA */
		sd_log("IA %s: dat_provider_fini with %u IAs still open; their table is kept",
		       p->info.ia_name, p->open_ias);
	pthread_mutex_unlock(&prov_lock);
}

DAT_RETURN sd_provider_open(const char *name, DAT_PROVIDER **table,
			    char **ia_params)
{
	struct sd_list *pos;
	DAT_RETURN ret = SD_ERR(DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);

	pthread_mutex_lock(&prov_lock);
	sd_list_for_each(pos, &provs) {
		struct sd_prov *p = sd_container_of(pos, struct sd_prov, node);

		if (strncmp(p->info.ia_name, name, DAT_NAME_MAX_LENGTH) != 0)
			continue;
		*ia_params = strdup(p->params);
		if (*ia_params == NULL) {
			ret = SD_ERR(DAT_INSUFFICIENT_RESOURCES,
				     DAT_RESOURCE_MEMORY);
			break;
		}
		p->open_ias++;
		*table = &p->table;
		ret = DAT_SUCCESS;
		break;
	}
	pthread_mutex_unlock(&prov_lock);
	return ret;
}

void sd_provider_close(DAT_PROVIDER *table)
{
	struct sd_prov *p = sd_container_of(table, struct sd_prov, table);

	pthread_mutex_lock(&prov_lock);
	/* Freed here when fini came first (it left it unlisted). */
	if (--p->open_ias == 0 && p->inits == 0)
		prov_free(p);
	pthread_mutex_unlock(&prov_lock);
}
