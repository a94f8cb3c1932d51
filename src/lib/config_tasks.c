/*
 * [tasks NAME] sections of the configuration (see config.h): the keys
 * (selectors and settings), the checks that need every file, the sections
 * as rules (rules.h) and the plan from them: one walk over /proc for all
 * sections. config.c reads the lines and calls uc_conf_tasks_key for each
 * key of a [tasks] section.
 */
#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uclamp/cgroup.h"
#include "uclamp/config.h"
#include "uclamp/pid.h"
#include "uclamp/rules.h"
#include "uclamp/sched.h"
#include "uclamp/tasks.h"

static void free_words(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void strs_free(struct uc_conf_strs *l)
{
	free_words(l->v, l->n);
	memset(l, 0, sizeof(*l));
}

void uc_conf_tasks_free(struct uc_conf_tasks *t)
{
	free(t->name);
	free_words(t->comms, t->ncomms);
	free(t->uids);
	free(t->policies);
	free(t->gids);
	strs_free(&t->cgroup);
	strs_free(&t->exe);
	strs_free(&t->argv0);
	strs_free(&t->cmdline);
	strs_free(&t->parent);
}

/* Split a list at white space and commas into a NULL-free vector of copies. */
static int split_list(const char *s, char ***out, size_t *n)
{
	const char *sep = " \t,";
	char **v = NULL;
	size_t k = 0;

	while (*s) {
		size_t len;
		char **nv;

		s += strspn(s, sep);
		len = strcspn(s, sep);
		if (!len)
			break;
		nv = realloc(v, (k + 1) * sizeof(*v));
		if (!nv || !(nv[k] = strndup(s, len))) {
			free_words(nv ? nv : v, k);
			return -ENOMEM;
		}
		v = nv;
		k++;
		s += len;
	}
	*out = v;
	*n = k;
	return 0;
}

/* The checks below record their errors; they return false when one failed,
 * or -ENOMEM through *err. */
struct ctx {
	struct uc_config *c;
	const struct uc_conf_loc *loc;
	const char *sec;
	int err;
};

#define ERR(x, ...) do { \
	if (uc_config_error((x)->c, (x)->loc, -EINVAL, __VA_ARGS__)) \
		(x)->err = -ENOMEM; \
} while (0)

/* comm and parent: a name longer than the kernel keeps never matches (a glob may be longer). */
static bool check_comms(struct ctx *x, const char *key, char **words, size_t n)
{
	bool ok = true;

	for (size_t i = 0; i < n; i++)
		if (strlen(words[i]) > UC_COMM_MAX && !uc_rule_is_glob(words[i])) {
			ERR(x, "%s '%s' in %s is longer than %d characters, the kernel's limit, so it never matches (use its first %d)",
			    key, words[i], x->sec, UC_COMM_MAX, UC_COMM_MAX);
			ok = false;
		}
	return ok;
}

static bool check_cgroups(struct ctx *x, char **words, size_t n)
{
	bool ok = true;

	for (size_t i = 0; i < n; i++) {
		const char *s = words[i];

		for (const char *d = strstr(s, ".."); d; d = strstr(d + 1, ".."))
			if ((d == s || d[-1] == '/') && (d[2] == '\0' || d[2] == '/')) {
				ERR(x, "cgroup '%s' in %s has a '..' component: give the path from the cpu hierarchy's root (a glob may use * and ?)",
				    s, x->sec);
				ok = false;
				break;
			}
	}
	return ok;
}

/* User or group names -> IDs in out[]. False when one is unknown. */
static bool resolve_ids(struct ctx *x, char **words, size_t n, unsigned *out, bool group)
{
	bool ok = true;

	for (size_t i = 0; i < n; i++)
		if (group ? uc_gid_parse(words[i], &out[i]) : uc_uid_parse(words[i], &out[i])) {
			ERR(x, "unknown %s '%s' in %s: use a %s name or a numeric %s", group ? "group" : "user",
			    words[i], x->sec, group ? "group" : "user", group ? "GID" : "UID");
			ok = false;
		}
	return ok;
}

static bool resolve_policies(struct ctx *x, char **words, size_t n, int *out)
{
	bool ok = true;

	for (size_t i = 0; i < n; i++) {
		out[i] = uc_policy_parse(words[i]);
		if (out[i] < 0) {
			ERR(x, "unknown policy '%s' in %s: use other, batch, idle, fifo, rr, deadline or ext",
			    words[i], x->sec);
			ok = false;
		}
	}
	return ok;
}

enum list { L_COMM, L_USER, L_POLICY, L_GROUP };

/* comm, user, policy: a list that replaces the one of an earlier file. */
static void set_list(struct ctx *x, struct uc_conf_tasks *t, enum list k, const char *key, const char *val)
{
	char **words;
	size_t n;
	void *ids = NULL;
	bool ok;

	if (split_list(val, &words, &n)) {
		x->err = -ENOMEM;
		return;
	}
	if (!n) {
		ERR(x, "%s in %s is empty: give one or more names", key, x->sec);
		free(words);
		return;
	}
	if (k == L_COMM) {
		if (!check_comms(x, key, words, n)) {
			free_words(words, n);
			return;
		}
		free_words(t->comms, t->ncomms);
		t->comms = words;
		t->ncomms = n;
		t->comm_set = true;
		t->comm_loc = *x->loc;
		return;
	}
	ids = calloc(n, k == L_USER ? sizeof(uid_t) : k == L_GROUP ? sizeof(gid_t) : sizeof(int));
	if (!ids) {
		x->err = -ENOMEM;
		free_words(words, n);
		return;
	}
	ok = k == L_POLICY ? resolve_policies(x, words, n, ids)
			   : resolve_ids(x, words, n, ids, k == L_GROUP);
	free_words(words, n);
	if (!ok) {
		free(ids);
		return;
	}
	if (k == L_USER) {
		free(t->uids);
		t->uids = ids;
		t->nuids = n;
		t->user_set = true;
		t->user_loc = *x->loc;
	} else if (k == L_GROUP) {
		free(t->gids);
		t->gids = ids;
		t->ngids = n;
		t->group_set = true;
		t->group_loc = *x->loc;
	} else {
		free(t->policies);
		t->policies = ids;
		t->npolicies = n;
		t->policy_set = true;
		t->policy_loc = *x->loc;
	}
}

/* cgroup, exe, argv0, parent: a list of names or globs; cmdline: the whole value is one glob. */
static void set_strs(struct ctx *x, struct uc_conf_strs *dst, const char *key, const char *val)
{
	char **words;
	size_t n;

	if (!strcmp(key, "cmdline")) {
		words = malloc(sizeof(*words));
		n = 1;
		if (!words || !(words[0] = strdup(val))) {
			free(words);
			x->err = -ENOMEM;
			return;
		}
		if (!*val) {
			n = 0;
			free(words[0]);
		}
	} else if (split_list(val, &words, &n)) {
		x->err = -ENOMEM;
		return;
	}
	if (!n) {
		ERR(x, "%s in %s is empty: give one or more %s", key, x->sec,
		    !strcmp(key, "cmdline") ? "words or a glob" : "names or globs");
		free(words);
		return;
	}
	if ((!strcmp(key, "parent") && !check_comms(x, key, words, n)) ||
	    (!strcmp(key, "cgroup") && !check_cgroups(x, words, n))) {
		free_words(words, n);
		return;
	}
	strs_free(dst);
	*dst = (struct uc_conf_strs){ .set = true, .loc = *x->loc, .v = words, .n = n };
}

#define UC_PRIORITY_MAX 1000000

static void set_priority(struct ctx *x, struct uc_conf_tasks *t, const char *val)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(val, &end, 10);
	if (!*val || *end || errno || v < -UC_PRIORITY_MAX || v > UC_PRIORITY_MAX) {
		ERR(x, "invalid value '%s' for priority in %s: use a whole number from %d to %d (higher wins)",
		    val, x->sec, -UC_PRIORITY_MAX, UC_PRIORITY_MAX);
		return;
	}
	t->priority = (int)v;
	t->priority_set = true;
	t->priority_loc = *x->loc;
}

/* Every key uc_conf_tasks_key knows, for "use ..." hints: keep it next to the key tables. */
const char uc_conf_tasks_keys[] = "comm, user, group, policy, cgroup, exe, argv0, cmdline, parent, "
				  "min, max, reset-on-fork, threads, rt, kernel-threads, priority "
				  "or exclude";

int uc_conf_tasks_key(struct uc_config *c, struct uc_conf_tasks *t, const char *key, const char *value,
		      const struct uc_conf_loc *loc)
{
	static const char *const lists[] = {
		[L_COMM] = "comm", [L_USER] = "user", [L_POLICY] = "policy", [L_GROUP] = "group",
	};
	const struct {
		const char *name;
		struct uc_conf_strs *dst;
	} strs[] = {
		{ "cgroup", &t->cgroup }, { "exe", &t->exe }, { "argv0", &t->argv0 },
		{ "cmdline", &t->cmdline }, { "parent", &t->parent },
	};
	const struct {
		const char *name;
		struct uc_conf_bool *dst;
	} bools[] = {
		{ "threads", &t->threads }, { "rt", &t->rt }, { "kernel-threads", &t->kernel_threads },
	};
	char sec[PATH_MAX + 32];
	struct ctx x = { c, loc, sec, 0 };

	snprintf(sec, sizeof(sec), "[tasks %s]", t->name);
	for (size_t k = 0; k < sizeof(lists) / sizeof(lists[0]); k++)
		if (!strcmp(key, lists[k])) {
			t->had_selector = true;
			set_list(&x, t, k, key, value);
			return x.err;
		}
	for (size_t k = 0; k < sizeof(strs) / sizeof(strs[0]); k++)
		if (!strcmp(key, strs[k].name)) {
			t->had_selector = true;
			set_strs(&x, strs[k].dst, key, value);
			return x.err;
		}
	if (!strcmp(key, "min") || !strcmp(key, "max")) {
		t->had_setting = true;
		return uc_conf_set_value(c, key[1] == 'i' ? &t->min : &t->max, key, sec, value, loc);
	}
	if (!strcmp(key, "reset-on-fork")) {
		t->had_setting = true;
		return uc_conf_set_bool(c, &t->reset_on_fork, key, sec, value, loc);
	}
	if (!strcmp(key, "exclude")) {
		t->had_setting = true;	/* "leave alone" is what it does */
		return uc_conf_set_bool(c, &t->exclude, key, sec, value, loc);
	}
	for (size_t k = 0; k < sizeof(bools) / sizeof(bools[0]); k++)
		if (!strcmp(key, bools[k].name))
			return uc_conf_set_bool(c, bools[k].dst, key, sec, value, loc);
	if (!strcmp(key, "priority")) {
		set_priority(&x, t, value);
		return x.err;
	}
	return -ENOENT;
}

static bool excludes(const struct uc_conf_tasks *t)
{
	return t->exclude.set && t->exclude.value;
}

void uc_conf_tasks_validate(struct uc_config *c, const struct uc_conf_tasks *t)
{
	bool sets = t->min.set || t->max.set || t->reset_on_fork.set;

	if (!t->had_selector)
		uc_config_error(c, &t->loc, -EINVAL,
				"[tasks %s] has no selector: add comm, user, group, policy, cgroup, exe, argv0, cmdline or parent (a task must match all of them)",
				t->name);
	if (!t->had_setting || (t->exclude.set && !t->exclude.value && !sets))
		uc_config_error(c, &t->loc, -EINVAL,
				"[tasks %s] sets nothing: add min, max or reset-on-fork (or exclude = yes)", t->name);
	if (excludes(t) && sets)
		uc_config_error(c, &t->exclude.loc, -EINVAL,
				"[tasks %s] has exclude = yes and values to set: an exclude leaves its tasks alone; move min, max and reset-on-fork to another section",
				t->name);
	if (t->min.set && t->max.set && t->min.v.util != UC_RESET && t->max.v.util != UC_RESET &&
	    t->min.v.util > t->max.v.util) {
		uc_config_error(c, &t->max.loc, -EINVAL, "[tasks %s] max %d is below min %d (set at %s:%d)",
				t->name, t->max.v.util, t->min.v.util, t->min.loc.file, t->min.loc.line);
	}
}

/* ---- the sections as rules, and the plan ---------------------------------- */

static struct uc_strs strs_of(const struct uc_conf_strs *l)
{
	return (struct uc_strs){ (const char *const *)l->v, l->set ? l->n : 0 };
}

struct uc_rule *uc_config_task_rules(const struct uc_config *c)
{
	struct uc_rule *v = calloc(c->ntasks ? c->ntasks : 1, sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < c->ntasks; i++) {
		const struct uc_conf_tasks *t = &c->tasks[i];

		v[i] = (struct uc_rule){
			.name = t->name, .origin = t,
			.comm = { (const char *const *)t->comms, t->comm_set ? t->ncomms : 0 },
			.uids = t->uids, .nuids = t->user_set ? t->nuids : 0,
			.gids = t->gids, .ngids = t->group_set ? t->ngids : 0,
			.policies = t->policies, .npolicies = t->policy_set ? t->npolicies : 0,
			.cgroup = strs_of(&t->cgroup), .exe = strs_of(&t->exe), .argv0 = strs_of(&t->argv0),
			.cmdline = strs_of(&t->cmdline), .parent = strs_of(&t->parent),
			.threads = t->threads.set && t->threads.value,
			.rt = t->rt.set && t->rt.value,
			.kthreads = t->kernel_threads.set && t->kernel_threads.value,
			.exclude = excludes(t),
			.priority = t->priority_set ? t->priority : 0,
			.min = t->min.set ? t->min.v.util : UC_KEEP,
			.max = t->max.set ? t->max.v.util : UC_KEEP,
			.reset_on_fork = t->reset_on_fork.set ? t->reset_on_fork.value : UC_KEEP,
		};
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
		snprintf(buf, n, "a real-time task's util_min is %d, so max %d alone would be refused; set min too",
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

		if (!t->cgroup.set)
			continue;
		uc_config_error(c, &t->cgroup.loc, -EOPNOTSUPP,
				"[tasks %s]: no cgroup hierarchy with the cpu controller is mounted, so its cgroup selector matches nothing",
				t->name);
		rc = -EOPNOTSUPP;
	}
	return rc;
}

static int report_walk(struct uc_config *c, const struct uc_walk_stats *st, const struct refusals *per)
{
	char why[160];
	int rc = 0;

	if (st->failed) {
		const struct uc_conf_tasks *t = &c->tasks[st->first_err_rule >= 0 ? (size_t)st->first_err_rule : 0];

		uc_config_error(c, &t->loc, st->first_err, "[tasks %s]: could not read %zu task(s) (tid %d: %s)",
				t->name, st->failed, (int)st->first_err_tid, strerror(-st->first_err));
		rc = st->first_err ? st->first_err : -EIO;
	}
	for (size_t i = 0; i < c->ntasks; i++) {
		const struct uc_task_refusal *r = &per[i].first;
		const struct uc_conf_tasks *t = &c->tasks[i];

		if (!per[i].n)
			continue;
		uc_config_error(c, &t->loc, -EINVAL, "[tasks %s]: %zu task(s) cannot take these values, e.g. pid %d tid %d%s%s%s: %s",
				t->name, per[i].n, (int)r->pid, (int)r->tid, *r->comm ? " (" : "", r->comm,
				*r->comm ? ")" : "", refusal_text(r, why, sizeof(why)));
		if (!rc)
			rc = -EINVAL;
	}
	return rc;
}

int uc_config_plan_tasks(struct uc_config *c, struct uc_plan *p)
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
	rc = uc_tasks_plan_rules(&acc, &rs, NULL, 0, on_refusal, per, &st);
	if (rc && rc != -ENOMEM)
		uc_config_error(c, &c->tasks[0].loc, rc, "[tasks %s]: cannot list the tasks: %s", c->tasks[0].name,
				strerror(-rc));
	if (!rc)
		rc = report_walk(c, &st, per);
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
	uc_rules_free(&rs);
	free(per);
	free(v);
	return rc;
}
