#!/usr/bin/env bash
# lib-json component test: build (gcc and clang, static, shared, pkg-config),
# packaging (soname, installed paths, pkg-config, uninstall, exported
# symbols, make check), unit tests, conformance cases, an ASan+UBSan run of
# all of them, the API differential test (OVS 4.0.0's recorded output, and
# live against a built OVS with 3.6's json.h), a ThreadSanitizer run with
# concurrent parsers, lib-json and libopenvswitch linked into one program,
# a short run of its fuzz target, and the differential test against
# "ovstest test-json".  The programs and cases are lib-json's own, in
# lib-json/tests/.
# The streaming parser (json_parser_set_member_cb()): lib-json/tests/
# stream.c (equality with the normal parse, damage, truncation, ownership,
# bounded memory; plain and ASan+UBSan), its api-diff rows, and "test-json
# --member-depth=N" against the 4.0.0 tree with its series, when built.
#
# Ends with "N passed, N failed"; exits non-zero iff a case failed.
# Environment: BUILD, LOG, CI (from tests/run.sh); OVSTEST overrides the
# reference program (default: the patched tree's tests/ovstest);
# STREAM_OVSTEST the one for --member-depth (default: build/ovs-4.0.0's);
# LIBJSON_FUZZ_SECONDS overrides the fuzz time (60 in CI, else 20).
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
scratch_dir "$BUILD/lib-json/t" t-lib-json
T=$SCRATCH
LIB="$TOP/lib-json"
# lib-json's own tests: C programs, conformance cases, link-both.
LT="$LIB/tests"

need_pkgs build-essential pkg-config make
need_clang

# Conformance: y_ accepted, n_ rejected, i_ either (but no crash).
# Prints one summary case; details of failures go to stdout.
conformance() {
    local name=$1 tj=$2 f base rc out bad=0 n=0
    for f in "$LT"/conformance/*.json; do
        base=$(basename "$f")
        n=$((n + 1))
        rc=0
        out=$("$tj" "$f" 2>&1) || rc=$?
        case $base in
        y_*) [ $rc -eq 0 ] && ! grep -q '^error:' <<<"$out" ;;
        n_*) [ $rc -eq 1 ] && grep -q '^error:' <<<"$out" ;;
        i_*) [ $rc -eq 0 ] || { [ $rc -eq 1 ] && grep -q '^error:' <<<"$out"; } ;;
        esac || {
            bad=$((bad + 1))
            echo "  $name: $base: exit $rc: $(head -c 200 <<<"$out")"
        }
    done
    if [ $bad -eq 0 ] && [ $n -gt 40 ]; then
        ok "$name: $n cases"
    else
        fail "$name: $bad of $n cases wrong"
    fi
}

# --- Build. ---
stage "lib-json: build"
# lib-json's own version, OVSJSON_VERSION: the shared library's file name.
V=$(sed -n 's/^#define OVSJSON_VERSION "\(.*\)"$/\1/p' "$LIB/include/ovsjson/json.h")
[ -n "$V" ] || fail "no OVSJSON_VERSION in $LIB/include/ovsjson/json.h"
check "build with gcc -std=c11 -Wall -Wextra -Werror" \
    make -C "$LIB" -j2 O="$T/gcc" CC=gcc
check "build with clang -std=c11 -Wall -Wextra -Werror" \
    make -C "$LIB" -j2 O="$T/clang" CC=clang
check "build of lib-json/ itself (libovsjson.a, .so, ovsjson.pc, test-json)" \
    make -C "$LIB" -j2
for f in libovsjson.a libovsjson.so libovsjson.so.1 libovsjson.so.$V \
    ovsjson.pc test-json; do
    if [ -s "$T/gcc/$f" ] && [ -s "$LIB/$f" ]; then
        ok "artifact $f"
    else
        fail "artifact $f missing"
    fi
done
if run make -C "$LIB" O="$T/gcc" install PREFIX="$T/prefix" &&
   run env PKG_CONFIG_PATH="$T/prefix/lib/pkgconfig" bash -c \
       'cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror $(pkg-config --cflags ovsjson) \
           "$1" -o "$2" $(pkg-config --libs ovsjson)' _ \
       "$LT/unit.c" "$T/unit-shared" &&
   run env LD_LIBRARY_PATH="$T/prefix/lib" "$T/unit-shared"; then
    ok "unit tests built with pkg-config against libovsjson.so pass"
else
    fail "pkg-config/shared-library build of the unit tests (log: $LOG)"
fi

# --- Packaging. ---
stage "lib-json: packaging"
# installed_files DIR: the files and links under DIR, relative, sorted.
installed_files() {
    (cd "$1" && find . \( -type f -o -type l \) | sed 's|^\./||' | sort)
}
DEST="$T/dest"
PFX=/opt/ovsjson-test
if run make -C "$LIB" O="$T/gcc" install DESTDIR="$DEST" PREFIX="$PFX"; then
    want="opt/ovsjson-test/include/ovsjson/dynamic-string.h
opt/ovsjson-test/include/ovsjson/json.h
opt/ovsjson-test/include/ovsjson/names.h
opt/ovsjson-test/include/ovsjson/shash.h
opt/ovsjson-test/include/ovsjson/uuid.h
opt/ovsjson-test/lib/libovsjson.a
opt/ovsjson-test/lib/libovsjson.so
opt/ovsjson-test/lib/libovsjson.so.1
opt/ovsjson-test/lib/libovsjson.so.$V
opt/ovsjson-test/lib/pkgconfig/ovsjson.pc"
    got=$(installed_files "$DEST" || true)
    if [ "$got" = "$want" ]; then
        ok "install DESTDIR PREFIX: headers under include/ovsjson/, the library and its links, the .pc"
    else
        fail "install DESTDIR PREFIX: installed $(tr '\n' ' ' <<<"$got")"
    fi
    L="$DEST$PFX/lib"
    soname=$(readelf -d "$L/libovsjson.so.$V" 2>/dev/null |
             sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p' || true)
    if [ "$soname" = libovsjson.so.1 ] &&
       [ "$(readlink "$L/libovsjson.so.1")" = libovsjson.so.$V ] &&
       [ "$(readlink "$L/libovsjson.so")" = libovsjson.so.1 ]; then
        ok "soname libovsjson.so.1; libovsjson.so -> .so.1 -> .so.$V"
    else
        fail "soname '$soname' or links wrong: $(find "$L" -maxdepth 1 -printf '%f->%l ')"
    fi
    pc=$(env PKG_CONFIG_PATH="$L/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$DEST" \
         pkg-config --cflags --libs ovsjson 2>&1 | sed 's/ *$//' || true)
    ver=$(env PKG_CONFIG_PATH="$L/pkgconfig" pkg-config --modversion ovsjson 2>&1 || true)
    own=$(sed -n 's/^#define OVSJSON_VERSION "\(.*\)"$/\1/p' "$LIB/include/ovsjson/json.h")
    if [ "$pc" = "-I$DEST$PFX/include -L$DEST$PFX/lib -lovsjson" ] &&
       [ -n "$own" ] && [ "$ver" = "$own" ] &&
       [ "$soname" = "libovsjson.so.${own%%.*}" ] &&
       [ -e "$L/libovsjson.so.$own" ]; then
        ok "pkg-config --cflags --libs ovsjson: '$pc', version $ver (OVSJSON_VERSION, the soname's and the file's)"
    else
        fail "pkg-config: got '$pc', version '$ver' (OVSJSON_VERSION '$own', soname '$soname')"
    fi
    if run make -C "$LIB" O="$T/gcc" uninstall DESTDIR="$DEST" PREFIX="$PFX" &&
       [ -z "$(installed_files "$DEST")" ]; then
        ok "uninstall DESTDIR PREFIX removes every installed file"
    else
        fail "uninstall left: $(installed_files "$DEST" | tr '\n' ' ')"
    fi
else
    fail "install DESTDIR=$DEST PREFIX=$PFX (log: $LOG)"
fi
check "make check (unit tests and conformance cases)" \
    make -C "$LIB" O="$T/gcc" check

# The API: the functions the headers declare (OVSJSON_API), the renames in
# names.h and the dynamic symbols of the library must be the same set, each
# exported as ovsjson_<name>; libovsjson.a defines nothing else than those
# and hidden ojs_* helpers.
declared=$(cat "$LIB"/include/ovsjson/{json,shash,dynamic-string}.h | tr '\n' ' ' |
           grep -oE 'OVSJSON_API [^;(]*\(' | grep -oE '[a-z_0-9]+ *\($' |
           tr -d ' (' | sort -u || true)
# (a define too long for one line continues on the next, after a backslash)
renamed=$(sed -e ':a' -e '/\\$/{N;s/ *\\\n */ /;ba' -e '}' "$LIB/include/ovsjson/names.h" |
          sed -n 's/^#define \([a-z_0-9]*\) ovsjson_\1$/\1/p' | sort -u || true)
dynsyms=$(nm -D --defined-only "$T/gcc/libovsjson.so" 2>/dev/null |
          awk '$2 != "A" { sub(/@.*/, "", $3); print $2, $3 }' || true)
exported=$(awk '$1 == "T" { print $2 }' <<<"$dynsyms" | sed -n 's/^ovsjson_//p' | sort -u || true)
others=$(awk '$1 != "T" || $2 !~ /^ovsjson_/ { print $2 }' <<<"$dynsyms")
static_others=$(nm -g --defined-only "$T/gcc/libovsjson.a" 2>/dev/null |
                awk 'NF == 3 { print $3 }' | grep -vE '^(ovsjson_|ojs_)' || true)
n_decl=$(wc -l <<<"$declared")
if [ "$declared" = "$renamed" ] && [ "$declared" = "$exported" ] &&
   [ -z "$others" ] && [ -z "$static_others" ] && [ "$n_decl" -gt 80 ]; then
    ok "exported symbols: exactly the $n_decl declared functions, as ovsjson_<name>; internals hidden"
else
    fail "exported symbols: declared/renamed/exported differ ($(diff <(echo "$declared") <(echo "$exported") | tr '\n' ' ' | head -c 200)) or extra: $others $static_others"
fi

# The layout assertions (sizeof(struct json) equals OVS's layout; 40 bytes
# on LP64) must hold on 32-bit targets too: a clang cross syntax check,
# freestanding, with a stand-in <stdio.h> (only FILE is needed).
mkdir -p "$T/fake-stdio"
echo 'typedef struct _IO_FILE FILE;' >"$T/fake-stdio/stdio.h"
printf '#include "ovsjson/json.h"\nint main(void) { return 0; }\n' >"$T/layout.c"
for target in i686-linux-gnu armv7-linux-gnueabihf aarch64-linux-gnu; do
    check "layout static assertions hold on $target" \
        clang --target="$target" -ffreestanding -std=c11 -Wall -Wextra -Werror \
        -I"$T/fake-stdio" -I"$LIB/include" -fsyntax-only "$T/layout.c"
done

# --- Unit tests and conformance. ---
stage "lib-json: unit tests"
run cc -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror \
    -I"$LIB/include" "$LT/unit.c" "$T/gcc/libovsjson.a" \
    -o "$T/unit" || fail "unit tests do not build"
[ -x "$T/unit" ] && run_cases unit "$T/unit" "$LT/conformance"

# The storage form is recorded in the node: a _nocopy string that an
# allocator places right after its node is still freed.
if run cc -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -I"$LIB/include" \
       "$LT/alloc-adjacent.c" "$T/gcc/libovsjson.a" -o "$T/alloc-adjacent"; then
    run_cases storage "$T/alloc-adjacent"
else
    fail "storage: alloc-adjacent does not build (log: $LOG)"
fi

stage "lib-json: conformance"
conformance conformance "$T/gcc/test-json"

# --- ASan + UBSan. ---
stage "lib-json: ASan+UBSan build and run"
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
if run make -C "$LIB" -j2 O="$T/asan" CC=gcc OPT="-O1 -g" EXTRA_CFLAGS="$SAN" &&
   run gcc -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror $SAN \
       -I"$LIB/include" "$LT/unit.c" "$T/asan/libovsjson.a" \
       -o "$T/unit-asan"; then
    ok "asan: build"
    # The conformance cases too, in-process (sanitized processes start
    # slowly).
    run_cases "asan: unit" "$T/unit-asan" "$LT/conformance"
else
    fail "asan: build (log: $LOG)"
fi

# --- The API, row by row (lib-json/tests/api-diff.c). ---
stage "lib-json: API differential test"
if [ -f "$T/asan/libovsjson.a" ] &&
   run gcc -std=gnu11 -O1 -g -Wall -Wextra -Werror $SAN -I"$LIB/include" \
       "$LT/api-diff.c" "$T/asan/libovsjson.a" -o "$T/api-diff" &&
   "$T/api-diff" >"$T/api-diff.out" 2>>"$LOG"; then
    if cmp -s "$T/api-diff.out" "$LT/api-diff.expected"; then
        ok "api-diff: $(wc -l <"$T/api-diff.out") lines identical to OVS 4.0.0's recorded output (ASan+UBSan build)"
    else
        fail "api-diff: differs from OVS 4.0.0's recorded output: $(diff "$T/api-diff.out" "$LT/api-diff.expected" | head -c 300 | tr '\n' ' ')"
    fi
else
    fail "api-diff: does not build or run under ASan (log: $LOG)"
fi
# Live, against every built OVS tree whose json.h has 3.6's API.  Rows for
# functions a tree lacks (the backports have no json_object_is_empty(), 3.1
# no json_array_contains_string()) are left out of both sides.
# The streaming rows need json_parser_set_member_cb() (4.0.0's series).
streaming_trees=0
for tree in "$BUILD"/ovs-*; do
    [ -f "$tree/lib/.libs/libopenvswitch.a" ] &&
        grep -q json_string_create_uuid "$tree/include/openvswitch/json.h" || continue
    read -r -a tree_libs <<<"$(sed -n 's/^\(LIBS\|SSL_LIBS\|CAPNG_LDADD\) = //p' "$tree/Makefile" 2>/dev/null | tr '\n' ' ')"
    rows=()
    with=
    if grep -q json_parser_set_member_cb "$tree/include/openvswitch/json.h"; then
        streaming_trees=$((streaming_trees + 1))
        with=", streaming rows included"
    else
        rows+=(-DAPI_DIFF_NO_STREAMING)
    fi
    grep -q json_object_is_empty "$tree/include/openvswitch/json.h" ||
        rows+=(-DAPI_DIFF_NO_OBJECT_IS_EMPTY)
    grep -q json_array_contains_string "$tree/include/openvswitch/json.h" ||
        rows+=(-DAPI_DIFF_NO_CONTAINS_STRING)
    if run gcc -std=gnu11 -O1 -g -Wall -Wextra -Werror $SAN -I"$LIB/include" \
           "${rows[@]}" "$LT/api-diff.c" "$T/asan/libovsjson.a" \
           -o "$T/api-diff-rows" &&
       "$T/api-diff-rows" >"$T/api-diff.out" 2>>"$LOG" &&
       run cc -std=gnu11 -O1 -DUSE_OVS -I"$tree/include" -I"$tree" -I"$tree/lib" \
           "${rows[@]}" "$LT/api-diff.c" "$tree/lib/.libs/libopenvswitch.a" \
           "${tree_libs[@]}" -lpthread -o "$T/api-diff-ovs" &&
       "$T/api-diff-ovs" >"$T/api-diff-ovs.out" 2>>"$LOG" &&
       cmp -s "$T/api-diff.out" "$T/api-diff-ovs.out"; then
        ok "api-diff: identical to $(basename "$tree")'s libopenvswitch, live$with"
    else
        fail "api-diff: differs from $(basename "$tree") (log: $LOG): $(diff "$T/api-diff.out" "$T/api-diff-ovs.out" 2>&1 | head -c 300 | tr '\n' ' ')"
    fi
done

if [ $streaming_trees -eq 0 ]; then
    skip "api-diff streaming rows live" "no built OVS tree has json_parser_set_member_cb()" \
         "(./build.sh apply --base 4.0.0 && ./build.sh build --base 4.0.0); the recorded output is still checked"
fi

# --- Threads (ThreadSanitizer). ---
stage "lib-json: ThreadSanitizer, concurrent parsers from a cold start"
if run clang -std=c11 -D_GNU_SOURCE -O1 -g -fsanitize=thread -I"$LIB/include" \
       -I"$LIB/src" "$LT/threads.c" "$LIB"/src/json.c \
       "$LIB"/src/json-parse.c "$LIB"/src/json-serialize.c "$LIB"/src/shash.c \
       "$LIB"/src/dynamic-string.c "$LIB"/src/util.c -lpthread -o "$T/threads"; then
    run_cases tsan env TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$T/threads" 8
else
    fail "tsan: the thread test does not build (log: $LOG)"
fi

# --- Generated corpus (used by the ASan run and the differential test). ---
stage "lib-json: generating the differential corpus"
run cc -std=c11 -O2 -Wall -Wextra -Werror "$LT/gen-corpus.c" \
    -o "$T/gen-corpus"
mkdir -p "$T/corpus"
N_GEN=${LIBJSON_N_GEN:-150}
run "$T/gen-corpus" 20251130 "$N_GEN" "$T/corpus"

if [ -x "$T/asan/test-json" ]; then
    bad=0
    # Sanitized processes start slowly: a sample one by one, the rest as
    # --multiple streams.
    for f in "$T"/corpus/[vx]-000*.json; do
        rc=0
        "$T/asan/test-json" "$f" >/dev/null 2>"$T/asan.err" || rc=$?
        if [ $rc -gt 1 ] || [ -s "$T/asan.err" ]; then
            bad=$((bad + 1))
            echo "  asan: $(basename "$f"): exit $rc: $(head -c 300 "$T/asan.err")"
        fi
    done
    cat "$T"/corpus/x-*.json >"$T/multi-bad-all.json"
    for f in "$T/corpus/multi-0000.json" "$T/multi-bad-all.json"; do
        rc=0
        "$T/asan/test-json" --multiple "$f" >/dev/null 2>"$T/asan.err" ||
            rc=$?
        if [ $rc -gt 1 ] || [ -s "$T/asan.err" ]; then
            bad=$((bad + 1))
            echo "  asan: --multiple $(basename "$f"): exit $rc: $(head -c 300 "$T/asan.err")"
        fi
    done
    if [ $bad -eq 0 ]; then
        ok "asan: test-json on $((2 * N_GEN)) generated documents"
    else
        fail "asan: $bad generated documents crashed or reported errors"
    fi
fi

# --- The streaming parser (lib-json/tests/stream.c). ---
# Linked with the allocation counter (--wrap), plain and ASan+UBSan, on
# the conformance cases and the generated corpus.
stage "lib-json: streaming parser"
WRAP=-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free
if run gcc -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -I"$LIB/include" \
       "$LT/stream.c" "$T/gcc/libovsjson.a" "$WRAP" -o "$T/stream"; then
    run_cases stream "$T/stream" "$LT/conformance" "$T/corpus"
else
    fail "stream: does not build (log: $LOG)"
fi
if [ -f "$T/asan/libovsjson.a" ] &&
   run gcc -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror $SAN -I"$LIB/include" \
       "$LT/stream.c" "$T/asan/libovsjson.a" "$WRAP" -o "$T/stream-asan"; then
    run_cases "asan: stream" "$T/stream-asan" "$LT/conformance" "$T/corpus"
else
    fail "asan: stream does not build (log: $LOG)"
fi

# --- A short run of lib-json's fuzz target (./build.sh fuzz runs it long). ---
if [ "${CI:-}" = true ]; then
    FUZZ_SECONDS=${LIBJSON_FUZZ_SECONDS:-60}
else
    FUZZ_SECONDS=${LIBJSON_FUZZ_SECONDS:-20}
fi
stage "lib-json: short fuzz run (${FUZZ_SECONDS}s)"
if LOG="$LOG" "$TOP/scripts/fuzz.sh" --target lib-json --no-record "$FUZZ_SECONDS" >>"$LOG" 2>&1; then
    ok "fuzz: ${FUZZ_SECONDS}s of parse/serialize/reparse/compare"
else
    fail "fuzz: the fuzzer failed; reproducers in $BUILD/lib-json/fuzz (log: $LOG)"
fi

# --- Differential test against OVS. ---
stage "lib-json: differential test against ovstest test-json"
OVSTEST=${OVSTEST:-"$BUILD/ovs-$DEFAULT_BASE/tests/ovstest"}

# diff_files NAME OPTS FILES...: the same stdout (error messages included)
# and exit status from both, for every file.
diff_files() {
    local name=$1 opts=$2 f n=0 bad=0 rc_a rc_b rejected=0 first='' keep
    shift 2
    for f in "$@"; do
        n=$((n + 1))
        rc_a=0
        rc_b=0
        # shellcheck disable=SC2086
        "$T/gcc/test-json" $opts "$f" >"$T/a.out" 2>/dev/null || rc_a=$?
        # shellcheck disable=SC2086
        "$OVSTEST" test-json $opts "$f" >"$T/b.out" 2>/dev/null || rc_b=$?
        if [ -n "${ERROR_POSITION_ONLY:-}" ]; then
            # The message after the position may quote bytes of the
            # input, newlines included: everything after the position goes.
            # One sed per file: q ends the whole run.  LC_ALL=C: in a
            # UTF-8 locale "." does not match a byte that is not UTF-8.
            for out in "$T/a.out" "$T/b.out"; do
                LC_ALL=C sed -i -n '/^error: line [0-9]*, column [0-9]*, byte [0-9]*/{s/^\(error: line [0-9]*, column [0-9]*, byte [0-9]*\).*/\1/p;q};p' \
                    "$out"
            done
        fi
        [ $rc_b -eq 0 ] || rejected=$((rejected + 1))
        if [ $rc_a -ne $rc_b ] || ! cmp -s "$T/a.out" "$T/b.out"; then
            bad=$((bad + 1))
            # The first one goes into the FAIL line, which CI's summary
            # repeats: its name, first bytes and both outputs.
            if [ -z "$first" ]; then
                # Kept for a look after the run: the input and both
                # outputs, in a directory per differential.
                keep="${name//[^A-Za-z0-9=.-]/_}"
                keep="$T/differs/${keep#--}"
                mkdir -p "$keep"
                cp "$f" "$keep/"
                cp "$T/a.out" "$keep/$(basename "$f").lib-json.out"
                cp "$T/b.out" "$keep/$(basename "$f").ovs.out"
                first="first: $(basename "$f") [$(head -c 48 "$f" | od -An -tx1 | tr -s ' \n' ' ')] lib-json: $(head -c 160 "$T/a.out" | cat -v | tr '\n' ' ') ovs: $(head -c 160 "$T/b.out" | cat -v | tr '\n' ' ') (kept in $keep/)"
            fi
            if [ $bad -le 3 ]; then
                echo "  $name: $(basename "$f"): lib-json exit $rc_a, ovs exit $rc_b"
                # (cut at 600 bytes, mid-line: the next line must still
                # start a line, so that CI's summary finds the FAIL line)
                diff "$T/a.out" "$T/b.out" | head -c 600 |
                    sed -e 's/^/    /' -e '$a\' || true
            fi
        fi
    done
    if [ $n -eq 0 ]; then
        fail "differential $name: no inputs"
    elif [ -n "${EXPECT_VALID:-}" ] && [ $rejected -ne 0 ]; then
        fail "differential $name: $rejected valid inputs rejected"
    elif [ $bad -eq 0 ]; then
        ok "differential $name: $n inputs identical ($rejected rejected by both)"
    else
        fail "differential $name: $bad of $n inputs differ; $first"
    fi
}

if [ ! -x "$OVSTEST" ]; then
    fail "differential: reference $OVSTEST is missing (run ./build.sh build)"
else
    echo "  reference: $OVSTEST"
    diff_files "conformance" "" "$LT"/conformance/*.json
    EXPECT_VALID=1 diff_files "generated valid" "" "$T"/corpus/v-*.json
    diff_files "generated damaged" "" "$T"/corpus/x-*.json
    diff_files "generated --pretty" "--pretty" "$T"/corpus/v-00[0-3]*.json \
        "$T"/corpus/x-00[0-1]*.json
    EXPECT_VALID=1 diff_files "generated --multiple stream" "--multiple" \
        "$T/corpus/multi-0000.json"
    # What the fuzzer found interesting (it ran above): up to 250 inputs.
    mapfile -t fz < <(find "$BUILD/lib-json/fuzz/corpus" -type f 2>/dev/null | sort | head -n 250)
    diff_files "fuzzer corpus" "" "${fz[@]}"
    # Damaged documents one after the other: errors mid-stream.
    cat "$T"/corpus/x-00[0-9]*.json >"$T/multi-bad.json"
    diff_files "damaged --multiple stream" "--multiple" "$T/multi-bad.json"

    # json_hash() values: the bench driver built against both libraries.
    REF_TREE=$(cd "$(dirname "$OVSTEST")/.." && pwd)
    read -r -a ref_libs <<<"$(sed -n 's/^\(LIBS\|SSL_LIBS\|CAPNG_LDADD\) = //p' "$REF_TREE/Makefile" 2>/dev/null | tr '\n' ' ')"
    if [ -f "$REF_TREE/lib/.libs/libopenvswitch.a" ] &&
       run cc -std=gnu11 -O1 -I"$LIB/include" "$TOP/bench/lib-json/driver.c" \
           "$T/gcc/libovsjson.a" -o "$T/drv-libjson" &&
       run cc -std=gnu11 -O1 -I"$REF_TREE/include" -I"$REF_TREE" \
           "$TOP/bench/lib-json/driver.c" "$REF_TREE/lib/.libs/libopenvswitch.a" \
           "${ref_libs[@]}" -lpthread -o "$T/drv-ref"; then
        n=0
        bad=0
        for f in "$LT"/conformance/y_*.json "$T"/corpus/v-*.json; do
            n=$((n + 1))
            [ "$("$T/drv-libjson" hash "$f")" = "$("$T/drv-ref" hash "$f")" ] ||
                { bad=$((bad + 1)); echo "  json_hash differs on $(basename "$f")"; }
        done
        if [ $bad -eq 0 ]; then
            ok "differential json_hash: $n documents hash the same as OVS's"
        else
            fail "differential json_hash: $bad of $n documents hash differently"
        fi
    else
        fail "differential json_hash: cannot link the driver against $REF_TREE (log: $LOG)"
    fi

    # lib-json and libopenvswitch in one program (static and shared
    # lib-json; ASan on the lib-json half too).
    if [ -f "$REF_TREE/lib/.libs/libopenvswitch.a" ]; then
        LB="$LT/link-both"
        lb_inputs=("$LT"/conformance/y_*.json "$T"/corpus/v-00*.json)
        # link_both NAME OUT LIBJSON_ARGS CFLAGS...
        link_both() {
            local name=$1 out=$2 lj=$3
            shift 3
            # shellcheck disable=SC2086
            run cc -std=gnu11 -O1 -g "$@" -I"$REF_TREE/include" -I"$REF_TREE" \
                -I"$REF_TREE/lib" -c "$LB/ovs-side.c" -o "$out.ovs.o" &&
            run cc -std=gnu11 -O1 -g -Wall -Wextra -Werror "$@" -I"$LIB/include" \
                -c "$LB/main.c" -o "$out.main.o" &&
            run cc "$@" "$out.main.o" "$out.ovs.o" $lj \
                "$REF_TREE/lib/.libs/libopenvswitch.a" "${ref_libs[@]}" -lpthread -o "$out" ||
                { fail "link-both $name: does not build (log: $LOG)"; return; }
            run_cases "link-both $name" env LD_LIBRARY_PATH="$T/gcc" "$out" "${lb_inputs[@]}"
        }
        link_both "static" "$T/lb-static" "$T/gcc/libovsjson.a"
        link_both "shared" "$T/lb-shared" "-L$T/gcc -lovsjson"
        link_both "asan" "$T/lb-asan" "$T/asan/libovsjson.a" $SAN
    else
        fail "link-both: no $REF_TREE/lib/.libs/libopenvswitch.a"
    fi

    # OVSDB files from the benchmark helper, if present: each record is a
    # line "OVSDB JSON <len> <sha1>" followed by one line of JSON.
    mapfile -t dbs < <(find "$BUILD/bench/db" -maxdepth 1 -name 'quick-*.db' 2>/dev/null | sort)
    if [ ${#dbs[@]} -eq 0 ]; then
        echo "  (no OVSDB files under $BUILD/bench; ./build.sh bench json --scale quick makes them)"
    else
        recs=()
        for db in "${dbs[@]}"; do
            r="$T/db-$(basename "$db" .db)"
            awk 'prev ~ /^OVSDB JSON / { print > (out "-" NR ".json") } { prev = $0 }' \
                out="$r" "$db"
            awk 'prev ~ /^OVSDB JSON / { print } { prev = $0 }' "$db" >"$r-all.txt"
            recs+=("$r"-[0-9]*.json)
            diff_files "OVSDB $(basename "$db") as a --multiple stream" \
                "--multiple" "$r-all.txt"
        done
        diff_files "OVSDB records" "" "${recs[@]:0:200}"
    fi
fi

# --- Streaming: test-json --member-depth against the 4.0.0 series. ---
stage "lib-json: differential test of --member-depth against OVS 4.0.0 with its series"
STREAM_OVSTEST=${STREAM_OVSTEST:-"$BUILD/ovs-4.0.0/tests/ovstest"}
stream_src="$(dirname "$STREAM_OVSTEST")/test-json.c"
# stream_has OPTION: STREAM_OVSTEST is built and its test-json has --OPTION.
stream_has() {
    [ -x "$STREAM_OVSTEST" ] && grep -q -- "$1" "$stream_src" 2>/dev/null
}
if ! stream_has member-depth; then
    skip "--member-depth differential" "$STREAM_OVSTEST is not built with the" \
         "4.0.0 series (./build.sh apply --base 4.0.0 && ./build.sh build --base 4.0.0)"
else
    echo "  reference: $STREAM_OVSTEST"
    for depth in 1 2 3; do
        OVSTEST=$STREAM_OVSTEST diff_files "--member-depth=$depth conformance" \
            "--member-depth=$depth" "$LT"/conformance/*.json
    done
    OVSTEST=$STREAM_OVSTEST EXPECT_VALID=1 diff_files "--member-depth=2 generated valid" \
        "--member-depth=2" "$T"/corpus/v-*.json
    OVSTEST=$STREAM_OVSTEST diff_files "--member-depth=2 generated damaged" \
        "--member-depth=2" "$T"/corpus/x-*.json
    OVSTEST=$STREAM_OVSTEST diff_files "--member-depth=1 --pretty generated" \
        "--member-depth=1 --pretty" "$T"/corpus/v-00[0-3]*.json "$T"/corpus/x-00[0-1]*.json
    mapfile -t fz < <(find "$BUILD/lib-json/fuzz/corpus" -type f 2>/dev/null | sort | head -n 250)
    OVSTEST=$STREAM_OVSTEST diff_files "--member-depth=2 fuzzer corpus" "--member-depth=2" "${fz[@]}"
    mapfile -t recs < <(find "$T" -maxdepth 1 -name 'db-quick-*-[0-9]*.json' 2>/dev/null | sort | head -n 200)
    if [ ${#recs[@]} -gt 0 ]; then
        OVSTEST=$STREAM_OVSTEST diff_files "--member-depth=2 OVSDB records" "--member-depth=2" "${recs[@]}"
    fi
fi

# --- Text members: test-json --text-member against the 4.0.0 series. ---
stage "lib-json: differential test of --text-member against OVS 4.0.0 with its series"
if ! stream_has text-member; then
    skip "--text-member differential" "$STREAM_OVSTEST is not built with" \
         "json_parser_set_text_member() (4.0.0 series, ovsdb-streaming-raft 0002)"
else
    echo "  reference: $STREAM_OVSTEST"
    # OVS's test-json --text-member feeds 3 bytes at a time.  Fed in
    # pieces, OVS's lexer keeps the bytes of a string that ends a feed in
    # its token buffer until the next token: an invalid keyword or number
    # right after such a string is reported with those bytes in front of
    # it.  lib-json reports the token alone, as OVS does when fed whole
    # (lib-json/README.md).  So errors are compared by their position.
    export ERROR_POSITION_ONLY=1
    for name in col0 col1; do
        OVSTEST=$STREAM_OVSTEST diff_files "--text-member=$name generated" \
            "--text-member=$name" "$T"/corpus/v-*.json "$T"/corpus/x-*.json
    done
    # Every generated, conformance and fuzzer input as the value of a
    # member "a" (valid or not, so errors inside the text too).
    mkdir -p "$T/wrapped"
    rm -f "$T"/wrapped/*.json
    mapfile -t fz < <(find "$BUILD/lib-json/fuzz/corpus" -type f 2>/dev/null | sort | head -n 250)
    for f in "$T"/corpus/v-*.json "$T"/corpus/x-*.json \
        "$LT"/conformance/*.json "${fz[@]}"; do
        { printf '{"x": [1], "a": '; cat "$f"; printf ', "b": {"a": [2]}}\n'; } \
            >"$T/wrapped/$(basename "$f" .json).json"
    done
    OVSTEST=$STREAM_OVSTEST diff_files "--text-member=a generated, conformance and fuzzer inputs as a member" \
        "--text-member=a" "$T"/wrapped/*.json
    # Raft-like headers: {"prev_data": [schema, data], ...} from the OVSDB
    # records, whole and cut at a few lengths.
    mapfile -t recs < <(find "$T" -maxdepth 1 -name 'db-quick-*-[0-9]*.json' 2>/dev/null | sort | head -n 200)
    if [ ${#recs[@]} -ge 2 ]; then
        hdrs=()
        for i in $(seq 1 $((${#recs[@]} - 1))); do
            h="$T/raft-header-$i.json"
            { printf '{"term": 1, "prev_data" :[ '; tr -d '\n' <"${recs[0]}"
              printf ',\n'; tr -d '\n' <"${recs[$i]}"; printf ' ], "index": 2}\n'; } >"$h"
            hdrs+=("$h")
            size=$(stat -c %s "$h")
            for cut in 17 $((size / 3)) $((size - 3)); do
                head -c "$cut" "$h" >"$h.cut-$cut"
                hdrs+=("$h.cut-$cut")
            done
        done
        OVSTEST=$STREAM_OVSTEST diff_files "--text-member=prev_data raft-like headers" \
            "--text-member=prev_data" "${hdrs[@]}"
        OVSTEST=$STREAM_OVSTEST diff_files "--text-member=tables OVSDB records" \
            "--text-member=tables" "${recs[@]}"
    fi
    unset ERROR_POSITION_ONLY
fi

# --- Text members at a depth: --text-depth against OVS 4.0.0 with
# ovsdb-streaming-raft 0007. ---
stage "lib-json: differential test of --text-depth against OVS 4.0.0 with ovsdb-streaming-raft 0007"
if ! stream_has text-depth; then
    skip "--text-depth differential" "$STREAM_OVSTEST is not built with" \
         "json_parser_set_text_member_depth() (4.0.0 ovsdb-streaming-raft 0007)"
else
    echo "  reference: $STREAM_OVSTEST"
    export ERROR_POSITION_ONLY=1    # as for --text-member above
    # Every generated, conformance and fuzzer input as the "data" of a
    # JSON-RPC request, as raft's install_snapshot_request carries its
    # snapshot, and "data" members at depths 1 and 4 that stay trees.
    mkdir -p "$T/rpc"
    rm -f "$T"/rpc/*.json
    for f in "$T"/wrapped/*.json; do
        { printf '{"method": "install_snapshot_request", "data": [0], "params": [{"term": 1, "data": '
          cat "$f"; printf ', "x": {"data": {"y": 1}}}], "id": null}\n'; } \
            >"$T/rpc/$(basename "$f")"
    done
    for depth in 1 3 4; do
        OVSTEST=$STREAM_OVSTEST diff_files "--text-member=data --text-depth=$depth JSON-RPC requests" \
            "--text-member=data --text-depth=$depth" "$T"/rpc/*.json
    done
    unset ERROR_POSITION_ONLY
fi

summary
