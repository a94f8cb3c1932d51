/*
 * effective.c on a fake root ($UCLAMPCTL_SYSROOT: osrelease, the sysctls,
 * /proc/ID/cgroup, /proc/PID/task/TID/sched) and a fake cgroup tree. The
 * expected values are worked out by hand from kernel/sched/core.c (6.1):
 *   cpu_util_update_eff(): group eff = min(request, parent eff), min <= max,
 *                          the root's request = the sysctls;
 *   uclamp_tg_restrict():  non-root group: clamp(task request, eff min, eff max);
 *   uclamp_eff_get():      then at most the sysctl value.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "uclamp/cgroup.h"
#include "uclamp/effective.h"
#include "uclamp/sched.h"
#include "fakeroot.h"

static char root[256];
static const struct fr_suite suite = { root, sizeof(root), "test-effective", true, { NULL } };

static void putf(const char *rel, const char *fmt, ...)
{
	char text[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < sizeof(text));
	assert_int_equal(fr_write(root, rel, text), 0);
}

static void mkgroup(const char *rel, const char *min, const char *max)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "cg/%s/cpu.uclamp.min", rel);
	putf(p, "%s\n", min);
	snprintf(p, sizeof(p), "cg/%s/cpu.uclamp.max", rel);
	putf(p, "%s\n", max);
}

/* a group without the cpu files (v2: cpu not in the parent's subtree_control) */
static void mkgroup_nocpu(const char *rel)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "cg/%s/cgroup.procs", rel);
	putf(p, "");
}

struct pg {
	pid_t id;
	const char *path;
};
#define in_groups(v, ...) \
	in_groups_n(v, (const struct pg[]){ __VA_ARGS__ }, \
		    sizeof((const struct pg[]){ __VA_ARGS__ }) / sizeof(struct pg))

static void in_group(pid_t id, enum uc_cg_version v, const char *path)
{
	char p[64];

	snprintf(p, sizeof(p), "proc/%d/cgroup", (int)id);
	if (v == UC_CG_V2)
		putf(p, "0::%s\n", path);
	else
		putf(p, "3:memory:/elsewhere\n2:cpu,cpuacct:%s\n1:name=systemd:/x\n", path);
}

static void in_groups_n(enum uc_cg_version v, const struct pg *g, size_t n)
{
	for (size_t i = 0; i < n; i++)
		in_group(g[i].id, v, g[i].path);
}

static void proc_sched(pid_t pid, pid_t tid, int emin, int emax)
{
	char p[96];

	snprintf(p, sizeof(p), "proc/%d/task/%d/sched", (int)pid, (int)tid);
	putf(p, "x (%d, #threads: 1)\n----\nse.exec_start   :   1.0\n"
	     "uclamp.min                                   :                    0\n"
	     "uclamp.max                                   :                 1024\n"
	     "effective uclamp.min                         :%21d\n"
	     "effective uclamp.max                         :%21d\n", (int)tid, emin, emax);
}

static void sysctls(int min, int max)
{
	putf("proc/sys/kernel/sched_util_clamp_min", "%d\n", min);
	putf("proc/sys/kernel/sched_util_clamp_max", "%d\n", max);
}

static void layout(enum uc_cg_version v)
{
	fr_cgroup(root, "cg", v);
}

static int setup(void **state)
{
	(void)state;
	putf("proc/sys/kernel/osrelease", "6.1.192\n");
	putf("proc/self/sched", "effective uclamp.min   :   0\neffective uclamp.max   :   1024\n");
	sysctls(1024, 1024);
	unsetenv("UCLAMPCTL_EFF");
	layout(UC_CG_V2);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return fr_remove(root, "cg") || fr_remove(root, "proc") ? -1 : 0;
}

static struct uc_sched_attr attr(int policy, int min, int max)
{
	struct uc_sched_attr a = { .size = UC_SCHED_ATTR_SIZE_VER1,
				   .sched_policy = (uint32_t)policy };

	a.sched_util_min = (uint32_t)min;
	a.sched_util_max = (uint32_t)max;
	return a;
}

/* min*10000 + max, and the source, for one task */
static int eff(struct uc_eff *e, pid_t pid, pid_t tid, int min, int max,
	       enum uc_eff_source want_src)
{
	struct uc_sched_attr a = attr(0, min, max);
	struct uc_cg_clamps out = { -1, -1 };

	assert_int_equal(uc_eff_task(e, pid, tid, &a, &out), want_src);
	return out.min * 10000 + out.max;
}

/* a task pid/tid requesting min..max; its effective clamps (min*10000 + max) and source */
struct eff_row {
	pid_t pid, tid;
	int min, max;
	enum uc_eff_source src;
	int want;
};

#define EFF_ROWS(...) ((const struct eff_row[]){ __VA_ARGS__ })
/* expect_effs(&e, { pid, tid, min, max, src, want }, ...); e NULL: a uc_eff read for these rows */
#define expect_effs(e, ...)                        \
	expect_eff_rows((e), EFF_ROWS(__VA_ARGS__), \
			sizeof(EFF_ROWS(__VA_ARGS__)) / sizeof(struct eff_row))

static void expect_eff_rows(struct uc_eff *e, const struct eff_row *r, size_t n)
{
	struct uc_eff fresh;

	if (!e) {
		assert_int_equal(uc_eff_init(&fresh), 0);
		e = &fresh;
	}
	for (size_t i = 0; i < n; i++) {
		int got = eff(e, r[i].pid, r[i].tid, r[i].min, r[i].max, r[i].src);

		if (got != r[i].want)
			fail_msg("row %zu: task %d/%d requesting %d..%d: effective %d, expected %d",
				 i, (int)r[i].pid, (int)r[i].tid, r[i].min, r[i].max, got,
				 r[i].want);
	}
	if (e == &fresh)
		uc_eff_free(&fresh);
}

static void test_root_and_system_limits(void **state)
{
	struct uc_eff e;

	(void)state;
	in_group(10, UC_CG_V2, "/");
	assert_int_equal(uc_eff_init(&e), 0);
	assert_true(e.rule);
	expect_effs(&e,
		    { 10, 10, 0, 1024, UC_EFF_RULE, 1024 },
		    { 10, 10, 300, 700, UC_EFF_RULE, 3000700 },
		    /* the root group's effective min is the sysctl min (1024): no floor for its
		     * tasks */
		    { 10, 10, 0, 0, UC_EFF_RULE, 0 });
	uc_eff_free(&e);

	sysctls(200, 600);
	assert_int_equal(uc_eff_init(&e), 0);
	expect_effs(&e,
		    { 10, 10, 300, 1024, UC_EFF_RULE, 2000600 },
		    { 10, 10, 100, 500, UC_EFF_RULE, 1000500 });
	assert_int_equal(e.n_rule, 2);
	assert_int_equal(e.n_proc, 0);
	uc_eff_free(&e);
}

static void test_rt_default(void **state)
{
	struct uc_sched_attr rt = attr(1, 1024, 1024);	/* SCHED_FIFO, min = the RT default */
	struct uc_cg_clamps out;
	struct uc_eff e;

	(void)state;
	in_group(11, UC_CG_V2, "/");
	sysctls(512, 1024);
	assert_int_equal(uc_eff_init(&e), 0);
	assert_int_equal(uc_eff_task(&e, 11, 11, &rt, &out), UC_EFF_RULE);
	assert_int_equal(out.min, 512);	/* the RT default never escapes the sysctl min */
	assert_int_equal(out.max, 1024);
	uc_eff_free(&e);

	/* in a group capped at 25% (256): the RT boost is clamped to it */
	sysctls(1024, 1024);
	mkgroup("bg", "0.00", "25.00");
	in_group(11, UC_CG_V2, "/bg");
	assert_int_equal(uc_eff_init(&e), 0);
	assert_int_equal(uc_eff_task(&e, 11, 11, &rt, &out), UC_EFF_RULE);
	assert_int_equal(out.min, 256);
	assert_int_equal(out.max, 256);
	uc_eff_free(&e);
}

static void test_nested_groups(void **state)
{
	(void)state;
	mkgroup("a", "20.00", "50.00");		/* 205, 512 */
	mkgroup("a/b", "0.00", "max");		/* eff 0 (min(0, 205)), 512 */
	mkgroup("a/b/c", "80.00", "90.00");	/* eff min(819, 0) = 0, min(922, 512) = 512 */
	mkgroup("a/m", "40.00", "max");		/* eff min(410, 205) = 205, 512 */
	mkgroup("lo", "60.00", "30.00");	/* eff min = min(614, 307) = 307 */
	mkgroup_nocpu("a/off");			/* a's group */
	in_groups(UC_CG_V2, { 20, "/a" }, { 21, "/a/b" }, { 22, "/a/b/c" }, { 23, "/a/m" },
		  { 24, "/lo" }, { 25, "/a/off" });
	/* the group's min is a floor, its max a cap */
	expect_effs(NULL,
		    { 20, 20, 0, 1024, UC_EFF_RULE, 2050512 },
		    { 20, 20, 300, 400, UC_EFF_RULE, 3000400 },
		    { 20, 20, 800, 900, UC_EFF_RULE, 5120512 },
		    { 21, 21, 0, 1024, UC_EFF_RULE, 512 },
		    { 22, 22, 100, 1024, UC_EFF_RULE, 1000512 },
		    { 23, 23, 0, 1024, UC_EFF_RULE, 2050512 },
		    { 24, 24, 0, 1024, UC_EFF_RULE, 3070307 },
		    { 25, 25, 0, 1024, UC_EFF_RULE, 2050512 });

	/* a lowered sysctl max caps the root's request, and so every group below */
	sysctls(100, 400);
	/* a: eff min(205, 100) = 100, min(512, 400) = 400; the task then capped at 100/400 */
	expect_effs(NULL,
		    { 20, 20, 0, 1024, UC_EFF_RULE, 1000400 },
		    { 20, 20, 50, 300, UC_EFF_RULE, 1000300 });
}

static void test_no_cpu_anywhere_is_root(void **state)
{
	(void)state;
	/* v2 without cpu in the root's subtree_control: every task in the root task group */
	mkgroup_nocpu("svc");
	mkgroup_nocpu("svc/x");
	in_group(30, UC_CG_V2, "/svc/x");
	in_group(31, UC_CG_V2, "/gone/y");	/* moved out of a group since removed: unknown */
	proc_sched(31, 31, 7, 8);
	expect_effs(NULL,
		    { 30, 30, 0, 1024, UC_EFF_RULE, 1024 },
		    { 31, 31, 0, 1024, UC_EFF_PROC, 70008 });
}

static void test_v1_threads_apart(void **state)
{
	(void)state;
	layout(UC_CG_V1);
	mkgroup("fg", "60.00", "max");		/* 614 */
	mkgroup("bg", "0.00", "40.00");		/* 410 */
	in_group(40, UC_CG_V1, "/fg");
	/* a thread of 40 moved through the tasks file */
	in_group(41, UC_CG_V1, "/bg");
	in_group(42, UC_CG_V1, "/");		/* another one, in the root */
	expect_effs(NULL,
		    { 40, 40, 0, 1024, UC_EFF_RULE, 6141024 },
		    { 40, 41, 0, 1024, UC_EFF_RULE, 410 },
		    { 40, 42, 0, 1024, UC_EFF_RULE, 1024 });
}

static void test_v2_threaded(void **state)
{
	(void)state;
	mkgroup("app", "0.00", "max");
	putf("cg/app/cgroup.type", "domain threaded\n");
	mkgroup("app/io", "0.00", "20.00");	/* 205 */
	putf("cg/app/io/cgroup.type", "threaded\n");
	mkgroup("plain", "0.00", "max");
	putf("cg/plain/cgroup.type", "domain\n");
	in_groups(UC_CG_V2, { 50, "/app" }, { 51, "/app/io" }, { 60, "/plain" });
	/* not read: v2 domain groups keep threads together */
	in_group(61, UC_CG_V2, "/app/io");
	expect_effs(NULL,
		    { 50, 50, 0, 1024, UC_EFF_RULE, 1024 },
		    { 50, 51, 0, 1024, UC_EFF_RULE, 205 },
		    { 60, 60, 0, 1024, UC_EFF_RULE, 1024 },
		    { 60, 61, 0, 1024, UC_EFF_RULE, 1024 });
}

static void test_proc_fallbacks(void **state)
{
	struct uc_eff e;

	(void)state;
	mkgroup("bad", "garbage", "max");
	in_group(70, UC_CG_V2, "/bad");
	proc_sched(70, 70, 11, 22);
	/* no cgroup file: a task gone or outside the namespace */
	proc_sched(70, 71, 33, 44);
	assert_int_equal(uc_eff_init(&e), 0);
	assert_int_equal(eff(&e, 70, 70, 0, 1024, UC_EFF_PROC), 110022);
	in_group(72, UC_CG_V2, "/");
	proc_sched(72, 72, 55, 66);
	layout(UC_CG_V1);	/* v1: per thread, and 71 has no cgroup file */
	e.pid = -1;
	assert_int_equal(eff(&e, 70, 71, 0, 1024, UC_EFF_PROC), 330044);
	assert_int_equal(e.n_proc, 2);
	uc_eff_free(&e);
	layout(UC_CG_V2);

	/* before 5.14 the group min was a limit: /proc only */
	putf("proc/sys/kernel/osrelease", "5.10.0-8-amd64\n");
	assert_int_equal(uc_eff_init(&e), 0);
	assert_false(e.rule);
	assert_non_null(e.why_proc);
	assert_int_equal(eff(&e, 72, 72, 0, 1024, UC_EFF_PROC), 550066);
	uc_eff_free(&e);
	putf("proc/sys/kernel/osrelease", "6.1.192\n");

	/* a kernel that does not show effective clamps: nothing to check the rule against */
	putf("proc/self/sched", "se.exec_start   :   1.0\n");
	assert_int_equal(uc_eff_init(&e), 0);
	assert_false(e.rule);
	uc_eff_free(&e);
	putf("proc/self/sched", "effective uclamp.min   :   0\neffective uclamp.max   :   1024\n");

	setenv("UCLAMPCTL_EFF", "proc", 1);
	assert_int_equal(uc_eff_init(&e), 0);
	assert_false(e.rule);
	expect_effs(&e,
		    { 72, 72, 0, 1024, UC_EFF_PROC, 550066 },
		    /* no sched file: nothing known */
		    { 73, 73, 0, 1024, UC_EFF_NONE, -10001 });
	uc_eff_free(&e);
}

static void test_group_read_once(void **state)
{
	struct uc_eff e;

	(void)state;
	mkgroup("g", "10.00", "max");	/* 102 */
	in_group(80, UC_CG_V2, "/g");
	in_group(81, UC_CG_V2, "/g");
	assert_int_equal(uc_eff_init(&e), 0);
	assert_int_equal(eff(&e, 80, 80, 0, 1024, UC_EFF_RULE), 1021024);
	/* a change now is not seen: one read per group per run */
	mkgroup("g", "50.00", "max");
	assert_int_equal(eff(&e, 81, 81, 0, 1024, UC_EFF_RULE), 1021024);
	/* many groups: the table grows and keeps every one */
	for (int i = 0; i < 200; i++) {
		char rel[32], path[40];

		snprintf(rel, sizeof(rel), "g/n%d", i);
		mkgroup(rel, "0.00", i % 2 ? "max" : "50.00");
		snprintf(path, sizeof(path), "/%s", rel);
		in_group(1000 + i, UC_CG_V2, path);
		assert_int_equal(eff(&e, 1000 + i, 1000 + i, 0, 1024, UC_EFF_RULE),
				 i % 2 ? 1024 : 512);
	}
	assert_int_equal(e.ngroups, 202);	/* the root, g and 200 below it */
	assert_int_equal(eff(&e, 1001, 1001, 0, 1024, UC_EFF_RULE), 1024);
	uc_eff_free(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_root_and_system_limits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rt_default, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nested_groups, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_cpu_anywhere_is_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v1_threads_apart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v2_threaded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_proc_fallbacks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_group_read_once, setup, teardown),
	};

	return fr_run(&suite, tests, NULL, NULL);
}
