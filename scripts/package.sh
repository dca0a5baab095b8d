#!/usr/bin/env bash
# Builds the Debian packages (docs/packaging.md) from a build tree, default `build`:
#   scripts/package.sh [BUILD_DIR] [OUT_DIR]        OUT_DIR defaults to BUILD_DIR/packages
# kosmos_<version>_<arch>.deb, and kosmos-physics / kosmos-torch where the build has them.
# The version is the project's (CMakeLists.txt), with +git<date>.<commit> unless HEAD carries the
# release tag v<version>. Then lintian, when installed: errors fail; warnings are printed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build="${1:-build}"
out="${2:-$build/packages}"
[ -f "$build/build.ninja" ] || cmake --preset default
cmake --build "$build"

base=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
version="$base"
if git rev-parse --git-dir >/dev/null 2>&1; then
    if [ "$(git describe --exact-match --tags HEAD 2>/dev/null)" != "v$base" ]; then
        version="$base+git$(git log -1 --format=%cd --date=format:%Y%m%d).$(git rev-parse --short=8 HEAD)"
        git diff --quiet HEAD 2>/dev/null || version="$version.dirty"
    fi
fi

# The Debian changelog every package carries in /usr/share/doc/<package>.
mkdir -p "$build/packaging"
when=$(git log -1 --format=%cD 2>/dev/null || date -R)
commit=$(git rev-parse --short=8 HEAD 2>/dev/null || echo unknown)
cat > "$build/packaging/changelog.Debian" <<CHANGES
kosmos ($version-1) unstable; urgency=medium

  * Built from commit $commit of Kosmos Workstation $base.
  * The project's git history is its changelog.

 -- The Kosmos Workstation developers <kosmos@users.noreply.github.com>  $when
CHANGES
gzip -9nf "$build/packaging/changelog.Debian"

rm -rf "$out"
mkdir -p "$out"
cpack --config "$build/CPackConfig.cmake" -B "$out" -D "KOSMOS_DEB_VERSION=$version" >"$out/cpack.log" ||
    { cat "$out/cpack.log"; exit 1; }
rm -rf "$out/_CPack_Packages"
ls -1 "$out"/*.deb

if command -v lintian >/dev/null; then
    # Tags this project does not act on are listed with the reason in docs/packaging.md and in
    # packaging/lintian-suppressed.txt; everything else is shown, and an error fails.
    suppress=$( (grep -v '^#' packaging/lintian-suppressed.txt || true) | cut -d' ' -f1 | paste -sd, -)
    lintian --fail-on error ${suppress:+--suppress-tags "$suppress"} "$out"/*.deb
fi
