# A flip by 'system set': check 0 -> 1 and keys agrees; nobody sees the
# changed sysctl as evidence. Restoring the value leaves the key on (kcore
# still says on) but removes the evidence: nobody then reads "unknown",
# never "off".
# vm-on-7x: which sysctl write flips the key
. "$(dirname "$0")/../lib.sh"
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"; }
expect_key 0 "right after boot"
expect_rc 0 uclampctl check
expect_rc 3 uclampctl system set --rt-default 512
expect_out 'refused: the fast path \(sched_uclamp_used\) turns on until reboot'
expect_key 0 "after a refusal"

expect_rc 0 uclampctl system set --rt-default 512 --yes
expect_key 1 "after 'system set --yes'"
expect_rc 1 uclampctl check
expect_out '^on \(kcore\)'
expect_rc 0 uclampctl keys -r -n -o KEY,STATE,HOW
expect_out '^sched_uclamp_used on kcore$'
expect_rc 1 nobody "$UCLAMPCTL" check
expect_out '^on \(evidence\): evidence of use: sysctl sched_util_clamp_min_rt_default = 512 \(default 1024\)$'
expect_rc 0 nobody "$UCLAMPCTL" status --format=prometheus
expect_out '^uclamp_fast_path_state\{state="on",source="evidence"\} 1$'
expect_out '^uclamp_system_clamp\{sysctl="sched_util_clamp_min_rt_default"\} 512$'

# restore: no consent needed, the key stays on, the evidence is gone
expect_rc 0 uclampctl system set --rt-default default
expect_no_out 'warning|refused'
expect_key 1 "after restoring the sysctl"
expect_rc 1 uclampctl check
expect_out '^on \(kcore\)'
expect_rc 3 nobody "$UCLAMPCTL" check
expect_out '^unknown: .*defaults do not prove it is off'
done_scenario
