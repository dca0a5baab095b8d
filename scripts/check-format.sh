#!/usr/bin/env bash
# Fails when a tracked C++ file is not formatted by .clang-format (clang-format from Debian 12,
# version 14). Fix with: scripts/check-format.sh --fix
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mapfile -t files < <(git ls-files '*.cpp' '*.h')
if [ "${1:-}" = "--fix" ]; then
    clang-format -i "${files[@]}"
    exit 0
fi
if ! clang-format --dry-run --Werror "${files[@]}" 2>/tmp/kosmos-format.$$; then
    grep -E '^[^ ].*: error:' /tmp/kosmos-format.$$ | cut -d: -f1 | sort -u |
        sed 's/^/check-format: not formatted: /' >&2
    rm -f /tmp/kosmos-format.$$
    echo "check-format: run scripts/check-format.sh --fix" >&2
    exit 1
fi
rm -f /tmp/kosmos-format.$$
echo "check-format: ${#files[@]} files formatted"
