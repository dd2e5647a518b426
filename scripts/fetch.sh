#!/usr/bin/env bash
# ./build.sh fetch BASE: download and unpack a base into build/ovs-BASE.
set -euo pipefail
# shellcheck source=lib/fetch.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/fetch.sh"

if [ $# -ne 1 ] || [[ $1 == -* ]]; then
    die "usage: ./build.sh fetch BASE (one of: $SUPPORTED_BASES)"
fi
log_start fetch
fetch_base "$1"
