#!/usr/bin/env bash
# Every #include "folder/..." inside core/ must point down the layer graph that core/CMakeLists.txt
# declares (written to <build>/core-layers.txt as "layer:dep,dep" lines): a file in layer A may
# include a header of layer B only if B is A or reachable from A through DEPENDS.
# Usage: check_core_layers.sh LAYERS_FILE CORE_DIR
set -euo pipefail
layers_file=$1
core=$2
declare -A deps
while IFS=: read -r layer list; do
    [ -n "$layer" ] && deps[$layer]=${list//,/ }
done <"$layers_file"

reach() { # the layers reachable from $1 (itself included)
    local seen=" $1 " todo=("$1") cur d
    while [ ${#todo[@]} -gt 0 ]; do
        cur=${todo[0]}
        todo=("${todo[@]:1}")
        for d in ${deps[$cur]:-}; do
            if [[ $seen != *" $d "* ]]; then
                seen+="$d "
                todo+=("$d")
            fi
        done
    done
    echo "$seen"
}

bad=0
checked=0
for layer in "${!deps[@]}"; do
    allowed=$(reach "$layer")
    [ -d "$core/$layer" ] || continue
    while IFS= read -r hit; do
        file=${hit%%:*}
        target=$(sed -E 's/.*#include "([a-z_]+)\/.*/\1/' <<<"$hit")
        checked=$((checked + 1))
        if [ -z "${deps[$target]+x}" ]; then
            echo "check_core_layers: ${file#$core/}: includes '$target/', which is not a core layer" >&2
            bad=1
        elif [[ $allowed != *" $target "* ]]; then
            echo "check_core_layers: ${file#$core/}: layer '$layer' includes '$target/', a layer it does not depend on (allowed:$allowed)" >&2
            bad=1
        fi
    done < <(grep -HE '^#include "[a-z_]+/' "$core/$layer"/*.h "$core/$layer"/*.cpp "$core/$layer"/*.in 2>/dev/null || true)
done
if [ "$checked" -eq 0 ]; then
    echo "check_core_layers: no includes found under $core (wrong folder?)" >&2
    exit 1
fi
[ "$bad" -eq 0 ] && echo "check_core_layers: $checked includes across ${#deps[@]} layers point down"
exit "$bad"
