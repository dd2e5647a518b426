#!/usr/bin/env bash
# ./build.sh ovn without building OVN: bad options are refused with one
# error line, and the tests that name a remote outside 127.0.0.0/8 are left
# out by title, before anything runs.  (The run itself builds OVN twice and
# takes far longer than CI allows; its results are committed.)
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

scratch_dir "$BUILD/test/ovn"

# A made-up OVN tree: enough files for the checks, and a tests/ folder
# whose tests dial what their titles say.
OVN="$SCRATCH/ovn"
mkdir -p "$OVN/tests"
touch "$OVN/ovn-nb.xml"
echo 'AC_INIT(ovn, 25.03.0, bugs@openvswitch.org)' >"$OVN/configure.ac"
cat >"$OVN/tests/ovn-northd.at" <<'EOF'
AT_BANNER([OVN northd])
OVN_FOR_EACH_NORTHD([
AT_SETUP([dials a private address])
AT_CHECK([ovn-nbctl --db=tcp:192.168.0.10:6641 show])
AT_CLEANUP
])
AT_SETUP([dials loopback only])
AT_CHECK([ovn-nbctl --db=tcp:127.0.0.1:6641 show])
AT_CLEANUP
AT_SETUP([listens on a public address])
AT_CHECK([ovn-nbctl set-connection ptcp:6641:10.0.0.1])
AT_CLEANUP
AT_SETUP([talks ssl to a public address])
AT_CHECK([ovn-sbctl --db=ssl:[[8.8.8.8]]:6642 show])
AT_CLEANUP
AT_SETUP([uses no address])
AT_CHECK([true])
AT_CLEANUP
EOF

cases=(
    "no --ovn-src|ovn: --ovn-src DIR is required|ovn"
    "--ovn-src without a value|ovn: --ovn-src needs a value|ovn --ovn-src"
    "a missing --ovn-src|ovn: $SCRATCH/nothing: no such directory|ovn --ovn-src $SCRATCH/nothing"
    "a tree that is not OVN's|ovn: $SCRATCH is not an OVN source tree|ovn --ovn-src $SCRATCH"
    "an unsupported base|ovn: unsupported base '9.9.9'|ovn --ovn-src $OVN --base 9.9.9"
    "an unknown option|ovn: unknown option '--bogus'|ovn --ovn-src $OVN --bogus"
    "a test file the tree lacks|ovn: $OVN has no tests/nothing.at|ovn --ovn-src $OVN --at nothing.at"
)
for c in "${cases[@]}"; do
    IFS='|' read -r what pat args <<<"$c"
    # shellcheck disable=SC2086  # args are words
    expect_refused "ovn: $what is refused with one error line" "" "$pat" "" $args
done

# The titles left out: the private, public and ssl remotes, not loopback,
# not a test without an address.
got=$(bash -c '. "$1"; offnet_titles "$2"' _ "$TOP/uptime/ovn.sh" "$OVN" | paste -sd ';' -)
expect "ovn: the tests that name a remote outside 127.0.0.0/8 are left out, by title" \
    "$got" "dials a private address;listens on a public address;talks ssl to a public address"

# The version the summary names: configure.ac's, not that of a git
# repository around the tree (the scratch folder is inside this one).
expect "ovn: the summary names OVN's version from configure.ac" \
    "$(bash -c '. "$1"; ovn_version "$2"' _ "$TOP/uptime/ovn.sh" "$OVN")" "25.03.0"

summary
