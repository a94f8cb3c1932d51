# Sourced by the package tests (.ci/run, tests/deb-upgrade.sh, and in the VM
# tests/vm/scenarios/pkg-systemd.sh): a package's paths, and what an install
# added or a purge left behind.
#   deb_paths DEB          the paths DEB holds, one a line
#   absent_paths           the paths on stdin this machine lacks (what an install adds)
#   left_paths             the paths on stdin still here, on one line (what a purge left)
#   deb_repack_up DEB OUT  DEB repacked one version up (VERSION+up1, the same files
#                          and maintainer scripts) as OUT (work directory OUT.d)
deb_paths() { dpkg-deb -c "$1" | awk '{ sub(/^\./, "", $6); sub(/\/$/, "", $6); if ($6 != "") print $6 }'; }
absent_paths() {
	local f
	while read -r f; do [ -e "$f" ] || [ -L "$f" ] || echo "$f"; done
}
left_paths() {
	local f left=
	while read -r f; do if [ -e "$f" ] || [ -L "$f" ]; then left+=" $f"; fi; done
	echo "${left# }"
}
deb_repack_up() {
	local ver
	ver=$(dpkg-deb -f "$1" Version) &&
		dpkg-deb -R "$1" "$2.d" &&
		sed -i "s/^Version: .*/Version: $ver+up1/" "$2.d/DEBIAN/control" &&
		dpkg-deb --root-owner-group -b "$2.d" "$2" >/dev/null
}
