# uclampctl system set on the real kernel: same values, bad values, refusals
# and dry runs leave sched_uclamp_used at 0; then the ordered writes (min
# first when lowering max below the current min, max first when raising min
# above the current max) succeed where the naive order fails.
# vm-on-7x: the sysctl handlers' checks and write ordering
. "$(dirname "$0")/../lib.sh"
K=/proc/sys/kernel
plan_order() { printf '%s\n' "$OUT" | grep -o 'sched_util_clamp_m[a-z]*' | uniq | tr '\n' ' '; }
sysvals() { cat $K/sched_util_clamp_min $K/sched_util_clamp_max $K/sched_util_clamp_min_rt_default | tr '\n' ' '; }
expect_key 0 "right after boot"

expect_rc 0 uclampctl system show
expect_out '^util_min +1024 +100\.00%'
expect_out '^util_min_rt_default +1024'
expect_rc 0 uclampctl system show -J
expect_out '"value": 1024'
expect_key 0 "after reading"

# the current values, in every spelling: nothing is written
expect_rc 0 uclampctl system set --min 1024 --max 1024 --rt-default 1024 -y
expect_out 'nothing to change \(3 already'
expect_rc 0 uclampctl system set --min 100% --max max --rt-default default -y
expect_out 'nothing to change'
expect_key 0 "after same-value 'system set'"

for bad in 150% bogus -1% 1025; do
	expect_rc 2 uclampctl system set --min "$bad" -y
	expect_out "invalid value '$bad'"
done
expect_key 0 "after bad values"

# max below the current min (1024), min kept: refused before any write
expect_rc 2 uclampctl system set --max 500 -y
expect_out 'util_min would be 1024 \(current\) above util_max 500'
expect_rc 2 uclampctl system set --min 600 --max 500 -y
check "sysctls untouched" test "$(sysvals)" = "1024 1024 1024 "
# no consent, not a terminal: refused
expect_rc 3 uclampctl system set --min 200 --max 500
expect_out 'refused'
expect_rc 0 uclampctl system set --min 200 --max 500 --dry-run
expect_out 'would enable'
check "dry run plans min before max" test "$(plan_order)" = "sched_util_clamp_min sched_util_clamp_max "
check "sysctls untouched" test "$(sysvals)" = "1024 1024 1024 "
expect_key 0 "after refusals and a dry run"

# the naive order (max first) is what the kernel refuses here
run sh -c "echo 500 > $K/sched_util_clamp_max"
check "the kernel refuses max below min" test "$RC" != 0
expect_key 0 "after the kernel's refusal"

# lowering max below the current min: min goes first
expect_rc 0 uclampctl system set --min 200 --max 500 -y
expect_out 'changed 2'
check "min 200 max 500" test "$(sysvals)" = "200 500 1024 "
expect_key 1 "after a real change"

# raising min above the current max: max goes first (min first would fail)
expect_rc 0 uclampctl system set --min 800 --max 900 -n
check "dry run plans max before min" test "$(plan_order)" = "sched_util_clamp_max sched_util_clamp_min "
expect_rc 0 uclampctl system set --min 800 --max 900 -y
check "min 800 max 900" test "$(sysvals)" = "800 900 1024 "
expect_rc 0 uclampctl system set --min 0 --max 100 -y
check "min 0 max 100" test "$(sysvals)" = "0 100 1024 "
# the system max caps every task: a default task gets 100, a request above
# it too; the system min limits requests (not a boost)
run sh -c 'grep "effective uclamp.max" /proc/$$/sched'
expect_out ': +100$'
expect_rc 0 uclampctl system set --min 300 --max max -y
run uclampset -m 1024 sh -c 'grep "effective uclamp.min" /proc/$$/sched'
expect_out ': +300$'
run sh -c 'grep "effective uclamp.min" /proc/$$/sched'
expect_out ': +0$'
expect_rc 0 uclampctl system show -o KNOB,VALUE -r -n
expect_out '^util_min 300$'
expect_out '^util_max 1024$'
done_scenario
