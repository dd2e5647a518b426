#!/usr/bin/env bash
# ./build.sh regress [--base B]: the full make check on stock and patched
# B, compared test by test; results in bench/results/.
set -euo pipefail
# shellcheck source=lib/regress.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/regress.sh"

open_tree regress "--base" "$@"
apply_series "$TREE"
regress_base "$BASE"
