/*
 * sysctl.c: the write order of the system clamps, the refusal of min > max
 * end states, rollback through the executor, and file access via the sysroot.
 *
 * The ordering test checks every combination of current and wanted values
 * from a set of edge values against a model of the kernel's handler: each
 * single write must keep min <= max (the kernel undoes one that does not),
 * the end state must be the wanted one, and only differing values are written.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "uclamp/note.h"
#include "uclamp/plan_run.h"
#include "uclamp/sched.h"
#include "uclamp/sysctl.h"
#include "uclamp/sysroot.h"
#include "uclamp/value.h"
#include "fakeroot.h"

/* ---- a model of the kernel's sysctl_sched_uclamp_handler ----------------- */
static struct {
	long min, max, rt;
	int writes;		/* successful writes */
	int rejected;		/* writes the kernel would have refused */
	int fail_at;		/* 1-based write number to fail with fail_err, 0: never */
	int fail_err;
	int calls;
	struct { enum uc_attr attr; long value; } log[16];
} k;

static void kernel_reset(long min, long max, long rt)
{
	memset(&k, 0, sizeof(k));
	k.min = min;
	k.max = max;
	k.rt = rt;
}

static int model_write(enum uc_attr attr, long value)
{
	long min = k.min, max = k.max, rt = k.rt;

	if (k.calls < 16) {
		k.log[k.calls].attr = attr;
		k.log[k.calls].value = value;
	}
	k.calls++;
	if (k.fail_at && k.calls == k.fail_at)
		return k.fail_err;
	if (attr == UC_ATTR_MIN)
		min = value;
	else if (attr == UC_ATTR_MAX)
		max = value;
	else
		rt = value;
	/* the kernel's check, then it restores the old values */
	if (min > max || max > 1024 || rt > 1024 || min < 0 || rt < 0) {
		k.rejected++;
		return -EINVAL;
	}
	k.min = min;
	k.max = max;
	k.rt = rt;
	k.writes++;
	return 0;
}

static int no_task(pid_t tid, struct uc_sched_attr *a) { return -ENOSYS; }
static int no_cg(const char *p, enum uc_attr a, long v) { return -ENOSYS; }
static int no_subtree(const char *p, int e) { return -ENOSYS; }

static const struct uc_exec_ops model_ops = {
	.task_setattr = no_task,
	.sysctl_write = model_write,
	.cgroup_write = no_cg,
	.subtree_set = no_subtree,
};

static const long edge[] = { 0, 1, 300, 511, 512, 513, 1023, 1024 };
#define NEDGE (sizeof(edge) / sizeof(edge[0]))

/* index NEDGE = UC_KEEP, NEDGE + 1 = UC_RESET */
static long want_value(size_t i)
{
	return i < NEDGE ? edge[i] : i == NEDGE ? UC_KEEP : UC_RESET;
}

static long end_of(long cur, long want)
{
	return want == UC_KEEP ? cur : want == UC_RESET ? 1024 : want;
}

static void test_all_orderings(void **state)
{
	size_t cases = 0, refused = 0;

	(void)state;
	for (size_t a = 0; a < NEDGE; a++)
	for (size_t b = a; b < NEDGE; b++)	/* current: min <= max */
	for (size_t c = 0; c < NEDGE + 2; c++)
	for (size_t d = 0; d < NEDGE + 2; d++) {
		struct uc_sysctl_values cur = { edge[a], edge[b], 1024 };
		struct uc_sysctl_values want = { want_value(c), want_value(d), UC_KEEP };
		long emin = end_of(cur.min, want.min), emax = end_of(cur.max, want.max);
		size_t differ = (want.min != UC_KEEP && emin != cur.min) +
				(want.max != UC_KEEP && emax != cur.max);
		size_t asked = (want.min != UC_KEEP) + (want.max != UC_KEEP);
		struct uc_exec_report r;
		struct uc_plan p;
		int rc;

		uc_plan_init(&p);
		rc = uc_sysctl_plan(&p, &cur, &want);
		cases++;
		if (emin > emax) {
			refused++;
			if (rc != -EINVAL || p.n != 0 || p.unchanged != 0)
				fail_msg("cur %ld/%ld want %ld/%ld: rc %d n %zu, expected "
					 "-EINVAL and an empty plan",
					 cur.min, cur.max, want.min, want.max, rc, p.n);
			uc_plan_free(&p);
			continue;
		}
		if (rc != 0)
			fail_msg("cur %ld/%ld want %ld/%ld: rc %d", cur.min, cur.max, want.min,
				 want.max, rc);
		assert_int_equal(p.n, differ);
		assert_int_equal(p.unchanged, asked - differ);
		for (size_t i = 0; i < p.n; i++) {
			assert_int_equal(p.rec[i].kind, UC_KIND_SYSCTL);
			assert_true(p.rec[i].from != p.rec[i].to);
			assert_true(p.rec[i].flips);	/* a changed sysctl enables the key */
		}

		kernel_reset(cur.min, cur.max, 1024);
		rc = uc_plan_execute(&p, UC_EXEC_ATOMIC, &model_ops, NULL, &r);
		if (rc != 0 || k.rejected)
			fail_msg("cur %ld/%ld want %ld/%ld: a write was rejected (order %s first)",
				 cur.min, cur.max, want.min, want.max,
				 p.n ? uc_sysctl_name(p.rec[0].attr) : "-");
		assert_int_equal(k.min, emin);
		assert_int_equal(k.max, emax);
		assert_int_equal(k.writes, (int)differ);
		assert_int_equal(r.done, differ);
		uc_plan_free(&p);
	}
	/* the loop covered both outcomes */
	assert_true(refused > 0);
	assert_true(cases - refused > refused);
}

/* a fresh plan from cur to want: planned, with n changes */
static void plan_ok(struct uc_plan *p, const struct uc_sysctl_values *cur,
		    const struct uc_sysctl_values *want, size_t n)
{
	uc_plan_init(p);
	assert_int_equal(uc_sysctl_plan(p, cur, want), 0);
	assert_int_equal(p->n, n);
}

/* The order uclampset uses (min first) fails exactly when min rises above
 * the current max; check that the plan puts max first there and only there. */
static void test_order_is_minimal(void **state)
{
	struct uc_sysctl_values cur = { 0, 512, 1024 }, want = { 800, 1024, UC_KEEP };
	struct uc_plan p;

	(void)state;
	plan_ok(&p, &cur, &want, 2);
	assert_int_equal(p.rec[0].attr, UC_ATTR_MAX);
	assert_int_equal(p.rec[1].attr, UC_ATTR_MIN);
	uc_plan_free(&p);

	/* lowering max below the current min: min first */
	cur = (struct uc_sysctl_values){ 1024, 1024, 1024 };
	want = (struct uc_sysctl_values){ 200, 400, UC_KEEP };
	plan_ok(&p, &cur, &want, 2);
	assert_int_equal(p.rec[0].attr, UC_ATTR_MIN);
	assert_int_equal(p.rec[0].to, 200);
	assert_int_equal(p.rec[1].attr, UC_ATTR_MAX);
	uc_plan_free(&p);
}

static void test_refusals(void **state)
{
	struct uc_sysctl_values cur = { 1024, 1024, 1024 };
	struct uc_sysctl_values bad[] = {
		{ 800, 500, UC_KEEP },		/* end state min > max */
		{ UC_KEEP, 500, UC_KEEP },	/* max below the current min, min kept */
		{ 1025, UC_KEEP, UC_KEEP },
		{ UC_KEEP, 2000, UC_KEEP },
		{ UC_KEEP, UC_KEEP, 1025 },
		{ -5, UC_KEEP, UC_KEEP },
		{ UC_KEEP, UC_KEEP, -7 },
	};
	struct uc_plan p;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uc_plan_init(&p);
		assert_int_equal(uc_sysctl_plan(&p, &cur, &bad[i]), -EINVAL);
		assert_int_equal(p.n, 0);
		uc_plan_free(&p);
	}
}

static void test_rt_default(void **state)
{
	struct uc_sysctl_values cur = { 0, 1024, 1024 }, want = { UC_KEEP, UC_KEEP, 0 };
	struct uc_sysctl_values old = { 0, 1024, UC_SYSCTL_ABSENT };
	struct uc_plan p;

	(void)state;
	plan_ok(&p, &cur, &want, 1);
	assert_int_equal(p.rec[0].attr, UC_ATTR_RT_DEFAULT);
	assert_int_equal(p.rec[0].from, 1024);
	assert_int_equal(p.rec[0].to, 0);
	uc_plan_free(&p);

	/* same value: nothing planned, one unchanged */
	want.rt_default = 1024;
	plan_ok(&p, &cur, &want, 0);
	assert_int_equal(p.unchanged, 1);
	uc_plan_free(&p);

	/* before 5.9: the knob does not exist; asking for it is -ENOENT, and
	 * min/max asked in the same call are not planned either */
	want = (struct uc_sysctl_values){ 100, UC_KEEP, 0 };
	uc_plan_init(&p);
	assert_int_equal(uc_sysctl_plan(&p, &old, &want), -ENOENT);
	assert_int_equal(p.n, 0);
	uc_plan_free(&p);
	/* ... and leaving it alone works */
	want.rt_default = UC_KEEP;
	plan_ok(&p, &old, &want, 1);
	uc_plan_free(&p);
}

/* A later write fails: the earlier one is restored, newest first. */
static void test_rollback(void **state)
{
	struct uc_sysctl_values cur = { 0, 512, 1024 }, want = { 800, 1024, 256 };
	struct uc_exec_report r;
	struct uc_plan p;
	int rc;

	(void)state;
	plan_ok(&p, &cur, &want, 3);	/* max, min, rt_default */

	kernel_reset(0, 512, 1024);
	k.fail_at = 2;
	k.fail_err = -EACCES;
	rc = uc_plan_execute(&p, UC_EXEC_ATOMIC, &model_ops, NULL, &r);
	assert_int_equal(rc, -EACCES);
	assert_int_equal(k.calls, 3);	/* max 1024, min 800 (fails), max back to 512 */
	assert_int_equal(k.log[0].attr, UC_ATTR_MAX);
	assert_int_equal(k.log[0].value, 1024);
	assert_int_equal(k.log[1].attr, UC_ATTR_MIN);
	assert_int_equal(k.log[2].attr, UC_ATTR_MAX);
	assert_int_equal(k.log[2].value, 512);
	assert_int_equal(k.min, 0);
	assert_int_equal(k.max, 512);
	assert_int_equal(k.rt, 1024);
	assert_int_equal(p.rec[0].state, UC_CH_ROLLED_BACK);
	assert_int_equal(p.rec[1].state, UC_CH_FAILED);
	assert_int_equal(p.rec[1].err, -EACCES);
	assert_int_equal(p.rec[2].state, UC_CH_SKIPPED);
	assert_int_equal(r.rolled_back, 1);
	assert_int_equal(r.skipped, 1);
	uc_plan_free(&p);

	/* the last write fails: both earlier ones are undone, newest first */
	uc_plan_init(&p);
	assert_int_equal(uc_sysctl_plan(&p, &cur, &want), 0);
	kernel_reset(0, 512, 1024);
	k.fail_at = 3;
	k.fail_err = -EROFS;
	assert_int_equal(uc_plan_execute(&p, UC_EXEC_ATOMIC, &model_ops, NULL, &r), -EROFS);
	assert_int_equal(k.calls, 5);
	assert_int_equal(k.log[3].attr, UC_ATTR_MIN);
	assert_int_equal(k.log[3].value, 0);
	assert_int_equal(k.log[4].attr, UC_ATTR_MAX);
	assert_int_equal(k.log[4].value, 512);
	assert_int_equal(k.rejected, 0);	/* the undo order kept min <= max too */
	assert_int_equal(k.min, 0);
	assert_int_equal(k.max, 512);
	assert_int_equal(r.rolled_back, 2);
	uc_plan_free(&p);
}

/* ---- files through the sysroot -------------------------------------------- */
static char root[256];
static const struct fr_suite suite = { root, sizeof(root), "test-sysctl", true,
					{ "proc/sys/kernel" } };

static void put(const char *name, const char *text)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "proc/sys/kernel/%s", name);
	if (!text) {
		assert_int_equal(fr_remove(root, rel), 0);
		return;
	}
	assert_int_equal(fr_write(root, rel, text), 0);
}

static void test_files(void **state)
{
	struct uc_sysctl_values v;
	long x;

	(void)state;
	put("sched_util_clamp_min", "128\n");
	put("sched_util_clamp_max", "1024\n");
	put("sched_util_clamp_min_rt_default", NULL);
	assert_int_equal(uc_sysctl_read_all(&v), 0);
	assert_int_equal(v.min, 128);
	assert_int_equal(v.max, 1024);
	assert_int_equal(v.rt_default, UC_SYSCTL_ABSENT);
	assert_int_equal(uc_sysctl_read(UC_ATTR_RT_DEFAULT, &x), -ENOENT);

	/* a shorter value over a longer one reads back cleanly */
	assert_int_equal(uc_sysctl_write(UC_ATTR_MAX, 7), 0);
	assert_int_equal(uc_sysctl_read(UC_ATTR_MAX, &x), 0);
	assert_int_equal(x, 7);
	/* out of range: refused before the file is touched */
	assert_int_equal(uc_sysctl_write(UC_ATTR_MAX, 1025), -ERANGE);
	assert_int_equal(uc_sysctl_write(UC_ATTR_MAX, -1), -ERANGE);
	assert_int_equal(uc_sysctl_read(UC_ATTR_MAX, &x), 0);
	assert_int_equal(x, 7);
	/* the knob missing: -ENOENT, nothing created */
	assert_int_equal(uc_sysctl_write(UC_ATTR_RT_DEFAULT, 5), -ENOENT);
	assert_int_equal(uc_sysctl_read(UC_ATTR_RT_DEFAULT, &x), -ENOENT);

	put("sched_util_clamp_min_rt_default", "1024\n");
	assert_int_equal(uc_sysctl_read_all(&v), 0);
	assert_int_equal(v.rt_default, 1024);

	/* no uclamp: min or max missing */
	put("sched_util_clamp_min", NULL);
	assert_int_equal(uc_sysctl_read_all(&v), -ENOENT);
	put("sched_util_clamp_min", "0\n");
	put("sched_util_clamp_max", NULL);
	assert_int_equal(uc_sysctl_read_all(&v), -ENOENT);
	/* garbage in a knob is an error, not a value */
	put("sched_util_clamp_max", "abc\n");
	assert_int_equal(uc_sysctl_read_all(&v), -EINVAL);
}

static void test_names(void **state)
{
	char b[128];

	(void)state;
	assert_string_equal(uc_sysctl_name(UC_ATTR_MIN), "sched_util_clamp_min");
	assert_string_equal(uc_sysctl_name(UC_ATTR_MAX), "sched_util_clamp_max");
	assert_string_equal(uc_sysctl_name(UC_ATTR_RT_DEFAULT), "sched_util_clamp_min_rt_default");
	assert_null(uc_sysctl_name(UC_ATTR_RESET_ON_FORK));
	assert_string_equal(uc_sysctl_path(UC_ATTR_MAX, b, sizeof(b)),
			    "/proc/sys/kernel/sched_util_clamp_max");
}

/* One row per knob, each found by its attribute, and the value picker in step with it. */
static void test_knob_table(void **state)
{
	struct uc_sysctl_values v = { .min = 11, .max = 22, .rt_default = 33 };
	const long want[] = { 11, 22, 33 };

	(void)state;
	for (size_t i = 0; i < UC_SYSCTL_NKNOBS; i++) {
		const struct uc_sysctl_knob *kn = &uc_sysctl_knobs[i];

		assert_ptr_equal(uc_sysctl_knob(kn->attr), kn);
		assert_string_equal(uc_sysctl_name(kn->attr), kn->file);
		assert_int_equal(uc_sysctl_value(&v, kn->attr), want[i]);
		assert_true(strlen(kn->knob) > 0 && strlen(kn->meaning) > 0);
	}
	assert_string_equal(uc_sysctl_knob(UC_ATTR_RT_DEFAULT)->knob, "util_min_rt_default");
	assert_null(uc_sysctl_knob(UC_ATTR_CPU_CONTROLLER));
	assert_int_equal(uc_sysctl_value(&v, UC_ATTR_RESET_ON_FORK), UC_SYSCTL_ABSENT);
}

/* The keys as messages list them: one joiner (note.c) for every "a, b or c". */
static void test_keys_words(void **state)
{
	static const char *const formats[] = { "text", "json", "prometheus", NULL };
	static const char *const one[] = { "only" };
	char buf[64], tiny[12];

	(void)state;
	assert_string_equal(uc_sysctl_options(buf, sizeof(buf), ""), "min, max or rt-default");
	assert_string_equal(uc_sysctl_options(buf, sizeof(buf), "--"),
			    "--min, --max or --rt-default");
	assert_string_equal(uc_note_words(buf, sizeof(buf), "", formats, 0),
			    "text, json or prometheus");
	assert_string_equal(uc_note_words(buf, sizeof(buf), "-", one, 1), "-only");
	/* truncated, still a string */
	assert_string_equal(uc_note_words(tiny, sizeof(tiny), "", formats, 0), "text, json ");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_orderings),
		cmocka_unit_test(test_order_is_minimal),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_rt_default),
		cmocka_unit_test(test_rollback),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_knob_table),
		cmocka_unit_test(test_keys_words),
	};

	return fr_run(&suite, tests, NULL, NULL);
}
