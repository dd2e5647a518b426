#!/usr/bin/env bash
# ./build.sh bench json [--scale quick|default|full] [--base 3.5.0] [--runs N]
#
# Reproduces the dump / compaction / RSS table of the ovs-dev proposal this
# project started from, on synthetic OVN Northbound and Southbound
# databases, stock OVS against OVS with patches/<base>/series, both built
# with the same flags (scripts/lib/bench-trees.sh).
# See bench/README.md.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
    cat <<EOF
usage: ./build.sh bench json [--scale quick|default|full] [--base BASE] [--runs N]
                             [--seed S] [--results-dir DIR] [--keep-dumps DIR]
                             [--no-callgrind] [--prepare] [--db nb|sb|both]

  --scale        quick (~100k atoms per database), default (~1M), or
                 full (~12M atoms NB, ~23M atoms SB, like that proposal)
  --base         OVS base version (default $DEFAULT_BASE)
  --runs         measured runs per build and metric, median reported
                 (default 3)
  --seed         generator seed (default ovs-json-perf)
  --results-dir  where the JSON and PNG results go (default bench/results)
  --keep-dumps   also keep each build's "ovsdb-client dump -f json" output
                 of each database in DIR (nb-stock.json, ...)
  --no-callgrind skip the callgrind figure
  --prepare      only build the trees and generate the databases
  --db           nb, sb or both (default both)
EOF
}

SCALE=default
BASE=$DEFAULT_BASE
RUNS=3
SEED=ovs-json-perf
RESULTS_DIR=$(results_dir records)
KEEP_DUMPS=
CALLGRIND=1
PREPARE=0
ONLY_DB=both
parse_options 'bench json' '
    --scale SCALE text
    --base BASE text
    --runs RUNS uint1
    --seed SEED text
    --results-dir RESULTS_DIR text
    --keep-dumps KEEP_DUMPS text
    --no-callgrind CALLGRIND =0
    --prepare PREPARE =1
    --db ONLY_DB text' "$@"

case $SCALE in
quick) ATOMS_NB=100000; ATOMS_SB=100000 ;;
default) ATOMS_NB=1000000; ATOMS_SB=1000000 ;;
full) ATOMS_NB=12000000; ATOMS_SB=23000000 ;;
*) die "unknown scale '$SCALE' (quick, default or full)" ;;
esac
case $RUNS in
''|*[!0-9]*|0) die "--runs needs a positive integer, not '$RUNS'" ;;
esac
is_supported_base "$BASE" || die "unsupported base '$BASE' (have: $SUPPORTED_BASES)"
[ -n "$SEED" ] || die "--seed must not be empty"
mkdir -p "$RESULTS_DIR" || die "cannot create $RESULTS_DIR"
RESULTS_DIR=$(cd "$RESULTS_DIR" && pwd)
if [ -n "$KEEP_DUMPS" ]; then
    mkdir -p "$KEEP_DUMPS" || die "cannot create $KEEP_DUMPS"
    KEEP_DUMPS=$(cd "$KEEP_DUMPS" && pwd)
fi

log_start bench-json
BENCH="$BUILD/bench"
mkdir -p "$BENCH/run" "$BENCH/db"
CLK_TCK=$(getconf CLK_TCK)
VARIANTS=(stock patched)
case $ONLY_DB in
both) DBS=(nb sb) ;;
nb|sb) DBS=("$ONLY_DB") ;;
*) die "--db must be nb, sb or both, not '$ONLY_DB'" ;;
esac
declare -A DBNAME=([nb]=OVN_Northbound [sb]=OVN_Southbound)
declare -A LABEL=([nb]=Northbound [sb]=Southbound)

# ---------------------------------------------------------------------------
# Helpers.

now() { date +%s.%N; }

# Seconds between two "now" stamps.
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

# Server CPU time (user + system, all threads) in seconds.
cpu_of() {
    local stat
    stat=$(cat "/proc/$1/stat") || die "process $1 is gone"
    stat=${stat##*) }
    # After the comm field: state is field 3, utime 14, stime 15.
    echo "$stat" | awk -v hz="$CLK_TCK" '{ printf "%.2f", ($12 + $13) / hz }'
}

rss_of() {
    awk '/^VmRSS:/ { print $2 * 1024 }' "/proc/$1/status"
}

# hwm_of PID: the peak RSS (VmHWM) in bytes since the start or the last
# hwm_reset.
hwm_of() {
    awk '/^VmHWM:/ { print $2 * 1024 }' "/proc/$1/status"
}

# hwm_reset PID: the peak RSS starts again from the current RSS.
hwm_reset() {
    echo 5 >"/proc/$1/clear_refs" || die "cannot reset the peak RSS of process $1"
}

# Improvement in percent of AFTER over BEFORE (lower is better).
improvement() {
    awk -v b="$1" -v a="$2" 'BEGIN { if (b > 0) printf "%.1f", (b - a) * 100 / b; else print "0.0" }'
}

fmt_secs() {
    awk -v s="$1" 'BEGIN { if (s >= 10) f = "%.1f sec"; else if (s >= 1) f = "%.2f sec"; else f = "%.3f sec"; printf f, s }'
}

fmt_bytes() {
    awk -v b="$1" 'BEGIN { if (b >= 1e9) printf "%.2f GB", b / 1e9; else printf "%.1f MB", b / 1e6 }'
}

fmt_count() {
    awk -v n="$1" 'BEGIN { if (n >= 1e6) printf "%.1fM", n / 1e6; else if (n >= 1e3) printf "%.0fk", n / 1e3; else printf "%d", n }'
}

json_list() {
    local IFS=,
    echo "[$*]"
}

# ---------------------------------------------------------------------------
# Builds.

stage "bench json: scale $SCALE, base $BASE, $RUNS run(s), seed '$SEED'"
need_build_deps
need_pkgs gnuplot-nox valgrind
declare -A TREE
# The series as the patched tree is built from it (read once, up front).
SERIES=()
SERIES_SHA=()
mapfile -t SERIES < <(bench_series_files "$BASE" | xargs -r -n1 basename)
mapfile -t SERIES_SHA < <(bench_series_files "$BASE" | xargs -r sha1sum | cut -c1-40)
# Only what the benchmark runs (the whole tree takes far longer to build).
BENCH_MAKE_TARGETS="lib/libopenvswitch.la ovsdb/ovsdb-server ovsdb/ovsdb-client ovsdb/ovsdb-tool utilities/ovs-appctl"
for v in "${VARIANTS[@]}"; do
    bench_tree "$BASE" "$v"
    TREE[$v]=$(bench_tree_dir "$BASE" "$v")
    if [ "$v" = patched ]; then
        # Fail rather than label results with a series the tree lacks.
        [ "$(bench_series_files "$BASE" | xargs -r -n1 basename | tr '\n' ' ')" = "$(printf '%s ' "${SERIES[@]}" | sed 's/^ $//')" ] ||
            die "patches/$BASE/series changed during the build; run again"
    fi
done

stage "patched = base/$BASE + ${#SERIES[@]} patch(es) of patches/$BASE/series"

# ---------------------------------------------------------------------------
# Schemas and databases.

SCHEMA_DIR=$(ovn_schemas "$BENCH/ovn-central")
declare -A SCHEMA=([nb]="$SCHEMA_DIR/ovn-nb.ovsschema" [sb]="$SCHEMA_DIR/ovn-sb.ovsschema")

stage "building the generator"
GEN="$BENCH/gen/ovsdb-gen"
mkdir -p "$BENCH/gen"
run make -C "$TOP/bench/gen" O="$BENCH/gen" || die "cannot build bench/gen"

STOCK_TOOL="${TREE[stock]}/ovsdb/ovsdb-tool"
declare -A DBFILE ATOMS_WANT=([nb]=$ATOMS_NB [sb]=$ATOMS_SB)
# gen_db DB ATOMS FILE: generate (when out of date) and check a database.
gen_db() {
    local db=$1 atoms=$2 file=$3 key
    key="$(sha1sum <"$GEN" | cut -c1-40) $(sha1sum <"${SCHEMA[$db]}" | cut -c1-40) $atoms $SEED"
    if [ -f "$file" ] && [ -f "$file.stats" ] && [ "$(cat "$file.key" 2>/dev/null)" = "$key" ]; then
        return 0
    fi
    rm -f "$file" "$file.key"
    local t0 t1
    t0=$(now)
    run "$GEN" --db "$db" --schema "${SCHEMA[$db]}" --atoms "$atoms" \
        --seed "$SEED" --stats "$file.stats" -o "$file" ||
        die "generating $file failed"
    t1=$(now)
    stage "generated $(basename "$file"): $(fmt_bytes "$(stat -c %s "$file")"), $(grep '^atoms=' "$file.stats" | cut -d= -f2) atoms, $(grep '^short_string_pct=' "$file.stats" | cut -d= -f2)% of string atoms <= 23 bytes, in $(secs "$t0" "$t1") s"
    # The file must be a valid standalone OVSDB database of the schema.
    local ver name
    ver=$("$STOCK_TOOL" db-version "$file") || die "ovsdb-tool db-version failed on $file"
    name=$("$STOCK_TOOL" db-name "$file") || die "ovsdb-tool db-name failed on $file"
    [ "$name" = "${DBNAME[$db]}" ] || die "$file: database name '$name', expected ${DBNAME[$db]}"
    "$STOCK_TOOL" db-is-standalone "$file" || die "$file is not a standalone database"
    local recs
    recs=$("$STOCK_TOOL" show-log "$file" | grep -c '^record ') || true
    [ "$recs" = 2 ] || die "$file: ovsdb-tool show-log shows $recs records, expected 2"
    stage "checked $(basename "$file"): ovsdb-tool says $name $ver, standalone, 2 records"
    echo "$key" >"$file.key"
}

for db in "${DBS[@]}"; do
    DBFILE[$db]="$BENCH/db/$SCALE-$db.db"
    stage "database ${LABEL[$db]} ($SCALE, ~$(fmt_count "${ATOMS_WANT[$db]}") atoms)"
    gen_db "$db" "${ATOMS_WANT[$db]}" "${DBFILE[$db]}"
done

if [ "$PREPARE" = 1 ]; then
    stage "prepared: trees built, databases in $BENCH/db"
    exit 0
fi

# ---------------------------------------------------------------------------
# Servers and measurements.

RUNDIR=$(mktemp -d "$BENCH/run/json-XXXXXX")
SERVER_PIDS=()
cleanup() {
    local p i
    for p in "${SERVER_PIDS[@]}"; do
        kill "$p" 2>/dev/null || true
    done
    for p in "${SERVER_PIDS[@]}"; do
        for i in $(seq 1 50); do
            kill -0 "$p" 2>/dev/null || break
            sleep 0.1
        done
        kill -9 "$p" 2>/dev/null || true
    done
    rm -rf "$RUNDIR"
}
trap cleanup EXIT

declare -A PID CTL SOCK
# start_server DB VARIANT: copy the database, start ovsdb-server on it and
# wait until it has loaded (--detach returns once the database is open).
start_server() {
    local db=$1 v=$2 d="$RUNDIR/$1-$2" t0 t1
    rm -rf "$d"
    mkdir -p "$d"
    cp "${DBFILE[$db]}" "$d/db"
    CTL[$db-$v]="$d/ctl"
    SOCK[$db-$v]="$d/sock"
    local c0
    c0=$(awk '/^cpu /{print $2+$3+$4}' /proc/stat)
    t0=$(now)
    run env OVS_RUNDIR="$d" OVS_LOGDIR="$d" OVS_DBDIR="$d" \
        "${TREE[$v]}/ovsdb/ovsdb-server" "$d/db" --no-chdir --detach \
        --pidfile="$d/pid" --unixctl="$d/ctl" --remote="punix:$d/sock" \
        --log-file="$d/log" -vconsole:off ||
        die "ovsdb-server ($v) failed to start on $db; see $d/log"
    t1=$(now)
    PID[$db-$v]=$(cat "$d/pid")
    SERVER_PIDS+=("${PID[$db-$v]}")
    local wall cpu rss
    wall=$(secs "$t0" "$t1")
    cpu=$(cpu_of "${PID[$db-$v]}")
    rss=$(rss_of "${PID[$db-$v]}")
    R_LOAD_WALL[$db-$v]+="$wall "
    R_LOAD_CPU[$db-$v]+="$cpu "
    R_RSS[$db-$v]+="$rss "
    R_HWM_LOAD[$db-$v]+="$(hwm_of "${PID[$db-$v]}") "
    R_ATOMS[$db-$v]=$(appctl "$db" "$v" memory/show | tr ' ' '\n' | sed -n 's/^atoms://p')
    stage "  $v ovsdb-server loaded ${LABEL[$db]} in $wall s (server CPU $cpu s), RSS $(fmt_bytes "$rss"), memory/show atoms ${R_ATOMS[$db-$v]}"
}

appctl() {
    local db=$1 v=$2
    shift 2
    "${TREE[$v]}/utilities/ovs-appctl" --timeout=3600 -t "${CTL[$db-$v]}" "$@"
}

stop_server() {
    local db=$1 v=$2 p=${PID[$1-$2]} i
    appctl "$db" "$v" exit >/dev/null 2>&1 || kill "$p" 2>/dev/null || true
    for i in $(seq 1 100); do
        kill -0 "$p" 2>/dev/null || break
        sleep 0.1
    done
    kill -0 "$p" 2>/dev/null && kill -9 "$p" 2>/dev/null || true
    local keep=() q
    for q in "${SERVER_PIDS[@]}"; do
        [ "$q" = "$p" ] || keep+=("$q")
    done
    SERVER_PIDS=("${keep[@]}")
}

# measure_dump DB VARIANT: one timed "ovsdb-client dump -f json" run.
measure_dump() {
    local db=$1 v=$2 p=${PID[$1-$2]} c0 c1 t0 t1
    hwm_reset "$p"
    c0=$(cpu_of "$p")
    t0=$(now)
    local sha
    sha=$("${TREE[$v]}/ovsdb/ovsdb-client" dump -f json "unix:${SOCK[$db-$v]}" \
        "${DBNAME[$db]}" 2>>"$LOG" | sha1sum | cut -c1-40) &&
        [ "$sha" != "$EMPTY_SHA1" ] || die "ovsdb-client dump ($v, $db) failed"
    t1=$(now)
    # Every run of both builds must have served the same bytes.
    [ -n "${R_DUMP_SHA[$db-$v]:-}" ] || R_DUMP_SHA[$db-$v]=$sha
    [ "$sha" = "${R_DUMP_SHA[$db-$v]}" ] || R_DUMP_SHA[$db-$v]=differs-between-runs
    c1=$(cpu_of "$p")
    R_DUMP_CPU[$db-$v]+="$(awk -v a="$c0" -v b="$c1" 'BEGIN{printf "%.2f", b - a}') "
    R_DUMP_WALL[$db-$v]+="$(secs "$t0" "$t1") "
    R_HWM_DUMP[$db-$v]+="$(hwm_of "$p") "
}

# measure_monitor DB VARIANT: a new client's initial monitor request for
# every table ("ovsdb-client monitor ALL", which detaches once it has
# printed the initial contents): the server's CPU and peak RSS for it.
measure_monitor() {
    local db=$1 v=$2 p=${PID[$1-$2]} d="$RUNDIR/$1-$2" c0 c1
    hwm_reset "$p"
    c0=$(cpu_of "$p")
    env OVS_RUNDIR="$d" OVS_LOGDIR="$d" \
        "${TREE[$v]}/ovsdb/ovsdb-client" --detach --no-chdir --pidfile="$d/monitor.pid" \
            -f json monitor "unix:${SOCK[$db-$v]}" "${DBNAME[$db]}" ALL \
            >"$d/monitor.out" 2>>"$LOG" || die "ovsdb-client monitor ($v, $db) failed"
    c1=$(cpu_of "$p")
    R_HWM_MONITOR[$db-$v]+="$(hwm_of "$p") "
    R_MONITOR_CPU[$db-$v]+="$(awk -v a="$c0" -v b="$c1" 'BEGIN{printf "%.2f", b - a}') "
    kill "$(cat "$d/monitor.pid")" 2>/dev/null || true
    [ -s "$d/monitor.out" ] || die "ovsdb-client monitor ($v, $db) printed nothing"
    rm -f "$d/monitor.out"
}

# measure_compact DB VARIANT: one timed ovsdb-server/compact, its peak RSS
# and the RSS after it.
measure_compact() {
    local db=$1 v=$2 p=${PID[$1-$2]} c0 c1 t0 t1
    hwm_reset "$p"
    c0=$(cpu_of "$p")
    t0=$(now)
    appctl "$db" "$v" ovsdb-server/compact >>"$LOG" 2>&1 ||
        die "compaction ($v, $db) failed"
    t1=$(now)
    c1=$(cpu_of "$p")
    R_COMPACT_CPU[$db-$v]+="$(awk -v a="$c0" -v b="$c1" 'BEGIN{printf "%.2f", b - a}') "
    R_COMPACT_WALL[$db-$v]+="$(secs "$t0" "$t1") "
    R_HWM_COMPACT[$db-$v]+="$(hwm_of "$p") "
    R_RSS_AFTER[$db-$v]+="$(rss_of "$p") "
}

# measure_trim DB VARIANT: the RSS after a second, untimed compaction with
# memory-trim-on-compaction on (malloc_trim() after it).
measure_trim() {
    local db=$1 v=$2
    appctl "$db" "$v" ovsdb-server/memory-trim-on-compaction on >>"$LOG" 2>&1 ||
        die "memory-trim-on-compaction ($v, $db) failed"
    appctl "$db" "$v" ovsdb-server/compact >>"$LOG" 2>&1 ||
        die "compaction with memory trimming ($v, $db) failed"
    R_RSS_TRIM[$db-$v]+="$(rss_of "${PID[$db-$v]}") "
}

EMPTY_SHA1=$(printf '' | sha1sum | cut -c1-40)
declare -A R_LOAD_WALL R_LOAD_CPU R_RSS R_ATOMS R_DUMP_CPU R_DUMP_WALL
declare -A R_COMPACT_CPU R_COMPACT_WALL R_DUMP_SHA R_RSS_AFTER
declare -A R_HWM_LOAD R_HWM_DUMP R_HWM_COMPACT R_RSS_TRIM R_HWM_MONITOR R_MONITOR_CPU

# One server at a time (a full-scale SB server, the reply it builds and the
# client parsing it take most of the machine's memory), stock and patched
# interleaved: for each run, stock then patched are loaded fresh,
# compacted, dumped, asked for a monitor's initial contents, compacted
# again with malloc_trim() and stopped.  The timed compaction comes first,
# so that its peak starts from the RSS the load left and not from what a
# dump or a monitor reply left behind in the allocator.
last() { echo "$1" | awk '{ print $NF }'; }
for db in "${DBS[@]}"; do
    stage "${LABEL[$db]}: $RUNS run(s), stock and patched interleaved, one server at a time"
    for r in $(seq 1 "$RUNS"); do
        for v in "${VARIANTS[@]}"; do
            start_server "$db" "$v"
            measure_compact "$db" "$v"
            measure_dump "$db" "$v"
            measure_monitor "$db" "$v"
            measure_trim "$db" "$v"
            if [ -n "$KEEP_DUMPS" ] && [ "$r" = 1 ]; then
                # Untimed, for comparing by hand (or by tests/t-bench-json.sh).
                "${TREE[$v]}/ovsdb/ovsdb-client" dump -f json \
                    "unix:${SOCK[$db-$v]}" "${DBNAME[$db]}" >"$KEEP_DUMPS/$db-$v.json" ||
                    die "ovsdb-client dump ($v, $db) failed"
            fi
            stop_server "$db" "$v"
        done
        stage "  run $r/$RUNS: dump server CPU stock $(last "${R_DUMP_CPU[$db-stock]}") s, patched $(last "${R_DUMP_CPU[$db-patched]}") s; compaction stock $(last "${R_COMPACT_WALL[$db-stock]}") s, patched $(last "${R_COMPACT_WALL[$db-patched]}") s"
    done
    # Both builds must have served the same data, byte for byte: the SHA-1
    # of every timed dump is compared.
    if [ "${R_DUMP_SHA[$db-stock]}" = "${R_DUMP_SHA[$db-patched]}" ]; then
        stage "  dumps of stock and patched are identical (sha1 ${R_DUMP_SHA[$db-stock]})"
    else
        stage "  WARNING: dumps of stock and patched differ"
    fi
done

# ---------------------------------------------------------------------------
# Callgrind: a fixed workload, independent of --scale: bench/gen/json-roundtrip
# (parse with json_from_file(), serialize with JSSF_SORT, free), linked with
# each build's libopenvswitch, on the data record of the quick NB and SB
# databases.

declare -A IR
if [ "$CALLGRIND" = 1 ]; then
    stage "callgrind: json-roundtrip on the quick databases' data records"
    for v in "${VARIANTS[@]}"; do
        (cd "${TREE[$v]}" && run ./libtool --quiet --tag=CC --mode=link gcc \
            $BENCH_CFLAGS -Wall -I include -o "$BENCH/gen/json-roundtrip-$v" \
            "$TOP/bench/gen/json-roundtrip.c" lib/libopenvswitch.la) ||
            die "cannot build json-roundtrip against the $v tree"
    done
    for db in "${DBS[@]}"; do
        qdb="$BENCH/db/quick-$db.db"
        [ "$SCALE" = quick ] || gen_db "$db" 100000 "$qdb"
        sed -n 4p "$qdb" >"$RUNDIR/cg-$db.json"
        for v in "${VARIANTS[@]}"; do
            cgout="$RUNDIR/callgrind-$db-$v.out"
            valgrind --tool=callgrind --callgrind-out-file="$cgout" \
                "$BENCH/gen/json-roundtrip-$v" "$RUNDIR/cg-$db.json" \
                >/dev/null 2>>"$LOG" || die "callgrind run ($v, $db) failed; see $LOG"
            IR[$db-$v]=$(awk '/^(summary|totals):/ { print $2; exit }' "$cgout")
            [ -n "${IR[$db-$v]}" ] || die "no instruction count in $cgout"
            "$BENCH/gen/json-roundtrip-$v" "$RUNDIR/cg-$db.json" |
                sha1sum | cut -c1-40 >"$RUNDIR/cg-$db-$v.sha"
        done
        cmp -s "$RUNDIR/cg-$db-stock.sha" "$RUNDIR/cg-$db-patched.sha" ||
            die "json-roundtrip output of stock and patched differ on $db"
        stage "  ${LABEL[$db]}: stock ${IR[$db-stock]} Ir, patched ${IR[$db-patched]} Ir"
    done
fi

# ---------------------------------------------------------------------------
# Report.

stat_of() { grep "^$2=" "${DBFILE[$1]}.stats" | cut -d= -f2; }

print_table() {
    local db=$1 size atoms
    size=$(stat -c %s "${DBFILE[$db]}")
    atoms=${R_ATOMS[$db-stock]}
    local d_s d_p c_s c_p r_s r_p
    d_s=$(median ${R_DUMP_CPU[$db-stock]})
    d_p=$(median ${R_DUMP_CPU[$db-patched]})
    c_s=$(median ${R_COMPACT_WALL[$db-stock]})
    c_p=$(median ${R_COMPACT_WALL[$db-patched]})
    r_s=$(median ${R_RSS[$db-stock]})
    r_p=$(median ${R_RSS[$db-patched]})
    echo
    echo "With $(awk -v b="$size" 'BEGIN{printf "%.0f", b/1e6}')MB OVN ${LABEL[$db]} database with $(fmt_count "$atoms") atoms:"
    echo
    printf '  %-20s %12s %12s %12s\n' "" Before After Improvement
    printf '  %-20s %12s %12s %10s %%\n' "ovsdb-client dump" "$(fmt_secs "$d_s")" "$(fmt_secs "$d_p")" "$(improvement "$d_s" "$d_p")"
    printf '  %-20s %12s %12s %10s %%\n' "Compaction" "$(fmt_secs "$c_s")" "$(fmt_secs "$c_p")" "$(improvement "$c_s" "$c_p")"
    printf '  %-20s %12s %12s %10s %%\n' "Memory usage (RSS)" "$(fmt_bytes "$r_s")" "$(fmt_bytes "$r_p")" "$(improvement "$r_s" "$r_p")"
}

print_details() {
    local db=$1 m s p
    echo
    echo "  ${LABEL[$db]} details (medians of $RUNS; stock / patched / improvement):"
    for m in DUMP_WALL:"dump wall time" COMPACT_CPU:"compaction server CPU" \
             LOAD_WALL:"load wall time" LOAD_CPU:"load server CPU" \
             MONITOR_CPU:"initial monitor, CPU"; do
        local k=${m%%:*} n=${m#*:} a b
        eval "a=\$(median \${R_${k}[$db-stock]})"
        eval "b=\$(median \${R_${k}[$db-patched]})"
        printf '    %-24s %10s %10s %7s %%\n' "$n" "$(fmt_secs "$a")" "$(fmt_secs "$b")" "$(improvement "$a" "$b")"
    done
    for m in HWM_LOAD:"peak RSS, load (VmHWM)" RSS:"RSS after load" \
             HWM_DUMP:"peak RSS during dump" HWM_MONITOR:"peak RSS, init. monitor" \
             HWM_COMPACT:"peak RSS, compaction" \
             RSS_AFTER:"RSS after compaction" RSS_TRIM:"RSS after malloc_trim"; do
        local k=${m%%:*} n=${m#*:} a b
        eval "a=\$(median \${R_${k}[$db-stock]})"
        eval "b=\$(median \${R_${k}[$db-patched]})"
        printf '    %-24s %10s %10s %7s %%\n' "$n" "$(fmt_bytes "$a")" "$(fmt_bytes "$b")" "$(improvement "$a" "$b")"
    done
    if [ "$CALLGRIND" = 1 ]; then
        printf '    %-24s %10s %10s %7s %%\n' "callgrind roundtrip (Ir)" "$(fmt_count "${IR[$db-stock]}")" "$(fmt_count "${IR[$db-patched]}")" "$(improvement "${IR[$db-stock]}" "${IR[$db-patched]}")"
    fi
    echo "    raw dump server CPU (s): stock ${R_DUMP_CPU[$db-stock]}/ patched ${R_DUMP_CPU[$db-patched]}"
    echo "    raw compaction time (s): stock ${R_COMPACT_WALL[$db-stock]}/ patched ${R_COMPACT_WALL[$db-patched]}"
    echo "    raw RSS after load (bytes): stock ${R_RSS[$db-stock]}/ patched ${R_RSS[$db-patched]}"
    echo "    generator: $(stat_of "$db" atoms) atoms ($(stat_of "$db" data_atoms) without _uuid/_version), $(stat_of "$db" rows) rows, $(stat_of "$db" short_string_pct)% of $(stat_of "$db" string_atoms) string atoms <= 23 bytes; server memory/show atoms: stock ${R_ATOMS[$db-stock]}, patched ${R_ATOMS[$db-patched]}"
    echo "    dumps identical: $([ "${R_DUMP_SHA[$db-stock]}" = "${R_DUMP_SHA[$db-patched]}" ] && echo yes || echo NO)"
}

TS=$(date -u +%Y%m%dT%H%M%SZ)
TAG=$SCALE
[ "$ONLY_DB" = both ] || TAG="$SCALE-$ONLY_DB"
REPORT="$RESULTS_DIR/json-$TAG-$TS.txt"
{
    echo "bench json: scale $SCALE, base $BASE, $RUNS run(s), stock vs patched (${#SERIES[@]} patches), $(nproc) cores"
    echo "ovsdb-client dump = server CPU time for the dump; Compaction = ovsdb-server/compact wall time; RSS after load; medians of $RUNS"
    for db in "${DBS[@]}"; do
        print_table "$db"
    done
    for db in "${DBS[@]}"; do
        print_details "$db"
    done
} >"$REPORT"
cat "$REPORT"

# JSON with the raw runs and medians.
metric_json() {
    local db=$1 name=$2 unit=$3 var=$4 s p
    eval "s=\${${var}[$db-stock]}"
    eval "p=\${${var}[$db-patched]}"
    local ms mp
    ms=$(median $s)
    mp=$(median $p)
    # shellcheck disable=SC2086
    printf '"%s": {"unit": "%s", "stock": {"runs": %s, "median": %s}, "patched": {"runs": %s, "median": %s}, "improvement_pct": %s}' \
        "$name" "$unit" "$(json_list $s)" "$ms" "$(json_list $p)" "$mp" "$(improvement "$ms" "$mp")"
}

JSON="$RESULTS_DIR/json-$TAG-$TS.json"
{
    echo "{"
    echo "  \"benchmark\": \"json\","
    echo "  \"timestamp\": \"$TS\","
    echo "  \"scale\": \"$SCALE\", \"base\": \"$BASE\", \"runs\": $RUNS, \"seed\": \"$SEED\","
    echo "  \"host\": {\"nproc\": $(nproc), \"mem_total_kb\": $(awk '/^MemTotal:/{print $2}' /proc/meminfo)},"
    printf '  "builds": {"stock": {"commit": "%s"}, "patched": {"commit": "%s", "series": [%s], "series_sha1": [%s]}, "cflags": "%s"},\n' \
        "$(git -C "${TREE[stock]}" rev-parse HEAD)" "$(git -C "${TREE[patched]}" rev-parse HEAD)" \
        "$( [ ${#SERIES[@]} -eq 0 ] || printf '"%s",' "${SERIES[@]}" | sed 's/,$//')" \
        "$( [ ${#SERIES_SHA[@]} -eq 0 ] || printf '"%s",' "${SERIES_SHA[@]}" | sed 's/,$//')" "$BENCH_CFLAGS"
    echo "  \"databases\": {"
    first=1
    for db in "${DBS[@]}"; do
        [ $first = 1 ] || echo ","
        first=0
        printf '    "%s": {\n' "$db"
        printf '      "name": "%s", "file_bytes": %s, "generator": {"atoms": %s, "data_atoms": %s, "rows": %s, "nodes": %s, "string_atoms": %s, "short_string_atoms": %s, "short_string_pct": %s},\n' \
            "${DBNAME[$db]}" "$(stat -c %s "${DBFILE[$db]}")" "$(stat_of "$db" atoms)" "$(stat_of "$db" data_atoms)" "$(stat_of "$db" rows)" \
            "$(stat_of "$db" nodes)" "$(stat_of "$db" string_atoms)" "$(stat_of "$db" short_string_atoms)" \
            "$(stat_of "$db" short_string_pct)"
        printf '      "server_atoms": {"stock": %s, "patched": %s},\n' "${R_ATOMS[$db-stock]}" "${R_ATOMS[$db-patched]}"
        printf '      "dump_sha1": {"stock": "%s", "patched": "%s"}, "dumps_identical": %s,\n' \
            "${R_DUMP_SHA[$db-stock]}" "${R_DUMP_SHA[$db-patched]}" \
            "$([ "${R_DUMP_SHA[$db-stock]}" = "${R_DUMP_SHA[$db-patched]}" ] && echo true || echo false)"
        echo "      \"metrics\": {"
        echo "        $(metric_json "$db" dump_server_cpu s R_DUMP_CPU),"
        echo "        $(metric_json "$db" dump_wall s R_DUMP_WALL),"
        echo "        $(metric_json "$db" compaction_wall s R_COMPACT_WALL),"
        echo "        $(metric_json "$db" compaction_server_cpu s R_COMPACT_CPU),"
        echo "        $(metric_json "$db" rss_after_load bytes R_RSS),"
        echo "        $(metric_json "$db" rss_after_compaction bytes R_RSS_AFTER),"
        echo "        $(metric_json "$db" peak_rss_load bytes R_HWM_LOAD),"
        echo "        $(metric_json "$db" peak_rss_dump bytes R_HWM_DUMP),"
        echo "        $(metric_json "$db" peak_rss_initial_monitor bytes R_HWM_MONITOR),"
        echo "        $(metric_json "$db" initial_monitor_server_cpu s R_MONITOR_CPU),"
        echo "        $(metric_json "$db" peak_rss_compaction bytes R_HWM_COMPACT),"
        echo "        $(metric_json "$db" rss_after_malloc_trim bytes R_RSS_TRIM),"
        echo "        $(metric_json "$db" load_wall s R_LOAD_WALL),"
        echo "        $(metric_json "$db" load_server_cpu s R_LOAD_CPU)"
        echo "      }"
        printf '    }'
    done
    echo
    echo "  },"
    if [ "$CALLGRIND" = 1 ]; then
        echo "  \"callgrind\": {\"workload\": \"bench/gen/json-roundtrip (parse, serialize sorted, free) on the data record of the quick NB/SB databases\","
        sep=
        for db in "${DBS[@]}"; do
            printf '%s    "%s": {"stock": %s, "patched": %s, "improvement_pct": %s}' "$sep" "$db" \
                "${IR[$db-stock]}" "${IR[$db-patched]}" "$(improvement "${IR[$db-stock]}" "${IR[$db-patched]}")"
            sep=$',\n'
        done
        printf '},\n' 
    fi
    echo "  \"report\": \"$(basename "$REPORT")\""
    echo "}"
} >"$JSON"
/usr/bin/python3 -m json.tool "$JSON" >/dev/null 2>&1 || die "internal error: $JSON is not valid JSON"

# Chart: stock against patched, one panel per metric and database.
PNG="$RESULTS_DIR/json-$TAG-$TS.png"
PLOT="$RUNDIR/plot"
mkdir -p "$PLOT"
panels=()
for db in "${DBS[@]}"; do
    U=${db^^}
    printf 'stock %s\npatched %s\n' "$(median ${R_DUMP_CPU[$db-stock]})" "$(median ${R_DUMP_CPU[$db-patched]})" >"$PLOT/$db-dump"
    printf 'stock %s\npatched %s\n' "$(median ${R_COMPACT_WALL[$db-stock]})" "$(median ${R_COMPACT_WALL[$db-patched]})" >"$PLOT/$db-compact"
    printf 'stock %s\npatched %s\n' "$(awk -v b="$(median ${R_RSS[$db-stock]})" 'BEGIN{print b/1e9}')" "$(awk -v b="$(median ${R_RSS[$db-patched]})" 'BEGIN{print b/1e9}')" >"$PLOT/$db-rss"
    panels+=("$db-dump:$U ovsdb-client dump, server CPU (s)" "$db-compact:$U compaction (s)" "$db-rss:$U RSS after load (GB)")
    if [ "$CALLGRIND" = 1 ]; then
        printf 'stock %s\npatched %s\n' "$(awk -v b="${IR[$db-stock]}" 'BEGIN{print b/1e9}')" "$(awk -v b="${IR[$db-patched]}" 'BEGIN{print b/1e9}')" >"$PLOT/$db-ir"
        panels+=("$db-ir:$U callgrind roundtrip (G instr)")
    fi
done
ncol=$(( ${#panels[@]} / 2 ))
{
    echo "set terminal pngcairo size $((ncol * 330)),700 font 'sans,9' noenhanced"
    echo "set output '$PNG'"
    echo "set multiplot layout 2,$ncol title 'ovsdb-server, OVS $BASE stock vs patched ($SCALE scale, median of $RUNS)'"
    echo "set style fill solid 0.8 border -1"
    echo "set boxwidth 0.6"
    echo "set yrange [0:*]"
    echo "set offsets 0,0,graph 0.12,0"
    echo "set grid ytics"
    echo "unset key"
    for p in "${panels[@]}"; do
        echo "set title '${p#*:}'"
        echo "plot '$PLOT/${p%%:*}' using 0:2:(\$0 == 0 ? 0x888888 : 0x2a7fd4):xtic(1) with boxes lc rgb variable, '' using 0:2:(sprintf('%.3g', \$2)) with labels offset 0,0.7"
    done
    echo "unset multiplot"
} >"$PLOT/chart.gp"
if run gnuplot "$PLOT/chart.gp"; then
    stage "chart: $PNG"
else
    stage "WARNING: gnuplot failed; no chart"
fi
stage "results: $JSON"
stage "report: $REPORT"
stage "log: $LOG"
