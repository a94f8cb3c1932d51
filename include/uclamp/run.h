/*
 * Running a plan: the one core every writer uses (task set/reset, run,
 * system set, cgroup set, apply, the daemon). One call takes the plan, the
 * consent and how to ask, checks the guard, executes (rollback included) and
 * fills a report. Nothing here prints: the CLI renders the report as text or
 * JSON, the daemon as log lines.
 */
#ifndef UCLAMP_RUN_H
#define UCLAMP_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "uclamp/exec.h"
#include "uclamp/guard.h"
#include "uclamp/plan.h"

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

const char *uc_run_outcome_name(enum uc_run_outcome o);	/* "nothing", "dry-run", ... */

struct uc_run_opts {
	enum uc_exec_mode mode;
	bool dry_run;
	bool yes;		/* consent: --yes, or allow-enable in the config */
	bool key_always;	/* read the key's state even when the plan cannot flip it */
	/*
	 * Asked when the plan would enable the fast path and there is no
	 * consent; true = go. NULL = nobody to ask: refuse (a daemon, -J, no
	 * terminal).
	 */
	bool (*ask)(const struct uc_plan *plan, enum uc_key_state key, void *data);
	/* The key's state; NULL = uc_fastpath_detect(). */
	enum uc_key_state (*key_state)(void *data);
	void *data;		/* for ask() and key_state() */
	const struct uc_exec_ops *ops;	/* NULL = the real kernel */
	/*
	 * Set (to a signal number) by a signal handler: the run stops after the
	 * write under way; atomic runs undo what they did. NULL = never.
	 */
	volatile sig_atomic_t *stop;
};

struct uc_report {
	enum uc_run_outcome outcome;
	enum uc_exec_mode mode;		/* as asked */
	enum uc_guard_verdict verdict;	/* what the guard said (GO when it was not asked) */
	bool flips;			/* the plan would enable sched_uclamp_used */
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
};

/* Count the plan's targets by state into r->targets. */
void uc_report_count(struct uc_report *r, const struct uc_plan *plan);

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
