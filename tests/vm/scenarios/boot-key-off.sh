# The harness itself: a fresh boot has the key off, and a real flip is seen.
# Also the per-boot kallsyms cache (src/lib/kmem.c) on the real kernel.
# vm-on-7x: the static key's layout in kernel memory and the kallsyms cache
. "$(dirname "$0")/../lib.sh"
expect_key 0 "right after boot"
check "uclampctl runs in the guest" "$UCLAMPCTL" --version
expect_rc 0 uclampctl check
expect_out 'kcore'
addr=$(awk '$3 == "sched_uclamp_used" { print $1 }' /proc/kallsyms | sed 's/^0*//')
check "the address is cached for this boot" grep -qx "sched_uclamp_used $addr" /run/uclampctl/ksyms
check "under this boot's id" grep -qxF "$(cat /proc/sys/kernel/random/boot_id)" /run/uclampctl/ksyms
check "root-only" test "$(stat -c %a:%u /run/uclampctl/ksyms)" = 600:0
expect_rc 0 sh -c 'echo 1000 > /proc/sys/kernel/sched_util_clamp_min_rt_default'
expect_key 1 "after changing rt_default by hand"
expect_rc 1 uclampctl check
expect_out 'kcore'
done_scenario
