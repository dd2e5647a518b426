#!/usr/bin/env bash
# ./build.sh bench monitor [--clients N] [--txns K] [--base 3.5.0] ...
#
# The fan-out experiment of the ovs-dev proposal on monitor pre-serialization
# (shared/seeds/003_6680ec491b6dbe8e.txt) on a real ovsdb-server: N clients
# monitor the whole OVN Southbound database, like ovn-controller with
# ovn-monitor-all=true, while a writer applies a northd-like workload.
# Three builds of the same base: "before" (the json cache holds unserialized
# json: bench/monitor/before-unserialized-cache*.patch), "stock" and
# "patched" (patches/<base>/series), and "control" (bench/monitor/
# monitor-control.c: writes the bytes stock sent, captured, to the same
# clients; the floor of the per-client cost).  See bench/README.md.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
    cat <<EOF
usage: ./build.sh bench monitor [--clients N] [--txns K] [--warmup W] [--base BASE]
                                [--runs R] [--batch L] [--scale quick|default]
                                [--sweep "1 10 120 250 500 1000" | --no-sweep]
                                [--sweep-txns K]
                                [--variants "before stock patched control"]
                                [--conditional GROUP] [--readers R]
                                [--cpus S,L|none]
                                [--seed S] [--results-dir DIR] [--tag NAME]
                                [--perf]

  --clients      monitoring clients of the main comparison (default 120, 1..1000)
  --txns         measured workload transactions per run (default 4)
  --warmup       workload transactions before the measured ones, not measured
                 (default 2: from the third on, every transaction has the
                 same kinds of operations)
  --base         OVS base version (default $DEFAULT_BASE)
  --runs         runs per build and point, in alternating order of builds
                 (forward, then backward), medians reported (default 5)
  --batch        logical flows inserted per transaction (default 1000); each
                 transaction also deletes and rewrites a quarter batch of
                 flows, inserts and updates L/20 port bindings, inserts L/10
                 and refreshes L/20 MAC bindings
  --scale        initial Southbound database from bench/gen (default quick)
  --sweep        client counts for the CPU-vs-clients chart, --runs runs
                 each (default "1 10 120 250 500 1000"); --no-sweep skips it
  --sweep-txns   measured transactions per sweep run (default: --txns)
  --variants     builds to compare (default "before stock patched control");
                 control needs the stock tree, which it then builds.  A
                 series entry such as monitor-fanout/0003 is also a build:
                 stock with the series up to and including that patch, for
                 an ablation of the series patch by patch
  --conditional  clients monitor Logical_Flow, Port_Binding and MAC_Binding
                 with conditions (ovn-monitor-all=false), in groups of GROUP
                 clients with identical conditions, different between groups
  --readers      the load client reads its clients with R threads, each with
                 an event loop of its own, as R client processes would drain
                 their sockets in parallel (default: one loop reads them all)
  --cpus         pin the server (and control) to CPU S and the load client
                 to CPU L (or CPUs A-B, for --readers) with taskset (default: the first two CPUs this
                 process may use; with only one, no pinning, with a note);
                 "none": no pinning
  --seed         generator seed (default ovs-json-perf)
  --results-dir  where the JSON, text and PNG results go (default bench/results)
  --tag          name of the result files (default monitor-<base>)
  --perf         profile the server with "perf record -g" (dwarf) during the workload
                 of every run (not the initial contents) and write each
                 run's breakdown to <results-dir>/<tag>-perf-<run>.txt: top
                 functions by self and by inclusive samples, the share of
                 kernel samples.  Profiled runs are slower: do not quote
                 their CPU times.
EOF
}

CLIENTS=120
TXNS=4
WARMUP=2
BASE=$DEFAULT_BASE
RUNS=5
BATCH=1000
SCALE=quick
SWEEP="1 10 120 250 500 1000"
SWEEP_TXNS=
VARIANTS_ARG="before stock patched control"
CONDITIONAL=0
CPUS_ARG=auto
READERS=0
SEED=ovs-json-perf
RESULTS_DIR=$(results_dir records)
TAG=
PERF=0
parse_options 'bench monitor' '
    --clients CLIENTS text
    --txns TXNS text
    --warmup WARMUP text
    --conditional CONDITIONAL text
    --cpus CPUS_ARG text
    --readers READERS uint1
    --base BASE text
    --runs RUNS text
    --batch BATCH text
    --scale SCALE text
    --sweep SWEEP text
    --no-sweep SWEEP =
    --sweep-txns SWEEP_TXNS text
    --variants VARIANTS_ARG text
    --seed SEED text
    --results-dir RESULTS_DIR text
    --tag TAG text
    --perf PERF =1' "$@"

# positive_int NAME VALUE [MAX]
positive_int() {
    case $2 in
    ''|*[!0-9]*|0*) die "$1 needs a positive integer, not '$2'" ;;
    esac
    [ -z "${3:-}" ] || [ "$2" -le "$3" ] || die "$1 must be at most $3, not $2"
}
positive_int --clients "$CLIENTS" 1000
positive_int --txns "$TXNS"
positive_int --runs "$RUNS"
positive_int --batch "$BATCH"
SWEEP_TXNS=${SWEEP_TXNS:-$TXNS}
positive_int --sweep-txns "$SWEEP_TXNS"
case $WARMUP in
''|*[!0-9]*) die "--warmup needs a non-negative integer, not '$WARMUP'" ;;
esac
[ "$CONDITIONAL" = 0 ] || positive_int --conditional "$CONDITIONAL" 1000
[ "$READERS" = 0 ] || positive_int --readers "$READERS" 64
for n in $SWEEP; do
    positive_int --sweep "$n" 1000
done
is_supported_base "$BASE" || die "unsupported base '$BASE' (have: $SUPPORTED_BASES)"
case $SCALE in
quick) ATOMS=100000 ;;
default) ATOMS=1000000 ;;
*) die "unknown scale '$SCALE' (quick or default)" ;;
esac
read -r -a VARIANTS <<<"$VARIANTS_ARG"
[ ${#VARIANTS[@]} -gt 0 ] || die "--variants is empty"
declare -A SEEN
# A series entry GROUP/NNNN is the variant GROUP-NNNN (a name that file
# names and result keys can hold); UPTO[GROUP-NNNN] is its last patch.
declare -A UPTO
for i in "${!VARIANTS[@]}"; do
    v=${VARIANTS[$i]}
    case $v in
    before|stock|patched|control) ;;
    */[0-9][0-9][0-9][0-9])
        entry=$(series_patches "$BASE" | grep -m1 "^$v-") ||
            die "variant '$v' is not an entry of patches/$BASE/series"
        v=${v//\//-}
        VARIANTS[$i]=$v
        UPTO[$v]=$entry
        ;;
    *) die "unknown variant '$v' (before, stock, patched, control or a series entry GROUP/NNNN)" ;;
    esac
    [ -z "${SEEN[$v]:-}" ] || die "variant '$v' given twice"
    SEEN[$v]=1
done
# upto_files V: the patch files of series-entry variant V, in order.
upto_files() {
    bench_series_files "$BASE" | sed "\|/${UPTO[$1]}\$|q"
}
case $CPUS_ARG in
auto|none) ;;
*) [[ $CPUS_ARG =~ ^[0-9]+,[0-9]+(-[0-9]+)?$ ]] ||
       die "--cpus needs S,L (two CPU numbers; L may be a range A-B), auto or none, not '$CPUS_ARG'" ;;
esac
[ -n "$SEED" ] || die "--seed must not be empty"
TAG=${TAG:-monitor-$BASE}
case $TAG in
*/*|'') die "bad --tag '$TAG'" ;;
esac
mkdir -p "$RESULTS_DIR" || die "cannot create $RESULTS_DIR"
RESULTS_DIR=$(cd "$RESULTS_DIR" && pwd)

BEFORE_PATCH="$TOP/bench/monitor/before-unserialized-cache-$BASE.patch"
[ -f "$BEFORE_PATCH" ] || BEFORE_PATCH="$TOP/bench/monitor/before-unserialized-cache.patch"

log_start bench-monitor
BENCH="$BUILD/bench"
mkdir -p "$BENCH/run" "$BENCH/db" "$BENCH/monitor"

now() { date +%s.%N; }

# per_txn COUNT: COUNT (a median over the runs) per transaction of the
# workload, or "-" if no run had it.
per_txn() {
    awk -v x="$1" -v k="$TXNS" 'BEGIN { if (x == "nan" || x == "") print "-"; else printf "%.1f", x / k }'
}

# Change in percent from A to B (negative: B is lower).
change() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0) printf "%+.1f", (b - a) * 100 / a; else print "n/a" }'
}

# The same, as a JSON number (or null).
change_json() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0) printf "%.1f", (b - a) * 100 / a; else print "null" }'
}

# A JSON number, or null for "-".
num_or_null() {
    if [ "$1" = - ]; then echo null; else echo "$1"; fi
}

fmt_bytes() {
    awk -v b="$1" 'BEGIN { if (b >= 1e9) printf "%.2f GB", b / 1e9;
                           else if (b >= 1e6) printf "%.1f MB", b / 1e6;
                           else printf "%.1f kB", b / 1e3 }'
}

# ---------------------------------------------------------------------------
# Builds, schema, database, load client.

# CPU pinning: the server (or control) on one CPU, the load client on
# another, so that they do not take turns on one CPU.
PIN_NOTE=
SERVER_CPU=
LOAD_CPU=
# cpu_list: the CPUs this process may run on, one per line.
cpu_list() {
    sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status | tr ',' '\n' |
        awk -F- 'NF == 1 { print $1 } NF == 2 { for (i = $1; i <= $2; i++) print i }'
}
if [ "$CPUS_ARG" = none ]; then
    PIN_NOTE="not pinned (--cpus none)"
elif ! command -v taskset >/dev/null; then
    PIN_NOTE="not pinned: no taskset on this machine"
elif [ "$CPUS_ARG" = auto ]; then
    mapfile -t cpus < <(cpu_list)
    if [ ${#cpus[@]} -ge 2 ]; then
        SERVER_CPU=${cpus[0]}
        LOAD_CPU=${cpus[1]}
    else
        PIN_NOTE="not pinned: only one CPU (${cpus[*]:-?}) available; the server and the load client share it, so their CPU times include each other's waits"
    fi
else
    SERVER_CPU=${CPUS_ARG%,*}
    LOAD_CPU=${CPUS_ARG#*,}
    load_first=${LOAD_CPU%-*} load_last=${LOAD_CPU#*-}
    [ "$load_first" -le "$load_last" ] || die "--cpus: the range $LOAD_CPU is empty"
    [ "$SERVER_CPU" -lt "$load_first" ] || [ "$SERVER_CPU" -gt "$load_last" ] ||
        die "--cpus: the server and the load client need different CPUs"
    for c in "$SERVER_CPU" $(seq "$load_first" "$load_last"); do
        cpu_list | grep -qx "$c" ||
            die "--cpus $CPUS_ARG: this process may only use CPUs $(cpu_list | tr '\n' ' ' | sed 's/ $//')"
    done
fi
PIN_SERVER=()
PIN_LOAD=()
if [ -n "$SERVER_CPU" ]; then
    PIN_SERVER=(taskset -c "$SERVER_CPU")
    PIN_LOAD=(taskset -c "$LOAD_CPU")
    stage "pinned: server (and control) on CPU $SERVER_CPU, load client on CPU $LOAD_CPU"
else
    stage "note: $PIN_NOTE"
fi

stage "bench monitor: base $BASE, builds: ${VARIANTS[*]}, $CLIENTS clients, $TXNS transactions of $BATCH flows after $WARMUP warm-up, $RUNS run(s); sweep: ${SWEEP:-none}$([ "$CONDITIONAL" = 0 ] || echo "; conditional, groups of $CONDITIONAL")$([ "$READERS" = 0 ] || echo "; $READERS reader threads")"
need_build_deps
need_pkgs gnuplot-nox
[ "$PERF" = 0 ] || command -v perf >/dev/null || need_pkgs linux-perf
# The builds with an ovsdb-server; the control replays what stock sent.
SERVERS=()
for v in "${VARIANTS[@]}"; do
    [ "$v" = control ] || SERVERS+=("$v")
done
if [ -n "${SEEN[control]:-}" ] && [ -z "${SEEN[stock]:-}" ]; then
    SERVERS+=(stock)
fi
# Only the programs the benchmark runs (the whole tree takes far longer to
# build).
BENCH_MAKE_TARGETS="ovsdb/ovsdb-server ovsdb/ovsdb-client ovsdb/ovsdb-tool utilities/ovs-appctl"
declare -A TREE
for v in "${SERVERS[@]}"; do
    case $v in
    before) bench_tree "$BASE" before "$BEFORE_PATCH" ;;
    stock|patched) bench_tree "$BASE" "$v" ;;
    *) mapfile -t upto < <(upto_files "$v")
       bench_tree "$BASE" "$v" "${upto[@]}" ;;
    esac
    TREE[$v]=$(bench_tree_dir "$BASE" "$v")
    bench_tree_bin "${TREE[$v]}" ovsdb/ovsdb-server >/dev/null
done
SERIES_N=$(bench_series_files "$BASE" | wc -l)
FIRST=${VARIANTS[0]}
TOOL="${TREE[${SERVERS[0]}]}/ovsdb/ovsdb-tool"
CLIENT="${TREE[${SERVERS[0]}]}/ovsdb/ovsdb-client"


SCHEMA="$(ovn_schemas "$BENCH/ovn-central")/ovn-sb.ovsschema"

stage "building the generator and the load client"
GEN="$BENCH/gen/ovsdb-gen"
mkdir -p "$BENCH/gen"
run make -C "$TOP/bench/gen" O="$BENCH/gen" || die "cannot build bench/gen"
LOAD="$BENCH/monitor/monitor-bench"
CONTROL="$BENCH/monitor/monitor-control"
run make -C "$TOP/bench/monitor" O="$BENCH/monitor" || die "cannot build bench/monitor"

# The initial database: the same file and key as bench/json.sh makes, so
# the two benchmarks share it.
DB="$BENCH/db/$SCALE-sb.db"
key="$(sha1sum <"$GEN" | cut -c1-40) $(sha1sum <"$SCHEMA" | cut -c1-40) $ATOMS $SEED"
if [ ! -f "$DB" ] || [ ! -f "$DB.stats" ] || [ "$(cat "$DB.key" 2>/dev/null)" != "$key" ]; then
    stage "generating the $SCALE Southbound database"
    rm -f "$DB" "$DB.key"
    run "$GEN" --db sb --schema "$SCHEMA" --atoms "$ATOMS" --seed "$SEED" \
        --stats "$DB.stats" -o "$DB" || die "generating $DB failed"
    [ "$("$TOOL" db-name "$DB")" = OVN_Southbound ] ||
        die "$DB is not an OVN_Southbound database"
    echo "$key" >"$DB.key"
fi
stage "database: $DB ($(fmt_bytes "$(stat -c %s "$DB")"), $(sed -n 's/^atoms=//p' "$DB.stats") atoms)"

# One fd per client, on both sides.
ulimit -n 4096 2>/dev/null || [ "$(ulimit -n)" -ge 1100 ] ||
    die "cannot raise the open files limit to 4096 (now $(ulimit -n))"

# ---------------------------------------------------------------------------
# Runs.

RUNDIR=$(mktemp -d "$BENCH/run/monitor-XXXXXX")
RESDIR="$RUNDIR/results"
mkdir -p "$RESDIR"
SERVER_PID=
cleanup() {
    [ -z "$SERVER_PID" ] || kill "$SERVER_PID" 2>/dev/null || true
    rm -rf "$RUNDIR"
}
trap cleanup EXIT

start_server() {
    local v=$1 d=$2
    rm -rf "$d"
    mkdir -p "$d"
    cp "$DB" "$d/db"
    run "${PIN_SERVER[@]}" env OVS_RUNDIR="$d" OVS_LOGDIR="$d" OVS_DBDIR="$d" \
        "${TREE[$v]}/ovsdb/ovsdb-server" "$d/db" --no-chdir --detach \
        --pidfile="$d/pid" --unixctl="$d/ctl" --remote="punix:$d/sock" \
        --log-file="$d/log" -vconsole:off ||
        die "ovsdb-server ($v) failed to start; see $d/log"
    SERVER_PID=$(cat "$d/pid")
}

# start_control DIR CAPTURE: the control, in place of a server, replaying
# the capture with prefix CAPTURE.
start_control() {
    local d=$1 cap=$2 i
    rm -rf "$d"
    mkdir -p "$d"
    : >"$d/log"
    "${PIN_SERVER[@]}" "$CONTROL" --socket "$d/sock" --capture "$cap" \
        >>"$LOG" 2>"$d/control.err" &
    SERVER_PID=$!
    for i in $(seq 1 500); do
        [ -S "$d/sock" ] && break
        kill -0 "$SERVER_PID" 2>/dev/null ||
            die "monitor-control failed to start: $(tail -n 1 "$d/control.err")"
        sleep 0.01
    done
    [ -S "$d/sock" ] || die "monitor-control did not listen on $d/sock"
}

stop_server() {
    local v=$1 d=$2 i
    if [ "$v" = control ]; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
        cat "$d/control.err" >>"$LOG" 2>/dev/null || true
        SERVER_PID=
        return 0
    fi
    "${TREE[$v]}/utilities/ovs-appctl" -t "$d/ctl" exit >/dev/null 2>&1 ||
        kill "$SERVER_PID" 2>/dev/null || true
    for i in $(seq 1 100); do
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.1
    done
    ! kill -0 "$SERVER_PID" 2>/dev/null || kill -9 "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
}

# The monitor requests: every table, every column but _uuid and _version,
# as explicit column lists (as ovn-controller sends them).  Without
# _version, the updates are the same bytes on every build and run.
REQUESTS="$RUNDIR/requests.json"
make_requests() {
    local sock=$1 n
    "$CLIENT" list-columns -f csv "unix:$sock" OVN_Southbound >"$RUNDIR/columns.csv" ||
        die "ovsdb-client list-columns failed"
    tail -n +2 "$RUNDIR/columns.csv" | awk -F, '
        $2 != "_version" && $2 != "_uuid" {
            if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
            cols[$1] = cols[$1] (cols[$1] == "" ? "" : ",") "\"" $2 "\""
        }
        END {
            printf "{"
            for (i = 1; i <= n; i++)
                printf "%s\"%s\":[{\"columns\":[%s]}]", (i > 1 ? "," : ""),
                       order[i], cols[order[i]]
            printf "}\n"
        }' >"$REQUESTS"
    n=$(tail -n +2 "$RUNDIR/columns.csv" | cut -d, -f1 | sort -u | wc -l)
    [ "$n" -gt 0 ] || die "no tables in OVN_Southbound?"
    stage "monitoring all $n tables of OVN_Southbound, all columns"
}

# run_one VARIANT CLIENTS TXNS NAME [LOAD-OPTION...]: one measured run;
# results in $RESDIR/NAME.txt as "key value" lines.
run_one() {
    local v=$1 n=$2 k=$3 name=$4 d="$RUNDIR/srv"
    shift 4
    if [ "$v" = control ]; then
        capture_for "$n" "$k"
        start_control "$d" "$CAPTURE"
    else
        start_server "$v" "$d"
        [ -s "$REQUESTS" ] || make_requests "$d/sock"
    fi
    if ! load_run "$v" "$d" "$n" "$k" "$name" "$@"; then
        cat "$RESDIR/$name.err" >>"$LOG"
        cp "$d/log" "$LOGDIR/bench-monitor-server-$name.log" 2>/dev/null || true
        [ "$v" != control ] || cat "$d/control.err" >>"$LOGDIR/bench-monitor-server-$name.log" 2>/dev/null || true
        die "run $name failed: $(tail -n 1 "$RESDIR/$name.err") (server log: $LOGDIR/bench-monitor-server-$name.log)"
    fi
    { echo "--- $name"; cat "$RESDIR/$name.txt"; } >>"$LOG"
    stop_server "$v" "$d"
    [ "$PERF" = 0 ] || [ "$v" = control ] || perf_report "$v" "$n" "$k" "$name"
}

# The groups of clients the largest run has: the capture needs a client of
# each.
max_groups() {
    local n max=$CLIENTS
    for n in $SWEEP; do
        [ "$n" -le "$max" ] || max=$n
    done
    if [ "$CONDITIONAL" = 0 ]; then
        echo 1
    else
        echo $(((max + CONDITIONAL - 1) / CONDITIONAL))
    fi
}

# capture_for CLIENTS TXNS: sets CAPTURE to the prefix of a capture of the
# bytes stock sends with TXNS measured transactions (made on first use, by
# a run of stock with one client per group, which is not measured).
declare -A CAPTURES
capture_for() {
    local k=$2 g name
    CAPTURE="$RUNDIR/capture-$k"
    [ -z "${CAPTURES[$k]:-}" ] || return 0
    g=$(max_groups)
    name="capture-$k"
    stage "capture for the control: stock, $g client(s) (one per group), $k transactions"
    if [ "$CONDITIONAL" = 0 ]; then
        run_one stock "$g" "$k" "$name" --capture "$CAPTURE"
    else
        # Group G of GROUP-client groups has the same condition as client
        # G with groups of 1.
        CONDITIONAL_SAVE=$CONDITIONAL
        CONDITIONAL=1
        run_one stock "$g" "$k" "$name" --capture "$CAPTURE"
        CONDITIONAL=$CONDITIONAL_SAVE
    fi
    [ -s "$CAPTURE.0.stream" ] || die "the capture run wrote no $CAPTURE.0.stream"
    CAPTURES[$k]=1
}

# Coverage counters of the server read before and after the workload, and
# the key of each in the results: poll_create_node, the fds that the main
# loop registered (with poll(), or with a poll waiter), about the sessions
# times the passes before the patch that waits only for some sessions; the
# passes of the main loop (poll_block() calls), the sessions that they ran
# and waited for, and the changes to the fds of poll waiters (epoll_ctl()
# calls), where the server has these counters (patched 3.5.0), or of the
# epoll set of its wait set (patched 4.0.0).
COUNTERS=(poll_create_node:server_poll_nodes poll_pass:server_poll_passes
          jsonrpc_session_visited:server_sessions_run
          jsonrpc_session_waited:server_sessions_waited
          poll_waiter_fd_changed:server_poll_fd_changes
          ovsdb_wait_set_ctl:server_wait_set_ctls)

# read_counters APPCTL CTL: the values of COUNTERS, "-" for each one that
# the server does not have.
read_counters() {
    local c
    for c in "${COUNTERS[@]}"; do
        "$1" -t "$2" coverage/read-counter "${c%%:*}" 2>/dev/null || echo -
    done
}

# load_run VARIANT DIR CLIENTS TXNS NAME: runs the load client against the
# server.  Between the initial contents and the workload (the load client's
# --gate), it reads the server's COUNTERS, and again after the workload, and
# writes their differences to the results.  With --perf, it records the
# server during the workload only.
load_run() {
    local v=$1 d=$2 n=$3 k=$4 name=$5 load_pid perf_pid= rc=0 i
    local counters0=() counters1=()
    local gate="$d/gate" appctl="${TREE[$v]:-}/utilities/ovs-appctl" cond=()
    shift 5
    rm -f "$gate"
    [ "$CONDITIONAL" = 0 ] || cond=(--conditional "$CONDITIONAL")
    [ "$READERS" = 0 ] || cond+=(--readers "$READERS")
    "${PIN_LOAD[@]}" "$LOAD" --socket "$d/sock" --requests "$REQUESTS" \
        --server-pid "$SERVER_PID" --server-log "$d/log" \
        --clients "$n" --txns "$k" --warmup "$WARMUP" --batch "$BATCH" \
        --gate "$gate" "${cond[@]}" "$@" \
        >"$RESDIR/$name.txt" 2>"$RESDIR/$name.err" &
    load_pid=$!
    for i in $(seq 1 60000); do
        grep -q '^workload_ready ' "$RESDIR/$name.txt" 2>/dev/null && break
        kill -0 "$load_pid" 2>/dev/null || break
        sleep 0.01
    done
    mapfile -t counters0 < <(read_counters "$appctl" "$d/ctl")
    if [ "$PERF" = 1 ] && [ "$v" != control ]; then
        perf record -q --call-graph dwarf,16384 -F 1999 -p "$SERVER_PID" \
            -o "$RESDIR/$name.perf" >>"$LOG" 2>&1 &
        perf_pid=$!
        sleep 0.5
    fi
    touch "$gate"
    wait "$load_pid" || rc=$?
    if [ -n "$perf_pid" ]; then
        kill -INT "$perf_pid" 2>/dev/null || true
        wait "$perf_pid" || true
    fi
    mapfile -t counters1 < <(read_counters "$appctl" "$d/ctl")
    if [ "$rc" = 0 ]; then
        for i in "${!COUNTERS[@]}"; do
            if [ "${counters0[$i]:--}" != - ] && [ "${counters1[$i]:--}" != - ]; then
                echo "${COUNTERS[$i]#*:} $((counters1[i] - counters0[i]))" >>"$RESDIR/$name.txt"
            fi
        done
    fi
    return "$rc"
}

# perf_report VARIANT CLIENTS TXNS NAME: the breakdown of a --perf run.
perf_report() {
    local v=$1 n=$2 k=$3 name=$4
    local data="$RESDIR/$name.perf" out="$RESULTS_DIR/$TAG-perf-$name.txt"
    local total kernel
    [ -s "$data" ] || die "perf recorded nothing for run $name"
    total=$(perf report -i "$data" --stdio --header-only 2>/dev/null |
                awk '/^# sample duration/ { print; exit }')
    kernel=$(perf report -i "$data" --stdio --no-children --sort dso \
                 -g none 2>/dev/null | awk '$1 ~ /%$/ { s = $1; sub(/%/, "", s);
                     if ($2 ~ /^\[kernel/) k += s; t += s }
                     END { printf "%.1f", t ? k * 100 / t : 0 }')
    {
        echo "perf record -g of ovsdb-server ($v, OVS $BASE) during the workload:"
        echo "$n clients, $k transactions of $BATCH flows, $SCALE database."
        echo "Loaded shared machine: compare shares, not times.  ${total#\# }"
        echo
        echo "Kernel share of samples: $kernel %"
        echo
        echo "== Samples by shared object"
        perf report -i "$data" --stdio --no-children --sort dso -g none \
            2>/dev/null | grep -v '^#' | grep -v '^$' | head -n 10
        echo
        echo "== Top functions, self (no children)"
        perf report -i "$data" --stdio --no-children --sort dso,sym \
            -g none --percent-limit 0.5 2>/dev/null |
            grep -v '^#' | grep -v '^$' | head -n 40
        echo
        echo "== Top functions, inclusive (children)"
        perf report -i "$data" --stdio --children --sort sym \
            -g none --percent-limit 2 2>/dev/null |
            grep -v '^#' | grep -v '^$' | head -n 50
        echo
        echo "== Callers of the top self functions (caller graph, 2% limit)"
        perf report -i "$data" --stdio --no-children --sort sym \
            -g caller,2,callee,function,percent --percent-limit 3 \
            2>/dev/null | grep -v '^#' | grep -v '^$' | head -n 200
    } >"$out"
    stage "  perf: $kernel % kernel; breakdown in $out"
}

# get NAME KEY: a value of a run.
get() {
    awk -v k="$2" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "$RESDIR/$1.txt"
}

# order R: the builds in the order of run R: forward on odd runs, backward
# on even ones, so that no build always runs first, or right after the
# same other build.
order() {
    local i
    if [ $(($1 % 2)) = 1 ]; then
        printf '%s\n' "${VARIANTS[@]}"
    else
        for ((i = ${#VARIANTS[@]} - 1; i >= 0; i--)); do
            echo "${VARIANTS[$i]}"
        done
    fi
}

T_START=$(now)
for r in $(seq 1 "$RUNS"); do
    for v in $(order "$r"); do
        stage "run $r/$RUNS: $v, $CLIENTS clients, $TXNS transactions"
        run_one "$v" "$CLIENTS" "$TXNS" "main-$v-$r"
        stage "  server CPU $(get "main-$v-$r" server_cpu_s) s, wall $(get "main-$v-$r" wall_s) s, $(fmt_bytes "$(get "main-$v-$r" bytes_per_client)") per client, $(get "main-$v-$r" poll_count) long poll intervals"
    done
done

# The bytes delivered must be the same for every build and run (each run
# already checked that every client got the same bytes as the others of
# its group): the same sizes, and the same bytes up to the order of object
# members (an order-insensitive hash of the byte counts of each message).
# Exactly the same bytes: every run of a build; the control and stock (it
# replays stock's bytes); and without conditions, stock, patched and the
# control, which all send cached updates serialized with sorted members
# ("before" serializes for each client, in hash order).  With conditions,
# stock serializes for each client too, so patched, which shares the
# updates of equal conditions through the cache, may differ from it in
# the order of members: EXACT_PATCHED says whether it did (true, or the
# parts that differ: "updates", "initial contents").
# same_value KEY WHAT NAME REFNAME: die unless runs NAME and REFNAME agree.
same_value() {
    [ "$(get "$3" "$1")" = "$(get "$4" "$1")" ] ||
        die "$2 differ: run $3 has $1 $(get "$3" "$1"), run $4 has $(get "$4" "$1")"
}
same_exact() {
    same_value content_hash "updates" "$1" "$2"
    same_value init_content_hash "initial contents" "$1" "$2"
}
# run_variant NAME: the build of run NAME (main-V-R or sweep-V-N-R).
run_variant() {
    local x=${1#*-}
    echo "${x%%-*}"
}
# check_same NAME...: the runs NAME... (all with the same clients).
EXACT_PATCHED=
check_same() {
    local ref=$1 n v first_stock='' first_patched=
    declare -A first
    for n in "$@"; do
        same_value bytes_per_client "bytes delivered" "$n" "$ref"
        same_value bytes_total "bytes delivered" "$n" "$ref"
        same_value group_bytes "bytes delivered per group" "$n" "$ref"
        same_value init_bytes_per_client "initial contents" "$n" "$ref"
        same_value bytes_hash "bytes delivered" "$n" "$ref"
        same_value init_bytes_hash "initial contents" "$n" "$ref"
        v=$(run_variant "$n")
        [ -n "${first[$v]:-}" ] || first[$v]=$n
        same_exact "$n" "${first[$v]}"
    done
    if [ -n "${first[control]:-}" ] && [ -n "${first[stock]:-}" ]; then
        same_exact "${first[control]}" "${first[stock]}"
    fi
    first_stock=${first[stock]:-${first[control]:-}}
    first_patched=${first[patched]:-}
    if [ -n "$first_stock" ] && [ -n "$first_patched" ]; then
        if [ "$CONDITIONAL" = 0 ]; then
            same_exact "$first_patched" "$first_stock"
            EXACT_PATCHED=${EXACT_PATCHED:-true}
        else
            local diff=
            [ "$(get "$first_patched" content_hash)" = "$(get "$first_stock" content_hash)" ] ||
                diff="updates"
            [ "$(get "$first_patched" init_content_hash)" = "$(get "$first_stock" init_content_hash)" ] ||
                diff="${diff:+$diff and }initial contents"
            if [ -n "$diff" ]; then
                EXACT_PATCHED=$diff
            else
                EXACT_PATCHED=${EXACT_PATCHED:-true}
            fi
        fi
    fi
}
main_runs=()
for v in "${VARIANTS[@]}"; do
    for r in $(seq 1 "$RUNS"); do
        main_runs+=("main-$v-$r")
    done
done
check_same "${main_runs[@]}"
REF_BYTES=$(get "main-$FIRST-1" bytes_per_client)
REF_INIT=$(get "main-$FIRST-1" init_bytes_per_client)
REF_HASH=$(get "main-$FIRST-1" bytes_hash)
stage "bytes delivered: $REF_BYTES per client in every build and run, the same bytes up to the order of object members; exactly the same in every run of a build$([ -z "${SEEN[control]:-}" ] || [ -z "${SEEN[stock]:-}" ] || echo ", in control and stock")$([ "$EXACT_PATCHED" != true ] || echo ", in patched and stock")$([ -z "$EXACT_PATCHED" ] || [ "$EXACT_PATCHED" = true ] || echo "; patched's $EXACT_PATCHED differ from stock's in the order of members")"

# Per-variant medians and pooled poll intervals.
declare -A CPU WALL FAN95 FANMED INIT_CPU POLLS RSS NODES PASSES SRUN SWAITED
for v in "${VARIANTS[@]}"; do
    a=() w=() f=() f9=() ic=() rs=() pn=() pp=() sr=() sw=()
    POLLS[$v]=
    for r in $(seq 1 "$RUNS"); do
        a+=("$(get "main-$v-$r" server_cpu_s)")
        w+=("$(get "main-$v-$r" wall_s)")
        f+=("$(get "main-$v-$r" fanout_ms_median)")
        f9+=("$(get "main-$v-$r" fanout_ms_p95)")
        ic+=("$(get "main-$v-$r" init_server_cpu_s)")
        rs+=("$(get "main-$v-$r" server_peak_rss_kb)")
        pn+=("$(get "main-$v-$r" server_poll_nodes)")
        pp+=("$(get "main-$v-$r" server_poll_passes)")
        sr+=("$(get "main-$v-$r" server_sessions_run)")
        sw+=("$(get "main-$v-$r" server_sessions_waited)")
        POLLS[$v]+=" $(get "main-$v-$r" poll_intervals)"
    done
    CPU[$v]=$(median "${a[@]}")
    WALL[$v]=$(median "${w[@]}")
    FANMED[$v]=$(median "${f[@]}")
    FAN95[$v]=$(median "${f9[@]}")
    INIT_CPU[$v]=$(median "${ic[@]}")
    RSS[$v]=$(median "${rs[@]}")
    NODES[$v]=$(median "${pn[@]}")
    PASSES[$v]=$(median "${pp[@]}")
    SRUN[$v]=$(median "${sr[@]}")
    SWAITED[$v]=$(median "${sw[@]}")
done

# poll_stats MS...: count min max median mean p95 (linear interpolation).
poll_stats() {
    printf '%s\n' "$@" | awk 'NF' | sort -n | awk '
        { v[NR] = $1; s += $1 }
        END {
            if (!NR) { print "0 - - - - -"; exit }
            med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
            r = 0.95 * (NR - 1); lo = int(r)
            p95 = lo + 1 < NR ? v[lo + 1] + (r - lo) * (v[lo + 2] - v[lo + 1]) : v[NR]
            printf "%d %d %d %.1f %.1f %.1f\n", NR, v[1], v[NR], med, s / NR, p95
        }'
}

label() {
    case $1 in
    before) echo Before ;;
    stock) echo Stock ;;
    patched) echo Patched ;;
    control) echo Control ;;
    *) echo "$1" ;;
    esac
}

# The width of the label column of the tables.
LW=7
for v in "${VARIANTS[@]}"; do
    [ ${#v} -le "$LW" ] || LW=${#v}
done

report() {
    local v s
    echo
    if [ "$CONDITIONAL" = 0 ]; then
        echo "Fan-out: $CLIENTS clients (monitor_cond_since, all tables, no condition),"
    else
        echo "Fan-out: $CLIENTS clients (monitor_cond_since, all tables; Logical_Flow,"
        echo "Port_Binding and MAC_Binding with conditions, identical in each group of"
        echo "$CONDITIONAL clients, different between groups: $(get "main-$FIRST-1" groups) group(s)),"
    fi
    echo "$TXNS transactions of $BATCH logical flows + port and MAC bindings after $WARMUP"
    echo "warm-up transactions, on the $SCALE OVN Southbound database; OVS $BASE;"
    echo "medians of $RUNS runs in alternating order of builds."
    echo "before = the json cache holds unserialized json; patched = stock + $SERIES_N patch(es);"
    echo "control = monitor-control writing the bytes stock sent to the same clients."
    for v in "${VARIANTS[@]}"; do
        [ -z "${UPTO[$v]:-}" ] ||
            echo "$v = stock + the series up to and including ${v%-*}/${v##*-} ($(upto_files "$v" | wc -l) patches);"
    done
    echo "CPUs: $(pin_text)."
    if [ "$CONDITIONAL" = 0 ]; then
        echo "Updates: $(fmt_bytes "$REF_BYTES") per client in $(get "main-$FIRST-1" updates_per_client) updates, the same for every client and build;"
    else
        echo "Updates: $(fmt_bytes "$REF_BYTES") per client (mean) in $(get "main-$FIRST-1" updates_per_client) updates, the same for every client of a group and every build;"
    fi
    if [ "$CONDITIONAL" = 0 ]; then
        echo "initial contents $(fmt_bytes "$REF_INIT") per client.  (Byte for byte: stock, patched"
        echo "and control send cached updates with sorted members; before sends the same"
        echo "bytes with object members in hash order.)"
    else
        echo "initial contents $(fmt_bytes "$REF_INIT") per client (mean).  (Byte for byte: the control"
        echo "sends what stock sent; before sends the same bytes up to the order of object"
        if [ -n "$EXACT_PATCHED" ] && [ "$EXACT_PATCHED" != true ]; then
            echo "members, and so do patched's $EXACT_PATCHED: they come from a cache"
            echo "shared by equal conditions, serialized with sorted members.)"
        else
            echo "members; patched sends the same bytes as stock.)"
        fi
    fi
    echo
    printf "%-$((LW + 2))s"' %12s %10s %22s %14s\n' "" "server CPU" "wall" "fan-out per txn (ms)" "initial: CPU"
    printf "%-$((LW + 2))s"' %12s %10s %22s %14s\n' "" "(s)" "(s)" "median      p95" "(s)"
    for v in "${VARIANTS[@]}"; do
        printf "  %-${LW}s"' %12.3f %10.2f %11.1f %10.1f %14.2f\n' "$(label "$v")" \
            "${CPU[$v]}" "${WALL[$v]}" "${FANMED[$v]}" "${FAN95[$v]}" "${INIT_CPU[$v]}"
    done
    echo
    if [ -n "${CPU[before]:-}" ] && [ -n "${CPU[stock]:-}" ]; then
        echo "  server CPU, stock vs before:   $(change "${CPU[before]}" "${CPU[stock]}")%"
    fi
    if [ -n "${CPU[stock]:-}" ] && [ -n "${CPU[patched]:-}" ]; then
        echo "  server CPU, patched vs stock:  $(change "${CPU[stock]}" "${CPU[patched]}")%"
    fi
    echo
    echo "Peak server RSS during the workload (VmHWM, reset when it starts):"
    for v in "${VARIANTS[@]}"; do
        printf "  %-${LW}s"' %10s\n' "$(label "$v")" "$(fmt_bytes "$(awk -v k="${RSS[$v]}" 'BEGIN { printf "%.0f", k * 1024 }')")"
    done
    if [ -n "${RSS[stock]:-}" ] && [ -n "${RSS[patched]:-}" ]; then
        echo "  peak RSS, patched vs stock:    $(change "${RSS[stock]}" "${RSS[patched]}")%"
    fi
    echo
    echo "Fds the main loop registered with poll() during the workload"
    echo "(poll_create_node), per client and transaction: about the passes"
    echo "of the main loop per transaction:"
    for v in "${VARIANTS[@]}"; do
        printf "  %-${LW}s"' %10s\n' "$(label "$v")" "$(awk -v x="${NODES[$v]}" -v n="$CLIENTS" -v k="$TXNS" 'BEGIN { if (x == "nan" || x == "") print "-"; else printf "%.1f", x / n / k }')"
    done
    echo
    echo "Per transaction, from the server's coverage counters (medians; \"-\""
    echo "where the server lacks the counter): passes of the main loop, sessions"
    echo "that they ran and sessions that they waited for:"
    printf "  %-${LW}s"' %10s %12s %15s\n' "" passes "sessions run" "sessions waited"
    for v in "${VARIANTS[@]}"; do
        printf "  %-${LW}s"' %10s %12s %15s\n' "$(label "$v")" \
            "$(per_txn "${PASSES[$v]}")" "$(per_txn "${SRUN[$v]}")" "$(per_txn "${SWAITED[$v]}")"
    done
    echo
    echo "Unreasonably long poll intervals (ms) of the server during the workload,"
    echo "all $RUNS runs pooled:"
    echo
    echo "           Count   Min    Max   Median    Mean   95 percentile"
    echo " -------------------------------------------------------------"
    for v in "${VARIANTS[@]}"; do
        # shellcheck disable=SC2086
        s=$(poll_stats ${POLLS[$v]})
        # shellcheck disable=SC2086
        set -- $s
        printf "  %-${LW}s"' %5s %6s %6s %8s %7s %10s\n' "$(label "$v")" "$1" "$2" "$3" "$4" "$5" "$6"
    done
    echo
    cat "$RUNDIR/main-stats.txt"
}

pin_text() {
    if [ -n "$SERVER_CPU" ]; then
        echo "server and control pinned to CPU $SERVER_CPU, load client to CPU $LOAD_CPU (taskset)"
    else
        echo "$PIN_NOTE"
    fi
}

# stats NAME POINTS TXNS: the statistics of the runs NAME-* (main or
# sweep) into $RUNDIR/NAME-stats.{json,txt,dat}.
stats() {
    "$PYTHON3" "$TOP/bench/monitor/sweep-report.py" "$RESDIR" "$RUNDIR/$1-stats" \
        --variants "${VARIANTS[*]}" --points "$2" --runs "$RUNS" --txns "$3" \
        --name "$1" || die "bench/monitor/sweep-report.py failed on the $1 runs"
}
stats main "$CLIENTS" "$TXNS"

REPORT="$RUNDIR/report.txt"
report | tee "$REPORT"

# ---------------------------------------------------------------------------
# Results: text, JSON, chart.  Written after the main comparison, and again
# with the sweep.

STAMP=$(date -u +%Y%m%d-%H%M%S)
OUT="$RESULTS_DIR/$TAG-$STAMP"
SWEEP_DAT="$RUNDIR/sweep-stats.dat"
json_runs() {
    local prefix=$1 first=1 f k val
    for f in "$RESDIR/$prefix"*.txt; do
        [ -e "$f" ] || continue
        [ $first = 1 ] || printf ',\n'
        first=0
        printf '    {"name": "%s"' "$(basename "$f" .txt)"
        while read -r k val; do
            case $k in
            poll_intervals|txn_server_cpu_ms|group_bytes)
                printf ', "%s": [%s]' "$k" "$(echo "$val" | tr -s ' ' ',')" ;;
            group_hashes)
                printf ', "%s": [%s]' "$k" "$(echo "$val" | sed 's/[^ ][^ ]*/"&"/g' | tr -s ' ' ',')" ;;
            *_hash|*_cpus|*_source) printf ', "%s": "%s"' "$k" "$val" ;;
            *) printf ', "%s": %s' "$k" "$val" ;;
            esac
        done <"$f"
        printf '}'
    done
    printf '\n'
}

write_results() {
    local i sep v f ext
    cp "$REPORT" "$OUT.txt"
    {
        printf '{\n  "benchmark": "monitor",\n  "base": "%s",\n  "date": "%s",\n' "$BASE" "$STAMP"
        printf '  "clients": %s,\n  "txns": %s,\n  "warmup": %s,\n  "batch": %s,\n  "runs_per_build": %s,\n' "$CLIENTS" "$TXNS" "$WARMUP" "$BATCH" "$RUNS"
        printf '  "variants": [%s],\n' "$(printf '"%s",' "${VARIANTS[@]}" | sed 's/,$//')"
        printf '  "conditional_group": %s,\n' "$CONDITIONAL"
        case $EXACT_PATCHED in
        '') printf '  "patched_bytes_exactly_stock": null,\n' ;;
        true) printf '  "patched_bytes_exactly_stock": true,\n' ;;
        *) printf '  "patched_bytes_exactly_stock": false,\n  "patched_bytes_differ_in_member_order": "%s",\n' "$EXACT_PATCHED" ;;
        esac
        if [ -n "$SERVER_CPU" ]; then
            printf '  "pinning": {"server_cpu": %s, "load_cpu": %s, "note": null},\n' "$SERVER_CPU" "$LOAD_CPU"
        else
            printf '  "pinning": {"server_cpu": null, "load_cpu": null, "note": "%s"},\n' "$PIN_NOTE"
        fi
        printf '  "scale": "%s",\n  "series_patches": %s,\n' "$SCALE" "$SERIES_N"
        printf '  "bytes_per_client": %s,\n  "init_bytes_per_client": %s,\n  "bytes_hash": "%s",\n' \
            "$REF_BYTES" "$REF_INIT" "$REF_HASH"
        printf '  "median": {\n'
        sep=
        for v in "${VARIANTS[@]}"; do
            # shellcheck disable=SC2046,SC2086
            set -- $(poll_stats ${POLLS[$v]})
            printf '%s    "%s": {"server_cpu_s": %s, "wall_s": %s, "fanout_ms_median": %s, "fanout_ms_p95": %s, "init_server_cpu_s": %s, "poll": {"count": %s, "min": %s, "max": %s, "median": %s, "mean": %s, "p95": %s}}' \
                "$sep" "$v" "${CPU[$v]}" "${WALL[$v]}" "${FANMED[$v]}" "${FAN95[$v]}" "${INIT_CPU[$v]}" "$1" \
                "$(num_or_null "$2")" "$(num_or_null "$3")" "$(num_or_null "$4")" "$(num_or_null "$5")" "$(num_or_null "$6")"
            sep=$',\n'
        done
        printf '\n  },\n'
        if [ -n "${CPU[before]:-}" ] && [ -n "${CPU[stock]:-}" ]; then
            printf '  "server_cpu_change_stock_vs_before_pct": %s,\n' "$(change_json "${CPU[before]}" "${CPU[stock]}")"
        fi
        if [ -n "${CPU[stock]:-}" ] && [ -n "${CPU[patched]:-}" ]; then
            printf '  "server_cpu_change_patched_vs_stock_pct": %s,\n' "$(change_json "${CPU[stock]}" "${CPU[patched]}")"
        fi
        printf '  "main_stats": '
        cat "$RUNDIR/main-stats.json"
        printf '  ,\n  "sweep_txns": %s,\n  "sweep": ' "$SWEEP_TXNS"
        if [ -s "$RUNDIR/sweep-stats.json" ]; then
            cat "$RUNDIR/sweep-stats.json"
        else
            echo null
        fi
        printf '  ,\n  "runs": [\n'
        json_runs main-
        printf '  ],\n  "sweep_runs": [\n'
        json_runs sweep-
        printf '  ]\n}\n'
    } >"$OUT.json"

    if [ -s "$SWEEP_DAT" ]; then
        {
            echo "set terminal pngcairo size 900,600 noenhanced" 2>/dev/null
            echo "set output '$OUT.png'"
            echo "set title 'Server CPU per transaction of $BATCH flows (median of $RUNS runs, min-max), OVS $BASE'"
            if [ "$CONDITIONAL" = 0 ]; then
                echo "set xlabel 'monitoring clients (monitor_cond_since, all tables)'"
            else
                echo "set xlabel 'monitoring clients (monitor_cond_since, conditions in groups of $CONDITIONAL)'"
            fi
            echo "set ylabel 'server CPU time per transaction (ms)'"
            echo "set key top left"
            echo "set grid"
            echo "set offsets graph 0.03, graph 0.03, graph 0.05, 0"
            printf "plot"
            i=2
            sep=
            for v in "${VARIANTS[@]}"; do
                printf "%s '%s' using 1:%d:%d:%d with yerrorlines lw 2 title '%s'" "$sep" "$SWEEP_DAT" "$i" "$((i + 1))" "$((i + 2))" "$(label "$v")"
                sep=","
                i=$((i + 3))
            done
            echo
        } >"$RUNDIR/chart.gp"
        if ! gnuplot "$RUNDIR/chart.gp" >>"$LOG" 2>&1; then
            sed -i 's/^set terminal pngcairo/set terminal png/' "$RUNDIR/chart.gp"
            run gnuplot "$RUNDIR/chart.gp" || die "gnuplot failed"
        fi
    fi

    return 0
}

write_results
stage "main results: $OUT.{txt,json}"

# ---------------------------------------------------------------------------
# Sweep: server CPU against the number of clients.

if [ -n "$SWEEP" ]; then
    echo
    stage "sweep: clients $SWEEP, $SWEEP_TXNS transactions each, $RUNS run(s) per build in alternating order"
    for n in $SWEEP; do
        names=()
        for r in $(seq 1 "$RUNS"); do
            for v in $(order "$r"); do
                run_one "$v" "$n" "$SWEEP_TXNS" "sweep-$v-$n-$r"
                names+=("sweep-$v-$n-$r")
            done
        done
        check_same "${names[@]}"
        line=
        for v in "${VARIANTS[@]}"; do
            a=()
            for r in $(seq 1 "$RUNS"); do
                a+=("$(get "sweep-$v-$n-$r" server_cpu_s)")
            done
            line+=" $(median "${a[@]}")"
        done
        stage "  $n clients: median server CPU ($(echo "${VARIANTS[*]}" | tr ' ' '/')) =$(echo "$line" | tr ' ' '/' | sed 's:^/: :') s"
    done
    stats sweep "$SWEEP" "$SWEEP_TXNS"
    { echo; cat "$RUNDIR/sweep-stats.txt"; } | tee -a "$REPORT"
fi

write_results
echo
stage "results: $OUT.{txt,json$([ -f "$OUT.png" ] && echo ",png")}, total $(awk -v a="$T_START" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }') s of runs"
