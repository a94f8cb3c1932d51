# apply on a real host whose targets come and go: a [cgroup] whose group does
# not exist yet, a [tasks] user this host does not have, and a task whose own
# clamps conflict with its section (an unprivileged user raised its own
# util_min to 1024, no privilege needed, and named the task so the rule
# matches). Each is skipped by name, everything else applies, exit 5; never
# "a configuration error" that vetoes root's run. A run whose only
# differences are skipped targets writes nothing and leaves the key off.
# Cost: one boot, ~16 s under TCG.
# vm-on-7x: an unprivileged task may raise its own util_min (the veto attempt)
. "$(dirname "$0")/../lib.sh"
CG=/sys/fs/cgroup
# applied RT_DEFAULT MAX: the rest of the configuration was applied around a skip
applied() {
	check "system rt-default $1 written" test "$(cat /proc/sys/kernel/sched_util_clamp_min_rt_default)" = "$1"
	check "apptest's max $2 written" test "$(cat $CG/apptest/cpu.uclamp.max)" = "$2"
}
T=$(mktemp -d)
chmod 755 "$T"
expect_key 0 "right after boot"
mkdir $CG/apptest

# only skipped targets differ: nothing to write, nothing asked, the key stays off
cat >"$T/skip-only.conf" <<'CONF'
[system]
max = max
[cgroup apptest/not-yet]
max = 30%
[cgroup no-such.service]
max = 30%
[tasks ghosts]
user = no-such-user-uclampctl
max = 300
CONF
expect_rc 5 uclampctl apply --config "$T/skip-only.conf"
expect_out 'skip-only\.conf:3: skipped \[cgroup apptest/not-yet\]: no cgroup .apptest/not-yet. under /sys/fs/cgroup \(not created yet\)'
expect_out 'skip-only\.conf:5: skipped \[cgroup no-such\.service\]: no cgroup .no-such\.service. under /sys/fs/cgroup, and no systemd to resolve it as a unit name'
expect_out 'skip-only\.conf:8: skipped user no-such-user-uclampctl of \[tasks ghosts\]: no such user on this host'
expect_out 'nothing to change'
expect_no_out 'refused|warning: this'
expect_key 0 "after a run whose only differences were skipped (nothing written, nobody asked)"
expect_rc 5 uclampctl apply --config "$T/skip-only.conf" --check
expect_out '^no differences in what could be checked'
expect_key 0 "after --check"

# a missing group and an unknown user: skipped, the rest applies
consented_conf "$T/apply.conf" <<'CONF'
[system]
rt-default = 0
[cgroup apptest]
max = 40%
[cgroup apptest/not-yet]
max = 30%
[tasks ghosts]
user = root, no-such-user-uclampctl
comm = uc-root-job
max = 200
CONF
cp /bin/sleep "$T/uc-root-job"
"$T/uc-root-job" 600 & J=$!
expect_rc 5 uclampctl apply --config "$T/apply.conf"
expect_out 'skipped \[cgroup apptest/not-yet\]'
expect_out 'skipped user no-such-user-uclampctl of \[tasks ghosts\]: no such user on this host: the section applies to the others it names'
expect_out 'changed 3, unchanged 0'
applied 0 40.00
check "root's job clamped by the section the unknown user was dropped from" test "$(tclamp $J)" = "0 200"
expect_key 1 "after the rest was applied (consented)"
# the group appears: the next run writes it (its own, new, group)
echo +cpu >$CG/apptest/cgroup.subtree_control
mkdir $CG/apptest/not-yet
expect_rc 5 uclampctl apply --config "$T/apply.conf"
expect_out 'changed 1'
expect_no_out 'skipped \[cgroup apptest/not-yet\]'
check "the new group's max written" test "$(cat $CG/apptest/not-yet/cpu.uclamp.max)" = 30.00

# the veto attempt: nobody's own task at util_min 1024, named to match a rule
cp /bin/sleep "$T/uc-veto"
setpriv --reuid=65534 --regid=65534 --clear-groups uclampset -m 1024 "$T/uc-veto" 600 & V=$!
for _ in $(seq 100); do [ "$(cat /proc/$V/comm 2>/dev/null)" = uc-veto ] && break; sleep 0.1; done
check "nobody's task runs at util_min 1024 (set without privilege)" test "$(tclamp $V)" = "1024 1024"
consented_conf "$T/veto.conf" <<'CONF'
[system]
rt-default = 50
[cgroup apptest]
max = 35%
[tasks veto]
comm = uc-veto
max = 300
CONF
expect_rc 5 uclampctl apply --config "$T/veto.conf"
expect_out "veto\.conf:7: skipped pid $V \(uc-veto\) of \[tasks veto\]: its own util_min 1024 \(the task's, not the configuration's\) is above the util_max 300 the configuration sets"
expect_out 'changed 2'
expect_no_out 'error|cannot apply'
applied 50 35.00
check "the vetoing task was left alone" test "$(tclamp $V)" = "1024 1024"
expect_rc 5 uclampctl apply --config "$T/veto.conf" -J
expect_out "\"target\": \"pid $V \(uc-veto\)\", \"pid\": $V, \"tid\": $V"
expect_key 1 "at the end"
kill $J $V 2>/dev/null
done_scenario
