#!/usr/bin/env bash
# bench/heap-load.sh BINDIR DB OUT [TOOL]
#
# Loads the standalone database DB into BINDIR/ovsdb-server under heaptrack
# (TOOL=heaptrack, default) or valgrind massif (TOOL=massif), waits until it
# serves, reads VmHWM/VmRSS from /proc, asks it to exit, and writes a text
# report to OUT: peak heap, the heap while it serves after the load, the top
# peak contributors, and /proc figures.  Only byte counts: they do not
# depend on the machine's load.
set -euo pipefail

BINDIR=${1:-}; DB=${2:-}; OUT=${3:-}; TOOL=${4:-heaptrack}
# shellcheck source=SCRIPTDIR/heap-server.sh
. "$(dirname "${BASH_SOURCE[0]}")/heap-server.sh"
heap_need_bins ovsdb-server ovs-appctl
[ -f "$DB" ] || die "no database '$DB'"
[ -n "$OUT" ] || die "usage: $0 BINDIR DB OUT [heaptrack|massif]"

cp "$DB" "$RUN/db"
case $TOOL in
heaptrack) server_start "$RUN" heaptrack -o "$RUN/ht" ;;
massif) server_start "$RUN" valgrind --tool=massif \
            --massif-out-file="$RUN/massif.out" --time-unit=B \
            --detailed-freq=1000000 --max-snapshots=200 ;;
*) die "unknown tool '$TOOL'" ;;
esac
PID=$(pgrep -P "$SERVER" -f ovsdb-server || true)
[ -n "$PID" ] || PID=$SERVER
case $TOOL in massif) PID=$SERVER ;; esac
sleep 2
{
    echo "database: $DB ($(stat -c %s "$DB") bytes)"
    echo "server: $BINDIR/ovsdb-server (pid $PID, under $TOOL)"
    "$BINDIR/ovs-appctl" -t "$RUN/ctl" memory/show | sed 's/^/memory\/show: /'
    grep -E '^(VmHWM|VmRSS)' "/proc/$PID/status" | sed 's/^/after load, under the tool: /'
} >"$OUT"
server_stop "$RUN"

case $TOOL in
heaptrack)
    local_file=$(find "$RUN" -maxdepth 1 -name "ht*.zst" -o -maxdepth 1 -name "ht*.gz" | head -n1)
    [ -n "$local_file" ] || die "heaptrack wrote no data; see $RUN/tool.out"
    heaptrack_print -f "$local_file" --print-peaks --peak-limit 8 \
        --print-allocators 0 --print-temporary 0 --print-leaks 0 \
        -F "$RUN/flame.txt" --flamegraph-cost-type peak \
        -M "$RUN/massif.out" >"$RUN/print.txt" 2>&1 || true
    {
        echo
        echo "== heaptrack_print summary"
        sed -n '/^total runtime/,$p' "$RUN/print.txt"
        echo
        echo "== heap at the peak, by who allocated it (heaptrack, peak cost)"
        awk '{ n = $NF; t += n }
             /ovsdb_file_txn_read_row_cb|ovsdb_file_txn_from_json|ovsdb_file_txn_add_json|ovsdb_txn_replay_commit/ { rows += n; next }
             /parse_body/ { pb += n }
             END { printf "total at peak: %d B\n", t;
                   printf "json tree built by parse_body() (rows converted inside it count as rows): %d B (%.1f %%)\n", pb, t ? 100 * pb / t : 0;
                   printf "database rows (txn from json, commit): %d B (%.1f %%)\n", rows, t ? 100 * rows / t : 0;
                   printf "other: %d B (%.1f %%)\n", t - pb - rows, t ? 100 * (t - pb - rows) / t : 0 }' \
            "$RUN/flame.txt"
    } >>"$OUT"
    ;;
esac
{
    echo
    echo "== heap over time (mem_heap_B of the massif snapshots, repeats collapsed)"
    grep '^mem_heap_B=' "$RUN/massif.out" | cut -d= -f2 | uniq -c |
        awk '{ printf "%s%s", $2, ($1 > 1 ? "(x" $1 ")" : ""); printf " " } END { print "" }'
    echo "peak heap (max snapshot): $(grep '^mem_heap_B=' "$RUN/massif.out" | cut -d= -f2 | sort -n | tail -n1) B"
    echo "live heap after load (the plateau while the server idles: most frequent snapshot): $(grep '^mem_heap_B=' "$RUN/massif.out" | cut -d= -f2 | sort | uniq -c | sort -n | tail -n1 | awk '{print $2}') B"
} >>"$OUT"

# The same load without any tool: what the kernel counts.
cp "$DB" "$RUN/db"
server_start "$RUN"
sleep 1
{
    echo
    echo "== without a tool (kernel's figures after load)"
    grep -E '^(VmHWM|VmRSS)' "/proc/$SERVER/status"
} >>"$OUT"
server_stop "$RUN"
echo "wrote $OUT"
