# Worktrees of OVS trees and the compiler cache that their builds share.
# Functions only: sourcing it runs nothing; it loads what it needs.
[ -z "${_ojp_lib_worktree:-}" ] || return 0
_ojp_lib_worktree=1
# shellcheck source=common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# worktree_at SRC DIR REV: DIR is a worktree of the git tree SRC, checked
# out (detached, forced) at REV.  Makes it if DIR has none.  A failure is
# one error line that names the log.
worktree_at() {
    local src=$1 dir=$2 rev=$3
    if [ ! -e "$dir/.git" ]; then
        mkdir -p "$(dirname "$dir")"
        git -C "$src" worktree prune
        run git -C "$src" worktree add -f --detach "$dir" "$rev" ||
            die "cannot make a worktree of $src in $dir (log ${LOG:-none})"
    fi
    run git -C "$dir" checkout -q -f --detach "$rev" ||
        die "cannot check out $rev in $dir (log ${LOG:-none})"
}

# use_ccache: one compiler cache for every tree under build/: worktrees of
# the same base at other commits, and rebuilds after a re-apply, hit it.
use_ccache() {
    export CCACHE_DIR="$BUILD/ccache" CCACHE_BASEDIR="$BUILD" CCACHE_NOHASHDIR=1
}
