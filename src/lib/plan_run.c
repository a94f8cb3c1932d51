/*
 * Running a plan (see plan_run.h): guard, execute, report. The order is the
 * promise: nothing is written before the guard said go, and the report says
 * exactly what happened to every change.
 */
#include <errno.h>
#include <string.h>

#include "uclamp/fastpath.h"
#include "uclamp/history.h"
#include "uclamp/plan_run.h"

/* Count the plan's targets by state into r->targets: a run's threads too. */
static void report_count(struct uc_report *r, const struct uc_plan *p)
{
	memset(r->targets, 0, sizeof(r->targets));
	for (size_t i = 0; i < p->nrec; i += uc_plan_group_len(p, i)) {
		const struct uc_change *c = &p->rec[i];

		r->targets[c->state]++;
		for (size_t t = 0; c->kind == UC_KIND_TASK && c->run && t < c->run->n; t++)
			r->targets[c->run->st[t].state]++;
	}
}

size_t uc_report_gone(const struct uc_report *r)
{
	return r->targets[UC_CH_GONE] + r->gone;
}

size_t uc_report_failed(const struct uc_report *r)
{
	return r->targets[UC_CH_FAILED] + r->failed;
}

static enum uc_key_state key_now(const struct uc_run_opts *o)
{
	struct uc_fastpath fp;

	if (o->key_state)
		return o->key_state(o->data);
	uc_fastpath_detect_flags(&fp, 0);
	return fp.state;
}

/* Whether a write was attempted: only then can the key have changed. A
 * run's threads are written after its records' own thread. */
static bool attempted(const struct uc_plan *p)
{
	for (size_t i = 0; i < p->nrec; i++)
		if (p->rec[i].state != UC_CH_PLANNED && p->rec[i].state != UC_CH_SKIPPED)
			return true;
	return false;
}

/*
 * Every file of an atomic plan must be writable before anything is written:
 * otherwise a first write could enable the key and a later one fail. The
 * clamp files of a group whose cpu controller the plan enables do not exist
 * yet: those are known only by writing.
 */
static int check_writable(struct uc_plan *p, const struct uc_exec_ops *ops, struct uc_report *r)
{
	bool enables_cpu = false;
	int first = 0;

	if (!ops->writable)
		return 0;
	for (size_t i = 0; i < p->nrec; i++) {
		struct uc_change *c = &p->rec[i];
		int rc;

		if (c->kind == UC_KIND_TASK)
			continue;
		enables_cpu |= c->kind == UC_KIND_SUBTREE || c->kind == UC_KIND_SYSTEMD;
		rc = ops->writable(c);
		if (!rc || (rc == -ENOENT && enables_cpu && c->kind == UC_KIND_CGROUP))
			continue;
		c->state = UC_CH_FAILED;
		c->err = rc;
		if (!first)
			first = rc;
	}
	r->first_err = first;
	return first;
}

/*
 * Atomic plans: the writes no check can vouch for go first. Files were
 * checked for writability; a task's sched_setattr can still fail (EPERM for
 * another user's task without CAP_SYS_NICE), so tasks lead and such a
 * failure comes before any sysctl or cgroup write. The order among files
 * (min before max, +cpu before a group's clamps) and among tasks is kept.
 */
static void tasks_first(struct uc_plan *p)
{
	size_t k = 0;

	for (size_t i = 0; i < p->nrec; i++) {
		struct uc_change c;

		if (p->rec[i].kind != UC_KIND_TASK)
			continue;
		if (i == k) {	/* in place already: no copy */
			k++;
			continue;
		}
		c = p->rec[i];	/* a run's records move one by one, in order: still adjacent */
		memmove(&p->rec[k + 1], &p->rec[k], (i - k) * sizeof(c));
		p->rec[k++] = c;
	}
}

static bool stopped(const struct uc_run_opts *o, struct uc_report *r)
{
	if (!o->stop || !*o->stop)
		return false;
	r->stopped_by = *o->stop;
	r->outcome = UC_RUN_INTERRUPTED;
	return true;
}

/*
 * Everything before the write: the report, the key, the order, a dry run,
 * writability, the guard's verdict. True when the run ends here (r->outcome
 * says how; *rc is what uc_plan_run returns); false when the verdict is GO,
 * GO_WARN or ASK.
 */
static bool prepare(struct uc_plan *plan, const struct uc_run_opts *o, bool yes,
		    struct uc_report *r, int *rc)
{
	struct uc_consent consent = { .yes = yes, .interactive = o->ask != NULL, .wide = o->wide };

	*rc = 0;
	*r = (struct uc_report){
		.mode = o->mode,
		.verdict = UC_GUARD_GO,
		.flips = uc_plan_flips(plan),
		.wide = o->wide,
		.key_before = UC_KEY_UNKNOWN,
		.key_after = UC_KEY_UNKNOWN,
		.unchanged = plan->unchanged,
		.gone = plan->gone,
		.failed = plan->failed,
		.plan = plan,
	};
	if (r->flips || o->key_always) {
		r->key_before = r->key_after = key_now(o);
		r->key_read = true;
	}
	if (plan->n == 0) {
		r->outcome = UC_RUN_NOTHING;	/* the counts are all 0 */
		return true;
	}
	if (o->mode == UC_EXEC_ATOMIC)
		tasks_first(plan);	/* also what a dry run shows: the order of the writes */
	/*
	 * The counts of a run that may end before the write: here, or at the
	 * question. A run that goes straight to the write is counted after it
	 * (write_plan): no pass over 10,000 changes for a count replaced anyway.
	 */
	if (o->dry_run) {
		r->outcome = UC_RUN_DRY;
		report_count(r, plan);
		return true;
	}
	if (o->mode == UC_EXEC_ATOMIC &&
	    check_writable(plan, o->ops ? o->ops : &uc_exec_default_ops, r)) {
		r->outcome = UC_RUN_UNWRITABLE;
		report_count(r, plan);
		*rc = r->first_err;
		return true;
	}
	if (stopped(o, r)) {
		report_count(r, plan);
		return true;
	}
	r->verdict = uc_guard_decide(r->flips, r->key_before, &consent);
	if (r->verdict == UC_GUARD_REFUSE)
		r->outcome = UC_RUN_REFUSED;
	if (r->verdict == UC_GUARD_REFUSE || r->verdict == UC_GUARD_ASK)
		report_count(r, plan);
	return r->verdict == UC_GUARD_REFUSE;
}

/* The question, when the guard wants one: true = go on. */
static bool confirmed(const struct uc_plan *plan, const struct uc_run_opts *o,
		      struct uc_report *r)
{
	bool yes = o->ask(plan, r->key_before, o->data);

	/* a signal at the prompt: interrupted, not a "no" */
	if (stopped(o, r))
		return false;
	if (!yes)
		r->outcome = UC_RUN_NOT_CONFIRMED;
	return yes;
}

/* The write, after the guard said go (and the person, if asked, yes). */
static int write_plan(struct uc_plan *plan, const struct uc_run_opts *o, struct uc_report *r)
{
	struct uc_exec_report er;
	int rc;

	/* what the run replaces, before it replaces anything: a crash mid-run
	 * leaves a run without its end, which undo still reads */
	if (o->record)
		r->record_err = uc_hist_begin(plan, o->record, r->key_before, &r->run_id,
					      r->record_why, sizeof(r->record_why));
	rc = uc_plan_execute(plan, o->mode, o->ops, o->stop, &er);
	r->first_err = er.first_err;
	report_count(r, plan);
	if (er.stopped_by) {
		r->outcome = UC_RUN_INTERRUPTED;
		r->stopped_by = er.stopped_by;
	} else {
		r->outcome = o->mode == UC_EXEC_ATOMIC && er.failed ? UC_RUN_FAILED : UC_RUN_OK;
	}
	if (uc_guard_cost(r->flips, r->key_before) && attempted(plan))
		r->key_after = key_now(o);
	if (r->run_id)
		r->record_err = uc_hist_end(r->run_id, plan, r->key_after, r->outcome,
					    r->record_why, sizeof(r->record_why));
	return rc;
}

int uc_plan_run(struct uc_plan *plan, const struct uc_run_opts *o, struct uc_report *r)
{
	int rc;

	if (prepare(plan, o, o->yes, r, &rc))
		return rc;
	if (r->verdict == UC_GUARD_ASK && !confirmed(plan, o, r))
		return 0;
	return write_plan(plan, o, r);
}

/*
 * Plan, ask, lock, plan again, write: the person answers without the lock
 * held, the write uses what was read under it. A fresh plan is compared
 * with the one before (in the order the run writes it); whatever it says,
 * it goes through the guard again, with the consent given so far: a plan
 * that now needs consent nobody gave (the fast-path answer changed) is asked
 * about again, with the lock released first.
 */
int uc_plan_run_fresh(struct uc_plan *plan, const struct uc_fresh *f, const struct uc_run_opts *o,
		      struct uc_report *r)
{
	bool held = false, consented = false;
	unsigned pass = 0, replanned = 0;
	int rc;

	if (!o->ask || o->yes || o->dry_run) {
		/* nobody is asked: plan and write under the lock */
		if ((rc = f->lock(f->data)) || (rc = f->plan(plan, 0, f->data)))
			return rc;
		return uc_plan_run(plan, o, r);
	}
	if ((rc = f->plan(plan, pass++, f->data)))
		return rc;
	for (;;) {
		struct uc_plan fresh;
		bool done = prepare(plan, o, consented, r, &rc);

		r->replanned = replanned;
		if (done)
			return rc;
		if (r->verdict == UC_GUARD_ASK) {
			if (held)
				f->unlock(f->data);
			held = false;
			if (!confirmed(plan, o, r))
				return 0;
			consented = true;
		} else if (consented && r->verdict == UC_GUARD_GO_WARN) {
			r->verdict = UC_GUARD_ASK;	/* the consent was the person's answer */
		}
		if (held)
			return write_plan(plan, o, r);
		if ((rc = f->lock(f->data)))
			return rc;
		held = true;
		uc_plan_init(&fresh);
		if ((rc = f->plan(&fresh, pass++, f->data))) {
			uc_plan_free(&fresh);
			return rc;
		}
		uc_plan_keep_shown(&fresh, plan);
		if (o->mode == UC_EXEC_ATOMIC)
			tasks_first(&fresh);
		replanned += !uc_plan_same(plan, &fresh);
		uc_plan_free(plan);
		*plan = fresh;
	}
}
