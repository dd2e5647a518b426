#!/usr/bin/env bash
# bench/heap-reply.sh BINDIR DB OUT ["dump monitor monitor-cond-since compact"]
#
# Where the memory goes while ovsdb-server answers large requests on the
# standalone database DB, with the binaries in BINDIR (ovsdb-server,
# ovsdb-client, ovs-appctl):
#  1. /proc, no tool, the sequence of "./build.sh bench json": load, then
#     "ovsdb-client dump", a new client's initial monitor of all tables
#     ("ovsdb-client monitor ALL", monitor version 1) and
#     "ovsdb-server/compact", with the peak (VmHWM) reset with clear_refs
#     before each and read after it, and the RSS after each.  Then each
#     request on a fresh server right after the load, and also what an IDL
#     client asks first ("monitor_cond_since" of every table without a
#     condition, from a small Python client): the peak of each alone.
#  2. heaptrack, one run per request (all four, or those of the last
#     argument) on a fresh server: the peak heap, the live heap after load,
#     and the heap at the peak split by what it is and by the function that
#     allocated it, and the stacks that hold the most (from heaptrack's
#     flame graph data with the peak as cost).
# Requests: dump, monitor (version 1), monitor-cond-since (no condition),
# monitor-cond-where (monitor_cond_since with a condition on every table
# that every row meets), compact; and each monitor request with "-trees"
# appended, made with "ovsdb-server/compose-monitor-trees on" (the JSON
# trees that servers without ovsdb-streaming-load 7 compose).  PROC_SEQ=0
# skips the sequence of 1., PROC_WHAT lists the requests measured alone.
# Byte counts only: they do not depend on the machine's load.
set -euo pipefail

BINDIR=${1:-}; DB=${2:-}; OUT=${3:-}; WHAT=${4:-dump monitor monitor-cond-since compact}
# shellcheck source=SCRIPTDIR/heap-server.sh
. "$(dirname "${BASH_SOURCE[0]}")/heap-server.sh"
heap_need_bins ovsdb-server ovsdb-client ovs-appctl
[ -f "$DB" ] || die "no database '$DB'"
[ -n "$OUT" ] || die "usage: $0 BINDIR DB OUT"
command -v heaptrack >/dev/null || die "heaptrack is not installed"

DBNAME=$("$BINDIR/ovsdb-tool" db-name "$DB" 2>/dev/null ||
         sed -n '2s/.*"name":"\([^"]*\)".*/\1/p' "$DB")
[ -n "$DBNAME" ] || die "cannot tell the name of '$DB'"

# request DIR WHAT: one request to the server of DIR.
request() {
    local dir=$1
    case $2 in
    dump)
        "$BINDIR/ovsdb-client" dump -f json "unix:$dir/sock" "$DBNAME" \
            >"$dir/dump.out"
        [ -s "$dir/dump.out" ] || die "ovsdb-client dump printed nothing"
        echo "dump: $(stat -c %s "$dir/dump.out") bytes printed" >&2
        rm -f "$dir/dump.out"
        ;;
    monitor)
        # Detaches once it has printed the initial contents.
        OVS_RUNDIR=$dir "$BINDIR/ovsdb-client" --detach --no-chdir \
            --pidfile="$dir/monitor.pid" -f json monitor "unix:$dir/sock" \
            "$DBNAME" ALL >"$dir/monitor.out"
        [ -s "$dir/monitor.out" ] || die "ovsdb-client monitor printed nothing"
        kill "$(cat "$dir/monitor.pid")"
        rm -f "$dir/monitor.out"
        ;;
    *-trees)
        # The same request, with the server composing monitor updates as
        # JSON trees, as before they were serialized a row at a time.
        "$BINDIR/ovs-appctl" -t "$dir/ctl" \
            ovsdb-server/compose-monitor-trees on
        request "$dir" "${2%-trees}"
        ;;
    monitor-cond-since|monitor-cond-where)
        # What an IDL client (ovn-northd, ovn-controller) asks first: every
        # table, every column, no condition, no last transaction.  With
        # "where", a condition on every table that every row meets: a new
        # conditional client (ovn-controller) gets the same rows.
        /usr/bin/python3 - "$dir/sock" "$DBNAME" \
            "$("$BINDIR/ovsdb-client" list-tables "unix:$dir/sock" "$DBNAME" |
               tail -n +3 | tr '\n' ' ')" "$2" <<'PY'
import json, socket, sys
sock, db, tables = sys.argv[1], sys.argv[2], sys.argv[3].split()
ZERO = "00000000-0000-0000-0000-000000000000"
mr = {}
if sys.argv[4] == "monitor-cond-where":
    mr = {"where": [["_uuid", "!=", ["uuid", ZERO]]]}
s = socket.socket(socket.AF_UNIX)
s.connect(sock)
req = {"id": 1, "method": "monitor_cond_since",
       "params": [db, "m", {t: [mr] for t in tables}, ZERO]}
end = "heap-reply-end-7f3a"
s.sendall((json.dumps(req) + json.dumps(
    {"id": end, "method": "echo", "params": []})).encode())
n, tail = 0, b""
while end.encode() not in tail:
    b = s.recv(1 << 20)
    if not b:
        sys.exit("connection closed after %d bytes" % n)
    n += len(b)
    tail = (tail + b)[-256:]
print("%s: %d bytes received" % (sys.argv[4], n), file=sys.stderr)
s.close()
PY
        ;;
    compact)
        "$BINDIR/ovs-appctl" -t "$dir/ctl" ovsdb-server/compact
        ;;
    esac
}

# The server's own pid: SERVER, or its child when a wrapper forks.
server_pid() {
    local p
    p=$(pgrep -P "$SERVER" -x ovsdb-server || true)
    echo "${p:-$SERVER}"
}

proc_sequence() {
    local d="$RUN/seq" pid w
    if [ "${PROC_SEQ:-1}" = 0 ]; then
        : # Skipped: only the requests alone.
    else
    mkdir "$d"
    cp "$DB" "$d/db"
    server_start "$d"
    sleep 1
    pid=$(server_pid)
    echo "== /proc, the sequence of bench json on one server (kB)"
    echo "load: VmHWM $(vm_status "$pid" VmHWM), VmRSS $(vm_status "$pid" VmRSS)"
    for w in dump monitor compact; do
        echo 5 >"/proc/$pid/clear_refs"
        local before
        before=$(vm_status "$pid" VmRSS)
        request "$d" "$w"
        sleep 1
        echo "$w: VmRSS before $before, VmHWM $(vm_status "$pid" VmHWM)," \
             "VmRSS after $(vm_status "$pid" VmRSS)"
    done
    server_stop "$d"
    rm -rf "$d"
    fi

    echo "== /proc, each request alone on a fresh server (kB)"
    for w in ${PROC_WHAT:-dump monitor monitor-cond-since compact}; do
        mkdir "$d"
        cp "$DB" "$d/db"
        server_start "$d"
        sleep 1
        pid=$(server_pid)
        local load
        load=$(vm_status "$pid" VmRSS)
        echo 5 >"/proc/$pid/clear_refs"
        request "$d" "$w"
        sleep 1
        echo "$w: VmRSS after load $load, VmHWM of the request" \
             "$(vm_status "$pid" VmHWM), VmRSS after $(vm_status "$pid" VmRSS)"
        server_stop "$d"
        rm -rf "$d"
    done
}

# share_at_peak [N]: "BYTES<TAB>NAME" lines in; out, the total and each
# name's bytes and share of it, largest first (only the first N, if given).
share_at_peak() {
    awk -F'\t' -v top="${1:-}" '{ s[$2] += $1; t += $1 } END {
        printf "   total at peak: %d B\n", t
        for (c in s) printf "   %12d B %5.1f %%  %s\n", s[c], t ? 100 * s[c] / t : 0, c | ("sort -k1,1nr" (top ? " | head -n " top : ""))
    }'
}

heap_one() {
    local w=$1 d="$RUN/ht-$1" data
    mkdir "$d"
    cp "$DB" "$d/db"
    server_start "$d" heaptrack -o "$d/ht"
    sleep 2
    request "$d" "$w"
    sleep 2
    server_stop "$d"
    data=$(ls "$d"/ht.*)
    heaptrack_print -f "$data" --print-peaks 0 \
        --print-allocators 0 --print-temporary 0 --print-leaks 0 \
        -F "$d/flame.txt" --flamegraph-cost-type peak \
        -M "$RUN/massif.out" >"$d/print.txt" 2>&1 || true
    echo "== heaptrack, load then $w"
    sed -n 's/^peak heap memory consumption: /peak heap: /p' "$d/print.txt"
    compaction_heap "$w" | sed 's/peak heap of the compaction/peak heap after it/'
    echo "-- the heap at the peak by what it is (heaptrack flame graph, peak"
    echo "   cost; a stack counts in the first category whose function it has)"
    awk '{
        n = $NF
        if ($0 ~ /jsonrpc_shared_msg_create__|jsonrpc_send/) c = "serialized reply (one string, its capacity)"
        else if ($0 ~ /ovsdb_monitor_compose_sorted_update|ovsdb_monitor_compose_hash_order_update|ovsdb_monitor_serialize_update/) c = "serialized update (made a row at a time, or from the tree)"
        else if ($0 ~ /json_to_ds/) c = "serialized reply (one string, its capacity)"
        else if ($0 ~ /ovsdb_execute_select|ovsdb_monitor_compose_update|ovsdb_monitor_get_update/) c = "json tree of the reply"
        else if ($0 ~ /ovsdb_monitor_get_initial|ovsdb_monitor_changes_update|clone_monitor_row_data|ovsdb_monitor_add/) c = "monitor: its copy of the rows (initial change set)"
        else if ($0 ~ /open_db|read_db|parse_body|ovsdb_log_read|ovsdb_file_open|ovsdb_txn_replay_commit/) c = "database (rows, atoms, indexes: made at load)"
        else c = "other"
        print n "\t" c
    }' "$d/flame.txt" | share_at_peak
    echo "-- the same by the innermost OVS function of each stack that is"
    echo "   not an allocator or json/ds helper"
    awk '{
        n = $NF; $NF = ""
        k = split($0, f, ";")
        who = "?"
        for (i = k; i >= 1; i--) {
            g = f[i]; sub(/ .*/, "", g)
            if (g ~ /^(x?malloc|x?calloc|x?realloc|xmemdup0?|xstrdup|xmalloc__|xrealloc__|xcalloc__|ds_|json_create|json_string_create|json_array_add|json_object_put|shash_|hmap_|json_|__|operator|ovsdb_datum_to_json|ovsdb_atom_to_json|ovsdb_row_to_json|ovsdb_base_type_to_json|ovsdb_type_to_json|pvector_|cmap_|uuid_|ovsdb_datum_.*_to_json|ovsdb_atom_.*to_json|$)/) continue
            who = g; break
        }
        print n "\t" who
    }' "$d/flame.txt" | share_at_peak 12
    echo "-- the 10 stacks that hold the most at the peak (heaptrack flame"
    echo "   graph, peak cost; innermost first, allocator frames left out)"
    awk '{
        n = $NF; $NF = ""; k = split($0, f, ";"); line = ""; m = 0
        for (i = k; i >= 1 && m < 9; i--) {
            g = f[i]; sub(/ +$/, "", g); sub(/[ (].*/, "", g)
            if (g == "" || g ~ /^(x?malloc|x?calloc|x?realloc|xmalloc__|xcalloc__|xrealloc__|__libc_start|_start$|main$)/) continue
            line = line (m ? " < " : "") g; m++
        }
        s[line] += n
    } END { for (l in s) printf "   %12d B  %s\n", s[l], l }' "$d/flame.txt" | sort -k1,1nr | awk 'NR <= 10'
}

{
    echo "database: $DB ($(stat -c %s "$DB") bytes), binaries: $BINDIR"
    proc_sequence
    for w in $WHAT; do
        heap_one "$w"
    done
} >"$OUT" 2>&1
cat "$OUT"
