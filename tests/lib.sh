# Case counting shared by tests/run.sh and every tests/t-*.sh component.
#
# A component prints one line per case ("ok NAME" or "FAIL NAME: WHY") and
# ends with the line "N passed, N failed", which tests/run.sh adds up.

PASSED=0            # Cases that passed so far.
FAILED=0            # Cases that failed so far.
FAILURES=()         # One "NAME: WHY" line per failed case, in order.

# ok NAME...: counts and prints a passed case.
ok() {
    PASSED=$((PASSED + 1))
    echo "ok $*"
}

# fail NAME [WHY...]: counts and prints a failed case.
fail() {
    local line=$1
    shift
    [ $# -eq 0 ] || line="$line: $*"
    FAILED=$((FAILED + 1))
    FAILURES+=("$line")
    echo "FAIL $line"
}

# Prints the closing line.  Returns non-zero iff a case failed.
summary() {
    echo "$PASSED passed, $FAILED failed"
    [ "$FAILED" -eq 0 ]
}
