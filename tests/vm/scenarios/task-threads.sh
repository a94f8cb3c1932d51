# --threads reaches every thread of a 200-thread process; --all with
# --policy and --comm selects exactly the matching processes.
# vm-on-7x: sched_setattr per thread over /proc/PID/task
. "$(dirname "$0")/../lib.sh"
. "$VM_DIR/helpers/task.sh"
expect_key 0 "right after boot"

check "a process with 200 threads" start_threads 200 many
check "200 threads there" test "$(ls "/proc/$TP/task" | wc -l)" = 200
expect_rc 0 uclampctl task set --max 600 --yes "$TP"	# without --threads: the main thread only
expect_out "changed 1,"
check "only the main thread changed" test "$(tclamp "$TP")" = "0 600"
run clamps_of_threads "$TP"
expect_out "^199 0 1024$"
expect_key 1

expect_rc 0 uclampctl task set --max 300 --threads --yes "$TP"
expect_out "changed 200, unchanged 0, gone 0, failed 0"
run clamps_of_threads "$TP"
expect_out "^200 0 300$"
run sh -c "grep -h '^uclamp.max' /proc/$TP/task/*/sched | sort | uniq -c"
expect_out "^ +200 uclamp.max +: +300$"
expect_rc 0 uclampctl task set --max 300 -a --yes "$TP"
expect_out "nothing to change \(200 already at the requested values\)"
expect_rc 0 uclampctl task show -a -n -r -o TID,UTIL_MAX,EFF_MAX "$TP"
check "task show -a lists 200 threads at 300" test "$(printf '%s\n' "$OUT" | grep -c ' 300 300$')" = 200

# selection: --all --policy other --comm NAME
cp /bin/sleep /tmp/clampme
/tmp/clampme 600 & A=$!
/tmp/clampme 600 & B=$!
chrt -f 5 /tmp/clampme 600 & R=$!
sleep 600 & O=$!
sleep 0.2
expect_rc 0 uclampctl task set --all --policy other --comm clampme,nosuchname --max 400 --yes
expect_out "changed 2, unchanged 0"
check "clampme (other) changed" test "$(tclamp "$A") $(tclamp "$B")" = "0 400 0 400"
check "clampme (fifo) left alone" test "$(tclamp "$R")" = "1024 1024"
check "sleep left alone" test "$(tclamp "$O")" = "0 1024"
expect_rc 0 uclampctl task set --all --user root --comm clampme --policy other --max 400 --yes
expect_out "nothing to change \(2 already"
kill "$TP" "$A" "$B" "$R" "$O"
done_scenario
