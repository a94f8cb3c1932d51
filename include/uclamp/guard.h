/* The consent check: may this plan run, given the state of sched_uclamp_used? */
#ifndef UCLAMP_GUARD_H
#define UCLAMP_GUARD_H

#include <stdbool.h>

#include "uclamp/fastpath.h"
#include "uclamp/plan.h"

enum uc_guard_verdict {
	UC_GUARD_GO,		/* nothing flips, or the cost is already paid (and not wide) */
	UC_GUARD_GO_WARN,	/* would flip, consent given (--yes / config): warn, then go */
	UC_GUARD_ASK,		/* would flip, or wide; a terminal is there: warn and ask */
	UC_GUARD_REFUSE,	/* would flip, or wide; no consent, no terminal: exit 3 */
};

struct uc_consent {
	bool yes;		/* -y/--yes, or allow-enable in the config */
	bool interactive;	/* stdin and stderr are terminals */
	/* the plan reaches every task of every user: a person's consent is
	 * needed whatever the key's state (asked, or --yes) */
	bool wide;
};

/* The key's cost is still to pay: the writes would turn it on (flips). */
bool uc_guard_cost(bool flips, enum uc_key_state key);

/* The verdict for writes that would (flips: uc_plan_flips of a plan) or would
 * not flip the key; also when there is no plan yet: the daemon's rules, before
 * any process they will match has started. */
enum uc_guard_verdict uc_guard_decide(bool flips, enum uc_key_state key,
				      const struct uc_consent *c);

/* The two-line warning, each line within 80 columns after "uclampctl: warning: ":
 * "turns on" when off, "may turn on" when unknown; then the measured cost. */
const char *uc_guard_warning(enum uc_key_state key);

#endif
