# Regenerating patches/<base>/ from a tree's branch with git format-patch:
# one directory and cover letter per series, Signed-off-by: from the
# user's own git identity.
# Functions only: sourcing it runs nothing; it loads what it needs.
[ -z "${_ojp_lib_export:-}" ] || return 0
_ojp_lib_export=1
# shellcheck source=tree.sh
. "$(dirname "${BASH_SOURCE[0]}")/tree.sh"

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
# patch at the top of patches/<base>/.  A listed patch whose file is gone
# (renamed or removed by hand) has no subject: it is left out.
series_subjects() {
    local p dir
    for p in $(series_patches "$1"); do
        [ -f "$PATCHES/$1/$p" ] || continue
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
# "(N):" too), and the blocks of other authors just before it (one per
# author; an export whose commits had two authors leaves two).
cover_body() {
    awk 'NR > 1 && /^$/ && !hdr_done { hdr_done = 1; next }
         hdr_done { l[++n] = $0 }
         END {
             end = n + 1
             for (i = 1; i < n; i++)
                 if (l[i] ~ /^[^ ].* \([0-9]+\):$/ && l[i + 1] ~ /^  [^ ]/)
                     end = i
             while (end <= n && end > 2 && l[end - 1] == "") {
                 k = end - 2
                 while (k > 1 && l[k] ~ /^  [^ ]/) k--
                 if (k < end - 2 && l[k] ~ /^[^ ].* \([0-9]+\):$/) end = k
                 else break
             }
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
