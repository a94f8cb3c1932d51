# Every [tasks] selector on the real kernel, each against a process it must
# clamp and one it must leave alone: user, group, cgroup, exe, argv0,
# cmdline, parent, exclude, rt, kernel-threads; and the command line's
# --kernel-threads. First 'watch --dry-run' on the same rules: it writes
# nothing, counts what it would write, and the key stays off.
# vm-timeout: 300
. "$(dirname "$0")/../lib.sh"
T=$(mktemp -d)
chmod 755 "$T"	# nobody runs programs from here
for n in a b c d e f g h i; do cp /bin/sleep "$T/uc-$n"; done
cp /bin/bash "$T/uc-parent"
expect_key 0 "right after boot"

# an array, not a function: "$!" must be the program's PID, not a subshell's
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
"$T/uc-a" 600 & A_ROOT=$!
"${NOBODY[@]}" "$T/uc-a" 600 & A_NOBODY=$!
mkdir /sys/fs/cgroup/ucsel
sh -c "echo \$\$ >/sys/fs/cgroup/ucsel/cgroup.procs; exec $T/uc-b 600" & B_IN=$!
"$T/uc-b" 600 & B_OUT=$!
"$T/uc-d" 600 & D=$!
(exec -a uc-argv0 "$T/uc-c" 600) & C_ARGV0=$!
"$T/uc-c" 600 & C_PLAIN=$!
"$T/uc-e" 600 0.777 & E_CMD=$!
"$T/uc-e" 600 & E_PLAIN=$!
"$T/uc-parent" -c "$T/uc-f 600; :" & PARENT=$!
"$T/uc-f" 600 & F_PLAIN=$!
"$T/uc-g" 600 & G_ROOT=$!
"${NOBODY[@]}" "$T/uc-g" 600 & G_NOBODY=$!
chrt -f 10 "$T/uc-h" 600 & H_RT=$!
chrt -f 10 "$T/uc-i" 600 & I_RT=$!
sleep 1
check "nobody's programs run as nobody" test "$(stat -c %u /proc/$A_NOBODY /proc/$G_NOBODY)" = "65534
65534"
check "and are what they should be" test "$(cat /proc/$A_NOBODY/comm /proc/$G_NOBODY/comm)" = "uc-a
uc-g"
F_CHILD=$(pgrep -P "$PARENT" -x uc-f)
check "the parent's child started" test -n "$F_CHILD"
KSWAPD=$(pgrep -x kswapd0 | head -1)
check "kswapd0 is there" test -n "$KSWAPD"

consented_conf "$T/sel.conf" <<CONF

[tasks by-user]
comm = uc-a
user = nobody
max = 301

[tasks by-cgroup]
comm = uc-b
cgroup = ucsel
max = 302

[tasks by-exe]
exe = */uc-d
max = 303

[tasks by-argv0]
argv0 = uc-argv0
max = 304

[tasks by-cmdline]
cmdline = * 0.777
max = 305

[tasks by-parent]
comm = uc-f
parent = uc-parent
max = 306

[tasks uc-g-all]
comm = uc-g
max = 307

[tasks keep-nobody-out]
comm = uc-g
group = 65534
exclude = yes

[tasks rt-not-asked]
comm = uc-h
min = 100
max = 400

[tasks rt-asked]
comm = uc-i
rt = yes
min = 100
max = 400

[tasks kthread-not-asked]
comm = kswapd0
max = 500
CONF

# ---- watch --dry-run: the same rules, nothing written ---------------------------
"$UCLAMPCTL" watch --dry-run -c "$T/sel.conf" --socket "$T/s.sock" >"$T/dry.log" 2>&1 & W=$!
for _ in $(seq 300); do "$UCLAMPCTL" watch status --socket "$T/s.sock" >/dev/null 2>&1 && break; sleep 0.1; done
expect_rc 0 uclampctl watch status -J --socket "$T/s.sock"
expect_out '"would_apply": 8,'
expect_out '"applied": 0,'
kill -TERM $W
wait $W
check "watch --dry-run: exit 0" test $? = 0
check "its log says what it would do" grep -q "dry-run: would set " "$T/dry.log"
expect_key 0 "after watch --dry-run"
check "the dry run wrote nothing (uc-a of nobody still 0 1024)" test "$(tclamp $A_NOBODY)" = "0 1024"

# ---- apply: each selector picks its process, and only it -----------------------
expect_rc 0 uclampctl apply --config "$T/sel.conf"
expect_key 1 "after apply"
want() {	# want PID "min max" what
	check "$3: pid $1 has '$2' ($(tclamp "$1"))" test "$(tclamp "$1")" = "$2"
}
want $A_NOBODY "0 301" "user = nobody"
want $A_ROOT "0 1024" "user: root's uc-a left alone"
want $B_IN "0 302" "cgroup = ucsel"
want $B_OUT "0 1024" "cgroup: uc-b outside it left alone"
want $D "0 303" "exe = */uc-d"
want $C_ARGV0 "0 304" "argv0 = uc-argv0"
want $C_PLAIN "0 1024" "argv0: plain uc-c left alone"
want $E_CMD "0 305" "cmdline = * 0.777"
want $E_PLAIN "0 1024" "cmdline: the other uc-e left alone"
want "$F_CHILD" "0 306" "parent = uc-parent"
want $F_PLAIN "0 1024" "parent: uc-f of another parent left alone"
want $G_ROOT "0 307" "group: root's uc-g clamped"
want $G_NOBODY "0 1024" "exclude: the uc-g of group 65534 left alone"
want $H_RT "1024 1024" "rt: an RT task without 'rt = yes' left alone"
want $I_RT "100 400" "rt = yes: the RT task clamped"
want "$KSWAPD" "0 1024" "kernel threads: left alone without kernel-threads = yes"

# kernel threads only when asked, in the config and on the command line
printf '\n[tasks kthread-asked]\ncomm = kswapd0\nkernel-threads = yes\nmax = 501\n' >>"$T/sel.conf"
expect_rc 0 uclampctl apply --config "$T/sel.conf"
want "$KSWAPD" "0 501" "kernel-threads = yes"
expect_rc 0 uclampctl task set --all --comm kswapd0 --max 502 --yes
expect_out 'no task matches'
want "$KSWAPD" "0 501" "task set --all without --kernel-threads"
expect_rc 0 uclampctl task set --all --kernel-threads --comm kswapd0 --max 502 --yes
want "$KSWAPD" "0 502" "task set --all --kernel-threads"
expect_rc 0 uclampctl task reset --all --kernel-threads --comm kswapd0 --yes

kill $A_ROOT $A_NOBODY $B_IN $B_OUT $D $C_ARGV0 $C_PLAIN $E_CMD $E_PLAIN $PARENT $F_PLAIN \
	$G_ROOT $G_NOBODY $H_RT $I_RT 2>/dev/null
pkill -x uc-f
done_scenario
