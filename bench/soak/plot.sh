#!/usr/bin/env bash
# plot.sh PREFIX VARIANT...: PREFIX.png, the RSS of each variant and its
# cached notifications, json cache entries and backlog over time, from the
# sample files PREFIX.VARIANT.samples that bench/soak.sh writes.
set -euo pipefail

prefix=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# columns VARIANT: "seconds rss_MB notifications json-caches backlog_MB".
columns() {
    awk '$2 == "run" {
        delete row
        for (i = 3; i <= NF; i++) {
            split($i, kv, ":")
            row[kv[1]] = kv[2]
        }
        printf "%d %.2f %d %d %.3f\n", $1, row["rss"] / 1024,
               row["notifications"], row["json-caches"],
               row["backlog"] / 1048576
    }' "$prefix.$1.samples" >"$tmp/$1.dat"
}

rss='' counters=''
for v in "$@"; do
    columns "$v"
    rss="$rss${rss:+, }'$tmp/$v.dat' using (\$1/60):2 with lines title '$v RSS (MB)'"
    counters="$counters${counters:+, }'$tmp/$v.dat' using (\$1/60):3 with lines title '$v notifications', '$tmp/$v.dat' using (\$1/60):4 with lines title '$v json-caches', '$tmp/$v.dat' using (\$1/60):5 with lines title '$v backlog (MB)'"
done
gnuplot <<EOF
set terminal png size 1000,800
set output '$prefix.png'
set multiplot layout 2,1 title '$(basename "$prefix")'
set xlabel 'minutes'
set key outside right
plot $rss
plot $counters
unset multiplot
EOF
