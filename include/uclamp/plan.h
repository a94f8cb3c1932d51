/*
 * A plan: the list of intended changes a write command will make. Built
 * first, printed by --dry-run, checked by the guard, run by the executor.
 * Only real changes go in: a builder compares current and wanted values and
 * counts equal ones in 'unchanged' instead — that is how the tool never
 * flips sched_uclamp_used by accident.
 */
#ifndef UCLAMP_PLAN_H
#define UCLAMP_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "uclamp/sched.h"

enum uc_kind {
	UC_KIND_TASK,		/* sched_setattr on one TID */
	UC_KIND_SYSCTL,		/* /proc/sys/kernel/sched_util_clamp_* */
	UC_KIND_CGROUP,		/* cpu.uclamp.{min,max} of one cgroup */
	UC_KIND_SUBTREE,	/* +cpu in a cgroup's cgroup.subtree_control */
	/* ask systemd (a runtime CPUWeight of a unit) to enable cpu above a
	 * group whose parents systemd owns: it then writes their subtree_control */
	UC_KIND_SYSTEMD,
};

enum uc_attr {
	UC_ATTR_MIN,		/* task util_min, sysctl sched_util_clamp_min, cpu.uclamp.min */
	UC_ATTR_MAX,
	UC_ATTR_RT_DEFAULT,	/* sched_util_clamp_min_rt_default */
	UC_ATTR_RESET_ON_FORK,	/* task flag, 0/1 */
	UC_ATTR_CPU_CONTROLLER,	/* subtree_control cpu, 0/1 */
	UC_ATTR_CPU_WEIGHT,	/* systemd: the unit's CPUWeight (-1 = not set) */
};

enum uc_change_state {
	UC_CH_PLANNED,
	UC_CH_DONE,
	UC_CH_FAILED,		/* err says why */
	UC_CH_GONE,		/* the task exited (ESRCH) */
	UC_CH_ROLLED_BACK,	/* done, then undone after a later failure */
	UC_CH_ROLLBACK_FAILED,	/* done, undo failed: err says why */
	UC_CH_SKIPPED,		/* not attempted (an earlier failure stopped the run) */
};

/*
 * One intended change. 64 bytes: a task set on 10,000 threads plans 10,000
 * of them, and the memory they take is first touched (page-faulted in)
 * while planning, so the enums are one byte each and a task's attributes
 * live once per distinct value in the plan's pool (below).
 */
struct uc_change {
	uint8_t kind;		/* enum uc_kind */
	uint8_t attr;		/* enum uc_attr */
	uint8_t state;		/* enum uc_change_state */
	bool flips;		/* would enable sched_uclamp_used */
	int err;		/* -errno for FAILED / ROLLBACK_FAILED */
	pid_t pid, tid;		/* tasks */
	/* cgroup path (relative to the cpu hierarchy root), sysctl file name; NULL for
	 * tasks; systemd: the unit's cgroup (label: the unit) */
	char *target;
	char *label;		/* tasks: comm, may be NULL */
	/* tasks: the attributes read while planning (sent back to the kernel);
	 * in the plan's pool, valid until uc_plan_free; NULL for other kinds */
	const struct uc_sched_attr *sa;
	/*
	 * tasks: identity, the start time of the process (PID) read while
	 * planning; 0 = unknown. A thread is its process's as long as
	 * tgkill(PID, TID, 0) finds it there. cgroups: the group's identity
	 * (uc_cg_ident) read while planning; 0 = not checked.
	 */
	unsigned long long start;
	/* tasks/sysctls: capacity units (to may be UC_RESET); cgroups: pct100; flags: 0/1 */
	long from, to;
};

/* Task attributes, each stored once per run of equal ones (a process's
 * threads usually have the same): blocks never move, so a change can point
 * into them. */
#define UC_SA_BLOCK 64
struct uc_sa_block {
	struct uc_sa_block *next;
	size_t n;
	struct uc_sched_attr v[UC_SA_BLOCK];
};

struct uc_plan {
	struct uc_change *v;
	size_t n, cap;
	size_t unchanged;	/* targets already at the wanted values (no write) */
	size_t gone;		/* tasks that exited while planning */
	size_t failed;		/* targets that could not be read while planning */
	struct uc_sa_block *sas;	/* the newest block first */
	/* strings the changes own (targets, labels): at 0, dropping changes
	 * needs no look at them (a task set's 10,000 have none) */
	size_t nstr;
};

void uc_plan_init(struct uc_plan *p);
void uc_plan_free(struct uc_plan *p);

/* Append a change (target/label are copied; may be NULL). 'flips' is set from
 * the kernel rules: task clamps and cgroup writes always, sysctls when the
 * value changes, flags never. NULL on ENOMEM. */
struct uc_change *uc_plan_add(struct uc_plan *p, enum uc_kind kind, enum uc_attr attr,
			      const char *target, long from, long to);
struct uc_change *uc_plan_add_task(struct uc_plan *p, pid_t pid, pid_t tid, const char *comm,
				   const struct uc_sched_attr *sa, enum uc_attr attr, long from,
				   long to);
/* Name c (one of p's) label instead (copied; NULL or "": none). 0 or -ENOMEM. */
int uc_plan_set_label(struct uc_plan *p, struct uc_change *c, const char *label);
/* A task change of another plan, identity (start time) included. NULL on ENOMEM. */
struct uc_change *uc_plan_copy_task(struct uc_plan *p, const struct uc_change *ch);

/* Ask systemd to enable cpu for unit (its cgroup rel): a runtime CPUWeight
 * from -> to (from -1: not set). Never flips the key. NULL on ENOMEM. */
struct uc_change *uc_plan_add_systemd(struct uc_plan *p, const char *rel, const char *unit,
				      long from, long to);

/* Drop the changes from index n on (a builder undoing its part of a plan). */
void uc_plan_drop_from(struct uc_plan *p, size_t n);

bool uc_plan_flips(const struct uc_plan *p);

/* The same changes in the same order: targets (tasks: PID, TID and start
 * time), attributes, from and to. */
bool uc_plan_same(const struct uc_plan *a, const struct uc_plan *b);
/*
 * Drop from fresh every task change whose identity (PID, TID, start time)
 * is not in shown, the plan a person consented to: a task started, or a PID
 * reused, while the question was open is not what they agreed to. The
 * dropped tasks count as gone; returns how many.
 */
size_t uc_plan_keep_shown(struct uc_plan *fresh, const struct uc_plan *shown);

/* "util_min", "util_max", "util_min_rt_default", "reset_on_fork", "cpu.uclamp.min", ... */
const char *uc_attr_name(enum uc_kind kind, enum uc_attr attr);
/* "task", "sysctl", "cgroup", "subtree", "systemd" */
const char *uc_kind_name(enum uc_kind kind);
const char *uc_change_state_name(enum uc_change_state st);
/* "pid 12 tid 13 (bash)", "kernel.sched_util_clamp_min", "system.slice/foo" */
const char *uc_change_target(const struct uc_change *c, char *buf, size_t n);
/*
 * A change value as the user reads it: units ("512", "default"), "40.00"/"max"
 * for cgroups, yes/no for flags.
 */
const char *uc_change_value(const struct uc_change *c, long v, char *buf, size_t n);

#endif
