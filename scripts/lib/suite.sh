# An autotest suite's results: its output read test by test, and one way
# to run again the tests that failed.
# Functions only: sourcing it runs nothing; it loads what it needs.
[ -z "${_ojp_lib_suite:-}" ] || return 0
_ojp_lib_suite=1

# The testsuite's output has one result line per test, "N: TITLE  ok",
# "... FAILED (F.at:L)", "... skipped (F.at:L)", "... expected failure
# (F.at:L)" or "... UNEXPECTED PASS".  With -d (which check-valgrind
# passes, and which keeps every test's directory) autotest writes no
# tests/testsuite.log, so these read the output.
SUITE_RESULT_RE='^ *[0-9]+: .*[^ ] +(ok|FAILED \(.*\)|skipped \(.*\)|expected failure( \(.*\))?|UNEXPECTED PASS)$'

# suite_counts OUT: "RUN FAILED SKIPPED" from a testsuite's output.
suite_counts() {
    grep -E "$SUITE_RESULT_RE" "$1" |
        awk '/ skipped \(/ { s++; next }
             { r++ } / (FAILED \(|UNEXPECTED PASS$)/ { f++ }
             END { print r + 0, f + 0, s + 0 }'
}

# suite_failed OUT: the numbers of the tests that failed in OUT.
suite_failed() {
    grep -E "$SUITE_RESULT_RE" "$1" | grep -E ' (FAILED \(.*\)|UNEXPECTED PASS)$' |
        sed -E 's/^ *([0-9]+):.*/\1/' | sort -n | uniq
}

# suite_passed OUT N: test N passed in OUT.
suite_passed() {
    grep -E "$SUITE_RESULT_RE" "$1" | grep -qE "^ *$2: .* ok\$"
}

# suite_rerun DIR TARGET OUT FLAGS: make TARGET again in DIR with
# TESTSUITEFLAGS FLAGS (the numbers of the tests that failed, or
# --recheck), its output in OUT ("-": on standard output).  The one way
# every verb reruns tests.
suite_rerun() {
    if [ "$3" = - ]; then
        (cd "$1" && make "$2" TESTSUITEFLAGS="$4") 2>&1
    else
        (cd "$1" && make "$2" TESTSUITEFLAGS="$4") >"$3" 2>&1
    fi
}
