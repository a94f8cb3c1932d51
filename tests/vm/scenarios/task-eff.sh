# vm-timeout: 400
# task show EFF_MIN/EFF_MAX by the kernel's rule equal /proc/PID/task/TID/sched
# for every task (cgroup v2): fair and RT tasks with and without clamps, in
# the root, nested groups with min and max (leaves a/b/c, a/d below a/b
# and a, min above max too), a group
# without the cpu files (its parent's clamps), a threaded subtree (one thread
# in another group), system limits and the RT default lowered, a group
# changed while its tasks are there.
# vm-on-7x: the effective clamp rule against the kernel's own /proc/PID/sched
. "$(dirname "$0")/../lib.sh"
. "$VM_DIR/helpers/task.sh"
. "$VM_DIR/helpers/eff.sh"
CG=/sys/fs/cgroup

check "groups" eval 'eff_group a 20 50 && echo +cpu >$CG/a/cgroup.subtree_control &&
	eff_group a/b 30 80 && echo +cpu >$CG/a/b/cgroup.subtree_control && eff_group a/b/c 10 90 &&
	eff_group a/d 0 max && eff_group lo 60 30 && eff_group n 40 70 && mkdir $CG/n/x'
check "n/x has no cpu files (cpu off in n)" test ! -e $CG/n/x/cpu.uclamp.min
# v2 keeps processes in leaves (no internal processes in domain groups)
for g in "" a/b/c a/d lo n/x; do
	check "tasks in /$g" eff_tasks "$g"
done
# a threaded subtree: the process in thr, one of its threads in thr/w
check "threaded subtree" eval 'mkdir -p $CG/thr/w && echo threaded >$CG/thr/w/cgroup.type &&
	echo +cpu >$CG/thr/cgroup.subtree_control && echo 25 >$CG/thr/w/cpu.uclamp.max &&
	start_threads 4 effthr && echo $TP >$CG/thr/cgroup.procs &&
	ls /proc/$TP/task | tail -n 1 >$CG/thr/w/cgroup.threads'
run cat $CG/thr/w/cgroup.threads
expect_out '^[0-9]+$'

eff_compare_changes
kill "$TP"
eff_kill
done_scenario
