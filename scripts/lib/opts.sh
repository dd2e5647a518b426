# The options of the verbs: parse_tree_opts for those that work on one OVS
# tree (--base, --ovs-src, --force, --sanitize, --valgrind and
# "-- TESTSUITEFLAGS"), parse_options for a verb's own options.
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

# parse_options VERB SPEC ARGS...: the options of a verb with its own, by
# SPEC, one row an option: "OPTION VAR KIND", where KIND is
#   =VALUE   a flag: VAR=VALUE
#   text     takes a value: VAR=value
#   list     takes a value: appends OPTION and the value to the array VAR
#   uintN    takes an integer of at least N
#   seconds  takes a number of seconds (digits, one optional fraction)
#   base     takes a base this project has a series for
# An option that takes a value takes it as the next word or after "=".  A
# row "@ VAR" appends the other arguments to the array VAR; without it they
# are refused.  -h and --help call the verb's usage and exit 0.  Anything
# else is one error line that names VERB (a build.sh verb, or a script's
# path).
parse_options() {
    local verb=$1 spec=$2 opt row var kind value help="./build.sh $1 --help"
    [[ $verb != *.sh ]] || help="$verb --help"
    shift 2
    while [ $# -gt 0 ]; do
        case $1 in
        -h|--help) usage; exit 0 ;;
        -?*) ;;
        *)
            row=$(option_row "$spec" @) ||
                die "$verb: unexpected argument '$1' (see $help)"
            option_append "$row" "$1"
            shift
            continue ;;
        esac
        opt=${1%%=*}
        row=$(option_row "$spec" "$opt") ||
            die "$verb: unknown option '$1' (see $help)"
        read -r var kind <<<"$row"
        if [[ $kind == =* ]]; then
            [ "$1" = "$opt" ] || die "$verb: $opt takes no value"
            printf -v "$var" '%s' "${kind#=}"
            shift
            continue
        fi
        if [ "$1" != "$opt" ]; then
            value=${1#*=}
            shift
        else
            value=${2:-}
            shift $(($# > 1 ? 2 : 1))
        fi
        need_value "$verb: $opt" "$value"
        case $kind in
        uint*) need_uint "$verb: $opt" "$value" "${kind#uint}" ;;
        seconds) [[ $value =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
            die "$verb: $opt needs a number of seconds, not '$value'" ;;
        base) is_supported_base "$value" ||
            die "$verb: unsupported base '$value' (have: $SUPPORTED_BASES)" ;;
        esac
        if [ "$kind" = list ]; then
            option_append "$var" "$opt" "$value"
        else
            printf -v "$var" '%s' "$value"
        fi
    done
}

# option_append VAR WORD...: appends the WORDs to the array VAR.
option_append() {
    local -n _ojp_list=$1
    shift
    _ojp_list+=("$@")
}

# option_row SPEC OPTION: "VAR KIND" of OPTION's row in SPEC; fails if
# there is none.
option_row() {
    local opt var kind
    while read -r opt var kind; do
        if [ "$opt" = "$2" ]; then
            echo "$var${kind:+ $kind}"
            return 0
        fi
    done <<<"$1"
    return 1
}
