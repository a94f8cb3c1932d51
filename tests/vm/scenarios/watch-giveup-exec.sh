# "Given up" does not survive an exec (issue 17, item 5): a process whose
# clamps another writer undoes again and again (uclampset, after each of the
# daemon's writes; the process renames itself each round, so the daemon
# re-matches it) is left alone after 5 re-applies a minute. When it then
# execs another program, which another rule matches, that program is clamped:
# an exec is a new program and clears the give-up state.
# vm-timeout: 420
. "$(dirname "$0")/../lib.sh"
T=$(mktemp -d)
expect_key 0 "right after boot"
check "the probe" helper clampwait "$T/uc-next"
tasks_conf "$T/w.conf" "fought uc-fought max=300" "next uc-next max=500"
"$UCLAMPCTL" watch -c "$T/w.conf" --socket "$T/s.sock" >"$T/log" 2>&1 & W=$!
for _ in $(seq 300); do "$UCLAMPCTL" watch status --socket "$T/s.sock" >/dev/null 2>&1 && break; sleep 0.1; done
expect_key 0 "watching, nothing matched yet"

# the fought-over process: each round it renames itself uc-fought (a COMM
# event: the daemon clamps it), waits for the clamp, then another writer
# (uclampset) undoes it; after 8 rounds it execs uc-next
cat >"$T/fought.py" <<'PY'
import ctypes, os, subprocess, sys, time
libc = ctypes.CDLL(None)
me = os.getpid()
def cur_max():
	out = subprocess.run(["uclampset", "-p", str(me)], capture_output=True, text=True).stdout
	return int(out.split("max:")[1].split()[0])
for i in range(8):
	libc.prctl(15, b"uc-fought", 0, 0, 0)
	for _ in range(30):
		if cur_max() == 300:
			break
		time.sleep(0.05)
	print("round", i, "max", cur_max(), flush=True)
	subprocess.run(["uclampset", "-M", "1024", "-p", str(me)], check=True)
os.execv(sys.argv[1], [sys.argv[1], "500", "3000"])
PY
run python3 "$T/fought.py" "$T/uc-next"
expect_out '^round 0 max 300$'
expect_out '^round 7 max 1024$'
check "the daemon gave up on it" grep -qE 'clamps were changed back [0-9]+ times within a minute' "$T/log"
expect_out '^clamped [0-9]+$'
expect_key 1 "after the clamps (consent given)"
run "$UCLAMPCTL" watch status -J --socket "$T/s.sock"
expect_out '"given_up": [1-9]'
kill -TERM $W
wait $W
check "SIGTERM: exit 0" test $? = 0
echo "  --- daemon log"; sed 's/^/    | /' "$T/log"
done_scenario
