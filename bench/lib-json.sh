#!/usr/bin/env bash
# Benchmark: lib-json against OVS's lib/json.c, stock and patched.
#
#   ./build.sh bench lib-json [--runs N] [--mb MB] [--iter N]
#                             [--stock DIR] [--patched DIR] [--no-callgrind]
#
# Each document is parsed and then serialized with sorted keys by a small
# driver (bench/lib-json/driver.c) compiled three times: against lib-json,
# and against lib/.libs/libopenvswitch.a of a stock and of a patched OVS
# tree.  Documents: a dump of the quick OVN databases if the json benchmark
# made them (build/bench/db/quick-*.db), generated OVSDB-shaped rows, a large
# array of ["uuid", "..."] pairs, and string-heavy objects; and, for the
# documents whose members arrive sorted (the databases, the string-heavy
# objects), the same documents with every object's members in a random
# order ("-unsorted"): lib-json skips sorting sorted input, which flatters
# it there.  All three builds must produce byte-identical output (checked).
#
# Reports callgrind instruction counts of the parse+serialize function (one
# run: the counts are deterministic) and wall times of --runs interleaved
# runs (A B C A B C ...): the median with the spread of the runs (min and
# max, in % of the median), and a ratio only where the two ranges do not
# overlap.  The machine (CPU, cores, load average before and after) is part
# of the report; wall times from a busy machine are not comparable.  The table is printed, and written to
# build/lib-json/bench/results-<UTC time>.txt and bench/lib-json/RESULTS.md.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# usage: the header above, without its "#".
usage() {
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' \
        "${BASH_SOURCE[0]}"
}

RUNS=5
MB=4
ITER=3
STOCK=
PATCHED=
CALLGRIND=1
parse_options 'bench lib-json' '
    --runs RUNS text
    --mb MB text
    --iter ITER text
    --stock STOCK text
    --patched PATCHED text
    --no-callgrind CALLGRIND =0' "$@"
for v in "$RUNS" "$ITER"; do
    case $v in ''|*[!0-9]*|0) die "--runs and --iter take a positive integer" ;; esac
done
case $MB in ''|*[!0-9.]*) die "--mb takes a number of megabytes" ;; esac

log_start bench-lib-json
need_pkgs build-essential valgrind libssl-dev make

B="$BUILD/lib-json/bench"
mkdir -p "$B/docs"

has_lib() {
    [ -f "$1/lib/.libs/libopenvswitch.a" ]
}
has_inline_strings() {
    grep -qE 'JSON_STRING_INLINE_LEN|storage_type' "$1/include/openvswitch/json.h"
}

# --- Trees. ---
if [ -z "$STOCK" ]; then
    for d in "$BUILD/ref/$DEFAULT_BASE-stock" "$BUILD/bench/$DEFAULT_BASE-stock"; do
        if has_lib "$d"; then STOCK=$d; break; fi
    done
fi
[ -n "$STOCK" ] && has_lib "$STOCK" ||
    die "no built stock OVS tree (build/ref/$DEFAULT_BASE-stock or build/bench/$DEFAULT_BASE-stock); use --stock DIR"
has_inline_strings "$STOCK" && die "$STOCK has inline strings: not a stock tree"

PATCHED_NOTE=
if [ -z "$PATCHED" ]; then
    for d in "$BUILD/ovs-$DEFAULT_BASE" "$BUILD/bench/$DEFAULT_BASE-patched"; do
        if has_lib "$d" && has_inline_strings "$d"; then PATCHED=$d; break; fi
    done
fi
if [ -n "$PATCHED" ]; then
    has_lib "$PATCHED" || die "$PATCHED has no lib/.libs/libopenvswitch.a"
    has_inline_strings "$PATCHED" ||
        PATCHED_NOTE="(note: $PATCHED has no inline strings in json.h)"
else
    PATCHED_NOTE="patched OVS: no built tree with the series yet (looked at build/ovs-$DEFAULT_BASE and build/bench/$DEFAULT_BASE-patched); measured lib-json and stock only"
fi

PATCHED_DESC=
if [ -n "$PATCHED" ] && git -C "$PATCHED" rev-parse --git-dir >/dev/null 2>&1; then
    PATCHED_DESC="at $(git -C "$PATCHED" log -1 --format='%h "%s"')"
    if git -C "$PATCHED" status --porcelain --untracked-files=no | grep -q .; then
        PATCHED_DESC+=" plus uncommitted changes"
    fi
fi

# --- Drivers. ---
stage "building lib-json (-O2) and the drivers"
run make -C "$TOP/lib-json" -j2 O="$B/lib" OPT="-O2 -gdwarf-4" "$B/lib/libovsjson.a"
DRV="$TOP/bench/lib-json/driver.c"
run cc -std=gnu11 -O2 -gdwarf-4 -I"$TOP/lib-json/include" "$DRV" \
    "$B/lib/libovsjson.a" -o "$B/drv-libjson"

ovs_libs() {
    local mk="$1/Makefile" v out=
    for v in LIBS SSL_LIBS CAPNG_LDADD; do
        out+=" $(sed -n "s/^$v = //p" "$mk" | head -n1)"
    done
    echo "$out -lpthread"
}
build_ovs_driver() {
    local tree=$1 out=$2
    # shellcheck disable=SC2046
    run cc -std=gnu11 -O2 -gdwarf-4 -I"$tree/include" -I"$tree" "$DRV" \
        "$tree/lib/.libs/libopenvswitch.a" $(ovs_libs "$tree") -o "$out"
}
IMPLS=(libjson stock)
declare -A LABEL=([libjson]="lib-json" [stock]="stock OVS" [patched]="patched OVS")
build_ovs_driver "$STOCK" "$B/drv-stock"
if [ -n "$PATCHED" ]; then
    build_ovs_driver "$PATCHED" "$B/drv-patched"
    IMPLS+=(patched)
fi

# --- Documents. ---
stage "documents"
DOCS=()
mapfile -t dbs < <(find "$BUILD/bench/db" -maxdepth 1 -name 'quick-*.db' 2>/dev/null | sort)
for db in "${dbs[@]}"; do
    name="db-$(basename "$db" .db)"
    # Records follow "OVSDB JSON <len> <sha1>" lines: join them in an array.
    awk 'BEGIN { printf "[" }
         prev ~ /^OVSDB JSON / { printf "%s%s", (n++ ? "," : ""), $0 }
         { prev = $0 }
         END { printf "]" }' "$db" >"$B/docs/$name.json"
    DOCS+=("$name")
done
[ ${#dbs[@]} -gt 0 ] ||
    echo "  (no quick OVN databases in $BUILD/bench/db: './build.sh bench json --scale quick' makes them; using generated OVSDB rows only)"
for kind in ovsdb uuid-pairs strings; do
    run "$B/drv-libjson" gen "$kind" "$MB" "$B/docs/gen-$kind.json"
    DOCS+=("gen-$kind")
done
# The same documents with unsorted object members, where they were sorted.
for d in "${DOCS[@]}"; do
    case $d in
    db-*|gen-strings)
        run "$B/drv-libjson" unsort "$B/docs/$d.json" "$B/docs/$d-unsorted.json"
        DOCS+=("$d-unsorted")
        ;;
    esac
done
for d in "${DOCS[@]}"; do
    awk -v d="$d" -v n="$(stat -c %s "$B/docs/$d.json")" \
        'BEGIN { printf "  %-22s %8.1f MB\n", d, n / 1e6 }'
done

# --- Same output from every implementation. ---
stage "checking that all implementations produce identical output"
declare -A SUM
for d in "${DOCS[@]}"; do
    for i in "${IMPLS[@]}"; do
        out=$("$B/drv-$i" run "$B/docs/$d.json" 1) ||
            die "$i failed on $d (see $LOG)"
        SUM[$d-$i]=${out#* }
    done
    for i in "${IMPLS[@]}"; do
        [ "${SUM[$d-$i]}" = "${SUM[$d-libjson]}" ] ||
            die "$d: output of ${LABEL[$i]} (${SUM[$d-$i]}) differs from lib-json (${SUM[$d-libjson]})"
    done
done

# --- callgrind. ---
declare -A IR
if [ $CALLGRIND -eq 1 ]; then
    for d in "${DOCS[@]}"; do
        for i in "${IMPLS[@]}"; do
            stage "callgrind: $d with ${LABEL[$i]}"
            cg="$B/callgrind.$d.$i"
            run valgrind --tool=callgrind --toggle-collect=workload \
                --callgrind-out-file="$cg" "$B/drv-$i" run "$B/docs/$d.json" 1
            IR[$d-$i]=$(sed -n 's/^summary: *//p' "$cg" | head -n1)
            [ -n "${IR[$d-$i]}" ] || die "no callgrind summary in $cg"
        done
    done
fi

# --- Wall time, interleaved. ---
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
declare -A NS
for r in $(seq "$RUNS"); do
    stage "wall time: run $r/$RUNS (each: $ITER x parse+serialize per document)"
    for d in "${DOCS[@]}"; do
        for i in "${IMPLS[@]}"; do
            out=$("$B/drv-$i" run "$B/docs/$d.json" "$ITER")
            ns=${out%% *}
            NS[$d-$i]+="${ns#ns=} "
            echo "$d $i run $r ${ns#ns=}" >>"$LOG"
        done
    done
done

LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
CPU=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo | head -n1)

ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'
}
mega() {
    awk -v a="$1" 'BEGIN { printf "%.1f", a / 1e6 }'
}
# stats "NS NS ...": "median min max" of the runs.
stats() {
    local m
    # shellcheck disable=SC2086  # the runs, one a word
    m=$(median $1)
    tr ' ' '\n' <<<"$1" | grep -v '^$' | sort -n |
        awk -v m="$m" 'NR == 1 { lo = $1 } { hi = $1 } END { print m, lo, hi }'
}
# cell "median min max": "12.3 -4/+9%", the median in ms and the spread.
cell() {
    awk -v m="$1" -v lo="$2" -v hi="$3" 'BEGIN {
        printf "%.1f -%d/+%d%%", m / 1e6, (m - lo) * 100 / m + 0.5,
               (hi - m) * 100 / m + 0.5 }'
}
# wall_ratio "A stats" "B stats": A/B of the medians if the ranges of the
# runs do not overlap, else "overlap".
wall_ratio() {
    local x y
    read -r -a x <<<"$1"
    read -r -a y <<<"$2"
    awk -v am="${x[0]}" -v alo="${x[1]}" -v ahi="${x[2]}" \
        -v bm="${y[0]}" -v blo="${y[1]}" -v bhi="${y[2]}" 'BEGIN {
        if (ahi < blo || bhi < alo) printf "%.2f", am / bm
        else printf "overlap" }'
}

RES="$B/results-$(date -u +%Y%m%d-%H%M%S).txt"
{
    echo "lib-json vs OVS json.c: parse + sorted serialize, $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "stock:   $STOCK"
    echo "patched: ${PATCHED:-none} ${PATCHED_DESC} ${PATCHED_NOTE}"
    echo "machine: $(uname -srm), $(nproc) CPUs ($CPU); load average $LOAD_BEFORE before the wall-time runs, $LOAD_AFTER after"
    echo "wall: median of $RUNS interleaved runs, each the mean of $ITER iterations, with the spread of the runs (min/max vs median)"
    echo
    if [ $CALLGRIND -eq 1 ]; then
        echo "Instructions (callgrind Ir, millions; parse + serialize + free; one run each, the counts are deterministic):"
        printf '%-24s %10s %10s %10s %14s %16s\n' document lib-json stock patched \
            "lib-json/stock" "lib-json/patched"
        for d in "${DOCS[@]}"; do
            p=${IR[$d-patched]:-}
            pv=n/a
            pr=n/a
            if [ -n "$p" ]; then
                pv=$(mega "$p")
                pr=$(ratio "${IR[$d-libjson]}" "$p")
            fi
            printf '%-24s %10s %10s %10s %14s %16s\n' "$d" \
                "$(mega "${IR[$d-libjson]}")" "$(mega "${IR[$d-stock]}")" \
                "$pv" "$(ratio "${IR[$d-libjson]}" "${IR[$d-stock]}")" "$pr"
        done
        echo
    fi
    echo "Wall time (ms per parse + serialize: median, spread of the runs; ratio of the medians only where the runs' ranges do not overlap):"
    printf '%-24s %18s %18s %18s %14s %16s\n' document lib-json stock patched \
        "lib-json/stock" "lib-json/patched"
    for d in "${DOCS[@]}"; do
        ws_l=$(stats "${NS[$d-libjson]}")
        ws_s=$(stats "${NS[$d-stock]}")
        pv=n/a
        pr=n/a
        if [ -n "${NS[$d-patched]:-}" ]; then
            ws_p=$(stats "${NS[$d-patched]}")
            # shellcheck disable=SC2086
            pv=$(cell $ws_p)
            pr=$(wall_ratio "$ws_l" "$ws_p")
        fi
        # shellcheck disable=SC2086
        printf '%-24s %18s %18s %18s %14s %16s\n' "$d" \
            "$(cell $ws_l)" "$(cell $ws_s)" "$pv" "$(wall_ratio "$ws_l" "$ws_s")" "$pr"
    done
    echo
    echo "Where a wall-time ratio and the instruction ratio disagree, trust the"
    echo "instructions: wall time on a shared machine also measures the other load"
    echo "(see the load average), caches and frequency scaling; 'overlap' marks the"
    echo "documents where the runs cannot tell the implementations apart."
} >"$RES"

echo
cat "$RES"
{
    echo "# lib-json benchmark: latest results"
    echo
    echo "Written by \`./build.sh bench lib-json $*\` (bench/lib-json.sh); do not edit."
    echo
    echo '```'
    cat "$RES"
    echo '```'
} >"$TOP/bench/lib-json/RESULTS.md"
echo
echo "results: $RES (and bench/lib-json/RESULTS.md); log: $LOG"
