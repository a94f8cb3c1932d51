# Trusted configuration only (issue 9, item 8), on the real kernel: a drop-in
# owned by another user, one writable by everyone, a world-writable drop-in
# directory, a dangling symlink in it, a FIFO and a device as --config. Each
# is refused naming its file (exit 2), although the files ask for the fast
# path (allow-enable = yes): nothing is applied and the key stays 0. The
# same directory, made trusted, applies and flips the key.
. "$(dirname "$0")/../lib.sh"
T=$(mktemp -d)
sys3() { cat /proc/sys/kernel/sched_util_clamp_{min,max,min_rt_default} | tr '\n' ' '; }
expect_key 0 "right after boot"
before=$(sys3)

mkdir "$T/d"
chmod 0755 "$T/d"
printf '[fast-path]\nallow-enable = yes\n[system]\nmin = 10%%\nmax = 80%%\n' >"$T/d/50-clamp.conf"
chmod 0644 "$T/d/50-clamp.conf"

chown 65534 "$T/d/50-clamp.conf"
expect_rc 2 uclampctl apply --config "$T/d"
expect_out '50-clamp\.conf: not trusted \(owner 65534, mode 0644\): make it root-owned and not group/world-writable'
expect_out 'nothing changed'
chown 0 "$T/d/50-clamp.conf"

chmod 0666 "$T/d/50-clamp.conf"
expect_rc 2 uclampctl apply --config "$T/d" -J
expect_out '50-clamp\.conf: not trusted \(owner 0, mode 0666\)'
chmod 0644 "$T/d/50-clamp.conf"

chmod 0777 "$T/d"
expect_rc 2 uclampctl apply --config "$T/d/"
expect_out 'd/: not trusted \(owner 0, mode 0777\)'
chmod 0755 "$T/d"

ln -s "$T/gone.conf" "$T/d/60-gone.conf"
expect_rc 2 uclampctl apply --config "$T/d"
expect_out '60-gone\.conf: a dangling symbolic link'
rm "$T/d/60-gone.conf"

mkfifo "$T/fifo.conf"
expect_rc 2 timeout 20 "$UCLAMPCTL" apply --config "$T/fifo.conf"
expect_out 'fifo\.conf: a FIFO, not a regular file: refused without reading it'
expect_rc 2 timeout 20 "$UCLAMPCTL" apply --config /dev/zero
expect_out '/dev/zero: a character device, not a regular file'

check "sysctls untouched" test "$(sys3)" = "$before"
expect_key 0 "after every refusal"

# trusted now: applied, and the consent in the file is honoured
expect_rc 0 uclampctl apply --config "$T/d"
check "applied" test "$(cat /proc/sys/kernel/sched_util_clamp_{min,max} | tr '\n' ' ')" = "102 819 "
expect_key 1 "after the trusted apply"
done_scenario
