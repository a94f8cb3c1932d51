# Sourced by every VM scenario (tests/vm/scenarios/*.sh), inside the guest,
# after a fresh boot: sched_uclamp_used is 0 when a scenario starts.
#
#   key                     print sched_uclamp_used's 'enabled' (0/1), read independently
#   expect_key N [what]     fail unless the key is N
#   run CMD...              run CMD, keep stdout+stderr in $OUT and status in $RC
#   expect_rc N CMD...      run, then fail unless the status is N
#   expect_out REGEX        fail unless $OUT matches (grep -E)
#   expect_no_out REGEX     fail if $OUT matches
#   check "what" CMD...     fail unless CMD succeeds
#   uclampctl ...           the binary under test ($UCLAMPCTL, as installed: no
#                           fake-root seam; $UCLAMPCTL_TEST is the test build with it);
#                           both are copies in a 0755 /tmp directory, so that
#                           unprivileged runs work from any checkout location
#   tclamp PID              print "min max" requested by PID (sched_getattr via uclampset -p)
#   task_eff PID            print "min max " effective for PID by the kernel (/proc/PID/sched)
#   expect_group_eff PID WHAT  fail unless 'cgroup show --pid PID' EFF_MIN/EFF_MAX = task_eff PID
#   consented_conf FILE     write '[fast-path] allow-enable = yes', then stdin, to FILE
#   expect_cg_layout REGEX  fail unless the key is still 0 after boot and 'cgroup show -v'
#                           names the layout REGEX
#   watch_prom SOCK         'watch status --format=prometheus' of the daemon on SOCK
#   watch_metric SOCK NAME  the value of uclampctl_watch_NAME (labels included) there
#   skip_scenario "why"     this kernel lacks what the scenario needs: exit 77
#                           after the checks made so far (run.sh: SKIP, a failure
#                           when UCLAMP_VM_NO_SKIP=1, as CI sets for its own kernel)
#   expect_newcomer_alone   after 'run helpers/pidreuse ...': the stage was set and the
#                           newcomer at the planned PID still has the default clamps
#   done_scenario           print the verdict and exit (call last)
set -u
VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: "${UCLAMPCTL:?UCLAMPCTL must point at the binary under test}"
FAILS=0
CHECKS=0
OUT=
RC=0

# Unprivileged runs (setpriv --reuid=65534, su) must reach the binary wherever
# the checkout lives (a clone in a 0700 home gives EACCES, exit 126): every
# run, root's too, uses one copy of the same bytes in a 0755 directory of the
# guest's /tmp. $UCLAMPCTL_BUILT keeps the build-tree path.
_vm_bindir=$(mktemp -d /tmp/uclampctl-bin.XXXXXX) && chmod 755 "$_vm_bindir" || exit 1
install -m 755 "$UCLAMPCTL" "$_vm_bindir/uclampctl" || exit 1
UCLAMPCTL_BUILT=$UCLAMPCTL
UCLAMPCTL=$_vm_bindir/uclampctl
if [ -n "${UCLAMPCTL_TEST-}" ]; then
	install -m 755 "$UCLAMPCTL_TEST" "$_vm_bindir/uclampctl-test" || exit 1
	UCLAMPCTL_TEST=$_vm_bindir/uclampctl-test
fi
export UCLAMPCTL UCLAMPCTL_BUILT UCLAMPCTL_TEST

uclampctl() { "$UCLAMPCTL" "$@"; }
# helper NAME OUT: the C helper helpers/NAME.c (NAME.so: stopat.c, an
# LD_PRELOAD) as OUT: a copy of run.sh's build on the host, else built here
helper() {
	if [ -n "${UCLAMP_VM_HELPERS-}" ] && [ -x "$UCLAMP_VM_HELPERS/$1" ]; then
		cp "$UCLAMP_VM_HELPERS/$1" "$2"
	else
		sh "$VM_DIR/build-helper.sh" "$1" "$2"
	fi
}
key() { /usr/bin/python3 "$VM_DIR/keyread.py" "${1:-sched_uclamp_used}"; }
_fail() {
	FAILS=$((FAILS + 1))
	echo "  FAIL: $*"
}
_ok() { echo "  ok: $*"; }
expect_key() {
	local want=$1 got
	shift
	CHECKS=$((CHECKS + 1))
	got=$(key)
	if [ "$got" = "$want" ]; then _ok "key = $got ${*:-}"; else _fail "key = $got, expected $want ${*:-}"; fi
}
run() {
	echo "  \$ $*"
	OUT=$("$@" 2>&1)
	RC=$?
	[ -n "$OUT" ] && printf '%s\n' "$OUT" | sed 's/^/    | /'
	return 0
}
expect_rc() {
	local want=$1
	shift
	run "$@"
	CHECKS=$((CHECKS + 1))
	if [ "$RC" = "$want" ]; then _ok "exit $RC"; else _fail "exit $RC, expected $want: $*"; fi
}
expect_out() {
	CHECKS=$((CHECKS + 1))
	if printf '%s\n' "$OUT" | grep -Eq -- "$1"; then _ok "output matches /$1/"; else _fail "output does not match /$1/"; fi
}
expect_no_out() {
	CHECKS=$((CHECKS + 1))
	if printf '%s\n' "$OUT" | grep -Eq -- "$1"; then _fail "output matches /$1/ (it should not)"; else _ok "output lacks /$1/"; fi
}
check() {
	local what=$1
	shift
	CHECKS=$((CHECKS + 1))
	if "$@"; then _ok "$what"; else _fail "$what"; fi
}
tclamp() { uclampset -p "$1" | LC_ALL=C sed -E 's/.*min: ([0-9]+) max: ([0-9]+).*/\1 \2/'; }	# C: a name may not be UTF-8
task_eff() { awk -F: '/^effective uclamp\.m/ { gsub(/ /, "", $2); printf "%s ", $2 }' /proc/$1/sched; }
expect_group_eff() {
	local tool
	tool=$("$UCLAMPCTL" cgroup show --pid "$1" -o EFF_MIN,EFF_MAX -r -n | tr '\n' ' ')
	check "$2 ($(task_eff "$1"))" test "$(task_eff "$1")" = "$tool"
}
consented_conf() { { printf '[fast-path]\nallow-enable = yes\n'; cat; } >"$1"; }
# tasks_conf FILE "NAME COMM KEY=VALUE"...: a consented configuration of
# [tasks] rules, each matching one program name and setting one key
tasks_conf() {
	local f=$1 r name comm set
	shift
	for r in "$@"; do
		read -r name comm set <<<"$r"
		printf '\n[tasks %s]\ncomm = %s\n%s\n' "$name" "$comm" "${set/=/ = }"
	done | consented_conf "$f"
}
expect_cg_layout() {
	expect_key 0 "right after boot"
	expect_rc 0 uclampctl -v cgroup show
	expect_out "$1"
}
watch_prom() { "$UCLAMPCTL" watch status --format=prometheus --socket "$1"; }
watch_metric() { watch_prom "$1" | awk -v m="uclampctl_watch_$2" 'index($0, m " ") == 1 { print $2 }'; }
skip_scenario() {
	if [ "$FAILS" != 0 ]; then done_scenario; fi
	echo "  scenario SKIPPED: $*"
	exit 77
}
expect_newcomer_alone() {
	local pid
	check "the stage was set (prompt, kill, same PID again)" test "$RC" = 0
	expect_out "\[y/N\]"
	pid=$(printf '%s\n' "$OUT" | sed -n 's/^pid \([0-9]*\)$/\1/p')
	check "the newcomer has the PID the plan named ($pid)" test -n "$pid"
	expect_out "^newcomer $pid min 0 max 1024$"
}
done_scenario() {
	if [ "$FAILS" = 0 ] && [ "$CHECKS" -gt 0 ]; then
		echo "  scenario ok ($CHECKS checks)"
		exit 0
	fi
	[ "$CHECKS" = 0 ] && echo "  scenario made no checks"
	echo "  scenario FAILED ($FAILS of $CHECKS checks)"
	exit 1
}
