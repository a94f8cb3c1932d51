# uclampctl watch on the real kernel (6.1: the 4-byte connector form):
# refused without consent (key stays 0); with consent it subscribes, scans,
# says READY=1 to a fake NOTIFY_SOCKET, and clamps a matching program within
# 100 ms of its exec while a non-matching one stays untouched; a thread
# renamed with prctl(PR_SET_NAME) is matched; SIGHUP with a new rule takes
# effect; a broken configuration keeps the old rules; 'watch status -J'
# shows the counters; a drop-in directory created after the start, and a
# file in it, are picked up without SIGHUP; SIGTERM stops it with exit 0.
# vm-timeout: 300
# vm-on-7x: the proc connector's message form (4-byte on 6.1)
. "$(dirname "$0")/../lib.sh"
T=$(mktemp -d)
H="$VM_DIR/helpers"
expect_key 0 "right after boot"
helper clampwait "$T/uc-probe" && cp "$T/uc-probe" "$T/uc-other" && cp "$T/uc-probe" "$T/uc-second" && cp "$T/uc-probe" "$T/uc-late" &&
	helper rename "$T/uc-render"
check "helpers built" test -x "$T/uc-render"

cat >"$T/noconsent.conf" <<CONF
[tasks probe]
comm = uc-probe
max = 300
CONF
expect_rc 3 timeout 60 "$UCLAMPCTL" watch -c "$T/noconsent.conf" --socket "$T/s.sock"
expect_out 'would enable the uclamp fast path .*--yes or .allow-enable = yes'
expect_key 0 "after the refusal"

consented_conf "$T/w.conf" <<CONF

[tasks probe]
comm = uc-probe
max = 300

[tasks render]
comm = RenderThread
threads = yes
min = 200
CONF
python3 "$H/notify-listen.py" "$T/notify.sock" "$T/notify.out" & NL=$!
for _ in $(seq 50); do grep -q listening "$T/notify.out" 2>/dev/null && break; sleep 0.1; done
# later.d/ does not exist yet: a drop-in directory created while it runs
NOTIFY_SOCKET="$T/notify.sock" "$UCLAMPCTL" watch -c "$T/w.conf" -c "$T/later.d/" \
	--socket "$T/s.sock" >"$T/log" 2>&1 & W=$!
for _ in $(seq 300); do grep -q 'READY=1' "$T/notify.out" && break; sleep 0.1; done
check "READY=1 after the ack and the first scan" grep -q 'READY=1' "$T/notify.out"
check "STATUS= with counters" grep -q 'STATUS=rules generation 1 (2 rules)' "$T/notify.out"
expect_key 0 "watching, nothing matched yet"

run "$T/uc-probe" 300 2000
expect_out '^clamped [0-9]+$'
US=$(printf '%s\n' "$OUT" | sed -n 's/^clamped //p')
echo "  exec -> clamp: ${US:-?} us"
check "clamped within 100 ms of exec" test "${US:-999999}" -lt 100000
expect_key 1 "after the first clamp"
run "$T/uc-other" 300 300
expect_out '^unclamped$'

# a renamed thread: the COMM event re-matches that thread only
"$T/uc-render" RenderThread 30 >"$T/render.out" & R=$!
for _ in $(seq 100); do grep -q ready "$T/render.out" && break; sleep 0.1; done
RT=$(sed -n 's/^ready //p' "$T/render.out")
sleep 0.3
check "the renamed thread got min 200" test "$(tclamp "$RT")" = "200 1024"
check "its main thread was left alone" test "$(tclamp "$R")" = "0 1024"

# SIGHUP with a new rule
cat >>"$T/w.conf" <<CONF

[tasks second]
comm = uc-second
max = 500
CONF
kill -HUP $W
sleep 1
run "$T/uc-second" 500 2000
expect_out '^clamped [0-9]+$'

# a broken configuration: the old rules stay, the log names file:line
cp "$T/w.conf" "$T/good.conf"
printf '\n[tasks broken]\ncomm = x\nmax = 5000\n' >>"$T/w.conf"
kill -HUP $W
sleep 1
check "the log names the bad line" grep -qE "w\.conf:[0-9]+: " "$T/log"
check "the log says the old rules stay" grep -q 'keeping the rules of generation' "$T/log"
run "$T/uc-second" 500 2000
expect_out '^clamped [0-9]+$'

expect_rc 0 uclampctl watch status -J --socket "$T/s.sock"
expect_out '"generation": 2,'
expect_out '"rescans": \{"start": 1, "overrun": 0, "seq_gap": 0, "queue_full": 0, "reload": [12], "locked": 0\}'
expect_out '"applied": [3-9]'
expect_out '"reload_failures": [1-9]'
expect_out '"exec": [1-9]'
expect_rc 0 uclampctl watch status --format=prometheus --socket "$T/s.sock"
expect_out '^uclampctl_watch_rescans_total\{cause="start"\} 1$'
expect_out '^uclampctl_watch_exec_apply_latency_seconds_count [3-9]'
check "RELOADING=1 sent around the reload" grep -q 'RELOADING=1' "$T/notify.out"

# the good file back, then the drop-in directory appears, then a file in it:
# each noticed (inotify), no SIGHUP
cp "$T/good.conf" "$T/w.conf"
sleep 1
mkdir "$T/later.d"
sleep 1
printf '[tasks late]\ncomm = uc-late\nmax = 600\n' >"$T/later.d/50-late.conf"
sleep 1
run "$T/uc-late" 600 2000
expect_out '^clamped [0-9]+$'
check "reloaded on the edits" grep -q 'reload (configuration changed): rules generation [3-9], 3 rule' "$T/log"
check "and on the drop-in" grep -q 'reload (configuration changed): rules generation [4-9], 4 rule' "$T/log"

kill -TERM $W
wait $W
RC=$?
CHECKS=$((CHECKS + 1))
if [ "$RC" = 0 ]; then _ok "SIGTERM: exit 0"; else _fail "SIGTERM: exit $RC"; fi
check "the socket is gone" test ! -e "$T/s.sock"
echo "  --- daemon log"; sed 's/^/    | /' "$T/log"
kill $NL $R 2>/dev/null
expect_key 1 "at the end"
done_scenario
