#!/bin/bash
# etc/uclampctl.conf, installed as /etc/uclampctl.conf: as shipped it changes
# nothing (all comments), and its commented examples are a valid configuration.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/cli/lib.sh"

CONF=$TESTS_SRCDIR/../etc/uclampctl.conf
U=$UCLAMPCTL
fake_root
fake_sysctls 1024 1024 1024
fake_release 6.1.0-test

t "the shipped file matches any host" 0 $U apply --check --config "$CONF"
has '\(0 value\(s\) checked\)'
t "applying it writes nothing" 0 $U apply --yes --config "$CONF"
same "$ROOT/proc/sys/kernel/sched_util_clamp_max" 1024

# uncommented, minus the sections that need a real cgroup or user: valid, and
# it would change the system clamps
sed -n 's/^#\([][a-z]\)/\1/p' "$CONF" | awk '/^\[cgroup /,/^$/ { next } /^\[tasks /,0 { next } { print }' >"$ROOT/ex.conf"
grep -q '^\[system\]$' "$ROOT/ex.conf" && _pass "examples have a [system] section" || _fail "no [system] example"
t "the examples are valid" 1 $U apply --check --config "$ROOT/ex.conf"
has 'sched_util_clamp_max'
sed -n 's/^#\([][a-z]\)/\1/p' "$CONF" | sed 's/^user = .*/user = root/' >"$ROOT/all.conf"
# (the host decides whether system.slice exists: anything but exit 2)
OUT=$($U apply --dry-run --config "$ROOT/all.conf" 2>&1)
[ $? != 2 ] && _pass "all examples parse" || _fail "all examples parse"
hasnt 'error\(s\) in the configuration'
finish
