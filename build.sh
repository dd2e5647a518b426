#!/usr/bin/env bash
# ovs-json-perf: fetch an OVS base, apply the series, build, check, bench.
# Only a dispatcher: each verb is one file (scripts/VERB.sh, bench/,
# uptime/, tests/run.sh); the functions they share are in scripts/lib/.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export TOP
# shellcheck source=scripts/lib/common.sh
. "$TOP/scripts/lib/common.sh"

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
  check --record [--base B] [-- TESTSUITEFLAGS...]
                             apply, build and check (by default with
                             CI's selection); the result in
                             bench/results/ stands for CI's build and
                             check of exactly that tree
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
  hostile [--base B] [--max-cases N] [--long] [OPTIONS]
                             damaged database files, standalone and
                             clustered, read by stock B with its fixes
                             series and by patched B; every outcome
                             compared (./build.sh hostile --help)
  ovn --ovn-src DIR [--base B] [--at FILE] [-k KEYWORD]... [--record]
                             OVN's own tests (ovn-northd.at) on stock and
                             patched B, compared test by test
                             (./build.sh ovn --help)
  fuzz [--base B] [--target lib-json|ovs-json|diff|all] [SECONDS]
                             run the fuzzers; results in bench/results/
  test                       everything CI runs; ends with "N passed, N failed"

Supported bases: $SUPPORTED_BASES (default $DEFAULT_BASE).
EOF
}

# bench WHAT [OPTIONS]: bench/WHAT.sh.
bench() {
    local what=${1:-}
    [ -n "$what" ] || die "usage: ./build.sh bench json|monitor|lib-json [OPTIONS]"
    shift
    [ -x "$TOP/bench/$what.sh" ] ||
        die "unknown benchmark '$what' (have: $(cd "$TOP/bench" && ls ./*.sh 2>/dev/null | sed 's|^\./||; s|\.sh$||' | tr '\n' ' '))"
    exec "$TOP/bench/$what.sh" "$@"
}

main() {
    local verb=${1:-}
    case $verb in
    -h|--help|help) usage ;;
    fetch|detect|apply|build|check|export|bisect|regress|report|fuzz)
        shift
        exec "$TOP/scripts/$verb.sh" "$@" ;;
    bench) shift; bench "$@" ;;
    soak) shift; exec "$TOP/bench/soak.sh" "$@" ;;
    differential|chaos|hostile|ovn) shift; exec "$TOP/uptime/$verb.sh" "$@" ;;
    test) shift; exec "$TOP/tests/run.sh" "$@" ;;
    ''|--*) exec "$TOP/scripts/main.sh" "$@" ;;
    *) usage >&2; die "unknown verb '$1'" ;;
    esac
}

main "$@"
