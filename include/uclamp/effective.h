/*
 * Effective clamps of tasks without reading /proc/PID/task/TID/sched for each:
 * the kernel's rule (uclamp_eff_get(), uclamp_tg_restrict(), 5.14+) applied to
 * what sched_getattr gave, each cgroup's effective clamps computed once:
 *   eff = request (an RT task's unset min is the RT default: getattr shows it)
 *   in a non-root task group: eff = clamp(eff, group eff min, group eff max)
 *   then: eff = min(eff, kernel.sched_util_clamp_{min,max})
 * The task group is the nearest group with the cpu files (none: the root).
 * Where the rule may not hold (before 5.14, sysctls or a group unreadable,
 * outside our cgroup namespace) /proc is read, and the caller learns which
 * source each task used; where /proc shows none (no SCHED_DEBUG before 6.15),
 * neither do we. A task that stays runnable keeps the value of its last
 * enqueue: /proc shows that, the rule the new one.
 */
#ifndef UCLAMP_EFFECTIVE_H
#define UCLAMP_EFFECTIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "uclamp/cgroup.h"
#include "uclamp/sched.h"

enum uc_eff_source {
	UC_EFF_NONE,	/* unknown: /proc has no effective lines, the task is gone */
	UC_EFF_RULE,	/* computed by the rule above */
	UC_EFF_PROC,	/* read from /proc/PID/task/TID/sched */
};

struct uc_eff_group;

struct uc_eff {
	bool rule;			/* the rule applies on this kernel */
	const char *why_proc;		/* !rule: why, for -v */
	long sys_min, sys_max;		/* kernel.sched_util_clamp_min/max */
	/* NULL: no cpu hierarchy, every task in the root group */
	const struct uc_cg_info *cg;
	pid_t pid;			/* the last process seen ... */
	struct uc_eff_group *pid_group;	/* ... its group (NULL: unknown) */
	bool per_thread;		/* ... threads may sit in other groups: read each one's */
	struct uc_eff_group **tab;	/* groups by path (open addressing) */
	size_t cap, ngroups;
	size_t n_rule, n_proc;		/* tasks per source */
};

/* Decide the source (the rule from 5.14 on where /proc/self/sched shows
 * effective clamps, unless $UCLAMPCTL_EFF=proc).
 * 0 or -ENOMEM; the caller frees with uc_eff_free() either way. */
int uc_eff_init(struct uc_eff *e);
void uc_eff_free(struct uc_eff *e);

/* The effective clamps of thread tid of process pid whose sched_getattr is
 * sa. Returns the source; UC_EFF_NONE leaves *out untouched. Calls for the
 * threads of one process should come together (its group is remembered). */
enum uc_eff_source uc_eff_task(struct uc_eff *e, pid_t pid, pid_t tid,
			       const struct uc_sched_attr *sa, struct uc_cg_clamps *out);

#endif
