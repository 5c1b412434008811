/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libslowcopy.so: a memcpy, preloaded (LD_PRELOAD), that does what the
 * C library's may and makes it last: for 24 bytes and more it stores the
 * last 8 bytes of the range first, waits 20 microseconds, then copies
 * the whole range from the front, storing those 8 bytes a second time.
 * glibc's vector memcpy stores a range's end before its start and some
 * bytes twice, for a few instructions; a thread preempted there shows the
 * same to another for a time slice. The test of a polled RDMA write
 * (test-provider-data2.c) runs under it: a write's flag must not show
 * before its message, nor show again once cleared.
 */
#include <stddef.h>
#include <stdint.h>
#include <time.h>

void *memcpy(void *restrict dst, const void *restrict src, size_t n);

static void copy_bytes(volatile unsigned char *d, const unsigned char *s,
		       size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		d[i] = s[i];
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (n >= 24) {
		uint64_t until;

		copy_bytes(d + n - 8, s + n - 8, 8);
		until = now_ns() + 20000;
		while (now_ns() < until)
			;
	}
	copy_bytes(d, s, n);
	return dst;
}
