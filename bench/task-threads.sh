#!/bin/bash
# util_max 300 on every thread of one process with N (10,000) threads:
#   setattr-loop PID 300                        (readdir + sched_setattr: the lower bound)
#   uclampctl -q task set --max 300 --threads --yes PID
#   uclampset -a -p PID -M 300                  (util-linux)
# Before each timed run every thread goes back to 1024 (untimed), so each
# tool does the full work; each run is checked (all N threads at 300). The
# tools take turns within each of R rounds, so load changes on the host hit
# them alike; the ratios are medians of the per-round ratios.
# usage (in the VM, see bench/README.md): UCLAMPCTL=... bench/task-threads.sh
. "$(dirname "$0")/lib.sh"
N=${N:-10000}

need_pids "$N"
gcc -O2 -pthread -o "$WORK/threads" "$SRC_DIR/tests/vm/helpers/threads.c"
gcc -O2 -o "$WORK/setattr-loop" "$BENCH_DIR/setattr-loop.c"
"$WORK/threads" "$N" benchthreads >"$WORK/ready" 2>&1 &
TP=$!
trap 'kill $TP 2>/dev/null; rm -rf "$WORK"' EXIT
wait_ready "$WORK/ready" "$TP"
[ "$(ls "/proc/$TP/task" | wc -l)" = "$N" ] || die "expected $N threads"
echo "bench: process $TP with $N threads; $R rounds; kernel $(uname -r), $(nproc) CPUs"

at_300() { uclampset -a -p "$TP" | grep -c 'max: 300$' || true; }
# once NAME CMD...: one timed run from all threads at 1024; prints microseconds
once() {
	local name=$1 t0 t1 n
	shift
	"$WORK/setattr-loop" "$TP" 1024 >/dev/null
	t0=$(now_ns)
	"$@" >/dev/null 2>&1 || true
	t1=$(now_ns)
	n=$(at_300)
	[ "$n" = "$N" ] || die "$name: $n of $N threads at 300"
	echo $(((t1 - t0) / 1000))
}

: >"$WORK/times"
for r in $(seq 1 "$R"); do
	l=$(once setattr-loop "$WORK/setattr-loop" "$TP" 300)
	c=$(once uclampctl "$UCLAMPCTL" -q task set --max 300 --threads --yes "$TP")
	s=$(once uclampset uclampset -a -p "$TP" -M 300)
	echo "$l $c $s" >>"$WORK/times"
	echo "round $r: setattr-loop ${l}us, uclampctl ${c}us, uclampset ${s}us"
done
col() { awk -v c="$1" '{ print $c }' "$WORK/times" | median; }
rcol() { awk -v a="$1" -v b="$2" '{ printf "%.3f\n", $a / $b }' "$WORK/times" | median; }
printf '%-14s %12s %10s\n' tool "median us" "x loop"
printf '%-14s %12s %10s\n' setattr-loop "$(col 1)" 1.00
printf '%-14s %12s %10.2f\n' uclampctl "$(col 2)" "$(rcol 2 1)"
printf '%-14s %12s %10.2f\n' uclampset "$(col 3)" "$(rcol 3 1)"
echo "uclampctl / lower bound: $(rcol 2 1)x (goal <= 1.30); uclampset / uclampctl: $(rcol 3 2)x"
