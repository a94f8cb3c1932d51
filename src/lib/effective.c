/* Effective clamps as the kernel computes them, per group and per task (the
 * rule: effective.h), one cgroup read per group. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "uclamp/cgroup.h"
#include "uclamp/effective.h"
#include "uclamp/sysctl.h"
#include "uclamp/sysroot.h"
#include "uclamp/tasks.h"
#include "uclamp/value.h"

/* ---- per group ---- */

static int imin(int a, int b)
{
	return a < b ? a : b;
}

void uc_cg_eff_root(long sys_min, long sys_max, struct uc_cg_clamps *eff)
{
	/* uclamp_update_root_tg(): the root group's requests are the sysctls */
	eff->max = (int)sys_max;
	eff->min = imin((int)sys_min, eff->max);
}

void uc_cg_eff_child(const struct uc_cg_clamps *parent, int req_min, int req_max,
		     struct uc_cg_clamps *eff)
{
	/* cpu_util_update_eff(): cap by the parent, then protection by limit */
	eff->min = imin(req_min, parent->min);
	eff->max = imin(req_max, parent->max);
	eff->min = imin(eff->min, eff->max);
}

int uc_cg_effective(const char *rel, long sys_min, long sys_max, struct uc_cg_clamps *eff)
{
	char part[PATH_MAX] = "";
	const char *s = rel;
	size_t len = 0;
	int rc;

	if (uc_cg_path_escapes(rel))
		return -EXDEV;
	uc_cg_eff_root(sys_min, sys_max, eff);
	/* down from the root, one component at a time */
	while ((rc = uc_cg_path_next(&s, part, sizeof(part), &len)) > 0) {
		int mn, mx;

		rc = uc_cg_read(part, UC_ATTR_MIN, &mn);
		if (!rc)
			rc = uc_cg_read(part, UC_ATTR_MAX, &mx);
		if (rc == -ENOENT)
			continue;	/* no clamps here: the parent's effective values hold */
		if (rc)
			return rc;
		uc_cg_eff_child(eff, uc_pct100_to_util(mn), uc_pct100_to_util(mx), eff);
	}
	return rc;
}

/* ---- per task ---- */

struct uc_eff_group {
	char *rel;
	bool known;		/* false: a read failed, use /proc for its tasks */
	/* no group on the way up has the cpu files: the root task group */
	bool in_root;
	bool threaded;		/* v2 threaded (sub)tree: threads of a process may differ */
	struct uc_cg_clamps eff;
};

/* Does /proc/PID/sched show effective clamps (CONFIG_SCHED_DEBUG before 6.15)?
 * Only there can the rule be checked against the kernel, so only there is it used. */
static bool proc_shows_effective(void)
{
	char buf[16384];

	return uc_read_head("/proc/self/sched", buf, sizeof(buf)) >= 0 &&
	       strstr(buf, "effective uclamp.max") != NULL;
}

int uc_eff_init(struct uc_eff *e)
{
	const char *env = getenv("UCLAMPCTL_EFF");
	int kver = uc_kernel_version();

	memset(e, 0, sizeof(*e));
	e->pid = -1;
	e->cap = 64;
	e->tab = calloc(e->cap, sizeof(*e->tab));
	if (!e->tab)
		return -ENOMEM;
	if (env && !strcmp(env, "proc")) {
		e->why_proc = "UCLAMPCTL_EFF=proc";
		return 0;
	}
	/* before 5.14 (0c18f2ecfcc2) a group's min was a limit, not a floor */
	if (!kver || kver < UC_KVER(5, 14, 0)) {
		e->why_proc =
			"the kernel is older than 5.14 (other cgroup "
			"rules) or its version is unknown";
		return 0;
	}
	if (!proc_shows_effective()) {
		e->why_proc = "/proc/PID/sched shows no effective clamps to check the rule against";
		return 0;
	}
	if (uc_sysctl_read(UC_ATTR_MIN, &e->sys_min) || uc_sysctl_read(UC_ATTR_MAX, &e->sys_max)) {
		e->why_proc = "kernel.sched_util_clamp_min/max cannot be read";
		return 0;
	}
	e->cg = uc_cg_layout();
	e->rule = true;
	return 0;
}

void uc_eff_free(struct uc_eff *e)
{
	for (size_t i = 0; i < e->cap && e->tab; i++) {
		if (e->tab[i]) {
			free(e->tab[i]->rel);
			free(e->tab[i]);
		}
	}
	free(e->tab);
	e->tab = NULL;
}

static size_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return (size_t)h;
}

static struct uc_eff_group **slot(struct uc_eff *e, const char *rel)
{
	size_t i = hash(rel) & (e->cap - 1);

	while (e->tab[i] && strcmp(e->tab[i]->rel, rel))
		i = (i + 1) & (e->cap - 1);
	return &e->tab[i];
}

static int grow(struct uc_eff *e)
{
	struct uc_eff_group **old = e->tab;
	size_t ocap = e->cap;

	e->tab = calloc(ocap * 2, sizeof(*e->tab));
	if (!e->tab) {
		e->tab = old;
		return -ENOMEM;
	}
	e->cap = ocap * 2;
	for (size_t i = 0; i < ocap; i++)
		if (old[i])
			*slot(e, old[i]->rel) = old[i];
	free(old);
	return 0;
}

/* Group rel and its effective clamps, from its parent's (memoized); NULL: no memory. */
static struct uc_eff_group *group(struct uc_eff *e, const char *rel)
{
	struct uc_eff_group **s = slot(e, rel), *g, *parent = NULL;
	char up[PATH_MAX];
	unsigned long long ino;
	int mn, mx, rc;

	if (*s)
		return *s;
	if (uc_cg_parent(rel, up, sizeof(up))) {
		parent = group(e, up);
		if (!parent)
			return NULL;
	}
	if ((e->ngroups + 1) * 2 > e->cap && grow(e))
		return NULL;
	g = calloc(1, sizeof(*g));
	if (!g || !(g->rel = strdup(rel))) {
		free(g);
		return NULL;
	}
	if (!parent) {
		/* the root group: its requested clamps are the sysctls */
		uc_cg_eff_root(e->sys_min, e->sys_max, &g->eff);
		g->known = g->in_root = true;
	} else {
		g->known = parent->known;
		g->in_root = parent->in_root;
		g->eff = parent->eff;
		rc = uc_cg_read(rel, UC_ATTR_MIN, &mn);
		if (!rc)
			rc = uc_cg_read(rel, UC_ATTR_MAX, &mx);
		if (!rc) {
			uc_cg_eff_child(&parent->eff, uc_pct100_to_util(mn), uc_pct100_to_util(mx),
					&g->eff);
			g->in_root = false;
		} else if (rc != -ENOENT || uc_cg_ident(rel, &ino)) {
			/* no files (in a group that is there) is the parent's group;
			 * anything else unknown */
			g->known = false;
		}
	}
	g->threaded = e->cg && e->cg->version == UC_CG_V2 && uc_cg_threaded(rel);
	*slot(e, rel) = g;
	e->ngroups++;
	return g;
}

/* The group of task id (a PID or a TID); NULL when unknown. */
static struct uc_eff_group *group_of(struct uc_eff *e, pid_t id)
{
	char rel[PATH_MAX];

	if (uc_cg_of_pid(e->cg, id, rel, sizeof(rel)))
		return NULL;	/* gone, no cpu line, outside our namespace */
	return group(e, rel);
}

static struct uc_eff_group *task_group(struct uc_eff *e, pid_t pid, pid_t tid)
{
	if (pid != e->pid) {
		e->pid = pid;
		e->pid_group = group_of(e, pid);
		/* v1 moves single threads (the tasks file); v2 only in threaded trees */
		e->per_thread = e->cg->version == UC_CG_V1 ||
				(e->pid_group && e->pid_group->threaded);
	}
	if (e->per_thread && tid != pid)
		return group_of(e, tid);
	return e->pid_group;
}

static enum uc_eff_source from_proc(struct uc_eff *e, pid_t pid, pid_t tid,
				    struct uc_cg_clamps *out)
{
	int mn, mx;

	if (uc_task_effective(pid, tid, &mn, &mx))
		return UC_EFF_NONE;
	out->min = mn;
	out->max = mx;
	e->n_proc++;
	return UC_EFF_PROC;
}

/* What a task requesting req_min/req_max gets in a task group with effective
 * clamps tg (uclamp_eff_get()): clamp(request, tg.min, tg.max) unless in the
 * root group, then at most the sysctls. Capacity units. */
static void eff_apply(const struct uc_cg_clamps *tg, bool in_root, int req_min, int req_max,
		      long sys_min, long sys_max, struct uc_cg_clamps *eff)
{
	int v[2] = { req_min, req_max };
	long sys[2] = { sys_min, sys_max };

	for (int i = 0; i < 2; i++) {
		/* uclamp_tg_restrict(): clamp(req, tg_min, tg_max) outside the root group */
		if (!in_root) {
			if (v[i] < tg->min)
				v[i] = tg->min;
			if (v[i] > tg->max)
				v[i] = tg->max;
		}
		/* uclamp_eff_get(): the system default restrictions always apply */
		if (v[i] > sys[i])
			v[i] = (int)sys[i];
	}
	eff->min = v[0];
	eff->max = v[1];
}

enum uc_eff_source uc_eff_task(struct uc_eff *e, pid_t pid, pid_t tid,
			       const struct uc_sched_attr *sa, struct uc_cg_clamps *out)
{
	struct uc_eff_group *g;
	bool in_root = true;
	struct uc_cg_clamps tg = { 0, UC_CAPACITY_SCALE };

	if (!e->rule)
		return from_proc(e, pid, tid, out);
	if (e->cg) {
		g = task_group(e, pid, tid);
		if (!g || !g->known)
			return from_proc(e, pid, tid, out);
		in_root = g->in_root;
		tg = g->eff;
	}
	eff_apply(&tg, in_root, (int)sa->sched_util_min, (int)sa->sched_util_max, e->sys_min,
		     e->sys_max, out);
	e->n_rule++;
	return UC_EFF_RULE;
}
