# A write that would fail is found before anything is written; a write that
# fails unforeseen is rolled back.
#
# 1. Unwritable cpu.uclamp.max (mode 0444, uclampctl without
#    CAP_DAC_OVERRIDE through setpriv; root ignores 0444 otherwise, and a
#    read-only bind mount of a cgroup file confuses libcgroup's mount table):
#    every file of the plan is checked for writability before consent, so
#    'apply' and 'cgroup set --min --max' are refused up front, nothing is
#    written, and the key stays 0 (the min write would have flipped it).
# 2. A failure no check can foresee: a task of another user, changed by root
#    without CAP_SYS_NICE (EPERM from sched_setattr). Task writes go first in
#    an atomic plan for this reason: the first write fails, nothing else is
#    written, the key stays 0. (An undo on the real kernel: sig-apply.)
. "$(dirname "$0")/../lib.sh"
CG=/sys/fs/cgroup
T=$(mktemp -d)
sys3() { cat /proc/sys/kernel/sched_util_clamp_{min,max,min_rt_default} | tr '\n' ' '; }
nodac() { setpriv --inh-caps=-dac_override --bounding-set=-dac_override -- "$UCLAMPCTL" "$@"; }
nonice() { setpriv --inh-caps=-sys_nice --bounding-set=-sys_nice -- "$UCLAMPCTL" "$@"; }
expect_key 0 "right after boot"

mkdir $CG/first $CG/locked
chmod 0444 $CG/locked/cpu.uclamp.max
cp /bin/sleep "$T/uc-late"
setpriv --reuid=65534 --regid=65534 --clear-groups "$T/uc-late" 600 & P=$!
sleep 0.3
consented_conf "$T/uclampctl.conf" <<CONF
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

# ---- 1. known to fail: refused before anything is written
expect_rc 1 uclampctl -q apply --config "$T/uclampctl.conf" --check
expect_rc 1 nodac apply --config "$T/uclampctl.conf"
expect_out 'locked: cpu\.uclamp\.max: permission denied'
expect_out 'refused: 1 target\(s\) cannot be written .*nothing changed'
expect_no_out 'undone'
check "sysctls untouched" test "$(sys3)" = "1024 1024 1024 "
check "cgroup 'first' untouched" test "$(cat $CG/first/cpu.uclamp.{min,max} | tr '\n' ' ')" = "0.00 max "
check "the task untouched" test "$(tclamp $P)" = "0 1024"
expect_key 0 "nothing was written: the key stays off"

expect_rc 1 nodac cgroup set locked --min 10% --max 40% -y
expect_out 'locked: cpu\.uclamp\.max: permission denied'
expect_out 'refused: 1 target\(s\) cannot be written'
check "cpu.uclamp.min not written" test "$(cat $CG/locked/cpu.uclamp.min)" = "0.00"
expect_key 0 "cgroup set --min --max with max unwritable: the min write never happened"

# the same as data
expect_rc 1 nodac apply --config "$T/uclampctl.conf" -J
expect_out '"changed": false'
expect_out '"target": "locked", "kind": "cgroup", "attribute": "cpu.uclamp.max", "from": 100, "to": 60, "enables_fast_path": true, "state": "failed", "error": "permission denied'
expect_out '"rolled_back": \[\]'
expect_out 'cannot be written'
expect_key 0
chmod 0644 $CG/locked/cpu.uclamp.max

# ---- 2. an unforeseen failure (EPERM on the task): tasks go first, nothing else written
expect_rc 1 nonice apply --config "$T/uclampctl.conf"
expect_out 'pid '"$P"'( \(uc-late\))?: util_max: permission denied'
expect_out 'failed: 0 change\(s\) undone'
check "sysctls untouched" test "$(sys3)" = "1024 1024 1024 "
check "cgroup 'first' untouched" test "$(cat $CG/first/cpu.uclamp.{min,max} | tr '\n' ' ')" = "0.00 max "
check "the task untouched" test "$(tclamp $P)" = "0 1024"
expect_key 0 "the failing task write came first"
expect_rc 1 nonice apply --config "$T/uclampctl.conf" -J
expect_out '"changed": false'
expect_out '"target": "pid '"$P"'( \(uc-late\))?", "kind": "task", "attribute": "util_max".*"state": "failed", "error": "permission denied'
expect_out '"rolled_back": \[\]'
run sh -c "$UCLAMPCTL apply --config $T/uclampctl.conf --check -J || true"
check "still the same 6 differences" test "$(printf '%s\n' "$OUT" | grep -c '"enables_fast_path": true}')" = 6
check "sysctls still at the old values" test "$(sys3)" = "1024 1024 1024 "

# with CAP_SYS_NICE, the same file applies whole
expect_rc 0 uclampctl apply --config "$T/uclampctl.conf"
expect_out 'changed 6, unchanged 0, gone 0, failed 0'
check "all set" test "$(sys3)$(cat $CG/first/cpu.uclamp.max $CG/locked/cpu.uclamp.max | tr '\n' ' ')$(tclamp $P)" = "512 922 1024 70.00 60.00 0 200"
kill $P 2>/dev/null
done_scenario
