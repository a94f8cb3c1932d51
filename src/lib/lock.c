/* One writer at a time (see lock.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "uclamp/lock.h"
#include "uclamp/sysroot.h"

/*
 * 0600, ours: flock(2) needs only a read-only open, so a file others can
 * read is a lock any user can hold, and stop every writer. An existing file
 * (an older uclampctl made it 0644) is checked on the open descriptor and
 * corrected, as the symbol cache is.
 */
static int open_lock(void)
{
	char dir[4096], path[4096];
	struct stat st;
	int fd;

	if (uc_path(dir, sizeof(dir), UC_LOCK_DIR) || uc_path(path, sizeof(path), UC_LOCK_PATH))
		return -ENAMETOOLONG;
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	if ((st.st_uid != geteuid() && fchown(fd, geteuid(), (gid_t)-1)) ||
	    ((st.st_mode & 07777) != 0600 && fchmod(fd, 0600))) {
		int rc = -errno;

		close(fd);
		return rc;
	}
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
	int fd = l->fd >= 0 ? l->fd : open_lock();

	if (holder)
		*holder = 0;
	if (fd < 0) {
		l->fd = -1;
		return fd;
	}
	l->fd = fd;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
		mark(fd);
		return 0;
	}
	if (errno != EWOULDBLOCK) {
		int rc = -errno;

		uc_lock_release(l);
		return rc;
	}
	if (holder)
		*holder = holder_of(fd);
	return -EWOULDBLOCK;
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
