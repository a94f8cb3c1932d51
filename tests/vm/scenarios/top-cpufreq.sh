# 'uclampctl top' in the cpufreq guest: a busy loop pinned to CPU 1
# (helpers/cfload), first unclamped, then clamped with uclamp_max 300
# (task set --yes). Over three 1 s samples of 'top -J' each, judged from the
# second sample on (LISA's UtilClamp method: shares of time_in_state over
# the window, not single reads), the P-state the view predicts for CPU 1 is
# the one time_in_state shows it held, for at least 80% of the window:
# 3000 MHz unclamped, 800 under the clamp (the non-invariant formula from
# 3000: 1.25 x 3000 x 300/1024 -> 1200, then 800), also as user nobody.
# top reads only: the key is still 0 after it, and under strace it opens
# nothing for writing, sets no clamp and starts no process.
# vm-cpufreq: acpi-cpufreq P-states (800-3000 MHz) on every CPU, schedutil
# vm-on-7x: schedutil's formula (reworked in 6.8) and the sched file's util_est (one field from 6.8)
. "$(dirname "$0")/../lib.sh"
. "$VM_DIR/helpers/cpufreq.sh"
expect_key 0 "right after boot"
cf_setup
T=$(mktemp -d)

# judge FILE WANT_KHZ WANT_EFF_MAX: the samples of 'top -J' in FILE from the
# second on: CPU 1 predicted WANT_KHZ each time, held it longest and at least
# 80% of the window, and the load ran there with effective max WANT_EFF_MAX
judge() {
	python3 - "$1" "$2" "$3" "$CF_PID" "$CF_REL" <<'PY'
import json, sys
path, want, want_max, pid, rel = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
samples = [json.loads(l) for l in open(path)]
assert len(samples) == 3, "%d samples" % len(samples)
held, preds = {}, []
for s in samples[1:]:
    cpu = [c for c in s["cpus"] if c["cpu"] == 1][0]
    preds.append(cpu["predicted_khz"])
    for st in cpu["time_in_state"]:
        held[st["khz"]] = held.get(st["khz"], 0) + st["ms"]
    load = [k for k in s["tasks"] if k["tid"] == pid]
    assert load and load[0]["cpu"] == 1 and load[0]["eff_max"] == want_max, load
    assert load[0]["util_avg"] is not None and load[0]["util_avg"] > 512, load
total = sum(held.values())
top = max(held, key=held.get)
share = 100 * held[top] // total if total else 0
print("  predicted %s, held %d MHz %d%% of %d ms" % (preds, top // 1000, share, total))
print("top-step: %s | busy loop | uclamp_max %d | predicted %d | held %d | %d%%"
      % (rel, want_max, preds[-1] // 1000, top // 1000, share))
sys.exit(0 if preds == [want, want] and top == want and share >= 80 else 1)
PY
}

cf_load 1000000 1000000
cf_nap 0.5
# unclamped, under strace: what top opens, sets and starts
strace -f -qq -o "$T/trace" \
	-e trace=open,openat,openat2,creat,truncate,ftruncate,sched_setattr,clone,clone3,fork,vfork,execve,write,pwrite64,writev,unlink,unlinkat,rename,renameat,renameat2,mkdir,mkdirat \
	"$UCLAMPCTL" top -J -n 3 -d 1 -t 5 >"$T/free.json" 2>"$T/err"
check "top -J -n 3 under strace: three samples, nothing on stderr" \
	test "$(wc -l <"$T/free.json")" = 3 -a ! -s "$T/err"
check "unclamped: CPU 1 predicted and held 3000 MHz" judge "$T/free.json" 3000000 1024
expect_key 0 "after top (it reads only)"
bad=$(grep -E 'O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|^[0-9]+ +(creat|truncate|ftruncate|sched_setattr|clone|clone3|fork|vfork|unlink|unlinkat|rename|renameat|renameat2|mkdir|mkdirat)\(' "$T/trace")
printf '%s\n' "$bad" | head -n 5 | sed '/^$/d; s/^/    | /'
check "top opened nothing for writing, set no clamp, started nothing" test -z "$bad"
bad=$(grep -E '^[0-9]+ +(write|pwrite64|writev)\(' "$T/trace" | grep -Ev '^[0-9]+ +(write|writev)\(1,')
printf '%s\n' "$bad" | head -n 5 | sed '/^$/d; s/^/    | /'
check "top wrote to stdout only" test -z "$bad"
check "one exec (strace's), and the sched files were read" \
	test "$(grep -cE '^[0-9]+ +execve\(' "$T/trace")" = 1 -a "$(grep -c '/sched", O_RDONLY' "$T/trace")" -gt 0

expect_rc 0 uclampctl task set --max 300 --yes "$CF_PID"
expect_key 1 "after the clamp"
cf_nap 0.5
expect_rc 0 uclampctl top -J -n 3 -d 1 -t 5
printf '%s\n' "$OUT" >"$T/clamped.json"
check "uclamp_max 300: CPU 1 predicted and held 800 MHz" judge "$T/clamped.json" 800000 300
# as a normal user: the same prediction, nothing it could not see
expect_rc 0 setpriv --reuid=65534 --regid=65534 --clear-groups "$UCLAMPCTL" top -J --once -d 1 -t 3
check "as nobody: CPU 1 predicted 800 MHz, the load's max 300, no notes" python3 -c '
import json, sys
j = json.loads(sys.argv[1])
cpu = [c for c in j["cpus"] if c["cpu"] == 1][0]
load = [k for k in j["tasks"] if k["tid"] == int(sys.argv[2])][0]
assert cpu["predicted_khz"] == 800000 and load["eff_max"] == 300 and j["notes"] == [], j
' "$OUT" "$CF_PID"
# the text view of the same: one frame, 80 columns
expect_rc 0 uclampctl top --once -d 1 -t 3
expect_out "^ *$CF_PID +$CF_PID +cfload +1 +[0-9.]+ +[0-9]+ +[0-9]+ +0 +300 +0 +300 +[0-9]+ +800$"
check "the text view fits 80 columns" test -z "$(printf '%s\n' "$OUT" | awk 'length($0) > 80')"
kill "$CF_PID"
expect_key 1 "at the end"
done_scenario
