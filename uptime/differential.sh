#!/usr/bin/env bash
# ./build.sh differential: the same seeded random workload played into a
# stock and a patched ovsdb-server at once; every message each client gets
# must be the same from both (uptime/differential.py says how it compares).
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
    cat <<EOF
usage: ./build.sh differential [OPTIONS]

Plays a seeded random OVSDB workload (every operation and column type,
strong and weak references, rows of several MB, every monitor kind,
condition changes, reconnection with monitor_cond_since, selects, locks and
echo) into stock and patched ovsdb-server of BASE at once, and compares
every reply and notification each client receives.

  --base B          the base (default $DEFAULT_BASE)
  --seeds N         how many seeds, 1 to N (default 5)
  --first-seed N    the first seed (default 1)
  --txns N          transactions per seed (default 2000)
  --clients N       clients per seed, each connected to both (default 12)
  --plant           the candidate is patched B plus a planted bug
                    (uptime/planted/drop-row.patch): the run must find it
  --stock-defects   let the workload do what stock gets wrong (see
                    uptime/differential.py --help)
  --no-hostile      no misbehaving clients (by default, every few steps a
                    connection sends garbage, half a message, stops in the
                    middle of one or sends 1 MB it never reads the reply
                    of: both servers must close the one that sent garbage,
                    with a log line, and every other client goes on)
  --large BYTES     the size of those large requests (default 1048576)
  --valgrind        run the candidate (B) under valgrind's memcheck: any
                    error or definitely lost block fails the seed
  --record          write the summary to bench/results/
  --results-dir D   where --record writes (default bench/results)

Environment: DIFF_BINDIRS="A=DIR B=DIR" takes the reference (A) and the
candidate (B) from built OVS trees (or directories holding ovsdb-server
and ovsdb-tool) instead of building stock and patched BASE; a build with
AddressSanitizer (./build.sh check --sanitize makes one in
build/check/sanitize-BASE) writes its reports to files that fail the seed.
Ends with "differential: pass" or "differential: FAIL"; the log's path is
printed.
EOF
}

SEEDS=5
FIRST_SEED=1
TXNS=2000
CLIENTS=12
VALGRIND=0
HOSTILE=1
LARGE=1048576

# parse_args ARGS...: sets the options above and those of every uptime run.
parse_args() {
    parse_uptime_options differential '
        --valgrind VALGRIND =1
        --no-hostile HOSTILE =0
        --seeds SEEDS uint1
        --first-seed FIRST_SEED uint0
        --txns TXNS uint1
        --clients CLIENTS uint1
        --large LARGE uint1' "$@"
}

# start_server SIDE DIR [again]: a server for SIDE in DIR, on a fresh
# database (or, with "again", on the one DIR holds).  A sanitizer's reports
# go to DIR/asan.PID; with --valgrind, side B runs under memcheck, which
# writes DIR/valgrind.PID.
start_server() {
    local side=$1 d=$2 wrap=()
    mkdir -p "$d"
    if [ "$side" = B ] && [ "$VALGRIND" = 1 ]; then
        wrap=(valgrind --leak-check=full --errors-for-leak-kinds=definite
              --error-exitcode=99 --log-file="$d/valgrind.%p")
    fi
    [ "${3:-}" = again ] ||
        "$(side_bin "$side" ovsdb-tool)" create "$d/db" "$TOP/uptime/differential.ovsschema"
    ASAN_OPTIONS="detect_leaks=1:log_path=$d/asan${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
    UBSAN_OPTIONS="print_stacktrace=1:log_path=$d/ubsan${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}" \
        "${wrap[@]}" "$(side_bin "$side" ovsdb-server)" --detach --no-chdir \
        --pidfile="$d/pid" --log-file="$d/log" \
        --remote="punix:$d/sock" --unixctl="$d/ctl" "$d/db"
}

# stop_servers DIR: stops the servers under DIR; fails if one is gone
# (it crashed) or logged an assertion.
stop_servers() {
    local d=$1 side rc=0 pid f r
    for side in A B; do
        pid=$(cat "$d/$side/pid" 2>/dev/null || true)
        if [ -n "$pid" ] && kill "$pid" 2>/dev/null; then
            # Wait for it to exit: sanitizers and valgrind report at exit.
            wait_gone "$pid"
        else
            echo "differential: the $side server had stopped (see $d/$side/log)"
            rc=1
        fi
        for f in "$d/$side"/asan.* "$d/$side"/ubsan.*; do
            r=$(checker_finding "$f")
            [ -n "$r" ] || continue
            echo "differential: the $side server's sanitizer reported: $r (see $f)"
            rc=1
        done
        for f in "$d/$side"/valgrind.*; do
            r=$(checker_finding "$f")
            [ -n "$r" ] || continue
            echo "differential: valgrind: $r (see $f)"
            rc=1
        done
        if grep -qE 'assertion|SIG[A-Z]+ detected' "$d/$side/log" 2>/dev/null; then
            echo "differential: the $side server logged: $(grep -m1 -E 'assertion|SIG[A-Z]+ detected' "$d/$side/log")"
            rc=1
        fi
    done
    return $rc
}

# cut_off_logged DIR: if hostile clients sent garbage in the seed's run in
# DIR, both servers logged cutting one off, or logged that jsonrpc's rate
# limit dropped its warnings (a burst of broken pipes from the clients that
# hung up can use it up before the first garbage arrives).
cut_off_logged() {
    local d=$1 side n rc=0
    n=$(sed -n 's/^differential: hostile clients: \([0-9]*\) garbage.*/\1/p' "$d/out")
    [ "${n:-0}" -gt 0 ] || return 0
    for side in A B; do
        grep -qE 'error parsing stream|received bad JSON-RPC message|\|jsonrpc\|WARN\|Dropped [0-9]+ log messages' \
            "$d/$side/log" || {
            echo "differential: the $side server has no log line for the $n clients that sent garbage (see $d/$side/log)"
            rc=1
        }
    done
    return $rc
}

# compacted_same DIR: each side's ovsdb-tool compacts its stopped server's
# database, each server loads it again, and both hold the same rows.  The
# file's bytes may differ (the order of rows is free), the data may not.
compacted_same() {
    local d=$1 side rc=0
    for side in A B; do
        "$(side_bin "$side" ovsdb-tool)" compact "$d/$side/db" || {
            echo "differential: the $side ovsdb-tool could not compact $d/$side/db"
            return 1
        }
        start_server "$side" "$d/$side" again || return 1
    done
    /usr/bin/python3 "$TOP/uptime/differential.py" --contents \
        --a "$d/A/sock" --b "$d/B/sock" || rc=1
    stop_servers "$d" || rc=1
    return $rc
}

# seed_line SEED WHAT: the last line "differential: WHAT..." of the seed's
# output, as "seed SEED: WHAT..." in $WORK/lines; fails if there is none.
seed_line() {
    grep -E "^differential: $2" "$WORK/seed-$1/out" | tail -n1 |
        sed "s/^differential: /seed $1: /" >>"$WORK/lines"
}

# run_seed SEED: one seed's run; appends its closing line to $WORK/lines.
run_seed() {
    local seed=$1 d="$WORK/seed-$1" rc=0 flags=()
    [ "$STOCK_DEFECTS" = 0 ] || flags+=(--stock-defects)
    [ "$HOSTILE" = 0 ] || flags+=(--hostile --hostile-large "$LARGE")
    start_server A "$d/A" >>"$LOG" 2>&1
    start_server B "$d/B" >>"$LOG" 2>&1
    /usr/bin/python3 "$TOP/uptime/differential.py" --a "$d/A/sock" --b "$d/B/sock" \
        --seed "$seed" --txns "$TXNS" --clients "$CLIENTS" "${flags[@]}" \
        >"$d/out" 2>&1 || rc=$?
    stop_servers "$d" >>"$d/out" 2>&1 || rc=1
    cut_off_logged "$d" >>"$d/out" 2>&1 || rc=1
    [ $rc -ne 0 ] || compacted_same "$d" >>"$d/out" 2>&1 || rc=1
    cat "$d/out" >>"$LOG"
    seed_line "$seed" '[0-9]+ steps' ||
        echo "seed $seed: no closing line" >>"$WORK/lines"
    seed_line "$seed" 'hostile clients:' || true
    seed_line "$seed" 'contents:' || true
    if [ $rc -ne 0 ]; then
        grep -E -A4 '^MISMATCH|Error|differential: the' "$d/out" | head -n 12 | sed 's/^/  | /'
    fi
    return $rc
}

# total FIELD: the sum of "N FIELD" over the seeds' closing lines.
total() { uptime_total "$WORK/lines" "$1"; }

# write_summary RESULT: the result file of a --record run.
write_summary() {
    uptime_write_summary differential <<EOF
seeds=$FIRST_SEED..$((FIRST_SEED + SEEDS - 1))
clients=$CLIENTS
transactions=$(total 'transactions,')
messages_compared=$(total 'messages compared')
mismatches=$(total mismatches)
stock_defects=$([ "$STOCK_DEFECTS" = 1 ] && echo yes || echo no)
candidate_under=$([ "$VALGRIND" = 1 ] && echo valgrind || echo none)
rows_same_after_compaction=$(total 'rows, the same') (each seed: both sides' ovsdb-tool compact, both servers reload, every row compared)
hostile_clients=$(total garbage) garbage, $(total half) half messages, $(total stall) stalled, $(total large) large
hostile_large_request_bytes=$(grep -oE 'requests of [0-9]+ bytes' "$WORK/lines" | grep -oE '[0-9]+' | sort -un | tr '\n' ' ' | sed 's/ $//')
result=$1
EOF
}

main() {
    parse_args "$@"
    log_start differential
    [ "$VALGRIND" = 0 ] || need_pkgs valgrind
    uptime_run_dir differential WORK
    : >"$WORK/lines"
    local planted=
    [ "$PLANT" = 0 ] || planted="$TOP/uptime/planted/drop-row.patch"
    sides_find differential "$BASE" "${DIFF_BINDIRS:-}" \
        "ovsdb/ovsdb-server ovsdb/ovsdb-tool" "$planted"
    trap 'stop_servers "$WORK/seed-$seed" >/dev/null 2>&1 || true' EXIT
    local seed failed=0
    for ((seed = FIRST_SEED; seed < FIRST_SEED + SEEDS; seed++)); do
        stage "differential: seed $seed, $TXNS transactions, $CLIENTS clients"
        run_seed "$seed" || failed=$((failed + 1))
        grep "^seed $seed: [0-9]* steps" "$WORK/lines" || echo "seed $seed: no closing line"
    done
    trap - EXIT
    echo "differential: $SEEDS seeds, $(total 'transactions,') transactions, $(total 'messages compared') messages compared, $(total mismatches) mismatches, $failed seeds failed"
    echo "log: $LOG ($(elapsed))"
    local result=pass
    [ "$failed" -eq 0 ] || result=FAIL
    [ "$RECORD" = 0 ] || write_summary "$result"
    echo "differential: $result"
    [ "$result" = pass ]
}

main "$@"
