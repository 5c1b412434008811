/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DAT 1.2: opening and querying IAs, the registry's list and messages,
 * and the calls on any handle (dat12.h).
 *
 * A DAT 1.2 program opens the IAs of the u2.0 lines of dat.conf: it asks
 * for DAT 1.x, and this library asks the DAT 2.0 registry for the same
 * name as u2.0, with the thread safety the program asked for. Both APIs
 * then use one IA, one provider and one engine.
 */
#include <stdio.h>
#include <string.h>

#include "dat12.h"

D12_API DAT_RETURN DAT_API dat_ia_openv(const DAT_NAME_PTR name, DAT_COUNT qlen,
				DAT_EVD_HANDLE *async_evd, DAT_IA_HANDLE *ia,
				DAT_UINT32 major, DAT_UINT32 minor,
				DAT_BOOLEAN thread_safety)
{
	static int said;
	const char *missing = d12_missing();

	(void)minor;	/* any DAT 1.x program is served the same way */
	if (missing != NULL) {
		if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
			fprintf(stderr, "libdat.so.1: the DAT 2.0 registry %s has "
				"no %s, which DAT 1.2 programs need: point "
				"LD_LIBRARY_PATH at a complete libdat2.so.2\n",
				d12_registry_path(), missing);
		return D12_ERR(DAT_INTERNAL_ERROR, DAT_NO_SUBTYPE);
	}
	if (major != DAT_VERSION_MAJOR)
		return D12_ERR(DAT_PROVIDER_NOT_FOUND, DAT_MAJOR_NOT_FOUND);
	return d12_ret(d2.ia_openv(name, qlen, async_evd, ia, D2_VERSION_MAJOR,
				   D2_VERSION_MINOR, (D2_BOOLEAN)thread_safety));
}

D12_API DAT_RETURN DAT_API dat_ia_close(DAT_IA_HANDLE ia, DAT_CLOSE_FLAGS flags)
{
	return d12_ret(d2.ia_close(ia, (D2_CLOSE_FLAGS)flags));
}

/*
 * The masks: 2.0 inserts fields, so its bits are not 1.2's. Whatever a
 * 1.2 caller asks for, all of the 2.0 attributes are asked for and the
 * 1.2 ones filled from them (DAT leaves unrequested fields undefined).
 */
D12_API DAT_RETURN DAT_API dat_ia_query(DAT_IA_HANDLE ia, DAT_EVD_HANDLE *async_evd,
				DAT_IA_ATTR_MASK ia_mask, DAT_IA_ATTR *ia_attr,
				DAT_PROVIDER_ATTR_MASK provider_mask,
				DAT_PROVIDER_ATTR *provider_attr)
{
	D2_IA_ATTR a;
	D2_PROVIDER_ATTR p;
	D2_RETURN r;

	r = d2.ia_query(ia, async_evd, ia_mask ? D2_IA_FIELD_ALL : 0,
			ia_attr != NULL ? &a : NULL,
			provider_mask ? D2_PROVIDER_FIELD_ALL : 0,
			provider_attr != NULL ? &p : NULL);
	if (r != D2_SUCCESS)
		return d12_ret(r);
	if (ia_attr != NULL)
		d12_ia_attr(&a, ia_attr);
	if (provider_attr != NULL)
		d12_provider_attr(&p, provider_attr);
	return DAT_SUCCESS;
}

D12_API DAT_RETURN DAT_API dat_set_consumer_context(DAT_HANDLE h, DAT_CONTEXT c)
{
	D2_CONTEXT c2;

	c2.as_64 = c.as_64;
	return d12_ret(d2.set_consumer_context(h, c2));
}

D12_API DAT_RETURN DAT_API dat_get_consumer_context(DAT_HANDLE h, DAT_CONTEXT *c)
{
	D2_CONTEXT c2;
	D2_RETURN r;

	if (c == NULL)
		return d12_ret(d2.get_consumer_context(h, NULL));
	r = d2.get_consumer_context(h, &c2);
	if (r == D2_SUCCESS)
		c->as_64 = c2.as_64;
	return d12_ret(r);
}

/* The handle types 1.2 has are numbered as in 2.0 (2.0 adds CSP after). */
D12_API DAT_RETURN DAT_API dat_get_handle_type(DAT_HANDLE h, DAT_HANDLE_TYPE *type)
{
	D2_HANDLE_TYPE t;
	D2_RETURN r;

	if (type == NULL)
		return d12_ret(d2.get_handle_type(h, NULL));
	r = d2.get_handle_type(h, &t);
	if (r == D2_SUCCESS)
		*type = (DAT_HANDLE_TYPE)t;
	return d12_ret(r);
}

/*
 * The DAT 2.0 registry's entries, each as a DAT 1.2 IA: through this
 * library, a u2.0 line serves DAT 1.2 programs, which open it as 1.2.
 * DAT_PROVIDER_INFO has the same layout in both APIs.
 */
D12_API DAT_RETURN DAT_API dat_registry_list_providers(DAT_COUNT max, DAT_COUNT *count,
					       DAT_PROVIDER_INFO *list[])
{
	D2_RETURN r;
	DAT_COUNT i;

	_Static_assert(sizeof(DAT_PROVIDER_INFO) == sizeof(D2_PROVIDER_INFO),
		       "DAT_PROVIDER_INFO: one layout in both APIs");
	r = d2.registry_list_providers(max, count, (D2_PROVIDER_INFO **)list);
	if (r != D2_SUCCESS)
		return d12_ret(r);
	for (i = 0; list != NULL && count != NULL && i < *count && i < max; i++) {
		if (list[i] == NULL)
			continue;
		list[i]->dapl_version_major = DAT_VERSION_MAJOR;
		list[i]->dapl_version_minor = DAT_VERSION_MINOR;
	}
	return DAT_SUCCESS;
}

D12_API DAT_RETURN DAT_API dat_strerror(DAT_RETURN value, const char **major,
				const char **minor)
{
	D2_RETURN v = (D2_RETURN)((value & (DAT_CLASS_ERROR | DAT_CLASS_WARNING)) |
				  d12_sub20((DAT_RETURN_SUBTYPE)DAT_GET_SUBTYPE(value)));

	/* The one type whose number differs (see d12_ret). */
	if (DAT_GET_TYPE(value) == DAT_NOT_IMPLEMENTED)
		v |= D2_NOT_IMPLEMENTED;
	else
		v |= DAT_GET_TYPE(value);
	return d12_ret(d2.strerror(v, major, minor));
}
