# A reused PID at the prompt: the plan is made before [y/N]; the target is
# killed there and another process is started at the same PID (clone3 with
# set_tid). Answering y must not clamp the newcomer: the identity (PID +
# start time) is checked again right before the write, the task is reported
# gone, nothing is written, and the fast path stays off.
# vm-on-7x: clone3 with set_tid, and the identity re-check against a reused PID
. "$(dirname "$0")/../lib.sh"
T=$(mktemp -d)
expect_key 0 "right after boot"
check "helpers/pidreuse.c" helper pidreuse "$T/pidreuse"
run "$T/pidreuse" "$UCLAMPCTL" task set --max 300
expect_newcomer_alone
# the task it named is gone: the executor's identity check, or the plan made again
# after the answer, which keeps only the tasks the person was shown
expect_out "changed 0, unchanged 0, gone 1, failed 0|nothing to change \(0 already at the requested values, some exited\)"
expect_key 0 "nothing was written"
done_scenario
