# Cgroups that systemd owns (uclamp.init=systemd: Debian's systemd as PID 1).
# Where cpu is off above a unit's group, 'cgroup set UNIT' asks systemd for it
# over sd-bus (a runtime CPUWeight equal to the unit's, 100 when unset) and
# never writes cgroup.subtree_control itself (strace); enabling cpu does not
# flip the key, the clamp write does. Then what persists: the clamp stays
# through 'systemctl daemon-reload'; a restart of the unit makes a new group
# (the clamp is gone, cpu stays on: systemd keeps the runtime property until
# reboot) and 'uclampctl apply' puts it back, unit names in the config too.
# vm-append: uclamp.init=systemd
# vm-timeout: 900
. "$(dirname "$0")/../lib.sh"
check "systemd is PID 1" test "$(cat /proc/1/comm)" = systemd
expect_key 0 "right after boot"
CG=/sys/fs/cgroup
U=/run/systemd/system
B=/run/uclamp-test
mkdir -p "$B"
has_cpu() { grep -qw cpu "$CG/$1/cgroup.subtree_control"; }

# test units: uctest.service (system.slice) from a unit file, so that it can
# restart; uckey.service in a slice of its own, transient
printf '[Service]\nExecStart=/bin/sleep 1000\n' >"$U/uctest.service"
expect_rc 0 systemctl daemon-reload
expect_rc 0 systemctl start uctest.service
expect_rc 0 systemd-run --quiet --unit=uckey.service --slice=uckey.slice /bin/sleep 1000
run systemctl show -p ControlGroup --value uctest.service
check "uctest.service's cgroup is system.slice/uctest.service" test "$OUT" = /system.slice/uctest.service
check "cpu is off above it (no cpu.uclamp.max)" test ! -e "$CG/system.slice/uctest.service/cpu.uclamp.max"
check "and above uckey.service" test ! -e "$CG/uckey.slice/uckey.service/cpu.uclamp.max"
run cat "$CG/cgroup.subtree_control" "$CG/system.slice/cgroup.subtree_control"

# enabling cpu alone (the clamp already at the wanted value): no key flip
expect_rc 0 uclampctl cgroup set uckey.service --max max --dry-run
expect_out 'ask systemd: enable cpu for uckey\.service +CPUWeight \(runtime\) +unset +100'
expect_no_out 'subtree_control'
expect_rc 0 uclampctl cgroup set uckey.service --max max
expect_out '^changed 1, unchanged 1'
check "systemd enabled cpu above uckey.service" has_cpu uckey.slice
check "its cpu.uclamp.max reads max" test "$(cat "$CG/uckey.slice/uckey.service/cpu.uclamp.max")" = max
expect_key 0 "after systemd enabled cpu (no clamp written)"
run systemctl show -p CPUWeight --value uckey.service
check "uckey.service's CPUWeight is the default it had (100)" test "$OUT" = 100

# the plan and the dry run say so
expect_rc 0 uclampctl cgroup set uctest.service --max 40% --dry-run
expect_out 'ask systemd: enable cpu for uctest\.service'
expect_out 'system\.slice/uctest\.service +cpu\.uclamp\.max +max +40\.00 +enables'
expect_no_out 'subtree_control'
check "dry run: cpu still off in system.slice" test ! -e "$CG/system.slice/uctest.service/cpu.uclamp.max"
expect_key 0 "after the dry run"

# the set itself, traced: no write to any cgroup.subtree_control
T=$B/trace
expect_rc 0 strace -f -qq -e trace=openat -o "$T" "$UCLAMPCTL" cgroup set uctest.service --max 40% --yes
expect_out 'warning: the fast path \(sched_uclamp_used\) turns on until reboot'
check "systemd enabled cpu in system.slice" has_cpu system.slice
check "uclampctl opened no cgroup.subtree_control for writing" \
	sh -c "! grep 'cgroup.subtree_control' '$T' | grep -q 'O_WRONLY\|O_RDWR'"
check "it wrote cpu.uclamp.max (the trace can show a write)" \
	sh -c "grep 'uctest.service/cpu.uclamp.max' '$T' | grep -q O_WRONLY"
check "cpu.uclamp.max reads 40.00" test "$(cat "$CG/system.slice/uctest.service/cpu.uclamp.max")" = 40.00
expect_key 1 "after the clamp write"
run systemctl show -p CPUWeight --value uctest.service
check "uctest.service's runtime CPUWeight is 100" test "$OUT" = 100
check "kept as a runtime drop-in (until reboot)" \
	sh -c 'grep -rqs "CPUWeight=100" /run/systemd/system.control/uctest.service.d/'

# unit names where a cgroup is expected
expect_rc 0 uclampctl cgroup show uctest.service
expect_out 'system\.slice/uctest\.service +0\.00 +40\.00'
expect_rc 0 uclampctl cgroup show system.slice
# a group or unit that is not there is a missing target: exit 1 (as a PID for task)
expect_rc 1 uclampctl cgroup show nosuch.service
expect_out "no unit of that name loaded"
expect_rc 1 uclampctl cgroup set 'bad/../x.service' --max 50% --yes
expect_rc 1 uclampctl cgroup set "$(printf 'x\033[2J.service')" --max 50% --yes

# daemon-reload: systemd realizes the groups again, the clamp stays
expect_rc 0 systemctl daemon-reload
sleep 1
check "after daemon-reload: cpu.uclamp.max still 40.00" \
	test "$(cat "$CG/system.slice/uctest.service/cpu.uclamp.max")" = 40.00
check "after daemon-reload: cpu still on in system.slice" has_cpu system.slice

# a restart makes a new group: the clamp is gone, cpu (the runtime property) stays
P1=$(systemctl show -p MainPID --value uctest.service)
expect_rc 0 systemctl restart uctest.service
P2=$(systemctl show -p MainPID --value uctest.service)
check "restarted (PID $P1 -> $P2)" test "$P2" != "$P1" -a "$P2" != 0
check "after restart: cpu still on in system.slice" has_cpu system.slice
check "after restart: the new group's cpu.uclamp.max is the default max" \
	test "$(cat "$CG/system.slice/uctest.service/cpu.uclamp.max")" = max

# apply puts it back (a unit name in the config); a unit in a slice without
# cpu gets it through systemd there too
expect_rc 0 systemd-run --quiet --unit=ucapply.service --slice=ucapply.slice /bin/sleep 1000
consented_conf "$B/c.conf" <<CONF

[cgroup uctest.service]
max = 40%

[cgroup ucapply.service]
max = 30%
CONF
expect_rc 0 uclampctl apply -c "$B/c.conf" --dry-run
expect_out 'ask systemd: enable cpu for ucapply\.service'
expect_no_out 'enable cpu for uctest\.service'
expect_no_out 'subtree_control'
expect_rc 0 uclampctl apply -c "$B/c.conf"
check "apply: uctest.service's cpu.uclamp.max is 40.00 again" \
	test "$(cat "$CG/system.slice/uctest.service/cpu.uclamp.max")" = 40.00
check "apply: ucapply.service's cpu.uclamp.max is 30.00" \
	test "$(cat "$CG/ucapply.slice/ucapply.service/cpu.uclamp.max")" = 30.00
check "systemd enabled cpu in ucapply.slice" has_cpu ucapply.slice
expect_key 1 "at the end"
systemctl stop uctest.service uckey.service ucapply.service
done_scenario
