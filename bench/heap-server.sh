# shellcheck shell=bash
# Sourced by bench/heap-load.sh and bench/heap-compact.sh: the scratch
# directory and the ovsdb-server they measure.  Set BINDIR first.

die() { echo "error: $*" >&2; exit 1; }

# heap_need_bins NAME...: each program is in BINDIR.
heap_need_bins() {
    local b
    for b in "$@"; do
        [ -x "$BINDIR/$b" ] || die "no $b in '$BINDIR'"
    done
}

RUN=$(mktemp -d)
SERVER=
heap_cleanup() {
    if [ -n "$SERVER" ] && kill -0 "$SERVER" 2>/dev/null; then
        kill "$SERVER" 2>/dev/null || true
    fi
    rm -rf "$RUN"
}
trap heap_cleanup EXIT

# server_start DIR [WRAPPER...]: ovsdb-server on DIR/db, under WRAPPER
# (heaptrack, valgrind, ...) if given, with its control socket, remote and
# log in DIR; returns once it answers on its control socket.  Sets SERVER
# (the wrapper's pid when there is one).
server_start() {
    local dir=$1
    shift
    rm -f "$dir/ctl" "$dir/sock"
    "$@" "$BINDIR/ovsdb-server" "$dir/db" --no-chdir \
        --unixctl="$dir/ctl" --remote="punix:$dir/sock" \
        --log-file="$dir/log" -vconsole:off >"$dir/tool.out" 2>&1 &
    SERVER=$!
    for _ in $(seq 1 600); do
        if [ -S "$dir/ctl" ] &&
           "$BINDIR/ovs-appctl" -t "$dir/ctl" version >/dev/null 2>&1; then
            return 0
        fi
        kill -0 "$SERVER" 2>/dev/null || die "server exited; see $dir/tool.out"
        sleep 0.5
    done
    die "server not ready after 300 s"
}

# server_stop DIR: asks the server of DIR to exit and waits for it.
server_stop() {
    "$BINDIR/ovs-appctl" -t "$1/ctl" exit >/dev/null 2>&1 || true
    wait "$SERVER" || true
    SERVER=
}

# vm_status PID FIELD: a /proc/PID/status figure (VmHWM, VmRSS), "N kB".
vm_status() {
    sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status"
}
