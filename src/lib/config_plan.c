/*
 * Plans from a configuration (see config.h): only the values that differ
 * from the current state, through the shared builders (uc_sysctl_plan,
 * uc_cg_plan, uc_tasks_plan). Every problem goes to the config's error list
 * with the file:line of the key or section it comes from.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uclamp/cgroup.h"
#include "uclamp/systemd.h"
#include "uclamp/config.h"
#include "uclamp/sched.h"
#include "uclamp/selectors.h"
#include "uclamp/sysroot.h"
#include "uclamp/tasks.h"

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

		*uc_sysctl_field(&want, k) = c->sys[i].set ? c->sys[i].v.util : UC_KEEP;
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

int uc_conf_cg_pct(const struct uc_conf_value *v, bool is_max)
{
	if (!v->set)
		return UC_KEEP;
	if (v->v.util == UC_RESET)
		return is_max ? UC_PCT_MAX : 0;	/* the kernel's defaults: max and 0.00 */
	return v->v.pct100;
}

/* A section's group: "cgroup PATH" for skips, and where it was written. 1 (skipped). */
__attribute__((format(printf, 3, 4)))
static int skip_group(struct uc_config *c, const struct uc_conf_cgroup *g, const char *fmt, ...)
{
	char sec[PATH_MAX + 8], why[PATH_MAX + 320];
	va_list ap;

	snprintf(sec, sizeof(sec), "cgroup %s", g->path);
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	uc_config_skip(c, &g->loc, sec, g->path, 0, 0, "%s", why);
	return 1;
}

/*
 * A section's path to rel: 0; 1 when the group is not there (skipped: a
 * service that has not started, a unit that is not running); or the -errno
 * of an error recorded (a path outside the mount).
 */
static int resolve_group(struct uc_config *c, const struct uc_cg_info *info,
			 const struct uc_conf_cgroup *g, char *rel, size_t n)
{
	int rc = uc_cg_resolve_name(info, g->path, rel, n);

	switch (-rc) {
	case 0:
		return 0;
	case ENOMEDIUM:
		return skip_group(c, g, "unit '%s' is not running: its cgroup appears when it "
				  "starts", g->path);
	case EHOSTDOWN:
	case ENOPKG:
		return skip_group(c, g, "no cgroup '%s' under %s, and no %s to resolve it as a "
				  "unit name", g->path, info->mount,
				  rc == -ENOPKG ? "libsystemd" : "systemd");
	case ENOENT:
		/* systemd loads a unit that is not running only when asked */
		if (!uc_sd_unit_future_cgroup(g->path, rel, n))
			skip_group(c, g, "unit '%s' is not running: its cgroup appears when it "
				   "starts (%s)", g->path, rel);
		else if (uc_sd_unit_name_ok(g->path))
			skip_group(c, g, "no cgroup '%s' under %s and no unit of that name loaded",
				   g->path, info->mount);
		else
			skip_group(c, g, "no cgroup '%s' under %s (not created yet)", g->path,
				   info->mount);
		return 1;
	case EXDEV:
		uc_config_error(c, &g->loc, -EINVAL,
				"cgroup path '%s' resolves outside the cgroup mount %s", g->path,
				info->mount);
		return -EINVAL;
	default:
		uc_config_error(c, &g->loc, rc, "cannot resolve cgroup '%s': %s", g->path,
				strerror(-rc));
		return rc;
	}
}

/*
 * A group without cpu files (cpu off above it): where systemd owns the
 * parents, the plan asks it to enable cpu (uc_cg_plan_cpu); apply never
 * writes cgroup.subtree_control. 0 planned, 1 skipped (said why and how to
 * fix it), or -ENOMEM.
 */
static int plan_cpu_off(struct uc_config *c, struct uc_plan *p, const struct cg_want *w)
{
	char unit[UC_SD_UNIT_MAX];
	int rc = uc_cg_plan_cpu(p, w->rel, false, unit, sizeof(unit));

	if (rc >= 0 || rc == -ENOMEM)
		return rc < 0 ? rc : 0;
	if (rc == -EPERM)
		skip_group(c, w->g, "it has no cpu.uclamp files: cpu is not enabled above it, and "
			   "apply does not write cgroup.subtree_control (enable it once: "
			   "'uclampctl cgroup set %s --enable-cpu')", w->g->path);
	else if (rc == -EINVAL)
		skip_group(c, w->g, "it has no cpu.uclamp files, and '%s' above it is not a unit's "
			   "cgroup, so systemd cannot be asked to enable cpu", unit);
	else
		skip_group(c, w->g, "it has no cpu.uclamp files, and systemd, which owns its "
			   "parents, cannot be asked to enable cpu for %s (%s): run 'systemctl "
			   "set-property --runtime %s CPUWeight=100'", unit,
			   rc == -ENOPKG ? "no libsystemd" : rc == -EACCES ? "permission denied" :
			   rc == -EHOSTDOWN ? "no bus" : strerror(-rc), unit);
	return 1;
}

/* One group's changes: 0 planned (or nothing to change), 1 skipped, or
 * -errno (recorded: the kernel lacks group clamps, ...). */
static int plan_group(struct uc_config *c, struct uc_plan *p, const struct cg_want *w)
{
	enum uc_cg_state st;
	int rc = uc_cg_state(w->rel, &st);

	if (!rc && st == UC_CG_NO_GROUP_CLAMPS) {
		uc_config_error(c, &w->g->loc, -EOPNOTSUPP,
				"cgroup '%s' has the cpu controller but no cpu.uclamp files: the "
				"kernel lacks CONFIG_UCLAMP_TASK_GROUP", w->g->path);
		return -EOPNOTSUPP;
	}
	if (!rc && st == UC_CG_CPU_OFF && (rc = plan_cpu_off(c, p, w)))
		return rc;
	if (!rc)
		rc = uc_cg_plan(p, w->rel, w->min, w->max);
	if (rc == -ENOENT)
		return skip_group(c, w->g, "cgroup '%s' was removed while planning", w->g->path);
	if (rc && rc != -ENOMEM)
		uc_config_error(c, &w->g->loc, rc, "cannot read the clamps of cgroup '%s': %s",
				w->g->path, strerror(-rc));
	return rc;
}

int uc_config_plan_group(struct uc_config *c, const struct uc_conf_cgroup *g, const char *rel,
			 int min, int max, struct uc_plan *p)
{
	struct cg_want w = { .min = min, .max = max, .g = g };

	if ((size_t)snprintf(w.rel, sizeof(w.rel), "%s", rel) >= sizeof(w.rel))
		return -ENAMETOOLONG;
	return plan_group(c, p, &w);
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
	if (uc_err_absent(rc)) {
		uc_config_error(c, &c->cgroups[0].loc, -EOPNOTSUPP,
				"no cgroup hierarchy with the cpu controller is mounted: "
				"[cgroup] sections cannot apply");
		return -EOPNOTSUPP;
	}
	if (rc) {
		uc_config_error(c, &c->cgroups[0].loc, rc,
				"cannot find the cgroup hierarchies: %s", strerror(-rc));
		return rc;
	}
	w = calloc(c->ncgroups, sizeof(*w));
	if (!w)
		return -ENOMEM;
	/* resolve all first: every bad path is reported before anything is planned */
	for (size_t i = 0; i < c->ncgroups; i++) {
		const struct uc_conf_cgroup *g = &c->cgroups[i];
		char rel[PATH_MAX];
		size_t j;

		rc = resolve_group(c, &info, g, rel, sizeof(rel));
		if (rc < 0 && !first)
			first = rc;
		if (rc)
			continue;
		/* two spellings of one group (a/b, /a/b): a later section wins per key */
		for (j = 0; j < n && strcmp(w[j].rel, rel); j++)
			;
		if (j == n) {
			snprintf(w[n].rel, sizeof(w[n].rel), "%s", rel);
			w[n].min = w[n].max = UC_KEEP;
			w[n++].g = g;
		}
		if (g->min.set)
			w[j].min = uc_conf_cg_pct(&g->min, false);
		if (g->max.set)
			w[j].max = uc_conf_cg_pct(&g->max, true);
	}
	for (size_t i = 0; i < n && !first; i++) {
		rc = plan_group(c, p, &w[i]);
		if (rc < 0)
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
		v[i].off = t->off;
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

/* Why a task cannot take a section's values: whose value stands in the way. */
static const char *refusal_text(const struct uc_task_refusal *r, char *buf, size_t n)
{
	switch (r->why) {
	case UC_REFUSE_MIN_GT_MAX:
		if (r->end_min == r->cur_min)
			snprintf(buf, n, "its own util_min %d (the task's, not the "
				 "configuration's) is above the util_max %d the configuration "
				 "sets", r->cur_min, r->end_max);
		else if (r->end_max == r->cur_max)
			snprintf(buf, n, "its own util_max %d (the task's, not the "
				 "configuration's) is below the util_min %d the configuration "
				 "sets", r->cur_max, r->end_min);
		else
			snprintf(buf, n, "util_min %d would be above util_max %d", r->end_min,
				 r->end_max);
		break;
	case UC_REFUSE_RT_MAX_BELOW_MIN:
		snprintf(buf, n, "a real-time task's util_min is %d, so max %d alone would be "
			 "refused; set min too", r->cur_min, r->end_max);
		break;
	default:
		snprintf(buf, n, "refused");
	}
	return buf;
}

/* A task that cannot take its section's values: skipped by name, the others
 * go on (a user must not veto root's run by clamping its own task). */
static void on_refusal(const struct uc_task_refusal *r, void *data)
{
	struct uc_config *c = data;
	const struct uc_conf_tasks *t;
	char sec[PATH_MAX + 8], target[64], why[192];

	if (r->rule < 0 || r->why == UC_SKIP_ZOMBIE || r->why == UC_SKIP_INIT)
		return;
	t = &c->tasks[r->rule];
	snprintf(sec, sizeof(sec), "tasks %s", t->name);
	if (r->tid == r->pid)
		snprintf(target, sizeof(target), "pid %d", (int)r->pid);
	else
		snprintf(target, sizeof(target), "pid %d tid %d", (int)r->pid, (int)r->tid);
	/* the name as it is: the CLI escapes it */
	if (*r->comm)
		snprintf(target + strlen(target), sizeof(target) - strlen(target), " (%s)",
			 r->comm);
	uc_config_skip(c, &t->loc, sec, target, r->pid, r->tid, "%s",
		       refusal_text(r, why, sizeof(why)));
}

/* A cgroup selector without a cpu hierarchy could never match: say so. */
static int check_cgroup_layout(struct uc_config *c)
{
	struct uc_cg_info info;
	int err = uc_cg_init(&info), rc = 0;

	if (!err)
		return 0;
	for (size_t i = 0; i < c->ntasks; i++) {
		const struct uc_conf_tasks *t = &c->tasks[i];

		for (size_t k = 0; k < uc_sel_ndefs; k++) {
			const struct uc_sel_def *d = &uc_sel_defs[k];

			if (!(d->need & UC_PF_CGROUP) || !uc_sel_given(&t->rule, d))
				continue;
			/* "no hierarchy" only when there is none (uc_err_absent) */
			rc = uc_err_absent(err) ? -EOPNOTSUPP : err;
			if (uc_err_absent(err))
				uc_config_error(c, &t->sel_loc[k], rc,
						"[tasks %s]: no cgroup hierarchy with the cpu "
						"controller is mounted, so its %s selector matches "
						"nothing", t->name, d->key);
			else
				uc_config_error(c, &t->sel_loc[k], rc,
						"[tasks %s]: its %s selector needs the cgroup "
						"hierarchies, which cannot be found: %s", t->name,
						d->key, strerror(-err));
		}
	}
	return rc;
}

/* Tasks that could not be read: skipped, named by the first one. */
static void report_walk(struct uc_config *c, const struct uc_walk_stats *st)
{
	const struct uc_conf_tasks *t;
	char sec[PATH_MAX + 8], target[64];

	if (!st->failed)
		return;
	t = &c->tasks[st->first_err_rule >= 0 ? (size_t)st->first_err_rule : 0];
	snprintf(sec, sizeof(sec), "tasks %s", t->name);
	snprintf(target, sizeof(target), "%zu task(s)", st->failed);
	uc_config_skip(c, &t->loc, sec, target, 0, 0, "could not be read (tid %d: %s)",
		       (int)st->first_err_tid, strerror(-st->first_err));
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
	struct uc_walk_stats st;
	struct uc_plan acc;
	int rc;

	if (!c->ntasks)
		return 0;
	rc = check_cgroup_layout(c);
	if (rc)
		return rc;
	v = uc_config_task_rules(c);
	if (!v || uc_rules_init(&rs, v, c->ntasks)) {
		free(v);
		return -ENOMEM;
	}
	uc_plan_init(&acc);
	rc = uc_tasks_plan(&acc, &rs, NULL, 0, UC_WALK_COMM, on_refusal, c, &st);
	if (rc && rc != -ENOMEM)
		uc_config_error(c, &c->tasks[0].loc, rc, "[tasks %s]: cannot list the tasks: %s",
				c->tasks[0].name, strerror(-rc));
	if (!rc)
		report_walk(c, &st);
	if (!rc)
		rc = copy_sorted(p, &acc);
	p->unchanged += acc.unchanged;
	p->gone += acc.gone;
	uc_plan_free(&acc);
	uc_rules_free(&rs);
	free(v);
	return rc;
}

int uc_config_plan(struct uc_config *c, struct uc_plan *p)
{
	struct uc_sysctl_values cur;
	int rc, first = 0;

	uc_config_skips_reset(c);	/* a fresh plan finds its own */
	if (first_sys(c)) {
		const struct uc_conf_loc *loc = &first_sys(c)->loc;

		rc = uc_sysctl_read_all(&cur);
		if (uc_err_absent(rc)) {
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
