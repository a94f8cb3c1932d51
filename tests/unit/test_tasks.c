/*
 * tasks.c on a fake /proc tree ($UCLAMPCTL_SYSROOT, set before the first
 * sysroot call) with scripted sched_getattr answers: selectors, gone tasks,
 * the plan builder's accounting and its per-task refusals. sched_setattr
 * must never be called while planning.
 *
 * The fake system:
 *   100 app     uid 1000  threads 100 (other 0/1024), 101 (other 0/300), 102 (batch 0/1024)
 *   200 rtproc  uid 0     thread 200 (fifo 1024/1024: the RT default min)
 *   300 other   uid 1000  thread 300 (other 500/1024)
 *   400 dying   uid 1000  getattr ESRCH: exits during the walk
 *   500 locked  uid 0     getattr EPERM
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "uclamp/cgroup.h"
#include "uclamp/config.h"
#include "uclamp/identity.h"
#include "uclamp/plan.h"
#include "uclamp/tasks.h"
#include "uclamp/value.h"
#include "fakeroot.h"

static char root[256];
static const struct fr_suite suite = { root, sizeof(root), "test-tasks", true, { NULL } };

/* ---- scripted kernel ---- */
struct ktask {
	pid_t tid;
	int policy, min, max, flags, err;
};
static struct ktask ktasks[] = {
	{ 100, 0, 0, 1024, 0, 0 }, { 101, 0, 0, 300, 0, 0 }, { 102, 3, 0, 1024, 0, 0 },
	{ 200, 1, 1024, 1024, 0, 0 }, { 300, 0, 500, 1024, 0, 0 },
	{ 400, 0, 0, 1024, 0, ESRCH }, { 500, 0, 0, 1024, 0, EPERM },
	/* only in the tests that lay them out: init, a kernel thread, a zombie */
	{ 1, 0, 0, 1024, 0, 0 }, { 700, 0, 0, 1024, 0, 0 }, { 800, 0, 0, 1024, 0, 0 },
	{ 701, 0, 0, 1024, 0, 0 }, { 702, 0, 0, 1024, 0, 0 }, { 703, 0, 0, 1024, 0, 0 },
	{ 704, 0, 0, 1024, 0, 0 }, { 705, 0, 0, 1024, 0, 0 }, { 706, 0, 0, 1024, 0, 0 },
};
static int ngetattr, nsetattr;

static int fake_getattr(pid_t tid, struct uc_sched_attr *a, unsigned int size, unsigned int flags)
{
	ngetattr++;
	for (size_t i = 0; i < sizeof(ktasks) / sizeof(ktasks[0]); i++) {
		const struct ktask *k = &ktasks[i];

		if (k->tid != tid)
			continue;
		if (k->err) {
			errno = k->err;
			return -1;
		}
		*a = (struct uc_sched_attr){
			.size = 56,
			.sched_policy = (uint32_t)k->policy,
			.sched_flags = (uint64_t)k->flags,
			.sched_priority = k->policy == 1 ? 10 : 0,
			.sched_nice = k->tid == 300 ? 7 : 0,
			.sched_util_min = (uint32_t)k->min,
			.sched_util_max = (uint32_t)k->max,
		};
		return 0;
	}
	errno = ESRCH;
	return -1;
}

static int fake_setattr(pid_t tid, struct uc_sched_attr *a, unsigned int flags)
{
	nsetattr++;
	errno = ENOSYS;
	return -1;
}

static const struct uc_sched_syscalls fake = { .getattr = fake_getattr, .setattr = fake_setattr };

static struct ktask *ktask(pid_t tid)
{
	for (size_t i = 0; i < sizeof(ktasks) / sizeof(ktasks[0]); i++)
		if (ktasks[i].tid == tid)
			return &ktasks[i];
	return NULL;
}

/* ---- fake /proc ---- */
static void put(const char *rel, const char *text)
{
	assert_int_equal(fr_write(root, rel, text), 0);
}

static void rm(const char *rel)
{
	assert_int_equal(fr_remove(root, rel), 0);
}

static void status(pid_t pid, pid_t tgid, const char *name, unsigned uid)
{
	char rel[64], text[512];

	snprintf(rel, sizeof(rel), "proc/%d/status", (int)pid);
	/* only the first (real) uid counts */
	snprintf(text, sizeof(text),
		 "Name:\t%s\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t%d\n"
		 "Ngid:\t0\nPid:\t%d\nPPid:\t1\n"
		 "TracerPid:\t0\nUid:\t%u\t%u\t%u\t%u\nGid:\t0\t0\t0\t0\n",
		 name, (int)tgid, (int)pid, uid, uid + 1, uid + 2, uid + 3);
	put(rel, text);
}

static void process(pid_t pid, const char *name, unsigned uid, const pid_t *tids, size_t ntids)
{
	char rel[96], text[64];

	status(pid, pid, name, uid);
	snprintf(rel, sizeof(rel), "proc/%d/comm", (int)pid);
	snprintf(text, sizeof(text), "%s\n", name);
	put(rel, text);
	for (size_t i = 0; i < ntids; i++) {
		snprintf(rel, sizeof(rel), "proc/%d/task/%d/comm", (int)pid, (int)tids[i]);
		if (tids[i] == pid)
			snprintf(text, sizeof(text), "%s\n", name);
		else
			snprintf(text, sizeof(text), "worker-t%zu\n", i);
		put(rel, text);
	}
}

static void build_proc(void)
{
	static const pid_t t100[] = { 100, 101, 102 }, t200[] = { 200 }, t300[] = { 300 },
			   t400[] = { 400 };

	rm("proc");
	process(100, "app", 1000, t100, 3);
	process(200, "rtproc", 0, t200, 1);
	process(300, "other", 1000, t300, 1);
	process(400, "dying", 1000, t400, 1);
	process(500, "locked", 0, NULL, 0);	/* no task dir: gone with --threads */
	put("proc/self", "");			/* non-numeric entries are skipped */
	/* hostile names: one parsed past 9 digits would wrap, as a pid_t, onto 100
	 * and 101 (2^32 + 100, + 101): a second visit of a real task */
	put("proc/4294967396", "");
	put("proc/100/task/4294967397", "");
	put("proc/12x", "");
	put("proc/100/task/10x1", "");
	put("proc/100/task/-101", "");
	put("proc/sys/kernel/osrelease", "6.1.192\n");
	put("proc/sys/kernel/sched_util_clamp_min_rt_default", "1024\n");
}

/* ---- collecting walks ---- */
struct seen {
	pid_t pid[32], tid[32];
	char comm[32][16];
	size_t n;
};

static int collect(const struct uc_task *t, void *data)
{
	struct seen *s = data;

	assert_true(s->n < 32);
	s->pid[s->n] = t->pid;
	s->tid[s->n] = t->tid;
	memcpy(s->comm[s->n], t->comm, 16);
	s->n++;
	return 0;
}

static int idx(const struct seen *s, pid_t tid)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->tid[i] == tid)
			return (int)i;
	return -1;
}

static void expect_tids(const struct seen *s, const pid_t *want, size_t n)
{
	assert_int_equal(s->n, n);
	for (size_t i = 0; i < n; i++)
		if (idx(s, want[i]) < 0)
			fail_msg("tid %d not visited", (int)want[i]);
}

/*
 * The command line's selection as task.c builds it: one rule (rt yes, a
 * named PID taken even as a kernel thread), the walk's flags for --all.
 */
struct sel {
	const pid_t *pids;
	size_t npids;
	bool all, kernel_threads, threads, need_comm;
	const int *policies;
	size_t npolicies;
	const uid_t *uids;
	size_t nuids;
	char *const *comms;
	size_t ncomms;
	const char *cgroup;	/* a pattern, as --cgroup takes it */
};

struct want {
	int min, max, reset_on_fork;
	uc_refusal_fn on_refusal;
	void *data;
};

static void sel_rule(const struct sel *sel, const struct want *want, struct uc_rule *r,
		     const char **cgv)
{
	*r = (struct uc_rule){
		.comm = { (const char *const *)sel->comms, sel->ncomms },
		.uids = sel->uids, .nuids = sel->nuids,
		.policies = sel->policies, .npolicies = sel->npolicies,
		.threads = sel->threads, .rt = true,
		.kthreads = sel->kernel_threads || sel->npids,
		.min = want ? want->min : UC_KEEP, .max = want ? want->max : UC_KEEP,
		.reset_on_fork = want ? want->reset_on_fork : UC_KEEP,
	};
	if (sel->cgroup) {
		cgv[0] = sel->cgroup;
		r->cgroup = (struct uc_strs){ cgv, 1 };
	}
}

static unsigned sel_flags(const struct sel *sel)
{
	return UC_WALK_ID_AS_GIVEN | (sel->all ? UC_WALK_SKIP_INIT : 0) |
	       (sel->need_comm ? UC_WALK_COMM : 0);
}

/* the selection (and want's settings) as a compiled rule set of one rule */
struct sel_rules {
	const char *cgv[1];
	struct uc_rule r;
	struct uc_rules rs;
};

static struct uc_rules *sel_rules(const struct sel *sel, const struct want *want,
				  struct sel_rules *sr)
{
	sel_rule(sel, want, &sr->r, sr->cgv);
	assert_int_equal(uc_rules_init(&sr->rs, &sr->r, 1), 0);
	return &sr->rs;
}

static int walk_sel(const struct sel *sel, uc_task_fn fn, void *data, struct uc_walk_stats *st)
{
	struct sel_rules sr;
	int rc = uc_tasks_walk(sel_rules(sel, NULL, &sr), sel->pids, sel->npids, sel_flags(sel),
			       fn, data, st);

	uc_rules_free(&sr.rs);
	return rc;
}

static int plan_sel(struct uc_plan *p, const struct sel *sel, const struct want *want,
		    struct uc_walk_stats *st)
{
	struct sel_rules sr;
	int rc = uc_tasks_plan(p, sel_rules(sel, want, &sr), sel->pids, sel->npids, sel_flags(sel),
			       want->on_refusal, want->data, st);

	uc_rules_free(&sr.rs);
	return rc;
}

static int setup(void **state)
{
	(void)state;
	build_proc();
	ngetattr = nsetattr = 0;
	uc_sched_set_syscalls(&fake);
	return 0;
}

static void test_all_main_threads(void **state)
{
	struct sel sel = { .all = true };
	struct uc_walk_stats st;
	struct seen s = { .n = 0 };
	static const pid_t want[] = { 100, 200, 300 };

	(void)state;
	assert_int_equal(walk_sel(&sel, collect, &s, &st), 0);
	expect_tids(&s, want, 3);
	assert_int_equal(st.seen, 3);
	assert_int_equal(st.gone, 1);		/* 400 */
	assert_int_equal(st.failed, 1);		/* 500: EPERM */
	assert_int_equal(st.first_err, -EPERM);
	assert_int_equal(st.first_err_tid, 500);
	assert_string_equal(s.comm[0], "");	/* comm not read unless needed */
}

static void test_all_threads(void **state)
{
	struct sel sel = { .all = true, .threads = true, .need_comm = true };
	struct uc_walk_stats st;
	struct seen s = { .n = 0 };
	static const pid_t want[] = { 100, 101, 102, 200, 300 };

	(void)state;
	assert_int_equal(walk_sel(&sel, collect, &s, &st), 0);
	expect_tids(&s, want, 5);
	assert_int_equal(s.pid[idx(&s, 102)], 100);
	assert_string_equal(s.comm[idx(&s, 101)], "worker-t1");	/* the thread's own comm */
	assert_string_equal(s.comm[idx(&s, 100)], "app");
	assert_int_equal(st.gone, 2);		/* 400 (ESRCH), 500 (no task dir) */
	assert_int_equal(st.failed, 0);
}

static void test_policy_user_comm(void **state)
{
	static const int pol_fifo[] = { 1 }, pol_other[] = { 0 };
	static const uid_t u1000[] = { 1000 }, u1001[] = { 1001 };
	struct sel sel = {
		.all = true, .threads = true, .policies = pol_fifo, .npolicies = 1
	};
	char *comms[] = { "rtproc", "other", "nosuch" };
	struct seen s = { .n = 0 };
	static const pid_t fifo[] = { 200 }, other_uid1000[] = { 100, 101, 300 },
			   by_comm[] = { 200, 300 };

	(void)state;
	assert_int_equal(walk_sel(&sel, collect, &s, NULL), 0);
	expect_tids(&s, fifo, 1);

	/* policy per thread (102 is batch), user from status' real uid */
	sel = (struct sel){ .all = true,
				    .threads = true,
				    .policies = pol_other,
				    .npolicies = 1,
				    .uids = u1000,
				    .nuids = 1 };
	s.n = 0;
	assert_int_equal(walk_sel(&sel, collect, &s, NULL), 0);
	expect_tids(&s, other_uid1000, 3);

	/* effective uid */
	sel = (struct sel){ .all = true, .uids = u1001, .nuids = 1 };
	s.n = 0;
	assert_int_equal(walk_sel(&sel, collect, &s, NULL), 0);
	assert_int_equal(s.n, 0);

	sel = (struct sel){ .all = true, .comms = comms, .ncomms = 3 };
	s.n = 0;
	assert_int_equal(walk_sel(&sel, collect, &s, NULL), 0);
	expect_tids(&s, by_comm, 2);
	/* the name read for the selector */
	assert_string_equal(s.comm[idx(&s, 300)], "other");

	/* comm is the process name: a thread's name does not select it */
	comms[0] = "worker-t1";
	sel.ncomms = 1;
	s.n = 0;
	assert_int_equal(walk_sel(&sel, collect, &s, NULL), 0);
	assert_int_equal(s.n, 0);
}

static void test_explicit_pids(void **state)
{
	pid_t pids[] = { 300, 100, 300 };
	struct sel sel = { .pids = pids, .npids = 3 };
	struct uc_walk_stats st;
	struct seen s = { .n = 0 };
	static const pid_t two[] = { 300, 100 }, threads[] = { 300, 100, 101, 102 };

	(void)state;
	assert_int_equal(walk_sel(&sel, collect, &s, &st), 0);
	expect_tids(&s, two, 2);		/* each once */
	assert_int_equal(s.tid[0], 300);	/* in the order given */

	sel.threads = true;
	s.n = 0;
	assert_int_equal(walk_sel(&sel, collect, &s, &st), 0);
	expect_tids(&s, threads, 4);

	/* a missing PID: -ESRCH before any task is visited */
	pids[2] = 999;
	s.n = 0;
	ngetattr = 0;
	assert_int_equal(walk_sel(&sel, collect, &s, &st), -ESRCH);
	assert_int_equal(st.first_err_tid, 999);
	assert_int_equal(s.n, 0);
	assert_int_equal(ngetattr, 0);
}

static void test_explicit_thread_id(void **state)
{
	pid_t pids[] = { 101 };
	struct sel sel = { .pids = pids, .npids = 1 };
	struct seen s = { .n = 0 };
	static const pid_t one[] = { 101 }, group[] = { 100, 101, 102 };

	(void)state;
	/* /proc/TID exists (hidden from readdir); here only for this test */
	status(101, 100, "worker", 1000);
	assert_int_equal(walk_sel(&sel, collect, &s, NULL), 0);
	expect_tids(&s, one, 1);
	assert_int_equal(s.pid[0], 100);	/* its process */

	sel.threads = true;
	s.n = 0;
	assert_int_equal(walk_sel(&sel, collect, &s, NULL), 0);
	expect_tids(&s, group, 3);
	rm("proc/101");
}

static void test_cgroup_selector(void **state)
{
	struct uc_cg_info info = { .version = UC_CG_V2 };
	struct sel sel = { .all = true, .cgroup = "system.slice" };
	struct uc_walk_stats st;
	struct seen s = { .n = 0 };
	static const pid_t slice[] = { 100, 200 }, app[] = { 100 }, all[] = { 100, 200, 300 },
			   v1[] = { 300 };

	(void)state;
	snprintf(info.mount, sizeof(info.mount), "/sys/fs/cgroup");
	uc_cg_use(&info);
	put("proc/100/cgroup", "0::/system.slice/app.service\n");
	put("proc/200/cgroup", "0::/system.slice\n");
	put("proc/300/cgroup", "12:cpu,cpuacct:/grp\n0::/user.slice/user-1000.slice\n");
	put("proc/400/cgroup", "0::/system.slice/dying.service\n");
	/* outside our namespace: never matches */
	put("proc/500/cgroup", "0::/../../outside\n");

	/* the group and the groups below it */
	assert_int_equal(walk_sel(&sel, collect, &s, &st), 0);
	expect_tids(&s, slice, 2);
	assert_int_equal(st.gone, 1);		/* 400 matched, then exited */
	assert_int_equal(st.failed, 0);		/* 500 (EPERM) was never selected */

	sel.cgroup = "/system.slice/app.service/";
	s.n = 0;
	assert_int_equal(walk_sel(&sel, collect, &s, NULL), 0);
	expect_tids(&s, app, 1);

	sel.cgroup = "system.sl";		/* a prefix of a name is not a parent */
	s.n = 0;
	assert_int_equal(walk_sel(&sel, collect, &s, NULL), 0);
	assert_int_equal(s.n, 0);

	sel.cgroup = "";			/* the root: everything in the namespace */
	s.n = 0;
	assert_int_equal(walk_sel(&sel, collect, &s, NULL), 0);
	expect_tids(&s, all, 3);

	/* v1: the line that lists the cpu controller */
	info.version = UC_CG_V1;
	uc_cg_use(&info);
	sel.cgroup = "grp";
	s.n = 0;
	assert_int_equal(walk_sel(&sel, collect, &s, NULL), 0);
	expect_tids(&s, v1, 1);
}

/* ---- the plan builder ---- */
static struct uc_task_refusal refusals[8];
static size_t nrefusals;

static void on_refusal(const struct uc_task_refusal *r, void *data)
{
	assert_ptr_equal(data, &nrefusals);
	assert_true(nrefusals < 8);
	refusals[nrefusals++] = *r;
}

/* tid's change of attr, as the plan's readers see it (uc_plan_next): in a copy of the
 * plan's changes in order, so that c + 1 is the change after c */
static const struct uc_change *find(const struct uc_plan *p, pid_t tid, enum uc_attr attr)
{
	static struct uc_change v[32];
	struct uc_plan_it it = { 0 };
	const struct uc_change *c;
	size_t n = 0;

	while ((c = uc_plan_next(p, &it))) {
		assert_true(n < 32);
		v[n++] = *c;
	}
	for (size_t i = 0; i < n; i++)
		if (v[i].tid == tid && v[i].attr == attr)
			return &v[i];
	return NULL;
}

/* a fresh plan of want for sel (no refusals seen yet): planned */
static void plan_ok(struct uc_plan *p, const struct sel *sel,
		    const struct want *want, struct uc_walk_stats *st)
{
	nrefusals = 0;
	uc_plan_init(p);
	assert_int_equal(plan_sel(p, sel, want, st), 0);
}

/* the plan changes tid's attr from -> to */
static const struct uc_change *expect_change(const struct uc_plan *p, pid_t tid,
					     enum uc_attr attr, long from, long to)
{
	const struct uc_change *c = find(p, tid, attr);

	if (!c)
		fail_msg("no change of %d's attribute %d", (int)tid, (int)attr);
	if (c->from != from || c->to != to)
		fail_msg("%d's attribute %d: %ld -> %ld, expected %ld -> %ld", (int)tid,
			 (int)attr, c->from, c->to, from, to);
	return c;
}

static void test_plan_max_only(void **state)
{
	struct sel sel = { .all = true, .threads = true };
	struct want want = { .min = UC_KEEP, .max = 300, .reset_on_fork = UC_KEEP,
				     .on_refusal = on_refusal, .data = &nrefusals };
	struct uc_walk_stats st;
	struct uc_plan p;
	const struct uc_change *c;

	(void)state;
	plan_ok(&p, &sel, &want, &st);
	/* 100 and 102 change; 101 is already at 300 */
	assert_int_equal(p.n, 2);
	c = expect_change(&p, 100, UC_ATTR_MAX, 1024, 300);
	assert_true(c->flips);
	assert_int_equal(c->sa->sched_util_max, 1024);	/* the attributes read, to send back */
	assert_non_null(find(&p, 102, UC_ATTR_MAX));
	assert_null(find(&p, 100, UC_ATTR_MIN));	/* min not asked: not touched */
	assert_int_equal(p.unchanged, 1);
	assert_int_equal(p.gone, 2);			/* 400, 500 (no task dir) */
	/* 200 (fifo, min 1024) and 300 (min 500) would end with min > max */
	assert_int_equal(st.refused, 2);
	assert_int_equal(p.failed, 2);
	assert_int_equal(nrefusals, 2);
	for (size_t i = 0; i < nrefusals; i++) {
		if (refusals[i].tid == 200) {
			assert_int_equal(refusals[i].why, UC_REFUSE_RT_MAX_BELOW_MIN);
			assert_int_equal(refusals[i].policy, 1);
			assert_int_equal(refusals[i].cur_min, 1024);
			assert_int_equal(refusals[i].end_max, 300);
		} else {
			assert_int_equal(refusals[i].tid, 300);
			assert_int_equal(refusals[i].why, UC_REFUSE_MIN_GT_MAX);
			assert_int_equal(refusals[i].end_min, 500);
		}
	}
	assert_int_equal(nsetattr, 0);
	uc_plan_free(&p);

	/* with --min too, the RT task is fine */
	sel.threads = false;
	want.min = 100;
	plan_ok(&p, &sel, &want, &st);
	assert_int_equal(st.refused, 0);
	c = expect_change(&p, 200, UC_ATTR_MIN, 1024, 100);
	/* min and max of one TID sit next to each other (one setattr) */
	assert_ptr_equal(find(&p, 200, UC_ATTR_MAX), c + 1);
	assert_int_equal(p.failed, 1);	/* 500: EPERM */
	uc_plan_free(&p);
}

/* A --threads process whose threads mostly look alike: each one is planned from its own
 * attributes, whether it goes as the thread before or not (703 has another max, 705 is
 * at the value already, 706 has another policy, 702 exited before it was read); the
 * alike ones share records (a run). */
static void test_plan_threads_alike(void **state)
{
	static const pid_t tids[] = { 700, 701, 702, 703, 704, 705, 706 };
	pid_t pids[] = { 700 };
	struct sel sel = { .pids = pids, .npids = 1, .threads = true };
	struct want want = { .min = UC_KEEP, .max = 512, .reset_on_fork = UC_KEEP };
	struct uc_walk_stats st;
	struct uc_plan p;

	(void)state;
	process(700, "pool", 1000, tids, 7);
	ktask(702)->err = ESRCH;
	ktask(703)->max = 300;
	ktask(705)->max = 512;
	ktask(706)->policy = 3;
	plan_ok(&p, &sel, &want, &st);
	assert_int_equal(p.n, 5);
	assert_int_equal(p.unchanged, 1);
	assert_int_equal(p.gone, 1);
	assert_int_equal(st.seen, 6);
	for (size_t i = 0; i < 7; i++)
		if (tids[i] != 705 && tids[i] != 702)
			expect_change(&p, tids[i], UC_ATTR_MAX, tids[i] == 703 ? 300 : 1024, 512);
	assert_null(find(&p, 705, UC_ATTR_MAX));
	assert_null(find(&p, 702, UC_ATTR_MAX));
	assert_int_equal(find(&p, 706, UC_ATTR_MAX)->sa->sched_policy, 3);
	assert_int_equal(find(&p, 704, UC_ATTR_MAX)->sa->sched_policy, 0);
	assert_int_equal(p.nrec, 4);	/* 700-701, 703, 704, 706 */
	uc_plan_free(&p);
	ktask(702)->err = 0;
	ktask(703)->max = ktask(705)->max = 1024;
	ktask(706)->policy = 0;
}

static void test_plan_unchanged_no_entries(void **state)
{
	pid_t pids[] = { 100 };
	struct sel sel = { .pids = pids, .npids = 1 };
	struct want want = { .min = 0, .max = 1024, .reset_on_fork = 0 };
	struct uc_plan p;

	(void)state;
	plan_ok(&p, &sel, &want, NULL);
	assert_int_equal(p.n, 0);	/* already there: nothing to write, the key stays off */
	assert_int_equal(p.unchanged, 1);
	assert_false(uc_plan_flips(&p));
	uc_plan_free(&p);
}

static void test_plan_reset(void **state)
{
	struct sel sel = { .all = true, .threads = true };
	struct want want = { .min = UC_RESET, .max = UC_RESET, .reset_on_fork = UC_KEEP };
	struct uc_plan p;
	const struct uc_change *c;

	(void)state;
	plan_ok(&p, &sel, &want, NULL);
	/* 101 (max 300) and 300 (min 500) change; 100, 102 and the RT task are at their defaults */
	assert_int_equal(p.n, 2);
	c = find(&p, 101, UC_ATTR_MAX);
	assert_non_null(c);
	assert_int_equal(c->to, UC_RESET);	/* -1 goes to sched.c, which knows the kernel */
	assert_int_equal(find(&p, 300, UC_ATTR_MIN)->to, UC_RESET);
	assert_int_equal(p.unchanged, 3);
	uc_plan_free(&p);

	/* with rt_default 512 the RT task's 1024 is no longer its default */
	put("proc/sys/kernel/sched_util_clamp_min_rt_default", "512\n");
	plan_ok(&p, &sel, &want, NULL);
	assert_int_equal(p.n, 3);
	assert_non_null(find(&p, 200, UC_ATTR_MIN));
	assert_int_equal(p.unchanged, 2);
	uc_plan_free(&p);
}

static void test_plan_reset_on_fork(void **state)
{
	pid_t pids[] = { 100, 300 };
	struct sel sel = { .pids = pids, .npids = 2 };
	struct want want = { .min = UC_KEEP, .max = UC_KEEP, .reset_on_fork = 1 };
	struct uc_plan p;
	const struct uc_change *c;

	(void)state;
	ktask(300)->flags = UC_SCHED_FLAG_RESET_ON_FORK;	/* already set */
	plan_ok(&p, &sel, &want, NULL);
	assert_int_equal(p.n, 1);
	c = expect_change(&p, 100, UC_ATTR_RESET_ON_FORK, 0, 1);
	assert_false(c->flips);		/* no clamp flag: does not enable the key */
	assert_int_equal(p.unchanged, 1);
	uc_plan_free(&p);
	ktask(300)->flags = 0;
}

static void test_plan_bad_want(void **state)
{
	struct sel sel = { .all = true };
	struct want want = { .min = 1025, .max = UC_KEEP, .reset_on_fork = UC_KEEP };
	struct uc_plan p;

	(void)state;
	uc_plan_init(&p);
	assert_int_equal(plan_sel(&p, &sel, &want, NULL), -ERANGE);
	want.min = -3;
	assert_int_equal(plan_sel(&p, &sel, &want, NULL), -ERANGE);
	want = (struct want){ .min = 600, .max = 300, .reset_on_fork = UC_KEEP };
	assert_int_equal(plan_sel(&p, &sel, &want, NULL), -EINVAL);
	assert_int_equal(ngetattr, 0);
	assert_int_equal(p.n, 0);
	uc_plan_free(&p);
}

static void test_plan_missing_pid(void **state)
{
	pid_t pids[] = { 100, 424242 };
	struct sel sel = { .pids = pids, .npids = 2 };
	struct want want = { .min = 100, .max = UC_KEEP, .reset_on_fork = UC_KEEP };
	struct uc_walk_stats st;
	struct uc_plan p;

	(void)state;
	uc_plan_init(&p);
	assert_int_equal(plan_sel(&p, &sel, &want, &st), -ESRCH);
	assert_int_equal(st.first_err_tid, 424242);
	assert_int_equal(p.n, 0);	/* nothing planned, so nothing changes */
	uc_plan_free(&p);
}

static void test_helpers(void **state)
{
	char comm[16];
	uid_t uid = 0;
	int emin = -5, emax = -5;

	(void)state;
	assert_int_equal(uc_task_exists(100), 0);
	assert_int_equal(uc_task_exists(999), -ESRCH);
	assert_int_equal(uc_task_exists(0), -ESRCH);
	/* 'run' plans on itself, fake /proc or not */
	assert_int_equal(uc_task_exists(getpid()), 0);
	assert_int_equal(uc_task_comm(100, 102, comm, sizeof(comm)), 0);
	assert_string_equal(comm, "worker-t2");
	assert_int_equal(uc_task_comm(999, 999, comm, sizeof(comm)), -ESRCH);
	assert_int_equal(uc_task_uid(300, &uid), 0);
	assert_int_equal(uid, 1000);
	assert_int_equal(uc_task_uid(999, &uid), -ESRCH);

	put("proc/100/task/101/sched",
	    "app (101, #threads: 3)\n"
	    "-------------------------------------------------------------------\n"
	    "se.exec_start                                :      12345.678901\n"
	    "uclamp.min                                   :                    0\n"
	    "uclamp.max                                   :                  300\n"
	    "effective uclamp.min                         :                  210\n"
	    "effective uclamp.max                         :                  300\n");
	assert_int_equal(uc_task_effective(100, 101, &emin, &emax), 0);
	assert_int_equal(emin, 210);
	assert_int_equal(emax, 300);
	/* a kernel without the lines (no UCLAMP_TASK or SCHED_DEBUG) */
	put("proc/100/task/100/sched", "app (100, #threads: 3)\nse.exec_start :  1.0\n");
	assert_int_equal(uc_task_effective(100, 100, &emin, &emax), -ENODATA);
	assert_int_equal(uc_task_effective(100, 102, &emin, &emax), -ESRCH);
}


/* ---- rules: the /proc fill, kernel threads, zombies, PID 1, one-walk plans ---- */

/* /proc/PID/stat: fields 3.. after the comm (which may hold ") "). */
static void stat_file(pid_t pid, const char *comm, char state, pid_t ppid, unsigned long flags,
		      unsigned long long start)
{
	char rel[64], text[512];

	snprintf(rel, sizeof(rel), "proc/%d/stat", (int)pid);
	snprintf(text, sizeof(text),
		 "%d (%s) %c %d %d %d 0 -1 %lu 0 0 0 0 0 0 0 0 20 0 1 0 %llu 0 0\n", (int)pid, comm,
		 state, (int)ppid, (int)pid, (int)pid, flags, start);
	put(rel, text);
}

/* A process whose main thread has exited (a zombie) while its threads run: the main
 * thread is left out, every thread is planned, whichever comes first in the directory
 * (a thread after the main one is not taken for it). */
static void test_plan_zombie_main_threads(void **state)
{
	static const pid_t tids[] = { 700, 701, 702, 703, 704, 705, 706 };
	pid_t pids[] = { 700 };
	struct sel sel = { .pids = pids, .npids = 1, .threads = true };
	struct want want = { .min = UC_KEEP, .max = 512, .reset_on_fork = UC_KEEP };
	struct uc_plan p;

	(void)state;
	process(700, "pool", 1000, tids, 7);
	stat_file(700, "pool", 'Z', 1, 0x400040, 99);
	plan_ok(&p, &sel, &want, NULL);
	assert_int_equal(p.n, 6);
	assert_int_equal(p.gone, 1);
	assert_null(find(&p, 700, UC_ATTR_MAX));
	for (size_t i = 1; i < 7; i++)
		expect_change(&p, tids[i], UC_ATTR_MAX, 1024, 512);
	uc_plan_free(&p);
}

/* Each change carries its process's start time (/proc/PID/stat, read once for
 * all its threads): the identity the executor checks; 0 when it is not known. */
static void test_plan_identity(void **state)
{
	pid_t pids[] = { 100, 300 };
	struct sel sel = { .pids = pids, .npids = 2, .threads = true };
	struct want want = { .min = UC_KEEP, .max = 200, .reset_on_fork = UC_KEEP };
	struct uc_plan p;

	(void)state;
	stat_file(100, "app", 'S', 1, 0x400100, 4321);
	uc_plan_init(&p);
	assert_int_equal(plan_sel(&p, &sel, &want, NULL), 0);
	assert_int_equal(p.n, 3);	/* 100, 101, 102; 300 (min 500 > 200) is refused */
	for (pid_t tid = 100; tid <= 102; tid++)
		assert_true(find(&p, tid, UC_ATTR_MAX)->start == 4321);
	uc_plan_free(&p);
	/* no stat file: not known, the executor cannot check it */
	rm("proc/100/stat");
	uc_plan_init(&p);
	assert_int_equal(plan_sel(&p, &sel, &want, NULL), 0);
	assert_true(find(&p, 101, UC_ATTR_MAX)->start == 0);
	uc_plan_free(&p);
}

/* apply's [tasks] plan (collected, sorted, then copied into the run's plan)
 * keeps each change's start time: without it the executor cannot tell a
 * reused PID from the planned process and writes unchecked */
static void test_config_plan_identity(void **state)
{
	static const char text[] = "[tasks t]\ncomm = app\nthreads = yes\nmax = 200\n";
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct uc_config c;
	struct uc_plan p;
	struct uc_plan_it it = { 0 };
	const struct uc_change *ch;
	size_t nt = 0;

	(void)state;
	stat_file(100, "app", 'S', 1, 0x400100, 4321);
	assert_non_null(f);
	uc_config_init(&c);
	assert_int_equal(uc_config_load_stream(&c, f, "t.conf"), 0);
	fclose(f);
	assert_int_equal(uc_config_validate(&c), 0);
	uc_plan_init(&p);
	assert_int_equal(uc_config_plan(&c, &p), 0);
	while ((ch = uc_plan_next(&p, &it))) {
		if (ch->kind != UC_KIND_TASK)
			continue;
		assert_int_equal(ch->pid, 100);
		assert_true(ch->start == 4321);
		nt++;
	}
	assert_int_equal(nt, 3);	/* 100, 101, 102 of "app" */
	uc_plan_free(&p);
	uc_config_free(&c);
}

static void test_fill(void **state)
{
	static const char cmdline[] = "/usr/bin/python3\0-m\0http.server\0";
	struct uc_proc *p = calloc(1, sizeof(*p));
	char path[600], rel[64];
	FILE *f;

	(void)state;
	assert_non_null(p);
	/* a process with every file */
	process(600, "a) b", 1000, NULL, 0);
	stat_file(600, "a) b", 'S', 1, 0x400100, 98765);
	snprintf(path, sizeof(path), "%s/proc/600/cmdline", root);
	f = fopen(path, "w");
	assert_non_null(f);
	fwrite(cmdline, 1, sizeof(cmdline) - 1, f);
	fclose(f);
	assert_int_equal(fr_symlink(root, "proc/600/exe", "/usr/bin/python3.11"), 0);
	put("proc/1/comm", "init\n");
	uc_proc_reset(p, 600, 600, uc_task_fill, NULL);
	assert_int_equal(uc_task_fill(p,
				      UC_PF_COMM | UC_PF_STATUS | UC_PF_EXE | UC_PF_CMDLINE |
					      UC_PF_PARENT,
				      NULL),
			 0);
	assert_string_equal(p->comm, "a) b");
	assert_int_equal(p->uid, 1000);
	assert_int_equal(p->gid, 0);
	assert_string_equal(p->exe, "/usr/bin/python3.11");
	assert_string_equal(p->cmdline, "/usr/bin/python3 -m http.server");
	assert_string_equal(p->argv0, "python3");
	assert_true(p->have & UC_PF_STAT);	/* the parent needed the ppid */
	assert_int_equal(p->ppid, 1);
	assert_int_equal(p->state, 'S');
	assert_false(p->kthread);
	assert_int_equal(p->start_time, 98765);
	assert_string_equal(p->pcomm, "init");
	assert_int_equal(p->absent, 0);

	/* a kernel thread: PF_KTHREAD in stat, no exe, no cmdline */
	process(700, "kworker/0:1", 0, NULL, 0);
	stat_file(700, "kworker/0:1", 'I', 2, 0x04208060, 50);
	put("proc/700/cmdline", "");
	uc_proc_reset(p, 700, 700, uc_task_fill, NULL);
	assert_int_equal(uc_task_fill(p, UC_PF_STAT | UC_PF_EXE | UC_PF_CMDLINE, NULL), 0);
	assert_true(p->kthread);
	assert_int_equal(p->absent, UC_PF_EXE | UC_PF_CMDLINE);

	/* no stat (like the fake trees): status, and "child of kthreadd without cmdline" */
	uc_proc_reset(p, 300, 300, uc_task_fill, NULL);
	assert_int_equal(uc_task_fill(p, UC_PF_STAT, NULL), 0);
	assert_int_equal(p->state, 'S');
	assert_int_equal(p->ppid, 1);
	assert_false(p->kthread);
	snprintf(rel, sizeof(rel), "proc/300/status");
	put(rel, "Name:\tkthreadd-kid\nState:\tI (idle)\n"
	    "Tgid:\t300\nPid:\t300\nPPid:\t2\nUid:\t0\t0\t0\t0\n");
	uc_proc_reset(p, 300, 300, uc_task_fill, NULL);
	assert_int_equal(uc_task_fill(p, UC_PF_STAT, NULL), 0);
	assert_true(p->kthread);
	assert_int_equal(p->state, 'I');

	/* a stat the caller read already (watch's identity): taken, not read
	 * again (999 has no files: a read would be -ESRCH) */
	uc_proc_reset(p, 999, 999, uc_task_fill, NULL);
	uc_proc_take_stat(p, &(struct uc_stat){ .state = 'R', .ppid = 2, .flags = UC_PF_KTHREAD,
						 .start = 77 });
	assert_int_equal(uc_proc_need(p, UC_PF_STAT), 0);
	assert_true(p->kthread);
	assert_int_equal(p->ppid, 2);
	assert_int_equal(p->state, 'R');
	assert_int_equal(p->start_time, 77);

	/* gone */
	uc_proc_reset(p, 999, 999, uc_task_fill, NULL);
	assert_int_equal(uc_task_fill(p, UC_PF_STATUS, NULL), -ESRCH);
	uc_proc_reset(p, 999, 999, uc_task_fill, NULL);
	assert_int_equal(uc_task_fill(p, UC_PF_EXE, NULL), -ESRCH);
	free(p);
}

static void test_all_skips_kernel_threads(void **state)
{
	struct sel sel = { .all = true };
	struct uc_walk_stats st;
	struct seen s = { .n = 0 };
	pid_t pids[] = { 700 };
	static const pid_t user[] = { 100, 200, 300 }, with_k[] = { 100, 200, 300, 700 },
			   k[] = { 700 };

	(void)state;
	process(700, "kworker/0:1", 0, NULL, 0);
	stat_file(700, "kworker/0:1", 'I', 2, 0x04208060, 50);
	assert_int_equal(walk_sel(&sel, collect, &s, &st), 0);
	expect_tids(&s, user, 3);
	assert_int_equal(st.kthreads, 1);
	sel.kernel_threads = true;
	s.n = 0;
	assert_int_equal(walk_sel(&sel, collect, &s, &st), 0);
	expect_tids(&s, with_k, 4);
	assert_int_equal(st.kthreads, 0);
	/* named explicitly: taken */
	sel = (struct sel){ .pids = pids, .npids = 1 };
	s.n = 0;
	assert_int_equal(walk_sel(&sel, collect, &s, &st), 0);
	expect_tids(&s, k, 1);
}

static void test_plan_zombie_and_init(void **state)
{
	struct sel sel = { .all = true };
	struct want want = { .min = UC_KEEP, .max = 700, .reset_on_fork = UC_KEEP,
				     .on_refusal = on_refusal, .data = &nrefusals };
	struct uc_walk_stats st;
	struct uc_plan p;
	pid_t one[] = { 1 };
	size_t why[UC_SKIP_INIT + 1] = { 0 };

	(void)state;
	process(1, "init", 0, NULL, 0);
	process(800, "defunct", 1000, NULL, 0);
	stat_file(800, "defunct", 'Z', 1, 0x400000, 7);
	plan_ok(&p, &sel, &want, &st);
	assert_null(find(&p, 1, UC_ATTR_MAX));		/* PID 1 left alone under --all */
	assert_null(find(&p, 800, UC_ATTR_MAX));	/* a zombie is not "changed" */
	assert_non_null(find(&p, 100, UC_ATTR_MAX));
	assert_int_equal(st.skipped, 2);
	for (size_t i = 0; i < nrefusals; i++)
		if (refusals[i].why <= UC_SKIP_INIT)
			why[refusals[i].why]++;
	assert_int_equal(why[UC_SKIP_INIT], 1);
	assert_int_equal(why[UC_SKIP_ZOMBIE], 1);
	assert_int_equal(p.failed, st.refused + st.failed);	/* skips are not failures */
	assert_int_equal(p.gone, 2);			/* 400, and the zombie: it has exited */
	uc_plan_free(&p);

	/* PID 1 named: planned */
	sel = (struct sel){ .pids = one, .npids = 1 };
	plan_ok(&p, &sel, &want, &st);
	assert_non_null(find(&p, 1, UC_ATTR_MAX));
	assert_int_equal(st.skipped, 0);
	uc_plan_free(&p);
}

/* a fresh plan of the 4 rules v for every task (refusals collected from none): planned */
static void rules_plan_ok(struct uc_plan *p, struct uc_rules *rs, const struct uc_rule *v,
			  struct uc_walk_stats *st)
{
	nrefusals = 0;
	assert_int_equal(uc_rules_init(rs, v, 4), 0);
	uc_plan_init(p);
	assert_int_equal(uc_tasks_plan(p, rs, NULL, 0, UC_WALK_COMM, on_refusal, &nrefusals, st), 0);
}

static void test_several_users_and_policies(void **state)
{
	static const uid_t users[] = { 0, 1000 };
	static const int pols[] = { 3, 1 };	/* batch, fifo */
	struct sel sel = { .all = true, .threads = true, .uids = users, .nuids = 2,
				   .policies = pols, .npolicies = 2 };
	struct seen s = { .n = 0 };
	static const pid_t want[] = { 102, 200 };

	(void)state;
	assert_int_equal(walk_sel(&sel, collect, &s, NULL), 0);
	expect_tids(&s, want, 2);
}

static void test_plan_rules(void **state)
{
	static const uid_t u1000[] = { 1000 };
	static const int batch[] = { 3 };
	static const char *const app[] = { "app" }, *const oth[] = { "oth*" };
	struct uc_rule v[4] = {
		{ .uids = u1000,
		  .nuids = 1,
		  .threads = true,
		  .min = UC_KEEP,
		  .max = 900,
		  .reset_on_fork = UC_KEEP },
		{ .comm = { app, 1 }, .min = 100, .max = UC_KEEP, .reset_on_fork = UC_KEEP },
		{ .policies = batch,
		  .npolicies = 1,
		  .threads = true,
		  .min = UC_KEEP,
		  .max = 800,
		  .reset_on_fork = UC_KEEP },
		{ .comm = { oth, 1 },
		  .exclude = true,
		  .min = UC_KEEP,
		  .max = UC_KEEP,
		  .reset_on_fork = UC_KEEP },
	};
	struct uc_rules rs;
	struct uc_walk_stats st;
	struct uc_plan p;
	const struct uc_change *c;

	(void)state;
	ngetattr = 0;
	rules_plan_ok(&p, &rs, v, &st);
	/* 100: min from rule 1 (main thread), max from rule 0; 101: max 300 -> 900; 102 (batch):
	 * rule 2 is later, max 800; 300 ("other") excluded; 200 (root, fifo) matches nothing */
	assert_int_equal(p.n, 4);
	c = find(&p, 100, UC_ATTR_MIN);
	assert_non_null(c);
	assert_int_equal(c->to, 100);
	assert_int_equal(find(&p, 100, UC_ATTR_MAX)->to, 900);
	assert_int_equal(find(&p, 101, UC_ATTR_MAX)->to, 900);
	assert_null(find(&p, 101, UC_ATTR_MIN));	/* rule 1 is not a threads rule */
	assert_int_equal(find(&p, 102, UC_ATTR_MAX)->to, 800);
	assert_null(find(&p, 300, UC_ATTR_MAX));
	assert_int_equal(p.unchanged, 0);		/* excluded is not "unchanged" */
	assert_int_equal(st.failed, 0);
	uc_plan_free(&p);
	uc_rules_free(&rs);

	/* a priority above the exclude and above the later rule */
	v[0].priority = 1;
	rules_plan_ok(&p, &rs, v, &st);
	assert_int_equal(find(&p, 102, UC_ATTR_MAX)->to, 900);
	assert_int_equal(find(&p, 300, UC_ATTR_MAX)->to, 900);
	uc_plan_free(&p);
	uc_rules_free(&rs);

	/* a refusal names the rule whose value was refused: 300 has min 500 */
	v[0].max = 400;
	rules_plan_ok(&p, &rs, v, &st);
	assert_int_equal(st.refused, 1);
	assert_int_equal(nrefusals, 1);
	assert_int_equal(refusals[0].tid, 300);
	assert_int_equal(refusals[0].rule, 0);
	uc_plan_free(&p);
	uc_rules_free(&rs);

	/* one process (the daemon after an exec): its threads, nothing else */
	{
		pid_t one[] = { 100 }, gone[] = { 999 };

		assert_int_equal(uc_rules_init(&rs, v, 4), 0);
		uc_plan_init(&p);
		assert_int_equal(uc_tasks_plan(&p, &rs, one, 1, UC_WALK_COMM, NULL, NULL, &st), 0);
		assert_non_null(find(&p, 101, UC_ATTR_MAX));
		assert_non_null(find(&p, 102, UC_ATTR_MAX));
		assert_null(find(&p, 300, UC_ATTR_MAX));
		assert_int_equal(st.seen, 3);
		uc_plan_free(&p);
		uc_plan_init(&p);
		assert_int_equal(uc_tasks_plan(&p, &rs, gone, 1, UC_WALK_COMM, NULL, NULL, &st), -ESRCH);
		assert_int_equal(p.n, 0);
		uc_plan_free(&p);
		uc_rules_free(&rs);
	}

	/* a value no task can take: before any task is read */
	v[1].min = 2000;
	ngetattr = 0;
	assert_int_equal(uc_rules_init(&rs, v, 4), 0);
	uc_plan_init(&p);
	assert_int_equal(uc_tasks_plan(&p, &rs, NULL, 0, UC_WALK_COMM, NULL, NULL, &st), -ERANGE);
	assert_int_equal(ngetattr, 0);
	uc_plan_free(&p);
	uc_rules_free(&rs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_all_main_threads, setup),
		cmocka_unit_test_setup(test_all_threads, setup),
		cmocka_unit_test_setup(test_policy_user_comm, setup),
		cmocka_unit_test_setup(test_explicit_pids, setup),
		cmocka_unit_test_setup(test_explicit_thread_id, setup),
		cmocka_unit_test_setup(test_cgroup_selector, setup),
		cmocka_unit_test_setup(test_plan_max_only, setup),
		cmocka_unit_test_setup(test_plan_threads_alike, setup),
		cmocka_unit_test_setup(test_plan_zombie_main_threads, setup),
		cmocka_unit_test_setup(test_plan_unchanged_no_entries, setup),
		cmocka_unit_test_setup(test_plan_reset, setup),
		cmocka_unit_test_setup(test_plan_reset_on_fork, setup),
		cmocka_unit_test_setup(test_plan_bad_want, setup),
		cmocka_unit_test_setup(test_plan_missing_pid, setup),
		cmocka_unit_test_setup(test_helpers, setup),
		cmocka_unit_test_setup(test_plan_identity, setup),
		cmocka_unit_test_setup(test_config_plan_identity, setup),
		cmocka_unit_test_setup(test_fill, setup),
		cmocka_unit_test_setup(test_all_skips_kernel_threads, setup),
		cmocka_unit_test_setup(test_plan_zombie_and_init, setup),
		cmocka_unit_test_setup(test_several_users_and_policies, setup),
		cmocka_unit_test_setup(test_plan_rules, setup),
	};

	return fr_run(&suite, tests, NULL, NULL);
}
