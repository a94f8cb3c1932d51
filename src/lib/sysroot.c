/* Every /proc and /sys path goes through here (see sysroot.h). */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uclamp/sysroot.h"

/* uc_sysroot() lives in sysroot_seam.c: built with and without the test seam */
int uc_path(char *buf, size_t n, const char *abspath)
{
	const char *root = uc_sysroot();
	size_t rl = strlen(root), al = strlen(abspath);

	/* no snprintf: this runs for every /proc file of every thread */
	if (rl + al >= n)
		return -ENAMETOOLONG;
	memcpy(buf, root, rl);
	memcpy(buf + rl, abspath, al + 1);
	return 0;
}

static int file_open(const char *path, int flags)
{
	/* a mode for O_CREAT (only root's 0600 cache creates): without one, the
	 * mode is stack garbage and _FORTIFY_SOURCE (Debian's flags) aborts */
	int fd = open(path, flags | O_CLOEXEC, 0600);

	return fd < 0 ? -errno : fd;
}

int uc_open(const char *abspath, int flags)
{
	char p[4096];
	int rc = uc_path(p, sizeof(p), abspath);

	return rc ? rc : file_open(p, flags);
}

DIR *uc_opendir(const char *abspath)
{
	char p[4096];

	if (uc_path(p, sizeof(p), abspath)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	return opendir(p);
}

int uc_access(const char *abspath)
{
	char p[4096];
	int rc = uc_path(p, sizeof(p), abspath);

	return rc ? rc : access(p, F_OK) ? -errno : 0;
}

bool uc_exists(const char *abspath)
{
	return uc_access(abspath) == 0;
}

int uc_dirent_by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

ssize_t uc_file_read_at(int dfd, const char *path, char *buf, size_t n, unsigned int flags)
{
	ssize_t len = 0, r;
	int fd;

	if (n == 0)
		return -EINVAL;	/* no room even for the NUL */
	fd = openat(dfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((size_t)len < n - 1) {
		r = read(fd, buf + len, n - 1 - len);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			close(fd);
			return r;
		}
		if (r == 0)
			break;
		len += r;
		/* a head read of a /proc file: a short read ending a line is the
		 * whole file (seq_file fills the buffer otherwise), so no second
		 * read() just to see EOF (one syscall less per thread in a walk) */
		if ((flags & UC_READ_HEAD) && (size_t)len < n - 1 && buf[len - 1] == '\n')
			break;
	}
	/* a full buffer with more to come: too big for this reader */
	if ((size_t)len == n - 1 && !(flags & UC_READ_HEAD)) {
		char c;

		if (read(fd, &c, 1) == 1) {
			close(fd);
			return -EFBIG;
		}
	}
	close(fd);
	buf[len] = '\0';
	while (!(flags & UC_READ_HEAD) && len > 0 && buf[len - 1] == '\n')
		buf[--len] = '\0';
	return len;
}

ssize_t uc_read_str(const char *abspath, char *buf, size_t n)
{
	char p[4096];
	ssize_t len = uc_path(p, sizeof(p), abspath);

	if (!len)
		len = uc_file_read_at(AT_FDCWD, p, buf, n, 0);
	if (len < 0 && n)
		buf[0] = '\0';
	return len;
}

ssize_t uc_read_head(const char *abspath, char *buf, size_t n)
{
	char p[4096];
	int rc = uc_path(p, sizeof(p), abspath);

	return rc ? rc : uc_file_read_at(AT_FDCWD, p, buf, n, UC_READ_HEAD);
}

int uc_read_long(const char *abspath, long *v)
{
	char buf[64], *end;
	ssize_t len = uc_read_str(abspath, buf, sizeof(buf));

	if (len < 0)
		return (int)len;
	errno = 0;
	*v = strtol(buf, &end, 10);
	if (errno || end == buf)
		return -EINVAL;
	while (*end == ' ' || *end == '\t' || *end == '\n')
		end++;
	return *end ? -EINVAL : 0;
}

int uc_file_write(const char *path, const char *s)
{
	size_t len = strlen(s);
	ssize_t w;
	/* O_TRUNC as the shell's '>': procfs and cgroupfs ignore it, a fake root's file needs it */
	int fd = file_open(path, O_WRONLY | O_TRUNC);

	if (fd < 0)
		return fd;
	do
		w = write(fd, s, len);
	while (w < 0 && errno == EINTR);
	if (w < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	if (close(fd) < 0 && errno != EINTR)
		return -errno;
	return (size_t)w == len ? 0 : -EIO;
}

int uc_write_str(const char *abspath, const char *s)
{
	char p[4096];
	int rc = uc_path(p, sizeof(p), abspath);

	return rc ? rc : uc_file_write(p, s);
}

int uc_kernel_release(char *buf, size_t n)
{
	ssize_t len = uc_read_str("/proc/sys/kernel/osrelease", buf, n);

	return len < 0 ? (int)len : 0;
}

int uc_boot_id(char *buf, size_t n)
{
	ssize_t len = uc_read_str("/proc/sys/kernel/random/boot_id", buf, n);

	return len > 0 ? 0 : len < 0 ? (int)len : -ENOENT;
}

int uc_kernel_version(void)
{
	char rel[128];
	int a = 0, b = 0, c = 0;

	if (uc_kernel_release(rel, sizeof(rel)) < 0)
		return 0;
	if (sscanf(rel, "%d.%d.%d", &a, &b, &c) < 2)
		return 0;
	return UC_KVER(a, b, c);
}
