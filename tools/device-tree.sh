#!/usr/bin/env bash
# The GPU machine gets a copy of the working tree, tracked files included, within a size limit that the tracked
# results under bench/results/ (campaign reports, records) and the bundle together exceed. This moves them out of the
# tree for the length of a device call, and back.
#   tools/device-tree.sh hide      move every tracked bench/**/*.html to $KEVO_HIDDEN (default /tmp/kevo-hidden-reports)
#   tools/device-tree.sh slim      move every tracked file under bench/results/ there instead, except those a GPU step
#                                  reads ($KEVO_KEEP, an extended regex; by default the champions and probes that
#                                  bench/forward-family-h100.sh names): for a bundle and gpu-tests.tgz carried together
#   tools/device-tree.sh restore   move them back
#   tools/device-tree.sh status    say whether any are hidden, and what a device call would copy (as slim does)
# Never commit while they are hidden: git would record them deleted. `hide` and `slim` refuse when some are hidden.
set -euo pipefail
cd "$(dirname "$0")/.."
store=${KEVO_HIDDEN:-/tmp/kevo-hidden-reports}
# (not `find | grep -q`: under pipefail, grep's early exit fails the pipe once find has more to write)
hidden() { [[ -d $store && -n $(find "$store" -type f -print -quit) ]]; }
keep=${KEVO_KEEP:-'^bench/results/(campaign-(fp32|bf16)-h100/champion-[^/]*\.cu|forward-family-h100/(campaign-[^/]+/[^/]*\.cu|probes/.*))$'}
# Moves the tracked files named on stdin (those still in the tree) to $store; refuses when some are hidden already.
stash() {
    if hidden; then echo "files already hidden in $store: run 'restore' first" >&2; exit 1; fi
    while read -r f; do
        [[ -f $f ]] || continue
        mkdir -p "$store/$(dirname "$f")" && mv "$f" "$store/$f"
    done
}
# What a device call copies (tracked files and untracked ones git does not ignore) with the archives of target/ it
# would carry, against the 64 MiB it takes: a call over it is refused before it starts.
report_size() {
    local tree carry=0 f
    # (stat fails on the tracked files slim moved away: they are not copied, and not counted)
    tree=$({ git ls-files -co --exclude-standard -z | xargs -0 -r stat -c %s 2>/dev/null || true; } \
        | awk '{s += $1} END {print s + 0}')
    for f in target/kevo-*-linux-x86_64.tar.gz target/gpu-tests.tgz; do
        [[ -f $f ]] || continue
        carry=$((carry + $(stat -c %s "$f")))
    done
    echo "a device call copies $(( (tree + carry) / 1048576 )) MiB of its 64 (the tree $(( tree / 1048576 )) MiB," \
         "target's bundle and gpu-tests.tgz $(( carry / 1048576 )) MiB, where built)"
}
case "${1:-}" in
hide)
    git ls-files 'bench/*.html' | stash
    echo "hidden: $(find "$store" -type f -name '*.html' | wc -l) reports in $store (restore before committing)"
    ;;
slim)
    git ls-files bench/results | grep -Ev "$keep" | stash
    echo "hidden: $(find "$store" -type f | wc -l) files in $store; bench/results keeps $(du -sh bench/results | cut -f1)" \
         "(restore before committing)"
    report_size
    ;;
restore)
    if ! hidden; then echo "nothing hidden"; exit 0; fi
    (cd "$store" && find . -type f) | while read -r f; do
        mkdir -p "$(dirname "$f")" && mv "$store/$f" "$f"
    done
    rm -rf "$store"
    echo "restored; git sees $(git status --short -- bench | grep -c '^ D' || true) files missing"
    ;;
status)
    if hidden; then echo "hidden: $(find "$store" -type f | wc -l) files in $store"; else echo "nothing hidden"; fi
    report_size
    ;;
*)
    echo "usage: tools/device-tree.sh hide|slim|restore|status" >&2; exit 2
    ;;
esac
