/*
 * procns.c: is /proc this PID namespace's? Against a fake root: a proc/self
 * link naming us, another PID, nothing, a non-number; NSpid with one and
 * with two namespaces.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include <cmocka.h>

#include "uclamp/procns.h"
#include "fakeroot.h"

static char root[512];
static const struct fr_suite suite = { root, sizeof(root), "test-procns", true, { "/proc" } };

static void self_link(const char *target)
{
	assert_int_equal(fr_remove(root, "/proc/self"), 0);
	if (target)
		assert_int_equal(fr_symlink(root, "/proc/self", target), 0);
}

static void self_is(pid_t pid)
{
	char b[32];

	snprintf(b, sizeof(b), "%d", (int)pid);
	self_link(b);
}

/* our own PID: ours; a fake root without the link stands for ours too */
static void ours(void **state)
{
	pid_t seen = -1;

	(void)state;
	self_is(getpid());
	assert_int_equal(uc_procns_check(&seen), 0);
	assert_int_equal(seen, getpid());
	self_link(NULL);
	assert_int_equal(uc_procns_check(&seen), 0);
	assert_int_equal(seen, 0);
}

/* another PID (unshare -p -f without --mount-proc: we are 1, /proc says 4242) */
static void other_pid(void **state)
{
	pid_t seen = 0;

	(void)state;
	self_is(getpid() + 1);
	assert_int_equal(uc_procns_check(&seen), -EXDEV);
	assert_int_equal(seen, getpid() + 1);
	self_link("self-but-not-a-pid");
	assert_int_equal(uc_procns_check(&seen), -EXDEV);
	assert_int_equal(seen, 0);
}

/* the same number in an ancestor's /proc: NSpid lists two namespaces (the
 * link "N" leads to proc/N, where the status is) */
static void nspid(void **state)
{
	char dir[64], status[256];
	pid_t seen = 0;

	(void)state;
	snprintf(dir, sizeof(dir), "/proc/%d/status", (int)getpid());
	self_is(getpid());
	snprintf(status, sizeof(status), "Name:\tx\nTgid:\t%d\nNSpid:\t%d\t7\nNSsid:\t1\n",
		 (int)getpid(), (int)getpid());
	assert_int_equal(fr_write(root, dir, status), 0);
	assert_int_equal(uc_procns_check(&seen), -EXDEV);
	assert_int_equal(seen, getpid());
	snprintf(status, sizeof(status), "Name:\tx\nTgid:\t%d\nNSpid:\t%d\nNSsid:\t1\n",
		 (int)getpid(), (int)getpid());
	assert_int_equal(fr_write(root, dir, status), 0);
	assert_int_equal(uc_procns_check(&seen), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ours),
		cmocka_unit_test(other_pid),
		cmocka_unit_test(nspid),
	};

	return fr_run(&suite, tests, NULL, NULL);
}
