#!/usr/bin/env bash
# ./build.sh check [--sanitize | --valgrind] [--base B | --ovs-src DIR]
# [-- TESTSUITEFLAGS...]: make check in the patched tree, or the tests under
# ASan+UBSan or valgrind in a build of their own.  --record (with --base):
# apply, build, check, and record the result for CI (bench/results/).
set -euo pipefail
# shellcheck source=lib/verb.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/verb.sh"
# shellcheck source=lib/checkers.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/checkers.sh"

open_tree check "--base --ovs-src --sanitize --valgrind --record --" "$@"
if [ -n "$CHECK_MODE" ]; then
    check_checker "$CHECK_MODE" "${REST[@]}"
elif [ "$RECORD" = 1 ]; then
    # The record says what was built and checked: the series as applied,
    # built here.
    apply_series "$TREE"
    build_tree "$TREE"
    check_record "$TREE" "$SERIES_BASE" "${REST[@]}"
else
    check_tree "$TREE" "${REST[@]}"
fi
