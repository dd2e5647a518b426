#!/usr/bin/env bash
# ./build.sh detect [--base B | --ovs-src DIR]: the tree's version and
# which changes of the series it has.
set -euo pipefail
# shellcheck source=lib/verb.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/verb.sh"

# shellcheck disable=SC2153  # resolve_tree sets TREE
parse_tree_opts detect "--base --ovs-src" "$@"
resolve_tree
print_detection "$TREE"
