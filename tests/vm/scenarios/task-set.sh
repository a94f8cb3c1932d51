# task set / reset on one task: only the clamps given change, end states
# with min > max are refused, reset goes back to the kernel defaults.
# vm-on-7x: struct sched_attr's size and sched_setattr's checks
. "$(dirname "$0")/../lib.sh"
. "$VM_DIR/helpers/task.sh"
expect_key 0 "right after boot"

sleep 600 & S=$!
sleep 0.2
expect_rc 0 uclampctl task set --min 100 --yes "$S"
expect_out "changed 1, unchanged 0, gone 0, failed 0"
check "min 100, max left at 1024" test "$(tclamp "$S")" = "100 1024"
expect_key 1 "a real clamp change enables the key"
expect_rc 0 uclampctl task show -r -n -o UTIL_MIN,UTIL_MAX,EFF_MIN,EFF_MAX "$S"
expect_out "^100 1024 100 1024$"

# a real write loads none of the optional libraries (tests/cli/test-libs.sh)
expect_rc 0 env LD_DEBUG=files LD_DEBUG_OUTPUT=/tmp/ld "$UCLAMPCTL" task set --max 50% --yes "$S"
check "max 50% = 512, min kept" test "$(tclamp "$S")" = "100 512"
run sh -c "sed -n 's/.*[[:space:]]file=\([^ ]*\) .*/\1/p' /tmp/ld.* | sort -u"
expect_out '^libc\.so'
expect_no_out 'lib(smartcols|cgroup|nl-3|systemd)\.'
expect_rc 1 uclampctl task set --min 600 --yes "$S"
expect_out "skipped: util_min would be 600, above util_max 512 \(its current value\).*add --max 600"
check "refused end state: unchanged" test "$(tclamp "$S")" = "100 512"
expect_rc 0 uclampctl task set --min 100 --max 512 --yes "$S"
expect_out "nothing to change"
expect_rc 0 uclampctl task reset --yes "$S"
expect_out "changed 1"
check "reset: kernel defaults" test "$(tclamp "$S")" = "0 1024"
run grep -E "^uclamp\.(min|max)" "/proc/$S/sched"
expect_out "uclamp.min +: +0$"
expect_out "uclamp.max +: +1024$"

# RT task: both clamps, then reset: min follows the RT default (1024) again
chrt -f 10 sleep 600 & RT=$!
sleep 0.2
expect_rc 0 uclampctl task set --min 200 --max 300 --yes "$RT"
check "RT 200/300" test "$(tclamp "$RT")" = "200 300"
expect_rc 0 uclampctl task reset --yes "$RT"
check "RT reset: min back to the RT default" test "$(tclamp "$RT")" = "1024 1024"

# the system's RT default is what a reset gives
echo 800 >/proc/sys/kernel/sched_util_clamp_min_rt_default
check "RT min follows rt_default" test "$(tclamp "$RT")" = "800 1024"
expect_rc 0 uclampctl task reset --yes "$RT"
expect_out "nothing to change"	# already at its default

# several PIDs: a missing one stops everything before any change
sleep 600 & S2=$!
expect_rc 1 uclampctl task set --max 700 --yes "$S" "$S2" 999999
expect_out "no such process: 999999; nothing changed"
check "nothing changed" test "$(tclamp "$S") $(tclamp "$S2")" = "0 1024 0 1024"
expect_rc 0 uclampctl task set --max 700 --yes "$S" "$S2"
expect_out "changed 2"
check "both at 700" test "$(tclamp "$S") $(tclamp "$S2")" = "0 700 0 700"
expect_key 1
kill "$S" "$S2" "$RT"
done_scenario
