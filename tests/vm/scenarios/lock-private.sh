# Nobody but root may open the writers' lock (issue 17, item 2): flock(2)
# needs only a read-only open, so a lock file others can read is a lock any
# user can hold, stopping every writer and the daemon. A lock file left 0644
# by an older uclampctl is replaced by the next writer with a new 0600 file
# (a user who opened the old one and holds an flock on it stops no one);
# then a user who is not root gets EACCES opening it. A lock held for long (here by root's
# flock(1), renamed uc-holder) makes the daemon warn (a warning: it runs with
# -q) naming the holder by what it is, and writes nothing meanwhile; the
# daemon clamps again once it is let go.
# vm-timeout: 420
. "$(dirname "$0")/../lib.sh"
T=$(mktemp -d)
H="$VM_DIR/helpers"
L=/run/uclampctl/lock
expect_key 0 "right after boot"
helper clampwait "$T/uc-probe" && cp "$(command -v flock)" "$T/uc-holder"
check "helpers built" test -x "$T/uc-holder"
chmod 755 "$T"

# an older uclampctl's lock file: 0644, which a user opened then and holds
mkdir -p /run/uclampctl
: >"$L"
chmod 644 "$L"
old_ino=$(stat -c %i "$L")
setpriv --reuid=65534 --regid=65534 --clear-groups flock -s "$L" sleep 300 & USER_HOLD=$!
for _ in $(seq 50); do grep -q "FLOCK.* READ .*:$old_ino " /proc/locks && break; sleep 0.1; done
run cat /proc/locks
expect_out "FLOCK +ADVISORY +READ .*:$old_ino "
# a writer that changes nothing (max is 1024 already) still takes the lock: on
# a new file, so the user's old descriptor stops no one (--wait 0: no waiting)
expect_rc 0 uclampctl --wait 0 system set --max 1024 -y
run stat -c '%a %U %h %i' "$L"
expect_out '^600 root 1 [0-9]+$'
check "a new inode, not the old one corrected" test "$(stat -c %i "$L")" != "$old_ino"
check "the user still holds the old file" kill -0 $USER_HOLD
expect_rc 0 uclampctl --wait 0 system set --max 1024 -y
kill $USER_HOLD $(pgrep -P $USER_HOLD) 2>/dev/null
unpriv_open() {
	setpriv --reuid=65534 --regid=65534 --clear-groups python3 -c 'import errno, os, sys
try:
	os.open(sys.argv[1], os.O_RDONLY)
	print("opened")
except OSError as e:
	print(errno.errorcode[e.errno])' "$L"
}
run unpriv_open
expect_out '^EACCES$'
run setpriv --reuid=65534 --regid=65534 --clear-groups flock -n "$L" true
check "nobody cannot flock it (exit $RC)" test "$RC" != 0
expect_key 0 "after the writer"

# the daemon locked out for long: one warning naming the holder
consented_conf "$T/w.conf" <<CONF

[tasks probe]
comm = uc-probe
max = 300
CONF
"$UCLAMPCTL" -q watch -c "$T/w.conf" --socket "$T/s.sock" >"$T/log" 2>&1 & W=$!
for _ in $(seq 300); do "$UCLAMPCTL" watch status --socket "$T/s.sock" >/dev/null 2>&1 && break; sleep 0.1; done
# -o: flock(1) keeps the lock itself (not its child): killing it lets go
"$T/uc-holder" -o "$L" sleep 300 & HOLDER=$!
for _ in $(seq 50); do grep -q "FLOCK.* $HOLDER " /proc/locks && break; sleep 0.1; done
run cat /proc/locks
expect_out "FLOCK +ADVISORY +WRITE +$HOLDER "
"$T/uc-probe" 300 120000 >"$T/probe.out" & P=$!
for _ in $(seq 300); do grep -q 'has held the writers' "$T/log" && break; sleep 0.1; done
check "the daemon warns, naming the holder" grep -q "PID $HOLDER (uc-holder) has held the writers' lock ($L) for [5-9] s" "$T/log"
sleep 3
check "one warning per contention" test "$(grep -c 'has held the writers' "$T/log")" = 1
check "the probe is not clamped while the lock is held" test ! -s "$T/probe.out"
expect_key 0 "while the lock is held"
kill $HOLDER $(pgrep -P $HOLDER)
wait $P
run cat "$T/probe.out"
expect_out '^clamped [0-9]+$'
expect_key 1 "clamped once the lock was let go (consent given)"
run "$UCLAMPCTL" watch status --socket "$T/s.sock" -J
expect_out '"locked": [1-9]'
kill -TERM $W
wait $W
check "SIGTERM: exit 0" test $? = 0
echo "  --- daemon log"; sed 's/^/    | /' "$T/log"
done_scenario
