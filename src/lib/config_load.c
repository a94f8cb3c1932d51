/*
 * Finding and opening the configuration: the default file and drop-in
 * directory, or the paths given. It can enable the fast path and clamp every
 * task, so, as sshd and sudo do, only a trusted file is read (owned by root,
 * or by the user running uclampctl when not root; not group- or
 * other-writable), and its directory too: else an error naming it, and nothing
 * read from it, nor from a FIFO, device or dangling link. /dev/stdin is read as
 * it is, /dev/null is empty.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "uclamp/config.h"
#include "uclamp/sysroot.h"

/* Record an error about a whole file (line 0) and return err, or -ENOMEM. */
#define FILE_ERR(c, path, err, ...) ({ \
	struct uc_conf_loc l_ = { uc_config_add_file((c), (path)), 0 }; \
	(!l_.file || uc_config_error((c), &l_, (err), __VA_ARGS__)) ? -ENOMEM : (err); \
})

static bool trusted(const struct stat *st)
{
	uid_t me = geteuid();

	return (st->st_uid == 0 || st->st_uid == me) && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

static int untrusted(struct uc_config *c, const char *path, const struct stat *st)
{
	return FILE_ERR(c, path, -EPERM, "not trusted (owner %u, mode 0%03o): make it root-owned "
			"and not group/world-writable", (unsigned)st->st_uid,
			(unsigned)(st->st_mode & 07777));
}

static int not_regular(struct uc_config *c, const char *path, mode_t m)
{
	const char *kind = S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" :
			   S_ISSOCK(m) ? "a socket" : S_ISCHR(m) ? "a character device" :
			   S_ISBLK(m) ? "a block device" : "something else";

	return FILE_ERR(c, path, -EINVAL, "%s, not a regular file: refused without reading it",
			kind);
}

/* A path that cannot be opened (err): a dangling symbolic link says so. */
static int cannot_read(struct uc_config *c, const char *path, int err, const char *what)
{
	char target[PATH_MAX];
	struct stat st;
	ssize_t n;

	if (err == -ENOENT && !lstat(path, &st) && S_ISLNK(st.st_mode)) {
		n = readlink(path, target, sizeof(target) - 1);
		target[n < 0 ? 0 : n] = '\0';
		return FILE_ERR(c, path, err,
				"a dangling symbolic link (its target '%s' does not exist)",
				target);
	}
	return FILE_ERR(c, path, err, "cannot read%s: %s", what, strerror(-err));
}

/* The invoker's own standard input (--config /dev/stdin): what they piped
 * in, not a file that someone else could have written; read as it is. */
static int load_stdin(struct uc_config *c, const char *path)
{
	FILE *f = fopen(path, "re");
	int rc;

	if (!f)
		return cannot_read(c, path, -errno, "");
	rc = uc_config_load_stream(c, f, path);
	fclose(f);
	return rc;
}

/* Open and read path: 0, -ENOMEM, or -errno when not read (recorded): missing,
 * unreadable, a dangling link, not a regular file (-EINVAL, never opened), not
 * trusted (-EPERM). /dev/stdin is read as it is, /dev/null is empty. */
static int load_file(struct uc_config *c, const char *path)
{
	struct stat st;
	FILE *f;
	int fd, rc;

	if (!strcmp(path, "/dev/stdin"))
		return load_stdin(c, path);
	/* before open(): opening a FIFO blocks, opening a device can do things */
	if (stat(path, &st))
		return cannot_read(c, path, -errno, "");
	if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3))	/* /dev/null: empty */
		return uc_config_add_file(c, path) ? 0 : -ENOMEM;
	if (!S_ISREG(st.st_mode))
		return not_regular(c, path, st.st_mode);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return cannot_read(c, path, -errno, "");
	/* what was opened is what counts (the path may have changed since) */
	if (fstat(fd, &st))
		rc = cannot_read(c, path, -errno, "");
	else if (!S_ISREG(st.st_mode))
		rc = not_regular(c, path, st.st_mode);
	else if (!trusted(&st))
		rc = untrusted(c, path, &st);
	else if (!(f = fdopen(fd, "r")))
		rc = -ENOMEM;
	else {
		rc = uc_config_load_stream(c, f, path);
		fclose(f);
		return rc;
	}
	close(fd);
	return rc;
}

/* *.conf not hidden (directories are skipped after; anything else is for
 * load_file to read or refuse) */
static int conf_name(const struct dirent *de)
{
	size_t len = strlen(de->d_name);

	return de->d_name[0] != '.' && len > 5 && !strcmp(de->d_name + len - 5, ".conf");
}

/* *.conf in name order. Returns how many were read, or -errno. */
static int load_dir(struct uc_config *c, const char *dir, bool missing_ok)
{
	const char *sep = *dir && dir[strlen(dir) - 1] == '/' ? "" : "/";
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent **de;
	struct stat st, lst;
	int rc = 0, n, nread = 0;

	if (fd < 0) {
		rc = -errno;
		if (rc == -ENOENT && missing_ok && lstat(dir, &lst))
			return 0;	/* missing, and not a dangling link */
		return cannot_read(c, dir, rc, " the directory");
	}
	if (fstat(fd, &st)) {
		rc = cannot_read(c, dir, -errno, " the directory");
		close(fd);
		return rc;
	}
	if (!trusted(&st)) {
		close(fd);
		return untrusted(c, dir, &st);
	}
	n = scandirat(fd, ".", &de, conf_name, uc_dirent_by_name);
	for (int i = 0; i < n; i++) {
		char *path = NULL;

		if (rc != -ENOMEM && (fstatat(fd, de[i]->d_name, &st, 0) || !S_ISDIR(st.st_mode))) {
			if (asprintf(&path, "%s%s%s", dir, sep, de[i]->d_name) < 0)
				rc = -ENOMEM;
			else
				rc = load_file(c, path);
			nread++;
			free(path);
		}
		free(de[i]);
	}
	if (n >= 0)
		free(de);
	close(fd);
	return n < 0 || rc == -ENOMEM ? -ENOMEM : nread;
}

int uc_config_load_path(struct uc_config *c, const char *path)
{
	size_t len = strlen(path);
	/* "DIR/" names a directory that may be missing, like the default
	 * uclampctl.d: callers (the Ansible role) need not look first */
	bool dir_slash = len > 1 && path[len - 1] == '/';
	struct stat st;
	int rc;

	if (dir_slash || (!stat(path, &st) && S_ISDIR(st.st_mode))) {
		rc = load_dir(c, path, dir_slash);
		return rc < 0 ? rc : 0;
	}
	return load_file(c, path);
}

int uc_config_load_default(struct uc_config *c)
{
	char path[PATH_MAX];
	struct stat st;
	int rc, n = 0;

	if ((rc = uc_path(path, sizeof(path), UC_CONFIG_FILE)))
		return rc;
	if (!lstat(path, &st)) {	/* a dangling link is an error, not "no file" */
		rc = load_file(c, path);
		if (rc == -ENOMEM)
			return rc;
		n++;
	}
	if ((rc = uc_path(path, sizeof(path), UC_CONFIG_DIR)))
		return rc;
	rc = load_dir(c, path, true);
	if (rc == -ENOMEM)
		return rc;
	return n + (rc > 0 ? rc : 0);
}

/* ---- checks across files ----------------------------------------------------- */

size_t uc_config_validate(struct uc_config *c)
{
	const struct uc_conf_value *smin = &c->sys[UC_SYS_MIN], *smax = &c->sys[UC_SYS_MAX];

	if (smin->set && smax->set && uc_conf_sys_util(&smin->v) > uc_conf_sys_util(&smax->v))
		uc_config_error(c, &smax->loc, -EINVAL, "[system] max %d is below min %d "
				"(set at %s:%d); the kernel needs min <= max",
				uc_conf_sys_util(&smax->v), uc_conf_sys_util(&smin->v),
				smin->loc.file, smin->loc.line);
	for (size_t i = 0; i < c->ncgroups; i++) {
		const struct uc_conf_cgroup *g = &c->cgroups[i];

		if (!g->had_setting)
			uc_config_error(c, &g->loc, -EINVAL,
					"[cgroup %s] sets nothing: add min or max", g->path);
	}
	for (size_t i = 0; i < c->ntasks; i++)
		uc_conf_tasks_validate(c, &c->tasks[i]);
	uc_config_sort_errors(c);
	c->nskips_load = c->nskips;
	c->nskips_load_total = c->nskips_total;
	return c->nerrors_total;
}
