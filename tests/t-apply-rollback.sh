#!/usr/bin/env bash
# apply's safety once it has started: a series that does not apply, a
# signal, an unexpected exit, a directory that turns read-only and a second
# apply at once (the lock) leave the user's tree, git or plain, as it was,
# modes included, or print the commands that restore it.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

scratch_dir "$BUILD/test/apply-rollback"

# A series that does not apply: git am --abort, back to the user's branch,
# the new branch deleted.  Both on a git checkout and on a plain tree.
t_bad_series() {
    local d="$SCRATCH/conflict" p="$SCRATCH/plain-conflict" before
    checkout 3.5.0 "$d"
    before=$(snapshot "$d")
    OVS_JSON_PERF_PATCHES="$SCRATCH/series/bad" \
        expect_refused "a series that does not apply leaves a git tree as it was" "$d" \
        "0002-test-touch-json.c.patch does not apply" "$before" apply --ovs-src "$d"
    mkdir -p "$p"
    git -C "$BUILD/ovs-3.5.0" archive base/3.5.0 | tar -x -C "$p"
    before=$(snapshot "$p")
    OVS_JSON_PERF_PATCHES="$SCRATCH/series/bad" \
        expect_refused "a series that does not apply leaves a plain tree as it was" "$p" \
        "does not apply" "$before" apply --ovs-src "$p"
    if [ -e "$p/.git" ]; then
        failed "no git repository is left in a plain tree" "$p/.git exists"
    else
        pass "no git repository is left in a plain tree"
    fi
}

# The real series against a tree where its first patch's context changed.
t_real_series_conflict() {
    local d="$SCRATCH/real-conflict" before first file line
    first=$(series_patches 3.5.0 | head -n1)
    if [ -z "$first" ]; then
        echo "note: patches/3.5.0 has no series; no real-series conflict case"
        return
    fi
    checkout 3.5.0 "$d"
    file=$(sed -n 's|^--- a/||p' "$TOP/patches/3.5.0/$first" | head -n1)
    line=$(awk '/^@@/ { on = 1; next } on && /^-/ { print substr($0, 2); exit }' \
        "$TOP/patches/3.5.0/$first")
    [ -n "$line" ] || line=$(awk '/^@@/ { on = 1; next } on && /^ / { print substr($0, 2); exit }' \
        "$TOP/patches/3.5.0/$first")
    LINE=$line /usr/bin/perl -0pi -e 's/\Q$ENV{LINE}\E/$ENV{LINE} \/* conflicting edit *\//' "$d/$file"
    git -C "$d" commit -q -am "a conflicting local commit"
    before=$(snapshot "$d")
    expect_refused "the real series on a conflicting tree: git am --abort, tree as it was" "$d" \
        "does not apply" "$before" apply --ovs-src "$d"
}

# apply_interrupted SIGNAL PATTERN PREFIX DIR VAR=VALUE...: ./build.sh
# apply --ovs-src DIR, with the environment VAR=VALUE..., in a process group
# of its own, gets SIGNAL (sent to the group, as a terminal sends it) once
# PATTERN is in its output, PREFIX-out (its errors: PREFIX-err).  With an
# empty SIGNAL nothing is sent (something in the group sends it).  Returns
# apply's exit status.
apply_interrupted() {
    local sig=$1 pat=$2 prefix=$3 dir=$4 pid rc=0
    shift 4
    set -m
    # A shell started in the background without job control ignores SIGINT
    # and passes that on; a signal ignored at entry cannot be trapped, so
    # apply gets SIGINT back at its default.
    env "$@" env --default-signal=INT "$TOP/build.sh" apply --ovs-src "$dir" \
        >"$prefix-out" 2>"$prefix-err" &
    pid=$!
    set +m
    if [ -n "$sig" ]; then
        for _ in $(seq 1 600); do
            grep -q -- "$pat" "$prefix-out" 2>/dev/null && break
            sleep 0.1
        done
        kill -"$sig" -- "-$pid" 2>/dev/null || true
    fi
    wait "$pid" || rc=$?
    return $rc
}

# Signals in the middle of apply, sent to the whole process group as a
# terminal sends them (Ctrl-C: INT; a closed terminal or SSH session:
# HUP), while the second of three patches is going in.  The tree is as it
# was and no temporary repository or file is left.
t_signal() {
    local sig=$1 kind=$2 d="$SCRATCH/signal-$1-$2" before rc=0 name
    local tmp="$SCRATCH/tmp-$1-$2"
    name="SIG$sig during apply restores a $kind tree, nothing left in TMPDIR"
    # A signal ignored when this shell started (nohup ignores HUP) stays
    # ignored in every child: apply cannot see it.
    if [ "$(trap -p "$sig")" = "trap -- '' SIG$sig" ]; then
        skip "$name" "SIG$sig is ignored in this environment (run without nohup)"
        return
    fi
    if [ "$kind" = git ]; then checkout 3.5.0 "$d"; else plain_tree 3.5.0 "$d"; fi
    mkdir -p "$tmp"
    before=$(snapshot "$d")
    apply_interrupted "$sig" '\[2/3\]' "$SCRATCH/int" "$d" TMPDIR="$tmp" \
        OVS_JSON_PERF_PATCHES="$SCRATCH/series/good" OVS_JSON_PERF_APPLY_DELAY=3 ||
        rc=$?
    if [ $rc -eq 0 ]; then
        failed "$name" "apply finished with exit 0 (not interrupted?): $(tail -n 3 "$SCRATCH/int-out" | tr '\n' '|')"
    elif ! grep -q '\[2/3\]' "$SCRATCH/int-out"; then
        failed "$name" "interrupted before the second patch"
    elif [ "$(snapshot "$d")" != "$before" ]; then
        failed "$name" "the tree changed: $(diff <(echo "$before") <(snapshot "$d") | head -n 6 | tr '\n' '|') (apply said: $(tr '\n' '|' <"$SCRATCH/int-err"))"
    elif ! grep -q '^error: interrupted; the tree is back as it was' "$SCRATCH/int-err"; then
        failed "$name" "no 'interrupted; the tree is back as it was': $(tr '\n' '|' <"$SCRATCH/int-err")"
    elif [ -n "$(ls -A "$tmp")" ]; then
        failed "$name" "left in TMPDIR: $(ls -A "$tmp" | tr '\n' ' ')"
    else
        pass "$name"
    fi
}

# A terminal closes while git am is in the middle of the third patch: it
# has written the files that patch adds (one in new directories), not yet
# the index, and it leaves what a real git am killed there has been seen
# to leave: its branch's lock file and a rebase-apply/ that git am --abort
# does not recognise.  A stand-in git does that much, then sends SIGHUP
# (SIGTERM under nohup) to the process group.  The files and directories,
# the lock and the state go, and the tree is as it was; a lock that was
# there before apply began (a crashed git of the user's) stays, and so
# does the user's empty directory.
t_signal_mid_am() {
    local kind=$1 d="$SCRATCH/mid-am-$1" w="$SCRATCH/mid-am-bin" before rc=0 name sig=HUP
    # Under nohup, SIGHUP cannot reach apply: SIGTERM (a shutdown) takes
    # the same path.
    [ "$(trap -p HUP)" != "trap -- '' SIGHUP" ] || sig=TERM
    name="$kind tree: SIG$sig while git am has written new files and holds a lock: they, the lock and the state go, the tree is as it was"
    if [ "$kind" = git ]; then checkout 3.5.0 "$d"; else plain_tree 3.5.0 "$d"; fi
    mkdir -p "$w"
    cat >"$w/git" <<EOF
#!/bin/bash
case "\$*" in
*" am -q "*0003-*.patch)
    echo third >"$d/ovs-json-perf-test-3.txt"
    mkdir -p "$d/ovs-json-perf-new/sub"
    echo fourth >"$d/ovs-json-perf-new/sub/test-4.txt"
    gd=\${GIT_DIR:-$d/.git}
    : >"\$gd/refs/heads/ovs-json-perf/3.5.0.lock"
    mkdir -p "\$gd/rebase-apply"
    : >"\$gd/rebase-apply/0001"
    kill -$sig 0
    sleep 5
    exit 1 ;;
esac
exec $(command -v git) "\$@"
EOF
    chmod +x "$w/git"
    [ "$kind" = plain ] || : >"$d/.git/refs/heads/users.lock"
    mkdir "$d/users-empty-dir"
    before=$(snapshot "$d")
    apply_interrupted "" "" "$SCRATCH/mid" "$d" PATH="$w:$PATH" \
        OVS_JSON_PERF_PATCHES="$SCRATCH/series/good" || rc=$?
    if [ $rc -eq 0 ]; then
        failed "$name" "exit 0"
    elif [ "$kind" = git ] && [ ! -e "$d/.git/refs/heads/users.lock" ]; then
        failed "$name" "the rollback removed a lock that was there before apply began"
    elif ! grep -q '\[3/3\]' "$SCRATCH/mid-out"; then
        failed "$name" "stopped before the third patch: $(tr '\n' '|' <"$SCRATCH/mid-err")"
    elif [ "$(snapshot "$d")" != "$before" ]; then
        failed "$name" "the tree changed: $(diff <(echo "$before") <(snapshot "$d") | head -n 6 | tr '\n' '|')"
    elif ! grep -q '^error: interrupted; the tree is back as it was' "$SCRATCH/mid-err"; then
        failed "$name" "no 'interrupted; the tree is back as it was': $(tr '\n' '|' <"$SCRATCH/mid-err")"
    else
        pass "$name"
    fi
}

# SIGINT once every patch is in, while apply finishes (file modes, records):
# it finishes, the modes are those from before, and it says that the whole
# series is applied.
t_signal_finish() {
    local d="$SCRATCH/signal-finish" rc=0 modes name
    name="SIGINT after the last patch: the plain tree gets the whole series and its modes, and says so"
    plain_tree 3.5.0 "$d"
    chmod 600 "$d/lib/json.c"
    modes=$(cd "$d" && find . -printf '%m %p\n' | sort)
    apply_interrupted INT 'apply: finishing' "$SCRATCH/fin" "$d" \
        OVS_JSON_PERF_PATCHES="$SCRATCH/series/good" OVS_JSON_PERF_FINISH_DELAY=3 ||
        rc=$?
    if [ $rc -ne 0 ]; then
        failed "$name" "exit $rc: $(tr '\n' '|' <"$SCRATCH/fin-err")"
    elif ! grep -q 'apply: 3 patches applied in place to the plain tree' "$SCRATCH/fin-out"; then
        failed "$name" "no line saying the series is applied: $(tail -n 2 "$SCRATCH/fin-out" | tr '\n' '|')"
    elif [ ! -e "$d/ovs-json-perf-test-3.txt" ]; then
        failed "$name" "the last patch is not in"
    elif [ "$(cd "$d" && find . -printf '%m %p\n' | sort | grep -v 'ovs-json-perf-test-')" != "$modes" ]; then
        failed "$name" "modes changed: $(diff <(echo "$modes") <(cd "$d" && find . -printf '%m %p\n' | sort) | head -n 4 | tr '\n' ' ')"
    else
        pass "$name"
    fi
}

# Two applies at once on one tree: the second refuses at once and changes
# nothing; the first applies the whole series.
t_concurrent_apply() {
    local d="$SCRATCH/concurrent" rc=0 n
    checkout 3.5.0 "$d"
    OVS_JSON_PERF_PATCHES="$SCRATCH/series/good" OVS_JSON_PERF_APPLY_DELAY=2 \
        "$TOP/build.sh" apply --ovs-src "$d" >"$SCRATCH/first-out" 2>"$SCRATCH/first-err" &
    local pid=$!
    for _ in $(seq 1 300); do
        [ ! -e "$d/ovs-json-perf-test-1.txt" ] || break
        sleep 0.1
    done
    OVS_JSON_PERF_PATCHES="$SCRATCH/series/good" bs apply --ovs-src "$d"
    wait "$pid" || rc=$?
    n=$(git -C "$d" rev-list --count base/3.5.0..ovs-json-perf/3.5.0 2>/dev/null || echo 0)
    if [ "$RC" -eq 0 ]; then
        failed "a second apply on the same tree refuses" "it exited 0"
    elif ! grep -q "another ./build.sh is applying the series to" <<<"$ERR"; then
        failed "a second apply on the same tree refuses" "error was '$ERR'"
    elif [ "$rc" -ne 0 ] || [ "$n" -ne 3 ]; then
        failed "a second apply on the same tree refuses" "the first exited $rc with $n of 3 patches: $(tail -n2 "$SCRATCH/first-err")"
    else
        pass "a second apply on the same tree refuses at once; the first applies all 3 patches"
    fi
}

# An unexpected error in the middle of apply (set -e ends the script; here
# "sleep x" fails after the first patch): the EXIT trap rolls back.
t_exit_trap() {
    local kind=$1 d="$SCRATCH/exit-$1" before tmp="$SCRATCH/tmp-exit-$1" name
    name="an unexpected exit in the middle of apply restores a $kind tree (EXIT trap)"
    if [ "$kind" = git ]; then checkout 3.5.0 "$d"; else plain_tree 3.5.0 "$d"; fi
    mkdir -p "$tmp"
    before=$(snapshot "$d")
    TMPDIR="$tmp" OVS_JSON_PERF_PATCHES="$SCRATCH/series/good" OVS_JSON_PERF_APPLY_DELAY=x \
        bs apply --ovs-src "$d"
    if [ "$RC" -eq 0 ]; then
        failed "$name" "exit 0"
    elif ! grep -q '\[1/3\]' "$SCRATCH/out"; then
        failed "$name" "stopped before the first patch: $(tail -n2 "$SCRATCH/err" | tr '\n' '|')"
    elif [ "$(snapshot "$d")" != "$before" ]; then
        failed "$name" "the tree changed"
    elif [ -n "$(ls -A "$tmp")" ]; then
        failed "$name" "left in TMPDIR: $(ls -A "$tmp" | tr '\n' ' ')"
    else
        pass "$name"
    fi
}

# apply_past_first_patch DIR SERIES: start apply of the made-up series
# SERIES on DIR in the background, slowed between patches, with its pid in
# APPLY_PID, and return once the first patch is in (its file exists).
apply_past_first_patch() {
    local d=$1
    OVS_JSON_PERF_PATCHES="$SCRATCH/series/$2" OVS_JSON_PERF_APPLY_DELAY=2 \
        unpriv "$TOP/build.sh" apply --ovs-src "$d" >"$SCRATCH/out" 2>"$SCRATCH/err" &
    APPLY_PID=$!
    for _ in $(seq 1 300); do
        [ ! -e "$d/ovs-json-perf-test-1.txt" ] || break
        sleep 0.1
    done
}

# A rollback that cannot finish (a directory became read-only while the
# series went in): it says so, and the commands it prints restore the tree.
t_rollback_commands() {
    local kind=$1 d="$SCRATCH/unrestorable-$1" before pid rc=0 name
    name="$kind tree: a rollback that cannot finish prints commands that restore it"
    if [ "$kind" = git ]; then checkout 3.5.0 "$d"; else plain_tree 3.5.0 "$d"; fi
    before=$(snapshot "$d")
    mkdir -p "$SCRATCH/tmp-rb-$kind"
    TMPDIR="$SCRATCH/tmp-rb-$kind" apply_past_first_patch "$d" bad
    pid=$APPLY_PID
    chmod a-w "$d"
    wait "$pid" || rc=$?
    chmod u+w "$d"
    sed -n '/^these commands restore it:$/,/^error:/p' "$SCRATCH/err" | sed -n 's/^    //p' >"$SCRATCH/restore.sh"
    if [ $rc -eq 0 ]; then
        failed "$name" "exit 0"
    elif ! grep -q '^error: .*does not apply.*the tree could not be restored: run the commands above' "$SCRATCH/err"; then
        failed "$name" "no 'could not be restored': $(tr '\n' '|' <"$SCRATCH/err")"
    elif [ "$(grep -c '^error:' "$SCRATCH/err")" -ne 1 ]; then
        failed "$name" "more than one error line"
    elif [ ! -s "$SCRATCH/restore.sh" ]; then
        failed "$name" "no commands printed"
    elif [ "$(snapshot "$d")" = "$before" ]; then
        failed "$name" "the tree is as it was already; the fault did not happen"
    elif ! unpriv bash -e "$SCRATCH/restore.sh" >/dev/null 2>"$SCRATCH/restore.err"; then
        failed "$name" "the commands failed: $(tr '\n' '|' <"$SCRATCH/restore.err") (commands: $(tr '\n' '|' <"$SCRATCH/restore.sh"))"
    elif [ "$(snapshot "$d")" != "$before" ]; then
        failed "$name" "after the commands the tree still differs (commands: $(tr '\n' '|' <"$SCRATCH/restore.sh"))"
    elif [ -n "$(ls -A "$SCRATCH/tmp-rb-$kind")" ]; then
        failed "$name" "after the commands, left in TMPDIR: $(ls -A "$SCRATCH/tmp-rb-$kind" | tr '\n' ' ')"
    else
        pass "$name"
    fi
}

# restore_commands on its own: from a tree apply left in the worst state
# (HEAD on a new branch with a commit, an old branch and its config
# deleted, a file added in a new directory, a mode changed), the commands
# bring back the fingerprint taken before.
t_restore_commands_unit() {
    local d="$SCRATCH/restore-unit" w="$SCRATCH/restore-work" orig name
    name="restore_commands: branches, HEAD, config, files, directories and modes come back"
    checkout 3.5.0 "$d"
    git -C "$d" branch keep
    git -C "$d" config branch.keep.description "my work"
    orig=$(git -C "$d" rev-parse HEAD)
    mkdir -p "$w"
    (
        # shellcheck source=../scripts/lib/apply.sh
        . "$TOP/scripts/lib/apply.sh"
        APPLY_WORK=$w
        tree_manifest "$d" git >"$w/before"
        cd "$d"
        git checkout -q -b ovs-json-perf/3.5.0
        echo "/* x */" >>lib/json.c
        git commit -q -am "x"
        git branch -q -D keep
        mkdir newdir && echo new >newdir/new.txt
        chmod 600 README.rst
        tree_manifest "$d" git >"$w/now"
        cd /
        restore_commands "$d" git "$w/before" "$w/now" "$orig" >"$w/cmds"
        bash -e "$w/cmds" >/dev/null 2>&1
        tree_manifest "$d" git >"$w/after"
    )
    if ! diff -q "$w/before" "$w/now" >/dev/null && cmp -s "$w/before" "$w/after"; then
        pass "$name"
    else
        failed "$name" "$(diff "$w/before" "$w/after" | head -n 5 | tr '\n' '|') (commands: $(tr '\n' '|' <"$w/cmds"))"
    fi
}

# A directory turns read-only in the middle of apply: the second patch
# has written lib/json.c when it fails on tests/.  Those files come back.
t_partial_write() {
    local kind=$1 d="$SCRATCH/partial-$1" before pid rc=0 name
    name="$kind tree: a patch that fails half-written (tests/ turned read-only) is undone"
    if [ "$kind" = git ]; then checkout 3.5.0 "$d"; else plain_tree 3.5.0 "$d"; fi
    before=$(snapshot "$d")
    apply_past_first_patch "$d" partial
    pid=$APPLY_PID
    chmod a-w "$d/tests"
    wait "$pid" || rc=$?
    if [ $rc -eq 0 ]; then
        failed "$name" "exit 0"
    elif ! grep -q '^error: 0002-.*does not apply.*the tree is back as it was' "$SCRATCH/err"; then
        failed "$name" "$(grep -v '^|' "$SCRATCH/err" | tr '\n' '|')"
    elif [ "$(snapshot "$d")" != "$before" ]; then
        failed "$name" "the tree changed"
    else
        pass "$name"
    fi
    chmod u+w "$d/tests"
}

# --force replaces an existing ovs-json-perf branch; when the series then
# fails, the old branch and its config (its description) come back.
t_force_rollback() {
    local d="$SCRATCH/force-rollback" before
    checkout 3.5.0 "$d"
    git -C "$d" branch ovs-json-perf/3.5.0 HEAD~1
    git -C "$d" config branch.ovs-json-perf/3.5.0.description "my cover letter"
    before=$(snapshot "$d")
    OVS_JSON_PERF_PATCHES="$SCRATCH/series/bad" \
        expect_refused "--force on a failing series: the replaced branch and its config come back" "$d" \
        "does not apply.*the tree is back as it was" "$before" apply --ovs-src "$d" --force
}

# File modes survive: a rollback after two patches went in (plain and git
# trees), and a plain tree patched in place.
t_modes() {
    local kind=$1 d="$SCRATCH/modes-$1" before
    if [ "$kind" = git ]; then checkout 3.5.0 "$d"; else plain_tree 3.5.0 "$d"; fi
    chmod 664 "$d/lib/json.c"
    chmod 600 "$d/README.rst"
    chmod 775 "$d/lib"
    before=$(snapshot "$d")
    local mask
    mask=$(umask)
    umask 022
    OVS_JSON_PERF_PATCHES="$SCRATCH/series/bad3" \
        expect_refused "$kind tree: a rollback after two patches restores contents and modes (664 stays 664)" "$d" \
        "0003-test-touch-json.c-again.patch does not apply" "$before" apply --ovs-src "$d"
    if [ "$kind" = plain ]; then
        OVS_JSON_PERF_PATCHES="$SCRATCH/series/good" bs apply --ovs-src "$d"
        if [ "$RC" -eq 0 ] && [ "$(stat -c %a "$d/lib/json.c")" = 664 ] &&
           grep -q 'ovs-json-perf test' "$d/lib/json.c"; then
            pass "plain tree patched in place: a patched file keeps its mode 664"
        else
            failed "plain tree patched in place: a patched file keeps its mode 664" \
                "exit $RC, mode $(stat -c %a "$d/lib/json.c")"
        fi
    fi
    umask "$mask"
}

main() {
    make_series 3.5.0 "$SCRATCH/series"
    t_bad_series
    t_real_series_conflict
    t_signal INT git
    t_signal HUP git
    t_signal HUP plain
    t_signal_mid_am git
    t_signal_mid_am plain
    t_concurrent_apply
    t_signal_finish
    t_exit_trap git
    t_exit_trap plain
    t_rollback_commands git
    t_rollback_commands plain
    t_restore_commands_unit
    t_partial_write git
    t_partial_write plain
    t_force_rollback
    t_modes git
    t_modes plain
    summary
}

main "$@"
