# run: the clamp is written only for a command execve() can start. Besides
# the file itself, exec needs a script's interpreter (a chain of them, at
# most five), an ELF's program interpreter (PT_INTERP: the loader a binary
# built against another libc names), and a mount without noexec. Each case is
# first tried on the kernel directly (it refuses), then through 'run' with
# real changes and --yes: exit 127/126, nothing run, the key still 0. Then
# the limits match: five interpreters run, six do not (ELOOP); a relative
# interpreter is found from the working directory; and a good command still
# runs clamped. About 15 s under TCG.
# vm-on-7x: exec's rules (binfmt_script's #! line, exec_binprm's depth, binfmt_elf's PT_INTERP)
. "$(dirname "$0")/../lib.sh"
T=$(mktemp -d)
chmod 755 "$T"
expect_key 0 "right after boot"

# a script whose interpreter is not there
printf '#!/nonexistent/python3\nprint(1)\n' >"$T/script"
chmod 755 "$T/script"
run "$T/script"
check "the kernel cannot run it either (exit $RC)" test "$RC" = 127 -o "$RC" = 126
expect_rc 127 uclampctl run --min 200 --max 800 --yes -- "$T/script"
expect_out "its interpreter /nonexistent/python3: No such file or directory; nothing changed"
expect_no_out "util_min|util_max"
expect_key 0 "after a script whose interpreter is missing"

# a binary whose loader is not there (a copy of /bin/true, PT_INTERP patched)
python3 "$VM_DIR/../cli/patch-interp.py" "$T/elf" /nonexistent/ld.so
chmod 755 "$T/elf"
run "$T/elf"
check "the kernel cannot run it either (exit $RC)" test "$RC" = 127 -o "$RC" = 126
expect_rc 127 uclampctl run --min 200 --max 800 --yes -- "$T/elf"
expect_out "its program interpreter \(PT_INTERP\) /nonexistent/ld.so: No such file or directory"
expect_key 0 "after a binary whose loader is missing"

# a noexec mount
mkdir "$T/nx"
mount -t tmpfs -o noexec tmpfs "$T/nx"
cp /bin/true "$T/nx/true"
run "$T/nx/true"
check "the kernel refuses noexec (exit $RC)" test "$RC" = 126
expect_rc 126 uclampctl run --max 800 --yes -- "$T/nx/true"
expect_out "Permission denied"
# a script on an exec mount whose interpreter is on the noexec one
printf '#!%s\n' "$T/nx/true" >"$T/via-nx"
chmod 755 "$T/via-nx"
expect_rc 126 uclampctl run --max 800 --yes -- "$T/via-nx"
expect_out "its interpreter $T/nx/true: Permission denied"
expect_key 0 "after noexec"

# the chain's length: the command and five interpreters run, six do not
printf '#!/bin/sh\necho DEPTH-OK\n' >"$T/s5"
chmod 755 "$T/s5"
for i in 4 3 2 1 0; do
	printf '#!%s/s%d\n' "$T" $((i + 1)) >"$T/s$i"
	chmod 755 "$T/s$i"
done
# s1 -> s2 -> ... -> s5 -> /bin/sh: five interpreters after s1
run "$T/s1"
expect_out "DEPTH-OK"
expect_rc 0 uclampctl run --max 800 --dry-run -- "$T/s1"
# s0 -> s1 -> ...: six
run "$T/s0"
check "the kernel refuses six (exit $RC)" test "$RC" = 126
expect_rc 126 uclampctl run --max 800 --yes -- "$T/s0"
expect_out "Too many levels of symbolic links"
expect_key 0 "after six interpreters"

# a relative interpreter: from the working directory
printf '#!s5\n' >"$T/rel"
chmod 755 "$T/rel"
run sh -c "cd '$T' && ./rel"
expect_out "DEPTH-OK"
run sh -c "cd / && '$T/rel'"
check "the kernel: not found from / (exit $RC)" test "$RC" = 127
expect_rc 127 sh -c "cd / && exec '$UCLAMPCTL' run --max 800 --yes -- '$T/rel'"
expect_key 0 "after a relative interpreter not found"

# a good command still runs clamped: the script through its chain
expect_rc 0 sh -c "cd '$T' && exec '$UCLAMPCTL' run --min 200 --max 800 --yes -- ./rel"
expect_out "DEPTH-OK"
expect_rc 0 uclampctl run --min 200 --max 800 --yes -- "$T/s1"
expect_rc 0 uclampctl run --max 800 --yes -- sh -c 'uclampset -p $$'
expect_out "min: 0 max: 800"
expect_key 1 "a good command: clamped"
umount "$T/nx"
done_scenario
