#!/usr/bin/env bash
# fetch: no network and no cache, a cached base offline, a build/ovs-BASE
# that holds someone's work, and the Debian mirror taken (read only) from
# the system's apt sources.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

scratch_dir "$BUILD/test/fetch"

# fetch with an unreachable mirror: a base not cached fails with one
# error and leaves nothing; a cached base needs no network.
t_no_network() {
    local b="$SCRATCH/offline-build" rc=0
    mkdir -p "$b"
    RC=0
    OVS_JSON_PERF_BUILD="$b" OVS_JSON_PERF_MIRROR="http://127.0.0.1:9/debian" \
        timeout 120 "$TOP/build.sh" fetch 3.1.0 >"$SCRATCH/out" 2>"$SCRATCH/err" || RC=$?
    ERR=$(grep '^error:' "$SCRATCH/err" | head -n1 || true)
    if [ "$RC" -eq 0 ]; then
        failed "no network and no cache: fetch fails" "exit 0"
    elif ! grep -q "not cached\|cannot download\|cannot reach" <<<"$ERR"; then
        failed "no network and no cache: fetch fails" "error was '$ERR'"
    elif [ -e "$b/ovs-3.1.0" ] || ls "$b"/unpack.* >/dev/null 2>&1; then
        failed "no network and no cache: fetch fails" "left a partial tree behind"
    else
        pass "no network and no cache: fetch fails with one error, nothing left behind"
    fi
    rc=0
    # The cached base needs no network.
    OVS_JSON_PERF_MIRROR="http://127.0.0.1:9/debian" "$TOP/build.sh" fetch 3.5.0 \
        >/dev/null 2>&1 || rc=$?
    if [ $rc -eq 0 ]; then
        pass "no network: a cached base still fetches"
    else
        failed "no network: a cached base still fetches" "exit $rc"
    fi
}

# fetch (and apply, which fetches) never deletes a build/ovs-BASE that is
# not the tree fetch unpacked: one without the tag pristine/BASE, or one
# that git will not open (another user's), may hold work.  Both carry a
# commit and an uncommitted edit, and stay as they were.
t_fetch_keeps_work() {
    local b="$SCRATCH/fetch-build" d before verb
    d="$b/ovs-3.5.0"
    mkdir -p "$b"
    git clone -q "$BUILD/ovs-3.5.0" "$d"
    git -C "$d" tag -d pristine/3.5.0 >/dev/null 2>&1 || true
    git -C "$d" -c user.name=t -c user.email=t@localhost commit -q --allow-empty -m "my work"
    echo "/* my edit */" >>"$d/lib/json.c"
    before=$(snapshot "$d")
    for verb in fetch apply; do
        local args=("$verb" 3.5.0)
        [ "$verb" = fetch ] || args=(apply --base 3.5.0)
        OVS_JSON_PERF_BUILD="$b" expect_refused \
            "$verb: a build/ovs-3.5.0 without its pristine tag is kept, with its work" "$d" \
            "fetch-build/ovs-3.5.0 exists but is not the tree fetch unpacked: it has no tag" \
            "$before" "${args[@]}"
    done
    git -C "$d" tag pristine/3.5.0 HEAD~1
    chown -R nobody "$d"
    before=$(snapshot "$d")
    OVS_JSON_PERF_BUILD="$b" expect_refused \
        "fetch: another user's build/ovs-3.5.0 is kept, with its work" "$d" \
        "exists but is not the tree fetch unpacked: git cannot open it" "$before" fetch 3.5.0
    chown -R "$(id -u)" "$d"
    rm -rf "$b"
}

# fetch takes the Debian mirror from the system's apt sources, read only.
mirror_of() {
    (
        export OVS_JSON_PERF_APT_ETC=$1
        unset OVS_JSON_PERF_MIRROR
        [ -z "${2:-}" ] || export OVS_JSON_PERF_MIRROR=$2
        # shellcheck source=../scripts/lib/fetch.sh
        . "$TOP/scripts/lib/fetch.sh"
        fetch_mirror
    ) 2>&1 || true
}

# The mirror from deb822 and one-line apt sources, the override, no
# Debian mirror at all, and fetch end to end with the system's sources.
t_mirror() {
    local e="$SCRATCH/etc-apt" out b="$SCRATCH/mirror-build" sum
    mkdir -p "$e/sources.list.d"
    cat >"$e/sources.list.d/debian.sources" <<'EOF'
# comment
Types: deb
URIs: http://security.test.invalid/debian-security
Suites: trixie-security
Components: main

Types: deb
URIs: http://disabled.test.invalid/debian
Suites: trixie
Components: main
Enabled: no

Types: deb deb-src
URIs: http://127.0.0.1:9/debian/
Suites: trixie trixie-updates
Components: main
EOF
    echo "deb http://ignored.test.invalid/debian sid main" >"$e/sources.list.d/other.list.disabled"
    out=$(mirror_of "$e")
    if [ "$out" = "http://127.0.0.1:9/debian" ]; then
        pass "mirror: taken from a deb822 .sources file (security, disabled entries skipped)"
    else
        failed "mirror: taken from a deb822 .sources file" "got '$out'"
    fi
    cat >"$e/sources.list" <<'EOF'
# deb http://commented.test.invalid/debian bookworm main
deb [arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://one-line.test.invalid/debian bookworm main
EOF
    out=$(mirror_of "$e")
    if [ "$out" = "http://one-line.test.invalid/debian" ]; then
        pass "mirror: taken from sources.list in the one-line format"
    else
        failed "mirror: taken from sources.list in the one-line format" "got '$out'"
    fi
    out=$(mirror_of "$e" "http://override.test.invalid/debian")
    if [ "$out" = "http://override.test.invalid/debian" ]; then
        pass "mirror: OVS_JSON_PERF_MIRROR overrides the apt sources"
    else
        failed "mirror: OVS_JSON_PERF_MIRROR overrides the apt sources" "got '$out'"
    fi
    mkdir -p "$SCRATCH/etc-ubuntu/sources.list.d"
    echo "deb http://ubuntu.test.invalid/ubuntu noble main" >"$SCRATCH/etc-ubuntu/sources.list"
    out=$(mirror_of "$SCRATCH/etc-ubuntu")
    if grep -qx "error: found no Debian mirror in .*; set OVS_JSON_PERF_MIRROR to one (http://HOST/debian)" <<<"$out"; then
        pass "mirror: no Debian mirror in the apt sources is one error line"
    else
        failed "mirror: no Debian mirror in the apt sources is one error line" "got '$out'"
    fi
    # fetch end to end: the private sources use the system's mirror (here
    # an unreachable one), and the system's sources are not written.
    rm -f "$e/sources.list"
    sum=$(find "$e" -printf '%m %p\n' -type f -exec sha256sum {} + | sort | sha256sum)
    mkdir -p "$b"
    (unset OVS_JSON_PERF_MIRROR
     OVS_JSON_PERF_BUILD="$b" OVS_JSON_PERF_APT_ETC="$e" \
        timeout 120 "$TOP/build.sh" fetch 3.1.0 >/dev/null 2>&1) || true
    if grep -qx 'URIs: http://127.0.0.1:9/debian' "$b/apt/sources.list.d/ovs-json-perf.sources" 2>/dev/null &&
       [ "$(find "$e" -printf '%m %p\n' -type f -exec sha256sum {} + | sort | sha256sum)" = "$sum" ]; then
        pass "fetch uses the mirror of the apt sources and leaves them as they were"
    else
        failed "fetch uses the mirror of the apt sources" \
            "$(cat "$b/apt/sources.list.d/ovs-json-perf.sources" 2>&1 | tr '\n' '|')"
    fi
    rm -rf "$b"
    # No mirror's host name anywhere in the repository (code, tests, docs).
    out=$(git -C "$TOP" grep --untracked -nIE '[a-z0-9-]+[.]debian[.](org|net)|(deb|ftp|http)[.][a-z.]*debian' || true)
    if [ -z "$out" ]; then
        pass "no Debian mirror host name in the repository"
    else
        failed "no Debian mirror host name in the repository" "$(head -n3 <<<"$out" | tr '\n' '|')"
    fi
}

# The cases, in order; the closing line.
main() {
    t_no_network
    t_fetch_keeps_work
    t_mirror
    summary
}

main "$@"
