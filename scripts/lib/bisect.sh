# Build every commit of a base's series in turn and run -k json at each:
# the series bisects.  Used by tests/run.sh (3.5.0, in CI) and by
# ./build.sh bisect (any base; writes a result file for ./build.sh report).
# Functions only: sourcing it runs nothing; it loads what it needs, and
# with verb.sh all that scripts/bisect.sh uses.
[ -z "${_ojp_lib_bisect:-}" ] || return 0
_ojp_lib_bisect=1
# shellcheck source=verb.sh
. "$(dirname "${BASH_SOURCE[0]}")/verb.sh"

# series_count_upto BASE DIR: the number of patches in patches/BASE/series
# up to and including those of the series DIR, or nothing if DIR is not one.
series_count_upto() {
    awk -v d="$2/" '{ n++ } index($0, d) == 1 { last = n } END { if (last) print last }' \
        "$TOP/patches/$1/series"
}

# bisect_series BASE [DIR]: build every commit of ovs-json-perf/BASE but the
# last (the main build builds that one) in a worktree of build/ovs-BASE, and
# run -k json at each.  With DIR, only the commits of the series up to and
# including patches/BASE/DIR/ (CI bisects the backport of 3.5.0 this way;
# ./build.sh bisect does every commit).  Fails when the branch is missing,
# has no commits, or a commit does not build or pass.  Its last line says
# how many commits were built and passed: "bisect: built and tested N
# commits".
bisect_series() {
    local base=$1 upto=${2:-} tree="$BUILD/ovs-$1" wt="$BUILD/test/bisect-$1" c n=0
    local commits branch="${BRANCH_PREFIX:-ovs-json-perf}/$base" k
    git -C "$tree" rev-parse -q --verify "refs/heads/$branch" >/dev/null || {
        echo "bisect: $tree has no branch $branch; nothing was applied"
        return 1
    }
    mapfile -t commits < <(git -C "$tree" rev-list --reverse "base/$base..$branch")
    if [ ${#commits[@]} -eq 0 ]; then
        echo "bisect: $branch has no commits on base/$base; nothing to build"
        return 1
    elif [ ${#commits[@]} -eq 1 ]; then
        echo "bisect: one patch; the main build built it"
        return 0
    fi
    # Every commit but the last; with DIR, the first K (all of them built
    # unless they reach the last).
    local todo=("${commits[@]:0:${#commits[@]}-1}")
    if [ -n "$upto" ]; then
        k=$(series_count_upto "$base" "$upto")
        [ -n "$k" ] || { echo "bisect: patches/$base/series has no series $upto"; return 1; }
        [ "$k" -ge "${#commits[@]}" ] || todo=("${commits[@]:0:$k}")
    fi
    local proven reused=0
    proven=$(proven_trees "$base")
    worktree_at "$tree" "$wt" "${commits[0]}"
    restore_packaging "$tree" "$wt" "$base"
    for c in "${todo[@]}"; do
        n=$((n + 1))
        stage "bisect $base: [$n/${#todo[@]}] $(git -C "$tree" log -1 --format=%s "$c")"
        if grep -qxF "$(git -C "$tree" rev-parse "$c^{tree}")" <<<"$proven"; then
            echo "bisect: commit $c has the tree of a commit that a committed bisect result built and passed; not built again"
            reused=$((reused + 1))
            continue
        fi
        git -C "$wt" checkout -q --detach "$c"
        if ! (build_tree "$wt" &&
              cd "$wt" && make check TESTSUITEFLAGS="-j$(nproc) -k json") >>"$LOG" 2>&1; then
            echo "bisect: commit $c of $base does not build or pass -k json"
            echo "bisect: built and tested $((n - 1)) commits"
            return 1
        fi
    done
    echo "bisect: built and tested $n commits"
    echo "bisect: $reused of them were built and passed before: a committed result has their trees"
    [ "$n" -gt 0 ]
}

# proven_trees BASE: the git tree of every commit that a committed bisect
# result of BASE (BISECT_RESULTS, default bench/results) built and passed,
# one per line: the first commits_built of its commit_trees.  A commit with
# one of these trees builds and passes as that one did.  Nothing if
# BISECT_FRESH is set.
proven_trees() {
    local dir=${BISECT_RESULTS:-$(results_dir records)} f
    [ -z "${BISECT_FRESH:-}" ] || return 0
    for f in "$dir/bisect-$1-"*.summary; do
        [ -f "$f" ] && grep -qx 'result=pass' "$f" || continue
        awk -F= '$1 == "commits_built" { n = $2 } $1 == "commit_trees" { t = $2 }
                 END { k = split(t, a, " "); for (i = 1; i <= n && i <= k; i++) print a[i] }' "$f"
    done | sort -u
}

# commit_trees GITDIR BASE REV: the git tree hash of every commit of REV
# on base/BASE, oldest first, on one line.  The same patch files applied to
# the same base give the same hashes on any machine.
commit_trees() {
    git -C "$1" log --reverse --format=%T "base/$2..$3" | tr '\n' ' ' | sed 's/ $//'
}

# bisect_result_for BASE: a committed bisect result (BISECT_RESULTS,
# default bench/results) that passed and was made for exactly the commits
# ovs-json-perf/BASE has now: the same tree at every commit.  Prints its
# path; fails if there is none, or if BISECT_FRESH is set.
bisect_result_for() {
    local base=$1 dir=${BISECT_RESULTS:-$(results_dir records)} want f
    [ -z "${BISECT_FRESH:-}" ] || return 1
    want=$(commit_trees "$BUILD/ovs-$base" "$base" "${BRANCH_PREFIX:-ovs-json-perf}/$base" 2>/dev/null) || return 1
    [ -n "$want" ] || return 1
    for f in "$dir/bisect-$base-"*.summary; do
        [ -f "$f" ] || continue
        if grep -qx 'result=pass' "$f" && grep -qxF "commit_trees=$want" "$f"; then
            echo "$f"
            return 0
        fi
    done
    return 1
}

# bisect_or_reuse BASE [DIR]: bisect_series, unless bisect_result_for finds
# a committed result for exactly these commits.  CI uses it: ./build.sh
# bisect is run and its result committed whenever a series changes, and CI
# checks that the result still matches.
bisect_or_reuse() {
    local f
    if f=$(bisect_result_for "$1"); then
        echo "bisect: $(basename "$f") was made for exactly these commits (the same tree at each); not built again (BISECT_FRESH=1 builds them)"
        return 0
    fi
    echo "bisect: no committed result matches the commits of $1; bisecting"
    bisect_series "$@"
}

# bisect_record BASE: bisect_series, and a result file
# bench/results/bisect-BASE-STAMP.summary for ./build.sh report.
bisect_record() {
    local base=$1 rc=0 stamp out said built reused
    stamp=$(date -u +%Y%m%dT%H%M%SZ)
    out="$(results_dir records)/bisect-$base-$stamp.summary"
    said=$(mktemp "${TMPDIR:-/tmp}/ovs-json-perf-bisect.XXXXXX")
    bisect_series "$base" | tee "$said" || rc=${PIPESTATUS[0]}
    built=$(sed -n 's/^bisect: built and tested \([0-9]*\) commits$/\1/p' "$said" | tail -n1)
    reused=$(sed -n 's/^bisect: \([0-9]*\) of them were built and passed before: .*/\1/p' "$said" | tail -n1)
    rm -f "$said"
    mkdir -p "$(dirname "$out")"
    cat >"$out" <<EOS
kind=bisect
base=$base
date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
series=$(git -C "$BUILD/ovs-$base" rev-parse "${BRANCH_PREFIX:-ovs-json-perf}/$base")
$(series_fields "$BUILD/ovs-$base" "$base" "${BRANCH_PREFIX:-ovs-json-perf}/$base")
commit_trees=$(commit_trees "$BUILD/ovs-$base" "$base" "${BRANCH_PREFIX:-ovs-json-perf}/$base")
commits_built=${built:-0}
commits_reused=${reused:-0}
result=$([ $rc -eq 0 ] && echo pass || echo FAIL)
check=make check TESTSUITEFLAGS=-k json at each commit, --enable-Werror
EOS
    stage "bisect: result in $out"
    [ $rc -eq 0 ] || die "the $base series does not bisect: see $LOG"
}
