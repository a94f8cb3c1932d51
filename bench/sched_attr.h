/* struct sched_attr as the kernel takes it (5.3+: with the clamps), for the
 * bench helpers and the VM tests' (tests/vm/helpers). */
#include <stdint.h>

struct attr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t priority;
	uint64_t runtime, deadline, period;
	uint32_t util_min, util_max;
};
