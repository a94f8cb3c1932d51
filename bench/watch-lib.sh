# Sourced by bench/watch-*.sh after lib.sh: the probe and a running daemon.
#
#   build_probe             $WORK/uc-probe (clamps itself? see tests/vm/helpers/clampwait.c)
#                           and $WORK/uc-other, the same binary under a name no rule matches
#   start_watch CONF        start 'uclampctl watch -c CONF' (its status socket in $WORK);
#                           WP = its PID once it answers 'watch status'
#   watch_status [ARGS]     'uclampctl watch status' against it
#   stop_watch
#   ctxt PID                CS = the context switches (wakeups) of all its threads, read
#                           with shell builtins only: no exec or fork of ours reaches a daemon
build_probe() {
	gcc -O2 -o "$WORK/uc-probe" "$SRC_DIR/tests/vm/helpers/clampwait.c"
	cp "$WORK/uc-probe" "$WORK/uc-other"
}
watch_status() { "$UCLAMPCTL" watch status --socket "$WORK/s.sock" "$@"; }
start_watch() {
	local i
	"$UCLAMPCTL" -q watch -c "$1" --socket "$WORK/s.sock" >"$WORK/watch.log" 2>&1 &
	WP=$!
	for i in $(seq 1 3000); do
		watch_status >/dev/null 2>&1 && return 0
		kill -0 "$WP" 2>/dev/null || die "watch failed: $(cat "$WORK/watch.log")"
		sleep 0.1
	done
	die "watch not ready: $(cat "$WORK/watch.log")"
}
stop_watch() {
	kill "$WP" 2>/dev/null || true
	wait "$WP" 2>/dev/null || true
}
# pct_never P < values: pct, where a value "never" (not applied at all)
# ranks after every number and is the answer when the rank lands on one
pct_never() { sed "s/^never$/999999999999/" | pct "$1" | sed "s/^999999999999$/never/"; }
# pct P < values: the P-th percentile (nearest rank)
pct() { sort -n | awk -v p="$1" '{ v[NR] = $1 } END { if (!NR) { print "-"; exit } i = int(NR * p / 100 + 0.999); if (i < 1) i = 1; print v[i] }'; }
probe_conf() {
	cat >"$WORK/w.conf" <<CONF
[fast-path]
allow-enable = yes

[tasks probe]
comm = uc-probe
max = 300
CONF
}
ctxt() {
	local t k v
	CS=0
	for t in /proc/"$1"/task/*; do
		while read -r k v _; do
			case $k in *ctxt_switches:) CS=$((CS + v)) ;; esac
		done <"$t/status"
	done
}
