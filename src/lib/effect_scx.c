/*
 * sched_ext, per scheduler (see effect.h): what each BPF scheduler does
 * to schedutil's input. With a BPF scheduler enabled, sugov_get_util()
 * (6.12+, 7.3-rc7) starts from scx_cpuperf_target(), the target the
 * scheduler set with scx_bpf_cpuperf_set() (0..1024), adds the fair
 * class's util unless every task is the scheduler's (switch_all), and then
 * applies the rq clamps as for any util: uclamp_min raises the target,
 * uclamp_max caps it. So a clamp's effect depends on the target each
 * scheduler sets, read in the scx sources (sched-ext/scx, 2026-08).
 * Placement: no scx scheduler reads a task's clamps (no "uclamp" in
 * scheds/ outside the generated vmlinux headers), whatever the verdicts.
 * scx_rusty's comment says its target "persists even after removing the
 * scheduler": it stays in rq->scx.cpuperf_target, but scx_cpuperf_target()
 * returns 0 while no BPF scheduler is enabled, so it acts only again under
 * a later BPF scheduler that sets none of its own; not on the fair class.
 */
#include <string.h>

#include "uclamp/effect.h"

static const struct uc_scx_row rows[] = {
	{ "bpfland", { UC_EFF_IGNORED, UC_EFF_STEERS },
	  { "scx_bpfland sets every CPU's performance target to the maximum (unless started "
	    "with --cpufreq or the powersave domain): uclamp_min cannot raise it further",
	    "caps the maximum target scx_bpfland sets: the only lever on the frequency there" },
	  "scx scheds/rust/scx_bpfland: main.rs init_cpufreq_perf() (1024 unless --cpufreq or "
	  "powersave), main.bpf.c init_cpuperf_target()" },
	{ "lavd", { UC_EFF_STEERS, UC_EFF_STEERS },
	  { "raises the target scx_lavd sets from each CPU's load",
	    "caps the target scx_lavd sets from each CPU's load (100% above 85% load)" },
	  "scx scheds/rust/scx_lavd/src/bpf/power.bpf.c update_cpuperf_target()" },
	{ "rusty", { UC_EFF_STEERS, UC_EFF_IGNORED },
	  { "raises the fixed target scx_rusty sets at start (--perf, default 0: the lowest)",
	    "scx_rusty's fixed target (--perf) is 0 by default: uclamp_max has nothing to "
	    "lower (it caps a higher --perf)" },
	  "scx scheds/rust/scx_rusty: main.rs --perf (default 0), main.bpf.c "
	  "scx_bpf_cpuperf_set(cpu, rusty_perf_mode) for every CPU at init" },
};

const struct uc_scx_row *uc_scx_lookup(const char *ops)
{
	/* the scx Rust schedulers name their ops "<name>_<version>_<git>_<target>" */
	for (size_t i = 0; ops && i < sizeof(rows) / sizeof(rows[0]); i++) {
		size_t n = strlen(rows[i].name);

		if (!strncmp(ops, rows[i].name, n) && (!ops[n] || ops[n] == '_'))
			return &rows[i];
	}
	return NULL;
}
