/*
 * cgroup clamps: discovery of the cpu hierarchy (v1, v2, hybrid), path
 * checks, single-value reads and writes, effective values, plans.
 *
 * libcgroup (only here) finds the mount of the cpu controller. Reads and
 * writes of cpu.uclamp.* and cgroup.subtree_control are plain open/read/write
 * on files under that mount, on purpose:
 *  - libcgroup 2.0.2's cgroup_modify_cgroup() writes every value the cgroup
 *    struct holds; even a struct built with one value goes through
 *    cg_set_control_value(), which turns a failed open into
 *    ECGROUPVALUENOTEXIST and loses errno. We need errno: ERANGE/EINVAL from
 *    the kernel, EACCES/EROFS for the one-line explanations, ENOENT to tell
 *    "no such file" from "no such group";
 *  - the same code then runs against a directory tree in unit tests
 *    (uc_cg_use()), which libcgroup cannot be pointed at.
 * One write(2) per value, nothing else in the group is touched.
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
#include <unistd.h>

#include <libcgroup.h>

#include "uclamp/cgroup.h"
#include "uclamp/sched.h"
#include "uclamp/sysroot.h"

static struct uc_cg_info layout;
static int layout_state;	/* 0: not looked for, 1: have one, -errno: none */

/* ---- discovery ------------------------------------------------------------ */

/* libcgroup's default logger prints errors to stdout; a library must not */
static void quiet_logger(void *userdata, int level, const char *fmt, va_list ap)
{
	(void)userdata;
	(void)level;
	(void)fmt;
	(void)ap;
}

static int cg_errno(int rc)
{
	if (rc == ECGOTHER) {
		int e = cgroup_get_last_errno();

		return e > 0 ? -e : -EIO;
	}
	/* not mounted, no such controller: no cpu hierarchy for us */
	return -ENOENT;
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

int uc_cg_init(struct uc_cg_info *info)
{
	struct statfs sfs;
	char *mnt = NULL;
	int rc;

	memset(info, 0, sizeof(*info));
	cgroup_set_logger(quiet_logger, CGROUP_LOG_ERROR, NULL);
	rc = cgroup_init();
	if (rc == 0)
		rc = cgroup_get_subsys_mount_point("cpu", &mnt);
	if (rc) {
		free(mnt);
		layout_state = cg_errno(rc);
		return layout_state;
	}
	if (!mnt || strlen(mnt) >= sizeof(info->mount)) {
		free(mnt);
		layout_state = -ENAMETOOLONG;
		return layout_state;
	}
	strcpy(info->mount, mnt);
	free(mnt);

	/* the file system type tells the version, as libcgroup itself does */
	if (statfs(info->mount, &sfs) < 0) {
		layout_state = -errno;
		return layout_state;
	}
	if ((unsigned long)sfs.f_type == CGROUP2_SUPER_MAGIC) {
		info->version = UC_CG_V2;
	} else if ((unsigned long)sfs.f_type == CGROUP_SUPER_MAGIC) {
		info->version = UC_CG_V1;
		find_unified(info->unified, sizeof(info->unified));
		info->hybrid = info->unified[0] != '\0';
	} else {
		layout_state = -ENOENT;
		return layout_state;
	}
	layout = *info;
	layout_state = 1;
	return 0;
}

void uc_cg_use(const struct uc_cg_info *info)
{
	layout = *info;
	layout_state = 1;
}

const struct uc_cg_info *uc_cg_layout(void)
{
	if (layout_state == 0) {
		struct uc_cg_info i;

		uc_cg_init(&i);
	}
	return layout_state == 1 ? &layout : NULL;
}

const char *uc_cg_version_name(enum uc_cg_version v)
{
	return v == UC_CG_V2 ? "v2" : v == UC_CG_V1 ? "v1" : "none";
}

/* ---- paths ---------------------------------------------------------------- */

/*
 * Normalise an absolute path lexically: "//" and "." dropped, ".." pops
 * ("/.." stays "/"). Symlinks are not followed: that is realpath's job.
 */
static int normalize(const char *in, char *out, size_t n)
{
	size_t len = 0;
	const char *s = in;

	if (n < 2 || in[0] != '/')
		return -EINVAL;
	out[0] = '\0';
	while (*s) {
		size_t cl;

		while (*s == '/')
			s++;
		cl = strcspn(s, "/");
		if (cl == 0)
			break;
		if (cl == 1 && s[0] == '.') {
			/* nothing */
		} else if (cl == 2 && s[0] == '.' && s[1] == '.') {
			char *slash = strrchr(out, '/');

			len = slash ? (size_t)(slash - out) : 0;
			out[len] = '\0';
		} else {
			if (len + 1 + cl + 1 > n)
				return -ENAMETOOLONG;
			out[len++] = '/';
			memcpy(out + len, s, cl);
			len += cl;
			out[len] = '\0';
		}
		s += cl;
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

static bool has_dotdot(const char *rel)
{
	const char *s = rel;

	while (*s) {
		size_t cl = strcspn(s, "/");

		if (cl == 2 && s[0] == '.' && s[1] == '.')
			return true;
		s += cl;
		while (*s == '/')
			s++;
	}
	return false;
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
	/*
	 * ".." is taken lexically ("a/../../b" is outside, whatever symlinks
	 * say), then realpath follows the symlinks left: one out of the mount
	 * is refused, while an absolute path may reach the mount through one
	 * (/sys/fs/cgroup/cpu -> cpu,cpuacct). A path outside that does not
	 * exist is still "outside", not "no such group".
	 */
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
	if (has_dotdot(path))
		return -EXDEV;
	if ((rc = normalize(path, norm, sizeof(norm))))
		return rc;
	return set_rel(norm + 1, rel, n);
}

/* Does a comma-separated controller list contain exactly name? */
static bool list_has(const char *list, size_t len, const char *name)
{
	size_t nl = strlen(name), i = 0;

	while (i < len) {
		size_t cl = 0;

		while (i + cl < len && list[i + cl] != ',')
			cl++;
		if (cl == nl && !memcmp(list + i, name, nl))
			return true;
		i += cl + 1;
	}
	return false;
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
		if (info->version == UC_CG_V2) {
			if (c1 - line == 1 && line[0] == '0' && c2 == c1 + 1)
				return cg_path_to_rel(c2 + 1, rel, n);
		} else if (list_has(c1 + 1, (size_t)(c2 - c1 - 1), "cpu")) {
			return cg_path_to_rel(c2 + 1, rel, n);
		}
	}
	return -ENOENT;
}

int uc_cg_path(const char *rel, const char *name, char *buf, size_t n)
{
	const struct uc_cg_info *info = uc_cg_layout();
	int len;

	if (!info)
		return layout_state < 0 ? layout_state : -ENOENT;
	if (has_dotdot(rel))
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

static int read_file(const char *rel, const char *name, char *buf, size_t n)
{
	char path[PATH_MAX];
	int rc = uc_cg_path(rel, name, path, sizeof(path));
	ssize_t len;

	if (rc)
		return rc;
	len = uc_file_read(path, buf, n);
	return len < 0 ? (int)len : 0;
}

/* One write(2); the kernel's errno comes back as is. */
static int write_file(const char *rel, const char *name, const char *s)
{
	char path[PATH_MAX];
	int rc = uc_cg_path(rel, name, path, sizeof(path));

	return rc ? rc : uc_file_write(path, s);
}

static const char *clamp_file(enum uc_attr attr)
{
	return attr == UC_ATTR_MIN ? "cpu.uclamp.min" : attr == UC_ATTR_MAX ? "cpu.uclamp.max" : NULL;
}

int uc_cg_read(const char *rel, enum uc_attr attr, int *pct100)
{
	char buf[64];
	int rc;

	if (!clamp_file(attr))
		return -EINVAL;
	rc = read_file(rel, clamp_file(attr), buf, sizeof(buf));
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

int uc_cg_subtree_cpu(const char *rel, bool *enabled)
{
	const struct uc_cg_info *info = uc_cg_layout();
	char buf[512];
	int rc;

	if (!info)
		return layout_state < 0 ? layout_state : -ENOENT;
	if (info->version != UC_CG_V2)
		return -EOPNOTSUPP;
	rc = read_file(rel, "cgroup.subtree_control", buf, sizeof(buf));
	if (rc)
		return rc;
	buf[strcspn(buf, "\n")] = '\0';
	*enabled = false;
	for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		if (!strcmp(tok, "cpu"))
			*enabled = true;
	return 0;
}

int uc_cg_set_subtree_cpu(const char *rel, bool enable)
{
	const struct uc_cg_info *info = uc_cg_layout();

	if (!info)
		return layout_state < 0 ? layout_state : -ENOENT;
	if (info->version != UC_CG_V2)
		return -EOPNOTSUPP;
	return write_file(rel, "cgroup.subtree_control", enable ? "+cpu" : "-cpu");
}

static int exists(const char *rel, const char *name)
{
	char path[PATH_MAX];
	struct stat st;
	int rc = uc_cg_path(rel, name, path, sizeof(path));

	if (rc)
		return rc;
	return stat(path, &st) < 0 ? -errno : 0;
}

int uc_cg_state(const char *rel, enum uc_cg_state *st)
{
	const struct uc_cg_info *info = uc_cg_layout();
	char parent[PATH_MAX];
	bool cpu = true;
	int rc;

	if (!info)
		return layout_state < 0 ? layout_state : -ENOENT;
	if ((rc = exists(rel, NULL)))
		return rc;
	if (!*rel) {
		*st = UC_CG_IS_ROOT;
		return 0;
	}
	rc = exists(rel, "cpu.uclamp.min");
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
	case UC_CG_NO_GROUP_CLAMPS: return "no cpu.uclamp files: kernel without CONFIG_UCLAMP_TASK_GROUP";
	}
	return "?";
}

int uc_cg_children(const char *rel, char ***names, size_t *n)
{
	char path[PATH_MAX];
	char **v = NULL;
	size_t cnt = 0, cap = 0;
	struct dirent *d;
	DIR *dir;
	int rc = uc_cg_path(rel, NULL, path, sizeof(path));

	*names = NULL;
	*n = 0;
	if (rc)
		return rc;
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((d = readdir(dir))) {
		bool is_dir = d->d_type == DT_DIR;

		if (d->d_name[0] == '.' && (!d->d_name[1] || (d->d_name[1] == '.' && !d->d_name[2])))
			continue;
		if (d->d_type == DT_UNKNOWN) {
			struct stat st;

			is_dir = !fstatat(dirfd(dir), d->d_name, &st, AT_SYMLINK_NOFOLLOW) && S_ISDIR(st.st_mode);
		}
		if (!is_dir)
			continue;
		if (cnt == cap) {
			char **nv = realloc(v, (cap = cap ? cap * 2 : 16) * sizeof(*v));

			if (!nv)
				goto nomem;
			v = nv;
		}
		if (!(v[cnt] = strdup(d->d_name)))
			goto nomem;
		cnt++;
	}
	closedir(dir);
	for (size_t i = 1; i < cnt; i++)	/* few entries: insertion sort */
		for (size_t j = i; j > 0 && strcmp(v[j - 1], v[j]) > 0; j--) {
			char *t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	*names = v;
	*n = cnt;
	return 0;
nomem:
	closedir(dir);
	uc_cg_free_names(v, cnt);
	return -ENOMEM;
}

void uc_cg_free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* ---- effective values ------------------------------------------------------ */

static int imin(int a, int b)
{
	return a < b ? a : b;
}

void uc_cg_eff_root(long sys_min, long sys_max, struct uc_cg_clamps *eff)
{
	/* uclamp_update_root_tg(): the root group's requests are the sysctls */
	eff->max = (int)sys_max;
	eff->min = imin((int)sys_min, eff->max);
}

void uc_cg_eff_child(const struct uc_cg_clamps *parent, int req_min, int req_max,
		     struct uc_cg_clamps *eff)
{
	/* cpu_util_update_eff(): cap by the parent, then protection by limit */
	eff->min = imin(req_min, parent->min);
	eff->max = imin(req_max, parent->max);
	eff->min = imin(eff->min, eff->max);
}

int uc_cg_eff_tree(struct uc_cg_node *nodes, size_t n, long sys_min, long sys_max)
{
	for (size_t i = 0; i < n; i++) {
		struct uc_cg_node *g = &nodes[i];

		if (g->parent < 0) {
			uc_cg_eff_root(sys_min, sys_max, &g->eff);
			continue;
		}
		if ((size_t)g->parent >= i)
			return -EINVAL;
		if (!g->has_clamps)
			g->eff = nodes[g->parent].eff;
		else
			uc_cg_eff_child(&nodes[g->parent].eff, uc_pct100_to_util(g->req_min),
					uc_pct100_to_util(g->req_max), &g->eff);
	}
	return 0;
}

int uc_cg_effective(const char *rel, long sys_min, long sys_max, struct uc_cg_clamps *eff)
{
	char part[PATH_MAX];
	const char *s = rel;
	size_t len = 0;

	if (has_dotdot(rel))
		return -EXDEV;
	uc_cg_eff_root(sys_min, sys_max, eff);
	while (*s == '/')
		s++;
	/* down from the root, one component at a time */
	while (*s) {
		size_t cl = strcspn(s, "/");
		int mn, mx, rc;

		if (len + cl + 2 > sizeof(part))
			return -ENAMETOOLONG;
		if (len)
			part[len++] = '/';
		memcpy(part + len, s, cl);
		len += cl;
		part[len] = '\0';
		s += cl;
		while (*s == '/')
			s++;
		rc = uc_cg_read(part, UC_ATTR_MIN, &mn);
		if (!rc)
			rc = uc_cg_read(part, UC_ATTR_MAX, &mx);
		if (rc == -ENOENT)
			continue;	/* no clamps here: the parent's effective values hold */
		if (rc)
			return rc;
		uc_cg_eff_child(eff, uc_pct100_to_util(mn), uc_pct100_to_util(mx), eff);
	}
	return 0;
}

void uc_cg_task_effective(const struct uc_cg_clamps *tg, bool in_root, int req_min, int req_max,
			  long sys_min, long sys_max, struct uc_cg_clamps *eff)
{
	int v[2] = { req_min, req_max };
	long sys[2] = { sys_min, sys_max };

	for (int i = 0; i < 2; i++) {
		/* uclamp_tg_restrict(): clamp(req, tg_min, tg_max) outside the root */
		if (!in_root) {
			if (v[i] < tg->min)
				v[i] = tg->min;
			if (v[i] > tg->max)
				v[i] = tg->max;
		}
		/* uclamp_eff_get(): the system default restrictions always apply */
		if (v[i] > sys[i])
			v[i] = (int)sys[i];
	}
	eff->min = v[0];
	eff->max = v[1];
}

/* ---- plans ------------------------------------------------------------------ */

static void drop_from(struct uc_plan *p, size_t n0)
{
	while (p->n > n0)
		free(p->v[--p->n].target);
}

/* Does p already enable cpu in rel's parent? */
static bool plan_enables_cpu_for(const struct uc_plan *p, const char *rel)
{
	char parent[PATH_MAX];

	if (!uc_cg_parent(rel, parent, sizeof(parent)))
		return false;
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].kind == UC_KIND_SUBTREE && p->v[i].to == 1 && p->v[i].target &&
		    !strcmp(p->v[i].target, parent))
			return true;
	return false;
}

/* The pct100 to write for v, and whether the current value already is it. */
static int want_of(const struct uc_value *v, enum uc_attr attr, int cur, int *want, bool *same)
{
	int util;

	if (v->util == UC_RESET) {
		util = attr == UC_ATTR_MIN ? 0 : UC_CAPACITY_SCALE;
		*want = attr == UC_ATTR_MIN ? 0 : UC_PCT_MAX;
		*same = uc_pct100_to_util(cur) == util;
		return 0;
	}
	if (v->percent) {
		if (v->pct100 < 0 || v->pct100 > UC_PCT_MAX)
			return -ERANGE;
		*want = v->pct100;
		*same = cur == v->pct100;
		return 0;
	}
	if (v->util < 0 || v->util > UC_CAPACITY_SCALE)
		return -ERANGE;
	*want = uc_util_to_pct100(v->util);
	*same = uc_pct100_to_util(cur) == v->util;
	return 0;
}

int uc_cg_plan_values(struct uc_plan *p, const char *rel, const struct uc_value *min,
		      const struct uc_value *max)
{
	int cur[2], want[2] = { 0, 0 }, rc;
	bool same[2] = { true, true };
	const struct uc_value *v[2] = { min, max };
	size_t n0 = p->n, u0 = p->unchanged;
	int order[2] = { 0, 1 };

	rc = uc_cg_read(rel, UC_ATTR_MIN, &cur[0]);
	if (!rc)
		rc = uc_cg_read(rel, UC_ATTR_MAX, &cur[1]);
	if (rc == -ENOENT && plan_enables_cpu_for(p, rel)) {
		/* the kernel creates the files with the defaults */
		cur[0] = 0;
		cur[1] = UC_PCT_MAX;
		rc = 0;
	}
	if (rc)
		return rc;
	for (int i = 0; i < 2; i++)
		if (v[i] && (rc = want_of(v[i], i ? UC_ATTR_MAX : UC_ATTR_MIN, cur[i], &want[i], &same[i])))
			return rc;
	/* cgroups allow min > max, but keep the in-between state sane anyway:
	 * a min raised above the current max goes after the max */
	if (v[0] && !same[0] && uc_pct100_to_util(want[0]) > uc_pct100_to_util(cur[1])) {
		order[0] = 1;
		order[1] = 0;
	}
	for (int k = 0; k < 2; k++) {
		int i = order[k];

		if (!v[i])
			continue;
		if (same[i]) {
			p->unchanged++;
			continue;
		}
		if (!uc_plan_add(p, UC_KIND_CGROUP, i ? UC_ATTR_MAX : UC_ATTR_MIN, rel, cur[i], want[i])) {
			drop_from(p, n0);
			p->unchanged = u0;
			return -ENOMEM;
		}
	}
	return 0;
}

static void pct_value(int pct100, struct uc_value *v)
{
	*v = (struct uc_value){ .util = uc_pct100_to_util(pct100), .pct100 = pct100, .percent = true };
}

int uc_cg_plan(struct uc_plan *p, const char *rel, int want_min, int want_max)
{
	struct uc_value mn, mx, def = { .util = UC_RESET, .pct100 = -1 };
	const struct uc_value *a = NULL, *b = NULL;

	if (want_min == UC_RESET)
		a = &def;
	else if (want_min != UC_KEEP) {
		if (want_min < 0 || want_min > UC_PCT_MAX)
			return -ERANGE;
		pct_value(want_min, &mn);
		a = &mn;
	}
	if (want_max == UC_RESET)
		b = &def;
	else if (want_max != UC_KEEP) {
		if (want_max < 0 || want_max > UC_PCT_MAX)
			return -ERANGE;
		pct_value(want_max, &mx);
		b = &mx;
	}
	return uc_cg_plan_values(p, rel, a, b);
}

int uc_cg_plan_enable_cpu(struct uc_plan *p, const char *rel)
{
	const struct uc_cg_info *info = uc_cg_layout();
	char anc[PATH_MAX];
	const char *comp = rel;
	size_t len = 0, n0 = p->n;
	int added = 0;

	if (!info)
		return layout_state < 0 ? layout_state : -ENOENT;
	if (info->version != UC_CG_V2)
		return -EOPNOTSUPP;
	if (has_dotdot(rel))
		return -EXDEV;
	while (*comp == '/')
		comp++;
	anc[0] = '\0';
	/* every ancestor, root first, down to rel's parent */
	while (*comp) {
		size_t cl = strcspn(comp, "/");
		const char *next = comp + cl;
		bool on;
		int rc = uc_cg_subtree_cpu(anc, &on);

		if (rc) {
			drop_from(p, n0);
			return rc;
		}
		if (!on) {
			if (!uc_plan_add(p, UC_KIND_SUBTREE, UC_ATTR_CPU_CONTROLLER, anc, 0, 1)) {
				drop_from(p, n0);
				return -ENOMEM;
			}
			added++;
		}
		while (*next == '/')
			next++;
		if (!*next)
			break;	/* comp is rel's own name */
		if (len + cl + 2 > sizeof(anc)) {
			drop_from(p, n0);
			return -ENAMETOOLONG;
		}
		if (len)
			anc[len++] = '/';
		memcpy(anc + len, comp, cl);
		len += cl;
		anc[len] = '\0';
		comp = next;
	}
	return added;
}
