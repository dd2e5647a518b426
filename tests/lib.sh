# shellcheck shell=bash
# The test library of every tests/t-*.sh component (and of tests/run.sh's
# counting).  It loads scripts/lib/common.sh (TOP, BUILD, die, stage, ...).
#
# A component prints one line per case ("ok NAME", "FAIL NAME: WHY" or
# "SKIP NAME: WHY") and ends with the line "N passed, N failed", which
# tests/run.sh adds up.  A skipped case is neither passed nor failed.
#
#   Counting    ok, fail, pass, failed, skip, summary
#   Checks      check NAME CMD..., expect NAME GOT WANT,
#               expect_error NAME PATTERN BUILD_SH_ARGS...
#   Programs    run_cases [--min N] [--strict] PREFIX CMD...
#   Scratch     scratch_dir DIR: fresh; summary removes it when all passed
#   Prereqs     prereq CASE TOOL...: false and a SKIP line if a tool is missing
#   OVS trees   snapshot, unpriv, plain_tree, checkout, bs, expect_refused,
#               make_series (the cases that run build.sh on throwaway trees)

# shellcheck source=../scripts/lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib/common.sh"

PASSED=0            # Cases that passed so far.
FAILED=0            # Cases that failed so far.
SKIPPED=0           # Cases skipped for a missing prerequisite.
FAILURES=()         # One "NAME: WHY" line per failed case, in order.
SCRATCH=${SCRATCH:-}  # The component's scratch directory (scratch_dir).

# ok NAME...: counts and prints a passed case.
ok() {
    PASSED=$((PASSED + 1))
    echo "ok $*"
}

# fail NAME [WHY...]: counts and prints a failed case.
fail() {
    local line=$1
    shift
    [ $# -eq 0 ] || line="$line: $*"
    FAILED=$((FAILED + 1))
    FAILURES+=("$line")
    echo "FAIL $line"
}

# lib_elapsed: " [M:SS]" since the start (scripts/lib/common.sh's elapsed), or
# nothing when common.sh is not sourced.
lib_elapsed() {
    if declare -F elapsed >/dev/null; then
        echo " [$(elapsed)]"
    fi
}

# pass NAME: a passed case whose line carries the elapsed time.
pass() { ok "$1$(lib_elapsed)"; }

# failed NAME WHY: a failed case whose line carries the elapsed time.
failed() { fail "$1" "$2$(lib_elapsed)"; }

# skip NAME WHY...: a case that cannot run here (a missing optional tool
# or tree): a SKIP line, counted apart from passes and failures.
skip() {
    local name=$1
    shift
    SKIPPED=$((SKIPPED + 1))
    echo "SKIP $name: $*"
}

# prereq CASE TOOL...: true if every TOOL is a command; otherwise CASE is
# skipped (naming the missing tools) and it returns false:
#   prereq "clang build" clang && check "clang build" make CC=clang
prereq() {
    local name=$1 t missing=""
    shift
    for t in "$@"; do
        command -v "$t" >/dev/null 2>&1 || missing="$missing $t"
    done
    [ -n "$missing" ] || return 0
    skip "$name" "missing${missing}"
    return 1
}

# check NAME CMD...: one case from a command's exit status; the command's
# output goes to the log (scripts/lib/common.sh's run).
check() {
    local name=$1
    shift
    if run "$@"; then
        ok "$name"
    else
        fail "$name: '$*' failed (log: $LOG)"
    fi
}

# expect NAME GOT WANT: a case that passes when GOT is WANT.
expect() {
    if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got '$2', want '$3'"; fi
}

# expect_error NAME PATTERN ARGS...: ./build.sh ARGS fails with exactly one
# "error:" line, and that line matches the extended regex PATTERN.
expect_error() {
    local name=$1 pat=$2 rc=0 err d=${SCRATCH:-${TMPDIR:-/tmp}}
    shift 2
    "$TOP/build.sh" "$@" >"$d/expect-error.out" 2>"$d/expect-error.err" || rc=$?
    err=$(grep '^error:' "$d/expect-error.err" || true)
    if [ $rc -ne 0 ] && [ -n "$err" ] && [ "$(wc -l <<<"$err")" -eq 1 ] &&
       grep -qE -- "$pat" <<<"$err"; then
        pass "$name"
    else
        fail "$name" "exit $rc, stderr: $(head -n3 "$d/expect-error.err" | tr '\n' ' ')"
    fi
}

# refuses NAME PATTERN CMD...: CMD (a program, not a verb of ./build.sh)
# fails, and the first line it prints matches the extended regex PATTERN
# (any output if PATTERN is empty).
refuses() {
    local name=$1 pat=$2 d=${SCRATCH:-${TMPDIR:-/tmp}}
    shift 2
    if "$@" >"$d/refuses.out" 2>&1; then
        fail "$name" "accepted: $*"
    elif [ -z "$pat" ] || head -n1 "$d/refuses.out" | grep -qE -- "$pat"; then
        ok "$name"
    else
        fail "$name" "unexpected message: $(head -n1 "$d/refuses.out")"
    fi
}

# harness_runs OUT CMD...: the case "harness-runs", a benchmark run end to
# end by CMD, its output in OUT and in the log.  If it fails, so does the
# component, at once (nothing after it can run).
harness_runs() {
    local out=$1 rc=0
    shift
    "$@" >"$out" 2>&1 || rc=$?
    cat "$out" >>"${LOG:-/dev/null}" 2>/dev/null || true
    if [ $rc -eq 0 ]; then
        ok harness-runs
    else
        fail harness-runs "exit status $rc; last lines: $(tail -n 3 "$out" | tr '\n' ' ')"
        summary
        exit
    fi
}

# expect_lines NAME RC GOT WANT [FAILNAME]: a case that passes when RC is
# 0 and GOT's lines, joined with "|", are WANT (it fails as FAILNAME, by
# default NAME).
expect_lines() {
    if [ "$2" -eq 0 ] && [ "$(tr '\n' '|' <<<"$3" | sed 's/|$//')" = "$4" ]; then
        pass "$1"
    else
        failed "${5:-$1}" "exit $2: $(tr '\n' '|' <<<"$3")"
    fi
}

# commit_file REPO FILE TEXT MESSAGE: REPO/FILE holds the line TEXT and is
# committed, by a made-up identity, with MESSAGE.
commit_file() {
    echo "$3" >"$1/$2"
    git -C "$1" add "$2"
    git -c user.name=t -c user.email=t@localhost -C "$1" commit -qm "$4"
}

# run_cases [--min N] [--strict] PREFIX CMD...: runs a test program that
# prints "ok"/"FAIL" lines and a closing "N passed, N failed", and folds its
# cases into ours as "PREFIX: NAME".  No closing line (a crash) is a failed
# case.  --min N: fewer than N cases is a failure.  --strict: a sanitizer
# report on stderr, or a non-zero exit without a failed case, is a failure.
# Both outputs go to $LOG.
run_cases() {
    local min=0 strict="" prefix out err rc=0 last n=0 line
    while [ $# -gt 0 ]; do
        case $1 in
        --min) min=$2; shift 2 ;;
        --strict) strict=1; shift ;;
        *) break ;;
        esac
    done
    prefix=$1
    shift
    out="${SCRATCH:-${TMPDIR:-/tmp}}/cases.$$.out" err="${SCRATCH:-${TMPDIR:-/tmp}}/cases.$$.err"
    "$@" >"$out" 2>"$err" || rc=$?
    cat "$out" "$err" >>"$LOG"
    last=$(tail -n 1 "$out")
    if ! grep -qE '^[0-9]+ passed, [0-9]+ failed$' <<<"$last"; then
        fail "$prefix: no closing line (exit $rc; crashed?): $(grep -m1 -E 'ERROR|error|failed' "$err" || true) (log: $LOG)"
        rm -f "$out" "$err"
        return
    fi
    while IFS= read -r line; do
        case $line in
        "ok "*) ok "$prefix: ${line#ok }"; n=$((n + 1)) ;;
        "FAIL "*) fail "$prefix: ${line#FAIL }"; n=$((n + 1)) ;;
        esac
    done <"$out"
    if [ "$n" -lt "$min" ]; then
        fail "$prefix: only $n cases ran (expected at least $min)"
    fi
    if [ -n "$strict" ]; then
        if grep -qE 'Sanitizer|runtime error:' "$err"; then
            fail "$prefix: sanitizer report: $(grep -m1 -E 'Sanitizer|runtime error:' "$err")"
        elif [ "$rc" -ne 0 ] && ! grep -aq '^FAIL ' "$out"; then
            fail "$prefix: exit status $rc without a failed case"
        fi
    fi
    rm -f "$out" "$err"
}

# scratch_dir DIR [LOGNAME]: makes DIR the component's scratch directory,
# SCRATCH, empty.  summary removes it when every case passed (a failure
# keeps it to look at).  With LOGNAME, the component keeps a log of its own
# (log_start LOGNAME).
scratch_dir() {
    SCRATCH=$1
    rm -rf "$SCRATCH"
    mkdir -p "$SCRATCH"
    [ -z "${2:-}" ] || log_start "$2"
}

# Prints the closing line (after the number of skipped cases, if any) and
# removes the scratch directory when nothing failed.  Returns non-zero iff
# a case failed.
summary() {
    if [ "$FAILED" -eq 0 ] && [ -n "$SCRATCH" ] && [ -z "${KEEP_SCRATCH:-}" ]; then
        rm -rf "$SCRATCH"
    fi
    [ "$SKIPPED" -eq 0 ] || echo "$SKIPPED skipped"
    echo "$PASSED passed, $FAILED failed"
    [ "$FAILED" -eq 0 ]
}

# --- OVS trees: the cases that run build.sh on a throwaway checkout or
# plain copy of a base, and compare the tree before and after. ---

# snapshot DIR: a digest of everything that must not change: branch, HEAD,
# refs, index, the repository's config, in-progress operations, and every
# work-tree file's contents and every file's and directory's mode.
snapshot() {
    local d=$1
    (
        cd "$d" || exit
        if [ -e .git ]; then
            echo "branch $(git symbolic-ref -q HEAD || echo detached)"
            echo "head $(git rev-parse -q --verify HEAD || echo none)"
            git for-each-ref --format='%(refname) %(objectname)'
            git ls-files -s | sha256sum
            git status --porcelain --untracked-files=all
            git config --local --list
            ls -d .git/rebase-apply .git/rebase-merge .git/MERGE_HEAD \
                .git/BISECT_LOG .git/BISECT_START 2>/dev/null || true
        fi
        find . -path ./.git -prune -o -type f -print0 | sort -z | xargs -0 sha256sum
        find . -path ./.git -prune -o -printf '%m %p\n' | sort
    ) 2>&1 | sha256sum
}

# unpriv CMD...: run a command without root's power to write where it may
# not: a read-only directory stops it as it stops a user.
unpriv() {
    if [ "$(id -u)" -eq 0 ]; then
        setpriv --inh-caps=-dac_override --bounding-set=-dac_override -- "$@"
    else
        "$@"
    fi
}

# plain_tree BASE DIR: a plain (not git) copy of BASE's base commit in DIR.
plain_tree() {
    mkdir -p "$2"
    git -C "$BUILD/ovs-$1" archive "base/$1" | tar -x -C "$2"
}

# checkout BASE DIR: a git checkout of BASE's base commit on a branch "main".
checkout() {
    local base=$1 d=$2
    "$TOP/build.sh" fetch "$base" >/dev/null
    git clone -q --no-checkout "$BUILD/ovs-$base" "$d"
    git -C "$d" checkout -q -B main "base/$base"
    # Only "main": the source may have an ovs-json-perf branch of its own.
    git -C "$d" for-each-ref --format='%(refname:short)' refs/heads |
        grep -vx main | xargs -r git -C "$d" branch -q -D
    git -C "$d" config user.name tester
    git -C "$d" config user.email tester@localhost
}

# bs ARGS...: run build.sh; its stdout in $SCRATCH/out, its stderr in
# $SCRATCH/err, its first error line in ERR and exit code in RC.  BS_WRAP
# goes in front (unpriv).
BS_WRAP=()
bs() {
    RC=0
    "${BS_WRAP[@]}" "$TOP/build.sh" "$@" >"$SCRATCH/out" 2>"$SCRATCH/err" || RC=$?
    ERR=$(grep '^error:' "$SCRATCH/err" | head -n1 || true)
}

# expect_refused NAME DIR PATTERN BEFORE ARGS...: build.sh ARGS fails with
# one error line, the first matching PATTERN, and DIR (if not empty) still
# has the snapshot BEFORE.
expect_refused() {
    local name=$1 dir=$2 pattern=$3 before=$4
    shift 4
    bs "$@"
    if [ "$RC" -eq 0 ]; then
        failed "$name" "exit 0, expected an error"
    elif ! grep -qE -- "$pattern" <<<"$ERR"; then
        failed "$name" "error was '$ERR' (stderr: $(tail -n2 "$SCRATCH/err" | tr '\n' ' '))"
    elif [ "$(grep -c '^error:' "$SCRATCH/err")" -ne 1 ]; then
        failed "$name" "expected one error line, got: $(grep '^error:' "$SCRATCH/err" | tr '\n' ' ')"
    elif [ -n "$dir" ] && [ "$(snapshot "$dir")" != "$before" ]; then
        failed "$name" "the tree changed"
    else
        pass "$name"
    fi
}

# make_series BASE OUT: made-up series dirs in OUT with patches made on
# BASE: good (add a file, change a line, add another file); bad (its
# second patch cannot apply); bad3 (the third repeats the second); partial
# (the second changes lib/json.c and a file in tests/).
make_series() {
    local base=$1 out=$2
    local d="$SCRATCH/mk-$base"
    checkout "$base" "$d"
    (
        cd "$d" || exit
        echo "first" >ovs-json-perf-test-1.txt
        git add ovs-json-perf-test-1.txt && git commit -q -m "test: add a file"
        sed -i '1s/$/ \/* ovs-json-perf test *\//' lib/json.c
        git commit -q -am "test: touch json.c"
        echo "third" >ovs-json-perf-test-3.txt
        git add ovs-json-perf-test-3.txt && git commit -q -m "test: add another file"
        mkdir -p "$out/good/$base" "$out/bad/$base"
        git format-patch -q -o "$out/good/$base" "base/$base..HEAD"
        (cd "$out/good/$base" && ls ./*.patch | sed 's|^\./||' >series)
        cp "$out/good/$base/0001-"*.patch "$out/bad/$base/"
        sed '/^---/!s/^-\(.*\)$/-\1 this line is not in json.c/' "$out/good/$base/0002-"*.patch \
            >"$out/bad/$base/0002-test-touch-json.c.patch"
        cp "$out/good/$base/0003-"*.patch "$out/bad/$base/"
        (cd "$out/bad/$base" && ls ./*.patch | sed 's|^\./||' >series)
        # bad3: the third patch repeats the second, which then cannot
        # apply: two patches are in when the rollback starts.
        mkdir -p "$out/bad3/$base"
        cp "$out/good/$base/0001-"*.patch "$out/good/$base/0002-"*.patch "$out/bad3/$base/"
        cp "$out/good/$base/0002-"*.patch "$out/bad3/$base/0003-test-touch-json.c-again.patch"
        (cd "$out/bad3/$base" && ls ./*.patch | sed 's|^\./||' >series)
        # partial: the second patch changes lib/json.c and a file in tests/.
        mkdir -p "$out/partial/$base"
        cp "$out/good/$base/0001-"*.patch "$out/partial/$base/"
        git checkout -q -b partial HEAD~2
        sed -i '1s/$/ \/* partial *\//' lib/json.c
        echo "# partial" >>tests/atlocal.in
        git commit -q -am "test: touch json.c and tests"
        git format-patch -q --start-number 2 -o "$out/partial/$base" -1
        (cd "$out/partial/$base" && ls ./*.patch | sed 's|^\./||' >series)
    )
    rm -rf "$d"
}
