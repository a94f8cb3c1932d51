#!/bin/bash
# The Ansible role (contrib/ansible) against a fake root: check mode writes
# nothing and reports the differences; a run is "changed", the next "ok";
# drift is seen by check mode and repaired; no consent and a bad value fail
# without applying anything. Needs ansible-playbook (Debian: ansible-core);
# skipped without it. The real kernel: tests/vm/scenarios/apply-ansible.sh.
if ! command -v ansible-playbook >/dev/null; then
	echo "SKIP: ansible-playbook not installed (apt-get install ansible-core)"
	exit 77
fi
if [ "$(id -u)" != 0 ]; then
	# the role installs the config root-owned (owner/group root): only root can
	echo "SKIP: the role writes root-owned files; run as root"
	exit 77
fi
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/cli/lib.sh"

fake_root
K=$ROOT/proc/sys/kernel
fake_sysctls 1024 1024 1024
A=$(mktemp -d "${TMPDIR:-/tmp}/uclampctl-ansible.XXXXXX")
_tmpdirs+=("$A")
mkdir -p "$A/home/tmp"
export HOME=$A/home ANSIBLE_LOCAL_TEMP=$A/home/tmp ANSIBLE_REMOTE_TEMP=$A/home/tmp \
	ANSIBLE_ROLES_PATH=$TESTS_SRCDIR/../contrib/ansible/roles ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 \
	ANSIBLE_LOCALHOST_WARNING=0 ANSIBLE_INVENTORY_UNPARSED_WARNING=0 ANSIBLE_PIPELINING=1 \
	ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3
PLAYBOOK=$TESTS_SRCDIR/../contrib/ansible/local.yml

vars() {	# ALLOW MAX
	cat >"$A/vars.yml" <<VARS
uclampctl_bin: $UCLAMPCTL
uclampctl_config_file: $A/uclampctl.conf
uclampctl_config_dir: $A/uclampctl.d
uclampctl_boot_service: false
uclampctl_allow_enable: $1
uclampctl_system:
  min: "50%"
  max: "$2"
  rt_default: 0
uclampctl_tasks:
  - name: none-running
    comm: [no-such-comm]
    user: [root, 0]
    policy: other
    max: 300
    threads: true
VARS
}
play() {
	local what=$1 want=$2
	shift 2
	OUT=$(ansible-playbook -i localhost, -c local "$PLAYBOOK" -e "@$A/vars.yml" "$@" </dev/null 2>&1)
	RC=$?
	if [ "$RC" = "$want" ]; then _pass "$what (exit $RC)"; else _fail "$what: exit $RC, expected $want"; fi
}
recap() {
	local got
	got=$(printf '%s\n' "$OUT" | grep -E '^localhost +:' | grep -oE "(changed|failed)=[0-9]+" | tr '\n' ' ')
	if [ "$got" = "$1" ]; then _pass "recap $1"; else _fail "recap '$got', expected '$1'"; fi
}
sys3() { same "$K/sched_util_clamp_min" "$1"; same "$K/sched_util_clamp_max" "$2"; same "$K/sched_util_clamp_min_rt_default" "$3"; }

vars true 90%
play "check mode on a fresh host" 0 --check
recap "changed=2 failed=0 "
has '"target": "kernel.sched_util_clamp_max"'
[ ! -e "$A/uclampctl.conf" ] && _pass "check mode wrote no file" || _fail "check mode wrote the file"
sys3 1024 1024 1024

play "first run" 0
recap "changed=2 failed=0 "
has '"after": "on"'
sys3 512 922 0
if grep -q '^comm = no-such-comm$' "$A/uclampctl.conf" && grep -q '^user = root 0$' "$A/uclampctl.conf" &&
	grep -q '^threads = yes$' "$A/uclampctl.conf" && grep -q '^allow-enable = yes$' "$A/uclampctl.conf"; then
	_pass "file rendered from the variables"
else
	_fail "file: $(cat "$A/uclampctl.conf")"
fi
play "second run" 0
recap "changed=0 failed=0 "
play "check mode after" 0 --check
recap "changed=0 failed=0 "

# drift: check mode names it, a run repairs exactly it
echo 700 >"$K/sched_util_clamp_max"
play "check mode sees the drift" 0 --check --diff
recap "changed=1 failed=0 "
has '"from": "700"'
# --diff: each value as the host has it and as the configuration wants it
has '^-kernel\.sched_util_clamp_max = 700$'
has '^\+kernel\.sched_util_clamp_max = 922$'
same "$K/sched_util_clamp_max" 700
play "a run repairs it" 0
recap "changed=1 failed=0 "
sys3 512 922 0

# a change without consent after a "reboot" (defaults again, so the fast path
# is not known to be on): the file is written, nothing applied, the play fails
fake_sysctls 1024 1024 1024
vars false 80%
play "no consent" 2
recap "changed=1 failed=1 "
has 'refused'
sys3 1024 1024 1024

# a bad value: the file is not even installed (validate), nothing applied
vars true 150%
play "a bad value" 2
recap "changed=0 failed=1 "
has 'out of range'
grep -q '^max = 80%$' "$A/uclampctl.conf" && _pass "old file kept" || _fail "file replaced: $(cat "$A/uclampctl.conf")"
sys3 1024 1024 1024

# the role as a collection: built, installed, and used by its full name
TOP=$TESTS_SRCDIR/..
OUT=$(ansible-galaxy collection build "$TOP/contrib/ansible" --output-path "$A/build" 2>&1)
coll=$(ls "$A"/build/uclamp-uclampctl-*.tar.gz 2>/dev/null)
[ -n "$coll" ] && _pass "ansible-galaxy collection build" || _fail "ansible-galaxy collection build"
OUT=$(tar tzf "$coll" 2>&1)
has '^roles/uclampctl/tasks/main\.yml$'
has '^plugins/modules/uclampctl_check\.py$'
t "ansible-galaxy collection install" 0 ansible-galaxy collection install -p "$A/collections" "$coll"
printf -- '- hosts: localhost\n  gather_facts: false\n  roles:\n    - uclamp.uclampctl.uclampctl\n' >"$A/coll.yml"
echo 600 >"$K/sched_util_clamp_max"
vars true 90%
PLAYBOOK=$A/coll.yml ANSIBLE_COLLECTIONS_PATH=$A/collections ANSIBLE_ROLES_PATH=$A/none \
	play "the collection's role, check mode" 0 --check --diff
recap "changed=2 failed=0 "	# the file (now allow-enable = yes, max = 90%) and the host
has '^\+kernel\.sched_util_clamp_max = 922$'
same "$K/sched_util_clamp_max" 600
printf '%s\n' "$OUT" | sed -n '/Compare the host/,/^$/p'

finish
