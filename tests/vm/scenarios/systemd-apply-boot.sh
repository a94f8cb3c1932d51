# uclampctl-apply.service at boot, under Debian's systemd as PID 1: it runs
# before the services it clamps. The units go in place before systemd starts
# (uclamp.bootphase=1: this file runs first with UCLAMP_VM_PHASE=boot):
# uclampctl-apply.service as installed (systemd/uclampctl-apply.service.in,
# WantedBy=sysinit.target; a drop-in points it at the test configuration,
# [cgroup system.slice] max = 40%) and uctest-boot.service, an ordinary
# service (default dependencies: After=sysinit.target basic.target) pulled
# into the boot transaction, which records system.slice's cpu.uclamp.max as
# its first action. cpu is off in the root at that point: apply asks systemd
# (its private bus, before dbus runs). This VM boots into its test unit
# (uclamp-vm-test.service, guest-init.sh), not multi-user.target, and a
# service's default dependencies do not pull basic.target in: the test unit
# wants uctest-boot.service (a drop-in), as multi-user.target wants services.
# vm-append: uclamp.init=systemd uclamp.bootphase=1
# vm-timeout: 900
B=/run/uclamp-test
U=/run/systemd/system
if [ "${UCLAMP_VM_PHASE-}" = boot ]; then
	SRC=$(cd "$(dirname "$0")/../../.." && pwd)
	mkdir -p "$B" "$U/sysinit.target.wants" "$U/uclamp-vm-test.service.d" \
		"$U/uclampctl-apply.service.d" || exit 1
	install -m 755 "$UCLAMPCTL" "$B/uclampctl" || exit 1
	/usr/bin/python3 "$SRC/tests/vm/keyread.py" sched_uclamp_used >"$B/key-before" 2>&1
	sed -e "s|@bindir@|$B|g" -e 's|@sysconfdir@|/etc|g' \
		"$SRC/systemd/uclampctl-apply.service.in" >"$U/uclampctl-apply.service" || exit 1
	ln -s ../uclampctl-apply.service "$U/sysinit.target.wants/"
	printf '[fast-path]\nallow-enable = yes\n\n[cgroup system.slice]\nmax = 40%%\n' >"$B/boot.conf"
	printf '[Unit]\nConditionPathExists=\nConditionDirectoryNotEmpty=\n[Service]\nExecStart=\nExecStart=%s apply -c %s\n' \
		"$B/uclampctl" "$B/boot.conf" >"$U/uclampctl-apply.service.d/test.conf"
	cat >"$U/uctest-boot.service" <<'UNIT'
[Unit]
Description=a service started at boot, recording its clamp first
[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/sh -c 'cat /sys/fs/cgroup/system.slice/cpu.uclamp.max >/run/uclamp-test/seen 2>&1; cat /proc/self/cgroup >>/run/uclamp-test/seen'
UNIT
	printf '[Unit]\nWants=uctest-boot.service\n' >"$U/uclamp-vm-test.service.d/boot.conf"
	exit 0
fi
. "$(dirname "$0")/../lib.sh"
check "systemd is PID 1" test "$(cat /proc/1/comm)" = systemd
check "the boot phase ran" test -f "$B/key-before"
check "key = 0 before systemd started (read in the boot phase: $(cat "$B/key-before" 2>/dev/null))" \
	test "$(cat "$B/key-before" 2>/dev/null)" = 0
for _ in $(seq 120); do
	systemctl -q is-active uctest-boot.service && break
	sleep 0.5
done
expect_rc 0 systemctl show -p Result -p ActiveState uclampctl-apply.service
expect_out '^Result=success$'
expect_out '^ActiveState=active$'
[ "$RC" = 0 ] && grep -q success <<<"$OUT" || run journalctl -b -u uclampctl-apply.service --no-pager
run journalctl -b -u uclampctl-apply.service --no-pager -o cat
check "system.slice's cpu.uclamp.max is 40.00" test "$(cat /sys/fs/cgroup/system.slice/cpu.uclamp.max)" = 40.00
run cat "$B/seen"
check "uctest-boot.service found it already clamped when it started" \
	test "$(head -n 1 "$B/seen")" = 40.00
expect_out '^0::/system\.slice/uctest-boot\.service$'
A=$(systemctl show -p ExecMainExitTimestampMonotonic --value uclampctl-apply.service)
S=$(systemctl show -p ExecMainStartTimestampMonotonic --value uctest-boot.service)
check "apply finished ($A us) before uctest-boot started ($S us)" test "${A:-0}" -gt 0 -a "${A:-0}" -le "${S:-0}"
run systemctl show -p After --value uctest-boot.service
expect_out 'sysinit\.target'
# cpu was off in the root: apply asked systemd (a runtime CPUWeight) at boot
run systemctl show -p CPUWeight --value system.slice
check "system.slice got its runtime CPUWeight=100 from apply's ask" test "$OUT" = 100
check "cpu is on in the root's subtree_control" grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control
# recorded from inside the unit's sandbox (its system calls, ReadWritePaths=)
expect_rc 0 uclampctl history
expect_out " uclampctl apply -c $B/boot\.conf$"
expect_key 1 "after apply at boot (consented: allow-enable = yes)"
done_scenario
