# The changes the series make, read from patches/features: their names and
# titles, how each shows in an OVS tree, and which patches make each one.
# Functions only: sourcing it runs nothing; it loads what it needs.
[ -z "${_ojp_lib_features:-}" ] || return 0
_ojp_lib_features=1
# shellcheck source=common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

FEATURES_TABLE=${FEATURES_TABLE:-"$TOP/patches/features"}

# features_parse: the rows of the table as tab-separated fields (name,
# patches, file, pattern, title), without comments and blank lines.  A
# table that cannot be read, or a row without its five fields, is one error
# line and a non-zero return.
features_parse() {
    [ -r "$FEATURES_TABLE" ] || {
        echo "error: $FEATURES_TABLE: cannot read the feature table" >&2
        return 1
    }
    awk -F' [|] ' -v OFS='\t' -v table="$FEATURES_TABLE" '
        /^[ \t]*(#|$)/ { next }
        NF != 5 {
            printf "error: %s:%d: %d fields, not 5 (name | patches | file | pattern | title)\n",
                table, NR, NF > "/dev/stderr"
            bad = 1
            exit
        }
        { $1 = $1; print }
        END { exit bad }' "$FEATURES_TABLE"
}

# The table, read once when this file is sourced: a broken table stops
# every verb before it does anything.
FEATURE_ROWS=$(features_parse) || exit 1

# features_rows: the rows, as features_parse gives them.
features_rows() {
    printf '%s\n' "$FEATURE_ROWS"
}

# feature_names: every feature's name, in the table's order, one a line.
feature_names() {
    features_rows | cut -f1
}

# feature_field NAME N: field N (1 to 5) of NAME's row; fails if no row.
feature_field() {
    features_rows | awk -F'\t' -v n="$1" -v f="$2" \
        '$1 == n { print $f; found = 1 } END { exit !found }'
}

# feature_title NAME: what ./build.sh detect says NAME is.
feature_title() {
    feature_field "$1" 5
}

# source_file DIR REV PATH: PATH of the tree DIR, as committed at REV, or
# as in the work tree if REV is empty.
source_file() {
    if [ -n "$2" ]; then
        git -C "$1" show "$2:$3" 2>/dev/null
    else
        cat "$1/$3" 2>/dev/null
    fi
}

# has_feature DIR FEATURE [REV]: the sources (at REV, if given) have it.
has_feature() {
    local dir=$1 rev=${3:-} path pattern
    path=$(feature_field "$2" 3) || return 1
    pattern=$(feature_field "$2" 4)
    grep -qF -- "$pattern" < <(source_file "$dir" "$rev" "$path")
}

# detect_features DIR: "NAME yes" or "NAME no" for every feature.
detect_features() {
    local f
    for f in $(feature_names); do
        if has_feature "$1" "$f"; then echo "$f yes"; else echo "$f no"; fi
    done
}

# patch_feature PATCH: the feature that the patch file PATCH makes (or
# helps make), from its directory and file name as a series names it, or
# "always" for a patch that no row names: apply never skips that one.
patch_feature() {
    local name
    name="$(basename "$(dirname "$1")")/$(basename "$1")"
    features_rows | awk -F'\t' -v p="$name" '
        !found { n = split($2, ps, " ")
                 for (i = 1; i <= n; i++) if (ps[i] == p) { print $1; found = 1 } }
        END { if (!found) print "always" }'
}
