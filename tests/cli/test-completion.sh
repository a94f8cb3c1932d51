#!/bin/bash
# The shell completions (completions/): each shell's own completion engine on
# partial command lines, compared with the candidates expected. bash: the
# completion function with COMP_WORDS/COMP_CWORD; zsh: compinit in a
# pseudo-terminal (tests/cli/complete.zsh); fish: 'complete -C'. A missing
# shell is skipped with a message; all three missing: exit 77.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/cli/lib.sh"

COMPL=$TESTS_SRCDIR/../completions
T=$(mktemp -d "${TMPDIR:-/tmp}/uclampctl-compl.XXXXXX")
_tmpdirs+=("$T")
# 'uclampctl' on PATH: the completions run it for --list-columns
mkdir -p "$T/bin" "$T/d/grp-a" "$T/d/grp-b"
ln -s "$UCLAMPCTL" "$T/bin/uclampctl"
: >"$T/d/gfile"
export PATH=$T/bin:$PATH

# a process of ours, for PIDs and process names
sleep 300 &
SPID=$!
trap 'kill $SPID 2>/dev/null; rm -rf "${_tmpdirs[@]}"' EXIT
USERS=$(getent passwd | cut -d: -f1 | grep '^ro' | sort -u | tr '\n' ' ')

# bash: readline splits "--format=j" at "="; the function gets the pieces
comp_bash() {
	local w words=()
	for w in "$@"; do
		if [[ $w == --*=* ]]; then words+=("${w%%=*}" = "${w#*=}"); else words+=("$w"); fi
	done
	bash --norc --noprofile -c 'source "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_uclampctl; printf "%s\n" "${COMPREPLY[@]}"' _ "$COMPL/uclampctl" "${words[@]}"
}
# (one compinit dump for all the calls: only the first scans $fpath)
comp_zsh() { ZCOMPDUMP=$T/zcompdump zsh -f "$TESTS_SRCDIR/cli/complete.zsh" "$COMPL" "$@"; }
comp_fish() {
	# (the words of these cases need no quoting)
	fish --no-config -c 'source $argv[1]; complete -C $argv[2]' "$COMPL/uclampctl.fish" "$*" | cut -f1
}

# the sorted candidates, one line, without the "/" after directories (zsh
# adds it on insertion, bash and fish list it) and, for bash, the "--opt="
# that readline keeps outside the word
cands() {
	local sh=$1
	shift
	"comp_$sh" "$@" 2>&1 | sed 's|/$||' | if [ "$sh" = bash ] && [[ ${*: -1} == --*=* ]]; then
		local last=${*: -1}
		sed "s|^|${last%%=*}=|"
	else
		cat
	fi | sort -u | tr '\n' ' '
}
# is SHELL "WANT" WORDS...: exactly these candidates
is() {
	local sh=$1 want=$2 got
	shift 2
	got=$(cands "$sh" "$@")
	if [ "$got" = "$want" ]; then _pass "$sh: $* -> $want"; else FAIL=$((FAIL + 1)); echo "not ok - $sh: '$*' -> '$got', expected '$want'"; fi
}
# includes SHELL WORD WORDS...: WORD is among the candidates
includes() {
	local sh=$1 want=$2 got
	shift 2
	got=$(cands "$sh" "$@")
	if [[ " $got" == *" $want "* ]]; then _pass "$sh: $* offers $want"; else FAIL=$((FAIL + 1)); echo "not ok - $sh: '$*' -> '$got', lacks '$want'"; fi
}

cases() {
	local sh=$1
	is "$sh" "status system " uclampctl s
	is "$sh" "--help --quiet --verbose --version --wait -V -h -q -v " uclampctl -
	is "$sh" "set show " uclampctl -v task s
	is "$sh" "--max --min " uclampctl task set --m
	is "$sh" "--no-reset-on-fork " uclampctl task set --no
	is "$sh" "fifo " uclampctl task show --policy f
	is "$sh" "$USERS" uclampctl task reset --user ro
	is "$sh" "PID,TID " uclampctl task show -o PID,T
	is "$sh" "KEY,STATE " uclampctl keys -o KEY,S
	is "$sh" "+EFF_MIN,EFF_MAX_PCT " uclampctl cgroup show -o +EFF_MIN,EFF_MAX_
	is "$sh" "KNOB " uclampctl system show --output K
	is "$sh" "--rt-default " uclampctl system set --rt
	is "$sh" "--format=json " uclampctl status --format=j
	is "$sh" "prometheus " uclampctl status --format p
	is "$sh" "100% 1024 " uclampctl run --max 10
	is "$sh" "--check " uclampctl apply --ch
	is "$sh" "$T/d/grp-a $T/d/grp-b " uclampctl cgroup show "$T/d/gr"
	is "$sh" "$T/d/gfile $T/d/grp-a $T/d/grp-b " uclampctl run --min 5 ls "$T/d/g"
	includes "$sh" "$SPID" uclampctl task show "$SPID"
	includes "$sh" "$SPID" uclampctl cgroup show -p "$SPID"
	includes "$sh" sleep uclampctl task set --comm slee
	includes "$sh" sleep uclampctl run slee
}

# every option a command's --help lists is offered after "-" (so a new option
# that a completion misses fails here)
help_opts() { "$UCLAMPCTL" "$@" --help | grep -oE '^ +(-[a-zA-Z], )?--[a-z0-9-]+' | tr -d ' ' | tr ',' '\n'; }
options() {
	local sh=$1 c o got missing
	for c in "" status check keys run apply "task show" "task set" "task reset" "system show" \
		"system set" "cgroup show" "cgroup set"; do
		# shellcheck disable=SC2086 # $c: the command and its subcommand
		got=" $(cands "$sh" uclampctl $c -)"
		missing=
		for o in $(help_opts $c); do
			[[ $got == *" $o "* ]] || missing+=" $o"
		done
		if [ -z "$missing" ]; then _pass "$sh: uclampctl $c - offers every option of --help"; else FAIL=$((FAIL + 1)); echo "not ok - $sh: uclampctl $c - lacks$missing"; fi
	done
}

# every command of 'uclampctl --help' is offered for the first word
help_cmds() { "$UCLAMPCTL" --help | sed -n '/^Commands:/,/^$/p' | awk 'NF > 1 { print $1 }'; }
commands() {
	local sh=$1 c got missing=
	got=" $(cands "$sh" uclampctl "")"
	for c in $(help_cmds); do
		[[ $got == *" $c "* ]] || missing+=" $c"
	done
	if [ -z "$missing" ]; then _pass "$sh: every command of --help is offered"; else FAIL=$((FAIL + 1)); echo "not ok - $sh: 'uclampctl ' lacks$missing"; fi
}

ran=0
for sh in bash zsh fish; do
	if ! command -v "$sh" >/dev/null; then
		echo "# SKIP: $sh is not installed: its completion is not tested"
		continue
	fi
	if [ "$sh" = zsh ] && ! zsh -fc 'zmodload zsh/zpty' 2>/dev/null; then
		echo "# SKIP: zsh has no zsh/zpty module: its completion is not tested"
		continue
	fi
	ran=$((ran + 1))
	cases "$sh"
	commands "$sh"
	options "$sh"
done
if [ "$ran" = 0 ]; then
	echo "SKIP: none of bash, zsh, fish can run here"
	exit 77
fi
finish
