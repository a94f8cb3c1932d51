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
. "$TESTS_SRCDIR/ansible-lib.sh"
A=$(mktemp -d "${TMPDIR:-/tmp}/uclampctl-ansible.XXXXXX")
_tmpdirs+=("$A")
ansible_env "$A" "$TESTS_SRCDIR/.."
PLAYBOOK=$TESTS_SRCDIR/../contrib/ansible/local.yml

vars() {	# ALLOW MAX
	ansible_vars "$A" "$1" >"$A/vars.yml" <<VARS
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
has '"from": 700'
# --diff: each value as the host has it and as the configuration wants it
has '^-kernel\.sched_util_clamp_max = 700$'
has '^\+kernel\.sched_util_clamp_max = 922$'
same "$K/sched_util_clamp_max" 700
play "a run repairs it" 0
recap "changed=1 failed=0 "
sys3 512 922 0

# one variable changed: exactly that line of the file and that value of the host
vars true 80%
play "check mode of one changed variable" 0 --check --diff
recap "changed=2 failed=0 "
got=$(printf '%s\n' "$OUT" | grep -E '^[-+]' | grep -vE '^(\+\+\+|---) ' | LC_ALL=C sort | tr '\n' '|')
want="+kernel.sched_util_clamp_max = 819|+max = 80%|-kernel.sched_util_clamp_max = 922|-max = 90%|"
[ "$got" = "$want" ] && _pass "the diff is exactly the change" || _fail "diff '$got', expected '$want'"
sys3 512 922 0
play "the run of it" 0
recap "changed=2 failed=0 "
sys3 512 819 0

# a change without consent after a "reboot" (defaults again, so the fast path
# is not known to be on): the file is written, nothing applied, the play fails
fake_sysctls 1024 1024 1024
vars false 80%
play "no consent" 2
recap "changed=1 failed=1 "
has 'refused'
has 'Set uclampctl_allow_enable: true to'	# the role's variable, not only uclampctl's config key
sys3 1024 1024 1024

# a bad value: the file is not even installed (validate), nothing applied
vars true 150%
play "a bad value" 2
recap "changed=0 failed=1 "
has 'out of range'
grep -q '^max = 80%$' "$A/uclampctl.conf" && _pass "old file kept" || _fail "file replaced: $(cat "$A/uclampctl.conf")"
sys3 1024 1024 1024

# check mode with a bad value: uclampctl's message names the role's file, not /dev/stdin
vars true 150%
play "check mode, a bad value" 2 --check
has "$A/uclampctl\.conf:[0-9]+: invalid value '150%' for max in \[system\]"
hasnt '/dev/stdin:[0-9]'

# a user this host does not have: skipped by name, the rest applied, the play goes on
vars true 80%
sed -i 's/user: \[root, 0\]/user: [no-such-user-uclampctl]/' "$A/vars.yml"
play "check mode, an unknown user: skipped, not a failure" 0 --check
recap "changed=2 failed=0 "
has "\"target\": \"user no-such-user-uclampctl\""
has "\"file\": \"$A/uclampctl\.conf\""
play "a run with an unknown user: applied, the skip reported" 0
recap "changed=2 failed=0 "
has 'no such user on this host'
sys3 512 819 0

# ---- the template renders every key the configuration accepts ------------------------------
# The keys come from uclampctl itself (its "use ..." hint for an unknown key):
# a key added to the parser and not to the template fails here.
printf '[tasks k]\ncomm = x\nbogus-key = 1\n[system]\nbogus-key = 1\n[cgroup k]\nbogus-key = 1\n' >"$A/keys.conf"
OUT=$($UCLAMPCTL apply --check --config "$A/keys.conf" 2>&1)
keys_of() { printf '%s\n' "$OUT" | sed -n "s/.*unknown key 'bogus-key' in \[$1[^]]*\]; use //p" | sed 's/,\| or / /g'; }
TASK_KEYS=$(keys_of tasks)
SYS_KEYS=$(keys_of system)
CG_KEYS=$(keys_of cgroup)
[ -n "$TASK_KEYS" ] && [ -n "$SYS_KEYS" ] && [ -n "$CG_KEYS" ] && _pass "the parser's keys: $TASK_KEYS" ||
	_fail "no key lists from: $OUT"
{
	cat <<VARS
uclampctl_bin: $UCLAMPCTL
uclampctl_config_file: $A/all.conf
uclampctl_config_dir: $A/uclampctl.d
uclampctl_boot_service: false
uclampctl_apply_now: false
uclampctl_system:
  min: "50%"
  max: 900
  rt_default: 0
uclampctl_tasks:
  - name: every-key
    comm: [chrome, "chrom*"]
    user: [root, 0]
    group: [root]
    policy: [other, batch]
    cgroup: [app.slice, "app.slice/*"]
    exe: [/usr/bin/chromium]
    argv0: [chrome]
    parent: [systemd]
    cmdline: "* --type=renderer *"
    min: 100
    max: "30%"
    priority: 5
    reset_on_fork: true
    threads: true
    rt: false
    kernel_threads: false
VARS
	# a selector another change adds: only when this uclampctl knows it
	case " $TASK_KEYS " in *" unit "*) echo "    unit: [app.service]" ;; esac
	cat <<VARS
  - name: keep-out
    comm: [sshd]
    priority: 10
    exclude: true
VARS
} >"$A/all.yml"
OUT=$(ansible-playbook -i localhost, -c local "$PLAYBOOK" -e "@$A/all.yml" </dev/null 2>&1)
[ $? = 0 ] && _pass "the role renders a rule with every key" || _fail "role run: $OUT"
F=$A/all.conf
# one section's lines (SECTION NEXT-SECTION-PATTERN)
section() { awk -v s="$1" '$0 == s { on = 1; next } /^\[/ { on = 0 } on && NF' "$F"; }
for k in $TASK_KEYS; do
	[ "$k" = exclude ] && continue
	section "[tasks every-key]" | grep -q "^$k = " && _pass "[tasks] $k rendered" || _fail "[tasks] $k missing: $(cat "$F")"
done
section "[tasks keep-out]" | grep -qx "exclude = yes" && _pass "[tasks] exclude rendered" || _fail "[tasks] exclude missing"
for k in $SYS_KEYS; do
	section "[system]" | grep -q "^$k = " && _pass "[system] $k rendered" || _fail "[system] $k missing"
done
# [cgroup]: uclampctl finds cgroups in the real mount table, so the role's
# validation cannot pass in a fake root: the template alone renders them
OUT=$(ansible -i localhost, -c local localhost -m ansible.builtin.template \
	-a "src=$TESTS_SRCDIR/../contrib/ansible/roles/uclampctl/templates/uclampctl.conf.j2 dest=$A/cg.conf" \
	-e "@$A/all.yml" -e '{"uclampctl_allow_enable": false, "uclampctl_cgroups": [{"path": "app.slice", "min": 100, "max": "40%"}]}' 2>&1)
F=$A/cg.conf
for k in $CG_KEYS; do
	section "[cgroup app.slice]" | grep -q "^$k = " && _pass "[cgroup] $k rendered" || _fail "[cgroup] $k missing: $(cat "$F")"
done
F=$A/all.conf
# the values as given: lists joined, the glob whole, booleans as yes/no
for line in "comm = chrome chrom*" "user = root 0" "cgroup = app.slice app.slice/*" \
	"cmdline = * --type=renderer *" "max = 30%" "priority = 5" "reset-on-fork = yes" \
	"kernel-threads = no" "rt = no"; do
	section "[tasks every-key]" | grep -qxF "$line" && _pass "rendered: $line" || _fail "not rendered: $line"
done
# read back: uclampctl takes the file as it is (no error; 1 = the fake host differs)
t "apply --check reads the rendered file" 1 $UCLAMPCTL apply --check --config "$F"
hasnt "error|unknown"

# ---- argument_specs: bad variables stop the play before anything is written ----------------
refused() {	# SED WHAT GREP: all.yml edited by SED must stop the play, writing nothing
	sed "$1" "$A/all.yml" | sed "s|$A/all.conf|$A/bad.conf|" >"$A/bad.yml"
	OUT=$(ansible-playbook -i localhost, -c local "$PLAYBOOK" -e "@$A/bad.yml" </dev/null 2>&1)
	[ $? != 0 ] && _pass "$2 is refused" || _fail "$2 accepted"
	has "$3"
	[ ! -e "$A/bad.conf" ] && _pass "nothing written" || _fail "bad.conf written"
}
refused 's/^    priority: 5$/    priority: high/' "priority: high" "argument|priority"
refused 's/^    comm: \[chrome, "chrom\*"\]$/    comms: [chrome]/' "a misspelt key (comms)" "comms"

# ---- local.yml adds nothing: no consent, no RT default unless the variables say so ----------
printf 'uclampctl_bin: %s\nuclampctl_config_file: %s\nuclampctl_boot_service: false\nuclampctl_apply_now: false\n' \
	"$UCLAMPCTL" "$A/plain.conf" >"$A/plain.yml"
OUT=$(ansible-playbook -i localhost, -c local "$PLAYBOOK" -e "@$A/plain.yml" </dev/null 2>&1)
[ $? = 0 ] && _pass "local.yml with paths only" || _fail "local.yml: $OUT"
grep -qx "allow-enable = no" "$A/plain.conf" && _pass "local.yml: no consent" || _fail "local.yml consents: $(cat "$A/plain.conf")"
grep -q "rt-default\|^\[system\]" "$A/plain.conf" && _fail "local.yml sets [system]" || _pass "local.yml: no [system]"

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
