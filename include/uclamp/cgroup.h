/*
 * cgroup clamps (cpu.uclamp.min/max). src/lib/cgroup.c is the ONLY file that
 * includes libcgroup: discovery and reads through it, one value per write
 * (never get_cgroup -> set -> modify: libcgroup 2.0.2 then rewrites every
 * file of the controller, which flips the key and clobbers other settings).
 * Paths ("rel") are relative to the cpu hierarchy's mount, "" for its root.
 */
#ifndef UCLAMP_CGROUP_H
#define UCLAMP_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "uclamp/plan.h"

enum uc_cg_version { UC_CG_NONE = 0, UC_CG_V1 = 1, UC_CG_V2 = 2 };

struct uc_cg_info {
	enum uc_cg_version version;	/* of the hierarchy that has the cpu controller */
	bool hybrid;			/* v1 controllers plus a v2 (unified) mount */
	char mount[PATH_MAX];		/* where the cpu hierarchy is mounted */
	char unified[PATH_MAX];		/* hybrid: the v2 mount, "" otherwise */
};

/* Discover the layout. -ENOENT when no hierarchy has the cpu controller. */
int uc_cg_init(struct uc_cg_info *info);

/* Turn a user path (relative, or absolute under the mount) into rel.
 * Refuses anything resolving outside the mount ("..", symlinks): -EXDEV;
 * -ENOENT when the group does not exist. */
int uc_cg_resolve(const struct uc_cg_info *info, const char *user_path, char *rel, size_t n);

/* The cpu-hierarchy cgroup of a process (/proc/PID/cgroup). */
int uc_cg_of_pid(const struct uc_cg_info *info, pid_t pid, char *rel, size_t n);

/* cpu.uclamp.min/max (attr UC_ATTR_MIN/MAX) in pct100 (10000 = max).
 * -ENOENT when the file is absent (root, cpu not enabled, no UCLAMP_TASK_GROUP). */
int uc_cg_read(const char *rel, enum uc_attr attr, int *pct100);
int uc_cg_write(const char *rel, enum uc_attr attr, int pct100);

/* Is 'cpu' in rel's cgroup.subtree_control (v2)? Enable/disable it. */
int uc_cg_subtree_cpu(const char *rel, bool *enabled);
int uc_cg_set_subtree_cpu(const char *rel, bool enable);

/* Add to p the writes that bring rel's clamps to want_min/want_max (pct100,
 * UC_KEEP to leave): only values that differ, since any write flips the key.
 * Shared by 'cgroup set' and 'apply'. Returns 0 or -errno (-ENOENT: no files). */
int uc_cg_plan(struct uc_plan *p, const char *rel, int want_min, int want_max);

#endif
