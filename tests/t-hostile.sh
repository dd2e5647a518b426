#!/usr/bin/env bash
# ./build.sh hostile (uptime/hostile.sh) on the default base: bad options
# are one error line; a short run of damaged standalone and clustered files
# finds no difference between stock with its fixes series and the patched
# build, and records its summary; against plain stock, the crash that the
# fixes series removes from ovsdb-tool is found as a difference.  Ends with
# "N passed, N failed".
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

scratch_dir "$BUILD/test/hostile"
S=$SCRATCH

expect_error "an unknown option is one error line" "unknown option '--bogus'" hostile --bogus
expect_error "--max-cases 0 is refused" "--max-cases needs an integer of at least 1" \
    hostile --max-cases 0
expect_error "an unsupported base is refused" "unsupported base '9.9.9'" hostile --base 9.9.9
expect_error "--plant with --stock is refused" "--plant and --stock cannot go together" \
    hostile --plant --stock
HOSTILE_BINDIRS="A=/ B=/" expect_error "--plant with HOSTILE_BINDIRS is refused" \
    "unset HOSTILE_BINDIRS" hostile --plant

# field NAME FILE: the value of NAME= in FILE.
field() { sed -n "s/^$1=//p" "$2"; }

cases=${HOSTILE_CASES:-8}
stage "t-hostile: $cases damaged files of each kind, stock with fixes against patched $DEFAULT_BASE"
rc=0
"$TOP/build.sh" hostile --max-cases "$cases" --record --results-dir "$S/results" \
    >"$S/run.out" 2>&1 || rc=$?
sum=$(find "$S/results" -name "hostile-$DEFAULT_BASE-*.summary" 2>/dev/null | head -n1)
if [ $rc -eq 0 ] && [ -n "$sum" ] && [ "$(field result "$sum")" = pass ] &&
   [ "$(field differences "$sum")" = 0 ] &&
   [ "$(field standalone_cases "$sum")" = "$cases" ] &&
   [ "$(field clustered_cases "$sum")" = "$cases" ] &&
   [ "$(field steps_compared "$sum")" -gt $((cases * 10)) ]; then
    ok "$cases + $cases damaged files: $(field steps_compared "$sum") steps compared, 0 differences"
else
    fail "$cases + $cases damaged files" "exit $rc; $(grep -m3 -E '^(DIFF|hostile:|error)' "$S/run.out" | tr '\n' ' ')"
fi

# Against plain stock: stock's ovsdb-tool aborts on a raft entry whose data
# is an object (the fixes series' 0004 makes it an error), so the run must
# fail with that case as a difference.
stage "t-hostile: plain stock against patched, raft entries whose data is an object"
rc=0
"$TOP/build.sh" hostile --stock --only entry-object >"$S/stock.out" 2>&1 || rc=$?
if [ $rc -ne 0 ] && grep -q '^DIFF clustered entry-object-' "$S/stock.out" &&
   grep -q 'crash SIGABRT' "$S/stock.out" && grep -q '^hostile: FAIL' "$S/stock.out"; then
    ok "stock's ovsdb-tool abort is found: $(grep -c '^DIFF' "$S/stock.out") cases differ"
else
    fail "stock's ovsdb-tool abort is found" "exit $rc: $(tail -n 3 "$S/stock.out" | tr '\n' ' ')"
fi

summary
