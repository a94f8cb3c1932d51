#!/bin/bash
# End-to-end tests on a real uclamp kernel: one fresh VM boot per scenario
# (sched_uclamp_used is one-way, so each scenario starts with it off).
#
# usage: tests/vm/run.sh [--builddir DIR] [-j N] [SCENARIO...]
#   SCENARIO: a name under tests/vm/scenarios (without .sh); default all.
#   -j N: run N scenarios (VMs) at once (default $UCLAMP_VM_JOBS or 1); the
#   output of each is printed whole when it ends.
# A scenario that exits 77 (skip_scenario: this kernel lacks a feature) is a
# SKIP, or a failure when UCLAMP_VM_NO_SKIP=1.
# Kernel: $UCLAMP_VM_KERNEL, else the project's own (tests/vm/kernel.sh: built
# once from Debian's linux-source-6.1 + tests/vm/kernel.config, then cached).
# In CI (CI=true) a missing prerequisite is a failure, never a skip.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$here/../.." && pwd)
builddir=$src
if [ "${1-}" = --builddir ]; then builddir=$(cd "$2" && pwd); shift 2; fi
jobs=${UCLAMP_VM_JOBS:-1}
if [ "${1-}" = -j ]; then jobs=$2; shift 2; fi
[[ $jobs =~ ^[1-9][0-9]?$ ]] || { echo "vm: -j '$jobs': give a number of VMs from 1 to 99" >&2; exit 2; }
bin=$builddir/uclampctl
# the same CLI with the fake-root seam, for scenarios that mix a fake tree
# with the real kernel ($UCLAMPCTL_TEST; 'uclampctl' itself has no seam)
test_bin=$builddir/tests/uclampctl-test

die() { echo "vm: $*" >&2; exit 1; }
skip_or_die() {
	if [ "${CI-}" = true ]; then die "$* (required in CI)"; fi
	echo "vm: SKIP: $*" >&2
	exit 77
}
[ -x "$bin" ] || die "$bin not built (run make first)"
[ -x "$test_bin" ] || die "$test_bin not built (make check-vm or make tests/uclampctl-test builds it)"
[ "$(id -u)" = 0 ] || skip_or_die "the VM suite needs root (qemu, apt-get, 9p as root)"

kernel=${UCLAMP_VM_KERNEL:-}
if [ -z "$kernel" ]; then
	kernel=$("$here/kernel.sh") || die "no project kernel (tests/vm/kernel.sh failed)"
fi
[ -f "$kernel" ] || skip_or_die "no uclamp kernel at $kernel"
export UCLAMP_VM_KERNEL=$kernel RUN_VM_QUIET_TCG=1

if (($#)); then
	scenarios=()
	for s in "$@"; do scenarios+=("$here/scenarios/${s%.sh}.sh"); done
else
	scenarios=("$here"/scenarios/*.sh)
fi
# one scenario in its VM, its whole output into $2 (printed when it ends, so
# that parallel scenarios do not interleave), its verdict into $2.rc
run_one() {
	local s=$1 log=$2 name append tmo rc t0 pstates
	name=$(basename "$s" .sh)
	t0=$(date +%s)
	{
		echo "=== vm: $name"
		# a scenario may ask for kernel arguments (e.g. another cgroup layout,
		# see guest-init.sh) with a line "# vm-append: ARGS"
		append=$(sed -n 's/^# vm-append: *//p' "$s" | head -n 1)
		# a scenario about frequencies asks for P-states: "# vm-cpufreq: WHAT"
		# (run-vm.sh -p: acpi-cpufreq with schedutil on every vCPU)
		pstates=$(grep -q '^# vm-cpufreq: ' "$s" && echo -p)
		# a slow scenario may ask for more time: "# vm-timeout: SECONDS"
		# (stretched by UCLAMP_VM_TIMEOUT_SCALE on a loaded machine)
		tmo=$(sed -n 's/^# vm-timeout: *\([0-9][0-9]*\).*/\1/p' "$s" | head -n 1)
		tmo=$(( ${tmo:-240} * ${UCLAMP_VM_TIMEOUT_SCALE:-1} ))
		"$here/run-vm.sh" $pstates -t "$tmo" -d "$builddir" -s "$src" -e "UCLAMPCTL=$bin" -e "UCLAMPCTL_TEST=$test_bin" ${append:+-a "$append"} "${pkg_args[@]}" -- bash "$s" 2>&1
		rc=$?
		# 125: the VM died without reporting a status (TCG with a thread per
		# vCPU panicked on int3 while the kernel patched in the static key:
		# run-vm.sh now runs the vCPUs on one thread); a test failure is
		# never 125, so one retry hides no real failure
		if [ "$rc" = 125 ]; then
			echo "vm: $name: the VM died (exit 125); retrying once on a fresh boot"
			"$here/run-vm.sh" $pstates -t "$tmo" -d "$builddir" -s "$src" -e "UCLAMPCTL=$bin" -e "UCLAMPCTL_TEST=$test_bin" ${append:+-a "$append"} "${pkg_args[@]}" -- bash "$s" 2>&1
			rc=$?
		fi
		if [ "$rc" = 0 ]; then
			echo "PASS: $name ($(($(date +%s) - t0))s)"
		elif [ "$rc" = 77 ] && [ "${UCLAMP_VM_NO_SKIP-}" != 1 ]; then
			echo "SKIP: $name ($(($(date +%s) - t0))s)"
		else
			echo "FAIL: $name (exit $rc, $(($(date +%s) - t0))s)"
		fi
		echo "$rc" >"$log.rc"
	} >"$log" 2>&1
	flock "$logs/.print" cat "$log"	# whole, one scenario at a time
}

for s in "${scenarios[@]}"; do [ -f "$s" ] || die "no scenario $s"; done
# UCLAMP_VM_DEB, UCLAMP_VM_RPM: built packages for pkg-systemd (their
# directories are shared: the guest's /tmp and /var/tmp are its own)
pkg_args=()
for v in UCLAMP_VM_DEB UCLAMP_VM_RPM; do
	f=${!v-}
	[ -n "$f" ] || continue
	[ -f "$f" ] || die "$v=$f: no such file"
	f=$(cd "$(dirname "$f")" && pwd)/$(basename "$f")
	pkg_args+=(-s "$(dirname "$f")" -e "$v=$f")
done
logs=$(mktemp -d "${TMPDIR:-/tmp}/vm-suite.XXXXXX") || die "mktemp"
trap 'rm -rf "$logs"' EXIT
# The C helpers (helpers/*.c), built once here for every scenario rather than
# by gcc in each guest (4 s a file under TCG); shared with the guests, which
# take them with lib.sh's 'helper' (gcc there only without this directory)
helpers=$logs/helpers
mkdir "$helpers" || die "mkdir $helpers"
for c in "$here"/helpers/*.c; do
	n=$(basename "$c" .c)
	[ "$n" = stopat ] && n=stopat.so	# an LD_PRELOAD
	sh "$here/build-helper.sh" "$n" "$helpers/$n" ||
		die "gcc $c (the VM helpers are built on this host: install build-essential)"
done
pkg_args+=(-s "$helpers" -e "UCLAMP_VM_HELPERS=$helpers")
# -j N: N VMs at once (each is one qemu process; on 2 host cores two VMs
# overlap one's boot and idle waits with the other's work)
running=0 i=0
for s in "${scenarios[@]}"; do
	if ((running >= jobs)); then wait -n; running=$((running - 1)); fi
	run_one "$s" "$logs/$i.$(basename "$s" .sh)" &
	running=$((running + 1)) i=$((i + 1))
done
wait
pass=0 fail=0 skip=0 failed=() skipped=()
i=0
for s in "${scenarios[@]}"; do
	name=$(basename "$s" .sh)
	log=$logs/$i.$name
	i=$((i + 1))
	rc=$(cat "$log.rc" 2>/dev/null || echo 125)
	if [ "$rc" = 0 ]; then
		pass=$((pass + 1))
	elif [ "$rc" = 77 ] && [ "${UCLAMP_VM_NO_SKIP-}" != 1 ]; then
		skip=$((skip + 1)); skipped+=("$name")
	else
		fail=$((fail + 1)); failed+=("$name")
	fi
done
echo "vm: failed: ${failed[*]:-none}"
((skip)) && echo "vm: skipped (this kernel lacks what they need): ${skipped[*]}"
echo "$pass passed, $fail failed"
((fail == 0))
