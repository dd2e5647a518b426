# shellcheck shell=bash
# uptime/lib.sh: what the stock-against-patched runs (differential, chaos)
# load.
# Sourced, never run: the stock and patched builds side by side
# (scripts/lib/sides.sh, and through it the bench trees and
# scripts/lib/common.sh) and the verbs' option parser (scripts/lib/opts.sh).
[ -z "${_ojp_uptime_lib:-}" ] || return 0
_ojp_uptime_lib=1
# shellcheck source=../scripts/lib/sides.sh
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib/sides.sh"
# shellcheck source=../scripts/lib/opts.sh
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib/opts.sh"

# The options every stock-against-patched run takes, with their defaults.
UPTIME_OPTIONS='
    --base BASE base
    --plant PLANT =1
    --stock-defects STOCK_DEFECTS =1
    --record RECORD =1
    --results-dir RESULTS_DIR text'

# parse_uptime_options VERB SPEC ARGS...: BASE, PLANT, STOCK_DEFECTS,
# RECORD and RESULTS_DIR (UPTIME_OPTIONS) and the verb's own, by SPEC (see
# parse_options).
parse_uptime_options() {
    local verb=$1 spec=$2
    shift 2
    BASE=$DEFAULT_BASE PLANT=0 STOCK_DEFECTS=0 RECORD=0
    RESULTS_DIR="$TOP/bench/results"
    parse_options "$verb" "$UPTIME_OPTIONS$spec" "$@"
}
