/*
 * cgroup clamps, discovery and I/O: the layout of the cpu hierarchy (v1, v2,
 * hybrid), the one path checker, single-value reads and writes. libcgroup
 * (only here, opened when first needed) finds the mount; reads and writes are
 * plain open/read/write under it, one write(2) per value, on purpose:
 * libcgroup 2.0.2's cgroup_modify_cgroup() writes every value its struct
 * holds and loses errno (ECGROUPVALUENOTEXIST), which we need (ERANGE,
 * EACCES, EROFS, ENOENT: no file or no group); and unit tests point this
 * code at a directory tree (uc_cg_use()), which libcgroup cannot be.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <mntent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <libcgroup.h>

#include "uclamp/cgroup.h"
#include "uclamp/dlib.h"
#include "uclamp/sysroot.h"

UC_DLIB_FNS(dlu, UC_CGROUP_FNS);
#define dl dlu.f

static struct uc_cg_info layout;
static int layout_state;	/* 0: not looked for, 1: have one, -errno: none */

/* ---- discovery ------------------------------------------------------------ */

/* libcgroup's default logger prints errors to stdout; a library must not */
static void quiet_logger(void *userdata, int level, const char *fmt, va_list ap)
{
}

/* Is w one of the words of s, separated by any of sep? (s is cut up.) */
static bool has_word(char *s, const char *sep, const char *w)
{
	for (char *save = NULL, *t = strtok_r(s, sep, &save); t; t = strtok_r(NULL, sep, &save))
		if (!strcmp(t, w))
			return true;
	return false;
}

/* A v2 mount's root lists the controllers it has: -ENOENT without cpu. */
static int v2_lacks_cpu(const char *mnt)
{
	char path[PATH_MAX], buf[512];
	ssize_t n;

	if ((size_t)snprintf(path, sizeof(path), "%s/cgroup.controllers", mnt) >= sizeof(path))
		return -ENAMETOOLONG;
	n = uc_file_read_at(AT_FDCWD, path, buf, sizeof(buf), 0);
	if (n < 0)
		return uc_err_absent((int)n) ? -EIO : (int)n;	/* every v2 root has it */
	return has_word(buf, " \n", "cpu") ? -EIO : -ENOENT;
}

/* libcgroup said "not mounted" or "no such controller", which 2.0.2 also says
 * when it could not read a mount: believed only when the whole mount table
 * agrees (no v1 cpu mount, no v2 root listing cpu); else the error, or -EIO. */
static int confirm_absent(void)
{
	struct mntent *m;
	int rc = -ENOENT;
	FILE *f;

	errno = 0;
	f = setmntent("/proc/self/mounts", "re");
	if (!f)
		return errno ? -errno : -EIO;
	while (uc_err_absent(rc)) {
		errno = 0;
		if (!(m = getmntent(f))) {
			rc = errno ? -errno : rc;	/* the end, or a read error */
			break;
		}
		if (!strcmp(m->mnt_type, "cgroup") && hasmntopt(m, "cpu"))
			rc = -EIO;
		else if (!strcmp(m->mnt_type, "cgroup2"))
			rc = v2_lacks_cpu(m->mnt_dir);
	}
	endmntent(f);
	return rc;
}

/* libcgroup's error code as -errno */
static int cg_errno(int rc)
{
	if (rc == ECGOTHER) {
		int e = dl.cgroup_get_last_errno();

		return e > 0 ? -e : -EIO;
	}
	if (rc == ECGROUPNOTMOUNTED || rc == ECGROUPNOTEXIST || rc == ECGROUPSUBSYSNOTMOUNTED)
		return confirm_absent();
	return -EIO;	/* any other failure of libcgroup's is no proof of absence */
}

/* The v2 mount beside v1 controllers (hybrid), from the real mount table:
 * libcgroup 2.0.2 has no call that lists it. */
static void find_unified(char *out, size_t n)
{
	FILE *f = setmntent("/proc/self/mounts", "r");
	struct mntent *m;

	out[0] = '\0';
	if (!f)
		return;
	while ((m = getmntent(f))) {
		if (!strcmp(m->mnt_type, "cgroup2")) {
			snprintf(out, n, "%s", m->mnt_dir);
			break;
		}
	}
	endmntent(f);
}

/* Fill info from libcgroup and the mount table: 0 or -errno. */
static int discover(struct uc_cg_info *info)
{
	struct statfs sfs;
	char *mnt = NULL;
	int rc;

	memset(info, 0, sizeof(*info));
	if (uc_test_cg2_mount()) {	/* the test programs' fake tree */
		snprintf(info->mount, sizeof(info->mount), "%s", uc_test_cg2_mount());
		info->version = UC_CG_V2;
		return 0;
	}
	if (UC_DLIB_LOAD(UC_DLIB_CGROUP, dlu))
		return -ENOPKG;
	dl.cgroup_set_logger(quiet_logger, CGROUP_LOG_ERROR, NULL);
	rc = dl.cgroup_init();
	if (rc == 0)
		rc = dl.cgroup_get_subsys_mount_point("cpu", &mnt);
	if (rc) {
		free(mnt);
		return cg_errno(rc);
	}
	if (!mnt || strlen(mnt) >= sizeof(info->mount)) {
		free(mnt);
		return -ENAMETOOLONG;
	}
	strcpy(info->mount, mnt);
	free(mnt);

	/* the file system type tells the version, as libcgroup itself does */
	if (statfs(info->mount, &sfs) < 0)
		return -errno;
	if ((unsigned long)sfs.f_type == CGROUP2_SUPER_MAGIC) {
		info->version = UC_CG_V2;
	} else if ((unsigned long)sfs.f_type == CGROUP_SUPER_MAGIC) {
		info->version = UC_CG_V1;
		find_unified(info->unified, sizeof(info->unified));
		info->hybrid = info->unified[0] != '\0';
	} else {
		return -ENOENT;
	}
	return 0;
}

/* The one layout: discovered on first need, then kept for the process. */
static const struct uc_cg_info *get_layout(int *err)
{
	if (layout_state == 0) {
		int rc = discover(&layout);

		layout_state = rc ? rc : 1;
	}
	*err = layout_state < 0 ? layout_state : 0;
	return layout_state == 1 ? &layout : NULL;
}

int uc_cg_init(struct uc_cg_info *info)
{
	int err;
	const struct uc_cg_info *l = get_layout(&err);

	if (l)
		*info = *l;
	else
		memset(info, 0, sizeof(*info));
	return err;
}

void uc_cg_use(const struct uc_cg_info *info)
{
	if (info)
		layout = *info;
	layout_state = info ? 1 : 0;
}

const struct uc_cg_info *uc_cg_layout(void)
{
	int err;

	return get_layout(&err);
}

const char *uc_cg_version_name(enum uc_cg_version v)
{
	return v == UC_CG_V2 ? "v2" : v == UC_CG_V1 ? "v1" : "none";
}

/* ---- paths ---------------------------------------------------------------- */

/* The next component of *s (*cl bytes), *s moved past it; NULL when none is left. */
static const char *next_comp(const char **s, size_t *cl)
{
	const char *c = *s + strspn(*s, "/");

	*cl = strcspn(c, "/");
	*s = c + *cl;
	return *cl ? c : NULL;
}

static bool is_dots(const char *c, size_t cl)
{
	return cl == 2 && c[0] == '.' && c[1] == '.';
}

/*
 * Normalise an absolute path lexically: "//" and "." dropped, ".." pops
 * ("/.." stays "/"). Symlinks are not followed: that is realpath's job.
 */
static int normalize(const char *in, char *out, size_t n)
{
	size_t len = 0, cl;
	const char *c;

	if (n < 2 || in[0] != '/')
		return -EINVAL;
	out[0] = '\0';
	while ((c = next_comp(&in, &cl))) {
		if (is_dots(c, cl)) {
			char *slash = strrchr(out, '/');

			len = slash ? (size_t)(slash - out) : 0;
			out[len] = '\0';
		} else if (cl != 1 || c[0] != '.') {
			if (len + 1 + cl + 1 > n)
				return -ENAMETOOLONG;
			out[len++] = '/';
			memcpy(out + len, c, cl);
			len += cl;
			out[len] = '\0';
		}
	}
	if (len == 0)
		strcpy(out, "/");
	return 0;
}

/* Is path (normalised) the directory top or below it? Then *rest = the part after top. */
static bool under(const char *path, const char *top, const char **rest)
{
	size_t tl = strlen(top);

	if (tl == 1 && top[0] == '/')
		tl = 0;	/* everything is under "/" */
	if (strncmp(path, top, tl) || (path[tl] != '\0' && path[tl] != '/'))
		return false;
	if (rest)
		*rest = path[tl] == '/' ? path + tl + 1 : path + tl;
	return true;
}

bool uc_cg_path_escapes(const char *path)
{
	const char *c;
	size_t cl;

	while ((c = next_comp(&path, &cl)))
		if (is_dots(c, cl))
			return true;
	return false;
}

int uc_cg_path_next(const char **s, char *prefix, size_t n, size_t *len)
{
	const char *rest = *s;
	size_t cl;
	const char *c = next_comp(&rest, &cl);

	if (!c)
		return 0;
	if (*len + cl + 2 > n)
		return -ENAMETOOLONG;
	if (*len)
		prefix[(*len)++] = '/';
	memcpy(prefix + *len, c, cl);
	*len += cl;
	prefix[*len] = '\0';
	*s = rest + strspn(rest, "/");
	return 1;
}

static int set_rel(const char *rest, char *rel, size_t n)
{
	if (strlen(rest) >= n)
		return -ENAMETOOLONG;
	strcpy(rel, rest);
	return 0;
}

int uc_cg_resolve(const struct uc_cg_info *info, const char *user_path, char *rel, size_t n)
{
	char cand[PATH_MAX * 2], norm[PATH_MAX], mnt[PATH_MAX], real[PATH_MAX], mreal[PATH_MAX];
	const char *rest;
	bool lexically_inside;
	struct stat st;
	int rc;

	if (!user_path)
		return -EINVAL;
	if (normalize(info->mount, mnt, sizeof(mnt)))
		return -EINVAL;
	if (user_path[0] == '/')
		rc = snprintf(cand, sizeof(cand), "%s", user_path);
	else
		rc = snprintf(cand, sizeof(cand), "%s/%s", mnt, user_path);
	if (rc < 0 || (size_t)rc >= sizeof(cand))
		return -ENAMETOOLONG;
	if ((rc = normalize(cand, norm, sizeof(norm))))
		return rc;
	/* ".." lexically ("a/../../b" is outside, whatever links say), then realpath
	 * for the links left: out of the mount is refused, but an absolute path may
	 * reach it through one (/sys/fs/cgroup/cpu -> cpu,cpuacct) */
	lexically_inside = under(norm, mnt, NULL);
	if (!realpath(norm, real)) {
		if (errno == ENOENT && !lexically_inside)
			return -EXDEV;
		return -errno;
	}
	if (!realpath(mnt, mreal))
		return -errno;
	if (!under(real, mreal, &rest))
		return -EXDEV;
	if (stat(real, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	return set_rel(rest, rel, n);
}

/* "/a/b" from /proc/PID/cgroup -> "a/b", refusing paths that climb out. */
static int cg_path_to_rel(const char *path, char *rel, size_t n)
{
	char norm[PATH_MAX];
	int rc;

	if (path[0] != '/')
		return -EINVAL;
	/* outside our cgroup namespace the kernel prints "/../.." */
	if (uc_cg_path_escapes(path))
		return -EXDEV;
	if ((rc = normalize(path, norm, sizeof(norm))))
		return rc;
	return set_rel(norm + 1, rel, n);
}

int uc_cg_of_pid(const struct uc_cg_info *info, pid_t pid, char *rel, size_t n)
{
	char path[64], buf[16384], *line, *save = NULL;
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	len = uc_read_str(path, buf, sizeof(buf));
	if (len == -ENOENT)
		return -ESRCH;
	if (len < 0)
		return (int)len;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (!c2)
			continue;
		*c2 = '\0';	/* the comma-separated controllers end here */
		if (info->version == UC_CG_V2) {
			if (c1 - line == 1 && line[0] == '0' && c2 == c1 + 1)
				return cg_path_to_rel(c2 + 1, rel, n);
		} else if (has_word(c1 + 1, ",", "cpu")) {
			return cg_path_to_rel(c2 + 1, rel, n);
		}
	}
	return -ENOENT;
}

/* mount/rel/name into buf. -EXDEV when rel has a ".." component. */
static int cg_path(const char *rel, const char *name, char *buf, size_t n)
{
	int len, err;
	const struct uc_cg_info *info = get_layout(&err);

	if (!info)
		return err;
	if (uc_cg_path_escapes(rel))
		return -EXDEV;
	while (*rel == '/')
		rel++;
	len = snprintf(buf, n, "%s%s%s%s%s", info->mount, *rel ? "/" : "", rel, name ? "/" : "",
		       name ? name : "");
	return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

bool uc_cg_parent(const char *rel, char *parent, size_t n)
{
	const char *slash = strrchr(rel, '/');
	size_t len;

	if (!*rel) {
		if (n)
			parent[0] = '\0';
		return false;
	}
	len = slash ? (size_t)(slash - rel) : 0;
	if (len >= n)
		len = n - 1;
	memcpy(parent, rel, len);
	parent[len] = '\0';
	return true;
}

/* ---- file access ---------------------------------------------------------- */

static int read_file(const char *rel, const char *name, char *buf, size_t n, unsigned flags)
{
	char path[PATH_MAX];
	int rc = cg_path(rel, name, path, sizeof(path));
	ssize_t len;

	if (rc)
		return rc;
	len = uc_file_read_at(AT_FDCWD, path, buf, n, flags);
	return len < 0 ? (int)len : 0;
}

/* One write(2); the kernel's errno comes back as is. */
static int write_file(const char *rel, const char *name, const char *s)
{
	char path[PATH_MAX];
	int rc = cg_path(rel, name, path, sizeof(path));

	return rc ? rc : uc_file_write(path, s);
}

int uc_cg_writable(const char *rel, const char *name)
{
	char path[PATH_MAX];
	int rc = cg_path(rel, name, path, sizeof(path));

	if (rc)
		return rc;
	/* effective ids: root is not refused on mode bits, a read-only mount is */
	return faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) ? -errno : 0;
}

static const char *clamp_file(enum uc_attr attr)
{
	return attr == UC_ATTR_MIN ? "cpu.uclamp.min" :
	       attr == UC_ATTR_MAX ? "cpu.uclamp.max" : NULL;
}

int uc_cg_read(const char *rel, enum uc_attr attr, int *pct100)
{
	char buf[64];
	int rc;

	if (!clamp_file(attr))
		return -EINVAL;
	rc = read_file(rel, clamp_file(attr), buf, sizeof(buf), 0);
	if (rc)
		return rc;
	return uc_pct_parse_kernel(buf, pct100);
}

int uc_cg_write(const char *rel, enum uc_attr attr, int pct100)
{
	char buf[16];

	if (!clamp_file(attr))
		return -EINVAL;
	if (pct100 < 0 || pct100 > UC_PCT_MAX)
		return -ERANGE;
	return write_file(rel, clamp_file(attr), uc_pct100_format(pct100, buf, sizeof(buf)));
}

/* subtree_control exists on v2 only: 0, -EOPNOTSUPP, or no layout's -errno */
static int need_v2(void)
{
	int err;
	const struct uc_cg_info *info = get_layout(&err);

	if (!info)
		return err;
	return info->version == UC_CG_V2 ? 0 : -EOPNOTSUPP;
}

int uc_cg_subtree_cpu(const char *rel, bool *enabled)
{
	char buf[512];
	int rc = need_v2();

	if (!rc)
		rc = read_file(rel, "cgroup.subtree_control", buf, sizeof(buf), 0);
	if (rc)
		return rc;
	buf[strcspn(buf, "\n")] = '\0';
	*enabled = has_word(buf, " ", "cpu");
	return 0;
}

int uc_cg_set_subtree_cpu(const char *rel, bool enable)
{
	int rc = need_v2();

	return rc ? rc : write_file(rel, "cgroup.subtree_control", enable ? "+cpu" : "-cpu");
}

/* systemd marks a delegated unit's cgroup (Delegate=yes) with one of these */
int uc_cg_delegated(const char *rel, bool *delegated)
{
	static const char *const names[] = { "trusted.delegate", "user.delegate" };
	char path[PATH_MAX], v[8];
	int rc = cg_path(rel, NULL, path, sizeof(path));

	*delegated = false;
	if (rc)
		return rc;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		ssize_t len = getxattr(path, names[i], v, sizeof(v) - 1);

		if (len < 0) {
			/* ENODATA: not set; ENOTSUP/EPERM: this fs or user cannot have it */
			if (errno == ENODATA || errno == ENOTSUP || errno == EPERM)
				continue;
			return -errno;
		}
		v[len] = '\0';
		if (v[0] == '1') {
			*delegated = true;
			return 0;
		}
	}
	return 0;
}

static int cg_stat(const char *rel, const char *name, struct stat *st)
{
	char path[PATH_MAX];
	int rc = cg_path(rel, name, path, sizeof(path));

	if (rc)
		return rc;
	return stat(path, st) < 0 ? -errno : 0;
}

int uc_cg_state(const char *rel, enum uc_cg_state *st)
{
	char parent[PATH_MAX];
	struct stat sb;
	bool cpu = true;
	int rc;
	const struct uc_cg_info *info = get_layout(&rc);

	if (!info)
		return rc;
	if ((rc = cg_stat(rel, NULL, &sb)))
		return rc;
	if (!*rel) {
		*st = UC_CG_IS_ROOT;
		return 0;
	}
	rc = cg_stat(rel, "cpu.uclamp.min", &sb);
	if (rc == 0) {
		*st = UC_CG_HAS_CLAMPS;
		return 0;
	}
	if (rc != -ENOENT)
		return rc;
	if (info->version == UC_CG_V2) {
		uc_cg_parent(rel, parent, sizeof(parent));
		if ((rc = uc_cg_subtree_cpu(parent, &cpu)))
			return rc;
	}
	*st = cpu ? UC_CG_NO_GROUP_CLAMPS : UC_CG_CPU_OFF;
	return 0;
}

const char *uc_cg_state_reason(enum uc_cg_state st)
{
	switch (st) {
	case UC_CG_HAS_CLAMPS: return "";
	case UC_CG_IS_ROOT: return "root cgroup: no clamp files, the system clamps apply";
	case UC_CG_CPU_OFF: return "cpu not in the parent's cgroup.subtree_control";
	case UC_CG_NO_GROUP_CLAMPS:
		return "no cpu.uclamp files: kernel without CONFIG_UCLAMP_TASK_GROUP";
	}
	return "?";
}

int uc_cg_ident(const char *rel, unsigned long long *ident)
{
	struct stat st;
	int rc = cg_stat(rel, NULL, &st);

	if (rc)
		return rc;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	*ident = (unsigned long long)st.st_ino;
	return 0;
}

int uc_cg_first_proc(const char *rel, pid_t *pid)
{
	char buf[32];
	int rc = read_file(rel, "cgroup.procs", buf, sizeof(buf), UC_READ_HEAD);

	*pid = 0;
	if (rc)
		return rc;
	*pid = (pid_t)strtol(buf, NULL, 10);
	return 0;
}

bool uc_cg_threaded(const char *rel)
{
	char buf[32];

	/* "domain" keeps a process's threads together */
	return *rel && !read_file(rel, "cgroup.type", buf, sizeof(buf), 0) &&
	       strcmp(buf, "domain") != 0;
}

static int not_dots(const struct dirent *d)
{
	return strcmp(d->d_name, ".") && strcmp(d->d_name, "..");
}

int uc_cg_children(const char *rel, char ***names, size_t *n)
{
	char path[PATH_MAX];
	struct dirent **de;
	char **v = NULL;
	size_t cnt = 0;
	int rc = cg_path(rel, NULL, path, sizeof(path)), nde;

	*names = NULL;
	*n = 0;
	if (rc)
		return rc;
	nde = scandir(path, &de, not_dots, uc_dirent_by_name);
	if (nde < 0)
		return -errno;
	if (nde && !(v = calloc((size_t)nde, sizeof(*v))))
		rc = -ENOMEM;
	for (int i = 0; i < nde; i++) {
		bool dir = de[i]->d_type == DT_DIR;
		char sub[PATH_MAX * 2];
		struct stat st;

		snprintf(sub, sizeof(sub), "%s/%s", path, de[i]->d_name);
		if (de[i]->d_type == DT_UNKNOWN)
			dir = !lstat(sub, &st) && S_ISDIR(st.st_mode);
		if (!rc && dir)
			rc = (v[cnt++] = strdup(de[i]->d_name)) ? 0 : -ENOMEM;
		free(de[i]);
	}
	free(de);
	if (rc) {
		uc_cg_free_names(v, cnt);
		return rc;
	}
	*names = v;
	*n = cnt;
	return 0;
}

void uc_cg_free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
