#!/bin/bash
# Idle cost of 'uclampctl watch': context switches (wakeups) and CPU ticks
# (utime + stime) of the daemon over S (60) seconds with no process
# starting, and its RSS. Goal: 0 wakeups, 0 ticks.
# usage (in the VM, see bench/README.md): UCLAMPCTL=... bench/watch-idle.sh
. "$(dirname "$0")/lib.sh"
. "$BENCH_DIR/watch-lib.sh"
S=${S:-60}
trap 'stop_watch; rm -rf "$WORK"' EXIT
probe_conf
start_watch "$WORK/w.conf"
sleep 2
cs() { awk '/ctxt_switches/ { s += $2 } END { print s }' "/proc/$WP/status"; }
ticks() { awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$WP/stat"; }
c0=$(cs) k0=$(ticks)
sleep "$S"
c1=$(cs) k1=$(ticks)
echo "bench: watch idle for ${S}s; kernel $(uname -r)"
echo "wakeups (context switches): $((c1 - c0)); CPU ticks: $((k1 - k0)); RSS: $(awk '/VmRSS/ { print $2, $3 }' "/proc/$WP/status")"
