#!/usr/bin/env bash
# A relocatable kosmos-cli with its torch plugins, for a GPU machine that has the same torch wheel
# (Python's `torch` package) but none of Debian's Qt, OpenCV or FFmpeg libraries (issue
# [gpu-runtime]; docs/gpu.md, "Taking a build to a GPU machine"):
#
#   tools/gpu-bundle.sh BUILD_DIR OUT.tar.xz
#
# BUILD_DIR is a cuda-preset build made against that torch version (KOSMOS_TORCH_PYTHON naming a
# venv with the same `torch==X.Y.Z`): its kosmos-cli, verbs library and plugins, stripped, plus
# every shared library they need except
#   - glibc's libraries, libstdc++ and libgcc_s (the target's own, which must be as new or newer:
#     Debian 12 builds need glibc >= 2.36),
#   - libtorch and its CUDA libraries (the target's torch wheel; its libraries find their CUDA
#     libraries themselves),
#   - the NVIDIA driver's libcuda and libnvidia-ml (the plugins and NVML load them at run time).
# On the target:
#   mkdir -p /tmp/kosmos && tar -xJf OUT.tar.xz -C /tmp/kosmos
#   source /tmp/kosmos/env.sh      (LD_LIBRARY_PATH: the bundle's libraries, then torch's)
#   KOSMOS_BUILD_DIR=/tmp/kosmos PYTHON=python3 tools/gpu-check.sh cuda
set -euo pipefail
[ $# -eq 2 ] || {
    echo "usage: tools/gpu-bundle.sh BUILD_DIR OUT.tar.xz" >&2
    exit 2
}
build="$(cd "$1" && pwd)"
out="$2"
[ -x "$build/bin/kosmos-cli" ] || {
    echo "gpu-bundle: no $build/bin/kosmos-cli (build kosmos-cli and the torch plugins first)" >&2
    exit 1
}
pkglib="$(cd "$build" && find lib -maxdepth 2 -type d -name kosmos | head -1)"
[ -n "$pkglib" ] && [ -d "$build/$pkglib/plugins" ] || {
    echo "gpu-bundle: no lib/<multiarch>/kosmos/plugins in $build" >&2
    exit 1
}
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/runtime" "$stage/$pkglib/plugins"
cp "$build/bin/kosmos-cli" "$stage/bin/"
cp "$build/$pkglib"/*.so "$stage/$pkglib/" 2> /dev/null || true
# The torch plugins and the ones without outside dependencies (synthetic, replay, remote): the
# physics world needs MuJoCo and EGL, which a GPU machine provides in its own way.
for plugin in "$build/$pkglib/plugins"/*.so; do
    case "$(basename "$plugin")" in
    *physics*) continue ;;
    esac
    cp "$plugin" "$stage/$pkglib/plugins/"
done
find "$stage" -type f -name '*.so' -o -type f -name kosmos-cli | xargs strip --strip-unneeded

excluded='^(linux-vdso|ld-linux.*|libc|libm|libdl|libpthread|librt|libresolv|libutil|libstdc\+\+|libgcc_s|libcuda|libnvidia-.*)\.so'
# One ldd pass over the programs and plugins: what resolves here is copied, what does not fails.
resolved="$(find "$stage" -type f \( -name '*.so' -o -name kosmos-cli \) -print0 | xargs -0 -n1 ldd)"
missing="$(awk '/not found/ { print $1 }' <<< "$resolved" | sort -u)"
[ -z "$missing" ] || {
    echo "gpu-bundle: unresolved here: $missing" >&2
    exit 1
}
awk '$2 == "=>" && $3 ~ /^\// { print $3 }' <<< "$resolved" | sort -u |
    while read -r library; do
        name="$(basename "$library")"
        [[ "$name" =~ $excluded ]] && continue
        case "$library" in
        */torch/lib/* | */nvidia/*) continue ;; # the target's torch wheel
        esac
        cp -L "$library" "$stage/runtime/$name"
    done
# Pruned: libraries on code paths the GPU check never takes, replaced by stubs that define every
# symbol of the real one (tools/elf_stub.py; a call into one stops the program with SIGILL), so
# their own dependencies drop out: OpenCV's GDAL and DICOM codecs, its dnn and calib3d modules
# (reached through the video module), FFmpeg's external codecs and network protocols. What the
# check does use stays real: Qt, OpenCV's core, imgproc and codecs (OpenEXR too: the codec
# registry constructs its decoder on first use), FFmpeg's own libraries, SQLite, OpenSSL.
# KOSMOS_BUNDLE_PRUNE=0 keeps everything (about 90 MB compressed).
if [ "${KOSMOS_BUNDLE_PRUNE:-1}" != 0 ]; then
    prune='^lib(gdal|gdcm[A-Za-z]*|opencv_dnn|codec2|x26[45]|SvtAv1Enc|aom|rav1e|dav1d|vpx|jxl|jxl_threads|rsvg-2|zvbi|openmpt|gme|bluray|chromaprint|rabbitmq|rist|srt-gnutls|ssh-gcrypt|zmq|mfx|mp3lame|shine|speex|theoraenc|theoradec|twolame|vorbis|vorbisenc|xvidcore|gsm|opus|snappy|va|va-drm|va-x11|vdpau|OpenCL|opencv_calib3d|cairo|gnutls|xml2)\.so'
    for library in "$stage/runtime"/*; do
        [[ "$(basename "$library")" =~ $prune ]] || continue
        # OpenCV's codec registry calls GDALAllRegister when it starts: that one returns.
        python3 "$(dirname "${BASH_SOURCE[0]}")/elf_stub.py" "$library" "$library.stub" \
            --return GDALAllRegister
        mv "$library.stub" "$library"
    done
    # Then only what the programs and plugins still reach.
    python3 - "$stage" << 'PY'
import os, subprocess, sys
stage = sys.argv[1]
runtime = os.path.join(stage, "runtime")
def needed(path):
    out = subprocess.run(["readelf", "-d", path], capture_output=True, text=True).stdout
    return [line.split("[", 1)[1].split("]", 1)[0] for line in out.splitlines() if "(NEEDED)" in line]
todo = [os.path.join(d, f) for d, _, files in os.walk(stage) for f in files
        if not d.startswith(runtime) and (f.endswith(".so") or f == "kosmos-cli")]
reached = set()
while todo:
    for name in needed(todo.pop()):
        if name not in reached and os.path.exists(os.path.join(runtime, name)):
            reached.add(name)
            todo.append(os.path.join(runtime, name))
for name in os.listdir(runtime):
    if name not in reached:
        os.remove(os.path.join(runtime, name))
PY
fi
strip --strip-unneeded "$stage/runtime"/* 2> /dev/null || true
# The torch the plugins were built against: the target needs the same version.
torch_python="$(sed -n 's/^KOSMOS_TORCH_PYTHON:[A-Z]*=//p' "$build/CMakeCache.txt")"
torch_version=""
[ -x "$torch_python" ] && torch_version="torch $("$torch_python" -c 'import torch; print(torch.__version__)')"
cat > "$stage/env.sh" << 'SH'
# Source me: the bundle's libraries first, then the torch wheel's (python3's torch).
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
torch_lib="$(${PYTHON:-python3} -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')"
export LD_LIBRARY_PATH="$here/runtime:$torch_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
unset here torch_lib
SH
echo "built against: ${torch_version:-an unknown torch}" > "$stage/BUNDLE.txt"
tar -cJf "$out" -C "$stage" .
echo "gpu-bundle: $out ($(du -h "$out" | cut -f1); $(ls "$stage/runtime" | wc -l) libraries," \
    "$(ls "$stage/$pkglib/plugins" | wc -l) plugins; built against ${torch_version:-an unknown torch})"
