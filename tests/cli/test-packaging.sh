#!/bin/bash
# Packaging: etc/uclampctl.conf (installed as /etc/uclampctl.conf) changes
# nothing as shipped (all comments) and its commented examples are a valid
# configuration; debian/changelog, uclampctl.spec and the Ansible collection
# carry uclampctl's version.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/cli/lib.sh"

U=$UCLAMPCTL
fake_root
# as installed (0644): the checkout's own mode follows the cloner's umask, and
# a group-writable config is rightly refused as untrusted
CONF=$ROOT/uclampctl.conf
install -m 0644 "$TESTS_SRCDIR/../etc/uclampctl.conf" "$CONF"
fake_sysctls 1024 1024 1024
fake_release 6.1.0-test

t "the shipped file matches any host" 0 $U apply --check --config "$CONF"
has '^no differences: the configuration sets nothing \(0 value\(s\) checked\)$'
t "applying it writes nothing" 0 $U apply --yes --config "$CONF"
same "$ROOT/proc/sys/kernel/sched_util_clamp_max" 1024

# uncommented, minus the sections that need a real cgroup or user: valid, and
# it would change the system clamps
sed -n 's/^#\([][a-z]\)/\1/p' "$CONF" | awk '/^\[cgroup /,/^$/ { next } /^\[tasks /,0 { next } { print }' >"$ROOT/ex.conf"
grep -q '^\[system\]$' "$ROOT/ex.conf" && _pass "examples have a [system] section" || _fail "no [system] example"
t "the examples are valid" 1 $U apply --check --config "$ROOT/ex.conf"
has 'sched_util_clamp_max'
sed -n 's/^#\([][a-z]\)/\1/p' "$CONF" | sed 's/^user = .*/user = root/' >"$ROOT/all.conf"
# (the host decides whether system.slice exists: anything but exit 2)
OUT=$($U apply --dry-run --config "$ROOT/all.conf" 2>&1)
[ $? != 2 ] && _pass "all examples parse" || _fail "all examples parse"
hasnt 'error\(s\) in the configuration'

# one version everywhere: the binary's (configure.ac), Debian's, the spec's
t "uclampctl --version" 0 $U --version
ver=$(printf '%s\n' "$OUT" | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -n 1)
deb=$(sed -n '1s/^uclampctl (\([^)-]*\).*/\1/p' "$TESTS_SRCDIR/../debian/changelog")
spec=$(awk '$1 == "Version:" { print $2 }' "$TESTS_SRCDIR/../uclampctl.spec")
[ -n "$ver" ] && [ "$deb" = "$ver" ] && _pass "debian/changelog: $deb" || _fail "debian/changelog has '$deb', uclampctl $ver"
galaxy=$(awk '$1 == "version:" { print $2 }' "$TESTS_SRCDIR/../contrib/ansible/galaxy.yml")
[ -n "$ver" ] && [ "$galaxy" = "$ver" ] && _pass "contrib/ansible/galaxy.yml: $galaxy" || _fail "galaxy.yml has '$galaxy', uclampctl $ver"
[ -n "$ver" ] && [ "$spec" = "$ver" ] && _pass "uclampctl.spec: $spec" || _fail "uclampctl.spec has '$spec', uclampctl $ver"
# ---- upgrades: the watch daemon ------------------------------------------------------------
# debian/uclampctl.{postinst,prerm,postrm} and the spec's %postun against a
# stand-in systemd (tests/cli/fake-systemd.sh; the real dpkg round trip of two
# versions: tests/deb-upgrade.sh, run by .ci/run): an
# upgrade restarts an enabled, running watch and leaves a stopped or disabled
# one alone; a first install starts nothing. Real systemd: not on this host.
SRCDIR=$TESTS_SRCDIR/..
grep -q -- '--no-stop-on-upgrade' "$SRCDIR/debian/rules" && _pass "debian/rules: no stop for an upgrade" ||
	_fail "debian/rules stops the units for an upgrade"
if unshare -m true 2>/dev/null; then
	. "$TESTS_SRCDIR/cli/fake-systemd.sh"
	M=$(mktemp -d "${TMPDIR:-/tmp}/uclampctl-maint.XXXXXX")
	_tmpdirs+=("$M")
	fake_systemd_init "$M"
	# the spec's %postun as a shell script: its macros are the distribution's
	awk '/^%postun/ { on = 1; next } on && /^%files/ { exit } on && !/^%/ { print }' \
		"$SRCDIR/uclampctl.spec" >"$M/postun.sh"
	maint() { fake_systemd "$1" "$2" sh "${@:3}"; }	# ENABLED ACTIVE SCRIPT ARGS...
	for script in "deb:$SRCDIR/debian/uclampctl.postinst configure" "rpm:$M/postun.sh"; do
		kind=${script%%:*}
		set -- ${script#*:}
		up=0.1.0-1
		[ "$kind" = rpm ] && up=1
		maint yes yes "$@" "$up"
		[ $RC = 0 ] && _pass "$kind upgrade: exit 0" || _fail "$kind upgrade: exit $RC"
		has "^restarted uclampctl-watch.service$"
		has "run-dir kept"
		# never a plain start or restart: those would start a stopped one
		hasnt "(invoke|systemctl) (re)?start"
		maint yes no "$@" "$up"
		hasnt "^restarted"
		hasnt "(invoke|systemctl) (re)?start"
		maint no yes "$@" "$up"
		hasnt "restart|start"
		if [ "$kind" = deb ]; then
			maint yes yes "$@"	# a first install
			hasnt "restart|start"
		else
			maint yes yes "$@" 0	# an erase
			hasnt "restart|start"
			has "run-dir removed"
		fi
	done
	maint yes yes "$SRCDIR/debian/uclampctl.prerm" upgrade 0.1.1-1
	hasnt "stop"
	maint yes yes "$SRCDIR/debian/uclampctl.prerm" remove
	has "deb-systemd-invoke stop uclampctl-watch.service"
	maint no no "$SRCDIR/debian/uclampctl.postrm" remove
	has "run-dir kept"
	maint no no "$SRCDIR/debian/uclampctl.postrm" purge
	[ $RC = 0 ] && _pass "deb purge: exit 0" || _fail "deb purge: exit $RC"
	has "run-dir removed"
	# the stubs are what the script reached: without /run/systemd/system, nothing
	: >"$M/log"
	STUB_LOG=$M/log STUB_ENABLED=yes STUB_ACTIVE=yes PATH="$M/bin:$PATH" sh "$SRCDIR/debian/uclampctl.postinst" configure 0.1.0-1
	OUT=$(cat "$M/log")
	if [ -d /run/systemd/system ]; then skip_part "systemd runs here"; else hasnt "restart"; fi
else
	skip_part "no private mount namespace (unshare -m): the maintainer scripts' runs"
fi
# ---- the libraries uclampctl opens with dlopen (src/dlopen-deps links them) -----------------
# Debian: dpkg-shlibdeps reads them from src/dlopen-deps (the .deb's Depends:
# .ci/run checks the built package); RPM: one Requires each, by Fedora's names
. "$TESTS_SRCDIR/pkg-lib.sh"
grep -q 'dh_shlibdeps -- -esrc/dlopen-deps$' "$SRCDIR/debian/rules" &&
	_pass "debian/rules: dpkg-shlibdeps reads src/dlopen-deps" || _fail "debian/rules: no src/dlopen-deps"
sonames=$(opened_sonames "$TESTS_BUILDDIR/..") || _fail "src/dlopen-deps: no libraries"
for so in $sonames; do
	grep -Eq "^Requires: +$(rpm_name "$so")%\{\?_isa\}$" "$SRCDIR/uclampctl.spec" &&
		_pass "uclampctl.spec requires $(rpm_name "$so") ($so)" ||
		_fail "uclampctl.spec: no 'Requires: $(rpm_name "$so")%{?_isa}' for $so"
done
# ---- docs that ship: FILES in the man page, contrib/ as examples, Quick start as root ------
grep -q '^\.SH FILES$' "$SRCDIR/man/uclampctl.8" && _pass "uclampctl(8) has FILES" || _fail "uclampctl(8): no FILES"
for f in /run/uclampctl/lock /run/uclampctl/ksyms /etc/uclampctl.conf; do
	grep -q "^\.I $f\$" "$SRCDIR/man/uclampctl.8" && _pass "FILES names $f" || _fail "FILES lacks $f"
done
for d in "$SRCDIR"/contrib/*/; do
	d=contrib/$(basename "$d")
	grep -qx "$d" "$SRCDIR/debian/uclampctl.examples" && _pass "deb examples: $d" || _fail "debian/uclampctl.examples lacks $d"
done
grep -Eq '^%doc .*\<contrib\>' "$SRCDIR/uclampctl.spec" && _pass "rpm %doc: contrib" || _fail "uclampctl.spec: contrib not in %doc"
# the Quick start's first command as .ci/run runs it, as root with no sudo on PATH:
# every sudo in it goes through $S, which is empty for root
q=$(awk '/^## Quick start/ { q = 1; next } q && /^## / { exit }
	q && /^```/ { if (b) exit; b = 1; next } b { print }' "$SRCDIR/README.md" | head -n 1)
OUT=$q
hasnt '(^|[;&|] *)sudo '
S=$(bash -c "${q%%;*}; echo \"\$S\"")
[ "$(id -u)" != 0 ] || { [ -z "$S" ] && _pass "Quick start: no sudo as root" || _fail "Quick start: S='$S' as root"; }
finish
