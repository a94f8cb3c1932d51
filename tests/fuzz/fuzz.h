/* Shared by the libFuzzer targets (tests/fuzz/fuzz_*.c): a fake root for the
 * parsers that read files through sysroot.h, built with the test seam. */
#ifndef UCLAMP_FUZZ_H
#define UCLAMP_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Make (once) a fake root under /dev/shm (else $TMPDIR, /tmp) and point
 * $UCLAMPCTL_SYSROOT at it; returns its path. Aborts on failure. */
const char *fuzz_root(void);

/* Write data to ROOT/abspath (directories made as needed). Aborts on failure. */
void fuzz_put(const char *abspath, const uint8_t *data, size_t size);

/* A NUL-terminated copy of data (free() it). */
char *fuzz_str(const uint8_t *data, size_t size);

/* Has path a ".." component (stated apart from uc_cg_path_escapes, to
 * check it)? Runs of '/' allowed, absolute or relative. */
bool fuzz_dotdot(const char *path);

#endif
