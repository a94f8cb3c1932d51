#!/bin/bash
# Tables on an 80-column terminal: every listing and plan is run in a real
# terminal (a detached tmux window, 80 columns) and read back with its
# wrapped lines joined: no line may be wider than 80 columns, a cell that
# wraps (keys' MEANING) wraps at spaces, never inside a word, and a row that
# fits in a pipe's output stays one line (cgroup show -R's tree, plan rows).
# A cell cut to fit (task show's COMM, cgroup show's NOTE) ends in "...";
# status wraps its rows at spaces under the value column; the consent text
# is two lines. No tmux: skipped (exit 77).
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/cli/lib.sh"

use_tmux
U=$UCLAMPCTL
fake_root 1024 1024 1024
fake_release 6.1.0
fake_key 0
sleep 600 & S1=$!
mkdir -p "$ROOT/proc/$S1/task/$S1"
echo a-rather-long-name >"$ROOT/proc/$S1/comm"
echo a-rather-long-name >"$ROOT/proc/$S1/task/$S1/comm"
printf 'Name:\ta-rather-long-name\nTgid:\t%s\nPid:\t%s\nPPid:\t1\nUid:\t0\t0\t0\t0\n' "$S1" "$S1" >"$ROOT/proc/$S1/status"

SOCK=uclampctl-cols-$$
T=$(mktemp -d "${TMPDIR:-/tmp}/uclampctl-cols.XXXXXX")
_tmpdirs+=("$T")
trap 'kill $S1 2>/dev/null; tmux -L "$SOCK" kill-server 2>/dev/null; rm -rf "${_tmpdirs[@]}"' EXIT

# on_tty ARGS...: uclampctl ARGS on an 80-column terminal; what it showed, wrapped
# lines joined, in $OUT (trailing blanks dropped)
on_tty() {
	local q try
	q=$(printf '%q ' "$U" "$@")
	# a loaded machine (load 30+) has been seen to lose the tmux server
	# before the capture: one fresh try when nothing was captured
	for try in 1 2; do
		on_tty_once "$q"
		[ -n "$OUT" ] && return
		echo "# on_tty: nothing captured (try $try): $*"
	done
}
on_tty_once() {
	tmux -L "$SOCK" -f /dev/null new-session -d -x 80 -y 300 -e "UCLAMPCTL_SYSROOT=$ROOT" \
		-e "UCLAMPCTL_TEST_CGROUP2=${TEST_CG-}" -e "XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR-}" \
		"stty cols 80 rows 300; $1; tmux -L $SOCK wait-for -S done; sleep 60"
	# bounded: a pane that never signals fails this case, not the whole run
	timeout 60 tmux -L "$SOCK" wait-for done || echo "# on_tty: no signal from the pane in 60 s"
	# the server may not have read all of the pane's output when the signal
	# arrives (a loaded machine): read until two captures agree (up to 10 s)
	local prev= i
	OUT=
	for i in $(seq 100); do
		OUT=$(tmux -L "$SOCK" capture-pane -p -J -S - | sed -e 's/[[:space:]]*$//' -e '/^$/d')
		[ -n "$OUT" ] && [ "$OUT" = "$prev" ] && break
		prev=$OUT
		sleep 0.1
	done
	tmux -L "$SOCK" kill-server 2>/dev/null
}
# fits WHAT: no line of $OUT is wider than 80 columns
fits() {
	local wide
	wide=$(printf '%s\n' "$OUT" | awk 'length($0) > 80' | head -n 3)
	if [ -z "$wide" ]; then _pass "$1: every line fits in 80 columns"; else _fail "$1: lines over 80 columns: $wide"; fi
}
# same_rows WHAT ARGS...: as many lines on the terminal as in a pipe (no row wrapped)
same_rows() {
	local what=$1 piped
	shift
	piped=$(UCLAMPCTL_TEST_CGROUP2=${TEST_CG-} "$U" "$@" 2>&1 | sed '/^$/d' | wc -l)
	if [ "$(printf '%s\n' "$OUT" | wc -l)" = "$piped" ]; then _pass "$what: one line per row"; else _fail "$what: $piped rows in a pipe, more lines on the terminal"; fi
}

on_tty keys
fits "keys"
has '^KEY +STATE +HOW +MEANING$'
# every word of every meaning is whole on the terminal
missing=
for w in $("$U" keys -o MEANING -n); do
	printf '%s\n' "$OUT" | grep -Fqw -- "$w" || missing+=" $w"
done
if [ -z "$missing" ]; then _pass "keys: no word cut by the wrap"; else _fail "keys: words cut:$missing"; fi

on_tty system show
fits "system show"
has '^util_min_rt_default '
on_tty system show -o KNOB,VALUE,MEANING
fits "system show -o KNOB,VALUE,MEANING"
same_rows "system show" system show

on_tty system set --min 10% --max 50% --dry-run
fits "system set --dry-run"
has '^kernel\.sched_util_clamp_min +util_min +1024 +102 +enables$'
same_rows "system set --dry-run" system set --min 10% --max 50% --dry-run

# the default columns with a 15-character name: one line (COMM is cut if need
# be, and then says so)
on_tty task show "$S1"
fits "task show"
has "^ *$S1 +$S1 +a-rather-l[a-z-]*\.\.\. +other "
same_rows "task show" task show "$S1"
on_tty task show -o pid,user,comm "$S1"
has "^ *$S1 +root +a-rather-long-n$"

# status: rows wrapped at spaces under the value column, no word lost
on_tty status
fits "status"
missing=
for w in $("$U" status 2>/dev/null); do
	printf '%s\n' "$OUT" | grep -Fqw -- "$w" || missing+=" $w"
done
if [ -z "$missing" ]; then _pass "status: no word cut by the wrap"; else _fail "status: words cut:$missing"; fi
has '^              [a-z(]'	# a continuation line, under the values

# the consent text: two lines, each within 80 columns (nobody to answer: refused)
on_tty_once "$(printf '%q ' "$U" system set --min 200) </dev/null"
fits "the consent text"
n=$(printf '%s\n' "$OUT" | sed -n '/refused: /,/^uclampctl: nothing changed/p' | wc -l)
if [ "$n" = 3 ]; then _pass "the consent text is two lines"; else _fail "the consent text: $((n - 1)) lines"; fi
has 'measured in an emulator'

# top: a frame drawn in place (cursor home, lines cleared) that fits, the
# name cut rather than the row wrapped
printf '%s (a-rather-long-n) S 1 1 1 0 -1 4194560 0 0 0 0 5 0 0 0 20 0 1 0 50 1000 100 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n' \
	"$S1" >"$ROOT/proc/$S1/task/$S1/stat"
on_tty top --once -d 0.1 "$S1"
fits "top --once"
has "^ *$S1 +$S1 +a-rather-long"
has '^CPU +CAP +BUSY +UTIL +HI_MIN +HI_MAX$'
hasnt $'\e'		# (capture-pane renders the escapes: none left as text)

on_tty cgroup show -R
fits "cgroup show -R"
has '^CGROUP '
same_rows "cgroup show -R" cgroup show -R

# history: a long command line wraps at spaces
mkdir -p "$ROOT/run"
if [ "$(id -u)" != 0 ]; then
	export XDG_RUNTIME_DIR=/run/user/$(id -u)
	mkdir -p "$ROOT$XDG_RUNTIME_DIR"
	chmod 700 "$ROOT$XDG_RUNTIME_DIR"
fi
"$U" system set --min 300 --max 1000 --rt-default 900 --yes >/dev/null 2>&1
"$U" system set --min 310 --max 1010 --rt-default 910 --yes --wait 30 -q >/dev/null 2>&1
"$U" undo -q --yes >/dev/null 2>&1
on_tty history
fits "history"
has '^ +2 .* undone by 3 +uclampctl system$'	# the UNDO column keeps its words
has '^ +3 .* undoes 2 +uclampctl undo'
has ' -q$'	# the command's last word, whole

# a NOTE cut to fit says so: "..." (a group of ours, long names, a long note)
TEST_CG=$ROOT/cg
mkdir -p "$TEST_CG/system.slice/a-rather-long-service-name-for-a-tree.service"
echo "cpu io" >"$TEST_CG/cgroup.controllers"
echo "cpu" >"$TEST_CG/cgroup.subtree_control"
echo cpu >"$TEST_CG/system.slice/cgroup.controllers"
echo 50.00 >"$TEST_CG/system.slice/cpu.uclamp.min"
echo 10.00 >"$TEST_CG/system.slice/cpu.uclamp.max"
: >"$TEST_CG/system.slice/cgroup.subtree_control"
on_tty cgroup show -R
fits "cgroup show -R, a long NOTE"
has '^`-system\.slice .* m[a-z :]*\.\.\.$'	# "min above max: ..." cut, and marked
has '^  `-a-rather-[a-z-]*\.\.\. '	# a name too long for the tree, too
same_rows "cgroup show -R, long names" cgroup show -R
UCLAMPCTL_TEST_CGROUP2=$TEST_CG "$U" cgroup show -R system.slice >/dev/null 2>&1
OUT=$(UCLAMPCTL_TEST_CGROUP2=$TEST_CG "$U" cgroup show -R 2>&1)
has 'min above max: the effective min is the max$'	# into a pipe: whole
unset TEST_CG
finish
