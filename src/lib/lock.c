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

static int open_lock(void)
{
	char dir[4096], path[4096];
	int fd;

	if (uc_path(dir, sizeof(dir), UC_LOCK_DIR) || uc_path(path, sizeof(path), UC_LOCK_PATH))
		return -ENAMETOOLONG;
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	/* 0644: others may read the holder's PID; only root can take the lock */
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	return fd < 0 ? -errno : fd;
}

/* The kernel's word first: the FLOCK line of our file in /proc/locks. */
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
		return 0;
	f = fopen(path, "re");
	if (!f)
		return 0;
	/* "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF" (major:minor hex, inode decimal) */
	while (!pid && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*d: FLOCK %*s WRITE %d %x:%x:%lu", &p, &maj, &min, &ino) == 4 &&
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

	if (pid)
		return pid;
	/* else what the holder wrote (a fake root in the tests has no /proc/locks) */
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	v = strtol(buf, NULL, 10);
	return v > 0 && v < (1L << 30) ? (pid_t)v : 0;
}

/* Held: say who holds it, for the next waiter. */
static void mark(int fd)
{
	char buf[32];
	int len = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());

	if (ftruncate(fd, 0) == 0 && pwrite(fd, buf, (size_t)len, 0) != len)
		(void)ftruncate(fd, 0);
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
