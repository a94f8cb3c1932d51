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
has '\(0 value\(s\) checked\)'
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
# debian/uclampctl.postinst and the spec's %postun, run against stub systemctl
# and deb-systemd-invoke that log their calls, with /run/systemd/system
# present (a tmpfs over /run/systemd in a private mount namespace): an
# upgrade restarts an enabled, running watch and leaves a stopped or disabled
# one alone; a first install starts nothing. Real systemd: not on this host.
SRCDIR=$TESTS_SRCDIR/..
grep -q -- '--no-stop-on-upgrade' "$SRCDIR/debian/rules" && _pass "debian/rules: no stop for an upgrade" ||
	_fail "debian/rules stops the units for an upgrade"
if unshare -m true 2>/dev/null; then
	M=$(mktemp -d "${TMPDIR:-/tmp}/uclampctl-maint.XXXXXX")
	_tmpdirs+=("$M")
	mkdir -p "$M/bin"
	cat >"$M/bin/systemctl" <<'STUB'
#!/bin/sh
echo "systemctl $*" >>"$STUB_LOG"
for a; do
	case $a in
	is-enabled) [ "$STUB_ENABLED" = yes ]; exit ;;
	is-active) [ "$STUB_ACTIVE" = yes ]; exit ;;
	esac
done
exit 0
STUB
	printf '#!/bin/sh\necho "$(basename "$0") $*" >>"$STUB_LOG"\n' >"$M/bin/deb-systemd-invoke"
	cp "$M/bin/deb-systemd-invoke" "$M/bin/deb-systemd-helper"
	chmod 755 "$M/bin/"*
	# the spec's %postun as a shell script: its macros are the distribution's
	awk '/^%postun/ { on = 1; next } on && /^%files/ { exit } on && !/^%/ { print }' \
		"$SRCDIR/uclampctl.spec" >"$M/postun.sh"
	maint() {	# ENABLED ACTIVE SCRIPT ARGS...: the calls the script made
		local en=$1 act=$2
		shift 2
		: >"$M/log"
		# a tmpfs /run of its own: the host's /run/uclampctl is never touched
		STUB_LOG=$M/log STUB_ENABLED=$en STUB_ACTIVE=$act PATH="$M/bin:$PATH" unshare -m sh -c \
			'mount -t tmpfs none /run && mkdir -p /run/systemd/system /run/uclampctl &&
			: >/run/uclampctl/lock || exit 99
			sh "$@"; rc=$?
			[ -e /run/uclampctl ] && echo "run-dir kept" >>"$STUB_LOG" || echo "run-dir removed" >>"$STUB_LOG"
			exit $rc' sh "$@"
		RC=$?
		OUT=$(cat "$M/log")
	}
	for script in "deb:$SRCDIR/debian/uclampctl.postinst configure" "rpm:$M/postun.sh"; do
		kind=${script%%:*}
		set -- ${script#*:}
		up=0.1.0-1
		[ "$kind" = rpm ] && up=1
		maint yes yes "$@" "$up"
		[ $RC = 0 ] && _pass "$kind upgrade: exit 0" || _fail "$kind upgrade: exit $RC"
		has "(deb-systemd-invoke|systemctl) (try-)?restart uclampctl-watch.service"
		has "run-dir kept"
		maint yes no "$@" "$up"
		hasnt "restart|start"
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
	if [ -d /run/systemd/system ]; then echo "# skip - systemd runs here"; else hasnt "restart"; fi
else
	echo "# skip - no private mount namespace (unshare -m): the maintainer scripts' runs"
fi
finish
