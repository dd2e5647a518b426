#!/usr/bin/env bash
# ./build.sh ovn --ovn-src DIR [--base B] [--at FILE] [-k KEYWORD]... [--record]
#
# A real client: OVN's own tests (tests/ovn-northd.at by default) against stock
# and patched OVS B.  OVN from DIR (a checkout; it is copied, never written
# to) is built twice, once on each OVS tree (configure --with-ovs-source),
# the selected tests run on both, and they are compared test by test: a
# test that passes on stock and fails patched is rerun, and is a
# regression only if it keeps failing patched and passing on stock (the
# comparison of ./build.sh regress).  Tests that name a remote outside
# 127.0.0.0/8 are left out, by title, before anything runs.
set -euo pipefail

# shellcheck source=../scripts/lib/regress.sh
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib/regress.sh"
# shellcheck source=../scripts/lib/bench-trees.sh
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib/bench-trees.sh"
# shellcheck source=../scripts/lib/opts.sh
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib/opts.sh"

usage() {
    cat <<EOF
usage: ./build.sh ovn --ovn-src DIR [--base B] [--at FILE] [-k KEYWORD]...
                       [--record]

  --ovn-src DIR   an OVN source tree that builds on OVS B (OVN v25.03 on
                  3.5.0, as Debian 13 pairs them); copied to build/ovn/,
                  never written to
  --base B        the OVS base (default $DEFAULT_BASE)
  --at FILE       the tests of OVN's tests/FILE (default ovn-northd.at)
  -k KEYWORD      of those, the ones OVN's testsuite selects with these
                  keywords (repeat for OR; default: all of them)
  --record        write bench/results/ovn-B-STAMP.{summary,txt}
EOF
}

BASE=$DEFAULT_BASE
OVN_SRC=
AT_FILE=ovn-northd.at
KEYS=()
RECORD=0

# parse_args ARGS...: sets the options above.
parse_args() {
    parse_options ovn '
        --record RECORD =1
        --ovn-src OVN_SRC text
        --base BASE text
        --at AT_FILE text
        -k KEYS list' "$@"
    [ -n "$OVN_SRC" ] || die "ovn: --ovn-src DIR is required"
    [ -d "$OVN_SRC" ] || die "ovn: $OVN_SRC: no such directory"
    [ -f "$OVN_SRC/ovn-nb.xml" ] && [ -f "$OVN_SRC/configure.ac" ] ||
        die "ovn: $OVN_SRC is not an OVN source tree (no ovn-nb.xml or configure.ac)"
    is_supported_base "$BASE" || die "ovn: unsupported base '$BASE' (have: $SUPPORTED_BASES)"
    [ -f "$OVN_SRC/tests/$AT_FILE" ] || die "ovn: $OVN_SRC has no tests/$AT_FILE"
}

# offnet_titles TREE: the titles of the tests in TREE/tests/*.at that name
# a remote outside 127.0.0.0/8 (tcp:IP, ssl:IP, ptcp:PORT:IP, pssl:PORT:IP,
# an address in m4 brackets or not), one a line.
offnet_titles() {
    awk 'function offnet(s,   a) {
             while (match(s, /p?(tcp|ssl):([0-9]+:)?\[*[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+/)) {
                 a = substr(s, RSTART, RLENGTH)
                 s = substr(s, RSTART + RLENGTH)
                 if (a ~ /^p/ && a !~ /^p(tcp|ssl):[0-9]+:/) continue
                 sub(/^p?(tcp|ssl):/, "", a)
                 if (a ~ /^[0-9]+:/ && a ~ /^[0-9]+:\[*[0-9]+\./) sub(/^[0-9]+:/, "", a)
                 gsub(/\[/, "", a)
                 if (a !~ /^127\./) return 1
             }
             return 0
         }
         /AT_SETUP\(\[/ { t = $0; sub(/.*AT_SETUP\(\[/, "", t); sub(/\]\).*/, "", t) }
         t != "" && offnet($0) { print t }' "$1"/tests/*.at | sort -u
}

# selected TREE: the numbers of the tests of AT_FILE that KEYS select in
# TREE, without the off-net ones, space-separated.
selected() {
    local tree=$1 titles
    titles=$(offnet_titles "$tree")
    (cd "$tree/tests" && ./testsuite -l ${KEYS[@]+"${KEYS[@]}"}) |
        awk -v off="$titles" -v at="$AT_FILE:" 'BEGIN { n = split(off, t, "\n") }
             $1 ~ /^[0-9]+:$/ && index($2, at) == 1 { keep = 1
                 for (i = 1; i <= n; i++) if (t[i] != "" && index($0, t[i])) keep = 0
                 if (keep) { x = $1; sub(/:$/, "", x); printf "%s ", x } }'
}

# ovn_tree VARIANT OVS_TREE: OVN copied to build/ovn/BASE-VARIANT and built
# on OVS_TREE.
ovn_tree() {
    local v=$1 ovs=$2 wt
    wt=$(ovn_dir "$v")
    rm -rf "$wt"
    mkdir -p "$wt"
    tar -C "$OVN_SRC" --exclude=./.git --exclude=./ovs -cf - . | tar -C "$wt" -xf -
    use_ccache
    stage "ovn: build OVN on $v OVS $BASE ($wt)"
    (cd "$wt" && run ./boot.sh && run ./configure PYTHON3="$PYTHON3" \
        CC="ccache gcc" --with-ovs-source="$ovs" && run make -j"$(nproc)") ||
        die "ovn: OVN does not build on $v OVS $BASE (see $LOG)"
}

# ovn_version DIR: OVN's version as its configure.ac gives it, with the
# git description of DIR if DIR is the top of a git checkout.
ovn_version() {
    local v top
    v=$(sed -n 's/^AC_INIT(ovn, *\([0-9][0-9.]*\).*/\1/p' "$1/configure.ac" | head -n1)
    top=$(git -C "$1" rev-parse --show-toplevel 2>/dev/null) &&
        [ "$top" = "$(cd "$1" && pwd -P)" ] &&
        v="$v ($(git -C "$1" describe --tags --always))"
    echo "${v:-unknown}"
}

# ovn_dir VARIANT: where ovn_tree builds OVN on that OVS.
ovn_dir() {
    echo "$BUILD/ovn/$BASE-$1"
}

main() {
    parse_args "$@"
    log_start ovn
    need_build_deps
    local v t nums stamp logs out rc=0
    for v in stock patched; do
        stage "ovn: build $v OVS $BASE"
        bench_tree "$BASE" "$v"
        ovn_tree "$v" "$(bench_tree_dir "$BASE" "$v")"
    done
    stamp=$(date -u +%Y%m%dT%H%M%SZ)
    logs="$BUILD/ovn/logs"
    mkdir -p "$logs"
    stage "ovn: left out (a remote outside 127.0.0.0/8): $(offnet_titles "$(ovn_dir stock)" | tr '\n' ';')"
    for v in stock patched; do
        t=$(ovn_dir "$v")
        nums=$(selected "$t")
        [ -n "$nums" ] || die "ovn: no test of $AT_FILE is selected${KEYS[*]:+ by ${KEYS[*]}}"
        stage "ovn: $(wc -w <<<"$nums") tests on $v"
        (cd "$t" && run make check TESTSUITEFLAGS="-j$(nproc) $nums") || true
        cp "$t/tests/testsuite.log" "$logs/$v-$stamp.log"
    done
    out="$BUILD/ovn/ovn-$BASE-$stamp"
    [ "$RECORD" = 0 ] || out="$(results_dir records)/ovn-$BASE-$stamp"
    mkdir -p "$(dirname "$out")"
    regress_record "$BASE" "$(ovn_dir stock)" "$(ovn_dir patched)" \
        "$logs/stock-$stamp.log" "$logs/patched-$stamp.log" "$out" || rc=$?
    sed -i 's/^kind=regress$/kind=ovn/' "$out.summary"
    {
        echo "ovn_src=$(ovn_version "$OVN_SRC")"
        echo "selection=$AT_FILE${KEYS[*]:+ ${KEYS[*]}}"
        echo "left_out=$(offnet_titles "$(ovn_dir stock)" | tr '\n' ';')"
        series_fields "$(bench_tree_dir "$BASE" patched)" "$BASE"
    } >>"$out.summary"
    cat "$out.txt"
    stage "ovn: results in $out.summary"
    [ $rc -eq 0 ] || die "ovn: regressions against stock $BASE: see $out.txt"
}

# tests/t-ovn.sh sources this file for its functions.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    main "$@"
fi
