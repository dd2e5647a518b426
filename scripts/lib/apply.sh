# Applying a series to a user's tree without losing anything: the checks
# that refuse a tree apply must not touch, a lock per tree, the apply
# itself, and the guard around it: a fingerprint of all that apply may
# change, taken before, compared after a rollback, and the exact commands
# that finish a rollback that could not.
# Functions only: sourcing it runs nothing; it loads what it needs.
[ -z "${_ojp_lib_apply:-}" ] || return 0
_ojp_lib_apply=1
# shellcheck source=tree.sh
. "$(dirname "${BASH_SOURCE[0]}")/tree.sh"

# tree_manifest DIR KIND: one sorted line per fact of DIR, KIND "git" (a
# git work tree at its top) or "plain".  Branch, HEAD, refs, index, the
# repository's own config, status, in-progress operations, and the mode
# and contents of every file (for git: tracked and untracked, not ignored)
# and the mode of every directory.
tree_manifest() {
    local dir=$1 kind=$2
    (
        cd "$dir" || exit 1
        if [ "$kind" = git ]; then
            git_facts
            git ls-files -z -c -o --exclude-standard | sort -zu >"$APPLY_WORK/files"
        else
            find . \( -type f -o -type l \) -printf '%P\0' | sort -z >"$APPLY_WORK/files"
        fi
        xargs -0 -r stat -c 'mode %a %n' -- <"$APPLY_WORK/files" 2>/dev/null || true
        xargs -0 -r sha256sum -- <"$APPLY_WORK/files" 2>/dev/null | sed 's/^/sum /' || true
        find . -name .git -prune -o -type d -printf 'dir %m %P\n' | sed 's/^\(dir [0-7]*\) $/\1 ./'
    ) | LC_ALL=C sort
}

# git_facts: in a git work tree, what git knows of it.
git_facts() {
    local gd f
    echo "head $(git symbolic-ref -q HEAD || echo detached) $(git rev-parse -q --verify HEAD || echo none)"
    git for-each-ref --format='ref %(refname) %(objectname)'
    git ls-files -s | sed 's/^/index /'
    git config --local --list 2>/dev/null | sed 's/^/config /'
    git status --porcelain --untracked-files=all | sed 's/^/status /'
    gd=$(git rev-parse --absolute-git-dir)
    for f in rebase-apply rebase-merge MERGE_HEAD CHERRY_PICK_HEAD BISECT_LOG BISECT_START; do
        [ ! -e "$gd/$f" ] || echo "state $f"
    done
}

# manifest_modes MANIFEST: "MODE PATH" of every file and directory.
manifest_modes() {
    sed -n 's/^mode \([0-7]*\) /\1 /p; s/^dir \([0-7]*\) /\1 /p' "$1"
}

# restore_modes DIR MANIFEST: give every file and directory of DIR that
# MANIFEST lists the mode it had there.  A file apply rewrote gets git's
# mode (644 or 755, less the umask); its own mode comes back unless the
# patch changed the executable bit on purpose.
restore_modes() {
    local dir=$1 manifest=$2 mode path now
    while read -r mode path; do
        if [ ! -e "$dir/$path" ] || [ -L "$dir/$path" ]; then continue; fi
        now=$(stat -c %a "$dir/$path")
        [ "$now" != "$mode" ] || continue
        [ $(( (8#$now ^ 8#$mode) & 8#100 )) -eq 0 ] || [ -d "$dir/$path" ] || continue
        chmod "$mode" "$dir/$path" 2>/dev/null || true
    done < <(manifest_modes "$manifest")
}

# manifest_diff BEFORE NOW: what differs, one line each ("contents PATH",
# "mode PATH", "index PATH", or the fact itself: head, ref, config, ...).
manifest_diff() {
    diff "$1" "$2" | awk '
        !/^[<>] / { next }
        { $1 = "" }
        $2 == "sum" { $2 = "contents"; $3 = "" }
        $2 == "mode" || $2 == "dir" { $2 = "mode"; $3 = "" }
        $2 == "index" { $2 = "index"; $3 = ""; $4 = ""; $5 = "" }
        { line = $0; gsub(/  +/, " ", line); sub(/^ +/, "", line); print line }' |
        LC_ALL=C sort -u
}

# load_manifest MANIFEST PREFIX: fill the associative arrays PREFIX_SUM,
# PREFIX_MODE (files) and PREFIX_DIR (directory modes), keyed by path.
load_manifest() {
    local -n sums=${2}_SUM modes=${2}_MODE dirs=${2}_DIR
    local tag a b
    # shellcheck disable=SC2034,SC2004  # namerefs to associative arrays
    while read -r tag a b; do
        case $tag in
        sum) sums[$b]=$a ;;
        mode) modes[$b]=$a ;;
        dir) dirs[$b]=$a ;;
        esac
    done <"$1"
}

# restore_commands DIR KIND BEFORE NOW ORIG: the commands that turn DIR
# from manifest NOW back into manifest BEFORE.  ORIG is the commit whose
# files are the ones before (git: the user's HEAD; plain: the temporary
# repository's commit of the tree as found).  GIT_ENV, when set, goes in
# front of the git commands (the plain tree's temporary repository).
restore_commands() {
    local dir=$1 kind=$2 before=$3 now=$4 orig=$5 genv=${GIT_ENV:-} p d
    local -A B_SUM=() B_MODE=() B_DIR=() N_SUM=() N_MODE=() N_DIR=() locked=()
    load_manifest "$before" B
    load_manifest "$now" N
    local changed=()
    for p in "${!B_SUM[@]}"; do
        [ "${N_SUM[$p]:-}" = "${B_SUM[$p]}" ] || changed+=("$p")
    done
    for p in "${!N_SUM[@]}"; do
        [ -n "${B_SUM[$p]:-}" ] || changed+=("$p")
    done
    mapfile -t changed < <(printf '%s\n' "${changed[@]}" | sed '/^$/d' | LC_ALL=C sort)
    echo "cd $(printf '%q' "$dir")"
    # Directories that must be writable for the commands on files.
    for p in "${changed[@]}"; do
        d=$(dirname "$p")
        while [ "$d" != . ] && [ ! -d "$dir/$d" ]; do d=$(dirname "$d"); done
        [ -w "$dir/$d" ] || locked[$d]=1
    done
    for d in "${!locked[@]}"; do
        echo "chmod u+w -- $(printf '%q' "$d")"
    done
    [ "$kind" != git ] || restore_git_commands "$before" "$now"
    for p in "${changed[@]}"; do
        if [ -n "${B_SUM[$p]:-}" ]; then
            echo "${genv:+$genv }git checkout $orig -- $(printf '%q' "$p")"
        else
            echo "rm -f -- $(printf '%q' "$p")"
        fi
    done
    while read -r p; do
        [ -n "${B_DIR[$p]:-}" ] || echo "rmdir -- $(printf '%q' "$p")"
    done < <(printf '%s\n' "${!N_DIR[@]}" | LC_ALL=C sort -r)
    # Modes last, also those of the directories made writable above.
    for p in "${!B_MODE[@]}"; do
        [ "${N_MODE[$p]:-}" = "${B_MODE[$p]}" ] ||
            echo "chmod ${B_MODE[$p]} -- $(printf '%q' "$p")"
    done
    for p in "${!B_DIR[@]}"; do
        [ "${N_DIR[$p]:-}" = "${B_DIR[$p]}" ] && [ -z "${locked[$p]:-}" ] ||
            echo "chmod ${B_DIR[$p]} -- $(printf '%q' "$p")"
    done
}

# restore_git_commands BEFORE NOW: git's part: an am to abort, HEAD and
# the branches apply created, deleted or moved, and their config.
restore_git_commands() {
    local before=$1 now=$2 bhead nhead r sha line key
    bhead=$(sed -n 's/^head //p' "$before")
    nhead=$(sed -n 's/^head //p' "$now")
    ! grep -qx 'state rebase-apply' "$now" || echo "git am --abort"
    if [ "$bhead" != "$nhead" ] ||
       ! diff -q <(grep '^ref ' "$before") <(grep '^ref ' "$now") >/dev/null; then
        echo "git checkout -q --detach ${bhead#* }"
        while read -r _ r _; do
            grep -q "^ref $r " "$before" || echo "git update-ref -d $(printf '%q' "$r")"
        done < <(grep '^ref refs/heads/' "$now")
        while read -r _ r sha; do
            grep -qx "ref $r $sha" "$now" || echo "git update-ref $(printf '%q' "$r") $sha"
        done < <(grep '^ref refs/heads/' "$before")
        r=${bhead%% *}
        [ "$r" = detached ] || echo "git symbolic-ref HEAD $(printf '%q' "$r")"
    fi
    while read -r line; do
        key=${line#config }
        echo "git config --unset-all $(printf '%q' "${key%%=*}")"
    done < <(diff <(grep '^config ' "$before") <(grep '^config ' "$now") | sed -n 's/^> //p')
    while read -r line; do
        key=${line#config }
        echo "git config --add $(printf '%q' "${key%%=*}") $(printf '%q' "${key#*=}")"
    done < <(diff <(grep '^config ' "$before") <(grep '^config ' "$now") | sed -n 's/^< //p')
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
# and directory the patches change can be written.  A file the patches
# change must be writable if it exists, and so must the nearest existing
# directory of each; the first that is not, in the order of the patches,
# is the error.  (One find for all of them: a series changes a few hundred.)
check_writable() {
    local tree=$1 p path d gd
    shift
    writable "$tree" || die "$tree is not writable; make it writable first (chmod -R u+w)"
    if [ "$TREE_KIND" = git ]; then
        gd=$(git_tree rev-parse --absolute-git-dir)
        writable "$gd" || die "the repository $gd of $tree is not writable; make it writable first"
    fi
    # Each path once, in order: KIND (f or d), the patch that names it
    # first, and the path in the tree.
    local kind=() by=() abs=() i
    declare -A seen=() bad=()
    for p in "$@"; do
        while read -r path; do
            if [ -e "$tree/$path" ] && [ -z "${seen[$path]:-}" ]; then
                seen[$path]=1
                kind+=(f) by+=("$p") abs+=("$tree/$path")
            fi
            d=.
            [[ $path != */* ]] || d=${path%/*}
            while [ "$d" != . ] && [ ! -e "$tree/$d" ]; do
                if [[ $d == */* ]]; then d=${d%/*}; else d=.; fi
            done
            [ -z "${seen[$d/]:-}" ] || continue
            seen[$d/]=1
            kind+=(d) by+=("$p") abs+=("$tree/$d")
        done < <(patch_paths "$p")
    done
    [ ${#abs[@]} -gt 0 ] || return 0
    while IFS= read -r -d '' path; do
        bad[$path]=1
    done < <(find "${abs[@]}" -maxdepth 0 ! -perm -u=w -print0)
    for i in "${!abs[@]}"; do
        [ ! -w "${abs[i]}" ] || [ -n "${bad[${abs[i]}]:-}" ] || continue
        if [ "${kind[i]}" = f ]; then
            die "${abs[i]} is read-only and $(basename "${by[i]}") changes it; make it writable first (chmod u+w)"
        fi
        die "${abs[i]} is read-only and $(basename "${by[i]}") changes files in it; make it writable first (chmod u+w)"
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
APPLY_PID=          # the shell that applies (rolls back on a signal)

# Take the fingerprint of the tree as it is, before apply changes it.
guard_begin() {
    APPLY_WORK=$(mktemp -d "${TMPDIR:-/tmp}/ovs-json-perf-guard.XXXXXX")
    tree_manifest "$TREE" "$TREE_KIND" >"$APPLY_WORK/before"
    if [ "$TREE_KIND" = git ]; then
        git_locks >"$APPLY_WORK/locks"
    fi
    APPLY_PREV_EXIT=$(trap -p EXIT)
    APPLY_PID=$BASHPID
    trap on_interrupt INT TERM HUP
    trap on_exit EXIT
}

# git_locks: the lock files of the tree's repository that apply's git
# commands take: HEAD's, the index's, the refs' (in the common directory
# of a linked worktree).  Not another worktree's.
git_locks() {
    local gd common
    gd=$(git_tree rev-parse --absolute-git-dir 2>/dev/null) || return 0
    common=$(git_tree rev-parse --path-format=absolute --git-common-dir 2>/dev/null) || common=$gd
    {
        find "$gd" "$common" -maxdepth 1 -name '*.lock' || true
        find "$common/refs" -name '*.lock' || true
    } 2>/dev/null | LC_ALL=C sort -u
}

# clear_am_leftovers: what a git am killed by a signal can leave behind.
# It can leave a lock file (seen: its branch's), which makes every command
# of the rollback fail.  Apply has waited for its git am, so a lock that
# was not there when apply began is that git am's.  A git am cut short
# while it set up leaves a rebase-apply/ that git am --abort does not
# recognise; none was there before (check_git_state).  A plain tree has
# no list of locks: its temporary repository is apply's own, and so is
# every lock in it.
clear_am_leftovers() {
    local gd lock
    while IFS= read -r lock; do
        [ -z "$lock" ] || grep -qxF -- "$lock" "$APPLY_WORK/locks" 2>/dev/null ||
            rm -f -- "$lock" 2>/dev/null || true
    done < <(git_locks)
    gd=$(git_tree rev-parse --absolute-git-dir 2>/dev/null) || return 0
    [ -d "$gd/rebase-apply" ] || return 0
    git_tree am --abort >/dev/null 2>&1 || true
    rm -rf -- "$gd/rebase-apply" 2>/dev/null || true
}

# git rollback: the tree's files back at the user's commit, HEAD and the
# branches as they were.
rollback_git() {
    local st path
    clear_am_leftovers
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

# Plain rollback: the temporary repository's first commit holds every file
# of the tree as found, so a file it does not track is one that a git am
# cut short wrote (a new file of its patch).
rollback_plain() {
    local st
    clear_am_leftovers
    git reset -q --hard "$APPLY_ORIG" >/dev/null 2>&1 || true
    while IFS= read -r -d '' st; do
        [ "${st:0:2}" != '??' ] || rm -f -- "$TREE/${st:3}" 2>/dev/null || true
    done < <(git status --porcelain -z --untracked-files=all 2>/dev/null)
}

# remove_new_dirs: the directories the tree did not have before apply
# began that are empty once a cut-short patch's new files are gone; the
# deepest first, so that a new directory holding only new ones goes too.
remove_new_dirs() {
    local dir
    sed -n 's/^dir [0-7]* //p' "$APPLY_WORK/before" >"$APPLY_WORK/dirs"
    (cd "$TREE" && find . -mindepth 1 -depth -type d -not -path './.git' -not -path './.git/*' -printf '%P\n') |
        grep -vxF -f "$APPLY_WORK/dirs" |
        while IFS= read -r dir; do
            rmdir -- "$TREE/$dir" 2>/dev/null || true
        done || true
}

# Undo apply.  Returns 0 if the fingerprint matches the one taken before;
# otherwise prints what differs and the commands that restore the tree.
# Nothing interrupts it: a second Ctrl-C would leave the tree half restored.
apply_rollback() {
    trap '' INT TERM HUP
    [ -n "$APPLY_BRANCH" ] || return 0
    echo "rolling back: restoring $APPLY_ORIG" >&2 || true
    if [ -n "$APPLY_GITDIR" ]; then
        rollback_plain
    else
        rollback_git
    fi
    remove_new_dirs
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

# A signal that reaches a forked copy of this shell before it execs (or
# a command substitution) is the main shell's to handle: it got the same
# signal, and one rollback at a time touches the tree.
on_interrupt() {
    [ "$BASHPID" = "$APPLY_PID" ] || exit 1
    echo >&2 || true
    apply_fail "interrupted"
}

# On any exit: finish a rollback that did not happen (an error, a closed
# terminal) and remove the temporary files.
on_exit() {
    local rc=$?
    trap - EXIT INT TERM HUP
    [ "$BASHPID" = "$APPLY_PID" ] || exit "$rc"
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
