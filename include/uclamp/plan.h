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
 * One intended change. 64 bytes: a plan's records are first touched
 * (page-faulted in) while planning, so the enums are one byte each and a
 * task's attributes live once per distinct value in the plan's pool (below).
 * A process's threads with the same changes share their records: a run
 * (struct uc_tidrun), 4 bytes and a state a thread; readers see each thread's
 * change through uc_plan_next, as a change of its own.
 */
struct uc_change {
	uint8_t kind;		/* enum uc_kind */
	uint8_t attr;		/* enum uc_attr */
	uint8_t state;		/* enum uc_change_state */
	bool flips;		/* would enable sched_uclamp_used */
	int err;		/* -errno for FAILED / ROLLBACK_FAILED */
	pid_t pid, tid;		/* tasks */
	union {
		/* cgroup path (relative to the cpu hierarchy root), sysctl file name;
		 * systemd: the unit's cgroup (label: the unit); NULL for tasks */
		char *target;
		/* tasks, in the plan's records only: the threads after tid (NULL: none) */
		struct uc_tidrun *run;
	};
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

/*
 * Threads of one process that come one after another in a plan with the same
 * attributes read, the same changes and no name: the first thread's records
 * (one per attribute, k of them, all pointing here) stand for all of them.
 */
struct uc_tidrun {
	size_t n, cap;		/* threads after the records' own */
	uint8_t k;		/* the records sharing this run */
	pid_t *tid;
	struct uc_tidstate {
		uint8_t state;	/* enum uc_change_state */
		uint8_t err;	/* errno (a task's are all below 256), 0: none */
	} *st;
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
	/* the records, in the order they are written (a run's threads after
	 * its records' own): the core's (plan.c, exec.c, plan_run.c); the rest
	 * read changes through uc_plan_next */
	struct uc_change *rec;
	size_t nrec, cap;
	size_t n;		/* changes: one a record, a run's k for each of its threads */
	size_t unchanged;	/* targets already at the wanted values (no write) */
	size_t gone;		/* tasks that exited while planning */
	size_t failed;		/* targets that could not be read while planning */
	struct uc_sa_block *sas;	/* the newest block first */
	/* what the records own (targets, labels, runs): at 0, dropping
	 * records needs no look at them */
	size_t nstr;
};

/*
 * The changes of a plan in order, one at a time:
 *	struct uc_plan_it it = { 0 };
 *	for (const struct uc_change *c; (c = uc_plan_next(p, &it));) ...
 * A change of a run is a copy with that thread's tid, state and err, valid
 * until the next call (a copy of the iterator walks on with copies of its own).
 */
struct uc_plan_it {
	size_t rec;		/* the next record, or the first of the run */
	const struct uc_tidrun *run;	/* the run being read, NULL: none */
	size_t thread;		/* in it: the thread (0: its records' own tid), */
	size_t k;		/* and the record */
	struct uc_change view[3];	/* its records, as its current thread's */
};
/* uc_plan_next past a run's own records' thread (plan.c) */
const struct uc_change *uc_plan_step(const struct uc_plan *p, struct uc_plan_it *it);

static inline const struct uc_change *uc_plan_next(const struct uc_plan *p, struct uc_plan_it *it)
{
	const struct uc_tidrun *r = it->run;
	struct uc_change *v;

	if (!r || !it->thread || it->thread > r->n)
		return uc_plan_step(p, it);
	/* the next thread of a run (inline: 10,000 of them for a record or a report) */
	v = &it->view[it->k];
	v->tid = r->tid[it->thread - 1];
	v->state = r->st[it->thread - 1].state;
	v->err = -(int)r->st[it->thread - 1].err;
	if (++it->k == r->k) {
		it->k = 0;
		it->thread++;
	}
	return v;
}

/* The records from i on that make one group (what one write changes): a run's
 * k records, a task's adjacent records of one TID, or one record of a file. */
static inline size_t uc_plan_group_len(const struct uc_plan *p, size_t i)
{
	const struct uc_change *c = &p->rec[i];
	size_t j = i + 1;

	if (c->kind != UC_KIND_TASK)
		return 1;
	if (c->run)
		return c->run->k;
	while (j < p->nrec && p->rec[j].kind == UC_KIND_TASK && !p->rec[j].run &&
	       p->rec[j].tid == c->tid)
		j++;
	return j - i;
}

/* The first record of the group whose last record is j. */
static inline size_t uc_plan_group_start(const struct uc_plan *p, size_t j)
{
	const struct uc_change *c = &p->rec[j];

	if (c->kind != UC_KIND_TASK)
		return j;
	if (c->run)
		return j + 1 - c->run->k;
	while (j > 0 && p->rec[j - 1].kind == UC_KIND_TASK && !p->rec[j - 1].run &&
	       p->rec[j - 1].tid == c->tid)
		j--;
	return j;
}

void uc_plan_init(struct uc_plan *p);
void uc_plan_free(struct uc_plan *p);

/* Append a change (target/label are copied; may be NULL). 'flips' is set from
 * the kernel rules: task clamps and cgroup writes always, sysctls when the
 * value changes, flags never. NULL on ENOMEM. */
struct uc_change *uc_plan_add(struct uc_plan *p, enum uc_kind kind, enum uc_attr attr,
			      const char *target, long from, long to);
/* One task change as a record of its own (never a run). NULL on ENOMEM. */
struct uc_change *uc_plan_add_task(struct uc_plan *p, pid_t pid, pid_t tid, const char *comm,
				   const struct uc_sched_attr *sa, enum uc_attr attr, long from,
				   long to);
/* A task's change of one attribute, for uc_plan_add_thread. */
struct uc_task_change {
	enum uc_attr attr;
	long from, to;
};
/*
 * A thread's changes ch[0..n) (min, max, reset-on-fork: one sched_setattr),
 * with its identity (start: its process's start time, 0 = unknown). It
 * joins the run of the thread before it when that is a thread of the same
 * process with the same start, attributes and changes, and neither has a
 * name (comm NULL or ""). 0 or -ENOMEM.
 */
int uc_plan_add_thread(struct uc_plan *p, pid_t pid, pid_t tid, unsigned long long start,
		       const char *comm, const struct uc_sched_attr *sa,
		       const struct uc_task_change *ch, size_t n);
/*
 * Thread tid with the changes of the thread added last by uc_plan_add_thread,
 * whose run it joins: for a builder that knows tid is of the same process,
 * start and attributes, and unnamed (it compared them; the walk's threads
 * after the first two). 0, -ENOMEM, or -EINVAL when the last is not a task's.
 */
int uc_plan_add_same(struct uc_plan *p, pid_t tid);
/* Name every task change label instead (copied; NULL or "": none). 0 or -ENOMEM. */
int uc_plan_name_tasks(struct uc_plan *p, const char *label);
/* A task change of another plan, identity (start time) included. NULL on ENOMEM. */
struct uc_change *uc_plan_copy_task(struct uc_plan *p, const struct uc_change *ch);

/* Ask systemd to enable cpu for unit (its cgroup rel): a runtime CPUWeight
 * from -> to (from -1: not set). Never flips the key. NULL on ENOMEM. */
struct uc_change *uc_plan_add_systemd(struct uc_plan *p, const char *rel, const char *unit,
				      long from, long to);

/* Drop the changes from index n on (a builder undoing its part of a plan:
 * n is a count of changes, p->n, taken before it added them). */
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
