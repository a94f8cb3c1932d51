/*
 * test_pid.c: PID arguments (src/lib/pid.c): digits only, 1..INT_MAX; any
 * white space, sign or other character is refused, wherever it is; and
 * users/groups, the same for the command line and the configuration.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>

#include "uclamp/value.h"

static const struct {
	const char *in;
	int rc;
	pid_t pid;
} cases[] = {
	{ "1", 0, 1 },
	{ "4242", 0, 4242 },
	{ "007", 0, 7 },
	{ "2147483647", 0, INT_MAX },
	{ "2147483648", -ERANGE, 0 },
	{ "99999999999999999999999", -ERANGE, 0 },
	{ "0", -ERANGE, 0 },
	{ "00", -ERANGE, 0 },
	{ "", -EINVAL, 0 },
	{ " 12", -EINVAL, 0 },
	{ "\t12", -EINVAL, 0 },
	{ "\n12", -EINVAL, 0 },
	{ "\v12", -EINVAL, 0 },
	{ "12 ", -EINVAL, 0 },
	{ "12\t", -EINVAL, 0 },
	{ "12\n", -EINVAL, 0 },
	{ "1 2", -EINVAL, 0 },
	{ "+12", -EINVAL, 0 },
	{ "-12", -EINVAL, 0 },
	{ "-1", -EINVAL, 0 },
	{ "0x10", -EINVAL, 0 },
	{ "12a", -EINVAL, 0 },
	{ "１２", -EINVAL, 0 },	/* full-width digits */
	{ NULL, -EINVAL, 0 },
};

static void test_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *in = cases[i].in;
		pid_t pid = -7;
		int rc = uc_pid_parse(in, &pid);

		if (rc != cases[i].rc)
			fail_msg("'%s': rc %d, expected %d", in ? in : "(NULL)", rc, cases[i].rc);
		/* a refused input leaves *pid alone */
		assert_int_equal(pid, rc ? -7 : cases[i].pid);
	}
}

/* Users and groups: one spelling for the command line and the configuration
 * ("+5" was a user on the command line and not in the config). */
static void test_ids(void **state)
{
	static const struct {
		const char *in;
		int rc;
		unsigned id;
	} ids[] = {
		{ "root", 0, 0 }, { "0", 0, 0 }, { "12", 0, 12 }, { "007", 0, 7 },
		{ "4294967294", 0, 4294967294u },
		{ "4294967295", -EINVAL, 0 },	/* (uid_t)-1: "no user" */
		{ "99999999999", -EINVAL, 0 }, { "+5", -EINVAL, 0 }, { " 5", -EINVAL, 0 },
		{ "5 ", -EINVAL, 0 }, { "\t5", -EINVAL, 0 }, { "-1", -EINVAL, 0 },
		{ "0x10", -EINVAL, 0 }, { "", -EINVAL, 0 },
		{ "no-such-user-uclampctl", -EINVAL, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		uid_t uid = 4242;
		gid_t gid = 4242;
		int rc = uc_uid_parse(ids[i].in, &uid);

		if (rc != ids[i].rc || (rc == 0 && uid != ids[i].id))
			fail_msg("uid '%s': rc %d uid %u, expected rc %d uid %u", ids[i].in, rc,
				 (unsigned)uid, ids[i].rc, ids[i].id);
		/* group "root" is GID 0 on every system this runs on */
		rc = uc_gid_parse(ids[i].in, &gid);
		if (rc != ids[i].rc || (rc == 0 && gid != ids[i].id))
			fail_msg("gid '%s': rc %d gid %u, expected rc %d gid %u", ids[i].in, rc,
				 (unsigned)gid, ids[i].rc, ids[i].id);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_ids),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
