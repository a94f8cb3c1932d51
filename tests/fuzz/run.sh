#!/bin/bash
# Run each built libFuzzer target for SECONDS (make fuzz-run; CI: 20 s each).
#
# usage: tests/fuzz/run.sh [-d BINDIR] [-r RUNS] [-j JOBS] SECONDS [NAME...]
#   BINDIR  where build.sh put fuzz_NAME (default tests/fuzz/bin)
#   RUNS    stop a target after RUNS executions instead (SECONDS still bounds it)
#   JOBS    targets run at once (default: the CPUs, nproc); each is one
#           single-threaded libFuzzer process, so one at a time left CI's
#           second core idle for the whole stage
#   NAME    default: every fuzz_* in BINDIR
# Seeds come from tests/fuzz/corpus/NAME (read only); new inputs go to a
# scratch corpus. A crash, leak, sanitizer report or timeout fails the target
# and leaves the input as BINDIR/crash-NAME-*. Prints one line per target
# ("fuzz NAME: N executions in S s: ok") and "N passed, N failed".
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bindir=tests/fuzz/bin
runs=
jobs=$(nproc)
while getopts "d:r:j:" o; do
	case $o in
	d) bindir=$OPTARG ;;
	r) runs=$OPTARG ;;
	j) jobs=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "fuzz: -j '$jobs': give a number of targets to run at once, 1 or more" >&2; exit 2; }
secs=${1:?usage: run.sh [-d BINDIR] [-r RUNS] [-j JOBS] SECONDS [NAME...]}
shift
bindir=$(cd "$bindir" && pwd) || exit 1
if (($#)); then
	names=("$@")
else
	names=()
	for b in "$bindir"/fuzz_*; do [ -x "$b" ] && names+=("$(basename "$b" | sed 's/^fuzz_//')"); done
fi
((${#names[@]})) || { echo "fuzz: no targets in $bindir (run make fuzz)" >&2; exit 1; }
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/uclampctl-fuzz-corpus.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
# one target: its report into $scratch/NAME.out, its verdict into NAME.ok
# (printed in the targets' order when all have ended: no interleaving)
run_target() {
	local n=$1 bin=$bindir/fuzz_$1 seeds=() log t0 rc execs
	if [ ! -x "$bin" ]; then
		echo "fuzz $n: not built"
		return 1
	fi
	mkdir -p "$scratch/$n"
	[ -d "$here/corpus/$n" ] && seeds=("$here/corpus/$n")
	log=$bindir/fuzz_$n.log
	t0=$SECONDS
	nice -n 10 "$bin" -max_total_time="$secs" ${runs:+-runs="$runs"} -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$bindir/crash-$n-" "$scratch/$n" "${seeds[@]}" >"$log" 2>&1
	rc=$?
	execs=$(awk '/stat::number_of_executed_units:/ { print $2 }' "$log" | tail -n 1)
	if [ "$rc" = 0 ] && ! grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' "$log"; then
		echo "fuzz $n: ${execs:-?} executions in $((SECONDS - t0)) s: ok"
		return 0
	fi
	echo "fuzz $n: ${execs:-?} executions in $((SECONDS - t0)) s: FAILED (exit $rc, log $log)"
	grep -E -A25 'ERROR:|runtime error:' "$log" | head -n 60
	return 1
}
for n in "${names[@]}"; do
	while (($(jobs -rp | wc -l) >= jobs)); do wait -n; done
	{ run_target "$n" >"$scratch/$n.out" 2>&1 && touch "$scratch/$n.ok"; } &
done
wait
pass=0 fail=0
for n in "${names[@]}"; do
	cat "$scratch/$n.out"
	if [ -e "$scratch/$n.ok" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
echo "$pass passed, $fail failed"
((fail == 0))
