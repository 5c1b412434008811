/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * datinfo: what the DAT registry makes of a dat.conf, and what each IA in it
 * answers when opened.
 *
 *   datinfo [-f dat.conf] [-q] [IA...]
 *
 * Without IA names it opens every usable entry; with names, only those (a
 * name that is not in the file is tried all the same, so that the registry
 * explains why it is not found). The registry's own diagnostics (bad lines
 * with file:line, entries skipped and why, libraries that do not load) are
 * printed unless -q; they are the registry's DAT_DBG_TYPE errors and static
 * registry messages, switched on here before the first DAT call.
 *
 * Exit status: 0 when every IA tried opened, 1 when one did not, 2 on bad
 * usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dat2/udat.h>

#define MAX_LIST 256

static const char *ret_str(DAT_RETURN r, char *buf, size_t len)
{
	const char *major = "?", *minor = "";

	dat_strerror(r, &major, &minor);
	snprintf(buf, len, "%s%s%s", major, minor && *minor ? " " : "",
		 minor ? minor : "");
	return buf;
}

/* Opens @name, prints its attributes, closes it; true when it opened. */
static int try_ia(const char *name)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_PROVIDER_ATTR pattr;
	DAT_IA_HANDLE ia;
	DAT_IA_ATTR attr;
	DAT_RETURN r;
	char buf[DAT_NAME_MAX_LENGTH], err[256];

	snprintf(buf, sizeof(buf), "%s", name);
	r = dat_ia_open(buf, 8, &async, &ia);
	if (r != DAT_SUCCESS) {
		printf("%-24s cannot open: %s\n", name, ret_str(r, err, sizeof(err)));
		return 0;
	}
	r = dat_ia_query(ia, NULL, DAT_IA_ALL, &attr, DAT_PROVIDER_FIELD_ALL,
			 &pattr);
	if (r == DAT_SUCCESS)
		printf("%-24s open: adapter %s, vendor %s, provider %s, DAPL %u.%u, %s\n",
		       name, attr.adapter_name, attr.vendor_name,
		       pattr.provider_name, pattr.dapl_version_major,
		       pattr.dapl_version_minor,
		       pattr.is_thread_safe ? "thread safe" : "not thread safe");
	else
		printf("%-24s open, but dat_ia_query failed: %s\n", name,
		       ret_str(r, err, sizeof(err)));
	r = dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG);
	if (r != DAT_SUCCESS)
		printf("%-24s dat_ia_close failed: %s\n", name,
		       ret_str(r, err, sizeof(err)));
	return 1;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: datinfo [-f dat.conf] [-q] [IA...]\n"
		   "  -f FILE  read FILE instead of $DAT_OVERRIDE or the system dat.conf\n"
		   "  -q       do not show the registry's diagnostics\n");
}

int main(int argc, char **argv)
{
	DAT_PROVIDER_INFO info[MAX_LIST], *list[MAX_LIST];
	DAT_COUNT n = 0;
	int c, quiet = 0, failed = 0, i;

	while ((c = getopt(argc, argv, "f:qh")) != -1) {
		switch (c) {
		case 'f':
			setenv("DAT_OVERRIDE", optarg, 1);
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	/* Errors and static registry messages, before the registry starts. */
	if (!quiet && getenv("DAT_DBG_TYPE") == NULL)
		setenv("DAT_DBG_TYPE", "0x5", 1);
	fflush(stdout);

	for (i = 0; i < MAX_LIST; i++)
		list[i] = &info[i];
	if (dat_registry_list_providers(MAX_LIST, &n, list) != DAT_SUCCESS)
		n = 0;
	printf("%d usable entr%s in %s\n", (int)n, n == 1 ? "y" : "ies",
	       getenv("DAT_OVERRIDE") ? getenv("DAT_OVERRIDE") : "the system dat.conf");
	for (i = 0; i < n; i++)
		printf("  %-22s u%u.%u %s\n", info[i].ia_name,
		       info[i].dapl_version_major, info[i].dapl_version_minor,
		       info[i].is_thread_safe ? "threadsafe" : "nonthreadsafe");
	fflush(stdout);

	if (optind < argc) {
		for (i = optind; i < argc; i++)
			failed |= !try_ia(argv[i]);
	} else {
		for (i = 0; i < n; i++)
			failed |= !try_ia(info[i].ia_name);
	}
	return failed ? 1 : 0;
}
