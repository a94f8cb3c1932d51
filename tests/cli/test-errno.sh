#!/bin/bash
# Errors are not "no uclamp": exit 4 says the kernel lacks uclamp, so a
# script or role may act on it. Running out of file descriptors (EMFILE
# under a small 'ulimit -n'), ENFILE, ENOMEM or EIO is an error of its own:
# exit 1 with the errno named, never 4. Every command that can say 4 runs
# here under 'ulimit -n' 4..8, which makes a different open fail each time
# (the dynamic loader needs one descriptor, so 4 is the least that starts).
# The cgroup hierarchy is found by libcgroup in the host's real mount table
# (a fake root cannot stand in for it): without a cpu hierarchy on this host
# that part is skipped. The cases are not logged as bad inputs: which open
# fails, and so the message, depends on the host.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/cli/lib.sh"

fake_root
fake_release 6.1.0-test
fake_sysctls 1024 1024 1024
mkdir -p "$ROOT/run" "$ROOT/proc/$$"
printf '[cgroup system.slice]\nmax = 90%%\n' >"$ROOT/cg.conf"
printf '[tasks probe]\ncgroup = system.slice\nmax = 90%%\n' >"$ROOT/sel.conf"
printf '[system]\nmax = 90%%\n' >"$ROOT/sys.conf"
chmod 600 "$ROOT"/*.conf
unset UCLAMPCTL_TEST_CGROUP2

# never 4; and a failure the limit caused names the errno
under_ulimit() {	# what CMD...: each 'ulimit -n' in 4..8
	local what=$1 n bad= base
	shift
	"$@" </dev/null >/dev/null 2>&1
	base=$?
	for n in 4 5 6 7 8; do
		OUT=$(ulimit -n "$n" && "$@" </dev/null 2>&1)
		RC=$?
		if [ "$RC" = 4 ]; then
			bad+=" ulimit -n $n: exit 4 ($(printf '%s\n' "$OUT" | grep -m1 uclampctl));"
		elif [ "$RC" != "$base" ] && ! printf '%s\n' "$OUT" |
			grep -Eq 'Too many open files|Input/output error|Cannot allocate memory'; then
			bad+=" ulimit -n $n: exit $RC (not $base) without the errno;"
		fi
	done
	if [ -z "$bad" ]; then _pass "$what: never exit 4 under ulimit -n 4..8"; else OUT=$bad; _fail "$what"; fi
}

under_ulimit "status" "$UCLAMPCTL" status
under_ulimit "status -J" "$UCLAMPCTL" status -J
under_ulimit "system show" "$UCLAMPCTL" system show
under_ulimit "system set --dry-run" "$UCLAMPCTL" system set --max 90% --dry-run
under_ulimit "task show" "$UCLAMPCTL" task show $$
under_ulimit "task set --dry-run" "$UCLAMPCTL" task set --max 300 --dry-run $$
under_ulimit "task reset --dry-run" "$UCLAMPCTL" task reset --dry-run $$
under_ulimit "keys" "$UCLAMPCTL" keys
# check's exits are states: never 4, and never 1 ("on") for an error either
under_ulimit "check" "$UCLAMPCTL" check
for n in 4 5 6; do
	OUT=$(ulimit -n "$n" && "$UCLAMPCTL" check </dev/null 2>&1)
	RC=$?
	[ $RC != 1 ] && [ $RC != 4 ] && _pass "check under ulimit -n $n: exit $RC" ||
		_fail "check under ulimit -n $n: exit $RC"
done
under_ulimit "run --dry-run" "$UCLAMPCTL" run --max 50% --dry-run -- true
under_ulimit "apply --check [system]" "$UCLAMPCTL" apply --check --config "$ROOT/sys.conf"
under_ulimit "watch --oneshot --dry-run" "$UCLAMPCTL" watch --oneshot --dry-run -c "$ROOT/sys.conf"

OUT=$("$UCLAMPCTL" cgroup show 2>&1)
if [ $? = 4 ]; then
	echo "# SKIP: no cpu cgroup hierarchy on this host: libcgroup's errors not tried"
else
	under_ulimit "cgroup show" "$UCLAMPCTL" cgroup show
	under_ulimit "cgroup set --dry-run" "$UCLAMPCTL" cgroup set system.slice --max 90% --dry-run
	under_ulimit "apply --check [cgroup]" "$UCLAMPCTL" apply --check --config "$ROOT/cg.conf"
	under_ulimit "apply --check [tasks] cgroup=" "$UCLAMPCTL" apply --check --config "$ROOT/sel.conf"
	# the message says what happened, not that nothing is mounted
	OUT=$(ulimit -n 4 && "$UCLAMPCTL" apply --check --config "$ROOT/cg.conf" 2>&1)
	hasnt 'no cgroup hierarchy with the cpu controller is mounted'
	has 'cannot find the cgroup hierarchies: '
fi

# a sysctl that cannot be read (EISDIR; not there would be ENOENT) is an error
rm "$ROOT/proc/sys/kernel/sched_util_clamp_max"
mkdir "$ROOT/proc/sys/kernel/sched_util_clamp_max"
OUT=$("$UCLAMPCTL" system show 2>&1)
RC=$?
[ $RC = 1 ] && _pass "an unreadable sysctl: exit 1" || _fail "an unreadable sysctl: exit $RC"
has 'cannot read the system clamps in /proc/sys/kernel: Is a directory'
OUT=$("$UCLAMPCTL" apply --check --config "$ROOT/sys.conf" 2>&1)
RC=$?
[ $RC = 1 ] && _pass "apply --check, an unreadable sysctl: exit 1" || _fail "apply: exit $RC"
has 'cannot read the uclamp sysctls: Is a directory'
finish
