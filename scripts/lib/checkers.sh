# shellcheck shell=bash disable=SC2153
# (TREE, LOG and the like come from tree.sh and common.sh.)
# ./build.sh check --sanitize and ./build.sh check --valgrind: the patched
# tree under OVS's own checkers, in build directories of their own, with a
# result file for ./build.sh report.
# Functions only: sourcing it runs nothing; it loads what it needs.
[ -z "${_ojp_lib_checkers:-}" ] || return 0
_ojp_lib_checkers=1
# shellcheck source=apply.sh
. "$(dirname "${BASH_SOURCE[0]}")/apply.sh"
# shellcheck source=regress.sh
. "$(dirname "${BASH_SOURCE[0]}")/regress.sh"

# What each checker runs unless "-- FLAGS" selects otherwise (-k ORs).
SAN_SELECTION="-k json -k monitor -k ovsdb-data -k ovsdb-execute -k ovsdb-server -k ovsdb-idl -k library"
VG_SELECTION="-k json -k monitor"

# OVS's sanitizer build, as its .ci/linux-build.sh makes it for the
# "clang, address,undefined" job; ASAN_OPTIONS as that job exports it
# (tests/atlocal adds abort_on_error and log_path=sanitizers, and
# UBSAN_OPTIONS with print_stacktrace, halt_on_error and the same path).
SAN_CFLAGS="-g -O2 -fno-omit-frame-pointer -fno-common -fsanitize=address,undefined -Wno-error=unused-command-line-argument"
SAN_ASAN_OPTIONS=detect_leaks=1

# The sanitizer and valgrind reports a file holds, one line each.  ASan
# and LeakSanitizer print "==PID==ERROR: ...Sanitizer: ..." once per
# report (a leak report lists every leak under one header); UBSan prints
# "FILE:LINE:COL: runtime error: ..." once per finding.
SAN_REPORT_RE='==[0-9]+==ERROR: (Address|Leak|Memory|Thread)Sanitizer|: runtime error: '

# san_count_reports FILE...: the number of sanitizer reports in FILEs.
san_count_reports() {
    [ $# -gt 0 ] || { echo 0; return; }
    cat -- "$@" 2>/dev/null | grep -cE "$SAN_REPORT_RE" || true
}

# san_scan DIR: the sanitizer reports left in an autotest testsuite.dir.
# Prints one "TEST_DIR<TAB>FILE<TAB>REPORTS" line for each file with a
# report: the sanitizers.PID files tests/atlocal's log_path makes, and any
# other file of a test (a daemon's stderr, its log) that holds a report;
# not the test's own testsuite.log, which copies the sanitizers.* files.
san_scan() {
    local dir=$1 f n
    [ -d "$dir" ] || return 0
    while IFS= read -r -d '' f; do
        n=$(san_count_reports "$f")
        [ "$n" -eq 0 ] || printf '%s\t%s\t%s\n' "$(basename "$(dirname "$f")")" "$(basename "$f")" "$n"
    done < <(find "$dir" -mindepth 2 -maxdepth 2 -type f ! -name testsuite.log -print0 |
             xargs -0 -r grep -lZE "$SAN_REPORT_RE" 2>/dev/null || true)
}

# check_workdir KIND: a build directory of its own for TREE under
# build/check/, never TREE itself: for our managed tree a git worktree of
# it at its branch (its HEAD: the applied series), for --ovs-src a copy of
# the tree's files as they are (tracked and untracked, not ignored, for a
# git checkout; everything but build products for a plain directory).
# Sets WORK.
check_workdir() {
    local kind=$1 name
    if [ "$MANAGED" = 1 ]; then
        WORK="$BUILD/check/$kind-$SERIES_BASE"
        local rev
        rev=$(git_tree rev-parse HEAD)
        worktree_at "$TREE" "$WORK" "$rev"
        restore_packaging "$TREE" "$WORK" "$SERIES_BASE"
        return 0
    fi
    name="$(basename "$TREE")-$(printf '%s' "$TREE" | sha256sum | cut -c1-8)"
    WORK="$BUILD/check/$kind-src-$name"
    check_snapshot "$TREE" "$WORK"
}

# check_snapshot TREE DEST: DEST becomes a copy of TREE's sources as they
# are now.  Only reads TREE.  An unchanged file keeps its time stamp in
# DEST, so that a rebuild there recompiles only what changed.
check_snapshot() {
    local tree=$1 dest=$2 list
    mkdir -p "$dest"
    list=$(mktemp "${TMPDIR:-/tmp}/ovs-json-perf-snap.XXXXXX")
    if is_git_toplevel "$tree"; then
        (cd "$tree" && git ls-files -z -c -o --exclude-standard) >"$list" ||
            { rm -f "$list"; die "cannot list the files of $tree"; }
        # Drop what git lists but the work tree no longer has (deleted).
        (cd "$tree" && while IFS= read -r -d '' f; do
            [ -e "$f" ] || [ -L "$f" ] && printf '%s\0' "$f"
        done <"$list") >"$list.ok"
        (cd "$tree" && tar -c --null -T "$list.ok" -f -) | (cd "$dest" && tar -x -p -f -) ||
            { rm -f "$list" "$list.ok"; die "cannot copy $tree to $dest"; }
        rm -f "$list.ok"
    else
        # Not what a build in the tree made: its objects and configuration
        # are of other flags.
        (cd "$tree" && tar -c -f - --exclude='*.o' --exclude='*.lo' --exclude='*.la' \
            --exclude='*.a' --exclude=.libs --exclude=.deps --exclude=./Makefile \
            --exclude=./config.status --exclude=./config.h --exclude=./config.log \
            --exclude=./.ovs-json-perf-configure --exclude=./tests/testsuite.dir .) |
            (cd "$dest" && tar -x -p -f -) ||
            { rm -f "$list"; die "cannot copy $tree to $dest"; }
    fi
    rm -f "$list"
}

# A checker's counts are files of KEY=VALUE lines in LOGS: run.counts (the
# suite run, check_run_suite) and stock.counts (the comparison with stock).

# counts_set and counts_get (common.sh) write and read them.

# run_count KEY, stock_count KEY: a count of the suite run, of the
# comparison with stock.
run_count() { counts_get "$LOGS/run.counts" "$1"; }
stock_count() { counts_get "$LOGS/stock.counts" "$1"; }

# run_failed_tests: the numbers of the tests that failed twice, a line each.
run_failed_tests() { cat "$LOGS/failed-tests.txt" 2>/dev/null || true; }

# check_selection_flags ARGS...: the selection (the "-- FLAGS" given, or
# DEFAULT) without any -j, which check adds.
check_selection_flags() {
    local default=$1 a out=()
    shift
    for a in "$@"; do
        case $a in
        -j*) ;;
        *) out+=("$a") ;;
        esac
    done
    if [ ${#out[@]} -eq 0 ]; then echo "$default"; else echo "${out[*]}"; fi
}

# check_run_suite DIR TARGET FLAGS PREFIX HOOK: make TARGET in DIR with
# TESTSUITEFLAGS FLAGS; the failed tests are run once more, on their own,
# and a test that passes then is counted as flaky.  The counts go to
# LOGS/run.counts (tests_run, tests_skipped, failed_first_run,
# flaky_on_rerun, tests_failed: after the rerun), the numbers of the tests
# that failed twice to LOGS/failed-tests.txt; the output is LOGS/PREFIX.out
# (and PREFIX.rerun.out).  Calls "HOOK DIR first" after the first run and
# "HOOK DIR rerun" after the rerun, to collect what each left in
# testsuite.dir.
check_run_suite() {
    local dir=$1 target=$2 flags=$3 prefix=$4 hook=$5 out failed=() n
    local tests first skipped flaky=0 again=0 c="$LOGS/run.counts"
    out="$LOGS/$prefix.out"
    rm -rf "$dir/tests/testsuite.dir" "$dir/tests/testsuite.log"
    : >"$LOGS/failed-tests.txt"
    stage "check: make $target TESTSUITEFLAGS='$flags' in $dir (long; output in $out)"
    # shellcheck disable=SC2086
    (cd "$dir" && make "$target" TESTSUITEFLAGS="$flags") >"$out" 2>&1 || true
    cat "$out" >>"$LOG"
    read -r tests first skipped <<<"$(suite_counts "$out")"
    [ "$tests" -gt 0 ] || die "make $target ran no test with '$flags' (see $out)"
    counts_set "$c" tests_run "$tests"
    counts_set "$c" tests_skipped "$skipped"
    counts_set "$c" failed_first_run "$first"
    "$hook" "$dir" first
    mapfile -t failed < <(suite_failed "$out")
    if [ ${#failed[@]} -gt 0 ]; then
        stage "check: ${#failed[@]} failed: ${failed[*]}; running them once more"
        suite_rerun "$dir" "$target" "$LOGS/$prefix.rerun.out" "${flags%%-[kj]*} ${failed[*]}" || true
        cat "$LOGS/$prefix.rerun.out" >>"$LOG"
        "$hook" "$dir" rerun
    fi
    for n in "${failed[@]}"; do
        if suite_passed "$LOGS/$prefix.rerun.out" "$n"; then
            flaky=$((flaky + 1))
            echo "  test $n: passed when run again (flaky)"
        else
            again=$((again + 1))
            echo "$n" >>"$LOGS/failed-tests.txt"
            echo "  test $n: failed again"
        fi
    done
    counts_set "$c" flaky_on_rerun "$flaky"
    counts_set "$c" tests_failed "$again"
}

# san_collect DIR: add the sanitizer reports in DIR's testsuite.dir to
# LOGS/findings.txt (once each: the rerun keeps the other tests' files),
# and copy each report file to LOGS/reports/.  A report of the first run
# counts even if its test passes when run again.
san_collect() {
    local dir=$1 t f n
    mkdir -p "$LOGS/reports"
    while IFS=$'\t' read -r t f n; do
        [ -n "$t" ] || continue
        printf 'test %s: %s: %s report(s)\n' "$t" "$f" "$n" >>"$LOGS/findings.txt"
        cp "$dir/tests/testsuite.dir/$t/$f" "$LOGS/reports/$t-$f"
    done < <(san_scan "$dir/tests/testsuite.dir")
    sort -u -o "$LOGS/findings.txt" "$LOGS/findings.txt"
}

# check_begin KIND [CMD ARGS...]: the start of a checker's run: its build
# dependencies (then CMD ARGS, the checker's own), its work tree (WORK),
# and its time stamp, log directory and result file: CHECK_STAMP, LOGS
# and SUMMARY.
check_begin() {
    local kind=$1
    shift
    CHECK_STAMP=$(date -u +%Y%m%dT%H%M%SZ)
    need_build_deps
    [ $# -eq 0 ] || "$@"
    check_workdir "$kind"
    LOGS="$BUILD/check/logs/$kind-$SERIES_BASE-$CHECK_STAMP"
    SUMMARY="$RESULTS/$kind-$SERIES_BASE-$CHECK_STAMP.summary"
    mkdir -p "$LOGS" "$RESULTS"
}

# check_write_summary KIND SELECTION RESULT: the result file SUMMARY: what
# was checked (KIND, base, date, tree, series), SELECTION and the tests that
# check_run_suite ran, the lines of KIND on stdin, then RESULT and where the
# logs are.
check_write_summary() {
    {
        cat <<EOF
kind=$1
base=$SERIES_BASE
date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
tree=$(check_tree_name)
series=$(check_tree_rev)
EOF
        check_series_fields
        cat <<EOF
selection=$2
tests_run=$(run_count tests_run)
tests_skipped=$(run_count tests_skipped)
failed_first_run=$(run_count failed_first_run)
flaky_on_rerun=$(run_count flaky_on_rerun)
tests_failed=$(run_count tests_failed)
tests_failed_on_stock_too=$(stock_count tests_failed_on_stock_too)
EOF
        cat
        echo "result=$3"
        echo "logs=${LOGS#"$TOP"/}"
    } >"$SUMMARY"
}

# check_show_summary: the result file, and where it and the logs are.
check_show_summary() {
    sed 's/^/  /' "$SUMMARY"
    stage "check: result in $SUMMARY (logs in $LOGS)"
}

# san_result FINDINGS: the result of a sanitizer run with FINDINGS
# reports, "pass" or "FAIL".  Any report fails it; a failed test fails it
# unless it fails on stock too (stock count tests_failed_not_on_stock,
# san_stock).
san_result() {
    if [ "$1" -ne 0 ] || [ "$(stock_count tests_failed_not_on_stock)" -ne 0 ]; then
        echo FAIL
    else
        echo pass
    fi
}

# check_sanitize: build TREE (patched) with ASan and UBSan in WORK, run
# the selection, record bench/results/sanitize-BASE-STAMP.summary.
check_sanitize() {
    local sel findings rc=0 cc
    check_begin sanitize need_clang
    : >"$LOGS/findings.txt"
    cc="ccache clang"
    build_tree --cc "$cc" --cflags "$SAN_CFLAGS" "$WORK"
    sel=$(check_selection_flags "$SAN_SELECTION" "$@")
    # -d keeps every test's directory, so that a report a daemon wrote
    # after its test passed is seen too.
    ASAN_OPTIONS=$SAN_ASAN_OPTIONS check_run_suite "$WORK" check \
        "-d -j$(nproc) $sel" suite san_collect
    findings=$(awk '{ n += $(NF - 1) } END { print n + 0 }' "$LOGS/findings.txt")
    [ "$(run_count tests_failed)" -eq 0 ] || san_stock "$cc"
    local result
    result=$(san_result "$findings")
    [ "$result" = pass ] || rc=1
    check_write_summary sanitize "$sel" "$result" <<EOF
compiler=$(clang --version | sed -n 1p)
cflags=$SAN_CFLAGS
asan_options=$SAN_ASAN_OPTIONS (plus tests/atlocal's)
stock_runs_of_failed_tests=$(stock_count stock_runs_of_failed_tests)
sanitizer_findings=$findings
EOF
    if [ "$findings" -ne 0 ]; then
        echo "sanitizer reports:"
        sed 's/^/  /' "$LOGS/findings.txt"
        grep -hE "$SAN_REPORT_RE|^ +#[0-9]+ " "$LOGS"/reports/* 2>/dev/null | awk 'NR <= 30 { print "  | " $0 }'
    fi
    check_show_summary
    [ $rc -eq 0 ] || die "check --sanitize: $(stock_count tests_failed_not_on_stock) tests failed on patched only, $findings sanitizer reports (see $LOGS)"
    stage "check --sanitize: passed, no sanitizer report"
}

# The commit checked: our tree's (the applied series), or the user's
# HEAD, "-dirty" if the tree had uncommitted changes, or "plain tree".
check_tree_rev() {
    if [ "$MANAGED" = 1 ]; then
        git -C "$WORK" rev-parse --short HEAD
    elif is_git_toplevel "$TREE"; then
        echo "$(git -C "$TREE" rev-parse --short HEAD)$(git -C "$TREE" diff --quiet HEAD -- 2>/dev/null || echo -dirty)"
    else
        echo "plain tree"
    fi
}

# The series fields of a result (series_fields) for our managed tree.
check_series_fields() {
    [ "$MANAGED" = 0 ] || series_fields "$WORK" "$SERIES_BASE"
}

check_tree_name() {
    if [ "$MANAGED" = 1 ]; then echo "build/ovs-$SERIES_BASE"; else echo "$TREE"; fi
}

# Valgrind: what a log of "valgrind --log-file=valgrind.%p" says.

# vg_errors FILE...: the memory errors (invalid reads and writes, use of
# uninitialised values, bad frees...) of the logs: each log's "ERROR
# SUMMARY: N errors" less its leak records, which valgrind counts there
# too (--leak-check=full: one error per definite or possible leak).
vg_errors() {
    local f n=0 e l
    for f in "$@"; do
        e=$(sed -nE 's/^==[0-9]+== ERROR SUMMARY: ([0-9]+) errors.*/\1/p' "$f" | awk '{ n += $1 } END { print n + 0 }')
        l=$(grep -cE 'are (definitely|possibly) lost in loss record' "$f" || true)
        n=$((n + (e > l ? e - l : 0)))
    done
    echo "$n"
}

# vg_error_sigs FILE...: one line per memory error: its kind and the
# functions of the top of its stack ("Invalid read of size 1<json_string<
# main"), which do not change between builds the way addresses do.
vg_error_sigs() {
    [ $# -gt 0 ] || return 0
    awk '
        function flush() { if (sig != "") print sig; sig = ""; n = 0 }
        /^==[0-9]+== (Invalid (read|write|free)|Conditional jump|Use of uninitialised|Syscall param|Mismatched free|Source and destination overlap|Argument .* of function|Jump to the invalid)/ {
            flush(); sig = $0; sub(/^==[0-9]+== /, "", sig); sub(/ at 0x[0-9A-Fa-f]+/, "", sig); next
        }
        sig != "" && /^==[0-9]+== +(at|by) 0x/ {
            if (n < 4) { fn = $0; sub(/.*: /, "", fn); sub(/ \(.*/, "", fn); sig = sig "<" fn; n++ }
            next
        }
        sig != "" { flush() }
        END { flush() }
    ' "$@"
}

# vg_possible FILE...: the number of possible-leak records (reported, not
# failed: a daemon that a test kills with a signal leaves some).
vg_possible() {
    [ $# -gt 0 ] || { echo 0; return; }
    cat -- "$@" | grep -cE 'are possibly lost in loss record' || true
}

# vg_definite FILE: one line per definite leak record: "BYTES<TAB>BLOCKS<TAB>
# OWNER<TAB>FILES<TAB>SIGNATURE".  FILES are the source files of its
# stack, OWNER the first of them that is not an allocation wrapper
# (lib/util.c, xmalloc and friends) and SIGNATURE the functions of the
# stack, which do not change between builds the way addresses do.
vg_definite() {
    awk '
        function flush() {
            if (inrec) {
                if (owner == "") owner = (first != "" ? first : "?")
                printf "%s\t%s\t%s\t%s\t%s\n", bytes, blocks, owner, files, sig
            }
            inrec = 0
        }
        /are definitely lost in loss record/ {
            flush()
            line = $0; sub(/^==[0-9]+== */, "", line)
            split(line, w, " ")
            bytes = w[1]; gsub(/,/, "", bytes); sub(/\(.*/, "", bytes)
            blocks = line; sub(/.* bytes in /, "", blocks); sub(/ blocks? .*/, "", blocks)
            inrec = 1; owner = ""; first = ""; files = ""; sig = ""
            next
        }
        inrec && /^==[0-9]+== +(at|by) 0x/ {
            fn = $0; sub(/.*: /, "", fn); f = fn; sub(/ \(.*/, "", fn)
            sig = sig (sig == "" ? "" : "<") fn
            if (match(f, /\(([^():]+\.[ch]):[0-9]+\)$/)) {
                src = substr(f, RSTART + 1, RLENGTH - 2); sub(/:[0-9]+$/, "", src)
                if (index(" " files " ", " " src " ") == 0) files = files (files == "" ? "" : " ") src
                if (first == "") first = src
                if (owner == "" && src !~ /^(util|vg_replace_malloc)\.c$/) owner = src
            }
            next
        }
        inrec && /^==[0-9]+== *$/ { flush() }
        END { flush() }
    ' "$1"
}

# vg_killed FILE: whether the process of a valgrind log was killed by a
# signal (a test's closing kill, the testsuite's OVS_CTL_TIMEOUT alarm).
# Such a process never frees what it holds: a request it was still
# waiting on when the signal came shows as definitely lost.
vg_killed() {
    grep -qE '^==[0-9]+== Process terminating with default action of signal' "$1"
}

# vg_scan DIR: for the valgrind.* files under an autotest testsuite.dir,
# one line per file with errors or definite leaks: "TEST<TAB>FILE<TAB>
# ERRORS<TAB>DEFINITE_RECORDS", and the records in LOGS/leaks.txt as
# "TEST<TAB>FILE<TAB>" + vg_definite's line.  The leaks of a process
# killed by a signal go to LOGS/leaks-killed.txt instead and are not
# findings; its memory errors are.
vg_scan() {
    local dir=$1 f t e d
    [ -d "$dir" ] || return 0
    local recs to
    while IFS= read -r -d '' f; do
        t=$(basename "$(dirname "$f")")
        e=$(vg_errors "$f")
        recs=$(vg_definite "$f")
        d=0
        if [ -n "$recs" ]; then
            to=leaks.txt
            if vg_killed "$f"; then to="leaks-killed.txt"; else d=$(wc -l <<<"$recs"); fi
            awk -v p="$t\t$(basename "$f")\t" '{ print p $0 }' <<<"$recs" >>"$LOGS/$to"
        fi
        [ "$e" -eq 0 ] && [ "$d" -eq 0 ] || printf '%s\t%s\t%s\t%s\n' "$t" "$(basename "$f")" "$e" "$d"
    done < <(find "$dir" -mindepth 2 -maxdepth 2 -type f -name 'valgrind.*' -print0 | sort -z)
}

# vg_collect DIR first|rerun: the findings of the first run (every test of
# the selection) into LOGS, with a copy of each valgrind log that has one.
vg_collect() {
    local dir=$1 t f
    [ "$2" = first ] || return 0
    : >"$LOGS/leaks.txt"
    : >"$LOGS/leaks-killed.txt"
    vg_scan "$dir/tests/testsuite.dir" >"$LOGS/findings.txt"
    mkdir -p "$LOGS/reports"
    while IFS=$'\t' read -r t f _; do
        cp "$dir/tests/testsuite.dir/$t/$f" "$LOGS/reports/$t-$f"
    done <"$LOGS/findings.txt"
}

# The files the series changes in TREE: a leak whose stack has one of them
# is in code the series touches.
series_files() {
    git -C "$WORK" diff --name-only "base/$SERIES_BASE" HEAD 2>/dev/null | grep -E '\.[ch]$' || true
}

# check_valgrind: make check-valgrind on the selection in a worktree of
# the patched TREE (built as ./build.sh build builds it); if it finds
# anything, the same tests on stock, to tell what the series brought.
check_valgrind() {
    local sel rc=0
    check_begin valgrind need_pkgs valgrind
    build_tree "$WORK"
    sel=$(check_selection_flags "$VG_SELECTION" "$@")
    check_run_suite "$WORK" check-valgrind "-j$(nproc) $sel" suite vg_collect
    local errors leaks bytes touched=0 new files
    errors=$(awk -F'\t' '{ n += $3 } END { print n + 0 }' "$LOGS/findings.txt")
    local possible vlogs=()
    mapfile -t vlogs < <(find "$WORK/tests/testsuite.dir" -name 'valgrind.*')
    possible=$(vg_possible "${vlogs[@]}")
    leaks=$(wc -l <"$LOGS/leaks.txt")
    bytes=$(awk -F'\t' '{ n += $3 } END { print n + 0 }' "$LOGS/leaks.txt")
    files=$(series_files)
    # Leaks by owner file, and whether a stack passes through the series.
    cut -f5 "$LOGS/leaks.txt" | sort | uniq -c | sort -rn >"$LOGS/leaks-by-file.txt"
    if [ "$leaks" -gt 0 ]; then
        touched=$(awk -F'\t' -v fl="$files" 'BEGIN { n = split(fl, a, "\n"); for (i = 1; i <= n; i++) { b = a[i]; sub(/.*\//, "", b); s[b] = 1 } }
            { m = split($6, g, " "); for (i = 1; i <= m; i++) if (g[i] in s) { c++; break } } END { print c + 0 }' "$LOGS/leaks.txt")
    fi
    if [ "$errors" -gt 0 ] || [ "$leaks" -gt 0 ] || [ "$(run_count tests_failed)" -gt 0 ]; then
        vg_stock
    fi
    new=$(stock_count findings_not_on_stock)
    local result=pass
    if [ "$(stock_count tests_failed_not_on_stock)" -ne 0 ] || [ "$new" -ne 0 ]; then
        result=FAIL
        rc=1
    fi
    check_write_summary valgrind "$sel" "$result" <<EOF
valgrind=$(valgrind --version)
valgrind_logs=$(find "$WORK/tests/testsuite.dir" -name 'valgrind.*' | wc -l)
valgrind_errors=$errors
possible_leak_records=$possible
definite_leak_records=$leaks
definite_leak_bytes=$bytes
definite_leaks_by_file=$(awk '{ printf "%s%s:%s", (NR > 1 ? " " : ""), $2, $1 }' "$LOGS/leaks-by-file.txt")
definite_leaks_in_series_files=$touched
definite_leak_records_of_killed_processes=$(wc -l <"$LOGS/leaks-killed.txt")
findings_also_on_stock=$(stock_count findings_also_on_stock)
findings_not_on_stock=$new
EOF
    check_show_summary
    [ $rc -eq 0 ] || die "check --valgrind: $(stock_count tests_failed_not_on_stock) tests failed on patched only, $new findings not on stock (see $LOGS/stock-compare.txt)"
    stage "check --valgrind: passed"
}

# Stock comparison of what a checker found on patched: the same tests,
# by file and title, on stock BASE built the same way.

# STOCK_RERUNS: how many times san_stock runs on stock the tests that
# failed twice on patched.  A timing test that fails now and then may pass
# once on stock; one failure in these runs marks it as failing on stock
# too.  A test that the series breaks fails on patched and passes every
# stock run.
STOCK_RERUNS=${STOCK_RERUNS:-3}

# stock_tree KIND: the stock tree of checker KIND, a worktree of base/BASE
# in build/check/KIND-stock-BASE.
stock_tree() {
    echo "$BUILD/check/$1-stock-$SERIES_BASE"
}

# stock_worktree KIND [OPTION...]: makes and builds stock_tree KIND, by
# build_tree with its OPTIONs (--cc, --cflags).  Returns 1 if WORK has no
# base/BASE (a tree given with --ovs-src).
stock_worktree() {
    local kind=$1 stock
    shift
    stock=$(stock_tree "$kind")
    git -C "$WORK" rev-parse -q --verify "base/$SERIES_BASE" >/dev/null || return 1
    worktree_at "$WORK" "$stock" "base/$SERIES_BASE"
    restore_packaging "$TREE" "$stock" "$SERIES_BASE" 2>/dev/null || true
    build_tree "$@" "$stock"
}

# stock_map_tests STOCK NUMBER...: the numbers in the stock tree STOCK of
# the patched tests NUMBER, a line each, found by file and title (the
# series adds tests, which renumbers stock's); also as
# "PATCHED<TAB>STOCK<TAB>KEY" lines in LOGS/stock-map.txt.  A test that
# stock has not is left out.
stock_map_tests() {
    local keys skeys t k n
    keys=$(regress_key_lines "$WORK")
    skeys=$(regress_key_lines "$1")
    shift
    : >"$LOGS/stock-map.txt"
    for t in "$@"; do
        k=$(awk -F'\t' -v n="$((10#$t))" '$1 == n { print $2; exit }' <<<"$keys")
        n=$(awk -F'\t' -v k="$k" '$2 == k { print $1; exit }' <<<"$skeys")
        if [ -n "$k" ] && [ -n "$n" ]; then
            echo "$n"
            printf '%s\t%s\t%s\n' "$((10#$t))" "$n" "$k" >>"$LOGS/stock-map.txt"
        fi
    done
}

# stock_failed_verdicts OUT...: for each test that failed twice on
# patched (run_failed_tests, patched numbers), whether it fails on stock
# too: the testsuite output of at least one stock run in OUT shows its
# stock test (LOGS/stock-map.txt) as FAILED.  Only a failure an output
# shows counts: a test that stock has not, or that no output shows
# failing, fails on patched only.  The stock counts
# tests_failed_on_stock_too and tests_failed_not_on_stock; which test is
# which in LOGS/stock-compare.txt.
stock_failed_verdicts() {
    local pt st out hits on=0 not_on=0
    while read -r pt; do
        st=$(awk -F'\t' -v t="$((10#$pt))" '$1 == t { print $2; exit }' "$LOGS/stock-map.txt")
        hits=0
        if [ -n "$st" ]; then
            for out in "$@"; do
                if grep -qx "$st" <<<"$(suite_failed "$out" 2>/dev/null)"; then
                    hits=$((hits + 1))
                fi
            done
        fi
        if [ "$hits" -gt 0 ]; then
            on=$((on + 1))
            echo "test $((10#$pt)) fails on stock too (stock test $st, failed in $hits of $# stock runs)"
        elif [ -n "$st" ]; then
            not_on=$((not_on + 1))
            echo "test $((10#$pt)) fails on patched only (stock test $st did not fail in $# stock runs)"
        else
            not_on=$((not_on + 1))
            echo "test $((10#$pt)) fails on patched only (stock has no such test)"
        fi
    done < <(run_failed_tests) >>"$LOGS/stock-compare.txt"
    counts_set "$LOGS/stock.counts" tests_failed_on_stock_too "$on"
    counts_set "$LOGS/stock.counts" tests_failed_not_on_stock "$not_on"
}

# san_stock CC: the tests that failed twice on patched, run on stock BASE
# built the same way (CC, SAN_CFLAGS, the same ASAN_OPTIONS), one at a
# time as patched's rerun ran them, STOCK_RERUNS times.  The stock counts
# tests_failed_on_stock_too, tests_failed_not_on_stock and
# stock_runs_of_failed_tests; LOGS/stock-compare.txt says which test is
# which.
san_stock() {
    local cc=$1 i outs=() nums=() stock
    stock=$(stock_tree sanitize)
    : >"$LOGS/stock-compare.txt"
    counts_set "$LOGS/stock.counts" stock_runs_of_failed_tests 0
    if ! stock_worktree sanitize --cc "$cc" --cflags "$SAN_CFLAGS"; then
        counts_set "$LOGS/stock.counts" tests_failed_not_on_stock "$(run_count tests_failed)"
        echo "no stock base/$SERIES_BASE to compare with: every failed test counts" | tee -a "$LOGS/stock-compare.txt"
        return 0
    fi
    # shellcheck disable=SC2046  # test numbers, one word each
    mapfile -t nums < <(stock_map_tests "$stock" $(run_failed_tests))
    mkdir -p "$LOGS/stock"
    if [ ${#nums[@]} -gt 0 ]; then
        for ((i = 1; i <= STOCK_RERUNS; i++)); do
            stage "check: stock $SERIES_BASE, run $i of $STOCK_RERUNS of the tests that failed twice: ${nums[*]}"
            rm -rf "$stock/tests/testsuite.dir"
            (cd "$stock" && ASAN_OPTIONS=$SAN_ASAN_OPTIONS make check TESTSUITEFLAGS="${nums[*]}") \
                >"$LOGS/stock/suite.$i.out" 2>&1 || true
            cat "$LOGS/stock/suite.$i.out" >>"$LOG"
            outs+=("$LOGS/stock/suite.$i.out")
            counts_set "$LOGS/stock.counts" stock_runs_of_failed_tests "$i"
        done
    fi
    stock_failed_verdicts "${outs[@]}"
    sed 's/^/  /' "$LOGS/stock-compare.txt"
}

# vg_stock: the patched tests with findings, or that failed twice, run
# by title on stock BASE with check-valgrind.  A memory error is on stock
# too if stock shows the same signature in those tests, a definite leak if
# the same test on stock has a leak with the same signature, a failed test
# if it fails on stock too.  The stock counts findings_also_on_stock,
# findings_not_on_stock, tests_failed_on_stock_too and
# tests_failed_not_on_stock; LOGS/stock-compare.txt says which is which.
vg_stock() {
    local plogs="$LOGS" slogs="$LOGS/stock" pt st sig f stock nums=()
    local c="$LOGS/stock.counts"
    stock=$(stock_tree valgrind)
    : >"$LOGS/stock-compare.txt"
    if ! stock_worktree valgrind; then
        counts_set "$c" findings_not_on_stock \
            "$(($(wc -l <"$LOGS/leaks.txt") + $(awk -F'\t' '{ n += $3 } END { print n + 0 }' "$LOGS/findings.txt")))"
        counts_set "$c" tests_failed_not_on_stock "$(run_count tests_failed)"
        echo "no stock base/$SERIES_BASE to compare with: every finding counts" | tee -a "$LOGS/stock-compare.txt"
        return 0
    fi
    local tests=()
    mapfile -t tests < <({ cut -f1 "$LOGS/findings.txt"; run_failed_tests; } | sed '/^$/d' | sort -un)
    mapfile -t nums < <(stock_map_tests "$stock" "${tests[@]}")
    mkdir -p "$slogs"
    : >"$slogs/leaks.txt"
    : >"$slogs/findings.txt"
    : >"$slogs/error-sigs.txt"
    : >"$slogs/suite.out"
    if [ ${#nums[@]} -gt 0 ]; then
        stage "check: ${#nums[@]} of those tests on stock $SERIES_BASE: ${nums[*]}"
        rm -rf "$stock/tests/testsuite.dir"
        (cd "$stock" && make check-valgrind TESTSUITEFLAGS="-j$(nproc) ${nums[*]}") >"$slogs/suite.out" 2>&1 || true
        cat "$slogs/suite.out" >>"$LOG"
        LOGS=$slogs
        vg_scan "$stock/tests/testsuite.dir" >"$LOGS/findings.txt"
        LOGS=$plogs
        mapfile -t f < <(find "$stock/tests/testsuite.dir" -name 'valgrind.*')
        [ ${#f[@]} -eq 0 ] || vg_error_sigs "${f[@]}" | sort -u >"$slogs/error-sigs.txt"
    fi
    # Memory errors, by signature.
    # shellcheck disable=SC2129
    while IFS=$'\t' read -r pt f _; do
        vg_error_sigs "$LOGS/reports/$pt-$f"
    done <"$LOGS/findings.txt" | while IFS= read -r sig; do
        if grep -qxF "$sig" "$slogs/error-sigs.txt"; then
            echo "error also on stock: $sig"
        else
            echo "error NOT on stock: $sig"
        fi
    done >>"$LOGS/stock-compare.txt"
    # Definite leaks, by test and signature.
    while IFS=$'\t' read -r pt _ _ _ _ _ sig; do
        st=$(awk -F'\t' -v t="$((10#$pt))" '$1 == t { print $2; exit }' "$LOGS/stock-map.txt")
        if [ -n "$st" ] && awk -F'\t' -v t="$st" -v s="$sig" '$1 + 0 == t && $7 == s { f = 1 } END { exit !f }' "$slogs/leaks.txt"; then
            echo "definite leak also on stock: test $((10#$pt)): $sig"
        else
            echo "definite leak NOT on stock: test $((10#$pt)): $sig"
        fi
    done <"$LOGS/leaks.txt" >>"$LOGS/stock-compare.txt"
    # Failed tests.
    stock_failed_verdicts "$slogs/suite.out"
    counts_set "$c" findings_also_on_stock \
        "$(grep -c 'also on stock' "$LOGS/stock-compare.txt" || true)"
    counts_set "$c" findings_not_on_stock \
        "$(grep -c 'NOT on stock' "$LOGS/stock-compare.txt" || true)"
    sed 's/^/  /' "$LOGS/stock-compare.txt"
}

# check_checker MODE ARGS...: ./build.sh check --sanitize|--valgrind.
check_checker() {
    local mode=$1
    shift
    RESULTS=${RESULTS:-$(results_dir records)}
    [ "$MANAGED" = 0 ] || apply_series "$TREE"
    case $mode in
    sanitize) check_sanitize "$@" ;;
    valgrind) check_valgrind "$@" ;;
    esac
}

# sanitize_result_for BASE SELECTION: a committed result of ./build.sh check
# --sanitize (SANITIZE_RESULTS, default bench/results) that passed with no
# sanitizer report, made on exactly the tree ovs-json-perf/BASE has now (the
# same git tree hash, the same on any machine), whose selection has every
# "-k WORD" of SELECTION.  Prints its path; fails if there is none, or if
# SANITIZE_FRESH is set.  CI uses it as it uses bisect_result_for: the
# sanitizer run is made and committed whenever a series changes.
sanitize_result_for() {
    [ -z "${SANITIZE_FRESH:-}" ] || return 1
    record_for sanitize "$1" "$2" "${SANITIZE_RESULTS:-$(results_dir records)}" \
        '^sanitizer_findings=0$'
}
