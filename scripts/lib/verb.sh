# What a verb that works on one OVS tree loads: its options (opts), which
# tree and what it has (tree, through apply), apply and its guard (apply),
# and the one build and check (build).
# Functions only: sourcing it runs nothing.
[ -z "${_ojp_lib_verb:-}" ] || return 0
_ojp_lib_verb=1
# shellcheck source=opts.sh
. "$(dirname "${BASH_SOURCE[0]}")/opts.sh"
# shellcheck source=apply.sh
. "$(dirname "${BASH_SOURCE[0]}")/apply.sh"
# shellcheck source=build.sh
. "$(dirname "${BASH_SOURCE[0]}")/build.sh"

# open_tree VERB ALLOWED ARGS...: the verb's options (parse_tree_opts), its
# log (VERB, or check-MODE for a checker), and its tree (resolve_tree sets
# TREE and what the tree is).
open_tree() {
    parse_tree_opts "$@"
    log_start "$1${CHECK_MODE:+-$CHECK_MODE}"
    resolve_tree
}
