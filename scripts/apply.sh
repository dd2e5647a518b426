#!/usr/bin/env bash
# ./build.sh apply [--base B | --ovs-src DIR] [--force]: apply the series
# of the tree's version on a new branch, or in place in a plain tree.
set -euo pipefail
# shellcheck source=lib/opts.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/opts.sh"
# shellcheck source=lib/apply.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/apply.sh"

# shellcheck disable=SC2153  # resolve_tree sets TREE
parse_tree_opts apply "--base --ovs-src --force" "$@"
log_start apply
resolve_tree
apply_series "$TREE"
