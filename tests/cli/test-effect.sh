#!/bin/bash
# Does a clamp bite here? 'status' (text, -J, prometheus) for each row of
# the cpufreq matrix and for placement, on fake sysfs trees, and the
# findings of 'check' (text, -J, --strict exit status).
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/cli/lib.sh"

U=$UCLAMPCTL
if ! command -v python3 >/dev/null; then
	echo "python3 is needed to read the JSON"
	exit 77
fi
fake_root
fake_release 7.3.0-rc7-uclamp
fake_sysctls 1024 1024 1024
C=$ROOT/sys/devices/system/cpu
mkdir -p "$C/cpufreq"
# pol N GOVERNOR DRIVER: one cpufreq policy
pol() {
	mkdir -p "$C/cpufreq/policy$1"
	echo "$2" >"$C/cpufreq/policy$1/scaling_governor"
	echo "$3" >"$C/cpufreq/policy$1/scaling_driver"
	echo "$1" >"$C/cpufreq/policy$1/affected_cpus"
}
prom() {	# prom POLICY CLAMP VERDICT VALUE
	has "^uclamp_clamps_effective\\{policy=\"$1\",clamp=\"$2\",verdict=\"$3\"\\} $4\$"
}

# ---- no cpufreq driver (the VMs) ------------------------------------------------
t "status: no cpufreq driver" 0 $U status
has '^frequency +no-cpufreq: no cpufreq driver: frequency unaffected'
has '^capacity +unknown \(no cpu_capacity files'
has '^placement +unknown: '
t "status -J: no cpufreq driver" 0 $U status -J
is "none row" 'j["effect"]["policies"][0]["policy"], j["effect"]["policies"][0]["min"]["verdict"], j["effect"]["policies"][0]["max"]["verdict"]' "None no-cpufreq no-cpufreq"
is "evidence" 'j["effect"]["policies"][0]["evidence"]' "['/sys/devices/system/cpu/cpufreq: no policy directories']"
is "asymmetric null in both places" 'j["cpu_capacity"]["asymmetric"], j["effect"]["placement"]["asymmetric"], j["effect"]["placement"]["verdict"]' "None None unknown"
t "prometheus: no cpufreq driver" 0 $U status --format=prometheus
prom none min no-cpufreq 0
prom none max no-cpufreq 0
has '^uclamp_clamps_placement\{verdict="unknown"\} -1$'
hasnt '^uclamp_cpu_capacity_asymmetric'

# ---- schedutil with a driver that takes a target ---------------------------------
pol 0 schedutil acpi-cpufreq
pol 1 schedutil acpi-cpufreq
t "status: schedutil + acpi-cpufreq" 0 $U status
has '^frequency +policy0-1 schedutil/acpi-cpufreq: min steers, max steers$'
has "^ +schedutil's clamped target is the frequency acpi-cpufreq sets$"
t "prometheus: steers" 0 $U status --format=prometheus
prom policy0 min steers 2
prom policy1 max steers 2
t "status -v: the files read" 0 $U -v status
has '^ +read /sys/devices/system/cpu/cpufreq/policy0/scaling_driver: acpi-cpufreq$'

# ---- intel_cpufreq (intel_pstate passive) with HWP: 7.3 and 7.2 -------------------
rm -rf "$C/cpufreq/policy1"
pol 0 schedutil intel_cpufreq
echo 2400000 >"$C/cpufreq/policy0/base_frequency"
mkdir -p "$C/intel_pstate"
echo passive >"$C/intel_pstate/status"
t "status: intel_cpufreq on 7.3" 0 $U status
has '^frequency +policy0 schedutil/intel_cpufreq passive: min steers, max steers$'
has '^ +max: since 7\.3 schedutil passes uclamp_max as the HWP maximum P-state$'
t "status -J: intel_cpufreq on 7.3" 0 $U status -J
is "intel row" 'j["effect"]["policies"][0]["policy"], j["effect"]["policies"][0]["driver"], j["effect"]["policies"][0]["mode"], j["effect"]["policies"][0]["max"]["verdict"]' "policy0 intel_cpufreq passive steers"
is "evidence names the files" '"/sys/devices/system/cpu/intel_pstate/status: passive" in j["effect"]["policies"][0]["evidence"]' "True"
fake_release 7.2.13-amd64
t "status: intel_cpufreq on 7.2" 0 $U status
has '^frequency +policy0 schedutil/intel_cpufreq passive: min steers, max request-only$'
t "prometheus: request-only" 0 $U status --format=prometheus
prom policy0 max request-only 1
fake_release 7.3.0-rc7-uclamp

# ---- amd-pstate guided: max ignored by the driver ---------------------------------
rm -rf "$C/intel_pstate" "$C/cpufreq/policy0"
pol 0 schedutil amd-pstate
mkdir -p "$C/amd_pstate"
echo guided >"$C/amd_pstate/status"
t "status: amd-pstate guided" 0 $U status
has '^frequency +policy0 schedutil/amd-pstate guided: min steers, max request-only$'
has "^ +max: amd-pstate ignores schedutil's maximum"

# ---- active pstate (EPP): clamps never reach it -----------------------------------
pol 0 powersave amd-pstate-epp
echo active >"$C/amd_pstate/status"
t "status: amd-pstate-epp" 0 $U status
has '^frequency +policy0 powersave/amd-pstate-epp active: min ignored, max ignored$'
has '^ +to change: boot with amd_pstate=passive \(or guided\)'
t "prometheus: ignored" 0 $U status --format=prometheus
prom policy0 min ignored 0
rm -rf "$C/amd_pstate"
pol 0 performance intel_pstate
mkdir -p "$C/intel_pstate"
echo active >"$C/intel_pstate/status"
t "status -J: intel_pstate active" 0 $U status -J
is "fix" 'j["effect"]["policies"][0]["min"]["verdict"], j["effect"]["policies"][0]["fix"]' "ignored boot with intel_pstate=passive (or write passive to /sys/devices/system/cpu/intel_pstate/status), then set scaling_governor to schedutil"

# ---- another governor ------------------------------------------------------------
rm -rf "$C/intel_pstate"
pol 0 ondemand acpi-cpufreq
t "status: ondemand" 0 $U status
has '^frequency +policy0 ondemand/acpi-cpufreq: min ignored, max ignored$'
has '^ +to change: write schedutil to /sys/devices/system/cpu/cpufreq/policy0/scaling_governor$'

# ---- placement ---------------------------------------------------------------------
mkdir -p "$C/cpu0" "$C/cpu1"
echo 446 >"$C/cpu0/cpu_capacity"
echo 1024 >"$C/cpu1/cpu_capacity"
t "status: asymmetric" 0 $U status
has '^placement +steers: CPUs differ in capacity'
has '^capacity +asymmetric: cpu0 446, cpu1 1024$'
t "status -J: asymmetric" 0 $U status -J
is "asymmetric in both places" 'j["cpu_capacity"]["asymmetric"], j["effect"]["placement"]["asymmetric"]' "True True"
echo 1024 >"$C/cpu0/cpu_capacity"
t "status: symmetric" 0 $U status
has '^placement +none: all CPUs have the same capacity'
has '^capacity +symmetric \(cpu0-1 1024\)$'
mkdir -p "$ROOT/sys/kernel/sched_ext"
echo enabled >"$ROOT/sys/kernel/sched_ext/state"
echo 1 >"$ROOT/sys/kernel/sched_ext/switch_all"
t "status: sched_ext, no name" 0 $U status
has '^placement +bpf-scheduler: the sched_ext scheduler \(unnamed\) runs every task and places them: no scx scheduler reads clamps for placement'
t "prometheus: sched_ext" 0 $U status --format=prometheus
has '^uclamp_clamps_placement\{verdict="bpf-scheduler"\} 0$'
# each scheduler's verdicts (scx's Rust ones add their version to the name)
pol 0 schedutil acpi-cpufreq
mkdir -p "$ROOT/sys/kernel/sched_ext/root"
echo bpfland_1.0.16_g0123abc_x86_64_unknown_linux_gnu >"$ROOT/sys/kernel/sched_ext/root/ops"
t "status: scx_bpfland" 0 $U -v status
has '^frequency +policy0 schedutil/acpi-cpufreq: min ignored, max steers$'
has "^ +min: scx_bpfland: scx_bpfland sets every CPU's performance target to the maximum"
has '^ +read sched_ext scheduler scx_bpfland: scx scheds/rust/scx_bpfland: main.rs init_cpufreq_perf'
has '^placement +bpf-scheduler: the sched_ext scheduler scx_bpfland runs every task'
has '^sched_ext +enabled, ops bpfland_1\.0\.16_g0123abc_x86_64_unknown_linux_gnu$'
t "status -J: scx_bpfland" 0 $U status -J
is "scheduler and verdicts" 'j["effect"]["placement"]["scheduler"], j["effect"]["policies"][0]["min"]["verdict"], j["effect"]["policies"][0]["max"]["verdict"]' "bpfland_1.0.16_g0123abc_x86_64_unknown_linux_gnu ignored steers"
echo lavd >"$ROOT/sys/kernel/sched_ext/root/ops"
t "status: scx_lavd" 0 $U status
has '^frequency +policy0 schedutil/acpi-cpufreq: min steers, max steers$'
has "^ +max: scx_lavd: caps the target scx_lavd sets from each CPU's load"
echo rusty_1.0.9 >"$ROOT/sys/kernel/sched_ext/root/ops"
t "status: scx_rusty" 0 $U status
has '^frequency +policy0 schedutil/acpi-cpufreq: min steers, max ignored$'
has '^ +max: scx_rusty: scx_rusty.s fixed target \(--perf\) is 0 by default'
echo mysched >"$ROOT/sys/kernel/sched_ext/root/ops"
t "status: an unknown scheduler: the generic answer" 0 $U status
has '^frequency +policy0 schedutil/acpi-cpufreq: min steers, max steers$'
has "^ +schedutil's clamped target is the frequency acpi-cpufreq sets$"
has '^placement +bpf-scheduler: the sched_ext scheduler mysched runs every task'
pol 0 ondemand acpi-cpufreq
rm -rf "$ROOT/sys/kernel/sched_ext" "$C/cpu0" "$C/cpu1"
# no cpu_capacity files (x86), but the key read from kernel memory answers (hybrid)
python3 "$TESTS_SRCDIR/cli/mkkcore.py" "$ROOT" --key 0 --set sched_asym_cpucapacity=1 || _fail "mkkcore.py"
t "status -J: the asym key, no cpu_capacity" 0 $U -v status -J
is "placement from the key" 'j["effect"]["placement"]["verdict"], j["cpu_capacity"]["asymmetric"], "sched_asym_cpucapacity (kernel memory): on" in j["effect"]["placement"]["evidence"]' "steers True True"

# ---- frequency invariance ----------------------------------------------------------
pol 0 schedutil acpi-cpufreq
t "status: invariance unknown without the architecture" 0 $U status
has '^invariance +unknown: the architecture is unknown'
echo x86_64 >"$ROOT/proc/sys/kernel/arch"
printf 'processor\t: 0\nflags\t\t: fpu tsc constant_tsc hypervisor\n\n' >"$ROOT/proc/cpuinfo"
t "status: x86, the key off in kernel memory" 0 $U -v status
has '^invariance +no: the kernel does not use APERF/MPERF here \(arch_scale_freq_key off\)$'
has '^ +read arch_scale_freq_key \(kernel memory\): off$'
has "^ +min: schedutil's clamped target is the frequency acpi-cpufreq sets; not frequency-invariant here: schedutil multiplies the current frequency by 1\.25 x util/capacity, so a uclamp_min at or below 819 \(80%\) cannot raise it$"
t "status -J: invariance" 0 $U status -J
is "invariance" 'j["effect"]["invariance"]["state"], j["effect"]["policies"][0]["min"]["verdict"]' "no steers"
t "prometheus: invariance" 0 $U status --format=prometheus
has '^uclamp_frequency_invariant 0$'
python3 "$TESTS_SRCDIR/cli/mkkcore.py" "$ROOT" --key 0 --set arch_scale_freq_key=1 || _fail "mkkcore.py"
t "status: the key on" 0 $U -v status
has '^invariance +yes: the kernel scales util by the frequency it measures'
hasnt 'not frequency-invariant here'
rm -f "$ROOT/proc/kcore"
t "status: no kernel memory, no APERF/MPERF (a VM)" 0 $U -v status
has '^invariance +no: the CPU shows no APERF/MPERF counters'
has '^ +read /proc/cpuinfo flags: no aperfmperf$'
printf 'processor\t: 0\nflags\t\t: fpu aperfmperf\n\n' >"$ROOT/proc/cpuinfo"
t "status: APERF/MPERF, no kernel memory: unknown" 0 $U status
has '^invariance +unknown: APERF/MPERF present, but only kernel memory says'
t "prometheus: unknown" 0 $U status --format=prometheus
has '^uclamp_frequency_invariant -1$'
rm -f "$ROOT/proc/sys/kernel/arch" "$ROOT/proc/cpuinfo"
pol 0 ondemand acpi-cpufreq
python3 "$TESTS_SRCDIR/cli/mkkcore.py" "$ROOT" --key 0 --set sched_asym_cpucapacity=1 || _fail "mkkcore.py"

# ---- check: findings ---------------------------------------------------------------
t "check: clamps would not bite (asymmetric): no finding" 0 $U check
hasnt 'clamps-no-effect'
python3 "$TESTS_SRCDIR/cli/mkkcore.py" "$ROOT" --key 0 || _fail "mkkcore.py"	# asym off
t "check: ondemand, symmetric: an info finding" 0 $U check
has '^off \(kcore\): '
has '^info: clamps would not change anything here: governor ondemand chooses the frequency without clamps \(only schedutil reads them\); placement: none \(clamps-no-effect\)$'
has '^  fix: write schedutil to /sys/devices/system/cpu/cpufreq/policy0/scaling_governor$'
t "check --strict: infos do not count" 0 $U check --strict
t "check -q: no findings printed" 0 $U check -q
[ -z "$OUT" ] && _pass "check -q prints nothing" || _fail "check -q printed something"
fake_sysctls 128 1024 1024
python3 "$TESTS_SRCDIR/cli/mkkcore.py" "$ROOT" --key 1 || _fail "mkkcore.py"	# as a write leaves it
mkdir -p "$ROOT/sys/class/power_supply/BAT0"
echo Battery >"$ROOT/sys/class/power_supply/BAT0/type"
t "check: system util_min, battery" 1 $U check
has '^warning: kernel\.sched_util_clamp_min = 128 caps every util_min at 128, RT tasks'"'"' default boost \(1024\) included'
has '^info: a battery-powered machine with kernel\.sched_util_clamp_min_rt_default = 1024'
t "check --strict: a warning" 5 $U check --strict
t "check -q --strict: the same, silently" 5 $U check -q --strict
[ -z "$OUT" ] && _pass "check -q --strict prints nothing" || _fail "check -q --strict printed something"
t "check -J" 1 $U check -J
is "check JSON" 'j["state"], j["source"], [(f["id"], f["level"]) for f in j["findings"]]' "on kcore [('system-min', 'warning'), ('clamps-no-effect', 'info'), ('rt-default-battery', 'info')]"
is "fix in JSON" 'j["findings"][0]["fix"]' "uclampctl system set --min 1024 (or --min max); to lower RT tasks' boost, set --rt-default instead"
t "check --format=json" 1 $U check --format=json
is "the same" 'len(j["findings"])' "3"
t "check --format=xml" 2 $U check --format=xml
# the key on while nothing is clamped: a no-op write turned it on
fake_sysctls 1024 1024 1024
rm -rf "$ROOT/sys/class/power_supply"
t "check: the key on, every clamp at its default" 1 $U check
has '^warning: the uclamp fast path is on, but every thread, cgroup and system clamp is at its default: a write that changed nothing turned it on .*\(key-on-defaults\)$'
has '^  fix: only a reboot turns it off'
t "check --strict: a warning" 5 $U check --strict
python3 "$TESTS_SRCDIR/cli/mkkcore.py" "$ROOT" --key 0 || _fail "mkkcore.py"
t "check: off: no such finding" 0 $U check
hasnt 'key-on-defaults'

finish
