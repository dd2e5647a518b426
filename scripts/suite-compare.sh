#!/usr/bin/env bash
# Compare two OVS testsuite runs test by test, matched by title (numbers
# shift when a series adds tests).
#
#   scripts/suite-compare.sh STOCK_TREE PATCHED_TREE
#
# Each tree must have run `make check` (tests/testsuite.log).  Prints the
# counts of each result for both, every test whose result differs, and the
# tests the patched tree adds.  Exits 1 if a test that passed on stock does
# not pass on the patched tree.
set -euo pipefail
export LC_ALL=C

# "title<TAB>result" for every test the log reports.
suite_results() {
    local tree=$1
    [ -f "$tree/tests/testsuite.log" ] || {
        echo "error: $tree/tests/testsuite.log does not exist; run make check there" >&2
        exit 1
    }
    # Test number -> title, from the suite's own list.
    (cd "$tree/tests" && ./testsuite -l) |
        awk '$1 ~ /^[0-9]+:$/ { n = $1; sub(/:$/, "", n); f = $2; sub(/:.*/, "", f);
                                 $1 = ""; $2 = ""; t = $0; sub(/^ +/, "", t);
                                 print n "\t" f ": " t }' >"$2.titles"
    awk '/^## Running the tests/ { on = 1; next }
         /^## Summary of the failures/ { on = 0 }
         on && match($0, /^ *[0-9]+\. [^ ]+: /) {
             n = $1; sub(/\.$/, "", n)
             r = substr($0, RLENGTH + 1); sub(/ \(.*$/, "", r)
             print n "\t" r
         }' "$tree/tests/testsuite.log" >"$2.results"
    awk -F'\t' 'NR == FNR { t[$1] = $2; next } ($1 in t) { print t[$1] "\t" $2 }' \
        "$2.titles" "$2.results" | sort
}

main() {
    [ $# -eq 2 ] || { echo "usage: $0 STOCK_TREE PATCHED_TREE" >&2; exit 2; }
    local tmp rc=0
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    suite_results "$1" "$tmp/stock" >"$tmp/stock.tsv"
    suite_results "$2" "$tmp/patched" >"$tmp/patched.tsv"
    echo "stock:   $(cut -f2 "$tmp/stock.tsv" | sort | uniq -c | awk '{ n = $1; $1 = ""; printf "%s%s %d", sep, $0, n; sep = "," }')"
    echo "patched: $(cut -f2 "$tmp/patched.tsv" | sort | uniq -c | awk '{ n = $1; $1 = ""; printf "%s%s %d", sep, $0, n; sep = "," }')"
    echo "different results (title: stock -> patched):"
    join -t $'\t' "$tmp/stock.tsv" "$tmp/patched.tsv" |
        awk -F'\t' '$2 != $3 { print "  " $1 ": " $2 " -> " $3; if ($2 == "ok") bad = 1 }
                    END { exit bad }' || rc=1
    echo "tests only in the patched tree:"
    join -t $'\t' -v2 "$tmp/stock.tsv" "$tmp/patched.tsv" | sed 's/^/  /; s/\t/: /'
    exit $rc
}

main "$@"
