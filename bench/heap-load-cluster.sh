#!/usr/bin/env bash
# bench/heap-load-cluster.sh BINDIR DB OUT [snapshot|entry]
#
# Memory of loading the data of the standalone database DB (compacted) as a
# one-server cluster, with the binaries in BINDIR (ovsdb-tool, ovsdb-server,
# ovsdb-client, ovs-appctl).  With "snapshot" (the default), the cluster's
# snapshot is DB's data ("ovsdb-tool create-cluster"); with "entry", the
# cluster starts empty and DB's rows go into its log as one transaction
# (bench/txn-from-db.py), as an OVN northd that fills a new database does.
# Then:
#  - VmHWM and VmRSS once the cluster serves, without any tool;
#  - under heaptrack: the peak heap and who allocated it (peak cost, by
#    function on the stack), the live heap after the load (the plateau of
#    heaptrack's massif-format snapshots), and who holds that live heap:
#    the server is killed with SIGKILL while it idles, so what it holds
#    shows as heaptrack's "leaked" memory.
# Byte counts only: they do not depend on the machine's load.
set -euo pipefail

BINDIR=${1:-}; DB=${2:-}; OUT=${3:-}; MODE=${4:-snapshot}
# shellcheck source=SCRIPTDIR/heap-server.sh
. "$(dirname "${BASH_SOURCE[0]}")/heap-server.sh"
heap_need_bins ovsdb-tool ovsdb-server ovsdb-client ovs-appctl
[ -f "$DB" ] || die "no database '$DB'"
[ -n "$OUT" ] || die "usage: $0 BINDIR DB OUT"
command -v heaptrack >/dev/null || die "heaptrack is not installed"

NAME=$("$BINDIR/ovsdb-tool" db-name "$DB")

# make_cluster: RUN/srv/db, the cluster, from a copy made once in
# RUN/cluster.db.
make_cluster() {
    rm -rf "$RUN/srv"
    mkdir "$RUN/srv"
    if [ ! -f "$RUN/cluster.db" ]; then
        case $MODE in
        snapshot)
            "$BINDIR/ovsdb-tool" create-cluster "$RUN/srv/db" "$DB" \
                "unix:$RUN/srv/raft" || die "create-cluster failed"
            ;;
        entry)
            sed -n 2p "$DB" >"$RUN/schema"
            "$BINDIR/ovsdb-tool" create "$RUN/empty.db" "$RUN/schema" ||
                die "create failed"
            "$BINDIR/ovsdb-tool" create-cluster "$RUN/srv/db" \
                "$RUN/empty.db" "unix:$RUN/srv/raft" ||
                die "create-cluster failed"
            server_start "$RUN/srv"
            cluster_wait_serving "$RUN/srv" "$NAME"
            "$(dirname "${BASH_SOURCE[0]}")/txn-from-db.py" "$DB" \
                "$RUN/srv/sock" || die "transaction failed"
            server_stop "$RUN/srv"
            ;;
        *) die "unknown mode '$MODE'" ;;
        esac
        cp "$RUN/srv/db" "$RUN/cluster.db"
    else
        cp "$RUN/cluster.db" "$RUN/srv/db"
    fi
}

# The categories of the heap, for sum_categories: a line of the profile
# takes the last one that matches.
CATEGORIES='
         /raft_read_header/ && /parse_body/ { c = "raft header (snapshot) json tree, parse_body()" }
         /raft_read_log/ && /parse_body/ { c = "raft log records json tree, parse_body()" }
         /raft_read_log/ && /json_parser_text_member_complete|ds_put_char/ { c = "raft log entry text, kept as read" }
         /raft_read_header/ && /json_parser_feed/ && !/parse_body/ { c = "raft header (snapshot) json parser" }
         /raft_entry_data_serialize|json_serialized_object_create/ { c = "raft serialized copy of the data" }
         /raft_read_header/ && /json_parser_text_member_complete|ds_put_char/ { c = "raft snapshot text, kept as read" }
         /ovsdb_file_parse_text/ { c = "json strings that the rows keep as atoms" }
         /ovsdb_file_txn_from_json|ovsdb_file_txn_add_json|ovsdb_file_txn_read_row_cb|ovsdb_txn_replay_commit/ { c = "database rows" }
         /ovsdb_txn_clone_for_history/ { c = "transaction history (clone of the load transaction)" }'

{
    echo "database: $DB ($(stat -c %s "$DB") bytes), as a one-server" \
         "cluster ($MODE); binaries: $BINDIR"
    make_cluster
    echo "cluster file: $(stat -c %s "$RUN/srv/db") bytes"
    server_start "$RUN/srv"
    cluster_wait_serving "$RUN/srv" "$NAME"
    sleep 1
    echo "ovsdb-server (cluster), after load: VmHWM" \
         "$(vm_status "$SERVER" VmHWM), VmRSS $(vm_status "$SERVER" VmRSS)"
    "$BINDIR/ovs-appctl" -t "$RUN/srv/ctl" memory/show |
        sed 's/^/memory\/show: /'
    server_stop "$RUN/srv"

    make_cluster
    server_start "$RUN/srv" heaptrack -o "$RUN/srv/ht"
    cluster_wait_serving "$RUN/srv" "$NAME"
    sleep 2
    heaptrack_kill_server "$RUN/srv"
    data=$HEAP_DATA
    peak=$(heap_peak_profile "$data")
    heaptrack_print -f "$data" --print-peaks 0 --print-allocators 0 \
        --print-temporary 0 --print-leaks 0 \
        -F "$RUN/leaked.txt" --flamegraph-cost-type leaked >/dev/null 2>&1
    echo "ovsdb-server (cluster), heaptrack: $peak"
    echo "live heap after load (plateau of the massif snapshots):" \
         "$(live_heap_plateau) B"
    echo "heap at the peak, by who allocated it:"
    sum_categories "$RUN/peak.txt" "$CATEGORIES"
    echo "live heap after load (held when killed), by who allocated it:"
    sum_categories "$RUN/leaked.txt" "$CATEGORIES"
} >"$OUT"
cat "$OUT"
