#!/usr/bin/env bash
# Short runs of the fuzz targets of ./build.sh fuzz (scripts/fuzz.sh) on
# the default base: bad options; OVS's oss-fuzz json_parser_target built against the patched
# lib/json.c with libFuzzer, ASan and UBSan, run FUZZ_SECONDS; the
# differential target (stock against patched json.c) run FUZZ_SECONDS; the
# differential target with a planted off-by-one at the 23-byte inline
# string limit, which must report a MISMATCH; and the result files (summary,
# longest-run record, ./build.sh report) in a scratch results directory.
# lib-json's own fuzzer runs in tests/t-lib-json.sh.
#
# Ends with "N passed, N failed"; exits non-zero iff a case failed.
# Environment: BUILD, LOG (from tests/run.sh); FUZZ_SECONDS (default 60).
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
scratch_dir "$BUILD/fuzz/t-fuzz-targets" t-fuzz-targets
W=$SCRATCH
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ="$TOP/scripts/fuzz.sh"

expect_error "rejects an unknown option" "^error: fuzz: unknown option '--bogus'" fuzz --bogus
expect_error "rejects an unknown target" "^error: fuzz: unknown target 'nope'" fuzz --target nope
expect_error "rejects an unsupported base" "^error: fuzz: unsupported base '9.9.9'" fuzz --base 9.9.9
expect_error "rejects --base without a value" "^error: fuzz: --base needs a value" fuzz --base
expect_error "rejects a bad SECONDS" "^error: fuzz: SECONDS must be" fuzz 1x
expect_error "rejects two SECONDS" "^error: fuzz: unexpected argument '2'" fuzz 1 2

# fuzz_case NAME ARGS...: one fuzz run that must pass.
fuzz_case() {
    local name=$1 out="$W/$2.out"
    shift 2
    stage "t-fuzz-targets: $name"
    if LOG="$LOG" "$FUZZ" --base "$DEFAULT_BASE" --no-record "$@" >"$out" 2>&1; then
        ok "$name: $(grep -oE '[0-9]+ executions in [0-9]+s' "$out" | tail -n 1)"
    else
        fail "$name" "$(grep -E '^error:|MISMATCH' "$out" | head -n 3 | tr '\n' ' ')(log: $LOG)"
        tail -n 15 "$out" | sed 's/^/  | /'
    fi
}

fuzz_case "OVS json_parser_target, patched $DEFAULT_BASE, ${FUZZ_SECONDS}s" \
    ovs-json --target ovs-json "$FUZZ_SECONDS"
fuzz_case "differential stock/patched json.c, $DEFAULT_BASE, ${FUZZ_SECONDS}s" \
    diff --target diff "$FUZZ_SECONDS"

# The differential target must find a planted bug, from a one-input corpus
# (a 14-byte string); the run stops at the first mismatch, within seconds
# here, and may take up to twice FUZZ_SECONDS.
stage "t-fuzz-targets: planted off-by-one"
out="$W/planted.out"
if LOG="$LOG" "$FUZZ" --base "$DEFAULT_BASE" --plant-bug "$((FUZZ_SECONDS * 2))" >"$out" 2>&1; then
    fail "differential target finds a planted off-by-one" "the run passed (log: $LOG)"
elif grep -q 'json-diff: MISMATCH' "$out" &&
     ls "$BUILD/fuzz/$DEFAULT_BASE/run-planted"/crash-* >/dev/null 2>&1; then
    ok "differential target finds a planted off-by-one: $(grep -oE '[0-9]+ executions in [0-9]+s' "$out" | tail -n 1)"
else
    fail "differential target finds a planted off-by-one" \
        "failed without a MISMATCH: $(grep -E '^error:' "$out" | head -n 1)"
fi

# Result files, in a scratch results directory: a short run of the built
# target records its figures; the longest-run record keeps a longer run and
# takes a longer one.
R="$W/results"
mkdir -p "$R"
printf 'kind=fuzz-longest\nbase=%s\ndate=2000-01-01T00:00:00Z\novs_json_seconds=999999\novs_json_executions=7\novs_json_crashes=0\novs_json_date=2000-01-01T00:00:00Z\novs_json_file=x\n' \
    "$DEFAULT_BASE" >"$R/fuzz-$DEFAULT_BASE-longest.summary"
stage "t-fuzz-targets: result files"
if OVS_JSON_PERF_RESULTS="$R" LOG="$LOG" "$FUZZ" --base "$DEFAULT_BASE" \
        --target ovs-json 2 >"$W/record.out" 2>&1; then
    s=$(find "$R" -name "fuzz-$DEFAULT_BASE-2*.summary" | head -n 1)
    if [ -n "$s" ] && grep -qx kind=fuzz "$s" && grep -qx "base=$DEFAULT_BASE" "$s" &&
       grep -qE '^date=[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$' "$s" &&
       grep -qE '^ovs_json_executions=[1-9][0-9]*$' "$s" &&
       grep -qE '^ovs_json_seconds=[0-9]+$' "$s" && grep -qx 'ovs_json_crashes=0' "$s"; then
        ok "a run writes fuzz-$DEFAULT_BASE-STAMP.summary"
    else
        fail "a run writes fuzz-$DEFAULT_BASE-STAMP.summary" "missing or incomplete: ${s:-none}"
    fi
    if grep -qx ovs_json_seconds=999999 "$R/fuzz-$DEFAULT_BASE-longest.summary"; then
        ok "a shorter run leaves the longest-run record alone"
    else
        fail "a shorter run leaves the longest-run record alone" "it was replaced"
    fi
    sed -i 's/^ovs_json_seconds=999999$/ovs_json_seconds=0/' "$R/fuzz-$DEFAULT_BASE-longest.summary"
    rm -f "$s"
    OVS_JSON_PERF_RESULTS="$R" LOG="$LOG" "$FUZZ" --base "$DEFAULT_BASE" \
        --target ovs-json 2 >"$W/record2.out" 2>&1 || true
    if grep -qE '^ovs_json_executions=[1-9][0-9]*$' "$R/fuzz-$DEFAULT_BASE-longest.summary" &&
       ! grep -qx ovs_json_executions=7 "$R/fuzz-$DEFAULT_BASE-longest.summary"; then
        ok "a longer run replaces the longest-run record"
    else
        fail "a longer run replaces the longest-run record" "it was kept"
    fi
    rep=$(OVS_JSON_PERF_RESULTS="$R" "$TOP/build.sh" report 2>&1 || true)
    if grep -qE "^fuzz ovs-json +[1-9][0-9]* executions, [0-9]+ s, 0 crashes" <<<"$rep" &&
       grep -qE "^longest fuzz ovs-json \(" <<<"$rep"; then
        ok "./build.sh report shows the fuzz run and the longest run"
    else
        fail "./build.sh report shows the fuzz run and the longest run" \
            "$(grep -i fuzz <<<"$rep" | head -n 3 | tr '\n' ' ')"
    fi
else
    fail "a run writes fuzz-$DEFAULT_BASE-STAMP.summary" "the run failed (log: $LOG)"
fi

summary
