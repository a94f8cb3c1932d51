/* cmd/check.c: not written yet */
#include "cmd/common.h"

int cmd_check(struct uc_ctl *ctl, int argc, char **argv)
{
	uc_errx("'check' is not implemented yet");
	return UC_EXIT_FAIL;
}
