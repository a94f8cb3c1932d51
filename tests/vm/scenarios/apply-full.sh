# uclampctl apply on the real kernel: one configuration that sets the system
# knobs, a cgroup and a running process's threads (with a drop-in overriding
# the main file per key) is applied as one plan: everything set, key on. A
# second run writes nothing ("nothing to change", -J changed=false); --check
# is 0, then 1 with exactly the drifted value after a change by hand; apply
# repairs only that value.
# vm-on-7x: all three knobs written as one plan
. "$(dirname "$0")/../lib.sh"
CG=/sys/fs/cgroup
T=$(mktemp -d)
expect_key 0 "right after boot"

mkdir $CG/apptest
# a process with a distinctive comm, and a python3 with a second thread (threads = yes)
cp /bin/sleep "$T/uc-target"
"$T/uc-target" 600 & P=$!
python3 -c 'import threading, time; threading.Thread(target=time.sleep, args=(600,)).start(); time.sleep(600)' & PY=$!
for _ in $(seq 100); do [ "$(ls /proc/$PY/task | wc -l)" = 2 ] && break; sleep 0.1; done
PYT=$(ls /proc/$PY/task | grep -v "^$PY$" | head -1)
check "python3 has its second thread" test -n "$PYT"

mkdir "$T/conf.d"
consented_conf "$T/uclampctl.conf" <<CONF

[system]
min = 60%
max = 90%
rt-default = 0

[cgroup apptest]
min = 20%
max = 80%

[tasks target]
comm = uc-target
user = root
max = 300

[tasks py]
comm = python3
policy = other
min = 100
max = 700
threads = yes
CONF
# a drop-in wins per key: system max 80%, the rest of [system] stays
printf '[system]\nmax = 80%%\n' >"$T/conf.d/50-max.conf"
C=(--config "$T/uclampctl.conf" --config "$T/conf.d")

expect_rc 1 uclampctl apply "${C[@]}" --check
expect_out 'kernel\.sched_util_clamp_max +util_max +1024 +819'
expect_out 'apptest +cpu\.uclamp\.min +0\.00 +20\.00'
expect_out "pid $P \(uc-target\) +util_max +1024 +300"
expect_out "pid $PY tid $PYT \(python3\) +util_min +0 +100"
expect_rc 0 uclampctl apply "${C[@]}" --dry-run
expect_out 'this plan would enable the uclamp fast path'
expect_key 0 "after --check and --dry-run"

expect_rc 0 uclampctl apply "${C[@]}"
expect_out 'changed 8, unchanged 0, gone 0, failed 0'   # 3 sysctls, 2 cgroup files, 3 threads
check "system 614/819/0" test "$(cat /proc/sys/kernel/sched_util_clamp_{min,max,min_rt_default} | tr '\n' ' ')" = "614 819 0 "
check "cgroup 20.00/80.00" test "$(cat $CG/apptest/cpu.uclamp.{min,max} | tr '\n' ' ')" = "20.00 80.00 "
check "uc-target max 300" test "$(tclamp $P)" = "0 300"
check "python3 main thread 100/700" test "$(tclamp $PY)" = "100 700"
check "python3 second thread 100/700" test "$(tclamp $PYT)" = "100 700"
expect_key 1 "after applying clamps"

# again: nothing to write
expect_rc 0 uclampctl apply "${C[@]}"
expect_out 'nothing to change \(8 already at the requested values'
expect_rc 0 uclampctl apply "${C[@]}" -J
expect_out '"changed": false'
expect_out '"changes": \[\]'
expect_out '"fast_path": \{"before": "on", "after": "on"\}'
expect_rc 0 uclampctl apply "${C[@]}" --check
expect_out 'no differences'

# drift by hand: --check names exactly it, apply repairs exactly it
echo 50 >$CG/apptest/cpu.uclamp.max
uclampset -M 900 -p $P >/dev/null 2>&1 || uclampset -m 0 -M 900 -p $P
expect_rc 1 uclampctl apply "${C[@]}" --check
expect_out 'apptest +cpu\.uclamp\.max +50\.00 +80\.00'
expect_out "pid $P \(uc-target\) +util_max +900 +300"
expect_no_out 'sched_util_clamp|cpu\.uclamp\.min|python3'
expect_rc 0 uclampctl apply "${C[@]}" -J
expect_out '"changed": true'
expect_out '"target": "apptest", "kind": "cgroup", "attribute": "cpu.uclamp.max", "from": "50.00", "to": "80.00"'
expect_out "\"attribute\": \"util_max\", \"from\": 900, \"to\": 300, \"pid\": $P"
check "repaired" test "$(cat $CG/apptest/cpu.uclamp.max) $(tclamp $P)" = "80.00 0 300"
expect_rc 0 uclampctl apply "${C[@]}" --check

kill $P $PY 2>/dev/null
done_scenario
