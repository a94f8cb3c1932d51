#!/bin/bash
# The shell completions (completions/): partial command lines typed into each
# real shell, the candidates compared with those expected. bash: an
# interactive bash in a detached tmux window, the line and a TAB typed with
# send-keys (readline splits the words, as for a user), the completion's
# answer recorded, the line read back with capture-pane; zsh: an interactive
# zsh in a pseudo-terminal (zpty, tests/cli/complete.zsh), the line and a TAB
# typed into zle; fish: its own engine ('complete -C'). A missing shell (or
# tmux, for bash) is skipped with a message; all three missing: exit 77.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/cli/lib.sh"

COMPL=$TESTS_SRCDIR/../completions
T=$(mktemp -d "${TMPDIR:-/tmp}/uclampctl-compl.XXXXXX")
_tmpdirs+=("$T")
# 'uclampctl' on PATH: the completions ask it for commands, options, values
# and columns. Its 'task set --help' has one option more, as a new row in a
# table would add it: the completions offer it without knowing it.
mkdir -p "$T/bin" "$T/d/grp-a" "$T/d/grp-b"
cat >"$T/bin/uclampctl" <<EOF
#!/bin/sh
"$UCLAMPCTL" "\$@"
rc=\$?
[ "\$*" = "task set --help" ] && echo "     --zz-new <value>   an option only this test has"
exit \$rc
EOF
chmod +x "$T/bin/uclampctl"
: >"$T/d/gfile"
export PATH=$T/bin:$PATH

# a process of ours, for PIDs and process names
sleep 300 &
SPID=$!
BSOCK=uclampctl-compl-$$
trap 'kill $SPID 2>/dev/null; tmux -L "$BSOCK" kill-server 2>/dev/null; rm -rf "${_tmpdirs[@]}"' EXIT
USERS=$(getent passwd | cut -d: -f1 | grep '^ro' | sort -u | tr '\n' ' ')

# bash in tmux: the completion function is wrapped to record what it answered
# for the words readline gave it (e.g. "--format" "=" "j" for --format=j)
bt() { tmux -L "$BSOCK" "$@"; }
# tmux runs the pane's command with $SHELL, else the login shell (nologin for
# nobody): see use_tmux in lib.sh (tmux is optional here, so not use_tmux)
export SHELL=/bin/sh
bash_start() {
	local n=0
	cat >"$T/bashrc" <<EOF
PS1='ready> '
bind 'set bell-style none'
source $COMPL/uclampctl
_rec() {
	_uclampctl "\$@"
	printf '%s\n' "\${COMPREPLY[@]}" >$T/b.tmp
	mv $T/b.tmp $T/b.out
}
complete -F _rec uclampctl
EOF
	bt -f /dev/null new-session -d -x 250 -y 20 \
		"env -i HOME=$T TERM=screen PATH=$PATH bash --rcfile $T/bashrc -i" || return 1
	until bt capture-pane -p | grep -q '^ready>$'; do
		((n++ < 100)) || return 1
		sleep 0.05
	done
}
# bash_type WORDS...: type the line and a TAB; $BLINE is the line after it
# (with $BWANT set: read again, for up to 3 s, until it is that)
bash_type() {
	local line="$*" n=0 k=0
	[ -z "${*: -1}" ] && line+=" "
	rm -f "$T/b.out"
	bt send-keys -l "$line"
	bt send-keys Tab
	until [ -e "$T/b.out" ]; do
		((n++ < 200)) || break
		sleep 0.02
	done
	while sleep 0.05; do
		BLINE=$(bt capture-pane -p | grep '^ready>' | tail -n 1 | sed 's/^ready> \{0,1\}//; s/[[:space:]]*$//')
		[ -z "${BWANT-}" ] || [ "$BLINE" = "$BWANT" ] || ((k++ > 60)) && break
	done
	bt send-keys C-e C-u
}
comp_bash() {
	bash_type "$@"
	cat "$T/b.out" 2>/dev/null
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
	"comp_$sh" "$@" 2>&1 | sed -e 's|/$||' -e '/^$/d' | if [ "$sh" = bash ] && [[ ${*: -1} == --*=* ]]; then
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

# line_is WORDS... -- WANT: after a TAB, bash's command line reads WANT
line_is() {
	local words=()
	while [ "$1" != -- ]; do words+=("$1"); shift; done
	BWANT=$2 bash_type "${words[@]}"
	if [ "$BLINE" = "$2" ]; then _pass "bash: '${words[*]}' TAB -> '$2'"; else FAIL=$((FAIL + 1)); echo "not ok - bash: '${words[*]}' TAB -> '$BLINE', expected '$2'"; fi
}

cases() {
	local sh=$1
	is "$sh" "status system " uclampctl s
	# --format=TAB, lower-case columns, global options after the command
	is "$sh" "--format=json --format=prometheus --format=text " uclampctl status --format=
	is "$sh" "--format=json " uclampctl watch status --format=j
	is "$sh" "pid,tid " uclampctl task show -o pid,t
	is "$sh" "+eff_min,eff_max_pct " uclampctl cgroup show -o +eff_min,eff_max_
	is "$sh" "--verbose --version " uclampctl status --ver
	is "$sh" "--quiet " uclampctl task set --qu
	# a cgroup is a group, never one of its control files
	is "$sh" "$T/d/grp-a $T/d/grp-b " uclampctl cgroup set "$T/d/g"
	is "$sh" "" uclampctl cgroup show "$T/d/gf"
	is "$sh" "--help --quiet --verbose --version --wait -V -h -q -v " uclampctl -
	is "$sh" "set show " uclampctl -v task s
	is "$sh" "--max --min " uclampctl task set --m
	is "$sh" "--no-reset-on-fork " uclampctl task set --no
	is "$sh" "fifo " uclampctl task show --policy f
	is "$sh" "$USERS" uclampctl task reset --user ro
	is "$sh" "PID,TID " uclampctl task show -o PID,T
	is "$sh" "KEY,STATE " uclampctl keys -o KEY,S
	is "$sh" "USER " uclampctl task show -o US
	is "$sh" "UNDO UNIXTIME " uclampctl history -o UN
	is "$sh" "history " uclampctl hi
	is "$sh" "--dry-run " uclampctl undo --dr
	is "$sh" "+EFF_MIN,EFF_MAX_PCT " uclampctl cgroup show -o +EFF_MIN,EFF_MAX_
	is "$sh" "KNOB " uclampctl system show --output K
	is "$sh" "--rt-default " uclampctl system set --rt
	is "$sh" "--format=json " uclampctl status --format=j
	is "$sh" "prometheus " uclampctl status --format p
	is "$sh" "100% 1024 " uclampctl run --max 10
	is "$sh" "--check " uclampctl apply --ch
	is "$sh" "--delay " uclampctl top --del
	is "$sh" "--format=json " uclampctl top --format=j
	is "$sh" "--comm " uclampctl top --com
	includes "$sh" sleep uclampctl top --comm slee
	includes "$sh" "$SPID" uclampctl top "$SPID"
	is "$sh" "$T/d/grp-a $T/d/grp-b " uclampctl cgroup show "$T/d/gr"
	is "$sh" "$T/d/gfile $T/d/grp-a $T/d/grp-b " uclampctl run --min 5 ls "$T/d/g"
	includes "$sh" "$SPID" uclampctl task show "$SPID"
	includes "$sh" "$SPID" uclampctl cgroup show -p "$SPID"
	includes "$sh" sleep uclampctl task set --comm slee
	includes "$sh" sleep uclampctl run slee
	# an option the completion cannot know, from --help, and its kind of value
	is "$sh" "--zz-new " uclampctl task set --zz
	is "$sh" "100% 1024 " uclampctl task set --zz-new 10
}

# every option a command's --help lists is offered after "-" (so a new option
# that a completion misses fails here)
help_opts() { "$UCLAMPCTL" "$@" --help | grep -oE '^ +(-[a-zA-Z], )?--[a-z0-9-]+' | tr -d ' ' | tr ',' '\n'; }
options() {
	local sh=$1 c o got missing
	for c in "" status check keys run apply "task show" "task set" "task reset" top "system show" \
		"system set" "cgroup show" "cgroup set" history undo; do
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

# no copy of uclampctl's lists in the completions: commands, options,
# selectors, knobs, policies, formats and columns are asked of it
for f in "$COMPL"/*; do
	if grep -qE -- '--(argv0|rt-default|kernel-threads|recheck)|deadline|prometheus|UTIL_MAX' "$f"
	then _fail "$(basename "$f") holds a list of uclampctl's"
	else _pass "$(basename "$f") asks uclampctl for its lists"; fi
done

ran=0
for sh in bash zsh fish; do
	if ! command -v "$sh" >/dev/null; then
		skip_part "$sh is not installed: its completion is not tested"
		continue
	fi
	if [ "$sh" = bash ] && ! command -v tmux >/dev/null; then
		skip_part "tmux is not installed: bash's completion is not tested"
		continue
	fi
	if [ "$sh" = bash ] && ! bash_start; then
		_fail "bash did not start in tmux"
		continue
	fi
	if [ "$sh" = zsh ] && ! zsh -fc 'zmodload zsh/zpty' 2>/dev/null; then
		skip_part "zsh has no zsh/zpty module: its completion is not tested"
		continue
	fi
	ran=$((ran + 1))
	cases "$sh"
	commands "$sh"
	options "$sh"
	if [ "$sh" = bash ]; then
		# what readline makes of the answers: the line as the user sees it
		line_is uclampctl status --format=j -- "uclampctl status --format=json"
		line_is uclampctl task show -o pid,co -- "uclampctl task show -o pid,comm"
		line_is uclampctl status -v --format j -- "uclampctl status -v --format json"
	fi
done
if [ "$ran" = 0 ]; then
	echo "SKIP: none of bash, zsh, fish can run here"
	exit 77
fi
finish
