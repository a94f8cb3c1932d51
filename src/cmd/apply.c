/* cmd/apply.c: not written yet */
#include "cmd/common.h"

int cmd_apply(struct uc_ctl *ctl, int argc, char **argv)
{
	uc_errx("'apply' is not implemented yet");
	return UC_EXIT_FAIL;
}
