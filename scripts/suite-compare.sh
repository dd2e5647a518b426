#!/usr/bin/env bash
# Compare two OVS testsuite runs test by test, matched by title (numbers
# shift when a series adds tests).
#
#   scripts/suite-compare.sh STOCK_TREE PATCHED_TREE [STOCK_LOG PATCHED_LOG]
#
# Each tree must have run `make check` (tests/testsuite.log), or the logs
# are given: a copy of a full run's testsuite.log survives later subsets.
# Prints the counts of each result for both, every test whose result
# differs, and the tests the patched tree adds.  Exits 1 if a test that passed on stock does
# not pass on the patched tree.
set -euo pipefail
export LC_ALL=C

# "title<TAB>result" for every test the log reports.
suite_results() {
    local tree=$1 log=$3
    [ -f "$log" ] || {
        echo "error: $log does not exist; run make check in $tree" >&2
        exit 1
    }
    # Test number -> title, from the suite's own list (for serial logs).
    (cd "$tree/tests" && ./testsuite -l) |
        awk '$1 ~ /^[0-9]+:$/ { n = $1; sub(/:$/, "", n); f = $2; sub(/:.*/, "", f);
                                 $1 = ""; $2 = ""; t = $0; sub(/^ +/, "", t);
                                 print n "\t" f ": " t }' >"$2.titles"
    # A parallel (-j) log names each test in its result line,
    # "N. TITLE (FILE.at:L): RESULT", and a failed one only in the details,
    # "N. FILE.at:L: N. TITLE (FILE.at:L): FAILED (...)".  A serial log has
    # "N. FILE.at:L: RESULT", whose title comes from the list above.
    awk -v par="$2.par" -v ser="$2.ser" '
        /^## Running the tests/ { on = 1; next }
        !on || !/^ *[0-9]+\. / { next }
        match($0, / \([^() ]+\.at:[0-9]+\): [A-Za-z]/) {
            t = substr($0, 1, RSTART - 1)
            f = substr($0, RSTART + 2); sub(/:.*/, "", f)
            r = substr($0, RSTART + RLENGTH - 1)
            sub(/^ *[0-9]+\. [^ ]+\.at:[0-9]+: /, "", t)
            sub(/^ *[0-9]+\. /, "", t)
            sub(/ +\(.*$/, "", r); sub(/ +$/, "", r)
            print f ": " t "\t" r > par
            next
        }
        match($0, /^ *[0-9]+\. [^ ]+\.at:[0-9]+: +/) {
            n = $1; sub(/\.$/, "", n)
            r = substr($0, RLENGTH + 1); sub(/ +\(.*$/, "", r); sub(/ +$/, "", r)
            if (r !~ /^testing /) { print n "\t" r > ser }
        }' "$log"
    touch "$2.par" "$2.ser"
    {
        cat "$2.par"
        awk -F'\t' 'NR == FNR { t[$1] = $2; next } ($1 in t) { print t[$1] "\t" $2 }' \
            "$2.titles" "$2.ser"
    } | sort
}

main() {
    [ $# -eq 2 ] || [ $# -eq 4 ] ||
        { echo "usage: $0 STOCK_TREE PATCHED_TREE [STOCK_LOG PATCHED_LOG]" >&2; exit 2; }
    local tmp rc=0
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    suite_results "$1" "$tmp/stock" "${3:-$1/tests/testsuite.log}" >"$tmp/stock.tsv"
    suite_results "$2" "$tmp/patched" "${4:-$2/tests/testsuite.log}" >"$tmp/patched.tsv"
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
