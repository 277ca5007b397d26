#!/usr/bin/env bash
# Runs steps of bench/forward-family-h100.sh side by side on a host of several GPUs, the i-th argument on GPU i
# (CUDA_VISIBLE_DEVICES), so that one 10-minute device command holds as many steps as the host has GPUs; an argument
# may chain steps with ';', run one after another on its GPU. Everything the steps leave in $OUT is packed into
# $OUT/steps.tgz with their logs, one file, whatever their number (the device tool brings back at most 8).
# Every step ends by a deadline, STEPS_SECONDS after the start (default 560), so that the packing runs inside the
# device command's limit however long the steps would take: a step cut by it keeps what it wrote (its own EXIT trap),
# and a step with under 20 seconds left is not begun. A step is told its seconds (KEVO_STEP_SECONDS), so that a campaign
# ends inside them and keeps its folder, rather than being killed with the step.
# Usage (repository root, the bundle and for `tests` target/gpu-tests.tgz carried):
#   KEVO_COMMIT=$(cat .commit) bash tools/parallel-steps.sh "tests" "campaign masked_softmax fp32" \
#       "campaign masked_softmax bf16" "check; family-backward"
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
[[ $# -ge 1 ]] || { echo "usage: tools/parallel-steps.sh STEPS [STEPS ...] (one argument a GPU)" >&2; exit 2; }
gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
if (( $# > gpus )); then echo "parallel-steps: $# arguments, $gpus GPUs" >&2; exit 2; fi
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
final=${OUT:?OUT: where the packed results go}
work=$(mktemp -d /tmp/parallel-steps.XXXXXX)
deadline=$((SECONDS + ${STEPS_SECONDS:-560}))
i=0
for chain in "$@"; do
  mkdir -p "$work/gpu$i"
  (
    export CUDA_VISIBLE_DEVICES=$i OUT="$work/gpu$i"
    IFS=';' read -ra steps <<< "$chain"
    for step in "${steps[@]}"; do
      read -ra words <<< "$step"
      left=$((deadline - SECONDS))
      if (( left < 20 )); then echo "== GPU $i: ${words[*]} not begun, ${left}s left"; continue; fi
      echo "== GPU $i: ${words[*]} ($(date -u +%T), ${left}s left)"
      KEVO_STEP_SECONDS=$left timeout "$left" bash bench/forward-family-h100.sh "${words[@]}"
      echo "== GPU $i: ${words[0]} exit $? ($(date -u +%T))"
    done
  ) > "$work/gpu$i.log" 2>&1 &
  i=$((i + 1))
  sleep 3  # the steps unpack the bundle and start their JVMs a little apart; each GPU's start comes off its steps' time
done
wait
for log in "$work"/gpu*.log; do echo "=== $(basename "$log")"; cat "$log"; done
# The device brings back files of at most 16 MiB: the steps' own archives go in steps.tgz, a cut campaign's folder
# (campaign-folder-*.tgz, only for campaign-resume) in folders.tgz where that fits, else it is named as left behind.
tar czf "$final/steps.tgz" -C "$work" --exclude='campaign-folder-*.tgz' .
folders=$(cd "$work" && find . -name 'campaign-folder-*.tgz')
if [[ -n $folders ]]; then
  (cd "$work" && tar cf "$final/folders.tgz" $folders)
  if (( $(stat -c %s "$final/folders.tgz") > 15 * 1024 * 1024 )); then
    rm -f "$final/folders.tgz"; echo "campaign folders left behind (over 15 MiB together):" $folders
  fi
fi
ls -la "$final"
