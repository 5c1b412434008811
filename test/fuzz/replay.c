/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The replay driver: a main() for a fuzz harness built without libFuzzer
 * (any compiler, any sanitizer). Each argument is a file or a directory;
 * every regular file of a directory (not recursively, in name order) and
 * every file named is read whole and given to LLVMFuzzerTestOneInput once.
 * A directory that does not exist counts as empty, so that an empty
 * regress/<target>/ may be left out of a checkout. Prints each file before
 * running it, so that the last line names the culprit of a crash, then
 * "replay: N inputs"; exits 0, or 1 on an unreadable file or bad usage. A
 * harness that finds a bug aborts (FUZZ_CHECK or a sanitizer).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;

	if (f == NULL) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (;;) {
		size_t n;

		if (len == cap) {
			uint8_t *nb;

			cap = cap ? cap * 2 : 4096;
			nb = realloc(buf, cap);
			if (nb == NULL) {
				fprintf(stderr, "replay: %s: out of memory\n", path);
				free(buf);
				fclose(f);
				return -1;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		if (n == 0)
			break;
		len += n;
	}
	fclose(f);
	fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
	/* An exact-size copy, as libFuzzer gives it: overreads show. */
	{
		uint8_t *exact = malloc(len ? len : 1);

		if (exact == NULL) {
			free(buf);
			return -1;
		}
		if (len)
			memcpy(exact, buf, len);
		free(buf);
		LLVMFuzzerTestOneInput(exact, len);
		free(exact);
	}
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs every regular file of @dir, in name order; the count, or -1. */
static int run_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	int count = 0;

	if (d == NULL)
		return errno == ENOENT ? 0 : -1;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? cap * 2 : 64) *
					    sizeof(*names));

			if (nn == NULL)
				break;
			names = nn;
		}
		if ((names[n] = malloc(strlen(dir) + strlen(de->d_name) + 2)) == NULL)
			break;
		sprintf(names[n], "%s/%s", dir, de->d_name);
		n++;
	}
	closedir(d);
	if (n > 0)
		qsort(names, n, sizeof(*names), cmp_names);
	for (i = 0; i < n; i++) {
		struct stat st;

		if (count >= 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode))
			count = run_file(names[i]) < 0 ? -1 : count + 1;
		free(names[i]);
	}
	free(names);
	return count;
}

int main(int argc, char **argv)
{
	int total = 0, i;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 1;
	}
	LLVMFuzzerInitialize(&argc, &argv);
	for (i = 1; i < argc; i++) {
		struct stat st;
		int n;

		if (stat(argv[i], &st) == 0 && S_ISREG(st.st_mode))
			n = run_file(argv[i]) < 0 ? -1 : 1;
		else
			n = run_dir(argv[i]);
		if (n < 0) {
			fprintf(stderr, "replay: cannot read %s\n", argv[i]);
			return 1;
		}
		total += n;
	}
	printf("replay: %d inputs\n", total);
	return 0;
}
