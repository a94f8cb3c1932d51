/*
 * test_plan_run.c: running a plan (src/lib/plan_run.c) with scripted writes, a
 * scripted key state and a scripted answer at the prompt. Checks what the
 * report says and which writes were made: none before the guard said go.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <string.h>

#include "uclamp/plan_run.h"
#include "uclamp/sched.h"
#include "plan_fixture.h"

/* ---- the scripted kernel, key and admin ------------------------------------- */

#define MAX_CALLS 32
static int script[MAX_CALLS];	/* result of write i */
static long written[MAX_CALLS];	/* the value of write i (tasks: max) */
static size_t nwrites;

static enum uc_key_state keys[4];	/* the key's state at read i */
static size_t nkey_reads;

static bool answer;		/* what the admin answers */
static size_t nasks;
static enum uc_key_state asked_key;

/* uc_plan_run_fresh's writers' lock: writes only while it is held */
static bool lock_held, lock_modelled;
static size_t nlocks;

static int scripted(long value)
{
	assert_true(nwrites < MAX_CALLS);
	if (lock_modelled)
		assert_true(lock_held);
	written[nwrites] = value;
	return script[nwrites++];
}

static int fake_task_setattr(pid_t tid, struct uc_sched_attr *a)
{
	(void)tid;
	return scripted(a->sched_flags & UC_SCHED_FLAG_UTIL_CLAMP_MAX ? (long)a->sched_util_max
								       : UC_KEEP);
}

static int fake_sysctl_write(enum uc_attr attr, long value)
{
	(void)attr;
	return scripted(value);
}

static int fake_cgroup_write(const char *path, enum uc_attr attr, long pct100)
{
	(void)path;
	(void)attr;
	return scripted(pct100);
}

static int fake_subtree_set(const char *path, int enable)
{
	(void)path;
	return scripted(enable);
}

/* writability by target name: "ro" read-only, "new" not there yet, else writable */
static size_t nwritable;
static int fake_writable(const struct uc_change *c)
{
	nwritable++;
	if (c->target && !strcmp(c->target, "ro"))
		return -EROFS;
	if (c->target && !strcmp(c->target, "new"))
		return -ENOENT;
	return 0;
}

static const struct uc_exec_ops fake_ops = {
	.task_setattr = fake_task_setattr,
	.sysctl_write = fake_sysctl_write,
	.cgroup_write = fake_cgroup_write,
	.subtree_set = fake_subtree_set,
	.writable = fake_writable,
};

static enum uc_key_state fake_key(void *data)
{
	assert_ptr_equal(data, &answer);
	assert_true(nkey_reads < 4);
	return keys[nkey_reads++];
}

static volatile sig_atomic_t stop;
static bool signal_at_prompt;

static bool fake_ask(const struct uc_plan *p, enum uc_key_state key, void *data)
{
	if (signal_at_prompt)
		stop = SIGINT;
	assert_ptr_equal(data, &answer);
	assert_non_null(p);
	/* asked before anything is written, and never with the lock held */
	assert_int_equal(nwrites, 0);
	assert_false(lock_held);
	asked_key = key;
	nasks++;
	return answer;
}

static struct uc_run_opts opts;
static struct uc_report rep;

static int setup(void **state)
{
	(void)state;
	memset(script, 0, sizeof(script));
	memset(written, 0, sizeof(written));
	nwrites = nkey_reads = nasks = nwritable = 0;
	stop = 0;
	signal_at_prompt = false;
	answer = false;
	asked_key = UC_KEY_UNKNOWN;
	keys[0] = keys[1] = keys[2] = keys[3] = UC_KEY_OFF;
	opts = (struct uc_run_opts){ .mode = UC_EXEC_ATOMIC, .key_state = fake_key, .data = &answer,
				     .ops = &fake_ops, .stop = &stop };
	uc_plan_init(&plan);
	lock_held = lock_modelled = false;
	nlocks = 0;
	return 0;
}

static void sysctl(enum uc_attr attr, long from, long to)
{
	assert_non_null(uc_plan_add(&plan, UC_KIND_SYSCTL, attr, "sched_util_clamp_min", from, to));
}

/* The plan most tests run: one task's max 1024 -> 512; the run returns 0. */
static void run_one_task(void)
{
	plan_task(10, UC_ATTR_MAX, 1024, 512);
	assert_int_equal(uc_plan_run(&plan, &opts, &rep), 0);
}

/* The report's per-target counts, by name. */
struct counts {
	size_t planned, done, failed, gone, rolled_back, rollback_failed, skipped;
};

static void expect_counts(struct counts want)
{
	const size_t *t = rep.targets;

	if (t[UC_CH_PLANNED] != want.planned || t[UC_CH_DONE] != want.done ||
	    t[UC_CH_FAILED] != want.failed || t[UC_CH_GONE] != want.gone ||
	    t[UC_CH_ROLLED_BACK] != want.rolled_back ||
	    t[UC_CH_ROLLBACK_FAILED] != want.rollback_failed || t[UC_CH_SKIPPED] != want.skipped)
		fail_msg("targets planned %zu done %zu failed %zu gone %zu rolled_back %zu "
			 "rollback_failed %zu skipped %zu; expected %zu %zu %zu %zu %zu %zu %zu",
			 t[UC_CH_PLANNED], t[UC_CH_DONE], t[UC_CH_FAILED], t[UC_CH_GONE],
			 t[UC_CH_ROLLED_BACK], t[UC_CH_ROLLBACK_FAILED], t[UC_CH_SKIPPED],
			 want.planned, want.done, want.failed, want.gone, want.rolled_back,
			 want.rollback_failed, want.skipped);
}

/* ---- tests ------------------------------------------------------------------ */

/* An empty plan: nothing to change, no key read, the planning counts carried over. */
static void test_nothing(void **state)
{
	(void)state;
	plan.unchanged = 3;
	plan.gone = 1;
	assert_int_equal(uc_plan_run(&plan, &opts, &rep), 0);
	assert_int_equal(rep.outcome, UC_RUN_NOTHING);
	assert_int_equal(rep.unchanged, 3);
	assert_int_equal(uc_report_gone(&rep), 1);
	assert_false(rep.key_read);
	assert_int_equal(nkey_reads, 0);
	assert_int_equal(nwrites, 0);
	assert_ptr_equal(rep.plan, &plan);
}

/* Would flip, key off, no consent, no one to ask: refused, nothing written. */
static void test_refused(void **state)
{
	(void)state;
	run_one_task();
	assert_int_equal(rep.outcome, UC_RUN_REFUSED);
	assert_int_equal(rep.verdict, UC_GUARD_REFUSE);
	assert_true(rep.flips);
	assert_int_equal(rep.key_before, UC_KEY_OFF);
	assert_int_equal(nwrites, 0);
	assert_int_equal(nasks, 0);
	expect_counts((struct counts){ .planned = 1 });
}

/* Asked, answered no: not confirmed, nothing written; the prompt got the key's state. */
static void test_ask_no(void **state)
{
	(void)state;
	keys[0] = UC_KEY_UNKNOWN;
	opts.ask = fake_ask;
	run_one_task();
	assert_int_equal(rep.outcome, UC_RUN_NOT_CONFIRMED);
	assert_int_equal(nasks, 1);
	assert_int_equal(asked_key, UC_KEY_UNKNOWN);
	assert_int_equal(nwrites, 0);
	/* a run that ends at the question still says what it would have changed */
	expect_counts((struct counts){ .planned = 1 });
}

/* Asked, answered yes: runs; the key is read again after the writes. */
static void test_ask_yes_key_after(void **state)
{
	(void)state;
	keys[0] = UC_KEY_OFF;
	keys[1] = UC_KEY_ON;
	opts.ask = fake_ask;
	answer = true;
	run_one_task();
	assert_int_equal(rep.outcome, UC_RUN_OK);
	assert_int_equal(rep.verdict, UC_GUARD_ASK);
	assert_int_equal(nasks, 1);
	assert_int_equal(nwrites, 1);
	assert_int_equal(written[0], 512);
	assert_int_equal(rep.key_before, UC_KEY_OFF);
	assert_int_equal(rep.key_after, UC_KEY_ON);
	expect_counts((struct counts){ .done = 1 });
}

/* Consent given: no question, a warning verdict. Key already on: plain go, read once. */
static void test_consent_and_paid(void **state)
{
	(void)state;
	opts.ask = fake_ask;
	opts.yes = true;
	run_one_task();
	assert_int_equal(rep.verdict, UC_GUARD_GO_WARN);
	assert_int_equal(nasks, 0);

	plan.rec[0].state = UC_CH_PLANNED;
	nwrites = nkey_reads = 0;
	opts.yes = false;
	keys[0] = UC_KEY_ON;
	assert_int_equal(uc_plan_run(&plan, &opts, &rep), 0);
	assert_int_equal(rep.verdict, UC_GUARD_GO);
	assert_int_equal(rep.outcome, UC_RUN_OK);
	assert_int_equal(nkey_reads, 1);	/* on stays on: no second read */
	assert_int_equal(rep.key_after, UC_KEY_ON);
}

/* A dry run reads the key but neither asks nor writes; all targets stay planned. */
static void test_dry_run(void **state)
{
	(void)state;
	opts.ask = fake_ask;
	opts.dry_run = true;
	plan_task(10, UC_ATTR_MIN, 0, 100);
	plan_task(10, UC_ATTR_MAX, 1024, 512);
	plan_task(11, UC_ATTR_MAX, 1024, 512);
	assert_int_equal(uc_plan_run(&plan, &opts, &rep), 0);
	assert_int_equal(rep.outcome, UC_RUN_DRY);
	assert_true(rep.key_read);
	assert_int_equal(nasks, 0);
	assert_int_equal(nwrites, 0);
	/* two tasks are two targets, not three changes */
	expect_counts((struct counts){ .planned = 2 });
}

/* A plan that cannot flip the key does not read it, unless asked to. */
static void test_key_always(void **state)
{
	(void)state;
	assert_non_null(uc_plan_add(&plan, UC_KIND_SUBTREE, UC_ATTR_CPU_CONTROLLER, "a", 0, 1));
	assert_int_equal(uc_plan_run(&plan, &opts, &rep), 0);
	assert_false(rep.flips);
	assert_false(rep.key_read);
	assert_int_equal(nkey_reads, 0);

	plan.rec[0].state = UC_CH_PLANNED;
	opts.key_always = true;
	keys[0] = UC_KEY_ON;
	assert_int_equal(uc_plan_run(&plan, &opts, &rep), 0);
	assert_true(rep.key_read);
	assert_int_equal(rep.key_before, UC_KEY_ON);
	assert_int_equal(nkey_reads, 1);
}

/* Atomic: the third write fails, the first two are undone; the report says so. */
static void test_atomic_rollback(void **state)
{
	(void)state;
	opts.yes = true;
	sysctl(UC_ATTR_MIN, 1024, 512);
	sysctl(UC_ATTR_MAX, 1024, 800);
	sysctl(UC_ATTR_RT_DEFAULT, 1024, 100);
	script[2] = -EACCES;
	assert_int_equal(uc_plan_run(&plan, &opts, &rep), -EACCES);
	assert_int_equal(rep.outcome, UC_RUN_FAILED);
	assert_int_equal(rep.first_err, -EACCES);
	expect_counts((struct counts){ .failed = 1, .rolled_back = 2 });
	assert_int_equal(uc_report_failed(&rep), 1);
	/* three writes, then the undo of the second and the first */
	assert_int_equal(nwrites, 5);
	assert_int_equal(written[3], 1024);
	assert_int_equal(written[4], 1024);
	assert_int_equal(plan.rec[2].err, -EACCES);
	/* a write was attempted: the key is read again */
	assert_int_equal(nkey_reads, 2);
}

/* Best effort: failures and exits are counted per task, the rest is done. */
static void test_best_effort_counts(void **state)
{
	(void)state;
	opts.mode = UC_EXEC_BEST_EFFORT;
	opts.yes = true;
	plan.unchanged = 4;
	plan.gone = 1;
	plan.failed = 2;
	plan_task(10, UC_ATTR_MIN, 0, 100);
	plan_task(10, UC_ATTR_MAX, 1024, 512);
	plan_task(11, UC_ATTR_MAX, 1024, 512);
	plan_task(12, UC_ATTR_MAX, 1024, 512);
	plan_task(13, UC_ATTR_MAX, 1024, 512);
	script[1] = -EPERM;
	script[2] = -ESRCH;
	assert_int_equal(uc_plan_run(&plan, &opts, &rep), -EPERM);
	assert_int_equal(rep.outcome, UC_RUN_OK);
	expect_counts((struct counts){ .done = 2, .failed = 1, .gone = 1 });
	assert_int_equal(rep.unchanged, 4);
	assert_int_equal(uc_report_gone(&rep), 2);
	assert_int_equal(uc_report_failed(&rep), 3);
	assert_int_equal(rep.first_err, -EPERM);
}

/* A cgroup file that cannot be written: refused before the guard, nothing
 * written, nobody asked; the change says why. (cgroup set --min --max with
 * max read-only would otherwise enable the key with the min write.) */
static void test_unwritable_refused_up_front(void **state)
{
	(void)state;
	opts.ask = fake_ask;
	answer = true;
	assert_non_null(uc_plan_add(&plan, UC_KIND_CGROUP, UC_ATTR_MIN, "ok", 0, 1000));
	assert_non_null(uc_plan_add(&plan, UC_KIND_CGROUP, UC_ATTR_MAX, "ro", 10000, 4000));
	assert_int_equal(uc_plan_run(&plan, &opts, &rep), -EROFS);
	assert_int_equal(rep.outcome, UC_RUN_UNWRITABLE);
	assert_int_equal(nwritable, 2);
	assert_int_equal(nasks, 0);
	assert_int_equal(nwrites, 0);
	assert_int_equal(plan.rec[0].state, UC_CH_PLANNED);
	assert_int_equal(plan.rec[1].state, UC_CH_FAILED);
	assert_int_equal(plan.rec[1].err, -EROFS);
	expect_counts((struct counts){ .planned = 1, .failed = 1 });
	assert_int_equal(rep.first_err, -EROFS);
}

/* The clamp files of a group whose cpu controller the plan enables do not
 * exist yet: not a known failure. A dry run checks nothing. */
static void test_writable_after_enable_cpu(void **state)
{
	(void)state;
	opts.yes = true;
	assert_non_null(uc_plan_add(&plan, UC_KIND_SUBTREE, UC_ATTR_CPU_CONTROLLER, "p", 0, 1));
	assert_non_null(uc_plan_add(&plan, UC_KIND_CGROUP, UC_ATTR_MAX, "new", 10000, 4000));
	assert_int_equal(uc_plan_run(&plan, &opts, &rep), 0);
	assert_int_equal(rep.outcome, UC_RUN_OK);
	assert_int_equal(nwrites, 2);

	plan.rec[0].state = plan.rec[1].state = UC_CH_PLANNED;
	nwritable = 0;
	opts.dry_run = true;
	assert_int_equal(uc_plan_run(&plan, &opts, &rep), 0);
	assert_int_equal(nwritable, 0);
}

/* Best effort (tasks): no file to check, the write says. */
static void test_best_effort_not_checked(void **state)
{
	(void)state;
	opts.mode = UC_EXEC_BEST_EFFORT;
	opts.yes = true;
	run_one_task();
	assert_int_equal(nwritable, 0);
	assert_int_equal(nwrites, 1);
}

/* A signal at the prompt: interrupted (not "no"), nothing written. */
static void test_signal_at_prompt(void **state)
{
	(void)state;
	opts.ask = fake_ask;
	answer = true;
	signal_at_prompt = true;
	run_one_task();
	assert_int_equal(rep.outcome, UC_RUN_INTERRUPTED);
	assert_int_equal(rep.stopped_by, SIGINT);
	assert_int_equal(nwrites, 0);
}

/* A signal during a write: the report says interrupted, what was undone and skipped. */
static int signalling_sysctl_write(enum uc_attr attr, long value)
{
	if (nwrites == 1)
		stop = SIGTERM;
	return fake_sysctl_write(attr, value);
}

static void test_signal_mid_run(void **state)
{
	struct uc_exec_ops ops = fake_ops;

	(void)state;
	ops.sysctl_write = signalling_sysctl_write;
	opts.ops = &ops;
	opts.yes = true;
	sysctl(UC_ATTR_MIN, 1024, 512);
	sysctl(UC_ATTR_MAX, 1024, 800);
	sysctl(UC_ATTR_RT_DEFAULT, 1024, 100);
	assert_int_equal(uc_plan_run(&plan, &opts, &rep), 0);
	assert_int_equal(rep.outcome, UC_RUN_INTERRUPTED);
	assert_int_equal(rep.stopped_by, SIGTERM);
	assert_int_equal(rep.mode, UC_EXEC_ATOMIC);
	expect_counts((struct counts){ .rolled_back = 2, .skipped = 1 });
	assert_int_equal(nwrites, 4);	/* two writes, two undos */
}

/* Atomic: tasks first (their failure cannot be foreseen), files in their order. */
static void test_atomic_tasks_first(void **state)
{
	(void)state;
	opts.dry_run = true;
	sysctl(UC_ATTR_MIN, 1024, 512);
	plan_task(10, UC_ATTR_MIN, 0, 100);
	plan_task(10, UC_ATTR_MAX, 1024, 512);
	assert_non_null(uc_plan_add(&plan, UC_KIND_CGROUP, UC_ATTR_MAX, "a", 10000, 5000));
	plan_task(11, UC_ATTR_MAX, 1024, 512);
	sysctl(UC_ATTR_MAX, 1024, 800);
	assert_int_equal(uc_plan_run(&plan, &opts, &rep), 0);
	assert_int_equal(plan.rec[0].tid, 10);
	assert_int_equal(plan.rec[0].attr, UC_ATTR_MIN);
	assert_int_equal(plan.rec[1].tid, 10);
	assert_int_equal(plan.rec[1].attr, UC_ATTR_MAX);
	assert_int_equal(plan.rec[2].tid, 11);
	assert_int_equal(plan.rec[3].kind, UC_KIND_SYSCTL);
	assert_int_equal(plan.rec[3].attr, UC_ATTR_MIN);
	assert_int_equal(plan.rec[4].kind, UC_KIND_CGROUP);
	assert_int_equal(plan.rec[5].attr, UC_ATTR_MAX);
	assert_int_equal(plan.rec[5].kind, UC_KIND_SYSCTL);
	/* a task that fails first: nothing else is written */
	plan.rec[0].state = UC_CH_PLANNED;
	opts.dry_run = false;
	opts.yes = true;
	script[0] = -EPERM;
	assert_int_equal(uc_plan_run(&plan, &opts, &rep), -EPERM);
	assert_int_equal(nwrites, 1);
	assert_int_equal(rep.outcome, UC_RUN_FAILED);
}

/* ---- plan, ask, lock, plan again, write (uc_plan_run_fresh) ------------------- */

/* What the host holds at each planning pass: task 10's change, or none (attr -1). */
struct pass_want {
	int attr;
	long from, to;
};
static struct pass_want passes[4];
static bool held_at_plan[4];
static size_t nplans;

static int fresh_plan(struct uc_plan *p, unsigned pass, void *data)
{
	assert_ptr_equal(data, &answer);
	assert_int_equal(pass, nplans);
	assert_true(nplans < 4);
	held_at_plan[nplans++] = lock_held;
	if (passes[pass].attr < 0) {
		p->unchanged++;
		return 0;
	}
	assert_non_null(uc_plan_add_task(p, 10, 10, "t", NULL, (enum uc_attr)passes[pass].attr,
					 passes[pass].from, passes[pass].to));
	return 0;
}

static int fake_lock(void *data)
{
	assert_ptr_equal(data, &answer);
	assert_false(lock_held);
	lock_held = true;
	nlocks++;
	return 0;
}

static void fake_unlock(void *data)
{
	assert_ptr_equal(data, &answer);
	assert_true(lock_held);
	lock_held = false;
}

static const struct uc_fresh fresh = {
	.plan = fresh_plan, .lock = fake_lock, .unlock = fake_unlock, .data = &answer,
};

/* Every pass sees task 10's max at from; the admin wants 512 and answers yes. */
static void fresh_setup(long from0, long from1, long from2)
{
	const long from[] = { from0, from1, from2 };

	for (size_t i = 0; i < 3; i++)
		passes[i] = from[i] == 512 ? (struct pass_want){ -1, 0, 0 }
					   : (struct pass_want){ UC_ATTR_MAX, from[i], 512 };
	nplans = 0;
	lock_modelled = true;
	opts.ask = fake_ask;
	answer = true;
}

/* A fresh run's counts: questions, planning passes, locks taken, fresh plans
 * that differed, writes; and its outcome. */
static void expect_fresh(size_t asks, size_t plans, size_t locks, unsigned replanned,
			 enum uc_run_outcome outcome, size_t writes)
{
	assert_int_equal(nasks, asks);
	assert_int_equal(nplans, plans);
	assert_int_equal(nlocks, locks);
	assert_int_equal(rep.replanned, replanned);
	assert_int_equal(rep.outcome, outcome);
	assert_int_equal(nwrites, writes);
}

/* Nothing changed while the admin thought: asked unlocked, planned again locked, written once. */
static void test_fresh_unchanged(void **state)
{
	(void)state;
	fresh_setup(1024, 1024, 1024);
	assert_int_equal(uc_plan_run_fresh(&plan, &fresh, &opts, &rep), 0);
	expect_fresh(1, 2, 1, 0, UC_RUN_OK, 1);
	assert_false(held_at_plan[0]);
	assert_true(held_at_plan[1]);
	assert_int_equal(rep.verdict, UC_GUARD_ASK);
	assert_int_equal(written[0], 512);
	assert_ptr_equal(rep.plan, &plan);
}

/* Another writer changed the value meanwhile: a fresh plan (its from), still the
 * consented answer (enables the fast path): written without a second question. */
static void test_fresh_changed_value(void **state)
{
	(void)state;
	fresh_setup(1024, 300, 1024);
	assert_int_equal(uc_plan_run_fresh(&plan, &fresh, &opts, &rep), 0);
	expect_fresh(1, 2, 1, 1, UC_RUN_OK, 1);
	assert_int_equal(plan.n, 1);
	assert_int_equal(plan.rec[0].from, 300);
	assert_int_equal(plan.rec[0].state, UC_CH_DONE);
	assert_int_equal(written[0], 512);
}

/* Another writer already wrote the wanted value: the fresh plan is empty, nothing written. */
static void test_fresh_now_unchanged(void **state)
{
	(void)state;
	fresh_setup(1024, 512, 512);
	assert_int_equal(uc_plan_run_fresh(&plan, &fresh, &opts, &rep), 0);
	expect_fresh(1, 2, 1, 1, UC_RUN_NOTHING, 0);
	assert_int_equal(rep.unchanged, 1);
}

/* The fast-path answer changed: the first plan needed no consent (reset-on-fork
 * only), the fresh one enables the key: the lock is released, the admin asked,
 * the plan made again under the lock, then written. */
static void test_fresh_answer_changed(void **state)
{
	(void)state;
	fresh_setup(1024, 1024, 1024);
	passes[0] = (struct pass_want){ UC_ATTR_RESET_ON_FORK, 0, 1 };
	assert_int_equal(uc_plan_run_fresh(&plan, &fresh, &opts, &rep), 0);
	expect_fresh(1, 3, 2, 1, UC_RUN_OK, 1);
	assert_false(held_at_plan[0]);
	assert_true(held_at_plan[1]);
	assert_true(held_at_plan[2]);
	assert_int_equal(plan.rec[0].attr, UC_ATTR_MAX);
	assert_int_equal(written[0], 512);
}

/* No: nothing written, the lock never taken, planned once. */
static void test_fresh_no(void **state)
{
	(void)state;
	fresh_setup(1024, 1024, 1024);
	answer = false;
	assert_int_equal(uc_plan_run_fresh(&plan, &fresh, &opts, &rep), 0);
	expect_fresh(1, 1, 0, 0, UC_RUN_NOT_CONFIRMED, 0);
}

/* --yes and no terminal: nobody is asked, so lock, plan once, run (as before). */
static void test_fresh_nobody_asked(void **state)
{
	(void)state;
	fresh_setup(1024, 1024, 1024);
	opts.yes = true;
	assert_int_equal(uc_plan_run_fresh(&plan, &fresh, &opts, &rep), 0);
	expect_fresh(0, 1, 1, 0, UC_RUN_OK, 1);
	assert_true(held_at_plan[0]);
	assert_int_equal(rep.verdict, UC_GUARD_GO_WARN);

	uc_plan_free(&plan);
	fresh_setup(1024, 1024, 1024);
	nwrites = nkey_reads = nlocks = 0;
	lock_held = false;
	opts.yes = false;
	opts.ask = NULL;
	assert_int_equal(uc_plan_run_fresh(&plan, &fresh, &opts, &rep), 0);
	expect_fresh(0, 1, 1, 0, UC_RUN_REFUSED, 0);
	assert_true(held_at_plan[0]);
}

/* A planner's or the lock's stop value comes back as is. */
static int lock_gives_up(void *data)
{
	(void)data;
	nlocks++;
	return 7;
}

static void test_fresh_stop_values(void **state)
{
	const struct uc_fresh f = { .plan = fresh_plan, .lock = lock_gives_up,
				    .unlock = fake_unlock, .data = &answer };

	(void)state;
	fresh_setup(1024, 1024, 1024);
	assert_int_equal(uc_plan_run_fresh(&plan, &f, &opts, &rep), 7);
	assert_int_equal(nasks, 1);	/* asked, then the lock could not be had */
	assert_int_equal(nlocks, 1);
	assert_int_equal(nwrites, 0);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, plan_teardown)

/* A run of threads counts one target a thread, by each thread's state; an atomic
 * failure in it, with the sysctl after it, is counted as the executor left it; a
 * dry run counts them planned. */
static void test_run_of_threads_counted(void **state)
{
	static const struct uc_task_change max512 = { UC_ATTR_MAX, 1024, 512 };
	const struct uc_sched_attr sa = { .size = 56 };

	(void)state;
	for (pid_t tid = 10; tid <= 13; tid++)
		assert_int_equal(uc_plan_add_thread(&plan, 10, tid, 0, NULL, &sa, &max512, 1), 0);
	sysctl(UC_ATTR_MIN, 1024, 512);
	assert_int_equal(plan.nrec, 2);
	opts.dry_run = true;
	assert_int_equal(uc_plan_run(&plan, &opts, &rep), 0);
	expect_counts((struct counts){ .planned = 5 });
	opts.dry_run = false;
	opts.yes = true;
	script[2] = -EPERM;	/* tid 12 */
	assert_int_equal(uc_plan_run(&plan, &opts, &rep), -EPERM);
	assert_int_equal(rep.outcome, UC_RUN_FAILED);
	expect_counts((struct counts){ .rolled_back = 2, .failed = 1, .skipped = 2 });
	assert_int_equal(nwrites, 5);	/* 10, 11, 12; then 11 and 10 undone */
	assert_int_equal(written[3], 1024);
	assert_int_equal(written[4], 1024);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_run_of_threads_counted),
		T(test_nothing),
		T(test_refused),
		T(test_ask_no),
		T(test_ask_yes_key_after),
		T(test_consent_and_paid),
		T(test_dry_run),
		T(test_key_always),
		T(test_atomic_rollback),
		T(test_best_effort_counts),
		T(test_unwritable_refused_up_front),
		T(test_writable_after_enable_cpu),
		T(test_best_effort_not_checked),
		T(test_signal_at_prompt),
		T(test_signal_mid_run),
		T(test_atomic_tasks_first),
		T(test_fresh_unchanged),
		T(test_fresh_changed_value),
		T(test_fresh_now_unchanged),
		T(test_fresh_answer_changed),
		T(test_fresh_no),
		T(test_fresh_nobody_asked),
		T(test_fresh_stop_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
