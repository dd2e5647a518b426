# Working with an OVS tree: resolve, detect, apply, build, check, export,
# summarize.  Source after common.sh and fetch.sh.

BRANCH_PREFIX=ovs-json-perf

# The feature table and detection: scripts/lib/features.sh.
# shellcheck source=lib/features.sh
. "$TOP/scripts/lib/features.sh"

is_ovs_tree() {
    [ -f "$1/configure.ac" ] &&
        grep -q '^AC_INIT(openvswitch,' "$1/configure.ac" &&
        [ -f "$1/lib/json.c" ] && [ -f "$1/include/openvswitch/json.h" ]
}

tree_version() {
    sed -n 's/^AC_INIT(openvswitch, *\([0-9][0-9.]*\).*/\1/p' "$1/configure.ac" | head -n1
}

# The series a version takes: same major.minor as one of our bases.
series_base_for() {
    local v=$1 b
    for b in $SUPPORTED_BASES; do
        [ "${v%.*}" = "${b%.*}" ] && { echo "$b"; return 0; }
    done
    return 1
}

# Set TREE, SERIES_BASE and MANAGED from BASE / OVS_SRC.
resolve_tree() {
    if [ -n "$OVS_SRC" ]; then
        [ -e "$OVS_SRC" ] || die "$OVS_SRC: no such directory"
        [ -d "$OVS_SRC" ] || die "$OVS_SRC is a file, not a directory (--ovs-src takes the top directory of an OVS tree)"
        TREE=$(cd "$OVS_SRC" && pwd -P)
        MANAGED=0
        is_ovs_tree "$TREE" ||
            die "$TREE is not an Open vSwitch source tree (no configure.ac with AC_INIT(openvswitch, ...) and lib/json.c)"
    else
        is_supported_base "$BASE" ||
            die "unsupported base '$BASE' (supported: $SUPPORTED_BASES)"
        fetch_base "$BASE"
        TREE="$BUILD/ovs-$BASE"
        MANAGED=1
    fi
    TREE_VERSION=$(tree_version "$TREE")
    SERIES_BASE=$(series_base_for "$TREE_VERSION") ||
        die "unsupported OVS version '${TREE_VERSION:-unknown}' in $TREE (supported: ${SUPPORTED_BASES// /, }, and their x.y.z releases)"
    export TREE TREE_VERSION SERIES_BASE MANAGED
}

print_detection() {
    local dir=$1 f v
    echo "tree:    $dir"
    echo "version: $(tree_version "$dir") (series: patches/$(series_base_for "$(tree_version "$dir")"))"
    while read -r f v; do
        printf '  %-26s %-3s  %s\n' "$f" "$v" "$(feature_title "$f")"
    done < <(detect_features "$dir")
}

# series_to_apply TREE [REV]: the patch files of the series for SERIES_BASE
# that TREE (as at REV, if given) still needs.  Reports on stderr the ones
# whose change the tree already has.
series_to_apply() {
    local tree=$1 rev=${2:-} dir="$PATCHES/$SERIES_BASE" p f ids='' empty=''
    # A patch whose feature is finer than the detection (the first of two
    # patches that make one feature) is present if one of the tree's recent
    # commits has its patch-id, or, in a plain tree, if its changes are in
    # the files.  (Not at REV: the managed tree starts again from there.)
    if [ -n "$rev" ]; then
        :
    elif is_git_toplevel "$tree"; then
        ids=$(commit_patch_ids "$tree" -n 300 HEAD)
    else
        empty=$(mktemp -d "${TMPDIR:-/tmp}/ovs-json-perf-check.XXXXXX")
        git init -q "$empty"
    fi
    for p in $(series_patches "$SERIES_BASE"); do
        [ -f "$dir/$p" ] || die "patches/$SERIES_BASE/series names $p, which does not exist"
        f=$(patch_feature "$dir/$p")
        if [ "$f" != always ] && has_feature "$tree" "$f" "$rev"; then
            echo "  already present: $f ($(feature_title "$f")): skipping $p" >&2
            continue
        fi
        if [ -n "$ids" ] && grep -qxF "$(patch_id "$dir/$p")" <<<"$ids"; then
            echo "  already present: the tree has the commit of $p: skipping it" >&2
            continue
        fi
        if [ -n "$empty" ] && patch_in_plain_tree "$tree" "$dir/$p" "$empty"; then
            echo "  already present: the tree has the changes of $p: skipping it" >&2
            continue
        fi
        echo "$dir/$p"
    done
    [ -z "$empty" ] || rm -rf "$empty"
}

# patch_id PATCH: the stable patch-id of the patch file PATCH.
patch_id() {
    git patch-id --stable <"$1" | cut -d' ' -f1
}

# commit_patch_ids GITDIR LOG-ARGS...: the stable patch-ids of the commits
# that "git log LOG-ARGS" lists, one a line.
commit_patch_ids() {
    local dir=$1
    shift
    git -C "$dir" log -p --format='commit %H' "$@" 2>/dev/null |
        git -C "$dir" patch-id --stable | cut -d' ' -f1
}

# patch_in_plain_tree TREE PATCH EMPTY: PATCH does not apply to the files
# of TREE (not a git work tree), and undoing it does: TREE has its
# changes.  git looks at TREE's files through EMPTY, an empty repository
# of ours, so that a repository around TREE plays no part.
patch_in_plain_tree() {
    ! GIT_DIR="$3/.git" GIT_WORK_TREE="$1" git -C "$1" apply --check "$2" 2>/dev/null &&
        GIT_DIR="$3/.git" GIT_WORK_TREE="$1" git -C "$1" apply --check -R "$2" 2>/dev/null
}

# One hash of the patch files' names and contents.
series_digest() {
    local p
    for p in "$@"; do
        echo "$(basename "$p") $(sha256sum <"$p")"
    done | sha256sum | cut -d' ' -f1
}

git_tree() {
    git -C "$TREE" "$@"
}

is_git_toplevel() {
    local top
    top=$(git -C "$1" rev-parse --show-toplevel 2>/dev/null) || return 1
    [ "$(cd "$top" && pwd -P)" = "$1" ]
}

# git needs an identity for git am; use the user's, or ours.
git_identity_env() {
    git -C "$TREE" config user.name >/dev/null 2>&1 ||
        export GIT_COMMITTER_NAME="ovs-json-perf" GIT_AUTHOR_NAME="ovs-json-perf"
    git -C "$TREE" config user.email >/dev/null 2>&1 ||
        export GIT_COMMITTER_EMAIL="ovs-json-perf@localhost" GIT_AUTHOR_EMAIL="ovs-json-perf@localhost"
}

# Set TREE_KIND to "git" (the top of a git work tree) or "plain" (in no
# git repository).  Refuse what is neither: a repository git will not
# open, a tree inside another repository that tracks its files, and a
# repository with no commits.
tree_kind() {
    local tree=$1 top err
    err=$(git -C "$tree" rev-parse --show-toplevel 2>&1 >/dev/null) || true
    if ! top=$(git -C "$tree" rev-parse --show-toplevel 2>/dev/null); then
        if grep -q 'dubious ownership' <<<"$err"; then
            die "git refuses to open the repository of $tree (dubious ownership: it belongs to another user); if you trust it: $(grep -o 'git config --global --add safe.directory .*' <<<"$err" | head -n1 | sed 's/[[:space:]]*$//')"
        elif [ -e "$tree/.git" ] || ! grep -q 'not a git repository' <<<"$err"; then
            die "$tree: git cannot open its repository: $(head -n1 <<<"$err" | sed 's/^fatal: //')"
        fi
        TREE_KIND=plain
        return 0
    fi
    top=$(cd "$top" && pwd -P)
    if [ "$top" != "$tree" ]; then
        [ -z "$(git -C "$top" ls-files -- "$tree" | head -n1)" ] ||
            die "$tree is inside the git repository $top, which tracks its files; apply would change them on $top's current branch: apply to an OVS checkout of its own, or to a copy"
        TREE_KIND=plain
        return 0
    fi
    git -C "$tree" rev-parse -q --verify HEAD >/dev/null ||
        die "$tree is a git repository with no commits; commit the tree first (git add -A && git commit), or apply to a copy without .git"
    TREE_KIND=git
}

# Refuse a git tree we must not touch.
check_git_state() {
    local gd op=
    gd=$(git_tree rev-parse --absolute-git-dir)
    if [ -d "$gd/rebase-apply" ]; then
        op="git am or rebase"
    elif [ -d "$gd/rebase-merge" ]; then
        op="rebase"
    elif [ -f "$gd/MERGE_HEAD" ]; then
        op=merge
    elif [ -f "$gd/CHERRY_PICK_HEAD" ]; then
        op=cherry-pick
    elif [ -f "$gd/BISECT_START" ] || [ -f "$gd/BISECT_LOG" ]; then
        op="bisect (git bisect reset ends it)"
    fi
    [ -z "$op" ] || die "$TREE has a $op in progress; finish or abort it first"
    [ -z "$(git_tree ls-files -u | head -n1)" ] ||
        die "$TREE has unmerged files (a conflict left unresolved); resolve or reset them first, --force does not apply over them"
    if [ "$MANAGED" = 0 ] && [ "$FORCE" = 0 ] &&
       [ -n "$(git_tree status --porcelain --untracked-files=no)" ]; then
        die "$TREE has uncommitted changes; commit or stash them, or use --force"
    fi
}

# writable PATH: PATH is writable for us and its mode says so.  Root can
# write where the mode says nobody may, but a user who made a file or a
# directory read-only meant it for root too.
writable() {
    [ -w "$1" ] && [ -n "$(find "$1" -maxdepth 0 -perm -u=w)" ]
}

# check_writable TREE PATCH...: the tree, its repository, and every file
# and directory the patches change can be written.
check_writable() {
    local tree=$1 p path d gd
    shift
    writable "$tree" || die "$tree is not writable; make it writable first (chmod -R u+w)"
    if [ "$TREE_KIND" = git ]; then
        gd=$(git_tree rev-parse --absolute-git-dir)
        writable "$gd" || die "the repository $gd of $tree is not writable; make it writable first"
    fi
    for p in "$@"; do
        while read -r path; do
            if [ -e "$tree/$path" ] && ! writable "$tree/$path"; then
                die "$tree/$path is read-only and $(basename "$p") changes it; make it writable first (chmod u+w)"
            fi
            d=$(dirname "$path")
            while [ "$d" != . ] && [ ! -e "$tree/$d" ]; do d=$(dirname "$d"); done
            writable "$tree/$d" ||
                die "$tree/$d is read-only and $(basename "$p") changes files in it; make it writable first (chmod u+w)"
        done < <(sed -n 's|^diff --git a/\([^ ]*\) b/\([^ ]*\)$|\1\n\2|p' "$p" | sort -u)
    done
}

# branch_is_series TIP: every commit on base/SERIES_BASE..TIP has the
# patch-id of a patch of patches/SERIES_BASE.
branch_is_series() {
    local ours p
    ours=$(for p in $(series_patches "$SERIES_BASE"); do
               patch_id "$PATCHES/$SERIES_BASE/$p"
           done | sort -u)
    ! commit_patch_ids "$TREE" "base/$SERIES_BASE..$1" | sort -u |
        comm -23 - <(echo "$ours") | grep -q .
}

# The re-applied managed tree build/ovs-<base> must not lose work: edits
# not committed, or commits on its branch that neither apply made nor
# export wrote out.  --force discards them.
check_managed_work() {
    local new=$1 tip rec n
    if [ -n "$(git_tree status --porcelain --untracked-files=no)" ]; then
        [ "$FORCE" = 1 ] ||
            die "$TREE has uncommitted changes that re-applying patches/$SERIES_BASE would discard; keep them (git -C $TREE stash, or commit them and ./build.sh export --base $SERIES_BASE), or use --force to discard them"
        stage "apply: --force: discarding the uncommitted changes in $TREE"
        git_tree reset -q --hard
    fi
    tip=$(git_tree rev-parse -q --verify "refs/heads/$new") || return 0
    # The branch is ours as apply or export left it: its tip is the one
    # they recorded.  Any commit since (git am, commit, rebase) is work.
    local recorded=0 r
    for rec in applied exported; do
        r=$(git_tree config "ovs-json-perf.$SERIES_BASE.$rec" 2>/dev/null) || continue
        recorded=1
        [ "$tip" != "$r" ] || return 0
    done
    # No record (an apply older than the records): it is ours if every
    # commit on it is a patch of the series, by patch-id.
    [ "$recorded" = 1 ] || ! branch_is_series "$tip" || return 0
    [ "$FORCE" = 0 ] || return 0
    n=$(git_tree rev-list --count "base/$SERIES_BASE..$tip")
    die "$TREE's branch $new ($n commits on base/$SERIES_BASE) has commits that ./build.sh export has not written to patches/$SERIES_BASE; keep them with ./build.sh export --base $SERIES_BASE (or git -C $TREE branch my-work $new), or use --force to discard them"
}

# State to restore if apply fails or is interrupted.
APPLY_BRANCH=       # the branch apply creates; set while the tree may change
APPLY_ORIG=         # the user's HEAD: a branch name, or a commit if detached
APPLY_ORIG_SHA=     # its commit
APPLY_OLD_SHA=      # the commit of an existing branch apply replaces
APPLY_OLD_CFG=      # that branch's config (branch.<name>.*)
APPLY_GITDIR=       # a plain tree's temporary repository
APPLY_WORK=         # fingerprints
APPLY_KEEP=0        # keep the temporary repository: the commands use it
APPLY_PREV_EXIT=    # the EXIT trap before apply set its own

# Take the fingerprint of the tree as it is, before apply changes it.
guard_begin() {
    APPLY_WORK=$(mktemp -d "${TMPDIR:-/tmp}/ovs-json-perf-guard.XXXXXX")
    tree_manifest "$TREE" "$TREE_KIND" >"$APPLY_WORK/before"
    APPLY_PREV_EXIT=$(trap -p EXIT)
    trap on_interrupt INT TERM HUP
    trap on_exit EXIT
}

# git rollback: the tree's files back at the user's commit, HEAD and the
# branches as they were.
rollback_git() {
    local st path
    [ ! -d "$(git_tree rev-parse --absolute-git-dir)/rebase-apply" ] ||
        git_tree am --abort >/dev/null 2>&1 || true
    git_tree checkout -q --detach "$APPLY_ORIG_SHA" >/dev/null 2>&1 || true
    git_tree branch -q -D "$APPLY_BRANCH" >/dev/null 2>&1 || true
    if [ -n "$APPLY_OLD_SHA" ]; then
        git_tree branch -q "$APPLY_BRANCH" "$APPLY_OLD_SHA" >/dev/null 2>&1 || true
        while read -r st path; do
            [ -z "$st" ] || git_tree config --add "$st" "$path" || true
        done <<<"$APPLY_OLD_CFG"
    fi
    [ "$APPLY_ORIG" = "$APPLY_ORIG_SHA" ] ||
        git_tree symbolic-ref HEAD "refs/heads/$APPLY_ORIG" || true
    # Files a partly applied patch left behind: those not dirty before.
    while IFS= read -r -d '' st; do
        path=${st:3}
        grep -qxF "status ${st:0:2} $path" "$APPLY_WORK/before" && continue
        if git_tree cat-file -e "$APPLY_ORIG_SHA:$path" 2>/dev/null; then
            git_tree checkout -q "$APPLY_ORIG_SHA" -- "$path" 2>/dev/null || true
        else
            rm -f -- "$TREE/$path" 2>/dev/null || true
        fi
    done < <(git_tree status --porcelain -z --untracked-files=all 2>/dev/null)
}

# Undo apply.  Returns 0 if the fingerprint matches the one taken before;
# otherwise prints what differs and the commands that restore the tree.
apply_rollback() {
    trap - INT TERM HUP
    [ -n "$APPLY_BRANCH" ] || return 0
    echo "rolling back: restoring $APPLY_ORIG" >&2 || true
    if [ -n "$APPLY_GITDIR" ]; then
        git am --abort >/dev/null 2>&1 || true
        git reset -q --hard "$APPLY_ORIG" >/dev/null 2>&1 || true
    else
        rollback_git
    fi
    restore_modes "$TREE" "$APPLY_WORK/before"
    APPLY_BRANCH=
    tree_manifest "$TREE" "$TREE_KIND" >"$APPLY_WORK/now" 2>/dev/null || true
    cmp -s "$APPLY_WORK/before" "$APPLY_WORK/now" && return 0
    [ -z "$APPLY_GITDIR" ] || APPLY_KEEP=1
    {
        echo "the rollback could not restore $TREE; it differs from before in:"
        manifest_diff "$APPLY_WORK/before" "$APPLY_WORK/now" | head -n 20 | sed 's/^/  /'
        echo "these commands restore it:"
        if [ -n "$APPLY_GITDIR" ]; then
            GIT_ENV="GIT_DIR=$(printf '%q' "$APPLY_GITDIR") GIT_WORK_TREE=." \
                restore_commands "$TREE" plain "$APPLY_WORK/before" "$APPLY_WORK/now" "$APPLY_ORIG"
            echo "rm -rf -- $(printf '%q' "$APPLY_GITDIR")"
        else
            restore_commands "$TREE" git "$APPLY_WORK/before" "$APPLY_WORK/now" "$APPLY_ORIG_SHA"
        fi | sed 's/^/    /'
    } >&2 || true
    return 1
}

# apply_fail WHAT: roll back, and say whether the tree is as it was.
apply_fail() {
    if apply_rollback; then
        die "$1; the tree is back as it was${LOG:+ (details in $LOG)}"
    fi
    die "$1; the tree could not be restored: run the commands above${LOG:+ (details in $LOG)}"
}

on_interrupt() {
    echo >&2 || true
    apply_fail "interrupted"
}

# On any exit: finish a rollback that did not happen (an error, a closed
# terminal) and remove the temporary files.
on_exit() {
    local rc=$?
    trap - EXIT INT TERM HUP
    [ -z "$APPLY_BRANCH" ] || apply_rollback || true
    cleanup_plain_git
    [ -z "$APPLY_WORK" ] || rm -rf "$APPLY_WORK"
    APPLY_WORK=
    exit "$rc"
}

# For a plain directory: a temporary git repository outside it.
setup_plain_git() {
    APPLY_GITDIR=$(mktemp -d "${TMPDIR:-/tmp}/ovs-json-perf-git.XXXXXX")
    export GIT_DIR="$APPLY_GITDIR" GIT_WORK_TREE="$TREE"
    git init -q
    git config core.excludesFile /dev/null
    git add -A -f .
    git -c user.name=ovs-json-perf -c user.email=ovs-json-perf@localhost \
        commit -q -m "tree as found"
}

cleanup_plain_git() {
    [ -n "$APPLY_GITDIR" ] || return 0
    unset GIT_DIR GIT_WORK_TREE
    [ "$APPLY_KEEP" = 1 ] || rm -rf "$APPLY_GITDIR"
    APPLY_GITDIR=
}

# lock_tree TREE: one apply at a time on TREE.  An flock on a file under
# build/locks/ named after TREE's path, held until this process ends; a
# second apply on the same tree refuses at once, before it looks at it.
lock_tree() {
    local f
    mkdir -p "$BUILD/locks"
    f="$BUILD/locks/$(printf '%s' "$1" | sha256sum | cut -c1-16).lock"
    exec {TREE_LOCK_FD}>>"$f" || die "cannot open the lock file $f"
    flock -n "$TREE_LOCK_FD" ||
        die "another ./build.sh is applying the series to $1 (it holds $f); wait until it ends, then run this again"
}

apply_series() {
    local tree=$1 patches=() p n=0 new
    lock_tree "$tree"
    stage "apply: $tree is OVS $TREE_VERSION; series patches/$SERIES_BASE"
    tree_kind "$tree"
    if [ "$TREE_KIND" = git ]; then
        [ "$MANAGED" = 0 ] || [ "$FORCE" = 0 ] || git_tree am --abort >/dev/null 2>&1 || true
        check_git_state
    fi
    # Our own tree is re-applied from its base commit, whatever its work
    # tree holds now (an earlier apply of the series, say).
    local at=
    [ "$MANAGED" = 0 ] || at="base/$SERIES_BASE"
    mapfile -t patches < <(series_to_apply "$tree" "$at")
    if [ ${#patches[@]} -eq 0 ]; then
        if [ -z "$(series_patches "$SERIES_BASE")" ]; then
            stage "apply: nothing to apply; patches/$SERIES_BASE has no series"
        else
            stage "apply: nothing to apply; the tree already has every change of the series"
        fi
        APPLIED_PATCHES=()
        return 0
    fi
    check_writable "$tree" "${patches[@]}"
    new="$BRANCH_PREFIX/$SERIES_BASE"
    if [ "$TREE_KIND" = git ]; then
        if [ "$MANAGED" = 1 ]; then
            if [ "$(git_tree symbolic-ref -q --short HEAD)" = "$new" ] &&
               [ "$(git_tree config "ovs-json-perf.$SERIES_BASE.series" 2>/dev/null)" = "$(series_digest "${patches[@]}")" ]; then
                stage "apply: $tree already has this series on $new"
                APPLIED_PATCHES=("${patches[@]}")
                return 0
            fi
            check_managed_work "$new"
        elif git_tree rev-parse -q --verify "refs/heads/$new" >/dev/null; then
            [ "$(git_tree symbolic-ref -q --short HEAD)" != "$new" ] ||
                die "$tree is on branch $new already; check out the branch to apply on first"
            [ "$FORCE" = 1 ] ||
                die "$tree already has a branch $new; delete it or use --force to replace it"
        fi
    fi
    # From here on the tree changes: any failure, interrupt or exit rolls
    # it back to this fingerprint.
    guard_begin
    if [ "$TREE_KIND" = git ]; then
        APPLY_ORIG_SHA=$(git_tree rev-parse HEAD)
        APPLY_ORIG=$(git_tree symbolic-ref -q --short HEAD || echo "$APPLY_ORIG_SHA")
        APPLY_OLD_SHA=$(git_tree rev-parse -q --verify "refs/heads/$new" || true)
        APPLY_OLD_CFG=$(git_tree config --get-regexp "^branch\.${new//./\\.}\." || true)
        APPLY_BRANCH=$new
        if [ "$MANAGED" = 1 ]; then
            # Our own tree: start again from the base commit.  Untracked
            # files (the build system ./boot.sh regenerated) carry over.
            git_tree checkout -q --detach "base/$SERIES_BASE" ||
                apply_fail "cannot check out base/$SERIES_BASE in $tree"
        fi
        [ -z "$APPLY_OLD_SHA" ] || git_tree branch -q -D "$new" ||
            apply_fail "cannot delete the old branch $new in $tree"
    else
        setup_plain_git
        APPLY_ORIG=$(git rev-parse HEAD)
        APPLY_ORIG_SHA=$APPLY_ORIG
        APPLY_BRANCH=$new
    fi
    git_identity_env
    local fork
    fork=$(git_tree rev-parse HEAD)
    git_tree checkout -q -b "$new" || apply_fail "cannot create the branch $new in $tree"
    for p in "${patches[@]}"; do
        n=$((n + 1))
        stage "apply: [$n/${#patches[@]}] $(basename "$p")"
        run git -C "$tree" am -q "$p" ||
            apply_fail "$(basename "$p") does not apply to $tree"
        [ -z "${OVS_JSON_PERF_APPLY_DELAY:-}" ] || sleep "$OVS_JSON_PERF_APPLY_DELAY"
    done
    # Every patch is in.  What is left (file modes, records, the temporary
    # repository) takes a moment and must not be cut short: it ignores
    # signals, and so do the programs it runs.  The line at the end says
    # what the tree holds.
    trap '' INT TERM HUP
    stage "apply: finishing"
    [ -z "${OVS_JSON_PERF_FINISH_DELAY:-}" ] || sleep "$OVS_JSON_PERF_FINISH_DELAY"
    APPLY_BRANCH=
    APPLIED_PATCHES=("${patches[@]}")
    if [ "$MANAGED" = 1 ]; then
        git_tree config "ovs-json-perf.$SERIES_BASE.series" "$(series_digest "${patches[@]}")"
        git_tree config "ovs-json-perf.$SERIES_BASE.applied" "$(git_tree rev-parse HEAD)"
    fi
    if [ -n "$APPLY_GITDIR" ]; then
        restore_modes "$tree" "$APPLY_WORK/before"
        cleanup_plain_git
        stage "apply: ${#patches[@]} patches applied in place to the plain tree $tree"
    else
        git_tree config "ovs-json-perf.$SERIES_BASE.base" "$fork"
        stage "apply: ${#patches[@]} patches applied on branch $new (was on $APPLY_ORIG)"
    fi
    rm -rf "$APPLY_WORK"
    APPLY_WORK=
    trap - INT TERM HUP
    # The caller's EXIT trap, if it had one.
    eval "${APPLY_PREV_EXIT:-trap - EXIT}"
}

# configure was made by this machine's autoconf, or needs ./boot.sh.
needs_boot() {
    local ours
    ours=$(autoconf --version | sed -n '1s/.* //p')
    ! head -n 5 "$1/configure" 2>/dev/null | grep -q "Generated by GNU Autoconf $ours"
}

CONFIGURE_ARGS=(--enable-Werror "PYTHON3=$PYTHON3" "CC=ccache gcc")

build_tree() {
    local tree=$1
    need_build_deps
    set_ovs_gcc "$tree"
    CONFIGURE_ARGS=(--enable-Werror "PYTHON3=$PYTHON3" "CC=ccache $OVS_GCC")
    use_ccache
    if needs_boot "$tree"; then
        stage "build: ./boot.sh (regenerate the build system with local autotools)"
        (cd "$tree" && run ./boot.sh) || die "boot.sh failed in $tree"
    fi
    local want="${CONFIGURE_ARGS[*]}"
    if [ ! -f "$tree/Makefile" ] || [ "$(cat "$tree/.ovs-json-perf-configure" 2>/dev/null)" != "$want" ] ||
       [ "$tree/configure" -nt "$tree/config.status" ]; then
        stage "build: ./configure ${CONFIGURE_ARGS[*]}"
        (cd "$tree" && run ./configure "${CONFIGURE_ARGS[@]}") || die "configure failed in $tree"
        echo "$want" >"$tree/.ovs-json-perf-configure"
    fi
    stage "build: make -j$(nproc)"
    (cd "$tree" && run make -j"$(nproc)") || die "make failed in $tree"
    stage "build: done"
}

# Title of the one full-suite test that dials a non-loopback address.
OFFNET_TEST_TITLE="ofproto - hidden rules not in table stats"

# With no -k/-n selection, select every test but the off-net one, by title.
check_flags_default() {
    echo "-j$(nproc) -k json -k ovsdb -k monitor -k library"
}

full_suite_flags() {
    local tree=$1 num total
    num=$(cd "$tree/tests" && ./testsuite -l | awk -v t="$OFFNET_TEST_TITLE" \
        'index($0, t) { print $1; exit }' | tr -d ':')
    total=$(cd "$tree/tests" && ./testsuite -l | awk '$1 ~ /^[0-9]+:$/ { n = $1 } END { print n + 0 }')
    [ -n "$num" ] || { echo "1-$total"; return; }
    echo "1-$((num - 1)) $((num + 1))-$total"
}

check_tree() {
    local tree=$1
    shift
    local flags="$*"
    [ -f "$tree/Makefile" ] || die "$tree is not built; run ./build.sh build first"
    [ -n "$flags" ] || flags=$(check_flags_default)
    if [ "$flags" = full ] || [ "$flags" = "-j$(nproc) full" ]; then
        flags="-j$(nproc) $(full_suite_flags "$tree")"
        stage "check: full suite without \"$OFFNET_TEST_TITLE\""
    fi
    stage "check: make check TESTSUITEFLAGS='$flags' in $tree"
    local rc=0
    (cd "$tree" && run make check TESTSUITEFLAGS="$flags") || rc=$?
    local tlog="$tree/tests/testsuite.log"
    if [ -f "$tlog" ]; then
        grep -E '^[0-9]+ tests? (were successful|was successful|behaved as expected)|^ERROR: |tests? (failed|were skipped)' "$tlog" | head -n 5 || true
        sed -n '/^## Summary of the failures/,/^## Detailed/p' "$tlog" | grep -E '^ *[0-9]+:' || true
    fi
    [ $rc -eq 0 ] || die "make check failed in $tree (log $LOG, testsuite log $tlog)"
    # A selection that matches no test checks nothing: a typo in a keyword
    # must not pass.
    ! grep -qE '^(All )?0 tests (were successful|behaved as expected)' "$tlog" ||
        die "check: TESTSUITEFLAGS='$flags' selected no test in $tree"
    stage "check: passed"
}

# sizeof(struct json) as the tree's headers and compiler see it.
json_sizeof() {
    local tree=$1 out
    out=$(mktemp "${TMPDIR:-/tmp}/jsonsize.XXXXXX")
    printf '#include <config.h>\n#include <stdio.h>\n#include "openvswitch/json.h"\nint main(void) { printf("%%zu\\n", sizeof(struct json)); return 0; }\n' |
        cc -x c -I"$tree" -I"$tree/include" -I"$tree/lib" -o "$out" - 2>/dev/null &&
        "$out"
    rm -f "$out"
}

print_summary() {
    local tree=$1 before=$2 after f b a
    after=$(detect_features "$tree")
    echo
    echo "=== ovs-json-perf summary ==="
    echo "base:            OVS $TREE_VERSION (series patches/$SERIES_BASE)"
    if [ ${#APPLIED_PATCHES[@]} -gt 0 ]; then
        echo "patches applied: ${#APPLIED_PATCHES[@]}"
        for f in "${APPLIED_PATCHES[@]}"; do echo "  $(basename "$f")"; done
    else
        echo "patches applied: none (nothing to apply)"
    fi
    echo "features:        before -> after"
    for f in $(feature_names); do
        b=$(awk -v f="$f" '$1 == f { print $2 }' <<<"$before")
        a=$(awk -v f="$f" '$1 == f { print $2 }' <<<"$after")
        printf '  %-26s %-3s -> %-3s\n' "$f" "$b" "$a"
    done
    echo "sizeof(struct json): $(json_sizeof "$tree" || echo unknown) bytes"
    echo "tree:            $tree"
    if is_git_toplevel "$tree"; then
        echo "branch:          $(git_tree symbolic-ref -q --short HEAD || git_tree rev-parse --short HEAD)"
    fi
    echo "log:             $LOG"
}

# format-patch folds long From: and Subject: headers; checkpatch.py then
# does not match the author against the Signed-off-by.  Unfold them.
unfold_headers() {
    awk 'hdr_done { print; next }
         /^$/ { if (held != "") print held; held = ""; hdr_done = 1; print; next }
         /^[ \t]/ && held != "" { sub(/^[ \t]+/, " "); held = held $0; next }
         { if (held != "") print held; held = $0 }
         END { if (held != "") print held }' "$1" >"$1.tmp"
    mv "$1.tmp" "$1"
}

# The series directory and subject of each patch patches/<base>/series
# lists, as "DIR<TAB>SUBJECT" lines in series order.  DIR is "." for a
# patch at the top of patches/<base>/.
series_subjects() {
    local p dir
    for p in $(series_patches "$1"); do
        dir=$(dirname "$p")
        printf '%s\t%s\n' "$dir" "$(patch_subject "$PATCHES/$1/$p")"
    done
}

# patch_subject FILE: the subject of a patch file, without its "[PATCH n/m]"
# prefix, with a header that format-patch folded unfolded.
patch_subject() {
    awk '/^Subject: / { s = $0; on = 1; next }
         on && /^[ \t]/ { sub(/^[ \t]+/, " "); s = s $0; next }
         on { exit }
         END { sub(/^Subject: (\[PATCH[^]]*\] *)?/, "", s); print s }' "$1"
}

# cover_subject FILE and cover_body FILE: the subject and the text of a
# cover letter, to carry over to its regenerated version.
cover_subject() {
    awk '/^Subject: / { s = $0; on = 1; next }
         on && /^[ \t]/ { s = s $0; next }
         on { exit }
         END { sub(/^Subject: \[PATCH[^]]*\] */, "", s); print s }' "$1"
}
# The text ends before the shortlog: the last line "Author (N):" that a
# line indented by two spaces follows (a line of the text may end in
# "(N):" too).
cover_body() {
    awk 'NR > 1 && /^$/ && !hdr_done { hdr_done = 1; next }
         hdr_done { l[++n] = $0 }
         END {
             end = n + 1
             for (i = 1; i < n; i++)
                 if (l[i] ~ /^[^ ].* \([0-9]+\):$/ && l[i + 1] ~ /^  [^ ]/)
                     end = i
             for (i = 1; i < end; i++) print l[i]
         }' "$1"
}

# export_one_series TREE DIR FIRST LAST: write the commits FIRST..LAST (both
# included) of TREE to DIR with git format-patch and a cover letter that
# keeps DIR's current cover letter's subject and text.
export_one_series() {
    local tree=$1 out=$2 first=$3 last=$4 subject= body= branch
    # format-patch takes the cover letter's text from the description of
    # the branch it formats: a temporary one that ends at LAST.
    branch="$BRANCH_PREFIX-export/$SERIES_BASE"
    git -C "$tree" branch -f "$branch" "$last"
    mkdir -p "$out"
    if [ -f "$out/0000-cover-letter.patch" ]; then
        subject=$(cover_subject "$out/0000-cover-letter.patch")
        body=$(cover_body "$out/0000-cover-letter.patch")
    fi
    [ -n "$subject" ] || subject="$(git -C "$tree" log -1 --format=%s "$first")"
    git -C "$tree" config "branch.$branch.description" "$subject

$body"
    find "$out" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' -delete
    local name email
    name=${EXPORT_IDENT%% <*}
    email=${EXPORT_IDENT#*<}
    email=${email%%>*}
    run git -C "$tree" -c user.name="$name" -c user.email="$email" \
        format-patch -q --signoff --cover-letter --cover-from-description=subject \
        -o "$out" "$first^..$branch" || die "format-patch failed"
    git -C "$tree" branch -q -D "$branch"
    local f
    for f in "$out"/[0-9][0-9][0-9][0-9]-*.patch; do
        unfold_headers "$f"
    done
    stage "export: $(basename "$out"): $(git -C "$tree" rev-list --count "$first^..$last") patches and a cover letter"
}

# Regenerate patches/<base>/ from the tree's branch.  A base may carry
# several series, each in its own directory with its own cover letter
# (patches/<base>/series lists "DIR/NNNN-....patch").  Each commit goes to
# the series whose patch has its subject; a commit with a new subject joins
# the series of the commit before it.
# export_ident: sets EXPORT_IDENT, "Name <email>", from the user's git
# identity (config, or GIT_COMMITTER_NAME/EMAIL); none is an error.  The
# patches' Signed-off-by: comes from it, never from a made-up identity.
export_ident() {
    EXPORT_IDENT=$(git -C "$TOP" -c user.useConfigOnly=true var GIT_COMMITTER_IDENT 2>/dev/null) ||
        die "export: no git identity: set git config user.name and user.email (Signed-off-by: comes from them)"
    EXPORT_IDENT=${EXPORT_IDENT%>*}'>'
}

export_series() {
    local tree=$1 branch="$BRANCH_PREFIX/$SERIES_BASE" base out
    export_ident
    
    out="$PATCHES/$SERIES_BASE"
    is_git_toplevel "$tree" || die "export needs a git tree; $tree is not one"
    git_tree rev-parse -q --verify "refs/heads/$branch" >/dev/null ||
        die "$tree has no branch $branch; run ./build.sh apply first"
    base=$(git_tree config "ovs-json-perf.$SERIES_BASE.base" 2>/dev/null ||
           git_tree rev-parse "base/$SERIES_BASE")
    local -A dir_of=()
    local dir subj c
    while IFS=$'\t' read -r dir subj; do
        dir_of[$subj]=$dir
    done < <(series_subjects "$SERIES_BASE")
    local commits=() dirs=() cur=
    mapfile -t commits < <(git_tree rev-list --reverse "$base..$branch")
    [ ${#commits[@]} -gt 0 ] || die "$branch has no commits on top of $base"
    for c in "${commits[@]}"; do
        subj=$(git_tree log -1 --format=%s "$c")
        cur=${dir_of[$subj]:-${cur:-$(series_subjects "$SERIES_BASE" | head -n1 | cut -f1)}}
        dirs+=("${cur:-.}")
    done
    stage "export: git format-patch $base..$branch -> $out"
    mkdir -p "$out"
    local i=0 first series=()
    while [ $i -lt ${#commits[@]} ]; do
        first=$i
        while [ $((i + 1)) -lt ${#commits[@]} ] && [ "${dirs[$((i + 1))]}" = "${dirs[$first]}" ]; do
            i=$((i + 1))
        done
        export_one_series "$tree" "$out/${dirs[$first]}" "${commits[$first]}" "${commits[$i]}"
        local f
        for f in "$out/${dirs[$first]}"/[0-9][0-9][0-9][0-9]-*.patch; do
            case $(basename "$f") in
            0000-*) ;;
            *) series+=("${dirs[$first]}/$(basename "$f")") ;;
            esac
        done
        i=$((i + 1))
    done
    printf '%s\n' "${series[@]#./}" >"$out/series"
    stage "export: $(wc -l <"$out/series") patches in $out/series"
}
