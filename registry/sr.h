/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The registry's three tables, as the entry points in udat.c use them:
 *
 *   static registry (sr.c)   what dat.conf says, and the provider libraries
 *                            loaded from it (dlopen, dat_provider_init/fini);
 *   dynamic registry (dr.c)  the providers that called
 *                            dat_registry_add_provider, keyed as OFED keys
 *                            them: name, API major, minor, thread safety;
 *   IA table (ia_table.c)    the small integers consumers hold as IA handles.
 *
 * Locks: each table has its own mutex, taken only inside its file. The
 * static registry's lock is recursive and held while a provider's init or
 * fini runs, so that a provider may call dat_registry_add_provider (dynamic
 * registry lock) or list providers from there. Lock order: sr, then dr,
 * then ia; never the reverse.
 */
#ifndef DREG_SR_H
#define DREG_SR_H

#include <stdbool.h>

#include "registry.h"

/* True when two keys are equal: name, major, minor and thread safety. */
bool dreg_info_equal(const DAT_PROVIDER_INFO *a, const DAT_PROVIDER_INFO *b);

/* Reads dat.conf once per process; every entry point calls it first. */
void dreg_init(void);

/*
 * Makes sure a provider for @info is loaded: the first open of a key loads
 * its library (trying fallback lines in file order) and calls
 * dat_provider_init; later opens take a reference. Returns DAT_SUCCESS when
 * a library for @info is loaded and registered under that key.
 */
DAT_RETURN dreg_sr_open(const DAT_PROVIDER_INFO *info);

/* Drops a reference; the last one calls dat_provider_fini and dlcloses. */
void dreg_sr_close(const DAT_PROVIDER_INFO *info);

/* Number of usable entries (one per key), and their list, as OFED lists. */
DAT_COUNT dreg_sr_size(void);
DAT_RETURN dreg_sr_list(DAT_COUNT max, DAT_COUNT *returned,
			DAT_PROVIDER_INFO *list[]);

/* True if dat.conf has a usable entry named @name (any version). */
bool dreg_sr_has_name(const char *name);

/*
 * Explains on the debug output why no provider matches @info, and returns
 * the DAT_PROVIDER_NOT_FOUND subtype that fits best (name not registered,
 * major, minor or thread safety not found).
 */
DAT_RETURN dreg_sr_explain(const DAT_PROVIDER_INFO *info);

/* Dynamic registry. */
DAT_RETURN dreg_dr_insert(const DAT_PROVIDER *provider,
			  const DAT_PROVIDER_INFO *info);
DAT_RETURN dreg_dr_remove(const DAT_PROVIDER_INFO *info);
bool dreg_dr_has(const DAT_PROVIDER_INFO *info);
bool dreg_dr_has_name(const char *name, DAT_PROVIDER_INFO *found);
/* Takes a reference on the provider registered under @info. */
DAT_RETURN dreg_dr_open(const DAT_PROVIDER_INFO *info,
			const DAT_PROVIDER **provider);
void dreg_dr_close(const DAT_PROVIDER_INFO *info);

/*
 * IA table. dreg_ia_insert returns the consumer's handle for the provider's
 * IA @ia together with the key it was opened under (DAT_HANDLE_NULL when
 * memory runs out); dreg_ia_remove gives the handle back and returns the key
 * in @info. dats_get_ia_handle (exported) maps both ways.
 */
DAT_IA_HANDLE dreg_ia_insert(DAT_IA_HANDLE ia, const DAT_PROVIDER_INFO *info);
DAT_RETURN dreg_ia_remove(DAT_IA_HANDLE handle, DAT_PROVIDER_INFO *info);
bool dreg_ia_is_index(DAT_HANDLE handle);

#endif
