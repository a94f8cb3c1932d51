#!/bin/bash
# The systemd units (systemd/*.service.in, as installed: the directories
# substituted, ExecStart= the built binary): 'systemd-analyze verify' has
# nothing to say, 'systemd-analyze security' scores each at most
# $MAX_EXPOSURE, and the promises the project depends on are in the text
# (/run/uclampctl kept on stop, notify + reload + restart for watch); and
# contrib/prometheus's textfile service and timer verify too.
# Skipped without systemd-analyze (Debian: systemd).
if ! command -v systemd-analyze >/dev/null; then
	echo "SKIP: systemd-analyze not installed (apt-get install systemd)"
	exit 77
fi
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/cli/lib.sh"

MAX_EXPOSURE=3.5	# today 3.1 (apply), 3.3 (watch writes cgroupfs): see the units' comments
U=$(mktemp -d "${TMPDIR:-/tmp}/uclampctl-units.XXXXXX")
_tmpdirs+=("$U")
bindir=$(dirname "$UCLAMPCTL_REAL")
for u in apply watch; do
	sed -e "s|@bindir[@]|$bindir|g" -e 's|@sysconfdir[@]|/etc|g' \
		"$TESTS_SRCDIR/../systemd/uclampctl-$u.service.in" >"$U/uclampctl-$u.service"
done
cd "$U" || exit 1

for u in apply watch; do
	f=uclampctl-$u.service
	t "$f: systemd-analyze verify" 0 systemd-analyze verify --man=no "./$f"
	hasnt .
	t "$f: systemd-analyze security" 0 systemd-analyze security --offline=true --no-pager "./$f"
	score=$(printf '%s\n' "$OUT" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
	echo "# $f: exposure $score"
	if [ -n "$score" ] && awk -v s="$score" -v m="$MAX_EXPOSURE" 'BEGIN { exit !(s <= m) }'; then
		_pass "$f: exposure $score <= $MAX_EXPOSURE"
	else
		_fail "$f: exposure '${score:-none}' above $MAX_EXPOSURE"
	fi
	# the directory holds the CLI's lock and the symbol cache: never removed on stop
	grep -qx 'RuntimeDirectoryPreserve=yes' "$f" && _pass "$f: keeps /run/uclampctl" ||
		_fail "$f: /run/uclampctl is removed when the unit stops"
	grep -qx 'RuntimeDirectoryMode=0755' "$f" && _pass "$f: /run/uclampctl 0755 as lock.c makes it" ||
		_fail "$f: /run/uclampctl mode differs from lock.c's"
done
# an option systemd does not know is only a warning (exit 0): 'hasnt .' catches it above
t "systemd-analyze verify sees a bad option" 0 bash -c "printf '[Service]\nBogusOption=1\nExecStart=/bin/true\n' >bogus.service; systemd-analyze verify --man=no ./bogus.service"
has "Unknown key 'BogusOption'"
rm -f bogus.service

# contrib's textfile timer: the binary writes the file itself (status --textfile);
# ExecStart= names it without a path (systemd's search path: /usr/bin, /usr/local/bin)
P=$TESTS_SRCDIR/../contrib/prometheus
grep -qx 'ExecStart=uclampctl status --textfile /var/lib/prometheus/node-exporter/uclamp.prom' \
	"$P/uclampctl-textfile.service" && _pass "uclampctl-textfile.service: status --textfile" ||
	_fail "uclampctl-textfile.service: not 'uclampctl status --textfile'"
sed "s|^ExecStart=uclampctl |ExecStart=$UCLAMPCTL_REAL |" "$P/uclampctl-textfile.service" \
	>uclampctl-textfile.service
cp "$P/uclampctl-textfile.timer" .
t "uclampctl-textfile.service, .timer: systemd-analyze verify" 0 systemd-analyze verify --man=no \
	./uclampctl-textfile.service ./uclampctl-textfile.timer
hasnt .

w=uclampctl-watch.service
for want in 'Type=notify' 'NotifyAccess=main' 'ExecReload=/bin/kill -HUP $MAINPID' 'Restart=on-failure'; do
	grep -qxF "$want" "$w" && _pass "$w: $want" || _fail "$w: no $want"
done
finish
