# vm-append: uclamp.cgroup=hybrid
# Hybrid layout: cpu on v1 (/sys/fs/cgroup/cpu), v2 at /sys/fs/cgroup/unified
# without controllers. uclampctl uses the v1 cpu hierarchy, takes a process's
# group from its "cpu" line (not the "0::" one) and refuses v2 paths.
# vm-on-7x: the hybrid layout's cpu hierarchy
. "$(dirname "$0")/../lib.sh"
CG=/sys/fs/cgroup/cpu
mkdir -p $CG/svc /sys/fs/cgroup/unified/other
expect_cg_layout 'cgroup v1 at /sys/fs/cgroup/cpu, hybrid with v2 at /sys/fs/cgroup/unified'
expect_out 'svc +0\.00 +max'
expect_rc 2 uclampctl cgroup set /sys/fs/cgroup/unified/other --max 50% -y
expect_out 'refusing'
expect_rc 0 uclampctl cgroup set svc --min 0 --max max -y
expect_out 'nothing to change'
expect_rc 2 uclampctl cgroup set svc --max bogus -y
expect_key 0 "after reads, a v2 path, same and bad values"

sleep 60 & t1=$!
echo $t1 >$CG/svc/cgroup.procs
echo $t1 >/sys/fs/cgroup/unified/other/cgroup.procs
run cat /proc/$t1/cgroup
expect_out '^0::/other$'
run uclampctl cgroup show --pid $t1 -o PATH -n
expect_out '^svc$'
# boost a latency-critical service
expect_rc 0 uclampctl cgroup set svc --min 50% -y
expect_key 1 "after setting svc"
check "svc min reads 50.00" test "$(cat $CG/svc/cpu.uclamp.min)" = 50.00
expect_group_eff $t1 "task effective = group effective"
check "task at 512 1024" test "$(task_eff $t1)" = "512 1024 "
kill $t1
done_scenario
