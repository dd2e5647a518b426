#!/usr/bin/env bash
# In-process fan-out benchmark of the ovsdb-monitor model: the cache modes
# (no-cache, json-cache, serialized-cache, shared, shared-cond) for 1, 10,
# 100 and 1000 monitor_cond_since clients.  For each it prints the work
# counters (compositions, serializations, message buffers made and their
# bytes), callgrind instruction counts of the fan-out (initial replies,
# then the updates of K transactions) and medians of the wall time of the
# same sections over several native runs, interleaved mode by mode.
#
# usage: ovsdb-monitor/bench-fanout.sh [--clients "1 10 100 1000"]
#            [--modes "no-cache json-cache ..."] [--groups G]
#            [--reps 5] [--rows 200] [--batch 40] [--txns 5]
#            [--version 1|2|3|mix] [--no-callgrind] [--out DIR]
#
# The first mode is the reference of the "vs" columns.  --groups G makes
# the clients conditional, in G groups of identical conditions.  Same as
# `make -C ovsdb-monitor bench`.  Exits non-zero if the modes did not
# deliver the same bytes.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export TOP
# shellcheck source=../scripts/lib/common.sh
. "$TOP/scripts/lib/common.sh"
# shellcheck source=../bench/lib.sh
. "$TOP/bench/lib.sh"

CLIENTS="1 10 100 1000"
REPS=5
ROWS=200
BATCH=40
TXNS=5
VERSION=3
CALLGRIND=yes
OUT=""
MODES="no-cache json-cache serialized-cache shared shared-cond"
NGROUPS=0

usage() {
    sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

is_uint() {
    [[ $1 =~ ^[0-9]+$ ]]
}

parse_options ovsdb-monitor/bench-fanout.sh '
    --clients CLIENTS text
    --modes MODES text
    --groups NGROUPS text
    --reps REPS text
    --rows ROWS text
    --batch BATCH text
    --txns TXNS text
    --version VERSION text
    --no-callgrind CALLGRIND =no
    --out OUT text' "$@"
for n in $CLIENTS; do
    is_uint "$n" && [ "$n" -ge 1 ] || die "--clients: '$n' is not a positive number"
done
[ -n "$CLIENTS" ] || die "--clients: empty list"
[ -n "$MODES" ] || die "--modes: empty list"
for m in $MODES; do
    case $m in
    no-cache|json-cache|serialized-cache|shared|shared-cond) ;;
    *) die "--modes: unknown mode '$m'" ;;
    esac
done
REF=${MODES%% *}
for v in "$REPS" "$ROWS" "$BATCH" "$TXNS" "$NGROUPS"; do
    is_uint "$v" || die "'$v' is not a number"
done
[ "$REPS" -ge 1 ] || die "--reps must be at least 1"
[ "$NGROUPS" -le 30 ] || die "--groups must be 0 to 30"
case $VERSION in 1|2|3|mix) ;; *) die "--version: expected 1, 2, 3 or mix" ;; esac

log_start bench-ovsdb-monitor
OUT=${OUT:-"$BUILD/ovsdb-monitor/bench"}
mkdir -p "$OUT"
OBJ="$OUT/build"
BIN="$OBJ/bench-fanout"

pkgs=(build-essential make)
[ "$CALLGRIND" = no ] || pkgs+=(valgrind)
need_pkgs "${pkgs[@]}"

stage "build bench-fanout (-O2 -g) in $OBJ"
run make -C "$TOP/ovsdb-monitor" -j2 O="$OBJ" "$BIN" ||
    die "build failed (log: $LOG)"

ARGS=(--rows "$ROWS" --batch "$BATCH" --txns "$TXNS" --version "$VERSION"
      --groups "$NGROUPS")
RES="$OUT/raw-$(date +%Y%m%d-%H%M%S).txt"
: >"$RES"

# Value of KEY in a key=value line.
kv() {
    tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p"
}

# imedian VALUE...: the median of the values (bench/lib.sh), rounded to an
# integer.
imedian() {
    printf '%.0f\n' "$(median "$@")"
}

declare -A LINE IR_INIT IR_UPD

# --- Callgrind: one run per configuration (instruction counts are stable).
if [ "$CALLGRIND" = yes ]; then
    for n in $CLIENTS; do
        for m in $MODES; do
            stage "callgrind: $n clients, $m"
            d="$OUT/callgrind/$n-$m"
            rm -rf "$d"
            mkdir -p "$d"
            line=$(valgrind --tool=callgrind --instr-atstart=no \
                       --callgrind-out-file="$d/cg.%p" \
                       "$BIN" --mode "$m" --clients "$n" "${ARGS[@]}" \
                       2>>"$LOG") || die "callgrind run failed (log: $LOG)"
            echo "callgrind $line" >>"$RES"
            LINE[$n,$m]=$line
            f1=$(ls "$d"/cg.*.1) f2=$(ls "$d"/cg.*.2)
            IR_INIT[$n,$m]=$(sed -n 's/^totals: *//p' "$f1")
            IR_UPD[$n,$m]=$(sed -n 's/^totals: *//p' "$f2")
            [ -n "${IR_INIT[$n,$m]}" ] && [ -n "${IR_UPD[$n,$m]}" ] ||
                die "no totals in $f1 / $f2"
        done
    done
fi

# --- Wall time: REPS native runs per configuration, modes interleaved.
declare -A WALL_INIT WALL_UPD
for n in $CLIENTS; do
    for r in $(seq 1 "$REPS"); do
        stage "wall time: $n clients, run $r/$REPS (modes interleaved)"
        for m in $MODES; do
            line=$("$BIN" --mode "$m" --clients "$n" "${ARGS[@]}") ||
                die "bench-fanout failed"
            echo "native $line" >>"$RES"
            [ -n "${LINE[$n,$m]:-}" ] || LINE[$n,$m]=$line
            WALL_INIT[$n,$m]+="$(kv init_wall_ns "$line") "
            WALL_UPD[$n,$m]+="$(kv wall_ns "$line") "
        done
    done
done
echo "raw results: $RES" | tee -a "$LOG"

# --- Same bytes in every mode, or the comparison means nothing.
for n in $CLIENTS; do
    ref=${LINE[$n,$REF]}
    for m in $MODES; do
        for k in init_bytes_sent bytes_sent checksum messages; do
            [ "$(kv $k "${LINE[$n,$m]}")" = "$(kv $k "$ref")" ] ||
                die "$n clients: $m and $REF differ in $k"
        done
    done
done

ms() {
    awk -v ns="$1" 'BEGIN { printf "%.2f", ns / 1e6 }'
}
ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "-" }'
}

# table SECTION: one table for "init" (initial replies) or "upd" (updates).
table() {
    local sect=$1 n m line comp ser sent buf bbuf ir w ref_ir ref_w pre
    if [ "$sect" = init ]; then
        pre=init_
        echo "Initial replies: N clients join a database of $ROWS logical flows"
    else
        pre=""
        echo "Updates: $TXNS transactions of ~$BATCH rows each, fanned out to N clients"
    fi
    printf '%7s  %-16s %6s %6s %7s %12s %12s %14s %10s %7s %9s %7s\n' \
        clients mode compose serial buffers "bytes buffer" "bytes sent" \
        "Ir (callgrind)" "Ir/client" "vs ref" "wall ms" "vs ref"
    for n in $CLIENTS; do
        for m in $MODES; do
            line=${LINE[$n,$m]}
            comp=$(kv ${pre}compositions "$line")
            ser=$(kv ${pre}serializations "$line")
            sent=$(kv ${pre}bytes_sent "$line")
            buf=$(kv ${pre}buffers "$line")
            bbuf=$(kv ${pre}bytes_buffered "$line")
            if [ "$sect" = init ]; then
                ir=${IR_INIT[$n,$m]:-} ref_ir=${IR_INIT[$n,$REF]:-}
                w=$(imedian ${WALL_INIT[$n,$m]})
                ref_w=$(imedian ${WALL_INIT[$n,$REF]})
            else
                ir=${IR_UPD[$n,$m]:-} ref_ir=${IR_UPD[$n,$REF]:-}
                w=$(imedian ${WALL_UPD[$n,$m]})
                ref_w=$(imedian ${WALL_UPD[$n,$REF]})
            fi
            printf '%7s  %-16s %6s %6s %7s %12s %12s %14s %10s %7s %9s %7s\n' \
                "$n" "$m" "$comp" "$ser" "$buf" "$bbuf" "$sent" "${ir:--}" \
                "$([ -n "$ir" ] && echo $((ir / n)) || echo -)" \
                "$([ -n "$ir" ] && ratio "$ref_ir" "$ir" || echo -)" \
                "$(ms "$w")" "$(ratio "$ref_w" "$w")"
        done
    done
}

SUMMARY="$OUT/results-$(date +%Y%m%d-%H%M%S).txt"
{
    echo "ovsdb-monitor fan-out benchmark ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores)"
    if [ "$NGROUPS" -gt 0 ]; then
        echo "clients: version $VERSION, conditional, in $NGROUPS groups of identical conditions; wall: median of $REPS runs"
    else
        echo "clients: version $VERSION, no condition, one monitor id; wall: median of $REPS runs"
    fi
    echo "compose/serial: update compositions / serializations of update bodies"
    echo "buffers, bytes buffer: message buffers made and their bytes; vs ref: $REF / mode"
    echo
    table init
    echo
    table upd
} | tee "$SUMMARY"
echo "summary: $SUMMARY"
echo "log: $LOG"
