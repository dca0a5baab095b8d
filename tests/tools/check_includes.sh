#!/usr/bin/env bash
# The include rules outside core/ (core's own layers: check_core_layers.sh), for every source file
# of the tree (docs/architecture.md, "Rules outside core, checked"):
#   adapters/<plugin>/  api/, the adapters' own folders, and the plugin SDK only
#                       (core's components/, contracts/, artifacts/, util/: Kosmos::plugin_sdk)
#   adapters/host/      api/, host/ and core (it loads plugins for the engine)
#   ui/                 ui's folders and core, but never pipeline/ (runs are started through
#                       kosmos-cli worker processes) nor adapters
#   app/                anything: it wires the others together
# and nothing outside core includes ledger/LedgerSql.h or ledger/SqliteDb.h (the ledger's SQL is
# core's: everything else reads through Ledger's typed methods and core/queries), and no file
# outside core/ledger writes the ledger's tables (INSERT, UPDATE, DELETE).
# Usage: check_includes.sh SOURCE_DIR
set -euo pipefail
root=$1
sdk=" components contracts artifacts util "
core_layers=" $(cd "$root/core" && ls -d */ | tr -d / | tr '\n' ' ') "
plugin_dirs=" $(cd "$root/adapters" && ls -d */ | tr -d / | grep -v '^host$' | tr '\n' ' ') "
ui_dirs=" $(cd "$root/ui" && ls -d */ | tr -d / | tr '\n' ' ') "

bad=0
checked=0
complain() {
    echo "check_includes: $1" >&2
    bad=1
}
while IFS= read -r hit; do
    file=${hit%%:*}
    rel=${file#"$root"/}
    include=$(sed -E 's/^[^:]*:[0-9]+:#include "([^"]+)".*/\1/' <<<"$hit")
    [[ $include == */* ]] || continue # a header beside the file
    top=${include%%/*}
    checked=$((checked + 1))
    if [[ $include == ledger/LedgerSql.h || $include == ledger/SqliteDb.h ]]; then
        complain "$rel: includes $include: the ledger's SQL is core's (use Ledger's methods or core/queries)"
        continue
    fi
    case $rel in
    adapters/host/*)
        [[ " api host " == *" $top "* || $core_layers == *" $top "* ]] ||
            complain "$rel: the plugin host includes '$top/', which is neither core nor the plugin API"
        ;;
    adapters/*)
        if [[ $plugin_dirs == *" $top "* ]]; then
            :
        elif [[ $core_layers == *" $top "* && $sdk != *" $top "* ]]; then
            complain "$rel: a plugin includes '$include', outside the plugin SDK (core's$sdk)"
        elif [[ $sdk != *" $top "* ]]; then
            complain "$rel: a plugin includes '$include', which is neither the SDK nor an adapter"
        fi
        ;;
    ui/*)
        if [[ $top == pipeline ]]; then
            complain "$rel: ui includes '$include': the workstation starts runs through kosmos-cli, never the engine"
        elif [[ $ui_dirs != *" $top "* && $core_layers != *" $top "* ]]; then
            complain "$rel: ui includes '$include', which is neither ui nor core"
        fi
        ;;
    esac
done < <(grep -rnHE '^#include "' "$root/adapters" "$root/ui" "$root/app" \
    --include='*.h' --include='*.cpp' --include='*.in' || true)
# Only the ledger writes its tables: Ledger's methods and ledger/LedgerTransfer (the merge's
# import primitives). A statement that writes anywhere else is a second write path.
while IFS= read -r hit; do
    complain "${hit#"$root"/}: writes ledger rows outside core/ledger (add a typed Ledger or LedgerImport method)"
done < <(grep -rnHE '"[^"]*(INSERT INTO|INSERT OR [A-Z]+ INTO|REPLACE INTO|UPDATE [a-z_.]+ SET|DELETE FROM)' \
    "$root/core" "$root/ui" "$root/app" "$root/adapters" --include='*.h' --include='*.cpp' |
    grep -v "^$root/core/ledger/" || true)
if [ "$checked" -eq 0 ]; then
    echo "check_includes: no includes found under $root (wrong folder?)" >&2
    exit 1
fi
[ "$bad" -eq 0 ] && echo "check_includes: $checked includes in adapters/, ui/ and app/ follow the rules"
exit "$bad"
