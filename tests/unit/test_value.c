/*
 * test_value.c: the value model (src/lib/value.c).
 *
 * A table of user inputs with their exact results, the unit <-> percent
 * conversions checked against the kernel's formula for every value, the
 * parser for what cgroup files print, and the formatters.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "uclamp/value.h"

/* The kernel's capacity_from_percent() (kernel/sched/core.c), written out
 * independently: DIV_ROUND_CLOSEST((u64)pct100 << 10, 10000) for unsigned. */
static int kernel_pct100_to_util(int pct100)
{
	unsigned long long x = (unsigned long long)pct100 << 10;

	return (int)((x + 10000 / 2) / 10000);
}

struct parse_case {
	const char *in;
	int rc;		/* 0, -EINVAL, -ERANGE */
	int util;	/* when rc == 0 */
	int pct100;
	int percent;
};

static const struct parse_case parse_cases[] = {
	/* capacity units */
	{ "0", 0, 0, 0, 0 },
	{ "1", 0, 1, 10, 0 },
	{ "100", 0, 100, 977, 0 },
	{ "512", 0, 512, 5000, 0 },
	{ "1023", 0, 1023, 9990, 0 },
	{ "1024", 0, 1024, 10000, 0 },
	{ "0512", 0, 512, 5000, 0 },		/* leading zeros are still decimal */
	{ "1025", -ERANGE, 0, 0, 0 },
	{ "2000", -ERANGE, 0, 0, 0 },
	{ "999999", -ERANGE, 0, 0, 0 },
	{ "99999999999999999999", -ERANGE, 0, 0, 0 },	/* no overflow into range */
	/* keywords */
	{ "max", 0, 1024, 10000, 0 },
	{ "default", 0, UC_RESET, -1, 0 },
	{ "-1", 0, UC_RESET, -1, 0 },
	{ "MAX", -EINVAL, 0, 0, 0 },
	{ "maximum", -EINVAL, 0, 0, 0 },
	{ "defaults", -EINVAL, 0, 0, 0 },
	{ "max ", -EINVAL, 0, 0, 0 },
	/* negatives other than exactly -1: the kernel would take them and store garbage */
	{ "-2", -ERANGE, 0, 0, 0 },
	{ "-0", -ERANGE, 0, 0, 0 },
	{ "-1024", -ERANGE, 0, 0, 0 },
	{ "-01", -ERANGE, 0, 0, 0 },
	{ "-1.0", -EINVAL, 0, 0, 0 },
	{ "-", -EINVAL, 0, 0, 0 },
	{ "--1", -EINVAL, 0, 0, 0 },
	{ "-abc", -EINVAL, 0, 0, 0 },
	/* percentages */
	{ "0%", 0, 0, 0, 1 },
	{ "50%", 0, 512, 5000, 1 },
	{ "100%", 0, 1024, 10000, 1 },
	{ "100.00%", 0, 1024, 10000, 1 },
	{ "12.34%", 0, 126, 1234, 1 },
	{ "20.5%", 0, 210, 2050, 1 },		/* the VM README's 20.5% -> 210 */
	{ "20.50%", 0, 210, 2050, 1 },
	{ "80%", 0, 819, 8000, 1 },		/* ... and 80% -> 819 */
	{ "99.99%", 0, 1024, 9999, 1 },		/* >= 99.96% rounds to 1024 */
	{ "99.95%", 0, 1023, 9995, 1 },
	{ "0.04%", 0, 0, 4, 1 },		/* 0.01-0.04% round to 0 */
	{ "0.05%", 0, 1, 5, 1 },
	{ "0.1%", 0, 1, 10, 1 },
	{ "1.5%", 0, 15, 150, 1 },
	{ "005%", 0, 51, 500, 1 },
	{ "50.555%", -EINVAL, 0, 0, 0 },	/* at most two decimals */
	{ "50.%", -EINVAL, 0, 0, 0 },
	{ ".5%", -EINVAL, 0, 0, 0 },
	{ "%", -EINVAL, 0, 0, 0 },
	{ "%50", -EINVAL, 0, 0, 0 },
	{ "50%%", -EINVAL, 0, 0, 0 },
	{ "5 0%", -EINVAL, 0, 0, 0 },
	{ "50 %", -EINVAL, 0, 0, 0 },
	{ "1.2.3%", -EINVAL, 0, 0, 0 },
	{ "+5%", -EINVAL, 0, 0, 0 },
	{ "abc%", -EINVAL, 0, 0, 0 },
	{ "101%", -ERANGE, 0, 0, 0 },
	{ "100.01%", -ERANGE, 0, 0, 0 },
	{ "1000000%", -ERANGE, 0, 0, 0 },
	{ "-5%", -ERANGE, 0, 0, 0 },
	{ "-0%", -ERANGE, 0, 0, 0 },
	{ "-x%", -EINVAL, 0, 0, 0 },
	{ "-%", -EINVAL, 0, 0, 0 },
	/* not values at all */
	{ "", -EINVAL, 0, 0, 0 },
	{ "abc", -EINVAL, 0, 0, 0 },
	{ "0x10", -EINVAL, 0, 0, 0 },
	{ "010x", -EINVAL, 0, 0, 0 },
	{ "1e3", -EINVAL, 0, 0, 0 },
	{ "5.5", -EINVAL, 0, 0, 0 },		/* decimals need a % */
	{ "512abc", -EINVAL, 0, 0, 0 },
	{ "512\n", -EINVAL, 0, 0, 0 },
	{ " 5", -EINVAL, 0, 0, 0 },
	{ "5 ", -EINVAL, 0, 0, 0 },
	{ "+5", -EINVAL, 0, 0, 0 },
	{ "\t5", -EINVAL, 0, 0, 0 },
	{ "５", -EINVAL, 0, 0, 0 },		/* a full-width digit */
};

static void test_parse_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
		const struct parse_case *c = &parse_cases[i];
		struct uc_value v = { .util = 777, .pct100 = 777, .percent = true };
		int rc = uc_value_parse(c->in, &v);

		if (rc != c->rc)
			fail_msg("'%s': rc %d, expected %d", c->in, rc, c->rc);
		if (rc)
			continue;
		if (v.util != c->util || v.pct100 != c->pct100 || v.percent != (c->percent != 0))
			fail_msg("'%s': util %d pct100 %d percent %d, expected %d %d %d", c->in,
				 v.util, v.pct100, v.percent, c->util, c->pct100, c->percent);
	}
}

static void test_parse_null(void **state)
{
	struct uc_value v;

	(void)state;
	assert_int_equal(uc_value_parse(NULL, &v), -EINVAL);
}

/* Every accepted unit value parses to itself, with the exact percent. */
static void test_parse_every_unit(void **state)
{
	char buf[16];

	(void)state;
	for (int u = 0; u <= 1024; u++) {
		struct uc_value v;

		snprintf(buf, sizeof(buf), "%d", u);
		assert_int_equal(uc_value_parse(buf, &v), 0);
		assert_int_equal(v.util, u);
		assert_false(v.percent);
		assert_int_equal(uc_pct100_to_util(v.pct100), u);
	}
}

/* Every two-decimal percentage parses and converts as the kernel does. */
static void test_parse_every_percent(void **state)
{
	char buf[16];

	(void)state;
	for (int p = 0; p <= 10000; p++) {
		struct uc_value v;

		snprintf(buf, sizeof(buf), "%d.%02d%%", p / 100, p % 100);
		assert_int_equal(uc_value_parse(buf, &v), 0);
		assert_int_equal(v.pct100, p);
		assert_int_equal(v.util, kernel_pct100_to_util(p));
		assert_true(v.percent);
	}
}

static void test_pct100_to_util_matches_kernel(void **state)
{
	(void)state;
	for (int p = 0; p <= UC_PCT_MAX; p++)
		assert_int_equal(uc_pct100_to_util(p), kernel_pct100_to_util(p));
	/* spot values, worked by hand from DIV_ROUND_CLOSEST(p << 10, 10000) */
	assert_int_equal(uc_pct100_to_util(0), 0);
	assert_int_equal(uc_pct100_to_util(4), 0);	/* 0.4096 */
	assert_int_equal(uc_pct100_to_util(5), 1);	/* 0.512 */
	assert_int_equal(uc_pct100_to_util(1234), 126);	/* 126.36 */
	assert_int_equal(uc_pct100_to_util(2050), 210);	/* 209.92 */
	assert_int_equal(uc_pct100_to_util(5000), 512);
	assert_int_equal(uc_pct100_to_util(8000), 819);	/* 819.2 */
	assert_int_equal(uc_pct100_to_util(9995), 1023);	/* 1023.488 */
	assert_int_equal(uc_pct100_to_util(9996), 1024);	/* 1023.59 */
	assert_int_equal(uc_pct100_to_util(10000), 1024);
}

/* util -> pct100 -> util is the identity, and pct100 is the closest one. */
static void test_util_round_trip(void **state)
{
	(void)state;
	for (int u = 0; u <= UC_CAPACITY_SCALE; u++) {
		int p = uc_util_to_pct100(u);

		assert_in_range(p, 0, UC_PCT_MAX);
		if (uc_pct100_to_util(p) != u || kernel_pct100_to_util(p) != u)
			fail_msg("util %d -> pct100 %d -> util %d", u, p, uc_pct100_to_util(p));
		/* the closest hundredth: |p*1024 - u*10000| <= 512 */
		long d = (long)p * 1024 - (long)u * 10000;
		assert_true(d <= 512 && d >= -512);
	}
	assert_int_equal(uc_util_to_pct100(0), 0);
	assert_int_equal(uc_util_to_pct100(1), 10);	/* 9.77 */
	assert_int_equal(uc_util_to_pct100(210), 2051);	/* 2050.78 */
	assert_int_equal(uc_util_to_pct100(512), 5000);
	assert_int_equal(uc_util_to_pct100(819), 7998);	/* 7998.05 */
	assert_int_equal(uc_util_to_pct100(1024), 10000);
}

struct kparse_case {
	const char *in;
	int rc;
	int pct100;
};

static const struct kparse_case kparse_cases[] = {
	{ "max\n", 0, 10000 },
	{ "max", 0, 10000 },
	{ "20.50\n", 0, 2050 },
	{ "20.50", 0, 2050 },
	{ "0.00", 0, 0 },
	{ "0.00\n", 0, 0 },
	{ "100.00\n", 0, 10000 },
	{ "99.99\n", 0, 9999 },
	{ "5\n", 0, 500 },
	{ "", -EINVAL, 0 },
	{ "\n", -EINVAL, 0 },
	{ "maxi\n", -EINVAL, 0 },
	{ "12.345\n", -EINVAL, 0 },
	{ "101.00\n", -EINVAL, 0 },
	{ "-1.00\n", -EINVAL, 0 },
	{ "20.50%\n", -EINVAL, 0 },
	{ "abc\n", -EINVAL, 0 },
	{ "20.50\nx", -EINVAL, 0 },
};

static void test_kernel_format_parse(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(kparse_cases) / sizeof(kparse_cases[0]); i++) {
		const struct kparse_case *c = &kparse_cases[i];
		int p = -12345;
		int rc = uc_pct_parse_kernel(c->in, &p);

		if (rc != c->rc)
			fail_msg("kernel '%s': rc %d, expected %d", c->in, rc, c->rc);
		if (rc == 0 && p != c->pct100)
			fail_msg("kernel '%s': pct100 %d, expected %d", c->in, p, c->pct100);
	}
}

/* a formatter's output for each input */
struct format_case {
	int in;
	const char *out;
};

static void expect_formats(const char *(*format)(int, char *, size_t),
			   const struct format_case *c, size_t n)
{
	char buf[32];

	for (size_t i = 0; i < n; i++)
		if (strcmp(format(c[i].in, buf, sizeof(buf)), c[i].out))
			fail_msg("%d formatted as '%s', expected '%s'", c[i].in, buf, c[i].out);
}

/* What we format, the kernel-format parser reads back. */
static void test_pct100_format(void **state)
{
	static const struct format_case cases[] = {
		{ 0, "0.00" }, { 5, "0.05" }, { 2050, "20.50" }, { 9999, "99.99" },
		{ 10000, "max" }, { -1, "default" },
	};
	char buf[32];

	(void)state;
	expect_formats(uc_pct100_format, cases, sizeof(cases) / sizeof(cases[0]));
	for (int p = 0; p <= UC_PCT_MAX; p++) {
		int back = -1;

		uc_pct100_format(p, buf, sizeof(buf));
		assert_int_equal(uc_pct_parse_kernel(buf, &back), 0);
		assert_int_equal(back, p);
	}
	/* a short buffer truncates, never overflows */
	char small[4];
	memset(small, 'x', sizeof(small));
	assert_ptr_equal(uc_pct100_format(2050, small, sizeof(small)), small);
	assert_string_equal(small, "20.");
}

static void test_util_format_pct(void **state)
{
	static const struct format_case cases[] = {
		{ 0, "0.00%" }, { 1, "0.10%" }, { 210, "20.51%" }, { 512, "50.00%" },
		{ 819, "79.98%" }, { 1024, "100.00%" }, { UC_RESET, "default" },
	};
	char buf[32];

	(void)state;
	expect_formats(uc_util_format_pct, cases, sizeof(cases) / sizeof(cases[0]));
	/* the printed percentage, parsed again, lands on the same unit value */
	for (int u = 0; u <= UC_CAPACITY_SCALE; u++) {
		struct uc_value v;

		uc_util_format_pct(u, buf, sizeof(buf));
		assert_int_equal(uc_value_parse(buf, &v), 0);
		assert_int_equal(v.util, u);
	}
}

static void test_forms_text(void **state)
{
	/* error messages quote this: it must name every accepted form */
	static const char *const forms[] = { "0..1024", "%", "max", "default", "-1" };

	(void)state;
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++)
		if (!strstr(uc_value_forms, forms[i]))
			fail_msg("uc_value_forms '%s' lacks '%s'", uc_value_forms, forms[i]);
}

/* The one whole-number reader (PIDs, IDs, the commands' counts and seconds) */
static void test_num_parse(void **state)
{
	static const struct {
		const char *in;
		unsigned long long lo, hi;
		int rc;
		unsigned long long v;	/* when rc == 0 */
	} cases[] = {
		{ "0", 0, 10, 0, 0 },
		{ "10", 0, 10, 0, 10 },
		{ "11", 0, 10, -ERANGE, 0 },
		{ "0", 1, 10, -ERANGE, 0 },
		{ "1", 1, 10, 0, 1 },
		{ "007", 1, 10, 0, 7 },
		{ "86400", 0, 86400, 0, 86400 },
		{ "86401", 0, 86400, -ERANGE, 0 },
		{ "4294967295", 1, 4294967295ULL, 0, 4294967295ULL },
		{ "4294967296", 1, 4294967295ULL, -ERANGE, 0 },
		/* saturates: out of range, not "not a number", and no overflow */
		{ "123456789012345678901234567890", 0, 4294967295ULL, -ERANGE, 0 },
		{ "", 0, 10, -EINVAL, 0 },
		{ "+1", 0, 10, -EINVAL, 0 },
		{ " 1", 0, 10, -EINVAL, 0 },
		{ "1 ", 0, 10, -EINVAL, 0 },
		{ "-1", 0, 10, -EINVAL, 0 },
		{ "-0", 0, 10, -EINVAL, 0 },
		{ "0x1", 0, 10, -EINVAL, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned long long v = 12345;
		int rc = uc_num_parse(cases[i].in, cases[i].lo, cases[i].hi, &v);

		if (rc != cases[i].rc)
			fail_msg("'%s' in %llu..%llu: rc %d, want %d", cases[i].in, cases[i].lo,
				 cases[i].hi, rc, cases[i].rc);
		/* on an error *v is left alone */
		assert_int_equal(v, rc ? 12345 : cases[i].v);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_table),
		cmocka_unit_test(test_parse_null),
		cmocka_unit_test(test_parse_every_unit),
		cmocka_unit_test(test_parse_every_percent),
		cmocka_unit_test(test_pct100_to_util_matches_kernel),
		cmocka_unit_test(test_util_round_trip),
		cmocka_unit_test(test_kernel_format_parse),
		cmocka_unit_test(test_pct100_format),
		cmocka_unit_test(test_util_format_pct),
		cmocka_unit_test(test_forms_text),
		cmocka_unit_test(test_num_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
