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

static int fake_task_set(const struct uc_change *c, size_t n, int min, int max, int rof)
{
	struct call k = { .op = 't', .tid = c->tid, .n = n, .min = min, .max = max, .rof = rof,
			  .sa_policy = c->sa->sched_policy };

	/* the n changes handed over are this TID's, adjacent */
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(c[i].kind, UC_KIND_TASK);
		assert_int_equal(c[i].tid, c->tid);
	}
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
	.task_set = fake_task_set,
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

static int stopping_task_set(const struct uc_change *c, size_t n, int min, int max, int rof)
{
	if (ncalls == stop_at)
		stop = SIGINT;
	return fake_task_set(c, n, min, max, rof);
}

/* fake_ops, with the identity check and the stop requests */
static const struct uc_exec_ops *checking_ops(void)
{
	static struct uc_exec_ops ops;

	ops = fake_ops;
	ops.task_set = stopping_task_set;
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
	assert_int_equal(plan.n, n);
	for (size_t i = 0; i < n; i++)
		if (plan.v[i].state != want[i])
			fail_msg("change %zu: state '%s', expected '%s'", i,
				 uc_change_state_name(plan.v[i].state),
				 uc_change_state_name(want[i]));
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
		if (plan.v[i].state != UC_CH_DONE)
			fail_msg("change %zu: state '%s', expected 'done'", i,
				 uc_change_state_name(plan.v[i].state));
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
	assert_int_equal(plan.v[2].err, -EPERM);
	assert_int_equal(plan.v[3].err, -EPERM);
	assert_int_equal(plan.v[4].err, 0);	/* gone is not an error */
	assert_int_equal(plan.v[6].err, -EINVAL);
	assert_int_equal(plan.v[0].err, 0);
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
		assert_int_equal(plan.v[i].state, UC_CH_GONE);
}

/* ESRCH means "gone" only for tasks: for a file it is a failure. */
static void test_esrch_on_a_file_fails(void **state)
{
	struct uc_exec_report r;

	(void)state;
	assert_non_null(uc_plan_add(&plan, UC_KIND_CGROUP, UC_ATTR_MIN, "a", 0, 100));
	script[0] = -ESRCH;
	assert_int_equal(uc_plan_execute(&plan, UC_EXEC_BEST_EFFORT, &fake_ops, NULL, &r), -ESRCH);
	assert_int_equal(plan.v[0].state, UC_CH_FAILED);
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
	assert_int_equal(plan.v[4].err, -ERANGE);
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
	assert_int_equal(plan.v[1].err, -EIO);
	assert_int_equal(plan.v[3].err, -EACCES);
	assert_int_equal(plan.v[0].err, 0);
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
	assert_int_equal(plan.v[0].state, UC_CH_FAILED);
	assert_int_equal(plan.v[1].state, UC_CH_FAILED);
	assert_int_equal(plan.v[2].state, UC_CH_SKIPPED);
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
		assert_int_equal(plan.v[i].state, UC_CH_DONE);
		assert_int_equal(plan.v[i].err, 0);
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
	plan.v[0].start = plan.v[1].start = 1000;
	plan.v[2].start = 2000;
	plan.v[3].start = 3000;
	start_now[1] = 1000;	/* the same task */
	start_now[2] = 2500;	/* another task at that PID */
	start_now[3] = 0;	/* exited */
	assert_int_equal(uc_plan_execute(&plan, UC_EXEC_ATOMIC, checking_ops(), &stop, &r), 0);
	assert_int_equal(nidentity, 3);
	assert_int_equal(ncalls, 2);	/* tids 1 and 4 only */
	expect_task_call(0, 1, 2, 100, 200, UC_KEEP);
	expect_task_call(1, 4, 1, UC_KEEP, 200, UC_KEEP);
	assert_int_equal(plan.v[2].state, UC_CH_GONE);
	assert_int_equal(plan.v[2].err, -ESTALE);
	assert_int_equal(plan.v[3].state, UC_CH_GONE);
	assert_int_equal(plan.v[3].err, 0);
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
	assert_int_equal(plan.v[0].state, UC_CH_GONE);
	assert_int_equal(plan.v[0].err, 0);
	assert_int_equal(plan.v[1].state, UC_CH_GONE);
	assert_int_equal(plan.v[1].err, -ESTALE);
	assert_int_equal(plan.v[2].state, UC_CH_GONE);
	assert_int_equal(plan.v[3].state, UC_CH_DONE);
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
	assert_int_equal(plan.v[0].state, UC_CH_ROLLED_BACK);
	assert_int_equal(plan.v[1].state, UC_CH_FAILED);
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
	assert_int_equal(plan.v[1].state, UC_CH_GONE);
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
		assert_int_equal(plan.v[i].state, UC_CH_GONE);
		assert_int_equal(plan.v[i].err, -ESTALE);
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
		T(test_stop_before_first_write),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
