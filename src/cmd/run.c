/* cmd/run.c: not written yet */
#include "cmd/common.h"

int cmd_run(struct uc_ctl *ctl, int argc, char **argv)
{
	uc_errx("'run' is not implemented yet");
	return UC_EXIT_FAIL;
}
