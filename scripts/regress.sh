#!/usr/bin/env bash
# ./build.sh regress [--base B]: the full make check on stock and patched
# B, compared test by test; results in bench/results/.
set -euo pipefail
# shellcheck source=lib/opts.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/opts.sh"
# shellcheck source=lib/apply.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/apply.sh"
# shellcheck source=lib/regress.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/regress.sh"

# shellcheck disable=SC2153  # resolve_tree sets TREE
parse_tree_opts regress "--base" "$@"
log_start regress
resolve_tree
apply_series "$TREE"
regress_base "$BASE"
