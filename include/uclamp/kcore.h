/* A tiny ELF core reader: N bytes at a kernel virtual address of /proc/kcore. */
#ifndef UCLAMP_KCORE_H
#define UCLAMP_KCORE_H

#include <stddef.h>
#include <stdint.h>

/* Read len bytes at vaddr from the ELF64 core open on fd (the PT_LOAD that
 * covers [vaddr, vaddr+len) whole). 0, or -ENOEXEC (not an ELF64 core,
 * truncated headers), -EFAULT (no segment covers it), -EIO (short read),
 * -errno. Reads nothing but the headers and those bytes.
 * On failure *why (when not NULL) points at a static one-line reason
 * ("not an ELF file (bad magic)", "32-bit ELF", ...). */
int uc_kcore_read_why(int fd, uint64_t vaddr, void *buf, size_t len, const char **why);

#endif
