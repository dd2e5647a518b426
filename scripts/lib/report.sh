# ./build.sh report: one table per base of the newest result file of each
# kind.  Reads result files only.
# Functions only: sourcing it runs nothing; it loads what it needs.
[ -z "${_ojp_lib_report:-}" ] || return 0
_ojp_lib_report=1
# shellcheck source=common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# report: one table per base of the newest result file of each kind.
# Reads result files only.
report() {
    local f base kinds results
    declare -A newest=()
    results=$(results_dir records)
    for f in "$results"/*.summary; do
        [ -f "$f" ] || continue
        local k b d
        k=$(report_kind "$f")
        b=$(sed -n 's/^base=//p' "$f")
        d=$(sed -n 's/^date=//p' "$f")
        if [ -z "$k" ] || [ -z "$b" ] || [ -z "$d" ]; then continue; fi
        if [ -z "${newest[$b/$k]:-}" ] ||
           [[ $d > $(sed -n 's/^date=//p' "${newest[$b/$k]}") ]]; then
            newest[$b/$k]=$f
        fi
    done
    kinds="check regress bisect sanitize valgrind fuzz fuzz-longest differential hostile chaos chaos-partitions soak soak-cluster soak-checked-asan soak-checked-valgrind ovn"
    for base in $SUPPORTED_BASES; do
        local cur t current='' older='' unnamed='' none=''
        cur=$(series_tree "$base")
        echo "== OVS $base =="
        printf '%-38s %-18s %-20s %s\n' figure value date file
        for k in $kinds; do
            f=${newest[$base/$k]:-}
            if [ -z "$f" ]; then
                printf '%-38s %-18s %-20s %s\n' "$k" "no result" - -
                none+=" $k"
                continue
            fi
            { report_rows "$f"; report_series_row "$f" "$base"; } |
                while IFS='|' read -r name value; do
                    printf '%-38s %-18s %-20s %s\n' "$name" "$value" \
                        "$(sed -n 's/^date=//p' "$f")" "$(basename "$f")"
                done
            t=$(result_tree "$f")
            if [ "$k" = fuzz-longest ]; then
                :   # the longest run of any series
            elif [ -z "$t" ]; then
                unnamed+=" $k"
            elif [ "$t" = "$cur" ]; then
                current+=" $k"
            else
                older+=" $k"
            fi
        done
        if [ -z "$cur" ]; then
            echo "series: the current series' tree is unknown until ./build.sh fetch $base; each row names its tree"
        else
            echo "series: tree ${cur:0:12} is patches/$base/series on base/$base"
            echo "  made on it:${current:- nothing}"
            echo "  made on an older series:${older:- nothing}"
        fi
        [ -z "$unnamed" ] || echo "  made on a tree the result does not name:$unnamed"
        echo "  no result:${none:- none}"
        echo
    done
}

# report_kind SUMMARY: the proof a result file is a row of: its kind, but
# a soak under each checker is a proof of its own, and so are a soak of
# clusters (3 members and a relay a side) and a chaos run with partitions
# (members in network namespaces).
report_kind() {
    local k
    k=$(sed -n 's/^kind=//p' "$1")
    case $k in
    soak-checked) k="soak-checked-$(sed -n 's/^checker=//p' "$1")" ;;
    soak) ! grep -q '^cluster=[1-9]' "$1" || k='soak-cluster' ;;
    chaos) ! grep -q '^network=netns' "$1" || k=chaos-partitions ;;
    esac
    echo "$k"
}

# series_tree BASE: the git tree that patches/BASE/series makes of
# base/BASE in build/ovs-BASE, built in an index of its own (the work
# tree, its index and its branches are not touched).  Nothing if the base
# is not fetched or a patch does not apply.
series_tree() {
    local base=$1 git="$BUILD/ovs-$1" idx
    git -C "$git" rev-parse -q --verify "base/$base^{commit}" >/dev/null 2>&1 || return 0
    idx=$(mktemp "${TMPDIR:-/tmp}/ovs-json-perf-index.XXXXXX")
    (
        export GIT_INDEX_FILE=$idx
        git -C "$git" read-tree "base/$base" || exit 1
        for p in $(series_patches "$base"); do
            git -C "$git" apply --cached "$PATCHES/$base/$p" || exit 1
        done
        git -C "$git" write-tree
    ) 2>/dev/null || true
    rm -f "$idx"
}

# result_tree SUMMARY: the patched tree a result file was made on (hostile
# and differential name it the candidate's).
result_tree() {
    sed -n 's/^patched_tree=//p; s/^candidate_tree=//p' "$1" | head -n1
}

# report_series_row SUMMARY BASE: which patches a result was made with,
# against the series patches/BASE/series lists now.
report_series_row() {
    local n tree
    n=$(sed -n 's/^patches=//p' "$1")
    tree=$(sed -n 's/^patched_tree=//p' "$1")
    [ -n "$n" ] || return 0
    echo "$(sed -n 's/^kind=//p' "$1"): patches applied|$n of $(series_patches "$2" | wc -l), tree ${tree:0:12}"
}

# report_rows SUMMARY: "FIGURE|VALUE" lines of a result file.
report_rows() {
    local f=$1
    val() { sed -n "s/^$1=//p" "$f"; }
    case $(val kind) in
    check)
        echo "build --enable-Werror, make check|$(val result), $(val tests_passed) tests passed ($(val selection))"
        ;;
    bisect)
        echo "series bisects (-k json at each patch)|$(val result), $(val commits_built) commits built$([ "$(val commits_reused)" -gt 0 ] 2>/dev/null && echo " ($(val commits_reused) of them by an earlier record of their trees)")"
        ;;
    regress)
        echo "tests run (stock / patched)|$(val stock_tests) / $(val patched_tests)"
        echo "tests failed (stock / patched)|$(val stock_failed) / $(val patched_failed)"
        echo "failed only patched, flaky on rerun|$(val failed_only_patched), $(val flaky_on_rerun)"
        echo "failed again, and on stock too|$(val flaky_on_stock_too)"
        echo "regressions against stock|$(val regressions)"
        ;;
    sanitize)
        echo "ASan+UBSan: tests run / failed|$(val tests_run) / $(val tests_failed)"
        echo "ASan+UBSan: of them also failing on stock|$(val tests_failed_on_stock_too)"
        echo "ASan+UBSan: sanitizer findings|$(val sanitizer_findings)"
        echo "ASan+UBSan: result|$(val result)"
        echo "ASan+UBSan: selection|$(val selection)"
        ;;
    valgrind)
        local killed
        killed=$(val definite_leak_records_of_killed_processes)
        echo "valgrind: tests run / failed|$(val tests_run) / $(val tests_failed)"
        echo "valgrind: of them also failing on stock|$(val tests_failed_on_stock_too)"
        echo "valgrind: errors, definite leaks|$(val valgrind_errors), $(val definite_leak_records)${killed:+ (and $killed of processes killed by a signal)}"
        echo "valgrind: findings not on stock|$(val findings_not_on_stock)"
        echo "valgrind: result|$(val result)"
        echo "valgrind: selection|$(val selection)"
        ;;
    differential)
        # Every run on the newest run's candidate tree, added up: the long
        # run and the ones under sanitizers or valgrind.
        local runs
        runs=$(grep -lxF "candidate_tree=$(val candidate_tree)" \
                   "$(dirname "$f")/differential-$(val base)-"*.summary 2>/dev/null)
        # shellcheck disable=SC2086
        echo "differential: transactions, mismatches|$(cat $runs | sed -n 's/^transactions=//p' | awk '{ n += $1 } END { print n }'), $(cat $runs | sed -n 's/^mismatches=//p' | awk '{ n += $1 } END { print n }') ($(echo $runs | wc -w) runs on tree $(val candidate_tree | cut -c1-12))"
        # shellcheck disable=SC2086
        echo "differential: result|$(cat $runs | sed -n 's/^result=//p' | sort -u | tr '\n' ' ' | sed 's/ $//')"
        ;;
    hostile)
        echo "hostile: cases, differences|$(val standalone_cases) standalone + $(val clustered_cases) clustered, $(val differences) ($(val damage) damage, seed $(val seed), tree $(val candidate_tree | cut -c1-12))"
        echo "hostile: crashes (reference, candidate)|$(val crashes)"
        echo "hostile: result|$(val result)"
        ;;
    ovn)
        echo "OVN $(val ovn_src) $(val selection): tests run (stock / patched)|$(val stock_tests) / $(val patched_tests)"
        echo "OVN: regressions against stock|$(val regressions)"
        ;;
    chaos)
        echo "chaos: kills, lost or divergent|$(val kills), $(val lost_or_divergent) ($(val acked) acknowledged; $(val upgrades) restarts to patched, $(val downgrades) to stock; relay $(val relay); network $(val network | grep . || echo unix))"
        echo "chaos: result|$(val result)"
        ;;
    soak)
        local soak=soak
        [ "$(report_kind "$f")" != soak-cluster ] || soak="soak of clusters"
        if [ -n "$(val patched_floor_slope_kb_per_h)" ]; then
            # Which bound the verdict used (records since it says).
            local note=
            case $(val patched_rss_slope_bound_basis) in
            target) note=", the target; noise $(val patched_rss_slope_noise_kb_per_h)" ;;
            noise) note=", the noise of a run shorter than an hour" ;;
            esac
            echo "$soak: duration, RSS floor slope excess|$(val duration_s) s, $(val patched_rss_slope_excess_kb_per_h) kB/h over stock (bound $(val patched_rss_slope_bound_kb_per_h)$note); left: $(val patched_left)"
            # Records since the verdict judges the counters' floors.
            [ -z "$(val patched_counters_over_noise)" ] ||
                echo "$soak: counters growing beyond stock's noise|$(val patched_counters_over_noise)"
        else
            echo "$soak: duration, patched RSS slope|$(val duration_s) s, $(val patched_rss_slope_kb_per_h) kB/h (stock $(val stock_rss_slope_kb_per_h))"
        fi
        echo "$soak: result|$(val result)"
        ;;
    soak-checked)
        echo "soak under $(val checker): duration, reports|$(val duration_s) s, $(val patched_checker_reports) (stock $(val stock_checker_reports)); left: $(val patched_left)"
        echo "soak under $(val checker): result|$(val result)"
        ;;
    fuzz|fuzz-longest)
        # Per target: executions, seconds, crashes (scripts/fuzz.sh).
        local t
        sed -n 's/_executions=.*//p' "$f" | while read -r t; do
            if [ "$(val kind)" = fuzz ]; then
                printf 'fuzz %s|' "${t//_/-}"
            else
                printf 'longest fuzz %s (%s)|' "${t//_/-}" "$(val "${t}_date")"
            fi
            echo "$(val "${t}_executions") executions, $(val "${t}_seconds") s, $(val "${t}_crashes") crashes"
        done
        if [ "$(val kind)" = fuzz ] && [ -n "$(val diff_planted)" ]; then
            echo "fuzz diff: the planted off-by-one|$(val diff_planted)"
        fi
        ;;
    *)
        # Other kinds: every key but kind, base and date.
        grep -vE '^(kind|base|date)=' "$f" | sed "s/^/$(val kind) /; s/=/|/"
        ;;
    esac
}
