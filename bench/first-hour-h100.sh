#!/usr/bin/env bash
# Issue 40 on the GPU host, with the bundle carried:
#   no-sanitizer: a campaign on a host whose compute-sanitizer is hidden (overmounted with /dev/null in a private
#                 mount namespace, as CI's first pass hides it), run to a champion; then `show` on its folder.
#   sample:       the shipped sample campaign (bench/first-hour/sample.yaml), its champion sanitized by the
#                 campaign itself, then judged again on every input case with the at-scale checks.
# Everything goes into $OUT/first-hour-MODE.tgz (the device tool brings back few files).
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:?no-sanitizer or sample}
w=/tmp/first-hour-$mode; rm -rf "$w"; mkdir -p "$w"
trap 'tar czf "${OUT:-.}/first-hour-$mode.tgz" -C /tmp "first-hour-$mode"' EXIT
source tools/unpack.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$w/gpu.txt"
git_commit=${KEVO_COMMIT:-unknown}
case $mode in
no-sanitizer)
  hide=$(for f in $(type -P compute-sanitizer) /usr/local/cuda*/bin/compute-sanitizer \
      /usr/local/cuda*/compute-sanitizer/compute-sanitizer; do [[ -e $f ]] && readlink -f "$f"; done | sort -u)
  echo "hidden: $hide" | tee "$w/hidden.txt"
  unshare --mount --propagation private -- env -u KEVO_COMPUTE_SANITIZER bash -c '
      for f in $1; do mount --bind /dev/null "$f"; done
      command -v compute-sanitizer && compute-sanitizer --version | head -1
      "$KEVO" evolve --config bench/first-hour/no-sanitizer.yaml --lines > "$2/evolve.out" 2> "$2/evolve.err"
      echo "exit $?" > "$2/evolve.exit"' hide "$hide" "$w"
  cat "$w/evolve.exit"; echo "-- stderr"; cat "$w/evolve.err"; echo "-- stdout (head, tail)"; head -5 "$w/evolve.out"; tail -8 "$w/evolve.out"
  dir=$(ls -d "$(dirname "$(dirname "$KEVO")")"/mutations/no-sanitizer-* mutations/no-sanitizer-* 2>/dev/null | tail -1)
  "$KEVO" show "$dir" > "$w/show.txt" 2>&1; echo "show exit $?"; tail -15 "$w/show.txt"
  grep -h unsanitized "$dir/events.jsonl" | head -3 | tee "$w/events-unsanitized.txt"
  echo "folder: $dir"; tar czf "$w/campaign.tgz" -C "$(dirname "$dir")" "$(basename "$dir")"
  ;;
sample)
  KEVO_COMMIT=$git_commit "$KEVO" evolve --config bench/first-hour/sample.yaml --lines > "$w/evolve.out" 2> "$w/evolve.err"
  echo "evolve exit $?"; cat "$w/evolve.err"; tail -12 "$w/evolve.out"
  dir=$(ls -d "$(dirname "$(dirname "$KEVO")")"/mutations/sample-2* mutations/sample-2* 2>/dev/null | tail -1)
  "$KEVO" show "$dir" > "$w/show.txt" 2>&1; tail -25 "$w/show.txt"
  echo "folder: $dir"; tar czf "$w/campaign.tgz" -C "$(dirname "$dir")" "$(basename "$dir")"
  ;;
esac
