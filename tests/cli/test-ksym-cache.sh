#!/bin/bash
# The per-boot symbol cache (src/lib/kmem.c): root keeps the address of
# sched_uclamp_used it found in /proc/kallsyms under /run/uclampctl/ksyms,
# keyed by boot_id, so write commands need not re-read kallsyms. The value is
# always read from /proc/kcore; another boot_id or an untrusted file is ignored.
# The cache is a hint: only a 0 is taken from it; anything else, or a 0 that
# evidence contradicts, sends the tool back to /proc/kallsyms, which rewrites it.
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
# the fast path's lines of the cache ('check' also caches the placement and
# frequency-invariance keys of its findings, src/lib/effect.c: a read of one
# set keeps the other)
same_fp() {
	grep -vE '^(sched_asym_cpucapacity|sched_energy_present|arch_scale_freq_key|cpufreq_freq_invariance) ' \
		"$cache" >"$ROOT/fp-lines"
	same "$ROOT/fp-lines" "$1"
}

t "check reads kallsyms and kcore: off" 0 $U check
has "kcore"
same_fp "$(printf '11111111-2222-3333-4444-555555555555\nsched_uclamp_used %s' \
	"$(awk '$3 == "sched_uclamp_used" { sub(/^0+/, "", $1); print $1 }' "$ROOT/proc/kallsyms")")"
grep -q '^sched_asym_cpucapacity ffffffff89d46770$' "$cache" && _pass "the placement keys are cached too" ||
	_fail "no sched_asym_cpucapacity line in the cache"
[ "$(stat -c %a "$cache")" = 600 ] && _pass "cache is 0600" || _fail "cache mode $(stat -c %a "$cache")"
# a key this boot's kallsyms does not list (it lists data symbols) is cached
# as absent, "name -": the next run needs no kallsyms pass (the file keeps its inode)
grep -v ' sched_energy_present$' "$ROOT/proc/kallsyms" >"$ROOT/k" && mv "$ROOT/k" "$ROOT/proc/kallsyms"
rm -f "$cache"
t "a key the kernel lacks: cached as absent" 0 $U check
grep -qx 'sched_energy_present -' "$cache" && _pass "absent key cached as 'sched_energy_present -'" ||
	_fail "no 'sched_energy_present -' line in the cache"
ino=$(stat -c %i "$cache")
t "an absent key from the cache: no kallsyms pass" 0 $U check
[ "$(stat -c %i "$cache")" = "$ino" ] && _pass "cache file kept (no kallsyms pass)" ||
	_fail "the cache was rewritten: a kallsyms pass for a key known absent"

# 'check -v' says on, read from kernel memory
expect_on() {
	t "$1" 1 $U check -v
	has '^on \(kcore\)'
}
# a cache of sched_uclamp_used alone at address $1
key_addr() { awk -v n="$1" '$3 == n { sub(/^0+/, "", $1); print $1 }' "$ROOT/proc/kallsyms"; }
put_cache() {
	printf '11111111-2222-3333-4444-555555555555\nsched_uclamp_used %s\n' "$1" >"$cache"
	chmod 0600 "$cache"
}
# kallsyms without the key's symbol: then only the cache can give its address
drop_symbol() {
	grep -v ' sched_uclamp_used$' "$ROOT/proc/kallsyms" >"$ROOT/k" && mv "$ROOT/k" "$ROOT/proc/kallsyms"
}
drop_symbol
t "same boot: the cached address, the value from kcore" 0 $U check
has "kcore"
python3 "$MK" "$ROOT" --key 1 --no-symbol >/dev/null 2>&1 || true
grep -q ' sched_uclamp_used$' "$ROOT/proc/kallsyms" && _fail "mkkcore --no-symbol listed the symbol"
# the value is read fresh each time, but an "on" needs kallsyms to confirm
# the address, and kallsyms no longer lists it: not known
t "a cached address alone never says on" 3 $U check -v
hasnt '^on'
has "sched_uclamp_used reads 1 at its cached address"
# that re-read pass cached what it found: absent from a full symbol list
grep -qx 'sched_uclamp_used -' "$cache" && _pass "re-read: cached as absent" ||
	_fail "no 'sched_uclamp_used -' line after a pass without the symbol"
python3 "$MK" "$ROOT" --key 1 >/dev/null
put_cache "$(key_addr sched_uclamp_used)"	# unconfirmed, at the right address
expect_on "confirmed by kallsyms: on"
hasnt 'cached address'

# corrupt caches: the right boot, a wrong address
python3 "$MK" "$ROOT" --key 0 --set sched_smt_present=1 --set sched_schedstats=1024 >/dev/null
right=$(key_addr sched_uclamp_used)
put_cache "$(key_addr sched_smt_present)"
t "cache at another key that is on: not on" 0 $U check -v
has '^off \(kcore\)'
has "reads 1 at its cached address"
same_fp "$(printf '11111111-2222-3333-4444-555555555555\nsched_uclamp_used %s' "$right")"
put_cache "$(key_addr sched_schedstats)"
t "cache at a 1024: not on, repaired" 0 $U check -v
has '^off \(kcore\)'
has "1024 at 0x0*$(key_addr sched_schedstats) is not a 0/1 static key count"
same_fp "$(printf '11111111-2222-3333-4444-555555555555\nsched_uclamp_used %s' "$right")"
# a 0 that contradicts evidence (a non-default sysctl): re-read; the key is on
python3 "$MK" "$ROOT" --key 1 --set sched_schedstats=0 >/dev/null
put_cache "$(key_addr sched_schedstats)"
fake_sysctls 512 1024 1024
t "cached 0 against evidence: re-read, on" 1 $U check -v
has '^on \(kcore\)'
has "cache discarded, /proc/kallsyms gives 0x0*$right"
# and when the key really reads 0 against that evidence: unknown, both facts
python3 "$MK" "$ROOT" --key 0 >/dev/null
t "kcore 0 against evidence: unknown" 3 $U check
has "reads 0 at .*but there is evidence of use \(sysctl sched_util_clamp_min = 512"
hasnt '^off'
fake_sysctls 1024 1024 1024
put_cache "zzz"
t "malformed cache: ignored, rewritten" 0 $U check
same_fp "$(printf '11111111-2222-3333-4444-555555555555\nsched_uclamp_used %s' "$right")"
python3 "$MK" "$ROOT" --key 1 --no-symbol >/dev/null 2>&1 || true

# another boot: the cache is ignored, and without the symbol the state is not known
echo 99999999-2222-3333-4444-555555555555 >"$ROOT/proc/sys/kernel/random/boot_id"
t "another boot_id: cache ignored" 3 $U check
hasnt "kcore"

# a cache others could have written is not trusted
echo 11111111-2222-3333-4444-555555555555 >"$ROOT/proc/sys/kernel/random/boot_id"
chmod 0644 "$cache"
t "group/other-readable cache ignored" 3 $U check

# the directory as the writers' lock makes it first (0755, src/lib/lock.c):
# only root can write there, so the cache is kept and used
rm -rf "$ROOT/run/uclampctl"
mkdir -m 0755 "$ROOT/run/uclampctl"
python3 "$MK" "$ROOT" --key 0 >/dev/null
right=$(key_addr sched_uclamp_used)
t "cache written in the lock's 0755 directory" 0 $U check
same_fp "$(printf '11111111-2222-3333-4444-555555555555\nsched_uclamp_used %s' "$right")"
drop_symbol
t "and read from there" 0 $U check
has "kcore"
# an "on" confirmed by kallsyms is kept as such ("addr 1"): the key only
# ever goes from 0 to 1 until reboot, so later runs need no kallsyms for it
python3 "$MK" "$ROOT" --key 1 >/dev/null
right=$(key_addr sched_uclamp_used)
t "on, from kallsyms" 1 $U check
same_fp "$(printf '11111111-2222-3333-4444-555555555555\nsched_uclamp_used %s 1' "$right")"
drop_symbol
expect_on "confirmed on in the cache: on without kallsyms"
hasnt "re-read from /proc/kallsyms"
# confirmed on, but 0 there now: the address is wrong (the key never goes back)
python3 "$MK" "$ROOT" --key 0 >/dev/null
t "confirmed on, reads 0: re-read from kallsyms" 0 $U check -v
has "reads 0 at its cached address .*re-read from /proc/kallsyms"
same_fp "$(printf '11111111-2222-3333-4444-555555555555\nsched_uclamp_used %s' "$(key_addr sched_uclamp_used)")"
# a 1 in a cache line that does not parse otherwise: the whole file is ignored
put_cache "$(key_addr sched_uclamp_used) 1 1"
t "malformed confirmed line: ignored, rewritten" 0 $U check
same_fp "$(printf '11111111-2222-3333-4444-555555555555\nsched_uclamp_used %s' "$(key_addr sched_uclamp_used)")"
# a directory others may write to: not trusted (and kallsyms cannot help)
drop_symbol
chmod 0775 "$ROOT/run/uclampctl"
t "group-writable directory: cache ignored" 3 $U check
finish
