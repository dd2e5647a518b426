# ./build.sh regress: the full suite on stock and patched trees, compared
# test by test, with reruns of what failed.
# Functions only: sourcing it runs nothing; it loads what it needs, and
# with verb.sh all that scripts/regress.sh uses.
[ -z "${_ojp_lib_regress:-}" ] || return 0
_ojp_lib_regress=1
# shellcheck source=verb.sh
. "$(dirname "${BASH_SOURCE[0]}")/verb.sh"
# shellcheck source=suite.sh
. "$(dirname "${BASH_SOURCE[0]}")/suite.sh"

RESULTS=$(results_dir records)

# regress_key_lines TREE: "NUMBER<TAB>FILE: TITLE" for every test of TREE's
# suite, the key suite-compare.sh prints.
regress_key_lines() {
    (cd "$1/tests" && ./testsuite -l) |
        awk '$1 ~ /^[0-9]+:$/ { n = $1; sub(/:$/, "", n); f = $2; sub(/:.*/, "", f);
                                 $1 = ""; $2 = ""; t = $0; sub(/^ +/, "", t);
                                 print n "\t" f ": " t }'
}

# regress_suspects COMPARE_OUTPUT: the keys of the tests that passed on
# stock and do not pass patched ("  FILE: TITLE: ok -> RESULT").
regress_suspects() {
    sed -n '/^different results/,/^tests only in/p' "$1" |
        sed -n 's/^  \(.*\): ok -> .*$/\1/p'
}

# regress_counts COMPARE_OUTPUT WHICH: "TOTAL FAILED" from the "stock:" or
# "patched:" line ("stock:   FAILED 1, ok 2, skipped 3").
regress_counts() {
    sed -n "s/^$2: *//p" "$1" | head -n1 | tr ',' '\n' |
        awk '{ n = $NF; $NF = ""; sub(/ +$/, ""); sub(/^ +/, "");
               total += n; if ($0 == "FAILED") failed += n }
             END { print total + 0, failed + 0 }'
}

# regress_rerun TREE LOG NUMBER...: run those tests again in TREE, serially,
# and copy the testsuite log to LOG.  Tests replace it with a made-up log.
regress_rerun() {
    local tree=$1 log=$2
    shift 2
    suite_rerun "$tree" check "$log.out" "$*" || true
    [ -z "$LOG" ] || cat "$log.out" >>"$LOG"
    rm -f "$log.out"
    cp "$tree/tests/testsuite.log" "$log"
}

# regress_passed LOG NUMBER: test NUMBER passed in LOG (serial "N. F.at:L:
# ok" or parallel "N. TITLE (F.at:L): ok").
regress_passed() {
    grep -qE "^ *$2\. .*: +ok( |\$)" "$1"
}

# regress_number TREE KEY: the number of the test KEY ("FILE: TITLE") in
# TREE's suite (numbers differ between stock and patched).
regress_number() {
    regress_key_lines "$1" | awk -F'\t' -v k="$2" '$2 == k { print $1; exit }'
}

# regress_one TREE KEY: run the test KEY alone in TREE; 0 if it passed.
regress_one() {
    local n log="$1/tests/regress-one.log"
    n=$(regress_number "$1" "$2")
    [ -n "$n" ] || return 1
    regress_rerun "$1" "$log" "$n" >/dev/null 2>&1
    regress_passed "$log" "$n"
}

# REGRESS_ROUNDS: how many more times a test that failed its rerun runs on
# patched and on stock, in turn, before it is called a regression.
REGRESS_ROUNDS=${REGRESS_ROUNDS:-3}

# regress_paired STOCK PATCHED KEY: a test that failed patched twice runs
# REGRESS_ROUNDS more times on each tree, alternating, under the same load.
# Prints "flaky" if it passes patched once, "stock" if it fails on stock
# too, "regression" otherwise.
regress_paired() {
    local stock=$1 patched=$2 key=$3 i p_ok=0 s_fail=0
    for i in $(seq 1 "$REGRESS_ROUNDS"); do
        if regress_one "$patched" "$key"; then p_ok=$((p_ok + 1)); fi
        if ! regress_one "$stock" "$key"; then s_fail=$((s_fail + 1)); fi
    done
    echo "  $key: $REGRESS_ROUNDS more runs each: patched passed $p_ok, stock failed $s_fail" >&2
    if [ $p_ok -gt 0 ]; then echo flaky
    elif [ $s_fail -gt 0 ]; then echo stock
    else echo regression
    fi
}

# regress_record BASE STOCK PATCHED STOCK_LOG PATCHED_LOG OUT: compare,
# rerun the tests that fail only patched, and write OUT.txt (the
# comparison and the reruns) and OUT.summary (key=value, for report).  A
# test that fails its rerun too runs again on both trees (regress_paired):
# it is a regression only if it keeps failing patched and passes on stock.
# Returns 1 if a regression remains.
regress_record() {
    local base=$1 stock=$2 patched=$3 slog=$4 plog=$5 out=$6 cmp_rc=0
    local suspects=() nums=() key n confirmed=0 flaky=0 both=0 verdict
    "$TOP/scripts/suite-compare.sh" "$stock" "$patched" "$slog" "$plog" >"$out.txt" 2>&1 || cmp_rc=$?
    [ $cmp_rc -le 1 ] || die "suite-compare.sh failed (exit $cmp_rc): $(tail -n1 "$out.txt")"
    mapfile -t suspects < <(regress_suspects "$out.txt")
    if [ ${#suspects[@]} -gt 0 ]; then
        regress_key_lines "$patched" >"$out.keys"
        for key in "${suspects[@]}"; do
            n=$(awk -F'\t' -v k="$key" '$2 == k { print $1; exit }' "$out.keys")
            [ -z "$n" ] || nums+=("$n")
        done
        rm -f "$out.keys"
        echo "rerun on patched (tests that passed on stock only):" >>"$out.txt"
        [ ${#nums[@]} -eq 0 ] || regress_rerun "$patched" "$out.rerun.log" "${nums[@]}"
        for key in "${suspects[@]}"; do
            n=$(regress_number "$patched" "$key")
            if [ -n "$n" ] && [ -f "$out.rerun.log" ] && regress_passed "$out.rerun.log" "$n"; then
                echo "  $key: passed on rerun (flaky)" >>"$out.txt"
                flaky=$((flaky + 1))
                continue
            fi
            verdict=$(regress_paired "$stock" "$patched" "$key" 2>>"$out.txt")
            case $verdict in
            flaky)
                echo "  $key: failed again, then passed (flaky)" >>"$out.txt"
                flaky=$((flaky + 1)) ;;
            stock)
                echo "  $key: failed again, and fails on stock too (flaky in both)" >>"$out.txt"
                both=$((both + 1)) ;;
            *)
                echo "  $key: failed again: REGRESSION" >>"$out.txt"
                confirmed=$((confirmed + 1)) ;;
            esac
        done
        rm -f "$out.rerun.log"
    fi
    local st pt
    st=$(regress_counts "$out.txt" stock)
    pt=$(regress_counts "$out.txt" patched)
    cat >"$out.summary" <<EOF
kind=regress
base=$base
date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
$(series_fields "$patched" "$base")
stock_tests=${st% *}
stock_failed=${st#* }
patched_tests=${pt% *}
patched_failed=${pt#* }
failed_only_patched=${#suspects[@]}
flaky_on_rerun=$flaky
flaky_on_stock_too=$both
regressions=$confirmed
details=$(basename "$out.txt")
EOF
    [ "$confirmed" -eq 0 ]
}

# regress_jobs: the suite's parallelism, OVS_JSON_PERF_JOBS or the number of
# CPUs.  Most OVS tests wait on daemons, so more jobs than CPUs shortens a
# full run; the tests that then fail only patched are rerun serially.
regress_jobs() {
    local j=${OVS_JSON_PERF_JOBS:-$(nproc)}
    case $j in
    ''|*[!0-9]*|0) die "OVS_JSON_PERF_JOBS must be a positive number (got '$j')" ;;
    esac
    echo "$j"
}

# regress_stock_key TREE FLAGS: what a stock suite log depends on: the
# tree's files (its git tree hash) and the tests run.
regress_stock_key() {
    echo "$(git -C "$1" rev-parse "HEAD^{tree}") $2"
}

# regress_stock_cached LOGS TREE FLAGS: the newest stock suite log in LOGS
# made from the same key, else a saved one of bench/results (below), unless
# REGRESS_FRESH_STOCK is set.  Stock does not change when the series does,
# so its suite need not run again; the tests that fail only patched are
# still rerun on stock (regress_paired).
regress_stock_cached() {
    local k key best=
    [ -z "${REGRESS_FRESH_STOCK:-}" ] || return 0
    key=$(regress_stock_key "$2" "$3")
    for k in "$1"/stock-*.key; do
        [ -f "$k" ] && [ "$(cat "$k")" = "$key" ] && [ -s "${k%.key}.log" ] || continue
        if [ -z "$best" ] || [ "$k" -nt "$best" ]; then best=$k; fi
    done
    if [ -n "$best" ]; then
        echo "${best%.key}.log"
        return 0
    fi
    for k in "$RESULTS"/regress-stock-*.log.gz; do
        [ -f "$k" ] || continue
        if [ "$(gzip -dc "$k" | head -n1)" = "# stock suite key: $key" ]; then
            echo "$k"
            return 0
        fi
    done
}

# regress_stock_save LOG KEY BASE: keep, in bench/results, the lines of a
# stock suite log that suite-compare.sh reads (each test's result line
# after "## Running the tests"), gzipped, under its key, so that a machine
# without build/ reuses it (regress_stock_cached).  About 40 kB a base.
regress_stock_save() {
    local out="$RESULTS/regress-stock-$3-${2:0:12}.log.gz"
    { echo "# stock suite key: $2"
      awk '/^## Running the tests/ { on = 1; print; next }
           on && /^ *[0-9]+\. /' "$1"
    } | gzip -n -9 >"$out"
    stage "regress: stock's results kept in $out (commit it)"
}

# regress_base BASE: stock (a worktree at base/BASE) and patched
# (build/ovs-BASE), built, full suite each, compared and recorded.
regress_base() {
    local base=$1 tree="$BUILD/ovs-$1" stock="$BUILD/regress/stock-$1"
    local stamp logs="$BUILD/regress/logs-$1"
    stamp=$(date -u +%Y%m%dT%H%M%SZ)
    mkdir -p "$logs" "$RESULTS"
    worktree_at "$tree" "$stock" "base/$base"
    restore_packaging "$tree" "$stock" "$base"
    local which t flags key cached=
    for which in stock patched; do
        t=$stock
        [ "$which" = stock ] || t=$tree
        stage "regress: build $which ($t)"
        build_tree "$t"
        flags=$(full_suite_flags "$t")
        if [ "$which" = stock ]; then
            cached=$(regress_stock_cached "$logs" "$t" "$flags")
            if [ -n "$cached" ]; then
                stage "regress: stock's full suite of the same commit and tests from $(basename "$cached") (REGRESS_FRESH_STOCK=1 runs it again)"
                case $cached in
                *.gz) gzip -dc "$cached" >"$logs/stock-$stamp.log" ;;
                *) cp "$cached" "$logs/stock-$stamp.log" ;;
                esac
                continue
            fi
        fi
        stage "regress: full suite on $which, without \"$OFFNET_TEST_TITLE\" (long)"
        (cd "$t" && run make check TESTSUITEFLAGS="-j$(regress_jobs) $flags") || true
        [ -f "$t/tests/testsuite.log" ] || die "no tests/testsuite.log in $t after make check"
        cp "$t/tests/testsuite.log" "$logs/$which-$stamp.log"
        if [ "$which" = stock ]; then
            key=$(regress_stock_key "$t" "$flags")
            echo "$key" >"$logs/stock-$stamp.key"
            regress_stock_save "$logs/stock-$stamp.log" "$key" "$base"
        fi
    done
    stage "regress: compare and rerun"
    local out="$RESULTS/regress-$base-$stamp" rc=0
    regress_record "$base" "$stock" "$tree" "$logs/stock-$stamp.log" "$logs/patched-$stamp.log" "$out" || rc=$?
    echo "stock_suite=${cached:+reused }$(basename "${cached:-$logs/stock-$stamp.log}")" >>"$out.summary"
    cat "$out.txt"
    stage "regress: results in $out.summary and $out.txt (logs in $logs)"
    [ $rc -eq 0 ] || die "regressions against stock $base: see $out.txt"
}
