# The Ansible role (contrib/ansible) with Debian's ansible-core and -c local,
# on the real kernel: the first run is "changed" and sets everything (key 1);
# the second run is all "ok" (uclampctl wrote nothing). Ansible needs over a
# minute per run under TCG, so two runs and no more; check mode, refusals and
# drift are covered quickly by tests/cli/test-ansible.sh against a fake root.
# vm-timeout: 480
. "$(dirname "$0")/../lib.sh"
SRC=$(cd "$VM_DIR/../.." && pwd)
CG=/sys/fs/cgroup
T=$(mktemp -d)
if ! command -v ansible-playbook >/dev/null; then
	echo "  FAIL: ansible-playbook is not installed on the host (apt-get install ansible-core)"
	exit 1
fi
# / and HOME are read-only in the guest
export HOME=$T/home ANSIBLE_LOCAL_TEMP=$T/home/tmp ANSIBLE_REMOTE_TEMP=$T/home/tmp \
	ANSIBLE_ROLES_PATH=$SRC/contrib/ansible/roles ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 \
	ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3 ANSIBLE_LOCALHOST_WARNING=0 ANSIBLE_INVENTORY_UNPARSED_WARNING=0 \
	ANSIBLE_PIPELINING=1
mkdir -p "$HOME/tmp"
mkdir $CG/batch
expect_key 0 "right after boot"

cat >"$T/vars.yml" <<VARS
uclampctl_bin: $UCLAMPCTL
uclampctl_config_file: $T/uclampctl.conf
uclampctl_config_dir: $T/uclampctl.d
uclampctl_boot_service: false
uclampctl_allow_enable: true
uclampctl_system:
  min: "50%"
  max: "90%"
  rt_default: 0
uclampctl_cgroups:
  - path: batch
    max: "40%"
VARS
play() { SECONDS=0; run ansible-playbook -i localhost, -c local "$SRC/contrib/ansible/local.yml" -e "@$T/vars.yml" "$@"; echo "  ($SECONDS s)"; }
recap() { printf '%s\n' "$OUT" | grep -E '^localhost +:' | grep -oE "$1=[0-9]+"; }

play
check "first run: exit 0" test "$RC" = 0
check "first run: changed" test "$(recap changed)" = "changed=2"	# the file, the apply
expect_out '"after": "on"'
check "file written" grep -q '^max = 40%' "$T/uclampctl.conf"
check "sysctls set" test "$(cat /proc/sys/kernel/sched_util_clamp_{min,max,min_rt_default} | tr '\n' ' ')" = "512 922 0 "
check "cgroup set" test "$(cat $CG/batch/cpu.uclamp.max)" = "40.00"
expect_key 1 "after the first run"

play
check "second run: exit 0" test "$RC" = 0
check "second run: all ok" test "$(recap changed)" = "changed=0"
check "second run: failed=0" test "$(recap failed)" = "failed=0"
check "second run: the apply task itself is ok" test "$(printf '%s\n' "$OUT" | grep -A1 'TASK \[uclampctl : Apply the uclamp configuration\]' | tail -1)" = "ok: [localhost]"

done_scenario
