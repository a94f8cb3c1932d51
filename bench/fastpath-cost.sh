#!/bin/bash
# What the uclamp fast path costs: the same wakeup-heavy workloads on one
# kernel image, with sched_uclamp_used off and, in a second boot, on.
# On the host, as root, from a built tree (bench/README.md):
#
#   [UCLAMP_VM_KERNEL=bzImage] bench/fastpath-cost.sh
#
# boots the VM (tests/vm/run-vm.sh, 1 vCPU) once per key state and per mode:
#   icount  bench/qemu-icount: guest time = executed instructions (1 ns
#           each), the deterministic measure, immune to host load
#   wall    plain TCG: the guest's clock follows the host's (secondary, noisy)
# and prints one table: the median per operation over R rounds, key on /
# key off. The guest runs this script again with --in-vm off|on.
#
# Workloads (each times its own loop, not process start):
#   pipe       perf bench sched pipe -l PIPE_LOOPS: two processes bounce a
#              byte over two pipes (per round trip: two wakeups)
#   messaging  perf bench sched messaging -g MSG_GROUPS -l MSG_LOOPS:
#              hackbench, 20 senders x 20 receivers a group over sockets
#              (per message)
#   udp        bench/udp-pingpong.c UDP_ROUNDS: a byte bounced over UDP on
#              127.0.0.1 (per round trip)
#
# The key is turned on by a no-op clamp write: the value already there
# written again to a cgroup's cpu.uclamp.max (any accepted write flips it;
# uclampctl itself would drop a no-op). The off boot makes and removes the
# same cgroup without the write. Each run is framed by reads of the key
# (uclampctl keys): a run with the key in the wrong state stops the bench.
#
# Knobs (environment): R (rounds, default 7), MODES (default "icount wall"),
# PIPE_LOOPS (50000), MSG_GROUPS (2), MSG_LOOPS (50), UDP_ROUNDS (20000),
# OUT (raw results, default ./fastpath-cost.out), VM_TIMEOUT (s, 3000),
# BOOT=0 (no boot: the table again from the results in OUT).
set -euo pipefail

PIPE_LOOPS=${PIPE_LOOPS:-50000}
MSG_GROUPS=${MSG_GROUPS:-2}
MSG_LOOPS=${MSG_LOOPS:-50}
UDP_ROUNDS=${UDP_ROUNDS:-20000}
WORKLOADS="pipe messaging udp"

# ---- in the guest ------------------------------------------------------------
if [ "${1-}" = --in-vm ]; then
	want=$2
	. "$(dirname "$0")/lib.sh"
	CG=/sys/fs/cgroup/bench-fastpath
	trap 'rm -rf "$WORK"' EXIT
	gcc -O2 -o "$WORK/udp-pingpong" "$BENCH_DIR/udp-pingpong.c" || die "gcc udp-pingpong.c"
	# perf from tmpfs, like uclampctl (lib.sh): /usr/bin is 9p, uncached
	cp "$(command -v perf)" "$WORK/perf" || die "no perf binary (Debian: linux-perf)"
	"$WORK/perf" bench sched pipe -l 10 >/dev/null 2>&1 || die "perf bench does not run here"

	key_state() {
		"$UCLAMPCTL" keys -r -n -o KEY,STATE | awk '$1 == "sched_uclamp_used" { print $2 }'
	}
	expect_key() {
		local got
		got=$(key_state)
		[ "$got" = "$1" ] || die "sched_uclamp_used is '$got' $2, expected $1"
		echo "key $got $2"
	}

	echo "kernel $(uname -r)"
	echo "clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	expect_key off "after boot"
	mkdir "$CG" || die "cannot make $CG"
	if [ "$want" = on ]; then
		# the value already there, written again: the accident uclampctl prevents
		cat "$CG/cpu.uclamp.max" >"$CG/cpu.uclamp.max" || die "cpu.uclamp.max write"
	fi
	rmdir "$CG"
	expect_key "$want" "before the runs"

	# run WORKLOAD: print "WORKLOAD NS OPS" (the loop's guest time, operations)
	run() {
		local out
		case $1 in
		pipe)
			out=$("$WORK/perf" bench sched pipe -l "$PIPE_LOOPS")
			# usecs/op has six decimals: the loop's time to the ns
			awk -v n="$PIPE_LOOPS" '/usecs\/op/ { printf "pipe %.0f %d\n", $1 * n * 1000, n }' <<<"$out" ;;
		messaging)
			out=$("$WORK/perf" bench sched messaging -g "$MSG_GROUPS" -l "$MSG_LOOPS")
			awk -v n=$((MSG_GROUPS * 20 * 20 * MSG_LOOPS)) \
				'/Total time:/ { printf "messaging %.0f %d\n", $3 * 1e9, n }' <<<"$out" ;;
		udp)
			out=$("$WORK/udp-pingpong" "$UDP_ROUNDS")
			awk '{ print "udp", $4, $2 }' <<<"$out" ;;
		esac
	}
	for r in $(seq 1 "$R"); do
		for w in $WORKLOADS; do
			line=$(run "$w")
			[ -n "$line" ] || die "$w: no time in its output"
			echo "run $r $line"
			expect_key "$want" "after $w round $r" >/dev/null
		done
	done
	expect_key "$want" "after all runs"
	exit 0
fi

# ---- on the host -------------------------------------------------------------
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
SRC_DIR=$(cd "$BENCH_DIR/.." && pwd)
. "$BENCH_DIR/stats.sh"
R=${R:-7}
MODES=${MODES:-icount wall}
OUT=${OUT:-$PWD/fastpath-cost.out}
BIN=${UCLAMPCTL:-$PWD/uclampctl}
[ -x "$BIN" ] || { echo "fastpath-cost: $BIN is not built (make, or set UCLAMPCTL)" >&2; exit 2; }
mkdir -p "$OUT"

for mode in $MODES; do
	qemu=()
	case $mode in
	icount) qemu=(env VM_QEMU="$BENCH_DIR/qemu-icount") ;;
	wall) ;;
	*) echo "fastpath-cost: unknown mode '$mode' in MODES (icount, wall)" >&2; exit 2 ;;
	esac
	for key in off on; do
		[ "${BOOT:-1}" = 0 ] && continue
		echo "fastpath-cost: $mode, key $key (R=$R) -> $OUT/$mode-$key.txt" >&2
		# tsc=reliable: the clocksource watchdog drops the TSC under TCG and
		# leaves jiffies (4 ms steps); under -icount the TSC counts instructions
		"${qemu[@]}" "$SRC_DIR/tests/vm/run-vm.sh" -c 1 -m 1G -t "${VM_TIMEOUT:-3000}" \
			-a "tsc=reliable clocksource=tsc" -d "$SRC_DIR" -e UCLAMPCTL="$BIN" -e R="$R" \
			-e PIPE_LOOPS="$PIPE_LOOPS" -e MSG_GROUPS="$MSG_GROUPS" -e MSG_LOOPS="$MSG_LOOPS" \
			-e UDP_ROUNDS="$UDP_ROUNDS" -- bash "$BENCH_DIR/fastpath-cost.sh" --in-vm "$key" \
			>"$OUT/$mode-$key.txt" || { echo "fastpath-cost: the $mode/$key boot failed" >&2; exit 1; }
	done
done

# per_op FILE WORKLOAD: each round's ns per operation
per_op() { awk -v w="$2" '$1 == "run" && $3 == w { printf "%.1f\n", $4 / $5 }' "$1"; }
spread() { per_op "$1" "$2" | sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s-%s", lo, hi }'; }
unit() { case $1 in messaging) echo "message" ;; *) echo "round trip" ;; esac; }
echo "kernel $(awk '$1 == "kernel" { print $2; exit }' "$OUT"/*-off.txt | head -1), 1 vCPU, R=$R"
echo
echo "| workload | measure | key off | key on | on/off | off: min-max | on: min-max | rounds |"
echo "|---|---|---|---|---|---|---|---|"
# pct ON OFF: the change, in percent with one decimal
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f%%", (a / b - 1) * 100 }'; }
for mode in $MODES; do
	case $mode in
	icount) what="instructions per" ;;
	wall) what="wall ns per" ;;
	esac
	[ -s "$OUT/$mode-off.txt" ] && [ -s "$OUT/$mode-on.txt" ] || continue
	for w in $WORKLOADS; do
		off=$(per_op "$OUT/$mode-off.txt" "$w" | median)
		on=$(per_op "$OUT/$mode-on.txt" "$w" | median)
		rounds=$(per_op "$OUT/$mode-on.txt" "$w" | wc -l)
		printf '| %s | %s %s | %s | %s | %s | %s | %s | %s |\n' "$w" "$what" "$(unit "$w")" \
			"$off" "$on" "$(ratio "$on" "$off") ($(pct "$on" "$off"))" "$(spread "$OUT/$mode-off.txt" "$w")" \
			"$(spread "$OUT/$mode-on.txt" "$w")" "$rounds"
	done
done
