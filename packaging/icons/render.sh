#!/usr/bin/env bash
# Renders kosmos.svg to the PNG sizes of the hicolor icon theme (committed, so building the
# package needs no SVG renderer). Needs rsvg-convert (Debian: librsvg2-bin).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
for size in 16 22 24 32 48 64 128 256 512; do
    mkdir -p "hicolor/${size}x${size}/apps"
    rsvg-convert -w "$size" -h "$size" kosmos.svg \
        -o "hicolor/${size}x${size}/apps/io.github.kosmos_workstation.Kosmos.png"
done
mkdir -p hicolor/scalable/apps
cp kosmos.svg hicolor/scalable/apps/io.github.kosmos_workstation.Kosmos.svg
