#!/usr/bin/env bash
# ./build.sh chaos: a 3-member OVSDB raft cluster whose members run stock
# (A) or patched (B) ovsdb-server, and change from one to the other when
# they restart (rolling upgrades and downgrades), while transactions go to
# random members and members are killed with SIGKILL, compacted, replaced
# by a member that joins from scratch, and made to hand over leadership.
# At the end every member must hold exactly the committed transactions, as
# a stock standalone replay of them does; no member may have logged an
# assertion; and stock and patched ovsdb-tool must both read and check
# every member's file.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=netns.sh
. "$(dirname "${BASH_SOURCE[0]}")/netns.sh"

usage() {
    cat <<EOF
usage: ./build.sh chaos [OPTIONS]

A 3-member cluster of stock and patched ovsdb-server of BASE, under
transactions to random members, SIGKILLs and restarts (each restart may
switch the member between stock and patched), compactions, snapshot
installs, members that join from scratch and leadership transfers.  The
end state is checked against a stock standalone replay of the committed
transactions, and every member's file with both builds' ovsdb-tool.

  --base B          the base (default $DEFAULT_BASE)
  --kills N         SIGKILLs to make before the end (default 20)
  --seed N          the seed of the random choices (default 1)
  --relay           half of the transactions go through a relay server
                    (stock or patched) in front of the cluster
  --partitions      each member in a network namespace of its own, raft
                    over TCP on a private subnet between them, and links
                    cut, members cut off and links made slow (tc netem,
                    or tbf where the kernel has no netem) during the
                    run, then healed (needs root and 'ip netns')
  --plant           halfway, delete an acknowledged row behind the run's
                    back (a lost commit): the run must find it
  --stock-defects   also compact or kill a member that is still joining:
                    stock ovsdb-server crashes on the compaction (SIGSEGV:
                    it has no schema), and a member killed while joining
                    may not open its file again ("server does not belong
                    to cluster")
  --record          write the summary to bench/results/
  --results-dir D   where --record writes (default bench/results)

Environment: CHAOS_BINDIRS="A=DIR B=DIR" takes stock (A) and patched (B)
from built OVS trees instead of building stock and patched BASE.
Ends with "chaos: pass" or "chaos: FAIL"; the log's path is printed.
EOF
}

KILLS=20
SEED=1
RELAY=0
PARTITIONS=0
PROGRAMS="ovsdb/ovsdb-server ovsdb/ovsdb-tool ovsdb/ovsdb-client utilities/ovs-appctl"
SCHEMA="$TOP/uptime/chaos.ovsschema"
ROWS="$TOP/uptime/chaos-rows.py"
SELECT='["Chaos",{"op":"select","table":"T","where":[],"columns":["k","v","m"]}]'

# parse_args ARGS...: sets the options above and those of every uptime run.
parse_args() {
    parse_uptime_options chaos '
        --relay RELAY =1
        --partitions PARTITIONS =1
        --kills KILLS uint1
        --seed SEED uint0' "$@"
}

# The members, by slot 1 to 3: the side each runs (A or B), its database
# file, and its raft address (a new one for a member that joins from
# scratch).  A slot's client socket and unixctl path stay the same.
declare -A SIDE=() RAFT=() GEN=()
# What happened, for the summary.
declare -A COUNT=([kills]=0 [restarts]=0 [upgrades]=0 [downgrades]=0
                  [compactions]=0 [transfers]=0 [joins]=0 [acked]=0
                  [refused]=0 [uncertain]=0 [stale]=0 [cuts]=0 [isolations]=0
                  [slowdowns]=0 [heals]=0)

note() { echo "$(date +%T) $*" >>"$W/events"; }
db() { echo "$W/m$1.db"; }
sock() { echo "unix:$W/m$1.sock"; }
up() { [ -f "$W/m$1.pid" ] && kill -0 "$(cat "$W/m$1.pid")" 2>/dev/null; }
appctl() { local i=$1; shift; "$(side_bin A ovs-appctl)" -t "$W/m$i.ctl" "$@"; }
client() { "$(side_bin A ovsdb-client)" "$@"; }

# raft_addr SLOT: the raft address of SLOT's member of generation
# GEN[SLOT]: a unix socket, or with --partitions a TCP port on the
# member's own address.
raft_addr() {
    if [ "$PARTITIONS" = 1 ]; then
        echo "tcp:$(netns_addr "$1"):$((6641 + ${GEN[$1]}))"
    else
        echo "unix:$W/m$1.${GEN[$1]}.raft"
    fi
}

# in_ns SLOT COMMAND...: COMMAND, in SLOT's network namespace with
# --partitions.
in_ns() {
    local i=$1
    shift
    if [ "$PARTITIONS" = 1 ]; then
        netns_exec "$i" "$@"
    else
        "$@"
    fi
}

# start SLOT: starts the member of SLOT on its side.  A member that does
# not start ends the run: STOPPED says why.
STOPPED=
start() {
    local i=$1
    in_ns "$i" "$(side_bin "${SIDE[$i]}" ovsdb-server)" --detach --no-chdir \
        --pidfile="$W/m$i.pid" --log-file="$W/m$i.log" \
        --remote="punix:$W/m$i.sock" --unixctl="$W/m$i.ctl" "$(db "$i")" \
        >>"$LOG" 2>&1 && return 0
    STOPPED="member $i does not start on ${SIDE[$i]}: $(awk '/opened log file/ { w = "" } /\|(WARN|ERR|EMER)\|/ && w == "" { w = $0 } END { print w }' "$W/m$i.log" | cut -d'|' -f5-) (see $W/m$i.log)"
    note "$STOPPED"
    return 1
}

# stop SLOT SIGNAL: stops the member of SLOT with SIGNAL and waits for it.
stop() {
    local i=$1 sig=$2 pid
    up "$i" || return 0
    pid=$(cat "$W/m$i.pid")
    kill "-$sig" "$pid" 2>/dev/null || true
    wait_gone "$pid" 100
    rm -f "$W/m$i.pid"
}

# restart SLOT: starts a stopped member, half of the time on the other side.
restart() {
    local i=$1
    if [ $((RANDOM % 2)) -eq 0 ]; then
        if [ "${SIDE[$i]}" = A ]; then
            SIDE[$i]=B
            COUNT[upgrades]=$((COUNT[upgrades] + 1))
        else
            SIDE[$i]=A
            COUNT[downgrades]=$((COUNT[downgrades] + 1))
        fi
    fi
    start "$i" || return 0
    COUNT[restarts]=$((COUNT[restarts] + 1))
    note "restart m$i on ${SIDE[$i]}"
}

# create_cluster: member 1 creates the cluster, 2 and 3 join it.  Each
# starts on a random side.
create_cluster() {
    local i
    for i in 1 2 3; do
        SIDE[$i]=$( [ $((RANDOM % 2)) -eq 0 ] && echo A || echo B)
        GEN[$i]=0
        RAFT[$i]=$(raft_addr "$i")
    done
    "$(side_bin "${SIDE[1]}" ovsdb-tool)" create-cluster "$(db 1)" "$SCHEMA" "${RAFT[1]}"
    for i in 2 3; do
        "$(side_bin "${SIDE[$i]}" ovsdb-tool)" join-cluster "$(db "$i")" Chaos \
            "${RAFT[$i]}" "${RAFT[1]}"
    done
    for i in 1 2 3; do
        start "$i" || die "chaos: $STOPPED"
    done
    note "cluster: m1 ${SIDE[1]}, m2 ${SIDE[2]}, m3 ${SIDE[3]}"
}

# start_relay: a relay server in front of the cluster, on a random side.
start_relay() {
    local side
    side=$( [ $((RANDOM % 2)) -eq 0 ] && echo A || echo B)
    "$(side_bin "$side" ovsdb-server)" --detach --no-chdir \
        --pidfile="$W/relay.pid" --log-file="$W/relay.log" \
        --remote="punix:$W/relay.sock" --unixctl="$W/relay.ctl" \
        "relay:Chaos:$(sock 1),$(sock 2),$(sock 3)" >>"$LOG" 2>&1 ||
        die "chaos: the relay does not start (see $W/relay.log)"
    note "relay on $side"
    RELAY_SIDE=$side
}

# leader: the slot of the member that says it leads, or nothing.
leader() {
    local i
    for i in 1 2 3; do
        up "$i" && appctl "$i" cluster/status Chaos 2>/dev/null |
            grep -q '^Role: leader' && { echo "$i"; return; }
    done
    true
}

# payload N LEN: the string of row N, LEN bytes after its prefix.
payload() {
    printf 'k%d-%*s' "$1" "$2" '' | tr ' ' x
}

# The payloads' lengths: below and above the 23-byte inline limit, and
# rarely 60 kB.
LENS=(3 22 24 300 3000 60000)

# The transactions: TXN[n] the operation, KEY[n] its row, KIND[n] insert
# or delete, STATE[n] acked, refused or uncertain.  LIVE lists the keys
# whose insert was acknowledged and that no delete has been sent for.
declare -a TXN=() KEY=() KIND=() STATE=() LIVE=()

# transact: one transaction to a random member (or the relay): an insert of
# a new row, or a delete of a row whose insert was acknowledged.
transact() {
    local n=${#TXN[@]} target out rc=0 k op kind
    if [ ${#LIVE[@]} -gt 0 ] && [ $((RANDOM % 5)) -eq 0 ]; then
        local j=$((RANDOM % ${#LIVE[@]}))
        k=${LIVE[$j]}
        LIVE=("${LIVE[@]:0:$j}" "${LIVE[@]:$((j + 1))}")
        kind=delete
        op="{\"op\":\"delete\",\"table\":\"T\",\"where\":[[\"k\",\"==\",$k]]}"
    else
        k=$n
        kind=insert
        local len=${LENS[$((RANDOM % (RANDOM % 50 == 0 ? 6 : 5)))]}
        op="{\"op\":\"insert\",\"table\":\"T\",\"row\":{\"k\":$k,\"v\":\"$(payload "$k" "$len")\",\"m\":[\"map\",[[\"n\",\"$n\"]]]}}"
    fi
    if [ "$RELAY" = 1 ] && [ $((RANDOM % 2)) -eq 0 ]; then
        target="unix:$W/relay.sock"
    else
        target=$(sock $((RANDOM % 3 + 1)))
    fi
    out=$(client --no-leader-only --timeout=3 transact "$target" "[\"Chaos\",$op]" 2>&1) || rc=$?
    TXN[$n]=$op
    KEY[$n]=$k
    KIND[$n]=$kind
    if [ $rc -eq 0 ] && { [[ $kind == insert && $out == *'"uuid"'* ]] ||
                          [[ $kind == delete && $out == *'"count":1'* ]]; }; then
        STATE[$n]=acked
        [ "$kind" = delete ] || LIVE+=("$k")
    elif [ $rc -eq 0 ] && [[ $kind == delete && $out == *'"count":0'* ]]; then
        # The insert of this row was acknowledged, but the member that ran
        # the delete had not applied it yet (a follower that lags, or one
        # cut off from the leader, answers from what it has): the delete
        # changed nothing and commits nothing.  If the row was lost, the
        # end state misses it and differs from the replay.
        STATE[$n]=stale
        LIVE+=("$k")
    elif [[ $out == *'Connection refused'* || $out == *'No such file'* ||
            $out == *'not yet available'* ]]; then
        # Never reached a server that could run it.
        STATE[$n]=refused
    else
        STATE[$n]=uncertain
    fi
    COUNT[${STATE[$n]}]=$((COUNT[${STATE[$n]}] + 1))
    echo "txn $n $kind k=$k -> $target: ${STATE[$n]} (${out:0:120})" >>"$W/txns"
}

# joined SLOT: the member of SLOT is a full member of the cluster (not
# still joining it), or --stock-defects.
joined() {
    [ "$STOCK_DEFECTS" = 1 ] ||
        appctl "$1" cluster/status Chaos 2>/dev/null | grep -q '^Status: cluster member'
}

# kill_one: SIGKILL a random running member, if all three run.
kill_one() {
    local i=$((RANDOM % 3 + 1))
    up 1 && up 2 && up 3 || return 0
    # Stock ovsdb-server may not restart a member killed while joining.
    joined "$i" || return 0
    stop "$i" KILL
    COUNT[kills]=$((COUNT[kills] + 1))
    note "kill -9 m$i (${SIDE[$i]}), kill ${COUNT[kills]}"
}

# restart_down: restarts every member that is down.
restart_down() {
    local i
    for i in 1 2 3; do
        up "$i" || restart "$i"
    done
}

# compact: a snapshot on a random running member.  On a follower that
# another member lags behind, the leader's next compaction makes it
# install a snapshot.
compact() {
    local i=$((RANDOM % 3 + 1))
    up "$i" || return 0
    # Stock ovsdb-server crashes when a member that has not yet received
    # its database is compacted.
    joined "$i" || return 0
    appctl "$i" ovsdb-server/compact >>"$LOG" 2>&1 || true
    COUNT[compactions]=$((COUNT[compactions] + 1))
    note "compact m$i"
}

# transfer: the leader hands its leadership over.
transfer() {
    local l
    l=$(leader)
    [ -n "$l" ] || return 0
    appctl "$l" cluster/failure-test transfer-leadership >>"$LOG" 2>&1 || return 0
    COUNT[transfers]=$((COUNT[transfers] + 1))
    note "m$l transfers leadership"
}

# rejoin: a member is stopped, kicked out of the cluster, and its slot
# gets a new member that joins from scratch with a new raft address.
rejoin() {
    local i=$((RANDOM % 3 + 1)) j sid others=() n=0
    up 1 && up 2 && up 3 || return 0
    joined "$i" || return 0
    sid=$("$(side_bin A ovsdb-tool)" db-sid "$(db "$i")")
    stop "$i" KILL
    COUNT[kills]=$((COUNT[kills] + 1))
    for j in 1 2 3; do
        [ "$j" = "$i" ] || others+=("$j")
    done
    # Kick it through a remaining member; the leader may be changing.
    until appctl "${others[0]}" cluster/kick Chaos "$sid" >>"$LOG" 2>&1 ||
          appctl "${others[1]}" cluster/kick Chaos "$sid" >>"$LOG" 2>&1; do
        n=$((n + 1))
        [ $n -lt 50 ] || { note "m$i could not be kicked"; restart "$i"; return 0; }
        sleep 0.2
    done
    # Wait until the others no longer count it.
    n=0
    while appctl "${others[0]}" cluster/status Chaos 2>/dev/null | grep -q "(${sid:0:4} at"; do
        n=$((n + 1))
        [ $n -lt 100 ] || break
        sleep 0.1
    done
    mv "$(db "$i")" "$W/m$i.${GEN[$i]}.kicked.db"
    GEN[$i]=$((GEN[$i] + 1))
    RAFT[$i]=$(raft_addr "$i")
    SIDE[$i]=$( [ $((RANDOM % 2)) -eq 0 ] && echo A || echo B)
    "$(side_bin "${SIDE[$i]}" ovsdb-tool)" join-cluster "$(db "$i")" Chaos \
        "${RAFT[$i]}" "${RAFT[${others[0]}]}" "${RAFT[${others[1]}]}" >>"$LOG" 2>&1
    start "$i" || return 0
    COUNT[joins]=$((COUNT[joins] + 1))
    note "m$i kicked (sid $sid) and joined from scratch on ${SIDE[$i]}"
}

# network: with --partitions, heals a fault in place (half of the time,
# if there is one) or makes a new one: a cut link, a member cut off from
# both others, or a slow link.
network() {
    local faults=("${!NETNS_FAULTS[@]}") i j k
    if [ ${#faults[@]} -gt 0 ] && [ $((RANDOM % 2)) -eq 0 ]; then
        netns_heal "${faults[$((RANDOM % ${#faults[@]}))]}"
        COUNT[heals]=$((COUNT[heals] + 1))
        note "network: healed, $((${#faults[@]} - 1)) faults left"
        return
    fi
    i=$((RANDOM % 3 + 1))
    j=$((i % 3 + 1))
    k=$((j % 3 + 1))
    case $((RANDOM % 4)) in
    0|1)
        ! netns_is_cut "$i" "$j" || return 0
        netns_cut "$i" "$j"
        COUNT[cuts]=$((COUNT[cuts] + 1))
        note "network: m$i and m$j cut apart"
        ;;
    2)
        ! netns_is_cut "$i" "$j" && ! netns_is_cut "$i" "$k" || return 0
        netns_cut "$i" "$j"
        netns_cut "$i" "$k"
        COUNT[isolations]=$((COUNT[isolations] + 1))
        note "network: m$i cut off from both others"
        ;;
    3)
        [ -z "${NETNS_FAULTS["slow $i"]:-}" ] || return 0
        netns_slow "$i"
        COUNT[slowdowns]=$((COUNT[slowdowns] + 1))
        note "network: m$i's link slow ($NETNS_SLOW)"
        ;;
    esac
}

# plant: deletes a row whose insert was acknowledged, through a running
# member, without recording it: a committed transaction lost.
plant() {
    local i k
    [ ${#LIVE[@]} -gt 0 ] || return 1
    k=${LIVE[0]}
    for i in 1 2 3; do
        up "$i" || continue
        client --no-leader-only --timeout=3 transact "$(sock "$i")" \
            "[\"Chaos\",{\"op\":\"delete\",\"table\":\"T\",\"where\":[[\"k\",\"==\",$k]]}]" \
            2>/dev/null | grep -q '"count":1' || continue
        note "planted: row k=$k deleted behind the run's back"
        return 0
    done
    return 1
}

# run_chaos: random steps until KILLS kills.
run_chaos() {
    local step=0 r planted=0
    while [ "${COUNT[kills]}" -lt "$KILLS" ] && [ -z "$STOPPED" ]; do
        step=$((step + 1))
        if [ "$PLANT" = 1 ] && [ $planted = 0 ] &&
           [ "${COUNT[kills]}" -ge $((KILLS / 2)) ] && plant; then
            planted=1
        fi
        # With --partitions, one step in 9 is a network fault or a heal.
        r=$((RANDOM % (PARTITIONS == 1 ? 112 : 100)))
        if [ $r -ge 100 ]; then
            network
        elif [ $r -lt 50 ]; then
            transact; transact; transact
        elif [ $r -lt 70 ]; then
            kill_one
        elif [ $r -lt 82 ]; then
            restart_down
        elif [ $r -lt 90 ]; then
            compact
        elif [ $r -lt 96 ]; then
            transfer
        else
            rejoin
        fi
        if [ $((step % 25)) -eq 0 ]; then
            stage "chaos: step $step, ${COUNT[kills]} of $KILLS kills, ${#TXN[@]} transactions"
        fi
    done
    if [ "$PARTITIONS" = 1 ]; then
        netns_heal_all
        note "network: every fault healed"
    fi
    [ -n "$STOPPED" ] || restart_down
}

# rows_of SERVER OUT: the rows that SERVER (a client socket) serves, as
# chaos-rows.py prints them.
rows_of() {
    client --no-leader-only --timeout=5 query "$1" "$SELECT" 2>/dev/null |
        /usr/bin/python3 "$ROWS" >"$2" 2>/dev/null
}

# converge: waits until every member (and the relay) serves the same rows
# as member 1, twice in a row; fails after 120 s.
converge() {
    local n=0 i same prev=
    stage "chaos: waiting for the members to converge"
    while [ $n -lt 240 ]; do
        same=1
        rows_of "$(sock 1)" "$W/rows.1" || same=0
        for i in 2 3; do
            rows_of "$(sock "$i")" "$W/rows.$i" && cmp -s "$W/rows.1" "$W/rows.$i" || same=0
        done
        if [ "$RELAY" = 1 ]; then
            rows_of "unix:$W/relay.sock" "$W/rows.relay" &&
                cmp -s "$W/rows.1" "$W/rows.relay" || same=0
        fi
        if [ $same = 1 ] && [ "$prev" = "$(md5sum <"$W/rows.1")" ]; then
            return 0
        fi
        [ $same = 1 ] && prev=$(md5sum <"$W/rows.1")
        n=$((n + 1))
        sleep 0.5
    done
    return 1
}

# replay: the committed transactions, in the order they were sent, into a
# stock standalone database; an uncertain one counts as committed if the
# members show its effect.  Writes the replay's rows to $W/rows.replay and
# the keys that break an acknowledgement to $W/broken.
replay() {
    local n ops=() k
    declare -A present=()
    while IFS=$'\t' read -r k _; do
        present[$k]=$(( ${present[$k]:-0} + 1 ))
    done <"$W/rows.1"
    for ((n = 0; n < ${#TXN[@]}; n++)); do
        k=${KEY[$n]}
        case ${STATE[$n]}.${KIND[$n]} in
        acked.*) ops+=("${TXN[$n]}") ;;
        uncertain.insert) [ -z "${present[$k]:-}" ] || ops+=("${TXN[$n]}") ;;
        uncertain.delete) [ -n "${present[$k]:-}" ] || ops+=("${TXN[$n]}") ;;
        esac
    done
    for k in "${!present[@]}"; do
        [ "${present[$k]}" = 1 ] || echo "key $k: ${present[$k]} rows" >>"$W/broken"
    done
    "$(side_bin A ovsdb-tool)" create "$W/replay.db" "$SCHEMA"
    # In transactions of up to about 64 kB each: an argument has a limit.
    local batch= op
    : >"$W/replay.out"
    for op in "${ops[@]}" ''; do
        if [ -n "$batch" ] && { [ -z "$op" ] || [ $(( ${#batch} + ${#op} )) -gt 65536 ]; }; then
            "$(side_bin A ovsdb-tool)" transact "$W/replay.db" "[\"Chaos\"$batch]" \
                >>"$W/replay.out" 2>&1 ||
                { echo "replay: ovsdb-tool transact failed" >>"$W/broken"; return; }
            batch=
        fi
        [ -z "$op" ] || batch+=",$op"
    done
    if grep -q '"error"' "$W/replay.out"; then
        echo "replay: an operation failed: $(head -c 300 "$W/replay.out")" >>"$W/broken"
    fi
    "$(side_bin A ovsdb-tool)" query "$W/replay.db" "$SELECT" |
        /usr/bin/python3 "$ROWS" >"$W/rows.replay"
}

# replaced_only SIDE SLOT: the rows that SIDE's ovsdb-tool made of SLOT's
# file and the replay's differ only in rows that the file inserts, or
# deletes, only in log entries that a later term replaced.  Stock
# ovsdb-tool cluster-to-standalone writes every entry of the file in
# order, also one that a leader wrote and never committed before another
# leader's entry took its index.  Appends what it found to
# $W/tool-defects.
replaced_only() {
    local side=$1 i=$2 keys
    keys=$(diff "$W/rows.m$i.$side" "$W/rows.replay" |
           awk '/^< / { print "+" $2 } /^> / { print "-" $2 }')
    [ -n "$keys" ] || return 1
    # shellcheck disable=SC2086
    /usr/bin/python3 "$TOP/uptime/chaos-replaced.py" "$(db "$i")" $keys >/dev/null ||
        return 1
    echo "$side's ovsdb-tool, m$i's file: rows ${keys//$'\n'/ } of replaced entries" >>"$W/tool-defects"
}

# check_files: with the members stopped, each build's ovsdb-tool checks
# the three files together and converts each to a standalone database
# whose rows must be the replay's.  Stock's may differ in rows of entries
# that a later term replaced (replaced_only), a stock defect that is
# reported apart; the patched tool has the fix (ovsdb-fixes 0009), so any
# difference in what it writes fails the run.
check_files() {
    local side i rc=0
    for side in A B; do
        if ! "$(side_bin "$side" ovsdb-tool)" check-cluster "$(db 1)" "$(db 2)" "$(db 3)" \
            >>"$LOG" 2>&1; then
            echo "chaos: check-cluster with $side's ovsdb-tool fails"
            rc=1
        fi
        for i in 1 2 3; do
            rm -f "$W/m$i.$side.standalone"
            "$(side_bin "$side" ovsdb-tool)" cluster-to-standalone \
                "$W/m$i.$side.standalone" "$(db "$i")" >>"$LOG" 2>&1 &&
            "$(side_bin "$side" ovsdb-tool)" query "$W/m$i.$side.standalone" "$SELECT" |
                /usr/bin/python3 "$ROWS" >"$W/rows.m$i.$side" 2>>"$LOG" &&
            { cmp -s "$W/rows.m$i.$side" "$W/rows.replay" ||
              { [ "$side" = A ] && replaced_only "$side" "$i"; }; } || {
                echo "chaos: $side's ovsdb-tool does not read m$i's file (written last by ${SIDE[$i]}) as the replay"
                rc=1
            }
        done
    done
    return $rc
}

# logged_faults: assertions, signals and emergencies in the servers' logs.
logged_faults() {
    { grep -HE 'assertion|SIG[A-Z]+ detected|\|EMER\|' "$W"/m*.log "$W"/relay.log 2>/dev/null ||
          true; } | head -n 5
}

# write_summary RESULT: the result file of a --record run.
write_summary() {
    local out="$RESULTS_DIR/chaos-$BASE$([ "$RELAY" = 0 ] || echo -relay)$([ "$PARTITIONS" = 0 ] || echo -partitions)-$STAMP.summary"
    mkdir -p "$RESULTS_DIR"
    {
        echo "kind=chaos"
        echo "base=$BASE"
        echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "stock=${BINDIR[A]#"$TOP/"}"
        echo "patched=${BINDIR[B]#"$TOP/"}"
        echo "patched_tree=$(git -C "${BINDIR[B]}" rev-parse -q --verify 'HEAD^{tree}' 2>/dev/null || echo unknown)"
        echo "seed=$SEED"
        echo "relay=$([ "$RELAY" = 0 ] && echo no || echo "$RELAY_SIDE")"
        echo "network=$([ "$PARTITIONS" = 0 ] && echo unix || echo "netns, slow links by $NETNS_SLOW")"
        local c
        for c in kills restarts upgrades downgrades compactions transfers joins acked refused uncertain stale cuts isolations slowdowns heals; do
            echo "$c=${COUNT[$c]}"
        done
        echo "transactions=${#TXN[@]}"
        echo "rows=$(wc -l <"$W/rows.replay")"
        echo "lost_or_divergent=$LOST"
        echo "tool_files_with_replaced_entries=${TOOL_DEFECTS:-0} (stock ovsdb-tool cluster-to-standalone keeps entries a later term replaced)"
        echo "result=$1"
    } >"$out"
    stage "chaos: result in $out"
}

main() {
    parse_args "$@"
    log_start chaos
    uptime_run_dir chaos W
    : >"$W/broken"
    RANDOM=$SEED
    trap 'for i in 1 2 3; do stop $i KILL; done; [ ! -f "$W/relay.pid" ] || kill "$(cat "$W/relay.pid")" 2>/dev/null || true; netns_teardown' EXIT
    # A signal ends the run through the EXIT trap: no member, relay or
    # namespace is left behind.
    trap 'exit 130' INT TERM HUP
    if [ "$PARTITIONS" = 1 ]; then
        netns_setup 3
        netns_selfcheck
        stage "chaos: members in namespaces $(netns_name 1) to $(netns_name 3), on $NETNS_SUBNET.0/24, slow links by $NETNS_SLOW"
    fi
    sides_find chaos "$BASE" "${CHAOS_BINDIRS:-}" "$PROGRAMS"
    stage "chaos: a 3-member cluster in $W"
    create_cluster
    RELAY_SIDE=
    [ "$RELAY" = 0 ] || start_relay
    run_chaos
    local fails=()
    LOST=0
    if [ -n "$STOPPED" ]; then
        # The end state cannot be checked: the run stopped.
        fails+=("$STOPPED")
        LOST=unknown
        : >"$W/rows.replay"
    else
        converge ||
            fails+=("the members did not converge in 120 s (rows.1, rows.2, rows.3 in $W)")
        replay
        if ! cmp -s "$W/rows.1" "$W/rows.replay"; then
            LOST=$(diff "$W/rows.1" "$W/rows.replay" | grep -c '^[<>]' || true)
            fails+=("the members' rows differ from the stock replay of the committed transactions in $LOST rows (diff $W/rows.1 $W/rows.replay)")
        fi
        [ ! -s "$W/broken" ] || { LOST=$((LOST + $(wc -l <"$W/broken"))); fails+=("$(head -n 3 "$W/broken" | tr '\n' ' ')"); }
    fi
    [ ! -f "$W/relay.pid" ] || kill "$(cat "$W/relay.pid")" 2>/dev/null || true
    local i
    for i in 1 2 3; do
        stop "$i" TERM
    done
    trap - EXIT INT TERM HUP
    netns_teardown
    local faults
    faults=$(logged_faults)
    [ -z "$faults" ] || fails+=("a server logged: $faults")
    local out
    : >"$W/tool-defects"
    [ -n "$STOPPED" ] || out=$(check_files) || fails+=("$out")
    TOOL_DEFECTS=$(wc -l <"$W/tool-defects")
    if [ "$TOOL_DEFECTS" -gt 0 ]; then
        echo "chaos: stock defect: ovsdb-tool cluster-to-standalone keeps log entries that a later term replaced ($(paste -sd';' "$W/tool-defects"))"
    fi
    echo "chaos: ${COUNT[kills]} kills, ${COUNT[restarts]} restarts (${COUNT[upgrades]} to patched, ${COUNT[downgrades]} to stock), ${COUNT[joins]} joins from scratch, ${COUNT[compactions]} compactions, ${COUNT[transfers]} leadership transfers$([ "$PARTITIONS" = 0 ] || echo ", ${COUNT[cuts]} links cut, ${COUNT[isolations]} members cut off, ${COUNT[slowdowns]} slow links, ${COUNT[heals]} heals"); ${#TXN[@]} transactions: ${COUNT[acked]} acknowledged, ${COUNT[refused]} refused, ${COUNT[uncertain]} uncertain, ${COUNT[stale]} deletes that a lagging member found nothing to do for; $(wc -l <"$W/rows.replay") rows at the end, $LOST lost or divergent"
    local result=pass f
    for f in "${fails[@]}"; do
        echo "FAIL: $f"
        result=FAIL
    done
    echo "events: $W/events, transactions: $W/txns"
    echo "log: $LOG ($(elapsed))"
    [ "$RECORD" = 0 ] || write_summary "$result"
    echo "chaos: $result"
    [ "$result" = pass ]
}

main "$@"
