#!/usr/bin/env bash
# Run the lib-json libFuzzer target (parse, serialize, reparse, compare):
#
#   tests/fuzz.sh [SECONDS]        (default 600)
#
# A wrapper kept for tests/t-lib-json.sh: scripts/fuzz.sh --target lib-json
# --no-record.  ./build.sh fuzz runs every target and records the results.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
exec "$TOP/scripts/fuzz.sh" --target lib-json --no-record "$@"
