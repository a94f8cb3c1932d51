/*
 * Plans from a configuration (see config.h): only the values that differ
 * from the current state, through the shared builders (uc_sysctl_plan,
 * uc_cg_plan, uc_tasks_plan). Every problem goes to the config's error list
 * with the file:line of the key or section it comes from.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uclamp/cgroup.h"
#include "uclamp/systemd.h"
#include "uclamp/config.h"
#include "uclamp/sched.h"
#include "uclamp/selectors.h"
#include "uclamp/tasks.h"

static long want_sys(const struct uc_conf_value *v)
{
	return v->set ? v->v.util : UC_KEEP;
}

/* The first [system] value set (for messages about the section), or NULL. */
static const struct uc_conf_value *first_sys(const struct uc_config *c)
{
	for (size_t i = 0; i < UC_SYSCTL_NKNOBS; i++)
		if (c->sys[i].set)
			return &c->sys[i];
	return NULL;
}

int uc_config_plan_system(struct uc_config *c, const struct uc_sysctl_values *cur,
			  struct uc_plan *p)
{
	const struct uc_conf_value *cmin = &c->sys[UC_SYS_MIN], *cmax = &c->sys[UC_SYS_MAX];
	const struct uc_conf_value *first = first_sys(c);
	const struct uc_conf_loc *loc = first ? &first->loc : NULL;
	struct uc_sysctl_values want;
	long end_min, end_max;
	int rc;

	if (!first)
		return 0;
	for (size_t i = 0; i < UC_SYSCTL_NKNOBS; i++) {
		const struct uc_sysctl_knob *k = &uc_sysctl_knobs[i];

		*uc_sysctl_field(&want, k) = want_sys(&c->sys[i]);
		if (c->sys[i].set && uc_sysctl_value(cur, k->attr) == UC_SYSCTL_ABSENT) {
			uc_config_error(c, &c->sys[i].loc, -EOPNOTSUPP,
					"%s: this kernel has no %s (Linux %s or later has it)",
					k->option, k->file, k->since);
			return -EOPNOTSUPP;
		}
	}
	rc = uc_sysctl_plan(p, cur, &want);
	if (rc == -EINVAL) {
		end_min = cmin->set ? uc_conf_sys_util(&cmin->v) : cur->min;
		end_max = cmax->set ? uc_conf_sys_util(&cmax->v) : cur->max;
		uc_config_error(c, loc, -EINVAL,
				"[system] would leave min %ld above max %ld (the kernel's current "
				"values are min %ld, max %ld); set both min and max",
				end_min, end_max, cur->min, cur->max);
	} else if (rc) {
		uc_config_error(c, loc, rc, "[system]: cannot plan the sysctl changes: %s",
				strerror(-rc));
	}
	return rc;
}

struct cg_want {
	char rel[PATH_MAX];
	int min, max;
	const struct uc_conf_cgroup *g;
};

static int cg_pct(const struct uc_conf_value *v, bool is_max)
{
	if (!v->set)
		return UC_KEEP;
	if (v->v.util == UC_RESET)
		return is_max ? UC_PCT_MAX : 0;	/* the kernel's defaults: max and 0.00 */
	return v->v.pct100;
}

/*
 * A group without cpu files: where systemd owns the parents' subtree_control,
 * the plan asks systemd to enable cpu (uc_cg_plan_cpu); 0 then. -ENOENT when
 * that is not the case (the caller explains), another -errno when systemd
 * cannot be asked (explained here).
 */
static int cpu_by_systemd(struct uc_config *c, struct uc_plan *p, const struct cg_want *w)
{
	char unit[UC_SD_UNIT_MAX];
	enum uc_cg_state st;
	int rc = uc_cg_state(w->rel, &st);

	if (rc || st != UC_CG_CPU_OFF)
		return -ENOENT;
	rc = uc_cg_plan_cpu(p, w->rel, false, unit, sizeof(unit));
	if (rc >= 0 || rc == -EPERM || rc == -EINVAL)
		return rc > 0 ? 0 : -ENOENT;
	uc_config_error(c, &w->g->loc, rc,
			"cgroup '%s' has no cpu.uclamp files and systemd, which owns its parents, "
			"cannot be asked to enable cpu for %s (%s): run 'systemctl set-property "
			"--runtime %s CPUWeight=100'", w->g->path, unit, strerror(-rc), unit);
	return rc;
}

/* [cgroup PATH]: resolves every path (uc_cg_resolve) first. */
static int plan_cgroups(struct uc_config *c, struct uc_plan *p)
{
	struct uc_cg_info info;
	struct cg_want *w;
	size_t n = 0;
	int rc, first = 0;

	if (!c->ncgroups)
		return 0;
	rc = uc_cg_init(&info);
	if (rc) {
		uc_config_error(c, &c->cgroups[0].loc, -EOPNOTSUPP,
				"no cgroup hierarchy with the cpu controller is mounted (%s): "
				"[cgroup] sections cannot apply", strerror(-rc));
		return -EOPNOTSUPP;
	}
	w = calloc(c->ncgroups, sizeof(*w));
	if (!w)
		return -ENOMEM;
	/* resolve all first: every bad path is reported before anything is planned */
	for (size_t i = 0; i < c->ncgroups; i++) {
		const struct uc_conf_cgroup *g = &c->cgroups[i];
		char rel[PATH_MAX];
		size_t j;

		rc = uc_cg_resolve_name(&info, g->path, rel, sizeof(rel));
		if (rc == -ENOMEDIUM)
			uc_config_error(c, &g->loc, rc, "unit '%s' has no cgroup: it is not "
					"running", g->path);
		else if (rc == -EHOSTDOWN || rc == -ENOPKG)
			uc_config_error(c, &g->loc, rc, "no cgroup '%s' under %s, and no %s to "
					"resolve it as a unit name: give the cgroup path", g->path,
					info.mount, rc == -ENOPKG ? "libsystemd" : "systemd");
		else if (rc == -EXDEV)
			uc_config_error(c, &g->loc, -EINVAL,
					"cgroup path '%s' resolves outside the cgroup mount %s",
					g->path, info.mount);
		else if (rc == -ENOENT)
			uc_config_error(c, &g->loc, -ENOENT, "no such cgroup '%s' under %s",
					g->path, info.mount);
		else if (rc)
			uc_config_error(c, &g->loc, rc, "cannot resolve cgroup '%s': %s", g->path,
					strerror(-rc));
		if (rc) {
			if (!first)
				first = rc == -EXDEV ? -EINVAL : rc;
			continue;
		}
		/* two spellings of one group (a/b, /a/b): a later section wins per key */
		for (j = 0; j < n && strcmp(w[j].rel, rel); j++)
			;
		if (j == n) {
			snprintf(w[n].rel, sizeof(w[n].rel), "%s", rel);
			w[n].min = w[n].max = UC_KEEP;
			w[n++].g = g;
		}
		if (g->min.set)
			w[j].min = cg_pct(&g->min, false);
		if (g->max.set)
			w[j].max = cg_pct(&g->max, true);
	}
	for (size_t i = 0; i < n && !first; i++) {
		rc = uc_cg_plan(p, w[i].rel, w[i].min, w[i].max);
		if (rc == -ENOENT) {
			rc = cpu_by_systemd(c, p, &w[i]);
			if (!rc)
				rc = uc_cg_plan(p, w[i].rel, w[i].min, w[i].max);
			else if (rc != -ENOENT) {
				first = rc;	/* said */
				break;
			}
		}
		if (rc == -ENOENT)
			uc_config_error(c, &w[i].g->loc, -ENOENT,
					"cgroup '%s' has no cpu.uclamp files: enable the cpu "
					"controller for it (cgroup v2: +cpu in its parent's "
					"cgroup.subtree_control; the kernel needs "
					"CONFIG_UCLAMP_TASK_GROUP)", w[i].g->path);
		else if (rc)
			uc_config_error(c, &w[i].g->loc, rc,
					"cannot read the clamps of cgroup '%s': %s", w[i].g->path,
					strerror(-rc));
		if (rc && !first)
			first = rc;
	}
	free(w);
	return first;
}

/* ---- [tasks]: the sections as rules, one walk for all of them ---------------- */

struct uc_rule *uc_config_task_rules(const struct uc_config *c)
{
	struct uc_rule *v = calloc(c->ntasks ? c->ntasks : 1, sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < c->ntasks; i++) {
		const struct uc_conf_tasks *t = &c->tasks[i];

		v[i] = t->rule;	/* the selectors: pointing into c */
		v[i].name = t->name;
		v[i].origin = t;
		v[i].exclude = t->exclude.set && t->exclude.value;
		v[i].priority = t->priority_set ? t->priority : 0;
		v[i].min = t->min.set ? t->min.v.util : UC_KEEP;
		v[i].max = t->max.set ? t->max.v.util : UC_KEEP;
		v[i].reset_on_fork = t->reset_on_fork.set ? t->reset_on_fork.value : UC_KEEP;
	}
	return v;
}

static int cmp_task_change(const void *a, const void *b)
{
	const struct uc_change *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->attr > y->attr) - (x->attr < y->attr);
}

static const char *refusal_text(const struct uc_task_refusal *r, char *buf, size_t n)
{
	switch (r->why) {
	case UC_REFUSE_MIN_GT_MAX:
		snprintf(buf, n, "util_min %d would be above util_max %d", r->end_min, r->end_max);
		break;
	case UC_REFUSE_RT_MAX_BELOW_MIN:
		snprintf(buf, n,
			 "a real-time task's util_min is %d, so max %d alone "
			 "would be refused; set min too",
			 r->cur_min, r->end_max);
		break;
	default:
		snprintf(buf, n, "refused");
	}
	return buf;
}

/* Refusals per section: how many, and the first for the message. */
struct refusals {
	size_t n;
	struct uc_task_refusal first;
};

static void on_refusal(const struct uc_task_refusal *r, void *data)
{
	struct refusals *per = data;

	if (r->rule < 0 || r->why == UC_SKIP_ZOMBIE || r->why == UC_SKIP_INIT)
		return;
	if (!per[r->rule].n++)
		per[r->rule].first = *r;
}

/* A cgroup selector without a cpu hierarchy could never match: say so. */
static int check_cgroup_layout(struct uc_config *c)
{
	int rc = 0;

	if (uc_cg_layout())
		return 0;
	for (size_t i = 0; i < c->ntasks; i++) {
		const struct uc_conf_tasks *t = &c->tasks[i];

		for (size_t k = 0; k < uc_sel_ndefs; k++) {
			const struct uc_sel_def *d = &uc_sel_defs[k];

			if (!(d->need & UC_PF_CGROUP) || !uc_sel_given(&t->rule, d))
				continue;
			uc_config_error(c, &t->sel_loc[k], -EOPNOTSUPP,
					"[tasks %s]: no cgroup hierarchy with the cpu controller "
					"is mounted, so its %s selector matches nothing",
					t->name, d->key);
			rc = -EOPNOTSUPP;
		}
	}
	return rc;
}

static int report_walk(struct uc_config *c, const struct uc_walk_stats *st,
		       const struct refusals *per)
{
	char why[160];
	int rc = 0;

	if (st->failed) {
		const struct uc_conf_tasks *t =
			&c->tasks[st->first_err_rule >= 0 ? (size_t)st->first_err_rule : 0];

		uc_config_error(c, &t->loc, st->first_err,
				"[tasks %s]: could not read %zu task(s) (tid %d: %s)", t->name,
				st->failed, (int)st->first_err_tid, strerror(-st->first_err));
		rc = st->first_err ? st->first_err : -EIO;
	}
	for (size_t i = 0; i < c->ntasks; i++) {
		const struct uc_task_refusal *r = &per[i].first;
		const struct uc_conf_tasks *t = &c->tasks[i];

		if (!per[i].n)
			continue;
		uc_config_error(c, &t->loc, -EINVAL,
				"[tasks %s]: %zu task(s) cannot take these values, "
				"e.g. pid %d tid %d%s%s%s: %s",
				t->name, per[i].n, (int)r->pid, (int)r->tid,
				*r->comm ? " (" : "", r->comm, *r->comm ? ")" : "",
				refusal_text(r, why, sizeof(why)));
		if (!rc)
			rc = -EINVAL;
	}
	return rc;
}

/* acc's task changes into p by PID and TID: one TID's side by side (the
 * executor sends them in one syscall). 0 or -ENOMEM. */
static int copy_sorted(struct uc_plan *p, const struct uc_plan *acc)
{
	struct uc_change *v = acc->n ? malloc(acc->n * sizeof(*v)) : NULL;
	struct uc_plan_it it = { 0 };
	const struct uc_change *ch;
	size_t n = 0;
	int rc = 0;

	if (!v)
		return acc->n ? -ENOMEM : 0;
	while ((ch = uc_plan_next(acc, &it)))
		v[n++] = *ch;
	qsort(v, n, sizeof(*v), cmp_task_change);
	for (size_t i = 0; i < n && !rc; i++)
		if (!uc_plan_copy_task(p, &v[i]))
			rc = -ENOMEM;
	free(v);
	return rc;
}

/* [tasks NAME]: every running task matched against all sections in one
 * walk; per task and value the section with the highest priority wins, on
 * a tie the later one. */
static int plan_tasks(struct uc_config *c, struct uc_plan *p)
{
	struct uc_rule *v;
	struct uc_rules rs;
	struct refusals *per;
	struct uc_walk_stats st;
	struct uc_plan acc;
	int rc;

	if (!c->ntasks)
		return 0;
	rc = check_cgroup_layout(c);
	if (rc)
		return rc;
	v = uc_config_task_rules(c);
	per = calloc(c->ntasks, sizeof(*per));
	if (!v || !per || uc_rules_init(&rs, v, c->ntasks)) {
		free(v);
		free(per);
		return -ENOMEM;
	}
	uc_plan_init(&acc);
	rc = uc_tasks_plan(&acc, &rs, NULL, 0, UC_WALK_COMM, on_refusal, per, &st);
	if (rc && rc != -ENOMEM)
		uc_config_error(c, &c->tasks[0].loc, rc, "[tasks %s]: cannot list the tasks: %s",
				c->tasks[0].name, strerror(-rc));
	if (!rc)
		rc = report_walk(c, &st, per);
	if (!rc)
		rc = copy_sorted(p, &acc);
	p->unchanged += acc.unchanged;
	p->gone += acc.gone;
	uc_plan_free(&acc);
	uc_rules_free(&rs);
	free(per);
	free(v);
	return rc;
}

int uc_config_plan(struct uc_config *c, struct uc_plan *p)
{
	struct uc_sysctl_values cur;
	int rc, first = 0;

	if (first_sys(c)) {
		const struct uc_conf_loc *loc = &first_sys(c)->loc;

		rc = uc_sysctl_read_all(&cur);
		if (rc == -ENOENT) {
			uc_config_error(c, loc, -EOPNOTSUPP,
					"[system]: the kernel has no uclamp sysctls (it needs "
					"CONFIG_UCLAMP_TASK, Linux 5.3 or later)");
			rc = -EOPNOTSUPP;
		} else if (rc) {
			uc_config_error(c, loc, rc, "[system]: cannot read the uclamp sysctls: %s",
					strerror(-rc));
		} else {
			rc = uc_config_plan_system(c, &cur, p);
		}
		first = rc;
	}
	if (first == -ENOMEM)
		return first;
	rc = plan_cgroups(c, p);
	if (!first)
		first = rc;
	if (first == -ENOMEM)
		return first;
	rc = plan_tasks(c, p);
	if (!first)
		first = rc;
	uc_config_sort_errors(c);
	return first;
}
