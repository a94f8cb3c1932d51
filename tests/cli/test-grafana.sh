#!/bin/bash
# contrib/grafana/uclamp-fleet.json against the exporter: every metric its
# PromQL uses must be one 'uclampctl status --textfile' writes (run here with
# the built binary on a fake root), so the dashboard cannot drift from
# 'uclampctl status --format=prometheus'. The alert rules: test-promtool.sh.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/cli/lib.sh"

if ! command -v python3 >/dev/null; then
	echo "SKIP: python3 is needed to read the dashboard and craft the kcore image"
	exit 77
fi
TOP=$TESTS_SRCDIR/..
fake_root
fake_release 6.1.0-test
fake_sysctls 1024 1024 1024
echo 0 >"$ROOT/proc/sys/kernel/kptr_restrict"
fake_key 0 || _fail "mkkcore.py"
D=$ROOT/textfile
mkdir -p "$D"

# no watch daemon: the file has no uclampctl_watch_* metrics, and is written
t "status --textfile" 0 "$UCLAMPCTL" status --textfile "$D/uclamp.prom" --socket "$ROOT/none.sock"
OUT=$(cat "$D/uclamp.prom" 2>&1)
has '^uclamp_fast_path_state\{state="off",source="kcore"\} 0$'
has '^uclamp_threads_nondefault [0-9]+$'
has '^uclamp_config_drift -?[01]$'
hasnt '^uclampctl_watch_'

# the watch daemon's metrics, from its socket (a stand-in)
S=$ROOT/watch.sock
python3 "$TESTS_SRCDIR/cli/fake-watch-status.py" "$S" 1 >/dev/null 2>&1 &
for _ in $(seq 50); do [ -S "$S" ] && break; sleep 0.1; done
t "status --textfile with watch running" 0 "$UCLAMPCTL" status --textfile "$D/uclamp.prom" --socket "$S"
wait
OUT=$(cat "$D/uclamp.prom" 2>&1)
has '^uclamp_fast_path_state\{state="off",source="kcore"\} 0$'
has '^uclampctl_watch_rescans_total\{cause="start"\} [0-9]+$'
has '^uclampctl_watch_exec_apply_latency_seconds_bucket\{le="\+Inf"\} [0-9]+$'

OUT=$(python3 "$TESTS_SRCDIR/cli/test-grafana.py" "$TOP/contrib/grafana/uclamp-fleet.json" "$D/uclamp.prom" 2>&1)
RC=$?
printf '%s\n' "$OUT" | grep -E '^(not )?ok '
[ "$RC" = 0 ] && _pass "dashboard: every metric is exported" || _fail "dashboard check failed"

# the parser must be able to fail: a metric nobody exports
sed 's/uclamp_cgroups_nondefault/uclamp_cgroups_clamped/' "$TOP/contrib/grafana/uclamp-fleet.json" >"$ROOT/bad.json"
OUT=$(python3 "$TESTS_SRCDIR/cli/test-grafana.py" "$ROOT/bad.json" "$D/uclamp.prom" 2>&1)
[ $? = 1 ] && _pass "a renamed metric is caught" || _fail "a renamed metric is not caught"
has '^not ok - uclamp_cgroups_clamped is used by the dashboard but no exporter prints it$'

finish
