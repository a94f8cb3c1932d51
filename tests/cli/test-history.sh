#!/bin/bash
# uclampctl history and undo on a fake root: every write run (system set,
# cgroup set, apply, undo itself) is recorded with what it replaced; undo
# puts back what still holds what the run set and names what changed since
# (a value, a group made again); write commands report as JSON with the
# run's number; a damaged, torn or foreign record is refused or repaired as
# documented. Task clamps need a uclamp kernel: the VM scenario undo-all.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/cli/lib.sh"

U=$UCLAMPCTL
fake_root 1024 1024 1024
fake_release 6.1.0
K=$ROOT/proc/sys/kernel
mkdir -p "$K/random" "$ROOT/run"
echo 11111111-2222-3333-4444-555555555555 >"$K/random/boot_id"
# the record: root's in /run/uclampctl, a user's in its runtime directory
if [ "$(id -u)" = 0 ]; then
	HD=$ROOT/run/uclampctl
else
	export XDG_RUNTIME_DIR=/run/user/$(id -u)
	mkdir -p "$ROOT$XDG_RUNTIME_DIR"
	chmod 700 "$ROOT$XDG_RUNTIME_DIR"
	HD=$ROOT$XDG_RUNTIME_DIR/uclampctl
fi
H=$HD/history
# a cgroup v2 tree of our own (the test binary's seam)
CGR=$ROOT/cg
mkdir -p "$CGR/grp"
echo "cpu" >"$CGR/cgroup.controllers"
echo "cpu" >"$CGR/cgroup.subtree_control"
echo "cpu" >"$CGR/grp/cgroup.controllers"
echo "0.00" >"$CGR/grp/cpu.uclamp.min"
echo "max" >"$CGR/grp/cpu.uclamp.max"
export UCLAMPCTL_TEST_CGROUP2=$CGR
if command -v python3 >/dev/null; then fake_key 1; fi	# on: no question to ask

# ---- nothing yet ----------------------------------------------------------------------
t "history: nothing recorded yet" 0 $U history
has '^no write run recorded since boot$'
t "history -rn: nothing at all" 0 $U history -rn
[ -z "$OUT" ] && _pass "no output" || _fail "output: $OUT"
t "undo: nothing to undo" 1 $U undo
has "^uclampctl: nothing to undo: every run recorded this boot is undone or an undo"

# ---- runs are recorded -----------------------------------------------------------------
t "run 1: system set" 0 $U system set --min 300 -y
t "run 2: system set" 0 $U system set --max 900 -y
t "run 3: cgroup set" 0 $U cgroup set grp --max 40% -y
same "$CGR/grp/cpu.uclamp.max" "40.00"
t "a dry run is not recorded" 0 $U system set --min 100 -n
if [ "$(stat -c '%u %a' "$H")" = "$(id -u) 600" ]; then _pass "the record is the caller's, 0600"; else _fail "the record is $(stat -c '%u %a' "$H")"; fi
t "history lists the runs" 0 $U history
has "^ +1 [0-9-]+ [0-9:]+ +1 done +uclampctl system set --min 300 -y$"
has "^ +2 .* uclampctl system set --max 900 -y$"
has "^ +3 .* uclampctl cgroup set grp --max 40% -y$"
hasnt "--min 100"
t "history RUN: what it replaced" 0 $U history 1
has "^kernel\.sched_util_clamp_min +util_min +1024 +300 +done$"
t "history RUN: a group's" 0 $U history 3
has "^grp +cpu\.uclamp\.max +max +40\.00 +done$"
if command -v python3 >/dev/null; then
	tj "history -J" 0 $U history -J
	is "runs as numbers" '[(r["run"], r["changes"], r["outcome"]) for r in j["runs"]]' \
		"[(1, 1, 'done'), (2, 1, 'done'), (3, 1, 'done')]"
	# a write's report as JSON: numbers as numbers, the run's number
	tj "system set -J" 0 $U system set --min 250 -y -J
	is "-J report" 'j["command"], j["outcome"], j["run"], [(c["from"], c["to"]) for c in j["changes"]]' \
		"system set ok 4 [(300, 250)]"
	is "-J: a tidy report" 'j["changed"], j["unchanged"], j["gone"], j["failed"], j["mode"]' \
		"True 0 0 [] write"
	tj "cgroup set -J --dry-run: a plan, no run" 0 $U cgroup set grp --max 30% -n -J
	is "-J dry run" 'j["outcome"], j["run"], [(c["from"], c["to"]) for c in j["changes"]]' \
		"dry-run None [(40, 30)]"
	tj "undo 4 -J" 0 $U undo 4 -J
	is "undo -J" 'j["command"], j["undoes"], j["run"], j["left_alone"], j["fast_path_stays_on"], [(c["from"], c["to"]) for c in j["changes"]]' \
		"undo 4 5 [] True [(250, 300)]"
	same "$K/sched_util_clamp_min" 300
fi

# ---- undo: the newest run not undone, values back ---------------------------------------
t "undo: the newest run not undone and no undo itself" 0 $U undo
has "^undo of run 3: uclampctl cgroup set grp --max 40% -y$"
has "the uclamp fast path, once on, stays on until reboot"
has "changed 1, unchanged 0"
same "$CGR/grp/cpu.uclamp.max" "max"
t "history: who undid what" 0 $U history
has "^ +3 .* undone by [0-9]+ +uclampctl cgroup set grp --max 40% -y$"
has "undoes 3 +uclampctl undo$"

# ---- a target changed since is left alone and named --------------------------------------
echo 800 >"$K/sched_util_clamp_max"
t "undo 2 after the knob changed: left alone" 1 $U undo 2
has "^uclampctl: kernel\.sched_util_clamp_max: util_max: left alone: changed since run 2 \(it set 900, it is 800 now\)$"
has "^uclampctl: undo of run 2 is not complete: 1 change\(s\) left alone \(named above\)$"
same "$K/sched_util_clamp_max" 800
t "undo 1: min 1024 above the max now: left alone" 1 $U undo 1
has "^uclampctl: kernel\.sched_util_clamp_min: util_min: left alone: putting it back would leave the min above the max \(the other one changed since\)$"
same "$K/sched_util_clamp_min" 300
echo 1024 >"$K/sched_util_clamp_max"
t "undo 1: put back" 0 $U undo 1
same "$K/sched_util_clamp_min" 1024
t "undo 1 again: already back" 0 $U undo 1
has "run 1 was undone by run [0-9]+ already"
has "nothing to change \(1 already at the requested values\)"

# ---- a group removed and made again is another group -------------------------------------
t "run: cgroup set again" 0 $U cgroup set grp --min 20% -y
n=$($U history -rn -o RUN | tail -n 1)
mv "$CGR/grp" "$CGR/grp-old"
mkdir "$CGR/grp"
echo cpu >"$CGR/grp/cgroup.controllers"
echo 20.00 >"$CGR/grp/cpu.uclamp.min"
echo max >"$CGR/grp/cpu.uclamp.max"
t "undo: the group was made again" 1 $U undo "$n"
has "^uclampctl: grp: cpu\.uclamp\.min: left alone: the group was removed and made again since$"
same "$CGR/grp/cpu.uclamp.min" "20.00"

# ---- apply is recorded too ---------------------------------------------------------------
printf '[system]\nmin = 20%%\nmax = 50%%\n' >"$ROOT/c.conf"
t "apply" 0 $U apply --config "$ROOT/c.conf" -y
same "$K/sched_util_clamp_min" 205
same "$K/sched_util_clamp_max" 512
size=$(stat -c %s "$H")
t "undo --dry-run: the plan, nothing done" 0 $U undo -n
has "^kernel\.sched_util_clamp_max +util_max +512 +1024 "
has "^kernel\.sched_util_clamp_min +util_min +205 +1024 "
has "dry run: nothing changed"
[ "$(stat -c %s "$H")" = "$size" ] && _pass "a dry run leaves the record alone" || _fail "the record grew"
same "$K/sched_util_clamp_max" 512
t "undo of apply" 0 $U undo
has "^undo of run [0-9]+: uclampctl apply --config .*c\.conf -y$"
same "$K/sched_util_clamp_min" 1024
same "$K/sched_util_clamp_max" 1024

# ---- bad input -------------------------------------------------------------------------
t "undo of a run not recorded" 1 $U undo 999
has "^uclampctl: no run 999 in the record \('uclampctl history' lists them\)$"
t "undo: not a number" 2 $U undo soon
has "^uclampctl: invalid run 'soon': give a run's number"
t "undo: two runs" 2 $U undo 1 2
t "history: not a number" 2 $U history 0x1

# ---- the record as hostile input -----------------------------------------------------------
cp "$H" "$ROOT/good"
# a last record cut short (a crash while it was written): left out, then repaired
printf 'UCH1\x40\0\0\0\1\2\3\4abc' >>"$H"
t "history: a torn last record is left out" 0 $U history
has "warning: the record's last entry was cut short"
t "the next write repairs it" 0 $U system set --min 310 -y
t "history: whole again" 0 $U history
hasnt "cut short"
has "uclampctl system set --min 310 -y$"
# a damaged record: refused with the reason, never used; a write goes on without it
cp "$ROOT/good" "$H"
printf 'X' | dd of="$H" bs=1 seek=60 conv=notrunc status=none
t "history: a damaged record is refused" 1 $U history
has "^uclampctl: the record is not used: .*history: damaged: the record at byte 51 has a bad frame \(magic, length or checksum\); remove it to start a new one$"
t "undo: refused too" 1 $U undo 1
same "$K/sched_util_clamp_min" 310
printf 'X' | dd of="$H" bs=1 seek=51 conv=notrunc status=none
t "a write with a damaged record: done, not recorded" 0 $U system set --min 320 -y
has "warning: not recorded, so 'uclampctl undo' cannot put this run back: .*damaged"
same "$K/sched_util_clamp_min" 320
# another user could have written it: never trusted
cp "$ROOT/good" "$H"
chmod 0666 "$H"
t "history: a record others can write is refused" 1 $U history
has "^uclampctl: refused to read the record: .*history: it is writable by group or others \(mode 0666\): a record another user could have written is never trusted; remove it to start a new one$"
chmod 0600 "$H"
if [ "$(id -u)" = 0 ]; then
	chown 4242 "$H"
	t "history: a record of another owner is refused" 1 $U history
	has "it is owned by uid 4242, not uid 0"
	chown 0 "$H"
	# root's record is root's alone: not where the environment points
	t "root: the environment does not move the record" 0 env XDG_RUNTIME_DIR=/elsewhere $U history
	has "uclampctl system set --min 300 -y"
else
	t "a user without a runtime directory: no record" 1 env -u XDG_RUNTIME_DIR $U history
	has "no record of this user's runs: no place for a user's record: XDG_RUNTIME_DIR is not set"
fi
chmod 0777 "$HD"
t "history: a directory others can write is refused" 1 $U history
has "its directory is writable by group or others \(mode 0777\)"
chmod 0755 "$HD"
ln -sf /etc/passwd "$H"
t "history: a symbolic link is refused" 1 $U history
has "it is a symbolic link"
rm -f "$H"
t "history: a record removed is a new one" 0 $U history
finish
