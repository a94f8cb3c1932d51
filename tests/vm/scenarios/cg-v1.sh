# vm-append: uclamp.cgroup=v1
# uclampctl cgroup on a cgroup v1 cpu hierarchy (/sys/fs/cgroup/cpu, no v2
# mounted): same values, bad values and bad paths leave the key at 0; set
# values read back; effective values match /proc/PID/sched; --pid finds the
# group from the "cpu" line of /proc/PID/cgroup.
# vm-on-7x: cgroup v1's cpu.uclamp files
. "$(dirname "$0")/../lib.sh"
CG=/sys/fs/cgroup/cpu
mkdir -p $CG/bg/low $CG/fg
expect_cg_layout 'cgroup v1 at /sys/fs/cgroup/cpu$'
expect_out 'low +0\.00 +max +0 +1024 +0 +1024'
expect_rc 0 uclampctl cgroup set bg --min 0% --max max -y
expect_out 'nothing to change'
# v1 has no subtree_control: cpu is in every group, --enable-cpu has nothing to do
expect_rc 0 uclampctl cgroup set bg/low --enable-cpu --max 1024 -y
expect_out 'nothing to change'
for bad in 150% bogus -1% 1025; do
	expect_rc 2 uclampctl cgroup set bg --min "$bad" -y
done
expect_rc 2 uclampctl cgroup set ../../.. --max 40% -y
expect_out 'refusing'
expect_rc 2 uclampctl cgroup set /sys/fs/cgroup --max 40% -y
expect_out 'refusing'
expect_rc 2 uclampctl cgroup set $CG --max 40% -y
expect_out 'system set'
expect_key 0 "after same values, bad values and bad paths"

# cap a background group at 40%, ask for 30%..90% below it
expect_rc 0 uclampctl cgroup set bg --max 40% -y
check "bg max reads 40.00" test "$(cat $CG/bg/cpu.uclamp.max)" = 40.00
expect_key 1 "after setting bg"
expect_rc 0 uclampctl cgroup set $CG/bg/low --min 30% --max 90% -y
check "low reads 30.00 90.00" test "$(cat $CG/bg/low/cpu.uclamp.min $CG/bg/low/cpu.uclamp.max | tr '\n' ' ')" = "30.00 90.00 "
expect_rc 0 uclampctl cgroup set fg --min 60% -y
expect_rc 0 uclampctl cgroup show bg -R -o PATH,MIN,MAX,EFF_MIN,EFF_MAX -r -n
expect_out '^bg 0\.00 40\.00 0 410$'
expect_out '^bg/low 30\.00 90\.00 0 410$'

sleep 60 & t1=$!
sleep 60 & t2=$!
sleep 60 & t3=$!
echo $t1 >$CG/bg/cgroup.procs
echo $t2 >$CG/bg/low/cgroup.procs
echo $t3 >$CG/fg/cgroup.procs
run cat /proc/$t2/cgroup
expect_out '^[0-9]+:cpu:/bg/low$'
run uclampctl cgroup show --pid $t2 -o PATH -n
expect_out '^bg/low$'
expect_group_eff $t1 "bg: task effective = group effective"
expect_group_eff $t2 "bg/low: task effective = group effective"
expect_group_eff $t3 "fg: task effective = group effective"
check "fg task at 614 1024" test "$(task_eff $t3)" = "614 1024 "
kill $t1 $t2 $t3

# watch on v1: a [cgroup] section whose group does not exist yet is applied when
# it appears (inotify on its parent), and again when it is made anew
T=$(mktemp -d)
consented_conf "$T/w.conf" <<'CONF'
[cgroup bg/later]
max = 30%
CONF
"$UCLAMPCTL" watch -c "$T/w.conf" --socket "$T/s.sock" >"$T/log" 2>&1 & W=$!
for _ in $(seq 300); do "$UCLAMPCTL" watch status --socket "$T/s.sock" >/dev/null 2>&1 && break; sleep 0.1; done
check "v1: the section waits for its group" test "$(watch_metric "$T/s.sock" cgroup_sections_waiting)" = 1
mkdir $CG/bg/later
for _ in $(seq 50); do [ "$(cat $CG/bg/later/cpu.uclamp.max)" = 30.00 ] && break; sleep 0.1; done
check "v1: the group is clamped when it appears" test "$(cat $CG/bg/later/cpu.uclamp.max)" = 30.00
rmdir $CG/bg/later
mkdir $CG/bg/later
for _ in $(seq 50); do [ "$(cat $CG/bg/later/cpu.uclamp.max)" = 30.00 ] && break; sleep 0.1; done
check "v1: made anew, clamped again" test "$(cat $CG/bg/later/cpu.uclamp.max)" = 30.00
check "v1: groups_applied 2" test "$(watch_metric "$T/s.sock" groups_applied_total)" = 2
kill -TERM $W
wait $W
check "watch: SIGTERM, exit 0" test $? = 0
sed 's/^/    | /' "$T/log"
done_scenario
