#!/bin/bash
# The table of observed clamp steps in bench/README.md: the cpufreq scenarios
# (tests/vm/scenarios/cpufreq-{max,min,gov}.sh: a busy loop under uclamp_max,
# a light periodic task under uclamp_min, governors that ignore clamps) on
# each kernel, their "cpufreq-step:" lines as one markdown table: kernel,
# load, clamp, the P-state held longest and its share of the 3 s window.
#
# usage (as root, from the build directory): bench/cpufreq-steps.sh [KERNEL...]
#   KERNEL: a bzImage with ACPI P-state cpufreq; default the project's own
#   (tests/vm/kernel.sh) and $UCLAMP_VM_KERNEL_7, else
#   ../shared/vm/kernels/7.3-rc7-cpufreq/bzImage (as .ci/run).
# Other helpers' VM runs wait for ours: run.sh under /var/tmp/uclamp-vm.lock.
set -euo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if (($# == 0)); then
	set -- "$("$src/tests/vm/kernel.sh")" \
		"${UCLAMP_VM_KERNEL_7:-$src/../shared/vm/kernels/7.3-rc7-cpufreq/bzImage}"
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for k in "$@"; do
	UCLAMP_VM_KERNEL=$k flock /var/tmp/uclamp-vm.lock "$src/tests/vm/run.sh" --builddir "$PWD" \
		cpufreq-max cpufreq-min cpufreq-gov >>"$log" 2>&1 ||
		{ tail -n 40 "$log" >&2; echo "cpufreq-steps: a scenario failed on $k" >&2; exit 1; }
done
echo "| kernel | load | clamp | P-state held (MHz) | share of the window |"
echo "|---|---|---|---|---|"
sed -n 's/^cpufreq-step: \(.*\)$/| \1 |/p' "$log"
