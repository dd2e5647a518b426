#!/usr/bin/python3
"""Statistics of bench/monitor.sh's runs: the comparison table and the sweep.

Usage: sweep-report.py RESDIR OUTPREFIX --variants "V..." --points "N..."
                       --runs R --txns K --name main|sweep

Reads the runs RESDIR/NAME-V-N-R.txt ("key value" lines of monitor-bench)
and writes OUTPREFIX.json (the statistics), OUTPREFIX.txt (the tables) and
OUTPREFIX.dat (per point: clients, then per variant the median, min and max
server CPU per transaction in ms, for gnuplot).

Per variant and point: server CPU per transaction (median, min, max of the
runs), peak server RSS (VmHWM during the workload: median and max), the
"Unreasonably long" poll intervals over 1000 ms (count, all runs), and
paired ratios patched/stock and control/patched (run r of one with run r of
the other, which ran next to each other): median, min, max; a build of the
series up to one of its patches (a variant named GROUP-NNNN) gets its
ratio to stock too.  Over the
points: the marginal CPU per client (least-squares slope of the CPU per
transaction of every run against the number of clients) of every variant,
patched's slope against control's, and CPU(largest point)/CPU(120) against
the ratio of clients."""

import argparse
import json
import statistics
import sys

LABEL = {"before": "Before", "stock": "Stock", "patched": "Patched",
         "control": "Control"}
LONG_POLL_MS = 1000


def label(v):
    return LABEL.get(v, v)


def read_run(path):
    run = {}
    with open(path) as f:
        for line in f:
            key, _, val = line.rstrip("\n").partition(" ")
            run[key] = val
    return run


def num(x):
    return float(x) if x not in (None, "", "-") else None


def summary(values):
    values = [v for v in values if v is not None]
    if not values:
        return None
    return {"median": round(statistics.median(values), 4),
            "min": round(min(values), 4), "max": round(max(values), 4)}


def slope(points):
    """Least-squares slope of y against x, or None."""
    if len({x for x, _ in points}) < 2:
        return None
    mx = statistics.fmean(x for x, _ in points)
    my = statistics.fmean(y for _, y in points)
    sxx = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / sxx


def fmt(x, spec="%.1f"):
    return "-" if x is None else spec % x


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("resdir")
    ap.add_argument("out")
    ap.add_argument("--variants", required=True)
    ap.add_argument("--points", required=True)
    ap.add_argument("--runs", type=int, required=True)
    ap.add_argument("--txns", type=int, required=True)
    ap.add_argument("--name", choices=["main", "sweep"], required=True)
    a = ap.parse_args()
    variants = a.variants.split()
    points = [int(n) for n in a.points.split()]

    def run_name(v, n, r):
        if a.name == "main":
            return "main-%s-%d" % (v, r)
        return "sweep-%s-%d-%d" % (v, n, r)

    out = {"txns": a.txns, "runs": a.runs, "points": []}
    cpu_runs = {}       # (v, n) -> [ms per txn of each run]
    for n in points:
        pt = {"clients": n}
        for v in variants:
            runs = [read_run("%s/%s.txt" % (a.resdir, run_name(v, n, r)))
                    for r in range(1, a.runs + 1)]
            cpu = [1000 * num(x["server_cpu_s"]) / a.txns for x in runs]
            cpu_runs[v, n] = cpu
            rss = [num(x.get("server_peak_rss_kb")) for x in runs]
            polls = [int(ms) for x in runs
                     for ms in x.get("poll_intervals", "").split()]
            pt[v] = {
                "server_cpu_ms_per_txn": [round(c, 2) for c in cpu],
                "server_cpu_ms_per_txn_stats": summary(cpu),
                "peak_rss_kb": rss,
                "peak_rss_kb_stats": summary(rss),
                "long_polls_over_1000ms": sum(ms > LONG_POLL_MS for ms in polls),
                "long_polls_max_ms": max(polls) if polls else None,
            }
        pairs = [(v, "stock") for v in variants if v not in LABEL]
        pairs += [("patched", "stock"), ("control", "patched")]
        for num_v, den_v in pairs:
            if num_v in variants and den_v in variants:
                ratios = [x / y if y > 0 else None for x, y in
                          zip(cpu_runs[num_v, n], cpu_runs[den_v, n])]
                pt["ratio_%s_%s" % (num_v, den_v)] = dict(
                    summary(ratios) or {}, per_run=[
                        None if r is None else round(r, 4) for r in ratios])
        if "patched" in variants and "stock" in variants:
            rss = [x / y if x and y else None for x, y in
                   zip(pt["patched"]["peak_rss_kb"], pt["stock"]["peak_rss_kb"])]
            pt["ratio_rss_patched_stock"] = summary(rss)
        out["points"].append(pt)

    # Marginal CPU per client and growth, over the points.
    if len(points) > 1:
        slopes = {v: slope([(n, c) for n in points for c in cpu_runs[v, n]])
                  for v in variants}
        out["slope_ms_per_client_per_txn"] = {
            v: None if s is None else round(s, 5) for v, s in slopes.items()}
        if slopes.get("patched") is not None and slopes.get("control"):
            out["slope_ratio_patched_control"] = round(
                slopes["patched"] / slopes["control"], 3)
        top = max(points)
        if 120 in points and top > 120:
            lin = top / 120
            out["growth"] = {"from": 120, "to": top, "linear": round(lin, 3),
                             "limit_1_3x": round(1.3 * lin, 3)}
            for v in variants:
                lo = statistics.median(cpu_runs[v, 120])
                hi = statistics.median(cpu_runs[v, top])
                out["growth"][v] = round(hi / lo, 3) if lo > 0 else None

    with open(a.out + ".json", "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")

    with open(a.out + ".dat", "w") as f:
        for n in points:
            cols = [str(n)]
            for v in variants:
                s = out["points"][points.index(n)][v]["server_cpu_ms_per_txn_stats"]
                cols += ["%.3f" % s[k] for k in ("median", "min", "max")]
            f.write(" ".join(cols) + "\n")

    w = sys.stdout if a.out == "-" else open(a.out + ".txt", "w")
    what = "Main comparison" if a.name == "main" else "Sweep"
    print("%s: server CPU per transaction (ms), median of %d runs in "
          "alternating order [min-max]:" % (what, a.runs), file=w)
    print(file=w)
    ratio_heads = [k for k in out["points"][0] if k.startswith("ratio_")
                   and not k.startswith("ratio_rss_")]
    cw = max([20] + [len(label(v)) for v in variants]
             + [len(k) - 6 for k in ratio_heads])
    head = "  %7s" % "clients" + "".join(" %*s" % (cw, label(v))
                                         for v in variants)
    for k in ratio_heads:
        head += " %*s" % (cw, k[6:].replace("_", "/"))
    print(head, file=w)
    for pt in out["points"]:
        line = "  %7d" % pt["clients"]
        for v in variants:
            s = pt[v]["server_cpu_ms_per_txn_stats"]
            line += " %*s" % (cw, "%.1f [%.1f-%.1f]"
                              % (s["median"], s["min"], s["max"]))
        for k in ratio_heads:
            r = pt[k]
            line += " %*s" % (cw, "%.2f [%.2f-%.2f]"
                              % (r["median"], r["min"], r["max"])
                              if "median" in r else "-")
        print(line, file=w)
    print(file=w)
    print("Peak server RSS during the workload (MB, median of the runs), and "
          "poll intervals\nover %d ms (\"Unreasonably long\", count over all "
          "runs):" % LONG_POLL_MS, file=w)
    print(file=w)
    rw = max([16] + [len(label(v)) for v in variants])
    print("  %7s" % "clients" + "".join(" %*s" % (rw, label(v))
                                        for v in variants)
          + ("   patched/stock RSS" if "ratio_rss_patched_stock" in out["points"][0] else ""),
          file=w)
    for pt in out["points"]:
        line = "  %7d" % pt["clients"]
        for v in variants:
            s = pt[v]["peak_rss_kb_stats"]
            line += " %*s" % (rw, "%s MB, %d" % (fmt(s and s["median"] / 1024),
                                                 pt[v]["long_polls_over_1000ms"]))
        if "ratio_rss_patched_stock" in pt:
            r = pt["ratio_rss_patched_stock"]
            line += "   %.2f" % r["median"] if r else "   -"
        print(line, file=w)
    if "slope_ms_per_client_per_txn" in out:
        print(file=w)
        print("Marginal server CPU per client (least-squares slope over all "
              "runs, ms per client\nper transaction):  " + ",  ".join(
                  "%s %s" % (label(v), fmt(s, "%.4f")) for v, s in
                  out["slope_ms_per_client_per_txn"].items()), file=w)
        if "slope_ratio_patched_control" in out:
            print("  patched / control: %.2f (target: at most 2)"
                  % out["slope_ratio_patched_control"], file=w)
    if "growth" in out:
        g = out["growth"]
        print(file=w)
        print("CPU(%d clients) / CPU(%d clients), medians; linear is %.2f, "
              "the target at most %.2f:\n  " % (g["to"], g["from"], g["linear"],
                                                  g["limit_1_3x"])
              + ",  ".join("%s %s" % (label(v), fmt(g[v], "%.2f"))
                           for v in variants), file=w)
    if w is not sys.stdout:
        w.close()


if __name__ == "__main__":
    main()
