# shellcheck shell=bash
# uptime/netns.sh: a private network for the members of a chaos run, and
# the faults it can be given.  Each member runs in a network namespace of
# its own, with one address on a private subnet; the namespaces are joined
# by veth pairs to a bridge in a hub namespace.  Nothing here uses an
# address outside these namespaces: clients still reach the members by
# their unix sockets, which a network namespace does not hide.
#
# Faults: a link cut (a blackhole route on each side, so that the two
# members can no longer reach each other while both reach the third), a
# member cut from both others, and a slow link on the member's interface:
# tc netem's delay and loss where the kernel has netem, else a token
# bucket (tbf) that holds the link to 256 kbit/s and drops what waits
# longer than 200 ms.  Sourced, never run.
[ -z "${_ojp_uptime_netns:-}" ] || return 0
_ojp_uptime_netns=1

NETNS_PREFIX=
NETNS_SUBNET=10.213.0
NETNS_SLOW=tbf
# The faults in place: "cut I J" and "slow I" entries.
declare -A NETNS_FAULTS=()

# netns_name I: the namespace of member I (or of "hub").
netns_name() { echo "$NETNS_PREFIX-$1"; }

# netns_addr I: member I's address on the private subnet.
netns_addr() { echo "$NETNS_SUBNET.$1"; }

# netns_exec I COMMAND...: runs COMMAND in member I's namespace.
netns_exec() {
    local i=$1
    shift
    ip netns exec "$(netns_name "$i")" "$@"
}

# netns_setup N: the hub with its bridge and N member namespaces, each
# with lo and eth0 up and its address.  Fails with a one-line message if
# this machine cannot make network namespaces.
netns_setup() {
    local n=$1 i out hub
    need_pkgs iproute2
    NETNS_PREFIX="ojp$$"
    hub=$(netns_name hub)
    out=$(ip netns add "$hub" 2>&1) ||
        die "chaos: --partitions needs network namespaces, and 'ip netns add' fails here: $out"
    ip -n "$hub" link add br0 type bridge
    ip -n "$hub" link set br0 up
    for i in $(seq 1 "$n"); do
        ip netns add "$(netns_name "$i")"
        ip -n "$hub" link add "h$i" type veth peer name eth0 \
            netns "$(netns_name "$i")"
        ip -n "$hub" link set "h$i" master br0 up
        ip -n "$(netns_name "$i")" link set lo up
        ip -n "$(netns_name "$i")" addr add "$(netns_addr "$i")/24" dev eth0
        ip -n "$(netns_name "$i")" link set eth0 up
    done
    # netem is a kernel module that a machine may not have.
    if ip netns exec "$hub" tc qdisc add dev br0 root netem delay 1ms \
        >/dev/null 2>&1; then
        ip netns exec "$hub" tc qdisc del dev br0 root
        NETNS_SLOW=netem
    fi
}

# netns_teardown: deletes the namespaces, and with them their links.
netns_teardown() {
    local ns
    [ -n "$NETNS_PREFIX" ] || return 0
    for ns in $(ip netns list | awk '{ print $1 }' | grep "^$NETNS_PREFIX-" || true); do
        ip netns del "$ns" 2>/dev/null || true
    done
}

# netns_reaches I J: member I's namespace can open a connection to J's
# address.  A closed port answers "refused", which counts: the network
# carried the attempt.
netns_reaches() {
    local out
    out=$(netns_exec "$1" timeout 2 bash -c \
        "exec 3<>/dev/tcp/$(netns_addr "$2")/9" 2>&1) && return 0
    [[ $out == *'Connection refused'* ]]
}

# netns_cut I J: members I and J no longer reach each other.
netns_cut() {
    ip -n "$(netns_name "$1")" route add blackhole "$(netns_addr "$2")/32"
    ip -n "$(netns_name "$2")" route add blackhole "$(netns_addr "$1")/32"
    NETNS_FAULTS["cut $1 $2"]=1
}

# netns_is_cut I J: members I and J are cut apart, by either's cut.
netns_is_cut() {
    [ -n "${NETNS_FAULTS["cut $1 $2"]:-}${NETNS_FAULTS["cut $2 $1"]:-}" ]
}

# netns_slow I: member I's link delays every packet by 50 to 150 ms and
# loses 10 % of them (netem), or carries 256 kbit/s and drops what would
# wait more than 200 ms (tbf).
netns_slow() {
    if [ "$NETNS_SLOW" = netem ]; then
        netns_exec "$1" tc qdisc replace dev eth0 root netem \
            delay 100ms 50ms loss 10%
    else
        netns_exec "$1" tc qdisc replace dev eth0 root tbf \
            rate 256kbit burst 16kb latency 200ms
    fi
    NETNS_FAULTS["slow $1"]=1
}

# netns_heal FAULT: undoes one entry of NETNS_FAULTS.
netns_heal() {
    local kind i j
    read -r kind i j <<<"$1"
    case $kind in
    cut)
        ip -n "$(netns_name "$i")" route del blackhole "$(netns_addr "$j")/32"
        ip -n "$(netns_name "$j")" route del blackhole "$(netns_addr "$i")/32"
        ;;
    slow)
        netns_exec "$i" tc qdisc del dev eth0 root
        ;;
    esac
    unset "NETNS_FAULTS[$1]"
}

# netns_heal_all: undoes every fault in place.
netns_heal_all() {
    local f
    for f in "${!NETNS_FAULTS[@]}"; do
        netns_heal "$f"
    done
}

# netns_selfcheck: a cut must stop connections that go through before and
# after it; a check that the faults are real, made before the run.
netns_selfcheck() {
    netns_reaches 1 2 ||
        die "chaos: --partitions: member 1's namespace does not reach member 2's"
    netns_cut 1 2
    if netns_reaches 1 2 || netns_reaches 2 1 || ! netns_reaches 1 3; then
        die "chaos: --partitions: a cut between members 1 and 2 does not stop exactly their connections"
    fi
    netns_heal "cut 1 2"
    netns_reaches 1 2 ||
        die "chaos: --partitions: members 1 and 2 do not reach each other once the cut heals"
}
