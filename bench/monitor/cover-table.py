#!/usr/bin/python3
"""The sweep of a bench/monitor.sh result as a table for a cover letter.

Usage: cover-table.py RESULT.json

Prints, in at most 72 columns, two tables with one line per number of
clients.  The first: the median server CPU per transaction (ms) of stock,
patched and control, the paired ratio patched/stock (median and range of
the runs), and the median peak server RSS of stock and patched (MB).  The
second: the median number of fds the main loop registered with poll() per
client and transaction for stock and patched (about its passes per
transaction).  Every figure comes from RESULT.json
(its "sweep" statistics and its "sweep_runs")."""

import json
import statistics
import sys


def passes(runs, variant, clients, txns):
    """Median of poll_create_node / (clients x txns) over the runs."""
    vals = [r["server_poll_nodes"] / (clients * txns) for r in runs
            if r["name"].split("-")[1] == variant
            and r["clients"] == clients and "server_poll_nodes" in r]
    return "%.0f" % statistics.median(vals) if vals else "-"


def cpu(point, variant):
    v = point.get(variant)
    return "%.1f" % v["server_cpu_ms_per_txn_stats"]["median"] if v else "-"


def rss(point, variant):
    v = point.get(variant)
    return "%.0f" % (v["peak_rss_kb_stats"]["median"] / 1024) if v else "-"


def ratio(point):
    r = point.get("ratio_patched_stock")
    if not r:
        return "-"
    return "%.2f [%.2f-%.2f]" % (r["median"], r["min"], r["max"])


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: cover-table.py RESULT.json")
    with open(sys.argv[1]) as f:
        res = json.load(f)
    sweep, runs = res["sweep"], res.get("sweep_runs", [])
    txns = sweep["txns"]
    print("        server CPU per transaction (ms)  patched/stock"
          "    peak RSS (MB)")
    print("clients     stock  patched  control  median [range]"
          "    stock  patched")
    for p in sweep["points"]:
        print("%7d %9s %8s %8s  %-16s %7s %8s"
              % (p["clients"], cpu(p, "stock"), cpu(p, "patched"),
                 cpu(p, "control"), ratio(p), rss(p, "stock"),
                 rss(p, "patched")))
    print()
    print("Passes of the main loop per transaction (fds registered with"
          " poll()")
    print("per client and transaction, medians):")
    print("clients     stock  patched")
    for p in sweep["points"]:
        n = p["clients"]
        print("%7d %9s %8s" % (n, passes(runs, "stock", n, txns),
                                passes(runs, "patched", n, txns)))


if __name__ == "__main__":
    main()
