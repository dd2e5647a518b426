# shellcheck shell=bash
# The record of ./build.sh fuzz (scripts/fuzz.sh) and what stands for CI's
# short fuzz runs.
# Functions only: sourcing it runs nothing.
[ -z "${_ojp_lib_fuzz:-}" ] || return 0
_ojp_lib_fuzz=1
# shellcheck source=common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# fuzz_tooling: a hash of what makes the fuzz targets and runs them
# (scripts/fuzz.sh and tests/fuzz/); a record says which it was made with.
fuzz_tooling() {
    cat "$TOP/scripts/fuzz.sh" "$TOP"/tests/fuzz/* | sha1sum | cut -c1-12
}

# fuzz_result_for BASE: a committed result of ./build.sh fuzz (FUZZ_RESULTS,
# default bench/results) that passed, made on exactly the tree
# ovs-json-perf/BASE has now and with this fuzz tooling, that ran OVS's
# json_parser_target and the diff target for a minute or more each, without
# a crash, and found the planted bug.  Prints its path; fails if there is
# none, or if FUZZ_FRESH is set.  CI takes it for its short runs of the
# same targets (tests/t-fuzz-targets.sh).
fuzz_result_for() {
    [ -z "${FUZZ_FRESH:-}" ] || return 1
    local long='([6-9][0-9]|[1-9][0-9]{2,})'
    record_for fuzz "$1" "" "${FUZZ_RESULTS:-$(results_dir records)}" \
        "^fuzz_tooling=$(fuzz_tooling)\$" '^ovs_json_crashes=0$' '^diff_crashes=0$' \
        "^ovs_json_seconds=$long\$" "^diff_seconds=$long\$" '^diff_planted=found$'
}
