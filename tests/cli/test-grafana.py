#!/usr/bin/env python3
"""Check a Grafana dashboard against the metrics the exporters print.

usage: test-grafana.py DASHBOARD.json EXPORTED.prom

Every PromQL query of the dashboard (panel targets and template variables)
is parsed for metric names; each must be a metric in EXPORTED.prom (what
'uclampctl status --textfile' writes: the state, the configuration metrics,
the watch daemon's counters), or one of WATCH below.
Prints TAP-like "ok"/"not ok" lines; exits 1 when any check failed.
"""
import json
import re
import sys

# 'uclampctl watch status' metrics (a histogram: _bucket/_sum/_count): the
# test wants them in EXPORTED too (test-grafana.sh has status --textfile ask
# a stand-in status socket).
WATCH_ON_MAIN = True
WATCH = {"uclampctl_watch_rescans_total", "uclampctl_watch_exec_apply_latency_seconds"}

KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "and", "or",
            "unless", "offset", "bool", "inf", "nan"}


def metric_names(expr):
    """The metric names an expression selects (not functions, labels or keywords)."""
    e = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)		# strings: label values, $vars
    e = re.sub(r"\{[^}]*\}", "", e)				# label matchers
    e = re.sub(r"\[[^\]]*\]", "", e)				# ranges
    e = re.sub(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", e)
    e = re.sub(r"\$\{?\w+\}?", " ", e)				# dashboard variables
    names = set()
    for m in re.finditer(r"(?<![\w.])([a-zA-Z_:][\w:]*)(\s*\()?", e):
        if m.group(2) or m.group(1).lower() in KEYWORDS:
            continue
        names.add(m.group(1))
    return names


def queries(dash):
    """(where, PromQL) of every panel target and query variable."""
    def walk(panels):
        for p in panels:
            yield from walk(p.get("panels", []))
            for t in p.get("targets", []):
                if t.get("expr"):
                    yield "panel '%s' %s" % (p.get("title"), t.get("refId")), t["expr"]
    yield from walk(dash.get("panels", []))
    for v in dash.get("templating", {}).get("list", []):
        q = v.get("query")
        q = q.get("query") if isinstance(q, dict) else q
        m = re.match(r"\s*label_values\((.*),\s*\w+\)\s*$", q or "") if v.get("type") == "query" else None
        if m:
            yield "variable $%s" % v["name"], m.group(1)


def exported(path):
    names = set()
    for line in open(path):
        m = re.match(r"# TYPE (\S+) (\w+)", line) or re.match(r"([a-zA-Z_:][\w:]*)[{ ]", line)
        if m:
            names.add(m.group(1))
    return names


def base(name):
    return re.sub(r"_(bucket|sum|count)$", "", name)


def main():
    dash = json.load(open(sys.argv[1]))
    have = exported(sys.argv[2])
    fails = 0
    checks = 0

    def result(ok, msg):
        nonlocal fails, checks
        checks += 1
        fails += not ok
        print(("ok - " if ok else "not ok - ") + msg)

    qs = list(queries(dash))
    result(len(qs) >= 10, "%d queries found" % len(qs))
    for p in dash["panels"]:
        result(bool(p.get("title")) and bool(p.get("targets")) and bool(p.get("description")),
               "panel %s '%s' has a title, a description and queries" % (p.get("id"), p.get("title")))
    result(any(p["type"] == "state-timeline" and "uclamp_fast_path_state" in t["expr"]
               for p in dash["panels"] for t in p["targets"]),
           "a state timeline of the fast path state")
    used = set()
    for where, q in qs:
        names = metric_names(q)
        result(bool(names), "%s selects a metric: %s" % (where, " ".join(sorted(names))))
        used |= names
    for n in sorted(used):
        if n in have:
            result(True, "%s is exported" % n)
        elif base(n) in WATCH or n in WATCH:
            if WATCH_ON_MAIN:
                result(base(n) in have or n in have, "%s is exported by watch status" % n)
            else:
                result(True, "%s: watch status (not yet on main)" % n)
        else:
            result(False, "%s is used by the dashboard but no exporter prints it" % n)
    # the parser itself: it must not take functions, labels or variables for metrics
    probe = metric_names('histogram_quantile(0.9, sum by (le, instance) '
                         '(rate(a_bucket{instance=~"$instance"}[$__rate_interval]))) '
                         'unless on (instance) b == 1 or vector(0)')
    result(probe == {"a_bucket", "b"}, "the PromQL parser finds exactly a_bucket, b: %s" % sorted(probe))
    print("%d passed, %d failed" % (checks - fails, fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
