#!/usr/bin/env bash
# The GPU machine gets a copy of the working tree, tracked files included, within a size limit that the tracked
# campaign reports (self-contained HTML pages under bench/results/) and the bundle together exceed. This moves the
# reports out of the tree for the length of a device call, and back.
#   tools/device-tree.sh hide      move every tracked bench/**/*.html to $KEVO_HIDDEN (default /tmp/kevo-hidden-reports)
#   tools/device-tree.sh restore   move them back
#   tools/device-tree.sh status    say whether any are hidden
# Never commit while they are hidden: git would record them deleted. `hide` refuses when some are hidden already.
set -euo pipefail
cd "$(dirname "$0")/.."
store=${KEVO_HIDDEN:-/tmp/kevo-hidden-reports}
hidden() { [[ -d $store ]] && find "$store" -type f -name '*.html' | grep -q .; }
case "${1:-}" in
hide)
    if hidden; then echo "reports already hidden in $store: run 'restore' first" >&2; exit 1; fi
    git ls-files 'bench/*.html' | while read -r f; do
        [[ -f $f ]] || continue
        mkdir -p "$store/$(dirname "$f")" && mv "$f" "$store/$f"
    done
    echo "hidden: $(find "$store" -type f -name '*.html' | wc -l) reports in $store (restore before committing)"
    ;;
restore)
    if ! hidden; then echo "nothing hidden"; exit 0; fi
    (cd "$store" && find . -type f -name '*.html') | while read -r f; do
        mkdir -p "$(dirname "$f")" && mv "$store/$f" "$f"
    done
    echo "restored; git sees $(git status --short -- 'bench/*.html' | grep -c '^ D' || true) reports missing"
    ;;
status)
    if hidden; then echo "hidden: $(find "$store" -type f -name '*.html' | wc -l) reports in $store"; else echo "nothing hidden"; fi
    ;;
*)
    echo "usage: tools/device-tree.sh hide|restore|status" >&2; exit 2
    ;;
esac
