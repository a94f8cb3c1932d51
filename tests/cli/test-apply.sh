#!/bin/bash
# uclampctl apply against a fake root (UCLAMPCTL_SYSROOT): config errors
# (file:line, exit 2, nothing changed), --check, --dry-run, consent, idempotence,
# rollback, and the -J shape. Mostly [system] here: cgroups need the real mount
# table and task writes the real kernel (tests/vm/scenarios/apply-*.sh); the
# [tasks] rules are checked with --dry-run against real sleepers behind fake
# /proc entries.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/cli/lib.sh"

U=$UCLAMPCTL
umask 022	# the configuration files written here must be trusted: not group-writable
fake_root
K=$ROOT/proc/sys/kernel
C=$(mktemp -d "${TMPDIR:-/tmp}/uclampctl-conf.XXXXXX")
_tmpdirs+=("$C")

# the default locations come from configure's sysconfdir; the help names them
t "apply --help" 0 $U apply --help
has 'uclampctl\.conf'
has 'uclampctl\.d/\*\.conf'
has -- '--check'
SYSCONF=$(printf '%s\n' "$OUT" | grep -o '/[^ ]*/uclampctl\.conf' | head -1)
SYSCONF=${SYSCONF%/uclampctl.conf}
[ -n "$SYSCONF" ] && _pass "sysconfdir from --help: $SYSCONF" || _fail "no sysconfdir in --help"
E=$ROOT$SYSCONF
mkdir -p "$E/uclampctl.d"

sysctls_are() { same "$K/sched_util_clamp_min" "$1"; same "$K/sched_util_clamp_max" "$2"; same "$K/sched_util_clamp_min_rt_default" "$3"; }
stamp() { stat -c '%y' "$K"/sched_util_clamp_* | tr '\n' ' '; }
json() { printf '%s\n' "$OUT" | python3 -c "import json,sys; d=json.load(sys.stdin); $1"; }
jcheck() {
	local what=$1
	shift
	if json "$@" 2>/dev/null; then _pass "JSON: $what"; else _fail "JSON: $what"; fi
}

# ---- usage -------------------------------------------------------------------
t "unknown option" 2 $U apply --frob
has "unknown option '--frob'"
t "an argument" 2 $U apply extra.conf
has "unexpected argument 'extra.conf'"
t "--config without a value" 2 $U apply --config
t "--check with --dry-run" 2 $U apply --check --dry-run

# ---- no configuration at all ---------------------------------------------------
fake_sysctls 1024 1024 1024
t "no configuration: nothing to do" 0 $U apply
has 'no configuration'
t "no configuration, --check" 0 $U apply --check
tj "no configuration, -J" 0 $U apply -J
jcheck "changed is false" 'assert d["changed"] is False'

# ---- config errors: every one with file:line, exit 2, nothing changed ------------
cat >"$E/uclampctl.conf" <<'EOF'
# a valid part: must not be applied while another part is broken
[fast-path]
allow-enable = yes
[system]
min = 60%
max = 80%
EOF
cat >"$E/uclampctl.d/20-bad.conf" <<'EOF'
[system]
rt-default = 2000

[cgroup system.slice/../../etc]
max = 10%
[tasks nobody]
max = 5
[sytem]
bogus line
EOF
cat >"$E/uclampctl.d/10-fine.conf" <<'EOF'
[system]
rt-default = 0
EOF
before=$(stamp)
t "errors in a drop-in" 2 $U apply
has "20-bad\.conf:2: invalid value '2000' for rt-default in \[system\]: out of range"
has "20-bad\.conf:4: cgroup path 'system\.slice/\.\./\.\./etc' leaves the cgroup hierarchy"
has "20-bad\.conf:6: \[tasks nobody\] has no selector"
# uclampctl.conf(5)'s example of this error says what the binary says (its list
# of selectors comes from the table: a selector added there changes both)
want=$(printf '%s\n' "$OUT" | sed -n 's/^.*20-bad\.conf:6: \[tasks nobody\] has no selector: //p')
man=$(sed -n 's/^.*\[tasks db\] has no selector: //p' "$TESTS_SRCDIR/../man/uclampctl.conf.5")
if [ -n "$want" ] && [ "$man" = "$want" ]; then _pass "uclampctl.conf(5)'s example: $want"
else _fail "uclampctl.conf(5)'s example says '$man', the binary '$want'"; fi
has "20-bad\.conf:8: unknown section \[sytem\]"
has "20-bad\.conf:9: expected 'key = value'"
has '5 error\(s\) in the configuration: nothing changed'
hasnt 'uclampctl\.conf:|10-fine'
sysctls_are 1024 1024 1024
[ "$(stamp)" = "$before" ] && _pass "no sysctl written" || _fail "a sysctl was written"
t "errors: --check is exit 2 too" 2 $U apply --check
t "errors: --dry-run is exit 2 too" 2 $U apply --dry-run
tj "errors: -J" 2 $U apply -J
jcheck "errors listed with file:line, nothing changed" \
	'assert d["changed"] is False and len(d["errors"]) == 5 and d["errors"][0].endswith(("20-bad.conf:2: invalid value \x272000\x27 for rt-default in [system]: out of range; use 0..1024, N% or N.NN% (0-100), max, or default (-1)"))'
rm "$E/uclampctl.d/20-bad.conf"

# a value the host cannot take: only min, above the current max
echo 300 >"$K/sched_util_clamp_max"
printf '[system]\nmin = 900\n' >"$C/min.conf"
t "min above the host's max" 2 $U apply --config "$C/min.conf" -y
has 'min\.conf:2: \[system\] would leave min 900 above max 300'
same "$K/sched_util_clamp_min" 1024
echo 1024 >"$K/sched_util_clamp_max"

# ---- --check and --dry-run ------------------------------------------------------
# now: uclampctl.conf (min 60%, max 80%, allow-enable) + 10-fine.conf (rt-default 0)
t "--check: differs" 1 $U apply --check
has 'differs'
has 'kernel\.sched_util_clamp_min +util_min +1024 +614'
has 'kernel\.sched_util_clamp_max +util_max +1024 +819'
has 'kernel\.sched_util_clamp_min_rt_default +util_min_rt_default +1024 +0'
t "--check -q: only the exit code" 1 $U -q apply --check
[ -z "$OUT" ] && _pass "quiet" || _fail "-q printed: $OUT"
tj "--check -J" 1 $U apply --check -J
jcheck "check: would change 3, mode check, consent recorded" \
	'assert d["mode"] == "check" and d["changed"] is True and len(d["changes"]) == 3 and d["failed"] == [] and d["allow_enable"] is True'
t "--dry-run" 0 $U apply --dry-run
has '3 to change'
has 'dry run: nothing changed'
tj "--dry-run -J" 0 $U apply --dry-run -J
jcheck "dry run: the plan" 'assert d["mode"] == "dry-run" and len(d["changes"]) == 3 and d["enables_fast_path"] is True'
sysctls_are 1024 1024 1024

# ---- consent -----------------------------------------------------------------------
printf '[system]\nmin = 60%%\nmax = 80%%\n' >"$C/noconsent.conf"
t "no consent, not a terminal: refused" 3 $U apply --config "$C/noconsent.conf"
has 'refused'
tj "no consent, -J: refused" 3 $U apply --config "$C/noconsent.conf" -J
jcheck "refused: changed false, an error, no consent" 'assert d["changed"] is False and any("refused" in e for e in d["errors"]) and d["allow_enable"] is False'
printf '[fast-path]\nallow-enable = no\n' >"$C/no.conf"
t "allow-enable = no is no consent" 3 $U apply --config "$C/noconsent.conf" --config "$C/no.conf"
sysctls_are 1024 1024 1024

# ---- apply: consent from the config, then idempotence --------------------------------
t "apply with allow-enable = yes" 0 $U apply
has 'changed 3'
sysctls_are 614 819 0
before=$(stamp)
t "second run: no changes" 0 $U apply
has 'nothing to change \(3 already'
[ "$(stamp)" = "$before" ] && _pass "second run wrote nothing" || _fail "second run wrote a sysctl"
t "--check now matches" 0 $U apply --check
has 'no differences'
tj "-J: nothing to change" 0 $U apply -J
jcheck "second run: changed false, no writes" \
	'assert d["changed"] is False and d["changes"] == [] and d["unchanged"] == 3 and set(d["fast_path"]) == {"before", "after"}'
[ "$(stamp)" = "$before" ] && _pass "-J run wrote nothing" || _fail "-J run wrote a sysctl"

# drift, then -J with --yes: exactly the drifted value
echo 700 >"$K/sched_util_clamp_max"
t "--check sees drift" 1 $U apply --check
has 'kernel\.sched_util_clamp_max +util_max +700 +819'
hasnt 'sched_util_clamp_min +util_min '
tj "-J repairs the drift" 0 $U apply -J --config "$C/noconsent.conf" -y
jcheck "one change with target/attribute/from/to" \
	'c = d["changes"]; assert d["changed"] is True and len(c) == 1 and c[0]["target"] == "kernel.sched_util_clamp_max" and c[0]["attribute"] == "util_max" and (c[0]["from"], c[0]["to"]) == (700, 819) and d["failed"] == []'
same "$K/sched_util_clamp_max" 819

# ---- --config: files and directories, later wins ---------------------------------------
mkdir -p "$C/d"
printf '[system]\nmax = 900\n' >"$C/d/50-b.conf"
printf '[system]\nmax = 1000\nmin = 10\n' >"$C/d/40-a.conf"
printf '[fast-path]\nallow-enable = yes\n' >"$C/d/00-consent.conf"
t "--config DIR: name order" 0 $U apply --config "$C/d" --dry-run
has 'kernel\.sched_util_clamp_max +util_max +819 +900'
has 'kernel\.sched_util_clamp_min +util_min +614 +10'
t "--config DIR then FILE: the file wins" 0 $U apply --config "$C/d" --config "$C/noconsent.conf" --dry-run
has 'nothing to change'
t "--config DIR/ that is missing: no files" 0 $U apply --config "$C/noconsent.conf" --config "$C/no-such-dir/" --check
t "--config DIR that is missing: an error" 2 $U apply --config "$C/noconsent.conf" --config "$C/no-such-dir" --check
has 'no-such-dir: cannot read: No such file or directory'
OUT=$(printf '[system]\nmax = 900\n' | $U apply --config /dev/stdin --dry-run 2>&1)
if printf '%s\n' "$OUT" | grep -Eq 'sched_util_clamp_max +util_max +819 +900'; then _pass "--config /dev/stdin"; else _fail "--config /dev/stdin: $OUT"; fi
t "--config a missing file" 2 $U apply --config "$C/missing.conf"
has 'missing\.conf: cannot read: No such file or directory'

# ---- trust: only root's files (or, not as root, our own), writable by no one else ---------
# each refusal: the file named, exit 2, nothing read and nothing changed
printf '[fast-path]\nallow-enable = yes\n[system]\nmax = 900\n' >"$C/trust.conf"
snap=$(cat "$K"/sched_util_clamp_*)
unchanged() { if [ "$(cat "$K"/sched_util_clamp_*)" = "$snap" ]; then _pass "nothing changed"; else _fail "the sysctls changed"; fi; }
refused() {
	t "$1" 2 "${@:3}"
	has "$2"
	has 'nothing changed'
	hasnt 'sched_util_clamp_max +util_max +[0-9]+ +900'
	unchanged
}
me=$(id -u)
chmod 0666 "$C/trust.conf"
refused "a world-writable file" "trust\.conf: not trusted \(owner $me, mode 0666\): make it root-owned and not group/world-writable" $U apply -y --config "$C/trust.conf"
chmod 0664 "$C/trust.conf"
refused "a group-writable file" "trust\.conf: not trusted \(owner $me, mode 0664\)" $U apply -y --config "$C/trust.conf"
chmod 0644 "$C/trust.conf"
t "the same file, 0644: read" 0 $U apply --config "$C/trust.conf" --dry-run
has 'sched_util_clamp_max +util_max +[0-9]+ +900'
mkdir "$C/td"
cp "$C/trust.conf" "$C/td/10-trust.conf"
chmod 0777 "$C/td"
refused "a world-writable drop-in directory" "td: not trusted \(owner $me, mode 0777\)" $U apply -y --config "$C/td"
chmod 01777 "$C/td"
refused "a world-writable sticky drop-in directory" "td/: not trusted \(owner $me, mode 01777\)" $U apply -y --config "$C/td/"
chmod 0755 "$C/td"
chmod 0646 "$C/td/10-trust.conf"
refused "a world-writable drop-in" "10-trust\.conf: not trusted \(owner $me, mode 0646\)" $U apply -y --config "$C/td"
chmod 0644 "$C/td/10-trust.conf"
chmod 0777 "$E/uclampctl.d"
refused "the default drop-in directory, world-writable" "uclampctl\.d: not trusted \(owner $me, mode 0777\)" $U apply -y
chmod 0755 "$E/uclampctl.d"
ln -s no-such.conf "$C/td/20-gone.conf"
refused "a dangling symlink in a drop-in directory" "20-gone\.conf: a dangling symbolic link \(its target 'no-such\.conf' does not exist\)" $U apply -y --config "$C/td"
rm "$C/td/20-gone.conf"
mkfifo "$C/td/30-fifo.conf"
refused "a FIFO in a drop-in directory" "30-fifo\.conf: a FIFO, not a regular file: refused without reading it" $U apply -y --config "$C/td"
rm "$C/td/30-fifo.conf"
mkfifo "$C/fifo.conf"
# nothing writes to the FIFO: opening it for reading would block (timeout: exit 124)
refused "--config FIFO: refused without blocking" "fifo\.conf: a FIFO, not a regular file" timeout 10 $U apply -y --config "$C/fifo.conf"
# /dev/zero would never end; /dev/null is an empty file
refused "--config a device" "/dev/zero: a character device, not a regular file" timeout 10 $U apply -y --config /dev/zero
t "--config /dev/null: an empty file" 0 $U apply --check --config /dev/null
has 'no differences'
if [ "$me" = 0 ]; then
	chown 65534 "$C/trust.conf"
	refused "another user's file" "trust\.conf: not trusted \(owner 65534, mode 0644\)" $U apply -y --config "$C/trust.conf"
	chown 0 "$C/trust.conf"
else
	chmod 0 "$C/td/10-trust.conf"
	refused "an unreadable drop-in" "10-trust\.conf: cannot read: Permission denied" $U apply -y --config "$C/td"
	chmod 0644 "$C/td/10-trust.conf"
fi
mkdir "$C/empty"
t "--config EMPTYDIR: names that directory" 0 $U apply --config "$C/empty" --check
has "no configuration: no \*\.conf in $C/empty: nothing to do"
hasnt 'uclampctl\.conf does not exist'

# ---- a write known to fail: refused before anything is written ------------------------
# rt_default becomes a read-only proc file (cap_last_cap, 0444 even for root):
# every file is checked for writability first, so min and max (which would
# enable the fast path) are never written. (Rollback after a write that fails
# unforeseen: tests/unit/test_exec.c, test_plan_run.c and the VM scenario apply-rollback.)
fake_sysctls 1024 1024 ""
if [ -r /proc/sys/kernel/cap_last_cap ] && ! : 2>/dev/null >/proc/sys/kernel/cap_last_cap; then
	ln -s /proc/sys/kernel/cap_last_cap "$K/sched_util_clamp_min_rt_default"
	cur=$(cat /proc/sys/kernel/cap_last_cap)
	printf '[fast-path]\nallow-enable = yes\n[system]\nmin = 60%%\nmax = 80%%\nrt-default = %d\n' $((cur - 1)) >"$C/fail.conf"
	t "a write would fail: exit 1" 1 $U apply --config "$C/fail.conf"
	has 'sched_util_clamp_min_rt_default: util_min_rt_default: (permission denied|read-only)'
	has 'refused: 1 target\(s\) cannot be written .*nothing changed'
	hasnt 'undone'
	same "$K/sched_util_clamp_min" 1024
	same "$K/sched_util_clamp_max" 1024
	tj "a write would fail: -J" 1 $U apply --config "$C/fail.conf" -J
	jcheck "failed, nothing rolled back, changed false" \
		'assert d["changed"] is False and len(d["failed"]) == 1 and d["failed"][0]["attribute"] == "util_min_rt_default" and d["failed"][0]["error"] and d["rolled_back"] == [] and "cannot be written" in d["errors"][0]'
	same "$K/sched_util_clamp_min" 1024
	rm -f "$K/sched_util_clamp_min_rt_default"
else
	skip_part "/proc/sys/kernel/cap_last_cap is missing or writable here"
fi

# ---- [tasks] rules: one walk, priority, exclude (dry run on real sleepers) -------------
sleep 600 & S1=$!
sleep 600 & S2=$!
sleep 600 & S3=$!
trap 'kill $S1 $S2 $S3 2>/dev/null; rm -rf "${_tmpdirs[@]}"' EXIT
# rule_proc PID NAME UID CMDLINE...: /proc/PID with comm, status, cmdline (NUL-separated)
rule_proc() {
	local pid=$1 name=$2 uid=$3
	shift 3
	mkdir -p "$ROOT/proc/$pid/task/$pid"
	echo "$name" >"$ROOT/proc/$pid/comm"
	printf 'Name:\t%s\nState:\tS (sleeping)\nTgid:\t%s\nPid:\t%s\nPPid:\t1\nUid:\t%s\t%s\t%s\t%s\nGid:\t0\t0\t0\t0\n' \
		"$name" "$pid" "$pid" "$uid" "$uid" "$uid" "$uid" >"$ROOT/proc/$pid/status"
	printf '%s\0' "$@" >"$ROOT/proc/$pid/cmdline"
}
rule_proc "$S1" alpha 4242 /bin/sleep 600
rule_proc "$S2" beta 4343 /bin/sleep 600
rule_proc "$S3" gamma 4242 /bin/sleep 600 --gamma-marker
CUR=$($U task show -r -n -o UTIL_MAX "$S1" 2>/dev/null)
V1=300 V2=400
[ "$CUR" = 300 ] && V1=301
[ "$CUR" = 400 ] && V2=401
cat >"$C/rules.conf" <<EOF
[fast-path]
allow-enable = yes
[tasks mine]
user = 4242, 4343
max = $V1
[tasks beta-more]
comm = bet*
max = $V2
[tasks not-gamma]
cmdline = *--gamma-marker*
exclude = yes
[tasks sleepers]
argv0 = sleep
priority = -1
max = 5
reset-on-fork = yes
EOF
t "[tasks] rules: dry run" 0 $U apply --config "$C/rules.conf" --dry-run
has "^pid $S1 \(alpha\) +util_max +[0-9]+ +$V1 "
has "^pid $S2 \(beta\) +util_max +[0-9]+ +$V2 "	# the later section wins
has "^pid $S1 \(alpha\) +reset_on_fork +no +yes "	# a value no higher rule sets
hasnt "gamma"					# excluded from every rule of equal or lower priority
printf '[tasks sleepers]\nargv0 = sleep\npriority = 1\nmax = 5\n' >"$C/prio.conf"
t "[tasks] rules: a higher priority wins" 0 $U apply --config "$C/rules.conf" --config "$C/prio.conf" --dry-run
has "^pid $S1 \(alpha\) +util_max +[0-9]+ +5 "
has "^pid $S3 \(gamma\) +util_max +[0-9]+ +5 "	# above the exclude
# a kernel without uclamp: the dry run says so in the one wording, not "may enable ... unsupported"
if ! [ -e /proc/sys/kernel/sched_util_clamp_min ]; then
	mkdir -p "$C/saved" && mv "$K"/sched_util_clamp_* "$C/saved/"
	t "[tasks] dry run without uclamp" 0 $U apply --config "$C/prio.conf" --dry-run
	has '^this kernel has no uclamp \(CONFIG_UCLAMP_TASK, Linux 5\.3\+\): cannot be applied$'
	hasnt 'may enable'
	mv "$C/saved"/* "$K/"
fi
# a /proc of another PID namespace (its proc/self names another PID): [tasks]
# are refused before planning, even a dry run; a config without [tasks] is not
ln -s 4242 "$ROOT/proc/self"
t "[tasks] under another namespace's /proc: refused" 1 $U apply --config "$C/rules.conf" --dry-run
has "^uclampctl: refused: /proc belongs to another PID namespace \(it shows this process as PID 4242, which is not its PID here\): .*mount this namespace's /proc"
hasnt "alpha|beta|gamma"
t "[tasks] under another namespace's /proc: -J refused" 1 $U apply --config "$C/rules.conf" -J
has '"changed": false'
printf '[system]\nmax = 1024\n' >"$C/sys-only.conf"
t "no [tasks] under another namespace's /proc: not refused" 0 $U apply --config "$C/sys-only.conf" --dry-run
hasnt "refused"
rm "$ROOT/proc/self"
# a task whose own clamps conflict with a section (a user can raise its own
# util_min and name its task to match): that task is skipped by name, the rest
# is planned, exit 5; never "a configuration error" that vetoes the run. On a
# kernel without uclamp sched_getattr reads util_max 0 here, which a min
# above it conflicts with; the real kernel: tests/vm/scenarios/apply-skip.sh
CURMAX=$($U task show -r -n -o UTIL_MAX "$S1" 2>/dev/null)
if [ -n "$CURMAX" ] && [ "$CURMAX" -lt 1000 ]; then
	fake_sysctls 1024 1024 1024
	printf '[fast-path]\nallow-enable = yes\n[system]\nrt-default = 0\n[tasks alpha]\ncomm = alpha\nmin = %d\n' \
		$((CURMAX + 1)) >"$C/veto.conf"
	t "a task that cannot take the values: skipped, the rest planned" 5 \
		$U apply --config "$C/veto.conf" --dry-run
	has "veto\.conf:5: skipped pid $S1 \(alpha\) of \[tasks alpha\]: its own util_max $CURMAX \(the task's, not the configuration's\) is below the util_min $((CURMAX + 1)) the configuration sets$"
	has '^kernel\.sched_util_clamp_min_rt_default +util_min_rt_default +1024 +0 '
	hasnt "cannot apply|error"
	t "  --check: skipped, not drift" 1 $U apply --config "$C/veto.conf" --check
	hasnt "^pid $S1 "
else
	_pass "skip: task $S1 has util_max ${CURMAX:-?}: no conflict to make without writing"
fi
kill $S1 $S2 $S3 2>/dev/null

# ---- targets that are not there: skipped by name, the rest applied (exit 5) ----------------
# a fake cgroup v2 tree (the test binary's seam) with one group of two
CG=$ROOT/sys/fs/cgroup
mkdir -p "$CG/app"
echo cpu >"$CG/cgroup.controllers"
echo cpu >"$CG/cgroup.subtree_control"
echo 0.00 >"$CG/app/cpu.uclamp.min"
echo max >"$CG/app/cpu.uclamp.max"
fake_sysctls 1024 1024 1024
cat >"$C/skip.conf" <<'EOF'
[fast-path]
allow-enable = yes
[system]
rt-default = 0
[cgroup app]
max = 40%
[cgroup app/not-yet]
max = 30%
[tasks ghosts]
user = no-such-user-uclampctl
max = 300
EOF
UC=(env UCLAMPCTL_TEST_CGROUP2="$CG" "$U")
t "--dry-run: the skipped named, the rest planned" 5 "${UC[@]}" apply --config "$C/skip.conf" --dry-run
has "skip\.conf:7: skipped \[cgroup app/not-yet\]: no cgroup 'app/not-yet' under .* \(not created yet\)$"
has "skip\.conf:10: skipped user no-such-user-uclampctl of \[tasks ghosts\]: no such user on this host: the section matches no task here$"
has '2 to change'
t "--check: skipped is not drift" 1 "${UC[@]}" apply --config "$C/skip.conf" --check
has 'kernel\.sched_util_clamp_min_rt_default +util_min_rt_default +1024 +0'
hasnt 'not-yet +cpu'
t "apply: the rest applied, exit 5" 5 "${UC[@]}" apply --config "$C/skip.conf"
has 'changed 2'
has 'warning: 2 target\(s\) skipped \(named above\), not in the plan: the rest was applied'
same "$K/sched_util_clamp_min_rt_default" 0
same "$CG/app/cpu.uclamp.max" 40.00
t "--check: matches what could be checked, exit 5" 5 "${UC[@]}" apply --config "$C/skip.conf" --check
has '^no differences in what could be checked: 2 value\(s\) match, 2 target\(s\) skipped'
# the metrics say the same: no drift, two skipped
t "status --format=prometheus: skipped is not drift" 0 "${UC[@]}" status --format=prometheus \
	--config "$C/skip.conf" --socket "$C/none.sock"
has '^uclamp_config_drift 0$'
has '^uclamp_config_skipped 2$'
t "-q: only the exit code" 5 "${UC[@]}" -q apply --config "$C/skip.conf"
[ -z "$OUT" ] && _pass "quiet" || _fail "-q printed: $OUT"
tj "-J: the skipped listed" 5 "${UC[@]}" apply --config "$C/skip.conf" -J
jcheck "skipped: file, line, section, target, reason" \
	'k = d["skipped"]; assert d["skipped_total"] == 2 and [(x["line"], x["section"], x["target"]) for x in k] == [(7, "cgroup app/not-yet", "app/not-yet"), (10, "tasks ghosts", "user no-such-user-uclampctl")] and k[0]["file"].endswith("skip.conf") and "not created yet" in k[0]["reason"] and d["changed"] is False'
# the group appears: the next run writes it
mkdir -p "$CG/app/not-yet"
echo 0.00 >"$CG/app/not-yet/cpu.uclamp.min"
echo max >"$CG/app/not-yet/cpu.uclamp.max"
t "the group appeared: applied" 5 "${UC[@]}" apply --config "$C/skip.conf"
same "$CG/app/not-yet/cpu.uclamp.max" 30.00
hasnt 'not-yet.*skipped'
# a value removed from the configuration is not put back (not ours: it could be
# anyone's), and --check says what it does not check
printf '[cgroup app]\nmax = 40%%\n' >"$C/less.conf"
t "a value removed from the configuration: left as it is" 0 "${UC[@]}" apply --config "$C/less.conf"
has 'nothing to change'
same "$K/sched_util_clamp_min_rt_default" 0
t "--check says what it does not manage" 0 "${UC[@]}" apply --config "$C/less.conf" --check
has '^no differences: the host matches the configuration \(1 value\(s\) checked\)$'
has '^not checked: values the configuration does not set \(apply leaves them alone, also one removed from it'
# a broken file is still an error that applies nothing, skips or not
printf '[cgroup app]\nmax = 50%%\n[cgroup gone]\nmax = 1%%\n[system]\nmx = 1\n' >"$C/broken.conf"
t "a configuration error: exit 2, nothing applied" 2 "${UC[@]}" apply --config "$C/broken.conf" -y
same "$CG/app/cpu.uclamp.max" 40.00
fake_sysctls 1024 1024 1024

# ---- no uclamp in the kernel -------------------------------------------------------------
rm -f "$K"/sched_util_clamp_*
t "[system] without uclamp: exit 4" 4 $U apply --config "$C/noconsent.conf" -y
has 'noconsent\.conf:2: \[system\]: the kernel has no uclamp sysctls'
# -J: the fast path's state in the words of status and check ("unsupported"), not "unknown"
if ! [ -e /proc/sys/kernel/sched_util_clamp_min ]; then
	tj "[system] without uclamp, -J: exit 4" 4 $U apply --config "$C/noconsent.conf" -y -J
	jcheck "fast_path says unsupported" \
		'assert d["fast_path"] == {"before": "unsupported", "after": "unsupported"}, d["fast_path"]'
	t "check says the same word" 4 $U check
	has '^unsupported '
fi

finish
