# A signal in the middle of a write: SIGINT/SIGTERM during 'apply' (atomic)
# leave the host as it was before (never a mix), say so, and exit 128+N;
# -J still prints one complete JSON document. SIGTERM during 'task set'
# (best effort) stops the run, and the report says exactly what was done.
# A second signal while stopping does not cut the undo short.
#
# Timing, deterministic on any load: the writer runs with helpers/stopat.c
# preloaded, which stops it (SIGSTOP) right after its 100th sched_setattr:
# apply writes the 3,000 threads first (tasks lead in an atomic plan), then
# the sysctl and the cgroup, so the stop is in the middle of the task writes.
# The signals are sent to the stopped writer, SIGCONT lets it see them.
# vm-timeout: 600
. "$(dirname "$0")/../lib.sh"
. "$VM_DIR/helpers/task.sh"
T=$(mktemp -d)
CG=/sys/fs/cgroup
expect_key 0 "right after boot"

check "a process with 3000 threads" start_threads 3000 many
mkdir $CG/sig
consented_conf "$T/new.conf" <<CONF
[system]
min = 50%
[cgroup sig]
max = 70%
[tasks many]
comm = many
threads = yes
max = 300
CONF
sysmin() { cat /proc/sys/kernel/sched_util_clamp_min; }
threads_at() { "$UCLAMPCTL" task show -a -n -r -o UTIL_MIN,UTIL_MAX "$TP" | sort | uniq -c | awk '{ print $1, $2, $3 }'; }
old_state() { test "$(sysmin) $(cat $CG/sig/cpu.uclamp.max) $(threads_at | tr '\n' ' ')" = "1024 max 3000 0 1024 "; }
check "helpers/stopat.c" helper stopat.so "$T/stopat.so"
STOP_AT=100
# start_writer OUTFILE CMD...: run CMD in the background (W = its PID) and
# wait until it stopped itself after its STOP_AT-th write
start_writer() {
	local out=$1 i
	shift
	LD_PRELOAD="$T/stopat.so" UC_STOP_AT=$STOP_AT "$@" >"$out" 2>&1 &
	W=$!
	for ((i = 0; i < 6000; i++)); do
		case $(sed 's/.*) //' "/proc/$W/stat" 2>/dev/null) in
		T*) return 0 ;;
		'' | Z*) echo "  the writer ended before its write $STOP_AT: $(cat "$out")"; return 1 ;;
		esac
		sleep 0.1
	done
	return 1
}
# signal SIG...: send each signal to the stopped writer, then let it go on
signal() {
	local s
	for s in "$@"; do kill -"$s" "$W"; done
	kill -CONT "$W"
}

# ---- SIGINT, and SIGTERM on its heels: the first one counts, the undo completes
check "apply started writing" start_writer "$T/int.out" "$UCLAMPCTL" apply --config "$T/new.conf"
signal INT TERM	# both pending at the thaw: the second comes while stopping
wait "$W"
RC=$?
OUT=$(cat "$T/int.out")
printf '%s\n' "$OUT" | sed 's/^/    | /'
# two pending signals: the kernel runs the handler of the one it delivers
# last first; whichever the handler saw first is the one reported and exited with
sig=$(printf '%s\n' "$OUT" | sed -n 's/.*interrupted by SIG\([A-Z]*\):.*/\1/p')
check "exit 128 + the signal reported (SIG$sig)" test "$RC" = "$((128 + $(kill -l "$sig" 2>/dev/null || echo 999)))"
expect_out "interrupted by SIG(INT|TERM): the write under way finished, then [0-9]+ change\(s\) were undone: nothing changed"
check "the host is as before: sysctl, cgroup, 3000 threads" old_state
expect_out "1 more signal\(s\) came while stopping: noted; the run completed its undo"
expect_key 1 "writes were made before the signal (a flipped key stays on)"

# ---- SIGTERM with -J: one complete JSON document, on stdout only
check "apply -J started writing" start_writer "$T/term.json" sh -c "exec '$UCLAMPCTL' apply -J --config '$T/new.conf' 2>'$T/term.err'"
signal TERM
wait "$W"
RC=$?
cat "$T/term.err" | sed 's/^/    | /'
check "exit 143 (128 + SIGTERM), got $RC" test "$RC" = 143
check "-J: complete JSON saying interrupted, nothing kept" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["interrupted"] == "SIGTERM", d
assert d["changed"] is False and d["changes"] == [] and len(d["rolled_back"]) >= 2, d
assert d["not_attempted"] > 0 and any("interrupted" in e for e in d["errors"]), d
' "$T/term.json"
check "the host is as before" old_state

# ---- best effort: task set --threads stops; the report matches the threads
check "task set started" start_writer "$T/ts.out" "$UCLAMPCTL" task set -a --max 200 -y "$TP"
signal TERM
wait "$W"
RC=$?
OUT=$(cat "$T/ts.out")
printf '%s\n' "$OUT" | sed 's/^/    | /'
check "exit 143" test "$RC" = 143
expect_out "interrupted by SIGTERM: stopped after the write under way; [0-9]+ target\(s\) not attempted"
done_n=$(printf '%s\n' "$OUT" | sed -n 's/^changed \([0-9]*\), .*not attempted \([0-9]*\)$/\1/p')
skip_n=$(printf '%s\n' "$OUT" | sed -n 's/^changed \([0-9]*\), .*not attempted \([0-9]*\)$/\2/p')
run threads_at
at200=$(printf '%s\n' "$OUT" | awk '$3 == 200 { print $1 }')
at1024=$(printf '%s\n' "$OUT" | awk '$3 == 1024 { print $1 }')
check "the report says exactly what was done: $done_n changed ($at200 at 200), $skip_n not ($at1024)" \
	test "${done_n:-x}" = "${at200:-y}" -a "${skip_n:-x}" = "${at1024:-y}"
check "some done, some not" test "${done_n:-0}" -gt 0 -a "${skip_n:-0}" -gt 0
kill "$TP"
done_scenario
