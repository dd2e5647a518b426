#!/usr/bin/env bash
# bench/heap-join-cluster.sh BINDIR DB OUT
#
# Memory of a server that joins a cluster and installs the snapshot that
# its leader sends it, with the binaries in BINDIR (ovsdb-tool,
# ovsdb-server, ovsdb-client, ovs-appctl).  The leader is a one-server
# cluster made from the standalone database DB ("ovsdb-tool create-cluster")
# with one transaction after the snapshot, so that the leader sends a
# snapshot (install_snapshot_request) to the server that joins.  Then, for
# the server that joins only:
#  - VmHWM and VmRSS once it holds every row, without any tool;
#  - under heaptrack: the peak heap and who allocated it (peak cost, by
#    function on the stack), and the live heap once it holds every row.
# Byte counts only: they do not depend on the machine's load.
set -euo pipefail

BINDIR=${1:-}; DB=${2:-}; OUT=${3:-}
# shellcheck source=SCRIPTDIR/heap-server.sh
. "$(dirname "${BASH_SOURCE[0]}")/heap-server.sh"
heap_need_bins ovsdb-tool ovsdb-server ovsdb-client ovs-appctl
[ -f "$DB" ] || die "no database '$DB'"
[ -n "$OUT" ] || die "usage: $0 BINDIR DB OUT"
command -v heaptrack >/dev/null || die "heaptrack is not installed"

NAME=$("$BINDIR/ovsdb-tool" db-name "$DB")
LEADER=

leader_cleanup() {
    if [ -n "$LEADER" ]; then
        leader_stop
    fi
    heap_cleanup
}
trap leader_cleanup EXIT

# atoms DIR: the atom count in memory/show of the server of DIR.
atoms() {
    "$BINDIR/ovs-appctl" -t "$1/ctl" memory/show 2>/dev/null |
        sed -n 's/.*atoms:\([0-9]*\).*/\1/p'
}

# leader_start: RUN/s1, the leader, a new copy of a cluster made once from
# DB, serving DB's rows and one transaction more.
leader_start() {
    mkdir -p "$RUN/s1"
    if [ ! -f "$RUN/cluster.db" ]; then
        "$BINDIR/ovsdb-tool" create-cluster "$RUN/cluster.db" "$DB" \
            "unix:$RUN/s1/raft" 2>/dev/null || die "create-cluster failed"
    fi
    cp "$RUN/cluster.db" "$RUN/s1/db"
    rm -f "$RUN/s1/ctl" "$RUN/s1/sock"
    "$BINDIR/ovsdb-server" "$RUN/s1/db" --detach --no-chdir \
        --pidfile="$RUN/s1/pid" --unixctl="$RUN/s1/ctl" \
        --remote="punix:$RUN/s1/sock" --log-file="$RUN/s1/log" \
        -vconsole:off || die "leader did not start"
    LEADER=1
    timeout 300 "$BINDIR/ovsdb-client" wait "unix:$RUN/s1/sock" "$NAME" \
        connected >/dev/null || die "leader not serving"
    "$BINDIR/ovsdb-client" transact "unix:$RUN/s1/sock" \
        "[\"$NAME\", {\"op\": \"comment\", \"comment\": \"after the snapshot\"}]" \
        >/dev/null || die "transaction failed"
}

leader_stop() {
    local pid
    pid=$(cat "$RUN/s1/pid")
    "$BINDIR/ovs-appctl" -t "$RUN/s1/ctl" exit >/dev/null 2>&1 || true
    for _ in $(seq 1 600); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    LEADER=
}

# joiner_start [WRAPPER...]: RUN/s2 joins the leader's cluster with an empty
# log and is started (under WRAPPER if given); returns once it holds as
# many atoms as the leader.
joiner_start() {
    rm -rf "$RUN/srv"
    mkdir "$RUN/srv"
    "$BINDIR/ovsdb-tool" join-cluster "$RUN/srv/db" "$NAME" \
        "unix:$RUN/srv/raft" "unix:$RUN/s1/raft" || die "join-cluster failed"
    server_start "$RUN/srv" "$@"
    cluster_wait_serving "$RUN/srv" "$NAME"
    local want
    want=$(atoms "$RUN/s1")
    for _ in $(seq 1 600); do
        [ "$(atoms "$RUN/srv")" = "$want" ] && return 0
        sleep 0.5
    done
    die "the joining server did not reach $want atoms"
}

# The categories of the heap, for sum_categories: a line of the profile
# takes the last one that matches.
CATEGORIES='
         /jsonrpc_recv/ && /json_parser/ { c = "received request, json tree (jsonrpc_recv)" }
         /jsonrpc_recv/ && /json_parser_text_member_complete|ds_put_char/ { c = "received snapshot text (jsonrpc_recv, text mode)" }
         /raft_entry_data_serialize|json_serialized_object_create/ { c = "raft serialized copy of the data" }
         /ovsdb_file_parse_text/ { c = "json strings that the rows keep as atoms" }
         /ovsdb_file_txn_from_json|ovsdb_file_txn_add_json|ovsdb_file_txn_read_row_cb|ovsdb_txn_replay_commit/ { c = "database rows" }
         /ovsdb_txn_clone_for_history/ { c = "transaction history (clone of the snapshot transaction)" }'

{
    echo "database: $DB ($(stat -c %s "$DB") bytes), installed by a server" \
         "that joins a one-server cluster; binaries: $BINDIR"
    leader_start
    joiner_start
    sleep 1
    echo "joining ovsdb-server, once it holds every row: VmHWM" \
         "$(vm_status "$SERVER" VmHWM), VmRSS $(vm_status "$SERVER" VmRSS)"
    "$BINDIR/ovs-appctl" -t "$RUN/srv/ctl" memory/show |
        sed 's/^/memory\/show: /'
    for c in raft_snapshot_installed_as_text raft_entry_serialize \
             ovsdb_file_row_streamed; do
        echo "coverage $c: $("$BINDIR/ovs-appctl" -t "$RUN/srv/ctl" \
                               coverage/read-counter "$c" 2>/dev/null || echo -)"
    done
    server_stop "$RUN/srv"
    leader_stop
    leader_start
    joiner_start heaptrack -o "$RUN/srv/ht"
    sleep 2
    heaptrack_kill_server "$RUN/srv"
    data=$HEAP_DATA
    echo "joining ovsdb-server, heaptrack: $(heap_peak_profile "$data")"
    echo "live heap once it holds every row (plateau of the massif" \
         "snapshots): $(live_heap_plateau) B"
    echo "heap at the peak, by who allocated it:"
    sum_categories "$RUN/peak.txt" "$CATEGORIES"
} >"$OUT"
cat "$OUT"
