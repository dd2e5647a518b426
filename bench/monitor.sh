#!/usr/bin/env bash
# ./build.sh bench monitor [--clients N] [--txns K] [--base 3.5.0] ...
#
# The fan-out experiment of the monitor pre-serialization seed
# (shared/seeds/003_6680ec491b6dbe8e.txt) on a real ovsdb-server: N clients
# monitor the whole OVN Southbound database, like ovn-controller with
# ovn-monitor-all=true, while a writer applies a northd-like workload.
# Three builds of the same base: "before" (the json cache holds unserialized
# json: bench/monitor/before-unserialized-cache*.patch), "stock" and
# "patched" (patches/<base>/series).  See bench/README.md.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export TOP
# shellcheck source=scripts/common.sh
. "$TOP/scripts/common.sh"
# shellcheck source=scripts/bench-trees.sh
. "$TOP/scripts/bench-trees.sh"

usage() {
    cat <<EOF
usage: ./build.sh bench monitor [--clients N] [--txns K] [--base BASE]
                                [--runs R] [--batch L] [--scale quick|default]
                                [--sweep "1 10 50 120 250 500" | --no-sweep]
                                [--sweep-txns K] [--variants "before stock patched"]
                                [--seed S] [--results-dir DIR] [--tag NAME]
                                [--perf]

  --clients      monitoring clients of the main comparison (default 120, 1..1000)
  --txns         workload transactions per run (default 10)
  --base         OVS base version (default $DEFAULT_BASE)
  --runs         interleaved runs per build, medians reported (default 3)
  --batch        logical flows inserted per transaction (default 1000); each
                 transaction also deletes and rewrites a quarter batch of
                 flows, inserts and updates L/20 port bindings, inserts L/10
                 and refreshes L/20 MAC bindings
  --scale        initial Southbound database from bench/gen (default quick)
  --sweep        client counts for the CPU-vs-clients chart, one run each
                 (default "1 10 50 120 250 500"); --no-sweep skips it
  --sweep-txns   transactions per sweep run (default 2)
  --variants     builds to compare (default "before stock patched")
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
TXNS=10
BASE=$DEFAULT_BASE
RUNS=3
BATCH=1000
SCALE=quick
SWEEP="1 10 50 120 250 500"
SWEEP_TXNS=2
VARIANTS_ARG="before stock patched"
SEED=ovs-json-perf
RESULTS_DIR="$TOP/bench/results"
TAG=
PERF=0
while [ $# -gt 0 ]; do
    case $1 in
    --clients) CLIENTS=${2:-}; shift 2 || die "--clients needs a value" ;;
    --clients=*) CLIENTS=${1#*=}; shift ;;
    --txns) TXNS=${2:-}; shift 2 || die "--txns needs a value" ;;
    --txns=*) TXNS=${1#*=}; shift ;;
    --base) BASE=${2:-}; shift 2 || die "--base needs a value" ;;
    --base=*) BASE=${1#*=}; shift ;;
    --runs) RUNS=${2:-}; shift 2 || die "--runs needs a value" ;;
    --runs=*) RUNS=${1#*=}; shift ;;
    --batch) BATCH=${2:-}; shift 2 || die "--batch needs a value" ;;
    --batch=*) BATCH=${1#*=}; shift ;;
    --scale) SCALE=${2:-}; shift 2 || die "--scale needs a value" ;;
    --scale=*) SCALE=${1#*=}; shift ;;
    --sweep) SWEEP=${2:-}; shift 2 || die "--sweep needs a value" ;;
    --sweep=*) SWEEP=${1#*=}; shift ;;
    --no-sweep) SWEEP=; shift ;;
    --sweep-txns) SWEEP_TXNS=${2:-}; shift 2 || die "--sweep-txns needs a value" ;;
    --sweep-txns=*) SWEEP_TXNS=${1#*=}; shift ;;
    --variants) VARIANTS_ARG=${2:-}; shift 2 || die "--variants needs a value" ;;
    --variants=*) VARIANTS_ARG=${1#*=}; shift ;;
    --seed) SEED=${2:-}; shift 2 || die "--seed needs a value" ;;
    --seed=*) SEED=${1#*=}; shift ;;
    --results-dir) RESULTS_DIR=${2:-}; shift 2 || die "--results-dir needs a value" ;;
    --results-dir=*) RESULTS_DIR=${1#*=}; shift ;;
    --tag) TAG=${2:-}; shift 2 || die "--tag needs a value" ;;
    --tag=*) TAG=${1#*=}; shift ;;
    --perf) PERF=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option '$1'" ;;
    esac
done

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
positive_int --sweep-txns "$SWEEP_TXNS"
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
for v in "${VARIANTS[@]}"; do
    case $v in
    before|stock|patched) ;;
    *) die "unknown variant '$v' (before, stock or patched)" ;;
    esac
done
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

# Median of the arguments.
median() {
    printf '%s\n' "$@" | sort -g | awk '
        { v[NR] = $1 }
        END { if (!NR) print "nan";
              else if (NR % 2) printf "%.3f", v[(NR + 1) / 2];
              else printf "%.3f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
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

stage "bench monitor: base $BASE, builds: ${VARIANTS[*]}, $CLIENTS clients, $TXNS transactions of $BATCH flows, $RUNS run(s); sweep: ${SWEEP:-none}"
need_build_deps
need_pkgs gnuplot-nox
[ "$PERF" = 0 ] || command -v perf >/dev/null || need_pkgs linux-perf
declare -A TREE
for v in "${VARIANTS[@]}"; do
    case $v in
    before) bench_tree "$BASE" before "$BEFORE_PATCH" ;;
    *) bench_tree "$BASE" "$v" ;;
    esac
    TREE[$v]=$BENCH_TREE
    bench_tree_bin "${TREE[$v]}" ovsdb/ovsdb-server >/dev/null
done
SERIES_N=$(bench_series_files "$BASE" | wc -l)
FIRST=${VARIANTS[0]}
TOOL="${TREE[$FIRST]}/ovsdb/ovsdb-tool"
CLIENT="${TREE[$FIRST]}/ovsdb/ovsdb-client"

SCHEMA_DIR="$BENCH/ovn-central/usr/share/ovn"
SCHEMA="$SCHEMA_DIR/ovn-sb.ovsschema"
if [ ! -f "$SCHEMA" ]; then
    stage "downloading Debian's ovn-central for the OVN schemas"
    rm -rf "$BENCH/ovn-central" "$BENCH"/ovn-central_*.deb
    if ! (cd "$BENCH" && run apt-get download ovn-central); then
        run apt-get update -q || die "apt-get update failed"
        (cd "$BENCH" && run apt-get download ovn-central) ||
            die "apt-get download ovn-central failed"
    fi
    run dpkg-deb -x "$(ls "$BENCH"/ovn-central_*.deb | head -n1)" "$BENCH/ovn-central" ||
        die "cannot unpack ovn-central"
    [ -f "$SCHEMA" ] || die "ovn-central has no ovn-sb.ovsschema"
fi

stage "building the generator and the load client"
GEN="$BENCH/gen/ovsdb-gen"
mkdir -p "$BENCH/gen"
run make -C "$TOP/bench/gen" O="$BENCH/gen" || die "cannot build bench/gen"
LOAD="$BENCH/monitor/monitor-bench"
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
    run env OVS_RUNDIR="$d" OVS_LOGDIR="$d" OVS_DBDIR="$d" \
        "${TREE[$v]}/ovsdb/ovsdb-server" "$d/db" --no-chdir --detach \
        --pidfile="$d/pid" --unixctl="$d/ctl" --remote="punix:$d/sock" \
        --log-file="$d/log" -vconsole:off ||
        die "ovsdb-server ($v) failed to start; see $d/log"
    SERVER_PID=$(cat "$d/pid")
}

stop_server() {
    local v=$1 d=$2 i
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

# run_one VARIANT CLIENTS TXNS NAME: one measured run; results in
# $RESDIR/NAME.txt as "key value" lines.
run_one() {
    local v=$1 n=$2 k=$3 name=$4 d="$RUNDIR/srv"
    start_server "$v" "$d"
    [ -s "$REQUESTS" ] || make_requests "$d/sock"
    if ! load_run "$v" "$d" "$n" "$k" "$name"; then
        cat "$RESDIR/$name.err" >>"$LOG"
        cp "$d/log" "$LOGDIR/bench-monitor-server-$name.log" 2>/dev/null || true
        die "run $name failed: $(tail -n 1 "$RESDIR/$name.err") (server log: $LOGDIR/bench-monitor-server-$name.log)"
    fi
    { echo "--- $name"; cat "$RESDIR/$name.txt"; } >>"$LOG"
    stop_server "$v" "$d"
    [ "$PERF" = 0 ] || perf_report "$v" "$n" "$k" "$name"
}

# load_run VARIANT DIR CLIENTS TXNS NAME: runs the load client against the
# server.  Between the initial contents and the workload (the load client's
# --gate), it reads the server's poll_create_node coverage counter, and
# again after the workload: "server_poll_nodes" in the results, the number
# of fds the main loop registered with poll() during the workload, about
# the number of sessions times the passes of the main loop.  Builds that
# have the jsonrpc_session_visited counter (sessions that a pass of the
# main loop ran rather than skipped) also get "server_session_visits"; in
# the others every pass runs every session.  With --perf,
# it records the server during the workload only.
load_run() {
    local v=$1 d=$2 n=$3 k=$4 name=$5 load_pid perf_pid= rc=0 i nodes0 nodes1
    local visits0 visits1
    local gate="$d/gate" appctl="${TREE[$v]}/utilities/ovs-appctl"
    rm -f "$gate"
    "$LOAD" --socket "$d/sock" --requests "$REQUESTS" \
        --server-pid "$SERVER_PID" --server-log "$d/log" \
        --clients "$n" --txns "$k" --batch "$BATCH" --gate "$gate" \
        >"$RESDIR/$name.txt" 2>"$RESDIR/$name.err" &
    load_pid=$!
    for i in $(seq 1 60000); do
        grep -q '^workload_ready ' "$RESDIR/$name.txt" 2>/dev/null && break
        kill -0 "$load_pid" 2>/dev/null || break
        sleep 0.01
    done
    nodes0=$("$appctl" -t "$d/ctl" coverage/read-counter poll_create_node 2>/dev/null || echo -)
    visits0=$(read_visits "$appctl" "$d")
    if [ "$PERF" = 1 ]; then
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
    nodes1=$("$appctl" -t "$d/ctl" coverage/read-counter poll_create_node 2>/dev/null || echo -)
    visits1=$(read_visits "$appctl" "$d")
    if [ "$rc" = 0 ] && [ "$nodes0" != - ] && [ "$nodes1" != - ]; then
        echo "server_poll_nodes $((nodes1 - nodes0))" >>"$RESDIR/$name.txt"
    fi
    if [ "$rc" = 0 ] && [ "$visits0" != - ] && [ "$visits1" != - ]; then
        echo "server_session_visits $((visits1 - visits0))" >>"$RESDIR/$name.txt"
    fi
    return "$rc"
}

# read_visits APPCTL DIR: the server's jsonrpc_session_visited counter, or
# "-" if it has none.
read_visits() {
    local out
    out=$("$1" -t "$2/ctl" coverage/read-counter jsonrpc_session_visited 2>/dev/null) || out=
    case $out in
    ''|*[!0-9]*) echo - ;;
    *) echo "$out" ;;
    esac
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

T_START=$(now)
for r in $(seq 1 "$RUNS"); do
    for v in "${VARIANTS[@]}"; do
        stage "run $r/$RUNS: $v, $CLIENTS clients, $TXNS transactions"
        run_one "$v" "$CLIENTS" "$TXNS" "main-$v-$r"
        stage "  server CPU $(get "main-$v-$r" server_cpu_s) s, wall $(get "main-$v-$r" wall_s) s, $(fmt_bytes "$(get "main-$v-$r" bytes_per_client)") per client, $(get "main-$v-$r" poll_count) long poll intervals"
    done
done

# The bytes delivered must be the same for every build and run (each run
# already checked that every client got the same bytes as the others).
# Stock and patched serialize cached updates with sorted object members,
# "before" serializes for each client in hash order: its bytes are the
# same up to the order of object members, which the order-insensitive
# hash (of the byte counts) checks; the exact hash must be the same for
# all runs of a build and across the other builds.
REF_BYTES=$(get "main-$FIRST-1" bytes_per_client)
REF_INIT=$(get "main-$FIRST-1" init_bytes_per_client)
declare -A EXACT
# same_value KEY WHAT NAME REFNAME: die unless runs NAME and REFNAME agree.
same_value() {
    [ "$(get "$3" "$1")" = "$(get "$4" "$1")" ] ||
        die "$2 differ: run $3 has $1 $(get "$3" "$1"), run $4 has $(get "$4" "$1")"
}
for r in $(seq 1 "$RUNS"); do
    for v in "${VARIANTS[@]}"; do
        n="main-$v-$r"
        same_value bytes_per_client "bytes delivered" "$n" "main-$FIRST-1"
        same_value init_bytes_per_client "initial contents" "$n" "main-$FIRST-1"
        same_value bytes_hash "bytes delivered" "$n" "main-$FIRST-1"
        same_value init_bytes_hash "initial contents" "$n" "main-$FIRST-1"
        same_value content_hash "updates" "$n" "main-$v-1"
        same_value init_content_hash "initial contents" "$n" "main-$v-1"
        [ "$v" = before ] || EXACT[$v]=main-$v-1
    done
done
EXACT_REF=
for v in "${!EXACT[@]}"; do
    if [ -z "$EXACT_REF" ]; then
        EXACT_REF=${EXACT[$v]}
    else
        same_value content_hash "updates" "${EXACT[$v]}" "$EXACT_REF"
        same_value init_content_hash "initial contents" "${EXACT[$v]}" "$EXACT_REF"
    fi
done
REF_HASH=$(get "main-$FIRST-1" bytes_hash)
stage "bytes delivered: $REF_BYTES per client in every build and run, the same bytes (exact: $(echo "${!EXACT[@]}" | tr ' ' '/'); up to member order: all)"

# Per-variant medians and pooled poll intervals.
declare -A CPU WALL FAN95 FANMED INIT_CPU POLLS RSS NODES VISITS
for v in "${VARIANTS[@]}"; do
    a=() w=() f=() f9=() ic=() rs=() pn=() sv=()
    POLLS[$v]=
    for r in $(seq 1 "$RUNS"); do
        a+=("$(get "main-$v-$r" server_cpu_s)")
        w+=("$(get "main-$v-$r" wall_s)")
        f+=("$(get "main-$v-$r" fanout_ms_median)")
        f9+=("$(get "main-$v-$r" fanout_ms_p95)")
        ic+=("$(get "main-$v-$r" init_server_cpu_s)")
        rs+=("$(get "main-$v-$r" server_peak_rss_kb)")
        pn+=("$(get "main-$v-$r" server_poll_nodes)")
        x=$(get "main-$v-$r" server_session_visits)
        [ -z "$x" ] || sv+=("$x")
        POLLS[$v]+=" $(get "main-$v-$r" poll_intervals)"
    done
    CPU[$v]=$(median "${a[@]}")
    WALL[$v]=$(median "${w[@]}")
    FANMED[$v]=$(median "${f[@]}")
    FAN95[$v]=$(median "${f9[@]}")
    INIT_CPU[$v]=$(median "${ic[@]}")
    RSS[$v]=$(median "${rs[@]}")
    NODES[$v]=$(median "${pn[@]}")
    VISITS[$v]=nan
    [ "${#sv[@]}" = 0 ] || VISITS[$v]=$(median "${sv[@]}")
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
    esac
}

report() {
    local v s
    echo
    echo "Fan-out: $CLIENTS clients (monitor_cond_since, all tables, no condition),"
    echo "$TXNS transactions of $BATCH logical flows + port and MAC bindings, on the"
    echo "$SCALE OVN Southbound database; OVS $BASE; medians of $RUNS interleaved runs."
    echo "before = the json cache holds unserialized json; patched = stock + $SERIES_N patch(es)."
    echo "Updates: $(fmt_bytes "$REF_BYTES") per client in $(get "main-$FIRST-1" updates_per_client) updates, the same for every client and build;"
    echo "initial contents $(fmt_bytes "$REF_INIT") per client.  (Byte for byte: stock and patched"
    echo "serialize cached updates with sorted members; before sends the same bytes"
    echo "with object members in hash order.)"
    echo
    printf '%-9s %12s %10s %22s %14s\n' "" "server CPU" "wall" "fan-out per txn (ms)" "initial: CPU"
    printf '%-9s %12s %10s %22s %14s\n' "" "(s)" "(s)" "median      p95" "(s)"
    for v in "${VARIANTS[@]}"; do
        printf '  %-7s %12.2f %10.2f %11.1f %10.1f %14.2f\n' "$(label "$v")" \
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
        printf '  %-7s %10s\n' "$(label "$v")" "$(fmt_bytes "$(awk -v k="${RSS[$v]}" 'BEGIN { printf "%.0f", k * 1024 }')")"
    done
    if [ -n "${RSS[stock]:-}" ] && [ -n "${RSS[patched]:-}" ]; then
        echo "  peak RSS, patched vs stock:    $(change "${RSS[stock]}" "${RSS[patched]}")%"
    fi
    echo
    echo "Fds the main loop registered with poll() during the workload"
    echo "(poll_create_node), per client and transaction: about the passes"
    echo "of the main loop per transaction:"
    for v in "${VARIANTS[@]}"; do
        printf '  %-7s %10s\n' "$(label "$v")" "$(awk -v x="${NODES[$v]}" -v n="$CLIENTS" -v k="$TXNS" 'BEGIN { if (x == "nan" || x == "") print "-"; else printf "%.1f", x / n / k }')"
    done
    echo
    echo "Sessions that the main loop ran during the workload, per transaction"
    echo "(jsonrpc_session_visited; a build without it runs every session on"
    echo "every pass, about the fds above times the clients):"
    for v in "${VARIANTS[@]}"; do
        printf '  %-7s %10s\n' "$(label "$v")" "$(awk -v x="${VISITS[$v]}" -v k="$TXNS" 'BEGIN { if (x == "nan" || x == "") print "-"; else printf "%.0f", x / k }')"
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
        printf '  %-7s %5s %6s %6s %8s %7s %10s\n' "$(label "$v")" "$1" "$2" "$3" "$4" "$5" "$6"
    done
}

REPORT="$RUNDIR/report.txt"
report | tee "$REPORT"

# ---------------------------------------------------------------------------
# Results: text, JSON, chart.  Written after the main comparison, and again
# with the sweep.

STAMP=$(date -u +%Y%m%d-%H%M%S)
OUT="$RESULTS_DIR/$TAG-$STAMP"
SWEEP_DAT="$RUNDIR/sweep.dat"
: >"$SWEEP_DAT"



json_runs() {
    local prefix=$1 first=1 f k val
    for f in "$RESDIR/$prefix"*.txt; do
        [ -e "$f" ] || continue
        [ $first = 1 ] || printf ',\n'
        first=0
        printf '    {"name": "%s"' "$(basename "$f" .txt)"
        while read -r k val; do
            case $k in
            poll_intervals) printf ', "%s": [%s]' "$k" "$(echo "$val" | tr -s ' ' ',')" ;;
            *_hash) printf ', "%s": "%s"' "$k" "$val" ;;
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
        printf '  "clients": %s,\n  "txns": %s,\n  "batch": %s,\n  "runs": %s,\n' "$CLIENTS" "$TXNS" "$BATCH" "$RUNS"
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
        printf '  "sweep_txns": %s,\n  "sweep": [\n' "$SWEEP_TXNS"
        sep=
        while read -r -a f; do
            printf '%s    {"clients": %s' "$sep" "${f[0]}"
            i=1
            for v in "${VARIANTS[@]}"; do
                printf ', "%s_server_cpu_s": %s' "$v" "${f[$i]}"
                i=$((i + 1))
            done
            printf '}'
            sep=$',\n'
        done <"$SWEEP_DAT"
        printf '\n  ],\n  "runs": [\n'
        json_runs main-
        printf '  ],\n  "sweep_runs": [\n'
        json_runs sweep-
        printf '  ]\n}\n'
    } >"$OUT.json"

    if [ -s "$SWEEP_DAT" ]; then
        {
            echo "set terminal pngcairo size 900,600 noenhanced" 2>/dev/null
            echo "set output '$OUT.png'"
            echo "set title 'ovsdb-server CPU for $SWEEP_TXNS transactions of $BATCH flows, OVS $BASE'"
            echo "set xlabel 'monitoring clients (monitor_cond_since, all tables)'"
            echo "set ylabel 'server CPU time (s)'"
            echo "set key top left"
            echo "set grid"
            printf "plot"
            i=2
            sep=
            for v in "${VARIANTS[@]}"; do
                printf "%s '%s' using 1:%d with linespoints lw 2 title '%s'" "$sep" "$SWEEP_DAT" "$i" "$(label "$v")"
                sep=","
                i=$((i + 1))
            done
            echo
        } >"$RUNDIR/chart.gp"
        if ! gnuplot "$RUNDIR/chart.gp" >>"$LOG" 2>&1; then
            sed -i 's/^set terminal pngcairo/set terminal png/' "$RUNDIR/chart.gp"
            run gnuplot "$RUNDIR/chart.gp" || die "gnuplot failed"
        fi
    fi

    for ext in txt json png; do
        [ -f "$OUT.$ext" ] && cp "$OUT.$ext" "$RESULTS_DIR/$TAG-latest.$ext"
    done
    for ext in txt json png; do
        [ -f "$OUT.$ext" ] && cp "$OUT.$ext" "$RESULTS_DIR/$TAG-latest.$ext"
    done
    return 0
}

write_results
stage "main results: $OUT.{txt,json}"

# ---------------------------------------------------------------------------
# Sweep: server CPU against the number of clients.

if [ -n "$SWEEP" ]; then
    echo
    stage "sweep: clients $SWEEP, $SWEEP_TXNS transactions each, one run per build"
    for n in $SWEEP; do
        line="$n"
        for v in "${VARIANTS[@]}"; do
            run_one "$v" "$n" "$SWEEP_TXNS" "sweep-$v-$n"
            [ "$(get "sweep-$v-$n" bytes_per_client)" = "$(get "sweep-${VARIANTS[0]}-$n" bytes_per_client)" ] ||
                die "sweep, $n clients: $v delivered $(get "sweep-$v-$n" bytes_per_client) bytes per client, ${VARIANTS[0]} $(get "sweep-${VARIANTS[0]}-$n" bytes_per_client)"
            same_value bytes_hash "sweep: bytes delivered" "sweep-$v-$n" "sweep-${VARIANTS[0]}-$n"
            line+=" $(get "sweep-$v-$n" server_cpu_s)"
        done
        echo "$line" >>"$SWEEP_DAT"
        stage "  $n clients: server CPU ($(echo "${VARIANTS[*]}" | tr ' ' '/')) = $(echo "$line" | cut -d' ' -f2- | tr ' ' '/') s"
    done
    {
        echo
        echo "Server CPU (s) for $SWEEP_TXNS transactions against the number of clients:"
        echo
        printf '  %7s' clients
        for v in "${VARIANTS[@]}"; do printf ' %9s' "$(label "$v")"; done
        echo
        while read -r -a f; do
            printf '  %7s' "${f[0]}"
            for x in "${f[@]:1}"; do printf ' %9.2f' "$x"; done
            echo
        done <"$SWEEP_DAT"
    } | tee -a "$REPORT"
fi

write_results
echo
stage "results: $OUT.{txt,json$([ -f "$OUT.png" ] && echo ",png")} (copies: $RESULTS_DIR/$TAG-latest.*), total $(awk -v a="$T_START" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }') s of runs"
