#!/bin/bash
# Global usage: help, version, unknown commands and options, and every
# command's (and subcommand's) --help. Exit codes: 0 ok, 2 usage errors.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/cli/lib.sh"
fake_root 1024 1024 1024
fake_release 6.1.0

# u "what" N ARGS...: run uclampctl ARGS, expect exit N; stdout in $SO, stderr in $SE.
SO= SE=
TMP=$(mktemp -d "${TMPDIR:-/tmp}/uclampctl-usage.XXXXXX")
_tmpdirs+=("$TMP")
run_only() {
	"$UCLAMPCTL" "$@" </dev/null >"$TMP/out" 2>"$TMP/err"
	RC=$?
	SO=$(cat "$TMP/out")
	SE=$(cat "$TMP/err")
	OUT="stdout: $SO
stderr: $SE"
}
u() {
	local what=$1 want=$2
	shift 2
	bad_begin
	run_only "$@"
	bad_end "$what" "$want" "$UCLAMPCTL" "$@"
	if [ "$RC" = "$want" ]; then _pass "$what (exit $RC)"; else _fail "$what: exit $RC, expected $want"; fi
}
# in_so / in_se REGEX; no_so / no_se: stdout / stderr empty
in_so() { if printf '%s\n' "$SO" | grep -Eq -- "$1"; then _pass "stdout has /$1/"; else _fail "stdout lacks /$1/"; fi; }
in_se() { if printf '%s\n' "$SE" | grep -Eq -- "$1"; then _pass "stderr has /$1/"; else _fail "stderr lacks /$1/"; fi; }
no_so() { if [ -z "$SO" ]; then _pass "stdout empty"; else _fail "stdout not empty"; fi; }
no_se() { if [ -z "$SE" ]; then _pass "stderr empty"; else _fail "stderr not empty"; fi; }
se_lines() {
	local n
	n=$(printf '%s\n' "$SE" | grep -c .)
	if [ "$n" = "$1" ]; then _pass "stderr has $1 line(s)"; else _fail "stderr has $n lines, expected $1"; fi
}

# ---- no arguments: usage on stderr, exit 2 -----------------------------------
u "no arguments" 2
no_so
in_se '^Usage:'
in_se 'uclampctl \[options\] <command>'
u "only global options" 2 -q
no_so
in_se '^Usage:'

# ---- --help / -h: usage on stdout, exit 0 ------------------------------------
for h in --help -h; do
	u "$h" 0 "$h"
	no_se
	in_so '^Usage:'
	in_so '^Commands:'
	in_so '^Options:'
	in_so 'Exit status: 0 ok, 1 failed, 2 usage'
	in_so 'Values: 0\.\.1024'
done
u "-v --help" 0 -v --help
in_so '^Usage:'

# Every command of the table is listed.
u "--help for the command list" 0 --help
commands=$(printf '%s\n' "$SO" | sed -n '/^Commands:/,/^$/p' | awk 'NF > 1 && $1 != "Commands:" { print $1 }')
for c in status check keys task run system cgroup apply; do
	if printf '%s\n' "$commands" | grep -qx "$c"; then _pass "usage lists '$c'"; else _fail "usage does not list '$c'"; fi
done

# ---- version -------------------------------------------------------------------
for v in -V --version; do
	u "$v" 0 "$v"
	no_se
	in_so '^uclampctl [0-9]+\.[0-9]+\.[0-9]+$'
done

# ---- unknown commands and options: one line + "Try ...", exit 2 ------------------
u "unknown command" 2 frobnicate
no_so
se_lines 2
in_se "^uclampctl: unknown command 'frobnicate'$"
in_se "^Try 'uclampctl --help' for more information\.$"

u "unknown long option" 2 --frobnicate
no_so
se_lines 2
in_se "unrecognized option '--frobnicate'"
in_se "^Try 'uclampctl --help' for more information\.$"

u "unknown short option" 2 -x
no_so
se_lines 2
in_se "invalid option -- 'x'"
in_se "^Try 'uclampctl --help'"

u "unknown option before a command" 2 --frobnicate status
no_so
in_se "unrecognized option '--frobnicate'"

u "command names are case-sensitive" 2 STATUS
in_se "unknown command 'STATUS'"

# ---- each command's --help --------------------------------------------------------
cmd_help() {
	u "uclampctl $*" 0 "$@"
	[ "$RC" = 0 ] || return 1
	no_se
	in_so '^Usage:'
	in_so "uclampctl ${1}"
	return 0
}
for c in status check keys run apply; do
	cmd_help "$c" --help
	cmd_help "$c" -h >/dev/null
done
groups="task:show,set,reset system:show,set cgroup:show,set"
for g in $groups; do
	c=${g%%:*}
	subs=${g#*:}
	cmd_help "$c" --help || continue
	# the group's help lists its subcommands
	group_help=$SO
	for s in ${subs//,/ }; do
		SO=$group_help
		in_so "^ $s |uclampctl $c $s"
		cmd_help "$c" "$s" --help
	done
	# a group without a subcommand: usage on stderr, exit 2
	u "uclampctl $c (no subcommand)" 2 "$c"
	no_so
	in_se '^Usage:'
	u "uclampctl $c frobnicate" 2 "$c" frobnicate
	in_se "unknown command '$c frobnicate'"
	in_se "^Try 'uclampctl $c --help'"
done

# ---- global options after the command (as systemctl): the same as before it ----
u "status -v: as -v status" 0 status -v
in_so '^kernel '
u "-q after every command's help is accepted" 0 keys -q
for c in status check keys "task show" "task set" "task reset" run "system show" "system set" \
	"cgroup show" "cgroup set" apply "watch status" watch; do
	for g in -V --version; do
		# shellcheck disable=SC2086
		u "uclampctl $c $g" 0 $c $g
		in_so '^uclampctl [0-9]+\.[0-9]+\.[0-9]+$'
	done
	# shellcheck disable=SC2086
	u "uclampctl $c --wait 5 -q -v --help" 0 $c --wait 5 -q -v --help
	in_so '^Usage:'
	# shellcheck disable=SC2086
	u "uclampctl $c --wait=-1" 2 $c --wait=-1
	in_se "^uclampctl: invalid value '-1' for --wait"
	in_se "^Try 'uclampctl "
done
u "check -q: nothing printed" 3 check -q
no_so
no_se
u "keys --quiet: no -v notes" 0 keys --quiet -v
no_se
u "system show -v --verbose" 0 system show -v --verbose
in_so '^KNOB '

# Every implemented command rejects an unknown option with exit 2 and a "Try" line.
for c in status check keys "task show" "task set" "task reset" run "system show" "system set" \
	"cgroup show" "cgroup set" apply; do
	# shellcheck disable=SC2086
	"$UCLAMPCTL" $c --help </dev/null >/dev/null 2>&1 || continue
	# shellcheck disable=SC2086
	u "uclampctl $c --frobnicate" 2 $c --frobnicate
	in_se "Try 'uclampctl $c --help'"
done

# ---- a successful write with --yes: one summary line, the warning once; -q: nothing ----
fake_key 0
u "system set --yes, key off" 0 system set --min 60% --max 80% --yes
in_so '^changed 2, unchanged 0, gone 0, failed 0$'
[ "$(printf '%s\n' "$SO" | grep -c .)" = 1 ] && _pass "one line on stdout" || _fail "stdout is not one line"
se_lines 1
in_se '^uclampctl: warning: the fast path \(sched_uclamp_used\) turns on until reboot$'
fake_sysctls 1024 1024 1024
u "system set --yes -q, key off" 0 system set --min 60% --max 80% --yes -q
no_so
no_se
fake_sysctls 1024 1024 1024
u "-q system set --yes, key off" 0 -q system set --min 60% --max 80% --yes
no_so
no_se
if [ "$(cat "$ROOT/proc/sys/kernel/sched_util_clamp_max")" = 819 ]; then _pass "-q wrote"; else _fail "-q did not write"; fi

finish
