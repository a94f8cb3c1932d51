/*
 * test_identity.c: a task's start time from /proc/PID/task/TID/stat
 * (src/lib/identity.c): names with ')' and spaces, bad lines, and a real
 * read of our own thread through a fake root.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>

#include "uclamp/identity.h"
#include "fakeroot.h"

/* before the first sysroot call: test_read's task lives there */
static char root[512];
static const struct fr_suite suite = { root, sizeof(root), "test-identity", true, { NULL } };

/* fields 3..21 (state, then 18 numbers), then starttime (22) = 987654321, then more */
#define MID "S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18"

/* The one stat parser, for the start time only: 0 or -EINVAL, *start untouched on error. */
static int start_of(const char *text, unsigned long long *start)
{
	struct uc_stat st;
	int rc = uc_stat_parse(text, &st);

	if (!rc)
		*start = st.start;
	return rc;
}

static void test_parse(void **state)
{
	unsigned long long st = 0;

	(void)state;
	assert_int_equal(start_of("42 (bash) " MID " 987654321 23 24\n", &st), 0);
	assert_true(st == 987654321ULL);
	/* a comm with ') ' and spaces inside: only the last ')' counts */
	st = 0;
	assert_int_equal(start_of("42 (a) b (c d) " MID " 5 23\n", &st), 0);
	assert_true(st == 5);
	/* starttime as the last field */
	assert_int_equal(start_of("42 (x) " MID " 77", &st), 0);
	assert_true(st == 77);
}

/* The fields the walker needs: state, parent, PF_KTHREAD. */
static void test_fields(void **state)
{
	struct uc_stat st;
	static const struct {
		const char *line;
		char state;
		pid_t ppid;
		bool kthread;
		unsigned long long start;
	} ok[] = {
		{ "7 (kworker/0:1) I 2 0 0 0 -1 69238880 0 0 0 0 0 0 0 0 20 0 1 0 50 0 0\n",
		  'I', 2, true, 50 },
		{ "9 (a) b) R 1 0 0 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 77\n", 'R', 1, false, 77 },
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(uc_stat_parse(ok[i].line, &st), 0);
		assert_int_equal(st.state, ok[i].state);
		assert_int_equal(st.ppid, ok[i].ppid);
		assert_int_equal(!!(st.flags & UC_PF_KTHREAD), ok[i].kthread);
		assert_true(st.start == ok[i].start);
	}
	(void)state;
	/* a parent that is not a number */
	assert_int_equal(uc_stat_parse("9 (a) R x 0 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 77\n", &st),
			 -EINVAL);
}

static void test_bad_lines(void **state)
{
	unsigned long long st = 123;

	(void)state;
	assert_int_equal(start_of("42 bash S 1 2", &st), -EINVAL);	/* no ')' */
	/* too short */
	assert_int_equal(start_of("42 (bash) S 1 2 3", &st), -EINVAL);
	assert_int_equal(start_of("42 (x) " MID " x9 1", &st), -EINVAL);
	assert_int_equal(start_of("42 (x) " MID " 9x 1", &st), -EINVAL);
	assert_int_equal(start_of("42 (x) " MID " 99999999999999999999999 1", &st),
			 -EINVAL);
	assert_true(st == 123);	/* untouched on error */
}

/* What 'top' reads: the comm, CPU time and the CPU it last ran on (field 39). */
static void test_top_fields(void **state)
{
	/* a real 6.1 line: a thread on CPU 1, 1030 ticks of user and 2 of system time */
	static const char line[] = "58 (sh) R 55 54 50 0 -1 4194304 96 0 0 0 1030 2 0 0 20 0 1 0 "
				   "307 2940928 222 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 "
				   "0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
	struct uc_stat st;

	(void)state;
	assert_int_equal(uc_stat_parse(line, &st), 0);
	assert_string_equal(st.comm, "sh");
	assert_true(st.utime == 1030 && st.stime == 2);
	assert_int_equal(st.cpu, 1);
	assert_true(st.start == 307);
	/* a comm of 15 bytes with ") (" in it; a line that ends before field 39 */
	assert_int_equal(uc_stat_parse("9 (a) (b) c) d e) " MID " 77 0 0\n", &st), 0);
	assert_string_equal(st.comm, "a) (b) c) d e");
	assert_int_equal(st.cpu, -1);
	/* a CPU that is not a number, or absurd: unknown, the rest still read */
	assert_int_equal(uc_stat_parse("9 (a) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 77 "
				       "23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 x1\n", &st), 0);
	assert_int_equal(st.cpu, -1);
	assert_true(st.utime == 11 && st.stime == 12);
	assert_int_equal(uc_stat_parse("9 (a) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 77 "
				       "23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 99999\n",
				       &st), 0);
	assert_int_equal(st.cpu, -1);
	/* user time that is not a number: the line does not parse */
	assert_int_equal(uc_stat_parse("9 (a) R 1 2 3 4 5 6 7 8 9 10 x 12 13 14 15 16 17 18 77\n",
				       &st), -EINVAL);
}

/* Through the sysroot: a fake stat file, then a missing task (-ESRCH). */
static void test_read(void **state)
{
	unsigned long long st = 0;

	(void)state;
	assert_int_equal(fr_write(root, "proc/7/task/8/stat", "8 (worker) " MID " 4242 0 0\n"), 0);
	assert_int_equal(uc_task_start_time(7, 8, &st), 0);
	assert_true(st == 4242);
	assert_int_equal(uc_task_start_time(7, 9, &st), -ESRCH);
	/* a process's own: /proc/PID/stat, the file the walk reads */
	assert_int_equal(uc_task_start_time(7, 7, &st), -ESRCH);
	assert_int_equal(fr_write(root, "proc/7/stat", "7 (main) " MID " 4000 0 0\n"), 0);
	assert_int_equal(uc_task_start_time(7, 7, &st), 0);
	assert_true(st == 4000);
	/* threads of a process: its task/ directory in the fake tree */
	assert_int_equal(uc_task_in_process(7, 8), 0);
	assert_int_equal(uc_task_in_process(7, 9), -ESRCH);
	assert_int_equal(uc_task_in_process(6, 8), -ESRCH);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_top_fields),
		cmocka_unit_test(test_read),
	};
	return fr_run(&suite, tests, NULL, NULL);
}
