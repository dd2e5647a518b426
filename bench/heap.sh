#!/usr/bin/env bash
# bench/heap.sh [--cluster] MODE BINDIR DB [ARG] [--tag TAG] [--out FILE]
#
# Where ovsdb-server's memory goes, with the binaries in BINDIR, on the
# standalone database DB.  One mode a run:
#   load [heaptrack|massif]            heap and RSS of loading DB
#   compact                            ovsdb-tool and ovsdb-server compaction
#   reply ["REQUEST..."]               heap of large replies (dump, monitor...)
#   --cluster load [snapshot|entry]    DB loaded as a one-server cluster
#   --cluster compact                  compaction of that cluster
#   --cluster join  (or just "join")   a server that joins a cluster
# Each mode's function below says what it measures.  Byte counts only: they
# do not depend on the machine's load.  The report goes to FILE, by default
# bench/results/evidence/heap-MODE[-cluster][-TAG]-DBNAME-YYYYMMDD.txt
# (DBNAME: DB's file name without .db; the results folder honours
# OVS_JSON_PERF_RESULTS), and is printed.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$HERE/lib.sh"

# usage: the synopsis, on stderr, then exit 1.
usage() {
    sed -n '2,/^set -euo/{/^set/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}" >&2
    exit 1
}

# parse_args ARGS...: sets CLUSTER, MODE, BINDIR, DB, ARG, TAG and OUT.
parse_args() {
    CLUSTER=0 TAG='' OUT=''
    local pos=()
    parse_options bench/heap.sh '
        --cluster CLUSTER =1
        --tag TAG text
        --out OUT text
        @ pos' "$@"
    [ ${#pos[@]} -ge 3 ] && [ ${#pos[@]} -le 4 ] || usage
    MODE=${pos[0]} BINDIR=${pos[1]} DB=${pos[2]} ARG=${pos[3]:-}
    [ "$MODE" != join ] || CLUSTER=1
}

# out_file: the default report path (see the header).
out_file() {
    local dir=${OVS_JSON_PERF_RESULTS:-"$HERE/results"}/evidence name
    name=heap-$MODE
    [ "$CLUSTER" = 0 ] || name+=-cluster
    [ -z "$TAG" ] || name+=-$TAG
    mkdir -p "$dir"
    echo "$dir/$name-$(basename "$DB" .db)-$(date -u +%Y%m%d).txt"
}

# heap_cleanup: stop the server if it still runs, remove the scratch dir.
heap_cleanup() {
    if [ -n "$SERVER" ] && kill -0 "$SERVER" 2>/dev/null; then
        kill "$SERVER" 2>/dev/null || true
    fi
    rm -rf "$RUN"
}

# heap_load: bench/heap.sh load [heaptrack|massif] (before: bench/heap-load.sh).
# Loads the standalone database DB into BINDIR/ovsdb-server under heaptrack
# (TOOL=heaptrack, default) or valgrind massif (TOOL=massif), waits until it
# serves, reads VmHWM/VmRSS from /proc, asks it to exit, and writes a text
# report to OUT: peak heap, the heap while it serves after the load, the top
# peak contributors, and /proc figures.  Only byte counts: they do not
# depend on the machine's load.
heap_load() {
    LOAD_TOOL=${ARG:-heaptrack}

    cp "$DB" "$RUN/db"
    case $LOAD_TOOL in
    heaptrack) server_start "$RUN" heaptrack -o "$RUN/ht" ;;
    massif) server_start "$RUN" valgrind --tool=massif \
                --massif-out-file="$RUN/massif.out" --time-unit=B \
                --detailed-freq=1000000 --max-snapshots=200 ;;
    *) die "unknown tool '$LOAD_TOOL'" ;;
    esac
    PID=$(pgrep -P "$SERVER" -f ovsdb-server || true)
    [ -n "$PID" ] || PID=$SERVER
    case $LOAD_TOOL in massif) PID=$SERVER ;; esac
    sleep 2
    {
        echo "database: $DB ($(stat -c %s "$DB") bytes)"
        echo "server: $BINDIR/ovsdb-server (pid $PID, under $LOAD_TOOL)"
        show_memory "$RUN"
        grep -E '^(VmHWM|VmRSS)' "/proc/$PID/status" | sed 's/^/after load, under the tool: /'
    } >"$OUT"
    server_stop "$RUN"

    case $LOAD_TOOL in
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
}

# compaction_memory: once the server of $RUN/srv has loaded, its VmHWM after
# the load, then (the peak reset by clear_refs) the VmHWM of an
# "ovsdb-server/compact" alone and the VmRSS after it, on one line.
compaction_memory() {
    local hwm

    sleep 1
    hwm=$(vm_status "$SERVER" VmHWM)
    echo 5 >"/proc/$SERVER/clear_refs"
    "$BINDIR/ovs-appctl" -t "$RUN/srv/ctl" ovsdb-server/compact >&2
    echo "VmHWM after load $hwm," \
         "VmHWM of the compaction alone $(vm_status "$SERVER" VmHWM)," \
         "VmRSS after it $(vm_status "$SERVER" VmRSS)"
}

# compaction_heap_report LABEL: the server of $RUN/srv, started under
# heaptrack, compacts its database and stops; the peak heap of its load and
# compaction, then compaction_heap LABEL.
compaction_heap_report() {
    local data

    sleep 2
    "$BINDIR/ovs-appctl" -t "$RUN/srv/ctl" ovsdb-server/compact
    server_stop "$RUN/srv"
    data=$(ls "$RUN"/srv/ht.*)
    echo "$1 load + compaction: peak heap $(heap_peak "$data")"
    compaction_heap "$1"
}

# heap_compact: bench/heap.sh compact (before: bench/heap-compact.sh).
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
heap_compact() {

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
        echo "ovsdb-server: $(compaction_memory)"
        server_stop "$RUN/srv"

        cp "$DB" "$RUN/srv/db"
        server_start "$RUN/srv" heaptrack -o "$RUN/srv/ht"
        compaction_heap_report ovsdb-server
    }

    {
        echo "database: $DB ($(stat -c %s "$DB") bytes), binaries: $BINDIR"
        tool_compact
        server_compact
    } >"$OUT"
    cat "$OUT"
}

# heap_reply: bench/heap.sh reply ["dump monitor monitor-cond-since compact"] (before: bench/heap-reply.sh).
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
# trees that servers without ovsdb-streaming-replies 3 compose).  PROC_SEQ=0
# skips the sequence of 1., PROC_WHAT lists the requests measured alone.
# Byte counts only: they do not depend on the machine's load.
heap_reply() {
    WHAT=${ARG:-dump monitor monitor-cond-since compact}

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
}

# row_categories TXN: the categories of sum_categories that every clustered
# mode shares, for the rows of the database that TXN (load or snapshot) made.
row_categories() {
    printf '%s\n' \
        '/ovsdb_file_parse_text/ { c = "json strings that the rows keep as atoms" }' \
        '/ovsdb_file_txn_from_json|ovsdb_file_txn_add_json|ovsdb_file_txn_read_row_cb|ovsdb_txn_replay_commit/ { c = "database rows" }' \
        "/ovsdb_txn_clone_for_history/ { c = \"transaction history (clone of the $1 transaction)\" }"
}

# show_memory DIR: the server of DIR's memory/show, a line a counter.
show_memory() {
    "$BINDIR/ovs-appctl" -t "$1/ctl" memory/show | sed 's/^/memory\/show: /'
}

# heap_load_cluster: bench/heap.sh --cluster load [snapshot|entry] (before: bench/heap-load-cluster.sh).
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
heap_load_cluster() {
    LOAD_FROM=${ARG:-snapshot}

    NAME=$("$BINDIR/ovsdb-tool" db-name "$DB")

    # make_cluster: RUN/srv/db, the cluster, from a copy made once in
    # RUN/cluster.db.
    make_cluster() {
        rm -rf "$RUN/srv"
        mkdir "$RUN/srv"
        if [ ! -f "$RUN/cluster.db" ]; then
            case $LOAD_FROM in
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
                "$HERE/txn-from-db.py" "$DB" \
                    "$RUN/srv/sock" || die "transaction failed"
                server_stop "$RUN/srv"
                ;;
            *) die "unknown mode '$LOAD_FROM'" ;;
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
             '"$(row_categories load)"

    {
        echo "database: $DB ($(stat -c %s "$DB") bytes), as a one-server" \
             "cluster ($LOAD_FROM); binaries: $BINDIR"
        make_cluster
        echo "cluster file: $(stat -c %s "$RUN/srv/db") bytes"
        server_start "$RUN/srv"
        cluster_wait_serving "$RUN/srv" "$NAME"
        sleep 1
        echo "ovsdb-server (cluster), after load: VmHWM" \
             "$(vm_status "$SERVER" VmHWM), VmRSS $(vm_status "$SERVER" VmRSS)"
        show_memory "$RUN/srv"
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
}

# heap_compact_cluster: bench/heap.sh --cluster compact (before: bench/heap-compact-cluster.sh).
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
heap_compact_cluster() {

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
        echo "ovsdb-server (cluster): $(compaction_memory)," \
             "file after it $(stat -c %s "$RUN/srv/db") bytes"
        server_stop "$RUN/srv"

        make_cluster "$RUN/srv"
        cluster_start "$RUN/srv" heaptrack -o "$RUN/srv/ht"
        compaction_heap_report "ovsdb-server (cluster)"
    }

    {
        echo "database: $DB ($(stat -c %s "$DB") bytes), as a one-server" \
             "cluster; binaries: $BINDIR"
        server_compact
    } >"$OUT"
    cat "$OUT"
}

# heap_join_cluster: bench/heap.sh --cluster join (before: bench/heap-join-cluster.sh).
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
heap_join_cluster() {

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
        wait_gone "$pid"
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
             '"$(row_categories snapshot)"

    {
        echo "database: $DB ($(stat -c %s "$DB") bytes), installed by a server" \
             "that joins a one-server cluster; binaries: $BINDIR"
        leader_start
        joiner_start
        sleep 1
        echo "joining ovsdb-server, once it holds every row: VmHWM" \
             "$(vm_status "$SERVER" VmHWM), VmRSS $(vm_status "$SERVER" VmRSS)"
        show_memory "$RUN/srv"
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
}

# main ARGS...: check the mode's needs, then run it.
main() {
    parse_args "$@"
    local fn bins="ovsdb-server ovs-appctl"
    case $CLUSTER-$MODE in
    0-load) fn=heap_load ;;
    0-compact) fn=heap_compact bins="ovsdb-tool $bins" ;;
    0-reply) fn=heap_reply bins="ovsdb-client $bins" ;;
    1-load) fn=heap_load_cluster bins="ovsdb-tool ovsdb-client $bins" ;;
    1-compact) fn=heap_compact_cluster bins="ovsdb-tool ovsdb-client $bins" ;;
    1-join) fn=heap_join_cluster bins="ovsdb-tool ovsdb-client $bins" ;;
    *) die "unknown mode '$MODE'$([ "$CLUSTER" = 0 ] || echo ' with --cluster')" ;;
    esac
    # shellcheck disable=SC2086  # a list of names
    heap_need_bins $bins
    [ -f "$DB" ] || die "no database '$DB'"
    if [ "$fn" != heap_load ]; then
        command -v heaptrack >/dev/null || die "heaptrack is not installed"
    fi
    if [ "$fn" = heap_compact ]; then
        [ -x /usr/bin/time ] || die "/usr/bin/time is not installed (Debian: time)"
    fi
    [ -n "$OUT" ] || OUT=$(out_file)
    RUN=$(mktemp -d)
    SERVER=
    trap heap_cleanup EXIT
    "$fn"
}

main "$@"
