/* The consent check (see guard.h and HACKING.md, "every change is a plan first"). */
#include "uclamp/guard.h"

enum uc_guard_verdict uc_guard_check(const struct uc_plan *p, enum uc_key_state key,
				     const struct uc_consent *c)
{
	return uc_guard_decide(uc_plan_flips(p), key, c);
}

enum uc_guard_verdict uc_guard_decide(bool flips, enum uc_key_state key,
				      const struct uc_consent *c)
{
	if (!flips)
		return UC_GUARD_GO;
	/* the cost is already paid (or there is nothing to enable): no question */
	if (key == UC_KEY_ON || key == UC_KEY_ALWAYS_ON || key == UC_KEY_UNSUPPORTED)
		return UC_GUARD_GO;
	if (c->yes)
		return UC_GUARD_GO_WARN;
	if (c->interactive)
		return UC_GUARD_ASK;
	return UC_GUARD_REFUSE;
}

const char *uc_guard_warning(enum uc_key_state key)
{
	if (key == UC_KEY_OFF)
		return "this will enable the uclamp fast path (static key "
		       "sched_uclamp_used) until reboot:\n"
		       "every task wakeup then pays for clamp accounting (" UC_FASTPATH_COST ")";
	return "this may enable the uclamp fast path (static key sched_uclamp_used; its state "
	       "is unknown) until reboot:\n"
	       "every task wakeup then pays for clamp accounting (" UC_FASTPATH_COST ")";
}
