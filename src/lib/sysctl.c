/* sysctl.c: placeholder, being written (issue 3) */
#include <errno.h>
#include "uclamp/sysctl.h"
int uc_sysctl_write(enum uc_attr attr, long value) { return -ENOSYS; }
