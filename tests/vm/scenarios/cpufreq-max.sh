# The verdicts, observed (uclamp_max), by LISA's UtilClamp method in the
# cpufreq guest: a busy loop pinned to CPU 1, clamped with uclamp_max 600,
# 300, 150 and back to 1024 (uclampctl task set), each step judged by the
# P-state policy1 holds over 3 s of time_in_state from 0.5 s after the
# write (a busy loop never wakes up). status and check give policy1 "max
# steers" and say the kernel is not frequency-invariant here (TCG has no
# APERF/MPERF); the frequency shows it. Safe assertions only: unclamped and
# 1024 the highest P-state, 300 and 150 the lowest, 600 not the highest
# (the P-state it holds, 1200 by the non-invariant formula, goes into
# bench/README.md's table from the "cpufreq-step:" lines).
# vm-cpufreq: acpi-cpufreq P-states (800-3000 MHz) on every CPU, schedutil
# vm-on-7x: schedutil's formula (reworked in 6.8) and the invariance key
. "$(dirname "$0")/../lib.sh"
. "$VM_DIR/helpers/cpufreq.sh"
expect_key 0 "right after boot"
cf_setup
expect_rc 0 uclampctl -v status
expect_out '^frequency +policy0-1 schedutil/acpi-cpufreq: min steers, max steers$'
expect_out "^ +max: schedutil's clamped target is the frequency acpi-cpufreq sets$"
expect_out 'not frequency-invariant here: .* a uclamp_min at or below 819 \(80%\) cannot raise it$'
expect_out '^invariance +no: the kernel does not use APERF/MPERF here \(arch_scale_freq_key off\)$'
expect_rc 0 uclampctl check
expect_no_out 'clamps-no-effect|min-below-tip|key-on-defaults'

cf_load 1000000 1000000
cf_nap 0.5
cf_window 3
cf_step "busy loop" none
expect_held "busy, no clamp" 3000 80
for m in 600 300 150 1024; do
	expect_rc 0 uclampctl task set --max "$m" --yes "$CF_PID"
	cf_nap 0.5
	cf_window 3
	cf_step "busy loop" "uclamp_max $m"
	case $m in
	600) check "uclamp_max 600: the highest P-state at most 10% (${CF_AT[3000]:-0}%)" \
		test "${CF_AT[3000]:-0}" -le 10 ;;
	1024) expect_held "uclamp_max 1024" 3000 80 ;;
	*) expect_held "uclamp_max $m" 800 80 ;;
	esac
	[ "$m" = 600 ] && expect_key 1 "after the first clamp"
done
kill "$CF_PID"
expect_rc 0 uclampctl status
expect_out '^frequency +policy0-1 schedutil/acpi-cpufreq: min steers, max steers$'
expect_key 1 "at the end"
done_scenario
