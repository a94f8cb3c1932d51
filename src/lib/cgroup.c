/* cgroup.c: placeholder, being written (issue 3) */
#include <errno.h>
#include "uclamp/cgroup.h"
int uc_cg_write(const char *rel, enum uc_attr attr, int pct100) { return -ENOSYS; }
int uc_cg_set_subtree_cpu(const char *rel, bool enable) { return -ENOSYS; }
