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

int uc_config_plan_system(struct uc_config *c, const struct uc_sysctl_values *cur, struct uc_plan *p)
{
	struct uc_sysctl_values want = {
		.min = want_sys(&c->sys_min), .max = want_sys(&c->sys_max), .rt_default = want_sys(&c->sys_rt_default),
	};
	const struct uc_conf_loc *loc = c->sys_min.set ? &c->sys_min.loc : &c->sys_max.loc;
	long end_min, end_max;
	int rc;

	if (!c->sys_min.set && !c->sys_max.set && !c->sys_rt_default.set)
		return 0;
	if (c->sys_rt_default.set && cur->rt_default == UC_SYSCTL_ABSENT) {
		uc_config_error(c, &c->sys_rt_default.loc, -EOPNOTSUPP,
				"rt-default: this kernel has no sched_util_clamp_min_rt_default (Linux 5.9 or later has it)");
		return -EOPNOTSUPP;
	}
	rc = uc_sysctl_plan(p, cur, &want);
	if (rc == -EINVAL) {
		end_min = c->sys_min.set ? sys_util(&c->sys_min.v) : cur->min;
		end_max = c->sys_max.set ? sys_util(&c->sys_max.v) : cur->max;
		uc_config_error(c, loc, -EINVAL,
				"[system] would leave min %ld above max %ld (the kernel's current values are min %ld, max %ld); set both min and max",
				end_min, end_max, cur->min, cur->max);
	} else if (rc) {
		uc_config_error(c, loc, rc, "[system]: cannot plan the sysctl changes: %s", strerror(-rc));
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
				"no cgroup hierarchy with the cpu controller is mounted (%s): [cgroup] sections cannot apply",
				strerror(-rc));
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
			uc_config_error(c, &g->loc, -EINVAL, "cgroup path '%s' resolves outside the cgroup mount %s", g->path,
					info.mount);
		else if (rc == -ENOENT)
			uc_config_error(c, &g->loc, -ENOENT, "no such cgroup '%s' under %s", g->path, info.mount);
		else if (rc)
			uc_config_error(c, &g->loc, rc, "cannot resolve cgroup '%s': %s", g->path, strerror(-rc));
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
					"cgroup '%s' has no cpu.uclamp files: enable the cpu controller for it (cgroup v2: +cpu in its parent's cgroup.subtree_control; the kernel needs CONFIG_UCLAMP_TASK_GROUP)",
					w[i].g->path);
		else if (rc)
			uc_config_error(c, &w[i].g->loc, rc, "cannot read the clamps of cgroup '%s': %s", w[i].g->path,
					strerror(-rc));
		if (rc && !first)
			first = rc;
	}
	free(w);
	return first;
}

/* -- claims: which (tid, value) a later [tasks] section owns -- */

static int cmp_claim(const void *a, const void *b)
{
	const struct uc_claim *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->attr > y->attr) - (x->attr < y->attr);
}

void uc_claims_free(struct uc_claims *cl)
{
	free(cl->v);
	memset(cl, 0, sizeof(*cl));
}

int uc_claims_add(struct uc_claims *cl, pid_t tid, int attr)
{
	if (cl->n == cl->cap) {
		size_t cap = cl->cap ? cl->cap * 2 : 64;
		struct uc_claim *v = realloc(cl->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		cl->v = v;
		cl->cap = cap;
	}
	cl->v[cl->n++] = (struct uc_claim){ tid, attr };
	return 0;
}

void uc_claims_sort(struct uc_claims *cl)
{
	if (cl->n)
		qsort(cl->v, cl->n, sizeof(*cl->v), cmp_claim);
}

bool uc_claims_has(const struct uc_claims *cl, pid_t tid, int attr)
{
	struct uc_claim k = { tid, attr };

	return cl->n && bsearch(&k, cl->v, cl->n, sizeof(*cl->v), cmp_claim);
}

int uc_config_merge_tasks(struct uc_plan *dst, const struct uc_plan *src, struct uc_claims *claimed,
			  const pid_t *matched, size_t nmatched, const int *attrs, size_t nattrs)
{
	for (size_t i = 0; i < src->n; i++) {
		const struct uc_change *c = &src->v[i];

		if (c->kind != UC_KIND_TASK || uc_claims_has(claimed, c->tid, c->attr))
			continue;
		if (!uc_plan_add_task(dst, c->pid, c->tid, c->label, &c->sa, c->attr, c->from, c->to))
			return -ENOMEM;
	}
	/* claimed only now: a section never hides its own changes */
	for (size_t i = 0; i < nmatched; i++)
		for (size_t k = 0; k < nattrs; k++)
			if (uc_claims_add(claimed, matched[i], attrs[k]))
				return -ENOMEM;
	uc_claims_sort(claimed);
	return 0;
}

struct tids {
	pid_t *v;
	size_t n, cap;
};

static int collect_tid(const struct uc_task *t, void *data)
{
	struct tids *m = data;

	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		pid_t *v = realloc(m->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		m->v = v;
		m->cap = cap;
	}
	m->v[m->n++] = t->tid;
	return 0;
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
		snprintf(buf, n, "a real-time task's util_min is %d, so max %d alone would be refused; set min too",
			 r->cur_min, r->end_max);
		break;
	default:
		snprintf(buf, n, "refused");
	}
	return buf;
}

/* One [tasks] section: plan it and list what it matched, per (user, policy). */
static int plan_one_tasks(struct uc_config *c, const struct uc_conf_tasks *t, struct uc_plan *sp, struct tids *m)
{
	struct uc_task_want want = {
		.min = t->min.set ? t->min.v.util : UC_KEEP,
		.max = t->max.set ? t->max.v.util : UC_KEEP,
		.reset_on_fork = t->reset_on_fork.set ? t->reset_on_fork.value : UC_KEEP,
	};
	size_t nu = t->user_set ? t->nuids : 1, np = t->policy_set ? t->npolicies : 1;
	char why[160];

	for (size_t u = 0; u < nu; u++) {
		for (size_t k = 0; k < np; k++) {
			struct uc_selector sel = {
				.all = true,
				.threads = t->threads.set && t->threads.value,
				.policy = t->policy_set ? t->policies[k] : -1,
				.has_uid = t->user_set,
				.uid = t->user_set ? t->uids[u] : 0,
				.comms = t->comm_set ? t->comms : NULL,
				.ncomms = t->comm_set ? t->ncomms : 0,
				.need_comm = true,
			};
			struct uc_walk_stats st;
			int rc = uc_tasks_plan(sp, &sel, &want, &st);

			if (rc == -ENOMEM)
				return rc;
			if (rc) {
				uc_config_error(c, &t->loc, rc, "[tasks %s]: cannot list the tasks: %s", t->name, strerror(-rc));
				return rc;
			}
			if (st.failed) {
				uc_config_error(c, &t->loc, st.first_err, "[tasks %s]: could not read %zu task(s) (tid %d: %s)",
						t->name, st.failed, (int)st.first_err_tid, strerror(-st.first_err));
				return st.first_err ? st.first_err : -EIO;
			}
			if (st.refused) {
				const struct uc_task_refusal *r = &st.first_refusal;

				uc_config_error(c, &t->loc, -EINVAL, "[tasks %s]: %zu task(s) cannot take these values, e.g. pid %d tid %d%s%s%s: %s",
						t->name, st.refused, (int)r->pid, (int)r->tid, *r->comm ? " (" : "", r->comm,
						*r->comm ? ")" : "", refusal_text(r, why, sizeof(why)));
				return -EINVAL;
			}
			rc = uc_tasks_walk(&sel, collect_tid, m, NULL);
			if (rc) {
				if (rc != -ENOMEM)
					uc_config_error(c, &t->loc, rc, "[tasks %s]: cannot list the tasks: %s", t->name,
							strerror(-rc));
				return rc;
			}
		}
	}
	return 0;
}

int uc_config_plan_tasks(struct uc_config *c, struct uc_plan *p)
{
	struct uc_plan acc;
	struct uc_claims cl = { 0 };
	int rc = 0;

	if (!c->ntasks)
		return 0;
	uc_plan_init(&acc);
	/* last section first: what it matches is claimed from the earlier ones */
	for (size_t j = c->ntasks; j-- > 0 && !rc;) {
		const struct uc_conf_tasks *t = &c->tasks[j];
		int attrs[3];
		size_t na = 0;
		struct uc_plan sp;
		struct tids m = { 0 };

		if (t->min.set)
			attrs[na++] = UC_ATTR_MIN;
		if (t->max.set)
			attrs[na++] = UC_ATTR_MAX;
		if (t->reset_on_fork.set)
			attrs[na++] = UC_ATTR_RESET_ON_FORK;
		uc_plan_init(&sp);
		rc = plan_one_tasks(c, t, &sp, &m);
		if (!rc)
			rc = uc_config_merge_tasks(&acc, &sp, &cl, m.v, m.n, attrs, na);
		acc.unchanged += sp.unchanged;
		acc.gone += sp.gone;
		uc_plan_free(&sp);
		free(m.v);
	}
	uc_claims_free(&cl);
	/* one TID's changes side by side: the executor sends them in one syscall */
	if (acc.n)
		qsort(acc.v, acc.n, sizeof(*acc.v), cmp_task_change);
	for (size_t i = 0; i < acc.n && !rc; i++) {
		const struct uc_change *ch = &acc.v[i];

		if (!uc_plan_add_task(p, ch->pid, ch->tid, ch->label, &ch->sa, ch->attr, ch->from, ch->to))
			rc = -ENOMEM;
	}
	p->unchanged += acc.unchanged;
	p->gone += acc.gone;
	uc_plan_free(&acc);
	return rc;
}

int uc_config_plan(struct uc_config *c, struct uc_plan *p)
{
	struct uc_sysctl_values cur;
	int rc, first = 0;

	if (c->sys_min.set || c->sys_max.set || c->sys_rt_default.set) {
		const struct uc_conf_loc *loc = c->sys_min.set ? &c->sys_min.loc
					       : c->sys_max.set ? &c->sys_max.loc : &c->sys_rt_default.loc;

		rc = uc_sysctl_read_all(&cur);
		if (rc == -ENOENT) {
			uc_config_error(c, loc, -EOPNOTSUPP,
					"[system]: the kernel has no uclamp sysctls (it needs CONFIG_UCLAMP_TASK, Linux 5.3 or later)");
			rc = -EOPNOTSUPP;
		} else if (rc) {
			uc_config_error(c, loc, rc, "[system]: cannot read the uclamp sysctls: %s", strerror(-rc));
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
