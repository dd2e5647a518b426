#!/usr/bin/env bash
# build.sh's options and arguments: unknown options, options with no value,
# stray arguments, a --ovs-src that is not an OVS tree, an unsupported
# version or base: one error line before any work.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

scratch_dir "$BUILD/test/options"

# A directory that is not OVS, and one that does not exist.
t_not_ovs() {
    local d="$SCRATCH/not-ovs" before
    mkdir -p "$d/lib"
    echo "int main(void) { return 0; }" >"$d/lib/main.c"
    echo "AC_INIT(something, 1.0)" >"$d/configure.ac"
    before=$(snapshot "$d")
    expect_refused "a directory that is not OVS is refused" "$d" \
        "is not an Open vSwitch source tree" "$before" apply --ovs-src "$d"
    expect_refused "a missing directory is refused" "" \
        "no such directory" "" apply --ovs-src "$SCRATCH/does-not-exist"
}

# An OVS version with no series, and a --base that is not supported.
t_unsupported() {
    local d="$SCRATCH/old" before
    checkout 3.5.0 "$d"
    sed -i 's/^AC_INIT(openvswitch, *3\.5\.0/AC_INIT(openvswitch, 2.17.9/' "$d/configure.ac"
    git -C "$d" commit -q -am "pretend to be 2.17.9"
    before=$(snapshot "$d")
    expect_refused "an unsupported version is refused and lists the supported ones" "$d" \
        "unsupported OVS version '2.17.9'.*3\.1\.0.*3\.5\.0.*4\.0\.0" "$before" apply --ovs-src "$d"
    expect_refused "an unsupported --base is refused" "" \
        "unsupported base '9.9.9' \(supported: 3.1.0 3.5.0 4.0.0\)" "" apply --base 9.9.9
}

# Unknown options, options with no value, stray arguments: one error line
# before any work.
t_options() {
    local o="$SCRATCH/options"
    mkdir -p "$o"
    local -a cases=(
        "the default verb|unknown option '--ovs-scr'|--ovs-scr $o"
        "apply|unknown option '--ovs-scr'|apply --ovs-scr $o"
        "detect|unknown option '--ovs-scr'|detect --ovs-scr $o"
        "build|unknown option '--ovs-scr'|build --ovs-scr $o"
        "check|unknown option '--ovs-scr'|check --ovs-scr $o"
        "export|unknown option '--ovs-scr'|export --ovs-scr $o"
        "build --force|unknown option '--force'|build --force"
        "detect|unknown option '-f'|detect -f"
        "apply --base with no value|--base needs a value|apply --base"
        "apply --base= with no value|--base needs a value|apply --base="
        "apply --ovs-src followed by an option|--ovs-src needs a value|apply --ovs-src --force"
        "the default verb's --ovs-src with no value|--ovs-src needs a value|--ovs-src"
        "detect with a stray argument|unexpected argument 'stray'|detect stray"
        "check with flags before --|unknown option '-k'|check -k json"
        "fetch with an option|usage: ./build.sh fetch BASE|fetch --base"
        "test with an argument|unexpected argument '--quick'|test --quick"
        "apply --base with --ovs-src|--base and --ovs-src exclude each other|apply --base 3.1.0 --ovs-src $o"
        "check --ovs-src with --base|--base and --ovs-src exclude each other|check --ovs-src $o --base 3.5.0"
        "check --record with --ovs-src|--record is for the managed tree of --base|check --record --ovs-src $o"
        "check --record with --sanitize|--record goes without --sanitize|check --sanitize --record"
        "apply --record|unknown option '--record'|apply --record"
    )
    local c what pat args
    for c in "${cases[@]}"; do
        IFS='|' read -r what pat args <<<"$c"
        # shellcheck disable=SC2086  # args are words
        expect_refused "$what: '$args' is refused with one error line" "" \
            "$(sed 's/[.[\*^$()+?{}|]/\\&/g' <<<"$pat")" "" $args
    done
    expect_refused "check -- -k 'flow monitoring': a selection word with a space is refused" "" \
        "a test selection word cannot contain a space" "" check -- -k "flow monitoring"
    expect_refused "check --sanitize -- -k 'a b': refused before any build" "" \
        "a test selection word cannot contain a space" "" check --sanitize -- -k "a b"
}

# A check whose selection matches no test fails: it checked nothing.  It
# needs the built default tree, which CI builds before this runs.
t_empty_selection() {
    if [ ! -f "$BUILD/ovs-$DEFAULT_BASE/Makefile" ]; then
        skip "check -- -k with a keyword no test has" "build/ovs-$DEFAULT_BASE is not built (./build.sh build)"
        return
    fi
    expect_refused "check -- -k with a keyword no test has: refused, not passed" "" \
        "selected no test" "" check -- -k no_such_keyword_ovs_json_perf
}

# A --ovs-src that names a file.
t_not_a_directory() {
    echo "not a tree" >"$SCRATCH/a-file"
    expect_refused "--ovs-src naming a file is refused" "" \
        "a-file is a file, not a directory" "" apply --ovs-src "$SCRATCH/a-file"
}

# export without a git identity: Signed-off-by: would have no one to name.
t_export_identity() {
    export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
    expect_refused "export without a git identity is refused" "" \
        "no git identity: set git config user.name and user.email" "" export --base 3.5.0
    unset GIT_CONFIG_GLOBAL GIT_CONFIG_NOSYSTEM
}

# The cases, in order; the closing line.
main() {
    t_not_ovs
    t_unsupported
    t_options
    t_empty_selection
    t_not_a_directory
    t_export_identity
    summary
}

main "$@"
