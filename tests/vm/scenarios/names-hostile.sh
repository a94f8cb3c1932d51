# Hostile names on the real kernel (issue 17, items 6 and 7): a process
# renames itself (prctl PR_SET_NAME) to terminal escapes, a CR, "\x" and
# bytes that are not UTF-8, and a cgroup is named like one; both get clamped.
# Then the refusal, the plan, the write, nobody's failure lines, status and
# check (evidence), the tables, every -J, and the watch daemon's log must
# carry no raw control or non-ASCII byte (the names show as \xNN), and the
# JSON must parse as strict UTF-8 with the names kept (bad bytes U+FFFD).
# The key: 0 until the consented write, 1 after.
# vm-timeout: 600
. "$(dirname "$0")/../lib.sh"
T=$(mktemp -d)
chmod 755 "$T"
CG=/sys/fs/cgroup
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"; }
# the output of the last run: no control byte but newline and tab, no DEL, nothing >= 0x80
clean() {
	check "$1: no raw control or non-ASCII byte" python3 -c '
import sys
b = sys.stdin.buffer.read()
bad = sorted({c for c in b if (c < 0x20 and c not in (9, 10)) or c >= 0x7f})
sys.exit("raw bytes: " + " ".join("%02x" % c for c in bad) if bad else 0)' <<<"$OUT"
}
has() { CHECKS=$((CHECKS + 1)); if grep -Fq -- "$1" <<<"$OUT"; then _ok "output has '$1'"; else _fail "output lacks '$1'"; fi; }
# jis FILE EXPR WANT: FILE decoded as strict UTF-8, json.loads; ascii(EXPR) = WANT
jis() {
	local got
	got=$(python3 -c '
import json, sys
j = json.loads(open(sys.argv[1], "rb").read().decode("utf-8", "strict"))
print(ascii(eval(sys.argv[2])))' "$1" "$2" 2>&1)
	CHECKS=$((CHECKS + 1))
	if [ "$got" = "$3" ]; then _ok "$2 = $3"; else _fail "$2 = $got, expected $3"; fi
}

# 14 bytes: erase the line, hide the text, return; "\x"; not UTF-8
cat >"$T/hostile.py" <<'PY'
import ctypes, sys, time
ctypes.CDLL(None).prctl(15, ctypes.c_char_p(b"\x1b[2K\x1b[8m\rh\\x\xff\xfe"), 0, 0, 0)
print("ready", flush=True)
time.sleep(float(sys.argv[1]))
PY
NE='\x1b[2K\x1b[8m\x0dh\x5cx\xff\xfe'			# as text shows it
NJ="'\\x1b[2K\\x1b[8m\\rh\\\\x\\ufffd\\ufffd'"		# ascii() of the JSON string
CGN=$'\e]0;pwn\a\rcg\xff'				# the kernel refuses only '/' and '\n'
CGE='\x1b]0;pwn\x07\x0dcg\xff'
CGJ="'\\x1b]0;pwn\\x07\\rcg\\ufffd'"

expect_key 0 "right after boot"
python3 "$T/hostile.py" 600 >"$T/p.out" & P=$!
for _ in $(seq 100); do grep -q ready "$T/p.out" && break; sleep 0.1; done
check "the process renamed itself" test "$(od -An -tx1 /proc/$P/comm | tr -d ' \n')" = "1b5b324b1b5b386d0d685c78fffe0a"

# refused without consent (no terminal): nothing written
expect_rc 3 uclampctl task set --max 300 $P
clean "refusal"
expect_rc 0 uclampctl task set --max 300 --dry-run $P
clean "the plan"
has "pid $P ($NE)"
expect_key 0 "after the refusal and the dry run"

# the consented write flips the key (the one write of this scenario that may)
expect_rc 0 uclampctl task set --max 300 --yes $P
clean "task set --yes"
expect_key 1 "after the consented write"
check "the hostile process has max 300" test "$(tclamp $P)" = "0 300"

# nobody may not write root's process: the failure line names it
expect_rc 1 nobody "$UCLAMPCTL" task set --max 200 --yes $P
clean "failure line"
has "pid $P ($NE): util_max: "

# a hostile cgroup, clamped, with the process in it
mkdir "$CG/$CGN"
expect_rc 0 uclampctl cgroup set "$CGN" --max 50% --yes
clean "cgroup set"
echo $P >"$CG/$CGN/cgroup.procs"

# evidence as nobody (no kcore): the task and the cgroup are named
expect_rc 0 nobody "$UCLAMPCTL" status
clean "status"
expect_out '^evidence +'
has "cgroup $CGE: cpu.uclamp.max = 50.00"
expect_rc 1 nobody "$UCLAMPCTL" check -v
clean "check -v"
expect_rc 0 uclampctl task show -o PID,COMM,UTIL_MAX,CGROUP $P
clean "task show"
has "$NE"
expect_rc 0 uclampctl cgroup show
clean "cgroup show"
has "$CGE"

# JSON: strict UTF-8, the names kept
uclampctl task show -J -o +CGROUP $P >"$T/j1" 2>/dev/null
jis "$T/j1" "j['tasks'][0]['comm']" "$NJ"
jis "$T/j1" "j['tasks'][0]['cgroup']" "$CGJ"
uclampctl task show --all -J >"$T/j2" 2>/dev/null
jis "$T/j2" "[t['comm'] for t in j['tasks'] if t['pid'] == $P][0]" "$NJ"
uclampctl cgroup show -J >"$T/j3" 2>/dev/null
jis "$T/j3" "$CGJ in [c['cgroup'] for c in j['cgroups'][0]['children']]" "True"
nobody "$UCLAMPCTL" status -J >"$T/j4" 2>/dev/null
jis "$T/j4" "any(e.startswith('cgroup ' + $CGJ) for e in j['fast_path']['evidence'])" "True"

# the daemon's log (stderr, not the journal): the rescan at start clamps it
consented_conf "$T/w.conf" <<CONF
[tasks hostile]
cmdline = *hostile.py*
max = 200
CONF
env -u JOURNAL_STREAM "$UCLAMPCTL" watch -c "$T/w.conf" --socket "$T/s.sock" >"$T/log" 2>&1 & W=$!
for _ in $(seq 100); do grep -q "rule 'hostile'" "$T/log" && break; sleep 0.1; done
# one that starts while it watches, and renames itself after its exec
python3 "$T/hostile.py" 30 >"$T/p2.out" & P2=$!
for _ in $(seq 100); do grep -q ready "$T/p2.out" && break; sleep 0.1; done
sleep 0.5
kill -TERM $W
wait $W
OUT=$(cat "$T/log")
printf '%s\n' "$OUT" | sed 's/^/    | /'
clean "the watch log"
has "pid $P tid $P ($NE) rule 'hostile': util_max 300 -> 200"
check "the daemon clamped it" test "$(tclamp $P)" = "0 200"
check "and the one started later" test "$(tclamp $P2)" = "0 200"

kill $P $P2 2>/dev/null
expect_key 1 "at the end"
done_scenario
