#!/usr/bin/env bash
# Smoke test of "./build.sh bench monitor", at tiny sizes: the four builds
# (before, stock, patched and the control, which replays what stock sent),
# the sweep with its statistics, the conditional workload, and the CPU
# pinning with taskset (and its fallback on one CPU).  It checks that every
# client of every build received the same bytes (the control and stock
# exactly the same), the tables, the results files and their fields, and
# the statistics of bench/monitor/sweep-report.py on made-up runs.  It
# asserts no speed.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
BUILD=${BUILD:-"$TOP/build"}
PY=/usr/bin/python3

finish() {
    summary
    exit
}

WORK="$BUILD/bench/t-bench-monitor"
rm -rf "$WORK"
mkdir -p "$WORK"
OUT="$WORK/out.txt"

# --- Bad input: a clear one-line error and a non-zero exit. -----------------
expect_error bad-clients "--clients must be at most 1000" bench monitor --clients 1001
expect_error bad-txns "--txns needs a positive integer" bench monitor --txns 0
expect_error bad-variant "unknown variant 'after'" bench monitor --variants "stock after"
expect_error bad-variant-twice "variant 'stock' given twice" bench monitor --variants "stock stock"
expect_error bad-variant-entry "variant 'monitor-fanout/9999' is not an entry of patches/4.0.0/series" \
    bench monitor --base 4.0.0 --variants "stock monitor-fanout/9999"
expect_error bad-variant-entry-twice "variant 'monitor-fanout-0001' given twice" \
    bench monitor --base 4.0.0 --variants "monitor-fanout/0001 monitor-fanout/0001"
expect_error bad-option "unknown option '--bogus'" bench monitor --bogus
expect_error bad-conditional "--conditional needs a positive integer" bench monitor --conditional x
expect_error bad-warmup "--warmup needs a non-negative integer" bench monitor --warmup -1
expect_error bad-cpus "--cpus needs S,L" bench monitor --cpus 0
expect_error bad-cpus-same "--cpus: the server and the load client need different CPUs" bench monitor --cpus 0,0

# The load client and the control reject bad input too, before connecting
# anywhere.
LOAD="$BUILD/bench/monitor/monitor-bench"
CONTROL="$BUILD/bench/monitor/monitor-control"
mkdir -p "$BUILD/bench/monitor"
if make -s -C "$TOP/bench/monitor" O="$BUILD/bench/monitor" >"$WORK/make.out" 2>&1; then
    refuses load-bad-clients "^monitor-bench: --clients: expected an integer" \
        "$LOAD" --socket /nonexistent --tables A --server-pid 1 --clients 0
    refuses control-no-capture "^monitor-control: no capture $WORK/none.0.req" \
        "$CONTROL" --socket "$WORK/c.sock" --capture "$WORK/none"
else
    fail load-builds "$(tail -n 3 "$WORK/make.out" | tr '\n' ' ')"
fi

# --- The statistics, on made-up runs with known answers. ---------------------
# CPU per transaction: before 10 + 0.5 n ms, stock 2 + 0.1 n, patched
# 1 + 0.02 n (run 1) and 1 + 0.04 n (run 2), control 0.01 n; peak RSS
# stock 1000 n kB, patched 100 n; long polls: stock 1500 ms at 1000
# clients in run 2, and 900 ms (not over 1000) in run 1.  A build of the
# series up to one patch, monitor-fanout-0001: 1 + 0.05 n.
mkdir -p "$WORK/fake"
for n in 1 120 1000; do
    for r in 1 2; do
        for v in before stock patched control monitor-fanout-0001; do
            case $v in
            monitor-fanout-0001) ms=$(awk -v n="$n" 'BEGIN { print 1 + 0.05 * n }') ;;
            before) ms=$(awk -v n="$n" 'BEGIN { print 10 + 0.5 * n }') ;;
            stock) ms=$(awk -v n="$n" 'BEGIN { print 2 + 0.1 * n }') ;;
            patched) ms=$(awk -v n="$n" -v r="$r" 'BEGIN { print 1 + 0.02 * r * n }') ;;
            control) ms=$(awk -v n="$n" 'BEGIN { print 0.01 * n }') ;;
            esac
            polls=
            [ "$v $n" != "stock 1000" ] || polls=$([ "$r" = 1 ] && echo 900 || echo 1500)
            rss=$(case $v in stock) echo $((1000 * n)) ;; patched) echo $((100 * n)) ;; *) echo 5000 ;; esac)
            {
                echo "server_cpu_s $(awk -v ms="$ms" 'BEGIN { printf "%.6f", 4 * ms / 1000 }')"
                echo "server_peak_rss_kb $rss"
                echo "poll_intervals $polls"
            } >"$WORK/fake/sweep-$v-$n-$r.txt"
        done
    done
done
if "$PY" "$TOP/bench/monitor/sweep-report.py" "$WORK/fake" "$WORK/fake/out" \
        --variants "before stock patched control monitor-fanout-0001" \
        --points "1 120 1000" --runs 2 --txns 4 --name sweep >"$WORK/fake/err" 2>&1 &&
   "$PY" - "$WORK/fake/out.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
close = lambda a, b: abs(a - b) < 1e-3 * max(1, abs(b))
s = r["slope_ms_per_client_per_txn"]
assert close(s["before"], 0.5) and close(s["stock"], 0.1), s
assert close(s["patched"], 0.03) and close(s["control"], 0.01), s
assert close(r["slope_ratio_patched_control"], 3.0), r
g = r["growth"]
assert g["from"] == 120 and g["to"] == 1000, g
assert close(g["linear"], 1000 / 120) and close(g["limit_1_3x"], 1.3 * 1000 / 120), g
assert close(g["stock"], 102 / 14), g
p = {x["clients"]: x for x in r["points"]}
rat = p[1000]["ratio_patched_stock"]
assert close(rat["per_run"][0], 21 / 102) and close(rat["per_run"][1], 41 / 102), rat
assert close(rat["min"], 21 / 102) and close(rat["max"], 41 / 102), rat
assert close(rat["median"], 31 / 102), rat
assert p[1000]["stock"]["long_polls_over_1000ms"] == 1, p[1000]["stock"]
assert p[1000]["stock"]["long_polls_max_ms"] == 1500
assert close(p[120]["ratio_rss_patched_stock"]["median"], 0.1)
rat = p[1000]["ratio_monitor-fanout-0001_stock"]
assert close(rat["median"], 51 / 102) and close(rat["max"], 51 / 102), rat
assert "ratio_before_stock" not in p[1000], p[1000]
assert p[120]["stock"]["peak_rss_kb_stats"]["median"] == 120000
EOF
then
    ok sweep-statistics
else
    fail sweep-statistics "$(tail -n 3 "$WORK/fake/err" | tr '\n' ' ')"
fi

# The CPUs the runs are pinned to: the first two this process may use.
mapfile -t CPUS < <(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status |
    tr ',' '\n' | awk -F- 'NF == 1 { print $1 } NF == 2 { for (i = $1; i <= $2; i++) print i }')

# --- The benchmark, end to end, tiny. ----------------------------------------
# The four builds, 2 runs each (in alternating order), a 2-point sweep.
harness_runs "$OUT" env LOG='' "$TOP/bench/monitor.sh" --clients 8 --txns 2 \
    --warmup 2 --batch 100 --runs 2 --sweep "1 4" \
    --results-dir "$WORK/results" --tag smoke

# newest_result PREFIX EXT: the newest dated results file PREFIX-<UTC
# time stamp>.EXT in WORK/results (the benchmarks keep no -latest copy).
newest_result() {
    { ls "$WORK/results/$1"-2*."$2" 2>/dev/null || true; } | sort | tail -n1
}
RES=$(newest_result smoke json)
if [ ! -f "$RES" ]; then
    fail results-json "no $RES"
    finish
fi

# Bytes delivered: the harness already fails on a difference; check here,
# from the raw runs, that every build delivered the same non-zero bytes per
# client, the same bytes, and that all clients of each run agreed (each
# run's own check).
if bytes=$("$PY" - "$RES" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
runs = r["runs"]
names = sorted(x["name"] for x in runs)
assert names == sorted("main-%s-%d" % (v, i) for v in
                       ("before", "stock", "patched", "control")
                       for i in (1, 2)), names
for key in ("bytes_per_client", "bytes_total", "init_bytes_per_client",
            "bytes_hash", "init_bytes_hash"):
    assert len({x[key] for x in runs}) == 1, (key, runs)
b = runs[0]["bytes_per_client"]
assert b > 0 and runs[0]["bytes_total"] == 8 * b
assert runs[0]["init_bytes_per_client"] > 0
assert all(x["clients"] == 8 and x["updates_per_client"] == 2 and
           x["warmup"] == 2 and x["groups"] == 1 for x in runs), runs
# Peak RSS during the workload and RSS when it started, both read; the CPU
# of each measured transaction.
assert all(x["server_peak_rss_kb"] > 0 and x["server_rss_start_kb"] > 0
           for x in runs), runs
assert all(len(x["txn_server_cpu_ms"]) == 2 for x in runs), runs
# Not only the sizes: the same bytes.  Stock, patched and the control
# send exactly the same; "before" serializes object members in another
# order, so only the order-insensitive hash (of the byte counts) is the
# same for all.
exact = [x for x in runs if not x["name"].startswith("main-before-")]
assert len({x["content_hash"] for x in exact}) == 1, exact
assert len({x["init_content_hash"] for x in exact}) == 1, exact
assert r["patched_bytes_exactly_stock"] is True
print(b)
EOF
)
then
    ok "bytes-equal-across-builds ($bytes bytes per client)"
else
    fail bytes-equal-across-builds "results JSON does not show equal bytes"
fi

# The load client with 3 reader threads (clients drained in parallel): the
# same bytes as with one loop, every client agreeing (the run's own check).
if LOG='' "$TOP/bench/monitor.sh" --clients 8 --txns 2 --warmup 2 \
        --batch 100 --runs 1 --no-sweep --variants patched --readers 3 \
        --results-dir "$WORK/results" --tag smoke-readers \
        >"$WORK/readers.out" 2>&1 &&
   "$PY" - "$RES" "$(newest_result smoke-readers json)" <<'EOF'
import json, sys
one = [x for x in json.load(open(sys.argv[1]))["runs"]
       if x["name"].startswith("main-patched-")]
many = json.load(open(sys.argv[2]))["runs"]
assert len(many) == 1 and many[0]["readers"] == 3, many
assert all(x["readers"] == 0 for x in one), one
for key in ("content_hash", "init_content_hash", "bytes_total"):
    assert many[0][key] == one[0][key], (key, many[0][key], one[0][key])
EOF
then
    ok readers-same-bytes
else
    fail readers-same-bytes "$(tail -n 3 "$WORK/readers.out" | tr '\n' ' ')"
fi

# The server's coverage counters per run: the fds registered, which stock
# and patched have, and the passes of the main loop and the sessions that
# they ran and waited for, which only a patched server that waits only for
# some sessions has (4.0.0, not the default base); the table of them per
# transaction.
if "$PY" - "$RES" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
keys = ("server_poll_passes", "server_sessions_run", "server_sessions_waited",
        "server_poll_fd_changes")
for x in r["runs"]:
    if x["name"].startswith(("main-stock-", "main-patched-")):
        assert x["server_poll_nodes"] > 0, x
        assert all(x[k] > 0 for k in keys if k in x), x
    if x["name"].startswith("main-stock-"):
        assert not any(k in x for k in keys), x
EOF
then
    ok coverage-counters
else
    fail coverage-counters "results lack the server's coverage counters"
fi
if grep -q "^Per transaction, from the server's coverage counters" "$OUT" &&
        grep -Eq '^  Patched +(-|[0-9.]+) +(-|[0-9.]+) +(-|[0-9.]+)$' "$OUT" &&
        grep -Eq '^  Stock +- +- +-$' "$OUT"; then
    ok report-counters
else
    fail report-counters "missing or malformed table of counters per transaction"
fi

# The runs alternate: forward in run 1, backward in run 2.
order=$(sed -n 's/^\[[0-9:]*\] run \([0-9]\)\/2: \([a-z]*\),.*/\1\2/p' "$OUT" | tr '\n' ' ')
if [ "$order" = "1before 1stock 1patched 1control 2control 2patched 2stock 2before " ]; then
    ok runs-alternate
else
    fail runs-alternate "order of the runs: $order"
fi

# Pinning: on two CPUs or more, the server (and control) on the first, the
# load client on the second, as the processes themselves report.
if "$PY" - "$RES" "${CPUS[@]}" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
cpus = sys.argv[2:]
p = r["pinning"]
if len(cpus) >= 2:
    assert p["server_cpu"] == int(cpus[0]) and p["load_cpu"] == int(cpus[1]), p
    for x in r["runs"] + r["sweep_runs"]:
        assert x["server_cpus"] == cpus[0] and x["load_cpus"] == cpus[1], x
else:
    assert p["server_cpu"] is None and "only one CPU" in p["note"], p
EOF
then
    ok "pinning (CPUs ${CPUS[*]})"
else
    fail pinning "results do not show the server and load client on ${CPUS[*]:0:2}"
fi

if grep -Eq "^Updates: .* per client in 2 updates, the same for every client and build;$" "$OUT"; then
    ok report-bytes-line
else
    fail report-bytes-line "missing 'Updates: ... the same for every client and build'"
fi

# The table of the json-cache report: header, rule and one row per build; the CPU table; the
# paired ratios.
missing=
grep -Eq '^           Count   Min    Max   Median    Mean   95 percentile$' "$OUT" || missing+="header "
for l in Before Stock Patched Control; do
    grep -Eq "^  $l +[0-9]+ +(-|[0-9]+) +(-|[0-9]+) +(-|[0-9.]+) +(-|[0-9.]+) +(-|[0-9.]+)$" "$OUT" ||
        missing+="$l "
    grep -Eq "^  $l +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$" "$OUT" ||
        missing+="$l-cpu "
done
grep -q '^CPUs: ' "$OUT" || missing+="cpus "
grep -Eq '^Main comparison: server CPU per transaction' "$OUT" || missing+="main-stats "
grep -Eq '^Sweep: server CPU per transaction' "$OUT" || missing+="sweep-stats "
grep -Eq '^Marginal server CPU per client' "$OUT" || missing+="slopes "
if [ -z "$missing" ]; then
    ok report-tables
else
    fail report-tables "missing or malformed rows: $missing"
fi

# The sweep: every point of every build, 2 runs each, the paired ratios,
# peak RSS, long polls and slopes; the chart.
if "$PY" - "$RES" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
s = r["sweep"]
assert [x["clients"] for x in s["points"]] == [1, 4], s
V = ("before", "stock", "patched", "control")
for x in s["points"]:
    for v in V:
        assert len(x[v]["server_cpu_ms_per_txn"]) == 2, x
        assert x[v]["server_cpu_ms_per_txn_stats"]["median"] >= 0
        assert x[v]["peak_rss_kb_stats"]["median"] > 0
        assert x[v]["long_polls_over_1000ms"] >= 0
    assert len(x["ratio_patched_stock"]["per_run"]) == 2, x
    assert len(x["ratio_control_patched"]["per_run"]) == 2, x
assert set(s["slope_ms_per_client_per_txn"]) == set(V), s
names = sorted(x["name"] for x in r["sweep_runs"])
assert names == sorted("sweep-%s-%d-%d" % (v, n, i) for v in V
                       for n in (1, 4) for i in (1, 2)), names
for n in (1, 4):
    runs = [x for x in r["sweep_runs"] if x["clients"] == n]
    assert len({x["bytes_hash"] for x in runs}) == 1, runs
    assert len({x["content_hash"] for x in runs
                if "-before-" not in x["name"]}) == 1, runs
EOF
then
    ok sweep-results
else
    fail sweep-results "sweep missing or incomplete in $RES"
fi
PNG=$(newest_result smoke png)
if [ -s "$PNG" ] && [ "$(head -c 8 "$PNG" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then
    ok chart-png
else
    fail chart-png "no PNG at $PNG"
fi

# --- The conditional workload: 6 clients in 3 groups of 2. -------------------
COUT="$WORK/cond.txt"
if LOG='' "$TOP/bench/monitor.sh" --clients 6 --conditional 2 --txns 2 \
        --warmup 2 --batch 100 --runs 1 --no-sweep \
        --results-dir "$WORK/results" --tag cond >"$COUT" 2>&1; then
    ok conditional-runs
    cat "$COUT" >>"${LOG:-/dev/null}" 2>/dev/null || true
    if "$PY" - "$(newest_result cond json)" "$bytes" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
unconditional = int(sys.argv[2])
runs = r["runs"]
assert r["conditional_group"] == 2
assert sorted(x["name"] for x in runs) == [
    "main-before-1", "main-control-1", "main-patched-1", "main-stock-1"]
for x in runs:
    assert x["groups"] == 3 and x["group_size"] == 2, x
    assert len(x["group_bytes"]) == 3 and len(x["group_hashes"]) == 3, x
    # The groups' conditions differ, and so do the bytes they get.
    assert len(set(x["group_hashes"])) == 3, x
    # The conditions select: fewer bytes than without them.
    assert 0 < x["bytes_per_client"] < unconditional, x
for key in ("group_bytes", "bytes_total", "bytes_hash", "init_bytes_hash",
            "init_bytes_total"):
    assert len({str(x[key]) for x in runs}) == 1, (key, runs)
# The control replays, group by group, exactly what stock sent.
by = {x["name"].split("-")[1]: x for x in runs}
for key in ("content_hash", "init_content_hash", "group_hashes"):
    assert by["control"][key] == by["stock"][key], key
EOF
    then
        ok conditional-groups-equal-across-builds
    else
        fail conditional-groups-equal-across-builds "results do not show per-group equal bytes"
    fi
else
    fail conditional-runs "exit status $?; last lines: $(tail -n 3 "$COUT" | tr '\n' ' ')"
fi

# --- One CPU: no pinning, with a note. ---------------------------------------
POUT="$WORK/onecpu.txt"
if LOG='' taskset -c "${CPUS[0]}" "$TOP/bench/monitor.sh" --variants "stock control" \
        --clients 2 --txns 1 --warmup 0 --batch 100 --runs 1 --no-sweep \
        --results-dir "$WORK/results" --tag onecpu >"$POUT" 2>&1 &&
   grep -q "note: not pinned: only one CPU (${CPUS[0]}) available" "$POUT" &&
   "$PY" -c '
import json, sys
r = json.load(open(sys.argv[1]))
p = r["pinning"]
assert p["server_cpu"] is None and "only one CPU" in p["note"], p
' "$(newest_result onecpu json)"; then
    ok one-cpu-not-pinned
else
    fail one-cpu-not-pinned "$(tail -n 2 "$POUT" | tr '\n' ' ')"
fi

finish
