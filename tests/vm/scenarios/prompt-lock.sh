# An open [y/N] prompt does not hold the writers' lock (issue 17 item 3):
# while 'task set' waits for a person, another writer and 'watch --oneshot'
# take the lock and write (a --wait of 3 s would give up on a held lock).
# One of them changes the very value the prompt is about: after 'y' the
# command plans again under the lock (from the new value), says so, and
# writes the fresh plan. Key 0 at the prompt, 1 after.
# vm-timeout: 300
. "$(dirname "$0")/../lib.sh"
T=$(mktemp -d)
expect_key 0 "right after boot"

sleep 600 & S1=$!
cp /bin/sleep "$T/uc-other"
"$T/uc-other" 600 & S2=$!
sleep 0.2
consented_conf "$T/w.conf" <<EOF2
[tasks other]
comm = uc-other
max = 200
EOF2

# while the question is open: the lock is free (no FLOCK in /proc/locks), a
# writer changes S1 (the prompt's task) to 500 and watch --oneshot S2 to 200
meanwhile="echo key=\$($(command -v python3) $VM_DIR/keyread.py);
grep -c FLOCK /proc/locks;
$UCLAMPCTL --wait 3 task set --max 500 --yes $S1; echo writer rc=\$?;
$UCLAMPCTL --wait 3 watch --oneshot --config $T/w.conf; echo oneshot rc=\$?"
run /usr/bin/python3 "$VM_DIR/helpers/pty_answer.py" y "$meanwhile" -- "$UCLAMPCTL" task set --max 300 "$S1"
check "the question came" test "$RC" = 0
expect_out "^pid $S1 .*util_max +1024 +300 +enables"
expect_out "Continue\? \[y/N\]"
expect_out "^key=0$"		# asked before anything was written
expect_out "^0$"		# no lock held while asking
expect_out "^writer rc=0$"
expect_out "^oneshot rc=0$"
expect_no_out "waiting for the uclampctl lock"
expect_out "warning: the values changed while waiting for the answer: the plan was made again"
expect_out "changed 1, unchanged 0, gone 0, failed 0"
expect_out "^rc=0$"
check "S1: the answer's value, written over the other writer's 500" test "$(tclamp "$S1")" = "0 300"
check "S2: watch --oneshot wrote while the prompt was open" test "$(tclamp "$S2")" = "0 200"
expect_key 1 "after the writes"

kill "$S1" "$S2"
done_scenario
