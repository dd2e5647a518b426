#!/usr/bin/env bash
# verdict.sh WORK WARMUP RSS_BOUND RETURN_BOUND VARIANT...
#
# Reads WORK/VARIANT/samples, written by bench/soak.sh: one line per sample,
# "SECONDS PHASE rss:KB COUNTER:VALUE...", PHASE "run" during the workload
# and "left" once every client has left.  Prints "key=value" lines:
#
#   VARIANT_rss_warmup_kb      RSS at the first sample after WARMUP seconds
#   VARIANT_rss_end_kb         RSS at the last sample of the workload
#   VARIANT_rss_left_kb        RSS once every client has left
#   VARIANT_rss_slope_kb_per_h growth of RSS after the warm-up, least squares
#   VARIANT_slopes             the same for every counter, per hour
#   VARIANT_left               counters of clients' state still non-zero once
#                              every client has left (none is the goal)
#   VARIANT_rss_slope_excess_kb_per_h
#                              for each variant after the first: its RSS
#                              slope minus the first's, or minus 0 if the
#                              first's shrinks (stock's RSS falls as a
#                              backlog it built drains: that is no room
#                              for the other to grow)
#   VARIANT_return_excess_kb   its (left - warmup) minus the first's, or
#                              minus 0 if the first's is below its warm-up
#   result, why                pass, or FAIL and the reasons: an RSS slope
#                              excess over RSS_BOUND, a return excess over
#                              RETURN_BOUND, or anything left
set -euo pipefail

[ $# -ge 5 ] || { echo "usage: verdict.sh WORK WARMUP RSS_BOUND RETURN_BOUND VARIANT..." >&2; exit 2; }
work=$1 warmup=$2 rss_bound=$3 return_bound=$4
shift 4

# The counters of memory/show that hold the state of clients: all of them
# must be gone once every client has left.
CLIENT_STATE="monitors sessions json-caches notifications backlog"

why=()
first=''
for v in "$@"; do
    f="$work/$v/samples"
    [ -s "$f" ] || { echo "verdict.sh: no samples in $f" >&2; exit 2; }
    awk -v v="$v" -v warmup="$warmup" -v state="$CLIENT_STATE" '
    # The least-squares slope, per hour, of counter "key" over the samples
    # after the warm-up; a counter missing from a sample is 0 there.
    function fit(key,    mt, mv, sxy, sxx, i) {
        if (n < 2) {
            return 0
        }
        mt = mv = 0
        for (i = 1; i <= n; i++) {
            mt += T[i]
            mv += V[i, key]
        }
        mt /= n
        mv /= n
        sxy = sxx = 0
        for (i = 1; i <= n; i++) {
            sxy += (T[i] - mt) * (V[i, key] - mv)
            sxx += (T[i] - mt) ^ 2
        }
        return sxx ? sxy / sxx * 3600 : 0
    }
    {
        t = $1
        phase = $2
        delete row
        for (i = 3; i <= NF; i++) {
            split($i, kv, ":")
            row[kv[1]] = kv[2]
        }
        if (phase == "left") {
            rss_left = row["rss"]
            m = split(state, names, " ")
            for (i = 1; i <= m; i++) {
                if (row[names[i]] + 0 != 0) {
                    left = left (left ? "," : "") names[i] ":" row[names[i]]
                }
            }
            next
        }
        rss_end = row["rss"]
        if (t < warmup) {
            next
        }
        if (rss_warmup == "") {
            rss_warmup = row["rss"]
        }
        n++
        T[n] = t
        for (k in row) {
            keys[k] = 1
            V[n, k] = row[k] + 0
        }
    }
    END {
        printf "%s_rss_warmup_kb=%s\n", v, rss_warmup
        printf "%s_rss_end_kb=%s\n", v, rss_end
        printf "%s_rss_left_kb=%s\n", v, rss_left
        printf "%s_rss_slope_kb_per_h=%.0f\n", v, fit("rss")
        slopes = ""
        for (k in keys) {
            if (k != "rss") {
                slopes = slopes (slopes ? " " : "") sprintf("%s:%.1f", k, fit(k))
            }
        }
        printf "%s_slopes=%s\n", v, slopes
        printf "%s_left=%s\n", v, left ? left : "none"
    }' "$f" >"$work/$v.verdict"
    cat "$work/$v.verdict"
    [ -n "$first" ] || first=$v
done

get() {
    sed -n "s/^$2=//p" "$work/$1.verdict"
}
# Every variant after the first against the first (stock).
for v in "$@"; do
    [ "$v" != "$first" ] || continue
    ref_slope=$(get "$first" "${first}_rss_slope_kb_per_h")
    [ "$ref_slope" -ge 0 ] || ref_slope=0
    ref_return=$(( $(get "$first" "${first}_rss_left_kb") - $(get "$first" "${first}_rss_warmup_kb") ))
    [ "$ref_return" -ge 0 ] || ref_return=0
    slope_excess=$(( $(get "$v" "${v}_rss_slope_kb_per_h") - ref_slope ))
    return_excess=$(( $(get "$v" "${v}_rss_left_kb") - $(get "$v" "${v}_rss_warmup_kb") - ref_return ))
    echo "${v}_rss_slope_excess_kb_per_h=$slope_excess"
    echo "${v}_return_excess_kb=$return_excess"
    [ "$slope_excess" -le "$rss_bound" ] ||
        why+=("$v RSS grows $slope_excess kB/h faster than $first's (bound $rss_bound)")
    [ "$return_excess" -le "$return_bound" ] ||
        why+=("$v RSS stays $return_excess kB further above its warm-up than $first's once the clients left (bound $return_bound)")
done
for v in "$@"; do
    l=$(get "$v" "${v}_left")
    [ "$l" = none ] || why+=("$v kept $l once every client left")
done
if [ ${#why[@]} -eq 0 ]; then
    echo "result=pass"
    echo "why="
else
    echo "result=FAIL"
    (IFS=';'; echo "why=${why[*]}")
fi
