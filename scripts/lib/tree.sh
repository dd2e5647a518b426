# Which OVS tree a command works on (--base or --ovs-src), its version,
# the changes it already has, and the patches of its series it still
# needs.
# Functions only: sourcing it runs nothing; it loads what it needs.
[ -z "${_ojp_lib_tree:-}" ] || return 0
_ojp_lib_tree=1
# shellcheck source=fetch.sh
. "$(dirname "${BASH_SOURCE[0]}")/fetch.sh"
# shellcheck source=features.sh
. "$(dirname "${BASH_SOURCE[0]}")/features.sh"

# The branch apply makes in a tree: BRANCH_PREFIX/<base>.
BRANCH_PREFIX=ovs-json-perf

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
    # Only the commits that touch the series' files, and no root commit:
    # a Debian tree's first commits add or remove whole directories, and
    # their patch-ids took seconds to compute.
    if [ -n "$rev" ]; then
        :
    elif is_git_toplevel "$tree"; then
        # shellcheck disable=SC2046  # one path a word
        ids=$(commit_patch_ids "$tree" -n 300 --min-parents=1 HEAD -- \
                  $(series_paths "$dir"))
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

# patch_paths PATCH...: the files that the patch files PATCH change (both
# names of a rename), one a line.
patch_paths() {
    [ $# -gt 0 ] || return 0
    sed -n 's|^diff --git a/\([^ ]*\) b/\([^ ]*\)$|\1\n\2|p' "$@" | sort -u
}

# series_paths DIR: the files that the patches of SERIES_BASE's series
# (in DIR) change, one a line.
series_paths() {
    local p files=()
    for p in $(series_patches "$SERIES_BASE"); do
        [ ! -f "$1/$p" ] || files+=("$1/$p")
    done
    patch_paths "${files[@]}"
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
