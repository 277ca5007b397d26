#!/usr/bin/env bash
# Issue 39's check on the GPU host: the operator as a value must change no score and no verdict. Judges the seeds
# (fp32, standard suite) and the recorded fp32 and bf16 champions with the kevo of before (its kevo.jar, carried as
# target/before/kevo.jar, dropped into a second copy of the bundle: every other jar and the runtime are the same) and
# with the kevo of now, alternately, same seeds, same GPU; then the GPU tests of now.
# Usage on the GPU host: OUT=dir bash bench/operator-value.sh [gpu-tests]
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-bench/results/operator-value-h100}; mkdir -p "$out"
source tools/unpack.sh
now=$KEVO
before_home=/tmp/kevo-before && rm -rf "$before_home" && mkdir -p "$before_home"
tar xzf target/kevo-*-linux-x86_64.tar.gz -C "$before_home"
cp target/before/kevo.jar "$before_home"/kevo-*/lib/kevo.jar
before=$(ls -d "$before_home"/kevo-*/bin/kevo)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$out/gpu.txt"
for round in 1 2; do
  for who in before now; do
    k=$([[ $who == before ]] && echo "$before" || echo "$now")
    $k eval seeds/*.cu --seed 7 --json "$out/seeds-$who-$round.json" > "$out/seeds-$who-$round.txt" 2>&1
    $k eval bench/results/campaign-fp32-h100/champion-fp32-h100.cu --seed 7 --json "$out/champion-fp32-$who-$round.json" \
      > "$out/champion-fp32-$who-$round.txt" 2>&1
    $k eval bench/results/campaign-bf16-h100/champion-bf16-h100.cu --dtype bf16 --seed 7 \
      --json "$out/champion-bf16-$who-$round.json" > "$out/champion-bf16-$who-$round.txt" 2>&1
    echo "== $who round $round"; grep -h -E "^[a-z0-9_.-]+\.cu|PASS|REJECTED|score" "$out/seeds-$who-$round.txt" \
      "$out/champion-fp32-$who-$round.txt" "$out/champion-bf16-$who-$round.txt" | head -20
  done
done
if [[ ${1:-} == gpu-tests ]]; then
  echo "== gpu tests (now)"; bash tools/gpu-tests.sh --details=tree > "$out/gpu-tests.txt" 2>&1
  grep -A14 "Test run finished" "$out/gpu-tests.txt"; grep -B2 -A12 "Failures (" "$out/gpu-tests.txt" | head -60
fi
