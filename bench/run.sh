#!/bin/bash
# Every benchmark of issue 11 in one run, one table. In the uclamp VM, as root
# (bench/README.md):  UCLAMPCTL=... bench/run.sh [GROUP...]
#
#   show    task show -a PID / -J / --all -a over N (10,000) threads vs uclampset -a -p PID
#   set     task set --max 300 --threads PID vs uclampset -a -p PID -M 300 vs setattr-loop
#           (and setattr-loop --get: the floor with a getattr per thread)
#   status  status (scans every thread) vs getattr-loop --all
#   start   one thread, where a command's start is most of its work: check -q, check,
#           task set --max 300 --threads PID vs uclampset -a -p PID -M 300 (and the
#           identity-check loop); with OLD=BINARY also that build's, in the same rounds
#   rss     peak RSS of task show --all -a over the N threads
#   top     top -J: the CPU time of one sample over the N threads (the CPU time of
#           -n 6 less that of -n 1, over 5) vs task show --all -a's; top's peak RSS
#   cgroup  cgroup show -R over NCG (2,000) groups in 5 levels vs find ... -exec cat;
#           apply of NAPPLY (500) [cgroup] sections already in place vs cat of their files
#   cold    check without the symbol cache: the VM's /proc/kallsyms, and a fake
#           KSYMS (150,000) line table (a distro kernel's size) through a fake root
#   forks   watch in a fork storm of NF (10,000) children no rule can match: its
#           wakeups and CPU, with the socket filter (comm rules) and without it
#           (a parent rule needs every process's fork)
#   peers   watch against tuned and cgrulesengd (bench/watch-peers.sh: run its
#           --setup on the host first); its goal rows join this table, its
#           per-daemon table follows
#
# Each round runs every tool of a group once, in turn, so load changes hit
# them alike; a tool's figure is the median over R rounds, and its ratios are
# medians of the per-round ratios (to the peer tool and to the raw floor:
# the same system calls without anything else, bench/*-loop.c).
. "$(dirname "$0")/lib.sh"
N=${N:-10000}
NCG=${NCG:-2000}
NAPPLY=${NAPPLY:-500}
KSYMS=${KSYMS:-150000}
NF=${NF:-10000}
GROUPS_RUN=("$@")
[ ${#GROUPS_RUN[@]} = 0 ] && GROUPS_RUN=(show set status rss start top cgroup cold forks peers)
CG=/sys/fs/cgroup

for h in getattr-loop setattr-loop; do gcc -O2 -o "$WORK/$h" "$BENCH_DIR/$h.c" || die "gcc $h.c"; done
gcc -O2 -pthread -o "$WORK/threads" "$SRC_DIR/tests/vm/helpers/threads.c" || die "gcc threads.c"
TP=
trap '[ -n "$TP" ] && kill $TP 2>/dev/null; rm -rf "$WORK"' EXIT
want() { local g; for g in "${GROUPS_RUN[@]}"; do [ "$g" = "$1" ] && return 0; done; return 1; }
us() { echo "${EPOCHREALTIME/./}"; }	# microseconds, without a fork

# tm CMD...: run CMD (output discarded), print its wall time in microseconds
tm() {
	local t0 t1
	t0=$(us)
	"$@" >/dev/null 2>&1 || true
	t1=$(us)
	echo $((t1 - t0))
}

# cpu CMD...: CMD's user + system CPU time in microseconds (bash's times of
# the subshell's children; for a command that sleeps, as top does)
cpu() {
	("$@" >/dev/null 2>&1; times) | awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/)
		printf "%d\n", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1e6 }'
}

# ---- the table --------------------------------------------------------------
# Each group appends "round tool us" lines to $WORK/times; row() turns
# them into rows: tool, median ms, x peer, x floor, goal, met.
: >"$WORK/times"
: >"$WORK/table"
record() { echo "$1 $2 $3" >>"$WORK/times"; }
med() { awk -v t="$1" '$2 == t { print $3 }' "$WORK/times" | median; }
# rmed A B: median over rounds of A/B ("-" when B is not there)
rmed() {
	awk -v a="$1" -v b="$2" '$2 == a { x[$1] = $3 } $2 == b { y[$1] = $3 }
		END { for (r in x) if (r in y && y[r] > 0) printf "%.3f\n", x[r] / y[r] }' "$WORK/times" |
		median | awk '{ printf "%.2f", $1 } END { if (!NR) printf "-" }'
}
# met GOAL P F: "met" / "NOT met" for a goal of clauses "OP RATIO peer|floor"
# joined by ", " (every clause must hold; a missing ratio fails it), nothing
# for a goal without such a clause
met() {
	awk -v g="$1" -v p="$2" -v f="$3" 'BEGIN {
		n = split(g, c, ", "); ok = 1; any = 0
		for (i = 1; i <= n; i++) {
			if (split(c[i], w, " ") != 3 || (w[3] != "peer" && w[3] != "floor")) continue
			any = 1; v = w[3] == "peer" ? p : f
			if (v == "-") ok = 0
			else if (w[1] == "<=") ok = ok && v + 0 <= w[2] + 0
			else if (w[1] == "<") ok = ok && v + 0 < w[2] + 0
			else ok = 0
		}
		if (any) print ok ? "met" : "NOT met"
	}'
}
# row LABEL TOOL PEER FLOOR GOAL: one line of the table ("-" for none)
row() {
	local p=- f=- ms
	ms=$(awk -v v="$(med "$2")" 'BEGIN { printf "%.1f", v / 1000 }')
	[ "$3" != - ] && p=$(rmed "$2" "$3")
	[ "$4" != - ] && f=$(rmed "$2" "$4")
	printf '| %s | %s | %s | %s | %s | %s |\n' "$1" "$ms" "$p" "$f" "$5" "$(met "$5" "$p" "$f")" \
		>>"$WORK/table"
}
# note LABEL VALUE GOAL [MET]: a row that is not a timing
note() { printf '| %s | %s | | | %s | %s |\n' "$1" "$2" "$3" "${4-}" >>"$WORK/table"; }
# below A B: met when A < B (numbers)
below() { awk -v a="$1" -v b="$2" 'BEGIN { print a + 0 < b + 0 ? "met" : "NOT met" }'; }

if want show || want set || want status || want rss || want top; then
	start_threads "$N"
	# in a group of its own, as a service is: a system without any cpu group
	# is rare, and there 'status' also reads /proc/kallsyms (for
	# CONFIG_UCLAMP_TASK_GROUP)
	if [ -e $CG/cgroup.subtree_control ]; then
		mkdir -p $CG/bench-threads && echo "$TP" >$CG/bench-threads/cgroup.procs ||
			die "cannot move the threads into $CG/bench-threads"
	fi
fi
echo "bench: kernel $(uname -r), $(nproc) CPU(s); $R rounds; groups: ${GROUPS_RUN[*]}"

# ---- task show --------------------------------------------------------------
if want show; then
	# the same rows, two ways: the rule agrees with /proc (the VM scenarios prove it in detail)
	a=$("$UCLAMPCTL" task show -a -o TID,EFF_MIN,EFF_MAX -r -n "$TP" | md5sum)
	b=$(UCLAMPCTL_EFF=proc "$UCLAMPCTL" task show -a -o TID,EFF_MIN,EFF_MAX -r -n "$TP" | md5sum)
	[ "$a" = "$b" ] || die "task show: EFF columns differ between the rule and /proc"
	[ "$("$UCLAMPCTL" task show -a -n "$TP" | wc -l)" = "$N" ] || die "task show -a: not $N lines"
	for r in $(seq 1 "$R"); do
		record "$r" getattr-loop "$(tm "$WORK/getattr-loop" "$TP")"
		record "$r" uclampset-show "$(tm "$UCLAMPSET" -a -p "$TP")"
		record "$r" show "$(tm "$UCLAMPCTL" task show -a "$TP")"
		record "$r" show-json "$(tm "$UCLAMPCTL" task show -a -J "$TP")"
		record "$r" show-all "$(tm "$UCLAMPCTL" task show --all -a)"
		record "$r" getattr-all "$(tm "$WORK/getattr-loop" --all)"
		record "$r" show-proc "$(UCLAMPCTL_EFF=proc tm "$UCLAMPCTL" task show -a "$TP")"
		echo "show round $r done"
	done
	row "getattr-loop PID (floor)" getattr-loop - - -
	row "uclampset -a -p PID (peer)" uclampset-show - getattr-loop -
	row "task show -a PID" show uclampset-show getattr-loop "<= 0.80 peer"
	row "task show -a -J PID" show-json uclampset-show getattr-loop "<= 0.80 peer"
	row "task show --all -a (user-space threads)" show-all uclampset-show getattr-all "<= 0.80 peer"
	row "task show -a PID, EFF from /proc (before)" show-proc uclampset-show getattr-loop "-"
fi

# set_once NAME CMD...: CMD's time from every thread of TP at 1024 (untimed),
# checked after: all at 300
set_once() {
	local name=$1 t n all
	shift
	"$WORK/setattr-loop" "$TP" 1024 >/dev/null
	t=$(tm "$@")
	n=$("$UCLAMPCTL" task show -a -o UTIL_MAX -n -r "$TP" | grep -c '^300$' || true)
	all=$(ls "/proc/$TP/task" | wc -l)
	[ "$n" = "$all" ] || die "$name: $n of $all threads at 300"
	echo "$t"
}

# ---- task set --threads -------------------------------------------------------
if want set; then
	for r in $(seq 1 "$R"); do
		record "$r" setattr-loop "$(set_once setattr-loop "$WORK/setattr-loop" "$TP" 300)"
		record "$r" getset-loop "$(set_once getset-loop "$WORK/setattr-loop" --get "$TP" 300)"
		record "$r" check-loop "$(set_once check-loop "$WORK/setattr-loop" --get --check "$TP" 300)"
		record "$r" set "$(set_once uclampctl "$UCLAMPCTL" -q task set --max 300 --threads --yes "$TP")"
		record "$r" uclampset-set "$(set_once uclampset "$UCLAMPSET" -a -p "$TP" -M 300)"
		echo "set round $r done"
	done
	# the floor of issue 19's goal is the getattr+setattr loop (uclampctl keeps the getattr)
	row "setattr-loop PID 300 (setattr only)" setattr-loop - - -
	row "setattr-loop --get PID 300 (getattr+setattr floor)" getset-loop - setattr-loop -
	row "setattr-loop --get --check PID 300 (+ tgkill per thread: the identity-check floor)" \
		check-loop - getset-loop -
	row "uclampset -a -p PID -M 300 (peer; no identity check)" uclampset-set - getset-loop -
	row "uclampset, x the identity-check floor" uclampset-set - check-loop -
	# issue 19's goals (< 1.00 uclampset, <= 1.25 the getattr+setattr floor) are out of
	# reach of any tool that checks each TID (bench/README.md): shown, not judged
	row "task set --max 300 --threads PID" set uclampset-set getset-loop -
	# the goals of issue 32, with the guarantee kept: the floor that checks every
	# TID too, and uclampset with that check's cost
	row "task set --max 300 --threads PID, x the identity-check floor" set - check-loop "<= 1.10 floor"
	# uclampset as it would be with the check: plus the check's cost in the
	# same round (check-loop - getset-loop). Without the lookups that cost
	# it a host round trip each (lib.sh), uclampset itself measures below
	# the check loop, so "< 1.00 peer" above is out of reach of any tool
	# that checks; this is the comparison that is left.
	awk '{ t[$1 " " $2] = $3; r[$1] = 1 } END { for (i in r) {
		u = t[i " uclampset-set"]; c = t[i " check-loop"]; g = t[i " getset-loop"]
		if (u != "" && c != "" && g != "") print i, "uclampset-check", u + c - g } }' \
		"$WORK/times" >>"$WORK/times"
	row "uclampset + the identity check's cost (per round)" uclampset-check - check-loop -
	row "task set --max 300 --threads PID, x uclampset + the check" set uclampset-check check-loop "<= 1.05 peer"
fi

# ---- status -------------------------------------------------------------------
if want status; then
	"$UCLAMPCTL" status >/dev/null 2>&1	# the per-boot symbol cache, as on any later run
	for r in $(seq 1 "$R"); do
		record "$r" getattr-all "$(tm "$WORK/getattr-loop" --all)"
		record "$r" status "$(tm "$UCLAMPCTL" status)"
		echo "status round $r done"
	done
	want show || row "getattr-loop --all (floor)" getattr-all - - -
	row "status ($(ls -d /proc/[0-9]*/task/[0-9]* | wc -l) threads)" status - getattr-all "<= 1.50 floor"
fi

# ---- peak RSS -------------------------------------------------------------------
if want rss; then
	kb=$(/usr/bin/time -f %M "$UCLAMPCTL" task show --all -a 2>&1 >/dev/null | tail -n 1)
	kbj=$(/usr/bin/time -f %M "$UCLAMPCTL" task show --all -a -J 2>&1 >/dev/null | tail -n 1)
	note "peak RSS, task show --all -a" "$((kb / 1024)).$((kb % 1024 * 10 / 1024)) MiB" "< 16 MiB" \
		"$(below "$kb" 16384)"
	note "peak RSS, task show --all -a -J" "$((kbj / 1024)).$((kbj % 1024 * 10 / 1024)) MiB" "< 16 MiB" \
		"$(below "$kbj" 16384)"
fi
# ---- top: the cost of a sample ---------------------------------------------------
if want top; then
	# one pass over /proc a sample: every thread's stat; the clamps and util
	# only of the tasks that ran and the 10 shown (the N threads sleep)
	n=$("$UCLAMPCTL" top -J --once -d 0.1 -t 1 | python3 -c 'import json, sys
j = json.load(sys.stdin); print(len(j["cpus"]), len(j["tasks"]))')
	[ "$n" = "$(nproc) 1" ] || die "top -J --once: '$n', not '$(nproc) 1' (CPUs, tasks)"
	for r in $(seq 1 "$R"); do
		a=$(cpu "$UCLAMPCTL" top -J -n 1 -d 0.1)
		b=$(cpu "$UCLAMPCTL" top -J -n 6 -d 0.1)
		record "$r" top-sample "$(((b - a) / 5))"
		record "$r" show-all-cpu "$(cpu "$UCLAMPCTL" task show --all -a)"
		echo "top round $r done"
	done
	row "task show --all -a, CPU time" show-all-cpu - - -
	row "top -J, one sample ($(ls -d /proc/[0-9]*/task/[0-9]* | wc -l) threads), CPU time" \
		top-sample show-all-cpu - "state it"
	kb=$(/usr/bin/time -f %M "$UCLAMPCTL" top -J -n 3 -d 0.1 2>&1 >/dev/null | tail -n 1)
	note "peak RSS, top -J -n 3" "$((kb / 1024)).$((kb % 1024 * 10 / 1024)) MiB" "< 16 MiB" \
		"$(below "$kb" 16384)"
fi
if [ -n "$TP" ]; then
	kill "$TP" 2>/dev/null
	wait "$TP" 2>/dev/null || true
	rmdir $CG/bench-threads 2>/dev/null || true
fi
TP=

# ---- start: one thread ---------------------------------------------------------
if want start; then
	[ -z "${OLD-}" ] || { cp "$OLD" "$WORK/old" && OLD=$WORK/old; } || die "cannot copy $OLD"
	start_threads 1
	# the key on and the symbol cache made, as in every round after
	tset() { "$1" -q task set --max 300 --threads --yes "$TP"; }	# BINARY
	set_once warm-up tset "$UCLAMPCTL" >/dev/null
	for r in $(seq 1 "$R"); do
		record "$r" check-loop1 "$(set_once floor "$WORK/setattr-loop" --get --check "$TP" 300)"
		record "$r" uclampset1 "$(set_once uclampset "$UCLAMPSET" -a -p "$TP" -M 300)"
		record "$r" set1 "$(set_once uclampctl tset "$UCLAMPCTL")"
		record "$r" check-q "$(tm "$UCLAMPCTL" -q check)"
		record "$r" check "$(tm "$UCLAMPCTL" check)"
		if [ -n "${OLD-}" ]; then
			record "$r" set1-old "$(set_once old tset "$OLD")"
			record "$r" check-q-old "$(tm "$OLD" -q check)"
			record "$r" check-old "$(tm "$OLD" check)"
		fi
		echo "start round $r done"
	done
	row "setattr-loop --get --check PID 300, 1 thread (floor)" check-loop1 - - -
	row "uclampset -a -p PID -M 300, 1 thread (peer)" uclampset1 - check-loop1 -
	row "task set --max 300 --threads PID, 1 thread" set1 uclampset1 check-loop1 "<= 1.05 peer"
	row "check -q" check-q uclampset1 - "<= 1.05 peer"
	row "check (and its findings: every thread and cgroup read)" check uclampset1 - "state it"
	if [ -n "${OLD-}" ]; then
		row "OLD: task set --max 300 --threads PID, 1 thread" set1-old uclampset1 \
			check-loop1 -
		row "OLD: check -q" check-q-old uclampset1 - -
		row "OLD: check" check-old uclampset1 - -
	fi
	kill "$TP" 2>/dev/null
	wait "$TP" 2>/dev/null || true
	TP=
fi

# ---- cgroups ----------------------------------------------------------------------
if want cgroup; then
	[ "$(stat -f -c %T $CG)" = cgroup2fs ] || die "cgroup: the VM's cgroup v2 layout expected at $CG"
	. "$BENCH_DIR/cgtree.sh"
	cgtree_build "$CG/bench" "$NCG" 5 || die "cgroup tree"
	conf=$WORK/apply.conf
	cgtree_set_and_conf "$CG" bench "$NAPPLY" "$conf" || die "cgroup values"
	files=$(sed -n 's/^\[cgroup \(.*\)\]$/\1/p' "$conf" |
		awk -v cg="$CG" '{ print cg "/" $0 "/cpu.uclamp.min"; print cg "/" $0 "/cpu.uclamp.max" }')
	out=$("$UCLAMPCTL" apply -c "$conf" --yes 2>&1) || die "apply: $out"
	printf '%s\n' "$out" | grep -q 'nothing to change' || die "apply: not already in place: $out"
	nw=$(strace -f -e trace=openat -o "$WORK/strace" "$UCLAMPCTL" apply -c "$conf" --yes >/dev/null 2>&1;
	     grep -c 'cgroup.*O_WRONLY\|cgroup.*O_RDWR' "$WORK/strace" || true)
	[ "$nw" = 0 ] || die "apply of values in place opened $nw cgroup files for writing"
	ng=$(find $CG -name cpu.uclamp.max | wc -l)
	for r in $(seq 1 "$R"); do
		record "$r" find-cat "$(tm find $CG -name cpu.uclamp.max -exec cat {} +)"
		record "$r" cgshow "$(tm "$UCLAMPCTL" cgroup show -R)"
		record "$r" cat-apply "$(tm cat $files)"
		record "$r" apply "$(tm "$UCLAMPCTL" apply -c "$conf" --yes)"
		echo "cgroup round $r done"
	done
	row "find $CG -name cpu.uclamp.max -exec cat (peer, $ng groups)" find-cat - - -
	row "cgroup show -R" cgshow find-cat - "<= 1.50 peer"
	row "cat of the $NAPPLY groups' min+max files (floor)" cat-apply - - -
	row "apply, $NAPPLY [cgroup] sections in place (0 writes)" apply - cat-apply "<= 2.00 floor"
	cgtree_remove "$CG/bench"
fi

# ---- cold start: check without the symbol cache -------------------------------------
if want cold; then
	cache=/run/uclampctl/ksyms
	# the fake root needs the test build: uclampctl itself has no sysroot seam
	# (it would read the real /proc/kallsyms, or the real cache)
	uctest=${UCLAMPCTL_TEST:-$SRC_DIR/tests/uclampctl-test}
	[ -x "$uctest" ] || die "cold: no $uctest (make check builds it; or -e UCLAMPCTL_TEST=...)"
	cp "$uctest" "$WORK/uclampctl-test"
	uctest=$WORK/uclampctl-test
	nk=$(wc -l </proc/kallsyms)
	# a distro-sized table in a fake root: mkkcore.py's kernel, padded to KSYMS lines
	fr=$WORK/fakeroot
	mkdir -p "$fr/proc/sys/kernel/random" "$fr/run"
	for f in sched_util_clamp_min sched_util_clamp_max sched_util_clamp_min_rt_default; do
		echo 1024 >"$fr/proc/sys/kernel/$f"
	done
	uname -r >"$fr/proc/sys/kernel/osrelease"
	cat /proc/sys/kernel/random/boot_id >"$fr/proc/sys/kernel/random/boot_id"
	python3 "$SRC_DIR/tests/cli/mkkcore.py" "$fr" --key 0 >/dev/null || die "mkkcore.py"
	ksyms_pad "$fr/proc/kallsyms" "$KSYMS"
	for r in $(seq 1 "$R"); do
		rm -f "$cache" "$fr$cache"
		record "$r" cat-kallsyms "$(tm cat /proc/kallsyms)"
		record "$r" check "$(tm "$UCLAMPCTL" check)"
		record "$r" cat-fake "$(tm cat "$fr/proc/kallsyms")"
		record "$r" check-fake "$(UCLAMPCTL_SYSROOT="$fr" tm "$uctest" check)"
		echo "cold round $r done"
	done
	rm -f "$fr$cache"
	# bytes read from the fake kallsyms (its fd from open to close)
	UCLAMPCTL_SYSROOT="$fr" strace -e trace=openat,read,close -o "$WORK/strace" "$uctest" check \
		>/dev/null 2>&1 || true
	read_bytes=$(awk '/^openat.*proc\/kallsyms"/ { fd = $NF; on = 1; next }
		on && index($0, "read(" fd ",") == 1 { s += $NF }
		on && index($0, "close(" fd ")") == 1 { on = 0 } END { print s + 0 }' "$WORK/strace")
	row "cat /proc/kallsyms ($nk lines)" cat-kallsyms - - -
	row "check, no cache (VM kernel, $nk lines)" check - cat-kallsyms "state it"
	row "cat fake kallsyms ($KSYMS lines, $(stat -c %s "$fr/proc/kallsyms") bytes)" cat-fake - - -
	row "check, no cache, fake $KSYMS lines (read $read_bytes bytes of it)" check-fake - cat-fake \
		"state it; stop early"
fi

# ---- watch in a fork storm no rule can match --------------------------------------
if want forks; then
	. "$BENCH_DIR/watch-lib.sh"
	gcc -O2 -o "$WORK/forks" "$SRC_DIR/tests/vm/helpers/forks.c" || die "gcc forks.c"
	mkfifo "$WORK/never"
	exec 3<>"$WORK/never"	# read -t on it: a sleep without an exec
	# cpu_ns PID: CPU time of all its threads in ns (the scheduler's "ms.ns"
	# with the dot dropped), builtins only: no exec of ours reaches the daemon
	cpu_ns() {
		local t k v
		CPU=0
		for t in /proc/"$1"/task/*; do
			while read -r k _ v; do
				case $k in se.sum_exec_runtime) CPU=$((CPU + 10#${v/./})) ;; esac
			done <"$t/sched"
		done
	}
	# storm CONF: WAKE = the daemon's wakeups in the storm, NS = its CPU ns
	storm() {
		local c0 n0
		start_watch "$1"
		read -r -t 2 -u 3 _ || true	# the status query's own events first
		ctxt "$WP"; c0=$CS; cpu_ns "$WP"; n0=$CPU
		"$WORK/forks" "$NF"
		read -r -t 1 -u 3 _ || true
		ctxt "$WP"; WAKE=$((CS - c0)); cpu_ns "$WP"; NS=$((CPU - n0))
		stop_watch
	}
	probe_conf	# [tasks probe] comm = uc-probe: exec and comm events only
	storm "$WORK/w.conf"
	note "watch: $NF forks no rule can match, comm rule (socket filter): wakeups" "$WAKE" \
		"<= 20" "$( [ "$WAKE" -le 20 ] && echo met || echo 'NOT met')"
	note "watch: the same storm, its CPU per fork (ns; instructions under -icount)" \
		"$((NS / NF))" "state it"
	printf '[fast-path]\nallow-enable = yes\n\n[tasks child]\nparent = uc-nobody\nmax = 300\n' \
		>"$WORK/wp.conf"	# a parent selector: every process's fork must reach it
	storm "$WORK/wp.conf"
	note "watch: the same storm, a parent rule (forks not filtered): wakeups" "$WAKE" "state it"
	note "watch: the same storm, a parent rule: its CPU per fork (ns)" "$((NS / NF))" "state it"
fi

# ---- watch against its peers: last, its daemons see the same kernel state ----------------
if want peers; then
	# shown as it goes (one line per daemon): a run cut short still tells something
	bash "$BENCH_DIR/watch-peers.sh" 2>&1 | tee "$WORK/peers" | grep --line-buffered -v '^|' ||
		die "watch-peers.sh failed: $(tail -n 5 "$WORK/peers")"
	grep '^| watch' "$WORK/peers" >>"$WORK/table" || true	# its goal rows
fi

echo
echo "| job | median ms | x peer | x floor | goal | met |"
echo "|---|---|---|---|---|---|"
cat "$WORK/table"
if want peers; then
	echo
	grep '^|' "$WORK/peers" | grep -v '^| watch'
fi
