# Fetch an OVS base from Debian's openvswitch-source package into
# build/ovs-<version>/, a git repository whose first commit is the
# pristine Debian tree.
# Functions only: sourcing it runs nothing; it loads what it needs.
[ -z "${_ojp_lib_fetch:-}" ] || return 0
_ojp_lib_fetch=1
# shellcheck source=common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

APTDIR="$BUILD/apt"
DEBDIR="$BUILD/debs"

# The system's apt configuration, which is only read, to find the user's
# Debian mirror.  Tests point OVS_JSON_PERF_APT_ETC elsewhere.
APT_ETC=${OVS_JSON_PERF_APT_ETC:-/etc/apt}

# Suite names of Debian releases (not -security, -updates or -backports).
DEBIAN_SUITES_RE='^(buster|bullseye|bookworm|trixie|forky|duke|sid|oldoldstable|oldstable|stable|testing|unstable)$'

# apt_source_entries: "URI SUITE..." for every enabled deb entry of the
# system's apt sources: sources.list and sources.list.d/*.list in the
# one-line format, sources.list.d/*.sources in the deb822 format.
apt_source_entries() {
    local f
    for f in "$APT_ETC/sources.list" "$APT_ETC"/sources.list.d/*.list; do
        [ -r "$f" ] || continue
        awk '{ sub(/#.*/, "") }
             $1 == "deb" {
                 i = 2
                 if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
                 print $i, $(i + 1)
             }' "$f"
    done
    for f in "$APT_ETC"/sources.list.d/*.sources; do
        [ -r "$f" ] || continue
        awk 'function flush(  i) {
                 if (types ~ /(^| )deb( |$)/ && enabled != "no")
                     for (i = 1; i <= n; i++) print uris[i], suites
                 n = 0; types = ""; suites = ""; enabled = "yes"
             }
             BEGIN { enabled = "yes" }
             /^[ \t]*#/ { next }
             /^[ \t]*$/ { flush(); next }
             /^[^ \t]/ {
                 key = tolower($1); sub(/:$/, "", key); $1 = ""; sub(/^ +/, "")
                 if (key == "types") types = $0
                 else if (key == "uris") n = split($0, uris, " ")
                 else if (key == "suites") suites = $0
                 else if (key == "enabled") enabled = tolower($0)
             }
             END { flush() }' "$f"
    done
}

# system_mirror: the first Debian mirror the system's apt sources use.
system_mirror() {
    local uri suites s
    while read -r uri suites; do
        case $uri in http://*|https://*) ;; *) continue ;; esac
        for s in $suites; do
            if [[ $s =~ $DEBIAN_SUITES_RE ]]; then
                echo "${uri%/}"
                return 0
            fi
        done
    done < <(apt_source_entries)
    return 1
}

# The mirror to fetch from: OVS_JSON_PERF_MIRROR, or the system's own.
fetch_mirror() {
    if [ -n "${OVS_JSON_PERF_MIRROR:-}" ]; then
        echo "$OVS_JSON_PERF_MIRROR"
    else
        system_mirror ||
            die "found no Debian mirror in $APT_ETC/sources.list or $APT_ETC/sources.list.d/; set OVS_JSON_PERF_MIRROR to one (http://HOST/debian)"
    fi
}

# apt options for a private configuration: our own sources, lists, cache
# and an empty dpkg status, so that /etc/apt is never changed (it is only
# read, by fetch_mirror).  We ask for one exact version, whose sha256 the
# signed index gives, so a Release file past its Valid-Until date (sid's
# last a week; a snapshot mirror's, or a machine whose clock is ahead of
# its mirror, are past it) does not stop the fetch.  No translations, compressed lists and no
# binary caches keep build/apt small (23 MB instead of 140 MB) wherever
# /etc/apt/apt.conf.d does not already say so.
apt_opts() {
    printf '%s\n' \
        -o "Acquire::Check-Valid-Until=false" \
        -o "Acquire::Languages=none" \
        -o "Acquire::GzipIndexes=true" \
        -o "Dir::Cache::pkgcache=" \
        -o "Dir::Cache::srcpkgcache=" \
        -o "Dir::Etc::SourceList=/dev/null" \
        -o "Dir::Etc::SourceParts=$APTDIR/sources.list.d" \
        -o "Dir::Etc::Preferences=/dev/null" \
        -o "Dir::Etc::PreferencesParts=$APTDIR/preferences.d" \
        -o "Dir::State::Lists=$APTDIR/lists" \
        -o "Dir::State::status=$APTDIR/status" \
        -o "Dir::Cache=$APTDIR/cache" \
        -o "Debug::NoLocking=1" \
        -o "APT::Sandbox::User=root"
}

# apt_private_setup SUITE: sources for the one suite that has the base.
apt_private_setup() {
    local mirror
    mirror=$(fetch_mirror) || exit 1
    mkdir -p "$APTDIR/sources.list.d" "$APTDIR/preferences.d" \
             "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial"
    : >"$APTDIR/status"
    cat >"$APTDIR/sources.list.d/ovs-json-perf.sources" <<EOF
Types: deb
URIs: $mirror
Suites: $1
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
}

# Path of the cached .deb for BASE, if any.
cached_deb() {
    local base=$1 v=${DEB_VERSION[$1]}
    local f="$DEBDIR/openvswitch-source_${v/:/%3a}_all.deb"
    [ -f "$f" ] && [ -f "$f.sha256" ] && echo "$f"
}

download_deb() {
    local base=$1 v=${DEB_VERSION[$1]} opts
    mapfile -t opts < <(apt_opts)
    apt_private_setup "${DEB_SUITE[$base]}"
    stage "fetch: apt-get update (private lists under $APTDIR)"
    run apt-get "${opts[@]}" update -q ||
        die "cannot reach the Debian archive and OVS $base is not cached in $DEBDIR"
    mkdir -p "$DEBDIR"
    stage "fetch: downloading openvswitch-source=$v"
    (cd "$DEBDIR" && run apt-get "${opts[@]}" download "openvswitch-source=$v") ||
        die "cannot download openvswitch-source=$v (no network, or the archive no longer has it)"
    local f="$DEBDIR/openvswitch-source_${v/:/%3a}_all.deb"
    [ -f "$f" ] || die "download of openvswitch-source=$v produced no file"
    local got
    got=$(dpkg-deb -f "$f" Version)
    [ "$got" = "$v" ] || die "downloaded $f has version $got, expected $v"
    (cd "$DEBDIR" && sha256sum "$(basename "$f")" >"$f.sha256")
    echo "package=openvswitch-source version=$v sha256=$(cut -d' ' -f1 "$f.sha256")" \
        >"$f.info"
}

# Unpack the .deb's tree into DEST (3.1.0 ships a tarball inside it).
unpack_deb() {
    local deb=$1 dest=$2 tmp
    tmp=$(mktemp -d "$BUILD/unpack.XXXXXX")
    run dpkg-deb -x "$deb" "$tmp" || { rm -rf "$tmp"; die "cannot unpack $deb"; }
    local src="$tmp/usr/src/openvswitch"
    if [ -f "$src/openvswitch.tar.gz" ] && [ ! -f "$src/configure.ac" ]; then
        mkdir "$tmp/tar"
        run tar --no-same-owner -C "$tmp/tar" -xzf "$src/openvswitch.tar.gz"
        src=$(dirname "$(find "$tmp/tar" -maxdepth 3 -name configure.ac | head -n1)")
    fi
    [ -f "$src/configure.ac" ] || { rm -rf "$tmp"; die "no OVS tree found in $deb"; }
    mv "$src" "$dest"
    rm -rf "$tmp"
}

# Make DEST a git repository whose first commit is the pristine tree.
init_pristine_repo() {
    local dest=$1 base=$2 v=${DEB_VERSION[$2]} deb=$3
    local sum
    sum=$(cut -d' ' -f1 "$deb.sha256")
    (
        cd "$dest"
        git init -q -b "debian/$base"
        git config core.excludesFile /dev/null
        git config user.name "ovs-json-perf"
        git config user.email "ovs-json-perf@localhost"
        git add -A -f .
        git commit -q -m "Pristine tree of Debian openvswitch-source $v" \
            -m "Unpacked from Debian's binary package openvswitch-source, version $v
(OVS $base).  sha256 of the .deb: $sum"
        git tag "pristine/$base"
    )
    init_base_commit "$dest" "$base"
}

# Files that autotools generate.  The Debian tree ships them, upstream's git
# does not track them, and OVS's Makefile checks (check-endian,
# check-assert-h-usage) fail on a git tree that tracks them.
generated_files() {
    git -C "$1" ls-files -- configure config.h.in aclocal.m4 '*Makefile.in' \
        'build-aux/compile' 'build-aux/depcomp' 'build-aux/install-sh' \
        'build-aux/ltmain.sh' 'build-aux/missing' 'build-aux/config.guess' \
        'build-aux/config.sub' 'build-aux/test-driver' 'build-aux/ar-lib' \
        'm4/libtool.m4' 'm4/ltoptions.m4' 'm4/ltsugar.m4' 'm4/ltversion.m4' \
        'm4/lt~obsolete.m4' 'tests/*testsuite'
}

# The packaging files the base commit untracks (PACKAGING_FILES).  The rest
# of debian/ stays tracked: the build includes debian/automake.mk.
packaging_files() {
    git -C "$1" ls-files -- $PACKAGING_FILES
}

# The series' base: the pristine tree less the generated files, tracked as
# upstream's git tracks it.  The files stay in the work tree.
init_base_commit() {
    local dest=$1 base=$2
    git -C "$dest" rev-parse -q --verify "base/$base" >/dev/null && return 0
    { generated_files "$dest"; packaging_files "$dest"; } |
        (cd "$dest" && xargs -r git rm -q --cached --)
    git -C "$dest" commit -q --allow-empty \
        -m "Track the tree as upstream's git does" \
        -m "Stop tracking the files autotools generate, which upstream's git does
not track, and Debian's debian/changelog.  OVS's Makefile checks
(check-endian, check-assert-h-usage, check-echo-n) fail on a tree that
tracks them.  The files stay in the work tree; ./boot.sh regenerates
the generated ones."
    git -C "$dest" tag "base/$base"
}

# refuse_unknown_tree DEST BASE: DEST exists but is not a tree that fetch
# unpacked (no tag pristine/BASE, or git will not open it): say why and
# what to run, and change nothing.
refuse_unknown_tree() {
    local dest=$1 base=$2 why err
    if [ ! -d "$dest/.git" ]; then
        why="it is not a git repository"
    elif ! err=$(git -C "$dest" rev-parse --git-dir 2>&1 >/dev/null); then
        why="git cannot open it ($(head -n1 <<<"$err" | sed 's/^fatal: //'))"
    else
        why="it has no tag pristine/$base"
    fi
    die "$dest exists but is not the tree fetch unpacked: $why; it may hold your work, so it is left alone: move it away (mv $dest $dest.old) and run ./build.sh fetch $base again"
}

fetch_base() {
    local base=$1
    is_supported_base "$base" ||
        die "unsupported base '$base' (supported: $SUPPORTED_BASES)"
    local dest="$BUILD/ovs-$base"
    if [ -d "$dest/.git" ] && git -C "$dest" rev-parse -q --verify "pristine/$base" >/dev/null; then
        init_base_commit "$dest" "$base"
        stage "fetch: $base already unpacked in $dest"
        return 0
    fi
    # Anything else there may hold someone's work: it is never deleted.
    [ ! -e "$dest" ] && [ ! -L "$dest" ] || refuse_unknown_tree "$dest" "$base"
    local deb
    if ! deb=$(cached_deb "$base"); then
        download_deb "$base"
        deb=$(cached_deb "$base") || die "no cached .deb for $base after download"
    else
        stage "fetch: using cached $(basename "$deb")"
        (cd "$DEBDIR" && sha256sum -c --quiet "$(basename "$deb").sha256") ||
            die "cached $deb does not match its recorded sha256; remove it and fetch again"
    fi
    # Unpacked beside DEST and moved into place once whole, so that an
    # interrupted fetch leaves no half tree at DEST.
    stage "fetch: unpacking $(basename "$deb") into $dest"
    local part="$dest.part"
    rm -rf "$part"
    unpack_deb "$deb" "$part"
    init_pristine_repo "$part" "$base" "$deb"
    mv "$part" "$dest"
    stage "fetch: $dest is at base/$base, on top of pristine/$base ($(cat "$deb.info"))"
}
