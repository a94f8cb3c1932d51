/* cmd/system.c: not written yet */
#include "cmd/common.h"

int cmd_system(struct uc_ctl *ctl, int argc, char **argv)
{
	uc_errx("'system' is not implemented yet");
	return UC_EXIT_FAIL;
}
