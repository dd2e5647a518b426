#!/usr/bin/env bash
# ./build.sh differential (uptime/differential.sh) on the default base:
# bad options are one error line; a short run of three seeds compares every
# message with no mismatch and records its summary; a build with a planted
# bug (a row lost from a shared update) is found.  Ends with "N passed, N
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

# field NAME FILE: the value of NAME= in FILE.
field() { sed -n "s/^$1=//p" "$2"; }

stage "t-differential: 3 seeds of 300 transactions, stock against patched $DEFAULT_BASE"
rc=0
"$TOP/build.sh" differential --seeds 3 --txns 300 --record --results-dir "$S/results" \
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
   [ $((BASH_REMATCH[2] + BASH_REMATCH[3] + BASH_REMATCH[4])) -gt 0 ]; then
    ok "3 seeds with misbehaving clients ($hostile): cut off alike, the others went on"
else
    fail "3 seeds with misbehaving clients" "exit $rc; hostile_clients=$hostile"
fi

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
