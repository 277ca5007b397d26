#!/usr/bin/env bash
# A forward and its gradient exported for training on the GPU host (issue 43's "export as training uses it"): judges
# both kernel files at scale under compute-sanitizer (what export ships), exports them as one torch package with
# --backward, builds it, and runs its train_check.py (x.grad through the package's torch.autograd.Function against
# torch's autograd in float64; a training step timed beside torch's). Writes $OUT/$NAME.txt and the eval records.
# Usage (repository root, target/kevo-*-linux-x86_64.tar.gz carried):
#   OUT=/some/dir bash bench/export-training.sh                      # softmax: seeds/online.cu + held_rows
#   OP=log_softmax DTYPE=bf16 OUT=/some/dir bash bench/export-training.sh
# FORWARD=FILE and BACKWARD=FILE export other kernel files (a campaign's champions). AT_SCALE=0 sanitizes without
# judging at scale (faster: the package then takes shapes of up to 2^31-1 elements) and judges the two side by side;
# SUITE=quick judges them on the quick suite.
set -euo pipefail
cd "$(dirname "$0")/.."
OP=${OP:-softmax}
DTYPE=${DTYPE:-fp32}
case "$OP" in
  softmax) FORWARD=${FORWARD:-seeds/online.cu} ;;
  log_softmax) FORWARD=${FORWARD:-seeds/log_softmax/online.cu} ;;
  *) echo "export-training.sh: OP=$OP: softmax or log_softmax" >&2; exit 2 ;;
esac
BACKWARD=${BACKWARD:-seeds/${OP}_backward/held_rows.cu}
NAME=${NAME:-export-training-$OP-$DTYPE-h100}
OUT=${OUT:-/tmp/kevo-export-training}
PYTHON=${PYTHON:-/opt/torch/.venv/bin/python}
mkdir -p "$OUT"
source tools/unpack.sh
export PATH=/usr/local/cuda/bin:$PATH
work=$(mktemp -d /tmp/kevo-export-training.XXXXXX)
mkdir -p "$work/f" "$work/b"
cp "$FORWARD" "$work/f/"; cp "$BACKWARD" "$work/b/"
forward=$work/f/$(basename "$FORWARD"); backward=$work/b/$(basename "$BACKWARD")
{
  echo "== $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader), kevo $("$KEVO" --version)," \
    "commit ${KEVO_COMMIT:-unknown}, $(date -u +%FT%TZ): OP=$OP DTYPE=$DTYPE bash bench/export-training.sh"
  scale=(--at-scale); [[ ${AT_SCALE:-1} == 0 ]] && scale=()
  for pair in "$OP:$forward:forward" "${OP}_backward:$backward:backward"; do
    IFS=: read -r op file role <<< "$pair"
    "$KEVO" eval --op "$op" --dtype "$DTYPE" --suite "${SUITE:-standard}" "${scale[@]}" --sanitize "$file" --json "$OUT/$NAME-$role-eval.json" \
      > "$OUT/$NAME-$role-sanitize.txt" 2>&1 &
    [[ ${AT_SCALE:-1} == 0 ]] || wait
  done
  wait
  for role in forward backward; do echo "$role: $(grep -E 'PASS|FAIL' "$OUT/$NAME-$role-sanitize.txt" | tail -1)"; done
  records=(); [[ ${AT_SCALE:-1} == 0 ]] || records=(--eval-json "$OUT/$NAME-forward-eval.json"
    --backward-eval-json "$OUT/$NAME-backward-eval.json")
  "$KEVO" export "$forward" --dtype "$DTYPE" "${records[@]}" --to torch --backward "$backward" --out "$work/pkg"
  cp "$work/pkg/kevo-export.json" "$OUT/$NAME-provenance.json"
  cp "$work/pkg/kevo-export-backward.json" "$OUT/$NAME-provenance-backward.json"
  echo "== train_check.py ($PYTHON)"
  (cd "$work/pkg" && "$PYTHON" train_check.py)
} 2>&1 | tee "$OUT/$NAME.txt"
exit "${PIPESTATUS[0]}"
