# A flip done outside uclampctl, with the default value: the key is read
# from kernel memory, so status sees it although no value differs from the
# defaults (nobody, with evidence only, cannot: unknown, never off).
. "$(dirname "$0")/../lib.sh"
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"; }
CG=/sys/fs/cgroup
mkdir -p $CG/x
expect_key 0 "right after boot"
expect_rc 0 uclampctl status
expect_out '^fast path +off \(source: kcore\)$'
expect_rc 0 sh -c "echo max > $CG/x/cpu.uclamp.max"
expect_key 1 "after echo max > cpu.uclamp.max"
expect_rc 0 uclampctl status
expect_out '^fast path +on \(source: kcore\)$'
expect_out 'sched_uclamp_used = 1, read from /proc/kcore'
expect_no_out '^evidence'
expect_rc 1 uclampctl check
expect_rc 0 uclampctl keys -r -n -o KEY,STATE
expect_out '^sched_uclamp_used on$'
expect_rc 3 nobody "$UCLAMPCTL" check
expect_rc 0 nobody "$UCLAMPCTL" keys -r -n -o KEY,STATE
expect_out '^sched_uclamp_used unknown$'
done_scenario
