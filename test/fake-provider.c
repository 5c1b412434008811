/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fake DAT provider that the registry tests load through dat.conf. It is
 * built once per behaviour (FAKE_VARIANT_<name>, see the Makefile):
 *
 *   good        registers, opens IAs, answers every call
 *   noinit      exports no dat_provider_init: not a provider at all
 *   nofini      exports no dat_provider_fini
 *   noregister  its init does not call dat_registry_add_provider
 *   badversion  reports API 1.2 in ia_query at close, as a buggy provider
 *   openfail    every ia_open fails with DAT_INSUFFICIENT_RESOURCES
 *
 * Like OFED's providers it does not link against libdat2: the registry that
 * loads it supplies dat_registry_add_provider and dats_get_ia_handle.
 *
 * Every slot of its DAT_PROVIDER answers with fake_code(slot), so a test can
 * tell that an entry point reached the right slot. The slots that take an
 * IA answer DAT_INVALID_HANDLE unless handed this provider's own IA, which
 * checks that the registry mapped the consumer's small integer back. The
 * generic slots are one function type cast to the others: the x86-64 calling
 * convention makes that harmless for a callee that ignores its arguments,
 * and this is a test double, never a provider anyone uses.
 *
 * Each init, fini, open and close appends a line to $FAKE_LOG when set.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dat2/udat.h>
#include <dat2/dat_registry.h>

#include "fake-provider.h"

#if defined(FAKE_VARIANT_noinit) || defined(FAKE_VARIANT_nofini) || \
    defined(FAKE_VARIANT_noregister) || defined(FAKE_VARIANT_badversion) || \
    defined(FAKE_VARIANT_openfail)
#else
#define FAKE_VARIANT_good 1
#endif

struct fake_obj {
	DAT_PROVIDER	*provider;	/* first word, as DAT_HANDLE_TO_PROVIDER wants */
	int		 kind;
};

static DAT_PROVIDER fake_provider;
static struct fake_obj fake_ia = { &fake_provider, 1 };
static struct fake_obj fake_object = { &fake_provider, 2 };
static DAT_PROVIDER_INFO fake_info;

__attribute__((format(printf, 1, 2)))
static void fake_log(const char *fmt, ...)
{
	const char *path = getenv("FAKE_LOG");
	va_list ap;
	FILE *f;

	if (path == NULL || (f = fopen(path, "a")) == NULL)
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

/* Generic slots: one per index, each answering its own code. */
#define SLOT(n) static DAT_RETURN slot_##n(DAT_HANDLE h) \
	{ return h == &fake_object || h == &fake_ia ? \
		 fake_code(n) : DAT_ERROR(DAT_INVALID_HANDLE, 0); }
#define IA_SLOT(n) static DAT_RETURN ia_slot_##n(DAT_IA_HANDLE ia) \
	{ return ia == &fake_ia ? fake_code(n) : \
		 DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA); }
FAKE_SLOTS(SLOT, IA_SLOT)
#undef SLOT
#undef IA_SLOT

static DAT_RETURN DAT_API
fake_ia_open(const DAT_NAME_PTR name, DAT_COUNT qlen, DAT_EVD_HANDLE *async,
	     DAT_IA_HANDLE *ia)
{
	fake_log("open %s", name);
#ifdef FAKE_VARIANT_openfail
	return DAT_ERROR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
#else
	if (async != NULL && *async == DAT_HANDLE_NULL)
		*async = &fake_object;
	*ia = &fake_ia;
	return DAT_SUCCESS;
#endif
}

static DAT_RETURN DAT_API
fake_ia_close(DAT_IA_HANDLE ia, DAT_CLOSE_FLAGS flags)
{
	if (ia != &fake_ia)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	fake_log("close %s", fake_info.ia_name);
	return DAT_SUCCESS;
}

/*
 * Answers with the attributes the registry looks at; reports its own IA as
 * the index the registry gave it, through dats_get_ia_handle, as OFED's
 * providers do.
 */
static DAT_RETURN DAT_API
fake_ia_query(DAT_IA_HANDLE ia, DAT_EVD_HANDLE *async, DAT_IA_ATTR_MASK amask,
	      DAT_IA_ATTR *attr, DAT_PROVIDER_ATTR_MASK pmask,
	      DAT_PROVIDER_ATTR *pattr)
{
	if (ia != &fake_ia)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	if (async != NULL)
		*async = &fake_object;
	if (attr != NULL) {
		memset(attr, 0, sizeof(*attr));
		snprintf(attr->adapter_name, sizeof(attr->adapter_name), "fake");
		attr->extension_supported = DAT_EXTENSION_NONE;
	}
	if (pattr != NULL) {
		memset(pattr, 0, sizeof(*pattr));
		snprintf(pattr->provider_name, sizeof(pattr->provider_name),
			 "fake");
		pattr->dapl_version_major = fake_info.dapl_version_major;
		pattr->dapl_version_minor = fake_info.dapl_version_minor;
		pattr->is_thread_safe = fake_info.is_thread_safe;
#ifdef FAKE_VARIANT_badversion
		pattr->dapl_version_major = 1;
		pattr->dapl_version_minor = 2;
#endif
	}
	return DAT_SUCCESS;
}

/* pz_query reports its IA: the consumer must see the index, not &fake_ia. */
static DAT_RETURN DAT_API
fake_pz_query(DAT_PZ_HANDLE pz, DAT_PZ_PARAM_MASK mask, DAT_PZ_PARAM *param)
{
	DAT_IA_HANDLE index = DAT_HANDLE_NULL;

	if (pz != &fake_object)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	if (dats_get_ia_handle(&fake_ia, &index) != DAT_SUCCESS)
		return DAT_ERROR(DAT_INTERNAL_ERROR, 0);
	param->ia_handle = index;
	return DAT_SUCCESS;
}

/* pz_create hands out the shared fake object used for all other slots. */
static DAT_RETURN DAT_API
fake_pz_create(DAT_IA_HANDLE ia, DAT_PZ_HANDLE *pz)
{
	if (ia != &fake_ia)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	*pz = &fake_object;
	return DAT_SUCCESS;
}

__attribute__((unused)) static void fake_fill(void)
{
	void **slot = (void **)&fake_provider.ia_open_func;

#define SLOT(n) slot[n] = (void *)slot_##n;
#define IA_SLOT(n) slot[n] = (void *)ia_slot_##n;
	FAKE_SLOTS(SLOT, IA_SLOT)
#undef SLOT
#undef IA_SLOT
	fake_provider.device_name = fake_info.ia_name;
	fake_provider.extension = NULL;
	fake_provider.ia_open_func = fake_ia_open;
	fake_provider.ia_close_func = fake_ia_close;
	fake_provider.ia_query_func = fake_ia_query;
	fake_provider.pz_create_func = fake_pz_create;
	fake_provider.pz_query_func = fake_pz_query;
}

#ifndef FAKE_VARIANT_noinit
DAT_API void dat_provider_init(const DAT_PROVIDER_INFO *info,
			       const char *ia_params);
DAT_API void dat_provider_init(const DAT_PROVIDER_INFO *info,
			       const char *ia_params)
{
	fake_info = *info;
	fake_fill();
	fake_log("init %s params=%s", info->ia_name, ia_params);
#ifndef FAKE_VARIANT_noregister
	if (dat_registry_add_provider(&fake_provider, info) != DAT_SUCCESS)
		fake_log("add_provider failed");
#endif
}
#endif

#ifndef FAKE_VARIANT_nofini
DAT_API void dat_provider_fini(const DAT_PROVIDER_INFO *info);
DAT_API void dat_provider_fini(const DAT_PROVIDER_INFO *info)
{
	fake_log("fini %s", info->ia_name);
	dat_registry_remove_provider(&fake_provider, info);
}
#endif
