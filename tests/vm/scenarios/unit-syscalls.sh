# The units' system call filter lets the daemon and apply do their work:
# every system call that 'uclampctl watch' (start, a clamp on exec, reload,
# status, stop) and 'uclampctl apply' make on the real kernel is in the
# SystemCallFilter= of their unit (resolved by systemd-analyze). systemd
# is not PID 1 here, so strace stands in for the seccomp filter.
# vm-timeout: 600
# vm-on-7x: the system calls glibc and uclampctl make on this kernel (the units' filter)
. "$(dirname "$0")/../lib.sh"
SRC=$(cd "$VM_DIR/../.." && pwd)
T=$(mktemp -d)
expect_key 0 "right after boot"

# a group's system calls, its nested groups (@system-service has @resources) too
expand() {
	local l
	systemd-analyze syscall-filter "$1" | sed -n 's/^ \{4\}\([-@a-z0-9_]*\)$/\1/p' | while read -r l; do
		case $l in @*) expand "$l" ;; *) echo "$l" ;; esac
	done
}
# the allowed set: allow-list groups and names, minus the deny-list groups
allowed() {
	local unit=$1 line item
	: >"$T/allow"
	: >"$T/deny"
	while IFS= read -r line; do
		local to=$T/allow
		case $line in "~"*) to=$T/deny; line=${line#"~"} ;; esac
		for item in $line; do
			case $item in
			@*) expand "$item" >>"$to" ;;
			*) echo "$item" >>"$to" ;;
			esac
		done
	done < <(sed -n 's/^SystemCallFilter=//p' "$unit")
	sort -u "$T/allow" | comm -23 - <(sort -u "$T/deny") >"$T/allowed"
	test -s "$T/allowed"
}
# the system calls of a strace -f log, without the exec that strace itself makes
used() { sed -E -n 's/^[0-9]+ +([a-z0-9_]+)\(.*/\1/p' "$1" | sort -u | grep -vx execve; }
not_allowed() { used "$1" | comm -23 - "$T/allowed"; }

check "the watch unit's filter resolves" allowed "$SRC/systemd/uclampctl-watch.service.in"
grep -qx sched_setattr "$T/allowed" && grep -qx epoll_wait "$T/allowed" && ! grep -qx reboot "$T/allowed"
check "filter: sched_setattr and epoll_wait in, reboot out" test $? = 0
tasks_conf "$T/w.conf" "probe uc-probe max=300"
cp /bin/sleep "$T/uc-probe"
strace -f -qq -o "$T/watch.trace" "$UCLAMPCTL" watch -c "$T/w.conf" --socket "$T/s.sock" >"$T/log" 2>&1 & S=$!
# signals go to the daemon, not to strace (which would detach)
for _ in $(seq 100); do W=$(pgrep -P $S) && break; sleep 0.1; done
for _ in $(seq 300); do [ -S "$T/s.sock" ] && grep -q watching "$T/log" && break; sleep 0.2; done
check "watch started under strace" grep -q watching "$T/log"
"$T/uc-probe" 20 & P=$!
# strace slows watch (0.6 s exec->clamp seen at host load 20): wait for it
for _ in $(seq 100); do [ "$(tclamp $P)" = "0 300" ] && break; sleep 0.2; done
check "the probe is clamped by watch" test "$(tclamp $P)" = "0 300"
kill -HUP $W
# the reload runs first (slow under strace and TCG): status once it answers
for _ in $(seq 60); do "$UCLAMPCTL" watch status --socket "$T/s.sock" >/dev/null 2>&1 && break; sleep 1; done
expect_rc 0 uclampctl watch status --socket "$T/s.sock"
expect_rc 0 uclampctl watch status --format=prometheus --socket "$T/s.sock"
kill -TERM $W
wait $S
check "watch stopped cleanly" test $? = 0
kill $P; wait $P
run not_allowed "$T/watch.trace"
check "every system call of watch is allowed by its unit" test -z "$OUT"
check "the trace saw sched_setattr" grep -q '^[0-9]* *sched_setattr(' "$T/watch.trace"

# the same filter in both units: resolved once (systemd-analyze is slow under TCG)
if ! cmp -s <(grep '^SystemCallFilter=' "$SRC/systemd/uclampctl-watch.service.in") \
	<(grep '^SystemCallFilter=' "$SRC/systemd/uclampctl-apply.service.in"); then
	check "the apply unit's filter resolves" allowed "$SRC/systemd/uclampctl-apply.service.in"
fi
tasks_conf "$T/a.conf" "probe uc-probe max=400"
"$T/uc-probe" 300 & P=$!	# outlives apply under strace (slow on TCG)
sleep 0.5
echo "  apply under strace"
timeout 180 strace -f -qq -o "$T/apply.trace" "$UCLAMPCTL" apply -c "$T/a.conf" >"$T/alog" 2>&1
check "apply under strace" test $? = 0
sed 's/^/    | /' "$T/alog"
check "the probe is clamped by apply" test "$(tclamp $P)" = "0 400"
kill $P
run not_allowed "$T/apply.trace"
check "every system call of apply is allowed by its unit" test -z "$OUT"
expect_key 1 "after the clamps"
done_scenario
