/* Files written through descriptors in a directory (see afile.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "uclamp/afile.h"
#include "uclamp/sysroot.h"

#define TMP_TRIES 100

int uc_dir_open(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int uc_dir_open_trusted(const char *abspath, mode_t mode)
{
	char p[4096];
	struct stat st;
	int fd, rc = uc_path(p, sizeof(p), abspath);

	if (rc)
		return rc;
	fd = uc_dir_open(p);
	if (fd == -ENOENT && mode) {
		if (mkdir(p, mode) && errno != EEXIST)
			return -errno;
		fd = uc_dir_open(p);
	}
	if (fd < 0)
		return fd;
	/* checked on the descriptor: what is checked is what is used */
	if (fstat(fd, &st) || !S_ISDIR(st.st_mode) ||
	    (st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

bool uc_afile_is(int dfd, const char *name, int fd)
{
	struct stat a, b;

	return !fstat(fd, &a) && !fstatat(dfd, name, &b, AT_SYMLINK_NOFOLLOW) &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int uc_afile_create(struct uc_afile *a, int dfd, const char *name, mode_t mode)
{
	struct stat st;
	int fd = -1;

	a->dfd = dfd;
	a->fd = -1;
	for (int i = 0; i < TMP_TRIES && fd < 0; i++) {
		if ((size_t)snprintf(a->tmp, sizeof(a->tmp), ".%s.%d.%d", name, (int)getpid(), i) >=
		    sizeof(a->tmp))
			return -ENAMETOOLONG;
		fd = openat(dfd, a->tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd < 0 && errno != EEXIST)
			return -errno;
	}
	if (fd < 0)
		return -EEXIST;
	a->fd = fd;
	if (fstat(fd, &st)) {
		int rc = -errno;

		uc_afile_close(a);	/* cannot tell it from another: left there */
		return rc;
	}
	a->dev = st.st_dev;
	a->ino = st.st_ino;
	if (fchmod(fd, mode)) {
		int rc = -errno;

		uc_afile_abort(a);
		return rc;
	}
	return 0;
}

int uc_afile_commit(struct uc_afile *a, const char *name)
{
	if (fsync(a->fd))
		return -errno;
	if (renameat(a->dfd, a->tmp, a->dfd, name))
		return -errno;
	a->tmp[0] = '\0';
	return uc_afile_is(a->dfd, name, a->fd) ? 0 : -ESTALE;
}

void uc_afile_abort(struct uc_afile *a)
{
	struct stat st;

	/* by name, but only while the name is still the file made (unlinkat
	 * removes a link itself, never what it points to) */
	if (a->fd >= 0 && a->tmp[0] && !fstatat(a->dfd, a->tmp, &st, AT_SYMLINK_NOFOLLOW) &&
	    st.st_dev == a->dev && st.st_ino == a->ino)
		unlinkat(a->dfd, a->tmp, 0);
	a->tmp[0] = '\0';
	uc_afile_close(a);
}

void uc_afile_close(struct uc_afile *a)
{
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
}
