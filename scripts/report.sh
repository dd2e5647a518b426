#!/usr/bin/env bash
# ./build.sh report: one table per base from the result files.
set -euo pipefail
# shellcheck source=lib/report.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/report.sh"

[ $# -eq 0 ] || die "report: unexpected argument '$1' (./build.sh report takes none)"
report
