/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal interface of libdat2, the registry.
 *
 * Everything declared here is private to the registry unless marked
 * DREG_EXPORT: the library is built with -fvisibility=hidden and a version
 * script, and exports only the DAT API (symbol version DAT_2.0) plus
 * dats_get_ia_handle for providers.
 */
#ifndef DREG_REGISTRY_H
#define DREG_REGISTRY_H

#include <stdarg.h>
#include <stdint.h>

#include <dat2/udat.h>
#include <dat2/dat_registry.h>

/* Marks a definition that belongs to the library's ABI. */
#ifndef DREG_EXPORT
#define DREG_EXPORT __attribute__((visibility("default")))
#endif

/*
 * The failing DAT_RETURN for a type and a subtype (DAT 2.0 section 6.1: the
 * class bits say error). The public headers leave this to implementations.
 */
#ifndef DAT_ERROR
#define DAT_ERROR(type, subtype) \
	((DAT_RETURN)(DAT_CLASS_ERROR | (type) | (subtype)))
#endif

/*
 * No DAT object lives below this address: Linux never maps the first page
 * (vm.mmap_min_addr is at least 4096). A handle below it is therefore NULL
 * or an IA index, never an object pointer, and the entry points reject it
 * where an object is expected instead of dereferencing it. The IA table
 * must keep its indices below this value for the distinction to hold.
 */
#define DREG_HANDLE_MIN ((uintptr_t)4096)

/*
 * Maps an IA index to the provider's IA pointer, or a provider's IA pointer
 * to its index (OFED-NOTES, "IA handles"). Returns DAT_SUCCESS and sets
 * *ia_handle_p, or DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA) for
 * NULL and unknown values, leaving *ia_handle_p alone. Thread safe.
 * Implemented in ia_table.c; exported because OFED's providers call it.
 */
DREG_EXPORT DAT_RETURN DAT_API
dats_get_ia_handle(DAT_IA_HANDLE handle, DAT_IA_HANDLE *ia_handle_p);

/*
 * The two extension operations that need the registry rather than an open
 * IA; dat_extension_op (api.c) routes them here, as OFED's registry does.
 *
 * dreg_ext_open_query serves ops with DAT_OPEN_EXTENSION_BASE set
 * (dat_ib_open_query): it makes sure the provider registered under
 * @ia_name (version 2.0, not thread safe) is loaded and registered, takes
 * a reference on it, and calls that provider's handle_extendedop_func with
 * the name itself as handle, @op, and @args (positioned after the name).
 * On failure it drops the reference again. @ia_name is not NULL.
 *
 * dreg_ext_close_query serves ops with DAT_CLOSE_EXTENSION_BASE set
 * (dat_ib_close_query): @handle is the provider object the open query
 * returned (not NULL, not an index); it calls the handle_extendedop_func
 * of the provider that owns @handle with @handle, @op and @args and, when
 * that succeeds, drops the reference the open query took.
 *
 * Both return the provider's DAT_RETURN, or the registry's own error when
 * the provider cannot be found or the registry is shut down. Implemented
 * with the static and dynamic registries.
 */
DAT_RETURN dreg_ext_open_query(const char *ia_name, DAT_EXTENDED_OP op,
			       va_list args);
DAT_RETURN dreg_ext_close_query(DAT_HANDLE handle, DAT_EXTENDED_OP op,
				va_list args);

/*
 * Names a DAT_RETURN for debug output: "DAT_INVALID_HANDLE" for a type
 * without subtype, "DAT_INVALID_HANDLE:DAT_INVALID_HANDLE_IA" with one, and
 * hexadecimal for parts dat_error.h does not name. The class bits are
 * ignored. The string lives in a per-thread buffer that the next call from
 * the same thread overwrites. Implemented in strerror.c.
 */
const char *dreg_ret_name(DAT_RETURN ret);

#endif
