# uclampctl history and undo on the real kernel: a task set, a cgroup set and
# a system set are each recorded and undone; a target another writer changed
# since (a task's clamp, a knob) and a task that exited are left alone by
# name; a run over every task of every user asks even with the key on, and
# its undo too; the record in /run/uclampctl is root's alone. The key is read
# before and after: undo puts values back and says the fast path stays on.
# vm-on-7x: sched_setattr resets (-1) and the cgroup and sysctl writes undo makes
. "$(dirname "$0")/../lib.sh"
K=/proc/sys/kernel
CG=/sys/fs/cgroup
H=/run/uclampctl/history
last_run() { "$UCLAMPCTL" history -rn -o RUN | tail -n 1; }
expect_key 0 "right after boot"
sleep 600 &
T=$!
sleep 600 &
T2=$!

# ---- a task: recorded, undone; the key stays on, and undo says so -----------------
expect_rc 0 uclampctl task set --min 100 --max 300 --yes "$T"
check "task: 100 300" test "$(tclamp "$T")" = "100 300"
expect_key 1 "after the first clamp"
expect_rc 0 uclampctl history
expect_out "^ +1 .* done +enabled +uclampctl task set --min 100 --max 300 --yes $T$"
expect_rc 0 uclampctl history 1
expect_out "^pid $T \(sleep\) +util_min +0 +100 +done$"
expect_out "^pid $T \(sleep\) +util_max +1024 +300 +done$"
expect_rc 0 uclampctl undo
expect_out "run 1 turned the uclamp fast path on: undo puts its values back, but the fast path stays on until reboot"
check "task: back to the defaults" test "$(tclamp "$T")" = "0 1024"
expect_key 1 "after undo: only a reboot turns it off"

# ---- a cgroup, then the system knobs ---------------------------------------------------
mkdir -p $CG/undo-grp
expect_rc 0 uclampctl cgroup set undo-grp --min 20% --max 60% --yes
expect_rc 0 uclampctl undo -J
expect_out '"undoes": [0-9]+'
expect_out '"from": 60, "to": 100'
check "group: back to 0.00 max" test "$(cat $CG/undo-grp/cpu.uclamp.min $CG/undo-grp/cpu.uclamp.max | tr '\n' ' ')" = "0.00 max "
expect_rc 0 uclampctl system set --min 300 --max 800 --yes
expect_rc 0 uclampctl undo
check "system: back to 1024 1024" test "$(cat $K/sched_util_clamp_min $K/sched_util_clamp_max | tr '\n' ' ')" = "1024 1024 "

# ---- changed since: left alone by name ---------------------------------------------------
expect_rc 0 uclampctl task set --max 400 --yes "$T" "$T2"
n=$(last_run)
uclampset -M 500 -p "$T"	# another writer
kill "$T2"
wait "$T2" 2>/dev/null
expect_rc 1 uclampctl undo "$n"
expect_out "^uclampctl: pid $T \(sleep\): util_max: left alone: changed since run $n \(it set 400, it is 500 now\)$"
expect_out "^uclampctl: pid $T2 \(sleep\): util_max: left alone: the task exited$"
expect_out "undo of run $n is not complete: 2 change\(s\) left alone"
check "the other writer's value stays" test "$(tclamp "$T")" = "0 500"
expect_rc 0 uclampctl system set --min 300 --max 800 --yes
echo 700 >$K/sched_util_clamp_max
expect_rc 1 uclampctl undo
expect_out "^uclampctl: kernel\.sched_util_clamp_max: util_max: left alone: changed since run [0-9]+ \(it set 800, it is 700 now\)$"
# min alone back to 1024 would be above that max
expect_out "^uclampctl: kernel\.sched_util_clamp_min: util_min: left alone: putting it back would leave the min above the max"
check "the knobs keep 300 700" test "$(cat $K/sched_util_clamp_min $K/sched_util_clamp_max | tr '\n' ' ')" = "300 700 "
echo 1024 >$K/sched_util_clamp_max
echo 1024 >$K/sched_util_clamp_min

# ---- every task of every user: asks with the key on, and so does its undo -----------
expect_rc 3 uclampctl task set --max 900 --all
expect_out "^uclampctl: refused: this reaches every task of every user: [0-9]+ task\(s\) of [0-9]+ user\(s\)$"
expect_no_out "sched_uclamp_used"
check "refused: nothing written" test "$(tclamp "$T")" = "0 500"
expect_rc 0 uclampctl task set --max 900 --all --yes
expect_out "warning: this reaches every task of every user"
check "every task: max 900" test "$(tclamp "$T")" = "0 900"
expect_rc 3 uclampctl undo
expect_out "this reaches every task of every user"
run uclampctl undo --yes
# (a task of the run that has exited since, the shell around a command, is left alone)
check "undo --yes: exit 0, or 1 for tasks that exited since ($RC)" test "$RC" -le 1
check "put back: 500 again" test "$(tclamp "$T")" = "0 500"

# ---- root's record, root's alone -------------------------------------------------------
check "the record is root's, 0600" test "$(stat -c '%u %a' $H)" = "0 600"
chown 65534 $H
expect_rc 1 uclampctl history
expect_out "refused to read the record: $H: it is owned by uid 65534, not uid 0: a record another user could have written is never trusted"
chown 0 $H
# a user's runs go to its own runtime directory, not root's
mkdir -p /run/user/65534
chown 65534 /run/user/65534
chmod 700 /run/user/65534
expect_rc 0 setpriv --reuid=65534 --regid=65534 --clear-groups env XDG_RUNTIME_DIR=/run/user/65534 "$UCLAMPCTL" run --max 600 --yes -- true
check "a user's record is its own" test "$(stat -c %u /run/user/65534/uclampctl/history)" = 65534
expect_rc 0 uclampctl history
expect_no_out "run --max 600"
kill "$T"
expect_key 1 "at the end"
done_scenario
