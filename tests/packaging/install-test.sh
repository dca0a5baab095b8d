#!/usr/bin/env bash
# The install test (docs/packaging.md): installs the Debian packages into a clean Debian 12 root
# made by debootstrap and checks, inside it, what a user gets:
#   kosmos-cli on the PATH with every packaged plugin available, `kosmos-cli demo` and
#   `kosmos-cli verify` from /usr/bin, the physics demo, a torch adapter on a shipped model package
#   found in /usr/share/kosmos/models from another folder, the man pages and bash completion, the
#   MIME type of a ledger and its default application (gio), and `kosmos` under Xvfb to a painted
#   window (a real screen grab, checked for content here).
#
#   tests/packaging/install-test.sh [DEB_DIR]     DEB_DIR: packages already built; default: build
#                                                 them with scripts/package.sh into build/packages
# Needs root (debootstrap, chroot, mounts) and a Debian mirror (the host's apt source). Set
# KOSMOS_INSTALL_TEST_KEEP=1 to keep the root (its path is printed). Exit 0 only when every
# check passed; each failure is named.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
repo="$PWD"
start=$(date +%s)
say() { printf '[install-test %4ds] %s\n' "$(($(date +%s) - start))" "$*"; }
fail() {
    say "FAILED: $*"
    exit 1
}

[ "$(id -u)" = 0 ] || fail "needs root (debootstrap, chroot)"
for tool in debootstrap chroot python3; do
    command -v "$tool" >/dev/null || fail "$tool is not installed (packaging/debian-build-deps.txt)"
done

debs="${1:-}"
if [ -z "$debs" ]; then
    scripts/package.sh build build/packages >/dev/null
    debs=build/packages
fi
debs=$(cd "$debs" && pwd)
ls "$debs"/kosmos_*.deb >/dev/null 2>&1 || fail "no kosmos_*.deb in $debs"
say "packages: $(cd "$debs" && ls -1 ./*.deb | xargs -n1 basename | paste -sd' ' -)"

# The host's Debian mirror (deb822 sources first, then the one-line format).
mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $0 !~ /security/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null)
mirror="${mirror:-http://deb.debian.org/debian}"

root=$(mktemp -d /var/tmp/kosmos-install-test.XXXXXX)
chmod 755 "$root" # the root's / as on any system (apt's _apt user reads through it)
mounted=()
cleanup() {
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        umount -l "${mounted[i]}" 2>/dev/null || true
    done
    if [ "${KOSMOS_INSTALL_TEST_KEEP:-0}" = 1 ]; then
        say "root kept: $root"
    else
        rm -rf --one-file-system "$root"
    fi
}
trap cleanup EXIT

say "debootstrap bookworm (minbase) from $mirror into $root"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.debootstrap.log" 2>&1 ||
    { tail -20 "$root.debootstrap.log"; fail "debootstrap"; }
rm -f "$root.debootstrap.log"
for fs in proc sys dev dev/pts; do
    mkdir -p "$root/$fs"
    mount --bind "/$fs" "$root/$fs"
    mounted+=("$root/$fs")
done
cp /etc/resolv.conf "$root/etc/resolv.conf"
mkdir -p "$root/tmp/debs"
cp "$debs"/*.deb "$root/tmp/debs/"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    LANG=C.UTF-8 "$@"; }

say "apt install the packages (and xvfb, xauth, gio, desktop-file-utils for the checks)"
in_root apt-get update -q >/dev/null
in_root env DEBIAN_FRONTEND=noninteractive sh -c 'apt-get install -y -q \
    --no-install-recommends /tmp/debs/*.deb xvfb xauth libglib2.0-bin desktop-file-utils \
    shared-mime-info' >"$root/tmp/apt.log" 2>&1 || { tail -30 "$root/tmp/apt.log"; fail "apt install"; }
say "installed: $(in_root dpkg-query -W -f='${Package} ${Version}\n' 'kosmos*' | paste -sd';' -)"

check() { # check NAME COMMAND...: runs COMMAND in the root from /tmp, fails with its output
    local name="$1"
    shift
    local out
    if ! out=$(chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
        LANG=C.UTF-8 QT_QPA_PLATFORM=offscreen XDG_RUNTIME_DIR=/tmp/xdg sh -c "mkdir -p -m 700 /tmp/xdg; cd /tmp && $*" 2>&1); then
        printf '%s\n' "$out" | tail -25
        fail "$name"
    fi
    say "ok: $name"
    LAST="$out"
}

check "kosmos-cli on the PATH" 'test "$(command -v kosmos-cli)" = /usr/bin/kosmos-cli && kosmos-cli --version'
check "plugins listed" 'kosmos-cli plugins --json > /tmp/plugins.json'
expected="synthetic.scripted_policy synthetic.tabletop synthetic.frame_judge"
# remote.lerobot: found (unavailable until a checkpoint and a LeRobot venv are set), its bridge
# in /usr/share/kosmos/python.
expected="$expected remote.lerobot?"
for deb in "$debs"/kosmos-physics_*.deb; do [ -e "$deb" ] && expected="$expected physics.tabletop physics.scripted_policy"; done
# torch.* adapters are found but unavailable until a model package is set: "found" is the check.
for deb in "$debs"/kosmos-torch_*.deb; do [ -e "$deb" ] && expected="$expected torch.generic_policy? torch.generic_world_model? torch.generic_judge?"; done
python3 - "$root/tmp/plugins.json" $expected <<'PY' || fail "packaged plugins available"
import json, sys
listed = json.load(open(sys.argv[1]))
plugins = listed["plugins"] if isinstance(listed, dict) else listed
by_id = {p["id"]: p for p in plugins}
bad = []
for want in sys.argv[2:]:
    found_only = want.endswith("?")
    pid = want.rstrip("?")
    if pid not in by_id or not (found_only or by_id[pid].get("available", False)):
        bad.append(pid)
        print("  not available:", pid, by_id.get(pid, {}).get("reason", "(not found)"))
sys.exit(1 if bad else 0)
PY
say "ok: $(echo "$expected" | wc -w) packaged plugins available"
check "the LeRobot policy bridge installed" \
    'test -f /usr/share/kosmos/python/kosmos_serve/lerobot_policy.py'
check "kosmos-cli demo" 'kosmos-cli demo --ledger /tmp/demo.kosmos'
check "kosmos-cli verify" 'kosmos-cli verify /tmp/demo.kosmos'
if ls "$debs"/kosmos-physics_*.deb >/dev/null 2>&1; then
    check "physics demo" 'kosmos-cli demo --world physics --ledger /tmp/physics.kosmos && kosmos-cli verify /tmp/physics.kosmos'
fi
if ls "$debs"/kosmos-torch_*.deb >/dev/null 2>&1; then
    check "a shipped model package by its relative name" \
        "kosmos-cli plugins --test torch.generic_world_model --settings '{\"package\": \"models/world\"}'"
fi
check "man pages and bash completion" 'test -s /usr/share/man/man1/kosmos-cli.1.gz && test -s /usr/share/man/man1/kosmos.1.gz && grep -q "complete .*kosmos-cli" /usr/share/bash-completion/completions/kosmos-cli'
check "desktop entry, icon and metainfo installed" 'test -s /usr/share/applications/io.github.kosmos_workstation.Kosmos.desktop && test -s /usr/share/icons/hicolor/256x256/apps/io.github.kosmos_workstation.Kosmos.png && test -s /usr/share/metainfo/io.github.kosmos_workstation.Kosmos.metainfo.xml'
check "a ledger's MIME type" 'gio info -a standard::content-type /tmp/demo.kosmos/ledger.sqlite | grep -q "application/x-kosmos-ledger"'
check "the workstation opens ledgers" 'gio mime application/x-kosmos-ledger | grep -q io.github.kosmos_workstation.Kosmos.desktop'
check "kosmos under Xvfb" 'unset QT_QPA_PLATFORM; xvfb-run -a -s "-screen 0 1280x800x24" kosmos /tmp/demo.kosmos --screenshot /tmp/window.png'
python3 - "$root/tmp/window.png" <<'PY' || fail "the window is painted"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h = struct.unpack(">II", data[16:24])
# Distinct colours in the decoded rows: a blank or single-colour grab has a handful.
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    if kind == b"IDAT":
        idat += data[pos + 8:pos + 8 + n]
    pos += 12 + n
raw = zlib.decompress(idat)
colours = len(set(raw[i:i + 3] for i in range(0, min(len(raw), 3_000_000), 3)))
print(f"  window grab {w}x{h}, about {colours} distinct byte triples")
sys.exit(0 if w >= 800 and h >= 500 and colours > 200 else 1)
PY
say "ok: the window is painted"
say "all checks passed in $(($(date +%s) - start)) s"
