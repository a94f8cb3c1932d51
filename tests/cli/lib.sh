# Sourced by the CLI tests (tests/cli/test-*.sh): the real binary against a
# fake root. $UCLAMPCTL is set by 'make check' (AM_TESTS_ENVIRONMENT).
#
#   fake_root               make an empty fake root, export UCLAMPCTL_SYSROOT=$ROOT
#   fake_sysctls MIN MAX [RT]  lay out /proc/sys/kernel/sched_util_clamp_* (RT "" = absent)
#   fake_release REL        /proc/sys/kernel/osrelease
#   fake_key 0|1            pin sched_uclamp_used via a crafted kallsyms + kcore
#   t "what" N CMD...       run CMD, expect exit N; stdout+stderr in $OUT
#   tj "what" N CMD...      the same, $OUT stdout only (the JSON), stderr in $ERR
#   has REGEX / hasnt REGEX  $OUT matches / does not match (grep -E)
#   same FILE TEXT          FILE's content is exactly TEXT
#   skip_part WHY           part of the test cannot run here: said, and counted
#   finish                  print "N passed, N failed, N skipped" and exit accordingly
#   alias_value VALUE NAME  show VALUE as NAME in the bad-input log (PIDs, paths)
#   use_tmux                skip (77) without tmux; panes run under /bin/sh
#
# Bad inputs: every case expected to fail (any nonzero exit but check's
# states) is logged to $TESTS_BUILDDIR/cli/NAME.bad, one tab-separated line:
# what, command, exit, first error line, and whether a snapshot of the fake
# root (paths, types, sizes, modes, small files' contents; not the per-boot
# cache) was the same before and after. tests/gen-bad-inputs.sh renders them as tests/bad-inputs.md.
set -u
: "${UCLAMPCTL:?set UCLAMPCTL to the uclampctl binary}"
PASS=0
FAIL=0
SKIPPED=0
OUT=
RC=0
ROOT=
_tmpdirs=()
trap 'rm -rf "${_tmpdirs[@]}"' EXIT

_bad_log=${TESTS_BUILDDIR:+$TESTS_BUILDDIR/cli/$(basename "$0" .sh).bad}
if [ -n "$_bad_log" ]; then
	mkdir -p "$(dirname "$_bad_log")" && : >"$_bad_log" || _bad_log=
fi
_alias_from=("$$")
_alias_to=('$$')
alias_value() { _alias_from+=("$1"); _alias_to+=("$2"); }
_anon() {	# the text with ROOT, temp dirs and registered values by name
	local s=$1 i
	local -a e=()
	[ -n "$ROOT" ] && s=${s//"$ROOT"/ROOT}
	# the checkout's location must not show: the table is compared across builds
	s=${s//"$UCLAMPCTL"/uclampctl}
	[ -n "${TESTS_BUILDDIR-}" ] && s=${s//"$TESTS_BUILDDIR"/BUILD/tests}
	[ -n "${TESTS_SRCDIR-}" ] && s=${s//"$TESTS_SRCDIR"/SRC/tests}
	# one sed for every value, the last registered first; a value right after
	# an escape (\x09 of a tab) is still one
	for ((i = ${#_alias_from[@]} - 1; i >= 0; i--)); do
		e+=(-e "s/(^|[^0-9]|\\\\x[0-9a-f]{2})${_alias_from[i]}([^0-9]|\$)/\1${_alias_to[i]}\2/g")
	done
	# any other process (run's own, ...): its number differs each run
	printf '%s' "$s" | sed -E "${e[@]}" -e "s#${TMPDIR:-/tmp}/[A-Za-z_-]+\.[A-Za-z0-9]{6}#TMP#g" \
		-e 's/\<pid [0-9]+/pid N/g'
}
_snap() {	# names, types, sizes, modes, links and small files' contents (not kcore)
	if [ -z "$ROOT" ] || [ ! -d "$ROOT" ]; then echo none; return; fi
	find "$ROOT" -path "$ROOT/run/uclampctl" -prune -o -printf '%P %y %s %m %l\n' \
		\( -type f -size -64k -exec md5sum {} + \) 2>/dev/null | sort | md5sum
}
# bad_begin; ...run...; bad_end WHAT WANT CMD...: log a case expected to fail
_bad_before=
bad_begin() { [ -n "$_bad_log" ] && _bad_before=$(_snap); }
bad_end() {
	local what=$1 want=$2 cmd= a msg same
	shift 2
	[ -n "$_bad_log" ] && [ "$want" != 0 ] || return 0
	for a in "$@"; do [ "$a" = check ] && return 0; done	# check's exits are states, not errors
	for a in "$@"; do
		if [ "$a" = "$UCLAMPCTL" ]; then cmd+=" uclampctl"; else cmd+=" $(printf '%q' "$a")"; fi
	done
	msg=$(printf '%s\n' "$OUT" | sed -n 's/^\(stderr: \)\{0,1\}\(uclampctl: .*\)/\2/p' | head -n 1)
	[ -n "$msg" ] || msg=$(printf '%s\n' "$OUT" | sed -e 's/^std\(out\|err\): //' -e '/^[[:space:]]*$/d' | head -n 1)
	[ -n "$msg" ] || msg="(no output)"
	msg=${msg//$'\t'/\\t}
	what=${what//$'\t'/\\t}
	if [ "$(_snap)" = "$_bad_before" ]; then same=yes; else same=no; fi
	[ "$_bad_before" = "none" ] && same=n/a
	printf '%s\t%s\t%s\t%s\t%s\n' "$(_anon "$what")" "$(_anon "${cmd# }")" "$want" "$(_anon "$msg")" "$same" \
		| tr -d '\r' >>"$_bad_log"
}

# fake_root [MIN MAX [RT_DEFAULT]]: a new fake root (with these sysctls)
fake_root() {
	ROOT=$(mktemp -d "${TMPDIR:-/tmp}/uclampctl-root.XXXXXX")
	_tmpdirs+=("$ROOT")
	mkdir -p "$ROOT/proc/sys/kernel" "$ROOT/sys"
	export UCLAMPCTL_SYSROOT=$ROOT
	[ $# = 0 ] || fake_sysctls "$@"
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
	bad_begin
	OUT=$("$@" </dev/null 2>&1)
	RC=$?
	bad_end "$what" "$want" "$@"
	if [ "$RC" = "$want" ]; then _pass "$what (exit $RC)"; else _fail "$what: exit $RC, expected $want"; fi
}
tj() {
	local what=$1 want=$2 errf
	shift 2
	errf=$(mktemp "${TMPDIR:-/tmp}/uclampctl-err.XXXXXX")
	OUT=$("$@" </dev/null 2>"$errf")
	RC=$?
	ERR=$(cat "$errf")
	rm -f "$errf"
	if [ "$RC" = "$want" ]; then _pass "$what (exit $RC)"; else _fail "$what: exit $RC, expected $want ($ERR)"; fi
}
has() { if printf '%s\n' "$OUT" | grep -Eq -- "$1"; then _pass "output has /$1/"; else _fail "output lacks /$1/"; fi; }
hasnt() { if printf '%s\n' "$OUT" | grep -Eq -- "$1"; then _fail "output has /$1/ (should not)"; else _pass "output lacks /$1/"; fi; }
same() {
	local got
	got=$(cat "$1" 2>&1)
	if [ "$got" = "$2" ]; then _pass "$1 = '$2'"; else FAIL=$((FAIL + 1)); echo "not ok - $1 = '$got', expected '$2'"; fi
}
# py EXPR: evaluate EXPR with j = the JSON in $OUT; prints the result
py() { printf '%s\n' "$OUT" | python3 -c "import json,sys; j=json.load(sys.stdin); print($1)" 2>&1; }
is() {	# is "what" EXPR WANT
	local got
	got=$(py "$2")
	if [ "$got" = "$3" ]; then _pass "$1: $2 = $3"; else FAIL=$((FAIL + 1)); echo "not ok - $1: $2 = '$got', expected '$3'"; fi
}
# A part that cannot run here is not a pass: "# SKIP" and a count in the
# result line, which CI adds up (.ci/run); a whole test skips with exit 77.
skip_part() { SKIPPED=$((SKIPPED + 1)); echo "# SKIP: $*"; }
finish() {
	echo "$PASS passed, $FAIL failed, $SKIPPED skipped"
	[ "$FAIL" = 0 ] && [ "$PASS" -gt 0 ]
}

# use_tmux: the test drives a real terminal through tmux (skipped without it).
# tmux runs a pane's command with $SHELL, else with the user's login shell: as
# nobody in CI's distcheck (no SHELL in the environment) that is
# /usr/sbin/nologin, the pane never runs, and a 'tmux wait-for' on it waited
# until CI's time limit. Name a real shell.
use_tmux() {
	if ! command -v tmux >/dev/null; then
		echo "SKIP: tmux is not installed"
		exit 77
	fi
	export SHELL=/bin/sh
}
