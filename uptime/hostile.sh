#!/usr/bin/env bash
# ./build.sh hostile: damaged database files, standalone and clustered,
# read by a reference and a patched build of OVSDB side by side; every
# outcome must be the same (uptime/hostile.py says what it damages and
# compares).
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
    cat <<EOF
usage: ./build.sh hostile [OPTIONS]

Writes a database with a fixed series of transactions, standalone and as a
one-member cluster, and damages it in every way uptime/hostile.py knows:
cut at and inside every record; one record's JSON changed under a correct
header (byte flips, NUL and control bytes, invalid UTF-8, a forged or
repeated _uuid, deep nesting, huge strings, numbers out of range, rows and
tables of the wrong shape, unknown columns and tables, rows deleted while
referenced); records repeated, dropped or swapped; a semantic error
followed by more records; raft snapshots and entries that raft never
writes.  The reference and the candidate each read every damaged file with
ovsdb-tool and with ovsdb-server (load, select, write, restart, compact,
restart), and every outcome must match.

The reference is stock BASE with BASE's ovsdb-fixes series, whose changes
of behaviour are intended (they are the first patches of the series); the
candidate is the whole series.

  --base B          the base (default $DEFAULT_BASE)
  --seed N          the seed that chooses flipped bytes and, with
                    --max-cases, the cases (default 1)
  --max-cases N     at most N cases of each kind, the undamaged file and
                    N-1 chosen by the seed (default: every case)
  --long            bigger damage: three byte flips a record, 100 MB
                    strings, nesting 100,000 deep, a 1 MB row
  --only TEXT       only the cases whose name holds TEXT
  --stock           the reference is plain stock BASE: the differences are
                    then the fixes series' intended ones as well
  --plant           the candidate is patched B plus a planted bug
                    (uptime/planted/wrong-sha1.patch: a record whose SHA-1
                    is wrong is read anyway): the run must find it
  --record          write the summary to bench/results/
  --results-dir D   where --record writes (default bench/results)

Environment: HOSTILE_BINDIRS="A=DIR B=DIR" takes the reference (A) and the
candidate (B) from built OVS trees instead of building them.
Ends with "hostile: pass" or "hostile: FAIL"; the log's path is printed.
EOF
}

SEED=1
MAX_CASES=0
LONG=0
ONLY=
STOCK_REFERENCE=0
PROGRAMS="ovsdb/ovsdb-server ovsdb/ovsdb-tool ovsdb/ovsdb-client utilities/ovs-appctl"

# parse_args ARGS...: sets the options above.
parse_args() {
    BASE=$DEFAULT_BASE PLANT=0 RECORD=0
    RESULTS_DIR="$TOP/bench/results"
    parse_options hostile '
        --base BASE base
        --plant PLANT =1
        --record RECORD =1
        --results-dir RESULTS_DIR text
        --seed SEED uint0
        --max-cases MAX_CASES uint1
        --long LONG =1
        --only ONLY text
        --stock STOCK_REFERENCE =1' "$@"
}

# build_sides: BINDIR[A] is stock BASE with its ovsdb-fixes series (plain
# stock with --stock), BINDIR[B] the patched BASE (with --plant, plus the
# planted bug), each with PROGRAMS.
build_sides() {
    local bindirs=${HOSTILE_BINDIRS:-} fixes=() planted=
    if [ "$PLANT" = 1 ]; then
        [ -z "$bindirs" ] || die "hostile: --plant builds its own candidate; unset HOSTILE_BINDIRS"
        [ "$STOCK_REFERENCE" = 0 ] || die "hostile: --plant and --stock cannot go together"
        planted="$TOP/uptime/planted/wrong-sha1.patch"
    fi
    if [ -n "$bindirs" ] || [ "$STOCK_REFERENCE" = 1 ]; then
        sides_find hostile "$BASE" "$bindirs" "$PROGRAMS"
        return
    fi
    need_build_deps
    export BENCH_MAKE_TARGETS=$PROGRAMS
    mapfile -t fixes < <(bench_series_files "$BASE" | grep '/ovsdb-fixes/')
    [ ${#fixes[@]} -gt 0 ] ||
        die "hostile: patches/$BASE/series has no ovsdb-fixes series for the reference (try --stock)"
    stage "hostile: build stock $BASE with its ovsdb-fixes series"
    bench_tree "$BASE" fixes "${fixes[@]}"
    if [ -n "$planted" ]; then
        stage "hostile: build patched $BASE with a planted bug"
        # shellcheck disable=SC2046
        bench_tree "$BASE" planted-sha1 $(bench_series_files "$BASE") "$planted"
        bindirs="A=$(bench_tree_dir "$BASE" fixes) B=$(bench_tree_dir "$BASE" planted-sha1)"
    else
        stage "hostile: build patched $BASE"
        bench_tree "$BASE" patched
        bindirs="A=$(bench_tree_dir "$BASE" fixes) B=$(bench_tree_dir "$BASE" patched)"
    fi
    sides_find hostile "$BASE" "$bindirs" "$PROGRAMS"
}

# run_kind KIND: hostile.py's cases of KIND (standalone or clustered); its
# output in $WORK/KIND.out, its closing line in $WORK/lines.
run_kind() {
    local kind=$1 flags=() rc=0
    [ "$kind" = standalone ] || flags+=(--clustered)
    [ "$LONG" = 0 ] || flags+=(--long)
    [ "$MAX_CASES" = 0 ] || flags+=(--max-cases "$MAX_CASES")
    [ -z "$ONLY" ] || flags+=("--only=$ONLY")
    stage "hostile: $kind files"
    /usr/bin/python3 "$TOP/uptime/hostile.py" --a "${BINDIR[A]}" --b "${BINDIR[B]}" \
        --work "$WORK/$kind" --schema "$TOP/uptime/hostile.ovsschema" \
        --seed "$SEED" "${flags[@]}" >"$WORK/$kind.out" 2> >(tee -a "$LOG" >&2) || rc=$?
    cat "$WORK/$kind.out" >>"$LOG"
    grep -A12 '^DIFF' "$WORK/$kind.out" | head -n 40 || true
    if grep '^hostile: [0-9]* ' "$WORK/$kind.out" >>"$WORK/lines"; then
        tail -n 1 "$WORK/lines"
    else
        echo "hostile: $kind: no closing line (see $WORK/$kind.out and $LOG)" | tee -a "$WORK/lines"
        rc=1
    fi
    return $rc
}

# total FIELD: the sum of "N FIELD" over the closing lines.
total() { uptime_total "$WORK/lines" "$1"; }

# write_summary RESULT: the result file of a --record run.
write_summary() {
    uptime_write_summary hostile <<EOF
seed=$SEED
damage=$([ "$LONG" = 1 ] && echo long || echo short)
standalone_cases=$(total 'standalone cases')
clustered_cases=$(total 'clustered cases')
steps_compared=$(total 'steps compared')
differences=$(total differences)
documented_differences=$(total "documented differences") (differences the series documents as not defects; uptime/hostile.py DOCUMENTED)
crashes=$(total crashes) (A $(grep -oE 'A [0-9]+' "$WORK/lines" | awk '{ n += $2 } END { print n + 0 }'), B $(grep -oE 'B [0-9]+' "$WORK/lines" | awk '{ n += $2 } END { print n + 0 }'))
result=$1
EOF
}

main() {
    parse_args "$@"
    log_start hostile
    uptime_run_dir hostile WORK
    : >"$WORK/lines"
    build_sides
    local kind failed=0
    for kind in standalone clustered; do
        run_kind "$kind" || failed=$((failed + 1))
    done
    echo "hostile: $(total 'standalone cases') standalone and $(total 'clustered cases') clustered cases, $(total differences) differences, $(total crashes) crashes"
    echo "log: $LOG ($(elapsed))"
    local result=pass
    [ "$failed" -eq 0 ] || result=FAIL
    if [ "$(total 'standalone cases')" -eq 0 ] && [ "$(total 'clustered cases')" -eq 0 ]; then
        echo "hostile: no case ran${ONLY:+ (no case name holds '$ONLY')}"
        result=FAIL
    fi
    [ "$RECORD" = 0 ] || write_summary "$result"
    echo "hostile: $result"
    [ "$result" = pass ]
}

main "$@"
