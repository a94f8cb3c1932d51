/*
 * The model of effective cgroup clamps, as the kernel computes them in
 * cpu_util_update_eff() (kernel/sched/core.c): mainline exposes no
 * *.effective file, so 'cgroup show' derives them from the requested values
 * down the hierarchy. Pure arithmetic, plus one walk that reads the
 * requested values through cgroup.c.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "uclamp/cgroup.h"
#include "uclamp/value.h"

static int imin(int a, int b)
{
	return a < b ? a : b;
}

void uc_cg_eff_root(long sys_min, long sys_max, struct uc_cg_clamps *eff)
{
	/* uclamp_update_root_tg(): the root group's requests are the sysctls */
	eff->max = (int)sys_max;
	eff->min = imin((int)sys_min, eff->max);
}

void uc_cg_eff_child(const struct uc_cg_clamps *parent, int req_min, int req_max,
		     struct uc_cg_clamps *eff)
{
	/* cpu_util_update_eff(): cap by the parent, then protection by limit */
	eff->min = imin(req_min, parent->min);
	eff->max = imin(req_max, parent->max);
	eff->min = imin(eff->min, eff->max);
}

int uc_cg_effective(const char *rel, long sys_min, long sys_max, struct uc_cg_clamps *eff)
{
	char part[PATH_MAX] = "";
	const char *s = rel;
	size_t len = 0;
	int rc;

	if (uc_cg_path_escapes(rel))
		return -EXDEV;
	uc_cg_eff_root(sys_min, sys_max, eff);
	/* down from the root, one component at a time */
	while ((rc = uc_cg_path_next(&s, part, sizeof(part), &len)) > 0) {
		int mn, mx;

		rc = uc_cg_read(part, UC_ATTR_MIN, &mn);
		if (!rc)
			rc = uc_cg_read(part, UC_ATTR_MAX, &mx);
		if (rc == -ENOENT)
			continue;	/* no clamps here: the parent's effective values hold */
		if (rc)
			return rc;
		uc_cg_eff_child(eff, uc_pct100_to_util(mn), uc_pct100_to_util(mx), eff);
	}
	return rc;
}
