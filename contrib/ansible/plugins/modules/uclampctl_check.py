#!/usr/bin/python
# Compare the host with a uclamp configuration: 'uclampctl apply --check --json'.
# Ansible's "changed" is "applying would change something", and the result's
# diff lists each value as the host has it and as the configuration wants it,
# so 'ansible-playbook --check --diff' shows what a run would change.
# It only reads: uclampctl apply --check never writes.

DOCUMENTATION = r"""
module: uclampctl_check
short_description: Show what uclampctl apply would change (uclampctl apply --check)
description:
  - Runs C(uclampctl apply --check --json) and reports its differences as
    C(changed) and as a diff (one line per value, host vs configuration).
  - Never changes anything; runs in check mode too.
options:
  bin:
    description: The uclampctl binary.
    type: path
    default: /usr/bin/uclampctl
  config:
    description: Configuration paths (C(--config), repeatable, later wins); C(/dev/stdin) reads I(content).
    type: list
    elements: str
    default: []
  content:
    description: Configuration text given to uclampctl on stdin.
    type: str
  content_name:
    description: The file I(content) stands for; uclampctl's messages about C(/dev/stdin) name it instead.
    type: str
"""

RETURN = r"""
changes:
  description: The differences, as uclampctl apply --json lists them (target, attribute, from, to, ...).
  type: list
  returned: always
fast_path:
  description: The uclamp fast path's state before and after (as uclampctl reports it).
  type: dict
  returned: always
status:
  description: uclampctl's exit status (0 matches, 1 differs, 5 what could be compared matches but some targets were skipped).
  type: int
  returned: always
skipped_targets:
  description: The targets uclampctl skipped (not on this host, or cannot take the values), as its JSON lists them.
  type: list
  returned: always
"""

import json

from ansible.module_utils.basic import AnsibleModule


def lines(changes, side):
    """One 'what = value' line per change, for the diff."""
    out = []
    for c in changes:
        what = c.get("target", "?")
        attr = c.get("attribute")
        # a sysctl's target names it already (its attribute is the knob)
        if attr and attr not in what and c.get("kind") != "sysctl":
            what += " " + attr
        v = c.get(side)
        # numbers in the JSON: a cgroup's file reads as the kernel prints it
        if c.get("kind") == "cgroup" and isinstance(v, (int, float)):
            v = "max" if c.get("attribute") == "cpu.uclamp.max" and v >= 100 else "%.2f" % v
        out.append("%s = %s\n" % (what, v))
    return "".join(out)


def renamed(text, name):
    """uclampctl's messages about stdin, naming the file it stands for."""
    if not name or not isinstance(text, str):
        return text
    return text.replace("/dev/stdin:", name + ":")


def main():
    m = AnsibleModule(
        argument_spec=dict(
            bin=dict(type="path", default="/usr/bin/uclampctl"),
            config=dict(type="list", elements="str", default=[]),
            content=dict(type="str"),
            content_name=dict(type="str"),
        ),
        supports_check_mode=True,
    )
    argv = [m.params["bin"], "apply", "--check", "--json"]
    for path in m.params["config"]:
        argv += ["--config", path]
    rc, out, err = m.run_command(argv, data=m.params["content"], binary_data=True)
    name = m.params["content_name"]
    err = renamed(err, name)
    # 0 matches, 1 differs (listed in the JSON), 5 skipped some; anything else is an error
    if rc not in (0, 1, 5):
        m.fail_json(msg=(err or renamed(out, name)).strip() or "uclampctl exited %d" % rc,
                    rc=rc, stdout=renamed(out, name), stderr=err, cmd=argv)
    try:
        res = json.loads(out)
    except ValueError:
        m.fail_json(msg="uclampctl printed no JSON", rc=rc, stdout=out, stderr=err, cmd=argv)
    changes = res.get("changes", [])
    skipped = res.get("skipped", [])
    for k in skipped:
        if name and k.get("file") == "/dev/stdin":
            k["file"] = name
    # not "rc": Ansible takes a non-zero rc for a failure
    m.exit_json(changed=rc == 1, status=rc, changes=changes, skipped_targets=skipped,
                fast_path=res.get("fast_path", {}),
                enables_fast_path=res.get("enables_fast_path", False),
                diff=dict(before_header="host", after_header="uclampctl.conf",
                          before=lines(changes, "from"), after=lines(changes, "to")))


if __name__ == "__main__":
    main()
