/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The dynamic registry: providers that called dat_registry_add_provider,
 * keyed by name, API major, API minor and thread safety, with a count of the
 * IAs open on each. All fields are guarded by dr_lock.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dbg.h"
#include "sr.h"

struct dr_entry {
	DAT_PROVIDER_INFO	info;	/* the key */
	const DAT_PROVIDER	*provider; /* stays alive while registered */
	unsigned		ref;	/* IAs opened through this entry */
};

static pthread_mutex_t dr_lock = PTHREAD_MUTEX_INITIALIZER;
static struct dr_entry *dr_entries;
static size_t dr_count, dr_cap;

bool dreg_info_equal(const DAT_PROVIDER_INFO *a, const DAT_PROVIDER_INFO *b)
{
	return a->dapl_version_major == b->dapl_version_major &&
	       a->dapl_version_minor == b->dapl_version_minor &&
	       a->is_thread_safe == b->is_thread_safe &&
	       strncmp(a->ia_name, b->ia_name, DAT_NAME_MAX_LENGTH) == 0;
}

/* Caller holds dr_lock. */
static struct dr_entry *dr_find(const DAT_PROVIDER_INFO *info)
{
	size_t i;

	for (i = 0; i < dr_count; i++)
		if (dreg_info_equal(&dr_entries[i].info, info))
			return &dr_entries[i];
	return NULL;
}

DAT_RETURN dreg_dr_insert(const DAT_PROVIDER *provider,
			  const DAT_PROVIDER_INFO *info)
{
	DAT_RETURN ret = DAT_SUCCESS;
	struct dr_entry *e;

	pthread_mutex_lock(&dr_lock);
	if (dr_find(info) != NULL) {
		ret = DAT_ERROR(DAT_PROVIDER_ALREADY_REGISTERED, 0);
		goto out;
	}
	if (dr_count == dr_cap) {
		size_t ncap = dr_cap ? dr_cap * 2 : 8;

		e = realloc(dr_entries, ncap * sizeof(*e));
		if (e == NULL) {
			ret = DAT_ERROR(DAT_INSUFFICIENT_RESOURCES,
					DAT_RESOURCE_MEMORY);
			goto out;
		}
		dr_entries = e;
		dr_cap = ncap;
	}
	e = &dr_entries[dr_count++];
	memset(e, 0, sizeof(*e));
	e->info = *info;
	e->info.ia_name[DAT_NAME_MAX_LENGTH - 1] = '\0';
	e->provider = provider;
out:
	pthread_mutex_unlock(&dr_lock);
	return ret;
}

DAT_RETURN dreg_dr_remove(const DAT_PROVIDER_INFO *info)
{
	DAT_RETURN ret = DAT_SUCCESS;
	struct dr_entry *e;

	pthread_mutex_lock(&dr_lock);
	e = dr_find(info);
	if (e == NULL)
		ret = DAT_ERROR(DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);
	else if (e->ref != 0)
		ret = DAT_ERROR(DAT_PROVIDER_IN_USE, 0);
	else
		*e = dr_entries[--dr_count];
	if (dr_count == 0) {
		free(dr_entries);
		dr_entries = NULL;
		dr_cap = 0;
	}
	pthread_mutex_unlock(&dr_lock);
	return ret;
}

bool dreg_dr_has(const DAT_PROVIDER_INFO *info)
{
	bool has;

	pthread_mutex_lock(&dr_lock);
	has = dr_find(info) != NULL;
	pthread_mutex_unlock(&dr_lock);
	return has;
}

bool dreg_dr_has_name(const char *name, DAT_PROVIDER_INFO *found)
{
	bool has = false;
	size_t i;

	pthread_mutex_lock(&dr_lock);
	for (i = 0; i < dr_count && !has; i++) {
		if (strcmp(dr_entries[i].info.ia_name, name) == 0) {
			*found = dr_entries[i].info;
			has = true;
		}
	}
	pthread_mutex_unlock(&dr_lock);
	return has;
}

DAT_RETURN dreg_dr_open(const DAT_PROVIDER_INFO *info,
			const DAT_PROVIDER **provider)
{
	DAT_RETURN ret = DAT_SUCCESS;
	struct dr_entry *e;

	pthread_mutex_lock(&dr_lock);
	e = dr_find(info);
	if (e == NULL) {
		ret = DAT_ERROR(DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);
	} else {
		e->ref++;
		*provider = e->provider;
	}
	pthread_mutex_unlock(&dr_lock);
	return ret;
}

void dreg_dr_close(const DAT_PROVIDER_INFO *info)
{
	struct dr_entry *e;

	pthread_mutex_lock(&dr_lock);
	e = dr_find(info);
	if (e != NULL && e->ref > 0)
		e->ref--;
	pthread_mutex_unlock(&dr_lock);
}
