# What the Ansible tests share (tests/cli/test-ansible.sh against a fake root,
# tests/vm/scenarios/apply-ansible.sh on the real kernel).
# ansible_env DIR TOP: HOME and Ansible's temporary files under DIR (the VM's
# / and HOME are read-only), the role from the source tree TOP
ansible_env() {
	export HOME=$1/home ANSIBLE_LOCAL_TEMP=$1/home/tmp ANSIBLE_REMOTE_TEMP=$1/home/tmp \
		ANSIBLE_ROLES_PATH=$2/contrib/ansible/roles ANSIBLE_NOCOLOR=1 \
		ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_LOCALHOST_WARNING=0 \
		ANSIBLE_INVENTORY_UNPARSED_WARNING=0 ANSIBLE_PIPELINING=1 \
		ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3
	mkdir -p "$HOME/tmp"
}
# ansible_vars DIR CONSENT: the role's variables every run sets (files in DIR,
# no boot service), then the caller's from stdin
ansible_vars() {
	printf 'uclampctl_bin: %s\nuclampctl_config_file: %s\nuclampctl_config_dir: %s\n' \
		"$UCLAMPCTL" "$1/uclampctl.conf" "$1/uclampctl.d"
	printf 'uclampctl_boot_service: false\nuclampctl_allow_enable: %s\n' "$2"
	cat
}
