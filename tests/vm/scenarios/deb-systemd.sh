# The Debian package under the real init: 'dpkg -i' of two built versions
# with Debian's systemd as PID 1 (uclamp.init=systemd) on a writable root
# (uclamp.rootfs=overlay: the host's read-only root under a tmpfs; nothing
# reaches the host). The .deb is $UCLAMP_VM_DEB (run.sh shares its
# directory); the second version is the same package repacked one version up,
# as tests/deb-upgrade.sh makes it. What tests/deb-upgrade.sh shows with a
# stand-in systemctl, shown here with systemd itself:
#   - a first install enables and starts nothing, and leaves the key off;
#   - an upgrade restarts an enabled, running watch (a new main PID running
#     the new binary, not the deleted old one), keeps /run/uclampctl;
#   - a downgrade leaves a stopped watch stopped; an upgrade leaves a running
#     but disabled one alone (same PID);
#   - purge stops it, and removes the units, the configuration, /run/uclampctl
#     and every path the package added;
#   - the key stays 0 through all of it (the shipped configuration sets no clamp).
# vm-append: uclamp.init=systemd uclamp.rootfs=overlay
# vm-timeout: 900
. "$(dirname "$0")/../lib.sh"
W=uclampctl-watch.service

check "systemd is PID 1" test "$(cat /proc/1/comm)" = systemd
expect_key 0 "right after boot"
if [ -z "${UCLAMP_VM_DEB-}" ]; then
	skip_scenario "no .deb to install: build one (dpkg-buildpackage -us -uc -b) and set UCLAMP_VM_DEB=PATH"
fi
if [ "$(stat -f -c %T /)" != overlayfs ]; then
	skip_scenario "no writable root: this kernel has no CONFIG_OVERLAY_FS (tests/vm/kernel.config has it)"
fi
if dpkg-query -W -f='${Status}' uclampctl 2>/dev/null | grep -q installed; then
	_fail "uclampctl is installed on the host already (dpkg --purge uclampctl first)"
	done_scenario
fi

# the second version, and the paths the package adds to this root
D=/tmp/deb
mkdir -p "$D"
V1=$UCLAMP_VM_DEB
ver=$(dpkg-deb -f "$V1" Version)
dpkg-deb -R "$V1" "$D/v2" &&
	sed -i "s/^Version: .*/Version: $ver+up1/" "$D/v2/DEBIAN/control" &&
	dpkg-deb --root-owner-group -b "$D/v2" "$D/v2.deb" >/dev/null
check "repacked $ver as $ver+up1" test -f "$D/v2.deb"
V2=$D/v2.deb
dpkg-deb -c "$V1" | awk '{ sub(/^\./, "", $6); sub(/\/$/, "", $6); if ($6 != "") print $6 }' |
	while read -r f; do [ -e "$f" ] || [ -L "$f" ] || echo "$f"; done >"$D/new"
check "the package adds paths to this root ($(wc -l <"$D/new"))" test -s "$D/new"
# man-db's trigger would index every manual page of the host under TCG
rm -f /var/lib/man-db/auto-update

main_pid() { systemctl show -p MainPID --value "$W"; }
state() { echo "$(systemctl is-enabled "$W" 2>/dev/null) $(systemctl is-active "$W" 2>/dev/null)"; }

# ---- a first install starts nothing ----------------------------------------
expect_rc 0 dpkg -i "$V1"
check "after the first install: disabled, inactive ($(state))" test "$(state)" = "disabled inactive"
expect_rc 0 /usr/bin/uclampctl --version
expect_out "$ver"
expect_key 0 "after the install"

# ---- an upgrade restarts the enabled, running watch -------------------------
expect_rc 0 systemctl enable --now "$W"
[ "$RC" = 0 ] || run journalctl -b -u "$W" --no-pager
check "enabled and running ($(state))" test "$(state)" = "enabled active"
P1=$(main_pid)
check "its main PID $P1 runs /usr/bin/uclampctl" test "$(readlink "/proc/$P1/exe")" = /usr/bin/uclampctl
expect_rc 0 dpkg -i "$V2"
check "after the upgrade: enabled, running ($(state))" test "$(state)" = "enabled active"
P2=$(main_pid)
check "restarted: main PID $P1 -> $P2" test "$P2" != 0 -a "$P2" != "$P1"
check "it runs the new binary ($(readlink "/proc/$P2/exe"))" test "$(readlink "/proc/$P2/exe")" = /usr/bin/uclampctl
expect_rc 0 dpkg-query -W -f='${Version}' uclampctl
expect_out "^$ver\+up1$"
check "/run/uclampctl kept" test -d /run/uclampctl
expect_key 0 "after the upgrade"

# ---- a stopped watch stays stopped; a disabled one is left alone ------------
expect_rc 0 systemctl stop "$W"
expect_rc 0 dpkg -i "$V1"
check "downgrade: a stopped watch stays stopped ($(state))" test "$(state)" = "enabled inactive"
expect_rc 0 systemctl start "$W"
expect_rc 0 systemctl disable "$W"
P3=$(main_pid)
expect_rc 0 dpkg -i "$V2"
check "upgrade: a running, disabled watch is not restarted (PID $P3 -> $(main_pid))" test "$(main_pid)" = "$P3"
check "... and still runs ($(state))" test "$(state)" = "disabled active"

# ---- purge: stopped, and nothing the package added is left ------------------
expect_rc 0 dpkg --purge uclampctl
check "purge stops the watch" test "$(systemctl is-active "$W" 2>/dev/null)" != active
run systemctl daemon-reload
run systemctl list-unit-files "$W" uclampctl-apply.service --no-legend
check "systemd no longer knows the units" test -z "$OUT"
check "/run/uclampctl removed" test ! -e /run/uclampctl
check "/etc/uclampctl.conf removed" test ! -e /etc/uclampctl.conf
left=
while read -r f; do if [ -e "$f" ] || [ -L "$f" ]; then left+=" $f"; fi; done <"$D/new"
check "purge removed all $(wc -l <"$D/new") paths the package added${left:+ (left:$left)}" test -z "$left"
expect_key 0 "at the end: the package never turned the fast path on"
done_scenario
