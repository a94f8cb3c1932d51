# Sourced by the CLI tests (tests/cli/test-*.sh): the real binary against a
# fake root. $UCLAMPCTL is set by 'make check' (AM_TESTS_ENVIRONMENT).
#
#   fake_root               make an empty fake root, export UCLAMPCTL_SYSROOT=$ROOT
#   fake_sysctls MIN MAX [RT]  lay out /proc/sys/kernel/sched_util_clamp_* (RT "" = absent)
#   fake_release REL        /proc/sys/kernel/osrelease
#   fake_key 0|1            pin sched_uclamp_used via a crafted kallsyms + kcore
#   t "what" N CMD...       run CMD, expect exit N; stdout+stderr in $OUT
#   has REGEX / hasnt REGEX  $OUT matches / does not match (grep -E)
#   same FILE TEXT          FILE's content is exactly TEXT
#   finish                  print "N passed, N failed" and exit accordingly
set -u
: "${UCLAMPCTL:?set UCLAMPCTL to the uclampctl binary}"
PASS=0
FAIL=0
OUT=
RC=0
ROOT=
_tmpdirs=()
trap 'rm -rf "${_tmpdirs[@]}"' EXIT

fake_root() {
	ROOT=$(mktemp -d "${TMPDIR:-/tmp}/uclampctl-root.XXXXXX")
	_tmpdirs+=("$ROOT")
	mkdir -p "$ROOT/proc/sys/kernel" "$ROOT/sys"
	export UCLAMPCTL_SYSROOT=$ROOT
}
fake_sysctls() {
	local k=$ROOT/proc/sys/kernel
	echo "$1" >"$k/sched_util_clamp_min"
	echo "$2" >"$k/sched_util_clamp_max"
	if [ -n "${3-}" ]; then echo "$3" >"$k/sched_util_clamp_min_rt_default"; else rm -f "$k/sched_util_clamp_min_rt_default"; fi
}
# fake_key 0|1: a crafted kallsyms + kcore in the fake root that pin the key's
# state (fake non-default sysctls alone would count as evidence of "on")
fake_key() { python3 "$TESTS_SRCDIR/cli/mkkcore.py" "$ROOT" --key "$1"; }
fake_release() { echo "$1" >"$ROOT/proc/sys/kernel/osrelease"; }
_pass() { PASS=$((PASS + 1)); echo "ok - $*"; }
_fail() { FAIL=$((FAIL + 1)); echo "not ok - $*"; printf '%s\n' "$OUT" | sed 's/^/#   /'; }
t() {
	local what=$1 want=$2
	shift 2
	OUT=$("$@" </dev/null 2>&1)
	RC=$?
	if [ "$RC" = "$want" ]; then _pass "$what (exit $RC)"; else _fail "$what: exit $RC, expected $want"; fi
}
has() { if printf '%s\n' "$OUT" | grep -Eq -- "$1"; then _pass "output has /$1/"; else _fail "output lacks /$1/"; fi; }
hasnt() { if printf '%s\n' "$OUT" | grep -Eq -- "$1"; then _fail "output has /$1/ (should not)"; else _pass "output lacks /$1/"; fi; }
same() {
	local got
	got=$(cat "$1" 2>&1)
	if [ "$got" = "$2" ]; then _pass "$1 = '$2'"; else FAIL=$((FAIL + 1)); echo "not ok - $1 = '$got', expected '$2'"; fi
}
finish() {
	echo "$PASS passed, $FAIL failed"
	[ "$FAIL" = 0 ] && [ "$PASS" -gt 0 ]
}
