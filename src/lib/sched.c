/* sched.c: placeholder, being written (issue 2) */
#include <errno.h>
#include "uclamp/sched.h"
int uc_sched_set(pid_t tid, const struct uc_sched_attr *cur, int min, int max, int reset_on_fork) { return -ENOSYS; }
int uc_policy_parse(const char *s) { return -EINVAL; }
