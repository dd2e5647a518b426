#!/usr/bin/env bash
# Run the lib-json libFuzzer target: parse, serialize, reparse, compare.
#
#   tests/fuzz.sh [SECONDS]        (default 600; ./build.sh fuzz [SECONDS])
#
# Builds lib-json and tests/lib-json/fuzz-json.c with clang,
# -fsanitize=fuzzer,address,undefined, into build/lib-json/fuzz/, seeds the
# corpus from the conformance cases and generated documents, and runs for
# SECONDS.  Exits non-zero if the fuzzer finds a crash or a failed check;
# the reproducer is left in build/lib-json/fuzz/ (crash-*).
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export TOP
# shellcheck source=../scripts/common.sh
. "$TOP/scripts/common.sh"

SECONDS_WANTED=${1:-600}
case $SECONDS_WANTED in
''|*[!0-9]*) die "usage: tests/fuzz.sh [SECONDS] (got '$SECONDS_WANTED')" ;;
esac

log_start fuzz
need_pkgs make
need_clang

CLANG=$(command -v clang) || die "clang not found"
FUZZ="$BUILD/lib-json/fuzz"
mkdir -p "$FUZZ/corpus"

stage "fuzz: building lib-json with $CLANG -fsanitize=fuzzer,address,undefined"
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
run make -C "$TOP/lib-json" -j2 O="$FUZZ/lib" CC="$CLANG" OPT="-O1 -g" \
    EXTRA_CFLAGS="$SAN -fsanitize=fuzzer-no-link" "$FUZZ/lib/libovsjson.a"
run "$CLANG" -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror $SAN \
    -fsanitize=fuzzer -I"$TOP/lib-json/include" \
    "$TOP/tests/lib-json/fuzz-json.c" "$FUZZ/lib/libovsjson.a" \
    -o "$FUZZ/fuzz-json"
run cc -std=c11 -O2 -Wall -Wextra -Werror \
    "$TOP/tests/lib-json/gen-corpus.c" -o "$FUZZ/gen-corpus"

stage "fuzz: seeding the corpus"
cp "$TOP"/tests/lib-json/conformance/*.json "$FUZZ/corpus/"
rm -rf "$FUZZ/gen"
mkdir -p "$FUZZ/gen"
run "$FUZZ/gen-corpus" 7 60 "$FUZZ/gen"
rm -f "$FUZZ/gen/multi-0000.json"
cp "$FUZZ"/gen/*.json "$FUZZ/corpus/"

stage "fuzz: running for ${SECONDS_WANTED}s (output in $LOG)"
rc=0
(cd "$FUZZ" && ASAN_OPTIONS=detect_leaks=1 \
    ./fuzz-json -max_total_time="$SECONDS_WANTED" -max_len=65536 \
    -print_final_stats=1 -timeout=20 corpus) >>"$LOG" 2>&1 || rc=$?
grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' "$LOG" | tail -n 2 || true
if [ $rc -ne 0 ]; then
    tail -n 30 "$LOG" >&2
    ls "$FUZZ"/crash-* "$FUZZ"/leak-* "$FUZZ"/timeout-* 2>/dev/null >&2 || true
    die "fuzzer failed (exit $rc); reproducers in $FUZZ, log $LOG"
fi
stage "fuzz: no failures in ${SECONDS_WANTED}s"
