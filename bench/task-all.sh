#!/bin/bash
# util_max 300 on every SCHED_OTHER task of a system with N (2,000) extra
# processes:
#   uclampctl -q task set --all --threads --policy other --max 300 --yes
#   the shell loop admins use today: per PID, chrt -p to keep SCHED_OTHER,
#   then uclampset -a -p PID -M 300
# (--threads: the loop's uclampset -a sets every thread too.) Every task
# goes back to 1024 before each timed run (untimed); each run is checked
# (all N helpers at 300). Goal: uclampctl >= 50x faster.
# usage (in the VM, see bench/README.md): UCLAMPCTL=... bench/task-all.sh
. "$(dirname "$0")/lib.sh"
N=${N:-2000}
RL=${RL:-1}	# rounds that also time the (slow) shell loop

PP=
trap '[ -z "$PP" ] || kill $PP 2>/dev/null; rm -rf "$WORK"' EXIT
start_procs "$N"
total=$(ls -d /proc/[0-9]* | wc -l)
echo "bench: $N helper processes, $total in all; $R rounds of uclampctl, $RL of the shell loop; kernel $(uname -r)"

shell_loop() {
	local pid
	for pid in $(ps -e -o pid=); do
		chrt -p "$pid" 2>/dev/null | grep -q SCHED_OTHER && uclampset -a -p "$pid" -M 300 >/dev/null 2>&1
	done
	return 0
}
reset_all() { "$UCLAMPCTL" -q task set --all --threads --policy other --max 1024 --yes >/dev/null 2>&1 || true; }
helpers_at_300() { "$UCLAMPCTL" task show --all --comm procs -n -r -o UTIL_MAX | grep -c '^300$' || true; }
once() {
	local name=$1 t0 t1 n
	shift
	reset_all
	t0=$(now_ns)
	"$@" >/dev/null 2>&1 || true
	t1=$(now_ns)
	n=$(helpers_at_300)
	[ "$n" = "$N" ] || die "$name: $n of $N helper processes at 300"
	echo $(((t1 - t0) / 1000))
}

: >"$WORK/ctl"
: >"$WORK/loop"
l=
for r in $(seq 1 "$R"); do
	c=$(once uclampctl "$UCLAMPCTL" -q task set --all --threads --policy other --max 300 --yes)
	echo "$c" >>"$WORK/ctl"
	if [ "$r" -le "$RL" ]; then
		l=$(once shell-loop shell_loop)
		echo "$l" >>"$WORK/loop"
	fi
	echo "round $r: uclampctl ${c}us${l:+, shell loop ${l}us}"
	l=
done
ctl=$(median <"$WORK/ctl")
loop=$(median <"$WORK/loop")
printf '%-12s %12s\n' tool "median us"
printf '%-12s %12s\n' uclampctl "$ctl"
printf '%-12s %12s\n' shell-loop "$loop"
echo "shell loop / uclampctl: $(ratio "$loop" "$ctl")x (goal >= 50)"
