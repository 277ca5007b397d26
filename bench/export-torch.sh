#!/usr/bin/env bash
# kevo export on the GPU host: judges the recorded champion at scale under compute-sanitizer (what export ships: its
# cubin, each plan within what it was judged on), exports it as C++ and as a PyTorch extension with the bundle's kevo,
# measures the same file with `kevo eval --json`, builds and runs the C++ example with nvcc, then builds the torch
# package with the torch venv and checks and times it (bench/export_torch.py). Writes $OUT/export-h100.json (the lead
# copies it to bench/results/), the kevo eval records and the logs. About 4-6 minutes on an H100.
# Usage (repository root, target/kevo-*-linux-x86_64.tar.gz carried): OUT=/some/dir bash bench/export-torch.sh
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/kevo-export-out}
PYTHON=${PYTHON:-/opt/torch/.venv/bin/python}
mkdir -p "$OUT"
source tools/unpack.sh
export PATH=/usr/local/cuda/bin:$PATH
work=$(mktemp -d /tmp/kevo-export.XXXXXX)
started=$(date +%s)
# kevo exports only what compute-sanitizer ran clean, the cubin it ran, each plan within what the evaluation the pass
# followed judged it on: a copy is judged at scale and sanitized, so the record and cubin land beside it, not in git.
champion=$work/${CHAMPION_NAME:-champion-fp32-h100.cu}
cp "${CHAMPION:-bench/results/campaign-fp32-h100/champion-fp32-h100.cu}" "$champion"
t0=$SECONDS; "$KEVO" eval --at-scale --sanitize "$champion" \
  --json "$OUT/export-h100-at-scale.json" > "$OUT/export-h100-sanitize.txt" 2>&1 || true
echo "at-scale + sanitize of the champion: $((SECONDS - t0)) s" | tee -a "$OUT/export-h100-sanitize.txt"
cp seeds/block_stats.cu "$work/block_stats.cu"
"$KEVO" eval --sanitize "$work/block_stats.cu" >> "$OUT/export-h100-sanitize.txt" 2>&1 || true

echo "== kevo export ($("$KEVO" --version))"
"$KEVO" export "$champion" --to torch --out "$work/torch" | tee "$OUT/export-torch-export.txt"
"$KEVO" export "$champion" --to cpp --out "$work/cpp" | tee -a "$OUT/export-torch-export.txt"
cp "$work/torch/kevo-export.json" "$OUT/export-h100-provenance.json"

echo "== kevo eval of the same file (kevo's own measurement, this run)"
"$KEVO" eval "$champion" --json "$OUT/export-h100-kevo-eval.json" | tee "$OUT/export-h100-kevo-eval.txt"

echo "== the C++ package: nvcc build of example.cu, run on GPU"
set +e
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
(cd "$work/cpp" && nvcc -O3 -std=c++17 -arch=sm_$arch -o example example.cu kevo_softmax.cu \
  && ./example 32x128 1823x781 65536x128 32x50257 8x128256 1x1000000 1x10000000 4096x12288) \
  2>&1 | tee "$OUT/export-h100-cpp-example.txt"
cpp_rc=${PIPESTATUS[0]}
# The champion's plans rarely need a workspace; block_stats always does (kevo_softmax allocates it per call).
"$KEVO" export "$work/block_stats.cu" --to cpp --out "$work/block_stats" >/dev/null
(cd "$work/block_stats" && nvcc -O3 -std=c++17 -arch=sm_$arch -o example example.cu kevo_softmax.cu \
  && ./example 32x128 1823x781 4096x4096 8x128256 1x1000000) 2>&1 | tee -a "$OUT/export-h100-cpp-example.txt"
ws_rc=${PIPESTATUS[0]}

echo "== the torch package: build, check, time ($PYTHON)"
"$PYTHON" -c "import torch.utils.cpp_extension as c; print('ninja available:', c.is_ninja_available())"
"$PYTHON" bench/export_torch.py --package "$work/torch" --kevo-json "$OUT/export-h100-kevo-eval.json" --kernel "$champion" \
  --out "$OUT/export-h100.json" --command "bash bench/export-torch.sh" 2>&1 | tee "$OUT/export-h100.txt"
torch_rc=${PIPESTATUS[0]}
echo "== done in $(( $(date +%s) - started )) s: cpp example exit $cpp_rc (champion), $ws_rc (block_stats," \
  "workspace); torch check exit $torch_rc"
exit $(( cpp_rc != 0 || ws_rc != 0 || torch_rc != 0 ))
