# A write that fails in the middle of an apply: the changes already made are
# undone, the later ones are never made, the report names the failure.
#
# The failure is injected reliably with file permissions: cgroup 'locked'
# exists and reads fine, but its cpu.uclamp.max is mode 0444 and uclampctl
# runs without CAP_DAC_OVERRIDE (setpriv), so that one write gets EACCES from
# the kernel. Everything else it writes is root's own 0644 files. The plan
# order is system, cgroups (file order), tasks: sysctls and cgroup 'first'
# are written and must be rolled back; the task is never touched.
# (Removing a cgroup between planning and writing would be the natural
# "disappearing path", but there is no reliable moment to do it from outside.)
. "$(dirname "$0")/../lib.sh"
CG=/sys/fs/cgroup
T=$(mktemp -d)
sys3() { cat /proc/sys/kernel/sched_util_clamp_{min,max,min_rt_default} | tr '\n' ' '; }
nodac() { setpriv --inh-caps=-dac_override --bounding-set=-dac_override -- "$UCLAMPCTL" "$@"; }
expect_key 0 "right after boot"

mkdir $CG/first $CG/locked
chmod 0444 $CG/locked/cpu.uclamp.max
cp /bin/sleep "$T/uc-late"
"$T/uc-late" 600 & P=$!
sleep 0.3
cat >"$T/uclampctl.conf" <<CONF
[fast-path]
allow-enable = yes
[system]
min = 50%
max = 90%
[cgroup first]
min = 10%
max = 70%
[cgroup locked]
max = 60%
[tasks late]
comm = uc-late
max = 200
CONF

expect_rc 1 uclampctl -q apply --config "$T/uclampctl.conf" --check
expect_rc 1 nodac apply --config "$T/uclampctl.conf"
expect_out 'locked: cpu\.uclamp\.max: permission denied'
expect_out 'failed: 4 change\(s\) undone.*stays on until reboot'
check "sysctls rolled back" test "$(sys3)" = "1024 1024 1024 "
check "cgroup 'first' rolled back" test "$(cat $CG/first/cpu.uclamp.{min,max} | tr '\n' ' ')" = "0.00 max "
check "cgroup 'locked' untouched" test "$(cat $CG/locked/cpu.uclamp.max)" = "max"
check "the task after the failure never touched" test "$(tclamp $P)" = "0 1024"
expect_key 1 "the writes before the failure flipped it (a rollback cannot undo that)"

# the same as data
expect_rc 1 nodac apply --config "$T/uclampctl.conf" -J
expect_out '"changed": false'
expect_out '"failed": \[\s*$'
expect_out '"target": "locked", "kind": "cgroup", "attribute": "cpu.uclamp.max", "from": "max", "to": "60.00", "enables_fast_path": true, "state": "failed", "error": "permission denied'
expect_out '"target": "first", "kind": "cgroup", "attribute": "cpu.uclamp.min", "from": "0.00", "to": "10.00"'
expect_out '"target": "kernel.sched_util_clamp_max".*"from": "1024", "to": "922"'
run sh -c "$UCLAMPCTL apply --config $T/uclampctl.conf --check -J || true"
check "still the same 6 differences" test "$(printf '%s\n' "$OUT" | grep -c '"enables_fast_path": true}')" = 6
check "sysctls still at the old values" test "$(sys3)" = "1024 1024 1024 "

# with the lock gone, the same file applies whole
chmod 0644 $CG/locked/cpu.uclamp.max
expect_rc 0 nodac apply --config "$T/uclampctl.conf"
expect_out 'changed 6, unchanged 0, gone 0, failed 0'
check "all set" test "$(sys3)$(cat $CG/first/cpu.uclamp.max $CG/locked/cpu.uclamp.max | tr '\n' ' ')$(tclamp $P)" = "512 922 1024 70.00 60.00 0 200"
kill $P 2>/dev/null
done_scenario
