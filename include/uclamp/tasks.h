/* Finding tasks: processes and threads from /proc, and the selectors. */
#ifndef UCLAMP_TASKS_H
#define UCLAMP_TASKS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "uclamp/plan.h"
#include "uclamp/rules.h"
#include "uclamp/sched.h"

struct uc_selector {
	const pid_t *pids;	/* explicit PIDs (empty with 'all') */
	size_t npids;
	bool all;		/* every user-space process but the calling one */
	bool kernel_threads;	/* with 'all': kernel threads too (explicit PIDs always are) */
	bool threads;		/* every thread of each process, not only the main one */
	const int *policies;	/* any of them (of the thread); none: any policy */
	size_t npolicies;
	const uid_t *uids;	/* real uid of the process, any of them; none: any user */
	size_t nuids;
	/* process names (/proc/PID/comm) or globs; any of them matches */
	char *const *comms;
	size_t ncomms;
	const char *cgroup;	/* cgroup path relative to the cpu hierarchy (uc_cg_resolve),
				   NULL: any; the group and the groups below it match */
	bool need_comm;		/* fill uc_task.comm even without a comm selector */
};

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
 * st->refused, keeps the first in st->first_refusal and, when want->on_refusal
 * is set, calls it once per refused task so the caller can explain it.
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
	char comm[16];		/* "" unless the selector read it */
	int policy;
	int cur_min, cur_max;	/* requested now */
	/* what the change would have left (resets resolved to the default) */
	int end_min, end_max;
	/* uc_tasks_plan_rules: the rule whose value was refused, else -1 */
	int rule;
};

struct uc_walk_stats {
	size_t seen;		/* tasks matched and read */
	size_t gone;		/* vanished during the walk (not errors) */
	size_t failed;		/* could not be read: EPERM etc. (first error in first_err) */
	int first_err;
	pid_t first_err_tid;
	/* a rule that matched that task (uc_tasks_walk_rules), else -1 */
	int first_err_rule;
	size_t refused;		/* uc_tasks_plan: left out, see uc_task_refusal */
	struct uc_task_refusal first_refusal;
	size_t skipped;		/* UC_SKIP_*: left alone, not a failure */
	size_t kthreads;	/* kernel threads left out (no --kernel-threads) */
};

/* Calls fn for each selected task. An explicit PID that does not exist is
 * -ESRCH (checked before any callback; first_err_tid names it); a cgroup
 * selector without a cpu hierarchy is -ENOENT. Returns 0, -errno, or fn's
 * value. st may be NULL; it is zeroed first. */
int uc_tasks_walk(const struct uc_selector *sel, uc_task_fn fn, void *data,
		  struct uc_walk_stats *st);

/* The same over a rule set (see rules.h): one pass over /proc (or the
 * explicit PIDs: a process, or one thread when its ID is given and no rule
 * takes threads), every rule evaluated per task; fn sees the tasks some rule
 * matched (t->match says which rule wins each value). need_comm: fill
 * t->comm. The caller's rules are read only: this allocates one walk state. */
int uc_tasks_walk_rules(const struct uc_rules *rs, const pid_t *pids, size_t npids, bool need_comm,
			uc_task_fn fn, void *data, struct uc_walk_stats *st);

typedef void (*uc_refusal_fn)(const struct uc_task_refusal *r, void *data);

/* What a task should look like; UC_KEEP leaves a value alone. */
struct uc_task_want {
	int min, max;		/* 0..1024 or UC_RESET */
	int reset_on_fork;	/* 0/1 */
	uc_refusal_fn on_refusal;	/* optional, see uc_task_refusal */
	void *data;
};

/* Add to p the changes that bring every selected task to 'want': only the
 * values that differ (equal ones count in p->unchanged, no syscall later).
 * A reset (UC_RESET) of a clamp already at its default value counts as
 * unchanged. Gone tasks count in p->gone, unreadable and refused ones in
 * p->failed. One getattr per task, no /proc/PID/sched reads.
 * Shared by 'task set/reset', 'run' and 'apply'. Returns 0 or -errno:
 * -ERANGE for a value outside 0..1024 (other than UC_RESET/UC_KEEP),
 * -EINVAL for min > max both given, -ESRCH for a missing explicit PID
 * (st->first_err_tid), each before any task is read; -ENOMEM. */
int uc_tasks_plan(struct uc_plan *p, const struct uc_selector *sel, const struct uc_task_want *want,
		  struct uc_walk_stats *st);

/* The uc_proc fill callback that reads /proc (through the sysroot): pass it
 * to uc_proc_reset. data is unused. Fields the task has not got (a kernel
 * thread's exe, an empty cmdline, no cpu cgroup line, a parent gone) are
 * marked absent; a task that exited is -ESRCH. */
int uc_task_fill(struct uc_proc *p, unsigned want, void *data);

/* Plan what rs says for every running task (npids == 0) or for the given
 * ones (the daemon: a process that just exec'd) in one walk: per task and
 * value the winning rule (see rules.h), then as uc_tasks_plan. -ERANGE or
 * -EINVAL for a rule whose values no task could take, -ESRCH for a PID
 * that is gone, before any task is read. */
int uc_tasks_plan_rules(struct uc_plan *p, const struct uc_rules *rs, const pid_t *pids,
			size_t npids, uc_refusal_fn on_refusal, void *data,
			struct uc_walk_stats *st);

int uc_task_exists(pid_t pid);		/* 0 or -ESRCH; the calling process always exists */
int uc_task_comm(pid_t pid, pid_t tid, char *buf, size_t n);
int uc_task_uid(pid_t pid, uid_t *uid);
/* effective clamps from /proc/PID/task/TID/sched; -ENODATA when the kernel does not show them */
int uc_task_effective(pid_t pid, pid_t tid, int *eff_min, int *eff_max);

#endif
