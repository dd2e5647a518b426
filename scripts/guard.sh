# Guarding a user's tree while apply changes it: a fingerprint of all that
# apply may change, taken before, compared after a rollback, and the exact
# commands that finish a rollback that could not.  Source after common.sh.

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
