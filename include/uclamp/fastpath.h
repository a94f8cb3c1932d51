/*
 * The state of the static key sched_uclamp_used, and how we know it, in this
 * order (each result with its source); never more kernel memory than 4 bytes:
 *  0. support: the sysctls, else the key-neutral probe ("probe");
 *  1. the address from /proc/kallsyms, 4 bytes from /proc/kcore ("kcore"):
 *     0 off, anything else on (-1: being enabled);
 *  2. kallsyms without data symbols: System.map plus the KASLR offset, checked
 *     against text anchors, then kcore ("system-map");
 *  3. evidence of use: a sysctl != 1024, a cgroup clamp != 0.00/max, a task's
 *     non-default request ("evidence"); none is "unknown", never "off";
 *  4. uclamp without the key (5.3-5.8, 5.4 before 5.4.62): "kernel-version".
 */
#ifndef UCLAMP_FASTPATH_H
#define UCLAMP_FASTPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "uclamp/kmem.h"
#include "uclamp/sched.h"
#include "uclamp/sysctl.h"

/* The state of sched_uclamp_used: what the guard weighs a plan against. */
enum uc_key_state {
	UC_KEY_UNKNOWN,
	UC_KEY_OFF,
	UC_KEY_ON,
	UC_KEY_ALWAYS_ON,	/* uclamp without the key (5.3-5.8): accounting always runs */
	UC_KEY_UNSUPPORTED,	/* no uclamp in this kernel */
};

/* off on unknown always-on unsupported */
const char *uc_key_state_name(enum uc_key_state s);

/* What turning the key on costs (bench/fastpath-cost.sh, bench/README.md):
 * the one wording of the guard's warning and status's advice, <= 80 columns. */
#define UC_FASTPATH_COST \
	"wakeups then cost +3-6% instructions (measured in an emulator; see uclampctl(8))"

enum uc_fp_source {
	UC_FP_SRC_NONE,
	UC_FP_SRC_KCORE,
	UC_FP_SRC_SYSTEM_MAP,
	UC_FP_SRC_EVIDENCE,
	UC_FP_SRC_KERNEL_VERSION,
	UC_FP_SRC_PROBE,
};
/* kcore system-map evidence kernel-version probe */
const char *uc_fp_source_name(enum uc_fp_source s);

#define UC_FP_MAX_NOTES 16
#define UC_FP_NOTE_LEN 160

/* What the evidence scan saw (status prints the counts). */
struct uc_fp_scan {
	bool done;		/* the scan ran */
	bool complete;		/* over everything (not stopped at the first evidence) */
	int sys_rc;		/* uc_sysctl_read_all */
	struct uc_sysctl_values sys;
	size_t tasks, tasks_nondefault;
	size_t cgroups;		/* non-root groups of the cpu hierarchy */
	/* of which have the cpu controller's files (cpu.weight/cpu.shares) */
	size_t cgroups_cpu;
	size_t cgroups_uclamp;	/* of which have cpu.uclamp.* files */
	size_t cgroups_nondefault;
	size_t evidence;	/* items found (may exceed the notes kept) */
};

struct uc_fastpath {
	enum uc_key_state state;
	enum uc_fp_source source;
	/* why "on": "sysctl sched_util_clamp_min = 512", ... */
	char evidence[UC_FP_MAX_NOTES][UC_FP_NOTE_LEN];
	size_t nevidence;
	/* why a method could not be used */
	char unavailable[UC_FP_MAX_NOTES][UC_FP_NOTE_LEN];
	size_t nunavailable;
	char how[2 * UC_FP_NOTE_LEN];	/* one line: how the state was decided */
	bool value_read;	/* source kcore/system-map: the 4 bytes */
	int32_t value;
	uint64_t addr;
	enum uc_support support;	/* the probe's answer */
	int probe_err;
	bool sysctls;		/* sched_util_clamp_min/max exist */
	int has_key;		/* the kernel defines sched_uclamp_used: 1, 0, -1 unknown */
	struct uc_fp_scan scan;
};

/* Detect the state (never flips the key). Returns 0; the state may be unknown.
 * Without UC_FP_FULL_SCAN, stops the evidence scan at the first item, and
 * skips it when the key was read. */
#define UC_FP_FULL_SCAN 0x1	/* always scan everything (counts for status) */
int uc_fastpath_detect_flags(struct uc_fastpath *fp, unsigned int flags);

/* ---- the evidence rules: pure functions over what was read ---- */
struct uc_fp_cg_sample {
	const char *path;	/* relative to the cpu hierarchy */
	bool has_files;		/* cpu.uclamp.min/max exist */
	int min_pct100, max_pct100;	/* as read (10000 = max) */
	/* the cpu controller is on here (cpu.weight or cpu.shares exists) */
	bool cpu_files;
};
struct uc_fp_task_sample {
	pid_t pid, tid;
	const char *comm;	/* may be NULL */
	int policy;		/* SCHED_* as sched_getattr reports it */
	uint32_t min, max;	/* requested clamps (sched_getattr) */
};

/* Does the item prove the key was enabled? A note to fp (if not NULL) says
 * why. An RT or deadline task's min proves nothing unless it is neither 0,
 * 1024 nor rt_default (-1: unknown). */
bool uc_fp_sysctl_evidence(const struct uc_sysctl_values *v, struct uc_fastpath *fp);
bool uc_fp_cgroup_evidence(const struct uc_fp_cg_sample *c, struct uc_fastpath *fp);
bool uc_fp_task_evidence(const struct uc_fp_task_sample *t, long rt_default,
			 struct uc_fastpath *fp);

/* ---- the version rule ---- */
enum uc_fp_kver {
	UC_FP_KVER_UNSURE,	/* unparsable, or a distro 5.4.0-N without its stable sublevel */
	UC_FP_KVER_NO_UCLAMP,	/* before 5.3 */
	UC_FP_KVER_PREDATES_KEY,	/* 5.3-5.8, 5.4.0-5.4.61: uclamp accounting always on */
	UC_FP_KVER_HAS_KEY,	/* 5.9+, 5.4.62+ */
};
/* release: uname -r; signature: /proc/version_signature (Ubuntu's last word
 * is the upstream version) or NULL. Exported for test_fastpath.c. */
enum uc_fp_kver uc_fp_version_rule(const char *release, const char *signature);

/* ---- seams for tests: where the evidence and support come from ---- */
typedef int (*uc_fp_cg_fn)(const struct uc_fp_cg_sample *c, void *data);	/* nonzero stops */
typedef int (*uc_fp_task_fn)(const struct uc_fp_task_sample *t, void *data);
struct uc_fp_ops {
	enum uc_support (*probe)(int *err);
	/* every non-root cpu cgroup; -ENOENT none */
	int (*cgroups)(uc_fp_cg_fn fn, void *data);
	int (*tasks)(uc_fp_task_fn fn, void *data);	/* every thread */
};
/* NULL restores the real ones. A test seam (tests/unit). */
void uc_fastpath_set_ops(const struct uc_fp_ops *ops);
/* The real ones: walk the cpu hierarchy (uc_cg_init) and every thread (uc_tasks_walk). */
int uc_fp_real_cgroups(uc_fp_cg_fn fn, void *data);
int uc_fp_real_tasks(uc_fp_task_fn fn, void *data);
/* Every non-root group of the cpu hierarchy, depth first: fn(dfd, rel). */
typedef int (*uc_cg_dir_fn)(int dfd, const char *rel, void *data);
int uc_fp_walk_cgroups(uc_cg_dir_fn fn, void *data);

#endif
