#!/bin/bash
# exec -> clamp latency of 'uclampctl watch': N (1,000) execs of a matching
# program that, as its first act, reads its own clamps (sched_getattr) until
# util_max is 300; it prints the microseconds from its start. p50/p99 and the
# count left unclamped after 1 s; the daemon's own exec->apply histogram
# (from the connector's timestamp) beside it. Goal: p99 < 5 ms under TCG,
# none unclamped.
# usage (in the VM, see bench/README.md): UCLAMPCTL=... bench/watch-latency.sh
. "$(dirname "$0")/lib.sh"
. "$BENCH_DIR/watch-lib.sh"
N=${N:-1000}
trap 'stop_watch; rm -rf "$WORK"' EXIT
build_probe
probe_conf
start_watch "$WORK/w.conf"
echo "bench: $N execs of a matching probe; kernel $(uname -r), $(nproc) CPU(s)"
t0=$(now_ns)
for _ in $(seq "$N"); do "$WORK/uc-probe" 300 1000; done >"$WORK/lat"
t1=$(now_ns)
clamped=$(grep -c '^clamped' "$WORK/lat" || true)
sed -n 's/^clamped //p' "$WORK/lat" >"$WORK/us"
echo "clamped: $clamped of $N; unclamped after 1 s: $((N - clamped))"
echo "exec->clamp as the child sees it (us): p50 $(pct 50 <"$WORK/us")  p90 $(pct 90 <"$WORK/us")  p99 $(pct 99 <"$WORK/us")  max $(pct 100 <"$WORK/us")"
echo "execs per second: $(awk -v n="$N" -v d="$((t1 - t0))" 'BEGIN { printf "%.0f", n / (d / 1e9) }')"
watch_status --format=prometheus | grep -E 'exec_apply_latency_seconds_(bucket\{le="0.00(1|5)"\}|bucket\{le="0.01"\}|sum|count)|rescans_total|applied_total'
