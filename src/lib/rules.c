/* Task rules: compiled once (order, needed fields), matched per task without
 * allocating, cheapest field first (exe, cmdline, cgroup, parent read last). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "uclamp/rules.h"
#include "uclamp/sched.h"
#include "uclamp/selectors.h"

void uc_proc_reset(struct uc_proc *p, pid_t pid, pid_t tid, uc_proc_fill_fn fill, void *fill_data)
{
	p->pid = pid;
	p->tid = tid > 0 ? tid : pid;
	p->have = p->absent = 0;
	p->fill = fill;
	p->fill_data = fill_data;
	p->comm[0] = p->tcomm[0] = p->cgroup[0] = p->exe[0] = '\0';
	p->cmdline[0] = p->argv0[0] = p->pcomm[0] = '\0';
}

void uc_proc_set_thread(struct uc_proc *p, pid_t tid)
{
	const unsigned per_thread = UC_PF_TCOMM | UC_PF_POLICY;

	p->tid = tid;
	p->have &= ~per_thread;
	p->absent &= ~per_thread;
	p->tcomm[0] = '\0';
}

int uc_proc_need(struct uc_proc *p, unsigned want)
{
	unsigned miss = want & ~p->have;
	int rc;

	if (!miss)
		return 0;
	if (!p->fill)
		return -ENODATA;
	rc = p->fill(p, miss, p->fill_data);
	if (rc)
		return rc;
	return (want & ~p->have) ? -ENODATA : 0;
}

/* The UC_PF_* fields one rule's selectors need. */
static unsigned rule_need(const struct uc_rule *r)
{
	unsigned need = 0;

	for (size_t i = 0; i < uc_sel_ndefs; i++)
		if (uc_sel_defs[i].kind != UC_SEL_FLAG && uc_sel_given(r, &uc_sel_defs[i]))
			need |= uc_sel_defs[i].need;
	if (r->comm.n && r->threads)
		need |= UC_PF_TCOMM;
	if (!r->rt)
		need |= UC_PF_POLICY;
	if (!r->kthreads)
		need |= UC_PF_STAT;
	return need;
}

/* Evaluation order: priority high to low; on a tie excludes first (they
 * beat equal priority), then later rules first (file order wins). */
static bool goes_before(const struct uc_rule *v, size_t i, size_t j)
{
	if (v[i].priority != v[j].priority)
		return v[i].priority > v[j].priority;
	if (v[i].exclude != v[j].exclude)
		return v[i].exclude;
	return i > j;
}

int uc_rules_init(struct uc_rules *rs, const struct uc_rule *v, size_t n)
{
	memset(rs, 0, sizeof(*rs));
	rs->v = v;
	rs->n = n;
	if (!n)
		return 0;
	rs->order = calloc(n, sizeof(*rs->order));
	if (!rs->order)
		return -ENOMEM;
	/* a rule that is off is never evaluated: it is left out of the order */
	for (size_t i = 0; i < n; i++) {
		if (v[i].off)
			continue;
		rs->order[rs->norder++] = i;
		rs->need |= rule_need(&v[i]);
		rs->any_threads |= v[i].threads && !v[i].exclude;
	}
	/* insertion sort: rule sets are small, and no comparator needs a global */
	for (size_t i = 1; i < rs->norder; i++) {
		size_t x = rs->order[i], j = i;

		for (; j > 0 && goes_before(v, x, rs->order[j - 1]); j--)
			rs->order[j] = rs->order[j - 1];
		rs->order[j] = x;
	}
	return 0;
}

void uc_rules_free(struct uc_rules *rs)
{
	free(rs->order);
	memset(rs, 0, sizeof(*rs));
}

typedef bool (*str_match_fn)(const char *pat, const char *s);

/* Read the field a selector with n values looks at: 0, or 1 when it has no
 * values (anything matches, nothing read), or -errno. */
static int need_for(struct uc_proc *p, size_t n, unsigned field)
{
	return n ? uc_proc_need(p, field) : 1;
}

/* A string selector over one field: 1, 0, -errno. An absent field never matches. */
static int str_sel(struct uc_proc *p, const struct uc_strs *l, unsigned field, const char *val,
		   str_match_fn match)
{
	int rc = need_for(p, l->n, field);

	if (rc)
		return rc;
	if (p->absent & field)
		return 0;
	for (size_t i = 0; i < l->n; i++)
		if (match(l->v[i], val))
			return 1;
	return 0;
}

static int comm_sel(const struct uc_rule *r, struct uc_proc *p)
{
	int rc = str_sel(p, &r->comm, UC_PF_COMM, p->comm, uc_rule_str_match);

	/* a thread of a threads = yes rule also by its own name (prctl PR_SET_NAME) */
	if (rc != 0 || !r->threads || p->tid == p->pid)
		return rc;
	return str_sel(p, &r->comm, UC_PF_TCOMM, p->tcomm, uc_rule_str_match);
}

/* An ID list (uids, gids, policies): empty matches anything. */
static bool in_ids(const void *v, size_t n, unsigned x)
{
	const unsigned *ids = v;

	for (size_t i = 0; i < n; i++)
		if (ids[i] == x)
			return true;
	return !n;
}

/* The process-level selectors, cheapest field first (the table's order). */
static int process_selects(const struct uc_rule *r, struct uc_proc *p)
{
	int rc = comm_sel(r, p);

	if (rc == 1 && (rc = need_for(p, r->nuids + r->ngids, UC_PF_STATUS)) == 0)
		rc = in_ids(r->uids, r->nuids, p->uid) && in_ids(r->gids, r->ngids, p->gid);
	for (size_t i = 0; rc == 1 && i < uc_sel_ndefs; i++) {
		const struct uc_sel_def *d = &uc_sel_defs[i];
		const struct uc_strs *l = (const struct uc_strs *)((const char *)r + d->off);

		if (d->match)
			rc = str_sel(p, l, d->need, (const char *)p + d->proc_off, d->match);
	}
	return rc;
}

static int policy_selects(const struct uc_rule *r, struct uc_proc *p)
{
	int rc = need_for(p, r->npolicies, UC_PF_POLICY);

	if (rc)
		return rc;
	return p->policy >= 0 && in_ids(r->policies, r->npolicies, (unsigned)p->policy);
}

/* A rule that names fifo or rr in its policies asked for RT tasks. */
static bool rule_takes_rt(const struct uc_rule *r)
{
	if (r->rt || r->exclude)
		return true;
	for (size_t i = 0; i < r->npolicies; i++)
		if (uc_policy_is_rt(r->policies[i]))
			return true;
	return false;
}

static void take(const struct uc_rule *r, size_t idx, struct uc_rules_result *res)
{
	const int val[UC_RA_N] = { r->min, r->max, r->reset_on_fork };

	for (int a = 0; a < UC_RA_N; a++)
		if (val[a] != UC_KEEP && res->winner[a] < 0) {
			res->winner[a] = (int)idx;
			res->value[a] = val[a];
		}
}

/* Is this task out of the rule's scope (kernel thread, RT)? 1 out, 0 in, -errno. */
static int out_of_scope(const struct uc_rule *r, struct uc_proc *p, struct uc_rules_result *res)
{
	int rc;

	if (r->exclude)
		return 0;
	if (!r->kthreads) {
		rc = uc_proc_need(p, UC_PF_STAT);
		if (rc)
			return rc;
		if (p->kthread) {
			res->skipped_kthread = true;
			return 1;
		}
	}
	if (!rule_takes_rt(r)) {
		rc = uc_proc_need(p, UC_PF_POLICY);
		if (rc)
			return rc;
		if (uc_policy_is_rt(p->policy)) {
			res->skipped_rt = true;
			return 1;
		}
	}
	return 0;
}

int uc_rules_match(const struct uc_rules *rs, struct uc_proc *p, struct uc_rules_result *res)
{
	bool stopped = false;
	int rc;

	memset(res, 0, sizeof(*res));
	res->excluded_by = -1;
	for (int a = 0; a < UC_RA_N; a++) {
		res->winner[a] = -1;
		res->value[a] = UC_KEEP;
	}
	for (size_t k = 0; k < rs->norder; k++) {
		size_t idx = rs->order[k];
		const struct uc_rule *r = &rs->v[idx];
		bool for_threads = r->threads && !r->exclude;

		/* after an exclude only "are there threads to visit?" is left */
		if (stopped && (!for_threads || res->threads))
			continue;
		rc = process_selects(r, p);
		if (rc < 0)
			return rc;
		if (!rc)
			continue;
		if (for_threads)
			res->threads = true;
		if (stopped)
			continue;
		if (!r->exclude && !r->threads && p->tid != p->pid)
			continue;	/* a main-thread rule */
		rc = policy_selects(r, p);
		if (rc == 1) {
			rc = out_of_scope(r, p, res);
			rc = rc < 0 ? rc : !rc;
		}
		if (rc < 0)
			return rc;
		if (!rc)
			continue;
		res->matched++;
		if (r->exclude) {
			/* every later rule in the order has a lower or equal priority */
			res->excluded_by = (int)idx;
			stopped = true;
			continue;
		}
		take(r, idx, res);
	}
	return 0;
}
