/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IA handles as OFED hands them out: the consumer never sees the provider's
 * IA pointer but a small index into this table (the first IA is 1; 0 is
 * DAT_HANDLE_NULL). Every IA-taking entry point maps the index back, and
 * providers call dats_get_ia_handle with their own IA pointer to get the
 * index they must report in query results. All fields are guarded by
 * ia_lock; the table only grows, by IA_STEP slots at a time.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "dbg.h"
#include "registry.h"
#include "sr.h"

#define IA_STEP 64

struct ia_slot {
	DAT_IA_HANDLE		ia;	/* the provider's IA; NULL when free */
	DAT_PROVIDER_INFO	info;	/* the key it was opened under */
};

static pthread_mutex_t ia_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ia_slot *ia_slots;
static uintptr_t ia_max;		/* slots allocated */

static uintptr_t to_index(DAT_HANDLE h)
{
	return (uintptr_t)h;
}

DAT_IA_HANDLE dreg_ia_insert(DAT_IA_HANDLE ia, const DAT_PROVIDER_INFO *info)
{
	uintptr_t i;

	pthread_mutex_lock(&ia_lock);
	for (i = 1; i < ia_max; i++)
		if (ia_slots[i].ia == NULL)
			break;
	if (i >= ia_max) {
		struct ia_slot *n;

		/* Indices stay below the lowest object address (registry.h). */
		if (ia_max + IA_STEP > DREG_HANDLE_MIN) {
			pthread_mutex_unlock(&ia_lock);
			return DAT_HANDLE_NULL;
		}
		n = realloc(ia_slots, (ia_max + IA_STEP) * sizeof(*n));

		if (n == NULL) {
			pthread_mutex_unlock(&ia_lock);
			return DAT_HANDLE_NULL;
		}
		for (i = ia_max; i < ia_max + IA_STEP; i++)
			n[i].ia = NULL;
		ia_slots = n;
		i = ia_max ? ia_max : 1;
		ia_max += IA_STEP;
	}
	ia_slots[i].ia = ia;
	ia_slots[i].info = *info;
	pthread_mutex_unlock(&ia_lock);

	dreg_dbg(DREG_DBG_PROVIDER_API, "ia %p is handle %lu",
		 (void *)ia, (unsigned long)i);
	return (DAT_IA_HANDLE)i;
}

DAT_RETURN dreg_ia_remove(DAT_IA_HANDLE handle, DAT_PROVIDER_INFO *info)
{
	uintptr_t i = to_index(handle);
	DAT_RETURN ret = DAT_SUCCESS;

	pthread_mutex_lock(&ia_lock);
	if (i == 0 || i >= ia_max || ia_slots[i].ia == NULL) {
		ret = DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	} else {
		*info = ia_slots[i].info;
		ia_slots[i].ia = NULL;
	}
	pthread_mutex_unlock(&ia_lock);
	return ret;
}

bool dreg_ia_is_index(DAT_HANDLE handle)
{
	uintptr_t i = to_index(handle);
	bool is;

	pthread_mutex_lock(&ia_lock);
	is = i != 0 && i < ia_max && ia_slots[i].ia != NULL;
	pthread_mutex_unlock(&ia_lock);
	return is;
}

/*
 * Maps an index to the provider's IA, or a provider's IA pointer to its
 * index, as OFED's registry does: values below the table size are indices,
 * larger ones are looked up as pointers. NULL and unknown values give
 * DAT_INVALID_HANDLE_IA and leave *ia_handle_p untouched.
 */
DREG_EXPORT DAT_RETURN DAT_API
dats_get_ia_handle(DAT_IA_HANDLE handle, DAT_IA_HANDLE *ia_handle_p)
{
	uintptr_t i = to_index(handle);
	DAT_RETURN ret = DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);

	if (handle == NULL || ia_handle_p == NULL)
		return ret;

	pthread_mutex_lock(&ia_lock);
	if (i < ia_max) {
		if (ia_slots[i].ia != NULL) {
			*ia_handle_p = ia_slots[i].ia;
			ret = DAT_SUCCESS;
		}
	} else {
		uintptr_t j;

		for (j = 1; j < ia_max; j++) {
			if (ia_slots[j].ia == handle) {
				*ia_handle_p = (DAT_IA_HANDLE)j;
				ret = DAT_SUCCESS;
				break;
			}
		}
	}
	pthread_mutex_unlock(&ia_lock);
	return ret;
}
