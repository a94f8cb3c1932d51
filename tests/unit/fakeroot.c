/* The unit tests' temporary fake root (see fakeroot.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "uclamp/sysroot.h"
#include "fakeroot.h"

int fr_create(char *buf, size_t n, const char *tag)
{
	const char *tmp = getenv("TMPDIR");
	int len;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	len = snprintf(buf, n, "%s/uclampctl-%s.XXXXXX", tmp, tag);
	if (len < 0 || (size_t)len >= n)
		return -ENAMETOOLONG;
	return mkdtemp(buf) ? 0 : -errno;
}

int fr_sysroot(char *buf, size_t n, const char *tag)
{
	int rc = fr_create(buf, n, tag);

	if (!rc && setenv(UC_SYSROOT_ENV, buf, 1))
		rc = -errno;
	return rc;
}

int fr_path(char *buf, size_t n, const char *root, const char *rel)
{
	int len;

	while (*rel == '/')
		rel++;
	len = snprintf(buf, n, "%s%s%s", root, *rel ? "/" : "", rel);
	return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

ssize_t fr_read(const char *root, const char *rel, char *buf, size_t n)
{
	char p[PATH_MAX * 2];
	FILE *f;
	size_t len;

	if (fr_path(p, sizeof(p), root, rel))
		return -ENAMETOOLONG;
	if (!(f = fopen(p, "r")))
		return -errno;
	len = fread(buf, 1, n - 1, f);
	fclose(f);
	buf[len] = '\0';
	return (ssize_t)len;
}

/* mkdir -p of an absolute path's directories; the last component too if last */
static int mkdirs(char *p, int last)
{
	char *s = p;

	while ((s = strchr(s + 1, '/'))) {
		*s = '\0';
		if (mkdir(p, 0755) && errno != EEXIST) {
			*s = '/';
			return -errno;
		}
		*s = '/';
	}
	if (last && mkdir(p, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

int fr_mkdir(const char *root, const char *rel)
{
	char p[PATH_MAX];
	int rc = fr_path(p, sizeof(p), root, rel);

	return rc ? rc : mkdirs(p, 1);
}

int fr_write(const char *root, const char *rel, const char *text)
{
	char p[PATH_MAX];
	size_t len = strlen(text);
	int rc = fr_path(p, sizeof(p), root, rel);
	int fd;

	if (rc || (rc = mkdirs(p, 0)))
		return rc;
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	while (len) {
		ssize_t w = write(fd, text, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			break;
		}
		text += w;
		len -= (size_t)w;
	}
	if (close(fd) && !rc)
		rc = -errno;
	return rc;
}

int fr_symlink(const char *root, const char *rel, const char *target)
{
	char p[PATH_MAX];
	int rc = fr_path(p, sizeof(p), root, rel);

	if (rc || (rc = mkdirs(p, 0)))
		return rc;
	return symlink(target, p) ? -errno : 0;
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		return rmdir(path) ? -errno : 0;
	return unlink(path) ? -errno : 0;
}

int fr_remove(const char *root, const char *rel)
{
	char p[PATH_MAX];
	struct stat st;
	int rc = fr_path(p, sizeof(p), root, rel);

	if (rc)
		return rc;
	if (lstat(p, &st))
		return errno == ENOENT ? 0 : -errno;
	/* depth first, never through a symlink (a test tree links to "/") */
	rc = nftw(p, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	return rc < 0 ? -errno : rc;
}

int fr_destroy(const char *root)
{
	return fr_remove(root, "");
}

void fr_cgroup(const char *root, const char *rel, enum uc_cg_version v)
{
	struct uc_cg_info i = { .version = v };

	assert_int_equal(fr_path(i.mount, sizeof(i.mount), root, rel), 0);
	uc_cg_use(&i);
}

int fr_run_group(const struct fr_suite *s, const char *name, const struct CMUnitTest *tests,
		 size_t n, int (*setup)(void **state), int (*teardown)(void **state))
{
	int rc = s->sysroot ? fr_sysroot(s->root, s->size, s->tag) :
			      fr_create(s->root, s->size, s->tag);

	if (rc) {
		fprintf(stderr, "%s: cannot make a fake root in $TMPDIR: %s\n", name,
			strerror(-rc));
		return 1;
	}
	for (size_t i = 0; !rc && i < FR_MAX_DIRS && s->dirs[i]; i++)
		rc = fr_mkdir(s->root, s->dirs[i]);
	if (rc)
		fprintf(stderr, "%s: cannot make the fake root's directories in %s: %s\n", name,
			s->root, strerror(-rc));
	else
		rc = _cmocka_run_group_tests(name, tests, n, setup, teardown);
	if (fr_destroy(s->root)) {
		fprintf(stderr, "%s: could not remove %s\n", name, s->root);
		rc = rc ? rc : 1;
	}
	return rc ? 1 : 0;
}
