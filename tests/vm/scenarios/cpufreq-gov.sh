# A governor that ignores clamps, in the cpufreq guest: policy1 under
# performance (and powersave, where the kernel has it: the 7.3-rc7 cpufreq
# kernel has only performance and schedutil). status gives policy1 "min
# ignored, max ignored" with what to change, and the frequency does not
# move with the clamp: a busy loop on CPU 1 holds 3000 MHz under
# performance with uclamp_max 150, and 800 under powersave with
# uclamp_min 1024 (each judged over 3 s of time_in_state).
# vm-cpufreq: acpi-cpufreq P-states (800-3000 MHz) on every CPU, schedutil
# vm-on-7x: the governors this kernel has, and that they ignore the rq clamps
. "$(dirname "$0")/../lib.sh"
. "$VM_DIR/helpers/cpufreq.sh"
expect_key 0 "right after boot"
cf_setup
read -r govs <"$CF_POL/scaling_available_governors"
echo "  governors: $govs"
echo performance >"$CF_POL/scaling_governor"
expect_rc 0 uclampctl status
expect_out '^frequency +policy0 schedutil/acpi-cpufreq: min steers, max steers$'
expect_out '^ +policy1 performance/acpi-cpufreq: min ignored, max ignored$'
expect_out '^ +governor performance chooses the frequency without clamps \(only schedutil reads them\)$'
expect_out '^ +to change: write schedutil to /sys/devices/system/cpu/cpufreq/policy1/scaling_governor$'
cf_load 1000000 1000000
expect_rc 0 uclampctl task set --max 150 --yes "$CF_PID"
expect_key 1 "after the clamp"
cf_nap 0.5
cf_window 3
cf_step "busy, performance" "uclamp_max 150"
expect_held "performance ignores uclamp_max 150" 3000 90
case " $govs " in
*" powersave "*)
	echo powersave >"$CF_POL/scaling_governor"
	expect_rc 0 uclampctl status
	expect_out '^ +policy1 powersave/acpi-cpufreq: min ignored, max ignored$'
	expect_rc 0 uclampctl task set --min 1024 --max 1024 --yes "$CF_PID"
	cf_nap 0.5
	cf_window 3
	cf_step "busy, powersave" "uclamp_min 1024"
	expect_held "powersave ignores uclamp_min 1024" 800 90
	;;
*) echo "  powersave: not in this kernel" ;;
esac
kill "$CF_PID"
expect_key 1 "at the end"
done_scenario
