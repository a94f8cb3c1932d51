#!/bin/bash
# uclampctl system show|set against a fake root (UCLAMPCTL_SYSROOT).
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/cli/lib.sh"

U=$UCLAMPCTL
fake_root
K=$ROOT/proc/sys/kernel
json_ok() { if command -v python3 >/dev/null; then printf '%s\n' "$OUT" | python3 -c 'import json,sys; json.load(sys.stdin)'; fi; }

# ---- show -----------------------------------------------------------------
fake_sysctls 128 1024 1024
t "show" 0 $U system show
has '^util_min +128 +12\.50% +kernel\.sched_util_clamp_min$'
has '^util_max +1024 +100\.00%'
has '^util_min_rt_default +1024 +100\.00%'
t "show --json" 0 $U system show --json
has '"knob": "util_min"'
has '"value": 128'
has '"percent": "12.50%"'
if json_ok; then _pass "show --json parses"; else _fail "show --json is not JSON"; fi
t "show -o KNOB,VALUE -n -r" 0 $U system show -o KNOB,VALUE -n -r
has '^util_min 128$'
hasnt 'KNOB|%'
t "show -o with an unknown column" 2 $U system show -o KNOB,BOGUS
has "unknown column 'BOGUS'"
t "show --list-columns" 0 $U system show --list-columns
has 'MEANING'
t "show with an argument" 2 $U system show extra
t "system --help explains the knobs" 0 $U system --help
has 'LIMIT on every task'
has 'RT tasks'
t "system alone is a usage error" 2 $U system
t "unknown subcommand" 2 $U system frob

# before 5.9: no rt_default
fake_sysctls 0 1024 ""
t "show without rt_default" 0 $U system show
has '^util_min_rt_default +kernel\.sched_util_clamp_min_rt_default +unavailable'
t "show --json without rt_default" 0 $U system show -J
has '"value": null'
if json_ok; then _pass "JSON parses with a null value"; else _fail "JSON broken with an absent knob"; fi
t "set --rt-default before 5.9" 4 $U system set --rt-default 0 -y
has 'older than 5\.9'
[ -e "$K/sched_util_clamp_min_rt_default" ] && _fail "rt_default created" || _pass "rt_default not created"

# no uclamp at all
rm -f "$K"/sched_util_clamp_*
t "show without uclamp" 4 $U system show
has '^uclampctl: this kernel has no uclamp \(CONFIG_UCLAMP_TASK, Linux 5\.3\+\): '
t "set without uclamp" 4 $U system set --min 0 -y
has '^uclampctl: this kernel has no uclamp \(CONFIG_UCLAMP_TASK, Linux 5\.3\+\): '

# ---- set: ordering, equal values, consent -----------------------------------
fake_sysctls 0 512 1024
t "dry run: raise min above the current max" 0 $U system set --min 800 --max 1024 --dry-run
has 'dry run: nothing changed'
has '2 to change'
# a row names the sysctl once: TARGET the sysctl, ATTRIBUTE the knob
has '^kernel\.sched_util_clamp_max +util_max +512 +1024 '
hasnt 'sched_util_clamp_m[a-z_]* +sched_util_clamp'
order=$(printf '%s\n' "$OUT" | grep -o 'sched_util_clamp_m[a-z]*' | uniq | tr '\n' ' ')
if [ "$order" = "sched_util_clamp_max sched_util_clamp_min " ]; then _pass "max planned before min"; else _fail "order: $order"; fi
same "$K/sched_util_clamp_min" 0
same "$K/sched_util_clamp_max" 512
# consent: at the defaults nothing shows the fast path is on already (sysctls
# off 1024 would be evidence that it is), so a change needs --yes
fake_sysctls 1024 1024 1024
t "without --yes, not on a terminal: refused" 3 $U system set --min 200 --max 500
has 'refused'
same "$K/sched_util_clamp_min" 1024
same "$K/sched_util_clamp_max" 1024
t "without --yes, one knob: refused" 3 $U system set --rt-default 0
same "$K/sched_util_clamp_min_rt_default" 1024
fake_sysctls 0 512 1024
t "with --yes" 0 $U system set --min 800 --max 1024 --yes
has 'changed 2'
same "$K/sched_util_clamp_min" 800
same "$K/sched_util_clamp_max" 1024

t "dry run: lower max below the current min" 0 $U system set --min 100 --max 200 -n
order=$(printf '%s\n' "$OUT" | grep -o 'sched_util_clamp_m[a-z]*' | uniq | tr '\n' ' ')
if [ "$order" = "sched_util_clamp_min sched_util_clamp_max " ]; then _pass "min planned before max"; else _fail "order: $order"; fi
t "lower both, percent values" 0 $U system set --min 10% --max 19.53% -y
same "$K/sched_util_clamp_min" 102
same "$K/sched_util_clamp_max" 200

t "end state min > max is refused" 2 $U system set --min 900 --max 800 -y
has 'util_min would be 900 above util_max 800'
t "max below the current min is refused" 2 $U system set --max 50 -y
has 'util_min would be 102 \(current\) above util_max 50'
same "$K/sched_util_clamp_min" 102
same "$K/sched_util_clamp_max" 200

# same values: nothing to change, files not even opened for writing (the
# odd spacing would be normalised by a write)
printf ' 102 \n' >"$K/sched_util_clamp_min"
t "same values" 0 $U system set --min 102 --max 200 --rt-default 1024
has 'nothing to change \(3 already'
same "$K/sched_util_clamp_min" ' 102 '
t "same value given as a percentage" 0 $U system set --max 19.53%
has 'nothing to change'
t "default = 1024, equal to rt_default" 0 $U system set --rt-default default
has 'nothing to change'
t "-1 = default" 0 $U system set --rt-default -1
has 'nothing to change'
t "lower the RT boost" 0 $U system set --rt-default 0 -y
same "$K/sched_util_clamp_min_rt_default" 0
t "back to the default" 0 $U system set --rt-default default -y
same "$K/sched_util_clamp_min_rt_default" 1024

# ---- bad input: exit 2, nothing changes -----------------------------------
fake_sysctls 0 1024 1024
for bad in 150% bogus -1% 1025 -2 0x10 12.345% '' ' 5'; do
	t "bad --min '$bad'" 2 $U system set --min "$bad" -y
	has "invalid value '$bad' for --min"
	t "bad --max '$bad'" 2 $U system set --max "$bad" -y
done
t "bad --rt-default" 2 $U system set --rt-default 2000 -y
has "invalid value '2000' for --rt-default"
same "$K/sched_util_clamp_min" 0
same "$K/sched_util_clamp_max" 1024
same "$K/sched_util_clamp_min_rt_default" 1024
t "no values" 2 $U system set -y
has 'nothing to set'
t "stray argument" 2 $U system set 512
t "unknown option" 2 $U system set --frob
has "unknown option '--frob'"
t "option without its value" 2 $U system set --min
has "'--min' needs a value"

# ---- unwritable knobs -------------------------------------------------------
# CI runs as root, for whom mode bits mean little; /proc/sys files with mode
# 0444 are refused even to root (procfs checks the mode itself), so a knob
# that is a symlink to one is unwritable for everyone.
ro=/proc/sys/kernel/cap_last_cap
if [ -r "$ro" ]; then
	fake_sysctls 0 1024 1024
	rm "$K/sched_util_clamp_max"
	ln -s "$ro" "$K/sched_util_clamp_max"
	capmax=$(cat "$ro")
	t "unwritable knob: refused before consent or writes" 1 $U system set --min 10 --max 20 -y
	has 'cannot write /proc/sys/kernel/sched_util_clamp_max: (permission denied|/proc/sys is read-only).*nothing changed'
	same "$K/sched_util_clamp_min" 0
	same "$ro" "$capmax"
	t "unwritable knob, dry run still shows the plan" 0 $U system set --min 10 --max 20 -n
	has 'dry run'
else
	skip_part "no $ro"
fi

# A write that fails after an earlier one succeeded: the earlier one is
# restored. The min knob points at /proc/self/oom_score_adj (the uclampctl
# process's own), which reads 0, passes the writability check and refuses
# 1024 (its range is -1000..1000) with EINVAL, as a kernel might refuse.
adj=/proc/self/oom_score_adj
if [ -w "$adj" ]; then
	rm -f "$K"/sched_util_clamp_*
	fake_sysctls 0 512 1024
	rm "$K/sched_util_clamp_min"
	ln -s "$adj" "$K/sched_util_clamp_min"
	t "second write fails: the first is undone" 1 $U system set --min 1024 --max 1024 -y
	has 'sched_util_clamp_min: util_min: Invalid argument'
	has '1 change\(s\) undone'
	same "$K/sched_util_clamp_max" 512
fi

finish
