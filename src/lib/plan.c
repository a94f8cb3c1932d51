/* The plan: a list of intended changes (see plan.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uclamp/plan.h"
#include "uclamp/sysctl.h"
#include "uclamp/value.h"

/* plan.h: what 10,000 planned threads cost in memory */
_Static_assert(sizeof(struct uc_change) <= 64, "a change record grew past 64 bytes");

void uc_plan_init(struct uc_plan *p)
{
	memset(p, 0, sizeof(*p));
}

static void run_free(struct uc_tidrun *r)
{
	free(r->tid);
	free(r->st);
	free(r);
}

void uc_plan_drop_from(struct uc_plan *p, size_t n)
{
	while (p->n > n && p->nstr) {
		struct uc_change *c = &p->rec[p->nrec - 1];
		struct uc_tidrun *r = c->kind == UC_KIND_TASK ? c->run : NULL;

		if (r) {
			/* its last threads, as many as go (freeing a plan: all at once) */
			size_t drop = (p->n - n) / r->k < r->n ? (p->n - n) / r->k : r->n;

			r->n -= drop;
			p->n -= drop * r->k;
			if (!r->n) {	/* none left: the records stand for their own tid */
				for (size_t k = p->nrec - r->k; k < p->nrec; k++)
					p->rec[k].run = NULL;
				run_free(r);
				p->nstr--;
			}
			continue;
		}
		p->nstr -= (c->target != NULL) + (c->label != NULL);
		free(c->target);
		free(c->label);
		p->nrec--;
		p->n--;
	}
	if (p->n > n) {	/* the rest own nothing: one change a record */
		p->nrec -= p->n - n;
		p->n = n;
	}
}

/* A copy of s the plan owns (counted in nstr). NULL on ENOMEM. */
static char *plan_strdup(struct uc_plan *p, const char *s)
{
	char *d = strdup(s);

	if (d)
		p->nstr++;
	return d;
}

void uc_plan_free(struct uc_plan *p)
{
	uc_plan_drop_from(p, 0);
	free(p->rec);
	while (p->sas) {
		struct uc_sa_block *b = p->sas;

		p->sas = b->next;
		free(b);
	}
	uc_plan_init(p);
}

/* Which changes turn sched_uclamp_used on (kernel-uclamp.md §1). */
static bool change_flips(enum uc_kind kind, enum uc_attr attr, long from, long to)
{
	switch (kind) {
	case UC_KIND_TASK:
		/* any valid setattr with a UTIL_CLAMP flag; reset-on-fork alone goes without one */
		return attr == UC_ATTR_MIN || attr == UC_ATTR_MAX;
	case UC_KIND_CGROUP:
		return true;	/* any successful write, even the same value */
	case UC_KIND_SYSCTL:
		return from != to;
	case UC_KIND_SUBTREE:
	case UC_KIND_SYSTEMD:	/* cpu.uclamp.* are created with the defaults: no write */
		return false;
	}
	return true;
}

/* Room for one more record: the array doubles. 0 or -ENOMEM. */
static int plan_grow(struct uc_plan *p)
{
	size_t cap = p->cap ? p->cap * 2 : 16;
	struct uc_change *v = realloc(p->rec, cap * sizeof(*v));

	if (!v)
		return -ENOMEM;
	p->rec = v;
	p->cap = cap;
	return 0;
}

/* A new record at the end, its target still NULL. Small and static, so
 * the adders get it inlined. NULL on ENOMEM. */
static inline struct uc_change *plan_append(struct uc_plan *p, enum uc_kind kind,
					    enum uc_attr attr, long from, long to)
{
	struct uc_change *c;

	if (p->nrec == p->cap && plan_grow(p))
		return NULL;
	c = &p->rec[p->nrec++];
	p->n++;
	*c = (struct uc_change){
		.kind = kind, .attr = attr, .state = UC_CH_PLANNED,
		.flips = change_flips(kind, attr, from, to), .from = from, .to = to,
	};
	return c;
}

/* Take the last record back (its strings are not set yet). */
static void plan_unappend(struct uc_plan *p)
{
	p->nrec--;
	p->n--;
}

struct uc_change *uc_plan_add(struct uc_plan *p, enum uc_kind kind, enum uc_attr attr,
			      const char *target, long from, long to)
{
	struct uc_change *c = plan_append(p, kind, attr, from, to);

	if (c && target && !(c->target = plan_strdup(p, target))) {
		plan_unappend(p);
		return NULL;
	}
	return c;
}

/* sa in the plan's pool: the last one stored when equal (the thread before
 * this one, as a rule), else a new entry. NULL on ENOMEM. */
static const struct uc_sched_attr *sa_store(struct uc_plan *p, const struct uc_sched_attr *sa)
{
	static const struct uc_sched_attr none;
	struct uc_sa_block *b = p->sas;

	if (!sa)
		sa = &none;	/* no attributes given: zeroed */
	if (b && b->n && !memcmp(&b->v[b->n - 1], sa, sizeof(*sa)))
		return &b->v[b->n - 1];
	if (!b || b->n == UC_SA_BLOCK) {
		if (!(b = malloc(sizeof(*b))))
			return NULL;
		b->next = p->sas;
		b->n = 0;
		p->sas = b;
	}
	b->v[b->n] = *sa;
	return &b->v[b->n++];
}

/*
 * Can thread tid (pid, start, attributes sa, changes ch[0..n), no name) join
 * the records g[0..n), the plan's last? Their thread's or run's, the same.
 */
static inline bool joins(const struct uc_plan *p, const struct uc_change *g, pid_t pid, pid_t tid,
			 unsigned long long start, const struct uc_sched_attr *sa,
			 const struct uc_task_change *ch, size_t n)
{
	const struct uc_tidrun *r = g->run;

	if (g->kind != UC_KIND_TASK || g->pid != pid || g->start != start || g->label || !sa)
		return false;
	if (r ? r->k != n || (r->n ? r->tid[r->n - 1] : g->tid) == tid : g->tid == tid)
		return false;	/* other changes, or the same thread again */
	/* not a run: exactly n records of one thread, not fewer, not more */
	if (!r && g > p->rec && g[-1].kind == UC_KIND_TASK && !g[-1].run && g[-1].tid == g->tid)
		return false;
	for (size_t k = 0; k < n; k++)
		if (g[k].tid != g->tid || g[k].run != r || g[k].attr != ch[k].attr ||
		    g[k].from != ch[k].from || g[k].to != ch[k].to)
			return false;
	return !memcmp(g->sa, sa, sizeof(*sa));
}

/* A thread's changes as records of their own. 0 or -ENOMEM. */
static int add_records(struct uc_plan *p, pid_t pid, pid_t tid, unsigned long long start,
		       const char *comm, const struct uc_sched_attr *sa,
		       const struct uc_task_change *ch, size_t n)
{
	const struct uc_sched_attr *stored = sa_store(p, sa);
	bool named = comm && *comm;
	size_t n0 = p->n;

	if (!stored)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++) {
		struct uc_change *c = plan_append(p, UC_KIND_TASK, ch[k].attr, ch[k].from,
						  ch[k].to);

		if (!c)
			goto fail;
		c->pid = pid;
		c->tid = tid;
		c->start = start;
		c->sa = stored;
		if (named && !(c->label = plan_strdup(p, comm))) {
			plan_unappend(p);
			goto fail;
		}
	}
	return 0;
fail:
	uc_plan_drop_from(p, n0);
	return -ENOMEM;
}

struct uc_change *uc_plan_add_task(struct uc_plan *p, pid_t pid, pid_t tid, const char *comm,
				   const struct uc_sched_attr *sa, enum uc_attr attr, long from,
				   long to)
{
	const struct uc_task_change ch = { attr, from, to };

	return add_records(p, pid, tid, 0, comm, sa, &ch, 1) ? NULL : &p->rec[p->nrec - 1];
}

/* Thread tid after the records g[0..n) (the last ones): 0 or -ENOMEM. */
static int run_append(struct uc_plan *p, struct uc_change *g, size_t n, pid_t tid)
{
	struct uc_tidrun *r = g->run;

	if (!r) {
		if (!(r = calloc(1, sizeof(*r))))
			return -ENOMEM;
		r->k = (uint8_t)n;
		for (size_t k = 0; k < n; k++)
			g[k].run = r;
		p->nstr++;
	}
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		pid_t *t = realloc(r->tid, cap * sizeof(*t));
		struct uc_tidstate *st = t ? realloc(r->st, cap * sizeof(*st)) : NULL;

		if (t)
			r->tid = t;
		if (!st)
			return -ENOMEM;
		r->st = st;
		r->cap = cap;
	}
	r->tid[r->n] = tid;
	r->st[r->n++] = (struct uc_tidstate){ .state = UC_CH_PLANNED };
	p->n += n;
	return 0;
}

int uc_plan_add_thread(struct uc_plan *p, pid_t pid, pid_t tid, unsigned long long start,
		       const char *comm, const struct uc_sched_attr *sa,
		       const struct uc_task_change *ch, size_t n)
{
	/* a thread's changes are one sched_setattr: min, max, reset-on-fork at most */
	struct uc_change *g = n - 1 < 3 && p->nrec >= n ? &p->rec[p->nrec - n] : NULL;

	/* the common case first: the next thread of a process, as the one before */
	if (g && !(comm && *comm) && joins(p, g, pid, tid, start, sa, ch, n))
		return run_append(p, g, n, tid);
	return add_records(p, pid, tid, start, comm, sa, ch, n);
}

int uc_plan_add_same(struct uc_plan *p, pid_t tid)
{
	struct uc_change *last = p->nrec ? &p->rec[p->nrec - 1] : NULL;
	struct uc_tidrun *r;
	size_t first;

	if (!last || last->kind != UC_KIND_TASK || last->label)
		return -EINVAL;
	r = last->run;
	if (r && r->n < r->cap) {	/* a run's next thread, with room for it: as run_append */
		r->tid[r->n] = tid;
		r->st[r->n++] = (struct uc_tidstate){ .state = UC_CH_PLANNED };
		p->n += r->k;
		return 0;
	}
	first = uc_plan_group_start(p, p->nrec - 1);
	return run_append(p, &p->rec[first], p->nrec - first, tid);
}

int uc_plan_name_tasks(struct uc_plan *p, const char *label)
{
	for (size_t i = 0; i < p->nrec; i++) {
		struct uc_change *c = &p->rec[i];
		char *d = NULL;

		if (c->kind != UC_KIND_TASK)
			continue;
		if (label && *label && !(d = plan_strdup(p, label)))
			return -ENOMEM;
		p->nstr -= c->label != NULL;
		free(c->label);
		c->label = d;
	}
	return 0;
}

struct uc_change *uc_plan_copy_task(struct uc_plan *p, const struct uc_change *ch)
{
	const struct uc_task_change one = { ch->attr, ch->from, ch->to };

	/* the start time too: the identity the executor checks */
	if (add_records(p, ch->pid, ch->tid, ch->start, ch->label, ch->sa, &one, 1))
		return NULL;
	return &p->rec[p->nrec - 1];
}

struct uc_change *uc_plan_add_systemd(struct uc_plan *p, const char *rel, const char *unit,
				      long from, long to)
{
	struct uc_change *c = uc_plan_add(p, UC_KIND_SYSTEMD, UC_ATTR_CPU_WEIGHT, rel, from, to);

	if (!c)
		return NULL;
	if (!(c->label = plan_strdup(p, unit))) {
		uc_plan_drop_from(p, p->n - 1);
		return NULL;
	}
	return c;
}

const struct uc_change *uc_plan_step(const struct uc_plan *p, struct uc_plan_it *it)
{
	const struct uc_tidrun *r = it->run;
	const struct uc_change *c;
	struct uc_change *v;

	if (r && it->thread > r->n) {	/* past a run's last thread */
		it->rec += r->k;
		it->run = r = NULL;
	}
	if (!r) {
		if (it->rec >= p->nrec)
			return NULL;
		c = &p->rec[it->rec];
		if (c->kind != UC_KIND_TASK || !c->run) {
			it->rec++;
			return c;
		}
		/* a run: its records' copies once, then only what a thread has */
		it->run = r = c->run;
		for (size_t k = 0; k < r->k; k++) {
			it->view[k] = c[k];
			it->view[k].run = NULL;	/* a change of its own: no target */
		}
		it->thread = 0;
		it->k = 0;
	}
	v = &it->view[it->k];
	if (it->thread) {
		const struct uc_tidstate *st = &r->st[it->thread - 1];

		v->tid = r->tid[it->thread - 1];
		v->state = st->state;
		v->err = -(int)st->err;
	}
	if (++it->k == r->k) {
		it->k = 0;
		it->thread++;
	}
	return v;
}

bool uc_plan_flips(const struct uc_plan *p)
{
	for (size_t i = 0; i < p->nrec; i++)	/* a run's threads flip as its records do */
		if (p->rec[i].flips)
			return true;
	return false;
}

static bool same_task(const struct uc_change *a, pid_t pid, pid_t tid, unsigned long long start)
{
	return a && a->kind == UC_KIND_TASK && a->pid == pid && a->tid == tid && a->start == start;
}

static bool same_change(const struct uc_change *a, const struct uc_change *b)
{
	if (a->kind != b->kind || a->attr != b->attr || a->from != b->from || a->to != b->to)
		return false;
	if (a->kind == UC_KIND_TASK)
		return same_task(a, b->pid, b->tid, b->start);
	if (a->start != b->start)
		return false;	/* a group made again under the same path */
	return a->target && b->target ? !strcmp(a->target, b->target) : a->target == b->target;
}

bool uc_plan_same(const struct uc_plan *a, const struct uc_plan *b)
{
	struct uc_plan_it ia = { 0 }, ib = { 0 };
	const struct uc_change *x, *y;

	if (a->n != b->n)
		return false;
	while ((x = uc_plan_next(a, &ia)) && (y = uc_plan_next(b, &ib)))
		if (!same_change(x, y))
			return false;
	return true;
}

/* Was the task (pid, tid, start) shown? at: shown's change at the same index, tried first
 * (both plans come from the same walk). */
static bool was_shown(const struct uc_plan *shown, const struct uc_change *at, pid_t pid,
		      pid_t tid, unsigned long long start)
{
	struct uc_plan_it it = { 0 };
	const struct uc_change *c;

	if (same_task(at, pid, tid, start))
		return true;
	while ((c = uc_plan_next(shown, &it)))
		if (same_task(c, pid, tid, start))
			return true;
	return false;
}

/* Free what the records [c, c+k) own: they are dropped. */
static void drop_records(struct uc_plan *p, struct uc_change *c, size_t k)
{
	if (c->kind == UC_KIND_TASK && c->run) {
		run_free(c->run);
		p->nstr--;
	}
	for (size_t j = 0; j < k; j++) {
		char *target = c[j].kind == UC_KIND_TASK ? NULL : c[j].target;

		p->nstr -= (target != NULL) + (c[j].label != NULL);
		free(target);
		free(c[j].label);
	}
}

/*
 * The threads of the group at fresh->rec[i] (k records, a run's or one
 * record's) that were shown, kept in place: how many. *sit walks shown
 * along, at the same index as fresh's change.
 */
static size_t keep_threads(struct uc_plan *fresh, size_t i, size_t k, const struct uc_plan *shown,
			   struct uc_plan_it *sit, size_t *dropped, pid_t *last)
{
	struct uc_change *c = &fresh->rec[i];
	struct uc_tidrun *r = c->kind == UC_KIND_TASK ? c->run : NULL;
	size_t nth = r ? 1 + r->n : 1, w = 0;

	for (size_t t = 0; t < nth; t++) {
		pid_t tid = t ? r->tid[t - 1] : c->tid;
		struct uc_tidstate st = t ? r->st[t - 1] : (struct uc_tidstate){ c->state, 0 };
		const struct uc_change *at = uc_plan_next(shown, sit);

		for (size_t j = 1; j < k; j++)
			uc_plan_next(shown, sit);
		if (c->kind != UC_KIND_TASK || was_shown(shown, at, c->pid, tid, c->start)) {
			if (w == 0) {
				for (size_t j = 0; j < k; j++) {
					c[j].tid = tid;
					c[j].state = st.state;
				}
			} else {
				r->tid[w - 1] = tid;
				r->st[w - 1] = st;
			}
			w++;
			continue;
		}
		/* a task nobody was shown (a new one, or a reused PID): gone */
		if (c->pid != last[0] || tid != last[1])
			(*dropped)++;
		last[0] = c->pid;
		last[1] = tid;
	}
	if (r && w)
		r->n = w - 1;
	return w;
}

size_t uc_plan_keep_shown(struct uc_plan *fresh, const struct uc_plan *shown)
{
	struct uc_plan_it sit = { 0 };
	size_t out = 0, dropped = 0, n = 0;
	pid_t last[2] = { -1, -1 };	/* the last task dropped: one task, one count */

	for (size_t i = 0; i < fresh->nrec;) {
		struct uc_change *c = &fresh->rec[i];
		size_t k = c->kind == UC_KIND_TASK && c->run ? c->run->k : 1;
		size_t w = keep_threads(fresh, i, k, shown, &sit, &dropped, last);

		if (!w) {
			drop_records(fresh, c, k);
		} else {
			if (out != i)
				memmove(&fresh->rec[out], c, k * sizeof(*c));
			out += k;
			n += k * w;
		}
		i += k;
	}
	fresh->nrec = out;
	fresh->n = n;
	fresh->gone += dropped;
	return dropped;
}

const char *uc_kind_name(enum uc_kind kind)
{
	static const char *const names[] = {
		[UC_KIND_TASK] = "task", [UC_KIND_SYSCTL] = "sysctl", [UC_KIND_CGROUP] = "cgroup",
		[UC_KIND_SUBTREE] = "subtree", [UC_KIND_SYSTEMD] = "systemd",
	};
	return (unsigned)kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "?";
}

const char *uc_attr_name(enum uc_kind kind, enum uc_attr attr)
{
	switch (kind) {
	case UC_KIND_CGROUP:
		return attr == UC_ATTR_MIN ? "cpu.uclamp.min" : "cpu.uclamp.max";
	case UC_KIND_SUBTREE:
		return "cgroup.subtree_control";
	case UC_KIND_SYSTEMD:
		return "CPUWeight (runtime)";
	case UC_KIND_SYSCTL:	/* the knob: the target already names the sysctl */
		break;
	case UC_KIND_TASK:
		if (attr == UC_ATTR_RESET_ON_FORK)
			return "reset_on_fork";
		if (attr == UC_ATTR_CPU_CONTROLLER)
			return "cpu";
		break;	/* util_min, util_max: as the knobs are named */
	}
	return uc_sysctl_knob(attr) ? uc_sysctl_knob(attr)->knob : "?";
}

const char *uc_change_state_name(enum uc_change_state st)
{
	static const char *const names[] = {
		[UC_CH_PLANNED] = "planned", [UC_CH_DONE] = "done", [UC_CH_FAILED] = "failed",
		[UC_CH_GONE] = "gone", [UC_CH_ROLLED_BACK] = "rolled back",
		[UC_CH_ROLLBACK_FAILED] = "rollback failed", [UC_CH_SKIPPED] = "skipped",
	};
	return (unsigned)st < sizeof(names) / sizeof(names[0]) ? names[st] : "?";
}

const char *uc_change_target(const struct uc_change *c, char *buf, size_t n)
{
	switch (c->kind) {
	case UC_KIND_TASK:
		if (c->pid == c->tid)
			snprintf(buf, n, "pid %d%s%s%s", (int)c->pid, c->label ? " (" : "",
				 c->label ? c->label : "", c->label ? ")" : "");
		else
			snprintf(buf, n, "pid %d tid %d%s%s%s", (int)c->pid, (int)c->tid,
				 c->label ? " (" : "", c->label ? c->label : "",
				 c->label ? ")" : "");
		break;
	case UC_KIND_SYSCTL:
		snprintf(buf, n, "kernel.%s",
			 uc_sysctl_name(c->attr) ? uc_sysctl_name(c->attr) : "?");
		break;
	case UC_KIND_CGROUP:
	case UC_KIND_SUBTREE:
		snprintf(buf, n, "%s", c->target && *c->target ? c->target : "/");
		break;
	case UC_KIND_SYSTEMD:
		snprintf(buf, n, "ask systemd: enable cpu for %s", c->label ? c->label : "?");
		break;
	}
	return buf;
}

const char *uc_change_value(const struct uc_change *c, long v, char *buf, size_t n)
{
	if (c->kind == UC_KIND_SYSTEMD && v < 0)
		snprintf(buf, n, "unset");
	else if (c->attr == UC_ATTR_RESET_ON_FORK || c->attr == UC_ATTR_CPU_CONTROLLER)
		snprintf(buf, n, "%s", v ? "yes" : "no");
	else if (c->kind == UC_KIND_CGROUP)
		uc_pct100_format((int)v, buf, n);
	else if (v == UC_RESET)
		snprintf(buf, n, "default");
	else
		snprintf(buf, n, "%ld", v);
	return buf;
}
