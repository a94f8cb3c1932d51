/* cmd/status.c: not written yet */
#include "cmd/common.h"

int cmd_status(struct uc_ctl *ctl, int argc, char **argv)
{
	uc_errx("'status' is not implemented yet");
	return UC_EXIT_FAIL;
}
