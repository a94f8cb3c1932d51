#!/bin/bash
# The man pages, which list the sysctl knobs by hand (uclampctl.conf(5),
# uclampctl(8)), list exactly the knob table's options (src/lib/sysctl.c), in
# its order: a knob added to the table and missed in one of them fails here.
# The table is read from the binary: the options of 'system set --help' are
# built from it. No other file lists them: the completions read --help
# (test-completion.sh), the Ansible role writes the keys it is given
# (test-ansible.sh renders every key), etc/uclampctl.conf shows one.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/cli/lib.sh"

TOP=$TESTS_SRCDIR/..

# "--min <value>   util_min (sched_util_clamp_min)": one line per knob
want=$("$UCLAMPCTL" system set --help | sed -nE 's/^ +--([a-z-]+) <value> +util_.*/\1/p' | xargs)
if [ "$(wc -w <<<"$want")" -ge 3 ]; then _pass "system set --help lists the knobs: $want"
else _fail "system set --help lists no knobs ('$want')"; fi

lists() {	# lists "WHAT" GOT: GOT (space-separated options) = the table's
	if [ "$2" = "$want" ]; then _pass "$1 lists $2"
	else FAIL=$((FAIL + 1)); echo "not ok - $1 lists '$2', the knob table '$want'"; fi
}

# uclampctl.conf(5): the ".BI key" items of SECTIONS' [system]
lists "uclampctl.conf(5) [system]" \
	"$(sed -n '/^\.SS \[system\]$/,/^\.SS /p' "$TOP/man/uclampctl.conf.5" |
		sed -nE 's/^\.BI ([a-z\\-]+) " = value"$/\1/p' | tr -d '\\' | xargs)"
# uclampctl(8): the synopsis of 'system set'
lists "uclampctl(8) system set" \
	"$(sed -n '/^\.B uclampctl system set$/,/^\.PP$/p' "$TOP/man/uclampctl.8" |
		sed -nE 's/^\.RB \[ \\-\\-([a-z\\-]+)$/\1/p' | tr -d '\\' | xargs)"
finish
