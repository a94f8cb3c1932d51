#!/bin/bash
# The installed binary has no environment switch: $UCLAMPCTL_SYSROOT is
# compiled out of 'uclampctl' (only tests/uclampctl-test has it), so a fake
# tree can neither feed it values nor make it write elsewhere.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/cli/lib.sh"

: "${UCLAMPCTL_REAL:?set UCLAMPCTL_REAL to the installed-to-be uclampctl}"
R=$UCLAMPCTL_REAL
fake_root
K=$ROOT/proc/sys/kernel
# values no real kernel shows by default: the real ones are 1024 or absent
fake_sysctls 333 777 444
fake_release 9.9.9-fake
fake_key 1

# the test binary reads the fake tree: the check below can fail
t "test binary: reads the fake tree" 0 "$UCLAMPCTL" system show -o VALUE -n -r
has '^333$'

# the real binary with the same environment: the real /proc or no uclamp
run_real() { "$R" "$@"; }
t_any() {
	local what=$1
	shift
	OUT=$("$@" </dev/null 2>&1)
	RC=$?
	case $RC in
	0 | 1 | 3 | 4) _pass "$what (exit $RC)" ;;
	*) _fail "$what: exit $RC" ;;
	esac
}
t_any "real binary: system show" run_real system show -o VALUE -n -r
hasnt '^(333|777|444)$'
real_min=$(cat /proc/sys/kernel/sched_util_clamp_min 2>/dev/null || true)
if [ -n "$real_min" ]; then
	has "^$real_min\$"
else
	has 'kernel has no uclamp'
fi
t_any "real binary: status" run_real status
hasnt '9\.9\.9-fake|\b(333|777|444)\b'
t_any "real binary: check" run_real check
hasnt 'fake'
# a write through the seam would land in the fake tree; --dry-run keeps the
# real host untouched if the seam is (wrongly) absent from the build
t_any "real binary: system set --dry-run" run_real system set --min 100 --dry-run
hasnt '333'
same "$K/sched_util_clamp_min" 333

# the variables' names are not even in the binary (compiled out, not ignored):
# the fake root, the watch daemon's shrunk receive buffer, the fake cgroup tree
for v in UCLAMPCTL_SYSROOT UCLAMPCTL_TEST_RCVBUF UCLAMPCTL_TEST_CGROUP2 UCLAMPCTL_TEST_SYSTEMD; do
	if grep -q "$v" "$R"; then
		_fail "uclampctl contains the string $v"
	else
		_pass "uclampctl does not contain $v"
	fi
	if grep -q "$v" "$UCLAMPCTL"; then
		_pass "the test binary contains $v (the check above can fail)"
	else
		_fail "the test binary lacks $v"
	fi
done
finish
