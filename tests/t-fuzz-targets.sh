#!/usr/bin/env bash
# Short runs of the fuzz targets of ./build.sh fuzz (scripts/fuzz.sh) on
# the default base: bad options; OVS's oss-fuzz json_parser_target built against the patched
# lib/json.c with libFuzzer, ASan and UBSan, run FUZZ_SECONDS; the
# differential target (stock against patched json.c) run FUZZ_SECONDS; the
# differential target with a planted off-by-one at the 23-byte inline
# string limit, which must report a MISMATCH.  A committed ./build.sh fuzz
# result on exactly this patched tree, made with this fuzz tooling, that
# ran both OVS targets for a minute or more and found the planted bug
# stands for these three runs (fuzz_result_for; FUZZ_FRESH=1 runs them).
# Then which records stand for them (scratch records), and the result files
# (summary, longest-run record, ./build.sh report) of a run of lib-json's
# target in a scratch results directory.  lib-json's own fuzzer runs in
# tests/t-lib-json.sh too.
#
# Ends with "N passed, N failed"; exits non-zero iff a case failed.
# Environment: BUILD, LOG (from tests/run.sh); FUZZ_SECONDS (default 60).
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=../scripts/lib/fuzz.sh
. "$TOP/scripts/lib/fuzz.sh"
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

# short_runs: the three runs, when no committed record stands for them.
short_runs() {
    fuzz_case "OVS json_parser_target, patched $DEFAULT_BASE, ${FUZZ_SECONDS}s" \
        ovs-json --target ovs-json "$FUZZ_SECONDS"
    fuzz_case "differential stock/patched json.c, $DEFAULT_BASE, ${FUZZ_SECONDS}s" \
        diff --target diff "$FUZZ_SECONDS"

    # The differential target must find a planted bug, from a one-input
    # corpus (a 14-byte string); the run stops at the first mismatch, within
    # seconds here, and may take up to twice FUZZ_SECONDS.
    stage "t-fuzz-targets: planted off-by-one"
    local out="$W/planted.out"
    if LOG="$LOG" "$FUZZ" --base "$DEFAULT_BASE" --plant-bug "$((FUZZ_SECONDS * 2))" >"$out" 2>&1; then
        fail "differential target finds a planted off-by-one" "the run passed (log: $LOG)"
    elif grep -q 'json-diff: MISMATCH' "$out" &&
         ls "$BUILD/fuzz/$DEFAULT_BASE/run-planted"/crash-* >/dev/null 2>&1; then
        ok "differential target finds a planted off-by-one: $(grep -oE '[0-9]+ executions in [0-9]+s' "$out" | tail -n 1)"
    else
        fail "differential target finds a planted off-by-one" \
            "failed without a MISMATCH: $(grep -E '^error:' "$out" | head -n 1)"
    fi
}

# reuse_cases: which scratch records fuzz_result_for takes: only a passing
# one on the tree ovs-json-perf/B has now, made with this fuzz tooling, with
# a minute or more of each OVS target, no crash and the planted bug found;
# FUZZ_FRESH refuses all.
reuse_cases() {
    local d="$W/reuse" tree tool got
    rm -rf "$d"
    mkdir -p "$d"
    tree=$(git -C "$BUILD/ovs-$DEFAULT_BASE" rev-parse "ovs-json-perf/$DEFAULT_BASE^{tree}")
    tool=$(fuzz_tooling)
    write() {   # NAME TREE TOOLING OVS-SECONDS DIFF-SECONDS CRASHES PLANTED RESULT
        printf 'kind=fuzz\nbase=%s\npatched_tree=%s\nfuzz_tooling=%s\novs_json_seconds=%s\novs_json_crashes=0\ndiff_seconds=%s\ndiff_crashes=%s\ndiff_planted=%s\nresult=%s\n' \
            "$DEFAULT_BASE" "$2" "$3" "$4" "$5" "$6" "$7" "$8" >"$d/fuzz-$DEFAULT_BASE-$1.summary"
    }
    reuse() { FUZZ_RESULTS=$d fuzz_result_for "$DEFAULT_BASE" | xargs -r basename; }
    write 1-other-tree 0123456789abcdef0123456789abcdef01234567 "$tool" 300 300 0 found pass
    write 2-other-tooling "$tree" 0123456789ab 300 300 0 found pass
    # Each field on its own: a record that says pass and is wrong in one.
    write 3-short-ovs-json "$tree" "$tool" 15 300 0 found pass
    write 4-short-diff "$tree" "$tool" 300 15 0 found pass
    write 5-crash "$tree" "$tool" 300 300 1 found pass
    write 6-missed "$tree" "$tool" 300 300 0 missed pass
    write 7-failed "$tree" "$tool" 300 300 0 found FAIL
    expect "fuzz_result_for: no record on this tree and tooling, long, clean and sensitive" \
        "$(reuse)" ""
    write 8-good "$tree" "$tool" 300 300 0 found pass
    expect "fuzz_result_for: a passing record on this tree and tooling" \
        "$(reuse)" "fuzz-$DEFAULT_BASE-8-good.summary"
    got=$(FUZZ_FRESH=1 reuse || true)
    expect "fuzz_result_for: FUZZ_FRESH runs them anyway" "$got" ""
}

if rec=$(fuzz_result_for "$DEFAULT_BASE"); then
    v() { sed -n "s/^$1=//p" "$rec"; }
    ok "OVS json_parser_target, differential stock/patched json.c, planted off-by-one: $(basename "$rec") was made on exactly this tree with this fuzz tooling: $(v ovs_json_executions) and $(v diff_executions) executions in $(v ovs_json_seconds) and $(v diff_seconds) s, 0 crashes, the planted bug found; not run again"
else
    short_runs
fi
reuse_cases

# Result files, in a scratch results directory: a short run of lib-json's
# target (built in seconds) records its figures; the longest-run record
# keeps a longer run and takes a longer one.
R="$W/results"
mkdir -p "$R"
printf 'kind=fuzz-longest\nbase=%s\ndate=2000-01-01T00:00:00Z\nlib_json_seconds=999999\nlib_json_executions=7\nlib_json_crashes=0\nlib_json_date=2000-01-01T00:00:00Z\nlib_json_file=x\n' \
    "$DEFAULT_BASE" >"$R/fuzz-$DEFAULT_BASE-longest.summary"
stage "t-fuzz-targets: result files"
if OVS_JSON_PERF_RESULTS="$R" LOG="$LOG" "$FUZZ" --base "$DEFAULT_BASE" \
        --target lib-json 2 >"$W/record.out" 2>&1; then
    s=$(find "$R" -name "fuzz-$DEFAULT_BASE-2*.summary" | head -n 1)
    if [ -n "$s" ] && grep -qx kind=fuzz "$s" && grep -qx "base=$DEFAULT_BASE" "$s" &&
       grep -qE '^date=[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$' "$s" &&
       grep -qE '^lib_json_executions=[1-9][0-9]*$' "$s" &&
       grep -qE '^lib_json_seconds=[0-9]+$' "$s" && grep -qx 'lib_json_crashes=0' "$s" &&
       grep -qx result=pass "$s" && grep -qx "fuzz_tooling=$(fuzz_tooling)" "$s"; then
        ok "a run writes fuzz-$DEFAULT_BASE-STAMP.summary"
    else
        fail "a run writes fuzz-$DEFAULT_BASE-STAMP.summary" "missing or incomplete: ${s:-none}"
    fi
    if grep -qx lib_json_seconds=999999 "$R/fuzz-$DEFAULT_BASE-longest.summary"; then
        ok "a shorter run leaves the longest-run record alone"
    else
        fail "a shorter run leaves the longest-run record alone" "it was replaced"
    fi
    sed -i 's/^lib_json_seconds=999999$/lib_json_seconds=0/' "$R/fuzz-$DEFAULT_BASE-longest.summary"
    rm -f "$s"
    OVS_JSON_PERF_RESULTS="$R" LOG="$LOG" "$FUZZ" --base "$DEFAULT_BASE" \
        --target lib-json 2 >"$W/record2.out" 2>&1 || true
    if grep -qE '^lib_json_executions=[1-9][0-9]*$' "$R/fuzz-$DEFAULT_BASE-longest.summary" &&
       ! grep -qx lib_json_executions=7 "$R/fuzz-$DEFAULT_BASE-longest.summary"; then
        ok "a longer run replaces the longest-run record"
    else
        fail "a longer run replaces the longest-run record" "it was kept"
    fi
    rep=$(OVS_JSON_PERF_RESULTS="$R" "$TOP/build.sh" report 2>&1 || true)
    if grep -qE "^fuzz lib-json +[1-9][0-9]* executions, [0-9]+ s, 0 crashes" <<<"$rep" &&
       grep -qE "^longest fuzz lib-json \(" <<<"$rep"; then
        ok "./build.sh report shows the fuzz run and the longest run"
    else
        fail "./build.sh report shows the fuzz run and the longest run" \
            "$(grep -i fuzz <<<"$rep" | head -n 3 | tr '\n' ' ')"
    fi
else
    fail "a run writes fuzz-$DEFAULT_BASE-STAMP.summary" "the run failed (log: $LOG)"
fi

summary
