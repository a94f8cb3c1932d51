/*
 * sysroot.c, the one reader and writer of /proc, /sys and cgroup files:
 * the root prefix, whole-file reads (newlines stripped, -EFBIG when the
 * buffer is too small), head reads relative to a directory fd, integer
 * parsing, and writes that truncate and keep the kernel's errno.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "uclamp/sysroot.h"
#include "fakeroot.h"

static char root[512];
static const struct fr_suite suite = { root, sizeof(root), "test-sysroot", true, { "/proc" } };

static void put(const char *abspath, const char *text)
{
	assert_int_equal(fr_write(root, abspath, text), 0);
}

static void prefix(void **state)
{
	char buf[1024], big[PATH_MAX];

	(void)state;
	assert_string_equal(uc_sysroot(), root);
	assert_int_equal(uc_path(buf, sizeof(buf), "/proc/x"), 0);
	assert_true(!strncmp(buf, root, strlen(root)) && !strcmp(buf + strlen(root), "/proc/x"));
	memset(big, 'a', sizeof(big) - 1);
	big[0] = '/';
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(uc_path(buf, sizeof(buf), big), -ENAMETOOLONG);
	assert_true(uc_exists("/proc"));
	assert_false(uc_exists("/proc/nope"));
}

static void reads(void **state)
{
	char buf[8];
	long v;

	(void)state;
	put("/proc/f", "abc\n\n");
	assert_int_equal(uc_read_str("/proc/f", buf, sizeof(buf)), 3);
	assert_string_equal(buf, "abc");
	put("/proc/f", "1234567");	/* exactly n-1 bytes: fits */
	assert_int_equal(uc_read_str("/proc/f", buf, sizeof(buf)), 7);
	put("/proc/f", "12345678");
	assert_int_equal(uc_read_str("/proc/f", buf, sizeof(buf)), -EFBIG);
	assert_int_equal(uc_read_str("/proc/f", buf, 0), -EINVAL);
	assert_int_equal(uc_read_str("/proc/nope", buf, sizeof(buf)), -ENOENT);

	put("/proc/n", " 42 \n");
	assert_int_equal(uc_read_long("/proc/n", &v), 0);
	assert_int_equal(v, 42);
	put("/proc/n", "42x\n");
	assert_int_equal(uc_read_long("/proc/n", &v), -EINVAL);
	put("/proc/n", "\n");
	assert_int_equal(uc_read_long("/proc/n", &v), -EINVAL);
}

static void head_at(void **state)
{
	char buf[6], dir[1024];
	int dfd;

	(void)state;
	put("/proc/h", "max 100000\n");
	snprintf(dir, sizeof(dir), "%s/proc", root);
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	assert_int_equal(uc_file_read_at(dfd, "h", buf, sizeof(buf), UC_READ_HEAD), 5);
	assert_string_equal(buf, "max 1");
	assert_int_equal(uc_file_read_at(dfd, "h", buf, sizeof(buf), 0), -EFBIG);
	put("/proc/h", "-1\n");
	assert_int_equal(uc_file_read_at(dfd, "h", buf, sizeof(buf), UC_READ_HEAD), 3);
	assert_string_equal(buf, "-1\n");	/* as read */
	assert_int_equal(uc_file_read_at(dfd, "nope", buf, sizeof(buf), UC_READ_HEAD), -ENOENT);
	close(dfd);
}

static void writes(void **state)
{
	char buf[64], full[1024];

	(void)state;
	put("/proc/w", "a much longer old value\n");
	assert_int_equal(uc_write_str("/proc/w", "512\n"), 0);
	assert_int_equal(uc_read_str("/proc/w", buf, sizeof(buf)), 3);
	assert_string_equal(buf, "512");	/* truncated first: no tail of the old value */
	/* the OS's errno comes back as is */
	assert_int_equal(uc_write_str("/proc/missing/w", "1"), -ENOENT);
	assert_int_equal(uc_write_str("/proc", "1"), -EISDIR);
	snprintf(full, sizeof(full), "%s/proc/w", root);
	assert_int_equal(uc_file_write(full, "7"), 0);
	assert_int_equal(uc_file_read_at(AT_FDCWD, full, buf, sizeof(buf), 0), 1);
	assert_string_equal(buf, "7");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(prefix),
		cmocka_unit_test(reads),
		cmocka_unit_test(head_at),
		cmocka_unit_test(writes),
	};

	return fr_run(&suite, tests, NULL, NULL);
}
