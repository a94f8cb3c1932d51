/*
 * test_exec.c: the executor (src/lib/exec.c) with scripted writes.
 *
 * Every write goes through a struct uc_exec_ops that records the call and
 * answers with the next scripted result, so the tests see exactly which
 * syscalls/file writes the executor makes, in which order, with which values.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "uclamp/plan.h"
#include "uclamp/plan_run.h"
#include "uclamp/sched.h"
#include "uclamp/value.h"
#include "plan_fixture.h"

/* ---- the scripted kernel ---------------------------------------------------- */

struct call {
	char op;		/* 't' task, 's' sysctl, 'c' cgroup, 'u' subtree */
	pid_t tid;
	size_t n;
	int min, max, rof;	/* task */
	enum uc_attr attr;	/* sysctl, cgroup */
	long value;		/* sysctl, cgroup, subtree */
	char path[64];
	uint32_t sa_policy;	/* the attributes the task call got */
};

#define MAX_CALLS 64
static struct call calls[MAX_CALLS];
static size_t ncalls;
static int script[MAX_CALLS];	/* result of call i (0 unless set) */

static int answer(struct call *c)
{
	size_t i = ncalls;

	assert_true(i < MAX_CALLS);
	calls[ncalls++] = *c;
	return script[i];
}

/* a clamp as the call sent it: its value, or UC_KEEP when the flag leaves it alone */
static int sent_clamp(const struct uc_sched_attr *a, uint64_t flag, uint32_t v)
{
	return a->sched_flags & flag ? (int)v : UC_KEEP;
}

/* The struct one sched_setattr sends, as the values the plan asked for: n counts the
 * attributes it changes (the changes of that TID the executor sent together). */
static int fake_task_setattr(pid_t tid, struct uc_sched_attr *a)
{
	struct call k = { .op = 't', .tid = tid, .sa_policy = a->sched_policy };

	k.min = sent_clamp(a, UC_SCHED_FLAG_UTIL_CLAMP_MIN, a->sched_util_min);
	k.max = sent_clamp(a, UC_SCHED_FLAG_UTIL_CLAMP_MAX, a->sched_util_max);
	/* reset-on-fork counts only without KEEP_POLICY (sched.c) */
	k.rof = a->sched_flags & UC_SCHED_FLAG_KEEP_POLICY
			? UC_KEEP : !!(a->sched_flags & UC_SCHED_FLAG_RESET_ON_FORK);
	k.n = (size_t)(k.min != UC_KEEP) + (k.max != UC_KEEP) + (k.rof != UC_KEEP);
	assert_int_equal(a->size, UC_SCHED_ATTR_SIZE_VER1);
	return answer(&k);
}

static int fake_sysctl_write(enum uc_attr attr, long value)
{
	struct call k = { .op = 's', .attr = attr, .value = value };

	return answer(&k);
}

static int fake_cgroup_write(const char *path, enum uc_attr attr, long pct100)
{
	struct call k = { .op = 'c', .attr = attr, .value = pct100 };

	snprintf(k.path, sizeof(k.path), "%s", path ? path : "(null)");
	return answer(&k);
}

static int fake_subtree_set(const char *path, int enable)
{
	struct call k = { .op = 'u', .value = enable };

	snprintf(k.path, sizeof(k.path), "%s", path ? path : "(null)");
	return answer(&k);
}

static const struct uc_exec_ops fake_ops = {
	.task_setattr = fake_task_setattr,
	.sysctl_write = fake_sysctl_write,
	.cgroup_write = fake_cgroup_write,
	.subtree_set = fake_subtree_set,
};

/* ---- identities and stop requests --------------------------------------------- */

static unsigned long long start_now[8];	/* pid -> its start time now (0: exited) */
static size_t nidentity;
static bool member_now[8];	/* tid -> still a thread of the process planned */
static pid_t member_asked[8];	/* the tids task_member was asked about, in order */
static size_t nmember;

static int fake_task_start(pid_t pid, pid_t tid, unsigned long long *start)
{
	(void)pid;
	assert_true(tid >= 0 && tid < 8);
	nidentity++;
	if (!start_now[tid])
		return -ESRCH;
	*start = start_now[tid];
	return 0;
}

static int fake_task_member(pid_t pid, pid_t tid)
{
	(void)pid;
	assert_true(tid >= 0 && tid < 8 && nmember < 8);
	member_asked[nmember++] = tid;
	return member_now[tid] ? 0 : -ESRCH;
}

/* A signal that arrives while write 'stop_at' is under way. */
static volatile sig_atomic_t stop;
static size_t stop_at = (size_t)-1;

static int stopping_sysctl_write(enum uc_attr attr, long value)
{
	if (ncalls == stop_at)
		stop = SIGTERM;
	return fake_sysctl_write(attr, value);
}

static int stopping_task_setattr(pid_t tid, struct uc_sched_attr *a)
{
	if (ncalls == stop_at)
		stop = SIGINT;
	return fake_task_setattr(tid, a);
}

/* fake_ops, with the identity check and the stop requests */
static const struct uc_exec_ops *checking_ops(void)
{
	static struct uc_exec_ops ops;

	ops = fake_ops;
	ops.task_setattr = stopping_task_setattr;
	ops.sysctl_write = stopping_sysctl_write;
	ops.task_start = fake_task_start;
	ops.task_member = fake_task_member;
	return &ops;
}

static int setup(void **state)
{
	(void)state;
	uc_plan_init(&plan);
	memset(calls, 0, sizeof(calls));
	memset(script, 0, sizeof(script));
	ncalls = 0;
	memset(start_now, 0, sizeof(start_now));
	nidentity = 0;
	memset(member_now, 0, sizeof(member_now));
	nmember = 0;
	stop = 0;
	stop_at = (size_t)-1;
	return 0;
}

/* TID's min 0 -> 100 and max 1024 -> 200, the usual pair of one task */
static void task_both(pid_t tid)
{
	plan_task(tid, UC_ATTR_MIN, 0, 100);
	plan_task(tid, UC_ATTR_MAX, 1024, 200);
}

/* max 1024 -> 200 for each TID from first to last */
static void tasks_max(pid_t first, pid_t last)
{
	for (pid_t tid = first; tid <= last; tid++)
		plan_task(tid, UC_ATTR_MAX, 1024, 200);
}

static void expect_task_call(size_t i, pid_t tid, size_t n, int min, int max, int rof)
{
	assert_true(i < ncalls);
	if (calls[i].op != 't' || calls[i].tid != tid || calls[i].n != n || calls[i].min != min ||
	    calls[i].max != max || calls[i].rof != rof)
		fail_msg("call %zu: op %c tid %d n %zu min %d max %d rof %d; "
			 "expected task %d n %zu %d %d %d",
			 i, calls[i].op, (int)calls[i].tid, calls[i].n, calls[i].min, calls[i].max,
			 calls[i].rof, (int)tid, n, min, max, rof);
	assert_int_equal(calls[i].sa_policy, (uint32_t)tid % 3);
}

static void expect_sysctl_call(size_t i, enum uc_attr attr, long value)
{
	assert_true(i < ncalls);
	assert_int_equal(calls[i].op, 's');
	assert_int_equal(calls[i].attr, attr);
	assert_int_equal(calls[i].value, value);
}

static void expect_cgroup_call(size_t i, const char *path, enum uc_attr attr, long value)
{
	assert_true(i < ncalls);
	assert_int_equal(calls[i].op, 'c');
	assert_string_equal(calls[i].path, path);
	assert_int_equal(calls[i].attr, attr);
	assert_int_equal(calls[i].value, value);
}

/* expect_states(UC_CH_DONE, UC_CH_FAILED): the plan has these changes, in these states */
#define STATES(...) ((const enum uc_change_state[]){ __VA_ARGS__ })
#define expect_states(...)                      \
	expect_states_are(STATES(__VA_ARGS__), \
			  sizeof(STATES(__VA_ARGS__)) / sizeof(enum uc_change_state))

static void expect_states_are(const enum uc_change_state *want, size_t n)
{
	struct uc_plan_it it = { 0 };
	const struct uc_change *c;

	assert_int_equal(plan.n, n);
	for (size_t i = 0; (c = uc_plan_next(&plan, &it)); i++)
		if (c->state != want[i])
			fail_msg("change %zu: state '%s', expected '%s'", i,
				 uc_change_state_name(c->state), uc_change_state_name(want[i]));
}

/* expect_report(&r, .done = 2, .rolled_back = 1): the fields not named are expected 0 */
#define expect_report(r, ...) expect_report_is((r), (struct uc_exec_report){ __VA_ARGS__ })

static void expect_report_is(const struct uc_exec_report *r, struct uc_exec_report w)
{
	if (r->done != w.done || r->failed != w.failed || r->gone != w.gone ||
	    r->rolled_back != w.rolled_back || r->rollback_failed != w.rollback_failed ||
	    r->skipped != w.skipped || r->first_err != w.first_err)
		fail_msg("report done %zu failed %zu gone %zu rolled_back %zu rollback_failed %zu "
			 "skipped %zu first_err %d; expected %zu %zu %zu %zu %zu %zu %d",
			 r->done, r->failed, r->gone, r->rolled_back, r->rollback_failed,
			 r->skipped, r->first_err, w.done, w.failed, w.gone, w.rolled_back,
			 w.rollback_failed, w.skipped, w.first_err);
}

/* ---- tests ------------------------------------------------------------------ */

static void test_empty_plan(void **state)
{
	struct uc_exec_report r = { .done = 99, .first_err = -1 };

	(void)state;
	assert_int_equal(uc_plan_execute(&plan, UC_EXEC_ATOMIC, &fake_ops, NULL, &r), 0);
	assert_int_equal(ncalls, 0);
	expect_report(&r, .done = 0);
}

/* Task changes in plan order, and the task_set calls the executor makes for them (best
 * effort; every change done). The lists end at TID 0. */
struct change_row {
	pid_t tid;
	enum uc_attr attr;
	long from, to;
};

struct call_row {
	pid_t tid;
	size_t n;
	int min, max, rof;
};

static struct calls_case {
	struct change_row changes[6];
	struct call_row calls[4];
} calls_cases[] = {
	/* min and max of one TID go in one syscall, with both values; 103 resets both */
	{ { { 101, UC_ATTR_MIN, 0, 100 }, { 101, UC_ATTR_MAX, 1024, 800 },
	    { 102, UC_ATTR_MAX, 1024, 300 },				/* max only */
	    { 103, UC_ATTR_MIN, 50, UC_RESET }, { 103, UC_ATTR_MAX, 500, UC_RESET },
	    { 104, UC_ATTR_RESET_ON_FORK, 0, 1 } },			/* the flag alone */
	  { { 101, 2, 100, 800, UC_KEEP }, { 102, 1, UC_KEEP, 300, UC_KEEP },
	    { 103, 2, UC_RESET, UC_RESET, UC_KEEP }, { 104, 1, UC_KEEP, UC_KEEP, 1 } } },
	/* min, max and the flag of one TID: still one call. Non-adjacent changes of the same
	 * TID are separate calls (the plan's builder keeps them together). */
	{ { { 7, UC_ATTR_MAX, 1024, 600 }, { 7, UC_ATTR_RESET_ON_FORK, 0, 1 },
	    { 7, UC_ATTR_MIN, 0, 10 }, { 8, UC_ATTR_MIN, 0, 10 }, { 7, UC_ATTR_MIN, 10, 20 } },
	  { { 7, 3, 10, 600, 1 }, { 8, 1, 10, UC_KEEP, UC_KEEP },
	    { 7, 1, 20, UC_KEEP, UC_KEEP } } },
};

static void test_calls(void **state)
{
	const struct calls_case *c = *state;
	const struct change_row *ch = c->changes;
	const struct call_row *k = c->calls;
	struct uc_exec_report r;
	size_t nch = 0, ncall = 0;

	for (; nch < 6 && ch[nch].tid; nch++)
		plan_task(ch[nch].tid, ch[nch].attr, ch[nch].from, ch[nch].to);
	while (ncall < 4 && k[ncall].tid)
		ncall++;
	assert_int_equal(uc_plan_execute(&plan, UC_EXEC_BEST_EFFORT, &fake_ops, NULL, &r), 0);
	assert_int_equal(ncalls, ncall);
	for (size_t i = 0; i < ncall; i++)
		expect_task_call(i, k[i].tid, k[i].n, k[i].min, k[i].max, k[i].rof);
	assert_int_equal(plan.n, nch);
	for (size_t i = 0; i < nch; i++)
		if (plan.rec[i].state != UC_CH_DONE)
			fail_msg("change %zu: state '%s', expected 'done'", i,
				 uc_change_state_name(plan.rec[i].state));
	expect_report(&r, .done = nch);
}

/* Best effort: a failure does not stop the others; ESRCH is "gone". */
static void test_best_effort_continues(void **state)
{
	struct uc_exec_report r;

	(void)state;
	task_both(1);
	task_both(2);
	tasks_max(3, 5);
	script[1] = -EPERM;
	script[2] = -ESRCH;
	script[4] = -EINVAL;
	assert_int_equal(uc_plan_execute(&plan, UC_EXEC_BEST_EFFORT, &fake_ops, NULL, &r), -EPERM);
	assert_int_equal(ncalls, 5);	/* every TID was tried once; nothing undone */
	expect_task_call(0, 1, 2, 100, 200, UC_KEEP);
	expect_task_call(1, 2, 2, 100, 200, UC_KEEP);
	expect_task_call(2, 3, 1, UC_KEEP, 200, UC_KEEP);
	expect_task_call(3, 4, 1, UC_KEEP, 200, UC_KEEP);
	expect_task_call(4, 5, 1, UC_KEEP, 200, UC_KEEP);
	expect_states(UC_CH_DONE, UC_CH_DONE, UC_CH_FAILED, UC_CH_FAILED, UC_CH_GONE, UC_CH_DONE,
		      UC_CH_FAILED);
	assert_int_equal(plan.rec[2].err, -EPERM);
	assert_int_equal(plan.rec[3].err, -EPERM);
	assert_int_equal(plan.rec[4].err, 0);	/* gone is not an error */
	assert_int_equal(plan.rec[6].err, -EINVAL);
	assert_int_equal(plan.rec[0].err, 0);
	/* counters count changes; first_err is the first failure, not the last */
	expect_report(&r, .done = 3, .failed = 3, .gone = 1, .first_err = -EPERM);
}

/* Only gone tasks: success. */
static void test_gone_is_not_failure(void **state)
{
	struct uc_exec_report r;

	(void)state;
	task_both(1);
	plan_task(2, UC_ATTR_MAX, 1024, 200);
	script[0] = script[1] = -ESRCH;	/* both calls: the tasks are gone */
	assert_int_equal(uc_plan_execute(&plan, UC_EXEC_ATOMIC, &fake_ops, NULL, &r), 0);
	assert_int_equal(ncalls, 2);
	expect_report(&r, .gone = 3);
	for (size_t i = 0; i < plan.n; i++)
		assert_int_equal(plan.rec[i].state, UC_CH_GONE);
}

/* ESRCH means "gone" only for tasks: for a file it is a failure. */
static void test_esrch_on_a_file_fails(void **state)
{
	struct uc_exec_report r;

	(void)state;
	assert_non_null(uc_plan_add(&plan, UC_KIND_CGROUP, UC_ATTR_MIN, "a", 0, 100));
	script[0] = -ESRCH;
	assert_int_equal(uc_plan_execute(&plan, UC_EXEC_BEST_EFFORT, &fake_ops, NULL, &r), -ESRCH);
	assert_int_equal(plan.rec[0].state, UC_CH_FAILED);
	expect_report(&r, .failed = 1, .first_err = -ESRCH);
}

/* Atomic: the first failure undoes what was done, newest first, with the
 * 'from' values; the rest is not attempted. */
static void test_atomic_rolls_back_in_reverse(void **state)
{
	struct uc_exec_report r;

	(void)state;
	/* system min lowered before max (min <= max after every write) */
	assert_non_null(uc_plan_add(&plan, UC_KIND_SYSCTL, UC_ATTR_MIN, NULL, 1024, 200));
	assert_non_null(uc_plan_add(&plan, UC_KIND_SYSCTL, UC_ATTR_MAX, NULL, 1024, 800));
	assert_non_null(uc_plan_add(&plan, UC_KIND_SUBTREE, UC_ATTR_CPU_CONTROLLER, "app", 0, 1));
	assert_non_null(uc_plan_add(&plan, UC_KIND_CGROUP, UC_ATTR_MIN, "app/web", 0, 2050));
	assert_non_null(uc_plan_add(&plan, UC_KIND_CGROUP, UC_ATTR_MAX, "app/web", 10000, 8000));
	assert_non_null(uc_plan_add(&plan, UC_KIND_CGROUP, UC_ATTR_MIN, "app/db", 0, 1000));
	plan_task(9, UC_ATTR_MAX, 1024, 100);
	script[4] = -ERANGE;
	assert_int_equal(uc_plan_execute(&plan, UC_EXEC_ATOMIC, &fake_ops, NULL, &r), -ERANGE);
	assert_int_equal(ncalls, 9);
	expect_sysctl_call(0, UC_ATTR_MIN, 200);
	expect_sysctl_call(1, UC_ATTR_MAX, 800);
	assert_int_equal(calls[2].op, 'u');
	assert_string_equal(calls[2].path, "app");
	assert_int_equal(calls[2].value, 1);
	expect_cgroup_call(3, "app/web", UC_ATTR_MIN, 2050);
	expect_cgroup_call(4, "app/web", UC_ATTR_MAX, 8000);	/* fails */
	/* undo, newest first, old values */
	expect_cgroup_call(5, "app/web", UC_ATTR_MIN, 0);
	assert_int_equal(calls[6].op, 'u');
	assert_string_equal(calls[6].path, "app");
	assert_int_equal(calls[6].value, 0);
	expect_sysctl_call(7, UC_ATTR_MAX, 1024);
	expect_sysctl_call(8, UC_ATTR_MIN, 1024);
	expect_states(UC_CH_ROLLED_BACK, UC_CH_ROLLED_BACK, UC_CH_ROLLED_BACK, UC_CH_ROLLED_BACK,
		      UC_CH_FAILED, UC_CH_SKIPPED, UC_CH_SKIPPED);
	assert_int_equal(plan.rec[4].err, -ERANGE);
	expect_report(&r, .failed = 1, .rolled_back = 4, .skipped = 2, .first_err = -ERANGE);
}

/* Atomic undo of tasks: one call per TID with both old values; gone tasks
 * are not touched. */
static void test_atomic_tasks_undo(void **state)
{
	struct uc_exec_report r;

	(void)state;
	plan_task(1, UC_ATTR_MIN, 5, 100);
	plan_task(1, UC_ATTR_MAX, 900, 200);
	plan_task(2, UC_ATTR_MAX, 1024, 200);
	plan_task(3, UC_ATTR_RESET_ON_FORK, 0, 1);
	plan_task(4, UC_ATTR_MIN, 0, 10);
	plan_task(4, UC_ATTR_MAX, 1024, 20);
	plan_task(5, UC_ATTR_MIN, 0, 10);
	script[1] = -ESRCH;	/* tid 2 gone: not a failure, run goes on */
	script[3] = -EPERM;	/* tid 4 fails */
	assert_int_equal(uc_plan_execute(&plan, UC_EXEC_ATOMIC, &fake_ops, NULL, &r), -EPERM);
	assert_int_equal(ncalls, 6);
	expect_task_call(0, 1, 2, 100, 200, UC_KEEP);
	expect_task_call(1, 2, 1, UC_KEEP, 200, UC_KEEP);
	expect_task_call(2, 3, 1, UC_KEEP, UC_KEEP, 1);
	expect_task_call(3, 4, 2, 10, 20, UC_KEEP);
	expect_task_call(4, 3, 1, UC_KEEP, UC_KEEP, 0);
	expect_task_call(5, 1, 2, 5, 900, UC_KEEP);
	expect_states(UC_CH_ROLLED_BACK, UC_CH_ROLLED_BACK, UC_CH_GONE, UC_CH_ROLLED_BACK,
		      UC_CH_FAILED, UC_CH_FAILED, UC_CH_SKIPPED);
	expect_report(&r, .failed = 2, .gone = 1, .rolled_back = 3, .skipped = 1,
		      .first_err = -EPERM);
}

/* The kernel's side of the real executor (uclamp/sched.h's seam): what each
 * sched_setattr sent; the second one fails. */
static struct uc_sched_attr sent[4];
static pid_t sent_tid[4];
static size_t nsent;

static int rec_setattr(pid_t tid, struct uc_sched_attr *a, unsigned int flags)
{
	assert_true(nsent < 4);
	assert_int_equal(flags, 0);
	sent_tid[nsent] = tid;
	sent[nsent] = *a;
	if (nsent++ == 1) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

/* The undo of a reset-on-fork change reaches the kernel: the attributes read while
 * planning had the flag off, as the undo wants it, but the write had set it. */
static void test_undo_reset_on_fork_is_sent(void **state)
{
	const struct uc_sched_syscalls sc = { .setattr = rec_setattr };
	struct uc_exec_report r;

	(void)state;
	nsent = 0;
	plan_task(3, UC_ATTR_RESET_ON_FORK, 0, 1);
	plan_task(4, UC_ATTR_MAX, 1024, 300);
	uc_sched_set_syscalls(&sc);
	assert_int_equal(uc_plan_execute(&plan, UC_EXEC_ATOMIC, NULL, NULL, &r), -EPERM);
	uc_sched_set_syscalls(NULL);
	assert_int_equal(nsent, 3);
	assert_int_equal(sent_tid[2], 3);
	/* the flag named (no KEEP_POLICY), and off */
	assert_int_equal(sent[2].sched_flags & (UC_SCHED_FLAG_KEEP_POLICY |
						UC_SCHED_FLAG_RESET_ON_FORK), 0);
	assert_int_equal(sent[0].sched_flags & UC_SCHED_FLAG_RESET_ON_FORK,
			 UC_SCHED_FLAG_RESET_ON_FORK);
	expect_states(UC_CH_ROLLED_BACK, UC_CH_FAILED);
	expect_report(&r, .failed = 1, .rolled_back = 1, .first_err = -EPERM);
}

/* A failing undo is reported as such; the other undos still happen. */
static void test_rollback_failed(void **state)
{
	struct uc_exec_report r;

	(void)state;
	assert_non_null(uc_plan_add(&plan, UC_KIND_SYSCTL, UC_ATTR_MIN, NULL, 1024, 100));
	assert_non_null(uc_plan_add(&plan, UC_KIND_CGROUP, UC_ATTR_MIN, "a", 0, 500));
	assert_non_null(uc_plan_add(&plan, UC_KIND_CGROUP, UC_ATTR_MIN, "b", 0, 600));
	assert_non_null(uc_plan_add(&plan, UC_KIND_CGROUP, UC_ATTR_MIN, "c", 0, 700));
	assert_non_null(uc_plan_add(&plan, UC_KIND_CGROUP, UC_ATTR_MIN, "d", 0, 800));
	script[3] = -EACCES;	/* c fails */
	script[5] = -EIO;	/* undoing a fails */
	assert_int_equal(uc_plan_execute(&plan, UC_EXEC_ATOMIC, &fake_ops, NULL, &r), -EACCES);
	assert_int_equal(ncalls, 7);
	expect_cgroup_call(4, "b", UC_ATTR_MIN, 0);
	expect_cgroup_call(5, "a", UC_ATTR_MIN, 0);
	expect_sysctl_call(6, UC_ATTR_MIN, 1024);
	expect_states(UC_CH_ROLLED_BACK, UC_CH_ROLLBACK_FAILED, UC_CH_ROLLED_BACK, UC_CH_FAILED,
		      UC_CH_SKIPPED);
	assert_int_equal(plan.rec[1].err, -EIO);
	assert_int_equal(plan.rec[3].err, -EACCES);
	assert_int_equal(plan.rec[0].err, 0);
	expect_report(&r, .failed = 1, .rolled_back = 2, .rollback_failed = 1, .skipped = 1,
		      .first_err = -EACCES);
}

/* A failure on the very first change: nothing to undo. */
static void test_atomic_first_fails(void **state)
{
	struct uc_exec_report r;

	(void)state;
	task_both(1);
	plan_task(2, UC_ATTR_MIN, 0, 100);
	script[0] = -EINVAL;
	assert_int_equal(uc_plan_execute(&plan, UC_EXEC_ATOMIC, &fake_ops, NULL, &r), -EINVAL);
	assert_int_equal(ncalls, 1);
	assert_int_equal(plan.rec[0].state, UC_CH_FAILED);
	assert_int_equal(plan.rec[1].state, UC_CH_FAILED);
	assert_int_equal(plan.rec[2].state, UC_CH_SKIPPED);
	expect_report(&r, .failed = 2, .skipped = 1, .first_err = -EINVAL);
}

/* All goes well in atomic mode: nothing undone. */
static void test_atomic_success(void **state)
{
	struct uc_exec_report r;

	(void)state;
	assert_non_null(uc_plan_add(&plan, UC_KIND_SYSCTL, UC_ATTR_RT_DEFAULT, NULL, 1024, 0));
	assert_non_null(uc_plan_add(&plan, UC_KIND_CGROUP, UC_ATTR_MAX, "x/y", 10000, 10000));
	plan_task(3, UC_ATTR_MAX, 1024, 512);
	assert_int_equal(uc_plan_execute(&plan, UC_EXEC_ATOMIC, &fake_ops, NULL, &r), 0);
	assert_int_equal(ncalls, 3);
	expect_sysctl_call(0, UC_ATTR_RT_DEFAULT, 0);
	expect_cgroup_call(1, "x/y", UC_ATTR_MAX, 10000);
	expect_task_call(2, 3, 1, UC_KEEP, 512, UC_KEEP);
	for (size_t i = 0; i < plan.n; i++) {
		assert_int_equal(plan.rec[i].state, UC_CH_DONE);
		assert_int_equal(plan.rec[i].err, 0);
	}
	expect_report(&r, .done = 3);
}

/* Running a plan a second time starts from a fresh report. */
static void test_report_reset(void **state)
{
	struct uc_exec_report r = { .done = 5, .failed = 5, .gone = 5, .rolled_back = 5,
				    .rollback_failed = 5, .skipped = 5, .first_err = -EIO };

	(void)state;
	plan_task(3, UC_ATTR_MAX, 1024, 512);
	assert_int_equal(uc_plan_execute(&plan, UC_EXEC_BEST_EFFORT, &fake_ops, NULL, &r), 0);
	expect_report(&r, .done = 1);
}

/* A task whose start time changed since planning (its PID was reused) is
 * not written and counts as gone (-ESTALE); one that exited, as gone. */
static void test_identity_checked_before_write(void **state)
{
	struct uc_exec_report r;

	(void)state;
	task_both(1);
	tasks_max(2, 4);	/* 4: identity unknown (0), not checked */
	plan.rec[0].start = plan.rec[1].start = 1000;
	plan.rec[2].start = 2000;
	plan.rec[3].start = 3000;
	start_now[1] = 1000;	/* the same task */
	start_now[2] = 2500;	/* another task at that PID */
	start_now[3] = 0;	/* exited */
	assert_int_equal(uc_plan_execute(&plan, UC_EXEC_ATOMIC, checking_ops(), &stop, &r), 0);
	assert_int_equal(nidentity, 3);
	assert_int_equal(ncalls, 2);	/* tids 1 and 4 only */
	expect_task_call(0, 1, 2, 100, 200, UC_KEEP);
	expect_task_call(1, 4, 1, UC_KEEP, 200, UC_KEEP);
	assert_int_equal(plan.rec[2].state, UC_CH_GONE);
	assert_int_equal(plan.rec[2].err, -ESTALE);
	assert_int_equal(plan.rec[3].state, UC_CH_GONE);
	assert_int_equal(plan.rec[3].err, 0);
	expect_report(&r, .done = 3, .gone = 2);
}

/* A group's identity (its directory's inode) is read again right before its
 * write: a group removed since planning is gone, one made again under the
 * same path is another group (-ESTALE): neither is written; a write whose
 * file vanished with its group is gone too, one whose file alone is missing
 * a failure. Never a failure that undoes the rest of an atomic run. */
static unsigned long long ident_now[4];	/* "g0".."g3" -> inode now (0: removed) */
static size_t nident;

static int fake_cgroup_ident(const char *path, unsigned long long *ident)
{
	int g = path[1] - '0';

	assert_true(path[0] == 'g' && g >= 0 && g < 4);
	nident++;
	if (!ident_now[g])
		return -ENOENT;
	*ident = ident_now[g];
	return 0;
}

/* g2's write: the group is removed while it is under way */
static int vanishing_cgroup_write(const char *path, enum uc_attr attr, long pct100)
{
	int rc = fake_cgroup_write(path, attr, pct100);

	if (!strcmp(path, "g2")) {
		ident_now[2] = 0;
		return -ENOENT;
	}
	return rc;
}

static void test_group_identity(void **state)
{
	struct uc_exec_ops ops = fake_ops;
	struct uc_exec_report r;
	const char *groups[] = { "g0", "g1", "g2", "g3" };

	(void)state;
	ops.cgroup_ident = fake_cgroup_ident;
	ops.cgroup_write = vanishing_cgroup_write;
	for (int g = 0; g < 4; g++) {
		struct uc_change *c = uc_plan_add(&plan, UC_KIND_CGROUP, UC_ATTR_MAX, groups[g],
						  10000, 4000);

		assert_non_null(c);
		c->start = 100 + (unsigned long long)g;
		ident_now[g] = c->start;
	}
	ident_now[0] = 0;	/* removed */
	ident_now[1] = 999;	/* removed and made again */
	assert_int_equal(uc_plan_execute(&plan, UC_EXEC_ATOMIC, &ops, NULL, &r), 0);
	assert_int_equal(ncalls, 2);	/* g2 (vanished during its write) and g3 */
	assert_string_equal(calls[0].path, "g2");
	assert_string_equal(calls[1].path, "g3");
	assert_int_equal(plan.rec[0].state, UC_CH_GONE);
	assert_int_equal(plan.rec[0].err, 0);
	assert_int_equal(plan.rec[1].state, UC_CH_GONE);
	assert_int_equal(plan.rec[1].err, -ESTALE);
	assert_int_equal(plan.rec[2].state, UC_CH_GONE);
	assert_int_equal(plan.rec[3].state, UC_CH_DONE);
	expect_report(&r, .done = 1, .gone = 3);

	/* the file alone missing (cpu off meanwhile): a failure, the rest undone */
	uc_plan_free(&plan);
	uc_plan_init(&plan);
	ncalls = 0;
	memset(script, 0, sizeof(script));
	ops.cgroup_write = fake_cgroup_write;
	for (int g = 0; g < 2; g++) {
		struct uc_change *c = uc_plan_add(&plan, UC_KIND_CGROUP, UC_ATTR_MAX, groups[g],
						  10000, 4000);

		assert_non_null(c);
		c->start = ident_now[g] = 7;
	}
	script[1] = -ENOENT;
	assert_int_equal(uc_plan_execute(&plan, UC_EXEC_ATOMIC, &ops, NULL, &r), -ENOENT);
	assert_int_equal(plan.rec[0].state, UC_CH_ROLLED_BACK);
	assert_int_equal(plan.rec[1].state, UC_CH_FAILED);
}

/* Threads: the process's start time is read for its main thread and for the
 * first of a run of its threads, not per thread; each thread other than the
 * main one is asked to be still in the process right before its write. */
static void test_identity_of_threads(void **state)
{
	static const pid_t asked[] = { 3, 4, 5, 7 };
	struct uc_sched_attr sa = { .size = 56 };
	static const struct { pid_t pid, tid; unsigned long long start; } v[] = {
		{ 2, 3, 1000 }, { 2, 4, 1000 }, { 2, 2, 1000 }, { 2, 5, 1000 },
		{ 6, 6, 3000 }, { 6, 7, 3000 },
	};
	struct uc_exec_report r;

	(void)state;
	uc_plan_init(&plan);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct uc_change *c;

		sa.sched_policy = (uint32_t)v[i].tid % 3;	/* what expect_task_call checks */
		c = uc_plan_add_task(&plan, v[i].pid, v[i].tid, NULL, &sa, UC_ATTR_MAX, 1024, 300);
		assert_non_null(c);
		c->start = v[i].start;
	}
	start_now[2] = 1000;	/* process 2 is the one planned */
	start_now[6] = 3000;
	member_now[3] = member_now[5] = member_now[7] = true;	/* 4 has left process 2 */
	assert_int_equal(uc_plan_execute(&plan, UC_EXEC_BEST_EFFORT, checking_ops(), &stop, &r),
			 0);
	/* process 2: for tid 3 (first of the run), for 2 (the main thread); 6: once */
	assert_int_equal(nidentity, 3);
	assert_int_equal(nmember, 4);
	assert_memory_equal(member_asked, asked, sizeof(asked));
	assert_int_equal(ncalls, 5);
	expect_task_call(0, 3, 1, UC_KEEP, 300, UC_KEEP);
	expect_task_call(1, 2, 1, UC_KEEP, 300, UC_KEEP);
	expect_task_call(2, 5, 1, UC_KEEP, 300, UC_KEEP);
	assert_int_equal(plan.rec[1].state, UC_CH_GONE);
	expect_report(&r, .done = 5, .gone = 1);
}

/* A process found replaced at its first thread: none of its threads is written. */
static void test_identity_of_threads_reused(void **state)
{
	struct uc_sched_attr sa = { .size = 56 };
	struct uc_exec_report r;

	(void)state;
	uc_plan_init(&plan);
	for (pid_t tid = 3; tid <= 5; tid++) {
		struct uc_change *c = uc_plan_add_task(&plan, 2, tid, NULL, &sa, UC_ATTR_MAX,
						       1024, 300);

		assert_non_null(c);
		c->start = 1000;
	}
	start_now[2] = 1500;	/* another process at PID 2 */
	member_now[3] = member_now[4] = member_now[5] = true;
	assert_int_equal(uc_plan_execute(&plan, UC_EXEC_BEST_EFFORT, checking_ops(), &stop, &r),
			 0);
	assert_int_equal(nidentity, 3);	/* never found unchanged: read again each time */
	assert_int_equal(ncalls, 0);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(plan.rec[i].state, UC_CH_GONE);
		assert_int_equal(plan.rec[i].err, -ESTALE);
	}
	expect_report(&r, .gone = 3);
}

/* Atomic: a signal during the second write: it finishes, then both are
 * undone (the undo is not cut short by the flag) and the rest is skipped. */
static void test_stop_atomic_undoes(void **state)
{
	struct uc_exec_report r;

	(void)state;
	assert_non_null(uc_plan_add(&plan, UC_KIND_SYSCTL, UC_ATTR_MIN, NULL, 1024, 512));
	assert_non_null(uc_plan_add(&plan, UC_KIND_SYSCTL, UC_ATTR_MAX, NULL, 1024, 800));
	assert_non_null(uc_plan_add(&plan, UC_KIND_SYSCTL, UC_ATTR_RT_DEFAULT, NULL, 1024, 100));
	stop_at = 1;
	assert_int_equal(uc_plan_execute(&plan, UC_EXEC_ATOMIC, checking_ops(), &stop, &r), 0);
	assert_int_equal(r.stopped_by, SIGTERM);
	assert_int_equal(ncalls, 4);
	expect_sysctl_call(0, UC_ATTR_MIN, 512);
	expect_sysctl_call(1, UC_ATTR_MAX, 800);
	expect_sysctl_call(2, UC_ATTR_MAX, 1024);
	expect_sysctl_call(3, UC_ATTR_MIN, 1024);
	expect_states(UC_CH_ROLLED_BACK, UC_CH_ROLLED_BACK, UC_CH_SKIPPED);
	expect_report(&r, .rolled_back = 2, .skipped = 1);
}

/* Best effort: a signal stops the run; what was done stays and is reported. */
static void test_stop_best_effort_keeps(void **state)
{
	struct uc_exec_report r;

	(void)state;
	task_both(1);
	tasks_max(2, 4);
	stop_at = 1;
	assert_int_equal(uc_plan_execute(&plan, UC_EXEC_BEST_EFFORT, checking_ops(), &stop, &r),
			 0);
	assert_int_equal(r.stopped_by, SIGINT);
	assert_int_equal(ncalls, 2);
	expect_states(UC_CH_DONE, UC_CH_DONE, UC_CH_DONE, UC_CH_SKIPPED, UC_CH_SKIPPED);
	expect_report(&r, .done = 3, .skipped = 2);
}

/* A stop flag set before the run: nothing is written. */
static void test_stop_before_first_write(void **state)
{
	struct uc_exec_report r;

	(void)state;
	plan_task(1, UC_ATTR_MAX, 1024, 200);
	stop = SIGHUP;
	assert_int_equal(uc_plan_execute(&plan, UC_EXEC_ATOMIC, checking_ops(), &stop, &r), 0);
	assert_int_equal(ncalls, 0);
	assert_int_equal(r.stopped_by, SIGHUP);
	expect_report(&r, .skipped = 1);
}

/* ---- runs of threads ---- */

/* Threads first..last of process 2 (start 1000), each with changes ch[0..n): a run */
static void run_of(pid_t first, pid_t last, const struct uc_task_change *ch, size_t n)
{
	const struct uc_sched_attr sa = { .size = 56, .sched_policy = 2 };

	for (pid_t tid = first; tid <= last; tid++)
		assert_int_equal(uc_plan_add_thread(&plan, 2, tid, 1000, NULL, &sa, ch, n), 0);
	assert_int_equal(plan.nrec, n);	/* the first thread's records stand for all */
	start_now[2] = 1000;
	for (pid_t tid = first; tid <= last; tid++)
		member_now[tid] = true;
}

static const struct uc_task_change max300 = { UC_ATTR_MAX, 1024, 300 };

/* call i: tid's max (all threads of a run share process 2's attributes) */
static void expect_max_call(size_t i, pid_t tid, int max)
{
	assert_true(i < ncalls);
	if (calls[i].op != 't' || calls[i].tid != tid || calls[i].max != max ||
	    calls[i].min != UC_KEEP || calls[i].n != 1 || calls[i].sa_policy != 2)
		fail_msg("call %zu: op %c tid %d max %d; expected tid %d max %d", i, calls[i].op,
			 (int)calls[i].tid, calls[i].max, (int)tid, max);
}

/* A run: one sched_setattr a thread, in order; the start time read once (for the main
 * thread), then for each other thread, right before its write, whether it is still
 * the process's (4 has left it: gone). */
static void test_run_writes_each_thread(void **state)
{
	static const pid_t asked[] = { 3, 4, 5, 6, 7 };
	struct uc_exec_report r;

	(void)state;
	run_of(2, 7, &max300, 1);
	member_now[4] = false;
	assert_int_equal(uc_plan_execute(&plan, UC_EXEC_BEST_EFFORT, checking_ops(), &stop, &r),
			 0);
	assert_int_equal(nidentity, 1);
	assert_int_equal(nmember, 5);
	assert_memory_equal(member_asked, asked, sizeof(asked));
	assert_int_equal(ncalls, 5);
	expect_max_call(0, 2, 300);
	expect_max_call(1, 3, 300);
	expect_max_call(2, 5, 300);
	expect_max_call(4, 7, 300);
	expect_states(UC_CH_DONE, UC_CH_DONE, UC_CH_GONE, UC_CH_DONE, UC_CH_DONE, UC_CH_DONE);
	expect_report(&r, .done = 5, .gone = 1);
}

/* Min and max of each thread of a run: still one call a thread, with both. */
static void test_run_of_two_changes(void **state)
{
	static const struct uc_task_change ch[] = {
		{ UC_ATTR_MIN, 0, 100 }, { UC_ATTR_MAX, 1024, 300 },
	};
	struct uc_exec_report r;

	(void)state;
	run_of(3, 5, ch, 2);
	assert_int_equal(uc_plan_execute(&plan, UC_EXEC_BEST_EFFORT, checking_ops(), &stop, &r),
			 0);
	assert_int_equal(ncalls, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(calls[i].tid, 3 + (pid_t)i);
		assert_int_equal(calls[i].n, 2);
		assert_int_equal(calls[i].min, 100);
		assert_int_equal(calls[i].max, 300);
	}
	expect_report(&r, .done = 6);
}

/* Atomic: a thread of a run fails; the threads before it are undone, the last first,
 * and the rest of the run is not attempted. */
static void test_run_atomic_failure(void **state)
{
	struct uc_exec_report r;

	(void)state;
	run_of(2, 7, &max300, 1);
	script[3] = -EPERM;	/* tid 5 */
	assert_int_equal(uc_plan_execute(&plan, UC_EXEC_ATOMIC, checking_ops(), &stop, &r),
			 -EPERM);
	assert_int_equal(ncalls, 7);
	expect_max_call(3, 5, 300);
	expect_max_call(4, 4, 1024);
	expect_max_call(5, 3, 1024);
	expect_max_call(6, 2, 1024);
	expect_states(UC_CH_ROLLED_BACK, UC_CH_ROLLED_BACK, UC_CH_ROLLED_BACK, UC_CH_FAILED,
		      UC_CH_SKIPPED, UC_CH_SKIPPED);
	{
		struct uc_plan_it it = { 0 };
		const struct uc_change *c = NULL;

		for (int i = 0; i < 4; i++)
			c = uc_plan_next(&plan, &it);
		assert_int_equal(c->tid, 5);
		assert_int_equal(c->err, -EPERM);	/* a run's thread keeps its error */
	}
	expect_report(&r, .failed = 1, .rolled_back = 3, .skipped = 2, .first_err = -EPERM);
}

/* A signal during the third write of a run: it finishes; atomic undoes the three,
 * best effort keeps them; the rest of the run is not attempted either way. */
static void test_run_stopped(void **state)
{
	struct uc_exec_report r;

	(void)state;
	run_of(2, 7, &max300, 1);
	stop_at = 2;
	assert_int_equal(uc_plan_execute(&plan, UC_EXEC_ATOMIC, checking_ops(), &stop, &r), 0);
	assert_int_equal(r.stopped_by, SIGINT);
	assert_int_equal(ncalls, 6);
	expect_max_call(3, 4, 1024);
	expect_max_call(5, 2, 1024);
	expect_states(UC_CH_ROLLED_BACK, UC_CH_ROLLED_BACK, UC_CH_ROLLED_BACK, UC_CH_SKIPPED,
		      UC_CH_SKIPPED, UC_CH_SKIPPED);
	expect_report(&r, .rolled_back = 3, .skipped = 3);

	uc_plan_free(&plan);
	ncalls = 0;
	stop = 0;
	run_of(2, 7, &max300, 1);
	assert_int_equal(uc_plan_execute(&plan, UC_EXEC_BEST_EFFORT, checking_ops(), &stop, &r),
			 0);
	assert_int_equal(ncalls, 3);
	expect_states(UC_CH_DONE, UC_CH_DONE, UC_CH_DONE, UC_CH_SKIPPED, UC_CH_SKIPPED,
		      UC_CH_SKIPPED);
	expect_report(&r, .done = 3, .skipped = 3);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, plan_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_empty_plan),
		{ "test_one_call_per_tid", test_calls, setup, plan_teardown, &calls_cases[0] },
		{ "test_three_attrs_and_non_adjacent", test_calls, setup, plan_teardown,
		  &calls_cases[1] },
		T(test_best_effort_continues),
		T(test_gone_is_not_failure),
		T(test_esrch_on_a_file_fails),
		T(test_atomic_rolls_back_in_reverse),
		T(test_atomic_tasks_undo),
		T(test_undo_reset_on_fork_is_sent),
		T(test_rollback_failed),
		T(test_atomic_first_fails),
		T(test_atomic_success),
		T(test_report_reset),
		T(test_identity_checked_before_write),
		T(test_identity_of_threads),
		T(test_group_identity),
		T(test_identity_of_threads_reused),
		T(test_stop_atomic_undoes),
		T(test_stop_best_effort_keeps),
		T(test_run_writes_each_thread),
		T(test_run_of_two_changes),
		T(test_run_atomic_failure),
		T(test_run_stopped),
		T(test_stop_before_first_write),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
