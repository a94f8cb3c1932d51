#!/bin/bash
# uclampctl task show|set|reset and run: the real binary against a fake
# /proc ($UCLAMPCTL_SYSROOT) whose process entries point at real sleeping
# processes, so sched_getattr answers for real. On a kernel without uclamp
# (like a stock Debian one) every write must end in exit 4; on a uclamp
# kernel the writes that would enable the fast path are only planned
# (--dry-run) or refused (no --yes), never made.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/cli/lib.sh"

if [ -e /proc/sys/kernel/sched_util_clamp_min ]; then HOST_UCLAMP=1; else HOST_UCLAMP=0; fi
echo "# host kernel has uclamp: $HOST_UCLAMP"

# Real processes to look at: three sleepers, killed at exit.
sleep 600 & S1=$!
sleep 600 & S2=$!
sleep 600 & S3=$!
sleep 600 & S4=$!
alias_value "$S1" S1; alias_value "$S2" S2; alias_value "$S3" S3; alias_value "$S4" S4
trap 'kill $S1 $S2 $S3 $S4 2>/dev/null; rm -rf "${_tmpdirs[@]}"' EXIT
GHOST=4194305	# above any pid_max: getattr says ESRCH
same_out() { if [ "$OUT" = "$1" ]; then _pass "output is '$1'"; else _fail "output is not '$1'"; fi; }

# fake_proc PID NAME UID [TID...]: /proc/PID with comm, status and task/
fake_proc() {
	local pid=$1 name=$2 uid=$3 tid
	shift 3
	mkdir -p "$ROOT/proc/$pid/task"
	echo "$name" >"$ROOT/proc/$pid/comm"
	printf 'Name:\t%s\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t%s\nNgid:\t0\nPid:\t%s\nPPid:\t1\nTracerPid:\t0\nUid:\t%s\t%s\t%s\t%s\nGid:\t%s\t%s\t%s\t%s\n' \
		"$name" "$pid" "$pid" "$uid" "$uid" "$uid" "$uid" "$uid" "$uid" "$uid" "$uid" >"$ROOT/proc/$pid/status"
	for tid in "$pid" "$@"; do
		mkdir -p "$ROOT/proc/$pid/task/$tid"
		echo "$name" >"$ROOT/proc/$pid/task/$tid/comm"
	done
}

fake_root 1024 1024 1024
fake_release 6.1.0
fake_proc "$S1" alpha 4242 "$S3"	# S3 poses as a second thread of S1
fake_proc "$S2" beta 4343
fake_proc "$GHOST" ghost 4242
# S4 poses as a kernel thread: PF_KTHREAD in the flags of its stat, no cmdline
fake_proc "$S4" kthr 0
printf '%s (kthr) I 2 0 0 0 -1 69238880 0 0 0 0 0 0 0 0 20 0 1 0 50 0 0\n' "$S4" >"$ROOT/proc/$S4/stat"

# The current max of S1 as the kernel reports it (1024 on uclamp, 0 without):
# setting exactly that is a no-op.
CUR_MAX=$("$UCLAMPCTL" task show -r -n -o UTIL_MAX "$S1" 2>/dev/null)
echo "# current util_max of the sleepers: ${CUR_MAX:-?}"
OTHER_MAX=300
[ "$CUR_MAX" = 300 ] && OTHER_MAX=400

# ---- task show ---------------------------------------------------------------------
t "show one PID" 0 "$UCLAMPCTL" task show "$S1"
has "^ *PID +TID +COMM +POLICY +UTIL_MIN +UTIL_MAX +EFF_MIN +EFF_MAX +RESET_ON_FORK$"
has "^ *$S1 +$S1 +alpha +other +[0-9]+ +[0-9]+ +no$"
t "show without PIDs: every process" 0 "$UCLAMPCTL" task show
has "alpha"
has "beta"
hasnt "ghost"			# exited: not listed, not an error
t "show --threads" 0 "$UCLAMPCTL" task show -a "$S1"
has "^ *$S1 +$S3 +alpha "
t "show --comm" 0 "$UCLAMPCTL" task show --all --comm beta
has "beta"
hasnt "alpha"
t "show --user (real uid from status)" 0 "$UCLAMPCTL" task show --all --user 4242 -o PID,COMM -n -r
same_out "$S1 alpha"
t "show --all: no kernel threads" 0 "$UCLAMPCTL" task show --all -o COMM -n -r
hasnt "^kthr$"
has "^alpha$"
t "show --all --kernel-threads" 0 "$UCLAMPCTL" task show --all --kernel-threads -o COMM -n -r
has "^kthr$"
t "show a kernel thread by PID" 0 "$UCLAMPCTL" task show -o COMM -n -r "$S4"
same_out "kthr"
t "show --user twice (any of them)" 0 "$UCLAMPCTL" task show --all --user 4242 --user 4343 -o COMM -n -r
has "^alpha$"
has "^beta$"
t "show --user with commas" 0 "$UCLAMPCTL" task show --all --user 4343,4242 -o COMM -n -r
has "^alpha$"
has "^beta$"
t "show --comm glob" 0 "$UCLAMPCTL" task show --all --comm 'al*' -o COMM -n -r
same_out "alpha"
t "show --policy fifo: none" 0 "$UCLAMPCTL" task show --all --policy SCHED_FIFO -n
same_out ""
t "show effective values from /proc/PID/task/TID/sched" 0 "$UCLAMPCTL" task show -o TID,EFF_MIN,EFF_MAX -n -r "$S2"
has "^$S2 *$"			# no sched file: empty, not zero
printf 'beta (%s, #threads: 1)\n---\neffective uclamp.min                         :                  210\neffective uclamp.max                         :                  819\n' \
	"$S2" >"$ROOT/proc/$S2/task/$S2/sched"
t "show effective values (kernel shows them)" 0 "$UCLAMPCTL" task show -o TID,EFF_MIN,EFF_MAX -n -r "$S2"
same_out "$S2 210 819"
t "show -o +CGROUP" 0 "$UCLAMPCTL" task show -o +CGROUP "$S1"
has "RESET_ON_FORK +CGROUP$"
# CGROUP and --cgroup: the layout is the real one (libcgroup reads the mount
# table), the process's line comes from the fake /proc/PID/cgroup
printf '4:cpu,cpuacct:/\n0::/\n' >"$ROOT/proc/$S1/cgroup"
printf '4:cpu,cpuacct:/elsewhere/x\n0::/elsewhere/x\n' >"$ROOT/proc/$S2/cgroup"
printf '0::/../outside\n' >"$ROOT/proc/$GHOST/cgroup"
if [ "$("$UCLAMPCTL" task show -o CGROUP -n -r "$S1" 2>/dev/null)" = / ]; then
	t "show CGROUP" 0 "$UCLAMPCTL" task show -o PID,CGROUP -n -r "$S1" "$S2"
	has "^$S1 /$"
	has "^$S2 elsewhere/x$"
	t "--cgroup /: the root and every group below" 0 "$UCLAMPCTL" task show --all --cgroup / -o PID -n -r
	has "^$S1$"
	has "^$S2$"
	t "--cgroup: no such group" 2 "$UCLAMPCTL" task set --max 300 --all --cgroup /no-such-group-xyz
	has "invalid --cgroup '/no-such-group-xyz': no such cgroup under /"
	# --cgroup is a glob as in the config; --unit a component of the path
	printf '4:cpu,cpuacct:/system.slice/foo.service\n0::/system.slice/foo.service\n' >"$ROOT/proc/$S2/cgroup"
	t "--cgroup glob" 0 "$UCLAMPCTL" task show --all --cgroup 'system.slice/*.service' -o PID -n -r
	same_out "$S2"
	t "--cgroup glob: '*' does not cross a '/'" 0 "$UCLAMPCTL" task show --all --cgroup '*.service' -o PID -n -r
	same_out ""
	t "--unit: the unit's tasks" 0 "$UCLAMPCTL" task show --all --unit foo.service -o PID -n -r
	same_out "$S2"
	t "--unit: a slice above" 0 "$UCLAMPCTL" task show --all --unit system.slice -o PID -n -r
	same_out "$S2"
	t "--unit: a glob" 0 "$UCLAMPCTL" task show --all --unit 'fo*.service' -o PID -n -r
	same_out "$S2"
	t "--unit: another unit" 0 "$UCLAMPCTL" task show --all --unit bar.service -o PID -n -r
	same_out ""
	t "set --unit --dry-run: only the unit's" 0 "$UCLAMPCTL" task set --max "$OTHER_MAX" -n --all --unit foo.service
	has "beta"
	hasnt "alpha"
	# --unit matches a name, not systemd's unit (uclampctl(8)): a group a user
	# named nginx.service below its delegated subtree matches; a path does not
	g=user.slice/user-1000.slice/user@1000.service/app.slice/nginx.service
	printf '4:cpu,cpuacct:/%s\n0::/%s\n' "$g" "$g" >"$ROOT/proc/$S2/cgroup"
	t "--unit: a user's group of that name, below its delegated subtree" 0 \
		"$UCLAMPCTL" task show --all --unit nginx.service -o PID -n -r
	same_out "$S2"
	t "--cgroup system.slice/*: not the user's group" 0 \
		"$UCLAMPCTL" task show --all --cgroup 'system.slice/*' -o PID -n -r
	same_out ""
	printf '4:cpu,cpuacct:/elsewhere/x\n0::/elsewhere/x\n' >"$ROOT/proc/$S2/cgroup"
else
	skip_part "no cgroup hierarchy with the cpu controller here"
fi
# ---- every selector of the config, spelled the same -----------------------------
ln -s /usr/bin/alpha-bin "$ROOT/proc/$S1/exe"
ln -s /usr/bin/beta-bin "$ROOT/proc/$S2/exe"
printf '/opt/alpha-bin\0--mode\0fast\0' >"$ROOT/proc/$S1/cmdline"
printf 'beta\0--mode\0slow\0' >"$ROOT/proc/$S2/cmdline"
sed -i "s/^PPid:\t1$/PPid:\t$S1/" "$ROOT/proc/$S2/status"	# beta is alpha's child
t "--group" 0 "$UCLAMPCTL" task show --all --group 4343 -o COMM -n -r
same_out "beta"
t "--exe glob" 0 "$UCLAMPCTL" task show --all --exe '/usr/bin/alpha*' -o COMM -n -r
same_out "alpha"
t "--argv0" 0 "$UCLAMPCTL" task show --all --argv0 alpha-bin -o COMM -n -r
same_out "alpha"
t "--cmdline: one glob, spaces kept" 0 "$UCLAMPCTL" task show --all --cmdline '* --mode slow' -o COMM -n -r
same_out "beta"
t "--parent" 0 "$UCLAMPCTL" task show --all --parent alpha -o COMM -n -r
same_out "beta"
t "--comm and --exe: every selector must match" 0 "$UCLAMPCTL" task show --all --comm alpha --exe '*beta*' -o COMM -n -r
same_out ""
t "--comm: a long glob, as the config takes it" 0 "$UCLAMPCTL" task show --all --comm 'alphaaaaaaaaaaaaaaaa*' -o COMM -n -r
same_out ""
t "set --exe --dry-run: only the matching process" 0 "$UCLAMPCTL" task set --max "$OTHER_MAX" -n --all --exe /usr/bin/beta-bin
has "beta"
hasnt "alpha"
t "set: unknown group" 2 "$UCLAMPCTL" task set --max 300 --all --group no-such-group-xyz
has "^uclampctl: --group: unknown group 'no-such-group-xyz'"
t "set: empty --cmdline" 2 "$UCLAMPCTL" task set --max 300 --all --cmdline ''
has "^uclampctl: --cmdline: the value is empty"
t "set: --parent too long" 2 "$UCLAMPCTL" task set --max 300 --all --parent abcdefghijklmnopq
has "^uclampctl: --parent: 'abcdefghijklmnopq' is longer than 15 characters"
t "set: --cgroup with '..'" 2 "$UCLAMPCTL" task set --max 300 --all --cgroup 'a/../b*'
has "^uclampctl: --cgroup: 'a/../b\*' has a '..' component"
t "set: --unit not a unit" 2 "$UCLAMPCTL" task set --max 300 --all --unit nginx
has "^uclampctl: --unit: 'nginx' is not a systemd unit name"
t "show: --unit of a type without a cgroup" 2 "$UCLAMPCTL" task show --all --unit foo.timer
has "^uclampctl: --unit: 'foo.timer' is not a systemd unit name with a cgroup: give a .service"
t "set: --unit with a '/'" 2 "$UCLAMPCTL" task set --max 300 --all --unit system.slice/nginx.service
has "is not a systemd unit name"
t "set: --exe without PIDs or --all" 2 "$UCLAMPCTL" task set --max 300 --exe /usr/bin/beta-bin
has "--exe narrows a selection: give PIDs, or --all"
sed -i "s/^PPid:\t$S1$/PPid:\t1/" "$ROOT/proc/$S2/status"
rm -f "$ROOT/proc/$S1/exe" "$ROOT/proc/$S2/exe" "$ROOT/proc/$S1/cmdline" "$ROOT/proc/$S2/cmdline"

t "show --list-columns" 0 "$UCLAMPCTL" task show --list-columns
for c in PID TID COMM POLICY UTIL_MIN UTIL_MAX EFF_MIN EFF_MAX RESET_ON_FORK CGROUP USER; do has "^ +$c "; done
# what --user selects, as a column
t "show -o user" 0 "$UCLAMPCTL" task show -o PID,USER,COMM "$S1" "$S2"
has "^ *$S1 +$(getent passwd 4242 | cut -d: -f1 | grep . || echo 4242) +alpha$"
has "^ *$S2 +$(getent passwd 4343 | cut -d: -f1 | grep . || echo 4343) +beta$"
tj "show -o user -J" 0 "$UCLAMPCTL" task show -o PID,USER -J "$S1"
is "the owner, by name or uid" 'j["tasks"][0]["user"]' "$(getent passwd 4242 | cut -d: -f1 | grep . || echo 4242)"
t "show -o unknown column" 2 "$UCLAMPCTL" task show -o PID,BOGUS "$S1"
has "unknown column 'BOGUS'"
t "show a missing PID" 1 "$UCLAMPCTL" task show "$S1" 999999999
has "^uclampctl: no such process: 999999999$"	# it only reads: no "nothing changed"
t "show PIDs and --all" 2 "$UCLAMPCTL" task show --all "$S1"
has "PIDs or --all, not both"

if command -v python3 >/dev/null; then
	t "show -J" 0 "$UCLAMPCTL" task show -J "$S1" "$S2"
	JSON=$OUT
	OUT=$(printf '%s' "$JSON" | python3 -c '
import json, sys
d = json.load(sys.stdin)
rows = d["tasks"]
assert len(rows) == 2, rows
for r in rows:
    assert set(r) == {"pid", "tid", "comm", "policy", "util_min", "util_max", "eff_min", "eff_max", "reset_on_fork"}, r
    for k in ("pid", "tid", "util_min", "util_max"):
        assert isinstance(r[k], int), (k, r)
    assert isinstance(r["reset_on_fork"], bool), r
    assert r["policy"] == "other", r
print("json ok", rows[1]["eff_min"], rows[1]["eff_max"], rows[0]["eff_min"])
' 2>&1)
	has "^json ok 210 819 None$"
fi

# EFF_* by the kernel's rule where /proc/PID/sched shows effective clamps
# (here: a fake /proc/self/sched): S1 sits in the root group (fake
# /proc/PID/cgroup above), so its effective max is its request capped by
# kernel.sched_util_clamp_max; -v names the source
mkdir -p "$ROOT/proc/self"
printf 'effective uclamp.min  :  0\neffective uclamp.max  :  1024\n' >"$ROOT/proc/self/sched"
fake_sysctls 1024 800 1024
t "show EFF_* by the rule (-v)" 0 "$UCLAMPCTL" -v task show -o UTIL_MAX,EFF_MAX -n -r "$S1"
has "EFF_MIN/EFF_MAX of 1 task\(s\): the kernel's rule"
read -r umax emax <<<"$(printf '%s\n' "$OUT" | grep -E '^[0-9]+ [0-9]+$')"
if [ -n "$umax" ] && [ "$emax" = "$((umax < 800 ? umax : 800))" ]; then
	_pass "EFF_MAX $emax = min(UTIL_MAX $umax, sysctl 800)"
else
	_fail "EFF_MAX '$emax' is not min(UTIL_MAX '$umax', sysctl 800)"
fi
UCLAMPCTL_EFF=proc t "UCLAMPCTL_EFF=proc: /proc/PID/sched (-v)" 0 "$UCLAMPCTL" -v task show -o EFF_MAX -n -r "$S2"
has "^819$"
has "of 1 task\(s\): /proc/PID/task/TID/sched \(UCLAMPCTL_EFF=proc\)"
rm "$ROOT/proc/self/sched"
fake_sysctls 1024 1024 1024

# ---- kernel support --------------------------------------------------------------
rm "$ROOT/proc/sys/kernel/sched_util_clamp_min" "$ROOT/proc/sys/kernel/sched_util_clamp_max" \
	"$ROOT/proc/sys/kernel/sched_util_clamp_min_rt_default"
if [ "$HOST_UCLAMP" = 0 ]; then
	t "show on a kernel without uclamp" 4 "$UCLAMPCTL" task show "$S1"
	has "^uclampctl: this kernel has no uclamp \(CONFIG_UCLAMP_TASK, Linux 5\.3\+\): "
	hasnt "alpha"			# no table of zeros
	t "set on a kernel without uclamp" 4 "$UCLAMPCTL" task set --max 300 --yes "$S1"
	t "run on a kernel without uclamp" 4 "$UCLAMPCTL" run --max 300 --yes -- echo RAN
	hasnt "RAN"
else
	# sysctls hidden, but the key-neutral probe finds uclamp
	t "show with hidden sysctls (probe)" 0 "$UCLAMPCTL" task show "$S1"
fi
fake_sysctls 1024 1024 1024

# ---- the real /proc, no fake root: this kernel's answer ---------------------------------
OUT=$(env -u UCLAMPCTL_SYSROOT "$UCLAMPCTL" task show $$ 2>&1)
RC=$?
if [ "$HOST_UCLAMP" = 0 ]; then want=4; else want=0; fi
if [ "$RC" = "$want" ]; then _pass "task show on the real /proc (exit $RC)"; else _fail "task show on the real /proc: exit $RC, expected $want"; fi

# ---- bad values: exit 2, one line naming the value, nothing done -------------------------
for v in 1025 -2 abc 50.555% 101% 0x10 '' 5x; do
	for opt in --min --max; do
		t "task set $opt '$v'" 2 "$UCLAMPCTL" task set "$opt" "$v" --yes "$S1"
		has "invalid value '$v' for $opt"
		has "Try 'uclampctl task set --help'"
	done
	t "run --max '$v'" 2 "$UCLAMPCTL" run --max "$v" --yes -- echo RAN
	has "invalid value '$v' for --max"
	hasnt "RAN"
done
t "task set --min=abc (attached)" 2 "$UCLAMPCTL" task set --min=abc "$S1"
has "invalid value 'abc' for --min"

# ---- usage errors -------------------------------------------------------------------------
t "set: nothing to set" 2 "$UCLAMPCTL" task set "$S1"
has "nothing to set"
t "set: no PIDs, no --all" 2 "$UCLAMPCTL" task set --max 300
has "give PIDs, or --all"
t "set: filter without --all" 2 "$UCLAMPCTL" task set --max 300 --comm alpha
has "--comm narrows a selection: give PIDs, or --all"
t "set: PIDs and --all" 2 "$UCLAMPCTL" task set --max 300 --all "$S1"
has "not both"
t "set: min above max" 2 "$UCLAMPCTL" task set --min 600 --max 300 "$S1"
has "--min 600 is above --max 300"
t "set: bad PID" 2 "$UCLAMPCTL" task set --max 300 12abc
has "invalid PID '12abc'"
t "set: PID 0" 2 "$UCLAMPCTL" task set --max 300 0
has "invalid PID '0'"
# white space anywhere is refused alike (strtol would skip a leading TAB)
for bad in " $S1" $'\t'"$S1" $'\n'"$S1" "$S1 " "$S1"$'\t' "+$S1"; do
	t "set: PID '$(printf '%q' "$bad")'" 2 "$UCLAMPCTL" task set --max 300 "$bad"
	has "invalid PID '"
	has "': use a positive decimal process ID"
done
t "set: bad policy" 2 "$UCLAMPCTL" task set --max 300 --all --policy fast
has "--policy: unknown policy 'fast'"
t "set: unknown user" 2 "$UCLAMPCTL" task set --max 300 --all --user no-such-user-xyz
has "unknown user 'no-such-user-xyz'"
t "set: a signed UID" 2 "$UCLAMPCTL" task set --max 300 --all --user +5
has "unknown user '\\+5'"
t "set: comm too long" 2 "$UCLAMPCTL" task set --max 300 --all --comm abcdefghijklmnopq
has "--comm: 'abcdefghijklmnopq' is longer than 15 characters"
t "set: both reset-on-fork options" 2 "$UCLAMPCTL" task set --reset-on-fork --no-reset-on-fork "$S1"
has "exclude each other"
t "set: missing option value" 2 "$UCLAMPCTL" task set "$S1" --max
has "option '--max' needs a value"
t "set: unknown option" 2 "$UCLAMPCTL" task set --frob "$S1"
has "unknown option '--frob'"
t "reset: takes no --min" 2 "$UCLAMPCTL" task reset --min 5 "$S1"
has "takes no --min"
t "reset: no PIDs" 2 "$UCLAMPCTL" task reset
t "run: no command" 2 "$UCLAMPCTL" run --max 300
has "no command to run"
t "run: nothing to set" 2 "$UCLAMPCTL" run -- echo RAN
has "nothing to set"
hasnt "RAN"
t "run: min above max" 2 "$UCLAMPCTL" run --min 900 --max 100 echo RAN
hasnt "RAN"

# ---- missing PIDs: one error naming them, nothing changed ----------------------------
t "set: missing PIDs" 1 "$UCLAMPCTL" task set --max 300 --yes "$S1" 999999998 999999999
has "no such processes: 999999998, 999999999; nothing changed"
hasnt "changed [0-9]"

# ---- no-op: already at the value -> no syscall, no consent needed -------------------------
t "set to the current value (no --yes needed)" 0 "$UCLAMPCTL" task set --max "$CUR_MAX" "$S1" "$S2"
has "nothing to change \(2 already at the requested values\)"
t "reset-on-fork already off: nothing to change" 0 "$UCLAMPCTL" task set --no-reset-on-fork "$S1"
has "nothing to change"

# ---- dry run: the plan, nothing changed ------------------------------------------------------
t "set --dry-run" 0 "$UCLAMPCTL" task set --max "$OTHER_MAX" --dry-run "$S1" "$S2"
has "^TARGET +ATTRIBUTE +FROM +TO +FAST_PATH$"
has "^pid $S1 \(alpha\) +util_max +$CUR_MAX +$OTHER_MAX +enables$"
has "^pid $S2 \(beta\) +util_max "
has "2 to change, 0 unchanged"
has "dry run: nothing changed"
t "set --dry-run --threads" 0 "$UCLAMPCTL" task set --max "$OTHER_MAX" -n -a "$S1"
has "^pid $S1 tid $S3 \(alpha\) +util_max "
# the cgroup layout (libcgroup's init: the mount table, /proc/cgroups, ~0.9 M
# instructions) only for a selector that reads cgroups: --threads does not (the
# values as they are: no plan, so no fast-path check, which may read cgroups)
if command -v strace >/dev/null && strace -o /dev/null true 2>/dev/null; then
	strace -f -e trace=openat,open -o "$ROOT/strace.log" "$UCLAMPCTL" task set --max "$CUR_MAX" -a "$S1" >/dev/null 2>&1
	OUT=$(grep -c '"/proc/cgroups"' "$ROOT/strace.log")
	same_out 0	# set --threads: /proc/cgroups not opened
	strace -f -e trace=openat,open -o "$ROOT/strace.log" "$UCLAMPCTL" task set --max "$CUR_MAX" -a --all --cgroup / >/dev/null 2>&1
	OUT=$(grep -c '"/proc/cgroups"' "$ROOT/strace.log")
	same_out 1	# set --cgroup /: opened once
	rm -f "$ROOT/strace.log"
else
	skip_part "no usable strace (the cgroup layout read only for cgroup selectors)"
fi
t "dry run: --all --comm alpha,beta --user 4343" 0 "$UCLAMPCTL" task set --max "$OTHER_MAX" -n --all --comm alpha,beta --user 4343
has "^pid $S2 \(beta\) "
hasnt "alpha\)"
t "dry run: --all --policy other skips the exited one" 0 "$UCLAMPCTL" task set --min 10 --max "$OTHER_MAX" -n --all --policy other
has "^pid $S1 .*util_min"
has "^pid $S2 .*util_max"
hasnt "ghost|$GHOST"
t "reset-on-fork alone does not enable the fast path" 0 "$UCLAMPCTL" task set --reset-on-fork -n "$S1"
has "^pid $S1 \(alpha\) +reset_on_fork +no +yes +-$"
has "does not enable the uclamp fast path"
t "task reset --dry-run" 0 "$UCLAMPCTL" task reset -n "$S1"
if [ "$HOST_UCLAMP" = 0 ]; then
	has "util_max +0 +default +enables"	# zeros there: max differs from the default 1024
else
	has "nothing to change"
fi
t "run --dry-run: plan, no command" 0 "$UCLAMPCTL" run --max "$OTHER_MAX" -n -- echo RAN
has "util_max .*$OTHER_MAX"
# the task by the name it is about to have (CMD's), not uclampctl's
has "^pid [0-9]+ \(echo\) +util_max "
hasnt "uclampctl"
# -J: the report on stderr (stdout is CMD's), numbers as numbers
if command -v python3 >/dev/null; then
	OUT=$("$UCLAMPCTL" run --max "$OTHER_MAX" -n -J -- echo RAN 2>&1 >/dev/null)
	is "run -J: a report on stderr" 'j["command"], j["outcome"], j["changes"][0]["to"], j["changes"][0]["target"].endswith("(echo)")' \
		"run dry-run $OTHER_MAX True"
	OUT=$("$UCLAMPCTL" run --max "$OTHER_MAX" -n -J -- echo RAN 2>/dev/null)
	[ -z "$OUT" ] && _pass "run -J: nothing on stdout" || _fail "run -J: stdout '$OUT'"
fi
hasnt "^RAN$"

# ---- consent: not a terminal and no --yes -> exit 3, nothing changed -----------------------
# The guard asks only while the fast path may still be off. Without uclamp,
# sched_getattr reads max 0 for every task, which the fast-path detection
# takes as evidence that uclamp is in use: 'already on', nothing to ask, and
# the write then fails with EOPNOTSUPP. A fake root without processes has
# no such evidence: 'run' (which plans on itself) must be refused there.
MAIN_ROOT=$ROOT
fake_root 1024 1024 1024
fake_release 6.1.0
t "run without --yes, no terminal" 3 "$UCLAMPCTL" run --max "$OTHER_MAX" -- echo RAN
has "refused: .*fast path"
has "nothing changed"
hasnt "^RAN$"
t "run: both reset-on-fork options" 2 "$UCLAMPCTL" run --reset-on-fork --no-reset-on-fork -- echo RAN
has "exclude each other"
hasnt "^RAN$"
t "run --reset-on-fork --dry-run on itself" 0 "$UCLAMPCTL" run --max "$CUR_MAX" --reset-on-fork -n -- echo RAN
has "^pid [0-9]+ \(echo\) +reset_on_fork +no +yes +-$"
hasnt "^RAN$"
if [ "$HOST_UCLAMP" = 0 ]; then
	t "run --yes: consent given, then EOPNOTSUPP" 4 "$UCLAMPCTL" run --max "$OTHER_MAX" --yes -- echo RAN
	has "util_max: this kernel has no uclamp \(CONFIG_UCLAMP_TASK"
	hasnt "^RAN$"
fi
# CMD is resolved before the guard and the write: a command that cannot
# start stops 'run' first (here the guard would refuse with 3, the kernel with 4)
t "run: CMD not found, checked before the guard" 127 "$UCLAMPCTL" run --max "$OTHER_MAX" -- /nonexistent/cmd
has "cannot run '/nonexistent/cmd': No such file"
hasnt "refused|fast path"
# a PATH of searchable directories only: like execvp(), an entry this user
# cannot search (root's ~/.cargo/bin for nobody in distcheck) makes it EACCES, 126
t "run --yes: CMD not found, nothing written" 127 env PATH=/usr/bin:/bin "$UCLAMPCTL" run --max "$OTHER_MAX" --yes -- uclampctl-no-such-cmd
has "cannot run 'uclampctl-no-such-cmd'"
hasnt "uclamp support|util_max"
t "run --dry-run: CMD not found" 127 "$UCLAMPCTL" run --max "$OTHER_MAX" -n -- /nonexistent/cmd
hasnt "util_max"
RDIR=$(mktemp -d "${TMPDIR:-/tmp}/uclampctl-run.XXXXXX")
_tmpdirs+=("$RDIR")
mkdir -p "$RDIR/a" "$RDIR/b" "$RDIR/c/ucl-dir"
printf '#!/bin/sh\necho RAN-A\n' >"$RDIR/a/ucl-cmd"
printf '#!/bin/sh\necho RAN-B\n' >"$RDIR/b/ucl-cmd"
chmod 644 "$RDIR/a/ucl-cmd"
chmod 755 "$RDIR/b/ucl-cmd"
t "run: non-executable CMD, path given" 126 "$UCLAMPCTL" run --max "$OTHER_MAX" --yes -- "$RDIR/a/ucl-cmd"
has "Permission denied"
hasnt "uclamp support|util_max"
t "run: CMD is a directory" 126 "$UCLAMPCTL" run --max "$OTHER_MAX" --yes -- "$RDIR/c/ucl-dir"
hasnt "uclamp support|util_max"
t "run: PATH has only a non-executable CMD" 126 env PATH="$RDIR/a:$RDIR/c" "$UCLAMPCTL" run --max "$OTHER_MAX" --yes -- ucl-cmd
has "cannot run 'ucl-cmd': Permission denied"
hasnt "uclamp support|util_max"
t "run: PATH's directory named like CMD" 126 env PATH="$RDIR/c" "$UCLAMPCTL" run --max "$OTHER_MAX" --yes -- ucl-dir
t "run: PATH without CMD" 127 env PATH="$RDIR/c:$RDIR" "$UCLAMPCTL" run --max "$OTHER_MAX" --yes -- ucl-cmd
# like execvp: a runnable one later in PATH is found past a non-executable one
t "run: the executable CMD later in PATH" 0 env PATH="$RDIR/a:$RDIR/b" "$UCLAMPCTL" run --max "$OTHER_MAX" -n -- ucl-cmd
has "util_max"
# what execve() needs besides the file, checked before the guard and the
# write too: a script's interpreter, a binary's loader (PT_INTERP)
printf '#!/nonexistent/ucl-python3\nprint(1)\n' >"$RDIR/b/ucl-script"
chmod 755 "$RDIR/b/ucl-script"
t "run: a script whose interpreter is missing" 127 "$UCLAMPCTL" run --max "$OTHER_MAX" --yes -- "$RDIR/b/ucl-script"
has "cannot run '.*ucl-script': its interpreter /nonexistent/ucl-python3: No such file or directory; nothing changed"
hasnt "uclamp support|util_max"
t "run --dry-run: the same" 127 "$UCLAMPCTL" run --max "$OTHER_MAX" -n -- "$RDIR/b/ucl-script"
# like execvp, a missing interpreter sends the search on along PATH
printf '#!/bin/sh\necho RAN-C\n' >"$RDIR/c/ucl-script"
chmod 755 "$RDIR/c/ucl-script"
t "run: past a script whose interpreter is missing in PATH" 0 env PATH="$RDIR/b:$RDIR/c" "$UCLAMPCTL" run --max "$OTHER_MAX" -n -- ucl-script
if python3 -c 'import sys' 2>/dev/null; then
	python3 "$TESTS_SRCDIR/cli/patch-interp.py" "$RDIR/b/ucl-elf" /nonexistent/ld.so
	chmod 755 "$RDIR/b/ucl-elf"
	t "run: a binary whose loader (PT_INTERP) is missing" 127 "$UCLAMPCTL" run --max "$OTHER_MAX" --yes -- "$RDIR/b/ucl-elf"
	has "its program interpreter \(PT_INTERP\) /nonexistent/ld.so: No such file or directory; nothing changed"
	hasnt "uclamp support|util_max"
fi
ROOT=$MAIN_ROOT
export UCLAMPCTL_SYSROOT=$ROOT
if [ "$HOST_UCLAMP" = 0 ]; then
	t "set without --yes: key 'on' by evidence, then EOPNOTSUPP" 4 "$UCLAMPCTL" task set --max "$OTHER_MAX" "$S1"
	hasnt "refused"
fi
if command -v python3 >/dev/null; then
	# pin the key's state with a crafted kallsyms + kcore: it beats the evidence
	fake_key 0
	t "set without --yes, no terminal, key off" 3 "$UCLAMPCTL" task set --max "$OTHER_MAX" "$S1" "$S2"
	has "^uclampctl: refused: the fast path \(sched_uclamp_used\) turns on until reboot:$"
	has "^wakeups then cost \+3-6% instructions \(measured in an emulator; see uclampctl\(8\)\)$"
	has "nothing changed"
	hasnt "changed [0-9]"
	t "dry run says it would enable the key" 0 "$UCLAMPCTL" task set --max "$OTHER_MAX" -n "$S1"
	has "would enable the uclamp fast path \(sched_uclamp_used is off\)"
	t "task reset without --yes, key off" 3 "$UCLAMPCTL" task reset "$S1"
	# no clamp flag, no key: a real write, on any kernel (our own sleeper)
	t "reset-on-fork alone needs no consent" 0 "$UCLAMPCTL" task set --reset-on-fork "$S1"
	has "changed 1, unchanged 0, gone 0, failed 0"
	t "reset-on-fork is set (sched_getattr)" 0 "$UCLAMPCTL" task show -o RESET_ON_FORK -n -r "$S1"
	same_out yes
	if [ "$(id -u)" = 0 ]; then
		t "and cleared again" 0 "$UCLAMPCTL" task set --no-reset-on-fork "$S1"
		t "reset-on-fork is clear" 0 "$UCLAMPCTL" task show -o RESET_ON_FORK -n -r "$S1"
		same_out no
	else
		# the kernel lets only CAP_SYS_NICE clear it, even on one's own task
		t "clearing it unprivileged: EPERM, explained" 1 "$UCLAMPCTL" task set --no-reset-on-fork "$S1"
		has "reset_on_fork: permission denied \(clearing reset-on-fork needs CAP_SYS_NICE"
		t "reset-on-fork is still set" 0 "$UCLAMPCTL" task show -o RESET_ON_FORK -n -r "$S1"
		same_out yes
	fi
	fake_key 1
	t "key already on: nothing to ask" 0 "$UCLAMPCTL" task set --max "$OTHER_MAX" -n "$S1"
	has "already on"

	# ---- a write that reaches every task of every user asks, the key on or not ----
	# (--all: alpha of uid 4242 and beta of 4343; the kernel thread and the ghost
	# are not among them)
	t "--all, no selector, key on, no terminal: refused" 3 "$UCLAMPCTL" task set --max "$OTHER_MAX" --all
	has "^uclampctl: refused: this reaches every task of every user: 2 task\(s\) of 2 user\(s\)$"
	hasnt "sched_uclamp_used"	# the key is on: its cost is not the question
	has "consent with --yes"
	t "task reset --all: the same" 3 "$UCLAMPCTL" task reset --all
	has "reaches every task of every user: 2 task\(s\) of 2 user\(s\)"
	tj "-J never asks: refused" 3 "$UCLAMPCTL" task set --max "$OTHER_MAX" --all -J
	is "-J: refused, a JSON report" 'j["command"], j["outcome"], j["changed"], j["run"]' "task set refused False None"
	t "--all with a selector is not every user's" 0 "$UCLAMPCTL" task set --max "$OTHER_MAX" --all --user 4242 -n
	hasnt "every task of every user"
	if command -v script >/dev/null; then
		# on a terminal: the count, and the plan with names as --dry-run shows them
		OUT=$(printf 'n\n' | script -qec "$UCLAMPCTL task set --max $OTHER_MAX --all" /dev/null 2>&1)
		has "^pid $S1 \(alpha\) +util_max "
		has "^pid $S2 \(beta\) +util_max "
		has "this reaches every task of every user: 2 task\(s\) of 2 user\(s\)"
		has "Continue\? \[y/N\]"
		has "not confirmed: nothing changed"
		t "clamp unchanged after 'n'" 0 "$UCLAMPCTL" task show -r -n -o UTIL_MAX "$S1"
		same_out "$CUR_MAX"
	else
		skip_part "no script(1): the question on a terminal is not tested"
	fi
	rm -f "$ROOT/proc/kcore" "$ROOT/proc/kallsyms"
fi
t "clamp unchanged afterwards" 0 "$UCLAMPCTL" task show -r -n -o UTIL_MAX "$S1"
same_out "$CUR_MAX"
t "reset of nothing" 0 "$UCLAMPCTL" task reset --all --comm nobody-matches
has "no task matches"

# ---- gone tasks are not errors ---------------------------------------------------------------
t "a task that exited during the walk" 0 "$UCLAMPCTL" task set --max "$OTHER_MAX" --yes --all --comm ghost
has "nothing to change \(0 already at the requested values, some exited\)"

# ---- writes: only on a kernel without uclamp (EOPNOTSUPP -> exit 4) ------------------------
if [ "$HOST_UCLAMP" = 0 ]; then
	t "set --yes: the kernel says EOPNOTSUPP" 4 "$UCLAMPCTL" task set --max "$OTHER_MAX" --yes "$S1" "$S2"
	has "pid $S1 \(alpha\): util_max: this kernel has no uclamp \(CONFIG_UCLAMP_TASK"
	has "changed 0, unchanged 0, gone 0, failed 2"
	# many failures: ten lines, then a count (not one line per task)
	many=()
	for i in $(seq 12); do sleep 600 & many+=($!); fake_proc "$!" many 4242; alias_value "$!" "M$i"; done
	t "set --yes on 12 tasks: EOPNOTSUPP each" 4 "$UCLAMPCTL" task set --max "$OTHER_MAX" --min 1 --yes "${many[@]}"
	n=$(printf '%s\n' "$OUT" | grep -c 'util_min, util_max: this kernel has no uclamp (CONFIG_UCLAMP_TASK')
	[ "$n" = 10 ] && _pass "ten failure lines, both clamps named once per task" || _fail "$n failure lines, expected 10"
	has "\.\.\. and 2 more failure\(s\) like these"
	has "failed 12"
	kill "${many[@]}" 2>/dev/null
	t "run --yes: the kernel says EOPNOTSUPP, CMD not run" 4 "$UCLAMPCTL" run --max "$OTHER_MAX" --yes -- echo RAN
	hasnt "^RAN$"
else
	skip_part "real writes: this kernel has uclamp and they would enable its fast path"
fi

# ---- run: exec, exit codes, stdout stays CMD's --------------------------------------------
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/uclampctl-task.XXXXXX")
_tmpdirs+=("$TMPD")
OUT=$("$UCLAMPCTL" run --max "$CUR_MAX" -- echo hello 2>/dev/null </dev/null)
RC=$?
if [ "$RC" = 0 ] && [ "$OUT" = hello ]; then _pass "run: no-op clamp, CMD runs, stdout is CMD's only"; else _fail "run: exit $RC, stdout '$OUT'"; fi
t "run passes CMD's options and exit status" 7 "$UCLAMPCTL" run --max "$CUR_MAX" sh -c 'exit 7'
t "run: CMD not found" 127 "$UCLAMPCTL" run --max "$CUR_MAX" -- /nonexistent/cmd
has "cannot run '/nonexistent/cmd'"
printf '#!/bin/sh\necho RAN\n' >"$TMPD/noexec"
chmod 644 "$TMPD/noexec"
t "run: CMD not executable" 126 "$UCLAMPCTL" run --max "$CUR_MAX" -- "$TMPD/noexec"
has "Permission denied"

# ---- a /proc of another PID namespace: refused before planning --------------------------
# (unshare -p -f without --mount-proc: /proc/self names another PID; the VM
# scenario pidns-proc proves it on a real namespace)
rm -rf "$ROOT/proc/self"
ln -s 4242 "$ROOT/proc/self"
for cmd in "task set --max 300 --yes $S1" "task reset --yes $S1" "task set --max 300 --dry-run $S1" \
	   "task show $S1" "task show --all" "run --max 300 --yes -- echo RAN"; do
	t "another namespace's /proc: $cmd" 1 "$UCLAMPCTL" $cmd
	has "^uclampctl: refused: /proc belongs to another PID namespace \(it shows this process as PID 4242, which is not its PID here\): its PIDs name other tasks here; mount this namespace's /proc"
	if [ "$(printf '%s\n' "$OUT" | wc -l)" = 1 ]; then _pass "one line"; else _fail "more than one line"; fi
done
rm "$ROOT/proc/self"
t "this namespace's /proc again: task show" 0 "$UCLAMPCTL" task show "$S1"
# a real PID namespace where this host allows one (root), on the real /proc
# (not through t: the PID in the message varies, bad-inputs.md must not)
in_ns() { OUT=$(env -u UCLAMPCTL_SYSROOT unshare -p -f "$@" </dev/null 2>&1); RC=$?; }
if env -u UCLAMPCTL_SYSROOT unshare -p -f true 2>/dev/null; then
	in_ns "$UCLAMPCTL" task set --max 300 --yes 1
	if [ "$RC" = 1 ]; then _pass "unshare -p -f: task set 1 refused (exit 1)"; else _fail "unshare -p -f: exit $RC"; fi
	has "^uclampctl: refused: /proc belongs to another PID namespace \(it shows this process as PID [0-9]+, which is not its PID here\)"
	# control: with the namespace's /proc the check passes (PID 1 is uclampctl itself)
	in_ns --mount-proc "$UCLAMPCTL" task show -r -n -o PID,COMM 1
	if [ "$HOST_UCLAMP" = 1 ]; then want=0; else want=4; fi
	if [ "$RC" = "$want" ]; then _pass "unshare -p -f --mount-proc: task show 1 (exit $RC)"; else _fail "unshare -p -f --mount-proc: exit $RC, expected $want"; fi
	hasnt "refused"
else
	skip_part "no PID namespace for us here (unshare -p -f failed)"
fi

finish
