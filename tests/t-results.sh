#!/usr/bin/env bash
# The results of the check runs, on made-up trees and logs:
# scripts/suite-compare.sh, regress (flaky or regression on rerun, stock's
# suite log reused or saved by key) and ./build.sh report.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

scratch_dir "$BUILD/test/results"

# scripts/suite-compare.sh on made-up logs, parallel and serial: a test
# that passed on stock and fails patched is a regression (exit 1), a fix
# and a new test are listed, and test numbers that shift do not matter.
t_suite_compare() {
    local d="$SCRATCH/suite" out rc=0
    mkdir -p "$d/stock/tests" "$d/patched/tests"
    cat >"$d/stock/tests/testsuite" <<'LIST'
#!/bin/sh
cat <<'EOF'
 NUM: FILE-NAME:LINE     TEST-GROUP-NAME
   1: a.at:1             alpha
   2: a.at:9             beta: with a colon
   3: b.at:4             gamma
EOF
LIST
    cat >"$d/patched/tests/testsuite" <<'LIST'
#!/bin/sh
cat <<'EOF'
 NUM: FILE-NAME:LINE     TEST-GROUP-NAME
   1: a.at:1             alpha
   2: a.at:5             new one
   3: a.at:9             beta: with a colon
   4: b.at:4             gamma
EOF
LIST
    chmod +x "$d"/*/tests/testsuite
    cat >"$d/stock.log" <<'EOF'
## Running the tests. ##
2. beta: with a colon (a.at:9): ok     (0m1.0s 0m1.0s)
1. alpha (a.at:1): ok     (0m1.0s 0m1.0s)
## Detailed failed tests. ##
3. b.at:4: 3. gamma (b.at:4): FAILED (b.at:7)
EOF
    cat >"$d/patched.log" <<'EOF'
## Running the tests. ##
1. a.at:1: testing alpha ...
1. a.at:1:  ok
2. a.at:5: testing new one ...
2. a.at:5: skipped (a.at:6)
3. a.at:9: testing beta: with a colon ...
3. a.at:9: FAILED (a.at:11)
4. b.at:4: testing gamma ...
4. b.at:4:  ok
EOF
    out=$("$TOP/scripts/suite-compare.sh" "$d/stock" "$d/patched" \
        "$d/stock.log" "$d/patched.log" 2>&1) || rc=$?
    if [ $rc -eq 1 ] &&
       grep -qx "  a.at: beta: with a colon: ok -> FAILED" <<<"$out" &&
       grep -qx "  b.at: gamma: FAILED -> ok" <<<"$out" &&
       grep -qx "  a.at: new one: skipped" <<<"$out" &&
       grep -qx "stock: *FAILED 1, ok 2" <<<"$out" &&
       ! grep -q alpha <<<"$out"; then
        pass "suite-compare: a regression fails, a fix and a new test are listed"
    else
        failed "suite-compare: a regression fails, a fix and a new test are listed" \
            "exit $rc: $(tr '\n' '|' <<<"$out")"
    fi
    rc=0
    out=$("$TOP/scripts/suite-compare.sh" "$d/stock" "$d/patched" \
        "$d/stock.log" "$d/stock.log" 2>&1) || rc=$?
    if [ $rc -eq 0 ] && grep -q "^different results" <<<"$out"; then
        pass "suite-compare: the same results pass"
    else
        failed "suite-compare: the same results pass" "exit $rc: $(tr '\n' '|' <<<"$out")"
    fi
}

# record_with_rerun DIR OUT RESULT [STOCK_RESULT]: regress_record on the
# made-up trees and logs in DIR, into OUT, with reruns of "beta" whose result
# line ends in RESULT on patched and STOCK_RESULT (default ok) on stock.  Runs in a subshell: it sources scripts/lib/regress.sh.
record_with_rerun() (
    # shellcheck source=../scripts/lib/regress.sh
    . "$TOP/scripts/lib/regress.sh"
    RERUN_RESULT=$3 STOCK_RESULT=${4:- ok}
    # shellcheck disable=SC2034  # regress_paired's
    REGRESS_ROUNDS=2
    regress_rerun() {
        local r=$RERUN_RESULT
        [ "$(basename "$1")" != stock ] || r=$STOCK_RESULT
        printf '## Running the tests. ##\n%s. a.at:9: testing beta: with a colon ...\n%s. a.at:9: %s\n' "$3" "$3" "$r" >"$2"
    }
    regress_record 3.5.0 "$1/stock" "$1/patched" "$1/stock.log" "$1/patched.log" "$2"
)

# regress_record and report on the made-up trees and logs of
# t_suite_compare: a test that fails only patched is rerun; passing then,
# it is flaky, failing again, a regression.  report prints the newest
# result of each kind and base, and "no result" where there is none.
t_regress() {
    local d="$SCRATCH/suite" r="$SCRATCH/results" rc out
    mkdir -p "$r"
    rc=0
    out=$(record_with_rerun "$d" "$r/regress-3.5.0-a" ' ok') || rc=$?
    if [ $rc -eq 0 ] && grep -qx 'regressions=0' "$r/regress-3.5.0-a.summary" &&
       grep -qx 'flaky_on_rerun=1' "$r/regress-3.5.0-a.summary" &&
       grep -qx 'stock_tests=3' "$r/regress-3.5.0-a.summary" &&
       grep -qx 'stock_failed=1' "$r/regress-3.5.0-a.summary" &&
       grep -qx 'patched_tests=4' "$r/regress-3.5.0-a.summary" &&
       grep -qx '  a.at: beta: with a colon: passed on rerun (flaky)' "$r/regress-3.5.0-a.txt"; then
        pass "regress: a test failing only patched that passes on rerun is flaky, not a regression"
    else
        failed "regress: a test that passes on rerun is flaky" "exit $rc: $(tr '\n' '|' <"$r/regress-3.5.0-a.summary" 2>&1) $out"
    fi
    rc=0
    out=$(record_with_rerun "$d" "$r/regress-3.5.0-b" 'FAILED (a.at:11)') || rc=$?
    sed -i 's/^date=.*/date=2099-01-01T00:00:00Z/' "$r/regress-3.5.0-b.summary"
    if [ $rc -eq 1 ] && grep -qx 'regressions=1' "$r/regress-3.5.0-b.summary" &&
       grep -qx '  a.at: beta: with a colon: failed again: REGRESSION' "$r/regress-3.5.0-b.txt"; then
        pass "regress: a test failing only patched, again on rerun, is a regression (exit 1)"
    else
        failed "regress: a test failing again on rerun is a regression" "exit $rc: $(tr '\n' '|' <"$r/regress-3.5.0-b.summary" 2>&1) $out"
    fi
    rc=0
    out=$(record_with_rerun "$d" "$r/regress-3.5.0-c" 'FAILED (a.at:11)' 'FAILED (a.at:11)') || rc=$?
    if [ $rc -eq 0 ] && grep -qx 'regressions=0' "$r/regress-3.5.0-c.summary" &&
       grep -qx 'flaky_on_stock_too=1' "$r/regress-3.5.0-c.summary" &&
       grep -qx '  a.at: beta: with a colon: failed again, and fails on stock too (flaky in both)' "$r/regress-3.5.0-c.txt"; then
        pass "regress: a test failing again that fails on stock too when rerun is not a regression"
    else
        failed "regress: a test that fails on stock too" "exit $rc: $(tr '\n' '|' <"$r/regress-3.5.0-c.summary" 2>&1) $out"
    fi
    sed -i 's/^date=.*/date=2000-01-01T00:00:00Z/' "$r/regress-3.5.0-c.summary"
    printf 'kind=fuzz\nbase=3.1.0\ndate=2026-11-30T10:00:00Z\npatches=3\npatched_tree=0123456789abcdef\nov_json_executions=1500000\nov_json_seconds=60\nov_json_crashes=0\n' >"$r/fuzz-3.1.0.summary"
    OVS_JSON_PERF_RESULTS="$r" bs report
    out=$(cat "$SCRATCH/out")
    if [ "$RC" -eq 0 ] &&
       grep -qE '^regressions against stock +1 +2099-01-01T00:00:00Z +regress-3.5.0-b.summary$' <<<"$out" &&
       grep -qE '^tests run \(stock / patched\) +3 / 4 ' <<<"$out" &&
       grep -qE '^fuzz ov-json +1500000 executions, 60 s, 0 crashes +2026-11-30T10:00:00Z +fuzz-3.1.0.summary$' <<<"$out" &&
       grep -qE "^fuzz: patches applied +3 of $(series_patches 3.1.0 | wc -l), tree 0123456789ab +2026-11-30T10:00:00Z +fuzz-3.1.0.summary$" <<<"$out" &&
       [ "$(grep -cE '^sanitize +no result' <<<"$out")" -eq 3 ] &&
       ! grep -q 'regress-3.5.0-a' <<<"$out"; then
        pass "report: the newest result file of each kind, with its date; 'no result' where none"
    else
        failed "report: the newest result of each kind" "$(tr '\n' '|' <<<"$out")"
    fi
}

# regress_stock_save: the saved results of a stock suite are found by their
# key when build/ has no log, and suite-compare.sh reads the same results
# from them as from the whole log.
t_regress_stock_saved() {
    local d="$SCRATCH/stocksaved" got want rc=0
    rm -rf "$d"
    mkdir -p "$d/logs" "$d/results" "$d/tree/tests"
    printf '#!/bin/sh\n' >"$d/tree/tests/testsuite"
    chmod +x "$d/tree/tests/testsuite"
    git init -q "$d/tree"
    git -C "$d/tree" add tests/testsuite
    git -c user.name=t -c user.email=t@localhost -C "$d/tree" commit -qm a
    cat >"$d/full.log" <<'LOG'
## ------------------------ ##
## testsuite 4.0.0 test suite. ##
  1. completion.at:1: testing ...
## Running the tests. ##
  1. a title (a.at:10): ok
  2. another (b.at:20): FAILED (b.at:25)
  3. skipped one (b.at:30): skipped (b.at:31)
## Summary of the failures. ##
Failed tests:
./b.at:25: some output
  2. b.at:20: 2. another (b.at:20): FAILED (b.at:25)
  7. not a result line
LOG
    got=$(
        # shellcheck source=../scripts/lib/common.sh
        . "$TOP/scripts/lib/common.sh"
        OVS_JSON_PERF_RESULTS=$d/results
        # shellcheck source=../scripts/lib/regress.sh
        . "$TOP/scripts/lib/regress.sh"
        key=$(regress_stock_key "$d/tree" "1-3")
        regress_stock_save "$d/full.log" "$key" 9.9.9 >/dev/null 2>&1
        f=$(regress_stock_cached "$d/logs" "$d/tree" "1-3")
        echo "found:${f#"$d/"}"
        echo "other:$(regress_stock_cached "$d/logs" "$d/tree" "1-2")"
        echo "fresh:$(REGRESS_FRESH_STOCK=1 regress_stock_cached "$d/logs" "$d/tree" "1-3")"
        gzip -dc "$f" >"$d/saved.log"
        a=$("$TOP/scripts/suite-compare.sh" "$d/tree" "$d/tree" "$d/full.log" "$d/full.log")
        b=$("$TOP/scripts/suite-compare.sh" "$d/tree" "$d/tree" "$d/saved.log" "$d/saved.log")
        if [ "$a" = "$b" ]; then echo "same-results"; else echo "differ: $a / $b"; fi
        grep -c . "$d/saved.log"
    ) || rc=$?
    want="found:results/regress-stock-9.9.9-$(git -C "$d/tree" rev-parse "HEAD^{tree}" | cut -c1-12).log.gz|other:|fresh:|same-results|7"
    expect_lines "regress: a stock suite's saved results are reused by key and compare as the whole log" "$rc" "$got" "$want" \
        "regress: saved stock results"
}

# regress_stock_cached: a stock suite log is reused only for the same tree
# and tests, the newest one, and never with REGRESS_FRESH_STOCK.
t_regress_stock_reuse() {
    local d="$SCRATCH/stockreuse" got want rc=0
    rm -rf "$d"
    mkdir -p "$d/logs"
    git init -q "$d/tree"
    commit_file "$d/tree" f a a
    got=$(
        # shellcheck source=../scripts/lib/regress.sh
        . "$TOP/scripts/lib/regress.sh"
        regress_stock_key "$d/tree" "1-10 12-20" >"$d/logs/stock-1.key"
        echo old >"$d/logs/stock-1.log"
        touch -d '2000-01-01' "$d/logs/stock-1.key"
        regress_stock_key "$d/tree" "1-10 12-20" >"$d/logs/stock-2.key"
        echo new >"$d/logs/stock-2.log"
        regress_stock_key "$d/tree" "1-20" >"$d/logs/stock-3.key"
        echo other-tests >"$d/logs/stock-3.log"
        echo "same:$(regress_stock_cached "$d/logs" "$d/tree" "1-10 12-20")"
        echo "tests:$(regress_stock_cached "$d/logs" "$d/tree" "1-5")"
        echo "fresh:$(REGRESS_FRESH_STOCK=1 regress_stock_cached "$d/logs" "$d/tree" "1-10 12-20")"
        commit_file "$d/tree" f b b
        echo "tree:$(regress_stock_cached "$d/logs" "$d/tree" "1-10 12-20")"
    ) || rc=$?
    want="same:$d/logs/stock-2.log|tests:|fresh:|tree:"
    expect_lines "regress: stock's suite log is reused only for the same tree and tests" "$rc" "$got" "$want" \
        "regress: stock's suite log reuse"
}

# made_up_tree DIR RECIPE: a made-up managed tree of base 9.9.9 in DIR: a
# git repository whose base commit (tagged base/9.9.9) holds a Makefile
# whose "check" runs the shell line RECIPE, on the branch
# ovs-json-perf/9.9.9, with no patch yet.
made_up_tree() {
    mkdir -p "$1"
    git init -q "$1"
    printf 'check:\n\t%s\n' "$2" >"$1/Makefile"
    git -C "$1" add Makefile
    git -c user.name=t -c user.email=t@localhost -C "$1" commit -qm base
    git -C "$1" tag base/9.9.9
    git -C "$1" checkout -qb ovs-json-perf/9.9.9
}

# check --record and check_result_for (what CI takes for the build and
# check of a base): on a made-up managed tree whose "make check" writes a
# suite log, the record check_record writes is found for that tree and a
# selection it covers (-j aside), and not for another tree, a narrower
# record, a failed one, a build without --enable-Werror, or CHECK_FRESH.
t_check_reuse() {
    local d="$SCRATCH/checkreuse" got rc=0 want
    rm -rf "$d"
    mkdir -p "$d/results"
    made_up_tree "$d/build/ovs-9.9.9" \
        'mkdir -p tests && echo "## Summary" >tests/testsuite.log && echo "7 tests were successful." >>tests/testsuite.log'
    commit_file "$d/build/ovs-9.9.9" f patched patch
    got=$(
        BUILD=$d/build OVS_JSON_PERF_RESULTS=$d/results CHECK_RESULTS=$d/results LOG=''
        # shellcheck source=../scripts/lib/build.sh
        . "$TOP/scripts/lib/build.sh"
        echo "--enable-Werror CC=ccache gcc" >"$d/build/ovs-9.9.9/.ovs-json-perf-configure"
        check_record "$d/build/ovs-9.9.9" 9.9.9 -j2 -k json -k monitor >/dev/null 2>&1 || echo "check_record failed"
        f=$(ls "$d/results")
        echo "tests:$(sed -n 's/^tests_passed=//p' "$d/results/$f")"
        echo "selection:$(sed -n 's/^selection=//p' "$d/results/$f")"
        echo "same:$(check_result_for 9.9.9 "-j2 -k monitor" | xargs -r basename | cut -d- -f1-2)"
        echo "wider:$(check_result_for 9.9.9 "-k json -k streaming" | xargs -r basename)"
        echo "fresh:$(CHECK_FRESH=1 check_result_for 9.9.9 "-k json" | xargs -r basename)"
        sed -i 's/^configure=--enable-Werror /configure=/' "$d/results/$f"
        echo "no-werror:$(check_result_for 9.9.9 "-k json" | xargs -r basename)"
        sed -i 's/^configure=/configure=--enable-Werror /; s/^result=pass/result=FAIL/' "$d/results/$f"
        echo "failed:$(check_result_for 9.9.9 "-k json" | xargs -r basename)"
        sed -i 's/^result=FAIL/result=pass/' "$d/results/$f"
        echo changed >"$d/build/ovs-9.9.9/f"
        git -C "$d/build/ovs-9.9.9" -c user.name=t -c user.email=t@localhost commit -qam other
        echo "other-tree:$(check_result_for 9.9.9 "-k json" | xargs -r basename)"
    ) || rc=$?
    want="tests:7|selection:-k json -k monitor|same:check-9.9.9|wider:|fresh:|no-werror:|failed:|other-tree:"
    expect_lines "check --record: its result stands for exactly its tree, its selection and --enable-Werror" "$rc" "$got" "$want" \
        "check --record and check_result_for"
}

# bisect --record reuses what a committed result proved: on a made-up
# managed tree of three patches (a stand-in build_tree notes what it
# builds), a first record builds the two commits before the last; after the
# second patch changes, only it is built again, the first comes from the
# record; with a fourth patch, only the third (never built: it was last) is
# built; BISECT_FRESH builds every one.
t_bisect_reuse() {
    local d="$SCRATCH/bisectreuse" got rc=0 want
    rm -rf "$d"
    mkdir -p "$d/results"
    made_up_tree "$d/build/ovs-9.9.9" true
    commit_file "$d/build/ovs-9.9.9" a 1 one
    commit_file "$d/build/ovs-9.9.9" b 2 two
    commit_file "$d/build/ovs-9.9.9" c 3 three
    got=$(
        BUILD=$d/build OVS_JSON_PERF_RESULTS=$d/results BISECT_RESULTS=$d/results LOG=$d/log
        # shellcheck source=../scripts/lib/bisect.sh
        . "$TOP/scripts/lib/bisect.sh"
        build_tree() { git -C "$1" log -1 --format=%s >>"$d/built"; }
        restore_packaging() { :; }
        fields() { sed -n 's/^commits_\(built\|reused\)=//p' "$(ls "$d"/results/bisect-* | tail -n1)" | tr '\n' ' '; }
        bisect_record 9.9.9 >/dev/null 2>&1 || echo "first record failed"
        echo "first:$(tr '\n' ' ' <"$d/built")/$(fields)"
        rm -f "$d/built"
        sleep 1
        (
            cd "$d/build/ovs-9.9.9"
            git reset -q --hard HEAD~2
            commit_file . b 2b two
            commit_file . c 3 three
        )
        bisect_record 9.9.9 >/dev/null 2>&1 || echo "second record failed"
        echo "second:$(tr '\n' ' ' <"$d/built" 2>/dev/null)/$(fields)"
        rm -f "$d/built"
        sleep 1
        commit_file "$d/build/ovs-9.9.9" d 4 four
        bisect_record 9.9.9 >/dev/null 2>&1 || echo "third record failed"
        echo "third:$(tr '\n' ' ' <"$d/built" 2>/dev/null)/$(fields)"
        rm -f "$d/built"
        sleep 1
        BISECT_FRESH=1 bisect_record 9.9.9 >/dev/null 2>&1 || echo "fresh record failed"
        echo "fresh:$(tr '\n' ' ' <"$d/built" 2>/dev/null)/$(fields)"
    ) || rc=$?
    want="first:one two /2 0 |second:two /2 1 |third:three /3 2 |fresh:one two three /3 0 "
    expect_lines "bisect: a commit whose tree a committed result built and passed is not built again" "$rc" "$got" "$want" \
        "bisect reuse of proven trees"
}

# report's closing lines for a base: which kinds were made on the tree
# that the series makes now, which on an older tree, which name none.
# series_tree computes that tree without applying anything; where the
# managed tree holds the series as apply made it from these very patches
# (tests/run.sh applies it first), it is that branch's tree.
t_report_series() {
    local r="$SCRATCH/series-results" cur branch='' out
    rm -rf "$r"
    mkdir -p "$r"
    cur=$(
        # shellcheck source=../scripts/lib/report.sh
        . "$TOP/scripts/lib/report.sh"
        # shellcheck source=../scripts/lib/tree.sh
        . "$TOP/scripts/lib/tree.sh"
        series_tree 3.5.0
        local g="$BUILD/ovs-3.5.0" p=()
        mapfile -t p < <(series_patches 3.5.0 | sed "s|^|$PATCHES/3.5.0/|")
        if [ "$(git -C "$g" config ovs-json-perf.3.5.0.series 2>/dev/null)" = "$(series_digest "${p[@]}")" ] &&
           [ "$(git -C "$g" config ovs-json-perf.3.5.0.applied)" = "$(git -C "$g" rev-parse -q --verify ovs-json-perf/3.5.0)" ]; then
            git -C "$g" rev-parse "ovs-json-perf/3.5.0^{tree}"
        fi
    )
    branch=$(sed -n 2p <<<"$cur")
    cur=$(sed -n 1p <<<"$cur")
    if [ -z "$cur" ]; then
        skip "report: results on the current series' tree" "needs build/ovs-3.5.0 (./build.sh fetch 3.5.0)"
        return
    fi
    if [ -n "$branch" ]; then
        expect "report: the current series' tree is the tree apply makes" "$cur" "$branch"
    fi
    w() {   # KIND LINES [NAME]
        printf 'kind=%s\nbase=3.5.0\ndate=2026-12-01T00:00:00Z\nresult=pass\n%s\n' "$1" "$2" >"$r/${3:-$1}-3.5.0-x.summary"
    }
    local old=0123456789abcdef0123456789abcdef01234567
    w check "patched_tree=$cur"
    w hostile "candidate_tree=$cur"
    w valgrind "patched_tree=$old"
    w bisect ""
    # A soak under each checker is a row of its own, the newer one does
    # not hide the other.
    w soak-checked "$(printf 'checker=asan\npatched_tree=%s' "$cur")" soak-asan
    w soak-checked "$(printf 'checker=valgrind\npatched_tree=%s' "$old")" soak-valgrind
    sed -i 's/^date=.*/date=2026-12-02T00:00:00Z/' "$r/soak-valgrind-3.5.0-x.summary"
    # So is a chaos run with partitions: a newer one does not hide a run
    # on unix sockets.
    w chaos "$(printf 'network=netns, slow links by tbf\ncandidate_tree=%s' "$cur")" chaos-netns
    sed -i 's/^date=.*/date=2026-12-02T00:00:00Z/' "$r/chaos-netns-3.5.0-x.summary"
    w chaos "$(printf 'network=unix\npatched_tree=%s' "$old")"
    # And a soak of clusters: a newer one does not hide a standalone soak.
    w soak "$(printf 'cluster=no\npatched_tree=%s' "$cur")"
    w soak "$(printf 'cluster=3 members and a relay\npatched_tree=%s' "$old")" soak-cluster
    sed -i 's/^date=.*/date=2026-12-02T00:00:00Z/' "$r/soak-cluster-3.5.0-x.summary"
    OVS_JSON_PERF_RESULTS="$r" bs report
    out=$(sed -n '/^== OVS 3.5.0/,/^$/p' "$SCRATCH/out" | sed -n '/^series:/,$p')
    expect_lines "report: which results were made on the current series, an older one, or a tree they do not name" "$RC" "$out" \
        "series: tree ${cur:0:12} is patches/3.5.0/series on base/3.5.0|  made on it: check hostile chaos-partitions soak soak-checked-asan|  made on an older series: valgrind chaos soak-cluster soak-checked-valgrind|  made on a tree the result does not name: bisect|  no result: regress sanitize fuzz fuzz-longest differential ovn"
    if grep -qE '^soak of clusters: result +pass +2026-12-02T00:00:00Z +soak-cluster-3.5.0-x.summary$' "$SCRATCH/out" &&
       grep -qE '^soak: result +pass +2026-12-01T00:00:00Z +soak-3.5.0-x.summary$' "$SCRATCH/out"; then
        pass "report: a soak of clusters has rows of its own, named so"
    else
        failed "report: a soak of clusters has rows of its own" "$(grep -i soak "$SCRATCH/out" | tr '\n' '|')"
    fi
}

# The cases, in order; the closing line.
main() {
    t_suite_compare
    t_regress
    t_regress_stock_reuse
    t_regress_stock_saved
    t_check_reuse
    t_bisect_reuse
    t_report_series
    summary
}

main "$@"
