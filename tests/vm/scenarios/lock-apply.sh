# One writer at a time, on the real kernel: while one apply holds the
# uclampctl lock (visible in /proc/locks), a second one waits, names the
# holder, then runs: the final state is the second one's. A writer that fails
# and rolls back after waiting restores the values the first one set (its
# rollback cannot wipe out another writer's success). --wait gives up with
# nothing changed.
#
# Timing: the first writer runs in a cgroup of its own, frozen
# (cgroup.freeze) as soon as it holds the lock; the test thaws it when the
# second one is seen waiting.
# vm-timeout: 400
. "$(dirname "$0")/../lib.sh"
. "$VM_DIR/helpers/task.sh"
T=$(mktemp -d)
CG=/sys/fs/cgroup
expect_key 0 "right after boot"
mkdir $CG/writer $CG/lk
sysmin() { cat /proc/sys/kernel/sched_util_clamp_min; }
state() { echo "$(sysmin) $(cat $CG/lk/cpu.uclamp.max)"; }
# 1,000 threads make each apply take a while (planning reads every one)
check "a process with 1000 threads" start_threads 1000 lk
conf() {
	printf '[fast-path]\nallow-enable = yes\n[system]\nmin = %s\n[cgroup lk]\nmax = %s\n[tasks lk]\ncomm = lk\nthreads = yes\nmax = %s\n' \
		"$2" "$3" "$4" >"$T/$1.conf"
}
conf a 30% 50% 300
conf b 60% 80% 500
# builtins only: the poll must be quicker than a short apply
lock_held() { local l; while read -r l; do [[ $l == *FLOCK*WRITE* ]] && return 0; done </proc/locks; return 1; }
# hold_lock NAME CMD...: run CMD in cgroup 'writer' (H = its PID), freeze it once it holds the lock
hold_lock() {
	local name=$1 i
	shift
	sh -c 'echo $$ >/sys/fs/cgroup/writer/cgroup.procs && exec "$@"' sh "$@" >"$T/$name.out" 2>&1 &
	H=$!
	for ((i = 0; i < 2000000; i++)); do
		if lock_held; then
			echo 1 >$CG/writer/cgroup.freeze
			return 0
		fi
		kill -0 "$H" 2>/dev/null || return 1
	done
	return 1
}
waiting() {
	local i
	for i in $(seq 1 500); do grep -q 'waiting for the uclampctl lock' "$1" && return 0; sleep 0.05; done
	return 1
}

# ---- two applies at once
check "apply A holds the lock" hold_lock a "$UCLAMPCTL" apply --config "$T/a.conf"
A=$H
run cat /proc/locks
expect_out "FLOCK +ADVISORY +WRITE +$A "
expect_rc 1 uclampctl --wait 1 apply --config "$T/b.conf"
expect_out "waiting for the uclampctl lock held by PID $A"
expect_out "gave up after 1 s.*nothing changed"
check "gave up: nothing changed" test "$(state)" = "1024 max"
"$UCLAMPCTL" --wait 120 apply --config "$T/b.conf" >"$T/b.out" 2>&1 &
B=$!
check "apply B waits" waiting "$T/b.out"
run cat "$T/b.out"
expect_out "^uclampctl: waiting for the uclampctl lock held by PID $A "
check "B has written nothing while waiting" test "$(state)" = "1024 max"
echo 0 >$CG/writer/cgroup.freeze
wait "$A"
check "A succeeded" test $? = 0
wait "$B"
check "B succeeded after A" test $? = 0
run cat "$T/a.out" "$T/b.out"
check "the final state is B's (the last one's)" test "$(state)" = "614 80.00"
run clamps_of_threads "$TP"
expect_out "^1000 0 500$"
expect_key 1

# ---- one fails and rolls back while the other waits: the other's success holds
# C (holds the lock) sets 40%/60%; D waits, plans from C's values, fails on
# a task it may not change (root without CAP_SYS_NICE, a task of another
# user) and undoes what it did: C's values hold.
conf c 40% 60% 400
cp /bin/sleep "$T/uc-other"
setpriv --reuid=65534 --regid=65534 --clear-groups "$T/uc-other" 600 &
O=$!
printf '[fast-path]\nallow-enable = yes\n[system]\nmin = 20%%\n[tasks other]\ncomm = uc-other\nmax = 100\n' >"$T/d.conf"
check "apply C holds the lock" hold_lock c "$UCLAMPCTL" apply --config "$T/c.conf"
C=$H
setpriv --inh-caps=-sys_nice --bounding-set=-sys_nice "$UCLAMPCTL" apply --config "$T/d.conf" >"$T/d.out" 2>&1 &
D=$!
check "apply D waits" waiting "$T/d.out"
echo 0 >$CG/writer/cgroup.freeze
wait "$C"
check "C succeeded" test $? = 0
wait "$D"
check "D failed (exit 1)" test $? = 1
run cat "$T/d.out"
expect_out "uc-other\).*permission denied"
expect_out "failed: [0-9]+ change\(s\) undone"
check "C's values hold after D's rollback" test "$(state)" = "410 60.00"
check "the other user's task untouched" test "$(tclamp $O)" = "0 1024"
kill $O $TP
expect_key 1
done_scenario
