/* The consent check (see guard.h and HACKING.md, "every change is a plan first"). */
#include "uclamp/guard.h"

bool uc_guard_cost(bool flips, enum uc_key_state key)
{
	/* the cost is already paid (or there is nothing to enable): no question */
	return flips && key != UC_KEY_ON && key != UC_KEY_ALWAYS_ON && key != UC_KEY_UNSUPPORTED;
}

enum uc_guard_verdict uc_guard_decide(bool flips, enum uc_key_state key,
				      const struct uc_consent *c)
{
	bool cost = uc_guard_cost(flips, key);

	if (!cost && !c->wide)
		return UC_GUARD_GO;
	if (c->yes)
		return cost ? UC_GUARD_GO_WARN : UC_GUARD_GO;
	if (c->interactive)
		return UC_GUARD_ASK;
	return UC_GUARD_REFUSE;
}

const char *uc_guard_warning(enum uc_key_state key)
{
	/* two lines, each within 80 columns after "uclampctl: warning: " */
	if (key == UC_KEY_OFF)
		return "the fast path (sched_uclamp_used) turns on until reboot:\n"
		       UC_FASTPATH_COST;
	return "the fast path (sched_uclamp_used) may turn on until reboot:\n" UC_FASTPATH_COST;
}
