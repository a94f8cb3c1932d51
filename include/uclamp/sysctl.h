/* The three system-wide knobs in /proc/sys/kernel. */
#ifndef UCLAMP_SYSCTL_H
#define UCLAMP_SYSCTL_H

#include "uclamp/plan.h"

#define UC_SYSCTL_ABSENT (-1)

/* attr: UC_ATTR_MIN, UC_ATTR_MAX, UC_ATTR_RT_DEFAULT */
const char *uc_sysctl_name(enum uc_attr attr);	/* "sched_util_clamp_min" ... */
int uc_sysctl_read(enum uc_attr attr, long *value);	/* -ENOENT when absent */
int uc_sysctl_write(enum uc_attr attr, long value);

struct uc_sysctl_values {
	long min, max, rt_default;	/* UC_SYSCTL_ABSENT when the file does not exist */
};
int uc_sysctl_read_all(struct uc_sysctl_values *v);	/* -ENOENT: no uclamp */

/* Add the changes from cur to want (fields UC_KEEP = leave) to the plan, in
 * an order that keeps min <= max true after every single write. -EINVAL when
 * the end state itself has min > max or a value is out of range. */
int uc_sysctl_plan(struct uc_plan *p, const struct uc_sysctl_values *cur,
		   const struct uc_sysctl_values *want);

#endif
