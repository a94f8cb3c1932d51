/*
 * test_plan.c: the plan (src/lib/plan.c) and the guard (src/lib/guard.c).
 *
 * Which changes flip sched_uclamp_used (kernel-uclamp.md §1), the names and
 * formatting helpers the printer uses, and the guard's verdict for every
 * combination of (plan flips?, key state, --yes, terminal).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "uclamp/guard.h"
#include "uclamp/plan.h"
#include "uclamp/value.h"

struct flip_case {
	enum uc_kind kind;
	enum uc_attr attr;
	long from, to;
	bool flips;
};

static const struct flip_case flip_cases[] = {
	/* task clamps: any valid setattr with a clamp flag, whatever the values */
	{ UC_KIND_TASK, UC_ATTR_MIN, 0, 100, true },
	{ UC_KIND_TASK, UC_ATTR_MIN, 0, 0, true },
	{ UC_KIND_TASK, UC_ATTR_MIN, 100, UC_RESET, true },
	{ UC_KIND_TASK, UC_ATTR_MAX, 1024, 300, true },
	{ UC_KIND_TASK, UC_ATTR_MAX, 1024, 1024, true },
	{ UC_KIND_TASK, UC_ATTR_MAX, 300, UC_RESET, true },
	/* reset-on-fork alone goes without a clamp flag: never */
	{ UC_KIND_TASK, UC_ATTR_RESET_ON_FORK, 0, 1, false },
	{ UC_KIND_TASK, UC_ATTR_RESET_ON_FORK, 1, 0, false },
	/* cgroup writes: any successful write, even the same value */
	{ UC_KIND_CGROUP, UC_ATTR_MIN, 0, 2050, true },
	{ UC_KIND_CGROUP, UC_ATTR_MIN, 0, 0, true },
	{ UC_KIND_CGROUP, UC_ATTR_MAX, 10000, 10000, true },
	{ UC_KIND_CGROUP, UC_ATTR_MAX, 10000, 8000, true },
	/* sysctls: only a changed value */
	{ UC_KIND_SYSCTL, UC_ATTR_MIN, 1024, 512, true },
	{ UC_KIND_SYSCTL, UC_ATTR_MIN, 1024, 1024, false },
	{ UC_KIND_SYSCTL, UC_ATTR_MAX, 1024, 1000, true },
	{ UC_KIND_SYSCTL, UC_ATTR_MAX, 800, 800, false },
	{ UC_KIND_SYSCTL, UC_ATTR_RT_DEFAULT, 1024, 0, true },
	{ UC_KIND_SYSCTL, UC_ATTR_RT_DEFAULT, 0, 0, false },
	/* enabling the cpu controller in a subtree: never */
	{ UC_KIND_SUBTREE, UC_ATTR_CPU_CONTROLLER, 0, 1, false },
	{ UC_KIND_SUBTREE, UC_ATTR_CPU_CONTROLLER, 1, 0, false },
};

static void test_flip_rules(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(flip_cases) / sizeof(flip_cases[0]); i++) {
		const struct flip_case *fc = &flip_cases[i];
		struct uc_plan p;
		struct uc_change *c;

		uc_plan_init(&p);
		if (fc->kind == UC_KIND_TASK)
			c = uc_plan_add_task(&p, 10, 10, "x", NULL, fc->attr, fc->from, fc->to);
		else
			c = uc_plan_add(&p, fc->kind, fc->attr,
					fc->kind == UC_KIND_SYSCTL ? NULL : "a/b", fc->from,
					fc->to);
		assert_non_null(c);
		if (c->flips != fc->flips)
			fail_msg("case %zu: %s %s %ld -> %ld: flips %d, expected %d", i,
				 uc_kind_name(fc->kind), uc_attr_name(fc->kind, fc->attr), fc->from,
				 fc->to, c->flips, fc->flips);
		assert_int_equal(uc_plan_flips(&p), fc->flips);
		assert_int_equal(c->state, UC_CH_PLANNED);
		assert_int_equal(c->err, 0);
		assert_int_equal(c->from, fc->from);
		assert_int_equal(c->to, fc->to);
		uc_plan_free(&p);
	}
}

/* One flipping change anywhere makes the plan flip. */
static void test_plan_flips_any(void **state)
{
	struct uc_plan p;

	(void)state;
	uc_plan_init(&p);
	assert_false(uc_plan_flips(&p));
	assert_non_null(uc_plan_add(&p, UC_KIND_SYSCTL, UC_ATTR_MIN, NULL, 512, 512));
	assert_non_null(uc_plan_add(&p, UC_KIND_SUBTREE, UC_ATTR_CPU_CONTROLLER, "a", 0, 1));
	assert_non_null(uc_plan_add_task(&p, 5, 5, NULL, NULL, UC_ATTR_RESET_ON_FORK, 0, 1));
	assert_false(uc_plan_flips(&p));
	assert_non_null(uc_plan_add(&p, UC_KIND_SYSCTL, UC_ATTR_MAX, NULL, 1024, 900));
	assert_true(uc_plan_flips(&p));
	uc_plan_free(&p);
}

static void test_plan_add_copies_and_grows(void **state)
{
	struct uc_plan p;
	struct uc_sched_attr sa = { .size = 56, .sched_policy = 1, .sched_priority = 10,
				    .sched_util_min = 1024, .sched_util_max = 1024 };
	char target[32], comm[16];

	(void)state;
	uc_plan_init(&p);
	assert_int_equal(p.n, 0);
	assert_null(p.rec);
	/* far beyond the first allocation: earlier entries must survive each realloc */
	for (int i = 0; i < 1000; i++) {
		struct uc_change *c;

		if (i % 2) {
			snprintf(comm, sizeof(comm), "c%d", i);
			sa.sched_nice = i;
			c = uc_plan_add_task(&p, 1000 + i / 10, 2000 + i, comm, &sa, UC_ATTR_MAX,
					     1024, i);
		} else {
			snprintf(target, sizeof(target), "g/%d", i);
			c = uc_plan_add(&p, UC_KIND_CGROUP, UC_ATTR_MIN, target, 0, i);
		}
		assert_non_null(c);
		/* the copies are ours: the caller's buffers change next round */
		memset(comm, 'z', sizeof(comm) - 1);
		memset(target, 'z', sizeof(target) - 1);
	}
	assert_int_equal(p.n, 1000);
	assert_true(p.cap >= 1000);
	for (int i = 0; i < 1000; i++) {
		const struct uc_change *c = &p.rec[i];
		char want[32];

		assert_int_equal(c->to, i);
		if (i % 2) {
			snprintf(want, sizeof(want), "c%d", i);
			assert_int_equal(c->kind, UC_KIND_TASK);
			assert_int_equal(c->pid, 1000 + i / 10);
			assert_int_equal(c->tid, 2000 + i);
			assert_string_equal(c->label, want);
			assert_null(c->target);
			assert_int_equal(c->sa->sched_nice, i);
			assert_int_equal(c->sa->sched_priority, 10);
			assert_int_equal(c->sa->sched_util_min, 1024);
		} else {
			snprintf(want, sizeof(want), "g/%d", i);
			assert_int_equal(c->kind, UC_KIND_CGROUP);
			assert_string_equal(c->target, want);
			assert_null(c->label);
		}
	}
	uc_plan_free(&p);
	assert_int_equal(p.n, 0);
	assert_int_equal(p.cap, 0);
	assert_null(p.rec);
	assert_int_equal(p.unchanged, 0);
}

/* A process's threads with equal attributes share one copy in the pool; a
 * thread with other attributes gets its own, and the caller's struct is copied. */
static void test_plan_sa_pool(void **state)
{
	struct uc_sched_attr sa = { .size = 56, .sched_util_max = 1024 };
	struct uc_plan p;
	const struct uc_change *a, *b, *c;

	(void)state;
	uc_plan_init(&p);
	a = uc_plan_add_task(&p, 10, 10, NULL, &sa, UC_ATTR_MAX, 1024, 300);
	b = uc_plan_add_task(&p, 10, 11, NULL, &sa, UC_ATTR_MAX, 1024, 300);
	assert_non_null(a);
	assert_non_null(b);
	assert_ptr_equal(p.rec[0].sa, p.rec[1].sa);
	sa.sched_nice = 5;
	c = uc_plan_add_task(&p, 10, 12, NULL, &sa, UC_ATTR_MAX, 1024, 300);
	assert_non_null(c);
	assert_ptr_not_equal(p.rec[2].sa, p.rec[0].sa);
	sa.sched_nice = 7;	/* the caller's buffer changes: the plan's copies do not */
	assert_int_equal(p.rec[0].sa->sched_nice, 0);
	assert_int_equal(p.rec[2].sa->sched_nice, 5);
	assert_null(p.rec[0].target);
	uc_plan_free(&p);
	assert_null(p.sas);
}

static void test_plan_add_task_no_label(void **state)
{
	struct uc_plan p;
	struct uc_change *c;

	(void)state;
	uc_plan_init(&p);
	c = uc_plan_add_task(&p, 7, 8, "", NULL, UC_ATTR_MIN, 0, 10);
	assert_non_null(c);
	assert_null(c->label);	/* an empty comm is no label */
	assert_int_equal(c->sa->size, 0);	/* no attributes given: zeroed */
	c = uc_plan_add_task(&p, 7, 8, NULL, NULL, UC_ATTR_MAX, 1024, 10);
	assert_non_null(c);
	assert_null(c->label);
	assert_int_equal(p.n, 2);
	uc_plan_free(&p);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(uc_kind_name(UC_KIND_TASK), "task");
	assert_string_equal(uc_kind_name(UC_KIND_SYSCTL), "sysctl");
	assert_string_equal(uc_kind_name(UC_KIND_CGROUP), "cgroup");
	assert_string_equal(uc_kind_name(UC_KIND_SUBTREE), "subtree");

	assert_string_equal(uc_attr_name(UC_KIND_TASK, UC_ATTR_MIN), "util_min");
	assert_string_equal(uc_attr_name(UC_KIND_TASK, UC_ATTR_MAX), "util_max");
	assert_string_equal(uc_attr_name(UC_KIND_TASK, UC_ATTR_RESET_ON_FORK), "reset_on_fork");
	/* a sysctl's attribute is its knob: the target names the sysctl */
	assert_string_equal(uc_attr_name(UC_KIND_SYSCTL, UC_ATTR_MIN), "util_min");
	assert_string_equal(uc_attr_name(UC_KIND_SYSCTL, UC_ATTR_MAX), "util_max");
	assert_string_equal(uc_attr_name(UC_KIND_SYSCTL, UC_ATTR_RT_DEFAULT),
			    "util_min_rt_default");
	/* no knob of that name: not silently the rt_default */
	assert_string_equal(uc_attr_name(UC_KIND_SYSCTL, UC_ATTR_RESET_ON_FORK), "?");
	assert_string_equal(uc_attr_name(UC_KIND_CGROUP, UC_ATTR_MIN), "cpu.uclamp.min");
	assert_string_equal(uc_attr_name(UC_KIND_CGROUP, UC_ATTR_MAX), "cpu.uclamp.max");
	assert_string_equal(uc_attr_name(UC_KIND_SUBTREE, UC_ATTR_CPU_CONTROLLER),
			    "cgroup.subtree_control");

	assert_string_equal(uc_change_state_name(UC_CH_PLANNED), "planned");
	assert_string_equal(uc_change_state_name(UC_CH_DONE), "done");
	assert_string_equal(uc_change_state_name(UC_CH_FAILED), "failed");
	assert_string_equal(uc_change_state_name(UC_CH_GONE), "gone");
	assert_string_equal(uc_change_state_name(UC_CH_ROLLED_BACK), "rolled back");
	assert_string_equal(uc_change_state_name(UC_CH_ROLLBACK_FAILED), "rollback failed");
	assert_string_equal(uc_change_state_name(UC_CH_SKIPPED), "skipped");
	assert_string_equal(uc_change_state_name((enum uc_change_state)99), "?");
	assert_string_equal(uc_change_state_name((enum uc_change_state)-1), "?");

	assert_string_equal(uc_key_state_name(UC_KEY_OFF), "off");
	assert_string_equal(uc_key_state_name(UC_KEY_ON), "on");
	assert_string_equal(uc_key_state_name(UC_KEY_UNKNOWN), "unknown");
	assert_string_equal(uc_key_state_name(UC_KEY_ALWAYS_ON), "always-on");
	assert_string_equal(uc_key_state_name(UC_KEY_UNSUPPORTED), "unsupported");
}

static void test_change_target(void **state)
{
	struct uc_plan p;
	char buf[128];

	(void)state;
	uc_plan_init(&p);
	uc_plan_add_task(&p, 12, 12, "bash", NULL, UC_ATTR_MIN, 0, 1);
	uc_plan_add_task(&p, 12, 13, "bash", NULL, UC_ATTR_MIN, 0, 1);
	uc_plan_add_task(&p, 12, 12, NULL, NULL, UC_ATTR_MIN, 0, 1);
	uc_plan_add_task(&p, 12, 14, NULL, NULL, UC_ATTR_MIN, 0, 1);
	uc_plan_add(&p, UC_KIND_SYSCTL, UC_ATTR_MIN, NULL, 1024, 512);
	uc_plan_add(&p, UC_KIND_SYSCTL, UC_ATTR_RT_DEFAULT, NULL, 1024, 512);
	uc_plan_add(&p, UC_KIND_CGROUP, UC_ATTR_MAX, "system.slice/foo", 10000, 8000);
	uc_plan_add(&p, UC_KIND_CGROUP, UC_ATTR_MAX, "", 10000, 8000);
	uc_plan_add(&p, UC_KIND_SUBTREE, UC_ATTR_CPU_CONTROLLER, NULL, 0, 1);
	assert_int_equal(p.n, 9);

	assert_string_equal(uc_change_target(&p.rec[0], buf, sizeof(buf)), "pid 12 (bash)");
	assert_string_equal(uc_change_target(&p.rec[1], buf, sizeof(buf)), "pid 12 tid 13 (bash)");
	assert_string_equal(uc_change_target(&p.rec[2], buf, sizeof(buf)), "pid 12");
	assert_string_equal(uc_change_target(&p.rec[3], buf, sizeof(buf)), "pid 12 tid 14");
	assert_string_equal(uc_change_target(&p.rec[4], buf, sizeof(buf)),
			    "kernel.sched_util_clamp_min");
	assert_string_equal(uc_change_target(&p.rec[5], buf, sizeof(buf)),
			    "kernel.sched_util_clamp_min_rt_default");
	assert_string_equal(uc_change_target(&p.rec[6], buf, sizeof(buf)), "system.slice/foo");
	assert_string_equal(uc_change_target(&p.rec[7], buf, sizeof(buf)), "/");
	assert_string_equal(uc_change_target(&p.rec[8], buf, sizeof(buf)), "/");
	/* truncated, terminated */
	char small[8];
	assert_ptr_equal(uc_change_target(&p.rec[1], small, sizeof(small)), small);
	assert_string_equal(small, "pid 12 ");
	uc_plan_free(&p);
}

static void test_change_value(void **state)
{
	struct uc_plan p;
	char buf[32];

	(void)state;
	uc_plan_init(&p);
	uc_plan_add_task(&p, 1, 1, NULL, NULL, UC_ATTR_MIN, 0, 512);
	uc_plan_add_task(&p, 1, 1, NULL, NULL, UC_ATTR_RESET_ON_FORK, 0, 1);
	uc_plan_add(&p, UC_KIND_SYSCTL, UC_ATTR_MAX, NULL, 1024, 800);
	uc_plan_add(&p, UC_KIND_CGROUP, UC_ATTR_MIN, "a", 0, 4000);
	uc_plan_add(&p, UC_KIND_SUBTREE, UC_ATTR_CPU_CONTROLLER, "a", 0, 1);

	assert_string_equal(uc_change_value(&p.rec[0], 512, buf, sizeof(buf)), "512");
	assert_string_equal(uc_change_value(&p.rec[0], 0, buf, sizeof(buf)), "0");
	assert_string_equal(uc_change_value(&p.rec[0], UC_RESET, buf, sizeof(buf)), "default");
	assert_string_equal(uc_change_value(&p.rec[1], 1, buf, sizeof(buf)), "yes");
	assert_string_equal(uc_change_value(&p.rec[1], 0, buf, sizeof(buf)), "no");
	assert_string_equal(uc_change_value(&p.rec[2], 800, buf, sizeof(buf)), "800");
	assert_string_equal(uc_change_value(&p.rec[3], 4000, buf, sizeof(buf)), "40.00");
	assert_string_equal(uc_change_value(&p.rec[3], 5, buf, sizeof(buf)), "0.05");
	assert_string_equal(uc_change_value(&p.rec[3], 0, buf, sizeof(buf)), "0.00");
	assert_string_equal(uc_change_value(&p.rec[3], 10000, buf, sizeof(buf)), "max");
	assert_string_equal(uc_change_value(&p.rec[4], 1, buf, sizeof(buf)), "yes");
	assert_string_equal(uc_change_value(&p.rec[4], 0, buf, sizeof(buf)), "no");
	uc_plan_free(&p);
}

/* ---- the guard ----------------------------------------------------------- */

static enum uc_guard_verdict expected_verdict(bool flips, enum uc_key_state key, bool yes, bool tty)
{
	if (!flips)
		return UC_GUARD_GO;
	switch (key) {
	case UC_KEY_ON:
	case UC_KEY_ALWAYS_ON:
	case UC_KEY_UNSUPPORTED:
		return UC_GUARD_GO;
	case UC_KEY_OFF:
	case UC_KEY_UNKNOWN:
		break;
	}
	if (yes)
		return UC_GUARD_GO_WARN;
	return tty ? UC_GUARD_ASK : UC_GUARD_REFUSE;
}

/* The full table, written out: the model above must agree with it too. */
struct guard_row {
	bool flips;
	enum uc_key_state key;
	bool yes, tty;
	enum uc_guard_verdict v;
};

static const struct guard_row guard_rows[] = {
	{ false, UC_KEY_UNKNOWN, false, false, UC_GUARD_GO },
	{ false, UC_KEY_UNKNOWN, false, true, UC_GUARD_GO },
	{ false, UC_KEY_UNKNOWN, true, false, UC_GUARD_GO },
	{ false, UC_KEY_UNKNOWN, true, true, UC_GUARD_GO },
	{ false, UC_KEY_OFF, false, false, UC_GUARD_GO },
	{ false, UC_KEY_OFF, false, true, UC_GUARD_GO },
	{ false, UC_KEY_OFF, true, false, UC_GUARD_GO },
	{ false, UC_KEY_OFF, true, true, UC_GUARD_GO },
	{ false, UC_KEY_ON, false, false, UC_GUARD_GO },
	{ false, UC_KEY_ON, false, true, UC_GUARD_GO },
	{ false, UC_KEY_ON, true, false, UC_GUARD_GO },
	{ false, UC_KEY_ON, true, true, UC_GUARD_GO },
	{ false, UC_KEY_ALWAYS_ON, false, false, UC_GUARD_GO },
	{ false, UC_KEY_ALWAYS_ON, false, true, UC_GUARD_GO },
	{ false, UC_KEY_ALWAYS_ON, true, false, UC_GUARD_GO },
	{ false, UC_KEY_ALWAYS_ON, true, true, UC_GUARD_GO },
	{ false, UC_KEY_UNSUPPORTED, false, false, UC_GUARD_GO },
	{ false, UC_KEY_UNSUPPORTED, false, true, UC_GUARD_GO },
	{ false, UC_KEY_UNSUPPORTED, true, false, UC_GUARD_GO },
	{ false, UC_KEY_UNSUPPORTED, true, true, UC_GUARD_GO },
	{ true, UC_KEY_UNKNOWN, false, false, UC_GUARD_REFUSE },
	{ true, UC_KEY_UNKNOWN, false, true, UC_GUARD_ASK },
	{ true, UC_KEY_UNKNOWN, true, false, UC_GUARD_GO_WARN },
	{ true, UC_KEY_UNKNOWN, true, true, UC_GUARD_GO_WARN },
	{ true, UC_KEY_OFF, false, false, UC_GUARD_REFUSE },
	{ true, UC_KEY_OFF, false, true, UC_GUARD_ASK },
	{ true, UC_KEY_OFF, true, false, UC_GUARD_GO_WARN },
	{ true, UC_KEY_OFF, true, true, UC_GUARD_GO_WARN },
	{ true, UC_KEY_ON, false, false, UC_GUARD_GO },
	{ true, UC_KEY_ON, false, true, UC_GUARD_GO },
	{ true, UC_KEY_ON, true, false, UC_GUARD_GO },
	{ true, UC_KEY_ON, true, true, UC_GUARD_GO },
	{ true, UC_KEY_ALWAYS_ON, false, false, UC_GUARD_GO },
	{ true, UC_KEY_ALWAYS_ON, false, true, UC_GUARD_GO },
	{ true, UC_KEY_ALWAYS_ON, true, false, UC_GUARD_GO },
	{ true, UC_KEY_ALWAYS_ON, true, true, UC_GUARD_GO },
	{ true, UC_KEY_UNSUPPORTED, false, false, UC_GUARD_GO },
	{ true, UC_KEY_UNSUPPORTED, false, true, UC_GUARD_GO },
	{ true, UC_KEY_UNSUPPORTED, true, false, UC_GUARD_GO },
	{ true, UC_KEY_UNSUPPORTED, true, true, UC_GUARD_GO },
};

/* A plan that flips (a task clamp) or not (a same-value sysctl + a flag). */
static void make_plan(struct uc_plan *p, bool flips)
{
	uc_plan_init(p);
	assert_non_null(uc_plan_add(p, UC_KIND_SYSCTL, UC_ATTR_MIN, NULL, 1024, 1024));
	assert_non_null(uc_plan_add_task(p, 3, 3, "t", NULL, UC_ATTR_RESET_ON_FORK, 0, 1));
	if (flips)
		assert_non_null(uc_plan_add_task(p, 3, 3, "t", NULL, UC_ATTR_MAX, 1024, 300));
	assert_int_equal(uc_plan_flips(p), flips);
}

static void test_guard_table(void **state)
{
	const size_t nrows = sizeof(guard_rows) / sizeof(guard_rows[0]);

	(void)state;
	assert_int_equal(nrows, 2 * 5 * 2 * 2);
	for (size_t i = 0; i < nrows; i++) {
		const struct guard_row *r = &guard_rows[i];
		struct uc_consent c = { .yes = r->yes, .interactive = r->tty };
		struct uc_plan p;
		enum uc_guard_verdict v;

		make_plan(&p, r->flips);
		v = uc_guard_decide(uc_plan_flips(&p), r->key, &c);
		if (v != r->v || v != expected_verdict(r->flips, r->key, r->yes, r->tty))
			fail_msg("row %zu: flips %d key %s yes %d tty %d: verdict %d, expected %d",
				 i, r->flips, uc_key_state_name(r->key), r->yes, r->tty, v, r->v);
		uc_plan_free(&p);
	}
}

/* An empty plan never needs consent. */
static void test_guard_empty_plan(void **state)
{
	struct uc_plan p;
	struct uc_consent c = { .yes = false, .interactive = false };

	(void)state;
	uc_plan_init(&p);
	assert_int_equal(uc_guard_decide(uc_plan_flips(&p), UC_KEY_OFF, &c), UC_GUARD_GO);
	assert_int_equal(uc_guard_decide(uc_plan_flips(&p), UC_KEY_UNKNOWN, &c), UC_GUARD_GO);
}

/* A cgroup rewrite of the same value still needs consent (it flips). */
static void test_guard_cgroup_same_value(void **state)
{
	struct uc_plan p;
	struct uc_consent c = { .yes = false, .interactive = false };

	(void)state;
	uc_plan_init(&p);
	assert_non_null(uc_plan_add(&p, UC_KIND_CGROUP, UC_ATTR_MAX, "x", 10000, 10000));
	assert_int_equal(uc_guard_decide(uc_plan_flips(&p), UC_KEY_OFF, &c), UC_GUARD_REFUSE);
	uc_plan_free(&p);
}

static void test_guard_warning_text(void **state)
{
	const char *off = uc_guard_warning(UC_KEY_OFF);
	const char *unk = uc_guard_warning(UC_KEY_UNKNOWN);
	const char *texts[] = { off, unk };
	int lines;

	(void)state;
	assert_non_null(strstr(off, " turns on"));
	assert_null(strstr(off, "may "));
	assert_non_null(strstr(unk, "may turn on"));
	for (size_t i = 0; i < 2; i++) {
		const char *t = texts[i], *nl = strchr(t, '\n');

		/* what is enabled, that it lasts until reboot, the measured cost:
		 * what was measured (instructions) and where (an emulator) */
		assert_non_null(strstr(t, "sched_uclamp_used"));
		assert_non_null(strstr(t, "fast path"));
		assert_non_null(strstr(t, "until reboot"));
		assert_string_equal(nl + 1, UC_FASTPATH_COST);
		assert_non_null(strstr(t, "instructions"));
		assert_non_null(strstr(t, "measured in an emulator"));
		assert_non_null(strstr(t, "see uclampctl(8)"));
		/* two lines, no trailing newline (the printer adds it), each
		 * within 80 columns: the first after "uclampctl: warning: " */
		lines = 1;
		for (const char *s = t; *s; s++)
			lines += *s == '\n';
		assert_int_equal(lines, 2);
		assert_true(t[strlen(t) - 1] != '\n');
		assert_true(strlen("uclampctl: warning: ") + (size_t)(nl - t) <= 80);
		assert_true(strlen(nl + 1) <= 80);
	}
}

/* A fresh plan under the lock keeps only the tasks the person was shown:
 * a reused PID (same PID, another start time) and a new task are dropped
 * and counted gone; a changed value of a shown task and a sysctl stay. */
static void test_keep_shown(void **state)
{
	struct uc_plan shown, fresh;

	(void)state;
	uc_plan_init(&shown);
	uc_plan_init(&fresh);
	assert_non_null(uc_plan_add_task(&shown, 10, 10, "a", NULL, UC_ATTR_MAX, 1024, 300));
	shown.rec[0].start = 111;
	assert_non_null(uc_plan_add_task(&shown, 20, 20, "b", NULL, UC_ATTR_MAX, 1024, 300));
	shown.rec[1].start = 222;
	assert_non_null(uc_plan_add(&shown, UC_KIND_SYSCTL, UC_ATTR_MIN, "sched_util_clamp_min",
				    1024, 512));

	assert_non_null(uc_plan_add_task(&fresh, 10, 10, "a", NULL, UC_ATTR_MAX, 800, 300));
	fresh.rec[0].start = 111;	/* shown, its value changed meanwhile: kept */
	assert_non_null(uc_plan_add_task(&fresh, 20, 20, "new", NULL, UC_ATTR_MIN, 0, 10));
	fresh.rec[1].start = 999;	/* PID 20 reused: two changes, one task */
	assert_non_null(uc_plan_add_task(&fresh, 20, 20, "new", NULL, UC_ATTR_MAX, 1024, 300));
	fresh.rec[2].start = 999;
	assert_non_null(uc_plan_add_task(&fresh, 30, 30, "c", NULL, UC_ATTR_MAX, 1024, 300));
	fresh.rec[3].start = 333;	/* started while the question was open */
	assert_non_null(uc_plan_add(&fresh, UC_KIND_SYSCTL, UC_ATTR_MIN, "sched_util_clamp_min",
				    1024, 512));

	assert_int_equal(uc_plan_keep_shown(&fresh, &shown), 2);
	assert_int_equal(fresh.n, 2);
	assert_int_equal(fresh.gone, 2);
	assert_int_equal(fresh.rec[0].pid, 10);
	assert_int_equal(fresh.rec[0].from, 800);
	assert_int_equal(fresh.rec[1].kind, UC_KIND_SYSCTL);
	assert_int_equal(fresh.nstr, 2);	/* "a", the sysctl's name: the others freed */
	uc_plan_free(&fresh);
	uc_plan_free(&shown);
}

/* Dropping changes frees exactly the strings they own, counted in nstr;
 * changes without strings (a task set's threads) are dropped unread. */
static void test_drop_from_strings(void **state)
{
	struct uc_plan p;

	(void)state;
	uc_plan_init(&p);
	assert_non_null(uc_plan_add_task(&p, 1, 1, "one", NULL, UC_ATTR_MAX, 1024, 300));
	assert_non_null(uc_plan_add_task(&p, 1, 2, NULL, NULL, UC_ATTR_MAX, 1024, 300));
	assert_non_null(uc_plan_add(&p, UC_KIND_CGROUP, UC_ATTR_MAX, "a/b", 10000, 5000));
	assert_non_null(uc_plan_add_systemd(&p, "x.slice/y.service", "y.service", -1, 100));
	assert_non_null(uc_plan_add_task(&p, 1, 3, "", NULL, UC_ATTR_MAX, 1024, 300));
	assert_int_equal(p.nstr, 4);	/* an empty comm is no label */
	uc_plan_drop_from(&p, 3);
	assert_int_equal(p.n, 3);
	assert_int_equal(p.nstr, 2);
	assert_string_equal(p.rec[2].target, "a/b");
	uc_plan_drop_from(&p, 1);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.nstr, 1);
	assert_string_equal(p.rec[0].label, "one");
	uc_plan_drop_from(&p, 5);	/* past the end: nothing */
	assert_int_equal(p.n, 1);
	uc_plan_free(&p);
	assert_int_equal(p.nstr, 0);
	assert_int_equal(p.n, 0);
}

/* ---- runs of threads ---- */

static const struct uc_task_change both[] = {
	{ UC_ATTR_MIN, 0, 100 }, { UC_ATTR_MAX, 1024, 300 },
};

/* thread tid of process 10 (start 500) with min and max: the usual thread */
static int thread(struct uc_plan *p, pid_t tid, const char *comm,
		  const struct uc_sched_attr *sa)
{
	return uc_plan_add_thread(p, 10, tid, 500, comm, sa, both, 2);
}

/* the plan's changes as its readers see them: want[i] is change i's tid, and each is
 * min then max of both[] in the PLANNED state */
static void expect_threads(const struct uc_plan *p, const pid_t *want, size_t n)
{
	struct uc_plan_it it = { 0 };
	const struct uc_change *c;
	size_t i = 0;

	assert_int_equal(p->n, 2 * n);
	while ((c = uc_plan_next(p, &it))) {
		assert_true(i < 2 * n);
		assert_int_equal(c->kind, UC_KIND_TASK);
		assert_int_equal(c->pid, 10);
		assert_int_equal(c->tid, want[i / 2]);
		assert_int_equal(c->attr, both[i % 2].attr);
		assert_int_equal(c->to, both[i % 2].to);
		assert_true(c->start == 500);
		assert_int_equal(c->state, UC_CH_PLANNED);
		assert_null(c->target);	/* a run is the core's: a reader sees none */
		i++;
	}
	assert_int_equal(i, 2 * n);
}

/* Threads of one process with the same attributes, start and changes, unnamed, are one
 * run: the first thread's records, 4 bytes a thread after it. A name, other attributes,
 * another process or other changes start new records. */
static void test_runs_build(void **state)
{
	static const pid_t all[] = { 10, 11, 12, 13, 14, 15, 16, 17, 18 };
	struct uc_sched_attr sa = { .size = 56, .sched_util_max = 1024 };
	struct uc_plan p;

	(void)state;
	uc_plan_init(&p);
	for (pid_t tid = 10; tid <= 12; tid++)
		assert_int_equal(thread(&p, tid, NULL, &sa), 0);
	assert_int_equal(p.nrec, 2);	/* min and max of 10, for 11 and 12 too */
	assert_non_null(p.rec[0].run);
	assert_ptr_equal(p.rec[0].run, p.rec[1].run);
	assert_int_equal(p.rec[0].run->n, 2);
	assert_int_equal(thread(&p, 13, "", &sa), 0);	/* an empty name is none: joins */
	assert_int_equal(p.nrec, 2);
	assert_int_equal(thread(&p, 14, "worker", &sa), 0);	/* named: its own records */
	assert_int_equal(thread(&p, 15, NULL, &sa), 0);	/* not after a named one */
	assert_int_equal(p.nrec, 6);
	sa.sched_nice = 3;
	assert_int_equal(thread(&p, 16, NULL, &sa), 0);	/* other attributes */
	assert_int_equal(p.nrec, 8);
	assert_int_equal(uc_plan_add_thread(&p, 10, 17, 501, NULL, &sa, both, 2), 0);
	assert_int_equal(uc_plan_add_thread(&p, 10, 18, 501, NULL, &sa, both, 1), 0);
	assert_int_equal(p.nrec, 11);	/* another start time, then fewer changes */
	assert_int_equal(uc_plan_add_thread(&p, 10, 18, 501, NULL, &sa, both, 1), 0);
	assert_int_equal(p.nrec, 12);	/* the same thread again is not a thread of a run */
	assert_int_equal(p.n, 2 * 8 + 2);
	uc_plan_drop_from(&p, 2 * 8);
	{
		struct uc_plan_it it = { 0 };
		const struct uc_change *c;
		size_t i = 0;

		while ((c = uc_plan_next(&p, &it)) && i < 2 * 6)
			assert_int_equal(c->tid, all[i++ / 2]);
	}
	uc_plan_free(&p);
}

/* Readers see a run's threads in order, each with its changes; dropping changes
 * takes a run's last threads first, then its records. */
static void test_runs_read_and_drop(void **state)
{
	static const pid_t all[] = { 10, 11, 12, 13 };
	struct uc_sched_attr sa = { .size = 56 };
	struct uc_plan p;

	(void)state;
	uc_plan_init(&p);
	for (pid_t tid = 10; tid <= 13; tid++)
		assert_int_equal(thread(&p, tid, NULL, &sa), 0);
	expect_threads(&p, all, 4);
	assert_int_equal(p.nstr, 1);	/* the run */
	assert_true(uc_plan_flips(&p));
	uc_plan_drop_from(&p, 4);
	expect_threads(&p, all, 2);
	uc_plan_drop_from(&p, 2);
	expect_threads(&p, all, 1);
	assert_null(p.rec[0].run);	/* no thread left: freed */
	assert_int_equal(p.nstr, 0);
	assert_int_equal(thread(&p, 11, NULL, &sa), 0);	/* a run again */
	expect_threads(&p, all, 2);
	uc_plan_free(&p);
	assert_int_equal(p.n, 0);
}

/* The consent re-plan: threads of a run nobody was shown are dropped from it in
 * place, its first thread too; the plans compare change by change, a run or not. */
static void test_runs_keep_shown(void **state)
{
	static const pid_t kept[] = { 11, 13, 14 };
	struct uc_sched_attr sa = { .size = 56 };
	struct uc_plan shown, fresh;

	(void)state;
	uc_plan_init(&shown);
	uc_plan_init(&fresh);
	for (pid_t tid = 11; tid <= 14; tid++) {
		struct uc_change *c;

		if (tid == 12)
			continue;
		for (size_t k = 0; k < 2; k++) {
			c = uc_plan_add_task(&shown, 10, tid, NULL, &sa, both[k].attr, both[k].from,
					     both[k].to);
			assert_non_null(c);
			c->start = 500;
		}
	}
	for (pid_t tid = 10; tid <= 14; tid++)	/* 10 and 12 are new */
		assert_int_equal(thread(&fresh, tid, NULL, &sa), 0);
	assert_false(uc_plan_same(&shown, &fresh));
	assert_int_equal(uc_plan_keep_shown(&fresh, &shown), 2);
	assert_int_equal(fresh.gone, 2);
	assert_int_equal(fresh.nrec, 2);
	expect_threads(&fresh, kept, 3);
	assert_true(uc_plan_same(&shown, &fresh));
	/* none shown: the run goes, with what it owns */
	uc_plan_free(&shown);
	uc_plan_init(&shown);
	assert_int_equal(uc_plan_keep_shown(&fresh, &shown), 3);
	assert_int_equal(fresh.n, 0);
	assert_int_equal(fresh.nstr, 0);
	uc_plan_free(&fresh);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flip_rules),
		cmocka_unit_test(test_plan_flips_any),
		cmocka_unit_test(test_plan_add_copies_and_grows),
		cmocka_unit_test(test_plan_sa_pool),
		cmocka_unit_test(test_plan_add_task_no_label),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_change_target),
		cmocka_unit_test(test_change_value),
		cmocka_unit_test(test_guard_table),
		cmocka_unit_test(test_guard_empty_plan),
		cmocka_unit_test(test_guard_cgroup_same_value),
		cmocka_unit_test(test_guard_warning_text),
		cmocka_unit_test(test_keep_shown),
		cmocka_unit_test(test_drop_from_strings),
		cmocka_unit_test(test_runs_build),
		cmocka_unit_test(test_runs_read_and_drop),
		cmocka_unit_test(test_runs_keep_shown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
