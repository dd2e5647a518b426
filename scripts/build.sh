#!/usr/bin/env bash
# ./build.sh build [--base B | --ovs-src DIR]: configure --enable-Werror
# and make.
set -euo pipefail
# shellcheck source=lib/opts.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/opts.sh"
# shellcheck source=lib/tree.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/tree.sh"
# shellcheck source=lib/build.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/build.sh"

# shellcheck disable=SC2153  # resolve_tree sets TREE
parse_tree_opts build "--base --ovs-src" "$@"
log_start build
resolve_tree
build_tree "$TREE"
