#!/usr/bin/env bash
# ./build.sh soak [--base B] [--duration S] [--clients N] ...
#
# Long-running behaviour of the series, stock against patched, side by side
# in one run: both servers get the same transactions, shaped like what
# ovn-northd writes to the Southbound database (bench/soak/txn.awk), while
# monitor clients of every kind the server serves connect, change their
# conditions, stop reading and leave throughout, and both servers compact
# their databases every so often.  Every --interval seconds it samples each
# server's RSS and the counters of "memory/show".  At the end every client
# leaves, and the server must hold no monitor, session, json cache entry,
# cached notification or backlog.
#
# With --cluster each side is a 3-member raft cluster with a relay in front
# of the clients: transactions go to the members in turn, the members
# compact, and the clients are the relay's.  The RSS sampled is the sum of
# the four servers' (each one's is kept too), the client counters are the
# relay's, and each member's counters are kept as "mN.NAME".
#
# The verdict (in the summary file, bench/soak/verdict.sh): after the
# warm-up, the patched server's RSS floor (the lowest RSS of each
# --window, which a leak raises and the spike of a large update does not)
# may grow faster than stock's by at most --rss-bound kB per hour (default
# 1024: 1 MB/h), measured as the median of the slopes between every two
# windows (Theil-Sen) of the difference of the two floors, window by
# window (of patched's own floor where stock's falls): a window that a
# long update holds up all through, on either side, moves it little.  A
# run shorter than an hour cannot tell that from its noise: its bound is
# the noise (Sen's interval, at 3 standard deviations) if that is more,
# and the summary states which bound it used and the noise; the floor of
# every memory/show counter (its lowest value of each window) may grow
# faster than stock's by no more than 3 standard errors of the difference
# (with 3 windows or more after the warm-up; a counter stock lacks is held
# to flat); once the clients are gone, nothing may be left, and the
# patched server's RSS may stay above its floor at the end of the
# warm-up by at most --return-bound kB (default 4096) more than stock's
# does.  Short runs are noisy: quote committed runs of an hour or more.
#
# At the end every server exits (ovs-appctl exit), so that AddressSanitizer
# and UBSan (in a build that has them: SOAK_BINDIRS) and, with --valgrind,
# valgrind's memcheck report at exit; a report of a variant after the
# first fails the run.
set -euo pipefail

# shellcheck source=../scripts/lib/bench-trees.sh
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib/bench-trees.sh"
# shellcheck source=../scripts/lib/opts.sh
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib/opts.sh"

usage() {
    cat <<EOF
usage: ./build.sh soak [--base BASE] [--duration S] [--clients N]
                       [--interval S] [--warmup S] [--pause S]
                       [--target ROWS] [--compact-every S] [--seed N]
                       [--rss-bound KB] [--return-bound KB] [--window S]
                       [--cluster] [--valgrind]
                       [--results-dir DIR] [--no-plot]

  --base           OVS base version (default $DEFAULT_BASE)
  --duration       seconds of workload (default 600)
  --clients        monitor clients per server (default 100), in turn:
                   monitor (v1) of every table; monitor_cond with the same
                   condition; monitor_cond on one datapath (16 conditions,
                   shared by the clients of a datapath); monitor_cond_since
                   of every flow, and of one datapath, which reconnect from
                   the last transaction id they got
  --interval       seconds between samples (default 5)
  --warmup         seconds before the slopes are measured (default a fifth
                   of --duration)
  --pause          seconds between transactions (default 0.5)
  --target         logical flows the database settles at (default 5000)
  --compact-every  seconds between compactions of both databases (default 120)
  --seed           seed of the workload and of the clients' behaviour
                   (default 1)
  --rss-bound      how many kB per hour faster than stock's the patched
                   server's RSS may grow (default 1024)
  --window         seconds of each window whose lowest RSS is a point of the
                   floor (default 300)
  --return-bound   once every client has left, how many kB more than stock's
                   the patched server's RSS may stay above its RSS at the
                   end of the warm-up (default 4096)
  --cluster        each side is a 3-member raft cluster with a relay in
                   front of the clients
  --valgrind       every server runs under valgrind's memcheck; an error or
                   a definitely lost block of a variant after the first
                   fails the run (RSS is then valgrind's: give --rss-bound
                   and --return-bound to suit)
  --results-dir    where the summary, samples and plot go (default bench/results)
  --no-plot        no PNG plot (no gnuplot needed)

Environment: SOAK_BINDIRS="NAME=DIR..." runs one server per NAME, in that
order, from DIR (a built OVS tree, or a directory holding ovsdb-server,
ovsdb-client, ovsdb-tool and ovs-appctl) instead of building stock and
patched BASE; each is compared with the first.  A build with
AddressSanitizer (./build.sh check --sanitize makes one in
build/check/sanitize-BASE) writes its reports to files, which the run
reads once the servers have exited.
EOF
}

BASE=$DEFAULT_BASE
DURATION=600
CLIENTS=100
INTERVAL=5
WARMUP=
PAUSE=0.5
TARGET=5000
COMPACT_EVERY=120
SEED=1
RSS_BOUND=1024
RETURN_BOUND=4096
WINDOW=300
RESULTS_DIR=$(results_dir records)
PLOT=1
CLUSTER=0
VALGRIND=0
VARIANTS=(stock patched)

parse_options soak '
    --no-plot PLOT =0
    --cluster CLUSTER =1
    --valgrind VALGRIND =1
    --base BASE base
    --duration DURATION uint1
    --clients CLIENTS uint1
    --interval INTERVAL uint1
    --warmup WARMUP uint0
    --pause PAUSE seconds
    --target TARGET uint1
    --compact-every COMPACT_EVERY uint1
    --seed SEED uint0
    --rss-bound RSS_BOUND uint0
    --return-bound RETURN_BOUND uint0
    --window WINDOW uint1
    --results-dir RESULTS_DIR text' "$@"
[ -n "$WARMUP" ] || WARMUP=$((DURATION / 5))
[ "$WARMUP" -lt "$DURATION" ] || die "soak: --warmup must be shorter than --duration"

T0=$(date +%s)
export T0
LOG=${LOG:-}
log_start soak

declare -A BINDIR=()

# Where each variant's programs are: SOAK_BINDIRS, or bench trees built for
# the base.
find_bindirs() {
    local v kv
    if [ -n "${SOAK_BINDIRS:-}" ]; then
        VARIANTS=()
        for kv in $SOAK_BINDIRS; do
            BINDIR[${kv%%=*}]=${kv#*=}
            VARIANTS+=("${kv%%=*}")
        done
    else
        need_build_deps
        BENCH_MAKE_TARGETS="ovsdb/ovsdb-server ovsdb/ovsdb-client ovsdb/ovsdb-tool utilities/ovs-appctl"
        for v in "${VARIANTS[@]}"; do
            stage "soak: build $v $BASE"
            bench_tree "$BASE" "$v"
            BINDIR[$v]=$(bench_tree_dir "$BASE" "$v")
        done
    fi
    for v in "${VARIANTS[@]}"; do
        [ -n "${BINDIR[$v]:-}" ] || die "SOAK_BINDIRS has no directory for $v"
        [ -d "${BINDIR[$v]}" ] || die "SOAK_BINDIRS: ${BINDIR[$v]} is not a directory"
        local p
        for p in ovsdb/ovsdb-server ovsdb/ovsdb-client ovsdb/ovsdb-tool utilities/ovs-appctl; do
            [ -x "${BINDIR[$v]}/$p" ] || [ -x "${BINDIR[$v]}/$(basename "$p")" ] ||
                die "$v: no $(basename "$p") in ${BINDIR[$v]}"
        done
    done
}

# checker: what watches the servers: valgrind (--valgrind), asan (a
# server built with AddressSanitizer), or none.
checker() {
    local v
    if [ "$VALGRIND" = 1 ]; then
        echo valgrind
        return
    fi
    for v in "${VARIANTS[@]}"; do
        if grep -q __asan_init "$(bin "$v" ovsdb-server)"; then
            echo asan
            return
        fi
    done
    echo none
}

# bin VARIANT PROGRAM: the path of PROGRAM (e.g. ovsdb-server) of VARIANT.
bin() {
    local d=${BINDIR[$1]}
    case $2 in
    ovs-appctl) [ -x "$d/utilities/$2" ] && echo "$d/utilities/$2" || echo "$d/$2" ;;
    *) [ -x "$d/ovsdb/$2" ] && echo "$d/ovsdb/$2" || echo "$d/$2" ;;
    esac
}

# server_appctl VARIANT NAME ARGS...: ovs-appctl to VARIANT's server NAME
# (ovsdb-server, or a cluster member mN).
server_appctl() {
    local v=$1 name=$2
    shift 2
    "$(bin "$v" ovs-appctl)" -t "$WORK/$v/$name.ctl" "$@"
}

# appctl VARIANT ARGS...: ovs-appctl to the server VARIANT's clients use.
appctl() {
    local v=$1
    shift
    server_appctl "$v" ovsdb-server "$@"
}

PIDS_TO_KILL=()
cleanup() {
    local v pidfile
    [ -n "${WORK:-}" ] || return 0   # nothing started yet
    for pidfile in "$WORK"/*/c*.pid "$WORK"/*/ovsdb-server.pid "$WORK"/*/m[123].pid; do
        [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true
    done
    for v in "${PIDS_TO_KILL[@]}"; do
        kill "$v" 2>/dev/null || true
    done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# server VARIANT NAME ARGS...: starts ovsdb-server NAME of VARIANT, with its
# pidfile, log and control socket WORK/VARIANT/NAME.*, on ARGS; a
# sanitizer's reports go to WORK/VARIANT/NAME.asan.PID (or .ubsan.PID),
# valgrind's (--valgrind) to WORK/VARIANT/NAME.valgrind.PID.
server() {
    local v=$1 name=$2 d="$WORK/$1" wrap=()
    shift 2
    [ "$VALGRIND" = 0 ] ||
        wrap=(valgrind --leak-check=full --errors-for-leak-kinds=definite
              --log-file="$d/$name.valgrind.%p")
    run env OVS_RUNDIR="$d" OVS_LOGDIR="$d" \
        ASAN_OPTIONS="detect_leaks=1:log_path=$d/$name.asan${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
        UBSAN_OPTIONS="print_stacktrace=1:log_path=$d/$name.ubsan${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}" \
        "${wrap[@]}" "$(bin "$v" ovsdb-server)" --detach \
        --no-chdir --pidfile="$d/$name.pid" --log-file="$d/$name.log" \
        --unixctl="$d/$name.ctl" "$@" ||
        die "$v: $name did not start (see $d/$name.log)"
}

# stop_servers: every server exits (the relay before its members), so that
# sanitizers and valgrind report; waits up to 60 s for each.
# How each server left goes to WORK/VARIANT/exits, "NAME HOW": "exit" (it
# did as ovs-appctl exit asked), "SIGTERM" (it did not answer), or "stuck"
# (still there a minute later: killed).  The summary gives every server
# that did not leave by "exit".
stop_servers() {
    local v name pid how
    for v in "${VARIANTS[@]}"; do
        for name in ovsdb-server $(members "$v"); do
            pid=$(cat "$WORK/$v/$name.pid" 2>/dev/null) || continue
            how="exit"
            if ! server_appctl "$v" "$name" exit >/dev/null 2>&1; then
                how=SIGTERM
                kill "$pid" 2>/dev/null || true
            fi
            wait_gone "$pid"
            if kill -0 "$pid" 2>/dev/null; then
                how=stuck
                kill -9 "$pid" 2>/dev/null || true
            fi
            echo "$name $how" >>"$WORK/$v/exits"
        done
    done
}

# servers_not_by_exit VARIANT: "NAME:HOW ..." of VARIANT's servers that did
# not leave by ovs-appctl exit, or "none".
servers_not_by_exit() {
    awk '$2 != "exit" { s = s (s ? " " : "") $1 ":" $2 } END { print s ? s : "none" }' \
        "$WORK/$1/exits" 2>/dev/null || echo none
}

# checker_reports VARIANT: one line for each sanitizer report file and each
# valgrind log with an error or a definitely lost block that VARIANT's
# servers left.
checker_reports() {
    local d="$WORK/$1" f r
    for f in "$d"/*.asan.* "$d"/*.ubsan.* "$d"/*.valgrind.*; do
        r=$(checker_finding "$f")
        [ -z "$r" ] || echo "$f: $r"
    done
}

# start_server VARIANT: the server the clients of VARIANT connect to (on
# WORK/VARIANT/db.sock): a standalone one, or with --cluster a relay in
# front of a 3-member cluster (members m1 to m3 on mN.sock).
start_server() {
    local v=$1 d="$WORK/$1" tool i
    mkdir -p "$d"
    tool=$(bin "$v" ovsdb-tool)
    if [ "$CLUSTER" = 0 ]; then
        run "$tool" create "$d/db" "$TOP/bench/soak/soak.ovsschema" ||
            die "$v: ovsdb-tool create failed (see $LOG)"
        server "$v" ovsdb-server --remote="punix:$d/db.sock" "$d/db"
        return
    fi
    run "$tool" create-cluster "$d/m1.db" "$TOP/bench/soak/soak.ovsschema" \
        "unix:$d/m1.raft" || die "$v: ovsdb-tool create-cluster failed (see $LOG)"
    for i in 2 3; do
        run "$tool" join-cluster "$d/m$i.db" Soak_Southbound "unix:$d/m$i.raft" \
            "unix:$d/m1.raft" || die "$v: ovsdb-tool join-cluster failed (see $LOG)"
    done
    for i in 1 2 3; do
        server "$v" "m$i" --remote="punix:$d/m$i.sock" "$d/m$i.db"
    done
    for i in 1 2 3; do
        timeout 60 "$(bin "$v" ovsdb-client)" wait "unix:$d/m$i.sock" \
            Soak_Southbound connected >>"$LOG" 2>&1 ||
            die "$v: member m$i did not join its cluster in 60 s (see $d/m$i.log)"
    done
    server "$v" ovsdb-server --remote="punix:$d/db.sock" \
        "relay:Soak_Southbound:unix:$d/m1.sock,unix:$d/m2.sock,unix:$d/m3.sock"
}

# members VARIANT: the names of VARIANT's cluster members (none standalone).
members() {
    [ "$CLUSTER" = 0 ] || echo m1 m2 m3
}

# Client slot I of VARIANT: kind I % 5 (see --help), datapath DP.
client_start() {
    local v=$1 i=$2 dp=$3 d="$WORK/$1" client cond last
    client=$(bin "$v" ovsdb-client)
    local args=(--detach --no-chdir --pidfile="$d/c$i.pid" --timestamp)
    local remote="unix:$d/db.sock" db=Soak_Southbound
    case $((i % 5)) in
    0) cond= ;;
    1) cond='[true]' ;;
    2) cond="[[\"logical_datapath\",\"==\",$dp]]" ;;
    3) cond='[true]' ;;
    4) cond="[[\"logical_datapath\",\"==\",$dp]]" ;;
    esac
    case $((i % 5)) in
    0) OVS_RUNDIR=$d "$client" "${args[@]}" monitor "$remote" "$db" ALL \
           >/dev/null 2>>"$d/clients.err" ;;
    1|2) OVS_RUNDIR=$d "$client" "${args[@]}" monitor-cond "$remote" "$db" \
           "$cond" Logical_Flow >/dev/null 2>>"$d/clients.err" ;;
    3|4)
        # The id the client got last (the file may be caught empty while
        # awk rewrites it): none means the whole database.
        last=$(cat "$d/c$i.lastid" 2>/dev/null || true)
        [[ $last =~ ^[0-9a-f-]{36}$ ]] || last=00000000-0000-0000-0000-000000000000
        OVS_RUNDIR=$d "$client" "${args[@]}" monitor-cond-since "$remote" "$db" \
            "$last" "$cond" Logical_Flow 2>>"$d/clients.err" |
            awk -v f="$d/c$i.lastid" '/^last_id: /{ print $2 > f; close(f) }' &
        # It runs in the background: wait for its pidfile, or a
        # client_stop that comes first would not find it.
        local n
        for n in $(seq 100); do
            [ ! -s "$d/c$i.pid" ] || break
            sleep 0.1
        done
        ;;
    esac
}

client_pid() {
    cat "$WORK/$1/c$2.pid" 2>/dev/null
}

client_stop() {
    local pid
    pid=$(client_pid "$1" "$2") || return 0
    kill "$pid" 2>/dev/null || true
    # The client removes its pidfile as it exits: wait for that, so that
    # it cannot remove the pidfile of the client that takes its slot.
    wait_gone "$pid" 100
    rm -f "$WORK/$1/c$2.pid"
}

# clients_stop_all: every client of every server leaves at once; waits
# (up to 10 s) until they have all exited.
clients_stop_all() {
    local pidfile pid pids=() n alive
    for pidfile in "$WORK"/*/c*.pid; do
        pid=$(cat "$pidfile" 2>/dev/null) || continue
        kill "$pid" 2>/dev/null && pids+=("$pid")
    done
    for n in $(seq 100); do
        alive=0
        for pid in "${pids[@]}"; do
            ! kill -0 "$pid" 2>/dev/null || { alive=1; break; }
        done
        [ "$alive" = 1 ] || break
        sleep 0.1
    done
    rm -f "$WORK"/*/c*.pid
}

# client_restart VARIANT I DP: client I leaves and comes back on DP.
client_restart() {
    client_stop "$1" "$2"
    client_start "$1" "$2" "$3"
}

# client_appctl VARIANT PID ARGS...: ovs-appctl to VARIANT's client PID.
client_appctl() {
    local v=$1 pid=$2
    shift 2
    "$(bin "$v" ovs-appctl)" -t "$WORK/$v/ovsdb-client.$pid.ctl" "$@" >/dev/null 2>&1
}

# One churn action on a random client slot, the same on both servers.
CHURN_N=0
BLOCKED=()
churn() {
    local i r dp v pid
    # Clients blocked in the previous round leave now, in the middle of
    # whatever they were sent meanwhile.
    for i in "${BLOCKED[@]}"; do
        for v in "${VARIANTS[@]}"; do
            client_restart "$v" "$i" $(( (i + CHURN_N) % 16 ))
        done
    done
    BLOCKED=()
    CHURN_N=$((CHURN_N + 1))
    i=$(( RANDOM % CLIENTS ))
    r=$(( RANDOM % 10 ))
    dp=$(( RANDOM % 16 ))
    for v in "${VARIANTS[@]}"; do
        pid=$(client_pid "$v" "$i") || continue
        if [ "$r" -lt 4 ]; then
            client_restart "$v" "$i" "$dp"
        elif [ "$r" -lt 6 ]; then
            client_appctl "$v" "$pid" ovsdb-client/block || true
        elif [ $((i % 5)) -eq 2 ] || [ $((i % 5)) -eq 4 ]; then
            client_appctl "$v" "$pid" ovsdb-client/cond_change Logical_Flow \
                "[[\"logical_datapath\",\"==\",$dp]]" || true
        fi
    done
    [ "$r" -lt 4 ] || [ "$r" -ge 6 ] || BLOCKED+=("$i")
}

# counters VARIANT NAME [PREFIX]: "PREFIXNAME:VALUE" for each counter of
# "memory/show" of VARIANT's server NAME.
counters() {
    server_appctl "$1" "$2" memory/show 2>/dev/null |
        tr ' ' '\n' | grep ':' | sed "s/^/${3:-}/" | tr '\n' ' '
}

# rss_of VARIANT NAME: the RSS in kB of VARIANT's server NAME.
rss_of() {
    awk '/^VmRSS:/ { print $2 }' "/proc/$(cat "$WORK/$1/$2.pid")/status"
}

# sample T PHASE: one line per variant in WORK/VARIANT/samples: seconds
# since the start, phase, RSS in kB (of every server of the variant), then
# the "memory/show" counters (with --cluster the relay's, and each
# member's as "mN.NAME" next to its RSS "mN.rss").
sample() {
    local t=$1 phase=$2 v m rss mem r
    for v in "${VARIANTS[@]}"; do
        rss=$(rss_of "$v" ovsdb-server)
        mem=$(counters "$v" ovsdb-server)
        for m in $(members "$v"); do
            r=$(rss_of "$v" "$m")
            rss=$((rss + r))
            mem="$mem $m.rss:$r $(counters "$v" "$m" "$m.")"
        done
        echo "$t $phase rss:$rss $mem" >>"$WORK/$v/samples"
    done
}

sampler() {
    local start=$1
    while :; do
        sample $(( $(date +%s) - start )) run
        sleep "$INTERVAL"
    done
}

# transact TXN: applies TXN to every server (with --cluster, to the members
# in turn); any error ends the run.
transact() {
    local v out sock=db.sock
    [ "$CLUSTER" = 0 ] || sock="m$((K % 3 + 1)).sock"
    for v in "${VARIANTS[@]}"; do
        out=$("$(bin "$v" ovsdb-client)" transact "unix:$WORK/$v/$sock" "$1") ||
            die "$v: ovsdb-client transact failed (see $WORK/$v/*.log)"
        if [[ $out == *'"error"'* ]]; then
            die "$v: transaction failed: ${out:0:200}"
        fi
    done
}

# compact: every database of every variant compacts.
compact() {
    local v m
    for v in "${VARIANTS[@]}"; do
        if [ "$CLUSTER" = 0 ]; then
            appctl "$v" ovsdb-server/compact >/dev/null
        fi
        for m in $(members "$v"); do
            server_appctl "$v" "$m" ovsdb-server/compact >/dev/null
        done
    done
}

# wait_leave VARIANT: waits until the server has no session left.
wait_leave() {
    local v=$1 n
    for n in $(seq 300); do
        appctl "$v" memory/show | grep -q 'sessions:' || return 0
        sleep 0.1
    done
    echo "$v: sessions still open 30 s after every client left" >&2
}

find_bindirs
# A run under a checker is a result of its own kind (soak-checked): its
# RSS is the checker's, what it proves is the reports.
CHECKER=$(checker)
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
NAME="soak-$BASE-${DURATION}s$([ "$CLUSTER" = 0 ] || echo -cluster)$([ "$CHECKER" = none ] || echo "-$CHECKER")-$STAMP"
WORK="$BUILD/soak/$NAME"
mkdir -p "$WORK" "$RESULTS_DIR"
for v in "${VARIANTS[@]}"; do
    start_server "$v"
done
stage "soak: $BASE, $DURATION s, $CLIENTS clients per server, work in $WORK"

NEXT_SEQ=0
FIRST_SEQ=0
K=0
next_txn() {
    local out
    out=$(awk -f "$TOP/bench/soak/txn.awk" -v seed="$SEED" -v k="$K" \
              -v next_seq="$NEXT_SEQ" -v first_seq="$FIRST_SEQ" \
              -v target="$TARGET" -v ports=200)
    read -r NEXT_SEQ FIRST_SEQ <<<"${out%%$'\n'*}"
    transact "${out#*$'\n'}"
    K=$((K + 1))
}
next_txn

RANDOM=$SEED
for i in $(seq 0 $((CLIENTS - 1))); do
    for v in "${VARIANTS[@]}"; do
        client_start "$v" "$i" $((i % 16))
    done
done

START=$(date +%s)
sampler "$START" &
PIDS_TO_KILL+=($!)
LAST_COMPACT=$START
LAST_STAGE=$START
while [ $(( $(date +%s) - START )) -lt "$DURATION" ]; do
    next_txn
    churn
    now=$(date +%s)
    if [ $((now - LAST_COMPACT)) -ge "$COMPACT_EVERY" ]; then
        compact
        LAST_COMPACT=$now
    fi
    if [ $((now - LAST_STAGE)) -ge 60 ]; then
        stage "soak: $((now - START)) of $DURATION s, $K transactions, $((NEXT_SEQ - FIRST_SEQ)) flows"
        LAST_STAGE=$now
    fi
    sleep "$PAUSE"
done
kill "${PIDS_TO_KILL[@]}" 2>/dev/null || true
wait "${PIDS_TO_KILL[@]}" 2>/dev/null || true
PIDS_TO_KILL=()

stage "soak: every client leaves"
clients_stop_all
for v in "${VARIANTS[@]}"; do
    wait_leave "$v"
done
sample $(( $(date +%s) - START )) left
stage "soak: the servers exit"
stop_servers

# The verdict and the summary file.
SUMMARY="$RESULTS_DIR/$NAME.summary"
SOAK_WINDOW=$WINDOW SOAK_DURATION=$DURATION "$TOP/bench/soak/verdict.sh" "$WORK" "$WARMUP" "$RSS_BOUND" "$RETURN_BOUND" \
    "${VARIANTS[@]}" >"$WORK/verdict"
{
    echo "kind=soak$([ "$CHECKER" = none ] || echo -checked)"
    echo "base=$BASE"
    echo "cluster=$([ "$CLUSTER" = 0 ] && echo no || echo "3 members and a relay")"
    echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "machine=$(nproc) CPUs, $(awk '/^MemTotal:/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo)"
    echo "duration_s=$DURATION"
    echo "warmup_s=$WARMUP"
    echo "clients_per_server=$CLIENTS"
    echo "transactions=$K"
    echo "flows_at_end=$((NEXT_SEQ - FIRST_SEQ))"
    echo "churn_actions=$CHURN_N"
    echo "compact_every_s=$COMPACT_EVERY"
    echo "seed=$SEED"
    for v in "${VARIANTS[@]}"; do
        echo "${v}_tree=$(git -C "${BINDIR[$v]}" rev-parse -q --verify 'HEAD^{tree}' 2>/dev/null || echo unknown)"
    done
    echo "rss_bound_kb_per_h=$RSS_BOUND"
    echo "window_s=$WINDOW"
    echo "return_bound_kb=$RETURN_BOUND"
    echo "checker=$CHECKER"
    for v in "${VARIANTS[@]}"; do
        echo "${v}_servers_not_by_exit=$(servers_not_by_exit "$v")"
    done
    # A checker's report of a variant after the first fails the run.
    bad=''
    for v in "${VARIANTS[@]}"; do
        mapfile -t reports < <(checker_reports "$v")
        echo "${v}_checker_reports=${#reports[@]}"
        [ "$v" = "${VARIANTS[0]}" ] || [ ${#reports[@]} -eq 0 ] || bad="$v: ${reports[0]}"
    done
    if [ -n "$bad" ]; then
        awk -v bad="$bad" '/^result=/ { print "result=FAIL"; next }
            /^why=/ { print "why=" bad (substr($0, 5) == "" ? "" : "; " substr($0, 5)); next } 1' \
            "$WORK/verdict"
    else
        cat "$WORK/verdict"
    fi
} >"$SUMMARY"
for v in "${VARIANTS[@]}"; do
    cp "$WORK/$v/samples" "$RESULTS_DIR/$NAME.$v.samples"
done
if [ "$PLOT" = 1 ]; then
    need_pkgs gnuplot-nox
    "$TOP/bench/soak/plot.sh" "$RESULTS_DIR/$NAME" "${VARIANTS[@]}" ||
        echo "soak: no plot (see $LOG)" >&2
fi
stage "soak: $(grep '^result=' "$SUMMARY"), summary in $SUMMARY"
grep -q '^result=pass$' "$SUMMARY"
