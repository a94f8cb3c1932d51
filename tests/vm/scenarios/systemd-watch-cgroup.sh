# A [cgroup] section for a service that is not running is applied when the
# service starts, under Debian's systemd as PID 1: uclampctl-watch.service as
# installed (systemd/uclampctl-watch.service.in; a drop-in points it at the
# test configuration) is pulled into the boot (enabled: the test unit wants
# it, as multi-user.target would), with [cgroup uctest-svc.service] max = 40%
# while uctest-svc.service is not running. uclampctl-apply.service, enabled
# with the same file, skips the section at boot (exit 5, which the unit counts
# as success) and writes nothing: the key stays off. 'systemctl start' makes the group (in system.slice, where
# systemd has cpu off: watch asks it for a runtime CPUWeight, then writes the
# clamp); a restart makes a new group, clamped again. Cost: one boot, ~60 s.
# vm-append: uclamp.init=systemd uclamp.bootphase=1
# vm-timeout: 900
B=/run/uclamp-test
U=/run/systemd/system
if [ "${UCLAMP_VM_PHASE-}" = boot ]; then
	SRC=$(cd "$(dirname "$0")/../../.." && pwd)
	mkdir -p "$B" "$U/uclamp-vm-test.service.d" "$U/uclampctl-watch.service.d" \
		"$U/uclampctl-apply.service.d" "$U/sysinit.target.wants" || exit 1
	install -m 755 "$UCLAMPCTL" "$B/uclampctl" || exit 1
	/usr/bin/python3 "$SRC/tests/vm/keyread.py" sched_uclamp_used >"$B/key-before" 2>&1
	for u in apply watch; do
		sed -e "s|@bindir@|$B|g" -e 's|@sysconfdir@|/etc|g' \
			"$SRC/systemd/uclampctl-$u.service.in" >"$U/uclampctl-$u.service" || exit 1
	done
	ln -s ../uclampctl-apply.service "$U/sysinit.target.wants/"
	printf '[Unit]\nConditionPathExists=\nConditionDirectoryNotEmpty=\n[Service]\nExecStart=\nExecStart=%s apply -c %s\n' \
		"$B/uclampctl" "$B/w.conf" >"$U/uclampctl-apply.service.d/test.conf"
	printf '[fast-path]\nallow-enable = yes\n\n[cgroup uctest-svc.service]\nmax = 40%%\n' >"$B/w.conf"
	chmod 0644 "$B/w.conf"
	printf '[Unit]\nConditionPathExists=\nConditionDirectoryNotEmpty=\n[Service]\nExecStart=\nExecStart=%s watch -c %s\n' \
		"$B/uclampctl" "$B/w.conf" >"$U/uclampctl-watch.service.d/test.conf"
	printf '[Unit]\nDescription=a service started later\n[Service]\nExecStart=/bin/sleep 600\n' \
		>"$U/uctest-svc.service"
	printf '[Unit]\nWants=uclampctl-watch.service\nAfter=uclampctl-watch.service\n' \
		>"$U/uclamp-vm-test.service.d/watch.conf"
	exit 0
fi
. "$(dirname "$0")/../lib.sh"
G=/sys/fs/cgroup/system.slice/uctest-svc.service
S=/run/uclampctl/watch.sock
check "systemd is PID 1" test "$(cat /proc/1/comm)" = systemd
check "key = 0 before systemd started (read in the boot phase: $(cat "$B/key-before" 2>/dev/null))" \
	test "$(cat "$B/key-before" 2>/dev/null)" = 0
expect_rc 0 systemctl show -p ActiveState -p SubState uclampctl-watch.service
expect_out '^ActiveState=active$'
[ "$RC" = 0 ] && grep -q '=active$' <<<"$OUT" || run journalctl -b -u uclampctl-watch.service --no-pager
expect_rc 0 systemctl show -p Result -p ExecMainStatus -p ActiveState uclampctl-apply.service
expect_out '^Result=success$'
expect_out '^ExecMainStatus=5$'
run journalctl -b -u uclampctl-apply.service --no-pager -o cat
expect_out 'skipped \[cgroup uctest-svc\.service\]: unit .uctest-svc\.service. is not running: its cgroup appears when it starts \(system\.slice/uctest-svc\.service\)$'
check "uctest-svc.service is not running" test "$(systemctl is-active uctest-svc.service)" = inactive
check "its group does not exist" test ! -e "$G"
check "watch counts one [cgroup] section, waiting" test "$(watch_metric $S cgroup_sections_waiting)" = 1
expect_key 0 "with watch running and the service not started (nothing written)"

expect_rc 0 systemctl start uctest-svc.service
for _ in $(seq 100); do [ "$(cat $G/cpu.uclamp.max 2>/dev/null)" = 40.00 ] && break; sleep 0.1; done
check "the service's group is clamped once it started" test "$(cat $G/cpu.uclamp.max 2>/dev/null)" = 40.00
run cat /proc/"$(systemctl show -p MainPID --value uctest-svc.service)"/cgroup
expect_out '^0::/system\.slice/uctest-svc\.service$'
check "its process runs under the clamp" test "$(cat $G/cpu.uclamp.max)" = 40.00
run systemctl show -p CPUWeight --value uctest-svc.service
check "cpu was off in system.slice: watch asked systemd (runtime CPUWeight=100)" test "$OUT" = 100
check "groups_applied counted" test "$(watch_metric $S groups_applied_total)" = 1
check "no section waiting" test "$(watch_metric $S cgroup_sections_waiting)" = 0
expect_key 1 "after the group was clamped (consented)"

# a restart: systemd removes the group and makes a new one, with the defaults
ino1=$(stat -c %i "$G")
expect_rc 0 systemctl restart uctest-svc.service
for _ in $(seq 100); do
	[ "$(stat -c %i "$G" 2>/dev/null)" != "$ino1" ] && [ "$(cat $G/cpu.uclamp.max 2>/dev/null)" = 40.00 ] && break
	sleep 0.1
done
check "a new group after the restart" test "$(stat -c %i "$G")" != "$ino1"
check "the new group is clamped too" test "$(cat $G/cpu.uclamp.max)" = 40.00
check "groups_applied: 2" test "$(watch_metric $S groups_applied_total)" = 2
expect_rc 0 systemctl stop uctest-svc.service
run journalctl -b -u uclampctl-watch.service --no-pager -o cat
expect_out "\[cgroup uctest-svc\.service\] system\.slice/uctest-svc\.service: cpu\.uclamp\.max max -> 40\.00 \(appeared\)"
expect_key 1 "at the end"
done_scenario
