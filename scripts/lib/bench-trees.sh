# Benchmark build trees: one git worktree per (base, variant), built with
# identical flags, rebuilt only when its sources change.
#
# Interface:
#
#   bench_tree BASE VARIANT [EXTRA_PATCH...]
#
#     Creates or updates the worktree $BUILD/bench/BASE-VARIANT of
#     $BUILD/ovs-BASE (fetching BASE when that is missing)
#     and builds it.  bench_tree_dir BASE VARIANT prints its path.
#
#       VARIANT "stock"    the base commit, nothing applied (no EXTRA_PATCH
#                          allowed).  The base commit is base/BASE (the
#                          pristine tree less the autotools-generated files
#                          and debian/, made by scripts/lib/fetch.sh; the series
#                          applies on it and OVS's check-assert-h-usage
#                          passes), or pristine/BASE if that tag is missing.
#       VARIANT "patched"  base commit + "git am" of every file listed in
#                          patches/BASE/series, in order, then the optional
#                          EXTRA_PATCH files.  Without a series file (not yet
#                          exported) it is built like stock, with a warning.
#       any other name     base commit + "git am" of the EXTRA_PATCH files
#                          (at least one), e.g. a measurement-only patch.
#
#     Build, the same for every variant: build_tree (scripts/lib/build.sh,
#     what ./build.sh build runs: --enable-Werror, configure's -g -O2,
#     ccache), of $BENCH_MAKE_TARGETS if set.  A patched tree so takes the
#     objects of the build of the same commit from the compiler cache.
#     BENCH_MAKE_TARGETS (optional, space-separated, e.g.
#     "ovsdb/ovsdb-server utilities/ovs-appctl") limits make to what the
#     caller needs; unset means the whole tree.  ccache (installed on demand)
#     is shared by all worktrees through CCACHE_BASEDIR=$BUILD and
#     CCACHE_NOHASHDIR, with its cache in $BUILD/ccache.
#
#     The tree is reset, patched and configured again only when the key in
#     $(bench_tree_dir BASE VARIANT)/.bench-configured (a hash of the base commit, the patch
#     contents and the flags) changes, and make runs only when
#     $(bench_tree_dir BASE VARIANT)/.bench-stamp does not say the tree (or, with
#     BENCH_MAKE_TARGETS, each of the targets) is built for that key;
#     otherwise bench_tree returns at once.
#
#   bench_tree_bin TREE PROGRAM   prints TREE/PROGRAM after checking that it
#                                 is executable (e.g. ovsdb/ovsdb-server).
# Functions only: sourcing it runs nothing; it loads what it needs.
[ -z "${_ojp_lib_bench_trees:-}" ] || return 0
_ojp_lib_bench_trees=1
# shellcheck source=fetch.sh
. "$(dirname "${BASH_SOURCE[0]}")/fetch.sh"
# shellcheck source=build.sh
. "$(dirname "${BASH_SOURCE[0]}")/build.sh"

# What configure gives CFLAGS (build_tree passes none); in the key.
BENCH_CFLAGS='-g -O2'

# bench_tree_dir BASE VARIANT: the worktree bench_tree makes and builds.
bench_tree_dir() {
    echo "$BUILD/bench/$1-$2"
}

# Prints the commit the variants start from.
bench_base_ref() {
    local src=$1 base=$2
    if git -C "$src" rev-parse -q --verify "base/$base^{commit}" >/dev/null; then
        echo "base/$base"
    else
        echo "pristine/$base"
    fi
}

# Prints the key that identifies the sources and flags of a tree.
bench_tree_key() {
    local src=$1 base=$2
    shift 2
    {
        echo "start $(git -C "$src" rev-parse "$(bench_base_ref "$src" "$base")^{commit}")"
        echo "cflags $BENCH_CFLAGS --enable-Werror"
        local p
        for p in "$@"; do
            echo "patch $(basename "$p") $(sha1sum <"$p" | cut -d' ' -f1)"
        done
    } | sha1sum | cut -d' ' -f1
}

# Lists the patch files of the committed series for BASE, one per line.
bench_series_files() {
    local base=$1 name
    for name in $(series_patches "$base"); do
        [ -f "$PATCHES/$base/$name" ] ||
            die "patches/$base/series lists missing file '$name'"
        echo "$PATCHES/$base/$name"
    done
}

bench_tree() {
    local base=${1:-} variant=${2:-}
    [ -n "$base" ] && [ -n "$variant" ] ||
        die "usage: bench_tree BASE VARIANT [EXTRA_PATCH...]"
    shift 2
    is_supported_base "$base" || die "unsupported base '$base' (have: $SUPPORTED_BASES)"
    case $variant in
    */*|.*|'') die "bad variant name '$variant'" ;;
    esac

    local patches=() p
    case $variant in
    stock)
        [ $# -eq 0 ] || die "bench_tree: variant 'stock' takes no patches"
        ;;
    patched)
        mapfile -t patches < <(bench_series_files "$base")
        [ ${#patches[@]} -gt 0 ] ||
            echo "warning: patches/$base/series is missing or empty; 'patched' is built like stock" >&2
        patches+=("$@")
        ;;
    *)
        [ $# -gt 0 ] || die "bench_tree: variant '$variant' needs at least one patch file"
        patches=("$@")
        ;;
    esac
    for p in "${patches[@]}"; do
        [ -f "$p" ] || die "no such patch file: $p"
    done

    local src="$BUILD/ovs-$base"
    if [ ! -d "$src/.git" ] ||
       ! git -C "$src" rev-parse -q --verify "base/$base" >/dev/null; then
        stage "fetching OVS $base"
        (run fetch_base "$base") || die "fetch of $base failed"
    fi
    local start
    start=$(bench_base_ref "$src" "$base")

    local wt key
    wt=$(bench_tree_dir "$base" "$variant")
    key=$(bench_tree_key "$src" "$base" "${patches[@]}")
    local targets=() what="make -j$(nproc)"
    if [ -n "${BENCH_MAKE_TARGETS:-}" ]; then
        read -r -a targets <<<"$BENCH_MAKE_TARGETS"
        what+=" ${targets[*]}"
    fi
    if [ "$(cat "$wt/.bench-stamp" 2>/dev/null)" = "$key all" ] ||
       { [ ${#targets[@]} -gt 0 ] &&
         [ "$(cat "$wt/.bench-stamp" 2>/dev/null)" = "$key" ] &&
         bench_have_targets "$wt" "${targets[@]}"; }; then
        stage "tree $base-$variant is up to date ($wt)"
        return 0
    fi

    mkdir -p "$BUILD/bench"
    if [ "$(cat "$wt/.bench-configured" 2>/dev/null)" != "$key" ]; then
        bench_tree_prepare "$src" "$base" "$variant" "$start" "$wt" "${patches[@]}"
        echo "$key" >"$wt/.bench-configured"
    fi
    stage "building $base-$variant ($what)"
    (build_tree "$wt" "${targets[@]}") || die "build of $base-$variant failed (log ${LOG:-none})"
    if [ ${#targets[@]} -gt 0 ]; then
        echo "$key" >"$wt/.bench-stamp"
    else
        echo "$key all" >"$wt/.bench-stamp"
    fi
    stage "built $base-$variant"
}

# True if every make target exists in the tree.
bench_have_targets() {
    local wt=$1 t
    shift
    for t in "$@"; do
        [ -e "$wt/$t" ] || return 1
    done
}

# Puts the worktree at the start commit plus the patches.
bench_tree_prepare() {
    local src=$1 base=$2 variant=$3 start=$4 wt=$5
    shift 5
    if [ ! -e "$wt/.git" ]; then
        stage "creating worktree $base-$variant"
    else
        stage "resetting worktree $base-$variant to $start"
        git -C "$wt" am --abort >/dev/null 2>&1 || true
    fi
    worktree_at "$src" "$wt" "$start"
    rm -f "$wt/.bench-stamp" "$wt/.bench-configured"
    if [ "$start" != "pristine/$base" ]; then
        # As in build/ovs-BASE itself.
        restore_packaging "$src" "$wt" "$base" ||
            die "cannot restore $PACKAGING_FILES in $wt"
    fi
    if [ $# -gt 0 ]; then
        stage "applying $# patch(es) to $base-$variant"
        run git -C "$wt" -c user.name=bench -c user.email=bench@localhost \
            am -q --whitespace=nowarn "$@" ||
            die "git am failed in $wt"
    fi
}

bench_tree_bin() {
    local f="$1/$2"
    [ -x "$f" ] || die "missing program $f (build of $1 incomplete?)"
    echo "$f"
}
