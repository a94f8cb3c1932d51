# The per-boot address cache (/run/uclampctl/ksyms) is a hint, not a truth.
# A wrong address in it, pointing at a value no 0/1 key has (the sysctl's
# 1024) or at another static key that is on, makes neither 'check' say on
# nor 'task set' skip consent: the reading is re-checked against
# /proc/kallsyms and the cache repaired. Later, with the key on through a
# sysctl (evidence), a cache pointing at a 0 is discarded too; once kallsyms
# confirmed the key at 1, the cache says so and kallsyms is not read again.
# First, cold: one kallsyms pass serves check's fast-path and placement keys.
# vm-on-7x: the placement keys' names and layout in kallsyms and kcore
. "$(dirname "$0")/../lib.sh"
cache=/run/uclampctl/ksyms
boot=$(cat /proc/sys/kernel/random/boot_id)
sym() { awk -v n="$1" '$3 == n { sub(/^0+/, "", $1); print $1; exit }' /proc/kallsyms; }
put_cache() { printf '%s\nsched_uclamp_used %s\n' "$boot" "$1" >"$cache" && chmod 0600 "$cache"; }
# cache_at SYM VALUE [WHAT]: check that SYM reads VALUE, point the cache at it ($addr)
cache_at() {
	addr=$(sym "$1")
	check "$1 reads $2${3:+ ($3)}" test "$(key "$1")" = "$2"
	put_cache "$addr"
}
right=$(sym sched_uclamp_used)
expect_key 0 "right after boot"

# cold: one kallsyms pass for the fast path's key and check's placement keys
# (effect.c), all cached together (each with its address, or "-": not in this kernel)
trace=$(mktemp)
expect_rc 0 strace -f -qq -e trace=openat -o "$trace" "$UCLAMPCTL" check
check "a cold check opens /proc/kallsyms once" test "$(grep -c '"/proc/kallsyms"' "$trace")" = 1
check "check wrote the cache with the kallsyms address" grep -qx "sched_uclamp_used $right" "$cache"
for k in sched_asym_cpucapacity sched_energy_present; do
	check "the same pass cached $k" grep -qE "^$k ([0-9a-f]+|-)\$" "$cache"
done

# 1. the sysctl's value: 1024 is no 0/1 static key count
cache_at sysctl_sched_uclamp_util_min 1024
expect_rc 0 uclampctl check -v
expect_out '^off \(kcore\): sched_uclamp_used = 0'
expect_out "1024 at 0x0*$addr is not a 0/1 static key count"
check "the cache is repaired" grep -qx "sched_uclamp_used $right" "$cache"

# 2. another static key that is on (a default-true scheduler feature)
cache_at sched_feat_keys 1 "[0], GENTLE_FAIR_SLEEPERS"
other=$addr
expect_rc 0 uclampctl check -v
expect_out '^off \(kcore\)'
expect_out "sched_uclamp_used reads 1 at its cached address 0x0*$other"
expect_no_out '^on'
check "the cache is repaired" grep -qx "sched_uclamp_used $right" "$cache"
# ... and a write without consent is still refused
put_cache "$other"
sleep 1000 &
victim=$!
expect_rc 3 uclampctl task set --min 100 $victim
expect_out 'refused: the fast path \(sched_uclamp_used\) turns on until reboot'
check "the victim is untouched" test "$(tclamp $victim)" = "0 1024"
expect_key 0 "after a refused write through a wrong cache"
put_cache "$(sym sysctl_sched_uclamp_util_min)"
expect_rc 3 uclampctl system set --min 100
expect_out 'refused: the fast path \(sched_uclamp_used\) turns on until reboot'
expect_key 0 "after a refused sysctl write through a 1024 cache"

# 3. the key on (a sysctl: evidence), the cache at a key that reads 0
expect_rc 0 uclampctl system set --min 512 --yes
expect_key 1 "after 'system set --min 512 --yes'"
cache_at sched_smt_present 0
zero=$addr
expect_rc 1 uclampctl check -v
expect_out '^on \(kcore\)'
expect_out "0 at the cached address 0x0*$zero against evidence of use: cache discarded"
# repaired, with the 1 kallsyms confirmed: the key stays on until reboot
check "the cache is repaired, the key confirmed on" grep -qx "sched_uclamp_used $right 1" "$cache"
# so the next commands read the key through the cache alone (a kallsyms
# pass would have written a new cache file: another inode)
ino=$(stat -c %i "$cache")
expect_rc 1 uclampctl check -v
expect_out '^on \(kcore\)'
expect_no_out 're-read from /proc/kallsyms|cache discarded'
check "no kallsyms pass with the key confirmed on" test "$(stat -c %i "$cache")" = "$ino"
# a well-formed cache that is not root's 0600 file is not read at all
put_cache "$zero"
chmod 0644 "$cache"
expect_rc 1 uclampctl check -v
expect_no_out 'cached address'
check "the cache is rewritten 0600" test "$(stat -c %a "$cache")" = 600
kill $victim
done_scenario
