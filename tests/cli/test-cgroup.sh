#!/bin/bash
# uclampctl cgroup show|set: usage errors and bad values. Cgroup discovery
# reads the real mount table (libcgroup), and the build host has no uclamp
# kernel, so whatever needs cgroup clamp files is tested in the VM
# (tests/vm/scenarios/cg-*.sh); here only what holds on any host.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/cli/lib.sh"

U=$UCLAMPCTL
fake_root 1024 1024 1024

# ---- usage ----------------------------------------------------------------
t "cgroup alone" 2 $U cgroup
t "cgroup --help" 0 $U cgroup --help
has 'cgroup show \[PATH'
has 'floor'
t "unknown subcommand" 2 $U cgroup frob
has "unknown command 'cgroup frob'"
t "set --help" 0 $U cgroup set --help
has 'ANY write'
has 'enable-cpu'
t "show --help" 0 $U cgroup show --help
has 'effective'
t "show --list-columns" 0 $U cgroup show --list-columns
has 'EFF_MIN'
has 'NOTE'

t "set without PATH" 2 $U cgroup set --max 50%
has 'missing PATH'
t "set with two PATHs" 2 $U cgroup set a b --max 50%
has "one PATH only"
t "set without values" 2 $U cgroup set some.slice
has 'nothing to set'
t "set: unknown option" 2 $U cgroup set x --frob
has "unknown option '--frob'"
t "set: option without value" 2 $U cgroup set x --max
has "'--max' needs a value"
t "show: unknown column" 2 $U cgroup show -o CGROUP,NOPE
has "unknown column 'NOPE'"
for bad in 0 -3 abc 12x ''; do
	t "show --pid '$bad'" 2 $U cgroup show --pid "$bad"
	has "invalid PID"
done

# ---- bad values: exit 2 before anything is looked at ----------------------
for bad in 150% bogus -1% 1025 -2 100.01% 12.345% 0x20 '' '50 %'; do
	t "set --min '$bad'" 2 $U cgroup set some.slice --min "$bad" -y
	has "invalid value '$bad' for --min"
	t "set --max '$bad'" 2 $U cgroup set some.slice --max "$bad" -y
	has "invalid value '$bad' for --max"
done

# ---- no uclamp in the (fake) kernel: show says so, exit 4 ------------------
rm -f "$ROOT"/proc/sys/kernel/sched_util_clamp_*
t "show without uclamp" 4 $U cgroup show
has '^uclampctl: this kernel has no uclamp \(CONFIG_UCLAMP_TASK, Linux 5\.3\+\): '
fake_sysctls 1024 1024 1024

# ---- paths: refused when leaving the hierarchy. Without any cpu hierarchy
# on this host (exit 4) there is nothing to resolve against.
if $U cgroup show -n >/dev/null 2>&1; then have_cpu=1 want=2; else have_cpu=0 want=4; fi
for p in ../.. ../../../etc /etc a/../../b; do
	t "set '$p'" $want $U cgroup set "$p" --max 50% -y
	[ $have_cpu = 1 ] && has "refusing cgroup path '$p'"
done
# "/" is the root (as 'cgroup show' names it): the reason is that, not "outside"
for p in / //; do
	t "set '$p': the root" $want $U cgroup set "$p" --max 50% -y
	[ $have_cpu = 1 ] && has "^uclampctl: the root cgroup has no cpu\.uclamp files: for system-wide limits use 'uclampctl system set'$"
	hasnt 'outside'
done
# a group that is not there is a missing target, as a PID is for 'task': exit 1
[ $have_cpu = 1 ] && want_missing=1 || want_missing=4
t "set: no such group" $want_missing $U cgroup set no-such-group-$$ --max 50% -y
[ $have_cpu = 1 ] && has "^uclampctl: no cgroup 'no-such-group-$$'"
hasnt 'Try'
[ $have_cpu = 1 ] && t "show: no such group" 1 $U cgroup show no-such-group-$$
long=$(printf 'a/%.0s' $(seq 2100))	# 4200 bytes: longer than PATH_MAX
t "set: a path longer than PATH_MAX" $want $U cgroup set "$long" --max 50% -y
[ $have_cpu = 1 ] && has "cgroup path 'a/a/a/.*' is too long \(4200 bytes; a path has at most 4095\)"

# --pid reads /proc/PID/cgroup through the fake root: a path that climbs
# out of the namespace is refused; "/" is the root group.
mkdir -p "$ROOT/proc/77" "$ROOT/proc/78"
printf '1:cpu,cpuacct:/../../x\n0::/../../x\n' >"$ROOT/proc/77/cgroup"
printf '1:cpu,cpuacct:/\n0::/\n' >"$ROOT/proc/78/cgroup"
if [ $have_cpu = 1 ]; then
	t "show --pid outside the namespace" 1 $U cgroup show --pid 77
	has 'outside'
	t "show --pid in the root" 0 $U cgroup show --pid 78 -o PATH,NOTE
	has '^/ +root cgroup'
	t "show --pid of no process" 2 $U cgroup show --pid 79
	has 'no process with PID 79'
	t "set: the root cgroup" 2 $U cgroup set . --max 50% -y
	has "use 'uclampctl system set'"
	t "show --json" 0 $U cgroup show -J -o CGROUP,EFF_MIN,EFF_MAX
	has '"eff_min": 1024'
	# the root's effective values are the system clamps (min capped by max)
	fake_sysctls 600 300 1024
	t "root effective values from the sysctls" 0 $U cgroup show . -o PATH,EFF_MIN,EFF_MAX -r -n
	has '^/ 300 300$'
else
	skip_part "no usable cpu cgroup hierarchy on this host"
fi

finish
