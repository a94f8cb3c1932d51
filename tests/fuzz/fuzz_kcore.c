/*
 * libFuzzer: the /proc/kcore ELF reader (kcore.c) over a memfd holding the
 * input. The last 9 bytes (when present) choose the address and length to
 * read, so the fuzzer steers reads into and around the segments; a few
 * fixed kernel addresses are read too. A read that succeeds must have
 * filled the buffer from the file: checked against the input itself.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "uclamp/kmem.h"

static int fd = -1;

static void read_at(const uint8_t *data, size_t size, uint64_t vaddr, size_t len)
{
	uint8_t buf[16];
	const char *why = NULL;
	int rc;

	memset(buf, 0xa5, sizeof(buf));
	rc = uc_kcore_read_why(fd, vaddr, buf, len, &why);
	if (rc > 0)
		abort();	/* 0 or -errno only */
	if (rc < 0)
		return;
	/* the bytes came from somewhere in the file */
	if (len > size || !memmem(data, size, buf, len))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t fixed[] = { 0xffffffff81000000ull, 0xffffffff88e00000ull + 0xf46710,
					  0, UINT64_MAX - 3 };

	if (fd < 0 && (fd = memfd_create("fuzz-kcore", MFD_CLOEXEC)) < 0)
		abort();
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	if (size >= 9) {
		uint64_t vaddr;
		size_t len = 1 + data[size - 9] % 16;

		memcpy(&vaddr, data + size - 8, sizeof(vaddr));
		read_at(data, size, vaddr, len);
	}
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		read_at(data, size, fixed[i], 4);
	return 0;
}
