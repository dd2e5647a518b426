#!/usr/bin/env bash
# Tests of "./build.sh soak": bad input, the verdict on made-up samples
# (flat, a leak of cached notifications, a growing RSS, a server that does
# not come back down), and a short run of stock and patched $DEFAULT_BASE
# side by side, after which neither server may hold anything of its
# clients; with a stand-in valgrind, that a checker's report of the
# patched server fails the run.  It asserts no speed and no slope of the
# short runs.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

WORK="$BUILD/t-soak"
rm -rf "$WORK"
mkdir -p "$WORK"

# --- Bad input: a one-line error and a non-zero exit. ----------------------
expect_error bad-duration "--duration needs an integer of at least 1" soak --duration 0
expect_error bad-clients "--clients needs an integer of at least 1" soak --clients x
expect_error missing-value "--interval needs a value" soak --interval
expect_error bad-option "unknown option '--bogus'" soak --bogus
expect_error bad-base "unsupported base '2.0.0'" soak --base 2.0.0
expect_error bad-warmup "--warmup must be shorter than --duration" soak --duration 10 --warmup 10
expect_error bad-pause "--pause needs a number of seconds" soak --pause soon
expect_error bad-window "--window needs an integer of at least 1" soak --window 0

# --- The verdict on made-up samples. ----------------------------------------
# samples DIR VARIANT RSS0 RSS_PER_SAMPLE LEFT_RSS [LEFT_COUNTERS]: 20
# samples 10 s apart, RSS growing linearly, then the "left" line.
samples() {
    local d="$1/$2" i
    mkdir -p "$d"
    for i in $(seq 0 19); do
        echo "$((i * 10)) run rss:$(($3 + i * $4)) cells:1000 sessions:10 monitors:2"
    done >"$d/samples"
    echo "200 left rss:$5 cells:1000 ${6:-}" >>"$d/samples"
}

# samples_spiky DIR VARIANT RSS0 RSS_PER_SAMPLE LEFT_RSS: as samples, but
# every third sample of the second half is 50 MB higher (large updates in
# flight), which makes the slope over every sample steep.
samples_spiky() {
    samples "$@"
    awk '$2 == "run" && NR > 10 && NR % 3 == 2 { sub(/rss:[0-9]+/, "rss:" (substr($3, 5) + 51200)) } 1' \
        "$1/$2/samples" >"$1/$2/samples.new"
    mv "$1/$2/samples.new" "$1/$2/samples"
}

# verdict_case NAME EXPECT-RESULT EXPECT-WHY-PATTERN: runs the verdict on
# $WORK/NAME with a 30 s warm-up, 20 s windows and the default bounds (and
# the run's length SOAK_DURATION, if the caller sets it).
verdict_case() {
    local out="$WORK/$1.verdict"
    if ! SOAK_WINDOW=20 "$TOP/bench/soak/verdict.sh" "$WORK/$1" 30 1024 4096 stock patched >"$out" 2>&1; then
        fail "verdict-$1" "verdict.sh failed: $(tail -n1 "$out")"
    elif ! grep -qx "result=$2" "$out"; then
        fail "verdict-$1" "expected result=$2, got $(grep '^result=' "$out")"
    elif ! grep -q "^why=$3" "$out"; then
        fail "verdict-$1" "unexpected reason: $(grep '^why=' "$out")"
    else
        ok "verdict-$1"
    fi
}

samples "$WORK/flat" stock 10000 0 10100
samples "$WORK/flat" patched 9000 0 9100
verdict_case flat pass ''

samples "$WORK/leak" stock 10000 0 10100
samples "$WORK/leak" patched 9000 0 9100 "notifications:3 sessions:0"
verdict_case leak FAIL 'patched kept notifications:3 once every client left'

# 8 kB per 10 s is 2880 kB/h.
samples "$WORK/grows" stock 10000 1 10100
samples "$WORK/grows" patched 9000 8 9100
verdict_case grows FAIL 'patched RSS floor grows 2[0-9]* kB/h faster'

# Stock's RSS falls (a backlog drains) while patched's grows by 2880 kB/h:
# a falling stock is no room for patched to grow.
samples "$WORK/stock-falls" stock 90000 -40 10100
samples "$WORK/stock-falls" patched 9000 8 9100
verdict_case stock-falls FAIL 'patched RSS floor grows 2[0-9]* kB/h faster'
# Both fall: a pass.
samples "$WORK/both-fall" stock 90000 -40 10100
samples "$WORK/both-fall" patched 29000 -10 9100
verdict_case both-fall pass ''

# Both grow 2880 kB/h (the workload's growth): the difference does not.
samples "$WORK/both-grow" stock 10000 8 10100
samples "$WORK/both-grow" patched 9000 8 9100
verdict_case both-grow pass ''

# Within the bound: 2 kB per 10 s more is 720 kB/h.
samples "$WORK/slow-growth" stock 10000 0 10100
samples "$WORK/slow-growth" patched 9000 2 9100
verdict_case slow-growth pass ''

# Spikes of large updates on a flat floor: a pass, though the slope over
# every sample is large; on a floor that grows 2880 kB/h: a FAIL.
samples "$WORK/spiky-flat" stock 10000 0 10100
samples_spiky "$WORK/spiky-flat" patched 9000 0 9100
verdict_case spiky-flat pass ''
samples "$WORK/spiky-leak" stock 10000 0 10100
samples_spiky "$WORK/spiky-leak" patched 9000 8 9100
verdict_case spiky-leak FAIL 'patched RSS floor grows 2[0-9]* kB/h faster'

# A floor that grows 1440 kB/h but jumps by 3 MB from one window to the
# next: within 3 standard errors, so within the noise, and the bound
# printed is that, not 1024.
samples "$WORK/noisy" stock 10000 0 10100
samples "$WORK/noisy" patched 9000 4 9100
awk '$2 == "run" { w = int($1 / 20); if (w % 2) sub(/rss:[0-9]+/, "rss:" (substr($3, 5) + 3000)) } 1' \
    "$WORK/noisy/patched/samples" >"$WORK/noisy/patched/samples.new"
mv "$WORK/noisy/patched/samples.new" "$WORK/noisy/patched/samples"
verdict_case noisy pass ''
if grep -qE '^patched_rss_slope_bound_kb_per_h=([2-9][0-9]{3}|[0-9]{5,})$' "$WORK/noisy.verdict"; then
    ok verdict-noisy-bound
else
    fail verdict-noisy-bound "$(grep -E 'floor_slope|bound' "$WORK/noisy.verdict" | tr '\n' ' ')"
fi
# The same samples as the record of an hour: the bound is the target,
# 1024 kB/h, whatever the noise, and 1440 kB/h is over it.
rm -rf "$WORK/noisy-hour"
cp -r "$WORK/noisy" "$WORK/noisy-hour"
SOAK_DURATION=3600 verdict_case noisy-hour FAIL \
    '.*patched RSS floor grows 1[0-9]* kB/h faster .*(bound 1024, the target)'
if grep -qx 'patched_rss_slope_bound_kb_per_h=1024' "$WORK/noisy-hour.verdict"; then
    ok verdict-hour-bound-is-the-target
else
    fail verdict-hour-bound-is-the-target "$(grep -E 'bound' "$WORK/noisy-hour.verdict" | tr '\n' ' ')"
fi

# lift DIR VARIANT FROM TO KB: adds KB to the RSS of the run samples from
# FROM to TO seconds: a window that a long update holds up all through.
lift() {
    awk -v from="$3" -v to="$4" -v kb="$5" '$2 == "run" && $1 >= from && $1 <= to {
        sub(/rss:[0-9]+/, "rss:" (substr($3, 5) + kb)) } 1' \
        "$1/$2/samples" >"$1/$2/samples.new"
    mv "$1/$2/samples.new" "$1/$2/samples"
}

# plateau DIR PATCHED_RSS_PER_SAMPLE: the record of an hour whose floors
# both rise by 4 MB in the last two windows, and stock's is held up by 17
# MB all through one window before.
plateau() {
    samples "$1" stock 10000 0 10100
    samples "$1" patched 9000 "$2" 9100
    lift "$1" stock 160 190 4000
    lift "$1" patched 160 190 4000
    lift "$1" stock 80 99 17000
}

# Least squares fitted to each side makes patched's grow faster; the
# difference of the floors, window by window, does not grow.
plateau "$WORK/stock-plateau" 0
SOAK_DURATION=3600 verdict_case stock-plateau pass ''
# The same with patched's floor growing 2880 kB/h: a FAIL.
plateau "$WORK/plateau-leak" 8
SOAK_DURATION=3600 verdict_case plateau-leak FAIL 'patched RSS floor grows 28[0-9][0-9] kB/h faster'

samples "$WORK/stays-up" stock 10000 0 10100
samples "$WORK/stays-up" patched 9000 0 19000
verdict_case stays-up FAIL 'patched RSS stays 9900 kB further above'

# counters DIR VARIANT KIND: adds "notifications:VALUE" to run sample i
# (0-19): i for KIND "rise", a spike of 100 * i on even samples for
# "spiky", both for "spiky-rise", KIND itself otherwise; and a "backlog"
# that spikes every third sample but whose floor stays 0.
counters() {
    awk -v e="$3" '$2 == "run" {
        i = NR - 1
        spike = i % 2 ? 0 : 100 * i
        v = e == "rise" ? i : e == "spiky" ? spike : e == "spiky-rise" ? i + spike : e
        $0 = $0 " notifications:" v " backlog:" (i % 3 ? 0 : 5000 + i * 900)
    } 1' "$1/$2/samples" >"$1/$2/samples.new"
    mv "$1/$2/samples.new" "$1/$2/samples"
}
# Notifications that pile up while the clients are there (one more a
# sample, so its floor grows by 360 an hour) fail, though they are gone
# once every client left, also under spikes that make the fit over every
# sample too noisy to tell; ones that come and go do not, nor does a
# backlog whose spikes grow; nor, with the same growth on both sides,
# a counter that grows.
samples "$WORK/counter-grows" stock 10000 0 10100
samples "$WORK/counter-grows" patched 9000 0 9100
counters "$WORK/counter-grows" stock 0
counters "$WORK/counter-grows" patched rise
verdict_case counter-grows FAIL 'patched counter floors grow faster than stock.s, beyond 3 standard errors: notifications +3[0-9][0-9]\.[0-9]/h'
samples "$WORK/counter-spiky" stock 10000 0 10100
samples "$WORK/counter-spiky" patched 9000 0 9100
counters "$WORK/counter-spiky" stock 0
counters "$WORK/counter-spiky" patched spiky
verdict_case counter-spiky pass ''
samples "$WORK/counter-spiky-rise" stock 10000 0 10100
samples "$WORK/counter-spiky-rise" patched 9000 0 9100
counters "$WORK/counter-spiky-rise" stock 0
counters "$WORK/counter-spiky-rise" patched spiky-rise
verdict_case counter-spiky-rise FAIL 'patched counter floors grow faster than stock.s, beyond 3 standard errors: notifications +3[0-9][0-9]\.[0-9]/h'
samples "$WORK/counter-both" stock 10000 0 10100
samples "$WORK/counter-both" patched 9000 0 9100
counters "$WORK/counter-both" stock rise
counters "$WORK/counter-both" patched rise
verdict_case counter-both pass ''
# Two windows after the warm-up have no standard error to tell noise by:
# the counters are not judged.
samples "$WORK/counter-short" stock 10000 0 10100
samples "$WORK/counter-short" patched 9000 0 9100
counters "$WORK/counter-short" stock 0
counters "$WORK/counter-short" patched rise
for v in stock patched; do
    awk '$2 == "left" || $1 <= 50' "$WORK/counter-short/$v/samples" >"$WORK/counter-short/$v/s"
    mv "$WORK/counter-short/$v/s" "$WORK/counter-short/$v/samples"
done
verdict_case counter-short pass ''
if grep -qx 'patched_counters_over_noise=not judged (2 windows after the warm-up)' "$WORK/counter-short.verdict"; then
    ok verdict-counter-short-not-judged
else
    fail verdict-counter-short-not-judged "$(grep counters_over "$WORK/counter-short.verdict")"
fi
if grep -qx 'patched_counters_over_noise=none' "$WORK/counter-both.verdict"; then
    ok verdict-counter-both-none-over
else
    fail verdict-counter-both-none-over "$(grep counters_over "$WORK/counter-both.verdict")"
fi

# nothing_left PREFIX SUMMARY: cases PREFIX-VARIANT-nothing-left and
# PREFIX-VARIANT-every-server-left-by-exit for each
# side: SUMMARY says the server held nothing of its clients once they left,
# and that every server left when ovs-appctl exit asked it to.
nothing_left() {
    local v
    for v in stock patched; do
        if grep -qx "${v}_left=none" "$2"; then
            ok "$1-$v-nothing-left"
        else
            fail "$1-$v-nothing-left" "$(grep "^${v}_left=" "$2")"
        fi
        if grep -qx "${v}_servers_not_by_exit=none" "$2"; then
            ok "$1-$v-every-server-left-by-exit"
        else
            fail "$1-$v-every-server-left-by-exit" "$(grep "^${v}_servers_not_by_exit=" "$2" || echo "no ${v}_servers_not_by_exit line")"
        fi
    done
}

# --- A short run of stock and patched side by side. -------------------------
# The bench trees of the default base (built by t-bench-monitor, or here).
RESULTS="$WORK/results"
if "$TOP/build.sh" soak --duration 20 --clients 10 --interval 2 --pause 0.2 \
        --target 500 --compact-every 8 --no-plot --results-dir "$RESULTS" \
        >"$WORK/run.out" 2>&1; then
    echo "soak run: result=pass"
else
    echo "soak run: $(grep -h '^result=\|^why=' "$RESULTS"/*.summary 2>/dev/null | tr '\n' ' ') (not asserted)"
fi
summary_file=$(ls "$RESULTS"/soak-"$DEFAULT_BASE"-20s-*.summary 2>/dev/null | head -n1 || true)
if [ -z "$summary_file" ]; then
    fail run-summary "no summary file; end of output: $(tail -n5 "$WORK/run.out")"
else
    ok run-summary
    nothing_left run "$summary_file"
    for v in stock patched; do
        n=$(grep -c ' run ' "${summary_file%.summary}.$v.samples" || true)
        if [ "$n" -ge 5 ]; then
            ok "run-$v-samples"
        else
            fail "run-$v-samples" "$n samples during a 20 s run every 2 s"
        fi
    done
    t=$(sed -n 's/^transactions=//p' "$summary_file")
    if [ "${t:-0}" -ge 10 ]; then
        ok run-transactions
    else
        fail run-transactions "only ${t:-0} transactions"
    fi
    # Both servers got the same transactions: the same number of cells.
    c1=$(awk '$2 == "left"' "${summary_file%.summary}.stock.samples" | tr ' ' '\n' | grep '^cells:' || true)
    c2=$(awk '$2 == "left"' "${summary_file%.summary}.patched.samples" | tr ' ' '\n' | grep '^cells:' || true)
    if [ -n "$c1" ] && [ "$c1" = "$c2" ]; then
        ok run-same-database
    else
        fail run-same-database "stock $c1, patched $c2"
    fi
fi

# --- The same with a 3-member cluster and a relay per side. ----------------
RESULTS="$WORK/results-cluster"
"$TOP/build.sh" soak --cluster --duration 20 --clients 10 --interval 2 \
    --pause 0.2 --target 500 --compact-every 8 --no-plot \
    --results-dir "$RESULTS" >"$WORK/cluster.out" 2>&1 || true
summary_file=$(ls "$RESULTS"/soak-"$DEFAULT_BASE"-20s-cluster-*.summary 2>/dev/null | head -n1 || true)
if [ -z "$summary_file" ]; then
    fail cluster-summary "no summary file; end of output: $(tail -n5 "$WORK/cluster.out")"
elif ! grep -qx 'cluster=3 members and a relay' "$summary_file"; then
    fail cluster-summary "$(grep '^cluster=' "$summary_file")"
else
    ok cluster-summary
    nothing_left cluster "$summary_file"
    for v in stock patched; do
        # The relay's clients, and every member's RSS and counters: in the
        # last sample, but for the raft log, which memory/show leaves out
        # while it is empty (just after a compaction): in some sample.
        samples=$(awk '$2 == "run"' "${summary_file%.summary}.$v.samples")
        last=$(tail -n1 <<<"$samples")
        missing=''
        for k in sessions: m1.rss: m2.rss: m3.rss: m1.cells:; do
            [[ " $last " == *" $k"* ]] || missing="$missing $k"
        done
        grep -q ' m3\.raft-log:' <<<"$samples" || missing="$missing m3.raft-log:"
        if [ -z "$missing" ]; then
            ok "cluster-$v-samples"
        else
            fail "cluster-$v-samples" "missing$missing in: ${last:0:300}"
        fi
    done
fi

# --- A checker's report fails the run: a stand-in valgrind. ----------------
# It writes the log that valgrind would, with an error for the patched
# side only, and for the patched side a sanitizer report where
# ASAN_OPTIONS's log_path points, then runs the server.
mkdir -p "$WORK/fakebin"
cat >"$WORK/fakebin/valgrind" <<'FAKE'
#!/bin/sh
log=
while [ $# -gt 0 ]; do
    case $1 in
    --log-file=*) log=${1#--log-file=} ;;
    --*) ;;
    *) break ;;
    esac
    shift
done
log=$(echo "$log" | sed "s/%p/$$/")
case $log in
*/patched/*)
    printf '==%s== ERROR SUMMARY: 1 errors from 1 contexts\n' $$ >"$log"
    asan=$(echo "$ASAN_OPTIONS" | tr ':' '\n' | sed -n 's/^log_path=//p')
    printf '==%s==ERROR: LeakSanitizer: detected memory leaks\n' $$ >"$asan.$$" ;;
*)
    printf '==%s== definitely lost: 0 bytes in 0 blocks\n==%s== ERROR SUMMARY: 0 errors from 0 contexts\n' $$ $$ >"$log" ;;
esac
exec "$@"
FAKE
chmod +x "$WORK/fakebin/valgrind"
RESULTS="$WORK/results-checker"
PATH="$WORK/fakebin:$PATH" "$TOP/build.sh" soak --valgrind --duration 6 --clients 4 \
    --interval 2 --pause 0.2 --target 200 --compact-every 4 --no-plot \
    --results-dir "$RESULTS" >"$WORK/checker.out" 2>&1 && rc=0 || rc=$?
summary_file=$(ls "$RESULTS"/soak-"$DEFAULT_BASE"-6s-*.summary 2>/dev/null | head -n1 || true)
if [ -z "$summary_file" ]; then
    fail checker-summary "no summary file; end of output: $(tail -n5 "$WORK/checker.out")"
else
    got="rc=$rc $(grep -E '^(kind|checker|stock_checker_reports|patched_checker_reports|result)=' "$summary_file" | tr '\n' ' ')"
    expect checker-report-fails-the-run "$got" \
        "rc=1 kind=soak-checked checker=valgrind stock_checker_reports=0 patched_checker_reports=2 result=FAIL "
    if grep -qE '^why=patched: .*/patched/ovsdb-server\.(valgrind|asan)\.[0-9]+: ' "$summary_file"; then
        ok checker-why-names-the-report
    else
        fail checker-why-names-the-report "$(grep '^why=' "$summary_file")"
    fi
fi

summary
