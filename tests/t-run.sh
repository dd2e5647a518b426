#!/usr/bin/env bash
# tests/run.sh cannot pass vacuously: a component without its run bit, a
# component that passes no case, and a bisect step that builds nothing
# (no branch, or no commit on it) are failures.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

scratch_dir "$BUILD/test/run"
mkdir -p "$SCRATCH/t" "$SCRATCH/logs"

# in_run FUNCTION ARGS...: run a function of tests/run.sh, with its case
# counters at zero, and print "PASSED FAILED RC"; the summary lines it
# collected (FAILURES) go to $SCRATCH/run-failures.
in_run() {
    (
        # shellcheck source=run.sh
        . "$TOP/tests/run.sh" >/dev/null
        # shellcheck disable=SC2034  # run.sh's counters
        BUILD="$SCRATCH" PASSED=0 FAILED=0 FAILURES=()
        local rc=0
        "$@" >"$SCRATCH/run-out" 2>&1 || rc=$?
        printf '%s\n' "${FAILURES[@]}" >"$SCRATCH/run-failures"
        echo "$PASSED $FAILED $rc"
    )
}

# expect_run NAME WANT GOT: GOT ("PASSED FAILED RC") is WANT.
expect_run() {
    if [ "$3" = "$2" ]; then
        ok "$1"
    else
        fail "$1" "passed/failed/exit $3, expected $2 ($(tail -n 3 "$SCRATCH/run-out" | tr '\n' '|'))"
    fi
}

t_components() {
    local t="$SCRATCH/t"
    printf '#!/bin/sh\necho "ok one"\necho "ok two"\necho "2 passed, 0 failed"\n' >"$t/t-good.sh"
    printf '#!/bin/sh\necho "2 passed, 0 failed"\n' >"$t/t-noexec.sh"
    printf '#!/bin/sh\necho "0 passed, 0 failed"\n' >"$t/t-zero.sh"
    printf '#!/bin/sh\nexit 0\n' >"$t/t-silent.sh"
    chmod +x "$t/t-good.sh" "$t/t-zero.sh" "$t/t-silent.sh"
    expect_run "run.sh: a component's cases add up" "2 0 0" "$(in_run run_component "$t/t-good.sh")"
    mkdir -p "$SCRATCH/only-noexec"
    mv "$t/t-noexec.sh" "$SCRATCH/only-noexec/"
    expect_run "run.sh: a component without its run bit fails" "0 1 0" "$(in_run run_components "$SCRATCH/only-noexec")"
    expect_run "run.sh: a component that prints '0 passed' fails" "0 1 0" "$(in_run run_component "$t/t-zero.sh")"
    expect_run "run.sh: a component with no closing line fails" "0 1 0" "$(in_run run_component "$t/t-silent.sh")"
    # A FAIL line printed after a partial line: the summary says that it
    # names fewer failures than counted, and where to find them all.
    printf '#!/bin/sh\necho "ok one"\nprintf "a cut diff"\necho "FAIL two: why"\necho "FAIL three"\necho "1 passed, 2 failed"\n' >"$t/t-glued.sh"
    chmod +x "$t/t-glued.sh"
    expect_run "run.sh: a component's two failures count, one of them after a partial line" \
        "1 2 0" "$(in_run run_component "$t/t-glued.sh")"
    if grep -qx '  FAIL three' "$SCRATCH/run-failures" &&
       grep -q "(1 of the 2 FAIL lines start a line; all of them: grep -a 'FAIL ' " "$SCRATCH/run-failures"; then
        ok "run.sh: a FAIL line after a partial line: the summary says how many it names"
    else
        fail "run.sh: a FAIL line after a partial line" "summary: $(tr '\n' '|' <"$SCRATCH/run-failures")"
    fi
    # A FAIL line that quotes a NUL and other bytes of a binary input: the
    # summary still shows it, with the bytes made visible.
    printf '#!/bin/sh\necho "ok one"\nprintf "FAIL two: input a\\000b\\001c\\n"\necho "1 passed, 1 failed"\n' >"$t/t-binary.sh"
    chmod +x "$t/t-binary.sh"
    expect_run "run.sh: a FAIL line with binary bytes counts" \
        "1 1 0" "$(in_run run_component "$t/t-binary.sh")"
    if grep -qx '  FAIL two: input a^@b^Ac' "$SCRATCH/run-failures"; then
        ok "run.sh: a FAIL line with binary bytes is in the summary"
    else
        fail "run.sh: a FAIL line with binary bytes is in the summary" "summary: $(tr '\n' '|' <"$SCRATCH/run-failures" | cat -v)"
    fi
}

# The bisect step on a tree without the branch, and with no commit on it:
# it fails before it builds anything.
t_bisect() {
    local tree="$SCRATCH/ovs-9.9.9" got
    git init -q -b main "$tree"
    git -C "$tree" -c user.name=t -c user.email=t@localhost commit -q --allow-empty -m base
    git -C "$tree" tag base/9.9.9
    got=$(in_run bisect_series 9.9.9)
    expect_run "run.sh: the bisect step fails when the branch is missing" "0 0 1" "$got"
    grep -q "no branch ovs-json-perf/9.9.9" "$SCRATCH/run-out" ||
        fail "run.sh: the bisect step says the branch is missing" "$(cat "$SCRATCH/run-out")"
    git -C "$tree" branch ovs-json-perf/9.9.9
    got=$(in_run bisect_series 9.9.9)
    expect_run "run.sh: the bisect step fails when the branch has no commits" "0 0 1" "$got"
}

# A committed bisect result stands for the bisect only if it passed and was
# made for the same tree at every commit; otherwise the step bisects (and
# here fails, since the stub tree cannot build).
t_bisect_reuse() {
    local tree="$SCRATCH/ovs-9.9.9" res="$SCRATCH/results" trees got name
    rm -rf "$tree" "$res"
    mkdir -p "$res"
    git init -q -b main "$tree"
    git -C "$tree" -c user.name=t -c user.email=t@localhost commit -q --allow-empty -m base
    git -C "$tree" tag base/9.9.9
    git -C "$tree" checkout -q -b ovs-json-perf/9.9.9
    for name in one two; do
        echo "$name" >"$tree/$name"
        git -C "$tree" add "$name"
        git -C "$tree" -c user.name=t -c user.email=t@localhost commit -q -m "$name"
    done
    trees="$(git -C "$tree" log --reverse --format=%T base/9.9.9..ovs-json-perf/9.9.9 | tr '\n' ' ' | sed 's/ $//')"
    printf 'kind=bisect\nbase=9.9.9\ncommit_trees=%s\nresult=pass\n' "$trees" >"$res/bisect-9.9.9-1.summary"
    got=$(BISECT_RESULTS=$res in_run bisect_or_reuse 9.9.9)
    expect_run "run.sh: bisect reuses a passing result made for the same commits" "0 0 0" "$got"
    grep -q "bisect-9.9.9-1.summary was made for exactly these commits" "$SCRATCH/run-out" ||
        fail "run.sh: bisect says which result it reuses" "$(cat "$SCRATCH/run-out")"
    got=$(BISECT_FRESH=1 BISECT_RESULTS=$res in_run bisect_or_reuse 9.9.9)
    expect_run "run.sh: BISECT_FRESH=1 bisects even with a matching result" "0 0 1" "$got"
    sed -i 's/^result=pass/result=FAIL/' "$res/bisect-9.9.9-1.summary"
    got=$(BISECT_RESULTS=$res in_run bisect_or_reuse 9.9.9)
    expect_run "run.sh: a failed bisect result is not reused" "0 0 1" "$got"
    printf 'kind=bisect\nbase=9.9.9\ncommit_trees=%s\nresult=pass\n' "${trees% *}" >"$res/bisect-9.9.9-2.summary"
    got=$(BISECT_RESULTS=$res in_run bisect_or_reuse 9.9.9)
    expect_run "run.sh: a result for other commits (one patch fewer) is not reused" "0 0 1" "$got"
    echo changed >"$tree/one"
    git -C "$tree" -c user.name=t -c user.email=t@localhost commit -q -am "one changed"
    printf 'kind=bisect\nbase=9.9.9\ncommit_trees=%s\nresult=pass\n' "$trees" >"$res/bisect-9.9.9-3.summary"
    got=$(BISECT_RESULTS=$res in_run bisect_or_reuse 9.9.9)
    expect_run "run.sh: a result for the old commits of a changed series is not reused" "0 0 1" "$got"
    rm -rf "$tree"
}

# check_selection's rerun: a test that fails once and passes on --recheck
# is flaky and the step passes; one that fails again fails the step.  A
# stub on_base stands for the first run, a stub tree's Makefile for the
# rerun (which must be given --recheck).
t_recheck() {
    local top="$SCRATCH/top" tree="$SCRATCH/ovs-9.9.9"
    mkdir -p "$top" "$tree/tests"
    # shellcheck disable=SC2016  # expanded by make, not here
    printf 'check:\n\ttest "$(TESTSUITEFLAGS)" = --recheck\n\texit $(RECHECK_RC)\n' >"$tree/Makefile"
    printf 'Failed tests:\n  7: json - a flaky one\nSkipped tests:\n' >"$tree/tests/testsuite.log"
    local first recheck want name got
    while read -r first recheck want name; do
        got=$(FIRST_RC=$first RECHECK_RC=$recheck in_run_top "$top" first_run_stub check_selection 9.9.9 -k json)
        expect_run "run.sh: check selection, $name" "0 0 $want" "$got"
    done <<'CASES'
0 1 0 passes the first time (no rerun)
1 0 0 fails once and passes on --recheck
1 1 1 fails again on --recheck
CASES
    FIRST_RC=1 RECHECK_RC=0 in_run_top "$top" first_run_stub check_selection 9.9.9 -k json >/dev/null
    grep -q "7: json - a flaky one" "$SCRATCH/run-out" ||
        fail "run.sh: check selection names the flaky test" "$(cat "$SCRATCH/run-out")"
}

# first_run_stub COMMAND...: COMMAND with run.sh's on_base (the first run
# of the check) replaced by one that exits FIRST_RC.
first_run_stub() {
    on_base() { return "$FIRST_RC"; }
    "$@"
}

# check_flags: a series of json-inline alone gets the json selection, one
# with more gets CHECK_FLAGS, and CHECK_FLAGS given in the environment
# holds for every base.
t_check_flags() {
    local p="$SCRATCH/patches" got
    mkdir -p "$p/7.7.7" "$p/8.8.8"
    printf 'json-inline/0001-a.patch\njson-inline/0002-b.patch\n' >"$p/7.7.7/series"
    printf 'json-inline/0001-a.patch\nmonitor-fanout/0001-c.patch\n' >"$p/8.8.8/series"
    got=$(OVS_JSON_PERF_PATCHES=$p bash -c '. "$1" >/dev/null; check_flags 7.7.7; check_flags 8.8.8' _ "$TOP/tests/run.sh")
    if [ "$(sed -n 1p <<<"$got")" = "-j$(nproc) -k json -k library -k ovsdb-data -k ovsdb-execute" ] &&
       [[ $(sed -n 2p <<<"$got") == *"-k monitor "*"-k streaming"* ]]; then
        ok "run.sh: a json-inline-only series gets the json selection, a longer one all of it"
    else
        fail "run.sh: check_flags per series" "$(tr '\n' '|' <<<"$got")"
    fi
    got=$(CHECK_FLAGS="-k given" OVS_JSON_PERF_PATCHES=$p bash -c '. "$1" >/dev/null; check_flags 7.7.7' _ "$TOP/tests/run.sh")
    if [ "$got" = "-k given" ]; then
        ok "run.sh: CHECK_FLAGS from the environment holds for a json-inline-only series too"
    else
        fail "run.sh: CHECK_FLAGS given" "got '$got'"
    fi
}

# in_run_top TOP FUNCTION ARGS...: in_run with tests/run.sh's TOP replaced.
in_run_top() {
    (
        # shellcheck source=run.sh disable=SC2031  # TOP is replaced below
        . "$TOP/tests/run.sh" >/dev/null
        # shellcheck disable=SC2034  # run.sh's counters and paths
        TOP=$1 BUILD="$SCRATCH" PASSED=0 FAILED=0 FAILURES=()
        shift
        local rc=0
        "$@" >"$SCRATCH/run-out" 2>&1 || rc=$?
        printf '%s\n' "${FAILURES[@]}" >"$SCRATCH/run-failures"
        echo "$PASSED $FAILED $rc"
    )
}

t_components
t_bisect
t_bisect_reuse
t_recheck
t_check_flags
rm -rf "$SCRATCH"
summary
