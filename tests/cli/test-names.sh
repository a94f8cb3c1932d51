#!/bin/bash
# Hostile names (issue 17, items 6 and 7). Any user can name a process
# "\e[1A\e[2K\r..." or "\xff\xfe" and clamp itself; cgroup names are as free.
# Through every text output (status, check, tables, plans, refusal and failure
# lines, config errors, the watch log's stderr lines) no control byte, DEL or
# byte >= 0x80 may reach the terminal: names show as \xNN (escape.h). Every
# JSON output must parse as strict UTF-8 JSON (invalid bytes -> U+FFFD, the
# rest of the name kept exactly), and Prometheus label values too.
# Real sleepers behind fake /proc entries, a fake cgroup v2 tree
# ($UCLAMPCTL_TEST_CGROUP2, the test binary's seam).
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/cli/lib.sh"

if ! command -v python3 >/dev/null; then
	echo "python3 is needed to parse the JSON strictly"
	exit 77
fi
if [ -e /proc/sys/kernel/sched_util_clamp_min ]; then HOST_UCLAMP=1; else HOST_UCLAMP=0; fi
U=$UCLAMPCTL
umask 022	# the configuration files must be trusted

sleep 600 & P1=$!
sleep 600 & P2=$!
sleep 600 & P3=$!
alias_value "$P1" P1; alias_value "$P2" P2; alias_value "$P3" P3
trap 'kill $P1 $P2 $P3 2>/dev/null; rm -rf "${_tmpdirs[@]}"' EXIT

# terminal escapes and a CR; not UTF-8 (a stray byte, a surrogate, an
# overlong form); ') ' and a backslash that spells an escape. Each <= 15 bytes.
H1=$'\e[1A\e[2K\e[8m\rok'
H2=$'\xff\xfe\xed\xa0\x80\xe0\x80\x80!'
H3=$'b\') R 1 \\x1b'
# a cgroup that sets the terminal's title, rings, returns, and is not UTF-8
CG=$'\e]0;pwn\a\rcg\\\xff\xed\xa0\x80) z'
# as text lines show them (uc_escape_name)
H1E='\x1b[1A\x1b[2K\x1b[8m\x0dok'
H2E='\xff\xfe\xed\xa0\x80\xe0\x80\x80!'
H3E="b') R 1 \\x5cx1b"	# a backslash before 'x' is escaped, as libsmartcols does
CGE='\x1b]0;pwn\x07\x0dcg\\xff\xed\xa0\x80) z'
# as JSON carries them (Python's ascii() of the parsed string)
H1J="'\\x1b[1A\\x1b[2K\\x1b[8m\\rok'"
H2J="'\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd!'"
H3J="\"b') R 1 \\\\x1b\""
CGJ="'\\x1b]0;pwn\\x07\\rcg\\\\\\ufffd\\ufffd\\ufffd\\ufffd) z'"

fake_root 1024 1024 1024
fake_release 6.1.0
# fake_proc PID NAME STATE: /proc/PID with comm, status, stat and its one thread
fake_proc() {
	local pid=$1 name=$2 state=$3 d
	for d in "$ROOT/proc/$pid" "$ROOT/proc/$pid/task/$pid"; do
		mkdir -p "$d"
		printf '%s\n' "$name" >"$d/comm"
		# the comm holds ') ': the state is after the last ')'
		printf '%s (%s) %s 1 %s %s 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 50 0 0\n' \
			"$pid" "$name" "$state" "$pid" "$pid" >"$d/stat"
	done
	printf 'Name:\t%s\nUmask:\t0022\nState:\t%s\nTgid:\t%s\nPid:\t%s\nPPid:\t1\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n' \
		"$name" "$state" "$pid" "$pid" >"$ROOT/proc/$pid/status"
	echo "0::/" >"$ROOT/proc/$pid/cgroup"
}
fake_proc "$P1" "$H1" S
fake_proc "$P2" "$H2" S
fake_proc "$P3" "$H3" Z		# a zombie by its stat: left alone, with its name
CGR=$ROOT/sys/fs/cgroup
mkdir -p "$CGR/$CG" "$CGR/plain"
echo "cpu io memory pids" >"$CGR/cgroup.controllers"
echo "cpu" >"$CGR/cgroup.subtree_control"
for g in "$CG" plain; do
	echo "cpu" >"$CGR/$g/cgroup.controllers"
	echo "0.00" >"$CGR/$g/cpu.uclamp.min"
	echo "max" >"$CGR/$g/cpu.uclamp.max"
done
echo "20.00" >"$CGR/$CG/cpu.uclamp.min"	# evidence: status names the group
echo "0::/$CG" >"$ROOT/proc/$P1/cgroup"
export UCLAMPCTL_TEST_CGROUP2=$CGR
# a governor name is the kernel's, but read like the rest: hostile too
mkdir -p "$ROOT/sys/devices/system/cpu/cpufreq/policy0"
printf 'sched\e[2K"\\\xff\n' >"$ROOT/sys/devices/system/cpu/cpufreq/policy0/scaling_governor"

# ---- checks -----------------------------------------------------------------
# no byte of $OUT is a control byte (but newline and tab), DEL or >= 0x80
clean() {
	if printf '%s' "$OUT" | python3 -c '
import sys
b = sys.stdin.buffer.read()
bad = sorted({c for c in b if (c < 0x20 and c not in (9, 10)) or c >= 0x7f})
if bad:
    print("raw bytes: " + " ".join("%02x" % c for c in bad))
    sys.exit(1)'; then
		_pass "no raw control or non-ASCII byte"
	else
		_fail "raw bytes reach the terminal"
	fi
}
# $OUT has the fixed string $1
hasf() { if printf '%s\n' "$OUT" | grep -Fq -- "$1"; then _pass "output has '$1'"; else _fail "output lacks '$1'"; fi; }
# stdout only: the JSON (stderr may hold escaped messages)
stdout_of() { "$@" 2>/dev/null; }
# jis WHAT EXPR WANT: $OUT decoded as strict UTF-8 and parsed by json.loads;
# ascii() of EXPR (with j the document) must be WANT
jis() {
	local got
	got=$(printf '%s' "$OUT" | python3 -c '
import json, sys
j = json.loads(sys.stdin.buffer.read().decode("utf-8", "strict"))
print(ascii(eval(sys.argv[1])))' "$2" 2>&1)
	if [ "$got" = "$3" ]; then _pass "$1: $2 = $3"; else _fail "$1: $2 = $got, expected $3"; fi
}
# tasks by pid in a task show document
task_comm() { echo "[t['comm'] for t in j['tasks'] if t['pid'] == $1][0]"; }

# ---- text: tables (libsmartcols escapes; checked, not changed) -----------------
t "task show" 0 $U task show -o PID,COMM,CGROUP "$P1" "$P2" "$P3"
clean
hasf "$H1E"
hasf "$H2E"
hasf "$H3E"
hasf "$CGE"
t "task show -r" 0 $U task show -r -o PID,COMM,CGROUP "$P1" "$P2" "$P3"
clean
hasf "$H1E"
t "task show --all" 0 $U task show --all -o +CGROUP
clean
hasf "$H2E"
t "cgroup show" 0 $U cgroup show
clean
hasf "$CGE"
t "cgroup show -R -r" 0 $U cgroup show -R -r
clean
t "cgroup show --pid" 0 $U cgroup show --pid "$P1"
clean
hasf "$CGE"

# ---- text: status and check (the evidence names the cgroup) ------------------
t "status" 0 $U status
clean
has '^evidence +cgroup '
hasf "cgroup $CGE: cpu.uclamp.min = 20.00"
t "check -v" 1 $U check -v
clean
hasf "evidence: cgroup $CGE: cpu.uclamp.min"

# ---- text: plans, refusals, failures ------------------------------------------
t "task set --dry-run: the plan" 0 $U task set --max 300 --dry-run "$P1" "$P2"
clean
hasf "pid $P1 ($H1E)"
hasf "pid $P2 ($H2E)"
# a zombie (its state after the last ')') is left alone, named: the line
# printed before any plan or prompt
t "task set: a zombie left alone" 0 $U task set --max 300 --dry-run "$P3"
clean
hasf "pid $P3 ($H3E): left alone: it has exited"
if [ "$HOST_UCLAMP" = 0 ]; then
	# without uclamp the values read are 0: --min 10 is above the max, refused per task
	t "task set: refusal lines" 1 $U task set --min 10 --yes "$P1" "$P2"
	clean
	hasf "pid $P1 ($H1E): skipped: util_min would be 10"
	hasf "pid $P2 ($H2E): skipped"
	# and the writes fail (EOPNOTSUPP): the failure lines
	t "task set: failure lines" 4 $U task set --max 300 --yes "$P1" "$P2"
	clean
	hasf "pid $P1 ($H1E): util_max: "
	hasf "pid $P2 ($H2E): util_max: "
else
	echo "# host kernel has uclamp: no writes to real processes here (VM: names-hostile)"
fi

# ---- text: apply's plan, and config errors that quote a value ---------------
C=$ROOT/conf
mkdir -p "$C"
printf '[tasks all]\ncomm = *\nmax = 300\n' >"$C/all.conf"
t "apply --dry-run" 0 $U apply --dry-run --config "$C/all.conf"
clean
hasf "pid $P1 ($H1E)"
printf '[tasks bad]\ncomm = x\nmax = 5\e[2K\r0\xff\n' >"$C/bad.conf"
t "apply: a config error quoting a hostile value" 2 $U apply --config "$C/bad.conf"
clean
hasf '\x1b[2K\x0d0\xff'
# the same through the daemon's log (stderr without the journal)
t "watch: a config error in the log" 2 env -u JOURNAL_STREAM $U watch -c "$C/bad.conf" --socket "$ROOT/s.sock"
clean
hasf 'bad.conf:3: '
hasf '\x1b[2K\x0d0\xff'

# ---- JSON: strict UTF-8, names kept (invalid bytes U+FFFD) ------------------
t "task show -J" 0 stdout_of $U task show -J "$P1" "$P2" "$P3"
jis "comm, escapes kept exactly" "$(task_comm "$P1")" "$H1J"
jis "comm, not UTF-8" "$(task_comm "$P2")" "$H2J"
jis "comm, ') ' and a backslash" "$(task_comm "$P3")" "$H3J"
t "task show --all -J" 0 stdout_of $U task show --all -J
jis "--all: comm" "$(task_comm "$P2")" "$H2J"
t "task show -a -J -o +CGROUP" 0 stdout_of $U task show -a -J -o +CGROUP "$P1"
jis "cgroup column" "j['tasks'][0]['cgroup']" "$CGJ"
t "cgroup show -J" 0 stdout_of $U cgroup show -J
jis "cgroup name" "[c['cgroup'] for c in j['cgroups'][0]['children'] if c['cgroup'] != 'plain'][0]" "$CGJ"
t "cgroup show -R -J" 0 stdout_of $U cgroup show -R -J
jis "cgroup -R: strict JSON" "len(j['cgroups']) > 0" "True"
t "cgroup show --pid -J" 0 stdout_of $U cgroup show --pid "$P1" -J
jis "cgroup --pid: strict JSON" "len(j['cgroups'])" "1"
t "status -J" 0 stdout_of $U status -J
jis "evidence: the cgroup" "[e for e in j['fast_path']['evidence'] if e.startswith('cgroup ')][0]" \
	"'cgroup ${CGJ:1:${#CGJ}-2}: cpu.uclamp.min = 20.00 (default 0.00)'"
jis "governor" "j['governors']['policy0']" "'sched\\x1b[2K\"\\\\\\ufffd'"
t "apply --dry-run -J" 0 stdout_of $U apply --dry-run -J --config "$C/all.conf"
jis "apply: a target" "[c['target'] for c in j['changes'] if c['target'].startswith('pid $P2 ')][0]" \
	"'pid $P2 (${H2J:1:${#H2J}-2})'"
t "keys -J" 0 stdout_of $U keys -J
jis "keys: strict JSON" "type(j).__name__" "'dict'"

# ---- Prometheus: label values valid UTF-8, escaped per the format -------------
t "status --format=prometheus" 0 stdout_of $U status --format=prometheus
clean_prom=$(printf '%s' "$OUT" | python3 -c '
import sys
t = sys.stdin.buffer.read().decode("utf-8", "strict")
bad = [c for c in t if (ord(c) < 0x20 and c != "\n") or ord(c) == 0x7f]
print("clean" if not bad else "control bytes")' 2>&1)
[ "$clean_prom" = clean ] && _pass "prometheus: strict UTF-8, no control byte" || _fail "prometheus: $clean_prom"
hasf 'uclamp_cpufreq_policies{governor="sched'$'\xef\xbf\xbd''[2K\"\\'$'\xef\xbf\xbd''"} 1'

finish
