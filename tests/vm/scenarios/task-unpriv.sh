# An unprivileged user clamps its own tasks (no capability needed) but gets
# a clear EPERM on another user's; the EPERM does not enable the key.
# vm-on-7x: sched_setattr's permission rules for uclamp
. "$(dirname "$0")/../lib.sh"
. "$VM_DIR/helpers/task.sh"
expect_key 0 "right after boot"
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

# root without CAP_SYS_NICE on its own deadline task: the kernel's capability
# rule says EPERM (same owner); the report must not blame "another user"
chrt -d --sched-runtime 1000000 --sched-deadline 10000000 --sched-period 10000000 0 sleep 600 & DL=$!
sleep 0.2
expect_rc 1 setpriv --bounding-set=-sys_nice --inh-caps=-sys_nice -- "$UCLAMPCTL" task set --min 10 --yes "$DL"
expect_out "pid $DL \([a-z]+\): util_min: permission denied \(needs CAP_SYS_NICE, which this process lacks\)"
expect_no_out "another user"
expect_key 0 "an EPERM does not enable the key"
kill "$DL"

sleep 600 & ROOTS=$!
setpriv --reuid=65534 --regid=65534 --clear-groups sleep 600 & MINE=$!
sleep 0.2
expect_rc 1 nobody "$UCLAMPCTL" task set --max 500 --yes "$ROOTS" "$MINE"
expect_out "pid $ROOTS \(sleep\): util_max: permission denied \(another user's task needs CAP_SYS_NICE"
expect_out "changed 1, unchanged 0, gone 0, failed 1"
check "root's task unchanged" test "$(tclamp "$ROOTS")" = "0 1024"
check "own task clamped" test "$(tclamp "$MINE")" = "0 500"
expect_key 1 "the own-task change enables the key"

expect_rc 0 nobody "$UCLAMPCTL" task set --all --user nobody --min 100 --yes
expect_out "changed 1"
check "--user nobody: only the own task" test "$(tclamp "$MINE") $(tclamp "$ROOTS")" = "100 500 0 1024"
expect_rc 0 nobody "$UCLAMPCTL" run --min 150 --yes -- uclampset -p 0
expect_out "min: 150 max: 1024"
# setting reset-on-fork is allowed, clearing it needs privilege
expect_rc 0 nobody "$UCLAMPCTL" task set --reset-on-fork "$MINE"
check "own task: reset-on-fork set" test "$(rof "$MINE")" = yes
expect_rc 1 nobody "$UCLAMPCTL" task set --no-reset-on-fork "$MINE"
expect_out "pid $MINE \(sleep\): reset_on_fork: permission denied"
check "reset-on-fork still set" test "$(rof "$MINE")" = yes
kill "$ROOTS" "$MINE"
done_scenario
