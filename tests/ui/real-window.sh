#!/usr/bin/env bash
# Runs a Qt Test binary in a real window under its own Xvfb (no display needed on the machine):
#   tests/ui/real-window.sh WIDTHxHEIGHT BINARY [TEST-FUNCTION...]
# Picks a free display number, starts Xvfb with one screen of that size, runs the binary on Qt's
# xcb platform, and stops Xvfb however the binary ends.
set -euo pipefail
size="$1"
shift
command -v Xvfb > /dev/null || { echo "real-window: Xvfb is not installed (apt install xvfb)"; exit 1; }
display=""
for n in $(seq 90 150); do
    if [ ! -e "/tmp/.X${n}-lock" ] && [ ! -e "/tmp/.X11-unix/X${n}" ]; then
        display="$n"
        break
    fi
done
[ -n "$display" ] || { echo "real-window: no free X display number in 90..150"; exit 1; }
Xvfb ":$display" -screen 0 "${size}x24" -nolisten tcp -noreset > /dev/null 2>&1 &
xvfb=$!
trap 'kill "$xvfb" 2> /dev/null || true; wait "$xvfb" 2> /dev/null || true' EXIT
for _ in $(seq 1 100); do
    [ -e "/tmp/.X11-unix/X${display}" ] && break
    kill -0 "$xvfb" 2> /dev/null || { echo "real-window: Xvfb :$display did not start"; exit 1; }
    sleep 0.1
done
DISPLAY=":$display" QT_QPA_PLATFORM=xcb "$@"
