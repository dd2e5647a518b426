#!/usr/bin/env bash
# ./build.sh bisect [--base B]: build every patch of the series in turn,
# run -k json at each, and record the result in bench/results/.
set -euo pipefail
# shellcheck source=lib/opts.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/opts.sh"
# shellcheck source=lib/apply.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/apply.sh"
# shellcheck source=lib/build.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/build.sh"
# shellcheck source=lib/bisect.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/bisect.sh"

# shellcheck disable=SC2153  # resolve_tree sets TREE
parse_tree_opts bisect "--base" "$@"
log_start bisect
resolve_tree
apply_series "$TREE"
build_tree "$TREE"
bisect_record "$BASE"
