#!/usr/bin/env bash
# kevo export on the GPU host, for any operator it packages: judges a kernel file at scale under compute-sanitizer (what
# export ships: its cubin, each plan within what it was judged on), exports it as C++ and as a PyTorch extension with
# the bundle's kevo, measures the same file with `kevo eval --json`, builds and runs the C++ examples with nvcc (each
# checks against kevo's own float64 reference of the operator), then builds the torch package with the torch venv and
# checks it in float64 against torch's function for the operator (masked_softmax: torch.softmax of the scaled, masked
# scores, fully masked rows 0) on every suite shape and random ones, checks its misuse errors and times it
# (bench/export_torch.py). Writes $OUT/$NAME.json (the lead copies it to bench/results/), the kevo eval records and the
# logs. About 4-6 minutes on an H100.
# Usage (repository root, target/kevo-*-linux-x86_64.tar.gz carried):
#   OUT=/some/dir bash bench/export-torch.sh                    # softmax: the recorded fp32 champion
#   OP=log_softmax OUT=/some/dir bash bench/export-torch.sh     # log_softmax: seeds/log_softmax/online.cu
#   OP=softmax_backward OUT=/some/dir bash bench/export-torch.sh  # a gradient (log_softmax_backward too): its
#                                   held_rows seed, then block_dot; the torch package checked by its example.py
#   OP=cross_entropy OUT=/some/dir bash bench/export-torch.sh  # the loss: its held_rows seed, then online; the torch
#                                   package (the op and the loss function with its backward) checked by its example.py
#                                   (needs ninja)
#   OP=masked_softmax OUT=/some/dir bash bench/export-torch.sh  # masked_softmax: seeds/masked_softmax/online.cu, judged
#                                   on the attention suite; its C++ examples and its torch package run every attention
#                                   shape in every mask kind, the torch package 8 random attention layouts too;
#                                   masked_softmax(x, scale, mask_kind, lengths=, mask=)'s misuse errors are checked
#                                   and the package's example.py runs (needs ninja)
# CHAMPION=FILE exports another kernel file of the operator; SECOND=FILE names the second file whose C++ example runs
# (softmax's default, block_stats, takes a workspace); DTYPE=bf16 (fp16, bf16-fp32) judges and exports both in that
# dtype instead of the file's default: log_softmax's two defaults implement every dtype, softmax's (the fp32 champion,
# block_stats) fp32 only, so give softmax CHAMPION and SECOND files that do (seeds/register_rows.cu, seeds/online.cu).
set -euo pipefail
cd "$(dirname "$0")/.."
OP=${OP:-softmax}
case "$OP" in
  softmax)
    CHAMPION=${CHAMPION:-bench/results/campaign-fp32-h100/champion-fp32-h100.cu}
    SECOND=${SECOND:-seeds/block_stats.cu}
    NAME=${NAME:-export-h100} ;;
  log_softmax)
    CHAMPION=${CHAMPION:-seeds/log_softmax/online.cu}
    SECOND=${SECOND:-evaluator/baselines/log_softmax_two_pass.cu}
    NAME=${NAME:-export-log_softmax-h100} ;;
  masked_softmax)
    CHAMPION=${CHAMPION:-seeds/masked_softmax/online.cu}
    SECOND=${SECOND:-evaluator/baselines/masked_softmax_two_pass.cu}
    NAME=${NAME:-export-masked_softmax-h100} ;;
  softmax_backward|log_softmax_backward)
    CHAMPION=${CHAMPION:-seeds/$OP/held_rows.cu}
    SECOND=${SECOND:-seeds/$OP/block_dot.cu}
    NAME=${NAME:-export-$OP-h100} ;;
  cross_entropy)
    CHAMPION=${CHAMPION:-seeds/cross_entropy/held_rows.cu}
    SECOND=${SECOND:-seeds/cross_entropy/online.cu}
    NAME=${NAME:-export-cross_entropy-h100} ;;
  *)
    echo "export-torch.sh: OP=$OP: softmax, log_softmax, masked_softmax, softmax_backward, log_softmax_backward or" \
      "cross_entropy" >&2
    exit 2 ;;
esac
# The shapes each C++ example runs: rows x cols, or for masked_softmax the attention suite's shapes in every mask kind
# (BATCHxHEADSxQUERIESxKEYS:MASK), which its judgement covers.
if [[ $OP == masked_softmax ]]; then
  suite_args=(--suite attention)
  attention=(1x32x4096x4096 4x16x1024x1024 2x8x1024x512 8x32x1x4096 4x32x16x32768 1x32x1x131072 1x1x2048x128256
             3x12x77x781)
  shapes=(); for s in "${attention[@]}"; do for k in none causal padding additive; do shapes+=("$s:$k"); done; done
  second_shapes=("${shapes[@]}")
else
  suite_args=()
  shapes=(32x128 1823x781 65536x128 32x50257 8x128256 1x1000000 1x10000000 4096x12288)
  second_shapes=(32x128 1823x781 4096x4096 8x128256 1x1000000)
fi
DTYPE=${DTYPE:-}
dtype_args=()
if [[ -n $DTYPE ]]; then
  dtype_args=(--dtype "$DTYPE")
  NAME=${NAME/-h100/-$DTYPE-h100}
fi
OUT=${OUT:-/tmp/kevo-export-out}
PYTHON=${PYTHON:-/opt/torch/.venv/bin/python}
mkdir -p "$OUT"
source tools/unpack.sh
export PATH=/usr/local/cuda/bin:$PATH
work=$(mktemp -d /tmp/kevo-export.XXXXXX)
started=$(date +%s)
# kevo exports only what compute-sanitizer ran clean, the cubin it ran, each plan within what the evaluation the pass
# followed judged it on: a copy is judged at scale and sanitized, so the record and cubin land beside it, not in git.
champion=$work/${CHAMPION_NAME:-$(basename "$CHAMPION")}
cp "$CHAMPION" "$champion"
t0=$SECONDS; "$KEVO" eval --op "$OP" "${suite_args[@]}" "${dtype_args[@]}" --at-scale --sanitize "$champion" \
  --json "$OUT/$NAME-at-scale.json" > "$OUT/$NAME-sanitize.txt" 2>&1 || true
echo "at-scale + sanitize of $(basename "$champion") ($OP): $((SECONDS - t0)) s" | tee -a "$OUT/$NAME-sanitize.txt"
second=$work/second/$(basename "$SECOND")
mkdir -p "$work/second"
cp "$SECOND" "$second"
"$KEVO" eval --op "$OP" "${suite_args[@]}" "${dtype_args[@]}" --sanitize "$second" >> "$OUT/$NAME-sanitize.txt" 2>&1 || true

echo "== kevo export ($("$KEVO" --version)), $OP"
torch_package=1
"$KEVO" export "$champion" "${dtype_args[@]}" --to torch --out "$work/torch" 2>&1 | tee "$OUT/$NAME-export.txt" \
  || torch_package=0
"$KEVO" export "$champion" "${dtype_args[@]}" --to cpp --out "$work/cpp" | tee -a "$OUT/$NAME-export.txt"
cp "$work/cpp/kevo-export.json" "$OUT/$NAME-provenance.json"

echo "== kevo eval of the same file (kevo's own measurement, this run)"
"$KEVO" eval --op "$OP" "${suite_args[@]}" "${dtype_args[@]}" "$champion" --json "$OUT/$NAME-kevo-eval.json" | tee "$OUT/$NAME-kevo-eval.txt"

echo "== the C++ package: nvcc build of example.cu, run on GPU"
set +e
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
(cd "$work/cpp" && nvcc -O3 -std=c++17 -arch="sm_$arch" -o example example.cu "kevo_$OP.cu" \
  && ./example "${shapes[@]}") \
  2>&1 | tee "$OUT/$NAME-cpp-example.txt"
cpp_rc=${PIPESTATUS[0]}
# A second file of the operator through the same C API: for softmax, block_stats, whose plans always take a workspace
# (kevo_softmax allocates it per call).
"$KEVO" export "$second" "${dtype_args[@]}" --to cpp --out "$work/second-cpp" >/dev/null
(cd "$work/second-cpp" && nvcc -O3 -std=c++17 -arch="sm_$arch" -o example example.cu "kevo_$OP.cu" \
  && ./example "${second_shapes[@]}") 2>&1 | tee -a "$OUT/$NAME-cpp-example.txt"
second_rc=${PIPESTATUS[0]}

torch_rc=0
if [[ $torch_package == 1 && ($OP == *_backward || $OP == cross_entropy) ]]; then
  # A gradient's torch package is checked by its own example.py (y from torch's forward, dx against torch's backward in
  # float64, kevo's dy-scaled bound), and so is a loss's (dx and the loss against F.cross_entropy and its gradient, the
  # op and the loss function through autograd); export_torch.py's cases, misuse checks and timing are the forward's.
  echo "== the torch package's example.py ($PYTHON)"
  (cd "$work/torch" && "$PYTHON" example.py) 2>&1 | tee "$OUT/$NAME-torch-example.txt"
  if [[ ${PIPESTATUS[0]} != 0 ]] || grep -q WRONG "$OUT/$NAME-torch-example.txt"; then
    torch_rc=1
  fi
elif [[ $torch_package == 1 ]]; then
  echo "== the torch package: build, check against torch in float64, check its errors, time ($PYTHON)"
  "$PYTHON" -c "import torch.utils.cpp_extension as c; print('ninja available:', c.is_ninja_available())"
  "$PYTHON" bench/export_torch.py --package "$work/torch" --kevo-json "$OUT/$NAME-kevo-eval.json" --kernel "$champion" \
    --out "$OUT/$NAME.json" --command "OP=$OP DTYPE=$DTYPE bash bench/export-torch.sh" 2>&1 | tee "$OUT/$NAME.txt"
  torch_rc=${PIPESTATUS[0]}
  if [[ $OP == masked_softmax ]]; then
    # The package's own example.py (new with this operator's torch op: every mask kind against its float64
    # reference): it builds with load(), which needs ninja; a WRONG line or a failure fails the torch check.
    echo "== the torch package's example.py"
    (cd "$work/torch" && "$PYTHON" example.py) 2>&1 | tee "$OUT/$NAME-torch-example.txt"
    if [[ ${PIPESTATUS[0]} != 0 ]] || grep -q WRONG "$OUT/$NAME-torch-example.txt"; then
      torch_rc=1
    fi
  fi
else
  echo "== kevo export --to torch refused $OP (its line is in $NAME-export.txt)" >&2
  torch_rc=1
fi
echo "== done in $(( $(date +%s) - started )) s ($OP): cpp example exit $cpp_rc ($(basename "$champion")), $second_rc" \
  "($(basename "$second")); torch check exit $torch_rc"
exit $(( cpp_rc != 0 || second_rc != 0 || torch_rc != 0 ))
