#!/bin/bash
# Which of the optional libraries each command loads, as the dynamic loader
# tells (LD_DEBUG=files): each only where it is used (uclamp/dlib.h):
# libsmartcols for tables, libcgroup where cgroups are read, libnl-3 for
# watch alone. And a library that cannot be loaded: one line naming it, exit
# 1 (check: 3, its "unknown"), nothing done.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/cli/lib.sh"

U=$UCLAMPCTL
fake_root 1024 1024 1024
fake_release 6.1.0
fake_key 0
if [ -e /proc/sys/kernel/sched_util_clamp_min ]; then HOST_UCLAMP=1; else HOST_UCLAMP=0; fi
sleep 600 & S=$!
alias_value "$S" S
trap 'kill $S 2>/dev/null; rm -rf "${_tmpdirs[@]}"' EXIT
ln -s "/proc/$S" "$ROOT/proc/$S"	# a real task in the fake /proc: sched_getattr answers
printf '[system]\nmax = 1024\n' >"$ROOT/system.conf"
: >"$ROOT/empty.conf"

# The libraries the last run loaded, by soname (its LD_DEBUG_OUTPUT files),
# and all seen so far in SONAMES.
SONAMES=
ld_files() { sed -n 's/.*[[:space:]]file=\(lib[^ /]*\) .*/\1/p' "$ROOT"/ld.* | sort -u; }
# is_loaded WHAT WANT: the optional ones among them ("cgroup smartcols") are
# exactly WANT's
is_loaded() {
	local got want
	SONAMES+=" $(ld_files | tr '\n' ' ')"
	got=$(ld_files | sed -n 's/^lib\(smartcols\|cgroup\|nl-3\|systemd\)\.so.*/\1/p' |
		tr '\n' ' ')
	want=$(printf '%s\n' $2 | sort -u | tr '\n' ' ')
	if [ "${got% }" = "${want% }" ]; then _pass "$1 loads: ${want:-none}"; else
		_fail "$1 loads: ${got:-none}, expected ${want:-none}"; fi
}
# loads WANT CMD...: run CMD under LD_DEBUG (stdout+stderr in OUT), then is_loaded
loads() {
	local want=$1
	shift
	rm -f "$ROOT"/ld.*
	OUT=$(LD_DEBUG=files LD_DEBUG_OUTPUT=$ROOT/ld "$@" </dev/null 2>&1)
	RC=$?
	is_loaded "uclampctl ${*:2} (exit $RC)" "$want"
}

loads "" $U --version
loads "" $U check -q
# the findings count the clamped cgroups
loads "cgroup" $U check
has '^off \(kcore\)'
loads "" $U task set --max 300 "$S"
has 'the fast path \(sched_uclamp_used\) turns on'
if [ "$HOST_UCLAMP" = 0 ]; then
	loads "" $U task set --max 300 --yes "$S"	# the write itself, refused by this kernel
	has 'util_max: this kernel has no uclamp'
fi
loads "smartcols" $U task set --dry-run --max 300 "$S"
has '^TARGET +ATTRIBUTE'
loads "smartcols" $U task show "$S"
has '^ *PID +TID'
loads "smartcols cgroup" $U task show -o PID,CGROUP "$S"
loads "smartcols" $U system show
loads "" $U system set --max 1024 --dry-run
loads "" $U apply --check -c "$ROOT/system.conf"
has '1 value\(s\) checked'
loads "cgroup" $U status --format prometheus
loads "smartcols cgroup" $U cgroup show
loads "smartcols cgroup" $U keys
# libsystemd (optional: a build without it never loads it) only where systemd is asked
loads "" $U task set --dry-run --all --max 300 --comm nothing-matches
# the daemon: a user cannot subscribe (exit 1), root's is stopped once it watches
rm -f "$ROOT"/ld.*
LD_DEBUG=files LD_DEBUG_OUTPUT=$ROOT/ld $U watch --foreground -c "$ROOT/empty.conf" \
	--socket "$ROOT/w.sock" </dev/null >"$ROOT/watch.out" 2>&1 &
WP=$!
for _ in $(seq 1 100); do
	grep -q 'watching' "$ROOT/watch.out" && break
	kill -0 $WP 2>/dev/null || break
	sleep 0.1
done
kill -TERM $WP 2>/dev/null
wait $WP
OUT=$(cat "$ROOT/watch.out")
is_loaded "watch" "nl-3"
has 'watching|proc connector'

# A library that cannot be loaded: an empty file of its name comes first on
# the search path (the sonames loaded above).
mkdir "$ROOT/nolib"
for so in $SONAMES; do
	case $so in libsmartcols.so* | libcgroup.so* | libnl-3.so*) : >"$ROOT/nolib/$so" ;; *) continue ;; esac
	alias_value "$so" "${so%%.so*}.so.N"	# Fedora's libcgroup is .so.3: one table for both
done
[ "$(ls "$ROOT/nolib" | wc -l)" = 3 ] && _pass "three sonames seen" || _fail "sonames seen: $SONAMES"
nolib() { LD_LIBRARY_PATH=$ROOT/nolib "$@"; }
t "tables without libsmartcols" 1 nolib $U system show
has '^uclampctl: cannot load libsmartcols\.so\.[0-9]+, needed for tables \(.*\): install the package that has it$'
[ "$(printf '%s\n' "$OUT" | wc -l)" = 1 ] && _pass "one line" || _fail "not one line"
t "cgroups without libcgroup" 1 nolib $U status
has '^uclampctl: cannot load libcgroup\.so\.[0-9]+, needed for cgroups'
hasnt '^kernel'
t "check without libcgroup: unknown" 3 nolib $U check
has 'cannot load libcgroup'
t "check -q needs none" 0 nolib $U check -q
t "cgroup set without libcgroup" 1 nolib $U cgroup set --max 300 --yes uclampctl-test-none
has 'cannot load libcgroup'
t "watch without libnl-3" 1 nolib timeout 20 $U -q watch --foreground -c "$ROOT/empty.conf" \
	--socket "$ROOT/w.sock"
has 'cannot load libnl-3\.so\.[0-9]+, needed for watch'
finish
