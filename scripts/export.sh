#!/usr/bin/env bash
# ./build.sh export [--base B | --ovs-src DIR]: regenerate patches/<base>/
# from the tree's branch.
set -euo pipefail
# shellcheck source=lib/opts.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/opts.sh"
# shellcheck source=lib/export.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/export.sh"

# shellcheck disable=SC2153  # resolve_tree sets TREE
parse_tree_opts export "--base --ovs-src" "$@"
export_ident
log_start export
resolve_tree
export_series "$TREE"
# What export wrote out is saved work: apply may replace the branch.
git_tree config "ovs-json-perf.$SERIES_BASE.exported" \
    "$(git_tree rev-parse "refs/heads/$BRANCH_PREFIX/$SERIES_BASE")"
