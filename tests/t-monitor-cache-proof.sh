#!/usr/bin/env bash
# The monitor json cache tests of patches/BASE can fail: proof.
#
#   tests/t-monitor-cache-proof.sh [BASE]     (default 3.5.0; or 4.0.0)
#
# Builds two trees of OVS BASE (only the programs the tests need): the
# series of patches/BASE (the benchmarks' "patched" tree), and the same plus
# bench/monitor/before-unserialized-cache-series.patch, which makes the
# json cache hold unserialized json so that every client serializes every
# update again.  Runs the "json-cache" tests (-k json-cache) in both.  On the
# series, every one must pass.  With the before patch, the test that checks
# the member order of the updates on the wire must fail, and with the
# fan-out series, the tests of shared notifications (only serialized
# updates are shared); every other test must pass: they observe only what any client
# parses, which the before patch does not change.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=../scripts/lib/bench-trees.sh
. "$TOP/scripts/lib/bench-trees.sh"

# The default base, whose patched tree CI has built: the series' build
# comes from the compiler cache.
BASE=${1:-$DEFAULT_BASE}
is_supported_base "$BASE" || die "unsupported base '$BASE' (have: $SUPPORTED_BASES)"
# The tests that must fail with the before patch, where the series has them.
BEFORE_FAILS=(
    "monitor json cache - notifications serialized once per set of bytes"
    "monitor json cache - updates are serialized once, in sorted order"
    "monitor json cache - conditional clients with equal conditions"
    "monitor json cache - cached notifications are freed once sent"
)
# Over the series (bench monitor's "before" is stock plus
# before-unserialized-cache.patch): one patch for 3.5.0 and 4.0.0, whose
# series have the same monitor code.
BEFORE_PATCH="$TOP/bench/monitor/before-unserialized-cache-series.patch"
# The testsuite refuses to start without ovs-vswitchd and ovs-vsctl
# (AT_TESTED in tests/ovs-macros.at).
export BENCH_MAKE_TARGETS="ovsdb/ovsdb-server ovsdb/ovsdb-client ovsdb/ovsdb-tool utilities/ovs-appctl utilities/ovs-vsctl vswitchd/ovs-vswitchd tests/testsuite"

log_start t-monitor-cache-proof

# run_json_cache TREE OUT: runs the json-cache tests of TREE; OUT gets
# one "STATUS TITLE" line per test (STATUS is ok or FAILED).
run_json_cache() {
    local tree=$1 out=$2
    (
        cd "$tree"
        rm -rf tests/testsuite.dir
        /bin/bash tests/testsuite -C tests \
            AUTOTEST_PATH=utilities:vswitchd:ovsdb:vtep:tests:ipsec \
            -j"$(nproc)" -k json-cache || true
    ) >"$out.log" 2>&1
    sed -n 's/^ *[0-9]*: \(monitor json cache - .*\) \(ok\|FAILED\) *(\{0,1\}.*$/\2 \1/p' \
        "$out.log" | sort -k2 >"$out"
    cat "$out.log" >>"$LOG"
}

# check_run NAME OUT EXPECTED_FAILED: the tests ran, and exactly the
# titles in EXPECTED_FAILED (newline-separated, may be empty) failed.
check_run() {
    local name=$1 out=$2 expected=$3 n failed
    n=$(wc -l <"$out")
    failed=$(awk '$1 == "FAILED" { $1 = ""; sub(/^ /, ""); print }' "$out" |
                 sort | paste -sd ';' -)
    expected=$(printf '%s\n' "$expected" | sed '/^$/d' | paste -sd ';' -)
    if [ "$n" -lt 5 ]; then
        fail "$name" "only $n json-cache tests ran (see $LOG)"
    elif [ "$failed" != "$expected" ]; then
        fail "$name" "failed: '${failed:-none}', expected: '${expected:-none}' (see $LOG)"
    else
        ok "$name ($n tests, failed: ${failed:-none})"
    fi
}

[ -n "$(series_patches "$BASE")" ] || { fail series "patches/$BASE/series is empty"; summary; exit; }
WORK="$BUILD/test/monitor-cache-proof"
mkdir -p "$WORK"
mapfile -t SERIES < <(bench_series_files "$BASE")

# The series' tree is the benchmarks' "patched" one (CI's t-bench-json has
# built its servers; make adds what the testsuite needs).
if (bench_tree "$BASE" patched) >>"$LOG" 2>&1; then
    run_json_cache "$(bench_tree_dir "$BASE" patched)" "$WORK/series.txt"
    check_run "series: every json-cache test passes" "$WORK/series.txt" ""
else
    fail "series: build" "see $LOG"
fi

if (bench_tree "$BASE" cacheproof-before "${SERIES[@]}" "$BEFORE_PATCH") >>"$LOG" 2>&1; then
    run_json_cache "$(bench_tree_dir "$BASE" cacheproof-before)" "$WORK/before.txt"
    local_expected=$(for t in "${BEFORE_FAILS[@]}"; do
                         awk -v t="$t" '{ s = $1; $1 = ""; sub(/^ /, "") }
                                        $0 == t { print; exit }' "$WORK/before.txt"
                     done | sort)
    case $local_expected in
    *"${BEFORE_FAILS[1]}"*)
        check_run "series + before patch: only the wire-level tests fail" \
            "$WORK/before.txt" "$local_expected" ;;
    *)
        fail "series + before patch" "no member order test in the series" ;;
    esac
else
    fail "series + before patch: build" "see $LOG"
fi

summary
