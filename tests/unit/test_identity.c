/*
 * test_identity.c: a task's start time from /proc/PID/task/TID/stat
 * (src/lib/identity.c): names with ')' and spaces, bad lines, and a real
 * read of our own thread through a fake root.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "uclamp/identity.h"

/* fields 3..21 (state, then 18 numbers), then starttime (22) = 987654321, then more */
#define MID "S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18"

static void test_parse(void **state)
{
	unsigned long long st = 0;

	(void)state;
	assert_int_equal(uc_stat_start_time("42 (bash) " MID " 987654321 23 24\n", &st), 0);
	assert_true(st == 987654321ULL);
	/* a comm with ') ' and spaces inside: only the last ')' counts */
	st = 0;
	assert_int_equal(uc_stat_start_time("42 (a) b (c d) " MID " 5 23\n", &st), 0);
	assert_true(st == 5);
	/* starttime as the last field */
	assert_int_equal(uc_stat_start_time("42 (x) " MID " 77", &st), 0);
	assert_true(st == 77);
}

static void test_bad_lines(void **state)
{
	unsigned long long st = 123;

	(void)state;
	assert_int_equal(uc_stat_start_time("42 bash S 1 2", &st), -EINVAL);	/* no ')' */
	/* too short */
	assert_int_equal(uc_stat_start_time("42 (bash) S 1 2 3", &st), -EINVAL);
	assert_int_equal(uc_stat_start_time("42 (x) " MID " x9 1", &st), -EINVAL);
	assert_int_equal(uc_stat_start_time("42 (x) " MID " 9x 1", &st), -EINVAL);
	assert_int_equal(uc_stat_start_time("42 (x) " MID " 99999999999999999999999 1", &st),
			 -EINVAL);
	assert_true(st == 123);	/* untouched on error */
}

/* Through the sysroot: a fake stat file, then a missing task (-ESRCH). */
static void test_read(void **state)
{
	const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	static const char *const dirs[] = { "/proc", "/proc/7", "/proc/7/task", "/proc/7/task/8" };
	char root[256], path[512], path2[512];
	unsigned long long st = 0;
	FILE *f;

	(void)state;
	snprintf(root, sizeof(root), "%s/test_identity.XXXXXX", tmp);
	assert_non_null(mkdtemp(root));
	setenv("UCLAMPCTL_SYSROOT", root, 1);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", root, dirs[i]);
		assert_int_equal(mkdir(path, 0755), 0);
	}
	strcat(path, "/stat");
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("8 (worker) " MID " 4242 0 0\n", f);
	fclose(f);
	assert_int_equal(uc_task_start_time(7, 8, &st), 0);
	assert_true(st == 4242);
	assert_int_equal(uc_task_start_time(7, 9, &st), -ESRCH);
	/* a process's own: /proc/PID/stat, the file the walk reads */
	assert_int_equal(uc_task_start_time(7, 7, &st), -ESRCH);
	snprintf(path2, sizeof(path2), "%s/proc/7/stat", root);
	f = fopen(path2, "w");
	assert_non_null(f);
	fputs("7 (main) " MID " 4000 0 0\n", f);
	fclose(f);
	assert_int_equal(uc_task_start_time(7, 7, &st), 0);
	assert_true(st == 4000);
	/* threads of a process: its task/ directory in the fake tree */
	assert_int_equal(uc_task_in_process(7, 8), 0);
	assert_int_equal(uc_task_in_process(7, 9), -ESRCH);
	assert_int_equal(uc_task_in_process(6, 8), -ESRCH);

	unlink(path2);
	unlink(path);
	for (size_t i = sizeof(dirs) / sizeof(dirs[0]); i-- > 0;) {
		snprintf(path, sizeof(path), "%s%s", root, dirs[i]);
		rmdir(path);
	}
	rmdir(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_read),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
