/*
 * Does a clamp bite here, and what does it do? One vocabulary for both:
 *
 * - The verdicts (effect.c): for each cpufreq policy, what uclamp_min and
 *   uclamp_max do to the CPU frequency, from the governor, the scaling
 *   driver and its mode, the kernel version, frequency invariance and the
 *   sched_ext scheduler loaded (effect_scx.c); and, separately, whether
 *   clamps steer task placement (asymmetric capacities / EAS, sched_ext).
 *   Each verdict carries its reason, what to change, and the files read.
 * - The model (effect_freq.c, effect_inv.c, sugov.c): what a policy runs
 *   at (current, limits, P-states, time in each, cpuinfo_avg_freq), the
 *   CPU's capacity, whether the kernel is frequency-invariant here, and
 *   schedutil's projection: the util it is left with after the clamps and
 *   the frequency it picks, by this kernel's formula (before 6.8 and after).
 *
 * For a live view ('top'): uc_effect_read_flags() once (verdicts, invariance,
 * sched_ext), then per sample uc_eff_freq_read() for each policy and
 * uc_eff_freq_delta() between two samples (time in each P-state over the
 * interval); uc_sugov_project() predicts a CPU's next frequency from a
 * util and its rq's clamps (the highest effective clamps of its runnable
 * tasks). None of it writes anything or needs root, except the kernel
 * memory reads of uc_effect_read_flags() (the placement and invariance keys),
 * which fall back to files and say "unknown" where files cannot tell.
 * No printing; every path goes through sysroot.h. Facts checked against
 * the 6.1 and 7.3-rc7 sources: see each file's head comment.
 */
#ifndef UCLAMP_EFFECT_H
#define UCLAMP_EFFECT_H

#include <stdbool.h>
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

#define UC_EFF_TEXT 256
#define UC_EFF_MAX_EVIDENCE 5

/* ---- the model: one policy's frequencies ---- */

#define UC_EFF_MAX_FREQS 64

/* What a policy runs at, as sysfs shows it (frequencies in kHz; -1 where a
 * file is absent or unreadable). */
struct uc_eff_freq {
	int cpu;		/* its first CPU (affected_cpus); -1 unknown */
	long cur;		/* scaling_cur_freq: the last frequency set */
	long min, max;		/* scaling_min_freq, scaling_max_freq: the policy's limits */
	long hw_min, hw_max;	/* cpuinfo_min_freq, cpuinfo_max_freq */
	/* cpuinfo_avg_freq (6.13+, only where the CPU counts cycles: x86
	 * APERF/MPERF, arm64 AMU): the average over the last tick; 0 when the
	 * kernel has no recent sample (an idle CPU: EAGAIN); -1 absent */
	long avg;
	/* the P-states, ascending: scaling_available_frequencies, else the
	 * frequencies of stats/time_in_state; n 0: none listed (HWP, CPPC) */
	size_t n;
	long khz[UC_EFF_MAX_FREQS];
	/* stats/time_in_state per khz[i], in 10 ms units since boot (or the
	 * last stats reset); tis_rc 0 read, -ENOENT no CPU_FREQ_STAT, -errno */
	unsigned long long tis[UC_EFF_MAX_FREQS];
	int tis_rc;
	/* cpuN/cpu_capacity of cpu (arm64, riscv, hybrid x86): the scale of
	 * its util and clamps; 1024 (and capacity_read false) without it */
	long capacity;
	bool capacity_read;
};

/* Read policy `id`'s frequencies into f (the cheap part of a policy: for
 * each sample of a live view): 0, or -errno when the policy is gone. */
int uc_eff_freq_read(int id, struct uc_eff_freq *f);

/* The time in each P-state between two reads of one policy, in 10 ms units:
 * d[i] for a->khz[i] (b's table must be a's), *total their sum. -EINVAL
 * when the tables differ or a counter went back (stats were reset), -ENODATA
 * when either read has no time_in_state. */
int uc_eff_freq_delta(const struct uc_eff_freq *a, const struct uc_eff_freq *b,
		      unsigned long long d[UC_EFF_MAX_FREQS], unsigned long long *total);

/* The P-state the policy resolves a raw frequency to, as the kernel does
 * (cpufreq_driver_resolve_freq): clamped to [min, max], then the lowest
 * P-state at or above it (the highest when none is); without a table the
 * clamped value itself. -1 when f has no limits. */
long uc_eff_freq_resolve(const struct uc_eff_freq *f, long khz);

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
	struct uc_eff_freq f;	/* its frequencies when it was read */
};

enum uc_place_verdict {
	UC_PLACE_UNKNOWN,	/* no cpu_capacity files and the key unreadable */
	UC_PLACE_STEERS,	/* asymmetric capacities: clamps steer placement */
	UC_PLACE_NONE,		/* symmetric: every CPU fits every task */
	UC_PLACE_BPF,		/* sched_ext: placement is the BPF scheduler's */
};
/* "unknown" "steers" "none" "bpf-scheduler" */
const char *uc_place_verdict_name(enum uc_place_verdict v);

/* ---- the model: frequency invariance ---- */

/* Is the kernel frequency-invariant here (arch_scale_freq_invariant())?
 * Then PELT util is scaled by the frequency, and schedutil picks
 * 1.25 x util/capacity of the maximum frequency; if not, it multiplies the
 * current frequency instead, so a uclamp_min at or below
 * UC_SUGOV_MIN_TIP (80%) can never raise it. */
enum uc_inv {
	UC_INV_UNKNOWN,		/* userspace cannot tell (the key unread): see the reason */
	UC_INV_YES,
	UC_INV_NO,
};
const char *uc_inv_name(enum uc_inv v);	/* "unknown" "yes" "no" */

/* ---- sched_ext: what the loaded BPF scheduler does to the frequency ---- */

/* One row per scheduler whose performance target is known (effect_scx.c,
 * with its sources): the verdict of each clamp on a schedutil policy. */
struct uc_scx_row {
	const char *name;	/* ops name ("bpfland"); root/ops may add "_<version>..." */
	enum uc_eff_verdict v[UC_EFF_NCLAMPS];
	const char *reason[UC_EFF_NCLAMPS];
	const char *source;	/* where its performance target is set */
};
/* The row of the scheduler root/ops names, or NULL (unknown: the generic
 * answer, the policies' own verdicts). */
const struct uc_scx_row *uc_scx_lookup(const char *ops);

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
	char scx_ops[129];	/* /sys/kernel/sched_ext/root/ops (6.12+), "" none */
	const struct uc_scx_row *scx_row;	/* its row, NULL unknown or none */
	enum uc_place_verdict place;
	char place_reason[UC_EFF_TEXT];
	char place_evidence[UC_EFF_MAX_EVIDENCE][UC_EFF_TEXT];
	size_t nplace_evidence;
	/* frequency invariance (uc_effect_invariance) */
	char arch[32];		/* /proc/sys/kernel/arch, "" unreadable */
	enum uc_inv inv;
	char inv_reason[UC_EFF_TEXT];
	char inv_evidence[UC_EFF_MAX_EVIDENCE][UC_EFF_TEXT];
	size_t ninv_evidence;
};

/* Everything. Reads the sched_energy_present, sched_asym_cpucapacity,
 * arch_scale_freq_key and cpufreq_freq_invariance keys from kernel memory
 * when it can (root), else their sysfs views. UC_EFFECT_NO_WRITE: the
 * per-boot symbol cache is used where it is, never written (a reader that
 * writes nothing: 'top') */
#define UC_EFFECT_NO_WRITE 0x1
void uc_effect_read_flags(struct uc_effect *e, unsigned int flags);

/* The parts, in uc_effect_read_flags()'s order, for tests and callers that need
 * one. Key values: 1 on, 0 off, -1 unread, UC_EFF_KEY_ABSENT not in this
 * kernel. */
#define UC_EFF_KEY_ABSENT (-2)
void uc_effect_policies(struct uc_effect *e);	/* needs e->kver */
/* placement from the keys (an absent EAS key: off), sysfs and sched_ext */
void uc_effect_placement(struct uc_effect *e, int key_asym, int key_eas);
/* invariance from the keys (x86: arch_scale_freq_key; arm, arm64:
 * cpufreq_freq_invariance), /proc/sys/kernel/arch, /proc/cpuinfo and the
 * policies read (needs e->kver, e->n) */
void uc_effect_invariance(struct uc_effect *e, int key_arch, int key_cpufreq);
/* last: the policies' verdicts under the sched_ext scheduler loaded and
 * the invariance found */
void uc_effect_finish(struct uc_effect *e);

/* ---- the model: schedutil's projection ---- */

enum uc_sugov_formula {
	/* before 6.8: util clamped (uclamp_rq_util_with), then 1.25 x; the
	 * reference frequency max_freq (invariant) or cur */
	UC_SUGOV_PRE_6_8,
	/* 6.8+ (sugov_effective_cpu_perf): max(uclamp_min, min(1.25 x util,
	 * uclamp_max)); the reference max_freq (invariant) or 1.25 x cur */
	UC_SUGOV_6_8,
};
enum uc_sugov_formula uc_sugov_formula_of(int kver);	/* by UC_KVER; 0: the newer */

/* the highest uclamp_min that cannot raise the frequency where the kernel
 * is not frequency-invariant: 1.25 x 819/1024 < 1 */
#define UC_SUGOV_MIN_TIP 819

struct uc_sugov_in {
	enum uc_sugov_formula formula;
	bool invariant;		/* e->inv == UC_INV_YES */
	unsigned long util;	/* the CPU's util: cfs + rt util_avg (or util_est) */
	unsigned long umin;	/* its rq's uclamp_min: the highest effective util_min of
				 * its runnable tasks (0 none) */
	unsigned long umax;	/* its rq's uclamp_max: the highest effective util_max
				 * (1024 none) */
	unsigned long capacity;	/* the CPU's capacity, f->capacity */
};

struct uc_sugov_out {
	unsigned long util;	/* what schedutil is left with: clamped, with its headroom */
	long target;		/* the raw next frequency from f->cur, kHz */
	long next;		/* the P-state it resolves to (uc_eff_freq_resolve) */
	long settle;		/* where updates settle from f->cur (non-invariant: each
				 * update starts from the last; invariant: next) */
};

/* schedutil's next frequency for a single-CPU policy f (its cur, limits and
 * P-states) under `in`: 0, or -EINVAL when f lacks cur or max. Ignores
 * what the live kernel adds (RT without clamps at max, DL bandwidth, IRQ
 * time, iowait boost, the rate limit, the hold while busy). */
int uc_sugov_project(const struct uc_sugov_in *in, const struct uc_eff_freq *f,
		     struct uc_sugov_out *out);

/* The strongest verdict of a clamp over all rows (steers > request-only >
 * unknown > ignored, no cpufreq): ignored or no-cpufreq means no policy of
 * this machine lets the clamp change the frequency. */
enum uc_eff_verdict uc_effect_best(const struct uc_effect *e, int clamp);

#endif
