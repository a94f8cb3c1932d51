/*
 * test_lock.c: one writer at a time (src/lib/lock.c) in a fake root: the
 * first taker gets the lock and records its PID, a second one is told
 * who holds it and times out waiting, and gets it once it is released.
 * (flock locks belong to an open file description: two uc_lock structs in
 * one process conflict like two processes.)
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "uclamp/lock.h"
#include "fakeroot.h"

/* one root for the suite: uc_sysroot() keeps the first value it reads */
static char root[512];
static const struct fr_suite suite = { root, sizeof(root), "test-lock", true, { "run" } };

/* each test starts without the lock file and its directory */
static int teardown(void **state)
{
	(void)state;
	return fr_remove(root, UC_LOCK_DIR) ? -1 : 0;
}

static void test_one_writer(void **state)
{
	struct uc_lock a = { .fd = -1 }, b = { .fd = -1 };
	struct timespec t0, t1;
	char p[PATH_MAX], buf[32] = "";
	pid_t holder = -1;
	FILE *f;
	long ms;

	(void)state;
	assert_int_equal(uc_lock_try(&a, &holder), 0);
	assert_int_equal(holder, 0);
	/* the holder's PID is in the file, for the next waiter */
	assert_int_equal(fr_path(p, sizeof(p), root, UC_LOCK_PATH), 0);
	f = fopen(p, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_int_equal(atoi(buf), getpid());

	assert_int_equal(uc_lock_try(&b, &holder), -EWOULDBLOCK);
	assert_int_equal(holder, getpid());
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(uc_lock_wait(&b, 200), -ETIMEDOUT);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	assert_true(ms >= 190 && ms < 2000);

	uc_lock_release(&a);
	assert_int_equal(a.fd, -1);
	assert_int_equal(uc_lock_wait(&b, 0), 0);
	uc_lock_release(&b);
}

/* No /run in the root: an error, not a hang (the CLI goes on without). */
static void test_no_run_dir(void **state)
{
	struct uc_lock a = { .fd = -1 };
	char run[PATH_MAX];

	(void)state;
	assert_int_equal(fr_path(run, sizeof(run), root, "run"), 0);
	assert_int_equal(rmdir(run), 0);
	assert_int_equal(uc_lock_try(&a, NULL), -ENOENT);
	assert_int_equal(a.fd, -1);
	assert_int_equal(mkdir(run, 0755), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_one_writer, teardown),
		cmocka_unit_test_teardown(test_no_run_dir, teardown),
	};
	return fr_run(&suite, tests, NULL, NULL);
}
