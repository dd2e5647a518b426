#!/usr/bin/env bash
# ./build.sh differential (uptime/differential.sh) on the default base:
# bad options are one error line; a short run of three seeds compares every
# message with no mismatch (its misbehaving clients sending large requests
# of 3 MB), compacts and reloads both databases and
# compares their rows, and records its summary; the rows comparison finds a
# row that only one side has; a build with a planted bug (a row lost from a
# shared update) is found.  Ends with "N passed, N
# failed".
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

scratch_dir "$BUILD/test/differential"
S=$SCRATCH

# refused NAME PATTERN ARGS...: "differential ARGS" fails with one error
# line matching PATTERN.
refused() {
    local name=$1 pat=$2
    shift 2
    expect_error "$name" "$pat" differential "$@"
}

refused "an unknown option is one error line" "unknown option '--bogus'" --bogus
refused "--seeds 0 is refused" "--seeds needs an integer of at least 1" --seeds 0
refused "an unsupported base is refused" "unsupported base '9.9.9'" --base 9.9.9
refused "--txns without a value is refused" "--txns needs a value" --txns
refused "--large 0 is refused" "--large needs an integer of at least 1" --large 0

# field NAME FILE: the value of NAME= in FILE.
field() { sed -n "s/^$1=//p" "$2"; }

stage "t-differential: 3 seeds of 300 transactions, stock against patched $DEFAULT_BASE"
rc=0
"$TOP/build.sh" differential --seeds 3 --txns 300 --large 3000000 --record --results-dir "$S/results" \
    >"$S/run.out" 2>&1 || rc=$?
sum=$(find "$S/results" -name "differential-$DEFAULT_BASE-*.summary" 2>/dev/null | head -n1)
if [ $rc -eq 0 ] && [ -n "$sum" ] && [ "$(field result "$sum")" = pass ] &&
   [ "$(field mismatches "$sum")" = 0 ] && [ "$(field transactions "$sum")" = 900 ] &&
   [ "$(field messages_compared "$sum")" -gt 9000 ]; then
    ok "3 seeds: $(field transactions "$sum") transactions, $(field messages_compared "$sum") messages, 0 mismatches"
else
    fail "3 seeds of stock against patched" "exit $rc; $(tail -n 4 "$S/run.out" | tr '\n' ' ')"
fi
# Clients that misbehaved on both servers: both closed every connection
# that sent garbage (a mismatch otherwise) and logged it.
hostile=$(field hostile_clients "$sum" 2>/dev/null || true)
if [ $rc -eq 0 ] && [[ $hostile =~ ^([1-9][0-9]*)\ garbage,\ ([0-9]+)\ half.*\ ([0-9]+)\ stalled,\ ([0-9]+)\ large$ ]] &&
   [ $((BASH_REMATCH[2] + BASH_REMATCH[3] + BASH_REMATCH[4])) -gt 0 ] && [ "${BASH_REMATCH[4]}" -gt 0 ] &&
   [ "$(field hostile_large_request_bytes "$sum")" = 3000000 ]; then
    ok "3 seeds with misbehaving clients ($hostile, large ones of 3000000 bytes): cut off alike, the others went on"
else
    fail "3 seeds with misbehaving clients" "exit $rc; hostile_clients=$hostile"
fi

# After each seed both sides' ovsdb-tool compacted the databases and both
# servers loaded them again with the same rows.
rows=$(field rows_same_after_compaction "$sum" 2>/dev/null || true)
if [ $rc -eq 0 ] && [[ ${rows%% *} =~ ^[1-9][0-9]*$ ]]; then
    ok "3 seeds: compacted, reloaded, the same ${rows%% *} rows on both"
else
    fail "3 seeds: the same rows after compaction" "rows_same_after_compaction=$rows"
fi

# The contents comparison itself: two servers whose databases differ by
# one row are a MISMATCH; the same databases are not.
contents_case() {
    local d="$S/contents" bin="$BUILD/ovs-$DEFAULT_BASE" side out rc=0
    local schema="$TOP/uptime/differential.ovsschema"
    rm -rf "$d"
    for side in A B; do
        mkdir -p "$d/$side"
        "$bin/ovsdb/ovsdb-tool" create "$d/$side/db" "$schema"
    done
    "$bin/ovsdb/ovsdb-tool" transact "$d/B/db" \
        '["Differential",{"op":"insert","table":"Root","row":{"e":"red"}}]' >/dev/null
    for side in A B; do
        "$bin/ovsdb/ovsdb-server" --detach --no-chdir --pidfile="$d/$side/pid" \
            --log-file="$d/$side/log" -vconsole:off --remote="punix:$d/$side/sock" \
            --unixctl="$d/$side/ctl" "$d/$side/db"
    done
    out=$(/usr/bin/python3 "$TOP/uptime/differential.py" --contents \
              --a "$d/A/sock" --b "$d/B/sock" 2>&1) || rc=$?
    same=$(/usr/bin/python3 "$TOP/uptime/differential.py" --contents \
               --a "$d/A/sock" --b "$d/A/sock" 2>&1) || true
    for side in A B; do
        kill "$(cat "$d/$side/pid")" 2>/dev/null || true
    done
    if [ $rc -eq 1 ] && [[ $out == "MISMATCH in the contents of table Root: 0 rows on A, 1 on B"* ]] &&
       [ "$same" = "differential: contents: 0 rows, the same on both" ]; then
        ok "contents: a row only one server holds is a mismatch"
    else
        fail "contents: a row only one server holds is a mismatch" "exit $rc: $out / $same"
    fi
}
contents_case

stage "t-differential: a planted bug (a row lost from a shared update)"
rc=0
"$TOP/build.sh" differential --seeds 2 --txns 300 --plant >"$S/plant.out" 2>&1 || rc=$?
if [ $rc -ne 0 ] && grep -q 'MISMATCH at step' "$S/plant.out" &&
   grep -q '^differential: FAIL' "$S/plant.out"; then
    ok "the planted bug is found: $(grep -c 'MISMATCH at step' "$S/plant.out") of 2 seeds"
else
    fail "the planted bug is found" "exit $rc: $(tail -n 3 "$S/plant.out" | tr '\n' ' ')"
fi

summary
