/*
 * Plans from a configuration (see config.h): only the values that differ
 * from the current state, through the shared builders (uc_sysctl_plan,
 * uc_cg_plan, uc_tasks_plan). Every problem goes to the config's error list
 * with the file:line of the key or section it comes from.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "uclamp/cgroup.h"
#include "uclamp/config.h"
#include "uclamp/sched.h"
#include "uclamp/tasks.h"

/* "default" is 1024 for the system knobs (their kernel default). */
static int sys_util(const struct uc_value *v)
{
	return v->util == UC_RESET ? UC_CAPACITY_SCALE : v->util;
}

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
		end_min = cmin->set ? sys_util(&cmin->v) : cur->min;
		end_max = cmax->set ? sys_util(&cmax->v) : cur->max;
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

int uc_config_plan_cgroups(struct uc_config *c, struct uc_plan *p)
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

		rc = uc_cg_resolve(&info, g->path, rel, sizeof(rel));
		if (rc == -EXDEV)
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
	rc = uc_config_plan_cgroups(c, p);
	if (!first)
		first = rc;
	if (first == -ENOMEM)
		return first;
	rc = uc_config_plan_tasks(c, p);
	if (!first)
		first = rc;
	uc_config_sort_errors(c);
	return first;
}
