#!/usr/bin/env bash
# ./build.sh fuzz: libFuzzer targets over the json code, per base.
#
#   scripts/fuzz.sh [--base B] [--target lib-json|ovs-json|diff|all]...
#                   [--no-record] [--plant-bug] [SECONDS]
#
# Targets (default all; --target may be repeated or take a comma-separated
# list), each run for SECONDS (default 600):
#   lib-json  lib-json's own target, lib-json/tests/fuzz-json.c (parse,
#             serialize, reparse, compare), in build/lib-json/fuzz/.
#   ovs-json  OVS's oss-fuzz target tests/oss-fuzz/json_parser_target.c,
#             built by OVS's own make rule against the patched B.
#   diff      tests/fuzz/json-diff.c: stock B's lib/json.c against patched
#             B's, in one program; any difference in serialization, error
#             text, clone, hash or escaping aborts with "MISMATCH".
# The OVS targets are built with clang, -fsanitize=fuzzer,address,undefined
# in build/fuzz/B/ (a worktree of build/ovs-B at the commit of branch
# ovs-json-perf/B, configured with the sanitizer flags; the stock json.c
# comes from tag base/B).  Their corpus starts from tests/fuzz/gen-seeds.c.
#
# Each run writes bench/results/fuzz-B-STAMP.summary (kind=fuzz: per target
# executions, seconds, crashes; the hash of the fuzz sources, fuzz_tooling;
# result) and updates bench/results/fuzz-B-longest.summary
# (kind=fuzz-longest) for every target whose run was longer than the one
# recorded there; --no-record writes neither (CI, tests/fuzz.sh).
# A recorded diff run is followed by the planted-bug run below, for at most
# PLANT_SECONDS (120): its summary says diff_planted=found, or the run fails.
# --plant-bug (for tests/t-fuzz.sh, implies --target diff and --no-record):
# the diff target is linked with a copy of the patched json.c that drops the
# last byte of a 23-byte string, and starts from a one-input corpus; the run
# must fail with a MISMATCH.
#
# Exits non-zero if a target crashed or found a mismatch; the reproducers
# (crash-*, leak-*, timeout-*, oom-*) are in the run directory it names.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export TOP
# shellcheck source=scripts/lib/verb.sh
. "$TOP/scripts/lib/verb.sh"
# shellcheck source=scripts/lib/fuzz.sh
. "$TOP/scripts/lib/fuzz.sh"

RESULTS=$(results_dir records)
FUZZ_SAN=("-fsanitize=address,undefined" -fno-sanitize-recover=undefined
    -fno-omit-frame-pointer)
FUZZ_CFLAGS=(-O1 -g "${FUZZ_SAN[@]}" -fsanitize=fuzzer-no-link)
FUZZ_MAX_LEN=8192
PLANT_SECONDS=120

# usage: the header above, without its "#".
usage() {
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' \
        "${BASH_SOURCE[0]}"
}

usage_error() {
    die "fuzz: $* (usage: ./build.sh fuzz [--base B] [--target lib-json|ovs-json|diff|all] [--no-record] [SECONDS])"
}

# parse_args ARGS...: BASE, TARGETS, SECONDS_WANTED, RECORD and PLANT.
parse_args() {
    BASE=$DEFAULT_BASE
    RECORD=1
    PLANT=0
    local target_args=() pos=() i t
    parse_options fuzz '
        --base BASE text
        --target target_args list
        --no-record RECORD =0
        --plant-bug PLANT =1
        @ pos' "$@"
    is_supported_base "$BASE" ||
        usage_error "unsupported base '$BASE' (have: $SUPPORTED_BASES)"
    # Repeated, or comma-separated: the targets named, in this order.
    TARGETS=
    for ((i = 1; i < ${#target_args[@]}; i += 2)); do
        for t in ${target_args[i]//,/ }; do
            case $t in
            lib-json|ovs-json|diff) ;;
            all) t="lib-json ovs-json diff" ;;
            *) usage_error "unknown target '$t'" ;;
            esac
            TARGETS="$TARGETS $t"
        done
    done
    TARGETS=$(tr ' ' '\n' <<<"${TARGETS:-lib-json ovs-json diff}" |
        awk 'NF && !seen[$0]++' | tr '\n' ' ')
    TARGETS=${TARGETS% }
    SECONDS_WANTED=600
    [ ${#pos[@]} -le 1 ] || usage_error "unexpected argument '${pos[1]}'"
    if [ ${#pos[@]} -eq 1 ]; then
        case ${pos[0]} in
        *[!0-9]*|0*) usage_error "SECONDS must be a positive number (got '${pos[0]}')" ;;
        esac
        SECONDS_WANTED=${pos[0]}
    fi
    if [ $PLANT -eq 1 ]; then
        TARGETS="diff"
        RECORD=0
    fi
}

# ensure_patched_branch: the managed tree build/ovs-B with its branch
# ovs-json-perf/B; fetch and apply when they are missing (never re-apply an
# existing branch).
# shellcheck disable=SC2034  # resolve_tree reads OVS_SRC
ensure_patched_branch() (
    OVS_SRC='' FORCE=0
    resolve_tree
    if ! git -C "$TREE" rev-parse -q --verify "refs/heads/ovs-json-perf/$BASE" >/dev/null; then
        stage "fuzz: applying the series to $TREE"
        apply_series "$TREE"
    fi
)

# build_ovs_target: OVS's json_parser_target in FZ/ovs, a worktree of
# build/ovs-B at the patched commit, built with clang and the sanitizers.
build_ovs_target() {
    local src="$BUILD/ovs-$BASE" wt="$FZ/ovs" commit
    commit=$(git -C "$src" rev-parse "ovs-json-perf/$BASE^{commit}")
    [ -e "$wt/.git" ] || stage "fuzz: worktree $wt at ovs-json-perf/$BASE"
    worktree_at "$src" "$wt" "$commit"
    restore_packaging "$src" "$wt" "$BASE"
    stage "fuzz: make tests/oss-fuzz/json_parser_target (clang, ${FUZZ_CFLAGS[*]})"
    build_tree --cc "ccache clang" --cflags "${FUZZ_CFLAGS[*]}" "$wt" \
        LIB_FUZZING_ENGINE=-fsanitize=fuzzer tests/oss-fuzz/json_parser_target
}

# stock_json_object OUT: stock B's lib/json.c (tag base/B), compiled against
# its own headers (the generated ones, config.h and dirs.h, come from the
# patched build, and the series changes none of them), its defined global
# symbols renamed to stock_*.  If stock json.c calls a helper whose source
# file the series changes (4.0.0's series changes lib/dynamic-string.c),
# stock's version of that file goes into the object too, renamed with it,
# so that stock json.c runs on stock code only.
stock_json_object() {
    local out=$1 src="$BUILD/ovs-$BASE" stock="$FZ/stock" sources=(lib/json.c)
    local f objs bad member dep round
    rm -rf "$stock"
    mkdir -p "$stock"
    git -C "$src" archive "base/$BASE" lib include | tar -x -C "$stock"
    use_ccache
    for round in 1 2 3 4 5; do
        objs=()
        for f in "${sources[@]}"; do
            stock_compile "$f" "$FZ/stock-$(basename "$f" .c).o"
            objs+=("$FZ/stock-$(basename "$f" .c).o")
        done
        run ld -r -o "$FZ/stock-all.o" "${objs[@]}" || die "ld -r failed (log $LOG)"
        bad=$(stock_changed_deps "$FZ/stock-all.o")
        [ -n "$bad" ] || break
        while read -r member dep; do
            f="lib/${member%.o}.c"
            [ "$dep" = "$f" ] && [ -f "$stock/$f" ] ||
                die "stock json.c calls into $member, which depends on $dep, changed by the series"
            [[ " ${sources[*]} " != *" $f "* ]] ||
                die "stock $f still calls changed code ($member, $dep)"
            sources+=("$f")
            echo "stock json.c calls into $f, changed by the series: stock's copy goes in" >>"$LOG"
        done <<<"$bad"
    done
    [ -z "$bad" ] || die "stock json.c's helpers still call code the series changes"
    stage "fuzz: stock ${sources[*]} (tag base/$BASE), the rest of its helpers untouched by the series"
    nm --defined-only -g "$FZ/stock-all.o" | awk '{ print $3, "stock_" $3 }' \
        >"$FZ/stock-json.syms"
    run objcopy --redefine-syms="$FZ/stock-json.syms" "$FZ/stock-all.o" "$out" ||
        die "objcopy failed (log $LOG)"
    if nm --defined-only -g "$out" | awk '{ print $3 }' | grep -qv '^stock_'; then
        die "renaming the stock json.c symbols left some unrenamed ($out)"
    fi
}

# stock_compile FILE OBJ: stock's FILE (a path under lib/) compiled to OBJ,
# against stock's headers first.
stock_compile() {
    local stock="$FZ/stock" wt="$FZ/ovs"
    run ccache clang -DHAVE_CONFIG_H -I"$stock" -I"$stock/include" -I"$stock/lib" \
        -I"$wt" -I"$wt/include" -I"$wt/lib" "${FUZZ_CFLAGS[@]}" \
        -c "$stock/$1" -o "$2" || die "compiling stock $1 failed (log $LOG)"
}

# stock_changed_deps OBJ: the OVS functions that OBJ (stock code) calls and
# does not define come from the patched library; for each library member
# they come from whose source or headers the series changes, a line
# "MEMBER CHANGED-FILE".  Nothing printed: the code OBJ calls behaves the
# same under both layouts of struct json.  A json_* function that OBJ
# calls but does not define is an error, and so is finding none of the
# library's functions among those OBJ calls.
stock_changed_deps() {
    local obj=$1 wt="$FZ/ovs" lib="$FZ/ovs/lib/.libs/libopenvswitch.a"
    local changed sym member plo dep n=0 defs="$FZ/libopenvswitch.defs"
    # A header that the series only adds lines to (3.5.0's
    # dynamic-string.h gains ds_put_uuid()) does not change what an
    # unchanged helper compiled against it does: it does not count.
    changed=$(git -C "$BUILD/ovs-$BASE" diff --numstat "base/$BASE" \
        "ovs-json-perf/$BASE" | awk '$2 != 0 || $3 !~ /\.h$/ { print $3 }')
    # "SYMBOL MEMBER" for every function and object the library defines.
    nm -A --defined-only "$lib" 2>/dev/null |
        awk '$(NF-1) ~ /^[TDBRW]$/ { split($1, a, ":"); print $NF, a[2] }' >"$defs"
    declare -A seen=()
    while read -r sym; do
        member=$(awk -v s="$sym" '$1 == s { print $2; exit }' "$defs")
        [ -n "$member" ] || continue     # libc and friends
        case $sym in
        json_*) die "stock json.c calls $sym, which it does not define" ;;
        esac
        [ -z "${seen[$member]:-}" ] || continue
        seen[$member]=1
        plo=$(find "$wt/lib" -path '*/.deps/*' -name "${member%.o}.Plo" | head -n 1)
        [ -n "$plo" ] || die "no dependency file for $member in $wt/lib"
        while read -r dep; do
            dep=${dep#"$wt/"}
            if grep -qxF "$dep" <<<"$changed"; then
                echo "$member $dep"
                break
            fi
        done < <(tr -s ' \\\t' '\n' <"$plo" | grep -v ':$' | sed '/^$/d' | sort -u)
        n=$((n + 1))
        echo "stock json.c uses $member (e.g. $sym)" >>"$LOG"
    done < <(nm -u "$obj" | awk '{ print $2 }' | grep -vE '^__(asan|ubsan|sanitizer|sancov)' | sort -u)
    [ $n -gt 0 ] || die "found none of the OVS helpers stock json.c calls in $lib"
}

# build_diff_target OUT [PLANT]: tests/fuzz/json-diff.c linked with the
# renamed stock json.c and the patched libopenvswitch.a; with PLANT=1, also
# with a patched json.c that drops the last byte of 23-byte strings.
build_diff_target() {
    local out=$1 plant=${2:-0} wt="$FZ/ovs" yield=0 libs=() planted=()
    stock_json_object "$FZ/stock-json-renamed.o"
    grep -qE 'json_destroy__\(struct json \*[a-z_]*, *bool' "$FZ/stock/include/openvswitch/json.h" &&
        yield=1
    if [ "$plant" -eq 1 ]; then
        # The terminator of an inline string ("len" in the backport,
        # "length" upstream) lands one byte early at the 23-byte limit.
        sed -E 's/json->str\[(len|length)\] = '"'"'\\0'"'"';/json->str[\1 == JSON_STRING_INLINE_LEN ? \1 - 1 : \1] = '"'"'\\0'"'"';/' \
            "$wt/lib/json.c" >"$FZ/planted-json.c"
        if cmp -s "$wt/lib/json.c" "$FZ/planted-json.c"; then
            die "plant-bug: no inline string copy to break in $BASE's lib/json.c"
        fi
        run clang -DHAVE_CONFIG_H -I"$wt" -I"$wt/include" -I"$wt/lib" \
            "${FUZZ_CFLAGS[@]}" -c "$FZ/planted-json.c" -o "$FZ/planted-json.o" ||
            die "compiling the planted json.c failed (log $LOG)"
        planted=("$FZ/planted-json.o")
    fi
    # The static library and what libtool records that it needs
    # (-lssl -lcrypto, libopenvswitchavx512, -latomic).
    local dep deps=()
    libs=("$wt/lib/.libs/libopenvswitch.a")
    read -r -a deps <<<"$(sed -n "s/^dependency_libs='\(.*\)'/\1/p" "$wt/lib/libopenvswitch.la")"
    for dep in "${deps[@]}"; do
        case $dep in
        *.la) libs+=("$(dirname "$dep")/.libs/$(basename "$dep" .la).a") ;;
        *) libs+=("$dep") ;;
        esac
    done
    run clang -DHAVE_CONFIG_H -DSTOCK_DESTROY_YIELD=$yield -I"$wt" \
        -I"$wt/include" -I"$wt/lib" -O1 -g "${FUZZ_SAN[@]}" -fsanitize=fuzzer \
        -Wall -Wextra -Werror "$TOP/tests/fuzz/json-diff.c" \
        "$FZ/stock-json-renamed.o" "${planted[@]}" "${libs[@]}" \
        -o "$out" || die "linking $out failed (log $LOG)"
}

build_seeds() {
    local seeds="$BUILD/fuzz/seeds"
    run cc -std=c11 -O2 -Wall -Wextra -Werror "$TOP/tests/fuzz/gen-seeds.c" \
        -o "$BUILD/fuzz/gen-seeds" || die "building gen-seeds failed (log $LOG)"
    rm -rf "$seeds"
    mkdir -p "$seeds"
    run "$BUILD/fuzz/gen-seeds" "$seeds" || die "gen-seeds failed (log $LOG)"
}

# lib-json's target and corpus, as tests/fuzz.sh always built them.
build_lib_json_target() {
    local f="$BUILD/lib-json/fuzz"
    mkdir -p "$f/corpus"
    stage "fuzz: building lib-json with clang -fsanitize=fuzzer,address,undefined"
    run make -C "$TOP/lib-json" -j2 O="$f/lib" CC="$(command -v clang)" OPT="-O1 -g" \
        EXTRA_CFLAGS="${FUZZ_SAN[*]} -fsanitize=fuzzer-no-link" "$f/lib/libovsjson.a" ||
        die "building lib-json failed (log $LOG)"
    run clang -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror "${FUZZ_SAN[@]}" \
        -fsanitize=fuzzer -I"$TOP/lib-json/include" \
        "$TOP/lib-json/tests/fuzz-json.c" "$f/lib/libovsjson.a" \
        -o "$f/fuzz-json" || die "building fuzz-json failed (log $LOG)"
    run cc -std=c11 -O2 -Wall -Wextra -Werror \
        "$TOP/lib-json/tests/gen-corpus.c" -o "$f/gen-corpus" ||
        die "building gen-corpus failed (log $LOG)"
    cp "$TOP"/lib-json/tests/conformance/*.json "$f/corpus/"
    rm -rf "$f/gen"
    mkdir -p "$f/gen"
    run "$f/gen-corpus" 7 60 "$f/gen" || die "gen-corpus failed (log $LOG)"
    rm -f "$f/gen/multi-0000.json"
    cp "$f"/gen/*.json "$f/corpus/"
}

# run_fuzzer TARGET NAME BINARY DIR MAX_LEN CORPUS...: run for
# SECONDS_WANTED in DIR (its artifacts land there), output in DIR/NAME.log
# and the main log.  TARGET's executions, seconds and crashes go to the
# run's counts file, COUNTS, as the summary's TARGET_executions=N lines;
# returns the fuzzer's exit status.
run_fuzzer() {
    local key=${1//-/_} name=$2 bin=$3 dir=$4 max_len=$5 rc=0 t0 out
    local execs secs crashes
    shift 5
    out="$dir/$name.log"
    rm -f "$dir"/crash-* "$dir"/leak-* "$dir"/timeout-* "$dir"/oom-*
    stage "fuzz: $name for ${SECONDS_WANTED}s (output in $out)"
    t0=$(date +%s)
    (cd "$dir" && ASAN_OPTIONS=detect_leaks=1 "$bin" \
        -max_total_time="$SECONDS_WANTED" -max_len="$max_len" -timeout=20 \
        -print_final_stats=1 -artifact_prefix="$dir/" "$@") >"$out" 2>&1 || rc=$?
    secs=$(($(date +%s) - t0))
    cat "$out" >>"$LOG"
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out" | tail -n 1)
    if [ -z "$execs" ]; then
        execs=$(grep -oE '^#[0-9]+' "$out" | tail -n 1 | tr -d '#')
    fi
    crashes=$(find "$dir" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' \
        -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
    if [ $rc -ne 0 ] && [ "$crashes" -eq 0 ]; then
        crashes=1
    fi
    counts_set "$COUNTS" "${key}_executions" "${execs:-0}"
    counts_set "$COUNTS" "${key}_seconds" "$secs"
    counts_set "$COUNTS" "${key}_crashes" "$crashes"
    stage "fuzz: $name: ${execs:-0} executions in ${secs}s, $crashes crashes (exit $rc)"
    if [ $rc -ne 0 ]; then
        grep -E 'MISMATCH|ERROR: |SUMMARY: |runtime error' "$out" | head -n 5 >&2 || true
        ls "$dir"/crash-* "$dir"/leak-* "$dir"/timeout-* "$dir"/oom-* 2>/dev/null >&2 || true
    fi
    return $rc
}

fuzz_target() {
    local t=$1 dir
    case $t in
    lib-json)
        build_lib_json_target
        dir="$BUILD/lib-json/fuzz"
        run_fuzzer "$t" lib-json "$dir/fuzz-json" "$dir" 65536 corpus ;;
    ovs-json)
        build_ovs_target
        dir="$FZ/run-ovs-json"
        mkdir -p "$dir/corpus"
        run_fuzzer "$t" ovs-json "$FZ/ovs/tests/oss-fuzz/json_parser_target" "$dir" \
            "$FUZZ_MAX_LEN" "$dir/corpus" "$BUILD/fuzz/seeds" ;;
    diff)
        build_ovs_target
        if [ "$PLANT" -eq 1 ]; then
            run_planted "$SECONDS_WANTED"
            return
        fi
        stage "fuzz: building the diff target (stock against patched json.c)"
        build_diff_target "$FZ/json-diff"
        dir="$FZ/run-diff"
        mkdir -p "$dir/corpus"
        run_fuzzer "$t" diff "$FZ/json-diff" "$dir" "$FUZZ_MAX_LEN" \
            "$dir/corpus" "$BUILD/fuzz/seeds" || return
        [ "$RECORD" -eq 0 ] || planted_found ;;
    esac
}

# run_planted SECONDS: the diff target linked with a patched json.c that
# drops the last byte of a 23-byte string, run for at most SECONDS from a
# one-input corpus (a 14-byte string) in FZ/run-planted; its exit status
# (non-zero when it found the bug).  Its counts go to a file of their own.
run_planted() {
    local SECONDS_WANTED=$1 COUNTS="$COUNTS.planted" dir="$FZ/run-planted"
    stage "fuzz: building the diff target with a planted off-by-one"
    build_diff_target "$FZ/json-diff-planted" 1
    rm -rf "$dir"
    mkdir -p "$dir/corpus"
    printf '["a short string"]\0' >"$dir/corpus/one"
    run_fuzzer diff diff-planted "$FZ/json-diff-planted" "$dir" \
        "$FUZZ_MAX_LEN" "$dir/corpus"
}

# planted_found: the diff run just recorded can fail: run_planted must stop
# with a MISMATCH within PLANT_SECONDS.  diff_planted=found or missed goes
# into the counts; missed fails the diff target.
planted_found() {
    if run_planted "$PLANT_SECONDS"; then
        :
    elif grep -q 'json-diff: MISMATCH' "$FZ/run-planted/diff-planted.log"; then
        stage "fuzz: the diff target found the planted off-by-one, as it must"
        counts_set "$COUNTS" diff_planted found
        return 0
    fi
    counts_set "$COUNTS" diff_planted missed
    echo "error: the diff target did not find the planted off-by-one in ${PLANT_SECONDS}s ($FZ/run-planted)" >&2
    return 1
}

# write_summary RESULT: this run's result file (RESULT pass or FAIL), and
# the longest-run record.
write_summary() {
    local result=$1 stamp now out t key
    stamp=$(date -u +%Y%m%dT%H%M%SZ)
    now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
    out="$RESULTS/fuzz-$BASE-$stamp.summary"
    mkdir -p "$RESULTS"
    {
        echo "kind=fuzz"
        echo "base=$BASE"
        echo "date=$now"
        if [ "$TARGETS" != lib-json ]; then
            # The patched tree (series_fields).
            series_fields "$BUILD/ovs-$BASE" "$BASE" "ovs-json-perf/$BASE"
        fi
        echo "targets=$TARGETS"
        for t in $TARGETS; do
            grep "^${t//-/_}_" "$COUNTS"
        done
        echo "fuzz_tooling=$(fuzz_tooling)"
        echo "result=$result"
    } >"$out"
    stage "fuzz: results in $out"
    update_longest "$now" "$(basename "$out")"
}

# update_longest DATE FILE: for each target run, replace its figures in
# fuzz-B-longest.summary when this run was longer.
update_longest() {
    local now=$1 file=$2 longest="$RESULTS/fuzz-$BASE-longest.summary" t key old
    local changed=0 tmp secs
    tmp=$(mktemp "$RESULTS/.fuzz-longest.XXXXXX")
    if [ -f "$longest" ]; then
        grep -vE '^(kind|base|date)=' "$longest" >"$tmp" || true
    fi
    for t in $TARGETS; do
        key=${t//-/_}
        old=$(sed -n "s/^${key}_seconds=//p" "$tmp")
        secs=$(counts_get "$COUNTS" "${key}_seconds")
        if [ -z "$old" ] || [ "$secs" -gt "$old" ]; then
            sed -i "/^${key}_/d" "$tmp"
            {
                grep "^${key}_" "$COUNTS"
                echo "${key}_date=$now"
                echo "${key}_file=$file"
            } >>"$tmp"
            changed=1
            stage "fuzz: longest $t run so far: ${secs}s, $(counts_get "$COUNTS" "${key}_executions") executions"
        fi
    done
    if [ $changed -eq 1 ]; then
        { echo "kind=fuzz-longest"; echo "base=$BASE"; echo "date=$now"
          sort "$tmp"; } >"$longest"
        stage "fuzz: record updated in $longest"
    fi
    rm -f "$tmp"
}

main() {
    parse_args "$@"
    log_start fuzz
    need_pkgs make
    need_clang
    case " $TARGETS " in
    *" ovs-json "*|*" diff "*)
        need_build_deps
        need_pkgs libc++-dev libc++abi-dev
        ensure_patched_branch
        FZ="$BUILD/fuzz/$BASE"
        mkdir -p "$FZ"
        build_seeds ;;
    esac
    # This run's figures, one counts file (run_fuzzer writes it), empty at
    # the start: a caller's LOG may be shared by several runs.
    COUNTS="${LOG%.log}.fuzz-counts"
    : >"$COUNTS"
    local t failed=()
    for t in $TARGETS; do
        if fuzz_target "$t"; then :; else failed+=("$t"); fi
    done
    if [ "$RECORD" -eq 1 ]; then
        if [ ${#failed[@]} -eq 0 ]; then write_summary pass; else write_summary FAIL; fi
    fi
    if [ ${#failed[@]} -gt 0 ]; then
        die "fuzz: ${failed[*]} failed; reproducers and output in the run directories above (log $LOG)"
    fi
    stage "fuzz: no failures ($TARGETS, ${SECONDS_WANTED}s each)"
}

main "$@"
