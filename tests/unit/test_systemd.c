/*
 * systemd.c and the systemd side of cgroup_plan.c / cgroup_io.c / exec.c: unit
 * names, who owns a subtree_control (PID 1, unit names, delegation marks),
 * the plan that asks systemd instead of writing subtree_control, unit names
 * resolved to groups, and the executor (the ask is never undone). The bus is
 * scripted through uc_sd_use(); the cgroup v2 tree is a directory.
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
#include <sys/xattr.h>
#include <cmocka.h>

#include "uclamp/cgroup.h"
#include "uclamp/plan_run.h"
#include "uclamp/systemd.h"
#include "fakeroot.h"

static char sysroot[PATH_MAX];
static const struct fr_suite suite = { sysroot, sizeof(sysroot), "test-systemd", true,
				       { "proc" } };
#define CG "sys/fs/cgroup"

/* ---- the scripted bus --------------------------------------------------------- */
static struct {
	int rc;			/* every call's result when nonzero */
	long weight;		/* CPUWeight */
	const char *cgroup;	/* ControlGroup of any unit, NULL: no such unit */
	int calls, sets;
	char set_unit[64];
	long set_weight;
	bool enable;		/* set: play systemd on the tree (cpu above u.service) */
} bus;

static int s_unit_cgroup(const char *unit, char *cg, size_t n)
{
	(void)unit;
	bus.calls++;
	if (bus.rc)
		return bus.rc;
	if (!bus.cgroup)
		return -ENOENT;
	if (!*bus.cgroup)
		return -ENOMEDIUM;
	snprintf(cg, n, "%s", bus.cgroup);
	return 0;
}

static int s_cpu_weight(const char *unit, long *weight)
{
	(void)unit;
	bus.calls++;
	*weight = bus.weight;
	return bus.rc;
}

static int s_set_cpu_weight(const char *unit, long weight)
{
	bus.sets++;
	snprintf(bus.set_unit, sizeof(bus.set_unit), "%s", unit);
	bus.set_weight = weight;
	if (bus.enable) {
		assert_int_equal(fr_write(sysroot, CG "/cgroup.subtree_control", "cpu\n"), 0);
		assert_int_equal(fr_write(sysroot, CG "/system.slice/cgroup.subtree_control",
					  "cpu\n"), 0);
		assert_int_equal(fr_write(sysroot, CG "/system.slice/u.service/cpu.uclamp.min",
					  "0.00\n"), 0);
		assert_int_equal(fr_write(sysroot, CG "/system.slice/u.service/cpu.uclamp.max",
					  "max\n"), 0);
	}
	return bus.rc;
}

static const struct uc_sd_ops scripted = {
	.unit_cgroup = s_unit_cgroup,
	.cpu_weight = s_cpu_weight,
	.set_cpu_weight = s_set_cpu_weight,
};

/* root and system.slice without cpu; u.service, plain/x, d.service/w.scope below */
static int reset(void **state)
{
	(void)state;
	memset(&bus, 0, sizeof(bus));
	bus.weight = UC_SD_WEIGHT_UNSET;
	assert_int_equal(fr_remove(sysroot, CG), 0);
	assert_int_equal(fr_remove(sysroot, "run"), 0);
	assert_int_equal(fr_mkdir(sysroot, "run/systemd/system"), 0);
	assert_int_equal(fr_write(sysroot, CG "/cgroup.subtree_control", "\n"), 0);
	assert_int_equal(fr_write(sysroot, CG "/system.slice/cgroup.subtree_control", "\n"), 0);
	assert_int_equal(fr_write(sysroot, CG "/system.slice/plain/cgroup.subtree_control", "\n"),
			 0);
	assert_int_equal(fr_mkdir(sysroot, CG "/system.slice/u.service"), 0);
	assert_int_equal(fr_mkdir(sysroot, CG "/system.slice/plain/x"), 0);
	assert_int_equal(fr_write(sysroot, CG "/system.slice/d.service/cgroup.subtree_control",
				  "\n"), 0);
	assert_int_equal(fr_mkdir(sysroot, CG "/system.slice/d.service/w.scope"), 0);
	fr_cgroup(sysroot, CG, UC_CG_V2);
	uc_sd_use(&scripted);
	return 0;
}

/* Mark rel delegated as systemd does; false when this file system cannot. */
static bool delegate(const char *rel)
{
	char path[PATH_MAX];

	assert_int_equal(fr_path(path, sizeof(path), sysroot, rel), 0);
	return setxattr(path, "user.delegate", "1", 1, 0) == 0;
}

/* ---- names ---------------------------------------------------------------------- */
static void test_unit_names(void **state)
{
	static const char *const good[] = {
		"nginx.service", "system.slice", "-.slice", "user@1000.service",
		"session-2.scope", "dev-sda1.swap", "foo\\x2dbar.service", "a:b_c.socket",
		"home.mount",
	};
	static const char *const bad[] = {
		"", "nginx", "nginx.timer", "a/b.service", ".service", "a@b@c.service",
		"getty@.service", "x\033[2J.service", "nginx.service ", "n ginx.service",
		"../x.slice", "nginx.service/", "nginx.Service",
		"@x.service",	/* systemd: the prefix before '@' is not empty */
	};
	char longname[300];

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_true(uc_sd_unit_name_ok(good[i]));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(uc_sd_unit_name_ok(bad[i]));
	memset(longname, 'a', sizeof(longname));
	/* 255 bytes at most: systemd's UNIT_NAME_MAX counts the NUL */
	strcpy(longname + UC_SD_UNIT_MAX - strlen(".service"), ".service");
	assert_int_equal(strlen(longname), UC_SD_UNIT_MAX);
	assert_false(uc_sd_unit_name_ok(longname));
	assert_true(uc_sd_unit_name_ok(longname + 1));
	/* the bus is never asked about a bad name */
	assert_int_equal(uc_sd_set_cpu_weight("nginx", 100), -EINVAL);
	assert_int_equal(uc_sd_set_cpu_weight("nginx.service", 0), -ERANGE);
	assert_int_equal(bus.sets, 0);
}

/* ---- who owns a subtree_control -------------------------------------------------- */
static void test_owns_subtree(void **state)
{
	bool owned;

	(void)state;
	assert_true(uc_sd_booted());
	assert_int_equal(uc_sd_owns_subtree("", &owned), 0);
	assert_true(owned);
	assert_int_equal(uc_sd_owns_subtree("system.slice", &owned), 0);
	assert_true(owned);
	assert_int_equal(uc_sd_owns_subtree("/system.slice/u.service", &owned), 0);
	assert_true(owned);
	/* not a unit's group: foreign */
	assert_int_equal(uc_sd_owns_subtree("system.slice/plain", &owned), 0);
	assert_false(owned);
	assert_int_equal(uc_sd_owns_subtree("mygroup", &owned), 0);
	assert_false(owned);
	/* no systemd: nothing is its */
	assert_int_equal(fr_remove(sysroot, "run/systemd"), 0);
	assert_false(uc_sd_booted());
	assert_int_equal(uc_sd_owns_subtree("", &owned), 0);
	assert_false(owned);
	assert_int_equal(uc_sd_owns_subtree("system.slice", &owned), 0);
	assert_false(owned);
	assert_int_equal(fr_mkdir(sysroot, "run/systemd/system"), 0);
	/* a delegated unit's subtree is its payload's, and all below it */
	if (!delegate(CG "/system.slice/d.service"))
		return;	/* no user xattrs on this file system: test_plan_delegated skips too */
	assert_int_equal(uc_sd_owns_subtree("system.slice/d.service", &owned), 0);
	assert_false(owned);
	assert_int_equal(uc_sd_owns_subtree("system.slice/d.service/w.scope", &owned), 0);
	assert_false(owned);
	assert_int_equal(uc_sd_owns_subtree("system.slice", &owned), 0);
	assert_true(owned);
}

/* ---- the plan ----------------------------------------------------------------------- */
static void test_plan_asks_systemd(void **state)
{
	struct uc_value mx = { .util = uc_pct100_to_util(4000), .pct100 = 4000, .percent = true };
	char unit[UC_SD_UNIT_MAX];
	struct uc_plan p;

	(void)state;
	uc_plan_init(&p);
	/* root and system.slice lack cpu: one ask, for the unit below the deepest */
	assert_int_equal(uc_cg_plan_cpu(&p, "system.slice/u.service", false, unit, sizeof(unit)),
			 1);
	assert_string_equal(unit, "u.service");
	assert_int_equal(p.n, 1);
	assert_int_equal(p.rec[0].kind, UC_KIND_SYSTEMD);
	assert_string_equal(p.rec[0].label, "u.service");
	assert_string_equal(p.rec[0].target, "system.slice/u.service");
	assert_int_equal(p.rec[0].from, UC_SD_WEIGHT_UNSET);
	assert_int_equal(p.rec[0].to, UC_SD_WEIGHT_DEFAULT);
	assert_false(p.rec[0].flips);
	assert_false(uc_plan_flips(&p));
	/* the files will come with the defaults: the max is the one change */
	assert_int_equal(uc_cg_plan_values(&p, "system.slice/u.service", NULL, &mx), 0);
	assert_int_equal(p.n, 2);
	assert_int_equal(p.rec[1].kind, UC_KIND_CGROUP);
	assert_int_equal(p.rec[1].from, UC_PCT_MAX);
	assert_true(p.rec[1].flips);
	/* planned twice (apply: two sections, one unit): one ask */
	assert_int_equal(uc_cg_plan_cpu(&p, "system.slice/u.service", false, unit, sizeof(unit)),
			 0);
	assert_int_equal(p.n, 2);
	assert_int_equal(bus.sets, 0);	/* planning only reads */
	uc_plan_free(&p);

	/* a weight set keeps its value; system.slice itself: ask for the slice */
	bus.weight = 250;
	uc_plan_init(&p);
	assert_int_equal(uc_cg_plan_cpu(&p, "system.slice", false, unit, sizeof(unit)), 1);
	assert_string_equal(unit, "system.slice");
	assert_int_equal(p.rec[0].from, 250);
	assert_int_equal(p.rec[0].to, 250);
	uc_plan_free(&p);

	/* root on, system.slice off: still the service */
	assert_int_equal(fr_write(sysroot, CG "/cgroup.subtree_control", "cpu\n"), 0);
	uc_plan_init(&p);
	assert_int_equal(uc_cg_plan_cpu(&p, "system.slice/u.service", true, unit, sizeof(unit)), 1);
	assert_string_equal(p.rec[0].label, "u.service");
	uc_plan_free(&p);
}

static void test_plan_cannot_ask(void **state)
{
	char unit[UC_SD_UNIT_MAX];
	struct uc_plan p;

	(void)state;
	uc_plan_init(&p);
	/* no libsystemd, no bus, refused: the error, the unit named, nothing planned */
	for (int rc = 0, errs[] = { -ENOPKG, -EHOSTDOWN, -EACCES }; rc < 3; rc++) {
		bus.rc = errs[rc];
		assert_int_equal(uc_cg_plan_cpu(&p, "system.slice/u.service", true, unit,
						sizeof(unit)), errs[rc]);
		assert_string_equal(unit, "u.service");
		assert_int_equal(p.n, 0);
	}
	bus.rc = 0;
	/* the group below the gap is not a unit's: systemd cannot be asked */
	assert_int_equal(uc_cg_plan_cpu(&p, "system.slice/plain/x", true, unit, sizeof(unit)),
			 -EINVAL);
	assert_string_equal(unit, "plain");
	assert_int_equal(p.n, 0);
	assert_int_equal(uc_cg_plan_cpu(&p, "system.slice/../x", true, unit, sizeof(unit)),
			 -EXDEV);
	uc_plan_free(&p);
}

static void test_plan_no_systemd(void **state)
{
	char unit[UC_SD_UNIT_MAX];
	struct uc_plan p;

	(void)state;
	assert_int_equal(fr_remove(sysroot, "run/systemd"), 0);
	uc_plan_init(&p);
	/* nobody else owns the tree: --enable-cpu's writes, or -EPERM without */
	assert_int_equal(uc_cg_plan_cpu(&p, "system.slice/u.service", false, unit, sizeof(unit)),
			 -EPERM);
	assert_int_equal(p.n, 0);
	assert_int_equal(uc_cg_plan_cpu(&p, "system.slice/u.service", true, unit, sizeof(unit)), 2);
	assert_int_equal(p.rec[0].kind, UC_KIND_SUBTREE);
	assert_string_equal(p.rec[0].target, "");
	assert_string_equal(p.rec[1].target, "system.slice");
	assert_int_equal(bus.calls, 0);
	uc_plan_free(&p);
}

static void test_plan_delegated(void **state)
{
	char unit[UC_SD_UNIT_MAX];
	struct uc_plan p;

	(void)state;
	if (!delegate(CG "/system.slice/d.service"))
		skip();
	uc_plan_init(&p);
	/* systemd's part by asking, the payload's part only with --enable-cpu */
	assert_int_equal(uc_cg_plan_cpu(&p, "system.slice/d.service/w.scope", false, unit,
					sizeof(unit)), -EPERM);
	assert_int_equal(p.n, 0);
	assert_int_equal(uc_cg_plan_cpu(&p, "system.slice/d.service/w.scope", true, unit,
					sizeof(unit)), 2);
	assert_int_equal(p.n, 2);
	assert_int_equal(p.rec[0].kind, UC_KIND_SYSTEMD);
	assert_string_equal(p.rec[0].label, "d.service");
	assert_int_equal(p.rec[1].kind, UC_KIND_SUBTREE);
	assert_string_equal(p.rec[1].target, "system.slice/d.service");
	uc_plan_free(&p);
}

/* ---- unit names resolved ------------------------------------------------------------ */
static void test_resolve_name(void **state)
{
	const struct uc_cg_info *info = uc_cg_layout();
	char rel[PATH_MAX];

	(void)state;
	assert_non_null(info);
	bus.cgroup = "/system.slice/u.service";
	assert_int_equal(uc_cg_resolve_name(info, "u.service", rel, sizeof(rel)), 0);
	assert_string_equal(rel, "system.slice/u.service");
	assert_int_equal(bus.calls, 1);
	/* a group of that name wins, without asking */
	assert_int_equal(uc_cg_resolve_name(info, "system.slice", rel, sizeof(rel)), 0);
	assert_string_equal(rel, "system.slice");
	assert_int_equal(bus.calls, 1);
	/* not a unit name: the path's answer, no bus */
	assert_int_equal(uc_cg_resolve_name(info, "nosuch", rel, sizeof(rel)), -ENOENT);
	assert_int_equal(uc_cg_resolve_name(info, "x\033.service", rel, sizeof(rel)), -ENOENT);
	assert_int_equal(uc_cg_resolve_name(info, "@x.service", rel, sizeof(rel)), -ENOENT);
	assert_int_equal(bus.calls, 1);
	/* the bus's answers */
	bus.cgroup = NULL;
	assert_int_equal(uc_cg_resolve_name(info, "nosuch.service", rel, sizeof(rel)), -ENOENT);
	bus.cgroup = "";
	assert_int_equal(uc_cg_resolve_name(info, "idle.service", rel, sizeof(rel)), -ENOMEDIUM);
	bus.cgroup = "/";
	assert_int_equal(uc_cg_resolve_name(info, "-.slice", rel, sizeof(rel)), 0);
	assert_string_equal(rel, "");
	/* systemd's path is hostile too */
	bus.cgroup = "/../../etc";
	assert_int_equal(uc_cg_resolve_name(info, "evil.service", rel, sizeof(rel)), -EXDEV);
	bus.cgroup = "/system.slice/gone.service";
	assert_int_equal(uc_cg_resolve_name(info, "gone.service", rel, sizeof(rel)), -ENOENT);
	bus.rc = -ENOPKG;
	assert_int_equal(uc_cg_resolve_name(info, "u.service", rel, sizeof(rel)), -ENOPKG);
}

/* ---- the executor --------------------------------------------------------------------- */
static int fail_cg(const char *path, enum uc_attr attr, long v)
{
	(void)path, (void)attr, (void)v;
	return -EACCES;
}

static void test_exec_never_undone(void **state)
{
	struct uc_exec_ops ops = uc_exec_default_ops;
	struct uc_exec_report r;
	struct uc_plan p;

	(void)state;
	bus.enable = true;
	ops.cgroup_write = fail_cg;
	uc_plan_init(&p);
	assert_non_null(uc_plan_add_systemd(&p, "system.slice/u.service", "u.service",
					    UC_SD_WEIGHT_UNSET, 100));
	assert_non_null(uc_plan_add(&p, UC_KIND_CGROUP, UC_ATTR_MAX, "system.slice/u.service",
				    UC_PCT_MAX, 4000));
	/* the default ask: SetUnitProperties, then waits until the files are there */
	assert_int_equal(uc_plan_execute(&p, UC_EXEC_ATOMIC, &ops, NULL, &r), -EACCES);
	assert_int_equal(bus.sets, 1);
	assert_string_equal(bus.set_unit, "u.service");
	assert_int_equal(bus.set_weight, 100);
	/* the clamp failed; cpu stays on (systemd's runtime property): done, not undone */
	assert_int_equal(p.rec[0].state, UC_CH_DONE);
	assert_int_equal(p.rec[1].state, UC_CH_FAILED);
	assert_int_equal(r.rolled_back, 0);
	assert_int_equal(r.rollback_failed, 0);
	uc_plan_free(&p);

	/* systemd refuses: that is the failure, nothing after it runs */
	bus.rc = -EACCES;
	bus.sets = 0;
	uc_plan_init(&p);
	assert_non_null(uc_plan_add_systemd(&p, "system.slice/u.service", "u.service", 100, 100));
	assert_non_null(uc_plan_add(&p, UC_KIND_CGROUP, UC_ATTR_MAX, "system.slice/u.service",
				    UC_PCT_MAX, 4000));
	ops = uc_exec_default_ops;
	assert_int_equal(uc_plan_execute(&p, UC_EXEC_ATOMIC, &ops, NULL, &r), -EACCES);
	assert_int_equal(p.rec[0].state, UC_CH_FAILED);
	assert_int_equal(p.rec[1].state, UC_CH_SKIPPED);
	uc_plan_free(&p);
}

/* The real bus without systemd: a clear error, never a crash or a hang. */
static void test_real_bus_without_systemd(void **state)
{
	char cg[PATH_MAX];
	long w;
	int rc;

	(void)state;
	uc_sd_use(NULL);
	unsetenv(UC_TEST_SYSTEMD_ENV);
	assert_int_equal(fr_remove(sysroot, "run/systemd"), 0);
	rc = uc_sd_unit_cgroup("u.service", cg, sizeof(cg));
	/* no systemd as PID 1 (-EHOSTDOWN) is found before a missing
	 * libsystemd (-ENOPKG: not built with it, or libsystemd.so.0 absent) */
	assert_true(rc == -EHOSTDOWN || rc == -ENOPKG);
	assert_int_equal(uc_sd_cpu_weight("u.service", &w), rc);
	assert_int_equal(w, UC_SD_WEIGHT_UNSET);
	assert_int_equal(uc_sd_set_cpu_weight("u.service", 100), rc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_unit_names, reset),
		cmocka_unit_test_setup(test_owns_subtree, reset),
		cmocka_unit_test_setup(test_plan_asks_systemd, reset),
		cmocka_unit_test_setup(test_plan_cannot_ask, reset),
		cmocka_unit_test_setup(test_plan_no_systemd, reset),
		cmocka_unit_test_setup(test_plan_delegated, reset),
		cmocka_unit_test_setup(test_resolve_name, reset),
		cmocka_unit_test_setup(test_exec_never_undone, reset),
		cmocka_unit_test_setup(test_real_bus_without_systemd, reset),
	};

	return fr_run(&suite, tests, NULL, NULL);
}
