/* The foot-guns 'check' reports besides the key (findings.c): pure rules over
 * struct uc_find_input, which reading fills without writing anything. */
#ifndef UCLAMP_FINDINGS_H
#define UCLAMP_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "uclamp/effect.h"
#include "uclamp/fastpath.h"
#include "uclamp/sysctl.h"

enum uc_find_level { UC_FIND_INFO, UC_FIND_WARNING };
const char *uc_find_level_name(enum uc_find_level l);	/* "info" "warning" */

#define UC_FIND_TEXT 256
struct uc_finding {
	const char *id;		/* stable: "clamps-no-effect", "system-min", ... */
	enum uc_find_level level;
	char text[UC_FIND_TEXT];	/* what is wrong, with the values read */
	char fix[UC_FIND_TEXT];		/* what to do ("" none) */
};

#define UC_FIND_MAX 8
struct uc_findings {
	struct uc_finding f[UC_FIND_MAX];
	size_t n;
};

/* What the rules look at. */
struct uc_find_input {
	const struct uc_effect *effect;	/* NULL: no verdicts */
	enum uc_key_state key;		/* sched_uclamp_used, the caller's reading */
	int sys_rc;			/* uc_sysctl_read_all: 0, -ENOENT no uclamp */
	struct uc_sysctl_values sys;
	int tasks_rc;			/* the thread walk: 0 or -errno */
	size_t tasks_clamped;		/* threads requesting non-default clamps */
	size_t cgroups_clamped;		/* cgroups with cpu.uclamp.* not 0.00/max */
	/* of those, the threads (not RT) and cgroups asking for a util_min, and
	 * how many at or below UC_SUGOV_MIN_TIP (819: 79.98%) */
	size_t min_clamped, min_low;
	/* RT threads whose util_min is not the RT default: user-defined, so
	 * they no longer follow it (the first one named) */
	size_t rt_user_min;
	pid_t rt_user_pid;
	char rt_user_comm[32];
	long rt_user_value;
	int battery;			/* a power_supply of type Battery: 1, 0, -1 unknown */
};

/* The rules: fs gets every finding that applies, warnings first. */
void uc_findings_eval(const struct uc_find_input *in, struct uc_findings *fs);

/* Fill in from this system (sysctls, a walk of every thread and cgroup,
 * /sys/class/power_supply); effect and the key's state are the caller's. */
void uc_find_input_read(struct uc_find_input *in, const struct uc_effect *effect,
			enum uc_key_state key);

/* /sys/class/power_supply/ * /type: 1 a Battery, 0 none, -errno unreadable */
int uc_find_battery(void);

/* Does an RT thread's util_min show a user-defined value? The kernel keeps
 * every RT thread that was never given a util_min at rt_default (the sysctl
 * handler resyncs them), so a different value was set by someone. */
bool uc_find_rt_user_min(int policy, unsigned int util_min, long rt_default);

#endif
