#!/usr/bin/env bash
# clang-tidy (Debian 12's, version 14) with the project's .clang-tidy over the given files, or the
# C++ files changed since a git revision (--since REV) or in the last N commits (--recent N: the whole
# tree when the checkout holds no more history than one commit), or every non-test source (--all); uses
# build/compile_commands.json (run scripts/build.sh first). Fails on any finding in our code.
#   scripts/tidy.sh --since origin/main     # what a change touched
#   scripts/tidy.sh --recent 20             # what CI checks (scripts/test.sh)
#   scripts/tidy.sh --all                   # the whole tree (~10 s a file on one core)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ -f build/compile_commands.json ] || { echo "tidy: build first (scripts/build.sh)" >&2; exit 2; }
if [ "${1:-}" = --recent ]; then
    depth=$(git rev-list --count HEAD 2>/dev/null || echo 1)
    n=$((${2:?--recent needs a count} < depth - 1 ? $2 : depth - 1))
    if [ "$n" -ge 1 ]; then set -- --since "HEAD~$n"; else set -- --all; fi
    echo "tidy: $([ "$1" = --all ] && echo "the whole tree (no history in this checkout)" || echo "files changed since HEAD~$n")"
fi
case "${1:-}" in
--all) mapfile -t files < <(git ls-files 'core/*.cpp' 'adapters/*.cpp' 'app/*.cpp' 'ui/*.cpp') ;;
--since) mapfile -t files < <(git diff --name-only --diff-filter=d "$2" -- '*.cpp' | grep -Ev '^(tests|fuzz|bench)/' || true) ;;
"") echo "usage: scripts/tidy.sh --all | --since REV | --recent N | FILE..." >&2; exit 2 ;;
*) files=("$@") ;;
esac
# libtorch 1.13's headers do not parse under clang-tidy 14 (c10::IValue incomplete in
# ivalue_inl.h): the two translation units that include them are left out.
mapfile -t files < <(printf '%s\n' "${files[@]}" |
    grep -Ev '^adapters/torch/(TorchAdapters|TorchGeneric)\.cpp$' || true)
[ ${#files[@]} -gt 0 ] || { echo "tidy: no files"; exit 0; }
log=$(mktemp)
printf '%s\n' "${files[@]}" | xargs -P "$(nproc)" -n 4 clang-tidy -p build --quiet >"$log" 2>&1 || true
findings=$(grep -cE ': (warning|error): ' "$log" || true)
grep -E ': (warning|error): ' "$log" >&2 || true
rm -f "$log"
echo "tidy: ${#files[@]} files, $findings findings"
[ "$findings" -eq 0 ]
