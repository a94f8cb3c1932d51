# uclampctl cgroup show|set on cgroup v2: reads, same values, bad values,
# paths leaving the hierarchy, refusals, dry runs and enabling cpu leave
# sched_uclamp_used at 0; then 20.5%/80% read back exactly, and the effective
# values shown for a group equal what the kernel reports for a task inside.
# vm-on-7x: cgroup v2's cpu.uclamp parsing and rounding
. "$(dirname "$0")/../lib.sh"
CG=/sys/fs/cgroup
mkdir -p $CG/uct $CG/nest/inner $CG/p/q $CG/p2/q2
expect_cg_layout 'cgroup v2 at /sys/fs/cgroup'
expect_out '^/ .*root cgroup'
expect_out 'uct +0\.00 +max +0 +1024 +0 +1024'
expect_out 'q .*cpu not in the parent'
expect_rc 0 uclampctl cgroup show -J nest -R
expect_out '"children"'
# on an 80-column terminal (tmux) the tree keeps a group on one line: NOTE is cut
rows=$(uclampctl cgroup show -R | wc -l)
if tmux -L vm new-session -d -x 80 -y 100 "$UCLAMPCTL cgroup show -R; tmux -L vm wait-for -S done; sleep 60"; then
	tmux -L vm wait-for done
	tty_out=$(tmux -L vm capture-pane -p -J | sed -e 's/[[:space:]]*$//' -e '/^$/d')
	tmux -L vm kill-server
	printf '%s\n' "$tty_out" | sed 's/^/    | /'
	check "80 columns: no line wider" test -z "$(printf '%s\n' "$tty_out" | awk 'length > 80')"
	check "80 columns: one line per group ($rows)" test "$(printf '%s\n' "$tty_out" | wc -l)" = "$rows"
else
	echo "  (no tmux in the guest: the 80-column check is skipped)"
fi
expect_key 0 "after reading"

# the current values, in every spelling: nothing is written (any write would flip the key)
expect_rc 0 uclampctl cgroup set uct --min 0.00% --max max -y
expect_out 'nothing to change \(2 already'
expect_rc 0 uclampctl cgroup set $CG/uct --min 0 --max 1024 -y
expect_out 'nothing to change'
expect_rc 0 uclampctl cgroup set uct/ --min default --max 100% -y
expect_out 'nothing to change'
expect_key 0 "after same-value 'cgroup set'"

# a path longer than PATH_MAX is a usage error (2), like any bad path
long=$(printf 'uct/%.0s' $(seq 1100))
expect_rc 2 uclampctl cgroup set "$long" --max 50% -y
expect_out "cgroup path 'uct/uct/.*' is too long \(4400 bytes; a path has at most 4095\)"
expect_rc 2 uclampctl cgroup show "$long"
expect_key 0 "after a too-long path"

for bad in 150% bogus -1% 1025; do
	expect_rc 2 uclampctl cgroup set uct --max "$bad" -y
	expect_out "invalid value '$bad'"
done
for p in ../.. uct/../../.. /etc /tmp ../../proc; do
	expect_rc 2 uclampctl cgroup set "$p" --max 50% -y
	expect_out "refusing cgroup path"
done
# a group that is not there is a missing target (1, as a missing PID); "/" is the root
expect_rc 1 uclampctl cgroup set nope --max 50% -y
expect_out "no cgroup 'nope'"
expect_rc 2 uclampctl cgroup set / --max 50% -y
expect_out '^uclampctl: the root cgroup has no cpu\.uclamp files: for system-wide limits use .uclampctl system set.$'
expect_rc 2 uclampctl cgroup set . --max 50% -y
expect_out 'system set'
expect_rc 3 uclampctl cgroup set uct --max 80%
expect_rc 0 uclampctl cgroup set uct --min 20.5% --max 80% --dry-run
expect_out 'uct +cpu\.uclamp\.min +0\.00 +20\.50'
expect_out 'would enable'
check "uct untouched" test "$(cat $CG/uct/cpu.uclamp.min $CG/uct/cpu.uclamp.max | tr '\n' ' ')" = "0.00 max "
expect_key 0 "after bad values, bad paths, a refusal and a dry run"

# --enable-cpu in a parent with processes of its own: refused before anything is
# written (the kernel would take it and make the parent "domain threaded")
mkdir -p $CG/busy/leaf
sleep 600 & B=$!
echo $B >$CG/busy/cgroup.procs
expect_rc 1 uclampctl cgroup set busy/leaf --max max --enable-cpu -y
expect_out "^uclampctl: refused: 'busy' has processes of its own \(PID $B \.\.\.\): enabling cpu in its cgroup\.subtree_control would make it \"domain threaded\""
check "busy's subtree_control untouched" test -z "$(cat $CG/busy/cgroup.subtree_control)"
check "busy is still a plain domain" test "$(cat $CG/busy/cgroup.type)" = domain
# what the refusal keeps from happening, done by hand on a copy
mkdir -p $CG/busy2/leaf
echo $B >$CG/busy2/cgroup.procs
echo +cpu >$CG/busy2/cgroup.subtree_control
check "by hand the kernel takes it: busy2 became domain threaded" \
	test "$(cat $CG/busy2/cgroup.type)" = "domain threaded"
kill $B
expect_key 0 "after the refusal and the write by hand (no clamp written)"

# p/q: cpu not in p's subtree_control, so no clamp files
expect_rc 1 uclampctl cgroup set p/q --max 40% -y
expect_out 'cpu is not enabled in p/cgroup\.subtree_control.*--enable-cpu'
expect_rc 0 uclampctl cgroup set p/q --max 40% --enable-cpu --dry-run
expect_out 'p +cgroup\.subtree_control +no +yes'
check "no files yet" test ! -e $CG/p/q/cpu.uclamp.max
# enabling cpu, with the max equal to the default the files get: no clamp write
expect_rc 0 uclampctl cgroup set p/q --max max --enable-cpu -y
expect_out 'changed 1, unchanged 1'
check "cpu in p's subtree_control" grep -qw cpu $CG/p/cgroup.subtree_control
check "q has clamp files" test -e $CG/p/q/cpu.uclamp.max
expect_key 0 "after enabling cpu for p/q (no clamp written)"

# the real change
expect_rc 0 uclampctl cgroup set uct --min 20.5% --max 80% -y
expect_out 'changed 2'
check "min reads 20.50" test "$(cat $CG/uct/cpu.uclamp.min)" = 20.50
check "max reads 80.00" test "$(cat $CG/uct/cpu.uclamp.max)" = 80.00
expect_key 1 "after setting uct"
# capacity units: written as the percentage that maps back to the unit
# (inner needs cpu in nest's subtree_control first); a nested group's
# effective min is capped by its parent's
expect_rc 0 uclampctl cgroup set nest --min 30% -y
expect_rc 0 uclampctl cgroup set nest/inner --min 900 --max 512 --enable-cpu -y
expect_out 'above cpu\.uclamp\.max'
check "900 units written as 87.89" test "$(cat $CG/nest/inner/cpu.uclamp.min)" = 87.89
check "512 units written as 50.00" test "$(cat $CG/nest/inner/cpu.uclamp.max)" = 50.00
expect_rc 0 uclampctl cgroup show uct nest -R -o PATH,MIN_UTIL,MAX_UTIL,EFF_MIN,EFF_MAX -r -n
expect_out '^uct 210 819 210 819$'
expect_out '^nest 307 1024 307 1024$'
expect_out '^nest/inner 900 512 307 512$'

# a task in each group: the kernel's effective values equal uclampctl's
sleep 60 & t1=$!
sleep 60 & t2=$!
echo $t1 >$CG/uct/cgroup.procs
echo $t2 >$CG/nest/inner/cgroup.procs
expect_group_eff $t1 "uct: task effective = group effective"
expect_group_eff $t2 "nest/inner: task effective = group effective"
check "uct task at 210 819" test "$(task_eff $t1)" = "210 819 "
check "inner task at 307 512" test "$(task_eff $t2)" = "307 512 "
# the system clamps are the root group's: they cap every group below
# (min must stay <= max: 700/700)
expect_rc 0 uclampctl system set --min 700 --max 700 -y
expect_group_eff $t1 "capped by the system max"
check "uct task at 210 700" test "$(task_eff $t1)" = "210 700 "
expect_rc 0 uclampctl system set --min 100 -y
expect_group_eff $t2 "capped by the system min"
check "inner task at 100 512" test "$(task_eff $t2)" = "100 512 "
expect_rc 0 uclampctl system set --min max --max max -y
# same values after the flip: still nothing written
expect_rc 0 uclampctl cgroup set uct --min 210 --max 80% -y
expect_out 'nothing to change'
# --enable-cpu with a value: both, subtree first
expect_rc 0 uclampctl cgroup set p2/q2 --enable-cpu --max 40% -y
expect_out 'changed 2'
check "q2 max 40.00" test "$(cat $CG/p2/q2/cpu.uclamp.max)" = 40.00
# a write known to fail is found before any write: a user who may write
# p5's subtree_control (delegated) but not p5/x's is refused up front, and
# p5's subtree_control is never written
mkdir -p $CG/p5/x/y
chown nobody $CG/p5/cgroup.subtree_control
expect_rc 1 setpriv --reuid=65534 --regid=65534 --clear-groups "$UCLAMPCTL" cgroup set p5/x/y --enable-cpu --max 40% -y
expect_out 'p5/x: cgroup\.subtree_control: permission denied'
expect_out 'refused: 1 target\(s\) cannot be written'
check "p5's subtree_control has no cpu" test -z "$(cat $CG/p5/cgroup.subtree_control)"
kill $t1 $t2
done_scenario
