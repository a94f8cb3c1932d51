#!/bin/bash
# The Debian package through an upgrade with the real dpkg: install DEB,
# upgrade to a second version (DEB repacked one version up: the same files
# and maintainer scripts), go back, purge. systemd is not PID 1 on the build
# host: dpkg runs in tests/cli/fake-systemd.sh's namespace, whose stubs play
# the watch unit enabled/disabled and running/stopped and log every call.
# Proven: the scripts debhelper generated restart an enabled, running watch
# after an upgrade (try-restart), never start a stopped or a disabled one,
# do not stop it for the upgrade, stop it on removal, and purge leaves none
# of the package's paths and no /run/uclampctl. Not proven here: what systemd
# itself does with those calls (needs systemd as PID 1).
#
# usage: tests/deb-upgrade.sh DEB   (as root; run by .ci/run after the build)
set -u
deb=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/cli/fake-systemd.sh"
. "$here/pkg-lib.sh"
W=$(mktemp -d "${TMPDIR:-/tmp}/uclampctl-debup.XXXXXX")
trap 'rm -rf "$W"' EXIT
fails=0
ok() { echo "ok - $*"; }
bad() { echo "not ok - $*"; printf '%s\n' "$OUT" | sed 's/^/#   /'; fails=$((fails + 1)); }
has() { if printf '%s\n' "$OUT" | grep -Eq -- "$1"; then ok "$2"; else bad "$2"; fi; }
hasnt() { if printf '%s\n' "$OUT" | grep -Eq -- "$1"; then bad "$2"; else ok "$2"; fi; }

[ "$(id -u)" = 0 ] || { echo "deb-upgrade: needs root (dpkg -i)" >&2; exit 2; }
unshare -m true || { echo "deb-upgrade: needs a private mount namespace (unshare -m)" >&2; exit 2; }
dpkg-query -W uclampctl >/dev/null 2>&1 && { echo "deb-upgrade: uclampctl is installed already" >&2; exit 2; }
ver=$(dpkg-deb -f "$deb" Version)
deb_repack_up "$deb" "$W/v2.deb" || exit 1
deb_paths "$deb" | absent_paths >"$W/new"
fake_systemd_init "$W/fs"

fake_systemd yes yes dpkg -i "$deb"
[ $RC = 0 ] && ok "dpkg -i $ver" || bad "dpkg -i $ver: exit $RC"
hasnt 'restart|invoke (re)?start|stop' "a first install starts and stops nothing"
fake_systemd yes yes dpkg -i "$W/v2.deb"
[ $RC = 0 ] && ok "upgrade to $ver+up1" || bad "upgrade: exit $RC"
has '^restarted uclampctl-watch.service$' "upgrade: the enabled, running watch is restarted"
hasnt 'invoke (re)?start|stop' "upgrade: nothing stopped for it, no plain start"
has 'run-dir kept' "upgrade: /run/uclampctl kept"
fake_systemd yes no dpkg -i "$deb"
[ $RC = 0 ] && ok "back to $ver" || bad "downgrade: exit $RC"
hasnt '^restarted|invoke (re)?start' "a stopped watch stays stopped"
fake_systemd no yes dpkg -i "$W/v2.deb"
hasnt 'restart|invoke (re)?start' "a disabled watch is left alone"
fake_systemd no no dpkg --purge uclampctl
[ $RC = 0 ] && ok "dpkg --purge" || bad "dpkg --purge: exit $RC"
has 'deb-systemd-invoke stop uclampctl-watch.service' "removal stops the daemon"
has 'run-dir removed' "purge removes /run/uclampctl"
left=$(left_paths <"$W/new")
OUT=$left
[ -z "$left" ] && ok "purge removed all $(wc -l <"$W/new") paths the package added" || bad "left behind: $left"
if dpkg-query -W uclampctl >/dev/null 2>&1; then dpkg --purge uclampctl >/dev/null 2>&1; fi
echo "deb-upgrade: $fails failed"
((fails == 0))
