#!/bin/bash
# uclampctl watch against the daemons admins run for the same job today, on
# the same kernel in the same run, one at a time, all matching the same
# program (the probe, tests/vm/helpers/clampwait.c, named uc-probe):
#
#   uclampctl   watch, [tasks] comm = uc-probe, max = 300     probe polls util_max
#   tuned       scheduler plugin (perf COMM events), group     probe polls its policy
#               uc-probe -> SCHED_BATCH (the VM has 1 CPU: no affinity to set)
#   cgrulesengd cgroup-tools (proc connector), *:uc-probe      probe polls /proc/self/cgroup
#               -> /sys/fs/cgroup/uc-peer
#
# Per daemon: exec->applied latency as the child sees it (NL, 300 execs one
# after another, p50/p99/max over the probes run; a probe not applied within
# WAIT_MS counts as "never", later than any time), a storm of S (10) seconds with one exec every
# EVERY (4,000) us, children side by side (bench/execstorm.c; each waits up
# to WAIT_MS, 3 s), counting those never applied; the daemon's CPU time (utime +
# stime) per 1,000 storm execs; its context switches over IDLE (60) s
# without any process starting; its RSS.
#
# usage: on the host, once, as root (the VM sees the host's root read-only):
#            bench/watch-peers.sh --setup
#        in the VM (bench/README.md): UCLAMPCTL=... bench/watch-peers.sh [DAEMON...]
if [ "${1-}" = --setup ]; then
	set -e
	apt-get install -y --no-install-recommends tuned linux-perf cgroup-tools
	# the VM bind-mounts its rules over this one; empty = the package's default
	[ -e /etc/cgrules.conf ] || echo "# no rules (bench/watch-peers.sh)" >/etc/cgrules.conf
	# cgrulesengd refuses to start without them ("cannot open /etc/cgconfig.d",
	# "failed to open file /etc/cgconfig.conf")
	mkdir -p /etc/cgconfig.d
	[ -e /etc/cgconfig.conf ] || echo "# empty (bench/watch-peers.sh)" >/etc/cgconfig.conf
	# a service on the host would start in the VM's systemd mode too
	rm -f /etc/systemd/system/multi-user.target.wants/tuned.service
	exit 0
fi
. "$(dirname "$0")/lib.sh"
. "$BENCH_DIR/watch-lib.sh"
NL=${NL:-300}
S=${S:-10}
EVERY=${EVERY:-4000}
# how long a probe waits to be applied (it was 1 s; a daemon slower than that
# still applies, and counts as late, not as never)
WAIT_MS=${WAIT_MS:-3000}
IDLE=${IDLE:-60}
DAEMONS=("$@")
[ ${#DAEMONS[@]} = 0 ] && DAEMONS=(uclampctl tuned cgrulesengd)
CG=/sys/fs/cgroup
PEER_PID=
RACE=
trap 'stop_peer; rm -rf "$WORK"' EXIT
build_probe
gcc -O2 -o "$WORK/execstorm" "$BENCH_DIR/execstorm.c" || die "gcc execstorm.c"
: >"$WORK/table"
mkfifo "$WORK/never"
exec 3<>"$WORK/never"	# read -t on it: a sleep without an exec

# ---- the daemons: start_NAME sets DP (its PID) and WANT (the probe's check) --------------
start_uclampctl() {
	probe_conf
	start_watch "$WORK/w.conf"
	DP=$WP WANT=300
}
start_tuned() {
	command -v tuned >/dev/null || { SKIP="not installed (run bench/watch-peers.sh --setup on the host)"; return 1; }
	mkdir -p "$WORK/tuned/uc-peer"
	cat >"$WORK/tuned/tuned-main.conf" <<-CONF
	daemon = 1
	dynamic_tuning = 0
	sleep_interval = 1
	update_interval = 10
	recommend_command = 0
	CONF
	# the cmdline, anchored: execstorm's own cmdline names the probe too
	printf '[main]\nsummary=bench\n[scheduler]\ngroup.probe=0:b:0:*:^[^ ]*/uc-probe( |$)\n' \
		>"$WORK/tuned/uc-peer/tuned.conf"
	mount --bind "$WORK/tuned" /etc/tuned || die "cannot bind $WORK/tuned over /etc/tuned"
	tuned --no-dbus --no-socket --profile uc-peer --log "$WORK/tuned.log" >"$WORK/tuned.out" 2>&1 &
	PEER_PID=$! DP=$! WANT=batch
	# ready once it tuned a matching process already there
	"$WORK/uc-probe" batch 600000 >"$WORK/first" &
	local fp=$!
	wait "$fp"
	grep -q '^clamped' "$WORK/first" ||
		{ SKIP="no process tuned in 600 s: $(tail -n 3 "$WORK/tuned.log" "$WORK/tuned.out" | tr '\n' ' ')"; return 1; }
	# what its runtime path reads at an exec: 20 programs no rule matches,
	# each living 200 ms (bench/comm-cmdline.py)
	RACE=$(/usr/bin/python3 "$BENCH_DIR/comm-cmdline.py" 20 "$WORK/uc-other" 1024 1000 200 2>&1 |
		tail -n 1)
}
start_cgrulesengd() {
	command -v cgrulesengd >/dev/null || { SKIP="not installed (run bench/watch-peers.sh --setup on the host)"; return 1; }
	mkdir -p $CG/uc-peer
	printf '*:uc-probe\tcpu\tuc-peer/\n' >"$WORK/cgrules.conf"
	mount --bind "$WORK/cgrules.conf" /etc/cgrules.conf ||
		{ SKIP="no /etc/cgrules.conf to bind over (run bench/watch-peers.sh --setup on the host)"; return 1; }
	cgrulesengd -n -f "$WORK/cgred.log" >"$WORK/cgred.out" 2>&1 &
	PEER_PID=$! DP=$! WANT=cgroup:/uc-peer
	"$WORK/uc-probe" "$WANT" 60000 >"$WORK/first"
	grep -q '^clamped' "$WORK/first" ||
		{ SKIP="nothing moved in 60 s: $(tail -n 3 "$WORK/cgred.log" "$WORK/cgred.out" | tr '\n' ' ')"; return 1; }
}
stop_peer() {
	[ -z "${WP-}" ] || stop_watch
	WP=
	if [ -n "$PEER_PID" ]; then
		kill "$PEER_PID" 2>/dev/null || true
		wait "$PEER_PID" 2>/dev/null || true
	fi
	PEER_PID=
	umount /etc/tuned 2>/dev/null || true
	umount /etc/cgrules.conf 2>/dev/null || true
	rmdir $CG/uc-peer 2>/dev/null || true
}

# cpu_ms PID: CPU time of all its threads so far (the scheduler's ns, not ticks)
cpu_ms() { cat /proc/"$1"/task/*/sched | awk '$1 == "se.sum_exec_runtime" { s += $3 } END { printf "%.3f", s }'; }

# ---- one daemon ----------------------------------------------------------------------------
measure() {
	local name=$1 t0 t1 n execs miss cpu idle rss lat c0
	SKIP=
	if ! "start_$name"; then
		printf '| %s | - | - | - | - | - | - | - | %s |\n' "$name" "$SKIP" >>"$WORK/table"
		stop_peer
		return
	fi
	# latency: one probe after another; a daemon that applied none of the
	# first 10 is not kept waiting WAIT_MS for each of the NL
	: >"$WORK/lat"
	for i in $(seq "$NL"); do
		"$WORK/uc-probe" "$WANT" "$WAIT_MS" >>"$WORK/lat"
		[ "$i" = 10 ] && ! grep -q '^clamped' "$WORK/lat" && break
	done
	NLR=$(wc -l <"$WORK/lat")
	# every probe that ran: its latency, or "never" (not applied within
	# WAIT_MS); a percentile that lands on one is "never", not a number
	# taken from the few that were applied
	awk '$1 == "clamped" { print $2; next } { print "never" }' "$WORK/lat" >"$WORK/us"
	lat="$(pct_never 50 <"$WORK/us") / $(pct_never 99 <"$WORK/us") / $(pct_never 100 <"$WORK/us")"
	n=$(( $(grep -c '^unclamped' "$WORK/lat" || true) + NL - NLR ))
	# the storm
	t0=$(cpu_ms "$DP")
	POLL_US=20000 "$WORK/execstorm" "$S" "$EVERY" "$WORK/uc-probe" "$WANT" "$WAIT_MS" \
		>"$WORK/storm" 2>"$WORK/storm.err"
	t1=$(cpu_ms "$DP")
	execs=$(sed -n 's/^execs //p' "$WORK/storm.err")
	miss=$(grep -c '^unclamped' "$WORK/storm" || true)
	cpu=$(awk -v a="$t0" -v b="$t1" -v n="$execs" 'BEGIN { printf "%.1f", (b - a) * 1000 / n }')
	# idle: nothing starts in the window (builtins only)
	sleep 2
	ctxt "$DP"
	c0=$CS
	read -r -t "$IDLE" -u 3 _ || true
	ctxt "$DP"
	idle=$((CS - c0))
	rss=$(awk '/VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$DP/status")
	P50[$name]=$(pct_never 50 <"$WORK/us") P99[$name]=$(pct_never 99 <"$WORK/us") MISS[$name]=$((n + miss))
	CPU[$name]=$cpu
	echo "$name: latency p50/p99/max $lat us ($n of $NL unapplied after $((WAIT_MS / 1000)) s$([ "$NLR" = "$NL" ] || echo ", $((NL - NLR)) not run: none of the first $NLR applied")); storm $execs execs, $miss never applied; $cpu ms CPU per 1,000 execs; idle wakeups $idle in ${IDLE}s; RSS $rss MiB"
	printf '| %s | %s | %s | %s | %s | %s | %s | %s | |\n' "$name" "$lat" "$n" "$execs" "$miss" \
		"$cpu" "$idle" "$rss" >>"$WORK/table"
	stop_peer
}

declare -A P50 P99 MISS CPU
echo "bench: watch vs peers; kernel $(uname -r), $(nproc) CPU(s); $NL latency execs, storm ${S}s every ${EVERY}us"
for d in "${DAEMONS[@]}"; do measure "$d"; done
echo
echo "| daemon | exec->applied us p50 / p99 / max | unapplied after $((WAIT_MS / 1000)) s (of $NL) | storm execs | never applied | CPU ms per 1,000 execs | idle wakeups in ${IDLE} s | RSS MiB | note |"
echo "|---|---|---|---|---|---|---|---|---|"
cat "$WORK/table"

# ---- the goals (issue 19): rows in bench/run.sh's table ----------------------------------
verdict() { if "$@"; then echo met; else echo "NOT met"; fi; }
# a < b; "never" is later than any number, "-" (nothing measured) compares with nothing
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "-" && b != "-" && a != "never" && (b == "never" || a + 0 < b + 0)) }'; }
if [ -n "${P99[uclampctl]-}" ]; then
	u=uclampctl
	peers=$(printf '%s ' "${!P50[@]}" | sed "s/\b$u \?//")
	# against no peer, a comparison is not met (not "met" by default)
	below_p50() { local p; [ -n "$peers" ] || return 1; for p in $peers; do lt "${P99[$u]}" "${P50[$p]}" || return 1; done; }
	lowest_cpu() { local p; [ -n "$peers" ] || return 1; for p in $peers; do lt "${CPU[$u]}" "${CPU[$p]}" || return 1; done; }
	each() { local p; for p in $peers; do printf '%s %s; ' "$p" "$1"; done; }
	echo
	echo "| job | value | x peer | x floor | goal | met |"
	echo "|---|---|---|---|---|---|"
	echo "| watch: exec->applied p99, as the child sees it (us) | ${P99[$u]} | $(for p in $peers; do printf '%s p50 %s; ' "$p" "${P50[$p]}"; done) | | < every peer's p50 | $(verdict below_p50) |"
	echo "| watch: never applied (latency execs + storm) | ${MISS[$u]} | $(for p in $peers; do printf '%s %s; ' "$p" "${MISS[$p]}"; done) | | 0 | $(verdict test "${MISS[$u]}" = 0) |"
	echo "| watch: CPU per 1,000 storm execs (ms) | ${CPU[$u]} | $(for p in $peers; do printf '%s %s; ' "$p" "${CPU[$p]}"; done) | | lowest | $(verdict lowest_cpu) |"
	echo "| watch: exec->applied p99 <= 2 ms (us) | ${P99[$u]} | | | <= 2000 | $(verdict lt "${P99[$u]}" 2001) |"
	[ -z "${RACE-}" ] || echo "| tuned: perf COMM records whose /proc/PID/cmdline was still empty (bench/comm-cmdline.py) | $RACE | | | state it | |"
fi
