# Debian's systemd as PID 1 (guest-init.sh, uclamp.init=systemd): the units
# as installed (systemd/*.service.in, ExecStart= the binary under test, the
# configuration through a drop-in) behave under the real init: watch is
# Type=notify and active only after READY, reloads on 'systemctl reload',
# logs to the journal with fields, restarts after a crash, and stopping it
# keeps /run/uclampctl (the writers' lock, still held by another writer, and
# the symbol cache).
# vm-append: uclamp.init=systemd
# vm-timeout: 900
. "$(dirname "$0")/../lib.sh"
SRC=$(cd "$VM_DIR/../.." && pwd)
check "systemd is PID 1" test "$(cat /proc/1/comm)" = systemd
expect_key 0 "right after boot"
run systemctl is-system-running
echo "  (system state: $OUT)"

U=/run/systemd/system
# the binary and the configuration outside /tmp: the units have PrivateTmp=yes
B=/run/uclamp-test
mkdir -p "$B"
install -m 755 "$UCLAMPCTL" "$B/uclampctl"
for u in apply watch; do
	sed -e "s|@bindir@|$B|g" -e 's|@sysconfdir@|/etc|g' \
		"$SRC/systemd/uclampctl-$u.service.in" >"$U/uclampctl-$u.service"
done
T=$B
consented_conf "$T/w.conf" <<CONF

[tasks probe]
comm = uc-probe
max = 300
CONF
chmod 0644 "$T/w.conf"
mkdir -p "$U/uclampctl-watch.service.d"
printf '[Unit]\nConditionPathExists=\nConditionDirectoryNotEmpty=\n[Service]\nExecStart=\nExecStart=%s watch -c %s\n' \
	"$B/uclampctl" "$T/w.conf" >"$U/uclampctl-watch.service.d/test.conf"
expect_rc 0 systemctl daemon-reload
expect_rc 0 systemctl start uclampctl-watch.service
[ "$RC" = 0 ] || { run systemctl status uclampctl-watch.service; run journalctl -b -u uclampctl-watch.service --no-pager; }
expect_rc 0 systemctl show -p Type -p ActiveState -p SubState -p MainPID -p NRestarts uclampctl-watch.service
expect_out '^Type=notify$'
expect_out '^ActiveState=active$'
P1=$(systemctl show -p MainPID --value uclampctl-watch.service)
check "watch's main PID $P1 runs uclampctl" grep -q uclampctl "/proc/$P1/cmdline"
cp /bin/sleep "$B/uc-probe"
"$B/uc-probe" 60 & PR=$!
sleep 2
check "a new uc-probe is clamped by the unit's watch" test "$(tclamp $PR)" = "0 300"
expect_key 1 "after the watch clamped"
# the journal's native protocol, written by hand: the change's fields
run journalctl -b -u uclampctl-watch.service --no-pager -o verbose "TARGET_PID=$PR"
expect_out '^ +RULE=probe$'
expect_out '^ +NEW_MAX=300$'

expect_rc 0 systemctl reload uclampctl-watch.service
sleep 1
check "reload keeps the same process" test "$(systemctl show -p MainPID --value uclampctl-watch.service)" = "$P1"
run journalctl -b -u uclampctl-watch.service --no-pager
expect_out 'SIGHUP|reload'

# a crash: Restart=on-failure brings it back
kill -KILL "$P1"
for _ in $(seq 60); do
	P2=$(systemctl show -p MainPID --value uclampctl-watch.service)
	[ "$P2" != 0 ] && [ "$P2" != "$P1" ] && systemctl -q is-active uclampctl-watch.service && break
	sleep 0.5
done
check "restarted after SIGKILL (PID $P1 -> ${P2:-none})" test "${P2:-0}" != 0 -a "${P2:-0}" != "$P1"
check "NRestarts counts it" test "$(systemctl show -p NRestarts --value uclampctl-watch.service)" -ge 1

# the writers' lock and the cache survive a stop, also while a writer holds the lock
check "/run/uclampctl exists" test -d /run/uclampctl
"$UCLAMPCTL" keys >/dev/null 2>&1	# fills the per-boot symbol cache as root
(umask 077 && : >>/run/uclampctl/lock)	# as a writer makes it: 0600
I1=$(stat -c %i /run/uclampctl/lock)
flock /run/uclampctl/lock sleep 30 & H=$!
sleep 1
expect_rc 0 systemctl stop uclampctl-watch.service
check "the lock file is the same after stop" test "$(stat -c %i /run/uclampctl/lock 2>/dev/null)" = "$I1"
check "the symbol cache is still there" test -f /run/uclampctl/ksyms
run timeout 10 "$UCLAMPCTL" system set --max 900 --yes
check "a second writer still waits for it (killed by timeout)" test "$RC" = 124
expect_out 'waiting for the uclampctl lock held by PID'
check "nothing written by it" test "$(cat /proc/sys/kernel/sched_util_clamp_max)" = 1024
kill $H $PR 2>/dev/null
expect_key 1 "at the end"
done_scenario
