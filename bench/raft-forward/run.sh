#!/bin/bash
# run.sh BINDIR OUT [N] [MEASURE_C]
#   BINDIR: an OVS build tree (binaries in ovsdb/, utilities/)
#   OUT:    output directory (callgrind files, logs, coverage)
#   N:      number of transactions sent through follower B (default 2000)
#   MEASURE_C: if "yes" (default), follower C also runs under callgrind.
# Three-server cluster: A = leader (under callgrind from the start), B =
# follower through which a client sends N transactions (each becomes an
# execute_command_request to A), C = passive follower (receives only
# append_request etc.).
set -euo pipefail
BIN=$(cd "$1" && pwd); OUT=$2; N=${3:-2000}; MEASURE_C=${4:-yes}
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d /tmp/dlex-run.XXXXXX)
export OVS_RUNDIR=$T OVS_LOGDIR=$T OVS_DBDIR=$T OVS_SYSCONFDIR=$T OVS_PKGDATADIR=$T
SERVER=$BIN/ovsdb/ovsdb-server TOOL=$BIN/ovsdb/ovsdb-tool
APPCTL=$BIN/utilities/ovs-appctl
cd "$T"
read -r PA PB PC < <(/usr/bin/python3 -c '
import socket
ss=[socket.socket() for _ in range(3)]
for s in ss: s.bind(("127.0.0.1",0))
print(*[s.getsockname()[1] for s in ss])')
cleanup() {  # on failure: stop only the servers this script started
    local p
    for p in "${PID_A:-}" "${PID_B:-}" "${PID_C:-}"; do
        [ -z "$p" ] || kill "$p" 2>/dev/null || true
    done
}
on_exit() {
    local rc=$?
    if [ "$rc" != 0 ]; then log "FAILED rc=$rc"; cleanup; fi
}
trap on_exit EXIT
log() { echo "[$(date +%T)] $*" >> "$OUT/run.log"; }
: > "$OUT/run.log"
log "tmp=$T bin=$BIN N=$N ports $PA $PB $PC"

waitfor() {  # waitfor SECONDS CMD... : retry until CMD succeeds
    local t=$1; shift
    for ((i = 0; i < t * 5; i++)); do "$@" >/dev/null 2>&1 && return 0; sleep 0.2; done
    log "timeout waiting for: $*"; return 1
}
status_has() { $APPCTL -t "$T/$1.ctl" cluster/status dlex 2>/dev/null | grep -q "$2"; }

start() {  # start NAME CALLGRIND(yes/no) EXTRA...
    local name=$1 cg=$2; shift 2
    local pre=()
    [ "$cg" = yes ] && pre=(valgrind --tool=callgrind
                            "--callgrind-out-file=$OUT/$name.callgrind"
                            "--log-file=$OUT/$name.valgrind.log")
    nice -n 19 "${pre[@]}" "$SERVER" --no-chdir --unixctl="$T/$name.ctl" --remote="punix:$T/$name.sock" \
        --log-file="$T/$name.log" "$@" "$T/$name.db" \
        > "$T/$name.stdout" 2>&1 &
    eval "PID_$name=$!"
}

"$TOOL" create-cluster A.db "$HERE/schema.ovsschema" "tcp:127.0.0.1:$PA"
start A yes
waitfor 120 status_has A "Role: leader"
log "A is leader"
# Raise the election timer (only doubles per call) while A is alone.
for t in 2000 4000 8000 16000 32000; do
    waitfor 120 "$APPCTL" -t "$T/A.ctl" cluster/change-election-timer dlex "$t"
    waitfor 120 status_has A "Election timer: $t"
done
log "election timer 32000"

"$TOOL" join-cluster B.db dlex "tcp:127.0.0.1:$PB" "tcp:127.0.0.1:$PA"
start B no -vjsonrpc:file:dbg
waitfor 300 status_has B "Status: cluster member"
log "B joined"
"$TOOL" join-cluster C.db dlex "tcp:127.0.0.1:$PC" "tcp:127.0.0.1:$PA"
start C "$MEASURE_C"
waitfor 600 status_has C "Status: cluster member"
log "C joined"
waitfor 120 status_has B "Role: follower"
waitfor 120 status_has C "Role: follower"
"$APPCTL" -t "$T/A.ctl" cluster/status dlex > "$OUT/A.status.before" 2>&1
sleep 2

log "client start"
/usr/bin/python3 "$HERE/client.py" "$T/B.sock" "$N" > "$OUT/client.out" 2>&1 || log "client failed"
log "client done: $(tail -n 1 "$OUT/client.out")"
sleep 2
# Optional idle time (to measure the leader's instructions per idle second).
if [ -n "${IDLE:-}" ]; then log "idle $IDLE s"; sleep "$IDLE"; fi

for s in A B C; do
    "$APPCTL" -t "$T/$s.ctl" cluster/status dlex > "$OUT/$s.status" 2>&1 || true
    "$APPCTL" -t "$T/$s.ctl" coverage/show > "$OUT/$s.coverage" 2>&1 || true
done
# Stop the callgrind'ed servers together (so that neither sees an election),
# then B.
"$APPCTL" -t "$T/A.ctl" exit & "$APPCTL" -t "$T/C.ctl" exit &
wait "$PID_A" "${PID_C:-}" || true
"$APPCTL" -t "$T/B.ctl" exit || true
wait "$PID_B" || true
log "stopped"

# Checks.
grep -c 'send notification, method="execute_command_request"' B.log > "$OUT/B.exec_requests_sent" || true
grep -m3 'send notification, method="execute_command_request"' B.log > "$OUT/B.exec_sample" || true
grep -c 'does not match prerequisite' A.log > "$OUT/A.prereq_mismatch" || true
grep -ci 'election\|term' A.log > "$OUT/A.election_lines" || true
cp A.log "$OUT/A.log"; [ -f C.log ] && cp C.log "$OUT/C.log"
"$TOOL" cluster-to-standalone s.db A.db
"$TOOL" query s.db '["dlex",{"op":"select","table":"T","where":[],"columns":["n"]}]' \
    | /usr/bin/python3 -c 'import json,sys; print(len(json.load(sys.stdin)[0]["rows"]))' > "$OUT/A.rows"
/usr/bin/python3 "$HERE/datasize.py" A.db > "$OUT/A.datasize"
log "rows on A: $(cat "$OUT/A.rows"), exec requests sent by B: $(cat "$OUT/B.exec_requests_sent"), prereq mismatches on A: $(cat "$OUT/A.prereq_mismatch")"
cd / && rm -rf "$T"
