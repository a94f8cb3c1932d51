/* The state of the static key sched_uclamp_used, and how we know it. */
#ifndef UCLAMP_FASTPATH_H
#define UCLAMP_FASTPATH_H

#include <stdbool.h>
#include <stddef.h>

#include "uclamp/guard.h"

enum uc_fp_source {
	UC_FP_SRC_NONE,
	UC_FP_SRC_KCORE,
	UC_FP_SRC_SYSTEM_MAP,
	UC_FP_SRC_EVIDENCE,
	UC_FP_SRC_KERNEL_VERSION,
	UC_FP_SRC_PROBE,
};
const char *uc_fp_source_name(enum uc_fp_source s);	/* kcore system-map evidence kernel-version probe */

#define UC_FP_MAX_NOTES 16
struct uc_fastpath {
	enum uc_key_state state;
	enum uc_fp_source source;
	char evidence[UC_FP_MAX_NOTES][160];	/* why "on": "sysctl sched_util_clamp_min = 512", ... */
	size_t nevidence;
	char unavailable[UC_FP_MAX_NOTES][160];	/* why a method could not be used */
	size_t nunavailable;
};

/* Detect the state (never flips the key). Returns 0; the state may be unknown. */
int uc_fastpath_detect(struct uc_fastpath *fp);

#endif
