# The options of the verbs that work on one OVS tree (--base, --ovs-src,
# --force, --sanitize, --valgrind and "-- TESTSUITEFLAGS").
# Functions only: sourcing it runs nothing; it loads what it needs.
[ -z "${_ojp_lib_opts:-}" ] || return 0
_ojp_lib_opts=1
# shellcheck source=common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# parse_tree_opts VERB ALLOWED ARGS...: parse the tree options ALLOWED (a
# list of --base --ovs-src --force --) into BASE, OVS_SRC, FORCE and REST
# (what follows "--"), --sanitize or --valgrind into CHECK_MODE, and
# --record into RECORD.
# Anything else is an error: a typo such as
# --ovs-scr must not start a long build of the wrong tree.
parse_tree_opts() {
    local verb=$1 allowed=" $2 " opt
    shift 2
    BASE=$DEFAULT_BASE
    OVS_SRC=
    local base_given=0
    FORCE=0
    CHECK_MODE=
    RECORD=0
    REST=()
    while [ $# -gt 0 ]; do
        opt=${1%%=*}
        case $1 in
        --*=*|--base|--ovs-src|--force|--sanitize|--valgrind|--record|--) ;;
        -*) die "$verb: unknown option '$1' (see ./build.sh --help)" ;;
        *) die "$verb: unexpected argument '$1' (see ./build.sh --help)" ;;
        esac
        [[ $allowed == *" $opt "* ]] ||
            die "$verb: unknown option '$opt' (see ./build.sh --help)"
        case $1 in
        --base|--ovs-src)
            if [ $# -lt 2 ] || [ -z "$2" ] || [[ $2 == -* ]]; then
                die "$verb: $1 needs a value"
            fi
            if [ "$1" = --base ]; then BASE=$2 base_given=1; else OVS_SRC=$2; fi
            shift 2 ;;
        --base=*|--ovs-src=*)
            [ -n "${1#*=}" ] || die "$verb: $opt needs a value"
            if [ "$opt" = --base ]; then BASE=${1#*=} base_given=1; else OVS_SRC=${1#*=}; fi
            shift ;;
        --force) FORCE=1; shift ;;
        --record) RECORD=1; shift ;;
        --sanitize|--valgrind)
            [ -z "$CHECK_MODE" ] || [ "$CHECK_MODE" = "${1#--}" ] ||
                die "$verb: --sanitize and --valgrind exclude each other; run them one after the other"
            CHECK_MODE=${1#--}; shift ;;
        --) shift; check_no_spaced_words "$@"; REST=("$@"); break ;;
        *) die "$verb: unknown option '$1' (see ./build.sh --help)" ;;
        esac
    done
    # The tree's own version picks the series of --ovs-src: a --base beside
    # it would be silently ignored.
    [ "$base_given" = 0 ] || [ -z "$OVS_SRC" ] ||
        die "$verb: --base and --ovs-src exclude each other (the version of the tree in --ovs-src picks its series)"
    # A record names the managed tree's commits; the checkers always
    # record.
    [ "$RECORD" = 0 ] || [ -z "$OVS_SRC" ] ||
        die "$verb: --record is for the managed tree of --base, not --ovs-src"
    [ "$RECORD" = 0 ] || [ -z "$CHECK_MODE" ] ||
        die "$verb: --record goes without --$CHECK_MODE, which always records its result"
}
