/* The executor: applies a plan in order; on failure undoes what it did. */
#ifndef UCLAMP_EXEC_H
#define UCLAMP_EXEC_H

#include <signal.h>
#include <stddef.h>

#include "uclamp/plan.h"

enum uc_exec_mode {
	UC_EXEC_BEST_EFFORT,	/* tasks: a failure on one does not stop the others */
	UC_EXEC_ATOMIC,		/* stop at the first failure and undo what was done */
};

/* Every write goes through one of these; tests script them. Each returns 0 or -errno. */
struct uc_exec_ops {
	/* one TID: n adjacent changes of that TID (min/max/reset_on_fork), values from c[i].to */
	int (*task_set)(const struct uc_change *c, size_t n, int min, int max, int reset_on_fork);
	int (*sysctl_write)(enum uc_attr attr, long value);
	int (*cgroup_write)(const char *path, enum uc_attr attr, long pct100);
	/* path: the parent whose subtree_control changes */
	int (*subtree_set)(const char *path, int enable);
	/* A process's identity now (start time, /proc/PID/stat field 22); -ESRCH when gone.
	 * NULL: identities are not checked. */
	int (*task_start)(pid_t pid, pid_t tid, unsigned long long *start);
	/* Is TID still a thread of process PID? 0, or -ESRCH. NULL: not checked. */
	int (*task_member)(pid_t pid, pid_t tid);
	/* Could this change's file be written (no write made)? 0 or -errno. Not for tasks. */
	int (*writable)(const struct uc_change *c);
};

extern const struct uc_exec_ops uc_exec_default_ops;

struct uc_exec_report {
	size_t done, failed, gone, rolled_back, rollback_failed, skipped;
	int first_err;		/* -errno of the first failure */
	/* *stop's value if the run stopped early (a signal), else 0 */
	int stopped_by;
};

/*
 * Run the plan. ops NULL = the real kernel. Returns 0 when nothing failed,
 * else the first failure's -errno; each change's state/err says what
 * happened to it. stop NULL = run to the end; else the run stops early when
 * *stop becomes nonzero (a signal handler sets it): the write under way
 * finishes, the rest is skipped and, in atomic mode, the changes made are
 * undone (an undo is never cut short by *stop). A task whose identity changed
 * since planning (its PID was reused) is left alone and reported gone
 * (err -ESTALE). The identity is the process's start time, read once for
 * each run of consecutive changes of one process (not once per thread: that
 * read costs ten times a thread's write), and for a thread, right before its
 * write, that it is still a thread of that process (task_member).
 */
int uc_plan_execute(struct uc_plan *p, enum uc_exec_mode mode, const struct uc_exec_ops *ops,
		    volatile sig_atomic_t *stop, struct uc_exec_report *r);

#endif
