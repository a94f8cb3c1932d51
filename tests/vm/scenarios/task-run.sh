# run: clamps on itself, then exec; children inherit; --reset-on-fork makes
# the command's children start at the defaults.
# vm-on-7x: reset-on-fork and inheritance across fork and exec
. "$(dirname "$0")/../lib.sh"
. "$VM_DIR/helpers/task.sh"
expect_key 0 "right after boot"

expect_rc 0 uclampctl run --min 200 --max 800 --dry-run -- touch /tmp/ran
expect_out "util_min +0 +200 +enables"
expect_out "^pid [0-9]+ \(touch\) +util_min "	# the task as it will be: CMD
expect_no_out "uclampctl"
check "dry run: CMD not run" test ! -e /tmp/ran
expect_rc 127 uclampctl run --max 1024 -- /nonexistent/cmd	# no-op clamp, then exec fails
expect_out "cannot run '/nonexistent/cmd'"
expect_key 0 "after dry run and a no-op run"
# --no-reset-on-fork on a process without the flag: nothing to write, no key;
# both flags at once: a usage error, CMD not run
expect_rc 0 uclampctl run --no-reset-on-fork -- sh -c 'chrt -p $$ 2>&1; echo RAN'
expect_out "^RAN$"
expect_out "scheduling policy: SCHED_OTHER$"
expect_no_out "RESET_ON_FORK"
expect_rc 2 uclampctl run --reset-on-fork --no-reset-on-fork --yes -- touch /tmp/ran2
expect_out "exclude each other"
check "usage error: CMD not run" test ! -e /tmp/ran2
expect_key 0 "after --no-reset-on-fork and a usage error"

# CMD is looked up before any clamp: missing (127) or not executable (126)
# with real changes and --yes: nothing written, the key stays off
expect_rc 127 uclampctl run --min 200 --max 800 --yes -- /nonexistent/cmd
expect_out "cannot run '/nonexistent/cmd': No such file"
expect_no_out "util_min|util_max"
expect_rc 127 uclampctl run --min 200 --yes -- uclampctl-no-such-cmd
expect_out "cannot run 'uclampctl-no-such-cmd'"
printf '#!/bin/sh\ntouch /tmp/ran3\n' >/tmp/noexec
chmod 644 /tmp/noexec
expect_rc 126 uclampctl run --min 200 --max 800 --yes -- /tmp/noexec
expect_out "Permission denied"
mkdir -p /tmp/pathdir/noexec-dir
cp /tmp/noexec /tmp/pathdir/noexec
expect_rc 126 env PATH=/tmp/pathdir "$UCLAMPCTL" run --max 800 --yes -- noexec
expect_rc 126 uclampctl run --max 800 --yes -- /tmp/pathdir/noexec-dir
check "not-runnable CMD: not run" test ! -e /tmp/ran3
expect_key 0 "after a missing and a non-executable CMD (real changes, --yes)"

# the command and its children carry the clamps (uclampset -p 0 = a forked child)
expect_rc 5 uclampctl -q run --min 200 --max 800 --yes -- sh -c 'exit 5'
expect_rc 0 uclampctl run --min 200 --max 800 --yes -- sh -c 'uclampset -p $$; uclampset -p 0; grep "^uclamp" /proc/$$/sched; true'
check "CMD and its child: 200/800" test "$(printf '%s\n' "$OUT" | grep -c 'min: 200 max: 800')" = 2
expect_out "^uclamp.min +: +200$"
expect_key 1

# stdout is CMD's alone, and stderr too when all is well (-v: the report)
check "stdout: only CMD's output" test "$("$UCLAMPCTL" run --max 700 --yes -- echo hello 2>/dev/null)" = hello
check "stderr: nothing before CMD's own" test -z "$("$UCLAMPCTL" run --max 650 --yes -- true 2>&1)"
expect_rc 0 uclampctl -v run --max 600 --yes -- true
expect_out "^changed 1, unchanged 0, gone 0, failed 0$"

# reset-on-fork: the command keeps its clamps and the flag, its children start fresh
expect_rc 0 uclampctl run --min 300 --reset-on-fork --yes -- sh -c 'chrt -p $$; uclampset -p $$; uclampset -p 0; chrt -p 0; true'
expect_out "SCHED_OTHER\|SCHED_RESET_ON_FORK"
expect_out "\(\S+\) util_clamp: min: 300 max: 1024"
expect_out "uclampset \([0-9]+\) util_clamp: min: 0 max: 1024"
check "the child's policy has no reset-on-fork" test "$(printf '%s\n' "$OUT" | grep -c RESET_ON_FORK)" = 1
done_scenario
