#!/bin/bash
# User-space instructions of one 'task set --max 300 --threads PID' over N
# (10,000) threads, counted by callgrind, against uclampset -a -p PID -M 300
# and the identity-check floor (setattr-loop --get --check): where a
# per-thread cost is, when the wall clock only says how much. Each run starts
# from every thread at 1024; the key is flipped first by an untimed task set.
# With N=1 a tool's start is most of it; 'check -q' is counted too, and with
# OLD=BINARY that build's task set and check -q.
# In the uclamp VM, as root, valgrind installed on the host (bench/README.md):
#   UCLAMPCTL=... [OUT=dir] [N=1] [OLD=...] bench/callgrind-set.sh
# Writes OUT/cg.{uclampctl,uclampset,floor,check}.out (callgrind_annotate
# reads them) and prints each total and the dynamic loader's share of it.
. "$(dirname "$0")/lib.sh"
N=${N:-10000}
OUT=${OUT:-$SRC_DIR/callgrind-out}
command -v valgrind >/dev/null || die "valgrind is not installed (apt-get install valgrind, on the host)"
mkdir -p "$OUT" || die "cannot create $OUT"
gcc -O2 -pthread -o "$WORK/threads" "$SRC_DIR/tests/vm/helpers/threads.c" || die "gcc threads.c"
gcc -O2 -o "$WORK/setattr-loop" "$BENCH_DIR/setattr-loop.c" || die "gcc setattr-loop.c"
TP=
trap '[ -n "$TP" ] && kill $TP 2>/dev/null; rm -rf "$WORK"' EXIT
start_threads "$N"
"$UCLAMPCTL" -q task set --max 300 --threads --yes "$TP" >/dev/null || die "task set failed"
# prof NAME CMD...: one run under callgrind, from every thread at 1024
prof() {
	local name=$1 f=$OUT/cg.$1.out total ldso rc=0
	shift
	"$WORK/setattr-loop" "$TP" 1024 >/dev/null
	valgrind --tool=callgrind --callgrind-out-file="$f" "$@" >/dev/null 2>"$OUT/vg.$name.err" ||
		rc=$?
	total=$(sed -n 's/.*Collected : //p' "$OUT/vg.$name.err")
	# (check's exit status is the key's state)
	[ -n "$total" ] && { [ $rc = 0 ] || [ "${name#check}" != "$name" ]; } ||
		die "$name failed under callgrind: $(tail -1 "$OUT/vg.$name.err")"
	ldso=$(callgrind_annotate "$f" 2>/dev/null |
		awk '/ld-linux/ { gsub(",", "", $1); s += $1 } END { print s + 0 }')
	echo "$name: $total instructions, $ldso in the dynamic loader"
}
prof uclampctl "$UCLAMPCTL" -q task set --max 300 --threads --yes "$TP"
prof uclampset "$UCLAMPSET" -a -p "$TP" -M 300
prof floor "$WORK/setattr-loop" --get --check "$TP" 300
prof check "$UCLAMPCTL" -q check
if [ -n "${OLD-}" ]; then
	prof uclampctl-old "$OLD" -q task set --max 300 --threads --yes "$TP"
	prof check-old "$OLD" -q check
fi
