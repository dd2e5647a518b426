#!/usr/bin/env bash
# Detection (patches/features): every patch has a row, detect and apply read
# the table, a tree that carries some or all of the series gets only the
# rest, and upstream 4.0.0 is reported as having the inline storage.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

scratch_dir "$BUILD/test/detect"

# Every patch of every series (and of pending/) is named by a row of
# patches/features, so that a tree which carries it is told so (t_carried)
# instead of getting the patch twice; every patch a row names exists, no
# name has two rows, and each row has its five fields.  Static: no tree
# needed.
t_every_patch_has_feature() {
    local b p f missing="" stale="" named dups
    # shellcheck source=../scripts/lib/fetch.sh
    . "$TOP/scripts/lib/fetch.sh"
    # shellcheck source=../scripts/lib/tree.sh
    . "$TOP/scripts/lib/tree.sh"
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

# A tree that carries only the first patches of the real 3.5.0 series,
# whose features are only whole with later ones: apply skips what is
# present (as a commit, or as changes in a plain tree) and applies the rest.
t_partial_series() {
    local d="$SCRATCH/partial-git" p="$SCRATCH/partial-plain" first n want k
    # The first patch of json-inline makes half of a feature, so only its
    # commit can show it; the patches before it (ovsdb-fixes) each make a
    # whole feature.  The tree gets all of them as commits.
    first=$(series_patches 3.5.0 | grep -m1 '^json-inline/')
    want=$(series_patches 3.5.0 | wc -l)
    checkout 3.5.0 "$d"
    for k in $(series_patches 3.5.0 | sed "\|^$first\$|q"); do
        git -C "$d" am -q "$TOP/patches/3.5.0/$k"
    done
    bs apply --ovs-src "$d"
    n=$(git -C "$d" rev-list --count base/3.5.0..ovs-json-perf/3.5.0 2>/dev/null || echo 0)
    if [ "$RC" -eq 0 ] && [ "$n" -eq "$want" ] &&
       grep -qF "already present: the tree has the commit of $first" "$SCRATCH/err"; then
        pass "a git tree with the series up to $first as commits gets the rest"
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

# Upstream 4.0.0 has the inline storage: detect says so, and apply (when
# 4.0.0 has no series) applies nothing.
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

# The cases, in order; the closing line.
main() {
    t_every_patch_has_feature
    t_feature_table_read
    t_partial_series
    local b
    for b in 3.5.0 3.1.0 4.0.0; do
        if [ -s "$TOP/patches/$b/series" ]; then
            t_carried "$b"
        else
            echo "note: patches/$b has no series; no carried-series case for $b"
        fi
    done
    t_upstream_has_it
    summary
}

main "$@"
