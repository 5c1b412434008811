/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The registry proper: opening and closing IAs, and the calls providers make
 * to register themselves. Everything else a consumer calls is a dispatch
 * through the provider's table (api.c).
 *
 * Differences from OFED's registry, each where consumers suffered:
 *   - a failed dat_ia_open undoes what it did: the provider's reference is
 *     dropped and, if it was the last, dat_provider_fini runs and the
 *     library is unloaded (OFED leaks the reference and keeps the library);
 *   - dat_ia_close finds the registry entry by the key the IA was opened
 *     under, not by what the provider's ia_query reports at close (OFED
 *     returns DAT_PROVIDER_NOT_FOUND and never calls fini when those
 *     disagree; we warn and close properly);
 *   - DAT_PROVIDER_NOT_FOUND carries the subtype that says what did not
 *     match, and the debug output says which dat.conf line came closest.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dbg.h"
#include "registry.h"
#include "sr.h"

DREG_EXPORT DAT_RETURN DAT_API
dat_registry_add_provider(const DAT_PROVIDER *provider,
			  const DAT_PROVIDER_INFO *info)
{
	DAT_RETURN ret;

	if (provider == NULL)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	if (info == NULL)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	dreg_init();

	ret = dreg_dr_insert(provider, info);
	dreg_dbg(ret == DAT_SUCCESS ? DREG_DBG_DR : DREG_DBG_ERROR,
		 "add provider %.*s u%u.%u %s: %s",
		 DAT_NAME_MAX_LENGTH, info->ia_name, info->dapl_version_major,
		 info->dapl_version_minor,
		 info->is_thread_safe ? "threadsafe" : "nonthreadsafe",
		 dreg_ret_name(ret));
	return ret;
}

DREG_EXPORT DAT_RETURN DAT_API
dat_registry_remove_provider(const DAT_PROVIDER *provider,
			     const DAT_PROVIDER_INFO *info)
{
	DAT_RETURN ret;

	if (provider == NULL)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	if (info == NULL)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	dreg_init();

	ret = dreg_dr_remove(info);
	dreg_dbg(ret == DAT_SUCCESS ? DREG_DBG_DR : DREG_DBG_ERROR,
		 "remove provider %.*s: %s", DAT_NAME_MAX_LENGTH,
		 info->ia_name, dreg_ret_name(ret));
	return ret;
}

DREG_EXPORT DAT_RETURN DAT_API
dat_ia_openv(const DAT_NAME_PTR name, DAT_COUNT async_event_qlen,
	     DAT_EVD_HANDLE *async_event_handle, DAT_IA_HANDLE *ia_handle,
	     DAT_UINT32 dapl_major, DAT_UINT32 dapl_minor,
	     DAT_BOOLEAN thread_safety)
{
	const DAT_PROVIDER *provider;
	DAT_PROVIDER_INFO info;
	DAT_IA_HANDLE ia = NULL, handle;
	DAT_IA_ATTR ia_attr;
	DAT_RETURN ret;
	size_t len;

	if (name == NULL)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	len = strnlen(name, DAT_NAME_MAX_LENGTH);
	if (len >= DAT_NAME_MAX_LENGTH)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	if (ia_handle == NULL)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	dreg_init();

	memset(&info, 0, sizeof(info));
	memcpy(info.ia_name, name, len + 1);
	info.dapl_version_major = dapl_major;
	info.dapl_version_minor = dapl_minor;
	info.is_thread_safe = thread_safety;
	dreg_dbg(DREG_DBG_CONSUMER_API, "dat_ia_open(%s, u%u.%u, %s)", name,
		 dapl_major, dapl_minor,
		 thread_safety ? "threadsafe" : "nonthreadsafe");

	/*
	 * As in OFED, a provider may have registered itself without dat.conf,
	 * so a static registry miss is not yet an error.
	 */
	bool loaded = dreg_sr_open(&info) == DAT_SUCCESS;

	ret = dreg_dr_open(&info, &provider);
	if (ret != DAT_SUCCESS) {
		ret = dreg_sr_explain(&info);
		if (loaded)
			dreg_sr_close(&info);
		return ret;
	}

	if (provider->ia_open_func == NULL) {
		ret = DAT_ERROR(DAT_NOT_IMPLEMENTED, 0);
		goto undo;
	}
	ret = provider->ia_open_func(name, async_event_qlen, async_event_handle,
				     &ia);
	if (ret != DAT_SUCCESS) {
		dreg_dbg(DREG_DBG_ERROR, "IA %s: the provider's ia_open failed: %s",
			 name, dreg_ret_name(ret));
		goto undo;
	}

	handle = dreg_ia_insert(ia, &info);
	if (handle == DAT_HANDLE_NULL) {
		DAT_HANDLE_TO_PROVIDER(ia)->ia_close_func(ia, DAT_CLOSE_ABRUPT_FLAG);
		ret = DAT_ERROR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
		goto undo;
	}
	*ia_handle = handle;

	/* OFED asks this at every open; providers expect the call. */
	if (dat_ia_query(handle, NULL, DAT_IA_ALL, &ia_attr, 0, NULL) ==
	    DAT_SUCCESS && ia_attr.extension_supported)
		dreg_dbg(DREG_DBG_CONSUMER_API, "IA %s: extension %d version %d",
			 name, (int)ia_attr.extension_supported,
			 (int)ia_attr.extension_version);
	return DAT_SUCCESS;

undo:
	dreg_dr_close(&info);
	if (loaded)
		dreg_sr_close(&info);
	return ret;
}

DREG_EXPORT DAT_RETURN DAT_API
dat_ia_close(DAT_IA_HANDLE ia_handle, DAT_CLOSE_FLAGS ia_flags)
{
	DAT_PROVIDER_ATTR attr;
	DAT_PROVIDER_INFO info;
	DAT_PROVIDER *provider;
	DAT_IA_HANDLE ia;
	DAT_RETURN ret;

	dreg_init();
	if (dats_get_ia_handle(ia_handle, &ia) != DAT_SUCCESS ||
	    !dreg_ia_is_index(ia_handle))
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	provider = DAT_HANDLE_TO_PROVIDER(ia);
	dreg_dbg(DREG_DBG_CONSUMER_API, "dat_ia_close(%s)", provider->device_name);

	/* Asked before the close, as OFED does, to compare with the key. */
	if (provider->ia_query_func == NULL || provider->ia_close_func == NULL)
		return DAT_ERROR(DAT_NOT_IMPLEMENTED, 0);
	ret = provider->ia_query_func(ia, NULL, 0, NULL,
				      DAT_PROVIDER_FIELD_ALL, &attr);
	if (ret != DAT_SUCCESS) {
		dreg_dbg(DREG_DBG_ERROR, "IA %s: ia_query at close failed: %s",
			 provider->device_name, dreg_ret_name(ret));
		return ret;
	}

	ret = provider->ia_close_func(ia, ia_flags);
	if (ret != DAT_SUCCESS)
		return ret;

	if (dreg_ia_remove(ia_handle, &info) != DAT_SUCCESS)
		return DAT_SUCCESS;	/* closed by another thread meanwhile */

	if (attr.dapl_version_major != info.dapl_version_major ||
	    attr.dapl_version_minor != info.dapl_version_minor ||
	    attr.is_thread_safe != info.is_thread_safe)
		dreg_dbg(DREG_DBG_ERROR,
			 "IA %s was opened as u%u.%u %s but its provider reports u%u.%u %s: OFED's registry would fail this close",
			 info.ia_name, info.dapl_version_major,
			 info.dapl_version_minor,
			 info.is_thread_safe ? "threadsafe" : "nonthreadsafe",
			 attr.dapl_version_major, attr.dapl_version_minor,
			 attr.is_thread_safe ? "threadsafe" : "nonthreadsafe");

	dreg_dr_close(&info);
	dreg_sr_close(&info);
	return DAT_SUCCESS;
}

DREG_EXPORT DAT_RETURN DAT_API
dat_registry_list_providers(DAT_COUNT max_to_return,
			    DAT_COUNT *entries_returned,
			    DAT_PROVIDER_INFO *(dat_provider_list[]))
{
	dreg_init();
	if (entries_returned == NULL)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (max_to_return != 0 && dat_provider_list == NULL)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);

	/*
	 * The spec has a zero-sized call report how many entries there are
	 * and still fail with DAT_INVALID_PARAMETER; OFED does so too.
	 */
	if (max_to_return <= 0) {
		*entries_returned = dreg_sr_size();
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	}
	return dreg_sr_list(max_to_return, entries_returned, dat_provider_list);
}

/* True when @name is a provider the registry knows, from dat.conf or not. */
static bool known_name(const char *name)
{
	DAT_PROVIDER_INFO info;

	return dreg_sr_has_name(name) || dreg_dr_has_name(name, &info);
}

DREG_EXPORT DAT_RETURN DAT_API
dat_registry_providers_related(const DAT_NAME_PTR name1,
			       const DAT_NAME_PTR name2,
			       DAT_HA_RELATIONSHIP *relationship)
{
	if (name1 == NULL)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	if (name2 == NULL)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (relationship == NULL)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	dreg_init();

	if (!known_name(name1) || !known_name(name2))
		return DAT_ERROR(DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);

	/*
	 * The registry holds no high-availability information of its own:
	 * an IA is related to itself, and for two different IAs only their
	 * providers could tell.
	 */
	*relationship = strcmp(name1, name2) == 0 ? DAT_HA_TRUE : DAT_HA_UNKNOWN;
	return DAT_SUCCESS;
}

/* The key of the provider an IB open/close query addresses, as OFED forms it. */
static void query_key(DAT_PROVIDER_INFO *info, const char *name)
{
	memset(info, 0, sizeof(*info));
	snprintf(info->ia_name, sizeof(info->ia_name), "%s", name);
	info->dapl_version_major = DAT_VERSION_MAJOR;
	info->dapl_version_minor = DAT_VERSION_MINOR;
	info->is_thread_safe = DAT_THREADSAFE;
}

DAT_RETURN dreg_ext_open_query(const char *ia_name, DAT_EXTENDED_OP op,
			       va_list args)
{
	const DAT_PROVIDER *provider;
	DAT_PROVIDER_INFO info;
	DAT_RETURN ret;
	bool loaded;

	dreg_init();
	query_key(&info, ia_name);
	loaded = dreg_sr_open(&info) == DAT_SUCCESS;
	ret = dreg_dr_open(&info, &provider);
	if (ret != DAT_SUCCESS) {
		ret = dreg_sr_explain(&info);
		goto undo_sr;
	}
	if (provider->handle_extendedop_func == NULL) {
		ret = DAT_ERROR(DAT_NOT_IMPLEMENTED, 0);
		goto undo;
	}
	ret = provider->handle_extendedop_func((DAT_HANDLE)(uintptr_t)ia_name,
					       op, args);
	if (ret == DAT_SUCCESS)
		return ret;
undo:
	dreg_dr_close(&info);
undo_sr:
	if (loaded)
		dreg_sr_close(&info);
	return ret;
}

DAT_RETURN dreg_ext_close_query(DAT_HANDLE handle, DAT_EXTENDED_OP op,
				va_list args)
{
	DAT_PROVIDER *provider = DAT_HANDLE_TO_PROVIDER(handle);
	DAT_PROVIDER_INFO info;
	DAT_RETURN ret;

	if (provider == NULL || provider->handle_extendedop_func == NULL)
		return DAT_ERROR(DAT_NOT_IMPLEMENTED, 0);
	/* The name is copied first: the close may free what it points to. */
	query_key(&info, provider->device_name);
	ret = provider->handle_extendedop_func(handle, op, args);
	if (ret == DAT_SUCCESS) {
		dreg_dr_close(&info);
		dreg_sr_close(&info);
	}
	return ret;
}
