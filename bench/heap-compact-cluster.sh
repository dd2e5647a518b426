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

die() { echo "error: $*" >&2; exit 1; }

BINDIR=${1:-}; DB=${2:-}; OUT=${3:-}
for b in ovsdb-tool ovsdb-server ovsdb-client ovs-appctl; do
    [ -x "$BINDIR/$b" ] || die "no $b in '$BINDIR'"
done
[ -f "$DB" ] || die "no database '$DB'"
[ -n "$OUT" ] || die "usage: $0 BINDIR DB OUT"
command -v heaptrack >/dev/null || die "heaptrack is not installed"

RUN=$(mktemp -d)
SERVER=
cleanup() {
    if [ -n "$SERVER" ] && kill -0 "$SERVER" 2>/dev/null; then
        kill "$SERVER" 2>/dev/null || true
    fi
    rm -rf "$RUN"
}
trap cleanup EXIT

# heap_peak FILE: heaptrack's peak heap, from its data FILE.
heap_peak() {
    heaptrack_print -f "$1" --print-peaks 0 --print-allocators 0 \
        --print-temporary 0 --print-leaks 0 -M "$RUN/massif.out" 2>/dev/null |
        sed -n 's/^peak heap memory consumption: //p'
}

# make_cluster DIR: DIR/db, a one-server cluster with the data of DB.
make_cluster() {
    local dir=$1
    rm -rf "$dir"
    mkdir "$dir"
    "$BINDIR/ovsdb-tool" create-cluster "$dir/db" "$DB" "unix:$dir/raft" ||
        die "create-cluster failed"
}

# server_start DIR [TOOL...]: starts ovsdb-server on DIR/db, waits until the
# cluster serves, and adds one transaction to its log.
server_start() {
    local dir=$1; shift
    "$@" "$BINDIR/ovsdb-server" "$dir/db" --no-chdir \
        --unixctl="$dir/ctl" --remote="punix:$dir/sock" \
        --log-file="$dir/log" -vconsole:off >"$dir/tool.out" 2>&1 &
    SERVER=$!
    local name
    name=$("$BINDIR/ovsdb-tool" db-name "$DB")
    for _ in $(seq 1 600); do
        if [ -S "$dir/sock" ] &&
           timeout 5 "$BINDIR/ovsdb-client" wait "unix:$dir/sock" "$name" \
               connected >/dev/null 2>&1; then
            "$BINDIR/ovsdb-client" transact "unix:$dir/sock" \
                "[\"$name\", {\"op\": \"comment\", \"comment\": \"bench\"}]" \
                >/dev/null || die "transaction failed"
            return 0
        fi
        kill -0 "$SERVER" 2>/dev/null || die "server exited; see $dir/tool.out"
        sleep 0.5
    done
    die "server not ready after 300 s"
}

server_stop() {
    "$BINDIR/ovs-appctl" -t "$1/ctl" exit >/dev/null 2>&1 || true
    wait "$SERVER" || true
    SERVER=
}

status() {
    sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status"
}

server_compact() {
    make_cluster "$RUN/srv"
    server_start "$RUN/srv"
    sleep 1
    local hwm
    hwm=$(status "$SERVER" VmHWM)
    echo 5 >"/proc/$SERVER/clear_refs"
    "$BINDIR/ovs-appctl" -t "$RUN/srv/ctl" ovsdb-server/compact
    echo "ovsdb-server (cluster): VmHWM after load $hwm," \
         "VmHWM of the compaction alone $(status "$SERVER" VmHWM)," \
         "VmRSS after it $(status "$SERVER" VmRSS)," \
         "file after it $(stat -c %s "$RUN/srv/db") bytes"
    server_stop "$RUN/srv"

    make_cluster "$RUN/srv"
    server_start "$RUN/srv" heaptrack -o "$RUN/srv/ht"
    sleep 2
    "$BINDIR/ovs-appctl" -t "$RUN/srv/ctl" ovsdb-server/compact
    server_stop "$RUN/srv"
    local data
    data=$(ls "$RUN"/srv/ht.*)
    echo "ovsdb-server (cluster) load + compaction: peak heap" \
         "$(heap_peak "$data")"
    # As in heap-compact.sh: the plateau after the load is the most frequent
    # snapshot; the maximum after its first occurrence is the compaction's.
    grep '^mem_heap_B=' "$RUN/massif.out" | cut -d= -f2 >"$RUN/srv/heap"
    local plateau
    plateau=$(sort "$RUN/srv/heap" | uniq -c | sort -n | tail -n1 |
              awk '{print $2}')
    echo "ovsdb-server (cluster): live heap after load $plateau B, peak heap" \
         "of the compaction $(awk -v p="$plateau" '$1 == p { seen = 1 }
                       seen && $1 > m { m = $1 } END { print m + 0 }' \
                       "$RUN/srv/heap") B"
}

{
    echo "database: $DB ($(stat -c %s "$DB") bytes), as a one-server" \
         "cluster; binaries: $BINDIR"
    server_compact
} >"$OUT"
cat "$OUT"
