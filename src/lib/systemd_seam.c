/* No stand-in for systemd's bus: the installed binary and the unit tests
 * (tests/uclampctl-test links tests/fake_systemd.c's instead). */
#include <stddef.h>

#include "uclamp/systemd.h"

const struct uc_sd_ops *uc_test_sd_ops(void)
{
	return NULL;
}
