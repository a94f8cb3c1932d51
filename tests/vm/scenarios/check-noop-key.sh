# A no-op write flips the key, and check says so: a sched_setattr that sets
# the clamps a task already has (uclampset -m 0 -M 1024, as launchers and
# sandboxes do) turns sched_uclamp_used on with nothing clamped; check then
# reports key-on-defaults (a warning: exit 5 with --strict) until something
# is really clamped.
# vm-on-7x: what flips the key (a sched_setattr with unchanged values)
. "$(dirname "$0")/../lib.sh"
expect_key 0 "right after boot"
sleep 600 &
S=$!
expect_rc 0 uclampctl check --strict
expect_no_out 'key-on-defaults'
run uclampset -m 0 -M 1024 -p "$S"
check "uclampset wrote the defaults ($(tclamp "$S"))" test "$(tclamp "$S")" = "0 1024"
expect_key 1 "after a write that changed nothing"
expect_rc 1 uclampctl check
expect_out '^warning: the uclamp fast path is on, but every thread, cgroup and system clamp is at its default: a write that changed nothing turned it on .*\(key-on-defaults\)$'
expect_out '^  fix: only a reboot turns it off'
expect_rc 5 uclampctl check --strict
expect_rc 1 uclampctl check -J
check "JSON: the finding" test "$(printf '%s\n' "$OUT" | python3 -c '
import json, sys
j = json.load(sys.stdin)
print(j["state"], [f["id"] + ":" + f["level"] for f in j["findings"] if f["id"] == "key-on-defaults"])')" = "on ['key-on-defaults:warning']"
expect_rc 0 uclampctl status
expect_out '^clamped +0 of [0-9]+ threads, 0 of 0 cgroups request non-default clamps$'
# a real clamp: the key's cost now buys something
expect_rc 0 uclampctl task set --max 300 --yes "$S"
expect_rc 1 uclampctl check
expect_no_out 'key-on-defaults'
kill "$S"
expect_key 1 "at the end"
done_scenario
