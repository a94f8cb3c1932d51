/* Every /proc and /sys path goes through here (see sysroot.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uclamp/sysroot.h"

const char *uc_sysroot(void)
{
	static const char *root;

	if (!root) {
		const char *e = getenv(UC_SYSROOT_ENV);

		root = e ? e : "";
	}
	return root;
}

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

int uc_open(const char *abspath, int flags)
{
	char p[4096];
	int fd, rc = uc_path(p, sizeof(p), abspath);

	if (rc)
		return rc;
	fd = open(p, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
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

ssize_t uc_read_str(const char *abspath, char *buf, size_t n)
{
	ssize_t len = 0, r;
	int fd;

	if (n == 0)
		return -EINVAL;	/* no room even for the NUL */
	fd = uc_open(abspath, O_RDONLY);
	if (fd < 0)
		return fd;
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
	}
	/* a full buffer with more to come: too big for this reader */
	if ((size_t)len == n - 1) {
		char c;

		if (read(fd, &c, 1) == 1) {
			close(fd);
			return -EFBIG;
		}
	}
	close(fd);
	buf[len] = '\0';
	while (len > 0 && buf[len - 1] == '\n')
		buf[--len] = '\0';
	return len;
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

int uc_write_str(const char *abspath, const char *s)
{
	size_t len = strlen(s);
	ssize_t w;
	/* O_TRUNC: procfs and cgroupfs ignore it; a regular file in a fake root needs it */
	int fd = uc_open(abspath, O_WRONLY | O_TRUNC);

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

int uc_kernel_release(char *buf, size_t n)
{
	ssize_t len = uc_read_str("/proc/sys/kernel/osrelease", buf, n);

	return len < 0 ? (int)len : 0;
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
