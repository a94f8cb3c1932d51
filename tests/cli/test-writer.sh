#!/bin/bash
# What every writing command holds: the uclampctl lock (one writer at a time,
# --wait) in a fake root, and the checks made before consent is asked (every
# file of an atomic plan must be writable: nothing is written otherwise).
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/cli/lib.sh"

U=$UCLAMPCTL
fake_root
mkdir -p "$ROOT/run"
K=$ROOT/proc/sys/kernel
LOCK=$ROOT/run/uclampctl/lock
fake_sysctls 1024 1024 1024

# ---- --wait ---------------------------------------------------------------------
t "--wait: not a number" 2 $U --wait soon system set --min 10 -y
has "invalid value 'soon' for --wait: use whole seconds"
t "--wait: negative" 2 $U --wait -1 system set --min 10 -y
t "--wait: too long" 2 $U --wait 86401 system set --min 10 -y
same "$K/sched_util_clamp_min" 1024
t "--help names --wait" 0 $U --help
has '--wait <s>'

# ---- a free lock is taken and given back ------------------------------------------
t "a write with a free lock" 0 $U system set --min 512 -y
same "$K/sched_util_clamp_min" 512
if [ -f "$LOCK" ]; then _pass "the lock file exists"; else _fail "no lock file at $LOCK"; fi
t "the next write gets it again" 0 $U --wait 0 system set --min 500 -y
same "$K/sched_util_clamp_min" 500

# ---- a held lock: one line naming the holder, then give up (nothing changed) -----------
hold() {
	python3 -c 'import fcntl, os, sys, time
f = open(sys.argv[1], "a+")
fcntl.flock(f, fcntl.LOCK_EX)
f.truncate(0); f.write("%d\n" % os.getpid()); f.flush()
time.sleep(600)' "$LOCK" &
	H=$!
	for _ in $(seq 100); do [ "$(cat "$LOCK" 2>/dev/null)" = "$H" ] && return; sleep 0.05; done
	echo "# the holder did not take the lock"
}
hold
alias_value "$H" HOLDER
# the holder by its name, whatever it is, escaped: a name cannot drive the terminal
mkdir -p "$ROOT/proc/$H"
printf 'evil\033[2J\r\n' >"$ROOT/proc/$H/comm"
t "--wait 0: gives up at once" 1 $U --wait 0 system set --min 300 -y
# no "waiting ... up to 0 s": it does not wait
hasnt 'waiting'
has "^uclampctl: PID $H \(evil\\\\x1b\[2J\\\\x0d\) holds the uclampctl lock and --wait is 0: gave up at once; nothing changed$"
if printf '%s' "$OUT" | grep -q $'\033'; then _fail "an escape byte reached the terminal"; else _pass "no escape byte in the output"; fi
same "$K/sched_util_clamp_min" 500
# it waits --wait seconds at least, then gives up on its own: the holder (600 s)
# still holds the lock when it returns. No upper bound on wall time: a loaded
# machine may take any time to run it, and that is not what is tested.
start=$(date +%s)
t "--wait 1: gives up after a second" 1 $U --wait 1 task set --max 50% --all -y
end=$(date +%s)
if [ $((end - start)) -ge 1 ]; then _pass "waited 1 s at least"; else _fail "waited $((end - start)) s"; fi
if kill -0 "$H" 2>/dev/null && [ "$(cat "$LOCK")" = "$H" ]; then
	_pass "gave up while the holder still held the lock"
else
	_fail "the holder is gone: no telling whether it gave up or got the lock"
fi
has "gave up after 1 s: PID $H .* still holds the uclampctl lock; nothing changed"
n=$(printf '%s\n' "$OUT" | grep -c 'waiting for the uclampctl lock')
if [ "$n" = 1 ]; then _pass "said 'waiting' once"; else _fail "said 'waiting' $n times"; fi
t "-q: only the give-up line" 1 $U -q --wait 0 system set --min 300 -y
hasnt 'waiting'
has 'gave up'

# reading and planning take no lock
t "system show: no lock" 0 $U --wait 0 system show
t "system set --dry-run: no lock" 0 $U --wait 0 system set --min 300 -n
has 'dry run: nothing changed'
printf '[system]\nmin = 40%%\n' >"$ROOT/c.conf"
t "apply --check: no lock" 1 $U --wait 0 apply --check --config "$ROOT/c.conf"
has 'differs'
t "apply --dry-run: no lock" 0 $U --wait 0 apply --dry-run --config "$ROOT/c.conf"
t "apply: takes the lock" 1 $U --wait 0 apply -y --config "$ROOT/c.conf"
has 'holds the uclampctl lock and --wait is 0'
same "$K/sched_util_clamp_min" 500

# the holder finishes while we wait: the second writer goes on
(sleep 1; kill $H) &
t "waits, then writes" 0 $U --wait 20 system set --min 300 -y
has "waiting for the uclampctl lock held by PID $H"
same "$K/sched_util_clamp_min" 300
wait

# ---- the question shows the plan above [y/N] (a terminal through script(1))
fake_key 0	# the key reads off: a change would enable it, so it asks
if command -v script >/dev/null; then
	OUT=$(printf 'n\n' | script -qec "$U system set --min 200 --max 900" /dev/null 2>&1)
	order=$(printf '%s\n' "$OUT" | grep -nE 'sched_util_clamp_min +util_min +300 +200|Continue\? \[y/N\]' | cut -d: -f1 | tr '\n' ' ')
	if printf '%s\n' "$OUT" | grep -q 'Continue? \[y/N\]' && [ "$(echo $order | wc -w)" = 2 ] &&
		[ "${order%% *}" -lt "$(echo $order | cut -d' ' -f2)" ]; then
		_pass "the plan is shown above the question"
	else
		_fail "no plan above the question"
	fi
	has 'sched_util_clamp_max +util_max +1024 +900'
	has 'not confirmed: nothing changed'
	same "$K/sched_util_clamp_min" 300
else
	skip_part "no script(1): the question on a terminal is not tested"
fi

# ---- writability before consent --------------------------------------------------------
# (apply with a read-only rt_default: tests/cli/test-apply.sh; cgroups: the VM
# scenario cg-unwritable)

finish
