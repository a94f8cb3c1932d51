#!/bin/bash
# status --textfile: node_exporter's textfile, written as root into a
# directory another user may own or write (the exporter's; many make it
# 0777). Root never writes through a name there: a link planted at the final
# name or at the temporary names, or swapped for the temporary file while it
# is being written (made deterministic: the watch daemon's stand-in holds its
# answer until the swap is done), leaves the link's target as it was. A run
# that is killed, or fails (a write error: 'ulimit -f 0'), leaves the old
# file as it was, so its age shows in node_textfile_mtime_seconds. The file
# carries the status metrics, the configuration's drift and consent, and the
# watch daemon's counters when it answers.
# WRITER=CMD... runs the same cases against another writer (the former
# contrib/prometheus/uclampctl-textfile: bash test-textfile.sh with
# WRITER='sh uclampctl-textfile': the directory is added).
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/cli/lib.sh"

if ! command -v python3 >/dev/null; then
	echo "SKIP: python3 is needed for the watch daemon's stand-in"
	exit 77
fi
fake_root
fake_release 6.1.0-test
fake_sysctls 1024 1024 1024
mkdir -p "$ROOT/run"
printf '[fast-path]\nallow-enable = yes\n[system]\nmin = 50%%\nmax = 90%%\n' >"$ROOT/u.conf"
chmod 600 "$ROOT/u.conf"
W=$(mktemp -d "${TMPDIR:-/tmp}/uclampctl-textfile.XXXXXX")
_tmpdirs+=("$W")
D=$W/textfile
mkdir -m 0777 "$D"
chmod 0777 "$D"
# as root, the directory is another user's (the exporter's)
[ "$(id -u)" = 0 ] && chown 65534:65534 "$D"
printf 'the victim: root must not write here\n' >"$W/victim"
chmod 0600 "$W/victim"
victim_same() {	# the link's target has its bytes and mode
	if [ "$(cat "$W/victim")" = "the victim: root must not write here" ] &&
		[ "$(stat -c %a "$W/victim")" = 600 ]; then
		_pass "$1: the link's target is untouched"
	else
		OUT=$(stat -c '%a %s' "$W/victim"; head -c 300 "$W/victim")
		_fail "$1: the link's target was written"
	fi
}
writer() {	# SOCKET: write $D/uclamp.prom (exec: "writer &" is the writer's PID)
	if [ -n "${WRITER-}" ]; then
		exec env UCLAMPCTL="$UCLAMPCTL" UCLAMPCTL_WATCH_SOCKET="$1" $WRITER "$D"
	else
		exec "$UCLAMPCTL" status --textfile "$D/uclamp.prom" --config "$ROOT/u.conf" \
			--socket "$1"
	fi
}

t "the textfile is written" 0 writer "$W/none.sock"
OUT=$(cat "$D/uclamp.prom")
has '^uclamp_fast_path_state\{state="[a-z-]+",source="[a-z-]+"\} -?[0-9]$'
has '^uclamp_system_clamp\{sysctl="sched_util_clamp_max"\} 1024$'
has '^uclamp_config_drift 1$'
has '^uclamp_config_allow_enable 1$'
hasnt '^uclampctl_watch_'
OUT=$(stat -c '%a %F %h' "$D/uclamp.prom")
has '^644 regular file 1$'
[ "$(id -u)" = 0 ] && { OUT=$(stat -c %U "$D/uclamp.prom"); has '^root$'; }

# a link at the final name: replaced, never followed
rm -f "$D/uclamp.prom"
ln -s "$W/victim" "$D/uclamp.prom"
t "a link at the final name" 0 writer "$W/none.sock"
OUT=$(stat -c %F "$D/uclamp.prom")
has '^regular file$'
victim_same "a link at the final name"

# links (and a killed run's file) at the temporary names: never opened
OUT=$(sh -c 'cd "$1" && for n in 0 1 2; do ln -s "$2" .uclamp.prom.$$.$n; done &&
	printf leftover >.uclamp.prom.$$.3 && shift 2 && exec "$@"' _ "$D" "$W/victim" \
	"$UCLAMPCTL" status --textfile "$D/uclamp.prom" --config "$ROOT/u.conf" \
	--socket "$W/none.sock" 2>&1)
RC=$?
[ -z "${WRITER-}" ] && { [ $RC = 0 ] && _pass "links at the temporary names: exit 0" || _fail "exit $RC"; }
victim_same "links at the temporary names"
OUT=$(cat "$D"/.uclamp.prom.*.3 2>&1)
has '^leftover$'
rm -f "$D"/.uclamp.prom.*

# the temporary file swapped for a link while it is written
python3 "$TESTS_SRCDIR/cli/fake-watch-status.py" "$W/w.sock" 1 "$W/go" >/dev/null 2>&1 &
SRV=$!
for _ in $(seq 50); do [ -S "$W/w.sock" ] && break; sleep 0.1; done
writer "$W/w.sock" >"$W/out" 2>&1 &
WR=$!
tmp=
for _ in $(seq 100); do
	tmp=$(find "$D" -name '.uclamp.prom.*' -type f | head -n 1)
	[ -n "$tmp" ] && break
	sleep 0.05
done
if [ -n "$tmp" ]; then
	mv "$tmp" "$W/moved-away"
	ln -s "$W/victim" "$tmp"
	_pass "the temporary file was swapped for a link"
else
	OUT=$(ls -la "$D"); _fail "no temporary file appeared"
fi
: >"$W/go"
wait $WR
RC=$?
wait $SRV
OUT=$(cat "$W/out")
victim_same "a swap while writing"
if [ -z "${WRITER-}" ]; then
	[ $RC = 1 ] && _pass "a swap while writing: exit 1" || _fail "a swap while writing: exit $RC"
	has "is not the file written: another user changed names in .* while it was written"
	# what was written went to root's own file, which is no longer named
	OUT=$(cat "$W/moved-away")
	has '^uclampctl_watch_rescans_total\{cause="start"\} 1$'
fi
rm -f "$D"/.uclamp.prom.* "$D/uclamp.prom" "$W/moved-away"

# with the daemon answering: its counters are in the file
python3 "$TESTS_SRCDIR/cli/fake-watch-status.py" "$W/w.sock" 1 >/dev/null 2>&1 &
for _ in $(seq 50); do [ -S "$W/w.sock" ] && break; sleep 0.1; done
t "the daemon's counters" 0 writer "$W/w.sock"
wait
OUT=$(cat "$D/uclamp.prom")
has '^uclampctl_watch_rescans_total\{cause="start"\} 1$'
has '^uclamp_config_drift 1$'
cp -p "$D/uclamp.prom" "$W/before"

# killed while writing: the old file stays, and no other *.prom appears
python3 "$TESTS_SRCDIR/cli/fake-watch-status.py" "$W/w.sock" 1 "$W/never" >/dev/null 2>&1 &
SRV=$!
for _ in $(seq 50); do [ -S "$W/w.sock" ] && break; sleep 0.1; done
sleep 1.1	# a new file would have a later mtime
writer "$W/w.sock" >/dev/null 2>&1 &
WR=$!
for _ in $(seq 100); do [ -n "$(find "$D" -name '.uclamp.prom.*')" ] && break; sleep 0.05; done
kill -9 $WR
wait $WR 2>/dev/null
kill $SRV 2>/dev/null
wait $SRV 2>/dev/null
if cmp -s "$W/before" "$D/uclamp.prom" &&
	[ "$(stat -c %Y "$W/before")" = "$(stat -c %Y "$D/uclamp.prom")" ]; then
	_pass "killed: the old file is as it was (bytes and mtime)"
else
	_fail "killed: the file changed"
fi
# the collector reads *.prom only: the temporary file left is not one
OUT=$(cd "$D" && ls -A | grep '\.prom$')
[ "$OUT" = uclamp.prom ] && _pass "killed: no other *.prom" || _fail "killed: other *.prom files"
rm -f "$D"/.uclamp.prom.*

# a write that fails (the file size limit, SIGXFSZ ignored: EFBIG): the same
OUT=$(trap '' XFSZ; ulimit -f 0; writer "$W/none.sock" 2>&1)
RC=$?
[ $RC != 0 ] && _pass "a failed write: exit $RC" || _fail "a failed write: exit 0"
if cmp -s "$W/before" "$D/uclamp.prom" &&
	[ "$(stat -c %Y "$W/before")" = "$(stat -c %Y "$D/uclamp.prom")" ]; then
	_pass "a failed write: the old file is as it was"
else
	_fail "a failed write: the file changed"
fi
if [ -z "${WRITER-}" ]; then
	has "cannot write '.*uclamp.prom': File too large; the file was left as it was"
	OUT=$(cd "$D" && ls -A)
	hasnt '^\.uclamp\.prom\.'
fi

# usage
t "--textfile needs a file name" 2 "$UCLAMPCTL" status --textfile "$D/"
t "--textfile with another format" 2 "$UCLAMPCTL" status --textfile "$D/x.prom" --format=json
t "--config without prometheus" 2 "$UCLAMPCTL" status --config "$ROOT/u.conf"
t "a missing directory" 1 "$UCLAMPCTL" status --textfile "$W/nodir/uclamp.prom" --socket "$W/none.sock"
has "cannot open the directory of '.*/nodir/uclamp.prom': No such file or directory"
ln -s "$D" "$W/dirlink"
t "a link as the directory" 1 "$UCLAMPCTL" status --textfile "$W/dirlink/uclamp.prom" --socket "$W/none.sock"
has "is a symbolic link: give the directory it leads to"
finish
