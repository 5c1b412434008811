/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DAT 2.0 functions libdat.so.1 calls (dat12.h), taken from the
 * libdat2.so.2 it was linked against (DT_NEEDED), whichever that is at
 * run time: ours, or OFED's (LD_LIBRARY_PATH decides, as for any DAT 2.0
 * program). Each is looked up by name and symbol version DAT_2.0, so
 * that the DAT 1.2 functions of this library, which have the same names
 * and the version DAT_1.2, are never taken for them.
 */
#include <dlfcn.h>
#include <stddef.h>

#include "dat12.h"

struct d12_calls d2;

static const char *missing;
static char registry[4096];

/* Fills the table when the library is loaded, before any call. */
__attribute__((constructor)) static void d12_load(void)
{
	void *h = dlopen("libdat2.so.2", RTLD_NOW | RTLD_NOLOAD);
	Dl_info info;

	if (h == NULL)		/* not loaded yet: it is our DT_NEEDED */
		h = dlopen("libdat2.so.2", RTLD_NOW | RTLD_GLOBAL);
	if (h == NULL) {
		missing = "dat_ia_openv (libdat2.so.2 did not load)";
		return;
	}
#define D12_LOOKUP(name)						\
	*(void **)&d2.name = dlvsym(h, "dat_" #name, "DAT_2.0");	\
	if (d2.name == NULL && missing == NULL)				\
		missing = "dat_" #name;
	D12_CALLS(D12_LOOKUP)
#undef D12_LOOKUP
	if (d2.ia_openv != NULL && dladdr(*(void **)&d2.ia_openv, &info) != 0 &&
	    info.dli_fname != NULL) {
		size_t i;

		for (i = 0; i + 1 < sizeof(registry) && info.dli_fname[i]; i++)
			registry[i] = info.dli_fname[i];
		registry[i] = '\0';
	}
	/* The handle stays open: the table points into the library. */
}

const char *d12_missing(void)
{
	return missing;
}

const char *d12_registry_path(void)
{
	return registry[0] != '\0' ? registry : "libdat2.so.2";
}
