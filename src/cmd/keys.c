/* cmd/keys.c: not written yet */
#include "cmd/common.h"

int cmd_keys(struct uc_ctl *ctl, int argc, char **argv)
{
	uc_errx("'keys' is not implemented yet");
	return UC_EXIT_FAIL;
}
