#!/usr/bin/env bash
# ./build.sh bisect [--base B]: build every patch of the series in turn,
# run -k json at each, and record the result in bench/results/.
set -euo pipefail
# shellcheck source=lib/bisect.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/bisect.sh"

open_tree bisect "--base" "$@"
apply_series "$TREE"
build_tree "$TREE"
bisect_record "$BASE"
