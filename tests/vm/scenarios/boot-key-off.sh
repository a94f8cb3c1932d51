# The harness itself: a fresh boot has the key off, and a real flip is seen.
. "$(dirname "$0")/../lib.sh"
expect_key 0 "right after boot"
check "uclampctl runs in the guest" "$UCLAMPCTL" --version
expect_rc 0 sh -c 'echo 1000 > /proc/sys/kernel/sched_util_clamp_min_rt_default'
expect_key 1 "after changing rt_default by hand"
done_scenario
