# A reload that withdraws consent takes it away at once (issue 17, item 1):
# watch runs with allow-enable = yes from a drop-in, the key still 0 (nothing
# matched yet). The drop-in is deleted (inotify reloads), later set to 'no'
# (SIGHUP): each reload is refused, the old rules stay but without their
# consent, so a matching program that starts next is not clamped (one log
# line, counted as refused) and the key stays 0. A reload that brings the
# consent back is not needed for that and is not made: the key is read before,
# between and after. The counters show it in every format.
# vm-timeout: 420
. "$(dirname "$0")/../lib.sh"
T=$(mktemp -d)
expect_key 0 "right after boot"
check "the probe" helper clampwait "$T/uc-probe"
mkdir "$T/d"
printf '[tasks probe]\ncomm = uc-probe\nmax = 300\n' >"$T/w.conf"
printf '[fast-path]\nallow-enable = yes\n' >"$T/d/50-consent.conf"
status() { "$UCLAMPCTL" watch status "$@" --socket "$T/s.sock"; }
metric() { status --format=prometheus | awk -v m="uclampctl_watch_$1" '$1 == m { print $2 }'; }

"$UCLAMPCTL" watch -c "$T/w.conf" -c "$T/d/" --socket "$T/s.sock" >"$T/log" 2>&1 & W=$!
for _ in $(seq 300); do status >/dev/null 2>&1 && break; sleep 0.1; done
check "the daemon answers" status
check "it started with the drop-in's consent" grep -q 'first clamp written will enable the uclamp fast path (consent: allow-enable = yes)' "$T/log"
expect_key 0 "watching, nothing matched yet"

# 1. the drop-in that held the consent is deleted: inotify reloads, refused
rm "$T/d/50-consent.conf"
for _ in $(seq 50); do grep -q 'reload (configuration changed) failed' "$T/log" && break; sleep 0.1; done
check "the reload was refused" grep -q 'reload (configuration changed) failed: keeping the rules of generation 1 without their consent' "$T/log"
run "$T/uc-probe" 300 1500
expect_out '^unclamped$'
expect_key 0 "after a matching program started (consent withdrawn)"
check "its refusal logged" grep -qE "pid [0-9]+ tid [0-9]+: rule 'probe' would enable the uclamp fast path and there is no consent \(withdrawn" "$T/log"

# 2. the drop-in back with 'no' and SIGHUP: refused again, still nothing written
printf '[fast-path]\nallow-enable = no\n' >"$T/d/50-consent.conf"
sleep 1
kill -HUP $W
for _ in $(seq 50); do [ "$(grep -c 'reload (SIGHUP) failed' "$T/log")" -ge 1 ] && break; sleep 0.1; done
run "$T/uc-probe" 300 1500
expect_out '^unclamped$'
expect_key 0 "after a second matching program"

run status
expect_out '^reloads +ok=0 failed=[2-9] consent_withdrawn=1$'
expect_out 'refused=[2-9]'
run status -J
expect_out '"consent_withdrawn": 1,'
expect_out '"refused": [2-9],'
expect_out '"applied": 0,'
run status --format=prometheus
expect_out '^uclampctl_watch_consent_withdrawn_total 1$'
expect_out '^uclampctl_watch_refused_total [2-9]$'

kill -TERM $W
wait $W
check "SIGTERM: exit 0" test $? = 0
echo "  --- daemon log"; sed 's/^/    | /' "$T/log"
expect_key 0 "at the end"
done_scenario
