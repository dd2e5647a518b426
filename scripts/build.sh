#!/usr/bin/env bash
# ./build.sh build [--base B | --ovs-src DIR]: configure --enable-Werror
# and make.
set -euo pipefail
# shellcheck source=lib/verb.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/verb.sh"

open_tree build "--base --ovs-src" "$@"
build_tree "$TREE"
