/*
 * Is the kernel frequency-invariant here (arch_scale_freq_invariant(), 6.1 and
 * 7.3-rc7)? Only x86, arm, arm64 (riscv later) have arch_scale_freq_capacity.
 * x86 (aperfmperf.c, 5.7+): the key arch_scale_freq_key, enabled only with
 * APERF/MPERF ("aperfmperf" in /proc/cpuinfo) and a known maximum ratio
 * (Intel turbo ratio MSRs; AMD: ACPI CPPC), disabled again on overflow; VMs
 * usually hide APERF/MPERF; 64-bit SMP only. arm, arm64 (arch_topology.c,
 * 5.10+): the key cpufreq_freq_invariance, on when a driver without
 * ->setpolicy registers (arm's all do), or AMU counters on every CPU (seen only
 * as cpuinfo_avg_freq, 6.13+); before 5.10 always true there. The keys are in
 * kernel memory (root); else "unknown" where the files cannot decide.
 */
#include <string.h>

#include "uclamp/effect.h"
#include "uclamp/note.h"
#include "uclamp/sysroot.h"

#define IEV(e, ...) UC_NOTE_ADD((e)->inv_evidence, (e)->ninv_evidence, __VA_ARGS__)

const char *uc_inv_name(enum uc_inv v)
{
	return v == UC_INV_YES ? "yes" : v == UC_INV_NO ? "no" : "unknown";
}

static void set(struct uc_effect *e, enum uc_inv v, const char *why)
{
	e->inv = v;
	uc_note_set(e->inv_reason, sizeof(e->inv_reason), "%s", why);
}

/* the x86 flags of the first CPU: 1 aperfmperf listed, 0 not, -1 no flags */
static int cpuinfo_aperfmperf(void)
{
	char buf[16384], *flags, *eol;

	/* the first CPU's block is ~2 KiB */
	if (uc_read_head("/proc/cpuinfo", buf, sizeof(buf)) <= 0)
		return -1;
	flags = strstr(buf, "\nflags\t");
	if (!flags || !(eol = strchr(flags + 1, '\n')))
		return -1;
	*eol = '\0';
	return strstr(flags, " aperfmperf ") ||
	       (eol - flags > 11 && !strcmp(eol - 11, " aperfmperf"));
}

static bool have_avg_freq(const struct uc_effect *e)
{
	for (size_t i = 0; i < e->n; i++)
		if (e->p[i].id >= 0 && e->p[i].f.avg >= 0)
			return true;
	return false;
}

static void x86(struct uc_effect *e, int key)
{
	int apm;

	if (key == 0 || key == 1) {
		IEV(e, "arch_scale_freq_key (kernel memory): %s", key ? "on" : "off");
		set(e, key ? UC_INV_YES : UC_INV_NO,
		    key ? "the kernel scales util by the frequency it measures (APERF/MPERF)"
			: "the kernel does not use APERF/MPERF here (arch_scale_freq_key off)");
		return;
	}
	if (e->kver && e->kver < UC_KVER(5, 7, 0)) {
		set(e, UC_INV_NO, "x86 kernels older than 5.7 are never frequency-invariant");
		return;
	}
	apm = cpuinfo_aperfmperf();
	IEV(e, "/proc/cpuinfo flags: %s", apm > 0 ? "aperfmperf" : apm == 0 ? "no aperfmperf"
					  : "unreadable");
	if (apm == 0)
		set(e, UC_INV_NO, "the CPU shows no APERF/MPERF counters (a virtual machine "
				  "hides them): the kernel cannot measure the frequency");
	else if (key == UC_EFF_KEY_ABSENT)
		set(e, UC_INV_NO, "this kernel has no arch_scale_freq_key (32-bit or no SMP)");
	else if (apm > 0)
		set(e, UC_INV_UNKNOWN,
		    "APERF/MPERF present, but only kernel memory says whether the kernel uses "
		    "them (it needs a known turbo ratio and drops them on overflow): run as root");
	else
		set(e, UC_INV_UNKNOWN, "/proc/cpuinfo unreadable and arch_scale_freq_key unread");
}

static void arm(struct uc_effect *e, int key)
{
	if (key == 1) {
		IEV(e, "cpufreq_freq_invariance (kernel memory): on");
		set(e, UC_INV_YES, "the cpufreq driver reports each frequency it sets "
				   "(arch_set_freq_scale)");
		return;
	}
	if (key == 0)
		IEV(e, "cpufreq_freq_invariance (kernel memory): off");
	if (e->kver && e->kver < UC_KVER(5, 10, 0)) {
		set(e, UC_INV_YES, "arm kernels before 5.10 are always frequency-invariant");
	} else if (have_avg_freq(e)) {
		IEV(e, "cpuinfo_avg_freq: present (activity monitors)");
		set(e, UC_INV_YES, "the CPUs count cycles (AMU, shown by cpuinfo_avg_freq)");
	} else if (key != 0 && e->n && e->p[0].id >= 0 && e->p[0].driver[0]) {
		set(e, UC_INV_YES, "a cpufreq driver with a target is registered: it reports "
				   "each frequency it sets (arch_set_freq_scale)");
	} else {
		set(e, UC_INV_UNKNOWN, "no cpufreq driver reports frequencies; activity monitors "
				       "(AMU), if any, show only in kernel messages");
	}
}

void uc_effect_invariance(struct uc_effect *e, int key_arch, int key_cpufreq)
{
	const char *a = e->arch;

	e->ninv_evidence = 0;
	uc_read_str("/proc/sys/kernel/arch", e->arch, sizeof(e->arch));
	IEV(e, "/proc/sys/kernel/arch: %s", a[0] ? a : "unreadable (older than 6.1)");
	if (!a[0] && cpuinfo_aperfmperf() >= 0)
		x86(e, key_arch);	/* only x86 lists "flags" */
	else if (!strcmp(a, "x86_64") || (a[0] == 'i' && !strcmp(a + 2, "86")))
		x86(e, key_arch);
	else if (!strcmp(a, "aarch64") || !strncmp(a, "arm", 3))
		arm(e, key_cpufreq);
	else if (!strncmp(a, "ppc", 3) || !strcmp(a, "s390x"))
		set(e, UC_INV_NO, "this architecture has no frequency invariance "
				  "(no arch_scale_freq_capacity)");
	else if (a[0])
		set(e, UC_INV_UNKNOWN, "not known for this architecture");
	else
		set(e, UC_INV_UNKNOWN, "the architecture is unknown (no /proc/sys/kernel/arch)");
}
