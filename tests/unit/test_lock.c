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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "uclamp/lock.h"

static char root[256];

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char run[300];

	(void)state;
	snprintf(root, sizeof(root), "%s/test_lock.XXXXXX", tmp);
	if (!mkdtemp(root))
		return -1;
	snprintf(run, sizeof(run), "%s/run", root);
	if (mkdir(run, 0755))
		return -1;
	setenv("UCLAMPCTL_SYSROOT", root, 1);
	return 0;
}

static int teardown(void **state)
{
	char p[400];

	(void)state;
	snprintf(p, sizeof(p), "%s" UC_LOCK_PATH, root);
	unlink(p);
	snprintf(p, sizeof(p), "%s" UC_LOCK_DIR, root);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/run", root);
	rmdir(p);
	rmdir(root);
	return 0;
}

static void test_one_writer(void **state)
{
	struct uc_lock a = { .fd = -1 }, b = { .fd = -1 };
	struct timespec t0, t1;
	char p[400], buf[32] = "";
	pid_t holder = -1;
	FILE *f;
	long ms;

	(void)state;
	assert_int_equal(uc_lock_try(&a, &holder), 0);
	assert_int_equal(holder, 0);
	/* the holder's PID is in the file, for the next waiter */
	snprintf(p, sizeof(p), "%s" UC_LOCK_PATH, root);
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
	char run[300];

	(void)state;
	snprintf(run, sizeof(run), "%s/run", root);
	assert_int_equal(rmdir(run), 0);
	assert_int_equal(uc_lock_try(&a, NULL), -ENOENT);
	assert_int_equal(a.fd, -1);
	assert_int_equal(mkdir(run, 0755), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_one_writer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_run_dir, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
