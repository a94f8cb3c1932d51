#!/bin/bash
# uclampctl watch before the event loop: usage errors, configuration errors
# (file:line, exit 2), the refusal without consent (exit 3, one line, and it
# never subscribes), --oneshot as apply, and 'watch status' without a daemon.
# The daemon itself runs on the real kernel: tests/vm/scenarios/watch-rules.sh.
. "$TESTS_SRCDIR/cli/lib.sh"
U=$UCLAMPCTL
fake_root
fake_sysctls 1024 1024 1024
fake_key 0
C=$ROOT/conf
mkdir -p "$C"

t "help" 0 $U watch --help
has 'watch status'
t "an argument" 2 $U watch bogus
has "unexpected argument 'bogus'"
t "-J without status" 2 $U watch -J
has "go with 'watch status'"
t "status with a daemon option" 2 $U watch status --dry-run
has 'watch status takes only'
t "an unknown format" 2 $U watch status --format=xml
has "unknown --format 'xml'"
t "no daemon" 1 $U watch status --socket "$ROOT/none.sock"
has 'the daemon is not running'

printf '[tasks a]\ncomm = x\n\nmax = 5000\n' >"$C/bad.conf"
t "a bad configuration" 2 $U watch -c "$C/bad.conf" --socket "$ROOT/s.sock"
has 'bad\.conf:4: '
has 'errors in the configuration: not started'

printf '[tasks a]\ncomm = x\nmax = 300\n' >"$C/noconsent.conf"
t "rules that set clamps, key off, no consent" 3 $U watch -c "$C/noconsent.conf" --socket "$ROOT/s.sock"
has 'would enable the uclamp fast path \(sched_uclamp_used is off\)'
[ "$(printf '%s\n' "$OUT" | wc -l)" = 1 ] && _pass "one line" || _fail "more than one line"
[ ! -e "$ROOT/s.sock" ] && _pass "never started" || _fail "a status socket exists"

t "--oneshot is apply (dry run)" 0 $U watch --oneshot --dry-run -c "$C/noconsent.conf"
has 'nothing to change|dry run'
finish
