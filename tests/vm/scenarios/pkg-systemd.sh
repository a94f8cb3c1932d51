# The packages under the real init: Debian's systemd as PID 1
# (uclamp.init=systemd) on a writable root (uclamp.rootfs=overlay: the host's
# read-only root under a tmpfs; nothing reaches the host), the real dpkg and
# rpm. The .deb is $UCLAMP_VM_DEB, upgraded to the same package repacked one
# version up (as tests/deb-upgrade.sh makes it) and back; the .rpm is
# $UCLAMP_VM_RPM (rpmbuild -tb on Debian, tested only when given), upgraded
# with 'rpm -U --replacepkgs', which runs the upgrade scriptlets ($1 = 2 in
# %post, 1 in the old package's %postun). run.sh shares their directories.
# For each package, with systemd itself (tests/deb-upgrade.sh shows the same
# for dpkg against a stand-in systemctl):
#   - a first install starts nothing, and leaves the key off;
#   - an upgrade restarts an enabled, running watch: a new main PID, running
#     the new binary (not the deleted old one); /run/uclampctl is kept;
#   - an upgrade leaves a stopped watch stopped, and a running but disabled
#     one alone (the same PID);
#   - removal stops it; purge removes the units, the configuration,
#     /run/uclampctl and every path the package added;
#   - the key stays 0 through all of it (the shipped configuration sets no clamp).
# The host's root is the overlay's lower layer, live: installing or removing
# packages on the host while this runs breaks the guest's dpkg (seen: "unable
# to make backup link"). .ci/run installs on the host only after the VM suite.
# vm-append: uclamp.init=systemd uclamp.rootfs=overlay
# vm-timeout: 900
. "$(dirname "$0")/../lib.sh"
. "$VM_DIR/../pkg-lib.sh"
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
# man-db's trigger would index every manual page of the host under TCG
rm -f /var/lib/man-db/auto-update
# a container image's policy (Docker's exit 101: "no service starts or stops
# during package operations") is not a host's: without this, deb-systemd-invoke
# skips the restart and the stop, as the first run of this scenario showed
rm -f /usr/sbin/policy-rc.d
D=/tmp/pkg
mkdir -p "$D"

main_pid() { systemctl show -p MainPID --value "$W"; }
state() { echo "$(systemctl is-enabled "$W" 2>/dev/null) $(systemctl is-active "$W" 2>/dev/null)"; }
exe() { readlink "/proc/$1/exe"; }

# lifecycle NAME PATHS-FILE INSTALL UP1 UP2 UP3 PURGE: each of INSTALL..PURGE
# one command line (word-split; the paths have no blanks): the first install,
# three upgrades (watch enabled+running, then stopped, then running but
# disabled), the purge. PATHS-FILE: the package's paths this root lacks.
lifecycle() {
	local name=$1 new=$2 p1 p2 p3 left
	echo "  -- $name"
	check "$name: the package adds paths to this root ($(wc -l <"$new"))" test -s "$new"
	expect_rc 0 $3
	check "$name: after the first install: watch not enabled, not running ($(state))" \
		test "$(systemctl is-active "$W")" = inactive -a "$(systemctl is-enabled "$W")" != enabled
	expect_rc 0 /usr/bin/uclampctl --version
	expect_key 0 "after the install"

	expect_rc 0 systemctl enable --now "$W"
	[ "$RC" = 0 ] || run journalctl -b -u "$W" --no-pager
	check "$name: enabled and running ($(state))" test "$(state)" = "enabled active"
	p1=$(main_pid)
	check "$name: its main PID $p1 runs /usr/bin/uclampctl" test "$(exe "$p1")" = /usr/bin/uclampctl
	expect_rc 0 $4
	check "$name: after the upgrade: enabled, running ($(state))" test "$(state)" = "enabled active"
	p2=$(main_pid)
	check "$name: restarted: main PID $p1 -> $p2" test "$p2" != 0 -a "$p2" != "$p1"
	check "$name: it runs the new binary ($(exe "$p2"))" test "$(exe "$p2")" = /usr/bin/uclampctl
	check "$name: /run/uclampctl kept" test -d /run/uclampctl
	expect_key 0 "after the upgrade"

	expect_rc 0 systemctl stop "$W"
	expect_rc 0 $5
	check "$name: upgrade: a stopped watch stays stopped ($(state))" test "$(state)" = "enabled inactive"
	expect_rc 0 systemctl start "$W"
	expect_rc 0 systemctl disable "$W"
	p3=$(main_pid)
	expect_rc 0 $6
	check "$name: upgrade: a running, disabled watch is not restarted (PID $p3 -> $(main_pid))" \
		test "$(main_pid)" = "$p3"
	check "$name: ... and still runs ($(state))" test "$(state)" = "disabled active"

	expect_rc 0 $7
	check "$name: removal stops the watch" test "$(systemctl is-active "$W")" != active
	run systemctl daemon-reload
	run systemctl list-unit-files "$W" uclampctl-apply.service --no-legend
	check "$name: systemd no longer knows the units" test -z "$OUT"
	check "$name: /run/uclampctl removed" test ! -e /run/uclampctl
	check "$name: /etc/uclampctl.conf removed" test ! -e /etc/uclampctl.conf
	left=$(left_paths <"$new")
	check "$name: purge removed all $(wc -l <"$new") paths the package added${left:+ (left: $left)}" \
		test -z "$left"
	expect_key 0 "after $name: the package never turned the fast path on"
}

# ---- dpkg: the package, and the same one version up --------------------------
V1=$UCLAMP_VM_DEB
deb_repack_up "$V1" "$D/v2.deb"
check "repacked $(dpkg-deb -f "$V1" Version) one version up" test -f "$D/v2.deb"
deb_paths "$V1" | absent_paths >"$D/deb.new"
lifecycle dpkg "$D/deb.new" "dpkg -i $V1" "dpkg -i $D/v2.deb" "dpkg -i $V1" "dpkg -i $D/v2.deb" \
	"dpkg --purge uclampctl"

# ---- rpm (Debian's rpm: --force-debian; no rpm database of dependencies) ----
if [ -n "${UCLAMP_VM_RPM-}" ]; then
	# from a clean state whatever the dpkg part left (its checks said so)
	run systemctl stop "$W"
	R="rpm --nodeps --force-debian"
	# %post runs 'systemctl preset': rpm distributions disable what their
	# presets do not name (Fedora's 99-default-disable.preset); Debian names
	# no default, and systemd's own default is enable
	mkdir -p /etc/systemd/system-preset
	echo 'disable *' >/etc/systemd/system-preset/99-default-disable.preset
	rpm -qlp "$UCLAMP_VM_RPM" 2>/dev/null | absent_paths >"$D/rpm.new"
	lifecycle rpm "$D/rpm.new" "$R -i $UCLAMP_VM_RPM" "$R -U --replacepkgs $UCLAMP_VM_RPM" \
		"$R -U --replacepkgs $UCLAMP_VM_RPM" "$R -U --replacepkgs $UCLAMP_VM_RPM" "$R -e uclampctl"
else
	echo "  (no UCLAMP_VM_RPM: the rpm part not run)"
fi
done_scenario
