/*
 * sched.c against scripted kernel answers: the exact struct, size and flags
 * sent to sched_setattr, errno mapping, the pre-5.11 reset fallback and the
 * key-neutral probe. The kernel version and the RT default come from a fake
 * root ($UCLAMPCTL_SYSROOT, set before the first sysroot call).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "uclamp/sched.h"
#include "uclamp/value.h"
#include "fakeroot.h"

#define MAXCALLS 8

/* The scripted kernel. */
static struct {
	struct uc_sched_attr task;	/* what getattr reports */
	unsigned int getattr_size;	/* size the kernel writes back */
	int getattr_errno;
	int setattr_errno[MAXCALLS];	/* per call, 0 = success */
	unsigned int setattr_size_back;	/* E2BIG: the size the kernel writes back (0: none) */
	int ngetattr, nsetattr;
	pid_t get_tid[MAXCALLS];
	unsigned int get_size[MAXCALLS];
	pid_t set_tid[MAXCALLS];
	unsigned int set_flags[MAXCALLS];
	struct uc_sched_attr sent[MAXCALLS];
} k;

static char root[256];
static const struct fr_suite suite = { root, sizeof(root), "test-sched", true,
					{ "proc/sys/kernel" } };

static int fake_getattr(pid_t tid, struct uc_sched_attr *a, unsigned int size, unsigned int flags)
{
	int i = k.ngetattr++;

	if (i < MAXCALLS) {
		k.get_tid[i] = tid;
		k.get_size[i] = size;
	}
	assert_int_equal(flags, 0);
	if (k.getattr_errno) {
		errno = k.getattr_errno;
		return -1;
	}
	*a = k.task;
	a->size = k.getattr_size;
	return 0;
}

static int fake_setattr(pid_t tid, struct uc_sched_attr *a, unsigned int flags)
{
	int i = k.nsetattr++;

	assert_true(i < MAXCALLS);
	k.set_tid[i] = tid;
	k.set_flags[i] = flags;
	k.sent[i] = *a;
	if (k.setattr_errno[i]) {
		if (k.setattr_errno[i] == E2BIG && k.setattr_size_back)
			a->size = k.setattr_size_back;
		errno = k.setattr_errno[i];
		return -1;
	}
	return 0;
}

static const struct uc_sched_syscalls fake = { .getattr = fake_getattr, .setattr = fake_setattr };

static void put(const char *name, const char *text)
{
	char rel[256], line[256];

	snprintf(rel, sizeof(rel), "proc/sys/kernel/%s", name);
	if (!text) {
		assert_int_equal(fr_remove(root, rel), 0);
		return;
	}
	snprintf(line, sizeof(line), "%s\n", text);
	assert_int_equal(fr_write(root, rel, line), 0);
}

static int setup(void **state)
{
	(void)state;
	memset(&k, 0, sizeof(k));
	k.getattr_size = UC_SCHED_ATTR_SIZE_VER1;
	k.task = (struct uc_sched_attr){
		.size = 56, .sched_policy = 0, .sched_nice = 5, .sched_runtime = 3000000,
		.sched_util_min = 0, .sched_util_max = 1024,
	};
	put("osrelease", "6.1.192-uclamp");
	put("sched_util_clamp_min_rt_default", "1024");
	uc_sched_set_syscalls(&fake);
	return 0;
}

static struct uc_sched_attr cur_task(void)
{
	struct uc_sched_attr a;

	assert_int_equal(uc_sched_get(42, &a), 0);
	return a;
}

/* write i's sched_flags (what the kernel is told to keep and to set) */
static void expect_flags(int i, uint64_t want)
{
	if (k.sent[i].sched_flags != want)
		fail_msg("write %d: sched_flags %#llx, expected %#llx", i,
			 (unsigned long long)k.sent[i].sched_flags, (unsigned long long)want);
}

/* The two steps, as the callers take them: build (1: nothing to send), then send. */
static int sched_set(pid_t tid, const struct uc_sched_attr *cur, int min, int max, int rof)
{
	struct uc_sched_attr a;
	int rc = uc_sched_attr_for(cur, min, max, rof, &a);

	return rc ? (rc > 0 ? 0 : rc) : uc_sched_send(tid, &a);
}

/* sched_set of the task as it is now to min/max/rof: it succeeds */
static void set_ok(pid_t pid, int min, int max, int rof)
{
	struct uc_sched_attr a = cur_task();

	assert_int_equal(sched_set(pid, &a, min, max, rof), 0);
}

static void test_get(void **state)
{
	struct uc_sched_attr a;

	(void)state;
	k.task.sched_util_min = 100;
	k.task.sched_util_max = 800;
	assert_int_equal(uc_sched_get(42, &a), 0);
	assert_int_equal(k.get_tid[0], 42);
	assert_int_equal(k.get_size[0], 56);
	assert_int_equal(a.sched_util_min, 100);
	assert_int_equal(a.sched_util_max, 800);
	assert_int_equal(a.sched_nice, 5);

	k.getattr_size = 48;	/* pre-5.3 */
	assert_int_equal(uc_sched_get(42, &a), -EOPNOTSUPP);
	k.getattr_size = 56;
	k.getattr_errno = ESRCH;
	assert_int_equal(uc_sched_get(42, &a), -ESRCH);
	k.getattr_errno = EPERM;
	assert_int_equal(uc_sched_get(42, &a), -EPERM);
}

static void test_set_min_only(void **state)
{
	(void)state;
	set_ok(42, 100, UC_KEEP, UC_KEEP);
	assert_int_equal(k.nsetattr, 1);
	assert_int_equal(k.set_tid[0], 42);
	assert_int_equal(k.set_flags[0], 0);	/* the syscall's own flags argument */
	assert_int_equal(k.sent[0].size, 56);
	expect_flags(0, UC_SCHED_FLAG_KEEP_POLICY | UC_SCHED_FLAG_KEEP_PARAMS |
		     UC_SCHED_FLAG_UTIL_CLAMP_MIN);
	assert_int_equal(k.sent[0].sched_util_min, 100);
	/* params sent back: pre-5.15 kernels apply them despite KEEP_PARAMS */
	assert_int_equal(k.sent[0].sched_nice, 5);
	assert_int_equal(k.sent[0].sched_runtime, 3000000);
	assert_int_equal(k.sent[0].sched_policy, 0);
}

static void test_set_max_rt_params(void **state)
{
	(void)state;
	k.task.sched_policy = 1;	/* fifo 50 */
	k.task.sched_priority = 50;
	k.task.sched_nice = 0;
	k.task.sched_util_min = 1024;
	set_ok(7, 1024, 1024, UC_KEEP);
	expect_flags(0, UC_SCHED_FLAG_KEEP_ALL | UC_SCHED_FLAG_UTIL_CLAMP_MIN |
		     UC_SCHED_FLAG_UTIL_CLAMP_MAX);
	assert_int_equal(k.sent[0].sched_priority, 50);
	assert_int_equal(k.sent[0].sched_policy, 1);
	assert_int_equal(k.sent[0].sched_util_max, 1024);
}

static void test_reset_on_fork(void **state)
{
	struct uc_sched_attr a;

	(void)state;
	k.task.sched_policy = 3;	/* batch */
	a = cur_task();
	/* set: the explicit policy, no KEEP_POLICY (it would make the kernel ignore the flag) */
	assert_int_equal(sched_set(42, &a, UC_KEEP, UC_KEEP, 1), 0);
	assert_int_equal(k.nsetattr, 1);
	assert_int_equal(k.sent[0].sched_policy, 3);
	expect_flags(0, UC_SCHED_FLAG_KEEP_PARAMS | UC_SCHED_FLAG_RESET_ON_FORK);

	/* clear, together with a max */
	a.sched_flags = UC_SCHED_FLAG_RESET_ON_FORK;
	assert_int_equal(sched_set(42, &a, UC_KEEP, 300, 0), 0);
	assert_int_equal(k.sent[1].sched_policy, 3);
	expect_flags(1, UC_SCHED_FLAG_KEEP_PARAMS | UC_SCHED_FLAG_UTIL_CLAMP_MAX);
	assert_int_equal(k.sent[1].sched_util_max, 300);

	/* already set: KEEP_POLICY as usual, the flag is the task's own */
	assert_int_equal(sched_set(42, &a, 100, UC_KEEP, 1), 0);
	expect_flags(2, UC_SCHED_FLAG_KEEP_ALL | UC_SCHED_FLAG_RESET_ON_FORK |
		     UC_SCHED_FLAG_UTIL_CLAMP_MIN);

	/* nothing to change: no syscall at all */
	assert_int_equal(sched_set(42, &a, UC_KEEP, UC_KEEP, 1), 0);
	assert_int_equal(sched_set(42, &a, UC_KEEP, UC_KEEP, UC_KEEP), 0);
	assert_int_equal(k.nsetattr, 3);
}

static void test_out_of_range_refused(void **state)
{
	static const int bad[] = { -3, -1000, 1025, 2046, 0x7fffffff, (int)0x80000000 };
	struct uc_sched_attr a;

	(void)state;
	a = cur_task();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(sched_set(42, &a, bad[i], UC_KEEP, UC_KEEP), -ERANGE);
		assert_int_equal(sched_set(42, &a, UC_KEEP, bad[i], UC_KEEP), -ERANGE);
	}
	assert_int_equal(sched_set(42, &a, 0, 0, 2), -EINVAL);
	assert_int_equal(sched_set(42, &a, 600, 300, UC_KEEP), -EINVAL);	/* min > max */
	assert_int_equal(k.nsetattr, 0);	/* none reached the kernel */

	assert_int_equal(sched_set(42, &a, 0, 1024, UC_KEEP), 0);
	assert_int_equal(sched_set(42, &a, UC_RESET, UC_RESET, UC_KEEP), 0);
	assert_int_equal(k.nsetattr, 2);
	assert_int_equal(k.sent[0].sched_util_min, 0);
	assert_int_equal(k.sent[0].sched_util_max, 1024);
	assert_int_equal(k.sent[1].sched_util_min, 0xffffffffu);
	assert_int_equal(k.sent[1].sched_util_max, 0xffffffffu);

	/* -2 is UC_KEEP in the API: it must never reach the kernel as a value
	 * (5.11+ would store it as 2046); it only leaves that clamp alone */
	assert_int_equal(sched_set(42, &a, -2, 300, UC_KEEP), 0);
	assert_int_equal(k.nsetattr, 3);
	expect_flags(2, UC_SCHED_FLAG_KEEP_ALL | UC_SCHED_FLAG_UTIL_CLAMP_MAX);
	assert_int_equal(k.sent[2].sched_util_min, 0);	/* the value read, not 0xfffffffe */
}

static void test_errno(void **state)
{
	static const int errs[] = { EPERM, ESRCH, EINVAL, EOPNOTSUPP, E2BIG };
	struct uc_sched_attr a;

	(void)state;
	a = cur_task();
	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		k.nsetattr = 0;
		k.setattr_errno[0] = errs[i];
		assert_int_equal(sched_set(42, &a, 100, UC_KEEP, UC_KEEP), -errs[i]);
		assert_int_equal(k.nsetattr, 1);	/* no retry for explicit values */
	}
}

/* A kernel whose struct sched_attr grew, and one older than the clamp fields. */
static void test_struct_size(void **state)
{
	struct uc_sched_attr a;

	(void)state;
	/* getattr: more than we asked for is not an error; a newer kernel's flag
	 * bits (0x80: not a uapi flag in 7.3) are kept as read */
	k.getattr_size = 64;
	k.task.sched_flags = 0x80 | UC_SCHED_FLAG_RESET_ON_FORK;
	assert_int_equal(uc_sched_get(42, &a), 0);
	assert_int_equal(a.sched_flags, 0x81);
	/* ... and never sent back, nor as something else: our size, our flags */
	assert_int_equal(sched_set(42, &a, 100, UC_KEEP, UC_KEEP), 0);
	assert_int_equal(k.sent[0].size, 56);
	expect_flags(0, UC_SCHED_FLAG_RESET_ON_FORK | UC_SCHED_FLAG_KEEP_POLICY |
		     UC_SCHED_FLAG_KEEP_PARAMS | UC_SCHED_FLAG_UTIL_CLAMP_MIN);
	assert_int_equal(a.sched_flags, 0x81);	/* the caller's copy untouched */

	/* E2BIG with the kernel's size written back: 48 has no clamp fields */
	k.nsetattr = 0;
	k.setattr_errno[0] = E2BIG;
	k.setattr_size_back = 48;
	assert_int_equal(sched_set(42, &a, 100, UC_KEEP, UC_KEEP), -EOPNOTSUPP);
	assert_int_equal(k.nsetattr, 1);
	/* a size the kernel claims to know but still refuses: its answer as is */
	k.nsetattr = 0;
	k.setattr_size_back = 72;
	assert_int_equal(sched_set(42, &a, 100, UC_KEEP, UC_KEEP), -E2BIG);
}

static void test_reset_pre_5_11(void **state)
{
	struct uc_sched_attr a;

	(void)state;
	put("osrelease", "5.10.262");
	a = cur_task();
	assert_int_equal(sched_set(42, &a, UC_RESET, UC_RESET, UC_KEEP), 0);
	assert_int_equal(k.nsetattr, 1);
	assert_int_equal(k.sent[0].sched_util_min, 0);
	assert_int_equal(k.sent[0].sched_util_max, 1024);
	expect_flags(0, UC_SCHED_FLAG_KEEP_ALL | UC_SCHED_FLAG_UTIL_CLAMP_MIN |
		     UC_SCHED_FLAG_UTIL_CLAMP_MAX);

	/* an RT task's default min is the rt default sysctl ... */
	a.sched_policy = 2;
	a.sched_priority = 10;
	put("sched_util_clamp_min_rt_default", "512");
	assert_int_equal(sched_set(42, &a, UC_RESET, UC_KEEP, UC_KEEP), 0);
	assert_int_equal(k.sent[1].sched_util_min, 512);
	expect_flags(1, UC_SCHED_FLAG_KEEP_ALL | UC_SCHED_FLAG_UTIL_CLAMP_MIN);
	/* ... or 1024 before the sysctl existed (5.3-5.8) */
	put("sched_util_clamp_min_rt_default", NULL);
	assert_int_equal(sched_set(42, &a, UC_RESET, UC_KEEP, UC_KEEP), 0);
	assert_int_equal(k.sent[2].sched_util_min, 1024);
	assert_int_equal(uc_sched_default_value(&a, false), 1024);
	assert_int_equal(uc_sched_default_value(&a, true), 1024);
	a.sched_policy = 0;
	assert_int_equal(uc_sched_default_value(&a, false), 0);
}

static void test_reset_unknown_version_retry(void **state)
{
	struct uc_sched_attr a;

	(void)state;
	put("osrelease", NULL);	/* version unknown: try -1 first */
	a = cur_task();
	k.task.sched_nice = -3;	/* changed since it was read */
	k.setattr_errno[0] = EINVAL;	/* a pre-5.11 kernel refuses -1 */
	assert_int_equal(sched_set(42, &a, UC_KEEP, UC_RESET, UC_KEEP), 0);
	assert_int_equal(k.nsetattr, 2);
	assert_int_equal(k.sent[0].sched_util_max, 0xffffffffu);
	assert_int_equal(k.ngetattr, 2);	/* re-read before the retry */
	assert_int_equal(k.get_tid[1], 42);
	assert_int_equal(k.sent[1].sched_util_max, 1024);
	/* the fresh params, not the stale ones */
	assert_int_equal(k.sent[1].sched_nice, -3);
	expect_flags(1, UC_SCHED_FLAG_KEEP_ALL | UC_SCHED_FLAG_UTIL_CLAMP_MAX);

	/* a known 5.11+ kernel: EINVAL is the answer, no retry */
	put("osrelease", "5.15.0");
	k.nsetattr = 0;
	k.setattr_errno[0] = EINVAL;
	k.setattr_errno[1] = 0;
	assert_int_equal(sched_set(42, &a, UC_KEEP, UC_RESET, UC_KEEP), -EINVAL);
	assert_int_equal(k.nsetattr, 1);
}

static void test_probe(void **state)
{
	int err = 0;

	(void)state;
	k.setattr_errno[0] = EINVAL;
	assert_int_equal(uc_sched_probe(&err), UC_SUPPORT_YES);
	assert_int_equal(err, -EINVAL);
	assert_int_equal(k.get_tid[0], 0);
	assert_int_equal(k.set_tid[0], 0);	/* the calling thread only */
	assert_int_equal(k.sent[0].size, 56);
	assert_int_equal(k.sent[0].sched_util_min, 1025);
	expect_flags(0, UC_SCHED_FLAG_KEEP_ALL | UC_SCHED_FLAG_UTIL_CLAMP_MIN);

	k.nsetattr = 0;
	k.setattr_errno[0] = EOPNOTSUPP;
	assert_int_equal(uc_sched_probe(&err), UC_SUPPORT_NOT_BUILT);
	k.nsetattr = 0;
	k.setattr_errno[0] = E2BIG;
	assert_int_equal(uc_sched_probe(&err), UC_SUPPORT_PRE_5_3);
	k.nsetattr = 0;
	k.setattr_errno[0] = EPERM;
	assert_int_equal(uc_sched_probe(&err), UC_SUPPORT_UNKNOWN);
	assert_int_equal(err, -EPERM);

	/* pre-5.3 getattr answers with 48 bytes: no setattr needed */
	k.nsetattr = 0;
	k.getattr_size = 48;
	assert_int_equal(uc_sched_probe(NULL), UC_SUPPORT_PRE_5_3);
	assert_int_equal(k.nsetattr, 0);
}

static void test_policies(void **state)
{
	(void)state;
	assert_int_equal(uc_policy_parse("other"), 0);
	assert_int_equal(uc_policy_parse("SCHED_OTHER"), 0);
	assert_int_equal(uc_policy_parse("sched_fifo"), 1);
	assert_int_equal(uc_policy_parse("RR"), 2);
	assert_int_equal(uc_policy_parse("Batch"), 3);
	assert_int_equal(uc_policy_parse("idle"), 5);
	assert_int_equal(uc_policy_parse("deadline"), 6);
	assert_int_equal(uc_policy_parse("SCHED_EXT"), 7);
	assert_int_equal(uc_policy_parse("normal"), 0);
	assert_int_equal(uc_policy_parse("bogus"), -EINVAL);
	assert_int_equal(uc_policy_parse(""), -EINVAL);
	assert_int_equal(uc_policy_parse("SCHED_"), -EINVAL);
	assert_int_equal(uc_policy_parse("fifo "), -EINVAL);
	assert_int_equal(uc_policy_parse("4"), -EINVAL);
	assert_string_equal(uc_policy_name(0), "other");
	assert_string_equal(uc_policy_name(6), "deadline");
	assert_string_equal(uc_policy_name(7), "ext");
	assert_string_equal(uc_policy_name(4), "unknown");
	assert_true(uc_policy_is_rt(1));
	assert_true(uc_policy_is_rt(2));
	assert_false(uc_policy_is_rt(0));
	assert_false(uc_policy_is_rt(6));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_get, setup),
		cmocka_unit_test_setup(test_set_min_only, setup),
		cmocka_unit_test_setup(test_set_max_rt_params, setup),
		cmocka_unit_test_setup(test_reset_on_fork, setup),
		cmocka_unit_test_setup(test_out_of_range_refused, setup),
		cmocka_unit_test_setup(test_errno, setup),
		cmocka_unit_test_setup(test_struct_size, setup),
		cmocka_unit_test_setup(test_reset_pre_5_11, setup),
		cmocka_unit_test_setup(test_reset_unknown_version_retry, setup),
		cmocka_unit_test_setup(test_probe, setup),
		cmocka_unit_test(test_policies),
	};

	return fr_run(&suite, tests, NULL, NULL);
}
