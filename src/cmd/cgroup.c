/* cmd/cgroup.c: not written yet */
#include "cmd/common.h"

int cmd_cgroup(struct uc_ctl *ctl, int argc, char **argv)
{
	uc_errx("'cgroup' is not implemented yet");
	return UC_EXIT_FAIL;
}
