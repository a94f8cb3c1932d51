# A /proc of another PID namespace (issue 17 item 8): PIDs read there name
# other tasks for sched_setattr, which resolves them in the caller's
# namespace. Under 'unshare -p -f' without --mount-proc (and 'nsenter -p'
# into a namespace), 'task set 1' must refuse with one line, exit 1, and
# write nothing: neither the guest's PID 1 nor the namespace's PID 1 change,
# the key stays 0. Control: with --mount-proc the namespace's own PID 1 is
# set. Needs CONFIG_PID_NS: the project's kernel (tests/vm/kernel.config).
. "$(dirname "$0")/../lib.sh"
expect_key 0 "right after boot"
[ -e /proc/self/ns/pid ] || skip_scenario "this kernel has no PID namespaces (CONFIG_PID_NS)"
refusal="^uclampctl: refused: /proc belongs to another PID namespace \(it shows this process as PID [0-9]+, which is not its PID here\): its PIDs name other tasks here; mount this namespace's /proc"
# in the namespace: uclampctl ARGS, its status, and the namespace's PID 1 clamps
in_ns() {
	local how=$1
	shift
	run unshare -p -f $how sh -c '"$0" "$@"; echo "rc=$?"; echo "ns1 $(uclampset -p 1)"' "$UCLAMPCTL" "$@"
}
one_line() { test "$(printf '%s\n' "$OUT" | grep -c '^uclampctl')" = 1; }

# ---- unshare -p -f, no --mount-proc: /proc is the guest's
in_ns "" task set --max 300 --yes 1
expect_out "$refusal"
check "one line" one_line
expect_out "^rc=1$"
expect_out "^ns1 .*min: 0 max: 1024"
check "the guest's PID 1 unchanged" test "$(tclamp 1)" = "0 1024"
in_ns "" task reset --yes 1
expect_out "^rc=1$"
in_ns "" task show 1
expect_out "$refusal"
expect_out "^rc=1$"
in_ns "" run --max 300 --yes -- echo RAN
expect_out "^rc=1$"
expect_no_out "^RAN$"
expect_key 0 "nothing written"

# ---- nsenter -p into a namespace (a container's) from the guest's /proc
unshare -p -f --kill-child sleep 600 & U=$!
for i in $(seq 1 50); do NS1=$(pgrep -P "$U"); [ -n "$NS1" ] && break; sleep 0.1; done
NS1=${NS1// /}
check "namespace init started" test -n "$NS1"
expect_rc 1 nsenter -t "$NS1" -p -- "$UCLAMPCTL" task set --max 300 --yes 1
expect_out "$refusal"
check "one line" one_line
check "the namespace's PID 1 (the guest's $NS1) unchanged" test "$(tclamp "$NS1")" = "0 1024"
check "the guest's PID 1 unchanged" test "$(tclamp 1)" = "0 1024"
kill "$U"
expect_key 0 "nothing written"

# ---- control: with --mount-proc the namespace's own PID 1 is set
in_ns --mount-proc task show -r -n -o PID,COMM 1
expect_out "^1 sh$"
expect_out "^rc=0$"
in_ns --mount-proc task set --max 300 --yes 1
expect_out "^rc=0$"
expect_out "changed 1, unchanged 0"
expect_out "^ns1 .*min: 0 max: 300"
check "the guest's PID 1 unchanged" test "$(tclamp 1)" = "0 1024"
expect_key 1 "after the namespace's own task was set"
done_scenario
