#!/usr/bin/env bash
# ./build.sh [--base B | --ovs-src DIR] [--force] (no verb): fetch the base,
# apply its series, build, and summarize what changed.
set -euo pipefail
# shellcheck source=lib/verb.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/verb.sh"

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

# shellcheck disable=SC2153  # resolve_tree sets TREE
parse_tree_opts build.sh "--base --ovs-src --force" "$@"
log_start main
resolve_tree
before=$(detect_features "$TREE")
apply_series "$TREE"
build_tree "$TREE"
print_summary "$TREE" "$before"
