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
# the daemon's event counters around the window: what woke it, if anything
mkfifo "$WORK/never"
exec 3<>"$WORK/never"
watch_status | awk '$1 == "events"' >"$WORK/e0"
read -r -t "${SETTLE:-2}" -u 3 _ || true	# a builtin: the query's own events reach the daemon first
# Inside the window only bash builtins, and no file written: an exec or fork
# is a proc connector event, and a file written in $WORK (the config's
# directory, watched with inotify) an inotify event; either would wake it.
ticks() {	# TICKS = its utime + stime
	local l f
	read -r l <"/proc/$WP/stat"
	read -ra f <<<"${l##*) }"
	TICKS=$((f[11] + f[12]))
}
ctxt "$WP"; ticks; c0=$CS k0=$TICKS
read -r -t "$S" -u 3 _ || true
ctxt "$WP"; ticks; c1=$CS k1=$TICKS
watch_status | awk '$1 == "events"' >"$WORK/e1"
echo "bench: watch idle for ${S}s; kernel $(uname -r)"
echo "wakeups (context switches): $((c1 - c0)); CPU ticks: $((k1 - k0)); RSS: $(awk '/VmRSS/ { print $2, $3 }' "/proc/$WP/status")"
# proc connector events it received from before the window to after it, the
# queries' own forks, execs and exits included (before 6.6 the connector
# cannot filter: every fork and exit in the system is delivered)
echo "events before: $(cut -c24- "$WORK/e0")"
echo "events after:  $(cut -c24- "$WORK/e1")"
