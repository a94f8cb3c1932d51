/*
 * Plans for cgroup clamps: the writes that bring a group to the wanted
 * values, only those that differ (any write to cpu.uclamp.* flips the key,
 * even of the same value), and the "+cpu" subtree_control writes that
 * create the files on v2. Reads go through cgroup_io.c; nothing is written here.
 *
 * Values: one in capacity units counts as equal when the current percentage
 * maps to the same unit, and is written as the two-decimal percentage that
 * maps back to it; a percentage as given; "default" is 0.00 for min, max for max.
 * cpu where systemd owns a parent that lacks it: one UC_KIND_SYSTEMD change for
 * the unit whose group is the child of the deepest such parent, asking systemd
 * (a runtime CPUWeight equal to the current one, 100 when unset) to enable cpu
 * up to the root: never a subtree_control write in systemd's tree. Other
 * parents (delegated, outside systemd's tree) get subtree writes with
 * --enable-cpu, else -EPERM. cpu is a threaded controller: a group with
 * processes of its own given cpu in its subtree_control becomes a thread root
 * ("domain threaded"), its processes competing with its children.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "uclamp/cgroup.h"
#include "uclamp/systemd.h"
#include "uclamp/value.h"

/* Does p already enable cpu in rel's parent (itself, or by asking systemd
 * for the unit whose cgroup rel is)? */
static bool plan_enables_cpu_for(const struct uc_plan *p, const char *rel)
{
	struct uc_plan_it it = { 0 };
	const struct uc_change *c;
	char parent[PATH_MAX];

	if (!uc_cg_parent(rel, parent, sizeof(parent)))
		return false;
	while ((c = uc_plan_next(p, &it))) {
		if (!c->target)
			continue;
		if (c->kind == UC_KIND_SUBTREE && c->to == 1 && !strcmp(c->target, parent))
			return true;
		if (c->kind == UC_KIND_SYSTEMD && !strcmp(c->target, rel))
			return true;
	}
	return false;
}

/* The pct100 to write for v, and whether the current value already is it. */
static int want_of(const struct uc_value *v, enum uc_attr attr, int cur, int *want, bool *same)
{
	int util;

	if (v->util == UC_RESET) {
		util = attr == UC_ATTR_MIN ? 0 : UC_CAPACITY_SCALE;
		*want = attr == UC_ATTR_MIN ? 0 : UC_PCT_MAX;
		*same = uc_pct100_to_util(cur) == util;
		return 0;
	}
	if (v->percent) {
		if (v->pct100 < 0 || v->pct100 > UC_PCT_MAX)
			return -ERANGE;
		*want = v->pct100;
		*same = cur == v->pct100;
		return 0;
	}
	if (v->util < 0 || v->util > UC_CAPACITY_SCALE)
		return -ERANGE;
	*want = uc_util_to_pct100(v->util);
	*same = uc_pct100_to_util(cur) == v->util;
	return 0;
}

int uc_cg_plan_values(struct uc_plan *p, const char *rel, const struct uc_value *min,
		      const struct uc_value *max)
{
	int cur[2], want[2] = { 0, 0 }, rc;
	bool same[2] = { true, true };
	const struct uc_value *v[2] = { min, max };
	size_t n0 = p->n, u0 = p->unchanged;
	int order[2] = { 0, 1 };
	unsigned long long ident = 0;
	struct uc_change *ch;

	/* the group as it is now: the executor writes only to this one */
	rc = uc_cg_ident(rel, &ident);
	if (rc)
		return rc;
	rc = uc_cg_read(rel, UC_ATTR_MIN, &cur[0]);
	if (!rc)
		rc = uc_cg_read(rel, UC_ATTR_MAX, &cur[1]);
	if (rc == -ENOENT && plan_enables_cpu_for(p, rel)) {
		/* the kernel creates the files with the defaults */
		cur[0] = 0;
		cur[1] = UC_PCT_MAX;
		rc = 0;
	}
	if (rc)
		return rc;
	for (int i = 0; i < 2; i++)
		if (v[i] &&
		    (rc = want_of(v[i], i ? UC_ATTR_MAX : UC_ATTR_MIN, cur[i], &want[i], &same[i])))
			return rc;
	/* cgroups allow min > max, but keep the in-between state sane anyway:
	 * a min raised above the current max goes after the max */
	if (v[0] && !same[0] && uc_pct100_to_util(want[0]) > uc_pct100_to_util(cur[1])) {
		order[0] = 1;
		order[1] = 0;
	}
	for (int k = 0; k < 2; k++) {
		int i = order[k];

		if (!v[i])
			continue;
		if (same[i]) {
			p->unchanged++;
			continue;
		}
		ch = uc_plan_add(p, UC_KIND_CGROUP, i ? UC_ATTR_MAX : UC_ATTR_MIN, rel, cur[i],
				 want[i]);
		if (!ch) {
			uc_plan_drop_from(p, n0);
			p->unchanged = u0;
			return -ENOMEM;
		}
		ch->start = ident;
	}
	return 0;
}

/* A pct100 want as a parsed value: NULL to keep, the default, or the percentage. */
static int value_of(int want, struct uc_value *v, const struct uc_value **out)
{
	*out = NULL;
	if (want == UC_KEEP)
		return 0;
	if (want == UC_RESET)
		*v = (struct uc_value){ .util = UC_RESET, .pct100 = -1 };
	else if (want < 0 || want > UC_PCT_MAX)
		return -ERANGE;
	else
		*v = (struct uc_value){ .util = uc_pct100_to_util(want),
					.pct100 = want,
					.percent = true };
	*out = v;
	return 0;
}

int uc_cg_plan(struct uc_plan *p, const char *rel, int want_min, int want_max)
{
	struct uc_value mn, mx;
	const struct uc_value *a, *b;
	int rc;

	if ((rc = value_of(want_min, &mn, &a)) || (rc = value_of(want_max, &mx, &b)))
		return rc;
	return uc_cg_plan_values(p, rel, a, b);
}

/* The systemd change planned already for rel or one of its ancestors
 * (its group), or NULL. */
static const char *plan_asks_systemd(const struct uc_plan *p, const char *rel)
{
	struct uc_plan_it it = { 0 };
	const struct uc_change *c;

	while ((c = uc_plan_next(p, &it))) {
		const char *t = c->target;
		size_t len;

		if (c->kind != UC_KIND_SYSTEMD || !t)
			continue;
		len = strlen(t);
		if (!strncmp(t, rel, len) && (rel[len] == '\0' || rel[len] == '/'))
			return t;
	}
	return NULL;
}

/*
 * The ancestors of rel, root first, down to its parent: the deepest one
 * systemd owns that lacks cpu (*owned, -1: none) and whether any other one
 * lacks it (*foreign: the payload's, below a delegated unit or outside
 * systemd's tree).
 */
static int cpu_gaps(const char *rel, ssize_t *owned_len, bool *foreign)
{
	char anc[PATH_MAX] = "";
	const char *comp = rel;
	size_t len = 0;
	int rc;

	*owned_len = -1;
	*foreign = false;
	while (*comp == '/')
		comp++;
	while (*comp) {
		bool on, owned;

		if ((rc = uc_cg_subtree_cpu(anc, &on)))
			return rc;
		if (!on) {
			if ((rc = uc_sd_owns_subtree(anc, &owned)))
				return rc;
			if (owned)
				*owned_len = (ssize_t)len;
			else
				*foreign = true;
		}
		if ((rc = uc_cg_path_next(&comp, anc, sizeof(anc), &len)) < 0)
			return rc;
	}
	return 0;
}

int uc_cg_plan_cpu(struct uc_plan *p, const char *rel, bool write_subtree, char *unit, size_t n)
{
	char child[PATH_MAX];
	const char *base, *asked, *r = rel;
	ssize_t owned_len;
	bool foreign;
	long weight;
	size_t n0 = p->n, next;
	int rc, added;

	if (n)
		unit[0] = '\0';
	while (*r == '/')
		r++;
	if (uc_cg_path_escapes(r))
		return -EXDEV;
	if ((rc = cpu_gaps(r, &owned_len, &foreign)))
		return rc;
	asked = plan_asks_systemd(p, r);
	if (owned_len < 0 || asked) {
		if (!foreign)
			return 0;
		return write_subtree ? uc_cg_plan_enable_cpu_below(p, r, asked) : -EPERM;
	}
	/* the group below the deepest owned gap, on the way to rel: its unit
	 * asks for cpu, and systemd enables it in every parent up to the root */
	next = (size_t)owned_len + (owned_len > 0);
	while (r[next] && r[next] != '/')
		next++;
	if (next >= sizeof(child))
		return -ENAMETOOLONG;
	memcpy(child, r, next);
	child[next] = '\0';
	base = strrchr(child, '/');
	base = base ? base + 1 : child;
	if ((size_t)snprintf(unit, n, "%s", base) >= n)
		return -ENAMETOOLONG;
	if (!uc_sd_unit_name_ok(base))
		return -EINVAL;
	/* the weight it has (or the kernel's default): the ask changes nothing else */
	if ((rc = uc_sd_cpu_weight(base, &weight)))
		return rc;
	if (!uc_plan_add_systemd(p, child, base, weight,
				 weight == UC_SD_WEIGHT_UNSET ? UC_SD_WEIGHT_DEFAULT : weight))
		return -ENOMEM;
	if (!foreign)
		return 1;
	/* what is left below the unit (a delegated subtree) is not systemd's */
	if (!write_subtree) {
		uc_plan_drop_from(p, n0);
		return -EPERM;
	}
	added = uc_cg_plan_enable_cpu_below(p, r, child);
	if (added < 0) {
		uc_plan_drop_from(p, n0);
		return added;
	}
	return added + 1;
}

int uc_cg_plan_enable_cpu_below(struct uc_plan *p, const char *rel, const char *top)
{
	struct uc_cg_info info;
	char anc[PATH_MAX] = "";
	const char *comp = rel;
	size_t len = 0, n0 = p->n;
	int added = 0, rc = uc_cg_init(&info);

	if (rc)
		return rc;
	if (info.version != UC_CG_V2)
		return -EOPNOTSUPP;
	if (uc_cg_path_escapes(rel))
		return -EXDEV;
	while (*comp == '/')
		comp++;
	/* every ancestor, root first, down to rel's parent */
	while (*comp) {
		bool on;

		if ((rc = uc_cg_subtree_cpu(anc, &on)))
			goto fail;
		if (!on && (!top || len >= strlen(top))) {
			if (!uc_plan_add(p, UC_KIND_SUBTREE, UC_ATTR_CPU_CONTROLLER, anc, 0, 1)) {
				rc = -ENOMEM;
				goto fail;
			}
			added++;
		}
		if ((rc = uc_cg_path_next(&comp, anc, sizeof(anc), &len)) < 0)
			goto fail;
	}
	return added;
fail:
	uc_plan_drop_from(p, n0);
	return rc;
}

int uc_cg_plan_thread_root(const struct uc_plan *p, char *rel, size_t n, pid_t *pid)
{
	struct uc_plan_it it = { 0 };
	const struct uc_change *c;

	while ((c = uc_plan_next(p, &it))) {
		int rc;

		/* the root may hold processes and children alike (it is "mixable") */
		if (c->kind != UC_KIND_SUBTREE || c->to != 1 || !c->target || !*c->target)
			continue;
		rc = uc_cg_first_proc(c->target, pid);
		if (rc == -ENOENT)
			continue;	/* gone: its write will say so */
		if (rc)
			return rc;
		if (*pid) {
			snprintf(rel, n, "%s", c->target);
			return 1;
		}
	}
	return 0;
}
