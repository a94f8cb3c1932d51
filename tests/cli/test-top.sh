#!/bin/bash
# uclampctl top on a fake /proc and sysfs: real sleepers behind fake
# task entries (sched_getattr answers for real), whose stat files and a
# policy's stats/time_in_state are FIFOs that give each sample its own
# content (the baseline's, then the next sample's), so the CPU time each
# task ran and the time in each P-state over the interval are known
# exactly. Checked: the values and the P-state schedutil picks, by both
# formulas, invariant or not; the rq clamps of a CPU from the tasks that ran
# long there; hostile names; 80 columns; -J one valid object per sample;
# --once and -n; what it cannot see; and that it opens nothing for writing
# (strace, where it works).
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/cli/lib.sh"

if ! command -v python3 >/dev/null; then
	echo "python3 is needed to read the JSON"
	exit 77
fi
U=$UCLAMPCTL
sleep 600 & A=$!
sleep 600 & B=$!
sleep 600 & C=$!
alias_value "$A" A; alias_value "$B" B; alias_value "$C" C
WRITERS=()
trap 'kill $A $B $C "${WRITERS[@]}" 2>/dev/null; rm -rf "${_tmpdirs[@]}"' EXIT

fake_root
fake_sysctls 1024 1024 1024
fake_release 6.1.0-uclamp
echo x86_64 >"$ROOT/proc/sys/kernel/arch"
printf 'processor\t: 0\nflags\t\t: fpu tsc constant_tsc\n\n' >"$ROOT/proc/cpuinfo"
CPU=$ROOT/sys/devices/system/cpu
mkdir -p "$CPU"
echo 0-1 >"$CPU/online"
# pol N: an acpi-cpufreq policy of CPU N at 800 MHz, P-states 800-3000 MHz
pol() {
	local d=$CPU/cpufreq/policy$1
	mkdir -p "$d/stats"
	echo schedutil >"$d/scaling_governor"
	echo acpi-cpufreq >"$d/scaling_driver"
	echo "$1" >"$d/affected_cpus"
	echo 800000 >"$d/scaling_cur_freq"
	echo 800000 >"$d/scaling_min_freq"
	echo 3000000 >"$d/scaling_max_freq"
	echo 800000 >"$d/cpuinfo_min_freq"
	echo 3000000 >"$d/cpuinfo_max_freq"
	echo "3000000 2700000 2400000 2100000 1800000 1500000 1200000 800000" >"$d/scaling_available_frequencies"
	printf '3000000 500\n800000 100\n' >"$d/stats/time_in_state"
}
pol 0
pol 1
# seq_file PATH TEXT...: PATH reads as each TEXT in turn (a FIFO: each open
# gets the next one), for as many reads as TEXTs are given; stop_writers
# makes each such PATH a plain file again, with its last TEXT
FIFOS=()
seq_file() {
	local p=$1
	shift
	rm -f "$p"
	mkfifo "$p"
	python3 "$TESTS_SRCDIR/cli/fifo-seq.py" "$p" "$@" &
	WRITERS+=($!)
	FIFOS+=("$p" "${*: -1}")
}
stop_writers() {
	local i
	if [ ${#WRITERS[@]} -gt 0 ]; then
		kill "${WRITERS[@]}" 2>/dev/null
		wait "${WRITERS[@]}" 2>/dev/null	# (no arguments: every child, the sleepers too)
	fi
	WRITERS=()
	for ((i = 0; i < ${#FIFOS[@]}; i += 2)); do
		rm -f "${FIFOS[i]}"
		printf '%s' "${FIFOS[i + 1]}" >"${FIFOS[i]}"
	done
	FIFOS=()
}
# statline PID COMM CPUTIME CPU: a thread's stat line (utime = CPUTIME, stime 0, start 50)
statline() {
	printf '%s (%s) S 1 1 1 0 -1 4194560 0 0 0 0 %s 0 0 0 20 0 1 0 50 1000 100 0 0 0 0 0 0 0 0 0 0 0 0 0 0 %s 0 0\n' \
		"$1" "$2" "$3" "$4"
}
# sched TID UTIL_AVG EWMA ENQUEUED EFF_MIN EFF_MAX: its sched file, 6.1's layout
sched() {
	printf '%s (%s, #threads: 1)\n%s\n' x "$1" -------------------------------------------------------------------
	printf '%-45s:%21s\n' se.avg.util_avg "$2" se.avg.util_est.ewma "$3" se.avg.util_est.enqueued "$4" \
		uclamp.min 0 uclamp.max 1024 'effective uclamp.min' "$5" 'effective uclamp.max' "$6"
}
# task PID TID COMM: /proc/PID/task/TID with comm and status
task() {
	local d=$ROOT/proc/$1
	mkdir -p "$d/task/$2"
	echo "$3" >"$d/comm"
	echo "$3" >"$d/task/$2/comm"
	printf 'Name:\t%s\nState:\tS (sleeping)\nTgid:\t%s\nPid:\t%s\nPPid:\t1\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n' \
		"$3" "$1" "$1" >"$d/status"
}
task "$A" "$A" encoder
task "$B" "$B" visitor
task "$C" "$C" ui
sched "$A" 1010 1000 1020 0 300 >"$ROOT/proc/$A/task/$A/sched"
sched "$B" 30 0 0 0 1024 >"$ROOT/proc/$B/task/$B/sched"
sched "$C" 180 200 150 900 1024 >"$ROOT/proc/$C/task/$C/sched"
# one interval: the encoder runs 100 ticks (1 s) on CPU 1, the visitor 10 on
# CPU 1 (less than a quarter of the encoder's: not the rq's clamp), the ui 50
# on CPU 0; policy1 holds 800 MHz 98% of the time, policy0 does not move
interval() {
	seq_file "$ROOT/proc/$A/task/$A/stat" "$(statline "$A" encoder 1000 1)" "$(statline "$A" encoder 1100 1)"
	seq_file "$ROOT/proc/$B/task/$B/stat" "$(statline "$B" visitor 500 1)" "$(statline "$B" visitor 510 1)"
	seq_file "$ROOT/proc/$C/task/$C/stat" "$(statline "$C" ui 70 0)" "$(statline "$C" ui 120 0)"
	seq_file "$CPU/cpufreq/policy1/stats/time_in_state" $'3000000 500\n800000 100\n' \
		$'3000000 502\n800000 198\n'
}
# row TID: the task's row of the text view
row() { printf '%s\n' "$OUT" | awk -v t="$1" '$2 == t'; }
cpurow() { printf '%s\n' "$OUT" | awk -v c="$1" 'f && $1 == c { print } /^CPU /{ f = 1 } /^ *PID /{ f = 0 }'; }
field() { printf '%s\n' "$OUT" | sed -n 1p | python3 -c "import json,sys; j=json.load(sys.stdin); print($1)" 2>&1; }
want() {	# want WHAT EXPR VALUE: the first JSON line's EXPR
	local got
	got=$(field "$2")
	if [ "$got" = "$3" ]; then _pass "$1: $3"; else FAIL=$((FAIL + 1)); echo "not ok - $1: $2 = '$got', expected '$3'"; fi
}
ttop() { local what=$1; shift; t "$what" 0 timeout 60 "$U" top -d 0.1 "$@"; stop_writers; }

# ---- the values, 6.1 (schedutil before 6.8), not frequency-invariant ---------------
interval
ttop "top --once: 6.1, not invariant" --once
has '^uclampctl top: sample 1, every 0.1 s, Linux 6\.1\.0-uclamp, schedutil before 6\.8$'
has '^policy0-1 schedutil/acpi-cpufreq: min steers, max steers$'
has '^frequency-invariant: no: the CPU shows no APERF/MPERF counters'
# CPU 1: the encoder and the visitor ran there: util 1020 + 30, at most 1024; the
# highest max 1024 (the visitor's), the rq's 300 (the encoder's): 375 after the
# clamp and the headroom, 1.25 x 800 x 375/1024 -> the lowest P-state, 800
# shown busy as the interval the test's timer gives (not checked exactly)
check_row() {
	if printf '%s\n' "$2" | grep -Eq -- "$3"; then _pass "$1"; else _fail "$1: '$2' !~ /$3/"; fi
}
check_row "CPU 1 row" "$(cpurow 1)" '^ +1 +1 +800 +3000 +1024 +[0-9.]+ +1024 +0 +1024 +800 +800:98% 3000:2%$'
check_row "CPU 0 row: the ui's min 900 climbs" "$(cpurow 0)" '^ +0 +0 +800 +3000 +1024 +[0-9.]+ +200 +900 +1024 +3000$'
# the tasks, busiest first: encoder (max 300 holds: 375, 800), ui, visitor (its
# max 1024 while it runs: 1280 -> 3000)
check_row "encoder row" "$(row "$A")" "^ *$A +$A +encoder +1 +[0-9.]+ +1010 +1020 +[0-9]+ +[0-9]+ +0 +300 +375 +800$"
check_row "visitor row" "$(row "$B")" "^ *$B +$B +visitor +1 +[0-9.]+ +30 +0 +[0-9]+ +[0-9]+ +0 +1024 +1280 +3000$"
check_row "ui row" "$(row "$C")" "^ *$C +$C +ui +0 +[0-9.]+ +180 +200 +[0-9]+ +[0-9]+ +900 +1024 +1125 +3000$"
check_row "busiest first" "$(printf '%s\n' "$OUT" | awk '/^ *PID /{ f = 1; next } f { printf "%s ", $3 }')" '^encoder ui visitor $'
hasnt $'\e'

# ---- the same as JSON, 7.3 (the 6.8 formula) ------------------------------------------
fake_release 7.3.0-rc7-uclamp
interval
ttop "top -J --once: 7.3" -J --once
check_row "one line" "$(printf '%s\n' "$OUT" | wc -l)" '^1$'
want "formula" 'j["formula"], j["invariant"], j["kernel"]' "6.8+ no 7.3.0-rc7-uclamp"
want "CPU 1" '[(c["cpu"], c["util"], c["highest_max"], c["rq_max"], c["predicted_util"], c["predicted_khz"]) for c in j["cpus"]][1]' "(1, 1024, 1024, 300, 300, 800000)"
want "CPU 1's time in state over the interval" '[(s["khz"], s["ms"]) for s in j["cpus"][1]["time_in_state"] if s["ms"]]' "[(800000, 980), (3000000, 20)]"
want "CPU 0" '[(c["util"], c["rq_min"], c["predicted_util"], c["predicted_khz"]) for c in j["cpus"]][0]' "(200, 900, 900, 3000000)"
want "encoder" '[(k["ran_ms"], k["cpu"], k["util_avg"], k["util_est"], k["eff_min"], k["eff_max"], k["sugov_util"], k["predicted_khz"]) for k in j["tasks"]][0]' "(1000, 1, 1010, 1020, 0, 300, 300, 800000)"
want "visitor" '[(k["comm"], k["ran_ms"], k["sugov_util"], k["predicted_khz"]) for k in j["tasks"]][2]' "('visitor', 100, 1024, 3000000)"
want "types" 'all(isinstance(k[f], int) for k in j["tasks"] for f in ("pid", "tid", "util_min", "util_max")) and isinstance(j["interval"], float)' "True"
want "no notes" 'j["notes"]' "[]"

# ---- frequency-invariant (arm64 with a cpufreq driver): max_freq is the reference ----
echo aarch64 >"$ROOT/proc/sys/kernel/arch"
interval
ttop "top -J --once: invariant" -J --once
want "invariant" 'j["invariant"]' "yes"
# 3000 x 300/1024 = 879 MHz -> 1200, whatever the current frequency
want "CPU 1 invariant" '[c["predicted_khz"] for c in j["cpus"]][1]' "1200000"
echo x86_64 >"$ROOT/proc/sys/kernel/arch"

# ---- -n: as many samples; each interval its own -----------------------------------------
seq_file "$ROOT/proc/$A/task/$A/stat" "$(statline "$A" encoder 1000 1)" "$(statline "$A" encoder 1100 1)" "$(statline "$A" encoder 1150 1)"
seq_file "$ROOT/proc/$B/task/$B/stat" "$(statline "$B" visitor 500 1)" "$(statline "$B" visitor 510 1)" "$(statline "$B" visitor 510 1)"
seq_file "$ROOT/proc/$C/task/$C/stat" "$(statline "$C" ui 70 0)" "$(statline "$C" ui 120 0)" "$(statline "$C" ui 120 0)"
seq_file "$CPU/cpufreq/policy1/stats/time_in_state" $'3000000 500\n800000 100\n' \
	$'3000000 502\n800000 198\n' $'3000000 600\n800000 198\n'
ttop "top -J -n 2" -J -n 2
check_row "two lines" "$(printf '%s\n' "$OUT" | wc -l)" '^2$'
check_row "second sample" "$(printf '%s\n' "$OUT" | sed -n 2p | python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
print(j["sample"], [(k["comm"], k["ran_ms"]) for k in j["tasks"]][:1],
      [(s["khz"], s["ms"]) for s in j["cpus"][1]["time_in_state"] if s["ms"]])')" \
	"^2 \[\('encoder', 500\)\] \[\(3000000, 980\)\]$"
ttop "top -n 2: two frames" -n 2
check_row "two frames" "$(printf '%s\n' "$OUT" | grep -c '^uclampctl top: sample')" '^2$'

# ---- selectors and PIDs: the rows; --tasks -----------------------------------------------
interval
ttop "top --comm ui" --once --comm ui -J
want "--comm: one task" '[k["comm"] for k in j["tasks"]]' "['ui']"
want "--comm: the CPUs still count every task" '[c["tasks"] for c in j["cpus"]]' "[1, 2]"
ttop "top PID" --once -J "$B"
want "a PID: its threads" '[k["tid"] for k in j["tasks"]]' "[$B]"
ttop "top --tasks 1" --once -J -t 1
want "--tasks 1" 'len(j["tasks"])' "1"

# ---- hostile names: escaped as text, valid UTF-8 JSON; 80 columns -------------------------
H=$'\e[2J\xff\r'
task "$C" "$C" "$H"
statline "$C" "$H" 120 0 >"$ROOT/proc/$C/task/$C/stat"
ttop "top: hostile comm" --once
hasnt $'\e'
hasnt $'\r'
has '\\x1b\[2J\\xff\\x0d'
wide=$(printf '%s\n' "$OUT" | awk 'length($0) > 80')
check_row "every line at most 80 columns" "$wide" '^$'
ttop "top -J: hostile comm" --once -J
want "comm in JSON" '[ascii(k["comm"]) for k in j["tasks"] if k["tid"] == '"$C"'][0]' "'\\x1b[2J\\ufffd\\r'"
task "$C" "$C" ui

# ---- on a terminal: redrawn in place (cursor home, lines cleared, the rest cleared) --------
if command -v script >/dev/null; then
	OUT=$(script -qec "$(printf '%q ' "$U" top -n 2 -d 0.1)" /dev/null </dev/null 2>&1 | od -An -c | tr -d ' \n')
	check_row "a terminal: each frame from the cursor's home" "$(grep -o '033\[H' <<<"$OUT" | wc -l)" '^2$'
	check_row "a terminal: lines cleared to their ends, then the screen" "$OUT" '033\[K.*033\[J'
else
	echo "# skip: no script(1) for a pseudo-terminal"
fi

# ---- what it cannot see -------------------------------------------------------------------
rm "$ROOT/proc/$A/task/$A/sched" "$ROOT/proc/$B/task/$B/sched" "$ROOT/proc/$C/task/$C/sched"
statline "$A" encoder 1000 1 >"$ROOT/proc/$A/task/$A/stat"
ttop "top: no sched files (SCHED_DEBUG off)" --once
has '^util: this kernel has no /proc/PID/task/TID/sched \(CONFIG_SCHED_DEBUG before'
sched "$A" 1010 1000 1020 0 300 | grep -v util_est >"$ROOT/proc/$A/task/$A/sched"
sched "$B" 30 0 0 0 1024 >"$ROOT/proc/$B/task/$B/sched"
sched "$C" 180 200 150 900 1024 >"$ROOT/proc/$C/task/$C/sched"
ttop "top: no util_est" --once -J "$A"
want "util_est null" '[(k["util_avg"], k["util_est"]) for k in j["tasks"]]' "[(1010, None)]"
want "note" '[n for n in j["notes"] if n.startswith("util_est")]' "['util_est: not shown by this kernel (the UTIL_EST feature off?): util is util_avg alone']"
rm -rf "$CPU/cpufreq"
ttop "top: no cpufreq" --once
has '^frequency unaffected: no cpufreq driver: frequency unaffected'
check_row "no policy, no frequency columns" "$(printf '%s\n' "$OUT" | grep '^CPU ')" '^CPU +CAP +BUSY +UTIL +HI_MIN +HI_MAX$'
check_row "no policy, no prediction" "$(cpurow 1)" '^ +1 +1024 +[0-9.]+ *$'
ttop "top -J: no cpufreq" --once -J
want "no cpufreq" 'j["frequency"], j["policies"], [c["predicted_khz"] for c in j["cpus"]]' "no-cpufreq [] [None, None]"
if [ "$(id -u)" != 0 ]; then
	chmod 000 "$ROOT/proc/$A/task/$A/stat"
	ttop "top: a task it may not read" --once
	# not a terminal: notes wrap at 80 columns, continuation lines indented by 2
	OUT=$(printf '%s\n' "$OUT" | sed -e ':a' -e 'N' -e '$!ba' -e 's/\n  / /g')
	has "^1 task\(s\) could not be read \(permission denied\), e\.g\. TID $A: run as root to see them$"
	chmod 644 "$ROOT/proc/$A/task/$A/stat"
else
	echo "# skip: as root every file is readable (the permission note)"
fi

# ---- bad input: one line, exit 2 ------------------------------------------------------------
t "top -d 0" 2 "$U" top -d 0
has "invalid value '0' for --delay: use seconds, 0\.1 to 86400"
t "top -d 1e3" 2 "$U" top -d 1e3
t "top -d ''" 2 "$U" top -d ''
t "top -n 0" 2 "$U" top -n 0
has "invalid value '0' for --iterations: use a whole number, 1 to"
t "top -t x" 2 "$U" top -t x
t "top --once -n 3" 2 "$U" top --once -n 3
has "--once and -n 3 exclude each other"
t "top --format yaml" 2 "$U" top --format yaml
t "top: a PID that does not exist" 1 "$U" top --once 4194305
has "no such process: 4194305"

# ---- not even root's per-boot symbol cache (status writes it) --------------------------------
if [ "$(id -u)" = 0 ]; then
	mkdir -p "$ROOT/proc/sys/kernel/random" "$ROOT/run"
	echo 11111111-2222-3333-4444-555555555555 >"$ROOT/proc/sys/kernel/random/boot_id"
	fake_key 0
	ttop "top as root, the key readable" --once
	check_row "no /run/uclampctl/ksyms after top" "$(ls "$ROOT/run/uclampctl" 2>&1)" 'No such file'
	t "status as root" 0 "$U" status
	check_row "status writes it (so the check above can see one)" "$(ls "$ROOT/run/uclampctl" 2>&1)" '^ksyms$'
	rm -rf "$ROOT/run/uclampctl" "$ROOT/proc/kallsyms" "$ROOT/proc/kcore"
else
	echo "# skip: the symbol cache is root's"
fi

# ---- it opens nothing for writing, starts nothing, sets nothing ------------------------------
if command -v strace >/dev/null && strace -o /dev/null true 2>/dev/null; then
	LOG=$(mktemp "${TMPDIR:-/tmp}/uclampctl-top-strace.XXXXXX")
	_tmpdirs+=("$LOG")
	for fmt in text json; do
		strace -f -qq -e trace=open,openat,openat2,creat,truncate,ftruncate,sched_setattr,clone,clone3,fork,vfork,execve,write,pwrite64,writev,unlink,unlinkat,rename,renameat,renameat2,mkdir,mkdirat \
			-o "$LOG.$fmt" "$U" top --format "$fmt" -n 2 -d 0.1 >/dev/null 2>&1
	done
	cat "$LOG.text" "$LOG.json" >"$LOG"
	rm -f "$LOG.text" "$LOG.json"
	# CLONE_UNTRACED: LeakSanitizer's own thread at exit (ASan builds), not a process
	OUT=$(grep -E 'O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|^[0-9]+ +(creat|truncate|ftruncate|sched_setattr|clone|clone3|fork|vfork|unlink|unlinkat|rename|renameat|renameat2|mkdir|mkdirat)\(' "$LOG" |
		grep -v 'CLONE_UNTRACED')
	check_row "no open for writing, no sched_setattr, no process" "$OUT" '^$'
	OUT=$(grep -E '^[0-9]+ +(write|pwrite64|writev)\(' "$LOG" | grep -Ev '^[0-9]+ +(write|writev)\([12],')
	check_row "writes only to stdout and stderr" "$OUT" '^$'
	OUT=$(grep -cE '^[0-9]+ +execve\(' "$LOG")
	check_row "one exec each: strace's own" "$OUT" '^2$'
	OUT=$(grep -cE 'openat\(.*/sched", O_RDONLY' "$LOG")
	check_row "the sched files were read (the trace saw the reads)" "$OUT" '^[1-9]'
else
	echo "# skip: no usable strace (the check that top opens nothing for writing)"
fi
finish
