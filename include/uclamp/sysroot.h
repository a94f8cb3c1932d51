/*
 * Every /proc and /sys path goes through here, so that the test builds can
 * redirect them into a fake root with $UCLAMPCTL_SYSROOT (sysroot_seam.c;
 * the installed binary has no such switch). All return -errno on failure.
 */
#ifndef UCLAMP_SYSROOT_H
#define UCLAMP_SYSROOT_H

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define UC_SYSROOT_ENV "UCLAMPCTL_SYSROOT"

/* "" when unset, and always "" in the installed binary. Read once. */
const char *uc_sysroot(void);

/* watch's receive buffer, which tests shrink with $UCLAMPCTL_TEST_RCVBUF to
 * make a real kernel drop events; 0 (default) in the installed binary. */
#define UC_TEST_RCVBUF_ENV "UCLAMPCTL_TEST_RCVBUF"
int uc_test_rcvbuf(void);

/* Tests' cpu hierarchy: $UCLAMPCTL_TEST_CGROUP2 instead of the mount table;
 * NULL in the installed binary. */
#define UC_TEST_CG2_ENV "UCLAMPCTL_TEST_CGROUP2"
const char *uc_test_cg2_mount(void);

/* Prefix an absolute path: buf = sysroot + abspath. 0 or -ENAMETOOLONG. */
int uc_path(char *buf, size_t n, const char *abspath);

/* The one rule for "not there": only ENOENT says a file, sysctl or feature is
 * absent; any other error is its own, never "this kernel has no uclamp". */
static inline bool uc_err_absent(int err)
{
	return err == -ENOENT;
}

int uc_open(const char *abspath, int flags);	/* O_CLOEXEC added; fd or -errno */
DIR *uc_opendir(const char *abspath);	/* NULL + errno */
bool uc_exists(const char *abspath);
int uc_access(const char *abspath);	/* 0 when it exists, or -errno (uc_err_absent) */
/* scandir(3)'s order by strcmp: the same in every locale, unlike alphasort */
int uc_dirent_by_name(const struct dirent **a, const struct dirent **b);

/* Read a small file whole (NUL-terminated, trailing newline stripped).
 * Returns the length or -errno (-EFBIG when it does not fit), buf then "". */
ssize_t uc_read_str(const char *abspath, char *buf, size_t n);

/* Read the first n-1 bytes at most (UC_READ_HEAD below): a /proc file's head. */
ssize_t uc_read_head(const char *abspath, char *buf, size_t n);

/* Read one decimal integer (surrounding white space allowed). */
int uc_read_long(const char *abspath, long *v);

/* One write(2) of s, the file truncated first: 0 or the kernel's -errno as is
 * (a short write is -EIO). */
int uc_write_str(const char *abspath, const char *s);

/* Reads and writes on a path used as is, without the sysroot prefix: the
 * cgroup mount (from the real mount table) or a unit test's directory tree.
 * The reader is the one under them all, path relative to dfd (AT_FDCWD: as
 * is); UC_READ_HEAD: the first n-1 bytes are enough (no -EFBIG), newlines kept. */
#define UC_READ_HEAD 0x1
ssize_t uc_file_read_at(int dfd, const char *path, char *buf, size_t n, unsigned int flags);
int uc_file_write(const char *path, const char *s);

/* Running kernel release (/proc/sys/kernel/osrelease) and its version as
 * UC_KVER(a,b,c); "" and 0 when unreadable. */
#define UC_KVER(a, b, c) (((a) << 16) + ((b) << 8) + ((c) > 255 ? 255 : (c)))
int uc_kernel_release(char *buf, size_t n);
int uc_kernel_version(void);

/* This boot's random id (/proc/sys/kernel/random/boot_id): what per-boot
 * files under /run carry, to tell another boot's. 0 or -errno. */
int uc_boot_id(char *buf, size_t n);

/* The one clock reader: clock id's time in ns, and CLOCK_MONOTONIC in ms. */
static inline uint64_t uc_clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t uc_now_ms(void)
{
	return uc_clock_ns(CLOCK_MONOTONIC) / 1000000;
}

#endif
