# The verdicts, observed (uclamp_min), by LISA's UtilClamp method in the
# cpufreq guest: a light periodic task (helpers/cfload: 2 ms busy every
# 20 ms, util ~100) pinned to CPU 1, with uclamp_min none, 600, 900 and
# 1024, each step judged by the P-state policy1 holds over 3 s of
# time_in_state from the task's second wake-up after the write. The kernel
# is not frequency-invariant here (TCG has no APERF/MPERF): status says a
# uclamp_min at or below 819 cannot raise the frequency, and the frequency
# shows it: unclamped the lowest P-state, 600 does not raise it (the
# highest P-state at most 10% of the window; it holds where it was: both
# 800 and 1200 round to themselves, 1.25 x 600/1024 x 1200 = 878), 900 and
# 1024 the highest. check warns about the 600 (min-below-tip). Safe
# assertions only (nothing near 819); the shares go into bench/README.md.
# vm-cpufreq: acpi-cpufreq P-states (800-3000 MHz) on every CPU, schedutil
# vm-on-7x: schedutil's formula (reworked in 6.8) and the invariance key
. "$(dirname "$0")/../lib.sh"
. "$VM_DIR/helpers/cpufreq.sh"
expect_key 0 "right after boot"
cf_setup
expect_rc 0 uclampctl status
expect_out '^frequency +policy0-1 schedutil/acpi-cpufreq: min steers, max steers$'
expect_out "^ +min: schedutil's clamped target is the frequency acpi-cpufreq sets; not frequency-invariant here: schedutil multiplies the current frequency by 1\.25 x util/capacity, so a uclamp_min at or below 819 \(80%\) cannot raise it$"
expect_out '^invariance +no: '

cf_load 2000 20000
cf_wakeups 2
cf_window 3
cf_step "periodic 2/20 ms" none
expect_held "periodic, no clamp" 800 60
for m in 600 900 1024; do
	expect_rc 0 uclampctl task set --min "$m" --yes "$CF_PID"
	cf_wakeups 2
	cf_window 3
	cf_step "periodic 2/20 ms" "uclamp_min $m"
	if [ "$m" = 600 ]; then
		check "uclamp_min 600 did not raise it: the highest P-state ${CF_AT[3000]:-0}% (at most 10%), $CF_DOM MHz held (800 or 1200)" \
			test "${CF_AT[3000]:-0}" -le 10 -a "$CF_DOM" -le 1200
		expect_key 1 "after the first clamp"
		expect_rc 1 uclampctl check
		expect_out '^warning: 1 of 1 threads and cgroups asking for a uclamp_min ask for 819 \(80%\) or less, which cannot raise the frequency here: the kernel is not frequency-invariant .*\(min-below-tip\)$'
	else
		expect_held "uclamp_min $m" 3000 60
	fi
done
expect_rc 1 uclampctl check
expect_no_out 'min-below-tip'
kill "$CF_PID"
expect_key 1 "at the end"
done_scenario
