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
    compaction_heap ovsdb-server
}

{
    echo "database: $DB ($(stat -c %s "$DB") bytes), binaries: $BINDIR"
    tool_compact
    server_compact
} >"$OUT"
cat "$OUT"
