#!/usr/bin/env bash
# ovsdb-monitor component test: builds the model (gcc, clang), runs its unit
# tests, runs them again under ASan+UBSan with LeakSanitizer (and checks
# that LeakSanitizer does catch a leak here), checks that om-db.o does not
# depend on om-monitor.o, and smoke-tests the fan-out benchmark program
# (same bytes in the five cache modes, sharing counters; no speed checks).
#
# Ends with "N passed, N failed"; exits non-zero iff a case failed.
# Environment: BUILD, LOG, CI (from tests/run.sh).
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
scratch_dir "$BUILD/ovsdb-monitor/t" t-ovsdb-monitor
T=$SCRATCH
SRC="$TOP/ovsdb-monitor"

need_pkgs build-essential clang make

# --- Builds. ---
stage "ovsdb-monitor: build (gcc, clang)"
check "build with gcc -std=c11 -Wall -Wextra -Werror" \
    make -C "$SRC" -j2 O="$T/gcc" CC=gcc
# (clang builds the model only, linked with the gcc build of lib-json.)
check "build with clang -std=c11 -Wall -Wextra -Werror" \
    make -C "$SRC" -j2 O="$T/clang" CC=clang LIBJSON_O="$T/gcc/lib-json"

# --- The database never calls into the monitors by name: they register as
# commit observers (om_db_observe()).  om-db.o must not reference a symbol
# that om-monitor.o defines, and om-db.c must not include om-private.h. ---
stage "ovsdb-monitor: om-db.o does not depend on om-monitor.o"
db_uses_monitor() {
    local obj=$1/obj defs refs
    defs=$(nm --defined-only -g "$obj/om-monitor.o" | awk '{ print $3 }' | sort -u)
    refs=$(nm -u "$obj/om-db.o" | awk '{ print $2 }' | sort -u)
    [ -n "$defs" ] || return 2
    comm -12 <(echo "$defs") <(echo "$refs")
}
if [ -f "$T/gcc/obj/om-db.o" ] && [ -f "$T/gcc/obj/om-monitor.o" ]; then
    rc=0
    bad=$(db_uses_monitor "$T/gcc") || rc=$?
    if [ "$rc" -eq 0 ] && [ -z "$bad" ] && ! grep -q 'om-private\.h' "$SRC/om-db.c"; then
        ok "om-db.o references no symbol of om-monitor.o (commit observers)"
    else
        fail "om-db.o depends on om-monitor.o: ${bad:-nm failed (exit $rc)}"
    fi
else
    fail "om-db.o / om-monitor.o missing"
fi

# --- Unit tests. ---
stage "ovsdb-monitor: unit tests"
if [ -x "$T/gcc/test-ovsdb-monitor" ]; then
    run_cases --min 70 --strict unit "$T/gcc/test-ovsdb-monitor"
else
    fail "unit: test binary missing"
fi

# --- ASan + UBSan + LeakSanitizer. ---
stage "ovsdb-monitor: ASan+UBSan build and run (LeakSanitizer on)"
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS=exitcode=23
if run make -C "$SRC" -j2 O="$T/asan" CC=gcc OPT="-O1 -g" EXTRA_CFLAGS="$SAN"; then
    ok "asan: build (lib-json and the model, both sanitized)"
    run_cases --min 40 --strict "asan" "$T/asan/test-ovsdb-monitor" quick

    # LeakSanitizer must work here, or "no leaks" means nothing.
    cat >"$T/leak.c" <<'EOF'
#include "ovsdb-monitor.h"
int
main(void)
{
    /* A database that is never destroyed. */
    return om_db_create(1) ? 0 : 1;
}
EOF
    rc=0
    gcc -std=c11 -O1 -g $SAN -I"$SRC" "$T/leak.c" "$T/asan/libovsdbmonitor.a" \
        "$T/asan/lib-json/libovsjson.a" -o "$T/leak" >>"$LOG" 2>&1 &&
        { "$T/leak" >>"$LOG" 2>"$T/leak.err" || rc=$?; }
    cat "$T/leak.err" >>"$LOG" 2>/dev/null || true
    if [ "$rc" -eq 23 ] && grep -q 'LeakSanitizer: detected memory leaks' "$T/leak.err"; then
        ok "asan: LeakSanitizer catches a deliberately leaked database"
    else
        fail "asan: LeakSanitizer did not catch a deliberate leak (exit $rc); the leak check above proves nothing"
    fi
else
    fail "asan: build (log: $LOG)"
fi

# --- Fan-out benchmark program: smoke run (no speed assertions). ---
stage "ovsdb-monitor: bench-fanout smoke run"
B="$T/gcc/bench-fanout"
kv() {
    tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p"
}
if [ -x "$B" ]; then
    declare -A L
    smoke_ok=yes
    modes="no-cache json-cache serialized-cache shared shared-cond"
    for m in $modes; do
        L[$m]=$("$B" --mode "$m" --clients 20 --rows 60 --batch 20 --txns 3 \
                    --version mix 2>>"$LOG") || smoke_ok=no
        echo "${L[$m]:-}" >>"$LOG"
        L[g$m]=$("$B" --mode "$m" --clients 20 --rows 60 --batch 20 --txns 3 \
                     --groups 4 2>>"$LOG") || smoke_ok=no
        echo "${L[g$m]:-}" >>"$LOG"
    done
    if [ $smoke_ok = yes ]; then
        same=yes
        for m in $modes; do
            for k in init_bytes_sent bytes_sent checksum messages; do
                [ "$(kv $k "${L[$m]}")" = "$(kv $k "${L[no-cache]}")" ] || same=no
                [ "$(kv $k "${L[g$m]}")" = "$(kv $k "${L[gno-cache]}")" ] || same=no
            done
        done
        if [ $same = yes ] && [ "$(kv bytes_sent "${L[no-cache]}")" -gt 0 ] &&
            [ "$(kv bytes_sent "${L[gno-cache]}")" -gt 0 ]; then
            ok "bench-fanout: 20 clients (v1/v2/v3; and in 4 condition groups), 3 txns: same bytes and checksum in the 5 modes"
        else
            fail "bench-fanout: the modes delivered different bytes"
        fi
        # Shared notifications: 3 versions x 3 txns, one buffer each,
        # instead of one per client (20 x 3).
        b2=$(kv buffers "${L[serialized-cache]}") b3=$(kv buffers "${L[shared]}")
        n3=$(kv notifications_shared "${L[shared]}")
        if [ "$b2" = 60 ] && [ "$b3" = 9 ] && [ "$n3" = 51 ]; then
            ok "bench-fanout: update buffers: serialized-cache $b2, shared $b3 ($n3 queued by reference)"
        else
            fail "bench-fanout: buffers $b2/$b3 (shared $n3), expected 60/9 (51)"
        fi
        # Condition groups: 4 groups x 3 txns compositions with shared-cond,
        # one per client (20 x 3) otherwise.
        c3=$(kv compositions "${L[gshared]}") c4=$(kv compositions "${L[gshared-cond]}")
        if [ "$c3" = 60 ] && [ "$c4" = 12 ]; then
            ok "bench-fanout: conditional compositions: shared $c3, shared-cond $c4"
        else
            fail "bench-fanout: conditional compositions $c3/$c4, expected 60/12"
        fi
        # 3 versions x 3 txns: one serialization each with the serialized
        # cache, one per client (20 x 3) otherwise.
        s0=$(kv serializations "${L[no-cache]}")
        s1=$(kv serializations "${L[json-cache]}")
        s2=$(kv serializations "${L[serialized-cache]}")
        if [ "$s0" = 60 ] && [ "$s1" = 60 ] && [ "$s2" = 9 ] &&
            [ "$(kv serializations "${L[shared]}")" = 9 ]; then
            ok "bench-fanout: serializations of updates: no-cache $s0, json-cache $s1, serialized-cache $s2"
        else
            fail "bench-fanout: serializations $s0/$s1/$s2, expected 60/60/9"
        fi
    else
        fail "bench-fanout: a smoke run failed (log: $LOG)"
    fi
    rc=0
    err=$("$B" --clients 0 2>&1 >/dev/null) || rc=$?
    if [ "$rc" -ne 0 ] && [ "$(wc -l <<<"$err")" -eq 1 ] && grep -q -- '--clients' <<<"$err"; then
        ok "bench-fanout: bad input gets a one-line error and exit $rc"
    else
        fail "bench-fanout: bad input: exit $rc, '$err'"
    fi
    rc=0
    err=$("$TOP/ovsdb-monitor/bench-fanout.sh" --clients "1 x" 2>&1 >/dev/null) || rc=$?
    if [ "$rc" -ne 0 ] && grep -q "error: --clients" <<<"$err"; then
        ok "bench-fanout.sh: bad input gets a clear error and exit $rc"
    else
        fail "bench-fanout.sh: bad input: exit $rc, '$err'"
    fi
else
    fail "bench-fanout: binary missing"
fi

echo "log: $LOG"
summary
