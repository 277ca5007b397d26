#!/usr/bin/env bash
# Issue 39's check on the GPU host: the operator as a value must change no score and no verdict. Judges the seeds
# (fp32, standard suite) and the recorded fp32 and bf16 champions with the kevo of before (its kevo.jar, carried as
# target/before/kevo.jar, dropped into a second copy of the bundle: every other jar and the runtime are the same) and
# with the kevo of now, alternately, same seeds, same GPU; then the GPU tests of now.
# Usage on the GPU host: OUT=dir [ROUNDS=2] bash bench/operator-value.sh [gpu-tests]
set -uo pipefail
cd "$(dirname "$0")/.."
# The device tool brings back at most 8 files: everything goes into one archive, written however the run ends.
out=/tmp/operator-value; rm -rf "$out"; mkdir -p "$out"
trap 'tar czf "${OUT:-.}/operator-value.tgz" -C /tmp operator-value' EXIT
source tools/unpack.sh
now=$KEVO
before_home=/tmp/kevo-before && rm -rf "$before_home" && mkdir -p "$before_home"
tar xzf target/kevo-*-linux-x86_64.tar.gz -C "$before_home"
cp target/before/kevo.jar "$before_home"/kevo-*/lib/kevo.jar
before=$(ls -d "$before_home"/kevo-*/bin/kevo)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$out/gpu.txt"
if [[ ${1:-} == gpu-tests ]]; then
  echo "== gpu tests (now)"; bash tools/gpu-tests.sh --details=tree > "$out/gpu-tests.txt" 2>&1
  grep -A14 "Test run finished" "$out/gpu-tests.txt"; grep -B2 -A12 "Failures (" "$out/gpu-tests.txt" | head -60
fi
# Both read the same settings: the eval config without the key the kevo of before does not know (op, whose default,
# softmax, is what that kevo judges).
sed '/^op:/d' config/eval.yaml > /tmp/eval-both.yaml
for round in $(seq 1 "${ROUNDS:-2}"); do
  for who in before now; do
    k=$([[ $who == before ]] && echo "$before" || echo "$now")
    $k eval --config /tmp/eval-both.yaml seeds/*.cu --seed 7 --json "$out/seeds-$who-$round.json" > "$out/seeds-$who-$round.txt" 2>&1
    $k eval --config /tmp/eval-both.yaml bench/results/campaign-fp32-h100/champion-fp32-h100.cu --seed 7 --json "$out/champion-fp32-$who-$round.json" \
      > "$out/champion-fp32-$who-$round.txt" 2>&1
    $k eval --config /tmp/eval-both.yaml bench/results/campaign-bf16-h100/champion-bf16-h100.cu --dtype bf16 --seed 7 \
      --json "$out/champion-bf16-$who-$round.json" > "$out/champion-bf16-$who-$round.txt" 2>&1
    echo "== $who round $round"; grep -h -E "^[a-z0-9_.-]+\.cu|PASS|REJECTED|score" "$out/seeds-$who-$round.txt" \
      "$out/champion-fp32-$who-$round.txt" "$out/champion-bf16-$who-$round.txt" | head -20
  done
done
