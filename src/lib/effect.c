/*
 * Does a clamp bite here? As read in the 7.3-rc7 sources: schedutil folds the
 * rq clamps into util, bw_min and bw_max; other governors never read them;
 * setpolicy drivers (intel_pstate active, amd-pstate-epp) have no governor. A
 * ->target/->fast_switch driver sets schedutil's clamped target. intel_cpufreq
 * with HWP takes ->adjust_perf(min, target, max): bw_min is the HWP minimum,
 * from 7.3 bw_max also the maximum (7.2 and older pass none). amd-pstate
 * (passive, guided) ignores the max argument: uclamp_max lowers the desired
 * perf only. uc_effect_finish() then weighs in sched_ext (effect_scx.c) and
 * invariance (effect_inv.c, sugov.c).
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uclamp/effect.h"
#include "uclamp/keys.h"
#include "uclamp/kmem.h"
#include "uclamp/note.h"
#include "uclamp/sysroot.h"

#define CPUFREQ "/sys/devices/system/cpu/cpufreq"

const char *uc_eff_verdict_name(enum uc_eff_verdict v)
{
	static const char *const names[] = { "unknown", "steers", "request-only", "ignored",
					     "no-cpufreq" };

	return UC_NAME(names, v, "unknown");
}

int uc_eff_verdict_value(enum uc_eff_verdict v)
{
	static const int values[] = { -1, 2, 1, 0, 0 };

	return UC_NAME(values, v, -1);
}

const char *uc_place_verdict_name(enum uc_place_verdict v)
{
	static const char *const names[] = { "unknown", "steers", "none", "bpf-scheduler" };

	return UC_NAME(names, v, "unknown");
}

#define EV(p, ...) UC_NOTE_ADD((p)->evidence, (p)->nevidence, __VA_ARGS__)
#define PEV(e, ...) UC_NOTE_ADD((e)->place_evidence, (e)->nplace_evidence, __VA_ARGS__)

__attribute__((format(printf, 4, 5)))
static void set(struct uc_eff_policy *p, int clamp, enum uc_eff_verdict v, const char *fmt, ...)
{
	va_list ap;

	p->v[clamp] = v;
	va_start(ap, fmt);
	uc_note_vset(p->reason[clamp], sizeof(p->reason[clamp]), fmt, ap);
	va_end(ap);
}

/* read abspath into buf ("" when unreadable) and note it as evidence */
static void read_ev(struct uc_eff_policy *p, const char *abspath, char *buf, size_t n)
{
	if (uc_read_str(abspath, buf, n) < 0) {
		EV(p, "%s: unreadable", abspath);
		return;
	}
	EV(p, "%s: %s", abspath, buf);
}

static void both(struct uc_eff_policy *p, enum uc_eff_verdict v, const char *why)
{
	set(p, UC_EFF_MIN, v, "%s", why);
	set(p, UC_EFF_MAX, v, "%s", why);
}

static void pstate_active(struct uc_eff_policy *p, const char *sysfs, const char *boot)
{
	char why[UC_EFF_TEXT];

	uc_note_set(why, sizeof(why),
		    "%s in active mode picks the P-state itself (EPP); '%s' is its own policy, "
		    "not schedutil: clamps never reach it", p->driver, p->gov);
	both(p, UC_EFF_IGNORED, why);
	uc_note_set(p->fix, sizeof(p->fix),
		    "boot with %s (or write passive to %s), then set scaling_governor to schedutil",
		    boot, sysfs);
}

static void intel_passive(const struct uc_effect *e, struct uc_eff_policy *p, const char *dir)
{
	char path[340];
	bool hwp;

	/* the HWP attributes (base_frequency, EPP) exist on intel_cpufreq only with HWP */
	snprintf(path, sizeof(path), "%s/base_frequency", dir);
	hwp = uc_exists(path);
	EV(p, "%s: %s", path, hwp ? "present (HWP)" : "absent (no HWP)");
	if (!hwp) {
		both(p, UC_EFF_STEERS,
		     "schedutil's clamped target is the P-state intel_cpufreq sets");
		return;
	}
	set(p, UC_EFF_MIN, UC_EFF_STEERS,
	    "schedutil's clamped minimum is the HWP minimum P-state (adjust_perf)");
	EV(p, "/proc/sys/kernel/osrelease: %s", e->release[0] ? e->release : "unreadable");
	if (e->kver >= UC_KVER(7, 3, 0))
		set(p, UC_EFF_MAX, UC_EFF_STEERS,
		    "since 7.3 schedutil passes uclamp_max as the HWP maximum P-state");
	else
		set(p, UC_EFF_MAX, UC_EFF_REQUEST_ONLY,
		    "lowers the HWP desired P-state only: the CPU may still run faster "
		    "(%s; uclamp_max is the HWP ceiling from 7.3)",
		    e->kver ? "this kernel is older than 7.3" : "kernel version unknown");
}

static void classify(const struct uc_effect *e, struct uc_eff_policy *p, const char *dir)
{
	char why[UC_EFF_TEXT];

	if (!p->gov[0] || !p->driver[0]) {
		both(p, UC_EFF_UNKNOWN, "the governor or the scaling driver could not be read");
		return;
	}
	if (!strcmp(p->driver, "intel_pstate")) {
		pstate_active(p, "/sys/devices/system/cpu/intel_pstate/status",
			      "intel_pstate=passive");
		return;
	}
	if (!strcmp(p->driver, "amd-pstate-epp")) {
		pstate_active(p, "/sys/devices/system/cpu/amd_pstate/status",
			      "amd_pstate=passive (or guided)");
		return;
	}
	if (strcmp(p->gov, "schedutil")) {
		uc_note_set(why, sizeof(why),
			    "governor %s chooses the frequency without clamps (only schedutil "
			    "reads them)", p->gov);
		both(p, UC_EFF_IGNORED, why);
		uc_note_set(p->fix, sizeof(p->fix), "write schedutil to %s/scaling_governor", dir);
		return;
	}
	if (!strcmp(p->driver, "intel_cpufreq")) {
		intel_passive(e, p, dir);
		return;
	}
	if (!strcmp(p->driver, "amd-pstate")) {
		set(p, UC_EFF_MIN, UC_EFF_STEERS,
		    "schedutil's clamped minimum is the CPPC minimum performance");
		set(p, UC_EFF_MAX, UC_EFF_REQUEST_ONLY,
		    "amd-pstate ignores schedutil's maximum (its limit stays scaling_max_freq): "
		    "uclamp_max lowers the requested performance only, the CPU may run faster");
		return;
	}
	uc_note_set(why, sizeof(why), "schedutil's clamped target is the frequency %s sets",
		    p->driver);
	both(p, UC_EFF_STEERS, why);
}

static void read_policy(const struct uc_effect *e, struct uc_eff_policy *p, const char *name)
{
	char dir[300], path[340];

	memset(p, 0, sizeof(*p));
	p->id = atoi(name + 6);
	snprintf(dir, sizeof(dir), CPUFREQ "/%s", name);
	snprintf(path, sizeof(path), "%s/scaling_governor", dir);
	read_ev(p, path, p->gov, sizeof(p->gov));
	snprintf(path, sizeof(path), "%s/scaling_driver", dir);
	read_ev(p, path, p->driver, sizeof(p->driver));
	snprintf(path, sizeof(path), "%s/affected_cpus", dir);
	uc_read_str(path, p->cpus, sizeof(p->cpus));
	if (!strncmp(p->driver, "intel_", 6))
		read_ev(p, "/sys/devices/system/cpu/intel_pstate/status", p->mode, sizeof(p->mode));
	else if (!strncmp(p->driver, "amd-pstate", 10))
		read_ev(p, "/sys/devices/system/cpu/amd_pstate/status", p->mode, sizeof(p->mode));
	uc_eff_freq_read(p->id, &p->f);
	classify(e, p, dir);
}

static int cmp_policy(const void *a, const void *b)
{
	return ((const struct uc_eff_policy *)a)->id - ((const struct uc_eff_policy *)b)->id;
}

static bool is_policy(const char *s)
{
	return !strncmp(s, "policy", 6) && s[6] && strspn(s + 6, "0123456789") == strlen(s + 6);
}

void uc_effect_policies(struct uc_effect *e)
{
	DIR *d = uc_opendir(CPUFREQ);
	struct uc_eff_policy *none = &e->p[0];
	struct dirent *de;

	e->n = 0;
	e->cpufreq_rc = d ? 0 : -errno;
	while (d && (de = readdir(d)) && e->n < UC_EFF_MAX_POLICIES)
		if (is_policy(de->d_name))
			read_policy(e, &e->p[e->n++], de->d_name);
	if (d)
		closedir(d);
	if (e->n) {
		qsort(e->p, e->n, sizeof(e->p[0]), cmp_policy);
		return;
	}
	memset(none, 0, sizeof(*none));
	none->id = -1;
	e->n = 1;
	EV(none, "%s: %s", CPUFREQ,
	   e->cpufreq_rc == -ENOENT ? "absent (no CONFIG_CPU_FREQ)"
	   : e->cpufreq_rc ? "unreadable" : "no policy directories");
	if (e->cpufreq_rc && e->cpufreq_rc != -ENOENT)
		both(none, UC_EFF_UNKNOWN, "the cpufreq directory could not be read");
	else
		both(none, UC_EFF_NO_CPUFREQ,
		     "no cpufreq driver: frequency unaffected (clamps can only steer placement)");
}

/* the sysfs view of EAS when the key is unreadable: 0 when it cannot be on */
static int eas_view(struct uc_effect *e)
{
	char buf[16];
	ssize_t len = uc_read_str("/proc/sys/kernel/sched_energy_aware", buf, sizeof(buf));

	if (e->asymmetric == 0)
		return 0;	/* EAS needs CPUs of different capacity */
	if (len < 0) {
		PEV(e, "/proc/sys/kernel/sched_energy_aware: absent");
		return e->asymmetric == 1 ? 0 : -1;
	}
	PEV(e, "/proc/sys/kernel/sched_energy_aware: %s", len ? buf : "(empty)");
	return len && strcmp(buf, "0") ? -1 : 0;
}

static void read_scx(struct uc_effect *e)
{
	char buf[32];
	long all;

	e->scx = 0;
	e->scx_all = -1;
	e->scx_ops[0] = '\0';
	e->scx_row = NULL;
	if (uc_read_str("/sys/kernel/sched_ext/state", buf, sizeof(buf)) < 0) {
		PEV(e, "/sys/kernel/sched_ext/state: absent");
		return;
	}
	PEV(e, "/sys/kernel/sched_ext/state: %s", buf);
	e->scx = !strcmp(buf, "enabled");
	if (e->scx && !uc_read_long("/sys/kernel/sched_ext/switch_all", &all)) {
		e->scx_all = all != 0;
		PEV(e, "/sys/kernel/sched_ext/switch_all: %ld", all);
	}
	/* root/ops names the scheduler (6.12+; 7.3's sub-schedulers sit below root) */
	if (e->scx && uc_read_str("/sys/kernel/sched_ext/root/ops", e->scx_ops,
				  sizeof(e->scx_ops)) > 0) {
		PEV(e, "/sys/kernel/sched_ext/root/ops: %s", e->scx_ops);
		e->scx_row = uc_scx_lookup(e->scx_ops);
	}
}

#define place(e, v, ...) do { \
	(e)->place = (v); \
	uc_note_set((e)->place_reason, sizeof((e)->place_reason), __VA_ARGS__); \
} while (0)

void uc_effect_placement(struct uc_effect *e, int key_asym, int key_eas)
{
	int sym;

	e->nplace_evidence = 0;
	sym = uc_cpu_capacity_symmetric(e->caps, sizeof(e->caps));
	if (sym >= 0)
		PEV(e, "/sys/devices/system/cpu/cpu*/cpu_capacity: %s", e->caps);
	if (key_asym >= 0) {
		e->asymmetric = key_asym > 0;
		PEV(e, "sched_asym_cpucapacity (kernel memory): %s", key_asym ? "on" : "off");
	} else {
		e->asymmetric = sym == 0 ? 1 : sym == 1 ? 0 : -1;
		if (sym < 0)
			PEV(e, "/sys/devices/system/cpu/cpu*/cpu_capacity: absent");
	}
	if (key_eas == UC_EFF_KEY_ABSENT) {
		e->eas = 0;
		PEV(e, "sched_energy_present: not in this kernel (no EAS)");
	} else if (key_eas >= 0) {
		e->eas = key_eas > 0;
		PEV(e, "sched_energy_present (kernel memory): %s", key_eas ? "on" : "off");
	} else {
		e->eas = eas_view(e);
	}
	read_scx(e);
	if (e->scx == 1)
		place(e, UC_PLACE_BPF, "the sched_ext scheduler %s%s runs %s and places them: no "
		      "scx scheduler reads clamps for placement (they still bound the frequency)",
		      e->scx_row ? "scx_" : "", e->scx_row ? e->scx_row->name
		      : e->scx_ops[0] ? e->scx_ops : "(unnamed)",
		      e->scx_all == 1 ? "every task" : "the SCHED_EXT tasks");
	else if (e->asymmetric == 1)
		place(e, UC_PLACE_STEERS, "CPUs differ in capacity: uclamp_min/max decide which "
		      "CPUs a task fits (energy-aware scheduling %s)",
		      e->eas > 0 ? "on" : e->eas == 0 ? "off" : "unknown");
	else if (e->asymmetric == 0)
		place(e, UC_PLACE_NONE,
		      "all CPUs have the same capacity: clamps do not change placement");
	else
		place(e, UC_PLACE_UNKNOWN, "no cpu_capacity files and sched_asym_cpucapacity "
		      "unreadable (needs root): whether clamps steer placement is unknown");
}

/* the placement and invariance keys from kernel memory: 1 on, 0 off, -1
 * unread, UC_EFF_KEY_ABSENT not in this kernel (no EAS; no such arch code);
 * a kernel without the asym key leaves the answer to cpu_capacity */
enum { K_ASYM, K_EAS, K_FREQ_ARCH, K_FREQ_CPUFREQ, NK };
static void read_keys(int v[NK], unsigned int kmem_flags)
{
	struct uc_kmem_key k[NK] = { [K_ASYM] = { .name = UC_KMEM_KEY_ASYM_CPUCAPACITY },
				     [K_EAS] = { .name = UC_KMEM_KEY_ENERGY_PRESENT },
				     [K_FREQ_ARCH] = { .name = UC_KMEM_KEY_FREQ_INVARIANT },
				     [K_FREQ_CPUFREQ] = { .name = UC_KMEM_KEY_CPUFREQ_INVARIANT } };
	struct uc_kmem_info info;	/* zeroed by the reader */

	uc_kmem_read_keys_flags(k, NK, &info, kmem_flags);
	for (int i = 0; i < NK; i++)
		v[i] = k[i].rc == 0 ? k[i].value != 0 : k[i].absent ? UC_EFF_KEY_ABSENT : -1;
	if (v[K_ASYM] == UC_EFF_KEY_ABSENT)
		v[K_ASYM] = -1;
}

void uc_effect_read_flags(struct uc_effect *e, unsigned int flags)
{
	int k[NK];

	memset(e, 0, sizeof(*e));
	uc_kernel_release(e->release, sizeof(e->release));
	e->kver = uc_kernel_version();
	uc_effect_policies(e);
	read_keys(k, flags & UC_EFFECT_NO_WRITE ? UC_KMEM_NO_CACHE_WRITE : 0);
	uc_effect_placement(e, k[K_ASYM], k[K_EAS]);
	uc_effect_invariance(e, k[K_FREQ_ARCH], k[K_FREQ_CPUFREQ]);
	uc_effect_finish(e);
}

static int rank(enum uc_eff_verdict v)
{
	static const int ranks[] = { 1, 3, 2, 0, 0 };	/* by enum uc_eff_verdict */

	return UC_NAME(ranks, v, 0);
}

enum uc_eff_verdict uc_effect_best(const struct uc_effect *e, int clamp)
{
	enum uc_eff_verdict best = e->n ? e->p[0].v[clamp] : UC_EFF_UNKNOWN;

	for (size_t i = 1; i < e->n; i++)
		if (rank(e->p[i].v[clamp]) > rank(best))
			best = e->p[i].v[clamp];
	return best;
}

/* the sched_ext scheduler's row: the weaker of it and the policy's own */
static void finish_scx(const struct uc_effect *e, struct uc_eff_policy *p)
{
	const struct uc_scx_row *r = e->scx_row;

	for (int c = 0; r && c < UC_EFF_NCLAMPS; c++) {
		if (rank(r->v[c]) > rank(p->v[c]) || p->v[c] == UC_EFF_UNKNOWN)
			continue;
		set(p, c, r->v[c], "scx_%s: %s", r->name, r->reason[c]);
		EV(p, "sched_ext scheduler scx_%s: %s", r->name, r->source);
	}
}

/* not invariant: schedutil scales the current frequency (sugov.c) */
static void finish_inv(const struct uc_effect *e, struct uc_eff_policy *p)
{
	size_t len = strlen(p->reason[UC_EFF_MIN]);

	if (e->inv != UC_INV_NO || p->v[UC_EFF_MIN] != UC_EFF_STEERS)
		return;
	uc_note_set(p->reason[UC_EFF_MIN] + len, sizeof(p->reason[0]) - len,
		    "; not frequency-invariant here: schedutil multiplies the current "
		    "frequency by 1.25 x util/capacity, so a uclamp_min at or below %d (80%%) "
		    "cannot raise it",
		    UC_SUGOV_MIN_TIP);
}

void uc_effect_finish(struct uc_effect *e)
{
	for (size_t i = 0; i < e->n; i++) {
		struct uc_eff_policy *p = &e->p[i];

		if (p->id < 0 || strcmp(p->gov, "schedutil"))
			continue;	/* only schedutil reads the target and scales cur */
		if (e->scx == 1)
			finish_scx(e, p);
		finish_inv(e, p);
	}
}
