# The key stays 0 through everything apply does that must not write: a
# configuration equal to the kernel defaults applied twice (and -J, --check),
# a file with one bad line next to valid ones, an error in a drop-in, a
# cgroup path outside the mount (found while planning), a missing one (skipped,
# named, the rest unchanged: exit 5), --check and
# --dry-run of a real change, a refusal without consent. Then one real apply
# flips it, as the harness must see.
. "$(dirname "$0")/../lib.sh"
CG=/sys/fs/cgroup
T=$(mktemp -d)
sys3() { cat /proc/sys/kernel/sched_util_clamp_{min,max,min_rt_default} | tr '\n' ' '; }
expect_key 0 "right after boot"

mkdir $CG/keep
cp /bin/sleep "$T/uc-idle"
"$T/uc-idle" 600 & P=$!
sleep 0.3

# ---- the defaults, in several spellings: nothing to write, twice --------------
consented_conf "$T/defaults.conf" <<CONF
[system]
min = max
max = 1024
rt-default = default
[cgroup keep]
min = 0%
max = max
[tasks idle]
comm = uc-idle
min = default
max = 100%
threads = yes
reset-on-fork = no
CONF
for i in 1 2; do
	expect_rc 0 uclampctl apply --config "$T/defaults.conf"
	expect_out 'nothing to change \(6 already at the requested values'
	expect_key 0 "after applying the defaults (run $i)"
done
expect_rc 0 uclampctl apply --config "$T/defaults.conf" -J
expect_out '"changed": false'
expect_out '"fast_path": \{"before": "off", "after": "off"\}'
expect_rc 0 uclampctl apply --config "$T/defaults.conf" --check
expect_out 'no differences'
expect_key 0 "after -J and --check of the defaults"

# ---- one bad line next to valid ones: nothing at all is applied -----------------
consented_conf "$T/onebad.conf" <<CONF
[system]
min = 60%
max = 80%
[cgroup keep]
max = 40%
[tasks idle]
comm = uc-idle
mx = 300
CONF
expect_rc 2 uclampctl apply --config "$T/onebad.conf"
expect_out "onebad\.conf:10: unknown key 'mx' in \[tasks idle\]"
expect_out '1 error\(s\) in the configuration: nothing changed'
check "sysctls untouched" test "$(sys3)" = "1024 1024 1024 "
check "cgroup untouched" test "$(cat $CG/keep/cpu.uclamp.max)" = "max"
expect_key 0 "after a file with one bad line"

# an error in a drop-in stops the valid main file too
mkdir "$T/d"
printf '[system]\nrt-default = 2000\n' >"$T/d/90-bad.conf"
expect_rc 2 uclampctl apply --config "$T/defaults.conf" --config "$T/onebad.conf" --config "$T/d" --check
expect_out '90-bad\.conf:2: invalid value .2000. for rt-default'
expect_rc 2 uclampctl apply --config "$T/defaults.conf" --config "$T/d" -y
expect_key 0 "after an error in a drop-in"

# ---- problems found while planning: still nothing applied ------------------------
printf '[fast-path]\nallow-enable = yes\n[system]\nmin = 50%%\n[cgroup /tmp]\nmax = 50%%\n' >"$T/outside.conf"
expect_rc 2 uclampctl apply --config "$T/outside.conf"
expect_out 'outside\.conf:5: cgroup path ./tmp. resolves outside the cgroup mount'
# a missing group is skipped (named), not an error; the rest is at its values already
printf '[fast-path]\nallow-enable = yes\n[system]\nmin = 100%%\n[cgroup nosuch]\nmax = 50%%\n' >"$T/missing.conf"
expect_rc 5 uclampctl apply --config "$T/missing.conf"
expect_out "missing\.conf:5: skipped \[cgroup nosuch\]: no cgroup 'nosuch' under /sys/fs/cgroup \(not created yet\)"
expect_out 'nothing to change'
check "sysctls untouched" test "$(sys3)" = "1024 1024 1024 "
expect_key 0 "after a planning error and a skip"

# ---- a real difference: --check 1, --dry-run 0, no consent 3 ----------------------
printf '[system]\nmin = 60%%\nmax = 80%%\n[cgroup keep]\nmax = 40%%\n' >"$T/real.conf"
expect_rc 1 uclampctl apply --config "$T/real.conf" --check
expect_out 'keep +cpu\.uclamp\.max +max +40\.00'
expect_rc 1 uclampctl apply --config "$T/real.conf" --check -J
expect_out '"mode": "check"'
expect_rc 0 uclampctl apply --config "$T/real.conf" --dry-run
expect_out 'would enable the uclamp fast path \(sched_uclamp_used is off\)'
expect_rc 3 uclampctl apply --config "$T/real.conf"
expect_out 'refused'
expect_rc 3 uclampctl apply --config "$T/real.conf" -J
expect_out '"changed": false'
# consent given in one file and taken back in a later one (per key)
printf '[fast-path]\nallow-enable = no\n' >"$T/revoke.conf"
expect_rc 3 uclampctl apply --config "$T/defaults.conf" --config "$T/revoke.conf" --config "$T/real.conf"
check "sysctls untouched" test "$(sys3)" = "1024 1024 1024 "
check "cgroup untouched" test "$(cat $CG/keep/cpu.uclamp.max)" = "max"
expect_key 0 "after --check, --dry-run and refusals"

# ---- and a real apply does flip it ---------------------------------------------------
expect_rc 0 uclampctl apply --config "$T/real.conf" --yes
expect_out 'changed 3'
check "applied" test "$(sys3)$(cat $CG/keep/cpu.uclamp.max)" = "614 819 1024 40.00"
expect_key 1 "after a real apply"

kill $P 2>/dev/null
done_scenario
