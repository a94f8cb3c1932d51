#!/bin/bash
# uclampctl status | check | keys against a fake root: crafted proc/kallsyms
# and proc/kcore (tests/cli/mkkcore.py) for each state of sched_uclamp_used.
# The host kernel has no uclamp: the support probe says EOPNOTSUPP, so the
# fake sysctls are what makes the fake kernel a uclamp kernel. The fake /proc
# has no processes, and cgroups come from the host (no uclamp files there).
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/cli/lib.sh"

U=$UCLAMPCTL
MK="${TESTS_SRCDIR:-$(dirname "$0")/..}/cli/mkkcore.py"
if ! command -v python3 >/dev/null; then
	echo "python3 is needed to craft the kcore image"
	exit 77
fi
fake_root
K=$ROOT/proc/sys/kernel
# The host kernel shows through in two places: the support probe and the
# cgroups (libcgroup reads the real mount table). Without uclamp (the usual
# build host) the probe says EOPNOTSUPP and no cgroup has clamp files; on a
# uclamp host ('make check' inside the test VM) the "unsupported" checks
# cannot hold and are skipped, and its cgroups must be unclamped.
host_uclamp=false
[ -e /proc/sys/kernel/sched_util_clamp_min ] && host_uclamp=true
mk() { python3 "$MK" "$ROOT" "$@" || _fail "mkkcore.py $*"; }
prom_state() {	# prom_state STATE SOURCE VALUE: the fast path's gauge in 'status --format=prometheus'
	t "prometheus: $1 ($2)" 0 $U status --format=prometheus
	has "^uclamp_fast_path_state\\{state=\"$1\",source=\"$2\"\\} $3\$"
}
# the sched_uclamp_used row of 'keys -r -n -o KEY,STATE'
keys_state() { "$U" keys -r -n -o KEY,STATE 2>/dev/null | awk '$1 == "sched_uclamp_used" { print $2 }'; }
consistent() {	# check and keys agree with "$1"
	local k
	k=$(keys_state)
	if [ "$k" = "$1" ]; then _pass "keys shows sched_uclamp_used $1"; else FAIL=$((FAIL + 1)); echo "not ok - keys shows '$k', check says $1"; fi
}

fake_release 6.1.0-test
fake_sysctls 1024 1024 1024
echo 0 >"$K/kptr_restrict"
echo 2 >"$K/perf_event_paranoid"

# ---- off: the key read through kallsyms + kcore ------------------------------
mk --key 0
t "check: off" 0 $U check
has '^off \(kcore\): sched_uclamp_used = 0, read from /proc/kcore at its /proc/kallsyms address 0xffffffff89d46710$'
t "check -q: off, silent" 0 $U check -q
[ -z "$OUT" ] && _pass "check -q prints nothing" || _fail "check -q printed something"
t "global -q check" 0 $U -q check
[ -z "$OUT" ] && _pass "uclampctl -q check prints nothing" || _fail "uclampctl -q check printed something"
consistent off
t "status: off" 0 $U status
has '^fast path +off \(source: kcore\)$'
has '^kernel +6\.1\.0-test$'
has '^uclamp +tasks yes, cgroups (yes|no|unknown), static key sched_uclamp_used present$'
has '^system +util_min 1024, util_max 1024, util_min_rt_default 1024$'
has '^clamped +0 of 0 threads'
has '^advice +'
t "status -J: off" 0 $U status -J
is "off" 'j["fast_path"]["state"], j["fast_path"]["source"], j["fast_path"]["value"]' "off kcore 0"
is "off" 'j["fast_path"]["address"]' "0xffffffff89d46710"
is "keys" 'sorted(j.keys())' "['advice', 'cgroup', 'clamped', 'cpu_capacity', 'effect', 'fast_path', 'governors', 'kernel', 'lockdown', 'sched_ext', 'system']"
is "kernel keys" 'sorted(j["kernel"].keys())' "['release', 'static_key', 'uclamp_task', 'uclamp_task_group']"
is "kernel" 'j["kernel"]["release"], j["kernel"]["uclamp_task"], j["kernel"]["static_key"]' "6.1.0-test True True"
is "fast_path keys" 'all(k in j["fast_path"] for k in ("state", "source", "evidence"))' "True"
is "evidence" 'j["fast_path"]["evidence"]' "[]"
is "system" 'j["system"]' "{'util_min': 1024, 'util_max': 1024, 'util_min_rt_default': 1024}"
is "cgroup" 'sorted(j["cgroup"].keys()), type(j["cgroup"]["mounts"]).__name__' "['hybrid', 'mounts', 'version'] list"
is "governors" 'type(j["governors"]).__name__' "dict"
is "counts" 'j["clamped"]["threads"], j["clamped"]["threads_nondefault"], j["clamped"]["scanned"]' "0 0 True"
t "status --format=json is -J" 0 $U status --format=json
is "format json" 'j["fast_path"]["state"]' "off"
prom_state off kcore 0
has '^# TYPE uclamp_fast_path_state gauge$'
has '^# HELP uclamp_fast_path_state '
has '^uclamp_system_clamp\{sysctl="sched_util_clamp_min"\} 1024$'
has '^uclamp_system_clamp\{sysctl="sched_util_clamp_min_rt_default"\} 1024$'
has '^uclamp_threads_nondefault 0$'
has '^uclamp_cgroups_nondefault [0-9]+$'
has '^uclamp_supported\{part="task"\} 1$'
# every line is a comment or "name{labels} number", and every metric has HELP and TYPE
bad=$(printf '%s\n' "$OUT" | grep -Ev '^# (HELP|TYPE) [a-z_]+ .+$|^[a-z_]+(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? -?[0-9]+$')
[ -z "$bad" ] && _pass "prometheus: every line well-formed" || _fail "prometheus: bad lines: $bad"
for m in $(printf '%s\n' "$OUT" | grep -v '^#' | sed -E 's/[{ ].*//' | sort -u); do
	if printf '%s\n' "$OUT" | grep -q "^# HELP $m " && printf '%s\n' "$OUT" | grep -q "^# TYPE $m gauge$"; then
		_pass "prometheus: $m has HELP and TYPE"
	else
		_fail "prometheus: $m lacks HELP or TYPE"
	fi
done

# ---- on: 1, and -1 (being enabled right now) --------------------------------
mk --key 1
t "check: on" 1 $U check
has '^on \(kcore\): sched_uclamp_used = 1,'
consistent on
prom_state on kcore 1
mk --key -1
t "check: -1 is on" 1 $U check
has '^on \(kcore\): sched_uclamp_used = -1'

# ---- unknown: no symbol (no KALLSYMS_ALL), default sysctls, no System.map -----
mk --no-data
t "check: unknown" 3 $U check
has '^unknown: the key could not be read and there is no evidence'
t "check -v says why" 3 $U check -v
has 'unavailable: .*CONFIG_KALLSYMS_ALL'
has 'unavailable: no /boot/System.map-6\.1\.0-test'
consistent unknown
t "status: unknown" 0 $U status
has '^fast path +unknown$'
has 'uclampctl status -v'
t "status -v lists why" 0 $U status -v
has '^unavailable +.*CONFIG_KALLSYMS_ALL'
t "status -J: unknown" 0 $U status -J
is "unknown" 'j["fast_path"]["state"], j["fast_path"]["source"], j["fast_path"]["value"]' "unknown None None"
is "unknown reasons" 'any("KALLSYMS_ALL" in u for u in j["fast_path"]["unavailable"])' "True"
prom_state unknown none -1

# kptr_restrict: names listed, addresses zero
mk --zeroed
echo 1 >"$K/kptr_restrict"
t "check: zeroed addresses" 3 $U check -v
has 'kptr_restrict=1 hides kernel addresses'
echo 0 >"$K/kptr_restrict"
# no kcore (CONFIG_PROC_KCORE off)
mk --no-kcore
t "check: no kcore" 3 $U check -v
has 'no /proc/kcore \(kernel built without CONFIG_PROC_KCORE\)'
# a kcore that is not an ELF core
echo "garbage" >"$ROOT/proc/kcore"
t "check: garbage kcore" 3 $U check -v
has 'not an ELF file'

# ---- evidence: a sysctl changed --------------------------------------------
fake_sysctls 512 1024 1024
t "check: evidence" 1 $U check
has '^on \(evidence\): evidence of use: sysctl sched_util_clamp_min = 512 \(default 1024\)$'
consistent on
t "status -J: evidence" 0 $U status -J
is "evidence" 'j["fast_path"]["state"], j["fast_path"]["source"]' "on evidence"
is "evidence list" 'j["fast_path"]["evidence"]' "['sysctl sched_util_clamp_min = 512 (default 1024)']"
is "system" 'j["system"]["util_min"]' "512"
prom_state on evidence 1
has '^uclamp_system_clamp\{sysctl="sched_util_clamp_min"\} 512$'
fake_sysctls 1024 1024 0
t "check: rt_default evidence" 1 $U check
has 'sched_util_clamp_min_rt_default = 0'
# keys shows every knob of the table, in its order
t "keys: the sysctls' view" 0 $U keys -J -o KEY,VIEW
is "keys view" '[k["view"] for k in j["keys"] if k["key"] == "sched_uclamp_used"]' "['sysctls 1024/1024/0']"
fake_sysctls 1024 1024 1024

# ---- System.map + KASLR ---------------------------------------------------------
mk --no-data --map 6.1.0-test --key 1
t "check: System.map" 1 $U check
has '^on \(system-map\): sched_uclamp_used = 1, read from /proc/kcore at 0xffffffff89d46710 \(/boot/System.map-6\.1\.0-test \+ KASLR offset\)$'
consistent on
mk --no-data --map 6.1.0-test --key 0
t "check: System.map, off" 0 $U check
has '^off \(system-map\)'
mk --no-data --map 6.1.0-test --map-skew 0x1000 --key 1
t "check: a System.map of another build is refused" 3 $U check -v
has 'does not match the running kernel'
# Debian sid: the map beside the modules, and /boot's may be a placeholder
mk --no-data --map 6.1.0-test --key 1
mkdir -p "$ROOT/usr/lib/modules/6.1.0-test"
mv "$ROOT/boot/System.map-6.1.0-test" "$ROOT/usr/lib/modules/6.1.0-test/System.map"
t "check: System.map under /usr/lib/modules" 1 $U check
has '^on \(system-map\): .*\(/usr/lib/modules/6\.1\.0-test/System\.map \+ KASLR offset\)$'
echo "ffffffffffffffff B The real System.map is in the linux-image-6.1.0-test-dbg package" \
	>"$ROOT/boot/System.map-6.1.0-test"
t "check -v: a placeholder in /boot is refused, the modules' map used" 1 $U check -v
has '^on \(system-map\): .*/usr/lib/modules/6\.1\.0-test/System\.map'
has 'unavailable: /boot/System\.map-6\.1\.0-test: cannot check it against the running kernel \(no _text: a placeholder\?\)'
mk --no-data --map 6.1.0-test --map-skew 0x1000 --key 1
mv "$ROOT/boot/System.map-6.1.0-test" "$ROOT/usr/lib/modules/6.1.0-test/System.map"
t "check -v: another build's map under /usr/lib/modules is refused" 3 $U check -v
has '/usr/lib/modules/6\.1\.0-test/System\.map does not match the running kernel'
rm -rf "$ROOT"/boot/System.map-* "$ROOT/usr/lib/modules"

# ---- always-on: uclamp before the key -----------------------------------------
mk --no-symbol
fake_release 5.4.30
fake_sysctls 1024 1024 ""
t "check: 5.4.30 without the symbol" 1 $U check
has '^always-on \(kernel-version\): '
consistent always-on
t "status -J: always-on" 0 $U status -J
is "always-on" 'j["fast_path"]["state"], j["fast_path"]["source"], j["kernel"]["static_key"]' "always-on kernel-version False"
is "no rt_default before 5.9" 'j["system"]["util_min_rt_default"]' "None"
prom_state always-on kernel-version 2
hasnt 'sched_util_clamp_min_rt_default'
fake_release 6.1.0-test
t "check: 6.1 without the symbol stays unknown" 3 $U check -v
has 'should have it'
fake_sysctls 1024 1024 1024

# ---- unsupported: no sysctls, and the host's probe says EOPNOTSUPP -----------
mk --key 0
rm -f "$K"/sched_util_clamp_*
if $host_uclamp; then
	echo "# the host has uclamp: skipping the 'unsupported' checks"
else
	t "check: unsupported" 4 $U check
	has '^unsupported \(probe\): this kernel has no uclamp: '
	consistent unsupported
	t "status: unsupported" 0 $U status
	has '^fast path +unsupported \(source: probe\)$'
	has '^uclamp +tasks no, cgroups no, static key sched_uclamp_used absent$'
	has '^advice +this kernel has no uclamp'
	t "status -J: unsupported" 0 $U status -J
	is "unsupported" 'j["fast_path"]["state"], j["fast_path"]["source"], j["kernel"]["uclamp_task"], j["kernel"]["uclamp_task_group"]' "unsupported probe False False"
	is "unsupported system" 'j["system"]["util_min"]' "None"
	prom_state unsupported probe -2
fi
fake_sysctls 1024 1024 1024

# ---- what uclamp can affect here -----------------------------------------------
C=$ROOT/sys/devices/system/cpu
mkdir -p "$C/cpufreq/policy0" "$C/cpufreq/policy2" "$C/cpufreq/policy4" "$C/cpu0" "$C/cpu1" "$C/cpu2" "$C/cpu3" \
	"$C/smt" "$ROOT/sys/kernel/sched_ext/root" "$ROOT/sys/kernel/security"
echo schedutil >"$C/cpufreq/policy0/scaling_governor"
echo schedutil >"$C/cpufreq/policy2/scaling_governor"
echo performance >"$C/cpufreq/policy4/scaling_governor"
echo 446 >"$C/cpu0/cpu_capacity"
echo 446 >"$C/cpu1/cpu_capacity"
echo 1024 >"$C/cpu2/cpu_capacity"
echo 1024 >"$C/cpu3/cpu_capacity"
echo 1 >"$C/smt/active"
echo disabled >"$ROOT/sys/kernel/sched_ext/state"
echo "none integrity [confidentiality]" >"$ROOT/sys/kernel/security/lockdown"
mk --key 0 --set sched_asym_cpucapacity=1	# the kernel agrees with cpu_capacity
t "status: governors, capacities, sched_ext, lockdown" 0 $U status
has '^cpufreq +policy0 schedutil, policy2 schedutil, policy4 performance$'
has 'clamps act on frequency only under schedutil \(2 of 3 policies\)'
has '^capacity +asymmetric: cpu0-1 446, cpu2-3 1024'
has '^sched_ext +disabled$'
has '^lockdown +confidentiality$'
t "status -J: the same" 0 $U status -J
is "governors" 'j["governors"]' "{'policy0': 'schedutil', 'policy2': 'schedutil', 'policy4': 'performance'}"
is "capacity" 'j["cpu_capacity"]["asymmetric"], j["cpu_capacity"]["capacities"]' "True cpu0-1 446, cpu2-3 1024"
is "sched_ext" 'j["sched_ext"]["state"], j["lockdown"]' "disabled confidentiality"
t "prometheus: governors" 0 $U status --format=prometheus
has '^uclamp_cpufreq_policies\{governor="schedutil"\} 2$'
has '^uclamp_cpufreq_policies\{governor="performance"\} 1$'
has '^uclamp_cpu_capacity_asymmetric 1$'
echo enabled >"$ROOT/sys/kernel/sched_ext/state"
echo scx_rusty >"$ROOT/sys/kernel/sched_ext/root/ops"
t "status: sched_ext loaded" 0 $U status
has '^sched_ext +enabled, ops scx_rusty$'
has '^advice +a sched_ext scheduler is loaded'
echo disabled >"$ROOT/sys/kernel/sched_ext/state"
for p in 0 2 4; do echo performance >"$C/cpufreq/policy$p/scaling_governor"; done
t "status: no schedutil" 0 $U status
has '^advice +no CPU uses the schedutil governor: clamps will not change CPU frequency \(only task placement\)$'
for p in 0 2 4; do echo schedutil >"$C/cpufreq/policy$p/scaling_governor"; done
t "status: off with schedutil" 0 $U status
has '^advice +the fast path is off: the first clamp write turns it on until reboot'
has 'asks first\); wakeups then cost \+3-6% instructions \(measured in an emulator; see uclampctl\(8\)\)$'
t "status -J: off with schedutil" 0 $U status -J
is "advice cites the measurement" 'j["advice"].endswith("; see uclampctl(8))"), "measured in an emulator" in j["advice"]' "True True"

# JSON escaping: a release string with quotes, a backslash and a control byte
printf '6.1.0-"odd\\\001\n' >"$K/osrelease"
t "status -J: escaping" 0 $U status -J
is "escaped release" 'repr(j["kernel"]["release"])' "'6.1.0-\"odd\\\\\\x01'"
fake_release 6.1.0-test

# ---- keys ------------------------------------------------------------------------
mk --key 1 --set sched_smt_present=2 --set psi_disabled=0 --set __cfs_bandwidth_used=3
t "keys" 0 $U keys
has '^sched_uclamp_used +on +kcore '
has '^sched_smt_present +on +kcore '
has '^psi_disabled +off +kcore '
has '^__cfs_bandwidth_used +on +kcore '
hasnt 'shared_processor'
t "keys -J" 0 $U keys -J -o KEY,STATE,COUNT,HOW,VIEW
is "keys json" '[(k["key"], k["state"], k["count"]) for k in j["keys"]][:2]' "[('sched_uclamp_used', 'on', 1), ('sched_smt_present', 'on', 2)]"
is "smt view" '[k["view"] for k in j["keys"] if k["key"] == "sched_smt_present"][0]' "/sys/devices/system/cpu/smt/active = 1"
is "all keys" '[k["key"] for k in j["keys"]]' "['sched_uclamp_used', 'sched_smt_present', 'sched_schedstats', 'sched_numa_balancing', '__cfs_bandwidth_used', 'sched_energy_present', 'sched_asym_cpucapacity', '__sched_core_enabled', 'psi_disabled', '__scx_enabled', '__scx_switched_all', '__scx_has_subs', '__sched_proxy_exec', 'rt_group_sched', 'sched_cache_present', 'sched_cache_active', 'sched_clock_irqtime', 'sched_cluster_active']"
# row KEY: "state|how" of that key in $OUT (keys -J)
row() { py "[k['state'] + '|' + k['how'] for k in j['keys'] if k['key'] == '$1'][0]"; }
isrow() {
	local got
	got=$(row "$1")
	if [ "$got" = "$2" ]; then _pass "keys: $1 = $2"; else FAIL=$((FAIL + 1)); echo "not ok - keys: $1 = '$got', expected '$2'"; fi
}
# a full symbol list without a key: absent, not an error
is "7.x keys absent from a 6.1 list" '[k["state"] for k in j["keys"]][9:]' "['absent', 'absent', 'absent', 'absent', 'absent', 'absent', 'absent', 'absent', 'absent']"
# the 7.x keys by every spelling: __scx_ops_enabled before 6.13, __scx_enabled after
mk --key 1 --extra __scx_ops_enabled --set __scx_ops_enabled=1 --extra __sched_proxy_exec --set __sched_proxy_exec=1
t "keys: the old spelling of the scx key" 0 $U keys -J -o KEY,STATE,HOW,COUNT
is "scx row" '[(k["key"], k["state"], k["count"]) for k in j["keys"]][9]' "('__scx_ops_enabled', 'on', 1)"
isrow __sched_proxy_exec "on|kcore"
isrow __scx_has_subs "absent|symbol lists"
mk --key 1 --extra __scx_enabled --extra __scx_has_subs --set __scx_has_subs=1
t "keys: the 7.x spelling" 0 $U keys -J -o KEY,STATE,HOW,COUNT
is "scx row" '[(k["key"], k["state"]) for k in j["keys"]][9:12]' "[('__scx_enabled', 'off'), ('__scx_switched_all', 'absent'), ('__scx_has_subs', 'on')]"
# without kernel memory: the boot parameter and sysfs views
mk --no-kcore --extra __scx_enabled --extra __sched_proxy_exec --extra rt_group_sched
echo "BOOT_IMAGE=/vmlinuz sched_proxy_exec=0 quiet rt_group_sched=1" >"$ROOT/proc/cmdline"
mkdir -p "$ROOT/sys/kernel/sched_ext"
echo enabled >"$ROOT/sys/kernel/sched_ext/state"
t "keys: 7.x views" 0 $U keys -J -o KEY,STATE,HOW,VIEW
isrow __sched_proxy_exec "off|inferred from the boot parameter sched_proxy_exec"
isrow rt_group_sched "on|inferred from the boot parameter rt_group_sched"
isrow __scx_enabled "on|inferred from /sys/kernel/sched_ext/state"
echo "BOOT_IMAGE=/vmlinuz quiet" >"$ROOT/proc/cmdline"
t "keys: proxy exec by default" 0 $U keys -J
isrow __sched_proxy_exec "on|inferred: the kernel's default (no sched_proxy_exec= on the command line)"
# llc_balancing/enabled is the user's wish: a 1 does not prove the key on
mk --no-kcore --extra sched_cache_active
mkdir -p "$ROOT/sys/kernel/debug/sched/llc_balancing"
echo 1 >"$ROOT/sys/kernel/debug/sched/llc_balancing/enabled"
t "keys: llc_balancing asked for" 0 $U keys -J -o KEY,STATE,HOW,VIEW
is "keys: cache view" '[(k["state"], k["view"]) for k in j["keys"] if k["key"] == "sched_cache_active"][0]' "('unreadable', 'debugfs sched/llc_balancing/enabled = 1 (asked for)')"
echo 0 >"$ROOT/sys/kernel/debug/sched/llc_balancing/enabled"
t "keys: llc_balancing off" 0 $U keys -J
isrow sched_cache_active "off|inferred: llc_balancing/enabled = 0"
rm -rf "$ROOT/proc/cmdline" "$ROOT/sys/kernel/sched_ext" "$ROOT/sys/kernel/debug"
mk --key 1 --set sched_smt_present=2 --set psi_disabled=0 --set __cfs_bandwidth_used=3
# without kernel memory: the userspace views, and "unreadable (reason)" otherwise
mk --no-kcore
echo 0 >"$K/numa_balancing"
mkdir -p "$ROOT/proc/pressure"
t "keys without kcore" 0 $U keys -J -o KEY,STATE,HOW,REASON
isrow sched_uclamp_used "unknown|unreadable"
isrow sched_smt_present "on|/sys/devices/system/cpu/smt/active"
isrow sched_numa_balancing "off|inferred: on iff kernel.numa_balancing != 0"
isrow sched_asym_cpucapacity "on|inferred from cpu*/cpu_capacity"
isrow psi_disabled "off|inferred: /proc/pressure exists (PSI enabled)"
isrow __sched_core_enabled "unreadable|unreadable (no /proc/kcore (kernel built without CONFIG_PROC_KCORE))"
is "reason" '[k["reason"] for k in j["keys"] if k["key"] == "__sched_core_enabled"][0]' "no /proc/kcore (kernel built without CONFIG_PROC_KCORE)"
echo 1 >"$K/numa_balancing"
rmdir "$ROOT/proc/pressure"
t "keys: numa on, no /proc/pressure" 0 $U keys -J
isrow sched_numa_balancing "on|inferred: on iff kernel.numa_balancing != 0"
isrow psi_disabled "on|inferred: the kernel has PSI but no /proc/pressure (psi=0)"
rm "$K/numa_balancing"
t "keys: no numa_balancing sysctl" 0 $U keys -J
isrow sched_numa_balancing "off|inferred: no kernel.numa_balancing (no CONFIG_NUMA_BALANCING)"
t "keys text table" 0 $U keys
has '^__sched_core_enabled +unreadable +unreadable \(no /proc/kcore'
# powerpc pseries: shared_processor from lparcfg
mkdir -p "$ROOT/proc/powerpc"
printf 'lparcfg 1.9\nshared_processor_mode=0\n' >"$ROOT/proc/powerpc/lparcfg"
t "keys on a dedicated LPAR" 0 $U keys -J -o KEY,STATE,HOW,VIEW,MEANING
isrow shared_processor "off|inferred from /proc/powerpc/lparcfg (set at boot)"
is "lparcfg view" '[k["view"] for k in j["keys"] if k["key"] == "shared_processor"][0]' "lparcfg shared_processor_mode=0"
is "LPAR meaning" '"vcpu_is_preempted() is always false" in str(j) and "6-8 ms -> ~90 us" in str(j)' "True"
printf 'lparcfg 1.9\nshared_processor_mode=1\n' >"$ROOT/proc/powerpc/lparcfg"
t "keys on a shared LPAR" 0 $U keys -J
isrow shared_processor "on|inferred from /proc/powerpc/lparcfg (set at boot)"
mk --set shared_processor=1
t "keys: shared_processor from kcore" 0 $U keys -J -o KEY,STATE,HOW,COUNT
isrow shared_processor "on|kcore"
mk --no-symbol --no-kcore
sed -i '/shared_processor/d' "$ROOT/proc/kallsyms"
t "keys: a full symbol list without shared_processor (before 5.5)" 0 $U keys -J
isrow shared_processor "absent|symbol lists"
rm -r "$ROOT/proc/powerpc"
t "keys: bad column" 2 $U keys -o KEY,BOGUS
has "unknown column 'BOGUS'"
t "keys --list-columns" 0 $U keys --list-columns
has 'MEANING'

# ---- usage errors: exit 2, one line naming the input -----------------------------
t "check with an argument" 2 $U check extra
has "unexpected argument 'extra'"
t "check --bogus" 2 $U check --bogus
has "unknown option '--bogus'"
t "status --format=xml" 2 $U status --format=xml
has "invalid format 'xml' for --format: use text, json or prometheus"
t "status --format without a value" 2 $U status --format
t "keys with an argument" 2 $U keys x
t "check --help" 0 $U check --help
has '0  off'
has '4  the kernel has no uclamp'
t "status --help" 0 $U status --help
has 'prometheus'

finish
