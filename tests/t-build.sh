#!/usr/bin/env bash
# build_tree's shared configure cache (configure_cached, scripts/lib/
# build.sh), with a stand-in configure script that says whether it started
# from a cache: trees with the same configure script and arguments share
# one; another script or other arguments do not; a failed configure leaves
# the shared cache as it was; a cache that configure refuses is dropped and
# configure runs again without it.  Nothing is left behind in the cache's
# folder.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=../scripts/lib/build.sh
. "$TOP/scripts/lib/build.sh"

scratch_dir "$BUILD/test/build"
S=$SCRATCH

# fake_tree DIR [VARIANT]: a tree whose configure writes "fresh" or "cached"
# to DIR/runs, refuses a cache that says "bad", fails when FAKE_FAIL is set,
# and leaves "ac_cv_x=yes" in its cache.  VARIANT changes the script.
fake_tree() {
    mkdir -p "$1"
    cat >"$1/configure" <<'SH'
#!/bin/sh
for a; do case $a in --cache-file=*) c=${a#--cache-file=} ;; esac; done
if grep -qx bad "$c" 2>/dev/null; then
    echo "configure: error: changes in the environment can compromise the build" >&2
    exit 1
fi
if [ -s "$c" ]; then echo cached >>runs; else echo fresh >>runs; fi
echo "ac_cv_x=${FAKE_FAIL:-yes}" >"$c"
[ -z "${FAKE_FAIL:-}" ]
SH
    [ -z "${2:-}" ] || echo "# $2" >>"$1/configure"
    chmod +x "$1/configure"
}

# cfg DIR ARGS...: configure_cached DIR ARGS with the scratch BUILD; its
# exit status in RC, and the last line DIR/runs got in RUN.
cfg() {
    local d=$1
    shift
    RC=0
    BUILD="$S/build" LOG='' configure_cached "$d" "$@" >/dev/null 2>&1 || RC=$?
    RUN=$(tail -n1 "$d/runs" 2>/dev/null || true)
}

# The shared cache's folder holds exactly N files, none of them a temporary.
caches() {
    find "$S/build/configure-cache" -type f | grep -cvE '/[0-9a-f]{16}$' || true
    find "$S/build/configure-cache" -type f | wc -l
}

fake_tree "$S/a"
fake_tree "$S/b"
fake_tree "$S/c" other
cfg "$S/a" --enable-Werror
expect "the first configure runs without a cache" "$RC $RUN" "0 fresh"
cfg "$S/b" --enable-Werror
expect "a second tree with the same configure and arguments starts from the cache" "$RC $RUN" "0 cached"
cfg "$S/c" --enable-Werror
expect "another configure script does not take it" "$RC $RUN" "0 fresh"
cfg "$S/b" --enable-Werror CC=clang
expect "other arguments do not take it" "$RC $RUN" "0 fresh"
expect "one cache per script and arguments, no temporary left" "$(caches | tr '\n' ' ')" "0 3 "

key=$(find "$S/build/configure-cache" -type f -newer "$S/c/runs" | head -n1)
cp "$key" "$S/saved"
FAKE_FAIL=1 cfg "$S/b" --enable-Werror CC=clang
if [ "$RC" -ne 0 ] && cmp -s "$key" "$S/saved" && [ "$(caches | tr '\n' ' ')" = "0 3 " ]; then
    pass "a failed configure fails and leaves the shared cache as it was"
else
    fail "a failed configure" "exit $RC; $(caches | tr '\n' ' ')files"
fi
echo bad >"$key"
cfg "$S/a" --enable-Werror CC=clang
if [ "$RC" -eq 0 ] && [ "$RUN" = fresh ] && grep -qx ac_cv_x=yes "$key" &&
   [ "$(caches | tr '\n' ' ')" = "0 3 " ]; then
    pass "a cache that configure refuses is dropped; configure runs again without it"
else
    fail "a refused cache" "exit $RC, last run '$RUN', cache: $(tr '\n' ' ' <"$key")"
fi

summary
