# uclampctl watch under a fork storm no rule can match: 10,000 children of
# helpers/forks.c that exit at once without exec. The socket filter (procev_filter.c,
# derived from the rules: name selectors need exec and comm events only)
# keeps their fork and exit events in the kernel, so the daemon wakes at most
# MAXWAKE times in the storm (its context switches, read with shell builtins
# only: no exec of ours reaches it) and receives none of them (its event
# counters). A matching program started after the storm is still clamped:
# the filter drops nothing the rules need.
# vm-timeout: 1500
# vm-on-7x: the proc connector's event filter (6.6+) beside the socket filter
. "$(dirname "$0")/../lib.sh"
T=$(mktemp -d)
N=10000
MAXWAKE=20
helper clampwait "$T/uc-probe" || exit 1
helper forks "$T/forks" || exit 1
expect_key 0 "right after boot"
tasks_conf "$T/w.conf" "probe uc-probe max=300"
status() { watch_prom "$T/s.sock"; }
metric() { watch_metric "$T/s.sock" "$1"; }
"$UCLAMPCTL" watch -c "$T/w.conf" --socket "$T/s.sock" >"$T/log" 2>&1 & W=$!
for _ in $(seq 300); do status >/dev/null 2>&1 && break; sleep 0.1; done
check "the daemon answers" status >/dev/null
check "the log says the socket filter is on" grep -q 'socket-filtered events' "$T/log"
F0=$(metric 'events_total{type="fork"}')
X0=$(metric 'events_total{type="exit"}')
E0=$(metric 'events_total{type="exec"}')
mkfifo "$T/never"
exec 3<>"$T/never"
read -r -t 2 -u 3 _ || true	# the queries' own events reach it first
cs() {	# CS = the daemon's context switches (voluntary + not), builtins only
	local k v
	CS=0
	while read -r k v _; do
		case $k in *ctxt_switches:) CS=$((CS + v)) ;; esac
	done <"/proc/$W/status"
}
cs; c0=$CS
"$T/forks" $N	# one exec (its own): the rest are forks and exits
read -r -t 1 -u 3 _ || true
cs; c1=$CS
echo "  $N forks and exits: the daemon woke $((c1 - c0)) times"
check "at most $MAXWAKE wakeups in the storm ($((c1 - c0)))" test $((c1 - c0)) -le $MAXWAKE
F1=$(metric 'events_total{type="fork"}')
X1=$(metric 'events_total{type="exit"}')
E1=$(metric 'events_total{type="exec"}')
echo "  events received: fork $F0 -> $F1, exit $X0 -> $X1, exec $E0 -> $E1"
check "no fork event reached it ($F0 -> $F1)" test "$F1" = "$F0"
check "no exit event reached it ($X0 -> $X1)" test "$X1" = "$X0"
run "$T/uc-probe" 300 5000
expect_out '^clamped'
check "and it counted that exec ($E1 -> $(metric 'events_total{type="exec"}'))" \
	test "$(metric 'events_total{type="exec"}')" -gt "$E1"
kill -TERM $W
wait $W
check "SIGTERM: exit 0" test $? = 0
expect_key 1 "at the end (consent was given, the probe clamped)"
done_scenario
