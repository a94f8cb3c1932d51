/*
 * Running a plan: the one core every writer uses (task set/reset, run,
 * system set, cgroup set, apply, the daemon). One call takes the plan, the
 * consent and how to ask, checks the guard, executes (rollback included) and
 * fills a report. Nothing here prints: the CLI renders the report as text or
 * JSON, the daemon as log lines.
 */
#ifndef UCLAMP_PLAN_RUN_H
#define UCLAMP_PLAN_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "uclamp/guard.h"
#include "uclamp/plan.h"

struct uc_hist_note;

/* ---- the executor (exec.c): applies a plan in order; on failure undoes what it did ---- */

enum uc_exec_mode {
	UC_EXEC_BEST_EFFORT,	/* tasks: a failure on one does not stop the others */
	UC_EXEC_ATOMIC,		/* stop at the first failure and undo what was done */
};

/* Every write goes through one of these; tests script them. Each returns 0 or -errno. */
struct uc_exec_ops {
	/*
	 * sched_setattr of one TID: a from uc_sched_attr_for, built once for a
	 * task's adjacent changes (min/max/reset_on_fork), and for a run of
	 * threads once for all of them; left as it was for the next TID
	 */
	int (*task_setattr)(pid_t tid, struct uc_sched_attr *a);
	int (*sysctl_write)(enum uc_attr attr, long value);
	int (*cgroup_write)(const char *path, enum uc_attr attr, long pct100);
	/* path: the parent whose subtree_control changes */
	int (*subtree_set)(const char *path, int enable);
	/* ask systemd to enable cpu for c->label (c->to: the CPUWeight), and
	 * wait until it did (c->target then has the cpu files); never undone */
	int (*systemd_cpu)(const struct uc_change *c);
	/* A process's identity now (start time, /proc/PID/stat field 22); -ESRCH when gone.
	 * NULL: identities are not checked. */
	int (*task_start)(pid_t pid, pid_t tid, unsigned long long *start);
	/* Is TID still a thread of process PID? 0, or -ESRCH. NULL: not checked. */
	int (*task_member)(pid_t pid, pid_t tid);
	/* A group's identity now (uc_cg_ident); -ENOENT when it is gone. NULL:
	 * not checked. */
	int (*cgroup_ident)(const char *path, unsigned long long *ident);
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
 * write, that it is still a thread of that process (task_member). A cgroup
 * change is checked the same way right before its write (cgroup_ident): a
 * group removed since planning is gone, one made again under its path is
 * another group (-ESTALE), neither is written.
 */
int uc_plan_execute(struct uc_plan *p, enum uc_exec_mode mode, const struct uc_exec_ops *ops,
		    volatile sig_atomic_t *stop, struct uc_exec_report *r);

/* ---- the run (plan_run.c): guard, executor, report ---- */

enum uc_run_outcome {
	UC_RUN_NOTHING,		/* the plan is empty: nothing to change */
	UC_RUN_DRY,		/* dry run: the plan was checked, nothing written */
	UC_RUN_REFUSED,		/* would enable the fast path, no consent, no one to ask */
	UC_RUN_NOT_CONFIRMED,	/* ask() said no */
	/* a target cannot be written (its change says why): none written */
	UC_RUN_UNWRITABLE,
	UC_RUN_OK,		/* ran; best effort: see the counts for failures */
	UC_RUN_FAILED,		/* atomic: a write failed, the others were undone */
	/* *stop was set: the run stopped (atomic: what was done, undone) */
	UC_RUN_INTERRUPTED,
};

struct uc_run_opts {
	enum uc_exec_mode mode;
	bool dry_run;
	bool yes;		/* consent: --yes, or allow-enable in the config */
	bool key_always;	/* read the key's state even when the plan cannot flip it */
	/* reaches every task of every user: consent needed even with the key on */
	bool wide;
	/*
	 * Asked when the plan would enable the fast path and there is no
	 * consent; true = go. NULL = nobody to ask: refuse (a daemon, -J, no
	 * terminal).
	 */
	bool (*ask)(const struct uc_plan *plan, enum uc_key_state key, void *data);
	/* The key's state; NULL = uc_fastpath_detect_flags(). */
	enum uc_key_state (*key_state)(void *data);
	void *data;		/* for ask() and key_state() */
	const struct uc_exec_ops *ops;	/* NULL = the real kernel */
	/*
	 * Set (to a signal number) by a signal handler: the run stops after the
	 * write under way; atomic runs undo what they did. NULL = never.
	 */
	volatile sig_atomic_t *stop;
	/*
	 * Record the run (history.h): what it replaces before the first write,
	 * what became of it after the last. NULL: not recorded (the watch
	 * daemon: its writes keep a configuration true for processes as they
	 * start, not runs a person can take back; a record of every batch would
	 * push the runs people started out of the bounded record).
	 */
	const struct uc_hist_note *record;
};

struct uc_report {
	enum uc_run_outcome outcome;
	enum uc_exec_mode mode;		/* as asked */
	enum uc_guard_verdict verdict;	/* what the guard said (GO when it was not asked) */
	bool flips;			/* the plan would enable sched_uclamp_used */
	bool wide;			/* as asked (uc_run_opts.wide) */
	bool key_read;			/* key_before/after were read (else UNKNOWN) */
	enum uc_key_state key_before, key_after;
	/* per TARGET (a task's min/max/reset-on-fork changes are one), by state */
	size_t targets[UC_CH_SKIPPED + 1];
	/* from planning: already at the wanted values, exited, unreadable */
	size_t unchanged, gone, failed;
	int first_err;			/* -errno of the first failed write, 0 if none */
	int stopped_by;			/* INTERRUPTED: *stop's value (the signal) */
	/* uc_plan_run_fresh: fresh plans that differed from the one before */
	unsigned replanned;
	const struct uc_plan *plan;	/* per change: target, attribute, from, to, state, err */
	unsigned run_id;		/* the run's number in the record, 0: not recorded */
	int record_err;			/* why not (-errno, record_why says it), or 0 */
	char record_why[256];
};

/* Tasks that exited, while planning or during the run. */
size_t uc_report_gone(const struct uc_report *r);
/* Targets that failed, while planning or during the run. */
size_t uc_report_failed(const struct uc_report *r);

/*
 * Run the plan: read the key's state; an empty plan stops there. An atomic
 * plan is reordered so that its task changes come first (files can be
 * checked before writing, a task's sched_setattr cannot: its failure then
 * comes before any other write); a dry run stops here. Then every file the
 * plan writes is checked for writability (atomic runs: one known failure and
 * nothing is written, before anyone is asked), the guard decides (ask() when
 * it wants consent), and the executor runs. The report is always filled
 * (r->plan = plan). Returns 0 when every write that was made succeeded (or
 * none was needed), else the first failure's -errno; r->outcome says what
 * happened.
 */
int uc_plan_run(struct uc_plan *plan, const struct uc_run_opts *o, struct uc_report *r);

/* Where a writer's plan comes from, and the writers' lock (uc_plan_run_fresh). */
struct uc_fresh {
	/*
	 * Build the plan into p (initialised, empty) from what the host holds
	 * now. pass 0 is the first; later passes read again under the lock
	 * (say things once: on pass 0). 0, or a positive value that stops the
	 * run (returned as is).
	 */
	int (*plan)(struct uc_plan *p, unsigned pass, void *data);
	int (*lock)(void *data);	/* 0, or a positive value that stops the run */
	void (*unlock)(void *data);
	void *data;
};

/*
 * uc_plan_run without keeping anyone waiting on the lock. When nobody is
 * asked (o->ask NULL, o->yes, a dry run): lock, plan, run, as one writer.
 * Otherwise: plan, and when the guard wants consent ask with the lock not
 * held; then lock, plan again and run the fresh plan through the guard with
 * the consent given so far (r->replanned counts fresh plans that differed).
 * A fresh plan that needs consent nobody gave yet releases the lock and asks
 * again. *plan (initialised, empty) receives the plan that ran; free it after
 * the report. Returns a callback's positive value as is (the report is not
 * to be used then), else as uc_plan_run. The lock, once taken, stays held.
 */
int uc_plan_run_fresh(struct uc_plan *plan, const struct uc_fresh *f, const struct uc_run_opts *o,
		      struct uc_report *r);

#endif
