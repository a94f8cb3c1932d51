/*
 * test_lock.c: one writer at a time (src/lib/lock.c) in a fake root: the
 * first taker gets the lock and records its PID, a second one is told
 * who holds it and times out waiting, and gets it once it is released;
 * the file is 0600 (flock needs only a read-only open), an older one is
 * replaced by a new inode (its holder stops no one), the directory must be
 * trusted; the holder is the one /proc/locks names.
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
#include <fcntl.h>
#include <sys/file.h>
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

static void lock_stat(struct stat *st)
{
	char p[PATH_MAX];

	assert_int_equal(fr_path(p, sizeof(p), root, UC_LOCK_PATH), 0);
	assert_int_equal(lstat(p, st), 0);
}

/*
 * Nobody but its owner may open the lock: 0600 when made. An older 0644 file
 * (any user could open it) is replaced by a new inode, not corrected in
 * place: a user who opened it then and holds an flock on it no longer stops
 * anyone, and the new file is 0600, ours, one link. So is a file with two
 * links, a FIFO, a symbolic link (its target untouched).
 */
static void test_private(void **state)
{
	struct uc_lock a = { .fd = -1 };
	char p[PATH_MAX], q[PATH_MAX], buf[16] = "";
	struct stat old, now;
	int user;

	(void)state;
	assert_int_equal(uc_lock_try(&a, NULL), 0);
	assert_int_equal(lock_mode(), 0600);
	uc_lock_release(&a);
	assert_int_equal(fr_path(p, sizeof(p), root, UC_LOCK_PATH), 0);
	/* an older release's file, which a user opened and holds */
	assert_int_equal(chmod(p, 0644), 0);
	lock_stat(&old);
	user = open(p, O_RDONLY);
	assert_true(user >= 0);
	assert_int_equal(flock(user, LOCK_EX | LOCK_NB), 0);
	assert_int_equal(uc_lock_try(&a, NULL), 0);
	lock_stat(&now);
	assert_int_not_equal(now.st_ino, old.st_ino);
	assert_int_equal(now.st_mode & 07777, 0600);
	assert_int_equal(now.st_uid, geteuid());
	assert_int_equal(now.st_nlink, 1);
	uc_lock_release(&a);
	close(user);

	/* two links: the other name could be opened by whoever made it */
	assert_int_equal(fr_path(q, sizeof(q), root, "/run/uclampctl/other"), 0);
	assert_int_equal(link(p, q), 0);
	lock_stat(&old);
	assert_int_equal(uc_lock_try(&a, NULL), 0);
	lock_stat(&now);
	assert_int_not_equal(now.st_ino, old.st_ino);
	assert_int_equal(now.st_nlink, 1);
	uc_lock_release(&a);
	assert_int_equal(unlink(q), 0);

	/* not a regular file */
	assert_int_equal(unlink(p), 0);
	assert_int_equal(mkfifo(p, 0600), 0);
	assert_int_equal(uc_lock_try(&a, NULL), 0);
	lock_stat(&now);
	assert_true(S_ISREG(now.st_mode));
	uc_lock_release(&a);

	/* a link is replaced, never followed: its target keeps its bytes and mode */
	assert_int_equal(fr_write(root, "victim", "keep\n"), 0);
	assert_int_equal(fr_path(q, sizeof(q), root, "victim"), 0);
	assert_int_equal(chmod(q, 0640), 0);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(symlink(q, p), 0);
	assert_int_equal(uc_lock_try(&a, NULL), 0);
	lock_stat(&now);
	assert_true(S_ISREG(now.st_mode));
	uc_lock_release(&a);
	assert_int_equal(stat(q, &now), 0);
	assert_int_equal(now.st_mode & 07777, 0640);
	user = open(q, O_RDONLY);
	assert_true(user >= 0 && read(user, buf, sizeof(buf) - 1) == 5);
	close(user);
	assert_string_equal(buf, "keep\n");
}

/* The directory must be trusted too: a link, or writable by others, is refused. */
static void test_untrusted_dir(void **state)
{
	struct uc_lock a = { .fd = -1 };
	char d[PATH_MAX], o[PATH_MAX];

	(void)state;
	assert_int_equal(fr_path(d, sizeof(d), root, UC_LOCK_DIR), 0);
	assert_int_equal(mkdir(d, 0777), 0);
	assert_int_equal(chmod(d, 0777), 0);
	assert_int_equal(uc_lock_try(&a, NULL), -EPERM);
	assert_int_equal(a.fd, -1);
	assert_int_equal(chmod(d, 0775), 0);
	assert_int_equal(uc_lock_try(&a, NULL), -EPERM);
	assert_int_equal(rmdir(d), 0);
	assert_int_equal(fr_mkdir(root, "elsewhere"), 0);
	assert_int_equal(fr_path(o, sizeof(o), root, "elsewhere"), 0);
	assert_int_equal(symlink(o, d), 0);
	assert_true(uc_lock_try(&a, NULL) < 0);
	assert_int_equal(a.fd, -1);
	assert_int_equal(unlink(d), 0);
	assert_int_equal(fr_remove(root, "elsewhere"), 0);
}

/* A waiter whose file was replaced meanwhile goes to the new one: it never
 * waits on a file the name no longer leads to. */
static void test_replaced_while_waiting(void **state)
{
	struct uc_lock a = { .fd = -1 }, b = { .fd = -1 };
	char p[PATH_MAX], t[PATH_MAX];
	int fd;

	(void)state;
	assert_int_equal(uc_lock_try(&a, NULL), 0);
	assert_int_equal(uc_lock_try(&b, NULL), -EWOULDBLOCK);
	assert_int_equal(fr_path(p, sizeof(p), root, UC_LOCK_PATH), 0);
	assert_int_equal(fr_path(t, sizeof(t), root, "/run/uclampctl/new"), 0);
	fd = open(t, O_RDWR | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(rename(t, p), 0);
	assert_int_equal(uc_lock_wait(&b, 0), 0);
	uc_lock_release(&a);
	uc_lock_release(&b);
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
		cmocka_unit_test_teardown(test_untrusted_dir, teardown),
		cmocka_unit_test_teardown(test_replaced_while_waiting, teardown),
		cmocka_unit_test_teardown(test_holder_named, teardown),
	};
	return fr_run(&suite, tests, NULL, NULL);
}
