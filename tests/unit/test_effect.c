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

/* the pc guest's acpi-cpufreq policy: 8 P-states, fastest first */
static void pstates(int id)
{
	static const char *const files[][2] = {
		{ "scaling_available_frequencies",
		  "3000000 2700000 2400000 2100000 1800000 1500000 1200000 800000 \n" },
		{ "scaling_cur_freq", "800000\n" }, { "scaling_min_freq", "800000\n" },
		{ "scaling_max_freq", "3000000\n" }, { "cpuinfo_min_freq", "800000\n" },
		{ "cpuinfo_max_freq", "3000000\n" },
	};
	char p[160];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(p, sizeof(p), SYS "/cpufreq/policy%d/%s", id, files[i][0]);
		put(p, files[i][1]);
	}
}

static void freq_model(void **state)
{
	struct uc_effect *e = fresh(UC_KVER(6, 1, 0));
	struct uc_eff_freq a, b;
	unsigned long long d[UC_EFF_MAX_FREQS], total;

	(void)state;
	policy(1, "schedutil\n", "acpi-cpufreq\n");
	pstates(1);
	put(SYS "/cpufreq/policy1/stats/time_in_state",
	    "3000000 500\n2700000 0\n2400000 0\n2100000 0\n1800000 0\n1500000 0\n"
	    "1200000 7\n800000 1200\n");
	assert_int_equal(uc_eff_freq_read(1, &a), 0);
	assert_int_equal(a.cpu, 1);
	assert_int_equal(a.cur, 800000);
	assert_int_equal(a.max, 3000000);
	assert_int_equal(a.avg, -1);	/* no counters: no cpuinfo_avg_freq */
	assert_int_equal((int)a.n, 8);
	assert_int_equal(a.khz[0], 800000);	/* ascending */
	assert_int_equal(a.khz[7], 3000000);
	assert_int_equal(a.tis_rc, 0);
	assert_int_equal(a.tis[0], 1200);
	assert_int_equal(a.tis[1], 7);
	assert_int_equal(a.capacity, 1024);
	assert_false(a.capacity_read);
	/* 3 s later: 2.9 s at 1200, 0.1 s at 800 */
	put(SYS "/cpufreq/policy1/stats/time_in_state",
	    "3000000 500\n2700000 0\n2400000 0\n2100000 0\n1800000 0\n1500000 0\n"
	    "1200000 297\n800000 1210\n");
	put(SYS "/cpufreq/policy1/cpuinfo_avg_freq", "1187000\n");
	put(SYS "/cpu1/cpu_capacity", "446\n");
	assert_int_equal(uc_eff_freq_read(1, &b), 0);
	assert_int_equal(b.avg, 1187000);
	assert_int_equal(b.capacity, 446);
	assert_int_equal(uc_eff_freq_delta(&a, &b, d, &total), 0);
	assert_int_equal(total, 300);
	assert_int_equal(d[1], 290);
	assert_int_equal(d[0], 10);
	/* a stats reset, and a policy without stats */
	assert_int_equal(uc_eff_freq_delta(&b, &a, d, &total), -EINVAL);
	b.tis_rc = -ENOENT;
	assert_int_equal(uc_eff_freq_delta(&a, &b, d, &total), -ENODATA);
	/* an idle CPU's cpuinfo_avg_freq reads EAGAIN: present, no sample */
	put(SYS "/cpufreq/policy1/cpuinfo_avg_freq", "");
	assert_int_equal(uc_eff_freq_read(1, &b), 0);
	assert_int_equal(b.avg, 0);
	/* resolve: lowest at or above, within the policy's limits */
	assert_int_equal(uc_eff_freq_resolve(&a, 878000), 1200000);
	assert_int_equal(uc_eff_freq_resolve(&a, 1200000), 1200000);
	assert_int_equal(uc_eff_freq_resolve(&a, 100000), 800000);
	assert_int_equal(uc_eff_freq_resolve(&a, 9000000), 3000000);
	a.max = 2000000;	/* scaling_max_freq 2 GHz: the highest below */
	assert_int_equal(uc_eff_freq_resolve(&a, 2500000), 1800000);
	a.n = 0;		/* no table (HWP): the clamped value */
	assert_int_equal(uc_eff_freq_resolve(&a, 1234000), 1234000);
	assert_int_equal(uc_eff_freq_read(7, &a), -ENOENT);
	/* the policies' read carries the model */
	uc_effect_policies(e);
	assert_int_equal(e->p[0].f.cur, 800000);
	assert_int_equal((int)e->p[0].f.n, 8);
	free(e);
}

static void inv(struct uc_effect *e, const char *arch, int key_arch, int key_cpufreq,
		enum uc_inv want, const char *why)
{
	if (arch)
		put("/proc/sys/kernel/arch", arch);
	else
		assert_int_equal(fr_remove(root, "/proc/sys/kernel/arch"), 0);
	uc_effect_invariance(e, key_arch, key_cpufreq);
	assert_string_equal(uc_inv_name(e->inv), uc_inv_name(want));
	if (!strstr(e->inv_reason, why))
		fail_msg("reason '%s' lacks '%s'", e->inv_reason, why);
}

#define FLAGS_TCG "processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu tsc constant_tsc " \
	"hypervisor\n\n"
#define FLAGS_HW "processor\t: 0\nflags\t\t: fpu constant_tsc aperfmperf\nbugs\t\t:\n\n"

static void invariance(void **state)
{
	struct uc_effect *e = fresh(UC_KVER(6, 1, 0));

	(void)state;
	/* x86: the key decides; without it, no APERF/MPERF is a sure no */
	inv(e, "x86_64\n", 1, -1, UC_INV_YES, "APERF/MPERF");
	assert_string_equal(e->inv_evidence[1], "arch_scale_freq_key (kernel memory): on");
	inv(e, "x86_64\n", 0, -1, UC_INV_NO, "arch_scale_freq_key off");
	put("/proc/cpuinfo", FLAGS_TCG);
	inv(e, "x86_64\n", -1, -1, UC_INV_NO, "no APERF/MPERF");
	put("/proc/cpuinfo", FLAGS_HW);
	inv(e, "x86_64\n", -1, -1, UC_INV_UNKNOWN, "only kernel memory says");
	inv(e, "x86_64\n", UC_EFF_KEY_ABSENT, -1, UC_INV_NO, "no arch_scale_freq_key");
	inv(e, NULL, -1, -1, UC_INV_UNKNOWN, "only kernel memory says");	/* 5.x: flags say x86 */
	e->kver = UC_KVER(5, 4, 0);
	inv(e, "x86_64\n", -1, -1, UC_INV_NO, "older than 5.7");
	e->kver = UC_KVER(6, 13, 0);
	/* arm64: the cpufreq key, AMU (cpuinfo_avg_freq), or a driver at all */
	assert_int_equal(fr_remove(root, "/proc/cpuinfo"), 0);
	inv(e, "aarch64\n", -1, 1, UC_INV_YES, "arch_set_freq_scale");
	inv(e, "aarch64\n", -1, 0, UC_INV_UNKNOWN, "AMU");
	policy(0, "schedutil\n", "cppc_cpufreq\n");
	uc_effect_policies(e);
	inv(e, "aarch64\n", -1, -1, UC_INV_YES, "driver with a target");
	put(SYS "/cpufreq/policy0/cpuinfo_avg_freq", "2100000\n");
	uc_effect_policies(e);
	inv(e, "aarch64\n", -1, 0, UC_INV_YES, "count cycles");
	e->kver = UC_KVER(5, 9, 0);
	inv(e, "armv7l\n", -1, 0, UC_INV_YES, "before 5.10");
	/* powerpc never; the rest unknown */
	inv(e, "ppc64le\n", -1, -1, UC_INV_NO, "no frequency invariance");
	inv(e, "riscv64\n", -1, -1, UC_INV_UNKNOWN, "not known");
	inv(e, NULL, -1, -1, UC_INV_UNKNOWN, "architecture is unknown");
	free(e);
}

/* not invariant: the min verdict says what 80% means; invariant: silent */
static void finish_invariance(void **state)
{
	struct uc_effect *e = fresh(UC_KVER(7, 3, 0));

	(void)state;
	policy(0, "schedutil\n", "acpi-cpufreq\n");
	policy(1, "performance\n", "acpi-cpufreq\n");
	uc_effect_policies(e);
	e->inv = UC_INV_NO;
	uc_effect_finish(e);
	expect(&e->p[0], UC_EFF_STEERS, UC_EFF_STEERS);
	assert_non_null(strstr(e->p[0].reason[UC_EFF_MIN],
			       "not frequency-invariant here: schedutil multiplies the current "
			       "frequency by 1.25 x util/capacity, so a uclamp_min at or below 819 "
			       "(80%) cannot raise it"));
	assert_null(strstr(e->p[0].reason[UC_EFF_MAX], "invariant"));
	expect(&e->p[1], UC_EFF_IGNORED, UC_EFF_IGNORED);	/* performance: no caveat */
	assert_null(strstr(e->p[1].reason[UC_EFF_MIN], "invariant"));
	uc_effect_policies(e);
	e->inv = UC_INV_YES;
	uc_effect_finish(e);
	assert_null(strstr(e->p[0].reason[UC_EFF_MIN], "invariant"));
	free(e);
}

/* sched_ext: each scheduler's row, the generic answer for the rest */
static void scx_row(struct uc_effect *e, const char *ops, enum uc_eff_verdict min,
		    enum uc_eff_verdict max, const char *in_reason)
{
	put("/sys/kernel/sched_ext/root/ops", ops);
	uc_effect_policies(e);
	uc_effect_placement(e, -1, -1);
	uc_effect_finish(e);
	expect(&e->p[0], min, max);
	assert_int_equal(e->place, UC_PLACE_BPF);
	assert_non_null(strstr(e->place_reason, "no scx scheduler reads clamps for placement"));
	if (!strstr(e->p[0].reason[UC_EFF_MIN], in_reason) &&
	    !strstr(e->p[0].reason[UC_EFF_MAX], in_reason))
		fail_msg("no '%s' in '%s' / '%s'", in_reason, e->p[0].reason[0],
			 e->p[0].reason[1]);
}

static void sched_ext(void **state)
{
	struct uc_effect *e = fresh(UC_KVER(6, 12, 0));

	(void)state;
	policy(0, "schedutil\n", "acpi-cpufreq\n");
	put("/sys/kernel/sched_ext/state", "enabled\n");
	put("/sys/kernel/sched_ext/switch_all", "1\n");
	/* scx's Rust schedulers add their version to the ops name */
	scx_row(e, "bpfland_1.0.16_g1a2b3c4_x86_64_unknown_linux_gnu\n", UC_EFF_IGNORED,
		UC_EFF_STEERS, "scx_bpfland: scx_bpfland sets every CPU's performance target "
		"to the maximum");
	assert_non_null(strstr(e->place_reason, "scx_bpfland runs every task"));
	assert_true(has_evidence(&e->p[0], "init_cpufreq_perf"));
	scx_row(e, "lavd\n", UC_EFF_STEERS, UC_EFF_STEERS, "from each CPU's load");
	scx_row(e, "rusty_1.0.9\n", UC_EFF_STEERS, UC_EFF_IGNORED, "--perf, default 0");
	/* unknown (and a name that only starts like one): the policies' own */
	scx_row(e, "rustland_1.0\n", UC_EFF_STEERS, UC_EFF_STEERS, "acpi-cpufreq sets");
	assert_non_null(strstr(e->place_reason, "rustland_1.0 runs"));
	assert_null(uc_scx_lookup("lavdx"));
	assert_null(uc_scx_lookup(NULL));
	/* a row never strengthens a weaker verdict: performance stays ignored */
	policy(0, "performance\n", "acpi-cpufreq\n");
	scx_row(e, "lavd\n", UC_EFF_IGNORED, UC_EFF_IGNORED, "only schedutil");
	/* and a disabled sched_ext changes nothing */
	policy(0, "schedutil\n", "acpi-cpufreq\n");
	put("/sys/kernel/sched_ext/state", "disabled\n");
	uc_effect_policies(e);
	uc_effect_placement(e, -1, -1);
	uc_effect_finish(e);
	assert_null(e->scx_row);
	assert_string_equal(e->scx_ops, "");
	expect(&e->p[0], UC_EFF_STEERS, UC_EFF_STEERS);
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
	uc_effect_read_flags(e, 0);
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
		cmocka_unit_test(freq_model),
		cmocka_unit_test(invariance),
		cmocka_unit_test(finish_invariance),
		cmocka_unit_test(sched_ext),
	};

	return fr_run(&suite, tests, NULL, NULL);
}
