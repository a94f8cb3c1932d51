# Sourced by the package tests (.ci/run, tests/deb-upgrade.sh, and in the VM
# tests/vm/scenarios/pkg-systemd.sh): a package's paths, and what an install
# added or a purge left behind.
#   deb_paths DEB          the paths DEB holds, one a line
#   absent_paths           the paths on stdin this machine lacks (what an install adds)
#   left_paths             the paths on stdin still here, on one line (what a purge left)
#   deb_repack_up DEB OUT  DEB repacked one version up (VERSION+up1, the same files
#                          and maintainer scripts) as OUT (work directory OUT.d)
# uclampctl opens its libraries with dlopen; src/dlopen-deps links them, for
# the package tools (debian/rules) and these checks (BUILD: a build directory):
#   opened_sonames BUILD   what src/dlopen-deps links and uclampctl does not (libc,
#                          a sanitizer's runtime), one a line; fails when none
#   rpm_name SONAME        the RPM package of a library by Fedora's names (libnl-3.so.200: libnl3)
#   deb_lacks DEB BUILD    the packages of those libraries that DEB's Depends lacks, one a line
#   rpm_lacks RPM BUILD    the same for RPM's Requires
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
needed_sonames() { objdump -p "$1" | awk '$1 == "NEEDED" { print $2 }' | sort; }
opened_sonames() {
	local helper uc
	helper=$(needed_sonames "$1/src/dlopen-deps") && uc=$(needed_sonames "$1/uclampctl") &&
		comm -23 <(printf '%s\n' "$helper") <(printf '%s\n' "$uc") | grep .
}
rpm_name() {
	local n=${1%%.so*}
	echo "${n//-/}"
}
deb_lacks() {
	local dep sos so pkg
	dep=$(dpkg-deb -f "$1" Depends) && sos=$(opened_sonames "$2") || return 1
	for so in $sos; do
		pkg=$(dpkg -S "*/$so" 2>/dev/null | sed -n '1s/:.*//p')
		case ", $dep," in *", ${pkg:-?} "* | *", ${pkg:-?},"*) ;; *) echo "${pkg:-$so}" ;; esac
	done
}
rpm_lacks() {
	local req sos so
	req=$(rpm -qpR "$1") && sos=$(opened_sonames "$2") || return 1
	for so in $sos; do
		printf '%s\n' "$req" | grep -Eq "^$(rpm_name "$so")(\(|\s|$)" || rpm_name "$so"
	done
}
