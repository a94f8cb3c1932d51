/*
 * cgroup clamps (cpu.uclamp.min/max): cgroup_io.c discovery and I/O, effective.c
 * the model of effective clamps, cgroup_plan.c plans. Paths ("rel") are
 * relative to the cpu hierarchy's mount, "" for its root; one layout a process.
 */
#ifndef UCLAMP_CGROUP_H
#define UCLAMP_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "uclamp/plan.h"
#include "uclamp/value.h"

enum uc_cg_version { UC_CG_NONE = 0, UC_CG_V1 = 1, UC_CG_V2 = 2 };

struct uc_cg_info {
	enum uc_cg_version version;	/* of the hierarchy that has the cpu controller */
	bool hybrid;			/* v1 controllers plus a v2 (unified) mount */
	char mount[PATH_MAX];		/* where the cpu hierarchy is mounted */
	char unified[PATH_MAX];		/* hybrid: the v2 mount, "" otherwise */
};

/* ---- cgroup_io.c: discovery and I/O --------------------------------------- */

/* A copy of the layout (discovered on first need): 0, -ENOENT (no hierarchy
 * has the cpu controller), other -errno (info zeroed). */
int uc_cg_init(struct uc_cg_info *info);

/* The same layout in place; NULL when there is none. */
const struct uc_cg_info *uc_cg_layout(void);

/* Use this layout instead of discovering one (NULL: discover again). A test
 * seam: only tests/unit and tests/fuzz call it. */
void uc_cg_use(const struct uc_cg_info *info);

/* "v1", "v2", "none" */
const char *uc_cg_version_name(enum uc_cg_version v);

/* The one lexical check of cgroup paths: true when path has a ".." component
 * (could climb out of the mount; not "a..b"). No lookup: the same answer on any
 * machine. Symlinks are uc_cg_resolve's job. */
bool uc_cg_path_escapes(const char *path);

/* Append the next component of *s to prefix (*len bytes of n; start with "", 0)
 * and advance *s: 1 stepped, 0 at the end, -ENAMETOOLONG. */
int uc_cg_path_next(const char **s, char *prefix, size_t n, size_t *len);

/* A user path (relative, or absolute under the mount) as rel: -EXDEV when it
 * resolves outside the mount, -ENOENT (no group), -ENOTDIR. */
int uc_cg_resolve(const struct uc_cg_info *info, const char *user_path, char *rel, size_t n);

/* A process's group in the cpu hierarchy (/proc/PID/cgroup): -ESRCH, -ENOENT
 * (no such line), -EXDEV (outside our cgroup namespace). */
int uc_cg_of_pid(const struct uc_cg_info *info, pid_t pid, char *rel, size_t n);

/* cpu.uclamp.min/max in pct100 (10000 = max); -ENOENT: no file. */
int uc_cg_read(const char *rel, enum uc_attr attr, int *pct100);
/* One value, one write(2) (-ERANGE outside 0..10000, nothing written). */
int uc_cg_write(const char *rel, enum uc_attr attr, int pct100);
/* Could rel/name be written (checked without writing)? 0 or -errno. */
int uc_cg_writable(const char *rel, const char *name);

/* 'cpu' in rel's cgroup.subtree_control (v2); -EOPNOTSUPP on v1. */
int uc_cg_subtree_cpu(const char *rel, bool *enabled);
int uc_cg_set_subtree_cpu(const char *rel, bool enable);

/* Delegated by systemd (xattr trusted.delegate or user.delegate = 1)? */
int uc_cg_delegated(const char *rel, bool *delegated);

/* Why a group has, or lacks, the clamp files. */
enum uc_cg_state {
	UC_CG_HAS_CLAMPS,	/* cpu.uclamp.min/max are there */
	UC_CG_IS_ROOT,		/* the root never has them (CFTYPE_NOT_ON_ROOT) */
	UC_CG_CPU_OFF,		/* v2: cpu not in the parent's cgroup.subtree_control */
	/* cpu controller there, files not: no CONFIG_UCLAMP_TASK_GROUP */
	UC_CG_NO_GROUP_CLAMPS,
};
/* -ENOENT when the group does not exist. */
int uc_cg_state(const char *rel, enum uc_cg_state *st);
const char *uc_cg_state_reason(enum uc_cg_state st);

/* The parent of rel ("a/b" -> "a", "a" -> ""); false for the root. */
bool uc_cg_parent(const char *rel, char *parent, size_t n);

/* A group's identity: its inode number, the cgroup ID (never reused while
 * the system runs). 0, -ENOENT (gone), -ENOTDIR. */
int uc_cg_ident(const char *rel, unsigned long long *ident);

/* The first process of rel's own (cgroup.procs), 0 when none. */
int uc_cg_first_proc(const char *rel, pid_t *pid);

/* v2: is rel threaded (cgroup.type not "domain"; the root, or no file: not)? */
bool uc_cg_threaded(const char *rel);

/* The child groups of rel (names, sorted). Free with uc_cg_free_names. */
int uc_cg_children(const char *rel, char ***names, size_t *n);
void uc_cg_free_names(char **names, size_t n);

/* ---- effective.c: effective clamps, as cpu_util_update_eff() (capacity units) */
struct uc_cg_clamps {
	int min, max;
};
void uc_cg_eff_root(long sys_min, long sys_max, struct uc_cg_clamps *eff);
void uc_cg_eff_child(const struct uc_cg_clamps *parent, int req_min, int req_max,
		     struct uc_cg_clamps *eff);

/* The effective clamps of group rel, walking from the root. */
int uc_cg_effective(const char *rel, long sys_min, long sys_max, struct uc_cg_clamps *eff);

/* ---- cgroup_plan.c: plans ------------------------------------------------- */

/* The writes that bring rel to want_min/want_max (pct100, UC_KEEP, UC_RESET):
 * only values that differ. 0, -ENOENT (no files), -ERANGE. */
int uc_cg_plan(struct uc_plan *p, const char *rel, int want_min, int want_max);

/* The same with parsed values (NULL: leave), units compared and written as the
 * percentage that maps back to them (cgroup_plan.c); files that p's enabling
 * of cpu will create count as at the defaults. */
int uc_cg_plan_values(struct uc_plan *p, const char *rel, const struct uc_value *min,
		      const struct uc_value *max);

/* v2: "+cpu" for each ancestor of rel from top (NULL: the root) down that
 * lacks it: how many were added, or -errno (-EOPNOTSUPP on v1). */
int uc_cg_plan_enable_cpu_below(struct uc_plan *p, const char *rel, const char *top);

/* v2: what gives rel the cpu files (cgroup_plan.c): a systemd change where
 * systemd owns the tree (unit: its name), else subtree writes if write_subtree
 * (-EPERM if not). How many were added, or -errno (-EINVAL, bus errors). */
int uc_cg_plan_cpu(struct uc_plan *p, const char *rel, bool write_subtree, char *unit, size_t n);

/* A group p would give cpu in its subtree_control while it has processes of
 * its own, which makes it a thread root (cgroup_plan.c): 1 with rel and *pid,
 * 0 none, -errno. */
int uc_cg_plan_thread_root(const struct uc_plan *p, char *rel, size_t n, pid_t *pid);

#endif
