#!/usr/bin/env bash
# Smoke test of "./build.sh bench monitor": about 20 clients and a few
# transactions on the three builds (before, stock, patched).  It checks that
# every client of every build received the same bytes, the table, and the
# results files.  Asserts no speed.
set -euo pipefail

TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BUILD=${BUILD:-"$TOP/build"}
export TOP

# shellcheck source=lib.sh
. "$TOP/tests/lib.sh"
finish() {
    summary
    exit
}

WORK="$BUILD/bench/t-bench-monitor"
rm -rf "$WORK"
mkdir -p "$WORK"
OUT="$WORK/out.txt"

# --- Bad input: a clear one-line error and a non-zero exit. -----------------
# expect_error NAME PATTERN ARGS...
expect_error() {
    local name=$1 pattern=$2
    shift 2
    if "$TOP/bench/monitor.sh" "$@" >"$WORK/bad.out" 2>&1; then
        fail "$name" "accepted $*"
    elif grep -q "^error: $pattern" "$WORK/bad.out"; then
        ok "$name"
    else
        fail "$name" "unexpected message: $(head -n1 "$WORK/bad.out")"
    fi
}
expect_error bad-clients "--clients must be at most 1000" --clients 1001
expect_error bad-txns "--txns needs a positive integer" --txns 0
expect_error bad-variant "unknown variant 'after'" --variants "stock after"
expect_error bad-option "unknown option '--bogus'" --bogus

# The load client rejects bad input too, before connecting anywhere.
LOAD="$BUILD/bench/monitor/monitor-bench"
mkdir -p "$BUILD/bench/monitor"
if make -s -C "$TOP/bench/monitor" O="$BUILD/bench/monitor" >"$WORK/make.out" 2>&1; then
    if "$LOAD" --socket /nonexistent --tables A --server-pid 1 --clients 0 \
            >"$WORK/bad.out" 2>&1; then
        fail load-bad-clients "monitor-bench accepted --clients 0"
    elif grep -q "^monitor-bench: --clients: expected an integer" "$WORK/bad.out"; then
        ok load-bad-clients
    else
        fail load-bad-clients "unexpected message: $(head -n1 "$WORK/bad.out")"
    fi
else
    fail load-builds "$(tail -n 3 "$WORK/make.out" | tr '\n' ' ')"
fi

# --- The benchmark, end to end, small. --------------------------------------
if LOG='' "$TOP/bench/monitor.sh" --clients 20 --txns 3 --batch 200 --runs 1 \
        --sweep "1 5" --sweep-txns 2 --results-dir "$WORK/results" \
        --tag smoke >"$OUT" 2>&1; then
    ok harness-runs
else
    fail harness-runs "exit status $?; last lines: $(tail -n 3 "$OUT" | tr '\n' ' ')"
    cat "$OUT" >>"${LOG:-/dev/null}" 2>/dev/null || true
    finish
fi
cat "$OUT" >>"${LOG:-/dev/null}" 2>/dev/null || true

RES="$WORK/results/smoke-latest.json"
if [ ! -f "$RES" ]; then
    fail results-json "no $RES"
    finish
fi

# Bytes delivered: the harness already fails on a difference; check here,
# from the raw runs, that every build delivered the same non-zero bytes per
# client, the same bytes, and that all 20 clients of each run agreed (each
# run's own check).
if bytes=$(/usr/bin/python3 - "$RES" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
runs = [x for x in r["runs"]]
names = sorted(x["name"] for x in runs)
assert names == ["main-before-1", "main-patched-1", "main-stock-1"], names
per = {x["bytes_per_client"] for x in runs}
tot = {x["bytes_total"] for x in runs}
assert len(per) == 1 and len(tot) == 1, (per, tot)
b = per.pop()
assert b > 0 and tot.pop() == 20 * b
assert all(x["clients"] == 20 and x["updates_per_client"] == 3 for x in runs)
# Peak RSS during the workload and RSS when it started, both read.
assert all(x["server_peak_rss_kb"] > 0 and x["server_rss_start_kb"] > 0
           for x in runs), runs
init = {x["init_bytes_per_client"] for x in runs}
assert len(init) == 1 and init.pop() > 0, init
# Not only the sizes: the same bytes.  Stock and patched send exactly the
# same; "before" serializes object members in another order, so only the
# order-insensitive hash (of the byte counts) is the same for all three.
assert len({x["bytes_hash"] for x in runs}) == 1, runs
assert len({x["init_bytes_hash"] for x in runs}) == 1, runs
exact = [x for x in runs if x["name"] != "main-before-1"]
assert len({x["content_hash"] for x in exact}) == 1, exact
assert len({x["init_content_hash"] for x in exact}) == 1, exact
print(b)
EOF
)
then
    ok "bytes-equal-across-builds ($bytes bytes per client)"
else
    fail bytes-equal-across-builds "results JSON does not show equal bytes"
fi

if grep -Eq "^Updates: .* per client in 3 updates, the same for every client and build;$" "$OUT"; then
    ok report-bytes-line
else
    fail report-bytes-line "missing 'Updates: ... identical for every client and build'"
fi

# The seed's table: header, rule and one row per build.
missing=
grep -Eq '^           Count   Min    Max   Median    Mean   95 percentile$' "$OUT" || missing+="header "
for l in Before Stock Patched; do
    grep -Eq "^  $l +[0-9]+ +(-|[0-9]+) +(-|[0-9]+) +(-|[0-9.]+) +(-|[0-9.]+) +(-|[0-9.]+)$" "$OUT" ||
        missing+="$l "
    grep -Eq "^  $l +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$" "$OUT" ||
        missing+="$l-cpu "
done
if [ -z "$missing" ]; then
    ok report-tables
else
    fail report-tables "missing or malformed rows: $missing"
fi

# The sweep: a row per client count, and the chart.
if /usr/bin/python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
s = r["sweep"]
assert [x["clients"] for x in s] == [1, 5], s
for x in s:
    for v in ("before", "stock", "patched"):
        assert x[v + "_server_cpu_s"] >= 0
' "$RES"; then
    ok sweep-results
else
    fail sweep-results "sweep missing from $RES"
fi
PNG="$WORK/results/smoke-latest.png"
if [ -s "$PNG" ] && [ "$(head -c 8 "$PNG" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then
    ok chart-png
else
    fail chart-png "no PNG at $PNG"
fi

finish
