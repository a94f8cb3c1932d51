# Sourced by tests/cli/test-packaging.sh and tests/deb-upgrade.sh: maintainer
# scripts against a stand-in systemd, on a host where systemd is not PID 1.
#
#   fake_systemd_init DIR   stub systemctl, deb-systemd-helper and
#                           deb-systemd-invoke in DIR/bin, which log each call
#   fake_systemd EN ACT CMD...  run CMD in a private mount namespace with a
#                           tmpfs /run of its own (the host's /run/uclampctl is
#                           never touched) holding /run/systemd/system and
#                           /run/uclampctl/lock; the stubs play a watch unit
#                           enabled (EN=yes) and running (ACT=yes). The calls
#                           go to $OUT, one a line, then "run-dir kept" or
#                           "run-dir removed"; CMD's status to $RC.
# try-restart is systemd's "restart only if it runs": the stubs log
# "restarted UNIT" when it would have. What they cannot show: systemd itself.
fake_systemd_init() {
	_fs_dir=$1
	mkdir -p "$_fs_dir/bin"
	cat >"$_fs_dir/bin/systemctl" <<'STUB'
#!/bin/sh
echo "systemctl $*" >>"$STUB_LOG"
for a; do
	case $a in
	is-enabled) [ "$STUB_ENABLED" = yes ]; exit ;;
	try-restart) [ "$STUB_ACTIVE" = yes ] && echo "restarted $2" >>"$STUB_LOG"; exit 0 ;;
	esac
done
exit 0
STUB
	cat >"$_fs_dir/bin/deb-systemd-invoke" <<'STUB'
#!/bin/sh
echo "deb-systemd-invoke $*" >>"$STUB_LOG"
[ "$1" = try-restart ] && [ "$STUB_ACTIVE" = yes ] && echo "restarted $2" >>"$STUB_LOG"
exit 0
STUB
	cat >"$_fs_dir/bin/deb-systemd-helper" <<'STUB'
#!/bin/sh
echo "deb-systemd-helper $*" >>"$STUB_LOG"
[ "$1" = --quiet ] && shift
[ "$1" = was-enabled ] && { [ "$STUB_ENABLED" = yes ]; exit; }
exit 0
STUB
	chmod 755 "$_fs_dir/bin/"*
}
fake_systemd() {
	local en=$1 act=$2
	shift 2
	: >"$_fs_dir/log"
	STUB_LOG=$_fs_dir/log STUB_ENABLED=$en STUB_ACTIVE=$act PATH="$_fs_dir/bin:$PATH" unshare -m sh -c \
		'mount -t tmpfs none /run && mkdir -p /run/systemd/system /run/uclampctl &&
		: >/run/uclampctl/lock || exit 99
		"$@"; rc=$?
		[ -e /run/uclampctl ] && echo "run-dir kept" >>"$STUB_LOG" || echo "run-dir removed" >>"$STUB_LOG"
		exit $rc' sh "$@"
	RC=$?
	OUT=$(cat "$_fs_dir/log")
}
