#!/usr/bin/env bash
# Issue 41 (families 2 and 3) on the GPU host: what judging per plan costs and what export ships. Judges the seeds
# (fp32, standard suite) with the kevo of before (its kevo.jar, carried as target/before/kevo.jar, dropped into a
# second copy of the bundle) and of now, then the recorded fp32 champion at scale under compute-sanitizer with both
# (champion confirmation's checks and the sanitizer's pass), then bench/export-torch.sh with the kevo of now (the
# package runs the judged cubin: nvcc builds host code only). Everything goes into $OUT/plans.tgz.
# Usage on the GPU host: OUT=dir bash bench/plans-h100.sh cost|export|gpu-tests [CLASS_REGEX]  (each within 10 minutes)
set -uo pipefail
cd "$(dirname "$0")/.."
out=/tmp/plans; rm -rf "$out"; mkdir -p "$out"
trap 'tar czf "${OUT:-.}/plans.tgz" -C /tmp plans' EXIT
source tools/unpack.sh
now=$KEVO
before_home=/tmp/kevo-before && rm -rf "$before_home" && mkdir -p "$before_home"
tar xzf target/kevo-*-linux-x86_64.tar.gz -C "$before_home"
cp target/before/kevo.jar "$before_home"/kevo-*/lib/kevo.jar
before=$(ls -d "$before_home"/kevo-*/bin/kevo)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$out/gpu.txt"
echo "before: $($before --version)  now: $($now --version)  commit ${KEVO_COMMIT:-unknown}" | tee -a "$out/gpu.txt"
what=${1:-cost}
if [[ $what == gpu-tests ]]; then
  echo "== gpu tests (now): ${2:-all}"
  if [[ -n ${2:-} ]]; then bash tools/gpu-tests.sh --details=tree --include-classname "$2" > "$out/gpu-tests.txt" 2>&1
  else bash tools/gpu-tests.sh --details=tree > "$out/gpu-tests.txt" 2>&1; fi
  grep -A14 "Test run finished" "$out/gpu-tests.txt"; grep -B2 -A12 "Failures (" "$out/gpu-tests.txt" | head -60
fi
if [[ $what == export ]]; then
  echo "== export (now)"
  OUT=$out/export CHAMPION=bench/results/campaign-fp32-h100/champion-fp32-h100.cu bash bench/export-torch.sh \
    > "$out/export.txt" 2>&1
  echo "export exit $?"; tail -30 "$out/export.txt"
fi
[[ $what == cost ]] || exit 0
sed '/^op:/d; /sm_counts/d' config/eval.yaml > /tmp/eval-before.yaml
champion=bench/results/campaign-fp32-h100/champion-fp32-h100.cu
for who in now before; do
  k=$([[ $who == before ]] && echo "$before" || echo "$now")
  cfg=$([[ $who == before ]] && echo /tmp/eval-before.yaml || echo config/eval.yaml)
  t0=$SECONDS
  $k eval --config "$cfg" seeds/*.cu $champion --seed 7 --json "$out/seeds-$who.json" > "$out/seeds-$who.txt" 2>&1
  echo "== $who: seeds and champion, plain eval: $((SECONDS - t0)) s"
  grep -h -E "PASS|REJECTED|score" "$out/seeds-$who.txt" | head -12
  work=/tmp/plans-work-$who; rm -rf "$work"; mkdir -p "$work"; cp $champion "$work/"
  t0=$SECONDS
  $k eval --config "$cfg" "$work/champion-fp32-h100.cu" --seed 7 --at-scale --sanitize --json "$out/at-scale-$who.json" \
    > "$out/at-scale-$who.txt" 2>&1
  echo "== $who: champion at scale + sanitizer: $((SECONDS - t0)) s"; tail -5 "$out/at-scale-$who.txt"
done
