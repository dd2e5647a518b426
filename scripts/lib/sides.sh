# Two builds of OVSDB side by side: A, the reference (stock BASE), and B,
# the candidate (patched BASE).  Used by the uptime runs (differential,
# chaos).
# Functions only: sourcing it runs nothing; it loads what it needs.
[ -z "${_ojp_lib_sides:-}" ] || return 0
_ojp_lib_sides=1
# shellcheck source=bench-trees.sh
. "$(dirname "${BASH_SOURCE[0]}")/bench-trees.sh"

# BINDIR[A] and BINDIR[B]: a built OVS tree, or a directory that holds the
# programs, for each side.
declare -gA BINDIR=()

# sides_find WHO BASE BINDIRS PROGRAMS [PLANTED]: fills BINDIR from BINDIRS
# ("A=DIR B=DIR"), or builds stock BASE (A) and patched BASE (B) as bench
# trees, with the make targets PROGRAMS ("ovsdb/ovsdb-server ...").  With
# PLANTED, a patch file, B is patched BASE plus that patch.  Each side must
# have every program of PROGRAMS.
sides_find() {
    local who=$1 base=$2 bindirs=$3 programs=$4 planted=${5:-} kv v p
    if [ -n "$bindirs" ]; then
        for kv in $bindirs; do
            BINDIR[${kv%%=*}]=${kv#*=}
        done
    else
        need_build_deps
        export BENCH_MAKE_TARGETS=$programs
        stage "$who: build stock $base"
        bench_tree "$base" stock
        BINDIR[A]=$(bench_tree_dir "$base" stock)
        if [ -n "$planted" ]; then
            stage "$who: build patched $base with a planted bug"
            # shellcheck disable=SC2046
            bench_tree "$base" planted $(bench_series_files "$base") "$planted"
            BINDIR[B]=$(bench_tree_dir "$base" planted)
        else
            stage "$who: build patched $base"
            bench_tree "$base" patched
            BINDIR[B]=$(bench_tree_dir "$base" patched)
        fi
    fi
    for v in A B; do
        [ -n "${BINDIR[$v]:-}" ] || die "$who: the bindirs have no $v=DIR"
        for p in $programs; do
            [ -x "$(side_bin "$v" "$(basename "$p")")" ] ||
                die "$who: no $(basename "$p") in ${BINDIR[$v]}"
        done
    done
}

# side_bin SIDE PROGRAM: the path of PROGRAM (ovsdb-server, ovs-appctl,
# ...) of side A or B.
side_bin() {
    local d=${BINDIR[$1]} sub
    for sub in ovsdb utilities; do
        if [ -x "$d/$sub/$2" ]; then
            echo "$d/$sub/$2"
            return
        fi
    done
    echo "$d/$2"
}
