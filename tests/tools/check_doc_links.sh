#!/usr/bin/env bash
# Every document the code and the docs point to exists (core/pipeline/Protocol.h once pointed to
# a docs/pipeline.md that did not), and every section a code comment names by its title
# (docs/<name>.md, "Title") is a heading of that document.
# Usage: check_doc_links.sh SOURCE_DIR
set -euo pipefail
root=$1
cd "$root"
bad=0
checked=0
while IFS= read -r doc; do
    checked=$((checked + 1))
    if [ ! -f "$doc" ]; then
        echo "check_doc_links: $doc is named but does not exist:" >&2
        grep -rln --include='*.h' --include='*.cpp' --include='*.in' --include='*.cmake' \
            --include='CMakeLists.txt' --include='*.sql' --include='*.sh' --include='*.md' \
            -F "$doc" core ui app adapters cmake tests tools scripts docs README.md | sed 's/^/  in /' >&2
        bad=1
    fi
done < <(grep -rhoE --include='*.h' --include='*.cpp' --include='*.in' --include='*.cmake' \
    --include='CMakeLists.txt' --include='*.sql' --include='*.sh' --include='*.md' \
    'docs/[A-Za-z0-9_-]+\.md' core ui app adapters cmake tests tools scripts docs README.md | sort -u)
# Sections named in code comments: docs/<name>.md, "Title"
while IFS= read -r ref; do
    doc=${ref%%,*}
    title=$(sed -E 's/^[^"]*"([^"]+)".*/\1/' <<<"$ref")
    [ -f "$doc" ] || continue
    checked=$((checked + 1))
    if ! grep -qE "^#+ .*${title}" "$doc"; then
        echo "check_doc_links: $doc has no section \"$title\" (named as: $ref)" >&2
        bad=1
    fi
done < <(grep -rhoE --include='*.h' --include='*.cpp' --include='*.in' --include='*.cmake' \
    --include='CMakeLists.txt' --include='*.sql' --include='*.sh' \
    'docs/[A-Za-z0-9_-]+\.md, "[^"]+"' core ui app adapters cmake tests tools scripts | sort -u)
[ "$bad" -eq 0 ] && echo "check_doc_links: $checked documents and sections named in the tree exist"
exit "$bad"
