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

# Everything that must not change: branch, HEAD, refs, index, the
# repository's config, in-progress operations, and every work-tree file's
# contents and every file's and directory's mode.
snapshot() {
    local d=$1
    (
        cd "$d"
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

# Run a command without root's power to write where it may not: a
# read-only directory stops it as it stops a user.
unpriv() {
    if [ "$(id -u)" -eq 0 ]; then
        setpriv --inh-caps=-dac_override --bounding-set=-dac_override -- "$@"
    else
        "$@"
    fi
}

# A plain (not git) copy of BASE's base commit in DIR.
plain_tree() {
    mkdir -p "$2"
    git -C "$BUILD/ovs-$1" archive "base/$1" | tar -x -C "$2"
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

# Run build.sh; keep its stderr in $ERR and exit code in $RC.  BS_WRAP
# goes in front (unpriv).
BS_WRAP=()
bs() {
    RC=0
    "${BS_WRAP[@]}" "$TOP/build.sh" "$@" >"$SCRATCH/out" 2>"$SCRATCH/err" || RC=$?
    ERR=$(grep '^error:' "$SCRATCH/err" | head -n1 || true)
}

# Expect failure with an error matching PATTERN and the tree unchanged.
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

# A checkout that already carries the whole series on a branch of its own
# (a distributor's tree): apply reports every change as already present,
# applies nothing and leaves the tree as it was.  Every patch needs a
# detection feature for this (a row of patches/features).
t_carried() {
    local base=$1 d="$SCRATCH/carried-$1" before n
    checkout "$base" "$d"
    bs apply --ovs-src "$d"
    [ "$RC" -eq 0 ] || { failed "$base: carried series" "first apply: exit $RC: $ERR"; return; }
    git -C "$d" checkout -q -b carry
    git -C "$d" branch -q -D "ovs-json-perf/$base"
    before=$(snapshot "$d")
    n=$(series_patches "$base" | wc -l)
    bs apply --ovs-src "$d"
    if [ "$RC" -ne 0 ]; then
        failed "$base: a tree that carries the series" "exit $RC: $ERR"
    elif [ "$(grep -c 'already present' "$SCRATCH/out" "$SCRATCH/err" |
              awk -F: '{ n += $2 } END { print n }')" -ne "$n" ]; then
        failed "$base: a tree that carries the series" \
            "not all $n patches reported as already present: $(grep -h 'already present' "$SCRATCH/out" "$SCRATCH/err" | tr '\n' '|')"
    elif ! grep -q 'nothing to apply' "$SCRATCH/out" || [ "$(snapshot "$d")" != "$before" ]; then
        failed "$base: a tree that carries the series" "applied something or changed the tree"
    else
        pass "$base: a tree that carries the series: all $n changes already present, nothing applied"
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
    # With a series of its own (not the inline one), t_good_apply has it.
    if [ ! -s "$TOP/patches/4.0.0/series" ]; then
        bs apply --ovs-src "$d"
        if [ "$RC" -eq 0 ] && grep -q 'nothing to apply' "$SCRATCH/out" &&
           [ "$(snapshot "$d")" = "$before" ]; then
            pass "4.0.0 checkout: nothing to apply, tree untouched"
        else
            failed "4.0.0 checkout: nothing to apply" "exit $RC: $ERR $(tail -n3 "$SCRATCH/out")"
        fi
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
    managed_tree "$b"
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

# Signals in the middle of apply, sent to the whole process group as a
# terminal sends them (Ctrl-C: INT; a closed terminal or SSH session:
# HUP), while the second of three patches is going in.  The tree is as it
# was and no temporary repository or file is left.
t_signal() {
    local sig=$1 kind=$2 d="$SCRATCH/signal-$1-$2" before pid rc=0 name
    local tmp="$SCRATCH/tmp-$1-$2"
    name="SIG$sig during apply restores a $kind tree, nothing left in TMPDIR"
    if [ "$kind" = git ]; then checkout 3.5.0 "$d"; else plain_tree 3.5.0 "$d"; fi
    mkdir -p "$tmp"
    before=$(snapshot "$d")
    set -m
    # A shell started in the background without job control ignores SIGINT
    # and passes that on; a signal ignored at entry cannot be trapped, so
    # apply gets SIGINT back at its default.
    TMPDIR="$tmp" OVS_JSON_PERF_PATCHES="$SCRATCH/series/good" OVS_JSON_PERF_APPLY_DELAY=3 \
        env --default-signal=INT "$TOP/build.sh" apply --ovs-src "$d" >"$SCRATCH/int-out" 2>"$SCRATCH/int-err" &
    pid=$!
    set +m
    for _ in $(seq 1 600); do
        grep -q '\[2/3\]' "$SCRATCH/int-out" 2>/dev/null && break
        sleep 0.1
    done
    kill -"$sig" -- "-$pid" 2>/dev/null || true
    wait "$pid" || rc=$?
    if [ $rc -eq 0 ]; then
        failed "$name" "apply finished with exit 0 (not interrupted?): $(tail -n 3 "$SCRATCH/int-out" | tr '\n' '|')"
    elif ! grep -q '\[2/3\]' "$SCRATCH/int-out"; then
        failed "$name" "interrupted before the second patch"
    elif [ "$(snapshot "$d")" != "$before" ]; then
        failed "$name" "the tree changed"
    elif ! grep -q '^error: interrupted; the tree is back as it was' "$SCRATCH/int-err"; then
        failed "$name" "no 'interrupted; the tree is back as it was': $(tr '\n' '|' <"$SCRATCH/int-err")"
    elif [ -n "$(ls -A "$tmp")" ]; then
        failed "$name" "left in TMPDIR: $(ls -A "$tmp" | tr '\n' ' ')"
    else
        pass "$name"
    fi
}

# SIGINT once every patch is in, while apply finishes (file modes, records):
# it finishes, the modes are those from before, and it says that the whole
# series is applied.
t_signal_finish() {
    local d="$SCRATCH/signal-finish" pid rc=0 modes name
    name="SIGINT after the last patch: the plain tree gets the whole series and its modes, and says so"
    plain_tree 3.5.0 "$d"
    chmod 600 "$d/lib/json.c"
    modes=$(cd "$d" && find . -printf '%m %p\n' | sort)
    set -m
    OVS_JSON_PERF_PATCHES="$SCRATCH/series/good" OVS_JSON_PERF_FINISH_DELAY=3 \
        env --default-signal=INT "$TOP/build.sh" apply --ovs-src "$d" >"$SCRATCH/fin-out" 2>"$SCRATCH/fin-err" &
    pid=$!
    set +m
    for _ in $(seq 1 600); do
        grep -q 'apply: finishing' "$SCRATCH/fin-out" 2>/dev/null && break
        sleep 0.1
    done
    kill -INT -- "-$pid" 2>/dev/null || true
    wait "$pid" || rc=$?
    if [ $rc -ne 0 ]; then
        failed "$name" "exit $rc: $(tr '\n' '|' <"$SCRATCH/fin-err")"
    elif ! grep -q 'apply: 3 patches applied in place to the plain tree' "$SCRATCH/fin-out"; then
        failed "$name" "no line saying the series is applied: $(tail -n 2 "$SCRATCH/fin-out" | tr '\n' '|')"
    elif [ ! -e "$d/ovs-json-perf-test-3.txt" ]; then
        failed "$name" "the last patch is not in"
    elif [ "$(cd "$d" && find . -printf '%m %p\n' | sort | grep -v 'ovs-json-perf-test-')" != "$modes" ]; then
        failed "$name" "modes changed: $(diff <(echo "$modes") <(cd "$d" && find . -printf '%m %p\n' | sort) | head -n 4 | tr '\n' ' ')"
    else
        pass "$name"
    fi
}

# A tree that carries only the first patches of the real 3.5.0 series,
# whose features are only whole with later ones: apply skips what is
# present (as a commit, or as changes in a plain tree) and applies the rest.
t_partial_series() {
    local d="$SCRATCH/partial-git" p="$SCRATCH/partial-plain" first n want k
    first=$(series_patches 3.5.0 | head -n1)
    want=$(series_patches 3.5.0 | wc -l)
    checkout 3.5.0 "$d"
    git -C "$d" am -q "$TOP/patches/3.5.0/$first"
    bs apply --ovs-src "$d"
    n=$(git -C "$d" rev-list --count base/3.5.0..ovs-json-perf/3.5.0 2>/dev/null || echo 0)
    if [ "$RC" -eq 0 ] && [ "$n" -eq "$want" ] &&
       grep -qF "already present: the tree has the commit of $first" "$SCRATCH/err"; then
        pass "a git tree with the first patch as a commit gets the other $((want - 1))"
    else
        failed "a git tree with the first patch gets the rest" "exit $RC: $ERR; $n of $want commits"
    fi
    plain_tree 3.5.0 "$p"
    for k in $(series_patches 3.5.0 | head -n3); do
        (cd "$p" && patch -s -p1 <"$TOP/patches/3.5.0/$k")
    done
    bs apply --ovs-src "$p"
    n=$(grep -c "already present" "$SCRATCH/err" || true)
    if [ "$RC" -eq 0 ] && [ "$n" -eq 3 ] &&
       grep -q "patches applied in place" "$SCRATCH/out"; then
        pass "a plain tree with the first 3 patches in its files gets the rest"
    else
        failed "a plain tree with the first 3 patches gets the rest" "exit $RC: $ERR; $n skipped"
    fi
    rm -rf "$d" "$p"
}

# Two applies at once on one tree: the second refuses at once and changes
# nothing; the first applies the whole series.
t_concurrent_apply() {
    local d="$SCRATCH/concurrent" rc=0 n
    checkout 3.5.0 "$d"
    OVS_JSON_PERF_PATCHES="$SCRATCH/series/good" OVS_JSON_PERF_APPLY_DELAY=2 \
        "$TOP/build.sh" apply --ovs-src "$d" >"$SCRATCH/first-out" 2>"$SCRATCH/first-err" &
    local pid=$!
    for _ in $(seq 1 300); do
        [ ! -e "$d/ovs-json-perf-test-1.txt" ] || break
        sleep 0.1
    done
    OVS_JSON_PERF_PATCHES="$SCRATCH/series/good" bs apply --ovs-src "$d"
    wait "$pid" || rc=$?
    n=$(git -C "$d" rev-list --count base/3.5.0..ovs-json-perf/3.5.0 2>/dev/null || echo 0)
    if [ "$RC" -eq 0 ]; then
        failed "a second apply on the same tree refuses" "it exited 0"
    elif ! grep -q "another ./build.sh is applying the series to" <<<"$ERR"; then
        failed "a second apply on the same tree refuses" "error was '$ERR'"
    elif [ "$rc" -ne 0 ] || [ "$n" -ne 3 ]; then
        failed "a second apply on the same tree refuses" "the first exited $rc with $n of 3 patches: $(tail -n2 "$SCRATCH/first-err")"
    else
        pass "a second apply on the same tree refuses at once; the first applies all 3 patches"
    fi
}

# An unexpected error in the middle of apply (set -e ends the script; here
# "sleep x" fails after the first patch): the EXIT trap rolls back.
t_exit_trap() {
    local kind=$1 d="$SCRATCH/exit-$1" before tmp="$SCRATCH/tmp-exit-$1" name
    name="an unexpected exit in the middle of apply restores a $kind tree (EXIT trap)"
    if [ "$kind" = git ]; then checkout 3.5.0 "$d"; else plain_tree 3.5.0 "$d"; fi
    mkdir -p "$tmp"
    before=$(snapshot "$d")
    TMPDIR="$tmp" OVS_JSON_PERF_PATCHES="$SCRATCH/series/good" OVS_JSON_PERF_APPLY_DELAY=x \
        bs apply --ovs-src "$d"
    if [ "$RC" -eq 0 ]; then
        failed "$name" "exit 0"
    elif ! grep -q '\[1/3\]' "$SCRATCH/out"; then
        failed "$name" "stopped before the first patch: $(tail -n2 "$SCRATCH/err" | tr '\n' '|')"
    elif [ "$(snapshot "$d")" != "$before" ]; then
        failed "$name" "the tree changed"
    elif [ -n "$(ls -A "$tmp")" ]; then
        failed "$name" "left in TMPDIR: $(ls -A "$tmp" | tr '\n' ' ')"
    else
        pass "$name"
    fi
}

# Unknown options, options with no value, stray arguments: one error line
# before any work.
t_options() {
    local o="$SCRATCH/options"
    mkdir -p "$o"
    local -a cases=(
        "the default verb|unknown option '--ovs-scr'|--ovs-scr $o"
        "apply|unknown option '--ovs-scr'|apply --ovs-scr $o"
        "detect|unknown option '--ovs-scr'|detect --ovs-scr $o"
        "build|unknown option '--ovs-scr'|build --ovs-scr $o"
        "check|unknown option '--ovs-scr'|check --ovs-scr $o"
        "export|unknown option '--ovs-scr'|export --ovs-scr $o"
        "build --force|unknown option '--force'|build --force"
        "detect|unknown option '-f'|detect -f"
        "apply --base with no value|--base needs a value|apply --base"
        "apply --base= with no value|--base needs a value|apply --base="
        "apply --ovs-src followed by an option|--ovs-src needs a value|apply --ovs-src --force"
        "the default verb's --ovs-src with no value|--ovs-src needs a value|--ovs-src"
        "detect with a stray argument|unexpected argument 'stray'|detect stray"
        "check with flags before --|unknown option '-k'|check -k json"
        "fetch with an option|usage: ./build.sh fetch BASE|fetch --base"
        "test with an argument|unexpected argument '--quick'|test --quick"
        "apply --base with --ovs-src|--base and --ovs-src exclude each other|apply --base 3.1.0 --ovs-src $o"
        "check --ovs-src with --base|--base and --ovs-src exclude each other|check --ovs-src $o --base 3.5.0"
    )
    local c what pat args
    for c in "${cases[@]}"; do
        IFS='|' read -r what pat args <<<"$c"
        # shellcheck disable=SC2086  # args are words
        expect_refused "$what: '$args' is refused with one error line" "" \
            "$(sed 's/[.[\*^$()+?{}|]/\\&/g' <<<"$pat")" "" $args
    done
    expect_refused "check -- -k 'flow monitoring': a selection word with a space is refused" "" \
        "a test selection word cannot contain a space" "" check -- -k "flow monitoring"
    expect_refused "check --sanitize -- -k 'a b': refused before any build" "" \
        "a test selection word cannot contain a space" "" check --sanitize -- -k "a b"
}

# fetch (and apply, which fetches) never deletes a build/ovs-BASE that is
# not the tree fetch unpacked: one without the tag pristine/BASE, or one
# that git will not open (another user's), may hold work.  Both carry a
# commit and an uncommitted edit, and stay as they were.
t_fetch_keeps_work() {
    local b="$SCRATCH/fetch-build" d before verb
    d="$b/ovs-3.5.0"
    mkdir -p "$b"
    git clone -q "$BUILD/ovs-3.5.0" "$d"
    git -C "$d" tag -d pristine/3.5.0 >/dev/null 2>&1 || true
    git -C "$d" -c user.name=t -c user.email=t@localhost commit -q --allow-empty -m "my work"
    echo "/* my edit */" >>"$d/lib/json.c"
    before=$(snapshot "$d")
    for verb in fetch apply; do
        local args=("$verb" 3.5.0)
        [ "$verb" = fetch ] || args=(apply --base 3.5.0)
        OVS_JSON_PERF_BUILD="$b" expect_refused \
            "$verb: a build/ovs-3.5.0 without its pristine tag is kept, with its work" "$d" \
            "fetch-build/ovs-3.5.0 exists but is not the tree fetch unpacked: it has no tag" \
            "$before" "${args[@]}"
    done
    git -C "$d" tag pristine/3.5.0 HEAD~1
    chown -R nobody "$d"
    before=$(snapshot "$d")
    OVS_JSON_PERF_BUILD="$b" expect_refused \
        "fetch: another user's build/ovs-3.5.0 is kept, with its work" "$d" \
        "exists but is not the tree fetch unpacked: git cannot open it" "$before" fetch 3.5.0
    chown -R "$(id -u)" "$d"
    rm -rf "$b"
}

# A check whose selection matches no test fails: it checked nothing.
t_empty_selection() {
    expect_refused "check -- -k with a keyword no test has: refused, not passed" "" \
        "selected no test" "" check -- -k no_such_keyword_ovs_json_perf
}

t_not_a_directory() {
    echo "not a tree" >"$SCRATCH/a-file"
    expect_refused "--ovs-src naming a file is refused" "" \
        "a-file is a file, not a directory" "" apply --ovs-src "$SCRATCH/a-file"
}

# A git repository with no commits yet.
t_no_commits() {
    local d="$SCRATCH/no-commits" before
    plain_tree 3.5.0 "$d"
    git -C "$d" init -q
    before=$(snapshot "$d")
    expect_refused "a git repository with no commits is refused" "$d" \
        "is a git repository with no commits" "$before" apply --ovs-src "$d"
}

# git stash pop with a conflict: unmerged index, no merge in progress.
t_unmerged() {
    local d="$SCRATCH/unmerged" before
    checkout 3.5.0 "$d"
    (
        cd "$d"
        echo "stashed edit" >>README.rst
        git stash -q
        echo "committed edit" >>README.rst
        git commit -q -am "edit README"
        git stash pop -q >/dev/null 2>&1 || true
    )
    if [ -z "$(git -C "$d" ls-files -u)" ]; then
        failed "an unmerged index is refused even with --force" "could not make an unmerged index"
        return
    fi
    before=$(snapshot "$d")
    OVS_JSON_PERF_PATCHES="$SCRATCH/series/good" \
        expect_refused "an unmerged index is refused even with --force" "$d" \
        "has unmerged files" "$before" apply --ovs-src "$d" --force
}

t_bisect() {
    local d="$SCRATCH/bisect" before
    checkout 3.5.0 "$d"
    git -C "$d" bisect start -q >/dev/null 2>&1 || git -C "$d" bisect start >/dev/null
    before=$(snapshot "$d")
    OVS_JSON_PERF_PATCHES="$SCRATCH/series/good" \
        expect_refused "a bisect in progress is refused" "$d" \
        "has a bisect .* in progress" "$before" apply --ovs-src "$d"
}

# A checkout git will not open (another user's): refused with git's hint,
# not treated as a plain directory.
t_dubious() {
    local d="$SCRATCH/dubious" before
    checkout 3.5.0 "$d"
    before=$(snapshot "$d")
    if [ "$(id -u)" -eq 0 ]; then
        chown 65534 "$d"
    else
        export GIT_TEST_ASSUME_DIFFERENT_OWNER=1
    fi
    bs apply --ovs-src "$d"
    unset GIT_TEST_ASSUME_DIFFERENT_OWNER
    [ "$(id -u)" -ne 0 ] || chown 0 "$d"
    if [ "$RC" -eq 0 ]; then
        failed "a git checkout of another owner is refused with git's hint" "exit 0"
    elif ! grep -qE "dubious ownership.*git config --global --add safe.directory $d\$" <<<"$ERR"; then
        failed "a git checkout of another owner is refused with git's hint" "error was '$ERR'"
    elif [ "$(grep -c '^error:' "$SCRATCH/err")" -ne 1 ]; then
        failed "a git checkout of another owner is refused with git's hint" "more than one error line"
    elif [ "$(snapshot "$d")" != "$before" ]; then
        failed "a git checkout of another owner is refused with git's hint" "the tree changed"
    else
        pass "a git checkout of another owner is refused with git's hint"
    fi
}

# An OVS tree committed inside another repository.
t_nested() {
    local p="$SCRATCH/outer" before
    mkdir -p "$p"
    git -C "$p" init -q -b trunk
    plain_tree 3.5.0 "$p/ovs"
    git -C "$p" add -A
    git -C "$p" -c user.name=t -c user.email=t@localhost commit -q -m "vendored OVS"
    before=$(snapshot "$p")
    OVS_JSON_PERF_PATCHES="$SCRATCH/series/good" \
        expect_refused "an OVS tree inside another repository that tracks it is refused" "$p" \
        "is inside the git repository $p, which tracks its files" "$before" apply --ovs-src "$p/ovs"
}

# Read-only: the whole tree, or a directory a patch writes in.
t_readonly() {
    local g="$SCRATCH/ro-git" l="$SCRATCH/ro-lib" p="$SCRATCH/ro-plain" before
    checkout 3.5.0 "$g"
    checkout 3.5.0 "$l"
    plain_tree 3.5.0 "$p"
    chmod a-w "$g" "$l/lib" "$p/lib"
    if unpriv touch "$l/lib/.w" 2>/dev/null; then
        failed "a read-only tree is refused" "cannot make a directory read-only here"
        chmod u+w "$g" "$l/lib" "$p/lib"
        return
    fi
    BS_WRAP=(unpriv)
    before=$(snapshot "$g")
    OVS_JSON_PERF_PATCHES="$SCRATCH/series/good" \
        expect_refused "a read-only tree is refused" "$g" "ro-git is not writable" "$before" apply --ovs-src "$g"
    before=$(snapshot "$l")
    OVS_JSON_PERF_PATCHES="$SCRATCH/series/good" \
        expect_refused "a git tree with a read-only directory a patch writes in is refused" "$l" \
        "ro-lib/lib is read-only" "$before" apply --ovs-src "$l"
    before=$(snapshot "$p")
    OVS_JSON_PERF_PATCHES="$SCRATCH/series/good" \
        expect_refused "a plain tree with a read-only directory a patch writes in is refused" "$p" \
        "ro-plain/lib is read-only" "$before" apply --ovs-src "$p"
    BS_WRAP=()
    chmod u+w "$g" "$l/lib" "$p/lib"
}

# As root, a read-only tests/ (mode 444 files in a 555 directory) is
# refused too: root could write it, but the modes say nobody may.
t_readonly_root() {
    local d="$SCRATCH/ro-root" before
    checkout 3.5.0 "$d"
    chmod -R a-w "$d/tests"
    before=$(snapshot "$d")
    OVS_JSON_PERF_PATCHES="$SCRATCH/series/partial" \
        expect_refused "as $(id -un), a tree whose tests/ is read-only is refused" "$d" \
        "ro-root/tests/atlocal.in is read-only" "$before" apply --ovs-src "$d"
    chmod -R u+w "$d/tests"
}

# apply_past_first_patch DIR SERIES: start apply of the made-up series
# SERIES on DIR in the background, slowed between patches, with its pid in
# APPLY_PID, and return once the first patch is in (its file exists).
apply_past_first_patch() {
    local d=$1
    OVS_JSON_PERF_PATCHES="$SCRATCH/series/$2" OVS_JSON_PERF_APPLY_DELAY=2 \
        unpriv "$TOP/build.sh" apply --ovs-src "$d" >"$SCRATCH/out" 2>"$SCRATCH/err" &
    APPLY_PID=$!
    for _ in $(seq 1 300); do
        [ ! -e "$d/ovs-json-perf-test-1.txt" ] || break
        sleep 0.1
    done
}

# A rollback that cannot finish (a directory became read-only while the
# series went in): it says so, and the commands it prints restore the tree.
t_rollback_commands() {
    local kind=$1 d="$SCRATCH/unrestorable-$1" before pid rc=0 name
    name="$kind tree: a rollback that cannot finish prints commands that restore it"
    if [ "$kind" = git ]; then checkout 3.5.0 "$d"; else plain_tree 3.5.0 "$d"; fi
    before=$(snapshot "$d")
    mkdir -p "$SCRATCH/tmp-rb-$kind"
    TMPDIR="$SCRATCH/tmp-rb-$kind" apply_past_first_patch "$d" bad
    pid=$APPLY_PID
    chmod a-w "$d"
    wait "$pid" || rc=$?
    chmod u+w "$d"
    sed -n '/^these commands restore it:$/,/^error:/p' "$SCRATCH/err" | sed -n 's/^    //p' >"$SCRATCH/restore.sh"
    if [ $rc -eq 0 ]; then
        failed "$name" "exit 0"
    elif ! grep -q '^error: .*does not apply.*the tree could not be restored: run the commands above' "$SCRATCH/err"; then
        failed "$name" "no 'could not be restored': $(tr '\n' '|' <"$SCRATCH/err")"
    elif [ "$(grep -c '^error:' "$SCRATCH/err")" -ne 1 ]; then
        failed "$name" "more than one error line"
    elif [ ! -s "$SCRATCH/restore.sh" ]; then
        failed "$name" "no commands printed"
    elif [ "$(snapshot "$d")" = "$before" ]; then
        failed "$name" "the tree is as it was already; the fault did not happen"
    elif ! unpriv bash -e "$SCRATCH/restore.sh" >/dev/null 2>"$SCRATCH/restore.err"; then
        failed "$name" "the commands failed: $(tr '\n' '|' <"$SCRATCH/restore.err") (commands: $(tr '\n' '|' <"$SCRATCH/restore.sh"))"
    elif [ "$(snapshot "$d")" != "$before" ]; then
        failed "$name" "after the commands the tree still differs (commands: $(tr '\n' '|' <"$SCRATCH/restore.sh"))"
    elif [ -n "$(ls -A "$SCRATCH/tmp-rb-$kind")" ]; then
        failed "$name" "after the commands, left in TMPDIR: $(ls -A "$SCRATCH/tmp-rb-$kind" | tr '\n' ' ')"
    else
        pass "$name"
    fi
}

# File modes survive: a rollback after two patches went in (plain and git
# trees), and a plain tree patched in place.
t_modes() {
    local kind=$1 d="$SCRATCH/modes-$1" before
    if [ "$kind" = git ]; then checkout 3.5.0 "$d"; else plain_tree 3.5.0 "$d"; fi
    chmod 664 "$d/lib/json.c"
    chmod 600 "$d/README.rst"
    chmod 775 "$d/lib"
    before=$(snapshot "$d")
    local mask
    mask=$(umask)
    umask 022
    OVS_JSON_PERF_PATCHES="$SCRATCH/series/bad3" \
        expect_refused "$kind tree: a rollback after two patches restores contents and modes (664 stays 664)" "$d" \
        "0003-test-touch-json.c-again.patch does not apply" "$before" apply --ovs-src "$d"
    if [ "$kind" = plain ]; then
        OVS_JSON_PERF_PATCHES="$SCRATCH/series/good" bs apply --ovs-src "$d"
        if [ "$RC" -eq 0 ] && [ "$(stat -c %a "$d/lib/json.c")" = 664 ] &&
           grep -q 'ovs-json-perf test' "$d/lib/json.c"; then
            pass "plain tree patched in place: a patched file keeps its mode 664"
        else
            failed "plain tree patched in place: a patched file keeps its mode 664" \
                "exit $RC, mode $(stat -c %a "$d/lib/json.c")"
        fi
    fi
    umask "$mask"
}

# A managed build/ovs-3.5.0 as an earlier apply left it, in a build area
# of its own: the series applied with git am on ovs-json-perf/3.5.0.
managed_tree() {
    local b=$1 t="$1/ovs-3.5.0" p
    mkdir -p "$b"
    git clone -q "$BUILD/ovs-3.5.0" "$t"
    git -C "$t" checkout -q --detach base/3.5.0
    git -C "$t" branch -q -D ovs-json-perf/3.5.0 2>/dev/null || true
    git -C "$t" checkout -q -b ovs-json-perf/3.5.0
    for p in $(series_patches 3.5.0); do
        git -C "$t" am -q "$TOP/patches/3.5.0/$p"
    done
    # What apply records of the branch it made.
    git -C "$t" config ovs-json-perf.3.5.0.applied "$(git -C "$t" rev-parse HEAD)"
    # patches/3.5.0 changed since.
    git -C "$t" config ovs-json-perf.3.5.0.series stale
}

# A commit that the user made with git am on the managed branch is work,
# though its reflog entry looks like apply's own ("am: ..."): re-apply
# refuses, both on a branch that an older apply left without a record and
# on one whose tip apply recorded.
t_managed_am() {
    local b="$SCRATCH/managed-am" t before mine="$SCRATCH/mine.patch"
    t="$b/ovs-3.5.0"
    managed_tree "$b"
    # As an apply older than the records left it.
    git -C "$t" config --unset ovs-json-perf.3.5.0.applied
    git clone -q "$t" "$SCRATCH/mine"
    echo "mine" >"$SCRATCH/mine/my-file.txt"
    git -C "$SCRATCH/mine" add my-file.txt
    git -C "$SCRATCH/mine" -c user.name=me -c user.email=me@localhost commit -q -m "my work"
    git -C "$SCRATCH/mine" format-patch -q -1 --stdout >"$mine"
    rm -rf "$SCRATCH/mine"
    git -C "$t" -c user.name=me -c user.email=me@localhost am -q "$mine"
    before=$(snapshot "$t")
    OVS_JSON_PERF_BUILD="$b" expect_refused \
        "re-apply keeps a commit made with git am on a branch without a record" "$t" \
        "commits that ./build.sh export has not written" "$before" apply --base 3.5.0
    OVS_JSON_PERF_BUILD="$b" bs apply --base 3.5.0 --force
    git -C "$t" -c user.name=me -c user.email=me@localhost am -q "$mine"
    git -C "$t" config ovs-json-perf.3.5.0.series stale
    before=$(snapshot "$t")
    OVS_JSON_PERF_BUILD="$b" expect_refused \
        "re-apply keeps a commit made with git am after a recorded apply" "$t" \
        "commits that ./build.sh export has not written" "$before" apply --base 3.5.0
    rm -rf "$b" "$mine"
}

# Re-applying our own tree must not throw away the user's work.
t_managed_work() {
    local b="$SCRATCH/managed-work" t before n want
    t="$b/ovs-3.5.0"
    want=$(series_patches 3.5.0 | wc -l)
    managed_tree "$b"
    echo "/* my edit */" >>"$t/lib/json.c"
    before=$(snapshot "$t")
    OVS_JSON_PERF_BUILD="$b" expect_refused \
        "re-apply to build/ovs-3.5.0 with uncommitted edits is refused, saying how to keep them" "$t" \
        "uncommitted changes.*stash.*export.*--force" "$before" apply --base 3.5.0
    OVS_JSON_PERF_BUILD="$b" bs apply --base 3.5.0 --force
    n=$(git -C "$t" rev-list --count base/3.5.0..HEAD)
    if [ "$RC" -eq 0 ] && [ "$n" -eq "$want" ] && ! grep -q 'my edit' "$t/lib/json.c"; then
        pass "re-apply with --force discards the edits and applies all $want patches"
    else
        failed "re-apply with --force discards the edits" "exit $RC: $ERR; $n patches"
    fi
    # A commit of the user's on the branch.
    echo "/* my commit */" >>"$t/lib/json.c"
    git -C "$t" commit -q -am "json: my change"
    git -C "$t" config ovs-json-perf.3.5.0.series stale
    before=$(snapshot "$t")
    OVS_JSON_PERF_BUILD="$b" expect_refused \
        "re-apply to build/ovs-3.5.0 with an unexported commit is refused, saying how to keep it" "$t" \
        "commits that ./build.sh export has not written.*export --base 3.5.0.*--force" "$before" apply --base 3.5.0
    # Exported, the commit is kept in patches/: re-apply goes ahead.
    mkdir -p "$SCRATCH/exported"
    cp -a "$TOP/patches/3.5.0" "$SCRATCH/exported/"
    OVS_JSON_PERF_BUILD="$b" OVS_JSON_PERF_PATCHES="$SCRATCH/exported" bs export --base 3.5.0
    git -C "$t" config ovs-json-perf.3.5.0.series stale
    OVS_JSON_PERF_BUILD="$b" OVS_JSON_PERF_PATCHES="$SCRATCH/exported" bs apply --base 3.5.0
    n=$(git -C "$t" rev-list --count base/3.5.0..HEAD)
    if [ "$RC" -eq 0 ] && [ "$n" -eq $((want + 1)) ] && grep -q 'my commit' "$t/lib/json.c"; then
        pass "after ./build.sh export, re-apply goes ahead with the exported commit"
    else
        failed "after ./build.sh export, re-apply goes ahead" "exit $RC: $ERR; $n patches"
    fi
    rm -rf "$b"
}

# A re-apply to build/ovs-3.5.0 that fails: HEAD back on the old branch,
# which has its commits again.
t_managed_rollback() {
    local b="$SCRATCH/managed-rollback" t before
    t="$b/ovs-3.5.0"
    managed_tree "$b"
    before=$(snapshot "$t")
    OVS_JSON_PERF_BUILD="$b" OVS_JSON_PERF_PATCHES="$SCRATCH/series/bad" expect_refused \
        "a failing re-apply to build/ovs-3.5.0 puts back its branch and HEAD" "$t" \
        "does not apply.*the tree is back as it was" "$before" apply --base 3.5.0
    rm -rf "$b"
}

# fetch takes the Debian mirror from the system's apt sources, read only.
mirror_of() {
    (
        export OVS_JSON_PERF_APT_ETC=$1
        unset OVS_JSON_PERF_MIRROR
        [ -z "${2:-}" ] || export OVS_JSON_PERF_MIRROR=$2
        # shellcheck source=../scripts/fetch.sh
        . "$TOP/scripts/fetch.sh"
        fetch_mirror
    ) 2>&1 || true
}

t_mirror() {
    local e="$SCRATCH/etc-apt" out b="$SCRATCH/mirror-build" sum
    mkdir -p "$e/sources.list.d"
    cat >"$e/sources.list.d/debian.sources" <<'EOF'
# comment
Types: deb
URIs: http://security.test.invalid/debian-security
Suites: trixie-security
Components: main

Types: deb
URIs: http://disabled.test.invalid/debian
Suites: trixie
Components: main
Enabled: no

Types: deb deb-src
URIs: http://127.0.0.1:9/debian/
Suites: trixie trixie-updates
Components: main
EOF
    echo "deb http://ignored.test.invalid/debian sid main" >"$e/sources.list.d/other.list.disabled"
    out=$(mirror_of "$e")
    if [ "$out" = "http://127.0.0.1:9/debian" ]; then
        pass "mirror: taken from a deb822 .sources file (security, disabled entries skipped)"
    else
        failed "mirror: taken from a deb822 .sources file" "got '$out'"
    fi
    cat >"$e/sources.list" <<'EOF'
# deb http://commented.test.invalid/debian bookworm main
deb [arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://one-line.test.invalid/debian bookworm main
EOF
    out=$(mirror_of "$e")
    if [ "$out" = "http://one-line.test.invalid/debian" ]; then
        pass "mirror: taken from sources.list in the one-line format"
    else
        failed "mirror: taken from sources.list in the one-line format" "got '$out'"
    fi
    out=$(mirror_of "$e" "http://override.test.invalid/debian")
    if [ "$out" = "http://override.test.invalid/debian" ]; then
        pass "mirror: OVS_JSON_PERF_MIRROR overrides the apt sources"
    else
        failed "mirror: OVS_JSON_PERF_MIRROR overrides the apt sources" "got '$out'"
    fi
    mkdir -p "$SCRATCH/etc-ubuntu/sources.list.d"
    echo "deb http://ubuntu.test.invalid/ubuntu noble main" >"$SCRATCH/etc-ubuntu/sources.list"
    out=$(mirror_of "$SCRATCH/etc-ubuntu")
    if grep -qx "error: found no Debian mirror in .*; set OVS_JSON_PERF_MIRROR to one (http://HOST/debian)" <<<"$out"; then
        pass "mirror: no Debian mirror in the apt sources is one error line"
    else
        failed "mirror: no Debian mirror in the apt sources is one error line" "got '$out'"
    fi
    # fetch end to end: the private sources use the system's mirror (here
    # an unreachable one), and the system's sources are not written.
    rm -f "$e/sources.list"
    sum=$(find "$e" -printf '%m %p\n' -type f -exec sha256sum {} + | sort | sha256sum)
    mkdir -p "$b"
    (unset OVS_JSON_PERF_MIRROR
     OVS_JSON_PERF_BUILD="$b" OVS_JSON_PERF_APT_ETC="$e" \
        timeout 120 "$TOP/build.sh" fetch 3.1.0 >/dev/null 2>&1) || true
    if grep -qx 'URIs: http://127.0.0.1:9/debian' "$b/apt/sources.list.d/ovs-json-perf.sources" 2>/dev/null &&
       [ "$(find "$e" -printf '%m %p\n' -type f -exec sha256sum {} + | sort | sha256sum)" = "$sum" ]; then
        pass "fetch uses the mirror of the apt sources and leaves them as they were"
    else
        failed "fetch uses the mirror of the apt sources" \
            "$(cat "$b/apt/sources.list.d/ovs-json-perf.sources" 2>&1 | tr '\n' '|')"
    fi
    rm -rf "$b"
    # No mirror's host name anywhere in the repository (code, tests, docs).
    out=$(git -C "$TOP" grep --untracked -nIE '[a-z0-9-]+[.]debian[.](org|net)|(deb|ftp|http)[.][a-z.]*debian' || true)
    if [ -z "$out" ]; then
        pass "no Debian mirror host name in the repository"
    else
        failed "no Debian mirror host name in the repository" "$(head -n3 <<<"$out" | tr '\n' '|')"
    fi
}

# restore_commands on its own: from a tree apply left in the worst state
# (HEAD on a new branch with a commit, an old branch and its config
# deleted, a file added in a new directory, a mode changed), the commands
# bring back the fingerprint taken before.
t_restore_commands_unit() {
    local d="$SCRATCH/restore-unit" w="$SCRATCH/restore-work" orig name
    name="restore_commands: branches, HEAD, config, files, directories and modes come back"
    checkout 3.5.0 "$d"
    git -C "$d" branch keep
    git -C "$d" config branch.keep.description "my work"
    orig=$(git -C "$d" rev-parse HEAD)
    mkdir -p "$w"
    (
        # shellcheck source=../scripts/guard.sh
        . "$TOP/scripts/guard.sh"
        APPLY_WORK=$w
        tree_manifest "$d" git >"$w/before"
        cd "$d"
        git checkout -q -b ovs-json-perf/3.5.0
        echo "/* x */" >>lib/json.c
        git commit -q -am "x"
        git branch -q -D keep
        mkdir newdir && echo new >newdir/new.txt
        chmod 600 README.rst
        tree_manifest "$d" git >"$w/now"
        cd /
        restore_commands "$d" git "$w/before" "$w/now" "$orig" >"$w/cmds"
        bash -e "$w/cmds" >/dev/null 2>&1
        tree_manifest "$d" git >"$w/after"
    )
    if ! diff -q "$w/before" "$w/now" >/dev/null && cmp -s "$w/before" "$w/after"; then
        pass "$name"
    else
        failed "$name" "$(diff "$w/before" "$w/after" | head -n 5 | tr '\n' '|') (commands: $(tr '\n' '|' <"$w/cmds"))"
    fi
}

# A directory turns read-only in the middle of apply: the second patch
# has written lib/json.c when it fails on tests/.  Those files come back.
t_partial_write() {
    local kind=$1 d="$SCRATCH/partial-$1" before pid rc=0 name
    name="$kind tree: a patch that fails half-written (tests/ turned read-only) is undone"
    if [ "$kind" = git ]; then checkout 3.5.0 "$d"; else plain_tree 3.5.0 "$d"; fi
    before=$(snapshot "$d")
    apply_past_first_patch "$d" partial
    pid=$APPLY_PID
    chmod a-w "$d/tests"
    wait "$pid" || rc=$?
    if [ $rc -eq 0 ]; then
        failed "$name" "exit 0"
    elif ! grep -q '^error: 0002-.*does not apply.*the tree is back as it was' "$SCRATCH/err"; then
        failed "$name" "$(grep -v '^|' "$SCRATCH/err" | tr '\n' '|')"
    elif [ "$(snapshot "$d")" != "$before" ]; then
        failed "$name" "the tree changed"
    else
        pass "$name"
    fi
    chmod u+w "$d/tests"
}

# --force replaces an existing ovs-json-perf branch; when the series then
# fails, the old branch and its config (its description) come back.
t_force_rollback() {
    local d="$SCRATCH/force-rollback" before
    checkout 3.5.0 "$d"
    git -C "$d" branch ovs-json-perf/3.5.0 HEAD~1
    git -C "$d" config branch.ovs-json-perf/3.5.0.description "my cover letter"
    before=$(snapshot "$d")
    OVS_JSON_PERF_PATCHES="$SCRATCH/series/bad" \
        expect_refused "--force on a failing series: the replaced branch and its config come back" "$d" \
        "does not apply.*the tree is back as it was" "$before" apply --ovs-src "$d" --force
}

# record_with_rerun DIR OUT RESULT [STOCK_RESULT]: regress_record on the
# made-up trees and logs in DIR, into OUT, with reruns of "beta" whose result
# line ends in RESULT on patched and STOCK_RESULT (default ok) on stock.  Runs in a subshell: it sources scripts/regress.sh.
record_with_rerun() (
    # shellcheck source=../scripts/regress.sh
    . "$TOP/scripts/regress.sh"
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
        # shellcheck source=../scripts/common.sh
        . "$TOP/scripts/common.sh"
        OVS_JSON_PERF_RESULTS=$d/results
        # shellcheck source=../scripts/regress.sh
        . "$TOP/scripts/regress.sh"
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
    if [ $rc -eq 0 ] && [ "$(tr '\n' '|' <<<"$got" | sed 's/|$//')" = "$want" ]; then
        pass "regress: a stock suite's saved results are reused by key and compare as the whole log"
    else
        failed "regress: saved stock results" "exit $rc: $(tr '\n' '|' <<<"$got")"
    fi
}

# regress_stock_cached: a stock suite log is reused only for the same tree
# and tests, the newest one, and never with REGRESS_FRESH_STOCK.
t_regress_stock_reuse() {
    local d="$SCRATCH/stockreuse" got want rc=0
    rm -rf "$d"
    mkdir -p "$d/logs"
    git init -q "$d/tree"
    echo a >"$d/tree/f"
    git -C "$d/tree" add f
    git -c user.name=t -c user.email=t@localhost -C "$d/tree" commit -qm a
    got=$(
        # shellcheck source=../scripts/regress.sh
        . "$TOP/scripts/regress.sh"
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
        echo b >"$d/tree/f"
        git -C "$d/tree" add f
        git -c user.name=t -c user.email=t@localhost -C "$d/tree" commit -qm b
        echo "tree:$(regress_stock_cached "$d/logs" "$d/tree" "1-10 12-20")"
    ) || rc=$?
    want="same:$d/logs/stock-2.log|tests:|fresh:|tree:"
    if [ $rc -eq 0 ] && [ "$(tr '\n' '|' <<<"$got" | sed 's/|$//')" = "$want" ]; then
        pass "regress: stock's suite log is reused only for the same tree and tests"
    else
        failed "regress: stock's suite log reuse" "exit $rc: $(tr '\n' '|' <<<"$got")"
    fi
}

# Every patch of every series (and of pending/) is named by a row of
# patches/features, so that a tree which carries it is told so (t_carried)
# instead of getting the patch twice; every patch a row names exists, no
# name has two rows, and each row has its five fields.  Static: no tree
# needed.
t_every_patch_has_feature() {
    local b p f missing="" stale="" named dups
    # shellcheck source=../scripts/fetch.sh
    . "$TOP/scripts/fetch.sh"
    # shellcheck source=../scripts/tree.sh
    . "$TOP/scripts/tree.sh"
    if ! features_parse >/dev/null 2>"$SCRATCH/features.err"; then
        failed "patches/features is well formed" "$(head -n3 "$SCRATCH/features.err")"
        return
    fi
    for b in $SUPPORTED_BASES; do
        for p in $(series_patches "$b") \
                 $(cd "$TOP/patches/$b" 2>/dev/null && ls pending/*-[0-9][0-9][0-9][0-9]-*.patch 2>/dev/null | grep -v -- -0000-); do
            f=$(patch_feature "$TOP/patches/$b/$p")
            [ "$f" != always ] || missing="$missing $b/$p"
        done
    done
    for named in $(features_rows | cut -f2 | tr ' ' '\n' | grep -vx -- -); do
        ls "$TOP"/patches/*/"$named" >/dev/null 2>&1 || stale="$stale $named"
    done
    dups=$(feature_names | sort | uniq -d | tr '\n' ' ')
    if [ -z "$missing$stale$dups" ]; then
        pass "every patch of every series names a detection feature (patches/features)"
    else
        failed "every patch names a detection feature" \
            "no row for:${missing:- none}; rows naming no patch:${stale:- none}; names twice: ${dups:-none}"
    fi
}

# Detection and apply read patches/features: a table with a row that a
# tree has (its pattern in a file of the tree) makes detect print the row's
# title and apply skip its patch; a row without its five fields is one
# error line.  (apply's use of the table: t_carried.)
t_feature_table_read() {
    local d="$SCRATCH/features-table" t="$SCRATCH/features-table.rows" out rc
    rm -rf "$d"
    checkout 3.5.0 "$d/ovs"
    { grep -v '^serialized-json ' "$TOP/patches/features"
      echo 'made-up-change | - | lib/json.c | json_parser_create | a change only this test knows'
    } >"$t"
    out=$(FEATURES_TABLE=$t "$TOP/build.sh" detect --ovs-src "$d/ovs" 2>&1) || true
    if grep -qE '^ +made-up-change +yes +a change only this test knows$' <<<"$out" &&
       ! grep -q 'serialized-json' <<<"$out"; then
        pass "detect prints the rows of patches/features (FEATURES_TABLE)"
    else
        failed "detect reads patches/features" "$(tr '\n' '|' <<<"$out")"
    fi
    echo 'broken-row | - | lib/json.c' >>"$t"
    out=$(FEATURES_TABLE=$t "$TOP/build.sh" detect --ovs-src "$d/ovs" 2>&1) && rc=0 || rc=$?
    if [ "$rc" -ne 0 ] && grep -q 'fields, not 5' <<<"$out"; then
        pass "a row of patches/features without its five fields is an error"
    else
        failed "a short row of patches/features" "exit $rc: $(tr '\n' '|' <<<"$out")"
    fi
}

main() {
    t_every_patch_has_feature
    t_feature_table_read
    make_series 3.5.0 "$SCRATCH/series"
    t_not_ovs
    t_unsupported
    t_dirty
    t_bad_series
    t_real_series_conflict
    t_no_network
    t_signal INT git
    t_signal HUP git
    t_signal HUP plain
    t_concurrent_apply
    t_partial_series
    t_signal_finish
    t_exit_trap git
    t_exit_trap plain
    t_options
    t_empty_selection
    t_fetch_keeps_work
    t_not_a_directory
    t_no_commits
    t_unmerged
    t_bisect
    t_dubious
    t_nested
    t_readonly
    t_readonly_root
    t_rollback_commands git
    t_rollback_commands plain
    t_restore_commands_unit
    t_partial_write git
    t_partial_write plain
    t_force_rollback
    t_modes git
    t_modes plain
    t_managed_work
    t_managed_am
    t_managed_rollback
    t_mirror
    t_plain_good
    t_managed_reapply
    t_suite_compare
    t_regress
    t_regress_stock_reuse
    t_regress_stock_saved
    local b
    for b in 3.5.0 3.1.0 4.0.0; do
        if [ -s "$TOP/patches/$b/series" ]; then
            t_good_apply "$b"
            t_carried "$b"
        else
            echo "note: patches/$b has no series; no apply case for $b"
        fi
    done
    t_upstream_has_it
    rm -rf "$SCRATCH"
    summary
}

main "$@"
