#!/bin/bash
# Packaging: etc/uclampctl.conf (installed as /etc/uclampctl.conf) changes
# nothing as shipped (all comments) and its commented examples are a valid
# configuration; debian/changelog, uclampctl.spec and the Ansible collection
# carry uclampctl's version.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/cli/lib.sh"

U=$UCLAMPCTL
fake_root
# as installed (0644): the checkout's own mode follows the cloner's umask, and
# a group-writable config is rightly refused as untrusted
CONF=$ROOT/uclampctl.conf
install -m 0644 "$TESTS_SRCDIR/../etc/uclampctl.conf" "$CONF"
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

# one version everywhere: the binary's (configure.ac), Debian's, the spec's
t "uclampctl --version" 0 $U --version
ver=$(printf '%s\n' "$OUT" | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -n 1)
deb=$(sed -n '1s/^uclampctl (\([^)-]*\).*/\1/p' "$TESTS_SRCDIR/../debian/changelog")
spec=$(awk '$1 == "Version:" { print $2 }' "$TESTS_SRCDIR/../uclampctl.spec")
[ -n "$ver" ] && [ "$deb" = "$ver" ] && _pass "debian/changelog: $deb" || _fail "debian/changelog has '$deb', uclampctl $ver"
galaxy=$(awk '$1 == "version:" { print $2 }' "$TESTS_SRCDIR/../contrib/ansible/galaxy.yml")
[ -n "$ver" ] && [ "$galaxy" = "$ver" ] && _pass "contrib/ansible/galaxy.yml: $galaxy" || _fail "galaxy.yml has '$galaxy', uclampctl $ver"
[ -n "$ver" ] && [ "$spec" = "$ver" ] && _pass "uclampctl.spec: $spec" || _fail "uclampctl.spec has '$spec', uclampctl $ver"
finish
