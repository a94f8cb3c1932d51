# util_min_rt_default: the same value leaves the key at 0, a change flips it,
# and RT tasks that ask for nothing get it as their min.
# vm-on-7x: util_min_rt_default's handler and its effect on RT tasks
. "$(dirname "$0")/../lib.sh"
K=/proc/sys/kernel
expect_key 0 "right after boot"
run chrt -f 10 sh -c 'grep "uclamp.min" /proc/$$/sched'
expect_out '^uclamp\.min +: +1024$'
expect_key 0 "after starting an RT task"

expect_rc 0 uclampctl system set --rt-default 1024 -y
expect_out 'nothing to change'
expect_rc 0 uclampctl system set --rt-default max -y
expect_key 0 "after a same-value --rt-default"
expect_rc 2 uclampctl system set --rt-default 1025 -y
expect_rc 2 uclampctl system set --rt-default -1% -y
expect_rc 3 uclampctl system set --rt-default 0
expect_key 0 "after bad values and a refusal"

# lower the RT boost
expect_rc 0 uclampctl system set --rt-default 0 -y
check "rt_default is 0" test "$(cat $K/sched_util_clamp_min_rt_default)" = 0
expect_key 1 "after changing rt_default only"
run chrt -f 10 sh -c 'grep "uclamp.min" /proc/$$/sched'
expect_out '^uclamp\.min +: +0$'
expect_out '^effective uclamp\.min +: +0$'
expect_rc 0 uclampctl system set --rt-default 25% -y
run chrt -f 10 sh -c 'grep "uclamp.min" /proc/$$/sched'
expect_out '^uclamp\.min +: +256$'
# rt_default never escapes the system min
expect_rc 0 uclampctl system set --min 100 -y
run chrt -f 10 sh -c 'grep "effective uclamp.min" /proc/$$/sched'
expect_out ': +100$'
expect_rc 0 uclampctl system set --rt-default default --min default -y
check "back to 1024" test "$(cat $K/sched_util_clamp_min_rt_default $K/sched_util_clamp_min | tr '\n' ' ')" = "1024 1024 "
expect_rc 0 uclampctl system show -o KNOB,VALUE,PERCENT -r -n
expect_out '^util_min_rt_default 1024 100\.00%$'
done_scenario
