#!/usr/bin/env bash
# ./build.sh check --sanitize and --valgrind (scripts/lib/checkers.sh).
#
# 1. Bad input: one-line errors.
# 2. The parsers on canned reports: an ASan heap overflow, a LeakSanitizer
#    report, UBSan runtime errors, an autotest testsuite.dir with a
#    sanitizers.PID file, a testsuite's output, and a valgrind log with errors
#    and a definite leak attributed to its file, and the leaks of a process
#    killed by a signal set apart.  The verdict on a test
#    that failed twice: on stock too, or on patched only.
# 3. The --ovs-src copy leaves the user's tree exactly as it was.
# 4. The real thing on the patched default base, a selection that fits CI:
#    check --sanitize -- -k json -k monitor (ASan+UBSan, clang), with a
#    result file in a scratch directory, zero reports and zero failures.
#
# Ends with "N passed, N failed".  Uses build/ovs-<default base>, which
# tests/run.sh applied.  T_SANITIZE_SELECTION overrides 4's selection.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=../scripts/lib/tree.sh
. "$TOP/scripts/lib/tree.sh"
# shellcheck source=../scripts/lib/regress.sh
. "$TOP/scripts/lib/regress.sh"
# shellcheck source=../scripts/lib/checkers.sh
. "$TOP/scripts/lib/checkers.sh"

scratch_dir "$BUILD/test/sanitize"
S=$SCRATCH
SELECTION=${T_SANITIZE_SELECTION:-"-k json -k monitor"}



input_cases() {
    expect_error "check --sanitize --valgrind: refused" 'exclude each other' \
        check --sanitize --valgrind
    expect_error "check --sanitize --sanitise: unknown option" "unknown option '--sanitise'" \
        check --sanitize --sanitise
    expect_error "check --sanitize --base 9.9.9: unsupported base" "unsupported base '9.9.9'" \
        check --sanitize --base 9.9.9
    expect_error "check --valgrind --ovs-src FILE: not a directory" 'is a file' \
        check --valgrind --ovs-src "$TOP/README.md"
    expect_error "check --sanitize extra argument" "unexpected argument 'json'" \
        check --sanitize json
}

# Canned reports, shaped as the runtimes print them.
canned() {
    cat >"$S/asan.log" <<'EOF'
=================================================================
==4242==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000018 at pc 0x55d5 bp 0x7ffd sp 0x7ffd
WRITE of size 1 at 0x602000000018 thread T0
    #0 0x55d5 in json_string_create lib/json.c:210:19
    #1 0x55d6 in main tests/test-json.c:80:5
SUMMARY: AddressSanitizer: heap-buffer-overflow lib/json.c:210:19 in json_string_create
==4242==ABORTING
EOF
    cat >"$S/lsan.log" <<'EOF'
==77==ERROR: LeakSanitizer: detected memory leaks

Direct leak of 40 byte(s) in 1 object(s) allocated from:
    #0 0x4a in malloc
    #1 0x4b in xmalloc__ lib/util.c:137:15
Direct leak of 8 byte(s) in 1 object(s) allocated from:
    #0 0x4a in malloc
SUMMARY: AddressSanitizer: 48 byte(s) leaked in 2 allocation(s).
EOF
    cat >"$S/ubsan.log" <<'EOF'
lib/json.c:512:9: runtime error: left shift of negative value -1
lib/json.c:600:3: runtime error: load of misaligned address 0x01 for type 'int'
EOF
    cat >"$S/clean.log" <<'EOF'
ovsdb-server: exiting normally
AddressSanitizer is mentioned but reported nothing
EOF
}

parser_cases() {
    canned
    local n
    n=$(san_count_reports "$S/asan.log")
    expect "an ASan heap overflow report counts 1" "$n" 1
    n=$(san_count_reports "$S/lsan.log")
    expect "a LeakSanitizer report (two leaks) counts 1" "$n" 1
    n=$(san_count_reports "$S/ubsan.log")
    expect "two UBSan runtime errors count 2" "$n" 2
    n=$(san_count_reports "$S/clean.log")
    expect "a log without a report counts 0" "$n" 0

    # A testsuite.dir: test 0007 with tests/atlocal's sanitizers.PID file,
    # test 0012 with a report in a daemon's stderr, 0020 clean, and each
    # test's own testsuite.log (a copy) ignored.
    local d="$S/tree/tests/testsuite.dir"
    mkdir -p "$d/0007" "$d/0012" "$d/0020"
    cp "$S/asan.log" "$d/0007/sanitizers.4242"
    cp "$S/asan.log" "$d/0007/testsuite.log"
    cp "$S/ubsan.log" "$d/0012/stderr"
    cp "$S/clean.log" "$d/0020/stderr"
    local scan
    scan=$(san_scan "$d")
    if [ "$scan" = "$(printf '0007\tsanitizers.4242\t1\n0012\tstderr\t2')" ]; then
        pass "san_scan finds the reports of a testsuite.dir, by test"
    else
        fail "san_scan finds the reports of a testsuite.dir" "got: $(tr '\n\t' '| ' <<<"$scan")"
    fi
    LOGS="$S/logs"
    mkdir -p "$LOGS"
    : >"$LOGS/findings.txt"
    san_collect "$S/tree"
    san_collect "$S/tree"   # a rerun's scan: the same files count once
    n=$(awk '{ n += $(NF - 1) } END { print n + 0 }' "$LOGS/findings.txt")
    [ -f "$LOGS/reports/0007-sanitizers.4242" ] || n="$n, no copy of the report"
    expect "san_collect counts 3 reports once each and keeps the files" "$n" 3

    # The testsuite's output (with -d there is no testsuite.log).
    cat >"$S/suite.out" <<'EOF'
## Running the tests. ##
633: empty array - C                                ok
634: empty array - Python3                          FAILED (json.at:55)
635: single-element array - C                       skipped (json.at:56)
636: a title that says ok - C                       expected failure (json.at:57)
12: monitor-cond-change with many sessions pending ok
1643: ovsdb - JSON set of 1 to 3 uuids - C            FAILED (ovsdb-data.at:659)
ERROR: All 6 tests were run,
EOF
    n=$(suite_counts "$S/suite.out")
    expect "suite_counts: 5 run, 2 failed, 1 skipped" "$n" "5 2 1"
    n=$(suite_failed "$S/suite.out" | tr '\n' ' ')
    expect "suite_failed names tests 634 and 1643" "$n" "634 1643 "
    n=no
    if suite_passed "$S/suite.out" 12 && ! suite_passed "$S/suite.out" 634; then n=yes; fi
    expect "suite_passed: 12 passed, 634 did not" "$n" yes

    cat >"$S/valgrind.99" <<'EOF'
==99== Memcheck, a memory error detector
==99== Invalid read of size 1
==99==    at 0x1: json_string (json.c:300)
==99== 
==99== 24 bytes in 1 blocks are possibly lost in loss record 1 of 3
==99==    at 0x2: malloc (vg_replace_malloc.c:381)
==99== 
==99== 1,040 (40 direct, 1,000 indirect) bytes in 1 blocks are definitely lost in loss record 3 of 3
==99==    at 0x4848899: malloc (vg_replace_malloc.c:381)
==99==    by 0x1A2B3C: xmalloc__ (util.c:137)
==99==    by 0x1A2B3D: xmalloc (util.c:172)
==99==    by 0x1A2B3E: json_create (json.c:1650)
==99==    by 0x1A2B3F: ovsdb_monitor_compose (monitor.c:99)
==99== 
==99== 16 bytes in 2 blocks are definitely lost in loss record 2 of 3
==99==    at 0x4848899: malloc (vg_replace_malloc.c:381)
==99==    by 0x1A2B40: main (test-ovsdb.c:10)
==99== 
==99== ERROR SUMMARY: 4 errors from 4 contexts (suppressed: 0 from 0)
EOF
    n=$(vg_errors "$S/valgrind.99")
    expect "vg_errors: 4 in the ERROR SUMMARY less 3 leak records is 1" "$n" 1
    n=$(vg_error_sigs "$S/valgrind.99")
    expect "vg_error_sigs: the error's kind and functions" "$n" "Invalid read of size 1<json_string"
    n=$(vg_possible "$S/valgrind.99")
    expect "vg_possible: 1 possible leak" "$n" 1
    local recs
    recs=$(vg_definite "$S/valgrind.99")
    if [ "$(wc -l <<<"$recs")" = 2 ] &&
       [ "$(head -n1 <<<"$recs" | cut -f1-4)" = "$(printf '1040\t1\tjson.c\tvg_replace_malloc.c util.c json.c monitor.c')" ] &&
       [ "$(sed -n 2p <<<"$recs" | cut -f2,3)" = "$(printf '2\ttest-ovsdb.c')" ] &&
       [ "$(head -n1 <<<"$recs" | cut -f5)" = "malloc<xmalloc__<xmalloc<json_create<ovsdb_monitor_compose" ]; then
        pass "vg_definite: 2 definite leaks, the first owned by json.c (past util.c)"
    else
        fail "vg_definite" "got: $(tr '\n\t' '| ' <<<"$recs")"
    fi

    # Two processes of one test leak the same block; a signal killed the
    # second, which also made a memory error.  Its leak is set apart, its
    # error is a finding.
    local t="$S/vg/tests/testsuite.dir/0042" scan
    mkdir -p "$t"
    sed -e '/Invalid read/,/^==99== $/d' -e 's/SUMMARY: 4 errors/SUMMARY: 3 errors/' "$S/valgrind.99" >"$t/valgrind.100"
    { sed -n '1,4p' "$S/valgrind.99"
      echo '==99== Process terminating with default action of signal 14 (SIGALRM)'
      echo '==99==    at 0x3: raise (raise.c:26)'
      sed -n '5,$p' "$S/valgrind.99"; } >"$t/valgrind.101"
    LOGS="$S/vg/logs"
    mkdir -p "$LOGS"
    vg_collect "$S/vg" first
    scan=$(cat "$LOGS/findings.txt")
    expect "vg_scan: a killed process's memory error is a finding, its leaks are not" \
        "$scan" "$(printf '0042\tvalgrind.100\t0\t2\n0042\tvalgrind.101\t1\t0')"
    expect "vg_scan: the killed process's leaks are kept apart" \
        "$(wc -l <"$LOGS/leaks.txt") $(cut -f2 "$LOGS/leaks-killed.txt" | sort -u)" "2 valgrind.101"
}

# A test that failed twice on patched counts against the series unless a
# stock run shows it failing too (san_stock, vg_stock).
stock_cases() {
    LOGS="$S/stock-logs"
    mkdir -p "$LOGS"
    # Patched 634 is stock 600, patched 1643 stock 1610; 2000 is the
    # series' own test.  Stock run 1 passes both, run 2 fails 600, run 3
    # was cut short and shows neither.
    printf '634\t600\tjson.at: a\n1643\t1610\tovsdb-idl.at: b\n' >"$LOGS/stock-map.txt"
    printf '600: a ok\n1610: b ok\n' >"$S/stock.1.out"
    printf '600: a FAILED (json.at:5)\n1610: b ok\n' >"$S/stock.2.out"
    : >"$S/stock.3.out"
    : >"$LOGS/stock-compare.txt"
    printf '%s\n' 0634 1643 2000 >"$LOGS/failed-tests.txt"
    stock_failed_verdicts "$S/stock.1.out" "$S/stock.2.out" "$S/stock.3.out"
    expect "stock_failed_verdicts: one failure in 3 stock runs is on stock too, a pass or no run is not" \
        "$(stock_count tests_failed_on_stock_too) $(stock_count tests_failed_not_on_stock) $(grep -c 'patched only' "$LOGS/stock-compare.txt")" "1 2 2"
    expect "stock_failed_verdicts: says which test failed on stock, in how many runs" \
        "$(head -n1 "$LOGS/stock-compare.txt")" "test 634 fails on stock too (stock test 600, failed in 1 of 3 stock runs)"
    : >"$LOGS/stock-compare.txt"
    echo 634 >"$LOGS/failed-tests.txt"
    stock_failed_verdicts
    expect "stock_failed_verdicts: no stock run at all is a failure on patched only" \
        "$(stock_count tests_failed_on_stock_too) $(stock_count tests_failed_not_on_stock)" "0 1"
    counts_set "$LOGS/stock.counts" tests_failed_not_on_stock 0
    expect "san_result: no report, every failure also on stock: pass" "$(san_result 0)" pass
    expect "san_result: a sanitizer report fails the run" "$(san_result 1)" FAIL
    counts_set "$LOGS/stock.counts" tests_failed_not_on_stock 1
    expect "san_result: a test failing on patched only fails the run" "$(san_result 0)" FAIL
}

# The copy that --ovs-src builds in: the user's tree, untouched, its
# uncommitted and untracked files copied, its deleted files not.
snapshot_cases() {
    local u="$S/user" c="$S/copy" before after
    mkdir -p "$u/lib"
    git -C "$u" init -q
    echo one >"$u/lib/json.c"
    echo two >"$u/gone.c"
    printf 'ignored.o\n' >"$u/.gitignore"
    git -C "$u" add -A
    git -C "$u" -c user.name=t -c user.email=t@localhost commit -q -m init
    echo edited >"$u/lib/json.c"
    echo new >"$u/new.c"
    echo obj >"$u/ignored.o"
    rm "$u/gone.c"
    chmod 664 "$u/new.c"
    tree_state() {
        (cd "$1" && git status --porcelain --untracked-files=all --ignored &&
            find . -path ./.git -prune -o -printf '%m %T@ %p\n' | sort &&
            find . -type f -print0 | sort -z | xargs -0 sha256sum) | sha256sum
    }
    before=$(tree_state "$u")
    check_snapshot "$u" "$c"
    after=$(tree_state "$u")
    if [ "$before" = "$after" ] && [ "$(cat "$c/lib/json.c")" = edited ] &&
       [ -f "$c/new.c" ] && [ ! -e "$c/gone.c" ] && [ ! -e "$c/ignored.o" ] &&
       [ ! -e "$c/.git" ]; then
        pass "--ovs-src: the build copy has the tree as it is, the tree is unchanged"
    else
        fail "--ovs-src copy" "tree changed or copy wrong: $(cd "$c" && find . -type f | tr '\n' ' ')"
    fi
}

# A plain directory built in place: the copy has its sources, not what
# the build made with other flags.
plain_snapshot_case() {
    local u="$S/plain" c="$S/plain-copy" before after f got
    mkdir -p "$u/lib/.libs" "$u/tests/testsuite.dir/0001"
    echo src >"$u/lib/json.c"
    for f in lib/json.o lib/json.lo lib/.libs/libopenvswitch.a Makefile config.status \
             config.h Makefile.in tests/testsuite.dir/0001/stdout; do
        echo x >"$u/$f"
    done
    before=$(cd "$u" && find . -printf '%m %T@ %p\n' | sort | sha256sum)
    check_snapshot "$u" "$c"
    after=$(cd "$u" && find . -printf '%m %T@ %p\n' | sort | sha256sum)
    got=$(cd "$c" && find . -type f | sort | tr '\n' ' ')
    if [ "$before" = "$after" ] && [ "$got" = "./Makefile.in ./lib/json.c " ]; then
        pass "--ovs-src, plain tree built in place: the copy has no build products, the tree is unchanged"
    else
        fail "--ovs-src plain copy" "copy has: $got"
    fi
}

# The real run: the summary it writes says what it ran and found.
# sanitize_result_for on scratch result files: only a passing result
# without reports, on the tree ovs-json-perf/BASE has now, whose selection
# covers the one asked for, stands for a run; SANITIZE_FRESH refuses all.
reuse_cases() {
    local d="$S/reuse" tree got
    mkdir -p "$d"
    tree=$(git -C "$BUILD/ovs-$DEFAULT_BASE" rev-parse "ovs-json-perf/$DEFAULT_BASE^{tree}")
    write() {   # NAME TREE RESULT FINDINGS SELECTION
        printf 'kind=sanitize\nbase=%s\npatched_tree=%s\nselection=%s\ntests_run=9\nsanitizer_findings=%s\nresult=%s\n' \
            "$DEFAULT_BASE" "$2" "$5" "$4" "$3" >"$d/sanitize-$DEFAULT_BASE-$1.summary"
    }
    reuse() { SANITIZE_RESULTS=$d sanitize_result_for "$DEFAULT_BASE" "$1" | xargs -r basename; }
    write 1-other-tree 0123456789abcdef0123456789abcdef01234567 pass 0 "-k json -k monitor"
    write 2-failed "$tree" FAIL 0 "-k json -k monitor"
    write 3-reports "$tree" pass 2 "-k json -k monitor"
    write 4-narrow "$tree" pass 0 "-k json -k library"
    expect "sanitize_result_for: no result for this tree covers the selection" \
        "$(reuse "-k json -k monitor")" ""
    write 5-good "$tree" pass 0 "-k json -k ovsdb-data -k monitor -k library"
    expect "sanitize_result_for: a passing result on this tree with a wider selection" \
        "$(reuse "-k json -k monitor")" "sanitize-$DEFAULT_BASE-5-good.summary"
    expect "sanitize_result_for: a selection word it does not have" \
        "$(reuse "-k json -k streaming")" ""
    got=$(SANITIZE_FRESH=1 reuse "-k json" || true)
    expect "sanitize_result_for: SANITIZE_FRESH runs it anyway" "$got" ""
}

real_case() {
    local r="$S/results" rc=0 sum
    mkdir -p "$r"
    # A committed ./build.sh check --sanitize result for exactly this
    # patched tree, whose selection covers this one, stands for the run
    # (SANITIZE_FRESH=1 runs it anyway).
    if sum=$(sanitize_result_for "$DEFAULT_BASE" "$SELECTION"); then
        pass "check --sanitize -- $SELECTION: $(basename "$sum") was made on exactly this tree, $(sed -n 's/^tests_run=//p' "$sum") tests, 0 sanitizer reports; not run again"
        return
    fi
    stage "t-sanitize: check --sanitize --base $DEFAULT_BASE -- $SELECTION"
    # shellcheck disable=SC2086
    OVS_JSON_PERF_RESULTS="$r" "$TOP/build.sh" check --sanitize --base "$DEFAULT_BASE" \
        -- $SELECTION >"$S/real.out" 2>&1 || rc=$?
    sed 's/^/    /' "$S/real.out" | tail -n 30
    sum=$(find "$r" -name "sanitize-$DEFAULT_BASE-*.summary" | head -n1)
    if [ -z "$sum" ]; then
        fail "check --sanitize -- $SELECTION" "no summary written (exit $rc)"
        return
    fi
    val() { sed -n "s/^$1=//p" "$sum"; }
    if [ $rc -eq 0 ] && [ "$(val kind)" = sanitize ] && [ "$(val base)" = "$DEFAULT_BASE" ] &&
       [ "$(val tests_run)" -gt 50 ] && [ "$(val tests_failed)" = 0 ] &&
       [ "$(val sanitizer_findings)" = 0 ] && [ "$(val result)" = pass ] &&
       [ "$(val selection)" = "$SELECTION" ]; then
        pass "check --sanitize -- $SELECTION: $(val tests_run) tests, 0 failed, 0 sanitizer reports"
    else
        fail "check --sanitize -- $SELECTION" "exit $rc; $(tr '\n' ' ' <"$sum")"
    fi
}

input_cases
parser_cases
stock_cases
snapshot_cases
plain_snapshot_case
reuse_cases
real_case
summary
