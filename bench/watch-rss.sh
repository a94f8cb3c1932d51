#!/bin/bash
# Memory of 'uclampctl watch' with N (10,000) tracked processes: N matching
# processes exist before it starts, its first scan clamps and tracks them
# all; RSS (VmRSS) and the table's count. Goal: < 4 MiB.
# usage (in the VM, see bench/README.md): UCLAMPCTL=... bench/watch-rss.sh
. "$(dirname "$0")/lib.sh"
. "$BENCH_DIR/watch-lib.sh"
N=${N:-10000}
PP=
trap 'stop_watch; [ -z "$PP" ] || kill $PP 2>/dev/null; rm -rf "$WORK"' EXIT
start_procs "$N"
printf '[fast-path]\nallow-enable = yes\n[tasks procs]\ncomm = procs\nmax = 300\n' >"$WORK/w.conf"
t0=$(now_ns)
start_watch "$WORK/w.conf"
t1=$(now_ns)
echo "bench: $N matching processes; kernel $(uname -r)"
echo "first scan + ready: $(( (t1 - t0) / 1000000 )) ms"
watch_status | grep -E 'tracked|tasks'
echo "RSS: $(awk '/VmRSS/ { print $2, $3 }' "/proc/$WP/status"); VmHWM: $(awk '/VmHWM/ { print $2, $3 }' "/proc/$WP/status")"
