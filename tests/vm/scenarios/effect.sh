# Does a clamp bite here, on the real kernel (6.1 and 7.3): the tinyconfig
# guest has CPU_FREQ and schedutil but no cpufreq driver, so every verdict
# is "no cpufreq: frequency unaffected"; the placement keys are read from
# kernel memory (symmetric); status, check and keys read only, the key stays
# 0. Then the RT foot-gun: an RT thread given util_min 0 no longer follows
# the RT default (a warning, exit 5 with --strict) until reset with -1.
# vm-timeout: 900
# vm-on-7x: the placement keys and the cpufreq verdicts of this version
. "$(dirname "$0")/../lib.sh"
expect_key 0 "right after boot"
check "the guest has no cpufreq policy" sh -c '! ls -d /sys/devices/system/cpu/cpufreq/policy* 2>/dev/null'
expect_rc 0 uclampctl -v status
expect_out '^frequency +no-cpufreq: no cpufreq driver: frequency unaffected'
expect_out 'read /sys/devices/system/cpu/cpufreq: no policy directories'
expect_out '^placement +none: all CPUs have the same capacity'
expect_out 'read sched_asym_cpucapacity \(kernel memory\): off'
expect_out '^capacity +symmetric'
expect_rc 0 uclampctl status -J
check "JSON: the none row and symmetric placement" test "$(printf '%s\n' "$OUT" | python3 -c '
import json, sys
j = json.load(sys.stdin)
p = j["effect"]["policies"]
print(len(p), p[0]["policy"], p[0]["min"]["verdict"], p[0]["max"]["verdict"],
      j["effect"]["placement"]["verdict"], j["cpu_capacity"]["asymmetric"])')" = "1 None no-cpufreq no-cpufreq none False"
expect_rc 0 uclampctl status --format=prometheus
expect_out '^uclamp_clamps_effective\{policy="none",clamp="max",verdict="no-cpufreq"\} 0$'
expect_out '^uclamp_clamps_placement\{verdict="none"\} 0$'
expect_rc 0 uclampctl check
expect_out '^off \(kcore\)'
expect_out '^info: clamps would not change anything here: no cpufreq driver: frequency unaffected .*\(clamps-no-effect\)$'
expect_no_out 'rt-min-user-defined'
expect_rc 0 uclampctl check --strict
expect_rc 0 uclampctl keys -J -o KEY,STATE,HOW,COUNT
# root, KALLSYMS_ALL, kcore: every key is read from kernel memory or absent
check "every key read or absent" test "$(printf '%s\n' "$OUT" | python3 -c '
import json, sys
print(sorted({(k["state"] if k["state"] == "absent" else k["how"]) for k in json.load(sys.stdin)["keys"]}))')" = "['absent', 'kcore']"
keys_of() { printf '%s\n' "$OUT" | python3 -c '
import json, sys
print(" ".join(k["key"] + "=" + k["state"] for k in json.load(sys.stdin)["keys"] if k["key"] in sys.argv[1:]))' "$@"; }
case $(uname -r) in
7.*)	# CONFIG_SCHED_CACHE=y, no sched_ext, no proxy exec, no RT groups, no IRQ time
	check "7.x keys absent from this config" \
		test "$(keys_of __scx_enabled __scx_has_subs __sched_proxy_exec rt_group_sched sched_clock_irqtime)" = \
		"__scx_enabled=absent __scx_has_subs=absent __sched_proxy_exec=absent rt_group_sched=absent sched_clock_irqtime=absent"
	c=$(keys_of sched_cache_present)
	check "read from kernel memory: $c" test "$c" = sched_cache_present=on -o "$c" = sched_cache_present=off
	;;
6.1*)	# older than the 7.x keys: all absent
	check "7.x keys absent on 6.1" test "$(keys_of __scx_enabled __scx_has_subs sched_cache_present sched_cache_active __sched_proxy_exec)" = \
		"__scx_enabled=absent __scx_has_subs=absent __sched_proxy_exec=absent sched_cache_present=absent sched_cache_active=absent"
	;;
esac
expect_rc 0 uclampctl keys
expect_key 0 "after status, check and keys"

# an RT thread at the RT default is not a finding; one given util_min 0 is
chrt -f 10 sleep 300 &
rt=$!
sleep 0.2
check "the RT thread follows the RT default" test "$(tclamp $rt)" = "1024 1024"
expect_rc 0 uclampctl check
expect_no_out 'rt-min-user-defined'
expect_rc 0 uclampctl task set --min 0 --yes $rt
expect_key 1 "after a real clamp write"
expect_rc 5 uclampctl check --strict
expect_out "^warning: 1 RT threads have a util_min of their own \\(pid $rt sleep: 0, the RT default is 1024\\)"
expect_out "^  fix: uclampctl task reset $rt \\(writes -1; "
expect_rc 0 uclampctl task reset --yes $rt
check "reset with -1: back at the RT default" test "$(tclamp $rt)" = "1024 1024"
# nothing clamped any more, the key still on: that is a finding of its own
expect_rc 5 uclampctl check --strict
expect_no_out 'rt-min-user-defined'
expect_out '\(key-on-defaults\)$'
kill $rt
done_scenario
