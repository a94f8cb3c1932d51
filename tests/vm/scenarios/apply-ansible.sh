# The Ansible role (contrib/ansible) with Debian's ansible-core and -c local,
# on the real kernel, as an admin uses it, with a rule that picks a process
# by its cgroup (two processes with one comm, only one in that cgroup):
#   1. --check --diff on a fresh host: the file it would write and the clamp
#      it would set, as a diff; nothing written, the key still 0
#   2. the run (with uclampctl_allow_enable): only the process in the cgroup
#      is clamped, and the key goes 0 -> 1
#   3. the same run again: changed=0; 4. --check --diff after it: no change
#   5. one variable changed: --check --diff shows exactly that change, and
#   6. the run makes exactly that change.
# ansible-playbook costs over a minute a run under TCG (the controller's start
# more than the module runs): these six and no more; the refusal without
# consent, drift, bad values and every key of the template are covered quickly
# by tests/cli/test-ansible.sh against a fake root. On a host loaded ~15x
# (2026-12-02) a run took ~10 min of wall time: scale with UCLAMP_VM_TIMEOUT_SCALE.
# vm-timeout: 1200
. "$(dirname "$0")/../lib.sh"
SRC=$(cd "$VM_DIR/../.." && pwd)
CG=/sys/fs/cgroup
T=$(mktemp -d)
chmod 755 "$T"
if ! command -v ansible-playbook >/dev/null; then
	echo "  FAIL: ansible-playbook is not installed on the host (apt-get install ansible-core)"
	exit 1
fi
. "$SRC/tests/ansible-lib.sh"
ansible_env "$T" "$SRC"
expect_key 0 "right after boot"

# one comm, two cgroups: uctest.slice/a (the rule's) and uctest.slice/ab (a
# name that only starts like it)
cp /bin/sleep "$T/uc-worker"
mkdir -p $CG/uctest.slice/a $CG/uctest.slice/ab
sh -c "echo \$\$ >$CG/uctest.slice/a/cgroup.procs; exec $T/uc-worker 900" & IN=$!
sh -c "echo \$\$ >$CG/uctest.slice/ab/cgroup.procs; exec $T/uc-worker 900" & OUTSIDE=$!
sleep 1
check "uc-worker $IN sits in uctest.slice/a" grep -qx '0::/uctest.slice/a' /proc/$IN/cgroup
check "uc-worker $OUTSIDE sits in uctest.slice/ab" grep -qx '0::/uctest.slice/ab' /proc/$OUTSIDE/cgroup

vars() {	# CONSENT MAX
	ansible_vars "$T" "$1" >"$T/vars.yml" <<VARS
uclampctl_cgroups:
  - path: uctest.slice
    max: "80%"
uclampctl_tasks:
  - name: worker-in-a
    comm: [uc-worker]
    cgroup: [/uctest.slice/a]
    max: $2
VARS
}
play() {
	SECONDS=0
	run ansible-playbook -i localhost, -c local "$SRC/contrib/ansible/local.yml" -e "@$T/vars.yml" "$@"
	echo "  (ansible-playbook $*: $SECONDS s)"
}
recap() { printf '%s\n' "$OUT" | grep -E '^localhost +:' | grep -oE "(changed|failed)=[0-9]+" | tr '\n' ' '; }
# the requested clamps, as sched_getattr reads them: "min max"
clamps() {
	uclampctl task show -J "$1" | python3 -c 'import json, sys
t = json.load(sys.stdin)["tasks"][0]
print(t["util_min"], t["util_max"])'
}
# the diff's added and removed lines ("+max = 300"), without the headers
diff_lines() { printf '%s\n' "$OUT" | grep -E '^[-+]' | grep -vE '^(\+\+\+|---) ' | LC_ALL=C sort | tr '\n' '|'; }
state() { echo "$(clamps $IN)/$(clamps $OUTSIDE)/$(cat $CG/uctest.slice/cpu.uclamp.max)"; }
check "clamps before: defaults" test "$(state)" = "0 1024/0 1024/max"

# ---- 1. check mode on a fresh host: the diff, and nothing changes --------------------------
vars true 300
play --check --diff
check "check: exit 0" test "$RC" = 0
check "check: changed=2 (the file, the host)" test "$(recap)" = "changed=2 failed=0 "
expect_out '^\+\[tasks worker-in-a\]$'
expect_out '^\+cgroup = /uctest.slice/a$'
expect_out '^\+allow-enable = yes$'
expect_out "^-pid $IN \\(uc-worker\\) util_max = 1024$"
expect_out "^\\+pid $IN \\(uc-worker\\) util_max = 300$"
expect_out '^\+uctest.slice cpu.uclamp.max = 80.00$'
expect_no_out "pid $OUTSIDE"
check "check: no file written" test ! -e "$T/uclampctl.conf"
check "check: clamps unchanged" test "$(state)" = "0 1024/0 1024/max"
expect_key 0 "after --check --diff"

# ---- 2. the run: only the process in the cgroup is clamped ----------------------------------
vars true 300
play
check "run: exit 0" test "$RC" = 0
check "run: changed=2 (the file, the apply)" test "$(recap)" = "changed=2 failed=0 "
expect_out '"after": "on"'
check "run: $IN clamped, $OUTSIDE not, the cgroup set" test "$(state)" = "0 300/0 1024/80.00"
expect_key 1 "after the run"

# ---- 3, 4. idempotence: the same run, then check mode --------------------------------------
play
check "second run: exit 0" test "$RC" = 0
check "second run: changed=0" test "$(recap)" = "changed=0 failed=0 "
play --check --diff
check "check after: exit 0" test "$RC" = 0
check "check after: changed=0" test "$(recap)" = "changed=0 failed=0 "
check "check after: no diff" test -z "$(diff_lines)"
check "check after: clamps as set" test "$(state)" = "0 300/0 1024/80.00"

# ---- 5, 6. one variable changed: exactly that change ----------------------------------------
vars true 200
play --check --diff
check "check of max 200: changed=2" test "$(recap)" = "changed=2 failed=0 "
check "check of max 200: exactly the max, in the file and on the host" test "$(diff_lines)" = \
	"+max = 200|+pid $IN (uc-worker) util_max = 200|-max = 300|-pid $IN (uc-worker) util_max = 300|"
check "check of max 200: clamps unchanged" test "$(state)" = "0 300/0 1024/80.00"
play
check "run of max 200: changed=2" test "$(recap)" = "changed=2 failed=0 "
expect_out "\"target\": \"pid $IN \\(uc-worker\\)\""
expect_out '"from": 300'
expect_out '"to": 200'
check "run of max 200: one change" test "$(printf '%s\n' "$OUT" | grep -c '"target": ')" = 1
check "run of max 200: only $IN's max" test "$(state)" = "0 200/0 1024/80.00"
expect_key 1 "at the end"
kill $IN $OUTSIDE

done_scenario
