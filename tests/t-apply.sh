#!/usr/bin/env bash
# apply that succeeds: the real series on a checkout of each base (a new
# branch, the user's untouched, --force to replace it), a made-up series on
# a plain tree, and re-apply to our own build/ovs-3.5.0, which must not
# throw away the user's edits or commits.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

scratch_dir "$BUILD/test/apply"

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

# A plain tree gets the made-up series in place, and no .git.
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
    # A patch renamed by hand: the series still lists a file that is gone.
    rm "$SCRATCH/exported/3.5.0/$(tail -n1 "$SCRATCH/exported/3.5.0/series")"
    OVS_JSON_PERF_BUILD="$b" OVS_JSON_PERF_PATCHES="$SCRATCH/exported" bs export --base 3.5.0
    if [ "$RC" -eq 0 ] && [ -f "$SCRATCH/exported/3.5.0/$(tail -n1 "$SCRATCH/exported/3.5.0/series")" ]; then
        pass "export writes the series again when a patch file it lists is gone"
    else
        failed "export with a patch file gone" "exit $RC: $ERR $(tail -n2 "$SCRATCH/err")"
    fi
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

# export carries a cover letter's text over without its shortlog, also when
# the last export's commits had two authors (two "Author (N):" blocks), and
# keeps a line of the text that looks like one.
t_cover_body() {
    local f="$SCRATCH/cover.patch" got
    printf '%s\n' 'From abc Mon Sep 17 00:00:00 2001' 'Subject: [PATCH 0/2] x' '' \
        'Text.' 'Results (3):' '  an indented line of the text' '' 'More text.' '' \
        'A B (1):' '  one' '' 'C D (1):' '  two' '' ' f | 1 +' >"$f"
    got=$(bash -c '. "$1/scripts/lib/common.sh"; . "$1/scripts/lib/export.sh"; cover_body "$2"' _ "$TOP" "$f")
    if [ "$got" = "$(printf '%s\n' 'Text.' 'Results (3):' '  an indented line of the text' '' 'More text.')" ]; then
        pass "export keeps a cover letter's text without the shortlog of two authors"
    else
        failed "cover letter text" "got: $(tr '\n' '|' <<<"$got")"
    fi
}

# The cases, in order; the closing line.
main() {
    make_series 3.5.0 "$SCRATCH/series"
    t_cover_body
    t_managed_work
    t_managed_am
    t_managed_rollback
    t_plain_good
    t_managed_reapply
    local b
    for b in 3.5.0 3.1.0 4.0.0; do
        if [ -s "$TOP/patches/$b/series" ]; then
            t_good_apply "$b"
        else
            echo "note: patches/$b has no series; no apply case for $b"
        fi
    done
    summary
}

main "$@"
