/* cmd/task.c: not written yet */
#include "cmd/common.h"

int cmd_task(struct uc_ctl *ctl, int argc, char **argv)
{
	uc_errx("'task' is not implemented yet");
	return UC_EXIT_FAIL;
}
