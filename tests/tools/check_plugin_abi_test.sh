#!/usr/bin/env bash
# The plugin ABI check (cmake/CheckPluginAbi.cmake) on a copy of the tree's ABI headers: it passes
# as recorded, fails when a header changes under the same API version (naming the version to
# raise), fails when the version is raised but not recorded, passes once the record is written,
# and fails when an ABI header includes a header of the tree that is not listed.
# Usage: check_plugin_abi_test.sh SOURCE_DIR
set -euo pipefail
src=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/adapters/api" "$work/core/components" "$work/core/contracts"
cp "$src"/adapters/api/KosmosPlugin.h "$src"/adapters/api/KosmosApiVersion.h.in \
    "$src"/adapters/api/abi-digest.txt "$work/adapters/api/"
cp "$src"/core/components/*.h "$work/core/components/"
cp "$src"/core/contracts/*.h "$work/core/contracts/"
version=$(grep -E '^[0-9]+ ' "$work/adapters/api/abi-digest.txt" | cut -d' ' -f1)
# CMake wraps its messages: one line, single spaces.
check() {
    cmake -DSOURCE_DIR="$work" -DVERSION="$1" -P "$src/cmake/CheckPluginAbi.cmake" 2>&1 |
        tr "\n" " " | tr -s " "
}
fail() {
    echo "check_plugin_abi_test: $1" >&2
    exit 1
}

check "$version" >/dev/null || fail "the tree as recorded does not pass"
echo "struct AddedToThePluginApi {};" >>"$work/core/components/Components.h"
out=$(check "$version") && fail "a changed ABI header passed under the same version"
grep -q "Raise it to $((version + 1))" <<<"$out" ||
    fail "the refusal does not name the version to raise: $out"
out=$(check $((version + 1))) && fail "a raised version passed without its record"
grep -qE "$((version + 1)) [0-9a-f]{64}" <<<"$out" ||
    fail "the refusal does not give the record to write: $out"
grep -oE "$((version + 1)) [0-9a-f]{64}" <<<"$out" | head -1 >"$work/adapters/api/abi-digest.txt"
check $((version + 1)) >/dev/null || fail "the written record does not pass: $(check $((version + 1)))"
echo '#include "util/Unlisted.h"' >>"$work/core/contracts/ReasonCodes.h"
out=$(check $((version + 1))) && fail "an ABI header including an unlisted header passed"
grep -q "util/Unlisted.h, which is not one of the plugin ABI headers" <<<"$out" || fail "$out"
echo "check_plugin_abi_test: a changed header fails the build until the version is raised and recorded"
