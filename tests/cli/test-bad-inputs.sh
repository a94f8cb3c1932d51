#!/bin/bash
# The bad-input table (tests/bad-inputs.md) is generated from the CLI tests'
# logs (runs after them: Makefile.am makes this log depend on theirs):
# - every usage error (2) and refusal (3) changed nothing in the fake root;
# - the committed table is what the tests log now (compared when the
#   environment matches the one it was made in; see its env line).
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/cli/lib.sh"
: "${TESTS_BUILDDIR:?}" "${TESTS_SRCDIR:?}"
gen=$TESTS_BUILDDIR/cli/bad-inputs.md.new	# the build tree may be the source tree
committed=$TESTS_SRCDIR/bad-inputs.md
bash "$TESTS_SRCDIR/gen-bad-inputs.sh" "$TESTS_BUILDDIR/cli" >"$gen" || { _fail "gen-bad-inputs.sh"; finish; }

rows=$(grep -c '^| .* | [0-9] | .* |$' "$gen")
[ "$rows" -gt 50 ] && _pass "$rows bad-input cases logged" || _fail "only $rows cases logged"
OUT=$(grep -E '^\| .* \| [23] \| .* \| (no|n/a) \|$' "$gen")
[ -z "$OUT" ] && _pass "every usage error and refusal changed nothing" || _fail "a usage error or refusal changed something"
OUT=$(grep -E '^\| .* \| [23] \| (\(no output\)) \|' "$gen")
[ -z "$OUT" ] && _pass "every usage error and refusal says something" || _fail "silent usage errors"

env_line() { grep -m1 '^<!-- env:' "$1"; }
if [ "$(env_line "$gen")" != "$(env_line "$committed")" ]; then
	skip_part "tests/bad-inputs.md was made with '$(env_line "$committed")', this is '$(env_line "$gen")'"
elif OUT=$(diff -u "$committed" "$gen"); then
	_pass "tests/bad-inputs.md is up to date"
else
	_fail "tests/bad-inputs.md is stale: run 'make bad-inputs' and commit it"
fi
finish
