#!/usr/bin/env bash
# kevo evolve's start and stop on a GPU host (no JDK needed: the carried bundle).
#  1. `kevo evolve --devices 7` on a host without GPU 7 exits 3 and leaves no campaign folder.
#  2. A short real campaign with a partial `stop:` block (evaluations only) and no children_per_generation:
#     it runs with the documented 3 children/generation, stops at its evaluations (no wall limit carried over),
#     and exits 0 (the split campaign loop on a real GPU).
#  3. `--resume` of that finished campaign reopens its folder and ends at once, exit 0.
# Run from the repository root: bench/experiments/evolve-start.sh   (OUT: where results go, default /tmp/evolve-start)
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/evolve-start}
mkdir -p "$OUT"
if [[ -z "${KEVO:-}" ]]; then
  source tools/unpack.sh
fi

printf 'name: nostart\noutput: %s\n' "$OUT/nostart" > "$OUT/nostart.yaml"
$KEVO evolve --config "$OUT/nostart.yaml" --devices 7 --lines > "$OUT/nostart.txt" 2>&1
nostart_rc=$?
if [[ -e $OUT/nostart ]]; then left=yes; else left=no; fi

printf 'name: startcheck\nislands: 1\npopulation: 4\nstop:\n  evaluations: 13\noutput: %s\n' "$OUT/mutations" \
  > "$OUT/startcheck.yaml"
$KEVO evolve --config "$OUT/startcheck.yaml" --lines > "$OUT/evolve.txt" 2>&1
run_rc=$?
dir=$(ls -d "$OUT"/mutations/startcheck-* 2>/dev/null | tail -1)
$KEVO show "$dir" > "$OUT/show.txt" 2>&1
$KEVO evolve --resume "$dir" --lines > "$OUT/resume.txt" 2>&1
resume_rc=$?

echo "== show"; cat "$OUT/show.txt" | head -12
echo "== summary"
printf '%-52s %s\n' "check" "result"
printf '%-52s %s\n' "--devices 7: exit code (want 3)" "$nostart_rc"
printf '%-52s %s\n' "--devices 7: folder left behind (want no)" "$left"
printf '%-52s %s\n' "--devices 7: message" "$(tail -1 "$OUT/nostart.txt")"
printf '%-52s %s\n' "campaign: exit code (want 0)" "$run_rc"
printf '%-52s %s\n' "campaign: children/generation (want 3)" \
  "$(grep -o '[0-9]* children/generation' "$OUT/show.txt")"
printf '%-52s %s\n' "campaign: end (want evaluations: 13 of 13)" "$(grep -o 'evaluations: [0-9]* of [0-9]*' "$dir/events.jsonl" | tail -1)"
printf '%-52s %s\n' "resume: exit code (want 0)" "$resume_rc"
printf '%-52s %s\n' "resume: first line" "$(head -1 "$OUT/resume.txt")"
