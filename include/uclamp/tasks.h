/* Finding tasks: processes and threads from /proc, and the selectors. */
#ifndef UCLAMP_TASKS_H
#define UCLAMP_TASKS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "uclamp/plan.h"
#include "uclamp/sched.h"

struct uc_selector {
	const pid_t *pids;	/* explicit PIDs (empty with 'all') */
	size_t npids;
	bool all;		/* every process */
	bool threads;		/* every thread of each process, not only the main one */
	int policy;		/* -1: any */
	bool has_uid;
	uid_t uid;		/* real uid of the process */
	char *const *comms;	/* process names (/proc/PID/comm); any of them matches */
	size_t ncomms;
	const char *cgroup;	/* cgroup path relative to the cpu hierarchy, NULL: any */
	bool need_comm;		/* fill uc_task.comm even without a comm selector */
};

struct uc_task {
	pid_t pid, tid;
	struct uc_sched_attr sa;	/* sched_getattr(tid) */
	char comm[16];			/* thread's comm, "" unless needed */
};

/* Return 0 to go on, nonzero to stop the walk (returned by uc_tasks_walk). */
typedef int (*uc_task_fn)(const struct uc_task *t, void *data);

struct uc_walk_stats {
	size_t seen;		/* tasks matched and read */
	size_t gone;		/* vanished during the walk (not errors) */
	size_t failed;		/* could not be read: EPERM etc. (first error in first_err) */
	int first_err;
	pid_t first_err_tid;
};

/* Calls fn for each selected task. An explicit PID that does not exist is
 * -ESRCH (checked before any callback). Returns 0, -errno, or fn's value. */
int uc_tasks_walk(const struct uc_selector *sel, uc_task_fn fn, void *data, struct uc_walk_stats *st);

/* What a task should look like; UC_KEEP leaves a value alone. */
struct uc_task_want {
	int min, max;		/* 0..1024 or UC_RESET */
	int reset_on_fork;	/* 0/1 */
};

/* Add to p the changes that bring every selected task to 'want': only the
 * values that differ (equal ones count in p->unchanged, no syscall later).
 * Shared by 'task set/reset', 'run' and 'apply'. Returns 0 or -errno. */
int uc_tasks_plan(struct uc_plan *p, const struct uc_selector *sel, const struct uc_task_want *want,
		  struct uc_walk_stats *st);

int uc_task_exists(pid_t pid);		/* 0 or -ESRCH */
int uc_task_comm(pid_t pid, pid_t tid, char *buf, size_t n);
int uc_task_uid(pid_t pid, uid_t *uid);
/* effective clamps from /proc/PID/task/TID/sched; -ENODATA when the kernel does not show them */
int uc_task_effective(pid_t pid, pid_t tid, int *eff_min, int *eff_max);

#endif
