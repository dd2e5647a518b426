#!/usr/bin/env bash
# verdict.sh WORK WARMUP RSS_BOUND RETURN_BOUND VARIANT...
#
# Reads WORK/VARIANT/samples, written by bench/soak.sh: one line per sample,
# "SECONDS PHASE rss:KB COUNTER:VALUE...", PHASE "run" during the workload
# and "left" once every client has left.  Prints "key=value" lines:
#
#   VARIANT_rss_warmup_kb      the lowest RSS of the first window after WARMUP
#                              seconds (a spike of a large update may come
#                              at any sample)
#   VARIANT_rss_end_kb         RSS at the last sample of the workload
#   VARIANT_rss_left_kb        RSS once every client has left
#   VARIANT_rss_slope_kb_per_h growth of RSS after the warm-up, least squares
#                              over every sample (spikes of large updates
#                              make it noisy: for information)
#   VARIANT_floor_slope_kb_per_h
#                              growth of the RSS floor after the warm-up: the
#                              least-squares slope of the lowest RSS of each
#                              window of SOAK_WINDOW seconds (default 300),
#                              which a leak raises and a spike does not (for
#                              information: a window that a long update held
#                              up all through moves it)
#   VARIANT_floor_slope_se_kb_per_h
#                              its standard error
#   VARIANT_rss_floors         those floors, "SECONDS:KB ..." (window centres)
#   VARIANT_slopes             the same for every counter, per hour
#   VARIANT_counter_floor_slopes
#                              for every counter but RSS, "NAME:SLOPE:SE":
#                              the slope per hour of its floor (its lowest
#                              value of each window) and its standard error
#   VARIANT_left               counters of clients' state still non-zero once
#                              every client has left (none is the goal)
#   FIRST_floor_median_slope_kb_per_h
#                              the first's floor growth as the median of the
#                              slopes between every two windows (Theil-Sen)
#   VARIANT_rss_slope_excess_kb_per_h
#                              for each variant after the first: how much
#                              faster its floor grows than the first's, as
#                              the Theil-Sen slope of the difference of the
#                              two floors window by window (both servers
#                              get the same transactions at the same time);
#                              if the first's floor falls (stock's RSS falls
#                              as a backlog it built drains: that is no room
#                              for the other to grow), of its own floor.  A
#                              window that a long update held up all through,
#                              on either side, moves a median of slopes
#                              little; a leak lifts every later window
#   VARIANT_rss_slope_excess_of
#                              which of the two that excess is of
#   VARIANT_rss_slope_noise_kb_per_h
#                              the noise of that excess: how far from it the
#                              farther end of Sen's interval lies, at 3
#                              standard deviations of Kendall's statistic
#                              (0 with fewer than 3 windows)
#   VARIANT_rss_slope_bound_kb_per_h
#                              the bound on that excess: RSS_BOUND.  In a run
#                              shorter than an hour (SOAK_DURATION seconds,
#                              default 0) the noise if that is more: a short
#                              run cannot tell RSS_BOUND from the noise, and
#                              only shows that nothing grows beyond it
#   VARIANT_rss_slope_bound_basis
#                              "target" (RSS_BOUND) or "noise"
#   VARIANT_counters_over_noise
#                              for each variant after the first: the
#                              counters whose floor grows faster than the
#                              first's (or than flat, where the first has
#                              none or falls) by more than 3 standard errors
#                              of the difference, or "none"; not judged with
#                              fewer than 3 windows after the warm-up
#   VARIANT_return_excess_kb   its (left - warmup) minus the first's, or
#                              minus 0 if the first's is below its warm-up
#   result, why                pass, or FAIL and the reasons: an RSS slope
#                              excess over its bound, a counter over the
#                              noise, a return excess over RETURN_BOUND, or
#                              anything left
set -euo pipefail

[ $# -ge 5 ] || { echo "usage: verdict.sh WORK WARMUP RSS_BOUND RETURN_BOUND VARIANT..." >&2; exit 2; }
work=$1 warmup=$2 rss_bound=$3 return_bound=$4
shift 4

# The counters of memory/show that hold the state of clients: all of them
# must be gone once every client has left.
CLIENT_STATE="monitors sessions json-caches notifications backlog"

WINDOW=${SOAK_WINDOW:-300}
why=()
first=''
for v in "$@"; do
    f="$work/$v/samples"
    [ -s "$f" ] || { echo "verdict.sh: no samples in $f" >&2; exit 2; }
    awk -v v="$v" -v warmup="$warmup" -v state="$CLIENT_STATE" -v window="$WINDOW" '
    # lsq(m): the least-squares fit of Y[1..m] against X[1..m] (seconds):
    # its slope per hour in "slope", and the standard error of the slope
    # per hour in "se" (0 with fewer than 3 points); both 0 if there is
    # no fit.
    function lsq(m,    k, mx, my, sxy, sxx, a, e, res) {
        slope = se = 0
        if (m < 2) {
            return
        }
        mx = my = 0
        for (k = 1; k <= m; k++) {
            mx += X[k]
            my += Y[k]
        }
        mx /= m
        my /= m
        sxy = sxx = 0
        for (k = 1; k <= m; k++) {
            sxy += (X[k] - mx) * (Y[k] - my)
            sxx += (X[k] - mx) ^ 2
        }
        if (!sxx) {
            return
        }
        slope = sxy / sxx
        a = my - slope * mx
        res = 0
        for (k = 1; k <= m; k++) {
            e = Y[k] - a - slope * X[k]
            res += e * e
        }
        se = m > 2 ? sqrt(res / (m - 2) / sxx) * 3600 : 0
        slope *= 3600
    }
    # The slope, per hour, of counter "key" over the samples after the
    # warm-up; a counter missing from a sample is 0 there.
    function fit(key,    i) {
        for (i = 1; i <= n; i++) {
            X[i] = T[i]
            Y[i] = V[i, key]
        }
        lsq(n)
        return slope
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
        if (rss_warmup == "" || (int(t / window) == first_w && row["rss"] + 0 < rss_warmup)) {
            rss_warmup = row["rss"] + 0
            first_w = int(t / window)
        }
        n++
        T[n] = t
        w = int(t / window)
        NW[w]++
        for (k in row) {
            keys[k] = 1
            V[n, k] = row[k] + 0
            if (!((w, k) in CF) || row[k] + 0 < CF[w, k]) {
                CF[w, k] = row[k] + 0
            }
            CN[w, k]++
        }
    }
    # The floor of "key" (rss or a counter): its lowest value in each
    # window after the warm-up (0 in a window where a sample lacks it),
    # fitted with lsq().  Returns the number of windows.
    function floor_fit(key,    w, m) {
        m = 0
        for (w in NW) {
            m++
            X[m] = (w + 0.5) * window
            Y[m] = CN[w, key] == NW[w] ? CF[w, key] : 0
        }
        lsq(m)
        return m
    }
    END {
        printf "%s_rss_warmup_kb=%s\n", v, rss_warmup
        printf "%s_rss_end_kb=%s\n", v, rss_end
        printf "%s_rss_left_kb=%s\n", v, rss_left
        printf "%s_rss_slope_kb_per_h=%.0f\n", v, fit("rss")
        windows = floor_fit("rss")
        printf "%s_floor_slope_kb_per_h=%.0f\n", v, slope
        printf "%s_floor_slope_se_kb_per_h=%.0f\n", v, se
        floors = ""
        for (k = 1; k <= windows; k++) {
            floors = floors (floors ? " " : "") X[k] ":" Y[k]
        }
        printf "%s_rss_floors=%s\n", v, floors
        slopes = ""
        for (k in keys) {
            if (k != "rss") {
                slopes = slopes (slopes ? " " : "") sprintf("%s:%.1f", k, fit(k))
            }
        }
        printf "%s_slopes=%s\n", v, slopes
        floors = ""
        for (k in keys) {
            if (k !~ /(^|\.)rss$/) {
                floor_fit(k)
                floors = floors (floors ? " " : "") sprintf("%s:%.1f:%.1f", k, slope, se)
            }
        }
        printf "%s_counter_floor_slopes=%s\n", v, floors
        printf "%s_counter_floor_windows=%d\n", v, windows
        printf "%s_left=%s\n", v, left ? left : "none"
    }' "$f" >"$work/$v.verdict"
    cat "$work/$v.verdict"
    [ -n "$first" ] || first=$v
done

get() {
    sed -n "s/^$2=//p" "$work/$1.verdict"
}
# counters_over REF CAND: the counters of CAND ("NAME:SLOPE:SE ...", floor
# slopes per hour) whose floor grows faster than REF's (0 for a counter
# REF lacks; a REF floor that falls counts as flat, as for RSS) by more
# than 3 standard errors of the difference: "NAME +EXCESS/h (noise N)".
counters_over() {
    awk -v ref="$1" -v cand="$2" 'BEGIN {
        n = split(ref, a, " ")
        for (i = 1; i <= n; i++) {
            split(a[i], f, ":")
            rs[f[1]] = f[2] > 0 ? f[2] : 0
            rse[f[1]] = f[3]
        }
        n = split(cand, a, " ")
        for (i = 1; i <= n; i++) {
            split(a[i], f, ":")
            excess = f[2] - rs[f[1]]
            noise = 3 * sqrt(f[3] ^ 2 + rse[f[1]] ^ 2)
            if (excess > noise) {
                out = out (out ? ", " : "") sprintf("%s +%.1f/h (noise %.1f)", f[1], excess, noise)
            }
        }
        print out
    }'
}

# sen_fit "X:Y ...": the growth per hour of the points (X in seconds) as
# the median of the slopes between every two of them (Theil-Sen), which
# a window whose floor a long update held up moves little, where least
# squares follows it; and its noise: how far the ends of Sen's interval
# for that median, at 3 standard deviations of Kendall's statistic, lie
# from it (the larger), 0 with fewer than 3 points.  Prints "SLOPE NOISE".
sen_fit() {
    local n
    n=$(wc -w <<<"$1")
    awk -v pts="$1" 'BEGIN {
        n = split(pts, p, " ")
        for (i = 1; i <= n; i++) {
            split(p[i], xy, ":")
            x[i] = xy[1]
            y[i] = xy[2]
        }
        for (i = 1; i <= n; i++) {
            for (j = i + 1; j <= n; j++) {
                if (x[j] != x[i]) {
                    printf "%.3f\n", (y[j] - y[i]) / (x[j] - x[i]) * 3600
                }
            }
        }
    }' | LC_ALL=C sort -g | awk -v n="$n" '
    { s[NR] = $1 }
    END {
        m = NR
        if (m == 0) {
            print "0 0"
            exit
        }
        med = m % 2 ? s[(m + 1) / 2] : (s[m / 2] + s[m / 2 + 1]) / 2
        noise = 0
        if (n >= 3) {
            lo = int((m - 3 * sqrt(n * (n - 1) * (2 * n + 5) / 18)) / 2)
            lo = lo < 1 ? 1 : lo
            noise = med - s[lo] > s[m + 1 - lo] - med ? med - s[lo] : s[m + 1 - lo] - med
        }
        printf "%.0f %.0f\n", med, noise
    }'
}

# paired REF CAND: the points "X:Y" of CAND's floors minus REF's, for the
# windows both have.
paired() {
    awk -v ref="$1" -v cand="$2" 'BEGIN {
        n = split(ref, a, " ")
        for (i = 1; i <= n; i++) {
            split(a[i], xy, ":")
            r[xy[1]] = xy[2]
        }
        n = split(cand, a, " ")
        for (i = 1; i <= n; i++) {
            split(a[i], xy, ":")
            if (xy[1] in r) {
                out = out (out ? " " : "") xy[1] ":" (xy[2] - r[xy[1]])
            }
        }
        print out
    }'
}

# Every variant after the first against the first (stock).  Both get the
# same transactions at the same time, so what lifts both floors in a
# window is the workload's: the excess is the growth of the difference of
# their floors, window by window.  Where stock's floor falls (a backlog it
# built drains), that is no room for the other to grow: the excess is the
# growth of the other's own floor.
ref_floors=$(get "$first" "${first}_rss_floors")
read -r ref_slope _ <<<"$(sen_fit "$ref_floors")"
echo "${first}_floor_median_slope_kb_per_h=$ref_slope"
for v in "$@"; do
    [ "$v" != "$first" ] || continue
    if [ "$ref_slope" -ge 0 ]; then
        of="the difference of the floors"
        series=$(paired "$ref_floors" "$(get "$v" "${v}_rss_floors")")
    else
        of="its own floor ($first's falls)"
        series=$(get "$v" "${v}_rss_floors")
    fi
    read -r slope_excess noise <<<"$(sen_fit "$series")"
    bound=$rss_bound basis=target
    if [ "${SOAK_DURATION:-0}" -lt 3600 ] && [ "$noise" -gt "$bound" ]; then
        bound=$noise basis=noise
    fi
    ref_return=$(( $(get "$first" "${first}_rss_left_kb") - $(get "$first" "${first}_rss_warmup_kb") ))
    [ "$ref_return" -ge 0 ] || ref_return=0
    return_excess=$(( $(get "$v" "${v}_rss_left_kb") - $(get "$v" "${v}_rss_warmup_kb") - ref_return ))
    echo "${v}_rss_slope_excess_kb_per_h=$slope_excess"
    echo "${v}_rss_slope_excess_of=$of"
    echo "${v}_rss_slope_noise_kb_per_h=$noise"
    echo "${v}_rss_slope_bound_kb_per_h=$bound"
    echo "${v}_rss_slope_bound_basis=$basis"
    echo "${v}_return_excess_kb=$return_excess"
    [ "$slope_excess" -le "$bound" ] ||
        why+=("$v RSS floor grows $slope_excess kB/h faster than $first's (bound $bound, the $basis)")
    [ "$return_excess" -le "$return_bound" ] ||
        why+=("$v RSS stays $return_excess kB further above its warm-up than $first's once the clients left (bound $return_bound)")
    over=$(counters_over "$(get "$first" "${first}_counter_floor_slopes")" \
                         "$(get "$v" "${v}_counter_floor_slopes")")
    windows=$(get "$v" "${v}_counter_floor_windows")
    if [ "$windows" -lt 3 ]; then
        # Two floors have no standard error: nothing to tell noise by.
        echo "${v}_counters_over_noise=not judged ($windows windows after the warm-up)"
        over=
    else
        echo "${v}_counters_over_noise=${over:-none}"
    fi
    [ -z "$over" ] ||
        why+=("$v counter floors grow faster than $first's, beyond 3 standard errors: $over")
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
