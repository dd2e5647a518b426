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

# uptime_run_dir VERB VAR: this run's time stamp, STAMP (UTC), and its
# work directory, build/VERB/BASE-STAMP, created and put in VAR.
uptime_run_dir() {
    STAMP=$(date -u +%Y%m%dT%H%M%SZ)
    printf -v "$2" '%s' "$BUILD/$1/$BASE-$STAMP"
    mkdir -p "${!2}"
}

# uptime_total LINES FIELD: the sum of "N FIELD" over the closing lines in
# the file LINES.
uptime_total() {
    grep -oE "[0-9]+ $2" "$1" | awk '{ n += $1 } END { print n + 0 }'
}

# uptime_write_summary KIND: the result file of a --record run that
# compares a reference (BINDIR[A]) with a candidate (BINDIR[B]),
# RESULTS_DIR/KIND-BASE-STAMP.summary: what ran, on which base, when, on
# which builds, the candidate's git tree, then the lines of stdin.
uptime_write_summary() {
    local out="$RESULTS_DIR/$1-$BASE-$STAMP.summary"
    mkdir -p "$RESULTS_DIR"
    {
        cat <<EOF
kind=$1
base=$BASE
date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
reference=${BINDIR[A]#"$TOP/"}
candidate=${BINDIR[B]#"$TOP/"}
candidate_tree=$(git -C "${BINDIR[B]}" rev-parse -q --verify 'HEAD^{tree}' 2>/dev/null || echo unknown)
EOF
        cat
    } >"$out"
    stage "$1: result in $out"
}
