/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libcountalloc.so: counts every allocation of the process it is preloaded
 * into (LD_PRELOAD), for the test that the data path allocates nothing
 * (COMMON-4). Each entry point counts, then hands the call to glibc's own
 * allocator under its internal name; countalloc_total() reads the count.
 */
#include <stdatomic.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void *__libc_memalign(size_t align, size_t size);
extern void __libc_free(void *p);

void *malloc(size_t size);
void *calloc(size_t n, size_t size);
void *realloc(void *p, size_t size);
void *memalign(size_t align, size_t size);
void *aligned_alloc(size_t align, size_t size);
int posix_memalign(void **out, size_t align, size_t size);
void free(void *p);
unsigned long countalloc_total(void);

static atomic_ulong allocations;

void *malloc(size_t size)
{
	atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
	return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
	atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
	atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
	return __libc_realloc(p, size);
}

void *memalign(size_t align, size_t size)
{
	atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
	return __libc_memalign(align, size);
}

void *aligned_alloc(size_t align, size_t size)
{
	return memalign(align, size);
}

int posix_memalign(void **out, size_t align, size_t size)
{
	void *p = memalign(align, size);

	if (p == NULL)
		return 12;	/* ENOMEM */
	*out = p;
	return 0;
}

void free(void *p)
{
	__libc_free(p);
}

unsigned long countalloc_total(void)
{
	return atomic_load(&allocations);
}
