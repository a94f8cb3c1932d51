/*
 * Finding tasks: one walker over /proc for the command line, the config
 * and the daemon. Which tasks is always a rule set (rules.h): the command
 * line's selection is one rule (selectors.h sets it from the options), the
 * config's [tasks] sections are many.
 */
#ifndef UCLAMP_TASKS_H
#define UCLAMP_TASKS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "uclamp/plan.h"
#include "uclamp/rules.h"
#include "uclamp/sched.h"

struct uc_task {
	pid_t pid, tid;
	struct uc_sched_attr sa;	/* sched_getattr(tid) */
	char comm[16];			/* thread's comm, "" unless needed */
	/* the process's ('Z': zombie) for the main thread, else '?' */
	char state;
	/* the process's start time (/proc/PID/stat): its identity; 0 = unknown */
	unsigned long long start;
	const struct uc_rules_result *match;	/* what the rules say about this task */
};

/* Return 0 to go on, nonzero to stop the walk (returned by uc_tasks_walk). */
typedef int (*uc_task_fn)(const struct uc_task *t, void *data);

/*
 * Per-task problems found while planning. The plan builder leaves such a
 * task out of the plan (the others still go in), counts it in p->failed and
 * st->refused, keeps the first in st->first_refusal and, when on_refusal
 * is given, calls it once per refused task so the caller can explain it.
 */
enum uc_refusal_why {
	UC_REFUSE_NONE,
	UC_REFUSE_MIN_GT_MAX,		/* the end state would have util_min > util_max */
	UC_REFUSE_RT_MAX_BELOW_MIN, /* max alone below a real-time task's current min, which is
					   sched_util_clamp_min_rt_default (1024) unless set: the
					   kernel would answer EINVAL */
	/* Not failures: counted in st->skipped only (a zombie also in p->gone),
	 * still passed to on_refusal so the caller can say what the task is. */
	/* exited, not reaped yet: a clamp would mean nothing */
	UC_SKIP_ZOMBIE,
	/* PID 1 under --all: every process it starts inherits */
	UC_SKIP_INIT,
};

struct uc_task_refusal {
	enum uc_refusal_why why;
	pid_t pid, tid;
	char comm[16];		/* "" unless the walk read it */
	int policy;
	int cur_min, cur_max;	/* requested now */
	/* what the change would have left (resets resolved to the default) */
	int end_min, end_max;
	/* the rule whose value was refused, else -1 */
	int rule;
};

struct uc_walk_stats {
	size_t seen;		/* tasks matched and read */
	size_t gone;		/* vanished during the walk (not errors) */
	size_t failed;		/* could not be read: EPERM etc. (first error in first_err) */
	int first_err;
	pid_t first_err_tid;
	/* a rule that matched that task, else -1 */
	int first_err_rule;
	size_t refused;		/* planning: left out, see uc_task_refusal */
	struct uc_task_refusal first_refusal;
	size_t skipped;		/* UC_SKIP_*: left alone, not a failure */
	size_t kthreads;	/* kernel threads left out (no --kernel-threads) */
};

/*
 * The one walker over /proc: every process but the calling one, or every
 * thread of a process (taskfd: its open task directory, for openat).
 * Nonzero from fn stops and is returned; else 0 or -errno (-ESRCH: the
 * process is gone). uc_tasks_walk and the daemon's rescans go through it.
 */
typedef int (*uc_pid_fn)(pid_t pid, void *data);
typedef int (*uc_tid_fn)(pid_t tid, int taskfd, void *data);
int uc_tasks_each_pid(uc_pid_fn fn, void *data);
int uc_tasks_each_tid(pid_t pid, uc_tid_fn fn, void *data);

/* How a walk reads and what it leaves alone. */
enum uc_walk_flag {
	UC_WALK_COMM = 1u << 0,		/* fill uc_task.comm even when no rule reads it */
	/* the command line: a thread ID given (without a threads rule) is taken
	 * as it is, the process selectors do not apply to it */
	UC_WALK_ID_AS_GIVEN = 1u << 1,
	UC_WALK_SKIP_INIT = 1u << 2,	/* every process: PID 1 is left alone (UC_SKIP_INIT) */
};

/*
 * One pass over /proc (npids == 0) or the given IDs (a process, or one
 * thread when its ID is given and no rule takes threads), every rule
 * evaluated per task; fn sees the tasks some rule matched (t->match says
 * which rule wins each value). An explicit PID that does not exist is
 * -ESRCH before any callback (first_err_tid names it). The rules are read
 * only. Returns 0, -errno, or fn's value; st may be NULL, it is zeroed.
 */
int uc_tasks_walk(const struct uc_rules *rs, const pid_t *pids, size_t npids, unsigned flags,
		  uc_task_fn fn, void *data, struct uc_walk_stats *st);

/* The rule that decides a task's first value (min, max, reset-on-fork), -1: none. */
int uc_task_rule(const struct uc_rules_result *res);

typedef void (*uc_refusal_fn)(const struct uc_task_refusal *r, void *data);

/*
 * Add to p the changes that bring every task the walk visits to what its
 * winning rules say (see rules.h): only the values that differ (equal ones
 * count in p->unchanged, no syscall later; a reset of a clamp already at
 * its default counts as unchanged). Gone tasks count in p->gone, unreadable
 * and refused ones in p->failed (on_refusal, optional, explains each). One
 * getattr per task, no /proc/PID/sched reads. Shared by 'task set/reset',
 * 'run', 'apply' and the daemon's rescans. Returns 0 or -errno: -ERANGE or
 * -EINVAL for a rule whose values no task could take, -ESRCH for a missing
 * explicit PID (st->first_err_tid), each before any task is read; -ENOMEM.
 */
int uc_tasks_plan(struct uc_plan *p, const struct uc_rules *rs, const pid_t *pids, size_t npids,
		  unsigned flags, uc_refusal_fn on_refusal, void *data, struct uc_walk_stats *st);

/* The daemon's step: one task it has read (t->sa, state, start) and matched
 * (t->match) planned as uc_tasks_plan would. st is zeroed first. */
int uc_tasks_plan_one(struct uc_plan *p, const struct uc_task *t, uc_refusal_fn on_refusal,
		      void *data, struct uc_walk_stats *st);

/* The uc_proc fill callback that reads /proc (through the sysroot): pass it
 * to uc_proc_reset. data is unused. Fields the task has not got (a kernel
 * thread's exe, an empty cmdline, no cpu cgroup line, a parent gone) are
 * marked absent; a task that exited is -ESRCH. */
int uc_task_fill(struct uc_proc *p, unsigned want, void *data);
/* The process's stat fields from a stat the caller has read already
 * (uc_task_stat of the process): uc_task_fill then does not read it again. */
struct uc_stat;
void uc_proc_take_stat(struct uc_proc *p, const struct uc_stat *st);

int uc_task_exists(pid_t pid);		/* 0 or -ESRCH; the calling process always exists */
int uc_task_comm(pid_t pid, pid_t tid, char *buf, size_t n);
int uc_task_uid(pid_t pid, uid_t *uid);
/* How many tasks (TIDs) a plan changes, and of how many users (the processes'
 * owners now; one that exited is not counted). 0 or -ENOMEM. */
int uc_plan_reach(const struct uc_plan *p, size_t *tasks, size_t *users);
/* effective clamps from /proc/PID/task/TID/sched; -ENODATA when the kernel does not show them */
int uc_task_effective(pid_t pid, pid_t tid, int *eff_min, int *eff_max);

/*
 * What /proc/PID/task/TID/sched shows that uclampctl uses (schedfile.c, the
 * one parser of that file). It exists with CONFIG_SCHED_DEBUG before 6.15,
 * always after; its lines are "NAME<spaces>:<spaces>VALUE" after a header
 * naming the task ("COMM (PID, #threads: N)": a comm holds any bytes) and a
 * line of dashes. Read by name,
 * each value -1 where the file has no such line (or a value out of range):
 * the names changed across versions, and a feature or option off drops them.
 */
struct uc_sched_file {
	long util_avg;		/* se.avg.util_avg (SMP) */
	/* the task's util_est as the kernel uses it: 6.8+ se.avg.util_est;
	 * before, max(se.avg.util_est.ewma, se.avg.util_est.enqueued) */
	long util_est;
	bool util_est_split;	/* read from the two fields before 6.8 */
	long eff_min, eff_max;	/* effective uclamp.min/max (5.7+, UCLAMP_TASK) */
};
/* Parse the text of the file: 0, or -EINVAL when it has no header line
 * (not that file: nothing is taken). */
int uc_sched_file_parse(const char *text, struct uc_sched_file *sf);
/* Read and parse it: 0, -ESRCH gone, -ENOENT no such file (the kernel
 * lacks it), -EACCES etc., -EINVAL. */
int uc_task_sched_file(pid_t pid, pid_t tid, struct uc_sched_file *sf);

#endif
