/*
 * schedutil's projection for a single-CPU policy on the frequency path
 * (sugov_update_single_freq; the perf path of intel_cpufreq/amd-pstate only
 * runs frequency-invariant, and ends in a performance level).
 * Before 6.8 (6.1: effective_cpu_util(), get_next_freq()):
 *   u    = min(cap, clamp(util, uclamp_min, uclamp_max))  (uclamp_rq_util_with)
 *   next = ref * (u + u/4) / cap, ref = cpuinfo_max_freq invariant, else cur
 * 6.8+ (9c0b4bb7f630 with e37617c8e53a; unchanged in 7.3-rc7):
 *   u    = max(uclamp_min, min(a + a/4, min(cap, uclamp_max))), a = min(util, cap)
 *   next = ref * u / cap, ref = arch_scale_freq_ref() (arm64: capacity_freq_ref),
 *          else cpuinfo_max_freq invariant, else cur + cur/4 (get_capacity_ref_freq)
 * Not invariant, both give 1.25 x cur x clamped/cap: a uclamp_min <= 819 never
 * raises the frequency, anything above climbs to the maximum. Then
 * cpufreq_driver_resolve_freq() (uc_eff_freq_resolve()).
 */
#include <errno.h>

#include "uclamp/effect.h"
#include "uclamp/sysroot.h"

enum uc_sugov_formula uc_sugov_formula_of(int kver)
{
	return kver && kver < UC_KVER(6, 8, 0) ? UC_SUGOV_PRE_6_8 : UC_SUGOV_6_8;
}

static unsigned long umin_of(unsigned long a, unsigned long b)
{
	return a < b ? a : b;
}

static unsigned long umax_of(unsigned long a, unsigned long b)
{
	return a > b ? a : b;
}

/* the util schedutil hands to get_next_freq() */
static unsigned long clamped_util(const struct uc_sugov_in *in)
{
	unsigned long cap = in->capacity ? in->capacity : 1024;
	unsigned long u;

	if (in->formula == UC_SUGOV_PRE_6_8) {
		/* uclamp_rq_util_with(): min wins when min >= max */
		u = in->umin >= in->umax ? in->umin
					 : umax_of(in->umin, umin_of(in->util, in->umax));
		u = umin_of(u, cap);
		return u + (u >> 2);
	}
	u = umin_of(in->util, cap);
	u += u >> 2;
	return umax_of(in->umin, umin_of(u, umin_of(cap, in->umax)));
}

/* get_next_freq() from frequency `cur` */
static long next_raw(const struct uc_sugov_in *in, const struct uc_eff_freq *f, long cur,
		     unsigned long u)
{
	unsigned long cap = in->capacity ? in->capacity : 1024;
	unsigned long ref;

	if (in->invariant)
		ref = (unsigned long)(f->hw_max > 0 ? f->hw_max : f->max);
	else if (in->formula == UC_SUGOV_PRE_6_8)
		ref = (unsigned long)cur;
	else
		ref = (unsigned long)cur + ((unsigned long)cur >> 2);
	return (long)(ref * u / cap);
}

int uc_sugov_project(const struct uc_sugov_in *in, const struct uc_eff_freq *f,
		     struct uc_sugov_out *out)
{
	long cur = f->cur, next;

	if (cur <= 0 || (f->max <= 0 && f->hw_max <= 0))
		return -EINVAL;
	out->util = clamped_util(in);
	out->target = next_raw(in, f, cur, out->util);
	out->next = uc_eff_freq_resolve(f, out->target);
	/* not invariant: each update starts from the frequency the last one
	 * set; at most one step per P-state before it repeats or stops */
	next = out->next;
	for (size_t i = 0; !in->invariant && next != cur && i <= f->n + 1; i++) {
		cur = next;
		next = uc_eff_freq_resolve(f, next_raw(in, f, cur, out->util));
	}
	out->settle = next;
	return 0;
}
