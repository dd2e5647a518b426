#!/usr/bin/env bash
# bench/heap-compact-cluster.sh BINDIR DB OUT
#
# Memory of a compaction of a clustered database that holds the data of the
# standalone database DB, with the binaries in BINDIR (ovsdb-tool,
# ovsdb-server, ovsdb-client, ovs-appctl):
#  - "ovsdb-tool create-cluster" makes a one-server cluster from DB (its
#    snapshot is DB's data), the server loads it and one small transaction
#    goes into its log (raft stores no snapshot of an empty log);
#  - "ovs-appctl ovsdb-server/compact": VmHWM after the load, then the peak
#    is reset (clear_refs) and VmHWM read again after the compaction, so it is
#    the compaction's own peak;
#  - the same under heaptrack: the peak heap of load plus compaction, and
#    from heaptrack's massif output the live heap after the load and the
#    peak of the compaction alone.
# Byte counts only: they do not depend on the machine's load.
set -euo pipefail

BINDIR=${1:-}; DB=${2:-}; OUT=${3:-}
# shellcheck source=SCRIPTDIR/heap-server.sh
. "$(dirname "${BASH_SOURCE[0]}")/heap-server.sh"
heap_need_bins ovsdb-tool ovsdb-server ovsdb-client ovs-appctl
[ -f "$DB" ] || die "no database '$DB'"
[ -n "$OUT" ] || die "usage: $0 BINDIR DB OUT"
command -v heaptrack >/dev/null || die "heaptrack is not installed"

# make_cluster DIR: DIR/db, a one-server cluster with the data of DB.
make_cluster() {
    local dir=$1
    rm -rf "$dir"
    mkdir "$dir"
    "$BINDIR/ovsdb-tool" create-cluster "$dir/db" "$DB" "unix:$dir/raft" ||
        die "create-cluster failed"
}

# cluster_start DIR [WRAPPER...]: server_start, then waits until the
# cluster serves and adds one transaction to its log.
cluster_start() {
    local dir=$1 name
    server_start "$@"
    name=$("$BINDIR/ovsdb-tool" db-name "$DB")
    cluster_wait_serving "$dir" "$name"
    "$BINDIR/ovsdb-client" transact "unix:$dir/sock" \
        "[\"$name\", {\"op\": \"comment\", \"comment\": \"bench\"}]" \
        >/dev/null || die "transaction failed"
}

server_compact() {
    make_cluster "$RUN/srv"
    cluster_start "$RUN/srv"
    sleep 1
    local hwm
    hwm=$(vm_status "$SERVER" VmHWM)
    echo 5 >"/proc/$SERVER/clear_refs"
    "$BINDIR/ovs-appctl" -t "$RUN/srv/ctl" ovsdb-server/compact
    echo "ovsdb-server (cluster): VmHWM after load $hwm," \
         "VmHWM of the compaction alone $(vm_status "$SERVER" VmHWM)," \
         "VmRSS after it $(vm_status "$SERVER" VmRSS)," \
         "file after it $(stat -c %s "$RUN/srv/db") bytes"
    server_stop "$RUN/srv"

    make_cluster "$RUN/srv"
    cluster_start "$RUN/srv" heaptrack -o "$RUN/srv/ht"
    sleep 2
    "$BINDIR/ovs-appctl" -t "$RUN/srv/ctl" ovsdb-server/compact
    server_stop "$RUN/srv"
    local data
    data=$(ls "$RUN"/srv/ht.*)
    echo "ovsdb-server (cluster) load + compaction: peak heap" \
         "$(heap_peak "$data")"
    compaction_heap "ovsdb-server (cluster)"
}

{
    echo "database: $DB ($(stat -c %s "$DB") bytes), as a one-server" \
         "cluster; binaries: $BINDIR"
    server_compact
} >"$OUT"
cat "$OUT"
