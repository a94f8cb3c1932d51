/*
 * test_lock.c: one writer at a time (src/lib/lock.c) in a fake root: the
 * first taker gets the lock and records its PID, a second one is told
 * who holds it and times out waiting, and gets it once it is released;
 * the file is 0600 (flock needs only a read-only open) and an older one is
 * corrected; the holder is the one /proc/locks names.
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
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "uclamp/lock.h"
#include "fakeroot.h"

/* one root for the suite: uc_sysroot() keeps the first value it reads */
static char root[512];
static const struct fr_suite suite = { root, sizeof(root), "test-lock", true, { "run" } };

/* each test starts without the lock file and its directory, and without /proc */
static int teardown(void **state)
{
	(void)state;
	return fr_remove(root, UC_LOCK_DIR) || fr_remove(root, "proc") ? -1 : 0;
}

static mode_t lock_mode(void)
{
	char p[PATH_MAX];
	struct stat st;

	assert_int_equal(fr_path(p, sizeof(p), root, UC_LOCK_PATH), 0);
	assert_int_equal(stat(p, &st), 0);
	return st.st_mode & 07777;
}

/* Nobody but its owner may open the lock: 0600 when made, and an older
 * 0644 file (any user could hold it with a read-only open) is corrected. */
static void test_private(void **state)
{
	struct uc_lock a = { .fd = -1 };
	char p[PATH_MAX];

	(void)state;
	assert_int_equal(uc_lock_try(&a, NULL), 0);
	assert_int_equal(lock_mode(), 0600);
	uc_lock_release(&a);
	assert_int_equal(fr_path(p, sizeof(p), root, UC_LOCK_PATH), 0);
	assert_int_equal(chmod(p, 0644), 0);
	assert_int_equal(uc_lock_try(&a, NULL), 0);
	assert_int_equal(lock_mode(), 0600);
	uc_lock_release(&a);
	/* not a regular file: not a lock */
	assert_int_equal(unlink(p), 0);
	assert_int_equal(mkfifo(p, 0600), 0);
	assert_int_equal(uc_lock_try(&a, NULL), -EINVAL);
	assert_int_equal(a.fd, -1);
}

/* The holder is who /proc/locks says, a shared (READ) flock too, not the
 * PID a former holder wrote into the file. */
static void test_holder_named(void **state)
{
	struct uc_lock a = { .fd = -1 }, b = { .fd = -1 };
	char p[PATH_MAX], locks[256];
	pid_t holder = 0;
	struct stat st;

	(void)state;
	assert_int_equal(uc_lock_try(&a, NULL), 0);	/* the file says getpid() */
	assert_int_equal(fr_path(p, sizeof(p), root, UC_LOCK_PATH), 0);
	assert_int_equal(stat(p, &st), 0);
	snprintf(locks, sizeof(locks),
		 "1: POSIX  ADVISORY  WRITE 999 00:01:2 0 EOF\n"
		 "2: FLOCK  ADVISORY  READ 4242 %02x:%02x:%lu 0 EOF\n"
		 "3: -> FLOCK  ADVISORY  WRITE 777 %02x:%02x:%lu 0 EOF\n",
		 major(st.st_dev), minor(st.st_dev), (unsigned long)st.st_ino,
		 major(st.st_dev), minor(st.st_dev), (unsigned long)st.st_ino);
	assert_int_equal(fr_mkdir(root, "proc"), 0);
	assert_int_equal(fr_write(root, "proc/locks", locks), 0);
	assert_int_equal(uc_lock_try(&b, &holder), -EWOULDBLOCK);
	assert_int_equal(holder, 4242);
	uc_lock_release(&a);
	uc_lock_release(&b);
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
		cmocka_unit_test_teardown(test_private, teardown),
		cmocka_unit_test_teardown(test_holder_named, teardown),
	};
	return fr_run(&suite, tests, NULL, NULL);
}
