#!/usr/bin/env bash
# build.sh on bad input, and apply on a user's own tree.  Every case runs on
# a throwaway checkout and compares a snapshot of branch, HEAD, refs, index
# and every work-tree file before and after.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=../scripts/common.sh
. "$TOP/scripts/common.sh"

SCRATCH="$BUILD/test/input"
rm -rf "$SCRATCH"
mkdir -p "$SCRATCH"
# shellcheck source=lib.sh
. "$TOP/tests/lib.sh"

# Each case line carries the elapsed time.
pass() { ok "$1 [$(elapsed)]"; }
failed() { fail "$1" "$2 [$(elapsed)]"; }

# Everything that must not change: branch, HEAD, refs, index, files.
snapshot() {
    local d=$1
    (
        cd "$d"
        if [ -e .git ]; then
            echo "branch $(git symbolic-ref -q HEAD || echo detached)"
            echo "head $(git rev-parse HEAD)"
            git for-each-ref --format='%(refname) %(objectname)'
            git ls-files -s | sha256sum
            git status --porcelain --untracked-files=all
            ls -d .git/rebase-apply .git/rebase-merge 2>/dev/null || true
        fi
        find . -path ./.git -prune -o -type f -print0 | sort -z | xargs -0 sha256sum
        find . -path ./.git -prune -o -print | sort | sha256sum
    ) | sha256sum
}

# A git checkout of BASE's base commit on a branch "main".
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

# Run build.sh; keep its stderr in $ERR and exit code in $RC.
bs() {
    RC=0
    "$TOP/build.sh" "$@" >"$SCRATCH/out" 2>"$SCRATCH/err" || RC=$?
    ERR=$(grep '^error:' "$SCRATCH/err" | head -n1 || true)
}

# Expect failure with an error matching PATTERN and the tree unchanged.
expect_refused() {
    local name=$1 dir=$2 pattern=$3 before=$4
    shift 4
    bs "$@"
    if [ "$RC" -eq 0 ]; then
        failed "$name" "exit 0, expected an error"
    elif ! grep -qE "$pattern" <<<"$ERR"; then
        failed "$name" "error was '$ERR' (stderr: $(tail -n2 "$SCRATCH/err" | tr '\n' ' '))"
    elif [ "$(grep -c '^error:' "$SCRATCH/err")" -ne 1 ]; then
        failed "$name" "expected one error line, got: $(grep '^error:' "$SCRATCH/err" | tr '\n' ' ')"
    elif [ -n "$dir" ] && [ "$(snapshot "$dir")" != "$before" ]; then
        failed "$name" "the tree changed"
    else
        pass "$name"
    fi
}

# A series dir with patches made on BASE: add a file, change a line, add
# another file; and one whose second patch cannot apply.
make_series() {
    local base=$1 out=$2
    local d="$SCRATCH/mk-$base"
    checkout "$base" "$d"
    (
        cd "$d"
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
    )
    rm -rf "$d"
}

t_not_ovs() {
    local d="$SCRATCH/not-ovs" before
    mkdir -p "$d/lib"
    echo "int main(void) { return 0; }" >"$d/lib/main.c"
    echo "AC_INIT(something, 1.0)" >"$d/configure.ac"
    before=$(snapshot "$d")
    expect_refused "a directory that is not OVS is refused" "$d" \
        "is not an Open vSwitch source tree" "$before" apply --ovs-src "$d"
    expect_refused "a missing directory is refused" "" \
        "no such directory" "" apply --ovs-src "$SCRATCH/does-not-exist"
}

t_unsupported() {
    local d="$SCRATCH/old" before
    checkout 3.5.0 "$d"
    sed -i 's/^AC_INIT(openvswitch, *3\.5\.0/AC_INIT(openvswitch, 2.17.9/' "$d/configure.ac"
    git -C "$d" commit -q -am "pretend to be 2.17.9"
    before=$(snapshot "$d")
    expect_refused "an unsupported version is refused and lists the supported ones" "$d" \
        "unsupported OVS version '2.17.9'.*3\.1\.0.*3\.5\.0.*4\.0\.0" "$before" apply --ovs-src "$d"
    expect_refused "an unsupported --base is refused" "" \
        "unsupported base '9.9.9' \(supported: 3.1.0 3.5.0 4.0.0\)" "" apply --base 9.9.9
}

t_dirty() {
    local d="$SCRATCH/dirty" before
    checkout 3.5.0 "$d"
    echo "/* local change */" >>"$d/lib/json.c"
    git -C "$d" add lib/json.c
    echo "unstaged change" >>"$d/README.rst"
    before=$(snapshot "$d")
    OVS_JSON_PERF_PATCHES="$SCRATCH/series/good" \
        expect_refused "a dirty tree is refused" "$d" "uncommitted changes.*--force" "$before" \
        apply --ovs-src "$d"
}

# A series that does not apply: git am --abort, back to the user's branch,
# the new branch deleted.  Both on a git checkout and on a plain tree.
t_bad_series() {
    local d="$SCRATCH/conflict" p="$SCRATCH/plain-conflict" before
    checkout 3.5.0 "$d"
    before=$(snapshot "$d")
    OVS_JSON_PERF_PATCHES="$SCRATCH/series/bad" \
        expect_refused "a series that does not apply leaves a git tree as it was" "$d" \
        "0002-test-touch-json.c.patch does not apply" "$before" apply --ovs-src "$d"
    mkdir -p "$p"
    git -C "$BUILD/ovs-3.5.0" archive base/3.5.0 | tar -x -C "$p"
    before=$(snapshot "$p")
    OVS_JSON_PERF_PATCHES="$SCRATCH/series/bad" \
        expect_refused "a series that does not apply leaves a plain tree as it was" "$p" \
        "does not apply" "$before" apply --ovs-src "$p"
    if [ -e "$p/.git" ]; then
        failed "no git repository is left in a plain tree" "$p/.git exists"
    else
        pass "no git repository is left in a plain tree"
    fi
}

# The real series against a tree where its first patch's context changed.
t_real_series_conflict() {
    local d="$SCRATCH/real-conflict" before first file line
    first=$(series_patches 3.5.0 | head -n1)
    if [ -z "$first" ]; then
        echo "note: patches/3.5.0 has no series; no real-series conflict case"
        return
    fi
    checkout 3.5.0 "$d"
    file=$(sed -n 's|^--- a/||p' "$TOP/patches/3.5.0/$first" | head -n1)
    line=$(awk '/^@@/ { on = 1; next } on && /^-/ { print substr($0, 2); exit }' \
        "$TOP/patches/3.5.0/$first")
    [ -n "$line" ] || line=$(awk '/^@@/ { on = 1; next } on && /^ / { print substr($0, 2); exit }' \
        "$TOP/patches/3.5.0/$first")
    LINE=$line /usr/bin/perl -0pi -e 's/\Q$ENV{LINE}\E/$ENV{LINE} \/* conflicting edit *\//' "$d/$file"
    git -C "$d" commit -q -am "a conflicting local commit"
    before=$(snapshot "$d")
    expect_refused "the real series on a conflicting tree: git am --abort, tree as it was" "$d" \
        "does not apply" "$before" apply --ovs-src "$d"
}

t_no_network() {
    local b="$SCRATCH/offline-build" rc=0
    mkdir -p "$b"
    RC=0
    OVS_JSON_PERF_BUILD="$b" OVS_JSON_PERF_MIRROR="http://127.0.0.1:9/debian" \
        timeout 120 "$TOP/build.sh" fetch 3.1.0 >"$SCRATCH/out" 2>"$SCRATCH/err" || RC=$?
    ERR=$(grep '^error:' "$SCRATCH/err" | head -n1 || true)
    if [ "$RC" -eq 0 ]; then
        failed "no network and no cache: fetch fails" "exit 0"
    elif ! grep -q "not cached\|cannot download\|cannot reach" <<<"$ERR"; then
        failed "no network and no cache: fetch fails" "error was '$ERR'"
    elif [ -e "$b/ovs-3.1.0" ] || ls "$b"/unpack.* >/dev/null 2>&1; then
        failed "no network and no cache: fetch fails" "left a partial tree behind"
    else
        pass "no network and no cache: fetch fails with one error, nothing left behind"
    fi
    rc=0
    # The cached base needs no network.
    OVS_JSON_PERF_MIRROR="http://127.0.0.1:9/debian" "$TOP/build.sh" fetch 3.5.0 \
        >/dev/null 2>&1 || rc=$?
    if [ $rc -eq 0 ]; then
        pass "no network: a cached base still fetches"
    else
        failed "no network: a cached base still fetches" "exit $rc"
    fi
}

# Ctrl-C in the middle of apply: SIGINT to the whole process group, as a
# terminal sends it, while the second of three patches is going in.
t_interrupt() {
    local d="$SCRATCH/interrupt" before pid rc=0
    checkout 3.5.0 "$d"
    before=$(snapshot "$d")
    set -m
    # A shell started in the background without job control ignores SIGINT
    # and passes that on; a signal ignored at entry cannot be trapped, so
    # apply gets SIGINT back at its default.
    OVS_JSON_PERF_PATCHES="$SCRATCH/series/good" OVS_JSON_PERF_APPLY_DELAY=3 \
        env --default-signal=INT "$TOP/build.sh" apply --ovs-src "$d" >"$SCRATCH/int-out" 2>"$SCRATCH/int-err" &
    pid=$!
    set +m
    for _ in $(seq 1 600); do
        grep -q '\[2/3\]' "$SCRATCH/int-out" 2>/dev/null && break
        sleep 0.1
    done
    kill -INT -- "-$pid" 2>/dev/null || true
    wait "$pid" || rc=$?
    if [ $rc -eq 0 ]; then
        failed "Ctrl-C during apply restores the tree" "apply finished with exit 0 (not interrupted?): $(tail -n 3 "$SCRATCH/int-out" | tr '\n' '|')"
    elif ! grep -q '\[2/3\]' "$SCRATCH/int-out"; then
        failed "Ctrl-C during apply restores the tree" "interrupted before the second patch"
    elif [ "$(snapshot "$d")" != "$before" ]; then
        failed "Ctrl-C during apply restores the tree" "the tree changed"
    elif ! grep -q 'interrupted' "$SCRATCH/int-err"; then
        failed "Ctrl-C during apply restores the tree" "no 'interrupted' message"
    else
        pass "Ctrl-C during apply restores the tree (branch, HEAD, index, files)"
    fi
}

# A good apply: a new branch, the user's branch untouched; refusals after.
t_good_apply() {
    local base=$1
    local d="$SCRATCH/good-$base" main_before n
    checkout "$base" "$d"
    main_before=$(git -C "$d" rev-parse main)
    bs apply --ovs-src "$d"
    n=$(series_patches "$base" | wc -l)
    if [ "$RC" -ne 0 ]; then
        failed "$base checkout: the series applies" "exit $RC: $ERR"
        return
    fi
    if [ "$(git -C "$d" symbolic-ref --short HEAD)" = "ovs-json-perf/$base" ] &&
       [ "$(git -C "$d" rev-parse main)" = "$main_before" ] &&
       [ "$(git -C "$d" rev-list --count main..HEAD)" -eq "$n" ]; then
        pass "$base checkout: $n patches on a new branch ovs-json-perf/$base, main untouched"
    else
        failed "$base checkout: the series applies" \
            "HEAD=$(git -C "$d" symbolic-ref --short HEAD) main moved or wrong count"
    fi
    git -C "$d" checkout -q main
    local before
    before=$(snapshot "$d")
    expect_refused "$base: an existing ovs-json-perf branch is not replaced without --force" "$d" \
        "already has a branch ovs-json-perf/$base" "$before" apply --ovs-src "$d"
    bs apply --ovs-src "$d" --force
    if [ "$RC" -eq 0 ] && [ "$(git -C "$d" rev-parse main)" = "$main_before" ]; then
        pass "$base: --force replaces the branch, main untouched"
    else
        failed "$base: --force replaces the branch" "exit $RC: $ERR"
    fi
}

t_plain_good() {
    local p="$SCRATCH/plain-good"
    mkdir -p "$p"
    git -C "$BUILD/ovs-3.5.0" archive base/3.5.0 | tar -x -C "$p"
    OVS_JSON_PERF_PATCHES="$SCRATCH/series/good" bs apply --ovs-src "$p"
    if [ "$RC" -eq 0 ] && [ -f "$p/ovs-json-perf-test-3.txt" ] &&
       grep -q 'ovs-json-perf test' "$p/lib/json.c" && [ ! -e "$p/.git" ]; then
        pass "a plain tree is patched in place through a temporary git repository"
    else
        failed "a plain tree is patched in place" "exit $RC: $ERR"
    fi
}

t_upstream_has_it() {
    local d="$SCRATCH/v400" before
    checkout 4.0.0 "$d"
    before=$(snapshot "$d")
    bs apply --ovs-src "$d"
    if [ "$RC" -eq 0 ] && grep -q 'nothing to apply' "$SCRATCH/out" &&
       [ "$(snapshot "$d")" = "$before" ]; then
        pass "4.0.0 checkout: nothing to apply, tree untouched"
    else
        failed "4.0.0 checkout: nothing to apply" "exit $RC: $ERR $(tail -n3 "$SCRATCH/out")"
    fi
    bs detect --ovs-src "$d"
    if grep -qE 'inline-strings +yes' "$SCRATCH/out" && grep -qE 'inline-arrays +yes' "$SCRATCH/out"; then
        pass "4.0.0: detect reports inline strings and arrays as already present"
    else
        failed "4.0.0: detect" "$(cat "$SCRATCH/out")"
    fi
}

# Our own build/ovs-BASE, still on an earlier apply of the series, gets
# the whole series again when the series changed: the features are read at
# base/BASE, not in the work tree, which has them all from that apply.
t_managed_reapply() {
    local b="$SCRATCH/managed-build" n want
    want=$(series_patches 3.5.0 | wc -l)
    mkdir -p "$b"
    git clone -q "$BUILD/ovs-3.5.0" "$b/ovs-3.5.0"
    git -C "$b/ovs-3.5.0" checkout -q -B ovs-json-perf/3.5.0 \
        origin/ovs-json-perf/3.5.0
    git -C "$b/ovs-3.5.0" config ovs-json-perf.3.5.0.series stale
    RC=0
    OVS_JSON_PERF_BUILD="$b" "$TOP/build.sh" apply --base 3.5.0 \
        >"$SCRATCH/out" 2>"$SCRATCH/err" || RC=$?
    n=$(git -C "$b/ovs-3.5.0" rev-list --count base/3.5.0..HEAD 2>/dev/null || echo 0)
    if [ "$RC" -ne 0 ]; then
        failed "re-apply to our own tree on an earlier apply" "exit $RC: $(tail -n2 "$SCRATCH/err")"
    elif [ "$n" -ne "$want" ]; then
        failed "re-apply to our own tree on an earlier apply" "$n of $want patches applied"
    else
        pass "re-apply to our own tree on an earlier apply: all $want patches again"
    fi
    rm -rf "$b"
}

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

main() {
    make_series 3.5.0 "$SCRATCH/series"
    t_not_ovs
    t_unsupported
    t_dirty
    t_bad_series
    t_real_series_conflict
    t_no_network
    t_interrupt
    t_plain_good
    t_managed_reapply
    t_suite_compare
    local b
    for b in 3.5.0 3.1.0; do
        if [ -s "$TOP/patches/$b/series" ]; then
            t_good_apply "$b"
        else
            echo "note: patches/$b has no series; no apply case for $b"
        fi
    done
    t_upstream_has_it
    rm -rf "$SCRATCH"
    summary
}

main "$@"
