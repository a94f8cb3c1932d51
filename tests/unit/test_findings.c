/*
 * findings.c: each rule on its own input (clamps nothing honours, with and
 * without clamps set; max as a request only; system util_min below 1024;
 * RT threads with a util_min of their own; the RT default on a battery;
 * the key on with every clamp at its default; a util_min too low to raise
 * the frequency where the kernel is not frequency-invariant),
 * warnings before infos, and the two readers on a fake sysfs (batteries,
 * the RT rule's policy and default).
 */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "uclamp/findings.h"
#include "uclamp/sysroot.h"
#include "fakeroot.h"

static char root[512];
static const struct fr_suite suite = { root, sizeof(root), "test-findings", true, { NULL } };

static struct uc_effect *effect(enum uc_eff_verdict v, enum uc_place_verdict place)
{
	struct uc_effect *e = calloc(1, sizeof(*e));

	assert_non_null(e);
	e->n = 2;
	for (size_t i = 0; i < 2; i++) {
		e->p[i].id = (int)i;
		e->p[i].v[UC_EFF_MIN] = e->p[i].v[UC_EFF_MAX] = v;
		snprintf(e->p[i].reason[UC_EFF_MAX], UC_EFF_TEXT, "reason %zu", i);
		snprintf(e->p[i].fix, UC_EFF_TEXT, "fix %zu", i);
	}
	e->place = place;
	return e;
}

static void defaults(struct uc_find_input *in, const struct uc_effect *e)
{
	memset(in, 0, sizeof(*in));
	in->effect = e;
	in->sys = (struct uc_sysctl_values){ 1024, 1024, 1024 };
	in->battery = 0;
}

static const struct uc_finding *find(const struct uc_findings *fs, const char *id)
{
	for (size_t i = 0; i < fs->n; i++)
		if (!strcmp(fs->f[i].id, id))
			return &fs->f[i];
	return NULL;
}

static void nothing_wrong(void **state)
{
	struct uc_effect *e = effect(UC_EFF_STEERS, UC_PLACE_NONE);
	struct uc_find_input in;
	struct uc_findings fs;

	(void)state;
	defaults(&in, e);
	in.tasks_clamped = 3;
	uc_findings_eval(&in, &fs);
	assert_int_equal(fs.n, 0);
	free(e);
}

static void clamps_no_effect(void **state)
{
	struct uc_effect *e = effect(UC_EFF_IGNORED, UC_PLACE_NONE);
	struct uc_find_input in;
	struct uc_findings fs;
	const struct uc_finding *f;

	(void)state;
	defaults(&in, e);
	uc_findings_eval(&in, &fs);
	f = find(&fs, "clamps-no-effect");
	assert_non_null(f);
	assert_int_equal(f->level, UC_FIND_INFO);	/* nothing clamped yet */
	assert_non_null(strstr(f->text, "would not change anything here: reason 0"));
	assert_string_equal(f->fix, "fix 0");

	in.tasks_clamped = 2;
	in.cgroups_clamped = 1;
	uc_findings_eval(&in, &fs);
	f = find(&fs, "clamps-no-effect");
	assert_int_equal(f->level, UC_FIND_WARNING);
	assert_non_null(strstr(f->text, "2 threads and 1 cgroups have clamps that nothing here"));

	/* no cpufreq (a VM) counts the same */
	e->p[0].v[UC_EFF_MIN] = e->p[0].v[UC_EFF_MAX] = UC_EFF_NO_CPUFREQ;
	uc_findings_eval(&in, &fs);
	assert_non_null(find(&fs, "clamps-no-effect"));

	/* one policy where max is a request: not "nothing" */
	e->p[1].v[UC_EFF_MAX] = UC_EFF_REQUEST_ONLY;
	uc_findings_eval(&in, &fs);
	assert_null(find(&fs, "clamps-no-effect"));
	assert_non_null(find(&fs, "max-request-only"));
	assert_non_null(strstr(find(&fs, "max-request-only")->text, "1 of 2 policies (policy1"));
	e->p[1].v[UC_EFF_MAX] = UC_EFF_IGNORED;

	/* placement honours them (asymmetric CPUs) */
	e->place = UC_PLACE_STEERS;
	uc_findings_eval(&in, &fs);
	assert_null(find(&fs, "clamps-no-effect"));
	/* an unknown policy is not "nothing" either */
	e->place = UC_PLACE_NONE;
	e->p[1].v[UC_EFF_MIN] = UC_EFF_UNKNOWN;
	uc_findings_eval(&in, &fs);
	assert_null(find(&fs, "clamps-no-effect"));
	free(e);
}

static void system_min(void **state)
{
	struct uc_find_input in;
	struct uc_findings fs;
	const struct uc_finding *f;

	(void)state;
	defaults(&in, NULL);
	in.sys.min = 128;
	uc_findings_eval(&in, &fs);
	f = find(&fs, "system-min");
	assert_non_null(f);
	assert_int_equal(f->level, UC_FIND_WARNING);
	assert_non_null(strstr(f->text, "= 128 caps every util_min at 128, RT tasks' default boost (1024)"));
	in.sys.min = 1024;
	uc_findings_eval(&in, &fs);
	assert_null(find(&fs, "system-min"));
	in.sys.min = 0;
	in.sys_rc = -ENOENT;	/* no uclamp: nothing read */
	uc_findings_eval(&in, &fs);
	assert_null(find(&fs, "system-min"));
}

static void rt_user_defined(void **state)
{
	struct uc_find_input in;
	struct uc_findings fs;
	const struct uc_finding *f;

	(void)state;
	/* the RT rule: FIFO/RR only, against the RT default (1024 when absent) */
	assert_true(uc_find_rt_user_min(SCHED_FIFO, 1024, 0));
	assert_false(uc_find_rt_user_min(SCHED_FIFO, 0, 0));
	assert_false(uc_find_rt_user_min(SCHED_RR, 1024, 1024));
	assert_true(uc_find_rt_user_min(SCHED_RR, 512, 1024));
	assert_false(uc_find_rt_user_min(SCHED_RR, 1024, UC_SYSCTL_ABSENT));
	assert_false(uc_find_rt_user_min(SCHED_OTHER, 512, 1024));
	assert_false(uc_find_rt_user_min(SCHED_DEADLINE, 512, 1024));

	defaults(&in, NULL);
	in.sys.rt_default = 0;
	in.rt_user_min = 2;
	in.rt_user_pid = 42;
	in.rt_user_value = 1024;
	snprintf(in.rt_user_comm, sizeof(in.rt_user_comm), "audio");
	uc_findings_eval(&in, &fs);
	f = find(&fs, "rt-min-user-defined");
	assert_non_null(f);
	assert_non_null(strstr(f->text, "2 RT threads have a util_min of their own (pid 42 audio: "
					"1024, the RT default is 0)"));
	assert_non_null(strstr(f->fix, "task reset 42 (writes -1"));
}

static void battery(void **state)
{
	struct uc_find_input in;
	struct uc_findings fs;

	(void)state;
	assert_int_equal(fr_remove(root, "/sys"), 0);
	assert_int_equal(uc_find_battery(), 0);
	assert_int_equal(fr_write(root, "/sys/class/power_supply/AC/type", "Mains\n"), 0);
	assert_int_equal(uc_find_battery(), 0);
	assert_int_equal(fr_write(root, "/sys/class/power_supply/BAT0/type", "Battery\n"), 0);
	assert_int_equal(uc_find_battery(), 1);

	defaults(&in, NULL);
	in.battery = 1;
	uc_findings_eval(&in, &fs);
	assert_non_null(find(&fs, "rt-default-battery"));
	assert_int_equal(find(&fs, "rt-default-battery")->level, UC_FIND_INFO);
	in.sys.rt_default = 0;
	uc_findings_eval(&in, &fs);
	assert_null(find(&fs, "rt-default-battery"));
	in.sys.rt_default = 1024;
	in.battery = 0;
	uc_findings_eval(&in, &fs);
	assert_null(find(&fs, "rt-default-battery"));
}

/* a no-op write flipped the key: on, and nothing in sight is clamped */
static void key_on_defaults(void **state)
{
	struct uc_find_input in;
	struct uc_findings fs;
	const struct uc_finding *f;

	(void)state;
	defaults(&in, NULL);
	in.key = UC_KEY_ON;
	uc_findings_eval(&in, &fs);
	f = find(&fs, "key-on-defaults");
	assert_non_null(f);
	assert_int_equal(f->level, UC_FIND_WARNING);
	assert_non_null(strstr(f->text, "every thread, cgroup and system clamp is at its default"));
	assert_non_null(strstr(f->fix, "only a reboot turns it off"));
	in.sys.rt_default = UC_SYSCTL_ABSENT;	/* 5.9: no RT default sysctl */
	uc_findings_eval(&in, &fs);
	assert_non_null(find(&fs, "key-on-defaults"));
	/* anything clamped, or off, unknown, always-on, or a walk that failed: not it */
	for (int i = 0; i < 8; i++) {
		defaults(&in, NULL);
		in.key = UC_KEY_ON;
		switch (i) {
		case 0: in.tasks_clamped = 1; break;
		case 1: in.cgroups_clamped = 1; break;
		case 2: in.rt_user_min = 1; break;
		case 3: in.sys.max = 800; break;
		case 4: in.sys.rt_default = 0; break;
		case 5: in.key = UC_KEY_OFF; break;
		case 6: in.key = UC_KEY_ALWAYS_ON; break;
		case 7: in.tasks_rc = -EACCES; break;
		}
		uc_findings_eval(&in, &fs);
		if (find(&fs, "key-on-defaults"))
			fail_msg("case %d: key-on-defaults", i);
	}
}

/* not frequency-invariant: a util_min <= 819 cannot raise the frequency */
static void min_below_tip(void **state)
{
	struct uc_effect *e = effect(UC_EFF_STEERS, UC_PLACE_NONE);
	struct uc_find_input in;
	struct uc_findings fs;
	const struct uc_finding *f;

	(void)state;
	e->inv = UC_INV_NO;
	snprintf(e->inv_reason, sizeof(e->inv_reason), "no APERF/MPERF");
	defaults(&in, e);
	in.tasks_clamped = in.min_clamped = 3;
	in.min_low = 2;
	uc_findings_eval(&in, &fs);
	f = find(&fs, "min-below-tip");
	assert_non_null(f);
	assert_int_equal(f->level, UC_FIND_WARNING);
	assert_non_null(strstr(f->text, "2 of 3 threads and cgroups asking for a uclamp_min ask "
					"for 819 (80%) or less, which cannot raise the frequency "
					"here: the kernel is not frequency-invariant (no APERF/MPERF)"));
	assert_non_null(strstr(f->fix, "above 819 raises it"));
	/* invariant or unknown, none that low, placement honouring them: not it */
	e->inv = UC_INV_UNKNOWN;
	uc_findings_eval(&in, &fs);
	assert_null(find(&fs, "min-below-tip"));
	e->inv = UC_INV_NO;
	e->place = UC_PLACE_STEERS;
	uc_findings_eval(&in, &fs);
	assert_null(find(&fs, "min-below-tip"));
	e->place = UC_PLACE_NONE;
	in.min_low = 0;
	uc_findings_eval(&in, &fs);
	assert_null(find(&fs, "min-below-tip"));
	/* min ignored anyway: clamps-no-effect's business */
	in.min_low = 2;
	e->p[0].v[UC_EFF_MIN] = e->p[1].v[UC_EFF_MIN] = UC_EFF_IGNORED;
	uc_findings_eval(&in, &fs);
	assert_null(find(&fs, "min-below-tip"));
	free(e);
}

static void warnings_first(void **state)
{
	struct uc_effect *e = effect(UC_EFF_IGNORED, UC_PLACE_NONE);
	struct uc_find_input in;
	struct uc_findings fs;

	(void)state;
	defaults(&in, e);	/* clamps-no-effect: info, nothing clamped */
	in.battery = 1;		/* info */
	in.sys.min = 512;	/* warning */
	uc_findings_eval(&in, &fs);
	assert_int_equal(fs.n, 3);
	assert_string_equal(fs.f[0].id, "system-min");
	assert_string_equal(fs.f[1].id, "clamps-no-effect");
	assert_string_equal(fs.f[2].id, "rt-default-battery");
	assert_string_equal(uc_find_level_name(fs.f[0].level), "warning");
	assert_string_equal(uc_find_level_name(fs.f[2].level), "info");
	free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nothing_wrong),
		cmocka_unit_test(clamps_no_effect),
		cmocka_unit_test(system_min),
		cmocka_unit_test(rt_user_defined),
		cmocka_unit_test(battery),
		cmocka_unit_test(warnings_first),
		cmocka_unit_test(key_on_defaults),
		cmocka_unit_test(min_below_tip),
	};

	return fr_run(&suite, tests, NULL, NULL);
}
