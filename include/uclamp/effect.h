/*
 * Does a clamp bite here? For each cpufreq policy, what uclamp_min and
 * uclamp_max do to the CPU frequency, from the governor, the scaling
 * driver and its mode, and the kernel version; and, separately, whether
 * clamps steer task placement (asymmetric capacities / EAS, sched_ext).
 * Each verdict carries its reason, what to change, and the files read.
 * No printing; every path goes through sysroot.h. Facts checked against
 * the 7.3-rc7 sources (drivers/cpufreq/{intel_pstate,amd-pstate}.c,
 * kernel/sched/cpufreq_schedutil.c): see effect.c.
 */
#ifndef UCLAMP_EFFECT_H
#define UCLAMP_EFFECT_H

#include <stddef.h>

enum uc_eff_verdict {
	UC_EFF_UNKNOWN,		/* the governor or driver could not be read */
	UC_EFF_STEERS,		/* the clamp bounds the frequency the CPU runs at */
	UC_EFF_REQUEST_ONLY,	/* it moves the request; the hardware may still run faster */
	UC_EFF_IGNORED,		/* the frequency is chosen without it */
	UC_EFF_NO_CPUFREQ,	/* no cpufreq driver: frequency unaffected */
};
/* "unknown" "steers" "request-only" "ignored" "no-cpufreq" */
const char *uc_eff_verdict_name(enum uc_eff_verdict v);
/* the Prometheus value: 2 steers, 1 request-only, 0 ignored or no cpufreq, -1 unknown */
int uc_eff_verdict_value(enum uc_eff_verdict v);

enum { UC_EFF_MIN, UC_EFF_MAX, UC_EFF_NCLAMPS };

#define UC_EFF_TEXT 176
#define UC_EFF_MAX_EVIDENCE 5

struct uc_eff_policy {
	int id;			/* N of policyN; -1: the "none" row (no cpufreq policies) */
	char gov[32];		/* scaling_governor, "" unreadable */
	char driver[32];	/* scaling_driver, "" unreadable */
	char mode[16];		/* intel_pstate/amd_pstate status ("passive"), "" if none */
	char cpus[64];		/* affected_cpus as read ("0 1 2 3"), "" unreadable */
	enum uc_eff_verdict v[UC_EFF_NCLAMPS];
	char reason[UC_EFF_NCLAMPS][UC_EFF_TEXT];
	char fix[UC_EFF_TEXT];	/* what to change for clamps to steer frequency; "" none */
	char evidence[UC_EFF_MAX_EVIDENCE][UC_EFF_TEXT];	/* "path: value" */
	size_t nevidence;
};

enum uc_place_verdict {
	UC_PLACE_UNKNOWN,	/* no cpu_capacity files and the key unreadable */
	UC_PLACE_STEERS,	/* asymmetric capacities: clamps steer placement */
	UC_PLACE_NONE,		/* symmetric: every CPU fits every task */
	UC_PLACE_BPF,		/* sched_ext: placement is the BPF scheduler's */
};
/* "unknown" "steers" "none" "bpf-scheduler" */
const char *uc_place_verdict_name(enum uc_place_verdict v);

#define UC_EFF_MAX_POLICIES 256

struct uc_effect {
	int kver;		/* UC_KVER of the running kernel, 0 unknown */
	char release[64];
	int cpufreq_rc;		/* 0; -ENOENT: no /sys/devices/system/cpu/cpufreq (no CPU_FREQ) */
	size_t n;		/* rows in p: the policies, or the one "none" row */
	struct uc_eff_policy p[UC_EFF_MAX_POLICIES];	/* by id */
	/* placement */
	int asymmetric;		/* 1, 0, -1 unknown */
	char caps[UC_EFF_TEXT];	/* "cpu0-3 446, cpu4-7 1024" or "" */
	int eas;		/* energy-aware scheduling on: 1, 0, -1 unknown */
	int scx;		/* a sched_ext scheduler is enabled: 1, 0, -1 unknown */
	int scx_all;		/* switch_all: it runs every task; -1 unknown */
	enum uc_place_verdict place;
	char place_reason[UC_EFF_TEXT];
	char place_evidence[UC_EFF_MAX_EVIDENCE][UC_EFF_TEXT];
	size_t nplace_evidence;
};

/* Everything. Reads the sched_energy_present and sched_asym_cpucapacity
 * keys from kernel memory when it can (root), else their sysfs views. */
void uc_effect_read(struct uc_effect *e);

/* The parts, for tests and callers that need one. */
void uc_effect_policies(struct uc_effect *e);	/* needs e->kver */
/* placement from the given key values (1 on, 0 off, -1 unread,
 * UC_EFF_KEY_ABSENT not in this kernel: for EAS, off) and sysfs */
#define UC_EFF_KEY_ABSENT (-2)
void uc_effect_placement(struct uc_effect *e, int key_asym, int key_eas);

/* The strongest verdict of a clamp over all rows (steers > request-only >
 * unknown > ignored, no cpufreq): ignored or no-cpufreq means no policy of
 * this machine lets the clamp change the frequency. */
enum uc_eff_verdict uc_effect_best(const struct uc_effect *e, int clamp);

#endif
