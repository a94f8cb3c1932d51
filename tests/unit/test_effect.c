/*
 * effect.c against fake sysfs trees: one test per row of the matrix
 * (schedutil with a target driver; intel_cpufreq with and without HWP,
 * before and from 7.3; amd-pstate passive and guided; intel_pstate and
 * amd-pstate-epp active; another governor; no cpufreq at all, and a
 * kernel without CPU_FREQ; an unreadable policy), the best verdict over
 * mixed policies, and placement (asymmetric, symmetric, unknown, keys
 * over files, sched_ext).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "uclamp/effect.h"
#include "uclamp/sysroot.h"
#include "fakeroot.h"

static char root[512];
static const struct fr_suite suite = { root, sizeof(root), "test-effect", true, { NULL } };

#define SYS "/sys/devices/system/cpu"

static void put(const char *abspath, const char *text)
{
	assert_int_equal(fr_write(root, abspath, text), 0);
}

static void policy(int id, const char *gov, const char *driver)
{
	char p[160];

	snprintf(p, sizeof(p), SYS "/cpufreq/policy%d/scaling_governor", id);
	put(p, gov);
	snprintf(p, sizeof(p), SYS "/cpufreq/policy%d/scaling_driver", id);
	put(p, driver);
	snprintf(p, sizeof(p), SYS "/cpufreq/policy%d/affected_cpus", id);
	put(p, id ? "1\n" : "0\n");
}

/* a fresh tree: only what the test puts */
static struct uc_effect *fresh(int kver)
{
	struct uc_effect *e = calloc(1, sizeof(*e));

	assert_non_null(e);
	assert_int_equal(fr_remove(root, "/sys"), 0);
	assert_int_equal(fr_remove(root, "/proc"), 0);
	assert_int_equal(fr_mkdir(root, SYS "/cpufreq"), 0);
	e->kver = kver;
	snprintf(e->release, sizeof(e->release), "%d.%d.0", kver >> 16, (kver >> 8) & 0xff);
	return e;
}

static bool has_evidence(const struct uc_eff_policy *p, const char *s)
{
	for (size_t i = 0; i < p->nevidence; i++)
		if (strstr(p->evidence[i], s))
			return true;
	return false;
}

static void expect(const struct uc_eff_policy *p, enum uc_eff_verdict min,
		   enum uc_eff_verdict max)
{
	assert_string_equal(uc_eff_verdict_name(p->v[UC_EFF_MIN]), uc_eff_verdict_name(min));
	assert_string_equal(uc_eff_verdict_name(p->v[UC_EFF_MAX]), uc_eff_verdict_name(max));
	assert_true(p->reason[UC_EFF_MIN][0] && p->reason[UC_EFF_MAX][0]);
}

static void schedutil_target_driver(void **state)
{
	struct uc_effect *e = fresh(UC_KVER(6, 1, 0));

	(void)state;
	policy(0, "schedutil\n", "acpi-cpufreq\n");
	uc_effect_policies(e);
	assert_int_equal(e->n, 1);
	assert_int_equal(e->p[0].id, 0);
	assert_string_equal(e->p[0].cpus, "0");
	expect(&e->p[0], UC_EFF_STEERS, UC_EFF_STEERS);
	assert_non_null(strstr(e->p[0].reason[UC_EFF_MAX], "acpi-cpufreq"));
	assert_string_equal(e->p[0].fix, "");
	assert_true(has_evidence(&e->p[0], "policy0/scaling_governor: schedutil"));
	assert_true(has_evidence(&e->p[0], "policy0/scaling_driver: acpi-cpufreq"));
	free(e);
}

static void intel_passive_hwp(void **state)
{
	struct uc_effect *e = fresh(UC_KVER(7, 3, 0));

	(void)state;
	policy(0, "schedutil\n", "intel_cpufreq\n");
	put(SYS "/cpufreq/policy0/base_frequency", "2400000\n");
	put(SYS "/intel_pstate/status", "passive\n");
	uc_effect_policies(e);
	expect(&e->p[0], UC_EFF_STEERS, UC_EFF_STEERS);
	assert_string_equal(e->p[0].mode, "passive");
	assert_non_null(strstr(e->p[0].reason[UC_EFF_MAX], "7.3"));
	assert_true(has_evidence(&e->p[0], "intel_pstate/status: passive"));
	assert_true(has_evidence(&e->p[0], "base_frequency: present (HWP)"));
	assert_true(has_evidence(&e->p[0], "osrelease: 7.3.0"));

	/* 7.2: the same tree, no ceiling */
	e->kver = UC_KVER(7, 2, 13);
	uc_effect_policies(e);
	expect(&e->p[0], UC_EFF_STEERS, UC_EFF_REQUEST_ONLY);
	assert_non_null(strstr(e->p[0].reason[UC_EFF_MAX], "older than 7.3"));

	/* unknown version: not claimed to be a ceiling */
	e->kver = 0;
	uc_effect_policies(e);
	expect(&e->p[0], UC_EFF_STEERS, UC_EFF_REQUEST_ONLY);
	free(e);
}

static void intel_passive_no_hwp(void **state)
{
	struct uc_effect *e = fresh(UC_KVER(6, 1, 0));

	(void)state;
	policy(0, "schedutil\n", "intel_cpufreq\n");
	put(SYS "/intel_pstate/status", "passive\n");
	uc_effect_policies(e);
	expect(&e->p[0], UC_EFF_STEERS, UC_EFF_STEERS);
	assert_true(has_evidence(&e->p[0], "base_frequency: absent (no HWP)"));
	free(e);
}

static void amd_passive_guided(void **state)
{
	static const char *const modes[] = { "passive\n", "guided\n" };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct uc_effect *e = fresh(UC_KVER(7, 3, 0));

		policy(0, "schedutil\n", "amd-pstate\n");
		put(SYS "/amd_pstate/status", modes[i]);
		uc_effect_policies(e);
		expect(&e->p[0], UC_EFF_STEERS, UC_EFF_REQUEST_ONLY);
		assert_non_null(strstr(e->p[0].reason[UC_EFF_MAX], "ignores schedutil's maximum"));
		assert_true(has_evidence(&e->p[0], "amd_pstate/status: "));
		free(e);
	}
}

static void pstate_active(void **state)
{
	struct uc_effect *e = fresh(UC_KVER(7, 3, 0));

	(void)state;
	policy(0, "powersave\n", "intel_pstate\n");
	put(SYS "/intel_pstate/status", "active\n");
	uc_effect_policies(e);
	expect(&e->p[0], UC_EFF_IGNORED, UC_EFF_IGNORED);
	assert_non_null(strstr(e->p[0].fix, "intel_pstate=passive"));
	assert_non_null(strstr(e->p[0].fix, "schedutil"));
	assert_string_equal(e->p[0].mode, "active");

	policy(0, "performance\n", "amd-pstate-epp\n");
	put(SYS "/amd_pstate/status", "active\n");
	uc_effect_policies(e);
	expect(&e->p[0], UC_EFF_IGNORED, UC_EFF_IGNORED);
	assert_non_null(strstr(e->p[0].fix, "amd_pstate=passive"));
	assert_true(has_evidence(&e->p[0], "amd_pstate/status: active"));
	free(e);
}

static void other_governor(void **state)
{
	struct uc_effect *e = fresh(UC_KVER(7, 3, 0));

	(void)state;
	policy(0, "ondemand\n", "acpi-cpufreq\n");
	uc_effect_policies(e);
	expect(&e->p[0], UC_EFF_IGNORED, UC_EFF_IGNORED);
	assert_non_null(strstr(e->p[0].reason[UC_EFF_MIN], "ondemand"));
	assert_non_null(strstr(e->p[0].fix, "policy0/scaling_governor"));
	/* passive intel under another governor: the governor decides */
	policy(0, "performance\n", "intel_cpufreq\n");
	uc_effect_policies(e);
	expect(&e->p[0], UC_EFF_IGNORED, UC_EFF_IGNORED);
	free(e);
}

static void no_cpufreq(void **state)
{
	struct uc_effect *e = fresh(UC_KVER(7, 3, 0));

	(void)state;
	put(SYS "/cpufreq/boost", "1\n");	/* not a policy */
	uc_effect_policies(e);
	assert_int_equal(e->cpufreq_rc, 0);
	assert_int_equal(e->n, 1);
	assert_int_equal(e->p[0].id, -1);
	expect(&e->p[0], UC_EFF_NO_CPUFREQ, UC_EFF_NO_CPUFREQ);
	assert_non_null(strstr(e->p[0].reason[UC_EFF_MIN], "frequency unaffected"));
	assert_true(has_evidence(&e->p[0], "no policy directories"));

	assert_int_equal(fr_remove(root, SYS "/cpufreq"), 0);
	uc_effect_policies(e);
	assert_int_equal(e->cpufreq_rc, -ENOENT);
	expect(&e->p[0], UC_EFF_NO_CPUFREQ, UC_EFF_NO_CPUFREQ);
	assert_true(has_evidence(&e->p[0], "no CONFIG_CPU_FREQ"));
	assert_int_equal(uc_effect_best(e, UC_EFF_MAX), UC_EFF_NO_CPUFREQ);
	free(e);
}

static void unreadable_and_best(void **state)
{
	struct uc_effect *e = fresh(UC_KVER(7, 2, 0));

	(void)state;
	policy(0, "performance\n", "acpi-cpufreq\n");
	assert_int_equal(fr_mkdir(root, SYS "/cpufreq/policy2"), 0);	/* no files */
	assert_int_equal(fr_mkdir(root, SYS "/cpufreq/policyX"), 0);	/* not a policy */
	uc_effect_policies(e);
	assert_int_equal(e->n, 2);
	expect(&e->p[0], UC_EFF_IGNORED, UC_EFF_IGNORED);
	assert_int_equal(e->p[1].id, 2);
	expect(&e->p[1], UC_EFF_UNKNOWN, UC_EFF_UNKNOWN);
	assert_true(has_evidence(&e->p[1], "scaling_governor: unreadable"));
	assert_int_equal(uc_effect_best(e, UC_EFF_MIN), UC_EFF_UNKNOWN);

	/* a policy where clamps steer wins */
	policy(1, "schedutil\n", "cppc_cpufreq\n");
	uc_effect_policies(e);
	assert_int_equal(e->n, 3);
	assert_int_equal(e->p[1].id, 1);
	assert_int_equal(uc_effect_best(e, UC_EFF_MIN), UC_EFF_STEERS);

	/* only ignoring policies: nothing changes the frequency */
	assert_int_equal(fr_remove(root, SYS "/cpufreq/policy1"), 0);
	assert_int_equal(fr_remove(root, SYS "/cpufreq/policy2"), 0);
	uc_effect_policies(e);
	assert_int_equal(uc_effect_best(e, UC_EFF_MAX), UC_EFF_IGNORED);
	free(e);
}

static void placement(void **state)
{
	struct uc_effect *e = fresh(UC_KVER(7, 3, 0));

	(void)state;
	/* x86: no cpu_capacity files, keys unread: unknown */
	uc_effect_placement(e, -1, -1);
	assert_int_equal(e->asymmetric, -1);
	assert_int_equal(e->place, UC_PLACE_UNKNOWN);
	assert_string_equal(uc_place_verdict_name(e->place), "unknown");
	assert_int_equal(e->scx, 0);
	/* ... but the key answers (hybrid x86) */
	uc_effect_placement(e, 1, 0);
	assert_int_equal(e->asymmetric, 1);
	assert_int_equal(e->eas, 0);
	assert_int_equal(e->place, UC_PLACE_STEERS);
	assert_non_null(strstr(e->place_reason, "energy-aware scheduling off"));

	/* arm64 big.LITTLE */
	put(SYS "/cpu0/cpu_capacity", "446\n");
	put(SYS "/cpu1/cpu_capacity", "1024\n");
	put("/proc/sys/kernel/sched_energy_aware", "1\n");
	uc_effect_placement(e, -1, -1);
	assert_int_equal(e->asymmetric, 1);
	assert_int_equal(e->eas, -1);	/* the sysctl allows it; nothing shows it is on */
	assert_string_equal(e->caps, "cpu0 446, cpu1 1024");
	assert_int_equal(e->place, UC_PLACE_STEERS);
	uc_effect_placement(e, -1, 1);
	assert_int_equal(e->eas, 1);
	/* a kernel without the EAS key has no EAS, and says so */
	uc_effect_placement(e, -1, UC_EFF_KEY_ABSENT);
	assert_int_equal(e->eas, 0);
	assert_string_equal(e->place_evidence[e->nplace_evidence - 2],
			    "sched_energy_present: not in this kernel (no EAS)");

	/* symmetric */
	put(SYS "/cpu0/cpu_capacity", "1024\n");
	uc_effect_placement(e, -1, -1);
	assert_int_equal(e->asymmetric, 0);
	assert_int_equal(e->eas, 0);
	assert_int_equal(e->place, UC_PLACE_NONE);

	/* sched_ext takes placement over */
	put("/sys/kernel/sched_ext/state", "enabled\n");
	put("/sys/kernel/sched_ext/switch_all", "1\n");
	uc_effect_placement(e, -1, -1);
	assert_int_equal(e->scx, 1);
	assert_int_equal(e->scx_all, 1);
	assert_int_equal(e->place, UC_PLACE_BPF);
	assert_non_null(strstr(e->place_reason, "every task"));
	assert_non_null(strstr(e->place_reason, "bound the frequency"));
	put("/sys/kernel/sched_ext/state", "disabled\n");
	uc_effect_placement(e, -1, -1);
	assert_int_equal(e->scx, 0);
	assert_int_equal(e->place, UC_PLACE_NONE);
	free(e);
}

static void names(void **state)
{
	(void)state;
	assert_int_equal(uc_eff_verdict_value(UC_EFF_STEERS), 2);
	assert_int_equal(uc_eff_verdict_value(UC_EFF_REQUEST_ONLY), 1);
	assert_int_equal(uc_eff_verdict_value(UC_EFF_IGNORED), 0);
	assert_int_equal(uc_eff_verdict_value(UC_EFF_NO_CPUFREQ), 0);
	assert_int_equal(uc_eff_verdict_value(UC_EFF_UNKNOWN), -1);
	assert_string_equal(uc_eff_verdict_name(UC_EFF_NO_CPUFREQ), "no-cpufreq");
	assert_string_equal(uc_place_verdict_name(UC_PLACE_BPF), "bpf-scheduler");
}

/* the whole read: version from osrelease, keys unreadable in a fake root */
static void full_read(void **state)
{
	struct uc_effect *e = fresh(0);

	(void)state;
	put("/proc/sys/kernel/osrelease", "7.3.0-rc7-uclamp\n");
	policy(0, "schedutil\n", "intel_cpufreq\n");
	put(SYS "/cpufreq/policy0/base_frequency", "2400000\n");
	uc_effect_read(e);
	assert_int_equal(e->kver, UC_KVER(7, 3, 0));
	assert_string_equal(e->release, "7.3.0-rc7-uclamp");
	expect(&e->p[0], UC_EFF_STEERS, UC_EFF_STEERS);
	assert_int_equal(e->place, UC_PLACE_UNKNOWN);
	free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(schedutil_target_driver),
		cmocka_unit_test(intel_passive_hwp),
		cmocka_unit_test(intel_passive_no_hwp),
		cmocka_unit_test(amd_passive_guided),
		cmocka_unit_test(pstate_active),
		cmocka_unit_test(other_governor),
		cmocka_unit_test(no_cpufreq),
		cmocka_unit_test(unreadable_and_best),
		cmocka_unit_test(placement),
		cmocka_unit_test(names),
		cmocka_unit_test(full_read),
	};

	return fr_run(&suite, tests, NULL, NULL);
}
