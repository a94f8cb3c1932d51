# One daemon per status socket (issue 17, item 4), at the default path as
# the service has it: a second 'watch --foreground --dry-run' beside a running
# one is refused (exit 1) naming the running one's PID, and the socket stays
# the first one's (same inode; 'watch status' still reaches it). A socket
# whose daemon died (SIGKILL: it refuses connections) is replaced by the next
# daemon. A daemon removes at exit only the socket it bound: when its socket
# was replaced meanwhile, the other daemon's socket stays. No rule matches
# anything here: the key stays 0 throughout.
# vm-timeout: 420
. "$(dirname "$0")/../lib.sh"
T=$(mktemp -d)
S=/run/uclampctl/watch.sock
expect_key 0 "right after boot"
consented_conf "$T/w.conf" <<CONF

[tasks nothing]
comm = uc-never-runs
max = 300
CONF
answers() { "$UCLAMPCTL" watch status --socket "$S" 2>/dev/null | awk '$1 == "pid" { print $2 }'; }
# start_daemon NAME: a daemon at the default socket, D = its PID, once it answers
start_daemon() {
	"$UCLAMPCTL" watch -c "$T/w.conf" >"$T/$1.log" 2>&1 & D=$!
	for _ in $(seq 300); do [ "$(answers)" = "$D" ] && return 0; sleep 0.1; done
	return 1
}

check "daemon A answers" start_daemon a
A=$D
INO=$(stat -c %i "$S")
# a timeout: an old build would run on (with the socket taken)
expect_rc 1 timeout 20 "$UCLAMPCTL" watch --foreground --dry-run -c "$T/w.conf"
expect_out "^uclampctl: watch: a watch daemon \(PID $A\) already answers at $S: not started"
check "the socket is still A's file" test "$(stat -c %i "$S" 2>/dev/null)" = "$INO"
check "and A answers there" test "$(answers)" = "$A"

# A dies without cleaning up: its socket refuses connections; B replaces it
kill -KILL $A
wait $A 2>/dev/null
check "A's socket is left behind" test -S "$S"
check "daemon B replaces the stale socket" start_daemon b
B=$D

# B's socket removed and replaced by C's: B's exit leaves C's alone
rm "$S"
check "daemon C answers" start_daemon c
C=$D
kill -TERM $B
wait $B
check "B: exit 0" test $? = 0
check "C's socket survives B's exit" test -S "$S"
check "C answers" test "$(answers)" = "$C"
kill -TERM $C
wait $C
check "C: exit 0" test $? = 0
check "C removed its own socket" test ! -e "$S"
for n in a b c; do echo "  --- daemon $n"; sed 's/^/    | /' "$T/$n.log"; done
expect_key 0 "at the end"
done_scenario
