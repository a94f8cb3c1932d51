#!/bin/bash
# The files that list the sysctl knobs by hand (etc/uclampctl.conf, the
# Ansible role, uclampctl.conf(5), uclampctl(8)) list exactly the knob table's
# options (src/lib/sysctl.c), in its order: a knob added to the table and
# missed in one of them fails here. The table is read from the binary: the
# options of 'system set --help' are built from it. (The completions are
# checked against --help by test-completion.sh.)
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/cli/lib.sh"

TOP=$TESTS_SRCDIR/..
ROLE=$TOP/contrib/ansible/roles/uclampctl

# "--min <value>   util_min (sched_util_clamp_min)": one line per knob
want=$("$UCLAMPCTL" system set --help | sed -nE 's/^ +--([a-z-]+) <value> +util_.*/\1/p' | xargs)
if [ "$(wc -w <<<"$want")" -ge 3 ]; then _pass "system set --help lists the knobs: $want"
else _fail "system set --help lists no knobs ('$want')"; fi

lists() {	# lists "WHAT" GOT: GOT (space-separated options) = the table's
	if [ "$2" = "$want" ]; then _pass "$1 lists $2"
	else FAIL=$((FAIL + 1)); echo "not ok - $1 lists '$2', the knob table '$want'"; fi
}

# the commented [system] section: "#min = 50%" ... up to the next "#" line
lists "etc/uclampctl.conf [system]" \
	"$(sed -n '/^#\[system\]$/,/^#$/p' "$TOP/etc/uclampctl.conf" | sed -nE 's/^#([a-z-]+) = .*/\1/p' | xargs)"
# the template's loop over the [system] keys (role variables spell - as _)
lists "the Ansible template" \
	"$(grep -E "^\{% for key in \[.*\] if (key in )?uclampctl_system.* %\}$" "$ROLE/templates/uclampctl.conf.j2" |
		grep -oE "'[a-z_]+'" | tr -d "'" | tr _ - | xargs)"
lists "the Ansible role's defaults" \
	"$(sed -nE 's/^# \[system\]: any of (.*) \(values.*/\1/p' "$ROLE/defaults/main.yml" |
		tr -d ',' | tr _ - | xargs)"
lists "contrib/ansible/README.md" \
	"$(grep -E '^\| `uclampctl_system` ' "$TOP/contrib/ansible/README.md" | sed 's/.*`\[system\]`://' |
		grep -oE '`[a-z_]+`' | tr -d '`' | tr _ - | xargs)"
# uclampctl.conf(5): the ".BI key" items of SECTIONS' [system]
lists "uclampctl.conf(5) [system]" \
	"$(sed -n '/^\.SS \[system\]$/,/^\.SS /p' "$TOP/man/uclampctl.conf.5" |
		sed -nE 's/^\.BI ([a-z\\-]+) " = value"$/\1/p' | tr -d '\\' | xargs)"
# uclampctl(8): the synopsis of 'system set'
lists "uclampctl(8) system set" \
	"$(sed -n '/^\.B uclampctl system set$/,/^\.PP$/p' "$TOP/man/uclampctl.8" |
		sed -nE 's/^\.RB \[ \\-\\-([a-z\\-]+)$/\1/p' | tr -d '\\' | xargs)"
finish
