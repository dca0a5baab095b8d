#!/usr/bin/env bash
# Fails when a tracked C++ file is not formatted by .clang-format (clang-format from Debian 12,
# version 14). Fix with: scripts/check-format.sh --fix
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.c')
else # a checkout without git metadata: the source folders
    mapfile -t files < <(find core adapters app ui tests fuzz bench tools -name '*.cpp' -o -name '*.h' -o -name '*.c' 2>/dev/null | sort)
fi
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
