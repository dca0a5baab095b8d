#!/usr/bin/env bash
# Checks that the sanitizer environment scripts/sanitize.sh exported (ASAN_OPTIONS, LSAN_OPTIONS)
# survives a dynamic TLS block at 16 mod 4096 and keeps what only such a block points to
# reachable (dtls-check.c says why), and that the leak check still reports a dropped block.
# Builds into DIR (given); runs in well under a second.
#   tools/sanitizers/dtls/check.sh DIR
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:?usage: check.sh DIR}"
mkdir -p "$out"
cc="${CC:-gcc}"
"$cc" -shared -fPIC -o "$out/libkosmos-dtls.so" "$here/dtls-lib.c"
"$cc" -fsanitize=address -g -o "$out/dtls-check" "$here/dtls-check.c"
if ! log=$("$out/dtls-check" "$out/libkosmos-dtls.so" 2>&1); then
    echo "$log" >&2
    echo "dtls-check: the sanitizer environment fails on a dynamic TLS block (ASAN_OPTIONS=$ASAN_OPTIONS)" >&2
    exit 1
fi
case "$log" in
*"not placed"* | *"ERROR:"* | *"Tracer caught"*)
    echo "$log" >&2
    echo "dtls-check: unexpected output" >&2
    exit 1
    ;;
esac
if leaked=$("$out/dtls-check" "$out/libkosmos-dtls.so" --leak 2>&1) ||
    [[ "$leaked" != *"Direct leak of 100 byte"* ]]; then
    echo "$leaked" >&2
    echo "dtls-check: a dropped block was not reported: the leak check did not run" >&2
    exit 1
fi
echo "$log; a dropped block is reported"
