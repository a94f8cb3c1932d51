/*
 * The test seams (see sysroot.h): the root prefix of every /proc and /sys
 * path, the watch daemon's receive buffer size, and a fake cgroup v2 mount.
 *
 * Built twice: into the installed uclampctl without UC_TEST_SEAMS, where the
 * prefix is always "" and no environment variable can redirect the tool
 * (secure_getenv would not help: root through 'sudo -E' is the common case);
 * and with -DUC_TEST_SEAMS into the test programs only (tests/uclampctl-test,
 * the unit tests), where $UCLAMPCTL_SYSROOT points them at a fake root.
 */
#include <stdlib.h>

#include "uclamp/sysroot.h"

#ifdef UC_TEST_SEAMS
const char *uc_sysroot(void)
{
	static const char *root;

	if (!root) {
		const char *e = getenv(UC_SYSROOT_ENV);

		root = e ? e : "";
	}
	return root;
}

int uc_test_rcvbuf(void)
{
	const char *e = getenv(UC_TEST_RCVBUF_ENV);

	return e ? atoi(e) : 0;
}

const char *uc_test_cg2_mount(void)
{
	const char *e = getenv(UC_TEST_CG2_ENV);

	return e && *e ? e : NULL;
}
#else
const char *uc_sysroot(void)
{
	return "";
}

int uc_test_rcvbuf(void)
{
	return 0;
}

const char *uc_test_cg2_mount(void)
{
	return NULL;
}
#endif
