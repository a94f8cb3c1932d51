#!/bin/bash
# The real stack on loopback: Debian's prometheus-node-exporter (textfile
# collector only) serving files written by the built 'uclampctl status
# --textfile', and a Prometheus server (with uclamp-alerts.yml)
# scraping three of them every second: host a (fast path on, no consent, a
# configuration that differs, the watch daemon's counters), host b (a broken
# configuration), host c (no uclamp file: the collector stopped). Then every
# PromQL expression of contrib/grafana/uclamp-fleet.json and every alert rule
# goes through Prometheus's HTTP API (tests/cli/prom-eval.py), all at one
# moment: each must return a series. 'offset 30m' becomes an offset to just
# before a's file went from the key off to on. Everything listens on 127.0.0.1, is started
# here and stopped at the end. Skipped without the Debian packages
# (apt-get install prometheus prometheus-node-exporter).
for b in prometheus prometheus-node-exporter; do
	if ! command -v $b >/dev/null; then
		echo "SKIP: $b not installed (apt-get install prometheus prometheus-node-exporter)"
		exit 77
	fi
done
if ! python3 -c 'import yaml' 2>/dev/null; then
	echo "SKIP: python3-yaml is needed to read the alert rules"
	exit 77
fi
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/cli/lib.sh"
TOP=$TESTS_SRCDIR/..
W=$(mktemp -d "${TMPDIR:-/tmp}/uclampctl-prom.XXXXXX")
_tmpdirs+=("$W")
pids=()
stop_all() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; }
trap 'stop_all; rm -rf "${_tmpdirs[@]}"' EXIT

# a free loopback port each (bound and released: the servers take them next)
ports=($(python3 -c 'import socket
ss = [socket.socket() for _ in range(4)]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))'))

# each host's configuration: CONF stands for /etc/uclampctl.conf
textfile() {	# ROOT CONF DIR [SOCKET]
	env UCLAMPCTL_SYSROOT="$1" "$UCLAMPCTL" status --textfile "$3/uclamp.prom" --config "$2" \
		--socket "${4:-$W/none.sock}"
}
host() {	# NAME KEY: a fake root with the key as given
	fake_root
	fake_release 6.1.0-test
	fake_sysctls 1024 1024 1024
	echo 0 >"$ROOT/proc/sys/kernel/kptr_restrict"
	fake_key "$2" || _fail "mkkcore.py"
	mkdir -p "$W/$1"
	eval "ROOT_$1=\$ROOT"
}
host a 0
printf '[fast-path]\nallow-enable = no\n[system]\nmin = 50%%\nmax = 90%%\n' >"$W/a.conf"
host b 0
printf '[system]\nmax = 150%%\n' >"$W/b.conf"
mkdir -p "$W/c"
watch_counters() {	# the watch daemon's metrics in a's file, from a stand-in socket
	python3 "$TESTS_SRCDIR/cli/fake-watch-status.py" "$W/watch.sock" 1 >/dev/null 2>&1 &
	for _ in $(seq 50); do [ -S "$W/watch.sock" ] && break; sleep 0.1; done
	textfile "$ROOT_a" "$W/a.conf" "$W/a" "$W/watch.sock"
	wait $!
}
watch_counters
t "b's textfile" 0 textfile "$ROOT_b" "$W/b.conf" "$W/b"
OUT=$(cat "$W/a/uclamp.prom" "$W/b/uclamp.prom")
has '^uclamp_config_drift 1$'
has '^uclamp_config_drift -1$'
has '^uclampctl_watch_rescans_total'

for i in 0 1 2; do
	name=$(printf '%s' abc | cut -c$((i + 1)))
	prometheus-node-exporter --web.listen-address="127.0.0.1:${ports[i]}" --collector.disable-defaults \
		--collector.textfile --collector.textfile.directory="$W/$name" >"$W/ne-$name.log" 2>&1 &
	pids+=($!)
done
cat >"$W/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $TOP/contrib/prometheus/uclamp-alerts.yml
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ['127.0.0.1:${ports[0]}']
        labels: {host: a}
      - targets: ['127.0.0.1:${ports[1]}']
        labels: {host: b}
      - targets: ['127.0.0.1:${ports[2]}']
        labels: {host: c}
YML
P=http://127.0.0.1:${ports[3]}
prometheus --config.file="$W/prometheus.yml" --storage.tsdb.path="$W/data" \
	--web.listen-address="127.0.0.1:${ports[3]}" >"$W/prometheus.log" 2>&1 &
pids+=($!)
up=0
for _ in $(seq 120); do
	up=$(curl -fsS "$P/api/v1/query?query=count(up%3D%3D1)" 2>/dev/null |
		python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)' 2>/dev/null)
	[ "${up:-0}" = 3 ] && break
	sleep 0.5
done
[ "${up:-0}" = 3 ] && _pass "Prometheus scrapes the three node_exporters" ||
	{ OUT=$(tail -n 20 "$W/prometheus.log"); _fail "targets up: ${up:-none}"; }
OUT=$(curl -fsS "$P/api/v1/rules" 2>&1)
has '"name":"UclampMetricsMissing"'

# a: the key goes on (the key off was scraped for a few seconds), then the
# counters again; rate() and 'offset' see both
sleep 6
t_off=$(date +%s)	# the key-off file has been scraped for seconds before this
ROOT=$ROOT_a fake_key 1 || _fail "mkkcore.py"
watch_counters
OUT=$(grep '^uclamp_fast_path_state' "$W/a/uclamp.prom")
has 'state="on".* 1$'
sleep 6
# one evaluation time for all; 'offset' reaches back to just before the flip
at=$(date +%s)
OUT=$(python3 "$TESTS_SRCDIR/cli/prom-eval.py" "$P" "$TOP/contrib/grafana/uclamp-fleet.json" \
	"$TOP/contrib/prometheus/uclamp-alerts.yml" 10s "$((at - t_off + 2))s" "$at" 2>&1)
RC=$?
printf '%s\n' "$OUT"
[ $RC = 0 ] && _pass "every dashboard query and alert rule returns series" ||
	_fail "some returned none"
stop_all
pids=()
finish
