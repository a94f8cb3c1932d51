/*
 * Undo (history.h): a plan that puts back what a recorded run replaced.
 * Nothing from the record is trusted to still hold: every target is read
 * again now, its identity compared with the one recorded, and only a target
 * that still holds what the run set is planned (others are named and left
 * alone: someone changed them since). The plan then runs through the one
 * core like any other, where the executor checks each task's identity again
 * right before its write.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "uclamp/cgroup.h"
#include "uclamp/history.h"
#include "uclamp/identity.h"
#include "uclamp/sched.h"
#include "uclamp/sysctl.h"
#include "uclamp/value.h"

struct undo {
	struct uc_plan *p;
	uc_undo_fn on_skip;
	void *data;
	size_t skipped;
	bool ended;
};

static void skip(struct undo *u, const struct uc_hist_change *c, enum uc_undo_why why, long now,
		 int err)
{
	struct uc_undo_skip s = { .why = why, .c = c, .now = now, .err = err };

	/* kept by design (the cpu controller, systemd's CPUWeight): not a shortfall */
	if (why != UC_UNDO_KEPT)
		u->skipped++;
	if (u->on_skip)
		u->on_skip(&s, u->data);
}

/* Did the run write this change? Without an END (a crash mid-run), maybe. */
static bool written(const struct undo *u, const struct uc_hist_change *c)
{
	if (!u->ended)
		return c->state == UC_CH_PLANNED;
	return c->state == UC_CH_DONE || c->state == UC_CH_ROLLBACK_FAILED;
}

/* The task of c, as the run wrote it: 0, or the reason it is not there. */
static int task_same(const struct uc_hist_change *c)
{
	unsigned long long now;
	int rc;

	if (c->start) {
		rc = uc_task_start_time(c->pid, c->pid, &now);
		if (rc)
			return rc;
		if (now != c->start)
			return -ESTALE;
	}
	return c->tid == c->pid ? 0 : uc_task_in_process(c->pid, c->tid);
}

static long task_now(const struct uc_sched_attr *sa, enum uc_attr attr)
{
	if (attr == UC_ATTR_MIN)
		return sa->sched_util_min;
	if (attr == UC_ATTR_MAX)
		return sa->sched_util_max;
	return !!(sa->sched_flags & UC_SCHED_FLAG_RESET_ON_FORK);
}

/* A clamp's value as sched_getattr reads it once 'v' is written (-1: its default). */
static long task_value(const struct uc_sched_attr *sa, enum uc_attr attr, long v)
{
	if (attr == UC_ATTR_RESET_ON_FORK || v != UC_RESET)
		return v;
	return uc_sched_default_value(sa, attr == UC_ATTR_MAX);
}

/* What to write to put back 'from': a clamp at its default goes back to the default. */
static long task_back(const struct uc_sched_attr *sa, enum uc_attr attr, long from)
{
	if (attr != UC_ATTR_RESET_ON_FORK && from == uc_sched_default_value(sa,
									    attr == UC_ATTR_MAX))
		return UC_RESET;
	return from;
}

/* The changes [i, i+n) of one TID. */
static int undo_task(struct undo *u, const struct uc_hist_change *v, size_t n)
{
	struct uc_sched_attr sa;
	long end[3] = { -1, -1, -1 };
	size_t n0 = u->p->n, u0 = u->p->unchanged, planned[3], np = 0;
	int rc = task_same(&v[0]);

	if (!rc)
		rc = uc_sched_get(v[0].tid, &sa);
	for (size_t k = 0; k < n; k++) {
		const struct uc_hist_change *c = &v[k];
		long now;

		if (!written(u, c))
			continue;
		if (rc == -ESRCH || rc == -ENOENT || rc == -ESTALE) {
			skip(u, c, UC_UNDO_GONE, 0, rc);
			continue;
		}
		if (rc) {
			skip(u, c, UC_UNDO_UNREADABLE, 0, rc);
			continue;
		}
		now = task_now(&sa, c->attr);
		if (now == c->from) {
			u->p->unchanged++;
			continue;
		}
		if (now != task_value(&sa, c->attr, c->to)) {
			skip(u, c, UC_UNDO_CHANGED, now, 0);
			continue;
		}
		end[c->attr == UC_ATTR_MIN ? 0 : c->attr == UC_ATTR_MAX ? 1 : 2] = c->from;
		planned[np++] = k;
	}
	if (!np)
		return 0;
	/* both clamps as they will be: the one not put back keeps its value now */
	if ((end[0] >= 0 ? end[0] : (long)sa.sched_util_min) >
	    (end[1] >= 0 ? end[1] : (long)sa.sched_util_max)) {
		for (size_t k = 0; k < np; k++)
			skip(u, &v[planned[k]], UC_UNDO_CONFLICT, task_now(&sa, v[planned[k]].attr),
			     0);
		return 0;
	}
	for (size_t k = 0; k < np; k++) {
		const struct uc_hist_change *c = &v[planned[k]];
		struct uc_change *ch = uc_plan_add_task(u->p, c->pid, c->tid, c->label, &sa,
							c->attr, task_now(&sa, c->attr),
							task_back(&sa, c->attr, c->from));

		if (!ch) {
			uc_plan_drop_from(u->p, n0);
			u->p->unchanged = u0;
			return -ENOMEM;
		}
		ch->start = c->start;
	}
	return 0;
}

static int undo_group(struct undo *u, const struct uc_hist_change *c)
{
	struct uc_change *ch;
	unsigned long long ino = 0;
	int now, rc;

	if (c->kind != UC_KIND_CGROUP) {
		/* cpu in subtree_control, systemd's runtime CPUWeight: kept */
		skip(u, c, UC_UNDO_KEPT, 0, 0);
		return 0;
	}
	rc = uc_cg_ident(c->target, &ino);
	if (rc == -ENOENT || rc == -ENOTDIR || (!rc && c->ino && ino != c->ino)) {
		skip(u, c, UC_UNDO_RECREATED, 0, rc);
		return 0;
	}
	if (!rc)
		rc = uc_cg_read(c->target, c->attr, &now);
	if (rc) {
		skip(u, c, UC_UNDO_UNREADABLE, 0, rc);
		return 0;
	}
	if (now == c->from) {
		u->p->unchanged++;
		return 0;
	}
	if (now != c->to) {
		skip(u, c, UC_UNDO_CHANGED, now, 0);
		return 0;
	}
	ch = uc_plan_add(u->p, UC_KIND_CGROUP, c->attr, c->target, now, c->from);
	if (!ch)
		return -ENOMEM;
	ch->start = ino;	/* the executor writes only this group (plan.h) */
	return 0;
}

/* The system knobs together: their plan keeps min <= max after each write. */
static int undo_sysctls(struct undo *u, const struct uc_hist_run *run)
{
	struct uc_sysctl_values cur, want = { UC_KEEP, UC_KEEP, UC_KEEP };
	bool any = false;
	int rc;

	for (size_t i = 0; i < run->n; i++)
		any |= run->v[i].kind == UC_KIND_SYSCTL && written(u, &run->v[i]);
	if (!any)
		return 0;
	rc = uc_sysctl_read_all(&cur);
	for (size_t i = 0; i < run->n; i++) {
		const struct uc_hist_change *c = &run->v[i];
		long now;

		if (c->kind != UC_KIND_SYSCTL || !written(u, c))
			continue;
		now = rc ? UC_SYSCTL_ABSENT : uc_sysctl_value(&cur, c->attr);
		if (now == UC_SYSCTL_ABSENT)
			skip(u, c, UC_UNDO_UNREADABLE, 0, rc ? rc : -ENOENT);
		else if (now == c->from)
			u->p->unchanged++;
		else if (now != c->to)
			skip(u, c, UC_UNDO_CHANGED, now, 0);
		else
			*uc_sysctl_field(&want, uc_sysctl_knob(c->attr)) = c->from;
	}
	if (rc)
		return 0;	/* every one skipped as unreadable */
	rc = uc_sysctl_plan(u->p, &cur, &want);
	if (rc != -EINVAL)
		return rc;
	/* the end would have min above max: another knob changed since */
	for (size_t i = 0; i < run->n; i++) {
		const struct uc_hist_change *c = &run->v[i];

		if (c->kind == UC_KIND_SYSCTL && uc_sysctl_value(&want, c->attr) != UC_KEEP)
			skip(u, c, UC_UNDO_CONFLICT, uc_sysctl_value(&cur, c->attr), 0);
	}
	return 0;
}

int uc_undo_plan(const struct uc_hist_run *run, struct uc_plan *p, uc_undo_fn on_skip,
		 void *data, size_t *skipped)
{
	struct undo u = { .p = p, .on_skip = on_skip, .data = data, .ended = run->ended };
	int rc = 0;

	*skipped = 0;
	if ((run->flags & UC_HIST_TOO_LARGE) || !run->n)
		return -ENODATA;
	for (size_t i = 0; i < run->n && !rc;) {
		const struct uc_hist_change *c = &run->v[i];
		size_t n = 1;

		if (c->kind == UC_KIND_TASK) {
			/* a TID's changes, three at most (undo_task's arrays): a record
			 * may hold more, made by hand */
			while (n < 3 && i + n < run->n && run->v[i + n].kind == UC_KIND_TASK &&
			       run->v[i + n].tid == c->tid && run->v[i + n].pid == c->pid)
				n++;
			rc = undo_task(&u, c, n);
		} else if (c->kind != UC_KIND_SYSCTL && written(&u, c)) {
			rc = undo_group(&u, c);
		}
		i += n;
	}
	if (!rc)
		rc = undo_sysctls(&u, run);
	*skipped = u.skipped;
	return rc;
}
