#!/usr/bin/env bash
# ovs-json-perf: fetch an OVS base, apply the series, build, check, bench.
# A thin dispatcher: one function per verb, the work is in scripts/.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export TOP
# shellcheck source=scripts/common.sh
. "$TOP/scripts/common.sh"
# shellcheck source=scripts/fetch.sh
. "$TOP/scripts/fetch.sh"
# shellcheck source=scripts/tree.sh
. "$TOP/scripts/tree.sh"
# shellcheck source=scripts/guard.sh
. "$TOP/scripts/guard.sh"
# shellcheck source=scripts/regress.sh
. "$TOP/scripts/regress.sh"
# shellcheck source=scripts/bisect.sh
. "$TOP/scripts/bisect.sh"
# shellcheck source=scripts/check.sh
. "$TOP/scripts/check.sh"

usage() {
    cat <<EOF
usage: ./build.sh [VERB] [OPTIONS]

  (no verb)                  fetch $DEFAULT_BASE, apply its series, build, summarize
  fetch BASE                 download and unpack a base into build/ovs-BASE
  apply [--base B | --ovs-src DIR] [--force]
                             apply patches/<version>/series on a new branch
  build [--base B | --ovs-src DIR]
                             configure --enable-Werror and make -j\$(nproc)
  check [--base B | --ovs-src DIR] [-- TESTSUITEFLAGS...]
                             make check in the patched tree
  check --sanitize|--valgrind [--base B | --ovs-src DIR] [-- SELECTION...]
                             the tests under ASan+UBSan or valgrind, in a
                             build of their own; result in bench/results/
  detect [--base B | --ovs-src DIR]
                             print version and which changes the tree has
  export [--base B]          regenerate patches/<base>/ from the tree's branch
  regress [--base B]         full make check on stock and patched B, compared
                             test by test; results in bench/results/
  bisect [--base B]          build every patch of B's series in turn and run
                             -k json at each; result in bench/results/
  report                     one table per base from the result files
  bench json|monitor|lib-json [OPTIONS]
                             run a benchmark (see bench/README.md)
  soak [--base B] [--duration S] [OPTIONS]
                             stock and patched B side by side under a long
                             monitor workload; RSS and counters must stay
                             flat (see ./build.sh soak --help)
  differential [--base B] [--seeds N] [--txns N] [OPTIONS]
                             the same random workload into stock and
                             patched B; every client's messages compared
                             (see ./build.sh differential --help)
  chaos [--base B] [--kills N] [--relay] [OPTIONS]
                             a 3-member cluster of stock and patched
                             members under kills, restarts that switch
                             builds, compactions and joins; no committed
                             transaction may be lost (./build.sh chaos --help)
  fuzz [--base B] [--target lib-json|ovs-json|diff|all] [SECONDS]
                             run the fuzzers; results in bench/results/
  test                       everything CI runs; ends with "N passed, N failed"

Supported bases: $SUPPORTED_BASES (default $DEFAULT_BASE).
EOF
}

# parse_tree_opts VERB ALLOWED ARGS...: parse the tree options ALLOWED (a
# list of --base --ovs-src --force --) into BASE, OVS_SRC, FORCE and REST
# (what follows "--"), and --sanitize or --valgrind into CHECK_MODE.
# Anything else is an error: a typo such as
# --ovs-scr must not start a long build of the wrong tree.
parse_tree_opts() {
    local verb=$1 allowed=" $2 " opt
    shift 2
    BASE=$DEFAULT_BASE
    OVS_SRC=
    local base_given=0
    FORCE=0
    CHECK_MODE=
    REST=()
    while [ $# -gt 0 ]; do
        opt=${1%%=*}
        case $1 in
        --*=*|--base|--ovs-src|--force|--sanitize|--valgrind|--) ;;
        -*) die "$verb: unknown option '$1' (see ./build.sh --help)" ;;
        *) die "$verb: unexpected argument '$1' (see ./build.sh --help)" ;;
        esac
        [[ $allowed == *" $opt "* ]] ||
            die "$verb: unknown option '$opt' (see ./build.sh --help)"
        case $1 in
        --base|--ovs-src)
            if [ $# -lt 2 ] || [ -z "$2" ] || [[ $2 == -* ]]; then
                die "$verb: $1 needs a value"
            fi
            if [ "$1" = --base ]; then BASE=$2 base_given=1; else OVS_SRC=$2; fi
            shift 2 ;;
        --base=*|--ovs-src=*)
            [ -n "${1#*=}" ] || die "$verb: $opt needs a value"
            if [ "$opt" = --base ]; then BASE=${1#*=} base_given=1; else OVS_SRC=${1#*=}; fi
            shift ;;
        --force) FORCE=1; shift ;;
        --sanitize|--valgrind)
            [ -z "$CHECK_MODE" ] || [ "$CHECK_MODE" = "${1#--}" ] ||
                die "$verb: --sanitize and --valgrind exclude each other; run them one after the other"
            CHECK_MODE=${1#--}; shift ;;
        --) shift; check_no_spaced_words "$@"; REST=("$@"); break ;;
        *) die "$verb: unknown option '$1' (see ./build.sh --help)" ;;
        esac
    done
    # The tree's own version picks the series of --ovs-src: a --base beside
    # it would be silently ignored.
    [ "$base_given" = 0 ] || [ -z "$OVS_SRC" ] ||
        die "$verb: --base and --ovs-src exclude each other (the version of the tree in --ovs-src picks its series)"
}

verb_fetch() {
    if [ $# -ne 1 ] || [[ $1 == -* ]]; then
        die "usage: ./build.sh fetch BASE (one of: $SUPPORTED_BASES)"
    fi
    log_start fetch
    fetch_base "$1"
}

verb_detect() {
    parse_tree_opts detect "--base --ovs-src" "$@"
    resolve_tree
    print_detection "$TREE"
}

verb_apply() {
    parse_tree_opts apply "--base --ovs-src --force" "$@"
    log_start apply
    resolve_tree
    apply_series "$TREE"
}

verb_build() {
    parse_tree_opts build "--base --ovs-src" "$@"
    log_start build
    resolve_tree
    build_tree "$TREE"
}

verb_check() {
    parse_tree_opts check "--base --ovs-src --sanitize --valgrind --" "$@"
    log_start "check${CHECK_MODE:+-$CHECK_MODE}"
    resolve_tree
    if [ -n "$CHECK_MODE" ]; then
        check_checker "$CHECK_MODE" "${REST[@]}"
    else
        check_tree "$TREE" "${REST[@]}"
    fi
}

verb_export() {
    parse_tree_opts export "--base --ovs-src" "$@"
    export_ident
    log_start export
    resolve_tree
    export_series "$TREE"
    # What export wrote out is saved work: apply may replace the branch.
    git_tree config "ovs-json-perf.$SERIES_BASE.exported" \
        "$(git_tree rev-parse "refs/heads/$BRANCH_PREFIX/$SERIES_BASE")"
}

verb_bisect() {
    parse_tree_opts bisect "--base" "$@"
    log_start bisect
    resolve_tree
    apply_series "$TREE"
    build_tree "$TREE"
    bisect_record "$BASE"
}

verb_regress() {
    parse_tree_opts regress "--base" "$@"
    log_start regress
    resolve_tree
    apply_series "$TREE"
    regress_base "$BASE"
}

verb_report() {
    [ $# -eq 0 ] || die "report: unexpected argument '$1' (./build.sh report takes none)"
    report
}

verb_bench() {
    local what=${1:-}
    [ -n "$what" ] || die "usage: ./build.sh bench json|monitor|lib-json [OPTIONS]"
    shift
    [ -x "$TOP/bench/$what.sh" ] ||
        die "unknown benchmark '$what' (have: $(cd "$TOP/bench" && ls ./*.sh 2>/dev/null | sed 's|^\./||; s|\.sh$||' | tr '\n' ' '))"
    exec "$TOP/bench/$what.sh" "$@"
}

verb_soak() {
    exec "$TOP/bench/soak.sh" "$@"
}

verb_differential() {
    exec "$TOP/uptime/differential.sh" "$@"
}

verb_chaos() {
    exec "$TOP/uptime/chaos.sh" "$@"
}

verb_fuzz() {
    exec "$TOP/scripts/fuzz.sh" "$@"
}

verb_test() {
    [ $# -eq 0 ] || die "test: unexpected argument '$1' (./build.sh test takes none)"
    exec "$TOP/tests/run.sh" "$@"
}

# The main job: fetch the default base, apply, build, summarize.
verb_main() {
    parse_tree_opts build.sh "--base --ovs-src --force" "$@"
    log_start main
    resolve_tree
    local before
    before=$(detect_features "$TREE")
    apply_series "$TREE"
    build_tree "$TREE"
    print_summary "$TREE" "$before"
}

main() {
    case ${1:-} in
    -h|--help|help) usage ;;
    fetch|detect|apply|build|check|export|bisect|regress|report|bench|soak|differential|chaos|fuzz|test)
        local verb=$1
        shift
        "verb_$verb" "$@"
        ;;
    ''|--*) verb_main "$@" ;;
    *) usage >&2; die "unknown verb '$1'" ;;
    esac
}

main "$@"
