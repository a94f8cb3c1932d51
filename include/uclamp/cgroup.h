/*
 * cgroup clamps (cpu.uclamp.min/max), three files with one job each:
 *  - cgroup.c: discovery and I/O, the ONLY file that includes libcgroup
 *    (it finds the mount; one value per write through sysroot.c, never
 *    get_cgroup -> set -> modify: libcgroup 2.0.2 then rewrites every file
 *    of the controller, which flips the key and clobbers other settings);
 *  - cgroup_eff.c: the model of effective clamps (cpu_util_update_eff());
 *  - cgroup_plan.c: plans (which writes bring a group to wanted values).
 * Paths ("rel") are relative to the cpu hierarchy's mount, "" for its root.
 *
 * There is one layout per process: discovered on first need and kept, the
 * same for uc_cg_init(), uc_cg_layout() and every function that takes no
 * uc_cg_info.
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

/* ---- cgroup.c: discovery and I/O ------------------------------------------ */

/* A copy of the layout (discovered on first need). 0; -ENOENT when no
 * hierarchy has the cpu controller; other -errno as discovery met them
 * (info zeroed then). */
int uc_cg_init(struct uc_cg_info *info);

/* The same layout in place; NULL when there is none. */
const struct uc_cg_info *uc_cg_layout(void);

/* Use this layout from now on instead of discovering one (unit tests point
 * it at a directory tree); NULL forgets it, so the next need discovers again.
 * A test seam: only tests/unit and tests/fuzz call it. */
void uc_cg_use(const struct uc_cg_info *info);

/* "v1", "v2", "none" */
const char *uc_cg_version_name(enum uc_cg_version v);

/*
 * The one lexical path check for cgroup paths (command line, config file,
 * /proc/PID/cgroup): true when path has a ".." component ("..", "a/..",
 * "../b", "a/../b"; not "a..b" or ".hidden"), i.e. it could climb out of the
 * mount. Absolute or relative, runs of '/' allowed; no lookup, so it gives
 * the same answer on any machine (a config error keeps its file:line).
 * Symlinks are uc_cg_resolve's job.
 */
bool uc_cg_path_escapes(const char *path);

/* Walk a path from the root, one component per call: append the next
 * component of *s to prefix (holding *len bytes, n in all; start with "" and
 * 0) and advance *s. 1 stepped, 0 at the end, -ENAMETOOLONG. */
int uc_cg_path_next(const char **s, char *prefix, size_t n, size_t *len);

/* Turn a user path (relative, or absolute under the mount) into rel.
 * Refuses anything resolving outside the mount ("..", symlinks): -EXDEV;
 * -ENOENT when the group does not exist; -ENOTDIR when it is not a directory. */
int uc_cg_resolve(const struct uc_cg_info *info, const char *user_path, char *rel, size_t n);

/* The cpu-hierarchy cgroup of a process (/proc/PID/cgroup, through the
 * sysroot): the "0::" line on v2, the line listing "cpu" on v1. -ESRCH when
 * the process does not exist, -ENOENT when it has no such line, -EXDEV when
 * the path leaves the hierarchy (a process outside our cgroup namespace). */
int uc_cg_of_pid(const struct uc_cg_info *info, pid_t pid, char *rel, size_t n);

/* cpu.uclamp.min/max (attr UC_ATTR_MIN/MAX) in pct100 (10000 = max).
 * -ENOENT when the file is absent (root, cpu not enabled, no UCLAMP_TASK_GROUP). */
int uc_cg_read(const char *rel, enum uc_attr attr, int *pct100);
/* One value, one write(2), errno kept (-ERANGE for pct100 outside 0..10000,
 * without writing). */
int uc_cg_write(const char *rel, enum uc_attr attr, int pct100);
/* Could rel/name be written (checked without writing)? 0 or -errno. */
int uc_cg_writable(const char *rel, const char *name);

/* Is 'cpu' in rel's cgroup.subtree_control (v2)? Enable/disable it.
 * -EOPNOTSUPP on v1 (no subtree_control: cpu is in every group). */
int uc_cg_subtree_cpu(const char *rel, bool *enabled);
int uc_cg_set_subtree_cpu(const char *rel, bool enable);

/* Is rel marked delegated by systemd (xattr trusted.delegate or
 * user.delegate = 1)? 0 or -errno. */
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

/* A group's identity: its directory's inode number (on cgroupfs the
 * cgroup's ID, never reused while the system runs). A group removed and made
 * again under the same path is another group. 0, -ENOENT when it is gone,
 * -ENOTDIR when the name is not a group. */
int uc_cg_ident(const char *rel, unsigned long long *ident);

/* The first process of rel's own (cgroup.procs: not its children's), 0 when
 * it has none. 0 or -errno. */
int uc_cg_first_proc(const char *rel, pid_t *pid);

/* The child groups of rel (names, sorted). Free with uc_cg_free_names. */
int uc_cg_children(const char *rel, char ***names, size_t *n);
void uc_cg_free_names(char **names, size_t n);

/* ---- cgroup_eff.c: effective clamps, computed like cpu_util_update_eff() ----
 * mainline has no *.effective file: the root group's requested clamps are the
 * sysctls; each group's effective clamp = min(requested, parent's effective),
 * then eff_min = min(eff_min, eff_max). Capacity units. */
struct uc_cg_clamps {
	int min, max;
};
void uc_cg_eff_root(long sys_min, long sys_max, struct uc_cg_clamps *eff);
void uc_cg_eff_child(const struct uc_cg_clamps *parent, int req_min, int req_max,
		     struct uc_cg_clamps *eff);

/* The effective clamps of group rel, walking from the root. */
int uc_cg_effective(const char *rel, long sys_min, long sys_max, struct uc_cg_clamps *eff);

/* ---- cgroup_plan.c: plans ------------------------------------------------- */

/* Add to p the writes that bring rel's clamps to want_min/want_max (pct100,
 * UC_KEEP to leave, UC_RESET for the default 0.00 / max): only values that
 * differ, since any write flips the key. Shared by 'cgroup set' and 'apply'.
 * Returns 0 or -errno (-ENOENT: no files; -ERANGE: a value out of range). */
int uc_cg_plan(struct uc_plan *p, const char *rel, int want_min, int want_max);

/* The same with parsed values (NULL = leave): a value given in capacity units
 * counts as equal when the current percentage maps to the same unit, and is
 * written as the two-decimal percentage that maps back to exactly that unit;
 * a percentage is compared and written as given; "default" is 0.00 for min
 * and max for max. When the files are missing but p already enables cpu in
 * rel's parent (uc_cg_plan_enable_cpu), the current values are the defaults
 * the kernel will create them with. */
int uc_cg_plan_values(struct uc_plan *p, const char *rel, const struct uc_value *min,
		      const struct uc_value *max);

/* v2: add "+cpu in cgroup.subtree_control" changes (UC_KIND_SUBTREE) for
 * every ancestor of rel, top-down, whose subtree lacks cpu, so that rel gets
 * the cpu files. Returns how many were added, or -errno (-EOPNOTSUPP on v1). */
int uc_cg_plan_enable_cpu(struct uc_plan *p, const char *rel);
/* The same for the ancestors from top (a group, NULL: the root) down. */
int uc_cg_plan_enable_cpu_below(struct uc_plan *p, const char *rel, const char *top);

/*
 * v2: what gives rel the cpu files, whoever owns each parent's
 * subtree_control (uclamp/systemd.h). Where systemd owns a parent that
 * lacks cpu: one UC_KIND_SYSTEMD change, for the unit whose group is the
 * child of the deepest such parent on the way to rel (unit receives its
 * name), asking systemd to enable cpu (a runtime CPUWeight equal to the
 * current one, or the default 100 when unset); systemd then enables it up to
 * the root. Never a subtree_control write in systemd's tree. Other parents
 * (below a delegated unit, outside systemd's tree, no systemd) get
 * UC_KIND_SUBTREE writes when write_subtree (--enable-cpu), else -EPERM and
 * nothing is added. Returns how many changes were added (0: cpu is on), or
 * -errno: -EINVAL (that group is not a unit's: unit holds its name), the bus
 * errors of uc_sd_cpu_weight (-ENOPKG, -EHOSTDOWN, -ENOENT, -EACCES, -EIO),
 * -EOPNOTSUPP (v1).
 */
int uc_cg_plan_cpu(struct uc_plan *p, const char *rel, bool write_subtree, char *unit, size_t n);

/*
 * A group that p would give cpu in its cgroup.subtree_control while it has
 * processes of its own (not the root): cpu is a threaded controller, so the
 * kernel takes it and turns the group into a thread root ("domain threaded"
 * in cgroup.type), whose processes then compete with its children. 1 with
 * its path in rel and one of its processes in *pid, 0 when there is none,
 * or -errno.
 */
int uc_cg_plan_thread_root(const struct uc_plan *p, char *rel, size_t n, pid_t *pid);

#endif
