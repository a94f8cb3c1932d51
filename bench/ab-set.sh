#!/bin/bash
# Two builds of uclampctl taking turns on 'task set --max 300 --threads PID'
# over N (10,000) threads, with the identity-check floor (setattr-loop --get
# --check) in every round: a change to the write path measured against the
# code before it in one VM. Each run starts from every thread at 1024 and is
# checked; then each build's page faults and peak RSS (/usr/bin/time). In the
# uclamp VM, as root (bench/README.md):
#   UCLAMPCTL=NEW OLD=OLD_BINARY bench/ab-set.sh
. "$(dirname "$0")/lib.sh"
: "${OLD:?set OLD to the other uclampctl binary}"
N=${N:-10000}
cp "$OLD" "$WORK/old"
OLD=$WORK/old
gcc -O2 -o "$WORK/setattr-loop" "$BENCH_DIR/setattr-loop.c" || die "gcc setattr-loop.c"
gcc -O2 -pthread -o "$WORK/threads" "$SRC_DIR/tests/vm/helpers/threads.c" || die "gcc threads.c"
TP=
trap '[ -n "$TP" ] && kill $TP 2>/dev/null; rm -rf "$WORK"' EXIT
start_threads "$N"
us() { echo "${EPOCHREALTIME/./}"; }
# once NAME CMD...: from every thread at 1024 (untimed), the time in us, checked after
once() {
	local name=$1 t0 t1 n
	shift
	"$WORK/setattr-loop" "$TP" 1024 >/dev/null
	t0=$(us)
	"$@" >/dev/null 2>&1 || true
	t1=$(us)
	n=$("$UCLAMPCTL" task show -a -o UTIL_MAX -n -r "$TP" | grep -c '^300$' || true)
	[ "$n" = "$N" ] || die "$name: $n of $N threads at 300"
	echo $((t1 - t0))
}
# the first write of a boot turns the key on: its one kallsyms re-read stays out of the rounds
once warm-up "$UCLAMPCTL" -q task set --max 300 --threads --yes "$TP" >/dev/null
echo "| round | task set, new: UCLAMPCTL (us) | task set, old: OLD (us) | identity-check floor (us) |"
echo "|---|---|---|---|"
for r in $(seq 1 "$R"); do
	echo "| $r | $(once new "$UCLAMPCTL" -q task set --max 300 --threads --yes "$TP") |" \
	     "$(once old "$OLD" -q task set --max 300 --threads --yes "$TP") |" \
	     "$(once floor "$WORK/setattr-loop" --get --check "$TP" 300) |"
done
for b in "$UCLAMPCTL" "$OLD"; do
	"$WORK/setattr-loop" "$TP" 1024 >/dev/null
	/usr/bin/time -f "$([ "$b" = "$OLD" ] && echo old || echo new): %R page faults, peak RSS %M KiB" \
		"$b" -q task set --max 300 --threads --yes "$TP" 2>&1 >/dev/null | tail -1
done
