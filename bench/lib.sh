# shellcheck shell=bash
# bench/lib.sh: the library of every benchmark in bench/.  Sourced, never
# run.  Statistics (median), an ovsdb-server on a scratch directory (start,
# stop, cluster readiness), /proc readings (VmHWM, VmRSS) and heaptrack's
# figures.  The functions that use a server read BINDIR and SERVER.  It
# loads scripts/lib/bench-trees.sh (the stock and patched builds) and so
# scripts/lib/common.sh, and scripts/lib/opts.sh (parse_options).
[ -z "${_ojp_bench_lib:-}" ] || return 0
_ojp_bench_lib=1
# shellcheck source=../scripts/lib/bench-trees.sh
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib/bench-trees.sh"
# shellcheck source=../scripts/lib/opts.sh
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib/opts.sh"

# die MESSAGE: print MESSAGE as an error and exit 1.
die() { echo "error: $*" >&2; exit 1; }

# median VALUE...: the median of the values, to 3 decimals; empty values
# are ignored, "nan" if none is left.
median() {
    printf '%s\n' "$@" | awk 'NF' | sort -g | awk '
        { v[NR] = $1 }
        END { if (!NR) print "nan";
              else if (NR % 2) printf "%.3f", v[(NR + 1) / 2];
              else printf "%.3f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# heap_need_bins NAME...: each program is in BINDIR.
heap_need_bins() {
    local b
    for b in "$@"; do
        [ -x "$BINDIR/$b" ] || die "no $b in '$BINDIR'"
    done
}

# server_start DIR [WRAPPER...]: ovsdb-server on DIR/db, under WRAPPER
# (heaptrack, valgrind, ...) if given, with its control socket, remote and
# log in DIR; returns once it answers on its control socket.  Sets SERVER
# (the wrapper's pid when there is one).
server_start() {
    local dir=$1
    shift
    rm -f "$dir/ctl" "$dir/sock"
    "$@" "$BINDIR/ovsdb-server" "$dir/db" --no-chdir \
        --unixctl="$dir/ctl" --remote="punix:$dir/sock" \
        --log-file="$dir/log" -vconsole:off >"$dir/tool.out" 2>&1 &
    SERVER=$!
    server_poll "$dir" "server not ready" server_answers "$dir"
}

# server_answers DIR: the server of DIR answers on its unixctl socket.
server_answers() {
    [ -S "$1/ctl" ] && "$BINDIR/ovs-appctl" -t "$1/ctl" version
}

# server_poll DIR WHAT COMMAND...: runs COMMAND every half second until it
# succeeds, for at most 300 s ("WHAT after 300 s" then); dies at once if the
# server of DIR exits.
server_poll() {
    local dir=$1 what=$2
    shift 2
    for _ in $(seq 1 600); do
        "$@" >/dev/null 2>&1 && return 0
        kill -0 "$SERVER" 2>/dev/null || die "server exited; see $dir/tool.out"
        sleep 0.5
    done
    die "$what after 300 s"
}

# cluster_wait_serving DIR NAME: waits until database NAME of the
# clustered server started by server_start DIR is connected to its cluster.
cluster_wait_serving() {
    server_poll "$1" "cluster not serving" \
        timeout 5 "$BINDIR/ovsdb-client" wait "unix:$1/sock" "$2" connected
}

# server_stop DIR: asks the server of DIR to exit and waits for it.
server_stop() {
    "$BINDIR/ovs-appctl" -t "$1/ctl" exit >/dev/null 2>&1 || true
    wait "$SERVER" || true
    SERVER=
}

# vm_status PID FIELD: a /proc/PID/status figure (VmHWM, VmRSS), "N kB".
vm_status() {
    sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status"
}

# heap_peak FILE: heaptrack's peak heap, from its data FILE; also writes
# heaptrack's massif output to RUN/massif.out, for compaction_heap.
heap_peak() {
    heaptrack_print -f "$1" --print-peaks 0 --print-allocators 0 \
        --print-temporary 0 --print-leaks 0 -M "$RUN/massif.out" 2>/dev/null |
        sed -n 's/^peak heap memory consumption: //p'
}

# compaction_heap LABEL: from RUN/massif.out of a load then a compaction,
# "LABEL: live heap after load N B, peak heap of the compaction M B".  The
# massif snapshots are in time order: the heap plateau after the load is
# the most frequent value; the maximum after the first snapshot of that
# plateau is the compaction's peak.
compaction_heap() {
    local heap="$RUN/heap" plateau
    grep '^mem_heap_B=' "$RUN/massif.out" | cut -d= -f2 >"$heap"
    plateau=$(sort "$heap" | uniq -c | sort -n | tail -n1 | awk '{print $2}')
    echo "$1: live heap after load $plateau B, peak heap of the compaction" \
         "$(awk -v p="$plateau" '$1 == p { seen = 1 }
                seen && $1 > m { m = $1 } END { print m + 0 }' "$heap") B"
}

# heaptrack_kill_server DIR: kills with SIGKILL the ovsdb-server that runs
# under heaptrack (started by server_start DIR heaptrack -o DIR/ht), so that
# what it holds shows as heaptrack's "leaked" memory, waits for heaptrack,
# and sets HEAP_DATA to the path of heaptrack's data file.  Not in a
# subshell: it waits for SERVER and clears it.
heaptrack_kill_server() {
    local pid
    pid=$(pgrep -P "$SERVER" -f ovsdb-server || true)
    [ -n "$pid" ] || die "no ovsdb-server under heaptrack"
    kill -9 "$pid"
    wait "$SERVER" || true
    SERVER=
    # shellcheck disable=SC2034  # read by the scripts that source this file
    HEAP_DATA=$(ls "$1"/ht.*)
}

# heap_peak_profile DATA: from heaptrack's DATA file, RUN/massif.out,
# RUN/peak.txt (flamegraph lines of the peak cost) and RUN/print.txt; prints
# "peak heap N" as heaptrack_print gives it.
heap_peak_profile() {
    heaptrack_print -f "$1" --print-peaks 0 --print-allocators 0 \
        --print-temporary 0 --print-leaks 0 -M "$RUN/massif.out" \
        -F "$RUN/peak.txt" --flamegraph-cost-type peak >"$RUN/print.txt" 2>&1
    sed -n 's/^peak heap memory consumption: /peak heap /p' "$RUN/print.txt"
}

# live_heap_plateau: the live heap after a load, in bytes: the most frequent
# value of the massif snapshots in RUN/massif.out (see heap_peak_profile).
live_heap_plateau() {
    grep '^mem_heap_B=' "$RUN/massif.out" | cut -d= -f2 >"$RUN/heap"
    sort "$RUN/heap" | uniq -c | sort -n | tail -n1 | awk '{print $2}'
}

# sum_categories FILE RULES: sums heaptrack's flamegraph lines
# (stack;...;cost) of FILE by category, one sorted line each and a total.
# RULES are awk pattern-action pairs that set c, the category, to the last
# one matching ("other" if none), so the most specific come last.
sum_categories() {
    awk '{ n = $NF; t += n; c = "other" }
         '"$2"'
         { s[c] += n }
         END { printf "  total: %d B\n", t;
               for (k in s) printf "  %s: %d B (%.1f %%)\n", k, s[k], t ? 100 * s[k] / t : 0 }' "$1" |
        sort
}

# ovn_schemas DIR: DIR/usr/share/ovn holds OVN's schemas, from Debian's
# ovn-central package, downloaded into DIR once.  Prints that folder.
ovn_schemas() {
    local dir=$1 schemas="$1/usr/share/ovn"
    if [ ! -f "$schemas/ovn-nb.ovsschema" ] || [ ! -f "$schemas/ovn-sb.ovsschema" ]; then
        stage "downloading Debian's ovn-central for the OVN schemas" >&2
        rm -rf "$dir" "$dir"_*.deb
        mkdir -p "$(dirname "$dir")"
        if ! (cd "$(dirname "$dir")" && run apt-get download ovn-central) >&2; then
            run apt-get update -q >&2 || die "apt-get update failed"
            (cd "$(dirname "$dir")" && run apt-get download ovn-central) >&2 ||
                die "apt-get download ovn-central failed"
        fi
        run dpkg-deb -x "$(ls "$(dirname "$dir")"/ovn-central_*.deb | head -n1)" "$dir" >&2 ||
            die "cannot unpack ovn-central"
        [ -f "$schemas/ovn-nb.ovsschema" ] && [ -f "$schemas/ovn-sb.ovsschema" ] ||
            die "ovn-central has no ovn-nb.ovsschema or ovn-sb.ovsschema"
    fi
    echo "$schemas"
}
