#!/usr/bin/env bash
# ./build.sh apply [--base B | --ovs-src DIR] [--force]: apply the series
# of the tree's version on a new branch, or in place in a plain tree.
set -euo pipefail
# shellcheck source=lib/verb.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/verb.sh"

open_tree apply "--base --ovs-src --force" "$@"
apply_series "$TREE"
