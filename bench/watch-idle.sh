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
# bash builtins only inside the window: an exec would be an event, and wake it
cs() {
	local k v s=0
	while read -r k v _; do
		case $k in *ctxt_switches:) s=$((s + v)) ;; esac
	done <"/proc/$WP/status"
	echo "$s"
}
ticks() {
	local l f
	read -r l <"/proc/$WP/stat"
	read -ra f <<<"${l##*) }"
	echo $((f[11] + f[12]))
}
mkfifo "$WORK/never"
exec 3<>"$WORK/never"
cs >"$WORK/c0"; ticks >"$WORK/k0"
read -r -t "$S" -u 3 _ || true
cs >"$WORK/c1"; ticks >"$WORK/k1"
c0=$(<"$WORK/c0") k0=$(<"$WORK/k0") c1=$(<"$WORK/c1") k1=$(<"$WORK/k1")
echo "bench: watch idle for ${S}s; kernel $(uname -r)"
echo "wakeups (context switches): $((c1 - c0)); CPU ticks: $((k1 - k0)); RSS: $(awk '/VmRSS/ { print $2, $3 }' "/proc/$WP/status")"
