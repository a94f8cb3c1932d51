/* The scheduler's static keys that gate fast-path cost (uclampctl keys): from
 * kernel memory, else what userspace sees of them (static_keys.c). */
#ifndef UCLAMP_KEYS_H
#define UCLAMP_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uclamp/fastpath.h"
#include "uclamp/kmem.h"

enum uc_skey_state {
	UC_SKEY_UNREADABLE,	/* why says why */
	UC_SKEY_OFF,
	UC_SKEY_ON,
	UC_SKEY_ABSENT,		/* not in this kernel (config) */
	UC_SKEY_UNKNOWN,	/* sched_uclamp_used: no evidence, unreadable */
	UC_SKEY_ALWAYS_ON,	/* sched_uclamp_used: uclamp predates the key */
	UC_SKEY_UNSUPPORTED,	/* sched_uclamp_used: no uclamp */
};
/* "unreadable" "off" "on" "absent" "unknown" "always-on" "unsupported" */
const char *uc_skey_state_name(enum uc_skey_state s);

#define UC_SKEY_TEXT 192
struct uc_skey {
	const char *name;	/* the spelling this kernel has (__scx_ops_enabled before 6.13) */
	const char *meaning;	/* one line: what the key gates */
	enum uc_skey_state state;
	bool have_count;	/* read from kernel memory */
	int32_t count;
	uint64_t addr;
	/* "kcore", "system-map", "/sys/devices/system/cpu/smt/active", ... */
	char how[UC_SKEY_TEXT];
	char view[UC_SKEY_TEXT];	/* what userspace shows of it ("" if nothing) */
	char why[UC_SKEY_TEXT];		/* unreadable/absent/unknown: the reason */
};

#define UC_SKEYS_MAX 24
struct uc_skeys {
	struct uc_skey k[UC_SKEYS_MAX];
	size_t n;
	struct uc_fastpath fp;		/* sched_uclamp_used, as 'check' sees it */
	struct uc_kmem_info info;	/* the other keys' kernel-memory read */
};

/* Read every key (shared_processor only on powerpc pseries). 0 or -ENOMEM. */
int uc_skeys_read(struct uc_skeys *ks);

/* A test seam (tests/unit/test_sysinfo.c): cpu capacities all equal? (0 no,
 * 1 yes, -ENOENT no cpu_capacity files). */
int uc_cpu_capacity_symmetric(char *view, size_t n);

#endif
