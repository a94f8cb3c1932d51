# The command line's selectors on the real kernel, spelled as the config's
# [tasks] keys (one selector table): each against a process it must clamp
# and one it must leave alone: --user, --group, --exe, --argv0, --cmdline,
# --parent, --cgroup (a glob) and --unit (a systemd unit's cgroup, or a
# slice above it). Bad values: exit 2, nothing written, the key stays off.
# vm-timeout: 900
. "$(dirname "$0")/../lib.sh"
T=$(mktemp -d)
chmod 755 "$T"
for n in a b c d e f g; do cp /bin/sleep "$T/ut-$n"; done
cp /bin/bash "$T/ut-parent"
expect_key 0 "right after boot"

NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
"$T/ut-a" 600 & A_ROOT=$!
"${NOBODY[@]}" "$T/ut-a" 600 & A_NOBODY=$!
mkdir -p /sys/fs/cgroup/system.slice/ut-foo.service /sys/fs/cgroup/ut.slice/ut-bar.service \
	/sys/fs/cgroup/ut-other
sh -c "echo \$\$ >/sys/fs/cgroup/system.slice/ut-foo.service/cgroup.procs; exec $T/ut-b 600" & B_UNIT=$!
sh -c "echo \$\$ >/sys/fs/cgroup/ut.slice/ut-bar.service/cgroup.procs; exec $T/ut-b 600" & B_SLICE=$!
sh -c "echo \$\$ >/sys/fs/cgroup/ut-other/cgroup.procs; exec $T/ut-b 600" & B_OTHER=$!
(exec -a ut-argv0 "$T/ut-c" 600) & C_ARGV0=$!
"$T/ut-c" 600 & C_PLAIN=$!
"$T/ut-d" 600 0.777 & D_CMD=$!
"$T/ut-d" 600 & D_PLAIN=$!
"$T/ut-parent" -c "$T/ut-e 600; :" & PARENT=$!
"$T/ut-e" 600 & E_PLAIN=$!
"$T/ut-f" 600 & F_EXE=$!
cp /bin/sleep /tmp/ut-f
/tmp/ut-f 600 & F_OTHER=$!
"$T/ut-g" 600 & G_ROOT=$!
setpriv --regid=65534 --clear-groups "$T/ut-g" 600 & G_NOGROUP=$!
sleep 1
E_CHILD=$(pgrep -P "$PARENT" -x ut-e)
check "the parent's child started" test -n "$E_CHILD"
check "ut-b sits in the unit" grep -q "ut-foo.service" /proc/$B_UNIT/cgroup

want() {	# want PID "min max" what
	check "$3: pid $1 has '$2' ($(tclamp "$1"))" test "$(tclamp "$1")" = "$2"
}

# ---- bad values: refused before anything is read or written ---------------------
expect_rc 2 uclampctl task set --all --unit ut-foo --max 300 --yes
expect_out "--unit: 'ut-foo' is not a systemd unit name"
expect_rc 2 uclampctl task set --all --unit system.slice/ut-foo.service --max 300 --yes
expect_rc 2 uclampctl task set --all --group no-such-group-xyz --max 300 --yes
expect_out "--group: unknown group 'no-such-group-xyz'"
expect_rc 2 uclampctl task set --all --cgroup 'ut.slice/../x' --max 300 --yes
expect_out "has a '..' component"
expect_rc 2 uclampctl task set --all --parent abcdefghijklmnopq --max 300 --yes
expect_key 0 "after the refused values"
want $B_UNIT "0 1024" "nothing written by a refusal"

# ---- each selector picks its process, and only it --------------------------------
expect_rc 0 uclampctl task set --all --comm ut-a --user nobody --max 301 --yes
expect_key 1 "after the first clamp"
want $A_NOBODY "0 301" "--user nobody"
want $A_ROOT "0 1024" "--user: root's ut-a left alone"
expect_rc 0 uclampctl task set --all --unit ut-foo.service --max 302 --yes
want $B_UNIT "0 302" "--unit ut-foo.service"
want $B_SLICE "0 1024" "--unit: another unit's ut-b left alone"
want $B_OTHER "0 1024" "--unit: a plain group's ut-b left alone"
expect_rc 0 uclampctl task set --all --unit ut.slice --max 303 --yes
want $B_SLICE "0 303" "--unit ut.slice: the services under the slice"
want $B_UNIT "0 302" "--unit ut.slice: system.slice's left alone"
expect_rc 0 uclampctl task set --all --cgroup '*/ut-*.service' --comm ut-b --max 304 --yes
want $B_UNIT "0 304" "--cgroup glob */ut-*.service"
want $B_SLICE "0 304" "--cgroup glob: the other slice's service too"
want $B_OTHER "0 1024" "--cgroup glob: ut-other left alone"
expect_rc 0 uclampctl task set --all --argv0 ut-argv0 --max 305 --yes
want $C_ARGV0 "0 305" "--argv0 ut-argv0"
want $C_PLAIN "0 1024" "--argv0: plain ut-c left alone"
expect_rc 0 uclampctl task set --all --cmdline '*/ut-d 600 0.777' --max 306 --yes
want $D_CMD "0 306" "--cmdline, one glob with spaces"
want $D_PLAIN "0 1024" "--cmdline: the other ut-d left alone"
expect_rc 0 uclampctl task set --all --comm ut-e --parent ut-parent --max 307 --yes
want "$E_CHILD" "0 307" "--parent ut-parent"
want $E_PLAIN "0 1024" "--parent: ut-e of another parent left alone"
expect_rc 0 uclampctl task set --all --exe "$T/ut-f" --max 308 --yes
want $F_EXE "0 308" "--exe path"
want $F_OTHER "0 1024" "--exe: the same program elsewhere left alone"
expect_rc 0 uclampctl task set --all --comm ut-g --group 0 --max 309 --yes
want $G_ROOT "0 309" "--group 0"
want $G_NOGROUP "0 1024" "--group: ut-g of group 65534 left alone"
expect_rc 0 uclampctl task show --all --unit ut-foo.service -o PID -r -n
expect_out "^$B_UNIT$"

kill $A_ROOT $A_NOBODY $B_UNIT $B_SLICE $B_OTHER $C_ARGV0 $C_PLAIN $D_CMD $D_PLAIN $PARENT \
	$E_PLAIN $F_EXE $F_OTHER $G_ROOT $G_NOGROUP 2>/dev/null
pkill -x ut-e
done_scenario
