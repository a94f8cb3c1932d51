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

void uc_plan_drop_from(struct uc_plan *p, size_t n)
{
	while (p->n > n && p->nstr) {
		struct uc_change *c = &p->v[--p->n];

		p->nstr -= (c->target != NULL) + (c->label != NULL);
		free(c->target);
		free(c->label);
	}
	if (p->n > n)
		p->n = n;	/* the rest own no string */
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
	free(p->v);
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

/* Room for one more change: the array doubles. 0 or -ENOMEM. */
static int plan_grow(struct uc_plan *p)
{
	size_t cap = p->cap ? p->cap * 2 : 16;
	struct uc_change *v = realloc(p->v, cap * sizeof(*v));

	if (!v)
		return -ENOMEM;
	p->v = v;
	p->cap = cap;
	return 0;
}

/* A new change at the end, its target still NULL. Small and static, so
 * both adders get it inlined (a task set plans one a thread, and the kind
 * is then a constant). NULL on ENOMEM. */
static inline struct uc_change *plan_append(struct uc_plan *p, enum uc_kind kind,
					    enum uc_attr attr, long from, long to)
{
	struct uc_change *c;

	if (p->n == p->cap && plan_grow(p))
		return NULL;
	c = &p->v[p->n++];
	*c = (struct uc_change){
		.kind = kind, .attr = attr, .state = UC_CH_PLANNED,
		.flips = change_flips(kind, attr, from, to), .from = from, .to = to,
	};
	return c;
}

struct uc_change *uc_plan_add(struct uc_plan *p, enum uc_kind kind, enum uc_attr attr,
			      const char *target, long from, long to)
{
	struct uc_change *c = plan_append(p, kind, attr, from, to);

	if (c && target && !(c->target = plan_strdup(p, target))) {
		p->n--;
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

struct uc_change *uc_plan_add_task(struct uc_plan *p, pid_t pid, pid_t tid, const char *comm,
				   const struct uc_sched_attr *sa, enum uc_attr attr, long from,
				   long to)
{
	const struct uc_sched_attr *stored = sa_store(p, sa);
	struct uc_change *c = stored ? plan_append(p, UC_KIND_TASK, attr, from, to) : NULL;

	if (!c)
		return NULL;
	c->pid = pid;
	c->tid = tid;
	c->sa = stored;
	if (comm && *comm && !(c->label = plan_strdup(p, comm))) {
		p->n--;
		return NULL;
	}
	return c;
}

int uc_plan_set_label(struct uc_plan *p, struct uc_change *c, const char *label)
{
	char *d = label && *label ? plan_strdup(p, label) : NULL;

	if (label && *label && !d)
		return -ENOMEM;
	if (c->label)
		p->nstr--;
	free(c->label);
	c->label = d;
	return 0;
}

struct uc_change *uc_plan_copy_task(struct uc_plan *p, const struct uc_change *ch)
{
	struct uc_change *c = uc_plan_add_task(p, ch->pid, ch->tid, ch->label, ch->sa, ch->attr,
					       ch->from, ch->to);

	if (c)
		c->start = ch->start;	/* the identity the executor checks */
	return c;
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

bool uc_plan_flips(const struct uc_plan *p)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].flips)
			return true;
	return false;
}

static bool same_change(const struct uc_change *a, const struct uc_change *b)
{
	if (a->kind != b->kind || a->attr != b->attr || a->from != b->from || a->to != b->to)
		return false;
	if (a->kind == UC_KIND_TASK)
		return a->pid == b->pid && a->tid == b->tid && a->start == b->start;
	if (a->start != b->start)
		return false;	/* a group made again under the same path */
	return a->target && b->target ? !strcmp(a->target, b->target) : a->target == b->target;
}

bool uc_plan_same(const struct uc_plan *a, const struct uc_plan *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (!same_change(&a->v[i], &b->v[i]))
			return false;
	return true;
}

static bool same_task(const struct uc_change *a, const struct uc_change *b)
{
	return a->kind == UC_KIND_TASK && b->kind == UC_KIND_TASK && a->pid == b->pid &&
	       a->tid == b->tid && a->start == b->start;
}

size_t uc_plan_keep_shown(struct uc_plan *fresh, const struct uc_plan *shown)
{
	size_t out = 0, dropped = 0;
	pid_t lpid = -1, ltid = -1;	/* the last task dropped: one task, one count */

	for (size_t i = 0; i < fresh->n; i++) {
		struct uc_change *c = &fresh->v[i];
		/* both plans come from the same walk: the same index first */
		bool keep = c->kind != UC_KIND_TASK || (i < shown->n && same_task(c, &shown->v[i]));

		for (size_t j = 0; !keep && j < shown->n; j++)
			keep = same_task(c, &shown->v[j]);
		if (!keep) {
			/* a task nobody was shown (a new one, or a reused PID): gone */
			fresh->nstr -= (c->target != NULL) + (c->label != NULL);
			free(c->target);
			free(c->label);
			if (c->pid != lpid || c->tid != ltid)
				dropped++;
			lpid = c->pid;
			ltid = c->tid;
			continue;
		}
		if (out != i)
			fresh->v[out] = *c;
		out++;
	}
	fresh->n = out;
	fresh->gone += dropped;
	return dropped;
}

const char *uc_kind_name(enum uc_kind kind)
{
	switch (kind) {
	case UC_KIND_TASK: return "task";
	case UC_KIND_SYSCTL: return "sysctl";
	case UC_KIND_CGROUP: return "cgroup";
	case UC_KIND_SUBTREE: return "subtree";
	case UC_KIND_SYSTEMD: return "systemd";
	}
	return "?";
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
		return uc_sysctl_knob(attr) ? uc_sysctl_knob(attr)->knob : "?";
	case UC_KIND_TASK:
		break;
	}
	switch (attr) {
	case UC_ATTR_RESET_ON_FORK: return "reset_on_fork";
	case UC_ATTR_CPU_CONTROLLER: return "cpu";
	default:	/* util_min, util_max: as the knobs are named */
		return uc_sysctl_knob(attr) ? uc_sysctl_knob(attr)->knob : "?";
	}
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
		snprintf(buf, n, "kernel.%s", uc_sysctl_name(c->attr) ? uc_sysctl_name(c->attr) : "?");
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
