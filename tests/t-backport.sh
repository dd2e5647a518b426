#!/usr/bin/env bash
# The json-inline series as a backport of upstream OVS 3.6: the same API on
# every patched base, and a layout that builds on every Debian ABI.
#
# 1. tests/backport/api-parity.c, which uses the json API as code written
#    for upstream 3.6 does (the substitute_uuids() idiom, json_array_at()
#    out of range, the field and storage names, the 3.6 helpers), is built
#    with ASan and UBSan against each patched base and, when it has been
#    built, upstream 4.0.0, and must pass on all of them.
# 2. Each patched lib/json.c compiles, with its build assertions, for i386,
#    i386 with -malign-double (the layout of armel, armhf, mips o32 and
#    powerpc: 8-byte aligned 'long long int' and 'double', 4-byte pointers)
#    and x32, and 'struct json' has the size the commit messages state.
#
# Ends with "N passed, N failed".  Uses the trees tests/run.sh applied and
# built: build/ovs-<base> for every base whose series has json-inline.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
scratch_dir "$BUILD/test/backport" t-backport
T=$SCRATCH

# 'struct json' size per ABI: stock OVS, and with in-place storage (as
# upstream 3.6 has it).  The "+4" and "+8" of the strings patch's message.
declare -A STOCK_SIZE=([lp64]=40 [i386]=20 [align8]=24 [x32]=24)
declare -A INLINE_SIZE=([lp64]=40 [i386]=24 [align8]=32 [x32]=32)
declare -A ABI_FLAGS=([lp64]="" [i386]="-m32" [align8]="-m32 -malign-double" [x32]="-mx32")

# The patched bases to check: those whose series carries json-inline.
patched_bases() {
    local b
    for b in $SUPPORTED_BASES; do
        series_patches "$b" | grep -q '^json-inline/' && echo "$b"
    done
    return 0
}

# cc_tree TREE ARGS...: compile against TREE's headers and config.h.
cc_tree() {
    local tree=$1
    shift
    gcc -DHAVE_CONFIG_H -I"$tree" -I"$tree/include" -I"$tree/lib" "$@"
}

# parity NAME TREE: build api-parity.c against TREE's libopenvswitch.a under
# ASan and UBSan, run it, and fold its "ok"/"FAIL" lines into ours.
parity() {
    local name=$1 tree=$2 bin="$T/parity-$1" out="$T/parity-$1.out" rc=0
    if ! run cc_tree "$tree" -fsanitize=address,undefined \
            -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O1 \
            "$TOP/tests/backport/api-parity.c" "$tree/lib/.libs/libopenvswitch.a" \
            -lssl -lcrypto -latomic -lm -lpthread -o "$bin"; then
        fail "$name: api-parity.c does not build against $tree (log: $LOG)"
        return
    fi
    ASAN_OPTIONS=detect_leaks=1 "$bin" >"$out" 2>&1 || rc=$?
    cat "$out" >>"$LOG"
    if [ $rc -ne 0 ] || ! grep -qx '0 failures' "$out"; then
        fail "$name: api-parity exited $rc" \
            "$(grep -v '^ok ' "$out" | head -n 5 | tr '\n' ' ')"
    elif [ "$(grep -c '^ok ' "$out")" -lt 20 ]; then
        fail "$name: api-parity ran only $(grep -c '^ok ' "$out") checks"
    else
        ok "$name: api-parity.c under ASan+UBSan ($(grep -c '^ok ' "$out") checks)"
    fi
}

# layout NAME TREE: lib/json.c's build assertions hold on each ABI, and the
# size of 'struct json' there is as stated, against stock's.
layout() {
    local name=$1 tree=$2 abi probe="$T/size-probe.c" stock_inc="$T/stock-$1/include"
    mkdir -p "$stock_inc/openvswitch"
    git -C "$tree" show "base/$name:include/openvswitch/json.h" \
        >"$stock_inc/openvswitch/json.h"
    cat >"$probe" <<'EOF'
#include <config.h>
#include "openvswitch/json.h"
_Static_assert(sizeof(struct json) == EXPECT, "sizeof(struct json)");
EOF
    for abi in lp64 i386 align8 x32; do
        # shellcheck disable=SC2086
        if run cc_tree "$tree" ${ABI_FLAGS[$abi]} -fsyntax-only "$tree/lib/json.c" &&
           run cc_tree "$tree" ${ABI_FLAGS[$abi]} -fsyntax-only \
               -DEXPECT="${INLINE_SIZE[$abi]}" "$probe" &&
           run gcc -DHAVE_CONFIG_H -I"$tree" -I"$stock_inc" -I"$tree/include" \
               -I"$tree/lib" ${ABI_FLAGS[$abi]} -fsyntax-only \
               -DEXPECT="${STOCK_SIZE[$abi]}" "$probe"; then
            ok "$name: $abi (${ABI_FLAGS[$abi]:-native}): lib/json.c builds;" \
               "struct json ${STOCK_SIZE[$abi]} -> ${INLINE_SIZE[$abi]} bytes"
        else
            fail "$name: $abi (${ABI_FLAGS[$abi]:-native}): lib/json.c or the" \
                 "size probe fails to build (log: $LOG)"
        fi
    done
}

main() {
    local b tree bases
    if [ "$(dpkg --print-architecture)" = amd64 ]; then
        need_pkgs gcc-multilib libssl-dev
    fi
    mapfile -t bases < <(patched_bases)
    [ ${#bases[@]} -gt 0 ] || fail "no base has a json-inline series"
    for b in "${bases[@]}"; do
        tree="$BUILD/ovs-$b"
        if [ ! -f "$tree/lib/.libs/libopenvswitch.a" ]; then
            fail "$b: $tree is not built (tests/run.sh builds it first)"
            continue
        fi
        parity "$b" "$tree"
        if [ "$(dpkg --print-architecture)" = amd64 ]; then
            layout "$b" "$tree"
        else
            skip "$b: layout on i386, align8 and x32" "needs amd64's gcc-multilib"
        fi
    done
    # Upstream itself, the reference for the parity test.
    tree="$BUILD/ovs-4.0.0"
    if [ -f "$tree/lib/.libs/libopenvswitch.a" ]; then
        parity 4.0.0 "$tree"
    else
        skip "4.0.0: api-parity.c against upstream" "$tree is not built"
    fi
    summary
}

main "$@"
