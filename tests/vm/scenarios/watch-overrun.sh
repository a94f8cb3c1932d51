# uclampctl watch when the real kernel drops proc connector events: the
# daemon (the test build, its receive buffer shrunk to 4 KiB with
# $UCLAMPCTL_TEST_RCVBUF) is stopped with SIGSTOP while 40 matching programs
# start, so the socket overflows (ENOBUFS). After SIGCONT it must count the
# overrun, say so in its log, rescan /proc and clamp every one of the 40:
# none is missed, none silently.
# vm-timeout: 300
# vm-on-7x: the connector's ENOBUFS when it drops events
. "$(dirname "$0")/../lib.sh"
T=$(mktemp -d)
N=40
: "${UCLAMPCTL_TEST:?the test build is needed (its receive-buffer seam)}"
cp /bin/sleep "$T/uc-sleep"
expect_key 0 "right after boot"
tasks_conf "$T/w.conf" "sleepers uc-sleep max=300"
status() { watch_prom "$T/s.sock"; }
metric() { watch_metric "$T/s.sock" "$1"; }

UCLAMPCTL_TEST_RCVBUF=4096 "$UCLAMPCTL_TEST" watch -c "$T/w.conf" --socket "$T/s.sock" \
	>"$T/log" 2>&1 & W=$!
for _ in $(seq 300); do status >/dev/null 2>&1 && break; sleep 0.1; done
check "the daemon answers" status >/dev/null
check "no overrun before the storm" test "$(metric overruns_total)" = 0

kill -STOP $W
for _ in $(seq $N); do "$T/uc-sleep" 600 & done
sleep 1	# their fork/exec/exit events pile up in the 4 KiB buffer
kill -CONT $W

# every one of them clamped: by the rescan, the events being lost
clamped() { uclampctl task show --comm uc-sleep -o UTIL_MAX -n -r | grep -cx 300; }
for _ in $(seq 200); do [ "$(clamped)" = $N ] && break; sleep 0.1; done
check "all $N clamped to 300 ($(clamped) are)" test "$(clamped)" = $N
run uclampctl task show --comm uc-sleep -o PID,COMM,UTIL_MAX
expect_no_out ' 1024$'
OV=$(metric overruns_total)
check "the overrun was counted (overruns $OV)" test "${OV:-0}" -ge 1
run status
expect_out '^uclampctl_watch_rescans_total\{cause="overrun"\} [1-9]'
check "the log says events were lost and it rescans" \
	grep -q 'proc events were lost (overrun' "$T/log"

kill -TERM $W
wait $W
check "SIGTERM: exit 0" test $? = 0
echo "  --- daemon log (the per-process lines left out)"
grep -v " rule .sleepers.: " "$T/log" | sed "s/^/    | /"
pkill -x uc-sleep
expect_key 1 "at the end (consent was given)"
done_scenario
