/* The system-wide clamps' plan: only the knobs that differ, in an order that
 * keeps min <= max after each write. Above plan.c, so both call downwards. */
#include <errno.h>
#include <stddef.h>

#include "uclamp/plan.h"
#include "uclamp/sysctl.h"
#include "uclamp/value.h"

/* want -> the value to end with; -EINVAL when out of range, -ENOENT when the
 * knob is absent. *end = cur for UC_KEEP. */
static int end_value(long cur, long want, long *end)
{
	if (want == UC_KEEP) {
		*end = cur;
		return 0;
	}
	if (want == UC_RESET)
		want = UC_CAPACITY_SCALE;	/* all three default to 1024 */
	if (want < 0 || want > UC_CAPACITY_SCALE)
		return -EINVAL;
	if (cur == UC_SYSCTL_ABSENT)
		return -ENOENT;
	*end = want;
	return 0;
}

static int add(struct uc_plan *p, enum uc_attr attr, long want, long from, long to)
{
	if (want == UC_KEEP)
		return 0;
	if (from == to) {
		p->unchanged++;
		return 0;
	}
	return uc_plan_add(p, UC_KIND_SYSCTL, attr, uc_sysctl_name(attr), from, to) ? 0 : -ENOMEM;
}

int uc_sysctl_plan(struct uc_plan *p, const struct uc_sysctl_values *cur,
		   const struct uc_sysctl_values *want)
{
	struct uc_sysctl_values end;
	long min, max;
	size_t n0 = p->n, u0 = p->unchanged;
	bool max_first;
	int rc = 0;

	for (size_t i = 0; i < UC_SYSCTL_NKNOBS && !rc; i++) {
		const struct uc_sysctl_knob *k = &uc_sysctl_knobs[i];

		rc = end_value(uc_sysctl_value(cur, k->attr), uc_sysctl_value(want, k->attr),
			       uc_sysctl_field(&end, k));
	}
	if (rc)
		return rc;
	min = end.min;
	max = end.max;
	/* refuse before writing anything: the kernel would reject the last write */
	if (min > max)
		return -EINVAL;

	/* min first is safe when it fits under the current max; else max first,
	 * safe since cur_min <= cur_max < min <= max: one order always works */
	max_first = min > cur->max;
	if (max_first)
		rc = add(p, UC_ATTR_MAX, want->max, cur->max, max);
	if (!rc)
		rc = add(p, UC_ATTR_MIN, want->min, cur->min, min);
	if (!rc && !max_first)
		rc = add(p, UC_ATTR_MAX, want->max, cur->max, max);
	/* the others are checked only against 1024, never against min/max */
	for (size_t i = 0; i < UC_SYSCTL_NKNOBS && !rc; i++) {
		const struct uc_sysctl_knob *k = &uc_sysctl_knobs[i];

		if (i != UC_SYS_MIN && i != UC_SYS_MAX)
			rc = add(p, k->attr, uc_sysctl_value(want, k->attr),
				 uc_sysctl_value(cur, k->attr), *uc_sysctl_field(&end, k));
	}
	if (rc) {	/* -ENOMEM: leave the plan as it was */
		uc_plan_drop_from(p, n0);
		p->unchanged = u0;
	}
	return rc;
}
