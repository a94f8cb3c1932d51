# vm-append: uclamp.cgroup=v1
# vm-timeout: 400
# task-eff.sh on a cgroup v1 cpu hierarchy: every group has the cpu files;
# single threads move between groups through the tasks file.
# vm-on-7x: the effective clamp rule under cgroup v1
. "$(dirname "$0")/../lib.sh"
. "$VM_DIR/helpers/task.sh"
. "$VM_DIR/helpers/eff.sh"
CG=/sys/fs/cgroup/cpu

check "groups" eval 'eff_group a 20 50 && eff_group a/b 30 80 && eff_group a/b/c 10 90 &&
	eff_group lo 60 30'
for g in "" a a/b a/b/c lo; do
	check "tasks in /$g" eff_tasks "$g"
done
check "a thread apart" eval 'eff_group thr 0 max && eff_group w 0 25 && start_threads 4 effthr &&
	echo $TP >$CG/thr/cgroup.procs && ls /proc/$TP/task | tail -n 1 >$CG/w/tasks'
run cat $CG/w/tasks
expect_out '^[0-9]+$'

eff_compare_changes
kill "$TP"
eff_kill
done_scenario
