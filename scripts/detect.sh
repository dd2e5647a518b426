#!/usr/bin/env bash
# ./build.sh detect [--base B | --ovs-src DIR]: the tree's version and
# which changes of the series it has.
set -euo pipefail
# shellcheck source=lib/opts.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/opts.sh"
# shellcheck source=lib/tree.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/tree.sh"

# shellcheck disable=SC2153  # resolve_tree sets TREE
parse_tree_opts detect "--base --ovs-src" "$@"
resolve_tree
print_detection "$TREE"
