# task show, no-op sets, dry runs, refusals, EPERM and reset-on-fork alone:
# none of them may enable sched_uclamp_used.
# vm-on-7x: the calls that must not flip the key (EPERM, no-op, reset-on-fork)
. "$(dirname "$0")/../lib.sh"
. "$VM_DIR/helpers/task.sh"
expect_key 0 "right after boot"

sleep 600 & S=$!
chrt -f 10 sleep 600 & RT=$!
sleep 0.2

# ---- task show: a table and JSON from sched_getattr and /proc/PID/sched
expect_rc 0 uclampctl task show --all -a --comm sleep
expect_out "^ *$S +$S +sleep +other +0 +1024 +0 +1024 +no$"
expect_out "^ *$RT +$RT +sleep +fifo +1024 +1024 +1024 +1024 +no$"	# RT: min 1024 by default
expect_rc 0 uclampctl task show 1
expect_out "^ *1 +1 +guest-init.sh +other +0 +1024 +0 +1024 +no$"
expect_rc 0 uclampctl task show -J "$S" "$RT"
check "task show -J: shape and types" python3 -c '
import json, sys
rows = json.loads(sys.argv[1])["tasks"]
assert [r["pid"] for r in rows] == [int(sys.argv[2]), int(sys.argv[3])], rows
for r in rows:
    for k in ("pid", "tid", "util_min", "util_max", "eff_min", "eff_max"):
        assert isinstance(r[k], int), (k, r)
    assert r["reset_on_fork"] is False and r["comm"] == "sleep", r
assert rows[0]["policy"] == "other" and rows[0]["util_max"] == 1024 and rows[0]["eff_max"] == 1024, rows
assert rows[1]["policy"] == "fifo" and rows[1]["util_min"] == 1024, rows
' "$OUT" "$S" "$RT"
expect_rc 0 uclampctl task show --all --policy fifo -o PID,POLICY -n -r
expect_out "^$RT fifo$"
expect_no_out " other$"
expect_key 0 "after task show"

# ---- no-op sets: the values are already there, so no syscall (and no consent needed)
expect_rc 0 uclampctl task set --max 1024 "$S"
expect_out "nothing to change \(1 already at the requested values\)"
expect_rc 0 uclampctl task set --min 0 --max 1024 --yes "$S"
expect_out "nothing to change"
expect_rc 0 uclampctl task set --min 1024 --yes "$RT"
expect_out "nothing to change"
expect_rc 0 uclampctl task reset --yes "$S" "$RT"
expect_out "nothing to change \(2 already"
expect_rc 0 uclampctl run --max 1024 -- true
expect_key 0 "after no-op sets, resets and run"

# ---- dry run and refusal without --yes (stdin is not a terminal): nothing changes
expect_rc 0 uclampctl task set --min 100 --dry-run "$S"
expect_out "^pid $S \(sleep\) +util_min +0 +100 +enables$"
expect_out "dry run: nothing changed"
expect_rc 3 uclampctl task set --min 100 "$S"
expect_out "refused: .*fast path"
expect_out "nothing changed"
check "clamps unchanged after the refusal" test "$(tclamp "$S")" = "0 1024"
expect_rc 3 uclampctl run --min 100 -- touch /tmp/ran
check "run refused: CMD did not run" test ! -e /tmp/ran
expect_key 0 "after dry run and refusals"

# ---- RT task, --max alone below its default min 1024: explained, no syscall
expect_rc 1 uclampctl task set --max 300 --yes "$RT"
expect_out "pid $RT \(sleep\): skipped: it is a real-time task \(fifo\) with util_min 1024"
expect_out "add --min 300 or lower"
expect_no_out "Invalid argument"
check "RT clamps unchanged" test "$(tclamp "$RT")" = "1024 1024"
expect_key 0 "after the RT refusal"

# ---- EPERM: another user's task; the kernel refuses before it enables the key
expect_rc 1 setpriv --reuid=65534 --regid=65534 --clear-groups "$UCLAMPCTL" task set --max 500 --yes "$S"
expect_out "pid $S \(sleep\): util_max: permission denied \(another user's task needs CAP_SYS_NICE"
expect_out "failed 1"
expect_key 0 "after EPERM"

# ---- reset-on-fork alone: explicit policy, no clamp flag, so no key
check "reset-on-fork off before" test "$(rof "$S")" = no
expect_rc 0 uclampctl task set --reset-on-fork "$S"	# no --yes needed: nothing to enable
expect_out "changed 1"
check "reset-on-fork set (sched_getattr via chrt -p)" test "$(rof "$S")" = yes
expect_rc 0 uclampctl task show -o RESET_ON_FORK -n -r "$S"
expect_out "^yes$"
expect_rc 0 uclampctl task set --no-reset-on-fork "$S"
check "reset-on-fork cleared again" test "$(rof "$S")" = no
check "clamps untouched by the flag" test "$(tclamp "$S")" = "0 1024"
expect_key 0 "reset-on-fork changes do not enable uclamp"

kill "$S" "$RT"
done_scenario
