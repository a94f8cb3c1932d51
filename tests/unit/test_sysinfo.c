/*
 * sysinfo.c against a fake sysroot: cpufreq governors (sorted by policy,
 * unreadable ones as "?", foreign entries skipped), sched_ext, the kernel
 * config file, the support answers from the fast path and the fallbacks
 * behind them, the advice for each situation, and one full read.
 */
#include <errno.h>
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

#include "uclamp/sysinfo.h"
#include "uclamp/sysroot.h"
#include "fakeroot.h"

static char root[512];
static const struct fr_suite suite = { root, sizeof(root), "test-sysinfo", true, { NULL } };

static void mkdirs(const char *abspath)
{
	assert_int_equal(fr_mkdir(root, abspath), 0);
}

static void rmtree(const char *abspath)
{
	assert_int_equal(fr_remove(root, abspath), 0);
}

/* abspath's directory is created as needed */
static void put(const char *abspath, const char *text)
{
	assert_int_equal(fr_write(root, abspath, text), 0);
}

static void put_gov(int policy, const char *gov)
{
	char p[128];

	snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpufreq/policy%d/scaling_governor", policy);
	put(p, gov);
}

static void governors(void **state)
{
	struct uc_sysinfo *s = calloc(1, sizeof(*s));

	(void)state;
	assert_non_null(s);
	rmtree("/sys/devices/system/cpu/cpufreq");
	uc_sysinfo_governors(s);
	assert_int_equal(s->gov_rc, -ENOENT);
	assert_int_equal(s->ngov, 0);

	put_gov(10, "performance\n");
	put_gov(2, "schedutil\n");
	put_gov(0, "schedutil\n");
	mkdirs("/sys/devices/system/cpu/cpufreq/policy4");	/* no governor file */
	mkdirs("/sys/devices/system/cpu/cpufreq/policyX");	/* not a policy */
	put("/sys/devices/system/cpu/cpufreq/boost", "1\n");
	uc_sysinfo_governors(s);
	assert_int_equal(s->gov_rc, 0);
	assert_int_equal(s->ngov, 4);
	assert_int_equal(s->nschedutil, 2);
	assert_int_equal(s->gov[0].id, 0);
	assert_string_equal(s->gov[0].gov, "schedutil");
	assert_int_equal(s->gov[1].id, 2);
	assert_int_equal(s->gov[2].id, 4);
	assert_string_equal(s->gov[2].gov, "?");
	assert_int_equal(s->gov[3].id, 10);
	assert_string_equal(s->gov[3].gov, "performance");
	free(s);
}

static void sched_ext(void **state)
{
	struct uc_sysinfo s;

	(void)state;
	memset(&s, 0, sizeof(s));
	rmtree("/sys/kernel/sched_ext");
	uc_sysinfo_sched_ext(&s);
	assert_int_equal(s.scx_rc, -ENOENT);
	assert_string_equal(s.scx_ops, "");

	put("/sys/kernel/sched_ext/state", "disabled\n");
	uc_sysinfo_sched_ext(&s);
	assert_int_equal(s.scx_rc, 0);
	assert_string_equal(s.scx, "disabled");
	assert_string_equal(s.scx_ops, "");

	put("/sys/kernel/sched_ext/state", "enabled\n");
	put("/sys/kernel/sched_ext/root/ops", "rustland\n");
	uc_sysinfo_sched_ext(&s);
	assert_string_equal(s.scx, "enabled");
	assert_string_equal(s.scx_ops, "rustland");
	rmtree("/sys/kernel/sched_ext");
}

static void kernel_config(void **state)
{
	(void)state;
	assert_int_equal(uc_kernel_config("9.9.9-none", "CONFIG_UCLAMP_TASK"), -1);
	put("/boot/config-6.1.0-test", "CONFIG_UCLAMP_TASK=y\n"
					"# CONFIG_UCLAMP_TASK_GROUP is not set\n"
					"CONFIG_UCLAMP_BUCKETS_COUNT=5\n"
					"CONFIG_FOO=m\n");
	assert_int_equal(uc_kernel_config("6.1.0-test", "CONFIG_UCLAMP_TASK"), 1);
	assert_int_equal(uc_kernel_config("6.1.0-test", "CONFIG_UCLAMP_TASK_GROUP"), 0);
	assert_int_equal(uc_kernel_config("6.1.0-test", "CONFIG_FOO"), 0);
	/* a prefix of a listed option is not that option */
	assert_int_equal(uc_kernel_config("6.1.0-test", "CONFIG_UCLAMP"), -1);
	assert_int_equal(uc_kernel_config("6.1.0-test", "CONFIG_BAR"), -1);
	/* Debian sid: nothing in /boot, the config beside the modules */
	put("/usr/lib/modules/7.3.0-sid/config", "CONFIG_UCLAMP_TASK_GROUP=y\n");
	assert_int_equal(uc_kernel_config("7.3.0-sid", "CONFIG_UCLAMP_TASK_GROUP"), 1);
	/* /boot first */
	put("/boot/config-7.3.0-sid", "# CONFIG_UCLAMP_TASK_GROUP is not set\n");
	assert_int_equal(uc_kernel_config("7.3.0-sid", "CONFIG_UCLAMP_TASK_GROUP"), 0);
}

static void support(void **state)
{
	struct uc_sysinfo *s = calloc(1, sizeof(*s));

	(void)state;
	assert_non_null(s);
	/* no uclamp: no group support either, nothing else is asked */
	s->fp.state = UC_KEY_UNSUPPORTED;
	uc_sysinfo_support(s);
	assert_int_equal(s->task, 0);
	assert_int_equal(s->task_group, 0);

	/* the sysctls exist; a group with the files answers for groups */
	memset(s, 0, sizeof(*s));
	s->fp.sysctls = true;
	s->fp.scan.cgroups_cpu = 3;
	s->fp.scan.cgroups_uclamp = 1;
	uc_sysinfo_support(s);
	assert_int_equal(s->task, 1);
	assert_int_equal(s->task_group, 1);
	/* cpu groups without the files: the kernel lacks CONFIG_UCLAMP_TASK_GROUP */
	s->fp.scan.cgroups_uclamp = 0;
	uc_sysinfo_support(s);
	assert_int_equal(s->task_group, 0);

	/* no groups to look at, no kallsyms here: the config file decides */
	s->fp.scan.cgroups_cpu = 0;
	s->fp.state = UC_KEY_UNKNOWN;
	s->fp.sysctls = false;
	snprintf(s->release, sizeof(s->release), "6.1.0-test");
	put("/boot/config-6.1.0-test", "CONFIG_UCLAMP_TASK_GROUP=y\n");
	uc_sysinfo_support(s);
	assert_int_equal(s->task, -1);
	assert_int_equal(s->task_group, 1);
	snprintf(s->release, sizeof(s->release), "6.1.0-other");
	uc_sysinfo_support(s);
	assert_int_equal(s->task_group, -1);
	free(s);
}

static void expect_advice(struct uc_sysinfo *s, const char *needle)
{
	uc_sysinfo_advise(s);
	if (!strstr(s->advice, needle))
		fail_msg("advice '%s' lacks '%s'", s->advice, needle);
}

static void advice(void **state)
{
	struct uc_sysinfo *s = calloc(1, sizeof(*s));

	(void)state;
	assert_non_null(s);
	s->fp.state = UC_KEY_UNSUPPORTED;
	expect_advice(s, "this kernel has no uclamp");

	s->fp.state = UC_KEY_OFF;
	s->scx_rc = 0;
	snprintf(s->scx, sizeof(s->scx), "enabled");
	expect_advice(s, "sched_ext scheduler is loaded");

	snprintf(s->scx, sizeof(s->scx), "disabled");
	s->cap_rc = 0;		/* asymmetric */
	expect_advice(s, "no cpufreq policies: clamps cannot change CPU frequency here "
			 "(only task placement)");
	s->cap_rc = 1;
	s->ngov = 2;
	expect_advice(s, "no CPU uses the schedutil governor: clamps will not change CPU");
	assert_null(strstr(s->advice, "placement"));

	s->nschedutil = 1;
	expect_advice(s, "the fast path is off: the first clamp write");
	assert_non_null(strstr(s->advice, "(uclampctl asks first); " UC_FASTPATH_COST));
	s->fp.state = UC_KEY_ON;
	expect_advice(s, "nothing is clamped now");
	s->fp.scan.cgroups_nondefault = 1;
	expect_advice(s, "the fast path is already on");
	s->fp.state = UC_KEY_ALWAYS_ON;
	expect_advice(s, "already always-on");
	s->fp.state = UC_KEY_UNKNOWN;
	expect_advice(s, "state is unknown");
	free(s);
}

/* ---- one full read: the fast path's kernel side scripted ---- */
static enum uc_support probe(int *err)
{
	*err = 0;
	return UC_SUPPORT_YES;
}

static int no_cgroups(uc_fp_cg_fn fn, void *data)
{
	(void)fn;
	(void)data;
	return -ENOENT;
}

static int two_tasks(uc_fp_task_fn fn, void *data)
{
	struct uc_fp_task_sample t = { .pid = 1, .tid = 1, .comm = "init", .min = 0, .max = 1024 };

	fn(&t, data);
	t.pid = t.tid = 2;
	t.max = 512;		/* a clamped task */
	fn(&t, data);
	return 0;
}

static void full_read(void **state)
{
	static const struct uc_fp_ops ops = {
		.probe = probe, .cgroups = no_cgroups, .tasks = two_tasks,
	};
	struct uc_cg_info cg = { .version = UC_CG_V2 };
	struct uc_sysinfo *s = malloc(sizeof(*s));

	(void)state;
	assert_non_null(s);
	put("/proc/sys/kernel/osrelease", "6.1.0-test\n");
	put("/proc/sys/kernel/sched_util_clamp_min", "1024\n");
	put("/proc/sys/kernel/sched_util_clamp_max", "1024\n");
	put("/proc/sys/kernel/sched_util_clamp_min_rt_default", "1024\n");
	put("/sys/devices/system/cpu/cpu0/cpu_capacity", "446\n");
	put("/sys/devices/system/cpu/cpu1/cpu_capacity", "1024\n");
	put("/sys/kernel/security/lockdown", "none [integrity] confidentiality\n");
	rmtree("/sys/devices/system/cpu/cpufreq");
	put_gov(0, "schedutil\n");
	put_gov(1, "performance\n");
	snprintf(cg.mount, sizeof(cg.mount), "%s/sys/fs/cgroup", root);
	uc_cg_use(&cg);		/* not the build host's mount table */
	uc_fastpath_set_ops(&ops);

	uc_sysinfo_read(s);
	assert_string_equal(s->release, "6.1.0-test");
	assert_true(s->fp.sysctls);
	assert_int_equal(s->fp.scan.sys.min, 1024);
	assert_int_equal(s->fp.scan.tasks, 2);
	assert_int_equal(s->fp.scan.tasks_nondefault, 1);
	assert_int_equal(s->task, 1);
	assert_int_equal(s->cg_rc, 0);
	assert_string_equal(s->cg.mount, cg.mount);
	assert_int_equal(s->ngov, 2);
	assert_int_equal(s->nschedutil, 1);
	assert_int_equal(s->cap_rc, 0);
	assert_string_equal(s->caps, "cpu0 446, cpu1 1024");
	assert_int_equal(s->scx_rc, -ENOENT);
	assert_int_equal(s->ld_rc, 0);
	assert_string_equal(s->lockdown, "integrity");
	/* a clamped task is evidence that the key is on */
	assert_int_equal(s->fp.state, UC_KEY_ON);
	assert_string_equal(s->advice,
			    "the fast path is already on: more clamps add no static-key cost");
	uc_fastpath_set_ops(NULL);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(governors),
		cmocka_unit_test(sched_ext),
		cmocka_unit_test(kernel_config),
		cmocka_unit_test(support),
		cmocka_unit_test(advice),
		cmocka_unit_test(full_read),
	};

	return fr_run(&suite, tests, NULL, NULL);
}
