#!/bin/bash
# Cgroups that systemd owns, against a fake root: a cgroup v2 tree
# ($UCLAMPCTL_TEST_CGROUP2), /run/systemd/system (systemd is PID 1) and a
# stand-in for its bus ($UCLAMPCTL_TEST_SYSTEMD, tests/fake_systemd.c: it
# logs each SetUnitProperties and plays systemd on the tree). 'cgroup set'
# and 'apply' ask systemd where it owns the parents, write subtree_control
# only where it does not (--enable-cpu), accept unit names, and explain
# what cannot be done in one line, changing nothing. The real systemd:
# tests/vm/scenarios/systemd-cgroup.sh.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/cli/lib.sh"

U=$UCLAMPCTL
fake_root 1024 1024 1024
fake_key 0
CGR=$ROOT/sys/fs/cgroup
UNITS=$ROOT/units
export UCLAMPCTL_TEST_CGROUP2=$CGR UCLAMPCTL_TEST_SYSTEMD=$UNITS

tree() {	# a stock systemd host: cpu nowhere
	rm -rf "$CGR" "$UNITS.calls"
	mkdir -p "$CGR/system.slice/nginx.service" "$CGR/system.slice/plain/x" \
		"$CGR/system.slice/weighty.service" \
		"$CGR/user.slice" "$ROOT/run/systemd/system"
	echo "cpu io memory pids" >"$CGR/cgroup.controllers"
	for g in "" system.slice system.slice/plain; do : >"$CGR/$g/cgroup.subtree_control"; done
	cat >"$UNITS" <<UNITS
nginx.service /system.slice/nginx.service -
weighty.service /system.slice/weighty.service 250
idle.service - -
evil.service /../../etc -
system.slice /system.slice -
UNITS
}
subtree() { cat "$CGR/$1/cgroup.subtree_control"; }

# ---- the plan and the dry run say so ------------------------------------------------
tree
t "dry run: systemd is asked" 0 $U cgroup set system.slice/nginx.service --max 40% --dry-run
has '^ask systemd: enable cpu for nginx\.service +CPUWeight \(runtime\) +unset +100 +-$'
has '^system\.slice/nginx\.service +cpu\.uclamp\.max +max +40\.00 +enables$'
hasnt 'subtree_control'
t "dry run: no call" 0 test ! -e "$UNITS.calls"
same "$CGR/cgroup.subtree_control" ""
t "a unit name, --enable-cpu given: still systemd's, still asked" 0 \
	$U cgroup set nginx.service --max 40% --enable-cpu --dry-run
has 'ask systemd: enable cpu for nginx\.service'
hasnt 'subtree_control'
t "a weight set is kept" 0 $U cgroup set weighty.service --max 40% --dry-run
has 'ask systemd: enable cpu for weighty\.service +CPUWeight \(runtime\) +250 +250'

# ---- the run: one SetUnitProperties, then the clamp; the warning before it -------------
t "set: asks, then writes the clamp" 0 $U cgroup set nginx.service --max 40% --yes
has 'warning: the fast path \(sched_uclamp_used\) turns on until reboot'
same "$UNITS.calls" "SetUnitProperties nginx.service runtime CPUWeight=100"
same "$CGR/system.slice/nginx.service/cpu.uclamp.max" "40.00"
t "again: nothing to change, no second ask" 0 $U cgroup set nginx.service --max 40% --yes
same "$UNITS.calls" "SetUnitProperties nginx.service runtime CPUWeight=100"
t "cgroup show by unit name" 0 $U cgroup show nginx.service -o PATH,MAX
has 'system\.slice/nginx\.service +40\.00'
t "cgroup show system.slice (a group of that name wins)" 0 $U cgroup show system.slice -o PATH

# ---- enabling cpu alone never needs consent (no clamp write) -----------------------------
tree
t "--max max: only the ask, nobody asked" 0 $U cgroup set nginx.service --max max
has 'changed 1'
same "$UNITS.calls" "SetUnitProperties nginx.service runtime CPUWeight=100"
same "$CGR/system.slice/nginx.service/cpu.uclamp.max" "max"
tree
t "refused without consent: nothing changed, systemd not asked either" 3 \
	$U cgroup set nginx.service --max 40%
t "no call" 0 test ! -e "$UNITS.calls"

# ---- apply: the same plan --------------------------------------------------------------
tree
printf '[fast-path]\nallow-enable = yes\n\n[cgroup nginx.service]\nmax = 30%%\n' >"$ROOT/c.conf"
t "apply --dry-run: asks systemd" 0 $U apply -c "$ROOT/c.conf" --dry-run
has 'ask systemd: enable cpu for nginx\.service'
hasnt 'subtree_control'
OUT=$($U apply -c "$ROOT/c.conf" --dry-run -J 2>/dev/null)
is "apply -J: the change's kind" "j['changes'][0]['kind']" systemd
is "apply -J: its target" "j['changes'][0]['target']" "ask systemd: enable cpu for nginx.service"
t "apply" 0 $U apply -c "$ROOT/c.conf"
same "$CGR/system.slice/nginx.service/cpu.uclamp.max" "30.00"
same "$UNITS.calls" "SetUnitProperties nginx.service runtime CPUWeight=100"

# ---- cannot ask: one line naming the fix, exit 1, nothing changed --------------------------
tree
bad() {	# t, then that nothing changed; $OUT stays t's
	local out
	t "$1" "$2" "${@:3}"
	out=$OUT
	t "  nothing changed" 0 test ! -e "$UNITS.calls" -a \
		! -e "$CGR/system.slice/nginx.service/cpu.uclamp.max" -a -z "$(subtree "")"
	OUT=$out
}
UCLAMPCTL_TEST_SYSTEMD=$ROOT/no-bus bad "systemd unreachable" 1 \
	$U cgroup set system.slice/nginx.service --max 40% --yes
has "^uclampctl: 'system\.slice/nginx\.service' has no cpu\.uclamp files and systemd owns its parents' cgroup\.subtree_control, but cannot be asked \(no bus\): run 'systemctl set-property --runtime nginx\.service CPUWeight=100' \(or give it Delegate=yes\)$"
printf '[fast-path]\nallow-enable = yes\n\n[cgroup system.slice/nginx.service]\nmax = 30%%\n' >"$ROOT/p.conf"
# apply: the group is skipped, named with the fix, and the rest applies (exit 5)
UCLAMPCTL_TEST_SYSTEMD=$ROOT/no-bus bad "apply: systemd unreachable: skipped" 5 $U apply -c "$ROOT/p.conf"
has "p\.conf:4: skipped \[cgroup system\.slice/nginx\.service\]: it has no cpu\.uclamp files, and systemd, which owns its parents, cannot be asked to enable cpu for nginx\.service \(no bus\): run 'systemctl set-property --runtime nginx\.service CPUWeight=100'$"
UCLAMPCTL_TEST_SYSTEMD=$ROOT/no-bus bad "apply: a unit name, systemd unreachable: skipped" 5 $U apply -c "$ROOT/c.conf"
has "c\.conf:4: skipped \[cgroup nginx\.service\]: no cgroup 'nginx\.service' under .*, and no systemd to resolve it as a unit name$"
bad "not a unit's group below systemd's" 1 $U cgroup set system.slice/plain/x --max 40% --yes --enable-cpu
has "'plain' above it is not a unit's cgroup.*Delegate=yes"

# ---- a bus that does not answer: a timeout, not a hang --------------------------------------
# the real sd-bus (no stand-in) against a socket that accepts and never
# answers: sd-bus alone would wait 90 s for the authentication; uclampctl
# gives up after 5 s. As root a host's systemd answers on its private socket
# first, so this needs a host without one.
if [ "$(id -u)" = 0 ] && [ -S /run/systemd/private ]; then
	echo "# skip: root on a systemd host: the bus asked is the host's"
else
	tree
	python3 -c 'import os, socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(4)
print("ready", flush=True)
c = [s.accept()[0] for _ in range(2)]
time.sleep(60)' "$ROOT/bus" >"$ROOT/bus.out" 2>&1 &
	HANG=$!
	for _ in $(seq 50); do [ -S "$ROOT/bus" ] && break; sleep 0.1; done
	start=$(date +%s)
	OUT=$(env -u UCLAMPCTL_TEST_SYSTEMD DBUS_SYSTEM_BUS_ADDRESS="unix:path=$ROOT/bus" \
		$U cgroup show nginx.service 2>&1)
	RC=$?
	took=$(($(date +%s) - start))
	kill $HANG 2>/dev/null
	wait $HANG 2>/dev/null
	if printf '%s\n' "$OUT" | grep -q 'needs libsystemd'; then
		echo "# skip: no libsystemd"
	else
		[ $RC = 1 ] && _pass "a bus that does not answer: exit 1" || _fail "exit $RC"
		has "cannot resolve unit or cgroup 'nginx\.service': systemd's bus did not answer \(5 s\)"
		[ "$took" -le 15 ] && _pass "it gives up after $took s" || _fail "it took $took s"
	fi
fi

# ---- no systemd (not PID 1): the tree is nobody's, --enable-cpu writes it --------------------
tree
rm -rf "$ROOT/run/systemd"
t "no systemd: cpu off is an error without --enable-cpu" 1 \
	$U cgroup set system.slice/nginx.service --max 40% --yes
has 'add --enable-cpu'
t "no systemd: --enable-cpu plans the subtree writes" 0 \
	$U cgroup set system.slice/nginx.service --max 40% --enable-cpu --dry-run
has '^/ +cgroup\.subtree_control +no +yes'
has '^system\.slice +cgroup\.subtree_control +no +yes'
hasnt 'ask systemd'
# a parent with processes of its own would become "domain threaded": refused, nothing written
echo 4242 >"$CGR/system.slice/cgroup.procs"
t "--enable-cpu under a parent with its own processes: refused" 1 \
	$U cgroup set system.slice/nginx.service --max 40% --enable-cpu --yes
has "^uclampctl: refused: 'system\.slice' has processes of its own \(PID 4242 \.\.\.\): enabling cpu in its cgroup\.subtree_control would make it \"domain threaded\""
same "$CGR/cgroup.subtree_control" ""
same "$CGR/system.slice/cgroup.subtree_control" ""
t "  the dry run says so too" 1 $U cgroup set system.slice/nginx.service --max 40% --enable-cpu --dry-run
has 'domain threaded'
: >"$CGR/system.slice/cgroup.procs"
t "--enable-cpu, the parent's processes gone: planned" 0 \
	$U cgroup set system.slice/nginx.service --max 40% --enable-cpu --dry-run
has '^system\.slice +cgroup\.subtree_control +no +yes'
t "no systemd: unit names are not resolved (a missing target: exit 1)" 1 $U cgroup show nginx.service
has "no systemd \(not PID 1\) to resolve it as a unit name"

# ---- unit names: hostile and unknown ones ------------------------------------------------
tree
t "unknown unit (a missing target: exit 1)" 1 $U cgroup show nosuch.service
has "^uclampctl: no cgroup 'nosuch\.service' under .*/sys/fs/cgroup and no unit of that name loaded \(systemctl list-units 'nosuch\.service'\)$"
t "unit not running (a missing target: exit 1)" 1 $U cgroup set idle.service --max 40% --yes
has "unit 'idle\.service' has no cgroup: it is not running \(systemctl start idle\.service\)"
t "systemd's path leads outside" 2 $U cgroup show evil.service
has "refusing unit 'evil\.service': systemd names a cgroup for it outside the cpu hierarchy"
t "not a unit name: a path" 1 $U cgroup set "$(printf 'x\033[2J.service')" --max 40% --yes
has "no cgroup 'x.*\.service' under .*/sys/fs/cgroup$"
t "a template is no unit" 1 $U cgroup show getty@.service
hasnt 'unit of that name'
t "no prefix before '@' is no unit (systemd refuses it)" 1 $U cgroup set @x.service --max 40% --yes
has "no cgroup '@x\.service' under .*/sys/fs/cgroup$"
t "  nothing asked" 0 test ! -e "$UNITS.calls"
t "  nothing written" 0 test -z "$(find "$CGR" -name cpu.uclamp.max -newer "$UNITS" 2>/dev/null)"

# ---- delegated (Delegate=yes): below it, the payload's -----------------------------------------
tree
mkdir -p "$CGR/system.slice/d.service/w"
: >"$CGR/system.slice/d.service/cgroup.subtree_control"
echo "d.service /system.slice/d.service -" >>"$UNITS"
if python3 -c 'import os,sys; os.setxattr(sys.argv[1], "user.delegate", b"1")' "$CGR/system.slice/d.service" 2>/dev/null; then
	# not through t: the bad-input table must not depend on this host's xattrs
	OUT=$($U cgroup set system.slice/d.service/w --max 40% --yes 2>&1)
	RC=$?
	if [ "$RC" = 1 ]; then _pass "delegated: without --enable-cpu (exit 1)"; else _fail "delegated: exit $RC, expected 1"; fi
	has 'add --enable-cpu'
	t "delegated: systemd above, the payload's subtree below" 0 \
		$U cgroup set system.slice/d.service/w --max 40% --enable-cpu --dry-run
	has 'ask systemd: enable cpu for d\.service'
	has '^system\.slice/d\.service +cgroup\.subtree_control +no +yes'
	hasnt '^system\.slice +cgroup\.subtree_control'
else
	skip_part "no user xattrs here (the unit test test_systemd says so too)"
fi
finish
