/*
 * A tiny ELF core reader: /proc/kcore's PT_LOAD segments map kernel virtual
 * addresses to file offsets, so a static key is one pread. Every header field
 * is checked before use (a crafted file gets an error, never an out-of-bounds
 * read); only the headers and the bytes asked for are read.
 */
#include <elf.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "uclamp/kmem.h"

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NATIVE_DATA ELFDATA2LSB
#else
#define NATIVE_DATA ELFDATA2MSB
#endif

#define SHORT_READ 1

/* pread all of len at off; 0, SHORT_READ at the end of the file, -errno */
static int pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	if (off > (uint64_t)INT64_MAX || len > (uint64_t)INT64_MAX - off)
		return -EOVERFLOW;
	/* a 32-bit off_t (no _FILE_OFFSET_BITS=64) cannot reach kcore's offsets */
	if (sizeof(off_t) < sizeof(uint64_t) && off + len > (uint64_t)INT32_MAX)
		return -EOVERFLOW;
	while (done < len) {
		ssize_t r = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return SHORT_READ;
		done += (size_t)r;
	}
	return 0;
}

static int fail(const char **why, const char *msg, int err)
{
	if (why)
		*why = msg;
	return err;
}

/* The ELF header: an ELF64 core in our byte order with sane phdr fields. */
static int check_ehdr(int fd, uint64_t fsize, Elf64_Ehdr *eh, const char **why)
{
	uint64_t phend;
	int rc;

	memset(eh, 0, sizeof(*eh));
	rc = pread_full(fd, eh, sizeof(*eh), 0);
	if (rc == SHORT_READ) {
		/* too short for a header: say "not ELF" when even the magic is wrong */
		if (memcmp(eh->e_ident, ELFMAG, SELFMAG))
			return fail(why, "not an ELF file (bad magic)", -ENOEXEC);
		return fail(why, "truncated ELF header", -ENOEXEC);
	}
	if (rc)
		return fail(why, "cannot read the ELF header", rc);
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG))
		return fail(why, "not an ELF file (bad magic)", -ENOEXEC);
	if (eh->e_ident[EI_CLASS] == ELFCLASS32)
		return fail(why, "32-bit ELF (a 64-bit core is needed)", -ENOEXEC);
	if (eh->e_ident[EI_CLASS] != ELFCLASS64)
		return fail(why, "unknown ELF class", -ENOEXEC);
	if (eh->e_ident[EI_DATA] != NATIVE_DATA)
		return fail(why, "ELF byte order differs from this machine's", -ENOEXEC);
	if (eh->e_ident[EI_VERSION] != EV_CURRENT)
		return fail(why, "unknown ELF version", -ENOEXEC);
	if (eh->e_type != ET_CORE)
		return fail(why, "not an ELF core file", -ENOEXEC);
	if (eh->e_phnum == PN_XNUM)
		return fail(why, "extended program header numbering is not supported", -ENOEXEC);
	if (eh->e_phnum && eh->e_phentsize < sizeof(Elf64_Phdr))
		return fail(why, "program header entries too small", -ENOEXEC);
	if (eh->e_phnum && eh->e_phoff < sizeof(*eh))
		return fail(why, "program headers overlap the ELF header", -ENOEXEC);
	/* at most 65534 * 65535 bytes: no overflow in the product */
	phend = (uint64_t)eh->e_phnum * eh->e_phentsize;
	if (eh->e_phoff > UINT64_MAX - phend || eh->e_phoff + phend > fsize)
		return fail(why, "truncated program headers", -ENOEXEC);
	return 0;
}

int uc_kcore_read_why(int fd, uint64_t vaddr, void *buf, size_t len, const char **why)
{
	uint64_t fsize = UINT64_MAX;
	Elf64_Ehdr eh;
	struct stat st;
	int rc;

	if (fd < 0 || !buf || len == 0)
		return fail(why, "invalid arguments", -EINVAL);
	/* a regular file's size bounds every offset (/proc/kcore's is huge but real) */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		fsize = (uint64_t)st.st_size;
	rc = check_ehdr(fd, fsize, &eh, why);
	if (rc)
		return rc;

	for (unsigned int i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		uint64_t delta, off;

		rc = pread_full(fd, &ph, sizeof(ph), eh.e_phoff + (uint64_t)i * eh.e_phentsize);
		if (rc == SHORT_READ)
			return fail(why, "truncated program headers", -ENOEXEC);
		if (rc)
			return fail(why, "cannot read the program headers", rc);
		if (ph.p_type != PT_LOAD || vaddr < ph.p_vaddr)
			continue;
		/* [vaddr, vaddr+len) inside [p_vaddr, p_vaddr+p_filesz), without overflow */
		delta = vaddr - ph.p_vaddr;
		if (delta > ph.p_filesz || len > ph.p_filesz - delta)
			continue;
		if (ph.p_offset > UINT64_MAX - delta)
			return fail(why, "segment file offset out of range", -ENOEXEC);
		off = ph.p_offset + delta;
		if (off > fsize || len > fsize - off)
			return fail(why, "segment data lies beyond the end of the file", -EIO);
		rc = pread_full(fd, buf, len, off);
		if (rc == SHORT_READ)
			return fail(why, "short read", -EIO);
		if (rc == -EOVERFLOW)
			return fail(why, "segment file offset out of range", -ENOEXEC);
		if (rc)
			return fail(why, "read failed", rc);
		return 0;
	}
	return fail(why, "no PT_LOAD segment covers the address", -EFAULT);
}
