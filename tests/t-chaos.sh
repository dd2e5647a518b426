#!/usr/bin/env bash
# ./build.sh chaos (uptime/chaos.sh) on the default base: bad options are
# one error line; a short run of a mixed stock and patched cluster with a
# relay loses no committed transaction and records its summary; so does a
# run whose members are in network namespaces with links cut and healed;
# a run in which a committed row is deleted behind its back is found.
# Ends with "N passed, N failed".
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

scratch_dir "$BUILD/test/chaos"
S=$SCRATCH

expect_error "an unknown option is one error line" "unknown option '--bogus'" chaos --bogus
expect_error "--kills 0 is refused" "--kills needs an integer of at least 1" chaos --kills 0
expect_error "an unsupported base is refused" "unsupported base '9.9.9'" chaos --base 9.9.9
expect_error "--seed without a value is refused" "--seed needs a value" chaos --seed

# field NAME FILE: the value of NAME= in FILE.
field() { sed -n "s/^$1=//p" "$2"; }

stage "t-chaos: 8 kills in a mixed cluster with a relay, stock and patched $DEFAULT_BASE"
rc=0
"$TOP/build.sh" chaos --kills 8 --relay --record --results-dir "$S/results" \
    >"$S/run.out" 2>&1 || rc=$?
sum=$(find "$S/results" -name "chaos-$DEFAULT_BASE-relay-*.summary" 2>/dev/null | head -n1)
if [ $rc -eq 0 ] && [ -n "$sum" ] && [ "$(field result "$sum")" = pass ] &&
   [ "$(field lost_or_divergent "$sum")" = 0 ] && [ "$(field kills "$sum")" -ge 8 ] &&
   [ "$(field acked "$sum")" -gt 20 ]; then
    ok "8 kills: $(field acked "$sum") acknowledged transactions, $(field rows "$sum") rows, 0 lost"
else
    fail "8 kills in a mixed cluster" "exit $rc; $(grep -E '^(FAIL|chaos:)' "$S/run.out" | tr '\n' ' ')"
fi

# Members in network namespaces need root and 'ip netns' (iproute2, which
# the run installs); where there are none, the option must say so in one
# line.
need_pkgs iproute2
if ip netns add "ojp-probe-$$" 2>/dev/null; then
    ip netns del "ojp-probe-$$"
    stage "t-chaos: 4 kills with the members in network namespaces, links cut and healed"
    rc=0
    "$TOP/build.sh" chaos --kills 4 --partitions --seed 2 --record \
        --results-dir "$S/results-net" >"$S/net.out" 2>&1 || rc=$?
    sum=$(find "$S/results-net" -name "chaos-$DEFAULT_BASE-partitions-*.summary" 2>/dev/null | head -n1)
    # The run's namespaces, as it names them ("in namespaces ojpPID-1 to
    # ..."), must be gone once it ends.
    ns=$(sed -n 's/.* in namespaces \(ojp[0-9]*\)-1 to .*/\1/p' "$S/net.out" | head -n1)
    if [ $rc -eq 0 ] && [ -n "$sum" ] && [ "$(field result "$sum")" = pass ] &&
       [ "$(field lost_or_divergent "$sum")" = 0 ] &&
       [ $(( $(field cuts "$sum") + $(field isolations "$sum") )) -ge 1 ] &&
       [ -n "$ns" ] && ! ip netns list | grep -q "^$ns-"; then
        ok "partitions: $(field cuts "$sum") links cut, $(field isolations "$sum") members cut off, $(field heals "$sum") heals, 0 lost; the namespaces are gone"
    else
        fail "partitions" "exit $rc; $(grep -E '^(FAIL|chaos:)' "$S/net.out" | tr '\n' ' ')"
    fi
else
    expect_error "--partitions without network namespaces is one error line" \
        "--partitions needs network namespaces" chaos --partitions --kills 1
fi

stage "t-chaos: a committed row deleted behind the run's back"
rc=0
"$TOP/build.sh" chaos --kills 4 --plant >"$S/plant.out" 2>&1 || rc=$?
if [ $rc -ne 0 ] && grep -q 'differ from the stock replay' "$S/plant.out" &&
   grep -q '^chaos: FAIL' "$S/plant.out"; then
    ok "the lost row is found"
else
    fail "the lost row is found" "exit $rc: $(tail -n 3 "$S/plant.out" | tr '\n' ' ')"
fi

summary
