# A reused PID at apply's prompt: pid-reuse, through a [tasks] section that
# selects by name. The plan is made before [y/N]; the process it names is
# killed there and another one with the same name is started at the same PID
# (clone3 with set_tid). Answering y must not clamp the newcomer: the start
# time read while planning is the identity the executor checks right before
# the write. (Until 07a65ff apply's [tasks] plan lost it on the way into the
# run's plan, and the newcomer was written unchecked.)
. "$(dirname "$0")/../lib.sh"
T=$(mktemp -d)
expect_key 0 "right after boot"
check "helpers/pidreuse.c" helper pidreuse "$T/pidreuse"
printf '[tasks victim]\ncomm = uc-prvictim\nmax = 300\n' >"$T/uc.conf"
export PIDREUSE_COMM=uc-prvictim
run "$T/pidreuse" "$UCLAMPCTL" apply --config "$T/uc.conf"
unset PIDREUSE_COMM
expect_newcomer_alone
expect_out "gone 1|some exited"
expect_key 0 "nothing was written"
done_scenario
