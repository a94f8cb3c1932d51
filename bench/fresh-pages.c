/*
 * What first touching fresh memory costs in the VM: 1.3 MB (a 10,000-thread
 * plan of 128-byte changes) mapped and touched a page at a time, with
 * MAP_POPULATE, and with MADV_POPULATE_WRITE (5.14+). Prints microseconds.
 * Under -icount with -cpu max the kernel clears a page with `rep stosb`,
 * which QEMU counts as one instruction per byte; compare -cpu qemu64
 * (VM_CPU=qemu64: `rep stosq`, 512 per page). See bench/README.md.
 * usage: fresh-pages [KIB]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static long now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000L + t.tv_nsec / 1000;
}

/* map n bytes (extra mmap flags, then madvise advice if any), touch every page */
static long touch(size_t n, int flags, int advice)
{
	long t0 = now_us();
	volatile char *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);

	if (p == MAP_FAILED)
		return -1;
	if (advice && madvise((void *)p, n, advice))
		return -1;
	for (size_t i = 0; i < n; i += 4096)
		p[i] = 1;
	t0 = now_us() - t0;
	munmap((void *)p, n);
	return t0;
}

int main(int argc, char **argv)
{
	size_t n = (size_t)(argc > 1 ? atol(argv[1]) : 1300) * 1024;

	for (int r = 0; r < 3; r++)
		printf("%zu pages: faults %ld us, MAP_POPULATE %ld us, MADV_POPULATE_WRITE %ld us\n",
		       n / 4096, touch(n, 0, 0), touch(n, MAP_POPULATE, 0),
		       touch(n, 0, MADV_POPULATE_WRITE));
	return 0;
}
