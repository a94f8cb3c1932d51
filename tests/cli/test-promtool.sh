#!/bin/bash
# contrib/prometheus/uclamp-alerts.yml passes 'promtool check rules' and its
# unit tests (uclamp-alerts.test.yml). Without promtool (Debian: prometheus)
# the test is a SKIP (exit 77), so the result says the rules went unchecked.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/cli/lib.sh"

if ! command -v promtool >/dev/null; then
	echo "SKIP: promtool is not installed (Debian: prometheus): the alert rules are not checked"
	exit 77
fi
P=$TESTS_SRCDIR/../contrib/prometheus
t "promtool check rules" 0 promtool check rules "$P/uclamp-alerts.yml"
t "promtool test rules" 0 sh -c 'cd "$1" && promtool test rules uclamp-alerts.test.yml' _ "$P"
finish
