#!/usr/bin/env bash
# compare.sh OUT N NAME=TREE...: for each OVS build tree, 3 runs of run.sh
# with 0 and with N transactions forwarded through a follower, the leader
# (and a passive follower) under callgrind; then analyze.py compares the
# first two names.  Instruction counts only: the machine may be loaded.
set -euo pipefail
[ $# -ge 4 ] || { echo "usage: $0 OUT N NAME=TREE NAME=TREE..." >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$1 n=$2
shift 2
mkdir -p "$out"
names=()
for spec in "$@"; do
    name=${spec%%=*} tree=${spec#*=}
    [ -x "$tree/ovsdb/ovsdb-server" ] || { echo "error: $tree/ovsdb/ovsdb-server is not built" >&2; exit 1; }
    names+=("$name")
    for r in 1 2 3; do
        for k in 0 "$n"; do
            echo "[$(date +%T)] $name N=$k run $r" >&2
            nice -n 19 "$here/run.sh" "$tree" "$out/$name-n$k-r$r" "$k" \
                >"$out/$name-n$k-r$r.stdout" 2>&1 ||
                { echo "error: run.sh failed, see $out/$name-n$k-r$r/run.log" >&2; exit 1; }
        done
    done
done
/usr/bin/python3 "$here/analyze.py" "$out" "$n" "${names[0]}" "${names[1]}"
