#!/bin/bash
# uclampctl watch before the event loop: usage errors, configuration errors
# (file:line, exit 2), the refusal without consent (exit 3, one line, and it
# never subscribes), --oneshot as apply, 'watch status' without a daemon, and a
# second watch refused while a live one answers at the status socket.
# The daemon itself runs on the real kernel: tests/vm/scenarios/watch-rules.sh.
. "$TESTS_SRCDIR/cli/lib.sh"
U=$UCLAMPCTL
fake_root 1024 1024 1024
fake_key 0
C=$ROOT/conf
mkdir -p "$C"

t "help" 0 $U watch --help
has 'watch status'
t "an argument" 2 $U watch bogus
has "unexpected argument 'bogus'"
t "-J without status" 2 $U watch -J
has "go with 'watch status'"
t "status with a daemon option" 2 $U watch status --dry-run
has 'watch status takes only'
t "an unknown format" 2 $U watch status --format=xml
has "invalid format 'xml' for --format: use text, json or prometheus"
t "no daemon" 1 $U watch status --socket "$ROOT/none.sock"
has 'the daemon is not running'

printf '[tasks a]\ncomm = x\n\nmax = 5000\n' >"$C/bad.conf"
t "a bad configuration" 2 $U watch -c "$C/bad.conf" --socket "$ROOT/s.sock"
has 'bad\.conf:4: '
has 'errors in the configuration: not started'

printf '[tasks a]\ncomm = x\nmax = 300\n' >"$C/noconsent.conf"
t "rules that set clamps, key off, no consent" 3 $U watch -c "$C/noconsent.conf" --socket "$ROOT/s.sock"
has 'would enable the uclamp fast path \(sched_uclamp_used is off\)'
[ "$(printf '%s\n' "$OUT" | wc -l)" = 1 ] && _pass "one line" || _fail "more than one line"
[ ! -e "$ROOT/s.sock" ] && _pass "never started" || _fail "a status socket exists"

t "--oneshot is apply (dry run)" 0 $U watch --oneshot --dry-run -c "$C/noconsent.conf"
has 'nothing to change|dry run'
# ---- a kernel without uclamp: exit 4 (an enabled service fails visibly), unless
# told to idle (one unit for a fleet where some kernels lack it) ----------------
printf '[fast-path]\nallow-enable = yes\n' >"$C/norules.conf"
rm -f "$ROOT"/proc/sys/kernel/sched_util_clamp_*
t "no uclamp, no rules: exit 4" 4 timeout 20 $U watch -c "$C/norules.conf" --socket "$ROOT/idle.sock"
has "^uclampctl: this kernel has no uclamp \(CONFIG_UCLAMP_TASK, Linux 5\.3\+\): watch has nothing to do \(--idle-without-uclamp keeps it running\)$"
t "no uclamp, rules: exit 4" 4 timeout 20 $U watch -c "$C/noconsent.conf" --socket "$ROOT/idle.sock"
[ ! -e "$ROOT/idle.sock" ] && _pass "never started" || _fail "a status socket exists"
$U watch --idle-without-uclamp -c "$C/norules.conf" --socket "$ROOT/idle.sock" >"$ROOT/idle.out" 2>&1 &
IDLE=$!
sleep 1
kill -0 $IDLE 2>/dev/null && _pass "--idle-without-uclamp: still running" || _fail "--idle-without-uclamp exited: $(cat "$ROOT/idle.out")"
kill -TERM $IDLE
wait $IDLE
RC=$?
[ "$RC" = 0 ] && _pass "--idle-without-uclamp: SIGTERM, exit 0" || _fail "--idle-without-uclamp: exit $RC"
OUT=$(cat "$ROOT/idle.out")
has '^uclampctl: warning: watch: this kernel has no uclamp .*: idle until stopped \(--idle-without-uclamp\)$'
t "--recheck: a bad value" 2 $U watch --recheck 1.5
has "invalid value '1\.5' for --recheck: use whole seconds from 0 \(never\) to 86400"
fake_sysctls 1024 1024 1024
# 'watch status' renders the daemon's counters (a stand-in serves them in the
# daemon's wire format): the table, JSON through the one JSON writer, and the
# Prometheus names the Grafana dashboard queries.
S=$ROOT/status.sock
python3 "$TESTS_SRCDIR/cli/fake-watch-status.py" "$S" 7 >"$ROOT/fake.out" 2>&1 &
FAKE=$!
alias_value "$FAKE" DAEMON
for _ in $(seq 50); do [ -S "$S" ] && break; sleep 0.1; done
t "status: the table" 0 $U watch status --socket "$S"
has '^rescans +start=1 overrun=1 seq_gap=2 queue_full=0 reload=0 locked=0$'
has '^tracked processes +17 \(cap 65536\)$'
# the plain format's word is "text", as for status; "table" (its old word) still works
for f in text table; do
	t "status --format=$f" 0 $U watch status --socket "$S" --format=$f
	has '^tracked processes +17 \(cap 65536\)$'
done
t "status: JSON" 0 $U watch status --socket "$S" -J
if printf '%s\n' "$OUT" | python3 -c 'import json, sys
d = json.load(sys.stdin)
lat = d["exec_apply_latency"]
assert d["generation"] == 3 and d["events"]["exec"] == 12 and d["rescans"]["seq_gap"] == 2
assert d["errors"] == {"EPERM": 4} and d["queue"]["high_water"] == 9
assert lat["count"] == 3 and abs(lat["sum_seconds"] - 0.0045) < 1e-9
assert lat["buckets"][0]["count"] == 1 and lat["buckets"][-1] == {"le": "+Inf", "count": 3}'; then
	_pass "status -J parses and holds the counters"
else
	_fail "status -J is not the counters as JSON"
fi
t "status: prometheus" 0 $U watch status --socket "$S" --format=prometheus
has '^uclampctl_watch_rescans_total\{cause="seq_gap"\} 2$'
has '^uclampctl_watch_exec_apply_latency_seconds_count 3$'
has '^uclampctl_watch_exec_apply_latency_seconds_bucket\{le="\+Inf"\} 3$'
# a second watch beside a live one: refused with the live one's PID (from the
# socket's credentials), before anything else; the socket stays and answers
t "a second watch: a live daemon answers at the socket" 1 $U watch -c "$C/noconsent.conf" --socket "$S"
has "^uclampctl: watch: a watch daemon \(PID $FAKE\) already answers at $S: not started"
t "status: the first one still answers" 0 $U watch status --socket "$S"
has '^pid +4242$'
wait
finish
