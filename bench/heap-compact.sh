#!/usr/bin/env bash
# bench/heap-compact.sh BINDIR DB OUT
#
# Memory of a compaction of the standalone database DB, with the binaries in
# BINDIR (ovsdb-tool, ovsdb-server, ovs-appctl):
#  - "ovsdb-tool compact" on a copy of DB: VmHWM (GNU time's maximum RSS)
#    and heaptrack's peak heap;
#  - "ovs-appctl ovsdb-server/compact" on a server that has loaded a copy of
#    DB: VmHWM after the load, then the peak is reset (clear_refs) and
#    VmHWM read again after the compaction, so it is the compaction's own
#    peak; and heaptrack's peak heap over load plus compaction, with the
#    peak of the compaction alone from heaptrack's massif output.
# Byte counts only: they do not depend on the machine's load.
set -euo pipefail

BINDIR=${1:-}; DB=${2:-}; OUT=${3:-}
# shellcheck source=SCRIPTDIR/heap-server.sh
. "$(dirname "${BASH_SOURCE[0]}")/heap-server.sh"
heap_need_bins ovsdb-tool ovsdb-server ovs-appctl
[ -f "$DB" ] || die "no database '$DB'"
[ -n "$OUT" ] || die "usage: $0 BINDIR DB OUT"
command -v heaptrack >/dev/null || die "heaptrack is not installed"
[ -x /usr/bin/time ] || die "/usr/bin/time is not installed (Debian: time)"

# heap_peak FILE: heaptrack's peak heap, in bytes, from its data FILE.
heap_peak() {
    heaptrack_print -f "$1" --print-peaks 0 --print-allocators 0 \
        --print-temporary 0 --print-leaks 0 -M "$RUN/massif.out" 2>/dev/null |
        sed -n 's/^peak heap memory consumption: //p'
}

tool_compact() {
    mkdir "$RUN/tool"
    cp "$DB" "$RUN/tool/db"
    /usr/bin/time -f '%M' -o "$RUN/tool/maxrss" \
        "$BINDIR/ovsdb-tool" compact "$RUN/tool/db"
    echo "ovsdb-tool compact: VmHWM $(cat "$RUN/tool/maxrss") kB," \
         "output $(stat -c %s "$RUN/tool/db") bytes"
    cp "$DB" "$RUN/tool/db"
    heaptrack -o "$RUN/tool/ht" "$BINDIR/ovsdb-tool" compact "$RUN/tool/db" \
        >"$RUN/tool/heaptrack.log" 2>&1 || die "heaptrack ovsdb-tool failed"
    echo "ovsdb-tool compact: peak heap $(heap_peak "$(ls "$RUN"/tool/ht.*)")"
}

server_compact() {
    mkdir "$RUN/srv"
    cp "$DB" "$RUN/srv/db"
    server_start "$RUN/srv"
    sleep 1
    local hwm
    hwm=$(vm_status "$SERVER" VmHWM)
    echo 5 >"/proc/$SERVER/clear_refs"
    "$BINDIR/ovs-appctl" -t "$RUN/srv/ctl" ovsdb-server/compact
    echo "ovsdb-server: VmHWM after load $hwm," \
         "VmHWM of the compaction alone" \
         "$(vm_status "$SERVER" VmHWM)," \
         "VmRSS after it $(vm_status "$SERVER" VmRSS)"
    server_stop "$RUN/srv"

    cp "$DB" "$RUN/srv/db"
    server_start "$RUN/srv" heaptrack -o "$RUN/srv/ht"
    sleep 2
    "$BINDIR/ovs-appctl" -t "$RUN/srv/ctl" ovsdb-server/compact
    server_stop "$RUN/srv"
    local data
    data=$(ls "$RUN"/srv/ht.*)
    echo "ovsdb-server load + compaction: peak heap $(heap_peak "$data")"
    # The massif snapshots are in time order: the heap plateau after the
    # load is the most frequent value before the compaction; the maximum
    # after the first snapshot of that plateau is the compaction's peak.
    grep '^mem_heap_B=' "$RUN/massif.out" | cut -d= -f2 >"$RUN/srv/heap"
    local plateau
    plateau=$(sort "$RUN/srv/heap" | uniq -c | sort -n | tail -n1 |
              awk '{print $2}')
    echo "ovsdb-server: live heap after load $plateau B, peak heap of the" \
         "compaction $(awk -v p="$plateau" '$1 == p { seen = 1 }
                       seen && $1 > m { m = $1 } END { print m + 0 }' \
                       "$RUN/srv/heap") B"
}

{
    echo "database: $DB ($(stat -c %s "$DB") bytes), binaries: $BINDIR"
    tool_compact
    server_compact
} >"$OUT"
cat "$OUT"
