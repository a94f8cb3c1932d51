# The fast path's state on the real kernel, and a flip by 'task set'.
# After boot: status says off from kcore, check exits 0, keys agrees, the
# guard refuses without --yes ("will enable"); as nobody (no kcore, zeroed
# kallsyms) the state is unknown and says why, and a write of one's own
# task is refused with "may enable". Then 'task set --yes' flips it: check
# exits 1, keys agrees, nobody sees it through evidence (the task's clamp),
# and the guard lets further writes through without consent or warning.
# vm-on-7x: which sched_setattr flips the key; the guard on the kernel's answer
. "$(dirname "$0")/../lib.sh"
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"; }
jget() { printf '%s\n' "$OUT" | python3 -c "import json,sys; j=json.load(sys.stdin); print($1)"; }
addr=0x$(awk '$3 == "sched_uclamp_used" { print $1 }' /proc/kallsyms | sed 's/^0*//')
expect_key 0 "right after boot"

expect_rc 0 uclampctl status
expect_out '^fast path +off \(source: kcore\)$'
expect_out "sched_uclamp_used = 0, read from /proc/kcore at its /proc/kallsyms address $addr"
expect_out '^uclamp +tasks yes, cgroups yes, static key sched_uclamp_used present$'
expect_out '^system +util_min 1024, util_max 1024, util_min_rt_default 1024$'
expect_out '^clamped +0 of [0-9]+ threads, 0 of [0-9]+ cgroups'
expect_out '^advice +'
expect_rc 0 uclampctl check
expect_out '^off \(kcore\): '
expect_rc 0 uclampctl check -q
check "check -q prints nothing" test -z "$OUT"
expect_rc 0 uclampctl keys -r -n -o KEY,STATE,HOW,COUNT
expect_out '^sched_uclamp_used off kcore 0$'
expect_out '^sched_smt_present off kcore 0$'
expect_out '^psi_disabled absent'	# no CONFIG_PSI in the VM kernel
expect_rc 0 uclampctl status -J
check "status -J: off, kcore, value 0 at the kallsyms address" \
	test "$(jget 'j["fast_path"]["state"], j["fast_path"]["source"], j["fast_path"]["value"], j["fast_path"]["address"]')" = "off kcore 0 $addr"
check "status -J: cgroup v2 at /sys/fs/cgroup" test "$(jget 'j["cgroup"]["version"], j["cgroup"]["mounts"]')" = "2 ['/sys/fs/cgroup']"
expect_rc 0 uclampctl status --format=prometheus
expect_out '^uclamp_fast_path_state\{state="off",source="kcore"\} 0$'
expect_key 0 "after status, check, keys"

# the guard while off: refuses without consent, says "will" with it (dry run)
sleep 1000 &
victim=$!
expect_rc 3 uclampctl task set --min 100 $victim
expect_out 'refused: the fast path \(sched_uclamp_used\) turns on until reboot'
expect_rc 0 uclampctl task set --min 100 --dry-run $victim
expect_out 'would enable the uclamp fast path \(sched_uclamp_used is off\)'
expect_key 0 "after a refusal and a dry run"

# unprivileged: no kcore, zeroed kallsyms -> evidence; none yet -> unknown, with reasons
expect_rc 3 nobody "$UCLAMPCTL" check -v
expect_out '^unknown: '
expect_out 'unavailable: /proc/kallsyms hides kernel addresses without CAP_SYSLOG \(kptr_restrict=0, perf_event_paranoid=2'
expect_out 'unavailable: /proc/kcore needs root with CAP_SYS_RAWIO \(running as uid 65534\)'
expect_rc 0 nobody "$UCLAMPCTL" -v status
expect_out '^fast path +unknown$'
expect_out 'unavailable +.*kernel addresses'
expect_rc 0 nobody "$UCLAMPCTL" keys -r -n -o KEY,STATE
expect_out '^sched_uclamp_used unknown$'
expect_out '^sched_smt_present (on|off)$'
# its own task: allowed for an unprivileged user, so the guard asks -> "may"
expect_rc 3 nobody sh -c 'exec "$UCLAMPCTL" task set --min 10 $$'
expect_out 'refused: the fast path \(sched_uclamp_used\) may turn on until reboot'
expect_key 0 "after unprivileged reads and a refused unprivileged write"

# flip it through uclampctl
expect_rc 0 uclampctl task set --min 100 --yes $victim
expect_out 'warning: the fast path \(sched_uclamp_used\) turns on until reboot'
expect_key 1 "after 'task set --yes'"
expect_rc 1 uclampctl check
expect_out '^on \(kcore\): sched_uclamp_used = 1,'
expect_rc 0 uclampctl keys -r -n -o KEY,STATE,HOW,COUNT
expect_out '^sched_uclamp_used on kcore 1$'
expect_rc 0 uclampctl status
expect_out '^fast path +on \(source: kcore\)$'
expect_out "^evidence +task $victim \(sleep\) requests min 100 \(default 0\)$"
expect_out '^clamped +1 of [0-9]+ threads'

# unprivileged: falls back to evidence and says so
expect_rc 1 nobody "$UCLAMPCTL" check
expect_out "^on \(evidence\): evidence of use: task $victim \(sleep\) requests min 100"
expect_rc 0 nobody "$UCLAMPCTL" status -J
check "nobody: status -J says on from evidence" \
	test "$(jget 'j["fast_path"]["state"], j["fast_path"]["source"], j["fast_path"]["value"]')" = "on evidence None"
check "nobody: status -J lists why kcore was unavailable" \
	test "$(jget 'any("CAP_SYS_RAWIO" in u for u in j["fast_path"]["unavailable"])')" = True
expect_rc 0 nobody "$UCLAMPCTL" keys -r -n -o KEY,STATE,HOW
expect_out '^sched_uclamp_used on evidence$'

# the cost is paid: no prompt, no warning, no consent needed; -v says why
expect_rc 0 uclampctl task set --max 900 $victim
expect_no_out 'warning|refused|Continue'
expect_rc 0 uclampctl -v task set --max 800 $victim
expect_out 'already on'
check "the clamps are set" test "$(tclamp $victim)" = "100 800"
kill $victim
expect_key 1 "stays on"
done_scenario
