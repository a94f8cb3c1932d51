#!/bin/bash
# Run each built libFuzzer target for SECONDS (make fuzz-run; CI: 20 s each).
#
# usage: tests/fuzz/run.sh [-d BINDIR] [-r RUNS] SECONDS [NAME...]
#   BINDIR  where build.sh put fuzz_NAME (default tests/fuzz/bin)
#   RUNS    stop a target after RUNS executions instead (SECONDS still bounds it)
#   NAME    default: every fuzz_* in BINDIR
# Seeds come from tests/fuzz/corpus/NAME (read only); new inputs go to a
# scratch corpus. A crash, leak, sanitizer report or timeout fails the target
# and leaves the input as BINDIR/crash-NAME-*. Prints one line per target
# ("fuzz NAME: N executions in S s: ok") and "N passed, N failed".
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bindir=tests/fuzz/bin
runs=
while getopts "d:r:" o; do
	case $o in
	d) bindir=$OPTARG ;;
	r) runs=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
secs=${1:?usage: run.sh [-d BINDIR] [-r RUNS] SECONDS [NAME...]}
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
pass=0 fail=0
for n in "${names[@]}"; do
	bin=$bindir/fuzz_$n
	if [ ! -x "$bin" ]; then
		echo "fuzz $n: not built"
		fail=$((fail + 1))
		continue
	fi
	mkdir -p "$scratch/$n"
	seeds=()
	[ -d "$here/corpus/$n" ] && seeds=("$here/corpus/$n")
	log=$bindir/fuzz_$n.log
	t0=$SECONDS
	nice -n 10 "$bin" -max_total_time="$secs" ${runs:+-runs="$runs"} -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$bindir/crash-$n-" "$scratch/$n" "${seeds[@]}" >"$log" 2>&1
	rc=$?
	execs=$(awk '/stat::number_of_executed_units:/ { print $2 }' "$log" | tail -n 1)
	if [ "$rc" = 0 ] && ! grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' "$log"; then
		pass=$((pass + 1))
		echo "fuzz $n: ${execs:-?} executions in $((SECONDS - t0)) s: ok"
	else
		fail=$((fail + 1))
		echo "fuzz $n: ${execs:-?} executions in $((SECONDS - t0)) s: FAILED (exit $rc, log $log)"
		grep -E -A25 'ERROR:|runtime error:' "$log" | head -n 60
	fi
done
echo "$pass passed, $fail failed"
((fail == 0))
