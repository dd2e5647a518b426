#!/usr/bin/env bash
# Everything CI runs: ./build.sh test.  Ends with "N passed, N failed".
#
# 1. For each base with a series: apply it, build with --enable-Werror,
#    run checkpatch on every patch, build every patch of the series in turn
#    (bisectability), and run the check selections.
# 2. For 4.0.0: detection reports the series' changes as already present.
# 3. Every tests/t-*.sh component (bad input, lib-json, benchmarks' smoke
#    tests, ...), each of which ends with its own "N passed, N failed".
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export TOP
# shellcheck source=../scripts/lib/common.sh
. "$TOP/scripts/lib/common.sh"
export T0 BUILD

if [ "${BASH_SOURCE[0]}" = "$0" ] && [ $# -gt 0 ]; then
    die "test: unexpected argument '$1' (./build.sh test takes none)"
fi
log_start test
export LOG

# shellcheck source=../scripts/lib/apply.sh
. "$TOP/scripts/lib/apply.sh"
# shellcheck source=../scripts/lib/build.sh
. "$TOP/scripts/lib/build.sh"
# shellcheck source=../scripts/lib/suite.sh
. "$TOP/scripts/lib/suite.sh"
# shellcheck source=../scripts/lib/bisect.sh
. "$TOP/scripts/lib/bisect.sh"
# shellcheck source=lib.sh
. "$TOP/tests/lib.sh"

# took SINCE: the time since SINCE (seconds of the epoch), as "(M:SS)".
took() {
    printf '(%s)' "$(elapsed "$1")"
}

# Run a named step; its output goes to the log.  A failed step also
# shows the end of its output, so that CI's output says why.  Each step's
# line ends with the time it took.
step() {
    local name=$1 out="$BUILD/logs/step.$$" t
    shift
    stage "test: $name"
    t=$(date +%s)
    if "$@" >"$out" 2>&1; then
        ok "$name $(took "$t")"
    else
        fail "$name (see $LOG) $(took "$t")"
        tail -n 25 "$out" | sed 's/^/  | /'
    fi
    cat "$out" >>"$LOG"
    rm -f "$out"
}

# The fuzz smoke runs of the components (t-fuzz, t-lib-json) are short in
# CI: the long runs are ./build.sh fuzz, whose results are committed and
# shown by ./build.sh report.
export FUZZ_SECONDS=${FUZZ_SECONDS:-15}
export LIBJSON_FUZZ_SECONDS=${LIBJSON_FUZZ_SECONDS:-15}

# Check selections for the patched trees: ci_check_flags (scripts/lib/
# build.sh), which ./build.sh check --record also takes.  CHECK_FLAGS
# overrides it for every base.
CHECK_FLAGS=${CHECK_FLAGS:-}

checkpatch_all() {
    local tree=$1 base=$2 p rc=0
    for p in $(series_patches "$base"); do
        echo "checkpatch $p"
        (cd "$tree" && "$PYTHON3" utilities/checkpatch.py "$PATCHES/$base/$p") || rc=1
    done
    return $rc
}


# on_base BASE FUNCTION ARGS...: FUNCTION build/ovs-BASE ARGS..., as the
# verbs run it for --base BASE, in a subshell of its own.
# shellcheck disable=SC2034,SC2153  # resolve_tree reads these and sets TREE
on_base() (
    BASE=$1 OVS_SRC='' FORCE=0
    local fn=$2
    shift 2
    resolve_tree
    "$fn" "$TREE" "$@"
)

detect_has() {
    local out
    out=$(on_base "$1" print_detection)
    grep -qE "^ *$2 +yes" <<<"$out"
}

# check_flags BASE: the selection for BASE: CHECK_FLAGS if it was given,
# else ci_check_flags BASE.
check_flags() {
    if [ -n "$CHECK_FLAGS" ]; then echo "$CHECK_FLAGS"; else ci_check_flags "$1"; fi
}

# check_selection BASE FLAGS...: make check with FLAGS on the patched BASE.  A few
# ofproto and ovsdb-idl tests flake on a loaded 2-core machine, so the tests
# that fail are run once more on their own (autotest's --recheck), and only
# a second failure fails the step.  The flakes are named in the output.
check_selection() {
    local base=$1 tree="$BUILD/ovs-$1"
    shift
    on_base "$base" check_tree "$@" && return 0
    echo "check: failed on the first run:"
    sed -n '/^Failed tests:/,/^Skipped tests:/p' "$tree/tests/testsuite.log" |
        grep -E '^ +[0-9]+: ' || true
    echo "check: rerunning them once (--recheck)"
    suite_rerun "$tree" check - --recheck || return 1
    echo "check: every failed test passed when rerun; flaky, not failing"
}

test_base() {
    local base=$1
    step "$base: fetch" fetch_base "$base"
    step "$base: apply series" on_base "$base" apply_series
    if [ ! -s "$TOP/patches/$base/series" ]; then
        fail "$base: patches/$base/series is missing or empty"
        return
    fi
    step "$base: checkpatch on every patch" checkpatch_all "$BUILD/ovs-$base" "$base"
    step "$base: detect inline-strings after apply" detect_has "$base" inline-strings
    # A committed ./build.sh check --record made on exactly this tree, with a
    # selection that covers CI's, stands for its build and check
    # (check_result_for; CHECK_FRESH=1 runs them).  The default base is
    # built all the same, for the components, and runs -k json.
    local f flags
    flags=$(check_flags "$base")
    if ! f=$(check_result_for "$base" "$flags"); then
        step "$base: build --enable-Werror" on_base "$base" build_tree
        # shellcheck disable=SC2086
        step "$base: make check ($flags)" check_selection "$base" $flags
    elif [ "$base" = "$DEFAULT_BASE" ]; then
        step "$base: build --enable-Werror" on_base "$base" build_tree
        step "$base: make check (-j$(nproc) -k json; $(basename "$f") was made with ($flags) on exactly this tree)" \
            check_selection "$base" "-j$(nproc)" -k json
    else
        step "$base: build --enable-Werror and make check ($flags): $(basename "$f") was made on exactly this tree" true
        # t-backport links against every base's library; t-lib-json runs
        # 4.0.0's tests/ovstest.
        if [ "$base" = 4.0.0 ]; then
            step "$base: build the library and tests/ovstest (the components use them)" \
                on_base "$base" build_tree lib/libopenvswitch.la tests/ovstest
        else
            step "$base: build the library (the components use it)" \
                on_base "$base" build_tree lib/libopenvswitch.la
        fi
    fi
    # CI bisects the backport of the default base (json-inline/, the series
    # below the others there) and every patch of 4.0.0; ./build.sh bisect
    # --base B does every patch of any base and records the result.
    # A committed result of ./build.sh bisect made for exactly these commits
    # stands for the bisect (bisect_or_reuse; BISECT_FRESH=1 builds).
    if f=$(bisect_result_for "$base"); then
        step "$base: every patch builds and passes -k json (bisect): $(basename "$f") matches every commit" \
            bisect_or_reuse "$base"
    elif [ "$base" = "$DEFAULT_BASE" ] && [ -z "${BISECT_ALL:-}" ]; then
        step "$base: every patch of json-inline builds and passes -k json (bisect)" \
            bisect_or_reuse "$base" json-inline
    elif [ "$base" = 4.0.0 ] || [ "$base" = "$DEFAULT_BASE" ] || [ -n "${BISECT_ALL:-}" ]; then
        step "$base: every patch builds and passes -k json (bisect)" bisect_or_reuse "$base"
    fi
}

test_upstream_has_it() {
    step "4.0.0: fetch" fetch_base 4.0.0
    step "4.0.0: detection reports inline strings as present" detect_has 4.0.0 inline-strings
    step "4.0.0: detection reports inline arrays as present" detect_has 4.0.0 inline-arrays
    step "4.0.0: detection reports the serialized monitor cache as present" \
        detect_has 4.0.0 monitor-serialized-cache
}

# Run a component and add up its closing "N passed, N failed" line.
run_component() {
    local t=$1 name out rc=0 last p f n t0
    name=$(basename "$t" .sh)
    stage "test: component $name"
    # A component that cannot run, or runs no case, is a failure.
    if [ ! -x "$t" ]; then
        fail "$name: $t is not executable (chmod +x it)"
        return
    fi
    out="$BUILD/logs/$name.out"
    t0=$(date +%s)
    "$t" 2>&1 | tee "$out" | sed "s/^/  [$name] /" || rc=${PIPESTATUS[0]}
    echo "  [$name] took $(took "$t0")"
    last=$(grep -aE '^[0-9]+ passed, [0-9]+ failed' "$out" | tail -n1 || true)
    if [ -z "$last" ]; then
        fail "$name: no closing 'N passed, N failed' line (exit $rc)"
        return
    fi
    p=$(sed 's/ passed.*//' <<<"$last")
    f=$(sed 's/.* passed, \([0-9]*\) failed.*/\1/' <<<"$last")
    PASSED=$((PASSED + p))
    FAILED=$((FAILED + f))
    if [ "$p" -eq 0 ]; then
        fail "$name: no case passed ('$last')"
    fi
    if [ "$f" -ne 0 ]; then
        FAILURES+=("$name: $f failed:")
        n=${#FAILURES[@]}
        # -a and cat -v: a FAIL line may quote bytes of a binary input.
        mapfile -t -O "$n" FAILURES < <(grep -a '^FAIL ' "$out" | cat -v | sed 's/^/  /')
        n=$((${#FAILURES[@]} - n))
        [ "$n" -eq "$f" ] ||
            FAILURES+=("  ($n of the $f FAIL lines start a line; all of them: grep -a 'FAIL ' $out)")
    fi
    if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
        fail "$name: exited $rc"
    fi
}

# Every DIR/t-*.sh, executable or not: one without its run bit fails.
run_components() {
    local t
    for t in "$1"/t-*.sh; do
        run_component "$t"
    done
}

main() {
    need_build_deps
    local b t
    for b in $SUPPORTED_BASES; do
        # The default base is always applied and built: the components
        # use it.
        if [ -s "$TOP/patches/$b/series" ] || [ "$b" = "$DEFAULT_BASE" ]; then
            test_base "$b"
        else
            echo "note: patches/$b has no series; nothing to apply or build for $b"
        fi
    done
    test_upstream_has_it
    # The components use the default base, applied and built above.
    run_components "$TOP/tests"
    echo
    if [ ${#FAILURES[@]} -gt 0 ]; then
        echo "failures:"
        printf '  %s\n' "${FAILURES[@]}"
    fi
    echo "log: $LOG ($(elapsed))"
    echo "$PASSED passed, $FAILED failed"
    [ "$FAILED" -eq 0 ]
}

# tests/t-run.sh sources this file for its functions.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    main "$@"
fi
