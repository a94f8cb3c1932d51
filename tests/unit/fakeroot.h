/* One temporary fake root for the unit tests: a directory under $TMPDIR
 * (default /tmp) that stands for / through $UCLAMPCTL_SYSROOT. Paths under
 * the root may be given with or without a leading '/'. */
#ifndef UC_TEST_FAKEROOT_H
#define UC_TEST_FAKEROOT_H

#include <stdbool.h>
#include <stddef.h>

#include "uclamp/cgroup.h"

struct CMUnitTest;

/* mkdtemp $TMPDIR/uclampctl-<tag>.XXXXXX into buf; 0 or -errno */
int fr_create(char *buf, size_t n, const char *tag);
/* fr_create, then point UCLAMPCTL_SYSROOT at it (before the first sysroot call) */
int fr_sysroot(char *buf, size_t n, const char *tag);
/* buf = root/rel; 0 or -ENAMETOOLONG */
int fr_path(char *buf, size_t n, const char *root, const char *rel);
/* root/rel whole into buf (NUL-terminated, cut to n - 1 bytes): its length, or -errno */
ssize_t fr_read(const char *root, const char *rel, char *buf, size_t n);
/* mkdir -p root/rel; 0 or -errno */
int fr_mkdir(const char *root, const char *rel);
/* write text to root/rel (truncating), creating the parent directories; 0 or -errno */
int fr_write(const char *root, const char *rel, const char *text);
/* root/rel -> target, creating the parent directories; 0 or -errno */
int fr_symlink(const char *root, const char *rel, const char *target);
/* rm -rf root/rel (a missing one is fine; symlinks are not followed); 0 or -errno */
int fr_remove(const char *root, const char *rel);
/* rm -rf the whole root; 0 or -errno */
int fr_destroy(const char *root);
/* tell the library a cgroup hierarchy of version v is mounted at root/rel (no discovery) */
void fr_cgroup(const char *root, const char *rel, enum uc_cg_version v);

/* A suite's fake root, made before its tests run and removed after. */
#define FR_MAX_DIRS 4
struct fr_suite {
	char *root;			/* receives the path */
	size_t size;			/* of root */
	const char *tag;		/* uclampctl-<tag>.XXXXXX */
	bool sysroot;			/* fr_sysroot (else fr_create): before any sysroot call */
	const char *dirs[FR_MAX_DIRS];	/* made in it, up to the first NULL */
};

/* main() of a suite with a fake root: cmocka_run_group_tests between making it and removing
 * it; a root that cannot be made or removed fails the suite */
#define fr_run(suite, tests, setup, teardown)                                               \
	fr_run_group((suite), #tests, (tests), sizeof(tests) / sizeof((tests)[0]), (setup), \
		     (teardown))
int fr_run_group(const struct fr_suite *s, const char *name, const struct CMUnitTest *tests,
		 size_t n, int (*setup)(void **state), int (*teardown)(void **state));

#endif
