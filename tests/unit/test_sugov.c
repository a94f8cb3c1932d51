/*
 * sugov.c: schedutil's projection against what the kernel did in the TCG
 * guest (acpi-cpufreq, 8 P-states 800-3000 MHz, not frequency-invariant):
 * a busy loop from 3000 MHz, uclamp_max 1024/800 -> 3000, 600 -> 1200,
 * 300 and 150 -> 800; a light periodic task from 800 MHz, no clamp and
 * uclamp_min 600 -> 800, 800 -> wherever it is, 900 and 1024 -> 3000.
 * Both formulas give these (6.1 and 7.3-rc7 measured alike); where they
 * differ (the headroom before or after the clamps, invariant or not), the
 * kernel's own arithmetic.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "uclamp/effect.h"
#include "uclamp/sysroot.h"

static const enum uc_sugov_formula both[] = { UC_SUGOV_PRE_6_8, UC_SUGOV_6_8 };

static struct uc_eff_freq guest(long cur)
{
	static const long khz[] = { 800000, 1200000, 1500000, 1800000, 2100000, 2400000,
				    2700000, 3000000 };
	struct uc_eff_freq f = { .cpu = 1, .cur = cur, .min = 800000, .max = 3000000,
				 .hw_min = 800000, .hw_max = 3000000, .avg = -1, .n = 8,
				 .capacity = 1024 };

	memcpy(f.khz, khz, sizeof(khz));
	return f;
}

static struct uc_sugov_out project(enum uc_sugov_formula formula, bool invariant,
				   unsigned long util, unsigned long umin, unsigned long umax,
				   long cur)
{
	struct uc_sugov_in in = { .formula = formula, .invariant = invariant, .util = util,
				  .umin = umin, .umax = umax, .capacity = 1024 };
	struct uc_eff_freq f = guest(cur);
	struct uc_sugov_out out;

	assert_int_equal(uc_sugov_project(&in, &f, &out), 0);
	return out;
}

static long settle(enum uc_sugov_formula formula, unsigned long util, unsigned long umin,
		   unsigned long umax, long cur)
{
	return project(formula, false, util, umin, umax, cur).settle;
}

static void measured_busy(void **state)
{
	(void)state;
	for (int i = 0; i < 2; i++) {
		assert_int_equal(settle(both[i], 1024, 0, 1024, 3000000), 3000000);
		assert_int_equal(settle(both[i], 1024, 0, 800, 3000000), 3000000);
		assert_int_equal(settle(both[i], 1024, 0, 600, 3000000), 1200000);
		assert_int_equal(settle(both[i], 1024, 0, 300, 3000000), 800000);
		assert_int_equal(settle(both[i], 1024, 0, 150, 3000000), 800000);
		/* the path: 2197 MHz -> 2400 first, one P-state per update */
		assert_int_equal(project(both[i], false, 1024, 0, 600, 3000000).next, 2400000);
		/* released: climbs back from 800 to the top */
		assert_int_equal(settle(both[i], 1024, 0, 1024, 800000), 3000000);
	}
}

static void measured_periodic(void **state)
{
	(void)state;
	/* the light task's util under TCG: ~60 to ~250 */
	for (int i = 0; i < 2; i++)
		for (unsigned long util = 60; util <= 250; util += 95) {
			assert_int_equal(settle(both[i], util, 0, 1024, 800000), 800000);
			assert_int_equal(settle(both[i], util, 600, 1024, 800000), 800000);
			assert_int_equal(settle(both[i], util, 900, 1024, 800000), 3000000);
			assert_int_equal(settle(both[i], util, 1024, 1024, 800000), 3000000);
			/* 600 holds where it is: 1200 x 1.25 x 600/1024 = 878 -> 1200
			 * (seen on 7.3-rc7 after a brief climb), from above it falls there */
			assert_int_equal(settle(both[i], util, 600, 1024, 1200000), 1200000);
			assert_int_equal(settle(both[i], util, 600, 1024, 3000000), 1200000);
			/* 800: x0.977, every P-state rounds to itself */
			assert_int_equal(settle(both[i], util, 800, 1024, 800000), 800000);
			assert_int_equal(settle(both[i], util, 800, 1024, 1500000), 1500000);
		}
}

/* 819 is the last uclamp_min that cannot raise the frequency */
static void tipping_point(void **state)
{
	(void)state;
	for (int i = 0; i < 2; i++) {
		assert_int_equal(settle(both[i], 100, UC_SUGOV_MIN_TIP, 1024, 800000), 800000);
		assert_int_equal(settle(both[i], 100, UC_SUGOV_MIN_TIP + 1, 1024, 800000),
				 3000000);
	}
	/* invariant: before 6.8, 1.25 x 819 is the top; 6.8+ takes min as is */
	assert_int_equal(project(UC_SUGOV_PRE_6_8, true, 100, UC_SUGOV_MIN_TIP, 1024,
				 800000).next, 3000000);
	assert_int_equal(project(UC_SUGOV_6_8, true, 100, UC_SUGOV_MIN_TIP, 1024,
				 800000).next, 2400000);
}

/* where the two formulas part: the headroom before or after the clamps */
static void formulas_differ(void **state)
{
	static const struct {
		enum uc_sugov_formula formula;
		bool invariant;
		unsigned long util, umin, umax;
		long cur;
		unsigned long want_util;
		long want_target, want_next;
	} rows[] = {
		/* invariant, uclamp_min 600 on a light task: 1.25 x 600 before 6.8 */
		{ UC_SUGOV_PRE_6_8, true, 100, 600, 1024, 800000, 750, 2197265, 2400000 },
		{ UC_SUGOV_6_8, true, 100, 600, 1024, 800000, 600, 1757812, 1800000 },
		/* invariant, busy with uclamp_max 600: 6.8 caps after the headroom */
		{ UC_SUGOV_PRE_6_8, true, 1024, 0, 600, 3000000, 750, 2197265, 2400000 },
		{ UC_SUGOV_6_8, true, 1024, 0, 600, 3000000, 600, 1757812, 1800000 },
		/* not invariant, util 500 at 3000 MHz: 6.8 adds 1.25 twice */
		{ UC_SUGOV_PRE_6_8, false, 500, 0, 1024, 3000000, 625, 1831054, 2100000 },
		{ UC_SUGOV_6_8, false, 500, 0, 1024, 3000000, 625, 2288818, 2400000 },
		/* min above max: min wins in both */
		{ UC_SUGOV_PRE_6_8, true, 100, 700, 300, 800000, 875, 2563476, 2700000 },
		{ UC_SUGOV_6_8, true, 100, 700, 300, 800000, 700, 2050781, 2100000 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct uc_sugov_out o = project(rows[i].formula, rows[i].invariant, rows[i].util,
						rows[i].umin, rows[i].umax, rows[i].cur);

		if (o.util != rows[i].want_util || o.target != rows[i].want_target ||
		    o.next != rows[i].want_next)
			fail_msg("row %zu: util %lu target %ld next %ld", i, o.util, o.target,
				 o.next);
		if (rows[i].invariant)
			assert_int_equal(o.settle, o.next);	/* no dependence on cur */
	}
}

/* a little CPU: the clamp is capped at its capacity, its util scaled by it */
static void little_cpu_and_limits(void **state)
{
	struct uc_sugov_in in = { .formula = UC_SUGOV_6_8, .invariant = true, .util = 446,
				  .umin = 0, .umax = 600, .capacity = 446 };
	struct uc_eff_freq f = guest(800000);
	struct uc_sugov_out o;

	(void)state;
	assert_int_equal(uc_sugov_project(&in, &f, &o), 0);
	assert_int_equal(o.util, 446);	/* min(1.25 x 446, min(446, 600)) */
	assert_int_equal(o.next, 3000000);
	f.max = 1800000;		/* scaling_max_freq */
	assert_int_equal(uc_sugov_project(&in, &f, &o), 0);
	assert_int_equal(o.next, 1800000);
	f.cur = -1;
	assert_int_equal(uc_sugov_project(&in, &f, &o), -EINVAL);
	assert_int_equal(uc_sugov_formula_of(UC_KVER(6, 7, 12)), UC_SUGOV_PRE_6_8);
	assert_int_equal(uc_sugov_formula_of(UC_KVER(6, 8, 0)), UC_SUGOV_6_8);
	assert_int_equal(uc_sugov_formula_of(0), UC_SUGOV_6_8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(measured_busy),
		cmocka_unit_test(measured_periodic),
		cmocka_unit_test(tipping_point),
		cmocka_unit_test(formulas_differ),
		cmocka_unit_test(little_cpu_and_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
