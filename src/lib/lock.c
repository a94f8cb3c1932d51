/* One writer at a time (see lock.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "uclamp/afile.h"
#include "uclamp/lock.h"
#include "uclamp/sysroot.h"

#define LOCK_NAME "lock"
#define REPLACE_WAIT_MS 200	/* another writer replacing the same old file */

/*
 * What a lock file must be: a regular file, ours, 0600, one link. flock(2)
 * needs only a read-only open, so a file others could read is a lock any
 * user can hold, and stop every writer.
 */
static bool lock_ok(const struct stat *st)
{
	return S_ISREG(st->st_mode) && st->st_uid == geteuid() && (st->st_mode & 07777) == 0600 &&
	       st->st_nlink == 1;
}

/* The name still leads to this descriptor's file (or it was replaced): a
 * stat by path, the directory's trust checked when the file was opened. */
static bool still_named(int fd)
{
	char p[4096];

	return !uc_path(p, sizeof(p), UC_LOCK_PATH) && uc_afile_is(AT_FDCWD, p, fd);
}

/* Under the old file's flock when it can be had: another writer replacing
 * the same file waits there, then finds the name moved on. */
static bool flock_briefly(int fd)
{
	const struct timespec step = { 0, 10 * 1000 * 1000 };

	for (int waited = 0; waited < REPLACE_WAIT_MS; waited += 10) {
		if (!flock(fd, LOCK_EX | LOCK_NB))
			return true;
		nanosleep(&step, NULL);
	}
	return false;
}

/*
 * A lock file that is not what it must be (0644 from an older release, another
 * owner, mode, link count or type) is replaced by a new inode, never fixed in
 * place: whoever opened it meanwhile keeps a descriptor to flock. The new file
 * is exchanged with the old in one rename (RENAME_EXCHANGE) and what came out
 * checked: the old one removed, another writer's new one put back. old: the
 * old file, open (-1: it could not be).
 */
static int replace(int dfd, int old, const struct stat *seen)
{
	struct uc_afile a;
	struct stat st;
	int rc;

	if (old >= 0)
		flock_briefly(old);	/* if someone holds it, it is replaced anyway */
	if (fstatat(dfd, LOCK_NAME, &st, AT_SYMLINK_NOFOLLOW) || st.st_dev != seen->st_dev ||
	    st.st_ino != seen->st_ino)
		return 0;	/* moved on already */
	rc = uc_afile_create(&a, dfd, LOCK_NAME, 0600);
	if (rc)
		return rc;
	if (renameat2(dfd, a.tmp, dfd, LOCK_NAME, RENAME_EXCHANGE)) {
		if (errno != EINVAL) {
			rc = -errno;
			uc_afile_abort(&a);
			return rc;
		}
		/* a file system without the exchange: the plain rename */
		rc = uc_afile_commit(&a, LOCK_NAME);
		if (rc && rc != -ESTALE)
			uc_afile_abort(&a);
		uc_afile_close(&a);
		return rc == -ESTALE ? 0 : rc;
	}
	/* a.tmp now names what LOCK_NAME was: the old file, or another writer's
	 * new one, which goes back (and ours, then under a.tmp, away) */
	if (fstatat(dfd, a.tmp, &st, AT_SYMLINK_NOFOLLOW))
		rc = -errno;
	else if (st.st_dev == seen->st_dev && st.st_ino == seen->st_ino)
		unlinkat(dfd, a.tmp, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0);
	else if (!renameat2(dfd, a.tmp, dfd, LOCK_NAME, RENAME_EXCHANGE))
		unlinkat(dfd, a.tmp, 0);
	uc_afile_close(&a);
	return rc;
}

/*
 * The lock file, open: in a trusted directory (uc_dir_open_trusted: root's
 * or ours, written by nobody else), made 0600 when missing, replaced when it
 * is not what a lock must be.
 */
static int open_lock(void)
{
	int dfd = uc_dir_open_trusted(UC_LOCK_DIR, 0755), fd = -EAGAIN;

	if (dfd < 0)
		return dfd;
	for (int tries = 0; tries < 5; tries++) {
		struct stat st;
		int rc;

		fd = openat(dfd, LOCK_NAME, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK,
			    0600);
		if (fd < 0 && errno != ELOOP && errno != EISDIR && errno != ENXIO) {
			fd = -errno;
			break;
		}
		/* a link, a directory, a socket cannot be opened: replaced by name */
		if (fd < 0 && fstatat(dfd, LOCK_NAME, &st, AT_SYMLINK_NOFOLLOW)) {
			fd = -errno;
			break;
		}
		if (fd >= 0 && fstat(fd, &st)) {
			rc = -errno;
			close(fd);
			fd = rc;
			break;
		}
		if (fd >= 0 && lock_ok(&st))
			break;
		rc = replace(dfd, fd, &st);
		if (fd >= 0)
			close(fd);	/* its flock, if we took one, goes with it */
		fd = rc ? rc : -EAGAIN;
		if (rc)
			break;
	}
	close(dfd);
	return fd;
}

/* The kernel's word first: the FLOCK line of our file in /proc/locks
 * (0: not there; -1: no /proc/locks to ask). */
static pid_t holder_in_proc_locks(int fd)
{
	char path[4096], line[256];
	unsigned int maj, min;
	unsigned long ino;
	struct stat st;
	pid_t pid = 0;
	FILE *f;
	int p;

	if (fstat(fd, &st) || uc_path(path, sizeof(path), "/proc/locks"))
		return -1;
	f = fopen(path, "re");
	if (!f)
		return -1;
	/* "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF" (major:minor hex, inode
	 * decimal); READ for a shared lock (flock -s), which keeps us out as well */
	while (!pid && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*d: FLOCK %*s %*s %d %x:%x:%lu", &p, &maj, &min, &ino) == 4 &&
		    ino == st.st_ino && maj == major(st.st_dev) && min == minor(st.st_dev) && p > 0)
			pid = p;
	fclose(f);
	return pid;
}

static pid_t holder_of(int fd)
{
	char buf[32];
	ssize_t n;
	pid_t pid = holder_in_proc_locks(fd);
	long v;

	if (pid >= 0)
		return pid;
	/* else what the holder wrote (a fake root in the tests has no /proc/locks);
	 * not when the kernel answered: a holder that is no writer wrote nothing */
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	v = strtol(buf, NULL, 10);
	return v > 0 && v < (1L << 30) ? (pid_t)v : 0;
}

/* Held: say who holds it, for the next waiter (a hint: the lock holds without it). */
static void mark(int fd)
{
	char buf[32];
	int len = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());

	if (ftruncate(fd, 0))
		return;
	/* half a PID names someone else: none then (if this fails too, a waiter
	 * finds the holder in /proc/locks anyway) */
	if (pwrite(fd, buf, (size_t)len, 0) != len && ftruncate(fd, 0))
		return;
}

int uc_lock_try(struct uc_lock *l, pid_t *holder)
{
	if (holder)
		*holder = 0;
	/* a lock is the file the name leads to: checked after each flock, and
	 * while waiting on an old descriptor (the file may have been replaced) */
	for (int tries = 0; tries < 5; tries++) {
		int fd = l->fd >= 0 ? l->fd : open_lock();

		if (fd < 0) {
			l->fd = -1;
			return fd;
		}
		l->fd = fd;
		if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
			if (still_named(fd)) {
				mark(fd);
				return 0;
			}
		} else if (errno != EWOULDBLOCK) {
			int rc = -errno;

			uc_lock_release(l);
			return rc;
		} else if (still_named(fd)) {
			if (holder)
				*holder = holder_of(fd);
			return -EWOULDBLOCK;
		}
		uc_lock_release(l);
	}
	return -EAGAIN;
}

int uc_lock_wait(struct uc_lock *l, int timeout_ms)
{
	const struct timespec step = { 0, 50 * 1000 * 1000 };
	int waited = 0;

	for (;;) {
		int rc = uc_lock_try(l, NULL);

		if (rc != -EWOULDBLOCK)
			return rc;
		if (waited >= timeout_ms)
			return -ETIMEDOUT;
		nanosleep(&step, NULL);
		waited += 50;
	}
}

void uc_lock_release(struct uc_lock *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}
