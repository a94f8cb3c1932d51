# A flip by 'cgroup set': check 0 -> 1, keys agrees, status counts the
# group, nobody sees it through the cgroup's value, and the guard stops
# asking once the key is on.
# vm-on-7x: which cgroup write flips the key
. "$(dirname "$0")/../lib.sh"
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"; }
CG=/sys/fs/cgroup
mkdir -p $CG/fp $CG/fp2
expect_key 0 "right after boot"
expect_rc 0 uclampctl check
expect_out '^off \(kcore\)'
expect_rc 0 uclampctl status
expect_out '^clamped +0 of [0-9]+ threads, 0 of [0-9]+ cgroups'
expect_rc 3 nobody "$UCLAMPCTL" check
expect_rc 3 uclampctl cgroup set fp --min 20%
expect_out 'refused: the fast path \(sched_uclamp_used\) turns on until reboot'
expect_key 0 "after reads and a refusal"

expect_rc 0 uclampctl cgroup set fp --min 20% --yes
expect_key 1 "after 'cgroup set --yes'"
expect_rc 1 uclampctl check
expect_out '^on \(kcore\): sched_uclamp_used = 1'
expect_rc 0 uclampctl keys -r -n -o KEY,STATE
expect_out '^sched_uclamp_used on$'
expect_rc 0 uclampctl status
expect_out '^fast path +on \(source: kcore\)$'
expect_out '^evidence +cgroup fp: cpu.uclamp.min = 20.00 \(default 0.00\)$'
expect_out '^clamped +0 of [0-9]+ threads, 1 of [0-9]+ cgroups'
expect_rc 0 uclampctl status --format=prometheus
expect_out '^uclamp_fast_path_state\{state="on",source="kcore"\} 1$'
expect_out '^uclamp_cgroups_nondefault 1$'
expect_rc 1 nobody "$UCLAMPCTL" check
expect_out '^on \(evidence\): evidence of use: cgroup fp: cpu.uclamp.min = 20.00'
expect_rc 0 nobody "$UCLAMPCTL" keys -r -n -o KEY,STATE,HOW
expect_out '^sched_uclamp_used on evidence$'

# no prompt, no warning once on
expect_rc 0 uclampctl cgroup set fp2 --max 50%
expect_no_out 'warning|refused|Continue'
check "fp2 written" test "$(cat $CG/fp2/cpu.uclamp.max)" = "50.00"
done_scenario
