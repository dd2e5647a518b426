#!/usr/bin/env bash
# Smoke test of "./build.sh bench json": runs the quick scale end to end and
# checks the table, the generated databases and that stock and patched
# served byte-identical data.  Asserts no speed.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
BUILD=${BUILD:-"$TOP/build"}

finish() {
    summary
    exit
}

WORK="$BUILD/bench/t-bench-json"
rm -rf "$WORK"
mkdir -p "$WORK"
OUT="$WORK/out.txt"

# --- Bad input: a clear one-line error and a non-zero exit. -----------------
refuses bad-scale "^error: unknown scale 'huge'" "$TOP/bench/json.sh" --scale huge
refuses bad-runs "" "$TOP/bench/json.sh" --runs 0

# --- The harness, end to end. -----------------------------------------------
harness_runs "$OUT" env LOG='' "$TOP/bench/json.sh" --scale quick --runs 1 \
    --results-dir "$WORK/results" --keep-dumps "$WORK/dumps"

# The table: for each database a header and its three rows.
for label in Northbound Southbound; do
    section=$(awk -v l="$label" '
        $0 ~ "^With .* OVN " l " database with .* atoms:$" { on = 1; next }
        on && /^With / { on = 0 }
        on && /details/ { on = 0 }
        on { print }' "$OUT")
    missing=
    for row in "ovsdb-client dump" "Compaction" "Memory usage (RSS)"; do
        re=$(printf '%s' "$row" | sed 's/[()]/\\&/g')
        echo "$section" | grep -Eq "^  $re +[0-9.]+ (sec|MB|GB) +[0-9.]+ (sec|MB|GB) +-?[0-9.]+ %$" ||
            missing+="'$row' "
    done
    echo "$section" | grep -Eq '^ +Before +After +Improvement$' || missing+="header "
    if [ -z "$missing" ]; then
        ok "table-$label"
    else
        fail "table-$label" "missing or malformed: $missing"
    fi
done

# The results: JSON (valid, with both databases), text report and chart.
# newest_result PREFIX EXT: the newest dated results file PREFIX-<UTC
# time stamp>.EXT in WORK/results (the benchmarks keep no -latest copy).
newest_result() {
    { ls "$WORK/results/$1"-2*."$2" 2>/dev/null || true; } | sort | tail -n1
}
RES=$(newest_result json-quick json)
if [ -f "$RES" ] && /usr/bin/python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
for db in ("nb", "sb"):
    m = r["databases"][db]["metrics"]
    for k in ("dump_server_cpu", "compaction_wall", "rss_after_load",
              "peak_rss_load", "peak_rss_dump", "peak_rss_compaction",
              "peak_rss_initial_monitor", "initial_monitor_server_cpu",
              "rss_after_compaction", "rss_after_malloc_trim"):
        assert len(m[k]["stock"]["runs"]) == 1 and len(m[k]["patched"]["runs"]) == 1, k
    for v in ("stock", "patched"):
        run = lambda k: m[k][v]["runs"][0]
        assert run("rss_after_malloc_trim") > 0, (db, v, "rss_after_malloc_trim")
        # A peak since a reset is at least the RSS at any later moment.
        assert run("peak_rss_load") >= run("rss_after_load") > 0, (db, v, "load")
        assert run("peak_rss_compaction") >= run("rss_after_compaction") > 0, (db, v, "compaction")
        assert run("peak_rss_dump") > 0, (db, v, "dump")
        assert run("peak_rss_initial_monitor") > 0, (db, v, "initial monitor")
    assert r["callgrind"][db]["stock"] > 0 and r["callgrind"][db]["patched"] > 0
' "$RES" 2>"$WORK/json.err"; then
    ok results-json
else
    fail results-json "$RES missing or incomplete: $(tail -n1 "$WORK/json.err" 2>/dev/null)"
fi
PNG=$(newest_result json-quick png)
if [ -n "$PNG" ] && [ -f "$PNG" ] &&
   [ "$(head -c 8 "$PNG" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then
    ok results-chart
else
    fail results-chart "no PNG chart in $WORK/results"
fi

# The generated databases pass ovsdb-tool's checks.
TOOL="$BUILD/bench/3.5.0-stock/ovsdb/ovsdb-tool"
for db in nb sb; do
    f="$BUILD/bench/db/quick-$db.db"
    want=$([ $db = nb ] && echo OVN_Northbound || echo OVN_Southbound)
    why=
    [ -f "$f" ] || why="no $f"
    [ -n "$why" ] || [ "$("$TOOL" db-name "$f" 2>&1)" = "$want" ] || why="db-name is not $want"
    [ -n "$why" ] || "$TOOL" db-version "$f" >/dev/null 2>&1 || why="db-version failed"
    [ -n "$why" ] || "$TOOL" db-is-standalone "$f" >/dev/null 2>&1 || why="not standalone"
    [ -n "$why" ] || [ "$("$TOOL" show-log "$f" 2>&1 | grep -c '^record ')" = 2 ] || why="show-log does not show 2 records"
    if [ -z "$why" ]; then
        ok "ovsdb-tool-$db"
    else
        fail "ovsdb-tool-$db" "$why"
    fi
done

# The server loaded every generated atom (nothing was rejected or collected).
for db in nb sb; do
    if /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["databases"][sys.argv[2]]
g = d["generator"]["atoms"]
assert 80000 <= g <= 125000, "generator atoms %d not ~100k" % g
# The server also counts the few atoms of its own _Server database.
for v in ("stock", "patched"):
    diff = d["server_atoms"][v] - g
    assert 0 <= diff <= 100, "%s server has %d atoms, generator wrote %d" % (v, d["server_atoms"][v], g)
' "$RES" "$db" 2>"$WORK/atoms.err"; then
        ok "atoms-$db"
    else
        fail "atoms-$db" "$(tail -n1 "$WORK/atoms.err")"
    fi
done

# Stock and patched served the same data, byte for byte.
for db in nb sb; do
    a="$WORK/dumps/$db-stock.json" b="$WORK/dumps/$db-patched.json"
    table=$([ $db = nb ] && echo Logical_Switch_Port || echo Logical_Flow)
    if [ ! -s "$a" ] || [ ! -s "$b" ]; then
        fail "same-dump-$db" "missing dump output"
    elif ! grep -q "$table" "$a"; then
        fail "same-dump-$db" "dump has no $table table"
    elif cmp -s "$a" "$b"; then
        ok "same-dump-$db"
    else
        fail "same-dump-$db" "$(cmp "$a" "$b" 2>&1 | head -n1)"
    fi
done

# The generator is deterministic in its seed and rejects bad input.
GEN="$BUILD/bench/gen/ovsdb-gen"
SCH="$BUILD/bench/ovn-central/usr/share/ovn/ovn-sb.ovsschema"
"$GEN" --db sb --schema "$SCH" --nodes 2 -o "$WORK/g1.db" >/dev/null
"$GEN" --db sb --schema "$SCH" --nodes 2 -o "$WORK/g2.db" >/dev/null
"$GEN" --db sb --schema "$SCH" --nodes 2 --seed other -o "$WORK/g3.db" >/dev/null
if cmp -s "$WORK/g1.db" "$WORK/g2.db" && ! cmp -s "$WORK/g1.db" "$WORK/g3.db"; then
    ok gen-deterministic
else
    fail gen-deterministic "same seed differs or different seeds agree"
fi
if "$GEN" --db xb --schema "$SCH" --nodes 2 -o "$WORK/g4.db" 2>"$WORK/gen.err" ||
   [ "$(wc -l <"$WORK/gen.err")" != 1 ] || [ -e "$WORK/g4.db" ]; then
    fail gen-bad-input "bad --db accepted or unclear error"
else
    ok gen-bad-input
fi

rm -rf "$WORK/dumps" "$WORK"/g?.db
finish
