# A flip done outside uclampctl, with the default value: the key is read
# from kernel memory, so status sees it although no value differs from the
# defaults (nobody, with evidence only, cannot: unknown, never off).
# Also the System.map + KASLR path against the real kernel: a root whose
# kallsyms lists only text symbols (as without KALLSYMS_ALL), with a
# System.map at link-time addresses made from the real symbols; /proc/kcore
# and /proc/sys are the real ones.
# vm-on-7x: the key read from kcore, with no value changed
. "$(dirname "$0")/../lib.sh"
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"; }
CG=/sys/fs/cgroup
mkdir -p $CG/x
R=$(mktemp -d)
mkdir -p "$R/proc" "$R/boot"
ln -s /proc/kcore "$R/proc/kcore"
ln -s /proc/sys "$R/proc/sys"
python3 - "$R" "$(uname -r)" <<'PY'
import sys
root, rel = sys.argv[1], sys.argv[2]
syms = [l.split() for l in open("/proc/kallsyms")]
off = next(int(p[0], 16) for p in syms if len(p) == 3 and p[2] == "_text") - 0xFFFFFFFF81000000
with open(root + "/proc/kallsyms", "w") as k, open(root + "/boot/System.map-" + rel, "w") as m:
    for p in syms:
        if len(p) != 3:
            continue  # module symbols
        m.write("%016x %s %s\n" % ((int(p[0], 16) - off) % 2**64, p[1], p[2]))
        if p[1] in "tTwW" or p[2].startswith("__"):
            k.write(" ".join(p) + "\n")
PY
# the fake root needs the test build's seam ('uclampctl' has none)
mapcheck() { UCLAMPCTL_SYSROOT=$R "$UCLAMPCTL_TEST" check; }
addr=0x$(awk '$3 == "sched_uclamp_used" { print $1 }' /proc/kallsyms | sed 's/^0*//')
expect_key 0 "right after boot"
expect_rc 0 uclampctl status
expect_out '^fast path +off \(source: kcore\)$'
expect_rc 0 mapcheck
expect_out "^off \(system-map\): sched_uclamp_used = 0, read from /proc/kcore at $addr \(/boot/System.map-$(uname -r) \+ KASLR offset\)$"
expect_rc 0 sh -c "echo max > $CG/x/cpu.uclamp.max"
expect_key 1 "after echo max > cpu.uclamp.max"
expect_rc 0 uclampctl status
expect_out '^fast path +on \(source: kcore\)$'
expect_out 'sched_uclamp_used = 1, read from /proc/kcore'
expect_no_out '^evidence'
expect_rc 1 uclampctl check
expect_rc 1 mapcheck
expect_out "^on \(system-map\): sched_uclamp_used = 1, read from /proc/kcore at $addr "
expect_rc 0 uclampctl keys -r -n -o KEY,STATE
expect_out '^sched_uclamp_used on$'
expect_rc 3 nobody "$UCLAMPCTL" check
expect_rc 0 nobody "$UCLAMPCTL" keys -r -n -o KEY,STATE
expect_out '^sched_uclamp_used unknown$'
done_scenario
