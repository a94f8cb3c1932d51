#!/bin/bash
# Memory of 'uclampctl watch' with N (10,000) tracked processes: N matching
# processes exist before it starts, its first scan clamps and tracks them
# all; RSS (VmRSS) and the table's count. Goal: < 4 MiB.
# usage (in the VM, see bench/README.md): UCLAMPCTL=... bench/watch-rss.sh
. "$(dirname "$0")/lib.sh"
. "$BENCH_DIR/watch-lib.sh"
N=${N:-10000}
need_pids "$N"
gcc -O2 -o "$WORK/procs" "$BENCH_DIR/procs.c"
"$WORK/procs" "$N" >"$WORK/ready" 2>&1 &
PP=$!
trap 'stop_watch; kill $PP 2>/dev/null; rm -rf "$WORK"' EXIT
wait_ready "$WORK/ready" "$PP"
cat >"$WORK/w.conf" <<CONF
[fast-path]
allow-enable = yes

[tasks procs]
comm = procs
max = 300
CONF
t0=$(now_ns)
start_watch "$WORK/w.conf"
t1=$(now_ns)
echo "bench: $N matching processes; kernel $(uname -r)"
echo "first scan + ready: $(( (t1 - t0) / 1000000 )) ms"
watch_status | grep -E 'tracked|tasks'
echo "RSS: $(awk '/VmRSS/ { print $2, $3 }' "/proc/$WP/status"); VmHWM: $(awk '/VmHWM/ { print $2, $3 }' "/proc/$WP/status")"
