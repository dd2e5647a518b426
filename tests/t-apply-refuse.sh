#!/usr/bin/env bash
# apply refuses a user's tree it must not touch (uncommitted changes, an
# operation in progress, another owner, a tree inside another repository,
# read-only files), with one error line, and leaves it as it was (the
# snapshot of branch, HEAD, refs, index and every file is the same).
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

scratch_dir "$BUILD/test/apply-refuse"

# Uncommitted changes, staged or not.
t_dirty() {
    local d="$SCRATCH/dirty" before
    checkout 3.5.0 "$d"
    echo "/* local change */" >>"$d/lib/json.c"
    git -C "$d" add lib/json.c
    echo "unstaged change" >>"$d/README.rst"
    before=$(snapshot "$d")
    OVS_JSON_PERF_PATCHES="$SCRATCH/series/good" \
        expect_refused "a dirty tree is refused" "$d" "uncommitted changes.*--force" "$before" \
        apply --ovs-src "$d"
}

# A git repository with no commits yet.
t_no_commits() {
    local d="$SCRATCH/no-commits" before
    plain_tree 3.5.0 "$d"
    git -C "$d" init -q
    before=$(snapshot "$d")
    expect_refused "a git repository with no commits is refused" "$d" \
        "is a git repository with no commits" "$before" apply --ovs-src "$d"
}

# git stash pop with a conflict: unmerged index, no merge in progress.
t_unmerged() {
    local d="$SCRATCH/unmerged" before
    checkout 3.5.0 "$d"
    (
        cd "$d"
        echo "stashed edit" >>README.rst
        git stash -q
        echo "committed edit" >>README.rst
        git commit -q -am "edit README"
        git stash pop -q >/dev/null 2>&1 || true
    )
    if [ -z "$(git -C "$d" ls-files -u)" ]; then
        failed "an unmerged index is refused even with --force" "could not make an unmerged index"
        return
    fi
    before=$(snapshot "$d")
    OVS_JSON_PERF_PATCHES="$SCRATCH/series/good" \
        expect_refused "an unmerged index is refused even with --force" "$d" \
        "has unmerged files" "$before" apply --ovs-src "$d" --force
}

# A bisect in progress.
t_bisect() {
    local d="$SCRATCH/bisect" before
    checkout 3.5.0 "$d"
    git -C "$d" bisect start -q >/dev/null 2>&1 || git -C "$d" bisect start >/dev/null
    before=$(snapshot "$d")
    OVS_JSON_PERF_PATCHES="$SCRATCH/series/good" \
        expect_refused "a bisect in progress is refused" "$d" \
        "has a bisect .* in progress" "$before" apply --ovs-src "$d"
}

# A checkout git will not open (another user's): refused with git's hint,
# not treated as a plain directory.
t_dubious() {
    local d="$SCRATCH/dubious" before
    checkout 3.5.0 "$d"
    before=$(snapshot "$d")
    if [ "$(id -u)" -eq 0 ]; then
        chown 65534 "$d"
    else
        export GIT_TEST_ASSUME_DIFFERENT_OWNER=1
    fi
    bs apply --ovs-src "$d"
    unset GIT_TEST_ASSUME_DIFFERENT_OWNER
    [ "$(id -u)" -ne 0 ] || chown 0 "$d"
    if [ "$RC" -eq 0 ]; then
        failed "a git checkout of another owner is refused with git's hint" "exit 0"
    elif ! grep -qE "dubious ownership.*git config --global --add safe.directory $d\$" <<<"$ERR"; then
        failed "a git checkout of another owner is refused with git's hint" "error was '$ERR'"
    elif [ "$(grep -c '^error:' "$SCRATCH/err")" -ne 1 ]; then
        failed "a git checkout of another owner is refused with git's hint" "more than one error line"
    elif [ "$(snapshot "$d")" != "$before" ]; then
        failed "a git checkout of another owner is refused with git's hint" "the tree changed"
    else
        pass "a git checkout of another owner is refused with git's hint"
    fi
}

# An OVS tree committed inside another repository.
t_nested() {
    local p="$SCRATCH/outer" before
    mkdir -p "$p"
    git -C "$p" init -q -b trunk
    plain_tree 3.5.0 "$p/ovs"
    git -C "$p" add -A
    git -C "$p" -c user.name=t -c user.email=t@localhost commit -q -m "vendored OVS"
    before=$(snapshot "$p")
    OVS_JSON_PERF_PATCHES="$SCRATCH/series/good" \
        expect_refused "an OVS tree inside another repository that tracks it is refused" "$p" \
        "is inside the git repository $p, which tracks its files" "$before" apply --ovs-src "$p/ovs"
}

# Read-only: the whole tree, or a directory a patch writes in.
t_readonly() {
    local g="$SCRATCH/ro-git" l="$SCRATCH/ro-lib" p="$SCRATCH/ro-plain" before
    checkout 3.5.0 "$g"
    checkout 3.5.0 "$l"
    plain_tree 3.5.0 "$p"
    chmod a-w "$g" "$l/lib" "$p/lib"
    if unpriv touch "$l/lib/.w" 2>/dev/null; then
        failed "a read-only tree is refused" "cannot make a directory read-only here"
        chmod u+w "$g" "$l/lib" "$p/lib"
        return
    fi
    BS_WRAP=(unpriv)
    before=$(snapshot "$g")
    OVS_JSON_PERF_PATCHES="$SCRATCH/series/good" \
        expect_refused "a read-only tree is refused" "$g" "ro-git is not writable" "$before" apply --ovs-src "$g"
    before=$(snapshot "$l")
    OVS_JSON_PERF_PATCHES="$SCRATCH/series/good" \
        expect_refused "a git tree with a read-only directory a patch writes in is refused" "$l" \
        "ro-lib/lib is read-only" "$before" apply --ovs-src "$l"
    before=$(snapshot "$p")
    OVS_JSON_PERF_PATCHES="$SCRATCH/series/good" \
        expect_refused "a plain tree with a read-only directory a patch writes in is refused" "$p" \
        "ro-plain/lib is read-only" "$before" apply --ovs-src "$p"
    BS_WRAP=()
    chmod u+w "$g" "$l/lib" "$p/lib"
}

# As root, a read-only tests/ (mode 444 files in a 555 directory) is
# refused too: root could write it, but the modes say nobody may.
t_readonly_root() {
    local d="$SCRATCH/ro-root" before
    checkout 3.5.0 "$d"
    chmod -R a-w "$d/tests"
    before=$(snapshot "$d")
    OVS_JSON_PERF_PATCHES="$SCRATCH/series/partial" \
        expect_refused "as $(id -un), a tree whose tests/ is read-only is refused" "$d" \
        "ro-root/tests/atlocal.in is read-only" "$before" apply --ovs-src "$d"
    chmod -R u+w "$d/tests"
}

# A patch that adds a file in directories that do not exist yet writes in
# the nearest one that does: when that one is read-only (lib/ here, as
# root too), the patch is refused and the error names it.
t_readonly_newdir() {
    local m="$SCRATCH/mk-newdir" d="$SCRATCH/ro-newdir" s="$SCRATCH/series/newdir/3.5.0" before
    checkout 3.5.0 "$m"
    mkdir -p "$m/lib/new-dir/deeper" "$s"
    echo new >"$m/lib/new-dir/deeper/file.txt"
    git -C "$m" add lib/new-dir
    git -C "$m" commit -q -m "test: add a file in new directories"
    git -C "$m" format-patch -q -o "$s" -1
    (cd "$s" && ls ./*.patch | sed 's|^\./||' >series)
    plain_tree 3.5.0 "$d"
    chmod a-w "$d/lib"
    before=$(snapshot "$d")
    OVS_JSON_PERF_PATCHES="$SCRATCH/series/newdir" \
        expect_refused "a patch that adds directories under a read-only one is refused" "$d" \
        "ro-newdir/lib is read-only and 0001-.* changes files in it" "$before" apply --ovs-src "$d"
    chmod u+w "$d/lib"
    rm -rf "$m" "$d"
}

# The cases, in order; the closing line.
main() {
    make_series 3.5.0 "$SCRATCH/series"
    t_dirty
    t_no_commits
    t_unmerged
    t_bisect
    t_dubious
    t_nested
    t_readonly
    t_readonly_root
    t_readonly_newdir
    summary
}

main "$@"
