#!/usr/bin/env python3
"""Evaluate every PromQL expression of the Grafana dashboard and every alert
rule against a running Prometheus (its HTTP API); print each with the series
it returned; exit 1 if any returned none.

usage: prom-eval.py URL DASHBOARD.json ALERTS.yml RATE_INTERVAL OFFSET TIME
  RATE_INTERVAL replaces Grafana's $__rate_interval; OFFSET replaces the
  alerts' 'offset 30m' (a short test run has no 30 minutes of history);
  every query is evaluated at TIME (Unix seconds), so they all see one moment.
"""
import json
import sys
import urllib.parse
import urllib.request

import yaml


def query(url, expr, at):
    q = urllib.parse.urlencode({"query": expr, "time": at})
    with urllib.request.urlopen(f"{url}/api/v1/query?{q}", timeout=10) as r:
        body = json.load(r)
    if body.get("status") != "success":
        raise RuntimeError(body.get("error", "query failed"))
    return body["data"]["result"]


def targets(panels):
    for p in panels:
        for t in p.get("targets", []):
            if t.get("expr"):
                yield p.get("title", "?"), t["expr"]
        yield from targets(p.get("panels", []))


def main():
    url, dash, alerts, rate, offset, at = sys.argv[1:7]
    with open(dash) as f:
        d = json.load(f)
    exprs = [(f"panel '{title}'", e) for title, e in targets(d.get("panels", []))]
    for v in d.get("templating", {}).get("list", []):
        q = v.get("query")
        if isinstance(q, dict) and q.get("query", "").startswith("label_values("):
            metric = q["query"][len("label_values("):].split(",")[0].strip()
            exprs.append((f"variable '{v['name']}'", metric))
    with open(alerts) as f:
        for g in yaml.safe_load(f)["groups"]:
            for r in g["rules"]:
                exprs.append((f"alert {r.get('alert', r.get('record'))}", r["expr"]))
    bad = 0
    for what, e in exprs:
        e = e.replace("$__rate_interval", rate).replace('=~"$instance"', '=~".*"')
        e = e.replace("offset 30m", f"offset {offset}")
        try:
            res = query(url, e, at)
        except Exception as exc:  # noqa: BLE001 - report and count
            res, err = [], str(exc)
        else:
            err = ""
        flat = " ".join(e.split())
        if res:
            print(f"ok - {what}: {len(res)} series: {flat}")
            for s in res:
                labels = ",".join(f'{k}="{v}"' for k, v in sorted(s["metric"].items()))
                print(f"#   {{{labels}}} {s['value'][1]}")
        else:
            bad += 1
            print(f"not ok - {what}: no series{' (' + err + ')' if err else ''}: {flat}")
    print(f"# {len(exprs) - bad} of {len(exprs)} expressions returned series")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
