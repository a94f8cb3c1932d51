#!/bin/bash
# The per-boot symbol cache (src/lib/kmem.c): root keeps the address of
# sched_uclamp_used it found in /proc/kallsyms under /run/uclampctl/ksyms,
# keyed by boot_id, so write commands need not re-read kallsyms. The value is
# always read from /proc/kcore; another boot_id or an untrusted file is ignored.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/cli/lib.sh"
MK="${TESTS_SRCDIR:-$(dirname "$0")/..}/cli/mkkcore.py"
U=$UCLAMPCTL

if [ "$(id -u)" != 0 ]; then
	echo "the cache is root's: skipped as uid $(id -u)"
	exit 77
fi
fake_root
fake_release 6.1.0-test
fake_sysctls 1024 1024 1024
mkdir -p "$ROOT/proc/sys/kernel/random" "$ROOT/run"
echo 11111111-2222-3333-4444-555555555555 >"$ROOT/proc/sys/kernel/random/boot_id"
python3 "$MK" "$ROOT" --key 0 || _fail "mkkcore.py"
cache=$ROOT/run/uclampctl/ksyms

t "check reads kallsyms and kcore: off" 0 $U check
has "kcore"
same "$cache" "$(printf '11111111-2222-3333-4444-555555555555\nsched_uclamp_used %s' \
	"$(awk '$3 == "sched_uclamp_used" { sub(/^0+/, "", $1); print $1 }' "$ROOT/proc/kallsyms")")"
[ "$(stat -c %a "$cache")" = 600 ] && _pass "cache is 0600" || _fail "cache mode $(stat -c %a "$cache")"

# kallsyms without the symbol: only the cache can give the address now
grep -v ' sched_uclamp_used$' "$ROOT/proc/kallsyms" >"$ROOT/k" && mv "$ROOT/k" "$ROOT/proc/kallsyms"
t "same boot: the cached address, the value from kcore" 0 $U check
has "kcore"
python3 "$MK" "$ROOT" --key 1 --no-symbol >/dev/null 2>&1 || true
grep -q ' sched_uclamp_used$' "$ROOT/proc/kallsyms" && _fail "mkkcore --no-symbol listed the symbol"
t "the value is read fresh each time (now 1)" 1 $U check
has "kcore"

# another boot: the cache is ignored, and without the symbol the state is not known
echo 99999999-2222-3333-4444-555555555555 >"$ROOT/proc/sys/kernel/random/boot_id"
t "another boot_id: cache ignored" 3 $U check
hasnt "kcore"

# a cache others could have written is not trusted
echo 11111111-2222-3333-4444-555555555555 >"$ROOT/proc/sys/kernel/random/boot_id"
chmod 0644 "$cache"
t "group/other-readable cache ignored" 3 $U check
finish
