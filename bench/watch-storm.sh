#!/bin/bash
# An exec storm for S (10) seconds: a loop of matching probes (each waits at
# most 100 ms for its clamp, then says "unclamped") plus, on the other CPU,
# a loop of non-matching execs. Counts the matching processes left
# unclamped > 100 ms after exec, with 'uclampctl watch' and then with the
# loop admins use today ('while sleep 1; do uclampctl apply; done').
# Goal: 0 with watch (rescans catch what the socket drops).
# usage (in the VM, see bench/README.md): UCLAMPCTL=... bench/watch-storm.sh
. "$(dirname "$0")/lib.sh"
. "$BENCH_DIR/watch-lib.sh"
S=${S:-10}
AP=
trap 'stop_watch; [ -n "$AP" ] && kill "$AP" 2>/dev/null; rm -rf "$WORK"' EXIT
build_probe
probe_conf
ncpu=$(nproc)
storm() {
	local end=$(($(date +%s) + S)) other=
	if [ "$ncpu" -gt 1 ]; then
		(while [ "$(date +%s)" -lt "$end" ]; do taskset -c 1 /bin/true; done) &
		other=$!
	fi
	while [ "$(date +%s)" -lt "$end" ]; do taskset -c 0 "$WORK/uc-probe" 300 100; done >"$WORK/storm"
	# only the storm: the daemon is a background job of this shell too
	[ -n "$other" ] && wait "$other"
	local n u
	n=$(wc -l <"$WORK/storm")
	u=$(grep -c '^unclamped' "$WORK/storm" || true)
	echo "$1: $n matching execs in ${S}s, unclamped after 100 ms: $u ($(ratio "$((u * 100))" "$n")%)"
}
echo "bench: exec storm ${S}s; kernel $(uname -r), $ncpu CPU(s)"
start_watch "$WORK/w.conf"
storm "watch"
watch_status --format=prometheus | grep -E 'events_total\{type="exec"\}|overruns_total|seq_gaps_total|queue_drops_total|rescans_total|applied_total|queue_high_water'
stop_watch
(while sleep 1; do "$UCLAMPCTL" -q apply -c "$WORK/w.conf" --yes >/dev/null 2>&1; done) &
AP=$!
storm "apply loop (1 s)"
