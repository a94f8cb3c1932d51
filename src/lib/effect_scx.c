/*
 * sched_ext, per scheduler: what each BPF scheduler does to schedutil's input.
 * With one enabled, sugov_get_util() (6.12+) starts from the target it set
 * (scx_bpf_cpuperf_set(), 0..1024), adds the fair class's util unless it runs
 * every task, then applies the rq clamps: uclamp_min raises the target,
 * uclamp_max caps it. So the verdicts follow each scheduler's target, read in
 * the scx sources (2026-08). No scx scheduler reads clamps for placement.
 * scx_rusty's target persists in rq->scx.cpuperf_target after it is removed,
 * but counts only under a later BPF scheduler that sets none of its own.
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
