# The facts and helpers every script shares: the bases, the folders,
# logging and progress (die, stage, run, log_start), Debian packages.
# Functions and settings only: sourcing it runs nothing.
[ -z "${_ojp_lib_common:-}" ] || return 0
_ojp_lib_common=1

# Project root and the git-ignored build area.
TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
export TOP
BUILD=${OVS_JSON_PERF_BUILD:-"$TOP/build"}
LOGDIR="$BUILD/logs"

# results_dir [records|evidence]: the folder results files go in.
# records (the default): what CI and ./build.sh report read and the
# benchmarks write, OVS_JSON_PERF_RESULTS or bench/results; evidence: its
# evidence/ subfolder, the figures that docs cite (bench/heap.sh's reports).
results_dir() {
    local root=${OVS_JSON_PERF_RESULTS:-"$TOP/bench/results"}
    case ${1:-records} in
    records) echo "$root" ;;
    evidence) echo "$root/evidence" ;;
    *) echo "error: results_dir: unknown kind '$1'" >&2; return 1 ;;
    esac
}

# record_for KIND BASE FLAGS DIR [PATTERN...]: a result file
# DIR/KIND-BASE-*.summary that passed, was made on exactly the tree
# ovs-json-perf/BASE has now (the same git tree hash, the same on any
# machine), has a line matching each extended regular expression PATTERN,
# and has every "-k WORD" of FLAGS in its selection ("-jN" aside).  Prints
# its path; fails if there is none.  CI takes such a record for a run it
# would otherwise make (bisect, sanitizers, build and check).
record_for() {
    local kind=$1 base=$2 flags=$3 dir=$4 want f p k sel covered
    shift 4
    want=$(git -C "$BUILD/ovs-$base" rev-parse -q --verify \
        "${BRANCH_PREFIX:-ovs-json-perf}/$base^{tree}" 2>/dev/null) || return 1
    for f in "$dir/$kind-$base-"*.summary; do
        [ -f "$f" ] && grep -qx 'result=pass' "$f" && grep -qxF "patched_tree=$want" "$f" ||
            continue
        covered=1
        for p in "$@"; do
            grep -qE "$p" "$f" || covered=0
        done
        sel=" $(sed -n 's/^selection=//p' "$f") "
        for k in $(sed -E 's/(^| )-j *[0-9]+//g; s/-k / /g' <<<"$flags"); do
            [[ $sel == *" -k $k "* ]] || covered=0
        done
        if [ "$covered" = 1 ]; then
            echo "$f"
            return 0
        fi
    done
    return 1
}

# The bases we support: version -> Debian package version and suite.
DEFAULT_BASE=3.5.0
SUPPORTED_BASES="3.1.0 3.5.0 4.0.0"
declare -A DEB_VERSION=(
    [3.1.0]="3.1.0-2+deb12u1"
    [3.5.0]="3.5.0-1"
    [4.0.0]="4.0.0-2"
)
declare -A DEB_SUITE=(
    [3.1.0]="bookworm"
    [3.5.0]="trixie"
    [4.0.0]="sid"
)

# The series for each base: patches/<base>/series lists its patch files in
# order, one a line, as quilt does ('#' starts a comment).  Tests point
# OVS_JSON_PERF_PATCHES at series of their own.
PATCHES=${OVS_JSON_PERF_PATCHES:-"$TOP/patches"}

# series_patches BASE: the file names patches/BASE/series lists, if any.
series_patches() {
    [ -f "$PATCHES/$1/series" ] || return 0
    sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$PATCHES/$1/series"
}

# series_fields GITDIR BASE [REV]: the "patches=" and "patched_tree=" lines
# of a result file for REV (default HEAD) of GITDIR: how many commits it
# carries on base/BASE, and its git tree hash (the same files give the same
# hash on any machine).  The report compares the count with the series.
# Nothing for a directory without those commits.
series_fields() {
    local rev=${3:-HEAD} n t
    n=$(git -C "$1" rev-list --count "base/$2..$rev" 2>/dev/null) || return 0
    t=$(git -C "$1" rev-parse "$rev^{tree}" 2>/dev/null) || return 0
    echo "patches=$n"
    echo "patched_tree=$t"
}

# Debian's packaging files that the base commit stops tracking
# (scripts/lib/fetch.sh): Debian's changelog replaces upstream's, and one of its
# entries trips OVS's check-echo-n.  The build still needs it
# (check-debian-changelog-version), so every work tree of the base keeps
# an untracked copy.
PACKAGING_FILES=debian/changelog

# restore_packaging SRC WT BASE: put the untracked packaging files into WT,
# a worktree of SRC (build/ovs-BASE), from tag pristine/BASE.
restore_packaging() {
    git -C "$1" archive "pristine/$3" $PACKAGING_FILES | tar -x -C "$2"
}

# check_no_spaced_words ARGS...: the TESTSUITEFLAGS words given after "--"
# go to make as one string, so a word with a space in it would come apart
# into a raw testsuite error.  Refuse it with a hint instead.
check_no_spaced_words() {
    local a
    for a in "$@"; do
        case $a in
        *[[:space:]]*)
            die "'$a': a test selection word cannot contain a space; autotest keywords are single words (-k flow,monitoring: tests with both; -k flow -k monitoring: either)" ;;
        esac
    done
}

# A counts file holds a run's results as KEY=VALUE lines.

# counts_set FILE KEY VALUE: KEY=VALUE in FILE, in place of KEY's line.
counts_set() {
    touch "$1"
    sed -i "/^$2=/d" "$1"
    echo "$2=$3" >>"$1"
}

# counts_get FILE KEY: KEY's value in FILE; 0 if it has none.
counts_get() {
    local v
    v=$(sed -n "s/^$2=//p" "$1" 2>/dev/null | tail -n1)
    echo "${v:-0}"
}

# need_value OPT VALUE: VALUE is given and is not an option; else one
# error line, "OPT needs a value" (OPT may name its command: "chaos: --seed").
need_value() {
    [ -n "${2:-}" ] && [[ $2 != --* ]] || die "$1 needs a value"
}

# need_uint OPT VALUE [MIN]: VALUE is an integer of at least MIN (default
# 0); else one error line.
need_uint() {
    [[ ${2:-} =~ ^[0-9]+$ ]] && [ "$2" -ge "${3:-0}" ] ||
        die "$1 needs an integer of at least ${3:-0}, not '${2:-}'"
}

# Debian's python3, not the pyenv one on PATH.
PYTHON3=/usr/bin/python3

T0=${T0:-$(date +%s)}
LOG=${LOG:-}

die() {
    echo "error: $*" >&2
    exit 1
}

elapsed() {
    local s=$(($(date +%s) - ${1:-$T0}))
    printf '%d:%02d' $((s / 60)) $((s % 60))
}

# Start a log for VERB under build/logs/ and export its path in LOG.
log_start() {
    local verb=$1
    mkdir -p "$LOGDIR"
    if [ -z "$LOG" ]; then
        LOG="$LOGDIR/$verb-$(date +%Y%m%d-%H%M%S)-$$.log"
        export LOG
        : >"$LOG"
        echo "log: $LOG"
    fi
}

# Print a progress line: stage name and elapsed time.
stage() {
    printf '[%s] %s\n' "$(elapsed)" "$*"
    [ -z "$LOG" ] || printf '[%s] === %s\n' "$(elapsed)" "$*" >>"$LOG"
}

# Run a command with all its output in the log.  On failure, show the tail
# of the log and the log's path.
run() {
    if [ -z "$LOG" ]; then
        "$@"
        return
    fi
    echo "+ $*" >>"$LOG"
    if ! "$@" >>"$LOG" 2>&1; then
        echo "--- last lines of $LOG ---" >&2
        tail -n 25 "$LOG" | sed 's/^/| /' >&2
        echo "--- full log: $LOG ---" >&2
        return 1
    fi
}

# wait_gone PID [TENTHS]: waits until process PID has exited, for at most
# TENTHS tenths of a second (default 600, a minute).
wait_gone() {
    for _ in $(seq "${2:-600}"); do
        kill -0 "$1" 2>/dev/null || return 0
        sleep 0.1
    done
}

# checker_finding LOG: the first finding in LOG, on one line: a sanitizer's
# log (ASan, UBSan: whatever it holds is a report), or a valgrind log
# ("*valgrind.*") with an error or a definitely lost block.  Nothing if LOG
# has none or does not exist.
checker_finding() {
    local f=$1
    case ${f##*/} in
    *valgrind.*)
        if [ -f "$f" ] && { ! grep -q 'ERROR SUMMARY: 0 errors' "$f" ||
                            grep -qE 'definitely lost: [1-9]' "$f"; }; then
            echo "$(grep -m1 'ERROR SUMMARY' "$f" || echo 'no error summary'); $(grep -m1 'definitely lost' "$f" || echo 'no leak summary')"
        fi
        ;;
    *)
        if [ -s "$f" ]; then
            grep -m1 -E 'ERROR|runtime error' "$f" || head -n1 "$f"
        fi
        ;;
    esac
}

is_supported_base() {
    local b
    for b in $SUPPORTED_BASES; do
        [ "$b" = "$1" ] && return 0
    done
    return 1
}

# Install Debian packages that are missing, when we can.
need_pkgs() {
    local missing=() p
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
            missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -ne 0 ]; then
        die "missing Debian packages: ${missing[*]} (install them, or run as root)"
    fi
    stage "installing Debian packages: ${missing[*]}"
    if [ ! -e "$BUILD/.apt-updated" ] ||
       [ -n "$(find "$BUILD/.apt-updated" -mmin +720 2>/dev/null)" ]; then
        run apt-get update -q || die "apt-get update failed"
        mkdir -p "$BUILD" && touch "$BUILD/.apt-updated"
    fi
    run env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
        --no-install-recommends "${missing[@]}" ||
        die "could not install: ${missing[*]}"
}

# What building and testing OVS needs on a bare Debian machine.
OVS_BUILD_PKGS="build-essential autoconf automake libtool pkg-config git
    libssl-dev python3 python3-pytest python3-netaddr python3-sortedcontainers
    python3-six procps file ccache"

# clang and the sanitizer and libFuzzer runtimes of its version: Debian
# names the runtime package after clang's major version (14 on Debian 12,
# 19 on Debian 13).
need_clang() {
    need_pkgs clang
    local major
    major=$(clang -dumpversion | cut -d. -f1)
    need_pkgs "libclang-rt-$major-dev"
}

# set_ovs_gcc TREE: OVS_GCC, the gcc that builds TREE.  OVS 3.1's
# lib/ovs-atomic.h takes __has_extension(c_atomic), which gcc 14 (Debian
# 13) also has, for clang and includes ovs-atomic-clang.h, whose builtins
# gcc lacks; later releases (3.5.0) also test __clang__.  For such a tree
# under gcc 14 or later, Debian 12's gcc-12.
set_ovs_gcc() {
    OVS_GCC=gcc
    if grep -q '^ *#elif __has_extension(c_atomic)' "$1/lib/ovs-atomic.h" 2>/dev/null &&
       [ "$(gcc -dumpversion | cut -d. -f1)" -ge 14 ]; then
        need_pkgs gcc-12
        OVS_GCC=gcc-12
    fi
}

need_build_deps() {
    # shellcheck disable=SC2086
    need_pkgs $OVS_BUILD_PKGS
}

# Worktrees and the compiler cache.
# shellcheck source=worktree.sh
. "$(dirname "${BASH_SOURCE[0]}")/worktree.sh"
